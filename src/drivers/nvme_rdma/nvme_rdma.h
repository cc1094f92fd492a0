/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/RDMA host transport's counters, per I/O queue and for the
 * admin queue, as the fabrics host reports them. Not public API.
 */
#ifndef MQBLK_DRIVERS_NVME_RDMA_H
#define MQBLK_DRIVERS_NVME_RDMA_H

#include <stddef.h>
#include <stdint.h>

#include <mqblk/mqblk.h>

/* What one queue spent in verbs since the device opened (its
 * connections' sum, across reconnects). */
struct nvme_rdma_queue_stats {
	uint16_t qid; /* 0: the admin queue */
	uint64_t sends; /* SEND work requests posted (command capsules) */
	uint64_t signalled; /* ... of them signalled (each gives a CQE) */
	uint64_t recv_posted; /* receive work requests posted */
	uint64_t recv_done; /* ... completed (responses) */
	uint64_t cqes; /* work completions reaped, sends and receives */
	uint64_t events; /* completion channel events (wake-ups) */
	uint64_t regs; /* memory registrations (ibv_reg_mr) */
	uint64_t incapsule; /* commands with their data in the capsule */
	uint64_t keyed; /* commands with a keyed SGL for their data */
	uint64_t bounced; /* ... through the request's bounce buffer */
	/* responses that arrived before their command's send completion:
	 * each waited for it before completing (the "completion holes") */
	uint64_t rsp_before_send;
	/* remote_invalidate=1: windows the controller invalidated (SEND
	 * with Invalidate), and those the host had to invalidate itself */
	uint64_t remote_inv;
	uint64_t local_inv;
};

#define NVME_RDMA_NR_COUNTERS                              \
	((sizeof(struct nvme_rdma_queue_stats) -           \
	  offsetof(struct nvme_rdma_queue_stats, sends)) / \
	 sizeof(uint64_t))
_Static_assert(offsetof(struct nvme_rdma_queue_stats, local_inv) ==
		       offsetof(struct nvme_rdma_queue_stats, sends) +
			       12 * sizeof(uint64_t),
	       "the counters are consecutive uint64_t fields");

/* to += from (sign 1) or to -= from (sign -1), field by field. */
static inline void nvme_rdma_stats_add(struct nvme_rdma_queue_stats *to,
				       const struct nvme_rdma_queue_stats *from,
				       int sign)
{
	uint64_t *t = &to->sends;
	const uint64_t *f = &from->sends;
	unsigned i;

	/* the counters are the uint64_t fields from sends to the end */
	for (i = 0; i < NVME_RDMA_NR_COUNTERS; i++)
		t[i] = sign < 0 ? t[i] - f[i] : t[i] + f[i];
}

/*
 * dev's counters: the admin queue's in out[0], then each I/O queue's, up
 * to max entries. Returns how many queues dev has (may be more than max),
 * -EINVAL for a device that is no NVMe/RDMA controller, -ENOTSUP when
 * mqblk was built without rdma-core.
 */
int nvme_rdma_get_stats(const struct mqblk_dev *dev,
			struct nvme_rdma_queue_stats *out, unsigned max);

#endif
