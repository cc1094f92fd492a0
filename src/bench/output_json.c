// SPDX-License-Identifier: MIT
/*
 * The JSON and JSON+ reports, with fio 3.33's keys, nesting and number
 * formats (stat.c show_thread_status_json / add_ddir_status_json, json.c).
 */
#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "stats.h"

/*
 * A streaming writer laid out as fio's json.c prints its tree: two spaces
 * per level, `"key" : value`, members joined by ",\n", and a container's
 * closing bracket on a line of its own at the indent of its opening line.
 * Deepest use: root > jobs > job > read > clat_ns > percentile.
 */
#define JW_MAX_DEPTH 8

struct jw {
	FILE *f;
	unsigned depth; /* open containers, root included */
	bool has_members[JW_MAX_DEPTH]; /* per open container */
};

static void jw_indent(struct jw *w, unsigned level)
{
	while (level--)
		fputs("  ", w->f);
}

/* JSON string escaping; fio only escapes '"' and '\\', which lets a
 * control character in a job name break the document. */
static void jw_string(struct jw *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', w->f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", w->f);
			break;
		case '\\':
			fputs("\\\\", w->f);
			break;
		case '\n':
			fputs("\\n", w->f);
			break;
		case '\r':
			fputs("\\r", w->f);
			break;
		case '\t':
			fputs("\\t", w->f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(w->f, "\\u%04x", *p);
			else
				fputc(*p, w->f);
		}
	}
	fputc('"', w->f);
}

/* Start a member of the innermost container: separator, indent, key. */
static void jw_member(struct jw *w, const char *key)
{
	unsigned top = w->depth - 1;

	if (w->has_members[top])
		fputs(",\n", w->f);
	w->has_members[top] = true;
	jw_indent(w, w->depth);
	if (key) {
		jw_string(w, key);
		fputs(" : ", w->f);
	}
}

static void jw_open(struct jw *w, const char *key, char bracket)
{
	if (w->depth)
		jw_member(w, key);
	fputc(bracket, w->f);
	fputc('\n', w->f);
	assert(w->depth < JW_MAX_DEPTH);
	w->has_members[w->depth++] = false;
}

static void jw_close(struct jw *w, char bracket)
{
	w->depth--;
	fputc('\n', w->f);
	jw_indent(w, w->depth);
	fputc(bracket, w->f);
}

static void jw_obj_begin(struct jw *w, const char *key)
{
	jw_open(w, key, '{');
}

static void jw_obj_end(struct jw *w)
{
	jw_close(w, '}');
}

static void jw_arr_begin(struct jw *w, const char *key)
{
	jw_open(w, key, '[');
}

static void jw_arr_end(struct jw *w)
{
	jw_close(w, ']');
}

static void jw_uint(struct jw *w, const char *key, uint64_t v)
{
	jw_member(w, key);
	fprintf(w->f, "%" PRIu64, v);
}

static void jw_int(struct jw *w, const char *key, int64_t v)
{
	jw_member(w, key);
	fprintf(w->f, "%" PRId64, v);
}

/* fio prints every double with "%f"; JSON has no NaN or infinity. */
static void jw_double(struct jw *w, const char *key, double v)
{
	jw_member(w, key);
	fprintf(w->f, "%f", isfinite(v) ? v : 0.0);
}

static void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_member(w, key);
	jw_string(w, s ? s : "");
}

/* ---- job options: fio lists the options as typed; we rebuild them ---- */

/* A size as fio reads it back: largest exact 1024-power suffix. */
static void fmt_size(char *buf, size_t len, uint64_t v)
{
	static const char suffix[] = { 'k', 'm', 'g', 't', 'p' };
	unsigned i, pick = 0;

	for (i = 0; i < sizeof(suffix); i++)
		if (v && !(v % (1ull << (10 * (i + 1)))))
			pick = i + 1;
	if (!pick)
		snprintf(buf, len, "%" PRIu64, v);
	else
		snprintf(buf, len, "%" PRIu64 "%c", v >> (10 * pick),
			 suffix[pick - 1]);
}

