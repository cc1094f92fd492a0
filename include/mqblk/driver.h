/* SPDX-License-Identifier: MIT */
/*
 * The driver side of the core: the ops table a driver registers and the
 * few helpers it may call. Drivers see the core only through this header.
 */
#ifndef MQBLK_DRIVER_H
#define MQBLK_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mqblk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What queue_rq tells the core (blk_status_t's role, not errno). */
enum mqblk_status {
	MQBLK_STS_OK = 0, /* queued (or already completed) */
	MQBLK_STS_BUSY = 1, /* out of resources: core requeues and retries */
	MQBLK_STS_ERROR = 2, /* failed before queueing: core completes -EIO */
};

enum mqblk_timeout_ret {
	/* the driver completed it, or owns it and will complete it (the
	 * core does not: the driver may still have the command queued) */
	MQBLK_EH_DONE = 0,
	MQBLK_EH_RESET_TIMER = 1, /* give it another full timeout */
};

/* Device properties a driver reports from init(). */
struct mqblk_dev_limits {
	uint64_t capacity; /* bytes */
	uint32_t logical_block_size; /* bytes, power of two >= 512 */
	/* the largest READ/WRITE one request may carry (max_hw_sectors'
	 * role, in bytes; 0: no limit). The core splits a bigger one into
	 * pieces no larger (rounded down to whole blocks), each a request
	 * of its own on the same hw queue, and completes the submitter's
	 * once all pieces have, with the first error */
	uint32_t max_hw_bytes;
	unsigned max_hw_queues; /* how many hw queues it can offer */
	unsigned queue_depth; /* tags per hw queue (or shared total) */
	bool shared_tags; /* default tag layout: host-wide */
	size_t cmd_size; /* bytes of driver data per request */
	enum mqblk_comp_policy default_policy;
	bool has_irq; /* provides an irq fd per hw queue */
};

/* One key=value from the device URI, for the driver to consume. */
struct mqblk_param {
	const char *key;
	const char *val;
	bool used; /* driver sets this when it consumed the key */
};

struct mqblk_params {
	struct mqblk_param *v;
	unsigned nr;
};

/*
 * The ops table. Validated once at registration: queue_rq and init are
 * required; init_hctx/exit_hctx come as a pair.
 */
struct mqblk_driver_ops {
	const char *name;
	/* Optional: the MQBLK_OPEN_SYNC / MQBLK_OPEN_DSYNC flags this
	 * driver honours; the core refuses to open it with any other. */
	unsigned open_flags;

	/*
	 * Required. Parse params (mark consumed ones used), allocate the
	 * device state (mqblk_dev_set_data), fill lim. Process context.
	 * Return 0 or -errno with a one-line reason in err.
	 */
	int (*init)(struct mqblk_dev *dev, struct mqblk_params *params,
		    struct mqblk_dev_limits *lim, char *err, size_t errlen);
	/* Optional. Free device state. All hw queues are gone. */
	void (*exit)(struct mqblk_dev *dev);

	/* Optional pair. Set up hw queue idx (mqblk_hctx_set_data,
	 * mqblk_hctx_set_irq_fd). Process context. */
	int (*init_hctx)(struct mqblk_hctx *hctx, unsigned idx);
	void (*exit_hctx)(struct mqblk_hctx *hctx);

	/* Optional. Called once per preallocated request. */
	int (*init_request)(struct mqblk_dev *dev, struct mqblk_rq *rq);

	/*
	 * Required. Issue rq on hctx. last is false when the core has more
	 * requests for this hctx in the same batch (ring the doorbell on
	 * last, or in commit_rqs). Calls on one hctx are serialised by the
	 * core; poll() on the same hctx may run concurrently on another
	 * thread. May complete rq inline with mqblk_complete_rq().
	 */
	enum mqblk_status (*queue_rq)(struct mqblk_hctx *hctx,
				      struct mqblk_rq *rq, bool last);
	/* Optional. A batch ended without a last=true queue_rq (BUSY cut it
	 * short): ring the doorbell for what was queued. */
	void (*commit_rqs)(struct mqblk_hctx *hctx);

	/*
	 * Optional (required for the POLLED policy and irq fds): reap up to
	 * budget completions from hctx, completing each with
	 * mqblk_complete_rq(); return how many. Never runs concurrently with
	 * itself on one hctx. Called from the submitter (polled/local) or an
	 * interrupt thread (remote/batched) when the irq fd is readable.
	 */
	int (*poll)(struct mqblk_hctx *hctx, unsigned budget);

	/*
	 * Optional. Block until hctx may have completions to reap, or until
	 * timeout_ns passes (< 0: no limit). The core calls it, instead of
	 * sleeping on the irq fd, for a LOCAL-policy submitter that is its
	 * hardware queue's only user and has requests in flight, then calls
	 * poll. For a driver whose native wait is cheaper than an fd wake
	 * (io_uring_enter with GETEVENTS). A driver with a wait op may leave
	 * a sole submitter's hctx without an irq fd.
	 */
	void (*wait)(struct mqblk_hctx *hctx, int64_t timeout_ns);

