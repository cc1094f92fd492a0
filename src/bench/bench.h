/* SPDX-License-Identifier: MIT */
/*
 * mqblk bench: fio-compatible job description, shared by the option parser,
 * the job-file parser, the runner and the report writers.
 */
#ifndef MQBLK_BENCH_H
#define MQBLK_BENCH_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dist.h"

enum bench_ddir {
	DDIR_READ = 0,
	DDIR_WRITE = 1,
	DDIR_TRIM = 2,
	DDIR_NR = 3,
};

/* fio's --rw values. */
enum bench_rw {
	RW_READ,
	RW_WRITE,
	RW_RANDREAD,
	RW_RANDWRITE,
	RW_RW, /* "rw" and "readwrite": sequential mixed */
	RW_RANDRW, /* random mixed */
	RW_TRIM,
	RW_RANDTRIM,
};

static inline bool bench_rw_is_random(enum bench_rw rw)
{
	return rw == RW_RANDREAD || rw == RW_RANDWRITE || rw == RW_RANDRW ||
	       rw == RW_RANDTRIM;
}

static inline bool bench_rw_is_mixed(enum bench_rw rw)
{
	return rw == RW_RW || rw == RW_RANDRW;
}

/* Where a job's I/O goes (options_fixup.c job_fixup_target decides). */
enum bench_target {
	/* no --filename and no --ioengine: the null device, and the
	 * report says so (fio would lay out a file here) */
	TARGET_NULL_DEFAULT,
	TARGET_URI, /* --filename names a device (null, stripe, path...) */
	/* a file engine and a path --filename: a file that does not exist
	 * yet is laid out first, as fio does */
	TARGET_PATH,
	/* a file engine and no --filename: fio's jobname.jobnum.filenum
	 * in --directory, one per clone, laid out before the timed phase */
	TARGET_JOBFILES,
};

/* fio's --file_service_type */
enum bench_file_service {
	FILE_SERVICE_ROUNDROBIN,
	FILE_SERVICE_SEQUENTIAL,
	FILE_SERVICE_RANDOM,
};

/* --verify types */
enum bench_verify_type {
	BENCH_VERIFY_NONE = 0,
	BENCH_VERIFY_CRC32C = 1,
	BENCH_VERIFY_MD5 = 2,
	BENCH_VERIFY_SHA256 = 3,
	BENCH_VERIFY_PATTERN = 4,
};

#define BENCH_VERIFY_PATTERN_MAX 512
#define BENCH_MAX_PERCENTILES 20 /* fio's FIO_IO_U_LIST_MAX_LEN */
#define BENCH_NAME_MAX 128
#define BENCH_BSSPLIT_MAX 64 /* fio's BSSPLIT_MAX */
#define BENCH_ZONES_MAX 256 /* fio's ZONESPLIT_MAX */
#define BENCH_IGNORE_ERROR_MAX 32 /* errors per ignore_error list */
/* fio's error_type_bit: which errors continue_on_error lets go */
#define BENCH_ERR_READ 0
#define BENCH_ERR_WRITE 1
#define BENCH_ERR_VERIFY 2
#define BENCH_UNIFIED_NONE 0
#define BENCH_UNIFIED_MIXED 1
#define BENCH_UNIFIED_BOTH 2

/* One entry of fio's bssplit: this block size for perc percent of I/Os. */
struct bench_bssplit {
	uint64_t bs;
	unsigned perc;
};

/*
 * One job after [global] and command-line defaults have been applied.
 * numjobs clones are made by the runner, not the parser: one bench_job per
 * [section] / --name.
 */