/* A time as fio reads it back: a bare number is seconds. */
static void fmt_time(char *buf, size_t len, uint64_t ns)
{
	if (!(ns % 1000000000ull))
		snprintf(buf, len, "%" PRIu64, (uint64_t)(ns / 1000000000u));
	else if (!(ns % 1000000ull))
		snprintf(buf, len, "%" PRIu64 "ms", (uint64_t)(ns / 1000000u));
	else if (!(ns % 1000ull))
		snprintf(buf, len, "%" PRIu64 "us", (uint64_t)(ns / 1000u));
	else
		snprintf(buf, len, "%" PRIu64 "ns", ns);
}

static const char *rw_name(enum bench_rw rw)
{
	switch (rw) {
	case RW_READ:
		return "read";
	case RW_WRITE:
		return "write";
	case RW_RANDREAD:
		return "randread";
	case RW_RANDWRITE:
		return "randwrite";
	case RW_RW:
		return "rw";
	case RW_RANDRW:
		return "randrw";
	case RW_TRIM:
		return "trim";
	case RW_RANDTRIM:
		return "randtrim";
	}
	return "read";
}

static void opt_uint(struct jw *w, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	jw_str(w, key, buf);
}

static void opt_flag(struct jw *w, const char *key, bool v, bool dflt)
{
	if (v != dflt)
		jw_str(w, key, v ? "1" : "0");
}

static bool default_percentiles(const struct bench_job *job)
{
	unsigned i, nr = sizeof(bench_default_percentiles) /
			 sizeof(bench_default_percentiles[0]);

	if (!job->nr_percentiles)
		return true;
	if (job->nr_percentiles != nr)
		return false;
	for (i = 0; i < nr; i++)
		if (job->percentiles[i] != bench_default_percentiles[i])
			return false;
	return true;
}

static void opt_percentiles(struct jw *w, const struct bench_job *job)
{
	char buf[BENCH_MAX_PERCENTILES * 24] = "";
	size_t used = 0;
	unsigned i;

	if (default_percentiles(job))
		return;
	for (i = 0; i < job->nr_percentiles && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%g",
					 i ? ":" : "", job->percentiles[i]);
	jw_str(w, "percentile_list", buf);
}

/* One direction of a bssplit or bsrange, as fio parses it back. */
static size_t fmt_mixed(char *buf, size_t len, const struct bench_job *job,
			int d)
{
	char a[32], b[32];
	size_t used = 0;
	unsigned i;

	if (!job->bssplit_nr[d]) {
		fmt_size(a, sizeof(a), job->bs[d]);
		fmt_size(b, sizeof(b), job->bs_max[d]);
		return (size_t)snprintf(buf, len, "%s-%s", a, b);
	}
	for (i = 0; i < job->bssplit_nr[d] && used < len; i++) {
		fmt_size(a, sizeof(a), job->bssplit[d][i].bs);
		used += (size_t)snprintf(buf + used, len - used, "%s%s/%u",
					 i ? ":" : "", a,
					 job->bssplit[d][i].perc);
	}
	return used;
}

/* bsrange / bssplit after bs (which fio would read first), when set. */
static void mixed_bs_options(struct jw *w, const struct bench_job *job)
{
	char buf[3 * BENCH_BSSPLIT_MAX * 32];
	bool split = false, mixed = false;
	size_t used = 0;
	int d;

	for (d = 0; d < DDIR_NR; d++) {
		split |= job->bssplit_nr[d] > 1;
		mixed |= bench_job_bs_mixed(job, (enum bench_ddir)d);
	}
	if (!mixed)
		return;
	for (d = 0; d < DDIR_NR && used < sizeof(buf); d++) {
		if (d)
			buf[used++] = ',';
		if (split && job->bssplit_nr[d] <= 1) {
			/* one size in a split list: itself */
			char a[32];

			fmt_size(a, sizeof(a), job->bs[d]);
			used += (size_t)snprintf(buf + used, sizeof(buf) - used,
						 "%s/100", a);
			continue;
		}
		used += fmt_mixed(buf + used, sizeof(buf) - used, job, d);
	}
	jw_str(w, split ? "bssplit" : "bsrange", buf);
	if (job->bs_is_seq_rand)
		jw_str(w, "bs_is_seq_rand", "1");
}

