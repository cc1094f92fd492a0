// SPDX-License-Identifier: MIT
/*
 * Per-job statistics with fio's semantics: summaries, the log-linear
 * histogram, percentiles, group_reporting merges and the report view.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static void lat_stat_reset(struct lat_stat *ls)
{
	memset(ls, 0, sizeof(*ls));
	ls->min = UINT64_MAX;
}

void stats_init(struct job_stats *js, const struct bench_job *job)
{
	unsigned d;

	memset(js, 0, sizeof(*js));
	for (d = 0; d < DDIR_NR; d++) {
		lat_stat_reset(&js->dd[d].slat);
		lat_stat_reset(&js->dd[d].clat);
		lat_stat_reset(&js->dd[d].lat);
		lat_stat_reset(&js->dd[d].bw);
		lat_stat_reset(&js->dd[d].iops);
	}
	lat_stat_reset(&js->sync_lat);
	js->nr_jobs = 1;
	js->job = job;
	js->want_clat_hist = true;
	if (!job)
		return;
	snprintf(js->name, sizeof(js->name), "%s", job->name);
	js->groupid = job->groupid;
	js->want_clat_hist = job->clat_percentiles;
	js->want_lat_hist = job->lat_percentiles;
	js->want_slat_hist = job->slat_percentiles;
	js->no_lat = job->disable_lat;
	js->no_clat = job->disable_clat;
	js->no_slat = job->disable_slat;
}

/*
 * Sum of squared deviations from the mean. n * sumsq - sum^2 is exact in
 * 128 bits unless n * sumsq overflows; then long double (64-bit
 * mantissa) keeps the cancellation error far below what is printed.
 */
static long double lat_stat_s(const struct lat_stat *ls)
{
	unsigned __int128 nsq, sq;
	long double n = (long double)ls->nr;

	if (ls->pure_sum)
		return ls->ps_s;
	if (!ls->nr)
		return 0;
	sq = (unsigned __int128)ls->sum * ls->sum;
	if (!__builtin_mul_overflow((unsigned __int128)ls->nr, ls->sumsq,
				    &nsq)) {
		if (nsq <= sq)
			return 0;
		return (long double)(nsq - sq) / n;
	}
	return (long double)ls->sumsq -
	       (long double)ls->sum * (long double)ls->sum / n;
}

double lat_stat_mean(const struct lat_stat *ls)
{
	if (!ls->nr)
		return 0;
	if (ls->pure_sum)
		return ls->ps_mean;
	return (double)((long double)ls->sum / (long double)ls->nr);
}

double lat_stat_stddev(const struct lat_stat *ls)
{
	long double s;

	if (ls->nr <= 1)
		return 0;
	s = lat_stat_s(ls);
	if (s <= 0)
		return 0;
	return sqrt((double)(s / (long double)(ls->nr - 1)));
}

uint64_t plat_idx_to_val(unsigned idx)
{
	unsigned error_bits;
	uint64_t base, k;

	if (idx >= PLAT_NR)
		idx = PLAT_NR - 1;
	/* The first two groups are exact: one value per bucket. */
	if (idx < (PLAT_VAL << 1))
		return idx;
	error_bits = (idx >> PLAT_BITS) - 1;
	base = 1ull << (error_bits + PLAT_BITS);
	k = idx % PLAT_VAL;
	/* Bucket k spans [base + k * 2^e, base + (k + 1) * 2^e); its
	 * midpoint is an integer since e >= 1 here. */
	return base + (k << error_bits) + (1ull << (error_bits - 1));
}

void stats_percentiles(const uint64_t *hist, uint64_t nr_samples,
		       const double *plist, unsigned nr, uint64_t *out)
{
	unsigned i, j;

	for (j = 0; j < nr; j++) {
		long double want = (long double)plist[j] / 100.0L *
				   (long double)nr_samples;
		uint64_t sum = 0;

		out[j] = 0;
		if (!nr_samples)
			continue;
		/* First bucket where the running count reaches p% of the
		 * samples, as calc_clat_percentiles. */
		for (i = 0; i < PLAT_NR; i++) {
			sum += hist[i];
			if ((long double)sum >= want) {
				out[j] = plat_idx_to_val(i);
				break;
			}
		}
	}
}

