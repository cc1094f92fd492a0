// SPDX-License-Identifier: MIT
/*
 * Unit tests of the bench statistics (src/bench/stats.c): fio's histogram
 * bucketing and percentiles, summaries, group_reporting merges, the
 * distributions and the report view both writers print from.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/stats.h"

#define MIB (1024ull * 1024)

/* cmocka 1.1's float compare goes through float: too coarse here. */
#define assert_near(a, b, eps) check_near((a), (b), (eps), #a, __LINE__)

static void check_near(double a, double b, double eps, const char *what,
		       int line)
{
	if (!(fabs(a - b) <= eps))
		fail_msg("line %d: %s = %.9f, want %.9f (+-%g)", line, what, a,
			 b, eps);
}
#define NS_PER_MS 1000000ull

/* A job as the option parser leaves it with nothing set (fio defaults). */
static void job_init(struct bench_job *job, const char *name)
{
	unsigned d;

	memset(job, 0, sizeof(*job));
	snprintf(job->name, sizeof(job->name), "%s", name);
	job->rw = RW_READ;
	job->rwmixread = 50;
	for (d = 0; d < DDIR_NR; d++)
		job->bs[d] = 4096;
	job->iodepth = 1;
	job->numjobs = 1;
	job->iodepth_batch_submit = 1;
	job->iodepth_batch_complete_min = 1;
	job->iodepth_batch_complete_max = 1;
	job->iodepth_low = 1;
	job->randrepeat = true;
	job->clat_percentiles = true;
	job->loops = 1;
}

static struct job_stats *js_new(const struct bench_job *job)
{
	struct job_stats *js = malloc(sizeof(*js));

	assert_non_null(js);
	stats_init(js, job);
	return js;
}

/*
 * fio's plat_val_to_idx restated: a value with its top bit at position
 * msb > PLAT_BITS keeps its PLAT_BITS bits below the top one; group g
 * (= msb - PLAT_BITS + 1) starts at index g * PLAT_VAL.
 */
static unsigned ref_val_to_idx(uint64_t v)
{
	unsigned msb = 0, shift, idx;

	if (v < 2 * PLAT_VAL)
		return (unsigned)v;
	while ((v >> msb) > 1)
		msb++;
	shift = msb - PLAT_BITS;
	idx = (shift + 1) * PLAT_VAL + (unsigned)((v >> shift) - PLAT_VAL);
	return idx < PLAT_NR ? idx : PLAT_NR - 1;
}

static void test_val_to_idx_exact_below_128(void **state)
{
	uint64_t v;

	(void)state;
	for (v = 0; v < 128; v++)
		assert_int_equal(plat_val_to_idx(v), v);
}

static void test_val_to_idx_known_values(void **state)
{
	static const struct {
		uint64_t val;
		unsigned idx;
	} cases[] = {
		{ 128, 128 },
		{ 129, 128 },
		{ 130, 129 },
		{ 145, 136 },
		{ 255, 191 },
		{ 256, 192 },
		{ 259, 192 },
		{ 260, 193 },
		{ 1000, 317 },
		{ 1007, 317 },
		{ 1008, 318 },
		{ 50000, 673 },
		{ (1ull << 34) - 1, PLAT_NR - 1 },
	};
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(plat_val_to_idx(cases[i].val), cases[i].idx);
}

static void test_val_to_idx_matches_reference(void **state)
{
	uint64_t x = 88172645463325252ull, v;
	unsigned i, b;

	(void)state;
	/* every power of two and its neighbours */
	for (b = 0; b < 64; b++) {
		v = 1ull << b;
		assert_int_equal(plat_val_to_idx(v), ref_val_to_idx(v));
		assert_int_equal(plat_val_to_idx(v - 1), ref_val_to_idx(v - 1));
		assert_int_equal(plat_val_to_idx(v + 1), ref_val_to_idx(v + 1));
	}
	/* pseudo-random values of every magnitude up to ~68 s */
	for (i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x >> (28 + i % 36);
		assert_int_equal(plat_val_to_idx(v), ref_val_to_idx(v));
	}
}

static void test_val_to_idx_clamps_to_last_bucket(void **state)
{
	(void)state;
	assert_int_equal(plat_val_to_idx(1ull << 34), PLAT_NR - 1);
	assert_int_equal(plat_val_to_idx(UINT64_MAX), PLAT_NR - 1);
	/* ~17 s still has a bucket of its own */
	assert_true(plat_val_to_idx(17000000000ull) < PLAT_NR - 1);
}

