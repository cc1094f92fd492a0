// SPDX-License-Identifier: MIT
/*
 * The NVMe/RDMA host transport: a remote namespace over RDMA (rdma-core's
 * librdmacm and libibverbs), the userspace counterpart of Linux's
 * drivers/nvme/host/rdma.c, beneath the fabrics host core
 * (src/drivers/nvmf).
 *
 *   nvme-rdma://HOST:PORT/SUBNQN?nr_io_queues=N&hostnqn=NQN&kato=SEC...
 *
 * A connection is one RC queue pair made through the RDMA CM (address and
 * route resolved, connect with the binding's private data: QID, HRQSIZE,
 * HSQSIZE, CNTLID), a send and a receive CQ on one completion channel, and
 * a receive buffer posted for every response the queue can have. Command
 * capsules go out as SENDs, the SQE from a registered slot per tag; data
 * goes by keyed SGL (the controller RDMA READs or WRITEs it), from the
 * caller's buffer when mqblk_queue_map_buf registered it, else through the
 * tag's registered bounce buffer, or in the capsule (a second SGE) for
 * writes up to IOCCSZ on I/O queues. Commands without data carry a
 * zero-length keyed SGL (nvmet-rdma refuses an all-zero one); the admin
 * queue carries no in-capsule data (nvmet-rdma takes none there).
 *
 * A request completes only once both its response arrived and its SEND
 * completed: a response can overtake the send's completion (the ack that
 * completes it may come later), and until then the HCA may still read the
 * SQE and in-capsule data. Every SEND is signalled, as the Linux host's.
 *
 * Event-driven queues arm both CQs and sleep on the completion channel
 * (the hardware queue's irq fd, with the CM event channel for
 * disconnects); polled (hipri) queues reap the CQs without arming.
 * Connections and the synchronous path (set-up, admin) are conn.c's; this
 * file is the I/O queues, mapped buffers, counters and the ops tables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <mqblk/driver.h>

#include "conn.h"
#include "nvme/rdma.h"
#include "nvme_rdma.h"

#define NR_SLOT 128 /* per tag: the SQE (64), a DSM range (16) */
#define NR_MAX_MAPS 16 /* mqblk_queue_map_buf regions per queue */
/* how often a polled queue looks at its CM event channel (a syscall) */
#define NR_CM_CHECK_POLLS 256

/* Per request, after the core's struct nvmf_req. */
struct nr_req {
	/* its SEND, built by queue_rq, posted by flush (once the core
	 * knows the request by its tag: an answer may come at once) */
	struct ibv_send_wr wr;
	struct ibv_sge sge[2];
	bool send_done; /* its SEND completed: the HCA reads nothing more */
	bool rsp_done; /* its response arrived (status kept) */
	bool bounced; /* data through the tag's bounce buffer */
	/* remote_invalidate=1: the window over its data is still valid
	 * (bound, not yet invalidated by the controller or by us) */
	bool inv_pending;
	bool inv_posted; /* ... our LOCAL_INV for it is out */
	uint16_t status;
	uint32_t inv_rkey; /* the window's key this time */
	struct ibv_send_wr bind_wr, inv_wr;
};

/* A local invalidation's wr_id: the request's address with bit 0 set
 * (requests are aligned), told apart from its SEND's. */
#define NR_WR_INV 1ull

struct nr_bounce {
	uint8_t *buf;
	uint32_t cap;
	struct ibv_mr *mr;
};

struct nr_map {
	uint8_t *base;
	size_t len;
	struct ibv_mr *mr;
};

/* One I/O queue: the core's part, the connection, the registered SQE
 * slots and bounce buffers (by tag), the mapped regions. */
struct nr_queue {
	struct nvmf_queue nq;
	struct nvmf_conn *cn; /* NULL: detached (under both locks) */
	uint8_t *slab;
	struct ibv_mr *slab_mr;
	struct nr_bounce *bounce; /* by tag */
	struct ibv_mw **mw; /* by tag, remote_invalidate=1, while attached */
	struct nr_map maps[NR_MAX_MAPS]; /* under tx_lock */
	unsigned nr_maps;
	unsigned polls; /* polled queue: passes since the CM check */
	/* SENDs built, not yet posted (under tx_lock) */
	struct ibv_send_wr *tx_head, *tx_tail;
	unsigned nr_tx;
	struct nr_stats st;
};

