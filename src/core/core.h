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

/* mqblk_queue.sleeping: the owner of an IRQ-policy queue is busy (a
 * hand-over needs no wake), asleep waiting on its wake_fd, or gave its
 * fd away (mqblk_queue_fd: always wake) */
enum { QUEUE_SLEEP_NO = 0, QUEUE_SLEEP_YES = 1, QUEUE_SLEEP_ALWAYS = 2 };

/* rq->state: the one field both the driver's completion and the timeout
 * handler race on; the transition to COMPLETE happens exactly once. */
enum rq_state {
	RQ_IDLE = 0,
	RQ_IN_FLIGHT = 1,
	RQ_COMPLETE = 2,
};

/* rq->core_flags */
#define RQF_MERGED (1u << 0) /* carries absorbed requests (sched_rq) */
/* a piece of a split request (split_rq), the parent included */
#define RQF_SPLIT (1u << 1)

/* I/O scheduler of a device (sched.c) */
enum core_sched {
	IOSCHED_NONE = 0,
	IOSCHED_DEADLINE = 1,
};

/* How a hardware queue takes requests from the submitters (seed 004) */
enum core_dispatch {
	DISPATCH_BATCH = 0, /* a plug's list goes to the driver in one go */
	DISPATCH_ONE = 1, /* per-software-queue lists, pulled one by one */
};

/* mq-deadline's tunables, per device (the kernel's sysfs iosched/) */
struct dd_tunables {
	uint64_t expire_ns[2]; /* read, write */
	unsigned writes_starved;
	unsigned fifo_batch;
	bool front_merges;
};

/*
 * A request's scheduler state, in a side array of its tag set indexed by
 * tag (as timing_out), so the request itself stays small. Sort and FIFO
 * links are valid while it waits in mq-deadline; merged/own_len while it
 * carries absorbed requests (RQF_MERGED).
 */
struct sched_rq {
	struct mqblk_rq *sort_prev, *sort_next;
	struct mqblk_rq *fifo_prev, *fifo_next;
	struct mqblk_rq *merged; /* next absorbed request, sector order */
	struct mqblk_rq *merged_tail; /* lead only: last absorbed */
	uint64_t expire_ns;
	uint32_t own_len; /* lead only: its length before merging */
};

/*
 * Split state (split.c), in a side array of the tag set indexed by tag,
 * touched only by the owner thread of the request's software queue.
 */
struct split_rq {
	struct mqblk_rq *parent; /* a piece: what it is part of (or itself) */
	/* the parent's: what was submitted, and the progress */
	uint64_t offset;
	void *buf;
	uint32_t len;
	uint32_t next; /* bytes handed to pieces so far */
	unsigned pending; /* pieces in flight */
	int err; /* the first piece error (-errno), 0 */
	uint16_t status; /* its NVMe status */
};

/* mq-deadline's state for one hardware queue; under hctx->sched_lock */
struct dd_queue {
	struct mqblk_rq *sort_head[2]; /* ascending offset, per direction */
	struct mqblk_rq *fifo_head[2], *fifo_tail[2];
	unsigned nr[2];
	uint64_t last_pos[2]; /* end of the last dispatched, per direction */
	int last_dir; /* -1 before the first dispatch */
	unsigned batching; /* dispatched in the current batch */
	unsigned starved; /* read batches while writes waited */
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
	struct sched_rq *sched; /* per tag, see struct sched_rq */
	struct split_rq *split; /* per tag, see struct split_rq */
	/* a host-wide set shared by devices (tagset=NAME), else NULL */
	struct core_tagset *shared;
	_Atomic unsigned nr_hctx; /* hardware queues using this set */
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
	unsigned nr_ctx; /* software queues mapped here (changed under
			  * dev->lock, atomically: read without it) */
	bool need_lock; /* nr_ctx > 1: serialise dispatch */
	bool active; /* counted in tags->active_queues */

	/* dispatch: serialises queue_rq/commit_rqs and the BUSY list */
	/* an adaptive mutex, not a spinlock: it is held across the
	 * driver's queue_rq (a sendmsg for nvme-tcp), and a user-space
	 * holder can be preempted, with 64 submitters on 2 CPUs spinning
	 * out their time slices behind it */
	pthread_mutex_t lock;
	struct rq_list dispatch;
	_Atomic unsigned dispatch_nr;
	_Atomic unsigned nr_active; /* in flight, shared tags only */

