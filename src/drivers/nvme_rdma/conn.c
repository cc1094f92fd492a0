// SPDX-License-Identifier: MIT
/*
 * NVMe/RDMA host connections: the RDMA CM exchange (address, route, the
 * binding's private data, accept or reject), the QP, CQs, completion
 * channel and receive ring of a queue, its teardown, and the synchronous
 * commands of set-up and the admin queue (keyed SGLs through a
 * registered bounce buffer; the receive CQ left armed for the control
 * thread's AER watch).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "nvme/rdma.h"

static uint64_t now_ms(void)
{
	return nvmf_now_ms();
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* ---- The controller's protection domain --------------------------------- */

static int pd_get(struct nvmf_ctrl *d, struct ibv_context *verbs, char *err,
		  size_t errlen)
{
	struct nr_ctrl *o = d->tr;
	struct ibv_device_attr attr;
	int ret = 0;

	pthread_mutex_lock(&o->lock);
	if (!o->pd) {
		o->pd = ibv_alloc_pd(verbs);
		if (!o->pd) {
			ret = errno ? -errno : -ENOMEM;
			nvmf_err(err, errlen,
				 "nvme-rdma: %s:%s: ibv_alloc_pd: %s", d->host,
				 d->port, strerror(-ret));
		} else {
			o->verbs = verbs;
			o->rd_atom = 16;
			if (!ibv_query_device(verbs, &attr))
				o->rd_atom =
					(uint8_t)(attr.max_qp_rd_atom > 255 ?
							  255 :
							  attr.max_qp_rd_atom);
		}
	} else if (o->verbs != verbs) {
		ret = -EXDEV;
		nvmf_err(err, errlen,
			 "nvme-rdma: %s:%s: reached through another RDMA "
			 "device than the controller's other queues",
			 d->host, d->port);
	}
	pthread_mutex_unlock(&o->lock);
	return ret;
}

struct ibv_mr *nr_reg(struct nvmf_ctrl *d, void *buf, size_t len,
		      struct nr_stats *st)
{
	struct nr_ctrl *o = d->tr;
	struct ibv_mr *mr =
		ibv_reg_mr(o->pd, buf, len,
			   NR_ACCESS | (o->rinv ? IBV_ACCESS_MW_BIND : 0));

	if (mr)
		st_add(&st->regs, 1);
	return mr;
}

/* ---- Connections ------------------------------------------------------------ */

/* The next CM event on cn within timeout_ms (the caller acks it). */
static int cm_next(struct nvmf_conn *cn, int timeout_ms,
		   struct rdma_cm_event **ev)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;

	for (;;) {
		struct pollfd p = { .fd = cn->ech->fd, .events = POLLIN };
		uint64_t t;

		if (!rdma_get_cm_event(cn->ech, ev))
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		t = now_ms();
		if (t >= end)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)(end - t)) < 0 && errno != EINTR)
			return -errno;
	}
}

/* Wait for the CM event want; anything else is the error it names. */
static int cm_expect(struct nvmf_conn *cn, enum rdma_cm_event_type want,
		     const char *step, char *err, size_t errlen)
{
	struct nvmf_ctrl *d = cn->d;
	struct rdma_cm_event *ev;
	int ret = cm_next(cn, NR_CM_TIMEOUT_MS * 3, &ev);

	if (ret) {
		nvmf_err(err, errlen, "nvme-rdma: %s:%s qid %u: %s: %s",
			 d->host, d->port, cn->qid, step, strerror(-ret));
		return ret;
	}
	if (ev->event == want) {
		rdma_ack_cm_event(ev);
		return 0;
	}
	nvmf_err(err, errlen, "nvme-rdma: %s:%s qid %u: %s: %s (status %d)",
		 d->host, d->port, cn->qid, step, rdma_event_str(ev->event),
		 ev->status);
	rdma_ack_cm_event(ev);
	return -EHOSTUNREACH;
}

int nr_post_recv(struct nvmf_conn *cn, unsigned i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)&cn->rsps[i],
			       .length = sizeof(struct nvme_completion),
			       .lkey = cn->mem_mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret = ibv_post_recv(cn->id->qp, &wr, &bad);

	if (!ret)
		st_add(&cn->st->recv_posted, 1);
	return ret ? -ret : 0;
}

