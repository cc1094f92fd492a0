// SPDX-License-Identifier: MIT
/*
 * mqblk ana-log: nvme-cli's ana-log (Get Log Page 0Ch, Asymmetric
 * Namespace Access), normal and JSON.
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

#define ANA_CHUNK 4096u /* Get Log Page transfer per command */

static void ana_log_usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk ana-log nvme-tcp://HOST:PORT/SUBNQN[?...] "
		"[options]\n"
		"Read the Asymmetric Namespace Access log (log page 0Ch) and "
		"print it, as\n"
		"nvme ana-log: each ANA group's state through this controller "
		"and its\n"
		"namespaces.\n"
		"\n"
		"  -g, --groups-only         RGO: the groups without their "
		"namespaces\n"
		"  -o, --output-format=FMT   normal|json\n"
		"  -h, --help                this text\n");
}

static const char *ana_state_str(uint8_t state)
{
	const char *name = nvme_ana_state_name(state & 0xf);

	return name ? name : "invalid state";
}

/* The log is checked as it is walked: a descriptor or NSID list that
 * runs past what was read is the controller's error. */
static int ana_walk(const uint8_t *log, size_t len, enum out_fmt fmt,
		    const char *uri)
{
	const struct nvme_ana_log_hdr *h = (const void *)log;
	unsigned ngrps = le16_to_cpu(h->ngrps), g;
	size_t off = sizeof(*h);
	struct jw w = { 0 };
	uint32_t k;

	if (fmt == FMT_JSON) {
		jw_open(&w, NULL, '{');
		jw_str(&w, "Asymmetric Namespace Access Log for NVMe device",
		       uri);
		jw_u64(&w, "chgcnt", le64_to_cpu(h->chgcnt));
		jw_u64(&w, "ngrps", ngrps);
		jw_open(&w, "ANA DESC LIST ", '[');
	} else {
		printf("Asymmetric Namespace Access Log for NVMe device: %s\n",
		       uri);
		printf("ANA LOG HEADER :-\n");
		printf("chgcnt\t:\t%" PRIu64 "\n", le64_to_cpu(h->chgcnt));
		printf("ngrps\t:\t%u\n", ngrps);
		printf("ANA Log Desc :-\n");
	}
	for (g = 0; g < ngrps; g++) {
		const struct nvme_ana_group_desc *d;
		uint32_t nn;

		if (len - off < sizeof(*d)) {
			fprintf(stderr,
				"mqblk ana-log: descriptor %u of %u runs past "
				"the log's %zu bytes\n",
				g, ngrps, len);
			return -EBADMSG;
		}
		d = (const void *)(log + off);
		off += sizeof(*d);
		nn = le32_to_cpu(d->nnsids);
		if ((len - off) / 4 < nn) {
			fprintf(stderr,
				"mqblk ana-log: group %u's %u NSIDs run past "
				"the log's %zu bytes\n",
				le32_to_cpu(d->grpid), nn, len);
			return -EBADMSG;
		}
		if (fmt == FMT_JSON) {
			jw_open(&w, NULL, '{');
			jw_u64(&w, "grpid", le32_to_cpu(d->grpid));
			jw_u64(&w, "nnsids", nn);
			jw_u64(&w, "chgcnt", le64_to_cpu(d->chgcnt));
			jw_str(&w, "state", ana_state_str(d->state));
			jw_open(&w, "NSIDS", '[');
			for (k = 0; k < nn; k++) {
				jw_open(&w, NULL, '{');
				jw_u64(&w, "nsid",
				       nvme_get_le32(log + off + 4 * k));
				jw_close(&w, '}');
			}
			jw_close(&w, ']');
			jw_close(&w, '}');
		} else {
			printf("grpid\t:\t%u\n", le32_to_cpu(d->grpid));
			printf("nnsids\t:\t%u\n", nn);
			printf("chgcnt\t:\t%" PRIu64 "\n",
			       le64_to_cpu(d->chgcnt));
			printf("state\t:\t%s\n", ana_state_str(d->state));
			for (k = 0; k < nn; k++)
				printf("\tnsid\t:\t%u\n",
				       nvme_get_le32(log + off + 4 * k));
			printf("\n");
		}
		off += 4 * (size_t)nn;
	}
	if (fmt == FMT_JSON) {
		jw_close(&w, ']');
		jw_close(&w, '}');
	}
	return 0;
}

