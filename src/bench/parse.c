// SPDX-License-Identifier: MIT
/*
 * fio's value syntax: sizes with its unit suffixes, times, integers and
 * booleans. Stricter than fio in one way only: a suffix fio does not know
 * (fio reads "4q" as 4 bytes) is an error here, because a typo that
 * silently changes the block size is exactly what a benchmark must not do.
 * The same goes for suffixes that look meaningful but that fio 3.33
 * ignores: "1e" (no exa unit: 1 byte), "0x10k" (no suffix on hex: 16),
 * and the time units "ns", "sec", "min", "hour", "day" (all read as
 * microseconds by fio's get_mult_time).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench.h"
#include "verify.h"

int bench_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/*
 * Leading unsigned number: decimal or 0x hex, no sign, no blanks. Sets
 * *end past it. Returns 0, -1 (no digits) or -2 (overflow); *out and
 * *end are set only on 0.
 */
static int parse_number(const char *s, uint64_t *out, const char **end)
{
	const char *p = s;
	uint64_t v = 0;
	unsigned base = 10, digit;
	bool any = false;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    isxdigit((unsigned char)p[2])) {
		base = 16;
		p += 2;
	}
	for (;; p++) {
		if (isdigit((unsigned char)*p))
			digit = (unsigned)(*p - '0');
		else if (base == 16 && isxdigit((unsigned char)*p))
			digit = (unsigned)(tolower((unsigned char)*p) - 'a' +
					   10);
		else
			break;
		if (v > (UINT64_MAX - digit) / base)
			return -2;
		v = v * base + digit;
		any = true;
	}
	if (!any)
		return -1;
	*out = v;
	*end = p;
	return 0;
}

/*
 * fio's get_mult_bytes with kb_base=1024 (its default): k/K/kb/KB = 2^10,
 * m = 2^20, ... p = 2^50; the IEC forms (KiB, MiB, ...) are powers of 1000
 * under fio's compatibility mode ("opposite units", fio's HOWTO on
 * kb_base), and we keep that so a fio job means the same here. With
 * kb_base=1000 both are what they say: k = 1000, KiB = 1024. fio 3.33
 * has no exa unit ("1e" is 1 byte there), so 'e' is not one here either.
 * "b" alone is bytes. Returns the multiplier, or 0 for an unknown suffix.
 */
static uint64_t size_mult(const char *sfx, unsigned kb_base)
{
	const uint64_t other = kb_base == 1000 ? 1024 : 1000;
	static const char units[] = "kmgtp";
	const char *u;
	size_t len = strlen(sfx);
	uint64_t mult = 1, base;
	unsigned pow, i;

	if (len == 0 || !strcasecmp(sfx, "b"))
		return 1;
	u = strchr(units, tolower((unsigned char)sfx[0]));
	if (!u || !sfx[0])
		return 0;
	pow = (unsigned)(u - units) + 1;
	if (len == 1 || (len == 2 && tolower((unsigned char)sfx[1]) == 'b'))
		base = kb_base;
	else if (len == 3 && tolower((unsigned char)sfx[1]) == 'i' &&
		 tolower((unsigned char)sfx[2]) == 'b')
		base = other;
	else
		return 0;
	for (i = 0; i < pow; i++)
		mult *= base;
	return mult;
}

int bench_parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
	return bench_parse_size_base(s, 1024, out, err, errlen);
}

