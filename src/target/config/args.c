// SPDX-License-Identifier: MIT
/*
 * `mqblk target`'s command line (getopt_long) into the model of target.h:
 * --listen/--nqn/--ns/--allow-* build one subsystem, or --config loads
 * nvmetcli's JSON; the run options (reactors, stall, sockets, coalescing,
 * zero copy) either way.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "json.h"
#include "nvme/ktls.h"

enum opt_id {
	OPT_CONFIG,
	OPT_LISTEN,
	OPT_NQN,
	OPT_NS,
	OPT_ALLOW_HOST,
	OPT_ALLOW_ANY_HOST,
	OPT_DISCOVERY_PORT,
	OPT_REACTORS,
	OPT_STALL_MS,
	OPT_CONNECT_TIMEOUT,
	OPT_MAX_UNCONNECTED,
	OPT_STATS_SOCKET,
	OPT_VERBOSE,
	OPT_BUSY_POLL,
	OPT_INLINE_DATA_SIZE,
	OPT_MAX_QUEUE_SIZE,
	OPT_COALESCE_COUNT,
	OPT_COALESCE_USECS,
	OPT_ZEROCOPY,
	OPT_KTLS,
	OPT_ANA_GROUP,
	OPT_ANA,
	OPT_CTL,
	OPT_METRICS,
	OPT_ANATT,
	OPT_RDMA_SIGNAL_EVERY,
	OPT_RDMA_CQ_MODERATION,
	OPT_RDMA_SRQ,
	OPT_DHCHAP_KEY,
	OPT_DHCHAP_CTRL_KEY,
	OPT_DHCHAP_HASH,
	OPT_DHCHAP_DHGROUP,
	OPT_TLS_KEY,
	OPT_HELP,
};

struct opt {
	const char *name; /* without "--" */
	char short_name;
	bool has_arg;
	bool repeats; /* may be given more than once */
	enum opt_id id;
};

static const struct opt opts[] = {
	{ "config", 0, true, false, OPT_CONFIG },
	{ "listen", 0, true, true, OPT_LISTEN },
	{ "nqn", 0, true, false, OPT_NQN },
	{ "ns", 0, true, true, OPT_NS },
	{ "allow-host", 0, true, true, OPT_ALLOW_HOST },
	{ "allow-any-host", 0, false, false, OPT_ALLOW_ANY_HOST },
	{ "discovery-port", 0, true, false, OPT_DISCOVERY_PORT },
	{ "reactors", 0, true, false, OPT_REACTORS },
	{ "stall-ms", 0, true, false, OPT_STALL_MS },
	{ "connect-timeout", 0, true, false, OPT_CONNECT_TIMEOUT },
	{ "max-unconnected", 0, true, false, OPT_MAX_UNCONNECTED },
	{ "stats-socket", 0, true, false, OPT_STATS_SOCKET },
	{ "verbose", 'v', false, true, OPT_VERBOSE },
	{ "busy-poll", 0, false, false, OPT_BUSY_POLL },
	{ "inline-data-size", 0, true, false, OPT_INLINE_DATA_SIZE },
	{ "max-queue-size", 0, true, false, OPT_MAX_QUEUE_SIZE },
	{ "coalesce-count", 0, true, false, OPT_COALESCE_COUNT },
	{ "coalesce-usecs", 0, true, false, OPT_COALESCE_USECS },
	{ "zerocopy", 0, true, false, OPT_ZEROCOPY },
	{ "ktls", 0, true, false, OPT_KTLS },
	{ "ana-group", 0, true, true, OPT_ANA_GROUP },
	{ "ana", 0, true, true, OPT_ANA },
	{ "ctl", 0, true, false, OPT_CTL },
	{ "metrics", 0, true, false, OPT_METRICS },
	{ "anatt", 0, true, false, OPT_ANATT },
	{ "rdma-signal-every", 0, true, false, OPT_RDMA_SIGNAL_EVERY },
	{ "rdma-cq-moderation", 0, true, false, OPT_RDMA_CQ_MODERATION },
	{ "rdma-srq", 0, false, false, OPT_RDMA_SRQ },
	{ "dhchap-key", 0, true, true, OPT_DHCHAP_KEY },
	{ "dhchap-ctrl-key", 0, true, true, OPT_DHCHAP_CTRL_KEY },
	{ "dhchap-hash", 0, true, true, OPT_DHCHAP_HASH },
	{ "dhchap-dhgroup", 0, true, true, OPT_DHCHAP_DHGROUP },
	{ "tls-key", 0, true, true, OPT_TLS_KEY },
	{ "help", 'h', false, true, OPT_HELP },
};