/* Teardown in the order rxe needs: disconnect (the QP errors out and
 * flushes), the QP, then the CQs (their events acked), the channel, the
 * memory, the CM id. No memory window is ever bound here. */
void nr_conn_destroy(struct nvmf_conn *cn)
{
	if (cn->connected && !atomic_load(&cn->disconnected))
		rdma_disconnect(cn->id);
	if (cn->qp_made)
		rdma_destroy_qp(cn->id);
	if (cn->scq) {
		ibv_ack_cq_events(cn->scq, cn->scq_unacked);
		ibv_destroy_cq(cn->scq);
	}
	if (cn->rcq) {
		ibv_ack_cq_events(cn->rcq, cn->rcq_unacked);
		ibv_destroy_cq(cn->rcq);
	}
	if (cn->cch)
		ibv_destroy_comp_channel(cn->cch);
	if (cn->mem_mr)
		ibv_dereg_mr(cn->mem_mr);
	if (cn->bounce_mr)
		ibv_dereg_mr(cn->bounce_mr);
	free(cn->mem);
	free(cn->bounce);
	if (cn->id)
		rdma_destroy_id(cn->id);
	if (cn->ech)
		rdma_destroy_event_channel(cn->ech);
	if (cn->wait_fd >= 0)
		close(cn->wait_fd);
	free(cn);
}

/* The QP, CQs, completion channel and receive ring of a resolved id. */
static int conn_verbs(struct nvmf_conn *cn, char *err, size_t errlen)
{
	struct nvmf_ctrl *d = cn->d;
	struct nr_ctrl *o = d->tr;
	struct ibv_qp_init_attr qa;
	size_t rsp_bytes = (cn->nr_rsp * sizeof(struct nvme_completion) + 63) &
			   ~(size_t)63;
	const char *what;
	unsigned i;
	int ret;

	ret = pd_get(d, cn->id->verbs, err, errlen);
	if (ret)
		return ret;
	what = "ibv_create_comp_channel";
	cn->cch = ibv_create_comp_channel(cn->id->verbs);
	if (!cn->cch || set_nonblock(cn->cch->fd))
		goto fail;
	/* an I/O queue's sends wake it too; the admin queue's do not (its
	 * channel is the control thread's "an answer came") */
	what = "ibv_create_cq";
	cn->scq = ibv_create_cq(cn->id->verbs, (int)cn->nr_rsp + 1, cn,
				cn->qid ? cn->cch : NULL, 0);
	cn->rcq = cn->scq ? ibv_create_cq(cn->id->verbs, (int)cn->nr_rsp, cn,
					  cn->cch, 0) :
			    NULL;
	if (!cn->rcq)
		goto fail;
	memset(&qa, 0, sizeof(qa));
	qa.qp_context = cn;
	qa.send_cq = cn->scq;
	qa.recv_cq = cn->rcq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 0;
	/* with remote invalidation a command may take three: the window's
	 * bind, the SEND, and a local invalidation when the controller did
	 * not invalidate */
	qa.cap.max_send_wr = cn->nr_rsp * (cn->qid && o->rinv ? 3 : 1) + 1;
	qa.cap.max_recv_wr = cn->nr_rsp;
	qa.cap.max_send_sge = 2; /* the SQE, in-capsule data */
	qa.cap.max_recv_sge = 1;
	what = "rdma_create_qp";
	if (rdma_create_qp(cn->id, o->pd, &qa))
		goto fail;
	cn->qp_made = true;
	what = "registering the response buffers";
	cn->mem = aligned_alloc(64, rsp_bytes + sizeof(union nvme_command));
	if (!cn->mem) {
		errno = ENOMEM;
		goto fail;
	}
	memset(cn->mem, 0, rsp_bytes + sizeof(union nvme_command));
	cn->rsps = (struct nvme_completion *)cn->mem;
	cn->sqe = (union nvme_command *)(cn->mem + rsp_bytes);
	cn->mem_mr = nr_reg(d, cn->mem, rsp_bytes + sizeof(union nvme_command),
			    cn->st);
	if (!cn->mem_mr)
		goto fail;
	for (i = 0; i < cn->nr_rsp; i++) {
		ret = nr_post_recv(cn, i);
		if (ret) {
			errno = -ret;
			what = "ibv_post_recv";
			goto fail;
		}
	}
	return 0;
fail:
	ret = errno ? -errno : -ENOMEM;
	nvmf_err(err, errlen, "nvme-rdma: %s:%s qid %u: %s: %s", d->host,
		 d->port, cn->qid, what, strerror(-ret));
	return ret;
}