struct bench_job {
	char name[BENCH_NAME_MAX];
	char *filename; /* device URI or path; NULL = "null" device */
	/* fio's list of files, filename=a:b:c (job_fixup_target): nrfiles
	 * paths, each a path URI; NULL when filename names one device */
	char **files;
	char *ioengine; /* fio engine name as given; NULL = default */
	char *ioscheduler; /* fio's --ioscheduler: the device's scheduler= */
	enum bench_rw rw;
	unsigned rwmixread; /* percent reads for mixed rw (default 50) */
	/* fio's kb_base: 1024 (default) or 1000, for the sizes parsed after
	 * it and the units the normal report puts first */
	unsigned kb_base;
	/* fio's --sync: 0, MQBLK_OPEN_SYNC (sync, 1) or MQBLK_OPEN_DSYNC */
	unsigned sync_io;
	/* fio's rw=...:N: a random job's I/Os per new random offset (0 or 1:
	 * every one), a sequential job's bytes skipped after each I/O
	 * (negative: backwards) -- fio's ddir_seq_nr and ddir_seq_add */
	unsigned ddir_seq_nr;
	int64_t ddir_seq_add;
	/* fio's min_bs/max_bs: bs= sets both, bsrange= and bssplit= a range;
	 * each I/O's length is drawn between them (get_next_buflen) */
	uint64_t bs[DDIR_NR]; /* bytes, default 4096 each: the minimum */
	uint64_t bs_max[DDIR_NR]; /* bytes, = bs unless a range or split */
	unsigned bssplit_nr[DDIR_NR]; /* 0: no split, a range if mixed */
	struct bench_bssplit bssplit[DDIR_NR][BENCH_BSSPLIT_MAX];
	bool bs_is_seq_rand; /* bs R,W mean sequential,random */
	uint64_t size; /* bytes; 0 = whole device */
	unsigned size_pct; /* fio's size=N%: of the device; 0 = bytes */
	/* files as fio makes them (TARGET_PATH, TARGET_JOBFILES) */
	enum bench_target target; /* set by bench_config_finish */
	char *directory; /* --directory: where jobname.jobnum.filenum go */
	/* TARGET_PATH: a missing file is laid out (a file engine named,
	 * or a bare name); else it stays an error, as before */
	bool path_may_create;
	uint64_t filesize; /* --filesize; 0 = size / nrfiles */
	/* fio's filesize=LOW-HIGH: each file's size drawn between filesize
	 * and this (bench_file_size); 0 = no range */
	uint64_t filesize_high;
	unsigned nrfiles; /* --nrfiles, default 1 (fio's jobname files) */
	enum bench_file_service file_service;
	unsigned file_service_nr; /* fio's file_service_type=TYPE:N */
	bool create_on_open; /* create at open, no layout */
	bool unlink; /* remove the job's files when it ends */
	bool zero_buffers; /* write (and lay out) zeroes */
	/* fio's buffer_compress_percentage: of every buffer_compress_chunk
	 * bytes of a write buffer, that percentage is zeroes (or the
	 * buffer_pattern), the rest random; dedupe_percentage: that share of
	 * write buffers repeats the last unique one (dedupe_mode=repeat) */
	unsigned compress_pct;
	uint64_t compress_chunk; /* default 512 */
	unsigned dedupe_pct;
	/* fio's continue_on_error: a mask of 1 << BENCH_ERR_READ, _WRITE,
	 * _VERIFY (none 0, io read|write, all every one); ignore_error's
	 * lists per type (none given: fio's EIO, EILSEQ) */
	unsigned continue_on_error;
	bool error_dump; /* fio's: each error let go said too (default) */
	/* fio's fallocate=none|truncate|0: a write-only job's layout is a
	 * sparse file; else (posix, native, 1: the default) allocated */
	bool fallocate_none;
	/* fio's unified_rw_reporting: BENCH_UNIFIED_NONE, _MIXED (read,
	 * write and trim reported as one "mixed"), _BOTH (each, then mixed) */
	unsigned unified_rw_reporting;
	unsigned ignore_error_nr[3];
	int ignore_error[3][BENCH_IGNORE_ERROR_MAX];
	/* --buffer_pattern: write buffers carry it, repeated */
	unsigned buffer_pattern_len;
	uint8_t buffer_pattern[BENCH_VERIFY_PATTERN_MAX];
	/* rate control (fio's rate=, rate_iops=, per direction R,W,T;
	 * 0 = none), rate_min= likewise, rate_process */
	uint64_t rate[DDIR_NR]; /* bytes/s */
	uint64_t rate_iops[DDIR_NR];
	uint64_t rate_min[DDIR_NR]; /* bytes/s */
	uint64_t rate_iops_min[DDIR_NR];
	bool rate_poisson; /* rate_process=poisson */
	uint64_t thinktime_ns; /* stall after thinktime_blocks I/Os */
	uint64_t thinktime_spin_ns; /* of it, spent spinning */
	unsigned thinktime_blocks; /* default 1 */
	uint64_t io_size; /* fio's io_size/io_limit: bytes to do; 0 = size */
	uint64_t startdelay_ns;
	uint64_t offset_increment; /* clone N starts at offset + N * this */
	bool invalidate; /* drop the file's page cache first (default 1) */
	bool exitall; /* when this job ends, every other one stops */
	/* fio's logs: the NAME of NAME_bw.N.log ... (NULL = none) */
	char *bw_log, *lat_log, *iops_log;
	/* fio's clat histogram log: NAME_clat_hist.N.log, a line per
	 * direction every log_hist_msec (0: none written, as fio), the
	 * buckets summed 2^log_hist_coarseness at a time */
	char *hist_log;
	unsigned log_hist_msec;
	unsigned log_hist_coarseness;
	unsigned log_avg_msec; /* 0: an entry per I/O */
	bool log_offset; /* entries carry the offset */
	bool log_max_value; /* the window's max, not its mean */
	bool per_job_logs; /* default 1: a file per thread */
	uint64_t offset; /* bytes */
	unsigned iodepth; /* default 1 */
	unsigned numjobs; /* default 1 */
	uint64_t runtime_ns; /* 0 = no limit */
	uint64_t ramp_time_ns; /* 0 = none */
	bool time_based;
	unsigned iodepth_batch_submit; /* default 1; 0 in input = iodepth */
	unsigned iodepth_batch_complete_min; /* default 1 */
	unsigned iodepth_batch_complete_max; /* default complete_min */
	unsigned iodepth_low; /* fio iodepth_low, default iodepth */
	bool hipri;
	/* fio --fixedbufs: 1 on (a path device), 0 off, -1 unset: mqblk
	 * maps its buffers wherever the device can take them */
	int fixedbufs;
	/* fio cpus_allowed / cpus_allowed_policy: the CPUs its threads may
	 * run on (none set: any), as given for the report; split: each
	 * thread gets one of them, by thread number */
	char cpus_allowed[128];
	cpu_set_t cpus;
	bool cpus_split;
	bool direct;
	bool thread;
	bool group_reporting;
	bool norandommap;
	/* fio --random_distribution: enum bench_rand_dist (dist.h), its
	 * value (zipf theta, pareto h, normal deviation %) and center (fio's
	 * optional :C, in [0, 1]; dist_center_set false: none) */
	unsigned rand_dist;
	double dist_val;
	double dist_center;
	bool dist_center_set;
	char rand_dist_str[512]; /* as given, for the JSON job options */
	/* zoned, zoned_abs: each direction's picks (dist.h); zone_set[d]
	 * false: that direction draws uniformly (fio's empty list) */
	struct bench_zone_pick zone_pick[DDIR_NR][BENCH_ZONE_PICKS];
	bool zone_set[DDIR_NR];
	bool randrepeat; /* default true */
	bool randseed_set;
	uint64_t randseed;
	bool stonewall; /* wait for the jobs before this one to finish */
	bool new_group; /* stonewall implies this too */
	bool gtod_reduce; /* no per-I/O latency accounting */
	bool disable_lat, disable_clat, disable_slat; /* fio's: that one
						       * latency not measured */
	bool refill_buffers; /* new random data in every write buffer */
	bool clat_percentiles; /* default true */
	bool lat_percentiles; /* default false */
	bool slat_percentiles; /* default false */
	unsigned nr_percentiles;
	double percentiles[BENCH_MAX_PERCENTILES]; /* default fio list */
	uint64_t number_ios; /* fio number_ios, 0 = unlimited */
	unsigned loops; /* default 1 */
	unsigned groupid; /* assigned by the parser (stonewall/new_group) */
	char *description;
	/* flushes: fio's fsync/fdatasync (a flush after N writes), end_fsync */
	unsigned fsync_blocks; /* 0 = never */
	unsigned fdatasync_blocks; /* 0 = never */
	bool end_fsync;
	/* io_uring engine options (path devices) */
	bool registerfiles;
	bool sqthread_poll;
	/* --verify */
	unsigned verify; /* enum bench_verify_type */
	bool verify_set; /* given explicitly (verify_pattern implies it) */
	bool do_verify; /* default true */
	bool verify_only;
	bool verify_fatal;
	uint64_t verify_backlog; /* 0 = verify after the write phase */
	uint32_t verify_interval; /* 0 = the write block size */
	unsigned verify_pattern_len; /* 0 = random payload */
	uint8_t verify_pattern[BENCH_VERIFY_PATTERN_MAX];
};