#define NR_OPTS (sizeof(opts) / sizeof(opts[0]))
#define MAX_REACTORS 1024
#define MAX_STALL_MS 3600000u /* an hour */
#define MAX_CONNECT_TIMEOUT 3600u /* seconds: an hour */
#define MAX_UNCONNECTED 1048576u
#define MAX_COALESCE_USECS 100000u /* 100 ms */
#define MAX_CQM_COUNT 65535u /* ibv_modify_cq's cq_count is 16 bits */
#define MAX_CQM_USECS 65535u /* and so is its cq_period */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk target --listen ADDR:PORT [--listen ADDR:PORT ...] "
		"--nqn NQN\n"
		"                    --ns URI [--ns URI ...]\n"
		"                    [--allow-host HOSTNQN ... | "
		"--allow-any-host]\n"
		"                    [--discovery-port PORT] [options]\n"
		"       mqblk target --config FILE [options]\n"
		"       mqblk target --stats [--ctl PATH | --stats-socket PATH]\n"
		"\n"
		"An NVMe/TCP and NVMe/RDMA target serving mqblk devices.\n"
		"\n"
		"  --listen ADDR:PORT     address to listen on: A.B.C.D:PORT "
		"or [IPv6]:PORT;\n"
		"                         rdma:ADDR:PORT for NVMe/RDMA (RDMA "
		"CM); tls:ADDR:PORT\n"
		"                         for NVMe/TCP with TLS 1.3 required "
		"(PSKs: --tls-key);\n"
		"                         repeat for"
		"                         more ports (port IDs 1, 2, ... in "
		"order), each a\n"
		"                         path to the same subsystem\n"
		"  --nqn NQN              the subsystem's NQN (nqn.YYYY-MM."
		"reverse.domain:...)\n"
		"  --ns URI               a namespace: a file, a block device "
		"or an mqblk\n"
		"                         device URI (null:...); NSIDs 1, 2, "
		"... in order\n"
		"  --ana-group NSID:GRP   put namespace NSID in ANA group GRP "
		"(1..%u; default 1)\n"
		"  --ana PORT:GRP=STATE   group GRP's initial ANA state on PORT "
		"(a port ID or\n"
		"                         its ADDR:PORT): optimized (default), "
		"non-optimized,\n"
		"                         inaccessible, persistent-loss or "
		"change\n"
		"  --allow-host HOSTNQN   a host that may connect (repeat for "
		"more)\n"
		"  --dhchap-key KEY       the last --allow-host must "
		"authenticate (DH-HMAC-CHAP)\n"
		"                         with this DHHC-1 secret (nvme "
		"gen-dhchap-key's),\n"
		"                         or @FILE holding it (mode 600)\n"
		"  --dhchap-ctrl-key KEY  ... and the target proves itself "
		"with this one\n"
		"  --dhchap-hash LIST     its hashes, in order of preference: "
		"sha256, sha384,\n"
		"                         sha512 (default sha256, nvmet's)\n"
		"  --dhchap-dhgroup LIST  its DH groups: null, ffdhe2048, "
		"3072, 4096, 6144,\n"
		"                         8192 (default null, nvmet's)\n"
		"  --tls-key KEY          the last --allow-host's TLS PSK "
		"(nvme gen-tls-key's\n"
		"                         NVMeTLSkey-1 form), or @FILE holding "
		"it (mode 600)\n"
		"  --allow-any-host       any host may connect\n"
		"  --discovery-port PORT  also listen on PORT (same address) "
		"for discovery only\n"
		"  --inline-data-size B   in-capsule write data the I/O "
		"queues take (IOCCSZ),\n"
		"                         0..%u (default %u, nvmet's "
		"inline_data_size)\n"
		"  --max-queue-size N     entries per queue (CAP.MQES + 1), "
		"%u..%u (default %u)\n"
		"  --config FILE          nvmetcli's saved JSON (`nvmetcli "
		"save FILE`) instead\n"
		"                         of --listen/--nqn/--ns/--allow-*/"
		"--inline-data-size/\n"
		"                         --max-queue-size/--ana-group/--ana (the file has\n"
		"                         ana_grpid and ana_groups)\n"
		"  --reactors N           reactor threads (0, the default: one "
		"per CPU the\n"
		"                         process may use, as taskset or a "
		"cpuset allows)\n"
		"  --stall-ms MS          log a command outstanding this long "
		"(default %u)\n"
		"  --connect-timeout SEC  close a connection that has not "
		"completed its Connect\n"
		"                         in SEC seconds (1..%u, default %u)\n"
		"  --max-unconnected N    at most N connections without a "
		"Connect at once; the\n"
		"                         oldest is closed for a new one "
		"(1..%u, default %u)\n"
		"  --ctl PATH             serve `mqblk ctl PATH ...` on this "
		"UNIX socket (ANA\n"
		"                         states, ports down and up, stats); "
		"without --ctl or\n"
		"                         --stats-socket: /tmp/mqblk-target.sock"
		"\n"
		"  --stats-socket PATH    a control socket too, the same "
		"commands as --ctl's\n"
		"                         (the older spelling; deprecated: "
		"use --ctl)\n"
		"  --stats                print a running target's per-queue "
		"counters (its\n"
		"                         --ctl or --stats-socket PATH, "
		"default\n"
		"                         /tmp/mqblk-target.sock)\n"
		"  --metrics ADDR:PORT    serve Prometheus metrics at "
		"http://ADDR:PORT/metrics\n"
		"                         (A.B.C.D:PORT or [IPv6]:PORT; "
		"bound to ADDR only)\n"
		"  --anatt SECONDS        the ANA transition time Identify "
		"reports (1..255,\n"
		"                         default %u, nvmet's): a host resets "
		"a controller whose\n"
		"                         group stays in change past twice "
		"this\n"
		"  --busy-poll            reactors never sleep: they poll their "
		"sockets and\n"
		"                         devices (SPDK's way: lowest latency, "
		"a CPU each)\n"
		"  --coalesce-count N     response coalescing: a queue's "
		"completions wait until N\n"
		"                         are ready (2..%u) or the oldest "
		"has waited\n"
		"  --coalesce-usecs US    US microseconds (1..%u), then go "
		"in one send; both\n"
		"                         or neither (default: off, each "
		"reactor pass sends)\n"
		"  --zerocopy MODE        off (default), signalled or "
		"unsignalled: sends of\n"
		"                         16 KiB and more with MSG_ZEROCOPY; "
		"its notification\n"
		"                         read after every send (signalled) "
		"or once per\n"
		"                         reactor pass for all sends since "
		"(unsignalled)\n"
		"  --ktls MODE            TLS queues' records after the "
		"handshake: auto\n"
		"                         (default: the kernel's kTLS where "
		"it has the tls\n"
		"                         module, else OpenSSL's), off "
		"(OpenSSL's) or on\n"
		"                         (kTLS, refused where the kernel "
		"has none)\n"
		"  --rdma-signal-every N  RDMA: one response SEND in N asks "
		"for a completion\n"
		"                         (1..%u; default 1, every one); a "
		"slot is reused once\n"
		"                         a later signalled SEND completes\n"
		"  --rdma-cq-moderation COUNT,USEC\n"
		"                         RDMA: a completion event after "
		"COUNT completions or\n"
		"                         USEC microseconds (1..%u each): the "
		"device's CQ\n"
		"                         moderation, or in software where it "
		"has none\n"
		"  --rdma-srq             RDMA: each reactor posts the capsule "
		"receives of its\n"
		"                         queues in one shared receive queue "
		"(per device)\n"
		"  -v, --verbose          log connections and controllers\n"
		"  -h, --help             this text\n"
		"\n"
		"Without --allow-host or --allow-any-host no host may connect "
		"to the subsystem\n"
		"(discovery stays open to all).\n",
		TGT_MAX_ANA_GROUPS, TGT_MAX_INLINE_DATA, TGT_INLINE_DATA,
		TGT_MIN_QUEUE_DEPTH, TGT_MAX_QUEUE_DEPTH, TGT_MAX_QUEUE_DEPTH,
		TGT_CFG_DEFAULT_STALL_MS, MAX_CONNECT_TIMEOUT,
		TGT_CONNECT_TIMEOUT_MS / 1000, MAX_UNCONNECTED,
		TGT_MAX_UNCONNECTED, TGT_ANATT, TGT_MAX_QUEUE_DEPTH,
		MAX_COALESCE_USECS, TGT_MAX_QUEUE_DEPTH, MAX_CQM_COUNT);
}

