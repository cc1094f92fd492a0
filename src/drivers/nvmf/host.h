/* SPDX-License-Identifier: MIT */
/*
 * What the fabrics host (any transport) tells the multipath layer about
 * one of its controllers (a path). Not public API.
 */
#ifndef MQBLK_DRIVERS_NVMF_HOST_H
#define MQBLK_DRIVERS_NVMF_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include <mqblk/driver.h>

/* The controller's state, as nvmf_ctrl_state() returns it. */
enum {
	NVMF_CTRL_LIVE = 0,
	NVMF_CTRL_RESETTING = 1, /* connections down, reconnecting */
	NVMF_CTRL_DEAD = 2, /* past ctrl_loss_tmo: fails all I/O */
};

struct nvmf_ctrl_info {
	int state; /* NVMF_CTRL_* */
	uint64_t resets; /* resets started (each one a reconnect loop) */
	uint32_t ana_gen; /* ANA change notices received (multipath=1) */
	/* Discovery Log Page Change notices received (a discovery
	 * controller opened with kato=: a persistent one) */
	uint32_t disc_gen;
	uint32_t nsid; /* the namespace it does I/O to */
	uint64_t stalls; /* stalls logged (stall_ms=) */
	/* answers to a command whose capsule or H2CData was still being
	 * sent: a protocol error, each one reset the controller */
	uint64_t early_rsps;
	uint32_t reconnect_delay_ms, ctrl_loss_tmo_ms; /* as opened */
};

/* For a device opened as nvme-TRANSPORT://: 0, else -EINVAL. Any
 * thread. */
int nvmf_ctrl_info(const struct mqblk_dev *dev, struct nvmf_ctrl_info *ci);
/* The state alone, for the I/O path (dev must be a fabrics device). */
int nvmf_ctrl_state(const struct mqblk_dev *dev);
/* Reset a live controller (logged with why): its connections go down
 * and are made again, as after a lost connection. Any thread. */
int nvmf_ctrl_reset(struct mqblk_dev *dev, const char *why);

/* The host's transports by name ("tcp") and by NVMF_TRTYPE_*: the name,
 * or NULL / false for one this host does not have; and all their names,
 * for messages ("tcp"). */
const char *nvmf_transport_name(uint8_t trtype);
bool nvmf_transport_known(const char *name);
const char *nvmf_transport_names(void);

#endif
