// SPDX-License-Identifier: MIT
/*
 * The bench runner's job threads: each job (and each of its numjobs
 * clones) runs on a thread of its own with fio's submit/reap loop, its
 * verify pass, rate and thinktime. runner_run.c opens the devices, starts
 * the threads group by group and hands their statistics to the reports.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <mqblk/mqblk.h>

#include "bench.h"
#include "core/clock.h"
#include "dist.h"
#include "files.h"
#include "iolog.h"
#include "rand.h"
#include "runner_gen.h"
#include "runner_int.h"
#include "stats.h"
#include "verify.h"

#define SAMPLE_NS (500ull * 1000 * 1000) /* fio's bw_avg_time */
/* A reap waits at most this long, so the end of the runtime and a signal
 * are seen even when nothing completes (a target gone, its requests held
 * for a reconnection) */
#define REAP_WAIT_NS (100ull * 1000 * 1000)

static enum mqblk_op ddir_op(enum bench_ddir d)
{
	return d == DDIR_READ  ? MQBLK_OP_READ :
	       d == DDIR_WRITE ? MQBLK_OP_WRITE :
				 MQBLK_OP_DISCARD;
}

static void wmap_set(struct gen *g, uint64_t blk)
{
	g->wmap[blk / 64] |= 1ull << (blk % 64);
}

static void wmap_clear(struct gen *g, uint64_t blk)
{
	g->wmap[blk / 64] &= ~(1ull << (blk % 64));
}

static void verify_read(struct gen *g, uint64_t blk, struct next_io *n)
{
	uint64_t pos = blk * g->vbs;

	if (g->files)
		pos = multi_file_of(g, pos, n);
	n->d = DDIR_READ;
	n->off = g->region_start + pos;
	n->len = (uint32_t)g->vbs;
	n->verify = true;
}

static void gen_reset_pass(struct gen *g)
{
	unsigned k;
	int d;

	for (d = 0; d < DDIR_NR; d++) {
		g->seq_pos[d] = 0;
		if (g->use_map && g->map[d].l0)
			bench_randmap_reset(&g->map[d]);
	}
	g->bytes_issued = 0;
	/* the files not being served start the pass over too */
	for (k = 0; g->files && k < g->nr_files; k++) {
		struct gfile *f = &g->files[k];

		f->done = 0;
		if (k == g->cur_file)
			continue;
		for (d = 0; d < DDIR_NR; d++) {
			f->seq_pos[d] = 0;
			if (g->use_map && f->map[d].l0)
				bench_randmap_reset(&f->map[d]);
		}
	}
	g->file_mark = 0;
}

static inline __attribute__((always_inline)) bool
gen_next(struct gen *g, bool time_based, enum bench_ddir *dp, uint64_t *offp,
	 uint32_t *lenp, const bool seqmod);

#define NEXT_AGAIN (-1) /* main_next: the phase changed, switch again */

/*
 * The workload's next I/O (a flush after every --fsync writes), or a
 * change of phase: a --verify_backlog read-back is due, or the workload
 * has issued all it will. Built twice on the constant seqmod: PH_MAIN,
 * and PH_MAIN_SEQMOD with rw=...:N's offsets.
 */
static inline __attribute__((always_inline)) int main_next(struct gen *g,
							   unsigned inflight,
							   struct next_io *n,
							   const bool seqmod)
{
	const struct bench_job *job = g->job;
	uint64_t blk;

	if (g->sync_due) {
		g->sync_due = false;
		n->sync = true;
		n->file = (uint16_t)g->cur_file;
		return NEXT_IO;
	}
	if (g->use_backlog && g->backlog_nr >= job->verify_backlog) {
		if (inflight)
			return NEXT_WAIT;
		g->phase = PH_BACKLOG;
		g->backlog_pos = 0;
		if (g->xlog_mode) {
			/* the log holds just this window */
			xlog_resolve(g);
			qsort(g->xlog, g->xnr, sizeof(*g->xlog), xext_cmp);
		}
		return NEXT_AGAIN;
	}
	if (!g->main_done &&
	    (g->stop_main || !gen_next(g, job->time_based && !job->verify_only,
				       &n->d, &n->off, &n->len, seqmod)))
		g->main_done = true;
	if (g->main_done) {
		if (inflight)
			return NEXT_WAIT;
		g->phase = PH_END_FSYNC;
		return NEXT_AGAIN;
	}
	if (n->d == DDIR_WRITE && job->verify && g->xlog_mode) {
		if (g->track && xlog_add(g, n->off + g->vbase, n->len)) {
			g->err = ENOMEM;
			g->phase = PH_DONE;
			return NEXT_AGAIN;
		}
		g->backlog_nr++;
		if (job->verify_only)
			return NEXT_AGAIN;
		n->stamp = true;
	} else if (n->d == DDIR_WRITE && job->verify) {
		blk = (n->off - g->region_start + g->vbase) / g->vbs;
		if (g->track)
			wmap_set(g, blk);
		if (g->backlog)
			g->backlog[g->backlog_nr++] = blk;
		/* verify_only: the write phase replayed, not written */
		if (job->verify_only)
			return NEXT_AGAIN;
		n->stamp = true;
	}
	if (n->d == DDIR_WRITE && g->fsync_n &&
	    ++g->writes_since_sync >= g->fsync_n) {
		g->writes_since_sync = 0;
		g->sync_due = true;
	}
	/* a read-only job checks what it reads (fio) */
	n->verify = n->d == DDIR_READ && job->verify &&
		    !bench_job_writes(job) && !g->track;
	return NEXT_IO;
}

