// SPDX-License-Identifier: MIT
/*
 * The target's configuration: nvmetcli's saved JSON or the command line,
 * into the model of target.h (ports, subsystems, namespaces, hosts).
 * Whatever the kernel's nvmet would do that mqblk cannot is refused with
 * the file and the JSON path of the value, never quietly dropped.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/json.h"
#include "target.h"

#define DEFAULT_STALL_MS 5000
#define DEFAULT_MODEL "mqblk"
#define CNTLID_MAX 0xffef /* NVME_CNTLID_MAX: FFF0h.. are reserved */
#define PATH_MAX_LEN 256

/* ---- Model helpers ------------------------------------------------------- */

/*
 * Stable identifiers (serial numbers, namespace UUID/NGUID) come from a
 * hash of names, so a restarted target shows a host the same IDs. Not
 * cryptographic: FNV-1a, then splitmix64's finalizer to spread the bits.
 */
static uint64_t hash64(uint64_t seed, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull ^ seed;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 31;
	return h;
}

static void hash128(uint64_t seed, const char *nqn, uint32_t nsid,
		    uint8_t out[16])
{
	unsigned char nsid_le[4] = { (unsigned char)nsid,
				     (unsigned char)(nsid >> 8),
				     (unsigned char)(nsid >> 16),
				     (unsigned char)(nsid >> 24) };
	uint64_t h[2];
	int k, i;

	for (k = 0; k < 2; k++) {
		h[k] = hash64(seed + (uint64_t)k, nqn, strlen(nqn) + 1);
		h[k] = hash64(h[k], nsid_le, sizeof(nsid_le));
		for (i = 0; i < 8; i++)
			out[k * 8 + i] = (uint8_t)(h[k] >> (56 - 8 * i));
	}
}

/* A namespace's UUID from (subsystem NQN, NSID): an RFC 9562 version 8
 * ("custom") UUID, so it never collides with a random (v4) one. */
static void derive_uuid(const char *nqn, uint32_t nsid, uint8_t uuid[16])
{
	hash128(0x75756964, nqn, nsid, uuid);
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x80);
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
}

static void derive_nguid(const char *nqn, uint32_t nsid, uint8_t nguid[16])
{
	hash128(0x6e677569, nqn, nsid, nguid);
}

/* 16 hex digits, like the kernel's random default serial. */
static void derive_serial(const char *nqn, char serial[21])
{
	snprintf(serial, 21, "%016" PRIx64,
		 hash64(0x73657269, nqn, strlen(nqn)));
}

static void subsys_defaults(struct tgt_subsys *s)
{
	derive_serial(s->nqn, s->serial);
	snprintf(s->model, sizeof(s->model), "%s", DEFAULT_MODEL);
	snprintf(s->firmware, sizeof(s->firmware), "%s", TGT_VERSION);
	s->cntlid_min = 1;
	s->cntlid_max = CNTLID_MAX;
}

/* A new subsystem, its lock ready; NULL if out of memory. */
static struct tgt_subsys *subsys_new(void)
{
	struct tgt_subsys *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (pthread_mutex_init(&s->lock, NULL)) {
		free(s);
		return NULL;
	}
	return s;
}

