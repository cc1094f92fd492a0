// SPDX-License-Identifier: MIT
/*
 * A job over several files (fio's nrfiles > 1): each file's region, laws,
 * random maps, queue and verify context, the file service
 * (file_service_type) that picks the file of the next I/O, and the reap
 * over every file's queue. One-file jobs call none of it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <mqblk/mqblk.h>

#include "bench.h"
#include "core/clock.h"
#include "dist.h"
#include "files.h"
#include "rand.h"
#include "runner_gen.h"
#include "runner_int.h"
#include "verify.h"

/*
 * nrfiles > 1: the file that position pos of the verify maps' space is in
 * (the last whose vbase is not above it) into n->file; returns pos within
 * that file. Only the read-back passes ask, so it may search.
 */
__attribute__((noinline, cold)) uint64_t
multi_file_of(const struct gen *g, uint64_t pos, struct next_io *n)
{
	unsigned lo = 0, hi = g->nr_files - 1, mid;

	while (lo < hi) {
		mid = (lo + hi + 1) / 2;
		if (g->files[mid].vbase <= pos)
			lo = mid;
		else
			hi = mid - 1;
	}
	n->file = (uint16_t)lo;
	return pos - g->files[lo].vbase;
}

/* nrfiles > 1: put the served file's state back in files[], take k's. */
static void gen_file_swap(struct gen *g, unsigned k)
{
	struct gfile *f = &g->files[g->cur_file];

	f->region_len = g->region_len;
	memcpy(f->seq_pos, g->seq_pos, sizeof(f->seq_pos));
	memcpy(f->map, g->map, sizeof(f->map));
	memcpy(f->dist, g->dist, sizeof(f->dist));
	f->seq_nr_left = g->seq_nr_left;
	f = &g->files[k];
	g->region_len = f->region_len;
	memcpy(g->seq_pos, f->seq_pos, sizeof(g->seq_pos));
	memcpy(g->map, f->map, sizeof(g->map));
	memcpy(g->dist, f->dist, sizeof(g->dist));
	g->seq_nr_left = f->seq_nr_left;
	g->vbase = f->vbase;
	g->cur_file = k;
}

/*
 * nrfiles > 1, before each I/O of the workload: the file it goes to, as
 * fio's get_next_file serves them. roundrobin: the next file after every
 * N I/Os (file_service_type=roundrobin:N, default 1); random: a file drawn
 * at random after every N; sequential: a file until it is done. A file is
 * done for the pass once its region's worth of bytes went to it (fio's
 * io_size per file), and is skipped; when all are (time_based), they all
 * start over.
 */
__attribute__((noinline, cold)) void gen_file_next(struct gen *g,
						   struct next_io *n)
{
	const struct bench_job *job = g->job;
	struct gfile *f = &g->files[g->cur_file];
	unsigned k, i;

	f->done += g->bytes_issued - g->file_mark;
	g->file_mark = g->bytes_issued;
	if (g->svc_left && f->done < g->region_len)
		goto out;
	for (k = 0; k < g->nr_files; k++)
		if (g->files[k].done < g->files[k].region_len)
			break;
	if (k == g->nr_files) /* every file done: over again */
		for (k = 0; k < g->nr_files; k++)
			g->files[k].done = 0;
	k = job->file_service == FILE_SERVICE_RANDOM ?
		    (unsigned)bench_rng_below(&g->rng, g->nr_files) :
		    (g->cur_file + 1) % g->nr_files;
	/* the first file from there not done (the one just served last) */
	for (i = 0; i < g->nr_files; i++, k = (k + 1) % g->nr_files)
		if (k != g->cur_file &&
		    g->files[k].done < g->files[k].region_len)
			break;
	if (i == g->nr_files) /* only the one served is left */
		k = g->cur_file;
	if (k != g->cur_file)
		gen_file_swap(g, k);
	g->svc_left = job->file_service == FILE_SERVICE_SEQUENTIAL ?
			      UINT32_MAX :
			      job->file_service_nr;
out:
	g->svc_left--;
	n->file = (uint16_t)g->cur_file;
}

