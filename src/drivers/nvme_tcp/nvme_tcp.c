// SPDX-License-Identifier: MIT
/*
 * The NVMe/TCP host transport: a remote namespace over TCP, the userspace
 * counterpart of Linux's drivers/nvme/host/tcp.c, beneath the fabrics
 * host core (src/drivers/nvmf).
 *
 *   nvme-tcp://HOST:PORT/SUBNQN?nr_io_queues=N&hdr_digest=1&data_digest=1
 *       &hostnqn=NQN&hostid=UUID&kato=SEC&queue_size=N&nsid=N
 *
 * A connection is a TCP socket after ICReq/ICResp (TCP_NODELAY). On an
 * I/O queue the socket is the hardware queue's interrupt: readable means
 * PDUs to process, which poll does with the receive stepper of
 * src/nvme/tcp.c: CapsuleResp and C2HData complete requests through the
 * core (C2HData lands in the request's own buffer), R2T starts H2CData
 * from the request's buffer. Sends are batched: queue_rq queues PDUs and
 * the last request of a plug sends them all with one sendmsg, and the
 * H2CData for every R2T one poll pass finds goes out in one sendmsg at
 * its end. A request is on the send list ("queued", the core's flag)
 * until its last byte is handed to the kernel: the core completes
 * nothing the send path still reads.
 *
 * This file is the data path: I/O queues, their send list and receive
 * stepper. Connections (URI keys, socket, TLS, ICReq, the synchronous
 * commands) are nvt_conn.c's.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <mqblk/driver.h>

#include "nvme/nvme.h"
#include "nvt.h"

#define NVT_RXBUF 65536

/* Per request, after the core's struct nvmf_req. */
struct nvt_req {
	struct nvt_req *tx_next;
	struct iovec iov[4];
	uint8_t niov;
	bool h2c; /* the queued train is H2CData, not the command */
	bool incap; /* the data went in the capsule: no R2T for it */
	uint16_t ttag; /* the R2T's transfer tag */
	uint32_t r2t_off, r2t_end; /* the R2T's window, H2C next at r2t_off */
	uint32_t c2h_rcvd;
	uint8_t pdu[NVT_PDU_HDR_MAX];
	uint8_t h2c_hdr[NVT_PDU_HDR_MAX];
	uint8_t ddgst[4];
	uint8_t dsm[16];
};

/* One I/O queue: the core's part, the socket, the send list and the
 * receive state. */
struct nvt_queue {
	struct nvmf_queue nq;
	int fd;
	/* TLS: one SSL object for both directions, which OpenSSL does not
	 * let two threads use at once: ssl_lock around each call (the
	 * submitting and the polling thread may meet) */
	SSL *ssl;
	struct nvme_tls_wbuf *tls_w;
	pthread_mutex_t ssl_lock;
	/* kTLS: plain sendmsg/recvmsg, no lock (the kernel's socket takes
	 * both threads) */
	bool ktls;
	struct nvme_ktls_rx ktls_rx;
	struct nvme_tcp_conn conn;
	struct nvt_req *tx_head, *tx_tail; /* under nq.tx_lock */
	size_t tx_off;
	/* receive: poll only, under nq.rx_lock */
	struct nvme_tcp_rx_state rx;
	struct mqblk_rq *rx_rq;
	bool rx_success;
	bool rx_h2c; /* this pass queued H2CData: flush at its end */
};

static struct nvt_queue *nvt_q(struct nvmf_queue *nq)
{
	return (struct nvt_queue *)nq; /* nq is its first member */
}

static struct nvt_req *nvt_rq(struct mqblk_rq *rq)
{
	return nvmf_req_tr(mqblk_rq_pdu(rq));
}

static struct nvmf_req *nvt_nr(struct nvt_req *r)
{
	return (struct nvmf_req *)r - 1;
}

static struct mqblk_rq *nvt_rq_of(struct nvt_req *r)
{
	return (struct mqblk_rq *)nvt_nr(r) - 1;
}

