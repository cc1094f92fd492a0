// SPDX-License-Identifier: MIT
/*
 * The control socket's live configuration commands: their words into a
 * struct tgt_ctl_cmd, checked for syntax and range (core/live.c applies
 * them to the running target). Names follow nvmetcli's objects and SPDK
 * rpc.py's nvmf_create_subsystem, nvmf_subsystem_add_ns, ..._add_listener
 * and ..._add_host; key=value options take nvmetcli's attribute names.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "json.h"
#include "nvmetcli.h"

/* One command: its name, its positional words, its usage. */
struct cmd_def {
	const char *name;
	enum tgt_ctl_op op;
	unsigned nr_args; /* positional words after the name */
	bool has_keys; /* key=value options may follow */
	const char *usage;
};

static const struct cmd_def defs[] = {
	{ "add-subsys", TGT_CTL_ADD_SUBSYS, 1, true,
	  "add-subsys NQN [allow_any_host=0|1] [serial=S] [model=M]" },
	{ "remove-subsys", TGT_CTL_REMOVE_SUBSYS, 1, false,
	  "remove-subsys NQN" },
	{ "add-ns", TGT_CTL_ADD_NS, 3, true,
	  "add-ns NQN NSID URI [uuid=U] [nguid=G] [ana_grpid=N] "
	  "[enable=0|1]" },
	{ "remove-ns", TGT_CTL_REMOVE_NS, 2, false, "remove-ns NQN NSID" },
	{ "enable-ns", TGT_CTL_ENABLE_NS, 2, false, "enable-ns NQN NSID" },
	{ "disable-ns", TGT_CTL_DISABLE_NS, 2, false, "disable-ns NQN NSID" },
	{ "add-port", TGT_CTL_ADD_PORT, 4, false,
	  "add-port ID tcp|rdma ADDR PORT" },
	{ "remove-port", TGT_CTL_REMOVE_PORT, 1, false, "remove-port ID" },
	{ "link", TGT_CTL_LINK, 2, false, "link PORT NQN" },
	{ "unlink", TGT_CTL_UNLINK, 2, false, "unlink PORT NQN" },
	{ "add-host", TGT_CTL_ADD_HOST, 1, true,
	  "add-host HOSTNQN [dhchap_key=KEY] [tls_key=KEY]" },
	{ "remove-host", TGT_CTL_REMOVE_HOST, 1, false, "remove-host HOSTNQN" },
	{ "allow-host", TGT_CTL_ALLOW_HOST, 2, false,
	  "allow-host NQN HOSTNQN" },
	{ "disallow-host", TGT_CTL_DISALLOW_HOST, 2, false,
	  "disallow-host NQN HOSTNQN" },
	{ "allow-any-host", TGT_CTL_ALLOW_ANY_HOST, 2, false,
	  "allow-any-host NQN 0|1" },
	/* FILE optional: parsed apart */
	{ "save", TGT_CTL_SAVE, 0, false, "save [FILE]" },
	{ "show", TGT_CTL_SHOW, 0, false, "show" },
};

#define NR_DEFS (sizeof(defs) / sizeof(defs[0]))

const char *tgt_ctl_config_names(void)
{
	return "add-subsys, remove-subsys, add-ns, remove-ns, enable-ns, "
	       "disable-ns, add-port, remove-port, link, unlink, add-host, "
	       "remove-host, allow-host, disallow-host, allow-any-host, save, "
	       "show";
}

static bool is(const struct tgt_ctl_word *w, const char *s)
{
	return strlen(s) == w->len && !memcmp(w->s, s, w->len);
}

/* An NQN word into out (TGT_NQN_MAX + 1 bytes): nvmet's rules. */
static int get_nqn(const struct cmd_def *d, const struct tgt_ctl_word *w,
		   char *out, char *err, size_t errlen)
{
	const char *why = tgt_cfg_nqn_problem(w->s, w->len);
	char q[80];

	if (why) {
		cj_quote(q, sizeof(q), w->s, w->len);
		return tgt_err(err, errlen, "%s: %s: %s", d->name, q, why);
	}
	memcpy(out, w->s, w->len);
	out[w->len] = 0;
	return 0;
}

static int get_dec(const struct cmd_def *d, const char *what,
		   const struct tgt_ctl_word *w, uint64_t min, uint64_t max,
		   uint64_t *out, char *err, size_t errlen)
{
	char q[80];

	if (tgt_cfg_parse_dec(w->s, w->len, max, out) || *out < min) {
		cj_quote(q, sizeof(q), w->s, w->len);
		return tgt_err(err, errlen, "%s: %s: %s must be %llu..%llu",
			       d->name, q, what, (unsigned long long)min,
			       (unsigned long long)max);
	}
	return 0;
}

