// SPDX-License-Identifier: MIT
/*
 * The target's threads. A fixed set of reactors (one per CPU the process
 * may use by default, each pinned to its CPU) owns every connection:
 * reactor 0 also accepts and hands each new connection to the next
 * reactor in turn. A reactor waits in epoll for its sockets, and while its
 * namespaces' devices have requests in flight it polls them instead of
 * sleeping (the completion is reaped by the thread that submitted it:
 * nothing crosses CPUs on the I/O path, which on this kind of machine
 * costs more than the I/O itself).
 * Each reactor has its own software queue on every namespace's device and
 * its own buffer pool, so no lock is shared across queues.
 *
 * The main thread waits for SIGINT/SIGTERM and serves the control
 * sockets (--metrics has a thread of its own). A control command that
 * touches queues (an ANA change's events, a port going down) is a job
 * handed to every reactor through its inbox lock and wake-up eventfd; the
 * main thread waits until each has run it, so `mqblk ctl` answers once
 * the change is in effect.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "mqblk/mqblk.h"
#include "nvmet.h"
#include "reactor.h"
#include "stats.h"
#include "target/internal.h"

struct tgt_devq {
	struct tgt_ns *ns;
	struct mqblk_queue *q;
};

/* Per-reactor state the transports do not see. */
struct reactor_priv {
	struct tgt_devq *devq;
	unsigned nr_devq, cap_devq;
	/* namespaces the control socket removed that this reactor has not
	 * let go of yet (retire_pass) */
	struct tgt_ns **retiring;
	unsigned nr_retiring, cap_retiring;
	_Atomic bool pause_req; /* park at the next inbox read */
};

/* tgt_reactors_pause(): every reactor parked in park(), the main thread
 * owning what they own until tgt_reactors_resume(). */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned parked;
	bool paused;
} pause_state = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0,
		  false };

static struct tgt_reactor *reactors;
static struct reactor_priv *rpriv;
static unsigned nr_reactors;
static _Atomic unsigned next_reactor;
/* The CPUs the process may run on when the reactors were set up
 * (taskset, a container's cpuset): one reactor per CPU of them by
 * default, reactor i pinned to the i-th of them. */
static cpu_set_t cpus_allowed;
static unsigned nr_cpus_allowed;

void tgt_log(const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mqblk target: %s\n", line);
}

/* ---- Buffers ------------------------------------------------------------- */

static unsigned buf_class(uint32_t len)
{
	unsigned c = 0;

	while (c < TGT_BUF_CLASSES && (4096u << c) < len)
		c++;
	return c;
}

/* A class's buffers are carved from slabs of TGT_BUF_SLAB bytes (one
 * buffer per slab for the classes at least that big): aligned_alloc of a
 * single 4 KiB page costs malloc two, and at iodepth 128 that doubled the
 * target's memory per queue. Slabs are freed when the reactor ends; until
 * then a class's free buffers are kept on its list. */
static int buf_refill(struct tgt_reactor *r, unsigned c)
{
	uint32_t size = 4096u << c;
	uint32_t slab = size < TGT_BUF_SLAB ? TGT_BUF_SLAB : size;
	char *b;
	uint32_t off;

	if (r->nr_slabs == r->slab_cap) {
		unsigned cap = r->slab_cap ? 2 * r->slab_cap : 16;
		void **n = realloc(r->slabs, cap * sizeof(*n));

		if (!n)
			return -1;
		r->slabs = n;
		r->slab_cap = cap;
	}
	b = aligned_alloc(4096, slab);
	if (!b)
		return -1;
	r->slabs[r->nr_slabs++] = b;
	for (off = slab; off >= size; off -= size) {
		*(void **)(b + off - size) = r->bufs[c];
		r->bufs[c] = b + off - size;
	}
	return 0;
}

void *tgt_buf_get(struct tgt_reactor *r, uint32_t len, uint32_t *cap)
{
	unsigned c = buf_class(len);
	void *b;

	if (c >= TGT_BUF_CLASSES) {
		*cap = (len + 4095) & ~4095u;
		return aligned_alloc(4096, *cap);
	}
	*cap = 4096u << c;
	if (!r->bufs[c] && buf_refill(r, c))
		return NULL;
	b = r->bufs[c];
	r->bufs[c] = *(void **)b;
	return b;
}