static void tx_enqueue(struct nvt_queue *q, struct nvt_req *r)
{
	r->tx_next = NULL;
	atomic_store_explicit(&nvt_nr(r)->queued, true, memory_order_relaxed);
	if (q->tx_tail)
		q->tx_tail->tx_next = r;
	else
		q->tx_head = r;
	q->tx_tail = r;
	atomic_store_explicit(&q->nq.tx_queued, true, memory_order_relaxed);
}

static void *req_data(struct mqblk_rq *rq)
{
	struct nvt_req *r = nvt_rq(rq);

	return rq->op == MQBLK_OP_DISCARD ? (void *)r->dsm : rq->buf;
}

static uint32_t req_data_len(struct mqblk_rq *rq)
{
	return rq->op == MQBLK_OP_DISCARD ? 16 : rq->len;
}

/* The next H2CData PDU of r's R2T window into r's iovecs; 0, or -1
 * when it does not fit (it always does: NVT_PDU_HDR_MAX). */
static int h2c_next(struct nvt_queue *q, struct mqblk_rq *rq)
{
	struct nvt_req *r = nvt_rq(rq);
	uint32_t left = r->r2t_end - r->r2t_off;
	uint32_t len = left < q->conn.maxh2cdata ? left : q->conn.maxh2cdata;
	uint8_t *data = (uint8_t *)req_data(rq) + r->r2t_off;
	uint8_t flags = len == left ? NVME_TCP_F_DATA_LAST : 0;
	ssize_t pdo;

	pdo = nvme_tcp_build_data(&q->conn, r->h2c_hdr, sizeof(r->h2c_hdr),
				  nvt_nr(r)->cid, r->ttag, r->r2t_off, NULL,
				  len, flags);
	if (pdo < 0)
		return -1;
	r->iov[0].iov_base = r->h2c_hdr;
	r->iov[0].iov_len = (size_t)pdo;
	r->niov = (uint8_t)(1 + nvme_tcp_data_iov(&q->conn, r->iov + 1, data,
						  len, r->ddgst));
	r->h2c = true;
	r->r2t_off += len;
	return 0;
}

/* Send what is queued; waits for room rather than leave data behind
 * (the controller always drains its socket). Under tx_lock. */
static void tx_flush(struct nvt_queue *q)
{
	struct iovec iov[64];

	while (q->tx_head && !atomic_load(&q->nq.dead)) {
		struct nvt_req *r, *again = NULL;
		size_t skip = q->tx_off, done;
		unsigned n = 0;
		ssize_t sent;

		for (r = q->tx_head; r && n + 4 <= 64; r = r->tx_next)
			n += nvme_tcp_iov_append(iov + n, 64 - n, r->iov,
						 r->niov, &skip);
		if (q->ssl) {
			pthread_mutex_lock(&q->ssl_lock);
			sent = nvme_tls_writev(q->ssl, q->tls_w, iov, n);
			pthread_mutex_unlock(&q->ssl_lock);
		} else {
			sent = nvt_io_send(q->fd, NULL, NULL, iov, n);
		}
		if (sent < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (nvt_sock_wait(q->fd, POLLOUT,
						  NVMF_IO_TIMEOUT_MS))
					nvmf_conn_fail(&q->nq, "send stalled");
				continue;
			}
			nvmf_conn_fail(&q->nq, strerror(errno));
			return;
		}
		done = q->tx_off + (size_t)sent;
		while (q->tx_head) {
			size_t len = nvme_tcp_iov_len(q->tx_head->iov,
						      q->tx_head->niov);

			if (done < len)
				break;
			done -= len;
			r = q->tx_head;
			q->tx_head = r->tx_next;
			if (!q->tx_head)
				q->tx_tail = NULL;
			if (r->h2c && r->r2t_off < r->r2t_end) {
				/* more H2CData for this R2T: after the rest */
				struct mqblk_rq *rq = nvt_rq_of(r);

				if (h2c_next(q, rq)) {
					nvmf_conn_fail(&q->nq,
						       "H2CData header");
					return;
				}
				r->tx_next = again;
				again = r;
			} else {
				/* this R2T's window is sent: the controller
				 * may ask for more with another R2T. The
				 * kernel has the bytes: the buffer is the
				 * request's again (pairs with the acquire in
				 * tx_holds) */
				r->h2c = false;
				atomic_store_explicit(&nvt_nr(r)->queued, false,
						      memory_order_release);
			}
		}
		q->tx_off = done;
		while (again) {
			r = again;
			again = r->tx_next;
			tx_enqueue(q, r);
		}
	}
}

