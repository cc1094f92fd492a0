// SPDX-License-Identifier: MIT
/*
 * The RDMA transport's I/O path: capsules received, host data fetched
 * with RDMA READ, answers sent as RDMA WRITE (a read's data) and SEND
 * (the completion, with invalidate when the host's SGL asks), and the
 * completions that say when a slot may be reused.
 *
 * Slot reuse (the lesson of the seed's thread): a command's buffer and
 * slot go back only once its SEND is known complete. The WRITE of its
 * data is posted before the SEND on the same send queue, so the SEND's
 * completion covers it; with selective signalling (one SEND in N) an
 * unsignalled SEND is known complete when a later signalled one
 * completes: SENDs wait in a FIFO, and a signalled one's completion
 * retires it and everything before it.
 *
 * Completions arrive by event (the completion channel in the reactor's
 * epoll; an idle reactor sleeps), by polling every reactor pass
 * (--busy-poll), or moderated: the device's own CQ moderation where it
 * has some, else in software here, the channel re-armed only after
 * COUNT completions or USEC microseconds (a timerfd).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "rdma_queue.h"

#define stat_add tgt_stat_add

void rdma_queue_fail(struct rdma_queue *q, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!q->fatal_logged) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		tgt_log("queue %s (ctrl %u qid %u): %s; closing it", q->sq.peer,
			q->sq.ctrl ? q->sq.ctrl->cntlid : 0, q->prm.qid, msg);
		q->fatal_logged = true;
	}
	rdma_queue_quiesce(&q->sq);
}

/* ---- Memory registrations: the reactor's buffer slabs ------------------- */

struct rdma_reg {
	struct ibv_pd *pd;
	char *base;
	size_t len;
	struct ibv_mr *mr;
};

/* --rdma-srq: one shared receive queue per reactor and device, its
 * buffers registered once */
struct rdma_srq {
	struct ibv_pd *pd;
	struct ibv_srq *srq;
	struct rdma_recv *recvs;
	uint8_t *bufs;
	struct ibv_mr *mr;
	uint32_t capsule_size;
	unsigned nr;
};

/* What a reactor keeps for the RDMA queues it owns (xport_priv). */
struct rdma_regs {
	struct rdma_reg *v;
	unsigned n, cap, last;
	struct rdma_srq *srqs;
	unsigned nr_srqs;
};

static void regs_fini(struct tgt_reactor *r)
{
	struct rdma_regs *regs = r->xport_priv;
	unsigned i;

	/* after every queue (QP) of the reactor is gone */
	for (i = 0; i < regs->nr_srqs; i++) {
		struct rdma_srq *s = &regs->srqs[i];

		ibv_destroy_srq(s->srq);
		ibv_dereg_mr(s->mr);
		free(s->bufs);
		free(s->recvs);
	}
	free(regs->srqs);
	for (i = 0; i < regs->n; i++)
		ibv_dereg_mr(regs->v[i].mr);
	free(regs->v);
	free(regs);
	r->xport_priv = NULL;
}

static struct rdma_regs *reactor_regs(struct tgt_reactor *r)
{
	struct rdma_regs *regs = r->xport_priv;

	if (!regs) {
		regs = calloc(1, sizeof(*regs));
		if (!regs)
			return NULL;
		r->xport_priv = regs;
		r->xport_fini = regs_fini;
	}
	return regs;
}

/* The reactor's SRQ on q's device, made on first use: receives as big as
 * the largest capsule an RDMA port takes, as many as TGT_RDMA_SRQ_*
 * allow. NULL (logged) if it cannot be had. */
struct ibv_srq *rdma_reactor_srq(struct rdma_queue *q)
{
	struct rdma_regs *regs = reactor_regs(q->sq.r);
	const struct tgt *t = q->sq.t;
	struct ibv_srq_init_attr sa;
	struct rdma_srq *s, *n;
	uint32_t incap = TGT_ADMIN_INLINE_DATA;
	size_t size;
	unsigned i;