/* A printable string word (serial, model, PORT) into out of size bytes. */
static int get_str(const struct cmd_def *d, const char *what,
		   const struct tgt_ctl_word *w, char *out, size_t size,
		   char *err, size_t errlen)
{
	char q[80];
	size_t i;

	cj_quote(q, sizeof(q), w->s, w->len);
	if (!w->len || w->len >= size)
		return tgt_err(err, errlen, "%s: %s: %s must be 1..%zu bytes",
			       d->name, q, what, size - 1);
	for (i = 0; i < w->len; i++)
		if ((unsigned char)w->s[i] < 0x20 ||
		    (unsigned char)w->s[i] >= 0x7f)
			return tgt_err(err, errlen,
				       "%s: %s: %s must be printable ASCII",
				       d->name, q, what);
	memcpy(out, w->s, w->len);
	out[w->len] = 0;
	return 0;
}

static int get_bool(const struct cmd_def *d, const char *what,
		    const struct tgt_ctl_word *w, int *out, char *err,
		    size_t errlen)
{
	char q[80];

	if (is(w, "0") || is(w, "1")) {
		*out = w->s[0] == '1';
		return 0;
	}
	cj_quote(q, sizeof(q), w->s, w->len);
	return tgt_err(err, errlen, "%s: %s: %s must be 0 or 1", d->name, q,
		       what);
}

/* ADDR as the port's transport address: an IPv4 or IPv6 literal. */
static int get_addr(const struct cmd_def *d, const struct tgt_ctl_word *w,
		    struct tgt_ctl_cmd *cmd, char *err, size_t errlen)
{
	unsigned char bin[16];
	char q[80];

	if (get_str(d, "ADDR", w, cmd->traddr, sizeof(cmd->traddr), err,
		    errlen))
		return -1;
	if (inet_pton(AF_INET, cmd->traddr, bin) == 1 ||
	    inet_pton(AF_INET6, cmd->traddr, bin) == 1)
		return 0;
	cj_quote(q, sizeof(q), w->s, w->len);
	return tgt_err(err, errlen,
		       "%s: %s: ADDR must be an IPv4 or IPv6 address", d->name,
		       q);
}

/* One key=value option of d into cmd. */
static int get_key(const struct cmd_def *d, const struct tgt_ctl_word *kv,
		   struct tgt_ctl_cmd *cmd, unsigned *seen, char *err,
		   size_t errlen)
{
	static const char *const keys[] = {
		"allow_any_host", "serial", "model",	  "uuid",   "nguid",
		"ana_grpid",	  "enable", "dhchap_key", "tls_key"
	};
	const char *eq = memchr(kv->s, '=', kv->len);
	struct tgt_ctl_word k, v;
	unsigned i, bit = 0;
	bool ok = false;
	uint64_t u;
	char q[80];

	cj_quote(q, sizeof(q), kv->s, kv->len);
	if (!eq)
		return tgt_err(err, errlen,
			       "%s: %s: expected KEY=VALUE after the "
			       "arguments (usage: %s)",
			       d->name, q, d->usage);
	k.s = kv->s;
	k.len = (size_t)(eq - kv->s);
	v.s = eq + 1;
	v.len = kv->len - k.len - 1;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (is(&k, keys[i]))
			bit = 1u << i;
	switch (d->op) {
	case TGT_CTL_ADD_SUBSYS:
		ok = bit & 7u;
		break;
	case TGT_CTL_ADD_NS:
		ok = bit & 0x78u;
		break;
	case TGT_CTL_ADD_HOST:
		ok = bit & 0x180u;
		break;
	default:
		break;
	}
	if (!ok)
		return tgt_err(err, errlen, "%s: %s: unknown key (usage: %s)",
			       d->name, q, d->usage);
	if (*seen & bit)
		return tgt_err(err, errlen, "%s: %s: key given twice", d->name,
			       q);
	*seen |= bit;
	switch (bit) {
	case 1u:
		return get_bool(d, "allow_any_host", &v, &cmd->allow_any, err,
				errlen);
	case 2u:
		return get_str(d, "serial", &v, cmd->serial,
			       sizeof(cmd->serial), err, errlen);
	case 4u:
		return get_str(d, "model", &v, cmd->model, sizeof(cmd->model),
			       err, errlen);
	case 8u:
		if (cfg_parse_uuid(v.s, v.len, cmd->uuid))
			return tgt_err(err, errlen,
				       "%s: %s: not a UUID (8-4-4-4-12 hex)",
				       d->name, q);
		cmd->has_uuid = true;
		return 0;
	case 0x10u:
		if (cfg_parse_hex_id(v.s, v.len, cmd->nguid, 16))
			return tgt_err(err, errlen,
				       "%s: %s: not an NGUID (32 hex digits)",
				       d->name, q);
		cmd->has_nguid = true;
		return 0;
	case 0x20u:
		if (get_dec(d, "ana_grpid", &v, 1, TGT_MAX_ANA_GROUPS, &u, err,
			    errlen))
			return -1;
		cmd->anagrpid = (uint32_t)u;
		return 0;
	case 0x40u:
		return get_bool(d, "enable", &v, &cmd->enable, err, errlen);
	case 0x80u:
		return get_str(d, "dhchap_key", &v, cmd->dhchap_key,
			       sizeof(cmd->dhchap_key), err, errlen);
	default:
		return get_str(d, "tls_key", &v, cmd->tls_key,
			       sizeof(cmd->tls_key), err, errlen);
	}
}

