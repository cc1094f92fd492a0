// SPDX-License-Identifier: MIT
/*
 * The runner's orchestration: checks every job against its device before
 * any output, runs the groups one after another (opening each group's
 * devices, keeping some for later groups, starting one thread per job
 * clone), drives the status line and --status-interval reports while they
 * run, and hands the statistics to the report writers. The job threads
 * themselves are in runner.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <mqblk/mqblk.h>

#include "bench.h"
#include "core/clock.h"
#include "dist.h"
#include "files.h"
#include "iolog.h"
#include "runner.h"
#include "runner_int.h"
#include "stats.h"

#define BENCH_VERSION "mqblk-0.1.0"
#define MAX_BUF_TOTAL (4ull << 30) /* per job: iodepth x bs */
/* devices open at once in a group (each clone of a job on fio's own
 * jobname files has its own) */
#define MAX_GROUP_DEVS 1024

static const char *rw_name(enum bench_rw rw)
{
	static const char *const names[] = {
		[RW_READ] = "read",
		[RW_WRITE] = "write",
		[RW_RANDREAD] = "randread",
		[RW_RANDWRITE] = "randwrite",
		[RW_RW] = "rw",
		[RW_RANDRW] = "randrw",
		[RW_TRIM] = "trim",
		[RW_RANDTRIM] = "randtrim",
	};

	return names[rw];
}

static char mode_letter(enum bench_rw rw)
{
	/* fio's run-state letters: R/r seq/rand read, W/w, M/m mixed, T/t */
	static const char letters[] = {
		[RW_READ] = 'R',      [RW_WRITE] = 'W',	   [RW_RANDREAD] = 'r',
		[RW_RANDWRITE] = 'w', [RW_RW] = 'M',	   [RW_RANDRW] = 'm',
		[RW_TRIM] = 'T',      [RW_RANDTRIM] = 't',
	};

	return letters[rw];
}

/* The job's device, the first of a list's files */
static const char *job_uri(const struct bench_job *job)
{
	return job->files    ? job->files[0] :
	       job->filename ? job->filename :
			       "null";
}

/* fio's zoned_abs: every zone inside the region of region bytes (fio
 * fails the job at its first draw, "zoned_abs sizes exceed file size");
 * what names the region in the message. */
static int zones_fit(const struct bench_job *job, uint64_t region,
		     const char *what)
{
	int d;

	if (job->rand_dist != DIST_ZONED_ABS || !bench_rw_is_random(job->rw))
		return 0;
	for (d = 0; d < DDIR_NR; d++) {
		uint64_t bs = job->bs[bench_job_bs_slot(job,
							(enum bench_ddir)d)],
			 end = bench_zones_end(job->zone_pick[d]);

		if (job->zone_set[d] && end / bs > region / bs) {
			fprintf(stderr,
				"mqblk: %s: random_distribution=zoned_abs: the zones end at %llu bytes, past the %llu bytes of %s\n",
				job->name, (unsigned long long)end,
				(unsigned long long)region, what);
			return -1;
		}
	}
	return 0;
}

/*
 * nrfiles > 1 (fio's jobname files, laid out to their sizes, or with
 * size=N% the sizes they have): a block fits in every file's share past
 * each clone's offset. size= is left as given: each clone's pass is what
 * its own files hold, or size= if less (multi_init), as fio sets each
 * job's size from its own files.
 */
static int resolve_files(struct bench_job *job, uint64_t minbs, uint64_t maxbs)
{
	uint64_t fs, start, io;
	unsigned c, k;

	for (c = 0; c < job->numjobs; c++) {
		start = job->offset + c * job->offset_increment;
		for (k = 0; k < job->nrfiles; k++) {
			io = bench_file_io_size(job, c, k, start);
			fs = bench_file_real_size(job, c, k);
			/* a list's file is used as it is (fio would extend
			 * a regular one): size= over the files must fit */
			if (job->files && job->size && !job->size_pct &&
			    io < job->size / job->nrfiles) {
				fprintf(stderr,
					"mqblk: %s: size %llu over %u files is %llu bytes of each past offset %llu, and %s holds %llu bytes\n",
					job->name,
					(unsigned long long)job->size,
					job->nrfiles,
					(unsigned long long)(job->size /
							     job->nrfiles),
					(unsigned long long)start,
					job->files[k], (unsigned long long)fs);
				return -1;
			}
			if (io >= minbs) {
				char what[64];

				snprintf(what, sizeof(what),
					 "file %u of clone %u's region", k, c);
				if (zones_fit(job, io, what))
					return -1;
				continue;
			}
			if (job->size_pct)
				fprintf(stderr,
					"mqblk: %s: file %u of clone %u holds %llu bytes: size=%u%% of it past offset %llu is %llu bytes, no block of %llu\n",
					job->name, k, c, (unsigned long long)fs,
					job->size_pct,
					(unsigned long long)start,
					(unsigned long long)io,
					(unsigned long long)minbs);
			else
				fprintf(stderr,
					"mqblk: %s: file %u of clone %u holds %llu bytes: no block of %llu fits past offset %llu\n",
					job->name, k, c, (unsigned long long)fs,
					(unsigned long long)minbs,
					(unsigned long long)start);
			return -1;
		}
	}
	if (maxbs * job->iodepth > MAX_BUF_TOTAL) {
		fprintf(stderr,
			"mqblk: %s: iodepth %u x bs %llu needs more than 4 GiB of buffers\n",
			job->name, job->iodepth, (unsigned long long)maxbs);
		return -1;
	}
	return 0;
}

