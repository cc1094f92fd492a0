// SPDX-License-Identifier: MIT
/*
 * mqblk plot: fio's bw, iops and lat logs found beside a report and read
 * into the IOPS, bandwidth and latency series.
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

/* per-I/O log entries are counted in about this many intervals */
#define TIME_BINS 120
/* a log line longer than this is not one fio writes */
#define LOG_LINE_MAX 512

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
		plot_set_err(pl, "%s: %s", path, strerror(errno));
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
				return plot_oom(pl);
			}
			l->e = ne;
			l->cap = cap;
		}
		l->e[l->nr++] = e;
	}
	if (ferror(f)) {
		plot_set_err(pl, "%s: read error", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	l->nr_files++;
	return 0;

bad_line:
	plot_set_err(pl,
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

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
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
		s = plot_new_series(pl, ch, run_idx, "%s %s", who,
				    plot_ddir_name[d]);
		if (!s)
			return plot_oom(pl);
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
				if (plot_add_pt(s, (double)t / 1000, sum))
					return plot_oom(pl);
			} else if (plot_add_pt(s,
					       ((double)t + 0.5) * (double)w /
						       1000,
					       sum * 1000 / (double)w)) {
				return plot_oom(pl);
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
			s[0] = plot_new_series(pl, CH_LAT, run_idx,
					       "%s %s %s window mean", who,
					       plot_ddir_name[d], type);
			if (!s[0])
				goto out_oom;
			for (k = i; k < j; k++)
				if (plot_add_pt(s[0],
						(double)l->e[k].t_ms / 1000,
						l->e[k].val / 1000))
					goto out_oom;
			qsort(s[0]->p, s[0]->nr, sizeof(*s[0]->p), plot_pt_cmp);
			continue;
		}
		for (q = 0; q < 3; q++) {
			s[q] = plot_new_series(pl, CH_LAT, run_idx,
					       "%s %s %s %s", who,
					       plot_ddir_name[d], type,
					       pname[q]);
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

				if (plot_add_pt(s[q],
						((double)t + 0.5) * (double)w /
							1000,
						v[r ? r - 1 : 0] / 1000))
					goto out_oom;
			}
		}
	}
	free(v);
	return 0;

out_oom:
	free(v);
	return plot_oom(pl);
}

/* ---- a job's logs, each type ---- */

/* The name a job's logs of a type go under: its option's value, or its
 * job name. */
static const char *log_base(const struct json_object *doc,
			    const struct json_object *job, const char *opt)
{
	const char *base = plot_job_opt(doc, job, opt);

	return base && *base ? base : cj_str(cj_get(job, "jobname"), NULL);
}

/* got[c]: chart c has this job's log lines; dup[c]: an earlier entry of
 * the same name drew them. */
int plot_log_type_series(struct plot *pl, const struct run *run,
			 unsigned run_idx, size_t job_idx, const char *who,
			 bool got[CH_NR], bool dup[CH_NR])
{
	static const char *const opt[] = { "write_bw_log", "write_iops_log",
					   "write_lat_log", "write_lat_log" };
	static const char *const type[] = { "bw", "iops", "clat", "lat" };
	const struct json_object *doc = plot_final_doc(run);
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
