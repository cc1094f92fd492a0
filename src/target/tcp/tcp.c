// SPDX-License-Identifier: MIT
/*
 * The target's NVMe/TCP transport: its ports (listening sockets) and its
 * queues, each a TCP connection, the PDUs on it and the commands they
 * carry, from ICReq to the last CapsuleResp. What the commands do is the
 * fabrics core's (core/nvmet.h): this file moves capsules and data, asks
 * for host data with R2T, answers with C2HData and CapsuleResp, and
 * frees a slot once every byte of its answer is sent.
 *
 * A queue belongs to one reactor thread for its whole life: everything
 * here runs on that thread, so a queue has no lock. What it shares with
 * other threads is its controller (Connect and teardown take the
 * subsystem's lock; keep-alive and "dead" are atomics) and its counters
 * (relaxed atomics the stats readers sum: core/stats.c).
 *
 * Receive is a state machine over one buffer: a PDU's header is validated
 * by the shared decoder (src/nvme/tcp.c) before any field is used, then
 * its data goes straight to the command's buffer. Transmit is a FIFO of
 * commands, each with up to four iovecs (header, data, digest, response),
 * sent with one sendmsg for as many as fit.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/errqueue.h>
#include <poll.h>

#include "mqblk/mqblk.h"
#include "nvme/tcp.h"
#include "tcp.h"
#include "tcp_queue.h"

static const struct tgt_transport_ops tcp_ops;

#define stat_add tgt_stat_add

/* ---- Queue life ---------------------------------------------------------- */

static struct tgt_queue *tcp_queue_create(struct tgt_reactor *r, intptr_t conn,
					  struct tgt_port *port)
{
	struct tcp_queue *q = calloc(1, sizeof(*q));
	struct epoll_event ev = { .events = EPOLLIN };
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = (int)conn, one = 1;

	if (!q) {
		close(fd);
		return NULL;
	}
	if (nvme_tcp_rx_init(&q->rx, TGT_RXBUF)) {
		free(q);
		close(fd);
		return NULL;
	}
	tgt_queue_init(&q->sq, &tcp_ops, r, port);
	q->fd = fd;
	q->conn.host = false;
	/* the biggest PDU we take: an H2CData of MAXH2CDATA, or a capsule
	 * with in-capsule data, each with header, padding and digests */
	_Static_assert(TGT_MAX_INLINE_DATA <= TGT_MAXH2CDATA,
		       "in-capsule data beyond the PDU size limit");
	q->conn.max_plen = TGT_MAXH2CDATA + 256;
	q->boot.req.q = &q->sq;
	/* the core walks one slot until Connect makes the rest */
	q->sq.reqs = &q->boot.req;
	q->sq.req_stride = sizeof(struct tcp_cmd);
	q->sq.nr_reqs = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* a TLS port: the first byte decides (tcp_tls.c); TLS records are
	 * written from a copy, never zero-copy */
	if (port->sectype == NVMF_TCP_SECTYPE_TLS13)
		q->tls_state = TCP_TLS_PEEK;
	/* without SO_ZEROCOPY (an old kernel) sends simply copy */
	if (q->sq.t->zerocopy != TGT_ZC_OFF && !q->tls_state &&
	    !setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
		q->zc = true;
	if (!getpeername(fd, (struct sockaddr *)&ss, &sl)) {
		char host[48] = "?";
		unsigned pport = 0;

		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *s = (struct sockaddr_in *)&ss;

			inet_ntop(AF_INET, &s->sin_addr, host, sizeof(host));
			pport = ntohs(s->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof(host));
			pport = ntohs(s->sin6_port);
		}
		snprintf(q->sq.peer, sizeof(q->sq.peer), "%s:%u", host, pport);
	}
	ev.data.ptr = &q->sq;
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		nvme_tcp_rx_free(&q->rx);
		free(q);
		return NULL;
	}
	return &q->sq;
}

/* Connect accepted: depth slots (twice as many with zero-copy, whose
 * answered commands keep their slots a while longer). */
static int tcp_queue_connected(struct tgt_queue *sq, unsigned depth)
{
	struct tcp_queue *q = tcp_q(sq);
	unsigned i, nr = depth;

	if (q->zc)
		nr *= 2;
	q->cmds = calloc(nr, sizeof(*q->cmds));
	if (!q->cmds)
		return -ENOMEM;
	for (i = nr; i-- > 0;) {
		q->cmds[i].req.q = sq;
		q->cmds[i].idx = (uint16_t)i;
		q->cmds[i].tx_next = q->free_cmds;
		q->free_cmds = &q->cmds[i];
	}
	q->nr_cmds = nr;
	/* the Connect's own slot (boot) is answered as the queue's */
	sq->reqs = &q->cmds[0].req;
	sq->nr_reqs = nr;
	return 0;
}

