// SPDX-License-Identifier: MIT
/*
 * fio's terse (--minimal, --output-format=terse) report: one line of
 * ';'-separated fields per job, in fio's field order for terse versions
 * 2 to 5 (stat.c's show_thread_status_terse_all).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"

/* slat, clat or lat in usec, as fio's terse prints them */
static void lat_terse(FILE *f, const struct lat_stat *ls)
{
	if (!ls->nr) {
		fprintf(f, ";%llu;%llu;%f;%f", 0ULL, 0ULL, 0.0, 0.0);
		return;
	}
	fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%f;%f", ls->min / 1000,
		ls->max / 1000, lat_stat_mean(ls) / 1000,
		lat_stat_stddev(ls) / 1000);
}

static void ddir_terse(FILE *f, const struct job_stats *js,
		       const struct ddir_stats *ds,
		       const struct report_group *g, enum bench_ddir d,
		       unsigned ver)
{
	uint64_t rt = stats_runtime_ms(ds), bw = 0, iops = 0;
	double plist[BENCH_MAX_PERCENTILES];
	uint64_t ov[BENCH_MAX_PERCENTILES];
	const struct lat_stat *pls = NULL;
	const uint64_t *hist = NULL;
	unsigned i, len = 0;

	if (rt) {
		bw = ds->io_bytes * 1000 / rt / 1024;
		iops = 1000 * stats_issued(ds) / rt;
	}
	fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64,
		ds->io_bytes >> 10, bw, iops, rt);
	lat_terse(f, &ds->slat);
	lat_terse(f, &ds->clat);
	/* the percentiles of lat with lat_percentiles, else of clat */
	if (js->want_lat_hist) {
		pls = &ds->lat;
		hist = ds->lat_hist;
	} else if (js->want_clat_hist) {
		pls = &ds->clat;
		hist = ds->clat_hist;
	}
	/* fio lists them with percentiles on, samples or not */
	if (pls) {
		len = stats_percentile_list(js, plist);
		if (pls->nr)
			stats_percentiles(hist, pls->nr, plist, len, ov);
		else
			memset(ov, 0, sizeof(ov));
	}
	for (i = 0; i < BENCH_MAX_PERCENTILES; i++) {
		if (i >= len)
			fputs(";0%=0", f);
		else
			fprintf(f, ";%f%%=%" PRIu64, plist[i], ov[i] / 1000);
	}
	lat_terse(f, &ds->lat);
	if (ds->bw.nr)
		fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%f%%;%f;%f", ds->bw.min,
			ds->bw.max,
			stats_bw_agg_pct(g, d, lat_stat_mean(&ds->bw)),
			lat_stat_mean(&ds->bw), lat_stat_stddev(&ds->bw));
	else
		fprintf(f, ";%llu;%llu;%f%%;%f;%f", 0ULL, 0ULL, 0.0, 0.0, 0.0);
	if (ver != 5)
		return;
	fprintf(f, ";%" PRIu64, ds->bw.nr);
	if (ds->iops.nr)
		fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%f;%f;%" PRIu64,
			ds->iops.min, ds->iops.max, lat_stat_mean(&ds->iops),
			lat_stat_stddev(&ds->iops), ds->iops.nr);
	else
		fprintf(f, ";%llu;%llu;%f;%f;%lu", 0ULL, 0ULL, 0.0, 0.0, 0UL);
}

static void job_terse(FILE *f, const struct job_stats *js,
		      const struct report_group *g, const char *version,
		      unsigned ver)
{
	uint64_t rt_ms = js->runtime_ns / 1000000, issued = 0;
	double pct[LAT_M_NR], usr = 0, sys = 0;
	const char *desc =
		js->job && js->job->description ? js->job->description : "";
	unsigned i;

	for (i = 0; i < DDIR_NR; i++)
		issued += stats_issued(&js->dd[i]);
	if (ver == 2)
		fprintf(f, "2;%s;%u;%d", js->name, js->groupid, js->error);
	else
		fprintf(f, "%u;%s;%s;%u;%d", ver, version, js->name,
			js->groupid, js->error);
	/* unified_rw_reporting=mixed: the fold in read's fields alone */
	ddir_terse(f, js, &js->dd[DDIR_READ], g, DDIR_READ, ver);
	if (!js->job || js->job->unified_rw_reporting != BENCH_UNIFIED_MIXED) {
		ddir_terse(f, js, &js->dd[DDIR_WRITE], g, DDIR_WRITE, ver);
		/* version 3 has no trim fields */
		if (ver != 3)
			ddir_terse(f, js, &js->dd[DDIR_TRIM], g, DDIR_TRIM,
				   ver);
	}
	if (js->mixed) {
		struct report_group all = *g;

		all.agg_bw[0] = g->agg_bw[0] + g->agg_bw[1] + g->agg_bw[2];
		ddir_terse(f, js, js->mixed, &all, DDIR_READ, ver);
	}
	/* fio keeps cpu time in whole ms */
	if (rt_ms) {
		usr = (double)(js->usr_us / 1000) * 100 / (double)rt_ms;
		sys = (double)(js->sys_us / 1000) * 100 / (double)rt_ms;
	}
	fprintf(f, ";%f%%;%f%%;%" PRIu64 ";%" PRIu64 ";%" PRIu64, usr, sys,
		js->ctx, js->majf, js->minf);
	stats_calc_dist(js->depth_map, issued, pct);
	for (i = 0; i < DEPTH_MAP_NR; i++)
		fprintf(f, ";%3.1f%%", pct[i]);
	/* fio's stat_calc_lat_nu: terse has no nsec fields, so the nsec
	 * buckets count in the first usec one */
	stats_calc_lat(js->lat_u, LAT_U_NR, issued, pct);
	if (issued) {
		uint64_t nsec = 0;

		for (i = 0; i < LAT_N_NR; i++)
			nsec += js->lat_n[i];
		pct[0] += 100.0 * (double)nsec / (double)issued;
	}
	for (i = 0; i < LAT_U_NR; i++)
		fprintf(f, ";%3.2f%%", pct[i]);
	stats_calc_lat(js->lat_m, LAT_M_NR, issued, pct);
	for (i = 0; i < LAT_M_NR; i++)
		fprintf(f, ";%3.2f%%", pct[i]);
	/* no disk util fields: fio prints none when it saw no disk */
	if (js->job && js->job->continue_on_error)
		fprintf(f, ";%llu;%d", (unsigned long long)js->total_err,
			js->first_error);
	if (desc[0]) {
		if (ver == 2)
			fputc('\n', f);
		fprintf(f, ";%s", desc);
	}
	fputc('\n', f);
}

void report_terse(FILE *f, const struct report *r, unsigned version)
{
	struct report_view v;
	unsigned i;

	if (report_view_build(&v, r)) {
		fprintf(stderr, "mqblk: out of memory writing the report\n");
		return;
	}
	for (i = 0; i < v.nr_entries; i++)
		job_terse(f, v.entries[i], &v.groups[v.entries[i]->groupid],
			  r->version ? r->version : "mqblk", version);
	report_view_free(&v);
}