static struct nr_queue *nr_q(struct nvmf_queue *nq)
{
	return (struct nr_queue *)nq; /* nq is its first member */
}

static struct nvmf_req *nr_nr(struct mqblk_rq *rq)
{
	return mqblk_rq_pdu(rq);
}

static struct nr_req *nr_rq(struct mqblk_rq *rq)
{
	return nvmf_req_tr(nr_nr(rq));
}

/* ---- I/O queues -------------------------------------------------------------- */

static int nr_queue_init(struct nvmf_queue *nq)
{
	struct nr_queue *q = nr_q(nq);
	struct nr_ctrl *o = nq->d->tr;
	size_t len = (size_t)nq->depth * NR_SLOT;

	if (!o->pd)
		return -ENODEV;
	q->bounce = calloc(nq->depth, sizeof(*q->bounce));
	q->slab = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	if (!q->bounce || !q->slab)
		goto fail;
	memset(q->slab, 0, len);
	q->slab_mr = nr_reg(nq->d, q->slab, len, &q->st);
	if (!q->slab_mr)
		goto fail;
	return 0;
fail:
	free(q->bounce);
	free(q->slab);
	q->bounce = NULL;
	q->slab = NULL;
	return -ENOMEM;
}

static void nr_queue_free(struct nvmf_queue *nq)
{
	struct nr_queue *q = nr_q(nq);
	unsigned i;

	for (i = 0; q->bounce && i < nq->depth; i++) {
		if (q->bounce[i].mr)
			ibv_dereg_mr(q->bounce[i].mr);
		free(q->bounce[i].buf);
	}
	free(q->bounce);
	for (i = 0; i < q->nr_maps; i++)
		ibv_dereg_mr(q->maps[i].mr);
	q->nr_maps = 0;
	if (q->slab_mr)
		ibv_dereg_mr(q->slab_mr);
	free(q->slab);
}

static void stats_merge(struct nr_stats *to, const struct nr_stats *from)
{
	st_add(&to->sends, from->sends);
	st_add(&to->signalled, from->signalled);
	st_add(&to->recv_posted, from->recv_posted);
	st_add(&to->recv_done, from->recv_done);
	st_add(&to->cqes, from->cqes);
	st_add(&to->events, from->events);
	st_add(&to->regs, from->regs);
	st_add(&to->incapsule, from->incapsule);
	st_add(&to->keyed, from->keyed);
	st_add(&to->bounced, from->bounced);
	st_add(&to->rsp_before_send, from->rsp_before_send);
	st_add(&to->remote_inv, from->remote_inv);
	st_add(&to->local_inv, from->local_inv);
}

/* The windows of q's tags (remote_invalidate=1), type 2: bound on the
 * connection's QP for each command, so made per connection and freed
 * before its QP goes (rxe stalls destroying a QP a window is bound to). */
static int mws_alloc(struct nr_queue *q)
{
	struct nr_ctrl *o = q->nq.d->tr;
	unsigned t;

	q->mw = calloc(q->nq.depth, sizeof(*q->mw));
	if (!q->mw)
		return -ENOMEM;
	for (t = 0; t < q->nq.depth; t++) {
		q->mw[t] = ibv_alloc_mw(o->pd, IBV_MW_TYPE_2);
		if (!q->mw[t])
			return errno ? -errno : -ENOMEM;
	}
	return 0;
}

static void mws_free(struct nr_queue *q)
{
	unsigned t;

	for (t = 0; q->mw && t < q->nq.depth; t++)
		if (q->mw[t])
			ibv_dealloc_mw(q->mw[t]);
	free(q->mw);
	q->mw = NULL;
}

