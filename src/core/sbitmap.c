// SPDX-License-Identifier: MIT
/*
 * Scalable bitmap: allocation spreads threads over words by their hints,
 * frees go to a per-word cleared mask that the allocator folds back only
 * when a word looks full, so the hot word sees one atomic per get/put.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbitmap.h"

unsigned sbitmap_calc_shift(unsigned depth)
{
	unsigned shift = 6; /* 64 bits per word */

	/* Use fewer bits per word so that at least 4 words share the
	 * load, when the depth is large enough to allow it. */
	while (shift > 0 && (4u << shift) > depth)
		shift--;
	return shift;
}

int sbitmap_init(struct sbitmap *sb, unsigned depth, int shift)
{
	unsigned bits;

	if (depth == 0)
		return -EINVAL;
	if (shift < 0)
		shift = (int)sbitmap_calc_shift(depth);
	if (shift > 6)
		return -EINVAL;
	bits = 1u << shift;
	sb->depth = depth;
	sb->shift = (unsigned)shift;
	sb->map_nr = (depth + bits - 1) / bits;
	sb->map = aligned_alloc(SB_CACHELINE,
				sb->map_nr * sizeof(struct sbitmap_word));
	if (!sb->map)
		return -ENOMEM;
	memset(sb->map, 0, sb->map_nr * sizeof(struct sbitmap_word));
	return 0;
}

void sbitmap_free(struct sbitmap *sb)
{
	free(sb->map);
	sb->map = NULL;
}

static inline unsigned word_depth(const struct sbitmap *sb, unsigned idx)
{
	if (idx == sb->map_nr - 1)
		return sb->depth - (idx << sb->shift);
	return 1u << sb->shift;
}

static inline uint64_t depth_mask(unsigned depth)
{
	return depth >= 64 ? ~0ull : (1ull << depth) - 1;
}

static int word_get(struct sbitmap_word *w, unsigned depth, unsigned hint)
{
	uint64_t full = depth_mask(depth);

	for (;;) {
		uint64_t val =
			atomic_load_explicit(&w->word, memory_order_relaxed);
		uint64_t free_bits = ~val & full;
		uint64_t above;
		unsigned nr;

		if (!free_bits) {
			uint64_t c;

			if (!atomic_load_explicit(&w->cleared,
						  memory_order_relaxed))
				return -1;
			/*
			 * Take the freed bits; keep one for ourselves (its
			 * word bit is still set, so it is already ours) and
			 * fold the rest back. In the steady state of a full
			 * tag set one put is followed by one get, and this is
			 * a single atomic instead of three.
			 */
			c = atomic_exchange_explicit(&w->cleared, 0,
						     memory_order_acquire);
			if (!c)
				continue; /* another getter took them */
			above = c & ~((1ull << hint) - 1);
			nr = (unsigned)__builtin_ctzll(above ? above : c);
			c &= ~(1ull << nr);
			if (c)
				atomic_fetch_and_explicit(&w->word, ~c,
							  memory_order_release);
			return (int)nr;
		}
		/* first free bit at or after the hint, else wrap */
		above = free_bits & ~((1ull << hint) - 1);
		nr = (unsigned)__builtin_ctzll(above ? above : free_bits);
		/* acquire pairs with the release of the free that made the
		 * bit available, so the request's old state is visible */
		if (!(atomic_fetch_or_explicit(&w->word, 1ull << nr,
					       memory_order_acquire) &
		      (1ull << nr)))
			return (int)nr;
	}
}

int sbitmap_get(struct sbitmap *sb, unsigned *hint)
{
	unsigned h = *hint, idx, bit, i;

	if (h >= sb->depth)
		h = 0;
	idx = h >> sb->shift;
	bit = h & ((1u << sb->shift) - 1);
	for (i = 0; i < sb->map_nr; i++) {
		int nr = word_get(&sb->map[idx], word_depth(sb, idx), bit);

		if (nr >= 0) {
			*hint = (idx << sb->shift) + (unsigned)nr;
			return (int)*hint;
		}
		bit = 0;
		if (++idx >= sb->map_nr)
			idx = 0;
	}
	return -1;
}

void sbitmap_put(struct sbitmap *sb, unsigned nr, unsigned *hint)
{
	struct sbitmap_word *w = &sb->map[nr >> sb->shift];

	/* seq_cst (a locked op on x86, no extra fence): releases the
	 * request's state to the next allocator of the tag, and orders the
	 * free before the ws_active load in sbitmap_queue_put() */
	atomic_fetch_or(&w->cleared, 1ull << (nr & ((1u << sb->shift) - 1)));
	*hint = nr;
}

bool sbitmap_test(const struct sbitmap *sb, unsigned nr)
{
	const struct sbitmap_word *w = &sb->map[nr >> sb->shift];
	uint64_t bit = 1ull << (nr & ((1u << sb->shift) - 1));
	uint64_t word = atomic_load(&((struct sbitmap_word *)w)->word);
	uint64_t cleared = atomic_load(&((struct sbitmap_word *)w)->cleared);

	return (word & bit) && !(cleared & bit);
}

