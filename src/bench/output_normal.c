// SPDX-License-Identifier: MIT
/*
 * The human-readable report, laid out line for line as fio 3.33's normal
 * output (stat.c show_thread_status_normal / show_group_stats).
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"

/* fio's default significant_figures and kb_base=1024. */
#define SIG_FIGS 4

enum n2s_unit {
	N2S_NONE,
	N2S_BYTE,
	N2S_BYTEPERSEC,
};

static unsigned nr_digits(uint64_t v)
{
	unsigned n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/*
 * fio's num2str: scale num by 1000 (or 1024 with pow2) until it has at
 * most maxlen digits, then use the room left for decimals taken from the
 * last remainder; with no room, round the remainder into the integer.
 */
static const char *n2s(char *buf, uint64_t num, int maxlen, bool pow2,
		       enum n2s_unit unit)
{
	static const char *const si[] = { "", "k", "M", "G", "T", "P", "E" };
	static const char *const iec[] = { "",	 "Ki", "Mi", "Gi",
					   "Ti", "Pi", "Ei" };
	static const char *const unit_str[] = {
		[N2S_NONE] = "",
		[N2S_BYTE] = "B",
		[N2S_BYTEPERSEC] = "B/s",
	};
	const char *const *prefix = pow2 ? iec : si;
	const unsigned thousand = pow2 ? 1024 : 1000;
	unsigned post = 0, modulo = UINT_MAX;
	bool carry = false;
	char frac[32];
	int room;

	while (post < 7) {
		if ((int)nr_digits(num) <= maxlen)
			break;
		modulo = (unsigned)(num % thousand);
		num /= thousand;
		carry = modulo >= thousand / 2;
		post++;
	}
	if (post >= 7)
		post = 0;

	room = maxlen - (int)nr_digits(num);
	if (modulo == UINT_MAX || room <= 1) {
		if (modulo != UINT_MAX && carry)
			num++;
		snprintf(buf, N2S_LEN, "%" PRIu64 "%s%s", num, prefix[post],
			 unit_str[unit]);
		return buf;
	}

	snprintf(frac, sizeof(frac), "%.*f", room - 1,
		 (double)modulo / (double)thousand);
	/* The fraction rounded up to 1.0: carry it. */
	if (frac[0] == '1')
		num++;
	snprintf(buf, N2S_LEN, "%" PRIu64 ".%s%s%s", num, frac + 2,
		 prefix[post], unit_str[unit]);
	return buf;
}

const char *report_bytes_str(char *buf, uint64_t v)
{
	return n2s(buf, v, SIG_FIGS, true, N2S_BYTE);
}

static const char *const ddir_name[DDIR_NR] = { "read", "write", "trim" };

/* fio's display_lat with nsec_to_msec / nsec_to_usec. */
static void show_lat_line(FILE *f, const char *name, const struct lat_stat *ls)
{
	uint64_t min = ls->min, max = ls->max;
	double mean = lat_stat_mean(ls), dev = lat_stat_stddev(ls);
	const char *base = "(nsec)";
	char minp[N2S_LEN], maxp[N2S_LEN];

	if (min > 2000000 && max > 99999999ull && dev > 1000000.0) {
		min /= 1000000;
		max /= 1000000;
		mean /= 1000000.0;
		dev /= 1000000.0;
		base = "(msec)";
	} else if (min > 2000 && max > 99999 && dev > 1000.0) {
		min /= 1000;
		max /= 1000;
		mean /= 1000.0;
		dev /= 1000.0;
		base = "(usec)";
	}
	fprintf(f, "    %s %s: min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n",
		name, base, n2s(minp, min, 6, false, N2S_NONE),
		n2s(maxp, max, 6, false, N2S_NONE), mean, dev);
}

/* fio's show_clat_percentiles. */
static void show_percentiles(FILE *f, const struct job_stats *js,
			     const uint64_t *hist, uint64_t nr_samples,
			     const char *pre)
{
	double plist[BENCH_MAX_PERCENTILES];
	uint64_t ov[BENCH_MAX_PERCENTILES];
	uint64_t minv = UINT64_MAX, maxv = 0, divisor = 1, top;
	unsigned len, prec, j, scale = 0, i;
	int width = 5, per_line;
	const char *unit = "nsec";

	len = stats_percentile_list(js, plist);
	if (!len)
		return;
	prec = stats_percentile_precision(plist, len);
	stats_percentiles(hist, nr_samples, plist, len, ov);
	for (j = 0; j < len; j++) {
		if (ov[j] < minv)
			minv = ov[j];
		if (ov[j] > maxv)
			maxv = ov[j];
	}

	/* nsec by default; scale down when the range calls for it. */
	if (minv > 2000000 && maxv > 99999999ull) {
		scale = 2;
		divisor = 1000000;
		unit = "msec";
	} else if (minv > 2000 && maxv > 99999) {
		scale = 1;
		divisor = 1000;
		unit = "usec";
	}
	fprintf(f, "    %s percentiles (%s):\n     |", pre, unit);

	top = maxv / divisor;
	if (top && (int)(log10((double)top) + 1) > width)
		width = (int)(log10((double)top) + 1);
	per_line = (80 - 7) / ((int)prec + 10 + width);
	if (per_line < 1)
		per_line = 1;

	for (j = 0; j < len; j++) {
		bool last = j == len - 1;

		if (j && (j % (unsigned)per_line) == 0)
			fputs("     |", f);
		/* Each step rounds up, as fio. */
		for (i = 0; i < scale; i++)
			ov[j] = (ov[j] + 999) / 1000;
		fprintf(f, " %*.*fth=[%*" PRIu64 "]%c", (int)prec + 3,
			(int)prec, plist[j], width, ov[j], last ? '\n' : ',');
		if (last)
			break;
		if ((j % (unsigned)per_line) == (unsigned)per_line - 1)
			fputc('\n', f);
	}
}

static void show_bw_iops(FILE *f, const struct ddir_stats *ds,
			 const struct report_group *g, enum bench_ddir d)
{
	if (ds->bw.nr) {
		double min = (double)ds->bw.min, max = (double)ds->bw.max;
		double mean = lat_stat_mean(&ds->bw);
		double dev = lat_stat_stddev(&ds->bw);
		double pct = stats_bw_agg_pct(g, d, mean);
		/* fio: the samples are KiB/s under either kb_base, only
		 * the label follows it; above kb_base^2 they are divided by
		 * kb_base and labelled MiB */
		double kb = g->kb_base == 1000 ? 1000.0 : 1024.0;
		const char *bw_str = g->kb_base == 1000 ? "kB" : "KiB";

		if (mean > kb * kb) {
			min /= kb;
			max /= kb;
			mean /= kb;
			dev /= kb;
			bw_str = "MiB";
		}
		fprintf(f,
			"   bw (%5s/s): min=%5llu, max=%5llu, per=%3.2f%%, "
			"avg=%5.02f, stdev=%5.02f, samples=%" PRIu64 "\n",
			bw_str, (unsigned long long)min,
			(unsigned long long)max, pct, mean, dev, ds->bw.nr);
	}
	if (ds->iops.nr)
		fprintf(f,
			"   iops        : min=%5" PRIu64 ", max=%5" PRIu64
			", avg=%5.02f, stdev=%5.02f, samples=%" PRIu64 "\n",
			ds->iops.min, ds->iops.max, lat_stat_mean(&ds->iops),
			lat_stat_stddev(&ds->iops), ds->iops.nr);
}

/* fio's show_ddir_status for one read/write/trim direction, or ds as
 * "mixed" (unified_rw_reporting; d is then DDIR_READ). */
static void show_ddir(FILE *f, const struct job_stats *js,
		      const struct ddir_stats *ds, const struct report_group *g,
		      enum bench_ddir d, const char *name)
{
	/* fio's i2p: --kb_base=1000 puts the SI units first */
	bool pow2 = g->kb_base != 1000;
	uint64_t rt = stats_runtime_ms(ds), bw, iops;
	char io_p[N2S_LEN], bw_p[N2S_LEN], bw_alt[N2S_LEN], iops_p[N2S_LEN];

	if (!rt)
		return;
	bw = ds->io_bytes * 1000 / rt;
	/* fio divides the issued count (total_io_u), as in "issued rwts" */
	iops = stats_issued(ds) * 1000 / rt;
	fprintf(f, "  %s: IOPS=%s, BW=%s (%s)(%s/%" PRIu64 "msec)%s\n", name,
		n2s(iops_p, iops, SIG_FIGS, false, N2S_NONE),
		n2s(bw_p, bw, SIG_FIGS, pow2, N2S_BYTEPERSEC),
		n2s(bw_alt, bw, SIG_FIGS, !pow2, N2S_BYTEPERSEC),
		n2s(io_p, ds->io_bytes, SIG_FIGS, pow2, N2S_BYTE), rt,
		/* fio's zbd_write_status, printed for every write line */
		d == DDIR_WRITE ? "; 0 zone resets" : "");

	if (ds->slat.nr)
		show_lat_line(f, "slat", &ds->slat);
	if (ds->clat.nr)
		show_lat_line(f, "clat", &ds->clat);
	if (ds->lat.nr)
		show_lat_line(f, " lat", &ds->lat);

	if (js->want_slat_hist && ds->slat.nr)
		show_percentiles(f, js, ds->slat_hist, ds->slat.nr, "slat");
	if (js->want_clat_hist && ds->clat.nr)
		show_percentiles(f, js, ds->clat_hist, ds->clat.nr, "clat");
	if (js->want_lat_hist && ds->lat.nr)
		show_percentiles(f, js, ds->lat_hist, ds->lat.nr, "lat");

	show_bw_iops(f, ds, g, d);
}

/* fio's show_lat: the nonzero buckets, five to a line. */
static void show_lat_dist(FILE *f, const double *pct, unsigned nr,
			  const char *const *ranges, const char *msg)
{
	unsigned i, line = 0;
	bool new_line = true, shown = false;

	for (i = 0; i < nr; i++) {
		if (pct[i] <= 0.0)
			continue;
		shown = true;
		if (new_line) {
			if (line)
				fputc('\n', f);
			fprintf(f, "  lat (%s)   : ", msg);
			new_line = false;
			line = 0;
		}
		if (line)
			fputs(", ", f);
		fprintf(f, "%s%3.2f%%", ranges[i], pct[i]);
		if (++line == 5)
			new_line = true;
	}
	if (shown)
		fputc('\n', f);
}

static void show_latencies(FILE *f, const struct job_stats *js, uint64_t total)
{
	static const char *const ranges[] = {
		"2=",	"4=",	"10=",	"20=",	 "50=",	  "100=",
		"250=", "500=", "750=", "1000=", "2000=", ">=2000="
	};
	double pct[LAT_M_NR];

	stats_calc_lat(js->lat_n, LAT_N_NR, total, pct);
	show_lat_dist(f, pct, LAT_N_NR, ranges, "nsec");
	stats_calc_lat(js->lat_u, LAT_U_NR, total, pct);
	show_lat_dist(f, pct, LAT_U_NR, ranges, "usec");
	stats_calc_lat(js->lat_m, LAT_M_NR, total, pct);
	show_lat_dist(f, pct, LAT_M_NR, ranges, "msec");
}

static void show_dist(FILE *f, const char *label, const char *const *keys,
		      const uint64_t *map, uint64_t total)
{
	double pct[DEPTH_MAP_NR];
	unsigned i;

	stats_calc_dist(map, total, pct);
	fputs(label, f);
	for (i = 0; i < DEPTH_MAP_NR; i++)
		fprintf(f, "%s%s=%3.1f%%", i ? ", " : "", keys[i], pct[i]);
	fputc('\n', f);
}

static void show_mqblk(FILE *f, const struct job_stats *js)
{
	const struct mqblk_job_counters *mq = &js->mq;
	double remote = stats_remote_pct(mq);

	fprintf(f,
		"  mqblk        : completions local=%" PRIu64 " remote=%" PRIu64
		" batched=%" PRIu64 " polled=%" PRIu64 " irq=%" PRIu64
		" (remote=%.1f%%), wakeups=%" PRIu64 ", "
		"requeues=%" PRIu64 ", tag_waits=%" PRIu64 ", timeouts=%" PRIu64
		", errors=%" PRIu64 ", verify_errors=%" PRIu64 "\n",
		mq->comp_local, mq->comp_remote, mq->comp_batched,
		mq->comp_polled, mq->comp_irq, remote, mq->wakeups,
		mq->requeues, mq->tag_waits, mq->timeouts, mq->errors,
		js->verify_errors);
	fprintf(f,
		"  mqblk sched  : merges=%" PRIu64 ", dispatched=%" PRIu64
		", runs=%" PRIu64 ", doorbells=%" PRIu64 ", expired=%" PRIu64
		", dispatch_lock=%" PRIu64 "/%" PRIu64
		" contended, budget_hits=%" PRIu64 ", tag_wait_usec=%" PRIu64
		"\n",
		mq->merges, mq->dispatched, mq->dispatch_runs, mq->doorbells,
		mq->sched_expired, mq->dispatch_locks,
		mq->dispatch_lock_contended, mq->poll_budget_hits,
		mq->tag_wait_ns / 1000);
}

/* A multipath device's paths, one line: policy, then each path's state,
 * ANA state and counters over the job's run. */
static void show_paths(FILE *f, const struct job_stats *js)
{
	unsigned i;

	if (!js->nr_paths)
		return;
	fprintf(f, "  paths        : iopolicy=%s", js->iopolicy);
	for (i = 0; i < js->nr_paths; i++) {
		const struct mqblk_path_stats *p = &js->paths[i];

		fprintf(f,
			"%s %s (%s, %s%s%s) sent=%" PRIu64 " completed=%" PRIu64
			" failovers=%" PRIu64 " reconnects=%" PRIu64
			" stalls=%" PRIu64,
			i ? ";" : "", p->name, p->state, p->ana_state,
			p->current ? ", current" : "",
			p->discovered ? ", discovered" : "", p->sent,
			p->completed, p->failovers, p->reconnects, p->stalls);
	}
	fputc('\n', f);
}

/* An nvme-rdma device's verbs counters over the job's run, and per
 * command (a response received is a command done). */
static void show_rdma(FILE *f, const struct job_stats *js)
{
	const struct nvme_rdma_queue_stats *r = &js->rdma;
	double cmds = r->recv_done ? (double)r->recv_done : 1.0;

	if (!js->has_rdma)
		return;
	fprintf(f,
		"  nvme-rdma    : sends=%" PRIu64 " signalled=%" PRIu64
		" recvs=%" PRIu64 "/%" PRIu64 " cqes=%" PRIu64
		" events=%" PRIu64 " regs=%" PRIu64 " incapsule=%" PRIu64
		" keyed=%" PRIu64 " bounced=%" PRIu64
		" rsp_before_send=%" PRIu64 " remote_inv=%" PRIu64
		" local_inv=%" PRIu64
		"; per command: cqes=%.2f events=%.2f signalled=%.2f\n",
		r->sends, r->signalled, r->recv_done, r->recv_posted, r->cqes,
		r->events, r->regs, r->incapsule, r->keyed, r->bounced,
		r->rsp_before_send, r->remote_inv, r->local_inv,
		(double)r->cqes / cmds, (double)r->events / cmds,
		(double)r->signalled / cmds);
}

static void show_header(FILE *f, const struct job_stats *js)
{
	const struct bench_job *job = js->job;
	char date[64] = "";
	time_t now = time(NULL);

	/* ctime's own "\n" ends the line, as in fio. */
	if (!ctime_r(&now, date))
		snprintf(date, sizeof(date), "\n");
	if (!js->error)
		fprintf(f, "%s: (groupid=%u, jobs=%u): err=%2d: pid=%d: %s",
			js->name, js->groupid, js->nr_jobs, 0, js->pid, date);
	else
		fprintf(f,
			"%s: (groupid=%u, jobs=%u): err=%2d (error=%s): "
			"pid=%d: %s",
			js->name, js->groupid, js->nr_jobs, js->error,
			strerror(abs(js->error)), js->pid, date);
	if (job && job->description && job->description[0])
		fprintf(f, "  Description  : [%s]\n", job->description);
}

/* fio's show_thread_status_normal, plus mqblk's line. */
static void show_entry(FILE *f, const struct job_stats *js,
		       const struct report_group *g)
{
	static const char *const depth_keys[] = { "1",	"2",  "4",   "8",
						  "16", "32", ">=64" };
	static const char *const batch_keys[] = { "0",	"4",  "8",   "16",
						  "32", "64", ">=64" };
	uint64_t bytes = 0, issued = 0, rt_ms = js->runtime_ns / 1000000;
	double usr = 0, sys = 0;
	unsigned d;

	for (d = 0; d < DDIR_NR; d++) {
		bytes += js->dd[d].io_bytes;
		issued += stats_issued(&js->dd[d]);
	}
	if (!bytes && !issued)
		return;

	show_header(f, js);
	for (d = 0; d < DDIR_NR; d++)
		if (js->dd[d].io_bytes)
			show_ddir(f, js, &js->dd[d], g, (enum bench_ddir)d,
				  js->job && js->job->unified_rw_reporting ==
							  BENCH_UNIFIED_MIXED ?
					  "mixed" :
					  ddir_name[d]);
	if (js->mixed) {
		/* unified_rw_reporting=both: the fold after the directions,
		 * its bandwidth a share of the group's total */
		struct report_group all = *g;

		all.agg_bw[0] = g->agg_bw[0] + g->agg_bw[1] + g->agg_bw[2];
		show_ddir(f, js, js->mixed, &all, DDIR_READ, "mixed");
	}
	show_latencies(f, js, issued);
	if (js->sync_lat.nr) {
		/* fio's DDIR_SYNC block */
		fputs("  fsync/fdatasync/sync_file_range:\n", f);
		show_lat_line(f, "sync", &js->sync_lat);
	}

	/* fio keeps cpu time in whole ms. */
	if (rt_ms) {
		usr = (double)(js->usr_us / 1000) * 100 / (double)rt_ms;
		sys = (double)(js->sys_us / 1000) * 100 / (double)rt_ms;
	}
	fprintf(f,
		"  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%" PRIu64
		", majf=%" PRIu64 ", minf=%" PRIu64 "\n",
		usr, sys, js->ctx, js->majf, js->minf);
	show_dist(f, "  IO depths    : ", depth_keys, js->depth_map, issued);
	show_dist(f, "     submit    : ", batch_keys, js->submit_map,
		  js->total_submit);
	show_dist(f, "     complete  : ", batch_keys, js->complete_map,
		  js->total_complete);
	fprintf(f,
		"     issued rwts: total=%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64 " short=%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",0 dropped=%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",0\n",
		stats_issued(&js->dd[DDIR_READ]),
		stats_issued(&js->dd[DDIR_WRITE]),
		stats_issued(&js->dd[DDIR_TRIM]), js->sync_issued,
		js->dd[DDIR_READ].short_ios, js->dd[DDIR_WRITE].short_ios,
		js->dd[DDIR_TRIM].short_ios, js->dd[DDIR_READ].drop_ios,
		js->dd[DDIR_WRITE].drop_ios, js->dd[DDIR_TRIM].drop_ios);
	if (js->job && js->job->continue_on_error)
		fprintf(f,
			"     errors    : total=%" PRIu64
			", first_error=%d/<%s>\n",
			js->total_err, js->first_error,
			strerror(js->first_error));
	/* No latency_target support: fio's values for that case. */
	fprintf(f,
		"     latency   : target=0, window=0, percentile=100.00%%, "
		"depth=%u\n",
		js->job ? js->job->iodepth : 1);
	show_mqblk(f, js);
	show_paths(f, js);
	show_rdma(f, js);
}

/* fio's show_group_stats (and show_mixed_group_stats: rows = 4 is the
 * directions folded into one MIXED row). */
static void show_group_rows(FILE *f, const struct report_group *g,
			    unsigned rows)
{
	static const char *const label[DDIR_NR] = { "   READ", "  WRITE",
						    "   TRIM" };
	char io[N2S_LEN], io_alt[N2S_LEN], agg[N2S_LEN], agg_alt[N2S_LEN];
	char min[N2S_LEN], min_alt[N2S_LEN], max[N2S_LEN], max_alt[N2S_LEN];
	unsigned d;

	for (d = 0; d < DDIR_NR && d < rows; d++) {
		bool pow2 = g->kb_base != 1000; /* as in show_ddir */

		if (!g->max_run_ms[d])
			continue;
		fprintf(f,
			"%s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), "
			"run=%" PRIu64 "-%" PRIu64 "msec\n",
			rows == 1 || g->unified == BENCH_UNIFIED_MIXED ?
				"  MIXED" :
				label[d],
			n2s(agg, g->agg_bw[d], SIG_FIGS, pow2, N2S_BYTEPERSEC),
			n2s(agg_alt, g->agg_bw[d], SIG_FIGS, !pow2,
			    N2S_BYTEPERSEC),
			n2s(min, g->min_bw[d], SIG_FIGS, pow2, N2S_BYTEPERSEC),
			n2s(max, g->max_bw[d], SIG_FIGS, pow2, N2S_BYTEPERSEC),
			n2s(min_alt, g->min_bw[d], SIG_FIGS, !pow2,
			    N2S_BYTEPERSEC),
			n2s(max_alt, g->max_bw[d], SIG_FIGS, !pow2,
			    N2S_BYTEPERSEC),
			n2s(io, g->io_bytes[d], SIG_FIGS, pow2, N2S_BYTE),
			n2s(io_alt, g->io_bytes[d], SIG_FIGS, !pow2, N2S_BYTE),
			g->min_run_ms[d], g->max_run_ms[d]);
	}
}

static void show_group(FILE *f, const struct report_group *g, unsigned gid)
{
	struct report_group m;
	unsigned d;

	fprintf(f, "\nRun status group %u (all jobs):\n", gid);
	show_group_rows(f, g, DDIR_NR);
	if (g->unified != BENCH_UNIFIED_BOTH)
		return;
	/* the directions as one: their bytes added, the widest runs and
	 * bandwidths, the total over the longest run */
	memset(&m, 0, sizeof(m));
	m.kb_base = g->kb_base;
	m.min_run_ms[0] = UINT64_MAX;
	m.min_bw[0] = UINT64_MAX;
	for (d = 0; d < DDIR_NR; d++) {
		if (!g->max_run_ms[d])
			continue;
		if (g->min_run_ms[d] < m.min_run_ms[0])
			m.min_run_ms[0] = g->min_run_ms[d];
		if (g->max_run_ms[d] > m.max_run_ms[0])
			m.max_run_ms[0] = g->max_run_ms[d];
		if (g->min_bw[d] < m.min_bw[0])
			m.min_bw[0] = g->min_bw[d];
		if (g->max_bw[d] > m.max_bw[0])
			m.max_bw[0] = g->max_bw[d];
		m.io_bytes[0] += g->io_bytes[d];
	}
	if (m.max_run_ms[0])
		m.agg_bw[0] = m.io_bytes[0] * 1000 / m.max_run_ms[0];
	show_group_rows(f, &m, 1);
}

void report_normal(FILE *f, const struct report *r)
{
	struct report_view v;
	unsigned i;

	if (report_view_build(&v, r)) {
		fprintf(stderr, "mqblk: out of memory writing the report\n");
		return;
	}
	/* fio starts its report with a blank line. */
	fputc('\n', f);
	for (i = 0; i < v.nr_entries; i++)
		show_entry(f, v.entries[i], &v.groups[v.entries[i]->groupid]);
	for (i = 0; i < v.nr_groups; i++)
		show_group(f, &v.groups[i], i);
	report_view_free(&v);
}
