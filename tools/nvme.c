// SPDX-License-Identifier: MIT
/*
 * mqblk discover / id-ctrl / id-ns / list / ana-log: nvme-cli's commands of the same
 * names, with its option names and output layout (normal and JSON, as
 * nvme-cli 2.x prints them), against NVMe/TCP controllers reached through
 * mqblk's own host driver instead of the kernel's.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mqblk/mqblk.h"
#include "nvme/nvme.h"
#include "nvme.h"

#define DISC_DEFAULT_PORT "8009" /* NVMe/TCP's discovery port */
#define DISC_CHUNK (64u * 1024) /* Get Log Page transfer per command */
#define DISC_MAX_RETRIES 10 /* genctr changed under us: read again */
#define DISC_MAX_RECORDS 4096
#define URI_MAX 1024

enum out_fmt { FMT_NORMAL, FMT_JSON };

/* ---- JSON, laid out as json-c's JSON_C_TO_STRING_PRETTY (nvme-cli's) ---- */

#define JSON_MAX_DEPTH 8

struct jw {
	int depth;
	bool had_member[JSON_MAX_DEPTH];
};

static void jw_indent(int level)
{
	printf("%*s", level * 2, "");
}

static void jw_str_body(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putchar('"');
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\r':
			fputs("\\r", stdout);
			break;
		case '\t':
			fputs("\\t", stdout);
			break;
		case '\b':
			fputs("\\b", stdout);
			break;
		case '\f':
			fputs("\\f", stdout);
			break;
		default:
			if (*p < 0x20)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
	}
	putchar('"');
}

/* Start a member (key may be NULL inside an array) */
static void jw_member(struct jw *w, const char *key)
{
	if (w->depth > 0) {
		if (w->had_member[w->depth])
			fputs(",\n", stdout);
		w->had_member[w->depth] = true;
		jw_indent(w->depth);
	}
	if (key) {
		jw_str_body(key);
		putchar(':');
	}
}

static void jw_open(struct jw *w, const char *key, char brace)
{
	jw_member(w, key);
	putchar(brace);
	putchar('\n');
	if (w->depth + 1 < JSON_MAX_DEPTH)
		w->depth++;
	w->had_member[w->depth] = false;
}

static void jw_close(struct jw *w, char brace)
{
	if (w->had_member[w->depth])
		putchar('\n');
	w->depth--;
	jw_indent(w->depth);
	putchar(brace);
	if (!w->depth)
		putchar('\n');
}

static void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_member(w, key);
	printf("%" PRIu64, v);
}

static void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_member(w, key);
	jw_str_body(s);
}

/* ---- Small formatting helpers --------------------------------------------- */

/* A fixed-width ASCII field as a C string: up to the first NUL, padding
 * kept (nvme-cli prints sn/mn/fr with their trailing spaces). */
static void field_str(char *out, size_t outlen, const char *field, size_t width)
{
	size_t n = strnlen(field, width);

	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, field, n);
	out[n] = 0;
}

static void rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == ' ')
		s[--n] = 0;
}

/* A 128-bit little-endian counter in decimal */
static const char *u128_str(const uint8_t le[16], char buf[48])
{
	unsigned __int128 v = 0;
	char *p = buf + 47;
	int i;

	for (i = 15; i >= 0; i--)
		v = v << 8 | le[i];
	*p = 0;
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	return p;
}