/* 0-1, 2-3, 4-9, 10-19, 20-49, 50-99, 100-249, 250-499, 500-749, 750-999 */
static unsigned lat_slot(uint64_t v)
{
	static const uint64_t bound[] = { 2,   4,   10,	 20,   50,  100,
					  250, 500, 750, 1000, 2000 };
	unsigned i;

	for (i = 0; i < sizeof(bound) / sizeof(bound[0]); i++)
		if (v < bound[i])
			return i;
	return i;
}

void stats_mark_latency(struct job_stats *js, uint64_t ns, uint64_t n)
{
	if (ns < 1000)
		js->lat_n[lat_slot(ns)] += n;
	else if (ns < 1000000)
		js->lat_u[lat_slot(ns / 1000)] += n;
	else
		js->lat_m[lat_slot(ns / 1000000)] += n;
}

void stats_sample_bw(struct job_stats *js, enum bench_ddir d, uint64_t bytes,
		     uint64_t ios, uint64_t elapsed_ns)
{
	struct ddir_stats *ds = &js->dd[d];
	/* fio's __add_samples works on whole milliseconds. */
	uint64_t spent = elapsed_ns / 1000000;

	/* No sample for an interval without I/O, as fio. */
	if (bytes)
		lat_stat_add(&ds->bw, spent ? bytes * 1000 / spent / 1024 : 0,
			     1);
	if (ios)
		lat_stat_add(&ds->iops, spent ? ios * 1000 / spent : 0, 1);
}

/* Latencies: the samples pool (fio __sum_stat; exact with sums). */
static void lat_stat_merge(struct lat_stat *dst, const struct lat_stat *src)
{
	if (!src->nr)
		return;
	if (!dst->nr) {
		*dst = *src;
		return;
	}
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->nr += src->nr;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
}

/*
 * bw/iops: fio's sum_stat(pure_sum): the group's bandwidth is the sum
 * of its jobs', so min, max, mean and S add up (samples too).
 */
static void lat_stat_sum(struct lat_stat *dst, const struct lat_stat *src)
{
	double mean, s;

	if (!src->nr)
		return;
	if (!dst->nr) {
		*dst = *src;
		return;
	}
	mean = lat_stat_mean(dst) + lat_stat_mean(src);
	s = (double)(lat_stat_s(dst) + lat_stat_s(src));
	dst->min += src->min;
	dst->max += src->max;
	dst->nr += src->nr;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	dst->pure_sum = true;
	dst->ps_mean = mean;
	dst->ps_s = s;
}

static void add_array(uint64_t *dst, const uint64_t *src, unsigned nr)
{
	unsigned i;

	for (i = 0; i < nr; i++)
		dst[i] += src[i];
}

/*
 * One direction's counts added into another. Jobs of a group run side by
 * side: their bandwidth and IOPS samples are summed, and the group's
 * runtime is the longest. pool (fio's sum_thread_stats into one
 * direction, unified_rw_reporting): the samples are pooled as samples of
 * one direction instead.
 */
static void ddir_add(struct ddir_stats *dd, const struct ddir_stats *sd,
		     bool pool)
{
	lat_stat_merge(&dd->slat, &sd->slat);
	lat_stat_merge(&dd->clat, &sd->clat);
	lat_stat_merge(&dd->lat, &sd->lat);
	if (pool) {
		lat_stat_merge(&dd->bw, &sd->bw);
		lat_stat_merge(&dd->iops, &sd->iops);
	} else {
		lat_stat_sum(&dd->bw, &sd->bw);
		lat_stat_sum(&dd->iops, &sd->iops);
	}
	add_array(dd->clat_hist, sd->clat_hist, PLAT_NR);
	add_array(dd->lat_hist, sd->lat_hist, PLAT_NR);
	add_array(dd->slat_hist, sd->slat_hist, PLAT_NR);
	dd->io_bytes += sd->io_bytes;
	dd->total_ios += sd->total_ios;
	dd->short_ios += sd->short_ios;
	dd->drop_ios += sd->drop_ios;
	dd->issued += sd->issued;
	if (sd->runtime_ns > dd->runtime_ns)
		dd->runtime_ns = sd->runtime_ns;
}

