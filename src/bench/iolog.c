// SPDX-License-Identifier: MIT
/*
 * fio's per-job logs: what its iolog.c writes, as its plotting tools
 * (fio_generate_plots, fio2gnuplot) read it. Lines are "time, value,
 * direction, block size, priority" (with --log_offset, the offset before
 * the priority); time in ms since the job started, latencies in ns, bw in
 * KiB/s. With --log_avg_msec a line per direction per window: the mean
 * (or --log_max_value's max) latency at the I/O that closed the window,
 * bw and IOPS over it at its end, block size 0. A histogram line
 * (--write_hist_log, as fio's flush_hist_samples) is "time, direction,
 * block size, " and the clat histogram's buckets, each the I/Os that
 * landed in it since the direction's last line, 2^coarseness buckets
 * summed into one: 1856 >> coarseness numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iolog.h"
#include "stats.h"

static const char *const type_name[IOLOG_NR] = { "bw",	 "iops", "lat",
						 "clat", "slat", "clat_hist" };

bool iolog_wanted(const struct bench_job *job)
{
	return job->bw_log || job->lat_log || job->iops_log || job->hist_log;
}

static const char *type_base(const struct bench_job *job, enum iolog_type t)
{
	const char *n = t == IOLOG_BW	? job->bw_log :
			t == IOLOG_IOPS ? job->iops_log :
			t == IOLOG_HIST ? job->hist_log :
					  job->lat_log;

	return n && *n ? n : job->name;
}

static bool type_on(const struct bench_job *job, enum iolog_type t)
{
	return t == IOLOG_BW   ? job->bw_log != NULL :
	       t == IOLOG_IOPS ? job->iops_log != NULL :
	       t == IOLOG_HIST ? job->hist_log != NULL :
				 job->lat_log != NULL;
}

int iolog_init(struct iolog_set *ls, const struct bench_job *job)
{
	int t;

	memset(ls, 0, sizeof(*ls));
	ls->job = job;
	ls->avg_ns = (uint64_t)job->log_avg_msec * 1000000ull;
	ls->hist_ms = job->log_hist_msec;
	for (t = 0; t < IOLOG_NR; t++)
		ls->on[t] = type_on(job, (enum iolog_type)t);
	return 0;
}

void iolog_free(struct iolog_set *ls)
{
	int t;

	for (t = 0; t < IOLOG_NR; t++)
		free(ls->log[t].e);
	free(ls->hist_prev);
	free(ls->hist_vals);
	memset(ls, 0, sizeof(*ls));
}

static void add(struct iolog_set *ls, enum iolog_type t, uint64_t t_ms,
		uint64_t val, enum bench_ddir d, uint64_t bs, uint64_t off)
{
	struct iolog *l = &ls->log[t];

	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		struct iolog_entry *e = realloc(l->e, cap * sizeof(*e));

		if (!e) {
			ls->nomem = true;
			return;
		}
		l->e = e;
		l->cap = cap;
	}
	l->e[l->nr++] = (struct iolog_entry){ t_ms, val, bs, off, (uint8_t)d };
}

/* The directions the job does I/O in (fio logs a window for each). */
static bool ddir_in_job(const struct bench_job *job, int d)
{
	switch (job->rw) {
	case RW_READ:
	case RW_RANDREAD:
		return d == DDIR_READ;
	case RW_WRITE:
	case RW_RANDWRITE:
		return d == DDIR_WRITE;
	case RW_TRIM:
	case RW_RANDTRIM:
		return d == DDIR_TRIM;
	default:
		return d != DDIR_TRIM;
	}
}

/* Close every window that ended by rel_ns. */
static void close_windows(struct iolog_set *ls, uint64_t rel_ns)
{
	const struct bench_job *job = ls->job;
	uint64_t avg_ms = job->log_avg_msec;
	int d, k;

	while (rel_ns - ls->win_start_ns >= ls->avg_ns) {
		uint64_t end_ms = (ls->win_start_ns + ls->avg_ns) / 1000000;

		for (d = 0; d < DDIR_NR; d++) {
			if (!ddir_in_job(job, d))
				continue;
			if (ls->on[IOLOG_BW])
				add(ls, IOLOG_BW, end_ms,
				    ls->w_bytes[d] * 1000 / avg_ms / 1024,
				    (enum bench_ddir)d, 0, 0);
			if (ls->on[IOLOG_IOPS])
				add(ls, IOLOG_IOPS, end_ms,
				    ls->w_ios[d] * 1000 / avg_ms,
				    (enum bench_ddir)d, 0, 0);
			ls->w_bytes[d] = ls->w_ios[d] = 0;
			/* latencies: only windows that saw one */
			for (k = 0; k < 3; k++) {
				enum iolog_type t =
					(enum iolog_type)(IOLOG_LAT + k);

				if (ls->on[t] && ls->w_nr[k][d])
					add(ls, t, rel_ns / 1000000,
					    job->log_max_value ?
						    ls->w_max[k][d] :
						    ls->w_sum[k][d] /
							    ls->w_nr[k][d],
					    (enum bench_ddir)d, 0, 0);
				ls->w_sum[k][d] = ls->w_nr[k][d] = 0;
				ls->w_max[k][d] = 0;
			}
		}
		ls->win_start_ns += ls->avg_ns;
	}
}

