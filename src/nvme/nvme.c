// SPDX-License-Identifier: MIT
/*
 * NVMe structures that need more than a layout: the namespace
 * identification descriptor list (Identify CNS 03h), built and walked;
 * the ANA states' names.
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

static const struct {
	uint8_t state;
	const char *name;
} ana_names[] = {
	{ NVME_ANA_OPTIMIZED, "optimized" },
	{ NVME_ANA_NONOPTIMIZED, "non-optimized" },
	{ NVME_ANA_INACCESSIBLE, "inaccessible" },
	{ NVME_ANA_PERSISTENT_LOSS, "persistent-loss" },
	{ NVME_ANA_CHANGE, "change" },
};

const char *nvme_ana_state_name(uint8_t state)
{
	size_t i;

	for (i = 0; i < sizeof(ana_names) / sizeof(ana_names[0]); i++)
		if (ana_names[i].state == state)
			return ana_names[i].name;
	return NULL;
}

uint8_t nvme_ana_state_parse(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(ana_names) / sizeof(ana_names[0]); i++)
		if (strlen(ana_names[i].name) == len &&
		    !memcmp(ana_names[i].name, name, len))
			return ana_names[i].state;
	return 0;
}
