// SPDX-License-Identifier: MIT
/*
 * NVMe multipath, the pure part (see mpath.h): URI path lists, ANA log
 * parsing and the path selectors. No I/O, no threads.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mpath.h"

#define MP_NQN_SIZE 256

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* len bytes of s as one printable line for a message (the URI is user
 * input): control bytes become '?', cut to fit out. */
const char *mp_printable(const char *s, size_t len, char *out, size_t outlen)
{
	size_t i;

	for (i = 0; i < len && s[i] && i + 1 < outlen; i++)
		out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' :
								      s[i];
	out[i] = '\0';
	return out;
}

/* One "HOST:PORT" or "[V6]:PORT" of len bytes into a. */
static int parse_one(const char *s, size_t len, struct mp_addr *a, char *err,
		     size_t errlen)
{
	const char *colon, *port;
	size_t hl, pl, i;
	unsigned long p = 0;
	char b[96];

	memset(a, 0, sizeof(*a));
	if (!len) {
		snprintf(err, errlen,
			 "nvme-tcp URI: empty path in the address list");
		return -EINVAL;
	}
	/* "TR:" ahead of "HOST:PORT" or "[V6]:PORT": letters, then a colon
	 * that is not the port's (another colon or a bracket follows) */
	for (i = 0; i < len && s[i] >= 'a' && s[i] <= 'z'; i++)
		;
	if (i && i < len && s[i] == ':' &&
	    (memchr(s + i + 1, ':', len - i - 1) || s[i + 1] == '[')) {
		if (i >= sizeof(a->tr)) {
			snprintf(err, errlen,
				 "nvme-tcp URI: bad transport in '%s'",
				 mp_printable(s, len, b, sizeof(b)));
			return -EINVAL;
		}
		memcpy(a->tr, s, i);
		s += i + 1;
		len -= i + 1;
	}
	for (i = 0; i < len; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
			snprintf(err, errlen, "nvme-tcp URI: bad address '%s'",
				 mp_printable(s, len, b, sizeof(b)));
			return -EINVAL;
		}
	}
	if (s[0] == '[') {
		const char *rb = memchr(s, ']', len);

		if (!rb || rb + 1 >= s + len || rb[1] != ':') {
			snprintf(err, errlen, "nvme-tcp URI: bad address '%s'",
				 mp_printable(s, len, b, sizeof(b)));
			return -EINVAL;
		}
		hl = (size_t)(rb - s - 1);
		if (hl >= sizeof(a->host))
			goto too_long;
		memcpy(a->host, s + 1, hl);
		colon = rb + 1;
	} else {
		colon = memchr(s, ':', len);
		if (!colon) {
			snprintf(err, errlen,
				 "nvme-tcp URI: no port in '%s' (HOST:PORT)",
				 mp_printable(s, len, b, sizeof(b)));
			return -EINVAL;
		}
		hl = (size_t)(colon - s);
		if (hl >= sizeof(a->host))
			goto too_long;
		memcpy(a->host, s, hl);
	}
	port = colon + 1;
	pl = (size_t)(s + len - port);
	if (!hl || !pl || pl >= sizeof(a->port)) {
		snprintf(err, errlen, "nvme-tcp URI: bad address '%s'",
			 mp_printable(s, len, b, sizeof(b)));
		return -EINVAL;
	}
	for (i = 0; i < pl; i++) {
		if (port[i] < '0' || port[i] > '9') {
			p = 0;
			break;
		}
		p = p * 10 + (unsigned long)(port[i] - '0');
	}
	if (!p || p > 65535) {
		snprintf(err, errlen, "nvme-tcp URI: bad port '%s'",
			 mp_printable(port, pl, b, sizeof(b)));
		return -EINVAL;
	}
	memcpy(a->port, port, pl);
	return 0;
too_long:
	snprintf(err, errlen, "nvme-tcp URI: host too long");
	return -EINVAL;
}

