/* SPDX-License-Identifier: MIT */
/*
 * Per-job I/O statistics with fio's semantics: latency summaries, the
 * log-linear clat histogram (fio's plat_* bucketing), depth and batch
 * distributions, bandwidth/IOPS samples, plus mqblk's completion-path
 * counters. The add functions are on the I/O path and stay inline.
 */
#ifndef MQBLK_BENCH_STATS_H
#define MQBLK_BENCH_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <mqblk/mqblk.h>

#include "bench.h"
#include "drivers/nvme_rdma/nvme_rdma.h"

/*
 * fio's histogram (stat.h): values below 2^PLAT_BITS get a bucket each;
 * above, each power-of-two group is split into PLAT_VAL buckets, so the
 * relative error is at most 1/2^PLAT_BITS ~ 1.6%. 29 groups cover ns
 * values up to ~17 seconds; larger values land in the last bucket.
 */
#define PLAT_BITS 6
#define PLAT_VAL (1u << PLAT_BITS)
#define PLAT_GROUP_NR 29
#define PLAT_NR (PLAT_GROUP_NR * PLAT_VAL)

/* fio's IO depth / submit / complete distribution slots (7 each). */
#define DEPTH_MAP_NR 7
/* fio's "lat (nsec/usec/msec)" distribution slots. */
#define LAT_N_NR 10
#define LAT_U_NR 10
#define LAT_M_NR 12

/* A latency/bw summary. Kept as integer sums so adding is cheap; mean and
 * stdev are derived at report time (stats.c): read them with
 * lat_stat_mean()/lat_stat_stddev(), not from sum/sumsq, because a
 * group_reporting merge of bw/iops is fio's "pure sum" (means and S add
 * up, see stats_merge) which integer sums cannot express. */
struct lat_stat {
	uint64_t min;
	uint64_t max;
	uint64_t nr;
	uint64_t sum;
	unsigned __int128 sumsq;
	bool pure_sum; /* set by stats_merge: mean/S below are the truth */
	double ps_mean; /* sum of the members' means */
	double ps_s; /* sum of the members' S (sum of squared deviations) */
};

struct ddir_stats {
	struct lat_stat slat; /* ns */
	struct lat_stat clat; /* ns */
	struct lat_stat lat; /* ns */
	uint64_t clat_hist[PLAT_NR];
	uint64_t lat_hist[PLAT_NR]; /* only filled when lat_percentiles */
	uint64_t slat_hist[PLAT_NR]; /* only filled when slat_percentiles */
	uint64_t io_bytes; /* bytes completed */
	uint64_t total_ios; /* I/Os completed */
	uint64_t short_ios;
	uint64_t drop_ios;
	uint64_t issued; /* I/Os submitted ("issued rwts") */
	struct lat_stat bw; /* KiB/s samples, one per bw_avg_time */
	struct lat_stat iops; /* IOPS samples */
	uint64_t runtime_ns; /* time this direction was active */
};

/* mqblk's own counters, read from the core at the end of a job. */
struct mqblk_job_counters {
	uint64_t comp_local;
	uint64_t comp_remote;
	uint64_t comp_batched;
	uint64_t comp_polled;
	uint64_t comp_irq; /* completed on the interrupt thread (IRQ) */
	uint64_t wakeups; /* eventfd wake-ups other threads wrote */
	uint64_t requeues;
	uint64_t tag_waits;
	uint64_t tag_wait_ns;
	uint64_t timeouts;
	uint64_t errors;
	/* scheduling (seed 004) */
	uint64_t merges;
	uint64_t dispatched;
	uint64_t dispatch_runs;
	uint64_t doorbells;
	uint64_t sched_expired;
	uint64_t dispatch_locks;
	uint64_t dispatch_lock_contended;
	uint64_t poll_budget_hits;
};

