/* SPDX-License-Identifier: MIT */
/*
 * Private to the runner's files: the job thread (runner.c, the submit/reap
 * loop), the group orchestration that starts it (runner_run.c) and the
 * signal thread that stops it (runner_signal.c).
 */
#ifndef MQBLK_BENCH_RUNNER_INT_H
#define MQBLK_BENCH_RUNNER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <mqblk/mqblk.h>

#include "bench.h"
#include "iolog.h"
#include "stats.h"

/* A device shared by the jobs of one group that name the same file. */
struct bench_dev {
	char *uri; /* owned */
	struct mqblk_dev *dev;
	unsigned nr_threads;
	int hipri; /* -1 unset, else all users agree */
	int direct; /* the same for --direct */
	unsigned flags; /* MQBLK_OPEN_* */
	/* a job gave up on I/O stuck in it (stuck_give_up): never closed */
	bool abandoned;
};

struct job_thread {
	const struct bench_job *job;
	struct bench_dev *bdev; /* file 0's with nrfiles > 1 */
	/* nrfiles > 1: every file's device, bdev first; else NULL */
	struct bench_dev **fdevs;
	unsigned clone_idx;
	unsigned thread_nr; /* global, for seeds */
	/* nrfiles > 1: this clone's pass, its own files' (set before
	 * started, for the status line); 0: the job's size */
	uint64_t pass_bytes;
	pthread_t thread;
	struct job_stats stats;
	/* progress published for the status line (relaxed atomics) */
	_Atomic uint64_t pub_bytes[DDIR_NR];
	_Atomic uint64_t pub_ios[DDIR_NR];
	_Atomic int done;
	_Atomic int started;
	uint64_t start_ns;
	int err;
	char errmsg[256];
	/* --status-interval: the main thread asks (snap_req), the job
	 * thread copies its statistics into snap between reaps and
	 * answers (snap_ack); NULL without the option */
	struct job_stats *snap;
	struct iolog_set *log; /* fio's logs, NULL without them */
	pthread_mutex_t snap_lock;
	_Atomic uint64_t snap_req;
	_Atomic uint64_t snap_ack;
	bool snap_valid; /* under snap_lock: snap holds one */
};

/* runner.c: one job clone's thread (arg: its struct job_thread) */
void *job_thread_fn(void *arg);
/* runner.c: how a job needs its device opened (MQBLK_OPEN_*) */
unsigned job_open_flags(const struct bench_job *job);

/*
 * runner_signal.c: the first SIGINT/SIGTERM sets stop_signal (its number)
 * and stop_any; a job with fio's exitall ending sets stop_exitall and
 * stop_any. The reap loop loads only stop_any.
 */
extern _Atomic int stop_signal;
extern _Atomic int stop_exitall;
extern _Atomic int stop_any;
/* Block SIGINT/SIGTERM in every thread and take them on one (once). */
void catch_stop_signals(void);

#endif
