// SPDX-License-Identifier: MIT
/*
 * mqblk compare: reads fio 3.x JSON reports (fio's own, or mqblk bench's,
 * json or json+) of a base and a new side and prints, per job and
 * direction, IOPS, bandwidth and completion latency side by side, with
 * the change and whether it is beyond run-to-run noise (Welch's t-test).
 * Calls only libc, libm and the target's strict JSON layer on json-c
 * (src/target/config/json.h; so the fuzzer can link it alone).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "target/config/json.h"

#define CMP_ERRLEN 1024
#define NAME_SHOW_MAX 40 /* a job name's width in the table, at most */

static const char *const dir_key[CMP_NR_DIRS] = { "read", "write", "trim" };

static const char *const metric_label[CMP_NR_METRICS] = {
	"iops",		 "bw (MiB/s)",	     "clat mean (us)",
	"clat p99 (us)", "clat p99.99 (us)",
};

/* ---- reading one report ---- */

/* The offset of the first line whose first non-blank byte is '{' (a
 * UTF-8 byte order mark before it is blank too), or len if none. */
static size_t json_start(const char *buf, size_t len)
{
	size_t p = 0;

	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		p = 3;
	while (p < len) {
		while (p < len &&
		       (buf[p] == ' ' || buf[p] == '\t' || buf[p] == '\r'))
			p++;
		if (p < len && buf[p] == '{')
			return p;
		while (p < len && buf[p] != '\n')
			p++;
		if (p < len)
			p++;
	}
	return len;
}

/* A member of obj of this type: *out NULL when absent; -1 when it is
 * there with another type. */
static int get_typed(const struct json_object *obj, const char *key,
		     enum cj_type type, const struct json_object **out)
{
	*out = cj_get(obj, key);
	if (*out && cj_type(*out) != type)
		return -1;
	return 0;
}

/* A number member of obj: 0 with *have false when absent, -1 when it is
 * there but not a number. */
static int get_num(const struct json_object *obj, const char *key, double *out,
		   bool *have)
{
	const struct json_object *v;

	if (get_typed(obj, key, CJ_NUMBER, &v))
		return -1;
	*have = v != NULL;
	if (v)
		cj_num(v, out);
	return 0;
}

static int load_dir(const struct json_object *d, struct cmp_dir_vals *dv,
		    const char *name, size_t idx, const char *dkey, char *err,
		    size_t errlen)
{
	const struct json_object *clat, *pct;
	const char *field;
	double ios = 0, bytes = 0, kib;
	bool have_ios, have_bytes, have_kib;

	field = "total_ios";
	if (get_num(d, field, &ios, &have_ios))
		goto bad_num;
	field = "io_bytes";
	if (get_num(d, field, &bytes, &have_bytes))
		goto bad_num;
	dv->io = (have_ios && ios > 0) || (have_bytes && bytes > 0);
	field = "iops";
	if (get_num(d, field, &dv->val[CMP_IOPS], &dv->have[CMP_IOPS]))
		goto bad_num;
	/* bw_bytes (fio >= 3.x) is exact; bw is KiB/s */
	field = "bw_bytes";
	if (get_num(d, field, &dv->val[CMP_BW], &dv->have[CMP_BW]))
		goto bad_num;
	field = "bw";
	if (get_num(d, field, &kib, &have_kib))
		goto bad_num;
	if (!dv->have[CMP_BW] && have_kib) {
		dv->val[CMP_BW] = kib * 1024;
		dv->have[CMP_BW] = true;
	}
	field = "clat_ns";
	if (get_typed(d, field, CJ_OBJECT, &clat))
		goto bad_obj;
	if (!clat)
		return 0;
	field = "clat_ns.mean";
	if (get_num(clat, "mean", &dv->val[CMP_CLAT_MEAN],
		    &dv->have[CMP_CLAT_MEAN]))
		goto bad_num;
	field = "clat_ns.percentile";
	if (get_typed(clat, "percentile", CJ_OBJECT, &pct))
		goto bad_obj;
	if (!pct)
		return 0;
	field = "clat_ns.percentile.99.000000";
	if (get_num(pct, "99.000000", &dv->val[CMP_CLAT_P99],
		    &dv->have[CMP_CLAT_P99]))
		goto bad_num;
	field = "clat_ns.percentile.99.990000";
	if (get_num(pct, "99.990000", &dv->val[CMP_CLAT_P9999],
		    &dv->have[CMP_CLAT_P9999]))
		goto bad_num;
	return 0;

bad_num:
	snprintf(err, errlen, "%s: jobs[%zu].%s.%s is not a number", name, idx,
		 dkey, field);
	return -1;
bad_obj:
	snprintf(err, errlen, "%s: jobs[%zu].%s.%s is not an object", name, idx,
		 dkey, field);
	return -1;
}

