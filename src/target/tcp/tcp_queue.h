/* SPDX-License-Identifier: MIT */
/*
 * What the TCP transport's files share: a queue (one connection) and its
 * command slots. tcp.c: queue life, receive, ports, the ops table; tx.c:
 * transmit, MSG_ZEROCOPY, responses, fatal errors.
 */
#ifndef MQBLK_TARGET_TCP_TCP_QUEUE_H
#define MQBLK_TARGET_TCP_TCP_QUEUE_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "nvme/ktls.h"
#include "nvme/tcp.h"
#include "nvme/tls_ssl.h"
#include "target/core/nvmet.h"

#define TGT_RXBUF 65536 /* a queue's receive buffer */

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

/* One NVMe/TCP connection: the core's queue and the socket's state. */
struct tcp_queue {
	struct tgt_queue sq;
	int fd;
	bool want_out; /* EPOLLOUT armed */
	/* reads stopped at TGT_QUEUE_BUF_CAP (sq.buf_held) and may go on:
	 * the next flush does (not from inside a slot's release) */
	bool rx_kick;
	/* TLS (a TLS port): the handshake comes before ICReq, then every
	 * byte goes through ssl (tcp_tls.c); no MSG_ZEROCOPY then */
	uint8_t tls_state; /* TCP_TLS_* */
	SSL *ssl;
	struct nvme_tls_wbuf *tls_w; /* a record the socket pushed back */
	/* kTLS (ktls.h): the kernel has the records since the handshake,
	 * ssl is gone and the socket is read with nvme_ktls_recv */
	bool ktls;
	struct nvme_ktls_rx ktls_rx;

	struct nvme_tcp_conn conn;
	uint8_t icreq[128];
	uint32_t maxr2t;

	struct tcp_cmd *cmds; /* sqsize + 1 (+ slack) slots */
	unsigned nr_cmds;
	struct tcp_cmd *free_cmds; /* through tx_next while free */
	struct tcp_cmd boot; /* the Connect command's slot */

	/* receive */
	struct nvme_tcp_rx_state rx; /* the PDU being received */
	struct tcp_cmd *rx_cmd; /* data destination owner */

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

/* A send at least this big goes zero-copy (the kernel's advice: below
 * about 10 KB, page pinning and the notification cost more than a copy) */
#define TGT_ZC_MIN 16384
/* unsignalled: commands waiting on notifications before they are read
 * even while the queue is busy */
#define TGT_ZC_BATCH 32

static inline struct tcp_queue *tcp_q(struct tgt_queue *sq)
{
	return (struct tcp_queue *)((char *)sq -
				    offsetof(struct tcp_queue, sq));
}

static inline struct tcp_cmd *tcp_cmd(struct tgt_req *req)
{
	return (struct tcp_cmd *)((char *)req - offsetof(struct tcp_cmd, req));
}

static inline struct tcp_queue *cmd_tq(struct tcp_cmd *cmd)
{
	return tcp_q(cmd->req.q);
}

/* tx.c */
/* Queue cmd's PDU train (an R2T, or its answer) to send. */
void tcp_tx_enqueue(struct tcp_cmd *cmd);
void tcp_queue_flush(struct tgt_queue *sq);
bool tcp_queue_hold(struct tgt_queue *sq, uint64_t now, uint64_t *deadline_ns);
void tcp_queue_response(struct tgt_req *req, uint16_t status);
/* C2HTermReq with fes/fei and the offending header, then close. */
void tcp_queue_fatal(struct tcp_queue *q, uint16_t fes, uint32_t fei,
		     const void *hdr, size_t hdr_len);
/* MSG_ZEROCOPY notifications: read them (how many), or wait for some
 * when every slot waits on one. */
unsigned tcp_zc_reap(struct tcp_queue *q);
void tcp_zc_wait_some(struct tcp_queue *q);

/* tcp_tls.c */
enum {
	TCP_TLS_OFF, /* plaintext NVMe/TCP */
	TCP_TLS_PEEK, /* a TLS port: the first byte decides */
	TCP_TLS_HANDSHAKE,
	TCP_TLS_UP,
};
/* Run the queue's TLS start (first byte, handshake): 1 when NVMe/TCP may
 * go on (TLS up, or plaintext allowed), 0 to wait for the socket, -1 to
 * close (logged). */
int tcp_tls_start(struct tcp_queue *q);
void tcp_tls_free(struct tcp_queue *q);
/* close_notify (kTLS or OpenSSL) before the socket is shut down */
void tcp_tls_close_notify(struct tcp_queue *q);
/* EPOLLOUT on or off (EPOLLIN unless stopping or reads are held) */
void tcp_tls_want_out(struct tcp_queue *q, bool on);

/* The queue's socket I/O, plaintext or through TLS: recv/sendmsg's
 * conventions (-1 with errno, EAGAIN to wait). */
static inline ssize_t tcp_io_recv(struct tcp_queue *q, void *buf, size_t len)
{
	if (q->ssl)
		return nvme_tls_read(q->ssl, buf, len);
	if (q->ktls)
		return nvme_ktls_recv(q->fd, &q->ktls_rx, buf, len);
	return recv(q->fd, buf, len, MSG_DONTWAIT);
}

static inline ssize_t tcp_io_send(struct tcp_queue *q, const struct iovec *iov,
				  unsigned niov, int zc_flag)
{
	struct msghdr mh = { .msg_iov = (struct iovec *)iov,
			     .msg_iovlen = niov };

	if (q->ssl)
		return nvme_tls_writev(q->ssl, q->tls_w, iov, niov);
	return sendmsg(q->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL | zc_flag);
}

/* tcp.c */
void tcp_cmd_free(struct tcp_cmd *cmd);
/* Watch for input unless reads are stopped, for output if want_out. */
void tcp_queue_arm(struct tcp_queue *q);
/* rx_kick: read again (the socket, and what rx already holds). */
void tcp_queue_rx_resume(struct tcp_queue *q);
void tcp_queue_quiesce(struct tgt_queue *sq);

#endif