	if (!regs)
		return NULL;
	for (i = 0; i < regs->nr_srqs; i++)
		if (regs->srqs[i].pd == q->pd)
			return regs->srqs[i].srq;
	for (i = 0; i < t->nr_ports; i++)
		if (t->ports[i].trtype == NVMF_TRTYPE_RDMA &&
		    t->ports[i].inline_data > incap)
			incap = t->ports[i].inline_data;
	n = realloc(regs->srqs, (regs->nr_srqs + 1) * sizeof(*n));
	if (!n)
		return NULL;
	regs->srqs = n;
	s = &n[regs->nr_srqs];
	memset(s, 0, sizeof(*s));
	s->pd = q->pd;
	s->capsule_size = (uint32_t)sizeof(union nvme_command) + incap;
	s->nr = TGT_RDMA_SRQ_BYTES / s->capsule_size;
	if (s->nr > TGT_RDMA_SRQ_SIZE)
		s->nr = TGT_RDMA_SRQ_SIZE;
	if (s->nr < TGT_RDMA_SRQ_MIN)
		s->nr = TGT_RDMA_SRQ_MIN;
	size = ((size_t)s->nr * s->capsule_size + 4095) & ~(size_t)4095;
	s->recvs = calloc(s->nr, sizeof(*s->recvs));
	s->bufs = aligned_alloc(4096, size);
	if (!s->recvs || !s->bufs)
		goto fail;
	s->mr = ibv_reg_mr(q->pd, s->bufs, size, IBV_ACCESS_LOCAL_WRITE);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = s->nr;
	sa.attr.max_sge = 1;
	s->srq = s->mr ? ibv_create_srq(q->pd, &sa) : NULL;
	if (!s->srq)
		goto fail;
	for (i = 0; i < s->nr; i++) {
		struct rdma_recv *rv = &s->recvs[i];
		struct ibv_recv_wr *bad;

		rv->buf = s->bufs + (size_t)i * s->capsule_size;
		rv->srq = s->srq;
		rv->sge.addr = (uintptr_t)rv->buf;
		rv->sge.length = s->capsule_size;
		rv->sge.lkey = s->mr->lkey;
		rv->wr.wr_id = (uintptr_t)rv | RDMA_WR_RECV;
		rv->wr.sg_list = &rv->sge;
		rv->wr.num_sge = 1;
		if (ibv_post_srq_recv(s->srq, &rv->wr, &bad))
			goto fail;
	}
	regs->nr_srqs++;
	return s->srq;
fail:
	tgt_log("reactor %u: cannot set up a shared receive queue of %u: %s",
		q->sq.r->idx, s->nr, strerror(errno));
	if (s->srq)
		ibv_destroy_srq(s->srq);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	free(s->bufs);
	free(s->recvs);
	return NULL;
}

/* The pool's buffers (up to MDTS, 1 MiB) are carved from slabs of
 * max(TGT_BUF_SLAB, buffer size) that live as long as the reactor: each
 * slab is registered once, when a buffer of it first carries RDMA data.
 * A buffer's slab is the one with the highest address not above it. */