/*
 * Share (percent) of completions handed to the submitter from another
 * thread: the remote (IPI-like), batched (softirq-like) and irq (finished
 * where they landed) paths over all completions. Seed 000's "remote completion" figure.
 */
double stats_remote_pct(const struct mqblk_job_counters *mq);

struct job_stats {
	char name[BENCH_NAME_MAX];
	unsigned groupid;
	unsigned nr_jobs; /* 1, or the number merged by group_reporting */
	int error; /* first error (errno value), 0 = none */
	/* continue_on_error: the errors let go, and the first of them */
	uint64_t total_err;
	int first_error;
	bool error_let_go; /* error is first_error: the run still succeeds */
	/* unified_rw_reporting=both: read, write and trim as one, for the
	 * reports (report_view_build's; NULL otherwise) */
	struct ddir_stats *mixed;
	int pid;
	const struct bench_job *job; /* options, for headers and JSON */

	struct ddir_stats dd[DDIR_NR];

	uint64_t runtime_ns; /* job wall time excluding ramp */
	/* CPU usage over the job (getrusage RUSAGE_THREAD), microseconds. */
	uint64_t usr_us;
	uint64_t sys_us;
	uint64_t ctx; /* voluntary + involuntary context switches */
	uint64_t majf;
	uint64_t minf;

	/* fio io_u_map: depth seen at submit: 1, 2, 4, 8, 16, 32, >=64 */
	uint64_t depth_map[DEPTH_MAP_NR];
	/* fio io_u_submit / io_u_complete: batch sizes 0, 4, 8, 16, 32, 64,
	 * >=64 (slot i counts batches of size in (prev, bound]) */
	uint64_t submit_map[DEPTH_MAP_NR];
	uint64_t complete_map[DEPTH_MAP_NR];
	uint64_t total_submit;
	uint64_t total_complete;

	/* fio's lat distribution over total latency (lat), all ddirs */
	uint64_t lat_n[LAT_N_NR]; /* 2 4 10 20 50 100 250 500 750 1000 ns */
	uint64_t lat_u[LAT_U_NR]; /* same, us */
	uint64_t lat_m[LAT_M_NR]; /* 2 4 10 20 50 100 250 500 750 1000 2000
				     >=2000 ms */

	struct mqblk_job_counters mq;
	/* A multipath device's paths: their counters over the job's run,
	 * state as at its end. Device-wide: jobs sharing the device each
	 * count all of its traffic. nr_paths 0: not a multipath device. */
	unsigned nr_paths;
	char iopolicy[16];
	struct mqblk_path_stats paths[MQBLK_MAX_PATHS];
	/* An nvme-rdma device's verbs counters over the job's run, its I/O
	 * queues summed (qid unused). Device-wide, as paths. */
	bool has_rdma;
	struct nvme_rdma_queue_stats rdma;

	/* fio's DDIR_SYNC: flushes (--fsync, --fdatasync, --end_fsync) */
	uint64_t sync_issued;
	uint64_t sync_ios; /* completed */
	struct lat_stat sync_lat; /* ns, issue to completion */
	uint64_t verify_errors; /* blocks that failed --verify */

	/* Which histograms stats_add_io fills (fio fills io_u_plat[FIO_CLAT]
	 * only with clat_percentiles, and so on); set by stats_init. */
	bool want_clat_hist;
	bool want_lat_hist;
	bool want_slat_hist;
	/* disable_lat/clat/slat: that latency is not recorded at all */
	bool no_lat, no_clat, no_slat;
};

/* Zero js and set min fields; copies name/groupid from job. */
void stats_init(struct job_stats *js, const struct bench_job *job);

/* group_reporting: fold src into dst (sums, mins, maxes, histograms). */
void stats_merge(struct job_stats *dst, const struct job_stats *src);

/* Derived values used by the writers. */
double lat_stat_mean(const struct lat_stat *ls);
double lat_stat_stddev(const struct lat_stat *ls);