int tgt_ctl_config_parse(const struct tgt_ctl_word *w, size_t n,
			 struct tgt_ctl_cmd *cmd, char *err, size_t errlen)
{
	const struct cmd_def *d = NULL;
	const struct tgt_ctl_word *a = w + 1;
	const struct tgt_cfg_transport *tr;
	unsigned seen = 0;
	uint64_t u = 0;
	size_t i;
	char q[80];

	for (i = 0; i < NR_DEFS; i++)
		if (is(&w[0], defs[i].name))
			d = &defs[i];
	if (!d)
		return 1;
	if (d->op == TGT_CTL_SAVE && n == 2) {
		cmd->op = d->op;
		return get_str(d, "FILE", &a[0], cmd->path, sizeof(cmd->path),
			       err, errlen);
	}
	if (n < 1 + d->nr_args || (!d->has_keys && n > 1 + d->nr_args))
		return tgt_err(err, errlen, "usage: %s", d->usage);
	cmd->op = d->op;
	cmd->enable = -1;
	cmd->allow_any = -1;
	switch (d->op) {
	case TGT_CTL_ADD_PORT:
		if (get_dec(d, "ID", &a[0], 0, 65535, &u, err, errlen))
			return -1;
		cmd->portid = (uint16_t)u;
		tr = tgt_cfg_transport_find(a[1].s, a[1].len);
		if (!tr) {
			cj_quote(q, sizeof(q), a[1].s, a[1].len);
			return tgt_err(err, errlen,
				       "add-port: %s: not a transport (tcp, "
				       "rdma)",
				       q);
		}
		cmd->trtype = tr->trtype;
		if (get_addr(d, &a[2], cmd, err, errlen) ||
		    get_dec(d, "PORT", &a[3], 1, 65535, &u, err, errlen))
			return -1;
		snprintf(cmd->trsvcid, sizeof(cmd->trsvcid), "%u", (unsigned)u);
		break;
	case TGT_CTL_REMOVE_PORT:
		if (get_dec(d, "ID", &a[0], 0, 65535, &u, err, errlen))
			return -1;
		cmd->portid = (uint16_t)u;
		break;
	case TGT_CTL_LINK:
	case TGT_CTL_UNLINK:
		if (get_str(d, "PORT", &a[0], cmd->port, sizeof(cmd->port), err,
			    errlen) ||
		    get_nqn(d, &a[1], cmd->nqn, err, errlen))
			return -1;
		break;
	case TGT_CTL_ALLOW_HOST:
	case TGT_CTL_DISALLOW_HOST:
		if (get_nqn(d, &a[0], cmd->nqn, err, errlen) ||
		    get_nqn(d, &a[1], cmd->hostnqn, err, errlen))
			return -1;
		break;
	case TGT_CTL_ALLOW_ANY_HOST:
		if (get_nqn(d, &a[0], cmd->nqn, err, errlen) ||
		    get_bool(d, "the value", &a[1], &cmd->allow_any, err,
			     errlen))
			return -1;
		break;
	case TGT_CTL_SAVE:
	case TGT_CTL_SHOW:
		break;
	default:
		/* NQN first; NSID next for the namespace commands */
		if (get_nqn(d, &a[0], cmd->nqn, err, errlen))
			return -1;
		if (d->nr_args >= 2 &&
		    get_dec(d, "NSID", &a[1], 1, TGT_MAX_NS, &u, err, errlen))
			return -1;
		cmd->nsid = (uint32_t)u;
		if (d->op == TGT_CTL_ADD_NS &&
		    get_str(d, "URI", &a[2], cmd->uri, sizeof(cmd->uri), err,
			    errlen))
			return -1;
		break;
	}
	for (i = 1 + d->nr_args; i < n; i++)
		if (get_key(d, &w[i], cmd, &seen, err, errlen))
			return -1;
	return 0;
}
