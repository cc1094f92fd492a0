// SPDX-License-Identifier: MIT
/*
 * mqblk plot: from one or more runs (fio's or mqblk bench's JSON reports,
 * json or json+, with the bw/iops/lat logs found beside them) one HTML
 * page: IOPS and bandwidth over time, completion latency percentiles over
 * time, the clat distribution from json+'s bins and, given a base and a
 * new side, what mqblk compare says, drawn. gnuplot draws every chart
 * (a generated script run as a child in a temporary directory); the page
 * embeds its SVG inline and holds no script of its own.
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

#include "compare.h"
#include "plot.h"
#include "target/config/json.h"

#define PLOT_ERRLEN 1024
#define LABEL_MAX 160
/* per-I/O log entries are counted in about this many intervals */
#define TIME_BINS 120
/* a log line longer than this is not one fio writes */
#define LOG_LINE_MAX 512

enum chart { CH_IOPS, CH_BW, CH_LAT, CH_HIST, CH_CMP, CH_NR };

static const char *const chart_id[CH_NR] = {
	"plot-iops", "plot-bw", "plot-lat", "plot-clat-hist", "plot-compare",
};

static const char *const chart_title[CH_NR] = {
	"IOPS over time",
	"Bandwidth over time",
	"Completion latency percentiles over time",
	"Completion latency distribution",
	"Base against new (mqblk compare)",
};

static const char *const ddir_name[3] = { "read", "write", "trim" };

struct pt {
	double x, y;
};

struct series {
	char label[LABEL_MAX];
	unsigned run_idx; /* its dash type: runs overlaid stay apart */
	struct pt *p;
	size_t nr, cap;
};

struct chart_data {
	struct series *s;
	size_t nr, cap;
	char src[256]; /* where the data came from, for the caption */
	bool drawn; /* gnuplot wrote its SVG */
};

struct run {
	const char *path; /* as given */
	char label[LABEL_MAX];
	char *dir; /* the report's directory: logs are looked for there */
	char *text;
	size_t len;
	/* each report in the file: --status-interval's, then the final */
	struct json_object **docs;
	size_t nr_docs;
};

struct plot {
	struct run *runs;
	/* each run's final report as mqblk compare reads it (jobs, names,
	 * numbers checked), apart: compare takes an array of them */
	struct cmp_run *cmps;
	size_t nr_runs, nr_base; /* the base side is runs[0, nr_base) */
	bool two_sides;
	double threshold;
	const char *title;
	const char *out_path;
	const char *log_dir; /* --log-dir: the logs are here, not beside */
	struct chart_data ch[CH_NR];
	char tmpdir[PATH_MAX];
	unsigned nr_files; /* data files written, d0.dat ... */
	char *cmp_text; /* mqblk compare's table */
	size_t cmp_text_len;
	int nr_regressions;
	char err[PLOT_ERRLEN];
};

/* ---- small helpers ---- */

/* The one-line reason; a long path in it is cut to fit. */
static void set_err(struct plot *pl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct plot *pl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pl->err, sizeof(pl->err), fmt, ap);
	va_end(ap);
}

static int oom(struct plot *pl)
{
	set_err(pl, "out of memory");
	return -1;
}

/* A label gnuplot and HTML both take as it is: printable ASCII, none of
 * the characters either would read as markup or quoting. */
static void clean_label(char *s)
{
	for (; *s; s++)
		if (!isprint((unsigned char)*s) || strchr("'\"\\<>&`", *s))
			*s = '?';
}

static struct series *new_series(struct plot *pl, enum chart ch,
				 unsigned run_idx, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static struct series *new_series(struct plot *pl, enum chart ch,
				 unsigned run_idx, const char *fmt, ...)
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
	clean_label(s->label);
	return s;
}

static int add_pt(struct series *s, double x, double y)
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