/* Every length drawn is a multiple of the minimum or the maximum
 * (next_buflen): each of the job's block sizes, a split's too, must be a
 * multiple of the device's lbs; else one line naming uri, -1. */
static int job_bs_check(const struct bench_job *job, uint64_t lbs,
			const char *uri)
{
	uint64_t bad = 0;
	unsigned k;
	int d;

	for (d = 0; d < DDIR_NR && !bad; d++) {
		bad = job->bs[d] % lbs	   ? job->bs[d] :
		      job->bs_max[d] % lbs ? job->bs_max[d] :
					     0;
		for (k = 0; !bad && k < job->bssplit_nr[d]; k++)
			if (job->bssplit[d][k].bs % lbs)
				bad = job->bssplit[d][k].bs;
	}
	if (!bad)
		return 0;
	fprintf(stderr,
		"mqblk: %s: block size %llu is not a multiple of the device block size %llu (%s)\n",
		job->name, (unsigned long long)bad, (unsigned long long)lbs,
		uri);
	return -1;
}

/* Check a job against its device and fill in what the device decides. */
static int job_resolve(struct bench_job *job, struct mqblk_dev *dev)
{
	uint64_t cap = mqblk_dev_size(dev), lbs = mqblk_dev_block_size(dev);
	uint64_t maxbs = 0, minbs = UINT64_MAX;
	int d;

	if (job_bs_check(job, lbs, job_uri(job)))
		return -1;
	for (d = 0; d < DDIR_NR; d++) {
		if (job->bs_max[d] > maxbs)
			maxbs = job->bs_max[d];
		if (job->bs[d] < minbs)
			minbs = job->bs[d];
	}
	if (job->offset % lbs) {
		fprintf(stderr,
			"mqblk: %s: offset %llu is not a multiple of the device block size %llu\n",
			job->name, (unsigned long long)job->offset,
			(unsigned long long)lbs);
		return -1;
	}
	if (job->nrfiles > 1)
		return resolve_files(job, minbs, maxbs);
	if (job->offset >= cap) {
		fprintf(stderr,
			"mqblk: %s: offset %llu is beyond the device size %llu\n",
			job->name, (unsigned long long)job->offset,
			(unsigned long long)cap);
		return -1;
	}
	/* fio's size=N%: of what the device holds past the offset */
	if (job->size_pct) {
		job->size = (cap - job->offset) * job->size_pct / 100;
		job->size -= job->size % lbs;
		job->size_pct = 0;
	}
	/* fio's offset_increment: the last clone's region starts there */
	if (job->offset_increment && job->target != TARGET_JOBFILES) {
		uint64_t last = job->offset + (uint64_t)(job->numjobs - 1) *
						      job->offset_increment;

		if (job->offset_increment % lbs || last >= cap) {
			fprintf(stderr,
				"mqblk: %s: offset_increment %llu puts clone %u at %llu, not a block of the device (size %llu)\n",
				job->name,
				(unsigned long long)job->offset_increment,
				job->numjobs - 1, (unsigned long long)last,
				(unsigned long long)cap);
			return -1;
		}
		if (!job->size)
			job->size = cap - last;
		if (job->size > cap - last) {
			fprintf(stderr,
				"mqblk: %s: size %llu from offset %llu (clone %u's, offset_increment) exceeds the device size %llu\n",
				job->name, (unsigned long long)job->size,
				(unsigned long long)last, job->numjobs - 1,
				(unsigned long long)cap);
			return -1;
		}
	}
	if (!job->size)
		job->size = cap - job->offset;
	if (job->size > cap - job->offset) {
		fprintf(stderr,
			"mqblk: %s: size %llu at offset %llu exceeds the device size %llu (%s)\n",
			job->name, (unsigned long long)job->size,
			(unsigned long long)job->offset,
			(unsigned long long)cap, job_uri(job));
		return -1;
	}
	/* fio: the region must hold the smallest block (longer ones are
	 * cut to fit) */
	if (job->size < minbs) {
		fprintf(stderr,
			"mqblk: %s: size %llu is smaller than block size %llu\n",
			job->name, (unsigned long long)job->size,
			(unsigned long long)minbs);
		return -1;
	}
	if (maxbs * job->iodepth > MAX_BUF_TOTAL) {
		fprintf(stderr,
			"mqblk: %s: iodepth %u x bs %llu needs more than 4 GiB of buffers\n",
			job->name, job->iodepth, (unsigned long long)maxbs);
		return -1;
	}
	if (zones_fit(job, job->size, "the job's region"))
		return -1;
	if (bench_rw_is_random(job->rw) && !job->norandommap &&
	    job->rand_dist == DIST_RANDOM && job->size / minbs > (1ull << 34)) {
		fprintf(stderr,
			"mqblk: %s: %llu blocks are too many for the random map; add --norandommap\n",
			job->name, (unsigned long long)(job->size / minbs));
		return -1;
	}
	return 0;
}

