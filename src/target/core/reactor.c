// SPDX-License-Identifier: MIT
/*
 * A reactor's pass (reactor_step), on the thread reactor_set.c starts
 * for it: it waits in epoll for its sockets, and while its namespaces'
 * devices have requests in flight it polls them instead of sleeping (the
 * completion is reaped by the thread that submitted it: nothing crosses
 * CPUs on the I/O path, which on this kind of machine costs more than the
 * I/O itself); then it runs the timers, the events, the device
 * completions, the commands that waited for a tag, and sends what its
 * queues have to send. Everything a pass does per I/O is here.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <time.h>

#include "mqblk/mqblk.h"
#include "reactor.h"
#include "reactor_int.h"

void tgt_reactor_wait_tag(struct tgt_reactor *r, struct tgt_req *req)
{
	req->wait_next = NULL;
	if (r->wait_tail)
		r->wait_tail->wait_next = req;
	else
		r->wait_head = req;
	r->wait_tail = req;
}

void tgt_reactor_want_flush(struct tgt_reactor *r, struct tgt_queue *q)
{
	if (q->tx_queued)
		return;
	q->tx_queued = true;
	q->flush_next = r->flush_list;
	r->flush_list = q;
}

static unsigned reap_devices(struct tgt_reactor *r)
{
	struct reactor_priv *p = &rpriv[r->idx];
	struct mqblk_rq *rqs[64];
	unsigned i, total = 0;

	for (i = 0; i < p->nr_devq; i++) {
		int n, j;

		if (!mqblk_queue_inflight(p->devq[i].q))
			continue;
		/* min 1 with no wait: one poll pass of the hw queue */
		n = mqblk_reap(p->devq[i].q, rqs, 1, 64, 0);
		for (j = 0; j < n; j++)
			tgt_req_dev_done(rqs[j]);
		if (n > 0)
			total += (unsigned)n;
	}
	return total;
}

static void retry_waiters(struct tgt_reactor *r)
{
	struct tgt_req *list = r->wait_head;

	/* each retry may put the command back at the tail */
	r->wait_head = r->wait_tail = NULL;
	while (list) {
		struct tgt_req *c = list;

		list = c->wait_next;
		tgt_req_retry(c);
	}
}

/* Send what each queue has queued; with coalescing, a queue whose
 * completions may wait goes on the held list, back on the flush list
 * at the next pass. */
static void flush_queues(struct tgt_reactor *r)
{
	uint64_t now = r->t->coal_count > 1 ? mqblk_clock_ns() : 0;

	while (r->held_list) {
		struct tgt_queue *q = r->held_list;

		r->held_list = q->flush_next;
		q->flush_next = r->flush_list;
		r->flush_list = q;
	}
	r->held_deadline_ns = UINT64_MAX;
	while (r->flush_list) {
		struct tgt_queue *q = r->flush_list;
		uint64_t deadline;

		r->flush_list = q->flush_next;
		if (now && q->ops->queue_hold &&
		    q->ops->queue_hold(q, now, &deadline)) {
			q->flush_next = r->held_list;
			r->held_list = q;
			if (deadline < r->held_deadline_ns)
				r->held_deadline_ns = deadline;
			continue;
		}
		q->tx_queued = false;
		q->ops->queue_flush(q);
	}
}

/* ---- The loop ------------------------------------------------------------ */

static bool is_port(const struct tgt *t, const void *p)
{
	const struct tgt_port *pp = p;

	return pp >= t->ports && pp < t->ports + t->nr_ports;
}

/* One pass: wait (not past timeout_ms, not at all while there is work),
 * handle events, reap devices, send, run the timers, free closed queues. */
