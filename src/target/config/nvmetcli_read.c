// SPDX-License-Identifier: MIT
/*
 * Reading nvmetcli's JSON values (nvmetcli.h): typed getters that refuse
 * with the JSON path of the value, the path itself, name lists, and the
 * hex forms of namespace IDs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmetcli.h"

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
int cfg_parse_uuid(const char *s, size_t len, uint8_t out[16])
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
int cfg_parse_hex_id(const char *s, size_t len, uint8_t *out, size_t nbytes)
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

bool cfg_all_zero(const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

int cfg_err(struct cfg *c, const char *fmt, ...)
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
size_t cfg_push_key(struct cfg *c, const char *key)
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

size_t cfg_push_idx(struct cfg *c, size_t i)
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

void cfg_pop(struct cfg *c, size_t old)
{
	c->plen = old;
	c->path[old] = 0;
}

int cfg_want(struct cfg *c, const struct json_object *v, enum cj_type type)
{
	if (cj_type(v) == type)
		return 0;
	return cfg_err(c, "expected %s %s, found %s",
		       type == CJ_ARRAY || type == CJ_OBJECT ? "an" : "a",
		       cj_type_name(type), cj_type_name(cj_type(v)));
}

/*
 * Members of obj must be among known (NULL-terminated); the message names
 * the first that is not, and what would have been.
 */
int cfg_check_keys(struct cfg *c, const struct json_object *obj,
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
		return cfg_err(c, "unknown key %s (known: %s)", q, list);
	}
	return 0;
}

/* A string without NUL bytes, at most max bytes long. */
int cfg_get_str(struct cfg *c, const struct json_object *v, size_t max,
		const char **out, size_t *len)
{
	size_t n;
	const char *s;

	if (cfg_want(c, v, CJ_STRING))
		return -1;
	s = cj_str(v, &n);
	if (strlen(s) != n)
		return cfg_err(c, "NUL character in a string");
	if (n > max)
		return cfg_err(c, "longer than %zu bytes", max);
	*out = s;
	*len = n;
	return 0;
}

/*
 * An unsigned number in min..max: a JSON integer, or a string of decimal
 * digits (nvmetcli writes configfs attributes as the strings it read).
 */
int cfg_get_uint(struct cfg *c, const struct json_object *v, uint64_t min,
		 uint64_t max, uint64_t *out)
{
	const char *s;
	uint64_t u;
	int64_t i;
	size_t n;

	if (cj_type(v) == CJ_NUMBER) {
		if (cj_int(v, &i))
			return cfg_err(c, "expected an integer");
		if (i < 0 || (uint64_t)i < min || (uint64_t)i > max)
			return cfg_err(c,
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
		if (tgt_cfg_parse_dec(s, n, UINT64_MAX, &u))
			return cfg_err(c, "%s is not a decimal number", q);
		if (u < min || u > max)
			return cfg_err(c,
				       "%s is out of range (%" PRIu64
				       "..%" PRIu64 ")",
				       q, min, max);
		*out = u;
		return 0;
	}
	return cfg_err(c, "expected a number, found %s",
		       cj_type_name(cj_type(v)));
}

/* true/false, 0/1 or "0"/"1". */
int cfg_get_bool(struct cfg *c, const struct json_object *v, bool *out)
{
	uint64_t u;

	if (!cj_bool(v, out))
		return 0;
	if (cj_type(v) != CJ_NUMBER && cj_type(v) != CJ_STRING)
		return cfg_err(c, "expected 0 or 1, found %s",
			       cj_type_name(cj_type(v)));
	if (cfg_get_uint(c, v, 0, 1, &u))
		return -1;
	*out = u;
	return 0;
}

/* A member of an attribute group that must be off ("0", 0, false, "");
 * why says what on would need. */
int cfg_want_off(struct cfg *c, const struct json_object *grp, const char *key,
		 const char *why)
{
	const struct json_object *v = cj_get(grp, key);
	size_t old, len;
	bool on;

	if (!v || (cj_str(v, &len) && !len))
		return 0;
	old = cfg_push_key(c, key);
	if (cfg_get_bool(c, v, &on))
		return -1;
	if (on)
		return cfg_err(c, "%s", why);
	cfg_pop(c, old);
	return 0;
}

/* A port parameter (nvmet's param_*): a number in min..max, or -1 (what
 * configfs shows until the port is enabled: the transport's default,
 * which *out already holds). Absent or empty leaves *out as is. */
int cfg_get_port_param(struct cfg *c, const struct json_object *grp,
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
	old = cfg_push_key(c, key);
	if ((cj_type(v) == CJ_NUMBER && !cj_int(v, &i) && i == -1) ||
	    ((s = cj_str(v, &len)) && len == 2 && !memcmp(s, "-1", 2))) {
		cfg_pop(c, old);
		return 0;
	}
	if (cfg_get_uint(c, v, min, max, &u))
		return -1;
	*out = (uint32_t)u;
	cfg_pop(c, old);
	return 0;
}

/* A printable ASCII attribute (serial, model, firmware) of at most
 * size - 1 characters into out; absent or empty leaves out as is. */
int cfg_get_ascii_attr(struct cfg *c, const struct json_object *grp,
		       const char *key, char *out, size_t size)
{
	const struct json_object *v = cj_get(grp, key);
	const char *s;
	size_t old, len, i;

	if (!v)
		return 0;
	old = cfg_push_key(c, key);
	if (cfg_get_str(c, v, size - 1, &s, &len))
		return -1;
	for (i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return cfg_err(c, "not printable ASCII");
	if (len)
		memcpy(out, s, len + 1);
	cfg_pop(c, old);
	return 0;
}

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
int cfg_sort_names(struct name_ref *refs, size_t n, size_t *dup)
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

const struct name_ref *cfg_find_name(const struct name_ref *refs, size_t n,
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
int cfg_get_nqn(struct cfg *c, const struct json_object *v, char *out)
{
	const char *s, *why;
	size_t len;
	char q[80];

	if (cfg_get_str(c, v, 4096, &s, &len))
		return -1;
	why = tgt_cfg_nqn_problem(s, len);
	if (why) {
		cj_quote(q, sizeof(q), s, len);
		return cfg_err(c, "%s: %s", q, why);
	}
	memcpy(out, s, len + 1);
	return 0;
}

/* A required member: pushes its key (the caller pops). */
const struct json_object *cfg_need(struct cfg *c, const struct json_object *obj,
				   const char *key, size_t *old)
{
	const struct json_object *v = cj_get(obj, key);

	if (!v) {
		cfg_err(c, "missing \"%s\"", key);
		return NULL;
	}
	*old = cfg_push_key(c, key);
	return v;
}