void tcp_cmd_free(struct tcp_cmd *cmd)
{
	struct tcp_queue *q = cmd_tq(cmd);

	tgt_req_release_buf(&cmd->req);
	cmd->req.state = CMD_FREE;
	tgt_queue_depth_dec(&q->sq);
	if (cmd != &q->boot) {
		cmd->tx_next = q->free_cmds;
		q->free_cmds = cmd;
	}
}

static void tcp_req_free(struct tgt_req *req)
{
	tcp_cmd_free(tcp_cmd(req));
}

/* Stop taking commands: the host sees the connection close (shutdown
 * gets there once every command at the device has finished). */
void tcp_queue_quiesce(struct tgt_queue *sq)
{
	struct tcp_queue *q = tcp_q(sq);

	if (q->sq.closing)
		return;
	q->sq.closing = true;
	if (q->fd >= 0) {
		epoll_ctl(q->sq.r->epfd, EPOLL_CTL_DEL, q->fd, NULL);
		tcp_tls_close_notify(q);
		shutdown(q->fd, SHUT_RDWR);
	}
}

static void tcp_queue_destroy(struct tgt_queue *sq)
{
	struct tcp_queue *q = tcp_q(sq);
	unsigned i;

	tcp_tls_free(q);
	if (q->fd >= 0)
		close(q->fd);
	for (i = 0; i < q->nr_cmds; i++) {
		struct tcp_cmd *c = &q->cmds[i];

		/* the kernel may still hold a zero-copy send of it: not
		 * back in the pool, where another queue would write it; it
		 * stays in its slab, unused, until the reactor ends */
		if (c->req.state == CMD_ZC_WAIT && c->req.buf) {
			tgt_buf_abandon(q->sq.r, c->req.buf, c->req.buf_cap);
			c->req.buf = NULL;
		}
		tgt_req_release_buf(&c->req);
	}
	tgt_req_release_buf(&q->boot.req);
	tgt_queue_release(&q->sq);
	free(q->cmds);
	nvme_tcp_rx_free(&q->rx);
	free(q);
}

/* ---- Command slots --------------------------------------------------------- */

static struct tcp_cmd *cmd_alloc(struct tcp_queue *q)
{
	struct tcp_cmd *cmd;

	if (!q->sq.connected) {
		/* before Connect: one command, the Connect */
		if (q->boot.req.state != CMD_FREE)
			return NULL;
		cmd = &q->boot;
	} else {
		if (!q->free_cmds && q->zc_head)
			tcp_zc_wait_some(q);
		cmd = q->free_cmds;
		if (!cmd)
			return NULL;
		q->free_cmds = cmd->tx_next;
	}
	cmd->in_capsule = false;
	cmd->r2t_sent = false;
	cmd->rcvd = 0;
	cmd->niov = 0;
	cmd->tx_next = NULL;
	cmd->req.state = CMD_RX_DATA;
	tgt_queue_depth_inc(&q->sq);
	return cmd;
}

/* ---- Receive ---------------------------------------------------------------- */

void tcp_queue_arm(struct tcp_queue *q)
{
	bool in = !q->sq.stopping && !q->sq.buf_held && !q->close_after_ctl;
	struct epoll_event ev = { .events = (in ? EPOLLIN : 0) |
					    (q->want_out ? EPOLLOUT : 0),
				  .data.ptr = &q->sq };

	if (q->sq.closing)
		return;
	epoll_ctl(q->sq.r->epfd, EPOLL_CTL_MOD, q->fd, &ev);
}

/*
 * Backpressure: the queue's commands hold TGT_QUEUE_BUF_CAP of buffers
 * (read data its host does not take, or a device behind): read no more
 * commands until they hold half as much. What the host sends meanwhile
 * waits in the socket, and then in the host: a host that never reads
 * its answers costs this much memory and no more (before, 1,024 slots
 * of 1 MiB reads: a GiB).
 */
static bool rx_hold(struct tcp_queue *q)
{
	if (q->sq.buf_bytes < TGT_QUEUE_BUF_CAP)
		return false;
	if (!q->sq.buf_held) {
		q->sq.buf_held = true;
		stat_add(&q->sq.st.buf_holds, 1);
		tcp_queue_arm(q);
	}
	return true;
}