static int load_job(const struct json_object *j, struct cmp_job *job,
		    const char *name, size_t idx, char *err, size_t errlen)
{
	const struct json_object *v, *d;
	const char *s;
	size_t slen;
	int i;

	if (cj_type(j) != CJ_OBJECT) {
		snprintf(err, errlen, "%s: jobs[%zu] is not an object", name,
			 idx);
		return -1;
	}
	v = cj_get(j, "jobname");
	s = cj_str(v, &slen);
	if (!s) {
		snprintf(err, errlen, "%s: jobs[%zu] has no \"jobname\" string",
			 name, idx);
		return -1;
	}
	if (memchr(s, 0, slen)) {
		snprintf(err, errlen, "%s: jobs[%zu].jobname holds a NUL", name,
			 idx);
		return -1;
	}
	job->name = strdup(s);
	if (!job->name) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	job->doc_idx = idx;
	v = cj_get(j, "groupid");
	if (v && cj_int(v, &job->groupid)) {
		snprintf(err, errlen, "%s: jobs[%zu].groupid is not an integer",
			 name, idx);
		return -1;
	}
	for (i = 0; i < CMP_NR_DIRS; i++) {
		if (get_typed(j, dir_key[i], CJ_OBJECT, &d)) {
			snprintf(err, errlen,
				 "%s: jobs[%zu].%s is not an object", name, idx,
				 dir_key[i]);
			return -1;
		}
		if (d && load_dir(d, &job->dir[i], name, idx, dir_key[i], err,
				  errlen))
			return -1;
	}
	return 0;
}

/* Order by name, group, then document order (which is the ordinal). */
static int job_cmp(const void *a, const void *b)
{
	const struct cmp_job *x = *(const struct cmp_job *const *)a;
	const struct cmp_job *y = *(const struct cmp_job *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->groupid != y->groupid)
		return x->groupid < y->groupid ? -1 : 1;
	if (x->doc_idx != y->doc_idx)
		return x->doc_idx < y->doc_idx ? -1 : 1;
	return 0;
}

/* The same order on the match key: name, group, ordinal. */
static int key_cmp(const struct cmp_job *x, const struct cmp_job *y)
{
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->groupid != y->groupid)
		return x->groupid < y->groupid ? -1 : 1;
	if (x->ordinal != y->ordinal)
		return x->ordinal < y->ordinal ? -1 : 1;
	return 0;
}

static int index_jobs(struct cmp_run *run)
{
	size_t i;

	run->by_key = calloc(run->nr_jobs, sizeof(*run->by_key));
	if (!run->by_key)
		return -1;
	for (i = 0; i < run->nr_jobs; i++)
		run->by_key[i] = &run->jobs[i];
	qsort(run->by_key, run->nr_jobs, sizeof(*run->by_key), job_cmp);
	for (i = 1; i < run->nr_jobs; i++) {
		const struct cmp_job *prev = run->by_key[i - 1];

		if (!strcmp(prev->name, run->by_key[i]->name) &&
		    prev->groupid == run->by_key[i]->groupid)
			run->by_key[i]->ordinal = prev->ordinal + 1;
	}
	return 0;
}

void cmp_run_free(struct cmp_run *run)
{
	size_t i;

	for (i = 0; i < run->nr_jobs; i++)
		free(run->jobs[i].name);
	free(run->jobs);
	free(run->by_key);
	free(run->path);
	memset(run, 0, sizeof(*run));
}

