// SPDX-License-Identifier: MIT
/*
 * `mqblk bench` options: fio's names and meanings, from the command line
 * (fio's layout: options before the first --name are global, --name starts
 * a job, a bare argument is a job file) and, through bench_job_set(), from
 * job files. An option mqblk does not implement is an error naming it.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "mqblk/mqblk.h"
#include "dist.h"
#include "verify.h"

#define MAX_IODEPTH 65536u
#define MAX_NUMJOBS 1024u

const double bench_default_percentiles[17] = {
	1.0,  5.0,  10.0, 20.0, 30.0, 40.0, 50.0,  60.0,  70.0,
	80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
};

void bench_job_defaults(struct bench_job *job)
{
	int d;

	memset(job, 0, sizeof(*job));
	job->rw = RW_READ; /* fio's default */
	job->rwmixread = 50;
	job->kb_base = 1024;
	for (d = 0; d < DDIR_NR; d++)
		job->bs[d] = job->bs_max[d] = 4096;
	job->iodepth = 1;
	job->numjobs = 1;
	job->iodepth_batch_submit = 1;
	job->iodepth_batch_complete_min = 1;
	job->randrepeat = true;
	job->fixedbufs = -1;
	job->clat_percentiles = true;
	job->loops = 1;
	job->do_verify = true;
	job->nrfiles = 1;
	/* fio's file_service_type default, roundrobin: the next file
	 * after every I/O (0 would keep to a file until it is done) */
	job->file_service_nr = 1;
	job->compress_chunk = 512; /* fio's buffer_compress_chunk */
	job->error_dump = true;
	job->thinktime_blocks = 1;
	job->invalidate = true;
	job->per_job_logs = true;
}

void bench_job_free(struct bench_job *job)
{
	free(job->filename);
	free(job->ioengine);
	free(job->description);
	free(job->ioscheduler);
	free(job->directory);
	free(job->bw_log);
	free(job->lat_log);
	free(job->iops_log);
	free(job->hist_log);
	job->filename = job->ioengine = job->description = NULL;
	job->ioscheduler = job->directory = NULL;
	job->bw_log = job->lat_log = job->iops_log = job->hist_log = NULL;
}

static int dup_str(char **dst, const char *src)
{
	*dst = NULL;
	if (src && !(*dst = strdup(src)))
		return -1;
	return 0;
}

int bench_job_copy(struct bench_job *dst, const struct bench_job *src)
{
	*dst = *src;
	if (dup_str(&dst->filename, src->filename) ||
	    dup_str(&dst->ioengine, src->ioengine) ||
	    dup_str(&dst->description, src->description) ||
	    dup_str(&dst->ioscheduler, src->ioscheduler) ||
	    dup_str(&dst->directory, src->directory) ||
	    dup_str(&dst->bw_log, src->bw_log) ||
	    dup_str(&dst->lat_log, src->lat_log) ||
	    dup_str(&dst->iops_log, src->iops_log) ||
	    dup_str(&dst->hist_log, src->hist_log)) {
		bench_job_free(dst);
		return -1;
	}
	return 0;
}

void bench_config_free(struct bench_config *cfg)
{
	unsigned i;

	for (i = 0; i < cfg->nr_jobs; i++)
		bench_job_free(&cfg->jobs[i]);
	free(cfg->jobs);
	free(cfg->output);
	free(cfg->cmdline);
	memset(cfg, 0, sizeof(*cfg));
}

int bench_config_add_job(struct bench_config *cfg, const struct bench_job *job,
			 char *err, size_t errlen)
{
	struct bench_job *jobs;

	jobs = realloc(cfg->jobs, (cfg->nr_jobs + 1) * sizeof(*jobs));
	if (!jobs)
		return bench_err(err, errlen, "out of memory");
	cfg->jobs = jobs;
	if (bench_job_copy(&jobs[cfg->nr_jobs], job))
		return bench_err(err, errlen, "out of memory");
	cfg->nr_jobs++;
	return 0;
}

/* ---- one option ---- */

enum opt_type {
	OT_STR, /* char * */
	OT_U32, /* unsigned, [min, max] */
	OT_U64, /* uint64_t, [min, max] */
	OT_SIZE, /* uint64_t bytes, fio size suffixes */
	OT_TIME, /* uint64_t ns, bare number = seconds */
	OT_BOOL, /* bool; bare key = true */
	OT_SPECIAL,
};

struct opt {
	const char *name;
	enum opt_type type;
	size_t off;
	uint64_t min, max;
};

#define J(f) offsetof(struct bench_job, f)

static const struct opt job_opts[] = {
	{ "name", OT_SPECIAL, 0, 0, 0 },
	{ "filename", OT_STR, J(filename), 0, 0 },
	{ "ioengine", OT_SPECIAL, 0, 0, 0 },
	{ "rw", OT_SPECIAL, 0, 0, 0 },
	{ "readwrite", OT_SPECIAL, 0, 0, 0 },
	{ "rwmixread", OT_U32, J(rwmixread), 0, 100 },
	{ "rwmixwrite", OT_SPECIAL, 0, 0, 100 },
	{ "bs", OT_SPECIAL, 0, 0, 0 },
	{ "blocksize", OT_SPECIAL, 0, 0, 0 },
	{ "bsrange", OT_SPECIAL, 0, 0, 0 },
	{ "blocksize_range", OT_SPECIAL, 0, 0, 0 },
	{ "bssplit", OT_SPECIAL, 0, 0, 0 },
	{ "bs_is_seq_rand", OT_BOOL, J(bs_is_seq_rand), 0, 0 },
	{ "bs_unaligned", OT_SPECIAL, 0, 0, 0 },
	{ "blocksize_unaligned", OT_SPECIAL, 0, 0, 0 },
	{ "size", OT_SPECIAL, 0, 0, 0 },
	{ "directory", OT_SPECIAL, 0, 0, 0 },
	{ "filesize", OT_SPECIAL, 0, 0, 0 },
	{ "nrfiles", OT_U32, J(nrfiles), 1, 1024 },
	{ "file_service_type", OT_SPECIAL, 0, 0, 0 },
	{ "create_on_open", OT_BOOL, J(create_on_open), 0, 0 },
	{ "unlink", OT_BOOL, J(unlink), 0, 0 },
	{ "zero_buffers", OT_BOOL, J(zero_buffers), 0, 0 },
	{ "buffer_pattern", OT_SPECIAL, 0, 0, 0 },
	{ "write_bw_log", OT_SPECIAL, 0, 0, 0 },
	{ "write_lat_log", OT_SPECIAL, 0, 0, 0 },
	{ "write_iops_log", OT_SPECIAL, 0, 0, 0 },
	{ "write_hist_log", OT_SPECIAL, 0, 0, 0 },
	{ "log_hist_msec", OT_U32, J(log_hist_msec), 0, 86400000u },
	{ "log_hist_coarseness", OT_U32, J(log_hist_coarseness), 0, 6 },
	{ "log_compression", OT_SPECIAL, 0, 0, 0 },
	{ "log_avg_msec", OT_U32, J(log_avg_msec), 0, 86400000u },
	{ "log_offset", OT_BOOL, J(log_offset), 0, 0 },
	{ "log_max_value", OT_BOOL, J(log_max_value), 0, 0 },
	{ "per_job_logs", OT_BOOL, J(per_job_logs), 0, 0 },
	{ "rate", OT_SPECIAL, 0, 0, 0 },
	{ "rate_iops", OT_SPECIAL, 0, 0, 0 },
	{ "rate_min", OT_SPECIAL, 0, 0, 0 },
	{ "ratemin", OT_SPECIAL, 0, 0, 0 }, /* fio's alias */
	{ "rate_iops_min", OT_SPECIAL, 0, 0, 0 },
	{ "rate_process", OT_SPECIAL, 0, 0, 0 },
	{ "thinktime", OT_SPECIAL, 0, 0, 0 },
	{ "thinktime_spin", OT_SPECIAL, 0, 0, 0 },
	{ "thinktime_blocks", OT_U32, J(thinktime_blocks), 1, UINT32_MAX },
	{ "io_size", OT_SIZE, J(io_size), 0, 0 },
	{ "io_limit", OT_SIZE, J(io_size), 0, 0 },
	{ "startdelay", OT_TIME, J(startdelay_ns), 0, 0 },
	{ "offset_increment", OT_SIZE, J(offset_increment), 0, 0 },
	{ "invalidate", OT_BOOL, J(invalidate), 0, 0 },
	{ "exitall", OT_BOOL, J(exitall), 0, 0 },
	{ "buffered", OT_SPECIAL, 0, 0, 0 },
	{ "kb_base", OT_SPECIAL, 0, 0, 0 },
	{ "sync", OT_SPECIAL, 0, 0, 0 },
	{ "random_distribution", OT_SPECIAL, 0, 0, 0 },
	{ "unified_rw_reporting", OT_SPECIAL, 0, 0, 0 },
	{ "continue_on_error", OT_SPECIAL, 0, 0, 0 },
	{ "ignore_error", OT_SPECIAL, 0, 0, 0 },
	{ "buffer_compress_percentage", OT_U32, J(compress_pct), 0, 100 },
	{ "buffer_compress_chunk", OT_SIZE, J(compress_chunk), 0, 0 },
	{ "dedupe_percentage", OT_U32, J(dedupe_pct), 0, 100 },
	{ "dedupe_mode", OT_SPECIAL, 0, 0, 0 },
	{ "error_dump", OT_BOOL, J(error_dump), 0, 0 },
	{ "fallocate", OT_SPECIAL, 0, 0, 0 },
	{ "write_barrier", OT_SPECIAL, 0, 0, 0 },
	{ "verify_dump", OT_SPECIAL, 0, 0, 0 },
	{ "offset", OT_SIZE, J(offset), 0, 0 },
	{ "iodepth", OT_U32, J(iodepth), 1, MAX_IODEPTH },
	{ "iodepth_low", OT_U32, J(iodepth_low), 0, MAX_IODEPTH },
	{ "numjobs", OT_U32, J(numjobs), 1, MAX_NUMJOBS },
	{ "runtime", OT_TIME, J(runtime_ns), 0, 0 },
	{ "timeout", OT_TIME, J(runtime_ns), 0, 0 },
	{ "ramp_time", OT_TIME, J(ramp_time_ns), 0, 0 },
	{ "time_based", OT_BOOL, J(time_based), 0, 0 },
	{ "iodepth_batch_submit", OT_U32, J(iodepth_batch_submit), 0,
	  MAX_IODEPTH },
	{ "iodepth_batch", OT_U32, J(iodepth_batch_submit), 0, MAX_IODEPTH },
	{ "iodepth_batch_complete_min", OT_U32, J(iodepth_batch_complete_min),
	  0, MAX_IODEPTH },
	{ "iodepth_batch_complete", OT_U32, J(iodepth_batch_complete_min), 0,
	  MAX_IODEPTH },
	{ "iodepth_batch_complete_max", OT_U32, J(iodepth_batch_complete_max),
	  0, MAX_IODEPTH },
	{ "hipri", OT_BOOL, J(hipri), 0, 0 },
	{ "direct", OT_BOOL, J(direct), 0, 0 },
	{ "thread", OT_BOOL, J(thread), 0, 0 },
	{ "threads", OT_BOOL, J(thread), 0, 0 }, /* fio's alias */
	{ "group_reporting", OT_BOOL, J(group_reporting), 0, 0 },
	{ "norandommap", OT_BOOL, J(norandommap), 0, 0 },
	{ "randrepeat", OT_BOOL, J(randrepeat), 0, 0 },
	{ "randseed", OT_SPECIAL, 0, 0, 0 },
	{ "stonewall", OT_BOOL, J(stonewall), 0, 0 },
	{ "wait_for_previous", OT_BOOL, J(stonewall), 0, 0 },
	{ "new_group", OT_BOOL, J(new_group), 0, 0 },
	{ "gtod_reduce", OT_BOOL, J(gtod_reduce), 0, 0 },
	{ "disable_lat", OT_BOOL, J(disable_lat), 0, 0 },
	{ "disable_clat", OT_BOOL, J(disable_clat), 0, 0 },
	{ "disable_slat", OT_BOOL, J(disable_slat), 0, 0 },
	{ "refill_buffers", OT_BOOL, J(refill_buffers), 0, 0 },
	{ "clat_percentiles", OT_BOOL, J(clat_percentiles), 0, 0 },
	{ "lat_percentiles", OT_BOOL, J(lat_percentiles), 0, 0 },
	{ "slat_percentiles", OT_BOOL, J(slat_percentiles), 0, 0 },
	{ "percentile_list", OT_SPECIAL, 0, 0, 0 },
	{ "number_ios", OT_U64, J(number_ios), 0, UINT64_MAX },
	{ "loops", OT_U32, J(loops), 1, 1000000000u },
	{ "description", OT_STR, J(description), 0, 0 },
	{ "ioscheduler", OT_STR, J(ioscheduler), 0, 0 },
	{ "fsync", OT_U32, J(fsync_blocks), 0, UINT32_MAX },
	{ "fdatasync", OT_U32, J(fdatasync_blocks), 0, UINT32_MAX },
	{ "end_fsync", OT_BOOL, J(end_fsync), 0, 0 },
	{ "registerfiles", OT_BOOL, J(registerfiles), 0, 0 },
	{ "sqthread_poll", OT_BOOL, J(sqthread_poll), 0, 0 },
	{ "fixedbufs", OT_SPECIAL, 0, 0, 0 },
	{ "cpus_allowed", OT_SPECIAL, 0, 0, 0 },
	{ "cpus_allowed_policy", OT_SPECIAL, 0, 0, 0 },
	{ "sqthread_poll_cpu", OT_SPECIAL, 0, 0, 0 },
	{ "verify", OT_SPECIAL, 0, 0, 0 },
	{ "verify_pattern", OT_SPECIAL, 0, 0, 0 },
	{ "do_verify", OT_BOOL, J(do_verify), 0, 0 },
	{ "verify_only", OT_BOOL, J(verify_only), 0, 0 },
	{ "verify_fatal", OT_BOOL, J(verify_fatal), 0, 0 },
	{ "verify_backlog", OT_U64, J(verify_backlog), 0, 1u << 24 },
	{ "verify_interval", OT_SPECIAL, 0, 0, 0 },
};