void tgt_buf_put(struct tgt_reactor *r, void *buf, uint32_t cap)
{
	unsigned c = buf_class(cap);

	if (c >= TGT_BUF_CLASSES || (4096u << c) != cap) {
		free(buf);
		return;
	}
	*(void **)buf = r->bufs[c];
	r->bufs[c] = buf;
}

void tgt_buf_abandon(struct tgt_reactor *r, void *buf, uint32_t cap)
{
	unsigned c = buf_class(cap);

	(void)r;
	if (c >= TGT_BUF_CLASSES || (4096u << c) != cap)
		free(buf); /* not from a slab */
}

/* ---- Device queues ------------------------------------------------------- */

struct mqblk_queue *tgt_ns_queue(struct tgt_reactor *r, struct tgt_ns *ns)
{
	struct reactor_priv *p = &rpriv[r->idx];
	struct mqblk_queue *q;
	int ret;

	if (ns->q[r->idx])
		return ns->q[r->idx];
	if (!ns->dev)
		return NULL;
	if (p->nr_devq == p->cap_devq) {
		unsigned cap = p->cap_devq ? 2 * p->cap_devq : 8;
		struct tgt_devq *d = realloc(p->devq, cap * sizeof(*d));

		if (!d)
			return NULL;
		p->devq = d;
		p->cap_devq = cap;
	}
	ret = mqblk_queue_open(ns->dev, &q);
	if (ret) {
		tgt_log("namespace %u (%s): cannot open a queue: %s", ns->nsid,
			ns->uri, strerror(-ret));
		return NULL;
	}
	p->devq[p->nr_devq].ns = ns;
	p->devq[p->nr_devq].q = q;
	p->nr_devq++;
	ns->q[r->idx] = q;
	return q;
}

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

static void devq_close(struct tgt_reactor *r, struct tgt_devq *d);

/* Before a reactor ends: every namespace it wrote through gets its
 * cache flushed, then its device queues close. */
static void close_devices(struct tgt_reactor *r)
{
	struct reactor_priv *p = &rpriv[r->idx];
	unsigned i;

	for (i = 0; i < p->nr_devq; i++)
		devq_close(r, &p->devq[i]);
	free(p->devq);
	p->devq = NULL;
	p->nr_devq = 0;
	/* what was retiring: its queues are closed now; the devices are
	 * the main thread's to close (tgt_live_fini) */
	free(p->retiring);
	p->retiring = NULL;
	p->nr_retiring = p->cap_retiring = 0;
}

/* ---- Namespaces removed while running ----------------------------------- */

/* A request of r's still refers to ns (prepared, waiting for data or a
 * tag, at the device, or being answered)? */
static bool ns_used_here(struct tgt_reactor *r, const struct tgt_ns *ns)
{
	struct tgt_queue *q;
	unsigned i;

	for (q = r->queues; q; q = q->next)
		for (i = 0; i < q->nr_reqs; i++) {
			const struct tgt_req *req = tgt_queue_req(q, i);

			if (req->state != CMD_FREE && req->ns == ns)
				return true;
		}
	return false;
}

/*
 * What a target gives up on (devq_drain) stays allocated until the
 * process exits, the kernel may still write it: the device and the
 * reactors' buffer slabs, kept here where leak checkers see them.
 */
struct stuck_keep {
	struct stuck_keep *next;
	void *p;
};
static struct stuck_keep *stuck_kept;
static pthread_mutex_t stuck_lock = PTHREAD_MUTEX_INITIALIZER;

static void stuck_keep(void *p)
{
	struct stuck_keep *k = malloc(sizeof(*k));

	if (!k)
		return; /* a leak report at worst: the memory stays put */
	k->p = p;
	pthread_mutex_lock(&stuck_lock);
	k->next = stuck_kept;
	stuck_kept = k;
	pthread_mutex_unlock(&stuck_lock);
}

/*
 * Reap d's queue until nothing is in flight (the flush's result, if
 * flush comes back, in *flush_res): true; false once what is left is
 * stuck on a device its driver declared failed (mqblk_dev_is_dead: the
 * uring driver past timeout_rearms=) and nothing has completed for one
 * device timeout, the bound mqblk bench keeps too. Closing the queue
 * would wait for those forever.
 */
