// SPDX-License-Identifier: MIT
/*
 * The strict JSON parser of json.h: recursive descent over a bounded
 * buffer, one node per value, strings decoded (escapes, surrogate pairs)
 * and checked as UTF-8. Nothing reads past text + len.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"

struct jp {
	const char *text;
	size_t len;
	size_t pos;
	unsigned depth;
	size_t nr_values;
	char *err;
	size_t errlen;
};

static int jp_err_at(struct jp *jp, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int jp_err_at(struct jp *jp, size_t off, const char *fmt, ...)
{
	char msg[256];
	unsigned line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_where(jp->text, jp->len, off, &line, &col);
	if (jp->err && jp->errlen)
		snprintf(jp->err, jp->errlen, "%u:%u: %s", line, col, msg);
	return -1;
}

void json_where(const char *text, size_t len, size_t off, unsigned *line,
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

const char *json_type_name(enum json_type type)
{
	switch (type) {
	case JSON_NULL:
		return "null";
	case JSON_BOOL:
		return "boolean";
	case JSON_NUMBER:
		return "number";
	case JSON_STRING:
		return "string";
	case JSON_ARRAY:
		return "array";
	case JSON_OBJECT:
		return "object";
	}
	return "?";
}

void json_quote(char *out, size_t outlen, const char *s, size_t len)
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

/* What is at jp->pos, for "expected X, found Y" messages. */
static const char *jp_found(const struct jp *jp, char *buf, size_t len)
{
	unsigned char ch;

	if (jp->pos >= jp->len)
		return "end of input";
	ch = (unsigned char)jp->text[jp->pos];
	if (ch > 0x20 && ch < 0x7f)
		snprintf(buf, len, "'%c'", ch);
	else
		snprintf(buf, len, "byte 0x%02x", ch);
	return buf;
}