/* rdma_connect with the binding's private data; the accept or the
 * reject (its status named). */
static int conn_connect(struct nvmf_conn *cn, char *err, size_t errlen)
{
	struct nvmf_ctrl *d = cn->d;
	struct nr_ctrl *o = d->tr;
	struct nvme_rdma_cm_req req;
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	int ret, st;

	/* HRQSIZE: the responses we take at once (our receive buffers);
	 * HSQSIZE: the queue's SQSIZE, 0's based, as in its Connect */
	nvme_rdma_cm_req_fill(&req, cn->qid, (uint16_t)cn->nr_rsp,
			      (uint16_t)(cn->nr_rsp - 1), d->cntlid);
	memset(&cp, 0, sizeof(cp));
	cp.private_data = &req;
	cp.private_data_len = sizeof(req);
	cp.responder_resources = o->rd_atom; /* its RDMA READs of our data */
	cp.initiator_depth = 0; /* we read nothing of the controller's */
	cp.flow_control = 1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_connect(cn->id, &cp)) {
		ret = -errno;
		nvmf_err(err, errlen,
			 "nvme-rdma: %s:%s qid %u: rdma_connect: %s", d->host,
			 d->port, cn->qid, strerror(-ret));
		return ret;
	}
	ret = cm_next(cn, NVMF_IO_TIMEOUT_MS, &ev);
	if (ret) {
		nvmf_err(err, errlen,
			 "nvme-rdma: %s:%s qid %u: connect: no answer: %s",
			 d->host, d->port, cn->qid, strerror(-ret));
		return ret;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		if (nvme_rdma_cm_rep_parse(ev->param.conn.private_data,
					   ev->param.conn.private_data_len,
					   &cn->crqsize))
			cn->crqsize = 0; /* not the binding's: not needed */
		rdma_ack_cm_event(ev);
		cn->connected = true;
		return 0;
	case RDMA_CM_EVENT_REJECTED:
		/* only a consumer's reject carries the binding's status; the
		 * CM's own (no listener: invalid service ID) carries zeros */
		st = ev->status != NR_CM_REJ_CONSUMER ?
			     -1 :
			     nvme_rdma_cm_rej_parse(
				     ev->param.conn.private_data,
				     ev->param.conn.private_data_len);
		if (st >= 0)
			nvmf_err(err, errlen,
				 "nvme-rdma: %s:%s qid %u: connect rejected: "
				 "%s (status %d)",
				 d->host, d->port, cn->qid,
				 nvme_rdma_cm_msg((uint16_t)st), st);
		else
			nvmf_err(err, errlen,
				 "nvme-rdma: %s:%s qid %u: connect rejected "
				 "(CM reject reason %d: no NVMe/RDMA listener "
				 "there?)",
				 d->host, d->port, cn->qid, ev->status);
		rdma_ack_cm_event(ev);
		return -ECONNREFUSED;
	default:
		nvmf_err(err, errlen,
			 "nvme-rdma: %s:%s qid %u: connect: %s (status %d)",
			 d->host, d->port, cn->qid, rdma_event_str(ev->event),
			 ev->status);
		rdma_ack_cm_event(ev);
		return -ECONNREFUSED;
	}
}

