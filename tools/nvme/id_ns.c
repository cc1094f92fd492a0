// SPDX-License-Identifier: MIT
/*
 * mqblk id-ns: nvme-cli's id-ns (Identify Namespace), normal, -H (bit
 * fields spelled out) and JSON.
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

static const char *hex_str(const uint8_t *b, size_t n, char *buf)
{
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(buf + 2 * i, 3, "%02x", b[i]);
	buf[2 * n] = 0;
	return buf;
}

static const struct bits nsfeat_bits[] = {
	{ 7, 5, NULL, NULL },
	{ 4, 4, "NPWG, NPWA, NPDG, NPDA, and NOWS are Supported",
	  "NPWG, NPWA, NPDG, NPDA, and NOWS are Not Supported" },
	{ 3, 3, "NGUID and EUI64 fields if non-zero, Never Reused",
	  "NGUID and EUI64 fields if non-zero, Reused" },
	{ 2, 2, "Deallocated or Unwritten Logical Block error Supported",
	  "Deallocated or Unwritten Logical Block error Not Supported" },
	{ 1, 1, "Namespace uses NAWUN, NAWUPF, and NACWU",
	  "Namespace uses AWUN, AWUPF, and ACWU" },
	{ 0, 0, "Thin Provisioning Supported",
	  "Thin Provisioning Not Supported" },
};
static const struct bits flbas_bits[] = {
	{ 7, 7, NULL, NULL },
	{ 6, 5, "Most significant 2 bits of Current LBA Format Selected",
	  NULL },
	{ 4, 4, "Metadata Transferred at End of Data LBA",
	  "Metadata Transferred in Separate Contiguous Buffer" },
	{ 3, 0, "Least significant 4 bits of Current LBA Format Selected",
	  NULL },
};
static const struct bits nmic_bits[] = {
	{ 7, 1, NULL, NULL },
	{ 0, 0, "Namespace Multipath Capable",
	  "Namespace Multipath Not Capable" },
};

/* NULBAF (byte 82, NVMe 2.0) sits in what our struct keeps reserved */
static unsigned id_ns_nulbaf(const struct nvme_id_ns *ns)
{
	return ((const uint8_t *)ns)[82];
}

static unsigned id_ns_nr_lbaf(const struct nvme_id_ns *ns)
{
	unsigned n = ns->nlbaf + id_ns_nulbaf(ns) + 1u;

	return n > 64 ? 64 : n;
}