static int nr_queue_attach(struct nvmf_queue *nq, struct nvmf_conn *cn)
{
	struct nr_queue *q = nr_q(nq);
	struct epoll_event ev = { .events = EPOLLIN };
	int ret = 0;

	/* what its Connect spent counts as the queue's */
	stats_merge(&q->st, &cn->own);
	cn->st = &q->st;
	ev.data.fd = cn->cch->fd;
	if (epoll_ctl(nq->epfd, EPOLL_CTL_ADD, cn->cch->fd, &ev))
		ret = -errno;
	ev.data.fd = cn->ech->fd;
	if (!ret && epoll_ctl(nq->epfd, EPOLL_CTL_ADD, cn->ech->fd, &ev)) {
		ret = -errno;
		epoll_ctl(nq->epfd, EPOLL_CTL_DEL, cn->cch->fd, NULL);
	}
	if (!ret && ((struct nr_ctrl *)nq->d->tr)->rinv) {
		ret = mws_alloc(q);
		if (ret) {
			mws_free(q);
			epoll_ctl(nq->epfd, EPOLL_CTL_DEL, cn->cch->fd, NULL);
			epoll_ctl(nq->epfd, EPOLL_CTL_DEL, cn->ech->fd, NULL);
		}
	}
	if (ret) {
		nr_conn_destroy(cn);
		return ret;
	}
	q->cn = cn;
	if (!nq->defer_tx) {
		nr_events_drain(cn);
		ibv_req_notify_cq(cn->scq, 0);
		ibv_req_notify_cq(cn->rcq, 0);
	}
	return 0;
}

static void nr_queue_detach(struct nvmf_queue *nq)
{
	struct nr_queue *q = nr_q(nq);
	struct nvmf_conn *cn = q->cn;
	unsigned t;

	q->tx_head = q->tx_tail = NULL;
	q->nr_tx = 0;
	if (cn) {
		epoll_ctl(nq->epfd, EPOLL_CTL_DEL, cn->cch->fd, NULL);
		epoll_ctl(nq->epfd, EPOLL_CTL_DEL, cn->ech->fd, NULL);
		q->cn = NULL;
		mws_free(q); /* before the QP: see mws_alloc */
		nr_conn_destroy(cn);
	}
	/* the QP is gone: the HCA reads no request's buffer any more */
	for (t = 0; t < nq->depth; t++) {
		struct mqblk_rq *rq = nq->rqs[t];

		if (rq)
			atomic_store_explicit(&nr_nr(rq)->queued, false,
					      memory_order_release);
	}
}

/* Nothing blocks on an RDMA connection (sends are posted, never waited
 * for): the poller finds the dead flag, and the control thread's
 * queue_disconnect tears the QP down under the queue's locks. */
static void nr_queue_kill(struct nvmf_queue *nq)
{
	(void)nq;
}

/* rq's data: registered memory covering [buf, buf + len). A region
 * mqblk_queue_map_buf registered, else the tag's bounce buffer (grown
 * and registered on first need; writes copied in). */
static int data_map(struct nr_queue *q, struct mqblk_rq *rq, void *buf,
		    uint32_t len, bool to_ctrl, uint64_t *addr, uint32_t *lkey,
		    uint32_t *rkey, struct ibv_mr **mrp)
{
	struct nr_bounce *b = &q->bounce[rq->tag];
	uint8_t *p = buf;
	unsigned i;

	for (i = 0; i < q->nr_maps; i++) {
		struct nr_map *m = &q->maps[i];

		if (p >= m->base && p + len <= m->base + m->len) {
			nr_rq(rq)->bounced = false;
			*addr = (uintptr_t)p;
			*lkey = m->mr->lkey;
			*rkey = m->mr->rkey;
			*mrp = m->mr;
			return 0;
		}
	}
	if (b->cap < len) {
		uint32_t cap = (len + 4095) & ~4095u;

		if (b->mr)
			ibv_dereg_mr(b->mr);
		free(b->buf);
		b->cap = 0;
		b->mr = NULL;
		b->buf = aligned_alloc(4096, cap);
		if (!b->buf)
			return -ENOMEM;
		b->mr = nr_reg(q->nq.d, b->buf, cap, &q->st);
		if (!b->mr) {
			free(b->buf);
			b->buf = NULL;
			return -ENOMEM;
		}
		b->cap = cap;
	}
	if (to_ctrl)
		memcpy(b->buf, buf, len);
	nr_rq(rq)->bounced = true;
	st_add(&q->st.bounced, 1);
	*addr = (uintptr_t)b->buf;
	*lkey = b->mr->lkey;
	*rkey = b->mr->rkey;
	*mrp = b->mr;
	return 0;
}

