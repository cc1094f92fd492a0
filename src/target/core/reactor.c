// SPDX-License-Identifier: MIT
/*
 * The target's threads. A fixed set of reactors (one per CPU by default,
 * each pinned to its CPU) owns every connection: reactor 0 also accepts
 * and hands each new connection to the next reactor in turn. A reactor
 * waits in epoll for its sockets, and while its namespaces' devices have
 * requests in flight it polls them instead of sleeping (the completion is
 * reaped by the thread that submitted it: nothing crosses CPUs on the I/O
 * path, which on this kind of machine costs more than the I/O itself).
 * Each reactor has its own software queue on every namespace's device and
 * its own buffer pool, so no lock is shared across queues.
 *
 * The main thread waits for SIGINT/SIGTERM and serves the stats and
 * control sockets. A control command that touches queues (an ANA change's
 * events, a port going down) is a job handed to every reactor through its
 * inbox lock and wake-up eventfd; the main thread waits until each has
 * run it, so `mqblk ctl` answers once the change is in effect.
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
#include "target/internal.h"

struct tgt_devq {
	struct tgt_ns *ns;
	struct mqblk_queue *q;
};

/* A control command's part that reactors run, each for its own queues. */
struct tgt_ctl_job {
	enum tgt_ctl_op op;
	struct tgt_port *port;
	uint32_t aen_dw0; /* TGT_CTL_ANA: the event to post */
	int listen_fd; /* TGT_CTL_PORT_UP: reactor 0 takes it */
	unsigned closed; /* TGT_CTL_PORT_DOWN: connections closed */
	pthread_mutex_t lock;
	pthread_cond_t done;
	unsigned pending; /* reactors yet to run it */
};

/* Per-reactor state that tcp.c does not see. */
struct reactor_priv {
	struct tgt_devq *devq;
	unsigned nr_devq, cap_devq;
};

static struct tgt_reactor *reactors;
static struct reactor_priv *rpriv;
static unsigned nr_reactors;
static _Atomic unsigned next_reactor;

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

/* Before a reactor ends: every namespace it wrote through gets its
 * cache flushed, then its device queues close. */
static void close_devices(struct tgt_reactor *r)
{
	struct reactor_priv *p = &rpriv[r->idx];
	unsigned i;

	for (i = 0; i < p->nr_devq; i++) {
		struct tgt_devq *d = &p->devq[i];
		struct mqblk_rq *rq;

		if (d->ns->vwc && !d->ns->readonly) {
			rq = mqblk_rq_get(d->q, 0);
			if (rq) {
				rq->op = MQBLK_OP_FLUSH;
				rq->offset = 0;
				rq->len = 0;
				rq->buf = NULL;
				rq->private = NULL;
				if (!mqblk_submit(rq)) {
					if (mqblk_reap(d->q, &rq, 1, 1, -1) ==
						    1 &&
					    rq->res < 0)
						tgt_log("namespace %u: flush at "
							"shutdown failed: %s",
							d->ns->nsid,
							strerror(-rq->res));
				}
				mqblk_rq_put(rq);
			}
		}
		mqblk_queue_close(d->q);
		d->ns->q[r->idx] = NULL;
	}
	free(p->devq);
	p->devq = NULL;
	p->nr_devq = 0;
}

/* ---- Connections ------------------------------------------------------- */

/* conn (a transport's connection) on r: a queue of r's. */
static void reactor_add_queue(struct tgt_reactor *r, intptr_t conn,
			      struct tgt_port *port)
{
	const struct tgt_transport_ops *ops = tgt_transport_ops(port->trtype);
	struct tgt_queue *q = ops->queue_create(r, conn, port);

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
	pthread_mutex_lock(&r->lock);
	if (q->prev)
		q->prev->next = q->next;
	else
		r->queues = q->next;
	if (q->next)
		q->next->prev = q->prev;
	r->nr_queues--;
	pthread_mutex_unlock(&r->lock);
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

