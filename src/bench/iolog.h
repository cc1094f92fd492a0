/* SPDX-License-Identifier: MIT */
/*
 * fio's per-job logs (--write_bw_log, --write_lat_log, --write_iops_log,
 * --write_hist_log): entries kept by the job thread, written after the
 * run in fio's file names and line format, so fio's plotting tools read
 * them unchanged.
 */
#ifndef MQBLK_BENCH_IOLOG_H
#define MQBLK_BENCH_IOLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

enum iolog_type {
	IOLOG_BW,
	IOLOG_IOPS,
	IOLOG_LAT,
	IOLOG_CLAT,
	IOLOG_SLAT,
	IOLOG_HIST, /* the clat histogram every log_hist_msec */
	IOLOG_NR,
};

struct iolog_entry {
	uint64_t t_ms; /* since the job started */
	uint64_t val; /* ns, KiB/s or IOPS; a hist line: its first bucket's
		       * index in hist_vals */
	uint64_t bs;
	uint64_t off;
	uint8_t ddir;
};

struct iolog {
	struct iolog_entry *e;
	size_t nr, cap;
};

/* One job thread's logs. */
struct iolog_set {
	const struct bench_job *job;
	bool on[IOLOG_NR];
	struct iolog log[IOLOG_NR];
	uint64_t avg_ns; /* --log_avg_msec; 0 = an entry per I/O */
	/* the window being averaged (avg_ns) */
	uint64_t win_start_ns;
	uint64_t w_bytes[DDIR_NR], w_ios[DDIR_NR];
	uint64_t w_sum[3][DDIR_NR], w_nr[3][DDIR_NR], w_max[3][DDIR_NR];
	/* --write_hist_log: per direction the window's start (fio's
	 * hist_last) and the histogram when the last line was taken */
	uint64_t hist_ms; /* --log_hist_msec; 0 = no lines */
	uint64_t hist_last_ms[DDIR_NR];
	uint64_t *hist_prev; /* DDIR_NR * PLAT_NR, made at the first line */
	uint64_t *hist_vals; /* every line's buckets, one after another */
	size_t nr_vals, cap_vals;
	bool nomem; /* an entry could not be kept */
};

/* Does the job write any log? */
bool iolog_wanted(const struct bench_job *job);

/* Set up (all zero) for job; 0 or -ENOMEM. */
int iolog_init(struct iolog_set *ls, const struct bench_job *job);
void iolog_free(struct iolog_set *ls);

/* One I/O completed at rel_ns since the job's start; clat_hist is the
 * job's clat histogram of direction d, this I/O counted (stats_add_io). */
void iolog_io(struct iolog_set *ls, uint64_t rel_ns, enum bench_ddir d,
	      uint64_t slat_ns, uint64_t clat_ns, uint32_t len, uint64_t off,
	      const uint64_t *clat_hist);

/* The log file of type for thread thread_nr (0-based) of job: fio's
 * NAME_TYPE.N.log (TYPE bw, iops, lat, clat, slat, clat_hist), or
 * NAME_TYPE.log with --per_job_logs=0. NULL when it does not fit. */
const char *iolog_path(const struct bench_job *job, enum iolog_type type,
		       unsigned thread_nr, char *buf, size_t len);

/*
 * Before the run: make (empty) every log file the jobs will write, so a
 * path that cannot be written is one line and no run; on failure remove
 * those made. Threads are numbered as the runner does: in job order, each
 * job's clones in turn.
 */
int iolog_precreate(const struct bench_job *jobs, unsigned nr);

/* After the run: append ls's entries to their files, in fio's format.
 * 0, or -1 with one line on stderr (the file is removed). */
int iolog_write(const struct iolog_set *ls, unsigned thread_nr);

#endif