void stats_merge(struct job_stats *dst, const struct job_stats *src)
{
	const struct mqblk_job_counters *s = &src->mq;
	struct mqblk_job_counters *m = &dst->mq;
	unsigned d;

	if (!dst->nr_paths && src->nr_paths) {
		dst->nr_paths = src->nr_paths;
		memcpy(dst->iopolicy, src->iopolicy, sizeof(dst->iopolicy));
		memcpy(dst->paths, src->paths, sizeof(dst->paths));
	} else if (dst->nr_paths == src->nr_paths) {
		for (d = 0; d < src->nr_paths; d++) {
			struct mqblk_path_stats *dp = &dst->paths[d];
			const struct mqblk_path_stats *sp = &src->paths[d];

			dp->sent += sp->sent;
			dp->completed += sp->completed;
			dp->failovers += sp->failovers;
			dp->reconnects += sp->reconnects;
			dp->stalls += sp->stalls;
		}
	}

	if (src->has_rdma) {
		if (!dst->has_rdma)
			memset(&dst->rdma, 0, sizeof(dst->rdma));
		dst->has_rdma = true;
		nvme_rdma_stats_add(&dst->rdma, &src->rdma, 1);
	}

	for (d = 0; d < DDIR_NR; d++)
		ddir_add(&dst->dd[d], &src->dd[d], false);

	dst->nr_jobs += src->nr_jobs;
	dst->sync_issued += src->sync_issued;
	dst->sync_ios += src->sync_ios;
	lat_stat_merge(&dst->sync_lat, &src->sync_lat);
	dst->verify_errors += src->verify_errors;
	if (!dst->error)
		dst->error = src->error;
	dst->total_err += src->total_err;
	if (!dst->first_error)
		dst->first_error = src->first_error;
	/* fio adds total_run_time up (so cpu% is per job on average). */
	dst->runtime_ns += src->runtime_ns;
	dst->usr_us += src->usr_us;
	dst->sys_us += src->sys_us;
	dst->ctx += src->ctx;
	dst->majf += src->majf;
	dst->minf += src->minf;
	add_array(dst->depth_map, src->depth_map, DEPTH_MAP_NR);
	add_array(dst->submit_map, src->submit_map, DEPTH_MAP_NR);
	add_array(dst->complete_map, src->complete_map, DEPTH_MAP_NR);
	dst->total_submit += src->total_submit;
	dst->total_complete += src->total_complete;
	add_array(dst->lat_n, src->lat_n, LAT_N_NR);
	add_array(dst->lat_u, src->lat_u, LAT_U_NR);
	add_array(dst->lat_m, src->lat_m, LAT_M_NR);

	m->comp_local += s->comp_local;
	m->comp_remote += s->comp_remote;
	m->comp_batched += s->comp_batched;
	m->comp_polled += s->comp_polled;
	m->comp_irq += s->comp_irq;
	m->wakeups += s->wakeups;
	m->requeues += s->requeues;
	m->tag_waits += s->tag_waits;
	m->tag_wait_ns += s->tag_wait_ns;
	m->merges += s->merges;
	m->dispatched += s->dispatched;
	m->dispatch_runs += s->dispatch_runs;
	m->doorbells += s->doorbells;
	m->sched_expired += s->sched_expired;
	m->dispatch_locks += s->dispatch_locks;
	m->dispatch_lock_contended += s->dispatch_lock_contended;
	m->poll_budget_hits += s->poll_budget_hits;
	m->timeouts += s->timeouts;
	m->errors += s->errors;
}

uint64_t stats_runtime_ms(const struct ddir_stats *ds)
{
	uint64_t ms = (ds->runtime_ns / 1000 + 999) / 1000;

	if (!ms && (ds->io_bytes || ds->total_ios))
		ms = 1;
	return ms;
}

uint64_t stats_issued(const struct ddir_stats *ds)
{
	return ds->issued ? ds->issued : ds->total_ios;
}