/* nrfiles > 1: the file the next I/O goes to, then the I/O (a flush due
 * goes to the file just written, before the service moves on; a
 * --verify_backlog read-back due moves it on only once it is done) */
static __attribute__((noinline)) int
main_next_multi(struct gen *g, unsigned inflight, struct next_io *n)
{
	if (!g->sync_due && !g->main_done &&
	    !(g->use_backlog && g->backlog_nr >= g->job->verify_backlog))
		gen_file_next(g, n);
	if (g->job->ddir_seq_nr > 1 || g->job->ddir_seq_add)
		return main_next(g, inflight, n, true);
	return main_next(g, inflight, n, false);
}

/* out of line: next_io, the other jobs' path, stays the size it was */
static __attribute__((noinline)) int
main_next_seqmod(struct gen *g, unsigned inflight, struct next_io *n)
{
	return main_next(g, inflight, n, true);
}

/*
 * What to issue next, in fio's order: the workload (a flush after every
 * --fsync writes; with --verify_backlog, a read-back of every N written
 * blocks once they have completed), then --end_fsync's flush, then the
 * verify pass over every block written. NEXT_WAIT: nothing until the
 * requests in flight complete (only returned while some are). Inlined in
 * the I/O loop (and a copy in multi_next, so it stays there).
 */
static inline __attribute__((always_inline)) int
next_io(struct gen *g, unsigned inflight, struct next_io *n)
{
	const struct bench_job *job = g->job;
	uint64_t blk;
	int ret;

	memset(n, 0, sizeof(*n));
	if (g->terminated && g->phase != PH_DONE) {
		/* fio's terminate: the I/O out completes, nothing more
		 * goes, the verify pass included */
		g->main_done = true;
		if (inflight)
			return NEXT_WAIT;
		g->phase = PH_DONE;
	}
	for (;;) {
		switch (g->phase) {
		case PH_MAIN:
			ret = main_next(g, inflight, n, false);
			if (ret != NEXT_AGAIN)
				return ret;
			continue;
		case PH_MAIN_SEQMOD:
			ret = main_next_seqmod(g, inflight, n);
			if (ret != NEXT_AGAIN)
				return ret;
			continue;
		case PH_MAIN_MULTI:
			ret = main_next_multi(g, inflight, n);
			if (ret != NEXT_AGAIN)
				return ret;
			continue;
		case PH_BACKLOG:
			if (g->xlog_mode && g->backlog_pos < g->xnr) {
				xlog_read(g, &g->xlog[g->backlog_pos++], n);
				return NEXT_IO;
			}
			if (!g->xlog_mode && g->backlog_pos < g->backlog_nr) {
				blk = g->backlog[g->backlog_pos++];
				wmap_clear(g, blk);
				verify_read(g, blk, n);
				return NEXT_IO;
			}
			if (inflight)
				return NEXT_WAIT;
			g->backlog_nr = 0;
			g->xnr = 0;
			g->phase = g->main_phase;
			continue;
		case PH_END_FSYNC:
			/* a flush per file */
			if (job->end_fsync && g->end_synced < g->nr_files) {
				n->file = (uint16_t)g->end_synced++;
				n->sync = true;
				return NEXT_IO;
			}
			if (inflight)
				return NEXT_WAIT;
			g->phase = g->track && job->do_verify ? PH_VERIFY :
								PH_DONE;
			if (g->phase == PH_VERIFY && g->xlog_mode) {
				xlog_resolve(g);
				qsort(g->xlog, g->xnr, sizeof(*g->xlog),
				      xext_cmp);
				g->vcursor = 0;
			}
			continue;
		case PH_VERIFY:
			if (g->xlog_mode) {
				if (g->vcursor < g->xnr) {
					xlog_read(g, &g->xlog[g->vcursor++], n);
					return NEXT_IO;
				}
				if (inflight)
					return NEXT_WAIT;
				g->phase = PH_DONE;
				continue;
			}
			while (g->vcursor < g->wmap_words &&
			       !g->wmap[g->vcursor])
				g->vcursor++;
			if (g->vcursor < g->wmap_words) {
				blk = g->vcursor * 64 +
				      (uint64_t)__builtin_ctzll(
					      g->wmap[g->vcursor]);
				wmap_clear(g, blk);
				verify_read(g, blk, n);
				return NEXT_IO;
			}
			if (inflight)
				return NEXT_WAIT;
			g->phase = PH_DONE;
			continue;
		case PH_DONE:
			return NEXT_DONE;
		}
	}
}

/* fio's refill_buffers: fresh random data for every write (or content
 * made to compress or repeat) */
static void refill(struct gen *g, void *buf, uint64_t len)
{
	uint64_t i, v;

	if (g->job->compress_pct || g->job->dedupe_pct) {
		gen_fill_content(g, buf, len);
		return;
	}
	if (g->job->zero_buffers || g->job->buffer_pattern_len)
		return; /* the buffers hold it already */
	for (i = 0; i + 8 <= len; i += 8) {
		v = bench_rng_next(&g->rng);
		memcpy((char *)buf + i, &v, 8);
	}
}

