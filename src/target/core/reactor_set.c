// SPDX-License-Identifier: MIT
/*
 * The target's threads. A fixed set of reactors (one per CPU the process
 * may use by default, each pinned to its CPU) owns every connection:
 * reactor 0 also accepts and hands each new connection to the next
 * reactor in turn (reactor_ctl.c). Each reactor has its own software
 * queue on every namespace's device (reactor_dev.c) and its own buffer
 * pool (reactor_buf.c), so no lock is shared across queues; its thread
 * runs reactor_step (reactor.c) until it is stopped.
 *
 * The main thread (run.c) waits for SIGINT/SIGTERM and serves the control
 * sockets (--metrics has a thread of its own); a control command that
 * touches queues is a job every reactor runs at its next inbox read
 * (reactor_ctl.c). Here: the set made, started, stopped and freed for
 * run.c, or one reactor on the caller's thread for tests and fuzzers.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "mqblk/mqblk.h"
#include "reactor.h"
#include "reactor_int.h"
#include "target/internal.h"

struct tgt_reactor *reactors;
struct reactor_priv *rpriv;
unsigned nr_reactors;

/* The CPUs the process may run on when the reactors were set up
 * (taskset, a container's cpuset): one reactor per CPU of them by
 * default, reactor i pinned to the i-th of them. */
static cpu_set_t cpus_allowed;
static unsigned nr_cpus_allowed;

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
	/* a nap between polls of a slow device (TGT_DEV_NAP_NS) ends when
	 * asked, not up to the default 50 us later */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
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
			reactor_drain_inbox(r);
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
	reactor_close_devices(r);
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

static int reactor_init(struct tgt_reactor *r, struct tgt *t, unsigned idx)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = r };

	r->t = t;
	r->idx = idx;
	pthread_mutex_init(&r->lock, NULL);
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	r->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->epfd >= 0 && r->wake_fd >= 0 &&
	    !epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->wake_fd, &ev))
		return 0;
	/* undone here: reactor_fini is for a reactor that was made */
	if (r->epfd >= 0)
		close(r->epfd);
	if (r->wake_fd >= 0)
		close(r->wake_fd);
	r->epfd = r->wake_fd = -1;
	pthread_mutex_destroy(&r->lock);
	return -1;
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
		reactor_stuck_keep(r->slabs[--r->nr_slabs]);
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
	close(r->epfd);
	close(r->wake_fd);
	r->epfd = r->wake_fd = -1;
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
	if (reactor_ns_open_all(t))
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
	/* the made ones (calloc's 0 is one not tried; -1 one undone) */
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
	reactor_ns_close_all(t);
	return status;
}

/* ---- One reactor on the caller's thread (tests, fuzzers) ---------------- */

struct tgt_reactor *tgt_local_start(struct tgt *t)
{
	if (reactors)
		return NULL;
	nr_reactors = 1;
	if (reactor_ns_open_all(t))
		goto fail;
	reactors = calloc(1, sizeof(*reactors));
	rpriv = calloc(1, sizeof(*rpriv));
	if (!reactors || !rpriv || reactor_init(&reactors[0], t, 0))
		goto fail;
	reactors[0].next_tick_ns = mqblk_clock_ns() + TGT_TICK_MS * 1000000ull;
	return &reactors[0];
fail:
	free(reactors);
	free(rpriv);
	reactors = NULL;
	rpriv = NULL;
	reactor_ns_close_all(t);
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
	reactor_close_devices(r);
	reactor_fini(r);
	free(reactors);
	free(rpriv);
	reactors = NULL;
	rpriv = NULL;
	reactor_ns_close_all(t);
}
