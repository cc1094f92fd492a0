// SPDX-License-Identifier: MIT
/*
 * The TCP transport's send side: a FIFO of commands whose PDU trains
 * (header, data, digest, response: up to four iovecs each) go out with
 * one sendmsg for as many as fit; MSG_ZEROCOPY for big sends, a slot kept
 * until the kernel says it is done with its pages; response coalescing
 * (the reactor's hold); C2HTermReq on a fatal error.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <linux/errqueue.h>

#include "mqblk/mqblk.h"
#include "tcp_queue.h"

#define stat_add tgt_stat_add

static uint64_t now_ns(void)
{
	return mqblk_clock_ns();
}

/* ---- Transmit ------------------------------------------------------------ */

void tcp_tx_enqueue(struct tcp_cmd *cmd)
{
	struct tcp_queue *q = cmd_tq(cmd);

	cmd->tx_next = NULL;
	if (q->tx_tail)
		q->tx_tail->tx_next = cmd;
	else
		q->tx_head = cmd;
	q->tx_tail = cmd;
	tgt_reactor_want_flush(q->sq.r, &q->sq);
}

static void set_want_out(struct tcp_queue *q, bool on)
{
	tcp_tls_want_out(q, on);
}

/* ---- MSG_ZEROCOPY ------------------------------------------------------ */

static bool zc_seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* Free the commands every send of theirs is finished with. */
static void zc_release(struct tcp_queue *q)
{
	while (q->zc_head && zc_seq_before(q->zc_head->zc_seq, q->zc_done)) {
		struct tcp_cmd *c = q->zc_head;

		q->zc_head = c->zc_link;
		if (!q->zc_head)
			q->zc_tail = NULL;
		q->zc_nr--;
		c->zc_used = false;
		tcp_cmd_free(c);
	}
}

/* Sends lo..hi are finished: move zc_done past them and any earlier
 * report they now join. */
static void zc_finished(struct tcp_queue *q, uint32_t lo, uint32_t hi)
{
	unsigned i;
	bool moved;

	if (zc_seq_before(q->zc_done, lo)) {
		/* ahead of an unfinished send: kept until that one is */
		if (q->zc_nr_early <
		    sizeof(q->zc_early) / sizeof(q->zc_early[0])) {
			q->zc_early[q->zc_nr_early].lo = lo;
			q->zc_early[q->zc_nr_early].hi = hi;
			q->zc_nr_early++;
		}
		return;
	}
	if (!zc_seq_before(hi, q->zc_done))
		q->zc_done = hi + 1;
	do {
		moved = false;
		for (i = 0; i < q->zc_nr_early; i++) {
			if (zc_seq_before(q->zc_done, q->zc_early[i].lo))
				continue;
			if (!zc_seq_before(q->zc_early[i].hi, q->zc_done))
				q->zc_done = q->zc_early[i].hi + 1;
			q->zc_early[i] = q->zc_early[--q->zc_nr_early];
			moved = true;
			break;
		}
	} while (moved);
}

/* Read the socket's error queue: zero-copy completion notifications
 * (each a range of sends; unread ones the kernel merges). Returns how
 * many were read. */
unsigned tcp_zc_reap(struct tcp_queue *q)
{
	unsigned n = 0;

	stat_add(&q->sq.st.zc_polls, 1);
	for (;;) {
		union {
			struct cmsghdr align;
			char b[CMSG_SPACE(sizeof(struct sock_extended_err)) +
			       64];
		} ctl;
		struct msghdr mh = { .msg_control = ctl.b,
				     .msg_controllen = sizeof(ctl.b) };
		struct cmsghdr *cm;

		if (recvmsg(q->fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno == EINTR)
				continue;
			break; /* EAGAIN: nothing more */
		}
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			struct sock_extended_err ee;

			if (!((cm->cmsg_level == SOL_IP &&
			       cm->cmsg_type == IP_RECVERR) ||
			      (cm->cmsg_level == SOL_IPV6 &&
			       cm->cmsg_type == IPV6_RECVERR)))
				continue;
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			if (ee.ee_errno ||
			    ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY)
				continue;
			n++;
			stat_add(&q->sq.st.zc_reads, 1);
			if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				stat_add(&q->sq.st.zc_copied,
					 ee.ee_data - ee.ee_info + 1);
			zc_finished(q, ee.ee_info, ee.ee_data);
		}
	}
	zc_release(q);
	return n;
}