static int pt_cmp(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;

	return x->x < y->x ? -1 : x->x > y->x;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- reading a run: its reports ---- */

/* From p, the offset of the next line whose first non-blank byte is '{'
 * (fio's "note:" lines, a normal report after the JSON one are skipped),
 * or len. */
static size_t next_doc(const char *t, size_t len, size_t p)
{
	while (p < len) {
		while (p < len && (t[p] == ' ' || t[p] == '\t' || t[p] == '\r'))
			p++;
		if (p < len && t[p] == '{')
			return p;
		while (p < len && t[p] != '\n')
			p++;
		if (p < len)
			p++;
	}
	return len;
}

/* One past the brace closing the object at t[p] == '{', or 0 when it
 * does not close (strings are skipped whole). */
static size_t object_end(const char *t, size_t len, size_t p)
{
	size_t depth = 0;
	bool in_str = false;

	for (; p < len; p++) {
		char c = t[p];

		if (in_str) {
			if (c == '\\')
				p++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"')
			in_str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && depth && !--depth)
			return p + 1;
	}
	return 0;
}

void plot_reports_free(struct json_object **docs, size_t nr)
{
	while (nr)
		cj_free(docs[--nr]);
	free(docs);
}

int plot_reports(const char *name, const char *text, size_t len,
		 struct json_object ***docs_out, size_t *nr_out,
		 size_t *last_off, size_t *last_len, char *err, size_t errlen)
{
	struct json_object *root, **docs = NULL, **nd;
	const struct json_object *jobs;
	size_t p = 0, end, nr = 0;
	char perr[256];

	for (;;) {
		p = next_doc(text, len, p);
		if (p == len)
			break;
		end = object_end(text, len, p);
		if (!end) {
			snprintf(err, errlen,
				 "%s: report %zu does not end (a truncated "
				 "JSON object)",
				 name, nr + 1);
			goto out_free;
		}
		if (cj_parse(text + p, end - p, &root, perr, sizeof(perr))) {
			snprintf(err, errlen, "%s: report %zu is not JSON: %s",
				 name, nr + 1, perr);
			goto out_free;
		}
		nd = realloc(docs, (nr + 1) * sizeof(*docs));
		if (!nd) {
			cj_free(root);
			snprintf(err, errlen, "%s: out of memory", name);
			goto out_free;
		}
		docs = nd;
		docs[nr++] = root;
		jobs = cj_get(root, "jobs");
		if (cj_type(jobs) != CJ_ARRAY) {
			snprintf(err, errlen,
				 "%s: report %zu has no \"jobs\" array (not a "
				 "fio or mqblk JSON report)",
				 name, nr);
			goto out_free;
		}
		if (!cj_count(jobs)) {
			snprintf(err, errlen, "%s: report %zu has no jobs",
				 name, nr);
			goto out_free;
		}
		*last_off = p;
		*last_len = end - p;
		p = end;
	}
	if (!nr) {
		snprintf(err, errlen,
			 "%s: not a JSON report (no line starts with '{')",
			 name);
		goto out_free;
	}
	*docs_out = docs;
	*nr_out = nr;
	return 0;

out_free:
	plot_reports_free(docs, nr);
	return -1;
}

static int load_run(struct plot *pl, struct run *run, struct cmp_run *cmp,
		    const char *path)
{
	size_t end, last_off = 0, last_len = 0;
	char *slash, *dup;

	memset(run, 0, sizeof(*run));
	memset(cmp, 0, sizeof(*cmp));
	run->path = path;
	if (cj_read_file(path, &run->text, &run->len, pl->err, sizeof(pl->err)))
		return -1;
	dup = strdup(path);
	if (!dup)
		return oom(pl);
	slash = strrchr(dup, '/');
	if (slash == dup)
		dup[1] = 0;
	else if (slash)
		*slash = 0;
	else
		snprintf(dup, strlen(dup) + 1, ".");
	run->dir = dup;
	/* the label: the file name without its directory and .json */
	slash = strrchr(path, '/');
	snprintf(run->label, sizeof(run->label), "%s",
		 slash ? slash + 1 : path);
	end = strlen(run->label);
	if (end > 5 && !strcmp(run->label + end - 5, ".json"))
		run->label[end - 5] = 0;
	clean_label(run->label);

	if (plot_reports(path, run->text, run->len, &run->docs, &run->nr_docs,
			 &last_off, &last_len, pl->err, sizeof(pl->err)))
		return -1;
	/* the final report, read as mqblk compare reads it: jobs, names,
	 * numbers checked */
	return cmp_run_load_buf(cmp, path, run->text + last_off, last_len,
				pl->err, sizeof(pl->err));
}

static void free_run(struct run *run)
{
	plot_reports_free(run->docs, run->nr_docs);
	free(run->text);
	free(run->dir);
}

static const struct json_object *final_doc(const struct run *run)
{
	return run->docs[run->nr_docs - 1];
}

/* A string option of a job: its "job options", else the report's
 * "global options"; NULL when neither names it. */
static const char *job_opt(const struct json_object *doc,
			   const struct json_object *job, const char *key)
{
	const struct json_object *v = cj_get(cj_get(job, "job options"), key);

	if (!v)
		v = cj_get(cj_get(doc, "global options"), key);
	return cj_str(v, NULL);
}

/* ---- the logs ---- */

struct log_ent {
	uint64_t t_ms;
	double val;
	uint64_t bs;
	unsigned ddir;
};

struct log {
	struct log_ent *e;
	size_t nr, cap;
	unsigned nr_files;
};

int plot_log_line(const char *line, uint64_t out[4])
{
	unsigned long long v[6];
	const char *p = line;
	char *end;
	int n = 0, i;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!isdigit((unsigned char)*p) || n == 6)
			return -1;
		errno = 0;
		v[n++] = strtoull(p, &end, 10);
		if (errno)
			return -1;
		p = end;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ',') {
			p++;
			continue;
		}
		/* the end: a line end ("\n" or "\r\n") and nothing after */
		if (*p == '\r')
			p++;
		if (*p == '\n')
			p++;
		if (!*p)
			break;
		return -1;
	}
	if (n < 4 || v[2] > 2)
		return -1;
	for (i = 0; i < 4; i++)
		out[i] = v[i];
	return 0;
}