/* What a job with no --filename and no --ioengine runs on, said plainly. */
static const char null_default_note[] =
	"no --filename and no --ioengine: this job runs on mqblk's null "
	"device (no file, no data stored); fio would lay out and measure a "
	"file here (give --ioengine=psync or another file engine)";

/* The engine the header names: as given, or what the job runs on. */
static const char *header_engine(const struct bench_job *j)
{
	if (j->ioengine)
		return j->ioengine;
	if (j->target == TARGET_NULL_DEFAULT)
		return "null";
	/* fio's default engine, on fio's own files */
	return j->target == TARGET_JOBFILES ? "psync" : "mqblk";
}

static void print_job_headers(FILE *f, const struct bench_job *jobs,
			      unsigned nr)
{
	unsigned i, threads = 0;

	for (i = 0; i < nr; i++) {
		const struct bench_job *j = &jobs[i];
		char b[6][N2S_LEN];
		int d;

		/* fio's num2str with 4 significant figures: 4096B, 64.0KiB */
		for (d = 0; d < DDIR_NR; d++) {
			report_bytes_str(b[2 * d], j->bs[d]);
			report_bytes_str(b[2 * d + 1], j->bs_max[d]);
		}
		fprintf(f, "%s: (g=%u): rw=%s, ", j->name, j->groupid,
			rw_name(j->rw));
		if (j->bs_is_seq_rand)
			fprintf(f, "bs=(R) %s-%s, (W) %s-%s, bs_is_seq_rand, ",
				b[0], b[1], b[2], b[3]);
		else
			fprintf(f, "bs=(R) %s-%s, (W) %s-%s, (T) %s-%s, ", b[0],
				b[1], b[2], b[3], b[4], b[5]);
		fprintf(f, "ioengine=%s, iodepth=%u\n", header_engine(j),
			j->iodepth);
		if (j->numjobs > 1)
			fprintf(f, "...\n");
		if (j->target == TARGET_NULL_DEFAULT)
			fprintf(f, "%s: %s\n", j->name, null_default_note);
		threads += j->numjobs;
	}
	fprintf(f, "%s\nStarting %u thread%s\n", BENCH_VERSION, threads,
		threads == 1 ? "" : "s");
}

static FILE *status_stream(const struct bench_config *cfg)
{
	bool to_stdout_report = !cfg->output;

	if (cfg->eta == ETA_NEVER)
		return NULL;
	if (cfg->eta == ETA_ALWAYS)
		return to_stdout_report && !(cfg->output_format &
					     (OUTPUT_JSON | OUTPUT_JSONPLUS |
					      OUTPUT_TERSE)) ?
			       stdout :
			       stderr;
	/* auto: a terminal only, never inside a JSON document */
	if (isatty(STDOUT_FILENO) &&
	    (!to_stdout_report ||
	     !(cfg->output_format &
	       (OUTPUT_JSON | OUTPUT_JSONPLUS | OUTPUT_TERSE))))
		return stdout;
	return NULL;
}

static void group_status(struct job_thread *jts, unsigned nr,
			 struct status_snapshot *s)
{
	uint64_t max_eta = 0;
	double pct = 100.0;
	size_t ml = 0;
	unsigned i;
	int d;