unsigned stats_percentile_list(const struct job_stats *js, double *plist)
{
	const struct bench_job *job = js->job;
	const double *src = bench_default_percentiles;
	unsigned nr = sizeof(bench_default_percentiles) /
		      sizeof(bench_default_percentiles[0]);
	unsigned len, i, j;

	if (job && job->nr_percentiles) {
		src = job->percentiles;
		nr = job->nr_percentiles;
	}
	if (nr > BENCH_MAX_PERCENTILES)
		nr = BENCH_MAX_PERCENTILES;
	/* fio's list ends at the first 0.0. */
	for (len = 0; len < nr && src[len] != 0.0; len++)
		plist[len] = src[len];
	/* Insertion sort: at most 20 entries. */
	for (i = 1; i < len; i++) {
		double v = plist[i];

		for (j = i; j > 0 && plist[j - 1] > v; j--)
			plist[j] = plist[j - 1];
		plist[j] = v;
	}
	return len;
}

unsigned stats_percentile_precision(const double *plist, unsigned nr)
{
	unsigned i, d, prec = 0;

	/* fio counts the digits typed after the dot; we only have the
	 * value, so count the decimals it needs (99.95 -> 2). */
	for (i = 0; i < nr; i++) {
		double scale = 1;

		for (d = 0; d < 6; d++, scale *= 10) {
			double v = plist[i] * scale;

			if (fabs(v - round(v)) < 1e-6)
				break;
		}
		if (d > prec)
			prec = d;
	}
	return prec;
}

void stats_calc_dist(const uint64_t *map, uint64_t total, double *out)
{
	unsigned i;

	for (i = 0; i < DEPTH_MAP_NR; i++) {
		out[i] = 0;
		if (!total)
			continue;
		out[i] = (double)map[i] / (double)total * 100.0;
		if (out[i] < 0.1 && map[i])
			out[i] = 0.1;
	}
}

void stats_calc_lat(const uint64_t *src, unsigned nr, uint64_t total,
		    double *out)
{
	unsigned i;

	for (i = 0; i < nr; i++) {
		out[i] = 0;
		if (!total)
			continue;
		out[i] = (double)src[i] / (double)total * 100.0;
		if (out[i] < 0.01 && src[i])
			out[i] = 0.01;
	}
}

double stats_bw_agg_pct(const struct report_group *g, enum bench_ddir d,
			double mean_kib)
{
	double pct;

	if (!g || g->agg_bw[d] <= 1024)
		return 100.0;
	/* fio passes the mean as an int: keep the truncation. */
	pct = (double)(int64_t)mean_kib * 100.0 /
	      ((double)g->agg_bw[d] / 1024.0);
	return pct > 100.0 ? 100.0 : pct;
}

static bool job_group_reporting(const struct job_stats *js)
{
	return js->job && js->job->group_reporting;
}

/* Entry i as the view's own copy, to change it. */
static int view_own(struct report_view *v, unsigned i)
{
	struct job_stats *copy;

	if (v->owned[i])
		return 0;
	copy = malloc(sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, v->entries[i], sizeof(*copy));
	v->entries[i] = copy;
	v->owned[i] = true;
	return 0;
}

/*
 * unified_rw_reporting: mixed folds write and trim into read (fio reports
 * that slot as "mixed"); both keeps them and adds the fold beside.
 */
static int view_unify(struct report_view *v)
{
	unsigned i, d;

	for (i = 0; i < v->nr_entries; i++) {
		const struct bench_job *job = v->entries[i]->job;
		struct job_stats *js;

		if (!job || job->unified_rw_reporting == BENCH_UNIFIED_NONE)
			continue;
		if (view_own(v, i))
			return -ENOMEM;
		js = v->entries[i];
		if (job->unified_rw_reporting == BENCH_UNIFIED_MIXED) {
			for (d = 1; d < DDIR_NR; d++) {
				ddir_add(&js->dd[0], &js->dd[d], true);
				memset(&js->dd[d], 0, sizeof(js->dd[d]));
				lat_stat_reset(&js->dd[d].slat);
				lat_stat_reset(&js->dd[d].clat);
				lat_stat_reset(&js->dd[d].lat);
				lat_stat_reset(&js->dd[d].bw);
				lat_stat_reset(&js->dd[d].iops);
			}
			continue;
		}
		js->mixed = malloc(sizeof(*js->mixed));
		if (!js->mixed)
			return -ENOMEM;
		*js->mixed = js->dd[0];
		for (d = 1; d < DDIR_NR; d++)
			ddir_add(js->mixed, &js->dd[d], true);
	}
	return 0;
}