static void test_idx_to_val_midpoints(void **state)
{
	(void)state;
	assert_int_equal(plat_idx_to_val(0), 0);
	assert_int_equal(plat_idx_to_val(127), 127);
	/* [128, 130) -> 129; fio's json+ bins read 145, 147, ... */
	assert_int_equal(plat_idx_to_val(128), 129);
	assert_int_equal(plat_idx_to_val(136), 145);
	assert_int_equal(plat_idx_to_val(137), 147);
	/* [1000, 1008) -> 1004 */
	assert_int_equal(plat_idx_to_val(317), 1004);
	assert_int_equal(plat_idx_to_val(673), 49920);
	assert_int_equal(plat_idx_to_val(PLAT_NR - 1),
			 (1ull << 33) + 63 * (1ull << 27) + (1ull << 26));
	/* out of range reads the last bucket */
	assert_int_equal(plat_idx_to_val(PLAT_NR + 5),
			 plat_idx_to_val(PLAT_NR - 1));
}

static void test_idx_val_roundtrip_and_error_bound(void **state)
{
	unsigned idx;

	(void)state;
	for (idx = 0; idx < PLAT_NR; idx++) {
		uint64_t mid = plat_idx_to_val(idx);

		assert_int_equal(plat_val_to_idx(mid), idx);
		if (idx >= 2 * PLAT_VAL) {
			unsigned shift = (idx >> PLAT_BITS) - 1;
			uint64_t lo = mid - (1ull << (shift - 1));
			uint64_t hi = mid + (1ull << (shift - 1)) - 1;

			/* the bucket is [lo, hi] and its neighbours differ */
			assert_int_equal(plat_val_to_idx(lo), idx);
			assert_int_equal(plat_val_to_idx(lo - 1), idx - 1);
			if (idx < PLAT_NR - 1)
				assert_int_equal(plat_val_to_idx(hi + 1),
						 idx + 1);
			/* documented error bound: half a bucket <= 1/128 */
			assert_true((double)(mid - lo) / (double)lo <=
				    1.0 / (2 * PLAT_VAL));
		}
	}
}

static void test_percentiles_first_bucket_reaching_p(void **state)
{
	static const double plist[] = { 1, 50, 50.5, 99, 99.5, 100 };
	uint64_t *hist = calloc(PLAT_NR, sizeof(*hist));
	uint64_t out[6];

	(void)state;
	assert_non_null(hist);
	hist[plat_val_to_idx(100)] = 50;
	hist[plat_val_to_idx(1000)] = 49;
	hist[plat_val_to_idx(50000)] = 1;
	stats_percentiles(hist, 100, plist, 6, out);
	assert_int_equal(out[0], 100);
	/* exactly 50 of 100 reached at the first bucket: fio's >= */
	assert_int_equal(out[1], 100);
	assert_int_equal(out[2], 1004);
	assert_int_equal(out[3], 1004);
	assert_int_equal(out[4], 49920);
	assert_int_equal(out[5], 49920);
	free(hist);
}

static void test_percentiles_without_samples_are_zero(void **state)
{
	static const double plist[] = { 50, 99 };
	uint64_t *hist = calloc(PLAT_NR, sizeof(*hist));
	uint64_t out[2] = { 7, 7 };

	(void)state;
	assert_non_null(hist);
	stats_percentiles(hist, 0, plist, 2, out);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 0);
	free(hist);
}

static void test_percentile_list_default_custom_sorted(void **state)
{
	struct bench_job job;
	struct job_stats *js;
	double plist[BENCH_MAX_PERCENTILES];
	unsigned len;

	(void)state;
	job_init(&job, "p");
	js = js_new(&job);
	len = stats_percentile_list(js, plist);
	assert_int_equal(len, 17);
	assert_true(plist[0] == 1.0);
	assert_true(plist[12] == 99.0);
	assert_true(plist[16] == 99.99);

	job.nr_percentiles = 4;
	job.percentiles[0] = 99.9;
	job.percentiles[1] = 50;
	job.percentiles[2] = 90;
	job.percentiles[3] = 0; /* fio's list ends here */
	len = stats_percentile_list(js, plist);
	assert_int_equal(len, 3);
	assert_true(plist[0] == 50.0);
	assert_true(plist[1] == 90.0);
	assert_true(plist[2] == 99.9);
	free(js);
}