int cmp_run_load_buf(struct cmp_run *run, const char *name, const char *buf,
		     size_t len, char *err, size_t errlen)
{
	const struct json_object *jobs;
	struct json_object *root = NULL;
	char perr[256], *text;
	size_t start, i, n;

	memset(run, 0, sizeof(*run));
	run->path = strdup(name);
	text = malloc(len + 1);
	if (!run->path || !text) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto out_free;
	}
	memcpy(text, buf, len);
	text[len] = 0;
	/* fio may print "note: ..." lines before the report: blank them,
	 * keeping the newlines, so the parser's line:column stay right */
	start = json_start(text, len);
	if (start == len) {
		snprintf(err, errlen, "%s: not JSON (no line starts with '{')",
			 name);
		goto out_free;
	}
	for (i = 0; i < start; i++)
		if (text[i] != '\n')
			text[i] = ' ';
	if (cj_parse(text, len, &root, perr, sizeof(perr))) {
		snprintf(err, errlen, "%s: not JSON: %s", name, perr);
		goto out_free;
	}
	jobs = cj_get(root, "jobs");
	if (!jobs) {
		snprintf(err, errlen,
			 "%s: no \"jobs\" in it (not a fio JSON report?)",
			 name);
		goto out_free;
	}
	if (cj_type(jobs) != CJ_ARRAY) {
		snprintf(err, errlen, "%s: \"jobs\" is not an array", name);
		goto out_free;
	}
	n = cj_count(jobs);
	if (!n) {
		snprintf(err, errlen, "%s: \"jobs\" is empty", name);
		goto out_free;
	}
	run->jobs = calloc(n, sizeof(*run->jobs));
	if (!run->jobs) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto out_free;
	}
	for (i = 0; i < n; i++) {
		run->nr_jobs = i + 1; /* so cmp_run_free frees its name */
		if (load_job(cj_at(jobs, i), &run->jobs[i], name, i, err,
			     errlen))
			goto out_free;
	}
	if (index_jobs(run)) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto out_free;
	}
	cj_free(root);
	free(text);
	return 0;

out_free:
	cj_free(root);
	free(text);
	cmp_run_free(run);
	return -1;
}

int cmp_run_load_file(struct cmp_run *run, const char *path, char *err,
		      size_t errlen)
{
	char *buf;
	size_t len;
	int ret;

	memset(run, 0, sizeof(*run));
	if (cj_read_file(path, &buf, &len, err, errlen))
		return -1;
	ret = cmp_run_load_buf(run, path, buf, len, err, errlen);
	free(buf);
	return ret;
}

/* ---- statistics ---- */

/*
 * The continued fraction of the regularized incomplete beta function
 * I_x(a, b), evaluated by the modified Lentz method. It converges
 * quickly for x < (a + 1) / (a + b + 2); ibeta() uses the symmetry
 * I_x(a, b) = 1 - I_{1-x}(b, a) for the rest.
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d, h, num, step;
	int m;

	d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 500; m++) {
		/* even step: m (b - m) x / ((a + 2m - 1)(a + 2m)) */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		/* odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
		num = -(a + m) * (a + b + m) * x /
		      ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		step = d * c;
		h *= step;
		if (fabs(step - 1) < 1e-15)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

/* P(|T| >= t) for Student's t with df degrees of freedom. */
static double t_two_sided_p(double t, double df)
{
	return ibeta(df / 2, 0.5, df / (df + t * t));
}