static bool devq_drain(struct tgt_devq *d, struct mqblk_rq *flush,
		       int *flush_res)
{
	struct mqblk_dev *dev = d->ns->dev;
	uint64_t since = 0;

	while (mqblk_queue_inflight(d->q)) {
		struct mqblk_rq *rqs[16];
		uint64_t now;
		int i, n = mqblk_reap(d->q, rqs, 1, 16, 100 * 1000000ll);

		for (i = 0; i < n; i++) {
			if (rqs[i] == flush)
				*flush_res = rqs[i]->res;
			mqblk_rq_put(rqs[i]);
		}
		if (n != 0 || !mqblk_dev_is_dead(dev)) {
			since = 0;
			continue;
		}
		now = mqblk_clock_ns();
		if (!since)
			since = now;
		else if (now - since >= mqblk_dev_timeout_ns(dev))
			return false;
	}
	return true;
}

/* Flush ns's cache through q (what r wrote may sit in it), then close q:
 * at shutdown and when ns is removed. */
static void devq_close(struct tgt_reactor *r, struct tgt_devq *d)
{
	struct mqblk_rq *rq;
	unsigned stuck;

	if (d->ns->vwc && !d->ns->readonly) {
		rq = mqblk_rq_get(d->q, 0);
		if (rq) {
			int res = 0;

			rq->op = MQBLK_OP_FLUSH;
			rq->offset = 0;
			rq->len = 0;
			rq->buf = NULL;
			rq->private = NULL;
			if (mqblk_submit(rq))
				mqblk_rq_put(rq);
			else
				devq_drain(d, rq, &res);
			if (res < 0) {
				atomic_fetch_add(&r->t->close_flush_failed, 1);
				tgt_log("namespace %u: flush of its cache "
					"failed: %s",
					d->ns->nsid, strerror(-res));
			}
		}
	}
	if (!devq_drain(d, NULL, NULL)) {
		/* the queue stays open (its requests hold their tags), the
		 * device is never closed, the buffers never freed */
		stuck = mqblk_queue_inflight(d->q);
		tgt_log("namespace %u (%s): %u request%s stuck on its failed "
			"device: left to the kernel, the target exits without "
			"freeing %s buffer%s",
			d->ns->nsid, d->ns->uri, stuck, stuck == 1 ? "" : "s",
			stuck == 1 ? "its" : "their", stuck == 1 ? "" : "s");
		atomic_store(&r->unclean, true);
		atomic_store(&d->ns->stuck, true);
		r->stuck = true;
		d->ns->q[r->idx] = NULL;
		return;
	}
	mqblk_queue_close(d->q);
	d->ns->q[r->idx] = NULL;
}

/*
 * Each removed namespace nothing of r's refers to any more: r's device
 * queue on it closes and r lets go; the last reactor to let go closes
 * the device (the main thread frees the rest, core/live.c). Runs only
 * while something is retiring.
 */
static void retire_pass(struct tgt_reactor *r)
{
	struct reactor_priv *p = &rpriv[r->idx];
	unsigned i = 0, k;

	while (i < p->nr_retiring) {
		struct tgt_ns *ns = p->retiring[i];

		if ((ns->q[r->idx] && mqblk_queue_inflight(ns->q[r->idx])) ||
		    ns_used_here(r, ns)) {
			i++;
			continue;
		}
		for (k = 0; k < p->nr_devq; k++) {
			if (p->devq[k].ns != ns)
				continue;
			devq_close(r, &p->devq[k]);
			p->devq[k] = p->devq[--p->nr_devq];
			break;
		}
		p->retiring[i] = p->retiring[--p->nr_retiring];
		if (atomic_fetch_sub(&ns->retire_refs, 1) == 1 && ns->dev) {
			mqblk_dev_close(ns->dev);
			ns->dev = NULL;
			/* always: an operator waits for it to reuse the
			 * device */
			tgt_log("namespace %u (%s): removed, device closed",
				ns->nsid, ns->uri);
		}
	}
}

