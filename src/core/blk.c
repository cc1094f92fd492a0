// SPDX-License-Identifier: MIT
/*
 * The block core's request path: tag allocation, plugging, dispatch to
 * the hardware queue with BUSY requeue, and reap. Everything a request
 * passes through per I/O is here, so that it inlines within one file.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "clock.h"
#include "core.h"

/* the kernel's BLK_MAX_REQUEST_COUNT: flush a plug this long */
#define PLUG_MAX 32

/* ---- tags ---- */

static struct mqblk_rq *rq_init(struct mqblk_queue *q, int tag)
{
	struct mqblk_rq *rq = tags_rq(q->tags, (unsigned)tag);

	rq->q = q;
	/* the timeout thread reads it to tell devices of a shared tagset
	 * apart, racing a re-init of a request it just saw in flight */
	__atomic_store_n(&rq->hctx, q->hctx, __ATOMIC_RELAXED);
	rq->gen++;
	rq->flags = 0;
	rq->core_flags = 0;
	rq->res = 0;
	rq->nvme_status = 0;
	rq->next = NULL;
	q->held++;
	return rq;
}

/* One step of waiting for something to happen on q: completions to
 * collect, a tag wake-up, or the timeout. Policy decides sleep vs poll. */
static void queue_wait_step(struct mqblk_queue *q, int64_t timeout_ns);

/* Wait for a tag wake-up (or 1 ms). Polled queues keep polling: the tag
 * they wait for may be theirs to complete. */
static void queue_wait_tag(struct mqblk_queue *q)
{
	if (q->policy == MQBLK_COMP_POLLED || q->epfd >= 0) {
		queue_wait_step(q, 1000 * 1000);
		return;
	}
	if (q->policy == MQBLK_COMP_LOCAL && q->hctx->irq_fd < 0)
		core_poll_hctx(q->hctx, q, MQBLK_PATH_LOCAL, q->hctx->depth);
	queue_sleep(q, 1);
}

struct mqblk_rq *mqblk_rq_get(struct mqblk_queue *q, unsigned flags)
{
	struct sbitmap_queue *sbq = &q->tags->sbq;
	uint64_t t0 = 0;
	unsigned ws_idx;
	int tag;

	/* holding every tag ourselves: no need to scan a full map (a
	 * submitter deeper than the tag set hits this on every refill) */
	if (__builtin_expect(q->held < q->tags->depth, 1)) {
		tag = sbitmap_queue_get(sbq, &q->tag_hint);
		if (__builtin_expect(tag >= 0, 1))
			return rq_init(q, tag);
	}
	if (flags & MQBLK_RQ_NOWAIT) {
		q->st.tag_nowait_fails++;
		return NULL;
	}
	for (;;) {
		/* every tag is ours: only our own put can free one (a
		 * completion does not), so waiting would never end, even
		 * with requests in flight; the caller must reap and put.
		 * Pieces of split requests are the exception: the core
		 * puts them as it collects their completions. */
		if (q->held >= q->tags->depth && !q->split_held) {
			tag = -1;
			break;
		}
		if (q->split_held)
			split_collect(q);
		sbitmap_queue_prepare_wait(sbq, &q->waiter, &ws_idx);
		tag = sbitmap_queue_get(sbq, &q->tag_hint);
		if (tag < 0) {
			/* a real wait: counted once per call */
			if (!t0)
				t0 = clock_now_ns();
			queue_wait_tag(q);
		}
		sbitmap_queue_finish_wait(sbq, &q->waiter, ws_idx);
		if (tag < 0)
			tag = sbitmap_queue_get(sbq, &q->tag_hint);
		if (tag >= 0)
			break;
	}
	if (t0) {
		q->st.tag_waits++;
		q->st.tag_wait_ns += clock_now_ns() - t0;
	}
	return tag >= 0 ? rq_init(q, tag) : NULL;
}

/* A tag for a piece of a split request, if one is free now. */
struct mqblk_rq *queue_rq_get_nowait(struct mqblk_queue *q)
{
	int tag;

	if (q->held >= q->tags->depth)
		return NULL;
	tag = sbitmap_queue_get(&q->tags->sbq, &q->tag_hint);
	return tag >= 0 ? rq_init(q, tag) : NULL;
}