struct nvmf_conn *nr_conn_open(struct nvmf_ctrl *d, uint16_t qid, char *err,
			       size_t errlen, int *ret)
{
	struct nr_ctrl *o = d->tr;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct epoll_event ev = { .events = EPOLLIN };
	struct nvmf_conn *cn = calloc(1, sizeof(*cn));
	struct addrinfo *ai = NULL;
	int r;

	if (!cn) {
		*ret = -ENOMEM;
		nvmf_err(err, errlen, "nvme-rdma: out of memory");
		return NULL;
	}
	cn->d = d;
	cn->qid = qid;
	cn->wait_fd = -1;
	cn->nr_rsp = qid ? d->queue_size : NVMF_ADMIN_DEPTH;
	cn->st = qid ? &cn->own : &o->admin;
	cn->ech = rdma_create_event_channel();
	if (!cn->ech || set_nonblock(cn->ech->fd) ||
	    rdma_create_id(cn->ech, &cn->id, cn, RDMA_PS_TCP)) {
		*ret = errno ? -errno : -ENOMEM;
		nvmf_err(err, errlen,
			 "nvme-rdma: %s:%s: no RDMA connection manager: %s "
			 "(is an RDMA device up, rdma_ucm loaded?)",
			 d->host, d->port, strerror(-*ret));
		goto fail;
	}
	r = getaddrinfo(d->host, d->port, &hints, &ai);
	if (r) {
		nvmf_err(err, errlen, "nvme-rdma: %s:%s: %s", d->host, d->port,
			 gai_strerror(r));
		*ret = -EINVAL;
		goto fail;
	}
	if (rdma_resolve_addr(cn->id, NULL, ai->ai_addr, NR_CM_TIMEOUT_MS)) {
		*ret = -errno;
		nvmf_err(err, errlen, "nvme-rdma: %s:%s: rdma_resolve_addr: %s",
			 d->host, d->port, strerror(-*ret));
		goto fail;
	}
	freeaddrinfo(ai);
	ai = NULL;
	*ret = cm_expect(cn, RDMA_CM_EVENT_ADDR_RESOLVED,
			 "address resolution (no RDMA device for it?)", err,
			 errlen);
	if (*ret)
		goto fail;
	if (rdma_resolve_route(cn->id, NR_CM_TIMEOUT_MS)) {
		*ret = -errno;
		nvmf_err(err, errlen,
			 "nvme-rdma: %s:%s: rdma_resolve_route: %s", d->host,
			 d->port, strerror(-*ret));
		goto fail;
	}
	*ret = cm_expect(cn, RDMA_CM_EVENT_ROUTE_RESOLVED, "route resolution",
			 err, errlen);
	if (!*ret)
		*ret = conn_verbs(cn, err, errlen);
	if (!*ret)
		*ret = conn_connect(cn, err, errlen);
	if (*ret)
		goto fail;
	cn->wait_fd = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = cn->cch->fd;
	if (cn->wait_fd < 0 ||
	    epoll_ctl(cn->wait_fd, EPOLL_CTL_ADD, cn->cch->fd, &ev))
		goto fail_errno;
	ev.data.fd = cn->ech->fd;
	if (epoll_ctl(cn->wait_fd, EPOLL_CTL_ADD, cn->ech->fd, &ev))
		goto fail_errno;
	/* an answer wakes the channel (the control thread's AER watch) */
	if (ibv_req_notify_cq(cn->rcq, 0))
		goto fail_errno;
	return cn;
fail_errno:
	*ret = -errno;
	nvmf_err(err, errlen, "nvme-rdma: %s:%s: %s", d->host, d->port,
		 strerror(-*ret));
fail:
	if (ai)
		freeaddrinfo(ai);
	if (!*ret)
		*ret = -EIO;
	nr_conn_destroy(cn);
	return NULL;
}

void nr_conn_close(struct nvmf_conn *cn)
{
	nr_conn_destroy(cn);
}

int nr_conn_fd(const struct nvmf_conn *cn)
{
	return cn->wait_fd;
}

/* Take what the CM says (non-blocking): a disconnect or a device going
 * marks the connection; 1 when it is gone. */
int nr_cm_check(struct nvmf_conn *cn)
{
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(cn->ech, &ev)) {
		switch (ev->event) {
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		case RDMA_CM_EVENT_ADDR_CHANGE:
			atomic_store(&cn->disconnected, true);
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
	}
	return atomic_load(&cn->disconnected) ? 1 : 0;
}

/* Take the completion channel's events (non-blocking), counted; acked in
 * batches (ibv_ack_cq_events takes a lock). */