static void test_percentile_precision(void **state)
{
	static const double a[] = { 1, 5, 50 };
	static const double b[] = { 50, 99.9 };
	static const double c[] = { 1, 99.95, 99.9 };

	(void)state;
	assert_int_equal(stats_percentile_precision(a, 3), 0);
	assert_int_equal(stats_percentile_precision(b, 2), 1);
	assert_int_equal(stats_percentile_precision(c, 3), 2);
}

static void test_add_io_fills_summaries_and_histograms(void **state)
{
	struct bench_job job;
	struct job_stats *js;
	struct ddir_stats *ds;

	(void)state;
	job_init(&job, "a");
	job.lat_percentiles = true;
	js = js_new(&job);
	assert_true(js->want_clat_hist);
	assert_true(js->want_lat_hist);
	assert_false(js->want_slat_hist);

	stats_add_io(js, DDIR_WRITE, 100, 1000, 3 * 4096, 3, true);
	ds = &js->dd[DDIR_WRITE];
	assert_int_equal(ds->io_bytes, 3 * 4096);
	assert_int_equal(ds->total_ios, 3);
	assert_int_equal(ds->clat.nr, 3);
	assert_int_equal(ds->lat.min, 1100);
	assert_int_equal(ds->clat_hist[317], 3);
	assert_int_equal(ds->lat_hist[plat_val_to_idx(1100)], 3);
	assert_int_equal(ds->slat_hist[100], 0);
	/* fio marks the clat in its lat_n/u/m distribution */
	assert_int_equal(js->lat_u[0], 3);
	assert_int_equal(js->dd[DDIR_READ].total_ios, 0);

	/* gtod_reduce: bytes and counts only */
	stats_add_io(js, DDIR_WRITE, 100, 1000, 4096, 1, false);
	assert_int_equal(ds->total_ios, 4);
	assert_int_equal(ds->clat.nr, 3);
	free(js);
}

static void test_lat_stat_mean_stddev(void **state)
{
	struct job_stats *js = js_new(NULL);
	struct lat_stat *ls = &js->dd[DDIR_READ].clat;

	(void)state;
	assert_true(lat_stat_mean(ls) == 0.0);
	assert_true(lat_stat_stddev(ls) == 0.0);
	lat_stat_add(ls, 7, 1);
	assert_true(lat_stat_mean(ls) == 7.0);
	assert_true(lat_stat_stddev(ls) == 0.0);

	stats_init(js, NULL);
	lat_stat_add(ls, 1, 1);
	lat_stat_add(ls, 2, 1);
	lat_stat_add(ls, 3, 1);
	lat_stat_add(ls, 4, 1);
	assert_int_equal(ls->min, 1);
	assert_int_equal(ls->max, 4);
	assert_near(lat_stat_mean(ls), 2.5, 1e-12);
	/* sample stddev (n - 1), as fio's calc_lat */
	assert_near(lat_stat_stddev(ls), sqrt(5.0 / 3.0), 1e-12);

	stats_init(js, NULL);
	lat_stat_add(ls, 10, 3);
	lat_stat_add(ls, 20, 1);
	assert_near(lat_stat_mean(ls), 12.5, 1e-12);
	assert_near(lat_stat_stddev(ls), 5.0, 1e-12);

	/* ~1 s latencies spread by 1 ns, two billion of them: the sums
	 * lose nothing */
	stats_init(js, NULL);
	lat_stat_add(ls, 1ull << 30, 1000000000);
	lat_stat_add(ls, (1ull << 30) + 2, 1000000000);
	assert_near(lat_stat_mean(ls), (double)(1ull << 30) + 1, 1e-6);
	assert_near(lat_stat_stddev(ls), 1.0, 1e-6);

	/* n * sumsq past 2^128 (2^40 zeros and one 2^44): the long
	 * double path, stddev ~ 2^24 */
	stats_init(js, NULL);
	lat_stat_add(ls, 0, 1ull << 40);
	lat_stat_add(ls, 1ull << 44, 1);
	assert_near(lat_stat_mean(ls), 16.0, 1e-9);
	assert_near(lat_stat_stddev(ls), 16777216.0, 1e-3);
	free(js);
}

