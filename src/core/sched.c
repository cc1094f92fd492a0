// SPDX-License-Identifier: MIT
/*
 * I/O schedulers and dispatch from software queues (seed 004): mq-deadline
 * per hardware queue with sequential merges, and the one-at-a-time pull.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "core.h"

/* the kernel's mq-deadline defaults */
#define DD_READ_EXPIRE_MS 500
#define DD_WRITE_EXPIRE_MS 5000
#define DD_WRITES_STARVED 2
#define DD_FIFO_BATCH 16
/*
 * A merged request carries at most this many bytes (max_sectors_kb's
 * role), and never more than the device takes (max_hw_bytes: the core
 * split what was bigger; a merge must not undo that).
 */
#define DD_MAX_MERGE_BYTES (128u << 10)
#define DD_MAX_EXPIRE_MS (3600ull * 1000)

static const char *const sched_names[] = {
	[IOSCHED_NONE] = "none",
	[IOSCHED_DEADLINE] = "mq-deadline",
};

const char *sched_name(enum core_sched s)
{
	return (unsigned)s < 2 ? sched_names[s] : "?";
}

void sched_opts_init(struct core_sched_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->sched = -1;
	so->dispatch = -1;
	so->dd.expire_ns[0] = DD_READ_EXPIRE_MS * 1000000ull;
	so->dd.expire_ns[1] = DD_WRITE_EXPIRE_MS * 1000000ull;
	so->dd.writes_starved = DD_WRITES_STARVED;
	so->dd.fifo_batch = DD_FIFO_BATCH;
	so->dd.front_merges = true;
}

int sched_param(struct mqblk_param *p, struct core_sched_opts *so, char *err,
		size_t errlen)
{
	char pv[96];
	uint64_t v;

	if (!strcmp(p->key, "scheduler")) {
		if (!strcmp(p->val, "none")) {
			so->sched = IOSCHED_NONE;
		} else if (!strcmp(p->val, "mq-deadline")) {
			so->sched = IOSCHED_DEADLINE;
		} else {
			snprintf(
				err, errlen,
				"bad scheduler='%s': expected none or mq-deadline",
				core_printable(p->val, pv, sizeof(pv)));
			return -EINVAL;
		}
	} else if (!strcmp(p->key, "dispatch")) {
		if (!strcmp(p->val, "batch")) {
			so->dispatch = DISPATCH_BATCH;
		} else if (!strcmp(p->val, "one")) {
			so->dispatch = DISPATCH_ONE;
		} else {
			snprintf(err, errlen,
				 "bad dispatch='%s': expected batch or one",
				 core_printable(p->val, pv, sizeof(pv)));
			return -EINVAL;
		}
	} else if (!strcmp(p->key, "read_expire") ||
		   !strcmp(p->key, "write_expire")) {
		/* milliseconds, as the kernel's sysfs files */
		if (mqblk_param_u64(p, 0, DD_MAX_EXPIRE_MS, false, &v, err,
				    errlen))
			return -EINVAL;
		so->dd.expire_ns[p->key[0] == 'w'] = v * 1000000ull;
		so->dd_key = p->key;
	} else if (!strcmp(p->key, "writes_starved")) {
		if (mqblk_param_u64(p, 0, 65536, false, &v, err, errlen))
			return -EINVAL;
		so->dd.writes_starved = (unsigned)v;
		so->dd_key = p->key;
	} else if (!strcmp(p->key, "fifo_batch")) {
		if (mqblk_param_u64(p, 1, 65536, false, &v, err, errlen))
			return -EINVAL;
		so->dd.fifo_batch = (unsigned)v;
		so->dd_key = p->key;
	} else if (!strcmp(p->key, "front_merges")) {
		if (mqblk_param_bool(p, &so->dd.front_merges, err, errlen))
			return -EINVAL;
		so->dd_key = p->key;
	} else {
		return 0;
	}
	p->used = true;
	return 1;
}

void sched_hctx_init(struct mqblk_hctx *h)
{
	pthread_spin_init(&h->sched_lock, PTHREAD_PROCESS_PRIVATE);
	memset(&h->dd, 0, sizeof(h->dd));
	h->dd.last_dir = -1;
	h->ctx_rotor = NULL;
	atomic_init(&h->queued, 0);
}