/*
 * fio's get_next_buflen: the length of an I/O of size slot d that has room
 * bytes before the end of the region. A range draws min + max * U[0, 1);
 * a split walks its entries (smallest percentage first) adding up their
 * percentages until the draw falls below the sum and the size fits, the
 * last entry taking what the percentages leave. Either is then aligned
 * down to the minimum (a multiple of it, or the maximum) and capped at the
 * maximum, and drawn again until it fits. 0 when not even the minimum fits.
 */
static uint64_t next_buflen(struct gen *g, enum bench_ddir d, uint64_t room)
{
	const struct bench_job *job = g->job;
	uint64_t minbs = job->bs[d], maxbs = job->bs_max[d], len = minbs, r;
	unsigned tries;

	if (minbs == maxbs)
		return minbs;
	if (room < minbs)
		return 0;
	/* fio draws until one fits; a split whose fitting sizes all have 0%
	 * would never end, so after enough draws the minimum does */
	for (tries = 0; tries < 1000; tries++) {
		r = bench_rng_next(&g->bsrng[d]);
		if (!job->bssplit_nr[d]) {
			len = minbs + (uint64_t)((double)maxbs *
						 ((double)(r >> 11) * 0x1p-53));
		} else {
			uint64_t perc = 0;
			unsigned i;

			for (i = 0; i < job->bssplit_nr[d]; i++) {
				const struct bench_bssplit *sp =
					&job->bssplit[d][i];

				if (!sp->perc)
					continue;
				len = sp->bs;
				perc += sp->perc;
				if (r / perc <= UINT64_MAX / 100 && len <= room)
					break;
			}
		}
		if (!(minbs & (minbs - 1)))
			len &= ~(minbs - 1);
		else
			len -= len % minbs;
		if (len > maxbs)
			len = maxbs;
		if (len <= room)
			return len;
	}
	return minbs;
}

/* A block drawn by the job's --random_distribution law: out of line and
 * cold, so the uniform path's code stays as it was */
static __attribute__((noinline, cold)) uint64_t
gen_dist_block(struct gen *g, enum bench_ddir d)
{
	return bench_dist_next(&g->dist[d], &g->rng);
}

/*
 * fio's ddir_seq_add (rw=read:4k, rw=write:-8k): the next sequential
 * offset is where the last I/O ended plus the hole; past the end it wraps
 * to the start, or, going backwards, to the end less the step.
 */
__attribute__((noinline, cold)) static uint64_t seq_skip(const struct gen *g,
							 uint64_t pos)
{
	int64_t add = g->job->ddir_seq_add;

	pos += (uint64_t)add;
	if (pos >= g->region_len) /* also a step back past the start */
		pos = add > 0 ? 0 : g->region_len + (uint64_t)add;
	return pos;
}

/*
 * fio's ddir_seq_nr (rw=randread:8): a random offset every N I/Os, the
 * job's first among them, and the N-1 in between carry on sequentially
 * from where the last ended (as fio 3.33 runs it). A sequential I/O that does not fit before the end takes
 * a random offset instead, as fio's get_next_block falls back to one.
 * It does not claim the random map (fio's IO_U_F_BUSY_OK).
 */
__attribute__((noinline, cold)) static bool
seq_run(struct gen *g, enum bench_ddir d, enum bench_ddir slot, uint64_t minbs,
	uint64_t *posp, uint64_t *lenp)
{
	uint64_t pos = g->seq_pos[d];

	if (!g->seq_nr_left) {
		g->seq_nr_left = g->job->ddir_seq_nr - 1;
		return false;
	}
	g->seq_nr_left--;
	if (pos + minbs > g->region_len)
		return false;
	*posp = pos;
	*lenp = next_buflen(g, slot, g->region_len - pos);
	return true;
}

/*
 * Pick the next I/O; false when the job has issued all it should. seqmod
 * (a constant: see next_io) adds fio's rw=...:N offset modifiers.
 */
