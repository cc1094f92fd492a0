// SPDX-License-Identifier: MIT
/*
 * A job thread's counters from outside its I/O loop, taken at its start
 * and end: CPU use, the block core's queue counters, a multipath device's
 * per-path counters and an nvme-rdma device's queue counters; and what it
 * publishes between reaps: bandwidth samples and progress for the status
 * line, --status-interval snapshots.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <mqblk/mqblk.h>

#include "core/clock.h"
#include "runner_int.h"
#include "stats.h"

void cpu_snapshot(struct rusage *ru)
{
	getrusage(RUSAGE_THREAD, ru);
}

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000ull + (uint64_t)tv->tv_usec;
}

void cpu_account(struct job_stats *js, const struct rusage *a,
		 const struct rusage *b)
{
	js->usr_us = tv_us(&b->ru_utime) - tv_us(&a->ru_utime);
	js->sys_us = tv_us(&b->ru_stime) - tv_us(&a->ru_stime);
	js->ctx = (uint64_t)(b->ru_nvcsw - a->ru_nvcsw) +
		  (uint64_t)(b->ru_nivcsw - a->ru_nivcsw);
	js->majf = (uint64_t)(b->ru_majflt - a->ru_majflt);
	js->minf = (uint64_t)(b->ru_minflt - a->ru_minflt);
}

/* An nvme-rdma device's counters, its I/O queues summed: false for
 * another device. */
bool rdma_sum(const struct mqblk_dev *dev, struct nvme_rdma_queue_stats *sum)
{
	struct nvme_rdma_queue_stats st[65];
	int n = nvme_rdma_get_stats(dev, st, 65), i;

	memset(sum, 0, sizeof(*sum));
	if (n <= 0)
		return false;
	for (i = 1; i < n && i < 65; i++)
		nvme_rdma_stats_add(sum, &st[i], 1);
	return true;
}

/* A multipath device's per-path counters over the job's run into js. */
void paths_delta(struct job_stats *js, const struct mqblk_dev *dev,
		 const struct mqblk_path_stats *p0, int nr0)
{
	int n = mqblk_dev_get_paths(dev, js->paths, MQBLK_MAX_PATHS), i;
	const char *pol = mqblk_dev_iopolicy(dev);

	/* paths are only ever added (at the end, by persistent discovery):
	 * one that joined during the run counts from zero */
	if (n <= 0 || n < nr0)
		return;
	if (n > MQBLK_MAX_PATHS)
		n = MQBLK_MAX_PATHS;
	js->nr_paths = (unsigned)n;
	snprintf(js->iopolicy, sizeof(js->iopolicy), "%s", pol ? pol : "");
	for (i = 0; i < n && i < nr0; i++) {
		js->paths[i].sent -= p0[i].sent;
		js->paths[i].completed -= p0[i].completed;
		js->paths[i].failovers -= p0[i].failovers;
		js->paths[i].reconnects -= p0[i].reconnects;
		js->paths[i].stalls -= p0[i].stalls;
	}
}

/* The block core's counters of one queue, added to the job's. */
__attribute__((noinline)) void queue_stats_add(struct job_stats *js,
					       struct mqblk_queue *q)
{
	struct mqblk_queue_stats qs;

	mqblk_queue_get_stats(q, &qs);
	js->mq.comp_local += qs.completions[MQBLK_PATH_LOCAL];
	js->mq.comp_remote += qs.completions[MQBLK_PATH_REMOTE];
	js->mq.comp_batched += qs.completions[MQBLK_PATH_BATCHED];
	js->mq.comp_polled += qs.completions[MQBLK_PATH_POLLED];
	js->mq.comp_irq += qs.completions[MQBLK_PATH_IRQ];
	js->mq.wakeups += qs.wakeups;
	js->mq.requeues += qs.requeues;
	js->mq.tag_waits += qs.tag_waits;
	js->mq.tag_wait_ns += qs.tag_wait_ns;
	js->mq.merges += qs.merges;
	js->mq.dispatched += qs.dispatched;
	js->mq.dispatch_runs += qs.dispatch_runs;
	js->mq.doorbells += qs.doorbells;
	js->mq.sched_expired += qs.sched_expired;
	js->mq.dispatch_locks += qs.dispatch_locks;
	js->mq.dispatch_lock_contended += qs.dispatch_lock_contended;
	js->mq.poll_budget_hits += qs.poll_budget_hits;
	js->mq.timeouts += qs.timeouts;
	js->mq.errors += qs.errors;
}

/* Answer a --status-interval request: the statistics so far, with the
 * runtime up to now, as the final report would have them. */
static void snap_publish(struct job_thread *jt, uint64_t req)
{
	struct job_stats *sn = jt->snap;
	uint64_t now = clock_now_ns();
	int d;

	pthread_mutex_lock(&jt->snap_lock);
	*sn = jt->stats;
	sn->pid = getpid();
	sn->runtime_ns = now - jt->start_ns;
	for (d = 0; d < DDIR_NR; d++)
		if (sn->dd[d].issued)
			sn->dd[d].runtime_ns = sn->runtime_ns;
	jt->snap_valid = true;
	pthread_mutex_unlock(&jt->snap_lock);
	atomic_store_explicit(&jt->snap_ack, req, memory_order_release);
}

void job_sample(struct job_thread *jt, struct sampler *s, uint64_t now,
		bool want_bw)
{
	struct job_stats *js = &jt->stats;
	int d;

	for (d = 0; d < DDIR_NR; d++) {
		uint64_t b = js->dd[d].io_bytes, n = js->dd[d].total_ios;

		if (want_bw && (b != s->bytes[d] || js->dd[d].issued))
			stats_sample_bw(js, (enum bench_ddir)d, b - s->bytes[d],
					n - s->ios[d], now - s->last_ns);
		s->bytes[d] = b;
		s->ios[d] = n;
		atomic_store_explicit(&jt->pub_bytes[d], b,
				      memory_order_relaxed);
		atomic_store_explicit(&jt->pub_ios[d], n, memory_order_relaxed);
	}
	s->last_ns = now;
}

/* Between reaps, with --status-interval or a minimum rate: answer a
 * snapshot request; true when the job failed its minimum rate. */
bool reap_slow_checks(struct job_thread *jt, struct pace *pc, uint64_t now,
		      bool counting)
{
	if (jt->snap) {
		uint64_t req = atomic_load_explicit(&jt->snap_req,
						    memory_order_acquire);

		if (req !=
		    atomic_load_explicit(&jt->snap_ack, memory_order_relaxed))
			snap_publish(jt, req);
	}
	return pc->check_min && now && pace_check_min(jt, pc, now, counting);
}