/* ---- mq-deadline: two sorted lists and two FIFOs per hw queue ---- */

/* Reads one way, everything else (writes, flush, discard) the other. */
static inline int rq_dir(const struct mqblk_rq *rq)
{
	return rq->op == MQBLK_OP_READ ? 0 : 1;
}

static void dd_sort_link(struct dd_queue *dd, struct mqblk_rq *rq,
			 struct mqblk_rq *prev, struct mqblk_rq *next, int dir)
{
	struct sched_rq *s = rq_sched(rq);

	s->sort_prev = prev;
	s->sort_next = next;
	if (prev)
		rq_sched(prev)->sort_next = rq;
	else
		dd->sort_head[dir] = rq;
	if (next)
		rq_sched(next)->sort_prev = rq;
}

static void dd_sort_unlink(struct dd_queue *dd, struct mqblk_rq *rq, int dir)
{
	struct sched_rq *s = rq_sched(rq);

	if (s->sort_prev)
		rq_sched(s->sort_prev)->sort_next = s->sort_next;
	else
		dd->sort_head[dir] = s->sort_next;
	if (s->sort_next)
		rq_sched(s->sort_next)->sort_prev = s->sort_prev;
}

/* Link rq into dir's FIFO before pos (NULL: at the tail). */
static void dd_fifo_link(struct dd_queue *dd, struct mqblk_rq *rq,
			 struct mqblk_rq *pos, int dir)
{
	struct sched_rq *s = rq_sched(rq);
	struct mqblk_rq *prev = pos ? rq_sched(pos)->fifo_prev :
				      dd->fifo_tail[dir];

	s->fifo_prev = prev;
	s->fifo_next = pos;
	if (prev)
		rq_sched(prev)->fifo_next = rq;
	else
		dd->fifo_head[dir] = rq;
	if (pos)
		rq_sched(pos)->fifo_prev = rq;
	else
		dd->fifo_tail[dir] = rq;
}

static void dd_fifo_unlink(struct dd_queue *dd, struct mqblk_rq *rq, int dir)
{
	struct sched_rq *s = rq_sched(rq);

	if (s->fifo_prev)
		rq_sched(s->fifo_prev)->fifo_next = s->fifo_next;
	else
		dd->fifo_head[dir] = s->fifo_next;
	if (s->fifo_next)
		rq_sched(s->fifo_next)->fifo_prev = s->fifo_prev;
	else
		dd->fifo_tail[dir] = s->fifo_prev;
}

/*
 * b may follow a in one request: same op and flags, contiguous on the
 * device AND in memory. A request has one buffer (no iovec in the driver
 * interface), so a merge that would need a scatter list is not made.
 */
static bool rq_mergeable(const struct mqblk_rq *a, const struct mqblk_rq *b)
{
	return a->op == b->op &&
	       (a->op == MQBLK_OP_READ || a->op == MQBLK_OP_WRITE) &&
	       a->flags == b->flags && a->offset + a->len == b->offset &&
	       (const char *)a->buf + a->len == (const char *)b->buf &&
	       (uint64_t)a->len + b->len <= DD_MAX_MERGE_BYTES &&
	       (uint64_t)a->len + b->len <= a->q->split_max;
}

static void rq_make_lead(struct mqblk_rq *rq)
{
	struct sched_rq *s = rq_sched(rq);

	if (rq->core_flags & RQF_MERGED)
		return;
	s->own_len = rq->len;
	s->merged = NULL;
	s->merged_tail = NULL;
	rq->core_flags |= RQF_MERGED;
}

/* Back merge: rq's sectors follow lead's; lead carries rq. */
static void dd_merge_back(struct mqblk_rq *lead, struct mqblk_rq *rq)
{
	struct sched_rq *ls = rq_sched(lead);

	rq_make_lead(lead);
	rq_sched(rq)->merged = NULL;
	if (ls->merged_tail)
		rq_sched(ls->merged_tail)->merged = rq;
	else
		ls->merged = rq;
	ls->merged_tail = rq;
	lead->len += rq->len;
}