void nr_events_drain(struct nvmf_conn *cn)
{
	struct ibv_cq *cq;
	void *ctx;

	while (!ibv_get_cq_event(cn->cch, &cq, &ctx)) {
		st_add(&cn->st->events, 1);
		if (cq == cn->scq)
			cn->scq_unacked++;
		else
			cn->rcq_unacked++;
	}
	if (cn->scq_unacked >= 64) {
		ibv_ack_cq_events(cn->scq, cn->scq_unacked);
		cn->scq_unacked = 0;
	}
	if (cn->rcq_unacked >= 64) {
		ibv_ack_cq_events(cn->rcq, cn->rcq_unacked);
		cn->rcq_unacked = 0;
	}
}

/* ---- Synchronous commands (set-up, the admin queue) --------------------- */

/* Reap a synchronous connection's CQs: send completions counted off,
 * responses into the stash (their buffers posted again). */
static int sync_reap(struct nvmf_conn *cn)
{
	struct ibv_wc wc[NR_WC_BATCH];
	int n, i;

	n = ibv_poll_cq(cn->scq, NR_WC_BATCH, wc);
	for (i = 0; i < n; i++) {
		st_add(&cn->st->cqes, 1);
		if (wc[i].status != IBV_WC_SUCCESS)
			return -ECONNRESET;
		if (cn->sends_out)
			cn->sends_out--;
	}
	if (n < 0)
		return -EIO;
	n = ibv_poll_cq(cn->rcq, NR_WC_BATCH, wc);
	for (i = 0; i < n; i++) {
		unsigned k = (unsigned)wc[i].wr_id;

		st_add(&cn->st->cqes, 1);
		st_add(&cn->st->recv_done, 1);
		if (wc[i].status != IBV_WC_SUCCESS)
			return -ECONNRESET;
		if (k >= cn->nr_rsp ||
		    wc[i].byte_len < sizeof(struct nvme_completion) ||
		    cn->nr_stash == NR_STASH)
			return -EPROTO;
		cn->stash[cn->nr_stash++] = cn->rsps[k];
		if (nr_post_recv(cn, k))
			return -ECONNRESET;
	}
	return n < 0 ? -EIO : 0;
}

/* Wait on the connection (completion channel, CM) until end; 0 woken,
 * -ETIMEDOUT, -ECONNRESET when the controller disconnected. */
static int sync_wait(struct nvmf_conn *cn, uint64_t end)
{
	struct epoll_event e[2];
	uint64_t t = now_ms();
	int n;

	if (t >= end)
		return -ETIMEDOUT;
	n = epoll_wait(cn->wait_fd, e, 2, (int)(end - t));
	if (n < 0 && errno != EINTR)
		return -errno;
	nr_events_drain(cn);
	if (nr_cm_check(cn))
		return -ECONNRESET;
	return 0;
}

/* Until every synchronous SEND completed: their SQE and data buffers are
 * ours again. Sends complete right after the controller took them. */
static int sends_wait(struct nvmf_conn *cn, uint64_t end)
{
	while (cn->sends_out) {
		struct timespec ts = { 0, 20000 };
		int ret = sync_reap(cn);

		if (ret)
			return ret;
		if (!cn->sends_out)
			break;
		if (now_ms() >= end)
			return -ETIMEDOUT;
		if (atomic_load(&cn->disconnected) || nr_cm_check(cn))
			return -ECONNRESET;
		nanosleep(&ts, NULL);
	}
	return 0;
}

static int bounce_size(struct nvmf_conn *cn, size_t len)
{
	size_t cap = (len + 4095) & ~(size_t)4095;
	uint8_t *b;

	if (cn->bounce_len >= len)
		return 0;
	b = aligned_alloc(4096, cap);
	if (!b)
		return -ENOMEM;
	if (cn->bounce_mr)
		ibv_dereg_mr(cn->bounce_mr);
	free(cn->bounce);
	cn->bounce = b;
	cn->bounce_len = 0;
	cn->bounce_mr = nr_reg(cn->d, b, cap, cn->st);
	if (!cn->bounce_mr)
		return -ENOMEM;
	cn->bounce_len = cap;
	return 0;
}