/* Every slot waits for a zero-copy send: wait (up to a second) for the
 * kernel to finish some. */
void tcp_zc_wait_some(struct tcp_queue *q)
{
	struct pollfd pfd = { .fd = q->fd, .events = 0 };
	unsigned i;

	for (i = 0; i < 100 && q->zc_head && !q->free_cmds; i++) {
		tcp_zc_reap(q);
		if (q->free_cmds)
			break;
		poll(&pfd, 1, 10); /* POLLERR: the error queue has one */
	}
}

/* A zero-copy send of sent bytes went out as number seq: the commands
 * whose PDUs it carried (from the head, past tx_off) keep their slots
 * until it is finished. */
static void zc_mark(struct tcp_queue *q, size_t sent, uint32_t seq)
{
	size_t off = q->tx_off + sent;
	struct tcp_cmd *c;

	for (c = q->tx_head; c; c = c->tx_next) {
		size_t len = nvme_tcp_iov_len(c->iov, c->niov);

		c->zc_used = true;
		c->zc_seq = seq;
		if (off <= len)
			break;
		off -= len;
	}
}

/* A command's train is on the wire: what comes next for it. */
static void tx_done(struct tcp_cmd *cmd)
{
	struct tcp_queue *q = cmd_tq(cmd);

	if (cmd->req.state == CMD_R2T) {
		q->tx_r2ts--;
		cmd->r2t_sent = true; /* the H2CData may come now */
		return;
	}
	q->tx_cqes--;
	stat_add(&q->sq.st.cqes, 1);
	if (cmd->zc_used && zc_seq_before(cmd->zc_seq, q->zc_done))
		cmd->zc_used = false; /* already done with */
	if (cmd->zc_used) {
		cmd->req.state = CMD_ZC_WAIT;
		cmd->zc_link = NULL;
		if (q->zc_tail)
			q->zc_tail->zc_link = cmd;
		else
			q->zc_head = cmd;
		q->zc_tail = cmd;
		q->zc_nr++;
		return;
	}
	tcp_cmd_free(cmd);
}

/* A completion joins the send queue (coalescing counts them). */
static void tx_enqueue_cqe(struct tcp_cmd *cmd)
{
	struct tcp_queue *q = cmd_tq(cmd);

	/* the clock only when coalescing will ask how long it waited */
	if (!q->tx_cqes++ && q->sq.t->coal_count > 1)
		q->tx_hold_ns = now_ns();
	tcp_tx_enqueue(cmd);
}

bool tcp_queue_hold(struct tgt_queue *sq, uint64_t now, uint64_t *deadline_ns)
{
	struct tcp_queue *q = tcp_q(sq);
	const struct tgt *t = q->sq.t;
	uint64_t deadline;

	/* only completions wait: an R2T, an ICResp or TermReq, a queue
	 * on its way out, or one the socket already pushed back go now */
	if (t->coal_count <= 1 || !q->tx_cqes || q->tx_r2ts || q->ctl_len ||
	    q->sq.closing || q->sq.stopping || q->want_out ||
	    q->tx_cqes >= t->coal_count)
		return false;
	deadline = q->tx_hold_ns + (uint64_t)t->coal_usecs * 1000;
	if (now >= deadline)
		return false;
	*deadline_ns = deadline;
	stat_add(&q->sq.st.held, 1);
	return true;
}