/*
 * Front merge: rq's sectors come just before old's. rq becomes the lead
 * (so a lead's own offset and buffer are always the merged ones and only
 * its length needs restoring), taking old's place in the sorted list and
 * the FIFO, with old's (earlier) expiry.
 */
static void dd_merge_front(struct dd_queue *dd, struct mqblk_rq *old,
			   struct mqblk_rq *rq, int dir)
{
	struct sched_rq *os = rq_sched(old), *rs = rq_sched(rq);
	uint32_t ext = old->len;

	rq_make_lead(rq);
	dd_sort_link(dd, rq, os->sort_prev, old, dir);
	dd_sort_unlink(dd, old, dir);
	dd_fifo_link(dd, rq, old, dir);
	dd_fifo_unlink(dd, old, dir);
	rs->expire_ns = os->expire_ns;
	rs->merged = old;
	if (old->core_flags & RQF_MERGED) {
		/* old's chain follows it; old goes back to its own size */
		rs->merged_tail = os->merged_tail;
		old->len = os->own_len;
		old->core_flags &= (uint8_t)~RQF_MERGED;
	} else {
		os->merged = NULL;
		rs->merged_tail = old;
	}
	rq->len += ext;
}

/*
 * b (a request or a lead with its chain) follows a: a carries it all. b
 * leaves the lists; a keeps the earlier expiry and FIFO place (the
 * kernel's dd_merged_requests).
 */
static void dd_merge_reqs(struct mqblk_hctx *h, struct mqblk_rq *a,
			  struct mqblk_rq *b, int dir)
{
	struct dd_queue *dd = &h->dd;
	struct sched_rq *as = rq_sched(a), *bs = rq_sched(b);
	struct mqblk_rq *tail;
	uint32_t ext = b->len;

	if (bs->expire_ns < as->expire_ns) {
		dd_fifo_unlink(dd, a, dir);
		dd_fifo_link(dd, a, b, dir);
		as->expire_ns = bs->expire_ns;
	}
	dd_sort_unlink(dd, b, dir);
	dd_fifo_unlink(dd, b, dir);
	dd->nr[dir]--;
	atomic_fetch_sub_explicit(&h->queued, 1, memory_order_relaxed);
	rq_make_lead(a);
	if (b->core_flags & RQF_MERGED) {
		tail = bs->merged_tail;
		b->len = bs->own_len;
		b->core_flags &= (uint8_t)~RQF_MERGED;
	} else {
		bs->merged = NULL;
		tail = b;
	}
	if (as->merged_tail)
		rq_sched(as->merged_tail)->merged = b;
	else
		as->merged = b;
	as->merged_tail = tail;
	a->len += ext;
}

/*
 * Insert rq, merging it into a neighbour where possible; a merge that
 * closes the gap between two queued requests merges those too. The sorted
 * list is walked: O(queued) per insert, fine at the depths of one hw
 * queue (the kernel's rbtree would make it O(log n)).
 */
static void dd_insert(struct mqblk_hctx *h, struct mqblk_rq *rq,
		      struct mqblk_queue *q, uint64_t now)
{
	struct dd_queue *dd = &h->dd;
	const struct dd_tunables *t = &h->dev->dd;
	int dir = rq_dir(rq);
	struct mqblk_rq *prev = NULL, *cur = dd->sort_head[dir];
	struct sched_rq *s = rq_sched(rq);

	rq->core_flags &= (uint8_t)~RQF_MERGED; /* a split piece stays one */
	while (cur && cur->offset < rq->offset) {
		prev = cur;
		cur = rq_sched(cur)->sort_next;
	}
	if (prev && rq_mergeable(prev, rq)) {
		dd_merge_back(prev, rq);
		q->st.merges++;
		if (cur && rq_mergeable(prev, cur)) {
			dd_merge_reqs(h, prev, cur, dir);
			q->st.merges++;
		}
		return;
	}
	if (cur && t->front_merges && rq_mergeable(rq, cur)) {
		dd_merge_front(dd, cur, rq, dir);
		q->st.merges++;
		prev = rq_sched(rq)->sort_prev;
		if (prev && rq_mergeable(prev, rq)) {
			dd_merge_reqs(h, prev, rq, dir);
			q->st.merges++;
		}
		return;
	}
	dd_sort_link(dd, rq, prev, cur, dir);
	s->expire_ns = now + t->expire_ns[dir];
	dd_fifo_link(dd, rq, NULL, dir);
	dd->nr[dir]++;
	atomic_fetch_add_explicit(&h->queued, 1, memory_order_relaxed);
}