int nr_sync_send(struct nvmf_conn *cn, union nvme_command *cmd, void *buf,
		 uint32_t len, bool to_ctrl)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	int ret;

	ret = sends_wait(cn, now_ms() + NVMF_IO_TIMEOUT_MS);
	if (ret)
		return ret;
	if (len) {
		/* by keyed SGL both ways: nvmet-rdma takes no in-capsule
		 * data on the admin queue (Connect's data included) */
		ret = bounce_size(cn, len);
		if (ret)
			return ret;
		if (to_ctrl)
			memcpy(cn->bounce, buf, len);
		nvme_rdma_sgl_keyed(cmd, (uintptr_t)cn->bounce, len,
				    cn->bounce_mr->rkey, false);
		cn->pend = !to_ctrl;
		cn->pend_cid = cmd->common.command_id;
		cn->pend_buf = buf;
		cn->pend_len = len;
		st_add(&cn->st->keyed, 1);
		st_add(&cn->st->bounced, 1);
	} else {
		nvme_rdma_sgl_none(cmd);
	}
	memcpy(cn->sqe, cmd, sizeof(*cmd));
	sge.addr = (uintptr_t)cn->sqe;
	sge.length = sizeof(*cmd);
	sge.lkey = cn->mem_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	ret = ibv_post_send(cn->id->qp, &wr, &bad);
	if (ret)
		return -ret;
	cn->sends_out++;
	st_add(&cn->st->sends, 1);
	st_add(&cn->st->signalled, 1);
	return 0;
}

/*
 * The next response on cn, blocking until NVMF_IO_TIMEOUT_MS. Leaves the
 * receive CQ armed with no stale event, so the channel (conn_fd) is
 * readable only for an answer that came later: the control thread's
 * watch for the AER's. A response found while settling stays stashed for
 * the next call (the next keep-alive's at the latest).
 */
int nr_sync_recv(struct nvmf_conn *cn, uint16_t cid, void *buf, uint32_t len,
		 struct nvme_completion *cqe)
{
	/* cid 0: the control thread saw the channel readable. A real
	 * answer is in the CQ already; an event left by a completion reaped
	 * meanwhile is not worth a long wait (-EAGAIN, as the ops table
	 * says) */
	uint64_t end = now_ms() + (cid ? NVMF_IO_TIMEOUT_MS : NR_LOOK_MS);
	bool armed = false;
	unsigned i;
	int ret;

	(void)buf;
	(void)len; /* the data lands where sync_send was told */
	while (!cn->nr_stash) {
		ret = sync_reap(cn);
		if (ret)
			return ret;
		if (cn->nr_stash)
			break;
		if (atomic_load(&cn->disconnected))
			return -ECONNRESET;
		if (!armed) {
			/* arm, then look once more: an answer between the
			 * look and the arm raises no event */
			if (ibv_req_notify_cq(cn->rcq, 0))
				return -EIO;
			armed = true;
			continue;
		}
		ret = sync_wait(cn, end);
		if (ret == -ETIMEDOUT && !cid)
			return -EAGAIN; /* the CQ stays armed */
		if (ret)
			return ret;
		armed = false;
	}
	*cqe = cn->stash[0];
	cn->nr_stash--;
	for (i = 0; i < cn->nr_stash; i++)
		cn->stash[i] = cn->stash[i + 1];
	if (cn->pend && cqe->command_id == cn->pend_cid) {
		/* the controller's RDMA WRITE landed before its response */
		cn->pend = false;
		if (!(nvme_cqe_status(cqe) & 0x7ff))
			memcpy(cn->pend_buf, cn->bounce, cn->pend_len);
	}
	/* settle: no event left from what was reaped, the CQ armed; the
	 * send of this command completes before its buffers are reused */
	ret = sends_wait(cn, end);
	if (ret)
		return ret;
	for (;;) {
		unsigned before = cn->nr_stash;

		nr_events_drain(cn);
		if (ibv_req_notify_cq(cn->rcq, 0))
			return -EIO;
		ret = sync_reap(cn);
		if (ret)
			return ret;
		if (cn->nr_stash == before)
			break;
	}
	return 0;
}