static void test_merge_pools_latencies(void **state)
{
	struct job_stats *a = js_new(NULL), *b = js_new(NULL);
	struct lat_stat *ls = &a->dd[DDIR_READ].clat;

	(void)state;
	stats_add_io(a, DDIR_READ, 1, 10, 4096, 1, true);
	stats_add_io(a, DDIR_READ, 1, 20, 4096, 1, true);
	stats_add_io(b, DDIR_READ, 5, 30, 4096, 1, true);
	stats_merge(a, b);
	assert_int_equal(ls->nr, 3);
	assert_int_equal(ls->min, 10);
	assert_int_equal(ls->max, 30);
	assert_near(lat_stat_mean(ls), 20.0, 1e-12);
	assert_near(lat_stat_stddev(ls), 10.0, 1e-12);
	assert_int_equal(a->dd[DDIR_READ].slat.max, 5);
	assert_int_equal(a->dd[DDIR_READ].clat_hist[30], 1);
	assert_int_equal(a->dd[DDIR_READ].clat_hist[10], 1);

	/* merging into an empty summary takes the other's min */
	stats_init(a, NULL);
	stats_merge(a, b);
	assert_int_equal(a->dd[DDIR_READ].clat.min, 30);
	assert_int_equal(a->dd[DDIR_WRITE].clat.nr, 0);
	assert_int_equal(a->dd[DDIR_WRITE].clat.min, UINT64_MAX);
	free(a);
	free(b);
}

/* fio sum_stat(pure_sum): bw and iops of a group add up. */
static void test_merge_bw_iops_pure_sum(void **state)
{
	struct job_stats *a = js_new(NULL), *b = js_new(NULL);
	struct job_stats *c = js_new(NULL);
	struct lat_stat *bw = &a->dd[DDIR_READ].bw;
	struct lat_stat *iops = &a->dd[DDIR_READ].iops;

	(void)state;
	lat_stat_add(&a->dd[DDIR_READ].bw, 100, 1);
	lat_stat_add(&a->dd[DDIR_READ].bw, 200, 1);
	lat_stat_add(&b->dd[DDIR_READ].bw, 300, 1);
	lat_stat_add(&b->dd[DDIR_READ].bw, 500, 1);
	lat_stat_add(&a->dd[DDIR_READ].iops, 10, 2);
	lat_stat_add(&b->dd[DDIR_READ].iops, 30, 1);
	lat_stat_add(&b->dd[DDIR_READ].iops, 50, 1);

	stats_merge(a, b);
	assert_int_equal(bw->min, 400);
	assert_int_equal(bw->max, 700);
	assert_int_equal(bw->nr, 4);
	/* means add (150 + 400); S adds (5000 + 20000), over n - 1 = 3 */
	assert_near(lat_stat_mean(bw), 550.0, 1e-9);
	assert_near(lat_stat_stddev(bw), sqrt(25000.0 / 3.0), 1e-9);
	assert_int_equal(iops->min, 40);
	assert_int_equal(iops->max, 60);
	assert_near(lat_stat_mean(iops), 50.0, 1e-9);
	assert_near(lat_stat_stddev(iops), sqrt(200.0 / 3.0), 1e-9);

	/* a third member with no samples changes nothing; one with
	 * samples keeps adding to the already summed figures */
	stats_merge(a, c);
	assert_near(lat_stat_mean(bw), 550.0, 1e-9);
	lat_stat_add(&c->dd[DDIR_READ].bw, 1000, 1);
	lat_stat_add(&c->dd[DDIR_READ].bw, 1000, 1);
	stats_merge(a, c);
	assert_int_equal(bw->min, 1400);
	assert_int_equal(bw->max, 1700);
	assert_int_equal(bw->nr, 6);
	assert_near(lat_stat_mean(bw), 1550.0, 1e-9);
	assert_near(lat_stat_stddev(bw), sqrt(25000.0 / 5.0), 1e-9);
	free(a);
	free(b);
	free(c);
}

