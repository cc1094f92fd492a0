// SPDX-License-Identifier: MIT
/*
 * The reactors' device queues (each reactor its own software queue on
 * every namespace's device) and namespaces: opened at start or by the
 * control socket, flushed and closed when a reactor ends or a namespace
 * is removed while running.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mqblk/mqblk.h"
#include "reactor.h"
#include "reactor_int.h"

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

static void devq_close(struct tgt_reactor *r, struct tgt_devq *d);

/* Before a reactor ends: every namespace it wrote through gets its
 * cache flushed, then its device queues close. */
void reactor_close_devices(struct tgt_reactor *r)
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

void reactor_stuck_keep(void *p)
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
void reactor_retire_pass(struct tgt_reactor *r)
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

	/* the reactors parked: each one's reactor_retire_pass writes nr_retiring
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

/* ---- Namespaces' devices ------------------------------------------------- */

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
int reactor_ns_open_all(struct tgt *t)
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

void reactor_ns_close_all(struct tgt *t)
{
	unsigned i, j;

	for (i = 0; i < t->nr_subsys; i++) {
		struct tgt_subsys *s = t->subsys[i];

		for (j = 0; j < s->nr_ns; j++) {
			/* a device devq_close left stuck is kept, not closed */
			if (s->ns[j]->dev && atomic_load(&s->ns[j]->stuck))
				reactor_stuck_keep(s->ns[j]->dev);
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
