// SPDX-License-Identifier: MIT
/*
 * Strict JSON on json-c (json.h): the checking pass (json_check.c) that
 * names line:column, then json-c's tokener builds the tree, integers it
 * would clamp made doubles; the cj_ readers of that tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_check.h"

/*
 * json-c's null is a NULL pointer; cj_get/cj_at hand back the address of
 * this byte for a null member or item, so that callers can tell it from
 * a missing one. Never passed to json-c.
 */
static char cj_null_slot;
#define CJ_NULL_VALUE ((struct json_object *)(void *)&cj_null_slot)

int cj_err_at(const char *text, size_t len, size_t off, char *err,
	      size_t errlen, const char *fmt, ...)
{
	char msg[256];
	unsigned line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cj_where(text, len, off, &line, &col);
	if (err && errlen)
		snprintf(err, errlen, "%u:%u: %s", line, col, msg);
	return -1;
}

void cj_where(const char *text, size_t len, size_t off, unsigned *line,
	      unsigned *col)
{
	unsigned l = 1, c = 1;
	size_t i;

	if (off > len)
		off = len;
	for (i = 0; i < off; i++) {
		unsigned char ch = (unsigned char)text[i];

		if (ch == '\n') {
			l++;
			c = 1;
		} else if ((ch & 0xc0) != 0x80) {
			/* count characters: not UTF-8 continuation bytes */
			c++;
		}
	}
	*line = l;
	*col = c;
}

const char *cj_type_name(enum cj_type type)
{
	switch (type) {
	case CJ_NULL:
		return "null";
	case CJ_BOOL:
		return "boolean";
	case CJ_NUMBER:
		return "number";
	case CJ_STRING:
		return "string";
	case CJ_ARRAY:
		return "array";
	case CJ_OBJECT:
		return "object";
	}
	return "?";
}

void cj_quote(char *out, size_t outlen, const char *s, size_t len)
{
	size_t o = 0, i;

	if (outlen < 8) {
		if (outlen)
			out[0] = 0;
		return;
	}
	out[o++] = '"';
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char piece[8];
		size_t n;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			n = (size_t)snprintf(piece, sizeof(piece), "%c", c);
		else if (c == '"' || c == '\\')
			n = (size_t)snprintf(piece, sizeof(piece), "\\%c", c);
		else
			n = (size_t)snprintf(piece, sizeof(piece), "\\x%02x",
					     c);
		/* keep room for '"', "..." and the NUL */
		if (o + n + 5 > outlen) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		memcpy(out + o, piece, n);
		o += n;
	}
	out[o++] = '"';
	out[o] = 0;
}

/* Pre-order walk that swaps the noted integers for doubles. */
struct widen {
	const struct cj_wide *list;
	size_t nr, next;
	size_t ord;
};

static int widen_walk(struct json_object *v, struct widen *w,
		      struct json_object *parent, const char *key, size_t idx)
{
	struct json_object *d;
	size_t i, n;

	if (w->next >= w->nr)
		return 0;
	w->ord++;
	if (w->list[w->next].ord == w->ord) {
		d = json_object_new_double(w->list[w->next].d);
		if (!d)
			return -1;
		w->next++;
		/* both free the clamped integer they replace */
		if (key)
			return json_object_object_add(parent, key, d);
		return json_object_array_put_idx(parent, idx, d);
	}
	switch (json_object_get_type(v)) {
	case json_type_object: {
		json_object_object_foreach(v, k, m)
		{
			if (widen_walk(m, w, v, k, 0))
				return -1;
		}
		break;
	}
	case json_type_array:
		n = json_object_array_length(v);
		for (i = 0; i < n; i++)
			if (widen_walk(json_object_array_get_idx(v, i), w, v,
				       NULL, i))
				return -1;
		break;
	default:
		break;
	}
	return 0;
}

/*
 * json-c builds the tree of checked text (it should not refuse any: if it
 * does, its reason is passed on). Returns 0 with the tree in *out (NULL
 * for a top-level null), or -1.
 */