	/* poll() is never run twice at once on one hctx */
	_Atomic int polling;
	/* an interrupt was seen while another thread polled: that poller
	 * polls again before it lets go (NAPI's MISSED), so a thread that
	 * loses the race can sleep without stranding the interrupt */
	_Atomic int poll_missed;

	struct irq_thread *irq; /* serving thread, REMOTE/BATCHED */

	/* scheduler / one-at-a-time dispatch (sched.c) */
	_Atomic unsigned queued; /* in the scheduler or software queues */
	pthread_spinlock_t sched_lock; /* the scheduler's (dd->lock) */
	struct dd_queue dd;
	/* DISPATCH_ONE without a scheduler: the software queues mapped
	 * here, a ring through queue->ctx_next; changed under lock */
	struct mqblk_queue *ctx_rotor;

	/* poll passes that reaped the whole budget (any thread) */
	_Atomic uint64_t budget_hits;
} __attribute__((aligned(CORE_CACHELINE)));

static inline struct sched_rq *rq_sched(const struct mqblk_rq *rq)
{
	return &rq->hctx->tags->sched[rq->tag];
}

struct mqblk_queue {
	/* hot, owner thread only */
	struct mqblk_dev *dev;
	struct mqblk_hctx *hctx;
	struct mqblk_tags *tags;
	unsigned tag_hint;
	unsigned inflight; /* submitted, not yet reaped */
	unsigned held; /* tags got and not yet put */
	/* READ/WRITE longer than this are split (the device's max_hw_bytes,
	 * or UINT32_MAX): one compare on the submit path */
	uint32_t split_max;
	unsigned split_held; /* of held: piece requests of split ones */
	unsigned nr_split; /* split requests in flight */
	struct rq_list split_next; /* pieces to issue next (collected) */
	unsigned plug_depth;
	struct rq_list plug;
	struct rq_list done; /* completed on this thread, to be reaped */
	enum mqblk_comp_policy policy;
	_Atomic pid_t tid; /* its owner: completions there stay local */
	unsigned idx;
	struct mqblk_queue_stats st;
	unsigned nr_bufs; /* regions mapped by mqblk_queue_map_buf */
	void *bufs[MQBLK_QUEUE_MAX_BUFS];

	/* written by other threads */
	struct rq_llist remote __attribute__((aligned(CORE_CACHELINE)));
	_Atomic unsigned producers; /* threads inside queue_hand_over() */
	int wake_fd; /* eventfd: remote completions, tag wake-ups */
	_Atomic uint64_t wakeups; /* writes to wake_fd */
	/* IRQ policy: may a hand-over skip the wake? QUEUE_SLEEP_NO while
	 * the owner is busy (it reaps what is posted without a wake) */
	_Atomic int sleeping;
	int epfd; /* LOCAL policy: wake_fd + this hctx's irq fd */
	struct sbq_waiter waiter;

	/* DISPATCH_ONE, no scheduler: this software queue's requests wait
	 * here for the hardware queue to pull them (the kernel's ctx) */
	pthread_spinlock_t ctx_lock;
	struct rq_list ctx_list;
	_Atomic unsigned ctx_nr;
	struct mqblk_queue *ctx_next; /* ring of hctx's software queues */
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
	atomic_bool dead; /* mqblk_dev_mark_dead: the driver gave up on it */
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

	/* scheduling (seed 004) */
	enum core_sched sched;
	enum core_dispatch dispatch;
	struct dd_tunables dd;
	unsigned poll_budget; /* completions per poll pass per hctx */
};

/* capacity: a relaxed atomic, as a driver may change it under I/O
 * (mqblk_dev_size; inline for blk.c's per-request check) */
static inline uint64_t dev_capacity(const struct mqblk_dev *dev)
{
	return __atomic_load_n(&dev->lim.capacity, __ATOMIC_RELAXED);
}

/* split.c: requests bigger than max_hw_bytes (owner thread only) */
/* Make rq a split parent: its pieces (rq last) onto list, to issue. */
void split_start(struct mqblk_queue *q, struct mqblk_rq *rq,
		 struct rq_list *list);
/* Piece r completed: NULL when it was taken in (and perhaps put on
 * q->split_next with the next piece), else the parent, whole now. */