/* The command PDU (and in-capsule data) of rq into its iovecs, from
 * scratch: also what a reconnect resends. 0, or -1 for a request this
 * controller cannot take. */
static int build_req(struct nvt_queue *q, struct mqblk_rq *rq)
{
	struct nvmf_ctrl *d = q->nq.d;
	struct nvt_req *r = nvt_rq(rq);
	union nvme_command cmd;
	uint32_t incap = 0;
	ssize_t n;

	memset(&cmd, 0, sizeof(cmd));
	nvt_nr(r)->cid = nvmf_req_cid(rq);
	r->h2c = false;
	nvt_nr(r)->abort_sent = false;
	r->c2h_rcvd = 0;
	r->r2t_off = r->r2t_end = 0;
	cmd.common.command_id = nvt_nr(r)->cid;
	cmd.common.flags = NVME_CMD_SGL_METABUF;
	cmd.common.nsid = cpu_to_le32(d->nsid);
	cmd.common.dptr.sgl.type = NVME_SGL_TCP_TRANSPORT;
	switch (rq->op) {
	case MQBLK_OP_READ:
	case MQBLK_OP_WRITE:
	case MQBLK_OP_WRITE_ZEROES:
		cmd.rw.opcode = rq->op == MQBLK_OP_READ ? nvme_cmd_read :
				rq->op == MQBLK_OP_WRITE ?
							  nvme_cmd_write :
							  nvme_cmd_write_zeroes;
		cmd.rw.slba = cpu_to_le64(rq->offset >> d->lba_shift);
		cmd.rw.length =
			cpu_to_le16((uint16_t)((rq->len >> d->lba_shift) - 1));
		if (rq->flags & MQBLK_REQ_FUA)
			cmd.rw.control = cpu_to_le16(NVME_RW_FUA);
		if (rq->op != MQBLK_OP_WRITE_ZEROES)
			cmd.common.dptr.sgl.length = cpu_to_le32(rq->len);
		if (rq->op == MQBLK_OP_WRITE && rq->len <= d->incap_max)
			incap = rq->len;
		break;
	case MQBLK_OP_FLUSH:
		cmd.common.opcode = nvme_cmd_flush;
		break;
	case MQBLK_OP_DISCARD:
		cmd.common.opcode = nvme_cmd_dsm;
		cmd.common.cdw11 = cpu_to_le32(1u << 2); /* AD */
		memset(r->dsm, 0, sizeof(r->dsm));
		nvme_put_le32(r->dsm + 4, rq->len >> d->lba_shift);
		nvme_put_le64(r->dsm + 8, rq->offset >> d->lba_shift);
		cmd.common.dptr.sgl.length = cpu_to_le32(16);
		if (d->incap_max >= 16)
			incap = 16;
		break;
	}
	r->incap = incap != 0;
	if (incap) {
		cmd.common.dptr.sgl.type = NVME_SGL_TCP_INCAPSULE;
		cmd.common.dptr.sgl.addr = 0;
	}
	n = nvme_tcp_build_cmd(&q->conn, r->pdu, sizeof(r->pdu), &cmd, NULL,
			       incap);
	if (n < 0)
		return -1;
	r->iov[0].iov_base = r->pdu;
	r->iov[0].iov_len = (size_t)n;
	r->niov = 1;
	if (incap)
		r->niov = (uint8_t)(1 + nvme_tcp_data_iov(&q->conn, r->iov + 1,
							  req_data(rq), incap,
							  r->ddgst));
	return 0;
}