/* What the command line said, before it is checked and applied. */
struct args {
	const char *val[NR_OPTS]; /* single-valued options */
	bool seen[NR_OPTS];
	const char **ns; /* --ns values, in order */
	unsigned nr_ns;
	const char **hosts; /* --allow-host values */
	unsigned nr_hosts;
	/* per --allow-host: --dhchap-key, -ctrl-key, -hash, -dhgroup */
	const char *(*dhchap)[4];
	const char **tls_keys; /* per --allow-host: --tls-key */
	const char **listens; /* --listen values, in order */
	unsigned nr_listens;
	const char **ana_groups; /* --ana-group values */
	unsigned nr_ana_groups;
	const char **anas; /* --ana values */
	unsigned nr_anas;
};

/* getopt_long's val for opts[i]: past every short option character. */
#define OPT_VAL 256

/* The option getopt_long answered c for (a short letter or OPT_VAL + id),
 * or NULL. */
static const struct opt *opt_of(int c)
{
	size_t i;

	if (c >= OPT_VAL && c < OPT_VAL + (int)NR_OPTS)
		return &opts[c - OPT_VAL];
	for (i = 0; i < NR_OPTS; i++)
		if (opts[i].short_name && opts[i].short_name == c)
			return &opts[i];
	return NULL;
}

/*
 * What getopt_long refused, as one line: with opterr 0 it says only '?'
 * (unknown, ambiguous, or a value given to an option without one) or ':'
 * (no value), optopt naming the option when it knows it.
 */
static int bad_option(int c, char **argv, char *err, size_t errlen)
{
	const struct opt *o = optopt ? opt_of(optopt) : NULL;
	const char *arg = argv[optind - 1], *eq;
	char q[80], names[160];
	size_t len, i, n = 0, o_len = 0;

	if (c == ':' && o)
		return tgt_err(err, errlen, "--%s needs a value", o->name);
	if (o)
		return tgt_err(err, errlen, "--%s takes no value", o->name);
	if (optopt) {
		/* a short option we do not have */
		q[0] = '-';
		q[1] = (char)optopt;
		cj_quote(names, sizeof(names), q, 2);
		return tgt_err(err, errlen, "unknown option %s (see --help)",
			       names);
	}
	eq = strchr(arg, '=');
	len = eq ? (size_t)(eq - arg) : strlen(arg);
	cj_quote(q, sizeof(q), arg, len);
	/* getopt_long takes an unambiguous prefix: name the candidates */
	names[0] = 0;
	for (i = 0; len > 2 && i < NR_OPTS; i++) {
		if (strncmp(opts[i].name, arg + 2, len - 2))
			continue;
		n++;
		if (o_len < sizeof(names))
			o_len += (size_t)snprintf(names + o_len,
						  sizeof(names) - o_len,
						  "%s--%s", o_len ? ", " : "",
						  opts[i].name);
	}
	if (n > 1)
		return tgt_err(err, errlen, "ambiguous option %s (%s)", q,
			       names);
	return tgt_err(err, errlen, "unknown option %s (see --help)", q);
}

/*
 * argv into a (values point into argv), with getopt_long: "+" stops at
 * the first word that is not an option (refused: the target takes no
 * operands), ":" reports a missing value apart. getopt's state is global:
 * optind = 0 starts it over, as the tests and the fuzzer call this
 * again; only the main thread parses a command line.
 */

/* An option given twice for one --allow-host, named as typed (quoted:
 * the NQN is checked later, and may hold anything yet). */