static int view_add_entries(struct report_view *v, const struct report *r)
{
	unsigned i, last_gid = 0;

	for (i = 0; i < r->nr_jobs; i++) {
		struct job_stats *js = r->jobs[i];
		unsigned cur = v->nr_entries - 1;

		/* fio starts a new entry unless this job reports as a group
		 * and belongs to the previous job's group. */
		if (v->nr_entries && job_group_reporting(js) &&
		    js->groupid == last_gid) {
			if (!v->owned[cur]) {
				struct job_stats *copy = malloc(sizeof(*copy));

				if (!copy)
					return -ENOMEM;
				memcpy(copy, v->entries[cur], sizeof(*copy));
				v->entries[cur] = copy;
				v->owned[cur] = true;
			}
			stats_merge(v->entries[cur], js);
		} else {
			v->entries[v->nr_entries] = js;
			v->owned[v->nr_entries] = false;
			v->nr_entries++;
		}
		last_gid = js->groupid;
	}
	return 0;
}

/* fio's group_run_stats, from the entries as printed. */
static void view_add_groups(struct report_view *v)
{
	unsigned i, d;

	for (i = 0; i < v->nr_groups; i++)
		for (d = 0; d < DDIR_NR; d++) {
			v->groups[i].min_run_ms[d] = UINT64_MAX;
			v->groups[i].min_bw[d] = UINT64_MAX;
		}

	for (i = 0; i < v->nr_entries; i++) {
		const struct job_stats *js = v->entries[i];
		struct report_group *g = &v->groups[js->groupid];

		if (!g->kb_base)
			g->kb_base = js->job ? js->job->kb_base : 1024;
		if (js->job)
			g->unified |= js->job->unified_rw_reporting;
		for (d = 0; d < DDIR_NR; d++) {
			uint64_t rt = stats_runtime_ms(&js->dd[d]);
			uint64_t bw;

			if (!rt)
				continue;
			if (rt < g->min_run_ms[d])
				g->min_run_ms[d] = rt;
			if (rt > g->max_run_ms[d])
				g->max_run_ms[d] = rt;
			bw = js->dd[d].io_bytes * 1000 / rt;
			if (bw < g->min_bw[d])
				g->min_bw[d] = bw;
			if (bw > g->max_bw[d])
				g->max_bw[d] = bw;
			g->io_bytes[d] += js->dd[d].io_bytes;
		}
	}

	for (i = 0; i < v->nr_groups; i++)
		for (d = 0; d < DDIR_NR; d++) {
			struct report_group *g = &v->groups[i];

			if (g->max_run_ms[d])
				g->agg_bw[d] = g->io_bytes[d] * 1000 /
					       g->max_run_ms[d];
		}
}

int report_view_build(struct report_view *v, const struct report *r)
{
	unsigned i;
	int ret;

	memset(v, 0, sizeof(*v));
	if (!r->nr_jobs)
		return 0;
	v->entries = calloc(r->nr_jobs, sizeof(*v->entries));
	v->owned = calloc(r->nr_jobs, sizeof(*v->owned));
	if (!v->entries || !v->owned)
		goto out_free;
	ret = view_add_entries(v, r);
	if (!ret)
		ret = view_unify(v);
	if (ret)
		goto out_free;

	for (i = 0; i < r->nr_jobs; i++)
		if (r->jobs[i]->groupid + 1 > v->nr_groups)
			v->nr_groups = r->jobs[i]->groupid + 1;
	v->groups = calloc(v->nr_groups, sizeof(*v->groups));
	if (!v->groups)
		goto out_free;
	view_add_groups(v);
	return 0;

out_free:
	report_view_free(v);
	return -ENOMEM;
}

void report_view_free(struct report_view *v)
{
	unsigned i;

	if (v->owned)
		for (i = 0; i < v->nr_entries; i++)
			if (v->owned[i]) {
				free(v->entries[i]->mixed);
				free(v->entries[i]);
			}
	free(v->entries);
	free(v->owned);
	free(v->groups);
	memset(v, 0, sizeof(*v));
}

double stats_remote_pct(const struct mqblk_job_counters *mq)
{
	uint64_t cross = mq->comp_remote + mq->comp_batched + mq->comp_irq;
	uint64_t all = cross + mq->comp_local + mq->comp_polled;

	return all ? (double)cross * 100.0 / (double)all : 0.0;
}