/*
 * nrfiles > 1: mqblk_reap over every file's queue. A pass peeks at each
 * queue with requests out (one poll pass or a pending interrupt, no
 * sleep), starting one further each time so none is favoured; short of
 * min, it sleeps on the queues' fds together (or, a queue among them
 * with no fd, spins) until timeout_ns. Spinning or not, when one queue
 * alone has requests out nothing else can complete: it waits on that
 * one as a one-file job does (a request stuck on one file's device does
 * not keep a CPU busy). Returns what mqblk_reap would.
 */
__attribute__((noinline)) int multi_reap(struct gen *g, struct mqblk_rq **rqs,
					 unsigned min, unsigned max,
					 int64_t timeout_ns)
{
	uint64_t now, end = clock_now_ns() + (uint64_t)timeout_ns;
	unsigned i, k, start = g->reap_rot++, busy;
	struct mqblk_queue *last = NULL;
	struct epoll_event ev[8];
	int got = 0, r;

	for (;;) {
		busy = 0;
		for (i = 0; i < g->nr_files && (unsigned)got < max; i++) {
			struct mqblk_queue *q =
				g->files[(start + i) % g->nr_files].q;

			if (!mqblk_queue_inflight(q))
				continue;
			r = mqblk_reap(q, rqs + got, 1, max - (unsigned)got, 0);
			if (r < 0)
				return r;
			got += r;
			if (mqblk_queue_inflight(q)) {
				busy++;
				last = q;
			}
		}
		if ((unsigned)got >= min)
			return got;
		now = clock_now_ns();
		if (now >= end)
			return got;
		if (busy == 1) {
			r = mqblk_reap(last, rqs + got, min - (unsigned)got,
				       max - (unsigned)got,
				       (int64_t)(end - now));
			return r < 0 ? r : got + r;
		}
		if (g->spin)
			continue;
		k = (unsigned)((end - now) / 1000000) + 1;
		if (epoll_wait(g->epfd, ev, 8, (int)k) < 0 && errno != EINTR)
			return -errno;
	}
}

/*
 * nrfiles > 1: each file's region (its size past the offset), the pass
 * (fio's io_size, else size= up to what the files hold, else all of
 * them), the service starting at file 0.
 */
__attribute__((noinline, cold)) int multi_init(struct job_thread *jt,
					       struct gen *g)
{
	const struct bench_job *job = jt->job;
	uint64_t sum = 0;
	unsigned k;

	g->files = calloc(job->nrfiles, sizeof(*g->files));
	if (!g->files)
		return job_fail(jt, ENOMEM, "%s: out of memory", job->name);
	g->nr_files = job->nrfiles;
	for (k = 0; k < g->nr_files; k++) {
		/* job_resolve checked a block fits past the offset */
		g->files[k].region_len = bench_file_io_size(job, jt->clone_idx,
							    k, g->region_start);
		sum += g->files[k].region_len;
	}
	g->pass_len = job->io_size		   ? job->io_size :
		      job->size && job->size < sum ? job->size :
						     sum;
	jt->pass_bytes = g->pass_len;
	/* gen_file_next moves on from the last to file 0 first */
	g->cur_file = g->nr_files - 1;
	g->main_phase = PH_MAIN_MULTI;
	g->phase = PH_MAIN_MULTI;
	g->region_len = g->files[g->cur_file].region_len;
	return 0;
}

/*
 * Direction d's --random_distribution law over nranges blocks of its block
 * size: fio's zoned ones from the job's picks (uniform for a direction
 * with no zones), the others from their values.
 */
__attribute__((cold)) void gen_law_init(const struct bench_job *job,
					struct bench_dist *dist,
					enum bench_ddir d, uint64_t nranges,
					struct bench_rng *rng)
{
	enum bench_rand_dist kind = (enum bench_rand_dist)job->rand_dist;