/*
 * fio's add_clat_sample: a direction's window starts at its first I/O
 * (while that is at 0 ms, at each next one); an I/O at or past
 * log_hist_msec into it logs the histogram's change since the last line
 * and starts the next window where this one should have ended.
 */
static void hist_io(struct iolog_set *ls, uint64_t t_ms, enum bench_ddir d,
		    uint32_t len, const uint64_t *hist)
{
	unsigned stride = 1u << ls->job->log_hist_coarseness;
	size_t n = PLAT_NR / stride, i;
	uint64_t win, *prev, *vals;
	unsigned k;

	if (!ls->hist_last_ms[d])
		ls->hist_last_ms[d] = t_ms;
	win = t_ms - ls->hist_last_ms[d];
	if (win < ls->hist_ms)
		return;
	if (!ls->hist_prev) {
		ls->hist_prev = calloc((size_t)DDIR_NR * PLAT_NR,
				       sizeof(*ls->hist_prev));
		if (!ls->hist_prev) {
			ls->nomem = true;
			return;
		}
	}
	if (ls->cap_vals - ls->nr_vals < n) {
		size_t cap = ls->cap_vals ? ls->cap_vals * 2 : n * 64;

		vals = realloc(ls->hist_vals, cap * sizeof(*vals));
		if (!vals) {
			ls->nomem = true;
			return;
		}
		ls->hist_vals = vals;
		ls->cap_vals = cap;
	}
	prev = ls->hist_prev + (size_t)d * PLAT_NR;
	vals = ls->hist_vals + ls->nr_vals;
	for (i = 0; i < n; i++) {
		uint64_t sum = 0;

		for (k = 0; k < stride; k++)
			sum += hist[i * stride + k] - prev[i * stride + k];
		vals[i] = sum;
	}
	memcpy(prev, hist, PLAT_NR * sizeof(*prev));
	add(ls, IOLOG_HIST, t_ms, ls->nr_vals, d, len, 0);
	ls->nr_vals += n;
	ls->hist_last_ms[d] = t_ms - (win - ls->hist_ms);
}

void iolog_io(struct iolog_set *ls, uint64_t rel_ns, enum bench_ddir d,
	      uint64_t slat_ns, uint64_t clat_ns, uint32_t len, uint64_t off,
	      const uint64_t *clat_hist)
{
	uint64_t v[3] = { slat_ns + clat_ns, clat_ns, slat_ns };
	uint64_t t_ms = rel_ns / 1000000;
	int k;

	if (ls->hist_ms && ls->on[IOLOG_HIST])
		hist_io(ls, t_ms, d, len, clat_hist);

	if (ls->avg_ns) {
		close_windows(ls, rel_ns);
		ls->w_bytes[d] += len;
		ls->w_ios[d]++;
		for (k = 0; k < 3; k++) {
			ls->w_sum[k][d] += v[k];
			ls->w_nr[k][d]++;
			if (v[k] > ls->w_max[k][d])
				ls->w_max[k][d] = v[k];
		}
		return;
	}
	/* an entry per I/O: its latencies, its own bw, one I/O */
	for (k = 0; k < 3; k++)
		if (ls->on[IOLOG_LAT + k])
			add(ls, (enum iolog_type)(IOLOG_LAT + k), t_ms, v[k], d,
			    len, off);
	if (ls->on[IOLOG_BW])
		add(ls, IOLOG_BW, t_ms,
		    v[0] ? (uint64_t)len * 1000000000ull / v[0] / 1024 : 0, d,
		    len, off);
	if (ls->on[IOLOG_IOPS])
		add(ls, IOLOG_IOPS, t_ms, 1, d, len, off);
}

const char *iolog_path(const struct bench_job *job, enum iolog_type type,
		       unsigned thread_nr, char *buf, size_t len)
{
	int n;

	if (job->per_job_logs)
		n = snprintf(buf, len, "%s_%s.%u.log", type_base(job, type),
			     type_name[type], thread_nr + 1);
	else
		n = snprintf(buf, len, "%s_%s.log", type_base(job, type),
			     type_name[type]);
	return n < 0 || (size_t)n >= len ? NULL : buf;
}