/*
 * fio's "job options" holds the options as the user typed them. We only
 * have the parsed job, so print the ones that say what ran (name, rw, bs,
 * iodepth) always and the rest when they differ from fio's defaults, in a
 * form fio parses back to the same value.
 */
static void job_options(struct jw *w, const struct job_stats *js)
{
	const struct bench_job *job = js->job;
	char buf[96], b1[32], b2[32], b3[32];

	jw_obj_begin(w, "job options");
	if (!job) {
		jw_str(w, "name", js->name);
		jw_obj_end(w);
		return;
	}
	jw_str(w, "name", job->name);
	if (job->description && job->description[0])
		jw_str(w, "description", job->description);
	/* fio's own jobname files were not given: as fio, no filename;
	 * their directory and size options are */
	if (job->filename && job->target != TARGET_JOBFILES)
		jw_str(w, "filename", job->filename);
	if (job->directory)
		jw_str(w, "directory", job->directory);
	if (job->ioengine)
		jw_str(w, "ioengine", job->ioengine);
	jw_str(w, "rw", rw_name(job->rw));
	if (job->rwmixread != 50)
		opt_uint(w, "rwmixread", job->rwmixread);
	fmt_size(b1, sizeof(b1), job->bs[DDIR_READ]);
	fmt_size(b2, sizeof(b2), job->bs[DDIR_WRITE]);
	fmt_size(b3, sizeof(b3), job->bs[DDIR_TRIM]);
	if (job->bs[DDIR_READ] == job->bs[DDIR_WRITE] &&
	    job->bs[DDIR_READ] == job->bs[DDIR_TRIM])
		jw_str(w, "bs", b1);
	else {
		snprintf(buf, sizeof(buf), "%s,%s,%s", b1, b2, b3);
		jw_str(w, "bs", buf);
	}
	mixed_bs_options(w, job);
	if (job->size) {
		fmt_size(buf, sizeof(buf), job->size);
		jw_str(w, "size", buf);
	}
	if (job->offset) {
		fmt_size(buf, sizeof(buf), job->offset);
		jw_str(w, "offset", buf);
	}
	opt_uint(w, "iodepth", job->iodepth);
	if (job->iodepth_batch_submit != 1)
		opt_uint(w, "iodepth_batch_submit", job->iodepth_batch_submit);
	if (job->iodepth_batch_complete_min != 1)
		opt_uint(w, "iodepth_batch_complete_min",
			 job->iodepth_batch_complete_min);
	if (job->iodepth_batch_complete_max != job->iodepth_batch_complete_min)
		opt_uint(w, "iodepth_batch_complete_max",
			 job->iodepth_batch_complete_max);
	if (job->iodepth_low != job->iodepth)
		opt_uint(w, "iodepth_low", job->iodepth_low);
	if (job->numjobs != 1)
		opt_uint(w, "numjobs", job->numjobs);
	if (job->runtime_ns) {
		fmt_time(buf, sizeof(buf), job->runtime_ns);
		jw_str(w, "runtime", buf);
	}
	if (job->ramp_time_ns) {
		fmt_time(buf, sizeof(buf), job->ramp_time_ns);
		jw_str(w, "ramp_time", buf);
	}
	opt_flag(w, "time_based", job->time_based, false);
	opt_flag(w, "hipri", job->hipri, false);
	opt_flag(w, "direct", job->direct, false);
	opt_flag(w, "thread", job->thread, false);
	opt_flag(w, "group_reporting", job->group_reporting, false);
	opt_flag(w, "norandommap", job->norandommap, false);
	opt_flag(w, "randrepeat", job->randrepeat, true);
	if (job->randseed_set)
		opt_uint(w, "randseed", job->randseed);
	if (job->rand_dist)
		jw_str(w, "random_distribution", job->rand_dist_str);
	opt_flag(w, "stonewall", job->stonewall, false);
	opt_flag(w, "new_group", job->new_group, false);
	opt_flag(w, "gtod_reduce", job->gtod_reduce, false);
	opt_flag(w, "clat_percentiles", job->clat_percentiles, true);
	opt_flag(w, "lat_percentiles", job->lat_percentiles, false);
	opt_flag(w, "slat_percentiles", job->slat_percentiles, false);
	opt_percentiles(w, job);
	if (job->number_ios)
		opt_uint(w, "number_ios", job->number_ios);
	if (job->loops > 1)
		opt_uint(w, "loops", job->loops);
	if (job->cpus_allowed[0])
		jw_str(w, "cpus_allowed", job->cpus_allowed);
	if (job->cpus_split)
		jw_str(w, "cpus_allowed_policy", "split");
	/* the logs, as fio lists them ("" when given without a name):
	 * mqblk plot finds a job's logs by these */
	if (job->bw_log)
		jw_str(w, "write_bw_log", job->bw_log);
	if (job->lat_log)
		jw_str(w, "write_lat_log", job->lat_log);
	if (job->iops_log)
		jw_str(w, "write_iops_log", job->iops_log);
	if (job->log_avg_msec)
		opt_uint(w, "log_avg_msec", job->log_avg_msec);
	if (job->hist_log)
		jw_str(w, "write_hist_log", job->hist_log);
	if (job->log_hist_msec)
		opt_uint(w, "log_hist_msec", job->log_hist_msec);
	if (job->log_hist_coarseness)
		opt_uint(w, "log_hist_coarseness", job->log_hist_coarseness);
	jw_obj_end(w);
}