static int rx_data_done(struct nvt_queue *q, bool ok)
{
	struct mqblk_rq *rq = q->rx_rq;

	q->rx_rq = NULL;
	if (!rq)
		return 0;
	if (!ok) {
		/* data digest error: the command failed (transient) */
		return nvmf_complete_tag(&q->nq, rq, NVME_SC_TRANSIENT_TR_ERR);
	}
	nvt_rq(rq)->c2h_rcvd += q->rx.len;
	if (q->rx_success)
		return nvmf_complete_tag(&q->nq, rq, 0);
	return 0;
}

static int rx_header(struct nvt_queue *q, const uint8_t *h)
{
	const struct nvme_tcp_rx_pdu *p = &q->rx.pdu;
	struct mqblk_rq *rq;
	struct nvt_req *r;
	const char *why;
	uint16_t cid;

	switch (p->type) {
	case nvme_tcp_rsp: {
		struct nvme_completion cqe;

		memcpy(&cqe, h + 8, sizeof(cqe));
		rq = nvmf_cid_rq(&q->nq, cqe.command_id);
		if (!rq)
			return 0; /* a stale answer: dropped */
		return nvmf_complete_tag(&q->nq, rq, nvme_cqe_status(&cqe));
	}
	case nvme_tcp_c2h_data: {
		uint32_t off = nvme_get_le32(h + 12);
		uint32_t len = nvme_get_le32(h + 16);

		memcpy(&cid, h + 8, 2);
		rq = nvmf_cid_rq(&q->nq, cid);
		if (rq && rq->op != MQBLK_OP_READ) {
			nvmf_conn_fail(
				&q->nq,
				"C2HData for a command that reads nothing");
			return -1;
		}
		if (rq) {
			r = nvt_rq(rq);
			if (nvme_tcp_check_data_range(off, len, r->c2h_rcvd,
						      rq->len)) {
				nvmf_conn_fail(&q->nq, "C2HData out of range");
				return -1;
			}
		}
		q->rx_rq = rq;
		q->rx_success = (p->flags & NVME_TCP_F_DATA_SUCCESS) && rq &&
				off + len == rq->len;
		nvme_tcp_rx_begin_data(&q->rx,
				       rq ? (uint8_t *)rq->buf + off : NULL);
		return 0;
	}
	case nvme_tcp_r2t: {
		uint32_t off = nvme_get_le32(h + 12);
		uint32_t len = nvme_get_le32(h + 16);

		memcpy(&cid, h + 8, 2);
		rq = nvmf_cid_rq(&q->nq, cid);
		if (!rq ||
		    (rq->op != MQBLK_OP_WRITE && rq->op != MQBLK_OP_DISCARD)) {
			nvmf_conn_fail(&q->nq, "R2T for no write");
			return -1;
		}
		r = nvt_rq(rq);
		/* r's R2T state (h2c, the window, ttag) belongs to the send
		 * side, under tx_lock: a sender clears h2c after its sendmsg
		 * returns, and the controller may have taken the window's last
		 * byte and sent the next R2T before that. So look only under
		 * the lock (which the sender holds from sendmsg to its
		 * bookkeeping): h2c still set there means the window is not
		 * all handed to the kernel, and the controller asked for more
		 * than the one R2T at a time the ICReq allows. */
		pthread_mutex_lock(&q->nq.tx_lock);
		why = NULL;
		if (off + (uint64_t)len > req_data_len(rq))
			why = "R2T out of range";
		else if (r->incap)
			why = "R2T for data sent in-capsule";
		else if (r->h2c)
			why = "R2T while the last one's data is unsent";
		else if (atomic_load_explicit(&nvt_nr(r)->queued,
					      memory_order_relaxed))
			/* its command is not all sent: put on the send list
			 * again, it would be linked in twice */
			why = "R2T for a command not yet sent";
		if (!why) {
			r->ttag = nvme_get_le16(h + 10);
			r->r2t_off = off;
			r->r2t_end = off + len;
			/* sent at the end of this poll pass, with the H2CData
			 * of every other R2T it finds: one sendmsg */
			if (h2c_next(q, rq))
				why = "H2CData header";
			else
				tx_enqueue(q, r);
		}
		pthread_mutex_unlock(&q->nq.tx_lock);
		if (why) {
			nvmf_conn_fail(&q->nq, why);
			return -1;
		}
		q->rx_h2c = true;
		return 0;
	}
	case nvme_tcp_c2h_term:
		nvmf_conn_fail(&q->nq,
			       "the controller terminated the connection "
			       "(C2HTermReq)");
		return -1;
	default:
		nvmf_conn_fail(&q->nq, "unexpected PDU");
		return -1;
	}
}