int mp_parse_addrs(const char *s, struct mp_addr *addrs, unsigned max,
		   unsigned *nr, char *subnqn, char *err, size_t errlen)
{
	const char *slash, *p, *end;
	unsigned n = 0, i;
	bool in_br = false;

	/* the first '/' outside brackets ends the address list */
	for (slash = s; *slash && (in_br || *slash != '/'); slash++)
		if (*slash == '[')
			in_br = true;
		else if (*slash == ']')
			in_br = false;
	if (!*slash || !slash[1]) {
		snprintf(err, errlen,
			 "nvme-tcp URI: expected nvme-tcp://HOST:PORT[,HOST:"
			 "PORT...]/SUBNQN");
		return -EINVAL;
	}
	if (strlen(slash + 1) > 223) {
		snprintf(err, errlen,
			 "nvme-tcp URI: subsystem NQN longer than 223 bytes");
		return -EINVAL;
	}
	for (p = slash + 1; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(err, errlen,
				 "nvme-tcp URI: control character in the "
				 "subsystem NQN");
			return -EINVAL;
		}
	}
	p = s;
	while (p <= slash) {
		int ret;

		in_br = false;
		for (end = p; end < slash && (in_br || *end != ','); end++)
			if (*end == '[')
				in_br = true;
			else if (*end == ']')
				in_br = false;
		if (n == max) {
			snprintf(err, errlen,
				 "nvme-tcp URI: more than %u paths", max);
			return -EINVAL;
		}
		ret = parse_one(p, (size_t)(end - p), &addrs[n], err, errlen);
		if (ret)
			return ret;
		for (i = 0; i < n; i++) {
			if (!strcmp(addrs[i].tr, addrs[n].tr) &&
			    !strcmp(addrs[i].host, addrs[n].host) &&
			    !strcmp(addrs[i].port, addrs[n].port)) {
				char h[96];

				snprintf(err, errlen,
					 "nvme-tcp URI: path %s:%s given twice",
					 mp_printable(addrs[n].host,
						      sizeof(addrs[n].host), h,
						      sizeof(h)),
					 addrs[n].port);
				return -EINVAL;
			}
		}
		n++;
		p = end + 1;
	}
	memset(subnqn, 0, MP_NQN_SIZE);
	memcpy(subnqn, slash + 1, strlen(slash + 1));
	*nr = n;
	return 0;
}

static const char *const policy_names[] = {
	[MP_IOPOLICY_NUMA] = "numa",
	[MP_IOPOLICY_RR] = "round-robin",
	[MP_IOPOLICY_QD] = "queue-depth",
};