static int nr_queue_rq(struct nvmf_queue *nq, struct mqblk_rq *rq)
{
	struct nr_queue *q = nr_q(nq);
	struct nvmf_ctrl *d = nq->d;
	struct nvmf_conn *cn = q->cn;
	struct nr_req *r = nr_rq(rq);
	uint8_t *slot = q->slab + (size_t)rq->tag * NR_SLOT;
	union nvme_command *cmd = (union nvme_command *)slot;
	struct ibv_send_wr *wr = &r->wr;
	struct ibv_mr *dmr = NULL;
	uint32_t dlen = 0, lkey = 0, rkey = 0;
	uint64_t addr = 0;
	void *dbuf = NULL;
	bool incap = false, to_ctrl = false;
	int ret;

	if (!cn)
		return -1;
	memset(cmd, 0, sizeof(*cmd));
	nr_nr(rq)->cid = nvmf_req_cid(rq);
	nr_nr(rq)->abort_sent = false;
	r->send_done = r->rsp_done = r->bounced = false;
	r->inv_pending = r->inv_posted = false;
	r->status = 0;
	cmd->common.command_id = nr_nr(rq)->cid;
	cmd->common.nsid = cpu_to_le32(d->nsid);
	switch (rq->op) {
	case MQBLK_OP_READ:
	case MQBLK_OP_WRITE:
	case MQBLK_OP_WRITE_ZEROES:
		cmd->rw.opcode =
			rq->op == MQBLK_OP_READ	 ? nvme_cmd_read :
			rq->op == MQBLK_OP_WRITE ? nvme_cmd_write :
						   nvme_cmd_write_zeroes;
		cmd->rw.slba = cpu_to_le64(rq->offset >> d->lba_shift);
		cmd->rw.length =
			cpu_to_le16((uint16_t)((rq->len >> d->lba_shift) - 1));
		if (rq->flags & MQBLK_REQ_FUA)
			cmd->rw.control = cpu_to_le16(NVME_RW_FUA);
		if (rq->op != MQBLK_OP_WRITE_ZEROES) {
			dbuf = rq->buf;
			dlen = rq->len;
			to_ctrl = rq->op == MQBLK_OP_WRITE;
		}
		break;
	case MQBLK_OP_FLUSH:
		cmd->common.opcode = nvme_cmd_flush;
		break;
	case MQBLK_OP_DISCARD:
		cmd->common.opcode = nvme_cmd_dsm;
		cmd->common.cdw11 = cpu_to_le32(1u << 2); /* AD */
		nvme_put_le32(slot + 64 + 4, rq->len >> d->lba_shift);
		nvme_put_le64(slot + 64 + 8, rq->offset >> d->lba_shift);
		memset(slot + 64, 0, 4);
		/* the range lives in the registered slot: no bounce */
		addr = (uintptr_t)(slot + 64);
		lkey = q->slab_mr->lkey;
		rkey = q->slab_mr->rkey;
		dlen = 16;
		to_ctrl = true;
		break;
	}
	if (dbuf) {
		ret = data_map(q, rq, dbuf, dlen, to_ctrl, &addr, &lkey, &rkey,
			       &dmr);
		if (ret)
			return -1;
	}
	if (dlen && to_ctrl && dlen <= d->incap_max) {
		incap = true;
		nvme_rdma_sgl_incapsule(cmd, dlen);
		st_add(&q->st.incapsule, 1);
	} else if (dlen && q->mw && dbuf) {
		/* a window over just this transfer, bound before the SEND
		 * (same QP: in order), invalidated by the controller's SEND
		 * with Invalidate; the bind names the window by its current
		 * key, so its new key is set by hand once posted (flush: rxe
		 * does not) */
		struct ibv_mw *mw = q->mw[rq->tag];
		struct ibv_send_wr *b = &r->bind_wr;

		r->inv_rkey = ibv_inc_rkey(mw->rkey);
		memset(b, 0, sizeof(*b));
		b->opcode = IBV_WR_BIND_MW;
		b->bind_mw.mw = mw;
		b->bind_mw.rkey = r->inv_rkey;
		b->bind_mw.bind_info.mr = dmr;
		b->bind_mw.bind_info.addr = addr;
		b->bind_mw.bind_info.length = dlen;
		b->bind_mw.bind_info.mw_access_flags =
			to_ctrl ? IBV_ACCESS_REMOTE_READ :
				  IBV_ACCESS_REMOTE_WRITE;
		r->inv_pending = true;
		nvme_rdma_sgl_keyed(cmd, addr, dlen, r->inv_rkey, true);
		st_add(&q->st.keyed, 1);
	} else if (dlen) {
		nvme_rdma_sgl_keyed(cmd, addr, dlen, rkey, false);
		st_add(&q->st.keyed, 1);
	} else {
		nvme_rdma_sgl_none(cmd);
	}
	r->sge[0].addr = (uintptr_t)cmd;
	r->sge[0].length = sizeof(*cmd);
	r->sge[0].lkey = q->slab_mr->lkey;
	r->sge[1].addr = addr;
	r->sge[1].length = dlen;
	r->sge[1].lkey = lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = (uintptr_t)rq;
	wr->sg_list = r->sge;
	wr->num_sge = incap ? 2 : 1;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = IBV_SEND_SIGNALED;
	/* held until the SEND completes (the HCA reads the slot and the
	 * in-capsule data until then); pairs with the release in io_reap
	 * and queue_detach */
	atomic_store_explicit(&nr_nr(rq)->queued, true, memory_order_relaxed);
	if (r->inv_pending) {
		r->bind_wr.next = wr;
		if (q->tx_tail)
			q->tx_tail->next = &r->bind_wr;
		else
			q->tx_head = &r->bind_wr;
	} else if (q->tx_tail) {
		q->tx_tail->next = wr;
	} else {
		q->tx_head = wr;
	}
	q->tx_tail = wr;
	q->nr_tx++;
	atomic_store_explicit(&nq->tx_queued, true, memory_order_relaxed);
	return 0;
}