/* fio's command-line-only switches: not job options, so not "global". */
static bool is_cmdline_only(const char *key, size_t len)
{
	static const char *const names[] = {
		"output",	 "output-format",
		"minimal",	 "terse-version",
		"version",	 "help",
		"cmdhelp",	 "enghelp",
		"showcmd",	 "readonly",
		"eta",		 "eta-interval",
		"eta-newline",	 "debug",
		"parse-only",	 "section",
		"alloc-size",	 "warnings-fatal",
		"max-jobs",	 "status-interval",
		"append-terse",	 "bandwidth-log",
		"latency-log",	 "idle-prof",
		"trigger-file",	 "trigger-timeout",
		"trigger",	 "trigger-remote",
		"aux-path",	 "inflate-log",
		"server",	 "client",
		"daemonize",	 "remote-config",
		"cpuclock-test", "crctest",
	};
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !strncmp(names[i], key, len))
			return true;
	return false;
}

/*
 * fio's "global options": the job options given before the first --name.
 * Taken from the recorded command line, "--key=value" tokens only: a
 * "--flag" without a value is left out, as fio's printer drops valueless
 * options too, and so is "--key value" (which tokens take a value is the
 * option table's business). Job-file [global] sections are not seen here.
 */
static void global_options(struct jw *w, const struct bench_config *cfg)
{
	const char *p = cfg ? cfg->cmdline : NULL;

	jw_obj_begin(w, "global options");
	while (p && *p) {
		const char *tok, *eq, *end;
		char key[64], *val;
		size_t klen;

		while (*p == ' ')
			p++;
		tok = p;
		end = strchr(tok, ' ');
		if (!end)
			end = tok + strlen(tok);
		p = end;
		/* fio takes "-key" for "--key" as well */
		if (end - tok < 2 || tok[0] != '-')
			continue;
		tok += tok[1] == '-' ? 2 : 1;
		eq = memchr(tok, '=', (size_t)(end - tok));
		klen = eq ? (size_t)(eq - tok) : (size_t)(end - tok);
		if (klen == 4 && !strncmp(tok, "name", 4))
			break;
		if (!eq || !klen || klen >= sizeof(key) ||
		    is_cmdline_only(tok, klen))
			continue;
		memcpy(key, tok, klen);
		key[klen] = '\0';
		val = strndup(eq + 1, (size_t)(end - eq - 1));
		if (!val)
			break;
		jw_str(w, key, val);
		free(val);
	}
	jw_obj_end(w);
}

