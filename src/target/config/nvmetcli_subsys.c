// SPDX-License-Identifier: MIT
/*
 * nvmetcli's "discovery", "hosts" and "subsystems" (with their
 * namespaces, attributes, allowed hosts and passthru) into the model.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "nvmetcli.h"

/* "discovery": {"nqn": ...}, the root's attribute group. */
int cfg_load_discovery(struct cfg *c, const struct json_object *v)
{
	const struct json_object *nqn;
	char buf[TGT_NQN_MAX + 1];
	size_t old;

	if (cfg_want(c, v, CJ_OBJECT))
		return -1;
	nqn = cj_get(v, "nqn");
	if (!nqn)
		return 0;
	old = cfg_push_key(c, "nqn");
	if (cfg_get_nqn(c, nqn, buf))
		return -1;
	/* nvmet answers to the configured name and the well-known one */
	memcpy(c->t->disc.nqn, buf, sizeof(buf));
	cfg_pop(c, old);
	return 0;
}

/* A host's "dhchap" group: "key" and "ctrl_key" in nvme-cli's DHHC-1
 * form ("" unset: nvmetcli dumps configfs's empty secrets so), "hash"
 * (nvmet's "hmac(sha256)") and "dhgroup" ("null", "ffdhe2048", ...; a
 * comma-separated list for more than nvmet's one). A set key asks for
 * authentication; the secrets are never echoed in a message. */
static int load_dhchap(struct cfg *c, const struct json_object *dh,
		       struct tgt_host *h)
{
	static const char *const keys[] = { "key", "ctrl_key", "hash",
					    "dhgroup", NULL };
	const struct json_object *v;
	const char *s;
	size_t k, len, old;
	char why[160], *copy;
	int ret;

	if (cfg_want(c, dh, CJ_OBJECT) || cfg_check_keys(c, dh, keys))
		return -1;
	for (k = 0; k < 4; k++) {
		v = cj_get(dh, keys[k]);
		if (!v)
			continue;
		old = cfg_push_key(c, keys[k]);
		if (cfg_get_str(c, v, 4096, &s, &len))
			return -1;
		if (!len && k < 2) {
			cfg_pop(c, old);
			continue;
		}
		copy = strndup(s, len);
		if (!copy)
			return cfg_err(c, "out of memory");
		if (k < 2)
			ret = nvme_auth_key_parse(copy,
						  k ? &h->ctrl_key : &h->key,
						  why, sizeof(why));
		else
			ret = tgt_cfg_auth_list(
				copy, k == 2, k == 2 ? h->hashes : h->dhgroups,
				k == 2 ? &h->nr_hashes : &h->nr_dhgroups, why,
				sizeof(why));
		OPENSSL_cleanse(copy, len);
		free(copy);
		if (ret)
			return cfg_err(c, "%s", why);
		cfg_pop(c, old);
	}
	if (h->ctrl_key.len && !h->key.len) {
		old = cfg_push_key(c, "ctrl_key");
		return cfg_err(c, "a controller key without a host key "
				  "(\"key\"): bidirectional authentication "
				  "needs both");
	}
	return 0;
}

/* "hosts": [{"nqn": ..., "dhchap": {...}}]: refs point into the tree. */
int cfg_load_hosts(struct cfg *c, const struct json_object *arr,
		   struct name_ref **refs, size_t *nr, struct tgt_host **defs)
{
	static const char *const keys[] = { "nqn", "dhchap", NULL };
	size_t i, n = cj_count(arr), dup;