			job->port->listen_fd = job->listen_fd;
			if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, job->listen_fd,
				      &ev))
				tgt_log("port %u: cannot watch the listener: "
					"%s",
					job->port->portid, strerror(errno));
		}
		break;
	case TGT_CTL_STATS:
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
	flush_queues(r);

	now = mqblk_clock_ns();
	if (now >= r->next_tick_ns || tick_now) {
		r->next_tick_ns = now + TGT_TICK_MS * 1000000ull;
		for (q = r->queues; q; q = nq) {
			nq = q->next;
			tgt_queue_tick(q, now);
		}
	}
	/* free what is closed and has nothing left in flight */
	for (q = r->queues; q; q = nq) {
		nq = q->next;
		if (q->closing && tgt_queue_idle(q))
			reactor_remove_queue(r, q);
	}
}

static void *reactor_main(void *arg)
{
	struct tgt_reactor *r = arg;
	struct tgt *t = r->t;
	bool stopping = false;
	uint64_t stop_deadline = 0;
	cpu_set_t set;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (ncpu > 0 && nr_reactors <= (unsigned)ncpu) {
		CPU_ZERO(&set);
		CPU_SET(r->idx % (unsigned)ncpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
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

/* ---- Stats ------------------------------------------------------------- */

static void stats_dump(struct tgt *t, FILE *f)
{
	unsigned i;

	fprintf(f,
		"%-6s %-4s %-22s %-8s %10s %10s %10s %12s %12s %5s %5s "
		"%10s %10s %6s %6s %6s %10s %10s %10s %10s %10s %10s %10s %10s\n",
		"ctrl", "qid", "peer", "reactor", "cmds", "reads", "writes",
		"read_bytes", "write_bytes", "depth", "max", "avg_lat_us",
		"max_lat_us", "errors", "stalls", "ddgst", "r2ts", "sends",
		"cqes", "held", "zc_sends", "zc_polls", "zc_reads",
		"zc_copied");
	for (i = 0; i < nr_reactors; i++) {
		struct tgt_reactor *r = &reactors[i];
		struct tgt_queue *q;

		pthread_mutex_lock(&r->lock);
		for (q = r->queues; q; q = q->next) {
			uint64_t lc = atomic_load(&q->st.lat_count);
			uint64_t ls = atomic_load(&q->st.lat_ns_sum);

			fprintf(f,
				"%-6u %-4u %-22s %-8u %10llu %10llu %10llu "
				"%12llu %12llu %5u %5u %10.1f %10.1f %6llu "
				"%6llu %6llu %10llu %10llu %10llu %10llu %10llu "
				"%10llu %10llu %10llu\n",
				(unsigned)atomic_load(&q->st.cntlid),
				(unsigned)atomic_load(&q->st.qid), q->peer, i,
				(unsigned long long)atomic_load(&q->st.cmds),
				(unsigned long long)atomic_load(
					&q->st.read_cmds),
				(unsigned long long)atomic_load(
					&q->st.write_cmds),
				(unsigned long long)atomic_load(
					&q->st.read_bytes),
				(unsigned long long)atomic_load(
					&q->st.write_bytes),
				atomic_load(&q->st.depth),
				atomic_load(&q->st.max_depth),
				lc ? (double)ls / (double)lc / 1e3 : 0.0,
				(double)atomic_load(&q->st.lat_ns_max) / 1e3,
				(unsigned long long)atomic_load(&q->st.errors),
				(unsigned long long)atomic_load(&q->st.stalls),
				(unsigned long long)atomic_load(
					&q->st.ddgst_errors),
				(unsigned long long)atomic_load(&q->st.r2ts),
				(unsigned long long)atomic_load(&q->st.sends),
				(unsigned long long)atomic_load(&q->st.cqes),
				(unsigned long long)atomic_load(&q->st.held),
				(unsigned long long)atomic_load(
					&q->st.zc_sends),
				(unsigned long long)atomic_load(
					&q->st.zc_polls),
				(unsigned long long)atomic_load(
					&q->st.zc_reads),
				(unsigned long long)atomic_load(
					&q->st.zc_copied));
		}
		pthread_mutex_unlock(&r->lock);
	}
	fflush(f);
}

/* A UNIX socket at path for what ("stats", "control"), named by option
 * opt in messages; -1 (logged) if it cannot be had. */
static int unix_listen(const char *path, const char *what, const char *opt)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		tgt_log("%s socket path too long: %s", what, path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	/* a live target already serves this path: leave it alone */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		tgt_log("%s socket %s is another target's: no %s socket "
			"(use %s)",
			what, path, what, opt);
		close(fd);
		return -1;
	}
	if (fd >= 0)
		close(fd);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8)) {
		tgt_log("%s socket %s: %s", what, path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- Control socket ---------------------------------------------------- */

/* Hand job to every reactor and wait until each has run it. The main
 * thread's (tgt_run): not for tgt_local_*, whose one reactor is the
 * caller. */
static void ctl_job_post(struct tgt_ctl_job *job)
{
	unsigned i, n = nr_reactors;
	uint64_t one = 1;

	pthread_mutex_init(&job->lock, NULL);
	pthread_cond_init(&job->done, NULL);
	job->pending = n;
	for (i = 0; i < n; i++) {
		struct tgt_reactor *r = &reactors[i];

		pthread_mutex_lock(&r->lock);
		r->ctl_job = job;
		pthread_mutex_unlock(&r->lock);
		if (write(r->wake_fd, &one, sizeof(one)) < 0)
			tgt_log("cannot wake reactor %u: %s", i,
				strerror(errno));
	}
	pthread_mutex_lock(&job->lock);
	while (job->pending)
		pthread_cond_wait(&job->done, &job->lock);
	pthread_mutex_unlock(&job->lock);
	pthread_cond_destroy(&job->done);
	pthread_mutex_destroy(&job->lock);
}

static void port_name(const struct tgt_port *p, char *out, size_t size)
{
	if (p->adrfam == NVMF_ADDR_FAMILY_IP6)
		snprintf(out, size, "[%s]:%s", p->traddr, p->trsvcid);
	else
		snprintf(out, size, "%s:%s", p->traddr, p->trsvcid);
}

/* Ports, their ANA states and connections; controllers; the queues. */
static void ctl_stats(struct tgt *t, FILE *f)
{
	unsigned i, k, g;
	char name[128];

	fprintf(f, "ana change count %llu\n",
		(unsigned long long)atomic_load(&t->ana_chgcnt));
	for (i = 0; i < t->nr_ports; i++) {
		struct tgt_port *p = &t->ports[i];
		unsigned conns = 0;

		for (k = 0; k < nr_reactors; k++) {
			struct tgt_reactor *r = &reactors[k];
			struct tgt_queue *q;

			pthread_mutex_lock(&r->lock);
			/* q->port is set before the queue is listed (under
			 * this lock); closing is the reactor's own */
			for (q = r->queues; q; q = q->next)
				conns += q->port == p;
			pthread_mutex_unlock(&r->lock);
		}
		port_name(p, name, sizeof(name));
		fprintf(f, "port %u %s %s%s connections %u", p->portid, name,
			atomic_load(&p->down) ? "down" : "up",
			p->discovery_only ? " discovery" : "", conns);
		if (!p->discovery_only) {
			fprintf(f, " ana");
			for (g = 1; g <= TGT_MAX_ANA_GROUPS; g++)
				if (t->ana_group_used[g])
					fprintf(f, " %u:%s", g,
						nvme_ana_state_name(atomic_load(
							&p->ana_state[g])));
		}
		fputc('\n', f);
	}
	for (i = 0; i < t->nr_subsys; i++) {
		struct tgt_subsys *s = t->subsys[i];
		struct tgt_ctrl *c;

		pthread_mutex_lock(&s->lock);
		for (c = s->ctrls; c; c = c->next) {
			unsigned nq = 0;

			for (k = 1; k <= TGT_MAX_IO_QUEUES; k++)
				nq += c->ioq[k] != NULL;
			fprintf(f,
				"ctrl %u subsys %s port %u host %s io_queues "
				"%u%s\n",
				c->cntlid, s->nqn, c->port->portid, c->hostnqn,
				nq, atomic_load(&c->dead) ? " dead" : "");
		}
		pthread_mutex_unlock(&s->lock);
	}
	stats_dump(t, f);
}

/* Run a parsed control command. 0, or -1 with the reason in err. */
static int ctl_exec(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		    char *err, size_t errlen)
{
	struct tgt_ctl_job job;
	struct tgt_port *p;
	char name[128];

	if (cmd->op == TGT_CTL_STATS) {
		fprintf(out, "ok\n");
		ctl_stats(t, out);
		return 0;
	}
	p = tgt_ctl_port(t, cmd, err, errlen);
	if (!p)
		return -1;
	port_name(p, name, sizeof(name));
	memset(&job, 0, sizeof(job));
	job.op = cmd->op;
	job.port = p;
	switch (cmd->op) {
	case TGT_CTL_ANA:
		/* the state first: the event's log read must find it */
		atomic_store(&p->ana_state[cmd->grp], cmd->state);
		atomic_fetch_add(&t->ana_chgcnt, 1);
		job.aen_dw0 = NVME_AER_DW0(NVME_AER_TYPE_NOTICE,
					   NVME_AER_NOTICE_ANA, NVME_LOG_ANA);
		ctl_job_post(&job);
		tgt_log("port %u (%s): ANA group %u %s", p->portid, name,
			cmd->grp, nvme_ana_state_name(cmd->state));
		fprintf(out, "ok\n");
		return 0;
	case TGT_CTL_PORT_DOWN:
		if (atomic_load(&p->down)) {
			snprintf(err, errlen,
				 "port-down: port %u (%s) is down "
				 "already",
				 p->portid, name);
			return -1;
		}
		atomic_store(&p->down, true);
		atomic_fetch_add(&t->disc.genctr, 1);
		ctl_job_post(&job);
		tgt_log("port %u (%s): down, %u connections closed", p->portid,
			name, job.closed);
		fprintf(out, "ok\nport %u %s down: %u connections closed\n",
			p->portid, name, job.closed);
		return 0;
	case TGT_CTL_PORT_UP:
		if (!atomic_load(&p->down)) {
			snprintf(err, errlen, "port-up: port %u (%s) is up",
				 p->portid, name);
			return -1;
		}
		job.listen_fd = tgt_transport_ops(p->trtype)->port_open(p);
		if (job.listen_fd < 0) {
			snprintf(err, errlen,
				 "port-up: cannot listen on %s: %s", name,
				 strerror(errno));
			return -1;
		}
		/* reactor 0 takes the listener; every reactor tells its
		 * discovery controllers (the port is back in the log) */
		atomic_store(&p->down, false);
		atomic_fetch_add(&t->disc.genctr, 1);
		ctl_job_post(&job);
		tgt_log("port %u (%s): up", p->portid, name);
		fprintf(out, "ok\nport %u %s up\n", p->portid, name);
		return 0;
	case TGT_CTL_STATS:
		break;
	}
	snprintf(err, errlen, "internal: unhandled command");
	return -1;
}

/* One control connection: a line in, the answer out, closed. A client
 * that sends nothing for a second is dropped: the main thread serves the
 * signals too. */
static void ctl_serve(struct tgt *t, int listen_fd)
{
	char line[TGT_CTL_LINE_MAX], err[256];
	struct tgt_ctl_cmd cmd;
	size_t len = 0;
	bool got_line = false;
	FILE *f;
	int c;

	c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	while (len < sizeof(line)) {
		struct pollfd pfd = { .fd = c, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 1000) <= 0)
			break;
		n = read(c, line + len, sizeof(line) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (memchr(line, '\n', len)) {
			got_line = true;
			len = (size_t)((char *)memchr(line, '\n', len) - line);
			break;
		}
	}
	f = fdopen(c, "w");
	if (!f) {
		close(c);
		return;
	}
	if (!got_line && len == sizeof(line))
		fprintf(f, "error: command longer than %u bytes\n",
			TGT_CTL_LINE_MAX - 1);
	else if (tgt_ctl_parse(line, len, &cmd, err, sizeof(err)) ||
		 ctl_exec(t, &cmd, f, err, sizeof(err)))
		fprintf(f, "error: %s\n", err);
	fclose(f);
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

static int ns_open(struct tgt *t, struct tgt_subsys *s, struct tgt_ns *ns)
{
	struct mqblk_dev_opts o;
	char err[256];
	int ret;

	mqblk_dev_opts_init(&o);
	o.nr_queues = nr_reactors;
	o.comp_policy = MQBLK_COMP_POLLED;
	o.flags = (ns->readonly ? 0 : MQBLK_OPEN_WRITE) | MQBLK_OPEN_DIRECT;
	ret = mqblk_dev_open(ns->uri, &o, &ns->dev, err, sizeof(err));
	if (ret == -EINVAL && strstr(err, "O_DIRECT")) {
		/* a filesystem without O_DIRECT (tmpfs): through the page
		 * cache; Flush (fdatasync) makes it durable */
		o.flags &= ~MQBLK_OPEN_DIRECT;
		ret = mqblk_dev_open(ns->uri, &o, &ns->dev, err, sizeof(err));
	}
	if (ret) {
		tgt_log("%s namespace %u: %s", s->nqn, ns->nsid, err);
		return -1;
	}
	ns->size = mqblk_dev_size(ns->dev);
	/* log2 of the block size (a power of two) */
	ns->lba_shift =
		31 - (unsigned)__builtin_clz(mqblk_dev_block_size(ns->dev) | 1);
	if (ns->lba_shift < 9)
		ns->lba_shift = 9;
	ns->size &= ~(((uint64_t)1 << ns->lba_shift) - 1);
	ns->vwc = strcmp(mqblk_dev_driver_name(ns->dev), "null") != 0;
	ns->q = calloc(nr_reactors, sizeof(*ns->q));
	if (!ns->q)
		return -1;
	if (t->verbose)
		tgt_log("%s namespace %u: %s, %llu bytes, %u-byte blocks%s",
			s->nqn, ns->nsid, ns->uri, (unsigned long long)ns->size,
			1u << ns->lba_shift,
			(o.flags & MQBLK_OPEN_DIRECT) ? "" : ", buffered");
	return 0;
}

static void ns_close_all(struct tgt *t)
{
	unsigned i, j;

	for (i = 0; i < t->nr_subsys; i++) {
		struct tgt_subsys *s = t->subsys[i];

		for (j = 0; j < s->nr_ns; j++) {
			if (s->ns[j].dev)
				mqblk_dev_close(s->ns[j].dev);
			s->ns[j].dev = NULL;
			free(s->ns[j].q);
			s->ns[j].q = NULL;
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

	for (c = 0; c < TGT_BUF_CLASSES; c++)
		r->bufs[c] = NULL;
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

int tgt_run(struct tgt *t)
{
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t sigs;
	int sfd = -1, stats_fd = -1, ctl_fd = -1, status = 1;
	unsigned i, j, started = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	nr_reactors = t->nr_reactors ? t->nr_reactors :
				       (ncpu > 0 ? (unsigned)ncpu : 1);
	/* before any thread exists (devices start the core's): SIGINT and
	 * SIGTERM are read from the signalfd, by this thread only */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	sigdelset(&sigs, SIGPIPE);
	for (i = 0; i < t->nr_subsys; i++)
		for (j = 0; j < t->subsys[i]->nr_ns; j++)
			if (t->subsys[i]->ns[j].enabled &&
			    ns_open(t, t->subsys[i], &t->subsys[i]->ns[j]))
				goto out_ns;
	for (i = 0; i < t->nr_ports; i++)
		if (port_listen(&t->ports[i]))
			goto out_ports;

	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0)
		goto out_ports;
	if (t->ctl_path) {
		/* asked for explicitly: no target without it */
		ctl_fd = unix_listen(t->ctl_path, "control", "--ctl");
		if (ctl_fd < 0)
			goto out_ports;
	}

	reactors = calloc(nr_reactors, sizeof(*reactors));
	rpriv = calloc(nr_reactors, sizeof(*rpriv));
	if (!reactors || !rpriv)
		goto out_ports;
	for (i = 0; i < nr_reactors; i++)
		if (reactor_init(&reactors[i], t, i))
			goto out_reactors;
	for (i = 0; i < t->nr_ports; i++) {
		ev.data.ptr = &t->ports[i];
		if (epoll_ctl(reactors[0].epfd, EPOLL_CTL_ADD,
			      t->ports[i].listen_fd, &ev))
			goto out_reactors;
	}
	for (started = 0; started < nr_reactors; started++)
		if (pthread_create(&reactors[started].thread, NULL,
				   reactor_main, &reactors[started]))
			goto out_stop;
	if (t->stats_path)
		stats_fd =
			unix_listen(t->stats_path, "stats", "--stats-socket");

	for (i = 0; i < t->nr_ports; i++) {
		struct tgt_port *p = &t->ports[i];

		if (p->discovery_only) {
			tgt_log("listening on %s:%s (discovery)", p->traddr,
				p->trsvcid);
			continue;
		}
		for (j = 0; j < p->nr_subsys; j++)
			tgt_log("listening on %s:%s: %s (%u namespaces)",
				p->traddr, p->trsvcid, p->subsys[j]->nqn,
				p->subsys[j]->nr_ns);
	}
	tgt_log("ready: %u reactors%s%s%s%s", nr_reactors,
		stats_fd >= 0 ? ", stats on " : "",
		stats_fd >= 0 ? t->stats_path : "",
		ctl_fd >= 0 ? ", control on " : "",
		ctl_fd >= 0 ? t->ctl_path : "");

	for (;;) {
		struct pollfd pfd[3] = { { .fd = sfd, .events = POLLIN },
					 { .fd = stats_fd, .events = POLLIN },
					 { .fd = ctl_fd, .events = POLLIN } };
		int n = poll(pfd, 3, -1);

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (pfd[0].revents & POLLIN)) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				tgt_log("%s: shutting down",
					strsignal((int)si.ssi_signo));
				break;
			}
		}
		if (n > 0 && stats_fd >= 0 && (pfd[1].revents & POLLIN)) {
			int c = accept4(stats_fd, NULL, NULL, SOCK_CLOEXEC);

			if (c >= 0) {
				FILE *f = fdopen(c, "w");

				if (f) {
					stats_dump(t, f);
					fclose(f);
				} else {
					close(c);
				}
			}
		}
		if (n > 0 && ctl_fd >= 0 && (pfd[2].revents & POLLIN))
			ctl_serve(t, ctl_fd);
	}
	status = 0;
out_stop:
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
	if (!status)
		tgt_log("stopped: every connection closed, caches flushed");
	else if (started)
		tgt_log("stopped with I/O still outstanding at a device");
out_reactors:
	for (i = 0; reactors && i < nr_reactors; i++)
		reactor_fini(&reactors[i]);
	free(reactors);
	free(rpriv);
	reactors = NULL;
	rpriv = NULL;
	if (stats_fd >= 0) {
		close(stats_fd);
		unlink(t->stats_path);
	}
out_ports:
	if (sfd >= 0)
		close(sfd);
	if (ctl_fd >= 0) {
		close(ctl_fd);
		unlink(t->ctl_path);
	}
	for (i = 0; i < t->nr_ports; i++) {
		if (t->ports[i].listen_fd >= 0)
			tgt_transport_ops(t->ports[i].trtype)
				->port_close(&t->ports[i],
					     t->ports[i].listen_fd);
		t->ports[i].listen_fd = -1;
	}
out_ns:
	ns_close_all(t);
	return status;
}

/* `mqblk target --stats PATH`: print a running target's queue table. */
int tgt_stats_client(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096];
	ssize_t n;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr,
			"mqblk target: stats socket path too long: %s\n", path);
		return 1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "mqblk target: stats socket %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			break;
	close(fd);
	return 0;
}

/* ---- One reactor on the caller's thread (tests, fuzzers) ---------------- */

struct tgt_reactor *tgt_local_start(struct tgt *t)
{
	unsigned i, j;

	if (reactors)
		return NULL;
	nr_reactors = 1;
	for (i = 0; i < t->nr_subsys; i++)
		for (j = 0; j < t->subsys[i]->nr_ns; j++)
			if (t->subsys[i]->ns[j].enabled &&
			    ns_open(t, t->subsys[i], &t->subsys[i]->ns[j]))
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