/* ---- per-direction status ---- */

static const char *const ddir_key[DDIR_NR] = { "read", "write", "trim" };

/* fio's add_ddir_lat_json. */
static void lat_json(struct jw *w, const char *key, const struct job_stats *js,
		     const struct lat_stat *ls, const uint64_t *hist,
		     bool percentiles, bool plus)
{
	double plist[BENCH_MAX_PERCENTILES];
	uint64_t ov[BENCH_MAX_PERCENTILES];
	char name[64];
	unsigned i, len;

	jw_obj_begin(w, key);
	jw_uint(w, "min", ls->nr ? ls->min : 0);
	jw_uint(w, "max", ls->nr ? ls->max : 0);
	jw_double(w, "mean", lat_stat_mean(ls));
	jw_double(w, "stddev", lat_stat_stddev(ls));
	jw_uint(w, "N", ls->nr);
	if (percentiles && ls->nr && hist) {
		len = stats_percentile_list(js, plist);
		stats_percentiles(hist, ls->nr, plist, len, ov);
		jw_obj_begin(w, "percentile");
		for (i = 0; i < len; i++) {
			snprintf(name, sizeof(name), "%f", plist[i]);
			jw_uint(w, name, ov[i]);
		}
		jw_obj_end(w);
		if (plus) {
			/* json+: every non-empty bucket, keyed by its
			 * midpoint value */
			jw_obj_begin(w, "bins");
			for (i = 0; i < PLAT_NR; i++) {
				if (!hist[i])
					continue;
				snprintf(name, sizeof(name), "%" PRIu64,
					 plat_idx_to_val(i));
				jw_uint(w, name, hist[i]);
			}
			jw_obj_end(w);
		}
	}
	jw_obj_end(w);
}

/* fio's add_ddir_status_json for read, write and trim. */
/* One direction's object, or ds under "mixed" (unified_rw_reporting; d
 * is then DDIR_READ). */
static void ddir_json(struct jw *w, const struct job_stats *js,
		      const struct ddir_stats *ds, const struct report_group *g,
		      enum bench_ddir d, const char *key, bool plus)
{
	uint64_t rt = stats_runtime_ms(ds), ios = stats_issued(ds);
	uint64_t bw_bytes = 0;
	double iops = 0;

	if (rt) {
		bw_bytes = ds->io_bytes * 1000 / rt;
		iops = 1000.0 * (double)ios / (double)rt;
	}
	jw_obj_begin(w, key);
	jw_uint(w, "io_bytes", ds->io_bytes);
	jw_uint(w, "io_kbytes", ds->io_bytes >> 10);
	jw_uint(w, "bw_bytes", bw_bytes);
	jw_uint(w, "bw", bw_bytes / 1024);
	jw_double(w, "iops", iops);
	jw_uint(w, "runtime", rt);
	jw_uint(w, "total_ios", ios);
	jw_uint(w, "short_ios", ds->short_ios);
	jw_uint(w, "drop_ios", ds->drop_ios);
	lat_json(w, "slat_ns", js, &ds->slat, ds->slat_hist, js->want_slat_hist,
		 plus);
	lat_json(w, "clat_ns", js, &ds->clat, ds->clat_hist, js->want_clat_hist,
		 plus);
	lat_json(w, "lat_ns", js, &ds->lat, ds->lat_hist, js->want_lat_hist,
		 plus);