double cmp_t_crit95(double df)
{
	double lo = 0, hi = 1, mid;
	int i;

	/* p falls as t grows: bracket 0.05, then bisect */
	while (t_two_sided_p(hi, df) > 0.05 && hi < 1e9)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		mid = (lo + hi) / 2;
		if (t_two_sided_p(mid, df) > 0.05)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static void mean_var(const double *x, size_t n, double *mean, double *var)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	for (i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*var = n > 1 ? ss / (n - 1) : 0;
}

int cmp_welch(const double *a, size_t na, const double *b, size_t nb, double *p)
{
	double ma, va, mb, vb, sa, sb, se2, t, df, den, pv;

	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	sa = va / na;
	sb = vb / nb;
	se2 = sa + sb;
	if (!(se2 > 0) || !isfinite(se2)) {
		/* no spread on either side (or beyond double's range):
		 * different means cannot be noise */
		pv = ma == mb ? 1 : 0;
		if (p)
			*p = pv;
		return ma != mb;
	}
	t = (mb - ma) / sqrt(se2);
	/* Welch-Satterthwaite; the largest it can be is na + nb - 2 */
	den = sa * sa / (na - 1) + sb * sb / (nb - 1);
	df = den > 0 ? se2 * se2 / den : NAN;
	if (!isfinite(df) || df > (double)(na + nb - 2))
		df = (double)(na + nb - 2);
	if (df < 1)
		df = 1;
	if (!isfinite(t)) {
		if (p)
			*p = 0;
		return 1;
	}
	if (p)
		*p = t_two_sided_p(t, df);
	return fabs(t) > cmp_t_crit95(df);
}

/* ---- the comparison ---- */

static const struct cmp_job *find_job(const struct cmp_run *run,
				      const struct cmp_job *key)
{
	size_t lo = 0, hi = run->nr_jobs, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = key_cmp(run->by_key[mid], key);
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
static void show_name(char *out, size_t outlen, const struct cmp_job *job)
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

static double metric_scale(int metric)
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
static void fmt_val(char *out, size_t outlen, double v, int metric)
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
		mean_var(cx->a, row->nr_base, &row->base, &va);
	if (row->nr_new)
		mean_var(cx->b, row->nr_new, &row->new_val, &vb);
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
static int cmp_check(const struct cmp_run *base, size_t nr_base,
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

/* ---- the text table ---- */

struct text_ctx {
	FILE *out;
	int name_w;
	unsigned nr_rows;
};

static int print_row(const struct cmp_row *row, void *arg)
{
	struct text_ctx *tx = arg;
	char name[NAME_SHOW_MAX + 20], bs[48] = "-", ns[48] = "-";
	char change[48] = "-", verdict[48] = "-";
	double scale = metric_scale(row->metric);

	tx->nr_rows++;
	if (row->nr_base)
		fmt_val(bs, sizeof(bs), row->base * scale, row->metric);
	if (row->nr_new)
		fmt_val(ns, sizeof(ns), row->new_val * scale, row->metric);
	if (row->nr_base && row->nr_new) {
		if (row->have_pct) {
			if (fabs(row->pct) >= 1e6)
				snprintf(change, sizeof(change), "%+.3g%%",
					 row->pct);
			else
				snprintf(change, sizeof(change), "%+.2f%%",
					 row->pct);
		}
		if (!row->tested)
			snprintf(verdict, sizeof(verdict), "n/a (1 run)");
		else if (row->p < 0.001)
			snprintf(verdict, sizeof(verdict), "%s (p<0.001)",
				 row->significant ? "significant" : "noise");
		else
			snprintf(verdict, sizeof(verdict), "%s (p=%.3f)",
				 row->significant ? "significant" : "noise",
				 row->p);
	}
	show_name(name, sizeof(name), row->job);
	fprintf(tx->out,
		"%-*s %5" PRId64 "  %-5s  %-16s %14s %14s %10s  %s%s\n",
		tx->name_w, name, row->job->groupid, dir_key[row->dir],
		metric_label[row->metric], bs, ns, change, verdict,
		row->regression ? "  REGRESSION" : "");
	return 0;
}

static void print_side(FILE *out, const char *label, const struct cmp_run *runs,
		       size_t nr)
{
	size_t r;

	fprintf(out, "%s %zu run%s:", label, nr, nr == 1 ? "" : "s");
	for (r = 0; r < nr; r++)
		fprintf(out, " %s", runs[r].path);
	fputc('\n', out);
}

int cmp_report(FILE *out, const struct cmp_run *base, size_t nr_base,
	       const struct cmp_run *new_runs, size_t nr_new, double threshold,
	       char *err, size_t errlen)
{
	struct text_ctx tx = { .out = out, .name_w = 3 };
	char name[NAME_SHOW_MAX + 20];
	size_t i;
	int nr_regressions;

	/* bad input is one line and no half-printed table */
	if (cmp_check(base, nr_base, new_runs, nr_new, err, errlen))
		return -1;
	for (i = 0; i < base[0].nr_jobs; i++) {
		show_name(name, sizeof(name), &base[0].jobs[i]);
		if ((int)strlen(name) > tx.name_w)
			tx.name_w = (int)strlen(name);
	}

	print_side(out, "base:", base, nr_base);
	print_side(out, "new: ", new_runs, nr_new);
	fprintf(out,
		"test: Welch's t-test, two-sided, 95 %% (needs >= 2 runs a "
		"side); values are means over runs\n");
	if (threshold >= 0)
		fprintf(out, "threshold: %g%% (%s)\n", threshold,
			nr_base >= 2 && nr_new >= 2 ?
				"only a significant regression past it counts" :
				"single run: any regression past it counts");
	fputc('\n', out);
	fprintf(out, "%-*s %5s  %-5s  %-16s %14s %14s %10s  %s\n", tx.name_w,
		"job", "group", "dir", "metric", "base", "new", "change",
		"significance");
	nr_regressions = cmp_rows(base, nr_base, new_runs, nr_new, threshold,
				  print_row, &tx, err, errlen);
	if (nr_regressions < 0)
		return -1;
	if (!tx.nr_rows)
		fprintf(out, "(no job did any I/O)\n");
	if (threshold >= 0) {
		fputc('\n', out);
		if (nr_regressions)
			fprintf(out, "%d regression%s past %g%%\n",
				nr_regressions, nr_regressions == 1 ? "" : "s",
				threshold);
		else
			fprintf(out, "no regression past %g%%\n", threshold);
	}
	return nr_regressions ? 1 : 0;
}

/* ---- JSON and JUnit XML (for CI) ---- */

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong, surrogates, past U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* s as a JSON string; bytes that are not UTF-8 (a file name's) become
 * U+FFFD. */
static void json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), l;

	fputc('"', f);
	while (n) {
		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p);
		} else if (*p >= 0x80) {
			l = utf8_len(p, n);
			if (!l) {
				fputs("\\ufffd", f);
				l = 1;
			} else {
				fwrite(p, 1, l, f);
			}
			p += l;
			n -= l;
			continue;
		} else {
			fputc(*p, f);
		}
		p++;
		n--;
	}
	fputc('"', f);
}