void mqblk_rq_put(struct mqblk_rq *rq)
{
	struct mqblk_queue *q = rq->q;
	struct mqblk_tags *t = q->tags;

	/* a timeout handler may still be looking at this request */
	while (__builtin_expect(atomic_load_explicit(&t->timing_out[rq->tag],
						     memory_order_acquire),
				0))
		sched_yield();
	atomic_store_explicit(&rq->state, RQ_IDLE, memory_order_relaxed);
	q->held--;
	sbitmap_queue_put(&t->sbq, rq->tag, &q->tag_hint);
}

/* ---- dispatch ---- */

static inline void hctx_unlock(struct mqblk_hctx *h)
{
	if (h->need_lock)
		pthread_mutex_unlock(&h->lock);
}

/* The dispatch lock of a scheduler/one-at-a-time run, counted: a
 * trylock first, so a contended acquisition shows. */
void hctx_lock_counted(struct mqblk_hctx *h, struct mqblk_queue *q)
{
	q->st.dispatch_locks++;
	if (pthread_mutex_trylock(&h->lock)) {
		q->st.dispatch_lock_contended++;
		pthread_mutex_lock(&h->lock);
	}
}

/* Append list to h's BUSY list. Lock held. */
void hctx_busy_add(struct mqblk_hctx *h, struct rq_list *list)
{
	*h->dispatch.tailp = list->head;
	h->dispatch.tailp = list->tailp;
	h->dispatch.nr += list->nr;
	atomic_store(&h->dispatch_nr, h->dispatch.nr);
	rq_list_init(list);
}

/*
 * Fair share of a host-wide tag set (the kernel's hctx_may_queue): the
 * hw queues with requests in flight, of this device or of every device
 * on a shared tagset, split the depth.
 */
bool hctx_may_queue(struct mqblk_hctx *h)
{
	unsigned users, share;

	if (!h->dev->shared_tags ||
	    atomic_load_explicit(&h->tags->nr_hctx, memory_order_relaxed) <= 1)
		return true;
	if (!h->active) {
		h->active = true;
		atomic_fetch_add(&h->tags->active_queues, 1);
	}
	users = atomic_load_explicit(&h->tags->active_queues,
				     memory_order_relaxed);
	share = (h->tags->depth + users - 1) / (users ? users : 1);
	if (share < 4)
		share = 4;
	return atomic_load_explicit(&h->nr_active, memory_order_relaxed) <
	       share;
}

static inline void rq_start(struct mqblk_dev *dev, struct mqblk_rq *rq)
{
	/* read by the timeout thread: a relaxed atomic (READ_ONCE's role) */
	__atomic_store_n(&rq->deadline_ns,
			 atomic_load_explicit(&dev->jiffies_ns,
					      memory_order_relaxed) +
				 dev->timeout_ns,
			 __ATOMIC_RELAXED);
	atomic_store_explicit(&rq->state, RQ_IN_FLIGHT, memory_order_release);
	if (dev->shared_tags)
		atomic_fetch_add_explicit(&rq->hctx->nr_active, 1,
					  memory_order_relaxed);
}

int mqblk_queue_fail_held(struct mqblk_queue *q, int res)
{
	struct mqblk_hctx *h = q->hctx;
	struct rq_list list;
	struct mqblk_rq *rq;
	unsigned n = 0;

	if (res >= 0)
		return -EINVAL;
	if (!h->dev->ops->fail_held || !h->dev->ops->fail_held(h, res, &n))
		return (int)n;
	/* what the driver refused as busy meanwhile waits on h's busy
	 * list (any submitter's: they wait for the same connection) */
	pthread_mutex_lock(&h->lock);
	list = h->dispatch;
	if (!list.head)
		list.tailp = &list.head;
	rq_list_init(&h->dispatch);
	atomic_store_explicit(&h->dispatch_nr, 0, memory_order_relaxed);
	pthread_mutex_unlock(&h->lock);
	while ((rq = rq_list_pop(&list))) {
		/* idle since the driver refused it: in flight again for
		 * the one completion it gets */
		rq_start(h->dev, rq);
		if (mqblk_complete_rq(rq, res, 0))
			n++;
	}
	return (int)n;
}

/* Returns false when the driver said BUSY (rq is back in IDLE). */
bool issue_one(struct mqblk_hctx *h, struct mqblk_rq *rq, bool last,
	       struct mqblk_queue *q)
{
	struct mqblk_dev *dev = h->dev;
	enum mqblk_status sts;

