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
 * (atomics the stats socket reads).
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
#include "target/core/nvmet.h"
#include "tcp.h"

#define TGT_RXBUF 65536

/* One command slot of a queue: the core's request and its PDUs. */
struct tcp_cmd {
	struct tgt_req req;
	uint16_t idx; /* slot: the R2T's transfer tag */
	bool in_capsule;
	bool r2t_sent; /* its R2T is on the wire: H2CData may come */
	uint32_t rcvd; /* H2C bytes received so far */

	/* transmit: one PDU train at a time */
	struct tcp_cmd *tx_next;
	struct iovec iov[4];
	uint8_t niov;
	uint8_t hdr[128]; /* R2T or C2HData header (+digest, +padding) */
	uint8_t rsp[32]; /* CapsuleResp (+digest) */
	uint8_t ddgst[4];
	bool zc_used; /* its PDUs went out in a MSG_ZEROCOPY send */
	uint32_t zc_seq; /* the last such send's number */
	struct tcp_cmd *zc_link; /* the queue's CMD_ZC_WAIT FIFO */
};

enum tcp_rx_state {
	RX_HDR = 0, /* collecting a PDU header */
	RX_PAD, /* skipping to the PDU's data (PDO) */
	RX_DATA, /* data into cmd->req.buf (or discarded) */
	RX_DDGST, /* the data digest */
};

/* One NVMe/TCP connection: the core's queue and the socket's state. */
struct tcp_queue {
	struct tgt_queue sq;
	int fd;
	bool want_out; /* EPOLLOUT armed */

	struct nvme_tcp_conn conn;
	uint8_t icreq[128];
	uint32_t maxr2t;

	struct tcp_cmd *cmds; /* sqsize + 1 (+ slack) slots */
	unsigned nr_cmds;
	struct tcp_cmd *free_cmds; /* through tx_next while free */
	struct tcp_cmd boot; /* the Connect command's slot */

	/* receive */
	uint8_t *rxbuf;
	uint32_t rx_start, rx_end;
	uint8_t rx_state;
	struct nvme_tcp_rx_pdu pdu;
	struct tcp_cmd *rx_cmd; /* data destination owner */
	uint8_t *rx_dst; /* NULL: discard */
	uint32_t rx_left; /* bytes of the current state left */
	uint32_t rx_data_len; /* this PDU's data length */
	uint8_t *rx_data_start;
	uint8_t rx_dgst[4];
	uint32_t rx_dgst_have;

	/* transmit: a FIFO of commands whose PDUs are queued */
	struct tcp_cmd *tx_head, *tx_tail;
	size_t tx_off; /* bytes of tx_head's train already sent */
	unsigned tx_cqes; /* completions queued, not yet sent */
	unsigned tx_r2ts; /* R2Ts queued, not yet sent (never held) */
	uint64_t tx_hold_ns; /* when the oldest queued completion was */
	/* MSG_ZEROCOPY: sends numbered from 0 as the kernel numbers them;
	 * every one before zc_done is finished. A command whose PDUs (its
	 * headers live in the slot, its data in its buffer) went in such a
	 * send keeps its slot until then: a FIFO, oldest first. Ranges
	 * reported ahead of zc_done wait in zc_early. */
	bool zc;
	uint32_t zc_next, zc_done;
	struct tcp_cmd *zc_head, *zc_tail;
	unsigned zc_nr;
	struct {
		uint32_t lo, hi;
	} zc_early[16];
	unsigned zc_nr_early;
	uint8_t ctl[160]; /* ICResp or TermReq */
	uint32_t ctl_len, ctl_off;
	bool close_after_ctl; /* TermReq: close once sent */
};

static const struct tgt_transport_ops tcp_ops;

static struct tcp_queue *tcp_q(struct tgt_queue *sq)
{
	return (struct tcp_queue *)((char *)sq -
				    offsetof(struct tcp_queue, sq));
}

static struct tcp_cmd *tcp_cmd(struct tgt_req *req)
{
	return (struct tcp_cmd *)((char *)req - offsetof(struct tcp_cmd, req));
}

static struct tcp_queue *cmd_tq(struct tcp_cmd *cmd)
{
	return tcp_q(cmd->req.q);
}

static void queue_fatal(struct tcp_queue *q, uint16_t fes, uint32_t fei,
			const void *hdr, size_t hdr_len);
static void tcp_queue_quiesce(struct tgt_queue *sq);

