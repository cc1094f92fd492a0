// SPDX-License-Identifier: MIT
/*
 * The target's configuration model (target.h): defaults, stable derived
 * identifiers, the transports a port may use, lookups and freeing, shared
 * by the nvmetcli JSON loader (nvmetcli*.c) and the command line (args.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "json.h"

/*
 * The transports a port may name, the first the command line's (--listen
 * ADDR:PORT; rdma:ADDR:PORT names the second). fc and loop are refused
 * until the target has them.
 */
static const struct tgt_cfg_transport transports[] = {
	{ "tcp", NVMF_TRTYPE_TCP, 4420 },
	{ "rdma", NVMF_TRTYPE_RDMA, 4420 },
};

#define NR_TRANSPORTS (sizeof(transports) / sizeof(transports[0]))

const struct tgt_cfg_transport *tgt_cfg_transport_default(void)
{
	return &transports[0];
}

const struct tgt_cfg_transport *tgt_cfg_transport_find(const char *name,
						       size_t len)
{
	size_t i;

	for (i = 0; i < NR_TRANSPORTS; i++)
		if (strlen(transports[i].name) == len &&
		    !memcmp(transports[i].name, name, len))
			return &transports[i];
	return NULL;
}

void tgt_cfg_transport_names(char *buf, size_t len)
{
	size_t i, o = 0;

	if (!len)
		return;
	buf[0] = 0;
	for (i = 0; i < NR_TRANSPORTS && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s\"%s\"",
				      i ? ", " : "", transports[i].name);
}

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
void tgt_cfg_derive_uuid(const char *nqn, uint32_t nsid, uint8_t uuid[16])
{
	hash128(0x75756964, nqn, nsid, uuid);
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x80);
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
}

void tgt_cfg_derive_nguid(const char *nqn, uint32_t nsid, uint8_t nguid[16])
{
	hash128(0x6e677569, nqn, nsid, nguid);
}

/* 16 hex digits, like the kernel's random default serial. */
static void derive_serial(const char *nqn, char serial[21])
{
	snprintf(serial, 21, "%016" PRIx64,
		 hash64(0x73657269, nqn, strlen(nqn)));
}

void tgt_cfg_subsys_defaults(struct tgt_subsys *s)
{
	derive_serial(s->nqn, s->serial);
	snprintf(s->model, sizeof(s->model), "%s", TGT_CFG_DEFAULT_MODEL);
	snprintf(s->firmware, sizeof(s->firmware), "%s", TGT_VERSION);
	s->cntlid_min = 1;
	s->cntlid_max = TGT_CFG_CNTLID_MAX;
}

/* A new subsystem, its lock ready; NULL if out of memory. */
struct tgt_subsys *tgt_cfg_subsys_new(void)
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

void tgt_cfg_ns_free(struct tgt_ns *ns)
{
	if (!ns)
		return;
	free(ns->uri);
	free(ns);
}