/* The core's queue_buf_low: from inside a slot's release, so only noted
 * here; the next flush reads. */
static void tcp_queue_buf_low(struct tgt_queue *sq)
{
	struct tcp_queue *q = tcp_q(sq);

	sq->buf_held = false;
	/* a closing queue reads nothing more, and one being destroyed
	 * (its slots released) must not go back on the flush list */
	if (sq->closing)
		return;
	q->rx_kick = true;
	tgt_reactor_want_flush(sq->r, sq);
}

static void queue_rx(struct tcp_queue *q);

void tcp_queue_rx_resume(struct tcp_queue *q)
{
	q->rx_kick = false;
	if (q->sq.closing || q->sq.stopping || q->close_after_ctl)
		return;
	tcp_queue_arm(q);
	/* what rx already holds: epoll reports only the socket */
	queue_rx(q);
}

static void rx_begin_data(struct tcp_queue *q, struct tcp_cmd *cmd,
			  uint8_t *dst)
{
	q->rx_cmd = cmd;
	nvme_tcp_rx_begin_data(&q->rx, dst);
}

static void send_r2t(struct tcp_cmd *cmd)
{
	struct tcp_queue *q = cmd_tq(cmd);
	ssize_t n = nvme_tcp_build_r2t(&q->conn, cmd->hdr, sizeof(cmd->hdr),
				       cmd->req.sqe.common.command_id, cmd->idx,
				       0, cmd->req.xfer_len);

	cmd->req.state = CMD_R2T;
	stat_add(&q->sq.st.r2ts, 1);
	q->tx_r2ts++;
	cmd->iov[0].iov_base = cmd->hdr;
	cmd->iov[0].iov_len = (size_t)n;
	cmd->niov = 1;
	tcp_tx_enqueue(cmd);
}

static void rx_capsule(struct tcp_queue *q, const uint8_t *hdr)
{
	const struct nvme_tcp_rx_pdu *p = &q->rx.pdu;
	struct tcp_cmd *cmd = cmd_alloc(q);
	const struct nvme_sgl_desc *sgl;
	uint32_t len, limit;
	uint16_t status = 0;

	if (!cmd) {
		/* more commands than the queue has entries */
		tgt_log("queue %s qid %u: command beyond the queue's %u "
			"entries",
			q->sq.peer, q->sq.qid,
			q->sq.connected ? q->nr_cmds : 1);
		tcp_queue_fatal(q, NVME_TCP_FES_PDU_SEQ_ERR, 0, hdr,
				p->hdr_len);
		return;
	}
	memcpy(&cmd->req.sqe, hdr + sizeof(struct nvme_tcp_hdr),
	       sizeof(cmd->req.sqe));
	tgt_req_init(&cmd->req, &q->sq);
	sgl = &cmd->req.sqe.common.dptr.sgl;
	len = le32_to_cpu(sgl->length);
	limit = q->sq.qid ? q->sq.ctrl->port->inline_data :
			    TGT_ADMIN_INLINE_DATA;
	if ((cmd->req.sqe.common.flags & 0xc0) != NVME_CMD_SGL_METABUF) {
		status = NVME_SC_INVALID_FIELD | NVME_SC_DNR; /* PRPs */
	} else if (p->data_len) {
		if (sgl->type != NVME_SGL_TCP_INCAPSULE || cmd->req.dir != 2)
			status = NVME_SC_SGL_INVALID_TYPE | NVME_SC_DNR;
		else if (le64_to_cpu(sgl->addr))
			status = NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR;
		else if (len != p->data_len)
			status = NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
		else if (p->data_len > limit)
			status = NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR;
	} else if (len) {
		if (sgl->type != NVME_SGL_TCP_TRANSPORT)
			status = NVME_SC_SGL_INVALID_TYPE | NVME_SC_DNR;
		else if (!cmd->req.dir)
			status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		else if (len > (4096u << tgt_tcp_id.mdts))
			status = NVME_SC_INVALID_FIELD | NVME_SC_DNR; /* MDTS */
	}
	if (!status)
		cmd->req.xfer_len = cmd->req.dir ? len : 0;
	if (!status)
		status = tgt_req_prepare(&cmd->req);
	cmd->req.status = status;
	if (p->data_len) {
		cmd->in_capsule = true;
		if (!status && tgt_req_alloc_buf(&cmd->req, p->data_len))
			cmd->req.status = status = NVME_SC_INTERNAL;
		rx_begin_data(q, cmd, status ? NULL : cmd->req.buf);
		return;
	}
	if (status) {
		tgt_req_complete(&cmd->req, status);
		return;
	}
	if (cmd->req.dir == 2 && cmd->req.xfer_len) {
		if (tgt_req_alloc_buf(&cmd->req, cmd->req.xfer_len)) {
			tgt_req_complete(&cmd->req, NVME_SC_INTERNAL);
			return;
		}
		send_r2t(cmd);
		return;
	}
	tgt_req_exec(&cmd->req);
}