	memset(s, 0, sizeof(*s));
	s->now_ns = clock_now_ns();
	for (i = 0; i < nr; i++) {
		struct job_thread *jt = &jts[i];
		const struct bench_job *job = jt->job;
		double p = 0;
		uint64_t elapsed, eta = 0, done_b = 0;

		for (d = 0; d < DDIR_NR; d++) {
			s->bytes[d] += atomic_load_explicit(
				&jt->pub_bytes[d], memory_order_relaxed);
			s->ios[d] += atomic_load_explicit(&jt->pub_ios[d],
							  memory_order_relaxed);
			done_b += atomic_load_explicit(&jt->pub_bytes[d],
						       memory_order_relaxed);
		}
		if (atomic_load(&jt->done) || !atomic_load(&jt->started))
			continue;
		s->nr_running++;
		elapsed = s->now_ns - jt->start_ns;
		if (job->runtime_ns) {
			uint64_t total = job->runtime_ns + job->ramp_time_ns;

			p = 100.0 * (double)elapsed / (double)total;
			eta = total > elapsed ?
				      (total - elapsed) / 1000000000ull :
				      0;
		}
		if (!job->time_based && (jt->pass_bytes || job->size)) {
			double pb = 100.0 * (double)done_b /
				    ((double)(jt->pass_bytes ? jt->pass_bytes :
							       job->size) *
				     (job->loops ? job->loops : 1));

			if (pb > p)
				p = pb;
		}
		if (p > 100)
			p = 100;
		if (p < pct)
			pct = p;
		if (eta > max_eta)
			max_eta = eta;
	}
	for (i = 0; i < nr && ml + 8 < sizeof(s->modes); i++) {
		unsigned n = 1;

		if (atomic_load(&jts[i].done))
			continue;
		while (i + n < nr && jts[i + n].job == jts[i].job &&
		       !atomic_load(&jts[i + n].done))
			n++;
		ml += (size_t)snprintf(s->modes + ml, sizeof(s->modes) - ml,
				       "%c(%u)", mode_letter(jts[i].job->rw),
				       n);
		i += n - 1;
	}
	s->pct_done = s->nr_running ? pct : 100.0;
	s->eta_s = max_eta;
}

/*
 * Devices left open by the groups before: the next group reuses one it
 * opens the same way, so a memory-backed null device keeps its data from
 * a write group to a later --verify_only group, as a file would.
 */
struct dev_cache {
	struct bench_dev d[MAX_GROUP_DEVS];
	unsigned nr;
};

static void bdev_close(struct bench_dev *bd)
{
	if (bd->dev)
		mqblk_dev_close(bd->dev);
	free(bd->uri);
	bd->dev = NULL;
	bd->uri = NULL;
}

/* open flags a kept device must have just as wanted, not more */
#define DEV_FLAGS_EXACT (MQBLK_OPEN_DIRECT | MQBLK_OPEN_SYNC | MQBLK_OPEN_DSYNC)

static bool dev_fits(const struct bench_dev *kept, const struct bench_dev *want)
{
	return !strcmp(kept->uri, want->uri) &&
	       kept->nr_threads == want->nr_threads &&
	       kept->hipri == want->hipri &&
	       (kept->flags & want->flags) == want->flags &&
	       (kept->flags & DEV_FLAGS_EXACT) ==
		       (want->flags & DEV_FLAGS_EXACT);
}

/* Take a fitting device out of the cache; close one that does not fit. */
static struct mqblk_dev *dev_cache_take(struct dev_cache *dc,
					struct bench_dev *want)
{
	struct mqblk_dev *dev = NULL;
	unsigned k;

	for (k = 0; k < dc->nr; k++) {
		if (strcmp(dc->d[k].uri, want->uri))
			continue;
		if (dev_fits(&dc->d[k], want)) {
			dev = dc->d[k].dev;
			want->flags = dc->d[k].flags;
			dc->d[k].dev = NULL;
		}
		bdev_close(&dc->d[k]);
		dc->d[k--] = dc->d[--dc->nr];
	}
	return dev;
}

static void dev_cache_close(struct dev_cache *dc)
{
	while (dc->nr)
		bdev_close(&dc->d[--dc->nr]);
}

/* Run the jobs of one group (indexes [first, last)) concurrently. */
/* Where a run's periodic reports go (--status-interval). */
struct status_out {
	FILE *out;
	uint64_t start_ms;
	uint64_t last_ns;
};

/*
 * fio's --status-interval: the full report (terse, JSON, normal, as asked)
 * of every job so far, running ones from a snapshot each job thread takes
 * between reaps when asked (a thread stuck in a reap for over 2 s shows
 * its last snapshot, or is left out until it has one).
 */