static int read_log(struct plot *pl, const char *path, struct log *l)
{
	char line[LOG_LINE_MAX];
	unsigned long lineno = 0;
	struct log_ent e;
	uint64_t v[4];
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		set_err(pl, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f))
			goto bad_line;
		if (line[strspn(line, " \t\r\n")] == 0)
			continue;
		if (plot_log_line(line, v))
			goto bad_line;
		e.t_ms = v[0];
		e.val = (double)v[1];
		e.ddir = (unsigned)v[2];
		e.bs = v[3];
		if (l->nr == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 1024;
			struct log_ent *ne = realloc(l->e, cap * sizeof(*ne));

			if (!ne) {
				fclose(f);
				return oom(pl);
			}
			l->e = ne;
			l->cap = cap;
		}
		l->e[l->nr++] = e;
	}
	if (ferror(f)) {
		set_err(pl, "%s: read error", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	l->nr_files++;
	return 0;

bad_line:
	set_err(pl,
		"%s:%lu: not a fio log line (want TIME, VALUE, DIRECTION, "
		"BS[, OFFSET], PRIO)",
		path, lineno);
	fclose(f);
	return -1;
}

/* Is name fio's log file of prefix ("base_type"): prefix.N.log, one per
 * thread, or prefix.log (per_job_logs=0)? */
static bool is_log_name(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	const char *p;

	if (strncmp(name, prefix, pl) || name[pl] != '.')
		return false;
	p = name + pl + 1;
	if (!strcmp(p, "log"))
		return true;
	if (!isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	return !strcmp(p, ".log");
}

/*
 * Every log of type ("bw", "iops", "clat", "lat") of base (a log option's
 * value or the job name; relative to the report's directory) into l.
 * No file is no log (l->nr_files stays 0), not an error.
 */
static int find_logs(struct plot *pl, const struct run *run, const char *base,
		     const char *type, struct log *l)
{
	char path[PATH_MAX], prefix[PATH_MAX], file[PATH_MAX * 2];
	const char *dir, *name;
	struct dirent *de;
	char *slash;
	DIR *d;
	int n;

	if (base[0] == '/')
		n = snprintf(path, sizeof(path), "%s", base);
	else
		n = snprintf(path, sizeof(path), "%s/%s",
			     pl->log_dir ? pl->log_dir : run->dir, base);
	if (n < 0 || (size_t)n >= sizeof(path))
		return 0;
	slash = strrchr(path, '/');
	*slash = 0;
	dir = slash == path ? "/" : path;
	name = slash + 1;
	n = snprintf(prefix, sizeof(prefix), "%s_%s", name, type);
	if (n < 0 || (size_t)n >= sizeof(prefix))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!is_log_name(de->d_name, prefix))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		if (read_log(pl, file, l)) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct log_ent *x = a, *y = b;

	if (x->ddir != y->ddir)
		return x->ddir < y->ddir ? -1 : 1;
	return x->t_ms < y->t_ms ? -1 : x->t_ms > y->t_ms;
}

/* --log_avg_msec logs carry block size 0 in every line; per-I/O logs the
 * I/O's. */
static bool log_averaged(const struct log *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (l->e[i].bs)
			return false;
	return true;
}

/* The interval per-I/O entries are counted in: about TIME_BINS of them
 * over the log, whole milliseconds. */
static uint64_t bin_ms(const struct log *l)
{
	uint64_t max = 0;
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (l->e[i].t_ms > max)
			max = l->e[i].t_ms;
	return max / TIME_BINS + 1;
}

/*
 * IOPS (bytes false) or MiB/s (bytes true) over time from a bw or iops
 * log: --log_avg_msec windows as they are (threads' files summed at each
 * time), per-I/O entries counted per interval.
 */
static int rate_series(struct plot *pl, enum chart ch, unsigned run_idx,
		       const char *who, struct log *l, bool bytes)
{
	bool avg = log_averaged(l);
	uint64_t w = bin_ms(l);
	size_t i, j;
	unsigned d;

	qsort(l->e, l->nr, sizeof(*l->e), ent_cmp);
	for (i = 0; i < l->nr; i = j) {
		struct series *s;

		d = l->e[i].ddir;
		for (j = i; j < l->nr && l->e[j].ddir == d; j++)
			;
		s = new_series(pl, ch, run_idx, "%s %s", who, ddir_name[d]);
		if (!s)
			return oom(pl);
		while (i < j) {
			uint64_t t = avg ? l->e[i].t_ms : l->e[i].t_ms / w;
			double sum = 0;
			size_t k;

			for (k = i; k < j; k++) {
				const struct log_ent *e = &l->e[k];

				if ((avg ? e->t_ms : e->t_ms / w) != t)
					break;
				if (avg)
					sum += bytes ? e->val / 1024 : e->val;
				else
					sum += bytes ? (double)e->bs /
							       (1024 * 1024) :
						       1;
			}
			i = k;
			if (avg) {
				if (add_pt(s, (double)t / 1000, sum))
					return oom(pl);
			} else if (add_pt(s,
					  ((double)t + 0.5) * (double)w / 1000,
					  sum * 1000 / (double)w)) {
				return oom(pl);
			}
		}
	}
	return 0;
}

/* Latency over time from a clat (or lat) log: per-I/O entries give p50,
 * p99 and p99.9 per interval; --log_avg_msec windows their mean. */
static int lat_series(struct plot *pl, unsigned run_idx, const char *who,
		      const char *type, struct log *l)
{
	static const double pct[] = { 50, 99, 99.9 };
	static const char *const pname[] = { "p50", "p99", "p99.9" };
	bool avg = log_averaged(l);
	uint64_t w = bin_ms(l);
	struct series *s[3];
	double *v = NULL;
	size_t i, j, k, n;
	unsigned d, q;

	qsort(l->e, l->nr, sizeof(*l->e), ent_cmp);
	for (i = 0; i < l->nr; i = j) {
		d = l->e[i].ddir;
		for (j = i; j < l->nr && l->e[j].ddir == d; j++)
			;
		if (avg) {
			s[0] = new_series(pl, CH_LAT, run_idx,
					  "%s %s %s window mean", who,
					  ddir_name[d], type);
			if (!s[0])
				goto out_oom;
			for (k = i; k < j; k++)
				if (add_pt(s[0], (double)l->e[k].t_ms / 1000,
					   l->e[k].val / 1000))
					goto out_oom;
			qsort(s[0]->p, s[0]->nr, sizeof(*s[0]->p), pt_cmp);
			continue;
		}
		for (q = 0; q < 3; q++) {
			s[q] = new_series(pl, CH_LAT, run_idx, "%s %s %s %s",
					  who, ddir_name[d], type, pname[q]);
			if (!s[q])
				goto out_oom;
		}
		free(v);
		v = malloc((j - i) * sizeof(*v));
		if (!v)
			goto out_oom;
		for (k = i; k < j;) {
			uint64_t t = l->e[k].t_ms / w;

			for (n = 0; k < j && l->e[k].t_ms / w == t; k++)
				v[n++] = l->e[k].val;
			qsort(v, n, sizeof(*v), dbl_cmp);
			for (q = 0; q < 3; q++) {
				/* the nearest rank, as fio's percentiles */
				size_t r = (size_t)ceil(pct[q] / 100 * n);

				if (add_pt(s[q],
					   ((double)t + 0.5) * (double)w / 1000,
					   v[r ? r - 1 : 0] / 1000))
					goto out_oom;
			}
		}
	}
	free(v);
	return 0;

out_oom:
	free(v);
	return oom(pl);
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
		cj_at(cj_get(final_doc(run), "jobs"), job_idx);
	struct series *s;
	unsigned d, q;
	size_t k;

	for (d = 0; d < 3; d++) {
		if (num_or(cj_get(cj_get(fj, ddir_name[d]), "total_ios"), 0) <=
		    0)
			continue;
		if (want[CH_IOPS] || want[CH_BW]) {
			struct series *si = NULL, *sb = NULL;
			double pt = 0, pios = 0, pbytes = 0;

			if (want[CH_IOPS] &&
			    !(si = new_series(pl, CH_IOPS, run_idx, "%s %s",
					      who, ddir_name[d])))
				return oom(pl);
			if (want[CH_BW] &&
			    !(sb = new_series(pl, CH_BW, run_idx, "%s %s", who,
					      ddir_name[d])))
				return oom(pl);
			for (k = 0; k < run->nr_docs; k++) {
				const struct json_object *j, *dd;
				double t, ios, bytes;

				j = status_job(run->docs[k], job_idx, name);
				dd = cj_get(j, ddir_name[d]);
				t = num_or(cj_get(j, "job_runtime"), -1) / 1000;
				ios = num_or(cj_get(dd, "total_ios"), -1);
				bytes = num_or(cj_get(dd, "io_bytes"), -1);
				if (!j || t <= pt || ios < pios ||
				    bytes < pbytes)
					continue;
				if ((si &&
				     add_pt(si, t, (ios - pios) / (t - pt))) ||
				    (sb && add_pt(sb, t,
						  (bytes - pbytes) / (t - pt) /
							  (1024 * 1024))))
					return oom(pl);
				pt = t;
				pios = ios;
				pbytes = bytes;
			}
		}
		if (!want[CH_LAT])
			continue;
		for (q = 0; q < 3; q++) {
			s = new_series(pl, CH_LAT, run_idx,
				       "%s %s clat %s (cumulative)", who,
				       ddir_name[d], pname[q]);
			if (!s)
				return oom(pl);
			for (k = 0; k < run->nr_docs; k++) {
				const struct json_object *j, *pc;
				double t, v;

				j = status_job(run->docs[k], job_idx, name);
				pc = cj_get(cj_get(cj_get(j, ddir_name[d]),
						   "clat_ns"),
					    "percentile");
				t = num_or(cj_get(j, "job_runtime"), -1) / 1000;
				v = num_or(cj_get(pc, pkey[q]), -1);
				if (!j || t < 0 || v < 0)
					continue;
				if (add_pt(s, t, v / 1000))
					return oom(pl);
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
		cj_at(cj_get(final_doc(run), "jobs"), job_idx);
	struct json_object *bins;
	struct series *s;
	unsigned d;
	size_t i;

	for (d = 0; d < 3; d++) {
		double total = 0;

		bins = cj_get(cj_get(cj_get(job, ddir_name[d]), "clat_ns"),
			      "bins");
		if (cj_type(bins) != CJ_OBJECT || !cj_count(bins))
			continue;
		s = new_series(pl, CH_HIST, run_idx, "%s %s", who,
			       ddir_name[d]);
		if (!s)
			return oom(pl);
		json_object_object_foreach(bins, key, val)
		{
			char *end;
			double ns, n;

			errno = 0;
			ns = strtod(key, &end);
			if (errno || *end || end == key || !(ns >= 0) ||
			    cj_num(val, &n) || !(n >= 0)) {
				set_err(pl,
					"%s: jobs[%zu].%s.clat_ns.bins: "
					"\"%.40s\" is not a latency with a "
					"count",
					run->path, job_idx, ddir_name[d], key);
				return -1;
			}
			if (add_pt(s, ns / 1000, n))
				return oom(pl);
			total += n;
		}
		qsort(s->p, s->nr, sizeof(*s->p), pt_cmp);
		for (i = 0; i < s->nr; i++)
			s->p[i].y = total > 0 ? s->p[i].y * 100 / total : 0;
	}
	return 0;
}

/* ---- every chart's data from every run ---- */

/* The name a job's logs of a type go under: its option's value, or its
 * job name. */
static const char *log_base(const struct json_object *doc,
			    const struct json_object *job, const char *opt)
{
	const char *base = job_opt(doc, job, opt);

	return base && *base ? base : cj_str(cj_get(job, "jobname"), NULL);
}

/* got[c]: chart c has this job's log lines; dup[c]: an earlier entry of
 * the same name drew them. */
static int log_type_series(struct plot *pl, const struct run *run,
			   unsigned run_idx, size_t job_idx, const char *who,
			   bool got[CH_NR], bool dup[CH_NR])
{
	static const char *const opt[] = { "write_bw_log", "write_iops_log",
					   "write_lat_log", "write_lat_log" };
	static const char *const type[] = { "bw", "iops", "clat", "lat" };
	const struct json_object *doc = final_doc(run);
	const struct json_object *jobs = cj_get(doc, "jobs");
	const struct json_object *job = cj_at(jobs, job_idx);
	struct log l;
	const char *base;
	size_t j;
	int ret = 0, k;

	/* bw, iops, then the latency: clat, or lat when there is no clat */
	for (k = 0; k < 4 && !ret; k++) {
		if (k == 3 && (got[CH_LAT] || dup[CH_LAT]))
			break;
		base = log_base(doc, job, opt[k]);
		/* numjobs=N without group_reporting: N entries of one name,
		 * whose threads' files are all NAME_TYPE.*.log; the first
		 * entry draws them (summed), the others nothing */
		for (j = 0; j < job_idx; j++)
			if (!strcmp(log_base(doc, cj_at(jobs, j), opt[k]),
				    base))
				break;
		if (j < job_idx) {
			dup[k == 0 ? CH_BW : k == 1 ? CH_IOPS : CH_LAT] = true;
			continue;
		}
		memset(&l, 0, sizeof(l));
		ret = find_logs(pl, run, base, type[k], &l);
		if (!ret && l.nr) {
			if (k == 0)
				ret = rate_series(pl, CH_BW, run_idx, who, &l,
						  true);
			else if (k == 1)
				ret = rate_series(pl, CH_IOPS, run_idx, who, &l,
						  false);
			else
				ret = lat_series(pl, run_idx, who, type[k], &l);
			got[k == 0 ? CH_BW : k == 1 ? CH_IOPS : CH_LAT] = true;
		}
		free(l.e);
	}
	return ret;
}

static int gather_run(struct plot *pl, unsigned run_idx, bool src_log[CH_NR],
		      bool src_status[CH_NR])
{
	const struct run *run = &pl->runs[run_idx];
	const struct json_object *jobs = cj_get(final_doc(run), "jobs");
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
			return oom(pl);
		if (log_type_series(pl, run, run_idx, i, who, got, dup))
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

/* The compare chart's bars: one per row with a change. */
struct bar_ctx {
	FILE *f;
	unsigned nr;
};

/* Bar colours: a regression past the threshold, worse, better (both
 * beyond noise or from a single run), noise. */
#define COL_REGRESSION 0xb2182b
#define COL_WORSE 0xef8a62
#define COL_BETTER 0x1a9850
#define COL_NOISE 0xaaaaaa

static int bar_row(const struct cmp_row *row, void *arg)
{
	struct bar_ctx *bx = arg;
	bool higher_better = row->metric == CMP_IOPS || row->metric == CMP_BW;
	bool worse = higher_better ? row->pct < 0 : row->pct > 0;
	char label[LABEL_MAX];
	unsigned col;

	if (!row->have_pct)
		return 0;
	col = row->regression	? COL_REGRESSION :
	      !row->significant ? COL_NOISE :
	      worse		? COL_WORSE :
				  COL_BETTER;
	if (row->job->ordinal)
		snprintf(label, sizeof(label), "%s#%u %s %s", row->job->name,
			 row->job->ordinal + 1, cmp_dir_name(row->dir),
			 cmp_metric_key(row->metric));
	else
		snprintf(label, sizeof(label), "%s %s %s", row->job->name,
			 cmp_dir_name(row->dir), cmp_metric_key(row->metric));
	clean_label(label);
	fprintf(bx->f, "%u %.9g %u \"%s\"\n", bx->nr++, row->pct, col, label);
	return 0;
}

/* ---- gnuplot ---- */

static int write_series(struct plot *pl, const struct series *s, char *path,
			size_t len)
{
	FILE *f;
	size_t i;

	snprintf(path, len, "%s/d%u.dat", pl->tmpdir, pl->nr_files++);
	f = fopen(path, "w");
	if (!f) {
		set_err(pl, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < s->nr; i++)
		fprintf(f, "%.9g %.9g\n", s->p[i].x, s->p[i].y);
	if (ferror(f) | fclose(f)) {
		set_err(pl, "%s: write error", path);
		return -1;
	}
	return 0;
}

/* s as a gnuplot single-quoted string ('' is a quote in one) */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static void gp_begin(struct plot *pl, FILE *f, enum chart ch)
{
	char out[PATH_MAX + 32];

	snprintf(out, sizeof(out), "%s/%s.svg", pl->tmpdir, chart_id[ch]);
	/* no title: the page's heading above the chart is its title */
	fputs("reset\nset output ", f);
	gp_str(f, out);
	fputs("\nset grid\nset border 3\nset xtics nomirror\n"
	      "set ytics nomirror\nset key below\n",
	      f);
}

/* A chart of lines over time (or latency, for the histogram). */
static int gp_lines(struct plot *pl, FILE *f, enum chart ch)
{
	static const char *const ylabel[CH_NR] = {
		"IOPS", "MiB/s", "completion latency (us)", "% of I/Os", "",
	};
	struct chart_data *cd = &pl->ch[ch];
	char path[PATH_MAX + 32];
	size_t i;

	gp_begin(pl, f, ch);
	if (ch == CH_HIST)
		fputs("set logscale x\nset xlabel 'completion latency (us)'\n"
		      "set format x '%g'\n",
		      f);
	else
		fputs("set xlabel 'time (s)'\nset yrange [0:*]\n", f);
	if (ch == CH_IOPS || ch == CH_BW)
		fputs("set format y '%.1s%c'\n", f);
	fputs("set ylabel ", f);
	gp_str(f, ylabel[ch]);
	fputs("\nplot ", f);
	for (i = 0; i < cd->nr; i++) {
		const struct series *s = &cd->s[i];

		if (write_series(pl, s, path, sizeof(path)))
			return -1;
		if (i)
			fputs(", \\\n  ", f);
		gp_str(f, path);
		fprintf(f, " using 1:2 with %s lw 1.5 dt %u title ",
			ch == CH_HIST ? "steps" : "lines", s->run_idx % 5 + 1);
		gp_str(f, s->label);
	}
	fputs("\nunset output\n", f);
	return 0;
}

static int gp_compare(struct plot *pl, FILE *f)
{
	struct bar_ctx bx = { NULL, 0 };
	char path[PATH_MAX + 32], title[128];
	int ret;

	snprintf(path, sizeof(path), "%s/d%u.dat", pl->tmpdir, pl->nr_files++);
	bx.f = fopen(path, "w");
	if (!bx.f) {
		set_err(pl, "%s: %s", path, strerror(errno));
		return -1;
	}
	ret = cmp_rows(pl->cmps, pl->nr_base, pl->cmps + pl->nr_base,
		       pl->nr_runs - pl->nr_base, pl->threshold, bar_row, &bx,
		       pl->err, sizeof(pl->err));
	if (ferror(bx.f) | fclose(bx.f)) {
		set_err(pl, "%s: write error", path);
		return -1;
	}
	if (ret < 0)
		return -1;
	if (!bx.nr)
		return 0;
	gp_begin(pl, f, CH_CMP);
	fprintf(f,
		"set style fill solid 0.85 border -1\nset boxwidth 0.7\n"
		"set xrange [-0.5:%u.5]\nset xtics rotate by -40 font ',9'\n"
		"set xzeroaxis lt -1\nset ylabel 'change, new against base "
		"(%%)'\nunset xlabel\n",
		bx.nr - 1);
	if (pl->nr_base >= 2 && pl->nr_runs - pl->nr_base >= 2)
		snprintf(title, sizeof(title),
			 "change per metric; noise: Welch's t-test, 95 %%");
	else
		snprintf(title, sizeof(title),
			 "change per metric (1 run a side: not tested "
			 "against noise)");
	fputs("set title ", f);
	gp_str(f, title);
	fputs("\nplot ", f);
	gp_str(f, path);
	fprintf(f,
		" using 1:2:3:xtic(4) with boxes lc rgb variable notitle, \\\n"
		"  NaN with boxes lc rgb '#%06x' title 'regression (past the "
		"threshold)', \\\n"
		"  NaN with boxes lc rgb '#%06x' title 'worse', \\\n"
		"  NaN with boxes lc rgb '#%06x' title 'better', \\\n"
		"  NaN with boxes lc rgb '#%06x' title 'noise'\n"
		"unset output\n",
		COL_REGRESSION, COL_WORSE, COL_BETTER, COL_NOISE);
	pl->ch[CH_CMP].drawn = true;
	return 0;
}

/* Is there an executable name in one of PATH's directories? */
static bool in_path(const char *name)
{
	const char *p = getenv("PATH"), *colon;
	char buf[PATH_MAX];
	int n;

	if (!p || !*p)
		return false;
	for (;;) {
		colon = strchr(p, ':');
		n = snprintf(buf, sizeof(buf), "%.*s/%s",
			     (int)(colon ? (size_t)(colon - p) : strlen(p)), p,
			     name);
		if (n > 0 && (size_t)n < sizeof(buf) && !access(buf, X_OK))
			return true;
		if (!colon)
			return false;
		p = colon + 1;
	}
}

static int run_gnuplot(struct plot *pl, const char *script)
{
	char errpath[PATH_MAX + 32], line[256] = "";
	int status, fd;
	pid_t pid;
	FILE *f;

	snprintf(errpath, sizeof(errpath), "%s/gnuplot.err", pl->tmpdir);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		set_err(pl, "%s: %s", errpath, strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(fd);
		set_err(pl, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		int in = open("/dev/null", O_RDONLY);

		if (in < 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 ||
		    dup2(fd, 2) < 0)
			_exit(126);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	close(fd);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			set_err(pl, "waitpid: %s", strerror(errno));
			return -1;
		}
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	/* its first line that says something */
	f = fopen(errpath, "r");
	while (f && fgets(line, sizeof(line), f))
		if (line[strspn(line, " \t\r\n^")])
			break;
	if (f)
		fclose(f);
	line[strcspn(line, "\r\n")] = 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		set_err(pl, "gnuplot could not be run (Debian: apt install "
			    "gnuplot-nox)");
	else
		set_err(pl, "gnuplot failed (%s %d): %s",
			WIFEXITED(status) ? "status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) :
					    WTERMSIG(status),
			line[0] ? line : "(no message)");
	return -1;
}

static int draw(struct plot *pl)
{
	char script[PATH_MAX + 32];
	FILE *f;
	int c, ret = 0;

	snprintf(script, sizeof(script), "%s/plot.gp", pl->tmpdir);
	f = fopen(script, "w");
	if (!f) {
		set_err(pl, "%s: %s", script, strerror(errno));
		return -1;
	}
	/* noenhanced: job names are text, not gnuplot markup */
	fputs("set terminal svg size 960,460 dynamic noenhanced "
	      "font 'Sans,11' background rgb 'white'\n",
	      f);
	for (c = CH_IOPS; c <= CH_HIST && !ret; c++)
		if (pl->ch[c].nr)
			ret = gp_lines(pl, f, (enum chart)c);
	if (!ret && pl->two_sides)
		ret = gp_compare(pl, f);
	if (ferror(f) | fclose(f)) {
		if (!ret)
			set_err(pl, "%s: write error", script);
		return -1;
	}
	if (ret)
		return -1;
	return run_gnuplot(pl, script);
}

/* ---- the page ---- */

/*
 * Copy gnuplot's SVG into the page: from its <svg> element on (no XML
 * prologue or doctype inside HTML), with every id (and each reference to
 * one) prefixed by the chart's so that several charts on one page keep
 * their own clip paths and markers, and the chart's id on the element.
 */
static int embed_svg(struct plot *pl, FILE *out, enum chart ch)
{
	static const char *const ref[] = { " id=\"", " id='", "url(#",
					   "href=\"#", "href='#" };
	char path[PATH_MAX + 32];
	char *text = NULL, *p, *svg;
	size_t len, i;

	snprintf(path, sizeof(path), "%s/%s.svg", pl->tmpdir, chart_id[ch]);
	if (cj_read_file(path, &text, &len, pl->err, sizeof(pl->err))) {
		set_err(pl,
			"gnuplot wrote no %s.svg (gnuplot-nox without its "
			"svg terminal?)",
			chart_id[ch]);
		return -1;
	}
	svg = strstr(text, "<svg");
	if (!svg || !strstr(svg, "</svg>")) {
		set_err(pl, "gnuplot's %s.svg has no <svg> element",
			chart_id[ch]);
		free(text);
		return -1;
	}
	fprintf(out, "<svg id=\"%s\"", chart_id[ch]);
	for (p = svg + 4; *p;) {
		/* the chart's own name for a tooltip, not "Gnuplot" */
		if (!strncmp(p, "<title>Gnuplot</title>", 22)) {
			fprintf(out, "<title>%s</title>", chart_title[ch]);
			p += 22;
			continue;
		}
		for (i = 0; i < sizeof(ref) / sizeof(ref[0]); i++)
			if (!strncmp(p, ref[i], strlen(ref[i])))
				break;
		if (i < sizeof(ref) / sizeof(ref[0])) {
			fprintf(out, "%s%s-", ref[i], chart_id[ch]);
			p += strlen(ref[i]);
		} else {
			fputc(*p++, out);
		}
	}
	fputc('\n', out);
	free(text);
	return 0;
}

static void page_head(struct plot *pl, FILE *f)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n<title>",
	      f);
	cmp_xml_str(f, pl->title, true);
	fputs("</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:1.5em auto;max-width:1040px;"
	      "padding:0 1em;color:#222}\n"
	      "h1{font-size:1.5em}\n"
	      "h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid "
	      "#ccc}\n"
	      "table{border-collapse:collapse;font-size:.9em}\n"
	      "td,th{border:1px solid #ccc;padding:.2em .5em;"
	      "text-align:right}\n"
	      "th{background:#f3f3f3}\ntd.l,th.l{text-align:left}\n"
	      "figure{margin:0}\nfigcaption{color:#555;font-size:.9em}\n"
	      "svg{max-width:100%;height:auto}\n"
	      "pre{background:#f6f6f6;padding:.6em;overflow-x:auto;"
	      "font-size:.8em}\n"
	      "p.none{color:#777;font-style:italic}\n"
	      "</style>\n</head>\n<body>\n<h1>",
	      f);
	cmp_xml_str(f, pl->title, true);
	fputs("</h1>\n", f);
}

static void td_num(FILE *f, const struct cmp_dir_vals *dv, int metric,
		   double scale, int decimals)
{
	fputs("<td>", f);
	if (dv->have[metric])
		fprintf(f, "%.*f", decimals, dv->val[metric] * scale);
	else
		fputs("-", f);
	fputs("</td>", f);
}

static void page_runs(struct plot *pl, FILE *f)
{
	size_t r, i;
	int d;

	fputs("<h2>Runs</h2>\n<table id=\"runs\">\n<tr><th class=\"l\">run"
	      "</th><th class=\"l\">side</th><th class=\"l\">report</th>"
	      "<th class=\"l\">job</th><th class=\"l\">dir</th><th>IOPS</th>"
	      "<th>MiB/s</th><th>clat mean (us)</th><th>clat p99 (us)</th>"
	      "<th>clat p99.99 (us)</th></tr>\n",
	      f);
	for (r = 0; r < pl->nr_runs; r++) {
		const struct run *run = &pl->runs[r];
		const char *ver =
			cj_str(cj_get(final_doc(run), "fio version"), NULL);

		for (i = 0; i < pl->cmps[r].nr_jobs; i++) {
			const struct cmp_job *j = &pl->cmps[r].jobs[i];

			for (d = 0; d < CMP_NR_DIRS; d++) {
				const struct cmp_dir_vals *dv = &j->dir[d];

				if (!dv->io)
					continue;
				fputs("<tr><td class=\"l\">", f);
				cmp_xml_str(f, run->label, true);
				fprintf(f, "</td><td class=\"l\">%s</td>",
					!pl->two_sides	? "-" :
					r < pl->nr_base ? "base" :
							  "new");
				fputs("<td class=\"l\">", f);
				cmp_xml_str(f, run->path, true);
				if (ver) {
					fputs(" (", f);
					cmp_xml_str(f, ver, true);
					fputs(")", f);
				}
				fputs("</td><td class=\"l\">", f);
				cmp_xml_str(f, j->name, true);
				fprintf(f, "</td><td class=\"l\">%s</td>",
					cmp_dir_name(d));
				td_num(f, dv, CMP_IOPS, 1, 0);
				td_num(f, dv, CMP_BW, 1.0 / (1024 * 1024), 2);
				td_num(f, dv, CMP_CLAT_MEAN, 1e-3, 3);
				td_num(f, dv, CMP_CLAT_P99, 1e-3, 3);
				td_num(f, dv, CMP_CLAT_P9999, 1e-3, 3);
				fputs("</tr>\n", f);
			}
		}
	}
	fputs("</table>\n", f);
}

static int page_chart(struct plot *pl, FILE *f, enum chart ch,
		      const char *why_none)
{
	struct chart_data *cd = &pl->ch[ch];

	fputs("<h2>", f);
	cmp_xml_str(f, chart_title[ch], true);
	fputs("</h2>\n", f);
	if (!cd->drawn) {
		fprintf(f, "<p class=\"none\" id=\"%s-none\">", chart_id[ch]);
		cmp_xml_str(f, why_none, true);
		fputs("</p>\n", f);
		return 0;
	}
	fputs("<figure>\n", f);
	if (embed_svg(pl, f, ch))
		return -1;
	if (cd->src[0]) {
		fputs("<figcaption>", f);
		cmp_xml_str(f, cd->src, true);
		fputs("</figcaption>\n", f);
	}
	fputs("</figure>\n", f);
	return 0;
}

static int write_page(struct plot *pl, FILE *f)
{
	static const char *const none[CH_NR] = {
		"No data over time: no iops log (--write_iops_log) beside the "
		"report and no --status-interval reports in it.",
		"No data over time: no bw log (--write_bw_log) beside the "
		"report and no --status-interval reports in it.",
		"No data over time: no clat or lat log (--write_lat_log) "
		"beside the report and no --status-interval reports in it.",
		"No clat_ns bins: the report is not json+ "
		"(--output-format=json+).",
		"No change to draw: no job did I/O on both sides.",
	};
	size_t r;
	int c;

	page_head(pl, f);
	fprintf(f, "<p>mqblk plot of %zu run%s:", pl->nr_runs,
		pl->nr_runs == 1 ? "" : "s");
	for (r = 0; r < pl->nr_runs; r++) {
		fputs(r ? ", " : " ", f);
		cmp_xml_str(f, pl->runs[r].path, true);
	}
	fputs(pl->two_sides ? " (base, then new)." : ".", f);
	if (pl->nr_runs > 1)
		fputs(" One dash style per run.", f);
	fputs("</p>\n", f);
	page_runs(pl, f);
	for (c = CH_IOPS; c <= CH_HIST; c++)
		if (page_chart(pl, f, (enum chart)c, none[c]))
			return -1;
	if (pl->two_sides) {
		if (page_chart(pl, f, CH_CMP, none[CH_CMP]))
			return -1;
		fputs("<pre id=\"compare-table\">", f);
		cmp_xml_str(f, pl->cmp_text ? pl->cmp_text : "", true);
		fputs("</pre>\n", f);
	}
	fputs("</body>\n</html>\n", f);
	return 0;
}

/* ---- the command ---- */

static void plot_usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk plot [-o PAGE.html] [--title TEXT] [--threshold "
		"PCT]\n"
		"                  [--log-dir DIR]\n"
		"                  RUN.json[,RUN2.json...] "
		"[NEW.json[,NEW2.json...]]\n"
		"\n"
		"One self-contained HTML page (SVG inline, no script) of charts\n"
		"drawn by gnuplot from fio or mqblk bench JSON reports (json or\n"
		"json+) and the logs beside them:\n"
		"  IOPS and bandwidth over time   the iops and bw logs\n"
		"                                 (--write_iops_log, "
		"--write_bw_log)\n"
		"  latency percentiles over time  the clat log, or the lat log\n"
		"                                 (--write_lat_log): p50, p99,\n"
		"                                 p99.9 per interval, or the\n"
		"                                 --log_avg_msec window means\n"
		"  without logs, the same from the --status-interval reports\n"
		"  in the file (rates between reports, cumulative "
		"percentiles)\n"
		"  the clat distribution          json+'s clat_ns bins\n"
		"  base against new               given two sides, what mqblk\n"
		"                                 compare says, drawn, and its\n"
		"                                 table\n"
		"Every run is drawn on the same charts, one dash style each.\n"
		"A job's logs are looked for in the report's directory, under\n"
		"the name its write_*_log option gives (or its job name):\n"
		"NAME_bw.N.log, NAME_iops.N.log, NAME_clat.N.log, "
		"NAME_lat.N.log\n"
		"(or without .N).\n"
		"\n"
		"options:\n"
		"  -o, --output PAGE  the page (default mqblk-plot.html);\n"
		"                     written whole or not at all\n"
		"  --title TEXT       the page's title\n"
		"  --log-dir DIR      look for every run's logs in DIR, not\n"
		"                     beside its report\n"
		"  --threshold PCT    as mqblk compare's: a regression past it\n"
		"                     is drawn as one\n"
		"  -h, --help         this text\n"
		"\n"
		"Needs gnuplot (Debian: gnuplot-nox). Exit status 0, or 1 with\n"
		"one line on stderr.\n");
}

/* Split a comma-separated side and load each run. */
static int load_side(struct plot *pl, char *list)
{
	char *p = list, *comma;
	struct cmp_run *cr;
	struct run *r;

	for (;;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = 0;
		if (!*p) {
			set_err(pl, "empty file name in a run list");
			return -1;
		}
		r = realloc(pl->runs, (pl->nr_runs + 1) * sizeof(*r));
		if (r)
			pl->runs = r;
		cr = r ? realloc(pl->cmps, (pl->nr_runs + 1) * sizeof(*cr)) :
			 NULL;
		if (!cr)
			return oom(pl);
		pl->cmps = cr;
		pl->nr_runs++;
		if (load_run(pl, &pl->runs[pl->nr_runs - 1],
			     &pl->cmps[pl->nr_runs - 1], p))
			return -1;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static void rm_tmpdir(struct plot *pl)
{
	struct dirent *de;
	char path[PATH_MAX * 2];
	DIR *d;

	if (!pl->tmpdir[0])
		return;
	d = opendir(pl->tmpdir);
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", pl->tmpdir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(pl->tmpdir);
	pl->tmpdir[0] = 0;
}

static void set_sources(struct plot *pl, const bool src_log[CH_NR],
			const bool src_status[CH_NR])
{
	int c;

	for (c = CH_IOPS; c <= CH_LAT; c++) {
		if (src_log[c] && src_status[c])
			snprintf(pl->ch[c].src, sizeof(pl->ch[c].src),
				 "From the logs beside the reports and, for "
				 "runs without, their --status-interval "
				 "reports.");
		else if (src_log[c])
			snprintf(pl->ch[c].src, sizeof(pl->ch[c].src),
				 "From the logs beside the reports.");
		else if (src_status[c])
			snprintf(pl->ch[c].src, sizeof(pl->ch[c].src),
				 "From the reports' --status-interval "
				 "reports (%s).",
				 c == CH_LAT ? "percentiles since the start" :
					       "rates between reports");
	}
	snprintf(pl->ch[CH_HIST].src, sizeof(pl->ch[CH_HIST].src),
		 "json+ clat_ns bins: the share of I/Os in each of fio's "
		 "histogram buckets (1/64 of a power of two wide).");
	snprintf(pl->ch[CH_CMP].src, sizeof(pl->ch[CH_CMP].src),
		 "The change of each metric, new against base (means over "
		 "each side's runs); the table is mqblk compare's.");
}

static int make_page(struct plot *pl)
{
	bool src_log[CH_NR] = { false }, src_status[CH_NR] = { false };
	const char *tmpbase = getenv("TMPDIR");
	char tmp_out[PATH_MAX];
	FILE *mem, *f;
	unsigned r;
	int c, n;

	for (r = 0; r < pl->nr_runs; r++)
		if (gather_run(pl, r, src_log, src_status))
			return -1;
	set_sources(pl, src_log, src_status);
	if (pl->two_sides) {
		mem = open_memstream(&pl->cmp_text, &pl->cmp_text_len);
		if (!mem)
			return oom(pl);
		pl->nr_regressions = cmp_report(mem, pl->cmps, pl->nr_base,
						pl->cmps + pl->nr_base,
						pl->nr_runs - pl->nr_base,
						pl->threshold, pl->err,
						sizeof(pl->err));
		if (fclose(mem) && pl->nr_regressions >= 0)
			return oom(pl);
		if (pl->nr_regressions < 0)
			return -1;
	}

	if (!in_path("gnuplot")) {
		set_err(pl, "gnuplot not found in PATH (Debian: apt install "
			    "gnuplot-nox)");
		return -1;
	}
	n = snprintf(pl->tmpdir, sizeof(pl->tmpdir), "%s/mqblk-plot.XXXXXX",
		     tmpbase && *tmpbase ? tmpbase : "/tmp");
	if (n < 0 || (size_t)n >= sizeof(pl->tmpdir) || !mkdtemp(pl->tmpdir)) {
		set_err(pl, "cannot make a temporary directory: %s",
			strerror(errno));
		pl->tmpdir[0] = 0;
		return -1;
	}
	if (draw(pl))
		return -1;
	for (c = CH_IOPS; c <= CH_HIST; c++)
		pl->ch[c].drawn = pl->ch[c].nr > 0;

	n = snprintf(tmp_out, sizeof(tmp_out), "%s.tmp", pl->out_path);
	if (n < 0 || (size_t)n >= sizeof(tmp_out)) {
		set_err(pl, "%s: name too long", pl->out_path);
		return -1;
	}
	f = fopen(tmp_out, "w");
	if (!f) {
		set_err(pl, "cannot write %s: %s", tmp_out, strerror(errno));
		return -1;
	}
	if (write_page(pl, f)) {
		fclose(f);
		unlink(tmp_out);
		return -1;
	}
	if (ferror(f) | fclose(f)) {
		set_err(pl, "writing %s failed", tmp_out);
		unlink(tmp_out);
		return -1;
	}
	if (rename(tmp_out, pl->out_path)) {
		set_err(pl, "cannot rename %s to %s: %s", tmp_out, pl->out_path,
			strerror(errno));
		unlink(tmp_out);
		return -1;
	}
	return 0;
}

int plot_cmd(int argc, char **argv)
{
	struct plot pl = { .threshold = -1, .out_path = "mqblk-plot.html" };
	char *pos[2] = { NULL, NULL };
	const char *tval = NULL;
	int i, nr_pos = 0, ret = 1, c;
	size_t s, r;
	bool opts_done = false;

	for (i = 1; i < argc; i++) {
		char *a = argv[i];

		if (!opts_done && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
			plot_usage(stdout);
			return 0;
		}
		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done &&
			   (!strcmp(a, "-o") || !strcmp(a, "--output") ||
			    !strcmp(a, "--title") ||
			    !strcmp(a, "--threshold") ||
			    !strcmp(a, "--log-dir"))) {
			if (i + 1 >= argc) {
				fprintf(stderr,
					"mqblk plot: %s needs a value\n", a);
				return 1;
			}
			if (!strcmp(a, "--title"))
				pl.title = argv[++i];
			else if (!strcmp(a, "--threshold"))
				tval = argv[++i];
			else if (!strcmp(a, "--log-dir"))
				pl.log_dir = argv[++i];
			else
				pl.out_path = argv[++i];
		} else if (!opts_done && !strncmp(a, "--output=", 9)) {
			pl.out_path = a + 9;
		} else if (!opts_done && !strncmp(a, "--title=", 8)) {
			pl.title = a + 8;
		} else if (!opts_done && !strncmp(a, "--threshold=", 12)) {
			tval = a + 12;
		} else if (!opts_done && !strncmp(a, "--log-dir=", 10)) {
			pl.log_dir = a + 10;
		} else if (!opts_done && a[0] == '-' && a[1]) {
			fprintf(stderr,
				"mqblk plot: unknown option '%s' (try mqblk "
				"plot --help)\n",
				a);
			return 1;
		} else if (nr_pos < 2) {
			pos[nr_pos++] = a;
		} else {
			fprintf(stderr,
				"mqblk plot: one more argument than BASE and "
				"NEW: '%s' (several runs of a side: "
				"A.json,B.json)\n",
				a);
			return 1;
		}
	}
	if (tval && cmp_parse_threshold(tval, &pl.threshold)) {
		fprintf(stderr,
			"mqblk plot: bad --threshold '%s' (want a percentage "
			"like 5%% or 5)\n",
			tval);
		return 1;
	}
	if (!nr_pos) {
		fprintf(stderr, "mqblk plot: want RUN.json[,...] "
				"[NEW.json[,...]] (try mqblk plot --help)\n");
		return 1;
	}
	/* with one side there is no compare for it to act on: refused, not
	 * dropped without a word */
	if (tval && nr_pos < 2) {
		fprintf(stderr,
			"mqblk plot: --threshold needs two sides, BASE and "
			"NEW (one given: nothing to compare)\n");
		return 1;
	}
	if (!*pl.out_path) {
		fprintf(stderr, "mqblk plot: -o needs a file name\n");
		return 1;
	}
	if (pl.log_dir) {
		struct stat st;

		if (stat(pl.log_dir, &st)) {
			fprintf(stderr, "mqblk plot: --log-dir %s: %s\n",
				pl.log_dir, strerror(errno));
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			fprintf(stderr,
				"mqblk plot: --log-dir %s: not a directory\n",
				pl.log_dir);
			return 1;
		}
	}
	if (load_side(&pl, pos[0]))
		goto out;
	pl.nr_base = pl.nr_runs;
	if (nr_pos == 2) {
		pl.two_sides = true;
		if (load_side(&pl, pos[1]))
			goto out;
	}
	if (!pl.title)
		pl.title = pl.two_sides ? "mqblk plot: base against new" :
					  "mqblk plot";
	if (make_page(&pl))
		goto out;
	printf("%s\n", pl.out_path);
	ret = 0;

out:
	if (ret)
		fprintf(stderr, "mqblk plot: %s\n", pl.err);
	rm_tmpdir(&pl);
	for (r = 0; r < pl.nr_runs; r++) {
		free_run(&pl.runs[r]);
		cmp_run_free(&pl.cmps[r]);
	}
	free(pl.runs);
	free(pl.cmps);
	for (c = 0; c < CH_NR; c++) {
		for (s = 0; s < pl.ch[c].nr; s++)
			free(pl.ch[c].s[s].p);
		free(pl.ch[c].s);
	}
	free(pl.cmp_text);
	return ret;
}