static void rx_h2c(struct tcp_queue *q, const uint8_t *hdr)
{
	const struct nvme_tcp_rx_pdu *p = &q->rx.pdu;
	uint16_t cid, ttag;
	uint32_t off, len;
	struct tcp_cmd *cmd;
	bool last = p->flags & NVME_TCP_F_DATA_LAST;

	memcpy(&cid, hdr + 8, 2);
	ttag = nvme_get_le16(hdr + 10);
	off = nvme_get_le32(hdr + 12);
	len = nvme_get_le32(hdr + 16);
	/* the transfer tag is the slot (the Connect's own before Connect) */
	cmd = !q->sq.connected	? (ttag ? NULL : &q->boot) :
	      ttag < q->nr_cmds ? &q->cmds[ttag] :
				  NULL;
	if (!cmd || cmd->req.state != CMD_R2T) {
		tcp_queue_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR, 10, hdr,
				p->hdr_len);
		return;
	}
	if (!cmd->r2t_sent) {
		/* data for an R2T the host cannot have seen yet (it is still
		 * in our send queue): out of sequence, and accepting it would
		 * answer the command while its R2T is still queued */
		tcp_queue_fatal(q, NVME_TCP_FES_PDU_SEQ_ERR, 0, hdr,
				p->hdr_len);
		return;
	}
	if (cid != cmd->req.sqe.common.command_id) {
		tcp_queue_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR, 8, hdr,
				p->hdr_len);
		return;
	}
	if (nvme_tcp_check_data_range(off, len, cmd->rcvd, cmd->req.xfer_len)) {
		tcp_queue_fatal(q, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0, hdr,
				p->hdr_len);
		return;
	}
	if (last != (off + len == cmd->req.xfer_len)) {
		tcp_queue_fatal(q, NVME_TCP_FES_PDU_SEQ_ERR, 0, hdr,
				p->hdr_len);
		return;
	}
	rx_begin_data(q, cmd, (uint8_t *)cmd->req.buf + off);
}

static void rx_icreq(struct tcp_queue *q, const uint8_t *hdr)
{
	uint8_t digest = hdr[11] &
			 (NVME_TCP_HDGST_ENABLE | NVME_TCP_DDGST_ENABLE);
	ssize_t n;

	memcpy(q->icreq, hdr, sizeof(q->icreq));
	q->maxr2t = nvme_get_le32(hdr + 12);
	n = nvme_tcp_build_icresp(q->ctl, sizeof(q->ctl), 0, digest,
				  TGT_MAXH2CDATA);
	if (n <= 0 || nvme_tcp_conn_establish(&q->conn, q->icreq, q->ctl)) {
		tcp_queue_quiesce(&q->sq);
		return;
	}
	q->ctl_len = (uint32_t)n;
	q->ctl_off = 0;
	tgt_reactor_want_flush(q->sq.r, &q->sq);
}

/* The data (and digest) of the current PDU have all arrived. */
static void rx_data_done(struct tcp_queue *q, bool dgst_ok)
{
	struct tcp_cmd *cmd = q->rx_cmd;

	q->rx_cmd = NULL;
	if (!dgst_ok) {
		stat_add(&q->sq.st.ddgst_errors, 1);
		tgt_log("queue %s qid %u: data digest error (cid %u)",
			q->sq.peer, q->sq.qid, cmd->req.sqe.common.command_id);
		if (!cmd->req.status)
			cmd->req.status = NVME_SC_TRANSIENT_TR_ERR;
	}
	if (cmd->in_capsule) {
		if (cmd->req.status)
			tgt_req_complete(&cmd->req, cmd->req.status);
		else
			tgt_req_exec(&cmd->req);
		return;
	}
	cmd->rcvd += q->rx.len;
	if (cmd->rcvd < cmd->req.xfer_len)
		return;
	if (cmd->req.status)
		tgt_req_complete(&cmd->req, cmd->req.status);
	else
		tgt_req_exec(&cmd->req);
}

