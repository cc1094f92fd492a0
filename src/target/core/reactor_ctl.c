// SPDX-License-Identifier: MIT
/*
 * A reactor's connections and inbox: reactor 0 accepts and hands each new
 * connection to the next reactor in turn. A control command that touches
 * queues (an ANA change's events, a port going down) is a job handed to
 * every reactor through its inbox lock and wake-up eventfd; the main
 * thread waits until each has run it, so `mqblk ctl` answers once the
 * change is in effect. The main thread may also park every reactor
 * (tgt_reactors_pause) to change what they read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "reactor.h"
#include "reactor_int.h"
#include "stats.h"
#include "target/internal.h"

/* tgt_reactors_pause(): every reactor parked in park(), the main thread
 * owning what they own until tgt_reactors_resume(). */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned parked;
	bool paused;
} pause_state = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0,
		  false };

static _Atomic unsigned next_reactor;

int tgt_reactors_watch_port(struct tgt_port *p)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = p };

	return epoll_ctl(reactors[0].epfd, EPOLL_CTL_ADD, p->listen_fd, &ev) ?
		       -errno :
		       0;
}

void tgt_reactors_unwatch_port(struct tgt_port *p)
{
	epoll_ctl(reactors[0].epfd, EPOLL_CTL_DEL, p->listen_fd, NULL);
}

/* r's share of tgt_reactors_pause(): wait here until resumed. */
static void park(struct tgt_reactor *r)
{
	atomic_store(&rpriv[r->idx].pause_req, false);
	pthread_mutex_lock(&pause_state.lock);
	pause_state.parked++;
	pthread_cond_broadcast(&pause_state.cond);
	while (pause_state.paused)
		pthread_cond_wait(&pause_state.cond, &pause_state.lock);
	pause_state.parked--;
	pthread_cond_broadcast(&pause_state.cond);
	pthread_mutex_unlock(&pause_state.lock);
}

void tgt_reactors_pause(void)
{
	uint64_t one = 1;
	unsigned i;

	pthread_mutex_lock(&pause_state.lock);
	pause_state.paused = true;
	pthread_mutex_unlock(&pause_state.lock);
	for (i = 0; i < nr_reactors; i++) {
		atomic_store(&rpriv[i].pause_req, true);
		if (write(reactors[i].wake_fd, &one, sizeof(one)) < 0)
			tgt_log("cannot wake reactor %u: %s", i,
				strerror(errno));
	}
	pthread_mutex_lock(&pause_state.lock);
	while (pause_state.parked < nr_reactors)
		pthread_cond_wait(&pause_state.cond, &pause_state.lock);
	pthread_mutex_unlock(&pause_state.lock);
}

void tgt_reactors_resume(void)
{
	pthread_mutex_lock(&pause_state.lock);
	pause_state.paused = false;
	pthread_cond_broadcast(&pause_state.cond);
	/* gone from park() before the next pause can count them */
	while (pause_state.parked)
		pthread_cond_wait(&pause_state.cond, &pause_state.lock);
	pthread_mutex_unlock(&pause_state.lock);
}

/* ---- Connections ------------------------------------------------------- */

/*
 * Room for one more connection that has not completed its Connect: past
 * r's share of --max-unconnected, the oldest such queue of r's is closed
 * (a host that connects for real takes microseconds to Connect, so it
 * is never the oldest for long; an idle or slowloris one is). O(queues),
 * walked only when r has that many queues at all.
 */
static void make_room_unconnected(struct tgt_reactor *r)
{
	const struct tgt *t = r->t;
	unsigned cap = t->max_unconnected ? t->max_unconnected :
					    TGT_MAX_UNCONNECTED;
	unsigned n = 0;
	struct tgt_queue *q, *oldest = NULL;

	cap = (cap + nr_reactors - 1) / nr_reactors;
	if (r->nr_queues < cap)
		return;
	/* newest first: the last one found is the oldest */
	for (q = r->queues; q; q = q->next) {
		if (q->connected || q->closing)
			continue;
		n++;
		oldest = q;
	}
	if (n < cap || !oldest)
		return;
	atomic_fetch_add(&r->t->conn_evictions, 1);
	if (t->verbose)
		tgt_log("queue %s: %u connections without a Connect on reactor "
			"%u: closing the oldest",
			oldest->peer, n, r->idx);
	oldest->ops->queue_quiesce(oldest);
}

