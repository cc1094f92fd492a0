// SPDX-License-Identifier: MIT
/*
 * A request's life in the core, whatever transport brought it: checks
 * before any data moves (queue state, namespace, ANA, range), execution
 * (fabrics, admin, or device I/O through the reactor's device queues:
 * one device request at a time, a Flush per namespace or a discard per
 * range where a command needs several), and the answer, which the
 * transport sends (ops->queue_response).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mqblk/mqblk.h"
#include "nvmet.h"
#include "stats.h"

static void cmd_finish(struct tgt_req *cmd, uint16_t status);

/* ---- Buffers ------------------------------------------------------------- */

int tgt_req_alloc_buf(struct tgt_req *cmd, uint32_t len)
{
	cmd->buf = tgt_buf_get(cmd->q->r, len, &cmd->buf_cap);
	if (!cmd->buf)
		return -ENOMEM;
	/* data for the host: what a host that does not read can pile up
	 * (a write's buffer waits for data only the host can send) */
	cmd->buf_counted = cmd->dir == 1;
	if (cmd->buf_counted)
		cmd->q->buf_bytes += cmd->buf_cap;
	return 0;
}

void tgt_req_release_buf(struct tgt_req *cmd)
{
	if (cmd->buf) {
		struct tgt_queue *q = cmd->q;

		if (cmd->buf_counted) {
			q->buf_bytes -= cmd->buf_cap;
			cmd->buf_counted = false;
		}
		if (q->buf_held && q->buf_bytes < TGT_QUEUE_BUF_CAP / 2)
			q->ops->queue_buf_low(q);
		tgt_buf_put(cmd->q->r, cmd->buf, cmd->buf_cap);
		cmd->buf = NULL;
		cmd->buf_cap = 0;
	}
}

/* ---- Arrival ------------------------------------------------------------- */

/* 0 none, 1 controller to host, 2 host to controller */
static int cmd_dir(const struct tgt_queue *q, const union nvme_command *c)
{
	if (c->common.opcode == nvme_fabrics_command) {
		switch (c->fabrics.fctype) {
		case nvme_fabrics_type_connect:
		case nvme_fabrics_type_auth_send:
			return 2;
		case nvme_fabrics_type_auth_receive:
			return 1;
		default:
			return 0;
		}
	}
	if (!q->qid)
		return tgt_admin_data_dir(c);
	switch (c->common.opcode) {
	case nvme_cmd_read:
		return 1;
	case nvme_cmd_write:
	case nvme_cmd_dsm:
		return 2;
	default:
		return 0;
	}
}

void tgt_req_init(struct tgt_req *cmd, struct tgt_queue *q)
{
	cmd->q = q;
	cmd->state = CMD_RX_DATA;
	cmd->stall_logged = false;
	cmd->err_logged = false;
	cmd->status = 0;
	cmd->xfer_len = 0;
	cmd->ns = NULL;
	cmd->nst = NULL;
	cmd->result = 0;
	cmd->step = 0;
	cmd->shutdown_flush = false;
	cmd->start_ns = mqblk_clock_ns();
	tgt_stat_add(&q->st.cmds, 1);
	if (q->connected) {
		q->sqhd = (uint16_t)((q->sqhd + 1u) % (q->sqsize + 1u));
		/* a command keeps its controller alive unless it comes too
		 * late: then tgt_req_prepare answers it as a torn-down one
		 * (the host may have sent it again on another path since,
		 * and newer writes after it) */
		if (!tgt_ka_expired(q->ctrl, cmd->start_ns))
			atomic_store_explicit(&q->ctrl->last_ka_ns,
					      cmd->start_ns,
					      memory_order_relaxed);
		else
			cmd->status = NVME_SC_ABORT_QUEUE;
	}
	cmd->dir = (uint8_t)cmd_dir(q, &cmd->sqe);
}

/* ---- Validation before any data moves ---------------------------------- */

