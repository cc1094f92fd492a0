// SPDX-License-Identifier: MIT
/*
 * `mqblk bench`'s whole configuration once every option is read: each
 * job's fixup (fio's fixup_options: depths, buffers, percentiles; then
 * its target, rate, uring keys, scheduler and verify) and the groups
 * (bench_config_finish).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "verify.h"

static bool uri_is_path(const char *uri)
{
	return uri && (uri[0] == '/' || uri[0] == '.');
}

/* key=value (keys: "k=v[,k=v]") after the device URI *uri (NULL: the
 * null device), with the separator its kind takes: a path's '?' then ',',
 * nvme-tcp://'s '?' then '&', a driver's ':' then ','. *uri is freed and
 * replaced; -1 when out of memory. */
static int uri_add_keys(char **uri, const char *keys)
{
	const char *u = *uri ? *uri : "null", *sep;
	size_t len = strlen(u) + strlen(keys) + 2;
	char *nu = malloc(len);

	if (!nu)
		return -1;
	if (uri_is_path(u))
		sep = strchr(u, '?') ? "," : "?";
	else if (!strncmp(u, "nvme-tcp://", 11))
		sep = strchr(u, '?') ? "&" : "?";
	else
		sep = strchr(u, ':') ? "," : ":";
	snprintf(nu, len, "%s%s%s", u, sep, keys);
	free(*uri);
	*uri = nu;
	return 0;
}

/* --registerfiles / --sqthread_poll become the uring driver's URI keys
 * (of each file of a list). */
