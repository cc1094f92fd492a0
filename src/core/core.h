/* SPDX-License-Identifier: MIT */
/*
 * Core internals: devices, hardware queues (hctx), software queues (one
 * per submitting thread), tag sets. Drivers never include this file.
 */
#ifndef MQBLK_CORE_H
#define MQBLK_CORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <mqblk/driver.h>
#include <mqblk/mqblk.h>

#include "llist.h"
#include "sbitmap.h"

#define CORE_CACHELINE 64

/* rq->state: the one field both the driver's completion and the timeout
 * handler race on; the transition to COMPLETE happens exactly once. */
enum rq_state {
	RQ_IDLE = 0,
	RQ_IN_FLIGHT = 1,
	RQ_COMPLETE = 2,
};

/* A tag set: a scalable bitmap plus one preallocated request per tag. */
struct mqblk_tags {
	struct sbitmap_queue sbq;
	unsigned depth;
	size_t rq_size; /* request + driver pdu, cache-line rounded */
	void *rq_mem;
	/* hardware queues with requests in flight, for fair sharing of a
	 * host-wide set (the kernel's hctx_may_queue) */
	_Atomic unsigned active_queues;
	/* rq->timing_out lives in a side array so the request stays small */
	_Atomic uint8_t *timing_out;
};

static inline struct mqblk_rq *tags_rq(const struct mqblk_tags *t, unsigned tag)
{
	return (struct mqblk_rq *)((char *)t->rq_mem +
				   (size_t)tag * t->rq_size);
}

struct mqblk_hctx {
	/* driver-visible (accessors in driver.h) */
	void *driver_data;
	unsigned idx;
	unsigned depth;
	struct mqblk_dev *dev;
	int irq_fd;

	struct mqblk_tags *tags; /* own set, or the device's shared set */
	unsigned nr_ctx; /* software queues mapped here */
	bool need_lock; /* nr_ctx > 1: serialise dispatch */
	bool active; /* counted in tags->active_queues */

	/* dispatch: serialises queue_rq/commit_rqs and the BUSY list */
	pthread_spinlock_t lock;
	struct rq_list dispatch;
	_Atomic unsigned dispatch_nr;
	_Atomic unsigned nr_active; /* in flight, shared tags only */

	/* poll() is never run twice at once on one hctx */
	_Atomic int polling;

	struct irq_thread *irq; /* serving thread, REMOTE/BATCHED */
} __attribute__((aligned(CORE_CACHELINE)));

struct mqblk_queue {
	/* hot, owner thread only */
	struct mqblk_dev *dev;
	struct mqblk_hctx *hctx;
	struct mqblk_tags *tags;
	unsigned tag_hint;
	unsigned inflight; /* submitted, not yet reaped */
	unsigned held; /* tags got and not yet put */
	unsigned plug_depth;
	struct rq_list plug;
	struct rq_list done; /* completed on this thread, to be reaped */
	enum mqblk_comp_policy policy;
	pid_t tid;
	unsigned idx;
	struct mqblk_queue_stats st;
	unsigned nr_bufs; /* regions mapped by mqblk_queue_map_buf */
	void *bufs[MQBLK_QUEUE_MAX_BUFS];

	/* written by other threads */
	struct rq_llist remote __attribute__((aligned(CORE_CACHELINE)));
	_Atomic unsigned producers; /* threads inside queue_hand_over() */
	int wake_fd; /* eventfd: remote completions, tag wake-ups */
	int epfd; /* LOCAL policy: wake_fd + this hctx's irq fd */
	struct sbq_waiter waiter;
};

struct irq_thread {
	struct mqblk_dev *dev;
	pthread_t thread;
	int epfd;
	int stop_fd;
	unsigned idx;
	bool started;
};

struct mqblk_dev {
	const struct mqblk_driver_ops *ops;
	void *driver_data;
	struct mqblk_dev_limits lim;
	enum mqblk_comp_policy policy;
	unsigned open_flags; /* MQBLK_OPEN_* */
	unsigned nr_hw_queues;
	unsigned nr_queues_expected;
	bool shared_tags;
	uint64_t timeout_ns;
	struct mqblk_hctx *hctx; /* nr_hw_queues of them */
	struct mqblk_tags *tags; /* one set, or one per hctx */
	unsigned nr_tag_sets;

	pthread_mutex_t lock; /* queue open/close */
	unsigned nr_queues_open;
	unsigned next_queue_idx;

	unsigned nr_irq_threads;
	struct irq_thread *irq;

	/* timeout thread and its coarse clock ("jiffies") */
	pthread_t timeout_thread;
	bool timeout_running;
	int timeout_stop_fd;
	uint64_t timeout_tick_ns;
	_Atomic uint64_t jiffies_ns;
};

/* tags.c */
int tags_init(struct mqblk_tags *t, struct mqblk_dev *dev, unsigned depth);
void tags_exit(struct mqblk_tags *t, struct mqblk_dev *dev);

/* blk.c */
void hctx_run_dispatch(struct mqblk_hctx *hctx, struct mqblk_queue *q);

/* complete.c: completion routing and interrupt threads */
struct comp_ctx;
int core_poll_hctx(struct mqblk_hctx *hctx, struct mqblk_queue *q,
		   enum mqblk_comp_path path, unsigned budget);
void queue_wake(struct mqblk_queue *q);
void queue_drain_wake(struct mqblk_queue *q);
int irq_threads_start(struct mqblk_dev *dev);
void irq_threads_stop(struct mqblk_dev *dev);
pid_t core_gettid(void);

/* timeout.c */
int timeout_start(struct mqblk_dev *dev);
void timeout_stop(struct mqblk_dev *dev);

/* uri.c: s as one printable line (control bytes '?', cut to len - 1) */
const char *core_printable(const char *s, char *out, size_t len);

/* uri.c: "driver:k=v,k=v" split in place; returns driver name */
int uri_parse(char *buf, const char **driver, struct mqblk_params *params,
	      char *err, size_t errlen);

#endif
