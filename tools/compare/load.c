// SPDX-License-Identifier: MIT
/*
 * mqblk compare: one fio 3.x JSON report (fio's own, or mqblk bench's,
 * json or json+) read into a cmp_run, its jobs indexed by match key.
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
		if (get_typed(j, cmp_dir_name(i), CJ_OBJECT, &d)) {
			snprintf(err, errlen,
				 "%s: jobs[%zu].%s is not an object", name, idx,
				 cmp_dir_name(i));
			return -1;
		}
		if (d && load_dir(d, &job->dir[i], name, idx, cmp_dir_name(i),
				  err, errlen))
			return -1;
	}
	return 0;
}

/* Name, then group, then n: the caller's tiebreak for entries of the same
 * name and group */
static int job_order(const struct cmp_job *x, const struct cmp_job *y,
		     size_t xn, size_t yn)
{
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->groupid != y->groupid)
		return x->groupid < y->groupid ? -1 : 1;
	if (xn != yn)
		return xn < yn ? -1 : 1;
	return 0;
}

/* Order by name, group, then document order (which is the ordinal:
 * index_jobs numbers the ordinals in this order). */
static int job_cmp(const void *a, const void *b)
{
	const struct cmp_job *x = *(const struct cmp_job *const *)a;
	const struct cmp_job *y = *(const struct cmp_job *const *)b;

	return job_order(x, y, x->doc_idx, y->doc_idx);
}

/* The same order on the match key: name, group, ordinal. */
int cmp_job_key_cmp(const struct cmp_job *x, const struct cmp_job *y)
{
	return job_order(x, y, x->ordinal, y->ordinal);
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
