/* SPDX-License-Identifier: MIT */
/*
 * mqblk public API: open a block device by URI, submit requests from one
 * software queue per thread, reap completions, close.
 */
#ifndef MQBLK_MQBLK_H
#define MQBLK_MQBLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mqblk_dev;
struct mqblk_queue;
struct mqblk_hctx;

enum mqblk_op {
	MQBLK_OP_READ = 0,
	MQBLK_OP_WRITE = 1,
	MQBLK_OP_FLUSH = 2,
	MQBLK_OP_DISCARD = 3,
	MQBLK_OP_WRITE_ZEROES = 4,
};

/*
 * How a completion that a driver produces travels back to the thread that
 * submitted the request (seed 000's subject). Chosen per device.
 *
 * LOCAL:   the hardware queue's interrupt is taken by the submitting thread
 *          itself (it sleeps on the queue's irq fd and runs the driver's
 *          completion handler), so completions are local unless several
 *          submitters share one hardware queue.
 * REMOTE:  interrupt threads run the completion handler and hand every
 *          completion to its submitter through a lockless list, waking the
 *          submitter with an eventfd when the list was empty (the IPI).
 * BATCHED: as REMOTE, but the completions of one handler pass are collected
 *          per submitter and handed over together with a single wake (the
 *          softirq analogue).
 * POLLED:  no interrupts: the submitter polls its hardware queue (hipri).
 * IRQ:     completions complete wherever they land (rq_affinity=0): the
 *          interrupt thread finishes each request there and posts it on
 *          its submitter's completion list, as an io_uring completion is
 *          posted to the CQ ring from the interrupt, and wakes the
 *          submitter only when it sleeps waiting for completions. A
 *          submitter that is busy finds them at its next reap: no wake-up
 *          at all. (A queue whose fd was taken with mqblk_queue_fd() may
 *          sleep outside the core, so it is woken as under REMOTE.)
 */
enum mqblk_comp_policy {
	MQBLK_COMP_LOCAL = 0,
	MQBLK_COMP_REMOTE = 1,
	MQBLK_COMP_BATCHED = 2,
	MQBLK_COMP_POLLED = 3,
	MQBLK_COMP_IRQ = 4,
};

/* Which path one completion took (counted per queue). */
enum mqblk_comp_path {
	MQBLK_PATH_LOCAL = 0,
	MQBLK_PATH_REMOTE = 1,
	MQBLK_PATH_BATCHED = 2,
	MQBLK_PATH_POLLED = 3,
	MQBLK_PATH_IRQ = 4, /* completed on the interrupt thread it landed on */
	MQBLK_PATH_NR = 5,
};

/* mqblk_rq_get() flags */
#define MQBLK_RQ_NOWAIT (1u << 0) /* fail instead of waiting for a tag */

/* Request flags (rq->flags), set by the submitter. */
#define MQBLK_REQ_FUA (1u << 0)

/*
 * A request. The submitter fills op/flags/offset/len/buf (and may use
 * private) between mqblk_rq_get() and mqblk_submit(); res and nvme_status
 * are valid once mqblk_reap() has returned it. Everything after the
 * "core" comment belongs to the core. Driver data follows the struct.
 */
struct mqblk_rq {
	enum mqblk_op op;
	uint32_t flags;
	uint64_t offset; /* bytes */
	uint32_t len; /* bytes */
	void *buf;
	void *private; /* the submitter's */

	int res; /* bytes transferred, or -errno */
	uint16_t nvme_status; /* NVMe status (SCT/SC), 0 = success */
	uint8_t comp_path; /* enum mqblk_comp_path it completed by */

	/* core */
	uint8_t core_flags;
	uint32_t tag;
	uint32_t gen; /* bumped on every get: lets drivers spot stale ids */
	_Atomic uint32_t state;
	struct mqblk_queue *q;
	struct mqblk_hctx *hctx;
	struct mqblk_rq *next;
	uint64_t deadline_ns;
	uint64_t start_ns; /* when it was dispatched to the driver */
};

/* mqblk_dev_opts.flags: how the device is opened (a driver with no such
 * notion, like null, ignores what does not apply to it). Without
 * MQBLK_OPEN_WRITE the device is read-only: the core refuses writes,
 * discards and write zeroes (-EBADF, as a write(2) to an O_RDONLY file). */
#define MQBLK_OPEN_DIRECT (1u << 0) /* bypass the page cache (O_DIRECT) */
#define MQBLK_OPEN_WRITE (1u << 1) /* writes/discards will be submitted */
/* A write completes once it is on stable storage, with its metadata
 * (O_SYNC) or its data (O_DSYNC). Not ignored where it does not apply: a
 * driver that does not honour it (mqblk_driver_ops.open_flags) is not
 * opened (-EOPNOTSUPP). */