static const struct opt *find_opt(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(job_opts) / sizeof(job_opts[0]); i++)
		if (!strcmp(job_opts[i].name, key))
			return &job_opts[i];
	return NULL;
}

/*
 * fio's str_rw_cb: what follows "rw=NAME:" is, for a random pattern, the
 * number of I/Os per new random offset (ddir_seq_nr; sequential in
 * between) and, for a sequential one, a size added to the offset after
 * each I/O (ddir_seq_add: a hole, or with '-' backwards I/O).
 */
static int set_rw_postfix(struct bench_job *job, const char *val,
			  const char *nr, char *err, size_t errlen)
{
	char perr[128];
	uint64_t v = 0;
	bool neg = false;

	if (bench_rw_is_random(job->rw)) {
		if (bench_parse_uint(nr, 1, UINT32_MAX, &v, perr, sizeof(perr)))
			return bench_err(err, errlen,
					 "rw=%s: randrw postfix parsing out "
					 "of range (want 1..%u I/Os per "
					 "random offset)",
					 val, UINT32_MAX);
		job->ddir_seq_nr = (unsigned)v;
		return 0;
	}
	if (*nr == '-') {
		neg = true;
		nr++;
	}
	if (bench_parse_size_base(nr, job->kb_base, &v, perr, sizeof(perr)) ||
	    v > (uint64_t)INT64_MAX)
		return bench_err(err, errlen,
				 "rw=%s: rw postfix parsing failed (%s)", val,
				 v > (uint64_t)INT64_MAX ? "too large" : perr);
	job->ddir_seq_add = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int set_rw(struct bench_job *job, const char *val, char *err,
		  size_t errlen)
{
	static const struct {
		const char *name;
		enum bench_rw rw;
	} names[] = {
		{ "read", RW_READ },
		{ "write", RW_WRITE },
		{ "randread", RW_RANDREAD },
		{ "randwrite", RW_RANDWRITE },
		{ "rw", RW_RW },
		{ "readwrite", RW_RW },
		{ "randrw", RW_RANDRW },
		{ "trim", RW_TRIM },
		{ "randtrim", RW_RANDTRIM },
	};
	const char *colon = strchr(val, ':');
	size_t i, len = colon ? (size_t)(colon - val) : strlen(val);

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) == len &&
		    !strncmp(val, names[i].name, len)) {
			job->rw = names[i].rw;
			job->ddir_seq_nr = 1;
			job->ddir_seq_add = 0;
			return colon ? set_rw_postfix(job, val, colon + 1, err,
						      errlen) :
				       0;
		}
	}
	return bench_err(err, errlen,
			 "unknown rw '%s' (read write randread randwrite rw "
			 "readwrite randrw trim randtrim)",
			 val);
}

/*
 * fio's bs=R[,W[,T]]: a value not followed by a comma also applies to the
 * directions after it; an empty field keeps that direction as it was.
 */
static int set_bs(struct bench_job *job, const char *val, char *err,
		  size_t errlen)
{
	uint64_t bs[DDIR_NR];
	bool set[DDIR_NR] = { false };
	char field[64], perr_buf[128];
	const char *p = val;
	int d = 0, i;

	if (strchr(val, '-') || strchr(val, ':') || strchr(val, '/'))
		return bench_err(err, errlen,
				 "bs=%s: block size ranges and mixes are "
				 "--bsrange=MIN-MAX or --bssplit=BS/PCT:...",
				 val);
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (d >= DDIR_NR)
			return bench_err(
				err, errlen,
				"bs=%s: at most 3 values (read,write,trim)",
				val);
		if (len >= sizeof(field))
			return bench_err(err, errlen, "bs=%s: value too long",
					 val);
		memcpy(field, p, len);
		field[len] = 0;
		if (len) {
			uint64_t v;

			if (bench_parse_size_base(field, job->kb_base, &v,
						  perr_buf, sizeof(perr_buf)))
				return bench_err(err, errlen, "bs: %s",
						 perr_buf);
			if (v == 0 || v > (1u << 30))
				return bench_err(
					err, errlen,
					"bs=%s: block size must be 1 byte "
					"to 1 GiB",
					field);
			bs[d] = v;
			set[d] = true;
			if (!comma)
				for (i = d + 1; i < DDIR_NR; i++) {
					bs[i] = v;
					set[i] = true;
				}
		}
		if (!comma)
			break;
		p = comma + 1;
		d++;
	}
	/* "bs=" and "bs=,," name no size at all: fio refuses them too */
	if (!set[0] && !set[1] && !set[2])
		return bench_err(err, errlen, "bs='%s': no block size given",
				 val);
	/* a direction bs= sets is one size again: no range, no split */
	for (i = 0; i < DDIR_NR; i++) {
		if (!set[i])
			continue;
		job->bs[i] = job->bs_max[i] = bs[i];
		job->bssplit_nr[i] = 0;
	}
	return 0;
}

static int parse_bs_value(const struct bench_job *job, const char *opt,
			  const char *s, uint64_t *out, char *err,
			  size_t errlen)
{
	char buf[128];

	if (bench_parse_size_base(s, job->kb_base, out, buf, sizeof(buf)))
		return bench_err(err, errlen, "%s: %s", opt, buf);
	if (*out == 0 || *out > (1u << 30))
		return bench_err(err, errlen,
				 "%s: block size %s must be 1 byte to 1 GiB",
				 opt, s);
	return 0;
}

/*
 * fio's bsrange=MIN-MAX[,MIN-MAX[,MIN-MAX]] (read, write, trim; ':' may
 * stand for '-'): as bs=, a range not followed by a comma also applies to
 * the directions after it and an empty field keeps a direction as it was.
 * A range given high-low is swapped, as fio's parser does.
 */
static int set_bsrange(struct bench_job *job, const char *key, const char *val,
		       char *err, size_t errlen)
{
	uint64_t lo[DDIR_NR], hi[DDIR_NR];
	bool set[DDIR_NR] = { false };
	const char *p = val;
	int d = 0, i;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char field[64], *sep;

		if (d >= DDIR_NR)
			return bench_err(err, errlen,
					 "%s=%s: at most 3 ranges "
					 "(read,write,trim)",
					 key, val);
		if (len >= sizeof(field))
			return bench_err(err, errlen, "%s=%s: value too long",
					 key, val);
		memcpy(field, p, len);
		field[len] = 0;
		if (len) {
			sep = strchr(field, '-');
			if (!sep)
				sep = strchr(field, ':');
			if (!sep)
				return bench_err(err, errlen,
						 "%s=%s: '%s' is not a range "
						 "MIN-MAX",
						 key, val, field);
			*sep = 0;
			if (parse_bs_value(job, key, field, &lo[d], err,
					   errlen) ||
			    parse_bs_value(job, key, sep + 1, &hi[d], err,
					   errlen))
				return -1;
			if (lo[d] > hi[d]) {
				uint64_t t = lo[d];

				lo[d] = hi[d];
				hi[d] = t;
			}
			set[d] = true;
			if (!comma)
				for (i = d + 1; i < DDIR_NR; i++) {
					lo[i] = lo[d];
					hi[i] = hi[d];
					set[i] = true;
				}
		}
		if (!comma)
			break;
		p = comma + 1;
		d++;
	}
	if (!set[0] && !set[1] && !set[2])
		return bench_err(err, errlen, "%s='%s': no range given", key,
				 val);
	for (i = 0; i < DDIR_NR; i++) {
		if (!set[i])
			continue;
		job->bs[i] = lo[i];
		job->bs_max[i] = hi[i];
		job->bssplit_nr[i] = 0;
	}
	return 0;
}

/*
 * One direction of bssplit: BS[/PCT]:BS[/PCT]... An entry without a
 * percentage (or, as fio's atoi reads it, with 0) shares what the others
 * leave of 100 equally (integer division, as fio). Unlike fio, a total over
 * 100 and a percentage over 100 are errors (fio clamps or wraps them) and so
 * is an empty entry before the last (fio ends the list there). Sorted by
 * percentage, smallest first, as fio's lookup walks them.
 */
static int bssplit_one(struct bench_job *job, int d, const char *s, char *err,
		       size_t errlen)
{
	struct bench_bssplit sp[BENCH_BSSPLIT_MAX];
	unsigned nr = 0, i, j, total = 0, missing = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	const char *p = s;

	while (*p) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		char field[64], *slash;

		if (!len)
			return bench_err(err, errlen,
					 "bssplit=%s: empty entry (want "
					 "BS/PCT:BS/PCT...)",
					 s);
		if (nr == BENCH_BSSPLIT_MAX)
			return bench_err(err, errlen,
					 "bssplit: at most %d entries per "
					 "direction",
					 BENCH_BSSPLIT_MAX);
		if (len >= sizeof(field))
			return bench_err(err, errlen,
					 "bssplit: entry '%.32s...' too long",
					 p);
		memcpy(field, p, len);
		field[len] = 0;
		sp[nr].perc = UINT32_MAX; /* missing */
		slash = strchr(field, '/');
		if (slash) {
			char buf[128];
			uint64_t v;

			*slash = 0;
			if (bench_parse_uint(slash + 1, 0, 100, &v, buf,
					     sizeof(buf)))
				return bench_err(err, errlen,
						 "bssplit: percentage of %s: "
						 "%s",
						 field, buf);
			if (v)
				sp[nr].perc = (unsigned)v;
		}
		if (parse_bs_value(job, "bssplit", field, &sp[nr].bs, err,
				   errlen))
			return -1;
		if (sp[nr].perc == UINT32_MAX)
			missing++;
		else
			total += sp[nr].perc;
		if (sp[nr].bs < lo)
			lo = sp[nr].bs;
		if (sp[nr].bs > hi)
			hi = sp[nr].bs;
		nr++;
		if (!colon)
			break;
		p = colon + 1;
	}
	if (!nr)
		return 0; /* an empty direction keeps what it had (fio) */
	if (total > 100)
		return bench_err(err, errlen,
				 "bssplit=%s: percentages add up to %u, more "
				 "than 100",
				 s, total);
	if (missing && nr == 1)
		total = 0; /* a lone size is 100% (fio) */
	for (i = 0; i < nr; i++)
		if (sp[i].perc == UINT32_MAX)
			sp[i].perc = (100 - total) / missing;
	/* stable insertion sort by percentage */
	for (i = 1; i < nr; i++) {
		struct bench_bssplit t = sp[i];

		for (j = i; j > 0 && sp[j - 1].perc > t.perc; j--)
			sp[j] = sp[j - 1];
		sp[j] = t;
	}
	memcpy(job->bssplit[d], sp, nr * sizeof(sp[0]));
	job->bssplit_nr[d] = nr;
	job->bs[d] = lo;
	job->bs_max[d] = hi;
	return 0;
}