static void test_merge_sums_counters(void **state)
{
	struct job_stats *a = js_new(NULL), *b = js_new(NULL);
	struct ddir_stats *d;

	(void)state;
	stats_add_io(a, DDIR_READ, 1, 500, 8192, 2, true);
	stats_add_io(b, DDIR_READ, 1, 3000000, 4096, 1, true);
	stats_add_io(b, DDIR_WRITE, 1, 2000, 4096, 1, true);
	a->dd[DDIR_READ].issued = 2;
	b->dd[DDIR_READ].issued = 1;
	b->dd[DDIR_READ].short_ios = 1;
	b->dd[DDIR_WRITE].drop_ios = 2;
	a->dd[DDIR_READ].runtime_ns = 900 * NS_PER_MS;
	b->dd[DDIR_READ].runtime_ns = 1000 * NS_PER_MS;
	a->runtime_ns = 900 * NS_PER_MS;
	b->runtime_ns = 1000 * NS_PER_MS;
	a->usr_us = 10;
	b->usr_us = 20;
	b->sys_us = 5;
	a->ctx = 1;
	b->ctx = 2;
	b->majf = 3;
	b->minf = 4;
	a->depth_map[2] = 5;
	b->depth_map[2] = 6;
	b->submit_map[1] = 7;
	b->complete_map[1] = 8;
	a->total_submit = 1;
	b->total_submit = 2;
	b->total_complete = 3;
	b->error = 5;
	a->mq.comp_local = 1;
	b->mq.comp_local = 2;
	b->mq.comp_remote = 3;
	b->mq.comp_batched = 4;
	b->mq.comp_polled = 5;
	b->mq.requeues = 6;
	b->mq.tag_waits = 7;
	b->mq.timeouts = 8;
	b->mq.errors = 9;

	stats_merge(a, b);
	d = &a->dd[DDIR_READ];
	assert_int_equal(a->nr_jobs, 2);
	assert_int_equal(d->io_bytes, 12288);
	assert_int_equal(d->total_ios, 3);
	assert_int_equal(d->issued, 3);
	assert_int_equal(d->short_ios, 1);
	assert_int_equal(a->dd[DDIR_WRITE].drop_ios, 2);
	assert_int_equal(a->dd[DDIR_WRITE].total_ios, 1);
	/* side by side: a direction ran as long as its longest member */
	assert_int_equal(d->runtime_ns, 1000 * NS_PER_MS);
	/* but job time adds up, as fio's total_run_time */
	assert_int_equal(a->runtime_ns, 1900 * NS_PER_MS);
	assert_int_equal(a->usr_us, 30);
	assert_int_equal(a->sys_us, 5);
	assert_int_equal(a->ctx, 3);
	assert_int_equal(a->majf, 3);
	assert_int_equal(a->minf, 4);
	assert_int_equal(a->depth_map[2], 11);
	assert_int_equal(a->submit_map[1], 7);
	assert_int_equal(a->complete_map[1], 8);
	assert_int_equal(a->total_submit, 3);
	assert_int_equal(a->total_complete, 3);
	assert_int_equal(a->lat_n[LAT_N_NR - 2], 2); /* 500 ns */
	assert_int_equal(a->lat_m[1], 1); /* 3 ms: [2, 4) */
	assert_int_equal(a->lat_u[1], 1); /* 2 us: [2, 4) */
	assert_int_equal(a->error, 5);
	assert_int_equal(a->mq.comp_local, 3);
	assert_int_equal(a->mq.comp_remote, 3);
	assert_int_equal(a->mq.comp_batched, 4);
	assert_int_equal(a->mq.comp_polled, 5);
	assert_int_equal(a->mq.requeues, 6);
	assert_int_equal(a->mq.tag_waits, 7);
	assert_int_equal(a->mq.timeouts, 8);
	assert_int_equal(a->mq.errors, 9);

	/* the first error stays */
	b->error = 7;
	stats_merge(a, b);
	assert_int_equal(a->error, 5);
	assert_int_equal(a->nr_jobs, 3);
	free(a);
	free(b);
}

static void test_mark_latency_buckets(void **state)
{
	struct job_stats *js = js_new(NULL);

	(void)state;
	stats_mark_latency(js, 0, 1);
	stats_mark_latency(js, 1, 1);
	stats_mark_latency(js, 2, 1);
	stats_mark_latency(js, 999, 1);
	stats_mark_latency(js, 1000, 1);
	stats_mark_latency(js, 999999, 1);
	stats_mark_latency(js, 1000000, 1);
	stats_mark_latency(js, 1999999999, 1);
	stats_mark_latency(js, 2000000000, 4);
	assert_int_equal(js->lat_n[0], 2);
	assert_int_equal(js->lat_n[1], 1);
	assert_int_equal(js->lat_n[9], 1);
	assert_int_equal(js->lat_u[0], 1);
	assert_int_equal(js->lat_u[9], 1);
	assert_int_equal(js->lat_m[0], 1);
	assert_int_equal(js->lat_m[10], 1);
	assert_int_equal(js->lat_m[11], 4);
	free(js);
}

