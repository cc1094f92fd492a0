// SPDX-License-Identifier: MIT
/*
 * stripe: URI keys. The core splits a URI's keys on ',', so a member URI,
 * which has its own ',', writes ';' in their place; libc only, fuzzed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stripe.h"

/* A member URI from its written form: ';' stands for ','. */
static char *member_dup(const char *val)
{
	char *s = strdup(val), *p;

	if (!s)
		return NULL;
	for (p = s; *p; p++)
		if (*p == ';')
			*p = ',';
	return s;
}

/* "memberK" with K a decimal index written without leading zeros: the
 * index, or -1 for any other key (left for the core to call unknown). */
static long member_index(const char *key)
{
	const char *d = key + 6;
	long v = 0;

	if (strncmp(key, "member", 6) || !*d || (d[0] == '0' && d[1]))
		return -1;
	for (; *d; d++) {
		if (*d < '0' || *d > '9')
			return -1;
		v = v * 10 + (*d - '0');
		if (v > 100000)
			return 100000; /* out of range, whatever it is */
	}
	return v;
}

/* Does the member URI set the core key k itself? Keys start after the
 * driver's ':', a path's '?', or a separator. */
static bool member_has_key(const char *uri, const char *k)
{
	size_t n = strlen(k);
	const char *p = uri;

	while ((p = strstr(p, k))) {
		if (p > uri && strchr(":?,&", p[-1]) && p[n] == '=')
			return true;
		p++;
	}
	return false;
}

int stripe_conf_parse(struct mqblk_params *params, struct stripe_conf *c,
		      char *err, size_t errlen)
{
	const char *tmpl = NULL;
	uint64_t nr = 0;
	unsigned i, listed = 0;
	int ret = -EINVAL;

	memset(c, 0, sizeof(*c));
	c->chunk = STRIPE_DEFAULT_CHUNK;
	for (i = 0; i < params->nr; i++) {
		struct mqblk_param *p = &params->v[i];
		long idx;

		if (!strcmp(p->key, "chunk")) {
			if (mqblk_param_u64(p, 512, STRIPE_MAX_CHUNK, true,
					    &c->chunk, err, errlen))
				goto out_free;
			if (c->chunk & (c->chunk - 1)) {
				snprintf(
					err, errlen,
					"stripe: chunk %llu is not a power of two",
					(unsigned long long)c->chunk);
				goto out_free;
			}
		} else if (!strcmp(p->key, "members")) {
			if (mqblk_param_u64(p, 1, STRIPE_MAX_MEMBERS, false,
					    &nr, err, errlen))
				goto out_free;
		} else if (!strcmp(p->key, "verbose")) {
			if (mqblk_param_bool(p, &c->verbose, err, errlen))
				goto out_free;
		} else if (!strcmp(p->key, "member")) {
			if (tmpl) {
				snprintf(err, errlen,
					 "stripe: member= given twice");
				goto out_free;
			}
			tmpl = p->val;
			p->used = true;
		} else if ((idx = member_index(p->key)) >= 0) {
			if (idx >= STRIPE_MAX_MEMBERS) {
				snprintf(
					err, errlen,
					"stripe: member index out of range (at most %d members)",
					STRIPE_MAX_MEMBERS);
				goto out_free;
			}
			if (c->member[idx]) {
				snprintf(err, errlen,
					 "stripe: member%ld given twice", idx);
				goto out_free;
			}
			c->member[idx] = member_dup(p->val);
			if (!c->member[idx]) {
				ret = -ENOMEM;
				goto out_free;
			}
			listed++;
			p->used = true;
		}
	}
	if (tmpl && listed) {
		snprintf(
			err, errlen,
			"stripe: member= (one URI for all) and memberK= (a list) exclude each other");
		goto out_free;
	}
	if (tmpl) {
		if (!nr) {
			snprintf(
				err, errlen,
				"stripe: member= needs members=N (how many copies)");
			goto out_free;
		}
		for (i = 0; i < nr; i++) {
			c->member[i] = member_dup(tmpl);
			if (!c->member[i]) {
				ret = -ENOMEM;
				goto out_free;
			}
		}
		c->nr_members = (unsigned)nr;
	} else if (listed) {
		for (i = 0; i < listed; i++) {
			if (!c->member[i]) {
				snprintf(
					err, errlen,
					"stripe: member%u is missing (members are numbered from 0 without gaps)",
					i);
				goto out_free;
			}
		}
		if (nr && nr != listed) {
			snprintf(err, errlen,
				 "stripe: members=%llu but %u members listed",
				 (unsigned long long)nr, listed);
			goto out_free;
		}
		c->nr_members = listed;
	} else {
		snprintf(
			err, errlen,
			"stripe: no members: give member=URI,members=N or member0=URI,member1=URI,...");
		goto out_free;
	}
	for (i = 0; i < c->nr_members; i++) {
		if (!strncmp(c->member[i], "stripe", 6) &&
		    (!c->member[i][6] || c->member[i][6] == ':')) {
			snprintf(
				err, errlen,
				"stripe: member %u is itself a stripe (not supported)",
				i);
			goto out_free;
		}
		if (member_has_key(c->member[i], "complete")) {
			snprintf(
				err, errlen,
				"stripe: member %u sets complete= (the stripe chooses its members' completion policy)",
				i);
			goto out_free;
		}
	}
	return 0;

out_free:
	stripe_conf_free(c);
	return ret;
}

void stripe_conf_free(struct stripe_conf *c)
{
	unsigned i;

	for (i = 0; i < STRIPE_MAX_MEMBERS; i++) {
		free(c->member[i]);
		c->member[i] = NULL;
	}
	c->nr_members = 0;
}