/*
 * fio's bssplit=R[,W[,T]]: no comma, every direction; one comma, read and
 * then write and trim; two, one each.
 */
static int set_bssplit(struct bench_job *job, const char *val, char *err,
		       size_t errlen)
{
	struct bench_job tmp;
	const char *c1 = strchr(val, ','),
		   *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
	char f[3][1024];
	size_t l0 = c1 ? (size_t)(c1 - val) : strlen(val);
	int d;

	if (c2 && strchr(c2 + 1, ','))
		return bench_err(err, errlen,
				 "bssplit=%.64s: at most 3 lists "
				 "(read,write,trim)",
				 val);
	if (strlen(val) >= sizeof(f[0]))
		return bench_err(err, errlen, "bssplit: value too long");
	memcpy(f[0], val, l0);
	f[0][l0] = 0;
	if (!c1) {
		snprintf(f[1], sizeof(f[1]), "%s", f[0]);
		snprintf(f[2], sizeof(f[2]), "%s", f[0]);
	} else if (!c2) {
		snprintf(f[1], sizeof(f[1]), "%s", c1 + 1);
		snprintf(f[2], sizeof(f[2]), "%s", c1 + 1);
	} else {
		snprintf(f[1], sizeof(f[1]), "%.*s", (int)(c2 - c1 - 1),
			 c1 + 1);
		snprintf(f[2], sizeof(f[2]), "%s", c2 + 1);
	}
	if (!f[0][0] && !f[1][0] && !f[2][0])
		return bench_err(err, errlen,
				 "bssplit='%s': no block size given", val);
	/* all or nothing: an error leaves the job as it was */
	tmp = *job;
	for (d = 0; d < DDIR_NR; d++)
		if (bssplit_one(&tmp, d, f[d], err, errlen))
			return -1;
	memcpy(job->bs, tmp.bs, sizeof(tmp.bs));
	memcpy(job->bs_max, tmp.bs_max, sizeof(tmp.bs_max));
	memcpy(job->bssplit_nr, tmp.bssplit_nr, sizeof(tmp.bssplit_nr));
	memcpy(job->bssplit, tmp.bssplit, sizeof(tmp.bssplit));
	return 0;
}

static int set_percentiles(struct bench_job *job, const char *val, char *err,
			   size_t errlen)
{
	double list[BENCH_MAX_PERCENTILES];
	unsigned nr = 0;
	const char *p = val;

	while (*p) {
		char *end;
		double v;

		if (nr == BENCH_MAX_PERCENTILES)
			return bench_err(err, errlen,
					 "percentile_list: at most %d values",
					 BENCH_MAX_PERCENTILES);
		errno = 0;
		v = strtod(p, &end);
		/* !(in range) rather than out of range: strtod takes "nan",
		 * and NaN compares false both ways */
		if (end == p || errno || (*end && *end != ':') ||
		    !(v >= 0.0 && v <= 100.0))
			return bench_err(
				err, errlen,
				"percentile_list: bad value in '%s' "
				"(want numbers 0..100 separated by ':')",
				val);
		list[nr++] = v;
		p = *end ? end + 1 : end;
	}
	if (!nr)
		return bench_err(err, errlen, "percentile_list is empty");
	memcpy(job->percentiles, list, nr * sizeof(list[0]));
	job->nr_percentiles = nr;
	return 0;
}

/*
 * fio engine names map onto the mqblk driver that plays that role: every
 * engine that does I/O to a file or block device (io_uring, libaio, psync,
 * sync, pvsync, pvsync2, posixaio) is the path driver (uring) when
 * --filename is a path; null is the null device; mqblk is whatever driver
 * the URI names. The filename decides the driver; an engine that cannot
 * run it (null on a path) is refused in job_fixup.
 */
static int set_ioengine(struct bench_job *job, const char *val, char *err,
			size_t errlen)
{
	static const char *const names[] = {
		"null", "mqblk",  "io_uring", "libaio",	  "psync",
		"sync", "pvsync", "pvsync2",  "posixaio",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(val, names[i]))
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return bench_err(
			err, errlen,
			"ioengine '%s' is not supported (supported: null, "
			"mqblk, io_uring, libaio, psync, sync, pvsync, "
			"pvsync2, posixaio; the driver follows --filename)",
			val);
	free(job->ioengine);
	job->ioengine = strdup(val);
	return job->ioengine ? 0 : bench_err(err, errlen, "out of memory");
}

static int set_verify_opt(struct bench_job *job, const struct opt *o,
			  const char *val, char *err, size_t errlen)
{
	char buf[160];
	uint64_t v;

	if (!strcmp(o->name, "verify")) {
		if (verify_parse_type(val, &job->verify, err, errlen))
			return -1;
		job->verify_set = true;
		return 0;
	}
	if (!strcmp(o->name, "verify_pattern")) {
		if (verify_parse_pattern(val, job->verify_pattern,
					 &job->verify_pattern_len, err, errlen))
			return -1;
		/* fio: a pattern alone means verify=pattern */
		if (!job->verify_set)
			job->verify = BENCH_VERIFY_PATTERN;
		return 0;
	}
	/* verify_interval */
	if (bench_parse_size_base(val, job->kb_base, &v, buf, sizeof(buf)))
		return bench_err(err, errlen, "verify_interval: %s", buf);
	if (v < 512 || v > (1u << 30))
		return bench_err(
			err, errlen,
			"verify_interval=%s: must be 512 bytes to 1 GiB", val);
	job->verify_interval = (uint32_t)v;
	return 0;
}

/*
 * fio's cpus_allowed: "1,3-5": CPUs and ranges, each below the number of
 * CPUs this machine has.
 */
static int set_cpus_allowed(struct bench_job *job, const char *val, char *err,
			    size_t errlen)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	const char *p = val;

	if (ncpu < 1 || ncpu > CPU_SETSIZE)
		ncpu = CPU_SETSIZE;
	if (strlen(val) >= sizeof(job->cpus_allowed))
		return bench_err(err, errlen, "cpus_allowed: list too long");
	CPU_ZERO(&job->cpus);
	for (;;) {
		unsigned long lo, hi, c;
		char *end;

		if (*p < '0' || *p > '9')
			return bench_err(err, errlen,
					 "cpus_allowed: '%s' is not a list of "
					 "CPUs (like 0,2-3)",
					 val);
		lo = hi = strtoul(p, &end, 10);
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return bench_err(err, errlen,
						 "cpus_allowed: bad range in "
						 "'%s'",
						 val);
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (hi < lo)
			return bench_err(err, errlen,
					 "cpus_allowed: range %lu-%lu runs "
					 "backwards",
					 lo, hi);
		if (hi >= (unsigned long)ncpu)
			return bench_err(
				err, errlen,
				"cpus_allowed: CPU %lu too large (this "
				"machine has %ld)",
				hi, ncpu);
		for (c = lo; c <= hi; c++)
			CPU_SET(c, &job->cpus);
		if (!*p)
			break;
		if (*p++ != ',')
			return bench_err(err, errlen,
					 "cpus_allowed: '%s' is not a list of "
					 "CPUs (like 0,2-3)",
					 val);
	}
	snprintf(job->cpus_allowed, sizeof(job->cpus_allowed), "%s", val);
	return 0;
}

/* fio's size=: bytes, or N% of the device or file --filename names (of
 * each of fio's jobname files with nrfiles > 1). */
static int set_size(struct bench_job *job, const char *val, char *err,
		    size_t errlen)
{
	size_t len = strlen(val);
	char buf[160], num[32];
	uint64_t v;

	if (len && val[len - 1] == '%') {
		if (len - 1 >= sizeof(num) || len == 1)
			return bench_err(
				err, errlen,
				"size=%s: expected N%% with N 1 to 100", val);
		memcpy(num, val, len - 1);
		num[len - 1] = 0;
		if (bench_parse_uint(num, 1, 100, &v, buf, sizeof(buf)))
			return bench_err(err, errlen,
					 "size=%s: the percentage must be 1 "
					 "to 100",
					 val);
		job->size_pct = (unsigned)v;
		job->size = 0;
		return 0;
	}
	if (bench_parse_size_base(val, job->kb_base, &v, buf, sizeof(buf)))
		return bench_err(err, errlen, "size: %s", buf);
	job->size = v;
	job->size_pct = 0;
	return 0;
}

/*
 * fio's directory=: checked when parsed, as fio does ("/x is not a
 * directory"). fio's DIR1:DIR2 spreads files over several directories;
 * mqblk takes one.
 */
static int set_directory(struct bench_job *job, const char *val, char *err,
			 size_t errlen)
{
	struct stat st;
	char *d;

	if (!*val)
		return bench_err(err, errlen, "directory: empty value");
	if (strchr(val, ':'))
		return bench_err(err, errlen,
				 "directory=%s: several directories (':') "
				 "are not supported, name one",
				 val);
	if (stat(val, &st))
		return bench_err(err, errlen,
				 "directory=%s: %s is not a directory (%s)",
				 val, val, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return bench_err(err, errlen,
				 "directory=%s: %s is not a directory", val,
				 val);
	d = strdup(val);
	if (!d)
		return bench_err(err, errlen, "out of memory");
	free(job->directory);
	job->directory = d;
	return 0;
}

/* fio's file_service_type=roundrobin|sequential|random[:N]. */
static int set_file_service(struct bench_job *job, const char *val, char *err,
			    size_t errlen)
{
	static const struct {
		const char *name;
		enum bench_file_service fs;
	} names[] = {
		{ "roundrobin", FILE_SERVICE_ROUNDROBIN },
		{ "sequential", FILE_SERVICE_SEQUENTIAL },
		{ "random", FILE_SERVICE_RANDOM },
	};
	const char *colon = strchr(val, ':');
	size_t len = colon ? (size_t)(colon - val) : strlen(val), i;
	char buf[160];
	uint64_t n = 1;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == len &&
		    !strncmp(val, names[i].name, len))
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return bench_err(err, errlen,
				 "failed parsing file_service_type=%s "
				 "(roundrobin, sequential, random[:N]; "
				 "zipf, pareto, normal, gauss are not "
				 "supported)",
				 val);
	if (colon &&
	    bench_parse_uint(colon + 1, 1, UINT32_MAX, &n, buf, sizeof(buf)))
		return bench_err(err, errlen, "file_service_type=%s: %s", val,
				 buf);
	job->file_service = names[i].fs;
	job->file_service_nr = (unsigned)n;
	return 0;
}

/* fio's filesize=SIZE or LOW-HIGH, also LOW:HIGH (each file's size drawn
 * in the range, fio's file_size_low/high; a range whose high end is below
 * its low is swapped, as fio's range parser does). */
static int set_filesize(struct bench_job *job, const char *val, char *err,
			size_t errlen)
{
	const char *dash = strchr(val, '-');
	char buf[160], low[64];
	uint64_t v, hi = 0;

	if (!dash)
		dash = strchr(val, ':');
	if (dash) {
		if ((size_t)(dash - val) >= sizeof(low))
			return bench_err(err, errlen, "filesize=%s: too long",
					 val);
		memcpy(low, val, (size_t)(dash - val));
		low[dash - val] = 0;
		if (bench_parse_size_base(low, job->kb_base, &v, buf,
					  sizeof(buf)) ||
		    bench_parse_size_base(dash + 1, job->kb_base, &hi, buf,
					  sizeof(buf)))
			return bench_err(err, errlen, "filesize: %s", buf);
		if (hi < v) {
			uint64_t t = v;

			v = hi;
			hi = t;
		}
	} else if (bench_parse_size_base(val, job->kb_base, &v, buf,
					 sizeof(buf))) {
		return bench_err(err, errlen, "filesize: %s", buf);
	}
	if (!v)
		return bench_err(err, errlen, "filesize=%s: must be above 0",
				 val);
	job->filesize = v;
	job->filesize_high = hi > v ? hi : 0;
	return 0;
}