/* The first request of dir at or after the last dispatched position. */
static struct mqblk_rq *dd_next(struct dd_queue *dd, int dir)
{
	struct mqblk_rq *rq = dd->sort_head[dir];

	while (rq && rq->offset < dd->last_pos[dir])
		rq = rq_sched(rq)->sort_next;
	return rq;
}

/*
 * mq-deadline's dispatch decision: continue the batch in sector order
 * up to fifo_batch; else prefer reads unless writes have been passed
 * over writes_starved times; start a batch at the FIFO head if it has
 * expired (counted) or nothing lies ahead, else at the next sector.
 */
static struct mqblk_rq *dd_dispatch(struct mqblk_hctx *h, struct mqblk_queue *q)
{
	struct dd_queue *dd = &h->dd;
	const struct dd_tunables *t = &h->dev->dd;
	struct mqblk_rq *rq, *next;
	int dir;

	if (dd->last_dir >= 0 && dd->batching < t->fifo_batch) {
		dir = dd->last_dir;
		rq = dd_next(dd, dir);
		if (rq)
			goto dispatch;
	}
	if (dd->nr[0]) {
		if (dd->nr[1] && dd->starved++ >= t->writes_starved)
			goto dispatch_writes;
		dir = 0;
		goto find;
	}
	if (dd->nr[1]) {
dispatch_writes:
		dd->starved = 0;
		dir = 1;
		goto find;
	}
	return NULL;
find:
	next = dd_next(dd, dir);
	rq = dd->fifo_head[dir];
	if (clock_now_ns() >= rq_sched(rq)->expire_ns)
		q->st.sched_expired++;
	else if (next)
		rq = next;
	dd->batching = 0;
dispatch:
	dd_sort_unlink(dd, rq, dir);
	dd_fifo_unlink(dd, rq, dir);
	dd->nr[dir]--;
	dd->last_pos[dir] = rq->offset + rq->len;
	dd->last_dir = dir;
	dd->batching++;
	atomic_fetch_sub_explicit(&h->queued, 1, memory_order_relaxed);
	return rq;
}

/* ---- software queues (DISPATCH_ONE without a scheduler) ---- */

void sched_queue_attach(struct mqblk_queue *q)
{
	struct mqblk_hctx *h = q->hctx;

	pthread_spin_init(&q->ctx_lock, PTHREAD_PROCESS_PRIVATE);
	rq_list_init(&q->ctx_list);
	atomic_init(&q->ctx_nr, 0);
	pthread_mutex_lock(&h->lock);
	if (!h->ctx_rotor) {
		q->ctx_next = q;
		h->ctx_rotor = q;
	} else {
		q->ctx_next = h->ctx_rotor->ctx_next;
		h->ctx_rotor->ctx_next = q;
	}
	pthread_mutex_unlock(&h->lock);
}

/* q's list is empty: its requests were all reaped before close. */
void sched_queue_detach(struct mqblk_queue *q)
{
	struct mqblk_hctx *h = q->hctx;
	struct mqblk_queue *p;

	pthread_mutex_lock(&h->lock);
	if (q->ctx_next == q) {
		h->ctx_rotor = NULL;
	} else {
		for (p = q->ctx_next; p->ctx_next != q; p = p->ctx_next)
			;
		p->ctx_next = q->ctx_next;
		if (h->ctx_rotor == q)
			h->ctx_rotor = q->ctx_next;
	}
	pthread_mutex_unlock(&h->lock);
	pthread_spin_destroy(&q->ctx_lock);
}

/*
 * One request from the next software queue that has one, round robin
 * (the kernel's blk_mq_dequeue_from_ctx): each pull takes that queue's
 * lock, the cost seed 004's profile shows in dispatch_rq_from_ctx.
 * hctx lock held.
 */