/* ---- I/O queues ---------------------------------------------------------- */

static int nvt_queue_init(struct nvmf_queue *nq)
{
	struct nvt_queue *q = nvt_q(nq);

	q->fd = -1;
	pthread_mutex_init(&q->ssl_lock, NULL);
	return nvme_tcp_rx_init(&q->rx, NVT_RXBUF);
}

static void nvt_queue_free(struct nvmf_queue *nq)
{
	nvme_tcp_rx_free(&nvt_q(nq)->rx);
	pthread_mutex_destroy(&nvt_q(nq)->ssl_lock);
}

static int nvt_queue_attach(struct nvmf_queue *nq, struct nvmf_conn *cn)
{
	struct nvt_queue *q = nvt_q(nq);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = cn->fd };

	if (epoll_ctl(nq->epfd, EPOLL_CTL_ADD, cn->fd, &ev)) {
		int ret = -errno;

		nvt_conn_close(cn);
		return ret;
	}
	q->fd = cn->fd;
	q->ssl = cn->ssl;
	q->tls_w = cn->tls_w;
	q->ktls = cn->ktls;
	q->ktls_rx = cn->ktls_rx;
	q->conn = cn->conn;
	free(cn); /* the socket (and TLS session) are the queue's now */
	return 0;
}

/* Forget what q's send list holds (the connection is gone or going):
 * none of it will be read by the send path again. */
static void tx_drop(struct nvt_queue *q)
{
	struct nvt_req *r;

	for (r = q->tx_head; r; r = r->tx_next)
		atomic_store_explicit(&nvt_nr(r)->queued, false,
				      memory_order_release);
	q->tx_head = q->tx_tail = NULL;
	q->tx_off = 0;
}

static void nvt_queue_detach(struct nvmf_queue *nq)
{
	struct nvt_queue *q = nvt_q(nq);

	pthread_mutex_lock(&q->ssl_lock);
	nvme_tls_close_notify(q->ssl, q->tls_w);
	SSL_free(q->ssl);
	q->ssl = NULL;
	free(q->tls_w);
	q->tls_w = NULL;
	pthread_mutex_unlock(&q->ssl_lock);
	if (q->ktls && q->fd >= 0)
		nvme_ktls_close_notify(q->fd);
	q->ktls = false;
	memset(&q->ktls_rx, 0, sizeof(q->ktls_rx));
	if (q->fd >= 0) {
		epoll_ctl(nq->epfd, EPOLL_CTL_DEL, q->fd, NULL);
		close(q->fd);
		q->fd = -1;
	}
	tx_drop(q);
	nvme_tcp_rx_reset(&q->rx);
	q->rx_rq = NULL;
}

static void nvt_queue_kill(struct nvmf_queue *nq)
{
	struct nvt_queue *q = nvt_q(nq);

	if (q->fd >= 0)
		shutdown(q->fd, SHUT_RDWR);
}