void tgt_cfg_subsys_free(struct tgt_subsys *s)
{
	unsigned i;

	if (!s)
		return;
	for (i = 0; i < s->nr_ns; i++)
		tgt_cfg_ns_free(s->ns[i]);
	free(s->ns);
	for (i = 0; i < s->nr_hosts; i++) {
		nvme_auth_key_clear(&s->hosts[i].key);
		nvme_auth_key_clear(&s->hosts[i].ctrl_key);
	}
	free(s->hosts);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int tgt_cfg_disc_init(struct tgt *t)
{
	struct tgt_subsys *d = &t->disc;

	memset(d, 0, sizeof(*d));
	if (pthread_mutex_init(&d->lock, NULL))
		return -1;
	snprintf(d->nqn, sizeof(d->nqn), "%s", NVME_DISC_SUBSYS_NAME);
	tgt_cfg_subsys_defaults(d);
	d->discovery = true; /* also tells tgt_config_free the lock is live */
	d->allow_any_host = true;
	d->next_cntlid = d->cntlid_min;
	return 0;
}

/* Every ANA group of p optimized: nvmet's default for a new group. */
void tgt_cfg_port_ana_init(struct tgt_port *p)
{
	unsigned g;

	for (g = 0; g <= TGT_MAX_ANA_GROUPS; g++)
		atomic_init(&p->ana_state[g], g ? NVME_ANA_OPTIMIZED : 0);
	atomic_init(&p->down, false);
}

/* After the model is built: group 1 and every namespace's group exist
 * (a port's configured groups were marked as they were read). */
void tgt_cfg_ana_finish(struct tgt *t)
{
	unsigned i, j;

	t->ana_group_used[TGT_DEFAULT_ANA_GROUP] = true;
	for (i = 0; i < t->nr_subsys; i++)
		for (j = 0; j < t->subsys[i]->nr_ns; j++) {
			struct tgt_ns *ns = t->subsys[i]->ns[j];

			if (!ns->anagrpid)
				ns->anagrpid = TGT_DEFAULT_ANA_GROUP;
			t->ana_group_used[ns->anagrpid] = true;
		}
}

/* Everything but the run options (reactors, stall, stats, verbose). */
void tgt_cfg_free_model(struct tgt *t)
{
	unsigned i;

	for (i = 0; i < t->nr_ports; i++)
		free(t->ports[i].subsys);
	free(t->ports);
	t->ports = NULL;
	t->nr_ports = 0;
	for (i = 0; i < t->nr_subsys; i++)
		tgt_cfg_subsys_free(t->subsys[i]);
	free(t->subsys);
	t->subsys = NULL;
	t->nr_subsys = 0;
	for (i = 0; i < t->nr_hosts; i++) {
		nvme_auth_key_clear(&t->hosts[i].key);
		nvme_auth_key_clear(&t->hosts[i].ctrl_key);
	}
	free(t->hosts);
	t->hosts = NULL;
	t->nr_hosts = 0;
	if (t->disc.discovery)
		pthread_mutex_destroy(&t->disc.lock);
	memset(&t->disc, 0, sizeof(t->disc));
	memset(t->ana_group_used, 0, sizeof(t->ana_group_used));
}

void tgt_config_free(struct tgt *t)
{
	if (!t)
		return;
	tgt_cfg_free_model(t);
	free(t->stats_path);
	free(t->ctl_path);
	free(t->config_path);
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
		struct tgt_ns *ns = s->ns[mid];

		if (ns->nsid == nsid)
			return ns->enabled ? ns : NULL;
		if (ns->nsid < nsid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct tgt_host *tgt_host_find(const struct tgt_subsys *s,
				     const char *hostnqn)
{
	unsigned i;

	if (!s || !hostnqn || s->discovery)
		return NULL;
	for (i = 0; i < s->nr_hosts; i++)
		if (!strcmp(s->hosts[i].nqn, hostnqn))
			return &s->hosts[i];
	return NULL;
}

void tgt_cfg_host_auth_defaults(struct tgt_host *h)
{
	h->hashes[0] = NVME_AUTH_HASH_SHA256;
	h->nr_hashes = 1;
	h->dhgroups[0] = NVME_AUTH_DHGROUP_NULL;
	h->nr_dhgroups = 1;
}

int tgt_cfg_auth_list(const char *s, bool hashes, uint8_t *ids, uint8_t *nr,
		      char *err, size_t errlen)
{
	const char *what = hashes ? "hash" : "DH group";
	char name[32];
	size_t len;
	int id;

	*nr = 0;
	for (;;) {
		len = strcspn(s, ",");
		if (!len || len >= sizeof(name))
			return tgt_err(err, errlen,
				       "empty or overlong %s name in the list",
				       what);
		memcpy(name, s, len);
		name[len] = '\0';
		id = hashes ? nvme_auth_hash_from_name(name) :
			      nvme_auth_dhgroup_from_name(name);
		if (id < 0)
			return tgt_err(err, errlen,
				       hashes ?
					       "unknown hash \"%s\" (sha256, "
					       "sha384 or sha512)" :
					       "unknown DH group \"%s\" (null, "
					       "ffdhe2048, 3072, 4096, 6144 or "
					       "8192)",
				       name);
		for (uint8_t i = 0; i < *nr; i++)
			if (ids[i] == id)
				return tgt_err(err, errlen,
					       "%s \"%s\" listed "
					       "twice",
					       what, name);
		ids[(*nr)++] = (uint8_t)id;
		if (!s[len])
			return 0;
		s += len + 1;
	}
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
const char *tgt_cfg_nqn_problem(const char *s, size_t len)
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

bool tgt_cfg_is_disc_nqn(const struct tgt *t, const char *nqn)
{
	return !strcmp(nqn, NVME_DISC_SUBSYS_NAME) ||
	       (t->disc.discovery && !strcmp(nqn, t->disc.nqn));
}

/* Decimal digits only, no sign, no spaces, value <= max. */
int tgt_cfg_parse_dec(const char *s, size_t len, uint64_t max, uint64_t *out)
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

bool tgt_cfg_same_addr(const struct tgt_port *a, const struct tgt_port *b)
{
	/* TCP and the RDMA CM have port spaces of their own */
	return a->trtype == b->trtype && a->adrfam == b->adrfam &&
	       !strcmp(a->traddr, b->traddr) && !strcmp(a->trsvcid, b->trsvcid);
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

/* A TCP port whose ADDR:PORT is spec (len bytes)? */
static bool tcp_port_at(const struct tgt *t, const char *spec, size_t len)
{
	char name[128];
	unsigned i;

	for (i = 0; i < t->nr_ports; i++) {
		const struct tgt_port *p = &t->ports[i];

		if (p->trtype == NVMF_TRTYPE_RDMA || p->removed)
			continue;
		if (p->adrfam == NVMF_ADDR_FAMILY_IP6)
			snprintf(name, sizeof(name), "[%s]:%s", p->traddr,
				 p->trsvcid);
		else
			snprintf(name, sizeof(name), "%s:%s", p->traddr,
				 p->trsvcid);
		if (strlen(name) == len && !memcmp(name, spec, len))
			return true;
	}
	return false;
}

struct tgt_port *tgt_port_find(struct tgt *t, const char *spec, size_t len,
			       char *err, size_t errlen)
{
	char q[80], name[128];
	uint64_t id;
	unsigned i;

	cj_quote(q, sizeof(q), spec, len);
	if (all_digits(spec, len)) {
		if (!tgt_cfg_parse_dec(spec, len, 65535, &id))
			for (i = 0; i < t->nr_ports; i++)
				if (t->ports[i].portid == id &&
				    !t->ports[i].removed)
					return &t->ports[i];
		snprintf(err, errlen, "%s: no port with that ID", q);
		return NULL;
	}
	for (i = 0; i < t->nr_ports; i++) {
		const struct tgt_port *p = &t->ports[i];
		if (p->removed)
			continue;
		/* an RDMA port as --listen gave it (rdma:ADDR:PORT); its bare
		 * ADDR:PORT too when no TCP port has that address */
		const char *tr = p->trtype == NVMF_TRTYPE_RDMA ? "rdma:" : "";
		size_t skip = len > 5 && !memcmp(spec, "rdma:", 5) ? 0 :
								     strlen(tr);

		if (p->adrfam == NVMF_ADDR_FAMILY_IP6)
			snprintf(name, sizeof(name), "%s[%s]:%s", tr, p->traddr,
				 p->trsvcid);
		else
			snprintf(name, sizeof(name), "%s%s:%s", tr, p->traddr,
				 p->trsvcid);
		if (strlen(name + skip) == len &&
		    !memcmp(name + skip, spec, len) &&
		    (!skip || !tcp_port_at(t, spec, len)))
			return &t->ports[i];
	}
	snprintf(err, errlen,
		 "%s: no such port (a port ID, or ADDR:PORT as --listen "
		 "gave it)",
		 q);
	return NULL;
}

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