static void skip_ws(struct jp *jp)
{
	while (jp->pos < jp->len) {
		char c = jp->text[jp->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		jp->pos++;
	}
}

static void free_value(struct json_value *v)
{
	size_t i;

	switch (v->type) {
	case JSON_STRING:
		free(v->u.str.s);
		break;
	case JSON_ARRAY:
		for (i = 0; i < v->u.arr.n; i++)
			free_value(&v->u.arr.items[i]);
		free(v->u.arr.items);
		break;
	case JSON_OBJECT:
		for (i = 0; i < v->u.obj.n; i++) {
			free(v->u.obj.members[i].key);
			free_value(&v->u.obj.members[i].value);
		}
		free(v->u.obj.members);
		free(v->u.obj.sorted);
		break;
	default:
		break;
	}
	v->type = JSON_NULL;
}

void json_free(struct json_value *root)
{
	if (!root)
		return;
	free_value(root);
	free(root);
}

/*
 * The length of the valid UTF-8 sequence at s (at most avail bytes), or 0
 * if it is not one: no overlong forms, no surrogates, nothing above
 * U+10FFFF (RFC 3629).
 */
static size_t utf8_seq(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	size_t n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static size_t utf8_put(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static int hex4(const char *s, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* A \uXXXX escape at jp->pos (the backslash); surrogate pairs joined. */
static int parse_u_escape(struct jp *jp, uint32_t *cp)
{
	size_t at = jp->pos;
	uint32_t hi, lo;

	if (jp->len - jp->pos < 6 || hex4(jp->text + jp->pos + 2, &hi))
		return jp_err_at(jp, at, "\\u needs four hex digits");
	jp->pos += 6;
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return jp_err_at(jp, at, "lone low surrogate \\u%04x", hi);
	if (hi < 0xd800 || hi > 0xdbff) {
		*cp = hi;
		return 0;
	}
	if (jp->len - jp->pos < 6 || jp->text[jp->pos] != '\\' ||
	    jp->text[jp->pos + 1] != 'u' || hex4(jp->text + jp->pos + 2, &lo) ||
	    lo < 0xdc00 || lo > 0xdfff)
		return jp_err_at(
			jp, at, "high surrogate \\u%04x without a low one", hi);
	jp->pos += 6;
	*cp = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

/*
 * A string at jp->pos (the opening quote), decoded into a new buffer.
 * The decoded form is never longer than the quoted one, so one scan
 * finds the closing quote and sizes the buffer.
 */
static int parse_string(struct jp *jp, char **out, size_t *outlen)
{
	size_t start = jp->pos, end, n = 0;
	char *s;

	/* find the closing quote: a '"' not escaped */
	for (end = start + 1; end < jp->len; end++) {
		if (jp->text[end] == '"')
			break;
		if (jp->text[end] == '\\')
			end++;
	}
	if (end >= jp->len)
		return jp_err_at(jp, start, "unterminated string");
	if (end - start - 1 > JSON_MAX_STRING)
		return jp_err_at(jp, start, "string longer than %u bytes",
				 JSON_MAX_STRING);
	s = malloc(end - start); /* quoted length - 1: room for the NUL */
	if (!s)
		return jp_err_at(jp, start, "out of memory");
	jp->pos = start + 1;
	while (jp->pos < end) {
		unsigned char c = (unsigned char)jp->text[jp->pos];
		uint32_t cp = 0;
		size_t k;

		if (c < 0x20) {
			jp_err_at(jp, jp->pos,
				  "control character 0x%02x in a string "
				  "(escape it)",
				  c);
			goto out_free;
		}
		if (c != '\\') {
			k = utf8_seq((const unsigned char *)jp->text + jp->pos,
				     end - jp->pos);
			if (!k) {
				jp_err_at(jp, jp->pos,
					  "invalid UTF-8 byte 0x%02x in a "
					  "string",
					  c);
				goto out_free;
			}
			memcpy(s + n, jp->text + jp->pos, k);
			n += k;
			jp->pos += k;
			continue;
		}
		/* an escape: end is past it (the scan above skipped it) */
		switch (jp->text[jp->pos + 1]) {
		case '"':
			cp = '"';
			break;
		case '\\':
			cp = '\\';
			break;
		case '/':
			cp = '/';
			break;
		case 'b':
			cp = '\b';
			break;
		case 'f':
			cp = '\f';
			break;
		case 'n':
			cp = '\n';
			break;
		case 'r':
			cp = '\r';
			break;
		case 't':
			cp = '\t';
			break;
		case 'u':
			/* six bytes (twelve for a pair) before end: the
			 * closing quote can't be among them unless escaped */
			if (parse_u_escape(jp, &cp))
				goto out_free;
			if (jp->pos > end) {
				jp_err_at(jp, end, "unterminated string");
				goto out_free;
			}
			n += utf8_put(s + n, cp);
			continue;
		default:
			jp_err_at(jp, jp->pos, "invalid escape in a string");
			goto out_free;
		}
		s[n++] = (char)cp;
		jp->pos += 2;
	}
	s[n] = 0;
	jp->pos = end + 1;
	*out = s;
	*outlen = n;
	return 0;

out_free:
	free(s);
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(struct jp *jp, struct json_value *v)
{
	size_t start = jp->pos, p = jp->pos, ndig;
	bool neg = false, integral = true;
	uint64_t mag = 0;
	bool overflow = false;
	char small[64], *copy;
	double d;

	if (p < jp->len && jp->text[p] == '-') {
		neg = true;
		p++;
	}
	if (p >= jp->len || !is_digit(jp->text[p]))
		return jp_err_at(jp, p, "a number needs a digit here");
	if (jp->text[p] == '0' && p + 1 < jp->len && is_digit(jp->text[p + 1]))
		return jp_err_at(jp, start, "leading zero in a number");
	while (p < jp->len && is_digit(jp->text[p])) {
		unsigned dgt = (unsigned)(jp->text[p] - '0');

		if (mag > (UINT64_MAX - dgt) / 10)
			overflow = true;
		else
			mag = mag * 10 + dgt;
		p++;
	}
	if (p < jp->len && jp->text[p] == '.') {
		integral = false;
		p++;
		for (ndig = 0; p < jp->len && is_digit(jp->text[p]); ndig++)
			p++;
		if (!ndig)
			return jp_err_at(jp, p, "a fraction needs a digit");
	}
	if (p < jp->len && (jp->text[p] == 'e' || jp->text[p] == 'E')) {
		integral = false;
		p++;
		if (p < jp->len && (jp->text[p] == '+' || jp->text[p] == '-'))
			p++;
		for (ndig = 0; p < jp->len && is_digit(jp->text[p]); ndig++)
			p++;
		if (!ndig)
			return jp_err_at(jp, p, "an exponent needs a digit");
	}

	v->type = JSON_NUMBER;
	v->u.num.is_int = false;
	v->u.num.i = 0;
	if (integral && !overflow &&
	    mag <= (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) {
		v->u.num.is_int = true;
		v->u.num.i = neg ? (int64_t)(0 - mag) : (int64_t)mag;
		v->u.num.d = (double)v->u.num.i;
		jp->pos = p;
		return 0;
	}

	/* strtod needs a NUL-terminated copy; the grammar is checked */
	if (p - start < sizeof(small)) {
		copy = small;
	} else {
		copy = malloc(p - start + 1);
		if (!copy)
			return jp_err_at(jp, start, "out of memory");
	}
	memcpy(copy, jp->text + start, p - start);
	copy[p - start] = 0;
	d = strtod(copy, NULL);
	if (copy != small)
		free(copy);
	if (!isfinite(d))
		return jp_err_at(jp, start, "number out of range");
	v->u.num.d = d;
	jp->pos = p;
	return 0;
}

static int parse_literal(struct jp *jp, const char *word)
{
	size_t n = strlen(word);

	if (jp->len - jp->pos < n || memcmp(jp->text + jp->pos, word, n))
		return jp_err_at(jp, jp->pos, "invalid literal (expected %s)",
				 word);
	jp->pos += n;
	return 0;
}

static int parse_value(struct jp *jp, struct json_value *v);

static int parse_array(struct jp *jp, struct json_value *v)
{
	size_t cap = 0;
	char buf[16];

	v->type = JSON_ARRAY;
	v->u.arr.items = NULL;
	v->u.arr.n = 0;
	jp->pos++; /* '[' */
	skip_ws(jp);
	if (jp->pos < jp->len && jp->text[jp->pos] == ']') {
		jp->pos++;
		return 0;
	}
	for (;;) {
		if (v->u.arr.n == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			struct json_value *items;

			items = realloc(v->u.arr.items, ncap * sizeof(*items));
			if (!items)
				return jp_err_at(jp, jp->pos, "out of memory");
			v->u.arr.items = items;
			cap = ncap;
		}
		if (parse_value(jp, &v->u.arr.items[v->u.arr.n])) {
			free_value(&v->u.arr.items[v->u.arr.n]);
			return -1;
		}
		v->u.arr.n++;
		skip_ws(jp);
		if (jp->pos < jp->len && jp->text[jp->pos] == ',') {
			jp->pos++;
			continue;
		}
		if (jp->pos < jp->len && jp->text[jp->pos] == ']') {
			jp->pos++;
			return 0;
		}
		return jp_err_at(jp, jp->pos, "expected ',' or ']', found %s",
				 jp_found(jp, buf, sizeof(buf)));
	}
}

static int cmp_keys(const struct json_member *a, const struct json_member *b)
{
	size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
	int r = memcmp(a->key, b->key, n);

	if (r)
		return r;
	return (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

/* By key, then by position: the members array no longer moves. */
static int cmp_member_ptr(const void *pa, const void *pb)
{
	const struct json_member *a = *(const struct json_member *const *)pa;
	const struct json_member *b = *(const struct json_member *const *)pb;
	int r = cmp_keys(a, b);

	if (r)
		return r;
	return (a > b) - (a < b);
}

/* Index the members by key; a key seen twice is an error. */
static int index_object(struct jp *jp, struct json_value *v,
			const size_t *key_off)
{
	struct json_member **sorted;
	size_t i, n = v->u.obj.n;
	char q[96];

	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return jp_err_at(jp, v->off, "out of memory");
	v->u.obj.sorted = sorted;
	for (i = 0; i < n; i++)
		sorted[i] = &v->u.obj.members[i];
	qsort(sorted, n, sizeof(*sorted), cmp_member_ptr);
	for (i = 1; i < n; i++) {
		if (cmp_keys(sorted[i - 1], sorted[i]))
			continue;
		/* ties sort by position: sorted[i] is the later one */
		json_quote(q, sizeof(q), sorted[i]->key, sorted[i]->key_len);
		return jp_err_at(jp, key_off[sorted[i] - v->u.obj.members],
				 "duplicate key %s", q);
	}
	return 0;
}

static int parse_object(struct jp *jp, struct json_value *v)
{
	size_t cap = 0, *key_off = NULL;
	char buf[16];
	int ret = -1;

	v->type = JSON_OBJECT;
	v->u.obj.members = NULL;
	v->u.obj.sorted = NULL;
	v->u.obj.n = 0;
	jp->pos++; /* '{' */
	skip_ws(jp);
	if (jp->pos < jp->len && jp->text[jp->pos] == '}') {
		jp->pos++;
		return 0;
	}
	for (;;) {
		struct json_member *m;

		if (v->u.obj.n == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			struct json_member *mem;
			size_t *offs;

			mem = realloc(v->u.obj.members, ncap * sizeof(*mem));
			if (!mem)
				goto out_oom;
			v->u.obj.members = mem;
			offs = realloc(key_off, ncap * sizeof(*offs));
			if (!offs)
				goto out_oom;
			key_off = offs;
			cap = ncap;
		}
		if (jp->pos >= jp->len || jp->text[jp->pos] != '"') {
			jp_err_at(jp, jp->pos,
				  "expected a string key, found %s",
				  jp_found(jp, buf, sizeof(buf)));
			goto out;
		}
		m = &v->u.obj.members[v->u.obj.n];
		key_off[v->u.obj.n] = jp->pos;
		if (parse_string(jp, &m->key, &m->key_len))
			goto out;
		skip_ws(jp);
		if (jp->pos >= jp->len || jp->text[jp->pos] != ':') {
			jp_err_at(jp, jp->pos, "expected ':', found %s",
				  jp_found(jp, buf, sizeof(buf)));
			free(m->key);
			goto out;
		}
		jp->pos++;
		if (parse_value(jp, &m->value)) {
			free_value(&m->value);
			free(m->key);
			goto out;
		}
		v->u.obj.n++;
		skip_ws(jp);
		if (jp->pos < jp->len && jp->text[jp->pos] == ',') {
			jp->pos++;
			skip_ws(jp);
			continue;
		}
		if (jp->pos < jp->len && jp->text[jp->pos] == '}') {
			jp->pos++;
			break;
		}
		jp_err_at(jp, jp->pos, "expected ',' or '}', found %s",
			  jp_found(jp, buf, sizeof(buf)));
		goto out;
	}
	ret = index_object(jp, v, key_off);
out:
	free(key_off);
	return ret;
out_oom:
	jp_err_at(jp, jp->pos, "out of memory");
	goto out;
}

/*
 * One value at jp->pos (after whitespace). On failure v holds what was
 * built so far in a state free_value takes: the caller frees it.
 */
static int parse_value(struct jp *jp, struct json_value *v)
{
	char buf[16];
	int ret;

	v->type = JSON_NULL;
	skip_ws(jp);
	v->off = jp->pos;
	if (++jp->nr_values > JSON_MAX_VALUES)
		return jp_err_at(jp, jp->pos, "more than %u values",
				 JSON_MAX_VALUES);
	if (jp->pos >= jp->len)
		return jp_err_at(jp, jp->pos,
				 "expected a value, found end of input");
	switch (jp->text[jp->pos]) {
	case '{':
	case '[':
		if (jp->depth >= JSON_MAX_DEPTH)
			return jp_err_at(jp, jp->pos,
					 "nested deeper than %u levels",
					 JSON_MAX_DEPTH);
		jp->depth++;
		if (jp->text[jp->pos] == '{')
			ret = parse_object(jp, v);
		else
			ret = parse_array(jp, v);
		jp->depth--;
		return ret;
	case '"':
		ret = parse_string(jp, &v->u.str.s, &v->u.str.len);
		if (!ret)
			v->type = JSON_STRING;
		return ret;
	case 't':
		ret = parse_literal(jp, "true");
		v->type = JSON_BOOL;
		v->u.boolean = true;
		return ret;
	case 'f':
		ret = parse_literal(jp, "false");
		v->type = JSON_BOOL;
		v->u.boolean = false;
		return ret;
	case 'n':
		return parse_literal(jp, "null");
	default:
		if (jp->text[jp->pos] == '-' || is_digit(jp->text[jp->pos]))
			return parse_number(jp, v);
		return jp_err_at(jp, jp->pos, "expected a value, found %s",
				 jp_found(jp, buf, sizeof(buf)));
	}
}

int json_parse(const char *text, size_t len, struct json_value **root,
	       char *err, size_t errlen)
{
	struct jp jp = {
		.text = text,
		.len = len,
		.err = err,
		.errlen = errlen,
	};
	struct json_value *v;
	char buf[16];

	*root = NULL;
	if (len > JSON_MAX_SIZE)
		return jp_err_at(&jp, 0, "text longer than %u bytes",
				 JSON_MAX_SIZE);
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		jp.pos = 3;
	v = calloc(1, sizeof(*v));
	if (!v)
		return jp_err_at(&jp, 0, "out of memory");
	if (parse_value(&jp, v))
		goto out_free;
	skip_ws(&jp);
	if (jp.pos < jp.len) {
		jp_err_at(&jp, jp.pos, "%s after the value",
			  jp_found(&jp, buf, sizeof(buf)));
		goto out_free;
	}
	*root = v;
	return 0;

out_free:
	json_free(v);
	return -1;
}

int json_read_file(const char *path, char **buf, size_t *len, char *err,
		   size_t errlen)
{
	size_t cap = 65536, n = 0;
	char *b = NULL, *nb;
	int fd;

	*buf = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
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
					 path);
				goto out_free;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out_free;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > JSON_MAX_SIZE) {
			snprintf(err, errlen, "%s: larger than %u bytes", path,
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

const struct json_value *json_get(const struct json_value *v, const char *key)
{
	struct json_member probe;
	size_t lo = 0, hi;

	if (!v || v->type != JSON_OBJECT)
		return NULL;
	probe.key = (char *)key;
	probe.key_len = strlen(key);
	hi = v->u.obj.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct json_member *m = v->u.obj.sorted[mid];
		int r = cmp_keys(&probe, m);

		if (!r)
			return &m->value;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct json_value *json_at(const struct json_value *v, size_t i)
{
	if (!v || v->type != JSON_ARRAY || i >= v->u.arr.n)
		return NULL;
	return &v->u.arr.items[i];
}

size_t json_count(const struct json_value *v)
{
	if (!v)
		return 0;
	if (v->type == JSON_ARRAY)
		return v->u.arr.n;
	if (v->type == JSON_OBJECT)
		return v->u.obj.n;
	return 0;
}

const struct json_member *json_member_at(const struct json_value *v, size_t i)
{
	if (!v || v->type != JSON_OBJECT || i >= v->u.obj.n)
		return NULL;
	return &v->u.obj.members[i];
}

const char *json_str(const struct json_value *v, size_t *len)
{
	if (!v || v->type != JSON_STRING)
		return NULL;
	if (len)
		*len = v->u.str.len;
	return v->u.str.s;
}

int json_int(const struct json_value *v, int64_t *out)
{
	if (!v || v->type != JSON_NUMBER || !v->u.num.is_int)
		return -1;
	*out = v->u.num.i;
	return 0;
}

int json_bool(const struct json_value *v, bool *out)
{
	if (!v || v->type != JSON_BOOL)
		return -1;
	*out = v->u.boolean;
	return 0;
}