/*
 * Which of bs[]/bs_max[]/bssplit[] an I/O of direction d uses: d, or with
 * fio's bs_is_seq_rand the write slot for random I/O, the read slot for
 * sequential.
 */
static inline enum bench_ddir bench_job_bs_slot(const struct bench_job *job,
						enum bench_ddir d)
{
	if (!job->bs_is_seq_rand)
		return d;
	return bench_rw_is_random(job->rw) ? DDIR_WRITE : DDIR_READ;
}

/* fio's td_min_bs: the smallest block size of any direction */
static inline uint64_t bench_job_min_bs(const struct bench_job *job)
{
	uint64_t minbs = UINT64_MAX;
	int d;

	for (d = 0; d < DDIR_NR; d++)
		if (job->bs[d] && job->bs[d] < minbs)
			minbs = job->bs[d];
	return minbs == UINT64_MAX ? 1 : minbs;
}

/* The I/O lengths of slot d vary (a bsrange or bssplit). */
static inline bool bench_job_bs_mixed(const struct bench_job *job,
				      enum bench_ddir d)
{
	return job->bs_max[d] && job->bs[d] != job->bs_max[d];
}

/* The job writes or discards (so its device is opened for writing). */
static inline bool bench_job_writes(const struct bench_job *job)
{
	/* verify_only replays the write phase without writing */
	return !job->verify_only && job->rw != RW_READ &&
	       job->rw != RW_RANDREAD;
}