int tgt_reactors_retire_reserve(unsigned n)
{
	unsigned i;
	int rc = 0;

	/* the reactors parked: each one's retire_pass writes nr_retiring
	 * and walks the list this may move (TSan saw the race in
	 * cli-metrics' live-under-readers) */
	tgt_reactors_pause();
	for (i = 0; i < nr_reactors; i++) {
		struct reactor_priv *p = &rpriv[i];
		unsigned cap = p->cap_retiring ? p->cap_retiring : 8;
		struct tgt_ns **list;

		while (cap < p->nr_retiring + n)
			cap *= 2;
		if (cap == p->cap_retiring)
			continue;
		list = realloc(p->retiring, cap * sizeof(*list));
		if (!list) {
			rc = -ENOMEM;
			break;
		}
		p->retiring = list;
		p->cap_retiring = cap;
	}
	tgt_reactors_resume();
	return rc;
}

void tgt_reactors_retire_ns(struct tgt_ns *ns)
{
	unsigned i;

	atomic_store(&ns->retire_refs, nr_reactors);
	for (i = 0; i < nr_reactors; i++)
		rpriv[i].retiring[rpriv[i].nr_retiring++] = ns;
}

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
static void reactor_add_queue(struct tgt_reactor *r, intptr_t conn,
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

static void reactor_remove_queue(struct tgt_reactor *r, struct tgt_queue *q)
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

static void drain_inbox(struct tgt_reactor *r)
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
static void ports_resume(struct tgt_reactor *r)
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

/* ---- The loop ------------------------------------------------------------ */

static bool is_port(const struct tgt *t, const void *p)
{
	const struct tgt_port *pp = p;

	return pp >= t->ports && pp < t->ports + t->nr_ports;
}

/* One pass: wait (not past timeout_ms, not at all while there is work),
 * handle events, reap devices, send, run the timers, free closed queues. */
static void reactor_step(struct tgt_reactor *r, int timeout_ms, bool tick_now)
{
	struct tgt *t = r->t;
	struct epoll_event ev[64];
	struct tgt_queue *q, *nq;
	uint64_t now;
	int n, i, timeout;

	if (r->dev_inflight || r->wait_head || r->flush_list || t->busy_poll) {
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
		uint64_t wait_ns;
		struct timespec ts;

		now = mqblk_clock_ns();
		wait_ns = r->held_deadline_ns > now ?
				  r->held_deadline_ns - now :
				  0;
		if (wait_ns < (uint64_t)timeout * 1000000) {
			ts.tv_sec = (time_t)(wait_ns / 1000000000);
			ts.tv_nsec = (long)(wait_ns % 1000000000);
			n = epoll_pwait2(r->epfd, ev, 64, &ts, NULL);
			if (n >= 0 || errno != ENOSYS)
				goto events;
			timeout = 1; /* before Linux 5.11: a millisecond */
		}
	}
	n = epoll_wait(r->epfd, ev, 64, timeout);
events:
	/*
	 * The timers run before the events they may make moot: after a
	 * stall (the process stopped, the reactor starved) a controller
	 * whose keep-alive expired meanwhile is torn down before the
	 * commands that waited in its sockets run. Its host has taken it
	 * for dead and may have sent them again on another path, and newer
	 * writes since: a stale copy run now would undo those.
	 */
	now = mqblk_clock_ns();
	if (now >= r->next_tick_ns || tick_now) {
		r->next_tick_ns = now + TGT_TICK_MS * 1000000ull;
		if (r->idx == 0)
			ports_resume(r);
		for (q = r->queues; q; q = nq) {
			nq = q->next;
			tgt_queue_tick(q, now);
		}
	}
	for (i = 0; i < n; i++) {
		void *p = ev[i].data.ptr;

		if (p == r)
			drain_inbox(r);
		else if (is_port(t, p))
			tgt_transport_ops(((struct tgt_port *)p)->trtype)
				->port_accept(p);
		else
			((struct tgt_queue *)p)
				->ops->queue_event(p, ev[i].events);
	}
	if (r->dev_inflight && reap_devices(r) && r->wait_head)
		retry_waiters(r);
	else if (r->wait_head && !r->dev_inflight)
		retry_waiters(r);
	if (t->busy_poll)
		for (q = r->queues; q; q = q->next)
			if (q->ops->queue_poll && !q->closing)
				q->ops->queue_poll(q);
	flush_queues(r);
	if (rpriv[r->idx].nr_retiring)
		retire_pass(r);

	/* free what is closed and has nothing left in flight */
	for (q = r->queues; q; q = nq) {
		nq = q->next;
		if (q->closing && tgt_queue_idle(q))
			reactor_remove_queue(r, q);
	}
}

/* The allowed CPUs at set-up: the process's affinity mask, or every
 * online CPU if it cannot be read. */
static void cpus_allowed_init(void)
{
	long n;
	int c;

	CPU_ZERO(&cpus_allowed);
	if (!sched_getaffinity(0, sizeof(cpus_allowed), &cpus_allowed) &&
	    CPU_COUNT(&cpus_allowed) > 0) {
		nr_cpus_allowed = (unsigned)CPU_COUNT(&cpus_allowed);
		return;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	for (c = 0; c < n && c < CPU_SETSIZE; c++)
		CPU_SET(c, &cpus_allowed);
	nr_cpus_allowed = (unsigned)CPU_COUNT(&cpus_allowed);
}

/* Reactor idx's CPU: the idx-th allowed one, or -1 when there are more
 * reactors than allowed CPUs (then none is pinned: the scheduler spreads
 * them over the allowed set, which they inherit). */
int tgt_reactor_cpu(unsigned idx)
{
	unsigned k = idx;
	int c;

	if (nr_reactors > nr_cpus_allowed)
		return -1;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &cpus_allowed) && !k--)
			return c;
	return -1;
}

