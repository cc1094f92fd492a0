/* SPDX-License-Identifier: MIT */
/*
 * What the NVMe/TCP host driver tells the multipath layer about one of
 * its controllers (a path). Not public API.
 */
#ifndef MQBLK_NVME_TCP_HOST_H
#define MQBLK_NVME_TCP_HOST_H

#include <stdint.h>

#include <mqblk/driver.h>

/* The controller's state, as nvt_ctrl_state() returns it. */
enum {
	NVT_CTRL_LIVE = 0,
	NVT_CTRL_RESETTING = 1, /* connections down, reconnecting */
	NVT_CTRL_DEAD = 2, /* past ctrl_loss_tmo: fails all I/O */
};

struct nvt_ctrl_info {
	int state; /* NVT_CTRL_* */
	uint64_t resets; /* resets started (each one a reconnect loop) */
	uint32_t ana_gen; /* ANA change notices received (multipath=1) */
	uint32_t nsid; /* the namespace it does I/O to */
	uint64_t stalls; /* stalls logged (stall_ms=) */
	/* answers to a command whose capsule or H2CData was still being
	 * sent: a protocol error, each one reset the controller */
	uint64_t early_rsps;
	uint32_t reconnect_delay_ms, ctrl_loss_tmo_ms; /* as opened */
};

/* For a device opened as nvme-tcp://: 0, else -EINVAL. Any thread. */
int nvt_ctrl_info(const struct mqblk_dev *dev, struct nvt_ctrl_info *ci);
/* The state alone, for the I/O path (dev must be an nvme-tcp device). */
int nvt_ctrl_state(const struct mqblk_dev *dev);
/* Reset a live controller (logged with why): its connections go down
 * and are made again, as after a lost connection. Any thread. */
int nvt_ctrl_reset(struct mqblk_dev *dev, const char *why);

#endif