enum bench_output_format {
	OUTPUT_NORMAL = 1u << 0,
	OUTPUT_JSON = 1u << 1,
	OUTPUT_JSONPLUS = 1u << 2,
	OUTPUT_TERSE = 1u << 3, /* fio's terse lines (--minimal) */
};

enum bench_eta {
	ETA_AUTO, /* live status line when stdout is a terminal */
	ETA_ALWAYS,
	ETA_NEVER,
};

/* Everything one `mqblk bench` invocation asked for. */
struct bench_config {
	struct bench_job *jobs;
	unsigned nr_jobs;
	unsigned output_format; /* mask of enum bench_output_format */
	char *output; /* --output file, NULL = stdout */
	enum bench_eta eta;
	unsigned terse_version; /* --terse-version, default 3 */
	/* --status-interval: the full report every N ns while jobs run */
	uint64_t status_interval_ns;
	bool eta_newline_set; /* --eta-newline: each status line its own */
	uint64_t eta_newline_ns;
	uint64_t eta_interval_ns; /* --eta-interval, default 1 s */
	bool help; /* --help seen */
	bool version; /* --version seen */
	char *cmdline; /* the command line, for the JSON "global options" */
};

/* Default fio percentile list (stat.c): 1 5 10 20 30 40 50 60 70 80 90 95
 * 99 99.5 99.9 99.95 99.99. */