/* conn (a transport's connection) on r: a queue of r's. */
void reactor_add_queue(struct tgt_reactor *r, intptr_t conn,
		       struct tgt_port *port)
{
	const struct tgt_transport_ops *ops = tgt_transport_ops(port->trtype);
	struct tgt_queue *q;

	make_room_unconnected(r);
	q = ops->queue_create(r, conn, port);
	if (!q)
		return;
	pthread_mutex_lock(&r->lock);
	q->next = r->queues;
	q->prev = NULL;
	if (r->queues)
		r->queues->prev = q;
	r->queues = q;
	r->nr_queues++;
	pthread_mutex_unlock(&r->lock);
	if (r->t->verbose)
		tgt_log("connection from %s (reactor %u)", q->peer, r->idx);
}

void reactor_remove_queue(struct tgt_reactor *r, struct tgt_queue *q)
{
	/* off the list and into its port's and controller's counters at
	 * once, for a reader holding the stats lock */
	tgt_stats_lock();
	pthread_mutex_lock(&r->lock);
	if (q->prev)
		q->prev->next = q->next;
	else
		r->queues = q->next;
	if (q->next)
		q->next->prev = q->prev;
	r->nr_queues--;
	pthread_mutex_unlock(&r->lock);
	tgt_stats_queue_gone(q);
	tgt_stats_unlock();
	/* not on the flush (or held) list any more */
	if (q->tx_queued) {
		struct tgt_queue **lists[] = { &r->flush_list, &r->held_list };
		struct tgt_queue **fp;
		unsigned l;

		for (l = 0; l < 2; l++)
			for (fp = lists[l]; *fp; fp = &(*fp)->flush_next) {
				if (*fp == q) {
					*fp = q->flush_next;
					l = 2;
					break;
				}
			}
	}
	/* nothing of it waits for a tag: tgt_queue_idle() said so */
	tgt_auth_queue_free(q);
	q->ops->queue_destroy(q);
}

/*
 * A port went down or up, so the discovery log changed: the notice to
 * every discovery controller whose admin queue is on r (any port: the
 * log lists every port), as nvmet does when a port goes.
 */
static void disc_changed(struct tgt_reactor *r)
{
	const uint32_t dw0 = NVME_AER_DW0(NVME_AER_TYPE_NOTICE,
					  NVME_AER_NOTICE_DISC_CHANGED,
					  NVME_LOG_DISC);
	struct tgt_queue *q;

	for (q = r->queues; q; q = q->next) {
		struct tgt_ctrl *ctrl = q->ctrl;

		if (!q->connected || q->qid || q->closing || !ctrl ||
		    ctrl->adminq != q || !ctrl->subsys->discovery ||
		    atomic_load(&ctrl->dead))
			continue;
		tgt_ctrl_aen(ctrl, dw0);
	}
}

/* The job the control thread left for r, if any: run it, say done. */
static void ctl_job_run(struct tgt_reactor *r)
{
	struct tgt_ctl_job *job;
	struct tgt_queue *q, *nq;
	unsigned closed = 0;

	pthread_mutex_lock(&r->lock);
	job = r->ctl_job;
	r->ctl_job = NULL;
	pthread_mutex_unlock(&r->lock);
	if (!job)
		return;
	if (job->op == TGT_CTL_PORT_DOWN || job->op == TGT_CTL_PORT_UP)
		disc_changed(r);
	switch (job->op) {
	case TGT_CTL_ANA:
		/* every controller whose admin queue is here and came in
		 * on the port: tgt_ctrl_aen() is the admin reactor's */
		for (q = r->queues; q; q = q->next) {
			struct tgt_ctrl *ctrl = q->ctrl;

			if (!q->connected || q->qid || q->closing || !ctrl ||
			    ctrl->adminq != q || ctrl->port != job->port ||
			    ctrl->subsys->discovery || atomic_load(&ctrl->dead))
				continue;
			tgt_ctrl_aen(ctrl, job->aen_dw0);
		}
		break;
	case TGT_CTL_PORT_DOWN:
		if (r->idx == 0 && job->port->listen_fd >= 0) {
			epoll_ctl(r->epfd, EPOLL_CTL_DEL, job->port->listen_fd,
				  NULL);
			tgt_transport_ops(job->port->trtype)
				->port_close(job->port, job->port->listen_fd);
			job->port->listen_fd = -1;
		}
		for (q = r->queues; q; q = nq) {
			nq = q->next;
			if (q->port == job->port && !q->closing) {
				q->ops->queue_quiesce(q);
				closed++;
			}
		}
		break;
	case TGT_CTL_PORT_UP:
		if (r->idx == 0) {
			struct epoll_event ev = { .events = EPOLLIN,
						  .data.ptr = job->port };

			job->port->accept_paused = false;
			job->port->listen_fd = job->listen_fd;
			if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, job->listen_fd,
				      &ev))
				tgt_log("port %u: cannot watch the listener: "
					"%s",
					job->port->portid, strerror(errno));
		}
		break;
	default:
		break;
	}
	pthread_mutex_lock(&job->lock);
	job->closed += closed;
	if (!--job->pending)
		pthread_cond_signal(&job->done);
	pthread_mutex_unlock(&job->lock);
}