static void test_depth_and_batch_slots(void **state)
{
	(void)state;
	assert_int_equal(stats_depth_slot(0), 0);
	assert_int_equal(stats_depth_slot(1), 0);
	assert_int_equal(stats_depth_slot(3), 1);
	assert_int_equal(stats_depth_slot(4), 2);
	assert_int_equal(stats_depth_slot(63), 5);
	assert_int_equal(stats_depth_slot(64), 6);
	assert_int_equal(stats_depth_slot(4096), 6);
	assert_int_equal(stats_batch_slot(0), 0);
	assert_int_equal(stats_batch_slot(1), 1);
	assert_int_equal(stats_batch_slot(4), 1);
	assert_int_equal(stats_batch_slot(5), 2);
	assert_int_equal(stats_batch_slot(64), 5);
	assert_int_equal(stats_batch_slot(65), 6);
}

static void test_sample_bw(void **state)
{
	struct job_stats *js = js_new(NULL);
	struct ddir_stats *ds = &js->dd[DDIR_READ];

	(void)state;
	/* 1 MiB and 256 I/Os in 500 ms: 2048 KiB/s, 512 IOPS */
	stats_sample_bw(js, DDIR_READ, MIB, 256, 500 * NS_PER_MS);
	assert_int_equal(ds->bw.nr, 1);
	assert_int_equal(ds->bw.min, 2048);
	assert_int_equal(ds->iops.min, 512);
	/* fio counts whole ms: 500.9 ms is 500 */
	stats_sample_bw(js, DDIR_READ, MIB, 256, 500 * NS_PER_MS + 900000);
	assert_int_equal(ds->bw.max, 2048);
	/* an idle interval is no sample */
	stats_sample_bw(js, DDIR_READ, 0, 0, 500 * NS_PER_MS);
	assert_int_equal(ds->bw.nr, 2);
	assert_int_equal(ds->iops.nr, 2);
	free(js);
}

static void test_calc_dist_floor(void **state)
{
	static const uint64_t map[DEPTH_MAP_NR] = { 1, 0, 9998, 1, 0, 0, 0 };
	double out[DEPTH_MAP_NR];

	(void)state;
	stats_calc_dist(map, 10000, out);
	/* 0.01% shows as fio's 0.1% floor; zero stays zero */
	assert_near(out[0], 0.1, 1e-12);
	assert_near(out[1], 0.0, 0);
	assert_near(out[2], 99.98, 1e-9);
	assert_near(out[3], 0.1, 1e-12);
	stats_calc_dist(map, 0, out);
	assert_near(out[2], 0.0, 0);
}

static void test_calc_lat_floor(void **state)
{
	static const uint64_t src[LAT_M_NR] = { 1, 0, 0, 0,	 0, 0,
						0, 0, 0, 999999, 0, 0 };
	double out[LAT_M_NR];

	(void)state;
	stats_calc_lat(src, LAT_M_NR, 1000000, out);
	assert_near(out[0], 0.01, 1e-12);
	assert_near(out[1], 0.0, 0);
	assert_near(out[9], 99.9999, 1e-9);
	stats_calc_lat(src, LAT_M_NR, 0, out);
	assert_near(out[9], 0.0, 0);
}

static void test_runtime_ms_and_issued(void **state)
{
	struct ddir_stats ds;

	(void)state;
	memset(&ds, 0, sizeof(ds));
	assert_int_equal(stats_runtime_ms(&ds), 0);
	/* rounded up from whole microseconds */
	ds.runtime_ns = 1000000;
	assert_int_equal(stats_runtime_ms(&ds), 1);
	ds.runtime_ns = 1000999;
	assert_int_equal(stats_runtime_ms(&ds), 1);
	ds.runtime_ns = 1001000;
	assert_int_equal(stats_runtime_ms(&ds), 2);
	ds.runtime_ns = 1500 * NS_PER_MS;
	assert_int_equal(stats_runtime_ms(&ds), 1500);
	/* a direction that did I/O ran at least 1 ms */
	ds.runtime_ns = 1;
	assert_int_equal(stats_runtime_ms(&ds), 0);
	ds.total_ios = 1;
	assert_int_equal(stats_runtime_ms(&ds), 1);

	assert_int_equal(stats_issued(&ds), 1);
	ds.issued = 3;
	assert_int_equal(stats_issued(&ds), 3);
}