static inline __attribute__((always_inline)) bool
gen_next(struct gen *g, bool time_based, enum bench_ddir *dp, uint64_t *offp,
	 uint32_t *lenp, const bool seqmod)
{
	const struct bench_job *job = g->job;
	enum bench_ddir d, slot;
	uint64_t minbs, len, nr_blocks, blk, pos;

	if (job->number_ios && g->ios_issued >= job->number_ios)
		return false;
	/* a pass is the region, or fio's io_size of I/O over it (wrapping) */
	if (!time_based && g->bytes_issued >= g->pass_len) {
		if (--g->loops_left == 0)
			return false;
		gen_reset_pass(g);
	}
	if (__builtin_expect(g->forced_ddir >= 0, 0)) {
		d = (enum bench_ddir)g->forced_ddir;
		g->forced_ddir = -1;
	} else {
		d = job_ddir(job, &g->rng);
	}
	slot = bench_job_bs_slot(job, d);
	minbs = job->bs[slot];
	nr_blocks = g->region_len / minbs;
	if (bench_rw_is_random(job->rw)) {
		if (seqmod && job->ddir_seq_nr > 1 &&
		    seq_run(g, d, slot, minbs, &pos, &len))
			goto seq;
		/* fio: offsets on the minimum block size's grid, then the
		 * length, cut short where the random map has used blocks */
		if (g->use_map) {
			blk = bench_randmap_claim(&g->map[d],
						  bench_rng_below(&g->rng,
								  nr_blocks));
			if (blk == UINT64_MAX) {
				/* every block used: fio ends the pass there
				 * (a longer I/O cut short, a region not a
				 * multiple of the block size leave bytes
				 * unwritten); time_based starts over */
				if (!time_based && !job->io_size && !g->files) {
					if (--g->loops_left == 0)
						return false;
					gen_reset_pass(g);
				} else {
					bench_randmap_reset(&g->map[d]);
				}
				blk = bench_randmap_claim(
					&g->map[d],
					bench_rng_below(&g->rng, nr_blocks));
			}
		} else if (__builtin_expect(g->use_dist, 0)) {
			/* a law: no map (fio's), blocks repeat */
			blk = gen_dist_block(g, d);
		} else {
			blk = bench_rng_below(&g->rng, nr_blocks);
		}
		pos = blk * minbs;
		len = next_buflen(g, slot, g->region_len - pos);
		if (g->use_map && len > minbs) {
			uint64_t nb = bench_randmap_extend(
				&g->map[d], blk, (len + minbs - 1) / minbs);

			if (nb * minbs < len)
				len = nb * minbs;
		}
		/* where a random I/O ends only matters to rw=randread:N */
		if (seqmod)
			g->seq_pos[d] = pos + len;
	} else if (!seqmod) {
		if (g->seq_pos[d] + minbs > g->region_len)
			g->seq_pos[d] = 0;
		pos = g->seq_pos[d];
		len = next_buflen(g, slot, g->region_len - pos);
		g->seq_pos[d] += len;
	} else {
		pos = g->seq_pos[d];
		if (job->ddir_seq_add && pos)
			pos = seq_skip(g, pos);
		if (pos + minbs > g->region_len)
			pos = 0;
		len = next_buflen(g, slot, g->region_len - pos);
seq:
		g->seq_pos[d] = pos + len;
	}
	*dp = d;
	*offp = g->region_start + pos;
	*lenp = (uint32_t)len;
	g->bytes_issued += len;
	g->ios_issued++;
	return true;
}

static uint64_t job_seed(const struct job_thread *jt)
{
	const struct bench_job *job = jt->job;
	uint64_t base;

	if (job->randseed_set)
		base = job->randseed;
	else if (job->randrepeat)
		base = 0x89; /* fio's FIO_RANDSEED */
	else
		base = clock_mono_ns() ^ ((uint64_t)getpid() << 32);
	return base + jt->clone_idx * 0x9e3779b97f4a7c15ull;
}

/* Latency/throughput bookkeeping for one reaped batch. */
static inline __attribute__((always_inline)) void
account_batch(struct job_thread *jt, struct mqblk_rq **rqs, int n, uint64_t now,
	      bool want_lat, bool counting)
{
	struct job_stats *js = &jt->stats;
	/* loaded once: the stores below could alias it for the compiler */
	struct iolog_set *log = jt->log;
	int i;

	if (!counting)
		return;
	for (i = 0; i < n; i++) {
		struct io_u *u = rqs[i]->private;
		uint64_t clat = now > u->issue_ns ? now - u->issue_ns : 0;

		if (__builtin_expect(rqs[i]->res < 0, 0))
			continue;
		if (__builtin_expect(u->sync, 0)) {
			js->sync_ios++;
			if (want_lat)
				lat_stat_add(&js->sync_lat, clat, 1);
			continue;
		}
		stats_add_io(js, u->ddir, u->slat_ns, clat, u->len, 1,
			     want_lat);
		if (__builtin_expect(log != NULL, 0))
			iolog_io(log, now - jt->start_ns, u->ddir, u->slat_ns,
				 clat, u->len, u->off,
				 js->dd[u->ddir].clat_hist);
	}
	js->complete_map[stats_batch_slot((unsigned)n)]++;
	js->total_complete++;
}

/* Commit the plugged batch and stamp its I/Os: one clock read per batch,
 * the slat of each is the time from preparing the batch to its commit. */
static void flush_batch(struct mqblk_queue *q, struct job_stats *js,
			struct io_u **pend, unsigned *queued, uint64_t t_batch,
			bool want_lat, bool counting)
{
	uint64_t t_issued = 0;
	unsigned k;

	mqblk_unplug(q);
	if (want_lat) {
		t_issued = clock_now_ns();
		for (k = 0; k < *queued; k++) {
			pend[k]->issue_ns = t_issued;
			pend[k]->slat_ns = t_issued - t_batch;
		}
	}
	if (counting) {
		js->submit_map[stats_batch_slot(*queued)]++;
		js->total_submit++;
	}
	*queued = 0;
}

/*
 * nrfiles > 1: the next I/O (held while its file's queue has no free
 * tag, so the service order stands) and a tag of that file's queue. *rqp
 * NULL: reap first (NEXT_WAIT), or nothing more to issue (next_io's).
 */
static __attribute__((noinline)) int
multi_next(struct gen *g, unsigned inflight, struct next_io *n,
	   struct next_io *held, bool *have, struct mqblk_rq **rqp)
{
	struct mqblk_queue *q;
	int what;

	*rqp = NULL;
	if (!*have) {
		what = next_io(g, inflight, held);
		if (what != NEXT_IO)
			return what;
		*have = true;
	}
	q = g->files[held->file].q;
	*rqp = mqblk_rq_get(q, MQBLK_RQ_NOWAIT);
	if (!*rqp && !inflight)
		*rqp = mqblk_rq_get(q, 0); /* others hold its tags */
	if (!*rqp)
		return NEXT_WAIT;
	*n = *held;
	*have = false;
	return NEXT_IO;
}

