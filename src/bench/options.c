// SPDX-License-Identifier: MIT
/*
 * `mqblk bench` options: fio's names and meanings, from the command line
 * (options_cli.c) and, through bench_job_set(), from job files. This file
 * holds a job's life (defaults, copy, free), the configuration's list of
 * jobs and the table of every job option with bench_job_set(), which sets
 * the table's plain types itself and hands the rest to options_set.c. An
 * option mqblk does not implement is an error naming it.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "options_int.h"

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

static void free_files(struct bench_job *job)
{
	unsigned k;

	for (k = 0; job->files && k < job->nrfiles; k++)
		free(job->files[k]);
	free(job->files);
	job->files = NULL;
}

void bench_job_free(struct bench_job *job)
{
	free_files(job);
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

static int dup_files(struct bench_job *dst, const struct bench_job *src)
{
	unsigned k;

	dst->files = NULL;
	if (!src->files)
		return 0;
	dst->files = calloc(src->nrfiles, sizeof(*dst->files));
	if (!dst->files)
		return -1;
	for (k = 0; k < src->nrfiles; k++)
		if (dup_str(&dst->files[k], src->files[k]))
			return -1;
	return 0;
}

int bench_job_copy(struct bench_job *dst, const struct bench_job *src)
{
	*dst = *src;
	/* each pointer NULL or its own before any can fail: the free on
	 * failure frees only what is dst's */
	dst->files = NULL;
	dst->filename = dst->ioengine = dst->description = NULL;
	dst->ioscheduler = dst->directory = NULL;
	dst->bw_log = dst->lat_log = dst->iops_log = dst->hist_log = NULL;
	if (dup_files(dst, src) || dup_str(&dst->filename, src->filename) ||
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

#define J(f) offsetof(struct bench_job, f)

const struct opt opt_table[] = {
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

const size_t opt_table_len = sizeof(opt_table) / sizeof(opt_table[0]);

const struct opt *opt_find(const char *key)
{
	size_t i;

	for (i = 0; i < opt_table_len; i++)
		if (!strcmp(opt_table[i].name, key))
			return &opt_table[i];
	return NULL;
}

/* fio's log options, which may stand bare (the job's name) */
bool opt_is_log(const char *key)
{
	return !strcmp(key, "write_bw_log") || !strcmp(key, "write_lat_log") ||
	       !strcmp(key, "write_iops_log") || !strcmp(key, "write_hist_log");
}

int bench_job_set(struct bench_job *job, const char *key, const char *val,
		  char *err, size_t errlen)
{
	const struct opt *o = opt_find(key);
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
	    strcmp(key, "buffered") && !opt_is_log(key))
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
		return opt_set_special(job, o, val, err, errlen);
	}
	return bench_err(err, errlen, "option '%s': bad type", key);
}