/*
 * fio's per-direction values R[,W[,T]] (rate=, rate_iops=, rate_min=):
 * a value not followed by a comma applies to the directions after it too,
 * an empty field leaves that direction as it was. bytes: sizes, else
 * plain numbers.
 */
static int set_per_ddir(const struct bench_job *job, const char *key,
			const char *val, bool bytes, uint64_t *out, char *err,
			size_t errlen)
{
	const char *p = val;
	char field[64], buf[160];
	uint64_t v[DDIR_NR];
	bool set[DDIR_NR] = { false };
	int d = 0, i;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (d >= DDIR_NR)
			return bench_err(err, errlen,
					 "%s=%s: at most 3 values "
					 "(read,write,trim)",
					 key, val);
		if (len >= sizeof(field))
			return bench_err(err, errlen, "%s=%s: value too long",
					 key, val);
		memcpy(field, p, len);
		field[len] = 0;
		if (len) {
			if (bytes ? bench_parse_size_base(field, job->kb_base,
							  &v[d], buf,
							  sizeof(buf)) :
				    bench_parse_uint(field, 0, UINT64_MAX,
						     &v[d], buf, sizeof(buf)))
				return bench_err(err, errlen, "%s: %s", key,
						 buf);
			set[d] = true;
			if (!comma)
				for (i = d + 1; i < DDIR_NR; i++) {
					v[i] = v[d];
					set[i] = true;
				}
		}
		if (!comma)
			break;
		p = comma + 1;
		d++;
	}
	if (!set[0] && !set[1] && !set[2])
		return bench_err(err, errlen, "%s='%s': no value given", key,
				 val);
	for (i = 0; i < DDIR_NR; i++)
		if (set[i])
			out[i] = v[i];
	return 0;
}

/* fio's thinktime units: a bare number is microseconds. */
static int set_usec_time(const char *key, const char *val, uint64_t *out,
			 char *err, size_t errlen)
{
	char buf[160];
	uint64_t v;

	if (*val && strspn(val, "0123456789") == strlen(val)) {
		if (bench_parse_uint(val, 0, UINT64_MAX / 1000, &v, buf,
				     sizeof(buf)))
			return bench_err(err, errlen, "%s: %s", key, buf);
		*out = v * 1000;
		return 0;
	}
	if (bench_parse_time(val, out, buf, sizeof(buf)))
		return bench_err(err, errlen, "%s: %s", key, buf);
	return 0;
}

/* a number for random_distribution's :V or :C, all of s */
static bool dist_number(const char *s, size_t len, double *out)
{
	char buf[64], *end;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	/* strtod takes "nan" and "inf": refused as the not-numbers they are */
	return !errno && *end == '\0' && isfinite(*out);
}

/*
 * fio's random_distribution=random|zipf[:THETA[:C]]|pareto[:H[:C]]|
 * normal[:DEV[:C]], refused with fio's words where fio refuses (zipf's
 * theta 1.0, pareto's h outside (0, 1), normal's deviation outside
 * [0, 100), a center outside [0, 1]); zoned and zoned_abs by name.
 */
static int set_random_distribution(struct bench_job *job, const char *val,
				   char *err, size_t errlen)
{
	static const struct {
		const char *name;
		enum bench_rand_dist kind;
		double def;
	} names[] = {
		{ "random", DIST_RANDOM, 0.0 },
		{ "zipf", DIST_ZIPF, 1.1 }, /* fio's FIO_DEF_ZIPF */
		{ "pareto", DIST_PARETO, 0.2 }, /* FIO_DEF_PARETO */
		{ "normal", DIST_NORMAL, 0.0 },
	};
	const char *colon = strchr(val, ':'), *c2 = NULL;
	size_t len = colon ? (size_t)(colon - val) : strlen(val), i;
	double v, center = -1.0;

	if ((len == 5 && !strncmp(val, "zoned", 5)) ||
	    (len == 9 && !strncmp(val, "zoned_abs", 9)))
		return bench_err(err, errlen,
				 "random_distribution=%s is not supported: "
				 "zoned distributions are not implemented "
				 "(random, zipf, pareto, normal are)",
				 val);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == len &&
		    !strncmp(val, names[i].name, len))
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return bench_err(err, errlen,
				 "failed parsing random_distribution=%s "
				 "(random, zipf, pareto, normal)",
				 val);
	v = names[i].def;
	if (colon && names[i].kind != DIST_RANDOM) {
		c2 = strchr(colon + 1, ':');
		if (!dist_number(colon + 1,
				 c2 ? (size_t)(c2 - colon - 1) :
				      strlen(colon + 1),
				 &v) ||
		    (c2 && !dist_number(c2 + 1, strlen(c2 + 1), &center)))
			return bench_err(err, errlen,
					 "random postfix parsing failed: "
					 "random_distribution=%s",
					 val);
		if (c2 && (center < 0.0 || center > 1.0))
			return bench_err(err, errlen,
					 "distribution center out of range "
					 "(0 <= center <= 1.0): "
					 "random_distribution=%s",
					 val);
	}
	switch (names[i].kind) {
	case DIST_ZIPF:
		if (v == 1.0)
			return bench_err(err, errlen,
					 "zipf theta must be different than "
					 "1.0: random_distribution=%s",
					 val);
		break;
	case DIST_PARETO:
		if (v <= 0.0 || v >= 1.0)
			return bench_err(err, errlen,
					 "pareto input out of range "
					 "(0 < input < 1.0): "
					 "random_distribution=%s",
					 val);
		break;
	case DIST_NORMAL:
		if (v < 0.0 || v >= 100.0)
			return bench_err(err, errlen,
					 "normal deviation out of range "
					 "(0 <= input < 100.0): "
					 "random_distribution=%s",
					 val);
		break;
	case DIST_RANDOM:
		/* fio ignores a postfix on random: refuse it instead of
		 * silently dropping it */
		if (colon)
			return bench_err(err, errlen,
					 "random_distribution=%s: random "
					 "takes no value",
					 val);
		break;
	}
	job->rand_dist = names[i].kind;
	job->dist_val = v;
	job->dist_center = center;
	job->dist_center_set = c2 != NULL;
	/* the name and two numbers of under 64 characters each fit */
	snprintf(job->rand_dist_str, sizeof(job->rand_dist_str), "%s", val);
	return 0;
}

/*
 * Options whose default mqblk has and whose other values it does not:
 * the default is taken, anything else refused naming why (mqblk-bench(1)'s
 * list of options not implemented).
 */
/* fio 3.33's unified_rw_reporting=none|mixed|both|0|1|2 */
static int set_unified(struct bench_job *job, const char *val, char *err,
		       size_t errlen)
{
	static const char *const names[] = { "none", "mixed", "both" };
	static const char *const nums[] = { "0", "1", "2" };
	unsigned i;

	for (i = 0; val && i < 3; i++)
		if (!strcmp(val, names[i]) || !strcmp(val, nums[i])) {
			job->unified_rw_reporting = i;
			return 0;
		}
	return bench_err(err, errlen,
			 "failed parsing unified_rw_reporting=%s (none, mixed, "
			 "both, 0, 1, 2)",
			 val ? val : "");
}

/* fio's continue_on_error=none|read|write|io|verify|all|0|1 */
static int set_continue_on_error(struct bench_job *job, const char *val,
				 char *err, size_t errlen)
{
	static const struct {
		const char *name;
		unsigned mask;
	} tab[] = {
		{ "none", 0 },
		{ "0", 0 },
		{ "read", 1u << BENCH_ERR_READ },
		{ "write", 1u << BENCH_ERR_WRITE },
		{ "io", (1u << BENCH_ERR_READ) | (1u << BENCH_ERR_WRITE) },
		{ "verify", 1u << BENCH_ERR_VERIFY },
		{ "all", 7 },
		{ "1", 7 },
	};
	size_t i;

	for (i = 0; val && i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(val, tab[i].name)) {
			job->continue_on_error = tab[i].mask;
			return 0;
		}
	return bench_err(err, errlen,
			 "failed parsing continue_on_error=%s (none, read, "
			 "write, io, verify, all, 0, 1)",
			 val ? val : "");
}

/*
 * fio's ignore_error=READ_LIST,WRITE_LIST,VERIFY_LIST: each list errors
 * by name (EIO) or number (5, 0x5) separated by ':'; a list given lets
 * its type's errors go (continue_on_error for that type), only those.
 */
static int set_ignore_error(struct bench_job *job, const char *val, char *err,
			    size_t errlen)
{
	const char *p = val ? val : "";
	unsigned type = 0;

	while (*p == ' ')
		p++;
	for (;; type++) {
		size_t len = strcspn(p, ","), n = 0;
		const char *q = p, *end = p + len;

		if (type >= 3)
			return bench_err(
				err, errlen,
				"failed parsing ignore_error=%s: Illegal "
				"error type (three lists at most: read, "
				"write, verify)",
				val);
		while (q < end) {
			size_t el = strcspn(q, ":,");
			char name[32];
			int e = 0;

			if (!el)
				break; /* fio: an empty entry ends the list */
			if (el >= sizeof(name))
				return bench_err(
					err, errlen,
					"Unknown error %.*s, please use "
					"number value",
					(int)el, q);
			memcpy(name, q, el);
			name[el] = 0;
			if (name[0] == 'E') {
				int k;

				for (k = 1; k < 200 && !e; k++) {
					const char *en = strerrorname_np(k);

					if (en && !strcmp(en, name))
						e = k;
				}
			} else {
				char *ep;
				long v = strtol(name, &ep, 0);

				if (*ep || v == LONG_MIN || v == LONG_MAX ||
				    v > INT32_MAX || v < -INT32_MAX)
					v = 0;
				e = (int)(v < 0 ? -v : v);
			}
			if (!e)
				return bench_err(err, errlen,
						 "Unknown error %s, please use "
						 "number value",
						 name);
			if (n == BENCH_IGNORE_ERROR_MAX)
				return bench_err(
					err, errlen,
					"ignore_error=%s: more than %u "
					"errors in a list",
					val, BENCH_IGNORE_ERROR_MAX);
			job->ignore_error[type][n++] = e;
			q += el;
			if (*q == ':')
				q++;
		}
		job->ignore_error_nr[type] = (unsigned)n;
		if (n)
			job->continue_on_error |= 1u << type;
		if (!*end)
			break;
		p = end + 1;
	}
	return 0;
}

static int set_default_only(const struct opt *o, const char *val, char *err,
			    size_t errlen)
{
	static const struct {
		const char *name;
		const char *ok[3];
		const char *why;
	} tab[] = {
		{ "dedupe_mode",
		  { "repeat", NULL, NULL },
		  "a dedupe buffer repeats the last unique one (working_set "
		  "is not implemented)" },
		{ "write_barrier",
		  { "0", NULL, NULL },
		  "no barrier writes (use --fsync=N)" },
		{ "verify_dump",
		  { "0", NULL, NULL },
		  "a mismatch is one line on stderr; no block dump files" },
	};
	size_t i, k;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (strcmp(tab[i].name, o->name))
			continue;
		for (k = 0; k < 3 && tab[i].ok[k]; k++)
			if (!strcmp(val, tab[i].ok[k]))
				return 0;
		return bench_err(err, errlen,
				 "%s=%s is not supported: %s (only %s=%s)",
				 o->name, val, tab[i].why, o->name,
				 tab[i].ok[0]);
	}
	return bench_err(err, errlen, "option '%s' has no handler", o->name);
}