struct mqblk_rq *split_piece_done(struct mqblk_queue *q, struct mqblk_rq *r);
/* Take in the pieces q->done holds (a tag waiter's step). */
void split_collect(struct mqblk_queue *q);
/* blk.c, for split.c */
struct mqblk_rq *queue_rq_get_nowait(struct mqblk_queue *q);
/* Issue q->split_next, if it holds anything. */
void queue_issue_pieces(struct mqblk_queue *q);

/* tags.c */
int tags_init(struct mqblk_tags *t, struct mqblk_dev *dev, unsigned depth);
void tags_exit(struct mqblk_tags *t, struct mqblk_dev *dev);

/* blk.c: the request path (dev.c: open/close, queue.c: software queues,
 * attr.c: accessors) */
void hctx_run_dispatch(struct mqblk_hctx *hctx, struct mqblk_queue *q);
void hctx_lock_counted(struct mqblk_hctx *h, struct mqblk_queue *q);
bool issue_one(struct mqblk_hctx *h, struct mqblk_rq *rq, bool last,
	       struct mqblk_queue *q);
void __dispatch_list(struct mqblk_hctx *h, struct rq_list *list,
		     struct mqblk_queue *q);
bool hctx_may_queue(struct mqblk_hctx *h);
void hctx_busy_add(struct mqblk_hctx *h, struct rq_list *list);

/* sched.c: mq-deadline and one-at-a-time dispatch */
struct core_sched_opts {
	int sched; /* enum core_sched, -1 = none */
	int dispatch; /* enum core_dispatch, -1 = batch */
	struct dd_tunables dd;
	const char *dd_key; /* a tunable that was given, for the error */
};
void sched_opts_init(struct core_sched_opts *so);
/* a core key of the scheduler's; 1 consumed, 0 not ours, -EINVAL */
int sched_param(struct mqblk_param *p, struct core_sched_opts *so, char *err,
		size_t errlen);
void sched_hctx_init(struct mqblk_hctx *h);
/* Hand a list of q's requests to h's scheduler or software queue, then
 * run h. */
void sched_insert_and_run(struct mqblk_queue *q, struct rq_list *list);
/* Dispatch what h holds (BUSY list first), lock taken inside. */
void sched_run(struct mqblk_hctx *h, struct mqblk_queue *q);
void sched_queue_attach(struct mqblk_queue *q);
void sched_queue_detach(struct mqblk_queue *q);
const char *sched_name(enum core_sched s);

/* tags.c: host-wide tag sets shared by devices (tagset=NAME) */
struct core_tagset;
/* depth: for a new set; asked: the opener's explicit depth (0: any) */
int tagset_get(const char *name, struct mqblk_dev *dev, unsigned depth,
	       unsigned asked, struct mqblk_tags **tagsp, char *err,
	       size_t errlen);
void tagset_put(struct mqblk_tags *tags, struct mqblk_dev *dev);

/* complete.c: completion routing and interrupt threads */
struct comp_ctx;
/* Reap up to min(budget, dev->poll_budget); a pass that reaps the
 * whole budget is counted and returns it (the caller comes back). */
int core_poll_hctx(struct mqblk_hctx *hctx, struct mqblk_queue *q,
		   enum mqblk_comp_path path, unsigned budget);
/* The same for a thread woken by h's interrupt fd, which may be shared
 * with other threads' epoll sets (edge-triggered): if another thread is
 * polling, that one polls again for us. */
int core_poll_hctx_irq(struct mqblk_hctx *h, struct mqblk_queue *q,
		       enum mqblk_comp_path path);
void queue_wake(struct mqblk_queue *q);
void queue_drain_wake(struct mqblk_queue *q);
int irq_threads_start(struct mqblk_dev *dev);
void irq_threads_stop(struct mqblk_dev *dev);
pid_t core_gettid(void);
/* Sleep up to ms (-1: forever) on q's wake_fd unless completions are
 * already posted; IRQ queues tell producers they must wake. */
void queue_sleep(struct mqblk_queue *q, int ms);

/* timeout.c */
int timeout_start(struct mqblk_dev *dev);
void timeout_stop(struct mqblk_dev *dev);

/* uri.c: s as one printable line (control bytes '?', cut to len - 1) */
const char *core_printable(const char *s, char *out, size_t len);

/* uri.c: "driver:k=v,k=v" split in place; returns driver name */
int uri_parse(char *buf, const char **driver, struct mqblk_params *params,
	      char *err, size_t errlen);

#endif