	/* KiB/s and IOPS samples; fio prints zeros when there were none. */
	jw_uint(w, "bw_min", ds->bw.nr ? ds->bw.min : 0);
	jw_uint(w, "bw_max", ds->bw.nr ? ds->bw.max : 0);
	jw_double(w, "bw_agg",
		  ds->bw.nr ? stats_bw_agg_pct(g, d, lat_stat_mean(&ds->bw)) :
			      0.0);
	jw_double(w, "bw_mean", lat_stat_mean(&ds->bw));
	jw_double(w, "bw_dev", lat_stat_stddev(&ds->bw));
	jw_uint(w, "bw_samples", ds->bw.nr);
	jw_uint(w, "iops_min", ds->iops.nr ? ds->iops.min : 0);
	jw_uint(w, "iops_max", ds->iops.nr ? ds->iops.max : 0);
	jw_double(w, "iops_mean", lat_stat_mean(&ds->iops));
	jw_double(w, "iops_stddev", lat_stat_stddev(&ds->iops));
	jw_uint(w, "iops_samples", ds->iops.nr);
	jw_obj_end(w);
}

/* fio's DDIR_SYNC block: the flushes of --fsync/--fdatasync/--end_fsync. */
static void sync_json(struct jw *w, const struct job_stats *js)
{
	const struct lat_stat *ls = &js->sync_lat;

	jw_obj_begin(w, "sync");
	jw_uint(w, "total_ios", js->sync_ios);
	jw_obj_begin(w, "lat_ns");
	jw_uint(w, "min", ls->nr ? ls->min : 0);
	jw_uint(w, "max", ls->max);
	jw_double(w, "mean", ls->nr ? lat_stat_mean(ls) : 0);
	jw_double(w, "stddev", ls->nr ? lat_stat_stddev(ls) : 0);
	jw_uint(w, "N", ls->nr);
	jw_obj_end(w);
	jw_obj_end(w);
}

static void dist_json(struct jw *w, const char *key, const char *const *names,
		      const double *pct, unsigned nr)
{
	unsigned i;

	jw_obj_begin(w, key);
	for (i = 0; i < nr; i++)
		jw_double(w, names[i], pct[i]);
	jw_obj_end(w);
}

static void mqblk_json(struct jw *w, const struct job_stats *js)
{
	const struct mqblk_job_counters *mq = &js->mq;

	jw_obj_begin(w, "mqblk");
	jw_obj_begin(w, "completions");
	jw_uint(w, "local", mq->comp_local);
	jw_uint(w, "remote", mq->comp_remote);
	jw_uint(w, "batched", mq->comp_batched);
	jw_uint(w, "polled", mq->comp_polled);
	jw_uint(w, "irq", mq->comp_irq);
	jw_obj_end(w);
	jw_double(w, "remote_pct", stats_remote_pct(mq));
	jw_uint(w, "wakeups", mq->wakeups);
	jw_uint(w, "requeues", mq->requeues);
	jw_uint(w, "tag_waits", mq->tag_waits);
	jw_uint(w, "timeouts", mq->timeouts);
	jw_uint(w, "errors", mq->errors);
	jw_uint(w, "verify_errors", js->verify_errors);
	jw_uint(w, "tag_wait_ns", mq->tag_wait_ns);
	jw_uint(w, "merges", mq->merges);
	jw_uint(w, "dispatched", mq->dispatched);
	jw_uint(w, "dispatch_runs", mq->dispatch_runs);
	jw_uint(w, "doorbells", mq->doorbells);
	jw_uint(w, "sched_expired", mq->sched_expired);
	jw_uint(w, "dispatch_locks", mq->dispatch_locks);
	jw_uint(w, "dispatch_lock_contended", mq->dispatch_lock_contended);
	jw_uint(w, "poll_budget_hits", mq->poll_budget_hits);
	jw_obj_end(w);
}