/* A number, or null when it is not finite (JSON has no NaN). */
static void json_num(FILE *f, bool have, double v)
{
	if (have && isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}

static void json_side(FILE *f, const char *key, const struct cmp_run *runs,
		      size_t nr)
{
	size_t r;

	fprintf(f, "  \"%s\": [", key);
	for (r = 0; r < nr; r++) {
		fputs(r ? ", " : "", f);
		json_str(f, runs[r].path);
	}
	fputs("],\n", f);
}

struct out_ctx {
	FILE *f;
	unsigned nr_rows;
	unsigned nr_failures;
	unsigned nr_skipped;
	double threshold;
};

static int json_row(const struct cmp_row *row, void *arg)
{
	struct out_ctx *ox = arg;
	FILE *f = ox->f;

	fputs(ox->nr_rows++ ? ",\n    {" : "\n    {", f);
	fputs("\"job\": ", f);
	json_str(f, row->job->name);
	fprintf(f,
		", \"groupid\": %" PRId64 ", \"ordinal\": %u, \"dir\": \"%s\", "
		"\"metric\": \"%s\", \"base_runs\": %zu, \"new_runs\": %zu, "
		"\"base\": ",
		row->job->groupid, row->job->ordinal + 1, dir_key[row->dir],
		cmp_metric_key(row->metric), row->nr_base, row->nr_new);
	json_num(f, row->nr_base > 0, row->base);
	fputs(", \"new\": ", f);
	json_num(f, row->nr_new > 0, row->new_val);
	fputs(", \"change_pct\": ", f);
	json_num(f, row->have_pct, row->pct);
	fprintf(f, ", \"tested\": %s, \"p\": ", row->tested ? "true" : "false");
	json_num(f, row->tested, row->p);
	fprintf(f, ", \"significant\": %s, \"regression\": %s}",
		row->tested && row->significant ? "true" : "false",
		row->regression ? "true" : "false");
	return 0;
}

int cmp_report_json(FILE *out, const struct cmp_run *base, size_t nr_base,
		    const struct cmp_run *new_runs, size_t nr_new,
		    double threshold, char *err, size_t errlen)
{
	struct out_ctx ox = { .f = out };
	int nr_reg;

	if (cmp_check(base, nr_base, new_runs, nr_new, err, errlen))
		return -1;
	fputs("{\n  \"format\": \"mqblk compare\",\n  \"version\": 1,\n", out);
	json_side(out, "base", base, nr_base);
	json_side(out, "new", new_runs, nr_new);
	fputs("  \"test\": \"Welch's t-test, two-sided, 95 %\",\n"
	      "  \"threshold_pct\": ",
	      out);
	json_num(out, threshold >= 0, threshold);
	fputs(",\n  \"rows\": [", out);
	nr_reg = cmp_rows(base, nr_base, new_runs, nr_new, threshold, json_row,
			  &ox, err, errlen);
	if (nr_reg < 0)
		return -1;
	fprintf(out, "%s],\n  \"regressions\": %d,\n  \"result\": \"%s\"\n}\n",
		ox.nr_rows ? "\n  " : "", nr_reg,
		nr_reg ? "regression" : "pass");
	return nr_reg ? 1 : 0;
}

/* s as XML attribute or text: markup escaped; control characters, which
 * XML 1.0 cannot hold, and bytes that are not UTF-8 become '?'. */
static void xml_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), l;

	while (n) {
		l = 1;
		switch (*p) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fputc('?', f);
			} else if (*p >= 0x80) {
				l = utf8_len(p, n);
				if (l)
					fwrite(p, 1, l, f);
				else
					fputc('?', f);
				if (!l)
					l = 1;
			} else {
				fputc(*p, f);
			}
		}
		p += l;
		n -= l;
	}
}