	rq_start(dev, rq);
	sts = dev->ops->queue_rq(h, rq, last);
	q->st.doorbells += last;
	if (__builtin_expect(sts == MQBLK_STS_OK, 1)) {
		q->st.dispatched++;
		return true;
	}
	if (sts == MQBLK_STS_BUSY) {
		atomic_store_explicit(&rq->state, RQ_IDLE,
				      memory_order_relaxed);
		if (dev->shared_tags)
			atomic_fetch_sub(&h->nr_active, 1);
		q->st.requeues++;
		return false;
	}
	mqblk_complete_rq(rq, -EIO, 0);
	return true;
}

/*
 * Issue a chain (rq->next linked, n long) to h. Whatever the driver
 * refuses stays on h->dispatch, in order. Lock held.
 */
void __dispatch_list(struct mqblk_hctx *h, struct rq_list *list,
		     struct mqblk_queue *q)
{
	bool queued_unterminated = false;
	struct mqblk_rq *rq;

	while ((rq = list->head)) {
		bool last = rq->next == NULL;

		if (!hctx_may_queue(h))
			break;
		rq_list_pop(list);
		if (!issue_one(h, rq, last, q)) {
			/* put it back at the head, keep the order */
			rq->next = list->head;
			list->head = rq;
			if (!rq->next)
				list->tailp = &rq->next;
			list->nr++;
			break;
		}
		queued_unterminated = !last;
	}
	if (queued_unterminated && h->dev->ops->commit_rqs) {
		h->dev->ops->commit_rqs(h);
		q->st.doorbells++;
	}
}

void hctx_run_dispatch(struct mqblk_hctx *h, struct mqblk_queue *q)
{
	struct rq_list list;

	if (h->dev->sched != IOSCHED_NONE ||
	    h->dev->dispatch != DISPATCH_BATCH) {
		if (atomic_load_explicit(&h->dispatch_nr,
					 memory_order_relaxed) ||
		    atomic_load_explicit(&h->queued, memory_order_relaxed))
			sched_run(h, q);
		return;
	}
	if (!atomic_load_explicit(&h->dispatch_nr, memory_order_relaxed))
		return;
	/* taken even with one submitter: it is rare, and it keeps the
	 * list consistent with queue_issue_list() appending to it */
	pthread_mutex_lock(&h->lock);
	list = h->dispatch;
	if (!list.head)
		list.tailp = &list.head;
	rq_list_init(&h->dispatch);
	__dispatch_list(h, &list, q);
	h->dispatch = list;
	if (!h->dispatch.head)
		rq_list_init(&h->dispatch);
	atomic_store_explicit(&h->dispatch_nr, h->dispatch.nr,
			      memory_order_relaxed);
	pthread_mutex_unlock(&h->lock);
}

/* Put list at the end of h's dispatch list (the requests the driver
 * had no room for, or that must wait behind those); list is emptied. */
static void dispatch_append(struct mqblk_hctx *h, struct rq_list *list)
{
	pthread_mutex_lock(&h->lock);
	*h->dispatch.tailp = list->head;
	h->dispatch.tailp = list->tailp;
	h->dispatch.nr += list->nr;
	atomic_store(&h->dispatch_nr, h->dispatch.nr);
	pthread_mutex_unlock(&h->lock);
	rq_list_init(list);
}

/* Issue a list of requests of q to its hctx. */
static void queue_issue_list(struct mqblk_queue *q, struct rq_list *list)
{
	struct mqblk_hctx *h = q->hctx;

	if (__builtin_expect(q->dev->sched != IOSCHED_NONE ||
				     q->dev->dispatch != DISPATCH_BATCH,
			     0)) {
		sched_insert_and_run(q, list);
		return;
	}
	if (__builtin_expect(atomic_load_explicit(&h->dispatch_nr,
						  memory_order_relaxed),
			     0)) {
		/* earlier requests are waiting: keep the order */
		dispatch_append(h, list);
		hctx_run_dispatch(h, q);
		return;
	}
	q->st.dispatch_runs++;
	if (h->need_lock)
		hctx_lock_counted(h, q);
	__dispatch_list(h, list, q);
	hctx_unlock(h);
	if (__builtin_expect(list->head != NULL, 0))
		dispatch_append(h, list);
}