static void status_dump(const struct bench_config *cfg, struct job_thread *jts,
			unsigned nr, struct status_out *so)
{
	struct job_stats **all = calloc(nr ? nr : 1, sizeof(*all));
	struct job_stats *copies = calloc(nr ? nr : 1, sizeof(*copies));
	uint64_t deadline = clock_now_ns() + 2000000000ull;
	struct report r;
	unsigned i, n = 0;

	if (!all || !copies)
		goto out;
	for (i = 0; i < nr; i++)
		if (jts[i].snap && !atomic_load(&jts[i].done))
			atomic_fetch_add(&jts[i].snap_req, 1);
	for (i = 0; i < nr; i++) {
		struct job_thread *jt = &jts[i];

		while (jt->snap && !atomic_load(&jt->done) &&
		       atomic_load(&jt->snap_ack) !=
			       atomic_load(&jt->snap_req) &&
		       clock_now_ns() < deadline) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
		}
		if (atomic_load(&jt->done)) {
			all[n++] = &jt->stats;
			continue;
		}
		pthread_mutex_lock(&jt->snap_lock);
		if (jt->snap_valid) {
			copies[i] = *jt->snap;
			all[n++] = &copies[i];
		}
		pthread_mutex_unlock(&jt->snap_lock);
	}
	memset(&r, 0, sizeof(r));
	r.cfg = cfg;
	r.jobs = all;
	r.nr_jobs = n;
	r.version = BENCH_VERSION;
	r.start_time_ms = so->start_ms;
	if (cfg->output_format & OUTPUT_TERSE)
		report_terse(so->out, &r, cfg->terse_version);
	if (cfg->output_format & (OUTPUT_JSON | OUTPUT_JSONPLUS))
		report_json(so->out, &r, cfg->output_format & OUTPUT_JSONPLUS);
	if (cfg->output_format & OUTPUT_NORMAL)
		report_normal(so->out, &r);
	fflush(so->out);
out:
	free(copies);
	free(all);
}

/* How a job needs its device opened. */
static unsigned job_open_flags(const struct bench_job *job)
{
	return (bench_job_writes(job) ? MQBLK_OPEN_WRITE : 0) |
	       (job->direct ? MQBLK_OPEN_DIRECT : 0) | job->sync_io;
}

/* nrfiles > 1: the devices of clone c's files, in file order. */
static int find_file_devs(struct job_thread *jt, const struct bench_job *job,
			  unsigned c, struct bench_dev *devs, unsigned nr_devs)
{
	char ubuf[4096];
	unsigned k, j;

	jt->fdevs = calloc(job->nrfiles, sizeof(*jt->fdevs));
	if (!jt->fdevs) {
		fprintf(stderr, "mqblk: out of memory\n");
		return -1;
	}
	for (k = 0; k < job->nrfiles; k++) {
		const char *uri = bench_file_uri(job, c, k, ubuf, sizeof(ubuf));

		for (j = 0; uri && j < nr_devs; j++)
			if (!strcmp(devs[j].uri, uri))
				break;
		if (!uri || j == nr_devs) {
			fprintf(stderr,
				"mqblk: %s: file %u of clone %u: no device\n",
				job->name, k, c);
			return -1;
		}
		jt->fdevs[k] = &devs[j];
		/* file 0's device is the one job_resolve checked */
		if (k &&
		    job_bs_check(job, mqblk_dev_block_size(devs[j].dev), uri))
			return -1;
	}
	return 0;
}

static int run_group(const struct bench_config *cfg, struct bench_job *jobs,
		     unsigned first, unsigned last, struct job_thread *jts,
		     unsigned *nr_jts, unsigned *thread_nr,
		     struct dev_cache *dc, struct status_out *so)
{
	struct bench_dev *devs;
	unsigned nr_devs = 0, i, j, c, k, base = *nr_jts, nr_started = 0;
	struct status_snapshot prev, cur;
	FILE *sf = status_stream(cfg);
	uint64_t last_newline = clock_now_ns();
	char ubuf[4096];
	int ret = 0;

