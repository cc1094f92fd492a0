// SPDX-License-Identifier: MIT
/*
 * Splitting a READ/WRITE larger than the device's max_hw_bytes into pieces
 * it takes (blk-merge's bio split to the queue limits), and joining their
 * completions back into the one request the submitter sees.
 *
 * The submitted request (the parent) carries one piece itself; the others
 * are requests of their own, on tags of the same software queue, got
 * without waiting. When there is no tag to be had the parent (and every
 * piece request) carries the next piece once its current one completes:
 * the split goes on one piece at a time on tags it already holds, so it
 * always progresses, even when the submitter holds every other tag (the
 * kernel allocates the pieces one after another for the same reason).
 *
 * Everything here runs on the queue's owner thread: pieces are issued at
 * submit time and again as their completions are collected (mqblk_reap,
 * or a tag wait), where the owner also returns their tags. So the split
 * state needs no atomics, and a piece's completion reaches the owner the
 * way any completion does (local, remote, batched, polled, irq).
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>

#include "core.h"

static inline struct split_rq *rq_split(const struct mqblk_rq *rq)
{
	return &rq->hctx->tags->split[rq->tag];
}

/* Point r at the parent's next piece and count it in flight. */
static void piece_next(struct mqblk_queue *q, struct mqblk_rq *parent,
		       struct mqblk_rq *r)
{
	struct split_rq *ps = rq_split(parent);
	uint32_t left = ps->len - ps->next;
	uint32_t n = left < q->split_max ? left : q->split_max;

	r->offset = ps->offset + ps->next;
	r->buf = (char *)ps->buf + ps->next;
	r->len = n;
	r->next = NULL;
	ps->next += n;
	ps->pending++;
	q->st.split_pieces++;
}

/* A new incarnation of a request that carried a piece: drivers tell
 * incarnations apart by gen (command ids), and a timeout handler may still
 * be looking at the old one (as mqblk_rq_put waits for). */
static void piece_reuse(struct mqblk_rq *r)
{
	struct mqblk_tags *t = r->hctx->tags;

	while (__builtin_expect(atomic_load_explicit(&t->timing_out[r->tag],
						     memory_order_acquire),
				0))
		sched_yield();
	atomic_store_explicit(&r->state, RQ_IDLE, memory_order_relaxed);
	r->gen++;
	r->res = 0;
	r->nvme_status = 0;
	r->core_flags &= (uint8_t)~RQF_MERGED;
}

void split_start(struct mqblk_queue *q, struct mqblk_rq *rq,
		 struct rq_list *list)
{
	struct split_rq *ps = rq_split(rq);

	ps->parent = rq;
	ps->offset = rq->offset;
	ps->buf = rq->buf;
	ps->len = rq->len;
	ps->next = 0;
	ps->pending = 0;
	ps->err = 0;
	ps->status = 0;
	rq->core_flags |= RQF_SPLIT;
	q->nr_split++;
	q->st.splits++;
	rq_list_init(list);
	/* the pieces before the last on requests of their own while tags
	 * are free; the parent takes the last, or the next one when none */
	while (ps->len - ps->next > q->split_max) {
		struct mqblk_rq *c = queue_rq_get_nowait(q);

		if (!c)
			break;
		c->op = rq->op;
		c->flags = rq->flags;
		c->private = NULL;
		c->core_flags |= RQF_SPLIT;
		rq_split(c)->parent = rq;
		q->split_held++;
		piece_next(q, rq, c);
		rq_list_add_tail(list, c);
	}
	if (ps->len - ps->next > q->split_max)
		q->st.split_serial++;
	piece_next(q, rq, rq);
	rq_list_add_tail(list, rq);
}

/* The submitter's view again: its fields as it submitted them, the
 * first error of any piece, or all the bytes. */
static void split_finish(struct mqblk_rq *parent)
{
	struct split_rq *ps = rq_split(parent);

	parent->offset = ps->offset;
	parent->buf = ps->buf;
	parent->len = ps->len;
	parent->res = ps->err ? ps->err : (int)ps->len;
	parent->nvme_status = ps->status;
	parent->core_flags &= (uint8_t)~RQF_SPLIT;
}

struct mqblk_rq *split_piece_done(struct mqblk_queue *q, struct mqblk_rq *r)
{
	struct mqblk_rq *parent = rq_split(r)->parent;
	struct split_rq *ps = rq_split(parent);
	int res = r->res;

	ps->pending--;
	if (!ps->err && (res < 0 || (uint32_t)res != r->len)) {
		/* the first error wins, as bio_chain_endio keeps it; a
		 * short transfer is one too (the submitter asked for all) */
		ps->err = res < 0 ? res : -EIO;
		ps->status = r->nvme_status;
	}
	if (!ps->err && ps->next < ps->len) {
		/* more to do: this request carries the next piece */
		piece_reuse(r);
		piece_next(q, parent, r);
		rq_list_add_tail(&q->split_next, r);
		return NULL;
	}
	if (r != parent) {
		/* a piece request of ours: its tag goes back now */
		q->split_held--;
		r->core_flags = 0;
		mqblk_rq_put(r);
	}
	if (ps->pending)
		return NULL;
	/* the parent's own piece was its last to complete, or it waited
	 * for the others: either way its comp_path is that of a piece */
	if (r != parent)
		parent->comp_path = r->comp_path;
	split_finish(parent);
	q->nr_split--;
	return parent;
}

/*
 * Collect the pieces q->done holds (its own and handed-over ones), issue
 * what they make ready, and leave every other completion, and parents
 * that became whole, on q->done in order. For a thread waiting for a tag
 * that only a piece's completion can free.
 */
void split_collect(struct mqblk_queue *q)
{
	struct rq_list keep;
	struct mqblk_rq *r, *chain = rq_llist_del_all(&q->remote);

	if (chain)
		rq_list_splice_chain(&q->done, rq_chain_reverse(chain));
	rq_list_init(&keep);
	while ((r = rq_list_pop(&q->done))) {
		if (r->core_flags & RQF_SPLIT) {
			r = split_piece_done(q, r);
			if (!r)
				continue;
		}
		rq_list_add_tail(&keep, r);
	}
	q->done = keep;
	if (!q->done.head)
		rq_list_init(&q->done);
	queue_issue_pieces(q);
}