/* Each log file of job's threads [first, first + numjobs), once. */
static int for_each_file(const struct bench_job *job, unsigned first,
			 int (*fn)(const char *path, void *arg), void *arg)
{
	char buf[4096];
	unsigned c;
	int t;

	for (t = 0; t < IOLOG_NR; t++) {
		if (!type_on(job, (enum iolog_type)t))
			continue;
		for (c = 0; c < (job->per_job_logs ? job->numjobs : 1); c++) {
			const char *p = iolog_path(job, (enum iolog_type)t,
						   first + c, buf, sizeof(buf));

			if (!p) {
				fprintf(stderr,
					"mqblk: %s: log file name too long\n",
					job->name);
				return -1;
			}
			if (fn(p, arg))
				return -1;
		}
	}
	return 0;
}

struct precreate {
	const struct bench_job *job;
	char **made;
	unsigned nr;
};

static int make_one(const char *path, void *arg)
{
	struct precreate *pc = arg;
	char **m;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "mqblk: %s: cannot write log %s: %s\n",
			pc->job->name, path, strerror(errno));
		return -1;
	}
	close(fd);
	m = realloc(pc->made, (pc->nr + 1) * sizeof(*m));
	if (!m || !(m[pc->nr] = strdup(path))) {
		if (m)
			pc->made = m;
		unlink(path);
		fprintf(stderr, "mqblk: out of memory\n");
		return -1;
	}
	pc->made = m;
	pc->nr++;
	return 0;
}

int iolog_precreate(const struct bench_job *jobs, unsigned nr)
{
	struct precreate pc = { 0 };
	unsigned i, first = 0, k;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		pc.job = &jobs[i];
		if (iolog_wanted(&jobs[i]))
			ret = for_each_file(&jobs[i], first, make_one, &pc);
		first += jobs[i].numjobs;
	}
	for (k = 0; k < pc.nr; k++) {
		if (ret)
			unlink(pc.made[k]);
		free(pc.made[k]);
	}
	free(pc.made);
	return ret;
}

/* fio's flush_hist_samples: no offset or priority, whatever the job's
 * log_offset. */
static void write_hist_line(FILE *f, const struct iolog_set *ls,
			    const struct iolog_entry *e)
{
	size_t n = PLAT_NR >> ls->job->log_hist_coarseness, i;
	const uint64_t *v = ls->hist_vals + e->val;

	fprintf(f, "%llu, %u, %llu, ", (unsigned long long)e->t_ms, e->ddir,
		(unsigned long long)e->bs);
	for (i = 0; i + 1 < n; i++)
		fprintf(f, "%llu, ", (unsigned long long)v[i]);
	fprintf(f, "%llu\n", (unsigned long long)v[n - 1]);
}

int iolog_write(const struct iolog_set *ls, unsigned thread_nr)
{
	const struct bench_job *job = ls->job;
	char buf[4096];
	int t;

	if (ls->nomem)
		fprintf(stderr,
			"mqblk: %s: out of memory for log entries: the logs "
			"end early\n",
			job->name);
	for (t = 0; t < IOLOG_NR; t++) {
		const struct iolog *l = &ls->log[t];
		const char *p;
		FILE *f;
		size_t k;

		if (!ls->on[t])
			continue;
		p = iolog_path(job, (enum iolog_type)t, thread_nr, buf,
			       sizeof(buf));
		f = p ? fopen(p, "a") : NULL;
		if (!f) {
			fprintf(stderr, "mqblk: %s: cannot write log %s: %s\n",
				job->name, p ? p : "(name too long)",
				strerror(errno));
			return -1;
		}
		for (k = 0; k < l->nr; k++) {
			const struct iolog_entry *e = &l->e[k];

			if (t == IOLOG_HIST) {
				write_hist_line(f, ls, e);
				continue;
			}
			if (job->log_offset)
				fprintf(f, "%llu, %llu, %u, %llu, %llu, 0\n",
					(unsigned long long)e->t_ms,
					(unsigned long long)e->val, e->ddir,
					(unsigned long long)e->bs,
					(unsigned long long)e->off);
			else
				fprintf(f, "%llu, %llu, %u, %llu, 0\n",
					(unsigned long long)e->t_ms,
					(unsigned long long)e->val, e->ddir,
					(unsigned long long)e->bs);
		}
		if (ferror(f) | fclose(f)) {
			fprintf(stderr, "mqblk: %s: writing log %s failed\n",
				job->name, p);
			unlink(p);
			return -1;
		}
	}
	return 0;
}