static bool ctrl_ready(const struct tgt_ctrl *ctrl)
{
	return atomic_load(&ctrl->csts) & NVME_CSTS_RDY;
}

/*
 * A namespace's ANA group is not reachable through this port: the
 * path-related status that sends a multipath host to another path (no
 * DNR: another path may do). As nvmet's, for I/O commands only.
 */
static uint16_t ana_status(struct tgt_port *port, const struct tgt_ns *ns)
{
	switch (atomic_load_explicit(&port->ana_state[ns->anagrpid],
				     memory_order_relaxed)) {
	case NVME_ANA_INACCESSIBLE:
		return NVME_SC_ANA_INACCESSIBLE;
	case NVME_ANA_PERSISTENT_LOSS:
		return NVME_SC_ANA_PERSISTENT_LOSS;
	case NVME_ANA_CHANGE:
		return NVME_SC_ANA_TRANSITION;
	default:
		return 0;
	}
}

static uint16_t io_prepare(struct tgt_req *cmd)
{
	struct tgt_queue *q = cmd->q;
	const union nvme_command *c = &cmd->sqe;
	uint32_t nsid = le32_to_cpu(c->common.nsid);
	struct tgt_ns *ns = tgt_subsys_ns(q->ctrl->subsys, nsid);
	uint64_t slba, nlb, nblocks;
	uint16_t status;

	if (c->common.opcode == nvme_cmd_flush && nsid == 0xffffffff)
		return 0; /* every namespace */
	switch (c->common.opcode) {
	case nvme_cmd_read:
	case nvme_cmd_write:
	case nvme_cmd_write_zeroes:
	case nvme_cmd_flush:
	case nvme_cmd_dsm:
		break;
	default:
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
	if (!ns)
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	cmd->ns = ns;
	cmd->nst = &ns->st[q->r->idx];
	status = ana_status(q->port, ns);
	if (status)
		return status;
	nblocks = ns->size >> ns->lba_shift;
	if (ns->readonly && c->common.opcode != nvme_cmd_read &&
	    c->common.opcode != nvme_cmd_flush)
		return NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR;
	switch (c->common.opcode) {
	case nvme_cmd_read:
	case nvme_cmd_write:
	case nvme_cmd_write_zeroes:
		slba = le64_to_cpu(c->rw.slba);
		nlb = (uint64_t)le16_to_cpu(c->rw.length) + 1;
		if (slba >= nblocks || nlb > nblocks - slba)
			return NVME_SC_LBA_RANGE | NVME_SC_DNR;
		if (c->common.opcode != nvme_cmd_write_zeroes &&
		    nlb << ns->lba_shift != cmd->xfer_len)
			return NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
		break;
	case nvme_cmd_dsm: {
		uint32_t nr = (le32_to_cpu(c->common.cdw10) & 0xff) + 1;

		if (cmd->xfer_len < nr * 16)
			return NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
		break;
	}
	default:
		break;
	}
	return 0;
}

uint16_t tgt_req_prepare(struct tgt_req *cmd)
{
	struct tgt_queue *q = cmd->q;
	const union nvme_command *c = &cmd->sqe;

	if (c->common.opcode == nvme_fabrics_command) {
		switch (c->fabrics.fctype) {
		case nvme_fabrics_type_connect:
			if (q->connected)
				return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
			if (cmd->xfer_len != sizeof(struct nvmf_connect_data))
				return NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
			return 0;
		case nvme_fabrics_type_property_get:
		case nvme_fabrics_type_property_set:
			if (!q->connected)
				return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
			if (q->qid)
				return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
			if (tgt_auth_pending(q))
				return NVME_SC_AUTH_REQUIRED | NVME_SC_DNR;
			return 0;
		case nvme_fabrics_type_auth_send:
		case nvme_fabrics_type_auth_receive:
			if (!q->connected)
				return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
			if (!q->auth) /* the host has no key */
				return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
			return 0;
		default:
			return q->connected ?
				       NVME_SC_INVALID_OPCODE | NVME_SC_DNR :
				       NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
		}
	}
	/* anything but Connect before Connect */
	if (!q->connected)
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	if (tgt_auth_pending(q))
		return NVME_SC_AUTH_REQUIRED | NVME_SC_DNR;
	if (atomic_load(&q->ctrl->dead)) {
		/* only a shutdown is answered after a keep-alive teardown:
		 * the admin queue closes at the next tick (ctrl.c) */
		if (!q->qid)
			q->ctrl->ka_dead_ns = 0;
		return NVME_SC_ABORT_QUEUE;
	}
	/* came after the keep-alive ran out, before the admin queue's
	 * tick tore the controller down (tgt_req_init) */
	if (cmd->status)
		return cmd->status;
	if (!q->qid) {
		/* admin commands but Property Get/Set need CSTS.RDY */
		if (!ctrl_ready(q->ctrl))
			return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
		return 0;
	}
	if (!ctrl_ready(q->ctrl))
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	return io_prepare(cmd);
}

/* ---- Device I/O ------------------------------------------------------------ */

/*
 * A write with FUA, or any write once the host turned the volatile write
 * cache off (Set Features 06h), is durable before it is acknowledged: a
 * write carries MQBLK_REQ_FUA (RWF_DSYNC in the uring driver), but Write
 * Zeroes and deallocation are fallocate, which has no such flag, so they
 * are followed by a Flush of the namespace.
 */
static bool wz_needs_flush(const struct tgt_req *cmd)
{
	return cmd->ns->vwc &&
	       ((le16_to_cpu(cmd->sqe.rw.control) & NVME_RW_FUA) ||
		!cmd->q->ctrl->vwc);
}

/*
 * The next device request cmd needs, from cmd->step on: read and write
 * are one; Write Zeroes one, then a Flush when it must be durable
 * (wz_needs_flush); Flush one per namespace with a write cache (all of
 * them for NSID FFFFFFFFh or a shutdown); Dataset Management one discard
 * per non-empty range when AD is set, then a Flush when the host turned
 * the write cache off. false: nothing (left).
 */
static bool cmd_next_op(struct tgt_req *cmd, enum mqblk_op *op, uint64_t *off,
			uint32_t *len, void **buf)
{
	const union nvme_command *c = &cmd->sqe;
	struct tgt_subsys *s = cmd->q->ctrl->subsys;
	bool all = cmd->shutdown_flush;

	*buf = NULL;
	if (!all && c->common.opcode == nvme_cmd_flush &&
	    le32_to_cpu(c->common.nsid) == 0xffffffff)
		all = true;
	if (all) {
		/* step is the last NSID flushed, not an index: the control
		 * socket may add or remove namespaces between two flushes
		 * (core/live.c), and the rest must each get theirs */
		unsigned i;

		for (i = 0; i < s->nr_ns; i++) {
			struct tgt_ns *ns = s->ns[i];

			if (ns->nsid <= cmd->step)
				continue;
			cmd->step = ns->nsid;
			if (ns->enabled && ns->dev && ns->vwc &&
			    !ns->readonly) {
				cmd->ns = ns;
				*op = MQBLK_OP_FLUSH;
				*off = 0;
				*len = 0;
				return true;
			}
		}
		return false;
	}
	switch (c->common.opcode) {
	case nvme_cmd_read:
	case nvme_cmd_write:
	case nvme_cmd_write_zeroes:
		if (cmd->step == 1 &&
		    c->common.opcode == nvme_cmd_write_zeroes &&
		    wz_needs_flush(cmd)) {
			/* fallocate has no FUA: a Flush after it */
			cmd->step++;
			*op = MQBLK_OP_FLUSH;
			*off = 0;
			*len = 0;
			return true;
		}
		if (cmd->step++)
			return false;
		*op = c->common.opcode == nvme_cmd_read ? MQBLK_OP_READ :
		      c->common.opcode == nvme_cmd_write ?
							  MQBLK_OP_WRITE :
							  MQBLK_OP_WRITE_ZEROES;
		*off = le64_to_cpu(c->rw.slba) << cmd->ns->lba_shift;
		*len = (uint32_t)(((uint64_t)le16_to_cpu(c->rw.length) + 1)
				  << cmd->ns->lba_shift);
		if (*op != MQBLK_OP_WRITE_ZEROES)
			*buf = cmd->buf;
		return true;
	case nvme_cmd_flush:
		if (cmd->step++ || !cmd->ns->vwc)
			return false;
		*op = MQBLK_OP_FLUSH;
		*off = 0;
		*len = 0;
		return true;
	case nvme_cmd_dsm: {
		uint32_t nr = (le32_to_cpu(c->common.cdw10) & 0xff) + 1;
		uint64_t nblocks = cmd->ns->size >> cmd->ns->lba_shift;

		if (!(le32_to_cpu(c->common.cdw11) & (1u << 2)))
			return false; /* only attributes: a hint we may drop */
		while (cmd->step < nr) {
			const uint8_t *r =
				(const uint8_t *)cmd->buf + 16 * cmd->step++;
			uint64_t nlb = nvme_get_le32(r + 4);
			uint64_t slba = nvme_get_le64(r + 8);

			if (!nlb)
				continue;
			if (slba >= nblocks || nlb > nblocks - slba) {
				cmd->status = NVME_SC_LBA_RANGE | NVME_SC_DNR;
				return false;
			}
			*op = MQBLK_OP_DISCARD;
			*off = slba << cmd->ns->lba_shift;
			*len = (uint32_t)(nlb << cmd->ns->lba_shift);
			if ((nlb << cmd->ns->lba_shift) > UINT32_MAX) {
				cmd->status = NVME_SC_INVALID_FIELD |
					      NVME_SC_DNR;
				return false;
			}
			return true;
		}
		/* deallocated ranges durable before the answer when the host
		 * turned the write cache off, as writes are */
		if (cmd->step++ == nr && cmd->ns->vwc && !cmd->q->ctrl->vwc) {
			*op = MQBLK_OP_FLUSH;
			*off = 0;
			*len = 0;
			return true;
		}
		return false;
	}
	default:
		return false;
	}
}

static uint16_t errno_status(int err, enum mqblk_op op)
{
	switch (err) {
	case EIO:
		return op == MQBLK_OP_READ ? NVME_SC_READ_ERROR :
					     NVME_SC_WRITE_FAULT;
	case ENOSPC:
		return NVME_SC_CAP_EXCEEDED | NVME_SC_DNR;
	case EOPNOTSUPP:
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	case EBADF:
	case EROFS:
		return NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR;
	case ETIMEDOUT:
		return NVME_SC_ABORT_REQ;
	default:
		return NVME_SC_INTERNAL;
	}
}

static void cmd_finish(struct tgt_req *cmd, uint16_t status)
{
	if (cmd->shutdown_flush && !status) {
		struct tgt_ctrl *ctrl = cmd->q->ctrl;
		uint32_t csts = atomic_load(&ctrl->csts);

		atomic_store(&ctrl->csts, (csts & ~NVME_CSTS_SHST_MASK) |
						  NVME_CSTS_SHST_CMPLT);
		if (ctrl->tgt->verbose)
			tgt_log("ctrl %u: shutdown complete (caches flushed)",
				ctrl->cntlid);
	}
	tgt_req_complete(cmd, status);
}

/* Issue cmd's next device request, or complete it if there is none. */
void tgt_req_issue(struct tgt_req *cmd)
{
	struct tgt_queue *q = cmd->q;
	struct mqblk_queue *mq;
	struct mqblk_rq *rq;
	enum mqblk_op op;
	uint64_t off;
	uint32_t len;
	void *buf;
	int ret;

	if (!cmd_next_op(cmd, &op, &off, &len, &buf)) {
		cmd_finish(cmd, cmd->status);
		return;
	}
	mq = tgt_ns_queue(q->r, cmd->ns);
	if (!mq) {
		cmd_finish(cmd, NVME_SC_INTERNAL);
		return;
	}
	rq = mqblk_rq_get(mq, MQBLK_RQ_NOWAIT);
	if (!rq) {
		/* every device tag is in use: retried as completions come */
		cmd->step--;
		q->dev_inflight++; /* keeps the queue until it is retried */
		tgt_reactor_wait_tag(q->r, cmd);
		return;
	}
	rq->op = op;
	/* FUA as asked, and for every write once the host turned the
	 * volatile write cache off (Set Features 06h) */
	rq->flags = op == MQBLK_OP_WRITE && ((le16_to_cpu(cmd->sqe.rw.control) &
					      NVME_RW_FUA) ||
					     (cmd->ns->vwc && !q->ctrl->vwc)) ?
			    MQBLK_REQ_FUA :
			    0;
	rq->offset = off;
	rq->len = len;
	rq->buf = buf;
	rq->private = cmd;
	ret = mqblk_submit(rq);
	if (ret) {
		mqblk_rq_put(rq);
		cmd_finish(cmd, errno_status(-ret, op));
		return;
	}
	q->dev_inflight++;
	q->r->dev_inflight++;
}

void tgt_req_retry(struct tgt_req *cmd)
{
	cmd->q->dev_inflight--;
	if (cmd->q->closing) {
		cmd->q->ops->req_free(cmd);
		return;
	}
	tgt_req_issue(cmd);
}

void tgt_req_dev_done(struct mqblk_rq *rq)
{
	struct tgt_req *cmd = rq->private;
	struct tgt_queue *q = cmd->q;
	enum mqblk_op op = rq->op;
	uint16_t status = 0;

	if (rq->nvme_status)
		status = rq->nvme_status;
	else if (rq->res < 0)
		status = errno_status(-rq->res, op);
	else if ((op == MQBLK_OP_READ || op == MQBLK_OP_WRITE) &&
		 (uint32_t)rq->res != rq->len)
		status = op == MQBLK_OP_READ ? NVME_SC_READ_ERROR :
					       NVME_SC_WRITE_FAULT;
	if (!status && op == MQBLK_OP_READ) {
		tgt_stat_add(&q->st.read_bytes, rq->len);
		if (cmd->nst)
			tgt_stat_add(&cmd->nst->read_bytes, rq->len);
		tgt_stat_add(&q->ctrl->smart.read_bytes, rq->len);
		tgt_stat_add(&q->ctrl->smart.read_cmds, 1);
	} else if (!status && op == MQBLK_OP_WRITE) {
		tgt_stat_add(&q->st.write_bytes, rq->len);
		if (cmd->nst)
			tgt_stat_add(&cmd->nst->write_bytes, rq->len);
		tgt_stat_add(&q->ctrl->smart.write_bytes, rq->len);
		tgt_stat_add(&q->ctrl->smart.write_cmds, 1);
	}
	mqblk_rq_put(rq);
	q->dev_inflight--;
	q->r->dev_inflight--;
	if (q->closing) {
		q->ops->req_free(cmd);
		return;
	}
	if (status) {
		if (q->t->verbose)
			tgt_log("queue %s qid %u: cid %u failed at the device "
				"(status 0x%x)",
				q->peer, q->qid, cmd->sqe.common.command_id,
				status);
		cmd_finish(cmd, status);
		return;
	}
	tgt_req_issue(cmd);
}

/* ---- Execution ----------------------------------------------------------- */

static void admin_exec(struct tgt_req *cmd)
{
	struct tgt_queue *q = cmd->q;
	uint32_t result = 0;
	uint16_t status;

	if (cmd->dir == 1 && cmd->xfer_len) {
		if (tgt_req_alloc_buf(cmd, cmd->xfer_len)) {
			tgt_req_complete(cmd, NVME_SC_INTERNAL);
			return;
		}
		memset(cmd->buf, 0, cmd->xfer_len);
	}
	/* an AER is outstanding before the handler runs: the handler may
	 * complete it at once with a pending event */
	cmd->state = cmd->sqe.common.opcode == nvme_admin_async_event ?
			     CMD_AER :
			     CMD_EXEC;
	status = tgt_admin_exec(q->ctrl, &cmd->sqe, cmd->buf, cmd->xfer_len,
				&result);
	if (status == TGT_STATUS_DEFER) {
		if (cmd->state != CMD_AER && cmd->state != CMD_TX &&
		    cmd->state != CMD_FREE) {
			/* only AERs may be deferred */
			tgt_req_complete(cmd, NVME_SC_INTERNAL);
		}
		return;
	}
	cmd->result = result;
	cmd->err_logged = true;
	tgt_req_complete(cmd, status);
}

void tgt_req_exec(struct tgt_req *cmd)
{
	struct tgt_queue *q = cmd->q;

	cmd->state = CMD_EXEC;
	if (cmd->sqe.common.opcode == nvme_fabrics_command) {
		tgt_fabrics_exec(cmd);
		return;
	}
	if (!q->qid) {
		admin_exec(cmd);
		return;
	}
	switch (cmd->sqe.common.opcode) {
	case nvme_cmd_read:
		tgt_stat_add(&q->st.read_cmds, 1);
		if (cmd->nst)
			tgt_stat_add(&cmd->nst->read_cmds, 1);
		break;
	case nvme_cmd_write:
		tgt_stat_add(&q->st.write_cmds, 1);
		if (cmd->nst)
			tgt_stat_add(&cmd->nst->write_cmds, 1);
		break;
	default:
		tgt_stat_add(&q->st.other_cmds, 1);
		if (cmd->nst)
			tgt_stat_add(&cmd->nst->other_cmds, 1);
		break;
	}
	if (cmd->dir == 1 && tgt_req_alloc_buf(cmd, cmd->xfer_len)) {
		tgt_req_complete(cmd, NVME_SC_INTERNAL);
		return;
	}
	tgt_req_issue(cmd);
}

/* ---- The answer --------------------------------------------------------- */

/* Account req's end and hand its answer to the transport. */
void tgt_req_complete(struct tgt_req *cmd, uint16_t status)
{
	struct tgt_queue *q = cmd->q;
	uint64_t lat = mqblk_clock_ns() - cmd->start_ns;

	cmd->state = CMD_TX;
	if (status) {
		tgt_stat_add(&q->st.errors, 1);
		if (q->ctrl && !cmd->err_logged &&
		    (status & 0x7ff) != NVME_SC_TRANSIENT_TR_ERR)
			tgt_ctrl_log_error(q->ctrl, q->qid,
					   cmd->sqe.common.command_id, status,
					   0xffff,
					   le64_to_cpu(cmd->sqe.rw.slba),
					   le32_to_cpu(cmd->sqe.common.nsid));
	}
	tgt_stat_add(&q->st.lat_ns_sum, lat);
	tgt_stat_add(&q->st.lat_count, 1);
	if (lat > atomic_load_explicit(&q->st.lat_ns_max, memory_order_relaxed))
		atomic_store_explicit(&q->st.lat_ns_max, lat,
				      memory_order_relaxed);
	if (cmd->nst)
		tgt_stats_ns_lat(cmd->nst, status, lat);
	q->ops->queue_response(cmd, status);
}

/* Called by admin_cmd.c: complete an outstanding AER with DW0. */
void tgt_queue_complete_aer(struct tgt_ctrl *ctrl, uint16_t cid, uint32_t dw0)
{
	struct tgt_queue *q = ctrl->adminq;
	unsigned i;

	if (!q)
		return;
	for (i = 0; i < q->nr_reqs; i++) {
		struct tgt_req *cmd = tgt_queue_req(q, i);

		if (cmd->state == CMD_AER &&
		    cmd->sqe.common.command_id == cid) {
			cmd->result = dw0;
			tgt_req_complete(cmd, NVME_SC_SUCCESS);
			return;
		}
	}
}