static void *reactor_main(void *arg)
{
	struct tgt_reactor *r = arg;
	struct tgt *t = r->t;
	bool stopping = false;
	uint64_t stop_deadline = 0;
	int cpu = tgt_reactor_cpu(r->idx);

	if (cpu >= 0) {
		cpu_set_t set;
		int ret;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (ret)
			tgt_log("reactor %u: cannot pin it to CPU %d: %s",
				r->idx, cpu, strerror(ret));
	}
	r->next_tick_ns = mqblk_clock_ns() + TGT_TICK_MS * 1000000ull;
	for (;;) {
		uint64_t now;

		reactor_step(r, TGT_TICK_MS, stopping);
		now = mqblk_clock_ns();
		if (!stopping && atomic_load(&r->stop)) {
			struct tgt_queue *q;
			unsigned k;

			stopping = true;
			stop_deadline = now + 10ull * 1000000000;
			if (r->idx == 0)
				for (k = 0; k < t->nr_ports; k++)
					epoll_ctl(r->epfd, EPOLL_CTL_DEL,
						  t->ports[k].listen_fd, NULL);
			for (q = r->queues; q; q = q->next)
				q->ops->queue_stop(q);
			drain_inbox(r);
		}
		if (stopping && (!r->queues || now > stop_deadline))
			break;
	}
	if (r->queues) {
		tgt_log("reactor %u: %u queues still busy at the device after "
			"10 s; leaving them",
			r->idx, r->nr_queues);
		atomic_store(&r->unclean, true);
	}
	close_devices(r);
	return NULL;
}

/* ---- Start and stop --------------------------------------------------------- */

static int port_listen(struct tgt_port *p)
{
	const struct tgt_transport_ops *ops = tgt_transport_ops(p->trtype);

	if (!ops) {
		tgt_log("port %u: transport type %u is not built in", p->portid,
			p->trtype);
		return -1;
	}
	p->listen_fd = ops->port_open(p);
	return p->listen_fd < 0 ? -1 : 0;
}