#define MQBLK_OPEN_SYNC (1u << 2)
#define MQBLK_OPEN_DSYNC (1u << 3)

struct mqblk_dev_opts {
	unsigned nr_queues; /* submitting threads expected; 0 = 1 */
	unsigned nr_hw_queues; /* 0 = min(nr_queues, driver's maximum) */
	unsigned queue_depth; /* 0 = driver default */
	int comp_policy; /* enum mqblk_comp_policy, -1 = default */
	int shared_tags; /* 1 host-wide tag set, 0 per hw queue, -1 default */
	unsigned irq_threads; /* REMOTE/BATCHED interrupt threads; 0 = auto */
	uint64_t timeout_ns; /* per-request deadline; 0 = 30 s */
	unsigned flags; /* MQBLK_OPEN_* */
};

/* Completion-path and queueing counters of one software queue. */
struct mqblk_queue_stats {
	uint64_t completions[MQBLK_PATH_NR];
	uint64_t submitted;
	uint64_t requeues; /* BUSY from the driver, retried later */
	/* blocking mqblk_rq_get() calls that had to wait for a tag (once
	 * per call, however many wake-ups), and the time they waited */
	uint64_t tag_waits;
	uint64_t tag_wait_ns;
	uint64_t tag_nowait_fails; /* MQBLK_RQ_NOWAIT gets that got none */
	uint64_t timeouts;
	uint64_t errors;
	/* eventfd wake-ups other threads wrote to this queue's submitter:
	 * completions handed over (REMOTE: when its list was empty;
	 * BATCHED: one per pass; IRQ: only to a sleeping submitter) and
	 * tag wake-ups */
	uint64_t wakeups;

	/* scheduling (seed 004); "runs" are the dispatch runs this queue's
	 * thread did, for any software queue of its hardware queue */
	uint64_t merges; /* requests absorbed into another (mq-deadline) */
	uint64_t dispatched; /* requests handed to the driver by its runs */
	uint64_t dispatch_runs;
	/* queue_rq calls with last=true plus commit_rqs calls: how often
	 * its runs rang the device's doorbell */
	uint64_t doorbells;
	uint64_t sched_expired; /* mq-deadline: FIFO-expired picks */
	uint64_t dispatch_locks; /* hw queue lock acquisitions by its runs */
	uint64_t dispatch_lock_contended; /* ... that found it held */
	uint64_t poll_budget_hits; /* its poll passes that hit poll_budget */
	/* READ/WRITEs longer than the device's maximum transfer, split by
	 * the core; the pieces issued for them; and the splits that found
	 * no free tag for a piece and went on, in part, a piece at a time
	 * on the tags they held */
	uint64_t splits;
	uint64_t split_pieces;
	uint64_t split_serial;
};

/* Device-wide counters (every thread, interrupt threads included). */
struct mqblk_dev_stats {
	uint64_t poll_budget_hits; /* poll passes that reaped the budget */
};

/* Sets every field of opts to its default (flags: MQBLK_OPEN_WRITE). */
void mqblk_dev_opts_init(struct mqblk_dev_opts *opts);

/*
 * Open a device: "null", "null:size=8g,irqmode=2,completion_nsec=10000";
 * a path ("/dev/loop0", "./disk.img", optionally "PATH?key=val,...") opens
 * the uring driver on it.
 * Core keys accepted with any driver:
 * complete=local|remote|batched|polled|irq,
 * nr_hw_queues=N, irq_threads=N, timeout=MSEC, queue_depth=N,
 * shared_tags=0|1, tagset=NAME, poll_budget=N, scheduler=none|mq-deadline
 * (with read_expire=MS, write_expire=MS, writes_starved=N, fifo_batch=N,
 * front_merges=0|1), dispatch=batch|one. URI keys override opts.
 * Returns 0, or -errno with a one-line reason in err (if err != NULL):
 * -EINVAL bad URI or option, -ENODEV no such driver, -ENOMEM.
 */
int mqblk_dev_open(const char *uri, const struct mqblk_dev_opts *opts,
		   struct mqblk_dev **devp, char *err, size_t errlen);
/* All queues must have been closed. */
void mqblk_dev_close(struct mqblk_dev *dev);

uint64_t mqblk_dev_size(const struct mqblk_dev *dev);
uint32_t mqblk_dev_block_size(const struct mqblk_dev *dev);
/* The largest READ/WRITE the device takes in one command (bytes; 0: no
 * limit). Bigger requests are still accepted: the core splits them. */