int bench_parse_size_base(const char *s, unsigned kb_base, uint64_t *out,
			  char *err, size_t errlen)
{
	const char *end;
	uint64_t v, mult;
	int ret;

	if (!s || !*s)
		return bench_err(err, errlen, "empty size");
	if (*s == '-')
		return bench_err(err, errlen, "negative size '%s'", s);
	if (strchr(s, '%'))
		return bench_err(err, errlen,
				 "size '%s': percentages are not supported", s);
	ret = parse_number(s, &v, &end);
	if (ret == -1)
		return bench_err(err, errlen, "bad size '%s'", s);
	if (ret == -2)
		return bench_err(err, errlen, "size '%s' is too large", s);
	/* fio applies no suffix to a hex number ("0x10k" is 16 there) */
	if (*end && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && end > s + 2)
		return bench_err(
			err, errlen,
			"size '%s': no unit suffix on hex (fio ignores it)", s);
	mult = size_mult(end, kb_base);
	if (!mult)
		return bench_err(err, errlen, "bad size suffix in '%s'", s);
	if (v && mult > UINT64_MAX / v)
		return bench_err(err, errlen, "size '%s' is too large", s);
	*out = v * mult;
	return 0;
}

/*
 * fio's get_mult_time: the unit's length in ns, 0 if unknown. Only the
 * units fio 3.33 knows: it reads any other letters ("ns", "sec", "min",
 * "hour", "day") as microseconds, so "1sec" is 1 us in fio, and accepting
 * them with their English meaning would run a different job.
 */
static uint64_t time_mult(const char *sfx, uint64_t dflt)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{ "us", 1000ull },
		{ "usec", 1000ull },
		{ "ms", 1000000ull },
		{ "msec", 1000000ull },
		{ "s", 1000000000ull },
		{ "m", 60ull * 1000000000ull },
		{ "h", 3600ull * 1000000000ull },
		{ "d", 86400ull * 1000000000ull },
	};
	size_t i;

	if (!*sfx)
		return dflt;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(sfx, units[i].name))
			return units[i].ns;
	return 0;
}

int bench_parse_time(const char *s, uint64_t *out_ns, char *err, size_t errlen)
{
	const char *end;
	uint64_t v, mult;
	int ret;

	if (!s || !*s)
		return bench_err(err, errlen, "empty time");
	if (*s == '-')
		return bench_err(err, errlen, "negative time '%s'", s);
	/* fio reads a hex time as microseconds whatever its unit */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return bench_err(err, errlen, "time '%s': hex is not supported",
				 s);
	ret = parse_number(s, &v, &end);
	if (ret == -1)
		return bench_err(err, errlen, "bad time '%s'", s);
	if (ret == -2)
		return bench_err(err, errlen, "time '%s' is too large", s);
	mult = time_mult(end, 1000000000ull);
	if (!mult)
		return bench_err(err, errlen, "bad time unit in '%s'", s);
	if (v && mult > UINT64_MAX / v)
		return bench_err(err, errlen, "time '%s' is too large", s);
	*out_ns = v * mult;
	return 0;
}

int bench_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out,
		     char *err, size_t errlen)
{
	const char *end;
	uint64_t v;
	int ret;

	if (!s || !*s)
		return bench_err(err, errlen, "empty number");
	if (*s == '-')
		return bench_err(err, errlen, "negative number '%s'", s);
	ret = parse_number(s, &v, &end);
	/* overflow first: parse_number leaves end unset when it returns -2
	 * (reading *end there was a use of an uninitialised pointer, found
	 * by tests/fuzz: corpus/args/overflow-iodepth) */
	if (ret == -2)
		return bench_err(err, errlen, "'%s' is too large (max %llu)", s,
				 (unsigned long long)max);
	if (ret == -1 || *end)
		return bench_err(err, errlen, "bad number '%s'", s);
	if (v > max)
		return bench_err(err, errlen, "'%s' is too large (max %llu)", s,
				 (unsigned long long)max);
	if (v < min)
		return bench_err(err, errlen, "'%s' is too small (min %llu)", s,
				 (unsigned long long)min);
	*out = v;
	return 0;
}

int bench_parse_bool(const char *s, bool *out, char *err, size_t errlen)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };
	size_t i;

	if (!s)
		return bench_err(err, errlen, "empty boolean");
	for (i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return bench_err(err, errlen, "bad boolean '%s' (want 0 or 1)", s);
}