	devs = calloc(MAX_GROUP_DEVS, sizeof(*devs));
	if (!devs) {
		fprintf(stderr, "mqblk: out of memory\n");
		return -1;
	}
	/* one device per distinct URI: a clone of a job on fio's jobname
	 * files has its own files, the clones of any other job share one */
	for (i = first; i < last; i++) {
		for (c = 0; c < jobs[i].numjobs * jobs[i].nrfiles; c++) {
			const char *uri = bench_file_uri(&jobs[i],
							 c / jobs[i].nrfiles,
							 c % jobs[i].nrfiles,
							 ubuf, sizeof(ubuf));

			if (!uri) {
				fprintf(stderr,
					"mqblk: %s: file name too long\n",
					jobs[i].name);
				ret = -1;
				goto out_close;
			}
			for (j = 0; j < nr_devs; j++)
				if (!strcmp(devs[j].uri, uri))
					break;
			if (j == nr_devs) {
				if (nr_devs == MAX_GROUP_DEVS) {
					fprintf(stderr,
						"mqblk: more than %u devices in one group\n",
						MAX_GROUP_DEVS);
					ret = -1;
					goto out_close;
				}
				devs[j].uri = strdup(uri);
				devs[j].hipri = -1;
				devs[j].direct = -1;
				nr_devs++;
				if (!devs[j].uri) {
					fprintf(stderr,
						"mqblk: out of memory\n");
					ret = -1;
					goto out_close;
				}
			}
			if (devs[j].direct >= 0 &&
			    devs[j].direct != jobs[i].direct) {
				fprintf(stderr,
					"mqblk: jobs sharing device '%s' disagree on --direct\n",
					uri);
				ret = -1;
				goto out_close;
			}
			if (devs[j].nr_threads &&
			    (devs[j].flags ^ jobs[i].sync_io) &
				    (MQBLK_OPEN_SYNC | MQBLK_OPEN_DSYNC)) {
				fprintf(stderr,
					"mqblk: jobs sharing device '%s' disagree on --sync\n",
					uri);
				ret = -1;
				goto out_close;
			}
			devs[j].direct = jobs[i].direct;
			devs[j].flags |= job_open_flags(&jobs[i]);
			devs[j].nr_threads++;
			if (devs[j].hipri >= 0 &&
			    devs[j].hipri != jobs[i].hipri) {
				fprintf(stderr,
					"mqblk: jobs sharing device '%s' disagree on --hipri\n",
					uri);
				ret = -1;
				goto out_close;
			}
			devs[j].hipri = jobs[i].hipri;
		}
	}
	for (j = 0; j < nr_devs; j++) {
		struct mqblk_dev_opts o;
		char err[256];

		devs[j].dev = dev_cache_take(dc, &devs[j]);
		if (devs[j].dev)
			continue;
		mqblk_dev_opts_init(&o);
		o.nr_queues = devs[j].nr_threads;
		o.flags = devs[j].flags;
		if (devs[j].hipri == 1)
			o.comp_policy = MQBLK_COMP_POLLED;
		ret = mqblk_dev_open(devs[j].uri, &o, &devs[j].dev, err,
				     sizeof(err));
		if (ret) {
			fprintf(stderr, "mqblk: %s\n", err);
			ret = -1;
			goto out_close;
		}
	}
	for (i = first; i < last; i++) {
		for (c = 0; c < jobs[i].numjobs; c++) {
			const char *uri = bench_clone_uri(&jobs[i], c, ubuf,
							  sizeof(ubuf));
			struct job_thread *jt;

			for (j = 0; j < nr_devs; j++)
				if (!strcmp(devs[j].uri, uri))
					break;
			if (job_resolve(&jobs[i], devs[j].dev)) {
				ret = -1;
				goto out_close;
			}
			/* fio's invalidate=1 (its default), for files */
			for (k = 0; jobs[i].invalidate &&
				    (jobs[i].target == TARGET_PATH ||
				     jobs[i].target == TARGET_JOBFILES) &&
				    k < jobs[i].nrfiles;
			     k++) {
				uri = bench_file_uri(&jobs[i], c, k, ubuf,
						     sizeof(ubuf));
				ret = uri ? bench_file_invalidate(uri) :
					    -ENAMETOOLONG;
				if (ret) {
					fprintf(stderr,
						"mqblk: %s: invalidate %s: %s\n",
						jobs[i].name, uri ? uri : "?",
						strerror(-ret));
					ret = -1;
					goto out_close;
				}
			}
			jt = &jts[(*nr_jts)++];
			if (iolog_wanted(&jobs[i])) {
				jt->log = malloc(sizeof(*jt->log));
				if (!jt->log) {
					fprintf(stderr,
						"mqblk: out of memory\n");
					ret = -1;
					goto out_close;
				}
				iolog_init(jt->log, &jobs[i]);
			}
			if (cfg->status_interval_ns) {
				jt->snap = malloc(sizeof(*jt->snap));
				pthread_mutex_init(&jt->snap_lock, NULL);
				if (!jt->snap) {
					fprintf(stderr,
						"mqblk: out of memory\n");
					ret = -1;
					goto out_close;
				}
			}
			jt->job = &jobs[i];
			jt->bdev = &devs[j];
			jt->fdevs = NULL;
			if (jobs[i].nrfiles > 1 &&
			    find_file_devs(jt, &jobs[i], c, devs, nr_devs)) {
				ret = -1;
				goto out_close;
			}
			jt->clone_idx = c;
			jt->thread_nr = (*thread_nr)++;
			stats_init(&jt->stats, &jobs[i]);
		}
	}
	for (i = base; i < *nr_jts; i++) {
		if (pthread_create(&jts[i].thread, NULL, job_thread_fn,
				   &jts[i])) {
			fprintf(stderr, "mqblk: cannot start job thread\n");
			ret = -1;
			break;
		}
		nr_started++;
	}
	group_status(jts + base, nr_started, &prev);
	for (;;) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		bool all_done = true;