static int twice_for_host(const char *opt, const char *host, char *err,
			  size_t errlen)
{
	char q[80];

	cj_quote(q, sizeof(q), host, strlen(host));
	return tgt_err(err, errlen, "--%s given twice for host %s", opt, q);
}
static int scan_args(int argc, char **argv, struct args *a, char *err,
		     size_t errlen)
{
	struct option longopts[NR_OPTS + 1];
	char shortopts[8 + NR_OPTS];
	size_t i, s = 0;
	char q[80];

	a->ns = calloc((size_t)argc, sizeof(*a->ns));
	a->hosts = calloc((size_t)argc, sizeof(*a->hosts));
	a->dhchap = calloc((size_t)argc, sizeof(*a->dhchap));
	a->listens = calloc((size_t)argc, sizeof(*a->listens));
	a->ana_groups = calloc((size_t)argc, sizeof(*a->ana_groups));
	a->anas = calloc((size_t)argc, sizeof(*a->anas));
	a->tls_keys = calloc((size_t)argc, sizeof(*a->tls_keys));
	if (!a->ns || !a->hosts || !a->listens || !a->ana_groups || !a->anas ||
	    !a->dhchap || !a->tls_keys)
		return tgt_err(err, errlen, "out of memory");

	shortopts[s++] = '+';
	shortopts[s++] = ':';
	for (i = 0; i < NR_OPTS; i++) {
		longopts[i].name = opts[i].name;
		longopts[i].has_arg = opts[i].has_arg ? required_argument :
							no_argument;
		longopts[i].flag = NULL;
		longopts[i].val = OPT_VAL + (int)i;
		if (opts[i].short_name)
			shortopts[s++] = opts[i].short_name; /* no values */
	}
	shortopts[s] = 0;
	memset(&longopts[NR_OPTS], 0, sizeof(longopts[NR_OPTS]));

	optind = 0;
	opterr = 0;
	for (;;) {
		int c = getopt_long(argc, argv, shortopts, longopts, NULL);
		const struct opt *o;

		if (c == -1)
			break;
		o = c == '?' || c == ':' ? NULL : opt_of(c);
		if (!o)
			return bad_option(c, argv, err, errlen);
		if (a->seen[o->id] && !o->repeats)
			return tgt_err(err, errlen, "--%s given twice",
				       o->name);
		a->seen[o->id] = true;
		if (o->id == OPT_NS)
			a->ns[a->nr_ns++] = optarg;
		else if (o->id == OPT_ALLOW_HOST)
			a->hosts[a->nr_hosts++] = optarg;
		else if (o->id >= OPT_DHCHAP_KEY &&
			 o->id <= OPT_DHCHAP_DHGROUP) {
			/* each applies to the --allow-host before it */
			const char **slot;

			if (!a->nr_hosts)
				return tgt_err(err, errlen,
					       "--%s must follow the "
					       "--allow-host it is for",
					       o->name);
			slot = &a->dhchap[a->nr_hosts - 1]
					 [o->id - OPT_DHCHAP_KEY];
			if (*slot)
				return twice_for_host(o->name,
						      a->hosts[a->nr_hosts - 1],
						      err, errlen);
			*slot = optarg;
		} else if (o->id == OPT_TLS_KEY) {
			if (!a->nr_hosts)
				return tgt_err(err, errlen,
					       "--tls-key must follow the "
					       "--allow-host it is for");
			if (a->tls_keys[a->nr_hosts - 1])
				return twice_for_host("tls-key",
						      a->hosts[a->nr_hosts - 1],
						      err, errlen);
			a->tls_keys[a->nr_hosts - 1] = optarg;
		} else if (o->id == OPT_LISTEN)
			a->listens[a->nr_listens++] = optarg;
		else if (o->id == OPT_ANA_GROUP)
			a->ana_groups[a->nr_ana_groups++] = optarg;
		else if (o->id == OPT_ANA)
			a->anas[a->nr_anas++] = optarg;
		else
			a->val[o->id] = o->has_arg ? optarg : NULL;
	}
	if (optind < argc) {
		cj_quote(q, sizeof(q), argv[optind], strlen(argv[optind]));
		return tgt_err(err, errlen,
			       "unexpected argument %s (options start with "
			       "--; see --help)",
			       q);
	}
	return 0;
}

/* A number in min..max for option name. */
static int arg_uint(const char *name, const char *s, uint64_t min, uint64_t max,
		    uint64_t *out, char *err, size_t errlen)
{
	char q[80];

	cj_quote(q, sizeof(q), s, strlen(s));
	if (tgt_cfg_parse_dec(s, strlen(s), UINT64_MAX, out))
		return tgt_err(err, errlen,
			       "--%s: %s is not a number (%" PRIu64 "..%" PRIu64
			       ")",
			       name, q, min, max);
	if (*out < min || *out > max)
		return tgt_err(err, errlen,
			       "--%s: %s is out of range (%" PRIu64 "..%" PRIu64
			       ")",
			       name, q, min, max);
	return 0;
}

/* A.B.C.D:PORT or [IPv6]:PORT (s, the end of option opt's value whole)
 * into p's address. */
static int parse_hostport(const char *opt, const char *whole, const char *s,
			  struct tgt_port *p, char *err, size_t errlen)
{
	const char *addr, *colon;
	size_t alen;
	unsigned char bin[16];
	uint64_t port;
	char q[80];

	cj_quote(q, sizeof(q), whole, strlen(whole));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return tgt_err(err, errlen,
				       "%s: %s: expected [IPv6]:PORT", opt, q);
		addr = s + 1;
		alen = (size_t)(close - addr);
		colon = close + 1;
		p->adrfam = NVMF_ADDR_FAMILY_IP6;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return tgt_err(err, errlen,
				       "%s: %s: expected ADDR:PORT "
				       "(A.B.C.D:PORT or [IPv6]:PORT)",
				       opt, q);
		addr = s;
		alen = (size_t)(colon - s);
		p->adrfam = NVMF_ADDR_FAMILY_IP4;
	}
	if (alen >= sizeof(p->traddr))
		return tgt_err(err, errlen, "%s: %s: address too long", opt, q);
	memcpy(p->traddr, addr, alen);
	p->traddr[alen] = 0;
	if (inet_pton(p->adrfam == NVMF_ADDR_FAMILY_IP4 ? AF_INET : AF_INET6,
		      p->traddr, bin) != 1)
		return tgt_err(err, errlen,
			       p->adrfam == NVMF_ADDR_FAMILY_IP4 ?
				       "%s: %s: not an IPv4 address (IPv6: "
				       "[ADDR]:PORT)" :
				       "%s: %s: not an IPv6 address",
			       opt, q);
	if (tgt_cfg_parse_dec(colon + 1, strlen(colon + 1), 65535, &port) ||
	    !port)
		return tgt_err(err, errlen, "%s: %s: the port must be 1..65535",
			       opt, q);
	snprintf(p->trsvcid, sizeof(p->trsvcid), "%u", (unsigned)port);
	return 0;
}

/* [rdma:|tcp:|tls:]A.B.C.D:PORT or [IPv6]:PORT into p. */
static int parse_listen(const char *s, struct tgt_port *p, char *err,
			size_t errlen)
{
	const char *a = s;

	if (!strncmp(s, "rdma:", 5)) {
		p->trtype = NVMF_TRTYPE_RDMA;
		a += 5;
	} else if (!strncmp(s, "tcp:", 4)) {
		p->trtype = NVMF_TRTYPE_TCP;
		a += 4;
	} else if (!strncmp(s, "tls:", 4)) {
		/* NVMe/TCP over TLS 1.3, plaintext refused (nvmet's
		 * addr_tsas tls1.3 with its default treq) */
		p->trtype = NVMF_TRTYPE_TCP;
		p->sectype = NVMF_TCP_SECTYPE_TLS13;
		p->treq = NVMF_TREQ_REQUIRED;
		a += 4;
	}
	return parse_hostport("--listen", s, a, p, err, errlen);
}