static void id_ns_print(const struct nvme_id_ns *ns, uint32_t nsid, bool human)
{
	unsigned i, inuse = nvme_flbas_index(ns->flbas);
	char b[48];

	printf("NVME Identify Namespace %" PRIu32 ":\n", nsid);
	printf("nsze    : %#" PRIx64 "\n", le64_to_cpu(ns->nsze));
	printf("ncap    : %#" PRIx64 "\n", le64_to_cpu(ns->ncap));
	printf("nuse    : %#" PRIx64 "\n", le64_to_cpu(ns->nuse));
	printf("nsfeat  : %#x\n", ns->nsfeat);
	if (human)
		SHOW_BITS(ns->nsfeat, nsfeat_bits);
	printf("nlbaf   : %u\n", ns->nlbaf);
	printf("flbas   : %#x\n", ns->flbas);
	if (human)
		SHOW_BITS(ns->flbas, flbas_bits);
	printf("mc      : %#x\n", ns->mc);
	printf("dpc     : %#x\n", ns->dpc);
	printf("dps     : %#x\n", ns->dps);
	printf("nmic    : %#x\n", ns->nmic);
	if (human)
		SHOW_BITS(ns->nmic, nmic_bits);
	printf("rescap  : %#x\n", ns->rescap);
	printf("fpi     : %#x\n", ns->fpi);
	printf("dlfeat  : %u\n", ns->dlfeat);
	printf("nawun   : %u\n", le16_to_cpu(ns->nawun));
	printf("nawupf  : %u\n", le16_to_cpu(ns->nawupf));
	printf("nacwu   : %u\n", le16_to_cpu(ns->nacwu));
	printf("nabsn   : %u\n", le16_to_cpu(ns->nabsn));
	printf("nabo    : %u\n", le16_to_cpu(ns->nabo));
	printf("nabspf  : %u\n", le16_to_cpu(ns->nabspf));
	printf("noiob   : %u\n", le16_to_cpu(ns->noiob));
	printf("nvmcap  : %s\n", nvcli_u128_str(ns->nvmcap, b));
	if (ns->nsfeat & 0x10) {
		printf("npwg    : %u\n", le16_to_cpu(ns->npwg));
		printf("npwa    : %u\n", le16_to_cpu(ns->npwa));
		printf("npdg    : %u\n", le16_to_cpu(ns->npdg));
		printf("npda    : %u\n", le16_to_cpu(ns->npda));
		printf("nows    : %u\n", le16_to_cpu(ns->nows));
	}
	printf("mssrl   : %u\n", le16_to_cpu(ns->mssrl));
	printf("mcl     : %" PRIu32 "\n", le32_to_cpu(ns->mcl));
	printf("msrc    : %u\n", ns->msrc);
	printf("nulbaf  : %u\n", id_ns_nulbaf(ns));
	printf("anagrpid: %" PRIu32 "\n", le32_to_cpu(ns->anagrpid));
	/* nvme-cli has a tab here */
	printf("nsattr\t: %u\n", ns->nsattr);
	printf("nvmsetid: %u\n", le16_to_cpu(ns->nvmsetid));
	printf("endgid  : %u\n", le16_to_cpu(ns->endgid));
	printf("nguid   : %s\n", hex_str(ns->nguid, sizeof(ns->nguid), b));
	printf("eui64   : %s\n", hex_str(ns->eui64, sizeof(ns->eui64), b));
	for (i = 0; i < id_ns_nr_lbaf(ns); i++) {
		const struct nvme_lbaf *f = &ns->lbaf[i];
		static const char *const rp[] = { "Best", "Better", "Good",
						  "Degraded" };

		if (human)
			printf("LBA Format %2u : Metadata Size: %-3u bytes - "
			       "Data Size: %-2u bytes - Relative Performance: "
			       "%#x %s %s\n",
			       i, le16_to_cpu(f->ms),
			       f->ds < 32 ? 1u << f->ds : 0, f->rp & 3,
			       rp[f->rp & 3], i == inuse ? "(in use)" : "");
		else
			printf("lbaf %2u : ms:%-3u lbads:%-2u rp:%#x %s\n", i,
			       le16_to_cpu(f->ms), f->ds, f->rp & 3,
			       i == inuse ? "(in use)" : "");
	}
}