		for (i = base; i < base + nr_started; i++)
			if (!atomic_load(&jts[i].done))
				all_done = false;
		if (all_done)
			break;
		nanosleep(&ts, NULL);
		if (cfg->status_interval_ns &&
		    clock_now_ns() - so->last_ns >= cfg->status_interval_ns) {
			status_dump(cfg, jts, base + nr_started, so);
			so->last_ns = clock_now_ns();
		}
		if (!sf)
			continue;
		group_status(jts + base, nr_started, &cur);
		if (cur.now_ns - prev.now_ns >= cfg->eta_interval_ns) {
			status_print(sf, &prev, &cur);
			/* --eta-newline: the line stays, a new one starts */
			if (cfg->eta_newline_set &&
			    cur.now_ns - last_newline >= cfg->eta_newline_ns) {
				fputc('\n', sf);
				last_newline = cur.now_ns;
			}
			prev = cur;
		}
	}
	if (sf && nr_started) {
		group_status(jts + base, nr_started, &cur);
		status_print(sf, &prev, &cur);
		fputc('\n', sf);
	}
	for (i = base; i < base + nr_started; i++) {
		pthread_join(jts[i].thread, NULL);
		if (jts[i].err) {
			fprintf(stderr, "mqblk: %s: %s\n", jts[i].errmsg,
				strerror(jts[i].err));
			ret = -1;
		}
	}
out_close:
	for (j = 0; j < nr_devs; j++) {
		/* a file keeps its data closed: only other devices are kept
		 * for later groups. (The uring driver knows its ring's owner
		 * by a thread-local's address, which a later group's thread
		 * can reuse, so a kept path device refused that thread's
		 * buffers with EEXIST.) */
		if (devs[j].abandoned) {
			/* held by stuck_keep: never closed */
			devs[j].dev = NULL;
			bdev_close(&devs[j]);
		} else if (!devs[j].dev || ret || dc->nr == MAX_GROUP_DEVS ||
			   devs[j].uri[0] == '/' || devs[j].uri[0] == '.')
			bdev_close(&devs[j]);
		else
			dc->d[dc->nr++] = devs[j];
	}
	free(devs);
	return ret;
}

/*
 * Before any output: open every device once and check every job against it,
 * so a bad URI or a job that does not fit its device is one line on stderr
 * and nothing on stdout, whichever group it is in.
 */
static int preflight(struct bench_job *jobs, unsigned nr)
{
	unsigned i;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		struct mqblk_dev_opts o;
		struct mqblk_dev *dev;
		char err[256];

		mqblk_dev_opts_init(&o);
		o.flags = job_open_flags(&jobs[i]);
		if (mqblk_dev_open(job_uri(&jobs[i]), &o, &dev, err,
				   sizeof(err))) {
			fprintf(stderr, "mqblk: %s\n", err);
			return -1;
		}
		ret = job_resolve(&jobs[i], dev);
		mqblk_dev_close(dev);
	}
	return ret;
}