static const char *uuid_str(const uint8_t u[16], char buf[37])
{
	snprintf(buf, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
	return buf;
}

static const char *hex_str(const uint8_t *b, size_t n, char *buf)
{
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(buf + 2 * i, 3, "%02x", b[i]);
	buf[2 * n] = 0;
	return buf;
}

/* The names of the NVMe statuses these commands can meet */
static const char *status_name(uint16_t status)
{
	switch (status & 0x7ff) {
	case NVME_SC_INVALID_OPCODE:
		return "Invalid Command Opcode";
	case NVME_SC_INVALID_FIELD:
		return "Invalid Field in Command";
	case NVME_SC_INVALID_NS:
		return "Invalid Namespace or Format";
	case NVME_SC_INTERNAL:
		return "Internal Error";
	case NVME_SC_ANA_PERSISTENT_LOSS:
		return "ANA Persistent Loss";
	case NVME_SC_ANA_INACCESSIBLE:
		return "ANA Inaccessible";
	case NVME_SC_ANA_TRANSITION:
		return "ANA Transition";
	default:
		return "error";
	}
}

static int parse_fmt(const char *cmd, const char *s, enum out_fmt *fmt)
{
	if (!strcmp(s, "normal")) {
		*fmt = FMT_NORMAL;
		return 0;
	}
	if (!strcmp(s, "json")) {
		*fmt = FMT_JSON;
		return 0;
	}
	fprintf(stderr,
		"mqblk %s: output format '%s' not supported (normal|json)\n",
		cmd, s);
	return -EINVAL;
}

/* getopt_long's '?' and ':' as one line naming the option */
static void bad_option(const char *cmd, int c, char **argv)
{
	const char *opt = argv[optind - 1];

	if (c == ':')
		fprintf(stderr, "mqblk %s: option '%s' needs a value\n", cmd,
			opt);
	else if (optopt)
		fprintf(stderr, "mqblk %s: unknown option '-%c'\n", cmd,
			optopt);
	else
		fprintf(stderr, "mqblk %s: unknown option '%s'\n", cmd, opt);
}

/* ---- The controller: open, Identify, Get Log Page ------------------------ */

static int ctrl_open(const char *cmd, const char *uri, struct mqblk_dev **dev)
{
	struct mqblk_dev_opts opts;
	char err[512];
	int ret;

	if (strncmp(uri, "nvme-tcp://", 11) &&
	    strncmp(uri, "nvme-rdma://", 12)) {
		fprintf(stderr,
			"mqblk %s: '%s' is not an nvme-tcp:// or nvme-rdma:// "
			"URI (only NVMe-oF controllers have these commands)\n",
			cmd, uri);
		return -EINVAL;
	}
	mqblk_dev_opts_init(&opts);
	opts.nr_queues = 1; /* the admin queue does all the work */
	opts.nr_hw_queues = 1;
	opts.flags = 0; /* read-only */
	err[0] = 0;
	ret = mqblk_dev_open(uri, &opts, dev, err, sizeof(err));
	if (ret)
		fprintf(stderr, "mqblk %s: %s\n", cmd,
			err[0] ? err : strerror(-ret));
	return ret;
}

static int admin(const char *cmd, const char *what, struct mqblk_dev *dev,
		 union nvme_command *c, void *buf, uint32_t len)
{
	uint16_t status = 0;
	int ret;

	ret = mqblk_dev_nvme_admin(dev, c, buf, len, false, NULL, &status);
	if (ret) {
		fprintf(stderr, "mqblk %s: %s: %s\n", cmd, what,
			strerror(-ret));
		return ret;
	}
	if (status) {
		fprintf(stderr, "mqblk %s: %s: NVMe status %s (0x%x)\n", cmd,
			what, status_name(status), status);
		return -EIO;
	}
	return 0;
}

static int identify(const char *cmd, struct mqblk_dev *dev, uint8_t cns,
		    uint32_t nsid, void *buf)
{
	union nvme_command c;
	char what[64];

	memset(&c, 0, sizeof(c));
	c.identify.opcode = nvme_admin_identify;
	c.identify.nsid = cpu_to_le32(nsid);
	c.identify.cns = cns;
	if (cns == NVME_ID_CNS_NS)
		snprintf(what, sizeof(what), "Identify Namespace %" PRIu32,
			 nsid);
	else
		snprintf(what, sizeof(what), "Identify (CNS %02xh)", cns);
	return admin(cmd, what, dev, &c, buf, NVME_IDENTIFY_SIZE);
}

static int get_log_lsp(const char *cmd, struct mqblk_dev *dev, uint8_t lid,
		       uint8_t lsp, uint32_t nsid, uint64_t off, void *buf,
		       uint32_t len)
{
	union nvme_command c;
	uint32_t numd = len / 4 - 1;
	char what[64];

	memset(&c, 0, sizeof(c));
	c.get_log_page.opcode = nvme_admin_get_log_page;
	c.get_log_page.nsid = cpu_to_le32(nsid);
	c.get_log_page.lid = lid;
	c.get_log_page.lsp = lsp;
	c.get_log_page.numdl = cpu_to_le16((uint16_t)numd);
	c.get_log_page.numdu = cpu_to_le16((uint16_t)(numd >> 16));
	c.get_log_page.lpo = cpu_to_le64(off);
	if (lid == NVME_LOG_DISC)
		snprintf(what, sizeof(what), "Get Log Page (discovery)");
	else
		snprintf(what, sizeof(what), "Get Log Page (LID %02xh)", lid);
	return admin(cmd, what, dev, &c, buf, len);
}

static int get_log(const char *cmd, struct mqblk_dev *dev, uint8_t lid,
		   uint64_t off, void *buf, uint32_t len)
{
	return get_log_lsp(cmd, dev, lid, 0, 0, off, buf, len);
}

/* The nsid= key of a URI's query, 0 when it has none */
static uint32_t uri_nsid(const char *uri)
{
	const char *q = strchr(uri, '?'), *p;

	for (p = q; p && *p; p++) {
		if ((*p == '?' || *p == '&' || *p == ',') &&
		    !strncmp(p + 1, "nsid=", 5))
			return (uint32_t)strtoul(p + 6, NULL, 0);
	}
	return 0;
}

/* The namespace a command works on: -n, else the URI's nsid=, else the
 * first active one (what the driver opened). 0 on failure (reported). */
static uint32_t pick_nsid(const char *cmd, struct mqblk_dev *dev,
			  const char *uri, uint32_t want)
{
	uint8_t *list;
	uint32_t nsid = want ? want : uri_nsid(uri);

	if (nsid)
		return nsid;
	list = calloc(1, NVME_IDENTIFY_SIZE);
	if (!list) {
		fprintf(stderr, "mqblk %s: out of memory\n", cmd);
		return 0;
	}
	if (!identify(cmd, dev, NVME_ID_CNS_NS_ACTIVE_LIST, 0, list)) {
		nsid = nvme_get_le32(list);
		if (!nsid)
			fprintf(stderr,
				"mqblk %s: the controller has no "
				"active namespace\n",
				cmd);
	}
	free(list);
	return nsid;
}

/* ---- discover ------------------------------------------------------------ */

/* libnvme's names for the discovery log's fields, index = value */
static const char *const trtype_names[] = {
	[NVMF_TRTYPE_RDMA] = "rdma",
	[NVMF_TRTYPE_FC] = "fc",
	[NVMF_TRTYPE_TCP] = "tcp",
	[NVMF_TRTYPE_LOOP] = "loop",
};
static const char *const adrfam_names[] = {
	[0] = "pci",
	[NVMF_ADDR_FAMILY_IP4] = "ipv4",
	[NVMF_ADDR_FAMILY_IP6] = "ipv6",
	[3] = "infiniband",
	[4] = "fibre-channel",
};
/* nvme-cli's names for an RDMA entry's TSAS */
static const char *const rdma_qptype_names[] = {
	[NVMF_RDMA_QPTYPE_CONNECTED] = "connected",
	[NVMF_RDMA_QPTYPE_DATAGRAM] = "datagram",
};
static const char *const rdma_prtype_names[] = {
	[NVMF_RDMA_PRTYPE_NOT_SPECIFIED] = "not specified",
	[NVMF_RDMA_PRTYPE_IB] = "infiniband",
	[NVMF_RDMA_PRTYPE_ROCE] = "roce",
	[NVMF_RDMA_PRTYPE_ROCEV2] = "roce-v2",
	[NVMF_RDMA_PRTYPE_IWARP] = "iwarp",
};
static const char *const rdma_cms_names[] = {
	[NVMF_RDMA_CMS_RDMA_CM] = "rdma-cm",
};
static const char *const subtype_names[] = {
	[NVME_NQN_DISC] = "discovery subsystem referral",
	[NVME_NQN_NVME] = "nvme subsystem",
	[NVME_NQN_CURR] = "current discovery subsystem",
};
static const char *const treq_names[] = {
	[NVMF_TREQ_NOT_SPECIFIED] = "not specified",
	[NVMF_TREQ_REQUIRED] = "required",
	[NVMF_TREQ_NOT_REQUIRED] = "not required",
	[NVMF_TREQ_DISABLE_SQFLOW] =
		"not specified, sq flow control disable supported",
	[NVMF_TREQ_REQUIRED | NVMF_TREQ_DISABLE_SQFLOW] =
		"required, sq flow control disable supported",
	[NVMF_TREQ_NOT_REQUIRED | NVMF_TREQ_DISABLE_SQFLOW] =
		"not required, sq flow control disable supported",
};
/* eflags: bit 0 DUPRETINFO, bit 1 EPCSD, bit 2 NCC */
static const char *const eflags_names[] = {
	[0] = "none",
	[1] = "duplicate discovery information",
	[2] = "explicit discovery connections",
	[3] = "explicit discovery connections, duplicate discovery "
	      "information",
	[4] = "no cdc connectivity",
	[5] = "duplicate discovery information, no cdc connectivity",
	[6] = "explicit discovery connections, no cdc connectivity",
	[7] = "explicit discovery connections, duplicate discovery "
	      "information, no cdc connectivity",
};
static const char *const sectype_names[] = {
	[NVMF_TCP_SECTYPE_NONE] = "none",
	[1] = "tls",
	[2] = "tls13",
};

#define NAME_OF(tbl, v) name_of(tbl, sizeof(tbl) / sizeof(tbl[0]), v)

static const char *name_of(const char *const *tbl, size_t n, unsigned v)
{
	return v < n && tbl[v] ? tbl[v] : "unrecognized";
}

/* An entry's strings, space-stripped as nvme-cli shows them */
struct disc_strs {
	char trsvcid[33];
	char subnqn[NVME_NQN_SIZE + 1];
	char traddr[257];
};

static void disc_entry_strs(const struct nvmf_disc_log_entry *e,
			    struct disc_strs *s)
{
	field_str(s->trsvcid, sizeof(s->trsvcid), e->trsvcid,
		  sizeof(e->trsvcid));
	field_str(s->subnqn, sizeof(s->subnqn), e->subnqn, sizeof(e->subnqn));
	field_str(s->traddr, sizeof(s->traddr), e->traddr, sizeof(e->traddr));
	rstrip(s->trsvcid);
	rstrip(s->subnqn);
	rstrip(s->traddr);
}

static void disc_print(const struct nvmf_disc_log_header *h,
		       const struct nvmf_disc_log_entry *e, uint64_t numrec)
{
	struct disc_strs s;
	uint64_t i;

	printf("\nDiscovery Log Number of Records %" PRIu64
	       ", Generation counter %" PRIu64 "\n",
	       numrec, le64_to_cpu(h->genctr));
	for (i = 0; i < numrec; i++, e++) {
		disc_entry_strs(e, &s);
		printf("=====Discovery Log Entry %" PRIu64 "======\n", i);
		printf("trtype:  %s\n", NAME_OF(trtype_names, e->trtype));
		printf("adrfam:  %s\n",
		       s.traddr[0] ? NAME_OF(adrfam_names, e->adrfam) : "");
		printf("subtype: %s\n", NAME_OF(subtype_names, e->subtype));
		printf("treq:    %s\n", NAME_OF(treq_names, e->treq));
		printf("portid:  %u\n", le16_to_cpu(e->portid));
		printf("trsvcid: %s\n", s.trsvcid);
		printf("subnqn:  %s\n", s.subnqn);
		printf("traddr:  %s\n", s.traddr);
		printf("eflags:  %s\n",
		       NAME_OF(eflags_names, le16_to_cpu(e->eflags)));
		if (e->trtype == NVMF_TRTYPE_TCP)
			printf("sectype: %s\n",
			       NAME_OF(sectype_names, e->tsas.tcp.sectype));
		if (e->trtype == NVMF_TRTYPE_RDMA) {
			printf("rdma_prtype: %s\n",
			       NAME_OF(rdma_prtype_names, e->tsas.rdma.prtype));
			printf("rdma_qptype: %s\n",
			       NAME_OF(rdma_qptype_names, e->tsas.rdma.qptype));
			printf("rdma_cms:    %s\n",
			       NAME_OF(rdma_cms_names, e->tsas.rdma.cms));
			printf("rdma_pkey: 0x%04x\n",
			       le16_to_cpu(e->tsas.rdma.pkey));
		}
	}
}

static void disc_json(const struct nvmf_disc_log_header *h,
		      const struct nvmf_disc_log_entry *e, uint64_t numrec)
{
	struct jw w = { 0 };
	struct disc_strs s;
	uint64_t i;

	jw_open(&w, NULL, '{');
	jw_u64(&w, "genctr", le64_to_cpu(h->genctr));
	jw_open(&w, "records", '[');
	for (i = 0; i < numrec; i++, e++) {
		disc_entry_strs(e, &s);
		jw_open(&w, NULL, '{');
		jw_str(&w, "trtype", NAME_OF(trtype_names, e->trtype));
		jw_str(&w, "adrfam", NAME_OF(adrfam_names, e->adrfam));
		jw_str(&w, "subtype", NAME_OF(subtype_names, e->subtype));
		jw_str(&w, "treq", NAME_OF(treq_names, e->treq));
		jw_u64(&w, "portid", le16_to_cpu(e->portid));
		jw_str(&w, "trsvcid", s.trsvcid);
		jw_str(&w, "subnqn", s.subnqn);
		jw_str(&w, "traddr", s.traddr);
		jw_str(&w, "eflags",
		       NAME_OF(eflags_names, le16_to_cpu(e->eflags)));
		if (e->trtype == NVMF_TRTYPE_TCP)
			jw_str(&w, "sectype",
			       NAME_OF(sectype_names, e->tsas.tcp.sectype));
		if (e->trtype == NVMF_TRTYPE_RDMA) {
			jw_str(&w, "rdma_prtype",
			       NAME_OF(rdma_prtype_names, e->tsas.rdma.prtype));
			jw_str(&w, "rdma_qptype",
			       NAME_OF(rdma_qptype_names, e->tsas.rdma.qptype));
			jw_str(&w, "rdma_cms",
			       NAME_OF(rdma_cms_names, e->tsas.rdma.cms));
			jw_u64(&w, "rdma_pkey", le16_to_cpu(e->tsas.rdma.pkey));
		}
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_close(&w, '}');
}

/*
 * The whole discovery log: the header for numrec, then header and entries
 * in DISC_CHUNK pieces, then the header again; a generation counter that
 * moved meanwhile means the log changed under us, so read it again (as
 * libnvme does). *logp is the header followed by *numrecp entries.
 */
static int disc_read(struct mqblk_dev *dev, uint8_t **logp, uint64_t *numrecp)
{
	struct nvmf_disc_log_header *hb, *lh;
	uint8_t *log = NULL;
	uint64_t numrec, genctr, len, off;
	int tries, ret;

	/* hb[0]: the header before the log, hb[1]: after */
	hb = calloc(1, 2 * sizeof(*hb));
	if (!hb)
		return -ENOMEM;
	for (tries = 0; tries < DISC_MAX_RETRIES; tries++) {
		ret = get_log("discover", dev, NVME_LOG_DISC, 0, &hb[0],
			      sizeof(hb[0]));
		if (ret)
			goto out;
		numrec = le64_to_cpu(hb[0].numrec);
		genctr = le64_to_cpu(hb[0].genctr);
		if (numrec > DISC_MAX_RECORDS) {
			fprintf(stderr,
				"mqblk discover: the log claims %" PRIu64
				" records (more than %u)\n",
				numrec, DISC_MAX_RECORDS);
			ret = -EBADMSG;
			goto out;
		}
		len = sizeof(*hb) + numrec * NVME_DISC_ENTRY_SIZE;
		free(log);
		log = calloc(1, len);
		if (!log) {
			ret = -ENOMEM;
			goto out;
		}
		for (off = 0; off < len; off += DISC_CHUNK) {
			uint64_t n = len - off < DISC_CHUNK ? len - off :
							      DISC_CHUNK;

			ret = get_log("discover", dev, NVME_LOG_DISC, off,
				      log + off, (uint32_t)n);
			if (ret)
				goto out;
		}
		ret = get_log("discover", dev, NVME_LOG_DISC, 0, &hb[1],
			      sizeof(hb[1]));
		if (ret)
			goto out;
		lh = (struct nvmf_disc_log_header *)log;
		if (le64_to_cpu(hb[1].genctr) == genctr &&
		    le64_to_cpu(lh->genctr) == genctr &&
		    le64_to_cpu(lh->numrec) == numrec) {
			*logp = log;
			*numrecp = numrec;
			free(hb);
			return 0;
		}
	}
	fprintf(stderr,
		"mqblk discover: the discovery log kept changing (%d reads)\n",
		DISC_MAX_RETRIES);
	ret = -EAGAIN;
out:
	free(log);
	free(hb);
	return ret;
}

static void discover_usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk discover -t tcp|rdma -a ADDR [-s PORT] "
		"[options]\n"
		"Send Get Log Page (discovery, 70h) to a discovery "
		"controller and print\nthe log, as nvme discover.\n"
		"\n"
		"  -t, --transport=TR        transport type: tcp (default) "
		"or rdma\n"
		"  -a, --traddr=ADDR         transport address\n"
		"  -s, --trsvcid=PORT        transport service id (default " DISC_DEFAULT_PORT
		")\n"
		"  -n, --nqn=NQN             discovery subsystem NQN "
		"(default\n"
		"                            " NVME_DISC_SUBSYS_NAME ")\n"
		"  -q, --hostnqn=NQN         host NQN (default "
		"/etc/nvme/hostnqn)\n"
		"  -I, --hostid=UUID         host identifier\n"
		"  -S, --dhchap-secret=KEY   DH-HMAC-CHAP secret (DHHC-1:..., "
		"as nvme\n"
		"                            gen-dhchap-key prints it)\n"
		"  -C, --dhchap-ctrl-secret=KEY  the controller's, for "
		"bidirectional\n"
		"                            authentication\n"
		"      --tls                 TLS 1.3 before ICReq (tcp; needs "
		"--tls-key)\n"
		"      --tls-key=KEY         the TLS PSK (NVMeTLSkey-1:..., as "
		"nvme\n"
		"                            gen-tls-key prints it, or @FILE); "
		"implies --tls\n"
		"  -g, --hdr-digest          enable the header digest (tcp)\n"
		"  -G, --data-digest         enable the data digest (tcp)\n"
		"  -o, --output-format=FMT   normal|json\n"
		"  -h, --help                this text\n");
}

