// SPDX-License-Identifier: MIT
/*
 * The model back into nvmetcli's saved JSON (what `nvmetcli save` writes
 * and nvmetcli*.c reads): `mqblk ctl save` and `show -o json`, and the
 * text summary `show` prints. What the loader reads back is what was
 * written: a save, a restart with it and a second save give the same
 * bytes (tests/cli/live.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <openssl/crypto.h>

#include "config.h"
#include "nvme/tls.h"

/* NULL-safe adders: a failed allocation shows as a NULL child, which
 * the caller's final check catches (json-c takes no NULL values). */
static bool add(struct json_object *o, const char *key, struct json_object *v)
{
	if (!o || !v) {
		json_object_put(v);
		return false;
	}
	return !json_object_object_add(o, key, v);
}

static bool push(struct json_object *a, struct json_object *v)
{
	if (!a || !v) {
		json_object_put(v);
		return false;
	}
	return !json_object_array_add(a, v);
}

static struct json_object *str(const char *s)
{
	return json_object_new_string(s);
}

static struct json_object *ustr(unsigned long long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", v);
	return json_object_new_string(buf);
}

static void hex(char *out, const uint8_t *b, size_t n, bool uuid_dashes)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (uuid_dashes && (i == 4 || i == 6 || i == 8 || i == 10))
			out[o++] = '-';
		o += (size_t)snprintf(out + o, 3, "%02x", b[i]);
	}
	out[o] = 0;
}

/* Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
 * U+10FFFF): what a JSON file must hold and the loader takes. */
static bool utf8_ok(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		unsigned n, i;
		uint32_t cp;

		if (*s < 0x80) {
			s++;
			continue;
		}
		if (*s >= 0xc2 && *s <= 0xdf) {
			n = 1;
			cp = *s & 0x1f;
		} else if (*s >= 0xe0 && *s <= 0xef) {
			n = 2;
			cp = *s & 0x0f;
		} else if (*s >= 0xf0 && *s <= 0xf4) {
			n = 3;
			cp = *s & 0x07;
		} else {
			return false;
		}
		for (i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
		s += n + 1;
	}
	return true;
}

/* Every string the JSON will hold is UTF-8 (the command line takes any
 * bytes for a device path or an NQN): 0, or -1 naming the first that
 * is not. */
static int check_strings(const struct tgt *t, char *err, size_t errlen)
{
	unsigned i, j;

	if (!utf8_ok(t->disc.nqn))
		return tgt_err(err, errlen, "the discovery NQN is not UTF-8");
	for (i = 0; i < t->nr_hosts; i++)
		if (!utf8_ok(t->hosts[i].nqn))
			return tgt_err(err, errlen, "a host NQN is not UTF-8");
	for (i = 0; i < t->nr_subsys; i++) {
		const struct tgt_subsys *s = t->subsys[i];

		if (!utf8_ok(s->nqn))
			return tgt_err(err, errlen,
				       "subsystem %u's NQN is not UTF-8",
				       i + 1);
		for (j = 0; j < s->nr_hosts; j++)
			if (!utf8_ok(s->hosts[j].nqn))
				return tgt_err(err, errlen,
					       "not UTF-8: a host NQN of "
					       "subsystem %u",
					       i + 1);
		for (j = 0; j < s->nr_ns; j++)
			if (s->ns[j]->uri && !utf8_ok(s->ns[j]->uri))
				/* the reason first: an NQN of up to
				 * 223 bytes must not cut it off */
				return tgt_err(err, errlen,
					       "not UTF-8, which nvmetcli's "
					       "JSON cannot hold: the device "
					       "path of namespace %u of %s",
					       s->ns[j]->nsid,
					       utf8_ok(s->nqn) ? s->nqn : "?");
	}
	return 0;
}

/* ---- Hosts ---------------------------------------------------------------- */

