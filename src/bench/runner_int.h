/* SPDX-License-Identifier: MIT */
/*
 * Private to the runner's files: the job thread (runner.c, the submit/reap
 * loop, and the files of runner_gen.h), the group orchestration that
 * starts it (runner_run.c) and the signal thread that stops it
 * (runner_signal.c); the job thread paces itself with runner_rate.c,
 * takes its counters at its start and end and publishes samples between
 * reaps with runner_stats.c, and fails with runner_err.c's job_fail.
 */
#ifndef MQBLK_BENCH_RUNNER_INT_H
#define MQBLK_BENCH_RUNNER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include <mqblk/mqblk.h>

#include "bench.h"
#include "iolog.h"
#include "rand.h"
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

/* runner_err.c: fail the job thread with err and a message (returns -1) */
int job_fail(struct job_thread *jt, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The direction of the next I/O from the job's rw= and rwmixread (in the
 * per-I/O path and in the rate control). */
static inline enum bench_ddir job_ddir(const struct bench_job *job,
				       struct bench_rng *rng)
{
	switch (job->rw) {
	case RW_READ:
	case RW_RANDREAD:
		return DDIR_READ;
	case RW_WRITE:
	case RW_RANDWRITE:
		return DDIR_WRITE;
	case RW_TRIM:
	case RW_RANDTRIM:
		return DDIR_TRIM;
	case RW_RW:
	case RW_RANDRW:
		return bench_rng_below(rng, 100) < job->rwmixread ? DDIR_READ :
								    DDIR_WRITE;
	}
	return DDIR_READ;
}

/*
 * fio's rate control and thinktime, between the generator and the submit
 * loop. Each direction with a rate has its own clock, kept from the start
 * (an I/O that is late goes at once, so the job catches up, as fio's
 * does); the next direction is drawn from the mix and switched, as fio's
 * rate_ddir does, when it is ahead of its rate and the other one is not.
 * Off, it costs the loop one branch.
 */
struct pace {
	bool on; /* a rate or a thinktime */
	bool rated; /* some direction has a rate */
	bool poisson; /* rate_process=poisson: exponential gaps */
	uint64_t next_ns[DDIR_NR]; /* that direction may go at */
	unsigned think_left; /* I/Os until the next thinktime */
	bool think_due;
	int ddir; /* drawn, waiting for the I/O in flight; -1 */
	/* rate_min / rate_iops_min over fio's 1 s ratecycle */
	bool check_min;
	uint64_t cycle_ns;
	uint64_t cycle_bytes[DDIR_NR], cycle_ios[DDIR_NR];
	struct bench_rng rng;
};

/* runner_rate.c: start the clocks at now */
void pace_init(struct pace *pc, const struct bench_job *job, uint64_t seed,
	       uint64_t now);
/*
 * Before the next I/O: true when it must wait for the I/O in flight first.
 * With a rate, in the main phase with no direction forced yet, sleeps
 * until the drawn direction may go and sets *forced_ddir to it.
 */
bool pace_wait(struct pace *pc, int *forced_ddir, struct bench_rng *rng,
	       bool main_phase, const struct bench_job *job, unsigned inflight,
	       uint64_t t_end);
/* runner_rate.c: sleep until t (or a stop), in slices so a signal is seen */
void sleep_until(uint64_t t);
/* runner_rate.c: an I/O of len bytes went in direction d */
void pace_issued(struct pace *pc, const struct bench_job *job,
		 enum bench_ddir d, uint32_t len);
/* runner_rate.c: fio's check_min_rate at now; true when the job failed */
bool pace_check_min(struct job_thread *jt, struct pace *pc, uint64_t now,
		    bool counting);

/* runner_stats.c: the calling thread's CPU use so far */
void cpu_snapshot(struct rusage *ru);
/* runner_stats.c: CPU time, context switches and faults from a to b */
void cpu_account(struct job_stats *js, const struct rusage *a,
		 const struct rusage *b);
/* runner_stats.c: an nvme-rdma device's I/O queue counters summed; false
 * for another device */
bool rdma_sum(const struct mqblk_dev *dev, struct nvme_rdma_queue_stats *sum);
/* runner_stats.c: a multipath device's per-path counters since p0 */
void paths_delta(struct job_stats *js, const struct mqblk_dev *dev,
		 const struct mqblk_path_stats *p0, int nr0);
/* runner_stats.c: one queue's block-core counters added to the job's */
void queue_stats_add(struct job_stats *js, struct mqblk_queue *q);

struct sampler {
	uint64_t last_ns;
	uint64_t bytes[DDIR_NR];
	uint64_t ios[DDIR_NR];
};
/* runner_stats.c: a bandwidth sample (want_bw) since the last one, and
 * the progress the status line reads */
void job_sample(struct job_thread *jt, struct sampler *s, uint64_t now,
		bool want_bw);
/* runner_stats.c: between reaps, with --status-interval or a minimum
 * rate: answer a snapshot request; true when the job failed its minimum
 * rate */
bool reap_slow_checks(struct job_thread *jt, struct pace *pc, uint64_t now,
		      bool counting);

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
