// SPDX-License-Identifier: MIT
/*
 * mqblk discover: nvme-cli's discover (Get Log Page 70h on a discovery
 * controller), its options and its output, normal and JSON.
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

#define DISC_DEFAULT_PORT "8009" /* NVMe/TCP's discovery port */
#define DISC_CHUNK (64u * 1024) /* Get Log Page transfer per command */
#define DISC_MAX_RETRIES 10 /* genctr changed under us: read again */
#define DISC_MAX_RECORDS 4096
#define URI_MAX 1024

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
	nvcli_field_str(s->trsvcid, sizeof(s->trsvcid), e->trsvcid,
			sizeof(e->trsvcid));
	nvcli_field_str(s->subnqn, sizeof(s->subnqn), e->subnqn,
			sizeof(e->subnqn));
	nvcli_field_str(s->traddr, sizeof(s->traddr), e->traddr,
			sizeof(e->traddr));
	nvcli_rstrip(s->trsvcid);
	nvcli_rstrip(s->subnqn);
	nvcli_rstrip(s->traddr);
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
		ret = nvcli_get_log("discover", dev, NVME_LOG_DISC, 0, &hb[0],
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

			ret = nvcli_get_log("discover", dev, NVME_LOG_DISC, off,
					    log + off, (uint32_t)n);
			if (ret)
				goto out;
		}
		ret = nvcli_get_log("discover", dev, NVME_LOG_DISC, 0, &hb[1],
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
			if (nvcli_parse_fmt("discover", optarg, &fmt))
				return 1;
			break;
		case 'h':
			discover_usage(stdout);
			return 0;
		default:
			nvcli_bad_option("discover", c, argv);
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
		snprintf(uri + n, sizeof(uri) - n, "&discovery=1");

	if (nvcli_ctrl_open("discover", uri, &dev))
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