static uint64_t now_ns(void)
{
	return mqblk_clock_ns();
}

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
	q->rxbuf = malloc(TGT_RXBUF);
	if (!q->rxbuf) {
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
	/* without SO_ZEROCOPY (an old kernel) sends simply copy */
	if (q->sq.t->zerocopy != TGT_ZC_OFF &&
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
		free(q->rxbuf);
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

static void cmd_free(struct tcp_cmd *cmd)
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
	cmd_free(tcp_cmd(req));
}

/* Stop taking commands: the host sees the connection close (shutdown
 * gets there once every command at the device has finished). */
static void tcp_queue_quiesce(struct tgt_queue *sq)
{
	struct tcp_queue *q = tcp_q(sq);

	if (q->sq.closing)
		return;
	q->sq.closing = true;
	if (q->fd >= 0) {
		epoll_ctl(q->sq.r->epfd, EPOLL_CTL_DEL, q->fd, NULL);
		shutdown(q->fd, SHUT_RDWR);
	}
}

static void tcp_queue_destroy(struct tgt_queue *sq)
{
	struct tcp_queue *q = tcp_q(sq);
	unsigned i;

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
	free(q->rxbuf);
	free(q);
}

/* ---- Transmit ------------------------------------------------------------ */

static void tx_enqueue(struct tcp_cmd *cmd)
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
	struct epoll_event ev = { .events = (q->sq.stopping ? 0 : EPOLLIN) |
					    (on ? EPOLLOUT : 0),
				  .data.ptr = &q->sq };

	if (q->want_out == on || q->sq.closing)
		return;
	q->want_out = on;
	epoll_ctl(q->sq.r->epfd, EPOLL_CTL_MOD, q->fd, &ev);
}

/* ---- MSG_ZEROCOPY ------------------------------------------------------ */

/* A send at least this big goes zero-copy (the kernel's advice: below
 * about 10 KB, page pinning and the notification cost more than a copy) */
#define TGT_ZC_MIN 16384
/* unsignalled: commands waiting on notifications before they are read
 * even while the queue is busy */
