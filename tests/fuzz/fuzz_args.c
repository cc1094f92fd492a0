// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the input, split at NUL bytes and newlines, is the
 * argument list of `mqblk bench` (argv[0] = "bench"). Each argument is its
 * own allocation, so reading past one is an ASan report. After
 * bench_parse_args the arguments must be unchanged, cmdline must be them
 * joined by blanks, and the result must satisfy fuzz_check.h.
 *
 * A bare argument names a job file to open, and "-" is stdin: inputs that
 * would make the parser read one are skipped, so the fuzzer never touches
 * the file system or blocks. That mirrors the parser's rule (an option
 * without '=' that takes a value consumes the next argument, which may then
 * be anything), so "--rw randread" is still fuzzed.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "fuzz_check.h"

#define MAX_ARGS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Would bench_parse_args read this argument as a job file? */
static bool is_file_arg(const char *arg)
{
	return arg[0] != '-' || !arg[1];
}

/* Does this option, given without '=', take the next argument? */
static bool takes_next(const char *arg)
{
	const char *key = arg + (arg[1] == '-' ? 2 : 1);
	struct bench_job scratch;
	char err[160];
	int r;

	if (strchr(key, '='))
		return false;
	if (!strcmp(key, "output-format") || !strcmp(key, "output") ||
	    !strcmp(key, "eta"))
		return true;
	/* a job option without a value: a boolean sets itself (0), any
	 * other type wants a value (-1), an unknown key is 1 */
	bench_job_defaults(&scratch);
	r = bench_job_set(&scratch, key, NULL, err, sizeof(err));
	bench_job_free(&scratch);
	return r < 0;
}

static bool opens_a_file(int argc, char **argv)
{
	int i = 1;

	while (i < argc) {
		if (is_file_arg(argv[i]))
			return true;
		i += takes_next(argv[i]) && i + 1 < argc ? 2 : 1;
	}
	return false;
}

static char *joined(int argc, char **argv)
{
	size_t len = 1;
	char *s, *p;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	for (i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (i)
			*p++ = ' ';
		memcpy(p, argv[i], n);
		p += n;
	}
	*p = 0;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 1], *saved[MAX_ARGS + 1], *orig[MAX_ARGS + 1];
	struct bench_config cfg;
	char err[256], *want;
	int argc = 0, i, ret;
	size_t start = 0, pos;

	argv[argc++] = strdup("bench");
	/* empty pieces (two separators in a row) are skipped */
	for (pos = 0; pos <= size && argc < MAX_ARGS; pos++) {
		size_t len = pos - start;

		if (pos < size && data[pos] && data[pos] != '\n')
			continue;
		if (len) {
			argv[argc] = malloc(len + 1);
			if (!argv[argc])
				break;
			memcpy(argv[argc], data + start, len);
			argv[argc][len] = 0;
			argc++;
		}
		start = pos + 1;
	}
	argv[argc] = NULL;
	if (!argv[0] || opens_a_file(argc, argv))
		goto out_args;

	memcpy(saved, argv, sizeof(argv[0]) * (size_t)(argc + 1));
	for (i = 0; i < argc; i++)
		orig[i] = strdup(argv[i]);

	memset(err, 0x55, sizeof(err));
	ret = bench_parse_args(argc, argv, &cfg, err, sizeof(err));

	/* argv is the caller's: neither the array nor the strings move */
	for (i = 0; i <= argc; i++)
		FUZZ_CHECK(argv[i] == saved[i]);
	for (i = 0; i < argc; i++)
		FUZZ_CHECK(!orig[i] || !strcmp(argv[i], orig[i]));

	if (ret) {
		FUZZ_CHECK(ret == -1);
		fuzz_check_error(err, sizeof(err));
	} else {
		fuzz_check_config(&cfg, !cfg.help && !cfg.version);
		want = joined(argc, argv);
		FUZZ_CHECK(!want || !strcmp(cfg.cmdline, want));
		free(want);
	}
	bench_config_free(&cfg);
	for (i = 0; i < argc; i++)
		free(orig[i]);
out_args:
	for (i = 0; i < argc; i++)
		free(argv[i]);
	return 0;
}
