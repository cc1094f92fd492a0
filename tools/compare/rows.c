// SPDX-License-Identifier: MIT
/*
 * mqblk compare: the comparison itself, row by row: jobs matched across
 * runs and sides, each metric's means, change and significance.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compare.h"
#include "cmp_int.h"
#include "target/config/json.h"

static const char *const dir_key[CMP_NR_DIRS] = { "read", "write", "trim" };

static const char *const metric_label[CMP_NR_METRICS] = {
	"iops",		 "bw (MiB/s)",	     "clat mean (us)",
	"clat p99 (us)", "clat p99.99 (us)",
};

static const struct cmp_job *find_job(const struct cmp_run *run,
				      const struct cmp_job *key)
{
	size_t lo = 0, hi = run->nr_jobs, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = cmp_job_key_cmp(run->by_key[mid], key);
		if (!c)
			return run->by_key[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* "\"name\" (group G)", or "\"name\" #N (group G)" for the Nth entry of
 * the same name and group (N from 2). */
static void job_desc(char *out, size_t outlen, const struct cmp_job *job)
{
	char q[128];

	cj_quote(q, sizeof(q), job->name, strlen(job->name));
	if (job->ordinal)
		snprintf(out, outlen, "%s #%u (group %" PRId64 ")", q,
			 job->ordinal + 1, job->groupid);
	else
		snprintf(out, outlen, "%s (group %" PRId64 ")", q,
			 job->groupid);
}

/* The first job of a that b lacks, or NULL if every one is in b. */
static const struct cmp_job *missing_job(const struct cmp_run *a,
					 const struct cmp_run *b)
{
	size_t i;

	for (i = 0; i < a->nr_jobs; i++)
		if (!find_job(b, &a->jobs[i]))
			return &a->jobs[i];
	return NULL;
}

static int side_agrees(const char *side, const struct cmp_run *runs, size_t nr,
		       char *err, size_t errlen)
{
	const struct cmp_job *j;
	char desc[256];
	size_t r;

	for (r = 1; r < nr; r++) {
		j = missing_job(&runs[0], &runs[r]);
		if (j) {
			job_desc(desc, sizeof(desc), j);
			snprintf(err, errlen,
				 "%s runs disagree on jobs: %s has job %s, "
				 "%s does not",
				 side, runs[0].path, desc, runs[r].path);
			return -1;
		}
		j = missing_job(&runs[r], &runs[0]);
		if (j) {
			job_desc(desc, sizeof(desc), j);
			snprintf(err, errlen,
				 "%s runs disagree on jobs: %s has job %s, "
				 "%s does not",
				 side, runs[r].path, desc, runs[0].path);
			return -1;
		}
	}
	return 0;
}

/* The values of one metric over a side's runs: latencies only from runs
 * that did I/O in that direction (fio writes zeros otherwise). */
static size_t gather(const struct cmp_run *runs, size_t nr,
		     const struct cmp_job *key, int dir, int metric,
		     double *out)
{
	const struct cmp_dir_vals *dv;
	size_t r, n = 0;

	for (r = 0; r < nr; r++) {
		dv = &find_job(&runs[r], key)->dir[dir];
		if (!dv->have[metric])
			continue;
		if (metric >= CMP_CLAT_MEAN && !dv->io)
			continue;
		out[n++] = dv->val[metric];
	}
	return n;
}

static bool any_io(const struct cmp_run *runs, size_t nr,
		   const struct cmp_job *key, int dir)
{
	size_t r;

	for (r = 0; r < nr; r++)
		if (find_job(&runs[r], key)->dir[dir].io)
			return true;
	return false;
}

/* Printable, at most NAME_SHOW_MAX wide: anything but printable ASCII
 * (and blanks, which would split the column) becomes '?'. */
void cmp_show_name(char *out, size_t outlen, const struct cmp_job *job)
{
	size_t i, n = 0, len = strlen(job->name);
	char suffix[16] = "";

	if (job->ordinal)
		snprintf(suffix, sizeof(suffix), "#%u", job->ordinal + 1);
	for (i = 0; i < len && n + 1 < outlen && n < NAME_SHOW_MAX; i++) {
		unsigned char ch = (unsigned char)job->name[i];

		out[n++] = isgraph(ch) ? (char)ch : '?';
	}
	out[n] = 0;
	if (i < len && n >= 3)
		memcpy(out + n - 3, "...", 3);
	snprintf(out + n, outlen - n, "%s", suffix);
}

double cmp_metric_scale(int metric)
{
	switch (metric) {
	case CMP_BW:
		return 1.0 / (1024 * 1024);
	case CMP_CLAT_MEAN:
	case CMP_CLAT_P99:
	case CMP_CLAT_P9999:
		return 1.0 / 1000;
	default:
		return 1;
	}
}

/* Latencies in us with 3 decimals (a null engine's are tens of ns),
 * the rest with 2. */
void cmp_fmt_val(char *out, size_t outlen, double v, int metric)
{
	if (fabs(v) >= 1e12)
		snprintf(out, outlen, "%.4g", v);
	else if (metric >= CMP_CLAT_MEAN)
		snprintf(out, outlen, "%.3f", v);
	else
		snprintf(out, outlen, "%.2f", v);
}

struct cmp_ctx {
	const struct cmp_run *base, *new_runs;
	size_t nr_base, nr_new;
	double threshold;
	double *a, *b; /* scratch: one value per run */
	unsigned nr_regressions;
};