/* Consume what the receive buffer holds. false: stop (closing). */
static bool rx_process(struct tcp_queue *q)
{
	while (!q->sq.closing && !q->close_after_ctl) {
		const struct nvme_tcp_rx_pdu *p = &q->rx.pdu;
		const uint8_t *b;
		uint32_t avail;
		bool ok;

		if (rx_hold(q))
			return false;

		switch (nvme_tcp_rx_next(&q->conn, &q->rx, &b, &avail, &ok)) {
		case NVME_TCP_RXE_MORE:
			return true;
		case NVME_TCP_RXE_BAD:
			if (p->type == nvme_tcp_h2c_term ||
			    p->type == nvme_tcp_c2h_term) {
				tcp_queue_quiesce(&q->sq);
				return false;
			}
			tcp_queue_fatal(q, p->fes, p->fei, b,
					avail < p->hlen ? avail : p->hlen);
			return false;
		case NVME_TCP_RXE_DATA:
			rx_data_done(q, ok);
			break;
		case NVME_TCP_RXE_HDR:
			switch (p->type) {
			case nvme_tcp_icreq:
				rx_icreq(q, b);
				break;
			case nvme_tcp_cmd:
				rx_capsule(q, b);
				break;
			case nvme_tcp_h2c_data:
				rx_h2c(q, b);
				break;
			case nvme_tcp_h2c_term:
				tgt_log("queue %s qid %u: host terminated the "
					"connection (H2CTermReq, status %u)",
					q->sq.peer, q->sq.qid,
					nvme_get_le16(b + 8));
				tcp_queue_quiesce(&q->sq);
				return false;
			default:
				tcp_queue_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR,
						0, b, p->hlen);
				return false;
			}
			break;
		}
	}
	return false;
}

static void queue_rx(struct tcp_queue *q)
{
	unsigned rounds;

	/* At most 32 reads per event (other queues wait), but what the last
	 * read brought is processed before returning: epoll (level
	 * triggered) reports only what is still in the socket, and a
	 * PDU's last bytes left in rxbuf would wait for data that never
	 * comes (a 1 MiB write with digests stalled so under load). */
	for (rounds = 0;; rounds++) {
		uint8_t *dst;
		uint32_t want;
		bool direct;
		ssize_t n;

		/* (TLS: records OpenSSL already holds are not the socket's
		 * to report again: they are read before returning) */
		if (rounds >= 32 && !(q->ssl && SSL_has_pending(q->ssl))) {
			rx_process(q);
			return;
		}
		if (!rx_process(q))
			return;
		/* a big data section straight into its buffer, else staged */
		dst = nvme_tcp_rx_room(&q->rx, &want, &direct);
		n = tcp_io_recv(q, dst, want);
		if (n > 0) {
			nvme_tcp_rx_got(&q->rx, (uint32_t)n, direct);
			continue;
		}
		if (n == 0) {
			if (q->sq.t->verbose || (q->sq.ctrl && !q->sq.qid))
				tgt_log("queue %s (ctrl %u qid %u): closed by "
					"the host",
					q->sq.peer,
					q->sq.ctrl ? q->sq.ctrl->cntlid : 0,
					q->sq.qid);
			tcp_queue_quiesce(&q->sq);
			return;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		if (errno == EINTR)
			continue;
		tgt_log("queue %s: receive failed: %s", q->sq.peer,
			strerror(errno));
		tcp_queue_quiesce(&q->sq);
		return;
	}
}

static void tcp_queue_stop(struct tgt_queue *sq)
{
	struct tcp_queue *q = tcp_q(sq);
	struct epoll_event ev = { .events = q->want_out ? EPOLLOUT : 0,
				  .data.ptr = &q->sq };

	if (q->sq.closing || q->sq.stopping)
		return;
	q->sq.stopping = true;
	epoll_ctl(q->sq.r->epfd, EPOLL_CTL_MOD, q->fd, &ev);
}

static void tcp_queue_event(struct tgt_queue *sq, uint32_t events)
{
	struct tcp_queue *q = tcp_q(sq);

	if (q->sq.closing)
		return;
	if (q->sq.stopping || q->sq.buf_held)
		events &= ~(uint32_t)EPOLLIN;
	/* zero-copy notifications raise EPOLLERR too. Unsignalled, they
	 * are read here, and while commands keep coming (EPOLLIN) only
	 * once TGT_ZC_BATCH sends wait or slots run out: the kernel merges
	 * the unread ones, so one read covers many sends. Alone, EPOLLERR
	 * is answered at once (a sleeping reactor would spin on it). */
	if (q->zc && (events & EPOLLERR) && !(events & EPOLLHUP)) {
		bool later = q->sq.t->zerocopy == TGT_ZC_UNSIGNALLED &&
			     (events & EPOLLIN) && q->zc_nr < TGT_ZC_BATCH &&
			     q->free_cmds;

		if (later || tcp_zc_reap(q))
			events &= ~(uint32_t)EPOLLERR;
	}
	if (events & (EPOLLERR | EPOLLHUP)) {
		if (!(events & EPOLLIN)) {
			tcp_queue_quiesce(&q->sq);
			return;
		}
	}
	if (q->tls_state == TCP_TLS_PEEK || q->tls_state == TCP_TLS_HANDSHAKE) {
		int ret = tcp_tls_start(q);

		if (ret < 0) {
			tcp_queue_quiesce(&q->sq);
			return;
		}
		if (!ret)
			return;
		/* the host's first PDU may have come with its Finished */
		events |= EPOLLIN;
	}
	if (events & EPOLLOUT)
		tcp_queue_flush(&q->sq);
	if ((events & EPOLLIN) && !q->close_after_ctl)
		queue_rx(q);
}

/* Shutdown: every answer and control PDU sent (R2Ts whose data will not
 * be read are dropped: nothing of theirs was acknowledged). */
static bool tcp_queue_drained(const struct tgt_queue *sq)
{
	const struct tcp_queue *q =
		(const struct tcp_queue *)((const char *)sq -
					   offsetof(struct tcp_queue, sq));

	return !q->tx_head && !q->ctl_len;
}

/* ---- Ports ------------------------------------------------------------- */

/* A listening socket for p's address; -1 (logged, errno set) on
 * failure. */
static int tcp_port_open(struct tgt_port *p)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
					      AI_PASSIVE };
	struct addrinfo *ai;
	int fd, one = 1, ret, err;

	hints.ai_family = p->adrfam == NVMF_ADDR_FAMILY_IP6 ? AF_INET6 :
							      AF_INET;
	ret = getaddrinfo(p->traddr, p->trsvcid, &hints, &ai);
	if (ret) {
		tgt_log("port %u: bad address %s:%s: %s", p->portid, p->traddr,
			p->trsvcid, gai_strerror(ret));
		errno = EINVAL;
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 256)) {
		err = errno;
		tgt_log("cannot listen on %s:%s: %s", p->traddr, p->trsvcid,
			strerror(err));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		errno = err;
		return -1;
	}
	freeaddrinfo(ai);
	return fd;
}

