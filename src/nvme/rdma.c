// SPDX-License-Identifier: MIT
/*
 * NVMe/RDMA wire code: CM private data and command data pointers.
 */
#include <string.h>

#include "rdma.h"

const char *nvme_rdma_cm_msg(uint16_t status)
{
	switch (status) {
	case NVME_RDMA_CM_INVALID_LEN:
		return "invalid private data length";
	case NVME_RDMA_CM_INVALID_RECFMT:
		return "invalid RECFMT";
	case NVME_RDMA_CM_INVALID_QID:
		return "invalid QID";
	case NVME_RDMA_CM_INVALID_HSQSIZE:
		return "invalid HSQSIZE";
	case NVME_RDMA_CM_INVALID_HRQSIZE:
		return "invalid HRQSIZE";
	case NVME_RDMA_CM_NO_RSC:
		return "no resources";
	case NVME_RDMA_CM_INVALID_IRD:
		return "invalid IRD";
	case NVME_RDMA_CM_INVALID_ORD:
		return "invalid ORD";
	case NVME_RDMA_CM_INVALID_CNTLID:
		return "invalid CNTLID";
	default:
		return "unknown reject status";
	}
}

uint16_t nvme_rdma_cm_req_check(const void *pd, size_t len, uint16_t max_qid,
				uint16_t max_entries,
				struct nvme_rdma_conn_params *out)
{
	struct nvme_rdma_cm_req req;
	uint32_t entries, limit;

	if (!pd || len < sizeof(req))
		return NVME_RDMA_CM_INVALID_LEN;
	memcpy(&req, pd, sizeof(req));
	if (le16_to_cpu(req.recfmt) != NVME_RDMA_CM_FMT_1_0)
		return NVME_RDMA_CM_INVALID_RECFMT;
	out->qid = le16_to_cpu(req.qid);
	if (out->qid > max_qid)
		return NVME_RDMA_CM_INVALID_QID;
	entries = (uint32_t)le16_to_cpu(req.hsqsize) + 1;
	limit = out->qid ? max_entries : NVME_RDMA_ADMIN_QUEUE_SIZE;
	/* a queue of one entry cannot be full-empty distinguished (SQSIZE
	 * 0 is invalid in Connect too) */
	if (entries < 2 || entries > limit)
		return NVME_RDMA_CM_INVALID_HSQSIZE;
	out->sq_entries = (uint16_t)entries;
	out->hrqsize = le16_to_cpu(req.hrqsize);
	/* the host must take a response for each command it may send */
	if (out->hrqsize < out->sq_entries - 1 || out->hrqsize > limit + 1)
		return NVME_RDMA_CM_INVALID_HRQSIZE;
	out->cntlid = le16_to_cpu(req.cntlid);
	return 0;
}

void nvme_rdma_cm_req_fill(struct nvme_rdma_cm_req *req, uint16_t qid,
			   uint16_t hrqsize, uint16_t hsqsize, uint16_t cntlid)
{
	memset(req, 0, sizeof(*req));
	req->recfmt = cpu_to_le16(NVME_RDMA_CM_FMT_1_0);
	req->qid = cpu_to_le16(qid);
	req->hrqsize = cpu_to_le16(hrqsize);
	req->hsqsize = cpu_to_le16(hsqsize);
	req->cntlid = cpu_to_le16(cntlid);
}

void nvme_rdma_cm_rep_fill(struct nvme_rdma_cm_rep *rep, uint16_t crqsize)
{
	memset(rep, 0, sizeof(*rep));
	rep->recfmt = cpu_to_le16(NVME_RDMA_CM_FMT_1_0);
	rep->crqsize = cpu_to_le16(crqsize);
}

void nvme_rdma_cm_rej_fill(struct nvme_rdma_cm_rej *rej, uint16_t status)
{
	rej->recfmt = cpu_to_le16(NVME_RDMA_CM_FMT_1_0);
	rej->sts = cpu_to_le16(status);
}

