/* SPDX-License-Identifier: MIT */
/*
 * Scalable bitmap tag allocator in the spirit of the kernel's sbitmap:
 * each word on its own cache line, a per-thread allocation hint, frees
 * deferred into a "cleared" word, and batched wake-ups of waiters.
 */
#ifndef MQBLK_SBITMAP_H
#define MQBLK_SBITMAP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define SB_CACHELINE 64

struct sbitmap_word {
	/* bits in use; a set bit is an allocated tag */
	_Atomic uint64_t word;
	/* tags freed but not yet folded back into word (batched clear) */
	_Atomic uint64_t cleared;
} __attribute__((aligned(SB_CACHELINE)));

struct sbitmap {
	unsigned depth;
	unsigned shift; /* bits used per word = 1 << shift */
	unsigned map_nr; /* number of words */
	struct sbitmap_word *map;
};

/* Choose bits per word so that a map of depth spreads over at least four
 * cache lines (the kernel's sbitmap_calculate_shift). */
unsigned sbitmap_calc_shift(unsigned depth);
int sbitmap_init(struct sbitmap *sb, unsigned depth, int shift);
void sbitmap_free(struct sbitmap *sb);
/* Allocate a bit starting at *hint; returns it or -1. Updates *hint. */
int sbitmap_get(struct sbitmap *sb, unsigned *hint);
/* Free bit nr (deferred clear); remember it as this thread's hint so the
 * next allocation reuses a cache-hot tag. */
void sbitmap_put(struct sbitmap *sb, unsigned nr, unsigned *hint);
/* Bits currently allocated (slow: sums the words). */
unsigned sbitmap_weight(const struct sbitmap *sb);
bool sbitmap_test(const struct sbitmap *sb, unsigned nr);

/*
 * A waiter for a free bit. wake() is called (from the freeing thread, with
 * the wait state's lock held) to get it going again; it must not block.
 */
struct sbq_waiter {
	struct sbq_waiter *next, *prev;
	void (*wake)(struct sbq_waiter *w);
	bool queued;
};

#define SBQ_WAIT_QUEUES 8

struct sbq_wait_state {
	_Atomic int wait_cnt; /* frees left before this state wakes a batch */
	pthread_mutex_t lock;
	struct sbq_waiter head; /* circular list */
	_Atomic unsigned nr_waiters;
} __attribute__((aligned(SB_CACHELINE)));

struct sbitmap_queue {
	struct sbitmap sb;
	unsigned wake_batch;
	_Atomic unsigned wake_index;
	_Atomic int ws_active; /* waiters anywhere: frees skip all if 0 */
	struct sbq_wait_state ws[SBQ_WAIT_QUEUES];
};

int sbitmap_queue_init(struct sbitmap_queue *sbq, unsigned depth);
void sbitmap_queue_free(struct sbitmap_queue *sbq);

static inline int sbitmap_queue_get(struct sbitmap_queue *sbq, unsigned *hint)
{
	return sbitmap_get(&sbq->sb, hint);
}

/* Free nr and wake a batch of waiters once wake_batch frees accumulated. */
void sbitmap_queue_put(struct sbitmap_queue *sbq, unsigned nr, unsigned *hint);

/* Queue w on a wait state (round robin), before re-trying the get; the
 * re-try after queueing closes the race with a concurrent put. */
void sbitmap_queue_prepare_wait(struct sbitmap_queue *sbq, struct sbq_waiter *w,
				unsigned *ws_idx);
void sbitmap_queue_finish_wait(struct sbitmap_queue *sbq, struct sbq_waiter *w,
			       unsigned ws_idx);
/* Wake everybody (teardown, depth change). */
void sbitmap_queue_wake_all(struct sbitmap_queue *sbq);

#endif