/* fio's plat_idx_to_val: the midpoint value of bucket idx. */
uint64_t plat_idx_to_val(unsigned idx);

/*
 * Percentiles from a histogram, as fio's calc_clat_percentiles: for each
 * requested percentile p, the value of the first bucket at which the
 * cumulative count reaches p% of the total. out[i] = 0 if no samples.
 */
void stats_percentiles(const uint64_t *hist, uint64_t nr_samples,
		       const double *plist, unsigned nr, uint64_t *out);

/* fio's plat_val_to_idx. */
static inline unsigned plat_val_to_idx(uint64_t val)
{
	unsigned msb, error_bits, base, offset, idx;

	if (val == 0)
		return 0;
	msb = 63 - (unsigned)__builtin_clzll(val);
	if (msb <= PLAT_BITS)
		return (unsigned)val;
	error_bits = msb - PLAT_BITS;
	base = (error_bits + 1) << PLAT_BITS;
	offset = (unsigned)(val >> error_bits) & (PLAT_VAL - 1);
	idx = base + offset;
	return idx < PLAT_NR ? idx : PLAT_NR - 1;
}

/* Add n samples of value v. */
static inline void lat_stat_add(struct lat_stat *ls, uint64_t v, uint64_t n)
{
	if (v < ls->min)
		ls->min = v;
	if (v > ls->max)
		ls->max = v;
	ls->nr += n;
	ls->sum += v * n;
	ls->sumsq += (unsigned __int128)v * v * n;
}

static inline unsigned stats_depth_slot(unsigned depth)
{
	/* fio io_u_mark_depth: 1, 2, 4, 8, 16, 32, >=64 (floor power of 2) */
	unsigned lg;

	if (depth <= 1)
		return 0;
	lg = 31 - (unsigned)__builtin_clz(depth);
	return lg > 6 ? 6 : lg;
}

static inline unsigned stats_batch_slot(unsigned n)
{
	/* 0, 4, 8, 16, 32, 64, >=64 as fio's io_u_submit/complete */
	if (n == 0)
		return 0;
	if (n <= 4)
		return 1;
	if (n <= 8)
		return 2;
	if (n <= 16)
		return 3;
	if (n <= 32)
		return 4;
	if (n <= 64)
		return 5;
	return 6;
}

/*
 * fio's io_u_mark_latency buckets (lat_n/lat_u/lat_m). fio feeds it the
 * completion latency (clat, issue to completion; io_u.c
 * account_io_completion), not the total latency.
 */
void stats_mark_latency(struct job_stats *js, uint64_t ns, uint64_t n);

/*
 * Record n completions of one direction that share slat/clat (a batch
 * submitted together and reaped together). lat = slat + clat.
 */
static inline void stats_add_io(struct job_stats *js, enum bench_ddir d,
				uint64_t slat_ns, uint64_t clat_ns,
				uint64_t bytes, uint64_t n, bool want_lat)
{
	struct ddir_stats *ds = &js->dd[d];
	uint64_t lat_ns = slat_ns + clat_ns;

	ds->io_bytes += bytes;
	ds->total_ios += n;
	if (!want_lat)
		return;
	if (!js->no_slat)
		lat_stat_add(&ds->slat, slat_ns, n);
	if (!js->no_clat)
		lat_stat_add(&ds->clat, clat_ns, n);
	if (!js->no_lat)
		lat_stat_add(&ds->lat, lat_ns, n);
	if (js->want_clat_hist)
		ds->clat_hist[plat_val_to_idx(clat_ns)] += n;
	if (js->want_lat_hist)
		ds->lat_hist[plat_val_to_idx(lat_ns)] += n;
	if (js->want_slat_hist)
		ds->slat_hist[plat_val_to_idx(slat_ns)] += n;
	stats_mark_latency(js, clat_ns, n);
}

/*
 * One bandwidth/IOPS sample (fio bw_avg_time / iops_avg_time, 500 ms):
 * bytes and ios completed in direction d over the last elapsed_ns.
 */