int bench_run(struct bench_config *cfg)
{
	struct bench_job *jobs;
	struct job_thread *jts = NULL;
	struct job_stats **all = NULL;
	unsigned i, first, nr_threads = 0, nr_jts = 0, thread_nr = 0;
	FILE *out = stdout;
	struct timeval tv;
	struct report r;
	struct dev_cache *dc;
	struct bench_files bf = { 0 };
	struct status_out so = { 0 };
	int status = 0;

	if (!cfg->nr_jobs) {
		fprintf(stderr, "mqblk: no jobs defined\n");
		return 1;
	}
	catch_stop_signals();
	jobs = calloc(cfg->nr_jobs, sizeof(*jobs));
	if (!jobs)
		return 1;
	memcpy(jobs, cfg->jobs, cfg->nr_jobs * sizeof(*jobs));
	for (i = 0; i < cfg->nr_jobs; i++)
		nr_threads += jobs[i].numjobs;
	jts = calloc(nr_threads, sizeof(*jts));
	all = calloc(nr_threads, sizeof(*all));
	dc = calloc(1, sizeof(*dc));
	if (!jts || !all || !dc) {
		status = 1;
		goto out_free;
	}
	/* fio lays its files out once its jobs start; here before any
	 * output, so a failure is one line and no half-made report */
	if (bench_files_prepare(jobs, cfg->nr_jobs, &bf)) {
		status = 1;
		goto out_free;
	}
	if (preflight(jobs, cfg->nr_jobs) ||
	    iolog_precreate(jobs, cfg->nr_jobs)) {
		bench_files_unlink(&bf, jobs, true);
		status = 1;
		goto out_free;
	}
	/* a report with no normal text still says where the I/O went */
	if (!(cfg->output_format & OUTPUT_NORMAL))
		for (i = 0; i < cfg->nr_jobs; i++)
			if (jobs[i].target == TARGET_NULL_DEFAULT)
				fprintf(stderr, "mqblk: %s: %s\n", jobs[i].name,
					null_default_note);
	if (cfg->output) {
		out = fopen(cfg->output, "w");
		if (!out) {
			fprintf(stderr,
				"mqblk: cannot open output file '%s': %s\n",
				cfg->output, strerror(errno));
			status = 1;
			goto out_free;
		}
	}
	gettimeofday(&tv, NULL);
	so.out = out;
	so.start_ms = (uint64_t)tv.tv_sec * 1000 + (uint64_t)tv.tv_usec / 1000;
	so.last_ns = clock_now_ns();
	if (cfg->output_format & OUTPUT_NORMAL)
		print_job_headers(out, jobs, cfg->nr_jobs);
	fflush(out);
	/* groups run one after another; jobs inside one run together */
	for (first = 0; first < cfg->nr_jobs && !atomic_load(&stop_signal) &&
			!atomic_load(&stop_exitall);) {
		unsigned last = first + 1;

		while (last < cfg->nr_jobs &&
		       jobs[last].groupid == jobs[first].groupid)
			last++;
		if (cfg->output_format & OUTPUT_NORMAL) {
			bench_files_print_layout(out, &bf, jobs, first, last);
			fflush(out);
		}
		if (run_group(cfg, jobs, first, last, jts, &nr_jts, &thread_nr,
			      dc, &so)) {
			status = 1;
			if (!nr_jts)
				goto out_close;
		}
		first = last;
	}
	dev_cache_close(dc);
	bench_files_unlink(&bf, jobs, false);
	for (i = 0; i < nr_jts; i++)
		if (jts[i].log && iolog_write(jts[i].log, jts[i].thread_nr))
			status = 1;
	for (i = 0; i < nr_jts; i++) {
		all[i] = &jts[i].stats;
		jts[i].stats.pid = getpid();
		if (jts[i].stats.error && !jts[i].stats.error_let_go)
			status = 1;
	}
	if (atomic_load(&stop_signal))
		status = 128;
	r.cfg = cfg;
	r.jobs = all;
	r.nr_jobs = nr_jts;
	r.version = BENCH_VERSION;
	r.start_time_ms =
		(uint64_t)tv.tv_sec * 1000 + (uint64_t)tv.tv_usec / 1000;
	/* fio's order: terse lines, then JSON, then the normal report */
	if (cfg->output_format & OUTPUT_TERSE)
		report_terse(out, &r, cfg->terse_version);
	if (cfg->output_format & (OUTPUT_JSON | OUTPUT_JSONPLUS))
		report_json(out, &r, cfg->output_format & OUTPUT_JSONPLUS);
	if (cfg->output_format & OUTPUT_NORMAL)
		report_normal(out, &r);
out_close:
	dev_cache_close(dc);
	if (out != stdout && fclose(out)) {
		fprintf(stderr, "mqblk: writing '%s' failed\n", cfg->output);
		status = 1;
	}
	fflush(stdout);
out_free:
	for (i = 0; jts && i < nr_jts; i++) {
		if (jts[i].log) {
			iolog_free(jts[i].log);
			free(jts[i].log);
		}
		if (!jts[i].snap)
			continue;
		free(jts[i].snap);
		pthread_mutex_destroy(&jts[i].snap_lock);
	}
	bench_files_free(&bf);
	free(dc);
	free(all);
	free(jts);
	free(jobs);
	return status;
}
