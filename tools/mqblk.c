// SPDX-License-Identifier: MIT
/*
 * mqblk: the one command-line tool. Subcommands: bench (fio-compatible
 * benchmark); later target, discover, id-ctrl, id-ns, compare, report.
 */
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"

#define MQBLK_VERSION "0.1.0"

static void usage(FILE *f)
{
	fprintf(f, "usage: mqblk <command> [options]\n"
		   "\n"
		   "commands:\n"
		   "  bench     fio-compatible benchmark of an mqblk device\n"
		   "            (mqblk bench --help for its options)\n"
		   "  version   print the version\n"
		   "  help      this text\n");
}

static int cmd_bench(int argc, char **argv)
{
	struct bench_config cfg;
	char err[512];
	int status;

	memset(&cfg, 0, sizeof(cfg));
	if (bench_parse_args(argc, argv, &cfg, err, sizeof(err))) {
		fprintf(stderr, "mqblk: %s\n", err);
		bench_config_free(&cfg);
		return 1;
	}
	if (cfg.help) {
		bench_usage(stdout);
		bench_config_free(&cfg);
		return 0;
	}
	if (cfg.version) {
		printf("mqblk-%s\n", MQBLK_VERSION);
		bench_config_free(&cfg);
		return 0;
	}
	status = bench_run(&cfg);
	bench_config_free(&cfg);
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "bench"))
		return cmd_bench(argc - 1, argv + 1);
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		printf("mqblk-%s\n", MQBLK_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "mqblk: unknown command '%s' (try mqblk help)\n",
		argv[1]);
	return 1;
}