static int junit_row(const struct cmp_row *row, void *arg)
{
	struct out_ctx *ox = arg;
	FILE *f = ox->f;
	char cls[512], msg[256], bs[48], ns[48];
	double scale = metric_scale(row->metric);

	ox->nr_rows++;
	if (row->job->ordinal)
		snprintf(cls, sizeof(cls), "%s#%u.group%" PRId64 ".%s",
			 row->job->name, row->job->ordinal + 1,
			 row->job->groupid, dir_key[row->dir]);
	else
		snprintf(cls, sizeof(cls), "%s.group%" PRId64 ".%s",
			 row->job->name, row->job->groupid, dir_key[row->dir]);
	fputs("    <testcase classname=\"", f);
	xml_str(f, cls);
	fprintf(f, "\" name=\"%s\"", cmp_metric_key(row->metric));
	if (!row->nr_base || !row->nr_new) {
		ox->nr_skipped++;
		fprintf(f,
			">\n      <skipped message=\"no value on the %s "
			"side\"/>\n    </testcase>\n",
			!row->nr_base ? "base" : "new");
		return 0;
	}
	if (!row->regression) {
		fputs("/>\n", f);
		return 0;
	}
	ox->nr_failures++;
	fmt_val(bs, sizeof(bs), row->base * scale, row->metric);
	fmt_val(ns, sizeof(ns), row->new_val * scale, row->metric);
	if (row->tested)
		snprintf(msg, sizeof(msg),
			 "%s %s -> %s (%+.2f%%), past %g%%, significant "
			 "(p=%.3g)",
			 metric_label[row->metric], bs, ns, row->pct,
			 ox->threshold, row->p);
	else
		snprintf(msg, sizeof(msg),
			 "%s %s -> %s (%+.2f%%), past %g%% (1 run: not tested "
			 "against noise)",
			 metric_label[row->metric], bs, ns, row->pct,
			 ox->threshold);
	fputs(">\n      <failure type=\"regression\" message=\"", f);
	xml_str(f, msg);
	fputs("\"/>\n    </testcase>\n", f);
	return 0;
}