static void subsys_free(struct tgt_subsys *s)
{
	unsigned i;

	if (!s)
		return;
	for (i = 0; i < s->nr_ns; i++)
		free(s->ns[i].uri);
	free(s->ns);
	free(s->hosts);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static int disc_init(struct tgt *t)
{
	struct tgt_subsys *d = &t->disc;

	memset(d, 0, sizeof(*d));
	if (pthread_mutex_init(&d->lock, NULL))
		return -1;
	snprintf(d->nqn, sizeof(d->nqn), "%s", NVME_DISC_SUBSYS_NAME);
	subsys_defaults(d);
	d->discovery = true; /* also tells tgt_config_free the lock is live */
	d->allow_any_host = true;
	d->next_cntlid = d->cntlid_min;
	return 0;
}

/* Every ANA group of p optimized: nvmet's default for a new group. */
static void port_ana_init(struct tgt_port *p)
{
	unsigned g;

	for (g = 0; g <= TGT_MAX_ANA_GROUPS; g++)
		atomic_init(&p->ana_state[g], g ? NVME_ANA_OPTIMIZED : 0);
	atomic_init(&p->down, false);
}

/* After the model is built: group 1 and every namespace's group exist
 * (a port's configured groups were marked as they were read). */
static void ana_finish(struct tgt *t)
{
	unsigned i, j;

	t->ana_group_used[TGT_DEFAULT_ANA_GROUP] = true;
	for (i = 0; i < t->nr_subsys; i++)
		for (j = 0; j < t->subsys[i]->nr_ns; j++) {
			struct tgt_ns *ns = &t->subsys[i]->ns[j];

			if (!ns->anagrpid)
				ns->anagrpid = TGT_DEFAULT_ANA_GROUP;
			t->ana_group_used[ns->anagrpid] = true;
		}
}

/* Everything but the run options (reactors, stall, stats, verbose). */
static void free_model(struct tgt *t)
{
	unsigned i;

	for (i = 0; i < t->nr_ports; i++)
		free(t->ports[i].subsys);
	free(t->ports);
	t->ports = NULL;
	t->nr_ports = 0;
	for (i = 0; i < t->nr_subsys; i++)
		subsys_free(t->subsys[i]);
	free(t->subsys);
	t->subsys = NULL;
	t->nr_subsys = 0;
	if (t->disc.discovery)
		pthread_mutex_destroy(&t->disc.lock);
	memset(&t->disc, 0, sizeof(t->disc));
	memset(t->ana_group_used, 0, sizeof(t->ana_group_used));
}

void tgt_config_free(struct tgt *t)
{
	if (!t)
		return;
	free_model(t);
	free(t->stats_path);
	free(t->ctl_path);
	memset(t, 0, sizeof(*t));
}

struct tgt_ns *tgt_subsys_ns(struct tgt_subsys *s, uint32_t nsid)
{
	unsigned lo = 0, hi;

	if (!s || !nsid || nsid == 0xffffffffu)
		return NULL;
	hi = s->nr_ns;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		struct tgt_ns *ns = &s->ns[mid];

		if (ns->nsid == nsid)
			return ns->enabled ? ns : NULL;
		if (ns->nsid < nsid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool tgt_host_allowed(const struct tgt_subsys *s, const char *hostnqn)
{
	unsigned i;

	if (!s)
		return false;
	if (s->discovery || s->allow_any_host)
		return true;
	if (!hostnqn)
		return false;
	for (i = 0; i < s->nr_hosts; i++)
		if (!strcmp(s->hosts[i].nqn, hostnqn))
			return true;
	return false;
}

/*
 * An NQN as nvmet takes it: 1..223 bytes of UTF-8 without control
 * characters (the JSON layer checked the UTF-8). nvmetcli names need not
 * start with "nqn." (its examples use "testnqn"); the command line is
 * stricter (check_nqn_arg).
 */
static const char *nqn_problem(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return "empty NQN";
	if (len > TGT_NQN_MAX)
		return "NQN longer than 223 bytes";
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			return "control character in NQN";
		if (c == '/')
			return "'/' in NQN"; /* configfs names: nvmet refuses */
	}
	return NULL;
}

static bool is_disc_nqn(const struct tgt *t, const char *nqn)
{
	return !strcmp(nqn, NVME_DISC_SUBSYS_NAME) ||
	       (t->disc.discovery && !strcmp(nqn, t->disc.nqn));
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 8-4-4-4-12 hex digits. */
static int parse_uuid(const char *s, size_t len, uint8_t out[16])
{
	size_t i, n = 0;

	if (len != 36)
		return -1;
	for (i = 0; i < 36; i += 2) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -1;
			i--; /* the loop adds 2 */
			continue;
		}
		hi = hexval(s[i]);
		lo = hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[n++] = (uint8_t)(hi << 4 | lo);
	}
	return n == 16 ? 0 : -1;
}

/* nbytes * 2 hex digits, '-' anywhere between them ignored (nvmetcli
 * writes an NGUID in UUID form). */
static int parse_hex_id(const char *s, size_t len, uint8_t *out, size_t nbytes)
{
	size_t i, n = 0;
	int hi = -1;

	for (i = 0; i < len; i++) {
		int v;

		if (s[i] == '-')
			continue;
		v = hexval(s[i]);
		if (v < 0 || n == nbytes)
			return -1;
		if (hi < 0) {
			hi = v;
		} else {
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	return n == nbytes && hi < 0 ? 0 : -1;
}

static bool all_zero(const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* Decimal digits only, no sign, no spaces, value <= max. */
static int parse_dec(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!len || len > 20)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* ---- nvmetcli JSON ------------------------------------------------------- */

struct cfg {
	struct tgt *t;
	const char *name; /* the file, for messages */
	char *err;
	size_t errlen;
	char path[PATH_MAX_LEN]; /* JSON path of what is being read */
	size_t plen;
};

static int cerr(struct cfg *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int cerr(struct cfg *c, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!c->err || !c->errlen)
		return -1;
	if (c->plen)
		snprintf(c->err, c->errlen, "%s: %s: %s", c->name, c->path,
			 msg);
	else
		snprintf(c->err, c->errlen, "%s: %s", c->name, msg);
	return -1;
}

/* Path steps: push returns the length to pop back to. */
static size_t push_key(struct cfg *c, const char *key)
{
	size_t old = c->plen;
	int n = snprintf(c->path + c->plen, sizeof(c->path) - c->plen, "%s%s",
			 c->plen ? "." : "", key);

	if (n > 0)
		c->plen += (size_t)n;
	if (c->plen >= sizeof(c->path))
		c->plen = sizeof(c->path) - 1;
	return old;
}

static size_t push_idx(struct cfg *c, size_t i)
{
	size_t old = c->plen;
	int n = snprintf(c->path + c->plen, sizeof(c->path) - c->plen, "[%zu]",
			 i);

	if (n > 0)
		c->plen += (size_t)n;
	if (c->plen >= sizeof(c->path))
		c->plen = sizeof(c->path) - 1;
	return old;
}

static void pop(struct cfg *c, size_t old)
{
	c->plen = old;
	c->path[old] = 0;
}

static int want(struct cfg *c, const struct json_object *v, enum cj_type type)
{
	if (cj_type(v) == type)
		return 0;
	return cerr(c, "expected %s %s, found %s",
		    type == CJ_ARRAY || type == CJ_OBJECT ? "an" : "a",
		    cj_type_name(type), cj_type_name(cj_type(v)));
}

/*
 * Members of obj must be among known (NULL-terminated); the message names
 * the first that is not, and what would have been.
 */
static int check_keys(struct cfg *c, const struct json_object *obj,
		      const char *const *known)
{
	char list[256], q[80];
	size_t k, o = 0;

	if (cj_type(obj) != CJ_OBJECT)
		return 0;
	/* in document order (json-c keeps insertion order); keys hold no
	 * NUL (cj_parse refuses \u0000 in a key) */
	json_object_object_foreach((struct json_object *)obj, key, val)
	{
		(void)val;
		for (k = 0; known[k]; k++)
			if (!strcmp(known[k], key))
				break;
		if (known[k])
			continue;
		list[0] = 0;
		for (k = 0; known[k] && o < sizeof(list); k++)
			o += (size_t)snprintf(list + o, sizeof(list) - o,
					      "%s%s", k ? ", " : "", known[k]);
		cj_quote(q, sizeof(q), key, strlen(key));
		return cerr(c, "unknown key %s (known: %s)", q, list);
	}
	return 0;
}

/* A string without NUL bytes, at most max bytes long. */
static int get_str(struct cfg *c, const struct json_object *v, size_t max,
		   const char **out, size_t *len)
{
	size_t n;
	const char *s;

	if (want(c, v, CJ_STRING))
		return -1;
	s = cj_str(v, &n);
	if (strlen(s) != n)
		return cerr(c, "NUL character in a string");
	if (n > max)
		return cerr(c, "longer than %zu bytes", max);
	*out = s;
	*len = n;
	return 0;
}

/*
 * An unsigned number in min..max: a JSON integer, or a string of decimal
 * digits (nvmetcli writes configfs attributes as the strings it read).
 */
static int get_uint(struct cfg *c, const struct json_object *v, uint64_t min,
		    uint64_t max, uint64_t *out)
{
	const char *s;
	uint64_t u;
	int64_t i;
	size_t n;

	if (cj_type(v) == CJ_NUMBER) {
		if (cj_int(v, &i))
			return cerr(c, "expected an integer");
		if (i < 0 || (uint64_t)i < min || (uint64_t)i > max)
			return cerr(c,
				    "%" PRId64 " is out of range (%" PRIu64
				    "..%" PRIu64 ")",
				    i, min, max);
		*out = (uint64_t)i;
		return 0;
	}
	if (cj_type(v) == CJ_STRING) {
		char q[48];

		s = cj_str(v, &n);
		cj_quote(q, sizeof(q), s, n);
		if (parse_dec(s, n, UINT64_MAX, &u))
			return cerr(c, "%s is not a decimal number", q);
		if (u < min || u > max)
			return cerr(c,
				    "%s is out of range (%" PRIu64 "..%" PRIu64
				    ")",
				    q, min, max);
		*out = u;
		return 0;
	}
	return cerr(c, "expected a number, found %s", cj_type_name(cj_type(v)));
}

/* true/false, 0/1 or "0"/"1". */
static int get_bool(struct cfg *c, const struct json_object *v, bool *out)
{
	uint64_t u;

	if (!cj_bool(v, out))
		return 0;
	if (cj_type(v) != CJ_NUMBER && cj_type(v) != CJ_STRING)
		return cerr(c, "expected 0 or 1, found %s",
			    cj_type_name(cj_type(v)));
	if (get_uint(c, v, 0, 1, &u))
		return -1;
	*out = u;
	return 0;
}

/* A member of an attribute group that must be off ("0", 0, false, "");
 * why says what on would need. */
static int want_off(struct cfg *c, const struct json_object *grp,
		    const char *key, const char *why)
{
	const struct json_object *v = cj_get(grp, key);
	size_t old, len;
	bool on;

	if (!v || (cj_str(v, &len) && !len))
		return 0;
	old = push_key(c, key);
	if (get_bool(c, v, &on))
		return -1;
	if (on)
		return cerr(c, "%s", why);
	pop(c, old);
	return 0;
}

/* A port parameter (nvmet's param_*): a number in min..max, or -1 (what
 * configfs shows until the port is enabled: the transport's default,
 * which *out already holds). Absent or empty leaves *out as is. */
static int get_port_param(struct cfg *c, const struct json_object *grp,
			  const char *key, uint64_t min, uint64_t max,
			  uint32_t *out)
{
	const struct json_object *v = cj_get(grp, key);
	const char *s;
	size_t old, len;
	uint64_t u;
	int64_t i;

	if (!v || (cj_str(v, &len) && !len))
		return 0;
	old = push_key(c, key);
	if ((cj_type(v) == CJ_NUMBER && !cj_int(v, &i) && i == -1) ||
	    ((s = cj_str(v, &len)) && len == 2 && !memcmp(s, "-1", 2))) {
		pop(c, old);
		return 0;
	}
	if (get_uint(c, v, min, max, &u))
		return -1;
	*out = (uint32_t)u;
	pop(c, old);
	return 0;
}

/* A printable ASCII attribute (serial, model, firmware) of at most
 * size - 1 characters into out; absent or empty leaves out as is. */
static int get_ascii_attr(struct cfg *c, const struct json_object *grp,
			  const char *key, char *out, size_t size)
{
	const struct json_object *v = cj_get(grp, key);
	const char *s;
	size_t old, len, i;

	if (!v)
		return 0;
	old = push_key(c, key);
	if (get_str(c, v, size - 1, &s, &len))
		return -1;
	for (i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return cerr(c, "not printable ASCII");
	if (len)
		memcpy(out, s, len + 1);
	pop(c, old);
	return 0;
}

/* Sorting names (NQNs) to find duplicates and look names up. */
struct name_ref {
	const char *name;
	size_t idx; /* position in the JSON array */
};

static int cmp_name_ref(const void *pa, const void *pb)
{
	const struct name_ref *a = pa, *b = pb;
	int r = strcmp(a->name, b->name);

	if (r)
		return r;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Sort refs; -1 if a name is there twice, *dup then the JSON index of
 * the earliest second occurrence. */
static int sort_names(struct name_ref *refs, size_t n, size_t *dup)
{
	size_t i;

	*dup = SIZE_MAX;
	if (n < 2)
		return 0;
	qsort(refs, n, sizeof(*refs), cmp_name_ref);
	for (i = 1; i < n; i++)
		if (!strcmp(refs[i - 1].name, refs[i].name) &&
		    refs[i].idx < *dup)
			*dup = refs[i].idx;
	return *dup == SIZE_MAX ? 0 : -1;
}

static const struct name_ref *find_name(const struct name_ref *refs, size_t n,
					const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(name, refs[mid].name);

		if (!r)
			return &refs[mid];
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* An NQN string value into out (TGT_NQN_MAX + 1). */
static int get_nqn(struct cfg *c, const struct json_object *v, char *out)
{
	const char *s, *why;
	size_t len;
	char q[80];

	if (get_str(c, v, 4096, &s, &len))
		return -1;
	why = nqn_problem(s, len);
	if (why) {
		cj_quote(q, sizeof(q), s, len);
		return cerr(c, "%s: %s", q, why);
	}
	memcpy(out, s, len + 1);
	return 0;
}

/* A required member: pushes its key (the caller pops). */
static const struct json_object *
need(struct cfg *c, const struct json_object *obj, const char *key, size_t *old)
{
	const struct json_object *v = cj_get(obj, key);

	if (!v) {
		cerr(c, "missing \"%s\"", key);
		return NULL;
	}
	*old = push_key(c, key);
	return v;
}

/* "discovery": {"nqn": ...}, the root's attribute group. */
static int load_discovery(struct cfg *c, const struct json_object *v)
{
	const struct json_object *nqn;
	char buf[TGT_NQN_MAX + 1];
	size_t old;

	if (want(c, v, CJ_OBJECT))
		return -1;
	nqn = cj_get(v, "nqn");
	if (!nqn)
		return 0;
	old = push_key(c, "nqn");
	if (get_nqn(c, nqn, buf))
		return -1;
	/* nvmet answers to the configured name and the well-known one */
	memcpy(c->t->disc.nqn, buf, sizeof(buf));
	pop(c, old);
	return 0;
}

/* A host's "dhchap" group: nvmetcli dumps it with the secrets unset
 * (configfs reads them back as ""); a set one asks for authentication. */
static int check_dhchap(struct cfg *c, const struct json_object *dh)
{
	static const char *const secrets[] = { "key", "ctrl_key" };
	const struct json_object *v;
	const char *s;
	size_t k, len, old;

	if (want(c, dh, CJ_OBJECT))
		return -1;
	for (k = 0; k < 2; k++) {
		v = cj_get(dh, secrets[k]);
		if (!v)
			continue;
		old = push_key(c, secrets[k]);
		if (get_str(c, v, 4096, &s, &len))
			return -1;
		if (len)
			return cerr(c, "DH-HMAC-CHAP authentication is not "
				       "supported");
		pop(c, old);
	}
	return 0;
}

/* "hosts": [{"nqn": ..., "dhchap": {...}}]: refs point into the tree. */
static int load_hosts(struct cfg *c, const struct json_object *arr,
		      struct name_ref **refs, size_t *nr)
{
	static const char *const keys[] = { "nqn", "dhchap", NULL };
	size_t i, n = cj_count(arr), dup;

	*refs = NULL;
	*nr = 0;
	if (want(c, arr, CJ_ARRAY))
		return -1;
	if (!n)
		return 0;
	*refs = calloc(n, sizeof(**refs));
	if (!*refs)
		return cerr(c, "out of memory");
	for (i = 0; i < n; i++) {
		const struct json_object *h = cj_at(arr, i), *v, *dh;
		char nqn[TGT_NQN_MAX + 1];
		size_t old = push_idx(c, i), o2;

		if (want(c, h, CJ_OBJECT) || check_keys(c, h, keys))
			return -1;
		v = need(c, h, "nqn", &o2);
		if (!v || get_nqn(c, v, nqn))
			return -1;
		pop(c, o2);
		dh = cj_get(h, "dhchap");
		if (dh) {
			o2 = push_key(c, "dhchap");
			if (check_dhchap(c, dh))
				return -1;
			pop(c, o2);
		}
		(*refs)[i].name = cj_str(cj_get(h, "nqn"), NULL);
		(*refs)[i].idx = i;
		pop(c, old);
	}
	*nr = n;
	if (sort_names(*refs, n, &dup)) {
		push_idx(c, dup);
		push_key(c, "nqn");
		return cerr(c, "host \"%s\" defined twice",
			    cj_str(cj_get(cj_at(arr, dup), "nqn"), NULL));
	}
	return 0;
}

/*
 * device.uuid (8-4-4-4-12 hex digits), device.nguid (32, '-' allowed:
 * nvmetcli writes it as a UUID) or device.eui64 (16) into out, nbytes
 * long. All zero means none, as in nvmet; absent leaves *has alone.
 */
static int get_dev_id(struct cfg *c, const struct json_object *dev,
		      const char *key, uint8_t *out, size_t nbytes, bool *has)
{
	const struct json_object *v = cj_get(dev, key);
	const char *str;
	size_t len, old;
	char q[80];
	int bad;

	if (!v)
		return 0;
	old = push_key(c, key);
	if (get_str(c, v, 64, &str, &len))
		return -1;
	if (!strcmp(key, "uuid"))
		bad = parse_uuid(str, len, out);
	else
		bad = parse_hex_id(str, len, out, nbytes);
	if (bad) {
		cj_quote(q, sizeof(q), str, len);
		if (!strcmp(key, "uuid"))
			return cerr(c, "%s is not a UUID (8-4-4-4-12 hex)", q);
		return cerr(c, "%s is not %s (%zu hex digits)", q,
			    nbytes == 16 ? "an NGUID" : "an EUI-64",
			    nbytes * 2);
	}
	*has = !all_zero(out, nbytes);
	pop(c, old);
	return 0;
}

/* One namespace into ns (its nsid checked by the caller for duplicates). */
static int load_ns(struct cfg *c, struct tgt_subsys *s,
		   const struct json_object *o, struct tgt_ns *ns)
{
	static const char *const keys[] = { "nsid", "enable", "device",
					    "ana",  "resv",   "ana_grpid",
					    NULL };
	const struct json_object *v, *dev;
	const char *str;
	size_t old, len;
	uint64_t u;

	if (want(c, o, CJ_OBJECT) || check_keys(c, o, keys))
		return -1;
	v = cj_get(o, "nsid");
	if (!v)
		return cerr(c, "missing \"nsid\"");
	old = push_key(c, "nsid");
	if (get_uint(c, v, 0, UINT64_MAX, &u))
		return -1;
	if (u < 1 || u > TGT_MAX_NS)
		return cerr(c, "%" PRIu64 " is not a valid NSID (1..%u)", u,
			    TGT_MAX_NS);
	ns->nsid = (uint32_t)u;
	pop(c, old);

	/* nvmet's default: a namespace is disabled until enabled */
	v = cj_get(o, "enable");
	if (v) {
		old = push_key(c, "enable");
		if (get_bool(c, v, &ns->enabled))
			return -1;
		pop(c, old);
	}

	v = cj_get(o, "ana_grpid");
	if (v) {
		old = push_key(c, "ana_grpid");
		if (get_uint(c, v, 1, TGT_MAX_ANA_GROUPS, &u))
			return -1;
		ns->anagrpid = (uint32_t)u;
		pop(c, old);
	}
	v = cj_get(o, "ana");
	if (v) {
		old = push_key(c, "ana");
		if (want(c, v, CJ_OBJECT))
			return -1;
		pop(c, old);
	}
	v = cj_get(o, "resv");
	if (v) {
		old = push_key(c, "resv");
		if (want(c, v, CJ_OBJECT) ||
		    want_off(c, v, "enable",
			     "persistent reservations are not "
			     "supported"))
			return -1;
		pop(c, old);
	}

	dev = cj_get(o, "device");
	if (!dev) {
		if (ns->enabled)
			return cerr(c, "missing \"device\"");
		goto ids;
	}
	old = push_key(c, "device");
	if (want(c, dev, CJ_OBJECT))
		return -1;
	v = cj_get(dev, "path");
	if (v) {
		size_t o2 = push_key(c, "path");

		if (get_str(c, v, 4096, &str, &len))
			return -1;
		if (len) {
			ns->uri = strdup(str);
			if (!ns->uri)
				return cerr(c, "out of memory");
		}
		pop(c, o2);
	}
	if (ns->enabled && !ns->uri)
		return cerr(c, "an enabled namespace needs a \"path\"");
	if (get_dev_id(c, dev, "uuid", ns->uuid, 16, &ns->has_uuid) ||
	    get_dev_id(c, dev, "nguid", ns->nguid, 16, &ns->has_nguid) ||
	    get_dev_id(c, dev, "eui64", ns->eui64, 8, &ns->has_eui64))
		return -1;
	if (!cj_get(dev, "uuid")) {
		/* nvmet would make a random one: ours is stable */
		derive_uuid(s->nqn, ns->nsid, ns->uuid);
		ns->has_uuid = true;
	}
	/* buffered_io, p2pmem...: how nvmet opens the device, not what a
	 * host sees; other device attributes are ignored alike */
	pop(c, old);
	return 0;

ids:
	derive_uuid(s->nqn, ns->nsid, ns->uuid);
	ns->has_uuid = true;
	return 0;
}

static int cmp_ns(const void *pa, const void *pb)
{
	const struct tgt_ns *a = pa, *b = pb;

	return (a->nsid > b->nsid) - (a->nsid < b->nsid);
}

static int load_namespaces(struct cfg *c, struct tgt_subsys *s,
			   const struct json_object *arr)
{
	size_t i, n = cj_count(arr);
	uint16_t *seen; /* nsid -> JSON index + 1 */

	if (want(c, arr, CJ_ARRAY))
		return -1;
	if (n > TGT_MAX_NS)
		return cerr(c, "more than %u namespaces", TGT_MAX_NS);
	if (!n)
		return 0;
	s->ns = calloc(n, sizeof(*s->ns));
	seen = calloc(TGT_MAX_NS + 1, sizeof(*seen));
	if (!s->ns || !seen) {
		free(seen);
		return cerr(c, "out of memory");
	}
	for (i = 0; i < n; i++) {
		struct tgt_ns *ns = &s->ns[i];
		size_t old = push_idx(c, i);

		/* counted first: a half-loaded one still has its uri freed */
		s->nr_ns++;
		if (load_ns(c, s, cj_at(arr, i), ns))
			goto out_free;
		if (seen[ns->nsid]) {
			push_key(c, "nsid");
			cerr(c, "NSID %u already used by namespaces[%u]",
			     ns->nsid, seen[ns->nsid] - 1);
			goto out_free;
		}
		seen[ns->nsid] = (uint16_t)(i + 1);
		pop(c, old);
	}
	free(seen);
	qsort(s->ns, s->nr_ns, sizeof(*s->ns), cmp_ns);
	return 0;

out_free:
	free(seen);
	return -1;
}

/* Attribute group "attr" of a subsystem. */
static int load_subsys_attr(struct cfg *c, struct tgt_subsys *s,
			    const struct json_object *attr)
{
	const struct json_object *v;
	uint64_t u;
	size_t old;

	if (want(c, attr, CJ_OBJECT))
		return -1;
	v = cj_get(attr, "allow_any_host");
	if (v) {
		old = push_key(c, "allow_any_host");
		if (get_bool(c, v, &s->allow_any_host))
			return -1;
		pop(c, old);
	}
	if (get_ascii_attr(c, attr, "serial", s->serial, sizeof(s->serial)) ||
	    get_ascii_attr(c, attr, "model", s->model, sizeof(s->model)) ||
	    get_ascii_attr(c, attr, "firmware", s->firmware,
			   sizeof(s->firmware)))
		return -1;
	v = cj_get(attr, "cntlid_min");
	if (v) {
		old = push_key(c, "cntlid_min");
		if (get_uint(c, v, 1, CNTLID_MAX, &u))
			return -1;
		s->cntlid_min = (uint16_t)u;
		pop(c, old);
	}
	v = cj_get(attr, "cntlid_max");
	if (v) {
		old = push_key(c, "cntlid_max");
		if (get_uint(c, v, 1, CNTLID_MAX, &u))
			return -1;
		s->cntlid_max = (uint16_t)u;
		pop(c, old);
	}
	if (s->cntlid_min > s->cntlid_max) {
		old = push_key(c, "cntlid_min");
		return cerr(c, "%u is above cntlid_max %u", s->cntlid_min,
			    s->cntlid_max);
	}
	if (want_off(c, attr, "pi_enable",
		     "protection information is not supported"))
		return -1;
	/* version, qid_max, ieee_oui and newer attributes: accepted and
	 * ignored (mqblk reports its own version and queue limits) */
	return 0;
}

/* "passthru": nvmetcli dumps it, disabled, wherever the kernel has it. */
static int load_passthru(struct cfg *c, const struct json_object *arr)
{
	size_t i;

	if (want(c, arr, CJ_ARRAY))
		return -1;
	for (i = 0; i < cj_count(arr); i++) {
		const struct json_object *p = cj_at(arr, i), *v;
		size_t old = push_idx(c, i), o2;
		bool on;

		if (want(c, p, CJ_OBJECT))
			return -1;
		v = cj_get(p, "enable");
		if (v) {
			o2 = push_key(c, "enable");
			if (get_bool(c, v, &on))
				return -1;
			if (on)
				return cerr(c, "passthru is not supported");
			pop(c, o2);
		}
		pop(c, old);
	}
	return 0;
}

static int load_subsys(struct cfg *c, struct tgt_subsys *s,
		       const struct json_object *o,
		       const struct name_ref *hosts, size_t nr_hosts)
{
	static const char *const keys[] = { "nqn",	  "attr",
					    "namespaces", "allowed_hosts",
					    "passthru",	  NULL };
	const struct json_object *v, *arr;
	struct name_ref *refs = NULL;
	size_t old, i, n, dup;
	char q[80];

	if (want(c, o, CJ_OBJECT) || check_keys(c, o, keys))
		return -1;
	v = need(c, o, "nqn", &old);
	if (!v || get_nqn(c, v, s->nqn))
		return -1;
	if (is_disc_nqn(c->t, s->nqn))
		return cerr(
			c,
			"\"%s\" is the discovery subsystem's NQN (built in, "
			"not configurable)",
			s->nqn);
	pop(c, old);
	subsys_defaults(s);

	v = cj_get(o, "attr");
	if (v) {
		old = push_key(c, "attr");
		if (load_subsys_attr(c, s, v))
			return -1;
		pop(c, old);
	}
	s->next_cntlid = s->cntlid_min;

	v = cj_get(o, "passthru");
	if (v) {
		old = push_key(c, "passthru");
		if (load_passthru(c, v))
			return -1;
		pop(c, old);
	}

	arr = cj_get(o, "allowed_hosts");
	n = cj_count(arr);
	if (arr) {
		old = push_key(c, "allowed_hosts");
		if (want(c, arr, CJ_ARRAY))
			return -1;
		if (n && s->allow_any_host)
			return cerr(c, "hosts listed while attr.allow_any_host "
				       "is 1 (nvmet refuses both)");
		s->hosts = n ? calloc(n, sizeof(*s->hosts)) : NULL;
		refs = n ? calloc(n, sizeof(*refs)) : NULL;
		if (n && (!s->hosts || !refs)) {
			free(refs);
			return cerr(c, "out of memory");
		}
		for (i = 0; i < n; i++) {
			struct tgt_host *h = &s->hosts[i];
			size_t o2 = push_idx(c, i);

			if (get_nqn(c, cj_at(arr, i), h->nqn))
				goto out_free;
			if (!find_name(hosts, nr_hosts, h->nqn)) {
				cj_quote(q, sizeof(q), h->nqn, strlen(h->nqn));
				cerr(c, "host %s is not defined in \"hosts\"",
				     q);
				goto out_free;
			}
			refs[i].name = h->nqn;
			refs[i].idx = i;
			s->nr_hosts++;
			pop(c, o2);
		}
		if (sort_names(refs, n, &dup)) {
			push_idx(c, dup);
			cerr(c, "host \"%s\" listed twice", s->hosts[dup].nqn);
			goto out_free;
		}
		free(refs);
		refs = NULL;
		pop(c, old);
	}

	v = cj_get(o, "namespaces");
	if (v) {
		old = push_key(c, "namespaces");
		if (load_namespaces(c, s, v))
			return -1;
		pop(c, old);
	}
	return 0;

out_free:
	free(refs);
	return -1;
}

/* "addr" of a port: a TCP listener we can open. */
static int load_port_addr(struct cfg *c, struct tgt_port *p,
			  const struct json_object *addr)
{
	const struct json_object *v;
	const char *s;
	size_t len, old;
	unsigned char bin[16];
	uint64_t u;
	char q[80];

	if (want(c, addr, CJ_OBJECT))
		return -1;

	v = need(c, addr, "trtype", &old);
	if (!v || get_str(c, v, 64, &s, &len))
		return -1;
	if (strcmp(s, "tcp")) {
		cj_quote(q, sizeof(q), s, len);
		return cerr(c, "transport %s is not supported (only \"tcp\")",
			    q);
	}
	pop(c, old);

	v = need(c, addr, "adrfam", &old);
	if (!v || get_str(c, v, 64, &s, &len))
		return -1;
	if (!strcmp(s, "ipv4")) {
		p->adrfam = NVMF_ADDR_FAMILY_IP4;
	} else if (!strcmp(s, "ipv6")) {
		p->adrfam = NVMF_ADDR_FAMILY_IP6;
	} else {
		cj_quote(q, sizeof(q), s, len);
		return cerr(c,
			    "address family %s is not supported (ipv4 or "
			    "ipv6)",
			    q);
	}
	pop(c, old);

	v = need(c, addr, "traddr", &old);
	if (!v || get_str(c, v, sizeof(p->traddr) - 1, &s, &len))
		return -1;
	if (inet_pton(p->adrfam == NVMF_ADDR_FAMILY_IP4 ? AF_INET : AF_INET6, s,
		      bin) != 1) {
		cj_quote(q, sizeof(q), s, len);
		return cerr(c, "%s is not an %s address", q,
			    p->adrfam == NVMF_ADDR_FAMILY_IP4 ? "IPv4" :
								"IPv6");
	}
	memcpy(p->traddr, s, len + 1);
	pop(c, old);

	v = need(c, addr, "trsvcid", &old);
	if (!v || get_uint(c, v, 1, 65535, &u))
		return -1;
	snprintf(p->trsvcid, sizeof(p->trsvcid), "%u", (unsigned)u);
	pop(c, old);

	/* treq "required" / tsas "tls1.3": a secure channel (TLS) */
	v = cj_get(addr, "treq");
	if (v) {
		old = push_key(c, "treq");
		if (get_str(c, v, 64, &s, &len))
			return -1;
		if (len && strcmp(s, "not specified") &&
		    strcmp(s, "not required")) {
			cj_quote(q, sizeof(q), s, len);
			return cerr(c,
				    "%s: a secure channel (TLS) is not "
				    "supported",
				    q);
		}
		pop(c, old);
	}
	v = cj_get(addr, "tsas");
	if (v) {
		old = push_key(c, "tsas");
		if (get_str(c, v, 64, &s, &len))
			return -1;
		if (len && strcmp(s, "none")) {
			cj_quote(q, sizeof(q), s, len);
			return cerr(c, "%s: TLS is not supported", q);
		}
		pop(c, old);
	}
	return 0;
}

/*
 * A port's "ana_groups": [{"grpid": N, "ana": {"state": "..."}}, ...],
 * nvmetcli's dump of configfs ports/N/ana_groups/G/ana_state. A group
 * named here exists (in the ANA log) even with no namespace in it.
 */
static int load_ana_groups(struct cfg *c, struct tgt_port *p,
			   const struct json_object *arr)
{
	static const char *const keys[] = { "grpid", "ana", NULL };
	static const char *const akeys[] = { "state", NULL };
	bool seen[TGT_MAX_ANA_GROUPS + 1] = { false };
	size_t i, n = cj_count(arr), old;

	if (want(c, arr, CJ_ARRAY))
		return -1;
	for (i = 0; i < n; i++) {
		const struct json_object *g = cj_at(arr, i), *v, *a;
		size_t o2 = push_idx(c, i), o3;
		const char *str;
		size_t len;
		uint64_t u;
		uint8_t state = NVME_ANA_OPTIMIZED;
		char q[80];

		if (want(c, g, CJ_OBJECT) || check_keys(c, g, keys))
			return -1;
		v = need(c, g, "grpid", &old);
		if (!v || get_uint(c, v, 1, TGT_MAX_ANA_GROUPS, &u))
			return -1;
		if (seen[u])
			return cerr(c, "ANA group %" PRIu64 " listed twice", u);
		seen[u] = true;
		pop(c, old);
		a = cj_get(g, "ana");
		if (a) {
			old = push_key(c, "ana");
			if (want(c, a, CJ_OBJECT) || check_keys(c, a, akeys))
				return -1;
			v = cj_get(a, "state");
			if (v) {
				o3 = push_key(c, "state");
				if (get_str(c, v, 64, &str, &len))
					return -1;
				state = nvme_ana_state_parse(str, len);
				if (!state) {
					cj_quote(q, sizeof(q), str, len);
					return cerr(
						c,
						"%s: not an ANA state "
						"(optimized, non-optimized, "
						"inaccessible, "
						"persistent-loss, change)",
						q);
				}
				pop(c, o3);
			}
			pop(c, old);
		}
		atomic_store(&p->ana_state[u], state);
		c->t->ana_group_used[u] = true;
		pop(c, o2);
	}
	return 0;
}

static int load_port(struct cfg *c, struct tgt_port *p,
		     const struct json_object *o, const struct name_ref *subsys,
		     size_t nr_subsys)
{
	static const char *const keys[] = {
		"portid",    "addr",	   "param", "subsystems",
		"referrals", "ana_groups", NULL,
	};
	const struct json_object *v, *arr;
	struct name_ref *refs = NULL;
	size_t old, i, n, dup;
	uint64_t u;

	port_ana_init(p);
	if (want(c, o, CJ_OBJECT) || check_keys(c, o, keys))
		return -1;
	v = need(c, o, "portid", &old);
	if (!v || get_uint(c, v, 0, 65535, &u))
		return -1;
	p->portid = (uint16_t)u;
	pop(c, old);

	v = need(c, o, "addr", &old);
	if (!v || load_port_addr(c, p, v))
		return -1;
	pop(c, old);

	p->inline_data = TGT_INLINE_DATA;
	p->max_queue_size = TGT_MAX_QUEUE_DEPTH;
	v = cj_get(o, "param");
	if (v) {
		static const char *const pkeys[] = {
			"inline_data_size",
			"max_queue_size",
			"pi_enable",
			NULL,
		};

		old = push_key(c, "param");
		if (want(c, v, CJ_OBJECT) || check_keys(c, v, pkeys) ||
		    get_port_param(c, v, "inline_data_size", 0,
				   TGT_MAX_INLINE_DATA, &p->inline_data) ||
		    get_port_param(c, v, "max_queue_size", TGT_MIN_QUEUE_DEPTH,
				   TGT_MAX_QUEUE_DEPTH, &p->max_queue_size) ||
		    want_off(c, v, "pi_enable",
			     "protection information is not supported"))
			return -1;
		pop(c, old);
	}
	/* referrals: the discovery log does not report them */
	v = cj_get(o, "referrals");
	if (v) {
		old = push_key(c, "referrals");
		if (want(c, v, CJ_ARRAY))
			return -1;
		pop(c, old);
	}
	v = cj_get(o, "ana_groups");
	if (v) {
		old = push_key(c, "ana_groups");
		if (load_ana_groups(c, p, v))
			return -1;
		pop(c, old);
	}

	arr = cj_get(o, "subsystems");
	if (!arr)
		return 0;
	old = push_key(c, "subsystems");
	if (want(c, arr, CJ_ARRAY))
		return -1;
	n = cj_count(arr);
	if (!n)
		goto out;
	p->subsys = calloc(n, sizeof(*p->subsys));
	refs = calloc(n, sizeof(*refs));
	if (!p->subsys || !refs) {
		free(refs);
		return cerr(c, "out of memory");
	}
	for (i = 0; i < n; i++) {
		const struct name_ref *r;
		const char *s;
		size_t o2 = push_idx(c, i), len;
		char q[80];

		if (get_str(c, cj_at(arr, i), 4096, &s, &len))
			goto out_free;
		r = find_name(subsys, nr_subsys, s);
		if (!r) {
			cj_quote(q, sizeof(q), s, len);
			cerr(c, "subsystem %s is not defined in \"subsystems\"",
			     q);
			goto out_free;
		}
		p->subsys[p->nr_subsys++] = c->t->subsys[r->idx];
		refs[i].name = s;
		refs[i].idx = i;
		pop(c, o2);
	}
	if (sort_names(refs, n, &dup)) {
		push_idx(c, dup);
		cerr(c, "subsystem \"%s\" linked twice", p->subsys[dup]->nqn);
		goto out_free;
	}
	free(refs);
out:
	pop(c, old);
	return 0;

out_free:
	free(refs);
	return -1;
}

static bool same_addr(const struct tgt_port *a, const struct tgt_port *b)
{
	return a->adrfam == b->adrfam && !strcmp(a->traddr, b->traddr) &&
	       !strcmp(a->trsvcid, b->trsvcid);
}

/* By address, then by position in t->ports. */
static int cmp_port_addr(const void *pa, const void *pb)
{
	const struct tgt_port *a = *(const struct tgt_port *const *)pa;
	const struct tgt_port *b = *(const struct tgt_port *const *)pb;
	int r;

	if (a->adrfam != b->adrfam)
		return a->adrfam < b->adrfam ? -1 : 1;
	r = strcmp(a->traddr, b->traddr);
	if (!r)
		r = strcmp(a->trsvcid, b->trsvcid);
	if (r)
		return r;
	return (a > b) - (a < b);
}

/* Two ports with one portid, or one address: the later one is refused. */
static int check_ports(struct cfg *c)
{
	struct tgt *t = c->t;
	uint32_t *first; /* portid -> index + 1 */
	struct tgt_port **byaddr;
	unsigned i, later, earlier = 0;
	int ret = 0;

	first = calloc(65536, sizeof(*first));
	if (!first)
		return cerr(c, "out of memory");
	for (i = 0; i < t->nr_ports && !ret; i++) {
		struct tgt_port *p = &t->ports[i];

		if (first[p->portid]) {
			push_key(c, "ports");
			push_idx(c, i);
			push_key(c, "portid");
			ret = cerr(c, "port %u already defined by ports[%u]",
				   p->portid, first[p->portid] - 1);
		}
		first[p->portid] = i + 1;
	}
	free(first);
	if (ret)
		return ret;

	/* one address and service twice: sorted, the pair with the earliest
	 * later port is named */
	if (t->nr_ports < 2)
		return 0;
	byaddr = calloc(t->nr_ports, sizeof(*byaddr));
	if (!byaddr)
		return cerr(c, "out of memory");
	for (i = 0; i < t->nr_ports; i++)
		byaddr[i] = &t->ports[i];
	qsort(byaddr, t->nr_ports, sizeof(*byaddr), cmp_port_addr);
	later = t->nr_ports;
	for (i = 1; i < t->nr_ports; i++) {
		unsigned b = (unsigned)(byaddr[i] - t->ports);

		if (!same_addr(byaddr[i - 1], byaddr[i]) || b >= later)
			continue;
		later = b;
		earlier = (unsigned)(byaddr[i - 1] - t->ports);
	}
	free(byaddr);
	if (later == t->nr_ports)
		return 0;
	push_key(c, "ports");
	push_idx(c, later);
	push_key(c, "addr");
	return cerr(c, "%s port %s already used by ports[%u]",
		    t->ports[later].traddr, t->ports[later].trsvcid, earlier);
}

static int load_root(struct cfg *c, const struct json_object *root)
{
	static const char *const keys[] = { "discovery", "hosts", "ports",
					    "subsystems", NULL };
	struct tgt *t = c->t;
	struct name_ref *hosts = NULL, *subsys = NULL;
	const struct json_object *v;
	size_t nr_hosts = 0, i, n, old, dup;
	int ret = -1;

	if (cj_type(root) != CJ_OBJECT)
		return cerr(c, "expected an object at the top, found %s",
			    cj_type_name(cj_type(root)));
	if (check_keys(c, root, keys))
		return -1;

	v = cj_get(root, "discovery");
	if (v) {
		old = push_key(c, "discovery");
		if (load_discovery(c, v))
			return -1;
		pop(c, old);
	}

	v = cj_get(root, "hosts");
	if (v) {
		old = push_key(c, "hosts");
		if (load_hosts(c, v, &hosts, &nr_hosts))
			goto out;
		pop(c, old);
	}

	v = cj_get(root, "subsystems");
	n = cj_count(v);
	if (v) {
		old = push_key(c, "subsystems");
		if (want(c, v, CJ_ARRAY))
			goto out;
		if (n) {
			t->subsys = calloc(n, sizeof(*t->subsys));
			subsys = calloc(n, sizeof(*subsys));
			if (!t->subsys || !subsys) {
				cerr(c, "out of memory");
				goto out;
			}
		}
		for (i = 0; i < n; i++) {
			struct tgt_subsys *s = subsys_new();
			size_t o2 = push_idx(c, i);

			if (!s) {
				cerr(c, "out of memory");
				goto out;
			}
			t->subsys[t->nr_subsys++] = s;
			if (load_subsys(c, s, cj_at(v, i), hosts, nr_hosts))
				goto out;
			subsys[i].name = s->nqn;
			subsys[i].idx = i;
			pop(c, o2);
		}
		if (n && sort_names(subsys, n, &dup)) {
			push_idx(c, dup);
			push_key(c, "nqn");
			cerr(c, "subsystem \"%s\" defined twice",
			     t->subsys[dup]->nqn);
			goto out;
		}
		pop(c, old);
	}

	v = cj_get(root, "ports");
	n = cj_count(v);
	if (v) {
		old = push_key(c, "ports");
		if (want(c, v, CJ_ARRAY))
			goto out;
		if (n) {
			t->ports = calloc(n, sizeof(*t->ports));
			if (!t->ports) {
				cerr(c, "out of memory");
				goto out;
			}
		}
		for (i = 0; i < n; i++) {
			struct tgt_port *p = &t->ports[i];
			size_t o2 = push_idx(c, i);

			p->listen_fd = -1;
			t->nr_ports++;
			if (load_port(c, p, cj_at(v, i), subsys, t->nr_subsys))
				goto out;
			pop(c, o2);
		}
		pop(c, old);
	}
	if (!t->nr_ports) {
		cerr(c, "no ports: nothing to listen on");
		goto out;
	}
	ret = check_ports(c);
out:
	free(hosts);
	free(subsys);
	return ret;
}

int tgt_config_load_buf(struct tgt *t, const char *name, const char *buf,
			size_t len, char *err, size_t errlen)
{
	struct cfg c = {
		.t = t,
		.name = name,
		.err = err,
		.errlen = errlen,
	};
	struct json_object *root;
	char jerr[256];

	free_model(t);
	if (!t->stall_ms)
		t->stall_ms = DEFAULT_STALL_MS;
	if (cj_parse(buf, len, &root, jerr, sizeof(jerr))) {
		snprintf(err, errlen, "%s:%s", name, jerr);
		return -1;
	}
	if (disc_init(t)) {
		cj_free(root);
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	if (load_root(&c, root)) {
		cj_free(root);
		free_model(t);
		return -1;
	}
	cj_free(root);
	ana_finish(t);
	return 0;
}

int tgt_config_load(struct tgt *t, const char *path, char *err, size_t errlen)
{
	size_t len;
	char *buf;
	int ret;

	if (cj_read_file(path, &buf, &len, err, errlen)) {
		free_model(t);
		return -1;
	}
	ret = tgt_config_load_buf(t, path, buf, len, err, errlen);
	free(buf);
	return ret;
}

/* ---- Ports by name ------------------------------------------------------ */

static bool all_digits(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return len > 0;
}

struct tgt_port *tgt_port_find(struct tgt *t, const char *spec, size_t len,
			       char *err, size_t errlen)
{
	char q[80], name[128];
	uint64_t id;
	unsigned i;

	cj_quote(q, sizeof(q), spec, len);
	if (all_digits(spec, len)) {
		if (!parse_dec(spec, len, 65535, &id))
			for (i = 0; i < t->nr_ports; i++)
				if (t->ports[i].portid == id)
					return &t->ports[i];
		snprintf(err, errlen, "%s: no port with that ID", q);
		return NULL;
	}
	for (i = 0; i < t->nr_ports; i++) {
		const struct tgt_port *p = &t->ports[i];

		if (p->adrfam == NVMF_ADDR_FAMILY_IP6)
			snprintf(name, sizeof(name), "[%s]:%s", p->traddr,
				 p->trsvcid);
		else
			snprintf(name, sizeof(name), "%s:%s", p->traddr,
				 p->trsvcid);
		if (strlen(name) == len && !memcmp(name, spec, len))
			return &t->ports[i];
	}
	snprintf(err, errlen,
		 "%s: no such port (a port ID, or ADDR:PORT as --listen "
		 "gave it)",
		 q);
	return NULL;
}

/* ---- Command line -------------------------------------------------------- */

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
	OPT_STATS_SOCKET,
	OPT_VERBOSE,
	OPT_BUSY_POLL,
	OPT_INLINE_DATA_SIZE,
	OPT_MAX_QUEUE_SIZE,
	OPT_COALESCE_COUNT,
	OPT_COALESCE_USECS,
	OPT_ZEROCOPY,
	OPT_ANA_GROUP,
	OPT_ANA,
	OPT_CTL,
	OPT_ANATT,
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
	{ "stats-socket", 0, true, false, OPT_STATS_SOCKET },
	{ "verbose", 'v', false, true, OPT_VERBOSE },
	{ "busy-poll", 0, false, false, OPT_BUSY_POLL },
	{ "inline-data-size", 0, true, false, OPT_INLINE_DATA_SIZE },
	{ "max-queue-size", 0, true, false, OPT_MAX_QUEUE_SIZE },
	{ "coalesce-count", 0, true, false, OPT_COALESCE_COUNT },
	{ "coalesce-usecs", 0, true, false, OPT_COALESCE_USECS },
	{ "zerocopy", 0, true, false, OPT_ZEROCOPY },
	{ "ana-group", 0, true, true, OPT_ANA_GROUP },
	{ "ana", 0, true, true, OPT_ANA },
	{ "ctl", 0, true, false, OPT_CTL },
	{ "anatt", 0, true, false, OPT_ANATT },
	{ "help", 'h', false, true, OPT_HELP },
};

#define NR_OPTS (sizeof(opts) / sizeof(opts[0]))
#define MAX_REACTORS 1024
#define MAX_STALL_MS 3600000u /* an hour */
#define MAX_COALESCE_USECS 100000u /* 100 ms */

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
		"       mqblk target --stats [--stats-socket PATH]\n"
		"\n"
		"An NVMe/TCP target serving mqblk devices.\n"
		"\n"
		"  --listen ADDR:PORT     address to listen on: A.B.C.D:PORT "
		"or [IPv6]:PORT;\n"
		"                         repeat for more ports (port IDs 1, "
		"2, ... in order),\n"
		"                         each a path to the same subsystem\n"
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
		"per online CPU)\n"
		"  --stall-ms MS          log a command outstanding this long "
		"(default %u)\n"
		"  --stats-socket PATH    serve per-queue counters on this UNIX "
		"socket\n"
		"                         (default /tmp/mqblk-target.sock)\n"
		"  --stats                print a running target's per-queue "
		"counters\n"
		"  --ctl PATH             serve `mqblk ctl PATH ...` on this "
		"UNIX socket (ANA\n"
		"                         states, ports down and up, stats)\n"
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
		"  -v, --verbose          log connections and controllers\n"
		"  -h, --help             this text\n"
		"\n"
		"Without --allow-host or --allow-any-host no host may connect "
		"to the subsystem\n"
		"(discovery stays open to all).\n",
		TGT_MAX_ANA_GROUPS, TGT_MAX_INLINE_DATA, TGT_INLINE_DATA,
		TGT_MIN_QUEUE_DEPTH, TGT_MAX_QUEUE_DEPTH, TGT_MAX_QUEUE_DEPTH,
		DEFAULT_STALL_MS, TGT_ANATT, TGT_MAX_QUEUE_DEPTH,
		MAX_COALESCE_USECS);
}

/* What the command line said, before it is checked and applied. */
struct args {
	const char *val[NR_OPTS]; /* single-valued options */
	bool seen[NR_OPTS];
	const char **ns; /* --ns values, in order */
	unsigned nr_ns;
	const char **hosts; /* --allow-host values */
	unsigned nr_hosts;
	const char **listens; /* --listen values, in order */
	unsigned nr_listens;
	const char **ana_groups; /* --ana-group values */
	unsigned nr_ana_groups;
	const char **anas; /* --ana values */
	unsigned nr_anas;
};

int tgt_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static const struct opt *find_opt(const char *arg, size_t len)
{
	size_t i;

	if (len == 2 && arg[0] == '-' && arg[1] != '-') {
		for (i = 0; i < NR_OPTS; i++)
			if (opts[i].short_name && opts[i].short_name == arg[1])
				return &opts[i];
		return NULL;
	}
	if (len < 3 || arg[0] != '-' || arg[1] != '-')
		return NULL;
	for (i = 0; i < NR_OPTS; i++)
		if (strlen(opts[i].name) == len - 2 &&
		    !memcmp(opts[i].name, arg + 2, len - 2))
			return &opts[i];
	return NULL;
}

/* argv into a (values point into argv). */
static int scan_args(int argc, char **argv, struct args *a, char *err,
		     size_t errlen)
{
	int i;

	a->ns = calloc((size_t)argc, sizeof(*a->ns));
	a->hosts = calloc((size_t)argc, sizeof(*a->hosts));
	a->listens = calloc((size_t)argc, sizeof(*a->listens));
	a->ana_groups = calloc((size_t)argc, sizeof(*a->ana_groups));
	a->anas = calloc((size_t)argc, sizeof(*a->anas));
	if (!a->ns || !a->hosts || !a->listens || !a->ana_groups || !a->anas)
		return tgt_err(err, errlen, "out of memory");
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq, *val = NULL;
		const struct opt *o;
		size_t len;
		char q[80];

		eq = strncmp(arg, "--", 2) ? NULL : strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		o = find_opt(arg, len);
		if (!o) {
			cj_quote(q, sizeof(q), arg, len);
			if (arg[0] != '-')
				return tgt_err(
					err, errlen,
					"unexpected argument %s (options "
					"start with --; see --help)",
					q);
			return tgt_err(err, errlen,
				       "unknown option %s (see --help)", q);
		}
		if (eq && !o->has_arg)
			return tgt_err(err, errlen, "--%s takes no value",
				       o->name);
		if (eq) {
			val = eq + 1;
		} else if (o->has_arg) {
			if (i + 1 >= argc)
				return tgt_err(err, errlen,
					       "--%s needs a value", o->name);
			val = argv[++i];
		}
		if (a->seen[o->id] && !o->repeats)
			return tgt_err(err, errlen, "--%s given twice",
				       o->name);
		a->seen[o->id] = true;
		if (o->id == OPT_NS)
			a->ns[a->nr_ns++] = val;
		else if (o->id == OPT_ALLOW_HOST)
			a->hosts[a->nr_hosts++] = val;
		else if (o->id == OPT_LISTEN)
			a->listens[a->nr_listens++] = val;
		else if (o->id == OPT_ANA_GROUP)
			a->ana_groups[a->nr_ana_groups++] = val;
		else if (o->id == OPT_ANA)
			a->anas[a->nr_anas++] = val;
		else
			a->val[o->id] = val;
	}
	return 0;
}

/* A number in min..max for option name. */
static int arg_uint(const char *name, const char *s, uint64_t min, uint64_t max,
		    uint64_t *out, char *err, size_t errlen)
{
	char q[80];

	cj_quote(q, sizeof(q), s, strlen(s));
	if (parse_dec(s, strlen(s), UINT64_MAX, out))
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

/* A.B.C.D:PORT or [IPv6]:PORT into p. */
static int parse_listen(const char *s, struct tgt_port *p, char *err,
			size_t errlen)
{
	const char *addr, *colon;
	size_t alen;
	unsigned char bin[16];
	uint64_t port;
	char q[80];

	cj_quote(q, sizeof(q), s, strlen(s));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return tgt_err(err, errlen,
				       "--listen: %s: expected [IPv6]:PORT", q);
		addr = s + 1;
		alen = (size_t)(close - addr);
		colon = close + 1;
		p->adrfam = NVMF_ADDR_FAMILY_IP6;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return tgt_err(err, errlen,
				       "--listen: %s: expected ADDR:PORT "
				       "(A.B.C.D:PORT or [IPv6]:PORT)",
				       q);
		addr = s;
		alen = (size_t)(colon - s);
		p->adrfam = NVMF_ADDR_FAMILY_IP4;
	}
	if (alen >= sizeof(p->traddr))
		return tgt_err(err, errlen, "--listen: %s: address too long",
			       q);
	memcpy(p->traddr, addr, alen);
	p->traddr[alen] = 0;
	if (inet_pton(p->adrfam == NVMF_ADDR_FAMILY_IP4 ? AF_INET : AF_INET6,
		      p->traddr, bin) != 1)
		return tgt_err(
			err, errlen,
			p->adrfam == NVMF_ADDR_FAMILY_IP4 ?
				"--listen: %s: not an IPv4 address (IPv6: "
				"[ADDR]:PORT)" :
				"--listen: %s: not an IPv6 address",
			q);
	if (parse_dec(colon + 1, strlen(colon + 1), 65535, &port) || !port)
		return tgt_err(err, errlen,
			       "--listen: %s: the port must be 1..65535", q);
	snprintf(p->trsvcid, sizeof(p->trsvcid), "%u", (unsigned)port);
	return 0;
}

/* The command line takes an NQN as the spec writes it: "nqn." ... */
static int check_nqn_arg(const char *opt, const char *s, char *err,
			 size_t errlen)
{
	const char *why = nqn_problem(s, strlen(s));
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
	    parse_dec(arg, (size_t)(colon - arg), UINT64_MAX, &nsid) ||
	    parse_dec(colon + 1, strlen(colon + 1), UINT64_MAX, &grp))
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
	if (s->ns[nsid - 1].anagrpid)
		return tgt_err(err, errlen,
			       "--ana-group: namespace %" PRIu64 " given twice",
			       nsid);
	s->ns[nsid - 1].anagrpid = (uint32_t)grp;
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
	if (parse_dec(colon + 1, (size_t)(eq - colon - 1), UINT64_MAX, &grp) ||
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

	if (!a->nr_listens)
		strcat(missing, ", --listen");
	if (!a->val[OPT_NQN])
		strcat(missing, ", --nqn");
	if (!a->nr_ns)
		strcat(missing, ", --ns");
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

	if (disc_init(t))
		return tgt_err(err, errlen, "out of memory");
	t->subsys = calloc(1, sizeof(*t->subsys));
	s = subsys_new();
	if (!t->subsys || !s) {
		free(s);
		return tgt_err(err, errlen, "out of memory");
	}
	t->subsys[t->nr_subsys++] = s;
	snprintf(s->nqn, sizeof(s->nqn), "%s", a->val[OPT_NQN]);
	subsys_defaults(s);
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
	}

	s->ns = calloc(a->nr_ns, sizeof(*s->ns));
	if (!s->ns)
		return tgt_err(err, errlen, "out of memory");
	for (i = 0; i < a->nr_ns; i++) {
		struct tgt_ns *ns = &s->ns[i];

		if (!a->ns[i][0])
			return tgt_err(err, errlen, "--ns: empty device");
		ns->uri = strdup(a->ns[i]);
		if (!ns->uri)
			return tgt_err(err, errlen, "out of memory");
		s->nr_ns++;
		ns->nsid = i + 1;
		ns->enabled = true;
		derive_uuid(s->nqn, ns->nsid, ns->uuid);
		derive_nguid(s->nqn, ns->nsid, ns->nguid);
		ns->has_uuid = true;
		ns->has_nguid = true;
	}

	nr_ports = a->nr_listens + (dport ? 1 : 0);
	t->ports = calloc(nr_ports, sizeof(*t->ports));
	if (!t->ports)
		return tgt_err(err, errlen, "out of memory");
	for (i = 0; i < nr_ports; i++) {
		t->ports[i].listen_fd = -1;
		t->ports[i].inline_data = TGT_INLINE_DATA;
		t->ports[i].max_queue_size = TGT_MAX_QUEUE_DEPTH;
		port_ana_init(&t->ports[i]);
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
			if (same_addr(p, &t->ports[j]))
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
		d->adrfam = p->adrfam;
		memcpy(d->traddr, p->traddr, sizeof(d->traddr));
		snprintf(d->trsvcid, sizeof(d->trsvcid), "%s", dsvc);
		d->discovery_only = true;
	}
	for (i = 0; i < a->nr_ana_groups; i++)
		if (parse_ana_group_arg(s, a->ana_groups[i], err, errlen))
			return -1;
	ana_finish(t);
	for (i = 0; i < a->nr_anas; i++)
		if (parse_ana_arg(t, a->anas[i], err, errlen))
			return -1;
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
	t->stall_ms = DEFAULT_STALL_MS;
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
	} else if (build_from_args(t, &a, err, errlen)) {
		goto out;
	}
	ret = 0;
out:
	free(a.ns);
	free(a.hosts);
	free(a.listens);
	free(a.ana_groups);
	free(a.anas);
	if (ret)
		tgt_config_free(t);
	return ret;
}