uint32_t mqblk_dev_max_transfer(const struct mqblk_dev *dev);
/*
 * True once the driver has declared the device failed (the uring driver:
 * a request past its timeout_rearms= cap). New requests fail with -EIO;
 * requests still in flight may never complete, and their buffers may
 * still be written by the kernel: a caller that stops waiting for them
 * must not reuse or free those buffers, nor close the queue or device
 * (mqblk_queue_close waits for them) — exiting the process is safe.
 */
bool mqblk_dev_is_dead(const struct mqblk_dev *dev);
/* The per-request deadline the device was opened with (timeout=). */
uint64_t mqblk_dev_timeout_ns(const struct mqblk_dev *dev);
unsigned mqblk_dev_nr_hw_queues(const struct mqblk_dev *dev);
unsigned mqblk_dev_queue_depth(const struct mqblk_dev *dev);
enum mqblk_comp_policy mqblk_dev_comp_policy(const struct mqblk_dev *dev);
const char *mqblk_dev_driver_name(const struct mqblk_dev *dev);
const char *mqblk_comp_policy_name(enum mqblk_comp_policy p);

/*
 * Open this thread's software queue on dev. A queue belongs to the thread
 * that opened it: only that thread may get, submit, reap and close on it.
 * Returns 0, -ENOMEM, -EMFILE (no eventfd).
 */
int mqblk_queue_open(struct mqblk_dev *dev, struct mqblk_queue **qp);
/* Waits for (and drops) outstanding requests, then frees the queue. */
void mqblk_queue_close(struct mqblk_queue *q);
void mqblk_queue_get_stats(const struct mqblk_queue *q,
			   struct mqblk_queue_stats *st);
void mqblk_dev_get_stats(const struct mqblk_dev *dev,
			 struct mqblk_dev_stats *st);
/*
 * One path of a multipath device (nvme-tcp://A:P,B:P/NQN): counters since
 * the device opened. sent counts requests issued on the path (failovers
 * again), completed those that ended there (success or not), failovers
 * those it gave back with a path error or lost connection and that went
 * to another path; completed over all paths plus the requests failed
 * with no path left is every request the device took.
 */
#define MQBLK_MAX_PATHS 16
struct mqblk_path_stats {
	char name[280]; /* "HOST:PORT" */
	char state[16]; /* live, resetting, dead; connecting: not yet since open */
	char ana_state[16]; /* optimized, non-optimized, inaccessible, ... */
	bool current; /* the numa/round-robin policy's current path */
	uint64_t sent;
	uint64_t completed;
	uint64_t failovers;
	uint64_t reconnects; /* resets of the path's controller */
	uint64_t stalls; /* times it had I/O out and no answer for stall_ms */
	uint64_t inflight; /* requests out on it now */
	/* added while the device was open, found in a changed discovery
	 * log (paths=discover with persistent_discovery) */
	bool discovered;
};

/*
 * Up to max paths of dev into out. Returns how many paths dev has (may be
 * more than max), or -EOPNOTSUPP for a device without paths.
 */
int mqblk_dev_get_paths(const struct mqblk_dev *dev,
			struct mqblk_path_stats *out, unsigned max);
/*
 * Change one key of an open device's URI while it runs, e.g. the null
 * device's completion_nsec ("20000000": every request from then on takes
 * 20 ms). Any thread. 0; -EOPNOTSUPP when the device (or that key) cannot
 * change live; -EINVAL for a bad value. A one-line reason in err.
 */
int mqblk_dev_set_param(struct mqblk_dev *dev, const char *key, const char *val,
			char *err, size_t errlen);

/* The multipath I/O policy name ("numa", ...), or NULL. */
const char *mqblk_dev_iopolicy(const struct mqblk_dev *dev);

/* The device's I/O scheduler: "none" or "mq-deadline". */
const char *mqblk_dev_scheduler(const struct mqblk_dev *dev);

/*
 * Allocate a request (a tag). Without MQBLK_RQ_NOWAIT this waits,
 * processing this queue's completions meanwhile; with it, returns NULL
 * when no tag is free.
 */
struct mqblk_rq *mqblk_rq_get(struct mqblk_queue *q, unsigned flags);
/* Free a request that was never submitted or that was reaped. */
void mqblk_rq_put(struct mqblk_rq *rq);

/* Plugging: between plug and unplug, submissions are held and then issued
 * to the driver as one batch (one doorbell). Nests. */
void mqblk_plug(struct mqblk_queue *q);
void mqblk_unplug(struct mqblk_queue *q);

/*
 * Submit a request. Returns 0 (the request will come back through
 * mqblk_reap(), possibly with an error in res), -EINVAL for a request
 * outside the device or misaligned, or -EBADF for a write-type request to
 * a device opened without MQBLK_OPEN_WRITE (nothing queued; put it
 * back).
 */
int mqblk_submit(struct mqblk_rq *rq);