/* A value that goes into the URI's query must not end it early */
static int uri_safe(const char *what, const char *v)
{
	if (strpbrk(v, "&,?/ ")) {
		fprintf(stderr, "mqblk discover: bad %s '%s'\n", what, v);
		return -EINVAL;
	}
	return 0;
}

/* A TCP port given as digits, 1..65535: said as the option, here, and not
 * later as a part of the URI it goes into. */
static bool port_number(const char *s)
{
	unsigned long v = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 5)
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	return i && v >= 1 && v <= 65535;
}

int nvme_cmd_discover(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "transport", required_argument, NULL, 't' },
		{ "traddr", required_argument, NULL, 'a' },
		{ "trsvcid", required_argument, NULL, 's' },
		{ "nqn", required_argument, NULL, 'n' },
		{ "hostnqn", required_argument, NULL, 'q' },
		{ "hostid", required_argument, NULL, 'I' },
		{ "dhchap-secret", required_argument, NULL, 'S' },
		{ "dhchap-ctrl-secret", required_argument, NULL, 'C' },
		{ "tls", no_argument, NULL, 'T' + 256 },
		{ "tls-key", required_argument, NULL, 'K' + 256 },
		{ "hdr-digest", no_argument, NULL, 'g' },
		{ "data-digest", no_argument, NULL, 'G' },
		{ "output-format", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *transport = "tcp", *traddr = NULL;
	const char *trsvcid = DISC_DEFAULT_PORT, *nqn = NVME_DISC_SUBSYS_NAME;
	const char *hostnqn = NULL, *hostid = NULL;
	const char *secret = NULL, *ctrl_secret = NULL, *tls_key = NULL;
	bool hdgst = false, ddgst = false, tls = false;
	enum out_fmt fmt = FMT_NORMAL;
	struct mqblk_dev *dev;
	char uri[URI_MAX];
	uint8_t *log;
	uint64_t numrec;
	size_t n;
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:a:s:n:q:I:S:C:gGo:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 't':
			transport = optarg;
			break;
		case 'a':
			traddr = optarg;
			break;
		case 's':
			trsvcid = optarg;
			break;
		case 'n':
			nqn = optarg;
			break;
		case 'q':
			hostnqn = optarg;
			break;
		case 'I':
			hostid = optarg;
			break;
		case 'S':
			secret = optarg;
			break;
		case 'C':
			ctrl_secret = optarg;
			break;
		case 'T' + 256:
			tls = true;
			break;
		case 'K' + 256:
			tls_key = optarg;
			tls = true;
			break;
		case 'g':
			hdgst = true;
			break;
		case 'G':
			ddgst = true;
			break;
		case 'o':
			if (parse_fmt("discover", optarg, &fmt))
				return 1;
			break;
		case 'h':
			discover_usage(stdout);
			return 0;
		default:
			bad_option("discover", c, argv);
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"mqblk discover: unexpected argument '%s' (a "
			"discovery controller is named by -a and -s)\n",
			argv[optind]);
		return 1;
	}
	if (strcmp(transport, "tcp") && strcmp(transport, "rdma")) {
		fprintf(stderr,
			"mqblk discover: transport '%s' not supported (tcp or "
			"rdma)\n",
			transport);
		return 1;
	}
	if (tls && strcmp(transport, "tcp")) {
		fprintf(stderr, "mqblk discover: TLS is NVMe/TCP's: no --tls "
				"with -t rdma\n");
		return 1;
	}
	if (tls_key && strpbrk(tls_key, "&,? ")) {
		fprintf(stderr, "mqblk discover: the TLS key holds '&', ',', "
				"'?' or a space: not an NVMeTLSkey-1 key\n");
		return 1;
	}
	if ((hdgst || ddgst) && strcmp(transport, "tcp")) {
		fprintf(stderr, "mqblk discover: digests are NVMe/TCP's: no "
				"-g/-G with -t rdma\n");
		return 1;
	}
	if (!traddr || !traddr[0]) {
		fprintf(stderr, "mqblk discover: no address: give --traddr/-a "
				"ADDR\n");
		return 1;
	}
	if (!port_number(trsvcid)) {
		fprintf(stderr,
			"mqblk discover: --trsvcid/-s '%s': not a port number "
			"(1..65535)\n",
			trsvcid);
		return 1;
	}
	if (uri_safe("traddr", traddr) || uri_safe("nqn", nqn) ||
	    (hostnqn && uri_safe("hostnqn", hostnqn)) ||
	    (hostid && uri_safe("hostid", hostid)))
		return 1;
	/* base64 has '/': a secret only must not end the key early (the
	 * driver checks the rest, without echoing it) */
	if ((secret && strpbrk(secret, "&,? ")) ||
	    (ctrl_secret && strpbrk(ctrl_secret, "&,? "))) {
		fprintf(stderr, "mqblk discover: a DH-HMAC-CHAP secret holds "
				"'&', ',', '?' or a space: not a DHHC-1 "
				"secret\n");
		return 1;
	}

	/* an IPv6 address goes in brackets; KATO 0: one-shot discovery */
	n = (size_t)snprintf(uri, sizeof(uri), "nvme-%s://%s%s%s:%s/%s?kato=0",
			     transport, strchr(traddr, ':') ? "[" : "", traddr,
			     strchr(traddr, ':') ? "]" : "", trsvcid, nqn);
	if (hostnqn && n < sizeof(uri))
		n += (size_t)snprintf(uri + n, sizeof(uri) - n, "&hostnqn=%s",
				      hostnqn);
	if (hostid && n < sizeof(uri))
		n += (size_t)snprintf(uri + n, sizeof(uri) - n, "&hostid=%s",
				      hostid);
	if (secret && n < sizeof(uri))
		n += (size_t)snprintf(uri + n, sizeof(uri) - n,
				      "&dhchap_secret=%s", secret);
	if (ctrl_secret && n < sizeof(uri))
		n += (size_t)snprintf(uri + n, sizeof(uri) - n,
				      "&dhchap_ctrl_secret=%s", ctrl_secret);
	if (tls && n < sizeof(uri))
		n += (size_t)snprintf(uri + n, sizeof(uri) - n, "&tls=1");
	if (tls_key && n < sizeof(uri))
		n += (size_t)snprintf(uri + n, sizeof(uri) - n, "&tls_key=%s",
				      tls_key);
	if (hdgst && n < sizeof(uri))
		n += (size_t)snprintf(uri + n, sizeof(uri) - n,
				      "&hdr_digest=1");
	if (ddgst && n < sizeof(uri))
		n += (size_t)snprintf(uri + n, sizeof(uri) - n,
				      "&data_digest=1");
	if (n >= sizeof(uri)) {
		fprintf(stderr, "mqblk discover: address too long\n");
		return 1;
	}
	if (strcmp(nqn, NVME_DISC_SUBSYS_NAME) && n + 12 < sizeof(uri))
		strcat(uri, "&discovery=1");

	if (ctrl_open("discover", uri, &dev))
		return 1;
	ret = disc_read(dev, &log, &numrec);
	mqblk_dev_close(dev);
	if (ret) {
		if (ret == -ENOMEM)
			fprintf(stderr, "mqblk discover: out of memory\n");
		return 1;
	}
	if (fmt == FMT_JSON)
		disc_json((const struct nvmf_disc_log_header *)log,
			  (const struct nvmf_disc_log_entry *)(log + 1024),
			  numrec);
	else
		disc_print((const struct nvmf_disc_log_header *)log,
			   (const struct nvmf_disc_log_entry *)(log + 1024),
			   numrec);
	free(log);
	return 0;
}