static int build(const char *text, size_t len, size_t start,
		 struct json_object **out, char *err, size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *root;
	enum json_tokener_error e;

	/* its depth counts the top value too */
	tok = json_tokener_new_ex(JSON_MAX_DEPTH + 1);
	if (!tok)
		return cj_err_at(text, len, start, err, errlen,
				 "out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, text + start, (int)(len - start));
	e = json_tokener_get_error(tok);
	if (e == json_tokener_continue) {
		/* a top-level number ends only at the NUL: give it one */
		root = json_tokener_parse_ex(tok, "", 1);
		e = json_tokener_get_error(tok);
	}
	if (e != json_tokener_success) {
		cj_err_at(text, len, start + json_tokener_get_parse_end(tok),
			  err, errlen, "json-c: %s",
			  json_tokener_error_desc(e));
		json_object_put(root);
		json_tokener_free(tok);
		return -1;
	}
	json_tokener_free(tok);
	*out = root;
	return 0;
}

/* Values in the tree, pre-order, JSON nulls (NULL in json-c) included. */
static size_t count_values(struct json_object *v)
{
	size_t n = 1, i, nr;

	switch (json_object_get_type(v)) {
	case json_type_object: {
		json_object_object_foreach(v, k, m)
		{
			(void)k;
			n += count_values(m);
		}
		break;
	}
	case json_type_array:
		nr = json_object_array_length(v);
		for (i = 0; i < nr; i++)
			n += count_values(json_object_array_get_idx(v, i));
		break;
	default:
		break;
	}
	return n;
}

/*
 * json-c kept the last of two equal keys: the checking pass again,
 * comparing keys this time, names the second one. Returns -1.
 */
static int find_duplicate(const char *text, size_t len, size_t start, char *err,
			  size_t errlen)
{
	struct cj_wide *wide;
	size_t nr_wide, nr_values;

	if (!cj_check(text, len, start, true, &wide, &nr_wide, &nr_values, err,
		      errlen)) {
		/* not reached: json-c only drops values for equal keys */
		free(wide);
		return cj_err_at(text, len, start, err, errlen,
				 "json-c's tree has fewer values than the "
				 "text");
	}
	return -1;
}

int cj_parse(const char *text, size_t len, struct json_object **root, char *err,
	     size_t errlen)
{
	struct widen w = { 0 };
	struct json_object *v = NULL, *d;
	struct cj_wide *wide;
	size_t start = 0, nr_wide, nr_values;

	*root = NULL;
	if (len > JSON_MAX_SIZE)
		return cj_err_at(text, len, 0, err, errlen,
				 "text longer than %u bytes", JSON_MAX_SIZE);
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		start = 3;
	if (cj_check(text, len, start, false, &wide, &nr_wide, &nr_values, err,
		     errlen))
		return -1;
	/* checked, so no NUL byte (json-c would stop at one): outside
	 * strings it is no token, inside a control character */
	if (build(text, len, start, &v, err, errlen))
		goto out;
	/* one pass over the tree instead of comparing every object's keys */
	if (count_values(v) != nr_values) {
		find_duplicate(text, len, start, err, errlen);
		goto out_put;
	}
	if (nr_wide) {
		w.list = wide;
		w.nr = nr_wide;
		if (wide[0].ord == 1) {
			/* the whole text is one such integer */
			d = json_object_new_double(wide[0].d);
			if (!d)
				goto out_oom;
			json_object_put(v);
			v = d;
		} else if (widen_walk(v, &w, NULL, NULL, 0)) {
			goto out_oom;
		}
	}
	free(wide);
	*root = v;
	return 0;

out_oom:
	cj_err_at(text, len, 0, err, errlen, "out of memory");
out_put:
	json_object_put(v);
out:
	free(wide);
	return -1;
}

void cj_free(struct json_object *root)
{
	if (root && root != CJ_NULL_VALUE)
		json_object_put(root);
}

const char *cj_path_shown(const char *path, char *out, size_t n)
{
	size_t o = 0;

	for (; *path && o + 5 < n; path++) {
		unsigned char c = (unsigned char)*path;

		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(out + o, n - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	if (n)
		out[o < n ? o : n - 1] = 0;
	return out;
}

int cj_read_file(const char *path, char **buf, size_t *len, char *err,
		 size_t errlen)
{
	size_t cap = 65536, n = 0;
	char *b = NULL, *nb, shown[256];
	int fd;

	*buf = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s",
			 cj_path_shown(path, shown, sizeof(shown)),
			 strerror(errno));
		return -1;
	}
	for (;;) {
		ssize_t r;

		if (!b || n == cap) {
			if (b)
				cap *= 2;
			nb = realloc(b, cap + 1);
			if (!nb) {
				snprintf(err, errlen, "%s: out of memory",
					 cj_path_shown(path, shown,
						       sizeof(shown)));
				goto out_free;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "%s: %s",
				 cj_path_shown(path, shown, sizeof(shown)),
				 strerror(errno));
			goto out_free;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > JSON_MAX_SIZE) {
			snprintf(err, errlen, "%s: larger than %u bytes",
				 cj_path_shown(path, shown, sizeof(shown)),
				 JSON_MAX_SIZE);
			goto out_free;
		}
	}
	close(fd);
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;

out_free:
	free(b);
	close(fd);
	return -1;
}

/* ---- Reading the tree ------------------------------------------------- */

enum cj_type cj_type(const struct json_object *v)
{
	if (!v || v == CJ_NULL_VALUE)
		return CJ_NULL;
	switch (json_object_get_type(v)) {
	case json_type_boolean:
		return CJ_BOOL;
	case json_type_double:
	case json_type_int:
		return CJ_NUMBER;
	case json_type_string:
		return CJ_STRING;
	case json_type_array:
		return CJ_ARRAY;
	case json_type_object:
		return CJ_OBJECT;
	case json_type_null:
		break;
	}
	return CJ_NULL;
}

struct json_object *cj_get(const struct json_object *v, const char *key)
{
	struct json_object *m = NULL;

	if (cj_type(v) != CJ_OBJECT || !json_object_object_get_ex(v, key, &m))
		return NULL;
	return m ? m : CJ_NULL_VALUE;
}

struct json_object *cj_at(const struct json_object *v, size_t i)
{
	struct json_object *m;

	if (cj_type(v) != CJ_ARRAY || i >= json_object_array_length(v))
		return NULL;
	m = json_object_array_get_idx(v, i);
	return m ? m : CJ_NULL_VALUE;
}

size_t cj_count(const struct json_object *v)
{
	switch (cj_type(v)) {
	case CJ_ARRAY:
		return json_object_array_length(v);
	case CJ_OBJECT:
		return (size_t)json_object_object_length(v);
	default:
		return 0;
	}
}

const char *cj_str(const struct json_object *v, size_t *len)
{
	if (cj_type(v) != CJ_STRING)
		return NULL;
	if (len)
		*len = (size_t)json_object_get_string_len(v);
	/* json-c's getter takes a non-const object; it only reads it */
	return json_object_get_string((struct json_object *)v);
}

int cj_int(const struct json_object *v, int64_t *out)
{
	/* integers json-c would clamp were made doubles by cj_parse */
	if (cj_type(v) != CJ_NUMBER || json_object_get_type(v) != json_type_int)
		return -1;
	*out = json_object_get_int64(v);
	return 0;
}

int cj_num(const struct json_object *v, double *out)
{
	if (cj_type(v) != CJ_NUMBER)
		return -1;
	*out = json_object_get_double(v);
	return 0;
}

int cj_bool(const struct json_object *v, bool *out)
{
	if (cj_type(v) != CJ_BOOL)
		return -1;
	*out = json_object_get_boolean(v);
	return 0;
}
