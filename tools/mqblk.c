// SPDX-License-Identifier: MIT
/*
 * mqblk: the one command-line tool. Subcommands: bench (fio-compatible
 * benchmark), target (NVMe/TCP target), ctl (a running target's control
 * socket), discover, id-ctrl, id-ns, list and ana-log (nvme-cli's, over
 * mqblk's NVMe/TCP host), compare (fio JSON reports, base against new),
 * plot (an HTML page of charts from reports and logs).
 */
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "compare.h"
#include "nvme.h"
#include "plot.h"
#include "target/target.h"

#define MQBLK_VERSION "0.1.0"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk <command> [options]\n"
		"\n"
		"commands:\n"
		"  bench     fio-compatible benchmark of an mqblk device\n"
		"            (mqblk bench --help for its options)\n"
		"  target    NVMe/TCP target exporting mqblk devices\n"
		"            (mqblk target --help for its options)\n"
		"  ctl       send a command to a running target's --ctl "
		"socket: ANA\n"
		"            states, port-down/port-up, stats, live "
		"configuration\n"
		"            (add-ns, add-subsys, ...), save, show (mqblk ctl "
		"--help)\n"
		"  discover  an NVMe-oF discovery log, as nvme discover\n"
		"            (-t tcp|rdma -a ADDR -s PORT [-o json])\n"
		"  id-ctrl   Identify Controller of an nvme-tcp:// or "
		"nvme-rdma:// URI\n"
		"  id-ns     Identify Namespace of an nvme-tcp:// or "
		"nvme-rdma:// URI\n"
		"  list      nvme list's summary of nvme-tcp:// or nvme-rdma:// "
		"URIs\n"
		"  ana-log   the ANA log (page 0Ch) of an nvme-tcp:// URI, as "
		"nvme ana-log\n"
		"            (mqblk COMMAND --help for the options of each)\n"
		"  compare   fio/mqblk JSON reports, base against new: change and\n"
		"            significance per job and metric (mqblk compare --help)\n"
		"  plot      an HTML page of charts (gnuplot) from reports and\n"
		"            their logs, runs overlaid (mqblk plot --help)\n"
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

/* The stats socket a target serves when not told otherwise */
#define TARGET_STATS_DEFAULT "/tmp/mqblk-target.sock"

static int cmd_target(int argc, char **argv)
{
	struct tgt t;
	char err[512];
	int i, ret;

	/* mqblk target --stats [--stats-socket PATH]: a client of a running
	 * target, not a target */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--stats")) {
			const char *path = TARGET_STATS_DEFAULT;
			int j;

			for (j = 1; j < argc; j++) {
				if (j == i)
					continue;
				if (!strcmp(argv[j], "--stats-socket") &&
				    j + 1 < argc) {
					path = argv[++j];
				} else if (!strncmp(argv[j],
						    "--stats-socket=", 15)) {
					path = argv[j] + 15;
				} else {
					fprintf(stderr,
						"mqblk target: --stats takes "
						"only --stats-socket PATH, not "
						"'%s'\n",
						argv[j]);
					return 1;
				}
			}
			return tgt_stats_client(path);
		}
	}
	memset(&t, 0, sizeof(t));
	ret = tgt_config_args(&t, argc, argv, err, sizeof(err));
	if (ret == 1) {
		tgt_config_free(&t);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "mqblk target: %s\n", err);
		tgt_config_free(&t);
		return 1;
	}
	if (!t.stats_path) {
		t.stats_path = strdup(TARGET_STATS_DEFAULT);
		if (!t.stats_path) {
			tgt_config_free(&t);
			return 1;
		}
	}
	ret = tgt_run(&t);
	tgt_config_free(&t);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "bench"))
		return cmd_bench(argc - 1, argv + 1);
	if (!strcmp(argv[1], "target"))
		return cmd_target(argc - 1, argv + 1);
	if (!strcmp(argv[1], "discover"))
		return nvme_cmd_discover(argc - 1, argv + 1);
	if (!strcmp(argv[1], "id-ctrl"))
		return nvme_cmd_id_ctrl(argc - 1, argv + 1);
	if (!strcmp(argv[1], "id-ns"))
		return nvme_cmd_id_ns(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return nvme_cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ana-log"))
		return nvme_cmd_ana_log(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ctl"))
		return tgt_ctl_client(argc - 1, argv + 1);
	if (!strcmp(argv[1], "compare"))
		return cmp_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "plot"))
		return plot_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		printf("mqblk-%s\n", MQBLK_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		/* mqblk help bench: the same text as mqblk bench --help */
		if (argc > 2 && !strcmp(argv[1], "help") &&
		    !strcmp(argv[2], "bench")) {
			bench_usage(stdout);
			return 0;
		}
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "mqblk: unknown command '%s' (try mqblk help)\n",
		argv[1]);
	return 1;
}