/* ---- -H: bit fields spelled out, in nvme-cli's words ---------------------- */

/* One field [hi:lo] of a register; a NULL meaning is a reserved field,
 * shown only when not zero */
struct bits {
	uint8_t hi, lo;
	const char *set; /* when the field is not zero */
	const char *clear; /* when it is (NULL: same as set) */
	const char *const *vals; /* else: a name per value (4) */
	bool size; /* append " (2^value)" */
};

static void show_bits(uint32_t v, const struct bits *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++, b++) {
		uint32_t mask = b->hi >= 31 ?
					~0u >> b->lo :
					((1u << (b->hi + 1)) - 1) >> b->lo;
		uint32_t f = v >> b->lo & mask;
		const char *text = f || !b->clear ? b->set : b->clear;
		char pos[16];

		if (b->vals)
			text = f < 4 ? b->vals[f] : "Reserved";
		else if (!b->set && !f)
			continue;
		snprintf(pos, sizeof(pos), "[%u:%u]", b->hi, b->lo);
		printf("%7s : %#x\t%s", pos, f, text ? text : "Reserved");
		if (b->size)
			printf(" (%u)", f < 32 ? 1u << f : 0);
		putchar('\n');
	}
	printf("\n");
}

#define SHOW_BITS(v, tbl) show_bits(v, tbl, sizeof(tbl) / sizeof(tbl[0]))