/*
 * Reap between min and max completed requests into out. Waits (by the
 * device's completion policy: sleep or poll) until min are available or
 * timeout_ns passes (timeout_ns < 0: forever). Returns the number reaped
 * (may be < min on timeout) or -EINVAL. min 0 takes only what has already
 * completed and neither polls nor waits; to peek (one poll pass, or take a
 * pending interrupt, without sleeping) pass min 1 and timeout_ns 0.
 */
int mqblk_reap(struct mqblk_queue *q, struct mqblk_rq **out, unsigned min,
	       unsigned max, int64_t timeout_ns);

/* Requests submitted on q and not yet reaped. */
unsigned mqblk_queue_inflight(const struct mqblk_queue *q);

/*
 * Give up on what q's hardware queue holds for a reconnection (an NVMe-oF
 * controller in reset: its requests wait, nothing of them on the wire):
 * each completes now with res (< 0, e.g. -ETIMEDOUT), for mqblk_reap() to
 * return, what the driver held and what the core kept for the driver to
 * take back (requests it refused as busy while the connection is down).
 * For a submitter that ends while its device is away (a job's runtime is
 * up, a signal) instead of waiting out the reconnection. A hardware queue
 * that is not holding (a live connection, a driver that never holds) is
 * left alone: its requests complete as they would. Returns how many
 * completed, or -EINVAL for res >= 0. Any thread; may be called again
 * (what was refused since is failed then).
 */
int mqblk_queue_fail_held(struct mqblk_queue *q, int res);

/*
 * The calling thread becomes q's owner: what it completes on q from then
 * on is local to it (no hand-over, no wake-up), as on a queue it opened.
 * For a stacking driver whose queues over another device are reaped by
 * whichever submitter holds the driver's own lock at the time (the
 * multipath device's path queues, the stripe's member queues): claim, then
 * reap, under that lock. Requests completed on other threads are still
 * handed over to q.
 */
void mqblk_queue_claim(struct mqblk_queue *q);

/*
 * Requests completed on q by its owner's own thread and not yet reaped.
 * No fd announces them (the owner takes its own list first): a driver
 * that claimed q checks this after submitting, since a request can
 * complete inside mqblk_submit or mqblk_unplug (a driver refusing it).
 */
unsigned mqblk_queue_completed(const struct mqblk_queue *q);

/*
 * An fd that is readable when q may have completions to reap, for a
 * caller that waits on many queues in one epoll set (the stripe driver
 * over its members): a LOCAL queue on a hardware queue with an interrupt
 * gives its epoll set (that irq fd and the queue's wake-up eventfd),
 * REMOTE, BATCHED and IRQ queues their wake-up eventfd (an IRQ queue is
 * then woken on every hand-over, as REMOTE); -1 when there is none
 * (POLLED, or a hardware queue without interrupts): poll such a queue
 * with mqblk_reap(..., timeout 0). A reap with timeout 0 never sleeps and
 * takes what makes the fd readable (a pending interrupt or wake-up), so
 * level-triggered waiting on the fd is exact up to one spurious wake.
 * The fd belongs to q; the owner-thread rule applies to the reap.
 */
int mqblk_queue_fd(struct mqblk_queue *q);

/*
 * Map [base, base+len), memory the caller's requests will use as buffers,
 * into q's hardware queue until q closes: requests whose buffer lies
 * inside it then skip per-I/O set-up (the uring driver registers it with
 * its io_uring, as fio's --fixedbufs). Up to MQBLK_QUEUE_MAX_BUFS regions
 * per queue. 0, -EOPNOTSUPP when the device has no such notion (null),
 * or -errno.
 */
#define MQBLK_QUEUE_MAX_BUFS 4
int mqblk_queue_map_buf(struct mqblk_queue *q, void *base, size_t len);

/*
 * An NVMe admin command to the controller behind dev, for devices that
 * have one (nvme-tcp://; also its discovery controller, opened with the
 * discovery NQN). sqe: the 64-byte command; the driver sets its command
 * id and data pointer. data/len: the command's data, to the controller
 * when to_dev, else from it. On 0, *result is the completion's DW0 and
 * *status its NVMe status (0 = success). -EOPNOTSUPP when the device has
 * no controller (null, files), else -errno for a transport failure.
 * Any thread; commands are serialised on the admin queue.
 */
int mqblk_dev_nvme_admin(struct mqblk_dev *dev, void *sqe, void *data,
			 uint32_t len, bool to_dev, uint32_t *result,
			 uint16_t *status);

/* Monotonic nanoseconds from the core's clock (TSC where invariant). */
uint64_t mqblk_clock_ns(void);

#ifdef __cplusplus
}
#endif
#endif