int tgt_ns_attach(struct tgt *t, struct tgt_subsys *s, struct tgt_ns *ns,
		  char *err, size_t errlen)
{
	struct mqblk_dev_opts o;
	int ret;

	mqblk_dev_opts_init(&o);
	o.nr_queues = nr_reactors;
	o.comp_policy = MQBLK_COMP_POLLED;
	o.flags = (ns->readonly ? 0 : MQBLK_OPEN_WRITE) | MQBLK_OPEN_DIRECT;
	ret = mqblk_dev_open(ns->uri, &o, &ns->dev, err, errlen);
	if (ret == -EINVAL && strstr(err, "O_DIRECT")) {
		/* a filesystem without O_DIRECT (tmpfs): through the page
		 * cache; Flush (fdatasync) makes it durable */
		o.flags &= ~MQBLK_OPEN_DIRECT;
		ret = mqblk_dev_open(ns->uri, &o, &ns->dev, err, errlen);
	}
	if (ret)
		return -1;
	ns->size = mqblk_dev_size(ns->dev);
	/* log2 of the block size (a power of two) */
	ns->lba_shift =
		31 - (unsigned)__builtin_clz(mqblk_dev_block_size(ns->dev) | 1);
	if (ns->lba_shift < 9)
		ns->lba_shift = 9;
	ns->size &= ~(((uint64_t)1 << ns->lba_shift) - 1);
	ns->vwc = strcmp(mqblk_dev_driver_name(ns->dev), "null") != 0;
	ns->q = calloc(nr_reactors, sizeof(*ns->q));
	if (!ns->q) {
		mqblk_dev_close(ns->dev);
		ns->dev = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ns->st = aligned_alloc(_Alignof(struct tgt_ns_stats),
			       nr_reactors * sizeof(*ns->st));
	if (!ns->st) {
		free(ns->q);
		ns->q = NULL;
		mqblk_dev_close(ns->dev);
		ns->dev = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(ns->st, 0, nr_reactors * sizeof(*ns->st));
	if (t->verbose)
		tgt_log("%s namespace %u: %s, %llu bytes, %u-byte blocks%s",
			s->nqn, ns->nsid, ns->uri, (unsigned long long)ns->size,
			1u << ns->lba_shift,
			(o.flags & MQBLK_OPEN_DIRECT) ? "" : ", buffered");
	return 0;
}

/* Open every enabled namespace of t (at start): 0, or -1 logged. */
static int ns_open_all(struct tgt *t)
{
	char err[256];
	unsigned i, j;

	for (i = 0; i < t->nr_subsys; i++)
		for (j = 0; j < t->subsys[i]->nr_ns; j++) {
			struct tgt_ns *ns = t->subsys[i]->ns[j];

			if (ns->enabled && tgt_ns_attach(t, t->subsys[i], ns,
							 err, sizeof(err))) {
				tgt_log("%s namespace %u: %s",
					t->subsys[i]->nqn, ns->nsid, err);
				return -1;
			}
		}
	return 0;
}

static void ns_close_all(struct tgt *t)
{
	unsigned i, j;

	for (i = 0; i < t->nr_subsys; i++) {
		struct tgt_subsys *s = t->subsys[i];

		for (j = 0; j < s->nr_ns; j++) {
			if (s->ns[j]->dev && atomic_load(&s->ns[j]->stuck))
				stuck_keep(s->ns[j]->dev); /* devq_close */
			else if (s->ns[j]->dev)
				mqblk_dev_close(s->ns[j]->dev);
			s->ns[j]->dev = NULL;
			free(s->ns[j]->q);
			s->ns[j]->q = NULL;
			free(s->ns[j]->st);
			s->ns[j]->st = NULL;
		}
	}
}

static int reactor_init(struct tgt_reactor *r, struct tgt *t, unsigned idx)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = r };

	r->t = t;
	r->idx = idx;
	pthread_mutex_init(&r->lock, NULL);
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	r->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->epfd < 0 || r->wake_fd < 0)
		return -1;
	return epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->wake_fd, &ev);
}

static void reactor_fini(struct tgt_reactor *r)
{
	unsigned c;

	if (r->xport_fini)
		r->xport_fini(r);
	r->xport_fini = NULL;
	for (c = 0; c < TGT_BUF_CLASSES; c++)
		r->bufs[c] = NULL;
	/* a stuck request's buffer is in one of them: kept */
	while (r->nr_slabs && r->stuck)
		stuck_keep(r->slabs[--r->nr_slabs]);
	while (r->nr_slabs)
		free(r->slabs[--r->nr_slabs]);
	free(r->slabs);
	r->slabs = NULL;
	while (r->nr_inbox) {
		r->nr_inbox--;
		tgt_transport_ops(r->inbox_port[r->nr_inbox]->trtype)
			->conn_drop(r->inbox[r->nr_inbox]);
	}
	free(r->inbox);
	free(r->inbox_port);
	if (r->epfd > 0)
		close(r->epfd);
	if (r->wake_fd > 0)
		close(r->wake_fd);
	pthread_mutex_destroy(&r->lock);
}

/* ---- The set of reactors (run.c's) ------------------------------------- */

unsigned tgt_reactors_count(void)
{
	return nr_reactors;
}

