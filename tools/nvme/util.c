// SPDX-License-Identifier: MIT
/*
 * mqblk's nvme-cli-style commands: formatting of identify data and bit
 * fields, and the options the commands share.
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

/* A fixed-width ASCII field as a C string: up to the first NUL, padding
 * kept (nvme-cli prints sn/mn/fr with their trailing spaces). */
void nvcli_field_str(char *out, size_t outlen, const char *field, size_t width)
{
	size_t n = strnlen(field, width);

	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, field, n);
	out[n] = 0;
}

void nvcli_rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == ' ')
		s[--n] = 0;
}

/* A 128-bit little-endian counter in decimal */
const char *nvcli_u128_str(const uint8_t le[16], char buf[48])
{
	unsigned __int128 v = 0;
	char *p = buf + 47;
	int i;

	for (i = 15; i >= 0; i--)
		v = v << 8 | le[i];
	*p = 0;
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	return p;
}

int nvcli_parse_fmt(const char *cmd, const char *s, enum out_fmt *fmt)
{
	if (!strcmp(s, "normal")) {
		*fmt = FMT_NORMAL;
		return 0;
	}
	if (!strcmp(s, "json")) {
		*fmt = FMT_JSON;
		return 0;
	}
	fprintf(stderr,
		"mqblk %s: output format '%s' not supported (normal|json)\n",
		cmd, s);
	return -EINVAL;
}

/* getopt_long's '?' and ':' as one line naming the option */
void nvcli_bad_option(const char *cmd, int c, char **argv)
{
	const char *opt = argv[optind - 1];

	if (c == ':')
		fprintf(stderr, "mqblk %s: option '%s' needs a value\n", cmd,
			opt);
	else if (optopt)
		fprintf(stderr, "mqblk %s: unknown option '-%c'\n", cmd,
			optopt);
	else
		fprintf(stderr, "mqblk %s: unknown option '%s'\n", cmd, opt);
}

/* -H: bit fields spelled out, in nvme-cli's words */
void nvcli_show_bits(uint32_t v, const struct bits *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++, b++) {
		uint32_t mask = b->hi >= 31 ?
					~0u >> b->lo :
					((1u << (b->hi + 1)) - 1) >> b->lo;
		uint32_t f = v >> b->lo & mask;
		const char *text = f || !b->clear ? b->set : b->clear;
		char pos[16];

		if (b->vals)
			text = f < 4 ? b->vals[f] : "Reserved";
		else if (!b->set && !f)
			continue;
		snprintf(pos, sizeof(pos), "[%u:%u]", b->hi, b->lo);
		printf("%7s : %#x\t%s", pos, f, text ? text : "Reserved");
		if (b->size)
			printf(" (%u)", f < 32 ? 1u << f : 0);
		putchar('\n');
	}
	printf("\n");
}

/* The options of id-ctrl and id-ns */
int nvcli_id_args_parse(const char *cmd, int argc, char **argv,
			struct id_args *a, void (*usage)(FILE *))
{
	static const struct option longopts[] = {
		{ "output-format", required_argument, NULL, 'o' },
		{ "human-readable", no_argument, NULL, 'H' },
		{ "namespace-id", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool ns = !strcmp(cmd, "id-ns");
	unsigned long v;
	char *end;
	int c;

	memset(a, 0, sizeof(*a));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ns ? ":o:Hn:h" : ":o:Hh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			if (nvcli_parse_fmt(cmd, optarg, &a->fmt))
				return 1;
			break;
		case 'H':
			a->human = true;
			break;
		case 'n':
			if (!ns) {
				nvcli_bad_option(cmd, '?', argv);
				return 1;
			}
			errno = 0;
			v = strtoul(optarg, &end, 0);
			if (errno || *end || !v || v >= NVME_NSID_ALL) {
				fprintf(stderr,
					"mqblk %s: bad namespace id '%s'\n",
					cmd, optarg);
				return 1;
			}
			a->nsid = (uint32_t)v;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			nvcli_bad_option(cmd, c, argv);
			return 1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr,
			"mqblk %s: no controller: give an "
			"nvme-tcp://HOST:PORT/SUBNQN URI\n",
			cmd);
		return 1;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "mqblk %s: unexpected argument '%s'\n", cmd,
			argv[optind + 1]);
		return 1;
	}
	a->uri = argv[optind];
	return 0;
}
