// SPDX-License-Identifier: MIT
/*
 * Controllers and queues in the core: a queue's life as the core sees it
 * (its controller reference, depth gauges, the tick that runs keep-alive
 * and stall reports), and the fabrics commands that make controllers
 * (Connect) and drive their registers (Property Get/Set: CC, CSTS and
 * the shutdown that flushes every namespace first).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mqblk/mqblk.h"
#include "nvmet.h"
#include "stats.h"

#define SQE_OFF_SQSIZE 44 /* Connect: field offsets for IPO */
#define SQE_OFF_QID 42
#define SQE_OFF_RECFMT 40
#define DATA_OFF_CNTLID 16
#define DATA_OFF_SUBNQN 256
#define DATA_OFF_HOSTNQN 512

static uint64_t now_ns(void)
{
	return mqblk_clock_ns();
}

static bool ctrl_ready(const struct tgt_ctrl *ctrl)
{
	return atomic_load(&ctrl->csts) & NVME_CSTS_RDY;
}

/* ---- Queues ------------------------------------------------------------ */

void tgt_queue_init(struct tgt_queue *q, const struct tgt_transport_ops *ops,
		    struct tgt_reactor *r, struct tgt_port *port)
{
	q->ops = ops;
	q->r = r;
	q->t = r->t;
	q->port = port;
	q->born_ns = mqblk_clock_ns();
}

void tgt_queue_depth_inc(struct tgt_queue *q)
{
	q->inflight++;
	atomic_store_explicit(&q->st.depth, q->inflight, memory_order_relaxed);
	if (q->inflight >
	    atomic_load_explicit(&q->st.max_depth, memory_order_relaxed))
		atomic_store_explicit(&q->st.max_depth, q->inflight,
				      memory_order_relaxed);
}

void tgt_queue_depth_dec(struct tgt_queue *q)
{
	q->inflight--;
	atomic_store_explicit(&q->st.depth, q->inflight, memory_order_relaxed);
}

bool tgt_queue_idle(const struct tgt_queue *q)
{
	return !q->dev_inflight;
}

void tgt_queue_release(struct tgt_queue *q)
{
	struct tgt_ctrl *ctrl = q->ctrl;

	if (!ctrl)
		return;
	if (q->qid) {
		pthread_mutex_lock(&ctrl->subsys->lock);
		if (ctrl->ioq[q->qid] == q)
			ctrl->ioq[q->qid] = NULL;
		pthread_mutex_unlock(&ctrl->subsys->lock);
	} else {
		/* the admin queue is the controller */
		atomic_store(&ctrl->dead, true);
		ctrl->adminq = NULL;
	}
	q->ctrl = NULL;
	tgt_ctrl_put(ctrl);
}

/* ---- Controllers ------------------------------------------------------- */