static void tcp_port_accept(struct tgt_port *port)
{
	/* an event fetched before a port-down job in the same pass */
	if (port->listen_fd < 0)
		return;
	for (;;) {
		int fd = accept4(port->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			/* the connection stays in the backlog, the listener
			 * readable: without a pause, a spin (and a log line
			 * each time round: 500,000 in 3 s at ulimit -n 64) */
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				tgt_port_accept_pause(port, errno);
			else if (errno != EAGAIN && errno != EWOULDBLOCK)
				tgt_log("accept on %s:%s: %s", port->traddr,
					port->trsvcid, strerror(errno));
			return;
		}
		tgt_reactor_hand_over(fd, port);
	}
}

static void tcp_port_close(struct tgt_port *p, int fd)
{
	(void)p;
	close(fd);
}

static void tcp_conn_drop(intptr_t conn)
{
	close((int)conn);
}

static const struct tgt_transport_ops tcp_ops = {
	.name = "tcp",
	.trtype = NVMF_TRTYPE_TCP,
	.port_open = tcp_port_open,
	.port_accept = tcp_port_accept,
	.port_close = tcp_port_close,
	.conn_drop = tcp_conn_drop,
	.queue_create = tcp_queue_create,
	.queue_connected = tcp_queue_connected,
	.queue_event = tcp_queue_event,
	.queue_flush = tcp_queue_flush,
	.queue_hold = tcp_queue_hold,
	.queue_buf_low = tcp_queue_buf_low,
	.queue_drained = tcp_queue_drained,
	.queue_quiesce = tcp_queue_quiesce,
	.queue_stop = tcp_queue_stop,
	.queue_destroy = tcp_queue_destroy,
	.queue_response = tcp_queue_response,
	.req_free = tcp_req_free,
	.id = &tgt_tcp_id,
};

const struct tgt_transport_ops *const tgt_tcp_transport = &tcp_ops;