/* --metrics A.B.C.D:PORT or [IPv6]:PORT into t. */
static int parse_metrics(struct tgt *t, const char *s, char *err, size_t errlen)
{
	struct tgt_port p;

	memset(&p, 0, sizeof(p));
	if (parse_hostport("--metrics", s, s, &p, err, errlen))
		return -1;
	t->metrics = strdup(s);
	if (!t->metrics)
		return tgt_err(err, errlen, "out of memory");
	t->metrics_adrfam = p.adrfam;
	memcpy(t->metrics_addr, p.traddr, sizeof(t->metrics_addr));
	t->metrics_port = (uint16_t)strtoul(p.trsvcid, NULL, 10);
	return 0;
}

/* The command line takes an NQN as the spec writes it: "nqn." ... */
static int check_nqn_arg(const char *opt, const char *s, char *err,
			 size_t errlen)
{
	const char *why = tgt_cfg_nqn_problem(s, strlen(s));
	char q[80];
	size_t i;

	cj_quote(q, sizeof(q), s, strlen(s));
	if (!why && (strncmp(s, "nqn.", 4) || !s[4]))
		why = "an NQN starts with \"nqn.\" (nqn.2014-08.com.example:"
		      "name or nqn.2014-08.org.nvmexpress:uuid:UUID)";
	for (i = 0; !why && s[i]; i++)
		if (s[i] == ' ')
			why = "space in NQN";
	if (why)
		return tgt_err(err, errlen, "--%s: %s: %s", opt, q, why);
	return 0;
}

/* --ana-group NSID:GRP: namespace NSID (an --ns) into group GRP. */
static int parse_ana_group_arg(struct tgt_subsys *s, const char *arg, char *err,
			       size_t errlen)
{
	const char *colon = strchr(arg, ':');
	uint64_t nsid, grp;
	char q[80];

	cj_quote(q, sizeof(q), arg, strlen(arg));
	if (!colon ||
	    tgt_cfg_parse_dec(arg, (size_t)(colon - arg), UINT64_MAX, &nsid) ||
	    tgt_cfg_parse_dec(colon + 1, strlen(colon + 1), UINT64_MAX, &grp))
		return tgt_err(err, errlen,
			       "--ana-group: %s: expected NSID:GROUP (two "
			       "numbers)",
			       q);
	if (!nsid || nsid > s->nr_ns)
		return tgt_err(err, errlen,
			       "--ana-group: %s: no namespace %" PRIu64
			       " (the --ns options give NSIDs 1..%u)",
			       q, nsid, s->nr_ns);
	if (!grp || grp > TGT_MAX_ANA_GROUPS)
		return tgt_err(err, errlen,
			       "--ana-group: %s: ANA group %" PRIu64
			       " out of range (1..%u)",
			       q, grp, TGT_MAX_ANA_GROUPS);
	if (s->ns[nsid - 1]->anagrpid)
		return tgt_err(err, errlen,
			       "--ana-group: namespace %" PRIu64 " given twice",
			       nsid);
	s->ns[nsid - 1]->anagrpid = (uint32_t)grp;
	return 0;
}

/* --ana PORT:GRP=STATE: a group's initial state on one port. */
static int parse_ana_arg(struct tgt *t, const char *arg, char *err,
			 size_t errlen)
{
	const char *eq = strrchr(arg, '='), *colon = NULL, *c;
	struct tgt_port *p;
	uint64_t grp;
	uint8_t state;
	char q[80], perr[256];

	cj_quote(q, sizeof(q), arg, strlen(arg));
	for (c = arg; eq && c < eq; c++)
		if (*c == ':')
			colon = c;
	if (!eq || !colon)
		return tgt_err(err, errlen,
			       "--ana: %s: expected PORT:GROUP=STATE (PORT a "
			       "port ID or ADDR:PORT)",
			       q);
	if (tgt_cfg_parse_dec(colon + 1, (size_t)(eq - colon - 1), UINT64_MAX,
			      &grp) ||
	    !grp || grp > TGT_MAX_ANA_GROUPS)
		return tgt_err(err, errlen,
			       "--ana: %s: the ANA group must be 1..%u", q,
			       TGT_MAX_ANA_GROUPS);
	state = nvme_ana_state_parse(eq + 1, strlen(eq + 1));
	if (!state)
		return tgt_err(err, errlen,
			       "--ana: %s: not an ANA state (optimized, "
			       "non-optimized, inaccessible, persistent-loss, "
			       "change)",
			       q);
	p = tgt_port_find(t, arg, (size_t)(colon - arg), perr, sizeof(perr));
	if (!p)
		return tgt_err(err, errlen, "--ana: %s", perr);
	if (p->discovery_only)
		return tgt_err(err, errlen,
			       "--ana: %s: port %u is the discovery port", q,
			       p->portid);
	if (!t->ana_group_used[grp])
		return tgt_err(
			err, errlen,
			"--ana: %s: no namespace is in ANA group %" PRIu64
			" (see --ana-group)",
			q, grp);
	atomic_store(&p->ana_state[grp], state);
	return 0;
}

/* A host's --dhchap-* values (v: key, ctrl key, hashes, groups; NULL
 * when not given) into h; one-line reasons never hold the secrets. */
static int host_auth_args(struct tgt_host *h, const char *const v[4], char *err,
			  size_t errlen)
{
	static const char *const names[] = { "dhchap-key", "dhchap-ctrl-key",
					     "dhchap-hash", "dhchap-dhgroup" };
	char why[160];
	int k, ret;

	tgt_cfg_host_auth_defaults(h);
	for (k = 0; k < 4; k++) {
		if (!v[k])
			continue;
		if (k < 2)
			ret = nvme_auth_key_load(v[k],
						 k ? &h->ctrl_key : &h->key,
						 why, sizeof(why));
		else
			ret = tgt_cfg_auth_list(
				v[k], k == 2, k == 2 ? h->hashes : h->dhgroups,
				k == 2 ? &h->nr_hashes : &h->nr_dhgroups, why,
				sizeof(why));
		if (ret)
			return tgt_err(err, errlen, "--%s (host %s): %s",
				       names[k], h->nqn, why);
	}
	if (!h->key.len && (v[1] || v[2] || v[3]))
		return tgt_err(err, errlen,
			       "--dhchap-ctrl-key/-hash/-dhgroup for host %s "
			       "without its --dhchap-key",
			       h->nqn);
	return 0;
}