void reactor_step(struct tgt_reactor *r, int timeout_ms, bool tick_now)
{
	struct tgt *t = r->t;
	struct epoll_event ev[64];
	struct tgt_queue *q, *nq;
	uint64_t now, wait_ns = 0;
	unsigned reaped = 0;
	bool fine = false; /* wait_ns, not timeout (ms), bounds the wait */
	int n, i, timeout;

	/* (commands waiting for a device tag wait for a completion too) */
	if (r->dev_inflight && !r->flush_list && !t->busy_poll && timeout_ms &&
	    r->pass_ns - r->dev_progress_ns > TGT_DEV_SPIN_NS) {
		/* a slow device: nap, then poll it again (sooner on an
		 * event) */
		timeout = 1;
		wait_ns = TGT_DEV_NAP_NS;
		fine = true;
	} else if (r->dev_inflight || r->wait_head || r->flush_list ||
		   t->busy_poll) {
		timeout = 0;
	} else {
		now = mqblk_clock_ns();
		timeout = now >= r->next_tick_ns ?
				  0 :
				  (int)((r->next_tick_ns - now) / 1000000) + 1;
		if (timeout > timeout_ms)
			timeout = timeout_ms;
	}
	if (timeout && r->held_list) {
		/* coalesced completions wait microseconds, not a tick: sleep
		 * no later than the first of them is due */
		uint64_t held;

		now = mqblk_clock_ns();
		held = r->held_deadline_ns > now ? r->held_deadline_ns - now :
						   0;
		if (held < (uint64_t)timeout * 1000000 &&
		    (!fine || held < wait_ns)) {
			wait_ns = held;
			fine = true;
		}
	}
	if (fine) {
		struct timespec ts = { .tv_sec = (time_t)(wait_ns / 1000000000),
				       .tv_nsec =
					       (long)(wait_ns % 1000000000) };

		n = epoll_pwait2(r->epfd, ev, 64, &ts, NULL);
		if (n < 0 && errno == ENOSYS) /* before Linux 5.11: a ms */
			n = epoll_wait(r->epfd, ev, 64, 1);
	} else {
		n = epoll_wait(r->epfd, ev, 64, timeout);
	}
	/*
	 * The timers run before the events they may make moot: after a
	 * stall (the process stopped, the reactor starved) a controller
	 * whose keep-alive expired meanwhile is torn down before the
	 * commands that waited in its sockets run. Its host has taken it
	 * for dead and may have sent them again on another path, and newer
	 * writes since: a stale copy run now would undo those.
	 */
	now = mqblk_clock_ns();
	/* a device idle until now: its spin starts with what this pass
	 * sends it, not at the pass before an idle sleep */
	if (!r->dev_inflight)
		r->dev_progress_ns = now;
	if (now >= r->next_tick_ns || tick_now) {
		r->next_tick_ns = now + TGT_TICK_MS * 1000000ull;
		if (r->idx == 0)
			reactor_ports_resume(r);
		for (q = r->queues; q; q = nq) {
			nq = q->next;
			tgt_queue_tick(q, now);
		}
	}
	for (i = 0; i < n; i++) {
		void *p = ev[i].data.ptr;

		if (p == r)
			reactor_drain_inbox(r);
		else if (is_port(t, p))
			tgt_transport_ops(((struct tgt_port *)p)->trtype)
				->port_accept(p);
		else
			((struct tgt_queue *)p)
				->ops->queue_event(p, ev[i].events);
	}
	if (r->dev_inflight && (reaped = reap_devices(r)) && r->wait_head)
		retry_waiters(r);
	else if (r->wait_head && !r->dev_inflight)
		retry_waiters(r);
	r->pass_ns = now;
	if (reaped)
		r->dev_progress_ns = now;
	if (t->busy_poll)
		for (q = r->queues; q; q = q->next)
			if (q->ops->queue_poll && !q->closing)
				q->ops->queue_poll(q);
	flush_queues(r);
	if (rpriv[r->idx].nr_retiring)
		reactor_retire_pass(r);

	/* free what is closed and has nothing left in flight */
	for (q = r->queues; q; q = nq) {
		nq = q->next;
		if (q->closing && tgt_queue_idle(q))
			reactor_remove_queue(r, q);
	}
}
