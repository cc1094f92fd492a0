// SPDX-License-Identifier: MIT
/*
 * nvmetcli's saved JSON (`nvmetcli save`) into the model of target.h:
 * ports, subsystems, namespaces, hosts. Whatever the kernel's nvmet would
 * do that mqblk cannot is refused with the file and the JSON path of the
 * value, never quietly dropped.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "nvmetcli.h"

/* "addr" of a port: a listener of a transport we have (the table in
 * model.c), at an address we can open. */
static int load_port_addr(struct cfg *c, struct tgt_port *p,
			  const struct json_object *addr)
{
	const struct tgt_cfg_transport *tr;
	const struct json_object *v;
	const char *s;
	size_t len, old;
	unsigned char bin[16];
	uint64_t u;
	char q[80];

	if (cfg_want(c, addr, CJ_OBJECT))
		return -1;

	v = cfg_need(c, addr, "trtype", &old);
	if (!v || cfg_get_str(c, v, 64, &s, &len))
		return -1;
	tr = tgt_cfg_transport_find(s, len);
	if (!tr) {
		char names[64];

		tgt_cfg_transport_names(names, sizeof(names));
		cj_quote(q, sizeof(q), s, len);
		return cfg_err(c, "transport %s is not supported (only %s)", q,
			       names);
	}
	p->trtype = tr->trtype;
	cfg_pop(c, old);

	v = cfg_need(c, addr, "adrfam", &old);
	if (!v || cfg_get_str(c, v, 64, &s, &len))
		return -1;
	if (!strcmp(s, "ipv4")) {
		p->adrfam = NVMF_ADDR_FAMILY_IP4;
	} else if (!strcmp(s, "ipv6")) {
		p->adrfam = NVMF_ADDR_FAMILY_IP6;
	} else {
		cj_quote(q, sizeof(q), s, len);
		return cfg_err(c,
			       "address family %s is not supported (ipv4 or "
			       "ipv6)",
			       q);
	}
	cfg_pop(c, old);

	v = cfg_need(c, addr, "traddr", &old);
	if (!v || cfg_get_str(c, v, sizeof(p->traddr) - 1, &s, &len))
		return -1;
	if (inet_pton(p->adrfam == NVMF_ADDR_FAMILY_IP4 ? AF_INET : AF_INET6, s,
		      bin) != 1) {
		cj_quote(q, sizeof(q), s, len);
		return cfg_err(c, "%s is not an %s address", q,
			       p->adrfam == NVMF_ADDR_FAMILY_IP4 ? "IPv4" :
								   "IPv6");
	}
	memcpy(p->traddr, s, len + 1);
	cfg_pop(c, old);

	v = cfg_need(c, addr, "trsvcid", &old);
	if (!v || cfg_get_uint(c, v, 1, 65535, &u))
		return -1;
	snprintf(p->trsvcid, sizeof(p->trsvcid), "%u", (unsigned)u);
	cfg_pop(c, old);

	/* tsas "tls1.3" (nvmet's addr_tsas): the port takes TLS 1.3 with
	 * PSKs; treq (addr_treq) says whether plaintext is refused there
	 * ("required", the default with TLS, as nvmet sets it) or taken
	 * too ("not required"). "required" without TLS is a contradiction. */
	v = cj_get(addr, "tsas");
	if (v) {
		old = cfg_push_key(c, "tsas");
		if (cfg_get_str(c, v, 64, &s, &len))
			return -1;
		if (!strcmp(s, "tls1.3")) {
			p->sectype = NVMF_TCP_SECTYPE_TLS13;
		} else if (len && strcmp(s, "none")) {
			cj_quote(q, sizeof(q), s, len);
			return cfg_err(c,
				       "%s: not a security type (none or "
				       "tls1.3)",
				       q);
		}
		if (p->sectype && p->trtype != NVMF_TRTYPE_TCP)
			return cfg_err(c, "TLS is NVMe/TCP's: this port is "
					  "not TCP");
		cfg_pop(c, old);
	}
	p->treq = p->sectype ? NVMF_TREQ_REQUIRED : NVMF_TREQ_NOT_SPECIFIED;
	v = cj_get(addr, "treq");
	if (v) {
		old = cfg_push_key(c, "treq");
		if (cfg_get_str(c, v, 64, &s, &len))
			return -1;
		if (!strcmp(s, "required")) {
			if (!p->sectype)
				return cfg_err(c,
					       "\"required\": a secure channel "
					       "needs tsas \"tls1.3\"");
			p->treq = NVMF_TREQ_REQUIRED;
		} else if (!strcmp(s, "not required")) {
			p->treq = NVMF_TREQ_NOT_REQUIRED;
		} else if (!len || !strcmp(s, "not specified")) {
			if (!p->sectype)
				p->treq = NVMF_TREQ_NOT_SPECIFIED;
		} else {
			cj_quote(q, sizeof(q), s, len);
			return cfg_err(c,
				       "%s: not a secure channel requirement "
				       "(not specified, required, not "
				       "required)",
				       q);
		}
		cfg_pop(c, old);
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

	if (cfg_want(c, arr, CJ_ARRAY))
		return -1;
	for (i = 0; i < n; i++) {
		const struct json_object *g = cj_at(arr, i), *v, *a;
		size_t o2 = cfg_push_idx(c, i), o3;
		const char *str;
		size_t len;
		uint64_t u;
		uint8_t state = NVME_ANA_OPTIMIZED;
		char q[80];

		if (cfg_want(c, g, CJ_OBJECT) || cfg_check_keys(c, g, keys))
			return -1;
		v = cfg_need(c, g, "grpid", &old);
		if (!v || cfg_get_uint(c, v, 1, TGT_MAX_ANA_GROUPS, &u))
			return -1;
		if (seen[u])
			return cfg_err(c, "ANA group %" PRIu64 " listed twice",
				       u);
		seen[u] = true;
		cfg_pop(c, old);
		a = cj_get(g, "ana");
		if (a) {
			old = cfg_push_key(c, "ana");
			if (cfg_want(c, a, CJ_OBJECT) ||
			    cfg_check_keys(c, a, akeys))
				return -1;
			v = cj_get(a, "state");
			if (v) {
				o3 = cfg_push_key(c, "state");
				if (cfg_get_str(c, v, 64, &str, &len))
					return -1;
				state = nvme_ana_state_parse(str, len);
				if (!state) {
					cj_quote(q, sizeof(q), str, len);
					return cfg_err(
						c,
						"%s: not an ANA state "
						"(optimized, non-optimized, "
						"inaccessible, "
						"persistent-loss, change)",
						q);
				}
				cfg_pop(c, o3);
			}
			cfg_pop(c, old);
		}
		atomic_store(&p->ana_state[u], state);
		c->t->ana_group_used[u] = true;
		cfg_pop(c, o2);
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

	tgt_cfg_port_ana_init(p);
	if (cfg_want(c, o, CJ_OBJECT) || cfg_check_keys(c, o, keys))
		return -1;
	v = cfg_need(c, o, "portid", &old);
	if (!v || cfg_get_uint(c, v, 0, 65535, &u))
		return -1;
	p->portid = (uint16_t)u;
	cfg_pop(c, old);

	v = cfg_need(c, o, "addr", &old);
	if (!v || load_port_addr(c, p, v))
		return -1;
	cfg_pop(c, old);

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

		old = cfg_push_key(c, "param");
		if (cfg_want(c, v, CJ_OBJECT) || cfg_check_keys(c, v, pkeys) ||
		    cfg_get_port_param(c, v, "inline_data_size", 0,
				       TGT_MAX_INLINE_DATA, &p->inline_data) ||
		    cfg_get_port_param(c, v, "max_queue_size",
				       TGT_MIN_QUEUE_DEPTH, TGT_MAX_QUEUE_DEPTH,
				       &p->max_queue_size) ||
		    cfg_want_off(c, v, "pi_enable",
				 "protection information is not supported"))
			return -1;
		cfg_pop(c, old);
	}
	/* referrals: the discovery log does not report them */
	v = cj_get(o, "referrals");
	if (v) {
		old = cfg_push_key(c, "referrals");
		if (cfg_want(c, v, CJ_ARRAY))
			return -1;
		cfg_pop(c, old);
	}
	v = cj_get(o, "ana_groups");
	if (v) {
		old = cfg_push_key(c, "ana_groups");
		if (load_ana_groups(c, p, v))
			return -1;
		cfg_pop(c, old);
	}

	arr = cj_get(o, "subsystems");
	if (!arr)
		return 0;
	old = cfg_push_key(c, "subsystems");
	if (cfg_want(c, arr, CJ_ARRAY))
		return -1;
	n = cj_count(arr);
	if (!n)
		goto out;
	p->subsys = calloc(n, sizeof(*p->subsys));
	refs = calloc(n, sizeof(*refs));
	if (!p->subsys || !refs) {
		free(refs);
		return cfg_err(c, "out of memory");
	}
	for (i = 0; i < n; i++) {
		const struct name_ref *r;
		const char *s;
		size_t o2 = cfg_push_idx(c, i), len;
		char q[80];

		if (cfg_get_str(c, cj_at(arr, i), 4096, &s, &len))
			goto out_free;
		r = cfg_find_name(subsys, nr_subsys, s);
		if (!r) {
			cj_quote(q, sizeof(q), s, len);
			cfg_err(c,
				"subsystem %s is not defined in \"subsystems\"",
				q);
			goto out_free;
		}
		p->subsys[p->nr_subsys++] = c->t->subsys[r->idx];
		refs[i].name = s;
		refs[i].idx = i;
		cfg_pop(c, o2);
	}
	if (cfg_sort_names(refs, n, &dup)) {
		cfg_push_idx(c, dup);
		cfg_err(c, "subsystem \"%s\" linked twice",
			p->subsys[dup]->nqn);
		goto out_free;
	}
	free(refs);
out:
	cfg_pop(c, old);
	return 0;

out_free:
	free(refs);
	return -1;
}

/* By address, then by position in t->ports. */
static int cmp_port_addr(const void *pa, const void *pb)
{
	const struct tgt_port *a = *(const struct tgt_port *const *)pa;
	const struct tgt_port *b = *(const struct tgt_port *const *)pb;
	int r;

	if (a->trtype != b->trtype)
		return a->trtype < b->trtype ? -1 : 1;
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
		return cfg_err(c, "out of memory");
	for (i = 0; i < t->nr_ports && !ret; i++) {
		struct tgt_port *p = &t->ports[i];

		if (first[p->portid]) {
			cfg_push_key(c, "ports");
			cfg_push_idx(c, i);
			cfg_push_key(c, "portid");
			ret = cfg_err(c, "port %u already defined by ports[%u]",
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
		return cfg_err(c, "out of memory");
	for (i = 0; i < t->nr_ports; i++)
		byaddr[i] = &t->ports[i];
	qsort(byaddr, t->nr_ports, sizeof(*byaddr), cmp_port_addr);
	later = t->nr_ports;
	for (i = 1; i < t->nr_ports; i++) {
		unsigned b = (unsigned)(byaddr[i] - t->ports);

		if (!tgt_cfg_same_addr(byaddr[i - 1], byaddr[i]) || b >= later)
			continue;
		later = b;
		earlier = (unsigned)(byaddr[i - 1] - t->ports);
	}
	free(byaddr);
	if (later == t->nr_ports)
		return 0;
	cfg_push_key(c, "ports");
	cfg_push_idx(c, later);
	cfg_push_key(c, "addr");
	return cfg_err(c, "%s port %s already used by ports[%u]",
		       t->ports[later].traddr, t->ports[later].trsvcid,
		       earlier);
}

static int load_root(struct cfg *c, const struct json_object *root)
{
	static const char *const keys[] = { "discovery", "hosts", "ports",
					    "subsystems", NULL };
	struct tgt *t = c->t;
	struct name_ref *hosts = NULL, *subsys = NULL;
	struct tgt_host *host_defs = NULL;
	const struct json_object *v;
	size_t nr_hosts = 0, i, n, old, dup;
	int ret = -1;

	if (cj_type(root) != CJ_OBJECT)
		return cfg_err(c, "expected an object at the top, found %s",
			       cj_type_name(cj_type(root)));
	if (cfg_check_keys(c, root, keys))
		return -1;

	v = cj_get(root, "discovery");
	if (v) {
		old = cfg_push_key(c, "discovery");
		if (cfg_load_discovery(c, v))
			return -1;
		cfg_pop(c, old);
	}

	v = cj_get(root, "hosts");
	if (v) {
		old = cfg_push_key(c, "hosts");
		if (cfg_load_hosts(c, v, &hosts, &nr_hosts, &host_defs))
			goto out;
		cfg_pop(c, old);
	}

	v = cj_get(root, "subsystems");
	n = cj_count(v);
	if (v) {
		old = cfg_push_key(c, "subsystems");
		if (cfg_want(c, v, CJ_ARRAY))
			goto out;
		if (n) {
			t->subsys = calloc(n, sizeof(*t->subsys));
			subsys = calloc(n, sizeof(*subsys));
			if (!t->subsys || !subsys) {
				cfg_err(c, "out of memory");
				goto out;
			}
		}
		for (i = 0; i < n; i++) {
			struct tgt_subsys *s = tgt_cfg_subsys_new();
			size_t o2 = cfg_push_idx(c, i);

			if (!s) {
				cfg_err(c, "out of memory");
				goto out;
			}
			t->subsys[t->nr_subsys++] = s;
			if (cfg_load_subsys(c, s, cj_at(v, i), hosts, nr_hosts,
					    host_defs))
				goto out;
			subsys[i].name = s->nqn;
			subsys[i].idx = i;
			cfg_pop(c, o2);
		}
		if (n && cfg_sort_names(subsys, n, &dup)) {
			cfg_push_idx(c, dup);
			cfg_push_key(c, "nqn");
			cfg_err(c, "subsystem \"%s\" defined twice",
				t->subsys[dup]->nqn);
			goto out;
		}
		cfg_pop(c, old);
	}

	v = cj_get(root, "ports");
	n = cj_count(v);
	if (v) {
		old = cfg_push_key(c, "ports");
		if (cfg_want(c, v, CJ_ARRAY))
			goto out;
		if (n) {
			t->ports = calloc(n, sizeof(*t->ports));
			if (!t->ports) {
				cfg_err(c, "out of memory");
				goto out;
			}
		}
		for (i = 0; i < n; i++) {
			struct tgt_port *p = &t->ports[i];
			size_t o2 = cfg_push_idx(c, i);

			p->listen_fd = -1;
			t->nr_ports++;
			if (load_port(c, p, cj_at(v, i), subsys, t->nr_subsys))
				goto out;
			cfg_pop(c, o2);
		}
		cfg_pop(c, old);
	}
	if (!t->nr_ports) {
		cfg_err(c, "no ports: nothing to listen on");
		goto out;
	}
	ret = check_ports(c);
	if (!ret && nr_hosts) {
		/* kept: allow-host and save take the definitions from here */
		t->hosts = calloc(nr_hosts, sizeof(*t->hosts));
		if (!t->hosts) {
			ret = cfg_err(c, "out of memory");
			goto out;
		}
		memcpy(t->hosts, host_defs, nr_hosts * sizeof(*t->hosts));
		t->nr_hosts = (unsigned)nr_hosts;
	}
out:
	free(hosts);
	free(subsys);
	if (host_defs) {
		/* the subsystems hold copies of the secrets they need */
		OPENSSL_cleanse(host_defs, cj_count(cj_get(root, "hosts")) *
						   sizeof(*host_defs));
		free(host_defs);
	}
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

	tgt_cfg_free_model(t);
	if (!t->stall_ms)
		t->stall_ms = TGT_CFG_DEFAULT_STALL_MS;
	if (cj_parse(buf, len, &root, jerr, sizeof(jerr))) {
		snprintf(err, errlen, "%s:%s", name, jerr);
		return -1;
	}
	if (tgt_cfg_disc_init(t)) {
		cj_free(root);
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	if (load_root(&c, root)) {
		cj_free(root);
		tgt_cfg_free_model(t);
		return -1;
	}
	cj_free(root);
	tgt_cfg_ana_finish(t);
	return 0;
}

int tgt_config_load(struct tgt *t, const char *path, char *err, size_t errlen)
{
	char *buf, shown[256];
	size_t len;
	int ret;

	if (cj_read_file(path, &buf, &len, err, errlen)) {
		tgt_cfg_free_model(t);
		return -1;
	}
	ret = tgt_config_load_buf(t, cj_path_shown(path, shown, sizeof(shown)),
				  buf, len, err, errlen);
	free(buf);
	return ret;
}