static int send_ctl(struct tcp_queue *q)
{
	while (q->ctl_off < q->ctl_len) {
		struct iovec iov = { q->ctl + q->ctl_off,
				     q->ctl_len - q->ctl_off };
		ssize_t n = tcp_io_send(q, &iov, 1, 0);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 1;
			if (errno == EINTR)
				continue;
			return -1;
		}
		q->ctl_off += (uint32_t)n;
	}
	q->ctl_len = q->ctl_off = 0;
	if (q->close_after_ctl) {
		q->close_after_ctl = false;
		tcp_queue_quiesce(&q->sq);
		return -1;
	}
	return 0;
}

void tcp_queue_flush(struct tgt_queue *sq)
{
	struct tcp_queue *q = tcp_q(sq);
	struct iovec iov[64];

	if (q->sq.closing)
		goto drop;
	if (q->rx_kick)
		tcp_queue_rx_resume(q);
	if (q->sq.closing)
		goto drop;
	while (q->tx_head || q->ctl_len) {
		struct tcp_cmd *c;
		size_t skip = q->tx_off;
		unsigned n = 0;
		ssize_t sent;
		bool zc;

		/* the ICResp, or a TermReq: at a PDU boundary, so after
		 * the rest of a train already part way out, alone */
		if (q->ctl_len && !q->tx_off) {
			int ret = send_ctl(q);

			if (ret > 0) {
				set_want_out(q, true);
				return;
			}
			if (ret < 0)
				goto drop;
			continue;
		}
		if (q->ctl_len)
			n = nvme_tcp_iov_append(iov, 64, q->tx_head->iov,
						q->tx_head->niov, &skip);
		else
			for (c = q->tx_head; c && n + 4 <= 64; c = c->tx_next)
				n += nvme_tcp_iov_append(iov + n, 64 - n,
							 c->iov, c->niov,
							 &skip);
		zc = q->zc && nvme_tcp_iov_len(iov, n) >= TGT_ZC_MIN;
		sent = tcp_io_send(q, iov, n, zc ? MSG_ZEROCOPY : 0);
		if (sent < 0 && zc && errno == ENOBUFS) {
			/* past the socket's optmem for notifications: this
			 * one copies */
			zc = false;
			sent = tcp_io_send(q, iov, n, 0);
		}
		if (sent < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				set_want_out(q, true);
				return;
			}
			goto drop;
		}
		stat_add(&q->sq.st.sends, 1);
		if (zc && sent > 0) {
			stat_add(&q->sq.st.zc_sends, 1);
			zc_mark(q, (size_t)sent, q->zc_next++);
		}
		/* retire whole trains */
		{
			size_t done = q->tx_off + (size_t)sent;

			while (q->tx_head) {
				size_t len = nvme_tcp_iov_len(q->tx_head->iov,
							      q->tx_head->niov);

				if (done < len)
					break;
				done -= len;
				c = q->tx_head;
				q->tx_head = c->tx_next;
				if (!q->tx_head)
					q->tx_tail = NULL;
				tx_done(c);
			}
			q->tx_off = done;
		}
		/* signalled: a notification read for every send */
		if (zc && q->sq.t->zerocopy == TGT_ZC_SIGNALLED)
			tcp_zc_reap(q);
	}
	set_want_out(q, false);
	return;
drop:
	/* the connection is gone: what was to be sent is dropped */
	while (q->tx_head) {
		struct tcp_cmd *c = q->tx_head;

		q->tx_head = c->tx_next;
		if (c->req.state != CMD_R2T)
			tcp_cmd_free(c);
	}
	q->tx_tail = NULL;
	q->tx_off = 0;
	q->tx_cqes = q->tx_r2ts = 0;
	tcp_queue_quiesce(&q->sq);
}

/* ---- Fatal errors -------------------------------------------------------- */

