// SPDX-License-Identifier: MIT
/*
 * DH-HMAC-CHAP on the target: a queue's Authentication Send/Receive
 * commands driving the controller's half of the exchange (nvme/auth.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "mqblk/mqblk.h"

#include "nvmet.h"

/* One queue's authentication: its own copy of the host's secrets (the
 * exchange outlives nothing, the configuration could) and the message
 * the next Authentication Receive returns. */
struct tgt_auth {
	struct nvme_auth_cfg cfg;
	struct nvme_auth_key key, ctrl_key;
	char hostnqn[TGT_NQN_MAX + 1];
	char subnqn[TGT_NQN_MAX + 1];
	struct nvme_auth_exch x;
	uint8_t msg[NVME_AUTH_MAX_MSG];
	size_t msg_len; /* 0: nothing for a Receive */
	bool done; /* authenticated: other commands may run */
	uint64_t step_ns; /* when the exchange last moved (the timeout) */
	bool close_after; /* the pending message is a Failure1 */
};

int tgt_auth_queue_init(struct tgt_queue *q, const struct tgt_host *h,
			const char *subnqn)
{
	struct tgt_auth *a;

	if (!h || !h->key.len)
		return 0;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -1;
	a->key = h->key;
	a->ctrl_key = h->ctrl_key;
	snprintf(a->hostnqn, sizeof(a->hostnqn), "%s", h->nqn);
	snprintf(a->subnqn, sizeof(a->subnqn), "%s", subnqn);
	a->cfg.hostnqn = a->hostnqn;
	a->cfg.subnqn = a->subnqn;
	a->cfg.host_key = &a->key;
	a->cfg.ctrl_key = &a->ctrl_key;
	memcpy(a->cfg.hashes, h->hashes, h->nr_hashes);
	a->cfg.nr_hashes = h->nr_hashes;
	memcpy(a->cfg.dhgroups, h->dhgroups, h->nr_dhgroups);
	a->cfg.nr_dhgroups = h->nr_dhgroups;
	nvme_auth_exch_init(&a->x, &a->cfg);
	a->step_ns = mqblk_clock_ns();
	q->auth = a;
	return 0;
}

void tgt_auth_queue_free(struct tgt_queue *q)
{
	struct tgt_auth *a = q->auth;

	if (!a)
		return;
	nvme_auth_exch_clear(&a->x);
	OPENSSL_cleanse(a, sizeof(*a));
	free(a);
	q->auth = NULL;
}

bool tgt_auth_pending(const struct tgt_queue *q)
{
	return q->auth && !q->auth->done;
}

bool tgt_auth_expired(const struct tgt_queue *q, uint64_t now)
{
	const struct tgt_auth *a = q->auth;

	return a && !a->done && now > a->step_ns &&
	       now - a->step_ns > TGT_AUTH_TIMEOUT_MS * 1000000ull;
}

/* Both commands: the in-band authentication protocol and a length that
 * matches the data (SGL) length. */
static uint16_t check_cmd(const struct tgt_req *cmd)
{
	const struct nvmf_auth_command *c = (const void *)&cmd->sqe;

	if (c->secp != NVME_AUTH_SECP || c->spsp0 != NVME_AUTH_SPSP0 ||
	    c->spsp1 != NVME_AUTH_SPSP1)
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	if (!le32_to_cpu(c->tl_al) || le32_to_cpu(c->tl_al) != cmd->xfer_len ||
	    cmd->xfer_len > NVME_AUTH_MAX_MSG)
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	return 0;
}

static void auth_failed(struct tgt_queue *q, int reason, bool peer)
{
	struct tgt_auth *a = q->auth;

	tgt_log("ctrl %u qid %u (host %s, %s): DH-HMAC-CHAP failed: %s%s",
		q->ctrl->cntlid, q->qid, a->hostnqn, a->subnqn,
		reason > 0 ? nvme_auth_failure_str((uint8_t)reason) :
			     "internal error",
		peer ? " (said the host)" : "");
	a->done = false;
}

uint16_t tgt_auth_send(struct tgt_req *cmd)
{
	struct tgt_queue *q = cmd->q;
	struct tgt_auth *a = q->auth;
	uint16_t status = check_cmd(cmd);
	size_t out_len = 0;
	int ret;

	if (status)
		return status;
	a->step_ns = mqblk_clock_ns();
	a->msg_len = 0;
	switch (a->x.state) {
	case NVME_AUTH_ST_CHALLENGE:
		ret = nvme_auth_ctrl_step_reply(&a->x, cmd->buf, cmd->xfer_len,
						a->msg, sizeof(a->msg),
						&out_len);
		if (!ret && a->x.state == NVME_AUTH_ST_DONE)
			a->done = true; /* one way: Success1 ends it */
		break;
	case NVME_AUTH_ST_SUCCESS1:
		ret = nvme_auth_ctrl_step_success2(&a->x, cmd->buf,
						   cmd->xfer_len);
		if (!ret)
			a->done = true;
		break;
	default:
		/* a Negotiate starts (or, authenticated, restarts) it */
		ret = nvme_auth_ctrl_step_negotiate(&a->x, cmd->buf,
						    cmd->xfer_len, a->msg,
						    sizeof(a->msg), &out_len);
		break;
	}
	a->msg_len = out_len;
	if (ret < 0) {
		auth_failed(q, ret, false);
		q->stopping = true; /* closes once the answer is out */
		return NVME_SC_INTERNAL;
	}
	if (ret > 0) {
		auth_failed(q, ret, a->x.peer_failed);
		if (a->x.peer_failed || !out_len)
			q->stopping = true;
		else
			a->close_after = true; /* after the Failure1 */
	} else if (a->done && q->t->verbose) {
		tgt_log("ctrl %u qid %u: host %s authenticated (%s, %s%s)",
			q->ctrl->cntlid, q->qid, a->hostnqn,
			nvme_auth_hash_name(a->x.hash),
			nvme_auth_dhgroup_name(a->x.dhgroup),
			a->x.bidirectional ? ", bidirectional" : "");
	}
	return 0;
}

uint16_t tgt_auth_receive(struct tgt_req *cmd)
{
	struct tgt_queue *q = cmd->q;
	struct tgt_auth *a = q->auth;
	uint16_t status = check_cmd(cmd);

	if (status)
		return status;
	if (!a->msg_len)
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	a->step_ns = mqblk_clock_ns();
	if (cmd->xfer_len < a->msg_len)
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	if (tgt_req_alloc_buf(cmd, cmd->xfer_len))
		return NVME_SC_INTERNAL;
	memset(cmd->buf, 0, cmd->xfer_len);
	memcpy(cmd->buf, a->msg, a->msg_len);
	OPENSSL_cleanse(a->msg, a->msg_len);
	a->msg_len = 0;
	if (a->close_after)
		q->stopping = true; /* the Failure1 goes, then the queue */
	return 0;
}