	/* Optional. rq passed its deadline (timeout thread). Without it,
	 * the core completes an expired request with -ETIMEDOUT itself. */
	enum mqblk_timeout_ret (*timeout)(struct mqblk_rq *rq);

	/*
	 * Optional pair (mqblk_queue_map_buf): make [base, base+len) cheaper
	 * to do I/O on for hctx (register it, as a DMA mapping would) until
	 * unmap_buf. Called by the submitting thread of a software queue on
	 * hctx, unmap_buf only once that queue's I/O is reaped. 0 or -errno.
	 */
	int (*map_buf)(struct mqblk_hctx *hctx, void *base, size_t len);
	void (*unmap_buf)(struct mqblk_hctx *hctx, void *base);

	/* Optional (mqblk_dev_nvme_admin): an NVMe admin command to the
	 * device's controller. Any thread. */
	int (*nvme_admin)(struct mqblk_dev *dev, void *sqe, void *data,
			  uint32_t len, bool to_dev, uint32_t *result,
			  uint16_t *status);

	/* Optional (mqblk_dev_get_paths): a multipath device's paths and
	 * its I/O policy name. Any thread. */
	int (*get_paths)(const struct mqblk_dev *dev,
			 struct mqblk_path_stats *out, unsigned max);
	const char *(*iopolicy)(const struct mqblk_dev *dev);

	/*
	 * Optional (mqblk_queue_fail_held): if hctx is holding requests for
	 * a reconnection (its connection is gone, none of them can still be
	 * answered), complete each with res and return true, *nr counting
	 * them; false if it is not holding (the core then leaves its own
	 * busy list alone too). Any thread.
	 */
	bool (*fail_held)(struct mqblk_hctx *hctx, int res, unsigned *nr);

	/*
	 * Optional (mqblk_dev_set_param): change one of the device's URI
	 * keys while it is open and in use (null: completion_nsec, so a
	 * test can make a device slow under load). Any thread; 0, or
	 * -EINVAL / -EOPNOTSUPP with a one-line reason in err.
	 */
	int (*set_param)(struct mqblk_dev *dev, const char *key,
			 const char *val, char *err, size_t errlen);
};

/*
 * Parse p->val as an unsigned integer in [min, max] (with k/m/g/t/p binary
 * suffixes when size is true), mark p used. 0, or -EINVAL with a message
 * naming the key.
 */
int mqblk_param_u64(struct mqblk_param *p, uint64_t min, uint64_t max,
		    bool size, uint64_t *out, char *err, size_t errlen);

/* The same for a 0|1 switch. */
int mqblk_param_bool(struct mqblk_param *p, bool *out, char *err,
		     size_t errlen);

/* Driver registry (registry.c): explicit array, no constructors. */
const struct mqblk_driver_ops *mqblk_driver_find(const char *name);

/*
 * Complete rq with res (bytes or -errno) and NVMe status. Any thread.
 * The first completion of an incarnation wins; later ones (e.g. after a
 * timeout) are ignored and return false.
 */
bool mqblk_complete_rq(struct mqblk_rq *rq, int res, uint16_t nvme_status);

/* Per-request driver data: cmd_size bytes right after the request. */
static inline void *mqblk_rq_pdu(struct mqblk_rq *rq)
{
	return (void *)(rq + 1);
}

/* The MQBLK_OPEN_* flags the device was opened with (valid in init). */
unsigned mqblk_dev_open_flags(const struct mqblk_dev *dev);

/* The device's size changed (set_capacity_and_notify's role): I/O is
 * checked against the new one from now on. Any thread. */
void mqblk_dev_set_capacity(struct mqblk_dev *dev, uint64_t bytes);

/*
 * The driver has given up on the device (blk_mark_disk_dead's role): a
 * request it can neither finish nor take back (past its timeout and its
 * driver's cap of retries). The driver fails new requests itself; this
 * tells the device's users (mqblk_dev_is_dead) that what is still in
 * flight may never complete. Any thread; never undone.
 */
void mqblk_dev_mark_dead(struct mqblk_dev *dev);

void mqblk_dev_set_data(struct mqblk_dev *dev, void *data);
void *mqblk_dev_data(const struct mqblk_dev *dev);
void mqblk_hctx_set_data(struct mqblk_hctx *hctx, void *data);
void *mqblk_hctx_data(const struct mqblk_hctx *hctx);
unsigned mqblk_hctx_idx(const struct mqblk_hctx *hctx);
unsigned mqblk_hctx_depth(const struct mqblk_hctx *hctx);
struct mqblk_dev *mqblk_hctx_dev(const struct mqblk_hctx *hctx);
/*
 * True when one thread does all of hctx's submitting and reaping, for as
 * long as the device is open: a LOCAL or POLLED policy and at most one
 * software queue mapped here (a later queue that would be a second user
 * is refused). That thread may change when its queue closes and another
 * opens. The timeout op still runs on the core's timeout thread.
 */
bool mqblk_hctx_sole_submitter(const struct mqblk_hctx *hctx);
/* The fd that becomes readable when hctx has completions to reap; the
 * core owns no reference to it (driver closes it in exit_hctx). */
void mqblk_hctx_set_irq_fd(struct mqblk_hctx *hctx, int fd);

#ifdef __cplusplus
}
#endif
#endif