	*refs = NULL;
	*nr = 0;
	*defs = NULL;
	if (cfg_want(c, arr, CJ_ARRAY))
		return -1;
	if (!n)
		return 0;
	*refs = calloc(n, sizeof(**refs));
	*defs = calloc(n, sizeof(**defs));
	if (!*refs || !*defs)
		return cfg_err(c, "out of memory");
	for (i = 0; i < n; i++) {
		const struct json_object *h = cj_at(arr, i), *v, *dh;
		char nqn[TGT_NQN_MAX + 1];
		size_t old = cfg_push_idx(c, i), o2;

		if (cfg_want(c, h, CJ_OBJECT) || cfg_check_keys(c, h, keys))
			return -1;
		v = cfg_need(c, h, "nqn", &o2);
		if (!v || cfg_get_nqn(c, v, nqn))
			return -1;
		cfg_pop(c, o2);
		snprintf((*defs)[i].nqn, sizeof((*defs)[i].nqn), "%s", nqn);
		tgt_cfg_host_auth_defaults(&(*defs)[i]);
		dh = cj_get(h, "dhchap");
		if (dh) {
			o2 = cfg_push_key(c, "dhchap");
			if (load_dhchap(c, dh, &(*defs)[i]))
				return -1;
			cfg_pop(c, o2);
		}
		(*refs)[i].name = cj_str(cj_get(h, "nqn"), NULL);
		(*refs)[i].idx = i;
		cfg_pop(c, old);
	}
	*nr = n;
	if (cfg_sort_names(*refs, n, &dup)) {
		cfg_push_idx(c, dup);
		cfg_push_key(c, "nqn");
		return cfg_err(c, "host \"%s\" defined twice",
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
	old = cfg_push_key(c, key);
	if (cfg_get_str(c, v, 64, &str, &len))
		return -1;
	if (!strcmp(key, "uuid"))
		bad = cfg_parse_uuid(str, len, out);
	else
		bad = cfg_parse_hex_id(str, len, out, nbytes);
	if (bad) {
		cj_quote(q, sizeof(q), str, len);
		if (!strcmp(key, "uuid"))
			return cfg_err(c, "%s is not a UUID (8-4-4-4-12 hex)",
				       q);
		return cfg_err(c, "%s is not %s (%zu hex digits)", q,
			       nbytes == 16 ? "an NGUID" : "an EUI-64",
			       nbytes * 2);
	}
	*has = !cfg_all_zero(out, nbytes);
	cfg_pop(c, old);
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

	if (cfg_want(c, o, CJ_OBJECT) || cfg_check_keys(c, o, keys))
		return -1;
	v = cj_get(o, "nsid");
	if (!v)
		return cfg_err(c, "missing \"nsid\"");
	old = cfg_push_key(c, "nsid");
	if (cfg_get_uint(c, v, 0, UINT64_MAX, &u))
		return -1;
	if (u < 1 || u > TGT_MAX_NS)
		return cfg_err(c, "%" PRIu64 " is not a valid NSID (1..%u)", u,
			       TGT_MAX_NS);
	ns->nsid = (uint32_t)u;
	cfg_pop(c, old);

	/* nvmet's default: a namespace is disabled until enabled */
	v = cj_get(o, "enable");
	if (v) {
		old = cfg_push_key(c, "enable");
		if (cfg_get_bool(c, v, &ns->enabled))
			return -1;
		cfg_pop(c, old);
	}

	v = cj_get(o, "ana_grpid");
	if (v) {
		old = cfg_push_key(c, "ana_grpid");
		if (cfg_get_uint(c, v, 1, TGT_MAX_ANA_GROUPS, &u))
			return -1;
		ns->anagrpid = (uint32_t)u;
		cfg_pop(c, old);
	}
	v = cj_get(o, "ana");
	if (v) {
		old = cfg_push_key(c, "ana");
		if (cfg_want(c, v, CJ_OBJECT))
			return -1;
		cfg_pop(c, old);
	}
	v = cj_get(o, "resv");
	if (v) {
		old = cfg_push_key(c, "resv");
		if (cfg_want(c, v, CJ_OBJECT) ||
		    cfg_want_off(c, v, "enable",
				 "persistent reservations are not "
				 "supported"))
			return -1;
		cfg_pop(c, old);
	}

	dev = cj_get(o, "device");
	if (!dev) {
		if (ns->enabled)
			return cfg_err(c, "missing \"device\"");
		goto ids;
	}
	old = cfg_push_key(c, "device");
	if (cfg_want(c, dev, CJ_OBJECT))
		return -1;
	v = cj_get(dev, "path");
	if (v) {
		size_t o2 = cfg_push_key(c, "path");

		if (cfg_get_str(c, v, 4096, &str, &len))
			return -1;
		if (len) {
			ns->uri = strdup(str);
			if (!ns->uri)
				return cfg_err(c, "out of memory");
		}
		cfg_pop(c, o2);
	}
	if (ns->enabled && !ns->uri)
		return cfg_err(c, "an enabled namespace needs a \"path\"");
	if (get_dev_id(c, dev, "uuid", ns->uuid, 16, &ns->has_uuid) ||
	    get_dev_id(c, dev, "nguid", ns->nguid, 16, &ns->has_nguid) ||
	    get_dev_id(c, dev, "eui64", ns->eui64, 8, &ns->has_eui64))
		return -1;
	if (!cj_get(dev, "uuid")) {
		/* nvmet would make a random one: ours is stable */
		tgt_cfg_derive_uuid(s->nqn, ns->nsid, ns->uuid);
		ns->has_uuid = true;
	}
	/* buffered_io, p2pmem...: how nvmet opens the device, not what a
	 * host sees; other device attributes are ignored alike */
	cfg_pop(c, old);
	return 0;

ids:
	tgt_cfg_derive_uuid(s->nqn, ns->nsid, ns->uuid);
	ns->has_uuid = true;
	return 0;
}

static int cmp_ns(const void *pa, const void *pb)
{
	const struct tgt_ns *a = *(struct tgt_ns *const *)pa;
	const struct tgt_ns *b = *(struct tgt_ns *const *)pb;

	return (a->nsid > b->nsid) - (a->nsid < b->nsid);
}

static int load_namespaces(struct cfg *c, struct tgt_subsys *s,
			   const struct json_object *arr)
{
	size_t i, n = cj_count(arr);
	uint16_t *seen; /* nsid -> JSON index + 1 */

	if (cfg_want(c, arr, CJ_ARRAY))
		return -1;
	if (n > TGT_MAX_NS)
		return cfg_err(c, "more than %u namespaces", TGT_MAX_NS);
	if (!n)
		return 0;
	s->ns = calloc(n, sizeof(*s->ns));
	seen = calloc(TGT_MAX_NS + 1, sizeof(*seen));
	if (!s->ns || !seen) {
		free(seen);
		return cfg_err(c, "out of memory");
	}
	for (i = 0; i < n; i++) {
		struct tgt_ns *ns = calloc(1, sizeof(*ns));
		size_t old = cfg_push_idx(c, i);

		if (!ns) {
			cfg_err(c, "out of memory");
			goto out_free;
		}
		/* counted first: a half-loaded one still has its uri freed */
		s->ns[s->nr_ns++] = ns;
		if (load_ns(c, s, cj_at(arr, i), ns))
			goto out_free;
		if (seen[ns->nsid]) {
			cfg_push_key(c, "nsid");
			cfg_err(c, "NSID %u already used by namespaces[%u]",
				ns->nsid, seen[ns->nsid] - 1);
			goto out_free;
		}
		seen[ns->nsid] = (uint16_t)(i + 1);
		cfg_pop(c, old);
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

	if (cfg_want(c, attr, CJ_OBJECT))
		return -1;
	v = cj_get(attr, "allow_any_host");
	if (v) {
		old = cfg_push_key(c, "allow_any_host");
		if (cfg_get_bool(c, v, &s->allow_any_host))
			return -1;
		cfg_pop(c, old);
	}
	if (cfg_get_ascii_attr(c, attr, "serial", s->serial,
			       sizeof(s->serial)) ||
	    cfg_get_ascii_attr(c, attr, "model", s->model, sizeof(s->model)) ||
	    cfg_get_ascii_attr(c, attr, "firmware", s->firmware,
			       sizeof(s->firmware)))
		return -1;
	v = cj_get(attr, "cntlid_min");
	if (v) {
		old = cfg_push_key(c, "cntlid_min");
		if (cfg_get_uint(c, v, 1, TGT_CFG_CNTLID_MAX, &u))
			return -1;
		s->cntlid_min = (uint16_t)u;
		cfg_pop(c, old);
	}
	v = cj_get(attr, "cntlid_max");
	if (v) {
		old = cfg_push_key(c, "cntlid_max");
		if (cfg_get_uint(c, v, 1, TGT_CFG_CNTLID_MAX, &u))
			return -1;
		s->cntlid_max = (uint16_t)u;
		cfg_pop(c, old);
	}
	if (s->cntlid_min > s->cntlid_max) {
		old = cfg_push_key(c, "cntlid_min");
		return cfg_err(c, "%u is above cntlid_max %u", s->cntlid_min,
			       s->cntlid_max);
	}
	if (cfg_want_off(c, attr, "pi_enable",
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

	if (cfg_want(c, arr, CJ_ARRAY))
		return -1;
	for (i = 0; i < cj_count(arr); i++) {
		const struct json_object *p = cj_at(arr, i), *v;
		size_t old = cfg_push_idx(c, i), o2;
		bool on;

		if (cfg_want(c, p, CJ_OBJECT))
			return -1;
		v = cj_get(p, "enable");
		if (v) {
			o2 = cfg_push_key(c, "enable");
			if (cfg_get_bool(c, v, &on))
				return -1;
			if (on)
				return cfg_err(c, "passthru is not supported");
			cfg_pop(c, o2);
		}
		cfg_pop(c, old);
	}
	return 0;
}

int cfg_load_subsys(struct cfg *c, struct tgt_subsys *s,
		    const struct json_object *o, const struct name_ref *hosts,
		    size_t nr_hosts, const struct tgt_host *defs)
{
	static const char *const keys[] = { "nqn",	  "attr",
					    "namespaces", "allowed_hosts",
					    "passthru",	  NULL };
	const struct json_object *v, *arr;
	struct name_ref *refs = NULL;
	size_t old, i, n, dup;
	char q[80];

	if (cfg_want(c, o, CJ_OBJECT) || cfg_check_keys(c, o, keys))
		return -1;
	v = cfg_need(c, o, "nqn", &old);
	if (!v || cfg_get_nqn(c, v, s->nqn))
		return -1;
	if (tgt_cfg_is_disc_nqn(c->t, s->nqn))
		return cfg_err(
			c,
			"\"%s\" is the discovery subsystem's NQN (built in, "
			"not configurable)",
			s->nqn);
	cfg_pop(c, old);
	tgt_cfg_subsys_defaults(s);

	v = cj_get(o, "attr");
	if (v) {
		old = cfg_push_key(c, "attr");
		if (load_subsys_attr(c, s, v))
			return -1;
		cfg_pop(c, old);
	}
	s->next_cntlid = s->cntlid_min;

	v = cj_get(o, "passthru");
	if (v) {
		old = cfg_push_key(c, "passthru");
		if (load_passthru(c, v))
			return -1;
		cfg_pop(c, old);
	}

	arr = cj_get(o, "allowed_hosts");
	n = cj_count(arr);
	if (arr) {
		old = cfg_push_key(c, "allowed_hosts");
		if (cfg_want(c, arr, CJ_ARRAY))
			return -1;
		if (n && s->allow_any_host)
			return cfg_err(c,
				       "hosts listed while attr.allow_any_host "
				       "is 1 (nvmet refuses both)");
		s->hosts = n ? calloc(n, sizeof(*s->hosts)) : NULL;
		refs = n ? calloc(n, sizeof(*refs)) : NULL;
		if (n && (!s->hosts || !refs)) {
			free(refs);
			return cfg_err(c, "out of memory");
		}
		for (i = 0; i < n; i++) {
			struct tgt_host *h = &s->hosts[i];
			size_t o2 = cfg_push_idx(c, i);
			const struct name_ref *def;

			if (cfg_get_nqn(c, cj_at(arr, i), h->nqn))
				goto out_free;
			def = cfg_find_name(hosts, nr_hosts, h->nqn);
			if (!def) {
				cj_quote(q, sizeof(q), h->nqn, strlen(h->nqn));
				cfg_err(c,
					"host %s is not defined in \"hosts\"",
					q);
				goto out_free;
			}
			/* the host's definition, its secrets with it */
			*h = defs[def->idx];
			refs[i].name = h->nqn;
			refs[i].idx = i;
			s->nr_hosts++;
			cfg_pop(c, o2);
		}
		if (cfg_sort_names(refs, n, &dup)) {
			cfg_push_idx(c, dup);
			cfg_err(c, "host \"%s\" listed twice",
				s->hosts[dup].nqn);
			goto out_free;
		}
		free(refs);
		refs = NULL;
		cfg_pop(c, old);
	}

	v = cj_get(o, "namespaces");
	if (v) {
		old = cfg_push_key(c, "namespaces");
		if (load_namespaces(c, s, v))
			return -1;
		cfg_pop(c, old);
	}
	return 0;

out_free:
	free(refs);
	return -1;
}
