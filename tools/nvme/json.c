// SPDX-License-Identifier: MIT
/*
 * mqblk's nvme-cli-style commands: a JSON writer that lays its output out
 * as json-c's JSON_C_TO_STRING_PRETTY does (nvme-cli's -o json).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../nvme.h"
#include "nvcli.h"

static void jw_indent(int level)
{
	printf("%*s", level * 2, "");
}

static void jw_str_body(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putchar('"');
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\r':
			fputs("\\r", stdout);
			break;
		case '\t':
			fputs("\\t", stdout);
			break;
		case '\b':
			fputs("\\b", stdout);
			break;
		case '\f':
			fputs("\\f", stdout);
			break;
		default:
			if (*p < 0x20)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
	}
	putchar('"');
}

/* Start a member (key may be NULL inside an array) */
static void jw_member(struct jw *w, const char *key)
{
	if (w->depth > 0) {
		if (w->had_member[w->depth])
			fputs(",\n", stdout);
		w->had_member[w->depth] = true;
		jw_indent(w->depth);
	}
	if (key) {
		jw_str_body(key);
		putchar(':');
	}
}

void jw_open(struct jw *w, const char *key, char brace)
{
	jw_member(w, key);
	putchar(brace);
	putchar('\n');
	if (w->depth + 1 < JSON_MAX_DEPTH)
		w->depth++;
	w->had_member[w->depth] = false;
}

void jw_close(struct jw *w, char brace)
{
	if (w->had_member[w->depth])
		putchar('\n');
	w->depth--;
	jw_indent(w->depth);
	putchar(brace);
	if (!w->depth)
		putchar('\n');
}

void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_member(w, key);
	printf("%" PRIu64, v);
}

void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_member(w, key);
	jw_str_body(s);
}

/* nvme-cli writes 128-bit counters into its JSON as decimal strings */
void jw_u128(struct jw *w, const char *key, const uint8_t le[16])
{
	char b[48];

	jw_str(w, key, nvcli_u128_str(le, b));
}