int nvme_rdma_cm_rep_parse(const void *pd, size_t len, uint16_t *crqsize)
{
	struct nvme_rdma_cm_rep rep;

	/* the binding's accept is 32 bytes; some targets send only the
	 * fields (4) */
	if (!pd || len < 4)
		return -1;
	memset(&rep, 0, sizeof(rep));
	memcpy(&rep, pd, len < sizeof(rep) ? len : sizeof(rep));
	if (le16_to_cpu(rep.recfmt) != NVME_RDMA_CM_FMT_1_0)
		return -1;
	*crqsize = le16_to_cpu(rep.crqsize);
	return 0;
}

int nvme_rdma_cm_rej_parse(const void *pd, size_t len)
{
	struct nvme_rdma_cm_rej rej;

	if (!pd || len < sizeof(rej))
		return -1;
	memcpy(&rej, pd, sizeof(rej));
	if (le16_to_cpu(rej.recfmt) != NVME_RDMA_CM_FMT_1_0)
		return -1;
	return le16_to_cpu(rej.sts);
}

static uint32_t get_le24(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static void put_le24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
}

uint16_t nvme_rdma_data_parse(const union nvme_command *cmd, uint32_t incap_len,
			      uint32_t incap_max, uint32_t max_len, uint8_t dir,
			      struct nvme_rdma_data *d)
{
	const struct nvme_keyed_sgl_desc *k = &cmd->common.dptr.ksgl;
	const struct nvme_sgl_desc *s = &cmd->common.dptr.sgl;
	uint64_t off;

	memset(d, 0, sizeof(*d));
	if ((cmd->common.flags & 0xc0) != NVME_CMD_SGL_METABUF)
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR; /* PRPs */
	switch (k->type) {
	case NVME_SGL_RDMA_KEYED:
	case NVME_SGL_RDMA_KEYED_INV:
		if (incap_len)
			return NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
		d->len = get_le24(k->length);
		if (!d->len) {
			d->kind = NVME_RDMA_DATA_NONE;
			return 0;
		}
		if (!dir)
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		if (d->len > max_len)
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR; /* MDTS */
		d->kind = NVME_RDMA_DATA_KEYED;
		d->addr = le64_to_cpu(k->addr);
		d->key = nvme_get_le32(k->key);
		d->invalidate = k->type == NVME_SGL_RDMA_KEYED_INV;
		return 0;
	case NVME_SGL_RDMA_INCAPSULE:
		d->len = le32_to_cpu(s->length);
		off = le64_to_cpu(s->addr);
		if (dir != 2 || !incap_max)
			return NVME_SC_SGL_INVALID_TYPE | NVME_SC_DNR;
		if (off > incap_max || d->len > incap_max - off)
			return NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR;
		if (off + d->len > incap_len || !d->len)
			return NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
		d->kind = NVME_RDMA_DATA_INCAPSULE;
		d->offset = (uint32_t)off;
		return 0;
	default:
		return NVME_SC_SGL_INVALID_TYPE | NVME_SC_DNR;
	}
}

void nvme_rdma_sgl_keyed(union nvme_command *cmd, uint64_t addr, uint32_t len,
			 uint32_t key, bool invalidate)
{
	struct nvme_keyed_sgl_desc *k = &cmd->common.dptr.ksgl;

	cmd->common.flags =
		(uint8_t)((cmd->common.flags & ~0xc0) | NVME_CMD_SGL_METABUF);
	k->addr = cpu_to_le64(addr);
	put_le24(k->length, len);
	nvme_put_le32(k->key, key);
	k->type = invalidate ? NVME_SGL_RDMA_KEYED_INV : NVME_SGL_RDMA_KEYED;
}

void nvme_rdma_sgl_none(union nvme_command *cmd)
{
	nvme_rdma_sgl_keyed(cmd, 0, 0, 0, false);
}

void nvme_rdma_sgl_incapsule(union nvme_command *cmd, uint32_t len)
{
	struct nvme_sgl_desc *s = &cmd->common.dptr.sgl;

	cmd->common.flags =
		(uint8_t)((cmd->common.flags & ~0xc0) | NVME_CMD_SGL_METABUF);
	memset(s, 0, sizeof(*s));
	s->addr = cpu_to_le64(0);
	s->length = cpu_to_le32(len);
	s->type = NVME_SGL_RDMA_INCAPSULE;
}
