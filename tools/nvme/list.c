// SPDX-License-Identifier: MIT
/*
 * mqblk list: nvme-cli's list, with the namespaces named by URIs rather
 * than found under /dev.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../nvme.h"
#include "nvcli.h"

struct list_row {
	const char *node;
	char sn[21], mn[41], fr[9];
	uint32_t nsid;
	uint64_t nsze, nuse; /* blocks */
	uint32_t lba; /* bytes */
	uint16_t ms; /* metadata bytes */
};

/* Identify Controller and Namespace of one URI into a row */
static int list_one(const char *uri, struct list_row *r)
{
	struct mqblk_dev *dev;
	struct nvme_id_ctrl *id;
	struct nvme_id_ns *ns;
	const struct nvme_lbaf *f;
	int ret = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->node = uri;
	id = calloc(1, sizeof(*id));
	ns = calloc(1, sizeof(*ns));
	if (!id || !ns) {
		fprintf(stderr, "mqblk list: out of memory\n");
		goto out_free;
	}
	ret = nvcli_ctrl_open("list", uri, &dev);
	if (ret)
		goto out_free;
	ret = nvcli_identify("list", dev, NVME_ID_CNS_CTRL, 0, id);
	if (ret)
		goto out_close;
	ret = -EINVAL;
	r->nsid = nvcli_pick_nsid("list", dev, uri, 0);
	if (r->nsid)
		ret = nvcli_identify("list", dev, NVME_ID_CNS_NS, r->nsid, ns);
	if (ret)
		goto out_close;
	nvcli_field_str(r->sn, sizeof(r->sn), id->sn, sizeof(id->sn));
	nvcli_field_str(r->mn, sizeof(r->mn), id->mn, sizeof(id->mn));
	nvcli_field_str(r->fr, sizeof(r->fr), id->fr, sizeof(id->fr));
	nvcli_rstrip(r->sn);
	nvcli_rstrip(r->mn);
	nvcli_rstrip(r->fr);
	f = &ns->lbaf[nvme_flbas_index(ns->flbas)];
	r->nsze = le64_to_cpu(ns->nsze);
	r->nuse = le64_to_cpu(ns->nuse);
	r->lba = f->ds < 32 ? 1u << f->ds : 0;
	r->ms = le16_to_cpu(f->ms);
out_close:
	mqblk_dev_close(dev);
out_free:
	free(id);
	free(ns);
	return ret;
}

/* nvme-cli's SI suffixes for sizes, binary ones for the block size */
static const char *si_suffix(double *v)
{
	static const char *const sfx[] = { "", "k", "M", "G", "T", "P", "E" };
	unsigned i = 0;

	while (*v >= 1000.0 && i + 1 < sizeof(sfx) / sizeof(sfx[0])) {
		*v /= 1000.0;
		i++;
	}
	return sfx[i];
}

static const char *bin_suffix(uint64_t *v)
{
	static const char *const sfx[] = { "", "Ki", "Mi", "Gi", "Ti" };
	unsigned i;

	for (i = 4; i > 0; i--) {
		if (*v >= 1ull << (10 * i)) {
			*v = (*v + (1ull << (10 * i - 1))) >> (10 * i);
			return sfx[i];
		}
	}
	return "";
}

static void list_print(const struct list_row *rows, unsigned n)
{
	static const char dash[] = "----------------------------------------";
	int w = 21; /* nvme list's Node column, wider for long URIs */
	unsigned i;

	for (i = 0; i < n; i++)
		if ((int)strlen(rows[i].node) > w)
			w = (int)strlen(rows[i].node);
	printf("%-*s %-20s %-40s %-9s %-26s %-16s %-8s\n", w, "Node", "SN",
	       "Model", "Namespace", "Usage", "Format", "FW Rev");
	for (i = 0; i < (unsigned)w; i++)
		putchar('-');
	printf(" %-.20s %-.40s %-.9s %-.26s %-.16s %-.8s\n", dash, dash, dash,
	       dash, dash, dash);
	for (i = 0; i < n; i++) {
		const struct list_row *r = &rows[i];
		double size = (double)r->nsze * r->lba;
		double used = (double)r->nuse * r->lba;
		uint64_t lba = r->lba;
		const char *ss = si_suffix(&size), *us = si_suffix(&used);
		const char *ls = bin_suffix(&lba);
		char usage[64], format[64];

		snprintf(usage, sizeof(usage), "%6.2f %2sB / %6.2f %2sB", used,
			 us, size, ss);
		snprintf(format, sizeof(format), "%3.0f %2sB + %2u B",
			 (double)lba, ls, r->ms);
		printf("%-*s %-20s %-40s %-9" PRIu32 " %-26s %-16s %-8s\n", w,
		       r->node, r->sn, r->mn, r->nsid, usage, format, r->fr);
	}
}

static void list_json(const struct list_row *rows, unsigned n)
{
	struct jw w = { 0 };
	unsigned i;

	jw_open(&w, NULL, '{');
	jw_open(&w, "Devices", '[');
	for (i = 0; i < n; i++) {
		const struct list_row *r = &rows[i];

		jw_open(&w, NULL, '{');
		jw_u64(&w, "NameSpace", r->nsid);
		jw_str(&w, "DevicePath", r->node);
		jw_str(&w, "Firmware", r->fr);
		jw_str(&w, "ModelNumber", r->mn);
		jw_str(&w, "SerialNumber", r->sn);
		jw_u64(&w, "UsedBytes", r->nuse * r->lba);
		jw_u64(&w, "MaximumLBA", r->nsze);
		jw_u64(&w, "PhysicalSize", r->nsze * r->lba);
		jw_u64(&w, "SectorSize", r->lba);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_close(&w, '}');
}

static void list_usage(FILE *f)
{
	fprintf(f, "usage: mqblk list [options] URI...\n"
		   "One line per nvme-tcp:// or nvme-rdma:// namespace, with "
		   "nvme list's "
		   "columns (Node is the URI).\n"
		   "\n"
		   "  -o, --output-format=FMT   normal|json\n"
		   "  -h, --help                this text\n");
}

int nvme_cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output-format", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum out_fmt fmt = FMT_NORMAL;
	struct list_row *rows;
	unsigned n = 0;
	int c, i, status = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (nvcli_parse_fmt("list", optarg, &fmt))
				return 1;
			break;
		case 'h':
			list_usage(stdout);
			return 0;
		default:
			nvcli_bad_option("list", c, argv);
			return 1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "mqblk list: no namespace: give one or more "
				"nvme-tcp://HOST:PORT/SUBNQN URIs\n");
		return 1;
	}
	rows = calloc((size_t)(argc - optind), sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "mqblk list: out of memory\n");
		return 1;
	}
	/* a URI that fails is reported and left out; the others are listed */
	for (i = optind; i < argc; i++) {
		if (list_one(argv[i], &rows[n]))
			status = 1;
		else
			n++;
	}
	if (fmt == FMT_JSON)
		list_json(rows, n);
	else if (n)
		list_print(rows, n);
	free(rows);
	return status;
}