/* The log's length as far as the first have bytes tell: exact once every
 * descriptor header is in, else more than have. */
static size_t ana_len(const uint8_t *log, size_t have)
{
	const struct nvme_ana_log_hdr *h = (const void *)log;
	unsigned ngrps = le16_to_cpu(h->ngrps), g;
	size_t off = sizeof(*h);

	for (g = 0; g < ngrps; g++) {
		const struct nvme_ana_group_desc *d;

		if (have < off + sizeof(*d))
			return off + sizeof(*d);
		d = (const void *)(log + off);
		off += sizeof(*d) + 4 * (size_t)le32_to_cpu(d->nnsids);
	}
	return off;
}

int nvme_cmd_ana_log(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "groups-only", no_argument, NULL, 'g' },
		{ "output-format", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum out_fmt fmt = FMT_NORMAL;
	struct nvme_id_ctrl *id = NULL;
	struct mqblk_dev *dev;
	bool rgo = false;
	uint8_t *log = NULL;
	size_t size, off, need;
	int c, ret = 1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":go:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'g':
			rgo = true;
			break;
		case 'o':
			if (nvcli_parse_fmt("ana-log", optarg, &fmt))
				return 1;
			break;
		case 'h':
			ana_log_usage(stdout);
			return 0;
		default:
			nvcli_bad_option("ana-log", c, argv);
			return 1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "mqblk ana-log: no controller: give an "
				"nvme-tcp://HOST:PORT/SUBNQN URI\n");
		return 1;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "mqblk ana-log: unexpected argument '%s'\n",
			argv[optind + 1]);
		return 1;
	}
	if (nvcli_ctrl_open("ana-log", argv[optind], &dev))
		return 1;
	id = calloc(1, sizeof(*id));
	if (!id) {
		fprintf(stderr, "mqblk ana-log: out of memory\n");
		goto out_close;
	}
	if (nvcli_identify("ana-log", dev, NVME_ID_CNS_CTRL, 0, id))
		goto out_close;
	if (!(id->cmic & NVME_CTRL_CMIC_ANA)) {
		fprintf(stderr,
			"mqblk ana-log: %s does not report ANA (CMIC bit 3 "
			"clear)\n",
			argv[optind]);
		goto out_close;
	}
	/* the most it can be, as Linux sizes it: a descriptor per group
	 * the controller may report, an NSID per namespace it may have */
	size = sizeof(struct nvme_ana_log_hdr) +
	       (size_t)le32_to_cpu(id->nanagrpid) *
		       sizeof(struct nvme_ana_group_desc);
	if (!rgo)
		size += 4 * (size_t)(le32_to_cpu(id->mnan) ?
					     le32_to_cpu(id->mnan) :
					     le32_to_cpu(id->nn));
	size = (size + 3) & ~(size_t)3;
	log = calloc(1, size);
	if (!log) {
		fprintf(stderr, "mqblk ana-log: out of memory (%zu bytes)\n",
			size);
		goto out_close;
	}
	/* in page-sized pieces through LPO, as far as the log goes (an
	 * offset past its end is an error): what has arrived says how much
	 * more there is */
	for (off = 0, need = sizeof(struct nvme_ana_log_hdr); off < need;) {
		uint32_t n = size - off < ANA_CHUNK ? (uint32_t)(size - off) :
						      ANA_CHUNK;

		if (nvcli_get_log_lsp("ana-log", dev, NVME_LOG_ANA,
				      rgo ? NVME_LOG_LSP_ANA_RGO : 0,
				      NVME_NSID_ALL, off, log + off, n))
			goto out_close;
		off += n;
		need = ana_len(log, off);
		if (need > size) {
			fprintf(stderr,
				"mqblk ana-log: the log is longer (%zu bytes) "
				"than NANAGRPID and MNAN allow (%zu)\n",
				need, size);
			goto out_close;
		}
	}
	if (!ana_walk(log, need, fmt, argv[optind]))
		ret = 0;
out_close:
	mqblk_dev_close(dev);
	free(id);
	free(log);
	return ret;
}
