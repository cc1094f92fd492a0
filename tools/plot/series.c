// SPDX-License-Identifier: MIT
/*
 * mqblk plot: every chart's series, gathered from every run: the helpers
 * they are built with, and those that come from the reports themselves
 * (--status-interval's, json+'s clat bins).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../compare.h"
#include "../plot.h"
#include "plot_int.h"
#include "target/config/json.h"

const char *const plot_chart_id[CH_NR] = {
	"plot-iops", "plot-bw", "plot-lat", "plot-clat-hist", "plot-compare",
};

const char *const plot_ddir_name[3] = { "read", "write", "trim" };

/* ---- small helpers ---- */

/* The one-line reason; a long path in it is cut to fit. */
void plot_set_err(struct plot *pl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pl->err, sizeof(pl->err), fmt, ap);
	va_end(ap);
}

int plot_oom(struct plot *pl)
{
	plot_set_err(pl, "out of memory");
	return -1;
}

/* A label gnuplot and HTML both take as it is: printable ASCII, none of
 * the characters either would read as markup or quoting. */
void plot_clean_label(char *s)
{
	for (; *s; s++)
		if (!isprint((unsigned char)*s) || strchr("'\"\\<>&`", *s))
			*s = '?';
}

struct series *plot_new_series(struct plot *pl, enum chart ch, unsigned run_idx,
			       const char *fmt, ...)
{
	struct chart_data *cd = &pl->ch[ch];
	struct series *s;
	va_list ap;

	if (cd->nr == cd->cap) {
		size_t cap = cd->cap ? cd->cap * 2 : 8;

		s = realloc(cd->s, cap * sizeof(*s));
		if (!s)
			return NULL;
		cd->s = s;
		cd->cap = cap;
	}
	s = &cd->s[cd->nr++];
	memset(s, 0, sizeof(*s));
	s->run_idx = run_idx;
	va_start(ap, fmt);
	vsnprintf(s->label, sizeof(s->label), fmt, ap);
	va_end(ap);
	plot_clean_label(s->label);
	return s;
}

int plot_add_pt(struct series *s, double x, double y)
{
	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct pt *p = realloc(s->p, cap * sizeof(*p));

		if (!p)
			return -1;
		s->p = p;
		s->cap = cap;
	}
	s->p[s->nr++] = (struct pt){ x, y };
	return 0;
}

int plot_pt_cmp(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;

	return x->x < y->x ? -1 : x->x > y->x;
}

/* ---- the same from --status-interval reports ---- */

/* Job job_idx of a status report, if it is the same job as in the final
 * report (reports list the jobs in one order). */
static const struct json_object *status_job(const struct json_object *doc,
					    size_t job_idx, const char *name)
{
	const struct json_object *j = cj_at(cj_get(doc, "jobs"), job_idx);
	const char *n = cj_str(cj_get(j, "jobname"), NULL);

	return n && !strcmp(n, name) ? j : NULL;
}

static double num_or(const struct json_object *v, double dflt)
{
	double x;

	return cj_num(v, &x) ? dflt : x;
}

/*
 * From a run's reports over time (--status-interval): IOPS and MiB/s
 * between successive reports, and the cumulative p50/p99/p99.9 each
 * reports. Only the charts in want are filled.
 */
