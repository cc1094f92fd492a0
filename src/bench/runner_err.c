// SPDX-License-Identifier: MIT
/*
 * What the job thread does when I/O goes wrong: a job's error
 * (job_fail), a verify read that does not match, a failed I/O let go or
 * ending the job (fio's continue_on_error, ignore_error, error_dump), and
 * I/O stuck on a failed device, given up on and kept. Out of the I/O
 * loop's way: runner.c calls these only when something failed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mqblk/mqblk.h>

#include "bench.h"
#include "core/clock.h"
#include "runner_gen.h"
#include "runner_int.h"
#include "verify.h"

int job_fail(struct job_thread *jt, int err, const char *fmt, ...)
{
	va_list ap;

	jt->err = err;
	va_start(ap, fmt);
	vsnprintf(jt->errmsg, sizeof(jt->errmsg), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * A verify read completed: check it. A mismatch is one line on stderr (as
 * fio prints it), counts as the job's error (EILSEQ, fio's err=84) and,
 * with --verify_fatal, ends the job (true).
 */
bool job_check_read(struct job_thread *jt, const struct verify_ctx *vc,
		    const struct io_u *u)
{
	char msg[320];

	if (!verify_check(vc, u->buf, u->off, u->len, msg, sizeof(msg)))
		return false;
	fprintf(stderr, "mqblk: %s: %s\n", jt->job->name, msg);
	jt->stats.verify_errors++;
	if (!jt->stats.error)
		jt->stats.error = EILSEQ;
	/* continue_on_error=verify: counted with the errors let go */
	if (jt->job->continue_on_error & (1u << BENCH_ERR_VERIFY)) {
		jt->stats.total_err++;
		if (!jt->stats.first_error)
			jt->stats.first_error = EILSEQ;
	}
	return jt->job->verify_fatal;
}

/* fio's "io_u error" line for the I/O that failed the job (stderr). */
static void report_io_error(const struct job_thread *jt,
			    const struct mqblk_rq *rq)
{
	static const char *const ops[] = { "read", "write", "flush", "trim",
					   "write zeroes" };
	const char *op = (unsigned)rq->op < 5 ? ops[rq->op] : "?";

	const struct io_u *u = rq->private;

	fprintf(stderr,
		"mqblk: %s: io_u error on file %s: %s: %s offset=%llu, "
		"buflen=%u\n",
		jt->job->name,
		jt->fdevs ? jt->fdevs[u->file]->uri : jt->bdev->uri,
		strerror(-rq->res), op, (unsigned long long)rq->offset,
		rq->len);
}

/*
 * An I/O that failed: fio's td_non_fatal_error. With continue_on_error
 * for its type (a read's, else a write's) and its errno in the type's
 * ignore_error list (none given: EIO, EILSEQ) the job goes on (false),
 * the error said on stderr unless error_dump=0;
 * else it is the job's error, said once, and the job ends (true). An
 * error of a type continue_on_error names counts in total_err and
 * first_error either way, as fio 3.33 counts it.
 */
__attribute__((noinline, cold)) bool job_io_error(struct job_thread *jt,
						  const struct mqblk_rq *rq)
{
	const struct bench_job *job = jt->job;
	const struct io_u *u = rq->private;
	struct job_stats *js = &jt->stats;
	unsigned type = !u->sync && u->ddir == DDIR_READ ? BENCH_ERR_READ :
							   BENCH_ERR_WRITE;
	int err = -rq->res;
	unsigned k;

	if (job->continue_on_error & (1u << type)) {
		bool let_go = false;

		/* fio counts one of a type it may let go even when its
		 * errno is not in the list and it ends the job */
		js->total_err++;
		if (!js->first_error)
			js->first_error = err;

		if (!job->ignore_error_nr[type])
			let_go = err == EIO || err == EILSEQ;
		for (k = 0; k < job->ignore_error_nr[type]; k++)
			if (job->ignore_error[type][k] == err)
				let_go = true;
		if (let_go) {
			/* fio's error_dump (default on): said, not fatal */
			if (job->error_dump)
				report_io_error(jt, rq);
			return false;
		}
	}
	if (!js->error) {
		js->error = err;
		report_io_error(jt, rq);
	}
	return true;
}

/*
 * A reap that waited its REAP_WAIT_NS for nothing. If the job is over
 * (runtime, signal) and its device holds requests for a reconnection (an
 * NVMe-oF target gone away), they fail now (-ETIMEDOUT), reaped as the
 * job's errors, instead of waiting out ctrl_loss_tmo. Out of line: the
 * I/O loop pays nothing for it. Returns the time, for the loop's checks.
 */
__attribute__((cold, noinline)) uint64_t job_reap_idle(struct gen *g,
						       struct mqblk_queue *q)
{
	unsigned k;
	int n;

	for (k = 0; g->stop_main && k < g->nr_files; k++) {
		n = mqblk_queue_fail_held(g->files ? g->files[k].q : q,
					  -ETIMEDOUT);
		if (n > 0)
			g->held_failed += (unsigned)n;
	}
	return clock_now_ns();
}

/*
 * What a job leaves behind when it gives up on stuck I/O: the buffers the
 * kernel may still write and the device holding them, never freed, kept
 * here so that leak checkers see them reachable. The process exits.
 */
struct stuck_keep {
	struct stuck_keep *next;
	void *mem[2];
	struct mqblk_dev *dev;
};
static struct stuck_keep *stuck_kept;
static pthread_mutex_t stuck_lock = PTHREAD_MUTEX_INITIALIZER;

void job_stuck_keep(void *a, void *b, struct mqblk_dev *dev)
{
	struct stuck_keep *k = calloc(1, sizeof(*k));

	if (!k)
		return; /* a leak report at worst: the memory stays put */
	k->mem[0] = a;
	k->mem[1] = b;
	k->dev = dev;
	pthread_mutex_lock(&stuck_lock);
	k->next = stuck_kept;
	stuck_kept = k;
	pthread_mutex_unlock(&stuck_lock);
}

/*
 * A reap that found nothing, in a job that is over (runtime, error,
 * signal): is what it still has in flight stuck for good? Only on a
 * device its driver declared failed (mqblk_dev_is_dead: the uring driver
 * after timeout_rearms= cancels of one request, i.e. (timeout_rearms + 1)
 * timeouts), and after one more device timeout with nothing reaped, for
 * requests that were on their way when it failed. nrfiles > 1: the first
 * file whose device failed with requests still out on its queue, whichever
 * file it is. *since: when the wait began (0: not yet). Returns the
 * device given up on, or NULL. Cold: the I/O loop pays nothing for it.
 */
__attribute__((cold, noinline)) struct bench_dev *
job_stuck_give_up(struct job_thread *jt, const struct gen *g, uint64_t *since,
		  uint64_t now)
{
	struct bench_dev *bd = jt->bdev;
	unsigned k;

	for (k = 0; g->files && k < g->nr_files; k++)
		if (mqblk_queue_inflight(g->files[k].q) &&
		    mqblk_dev_is_dead(jt->fdevs[k]->dev)) {
			bd = jt->fdevs[k];
			break;
		}
	if (!mqblk_dev_is_dead(bd->dev))
		return NULL;
	if (!*since)
		*since = now;
	return now - *since >= mqblk_dev_timeout_ns(bd->dev) ? bd : NULL;
}