static bool host_same(const struct tgt_host *a, const struct tgt_host *b)
{
	return a->nr_hashes == b->nr_hashes &&
	       a->nr_dhgroups == b->nr_dhgroups &&
	       !memcmp(a->hashes, b->hashes, a->nr_hashes) &&
	       !memcmp(a->dhgroups, b->dhgroups, a->nr_dhgroups) &&
	       a->key.len == b->key.len && a->key.hash == b->key.hash &&
	       !CRYPTO_memcmp(a->key.data, b->key.data, a->key.len) &&
	       a->ctrl_key.len == b->ctrl_key.len &&
	       a->ctrl_key.hash == b->ctrl_key.hash &&
	       !CRYPTO_memcmp(a->ctrl_key.data, b->ctrl_key.data,
			      a->ctrl_key.len) &&
	       a->tls_key.len == b->tls_key.len &&
	       a->tls_key.hash == b->tls_key.hash &&
	       !CRYPTO_memcmp(a->tls_key.data, b->tls_key.data, a->tls_key.len);
}

static int cmp_host(const void *a, const void *b)
{
	return strcmp((*(const struct tgt_host *const *)a)->nqn,
		      (*(const struct tgt_host *const *)b)->nqn);
}

/* Every host the model names (add-host's, the subsystems' allowed ones),
 * each NQN once, sorted; -1 if one NQN has two definitions. */
static int host_list(const struct tgt *t, const struct tgt_host ***out,
		     size_t *nr, char *err, size_t errlen)
{
	const struct tgt_host **l;
	size_t n = t->nr_hosts, i, j, k = 0;

	for (i = 0; i < t->nr_subsys; i++)
		n += t->subsys[i]->nr_hosts;
	l = calloc(n ? n : 1, sizeof(*l));
	if (!l)
		return tgt_err(err, errlen, "out of memory");
	for (i = 0; i < t->nr_hosts; i++)
		l[k++] = &t->hosts[i];
	for (i = 0; i < t->nr_subsys; i++)
		for (j = 0; j < t->subsys[i]->nr_hosts; j++)
			l[k++] = &t->subsys[i]->hosts[j];
	qsort(l, k, sizeof(*l), cmp_host);
	for (i = j = 0; i < k; i++) {
		if (j && !strcmp(l[j - 1]->nqn, l[i]->nqn)) {
			if (!host_same(l[j - 1], l[i])) {
				int ret = tgt_err(err, errlen,
						  "host %s has two different "
						  "DH-HMAC-CHAP settings: "
						  "nvmetcli's format has one "
						  "per host",
						  l[i]->nqn);

				free(l);
				return ret;
			}
			continue;
		}
		l[j++] = l[i];
	}
	*out = l;
	*nr = j;
	return 0;
}

static bool default_auth(const struct tgt_host *h)
{
	struct tgt_host d;

	memset(&d, 0, sizeof(d));
	tgt_cfg_host_auth_defaults(&d);
	return h->nr_hashes == d.nr_hashes && h->hashes[0] == d.hashes[0] &&
	       h->nr_dhgroups == d.nr_dhgroups &&
	       h->dhgroups[0] == d.dhgroups[0];
}

/* "sha256,sha384" / "null,ffdhe2048" */
static void id_names(char *buf, size_t len, const uint8_t *ids, uint8_t nr,
		     bool hashes)
{
	size_t o = 0;
	uint8_t i;

	buf[0] = 0;
	for (i = 0; i < nr && o < len; i++) {
		const char *n = hashes ? nvme_auth_hash_name(ids[i]) :
					 nvme_auth_dhgroup_name(ids[i]);

		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "," : "",
				      n ? n : "?");
	}
}

static struct json_object *host_json(const struct tgt_host *h)
{
	struct json_object *o = json_object_new_object(), *dh;
	char buf[160];
	bool ok;

