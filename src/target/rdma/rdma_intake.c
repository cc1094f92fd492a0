// SPDX-License-Identifier: MIT
/*
 * A command capsule's intake, apart from the verbs so that the fuzz
 * harness drives it as the transport does: the SQE, the core's checks
 * and the data pointer (keyed for RDMA READ/WRITE, in-capsule, none).
 */
#include <string.h>

#include "rdma.h"

uint16_t tgt_rdma_intake(struct tgt_req *req, const void *capsule, uint32_t len,
			 uint32_t incap_max, struct nvme_rdma_data *d)
{
	uint16_t status;

	memset(d, 0, sizeof(*d));
	if (len < sizeof(req->sqe))
		return TGT_RDMA_BAD_CAPSULE;
	memcpy(&req->sqe, capsule, sizeof(req->sqe));
	tgt_req_init(req, req->q);
	status = nvme_rdma_data_parse(&req->sqe, len - sizeof(req->sqe),
				      incap_max, TGT_RDMA_MAX_XFER, req->dir,
				      d);
	if (status)
		return status;
	/* a command without data may still name a zero-length SGL; one
	 * with data names how much (the core checks it against NLB) */
	req->xfer_len = req->dir && d->kind != NVME_RDMA_DATA_NONE ? d->len : 0;
	return tgt_req_prepare(req);
}