#define TGT_ZC_BATCH 32

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
		cmd_free(c);
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
static unsigned zc_reap(struct tcp_queue *q)
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
static void zc_wait_some(struct tcp_queue *q)
{
	struct pollfd pfd = { .fd = q->fd, .events = 0 };
	unsigned i;

	for (i = 0; i < 100 && q->zc_head && !q->free_cmds; i++) {
		zc_reap(q);
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
	cmd_free(cmd);
}

/* A completion joins the send queue (coalescing counts them). */
static void tx_enqueue_cqe(struct tcp_cmd *cmd)
{
	struct tcp_queue *q = cmd_tq(cmd);

	/* the clock only when coalescing will ask how long it waited */
	if (!q->tx_cqes++ && q->sq.t->coal_count > 1)
		q->tx_hold_ns = now_ns();
	tx_enqueue(cmd);
}

static bool tcp_queue_hold(struct tgt_queue *sq, uint64_t now,
			   uint64_t *deadline_ns)
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
		ssize_t n = send(q->fd, q->ctl + q->ctl_off,
				 q->ctl_len - q->ctl_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

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

static void tcp_queue_flush(struct tgt_queue *sq)
{
	struct tcp_queue *q = tcp_q(sq);
	struct iovec iov[64];

	if (q->sq.closing)
		goto drop;
	if (q->ctl_len) {
		int ret = send_ctl(q);

		if (ret > 0) {
			set_want_out(q, true);
			return;
		}
		if (ret < 0)
			goto drop;
	}
	while (q->tx_head) {
		struct tcp_cmd *c;
		struct msghdr mh = { .msg_iov = iov };
		size_t skip = q->tx_off;
		unsigned n = 0;
		ssize_t sent;
		bool zc;

		for (c = q->tx_head; c && n + 4 <= 64; c = c->tx_next)
			n += nvme_tcp_iov_append(iov + n, 64 - n, c->iov,
						 c->niov, &skip);
		mh.msg_iovlen = n;
		zc = q->zc && nvme_tcp_iov_len(iov, n) >= TGT_ZC_MIN;
		sent = sendmsg(q->fd, &mh,
			       MSG_DONTWAIT | MSG_NOSIGNAL |
				       (zc ? MSG_ZEROCOPY : 0));
		if (sent < 0 && zc && errno == ENOBUFS) {
			/* past the socket's optmem for notifications: this
			 * one copies */
			zc = false;
			sent = sendmsg(q->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
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
			zc_reap(q);
	}
	set_want_out(q, false);
	return;
drop:
	/* the connection is gone: what was to be sent is dropped */
	while (q->tx_head) {
		struct tcp_cmd *c = q->tx_head;

		q->tx_head = c->tx_next;
		if (c->req.state != CMD_R2T)
			cmd_free(c);
	}
	q->tx_tail = NULL;
	q->tx_off = 0;
	q->tx_cqes = q->tx_r2ts = 0;
	tcp_queue_quiesce(&q->sq);
}

/* ---- Fatal errors -------------------------------------------------------- */

/* C2HTermReq with fes/fei and the offending header, then close. */
static void queue_fatal(struct tcp_queue *q, uint16_t fes, uint32_t fei,
			const void *hdr, size_t hdr_len)
{
	ssize_t n;

	tgt_log("queue %s (%s qid %u): fatal transport error %u (field %u): "
		"C2HTermReq, closing",
		q->sq.peer,
		q->sq.ctrl ? q->sq.ctrl->subsys->nqn : "unconnected", q->sq.qid,
		fes, fei);
	q->rx_state = RX_HDR;
	q->rx_start = q->rx_end = 0;
	n = nvme_tcp_build_term(&q->conn, q->ctl, sizeof(q->ctl), fes, fei, hdr,
				hdr_len);
	if (n <= 0) {
		tcp_queue_quiesce(&q->sq);
		return;
	}
	/* a TermReq goes out alone, ahead of anything queued */
	q->ctl_len = (uint32_t)n;
	q->ctl_off = 0;
	q->close_after_ctl = true;
	/* stop reading: nothing after a fatal error is processed */
	epoll_ctl(q->sq.r->epfd, EPOLL_CTL_MOD, q->fd,
		  &(struct epoll_event){ .events = EPOLLOUT,
					 .data.ptr = &q->sq });
	q->want_out = true;
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
static void tcp_queue_response(struct tgt_req *req, uint16_t status)
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
			zc_wait_some(q);
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

static void rx_begin_data(struct tcp_queue *q, struct tcp_cmd *cmd,
			  uint8_t *dst)
{
	const struct nvme_tcp_rx_pdu *p = &q->pdu;

	q->rx_cmd = cmd;
	q->rx_dst = dst;
	q->rx_data_start = dst;
	q->rx_data_len = p->data_len;
	q->rx_left = p->data_off - p->hdr_len;
	q->rx_state = q->rx_left ? RX_PAD : RX_DATA;
	if (!q->rx_left)
		q->rx_left = p->data_len;
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
	tx_enqueue(cmd);
}

static void rx_capsule(struct tcp_queue *q, const uint8_t *hdr)
{
	const struct nvme_tcp_rx_pdu *p = &q->pdu;
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
		queue_fatal(q, NVME_TCP_FES_PDU_SEQ_ERR, 0, hdr, p->hdr_len);
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
		else if (len > TGT_MAX_XFER)
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
	const struct nvme_tcp_rx_pdu *p = &q->pdu;
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
		queue_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR, 10, hdr,
			    p->hdr_len);
		return;
	}
	if (!cmd->r2t_sent) {
		/* data for an R2T the host cannot have seen yet (it is still
		 * in our send queue): out of sequence, and accepting it would
		 * answer the command while its R2T is still queued */
		queue_fatal(q, NVME_TCP_FES_PDU_SEQ_ERR, 0, hdr, p->hdr_len);
		return;
	}
	if (cid != cmd->req.sqe.common.command_id) {
		queue_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR, 8, hdr,
			    p->hdr_len);
		return;
	}
	if (nvme_tcp_check_data_range(off, len, cmd->rcvd, cmd->req.xfer_len)) {
		queue_fatal(q, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0, hdr,
			    p->hdr_len);
		return;
	}
	if (last != (off + len == cmd->req.xfer_len)) {
		queue_fatal(q, NVME_TCP_FES_PDU_SEQ_ERR, 0, hdr, p->hdr_len);
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

	q->rx_state = RX_HDR;
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
	cmd->rcvd += q->rx_data_len;
	if (cmd->rcvd < cmd->req.xfer_len)
		return;
	if (cmd->req.status)
		tgt_req_complete(&cmd->req, cmd->req.status);
	else
		tgt_req_exec(&cmd->req);
}

static void rx_data_end(struct tcp_queue *q)
{
	if (q->pdu.ddgst) {
		q->rx_state = RX_DDGST;
		q->rx_left = 4;
		q->rx_dgst_have = 0;
		return;
	}
	rx_data_done(q, true);
}

/* Consume what the receive buffer holds. false: stop (closing). */
static bool rx_process(struct tcp_queue *q)
{
	while (!q->sq.closing && !q->close_after_ctl) {
		uint32_t avail = q->rx_end - q->rx_start;
		uint8_t *b = q->rxbuf + q->rx_start;
		uint32_t n;
		int ret;

		switch (q->rx_state) {
		case RX_HDR:
			if (!avail)
				return true;
			ret = nvme_tcp_rx_header(&q->conn, b, avail, &q->pdu);
			if (ret == NVME_TCP_RX_MORE)
				return true;
			if (ret != NVME_TCP_RX_OK) {
				if (q->pdu.type == nvme_tcp_h2c_term ||
				    q->pdu.type == nvme_tcp_c2h_term) {
					tcp_queue_quiesce(&q->sq);
					return false;
				}
				queue_fatal(q, q->pdu.fes, q->pdu.fei, b,
					    avail < q->pdu.hlen ? avail :
								  q->pdu.hlen);
				return false;
			}
			q->rx_start += q->pdu.hdr_len;
			switch (q->pdu.type) {
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
				queue_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR, 0,
					    b, q->pdu.hlen);
				return false;
			}
			break;
		case RX_PAD:
			n = avail < q->rx_left ? avail : q->rx_left;
			q->rx_start += n;
			q->rx_left -= n;
			if (q->rx_left)
				return true;
			q->rx_state = RX_DATA;
			q->rx_left = q->rx_data_len;
			break;
		case RX_DATA:
			n = avail < q->rx_left ? avail : q->rx_left;
			if (q->rx_dst) {
				memcpy(q->rx_dst, b, n);
				q->rx_dst += n;
			}
			q->rx_start += n;
			q->rx_left -= n;
			if (q->rx_left)
				return true;
			rx_data_end(q);
			break;
		case RX_DDGST:
			n = avail < q->rx_left ? avail : q->rx_left;
			memcpy(q->rx_dgst + q->rx_dgst_have, b, n);
			q->rx_dgst_have += n;
			q->rx_start += n;
			q->rx_left -= n;
			if (q->rx_left)
				return true;
			rx_data_done(q,
				     !q->rx_data_start ||
					     nvme_tcp_ddgst_ok(q->rx_data_start,
							       q->rx_data_len,
							       q->rx_dgst));
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
		ssize_t n;

		if (rounds == 32) {
			rx_process(q);
			return;
		}
		if (!rx_process(q))
			return;
		if (q->rx_start == q->rx_end)
			q->rx_start = q->rx_end = 0;
		if (q->rx_state == RX_DATA && q->rx_dst &&
		    q->rx_start == q->rx_end && q->rx_left >= 4096) {
			/* a big data section: straight into its buffer */
			n = recv(q->fd, q->rx_dst, q->rx_left, MSG_DONTWAIT);
			if (n > 0) {
				q->rx_dst += n;
				q->rx_left -= (uint32_t)n;
				if (!q->rx_left)
					rx_data_end(q);
				continue;
			}
		} else {
			if (TGT_RXBUF - q->rx_end < 256) {
				memmove(q->rxbuf, q->rxbuf + q->rx_start,
					q->rx_end - q->rx_start);
				q->rx_end -= q->rx_start;
				q->rx_start = 0;
			}
			n = recv(q->fd, q->rxbuf + q->rx_end,
				 TGT_RXBUF - q->rx_end, MSG_DONTWAIT);
			if (n > 0) {
				q->rx_end += (uint32_t)n;
				continue;
			}
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
	if (q->sq.stopping)
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

		if (later || zc_reap(q))
			events &= ~(uint32_t)EPOLLERR;
	}
	if (events & (EPOLLERR | EPOLLHUP)) {
		if (!(events & EPOLLIN)) {
			tcp_queue_quiesce(&q->sq);
			return;
		}
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
			if (errno != EAGAIN && errno != EWOULDBLOCK)
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
	.queue_drained = tcp_queue_drained,
	.queue_quiesce = tcp_queue_quiesce,
	.queue_stop = tcp_queue_stop,
	.queue_destroy = tcp_queue_destroy,
	.queue_response = tcp_queue_response,
	.req_free = tcp_req_free,
	.id = &tgt_tcp_id,
};

const struct tgt_transport_ops *const tgt_tcp_transport = &tcp_ops;