static struct mqblk_rq *ctx_pull_one(struct mqblk_hctx *h)
{
	struct mqblk_queue *start = h->ctx_rotor, *c = start;

	if (!c)
		return NULL;
	do {
		struct mqblk_queue *n = c->ctx_next;

		if (atomic_load_explicit(&c->ctx_nr, memory_order_relaxed)) {
			struct mqblk_rq *rq;

			pthread_spin_lock(&c->ctx_lock);
			rq = rq_list_pop(&c->ctx_list);
			atomic_store_explicit(&c->ctx_nr, c->ctx_list.nr,
					      memory_order_relaxed);
			pthread_spin_unlock(&c->ctx_lock);
			if (rq) {
				h->ctx_rotor = n;
				atomic_fetch_sub_explicit(&h->queued, 1,
							  memory_order_relaxed);
				return rq;
			}
		}
		c = n;
	} while (c != start);
	return NULL;
}

/* ---- dispatch ---- */

/* Requests the driver refused go first. hctx lock held. False when
 * some still wait there. */
static bool run_busy_list(struct mqblk_hctx *h, struct mqblk_queue *q)
{
	struct rq_list list;

	if (!h->dispatch.head)
		return true;
	list = h->dispatch;
	rq_list_init(&h->dispatch);
	__dispatch_list(h, &list, q);
	if (list.head) {
		hctx_busy_add(h, &list);
		return false;
	}
	atomic_store_explicit(&h->dispatch_nr, 0, memory_order_relaxed);
	return true;
}

void sched_run(struct mqblk_hctx *h, struct mqblk_queue *q)
{
	struct mqblk_dev *dev = h->dev;
	struct mqblk_rq *rq;

	hctx_lock_counted(h, q);
	q->st.dispatch_runs++;
	if (!run_busy_list(h, q))
		goto out;
	if (dev->dispatch == DISPATCH_BATCH) {
		/* a scheduler, batch: all it gives, to the driver as one
		 * list (one doorbell) */
		struct rq_list list;

		rq_list_init(&list);
		pthread_spin_lock(&h->sched_lock);
		while ((rq = dd_dispatch(h, q)))
			rq_list_add_tail(&list, rq);
		pthread_spin_unlock(&h->sched_lock);
		__dispatch_list(h, &list, q);
		if (list.head)
			hctx_busy_add(h, &list);
		goto out;
	}
	/* one at a time while the driver takes them (the kernel's
	 * blk_mq_do_dispatch_sched / _ctx); BUSY: the rest wait */
	while (hctx_may_queue(h)) {
		if (dev->sched == IOSCHED_DEADLINE) {
			pthread_spin_lock(&h->sched_lock);
			rq = dd_dispatch(h, q);
			pthread_spin_unlock(&h->sched_lock);
		} else {
			rq = ctx_pull_one(h);
		}
		if (!rq)
			break;
		if (!issue_one(h, rq, true, q)) {
			struct rq_list one;

			rq_list_init(&one);
			rq_list_add_tail(&one, rq);
			hctx_busy_add(h, &one);
			break;
		}
	}
out:
	pthread_mutex_unlock(&h->lock);
}

void sched_insert_and_run(struct mqblk_queue *q, struct rq_list *list)
{
	struct mqblk_hctx *h = q->hctx;
	struct mqblk_rq *rq;

	if (q->dev->sched == IOSCHED_DEADLINE) {
		uint64_t now = clock_now_ns();

		pthread_spin_lock(&h->sched_lock);
		while ((rq = rq_list_pop(list)))
			dd_insert(h, rq, q, now);
		pthread_spin_unlock(&h->sched_lock);
	} else if (list->head) {
		/* counted first: a puller may take them at once */
		atomic_fetch_add_explicit(&h->queued, list->nr,
					  memory_order_relaxed);
		pthread_spin_lock(&q->ctx_lock);
		*q->ctx_list.tailp = list->head;
		q->ctx_list.tailp = list->tailp;
		q->ctx_list.nr += list->nr;
		atomic_store_explicit(&q->ctx_nr, q->ctx_list.nr,
				      memory_order_relaxed);
		pthread_spin_unlock(&q->ctx_lock);
		rq_list_init(list);
	}
	sched_run(h, q);
}