extern const double bench_default_percentiles[17];

/*
 * Parse `mqblk bench` arguments (argv[0] is "bench"). Command-line options
 * before the first --name form the global section; --name starts a job;
 * a non-option argument is a job file. Returns 0 or -1 with a one-line
 * message (no trailing newline) in err.
 */
int bench_parse_args(int argc, char **argv, struct bench_config *cfg, char *err,
		     size_t errlen);

/* Parse an INI job file into cfg, with cmdline globals already in
 * *defaults. Returns 0 or -1 with a message naming file:line. */
int bench_parse_jobfile(const char *path, const struct bench_job *defaults,
			struct bench_config *cfg, char *err, size_t errlen);

/* The same from an open stream; path only names it in messages (the
 * fuzz harness feeds memory through fmemopen). */
int bench_parse_jobfile_stream(FILE *f, const char *path,
			       const struct bench_job *defaults,
			       struct bench_config *cfg, char *err,
			       size_t errlen);

void bench_config_free(struct bench_config *cfg);
void bench_job_defaults(struct bench_job *job);

/* Print `mqblk bench --help` text. */
void bench_usage(FILE *f);

/* Format a one-line message into err (when err/errlen allow) and return
 * -1: how every parser here reports a refusal (parse.c). */
int bench_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* fio value parsers (parse.c). All return 0 or -1 with err filled. */
/* Size with fio's suffix rules under its default kb_base=1024: k, kb, K,
 * KB = 1024, m = 1024^2, ... p; the IEC forms are the other way round in
 * fio's compatibility mode: "1KiB" = 1000, "1MiB" = 1000000. An unknown
 * suffix is an error (fio would read "4q" as 4). */
int bench_parse_size(const char *s, uint64_t *out, char *err, size_t errlen);
/* The same under fio's --kb_base=1000 or 1024: with 1000, k/kb/KB = 1000,
 * m = 1000^2 ..., and KiB = 1024, MiB = 1024^2 ... (the SI and IEC
 * meanings). */
int bench_parse_size_base(const char *s, unsigned kb_base, uint64_t *out,
			  char *err, size_t errlen);
/* Time with fio's rules: bare number = seconds for runtime/ramp_time;
 * suffixes us/usec, ms/msec, s, m, h, d. Result in ns. */
int bench_parse_time(const char *s, uint64_t *out_ns, char *err, size_t errlen);
int bench_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out,
		     char *err, size_t errlen);
int bench_parse_bool(const char *s, bool *out, char *err, size_t errlen);

/*
 * Between the command-line parser and the job-file parser (options.c): one
 * job option by fio's name. val is NULL for a bare key ("time_based").
 * Returns 0, -1 with err filled, or BENCH_OPT_UNKNOWN when key is not a job
 * option (the caller names it, with its file and line where it has them).
 */
#define BENCH_OPT_UNKNOWN 1
int bench_job_set(struct bench_job *job, const char *key, const char *val,
		  char *err, size_t errlen);
/* Deep copy (strings duplicated); 0 or -1 (no memory). */
int bench_job_copy(struct bench_job *dst, const struct bench_job *src);
void bench_job_free(struct bench_job *job);
/* Append a deep copy of job to cfg->jobs; 0 or -1 with err filled. */
int bench_config_add_job(struct bench_config *cfg, const struct bench_job *job,
			 char *err, size_t errlen);
/*
 * After every job is in: fio's fixups (iodepth_batch 0 = iodepth, complete
 * max 0 = iodepth, iodepth_low 0 = iodepth, ...), cross-option checks, and
 * group ids from stonewall/new_group. 0 or -1 with err naming the job.
 */
int bench_config_finish(struct bench_config *cfg, char *err, size_t errlen);

/* Runner (runner_run.c; the job threads in runner.c): run every job of
 * cfg, write the reports. Returns the process exit status (0 ok, 1
 * error). */
int bench_run(struct bench_config *cfg);

#endif