/* fio's log options, which may stand bare (the job's name) */
static bool is_log_opt(const char *key)
{
	return !strcmp(key, "write_bw_log") || !strcmp(key, "write_lat_log") ||
	       !strcmp(key, "write_iops_log") || !strcmp(key, "write_hist_log");
}

static int set_special(struct bench_job *job, const struct opt *o,
		       const char *val, char *err, size_t errlen)
{
	char buf[160];
	uint64_t v;

	if (!strcmp(o->name, "sync")) {
		/* fio 3.33's values; the device is opened O_SYNC/O_DSYNC */
		if (!strcmp(val, "none") || !strcmp(val, "0"))
			job->sync_io = 0;
		else if (!strcmp(val, "sync") || !strcmp(val, "1"))
			job->sync_io = MQBLK_OPEN_SYNC;
		else if (!strcmp(val, "dsync"))
			job->sync_io = MQBLK_OPEN_DSYNC;
		else
			return bench_err(err, errlen,
					 "failed parsing sync=%s (valid "
					 "values: none, 0, sync, 1, dsync)",
					 val);
		return 0;
	}
	if (!strcmp(o->name, "kb_base")) {
		/* fio's words, its two lines of valid values in one */
		if (strcmp(val, "1024") && strcmp(val, "1000"))
			return bench_err(err, errlen,
					 "failed parsing kb_base=%s (valid "
					 "values: 1024, 1000)",
					 val);
		job->kb_base = val[3] == '4' ? 1024 : 1000;
		return 0;
	}
	if (!strcmp(o->name, "name")) {
		if (!*val)
			return bench_err(err, errlen, "empty job name");
		if (strlen(val) >= BENCH_NAME_MAX)
			return bench_err(err, errlen,
					 "job name '%.32s...' too long", val);
		snprintf(job->name, sizeof(job->name), "%s", val);
		return 0;
	}
	if (!strcmp(o->name, "rw") || !strcmp(o->name, "readwrite"))
		return set_rw(job, val, err, errlen);
	if (!strcmp(o->name, "bs") || !strcmp(o->name, "blocksize"))
		return set_bs(job, val, err, errlen);
	if (!strcmp(o->name, "bsrange") || !strcmp(o->name, "blocksize_range"))
		return set_bsrange(job, o->name, val, err, errlen);
	if (!strcmp(o->name, "bssplit"))
		return set_bssplit(job, val, err, errlen);
	if (!strcmp(o->name, "ioengine"))
		return set_ioengine(job, val, err, errlen);
	if (!strcmp(o->name, "size"))
		return set_size(job, val, err, errlen);
	if (!strcmp(o->name, "directory"))
		return set_directory(job, val, err, errlen);
	if (!strcmp(o->name, "filesize"))
		return set_filesize(job, val, err, errlen);
	if (!strcmp(o->name, "file_service_type"))
		return set_file_service(job, val, err, errlen);
	if (!strcmp(o->name, "random_distribution"))
		return set_random_distribution(job, val, err, errlen);
	if (!strcmp(o->name, "rate"))
		return set_per_ddir(job, o->name, val, true, job->rate, err,
				    errlen);
	if (!strcmp(o->name, "rate_iops"))
		return set_per_ddir(job, o->name, val, false, job->rate_iops,
				    err, errlen);
	if (!strcmp(o->name, "rate_min") || !strcmp(o->name, "ratemin"))
		return set_per_ddir(job, o->name, val, true, job->rate_min, err,
				    errlen);
	if (!strcmp(o->name, "rate_iops_min"))
		return set_per_ddir(job, o->name, val, false,
				    job->rate_iops_min, err, errlen);
	if (!strcmp(o->name, "rate_process")) {
		if (strcmp(val, "linear") && strcmp(val, "poisson"))
			return bench_err(err, errlen,
					 "failed parsing rate_process=%s "
					 "(linear, poisson)",
					 val);
		job->rate_poisson = !strcmp(val, "poisson");
		return 0;
	}
	if (!strcmp(o->name, "thinktime"))
		return set_usec_time(o->name, val, &job->thinktime_ns, err,
				     errlen);
	if (!strcmp(o->name, "thinktime_spin"))
		return set_usec_time(o->name, val, &job->thinktime_spin_ns, err,
				     errlen);
	if (!strcmp(o->name, "buffer_pattern"))
		return verify_parse_pattern(val, job->buffer_pattern,
					    &job->buffer_pattern_len, err,
					    errlen);
	if (!strcmp(o->name, "buffered")) {
		bool b = true;

		if (val && bench_parse_bool(val, &b, buf, sizeof(buf)))
			return bench_err(err, errlen, "buffered: %s", buf);
		job->direct = !b;
		return 0;
	}
	if (!strcmp(o->name, "write_bw_log") ||
	    !strcmp(o->name, "write_lat_log") ||
	    !strcmp(o->name, "write_iops_log") ||
	    !strcmp(o->name, "write_hist_log")) {
		/* fio: a bare option logs under the job's name */
		char **dst = o->name[6] == 'b' ? &job->bw_log :
			     o->name[6] == 'l' ? &job->lat_log :
			     o->name[6] == 'h' ? &job->hist_log :
						 &job->iops_log;
		/* "": the job's own name, which a [global] line has not */
		char *n = strdup(val ? val : "");

		if (!n)
			return bench_err(err, errlen, "out of memory");
		free(*dst);
		*dst = n;
		return 0;
	}
	if (!strcmp(o->name, "log_compression")) {
		if (!val ||
		    bench_parse_size_base(val, job->kb_base, &v, buf,
					  sizeof(buf)) ||
		    v)
			return bench_err(err, errlen,
					 "log_compression=%s is not "
					 "supported: logs are plain text",
					 val ? val : "");
		return 0;
	}
	if (!strcmp(o->name, "ignore_error"))
		return set_ignore_error(job, val, err, errlen);
	if (!strcmp(o->name, "continue_on_error"))
		return set_continue_on_error(job, val, err, errlen);
	if (!strcmp(o->name, "unified_rw_reporting"))
		return set_unified(job, val, err, errlen);
	if (!strcmp(o->name, "fallocate")) {
		if (val && (!strcmp(val, "none") || !strcmp(val, "0") ||
			    !strcmp(val, "truncate"))) {
			job->fallocate_none = true;
			return 0;
		}
		if (val && (!strcmp(val, "posix") || !strcmp(val, "1") ||
			    !strcmp(val, "native"))) {
			job->fallocate_none = false;
			return 0;
		}
		return bench_err(err, errlen,
				 "fallocate=%s is not supported (none, "
				 "truncate, 0, posix, native, 1; keep is not "
				 "implemented)",
				 val ? val : "");
	}
	if (!strcmp(o->name, "percentile_list"))
		return set_percentiles(job, val, err, errlen);
	if (!strncmp(o->name, "verify", 6) && strcmp(o->name, "verify_dump"))
		return set_verify_opt(job, o, val, err, errlen);
	if (!strcmp(o->name, "fixedbufs")) {
		bool b = true;

		if (val && bench_parse_bool(val, &b, buf, sizeof(buf)))
			return bench_err(err, errlen, "fixedbufs: %s", buf);
		job->fixedbufs = b;
		return 0;
	}
	if (!strcmp(o->name, "cpus_allowed"))
		return set_cpus_allowed(job, val, err, errlen);
	if (!strcmp(o->name, "cpus_allowed_policy")) {
		if (strcmp(val, "shared") && strcmp(val, "split"))
			return bench_err(err, errlen,
					 "cpus_allowed_policy: '%s' is not "
					 "shared or split",
					 val);
		job->cpus_split = !strcmp(val, "split");
		return 0;
	}
	if (!strcmp(o->name, "sqthread_poll_cpu"))
		return bench_err(
			err, errlen,
			"%s is not supported yet (the uring driver has no "
			"such mode)",
			o->name);
	if (!strcmp(o->name, "rwmixwrite")) {
		if (bench_parse_uint(val, 0, 100, &v, buf, sizeof(buf)))
			return bench_err(err, errlen, "rwmixwrite: %s", buf);
		job->rwmixread = 100 - (unsigned)v;
		return 0;
	}
	if (!strcmp(o->name, "randseed")) {
		if (bench_parse_uint(val, 0, UINT64_MAX, &v, buf, sizeof(buf)))
			return bench_err(err, errlen, "randseed: %s", buf);
		job->randseed = v;
		job->randseed_set = true;
		return 0;
	}
	return set_default_only(o, val, err, errlen);
}

int bench_job_set(struct bench_job *job, const char *key, const char *val,
		  char *err, size_t errlen)
{
	const struct opt *o = find_opt(key);
	char *base = (char *)job, buf[160];
	uint64_t v;
	bool b;

	if (!o)
		return BENCH_OPT_UNKNOWN;
	/* fio's bs_unaligned draws lengths off the minimum block size's
	 * grid; mqblk's devices take whole logical blocks, so it is refused
	 * (=0, its default, is fine) */
	if (!strcmp(key, "bs_unaligned") ||
	    !strcmp(key, "blocksize_unaligned")) {
		b = true;
		if (val && bench_parse_bool(val, &b, buf, sizeof(buf)))
			return bench_err(err, errlen, "%s: %s", key, buf);
		if (b)
			return bench_err(
				err, errlen,
				"%s is not supported: mqblk devices take "
				"whole logical blocks, so lengths stay "
				"multiples of the minimum block size",
				key);
		return 0;
	}
	/* fio's --fixedbufs is a bare flag; =0/=1 also do */
	if (!val && o->type != OT_BOOL && strcmp(key, "fixedbufs") &&
	    strcmp(key, "buffered") && !is_log_opt(key))
		return bench_err(err, errlen, "option '%s' needs a value", key);
	switch (o->type) {
	case OT_STR: {
		char **dst = (char **)(base + o->off);
		char *s = strdup(val);

		if (!s)
			return bench_err(err, errlen, "out of memory");
		if (!*s) {
			free(s);
			return bench_err(err, errlen, "%s: empty value", key);
		}
		free(*dst);
		*dst = s;
		return 0;
	}
	case OT_U32:
	case OT_U64:
		if (bench_parse_uint(val, o->min, o->max, &v, buf, sizeof(buf)))
			return bench_err(err, errlen, "%s: %s", key, buf);
		if (o->type == OT_U32)
			*(unsigned *)(base + o->off) = (unsigned)v;
		else
			*(uint64_t *)(base + o->off) = v;
		return 0;
	case OT_SIZE:
		if (bench_parse_size_base(val, job->kb_base, &v, buf,
					  sizeof(buf)))
			return bench_err(err, errlen, "%s: %s", key, buf);
		*(uint64_t *)(base + o->off) = v;
		return 0;
	case OT_TIME:
		if (bench_parse_time(val, &v, buf, sizeof(buf)))
			return bench_err(err, errlen, "%s: %s", key, buf);
		*(uint64_t *)(base + o->off) = v;
		return 0;
	case OT_BOOL:
		b = true;
		if (val && bench_parse_bool(val, &b, buf, sizeof(buf)))
			return bench_err(err, errlen, "%s: %s", key, buf);
		*(bool *)(base + o->off) = b;
		return 0;
	case OT_SPECIAL:
		return set_special(job, o, val, err, errlen);
	}
	return bench_err(err, errlen, "option '%s': bad type", key);
}

/* ---- whole configuration ---- */

static bool uri_is_path(const char *uri)
{
	return uri && (uri[0] == '/' || uri[0] == '.');
}

/* --registerfiles / --sqthread_poll become the uring driver's URI keys. */
static int job_fixup_uring(struct bench_job *job, char *err, size_t errlen)
{
	const char *opt = job->registerfiles ? "registerfiles" :
					       "sqthread_poll";
	size_t len;
	char *uri;

	if (job->fixedbufs == 1 && !uri_is_path(job->filename))
		return bench_err(
			err, errlen,
			"%s: --fixedbufs is only for a path device (filename '%s')",
			job->name, job->filename ? job->filename : "null");
	if (!job->registerfiles && !job->sqthread_poll)
		return 0;
	if (!uri_is_path(job->filename))
		return bench_err(
			err, errlen,
			"%s: --%s is only for a path device (filename '%s')",
			job->name, opt, job->filename ? job->filename : "null");
	len = strlen(job->filename) + 40;
	uri = malloc(len);
	if (!uri)
		return bench_err(err, errlen, "out of memory");
	snprintf(uri, len, "%s%s%s%s%s", job->filename,
		 strchr(job->filename, '?') ? "," : "?",
		 job->registerfiles ? "registerfiles=1" : "",
		 job->registerfiles && job->sqthread_poll ? "," : "",
		 job->sqthread_poll ? "sqpoll=1" : "");
	free(job->filename);
	job->filename = uri;
	/* done: a second fixup must not append again */
	job->registerfiles = job->sqthread_poll = false;
	return 0;
}