/* Post the SENDs queue_rq built, as one chain (one doorbell). Under
 * tx_lock. */
static void nr_flush(struct nvmf_queue *nq)
{
	struct nr_queue *q = nr_q(nq);
	struct ibv_send_wr *bad = NULL;
	int ret;

	if (!q->tx_head)
		return;
	ret = q->cn ? ibv_post_send(q->cn->id->qp, q->tx_head, &bad) : ENOTCONN;
	if (!ret) {
		struct ibv_send_wr *w;

		st_add(&q->st.sends, q->nr_tx);
		st_add(&q->st.signalled, q->nr_tx);
		/* the windows' new keys (their requests cannot complete and
		 * be rebuilt meanwhile: that takes tx_lock) */
		for (w = q->tx_head; w; w = w->next)
			if (w->opcode == IBV_WR_BIND_MW)
				w->bind_mw.mw->rkey = w->bind_mw.rkey;
	}
	q->tx_head = q->tx_tail = NULL;
	q->nr_tx = 0;
	if (ret) {
		char why[64];

		/* the QP is in error: what was not posted stays held (queued
		 * until the detach) and is sent again after the reset */
		snprintf(why, sizeof(why), "ibv_post_send: %s", strerror(ret));
		nvmf_conn_fail(nq, why);
	}
}

/* rq's response and send completion are both in: it completes. */
static int req_finish(struct nr_queue *q, struct mqblk_rq *rq)
{
	struct nr_req *r = nr_rq(rq);

	if (r->bounced && rq->op == MQBLK_OP_READ && !(r->status & 0x7ff))
		memcpy(rq->buf, q->bounce[rq->tag].buf, rq->len);
	return nvmf_complete_tag(&q->nq, rq, r->status);
}