/* C2HTermReq with fes/fei and the offending header, then close. */
void tcp_queue_fatal(struct tcp_queue *q, uint16_t fes, uint32_t fei,
		     const void *hdr, size_t hdr_len)
{
	ssize_t n;

	tgt_log("queue %s (%s qid %u): fatal transport error %u (field %u): "
		"C2HTermReq, closing",
		q->sq.peer,
		q->sq.ctrl ? q->sq.ctrl->subsys->nqn : "unconnected", q->sq.qid,
		fes, fei);
	nvme_tcp_rx_reset(&q->rx);
	n = nvme_tcp_build_term(&q->conn, q->ctl, sizeof(q->ctl), fes, fei, hdr,
				hdr_len);
	/* TLS: a record the socket pushed back must go first, whole, and
	 * it is not the TermReq: close without one */
	if (n > 0 && q->tls_w && q->tls_w->pending)
		n = 0;
	if (n <= 0) {
		tcp_queue_quiesce(&q->sq);
		return;
	}
	/* a TermReq goes out alone, ahead of anything queued, at a PDU
	 * boundary: after the rest of a train the socket took part of
	 * (tcp_queue_flush) */
	q->ctl_len = (uint32_t)n;
	q->ctl_off = 0;
	q->close_after_ctl = true;
	/* stop reading: nothing after a fatal error is processed */
	epoll_ctl(q->sq.r->epfd, EPOLL_CTL_MOD, q->fd,
		  &(struct epoll_event){ .events = EPOLLOUT,
					 .data.ptr = &q->sq });
	q->want_out = true;
	if (q->tx_off) {
		tgt_reactor_want_flush(q->sq.r, &q->sq);
		return;
	}
	if (send_ctl(q) > 0)
		return;
}

/* ---- Responses ----------------------------------------------------------- */

static void cmd_queue_rsp(struct tcp_cmd *cmd, uint16_t status)
{
	struct tcp_queue *q = cmd_tq(cmd);
	struct nvme_completion cqe;
	ssize_t n;

	memset(&cqe, 0, sizeof(cqe));
	cqe.result.u64 = cpu_to_le64(cmd->req.result);
	cqe.sq_head = cpu_to_le16(q->sq.sqhd);
	cqe.sq_id = cpu_to_le16(q->sq.qid);
	cqe.command_id = cmd->req.sqe.common.command_id;
	nvme_cqe_set_status(&cqe, status);
	n = nvme_tcp_build_rsp(&q->conn, cmd->rsp, sizeof(cmd->rsp), &cqe);
	cmd->iov[cmd->niov].iov_base = cmd->rsp;
	cmd->iov[cmd->niov].iov_len = (size_t)n;
	cmd->niov++;
}

/* The transport's answer: C2HData (reads, with data) and/or the
 * CapsuleResp, queued to send. */
void tcp_queue_response(struct tgt_req *req, uint16_t status)
{
	struct tcp_cmd *cmd = tcp_cmd(req);
	struct tcp_queue *q = cmd_tq(cmd);
	bool data = !status && req->dir == 1 && req->xfer_len;

	cmd->niov = 0;
	if (data) {
		/* success optimisation: with SQ flow control off the last
		 * C2HData may stand for the CapsuleResp (as nvmet does) */
		bool success = q->sq.sqflow_off && !req->result;
		uint8_t flags = NVME_TCP_F_DATA_LAST |
				(success ? NVME_TCP_F_DATA_SUCCESS : 0);
		ssize_t pdo = nvme_tcp_build_data(&q->conn, cmd->hdr,
						  sizeof(cmd->hdr),
						  req->sqe.common.command_id, 0,
						  0, NULL, req->xfer_len,
						  flags);

		cmd->iov[0].iov_base = cmd->hdr;
		cmd->iov[0].iov_len = (size_t)pdo;
		cmd->niov =
			(uint8_t)(1 + nvme_tcp_data_iov(&q->conn, cmd->iov + 1,
							req->buf, req->xfer_len,
							cmd->ddgst));
		if (success) {
			tx_enqueue_cqe(cmd);
			return;
		}
	}
	cmd_queue_rsp(cmd, status);
	tx_enqueue_cqe(cmd);
}