int cmp_report_junit(FILE *out, const struct cmp_run *base, size_t nr_base,
		     const struct cmp_run *new_runs, size_t nr_new,
		     double threshold, char *err, size_t errlen)
{
	struct out_ctx ox = { .threshold = threshold };
	char *body = NULL;
	size_t body_len = 0;
	int nr_reg;

	if (cmp_check(base, nr_base, new_runs, nr_new, err, errlen))
		return -1;
	/* the counts go in the opening tags: the cases first, aside */
	ox.f = open_memstream(&body, &body_len);
	if (!ox.f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	nr_reg = cmp_rows(base, nr_base, new_runs, nr_new, threshold, junit_row,
			  &ox, err, errlen);
	if (fclose(ox.f) && nr_reg >= 0) {
		snprintf(err, errlen, "out of memory");
		nr_reg = -1;
	}
	if (nr_reg < 0) {
		free(body);
		return -1;
	}
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"mqblk compare\" tests=\"%u\" "
		"failures=\"%u\" skipped=\"%u\">\n"
		"  <testsuite name=\"mqblk compare\" tests=\"%u\" "
		"failures=\"%u\" skipped=\"%u\" errors=\"0\">\n",
		ox.nr_rows, ox.nr_failures, ox.nr_skipped, ox.nr_rows,
		ox.nr_failures, ox.nr_skipped);
	fwrite(body, 1, body_len, out);
	fputs("  </testsuite>\n</testsuites>\n", out);
	free(body);
	return nr_reg ? 1 : 0;
}

/* ---- the command ---- */

int cmp_parse_threshold(const char *s, double *out)
{
	size_t i, len = strlen(s), digits = 0, dots = 0;
	char *end;
	double v;

	if (len && s[len - 1] == '%')
		len--;
	if (!len)
		return -1;
	for (i = 0; i < len; i++) {
		if (isdigit((unsigned char)s[i]))
			digits++;
		else if (s[i] == '.')
			dots++;
		else
			return -1;
	}
	if (!digits || dots > 1)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end != s + len || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

static void cmp_usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk compare BASE.json[,BASE2.json...] "
		"NEW.json[,NEW2.json...] [--threshold PCT]\n"
		"                     [-o normal|json|junit]\n"
		"\n"
		"Compares fio JSON reports (fio --output-format=json or json+, or\n"
		"mqblk bench's, which has the same format) of one or several runs\n"
		"per side. Jobs match by jobname and groupid. For each job and\n"
		"direction (read, write, trim) that did I/O it prints IOPS,\n"
		"bandwidth (MiB/s), mean, p99 and p99.99 completion latency (us):\n"
		"the base and new values (means over runs), the change in\n"
		"percent, and whether the change is beyond run-to-run noise.\n"
		"\n"
		"Significance: Welch's t-test (unequal variances), two-sided, at\n"
		"95 %%: |t| against Student's t critical value for the\n"
		"Welch-Satterthwaite degrees of freedom; p is printed. It needs\n"
		"at least 2 runs on each side; otherwise \"n/a (1 run)\".\n"
		"\n"
		"options:\n"
		"  --threshold PCT  exit 1 if a metric regressed by more than PCT\n"
		"                   percent (5%% or 5): IOPS or bandwidth lower,\n"
		"                   a latency higher. With >= 2 runs a side only\n"
		"                   a significant regression counts; with a single\n"
		"                   run on either side any regression past PCT does\n"
		"  -o, --output-format FMT\n"
		"                   normal (the table), json (a row per metric:\n"
		"                   base, new, change_pct, p, significant,\n"
		"                   regression; \"result\": pass or regression)\n"
		"                   or junit (JUnit XML: a testcase per metric,\n"
		"                   a failure per regression past the threshold)\n"
		"  -h, --help       this text\n"
		"\n"
		"Text before the first line starting with '{' (fio's \"note:\"\n"
		"lines) is skipped. File names cannot contain ','.\n"
		"\n"
		"exit status: 0 no regression past the threshold (or none given),\n"
		"1 a regression past it, 2 bad input (one line on stderr)\n");
}

/* Split a comma-separated list of files and load each. */
static int load_side(const char *list, struct cmp_run **runs, size_t *nr,
		     char *err, size_t errlen)
{
	const char *p = list, *comma;
	struct cmp_run *r = NULL, *nr_ptr;
	size_t n = 0, len;
	char *path;

	*runs = NULL;
	*nr = 0;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len) {
			snprintf(err, errlen, "empty file name in '%s'", list);
			goto out_free;
		}
		path = strndup(p, len);
		nr_ptr = path ? realloc(r, (n + 1) * sizeof(*r)) : NULL;
		if (!nr_ptr) {
			free(path);
			snprintf(err, errlen, "out of memory");
			goto out_free;
		}
		r = nr_ptr;
		if (cmp_run_load_file(&r[n], path, err, errlen)) {
			free(path);
			goto out_free;
		}
		free(path);
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	*runs = r;
	*nr = n;
	return 0;

