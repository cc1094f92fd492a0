/* SPDX-License-Identifier: MIT */
/*
 * Lock-free singly linked list of requests (the kernel's llist): any
 * thread pushes with one CAS, the single consumer takes all with an xchg.
 */
#ifndef MQBLK_LLIST_H
#define MQBLK_LLIST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <mqblk/mqblk.h>

struct rq_llist {
	_Atomic(struct mqblk_rq *) first;
};

/*
 * Push the chain first..last (linked by ->next). Returns true when the
 * list was empty before: the caller then owes the consumer a wake-up.
 * Release ordering pairs with the acquire in rq_llist_del_all().
 */
static inline bool rq_llist_add_batch(struct rq_llist *l,
				      struct mqblk_rq *first,
				      struct mqblk_rq *last)
{
	struct mqblk_rq *old =
		atomic_load_explicit(&l->first, memory_order_relaxed);

	do {
		last->next = old;
	} while (!atomic_compare_exchange_weak_explicit(&l->first, &old, first,
							memory_order_release,
							memory_order_relaxed));
	return old == NULL;
}

static inline bool rq_llist_add(struct rq_llist *l, struct mqblk_rq *rq)
{
	return rq_llist_add_batch(l, rq, rq);
}

static inline bool rq_llist_empty(struct rq_llist *l)
{
	return atomic_load_explicit(&l->first, memory_order_relaxed) == NULL;
}

/* Take everything; the chain comes back newest first. */
static inline struct mqblk_rq *rq_llist_del_all(struct rq_llist *l)
{
	if (rq_llist_empty(l))
		return NULL;
	return atomic_exchange_explicit(&l->first, NULL, memory_order_acquire);
}

/* Reverse a chain, so completions are handled oldest first. */
static inline struct mqblk_rq *rq_chain_reverse(struct mqblk_rq *head)
{
	struct mqblk_rq *prev = NULL;

	while (head) {
		struct mqblk_rq *next = head->next;

		head->next = prev;
		prev = head;
		head = next;
	}
	return prev;
}

/* A plain FIFO of requests owned by one thread. */
struct rq_list {
	struct mqblk_rq *head;
	struct mqblk_rq **tailp;
	unsigned nr;
};

static inline void rq_list_init(struct rq_list *l)
{
	l->head = NULL;
	l->tailp = &l->head;
	l->nr = 0;
}

static inline void rq_list_add_tail(struct rq_list *l, struct mqblk_rq *rq)
{
	rq->next = NULL;
	*l->tailp = rq;
	l->tailp = &rq->next;
	l->nr++;
}

/* Append a NULL-terminated chain of n requests. */
static inline void rq_list_splice_chain(struct rq_list *l,
					struct mqblk_rq *chain)
{
	while (chain) {
		struct mqblk_rq *next = chain->next;

		rq_list_add_tail(l, chain);
		chain = next;
	}
}

static inline struct mqblk_rq *rq_list_pop(struct rq_list *l)
{
	struct mqblk_rq *rq = l->head;

	if (!rq)
		return NULL;
	l->head = rq->next;
	if (!l->head)
		l->tailp = &l->head;
	l->nr--;
	return rq;
}

#endif