/* A work request failed (flushed after a disconnect, retries exceeded,
 * a remote access error): the connection goes. */
static int wc_fail(struct nr_queue *q, const char *what,
		   enum ibv_wc_status status)
{
	char why[96];

	snprintf(why, sizeof(why), "%s completion: %s", what,
		 ibv_wc_status_str(status));
	nvmf_conn_fail(&q->nq, why);
	return -1;
}

/* rq's response came with its window still bound: invalidated by the
 * controller (SEND with Invalidate: rxe sets flag bit 0x4, libibverbs
 * says IBV_WC_WITH_INV), or else we post a LOCAL_INV and complete it
 * when that completes. 0, or -1 when the connection failed. */
static int inv_check(struct nr_queue *q, struct nvmf_conn *cn,
		     struct mqblk_rq *rq, const struct ibv_wc *wc)
{
	struct nr_req *r = nr_rq(rq);
	struct ibv_send_wr *bad;

	if ((wc->wc_flags & (IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK)) &&
	    wc->invalidated_rkey == r->inv_rkey) {
		r->inv_pending = false;
		st_add(&cn->st->remote_inv, 1);
		return 0;
	}
	if (r->inv_posted)
		return 0;
	memset(&r->inv_wr, 0, sizeof(r->inv_wr));
	r->inv_wr.wr_id = (uintptr_t)rq | NR_WR_INV;
	r->inv_wr.opcode = IBV_WR_LOCAL_INV;
	r->inv_wr.invalidate_rkey = r->inv_rkey;
	r->inv_wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(cn->id->qp, &r->inv_wr, &bad)) {
		nvmf_conn_fail(&q->nq, "posting a local invalidation failed");
		return -1;
	}
	r->inv_posted = true;
	return 0;
}

/* One pass over both CQs: completions counted in *done; how many work
 * completions, or -1 when the connection failed. */
static int io_reap(struct nr_queue *q, struct nvmf_conn *cn, int *done)
{
	struct ibv_wc wc[NR_WC_BATCH];
	int n, i, total;

	n = ibv_poll_cq(cn->scq, NR_WC_BATCH, wc);
	if (n < 0)
		goto fail_poll;
	total = n;
	for (i = 0; i < n; i++) {
		struct mqblk_rq *rq = (struct mqblk_rq *)(uintptr_t)wc[i].wr_id;
		struct nr_req *r;

		if (wc[i].status != IBV_WC_SUCCESS)
			return wc_fail(q, "send", wc[i].status);
		if (!rq)
			continue; /* the Connect's (sync_send) */
		if (wc[i].wr_id & NR_WR_INV) {
			/* our invalidation of its window is done */
			rq = (struct mqblk_rq *)(uintptr_t)(wc[i].wr_id &
							    ~NR_WR_INV);
			r = nr_rq(rq);
			r->inv_pending = false;
			st_add(&cn->st->local_inv, 1);
			if (r->send_done && r->rsp_done) {
				int ret = req_finish(q, rq);

				if (ret < 0)
					return -1;
				*done += ret;
			}
			continue;
		}
		r = nr_rq(rq);
		r->send_done = true;
		atomic_store_explicit(&nr_nr(rq)->queued, false,
				      memory_order_release);
		if (r->rsp_done && !r->inv_pending) {
			int ret = req_finish(q, rq);

			if (ret < 0)
				return -1;
			*done += ret;
		}
	}
	st_add(&cn->st->cqes, (uint64_t)n);
	n = ibv_poll_cq(cn->rcq, NR_WC_BATCH, wc);
	if (n < 0)
		goto fail_poll;
	total += n;
	st_add(&cn->st->cqes, (uint64_t)n);
	for (i = 0; i < n; i++) {
		unsigned k = (unsigned)wc[i].wr_id;
		struct nvme_completion cqe;
		struct mqblk_rq *rq;
		struct nr_req *r;

		st_add(&cn->st->recv_done, 1);
		if (wc[i].status != IBV_WC_SUCCESS)
			return wc_fail(q, "receive", wc[i].status);
		if (k >= cn->nr_rsp ||
		    wc[i].byte_len < sizeof(struct nvme_completion)) {
			nvmf_conn_fail(&q->nq, "malformed response");
			return -1;
		}
		cqe = cn->rsps[k];
		if (nr_post_recv(cn, k)) {
			nvmf_conn_fail(&q->nq, "ibv_post_recv failed");
			return -1;
		}
		rq = nvmf_cid_rq(&q->nq, cqe.command_id);
		if (!rq)
			continue; /* a stale answer: dropped */
		r = nr_rq(rq);
		if (r->rsp_done)
			continue; /* answered twice: the first one stands */
		r->rsp_done = true;
		r->status = nvme_cqe_status(&cqe);
		if (r->inv_pending && inv_check(q, cn, rq, &wc[i]))
			return -1;
		if (r->inv_pending)
			continue; /* its LOCAL_INV completes it */
		if (!r->send_done) {
			/* its SEND's completion is still to come */
			st_add(&cn->st->rsp_before_send, 1);
			continue;
		}
		{
			int ret = req_finish(q, rq);

			if (ret < 0)
				return -1;
			*done += ret;
		}
	}
	return total;
fail_poll:
	nvmf_conn_fail(&q->nq, "ibv_poll_cq failed");
	return -1;
}

