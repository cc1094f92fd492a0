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
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/ssl.h>

#include <mqblk/driver.h>

#include "drivers/nvmf/fabrics.h"
#include "nvme/nvme.h"
#include "nvme/tcp.h"
#include "nvme/ktls.h"
#include "nvme/tls.h"
#include "nvme/tls_ssl.h"

#define NVT_RXBUF 65536
/* A PDU header with its digest and the padding up to its data: the data
 * offset can be (CPDA + 1) * 4 = 128 bytes (CPDA 31), more than a capsule
 * header (72) or an H2CData header (24) with its digest needs. */
#define NVT_PDU_HDR_MAX 128

/* The transport's URI keys */
struct nvt_opts {
	bool hdgst, ddgst;
	/* tls=1, tls_key= (nvme-cli's --tls, --tls_key): TLS 1.3 with the
	 * PSK derived from this configured key; tls_identity=0|1: the
	 * NVMe0R0x identity (default, SPDK's and Linux 6.7's) or the
	 * NVMe1R0x one with the PSK digest */
	bool tls;
	bool tls_off; /* tls=0 said: a tls_key= contradicts it */
	uint8_t tls_identity;
	struct nvme_tls_key tls_key;
	/* ktls=auto|off|on: the records in the kernel after the
	 * handshake (enum nvme_ktls_mode) */
	uint8_t ktls;
	bool ktls_said; /* given in the URI (not the default) */
};

/* A connection: the socket after ICReq/ICResp, and its TLS session
 * (NULL: plaintext). */
struct nvmf_conn {
	int fd;
	SSL *ssl;
	struct nvme_tls_wbuf *tls_w;
	/* kTLS: the kernel has the records, ssl is NULL */
	bool ktls;
	struct nvme_ktls_rx ktls_rx;
	struct nvme_tcp_conn conn;
};

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

/* ---- Blocking socket helpers (set-up, admin) --------------------------- */

static int sock_wait(int fd, short ev, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int n;

	do {
		n = poll(&p, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n == 0)
		return -ETIMEDOUT;
	return n < 0 ? -errno : 0;
}

/* A gathered send on fd, or through its TLS session */
static ssize_t io_send(int fd, SSL *ssl, struct nvme_tls_wbuf *w,
		       struct iovec *iov, unsigned niov)
{
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = niov };

	if (ssl)
		return nvme_tls_writev(ssl, w, iov, niov);
	return sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static ssize_t io_recv(int fd, SSL *ssl, struct nvme_ktls_rx *krx, void *buf,
		       size_t len)
{
	if (ssl)
		return nvme_tls_read(ssl, buf, len);
	if (krx)
		return nvme_ktls_recv(fd, krx, buf, len);
	return recv(fd, buf, len, MSG_DONTWAIT);
}

static int send_all(struct nvmf_conn *cn, const struct iovec *iov_in, int niov)
{
	struct iovec iov[8];
	int i = 0, fd = cn->fd;

	memcpy(iov, iov_in, (size_t)niov * sizeof(*iov));
	while (i < niov) {
		ssize_t n = io_send(fd, cn->ssl, cn->tls_w, iov + i,
				    (unsigned)(niov - i));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				int r = sock_wait(fd, POLLOUT,
						  NVMF_IO_TIMEOUT_MS);

				if (r)
					return r;
				continue;
			}
			return -errno;
		}
		while (i < niov && (size_t)n >= iov[i].iov_len) {
			n -= (ssize_t)iov[i].iov_len;
			i++;
		}
		if (i < niov) {
			iov[i].iov_base = (char *)iov[i].iov_base + n;
			iov[i].iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int recv_all(struct nvmf_conn *cn, void *buf, size_t len)
{
	size_t got = 0;
	int fd = cn->fd;

	while (got < len) {
		ssize_t n = io_recv(fd, cn->ssl, cn->ktls ? &cn->ktls_rx : NULL,
				    (char *)buf + got, len - got);

		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int r = sock_wait(fd, POLLIN, NVMF_IO_TIMEOUT_MS);

			if (r)
				return r;
			continue;
		}
		return -errno;
	}
	return 0;
}

/* A blocking connect a signal interrupted (EINTR) goes on in the kernel
 * (POSIX): wait for it as the connect would have, bounded by the
 * kernel's own SYN retries, and take its outcome. 0 or -errno. */
static int connect_finish(int fd)
{
	int soerr = 0, ret = sock_wait(fd, POLLOUT, -1);
	socklen_t len = sizeof(soerr);

	if (ret)
		return ret;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len))
		return -errno;
	return -soerr;
}

