/* SPDX-License-Identifier: MIT */
/*
 * NVMe/RDMA (the NVMe over Fabrics RDMA transport binding): the RDMA CM
 * private data of a queue's connect, accept and reject, and the data
 * pointer of a command capsule (keyed SGLs for data moved by RDMA
 * READ/WRITE, an offset SGL for in-capsule data). Wire layouts, encoders
 * and validating decoders only: no verbs here, so the target, the host
 * and the fuzz harness share them.
 */
#ifndef MQBLK_NVME_RDMA_H
#define MQBLK_NVME_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvme.h"

#define NVME_RDMA_CM_FMT_1_0 0x0000
/* The kernel's nvme-rdma host and nvmet-rdma target cap queues here. */
#define NVME_RDMA_MAX_QUEUE_SIZE 128
#define NVME_RDMA_ADMIN_QUEUE_SIZE 32 /* NVME_AQ_DEPTH: admin queue entries */
/* A keyed SGL's length is 24 bits. */
#define NVME_RDMA_MAX_KEYED_LEN 0xffffffu

/* RDMA_CM_REJECT status (the binding's table) */
enum nvme_rdma_cm_status {
	NVME_RDMA_CM_INVALID_LEN = 0x01,
	NVME_RDMA_CM_INVALID_RECFMT = 0x02,
	NVME_RDMA_CM_INVALID_QID = 0x03,
	NVME_RDMA_CM_INVALID_HSQSIZE = 0x04,
	NVME_RDMA_CM_INVALID_HRQSIZE = 0x05,
	NVME_RDMA_CM_NO_RSC = 0x06,
	NVME_RDMA_CM_INVALID_IRD = 0x07,
	NVME_RDMA_CM_INVALID_ORD = 0x08,
	NVME_RDMA_CM_INVALID_CNTLID = 0x09,
};

/* RDMA_CM_REQUEST private data: the host's, 32 bytes (the kernel host's
 * arrives padded to 56 by the CM: the rest is zero). */
struct nvme_rdma_cm_req {
	nvme_le16 recfmt;
	nvme_le16 qid;
	nvme_le16 hrqsize; /* host receive queue entries (1's based) */
	nvme_le16 hsqsize; /* host send queue entries, 0's based (SQSIZE) */
	nvme_le16 cntlid; /* the controller an I/O queue is for (0xffff: any) */
	uint8_t rsvd[22];
};

/* RDMA_CM_ACCEPT private data: the controller's, 32 bytes. */
struct nvme_rdma_cm_rep {
	nvme_le16 recfmt;
	nvme_le16 crqsize; /* controller receive queue entries */
	uint8_t rsvd[28];
};

/* RDMA_CM_REJECT private data. */
struct nvme_rdma_cm_rej {
	nvme_le16 recfmt;
	nvme_le16 sts; /* enum nvme_rdma_cm_status */
};

_Static_assert(sizeof(struct nvme_rdma_cm_req) == 32, "cm req");
_Static_assert(sizeof(struct nvme_rdma_cm_rep) == 32, "cm rep");
_Static_assert(sizeof(struct nvme_rdma_cm_rej) == 4, "cm rej");

/* What a target takes from a connect request. */
struct nvme_rdma_conn_params {
	uint16_t qid;
	uint16_t hrqsize; /* responses the host can take at once */
	uint16_t sq_entries; /* HSQSIZE + 1: commands in flight at most */
	uint16_t cntlid;
};

/* The reason a reject status gives, for logs ("invalid HSQSIZE"). */
const char *nvme_rdma_cm_msg(uint16_t status);

/*
 * Check a connect request's private data (pd, len bytes) as a target:
 * 0 with *out filled, or the reject status. max_qid is the highest queue
 * id the target takes, max_entries the I/O queue entries (HSQSIZE + 1) it
 * allows; the admin queue takes NVME_RDMA_ADMIN_QUEUE_SIZE at most.
 */
uint16_t nvme_rdma_cm_req_check(const void *pd, size_t len, uint16_t max_qid,
				uint16_t max_entries,
				struct nvme_rdma_conn_params *out);
void nvme_rdma_cm_req_fill(struct nvme_rdma_cm_req *req, uint16_t qid,
			   uint16_t hrqsize, uint16_t hsqsize, uint16_t cntlid);
void nvme_rdma_cm_rep_fill(struct nvme_rdma_cm_rep *rep, uint16_t crqsize);
void nvme_rdma_cm_rej_fill(struct nvme_rdma_cm_rej *rej, uint16_t status);
/* A host reading the target's accept (0, crqsize set) or reject (the
 * status, or -1 when the private data is not one). */
int nvme_rdma_cm_rep_parse(const void *pd, size_t len, uint16_t *crqsize);
int nvme_rdma_cm_rej_parse(const void *pd, size_t len);

/* ---- A command's data pointer ----------------------------------------- */

/* SGL identifiers the binding uses */
#define NVME_SGL_RDMA_KEYED \
	NVME_SGL_TYPE(NVME_KEY_SGL_FMT_DATA_DESC, NVME_SGL_FMT_ADDRESS)
#define NVME_SGL_RDMA_KEYED_INV \
	NVME_SGL_TYPE(NVME_KEY_SGL_FMT_DATA_DESC, NVME_SGL_FMT_INVALIDATE)
#define NVME_SGL_RDMA_INCAPSULE \
	NVME_SGL_TYPE(NVME_SGL_FMT_DATA_DESC, NVME_SGL_FMT_OFFSET)

enum nvme_rdma_data_kind {
	NVME_RDMA_DATA_NONE = 0, /* no data (a zero-length keyed SGL) */
	NVME_RDMA_DATA_INCAPSULE, /* after the SQE, in the capsule */
	NVME_RDMA_DATA_KEYED, /* in host memory: RDMA READ/WRITE */
};

struct nvme_rdma_data {
	uint8_t kind; /* enum nvme_rdma_data_kind */
	bool invalidate; /* keyed: the host asks for send with invalidate */
	uint32_t len;
	uint32_t offset; /* in-capsule: bytes after the SQE */
	uint64_t addr; /* keyed: the host's address */
	uint32_t key; /* keyed: its rkey */
};

/*
 * Decode a received capsule's data pointer as a target. incap_len is how
 * many bytes followed the SQE in the capsule, incap_max the most this
 * queue takes (0 on the admin queue for a target that, like nvmet-rdma,
 * takes no in-capsule data there), max_len the largest transfer (MDTS in
 * bytes), dir the data direction the opcode implies (0 none, 1 to the
 * host, 2 from the host). Returns 0 with *d filled, or the NVMe status
 * to answer with (DNR set), as nvmet-rdma does: a PRP or unknown type,
 * an in-capsule SGL on a read or past what arrived, a keyed SGL longer
 * than max_len or with data for a command that has none.
 */
uint16_t nvme_rdma_data_parse(const union nvme_command *cmd, uint32_t incap_len,
			      uint32_t incap_max, uint32_t max_len, uint8_t dir,
			      struct nvme_rdma_data *d);

/* Host: fill cmd's data pointer (PSDT set to SGLs). */
void nvme_rdma_sgl_keyed(union nvme_command *cmd, uint64_t addr, uint32_t len,
			 uint32_t key, bool invalidate);
void nvme_rdma_sgl_none(union nvme_command *cmd); /* zero-length keyed */
void nvme_rdma_sgl_incapsule(union nvme_command *cmd, uint32_t len);

#endif