/* Reap what completed (under rx_lock): an event-driven queue takes its
 * channel's events, reaps until empty, arms both CQs and looks once
 * more; a polled queue only reaps. */
static int nr_poll(struct nvmf_queue *nq)
{
	struct nr_queue *q = nr_q(nq);
	struct nvmf_conn *cn = q->cn;
	bool polled = nq->defer_tx;
	int done = 0, n;

	if (!cn || atomic_load(&nq->dead))
		return 0;
	if (!polled)
		nr_events_drain(cn);
	/* a disconnect: the CM says so (a polled queue looks now and then:
	 * its flushed receives tell it too) */
	if (!polled || ++q->polls >= NR_CM_CHECK_POLLS) {
		q->polls = 0;
		if (nr_cm_check(cn)) {
			nvmf_conn_fail(nq, "the controller disconnected");
			return 0;
		}
	}
	for (;;) {
		while ((n = io_reap(q, cn, &done)) > 0)
			;
		if (n < 0 || polled)
			break;
		if (ibv_req_notify_cq(cn->scq, 0) ||
		    ibv_req_notify_cq(cn->rcq, 0)) {
			nvmf_conn_fail(nq, "ibv_req_notify_cq failed");
			break;
		}
		if (io_reap(q, cn, &done) <= 0)
			break;
	}
	return done;
}

/* ---- mqblk_queue_map_buf: the bench's buffers registered once ---------- */

static int nr_map_buf(struct nvmf_queue *nq, void *base, size_t len)
{
	struct nr_queue *q = nr_q(nq);
	struct ibv_mr *mr;
	int ret = 0;

	if (q->nq.d->discovery)
		return -EOPNOTSUPP;
	mr = nr_reg(q->nq.d, base, len, &q->st);
	if (!mr)
		return errno ? -errno : -ENOMEM;
	pthread_mutex_lock(&q->nq.tx_lock);
	if (q->nr_maps == NR_MAX_MAPS) {
		ret = -ENOSPC;
	} else {
		q->maps[q->nr_maps].base = base;
		q->maps[q->nr_maps].len = len;
		q->maps[q->nr_maps++].mr = mr;
	}
	pthread_mutex_unlock(&q->nq.tx_lock);
	if (ret)
		ibv_dereg_mr(mr);
	return ret;
}

static void nr_unmap_buf(struct nvmf_queue *nq, void *base)
{
	struct nr_queue *q = nr_q(nq);
	struct ibv_mr *mr = NULL;
	unsigned i;

	pthread_mutex_lock(&q->nq.tx_lock);
	for (i = 0; i < q->nr_maps; i++) {
		if (q->maps[i].base == base) {
			mr = q->maps[i].mr;
			q->maps[i] = q->maps[--q->nr_maps];
			break;
		}
	}
	pthread_mutex_unlock(&q->nq.tx_lock);
	if (mr)
		ibv_dereg_mr(mr);
}

