// SPDX-License-Identifier: MIT
/*
 * One NVMe/TCP queue of the target: a TCP connection, the PDUs on it and
 * the commands they carry, from ICReq to the last CapsuleResp.
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

#include "internal.h"
#include "mqblk/mqblk.h"

#define SQE_OFF_SQSIZE 44 /* Connect: field offsets for IPO */
#define SQE_OFF_QID 42
#define SQE_OFF_RECFMT 40
#define DATA_OFF_CNTLID 16
#define DATA_OFF_SUBNQN 256
#define DATA_OFF_HOSTNQN 512

static void queue_fatal(struct tgt_queue *q, uint16_t fes, uint32_t fei,
			const void *hdr, size_t hdr_len);
static void cmd_complete(struct tgt_cmd *cmd, uint16_t status);
static void cmd_exec(struct tgt_cmd *cmd);
static void ctrl_put(struct tgt_ctrl *ctrl);

static uint64_t now_ns(void)
{
	return mqblk_clock_ns();
}

static inline void stat_add(_Atomic uint64_t *v, uint64_t n)
{
	atomic_store_explicit(v,
			      atomic_load_explicit(v, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* ---- Queue life ---------------------------------------------------------- */

struct tgt_queue *tgt_queue_create(struct tgt_reactor *r, int fd,
				   struct tgt_port *port)
{
	struct tgt_queue *q = calloc(1, sizeof(*q));
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int one = 1;

	if (!q)
		return NULL;
	q->rxbuf = malloc(TGT_RXBUF);
	if (!q->rxbuf) {
		free(q);
		return NULL;
	}
	q->r = r;
	q->t = r->t;
	q->port = port;
	q->fd = fd;
	q->conn.host = false;
	/* the biggest PDU we take: an H2CData of MAXH2CDATA, or a capsule
	 * with in-capsule data, each with header, padding and digests */
	_Static_assert(TGT_MAX_INLINE_DATA <= TGT_MAXH2CDATA,
		       "in-capsule data beyond the PDU size limit");
	q->conn.max_plen = TGT_MAXH2CDATA + 256;
	q->boot.q = q;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* without SO_ZEROCOPY (an old kernel) sends simply copy */
	if (q->t->zerocopy != TGT_ZC_OFF &&
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
		snprintf(q->peer, sizeof(q->peer), "%s:%u", host, pport);
	}
	return q;
}

static void cmd_release_buf(struct tgt_cmd *cmd)
{
	if (cmd->buf) {
		tgt_buf_put(cmd->q->r, cmd->buf, cmd->buf_cap);
		cmd->buf = NULL;
		cmd->buf_cap = 0;
	}
}

static void cmd_free(struct tgt_cmd *cmd)
{
	struct tgt_queue *q = cmd->q;

	cmd_release_buf(cmd);
	cmd->state = CMD_FREE;
	q->inflight--;
	atomic_store_explicit(&q->st.depth, q->inflight, memory_order_relaxed);
	if (cmd != &q->boot) {
		cmd->tx_next = q->free_cmds;
		q->free_cmds = cmd;
	}
}

bool tgt_queue_idle(const struct tgt_queue *q)
{
	return !q->dev_inflight;
}

/* Stop taking commands: the host sees the connection close (shutdown
 * gets there once every command at the device has finished). */
void tgt_queue_quiesce(struct tgt_queue *q)
{
	if (q->closing)
		return;
	q->closing = true;
	if (q->fd >= 0) {
		epoll_ctl(q->r->epfd, EPOLL_CTL_DEL, q->fd, NULL);
		shutdown(q->fd, SHUT_RDWR);
	}
}

void tgt_queue_destroy(struct tgt_queue *q)
{
	unsigned i;

	if (q->fd >= 0)
		close(q->fd);
	for (i = 0; i < q->nr_cmds; i++) {
		struct tgt_cmd *c = &q->cmds[i];

		/* the kernel may still hold a zero-copy send of it: not
		 * back in the pool, where another queue would write it; it
		 * stays in its slab, unused, until the reactor ends */
		if (c->state == CMD_ZC_WAIT && c->buf) {
			tgt_buf_abandon(c->q->r, c->buf, c->buf_cap);
			c->buf = NULL;
		}
		cmd_release_buf(c);
	}
	cmd_release_buf(&q->boot);
	if (q->ctrl) {
		struct tgt_ctrl *ctrl = q->ctrl;

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
		ctrl_put(ctrl);
	}
	free(q->cmds);
	free(q->rxbuf);
	free(q);
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

static void ctrl_put(struct tgt_ctrl *ctrl)
{
	if (atomic_fetch_sub(&ctrl->refs, 1) != 1)
		return;
	ctrl_unlink(ctrl);
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

/* ---- Transmit ------------------------------------------------------------ */

static void tx_enqueue(struct tgt_cmd *cmd)
{
	struct tgt_queue *q = cmd->q;

	cmd->tx_next = NULL;
	if (q->tx_tail)
		q->tx_tail->tx_next = cmd;
	else
		q->tx_head = cmd;
	q->tx_tail = cmd;
	tgt_reactor_want_flush(q->r, q);
}

static void set_want_out(struct tgt_queue *q, bool on)
{
	struct epoll_event ev = { .events = (q->stopping ? 0 : EPOLLIN) |
					    (on ? EPOLLOUT : 0),
				  .data.ptr = q };

	if (q->want_out == on || q->closing)
		return;
	q->want_out = on;
	epoll_ctl(q->r->epfd, EPOLL_CTL_MOD, q->fd, &ev);
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
static void zc_release(struct tgt_queue *q)
{
	while (q->zc_head && zc_seq_before(q->zc_head->zc_seq, q->zc_done)) {
		struct tgt_cmd *c = q->zc_head;

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
static void zc_finished(struct tgt_queue *q, uint32_t lo, uint32_t hi)
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
static unsigned zc_reap(struct tgt_queue *q)
{
	unsigned n = 0;

	stat_add(&q->st.zc_polls, 1);
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
			stat_add(&q->st.zc_reads, 1);
			if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				stat_add(&q->st.zc_copied,
					 ee.ee_data - ee.ee_info + 1);
			zc_finished(q, ee.ee_info, ee.ee_data);
		}
	}
	zc_release(q);
	return n;
}

/* Every slot waits for a zero-copy send: wait (up to a second) for the
 * kernel to finish some. */
static void zc_wait_some(struct tgt_queue *q)
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
static void zc_mark(struct tgt_queue *q, size_t sent, uint32_t seq)
{
	size_t off = q->tx_off + sent;
	struct tgt_cmd *c;

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
static void tx_done(struct tgt_cmd *cmd)
{
	struct tgt_queue *q = cmd->q;

	if (cmd->state == CMD_R2T) {
		q->tx_r2ts--;
		cmd->r2t_sent = true; /* the H2CData may come now */
		return;
	}
	q->tx_cqes--;
	stat_add(&q->st.cqes, 1);
	if (cmd->zc_used && zc_seq_before(cmd->zc_seq, q->zc_done))
		cmd->zc_used = false; /* already done with */
	if (cmd->zc_used) {
		cmd->state = CMD_ZC_WAIT;
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
static void tx_enqueue_cqe(struct tgt_cmd *cmd)
{
	struct tgt_queue *q = cmd->q;

	/* the clock only when coalescing will ask how long it waited */
	if (!q->tx_cqes++ && q->t->coal_count > 1)
		q->tx_hold_ns = now_ns();
	tx_enqueue(cmd);
}

bool tgt_queue_hold(struct tgt_queue *q, uint64_t now, uint64_t *deadline_ns)
{
	const struct tgt *t = q->t;
	uint64_t deadline;

	/* only completions wait: an R2T, an ICResp or TermReq, a queue
	 * on its way out, or one the socket already pushed back go now */
	if (t->coal_count <= 1 || !q->tx_cqes || q->tx_r2ts || q->ctl_len ||
	    q->closing || q->stopping || q->want_out ||
	    q->tx_cqes >= t->coal_count)
		return false;
	deadline = q->tx_hold_ns + (uint64_t)t->coal_usecs * 1000;
	if (now >= deadline)
		return false;
	*deadline_ns = deadline;
	stat_add(&q->st.held, 1);
	return true;
}

static int send_ctl(struct tgt_queue *q)
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
		tgt_queue_quiesce(q);
		return -1;
	}
	return 0;
}

void tgt_queue_flush(struct tgt_queue *q)
{
	struct iovec iov[64];

	if (q->closing)
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
		struct tgt_cmd *c;
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
		stat_add(&q->st.sends, 1);
		if (zc && sent > 0) {
			stat_add(&q->st.zc_sends, 1);
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
		if (zc && q->t->zerocopy == TGT_ZC_SIGNALLED)
			zc_reap(q);
	}
	set_want_out(q, false);
	return;
drop:
	/* the connection is gone: what was to be sent is dropped */
	while (q->tx_head) {
		struct tgt_cmd *c = q->tx_head;

		q->tx_head = c->tx_next;
		if (c->state != CMD_R2T)
			cmd_free(c);
	}
	q->tx_tail = NULL;
	q->tx_off = 0;
	q->tx_cqes = q->tx_r2ts = 0;
	tgt_queue_quiesce(q);
}

/* ---- Fatal errors -------------------------------------------------------- */

/* C2HTermReq with fes/fei and the offending header, then close. */
static void queue_fatal(struct tgt_queue *q, uint16_t fes, uint32_t fei,
			const void *hdr, size_t hdr_len)
{
	ssize_t n;

	tgt_log("queue %s (%s qid %u): fatal transport error %u (field %u): "
		"C2HTermReq, closing",
		q->peer, q->ctrl ? q->ctrl->subsys->nqn : "unconnected", q->qid,
		fes, fei);
	q->rx_state = RX_HDR;
	q->rx_start = q->rx_end = 0;
	n = nvme_tcp_build_term(&q->conn, q->ctl, sizeof(q->ctl), fes, fei, hdr,
				hdr_len);
	if (n <= 0) {
		tgt_queue_quiesce(q);
		return;
	}
	/* a TermReq goes out alone, ahead of anything queued */
	q->ctl_len = (uint32_t)n;
	q->ctl_off = 0;
	q->close_after_ctl = true;
	/* stop reading: nothing after a fatal error is processed */
	epoll_ctl(q->r->epfd, EPOLL_CTL_MOD, q->fd,
		  &(struct epoll_event){ .events = EPOLLOUT, .data.ptr = q });
	q->want_out = true;
	if (send_ctl(q) > 0)
		return;
}

/* ---- Responses ----------------------------------------------------------- */

static void cmd_queue_rsp(struct tgt_cmd *cmd, uint16_t status)
{
	struct tgt_queue *q = cmd->q;
	struct nvme_completion cqe;
	ssize_t n;

	memset(&cqe, 0, sizeof(cqe));
	cqe.result.u64 = cpu_to_le64(cmd->result);
	cqe.sq_head = cpu_to_le16(q->sqhd);
	cqe.sq_id = cpu_to_le16(q->qid);
	cqe.command_id = cmd->sqe.common.command_id;
	nvme_cqe_set_status(&cqe, status);
	n = nvme_tcp_build_rsp(&q->conn, cmd->rsp, sizeof(cmd->rsp), &cqe);
	cmd->iov[cmd->niov].iov_base = cmd->rsp;
	cmd->iov[cmd->niov].iov_len = (size_t)n;
	cmd->niov++;
}

/* Account and send what ends cmd: C2HData (reads, with data) and/or the
 * CapsuleResp. */
static void cmd_complete(struct tgt_cmd *cmd, uint16_t status)
{
	struct tgt_queue *q = cmd->q;
	uint64_t lat = now_ns() - cmd->start_ns;
	bool data = !status && cmd->dir == 1 && cmd->xfer_len;

	cmd->state = CMD_TX;
	cmd->niov = 0;
	if (status) {
		stat_add(&q->st.errors, 1);
		if (q->ctrl && !cmd->err_logged &&
		    (status & 0x7ff) != NVME_SC_TRANSIENT_TR_ERR)
			tgt_ctrl_log_error(q->ctrl, q->qid,
					   cmd->sqe.common.command_id, status,
					   0xffff,
					   le64_to_cpu(cmd->sqe.rw.slba),
					   le32_to_cpu(cmd->sqe.common.nsid));
	}
	stat_add(&q->st.lat_ns_sum, lat);
	stat_add(&q->st.lat_count, 1);
	if (lat > atomic_load_explicit(&q->st.lat_ns_max, memory_order_relaxed))
		atomic_store_explicit(&q->st.lat_ns_max, lat,
				      memory_order_relaxed);
	if (data) {
		/* success optimisation: with SQ flow control off the last
		 * C2HData may stand for the CapsuleResp (as nvmet does) */
		bool success = q->sqflow_off && !cmd->result;
		uint8_t flags = NVME_TCP_F_DATA_LAST |
				(success ? NVME_TCP_F_DATA_SUCCESS : 0);
		ssize_t pdo = nvme_tcp_build_data(&q->conn, cmd->hdr,
						  sizeof(cmd->hdr),
						  cmd->sqe.common.command_id, 0,
						  0, NULL, cmd->xfer_len,
						  flags);

		cmd->iov[0].iov_base = cmd->hdr;
		cmd->iov[0].iov_len = (size_t)pdo;
		cmd->niov =
			(uint8_t)(1 + nvme_tcp_data_iov(&q->conn, cmd->iov + 1,
							cmd->buf, cmd->xfer_len,
							cmd->ddgst));
		if (success) {
			tx_enqueue_cqe(cmd);
			return;
		}
	}
	cmd_queue_rsp(cmd, status);
	tx_enqueue_cqe(cmd);
}

/* Called by admin.c: complete an outstanding AER with DW0. */
void tgt_queue_complete_aer(struct tgt_ctrl *ctrl, uint16_t cid, uint32_t dw0)
{
	struct tgt_queue *q = ctrl->adminq;
	unsigned i;

	if (!q)
		return;
	for (i = 0; i < q->nr_cmds; i++) {
		struct tgt_cmd *cmd = &q->cmds[i];

		if (cmd->state == CMD_AER &&
		    cmd->sqe.common.command_id == cid) {
			cmd->result = dw0;
			cmd_complete(cmd, NVME_SC_SUCCESS);
			return;
		}
	}
}

/* ---- Command slots --------------------------------------------------------- */

static struct tgt_cmd *cmd_alloc(struct tgt_queue *q)
{
	struct tgt_cmd *cmd;

	if (!q->connected) {
		/* before Connect: one command, the Connect */
		if (q->boot.state != CMD_FREE)
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
	cmd->state = CMD_RX_DATA;
	cmd->dir = 0;
	cmd->stall_logged = false;
	cmd->in_capsule = false;
	cmd->err_logged = false;
	cmd->r2t_sent = false;
	cmd->status = 0;
	cmd->xfer_len = 0;
	cmd->rcvd = 0;
	cmd->ns = NULL;
	cmd->result = 0;
	cmd->step = 0;
	cmd->shutdown_flush = false;
	cmd->niov = 0;
	cmd->tx_next = NULL;
	q->inflight++;
	atomic_store_explicit(&q->st.depth, q->inflight, memory_order_relaxed);
	if (q->inflight >
	    atomic_load_explicit(&q->st.max_depth, memory_order_relaxed))
		atomic_store_explicit(&q->st.max_depth, q->inflight,
				      memory_order_relaxed);
	return cmd;
}

static int cmd_alloc_buf(struct tgt_cmd *cmd, uint32_t len)
{
	cmd->buf = tgt_buf_get(cmd->q->r, len, &cmd->buf_cap);
	return cmd->buf ? 0 : -ENOMEM;
}

/* 0 none, 1 controller to host, 2 host to controller */
static int cmd_dir(const struct tgt_queue *q, const union nvme_command *c)
{
	if (c->common.opcode == nvme_fabrics_command)
		return c->fabrics.fctype == nvme_fabrics_type_connect ? 2 : 0;
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

static uint16_t io_prepare(struct tgt_cmd *cmd)
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

static uint16_t cmd_prepare(struct tgt_cmd *cmd)
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
	if (atomic_load(&q->ctrl->dead))
		return NVME_SC_ABORT_QUEUE;
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
 * The next device request cmd needs, from cmd->step on: read and write
 * are one; Write Zeroes one; Flush one per namespace with a write cache
 * (all of them for NSID FFFFFFFFh or a shutdown); Dataset Management one
 * discard per non-empty range when AD is set. false: nothing (left).
 */
static bool cmd_next_op(struct tgt_cmd *cmd, enum mqblk_op *op, uint64_t *off,
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
		while (cmd->step < s->nr_ns) {
			struct tgt_ns *ns = &s->ns[cmd->step++];

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

static void cmd_finish(struct tgt_cmd *cmd, uint16_t status)
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
	cmd_complete(cmd, status);
}

/* Issue cmd's next device request, or complete it if there is none. */
static void io_issue(struct tgt_cmd *cmd)
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

void tgt_cmd_retry(struct tgt_cmd *cmd)
{
	cmd->q->dev_inflight--;
	if (cmd->q->closing) {
		cmd_free(cmd);
		return;
	}
	io_issue(cmd);
}

void tgt_cmd_dev_done(struct mqblk_rq *rq)
{
	struct tgt_cmd *cmd = rq->private;
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
		stat_add(&q->st.read_bytes, rq->len);
		stat_add(&q->ctrl->smart.read_bytes, rq->len);
		stat_add(&q->ctrl->smart.read_cmds, 1);
	} else if (!status && op == MQBLK_OP_WRITE) {
		stat_add(&q->st.write_bytes, rq->len);
		stat_add(&q->ctrl->smart.write_bytes, rq->len);
		stat_add(&q->ctrl->smart.write_cmds, 1);
	}
	mqblk_rq_put(rq);
	q->dev_inflight--;
	q->r->dev_inflight--;
	if (q->closing) {
		cmd_free(cmd);
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
	io_issue(cmd);
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
		if (s->ns[i].enabled && s->ns[i].vwc)
			return true;
	return false;
}

static uint16_t connect_admin(struct tgt_queue *q, struct tgt_cmd *cmd,
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

static uint16_t connect_io(struct tgt_queue *q, struct tgt_cmd *cmd,
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

static uint16_t do_connect(struct tgt_queue *q, struct tgt_cmd *cmd)
{
	const struct nvmf_connect_command *c = &cmd->sqe.connect;
	struct nvmf_connect_data d;
	uint16_t qid = le16_to_cpu(c->qid);
	uint16_t sqsize = le16_to_cpu(c->sqsize);
	struct tgt_subsys *s;
	unsigned i, nr;
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

	nr = (unsigned)sqsize + 1;
	/* zero-copy: answered commands keep their slots a while longer */
	if (q->zc)
		nr *= 2;
	q->cmds = calloc(nr, sizeof(*q->cmds));
	if (!q->cmds) {
		/* undo: the queue is not the controller's after all */
		tgt_queue_quiesce(q);
		return NVME_SC_INTERNAL;
	}
	for (i = nr; i-- > 0;) {
		q->cmds[i].q = q;
		q->cmds[i].idx = (uint16_t)i;
		q->cmds[i].tx_next = q->free_cmds;
		q->free_cmds = &q->cmds[i];
	}
	q->nr_cmds = nr;
	q->qid = qid;
	atomic_store(&q->st.qid, qid);
	atomic_store(&q->st.cntlid, q->ctrl->cntlid);
	q->sqsize = sqsize;
	q->sqflow_off = c->cattr & NVME_CONNECT_DISABLE_SQFLOW;
	q->sqhd = 1 % ((unsigned)sqsize + 1);
	q->connected = true;
	atomic_store(&q->ctrl->last_ka_ns, now_ns());
	cmd->result = q->ctrl->cntlid;
	if (q->t->verbose && qid)
		tgt_log("ctrl %u: I/O queue %u (depth %u) from %s",
			q->ctrl->cntlid, qid, nr, q->peer);
	return 0;
}

static uint16_t prop_get(struct tgt_queue *q, struct tgt_cmd *cmd)
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
static uint16_t prop_set(struct tgt_queue *q, struct tgt_cmd *cmd)
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
		io_issue(cmd);
		return TGT_STATUS_DEFER;
	}
	if (!NVME_CC_SHN(cc))
		csts &= ~NVME_CSTS_SHST_MASK;
	atomic_store(&ctrl->csts, csts);
	return 0;
}

static void fabrics_exec(struct tgt_cmd *cmd)
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
	default:
		status = prop_set(q, cmd);
		if (status == TGT_STATUS_DEFER)
			return;
		break;
	}
	cmd_complete(cmd, status);
}

/* ---- Execution ----------------------------------------------------------- */

static void admin_exec(struct tgt_cmd *cmd)
{
	struct tgt_queue *q = cmd->q;
	uint32_t result = 0;
	uint16_t status;

	if (cmd->dir == 1 && cmd->xfer_len) {
		if (cmd_alloc_buf(cmd, cmd->xfer_len)) {
			cmd_complete(cmd, NVME_SC_INTERNAL);
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
			cmd_complete(cmd, NVME_SC_INTERNAL);
		}
		return;
	}
	cmd->result = result;
	cmd->err_logged = true;
	cmd_complete(cmd, status);
}

static void cmd_exec(struct tgt_cmd *cmd)
{
	struct tgt_queue *q = cmd->q;

	cmd->state = CMD_EXEC;
	if (cmd->sqe.common.opcode == nvme_fabrics_command) {
		fabrics_exec(cmd);
		return;
	}
	if (!q->qid) {
		admin_exec(cmd);
		return;
	}
	switch (cmd->sqe.common.opcode) {
	case nvme_cmd_read:
		stat_add(&q->st.read_cmds, 1);
		break;
	case nvme_cmd_write:
		stat_add(&q->st.write_cmds, 1);
		break;
	default:
		stat_add(&q->st.other_cmds, 1);
		break;
	}
	if (cmd->dir == 1 && cmd_alloc_buf(cmd, cmd->xfer_len)) {
		cmd_complete(cmd, NVME_SC_INTERNAL);
		return;
	}
	io_issue(cmd);
}

/* ---- Receive ---------------------------------------------------------------- */

static void rx_begin_data(struct tgt_queue *q, struct tgt_cmd *cmd,
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

static void send_r2t(struct tgt_cmd *cmd)
{
	struct tgt_queue *q = cmd->q;
	ssize_t n = nvme_tcp_build_r2t(&q->conn, cmd->hdr, sizeof(cmd->hdr),
				       cmd->sqe.common.command_id, cmd->idx, 0,
				       cmd->xfer_len);

	cmd->state = CMD_R2T;
	stat_add(&q->st.r2ts, 1);
	q->tx_r2ts++;
	cmd->iov[0].iov_base = cmd->hdr;
	cmd->iov[0].iov_len = (size_t)n;
	cmd->niov = 1;
	tx_enqueue(cmd);
}

static void rx_capsule(struct tgt_queue *q, const uint8_t *hdr)
{
	const struct nvme_tcp_rx_pdu *p = &q->pdu;
	struct tgt_cmd *cmd = cmd_alloc(q);
	const struct nvme_sgl_desc *sgl;
	uint32_t len, limit;
	uint16_t status = 0;

	if (!cmd) {
		/* more commands than the queue has entries */
		tgt_log("queue %s qid %u: command beyond the queue's %u "
			"entries",
			q->peer, q->qid, q->connected ? q->nr_cmds : 1);
		queue_fatal(q, NVME_TCP_FES_PDU_SEQ_ERR, 0, hdr, p->hdr_len);
		return;
	}
	memcpy(&cmd->sqe, hdr + sizeof(struct nvme_tcp_hdr), sizeof(cmd->sqe));
	cmd->start_ns = now_ns();
	stat_add(&q->st.cmds, 1);
	if (q->connected) {
		q->sqhd = (uint16_t)((q->sqhd + 1u) % (q->sqsize + 1u));
		atomic_store_explicit(&q->ctrl->last_ka_ns, cmd->start_ns,
				      memory_order_relaxed);
	}
	cmd->dir = (uint8_t)cmd_dir(q, &cmd->sqe);
	sgl = &cmd->sqe.common.dptr.sgl;
	len = le32_to_cpu(sgl->length);
	limit = q->qid ? q->ctrl->port->inline_data : TGT_ADMIN_INLINE_DATA;
	if ((cmd->sqe.common.flags & 0xc0) != NVME_CMD_SGL_METABUF) {
		status = NVME_SC_INVALID_FIELD | NVME_SC_DNR; /* PRPs */
	} else if (p->data_len) {
		if (sgl->type != NVME_SGL_TCP_INCAPSULE || cmd->dir != 2)
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
		else if (!cmd->dir)
			status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		else if (len > TGT_MAX_XFER)
			status = NVME_SC_INVALID_FIELD | NVME_SC_DNR; /* MDTS */
	}
	if (!status)
		cmd->xfer_len = cmd->dir ? len : 0;
	if (!status)
		status = cmd_prepare(cmd);
	cmd->status = status;
	if (p->data_len) {
		cmd->in_capsule = true;
		if (!status && cmd_alloc_buf(cmd, p->data_len))
			cmd->status = status = NVME_SC_INTERNAL;
		rx_begin_data(q, cmd, status ? NULL : cmd->buf);
		return;
	}
	if (status) {
		cmd_complete(cmd, status);
		return;
	}
	if (cmd->dir == 2 && cmd->xfer_len) {
		if (cmd_alloc_buf(cmd, cmd->xfer_len)) {
			cmd_complete(cmd, NVME_SC_INTERNAL);
			return;
		}
		send_r2t(cmd);
		return;
	}
	cmd_exec(cmd);
}

static void rx_h2c(struct tgt_queue *q, const uint8_t *hdr)
{
	const struct nvme_tcp_rx_pdu *p = &q->pdu;
	uint16_t cid, ttag;
	uint32_t off, len;
	struct tgt_cmd *cmd;
	bool last = p->flags & NVME_TCP_F_DATA_LAST;

	memcpy(&cid, hdr + 8, 2);
	ttag = nvme_get_le16(hdr + 10);
	off = nvme_get_le32(hdr + 12);
	len = nvme_get_le32(hdr + 16);
	/* the transfer tag is the slot (the Connect's own before Connect) */
	cmd = !q->connected	? (ttag ? NULL : &q->boot) :
	      ttag < q->nr_cmds ? &q->cmds[ttag] :
				  NULL;
	if (!cmd || cmd->state != CMD_R2T) {
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
	if (cid != cmd->sqe.common.command_id) {
		queue_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR, 8, hdr,
			    p->hdr_len);
		return;
	}
	if (nvme_tcp_check_data_range(off, len, cmd->rcvd, cmd->xfer_len)) {
		queue_fatal(q, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0, hdr,
			    p->hdr_len);
		return;
	}
	if (last != (off + len == cmd->xfer_len)) {
		queue_fatal(q, NVME_TCP_FES_PDU_SEQ_ERR, 0, hdr, p->hdr_len);
		return;
	}
	rx_begin_data(q, cmd, (uint8_t *)cmd->buf + off);
}

static void rx_icreq(struct tgt_queue *q, const uint8_t *hdr)
{
	uint8_t digest = hdr[11] &
			 (NVME_TCP_HDGST_ENABLE | NVME_TCP_DDGST_ENABLE);
	ssize_t n;

	memcpy(q->icreq, hdr, sizeof(q->icreq));
	q->maxr2t = nvme_get_le32(hdr + 12);
	n = nvme_tcp_build_icresp(q->ctl, sizeof(q->ctl), 0, digest,
				  TGT_MAXH2CDATA);
	if (n <= 0 || nvme_tcp_conn_establish(&q->conn, q->icreq, q->ctl)) {
		tgt_queue_quiesce(q);
		return;
	}
	q->ctl_len = (uint32_t)n;
	q->ctl_off = 0;
	tgt_reactor_want_flush(q->r, q);
}

/* The data (and digest) of the current PDU have all arrived. */
static void rx_data_done(struct tgt_queue *q, bool dgst_ok)
{
	struct tgt_cmd *cmd = q->rx_cmd;

	q->rx_state = RX_HDR;
	q->rx_cmd = NULL;
	if (!dgst_ok) {
		stat_add(&q->st.ddgst_errors, 1);
		tgt_log("queue %s qid %u: data digest error (cid %u)", q->peer,
			q->qid, cmd->sqe.common.command_id);
		if (!cmd->status)
			cmd->status = NVME_SC_TRANSIENT_TR_ERR;
	}
	if (cmd->in_capsule) {
		if (cmd->status)
			cmd_complete(cmd, cmd->status);
		else
			cmd_exec(cmd);
		return;
	}
	cmd->rcvd += q->rx_data_len;
	if (cmd->rcvd < cmd->xfer_len)
		return;
	if (cmd->status)
		cmd_complete(cmd, cmd->status);
	else
		cmd_exec(cmd);
}

static void rx_data_end(struct tgt_queue *q)
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
static bool rx_process(struct tgt_queue *q)
{
	while (!q->closing && !q->close_after_ctl) {
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
					tgt_queue_quiesce(q);
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
					q->peer, q->qid, nvme_get_le16(b + 8));
				tgt_queue_quiesce(q);
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

static void queue_rx(struct tgt_queue *q)
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
			if (q->t->verbose || (q->ctrl && !q->qid))
				tgt_log("queue %s (ctrl %u qid %u): closed by "
					"the host",
					q->peer, q->ctrl ? q->ctrl->cntlid : 0,
					q->qid);
			tgt_queue_quiesce(q);
			return;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		if (errno == EINTR)
			continue;
		tgt_log("queue %s: receive failed: %s", q->peer,
			strerror(errno));
		tgt_queue_quiesce(q);
		return;
	}
}

void tgt_queue_stop(struct tgt_queue *q)
{
	struct epoll_event ev = { .events = q->want_out ? EPOLLOUT : 0,
				  .data.ptr = q };

	if (q->closing || q->stopping)
		return;
	q->stopping = true;
	epoll_ctl(q->r->epfd, EPOLL_CTL_MOD, q->fd, &ev);
}

void tgt_queue_event(struct tgt_queue *q, uint32_t events)
{
	if (q->closing)
		return;
	if (q->stopping)
		events &= ~(uint32_t)EPOLLIN;
	/* zero-copy notifications raise EPOLLERR too. Unsignalled, they
	 * are read here, and while commands keep coming (EPOLLIN) only
	 * once TGT_ZC_BATCH sends wait or slots run out: the kernel merges
	 * the unread ones, so one read covers many sends. Alone, EPOLLERR
	 * is answered at once (a sleeping reactor would spin on it). */
	if (q->zc && (events & EPOLLERR) && !(events & EPOLLHUP)) {
		bool later = q->t->zerocopy == TGT_ZC_UNSIGNALLED &&
			     (events & EPOLLIN) && q->zc_nr < TGT_ZC_BATCH &&
			     q->free_cmds;

		if (later || zc_reap(q))
			events &= ~(uint32_t)EPOLLERR;
	}
	if (events & (EPOLLERR | EPOLLHUP)) {
		if (!(events & EPOLLIN)) {
			tgt_queue_quiesce(q);
			return;
		}
	}
	if (events & EPOLLOUT)
		tgt_queue_flush(q);
	if ((events & EPOLLIN) && !q->close_after_ctl)
		queue_rx(q);
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
		if (!q->dev_inflight && !q->tx_head && !q->ctl_len)
			tgt_queue_quiesce(q);
		return;
	}
	if (!ctrl || q->closing)
		return;
	if (!q->qid && ctrl->kato_ms && !atomic_load(&ctrl->dead)) {
		uint64_t last = atomic_load(&ctrl->last_ka_ns);

		if (now > last &&
		    now - last > (uint64_t)ctrl->kato_ms * 1000000) {
			tgt_log("ctrl %u (host %s, %s): keep-alive timeout "
				"(%u ms) expired: tearing the controller down",
				ctrl->cntlid, ctrl->hostnqn, ctrl->subsys->nqn,
				ctrl->kato_ms);
			atomic_store(&ctrl->dead, true);
		}
	}
	if (atomic_load(&ctrl->dead)) {
		if (q->t->verbose)
			tgt_log("ctrl %u qid %u: controller gone, closing",
				ctrl->cntlid, q->qid);
		tgt_queue_quiesce(q);
		return;
	}
	if (!q->t->stall_ms)
		return;
	for (i = 0; i < q->nr_cmds; i++) {
		struct tgt_cmd *cmd = &q->cmds[i];

		if (cmd->state == CMD_FREE || cmd->state == CMD_AER ||
		    cmd->stall_logged)
			continue;
		if (now - cmd->start_ns < (uint64_t)q->t->stall_ms * 1000000)
			continue;
		cmd->stall_logged = true;
		stat_add(&q->st.stalls, 1);
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
