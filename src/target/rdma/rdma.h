/* SPDX-License-Identifier: MIT */
/* The target's NVMe/RDMA transport, as the core's registry sees it. */
#ifndef MQBLK_TARGET_RDMA_RDMA_H
#define MQBLK_TARGET_RDMA_RDMA_H

#include "nvme/rdma.h"
#include "target/core/nvmet.h"

/* What it says of itself (rdma_id.c: no verbs, the admin commands') */
extern const struct tgt_transport_id tgt_rdma_id;
/* Its ops (rdma.c, or rdma_stub.c when built without rdma-core) */
extern const struct tgt_transport_ops *const tgt_rdma_transport;

/* The largest transfer one command may move (MDTS), in bytes. */
#define TGT_RDMA_MAX_XFER (4096u << TGT_MDTS)

/*
 * A received capsule (len bytes at capsule: the SQE, then any in-capsule
 * data) into req, whose q is set: the SQE copied, tgt_req_init, the data
 * pointer decoded (incap_max: in-capsule bytes the queue takes) into *d,
 * req->xfer_len set and tgt_req_prepare run. Returns the NVMe status to
 * answer with (0: go on), or TGT_RDMA_BAD_CAPSULE for a capsule shorter
 * than an SQE (nothing taken: the queue is broken). No verbs: the
 * transport and the fuzz harness call it (rdma_intake.c).
 */
#define TGT_RDMA_BAD_CAPSULE 0xffffu
uint16_t tgt_rdma_intake(struct tgt_req *req, const void *capsule, uint32_t len,
			 uint32_t incap_max, struct nvme_rdma_data *d);

#endif