void stats_sample_bw(struct job_stats *js, enum bench_ddir d, uint64_t bytes,
		     uint64_t ios, uint64_t elapsed_ns);

/*
 * Reports. jobs: one entry per job thread (numjobs clones included), in
 * the order they were started, unmerged; the writers group them by
 * groupid and merge a group into one entry when its jobs have
 * group_reporting set (fio semantics), and compute "Run status group"
 * lines from the unmerged per-thread figures.
 */
struct report {
	const struct bench_config *cfg;
	struct job_stats **jobs;
	unsigned nr_jobs;
	const char *version; /* "mqblk-0.1.0" */
	uint64_t start_time_ms; /* wall clock at start, for JSON */
};

void report_normal(FILE *f, const struct report *r);
/* fio's num2str of a byte count, 4 significant figures, powers of 1024
 * ("4096B", "64.0KiB", "1024KiB"): how fio's job header prints sizes. */
#define N2S_LEN 32
const char *report_bytes_str(char *buf, uint64_t v);
void report_json(FILE *f, const struct report *r, bool plus);
/* fio's terse lines, version 2 to 5 (output_terse.c). */
void report_terse(FILE *f, const struct report *r, unsigned version);

/*
 * What both writers print, worked out once (stats.c). entries: fio's
 * thread_stat list from __show_run_stats: a job, or a run of consecutive
 * jobs of one groupid with group_reporting set, merged. groups: fio's
 * group_run_stats per groupid 0..nr_groups-1, figured from those entries
 * (so a merged group shows min == max bandwidth, as fio does).
 */
struct report_group {
	uint64_t min_run_ms[DDIR_NR];
	uint64_t max_run_ms[DDIR_NR];
	uint64_t min_bw[DDIR_NR]; /* bytes/s */
	uint64_t max_bw[DDIR_NR];
	uint64_t io_bytes[DDIR_NR];
	uint64_t agg_bw[DDIR_NR]; /* io_bytes * 1000 / max_run_ms */
	unsigned kb_base; /* fio's rs->kb_base: its first job's --kb_base */
	/* fio's rs->unified_rw_rep: its jobs' unified_rw_reporting or'd */
	unsigned unified;
};

struct report_view {
	struct job_stats **entries;
	bool *owned; /* entries[i] was allocated by the merge */
	unsigned nr_entries;
	struct report_group *groups;
	unsigned nr_groups;
};

/* Returns 0 or -ENOMEM. */
int report_view_build(struct report_view *v, const struct report *r);
void report_view_free(struct report_view *v);

/* fio's runtime[ddir] in ms: elapsed us rounded up; at least 1 when the
 * direction did any I/O. */
uint64_t stats_runtime_ms(const struct ddir_stats *ds);
/* fio's total_io_u: issued I/Os (falls back to completed if unset). */
uint64_t stats_issued(const struct ddir_stats *ds);
/* The job's percentile list (or fio's default), cut at the first 0 and
 * sorted ascending as fio's calc_clat_percentiles does. Returns its
 * length; plist holds BENCH_MAX_PERCENTILES. */
unsigned stats_percentile_list(const struct job_stats *js, double *plist);
/* fio's percentile_precision: decimals needed to print the list. */
unsigned stats_percentile_precision(const double *plist, unsigned nr);
/* fio's stat_calc_dist (DEPTH_MAP_NR slots, 0.1% floor for nonzero). */
void stats_calc_dist(const uint64_t *map, uint64_t total, double *out);
/* fio's stat_calc_lat (nr slots, 0.01% floor for nonzero). */
void stats_calc_lat(const uint64_t *src, unsigned nr, uint64_t total,
		    double *out);
/* fio's convert_agg_kbytes_percent: a job's share of its group's bw. */
double stats_bw_agg_pct(const struct report_group *g, enum bench_ddir d,
			double mean_kib);

#endif
