// SPDX-License-Identifier: MIT
/*
 * mqblk's nvme-cli-style commands: the controller they talk to, opened
 * through the public API, and the admin commands they send it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../nvme.h"
#include "nvcli.h"

/* The names of the NVMe statuses these commands can meet */
static const char *status_name(uint16_t status)
{
	switch (status & 0x7ff) {
	case NVME_SC_INVALID_OPCODE:
		return "Invalid Command Opcode";
	case NVME_SC_INVALID_FIELD:
		return "Invalid Field in Command";
	case NVME_SC_INVALID_NS:
		return "Invalid Namespace or Format";
	case NVME_SC_INTERNAL:
		return "Internal Error";
	case NVME_SC_ANA_PERSISTENT_LOSS:
		return "ANA Persistent Loss";
	case NVME_SC_ANA_INACCESSIBLE:
		return "ANA Inaccessible";
	case NVME_SC_ANA_TRANSITION:
		return "ANA Transition";
	default:
		return "error";
	}
}

int nvcli_ctrl_open(const char *cmd, const char *uri, struct mqblk_dev **dev)
{
	struct mqblk_dev_opts opts;
	char err[512];
	int ret;

	if (strncmp(uri, "nvme-tcp://", 11) &&
	    strncmp(uri, "nvme-rdma://", 12)) {
		fprintf(stderr,
			"mqblk %s: '%s' is not an nvme-tcp:// or nvme-rdma:// "
			"URI (only NVMe-oF controllers have these commands)\n",
			cmd, uri);
		return -EINVAL;
	}
	mqblk_dev_opts_init(&opts);
	opts.nr_queues = 1; /* the admin queue does all the work */
	opts.nr_hw_queues = 1;
	opts.flags = 0; /* read-only */
	err[0] = 0;
	ret = mqblk_dev_open(uri, &opts, dev, err, sizeof(err));
	if (ret)
		fprintf(stderr, "mqblk %s: %s\n", cmd,
			err[0] ? err : strerror(-ret));
	return ret;
}

static int admin(const char *cmd, const char *what, struct mqblk_dev *dev,
		 union nvme_command *c, void *buf, uint32_t len)
{
	uint16_t status = 0;
	int ret;

	ret = mqblk_dev_nvme_admin(dev, c, buf, len, false, NULL, &status);
	if (ret) {
		fprintf(stderr, "mqblk %s: %s: %s\n", cmd, what,
			strerror(-ret));
		return ret;
	}
	if (status) {
		fprintf(stderr, "mqblk %s: %s: NVMe status %s (0x%x)\n", cmd,
			what, status_name(status), status);
		return -EIO;
	}
	return 0;
}

int nvcli_identify(const char *cmd, struct mqblk_dev *dev, uint8_t cns,
		   uint32_t nsid, void *buf)
{
	union nvme_command c;
	char what[64];

	memset(&c, 0, sizeof(c));
	c.identify.opcode = nvme_admin_identify;
	c.identify.nsid = cpu_to_le32(nsid);
	c.identify.cns = cns;
	if (cns == NVME_ID_CNS_NS)
		snprintf(what, sizeof(what), "Identify Namespace %" PRIu32,
			 nsid);
	else
		snprintf(what, sizeof(what), "Identify (CNS %02xh)", cns);
	return admin(cmd, what, dev, &c, buf, NVME_IDENTIFY_SIZE);
}

int nvcli_get_log_lsp(const char *cmd, struct mqblk_dev *dev, uint8_t lid,
		      uint8_t lsp, uint32_t nsid, uint64_t off, void *buf,
		      uint32_t len)
{
	union nvme_command c;
	uint32_t numd = len / 4 - 1;
	char what[64];

	memset(&c, 0, sizeof(c));
	c.get_log_page.opcode = nvme_admin_get_log_page;
	c.get_log_page.nsid = cpu_to_le32(nsid);
	c.get_log_page.lid = lid;
	c.get_log_page.lsp = lsp;
	c.get_log_page.numdl = cpu_to_le16((uint16_t)numd);
	c.get_log_page.numdu = cpu_to_le16((uint16_t)(numd >> 16));
	c.get_log_page.lpo = cpu_to_le64(off);
	if (lid == NVME_LOG_DISC)
		snprintf(what, sizeof(what), "Get Log Page (discovery)");
	else
		snprintf(what, sizeof(what), "Get Log Page (LID %02xh)", lid);
	return admin(cmd, what, dev, &c, buf, len);
}

int nvcli_get_log(const char *cmd, struct mqblk_dev *dev, uint8_t lid,
		  uint64_t off, void *buf, uint32_t len)
{
	return nvcli_get_log_lsp(cmd, dev, lid, 0, 0, off, buf, len);
}

/* The nsid= key of a URI's query, 0 when it has none */
static uint32_t uri_nsid(const char *uri)
{
	const char *q = strchr(uri, '?'), *p;

	for (p = q; p && *p; p++) {
		if ((*p == '?' || *p == '&' || *p == ',') &&
		    !strncmp(p + 1, "nsid=", 5))
			return (uint32_t)strtoul(p + 6, NULL, 0);
	}
	return 0;
}

/* The namespace a command works on: -n, else the URI's nsid=, else the
 * first active one (what the driver opened). 0 on failure (reported). */
uint32_t nvcli_pick_nsid(const char *cmd, struct mqblk_dev *dev,
			 const char *uri, uint32_t want)
{
	uint8_t *list;
	uint32_t nsid = want ? want : uri_nsid(uri);

	if (nsid)
		return nsid;
	list = calloc(1, NVME_IDENTIFY_SIZE);
	if (!list) {
		fprintf(stderr, "mqblk %s: out of memory\n", cmd);
		return 0;
	}
	if (!nvcli_identify(cmd, dev, NVME_ID_CNS_NS_ACTIVE_LIST, 0, list)) {
		nsid = nvme_get_le32(list);
		if (!nsid)
			fprintf(stderr,
				"mqblk %s: the controller has no "
				"active namespace\n",
				cmd);
	}
	free(list);
	return nsid;
}