static void test_bw_agg_pct(void **state)
{
	struct report_group g;

	(void)state;
	memset(&g, 0, sizeof(g));
	assert_near(stats_bw_agg_pct(NULL, DDIR_READ, 5), 100.0, 0);
	g.agg_bw[DDIR_READ] = 1024;
	assert_near(stats_bw_agg_pct(&g, DDIR_READ, 5), 100.0, 0);
	g.agg_bw[DDIR_READ] = 4 * MIB; /* 4096 KiB/s */
	assert_near(stats_bw_agg_pct(&g, DDIR_READ, 1024.0), 25.0, 1e-12);
	/* fio truncates the mean to an integer first */
	assert_near(stats_bw_agg_pct(&g, DDIR_READ, 1024.9), 25.0, 1e-12);
	assert_near(stats_bw_agg_pct(&g, DDIR_READ, 9000.0), 100.0, 0);
}

/* A job thread that read `bytes` in `ms`. */
static struct job_stats *thread_stats(const struct bench_job *job, unsigned gid,
				      uint64_t bytes, uint64_t ms)
{
	struct job_stats *js = js_new(job);

	js->groupid = gid;
	stats_add_io(js, DDIR_READ, 10, 1000, bytes, bytes / 4096, true);
	js->dd[DDIR_READ].runtime_ns = ms * NS_PER_MS;
	js->runtime_ns = ms * NS_PER_MS;
	return js;
}

static void free_all(struct job_stats **jobs, unsigned nr)
{
	unsigned i;

	for (i = 0; i < nr; i++)
		free(jobs[i]);
}

static void test_view_one_entry_per_job_without_group_reporting(void **state)
{
	struct bench_job job;
	struct job_stats *jobs[3];
	struct report r = { .jobs = jobs, .nr_jobs = 3 };
	struct report_view v;
	struct report_group *g;

	(void)state;
	job_init(&job, "plain");
	jobs[0] = thread_stats(&job, 0, MIB, 1000);
	jobs[1] = thread_stats(&job, 0, 2 * MIB, 500);
	jobs[2] = thread_stats(&job, 1, 3 * MIB, 1000);
	assert_int_equal(report_view_build(&v, &r), 0);
	assert_int_equal(v.nr_entries, 3);
	assert_ptr_equal(v.entries[0], jobs[0]);
	assert_ptr_equal(v.entries[2], jobs[2]);
	assert_false(v.owned[0] || v.owned[1] || v.owned[2]);
	assert_int_equal(v.nr_groups, 2);

	g = &v.groups[0];
	assert_int_equal(g->min_run_ms[DDIR_READ], 500);
	assert_int_equal(g->max_run_ms[DDIR_READ], 1000);
	assert_int_equal(g->min_bw[DDIR_READ], MIB);
	assert_int_equal(g->max_bw[DDIR_READ], 4 * MIB);
	assert_int_equal(g->io_bytes[DDIR_READ], 3 * MIB);
	assert_int_equal(g->agg_bw[DDIR_READ], 3 * MIB);
	/* directions without I/O stay unset */
	assert_int_equal(g->max_run_ms[DDIR_WRITE], 0);
	assert_int_equal(g->agg_bw[DDIR_WRITE], 0);
	assert_int_equal(v.groups[1].agg_bw[DDIR_READ], 3 * MIB);
	report_view_free(&v);
	assert_null(v.entries);
	free_all(jobs, 3);
}