	if (kind == DIST_ZONED || kind == DIST_ZONED_ABS) {
		if (job->zone_set[d])
			bench_dist_init_zoned(
				dist, kind == DIST_ZONED_ABS, job->zone_pick[d],
				job->bs[bench_job_bs_slot(job, d)], nranges);
		else
			bench_dist_init(dist, DIST_RANDOM, 0.0, -1.0, nranges,
					rng);
		return;
	}
	bench_dist_init(dist, kind, job->dist_val,
			job->dist_center_set ? job->dist_center : -1.0, nranges,
			rng);
}

/* The laws and random maps of the files other than the one in g. */
__attribute__((noinline, cold)) int multi_laws(struct job_thread *jt,
					       struct gen *g)
{
	const struct bench_job *job = jt->job;
	unsigned k;
	int d;

	for (k = 0; k + 1 < g->nr_files; k++) {
		struct gfile *f = &g->files[k];

		for (d = 0; d < DDIR_NR; d++) {
			uint64_t bs = job->bs[bench_job_bs_slot(
				job, (enum bench_ddir)d)];

			if (g->use_dist)
				gen_law_init(job, &f->dist[d],
					     (enum bench_ddir)d,
					     f->region_len / bs, &g->rng);
			if (g->use_map &&
			    bench_randmap_init(&f->map[d], f->region_len / bs))
				return job_fail(
					jt, ENOMEM,
					"%s: cannot allocate random map",
					job->name);
		}
	}
	return 0;
}

/* A queue per file, and one epoll set over their fds for multi_reap. */
__attribute__((noinline, cold)) int multi_open(struct job_thread *jt,
					       struct gen *g)
{
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned k;
	int ret, fd;

	g->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (g->epfd < 0)
		return job_fail(jt, errno, "%s: epoll_create1", jt->job->name);
	for (k = 0; k < g->nr_files; k++) {
		ret = mqblk_queue_open(jt->fdevs[k]->dev, &g->files[k].q);
		if (ret)
			return job_fail(jt, -ret,
					"%s: cannot open a queue on %s",
					jt->job->name, jt->fdevs[k]->uri);
		fd = mqblk_queue_fd(g->files[k].q);
		if (fd < 0) {
			g->spin = true;
			continue;
		}
		ev.data.u32 = k;
		if (epoll_ctl(g->epfd, EPOLL_CTL_ADD, fd, &ev))
			return job_fail(jt, errno,
					"%s: epoll_ctl on %s's queue",
					jt->job->name, jt->fdevs[k]->uri);
	}
	return 0;
}

/*
 * nrfiles > 1 with --verify, as fio verifies each file of a job: the
 * verify maps cover every file, one after the other (each file's start
 * rounded up to the map's unit, so no block or granule spans two), and
 * each file has its own stamping and checking context: its name for the
 * messages, and a seed of its own, so a block copied from one file to the
 * same offset of another does not pass. File 0's is the one-file job's.
 * Returns the span the maps cover, or 0 with the job failed.
 */
__attribute__((noinline, cold)) uint64_t
multi_verify(struct job_thread *jt, struct gen *g, const struct verify_ctx *vc,
	     struct verify_ctx **vcs)
{
	uint64_t unit = g->xlog_mode ? g->job->verify_interval : g->vbs;
	uint64_t base = 0;
	unsigned k;

	*vcs = calloc(g->nr_files, sizeof(**vcs));
	if (!*vcs) {
		job_fail(jt, ENOMEM, "%s: out of memory", jt->job->name);
		return 0;
	}
	for (k = 0; k < g->nr_files; k++) {
		g->files[k].vbase = base;
		base += (g->files[k].region_len + unit - 1) / unit * unit;
		(*vcs)[k] = *vc;
		(*vcs)[k].file = jt->fdevs[k]->uri;
		(*vcs)[k].seed = vc->seed + k * 0x6a09e667f3bcc909ull;
	}
	g->vbase = g->files[g->cur_file].vbase;
	return base;
}
