// SPDX-License-Identifier: MIT
/*
 * The checking pass of json.h, before json-c builds the tree: recursive
 * descent over a bounded buffer that builds nothing, holding the text to
 * RFC 8259 where json-c's tokener is lax. Nothing reads past text + len.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"

/* The checking pass. */
struct jc {
	const char *text;
	size_t len;
	size_t pos;
	unsigned depth;
	size_t nr_values;
	bool find_dups; /* compare keys (cj_check's second pass) */
	char *err;
	size_t errlen;
	struct cj_wide *wide;
	size_t nr_wide, wide_cap;
};

/* One key of an object being checked, decoded, for the duplicate test. */
struct cj_key {
	char *s;
	size_t len;
	size_t off;
	size_t idx;
};

static int jc_err_at(struct jc *jc, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int jc_err_at(struct jc *jc, size_t off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cj_err_at(jc->text, jc->len, off, jc->err, jc->errlen, "%s",
			 msg);
}

/* What is at jc->pos, for "expected X, found Y" messages. */
static const char *jc_found(const struct jc *jc, char *buf, size_t len)
{
	unsigned char ch;

	if (jc->pos >= jc->len)
		return "end of input";
	ch = (unsigned char)jc->text[jc->pos];
	if (ch > 0x20 && ch < 0x7f)
		snprintf(buf, len, "'%c'", ch);
	else
		snprintf(buf, len, "byte 0x%02x", ch);
	return buf;
}

static void skip_ws(struct jc *jc)
{
	while (jc->pos < jc->len) {
		char c = jc->text[jc->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		jc->pos++;
	}
}

/*
 * The length of the valid UTF-8 sequence at s (at most avail bytes), or 0
 * if it is not one: no overlong forms, no surrogates, nothing above
 * U+10FFFF (RFC 3629). json-c's JSON_TOKENER_VALIDATE_UTF8 lets the
 * first three through.
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

/*
 * A \uXXXX escape at jc->pos (the backslash); surrogate pairs joined.
 * json-c turns a lone surrogate into U+FFFD without a word: refused here.
 */
static int check_u_escape(struct jc *jc, uint32_t *cp)
{
	size_t at = jc->pos;
	uint32_t hi, lo;

	if (jc->len - jc->pos < 6 || hex4(jc->text + jc->pos + 2, &hi))
		return jc_err_at(jc, at, "\\u needs four hex digits");
	jc->pos += 6;
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return jc_err_at(jc, at, "lone low surrogate \\u%04x", hi);
	if (hi < 0xd800 || hi > 0xdbff) {
		*cp = hi;
		return 0;
	}
	if (jc->len - jc->pos < 6 || jc->text[jc->pos] != '\\' ||
	    jc->text[jc->pos + 1] != 'u' || hex4(jc->text + jc->pos + 2, &lo) ||
	    lo < 0xdc00 || lo > 0xdfff)
		return jc_err_at(
			jc, at, "high surrogate \\u%04x without a low one", hi);
	jc->pos += 6;
	*cp = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

/*
 * A string at jc->pos (the opening quote), checked; decoded into a new
 * buffer only if out (keys, for the duplicate test). The decoded form is
 * never longer than the quoted one, so one scan finds the closing quote
 * and sizes the buffer. A key may not hold \u0000: json-c's keys are C
 * strings, it would cut the key there.
 */
static int check_string(struct jc *jc, bool is_key, char **out, size_t *outlen)
{
	size_t start = jc->pos, end, n = 0;
	char *s = NULL;

	/* find the closing quote: a '"' not escaped */
	for (end = start + 1; end < jc->len; end++) {
		if (jc->text[end] == '"')
			break;
		if (jc->text[end] == '\\')
			end++;
	}
	if (end >= jc->len)
		return jc_err_at(jc, start, "unterminated string");
	if (end - start - 1 > JSON_MAX_STRING)
		return jc_err_at(jc, start, "string longer than %u bytes",
				 JSON_MAX_STRING);
	if (out) {
		s = malloc(end - start); /* quoted length - 1: room for NUL */
		if (!s)
			return jc_err_at(jc, start, "out of memory");
	}
	jc->pos = start + 1;
	while (jc->pos < end) {
		unsigned char c = (unsigned char)jc->text[jc->pos];
		uint32_t cp = 0;
		size_t k;

		if (c < 0x20) {
			jc_err_at(jc, jc->pos,
				  "control character 0x%02x in a string "
				  "(escape it)",
				  c);
			goto out_free;
		}
		if (c != '\\') {
			k = utf8_seq((const unsigned char *)jc->text + jc->pos,
				     end - jc->pos);
			if (!k) {
				jc_err_at(jc, jc->pos,
					  "invalid UTF-8 byte 0x%02x in a "
					  "string",
					  c);
				goto out_free;
			}
			if (s)
				memcpy(s + n, jc->text + jc->pos, k);
			n += k;
			jc->pos += k;
			continue;
		}
		/* an escape: end is past it (the scan above skipped it) */
		switch (jc->text[jc->pos + 1]) {
		case '"':
		case '\\':
		case '/':
			cp = (unsigned char)jc->text[jc->pos + 1];
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
			if (check_u_escape(jc, &cp))
				goto out_free;
			if (!cp && is_key) {
				jc_err_at(jc, start, "\\u0000 in a key");
				goto out_free;
			}
			if (jc->pos > end) {
				jc_err_at(jc, end, "unterminated string");
				goto out_free;
			}
			if (s)
				n += utf8_put(s + n, cp);
			continue;
		default:
			jc_err_at(jc, jc->pos, "invalid escape in a string");
			goto out_free;
		}
		if (s)
			s[n] = (char)cp;
		n++;
		jc->pos += 2;
	}
	jc->pos = end + 1;
	if (out) {
		s[n] = 0;
		*out = s;
		*outlen = n;
	}
	return 0;

out_free:
	free(s);
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Remember an integer json-c would clamp, to make it a double later. */
static int note_wide(struct jc *jc, size_t start, double d)
{
	if (jc->nr_wide == jc->wide_cap) {
		size_t ncap = jc->wide_cap ? jc->wide_cap * 2 : 8;
		struct cj_wide *w = realloc(jc->wide, ncap * sizeof(*w));

		if (!w)
			return jc_err_at(jc, start, "out of memory");
		jc->wide = w;
		jc->wide_cap = ncap;
	}
	jc->wide[jc->nr_wide].ord = jc->nr_values;
	jc->wide[jc->nr_wide].d = d;
	jc->nr_wide++;
	return 0;
}

/*
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?: json-c takes "1." and,
 * inside arrays, "-01", and its strtod turns 1e999 into infinity.
 */
static int check_number(struct jc *jc)
{
	size_t start = jc->pos, p = jc->pos, ndig, int_end;
	bool neg = false, integral = true, has_exp = false;
	uint64_t mag = 0;
	bool overflow = false;
	char small[64], *copy;
	double d;

	if (p < jc->len && jc->text[p] == '-') {
		neg = true;
		p++;
	}
	if (p >= jc->len || !is_digit(jc->text[p]))
		return jc_err_at(jc, p, "a number needs a digit here");
	if (jc->text[p] == '0' && p + 1 < jc->len && is_digit(jc->text[p + 1]))
		return jc_err_at(jc, start, "leading zero in a number");
	while (p < jc->len && is_digit(jc->text[p])) {
		unsigned dgt = (unsigned)(jc->text[p] - '0');

		if (mag > (UINT64_MAX - dgt) / 10)
			overflow = true;
		else
			mag = mag * 10 + dgt;
		p++;
	}
	int_end = p;
	if (p < jc->len && jc->text[p] == '.') {
		integral = false;
		p++;
		for (ndig = 0; p < jc->len && is_digit(jc->text[p]); ndig++)
			p++;
		if (!ndig)
			return jc_err_at(jc, p, "a fraction needs a digit");
	}
	if (p < jc->len && (jc->text[p] == 'e' || jc->text[p] == 'E')) {
		integral = false;
		has_exp = true;
		p++;
		if (p < jc->len && (jc->text[p] == '+' || jc->text[p] == '-'))
			p++;
		for (ndig = 0; p < jc->len && is_digit(jc->text[p]); ndig++)
			p++;
		if (!ndig)
			return jc_err_at(jc, p, "an exponent needs a digit");
	}
	if (integral && !overflow &&
	    mag <= (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) {
		jc->pos = p;
		return 0; /* json-c's int64 holds it */
	}
	/* under 10^300 without an exponent: finite, no strtod needed (a
	 * fio report is thousands of such numbers; json-c reads them too) */
	if (!integral && !has_exp && int_end - start < 300) {
		jc->pos = p;
		return 0;
	}

	/* strtod needs a NUL-terminated copy; the grammar is checked */
	if (p - start < sizeof(small)) {
		copy = small;
	} else {
		copy = malloc(p - start + 1);
		if (!copy)
			return jc_err_at(jc, start, "out of memory");
	}
	memcpy(copy, jc->text + start, p - start);
	copy[p - start] = 0;
	d = strtod(copy, NULL);
	if (copy != small)
		free(copy);
	if (!isfinite(d))
		return jc_err_at(jc, start, "number out of range");
	if (integral && note_wide(jc, start, d))
		return -1;
	jc->pos = p;
	return 0;
}

static int check_literal(struct jc *jc, const char *word)
{
	size_t n = strlen(word);

	if (jc->len - jc->pos < n || memcmp(jc->text + jc->pos, word, n))
		return jc_err_at(jc, jc->pos, "invalid literal (expected %s)",
				 word);
	jc->pos += n;
	return 0;
}

static int check_value(struct jc *jc);

static int check_array(struct jc *jc)
{
	char buf[16];

	jc->pos++; /* '[' */
	skip_ws(jc);
	if (jc->pos < jc->len && jc->text[jc->pos] == ']') {
		jc->pos++;
		return 0;
	}
	for (;;) {
		if (check_value(jc))
			return -1;
		skip_ws(jc);
		if (jc->pos < jc->len && jc->text[jc->pos] == ',') {
			jc->pos++;
			continue;
		}
		if (jc->pos < jc->len && jc->text[jc->pos] == ']') {
			jc->pos++;
			return 0;
		}
		return jc_err_at(jc, jc->pos, "expected ',' or ']', found %s",
				 jc_found(jc, buf, sizeof(buf)));
	}
}

static int cmp_keys(const void *pa, const void *pb)
{
	const struct cj_key *a = pa, *b = pb;
	size_t n = a->len < b->len ? a->len : b->len;
	int r = memcmp(a->s, b->s, n);

	if (r)
		return r;
	if (a->len != b->len)
		return (a->len > b->len) - (a->len < b->len);
	/* ties by position: the later one is the duplicate */
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* json-c keeps the last of two equal keys: find them here. */
static int check_unique(struct jc *jc, struct cj_key *keys, size_t n)
{
	size_t i;
	char q[96];

	qsort(keys, n, sizeof(*keys), cmp_keys);
	for (i = 1; i < n; i++) {
		if (keys[i - 1].len != keys[i].len ||
		    memcmp(keys[i - 1].s, keys[i].s, keys[i].len))
			continue;
		cj_quote(q, sizeof(q), keys[i].s, keys[i].len);
		return jc_err_at(jc, keys[i].off, "duplicate key %s", q);
	}
	return 0;
}

/*
 * Keys are compared only on cj_check's second pass, when json-c's tree
 * came out with fewer values than the text has (it keeps the last of two
 * equal keys): decoding, sorting and freeing every key of every object
 * cost more than json-c's own parse of a fio report.
 */
static int check_object(struct jc *jc)
{
	struct cj_key *keys = NULL, scratch;
	size_t n = 0, cap = 0, i;
	char buf[16];
	int ret = -1;

	jc->pos++; /* '{' */
	skip_ws(jc);
	if (jc->pos < jc->len && jc->text[jc->pos] == '}') {
		jc->pos++;
		return 0;
	}
	for (;;) {
		struct cj_key *k = &scratch;

		if (jc->find_dups && n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct cj_key *nk = realloc(keys, ncap * sizeof(*nk));

			if (!nk) {
				jc_err_at(jc, jc->pos, "out of memory");
				goto out;
			}
			keys = nk;
			cap = ncap;
		}
		if (jc->pos >= jc->len || jc->text[jc->pos] != '"') {
			jc_err_at(jc, jc->pos,
				  "expected a string key, found %s",
				  jc_found(jc, buf, sizeof(buf)));
			goto out;
		}
		if (jc->find_dups) {
			k = &keys[n];
			k->off = jc->pos;
			k->idx = n;
			if (check_string(jc, true, &k->s, &k->len))
				goto out;
			n++;
		} else if (check_string(jc, true, NULL, NULL)) {
			goto out;
		}
		skip_ws(jc);
		if (jc->pos >= jc->len || jc->text[jc->pos] != ':') {
			jc_err_at(jc, jc->pos, "expected ':', found %s",
				  jc_found(jc, buf, sizeof(buf)));
			goto out;
		}
		jc->pos++;
		if (check_value(jc))
			goto out;
		skip_ws(jc);
		if (jc->pos < jc->len && jc->text[jc->pos] == ',') {
			jc->pos++;
			skip_ws(jc);
			continue;
		}
		if (jc->pos < jc->len && jc->text[jc->pos] == '}') {
			jc->pos++;
			break;
		}
		jc_err_at(jc, jc->pos, "expected ',' or '}', found %s",
			  jc_found(jc, buf, sizeof(buf)));
		goto out;
	}
	ret = jc->find_dups ? check_unique(jc, keys, n) : 0;
out:
	for (i = 0; i < n; i++)
		free(keys[i].s);
	free(keys);
	return ret;
}

/* One value at jc->pos (after whitespace). */
static int check_value(struct jc *jc)
{
	char buf[16];
	int ret;

	skip_ws(jc);
	if (++jc->nr_values > JSON_MAX_VALUES)
		return jc_err_at(jc, jc->pos, "more than %u values",
				 JSON_MAX_VALUES);
	if (jc->pos >= jc->len)
		return jc_err_at(jc, jc->pos,
				 "expected a value, found end of input");
	switch (jc->text[jc->pos]) {
	case '{':
	case '[':
		if (jc->depth >= JSON_MAX_DEPTH)
			return jc_err_at(jc, jc->pos,
					 "nested deeper than %u levels",
					 JSON_MAX_DEPTH);
		jc->depth++;
		if (jc->text[jc->pos] == '{')
			ret = check_object(jc);
		else
			ret = check_array(jc);
		jc->depth--;
		return ret;
	case '"':
		return check_string(jc, false, NULL, NULL);
	case 't':
		return check_literal(jc, "true");
	case 'f':
		return check_literal(jc, "false");
	case 'n':
		return check_literal(jc, "null");
	default:
		if (jc->text[jc->pos] == '-' || is_digit(jc->text[jc->pos]))
			return check_number(jc);
		return jc_err_at(jc, jc->pos, "expected a value, found %s",
				 jc_found(jc, buf, sizeof(buf)));
	}
}

int cj_check(const char *text, size_t len, size_t start, bool find_dups,
	     struct cj_wide **wide, size_t *nr_wide, size_t *nr_values,
	     char *err, size_t errlen)
{
	struct jc jc = {
		.text = text,
		.len = len,
		.pos = start,
		.find_dups = find_dups,
		.err = err,
		.errlen = errlen,
	};
	char buf[16];

	*wide = NULL;
	*nr_wide = 0;
	*nr_values = 0;
	if (check_value(&jc))
		goto out_free;
	skip_ws(&jc);
	if (jc.pos < jc.len) {
		jc_err_at(&jc, jc.pos, "%s after the value",
			  jc_found(&jc, buf, sizeof(buf)));
		goto out_free;
	}
	*wide = jc.wide;
	*nr_wide = jc.nr_wide;
	*nr_values = jc.nr_values;
	return 0;

out_free:
	free(jc.wide);
	return -1;
}