	ok = add(o, "nqn", str(h->nqn));
	if (h->tls_key.len) {
		if (!nvme_tls_key_format(&h->tls_key, buf, sizeof(buf)))
			ok &= add(o, "tls_key", str(buf));
		else
			ok = false;
		OPENSSL_cleanse(buf, sizeof(buf));
	}
	if (!h->key.len && default_auth(h))
		return ok ? o : (json_object_put(o), NULL);
	dh = json_object_new_object();
	if (h->key.len && !nvme_auth_key_format(&h->key, buf, sizeof(buf)))
		ok &= add(dh, "key", str(buf));
	if (h->ctrl_key.len &&
	    !nvme_auth_key_format(&h->ctrl_key, buf, sizeof(buf)))
		ok &= add(dh, "ctrl_key", str(buf));
	OPENSSL_cleanse(buf, sizeof(buf));
	id_names(buf, sizeof(buf), h->hashes, h->nr_hashes, true);
	ok &= add(dh, "hash", str(buf));
	id_names(buf, sizeof(buf), h->dhgroups, h->nr_dhgroups, false);
	ok &= add(dh, "dhgroup", str(buf));
	ok &= add(o, "dhchap", dh);
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* ---- Subsystems and ports ---------------------------------------------- */

static struct json_object *ns_json(const struct tgt_ns *ns)
{
	struct json_object *o = json_object_new_object();
	struct json_object *dev = json_object_new_object();
	char buf[64];
	bool ok;