/* ---- --verify and --verify_pattern (declared in verify.h) ---- */

static const char *const type_names[] = {
	[BENCH_VERIFY_NONE] = "none",	    [BENCH_VERIFY_CRC32C] = "crc32c",
	[BENCH_VERIFY_MD5] = "md5",	    [BENCH_VERIFY_SHA256] = "sha256",
	[BENCH_VERIFY_PATTERN] = "pattern",
};

const char *verify_type_name(unsigned type)
{
	return type < sizeof(type_names) / sizeof(type_names[0]) ?
		       type_names[type] :
		       "?";
}

int verify_parse_type(const char *s, unsigned *type, char *err, size_t errlen)
{
	if (!strcmp(s, "0") || !strcmp(s, "none"))
		*type = BENCH_VERIFY_NONE;
	else if (!strcmp(s, "crc32c") || !strcmp(s, "crc32c-intel"))
		*type = BENCH_VERIFY_CRC32C;
	else if (!strcmp(s, "md5"))
		*type = BENCH_VERIFY_MD5;
	else if (!strcmp(s, "sha256"))
		*type = BENCH_VERIFY_SHA256;
	else if (!strcmp(s, "pattern"))
		*type = BENCH_VERIFY_PATTERN;
	else
		return bench_err(
			err, errlen,
			"verify=%s is not supported (crc32c, crc32c-intel, "
			"md5, sha256, pattern, 0/none)",
			s);
	return 0;
}

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

int verify_parse_pattern(const char *s, uint8_t *out, unsigned *len, char *err,
			 size_t errlen)
{
	const unsigned max = BENCH_VERIFY_PATTERN_MAX;
	unsigned n = 0;
	const char *p = s;

	for (;;) {
		if (*p == '"' || *p == '\'') {
			char q = *p++;

			while (*p && *p != q) {
				if (n == max)
					goto too_long;
				out[n++] = (uint8_t)*p++;
			}
			if (*p != q)
				return bench_err(
					err, errlen,
					"verify_pattern=%s: unterminated "
					"string",
					s);
			p++;
		} else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			const char *h = p + 2, *e = h;
			size_t nd;

			while (hexval(*e) >= 0)
				e++;
			nd = (size_t)(e - h);
			if (!nd)
				return bench_err(
					err, errlen,
					"verify_pattern=%s: no hex digits "
					"after 0x",
					s);
			/* an odd digit count: the first byte is one digit */
			if (nd & 1) {
				if (n == max)
					goto too_long;
				out[n++] = (uint8_t)hexval(*h++);
			}
			while (h < e) {
				if (n == max)
					goto too_long;
				out[n++] = (uint8_t)(hexval(h[0]) << 4 |
						     hexval(h[1]));
				h += 2;
			}
			p = e;
		} else if (*p >= '0' && *p <= '9') {
			uint64_t v = 0;

			while (*p >= '0' && *p <= '9') {
				uint64_t d = (uint64_t)(*p - '0');

				if (v > (UINT64_MAX - d) / 10)
					return bench_err(
						err, errlen,
						"verify_pattern=%s: number "
						"too large",
						s);
				v = v * 10 + d;
				p++;
			}
			do {
				if (n == max)
					goto too_long;
				out[n++] = (uint8_t)v;
				v >>= 8;
			} while (v);
		} else {
			return bench_err(
				err, errlen,
				"verify_pattern=%s: want 0xHEX, \"string\" "
				"or a number (fio's %%o formats are not "
				"supported)",
				s);
		}
		if (!*p)
			break;
		if (*p != ',' || !p[1])
			return bench_err(err, errlen,
					 "verify_pattern=%s: junk at '%s'", s,
					 p);
		p++;
	}
	if (!n)
		return bench_err(err, errlen, "verify_pattern is empty");
	*len = n;
	return 0;
too_long:
	return bench_err(err, errlen,
			 "verify_pattern=%.32s...: longer than %u bytes", s,
			 max);
}