static void ctrl_unlink(struct tgt_ctrl *ctrl)
{
	struct tgt_subsys *s = ctrl->subsys;
	struct tgt_ctrl **pp;

	pthread_mutex_lock(&s->lock);
	for (pp = &s->ctrls; *pp; pp = &(*pp)->next) {
		if (*pp == ctrl) {
			*pp = ctrl->next;
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
}

void tgt_ctrl_put(struct tgt_ctrl *ctrl)
{
	if (atomic_fetch_sub(&ctrl->refs, 1) != 1)
		return;
	/* off the list and into its subsystem's counters at once */
	tgt_stats_lock();
	ctrl_unlink(ctrl);
	tgt_stats_ctrl_gone(ctrl);
	tgt_stats_unlock();
	if (ctrl->tgt->verbose)
		tgt_log("ctrl %u (%s, %s): freed", ctrl->cntlid, ctrl->hostnqn,
			ctrl->subsys->nqn);
	free(ctrl);
}

/* A free controller ID of s in [cntlid_min, cntlid_max]; 0 if none.
 * Under s->lock. */
static uint16_t ctrl_alloc_id(struct tgt_subsys *s)
{
	unsigned span = (unsigned)s->cntlid_max - s->cntlid_min + 1, i;

	for (i = 0; i < span; i++) {
		uint16_t id;
		struct tgt_ctrl *c;

		if (s->next_cntlid < s->cntlid_min ||
		    s->next_cntlid > s->cntlid_max)
			s->next_cntlid = s->cntlid_min;
		id = s->next_cntlid++;
		for (c = s->ctrls; c; c = c->next)
			if (c->cntlid == id)
				break;
		if (!c)
			return id;
	}
	return 0;
}

/* ---- Fabrics commands ------------------------------------------------------ */

static struct tgt_subsys *port_find_subsys(struct tgt_queue *q, const char *nqn)
{
	unsigned i;

	/* the well-known discovery NQN, or the one the config named */
	if (!strcmp(nqn, NVME_DISC_SUBSYS_NAME) || !strcmp(nqn, q->t->disc.nqn))
		return &q->t->disc;
	if (q->port->discovery_only)
		return NULL;
	for (i = 0; i < q->port->nr_subsys; i++)
		if (!strcmp(q->port->subsys[i]->nqn, nqn))
			return q->port->subsys[i];
	return NULL;
}

/* Connect's "invalid parameter" result: the bad field's offset, in the
 * command (0) or in the data (1). */
static uint64_t connect_ipo(uint16_t off, bool in_data)
{
	return (uint64_t)off | (uint64_t)(in_data ? 1 : 0) << 16;
}

static bool any_vwc(const struct tgt_subsys *s)
{
	unsigned i;

	for (i = 0; i < s->nr_ns; i++)
		if (s->ns[i]->enabled && s->ns[i]->vwc)
			return true;
	return false;
}

static uint16_t connect_admin(struct tgt_queue *q, struct tgt_req *cmd,
			      struct tgt_subsys *s,
			      const struct nvmf_connect_data *d)
{
	const struct nvmf_connect_command *c = &cmd->sqe.connect;
	struct tgt_ctrl *ctrl;

	if (le16_to_cpu(d->cntlid) != NVME_CNTLID_DYNAMIC) {
		cmd->result = connect_ipo(DATA_OFF_CNTLID, true);
		return NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
	}
	ctrl = calloc(1, sizeof(*ctrl));
	if (!ctrl)
		return NVME_SC_INTERNAL;
	ctrl->tgt = q->t;
	ctrl->subsys = s;
	ctrl->port = q->port;
	ctrl->adminq = q;
	memcpy(ctrl->hostnqn, d->hostnqn, TGT_NQN_MAX);
	memcpy(ctrl->hostid, d->hostid, sizeof(ctrl->hostid));
	ctrl->cap = nvme_cap_make(q->port->max_queue_size - 1, 15 /* 7.5 s */,
				  NVME_CAP_CSS_NVM, 0, 0);
	ctrl->vs = NVME_VS(1, 3, 0);
	ctrl->sqsize = le16_to_cpu(c->sqsize);
	ctrl->kato_ms = le32_to_cpu(c->kato);
	ctrl->nr_io_queues = TGT_MAX_IO_QUEUES;
	ctrl->vwc = any_vwc(s);
	ctrl->start_ns = now_ns();
	atomic_store(&ctrl->last_ka_ns, ctrl->start_ns);
	atomic_store(&ctrl->refs, 1);
	pthread_mutex_lock(&s->lock);
	ctrl->cntlid = ctrl_alloc_id(s);
	if (!ctrl->cntlid) {
		pthread_mutex_unlock(&s->lock);
		free(ctrl);
		return NVME_SC_CONNECT_CTRL_BUSY | NVME_SC_DNR;
	}
	ctrl->next = s->ctrls;
	s->ctrls = ctrl;
	pthread_mutex_unlock(&s->lock);
	q->ctrl = ctrl;
	tgt_log("ctrl %u: %s controller for %s (host %s, kato %u ms) "
		"from %s",
		ctrl->cntlid, s->discovery ? "discovery" : "I/O", s->nqn,
		ctrl->hostnqn, ctrl->kato_ms, q->peer);
	return 0;
}

static uint16_t connect_io(struct tgt_queue *q, struct tgt_req *cmd,
			   struct tgt_subsys *s,
			   const struct nvmf_connect_data *d, uint16_t qid)
{
	uint16_t cntlid = le16_to_cpu(d->cntlid);
	struct tgt_ctrl *ctrl;

	if (s->discovery) {
		cmd->result = connect_ipo(SQE_OFF_QID, false);
		return NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
	}
	pthread_mutex_lock(&s->lock);
	for (ctrl = s->ctrls; ctrl; ctrl = ctrl->next)
		if (ctrl->cntlid == cntlid)
			break;
	if (!ctrl || atomic_load(&ctrl->dead) ||
	    strncmp(ctrl->hostnqn, d->hostnqn, TGT_NQN_MAX)) {
		pthread_mutex_unlock(&s->lock);
		cmd->result = connect_ipo(DATA_OFF_CNTLID, true);
		return NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
	}
	if (!ctrl_ready(ctrl)) {
		pthread_mutex_unlock(&s->lock);
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	}
	if (qid > ctrl->nr_io_queues || qid > TGT_MAX_IO_QUEUES) {
		pthread_mutex_unlock(&s->lock);
		cmd->result = connect_ipo(SQE_OFF_QID, false);
		return NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
	}
	if (ctrl->ioq[qid]) {
		pthread_mutex_unlock(&s->lock);
		tgt_log("ctrl %u: qid %u connected twice (from %s): refused",
			ctrl->cntlid, qid, q->peer);
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	}
	ctrl->ioq[qid] = q;
	atomic_fetch_add(&ctrl->refs, 1);
	pthread_mutex_unlock(&s->lock);
	q->ctrl = ctrl;
	return 0;
}

static uint16_t do_connect(struct tgt_queue *q, struct tgt_req *cmd)
{
	const struct nvmf_connect_command *c = &cmd->sqe.connect;
	struct nvmf_connect_data d;
	uint16_t qid = le16_to_cpu(c->qid);
	uint16_t sqsize = le16_to_cpu(c->sqsize);
	struct tgt_subsys *s;
	uint16_t status;

	memcpy(&d, cmd->buf, sizeof(d));
	if (le16_to_cpu(c->recfmt)) {
		cmd->result = connect_ipo(SQE_OFF_RECFMT, false);
		return NVME_SC_CONNECT_FORMAT | NVME_SC_DNR;
	}
	if (strnlen(d.subsysnqn, NVME_NQN_SIZE) > TGT_NQN_MAX) {
		cmd->result = connect_ipo(DATA_OFF_SUBNQN, true);
		return NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
	}
	if (strnlen(d.hostnqn, NVME_NQN_SIZE) > TGT_NQN_MAX) {
		cmd->result = connect_ipo(DATA_OFF_HOSTNQN, true);
		return NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
	}
	s = port_find_subsys(q, d.subsysnqn);
	if (!s) {
		tgt_log("connect from %s (host %.223s): no subsystem %.223s "
			"on this port",
			q->peer, d.hostnqn, d.subsysnqn);
		cmd->result = connect_ipo(DATA_OFF_SUBNQN, true);
		return NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
	}
	/* the PSK proved who the host is: it connects as that host, to
	 * the subsystem its identity named */
	if (q->tls && (strncmp(d.hostnqn, q->tls_hostnqn, NVME_NQN_SIZE) ||
		       strncmp(d.subsysnqn, q->tls_subnqn, NVME_NQN_SIZE))) {
		tgt_log("connect from %s: host %.223s to %.223s over a TLS "
			"connection whose PSK identity names host %s and %s: "
			"refused",
			q->peer, d.hostnqn, d.subsysnqn, q->tls_hostnqn,
			q->tls_subnqn);
		cmd->result = connect_ipo(DATA_OFF_HOSTNQN, true);
		return NVME_SC_CONNECT_INVALID_HOST | NVME_SC_DNR;
	}
	if (!s->discovery && !tgt_host_allowed(s, d.hostnqn)) {
		tgt_log("connect from %s: host %.223s not allowed to %s",
			q->peer, d.hostnqn, s->nqn);
		cmd->result = connect_ipo(DATA_OFF_HOSTNQN, true);
		return NVME_SC_CONNECT_INVALID_HOST | NVME_SC_DNR;
	}
	/* MQES bounds the I/O queues only (for fabrics, as nvmet) */
	if (!sqsize ||
	    sqsize >= (qid ? q->port->max_queue_size : TGT_MAX_QUEUE_DEPTH)) {
		cmd->result = connect_ipo(SQE_OFF_SQSIZE, false);
		return NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
	}
	status = qid ? connect_io(q, cmd, s, &d, qid) :
		       connect_admin(q, cmd, s, &d);
	if (status)
		return status;

	/* a host with a key authenticates this queue before anything else
	 * (AUTHREQ.ATR below); the state goes with the queue */
	if (tgt_auth_queue_init(q, tgt_host_find(s, d.hostnqn), s->nqn)) {
		q->ops->queue_quiesce(q);
		return NVME_SC_INTERNAL;
	}
	if (q->ops->queue_connected(q, (unsigned)sqsize + 1)) {
		/* undo: the queue is not the controller's after all */
		q->ops->queue_quiesce(q);
		return NVME_SC_INTERNAL;
	}
	q->qid = qid;
	atomic_store(&q->st.qid, qid);
	atomic_store(&q->st.cntlid, q->ctrl->cntlid);
	atomic_store(&q->st.ctrl, q->ctrl);
	q->sqsize = sqsize;
	q->sqflow_off = c->cattr & NVME_CONNECT_DISABLE_SQFLOW;
	q->sqhd = 1 % ((unsigned)sqsize + 1);
	q->connected = true;
	atomic_store(&q->ctrl->last_ka_ns, now_ns());
	cmd->result = q->ctrl->cntlid;
	if (q->auth)
		cmd->result |= NVME_CONNECT_AUTHREQ_ATR;
	if (q->t->verbose && qid)
		tgt_log("ctrl %u: I/O queue %u (depth %u) from %s",
			q->ctrl->cntlid, qid, q->nr_reqs, q->peer);
	return 0;
}

static uint16_t prop_get(struct tgt_queue *q, struct tgt_req *cmd)
{
	const struct nvmf_property_get_command *c = &cmd->sqe.prop_get;
	struct tgt_ctrl *ctrl = q->ctrl;
	bool wide = c->attrib & NVMF_PROP_ATTR_8BYTE;

	switch (le32_to_cpu(c->offset)) {
	case NVME_REG_CAP:
		if (!wide)
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		cmd->result = ctrl->cap;
		return 0;
	case NVME_REG_VS:
		cmd->result = ctrl->vs;
		break;
	case NVME_REG_CC:
		cmd->result = ctrl->cc;
		break;
	case NVME_REG_CSTS:
		cmd->result = atomic_load(&ctrl->csts);
		break;
	default:
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	return wide ? NVME_SC_INVALID_FIELD | NVME_SC_DNR : 0;
}

/* Property Set: only CC is writable. Returns TGT_STATUS_DEFER when a
 * shutdown's flush is under way (the response waits for it). */
static uint16_t prop_set(struct tgt_queue *q, struct tgt_req *cmd)
{
	const struct nvmf_property_set_command *c = &cmd->sqe.prop_set;
	struct tgt_ctrl *ctrl = q->ctrl;
	uint32_t old = ctrl->cc, cc, csts;

	if (le32_to_cpu(c->offset) != NVME_REG_CC ||
	    (c->attrib & NVMF_PROP_ATTR_8BYTE))
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	cc = (uint32_t)le64_to_cpu(c->value);
	ctrl->cc = cc;
	csts = atomic_load(&ctrl->csts);
	if ((cc & NVME_CC_ENABLE) && !(old & NVME_CC_ENABLE)) {
		if (NVME_CC_IOSQES(cc) != 6 || NVME_CC_IOCQES(cc) != 4 ||
		    NVME_CC_MPS(cc) != 0 ||
		    NVME_CC_CSS(cc) != NVME_CC_CSS_NVM ||
		    NVME_CC_AMS(cc) != 0) {
			tgt_log("ctrl %u: CC 0x%x not supported: controller "
				"fatal status",
				ctrl->cntlid, cc);
			csts |= NVME_CSTS_CFS;
		} else {
			csts |= NVME_CSTS_RDY;
		}
	} else if (!(cc & NVME_CC_ENABLE) && (old & NVME_CC_ENABLE)) {
		csts &= ~(NVME_CSTS_RDY | NVME_CSTS_CFS | NVME_CSTS_SHST_MASK);
	}
	if (NVME_CC_SHN(cc) && !NVME_CC_SHN(old)) {
		/* shutdown: flush every namespace's cache, then report
		 * SHST complete and answer */
		atomic_store(&ctrl->csts, (csts & ~NVME_CSTS_SHST_MASK) |
						  NVME_CSTS_SHST_OCCUR);
		cmd->shutdown_flush = true;
		cmd->step = 0;
		cmd->state = CMD_EXEC;
		tgt_req_issue(cmd);
		return TGT_STATUS_DEFER;
	}
	if (!NVME_CC_SHN(cc))
		csts &= ~NVME_CSTS_SHST_MASK;
	atomic_store(&ctrl->csts, csts);
	return 0;
}

void tgt_fabrics_exec(struct tgt_req *cmd)
{
	struct tgt_queue *q = cmd->q;
	uint16_t status;

	switch (cmd->sqe.fabrics.fctype) {
	case nvme_fabrics_type_connect:
		status = do_connect(q, cmd);
		break;
	case nvme_fabrics_type_property_get:
		status = prop_get(q, cmd);
		break;
	case nvme_fabrics_type_auth_send:
		status = tgt_auth_send(cmd);
		break;
	case nvme_fabrics_type_auth_receive:
		status = tgt_auth_receive(cmd);
		break;
	default:
		status = prop_set(q, cmd);
		if (status == TGT_STATUS_DEFER)
			return;
		break;
	}
	tgt_req_complete(cmd, status);
}

/* ---- Timers: keep-alive, teardown, stalls ------------------------------ */

void tgt_queue_tick(struct tgt_queue *q, uint64_t now)
{
	struct tgt_ctrl *ctrl = q->ctrl;
	unsigned i;

	if (q->stopping && !q->closing) {
		/* shutdown: close once every answer is out; R2Ts whose data
		 * will not be read are dropped (nothing of theirs was
		 * acknowledged) */
		if (!q->dev_inflight && q->ops->queue_drained(q))
			q->ops->queue_quiesce(q);
		return;
	}
	if (!q->connected && !q->closing) {
		uint64_t tmo = q->t->connect_timeout_ms ?
				       q->t->connect_timeout_ms :
				       TGT_CONNECT_TIMEOUT_MS;

		/* ICReq and Connect take a host microseconds: one that
		 * has sent neither (or half of one) in this long holds a
		 * connection for nothing (slowloris) */
		if (now > q->born_ns && now - q->born_ns >= tmo * 1000000) {
			atomic_fetch_add(&q->t->conn_timeouts, 1);
			if (q->t->verbose)
				tgt_log("queue %s: no Connect in %llu ms: "
					"closing",
					q->peer, (unsigned long long)tmo);
			q->ops->queue_quiesce(q);
		}
		return;
	}
	if (!ctrl || q->closing)
		return;
	if (tgt_auth_expired(q, now)) {
		tgt_log("ctrl %u qid %u (host %s): DH-HMAC-CHAP not completed "
			"within %u ms of its last step: closing the queue",
			ctrl->cntlid, q->qid, ctrl->hostnqn,
			TGT_AUTH_TIMEOUT_MS);
		q->stopping = true;
		return;
	}
	if (!atomic_load(&ctrl->dead) && tgt_ka_expired(ctrl, now)) {
		/* the admin queue's reactor tears the controller down at its
		 * own tick; an I/O queue on another reactor, after a stall,
		 * must not run what waited in its socket before that */
		if (q->qid) {
			if (q->t->verbose)
				tgt_log("ctrl %u qid %u: keep-alive expired, "
					"closing",
					ctrl->cntlid, q->qid);
			q->ops->queue_quiesce(q);
			return;
		}
		tgt_log("ctrl %u (host %s, %s): keep-alive timeout (%u ms) "
			"expired: tearing the controller down (its admin "
			"queue still answers a shutdown)",
			ctrl->cntlid, ctrl->hostnqn, ctrl->subsys->nqn,
			ctrl->kato_ms);
		atomic_store(&ctrl->dead, true);
		ctrl->ka_dead_ns = now;
	}
	/*
	 * A host deleting a controller stops its keep-alives first, then
	 * removes its namespaces (Linux: nvme_stop_ctrl, then
	 * nvme_remove_namespaces; hundreds of them take longer than KATO),
	 * then shuts the controller down: the I/O queues close at once,
	 * the admin queue stays to answer that Property Set (and the
	 * Property Gets polling CSTS) until the host closes it, sends any
	 * other command (a live host learns so that its controller is
	 * gone), or the grace is over.
	 */
	if (atomic_load(&ctrl->dead) && !q->qid && ctrl->adminq == q &&
	    ctrl->ka_dead_ns &&
	    now - ctrl->ka_dead_ns < TGT_KA_SHUTDOWN_GRACE_MS * 1000000ull)
		return;
	if (atomic_load(&ctrl->dead)) {
		if (q->t->verbose)
			tgt_log("ctrl %u qid %u: controller gone, closing",
				ctrl->cntlid, q->qid);
		q->ops->queue_quiesce(q);
		return;
	}
	if (!q->t->stall_ms)
		return;
	for (i = 0; i < q->nr_reqs; i++) {
		struct tgt_req *cmd = tgt_queue_req(q, i);

		if (cmd->state == CMD_FREE || cmd->state == CMD_AER ||
		    cmd->stall_logged)
			continue;
		if (now - cmd->start_ns < (uint64_t)q->t->stall_ms * 1000000)
			continue;
		cmd->stall_logged = true;
		tgt_stat_add(&q->st.stalls, 1);
		tgt_log("stall: ctrl %u qid %u cid %u opcode 0x%02x "
			"outstanding %.1f s (%s)",
			ctrl->cntlid, q->qid, cmd->sqe.common.command_id,
			cmd->sqe.common.opcode,
			(double)(now - cmd->start_ns) / 1e9,
			cmd->state == CMD_R2T  ? "waiting for host data" :
			cmd->state == CMD_EXEC ? "at the device" :
			cmd->state == CMD_TX   ? "sending" :
						 "receiving");
	}
}