/* --listen / --nqn / --ns / --allow-* into t. */
static int build_from_args(struct tgt *t, const struct args *a, char *err,
			   size_t errlen)
{
	struct tgt_subsys *s;
	struct tgt_port *p;
	unsigned i, j, nr_ports;
	uint64_t dport = 0, u = 0;
	uint32_t inline_data, max_queue;
	char missing[64] = "";
	size_t m = 0;

	/* 26 bytes at most: no check against sizeof(missing) needed */
	if (!a->nr_listens)
		m += (size_t)snprintf(missing + m, sizeof(missing) - m,
				      ", --listen");
	if (!a->val[OPT_NQN])
		m += (size_t)snprintf(missing + m, sizeof(missing) - m,
				      ", --nqn");
	if (!a->nr_ns)
		m += (size_t)snprintf(missing + m, sizeof(missing) - m,
				      ", --ns");
	if (missing[0])
		return tgt_err(err, errlen,
			       "missing %s (or --config FILE; see --help)",
			       missing + 2);
	if (a->seen[OPT_ALLOW_ANY_HOST] && a->nr_hosts)
		return tgt_err(err, errlen,
			       "--allow-host and --allow-any-host exclude each "
			       "other");
	if (a->nr_ns > TGT_MAX_NS)
		return tgt_err(err, errlen, "--ns: more than %u namespaces",
			       TGT_MAX_NS);
	if (check_nqn_arg("nqn", a->val[OPT_NQN], err, errlen))
		return -1;
	if (!strcmp(a->val[OPT_NQN], NVME_DISC_SUBSYS_NAME))
		return tgt_err(err, errlen,
			       "--nqn: %s is the discovery subsystem's NQN",
			       NVME_DISC_SUBSYS_NAME);
	if (a->val[OPT_DISCOVERY_PORT] &&
	    arg_uint("discovery-port", a->val[OPT_DISCOVERY_PORT], 1, 65535,
		     &dport, err, errlen))
		return -1;

	if (tgt_cfg_disc_init(t))
		return tgt_err(err, errlen, "out of memory");
	t->subsys = calloc(1, sizeof(*t->subsys));
	s = tgt_cfg_subsys_new();
	if (!t->subsys || !s) {
		free(s);
		return tgt_err(err, errlen, "out of memory");
	}
	t->subsys[t->nr_subsys++] = s;
	snprintf(s->nqn, sizeof(s->nqn), "%s", a->val[OPT_NQN]);
	tgt_cfg_subsys_defaults(s);
	s->next_cntlid = s->cntlid_min;
	s->allow_any_host = a->seen[OPT_ALLOW_ANY_HOST];

	if (a->nr_hosts) {
		s->hosts = calloc(a->nr_hosts, sizeof(*s->hosts));
		if (!s->hosts)
			return tgt_err(err, errlen, "out of memory");
	}
	for (i = 0; i < a->nr_hosts; i++) {
		if (check_nqn_arg("allow-host", a->hosts[i], err, errlen))
			return -1;
		/* a handful of hosts on a command line: O(n^2) is fine */
		for (j = 0; j < i; j++)
			if (!strcmp(a->hosts[i], a->hosts[j]))
				return tgt_err(err, errlen,
					       "--allow-host: %s given twice",
					       a->hosts[i]);
		snprintf(s->hosts[i].nqn, sizeof(s->hosts[i].nqn), "%s",
			 a->hosts[i]);
		s->nr_hosts++;
		if (host_auth_args(&s->hosts[i], a->dhchap[i], err, errlen))
			return -1;
		if (a->tls_keys[i]) {
			char why[160];

			if (nvme_tls_key_load(a->tls_keys[i],
					      &s->hosts[i].tls_key, why,
					      sizeof(why)))
				return tgt_err(err, errlen,
					       "--tls-key (host %s): %s",
					       s->hosts[i].nqn, why);
		}
	}

	s->ns = calloc(a->nr_ns, sizeof(*s->ns));
	if (!s->ns)
		return tgt_err(err, errlen, "out of memory");
	for (i = 0; i < a->nr_ns; i++) {
		struct tgt_ns *ns;

		if (!a->ns[i][0])
			return tgt_err(err, errlen, "--ns: empty device");
		ns = calloc(1, sizeof(*ns));
		if (!ns)
			return tgt_err(err, errlen, "out of memory");
		s->ns[s->nr_ns++] = ns;
		ns->uri = strdup(a->ns[i]);
		if (!ns->uri)
			return tgt_err(err, errlen, "out of memory");
		ns->nsid = i + 1;
		ns->enabled = true;
		tgt_cfg_derive_uuid(s->nqn, ns->nsid, ns->uuid);
		tgt_cfg_derive_nguid(s->nqn, ns->nsid, ns->nguid);
		ns->has_uuid = true;
		ns->has_nguid = true;
	}

	nr_ports = a->nr_listens + (dport ? 1 : 0);
	t->ports = calloc(nr_ports, sizeof(*t->ports));
	if (!t->ports)
		return tgt_err(err, errlen, "out of memory");
	for (i = 0; i < nr_ports; i++) {
		/* --listen is NVMe/TCP's A.B.C.D:PORT or [IPv6]:PORT */
		t->ports[i].trtype = tgt_cfg_transport_default()->trtype;
		t->ports[i].listen_fd = -1;
		t->ports[i].inline_data = TGT_INLINE_DATA;
		t->ports[i].max_queue_size = TGT_MAX_QUEUE_DEPTH;
		tgt_cfg_port_ana_init(&t->ports[i]);
	}
	t->nr_ports = nr_ports;
	if (a->val[OPT_INLINE_DATA_SIZE] &&
	    arg_uint("inline-data-size", a->val[OPT_INLINE_DATA_SIZE], 0,
		     TGT_MAX_INLINE_DATA, &u, err, errlen))
		return -1;
	inline_data = a->val[OPT_INLINE_DATA_SIZE] ? (uint32_t)u :
						     TGT_INLINE_DATA;
	if (a->val[OPT_MAX_QUEUE_SIZE] &&
	    arg_uint("max-queue-size", a->val[OPT_MAX_QUEUE_SIZE],
		     TGT_MIN_QUEUE_DEPTH, TGT_MAX_QUEUE_DEPTH, &u, err, errlen))
		return -1;
	max_queue = a->val[OPT_MAX_QUEUE_SIZE] ? (uint32_t)u :
						 TGT_MAX_QUEUE_DEPTH;
	/* every --listen a port of the one subsystem: its paths */
	for (i = 0; i < a->nr_listens; i++) {
		p = &t->ports[i];
		p->portid = (uint16_t)(i + 1);
		p->inline_data = inline_data;
		p->max_queue_size = max_queue;
		if (parse_listen(a->listens[i], p, err, errlen))
			return -1;
		for (j = 0; j < i; j++)
			if (tgt_cfg_same_addr(p, &t->ports[j]))
				return tgt_err(err, errlen,
					       "--listen: %s given twice",
					       a->listens[i]);
		p->subsys = calloc(1, sizeof(*p->subsys));
		if (!p->subsys)
			return tgt_err(err, errlen, "out of memory");
		p->subsys[p->nr_subsys++] = s;
	}
	p = &t->ports[0];
	if (dport) {
		struct tgt_port *d = &t->ports[a->nr_listens];
		char dsvc[32];

		snprintf(dsvc, sizeof(dsvc), "%" PRIu64, dport);
		for (i = 0; i < a->nr_listens; i++)
			if (!strcmp(t->ports[i].trsvcid, dsvc) &&
			    !strcmp(t->ports[i].traddr, p->traddr))
				return tgt_err(err, errlen,
					       "--discovery-port: %" PRIu64
					       " is a --listen port",
					       dport);
		d->portid = (uint16_t)(a->nr_listens + 1);
		d->trtype = p->trtype;
		d->adrfam = p->adrfam;
		memcpy(d->traddr, p->traddr, sizeof(d->traddr));
		snprintf(d->trsvcid, sizeof(d->trsvcid), "%s", dsvc);
		d->discovery_only = true;
	}
	for (i = 0; i < a->nr_ana_groups; i++)
		if (parse_ana_group_arg(s, a->ana_groups[i], err, errlen))
			return -1;
	tgt_cfg_ana_finish(t);
	for (i = 0; i < a->nr_anas; i++)
		if (parse_ana_arg(t, a->anas[i], err, errlen))
			return -1;
	return 0;
}