int rdma_buf_lkey(struct rdma_queue *q, void *buf, uint32_t cap, uint32_t *lkey)
{
	struct tgt_reactor *r = q->sq.r;
	struct rdma_regs *regs = reactor_regs(r);
	char *b = buf, *slab = NULL;
	size_t slab_len = cap < TGT_BUF_SLAB ? TGT_BUF_SLAB : cap;
	struct rdma_reg *g;
	unsigned i;

	if (!regs)
		return -ENOMEM;
	if (regs->n) {
		g = &regs->v[regs->last];
		if (g->pd == q->pd && b >= g->base &&
		    b + cap <= g->base + g->len) {
			*lkey = g->mr->lkey;
			return 0;
		}
	}
	for (i = 0; i < regs->n; i++) {
		g = &regs->v[i];
		if (g->pd == q->pd && b >= g->base &&
		    b + cap <= g->base + g->len) {
			regs->last = i;
			*lkey = g->mr->lkey;
			return 0;
		}
	}
	for (i = 0; i < r->nr_slabs; i++) {
		char *s = r->slabs[i];

		if (s <= b && (!slab || s > slab))
			slab = s;
	}
	if (!slab || b + cap > slab + slab_len) {
		tgt_log("queue %s: a %u-byte buffer outside the reactor's "
			"slabs cannot be registered",
			q->sq.peer, cap);
		return -EINVAL;
	}
	if (regs->n == regs->cap) {
		unsigned nc = regs->cap ? 2 * regs->cap : 16;
		struct rdma_reg *v = realloc(regs->v, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		regs->v = v;
		regs->cap = nc;
	}
	g = &regs->v[regs->n];
	g->mr = ibv_reg_mr(q->pd, slab, slab_len, IBV_ACCESS_LOCAL_WRITE);
	if (!g->mr) {
		tgt_log("queue %s: cannot register %zu bytes of buffers: %s",
			q->sq.peer, slab_len, strerror(errno));
		return -errno;
	}
	g->pd = q->pd;
	g->base = slab;
	g->len = slab_len;
	regs->last = regs->n++;
	*lkey = g->mr->lkey;
	return 0;
}

/* ---- Slots ------------------------------------------------------------------ */

static void take_capsule(struct rdma_queue *q, struct rdma_cmd *cmd,
			 struct rdma_recv *rv, uint32_t len);

void rdma_cmd_free(struct rdma_cmd *cmd)
{
	struct rdma_queue *q = rdma_q(cmd->req.q);
	struct rdma_recv *rv;

	tgt_req_release_buf(&cmd->req);
	cmd->req.state = CMD_FREE;
	tgt_queue_depth_dec(&q->sq);
	cmd->next = q->free_cmds;
	q->free_cmds = cmd;
	/* a capsule that came while every slot was taken */
	rv = q->backlog_head;
	if (rv && !q->sq.closing && !q->sq.stopping) {
		q->backlog_head = rv->next;
		if (!q->backlog_head)
			q->backlog_tail = NULL;
		cmd = q->free_cmds;
		q->free_cmds = cmd->next;
		take_capsule(q, cmd, rv, rv->len);
	}
}

/* ---- Posting ---------------------------------------------------------------- */

int rdma_post_recv(struct rdma_queue *q, struct rdma_recv *rv)
{
	struct ibv_recv_wr *bad;
	int ret = rv->srq ? ibv_post_srq_recv(rv->srq, &rv->wr, &bad) :
			    ibv_post_recv(q->id->qp, &rv->wr, &bad);

	if (ret) {
		rdma_queue_fail(q, "cannot post a receive: %s", strerror(ret));
		return -ret;
	}
	stat_add(&q->sq.st.rdma.recvs_posted, 1);
	return 0;
}

/* cmd's work requests (first .. last, linked) go out at the flush. */
static void post_later(struct rdma_queue *q, struct rdma_cmd *cmd,
		       struct ibv_send_wr *first, struct ibv_send_wr *last)
{
	cmd->first = first;
	cmd->last = last;
	last->next = NULL;
	cmd->next = NULL;
	if (q->post_tail)
		q->post_tail->next = cmd;
	else
		q->post_head = cmd;
	q->post_tail = cmd;
	tgt_reactor_want_flush(q->sq.r, &q->sq);
}

/* One ibv_post_send for everything built since the last flush. Each
 * SEND is signalled or not here: every one by default, else one in
 * signal_every (and every one once the target is stopping, so that the
 * last answers are seen complete). */
void rdma_queue_flush(struct tgt_queue *sq)
{
	struct rdma_queue *q = rdma_q(sq);
	struct rdma_cmd *cmd, *next, *prev = NULL;
	struct ibv_send_wr *bad;
	uint64_t nr_sends = 0;
	int ret;

	if (sq->closing || !q->post_head)
		return;
	for (cmd = q->post_head; cmd; prev = cmd, cmd = cmd->next) {
		if (prev)
			prev->last->next = cmd->first;
		if (cmd->last != &cmd->send_wr)
			continue; /* an RDMA READ: always signalled */
		nr_sends++;
		cmd->signalled = q->signal_every <= 1 || sq->stopping ||
				 q->unsignalled + 1 >= q->signal_every;
		if (cmd->signalled) {
			cmd->send_wr.send_flags |= IBV_SEND_SIGNALED;
			q->unsignalled = 0;
			q->signalled_inflight++;
			stat_add(&sq->st.rdma.signalled, 1);
		} else {
			q->unsignalled++;
		}
		if (cmd->send_wr.opcode == IBV_WR_SEND_WITH_INV)
			stat_add(&sq->st.rdma.invs, 1);
	}
	cmd = q->post_head;
	ret = ibv_post_send(q->id->qp, cmd->first, &bad);
	stat_add(&sq->st.sends, 1);
	stat_add(&sq->st.rdma.sends, nr_sends);
	stat_add(&sq->st.cqes, nr_sends);
	/* the SENDs wait for their completion in post order */
	for (; cmd; cmd = next) {
		next = cmd->next;
		if (cmd->last != &cmd->send_wr)
			continue;
		cmd->next = NULL;
		if (q->sendq_tail)
			q->sendq_tail->next = cmd;
		else
			q->sendq_head = cmd;
		q->sendq_tail = cmd;
	}
	q->post_head = q->post_tail = NULL;
	if (ret)
		rdma_queue_fail(q, "cannot post sends: %s", strerror(ret));
}

/* ---- Receive ------------------------------------------------------------------ */

static void post_read(struct rdma_queue *q, struct rdma_cmd *cmd)
{
	uint32_t lkey;

	if (tgt_req_alloc_buf(&cmd->req, cmd->d.len) ||
	    rdma_buf_lkey(q, cmd->req.buf, cmd->req.buf_cap, &lkey)) {
		tgt_req_complete(&cmd->req, NVME_SC_INTERNAL);
		return;
	}
	cmd->data_sge.addr = (uintptr_t)cmd->req.buf;
	cmd->data_sge.length = cmd->d.len;
	cmd->data_sge.lkey = lkey;
	memset(&cmd->data_wr, 0, sizeof(cmd->data_wr));
	cmd->data_wr.wr_id = (uintptr_t)cmd | RDMA_WR_READ;
	cmd->data_wr.opcode = IBV_WR_RDMA_READ;
	cmd->data_wr.send_flags = IBV_SEND_SIGNALED;
	cmd->data_wr.sg_list = &cmd->data_sge;
	cmd->data_wr.num_sge = 1;
	cmd->data_wr.wr.rdma.remote_addr = cmd->d.addr;
	cmd->data_wr.wr.rdma.rkey = cmd->d.key;
	cmd->req.state = CMD_R2T; /* waiting for the host's data */
	cmd->read_posted = true;
	q->reads_inflight++;
	stat_add(&q->sq.st.rdma.reads, 1);
	stat_add(&q->sq.st.rdma.read_bytes, cmd->d.len);
	post_later(q, cmd, &cmd->data_wr, &cmd->data_wr);
}

/*
 * A Connect is for the queue the RDMA connection was made for (its QID)
 * and fits the receives posted for it (HSQSIZE): else it is refused
 * with the field named (IPO: the SQE's QID or SQSIZE), as the core
 * names what it refuses.
 */
static bool connect_mismatch(struct rdma_queue *q,
			     const union nvme_command *sqe, struct tgt_req *req)
{
	uint16_t qid = le16_to_cpu(sqe->connect.qid);
	uint32_t entries = (uint32_t)le16_to_cpu(sqe->connect.sqsize) + 1;

	if (qid == q->prm.qid && entries <= q->prm.sq_entries)
		return false;
	memcpy(&req->sqe, sqe, sizeof(*sqe));
	tgt_req_init(req, &q->sq);
	req->result = qid != q->prm.qid ? 42 : 44;
	tgt_log("connect from %s: Connect for qid %u with %u entries on the "
		"RDMA connection of qid %u with %u",
		q->sq.peer, qid, entries, q->prm.qid, q->prm.sq_entries);
	return true;
}

/* A capsule (len bytes in rv) into the free slot cmd. */
static void take_capsule(struct rdma_queue *q, struct rdma_cmd *cmd,
			 struct rdma_recv *rv, uint32_t len)
{
	const union nvme_command *sqe = (const void *)rv->buf;
	uint16_t status;

	cmd->req.state = CMD_RX_DATA;
	cmd->read_posted = false;
	cmd->signalled = false;
	cmd->first = cmd->last = NULL;
	tgt_queue_depth_inc(&q->sq);
	if (len >= sizeof(*sqe) && !q->sq.connected &&
	    sqe->common.opcode == nvme_fabrics_command &&
	    sqe->fabrics.fctype == nvme_fabrics_type_connect &&
	    connect_mismatch(q, sqe, &cmd->req)) {
		status = NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
	} else {
		status = tgt_rdma_intake(&cmd->req, rv->buf, len, q->incap_max,
					 &cmd->d);
	}
	if (status == TGT_RDMA_BAD_CAPSULE) {
		rdma_queue_fail(q, "a %u-byte capsule, shorter than a command",
				len);
		return;
	}
	if (!status && cmd->d.kind == NVME_RDMA_DATA_INCAPSULE) {
		if (tgt_req_alloc_buf(&cmd->req, cmd->d.len))
			status = NVME_SC_INTERNAL;
		else
			memcpy(cmd->req.buf,
			       rv->buf + sizeof(*sqe) + cmd->d.offset,
			       cmd->d.len);
	}
	/* the capsule is copied out: its receive goes back at once */
	if (rdma_post_recv(q, rv))
		return;
	if (status) {
		tgt_req_complete(&cmd->req, status);
		return;
	}
	if (cmd->d.kind == NVME_RDMA_DATA_KEYED && cmd->req.dir == 2) {
		post_read(q, cmd);
		return;
	}
	tgt_req_exec(&cmd->req);
}

static void recv_done(struct rdma_queue *q, struct rdma_recv *rv, uint32_t len)
{
	struct rdma_cmd *cmd;

	stat_add(&q->sq.st.rdma.recvs, 1);
	if (q->sq.stopping || q->sq.closing) {
		/* no new commands; a shared receive goes back for others */
		if (rv->srq)
			rdma_post_recv(q, rv);
		return;
	}
	cmd = q->free_cmds;
	if (!cmd) {
		/* answered slots whose SENDs are not seen complete yet: the
		 * capsule waits for the first to be freed */
		rv->len = len;
		rv->next = NULL;
		if (q->backlog_tail)
			q->backlog_tail->next = rv;
		else
			q->backlog_head = rv;
		q->backlog_tail = rv;
		stat_add(&q->sq.st.rdma.backlog, 1);
		return;
	}
	q->free_cmds = cmd->next;
	take_capsule(q, cmd, rv, len);
}

/* ---- Respond ------------------------------------------------------------------ */

void rdma_queue_response(struct tgt_req *req, uint16_t status)
{
	struct rdma_cmd *cmd = rdma_cmd_of(req);
	struct rdma_queue *q = rdma_q(req->q);
	struct ibv_send_wr *first = &cmd->send_wr;
	bool keyed = cmd->d.kind == NVME_RDMA_DATA_KEYED;
	uint32_t lkey = 0;

	/* closing: the QP is going; the slot is freed with the queue */
	if (q->sq.closing)
		return;
	if (!status && req->dir == 1 && req->xfer_len && keyed &&
	    rdma_buf_lkey(q, req->buf, req->buf_cap, &lkey))
		status = NVME_SC_INTERNAL;
	memset(&cmd->cqe, 0, sizeof(cmd->cqe));
	cmd->cqe.result.u64 = cpu_to_le64(req->result);
	cmd->cqe.sq_head = cpu_to_le16(q->sq.sqhd);
	cmd->cqe.sq_id = cpu_to_le16(q->sq.qid);
	cmd->cqe.command_id = req->sqe.common.command_id;
	nvme_cqe_set_status(&cmd->cqe, status);

	if (!status && req->dir == 1 && req->xfer_len && keyed) {
		cmd->data_sge.addr = (uintptr_t)req->buf;
		cmd->data_sge.length = req->xfer_len;
		cmd->data_sge.lkey = lkey;
		memset(&cmd->data_wr, 0, sizeof(cmd->data_wr));
		/* unsignalled: the SEND behind it completes after it */
		cmd->data_wr.wr_id = (uintptr_t)cmd | RDMA_WR_WRITE;
		cmd->data_wr.opcode = IBV_WR_RDMA_WRITE;
		cmd->data_wr.sg_list = &cmd->data_sge;
		cmd->data_wr.num_sge = 1;
		cmd->data_wr.wr.rdma.remote_addr = cmd->d.addr;
		cmd->data_wr.wr.rdma.rkey = cmd->d.key;
		cmd->data_wr.next = &cmd->send_wr;
		first = &cmd->data_wr;
		stat_add(&q->sq.st.rdma.writes, 1);
		stat_add(&q->sq.st.rdma.write_bytes, req->xfer_len);
	}
	cmd->send_sge.addr = (uintptr_t)&cmd->cqe;
	cmd->send_sge.length = sizeof(cmd->cqe);
	cmd->send_sge.lkey = q->cmd_mr->lkey;
	memset(&cmd->send_wr, 0, sizeof(cmd->send_wr));
	cmd->send_wr.wr_id = (uintptr_t)cmd | RDMA_WR_SEND;
	cmd->send_wr.sg_list = &cmd->send_sge;
	cmd->send_wr.num_sge = 1;
	cmd->send_wr.send_flags = q->inline_rsp ? IBV_SEND_INLINE : 0;
	if (keyed && cmd->d.invalidate) {
		/* the host asked us to invalidate its key (subtype Fh) */
		cmd->send_wr.opcode = IBV_WR_SEND_WITH_INV;
		cmd->send_wr.invalidate_rkey = cmd->d.key;
	} else {
		cmd->send_wr.opcode = IBV_WR_SEND;
	}
	post_later(q, cmd, first, &cmd->send_wr);
}

/* ---- Completions ---------------------------------------------------------------- */

/* A signalled SEND completed: it and every SEND posted before it. */
static void send_done(struct rdma_queue *q, struct rdma_cmd *done)
{
	struct rdma_cmd *cmd;

	if (done->signalled && q->signalled_inflight)
		q->signalled_inflight--;
	do {
		cmd = q->sendq_head;
		if (!cmd)
			break;
		q->sendq_head = cmd->next;
		if (!q->sendq_head)
			q->sendq_tail = NULL;
		rdma_cmd_free(cmd);
	} while (cmd != done && !q->sq.closing);
}

static const char *wr_name(unsigned kind)
{
	static const char *const names[] = { "receive", "send", "RDMA READ",
					     "RDMA WRITE" };

	return names[kind & 3];
}

static void wc_handle(struct rdma_queue *q, const struct ibv_wc *wc)
{
	unsigned kind = (unsigned)(wc->wr_id & RDMA_WR_KIND_MASK);
	void *p = (void *)(uintptr_t)(wc->wr_id & ~RDMA_WR_KIND_MASK);
	struct rdma_cmd *cmd = p;

	if (q->sq.closing) {
		if (kind == RDMA_WR_RECV && wc->status == IBV_WC_SUCCESS)
			recv_done(q, p, wc->byte_len);
		return;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		if (kind == RDMA_WR_READ && cmd->read_posted) {
			cmd->read_posted = false;
			q->reads_inflight--;
		}
		if (wc->status == IBV_WC_WR_FLUSH_ERR)
			rdma_queue_quiesce(&q->sq);
		else
			rdma_queue_fail(q, "%s failed: %s (vendor error 0x%x)",
					wr_name(kind),
					ibv_wc_status_str(wc->status),
					wc->vendor_err);
		return;
	}
	switch (kind) {
	case RDMA_WR_RECV:
		recv_done(q, p, wc->byte_len);
		break;
	case RDMA_WR_SEND:
		send_done(q, cmd);
		break;
	case RDMA_WR_READ:
		cmd->read_posted = false;
		q->reads_inflight--;
		if (q->sq.stopping && !cmd->req.status)
			cmd->req.status = NVME_SC_ABORT_QUEUE;
		if (cmd->req.status)
			tgt_req_complete(&cmd->req, cmd->req.status);
		else
			tgt_req_exec(&cmd->req);
		break;
	default:
		break; /* a WRITE, signalled only when it fails */
	}
}

/* Poll the CQ empty (or while the queue is open). */
static unsigned cq_drain(struct rdma_queue *q)
{
	struct ibv_wc wc[32];
	unsigned total = 0;
	int n, i;

	while (!q->sq.closing) {
		n = ibv_poll_cq(q->cq, 32, wc);
		if (n < 0) {
			rdma_queue_fail(q, "cannot poll the CQ");
			break;
		}
		if (!n)
			break;
		total += (unsigned)n;
		stat_add(&q->sq.st.rdma.cqes, (uint64_t)n);
		for (i = 0; i < n; i++)
			wc_handle(q, &wc[i]);
		if (n < 32)
			break;
	}
	q->mod_count += total;
	return total;
}

void rdma_cq_arm(struct rdma_queue *q)
{
	if (ibv_req_notify_cq(q->cq, 0)) {
		rdma_queue_fail(q, "cannot arm the CQ");
		return;
	}
	q->cq_armed = true;
	q->mod_count = 0;
}

/* Armed, then polled again: what completed in between raised no event. */
static void arm_and_drain(struct rdma_queue *q)
{
	rdma_cq_arm(q);
	cq_drain(q);
}

/* The queue goes: receives of the reactor's SRQ that completed on its CQ
 * and were not taken go back to the SRQ. */
void rdma_cq_salvage(struct rdma_queue *q)
{
	struct ibv_wc wc[32];
	int n, i;

	if (!q->srq)
		return;
	while ((n = ibv_poll_cq(q->cq, 32, wc)) > 0)
		for (i = 0; i < n; i++)
			wc_handle(q, &wc[i]);
}

void rdma_queue_poll(struct tgt_queue *sq)
{
	cq_drain(rdma_q(sq));
}

void rdma_cq_event(struct rdma_queue *q)
{
	const struct tgt *t = q->sq.t;
	struct ibv_cq *cq;
	void *ctx;

	if (ibv_get_cq_event(q->comp_ch, &cq, &ctx))
		return; /* nothing (the event was another fd's) */
	/* acks take a lock in the provider: a batch at a time */
	if (++q->unacked_events >= 64) {
		ibv_ack_cq_events(q->cq, q->unacked_events);
		q->unacked_events = 0;
	}
	stat_add(&q->sq.st.rdma.events, 1);
	q->cq_armed = false;
	cq_drain(q);
	if (q->sq.closing)
		return;
	if (q->timer_fd < 0 || q->mod_count >= t->rdma_cqm_count) {
		arm_and_drain(q);
		return;
	}
	/* software moderation: the channel stays quiet until COUNT
	 * completions or USEC from now, when the timer polls and re-arms */
	if (!q->timer_armed) {
		struct itimerspec its;

		memset(&its, 0, sizeof(its));
		its.it_value.tv_sec = t->rdma_cqm_usecs / 1000000;
		its.it_value.tv_nsec =
			(long)(t->rdma_cqm_usecs % 1000000) * 1000;
		if (timerfd_settime(q->timer_fd, 0, &its, NULL)) {
			arm_and_drain(q);
			return;
		}
		q->timer_armed = true;
	}
}

void rdma_timer_event(struct rdma_queue *q)
{
	uint64_t expirations;

	if (read(q->timer_fd, &expirations, sizeof(expirations)) !=
	    sizeof(expirations))
		return;
	q->timer_armed = false;
	stat_add(&q->sq.st.rdma.mod_timers, 1);
	cq_drain(q);
	if (!q->sq.closing && !q->cq_armed)
		arm_and_drain(q);
}