/* The value of key in a device URI's parameters (length in *len), or
 * NULL. Keys follow ':', '?', ',' or '&'. */
static const char *uri_key(const char *uri, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	const char *p = strpbrk(uri, ":?");

	if (!strncmp(uri, "nvme-tcp://", 11))
		p = strchr(uri, '?');
	while (p) {
		p++;
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			p += kl + 1;
			*len = strcspn(p, ",&");
			return p;
		}
		p = strpbrk(p, ",&");
	}
	return NULL;
}

/*
 * --ioscheduler (fio writes the device's sysfs scheduler file): here it
 * becomes the core key scheduler=NAME of the job's device URI. The same
 * key already in the URI must agree with it.
 */
static int job_fixup_sched(struct bench_job *job, char *err, size_t errlen)
{
	const char *uri = job->filename ? job->filename : "null", *v, *sep;
	size_t len;
	char *nu;

	if (!job->ioscheduler)
		return 0;
	if (strcmp(job->ioscheduler, "none") &&
	    strcmp(job->ioscheduler, "mq-deadline"))
		return bench_err(
			err, errlen,
			"%s: bad --ioscheduler '%s': expected none or mq-deadline",
			job->name, job->ioscheduler);
	v = uri_key(uri, "scheduler", &len);
	if (v) {
		if (len == strlen(job->ioscheduler) &&
		    !strncmp(v, job->ioscheduler, len))
			goto done;
		return bench_err(
			err, errlen,
			"%s: --ioscheduler=%s conflicts with scheduler=%.*s in filename '%s'",
			job->name, job->ioscheduler, (int)len, v, uri);
	}
	if (uri_is_path(uri))
		sep = strchr(uri, '?') ? "," : "?";
	else if (!strncmp(uri, "nvme-tcp://", 11))
		sep = strchr(uri, '?') ? "&" : "?";
	else
		sep = strchr(uri, ':') ? "," : ":";
	len = strlen(uri) + strlen(job->ioscheduler) + 16;
	nu = malloc(len);
	if (!nu)
		return bench_err(err, errlen, "out of memory");
	snprintf(nu, len, "%s%sscheduler=%s", uri, sep, job->ioscheduler);
	free(job->filename);
	job->filename = nu;
done:
	/* applied: a second fixup must not append again */
	free(job->ioscheduler);
	job->ioscheduler = NULL;
	return 0;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * --verify with lengths that vary: fio's fixup_options picks the header
 * interval (a header per interval of each write, so any extent of it reads
 * back on its own): the minimum write size unless given, at most that
 * (or the minimum read size for a job that reads), and dividing both the
 * minimum and the maximum write size, else their gcd. Every length drawn
 * is a multiple of the minimum or the maximum, so the interval divides it.
 */
static int fixup_verify_mixed(struct bench_job *job, char *err, size_t errlen)
{
	enum bench_ddir w = bench_job_bs_slot(job, DDIR_WRITE);
	enum bench_ddir r = bench_job_bs_slot(job, DDIR_READ);
	uint64_t iv = job->verify_interval, lo = job->bs[w],
		 hi = job->bs_max[w];

	if (!iv)
		iv = lo;
	if (iv > lo)
		iv = lo;
	else if (job->rw != RW_WRITE && job->rw != RW_RANDWRITE &&
		 iv > job->bs[r])
		iv = job->bs[r];
	if (!iv || lo % iv || hi % iv)
		iv = gcd64(lo, hi);
	if (iv <= VERIFY_HDR_SIZE)
		return bench_err(
			err, errlen,
			"%s: verify interval %llu (from block sizes %llu-%llu) "
			"is too small for a verify header (%u bytes)",
			job->name, (unsigned long long)iv,
			(unsigned long long)lo, (unsigned long long)hi,
			VERIFY_HDR_SIZE);
	job->verify_interval = (uint32_t)iv;
	return 0;
}

static int job_fixup_verify(struct bench_job *job, char *err, size_t errlen)
{
	uint64_t bs =
		job->bs[bench_job_writes(job) || job->verify_only ? DDIR_WRITE :
								    DDIR_READ];

	if (!job->verify) {
		if (job->verify_only || job->verify_backlog)
			return bench_err(err, errlen, "%s: --%s needs --verify",
					 job->name,
					 job->verify_only ? "verify_only" :
							    "verify_backlog");
		return 0;
	}
	if (job->rw == RW_TRIM || job->rw == RW_RANDTRIM)
		return bench_err(
			err, errlen,
			"%s: --verify needs a read or write workload, not "
			"trim",
			job->name);
	if (job->verify == BENCH_VERIFY_PATTERN && !job->verify_pattern_len)
		return bench_err(err, errlen,
				 "%s: verify=pattern needs --verify_pattern",
				 job->name);
	if (bench_job_bs_mixed(job, bench_job_bs_slot(job, DDIR_WRITE)) ||
	    bench_job_bs_mixed(job, bench_job_bs_slot(job, DDIR_READ)))
		return fixup_verify_mixed(job, err, errlen);
	if (job->verify_interval && bs % job->verify_interval)
		return bench_err(
			err, errlen,
			"%s: verify_interval %u does not divide the block "
			"size %llu",
			job->name, job->verify_interval,
			(unsigned long long)bs);
	if ((job->verify_interval ? job->verify_interval : bs) <=
	    VERIFY_HDR_SIZE)
		return bench_err(
			err, errlen,
			"%s: block size %llu is too small for a verify "
			"header (%u bytes)",
			job->name, (unsigned long long)bs, VERIFY_HDR_SIZE);
	return 0;
}

/* fio's engines that do I/O to files: mqblk's path driver plays them. */
static bool engine_is_file(const char *engine)
{
	return engine && strcmp(engine, "null") && strcmp(engine, "mqblk");
}

/* A --filename that names a file by a relative path with no "./": fio
 * opens it in the working directory; mqblk's URIs need the "./". */
static bool filename_is_bare_path(const char *f)
{
	return f[0] != '/' && f[0] != '.' && !strchr(f, ':') &&
	       strcmp(f, "null") && strncmp(f, "nvme-tcp://", 11);
}

/*
 * Where the job's I/O goes (enum bench_target). fio with a file engine and
 * no --filename makes jobname.jobnum.filenum in --directory; so does
 * mqblk, instead of measuring the null device while naming libaio. For
 * TARGET_JOBFILES, filename becomes clone 0's file (DIR/NAME.0.0) so the
 * URI keys the fixups after this one add follow it; the runner makes
 * clone N's from it (bench_clone_uri).
 */
static int job_fixup_target(struct bench_job *job, char *err, size_t errlen)
{
	/* no engine but options only files have: fio's default psync */
	bool file_engine = engine_is_file(job->ioengine) ||
			   (!job->ioengine && !job->filename &&
			    (job->directory || job->filesize ||
			     job->create_on_open || job->unlink));
	const char *dir = job->directory ? job->directory : ".";
	size_t len;
	char *p;

	if (job->nrfiles > 1 && (job->filename || !file_engine))
		return bench_err(err, errlen,
				 "%s: nrfiles=%u: more files than one are "
				 "fio's jobname files, for a file engine with "
				 "no --filename",
				 job->name, job->nrfiles);
	if (!job->filename) {
		if (!file_engine) {
			/* an explicit ioengine=null is asked for; no engine
			 * at all is the default the report names plainly */
			job->target = job->ioengine && !strcmp(job->ioengine,
							       "null") ?
					      TARGET_URI :
					      TARGET_NULL_DEFAULT;
			goto no_files;
		}
		job->target = TARGET_JOBFILES;
		if (!job->size && !job->filesize && !job->size_pct)
			return bench_err(
				err, errlen,
				"%s: you need to specify size=", job->name);
		/* fio: size= spread over the files, each one that much
		 * past the offset */
		if (!job->filesize && !job->size_pct)
			job->filesize =
				job->nrfiles > 1 ?
					job->offset + job->size / job->nrfiles :
					job->size;
		/* size=N% is of each file's size: --filesize's, else the
		 * size the files have when the job runs (bench_file_io_size,
		 * or for one file job_resolve's, of the device); kept for
		 * the runner but with one file of a known size */
		if (job->size_pct && job->filesize && job->nrfiles == 1 &&
		    !job->filesize_high) {
			job->size = job->filesize * job->size_pct / 100;
			job->size_pct = 0;
		}
		len = strlen(dir) + strlen(job->name) + 32;
		p = malloc(len);
		if (!p)
			return bench_err(err, errlen, "out of memory");
		/* "./" keeps a relative directory a path URI */
		snprintf(p, len, "%s%s/%s.0.0",
			 dir[0] == '/' || dir[0] == '.' ? "" : "./", dir,
			 job->name);
		job->filename = p;
		return 0;
	}
	if (job->ioengine && !strcmp(job->ioengine, "mqblk")) {
		job->target = TARGET_URI;
		goto no_files;
	}
	job->path_may_create = file_engine;
	if (filename_is_bare_path(job->filename) ||
	    (job->directory && job->filename[0] == '.')) {
		job->path_may_create = true;
		/* fio: directory/filename for a relative filename */
		len = strlen(dir) + strlen(job->filename) + 4;
		p = malloc(len);
		if (!p)
			return bench_err(err, errlen, "out of memory");
		snprintf(p, len, "%s%s/%s",
			 dir[0] == '/' || dir[0] == '.' ? "" : "./", dir,
			 job->filename);
		free(job->filename);
		job->filename = p;
	}
	if (job->filename[0] == '/' || job->filename[0] == '.') {
		job->target = TARGET_PATH;
		if (job->size_pct && job->filesize)
			return bench_err(err, errlen,
					 "%s: size=%u%% and filesize= together",
					 job->name, job->size_pct);
		return 0;
	}
	job->target = TARGET_URI;
no_files:
	if (job->directory)
		return bench_err(err, errlen,
				 "%s: --directory is for files, and '%s' is "
				 "not one",
				 job->name,
				 job->filename ? job->filename : "null");
	if (job->filesize || job->create_on_open || job->unlink)
		return bench_err(err, errlen,
				 "%s: --%s is for files, and '%s' is not one",
				 job->name,
				 job->filesize	     ? "filesize" :
				 job->create_on_open ? "create_on_open" :
						       "unlink",
				 job->filename ? job->filename : "null");
	return 0;
}

/* fio's rate checks (fixup_options): one of rate and rate_iops per
 * direction, a minimum not above its rate; thinktime_spin within it. */
static int job_fixup_rate(struct bench_job *job, char *err, size_t errlen)
{
	int d;

	for (d = 0; d < DDIR_NR; d++) {
		if ((job->rate[d] && job->rate_iops[d]) ||
		    (job->rate[d] && job->rate_iops_min[d]) ||
		    (job->rate_iops[d] && job->rate_min[d]))
			return bench_err(err, errlen,
					 "%s: rate and rate_iops are mutually "
					 "exclusive",
					 job->name);
		if ((job->rate[d] && job->rate[d] < job->rate_min[d]) ||
		    (job->rate_iops[d] &&
		     job->rate_iops[d] < job->rate_iops_min[d]))
			return bench_err(err, errlen,
					 "%s: minimum rate exceeds rate",
					 job->name);
	}
	if ((job->lat_log || job->bw_log || job->iops_log) && job->gtod_reduce)
		return bench_err(err, errlen,
				 "%s: write_%s_log needs the timing "
				 "gtod_reduce turns off",
				 job->name,
				 job->lat_log ? "lat" :
				 job->bw_log  ? "bw" :
						"iops");
	if (job->thinktime_spin_ns > job->thinktime_ns)
		return bench_err(err, errlen,
				 "%s: thinktime_spin is longer than "
				 "thinktime",
				 job->name);
	if (job->offset_increment && job->target == TARGET_JOBFILES &&
	    job->filesize &&
	    job->offset + (job->numjobs - 1) * job->offset_increment +
			    (job->size ? job->size : 1) >
		    job->filesize)
		return bench_err(err, errlen,
				 "%s: offset_increment puts clone %u past "
				 "the end of its %llu-byte file",
				 job->name, job->numjobs - 1,
				 (unsigned long long)job->filesize);
	return 0;
}

static int job_fixup(struct bench_job *job, char *err, size_t errlen)
{
	unsigned depth = job->iodepth;
	int d;

	/* fio's fixup_options */
	for (d = 0; d < DDIR_NR; d++)
		if (job->bs_max[d] < job->bs[d]) /* a job built by hand */
			job->bs_max[d] = job->bs[d];
	/* fio: fully compressible is zero buffers; compressible or dedupable
	 * content is made for every write (refill_buffers) */
	if (job->compress_pct == 100) {
		job->zero_buffers = true;
		job->compress_pct = 0;
	}
	if (job->compress_pct || job->dedupe_pct) {
		if (job->zero_buffers)
			return bench_err(err, errlen,
					 "%s: zero_buffers and "
					 "buffer_compress_percentage or "
					 "dedupe_percentage together",
					 job->name);
		if (!job->compress_chunk)
			return bench_err(err, errlen,
					 "%s: buffer_compress_chunk must be "
					 "above 0",
					 job->name);
		job->refill_buffers = true;
	}
	if (!job->iodepth_batch_submit || job->iodepth_batch_submit > depth)
		job->iodepth_batch_submit = depth;
	/* fio: an unset (0) or too small complete_max is raised to
	 * complete_min (default 1: reap one at a time once the queue is
	 * full); neither is clamped to iodepth, getevents is */
	if (job->iodepth_batch_complete_min > job->iodepth_batch_complete_max)
		job->iodepth_batch_complete_max =
			job->iodepth_batch_complete_min;
	if (!job->iodepth_low || job->iodepth_low > depth)
		job->iodepth_low = depth;
	if (job->gtod_reduce) {
		/* fio: gtod_reduce turns off every latency measurement */
		job->clat_percentiles = false;
		job->lat_percentiles = false;
		job->slat_percentiles = false;
	}
	/* fio: a latency not measured has no percentiles either */
	if (job->disable_clat)
		job->clat_percentiles = false;
	if (job->disable_lat)
		job->lat_percentiles = false;
	if (job->disable_slat)
		job->slat_percentiles = false;
	/* fio would log a histogram nothing fills: zeros */
	if (job->hist_log && job->log_hist_msec && !job->clat_percentiles)
		return bench_err(err, errlen,
				 "%s: write_hist_log logs the clat histogram, "
				 "which %s turns off",
				 job->name,
				 job->gtod_reduce  ? "gtod_reduce" :
				 job->disable_clat ? "disable_clat" :
						     "clat_percentiles=0");
	if (job->time_based && !job->runtime_ns)
		return bench_err(
			err, errlen,
			"%s: time_based needs a runtime (fio would run "
			"forever)",
			job->name);
	if (job->ioengine && !strcmp(job->ioengine, "null") && job->filename &&
	    strncmp(job->filename, "null", 4))
		return bench_err(err, errlen,
				 "%s: ioengine=null runs the null device, not "
				 "filename '%s'",
				 job->name, job->filename);
	if (job_fixup_target(job, err, errlen) ||
	    job_fixup_rate(job, err, errlen) ||
	    job_fixup_uring(job, err, errlen) ||
	    job_fixup_sched(job, err, errlen) ||
	    job_fixup_verify(job, err, errlen))
		return -1;
	return 0;
}

int bench_config_finish(struct bench_config *cfg, char *err, size_t errlen)
{
	unsigned i, groupid = 0, in_group = 0;

	if (!cfg->nr_jobs)
		return bench_err(
			err, errlen,
			"no job defined: give --name=NAME or a job file "
			"(see mqblk bench --help)");
	for (i = 0; i < cfg->nr_jobs; i++) {
		struct bench_job *job = &cfg->jobs[i];

		if (job_fixup(job, err, errlen))
			return -1;
		/* fio's add_job: stonewall/new_group opens a new group
		 * unless the current one is still empty */
		if ((job->stonewall || job->new_group) && in_group) {
			groupid++;
			in_group = 0;
		}
		job->groupid = groupid;
		in_group++;
	}
	return 0;
}

/* ---- command line ---- */

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = 0;
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static int set_output_format(struct bench_config *cfg, const char *val,
			     char *err, size_t errlen)
{
	char buf[128], *tok, *save = NULL;
	unsigned mask = 0;

	if (strlen(val) >= sizeof(buf))
		return bench_err(err, errlen,
				 "output-format '%.32s...' too long", val);
	strcpy(buf, val);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "normal"))
			mask |= OUTPUT_NORMAL;
		else if (!strcmp(tok, "json"))
			mask |= OUTPUT_JSON;
		else if (!strcmp(tok, "json+"))
			mask |= OUTPUT_JSONPLUS;
		else if (!strcmp(tok, "terse"))
			mask |= OUTPUT_TERSE;
		else
			return bench_err(
				err, errlen,
				"unknown output-format '%s' (normal, json, "
				"json+, terse)",
				tok);
	}
	if (!mask)
		return bench_err(err, errlen, "empty output-format");
	/* fio: json+ includes json; printing both would repeat it */
	if (mask & OUTPUT_JSONPLUS)
		mask &= ~OUTPUT_JSON;
	cfg->output_format = mask;
	return 0;
}