/* ---- Counters ---------------------------------------------------------------- */

static void stats_out(struct nvme_rdma_queue_stats *o, uint16_t qid,
		      const struct nr_stats *s)
{
	o->qid = qid;
	o->sends = atomic_load(&s->sends);
	o->signalled = atomic_load(&s->signalled);
	o->recv_posted = atomic_load(&s->recv_posted);
	o->recv_done = atomic_load(&s->recv_done);
	o->cqes = atomic_load(&s->cqes);
	o->events = atomic_load(&s->events);
	o->regs = atomic_load(&s->regs);
	o->incapsule = atomic_load(&s->incapsule);
	o->keyed = atomic_load(&s->keyed);
	o->bounced = atomic_load(&s->bounced);
	o->rsp_before_send = atomic_load(&s->rsp_before_send);
	o->remote_inv = atomic_load(&s->remote_inv);
	o->local_inv = atomic_load(&s->local_inv);
}

int nvme_rdma_get_stats(const struct mqblk_dev *dev,
			struct nvme_rdma_queue_stats *out, unsigned max)
{
	struct nvmf_ctrl *d;
	struct nr_ctrl *o;
	unsigned i, n;

	if (strcmp(mqblk_dev_driver_name(dev), "nvme_rdma"))
		return -EINVAL;
	d = mqblk_dev_data(dev);
	o = d->tr;
	if (max)
		stats_out(&out[0], 0, &o->admin);
	pthread_mutex_lock(&d->queues_lock);
	n = atomic_load(&d->nr_queues);
	for (i = 0; i < n; i++) {
		struct nr_queue *q = (struct nr_queue *)d->queues[i];

		if (i + 1 >= max)
			continue;
		if (q)
			stats_out(&out[i + 1], (uint16_t)(i + 1), &q->st);
		else
			memset(&out[i + 1], 0, sizeof(out[i + 1]));
	}
	pthread_mutex_unlock(&d->queues_lock);
	return (int)n + 1;
}

/* ---- The transport and its driver ----------------------------------------- */

static int nr_ctrl_init(struct nvmf_ctrl *d)
{
	struct nr_ctrl *o = calloc(1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	pthread_mutex_init(&o->lock, NULL);
	d->tr = o;
	return 0;
}

static void nr_ctrl_free(struct nvmf_ctrl *d)
{
	struct nr_ctrl *o = d->tr;

	if (!o)
		return;
	if (o->pd)
		ibv_dealloc_pd(o->pd);
	pthread_mutex_destroy(&o->lock);
	free(o);
	d->tr = NULL;
}

/* The transport's key: remote_invalidate=0|1 (default 0). */
static int nr_parse_param(struct nvmf_ctrl *d, struct mqblk_param *p,
			  bool *taken, char *err, size_t errlen)
{
	struct nr_ctrl *o = d->tr;

	*taken = !strcmp(p->key, "remote_invalidate");
	if (!*taken)
		return 0;
	return mqblk_param_bool(p, &o->rinv, err, errlen);
}

const struct nvmf_transport_ops nvmf_rdma_transport = {
	.name = "rdma",
	.driver = "nvme_rdma",
	.trtype = NVMF_TRTYPE_RDMA,
	.req_size = sizeof(struct nr_req),
	.queue_size = sizeof(struct nr_queue),
	.ctrl_init = nr_ctrl_init,
	.ctrl_free = nr_ctrl_free,
	.parse_param = nr_parse_param,
	.conn_open = nr_conn_open,
	.conn_close = nr_conn_close,
	.conn_fd = nr_conn_fd,
	.sync_send = nr_sync_send,
	.sync_recv = nr_sync_recv,
	.queue_init = nr_queue_init,
	.queue_free = nr_queue_free,
	.queue_attach = nr_queue_attach,
	.queue_detach = nr_queue_detach,
	.queue_kill = nr_queue_kill,
	.queue_rq = nr_queue_rq,
	.flush = nr_flush,
	.poll = nr_poll,
	.map_buf = nr_map_buf,
	.unmap_buf = nr_unmap_buf,
};