out_free:
	while (n)
		cmp_run_free(&r[--n]);
	free(r);
	return -1;
}

static void free_side(struct cmp_run *runs, size_t nr)
{
	while (nr)
		cmp_run_free(&runs[--nr]);
	free(runs);
}

int cmp_cmd(int argc, char **argv)
{
	const char *pos[2] = { NULL, NULL }, *tval = NULL, *fval = NULL;
	struct cmp_run *base = NULL, *new_runs = NULL;
	char *text = NULL;
	size_t text_len = 0;
	FILE *mem;
	size_t nr_base = 0, nr_new = 0;
	double threshold = -1;
	char err[CMP_ERRLEN];
	int i, nr_pos = 0, ret = 2;
	bool opts_done = false;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!opts_done && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
			cmp_usage(stdout);
			return 0;
		}
		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && !strcmp(a, "--threshold")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "mqblk compare: --threshold "
						"needs a value (e.g. 5%%)\n");
				return 2;
			}
			tval = argv[++i];
		} else if (!opts_done && !strncmp(a, "--threshold=", 12)) {
			tval = a + 12;
		} else if (!opts_done && (!strcmp(a, "-o") ||
					  !strcmp(a, "--output-format"))) {
			if (i + 1 >= argc) {
				fprintf(stderr,
					"mqblk compare: %s needs a format "
					"(normal, json or junit)\n",
					a);
				return 2;
			}
			fval = argv[++i];
		} else if (!opts_done && !strncmp(a, "--output-format=", 16)) {
			fval = a + 16;
		} else if (!opts_done && a[0] == '-' && a[1]) {
			fprintf(stderr,
				"mqblk compare: unknown option '%s' (try "
				"mqblk compare --help)\n",
				a);
			return 2;
		} else if (nr_pos < 2) {
			pos[nr_pos++] = a;
		} else {
			fprintf(stderr,
				"mqblk compare: one more argument than "
				"BASE and NEW: '%s'\n",
				a);
			return 2;
		}
	}
	if (tval && cmp_parse_threshold(tval, &threshold)) {
		fprintf(stderr,
			"mqblk compare: bad --threshold '%s' (want a "
			"percentage like 5%% or 5)\n",
			tval);
		return 2;
	}
	if (fval && strcmp(fval, "normal") && strcmp(fval, "json") &&
	    strcmp(fval, "junit")) {
		fprintf(stderr,
			"mqblk compare: unknown output format '%s' (normal, "
			"json or junit)\n",
			fval);
		return 2;
	}
	if (nr_pos < 2) {
		fprintf(stderr,
			"mqblk compare: want BASE.json[,...] NEW.json[,...] "
			"(try mqblk compare --help)\n");
		return 2;
	}
	if (load_side(pos[0], &base, &nr_base, err, sizeof(err)) ||
	    load_side(pos[1], &new_runs, &nr_new, err, sizeof(err))) {
		fprintf(stderr, "mqblk compare: %s\n", err);
		goto out_free;
	}
	/* the report whole or not at all: made aside, then printed */
	mem = open_memstream(&text, &text_len);
	if (!mem) {
		fprintf(stderr, "mqblk compare: out of memory\n");
		goto out_free;
	}
	if (fval && !strcmp(fval, "json"))
		ret = cmp_report_json(mem, base, nr_base, new_runs, nr_new,
				      threshold, err, sizeof(err));
	else if (fval && !strcmp(fval, "junit"))
		ret = cmp_report_junit(mem, base, nr_base, new_runs, nr_new,
				       threshold, err, sizeof(err));
	else
		ret = cmp_report(mem, base, nr_base, new_runs, nr_new,
				 threshold, err, sizeof(err));
	if (fclose(mem) && ret >= 0) {
		snprintf(err, sizeof(err), "out of memory");
		ret = -1;
	}
	if (ret < 0) {
		fprintf(stderr, "mqblk compare: %s\n", err);
		ret = 2;
		goto out_free;
	}
	fwrite(text, 1, text_len, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "mqblk compare: writing the report: %s\n",
			strerror(errno));
		ret = 2;
	}

out_free:
	free(text);
	free_side(base, nr_base);
	free_side(new_runs, nr_new);
	return ret;
}