static int job_fixup_uring(struct bench_job *job, char *err, size_t errlen)
{
	const char *opt = job->registerfiles ? "registerfiles" :
					       "sqthread_poll";
	char keys[40];
	unsigned k;

	if (job->fixedbufs == 1 && !uri_is_path(job->filename) && !job->files)
		return bench_err(
			err, errlen,
			"%s: --fixedbufs is only for a path device (filename '%s')",
			job->name, job->filename ? job->filename : "null");
	if (!job->registerfiles && !job->sqthread_poll)
		return 0;
	if (!uri_is_path(job->filename) && !job->files)
		return bench_err(
			err, errlen,
			"%s: --%s is only for a path device (filename '%s')",
			job->name, opt, job->filename ? job->filename : "null");
	snprintf(keys, sizeof(keys), "%s%s%s",
		 job->registerfiles ? "registerfiles=1" : "",
		 job->registerfiles && job->sqthread_poll ? "," : "",
		 job->sqthread_poll ? "sqpoll=1" : "");
	if (job->files) {
		for (k = 0; k < job->nrfiles; k++)
			if (uri_add_keys(&job->files[k], keys))
				return bench_err(err, errlen, "out of memory");
	} else if (uri_add_keys(&job->filename, keys)) {
		return bench_err(err, errlen, "out of memory");
	}
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

/* scheduler=NAME in one device URI (*uri: freed and replaced), or the
 * same key already there agreeing with it. */
static int sched_one(struct bench_job *job, char **uri, char *err,
		     size_t errlen)
{
	const char *u = *uri ? *uri : "null", *v;
	char kv[64];
	size_t len;

	v = uri_key(u, "scheduler", &len);
	if (v) {
		if (len == strlen(job->ioscheduler) &&
		    !strncmp(v, job->ioscheduler, len))
			return 0;
		return bench_err(
			err, errlen,
			"%s: --ioscheduler=%s conflicts with scheduler=%.*s in filename '%s'",
			job->name, job->ioscheduler, (int)len, v, u);
	}
	snprintf(kv, sizeof(kv), "scheduler=%s", job->ioscheduler);
	if (uri_add_keys(uri, kv))
		return bench_err(err, errlen, "out of memory");
	return 0;
}

/*
 * --ioscheduler (fio writes the device's sysfs scheduler file): here it
 * becomes the core key scheduler=NAME of the job's device URI (of each
 * file of a list). The same key already in a URI must agree with it.
 */
static int job_fixup_sched(struct bench_job *job, char *err, size_t errlen)
{
	unsigned k;

	if (!job->ioscheduler)
		return 0;
	if (strcmp(job->ioscheduler, "none") &&
	    strcmp(job->ioscheduler, "mq-deadline"))
		return bench_err(
			err, errlen,
			"%s: bad --ioscheduler '%s': expected none or mq-deadline",
			job->name, job->ioscheduler);
	for (k = 0; job->files && k < job->nrfiles; k++)
		if (sched_one(job, &job->files[k], err, errlen))
			return -1;
	if (!job->files && sched_one(job, &job->filename, err, errlen))
		return -1;
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

/* DIR/NAME: name's first len bytes, then suffix, in dir, with "./" ahead
 * of a relative dir so it stays a path URI; malloc'd, NULL when out of
 * memory */
static char *in_dir(const char *dir, const char *name, size_t len,
		    const char *suffix)
{
	size_t n = strlen(dir) + len + strlen(suffix) + 4;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s%s/%.*s%s",
			 dir[0] == '/' || dir[0] == '.' ? "" : "./", dir,
			 (int)len, name, suffix);
	return p;
}

/* The next ':' in p that separates fio's list of files ("\\:" is a
 * colon in a name), or NULL. */
static const char *list_colon(const char *p)
{
	for (; *p; p++) {
		if (p[0] == '\\' && p[1] == ':')
			p++;
		else if (*p == ':')
			return p;
	}
	return NULL;
}

/* A path URI (keys after '?' aside) that names something that exists */
static bool path_exists(const char *f)
{
	size_t len = strcspn(f, "?");
	struct stat st;
	char *p;
	bool ok;

	if (f[0] != '/' && f[0] != '.')
		return false;
	p = strndup(f, len);
	ok = p && !stat(p, &st);
	free(p);
	return ok;
}

/*
 * fio's list of files, filename=a:b:c: how many names f has, 1 when it is
 * one device. A device URI is never a list: a scheme:// one (nvme-tcp),
 * the null device, or a driver's NAME:key=value,... (null, stripe): a
 * first part that is not a path ('/' or '.') and a key=value after it. Nor
 * is a path that exists as written (/dev/disk/by-path/pci-0000:00:1f.2-...,
 * which fio would split unless its colons were escaped).
 */
static unsigned filename_list_len(const char *f)
{
	const char *c = list_colon(f), *next;
	unsigned n = 1;

	if (!c || strstr(f, "://") || path_exists(f))
		return 1;
	if (f[0] != '/' && f[0] != '.') {
		next = list_colon(c + 1);
		if ((c - f == 4 && !strncmp(f, "null", 4)) ||
		    memchr(c + 1, '=',
			   next ? (size_t)(next - c - 1) : strlen(c + 1)))
			return 1;
	}
	for (; c; c = list_colon(c + 1))
		n++;
	return n;
}

/*
 * filename=a:b:c with a file engine or paths: fio's files of the job,
 * nrfiles of them, each clone doing I/O to all of them (not files of its
 * own, as fio's jobname files are). A relative name is in --directory (or
 * the working directory), as one --filename's is; a missing file is laid
 * out when a file engine is named or every name is a bare one.
 */
static int job_split_files(struct bench_job *job, unsigned n, bool file_engine,
			   const char *dir, char *err, size_t errlen)
{
	const char *p = job->filename, *c;
	bool all_bare = true;
	unsigned k, m;
	size_t i, len;
	char *name, *q;

	if (job->nrfiles > 1 && job->nrfiles != n)
		return bench_err(err, errlen,
				 "%s: nrfiles=%u, and filename '%s' lists %u "
				 "files",
				 job->name, job->nrfiles, job->filename, n);
	if (n > 1024)
		return bench_err(err, errlen,
				 "%s: filename lists %u files, more than 1024",
				 job->name, n);
	job->files = calloc(n, sizeof(*job->files));
	if (!job->files)
		return bench_err(err, errlen, "out of memory");
	job->nrfiles = n;
	for (k = 0; k < n; k++, p = c + 1) {
		c = list_colon(p);
		len = c ? (size_t)(c - p) : strlen(p);
		if (!len)
			return bench_err(err, errlen,
					 "%s: filename '%s': file %u of its "
					 "list has no name",
					 job->name, job->filename, k + 1);
		name = malloc(len + 1);
		if (!name)
			return bench_err(err, errlen, "out of memory");
		for (i = 0, q = name; i < len; i++) {
			if (p[i] == '\\' && p[i + 1] == ':')
				i++;
			*q++ = p[i];
		}
		*q = 0;
		if ((p[0] != '/' && p[0] != '.') ||
		    (job->directory && p[0] == '.')) {
			/* fio: directory/filename for a relative name */
			q = in_dir(dir, name, strlen(name), "");
			free(name);
			name = q;
			if (!name)
				return bench_err(err, errlen, "out of memory");
		} else {
			all_bare = false;
		}
		job->files[k] = name;
		for (m = 0; m < k; m++)
			if (!strcmp(job->files[m], name))
				return bench_err(err, errlen,
						 "%s: filename '%s' lists %s "
						 "twice",
						 job->name, job->filename,
						 name);
		if (!c)
			break;
	}
	job->target = TARGET_PATH;
	job->path_may_create = file_engine || all_bare;
	if (job->size_pct && job->filesize)
		return bench_err(err, errlen,
				 "%s: size=%u%% and filesize= together",
				 job->name, job->size_pct);
	return 0;
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
	char *p;

	if (job->filename && !job->files &&
	    !(job->ioengine && !strcmp(job->ioengine, "mqblk"))) {
		unsigned n = filename_list_len(job->filename);

		if (n > 1)
			return job_split_files(job, n, file_engine, dir, err,
					       errlen);
	}
	if (job->files) /* fixed up before */
		return 0;
	if (job->nrfiles > 1 && (job->filename || !file_engine))
		return bench_err(err, errlen,
				 "%s: nrfiles=%u: more files than one are "
				 "fio's jobname files, for a file engine with "
				 "no --filename, or a list (filename=a:b)",
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
		if (!job->filesize && !job->size_pct) {
			job->filesize =
				job->nrfiles > 1 ?
					job->offset + job->size / job->nrfiles :
					job->size;
			if (!job->filesize)
				return bench_err(
					err, errlen,
					"%s: size=%llu over nrfiles=%u leaves "
					"each file no byte",
					job->name,
					(unsigned long long)job->size,
					job->nrfiles);
		}
		/* size=N% is of each file's size: --filesize's, else the
		 * size the files have when the job runs (bench_file_io_size,
		 * or for one file job_resolve's, of the device); kept for
		 * the runner but with one file of a known size */
		if (job->size_pct && job->filesize && job->nrfiles == 1 &&
		    !job->filesize_high) {
			job->size = job->filesize * job->size_pct / 100;
			job->size_pct = 0;
		}
		p = in_dir(dir, job->name, strlen(job->name), ".0.0");
		if (!p)
			return bench_err(err, errlen, "out of memory");
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
		p = in_dir(dir, job->filename, strlen(job->filename), "");
		if (!p)
			return bench_err(err, errlen, "out of memory");
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
	/* fio: an I/O range smaller than the smallest block holds no I/O */
	if (job->size && job->size < bench_job_min_bs(job))
		return bench_err(err, errlen,
				 "%s: size too small, must not be less than "
				 "minimum block size: %llu < %llu",
				 job->name, (unsigned long long)job->size,
				 (unsigned long long)bench_job_min_bs(job));
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