/* Options of the whole run, not of a job, and whether each takes a value. */
static const struct global_opt {
	const char *name;
	bool value;
} global_opts[] = {
	{ "output-format", true },
	{ "output", true },
	{ "eta", true },
	{ "help", false },
	{ "h", false },
	{ "version", false },
	{ "minimal", false },
	{ "terse-version", true },
	{ "status-interval", true },
	{ "eta-newline", true },
	{ "eta-interval", true },
};

static const struct global_opt *find_global(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(global_opts) / sizeof(global_opts[0]); i++)
		if (!strcmp(global_opts[i].name, key))
			return &global_opts[i];
	return NULL;
}

/* Set a global option. 1 = not one of these. */
static int set_global(struct bench_config *cfg, const char *key,
		      const char *val, char *err, size_t errlen)
{
	const struct global_opt *g = find_global(key);

	if (!g)
		return 1;
	if (!strcmp(key, "help") || !strcmp(key, "h")) {
		cfg->help = true;
		return 0;
	}
	if (!strcmp(key, "version")) {
		cfg->version = true;
		return 0;
	}
	if (!strcmp(key, "minimal")) {
		/* fio: the same as --output-format=terse */
		cfg->output_format = OUTPUT_TERSE;
		return 0;
	}
	if (!val || !*val)
		return bench_err(err, errlen, "option '%s' needs a value", key);
	if (!strcmp(key, "terse-version")) {
		char buf[128];
		uint64_t v;

		if (bench_parse_uint(val, 2, 5, &v, buf, sizeof(buf)))
			return bench_err(err, errlen,
					 "bad terse version format '%s' (2, "
					 "3, 4 or 5)",
					 val);
		cfg->terse_version = (unsigned)v;
		return 0;
	}
	if (!strcmp(key, "status-interval") || !strcmp(key, "eta-newline") ||
	    !strcmp(key, "eta-interval")) {
		char buf[128];
		uint64_t ns;

		if (bench_parse_time(val, &ns, buf, sizeof(buf)))
			return bench_err(err, errlen, "%s: %s", key, buf);
		if (!ns)
			return bench_err(err, errlen, "%s=%s: must be above 0",
					 key, val);
		if (!strcmp(key, "status-interval")) {
			cfg->status_interval_ns = ns;
		} else if (!strcmp(key, "eta-newline")) {
			cfg->eta_newline_set = true;
			cfg->eta_newline_ns = ns;
		} else {
			cfg->eta_interval_ns = ns;
		}
		return 0;
	}
	if (!strcmp(key, "output-format"))
		return set_output_format(cfg, val, err, errlen);
	if (!strcmp(key, "output")) {
		free(cfg->output);
		cfg->output = strdup(val);
		return cfg->output ? 0 :
				     bench_err(err, errlen, "out of memory");
	}
	if (!strcmp(val, "auto"))
		cfg->eta = ETA_AUTO;
	else if (!strcmp(val, "always"))
		cfg->eta = ETA_ALWAYS;
	else if (!strcmp(val, "never"))
		cfg->eta = ETA_NEVER;
	else
		return bench_err(err, errlen,
				 "unknown eta '%s' (auto, always, never)", val);
	return 0;
}

/*
 * fio parses its command line with getopt_long_only, so an option (a
 * job's or the run's) may be cut short while what is left names one only
 * (--group_report is --group_reporting); an exact name always wins.
 * Job files take whole names only, as fio's do. key is rewritten to the
 * whole name; -1 with a message when the prefix names several.
 */
static int complete_key(char *key, size_t size, char *err, size_t errlen)
{
	const size_t nr_job_opts = sizeof(job_opts) / sizeof(job_opts[0]);
	const size_t nr_globals = sizeof(global_opts) / sizeof(global_opts[0]);
	const char *hit = NULL;
	char also[128] = "";
	size_t i, len = strlen(key), n = 0;

	if (find_opt(key) || find_global(key))
		return 0;
	for (i = 0; i < nr_job_opts + nr_globals; i++) {
		const char *name = i < nr_job_opts ?
					   job_opts[i].name :
					   global_opts[i - nr_job_opts].name;

		if (strncmp(name, key, len))
			continue;
		if (n++)
			snprintf(also + strlen(also),
				 sizeof(also) - strlen(also), "%s%s",
				 strlen(also) ? ", " : "", name);
		else
			hit = name;
	}
	if (n > 1)
		return bench_err(err, errlen,
				 "option '--%s' is ambiguous: %s, %s", key, hit,
				 also);
	if (n == 1 && strlen(hit) < size)
		strcpy(key, hit);
	return 0;
}

/* Does this option take a value (so "--key value" may use the next arg)? */
static bool takes_value(const char *key)
{
	const struct opt *o = find_opt(key);
	const struct global_opt *g;

	if (o)
		return o->type != OT_BOOL && strcmp(key, "fixedbufs") &&
		       strcmp(key, "buffered") && !is_log_opt(key) &&
		       strcmp(key, "bs_unaligned") &&
		       strcmp(key, "blocksize_unaligned");
	g = find_global(key);
	return g && g->value;
}