/* The RDMA options need an RDMA port to act on. */
static int check_rdma_opts(const struct tgt *t, const struct args *a, char *err,
			   size_t errlen)
{
	static const enum opt_id rdma_opts[] = {
		OPT_RDMA_SIGNAL_EVERY,
		OPT_RDMA_CQ_MODERATION,
		OPT_RDMA_SRQ,
	};
	size_t i;
	unsigned p;

	for (p = 0; p < t->nr_ports; p++)
		if (t->ports[p].trtype == NVMF_TRTYPE_RDMA)
			return 0;
	for (i = 0; i < sizeof(rdma_opts) / sizeof(rdma_opts[0]); i++)
		if (a->seen[rdma_opts[i]])
			return tgt_err(err, errlen,
				       "--%s: no RDMA port to apply it to "
				       "(--listen rdma:ADDR:PORT, or trtype "
				       "rdma in the config)",
				       opts[rdma_opts[i]].name);
	return 0;
}

/* --rdma-cq-moderation COUNT,USEC */
static int parse_cq_moderation(struct tgt *t, const char *v, char *err,
			       size_t errlen)
{
	const char *comma = strchr(v, ',');
	uint64_t count, usecs;
	char q[48];

	cj_quote(q, sizeof(q), v, strlen(v));
	if (!comma ||
	    tgt_cfg_parse_dec(v, (size_t)(comma - v), MAX_CQM_COUNT, &count) ||
	    tgt_cfg_parse_dec(comma + 1, strlen(comma + 1), MAX_CQM_USECS,
			      &usecs) ||
	    !count || !usecs)
		return tgt_err(err, errlen,
			       "--rdma-cq-moderation: %s: expected COUNT,USEC "
			       "(completions 1..%u, microseconds 1..%u)",
			       q, MAX_CQM_COUNT, MAX_CQM_USECS);
	t->rdma_cqm_count = (uint32_t)count;
	t->rdma_cqm_usecs = (uint32_t)usecs;
	return 0;
}