static const struct bits cmic_bits[] = {
	{ 7, 4, NULL, NULL },
	{ 3, 3, "ANA supported", "ANA not supported" },
	{ 2, 2, "SR-IOV", "PCI" },
	{ 1, 1, "Multi Controller", "Single Controller" },
	{ 0, 0, "Multi Port", "Single Port" },
};
static const struct bits oacs_bits[] = {
	{ 15, 11, NULL, NULL },
	{ 10, 10, "Lockdown Command and Feature Supported",
	  "Lockdown Command and Feature Not Supported" },
	{ 9, 9, "Get LBA Status Capability Supported",
	  "Get LBA Status Capability Not Supported" },
	{ 8, 8, "Doorbell Buffer Config Supported",
	  "Doorbell Buffer Config Not Supported" },
	{ 7, 7, "Virtualization Management Supported",
	  "Virtualization Management Not Supported" },
	{ 6, 6, "NVMe-MI Send and Receive Supported",
	  "NVMe-MI Send and Receive Not Supported" },
	{ 5, 5, "Directives Supported", "Directives Not Supported" },
	{ 4, 4, "Device Self-test Supported",
	  "Device Self-test Not Supported" },
	{ 3, 3, "NS Management and Attachment Supported",
	  "NS Management and Attachment Not Supported" },
	{ 2, 2, "FW Commit and Download Supported",
	  "FW Commit and Download Not Supported" },
	{ 1, 1, "Format NVM Supported", "Format NVM Not Supported" },
	{ 0, 0, "Security Send and Receive Supported",
	  "Security Send and Receive Not Supported" },
};
static const struct bits lpa_bits[] = {
	{ 7, 5, NULL, NULL },
	{ 4, 4, "Persistent Event log Supported",
	  "Persistent Event log Not Supported" },
	{ 3, 3, "Telemetry host/controller initiated log page Supported",
	  "Telemetry host/controller initiated log page Not Supported" },
	{ 2, 2, "Extended data for Get Log Page Supported",
	  "Extended data for Get Log Page Not Supported" },
	{ 1, 1, "Command Effects Log Page Supported",
	  "Command Effects Log Page Not Supported" },
	{ 0, 0, "SMART/Health Log Page per NS Supported",
	  "SMART/Health Log Page per NS Not Supported" },
};
static const char *const cntrltype_vals[] = {
	"Controller type not reported",
	"I/O Controller",
	"Discovery Controller",
	"Administrative Controller",
};
static const struct bits cntrltype_bits[] = {
	{ 7, 2, NULL, NULL },
	{ 1, 0, NULL, NULL, cntrltype_vals },
};
static const struct bits sqes_bits[] = {
	{ 7, 4, "Max SQ Entry Size", NULL, NULL, true },
	{ 3, 0, "Min SQ Entry Size", NULL, NULL, true },
};
static const struct bits cqes_bits[] = {
	{ 7, 4, "Max CQ Entry Size", NULL, NULL, true },
	{ 3, 0, "Min CQ Entry Size", NULL, NULL, true },
};
static const struct bits oncs_bits[] = {
	{ 15, 9, NULL, NULL },
	{ 8, 8, "Copy Supported", "Copy Not Supported" },
	{ 7, 7, "Verify Supported", "Verify Not Supported" },
	{ 6, 6, "Timestamp Supported", "Timestamp Not Supported" },
	{ 5, 5, "Reservations Supported", "Reservations Not Supported" },
	{ 4, 4, "Save and Select Supported", "Save and Select Not Supported" },
	{ 3, 3, "Write Zeroes Supported", "Write Zeroes Not Supported" },
	{ 2, 2, "Data Set Management Supported",
	  "Data Set Management Not Supported" },
	{ 1, 1, "Write Uncorrectable Supported",
	  "Write Uncorrectable Not Supported" },
	{ 0, 0, "Compare Supported", "Compare Not Supported" },
};
static const struct bits fuses_bits[] = {
	{ 15, 1, NULL, NULL },
	{ 0, 0, "Fused Compare and Write Supported",
	  "Fused Compare and Write Not Supported" },
};
static const char *const vwc_flush_vals[] = {
	"Support for the NSID field set to FFFFFFFFh is not indicated",
	"Reserved",
	"The Flush command does not support NSID set to FFFFFFFFh",
	"The Flush command supports NSID set to FFFFFFFFh",
};
static const struct bits vwc_bits[] = {
	{ 7, 3, NULL, NULL },
	{ 2, 1, NULL, NULL, vwc_flush_vals },
	{ 0, 0, "Volatile Write Cache Present",
	  "Volatile Write Cache Not Present" },
};
static const char *const sgls_vals[] = {
	"Scatter-Gather Lists Not Supported",
	"Scatter-Gather Lists Supported. No Dword alignment required.",
	"Scatter-Gather Lists Supported. Dword alignment required.",
	"Reserved",
};
static const struct bits sgls_bits[] = {
	{ 31, 22, NULL, NULL },
	{ 21, 21, "Transport SGL Data Block Descriptor Supported",
	  "Transport SGL Data Block Descriptor Not Supported" },
	{ 20, 20, "Address Offsets Supported",
	  "Address Offsets Not Supported" },
	{ 19, 19, "Metadata Pointer Containing SGL Descriptor is Supported",
	  "Metadata Pointer Containing SGL Descriptor is Not Supported" },
	{ 18, 18, "SGL Length Larger than Buffer Supported",
	  "SGL Length Larger than Buffer Not Supported" },
	{ 17, 17, "Byte-Aligned Contig. MD Buffer Supported",
	  "Byte-Aligned Contig. MD Buffer Not Supported" },
	{ 16, 16, "SGL Bit-Bucket Supported", "SGL Bit-Bucket Not Supported" },
	{ 15, 8, "SGL Descriptor Threshold", NULL },
	{ 7, 3, NULL, NULL },
	{ 2, 2, "Keyed SGL Data Block descriptor Supported",
	  "Keyed SGL Data Block descriptor Not Supported" },
	{ 1, 0, NULL, NULL, sgls_vals },
};
static const struct bits fcatt_bits[] = {
	{ 7, 1, NULL, NULL },
	{ 0, 0, "Static Controller Model", "Dynamic Controller Model" },
};
static const struct bits ofcs_bits[] = {
	{ 15, 1, NULL, NULL },
	{ 0, 0, "Disconnect command Supported",
	  "Disconnect command Not Supported" },
};
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

/* ---- id-ctrl --------------------------------------------------------------- */

struct ctrl_strs {
	char sn[21], mn[41], fr[9], subnqn[NVME_NQN_SIZE + 1];
};