int mp_parse_iopolicy(const char *s, enum mp_iopolicy *p)
{
	unsigned i;

	for (i = 0; i < sizeof(policy_names) / sizeof(policy_names[0]); i++) {
		if (!strcmp(s, policy_names[i])) {
			*p = (enum mp_iopolicy)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *mp_iopolicy_name(enum mp_iopolicy p)
{
	return (unsigned)p < sizeof(policy_names) / sizeof(policy_names[0]) ?
		       policy_names[p] :
		       "?";
}

const char *mp_ana_state_name(uint8_t state)
{
	switch (state) {
	case MP_ANA_OPTIMIZED:
		return "optimized";
	case MP_ANA_NONOPTIMIZED:
		return "non-optimized";
	case MP_ANA_INACCESSIBLE:
		return "inaccessible";
	case MP_ANA_PERSISTENT_LOSS:
		return "persistent-loss";
	case MP_ANA_CHANGE:
		return "change";
	default:
		return "invalid";
	}
}

/* Walk the log; with want set, stop at that group. Returns the groups
 * walked (want unset), 0 with *state (found), -ENOENT or -EBADMSG. */
static int ana_walk(const uint8_t *log, size_t len, bool want, uint32_t grpid,
		    uint8_t *state)
{
	size_t off = MP_ANA_HDR_SIZE;
	unsigned ngrps, g;

	if (len < MP_ANA_HDR_SIZE)
		return -EBADMSG;
	ngrps = (unsigned)log[8] | (unsigned)log[9] << 8;
	for (g = 0; g < ngrps; g++) {
		uint32_t nnsids;
		uint8_t st;

		if (len - off < MP_ANA_DESC_SIZE)
			return -EBADMSG;
		nnsids = get_le32(log + off + 4);
		st = log[off + 16] & 0xf;
		/* a descriptor and its list must fit what was read (the
		 * kernel's nvme_parse_ana_log bound, against len) */
		if ((uint64_t)nnsids * 4 > len - off - MP_ANA_DESC_SIZE)
			return -EBADMSG;
		if (!get_le32(log + off))
			return -EBADMSG; /* group 0 is not a group */
		if (want && get_le32(log + off) == grpid) {
			*state = st;
			return 0;
		}
		off += MP_ANA_DESC_SIZE + (size_t)nnsids * 4;
	}
	return want ? -ENOENT : (int)ngrps;
}

int mp_ana_log_check(const uint8_t *log, size_t len)
{
	return ana_walk(log, len, false, 0, NULL);
}

int mp_ana_log_state(const uint8_t *log, size_t len, uint32_t grpid,
		     uint8_t *state)
{
	int ret = ana_walk(log, len, false, 0, NULL);

	if (ret < 0)
		return ret; /* a bad log is bad as a whole */
	return ana_walk(log, len, true, grpid, state);
}

/*
 * Path errors (SCT 3h), and Command Aborted due to SQ Deletion (00/08h):
 * the command did not run and its controller is being torn down under
 * it, as mqblk's target answers between a keep-alive expiry and closing
 * the controller's I/O queues (the kernel would retry it on the same
 * path, which nvmet has closed by then; another path is the sure way).
 * Never with DNR.
 */
bool mp_status_fails_over(uint16_t status)
{
	if (status & 0x4000)
		return false;
	return ((status >> 8) & 0x7) == 0x3 || (status & 0x7ff) == 0x008;
}

uint8_t mp_status_ana_state(uint16_t status)
{
	switch (status & 0x7ff) {
	case 0x301:
		return MP_ANA_PERSISTENT_LOSS;
	case 0x302:
		return MP_ANA_INACCESSIBLE;
	case 0x303:
		return MP_ANA_CHANGE;
	default:
		return 0;
	}
}

static bool view_ok(const struct mp_path_view *v)
{
	return v->usable &&
	       (v->ana == MP_ANA_OPTIMIZED || v->ana == MP_ANA_NONOPTIMIZED);
}

/* __nvme_find_path with one NUMA node: the first optimized path, else the
 * first non-optimized one. */
static int find_first(const struct mp_path_view *v, unsigned nr)
{
	int fallback = -1;
	unsigned i;

	for (i = 0; i < nr; i++) {
		if (!view_ok(&v[i]))
			continue;
		if (v[i].ana == MP_ANA_OPTIMIZED)
			return (int)i;
		if (fallback < 0)
			fallback = (int)i;
	}
	return fallback;
}

/* nvme_round_robin_path: the next usable path after the current one,
 * optimized first; the current one again only when nothing else does. */
static int round_robin(const struct mp_path_view *v, unsigned nr, int old)
{
	int found = -1;
	unsigned k;

	if (old < 0 || (unsigned)old >= nr)
		return find_first(v, nr);
	for (k = 1; k < nr; k++) {
		unsigned i = ((unsigned)old + k) % nr;

		if (!view_ok(&v[i]))
			continue;
		if (v[i].ana == MP_ANA_OPTIMIZED)
			return (int)i;
		if (found < 0)
			found = (int)i;
	}
	if (view_ok(&v[old]) && (v[old].ana == MP_ANA_OPTIMIZED || found < 0))
		return old;
	return found;
}

/* nvme_queue_depth_path: the least busy optimized path, else the least
 * busy non-optimized one. */
static int queue_depth(const struct mp_path_view *v, unsigned nr)
{
	int best_opt = -1, best_non = -1;
	unsigned i, min_opt = ~0u, min_non = ~0u;

	for (i = 0; i < nr; i++) {
		if (!view_ok(&v[i]))
			continue;
		if (v[i].ana == MP_ANA_OPTIMIZED && v[i].inflight < min_opt) {
			min_opt = v[i].inflight;
			best_opt = (int)i;
			if (!min_opt)
				break;
		} else if (v[i].ana == MP_ANA_NONOPTIMIZED &&
			   v[i].inflight < min_non) {
			min_non = v[i].inflight;
			best_non = (int)i;
		}
	}
	return best_opt >= 0 ? best_opt : best_non;
}

int mp_select(enum mp_iopolicy pol, const struct mp_path_view *v, unsigned nr,
	      int *current)
{
	int cur = *current, pick;

	switch (pol) {
	case MP_IOPOLICY_RR:
		pick = round_robin(v, nr, cur);
		break;
	case MP_IOPOLICY_QD:
		pick = queue_depth(v, nr);
		break;
	default:
		/* sticky while it stays usable and optimized */
		if (cur >= 0 && (unsigned)cur < nr && view_ok(&v[cur]) &&
		    v[cur].ana == MP_ANA_OPTIMIZED)
			return cur;
		pick = find_first(v, nr);
		break;
	}
	if (pick >= 0)
		*current = pick;
	return pick;
}

bool mp_err_transient(int err)
{
	switch (err < 0 ? -err : err) {
	case ECONNREFUSED:
	case ECONNRESET:
	case ECONNABORTED:
	case ETIMEDOUT:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
	case ENETDOWN:
	case EPIPE:
		return true;
	default:
		return false;
	}
}

uint64_t mp_anatt_ms(uint8_t anatt)
{
	return 2000ull * (anatt ? anatt : 1);
}

/* A space-padded ASCII field of a discovery log record (n bytes at f,
 * ended by its first NUL if any) into out as a C string, the padding cut;
 * false when it is empty or does not fit outlen. */
static bool disc_field(const uint8_t *f, size_t n, char *out, size_t outlen)
{
	const uint8_t *nul = memchr(f, '\0', n);
	size_t len = nul ? (size_t)(nul - f) : n;

	while (len && f[len - 1] == ' ')
		len--;
	if (!len || len >= outlen)
		return false;
	memcpy(out, f, len);
	out[len] = '\0';
	return true;
}

bool mp_addr_same(const struct mp_addr *a, const struct mp_addr *b)
{
	return !strcmp(a->tr, b->tr) && !strcmp(a->host, b->host) &&
	       !strcmp(a->port, b->port);
}

unsigned mp_disc_paths(const uint8_t *rec, size_t nr, const char *subnqn,
		       const char *(*trname)(uint8_t trtype),
		       struct mp_addr *addrs, unsigned max)
{
	unsigned n = 0, k;
	size_t i;

	for (i = 0; i < nr && n < max; i++) {
		const uint8_t *e = rec + i * MP_DISC_ENTRY_SIZE;
		char sn[MP_NQN_SIZE];
		const char *tr = trname(e[0]);
		struct mp_addr *a = &addrs[n];
		bool dup = false;

		if (!tr || strlen(tr) >= sizeof(a->tr) ||
		    !disc_field(e + 256, MP_NQN_SIZE, sn, sizeof(sn)) ||
		    strcmp(sn, subnqn))
			continue;
		memset(a, 0, sizeof(*a));
		snprintf(a->tr, sizeof(a->tr), "%s", tr);
		if (!disc_field(e + 512, 256, a->host, sizeof(a->host)) ||
		    !disc_field(e + 32, 32, a->port, sizeof(a->port)))
			continue;
		for (k = 0; k < n; k++)
			dup |= mp_addr_same(&addrs[k], a);
		if (!dup)
			n++;
	}
	return n;
}
