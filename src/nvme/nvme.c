// SPDX-License-Identifier: MIT
/*
 * NVMe structures that need more than a layout: the namespace
 * identification descriptor list (Identify CNS 03h), built and walked.
 */
#include <errno.h>
#include <string.h>

#include "nvme.h"

/* The one length each known descriptor type has; 0 for unknown types */
static uint8_t ns_desc_len(uint8_t nidt)
{
	switch (nidt) {
	case NVME_NIDT_EUI64:
		return NVME_NIDT_EUI64_LEN;
	case NVME_NIDT_NGUID:
		return NVME_NIDT_NGUID_LEN;
	case NVME_NIDT_UUID:
		return NVME_NIDT_UUID_LEN;
	case NVME_NIDT_CSI:
		return NVME_NIDT_CSI_LEN;
	default:
		return 0;
	}
}

int nvme_ns_desc_put(void *list, size_t len, size_t *off, uint8_t nidt,
		     const void *id, uint8_t nidl)
{
	uint8_t *b = list;

	if (!nidt || !nidl || (ns_desc_len(nidt) && nidl != ns_desc_len(nidt)))
		return -EINVAL;
	if (*off > len || len - *off < sizeof(struct nvme_ns_id_desc) + nidl)
		return -ENOSPC;
	b += *off;
	b[0] = nidt;
	b[1] = nidl;
	b[2] = 0;
	b[3] = 0;
	memcpy(b + sizeof(struct nvme_ns_id_desc), id, nidl);
	*off += sizeof(struct nvme_ns_id_desc) + nidl;
	return 0;
}

int nvme_ns_desc_next(const void *list, size_t len, size_t *off, uint8_t *nidt,
		      const uint8_t **id, uint8_t *nidl)
{
	const uint8_t *b = list;
	size_t at = *off;

	/* the list ends at a zero NIDT or where no header fits */
	if (at > len || len - at < sizeof(struct nvme_ns_id_desc) || !b[at])
		return 0;
	if (!b[at + 1] ||
	    len - at - sizeof(struct nvme_ns_id_desc) < b[at + 1] ||
	    (ns_desc_len(b[at]) && b[at + 1] != ns_desc_len(b[at])))
		return -EBADMSG;
	*nidt = b[at];
	*nidl = b[at + 1];
	*id = b + at + sizeof(struct nvme_ns_id_desc);
	*off = at + sizeof(struct nvme_ns_id_desc) + *nidl;
	return 1;
}