struct tgt_reactor *tgt_reactor_at(unsigned i)
{
	return &reactors[i];
}

int tgt_reactors_setup(struct tgt *t)
{
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned i;

	cpus_allowed_init();
	nr_reactors = t->nr_reactors ? t->nr_reactors : nr_cpus_allowed;
	if (ns_open_all(t))
		goto fail;
	for (i = 0; i < t->nr_ports; i++)
		if (port_listen(&t->ports[i]))
			goto fail;
	reactors = calloc(nr_reactors, sizeof(*reactors));
	rpriv = calloc(nr_reactors, sizeof(*rpriv));
	if (!reactors || !rpriv)
		goto fail;
	for (i = 0; i < nr_reactors; i++)
		if (reactor_init(&reactors[i], t, i))
			goto fail;
	for (i = 0; i < t->nr_ports; i++) {
		ev.data.ptr = &t->ports[i];
		if (epoll_ctl(reactors[0].epfd, EPOLL_CTL_ADD,
			      t->ports[i].listen_fd, &ev))
			goto fail;
	}
	return 0;
fail:
	tgt_reactors_teardown(t, 0);
	return -1;
}

unsigned tgt_reactors_launch(void)
{
	unsigned started;

	for (started = 0; started < nr_reactors; started++)
		if (pthread_create(&reactors[started].thread, NULL,
				   reactor_main, &reactors[started]))
			break;
	return started;
}

int tgt_reactors_teardown(struct tgt *t, unsigned started)
{
	int status = 0;
	unsigned i;

	for (i = 0; i < started; i++) {
		uint64_t one = 1;

		atomic_store(&reactors[i].stop, true);
		if (write(reactors[i].wake_fd, &one, sizeof(one)) < 0)
			status = 1;
	}
	for (i = 0; i < started; i++) {
		pthread_join(reactors[i].thread, NULL);
		if (atomic_load(&reactors[i].unclean))
			status = 1;
	}
	for (i = 0; reactors && i < nr_reactors; i++)
		if (reactors[i].epfd > 0)
			reactor_fini(&reactors[i]);
	for (i = 0; rpriv && i < nr_reactors; i++)
		free(rpriv[i].retiring);
	free(reactors);
	free(rpriv);
	reactors = NULL;
	rpriv = NULL;
	for (i = 0; i < t->nr_ports; i++) {
		if (t->ports[i].listen_fd >= 0)
			tgt_transport_ops(t->ports[i].trtype)
				->port_close(&t->ports[i],
					     t->ports[i].listen_fd);
		t->ports[i].listen_fd = -1;
	}
	ns_close_all(t);
	return status;
}

/* ---- One reactor on the caller's thread (tests, fuzzers) ---------------- */

struct tgt_reactor *tgt_local_start(struct tgt *t)
{
	if (reactors)
		return NULL;
	nr_reactors = 1;
	if (ns_open_all(t))
		goto fail;
	reactors = calloc(1, sizeof(*reactors));
	rpriv = calloc(1, sizeof(*rpriv));
	if (!reactors || !rpriv || reactor_init(&reactors[0], t, 0))
		goto fail;
	reactors[0].next_tick_ns = mqblk_clock_ns() + TGT_TICK_MS * 1000000ull;
	return &reactors[0];
fail:
	if (reactors)
		reactor_fini(&reactors[0]);
	free(reactors);
	free(rpriv);
	reactors = NULL;
	rpriv = NULL;
	ns_close_all(t);
	return NULL;
}

void tgt_local_add(struct tgt_reactor *r, int fd, struct tgt_port *port)
{
	reactor_add_queue(r, fd, port);
}

void tgt_local_step(struct tgt_reactor *r, int timeout_ms)
{
	reactor_step(r, timeout_ms, false);
}

unsigned tgt_local_nr_queues(const struct tgt_reactor *r)
{
	return r->nr_queues;
}

void tgt_local_stop(struct tgt_reactor *r)
{
	struct tgt_queue *q;
	struct tgt *t = r->t;

	for (q = r->queues; q; q = q->next)
		q->ops->queue_quiesce(q);
	while (r->queues)
		reactor_step(r, 1, true);
	close_devices(r);
	reactor_fini(r);
	free(reactors);
	free(rpriv);
	reactors = NULL;
	rpriv = NULL;
	ns_close_all(t);
}