static void ctrl_strs(const struct nvme_id_ctrl *id, struct ctrl_strs *s)
{
	field_str(s->sn, sizeof(s->sn), id->sn, sizeof(id->sn));
	field_str(s->mn, sizeof(s->mn), id->mn, sizeof(id->mn));
	field_str(s->fr, sizeof(s->fr), id->fr, sizeof(id->fr));
	field_str(s->subnqn, sizeof(s->subnqn), id->subnqn, sizeof(id->subnqn));
}

/* A power state's power in its scale (PSD bits 7:6), nvme-cli's way */
static void print_power(uint16_t p, unsigned scale)
{
	switch (scale & 3) {
	case 0:
		printf("-");
		break;
	case 1:
		printf("%u.%04uW", p / 10000, p % 10000);
		break;
	case 2:
		printf("%u.%02uW", p / 100, p % 100);
		break;
	default:
		printf("reserved");
	}
}

static void id_ctrl_power(const struct nvme_id_ctrl *id)
{
	static const char *const workload[] = { "-", "1MiB 32 RW, 30s idle",
						"80K 128KiB SW" };
	unsigned i;

	for (i = 0; i <= id->npss && i < 32; i++) {
		const struct nvme_id_power_state *ps = &id->psd[i];
		uint16_t mp = le16_to_cpu(ps->max_power);
		unsigned apw = ps->active_work_scale & 7;

		printf("ps   %4u : mp:", i);
		if (ps->flags & 1) /* MXPS: 0.0001 W units */
			printf("%u.%04uW ", mp / 10000, mp % 10000);
		else
			printf("%u.%02uW ", mp / 100, mp % 100);
		if (ps->flags & 2) /* NOPS */
			printf("non-");
		printf("operational enlat:%" PRIu32 " exlat:%" PRIu32
		       " rrt:%u rrl:%u\n"
		       "            rwt:%u rwl:%u idle_power:",
		       le32_to_cpu(ps->entry_lat), le32_to_cpu(ps->exit_lat),
		       ps->read_tput, ps->read_lat, ps->write_tput,
		       ps->write_lat);
		print_power(le16_to_cpu(ps->idle_power), ps->idle_scale >> 6);
		printf(" active_power:");
		print_power(le16_to_cpu(ps->active_power),
			    ps->active_work_scale >> 6);
		printf("\n            active_power_workload:%s\n",
		       apw < 3 ? workload[apw] : "reserved");
	}
}

static void id_ctrl_print(const struct nvme_id_ctrl *id, bool human)
{
	struct ctrl_strs s;
	char b[48], u[37];

	ctrl_strs(id, &s);
	printf("NVME Identify Controller:\n");
	printf("vid       : %#x\n", le16_to_cpu(id->vid));
	printf("ssvid     : %#x\n", le16_to_cpu(id->ssvid));
	printf("sn        : %s\n", s.sn);
	printf("mn        : %s\n", s.mn);
	printf("fr        : %s\n", s.fr);
	printf("rab       : %u\n", id->rab);
	printf("ieee      : %02x%02x%02x\n", id->ieee[2], id->ieee[1],
	       id->ieee[0]);
	printf("cmic      : %#x\n", id->cmic);
	if (human)
		SHOW_BITS(id->cmic, cmic_bits);
	printf("mdts      : %u\n", id->mdts);
	printf("cntlid    : %#x\n", le16_to_cpu(id->cntlid));
	printf("ver       : %#x\n", le32_to_cpu(id->ver));
	printf("rtd3r     : %#x\n", le32_to_cpu(id->rtd3r));
	printf("rtd3e     : %#x\n", le32_to_cpu(id->rtd3e));
	printf("oaes      : %#x\n", le32_to_cpu(id->oaes));
	printf("ctratt    : %#x\n", le32_to_cpu(id->ctratt));
	printf("rrls      : %#x\n", le16_to_cpu(id->rrls));
	printf("cntrltype : %u\n", id->cntrltype);
	if (human)
		SHOW_BITS(id->cntrltype, cntrltype_bits);
	printf("fguid     : %s\n", uuid_str(id->fguid, u));
	printf("crdt1     : %u\n", le16_to_cpu(id->crdt1));
	printf("crdt2     : %u\n", le16_to_cpu(id->crdt2));
	printf("crdt3     : %u\n", le16_to_cpu(id->crdt3));
	printf("nvmsr     : %u\n", id->nvmsr);
	printf("vwci      : %u\n", id->vwci);
	printf("mec       : %u\n", id->mec);
	printf("oacs      : %#x\n", le16_to_cpu(id->oacs));
	if (human)
		SHOW_BITS(le16_to_cpu(id->oacs), oacs_bits);
	printf("acl       : %u\n", id->acl);
	printf("aerl      : %u\n", id->aerl);
	printf("frmw      : %#x\n", id->frmw);
	printf("lpa       : %#x\n", id->lpa);
	if (human)
		SHOW_BITS(id->lpa, lpa_bits);
	printf("elpe      : %u\n", id->elpe);
	printf("npss      : %u\n", id->npss);
	printf("avscc     : %#x\n", id->avscc);
	printf("apsta     : %#x\n", id->apsta);
	printf("wctemp    : %u\n", le16_to_cpu(id->wctemp));
	printf("cctemp    : %u\n", le16_to_cpu(id->cctemp));
	printf("mtfa      : %u\n", le16_to_cpu(id->mtfa));
	printf("hmpre     : %" PRIu32 "\n", le32_to_cpu(id->hmpre));
	printf("hmmin     : %" PRIu32 "\n", le32_to_cpu(id->hmmin));
	printf("tnvmcap   : %s\n", u128_str(id->tnvmcap, b));
	printf("unvmcap   : %s\n", u128_str(id->unvmcap, b));
	printf("rpmbs     : %#x\n", le32_to_cpu(id->rpmbs));
	printf("edstt     : %u\n", le16_to_cpu(id->edstt));
	printf("dsto      : %u\n", id->dsto);
	printf("fwug      : %u\n", id->fwug);
	printf("kas       : %u\n", le16_to_cpu(id->kas));
	printf("hctma     : %#x\n", le16_to_cpu(id->hctma));
	printf("mntmt     : %u\n", le16_to_cpu(id->mntmt));
	printf("mxtmt     : %u\n", le16_to_cpu(id->mxtmt));
	printf("sanicap   : %#x\n", le32_to_cpu(id->sanicap));
	printf("hmminds   : %" PRIu32 "\n", le32_to_cpu(id->hmminds));
	printf("hmmaxd    : %u\n", le16_to_cpu(id->hmmaxd));
	printf("nsetidmax : %u\n", le16_to_cpu(id->nsetidmax));
	printf("endgidmax : %u\n", le16_to_cpu(id->endgidmax));
	printf("anatt     : %u\n", id->anatt);
	printf("anacap    : %u\n", id->anacap);
	printf("anagrpmax : %" PRIu32 "\n", le32_to_cpu(id->anagrpmax));
	printf("nanagrpid : %" PRIu32 "\n", le32_to_cpu(id->nanagrpid));
	printf("pels      : %" PRIu32 "\n", le32_to_cpu(id->pels));
	printf("domainid  : %u\n", le16_to_cpu(id->domainid));
	printf("megcap    : %s\n", u128_str(id->megcap, b));
	printf("sqes      : %#x\n", id->sqes);
	if (human)
		SHOW_BITS(id->sqes, sqes_bits);
	printf("cqes      : %#x\n", id->cqes);
	if (human)
		SHOW_BITS(id->cqes, cqes_bits);
	printf("maxcmd    : %u\n", le16_to_cpu(id->maxcmd));
	printf("nn        : %" PRIu32 "\n", le32_to_cpu(id->nn));
	printf("oncs      : %#x\n", le16_to_cpu(id->oncs));
	if (human)
		SHOW_BITS(le16_to_cpu(id->oncs), oncs_bits);
	printf("fuses     : %#x\n", le16_to_cpu(id->fuses));
	if (human)
		SHOW_BITS(le16_to_cpu(id->fuses), fuses_bits);
	printf("fna       : %#x\n", id->fna);
	printf("vwc       : %#x\n", id->vwc);
	if (human)
		SHOW_BITS(id->vwc, vwc_bits);
	printf("awun      : %u\n", le16_to_cpu(id->awun));
	printf("awupf     : %u\n", le16_to_cpu(id->awupf));
	printf("icsvscc   : %u\n", id->icsvscc);
	printf("nwpc      : %u\n", id->nwpc);
	printf("acwu      : %u\n", le16_to_cpu(id->acwu));
	printf("ocfs      : %#x\n", le16_to_cpu(id->ocfs));
	printf("sgls      : %#x\n", le32_to_cpu(id->sgls));
	if (human)
		SHOW_BITS(le32_to_cpu(id->sgls), sgls_bits);
	printf("mnan      : %" PRIu32 "\n", le32_to_cpu(id->mnan));
	printf("maxdna    : %s\n", u128_str(id->maxdna, b));
	printf("maxcna    : %" PRIu32 "\n", le32_to_cpu(id->maxcna));
	printf("subnqn    : %s\n", s.subnqn);
	printf("ioccsz    : %" PRIu32 "\n", le32_to_cpu(id->ioccsz));
	printf("iorcsz    : %" PRIu32 "\n", le32_to_cpu(id->iorcsz));
	printf("icdoff    : %u\n", le16_to_cpu(id->icdoff));
	printf("fcatt     : %#x\n", id->fcatt);
	if (human)
		SHOW_BITS(id->fcatt, fcatt_bits);
	printf("msdbd     : %u\n", id->msdbd);
	printf("ofcs      : %u\n", le16_to_cpu(id->ofcs));
	if (human)
		SHOW_BITS(le16_to_cpu(id->ofcs), ofcs_bits);
	id_ctrl_power(id);
}

