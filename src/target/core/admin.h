/* SPDX-License-Identifier: MIT */
/* What the admin command set's files (admin_cmd.c, discovery.c) share. */
#ifndef MQBLK_TARGET_CORE_ADMIN_H
#define MQBLK_TARGET_CORE_ADMIN_H

#include "nvmet.h"

#define DISC_ASQSZ 32 /* admin queue size a discovery entry promises */
#define NO_ERR_LOC 0xffffu
/* the AEN mask bit the discovery log clears when read (RAE 0) */
#define AEN_MASK_DISC NVME_CTRL_OAES_DISC_CHANGE

/* One admin command being executed. */
struct admin_req {
	struct tgt_ctrl *ctrl;
	const union nvme_command *sqe;
	uint8_t *buf;
	uint32_t len;
	uint32_t *result;
	uint16_t err_loc; /* the bad field, for the error log */
};

static inline uint16_t fail(struct admin_req *r, uint16_t status, uint16_t loc)
{
	r->err_loc = loc;
	return status;
}

/* The log page's bytes from LPO, at most the command's length. */
uint16_t tgt_admin_log_out(struct admin_req *r, const void *page, size_t size);
/* Retain Asynchronous Event: the read does not clear the event. */
bool tgt_admin_log_rae(const struct admin_req *r);
/* An NQN into a zero-filled 256-byte field. */
void tgt_admin_put_nqn(char field[NVME_NQN_SIZE], const char *nqn);
uint16_t tgt_log_discovery(struct admin_req *r);

#endif