static void test_view_merges_group_reporting_runs(void **state)
{
	struct bench_job gr, plain;
	struct job_stats *jobs[6];
	struct report r = { .jobs = jobs, .nr_jobs = 6 };
	struct report_view v;
	struct report_group *g;

	(void)state;
	job_init(&gr, "gr");
	gr.group_reporting = true;
	job_init(&plain, "plain");
	/* fio: a group_reporting job joins the entry before it when that
	 * entry is of its group, whatever that entry's own setting */
	jobs[0] = thread_stats(&gr, 0, MIB, 1000);
	jobs[1] = thread_stats(&gr, 0, 2 * MIB, 500);
	jobs[2] = thread_stats(&gr, 1, MIB, 1000);
	jobs[3] = thread_stats(&plain, 1, MIB, 1000);
	jobs[4] = thread_stats(&gr, 1, MIB, 1000);
	jobs[5] = thread_stats(&plain, 1, MIB, 1000);
	assert_int_equal(report_view_build(&v, &r), 0);
	assert_int_equal(v.nr_entries, 4);
	assert_true(v.owned[0]);
	assert_false(v.owned[1]);
	assert_true(v.owned[2]);
	assert_false(v.owned[3]);
	assert_ptr_equal(v.entries[1], jobs[2]);
	assert_ptr_equal(v.entries[3], jobs[5]);
	assert_int_equal(v.entries[0]->nr_jobs, 2);
	assert_int_equal(v.entries[2]->nr_jobs, 2);
	assert_string_equal(v.entries[2]->name, "plain");
	assert_int_equal(v.entries[0]->dd[DDIR_READ].io_bytes, 3 * MIB);
	assert_int_equal(v.entries[0]->dd[DDIR_READ].runtime_ns,
			 1000 * NS_PER_MS);
	assert_int_equal(v.entries[0]->dd[DDIR_READ].total_ios, 768);
	/* the threads' own figures are left alone */
	assert_int_equal(jobs[0]->nr_jobs, 1);
	assert_int_equal(jobs[0]->dd[DDIR_READ].io_bytes, MIB);

	/* group 0 is one entry: fio shows min == max bandwidth */
	g = &v.groups[0];
	assert_int_equal(g->min_bw[DDIR_READ], 3 * MIB);
	assert_int_equal(g->max_bw[DDIR_READ], 3 * MIB);
	assert_int_equal(g->min_run_ms[DDIR_READ], 1000);
	assert_int_equal(g->agg_bw[DDIR_READ], 3 * MIB);
	g = &v.groups[1];
	assert_int_equal(g->min_bw[DDIR_READ], MIB);
	assert_int_equal(g->max_bw[DDIR_READ], 2 * MIB);
	assert_int_equal(g->io_bytes[DDIR_READ], 4 * MIB);
	report_view_free(&v);
	free_all(jobs, 6);
}

static void test_view_empty_and_sparse_groups(void **state)
{
	struct bench_job job;
	struct job_stats *jobs[2];
	struct report r = { .jobs = jobs, .nr_jobs = 0 };
	struct report_view v;

	(void)state;
	assert_int_equal(report_view_build(&v, &r), 0);
	assert_int_equal(v.nr_entries, 0);
	assert_int_equal(v.nr_groups, 0);
	report_view_free(&v);

	job_init(&job, "s");
	jobs[0] = thread_stats(&job, 0, MIB, 1000);
	jobs[1] = thread_stats(&job, 2, MIB, 1000);
	r.nr_jobs = 2;
	assert_int_equal(report_view_build(&v, &r), 0);
	assert_int_equal(v.nr_groups, 3);
	assert_int_equal(v.groups[1].max_run_ms[DDIR_READ], 0);
	assert_int_equal(v.groups[2].agg_bw[DDIR_READ], MIB);
	report_view_free(&v);
	free_all(jobs, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_val_to_idx_exact_below_128),
		cmocka_unit_test(test_val_to_idx_known_values),
		cmocka_unit_test(test_val_to_idx_matches_reference),
		cmocka_unit_test(test_val_to_idx_clamps_to_last_bucket),
		cmocka_unit_test(test_idx_to_val_midpoints),
		cmocka_unit_test(test_idx_val_roundtrip_and_error_bound),
		cmocka_unit_test(test_percentiles_first_bucket_reaching_p),
		cmocka_unit_test(test_percentiles_without_samples_are_zero),
		cmocka_unit_test(test_percentile_list_default_custom_sorted),
		cmocka_unit_test(test_percentile_precision),
		cmocka_unit_test(test_add_io_fills_summaries_and_histograms),
		cmocka_unit_test(test_lat_stat_mean_stddev),
		cmocka_unit_test(test_merge_pools_latencies),
		cmocka_unit_test(test_merge_bw_iops_pure_sum),
		cmocka_unit_test(test_merge_sums_counters),
		cmocka_unit_test(test_mark_latency_buckets),
		cmocka_unit_test(test_depth_and_batch_slots),
		cmocka_unit_test(test_sample_bw),
		cmocka_unit_test(test_calc_dist_floor),
		cmocka_unit_test(test_calc_lat_floor),
		cmocka_unit_test(test_runtime_ms_and_issued),
		cmocka_unit_test(test_bw_agg_pct),
		cmocka_unit_test(
			test_view_one_entry_per_job_without_group_reporting),
		cmocka_unit_test(test_view_merges_group_reporting_runs),
		cmocka_unit_test(test_view_empty_and_sparse_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