/* nvme-cli writes 128-bit counters into its JSON as decimal strings */
static void jw_u128(struct jw *w, const char *key, const uint8_t le[16])
{
	char b[48];

	jw_str(w, key, u128_str(le, b));
}

static void id_ctrl_json(const struct nvme_id_ctrl *id)
{
	struct jw w = { 0 };
	struct ctrl_strs s;
	char u[37];
	unsigned i;

	ctrl_strs(id, &s);
	jw_open(&w, NULL, '{');
	jw_u64(&w, "vid", le16_to_cpu(id->vid));
	jw_u64(&w, "ssvid", le16_to_cpu(id->ssvid));
	jw_str(&w, "sn", s.sn);
	jw_str(&w, "mn", s.mn);
	jw_str(&w, "fr", s.fr);
	jw_u64(&w, "rab", id->rab);
	jw_u64(&w, "ieee",
	       (uint32_t)id->ieee[2] << 16 | id->ieee[1] << 8 | id->ieee[0]);
	jw_u64(&w, "cmic", id->cmic);
	jw_u64(&w, "mdts", id->mdts);
	jw_u64(&w, "cntlid", le16_to_cpu(id->cntlid));
	jw_u64(&w, "ver", le32_to_cpu(id->ver));
	jw_u64(&w, "rtd3r", le32_to_cpu(id->rtd3r));
	jw_u64(&w, "rtd3e", le32_to_cpu(id->rtd3e));
	jw_u64(&w, "oaes", le32_to_cpu(id->oaes));
	jw_u64(&w, "ctratt", le32_to_cpu(id->ctratt));
	jw_u64(&w, "rrls", le16_to_cpu(id->rrls));
	jw_u64(&w, "cntrltype", id->cntrltype);
	jw_str(&w, "fguid", uuid_str(id->fguid, u));
	jw_u64(&w, "crdt1", le16_to_cpu(id->crdt1));
	jw_u64(&w, "crdt2", le16_to_cpu(id->crdt2));
	jw_u64(&w, "crdt3", le16_to_cpu(id->crdt3));
	jw_u64(&w, "nvmsr", id->nvmsr);
	jw_u64(&w, "vwci", id->vwci);
	jw_u64(&w, "mec", id->mec);
	jw_u64(&w, "oacs", le16_to_cpu(id->oacs));
	jw_u64(&w, "acl", id->acl);
	jw_u64(&w, "aerl", id->aerl);
	jw_u64(&w, "frmw", id->frmw);
	jw_u64(&w, "lpa", id->lpa);
	jw_u64(&w, "elpe", id->elpe);
	jw_u64(&w, "npss", id->npss);
	jw_u64(&w, "avscc", id->avscc);
	jw_u64(&w, "apsta", id->apsta);
	jw_u64(&w, "wctemp", le16_to_cpu(id->wctemp));
	jw_u64(&w, "cctemp", le16_to_cpu(id->cctemp));
	jw_u64(&w, "mtfa", le16_to_cpu(id->mtfa));
	jw_u64(&w, "hmpre", le32_to_cpu(id->hmpre));
	jw_u64(&w, "hmmin", le32_to_cpu(id->hmmin));
	jw_u128(&w, "tnvmcap", id->tnvmcap);
	jw_u128(&w, "unvmcap", id->unvmcap);
	jw_u64(&w, "rpmbs", le32_to_cpu(id->rpmbs));
	jw_u64(&w, "edstt", le16_to_cpu(id->edstt));
	jw_u64(&w, "dsto", id->dsto);
	jw_u64(&w, "fwug", id->fwug);
	jw_u64(&w, "kas", le16_to_cpu(id->kas));
	jw_u64(&w, "hctma", le16_to_cpu(id->hctma));
	jw_u64(&w, "mntmt", le16_to_cpu(id->mntmt));
	jw_u64(&w, "mxtmt", le16_to_cpu(id->mxtmt));
	jw_u64(&w, "sanicap", le32_to_cpu(id->sanicap));
	jw_u64(&w, "hmminds", le32_to_cpu(id->hmminds));
	jw_u64(&w, "hmmaxd", le16_to_cpu(id->hmmaxd));
	jw_u64(&w, "nsetidmax", le16_to_cpu(id->nsetidmax));
	jw_u64(&w, "endgidmax", le16_to_cpu(id->endgidmax));
	jw_u64(&w, "anatt", id->anatt);
	jw_u64(&w, "anacap", id->anacap);
	jw_u64(&w, "anagrpmax", le32_to_cpu(id->anagrpmax));
	jw_u64(&w, "nanagrpid", le32_to_cpu(id->nanagrpid));
	jw_u64(&w, "pels", le32_to_cpu(id->pels));
	jw_u64(&w, "domainid", le16_to_cpu(id->domainid));
	jw_u128(&w, "megcap", id->megcap);
	jw_u64(&w, "sqes", id->sqes);
	jw_u64(&w, "cqes", id->cqes);
	jw_u64(&w, "maxcmd", le16_to_cpu(id->maxcmd));
	jw_u64(&w, "nn", le32_to_cpu(id->nn));
	jw_u64(&w, "oncs", le16_to_cpu(id->oncs));
	jw_u64(&w, "fuses", le16_to_cpu(id->fuses));
	jw_u64(&w, "fna", id->fna);
	jw_u64(&w, "vwc", id->vwc);
	jw_u64(&w, "awun", le16_to_cpu(id->awun));
	jw_u64(&w, "awupf", le16_to_cpu(id->awupf));
	jw_u64(&w, "icsvscc", id->icsvscc);
	jw_u64(&w, "nwpc", id->nwpc);
	jw_u64(&w, "acwu", le16_to_cpu(id->acwu));
	jw_u64(&w, "ocfs", le16_to_cpu(id->ocfs));
	jw_u64(&w, "sgls", le32_to_cpu(id->sgls));
	jw_u64(&w, "mnan", le32_to_cpu(id->mnan));
	jw_u128(&w, "maxdna", id->maxdna);
	jw_u64(&w, "maxcna", le32_to_cpu(id->maxcna));
	if (s.subnqn[0])
		jw_str(&w, "subnqn", s.subnqn);
	jw_u64(&w, "ioccsz", le32_to_cpu(id->ioccsz));
	jw_u64(&w, "iorcsz", le32_to_cpu(id->iorcsz));
	jw_u64(&w, "icdoff", le16_to_cpu(id->icdoff));
	jw_u64(&w, "fcatt", id->fcatt);
	jw_u64(&w, "msdbd", id->msdbd);
	jw_u64(&w, "ofcs", le16_to_cpu(id->ofcs));
	jw_open(&w, "psds", '[');
	for (i = 0; i <= id->npss && i < 32; i++) {
		const struct nvme_id_power_state *ps = &id->psd[i];

		jw_open(&w, NULL, '{');
		jw_u64(&w, "max_power", le16_to_cpu(ps->max_power));
		jw_u64(&w, "flags", ps->flags);
		jw_u64(&w, "entry_lat", le32_to_cpu(ps->entry_lat));
		jw_u64(&w, "exit_lat", le32_to_cpu(ps->exit_lat));
		jw_u64(&w, "read_tput", ps->read_tput);
		jw_u64(&w, "read_lat", ps->read_lat);
		jw_u64(&w, "write_tput", ps->write_tput);
		jw_u64(&w, "write_lat", ps->write_lat);
		jw_u64(&w, "idle_power", le16_to_cpu(ps->idle_power));
		jw_u64(&w, "idle_scale", ps->idle_scale >> 6 & 3);
		jw_u64(&w, "active_power", le16_to_cpu(ps->active_power));
		jw_u64(&w, "active_power_work", ps->active_work_scale & 7);
		jw_u64(&w, "active_scale", ps->active_work_scale >> 6 & 3);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_close(&w, '}');
}

/* Options of id-ctrl and id-ns */
struct id_args {
	const char *uri;
	enum out_fmt fmt;
	bool human;
	uint32_t nsid;
};

static int id_args_parse(const char *cmd, int argc, char **argv,
			 struct id_args *a, void (*usage)(FILE *))
{
	static const struct option longopts[] = {
		{ "output-format", required_argument, NULL, 'o' },
		{ "human-readable", no_argument, NULL, 'H' },
		{ "namespace-id", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool ns = !strcmp(cmd, "id-ns");
	unsigned long v;
	char *end;
	int c;

	memset(a, 0, sizeof(*a));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ns ? ":o:Hn:h" : ":o:Hh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			if (parse_fmt(cmd, optarg, &a->fmt))
				return 1;
			break;
		case 'H':
			a->human = true;
			break;
		case 'n':
			if (!ns) {
				bad_option(cmd, '?', argv);
				return 1;
			}
			errno = 0;
			v = strtoul(optarg, &end, 0);
			if (errno || *end || !v || v >= NVME_NSID_ALL) {
				fprintf(stderr,
					"mqblk %s: bad namespace id '%s'\n",
					cmd, optarg);
				return 1;
			}
			a->nsid = (uint32_t)v;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			bad_option(cmd, c, argv);
			return 1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr,
			"mqblk %s: no controller: give an "
			"nvme-tcp://HOST:PORT/SUBNQN URI\n",
			cmd);
		return 1;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "mqblk %s: unexpected argument '%s'\n", cmd,
			argv[optind + 1]);
		return 1;
	}
	a->uri = argv[optind];
	return 0;
}

