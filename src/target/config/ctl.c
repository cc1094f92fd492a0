// SPDX-License-Identifier: MIT
/*
 * The target's control socket language: one line per connection, the
 * parser both the target and the fuzz harness run, and the port a command
 * names. `mqblk ctl`, the client that sends a line and prints the answer,
 * is ctl_client.c.
 *
 * The answer is text: a first line "ok" or "error: REASON", then
 * whatever the command prints (stats). The target side (executing a
 * command with its reactors) is in reactor.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/target.h"

#define CTL_MAX_WORDS 12 /* add-ns NQN NSID URI and its key=value pairs */

#define word tgt_ctl_word

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool word_is(const struct word *w, const char *s)
{
	return strlen(s) == w->len && !memcmp(w->s, s, w->len);
}

/* A word for a message: printable ASCII only, at most 40 characters. */
static void word_quote(char *out, size_t size, const struct word *w)
{
	size_t i, o = 0;

	for (i = 0; i < w->len && o + 5 < size && i < 40; i++) {
		unsigned char c = (unsigned char)w->s[i];

		if (c >= 0x20 && c < 0x7f) {
			out[o++] = (char)c;
		} else {
			snprintf(out + o, size - o, "\\x%02x", c);
			o += 4;
		}
	}
	if (i < w->len && o + 4 < size) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = 0;
}

static int parse_grp(const struct word *w, uint32_t *grp, char *err,
		     size_t errlen)
{
	uint64_t v = 0;
	size_t i;
	char q[64];

	for (i = 0; i < w->len; i++) {
		if (w->s[i] < '0' || w->s[i] > '9' || v > TGT_MAX_ANA_GROUPS)
			break;
		v = v * 10 + (uint64_t)(w->s[i] - '0');
	}
	if (i < w->len || !w->len || !v || v > TGT_MAX_ANA_GROUPS) {
		word_quote(q, sizeof(q), w);
		return tgt_err(err, errlen,
			       "ana: %s: the ANA group must be 1..%u", q,
			       TGT_MAX_ANA_GROUPS);
	}
	*grp = (uint32_t)v;
	return 0;
}

static int put_port(struct tgt_ctl_cmd *cmd, const struct word *w,
		    const char *verb, char *err, size_t errlen)
{
	char q[64];

	if (w->len >= sizeof(cmd->port)) {
		word_quote(q, sizeof(q), w);
		return tgt_err(err, errlen, "%s: %s: port name too long", verb,
			       q);
	}
	memcpy(cmd->port, w->s, w->len);
	cmd->port[w->len] = 0;
	return 0;
}

/* ns-set NQN NSID KEY=VALUE: the words checked for form only; the
 * target finds the namespace and its driver judges the key and value. */
static int parse_ns_set(const struct word *w, size_t n, struct tgt_ctl_cmd *cmd,
			char *err, size_t errlen)
{
	const char *eq;
	uint64_t v = 0;
	size_t i, klen;
	char q[64];

	if (n != 4)
		return tgt_err(err, errlen, "usage: ns-set NQN NSID KEY=VALUE");
	cmd->op = TGT_CTL_NS_SET;
	if (w[1].len > TGT_NQN_MAX) {
		word_quote(q, sizeof(q), &w[1]);
		return tgt_err(err, errlen, "ns-set: %s: NQN too long", q);
	}
	memcpy(cmd->nqn, w[1].s, w[1].len);
	cmd->nqn[w[1].len] = 0;
	for (i = 0; i < w[2].len && v <= UINT32_MAX; i++) {
		if (w[2].s[i] < '0' || w[2].s[i] > '9')
			break;
		v = v * 10 + (uint64_t)(w[2].s[i] - '0');
	}
	if (i < w[2].len || !w[2].len || !v || v > UINT32_MAX - 1) {
		word_quote(q, sizeof(q), &w[2]);
		return tgt_err(err, errlen,
			       "ns-set: %s: the NSID must be a number, 1..%u",
			       q, UINT32_MAX - 1);
	}
	cmd->nsid = (uint32_t)v;
	eq = memchr(w[3].s, '=', w[3].len);
	klen = eq ? (size_t)(eq - w[3].s) : 0;
	if (!eq || !klen || klen >= sizeof(cmd->key) ||
	    w[3].len - klen - 1 >= sizeof(cmd->val) || klen + 1 == w[3].len) {
		word_quote(q, sizeof(q), &w[3]);
		return tgt_err(err, errlen,
			       "ns-set: %s: not KEY=VALUE (a key up to %zu "
			       "characters, a value up to %zu)",
			       q, sizeof(cmd->key) - 1, sizeof(cmd->val) - 1);
	}
	memcpy(cmd->key, w[3].s, klen);
	cmd->key[klen] = 0;
	memcpy(cmd->val, eq + 1, w[3].len - klen - 1);
	cmd->val[w[3].len - klen - 1] = 0;
	return 0;
}