int bench_parse_args(int argc, char **argv, struct bench_config *cfg, char *err,
		     size_t errlen)
{
	struct bench_job global, cur;
	bool in_job = false;
	const char **files;
	int i, nr_files = 0, ret = -1;

	memset(cfg, 0, sizeof(*cfg));
	cfg->output_format = OUTPUT_NORMAL;
	cfg->eta = ETA_AUTO;
	cfg->terse_version = 3;
	cfg->eta_interval_ns = 1000000000ull;
	bench_job_defaults(&global);
	bench_job_defaults(&cur);
	cfg->cmdline = join_args(argc, argv);
	files = calloc((size_t)argc, sizeof(*files));
	if (!cfg->cmdline || !files) {
		free(files);
		return bench_err(err, errlen, "out of memory");
	}

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *val;
		char key[64], msg[256];
		size_t klen;
		int r;

		if (arg[0] != '-' || !arg[1]) {
			/* a job file: read once the whole command line is,
			 * as fio does, so every command-line global (before
			 * or after it) is a default of its jobs */
			files[nr_files++] = arg;
			continue;
		}
		arg += arg[1] == '-' ? 2 : 1;
		val = strchr(arg, '=');
		klen = val ? (size_t)(val - arg) : strlen(arg);
		if (!klen || klen >= sizeof(key)) {
			bench_err(err, errlen, "bad option '%s'", argv[i]);
			goto out;
		}
		memcpy(key, arg, klen);
		key[klen] = 0;
		if (complete_key(key, sizeof(key), err, errlen))
			goto out;
		if (val)
			val++;
		else if (takes_value(key) && i + 1 < argc)
			val = argv[++i];

		r = set_global(cfg, key, val, err, errlen);
		if (r < 0)
			goto out;
		if (r == 0)
			continue;
		if (!strcmp(key, "name")) {
			if (in_job) {
				if (bench_config_add_job(cfg, &cur, err,
							 errlen))
					goto out;
				bench_job_free(&cur);
			}
			if (bench_job_copy(&cur, &global)) {
				bench_err(err, errlen, "out of memory");
				goto out;
			}
			in_job = true;
		}
		r = bench_job_set(in_job ? &cur : &global, key, val, msg,
				  sizeof(msg));
		if (r == BENCH_OPT_UNKNOWN) {
			bench_err(
				err, errlen,
				"unknown option '--%s' (see mqblk bench --help)",
				key);
			goto out;
		}
		if (r) {
			bench_err(err, errlen, "%s", msg);
			goto out;
		}
	}
	if (in_job) {
		if (bench_config_add_job(cfg, &cur, err, errlen))
			goto out;
		in_job = false;
	}
	/* fio's order: the command line's own jobs, then the files' */
	for (i = 0; i < nr_files; i++)
		if (bench_parse_jobfile(files[i], &global, cfg, err, errlen))
			goto out;
	if (cfg->help || cfg->version) {
		ret = 0;
		goto out;
	}
	ret = bench_config_finish(cfg, err, errlen);
out:
	free(files);
	bench_job_free(&cur);
	bench_job_free(&global);
	return ret;
}

void bench_usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk bench [options] [jobfile...]\n"
		"\n"
		"fio's options and meanings; options before the first --name are\n"
		"global, --name starts a job, a bare argument is a fio job file\n"
		"(INI: [global] and [job] sections, ; and # comments, ${VAR}).\n"
		"Sizes take fio's suffixes: k m g t p (powers of 1024; KiB, MiB\n"
		"... are powers of 1000, as in fio's default kb_base=1024).\n"
		"  --kb_base=1000|1024   1000: k m ... are powers of 1000 and KiB\n"
		"                        MiB ... of 1024 in the sizes after it; the\n"
		"                        report puts kB/s, MB before KiB/s, MiB\n"
		"Times: a bare number is seconds; us ms s m h d.\n"
		"\n"
		"job options:\n"
		"  --name=NAME              start a job\n"
		"  --filename=URI           the device (kinds below); a bare name is a\n"
		"                           file in the working directory; none with a\n"
		"                           file engine: fio's NAME.CLONE.0, laid out\n"
		"                           first; none and no engine: the null device\n"
		"  --directory=DIR          where those files go (default .)\n"
		"  --filesize=SIZE|LOW-HIGH --nrfiles=N --file_service_type=roundrobin|\n"
		"                           sequential|random[:N]\n"
		"  --create_on_open --unlink   make files at open / remove them after\n"
		"  --size=N%%               N %% of the device past --offset (of each\n"
		"                           file, with --nrfiles)\n"
		"  --ioengine=NAME          fio engine names map onto mqblk drivers:\n"
		"                           io_uring libaio psync sync pvsync pvsync2\n"
		"                           posixaio: the path (uring) driver, which\n"
		"                           plays their role for a path --filename;\n"
		"                           null: the null device (error with a path);\n"
		"                           mqblk: whatever driver --filename names\n"
		"  --rw=read|write|randread|randwrite|rw|readwrite|randrw|trim|randtrim\n"
		"  --rwmixread=PCT --rwmixwrite=PCT   mix for rw/randrw (default 50)\n"
		"  --bs=SIZE[,W[,T]]        block size per direction (default 4k)\n"
		"  --bsrange=MIN-MAX[,W[,T]]  each I/O's length drawn from the range\n"
		"                           (a multiple of MIN, or MAX), as fio\n"
		"  --bssplit=BS/PCT:...[,W[,T]]  lengths in these proportions; an\n"
		"                           entry without PCT shares what is left\n"
		"  --bs_is_seq_rand         bs R,W mean sequential,random\n"
		"                           (bs_unaligned is refused)\n"
		"  --size=SIZE --offset=SIZE   region of the device (default all)\n"
		"  --iodepth=N              requests in flight (default 1)\n"
		"  --iodepth_low=N          refill when in-flight drops to N\n"
		"  --iodepth_batch_submit=N (--iodepth_batch) submit N at once\n"
		"  --iodepth_batch_complete_min=N --iodepth_batch_complete_max=N\n"
		"  --numjobs=N              clones of the job, one thread each\n"
		"  --cpus_allowed=LIST --cpus_allowed_policy=shared|split\n"
		"                           CPUs the job threads run on (0,2-3)\n"
		"  --runtime=TIME --time_based --ramp_time=TIME --number_ios=N\n"
		"  --loops=N                passes over the region\n"
		"  --hipri                  polled completion (no interrupts)\n"
		"  --direct=0|1             O_DIRECT, buffers 4 KiB aligned (no effect on\n"
		"                           the null device)\n"
		"  --registerfiles --sqthread_poll   uring: registered file, SQPOLL\n"
		"                           (path devices; URI keys registerfiles=1,\n"
		"                           sqpoll=1)\n"
		"  --fixedbufs[=0|1]        register the I/O buffers with the device's\n"
		"                           rings (fio: off; mqblk: on wherever the\n"
		"                           device takes them; =0 to go without)\n"
		"  --ioscheduler=none|mq-deadline   the device's I/O scheduler (URI\n"
		"                           key scheduler=; a different scheduler= in\n"
		"                           the filename is an error)\n"
		"  --fsync=N --fdatasync=N  a flush after every N writes (fio's sync)\n"
		"  --end_fsync              a flush at the end of the job\n"
		"  --thread                 accepted: mqblk always runs jobs as threads\n"
		"  --group_reporting --stonewall --new_group\n"
		"  --norandommap --randrepeat=0|1 --randseed=N\n"
		"  --random_distribution=random|zipf[:THETA[:C]]|pareto[:H[:C]]|\n"
		"                           normal[:DEV[:C]]   fio's offset laws\n"
		"  --gtod_reduce            no per-I/O latency accounting\n"
		"  --clat_percentiles --lat_percentiles --slat_percentiles\n"
		"  --percentile_list=P:P:...   e.g. 50:99:99.99\n"
		"  --description=TEXT\n"
		"  --disable_lat --disable_clat --disable_slat   that latency unmeasured\n"
		"  --refill_buffers         new random data in every write\n"
		"  aliases: --blocksize (bs) --blocksize_range (bsrange)\n"
		"    --blocksize_unaligned (bs_unaligned, refused) --wait_for_previous\n"
		"    (stonewall) --iodepth_batch_complete (..._min) --ratemin\n"
		"    (rate_min) --threads (thread) --readwrite (rw) --timeout\n"
		"    (runtime) --io_limit (io_size)\n"
		"  --buffer_compress_percentage=N --buffer_compress_chunk=SIZE\n"
		"    --dedupe_percentage=N --dedupe_mode=repeat  write buffers that\n"
		"                           compress by N%% / repeat N%% of the time\n"
		"  refused with the reason: --sqthread_poll_cpu\n"
		"    --write_barrier\n"
		"    --verify_dump (other than 0)\n"
		"  --rate=R[,W[,T]] --rate_iops=R[,W[,T]]  bytes/s, IOPS per direction\n"
		"  --rate_min=... --rate_iops_min=...  fail below (1 s cycles)\n"
		"  --rate_process=linear|poisson\n"
		"  --thinktime=TIME (bare: us) --thinktime_spin=TIME\n"
		"  --thinktime_blocks=N     stall after every N I/Os\n"
		"  --io_size=SIZE (--io_limit)   I/O per pass, wrapping over the region\n"
		"  --startdelay=TIME --offset_increment=SIZE --exitall\n"
		"  --zero_buffers --buffer_pattern=P --invalidate=0|1 --buffered=0|1\n"
		"  --write_bw_log[=NAME] --write_lat_log[=NAME] --write_iops_log[=NAME]\n"
		"                           fio's NAME_bw.N.log ... (bare: the job's name)\n"
		"  --log_avg_msec=MS --log_offset --log_max_value --per_job_logs=0|1\n"
		"  --write_hist_log[=NAME] --log_hist_msec=MS --log_hist_coarseness=0..6\n"
		"                           fio's NAME_clat_hist.N.log: the clat histogram\n"
		"                           every MS (none without it), 1856 >> N buckets\n"
		"  (refused: --log_compression)\n"
		"  --sync=none|0|sync|1|dsync  open the file O_SYNC / O_DSYNC (a device\n"
		"                        that cannot is refused)\n"
		"  --unified_rw_reporting=none|mixed|both  read, write and trim\n"
		"                           reported apart, as one 'mixed', or both\n"
		"  --continue_on_error=none|read|write|io|verify|all  errors of\n"
		"                           those types (EIO, EILSEQ) let go, counted\n"
		"  --ignore_error=READ,WRITE,VERIFY  errnos to let go per type, each\n"
		"                           list NAME:NUMBER:... (ENOSPC:122)\n"
		"  --error_dump=0|1         say each error let go (default 1)\n"
		"  --fallocate=none|truncate|posix|native  a write-only job's layout\n"
		"                           sparse, or allocated (the default)\n"
		"\n"
		"verification (fio's): every block written carries a header (offset,\n"
		"length, seed, checksums); then, with do_verify, it is read back and\n"
		"checked; a mismatch names the offset and fails the job (err=84):\n"
		"  --verify=crc32c|crc32c-intel|md5|sha256|pattern|0\n"
		"  --verify_pattern=P       0xHEX, \"string\" or a number (comma list);\n"
		"                           alone, it means verify=pattern\n"
		"  --do_verify=0|1          read back after writing (default 1)\n"
		"  --verify_only            replay the write phase without writing and\n"
		"                           verify what an earlier run (same seed) wrote\n"
		"  --verify_fatal           stop at the first mismatch\n"
		"  --verify_backlog=N       verify every N blocks written, as it goes\n"
		"  --verify_interval=SIZE   one header per SIZE bytes (default bs)\n"
		"\n"
		"run options:\n"
		"  --output-format=normal|json|json+|terse (comma list)  --output=FILE\n"
		"  --minimal                terse lines (--output-format=terse)\n"
		"  --terse-version=2|3|4|5  default 3\n"
		"  --status-interval=TIME   the full report every TIME while running\n"
		"  --eta=auto|always|never  live status line (auto: on a terminal)\n"
		"  --eta-interval=TIME --eta-newline=TIME   its period; a new line\n"
		"  --help --version\n"
		"\n"
		"device URIs (--filename):\n"
		"  null[:k=v,...]           the null device (keys below)\n"
		"  /path or ./path[?k=v]    a file or block device (uring driver)\n"
		"  stripe:chunk=SIZE,members=N,member=URI[,...]   RAID 0 over members\n"
		"  nvme-tcp://HOST:PORT/SUBNQN[?k=v&...]   an NVMe/TCP namespace\n"
		"  nvme-tcp://A1:P1,A2:P2/SUBNQN?iopolicy=numa|round-robin|queue-depth\n"
		"                           multipath over several paths\n"
		"null device keys: null[:size=8g,blocksize=512,submit_queues=N,\n"
		"  hw_queue_depth=N,shared_tags=0|1,irqmode=0|1|2,completion_nsec=N,\n"
		"  memory_backed=0|1]; on every URI: complete=local|remote|batched|\n"
		"  polled|irq, nr_hw_queues=N, queue_depth=N, irq_threads=N, timeout=MS,\n"
		"  shared_tags=0|1, tagset=NAME (tags shared by the devices naming it),\n"
		"  poll_budget=N (completions per poll pass), dispatch=batch|one,\n"
		"  scheduler=none|mq-deadline with read_expire=MS, write_expire=MS,\n"
		"  writes_starved=N, fifo_batch=N, front_merges=0|1\n");
}