static int rq_check(const struct mqblk_dev *dev, const struct mqblk_rq *rq)
{
	uint64_t mask = dev->lim.logical_block_size - 1, cap;

	switch (rq->op) {
	case MQBLK_OP_FLUSH:
		return 0;
	case MQBLK_OP_WRITE:
	case MQBLK_OP_DISCARD:
	case MQBLK_OP_WRITE_ZEROES:
		if (!(dev->open_flags & MQBLK_OPEN_WRITE))
			return -EBADF;
		/* fall through */
	case MQBLK_OP_READ:
		if (!rq->buf &&
		    (rq->op == MQBLK_OP_READ || rq->op == MQBLK_OP_WRITE))
			return -EINVAL;
		if (!rq->len || (rq->offset & mask) || (rq->len & mask))
			return -EINVAL;
		cap = dev_capacity(dev);
		if (rq->offset > cap || rq->len > cap - rq->offset)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

int mqblk_submit(struct mqblk_rq *rq)
{
	struct mqblk_queue *q = rq->q;
	struct rq_list one;
	int ret = rq_check(q->dev, rq);

	if (__builtin_expect(ret != 0, 0))
		return ret;
	q->st.submitted++;
	q->inflight++;
	if (__builtin_expect(rq->len > q->split_max, 0) &&
	    (rq->op == MQBLK_OP_READ || rq->op == MQBLK_OP_WRITE)) {
		struct rq_list pieces;

		split_start(q, rq, &pieces);
		if (!q->plug_depth) {
			queue_issue_list(q, &pieces);
			return 0;
		}
		*q->plug.tailp = pieces.head;
		q->plug.tailp = pieces.tailp;
		q->plug.nr += pieces.nr;
		if (q->plug.nr >= PLUG_MAX) {
			struct rq_list list = q->plug;

			rq_list_init(&q->plug);
			queue_issue_list(q, &list);
		}
		return 0;
	}
	if (q->plug_depth) {
		rq_list_add_tail(&q->plug, rq);
		if (q->plug.nr >= PLUG_MAX) {
			struct rq_list list = q->plug;

			rq_list_init(&q->plug);
			queue_issue_list(q, &list);
		}
		return 0;
	}
	/* issue directly: nothing is queued ahead of it */
	rq->next = NULL;
	one.head = rq;
	one.tailp = &rq->next;
	one.nr = 1;
	queue_issue_list(q, &one);
	return 0;
}

void mqblk_plug(struct mqblk_queue *q)
{
	q->plug_depth++;
}

void mqblk_unplug(struct mqblk_queue *q)
{
	struct rq_list list;

	if (!q->plug_depth || --q->plug_depth)
		return;
	if (!q->plug.head)
		return;
	list = q->plug;
	rq_list_init(&q->plug);
	queue_issue_list(q, &list);
}

/* ---- reap ---- */

/* Move completions handed over by other threads onto the done list. */
static inline void queue_pull_remote(struct mqblk_queue *q)
{
	struct mqblk_rq *chain = rq_llist_del_all(&q->remote);

	if (chain)
		rq_list_splice_chain(&q->done, rq_chain_reverse(chain));
}

/* Pieces that carry on (split.c): issued as their requests come back */
void queue_issue_pieces(struct mqblk_queue *q)
{
	struct rq_list list = q->split_next;

	if (!list.head)
		return;
	rq_list_init(&q->split_next);
	queue_issue_list(q, &list);
}

static inline unsigned queue_collect(struct mqblk_queue *q,
				     struct mqblk_rq **out, unsigned max)
{
	unsigned n = 0;

	if (q->done.nr < max)
		queue_pull_remote(q);
	for (;;) {
		while (n < max) {
			struct mqblk_rq *rq = rq_list_pop(&q->done);

			if (!rq)
				break;
			if (__builtin_expect(rq->core_flags & RQF_SPLIT, 0)) {
				rq = split_piece_done(q, rq);
				if (!rq)
					continue;
			}
			q->st.completions[rq->comp_path]++;
			if (__builtin_expect(rq->res < 0, 0)) {
				q->st.errors++;
				if (rq->res == -ETIMEDOUT)
					q->st.timeouts++;
			}
			out[n++] = rq;
		}
		if (__builtin_expect(q->split_next.head == NULL, 1))
			break;
		/* pieces that carry on; a driver may complete them inline,
		 * and nothing would wake us for those */
		queue_issue_pieces(q);
		if (!q->done.nr || n >= max)
			break;
	}
	q->inflight -= n;
	return n;
}

static void queue_wait_step(struct mqblk_queue *q, int64_t timeout_ns)
{
	struct mqblk_hctx *h = q->hctx;
	int ms;

	bool drv_wait = q->policy == MQBLK_COMP_LOCAL && h->dev->ops->wait &&
			__atomic_load_n(&h->nr_ctx, __ATOMIC_RELAXED) == 1;

	if (q->policy == MQBLK_COMP_POLLED ||
	    (q->policy == MQBLK_COMP_LOCAL && h->irq_fd < 0 && !drv_wait)) {
		/* hipri, or a driver without interrupts: poll the queue */
		if (core_poll_hctx(h, q,
				   q->policy == MQBLK_COMP_POLLED ?
					   MQBLK_PATH_POLLED :
					   MQBLK_PATH_LOCAL,
				   h->depth) == 0) {
			if (!rq_llist_empty(&q->remote))
				return;
			__builtin_ia32_pause();
		}
		return;
	}
	ms = timeout_ns < 0 ? -1 : (int)((timeout_ns + 999999) / 1000000);
	if (drv_wait && q->inflight && rq_llist_empty(&q->remote)) {
		int exp = 0;

		/* LOCAL, sole user of the hw queue: the driver's own wait.
		 * It reads the hw queue's completions as a poll does, and
		 * another queue may have joined the hw queue since nr_ctx
		 * was read (jobs opening one device together): so only as
		 * its poller (h->polling); a thread that comes to poll
		 * meanwhile leaves poll_missed, which the poll after the
		 * wait serves. Someone else polling: wait as below. */
		if (atomic_compare_exchange_strong_explicit(
			    &h->polling, &exp, 1, memory_order_acquire,
			    memory_order_relaxed)) {
			h->dev->ops->wait(h, timeout_ns);
			atomic_store_explicit(&h->polling, 0,
					      memory_order_seq_cst);
			core_poll_hctx(h, q, MQBLK_PATH_LOCAL, h->depth);
			return;
		}
	}
	if (q->epfd >= 0) {
		/* LOCAL: this thread takes its hw queue's interrupt */
		struct epoll_event ev[2];
		int i, n = epoll_wait(q->epfd, ev, 2, ms);

		for (i = 0; i < n; i++) {
			if (ev[i].data.u32 == 1)
				core_poll_hctx_irq(h, q, MQBLK_PATH_LOCAL);
			else
				queue_drain_wake(q);
		}
		return;
	}
	queue_sleep(q, ms);
}

int mqblk_reap(struct mqblk_queue *q, struct mqblk_rq **out, unsigned min,
	       unsigned max, int64_t timeout_ns)
{
	uint64_t end = 0;
	unsigned n;

	if (!max || min > max)
		return -EINVAL;
	n = queue_collect(q, out, max);
	if (n >= min)
		return (int)n;
	if (timeout_ns == 0 && q->policy != MQBLK_COMP_POLLED) {
		/* peek, not polled: take a pending interrupt or wake-up
		 * without sleeping, even with nothing in flight, so the fd
		 * of mqblk_queue_fd() reads empty again */
		hctx_run_dispatch(q->hctx, q);
		queue_wait_step(q, 0);
		return (int)(n + queue_collect(q, out + n, max - n));
	}
	for (;;) {
		int64_t left = timeout_ns;

		hctx_run_dispatch(q->hctx, q);
		if (!q->inflight)
			break; /* nothing left that could complete */
		if (__builtin_expect(q->nr_split != 0, 0) && q->done.nr) {
			/* pieces of a split request issued by the last
			 * collect completed inline: nothing to wait for */
			n += queue_collect(q, out + n, max - n);
			if (n >= min)
				break;
			continue;
		}
		if (timeout_ns > 0) {
			/* counted from the first wait: a reap that finds its
			 * completions reads no clock */
			uint64_t now = clock_now_ns();

			if (!end)
				end = now + (uint64_t)timeout_ns;
			else if (now >= end)
				break;
			left = (int64_t)(end - now);
		} else if (timeout_ns == 0) {
			/* peek: one poll pass for polled queues */
			if (q->policy == MQBLK_COMP_POLLED)
				core_poll_hctx(q->hctx, q, MQBLK_PATH_POLLED,
					       q->hctx->depth);
			n += queue_collect(q, out + n, max - n);
			break;
		}
		queue_wait_step(q, left);
		n += queue_collect(q, out + n, max - n);
		if (n >= min)
			break;
	}
	return (int)n;
}