int tgt_ctl_parse(const char *line, size_t len, struct tgt_ctl_cmd *cmd,
		  char *err, size_t errlen)
{
	struct word w[CTL_MAX_WORDS + 1];
	size_t i = 0, n = 0;
	char q[64];

	memset(cmd, 0, sizeof(*cmd));
	while (i < len) {
		while (i < len && is_space(line[i]))
			i++;
		if (i == len)
			break;
		if (n == CTL_MAX_WORDS + 1)
			return tgt_err(err, errlen, "too many words");
		w[n].s = line + i;
		while (i < len && !is_space(line[i])) {
			if (!line[i])
				return tgt_err(err, errlen, "NUL in command");
			i++;
		}
		w[n].len = (size_t)(line + i - w[n].s);
		n++;
	}
	/* -o FORMAT (or -oFORMAT, --output-format=FORMAT) anywhere, for
	 * every command: taken out of the words */
	for (i = 0; i < n; i++) {
		struct word f;
		size_t drop = 1;

		if (word_is(&w[i], "-o") && i + 1 < n) {
			f = w[i + 1];
			drop = 2;
		} else if (word_is(&w[i], "-o")) {
			return tgt_err(err, errlen,
				       "-o: missing the output format (text, "
				       "json; stats: table)");
		} else if (w[i].len > 16 &&
			   !memcmp(w[i].s, "--output-format=", 16)) {
			f.s = w[i].s + 16;
			f.len = w[i].len - 16;
		} else if (w[i].len > 2 && !memcmp(w[i].s, "-o", 2)) {
			f.s = w[i].s + 2;
			f.len = w[i].len - 2;
		} else {
			continue;
		}
		if (word_is(&f, "text")) {
			cmd->format = TGT_CTL_TEXT;
		} else if (word_is(&f, "json")) {
			cmd->format = TGT_CTL_JSON;
		} else if (word_is(&f, "table")) {
			cmd->format = TGT_CTL_TABLE;
		} else {
			word_quote(q, sizeof(q), &f);
			return tgt_err(err, errlen,
				       "-o %s: not an output format (text, "
				       "json; stats: table)",
				       q);
		}
		memmove(&w[i], &w[i + drop], (n - i - drop) * sizeof(w[0]));
		n -= drop;
		i--;
	}
	cmd->json = cmd->format == TGT_CTL_JSON;
	if (!n)
		return tgt_err(err, errlen,
			       "empty command (ana, port-down, port-up, "
			       "stats, ns-set, %s)",
			       tgt_ctl_config_names());
	if (cmd->format == TGT_CTL_TABLE && !word_is(&w[0], "stats")) {
		word_quote(q, sizeof(q), &w[0]);
		return tgt_err(err, errlen,
			       "-o table: only stats has a table (%s: text "
			       "or json)",
			       q);
	}
	switch (tgt_ctl_config_parse(w, n, cmd, err, errlen)) {
	case 0:
		return 0;
	case 1:
		break;
	default:
		return -1;
	}
	if (word_is(&w[0], "ana")) {
		if (n != 4)
			return tgt_err(err, errlen,
				       "usage: ana GROUP PORT STATE");
		cmd->op = TGT_CTL_ANA;
		if (parse_grp(&w[1], &cmd->grp, err, errlen) ||
		    put_port(cmd, &w[2], "ana", err, errlen))
			return -1;
		cmd->state = nvme_ana_state_parse(w[3].s, w[3].len);
		if (!cmd->state) {
			word_quote(q, sizeof(q), &w[3]);
			return tgt_err(err, errlen,
				       "ana: %s: not an ANA state (optimized, "
				       "non-optimized, inaccessible, "
				       "persistent-loss, change)",
				       q);
		}
		return 0;
	}
	if (word_is(&w[0], "port-down") || word_is(&w[0], "port-up")) {
		bool down = word_is(&w[0], "port-down");

		if (n != 2)
			return tgt_err(err, errlen, "usage: %s PORT",
				       down ? "port-down" : "port-up");
		cmd->op = down ? TGT_CTL_PORT_DOWN : TGT_CTL_PORT_UP;
		return put_port(cmd, &w[1], down ? "port-down" : "port-up", err,
				errlen);
	}
	if (word_is(&w[0], "stats")) {
		if (n != 1)
			return tgt_err(err, errlen,
				       "usage: stats [-o text|json|table]");
		cmd->op = TGT_CTL_STATS;
		return 0;
	}
	if (word_is(&w[0], "ns-set"))
		return parse_ns_set(w, n, cmd, err, errlen);
	word_quote(q, sizeof(q), &w[0]);
	return tgt_err(err, errlen,
		       "%s: unknown command (ana, port-down, port-up, stats, "
		       "ns-set, %s)",
		       q, tgt_ctl_config_names());
}

struct tgt_port *tgt_ctl_port(struct tgt *t, const struct tgt_ctl_cmd *cmd,
			      char *err, size_t errlen)
{
	struct tgt_port *p;

	if (cmd->op != TGT_CTL_ANA && cmd->op != TGT_CTL_PORT_DOWN &&
	    cmd->op != TGT_CTL_PORT_UP) {
		tgt_err(err, errlen, "the command names no port of its own");
		return NULL;
	}
	p = tgt_port_find(t, cmd->port, strlen(cmd->port), err, errlen);
	if (!p)
		return NULL;
	if (cmd->op == TGT_CTL_ANA) {
		if (p->discovery_only) {
			tgt_err(err, errlen,
				"ana: port %u serves discovery only: no ANA "
				"groups",
				p->portid);
			return NULL;
		}
		if (!t->ana_group_used[cmd->grp]) {
			tgt_err(err, errlen,
				"ana: ANA group %u does not exist (no namespace "
				"or port configuration names it)",
				cmd->grp);
			return NULL;
		}
	}
	return p;
}