static int tcp_open(const struct nvmf_ctrl *d, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai, *a;
	int fd = -1, one = 1, ret;

	ret = getaddrinfo(d->host, d->port, &hints, &ai);
	if (ret) {
		nvmf_err(err, errlen, "nvme-tcp: %s:%s: %s", d->host, d->port,
			 gai_strerror(ret));
		return -EINVAL;
	}
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (!connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		ret = -errno;
		if (ret == -EINTR)
			ret = connect_finish(fd);
		if (!ret)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		nvmf_err(err, errlen, "nvme-tcp: connect to %s:%s: %s", d->host,
			 d->port, strerror(-ret));
		return ret ? ret : -ECONNREFUSED;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* ICReq/ICResp on a fresh connection. */
static int nvt_ic(const struct nvmf_ctrl *d, struct nvmf_conn *cn, char *err,
		  size_t errlen)
{
	struct nvme_tcp_conn *c = &cn->conn;
	uint8_t icreq[128], icresp[128];
	struct nvme_tcp_rx_pdu p;
	struct iovec iov = { icreq, sizeof(icreq) };
	const struct nvt_opts *o = d->tr;
	uint8_t digest = (o->hdgst ? NVME_TCP_HDGST_ENABLE : 0) |
			 (o->ddgst ? NVME_TCP_DDGST_ENABLE : 0);
	int ret;

	memset(c, 0, sizeof(*c));
	c->host = true;
	nvme_tcp_build_icreq(icreq, sizeof(icreq), 0, digest, 0);
	ret = send_all(cn, &iov, 1);
	if (!ret)
		ret = recv_all(cn, icresp, sizeof(icresp));
	if (ret) {
		nvmf_err(err, errlen, "nvme-tcp: %s:%s: ICReq: %s", d->host,
			 d->port, strerror(-ret));
		return ret;
	}
	if (nvme_tcp_rx_pdu(c, icresp, sizeof(icresp), &p) != NVME_TCP_RX_OK ||
	    p.type != nvme_tcp_icresp) {
		nvmf_err(err, errlen, "nvme-tcp: %s:%s: not an ICResp", d->host,
			 d->port);
		return -EPROTO;
	}
	if (nvme_tcp_conn_establish(c, icreq, icresp) || c->hdgst != o->hdgst ||
	    c->ddgst != o->ddgst) {
		nvmf_err(err, errlen,
			 "nvme-tcp: %s:%s: the controller did not grant the "
			 "digests asked for",
			 d->host, d->port);
		return -EPROTO;
	}
	/* the biggest PDU we take: C2HData of a whole transfer */
	c->max_plen = 0;
	return 0;
}

/* Read one PDU header into h (at least 128 bytes) and decode it. */
static int recv_hdr(struct nvmf_conn *s, uint8_t *h, size_t hlen,
		    struct nvme_tcp_rx_pdu *p)
{
	uint32_t need = 8;
	int ret;

	/* the header, growing to what the decoder asks for */
	ret = recv_all(s, h, 8);
	while (!ret) {
		int r = nvme_tcp_rx_header(&s->conn, h, need, p);

		if (r == NVME_TCP_RX_OK)
			return 0;
		if (r != NVME_TCP_RX_MORE || p->need > hlen)
			return -EPROTO;
		ret = recv_all(s, h + need, p->need - need);
		need = p->need;
	}
	return ret;
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
			sent = io_send(q->fd, NULL, NULL, iov, n);
		}
		if (sent < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (sock_wait(q->fd, POLLOUT,
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

/* ---- TLS ------------------------------------------------------------------ */

/* The client context, shared by every connection of the process */
static SSL_CTX *tls_ctx;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static char tls_ctx_err[200];

static void tls_ctx_init(void)
{
	tls_ctx = nvme_tls_ctx_new(false, tls_ctx_err, sizeof(tls_ctx_err));
	if (tls_ctx)
		nvme_ktls_ctx_prepare(tls_ctx);
}

/* What the PSK callback hands OpenSSL, for the length of a handshake */
struct tls_offer {
	char identity[NVME_TLS_MAX_IDENTITY];
	uint8_t psk[NVME_TLS_MAX_KEY];
	int psk_len;
	uint8_t hash;
};

static int tls_use_session(SSL *ssl, const EVP_MD *md, const unsigned char **id,
			   size_t *idlen, SSL_SESSION **sess)
{
	struct tls_offer *o = SSL_get_app_data(ssl);

	*sess = nvme_tls_session(ssl, o->psk, (size_t)o->psk_len, o->hash);
	if (!*sess)
		return 0;
	/* after a HelloRetryRequest: the suite's hash must still fit */
	if (md && md != SSL_CIPHER_get_handshake_digest(
				SSL_SESSION_get0_cipher(*sess))) {
		SSL_SESSION_free(*sess);
		*sess = NULL;
		return 1;
	}
	*id = (const unsigned char *)o->identity;
	*idlen = strlen(o->identity);
	return 1;
}

/* After the handshake: the records to the kernel where ktls= allows and
 * it can; ktls=on fails the connection where it cannot. */
static int tls_to_kernel(const struct nvmf_ctrl *d, struct nvmf_conn *cn,
			 char *err, size_t errlen)
{
	const struct nvt_opts *o = d->tr;
	char why[200];
	int ret;

	if (o->ktls == NVME_KTLS_OFF)
		return 0;
	ret = nvme_ktls_start(cn->ssl, cn->fd, why, sizeof(why));
	if (ret < 0 || (!ret && o->ktls == NVME_KTLS_ON)) {
		nvmf_err(err, errlen, "nvme-tcp: %s:%s: %s%s", d->host, d->port,
			 ret < 0 ? "" : "ktls=on: ", why);
		return ret < 0 ? ret : -EOPNOTSUPP;
	}
	if (ret) {
		/* OpenSSL is done with the socket (SSL_free sends nothing) */
		SSL_free(cn->ssl);
		cn->ssl = NULL;
		cn->ktls = true;
	}
	/* auto: the choice said once per process; the fallback only when
	 * ktls=auto was asked for (the default says nothing on a kernel
	 * without the module: every TLS run there would) */
	if ((ret || o->ktls_said) && nvme_ktls_first(ret == 1)) {
		if (ret)
			fprintf(stderr,
				"mqblk: nvme-tcp: TLS records in the kernel "
				"(kTLS)\n");
		else
			fprintf(stderr,
				"mqblk: nvme-tcp: TLS records in user space "
				"(OpenSSL): %s\n",
				why);
	}
	return 0;
}

/* TLS 1.3 on cn's socket, before ICReq: the identity and PSK of the
 * configured key for (hostnqn, subnqn), then the handshake (blocking,
 * NVMF_IO_TIMEOUT_MS per wait). */
static int tls_connect(const struct nvmf_ctrl *d, struct nvmf_conn *cn,
		       char *err, size_t errlen)
{
	const struct nvt_opts *o = d->tr;
	struct tls_offer *offer;
	char why[200];
	int ret;

	if (!o->tls_key.len) {
		nvmf_err(err, errlen,
			 "nvme-tcp: tls=1 needs tls_key= (the PSK in "
			 "NVMeTLSkey-1 form, or @FILE): mqblk has no keyring");
		return -EINVAL;
	}
	pthread_once(&tls_once, tls_ctx_init);
	if (!tls_ctx) {
		nvmf_err(err, errlen, "nvme-tcp: %s", tls_ctx_err);
		return -EIO;
	}
	offer = calloc(1, sizeof(*offer));
	cn->tls_w = calloc(1, sizeof(*cn->tls_w));
	cn->ssl = SSL_new(tls_ctx);
	if (!offer || !cn->tls_w || !cn->ssl ||
	    nvme_tls_set_fd(cn->ssl, cn->fd)) {
		free(offer);
		nvmf_err(err, errlen, "nvme-tcp: TLS: out of memory");
		return -ENOMEM;
	}
	offer->hash = nvme_tls_key_cipher(&o->tls_key);
	/* offer the PSK's suite alone: a server picking the other one
	 * would pass over the PSK (its hash must be the suite's) */
	if (SSL_set_ciphersuites(cn->ssl, nvme_tls_cipher_name(offer->hash)) !=
	    1) {
		nvmf_err(err, errlen, "nvme-tcp: TLS: no cipher suite %s",
			 nvme_tls_cipher_name(offer->hash));
		free(offer);
		return -EIO;
	}
	offer->psk_len = nvme_tls_derive(&o->tls_key, o->tls_identity,
					 d->hostnqn, d->subnqn, offer->identity,
					 sizeof(offer->identity), offer->psk);
	if (offer->psk_len < 0) {
		ret = offer->psk_len;
		OPENSSL_clear_free(offer, sizeof(*offer));
		nvmf_err(err, errlen,
			 "nvme-tcp: TLS: no PSK identity for host %s and %s: "
			 "%s",
			 d->hostnqn, d->subnqn, strerror(-ret));
		return ret;
	}
	if (o->ktls != NVME_KTLS_OFF && nvme_ktls_want(cn->ssl)) {
		OPENSSL_clear_free(offer, sizeof(*offer));
		nvmf_err(err, errlen, "nvme-tcp: TLS: out of memory");
		return -ENOMEM;
	}
	SSL_set_app_data(cn->ssl, offer);
	SSL_set_psk_use_session_callback(cn->ssl, tls_use_session);
	/* OpenSSL reads and writes the socket itself: non-blocking, as
	 * every other call here uses it */
	fcntl(cn->fd, F_SETFL, fcntl(cn->fd, F_GETFL) | O_NONBLOCK);
	for (;;) {
		ret = SSL_connect(cn->ssl);
		if (ret == 1)
			break;
		switch (SSL_get_error(cn->ssl, ret)) {
		case SSL_ERROR_WANT_READ:
			ret = sock_wait(cn->fd, POLLIN, NVMF_IO_TIMEOUT_MS);
			break;
		case SSL_ERROR_WANT_WRITE:
			ret = sock_wait(cn->fd, POLLOUT, NVMF_IO_TIMEOUT_MS);
			break;
		default:
			nvme_tls_errstr(why, sizeof(why));
			nvmf_err(err, errlen,
				 "nvme-tcp: %s:%s: TLS handshake as %s "
				 "refused: %s",
				 d->host, d->port, offer->identity, why);
			ret = -ECONNREFUSED;
			break;
		}
		if (ret) {
			if (ret == -ETIMEDOUT)
				nvmf_err(err, errlen,
					 "nvme-tcp: %s:%s: TLS handshake timed "
					 "out",
					 d->host, d->port);
			SSL_set_app_data(cn->ssl, NULL);
			OPENSSL_clear_free(offer, sizeof(*offer));
			return ret;
		}
	}
	SSL_set_app_data(cn->ssl, NULL);
	OPENSSL_clear_free(offer, sizeof(*offer));
	return tls_to_kernel(d, cn, err, errlen);
}

static void conn_free(struct nvmf_conn *cn)
{
	/* no waiting: the socket is closed next either way */
	nvme_tls_close_notify(cn->ssl, cn->tls_w);
	SSL_free(cn->ssl);
	if (cn->ktls && cn->fd >= 0)
		nvme_ktls_close_notify(cn->fd);
	free(cn->tls_w);
	if (cn->fd >= 0)
		close(cn->fd);
	free(cn);
}

/* ---- Synchronous commands (set-up, the admin queue) --------------------- */

static struct nvmf_conn *nvt_conn_open(struct nvmf_ctrl *d, uint16_t qid,
				       char *err, size_t errlen, int *ret)
{
	const struct nvt_opts *o = d->tr;

	struct nvmf_conn *cn = calloc(1, sizeof(*cn));

	(void)qid;
	if (!cn) {
		*ret = -ENOMEM;
		nvmf_err(err, errlen, "nvme-tcp: out of memory");
		return NULL;
	}
	if (o->ktls == NVME_KTLS_ON && !o->tls) {
		*ret = -EINVAL;
		nvmf_err(err, errlen,
			 "nvme-tcp: ktls=on without TLS (tls_key=): no records "
			 "for the kernel to take");
		free(cn);
		return NULL;
	}
	cn->fd = tcp_open(d, err, errlen);
	if (cn->fd < 0) {
		*ret = cn->fd;
		free(cn);
		return NULL;
	}
	*ret = o->tls ? tls_connect(d, cn, err, errlen) : 0;
	if (!*ret)
		*ret = nvt_ic(d, cn, err, errlen);
	if (*ret) {
		conn_free(cn);
		return NULL;
	}
	return cn;
}

static void nvt_conn_close(struct nvmf_conn *cn)
{
	conn_free(cn);
}

static int nvt_conn_fd(const struct nvmf_conn *cn)
{
	return cn->fd;
}

/* One command on a synchronous connection: data to the controller goes
 * in-capsule, from buf, not copied. */
static int nvt_sync_send(struct nvmf_conn *s, union nvme_command *cmd,
			 void *buf, uint32_t len, bool to_ctrl)
{
	uint8_t hdr[NVT_PDU_HDR_MAX], ddgst[4];
	struct iovec iov[3];
	ssize_t n;
	int niov = 1;

	cmd->common.flags = NVME_CMD_SGL_METABUF;
	cmd->common.dptr.sgl.addr = 0;
	cmd->common.dptr.sgl.length = cpu_to_le32(len);
	cmd->common.dptr.sgl.type = to_ctrl && len ? NVME_SGL_TCP_INCAPSULE :
						     NVME_SGL_TCP_TRANSPORT;
	n = nvme_tcp_build_cmd(&s->conn, hdr, sizeof(hdr), cmd, NULL,
			       to_ctrl ? len : 0);
	if (n < 0)
		return (int)n;
	iov[0].iov_base = hdr;
	iov[0].iov_len = (size_t)n;
	if (to_ctrl && len) {
		iov[niov].iov_base = buf;
		iov[niov++].iov_len = len;
		if (s->conn.ddgst) {
			nvme_tcp_put_ddgst(ddgst, buf, len);
			iov[niov].iov_base = ddgst;
			iov[niov++].iov_len = 4;
		}
	}
	return send_all(s, iov, niov);
}

/* The next completion on s: a CapsuleResp, or the last C2HData of
 * command cid with SUCCESS (a CQE with status 0); C2HData on the way
 * lands in buf (len bytes). */
static int nvt_sync_recv(struct nvmf_conn *s, uint16_t cid, void *buf,
			 uint32_t len, struct nvme_completion *cqe)
{
	uint8_t rhdr[128];
	struct nvme_tcp_rx_pdu p;
	uint32_t got = 0;
	int ret;

	for (;;) {
		uint32_t off, dlen;
		uint8_t pad[128], dg[4];
		uint16_t dcid;

		ret = recv_hdr(s, rhdr, sizeof(rhdr), &p);
		if (ret)
			return ret;
		if (p.type == nvme_tcp_rsp) {
			memcpy(cqe, rhdr + 8, sizeof(*cqe));
			return 0;
		}
		if (p.type != nvme_tcp_c2h_data)
			return -EPROTO;
		memcpy(&dcid, rhdr + 8, 2);
		off = nvme_get_le32(rhdr + 12);
		dlen = nvme_get_le32(rhdr + 16);
		if (!buf || dcid != cid ||
		    nvme_tcp_check_data_range(off, dlen, got, len))
			return -EPROTO;
		if (p.data_off > p.hdr_len &&
		    (p.data_off - p.hdr_len > sizeof(pad) ||
		     recv_all(s, pad, p.data_off - p.hdr_len)))
			return -EPROTO;
		ret = recv_all(s, (uint8_t *)buf + off, dlen);
		if (!ret && p.ddgst) {
			ret = recv_all(s, dg, 4);
			if (!ret &&
			    !nvme_tcp_ddgst_ok((uint8_t *)buf + off, dlen, dg))
				ret = -EBADMSG;
		}
		if (ret)
			return ret;
		got += dlen;
		if (p.flags & NVME_TCP_F_DATA_SUCCESS) {
			memset(cqe, 0, sizeof(*cqe));
			cqe->command_id = cid;
			return 0;
		}
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
			n = io_recv(q->fd, NULL, q->ktls ? &q->ktls_rx : NULL,
				    dst, want);
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

/* ---- The transport and its driver ----------------------------------------- */

static int nvt_ctrl_init(struct nvmf_ctrl *d)
{
	d->tr = calloc(1, sizeof(struct nvt_opts));
	return d->tr ? 0 : -ENOMEM;
}

static void nvt_ctrl_free(struct nvmf_ctrl *d)
{
	if (d->tr)
		nvme_tls_key_clear(&((struct nvt_opts *)d->tr)->tls_key);
	free(d->tr);
	d->tr = NULL;
}

static int nvt_parse_param(struct nvmf_ctrl *d, struct mqblk_param *p,
			   bool *taken, char *err, size_t errlen)
{
	struct nvt_opts *o = d->tr;

	*taken = true;
	if (!strcmp(p->key, "hdr_digest"))
		return mqblk_param_bool(p, &o->hdgst, err, errlen);
	if (!strcmp(p->key, "data_digest"))
		return mqblk_param_bool(p, &o->ddgst, err, errlen);
	if (!strcmp(p->key, "tls")) {
		int ret = mqblk_param_bool(p, &o->tls, err, errlen);

		o->tls_off = !ret && !o->tls;
		if (o->tls_off && o->tls_key.len)
			goto tls_conflict;
		return ret;
	}
	if (!strcmp(p->key, "tls_key")) {
		char why[160];

		p->used = true;
		if (nvme_tls_key_load(p->val, &o->tls_key, why, sizeof(why))) {
			nvmf_err(err, errlen, "tls_key: %s", why);
			return -EINVAL;
		}
		/* a key asks for TLS, as nvme-cli's --tls_key */
		if (o->tls_off)
			goto tls_conflict;
		o->tls = true;
		return 0;
	}
	if (!strcmp(p->key, "ktls")) {
		p->used = true;
		if (nvme_ktls_mode_parse(p->val, &o->ktls)) {
			nvmf_err(err, errlen,
				 "ktls: '%s' is not auto, off or on", p->val);
			return -EINVAL;
		}
		o->ktls_said = true;
		return 0;
	}
	if (!strcmp(p->key, "tls_identity")) {
		p->used = true;
		if (strcmp(p->val, "0") && strcmp(p->val, "1")) {
			nvmf_err(err, errlen,
				 "tls_identity: '%s' is not 0 (NVMe0R0x) or 1 "
				 "(NVMe1R0x, with the PSK digest)",
				 p->val);
			return -EINVAL;
		}
		o->tls_identity = (uint8_t)(p->val[0] - '0');
		return 0;
	}
	*taken = false;
	return 0;
tls_conflict:
	nvmf_err(err, errlen, "tls=0 with tls_key=: TLS off, yet a key for it");
	return -EINVAL;
}

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