static int status_series(struct plot *pl, const struct run *run,
			 unsigned run_idx, size_t job_idx, const char *name,
			 const char *who, const bool want[CH_NR])
{
	static const char *const pkey[] = { "50.000000", "99.000000",
					    "99.900000" };
	static const char *const pname[] = { "p50", "p99", "p99.9" };
	const struct json_object *fj =
		cj_at(cj_get(plot_final_doc(run), "jobs"), job_idx);
	struct series *s;
	unsigned d, q;
	size_t k;

	for (d = 0; d < 3; d++) {
		if (num_or(cj_get(cj_get(fj, plot_ddir_name[d]), "total_ios"),
			   0) <= 0)
			continue;
		if (want[CH_IOPS] || want[CH_BW]) {
			struct series *si = NULL, *sb = NULL;
			double pt = 0, pios = 0, pbytes = 0;

			if (want[CH_IOPS] &&
			    !(si = plot_new_series(pl, CH_IOPS, run_idx,
						   "%s %s", who,
						   plot_ddir_name[d])))
				return plot_oom(pl);
			if (want[CH_BW] &&
			    !(sb = plot_new_series(pl, CH_BW, run_idx, "%s %s",
						   who, plot_ddir_name[d])))
				return plot_oom(pl);
			for (k = 0; k < run->nr_docs; k++) {
				const struct json_object *j, *dd;
				double t, ios, bytes;

				j = status_job(run->docs[k], job_idx, name);
				dd = cj_get(j, plot_ddir_name[d]);
				t = num_or(cj_get(j, "job_runtime"), -1) / 1000;
				ios = num_or(cj_get(dd, "total_ios"), -1);
				bytes = num_or(cj_get(dd, "io_bytes"), -1);
				if (!j || t <= pt || ios < pios ||
				    bytes < pbytes)
					continue;
				if ((si &&
				     plot_add_pt(si, t,
						 (ios - pios) / (t - pt))) ||
				    (sb &&
				     plot_add_pt(sb, t,
						 (bytes - pbytes) / (t - pt) /
							 (1024 * 1024))))
					return plot_oom(pl);
				pt = t;
				pios = ios;
				pbytes = bytes;
			}
		}
		if (!want[CH_LAT])
			continue;
		for (q = 0; q < 3; q++) {
			s = plot_new_series(pl, CH_LAT, run_idx,
					    "%s %s clat %s (cumulative)", who,
					    plot_ddir_name[d], pname[q]);
			if (!s)
				return plot_oom(pl);
			for (k = 0; k < run->nr_docs; k++) {
				const struct json_object *j, *pc;
				double t, v;

				j = status_job(run->docs[k], job_idx, name);
				pc = cj_get(cj_get(cj_get(j, plot_ddir_name[d]),
						   "clat_ns"),
					    "percentile");
				t = num_or(cj_get(j, "job_runtime"), -1) / 1000;
				v = num_or(cj_get(pc, pkey[q]), -1);
				if (!j || t < 0 || v < 0)
					continue;
				if (plot_add_pt(s, t, v / 1000))
					return plot_oom(pl);
			}
		}
	}
	return 0;
}

/* ---- the clat distribution (json+ bins) ---- */

static int hist_series(struct plot *pl, const struct run *run, unsigned run_idx,
		       size_t job_idx, const char *who)
{
	const struct json_object *job =
		cj_at(cj_get(plot_final_doc(run), "jobs"), job_idx);
	struct json_object *bins;
	struct series *s;
	unsigned d;
	size_t i;

	for (d = 0; d < 3; d++) {
		double total = 0;

		bins = cj_get(cj_get(cj_get(job, plot_ddir_name[d]), "clat_ns"),
			      "bins");
		if (cj_type(bins) != CJ_OBJECT || !cj_count(bins))
			continue;
		s = plot_new_series(pl, CH_HIST, run_idx, "%s %s", who,
				    plot_ddir_name[d]);
		if (!s)
			return plot_oom(pl);
		json_object_object_foreach(bins, key, val)
		{
			char *end;
			double ns, n;

			errno = 0;
			ns = strtod(key, &end);
			if (errno || *end || end == key || !(ns >= 0) ||
			    cj_num(val, &n) || !(n >= 0)) {
				plot_set_err(
					pl,
					"%s: jobs[%zu].%s.clat_ns.bins: "
					"\"%.40s\" is not a latency with a "
					"count",
					run->path, job_idx, plot_ddir_name[d],
					key);
				return -1;
			}
			if (plot_add_pt(s, ns / 1000, n))
				return plot_oom(pl);
			total += n;
		}
		qsort(s->p, s->nr, sizeof(*s->p), plot_pt_cmp);
		for (i = 0; i < s->nr; i++)
			s->p[i].y = total > 0 ? s->p[i].y * 100 / total : 0;
	}
	return 0;
}

int plot_gather_run(struct plot *pl, unsigned run_idx, bool src_log[CH_NR],
		    bool src_status[CH_NR])
{
	const struct run *run = &pl->runs[run_idx];
	const struct json_object *jobs = cj_get(plot_final_doc(run), "jobs");
	size_t i;

	for (i = 0; i < cj_count(jobs); i++) {
		const struct json_object *job = cj_at(jobs, i);
		const char *name = cj_str(cj_get(job, "jobname"), NULL);
		bool got[CH_NR] = { false }, want[CH_NR] = { false };
		bool dup[CH_NR] = { false };
		char who[LABEL_MAX];
		int c;

		/* a long name is cut: it is a label */
		if (snprintf(who, sizeof(who), "%s%s%s",
			     pl->nr_runs > 1 ? run->label : "",
			     pl->nr_runs > 1 ? ": " : "", name) < 0)
			return plot_oom(pl);
		if (plot_log_type_series(pl, run, run_idx, i, who, got, dup))
			return -1;
		for (c = CH_IOPS; c <= CH_LAT; c++) {
			want[c] = !got[c] && !dup[c] && run->nr_docs > 1;
			src_log[c] |= got[c];
			src_status[c] |= want[c];
		}
		if ((want[CH_IOPS] || want[CH_BW] || want[CH_LAT]) &&
		    status_series(pl, run, run_idx, i, name, who, want))
			return -1;
		if (hist_series(pl, run, run_idx, i, who))
			return -1;
	}
	return 0;
}