unsigned sbitmap_weight(const struct sbitmap *sb)
{
	unsigned i, n = 0;

	for (i = 0; i < sb->map_nr; i++) {
		struct sbitmap_word *w = &sb->map[i];
		uint64_t busy = atomic_load(&w->word) &
				~atomic_load(&w->cleared);

		n += (unsigned)__builtin_popcountll(busy);
	}
	return n;
}

int sbitmap_queue_init(struct sbitmap_queue *sbq, unsigned depth)
{
	int ret, i;

	memset(sbq, 0, sizeof(*sbq));
	ret = sbitmap_init(&sbq->sb, depth, -1);
	if (ret)
		return ret;
	/* wake waiters in batches of depth/8 (1..8), as the kernel does:
	 * enough frees to be worth a wake, never more than are in flight */
	sbq->wake_batch = depth / SBQ_WAIT_QUEUES;
	if (sbq->wake_batch < 1)
		sbq->wake_batch = 1;
	if (sbq->wake_batch > 8)
		sbq->wake_batch = 8;
	for (i = 0; i < SBQ_WAIT_QUEUES; i++) {
		struct sbq_wait_state *ws = &sbq->ws[i];

		atomic_init(&ws->wait_cnt, (int)sbq->wake_batch);
		pthread_mutex_init(&ws->lock, NULL);
		ws->head.next = ws->head.prev = &ws->head;
	}
	return 0;
}

void sbitmap_queue_free(struct sbitmap_queue *sbq)
{
	int i;

	for (i = 0; i < SBQ_WAIT_QUEUES; i++)
		pthread_mutex_destroy(&sbq->ws[i].lock);
	sbitmap_free(&sbq->sb);
}

/* Wake up to n waiters of ws; returns how many. Lock held. */
static unsigned ws_wake_locked(struct sbq_wait_state *ws, unsigned n)
{
	unsigned woken = 0;

	while (woken < n && ws->head.next != &ws->head) {
		struct sbq_waiter *w = ws->head.next;

		w->prev->next = w->next;
		w->next->prev = w->prev;
		w->queued = false;
		ws->nr_waiters--;
		w->wake(w);
		woken++;
	}
	return woken;
}

static void sbq_wake_up(struct sbitmap_queue *sbq)
{
	unsigned i, idx = atomic_load_explicit(&sbq->wake_index,
					       memory_order_relaxed);

	/* find a wait state with waiters, starting at wake_index */
	for (i = 0; i < SBQ_WAIT_QUEUES; i++) {
		struct sbq_wait_state *ws =
			&sbq->ws[(idx + i) % SBQ_WAIT_QUEUES];

		if (!atomic_load_explicit(&ws->nr_waiters,
					  memory_order_relaxed))
			continue;
		if (atomic_fetch_sub(&ws->wait_cnt, 1) > 1)
			return; /* batch not complete yet */
		atomic_store(&ws->wait_cnt, (int)sbq->wake_batch);
		atomic_store(&sbq->wake_index, (idx + i + 1) % SBQ_WAIT_QUEUES);
		pthread_mutex_lock(&ws->lock);
		ws_wake_locked(ws, sbq->wake_batch);
		pthread_mutex_unlock(&ws->lock);
		return;
	}
}

void sbitmap_queue_put(struct sbitmap_queue *sbq, unsigned nr, unsigned *hint)
{
	sbitmap_put(&sbq->sb, nr, hint);
	/* seq_cst load pairs with the seq_cst increment in prepare_wait:
	 * either the waiter sees our clear on its re-try, or we see it */
	if (__builtin_expect(atomic_load(&sbq->ws_active) == 0, 1))
		return;
	sbq_wake_up(sbq);
}

void sbitmap_queue_prepare_wait(struct sbitmap_queue *sbq, struct sbq_waiter *w,
				unsigned *ws_idx)
{
	static _Atomic unsigned rr;
	unsigned idx = atomic_fetch_add_explicit(&rr, 1, memory_order_relaxed) %
		       SBQ_WAIT_QUEUES;
	struct sbq_wait_state *ws = &sbq->ws[idx];

	pthread_mutex_lock(&ws->lock);
	w->next = &ws->head;
	w->prev = ws->head.prev;
	ws->head.prev->next = w;
	ws->head.prev = w;
	w->queued = true;
	ws->nr_waiters++;
	pthread_mutex_unlock(&ws->lock);
	atomic_fetch_add(&sbq->ws_active, 1);
	*ws_idx = idx;
}

void sbitmap_queue_finish_wait(struct sbitmap_queue *sbq, struct sbq_waiter *w,
			       unsigned ws_idx)
{
	struct sbq_wait_state *ws = &sbq->ws[ws_idx];

	pthread_mutex_lock(&ws->lock);
	if (w->queued) {
		w->prev->next = w->next;
		w->next->prev = w->prev;
		w->queued = false;
		ws->nr_waiters--;
	}
	pthread_mutex_unlock(&ws->lock);
	atomic_fetch_sub(&sbq->ws_active, 1);
}

void sbitmap_queue_wake_all(struct sbitmap_queue *sbq)
{
	int i;

	for (i = 0; i < SBQ_WAIT_QUEUES; i++) {
		struct sbq_wait_state *ws = &sbq->ws[i];

		pthread_mutex_lock(&ws->lock);
		ws_wake_locked(ws, ~0u);
		pthread_mutex_unlock(&ws->lock);
	}
}