/* One metric of one job's direction, base against new. */
static void eval_row(struct cmp_ctx *cx, const struct cmp_job *job, int dir,
		     int metric, struct cmp_row *row)
{
	double va, vb;
	bool higher_better, past;

	memset(row, 0, sizeof(*row));
	row->job = job;
	row->dir = dir;
	row->metric = metric;
	row->nr_base = gather(cx->base, cx->nr_base, job, dir, metric, cx->a);
	row->nr_new = gather(cx->new_runs, cx->nr_new, job, dir, metric, cx->b);
	if (row->nr_base)
		cmp_mean_var(cx->a, row->nr_base, &row->base, &va);
	if (row->nr_new)
		cmp_mean_var(cx->b, row->nr_new, &row->new_val, &vb);
	if (!row->nr_base || !row->nr_new)
		return;
	if (row->base != 0) {
		row->pct = (row->new_val - row->base) / fabs(row->base) * 100;
		row->have_pct = isfinite(row->pct);
		if (!row->have_pct)
			row->pct = 0;
	} else if (row->new_val == 0) {
		row->have_pct = true;
	}
	if (row->nr_base >= 2 && row->nr_new >= 2) {
		row->tested = true;
		row->significant = cmp_welch(cx->a, row->nr_base, cx->b,
					     row->nr_new, &row->p);
	} else {
		row->significant = true; /* cannot be judged: the change
					  * counts */
	}
	if (cx->threshold >= 0 && row->have_pct) {
		higher_better = metric == CMP_IOPS || metric == CMP_BW;
		past = higher_better ? row->pct < -cx->threshold :
				       row->pct > cx->threshold;
		if (past && row->significant) {
			row->regression = true;
			cx->nr_regressions++;
		}
	}
}

const char *cmp_dir_name(int dir)
{
	return dir >= 0 && dir < CMP_NR_DIRS ? dir_key[dir] : "?";
}

const char *cmp_metric_label(int metric)
{
	return metric >= 0 && metric < CMP_NR_METRICS ? metric_label[metric] :
							"?";
}

const char *cmp_metric_key(int metric)
{
	static const char *const key[CMP_NR_METRICS] = {
		"iops",	       "bw_bytes",	 "clat_mean_ns",
		"clat_p99_ns", "clat_p99.99_ns",
	};

	return metric >= 0 && metric < CMP_NR_METRICS ? key[metric] : "?";
}

/* The two sides compare: each side's runs agree on their jobs, and the
 * sides have the same jobs. 0, or -1 with a one-line reason. */
int cmp_check(const struct cmp_run *base, size_t nr_base,
	      const struct cmp_run *new_runs, size_t nr_new, char *err,
	      size_t errlen)
{
	const struct cmp_job *j;
	char desc[256];

	if (!nr_base || !nr_new) {
		snprintf(err, errlen, "no %s runs", nr_base ? "new" : "base");
		return -1;
	}
	if (side_agrees("BASE", base, nr_base, err, errlen) ||
	    side_agrees("NEW", new_runs, nr_new, err, errlen))
		return -1;
	j = missing_job(&base[0], &new_runs[0]);
	if (j) {
		job_desc(desc, sizeof(desc), j);
		snprintf(err, errlen,
			 "job %s is in BASE (%s) but not in NEW (%s)", desc,
			 base[0].path, new_runs[0].path);
		return -1;
	}
	j = missing_job(&new_runs[0], &base[0]);
	if (j) {
		job_desc(desc, sizeof(desc), j);
		snprintf(err, errlen,
			 "job %s is in NEW (%s) but not in BASE (%s)", desc,
			 new_runs[0].path, base[0].path);
		return -1;
	}
	return 0;
}

int cmp_rows(const struct cmp_run *base, size_t nr_base,
	     const struct cmp_run *new_runs, size_t nr_new, double threshold,
	     int (*fn)(const struct cmp_row *row, void *arg), void *arg,
	     char *err, size_t errlen)
{
	struct cmp_ctx cx = {
		.base = base,
		.new_runs = new_runs,
		.nr_base = nr_base,
		.nr_new = nr_new,
		.threshold = threshold,
	};
	const struct cmp_job *j;
	struct cmp_row row;
	size_t i;
	int dir, metric, ret = 0;

	if (cmp_check(base, nr_base, new_runs, nr_new, err, errlen))
		return -1;
	cx.a = calloc(nr_base, sizeof(double));
	cx.b = calloc(nr_new, sizeof(double));
	if (!cx.a || !cx.b) {
		snprintf(err, errlen, "out of memory");
		ret = -1;
		goto out_free;
	}
	for (i = 0; i < base[0].nr_jobs && !ret; i++) {
		j = &base[0].jobs[i];
		for (dir = 0; dir < CMP_NR_DIRS && !ret; dir++) {
			if (!any_io(base, nr_base, j, dir) &&
			    !any_io(new_runs, nr_new, j, dir))
				continue;
			for (metric = 0; metric < CMP_NR_METRICS && !ret;
			     metric++) {
				eval_row(&cx, j, dir, metric, &row);
				ret = fn(&row, arg);
			}
		}
	}
	if (ret) {
		snprintf(err, errlen, "out of memory");
		ret = -1;
	} else {
		ret = (int)cx.nr_regressions;
	}
out_free:
	free(cx.a);
	free(cx.b);
	return ret;
}