/* A multipath device's paths (see show_paths in output_normal.c). */
static void paths_json(struct jw *w, const struct job_stats *js)
{
	unsigned i, disc = 0;

	if (!js->nr_paths)
		return;
	for (i = 0; i < js->nr_paths; i++)
		disc += js->paths[i].discovered;
	jw_obj_begin(w, "multipath");
	jw_str(w, "iopolicy", js->iopolicy);
	jw_uint(w, "paths_discovered", disc);
	jw_arr_begin(w, "paths");
	for (i = 0; i < js->nr_paths; i++) {
		const struct mqblk_path_stats *p = &js->paths[i];

		jw_obj_begin(w, NULL);
		jw_str(w, "name", p->name);
		jw_str(w, "state", p->state);
		jw_str(w, "ana_state", p->ana_state);
		jw_uint(w, "current", p->current);
		jw_uint(w, "sent", p->sent);
		jw_uint(w, "completed", p->completed);
		jw_uint(w, "failovers", p->failovers);
		jw_uint(w, "reconnects", p->reconnects);
		jw_uint(w, "stalls", p->stalls);
		jw_uint(w, "discovered", p->discovered);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

/* An nvme-rdma device's counters (see show_rdma in output_normal.c). */
static void rdma_json(struct jw *w, const struct job_stats *js)
{
	const struct nvme_rdma_queue_stats *r = &js->rdma;

	if (!js->has_rdma)
		return;
	jw_obj_begin(w, "nvme_rdma");
	jw_uint(w, "sends", r->sends);
	jw_uint(w, "signalled", r->signalled);
	jw_uint(w, "recv_posted", r->recv_posted);
	jw_uint(w, "recv_done", r->recv_done);
	jw_uint(w, "cqes", r->cqes);
	jw_uint(w, "events", r->events);
	jw_uint(w, "regs", r->regs);
	jw_uint(w, "incapsule", r->incapsule);
	jw_uint(w, "keyed", r->keyed);
	jw_uint(w, "bounced", r->bounced);
	jw_uint(w, "rsp_before_send", r->rsp_before_send);
	jw_uint(w, "remote_inv", r->remote_inv);
	jw_uint(w, "local_inv", r->local_inv);
	jw_obj_end(w);
}

/* fio's show_thread_status_json, plus mqblk's object. */
static void job_json(struct jw *w, const struct job_stats *js,
		     const struct report_group *g, int64_t elapsed_s, bool plus)
{
	static const char *const depth_keys[] = { "1",	"2",  "4",   "8",
						  "16", "32", ">=64" };
	static const char *const batch_keys[] = { "0",	"4",  "8",   "16",
						  "32", "64", ">=64" };
	static const char *const lat_keys[] = {
		"2",   "4",   "10",  "20",   "50",   "100",
		"250", "500", "750", "1000", "2000", ">=2000"
	};
	const struct bench_job *job = js->job;
	uint64_t issued = 0, rt_ms = js->runtime_ns / 1000000;
	double pct[LAT_M_NR], usr = 0, sys = 0;
	unsigned d;

	for (d = 0; d < DDIR_NR; d++)
		issued += stats_issued(&js->dd[d]);

	jw_obj_begin(w, NULL);
	jw_str(w, "jobname", js->name);
	jw_uint(w, "groupid", js->groupid);
	jw_int(w, "error", js->error);
	/* fio's get_jobs_eta() once the jobs are done: no estimate in the
	 * first 3 seconds (INT_MAX), 0 after. */
	jw_int(w, "eta", elapsed_s < 3 ? INT_MAX : 0);
	jw_int(w, "elapsed", elapsed_s);
	job_options(w, js);
	if (job && job->unified_rw_reporting == BENCH_UNIFIED_MIXED) {
		/* fio: the fold in read's place, named mixed, alone */
		ddir_json(w, js, &js->dd[0], g, DDIR_READ, "mixed", plus);
	} else {
		for (d = 0; d < DDIR_NR; d++)
			ddir_json(w, js, &js->dd[d], g, (enum bench_ddir)d,
				  ddir_key[d], plus);
		sync_json(w, js);
	}
	if (js->mixed) {
		struct report_group all = *g;

		all.agg_bw[0] = g->agg_bw[0] + g->agg_bw[1] + g->agg_bw[2];
		ddir_json(w, js, js->mixed, &all, DDIR_READ, "mixed", plus);
	}

	/* fio keeps cpu time in whole ms. */
	if (rt_ms) {
		usr = (double)(js->usr_us / 1000) * 100 / (double)rt_ms;
		sys = (double)(js->sys_us / 1000) * 100 / (double)rt_ms;
	}
	jw_uint(w, "job_runtime", rt_ms);
	jw_double(w, "usr_cpu", usr);
	jw_double(w, "sys_cpu", sys);
	jw_uint(w, "ctx", js->ctx);
	jw_uint(w, "majf", js->majf);
	jw_uint(w, "minf", js->minf);

	stats_calc_dist(js->depth_map, issued, pct);
	dist_json(w, "iodepth_level", depth_keys, pct, DEPTH_MAP_NR);
	stats_calc_dist(js->submit_map, js->total_submit, pct);
	dist_json(w, "iodepth_submit", batch_keys, pct, DEPTH_MAP_NR);
	stats_calc_dist(js->complete_map, js->total_complete, pct);
	dist_json(w, "iodepth_complete", batch_keys, pct, DEPTH_MAP_NR);

	stats_calc_lat(js->lat_n, LAT_N_NR, issued, pct);
	dist_json(w, "latency_ns", lat_keys, pct, LAT_N_NR);
	stats_calc_lat(js->lat_u, LAT_U_NR, issued, pct);
	dist_json(w, "latency_us", lat_keys, pct, LAT_U_NR);
	stats_calc_lat(js->lat_m, LAT_M_NR, issued, pct);
	dist_json(w, "latency_ms", lat_keys, pct, LAT_M_NR);

	/* fio: only with continue_on_error */
	if (job && job->continue_on_error) {
		jw_uint(w, "total_err", js->total_err);
		jw_int(w, "first_error", js->first_error);
	}
	/* No latency_target support: fio's values for that case. */
	jw_uint(w, "latency_depth", job ? job->iodepth : 1);
	jw_uint(w, "latency_target", 0);
	jw_double(w, "latency_percentile", 100.0);
	jw_uint(w, "latency_window", 0);
	if (job && job->description && job->description[0])
		jw_str(w, "desc", job->description);
	mqblk_json(w, js);
	paths_json(w, js);
	rdma_json(w, js);
	jw_obj_end(w);
}

void report_json(FILE *f, const struct report *r, bool plus)
{
	struct jw w = { .f = f };
	struct report_view v;
	char date[64] = "";
	struct timeval now;
	time_t sec;
	uint64_t now_ms;
	int64_t elapsed_s = 0;
	size_t len;
	unsigned i;

	if (report_view_build(&v, r)) {
		fprintf(stderr, "mqblk: out of memory writing the report\n");
		return;
	}
	/* fio stamps the report when it writes it. */
	gettimeofday(&now, NULL);
	sec = now.tv_sec;
	now_ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_usec / 1000;
	if (r->start_time_ms && now_ms > r->start_time_ms)
		elapsed_s = (int64_t)((now_ms - r->start_time_ms + 999) / 1000);
	if (ctime_r(&sec, date)) {
		len = strlen(date);
		if (len && date[len - 1] == '\n')
			date[len - 1] = '\0';
	}

	jw_obj_begin(&w, NULL);
	jw_str(&w, "fio version", r->version ? r->version : "mqblk");
	jw_int(&w, "timestamp", (int64_t)now.tv_sec);
	jw_uint(&w, "timestamp_ms", now_ms);
	jw_str(&w, "time", date);
	global_options(&w, r->cfg);
	jw_arr_begin(&w, "jobs");
	for (i = 0; i < v.nr_entries; i++)
		job_json(&w, v.entries[i], &v.groups[v.entries[i]->groupid],
			 elapsed_s, plus);
	jw_arr_end(&w);
	/* fio leaves disk_util out when it saw no disks; an empty list
	 * reads the same to scripts that iterate over it. */
	jw_arr_begin(&w, "disk_util");
	jw_arr_end(&w);
	jw_obj_end(&w);
	fputc('\n', f);
	report_view_free(&v);
}