void reactor_drain_inbox(struct tgt_reactor *r)
{
	uint64_t v;
	unsigned i, n;
	intptr_t conns[64];
	struct tgt_port *ports[64];

	if (read(r->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	do {
		pthread_mutex_lock(&r->lock);
		n = r->nr_inbox < 64 ? r->nr_inbox : 64;
		for (i = 0; i < n; i++) {
			conns[i] = r->inbox[r->nr_inbox - 1 - i];
			ports[i] = r->inbox_port[r->nr_inbox - 1 - i];
		}
		r->nr_inbox -= n;
		pthread_mutex_unlock(&r->lock);
		for (i = 0; i < n; i++) {
			/* accepted before its port went down: refused too */
			if (atomic_load(&r->stop) ||
			    atomic_load(&ports[i]->down))
				tgt_transport_ops(ports[i]->trtype)
					->conn_drop(conns[i]);
			else
				reactor_add_queue(r, conns[i], ports[i]);
		}
	} while (n == 64);
	ctl_job_run(r);
	if (atomic_load(&rpriv[r->idx].pause_req))
		park(r);
}

void tgt_reactor_hand_over(intptr_t conn, struct tgt_port *port)
{
	unsigned i = atomic_fetch_add(&next_reactor, 1) % nr_reactors;
	struct tgt_reactor *r = &reactors[i];
	uint64_t one = 1;

	pthread_mutex_lock(&r->lock);
	if (r->nr_inbox == r->inbox_cap) {
		unsigned cap = r->inbox_cap ? 2 * r->inbox_cap : 16;
		intptr_t *conns = realloc(r->inbox, cap * sizeof(*conns));
		struct tgt_port **ps;

		if (conns)
			r->inbox = conns;
		ps = conns ? realloc(r->inbox_port, cap * sizeof(*ps)) : NULL;
		if (!ps) {
			pthread_mutex_unlock(&r->lock);
			tgt_transport_ops(port->trtype)->conn_drop(conn);
			return;
		}
		r->inbox_port = ps;
		r->inbox_cap = cap;
	}
	r->inbox[r->nr_inbox] = conn;
	r->inbox_port[r->nr_inbox] = port;
	r->nr_inbox++;
	pthread_mutex_unlock(&r->lock);
	if (write(r->wake_fd, &one, sizeof(one)) < 0)
		tgt_log("cannot wake reactor %u: %s", i, strerror(errno));
}

void tgt_port_accept_pause(struct tgt_port *p, int err)
{
	struct tgt_reactor *r = &reactors[0];

	if (p->accept_paused)
		return;
	p->accept_paused = true;
	if (!p->accept_pauses++)
		tgt_log("accept on %s:%s: %s: new connections wait (they are "
			"taken again every %u ms; logged once)",
			p->traddr, p->trsvcid, strerror(err), TGT_TICK_MS);
	epoll_ctl(r->epfd, EPOLL_CTL_DEL, p->listen_fd, NULL);
}

/* Reactor 0's tick: paused listeners are watched again. */
void reactor_ports_resume(struct tgt_reactor *r)
{
	struct tgt *t = r->t;
	unsigned i;

	for (i = 0; i < t->nr_ports; i++) {
		struct tgt_port *p = &t->ports[i];
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = p };

		if (!p->accept_paused)
			continue;
		p->accept_paused = false;
		if (p->listen_fd >= 0 && !atomic_load(&p->down))
			epoll_ctl(r->epfd, EPOLL_CTL_ADD, p->listen_fd, &ev);
	}
}