static void id_ctrl_usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk id-ctrl nvme-tcp://HOST:PORT/SUBNQN[?...] "
		"[options]\n"
		"Send Identify Controller (CNS 01h) and print the data, "
		"as nvme id-ctrl.\n"
		"The URI may name the discovery subsystem (" NVME_DISC_SUBSYS_NAME
		").\n"
		"\n"
		"  -o, --output-format=FMT   normal|json\n"
		"  -H, --human-readable      spell out bit fields\n"
		"  -h, --help                this text\n");
}

int nvme_cmd_id_ctrl(int argc, char **argv)
{
	struct id_args a;
	struct mqblk_dev *dev;
	struct nvme_id_ctrl *id;
	int ret;

	ret = id_args_parse("id-ctrl", argc, argv, &a, id_ctrl_usage);
	if (ret)
		return ret < 0 ? 0 : 1;
	id = calloc(1, sizeof(*id));
	if (!id) {
		fprintf(stderr, "mqblk id-ctrl: out of memory\n");
		return 1;
	}
	if (ctrl_open("id-ctrl", a.uri, &dev)) {
		free(id);
		return 1;
	}
	ret = identify("id-ctrl", dev, NVME_ID_CNS_CTRL, 0, id);
	mqblk_dev_close(dev);
	if (!ret) {
		if (a.fmt == FMT_JSON)
			id_ctrl_json(id);
		else
			id_ctrl_print(id, a.human);
	}
	free(id);
	return ret ? 1 : 0;
}

/* ---- id-ns ----------------------------------------------------------------- */

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
	printf("nvmcap  : %s\n", u128_str(ns->nvmcap, b));
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

	ret = id_args_parse("id-ns", argc, argv, &a, id_ns_usage);
	if (ret)
		return ret < 0 ? 0 : 1;
	ns = calloc(1, sizeof(*ns));
	if (!ns) {
		fprintf(stderr, "mqblk id-ns: out of memory\n");
		return 1;
	}
	if (ctrl_open("id-ns", a.uri, &dev)) {
		free(ns);
		return 1;
	}
	ret = -EINVAL;
	nsid = pick_nsid("id-ns", dev, a.uri, a.nsid);
	if (nsid)
		ret = identify("id-ns", dev, NVME_ID_CNS_NS, nsid, ns);
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

/* ---- list ------------------------------------------------------------------ */

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
	ret = ctrl_open("list", uri, &dev);
	if (ret)
		goto out_free;
	ret = identify("list", dev, NVME_ID_CNS_CTRL, 0, id);
	if (ret)
		goto out_close;
	ret = -EINVAL;
	r->nsid = pick_nsid("list", dev, uri, 0);
	if (r->nsid)
		ret = identify("list", dev, NVME_ID_CNS_NS, r->nsid, ns);
	if (ret)
		goto out_close;
	field_str(r->sn, sizeof(r->sn), id->sn, sizeof(id->sn));
	field_str(r->mn, sizeof(r->mn), id->mn, sizeof(id->mn));
	field_str(r->fr, sizeof(r->fr), id->fr, sizeof(id->fr));
	rstrip(r->sn);
	rstrip(r->mn);
	rstrip(r->fr);
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
			if (parse_fmt("list", optarg, &fmt))
				return 1;
			break;
		case 'h':
			list_usage(stdout);
			return 0;
		default:
			bad_option("list", c, argv);
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

/* ---- ana-log ----------------------------------------------------------------- */

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
			if (parse_fmt("ana-log", optarg, &fmt))
				return 1;
			break;
		case 'h':
			ana_log_usage(stdout);
			return 0;
		default:
			bad_option("ana-log", c, argv);
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
	if (ctrl_open("ana-log", argv[optind], &dev))
		return 1;
	id = calloc(1, sizeof(*id));
	if (!id) {
		fprintf(stderr, "mqblk ana-log: out of memory\n");
		goto out_close;
	}
	if (identify("ana-log", dev, NVME_ID_CNS_CTRL, 0, id))
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

		if (get_log_lsp("ana-log", dev, NVME_LOG_ANA,
				rgo ? NVME_LOG_LSP_ANA_RGO : 0, NVME_NSID_ALL,
				off, log + off, n))
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