static int nvt_queue_rq(struct nvmf_queue *nq, struct mqblk_rq *rq)
{
	struct nvt_queue *q = nvt_q(nq);

	if (build_req(q, rq))
		return -1;
	tx_enqueue(q, nvt_rq(rq));
	return 0;
}

static void nvt_flush(struct nvmf_queue *nq)
{
	tx_flush(nvt_q(nq));
}

/* Process what the receive buffer holds; completions counted. */
static int rx_process(struct nvt_queue *q, int *done)
{
	while (!atomic_load(&q->nq.dead)) {
		const uint8_t *b;
		uint32_t avail;
		bool ok;
		int ret;

		switch (nvme_tcp_rx_next(&q->conn, &q->rx, &b, &avail, &ok)) {
		case NVME_TCP_RXE_MORE:
			return 0;
		case NVME_TCP_RXE_BAD:
			nvmf_conn_fail(&q->nq, "malformed PDU");
			return -1;
		case NVME_TCP_RXE_HDR:
			ret = rx_header(q, b);
			break;
		case NVME_TCP_RXE_DATA:
		default:
			ret = rx_data_done(q, ok);
			break;
		}
		if (ret < 0)
			return -1;
		*done += ret;
	}
	return -1;
}

/* Receive what has arrived (under rx_lock); H2CData queued for R2Ts
 * goes out at the end, in one sendmsg. */
static int nvt_poll(struct nvmf_queue *nq)
{
	struct nvt_queue *q = nvt_q(nq);
	int done = 0;

	while (!atomic_load(&nq->dead)) {
		uint32_t want;
		uint8_t *dst;
		bool direct;
		ssize_t n;

		if (rx_process(q, &done))
			break;
		/* a big data section straight into its buffer, else staged */
		dst = nvme_tcp_rx_room(&q->rx, &want, &direct);
		if (q->ssl) {
			pthread_mutex_lock(&q->ssl_lock);
			n = nvme_tls_read(q->ssl, dst, want);
			pthread_mutex_unlock(&q->ssl_lock);
		} else {
			n = nvt_io_recv(q->fd, NULL,
					q->ktls ? &q->ktls_rx : NULL, dst,
					want);
		}
		if (n > 0) {
			nvme_tcp_rx_got(&q->rx, (uint32_t)n, direct);
			continue;
		}
		if (n == 0) {
			nvmf_conn_fail(nq,
				       "connection closed by the controller");
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			nvmf_conn_fail(nq, strerror(errno));
		break;
	}
	if (q->rx_h2c) {
		q->rx_h2c = false;
		pthread_mutex_lock(&nq->tx_lock);
		tx_flush(q);
		pthread_mutex_unlock(&nq->tx_lock);
	}
	return done;
}

/* ---- The transport ------------------------------------------------------ */

const struct nvmf_transport_ops nvmf_tcp_transport = {
	.name = "tcp",
	.driver = "nvme_tcp",
	.trtype = NVMF_TRTYPE_TCP,
	.req_size = sizeof(struct nvt_req),
	.queue_size = sizeof(struct nvt_queue),
	.ctrl_init = nvt_ctrl_init,
	.ctrl_free = nvt_ctrl_free,
	.parse_param = nvt_parse_param,
	.conn_open = nvt_conn_open,
	.conn_close = nvt_conn_close,
	.conn_fd = nvt_conn_fd,
	.sync_send = nvt_sync_send,
	.sync_recv = nvt_sync_recv,
	.queue_init = nvt_queue_init,
	.queue_free = nvt_queue_free,
	.queue_attach = nvt_queue_attach,
	.queue_detach = nvt_queue_detach,
	.queue_kill = nvt_queue_kill,
	.queue_rq = nvt_queue_rq,
	.flush = nvt_flush,
	.poll = nvt_poll,
};