void *job_thread_fn(void *arg)
{
	struct job_thread *jt = arg;
	const struct bench_job *job = jt->job;
	struct job_stats *js = &jt->stats;
	struct mqblk_dev *dev = jt->bdev->dev;
	unsigned depth = job->iodepth, batch = job->iodepth_batch_submit;
	unsigned cmin = job->iodepth_batch_complete_min;
	unsigned cmax = job->iodepth_batch_complete_max;
	bool want_lat = !job->gtod_reduce, counting;
	struct mqblk_rq **rqs = NULL;
	struct io_u *units = NULL, *free_units = NULL;
	struct mqblk_queue *q = NULL;
	struct mqblk_path_stats paths0[MQBLK_MAX_PATHS];
	struct nvme_rdma_queue_stats rdma0;
	int nr_paths0 = -1;
	struct rusage ru0, ru1;
	struct sampler smp = { 0 };
	struct gen g = { 0 };
	uint64_t maxbs = 0, t_start, t_end = 0, ramp_end = 0, now;
	uint64_t t_batch = 0, reaps = 0;
	unsigned inflight = 0, queued = 0, i;
	struct io_u **pend = NULL;
	bool more = true;
	char *bufmem = NULL;
	uint64_t stuck_since = 0; /* job_stuck_give_up's */
	unsigned stuck = 0;
	struct bench_dev *stuck_bd = NULL; /* the device given up on */
	struct verify_ctx vctx = { 0 };
	/* the context of each file (u->file, n.file: 0 with one file) */
	struct verify_ctx *vcs = &vctx;
	uint64_t vspan = 0; /* what the verify maps cover */
	struct pace pc;
	bool slow_checks; /* --status-interval or a minimum rate */
	uint64_t stride;
	enum bench_ddir wslot;
	struct mqblk_queue *pq = NULL; /* the queue plugged */
	struct next_io mq_n; /* nrfiles > 1: the I/O waiting for a tag */
	bool mq_have = false, multi;
	int d, ret;

	/* fio's cpus_allowed: before the queue opens, so its rings and
	 * kernel workers start out on the CPUs it may use */
	if (CPU_COUNT(&job->cpus)) {
		cpu_set_t set = job->cpus;

		if (job->cpus_split) {
			unsigned k = jt->thread_nr % (unsigned)CPU_COUNT(&set);
			int c;

			for (c = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &job->cpus) && !k--)
					break;
			CPU_ZERO(&set);
			CPU_SET(c, &set);
		}
		ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (ret) {
			job_fail(jt, ret,
				 "%s: cpus_allowed=%s: cannot run there",
				 job->name, job->cpus_allowed);
			goto out;
		}
	}
	for (d = 0; d < DDIR_NR; d++)
		if (job->bs_max[d] > maxbs)
			maxbs = job->bs_max[d];
	g.job = job;
	g.main_phase = job->ddir_seq_nr > 1 || job->ddir_seq_add ?
			       PH_MAIN_SEQMOD :
			       PH_MAIN;
	g.phase = g.main_phase;
	g.forced_ddir = -1;
	g.loops_left = job->loops ? job->loops : 1;
	g.region_start = job->offset + jt->clone_idx * job->offset_increment;
	g.region_len = job->size;
	g.pass_len = job->io_size ? job->io_size : job->size;
	/* fio allocates no random map for a non-uniform law
	 * (init_random_map returns once init_rand_distribution has set one
	 * up): blocks repeat as the law draws them */
	g.use_dist = bench_rw_is_random(job->rw) &&
		     job->rand_dist != DIST_RANDOM;
	g.use_map = bench_rw_is_random(job->rw) && !job->norandommap &&
		    !g.use_dist;
	bench_rng_seed(&g.rng, job_seed(jt));
	g.nr_files = 1;
	g.epfd = -1;
	bench_rng_seed(&g.buf_state, job_seed(jt) ^ 0x6275666665727321ull);
	bench_rng_seed(&g.dedupe_rng, job_seed(jt) ^ 0x6465647570652121ull);
	if (jt->fdevs && multi_init(jt, &g))
		goto out;
	for (d = 0; g.use_dist && d < DDIR_NR; d++) {
		/* a law per direction over its block size's grid; zipf's
		 * zeta sum (up to 10M terms) is done once if they agree */
		uint64_t nr =
			g.region_len /
			job->bs[bench_job_bs_slot(job, (enum bench_ddir)d)];

		if (d && nr == g.dist[0].nranges &&
		    job->rand_dist != DIST_ZONED &&
		    job->rand_dist != DIST_ZONED_ABS)
			g.dist[d] = g.dist[0];
		else
			gen_law_init(job, &g.dist[d], (enum bench_ddir)d, nr,
				     &g.rng);
	}
	for (d = 0; d < DDIR_NR; d++)
		bench_rng_seed(&g.bsrng[d],
			       job_seed(jt) ^
				       (0xb5ad4eceda1ce2a9ull * (d + 1)));
	g.fsync_n = job->fsync_blocks ? job->fsync_blocks :
					job->fdatasync_blocks;
	if (job->verify) {
		/* every clone writes the same data to a block, so clones
		 * over one region do not fail each other's verify */
		vctx.type = job->verify;
		vctx.pattern = job->verify_pattern_len ? job->verify_pattern :
							 NULL;
		vctx.pattern_len = job->verify_pattern_len;
		vctx.seed =
			job_seed(jt) - jt->clone_idx * 0x9e3779b97f4a7c15ull;
		vctx.interval = job->verify_interval;
		vctx.file = jt->bdev->uri;
		wslot = bench_job_bs_slot(job, DDIR_WRITE);
		g.vbs = job->bs[wslot];
		g.track = job->rw != RW_READ && job->rw != RW_RANDREAD &&
			  (job->do_verify || job->verify_only);
		g.xlog_mode = bench_job_bs_mixed(job, wslot);
		vspan = g.region_len;
		if (g.files) {
			vspan = multi_verify(jt, &g, &vctx, &vcs);
			if (!vspan)
				goto out;
		}
	}
	if (g.track && g.xlog_mode) {
		/* every offset and length written is a multiple of the gcd
		 * of the write sizes (the verify interval divides it) */
		g.gran = job->verify_interval;
		g.nr_gran = (vspan + g.gran - 1) / g.gran;
		g.xcover = calloc((g.nr_gran + 63) / 64, sizeof(uint64_t));
		g.use_backlog = job->verify_backlog != 0;
		if (!g.xcover) {
			job_fail(jt, ENOMEM,
				 "%s: cannot allocate the verify map",
				 job->name);
			goto out;
		}
	} else if (g.track) {
		g.wmap_words = (vspan / g.vbs + 63) / 64;
		g.wmap = calloc(g.wmap_words, sizeof(*g.wmap));
		if (job->verify_backlog)
			g.backlog =
				calloc(job->verify_backlog, sizeof(*g.backlog));
		g.use_backlog = g.backlog != NULL;
		if (!g.wmap || (job->verify_backlog && !g.backlog)) {
			job_fail(jt, ENOMEM,
				 "%s: cannot allocate the verify map",
				 job->name);
			goto out;
		}
	}
	if (g.use_map) {
		for (d = 0; d < DDIR_NR; d++) {
			if (bench_randmap_init(
				    &g.map[d],
				    g.region_len /
					    job->bs[bench_job_bs_slot(
						    job, (enum bench_ddir)d)])) {
				job_fail(jt, ENOMEM,
					 "%s: cannot allocate random map",
					 job->name);
				goto out;
			}
		}
	}
	if (g.files && multi_laws(jt, &g))
		goto out;
	nr_paths0 = mqblk_dev_get_paths(dev, paths0, MQBLK_MAX_PATHS);
	js->has_rdma = rdma_sum(dev, &rdma0);
	if (g.files) {
		if (multi_open(jt, &g))
			goto out;
		q = g.files[0].q;
	} else {
		ret = mqblk_queue_open(dev, &q);
		if (ret) {
			job_fail(jt, -ret,
				 "%s: cannot open a queue on the device",
				 job->name);
			goto out;
		}
	}
	pq = q;
	multi = g.files != NULL;
	units = calloc(depth, sizeof(*units));
	rqs = calloc(depth, sizeof(*rqs));
	pend = calloc(depth, sizeof(*pend));
	/* O_DIRECT: every buffer starts on a 4 KiB boundary */
	stride = job->direct ? (maxbs + 4095) & ~4095ull : maxbs;
	if (posix_memalign((void **)&bufmem, 4096, (size_t)(stride * depth)))
		bufmem = NULL;
	if (!units || !rqs || !pend || !bufmem) {
		job_fail(jt, ENOMEM, "%s: cannot allocate I/O buffers",
			 job->name);
		goto out;
	}
	/* registered buffers (fio --fixedbufs): mqblk's default wherever the
	 * device takes them; asked for and refused is an error */
	for (i = 0; job->fixedbufs && i < g.nr_files; i++) {
		ret = mqblk_queue_map_buf(g.files ? g.files[i].q : q, bufmem,
					  (size_t)(stride * depth));
		if (ret && (job->fixedbufs == 1 || ret != -EOPNOTSUPP)) {
			job_fail(jt, -ret,
				 "%s: --fixedbufs: cannot register %llu "
				 "bytes of buffers with the device",
				 job->name,
				 (unsigned long long)(stride * depth));
			goto out;
		}
	}
	/* write buffers carry non-zero, non-repeating data, as fio's do,
	 * unless --zero_buffers */
	if (job->zero_buffers) {
		memset(bufmem, 0, (size_t)(stride * depth));
	} else if (job->buffer_pattern_len) {
		/* fio's buffer_pattern: the pattern over and over */
		for (i = 0; i < stride * depth; i++)
			bufmem[i] = (char)job->buffer_pattern
					    [i % job->buffer_pattern_len];
	} else
		for (i = 0; i < stride * depth / 8; i++)
			((uint64_t *)bufmem)[i] = bench_rng_next(&g.rng);
	for (i = 0; i < depth; i++) {
		/* pushed from the top so the first I/Os get ascending,
		 * contiguous buffers: a scheduler can merge sequential
		 * I/O only when the buffers are contiguous too */
		unsigned k = depth - 1 - i;

		units[k].buf = bufmem + (size_t)k * stride;
		units[k].next_free = free_units;
		free_units = &units[k];
	}

	/* fio's startdelay: the job starts that much later */
	if (job->startdelay_ns)
		sleep_until(clock_now_ns() + job->startdelay_ns);
	t_start = clock_now_ns();
	pace_init(&pc, job, job_seed(jt), t_start);
	slow_checks = jt->snap || pc.check_min;
	jt->start_ns = t_start;
	smp.last_ns = t_start;
	if (job->ramp_time_ns)
		ramp_end = t_start + job->ramp_time_ns;
	counting = !ramp_end;
	if (job->runtime_ns)
		t_end = t_start + job->ramp_time_ns + job->runtime_ns;
	cpu_snapshot(&ru0);
	atomic_store(&jt->started, 1);

	for (;;) {
		/* fill the queue, committing every `batch` requests (fio's
		 * iodepth_batch_submit; a commit is one unplug here) */
		while (more && inflight < depth) {
			struct mqblk_rq *rq;
			struct io_u *u;
			struct next_io n;
			int what;

			if (__builtin_expect(pc.on, 0) &&
			    pace_wait(&pc, &g.forced_ddir, &g.rng,
				      g.phase == g.main_phase, job, inflight,
				      t_end))
				break; /* reap first */
			if (__builtin_expect(multi, 0)) {
				/* the file first, then a tag of its queue */
				what = multi_next(&g, inflight, &n, &mq_n,
						  &mq_have, &rq);
				if (what == NEXT_DONE)
					more = false;
				if (!rq)
					break;
				if (queued && g.files[n.file].q != pq)
					flush_batch(pq, js, pend, &queued,
						    t_batch, want_lat,
						    counting);
				pq = g.files[n.file].q;
			} else {
				rq = mqblk_rq_get(q, MQBLK_RQ_NOWAIT);
				if (!rq && !inflight)
					rq = mqblk_rq_get(q, 0);
				if (!rq)
					break; /* completions will free tags */
				what = next_io(&g, inflight, &n);
				if (what != NEXT_IO) {
					mqblk_rq_put(rq);
					if (what == NEXT_DONE)
						more = false;
					break;
				}
			}
			if (!queued) {
				if (want_lat)
					t_batch = clock_now_ns();
				mqblk_plug(pq);
			}
			u = free_units;
			free_units = u->next_free;
			u->ddir = n.d;
			u->len = n.len;
			u->off = n.off;
			u->verify = n.verify;
			u->sync = n.sync;
			if (multi)
				u->file = n.file;
			if (n.stamp)
				verify_stamp(&vcs[n.file], u->buf, n.off, n.len,
					     job->loops - g.loops_left);
			else if (job->refill_buffers && n.d == DDIR_WRITE &&
				 !n.sync)
				refill(&g, u->buf, n.len);
			rq->op = n.sync ? MQBLK_OP_FLUSH : ddir_op(n.d);
			rq->offset = n.sync ? 0 : n.off;
			rq->len = n.sync ? 0 : n.len;
			rq->buf = n.sync ? NULL : u->buf;
			rq->private = u;
			ret = mqblk_submit(rq);
			if (ret) {
				mqblk_rq_put(rq);
				u->next_free = free_units;
				free_units = u;
				job_fail(jt, -ret,
					 "%s: request rejected by device",
					 job->name);
				more = false;
				break;
			}
			if (counting && n.sync) {
				js->sync_issued++;
				js->depth_map[stats_depth_slot(inflight + 1)]++;
			} else if (counting) {
				js->dd[n.d].issued++;
				js->depth_map[stats_depth_slot(inflight + 1)]++;
			}
			inflight++;
			if (__builtin_expect(pc.on, 0) && !n.sync)
				pace_issued(&pc, job, n.d, n.len);
			pend[queued++] = u;
			if (queued >= batch)
				flush_batch(pq, js, pend, &queued, t_batch,
					    want_lat, counting);
		}
		if (queued)
			flush_batch(pq, js, pend, &queued, t_batch, want_lat,
				    counting);
		if (__builtin_expect(stuck, 0))
			break;
		if (!inflight) {
			if (!more)
				break;
			continue;
		}
		/* the queue is full, out of tags, or the job is draining:
		 * fio's wait_for_completions() reaps at least one, and
		 * keeps reaping down to iodepth_low */
		{
			unsigned min = cmin < inflight ? cmin : inflight;
			unsigned max = cmax < depth ? cmax : depth;
			int n;

			if (!min)
				min = 1;
			do {
				/* td_io_getevents: max is at least min */
				n = __builtin_expect(multi, 0) ?
					    multi_reap(&g, rqs, min,
						       max > min ? max : min,
						       (int64_t)REAP_WAIT_NS) :
					    mqblk_reap(q, rqs, min,
						       max > min ? max : min,
						       (int64_t)REAP_WAIT_NS);
				if (n < 0) {
					job_fail(jt, -n, "%s: reap failed",
						 job->name);
					more = false;
					break;
				}
				if (__builtin_expect(!n, 0)) {
					now = job_reap_idle(&g, q);
					stuck_bd = job_stuck_give_up(
						jt, &g, &stuck_since, now);
					if (stuck_bd) {
						stuck = inflight;
						more = false;
						break;
					}
				} else {
					stuck_since = 0;
					now = want_lat || (++reaps & 63) == 0 ?
						      clock_now_ns() :
						      0;
				}
				account_batch(jt, rqs, n, now, want_lat,
					      counting);
				for (i = 0; i < (unsigned)n; i++) {
					struct io_u *u = rqs[i]->private;

					if (__builtin_expect(rqs[i]->res < 0,
							     0) &&
					    job_io_error(jt, rqs[i]))
						more = false;
					if (u->verify && rqs[i]->res >= 0 &&
					    job_check_read(jt, &vcs[u->file],
							   u))
						more = false;
				}
				/* back in reverse, so the next I/Os reuse
				 * them in the order they completed (still
				 * the most recently used first) */
				for (i = (unsigned)n; i-- > 0;) {
					struct io_u *u = rqs[i]->private;

					u->next_free = free_units;
					free_units = u;
					mqblk_rq_put(rqs[i]);
				}
				inflight -= (unsigned)n;
				min = 1;
				if (now) {
					if (ramp_end && now >= ramp_end) {
						/* ramp over: start counting */
						ramp_end = 0;
						counting = true;
						stats_init(js, job);
						if (jt->log) {
							iolog_free(jt->log);
							iolog_init(jt->log,
								   job);
						}
						cpu_snapshot(&ru0);
						jt->start_ns = now;
						smp.last_ns = now;
					}
					if (now - smp.last_ns >= SAMPLE_NS)
						job_sample(jt, &smp, now,
							   want_lat);
					if (t_end && now >= t_end)
						g.stop_main = true;
				}
				if (__builtin_expect(
					    atomic_load_explicit(
						    &stop_any,
						    memory_order_relaxed),
					    0)) {
					if (atomic_load(&stop_signal))
						g.stop_main = g.terminated =
							true;
					if (atomic_load(&stop_exitall))
						g.stop_main = true;
				}
				if (__builtin_expect(slow_checks, 0) &&
				    reap_slow_checks(jt, &pc, now, counting))
					more = false;
			} while (inflight > job->iodepth_low && more);
		}
	}
	if (g.err && !jt->err)
		job_fail(jt, g.err, "%s: cannot grow the verify log",
			 job->name);
	/* fio: the errors let go leave the first as the job's err= */
	if (!js->error && js->first_error) {
		js->error = js->first_error;
		js->error_let_go = true;
	}
	if (g.held_failed)
		fprintf(stderr,
			"mqblk: %s: %u request%s held for a reconnection to %s "
			"failed when the job ended\n",
			job->name, g.held_failed, g.held_failed == 1 ? "" : "s",
			jt->bdev->uri);
	now = clock_now_ns();
	cpu_snapshot(&ru1);
	cpu_account(js, &ru0, &ru1);
	js->runtime_ns = now - jt->start_ns;
	for (d = 0; d < DDIR_NR; d++)
		if (js->dd[d].issued)
			js->dd[d].runtime_ns = js->runtime_ns;
	job_sample(jt, &smp, now, false);
	for (i = 0; i < g.nr_files; i++)
		queue_stats_add(js, g.files ? g.files[i].q : q);
	if (__builtin_expect(stuck, 0)) {
		/* past their deadline, never completed: timed out, errors */
		js->mq.timeouts += stuck;
		js->mq.errors += stuck;
		if (!js->error)
			js->error = ETIMEDOUT;
		fprintf(stderr,
			"mqblk: %s: %u I/O%s stuck on failed device %s, given "
			"up after %.1f s more: exiting without freeing %s "
			"buffer%s\n",
			job->name, stuck, stuck == 1 ? "" : "s", stuck_bd->uri,
			(double)mqblk_dev_timeout_ns(stuck_bd->dev) / 1e9,
			stuck == 1 ? "its" : "their", stuck == 1 ? "" : "s");
		/* the kernel may still write them: kept, and the queue
		 * left open (closing it would wait for them) */
		job_stuck_keep(bufmem, units, stuck_bd->dev);
		stuck_bd->abandoned = true;
		bufmem = NULL;
		units = NULL;
		q = NULL;
		/* nrfiles > 1: every file's queue and device are left as
		 * they are (closing one could wait on the kernel), kept
		 * reachable as the stuck one's */
		for (i = 0; g.files && i < g.nr_files; i++) {
			g.files[i].q = NULL;
			if (!jt->fdevs[i]->abandoned)
				job_stuck_keep(NULL, NULL, jt->fdevs[i]->dev);
			jt->fdevs[i]->abandoned = true;
		}
	}
	paths_delta(js, dev, paths0, nr_paths0);
	if (js->has_rdma && rdma_sum(dev, &js->rdma))
		nvme_rdma_stats_add(&js->rdma, &rdma0, -1);
out:
	if (g.files) {
		for (i = 0; i < g.nr_files; i++) {
			if (g.files[i].q)
				mqblk_queue_close(g.files[i].q);
			/* the served file's maps are the ones in g */
			for (d = 0; i != g.cur_file && d < DDIR_NR; d++)
				bench_randmap_free(&g.files[i].map[d]);
		}
		free(g.files);
		if (g.epfd >= 0)
			close(g.epfd);
	} else if (q) {
		mqblk_queue_close(q);
	}
	for (d = 0; d < DDIR_NR; d++)
		bench_randmap_free(&g.map[d]);
	free(g.wmap);
	free(g.backlog);
	free(g.xlog);
	free(g.xcover);
	free(bufmem);
	free(units);
	free(rqs);
	free(pend);
	if (vcs != &vctx)
		free(vcs);
	free(jt->fdevs);
	jt->fdevs = NULL;
	if (job->exitall) {
		atomic_store(&stop_exitall, 1);
		atomic_store(&stop_any, 1);
	}
	atomic_store(&jt->done, 1);
	return NULL;
}