int tgt_config_args(struct tgt *t, int argc, char **argv, char *err,
		    size_t errlen)
{
	struct args a;
	uint64_t u;
	int ret = -1;

	memset(&a, 0, sizeof(a));
	memset(t, 0, sizeof(*t));
	t->stall_ms = TGT_CFG_DEFAULT_STALL_MS;
	if (scan_args(argc, argv, &a, err, errlen))
		goto out;
	if (a.seen[OPT_HELP]) {
		usage(stdout);
		ret = 1;
		goto out;
	}
	t->verbose = a.seen[OPT_VERBOSE];
	t->busy_poll = a.seen[OPT_BUSY_POLL];
	if (a.val[OPT_REACTORS]) {
		if (arg_uint("reactors", a.val[OPT_REACTORS], 0, MAX_REACTORS,
			     &u, err, errlen))
			goto out;
		t->nr_reactors = (unsigned)u;
	}
	if (a.val[OPT_STALL_MS]) {
		if (arg_uint("stall-ms", a.val[OPT_STALL_MS], 1, MAX_STALL_MS,
			     &u, err, errlen))
			goto out;
		t->stall_ms = (uint32_t)u;
	}
	if (a.val[OPT_CONNECT_TIMEOUT]) {
		if (arg_uint("connect-timeout", a.val[OPT_CONNECT_TIMEOUT], 1,
			     MAX_CONNECT_TIMEOUT, &u, err, errlen))
			goto out;
		t->connect_timeout_ms = (uint32_t)u * 1000;
	}
	if (a.val[OPT_MAX_UNCONNECTED]) {
		if (arg_uint("max-unconnected", a.val[OPT_MAX_UNCONNECTED], 1,
			     MAX_UNCONNECTED, &u, err, errlen))
			goto out;
		t->max_unconnected = (uint32_t)u;
	}
	if (!a.val[OPT_COALESCE_COUNT] != !a.val[OPT_COALESCE_USECS]) {
		tgt_err(err, errlen,
			"--coalesce-count and --coalesce-usecs go together (how "
			"many completions, and how long the first may wait)");
		goto out;
	}
	if (a.val[OPT_COALESCE_COUNT]) {
		if (arg_uint("coalesce-count", a.val[OPT_COALESCE_COUNT], 2,
			     TGT_MAX_QUEUE_DEPTH, &u, err, errlen))
			goto out;
		t->coal_count = (uint32_t)u;
		if (arg_uint("coalesce-usecs", a.val[OPT_COALESCE_USECS], 1,
			     MAX_COALESCE_USECS, &u, err, errlen))
			goto out;
		t->coal_usecs = (uint32_t)u;
	}
	if (a.val[OPT_ZEROCOPY]) {
		const char *z = a.val[OPT_ZEROCOPY];
		char q[48];

		if (!strcmp(z, "off")) {
			t->zerocopy = TGT_ZC_OFF;
		} else if (!strcmp(z, "signalled")) {
			t->zerocopy = TGT_ZC_SIGNALLED;
		} else if (!strcmp(z, "unsignalled")) {
			t->zerocopy = TGT_ZC_UNSIGNALLED;
		} else {
			cj_quote(q, sizeof(q), z, strlen(z));
			tgt_err(err, errlen,
				"--zerocopy: %s: expected off, signalled or "
				"unsignalled",
				q);
			goto out;
		}
	}
	if (a.val[OPT_KTLS]) {
		const char *k = a.val[OPT_KTLS];
		char q[48], why[160];

		if (nvme_ktls_mode_parse(k, &t->ktls)) {
			cj_quote(q, sizeof(q), k, strlen(k));
			tgt_err(err, errlen,
				"--ktls: %s: expected auto, off or on", q);
			goto out;
		}
		if (t->ktls == NVME_KTLS_ON &&
		    nvme_ktls_probe(why, sizeof(why))) {
			tgt_err(err, errlen, "--ktls=on: %s", why);
			goto out;
		}
	}
	t->rdma_srq = a.seen[OPT_RDMA_SRQ];
	if (a.val[OPT_RDMA_SIGNAL_EVERY]) {
		if (arg_uint("rdma-signal-every", a.val[OPT_RDMA_SIGNAL_EVERY],
			     1, TGT_MAX_QUEUE_DEPTH, &u, err, errlen))
			goto out;
		t->rdma_signal_every = (uint32_t)u;
	}
	if (a.val[OPT_RDMA_CQ_MODERATION] &&
	    parse_cq_moderation(t, a.val[OPT_RDMA_CQ_MODERATION], err, errlen))
		goto out;
	if (t->rdma_cqm_count && t->busy_poll) {
		tgt_err(err, errlen,
			"--rdma-cq-moderation moderates completion events, and "
			"--busy-poll waits for none: one or the other");
		goto out;
	}
	if (a.val[OPT_ANATT]) {
		if (arg_uint("anatt", a.val[OPT_ANATT], 1, 255, &u, err,
			     errlen))
			goto out;
		t->anatt = (uint8_t)u;
	}
	if (a.val[OPT_CTL]) {
		if (!a.val[OPT_CTL][0]) {
			tgt_err(err, errlen, "--ctl: empty path");
			goto out;
		}
		t->ctl_path = strdup(a.val[OPT_CTL]);
		if (!t->ctl_path) {
			tgt_err(err, errlen, "out of memory");
			goto out;
		}
	}
	if (a.val[OPT_METRICS] &&
	    parse_metrics(t, a.val[OPT_METRICS], err, errlen))
		goto out;
	if (a.val[OPT_STATS_SOCKET]) {
		if (!a.val[OPT_STATS_SOCKET][0]) {
			tgt_err(err, errlen, "--stats-socket: empty path");
			goto out;
		}
		t->stats_path = strdup(a.val[OPT_STATS_SOCKET]);
		if (!t->stats_path) {
			tgt_err(err, errlen, "out of memory");
			goto out;
		}
	}

	if (a.val[OPT_CONFIG]) {
		static const enum opt_id excl[] = {
			OPT_LISTEN,
			OPT_NQN,
			OPT_NS,
			OPT_ALLOW_HOST,
			OPT_ALLOW_ANY_HOST,
			OPT_DHCHAP_KEY,
			OPT_DHCHAP_CTRL_KEY,
			OPT_DHCHAP_HASH,
			OPT_DHCHAP_DHGROUP,
			OPT_TLS_KEY,
			OPT_DISCOVERY_PORT,
			OPT_INLINE_DATA_SIZE,
			OPT_MAX_QUEUE_SIZE,
			OPT_ANA_GROUP,
			OPT_ANA,
		};
		size_t i;

		for (i = 0; i < sizeof(excl) / sizeof(excl[0]); i++) {
			if (!a.seen[excl[i]])
				continue;
			tgt_err(err, errlen,
				"--config and --%s exclude each other (the file "
				"has the ports, subsystems and hosts)",
				opts[excl[i]].name);
			goto out;
		}
		if (tgt_config_load(t, a.val[OPT_CONFIG], err, errlen))
			goto out;
		/* absolute: save and SIGHUP find it whatever the cwd is */
		t->config_path = realpath(a.val[OPT_CONFIG], NULL);
		if (!t->config_path) {
			char shown[256];

			tgt_err(err, errlen, "--config %s: %s",
				cj_path_shown(a.val[OPT_CONFIG], shown,
					      sizeof(shown)),
				strerror(errno));
			goto out;
		}
	} else if (build_from_args(t, &a, err, errlen)) {
		goto out;
	}
	if (check_rdma_opts(t, &a, err, errlen))
		goto out;
	ret = 0;
out:
	free(a.ns);
	free(a.hosts);
	free(a.dhchap);
	free(a.tls_keys);
	free(a.listens);
	free(a.ana_groups);
	free(a.anas);
	if (ret)
		tgt_config_free(t);
	return ret;
}