	ok = add(o, "nsid", json_object_new_int64(ns->nsid));
	ok &= add(o, "enable", json_object_new_int(ns->enabled));
	ok &= add(o, "ana_grpid", json_object_new_int64(ns->anagrpid));
	if (ns->uri)
		ok &= add(dev, "path", str(ns->uri));
	if (ns->has_uuid) {
		hex(buf, ns->uuid, 16, true);
		ok &= add(dev, "uuid", str(buf));
	}
	if (ns->has_nguid) {
		/* nvmetcli writes the NGUID in the UUID form too */
		hex(buf, ns->nguid, 16, true);
		ok &= add(dev, "nguid", str(buf));
	}
	if (ns->has_eui64) {
		hex(buf, ns->eui64, 8, false);
		ok &= add(dev, "eui64", str(buf));
	}
	ok &= add(o, "device", dev);
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *subsys_json(const struct tgt_subsys *s)
{
	struct json_object *o = json_object_new_object();
	struct json_object *attr = json_object_new_object();
	struct json_object *hosts = json_object_new_array();
	struct json_object *nss = json_object_new_array();
	unsigned i;
	bool ok;

	ok = add(o, "nqn", str(s->nqn));
	ok &= add(attr, "allow_any_host", ustr(s->allow_any_host));
	ok &= add(attr, "serial", str(s->serial));
	ok &= add(attr, "model", str(s->model));
	ok &= add(attr, "firmware", str(s->firmware));
	ok &= add(attr, "cntlid_min", ustr(s->cntlid_min));
	ok &= add(attr, "cntlid_max", ustr(s->cntlid_max));
	ok &= add(o, "attr", attr);
	for (i = 0; i < s->nr_hosts; i++)
		ok &= push(hosts, str(s->hosts[i].nqn));
	ok &= add(o, "allowed_hosts", hosts);
	for (i = 0; i < s->nr_ns; i++)
		ok &= push(nss, ns_json(s->ns[i]));
	ok &= add(o, "namespaces", nss);
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *port_json(const struct tgt *t,
				     const struct tgt_port *p)
{
	const struct tgt_cfg_transport *tr = NULL;
	struct json_object *o = json_object_new_object();
	struct json_object *addr = json_object_new_object();
	struct json_object *param = json_object_new_object();
	struct json_object *subs = json_object_new_array();
	struct json_object *grps = json_object_new_array();
	const char *names[] = { "tcp", "rdma" };
	unsigned i, g;
	bool ok;

	for (i = 0; i < 2 && !tr; i++) {
		tr = tgt_cfg_transport_find(names[i], strlen(names[i]));
		if (tr && tr->trtype != p->trtype)
			tr = NULL;
	}
	ok = add(o, "portid", json_object_new_int64(p->portid));
	ok &= add(addr, "trtype", str(tr ? tr->name : "tcp"));
	ok &= add(addr, "adrfam",
		  str(p->adrfam == NVMF_ADDR_FAMILY_IP6 ? "ipv6" : "ipv4"));
	ok &= add(addr, "traddr", str(p->traddr));
	ok &= add(addr, "trsvcid", str(p->trsvcid));
	ok &= add(addr, "treq",
		  str(p->treq == NVMF_TREQ_REQUIRED	? "required" :
		      p->treq == NVMF_TREQ_NOT_REQUIRED ? "not required" :
							  "not specified"));
	ok &= add(addr, "tsas",
		  str(p->sectype == NVMF_TCP_SECTYPE_TLS13 ? "tls1.3" :
							     "none"));
	ok &= add(o, "addr", addr);
	ok &= add(param, "inline_data_size", ustr(p->inline_data));
	ok &= add(param, "max_queue_size", ustr(p->max_queue_size));
	ok &= add(o, "param", param);
	for (i = 0; i < p->nr_subsys; i++)
		ok &= push(subs, str(p->subsys[i]->nqn));
	ok &= add(o, "subsystems", subs);
	for (g = 1; g <= TGT_MAX_ANA_GROUPS; g++) {
		struct json_object *e, *a;
		const char *st;

		if (!t->ana_group_used[g])
			continue;
		st = nvme_ana_state_name(atomic_load(&p->ana_state[g]));
		e = json_object_new_object();
		a = json_object_new_object();
		ok &= add(e, "grpid", json_object_new_int64(g));
		ok &= add(a, "state", str(st ? st : "optimized"));
		ok &= add(e, "ana", a);
		ok &= push(grps, e);
	}
	ok &= add(o, "ana_groups", grps);
	ok &= add(o, "referrals", json_object_new_array());
	if (!ok) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int tgt_config_to_json(const struct tgt *t, char **out, char *err,
		       size_t errlen)
{
	struct json_object *root = json_object_new_object(), *a, *d;
	const struct tgt_host **hosts = NULL;
	size_t nr_hosts = 0, i;
	const char *text;
	bool ok = root != NULL;

	*out = NULL;
	if (check_strings(t, err, errlen) ||
	    host_list(t, &hosts, &nr_hosts, err, errlen)) {
		json_object_put(root);
		return -1;
	}
	if (strcmp(t->disc.nqn, NVME_DISC_SUBSYS_NAME)) {
		d = json_object_new_object();
		ok &= add(d, "nqn", str(t->disc.nqn));
		ok &= add(root, "discovery", d);
	}
	a = json_object_new_array();
	for (i = 0; i < nr_hosts; i++)
		ok &= push(a, host_json(hosts[i]));
	ok &= add(root, "hosts", a);
	free(hosts);
	a = json_object_new_array();
	for (i = 0; i < t->nr_ports; i++)
		if (!t->ports[i].removed)
			ok &= push(a, port_json(t, &t->ports[i]));
	ok &= add(root, "ports", a);
	a = json_object_new_array();
	for (i = 0; i < t->nr_subsys; i++)
		ok &= push(a, subsys_json(t->subsys[i]));
	ok &= add(root, "subsystems", a);
	text = ok ? json_object_to_json_string_ext(
			    root, JSON_C_TO_STRING_PRETTY |
					  JSON_C_TO_STRING_SPACED |
					  JSON_C_TO_STRING_NOSLASHESCAPE) :
		    NULL;
	*out = text ? malloc(strlen(text) + 2) : NULL;
	if (*out)
		snprintf(*out, strlen(text) + 2, "%s\n", text);
	/* the JSON held the hosts' secrets */
	if (text)
		OPENSSL_cleanse((void *)text, strlen(text));
	json_object_put(root);
	if (!*out)
		return tgt_err(err, errlen, "out of memory");
	return 0;
}

int tgt_config_save(const struct tgt *t, const char *path, char *err,
		    size_t errlen)
{
	size_t plen = strlen(path), len, off = 0;
	char *json, *tmp;
	int fd, e;

	if (tgt_config_to_json(t, &json, err, errlen))
		return -1;
	len = strlen(json);
	tmp = malloc(plen + 16);
	if (!tmp) {
		free(json);
		return tgt_err(err, errlen, "out of memory");
	}
	/* beside the file: the rename stays in one filesystem */
	snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp); /* 0600: the file holds the hosts' secrets */
	if (fd < 0) {
		e = errno;
		free(json);
		free(tmp);
		return tgt_err(err, errlen,
			       "%s: cannot create a file beside "
			       "it: %s",
			       path, strerror(e));
	}
	while (off < len) {
		ssize_t n = write(fd, json + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	e = off < len ? (errno ? errno : EIO) : 0;
	if (!e && fsync(fd))
		e = errno;
	if (close(fd) && !e)
		e = errno;
	if (!e && rename(tmp, path))
		e = errno;
	OPENSSL_cleanse(json, len);
	free(json);
	if (e) {
		unlink(tmp);
		free(tmp);
		return tgt_err(err, errlen, "%s: %s", path, strerror(e));
	}
	free(tmp);
	return 0;
}

/* ---- show's text ------------------------------------------------------- */

void tgt_config_show(const struct tgt *t, FILE *f)
{
	const struct tgt_host **hosts = NULL;
	size_t nr_hosts = 0, i, j;
	char buf[160];
	unsigned g;

	for (i = 0; i < t->nr_ports; i++) {
		const struct tgt_port *p = &t->ports[i];

		if (p->removed)
			continue;
		fprintf(f,
			"port %u %s %s %s %s inline_data_size %u "
			"max_queue_size %u%s\n",
			p->portid,
			p->trtype == NVMF_TRTYPE_RDMA ? "rdma" : "tcp",
			p->adrfam == NVMF_ADDR_FAMILY_IP6 ? "ipv6" : "ipv4",
			p->traddr, p->trsvcid, p->inline_data,
			p->max_queue_size,
			p->sectype == NVMF_TCP_SECTYPE_TLS13 ?
				(p->treq == NVMF_TREQ_NOT_REQUIRED ?
					 " tls1.3 (not required)" :
					 " tls1.3") :
				"");
		for (j = 0; j < p->nr_subsys; j++)
			fprintf(f, "  subsystem %s\n", p->subsys[j]->nqn);
		fprintf(f, "  ana");
		for (g = 1; g <= TGT_MAX_ANA_GROUPS; g++)
			if (t->ana_group_used[g])
				fprintf(f, " %u:%s", g,
					nvme_ana_state_name(
						atomic_load(&p->ana_state[g])));
		fputc('\n', f);
	}
	for (i = 0; i < t->nr_subsys; i++) {
		const struct tgt_subsys *s = t->subsys[i];

		fprintf(f,
			"subsystem %s allow_any_host %d serial %s model \"%s\" "
			"firmware %s cntlid %u-%u\n",
			s->nqn, s->allow_any_host, s->serial, s->model,
			s->firmware, s->cntlid_min, s->cntlid_max);
		for (j = 0; j < s->nr_hosts; j++)
			fprintf(f, "  allowed host %s\n", s->hosts[j].nqn);
		for (j = 0; j < s->nr_ns; j++) {
			const struct tgt_ns *ns = s->ns[j];

			fprintf(f, "  namespace %u %s ana_grpid %u path %s",
				ns->nsid, ns->enabled ? "enabled" : "disabled",
				ns->anagrpid, ns->uri ? ns->uri : "(none)");
			if (ns->has_uuid) {
				hex(buf, ns->uuid, 16, true);
				fprintf(f, " uuid %s", buf);
			}
			if (ns->has_nguid) {
				hex(buf, ns->nguid, 16, false);
				fprintf(f, " nguid %s", buf);
			}
			if (ns->has_eui64) {
				hex(buf, ns->eui64, 8, false);
				fprintf(f, " eui64 %s", buf);
			}
			fputc('\n', f);
		}
	}
	/* hosts without their secrets: whether they have one */
	if (host_list(t, &hosts, &nr_hosts, buf, sizeof(buf))) {
		fprintf(f, "hosts: %s\n", buf);
		return;
	}
	for (i = 0; i < nr_hosts; i++) {
		const struct tgt_host *h = hosts[i];

		fprintf(f, "host %s%s", h->nqn,
			h->tls_key.len ? " tls_key" : "");
		if (h->key.len || !default_auth(h)) {
			id_names(buf, sizeof(buf), h->hashes, h->nr_hashes,
				 true);
			fprintf(f, " dhchap %s%s hash %s",
				h->key.len ? "key" : "",
				h->ctrl_key.len ? "+ctrl_key" : "", buf);
			id_names(buf, sizeof(buf), h->dhgroups, h->nr_dhgroups,
				 false);
			fprintf(f, " dhgroup %s", buf);
		}
		fputc('\n', f);
	}
	free(hosts);
}