static void id_ns_json(const struct nvme_id_ns *ns)
{
	struct jw w = { 0 };
	char b[48];
	unsigned i;

	jw_open(&w, NULL, '{');
	jw_u64(&w, "nsze", le64_to_cpu(ns->nsze));
	jw_u64(&w, "ncap", le64_to_cpu(ns->ncap));
	jw_u64(&w, "nuse", le64_to_cpu(ns->nuse));
	jw_u64(&w, "nsfeat", ns->nsfeat);
	jw_u64(&w, "nlbaf", ns->nlbaf);
	jw_u64(&w, "flbas", ns->flbas);
	jw_u64(&w, "mc", ns->mc);
	jw_u64(&w, "dpc", ns->dpc);
	jw_u64(&w, "dps", ns->dps);
	jw_u64(&w, "nmic", ns->nmic);
	jw_u64(&w, "rescap", ns->rescap);
	jw_u64(&w, "fpi", ns->fpi);
	jw_u64(&w, "dlfeat", ns->dlfeat);
	jw_u64(&w, "nawun", le16_to_cpu(ns->nawun));
	jw_u64(&w, "nawupf", le16_to_cpu(ns->nawupf));
	jw_u64(&w, "nacwu", le16_to_cpu(ns->nacwu));
	jw_u64(&w, "nabsn", le16_to_cpu(ns->nabsn));
	jw_u64(&w, "nabo", le16_to_cpu(ns->nabo));
	jw_u64(&w, "nabspf", le16_to_cpu(ns->nabspf));
	jw_u64(&w, "noiob", le16_to_cpu(ns->noiob));
	jw_u128(&w, "nvmcap", ns->nvmcap);
	jw_u64(&w, "nsattr", ns->nsattr);
	jw_u64(&w, "nvmsetid", le16_to_cpu(ns->nvmsetid));
	if (ns->nsfeat & 0x10) {
		jw_u64(&w, "npwg", le16_to_cpu(ns->npwg));
		jw_u64(&w, "npwa", le16_to_cpu(ns->npwa));
		jw_u64(&w, "npdg", le16_to_cpu(ns->npdg));
		jw_u64(&w, "npda", le16_to_cpu(ns->npda));
		jw_u64(&w, "nows", le16_to_cpu(ns->nows));
	}
	jw_u64(&w, "mssrl", le16_to_cpu(ns->mssrl));
	jw_u64(&w, "mcl", le32_to_cpu(ns->mcl));
	jw_u64(&w, "msrc", ns->msrc);
	jw_u64(&w, "nulbaf", id_ns_nulbaf(ns));
	jw_u64(&w, "anagrpid", le32_to_cpu(ns->anagrpid));
	jw_u64(&w, "endgid", le16_to_cpu(ns->endgid));
	jw_str(&w, "eui64", hex_str(ns->eui64, sizeof(ns->eui64), b));
	jw_str(&w, "nguid", hex_str(ns->nguid, sizeof(ns->nguid), b));
	/* nvme-cli lists nlbaf + 1 formats here (no nulbaf) */
	jw_open(&w, "lbafs", '[');
	for (i = 0; i <= ns->nlbaf && i < 64; i++) {
		jw_open(&w, NULL, '{');
		jw_u64(&w, "ms", le16_to_cpu(ns->lbaf[i].ms));
		jw_u64(&w, "ds", ns->lbaf[i].ds);
		jw_u64(&w, "rp", ns->lbaf[i].rp);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_close(&w, '}');
}

static void id_ns_usage(FILE *f)
{
	fprintf(f, "usage: mqblk id-ns nvme-tcp://HOST:PORT/SUBNQN[?...] "
		   "[options]\n"
		   "Send Identify Namespace (CNS 00h) and print the data, "
		   "as nvme id-ns.\n"
		   "The namespace: -n, else the URI's nsid=, else the first "
		   "active one.\n"
		   "\n"
		   "  -n, --namespace-id=NSID   the namespace\n"
		   "  -o, --output-format=FMT   normal|json\n"
		   "  -H, --human-readable      spell out bit fields\n"
		   "  -h, --help                this text\n");
}

int nvme_cmd_id_ns(int argc, char **argv)
{
	struct id_args a;
	struct mqblk_dev *dev;
	struct nvme_id_ns *ns;
	uint32_t nsid;
	int ret;

	ret = nvcli_id_args_parse("id-ns", argc, argv, &a, id_ns_usage);
	if (ret)
		return ret < 0 ? 0 : 1;
	ns = calloc(1, sizeof(*ns));
	if (!ns) {
		fprintf(stderr, "mqblk id-ns: out of memory\n");
		return 1;
	}
	if (nvcli_ctrl_open("id-ns", a.uri, &dev)) {
		free(ns);
		return 1;
	}
	ret = -EINVAL;
	nsid = nvcli_pick_nsid("id-ns", dev, a.uri, a.nsid);
	if (nsid)
		ret = nvcli_identify("id-ns", dev, NVME_ID_CNS_NS, nsid, ns);
	mqblk_dev_close(dev);
	if (!ret) {
		if (a.fmt == FMT_JSON)
			id_ns_json(ns);
		else
			id_ns_print(ns, nsid, a.human);
	}
	free(ns);
	return ret ? 1 : 0;
}
