/* SPDX-License-Identifier: MIT */
/*
 * Between the runner and the live status line: a snapshot of the running
 * jobs' progress, formatted like fio's eta line.
 */
#ifndef MQBLK_BENCH_RUNNER_H
#define MQBLK_BENCH_RUNNER_H

#include <stdint.h>
#include <stdio.h>

#include "bench.h"

struct status_snapshot {
	unsigned nr_running;
	char modes[64]; /* fio's run-state letters, e.g. "r(4)" or "m(2)" */
	uint64_t bytes[DDIR_NR];
	uint64_t ios[DDIR_NR];
	uint64_t now_ns;
	double pct_done; /* 0..100 */
	uint64_t eta_s;
};

/* Write one status line (no newline; starts with \r) built from the
 * difference between prev and cur. */
void status_print(FILE *f, const struct status_snapshot *prev,
		  const struct status_snapshot *cur);

#endif
