/* SPDX-License-Identifier: MIT */
/*
 * What tcp.c (queues: one NVMe/TCP connection each) and reactor.c
 * (threads, listeners, device queues, buffers) share. Not for admin.c or
 * config.c, which see only target.h.
 */
#ifndef MQBLK_TARGET_INTERNAL_H
#define MQBLK_TARGET_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/uio.h>

#include "nvme/tcp.h"
#include "target.h"

struct mqblk_rq;
struct tgt_reactor;
struct tgt_ctl_job;

#define TGT_BUF_CLASSES 9 /* 4 KiB .. 1 MiB */
#define TGT_BUF_SLAB 262144 /* buffers are carved from slabs this big */
#define TGT_RXBUF 65536
#define TGT_TICK_MS 100

enum tgt_cmd_state {
	CMD_FREE = 0,
	CMD_RX_DATA, /* in-capsule or H2CData data arriving */
	CMD_R2T, /* R2T queued or sent, waiting for H2CData */
	CMD_EXEC, /* at the device (or waiting for a device tag) */
	CMD_TX, /* response queued or being sent */
	CMD_AER, /* an outstanding Asynchronous Event Request */
	CMD_ZC_WAIT, /* answered; a MSG_ZEROCOPY send still refers to it */
};

/* One command slot of a queue. */
struct tgt_cmd {
	struct tgt_queue *q;
	union nvme_command sqe;
	uint16_t idx; /* slot: the R2T's transfer tag */
	uint8_t state; /* enum tgt_cmd_state */
	uint8_t dir; /* 0 none, 1 to host (C2H), 2 from host (H2C) */
	bool stall_logged;
	bool in_capsule;
	bool err_logged; /* admin.c put it in the error log already */
	bool r2t_sent; /* its R2T is on the wire: H2CData may come */
	uint16_t status; /* NVMe status so far (data digest errors, ...) */
	uint32_t xfer_len; /* SGL length */
	uint32_t rcvd; /* H2C bytes received so far */
	uint32_t buf_cap;
	void *buf;
	struct tgt_ns *ns;
	uint64_t start_ns;
	uint64_t result; /* CQE DW0 (and DW1: Property Get of CAP) */
	uint32_t step; /* DSM range / broadcast flush namespace next */
	bool shutdown_flush; /* Property Set CC.SHN: CSTS when done */

	/* transmit: one PDU train at a time */
	struct tgt_cmd *tx_next;
	struct iovec iov[4];
	uint8_t niov;
	uint8_t hdr[128]; /* R2T or C2HData header (+digest, +padding) */
	uint8_t rsp[32]; /* CapsuleResp (+digest) */
	uint8_t ddgst[4];
	struct tgt_cmd *wait_next; /* reactor's wait-for-tag list */
	bool zc_used; /* its PDUs went out in a MSG_ZEROCOPY send */
	uint32_t zc_seq; /* the last such send's number */
	struct tgt_cmd *zc_link; /* the queue's CMD_ZC_WAIT FIFO */
};

/* Per-queue counters (written by the owning reactor, read by stats). */
struct tgt_queue_stats {
	_Atomic uint64_t cmds, read_cmds, write_cmds, other_cmds;
	_Atomic uint64_t read_bytes, write_bytes;
	_Atomic uint64_t errors, stalls, ddgst_errors;
	_Atomic uint64_t r2ts; /* R2T PDUs sent (writes past inline_data) */
	/* the controller and qid once connected, for the stats reader
	 * (q->ctrl and q->qid are the reactor's own) */
	_Atomic uint16_t cntlid, qid;
	_Atomic uint64_t sends; /* sendmsg calls that sent PDUs */
	_Atomic uint64_t cqes; /* completions sent (CapsuleResp, or a
				* C2HData standing for one) */
	_Atomic uint64_t held; /* flushes put off by coalescing */
	_Atomic uint64_t zc_sends; /* sendmsg calls with MSG_ZEROCOPY */
	_Atomic uint64_t zc_polls; /* passes reading the error queue */
	_Atomic uint64_t zc_reads; /* notifications read (recvmsg calls on
				    * the error queue that returned one) */
	_Atomic uint64_t zc_copied; /* sends the kernel copied after all
				     * (loopback always does) */
	_Atomic uint64_t lat_ns_sum, lat_count, lat_ns_max;
	_Atomic uint32_t depth, max_depth;
};

enum tgt_queue_rx_state {
	RX_HDR = 0, /* collecting a PDU header */
	RX_PAD, /* skipping to the PDU's data (PDO) */
	RX_DATA, /* data into cmd->buf (or discarded) */
	RX_DDGST, /* the data digest */
};

struct tgt_queue {
	struct tgt_reactor *r;
	struct tgt *t;
	struct tgt_port *port;
	int fd;
	char peer[64];
	struct tgt_queue *next, *prev; /* reactor's queues */
	bool closing; /* no more reading; freed when nothing is in flight */
	bool stopping; /* target shutdown: finish what is in flight, close */
	bool dead_logged;
	bool want_out; /* EPOLLOUT armed */
	bool tx_queued; /* on the reactor's flush list */
	struct tgt_queue *flush_next;

	struct nvme_tcp_conn conn;
	uint8_t icreq[128];
	uint32_t maxr2t;

	/* after Connect */
	struct tgt_ctrl *ctrl;
	uint16_t qid;
	uint16_t sqsize; /* 0's based */
	uint16_t sqhd;
	bool sqflow_off;
	bool connected;
	struct tgt_cmd *cmds; /* sqsize + 1 (+ slack) slots */
	unsigned nr_cmds;
	struct tgt_cmd *free_cmds; /* through tx_next while free */
	struct tgt_cmd boot; /* the Connect command's slot */
	unsigned inflight; /* slots in use */
	unsigned dev_inflight; /* at the device */

	/* receive */
	uint8_t *rxbuf;
	uint32_t rx_start, rx_end;
	uint8_t rx_state;
	struct nvme_tcp_rx_pdu pdu;
	struct tgt_cmd *rx_cmd; /* data destination owner */
	uint8_t *rx_dst; /* NULL: discard */
	uint32_t rx_left; /* bytes of the current state left */
	uint32_t rx_data_len; /* this PDU's data length */
	uint8_t *rx_data_start;
	uint8_t rx_dgst[4];
	uint32_t rx_dgst_have;

	/* transmit: a FIFO of commands whose PDUs are queued */
	struct tgt_cmd *tx_head, *tx_tail;
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
	struct tgt_cmd *zc_head, *zc_tail;
	unsigned zc_nr;
	struct {
		uint32_t lo, hi;
	} zc_early[16];
	unsigned zc_nr_early;
	uint8_t ctl[160]; /* ICResp or TermReq */
	uint32_t ctl_len, ctl_off;
	bool close_after_ctl; /* TermReq: close once sent */

	struct tgt_queue_stats st;
};

/* One reactor thread. */
struct tgt_reactor {
	struct tgt *t;
	unsigned idx;
	pthread_t thread;
	int epfd;
	int wake_fd; /* eventfd: new connections, stop */
	_Atomic bool stop;
	_Atomic bool unclean; /* ended with queues still at a device */

	pthread_mutex_t lock; /* inbox, ctl_job and the queue list (stats
			       * reads it) */
	struct tgt_ctl_job *ctl_job; /* the control thread's, to run */
	int *inbox; /* accepted fds, with their port */
	struct tgt_port **inbox_port;
	unsigned nr_inbox, inbox_cap;
	struct tgt_queue *queues;
	unsigned nr_queues;

	struct tgt_queue *flush_list;
	struct tgt_queue *held_list; /* coalescing: flushes put off */
	uint64_t held_deadline_ns; /* the earliest of theirs */
	struct tgt_cmd *wait_head, *wait_tail; /* waiting for a device tag */
	unsigned dev_inflight;
	void *bufs[TGT_BUF_CLASSES]; /* free lists through the first word */
	void **slabs; /* what the buffers were carved from */
	unsigned nr_slabs, slab_cap;
	uint64_t next_tick_ns;
};

/* tcp.c */
struct tgt_queue *tgt_queue_create(struct tgt_reactor *r, int fd,
				   struct tgt_port *port);
void tgt_queue_event(struct tgt_queue *q, uint32_t events);
void tgt_queue_flush(struct tgt_queue *q);
/* Coalescing: true when q's flush may wait (until *deadline_ns). */
bool tgt_queue_hold(struct tgt_queue *q, uint64_t now, uint64_t *deadline_ns);
void tgt_queue_tick(struct tgt_queue *q, uint64_t now);
/* Close the connection now; the queue is freed once idle. */
void tgt_queue_quiesce(struct tgt_queue *q);
/* Target shutdown: read no more commands, answer those in flight, then
 * close (tgt_queue_tick does). */
void tgt_queue_stop(struct tgt_queue *q);
bool tgt_queue_idle(const struct tgt_queue *q);
void tgt_queue_destroy(struct tgt_queue *q);
void tgt_cmd_dev_done(struct mqblk_rq *rq);
void tgt_cmd_retry(struct tgt_cmd *cmd);

/* reactor.c */
void *tgt_buf_get(struct tgt_reactor *r, uint32_t len, uint32_t *cap);
void tgt_buf_put(struct tgt_reactor *r, void *buf, uint32_t cap);
/* A buffer the kernel may still read (a zero-copy send on a closed
 * socket): never handed out again; a slab's stays until the reactor ends. */
void tgt_buf_abandon(struct tgt_reactor *r, void *buf, uint32_t cap);
/* This reactor's queue on ns's device (opened on first use); NULL with
 * a logged reason if it cannot be opened. */
struct mqblk_queue *tgt_ns_queue(struct tgt_reactor *r, struct tgt_ns *ns);
void tgt_reactor_wait_tag(struct tgt_reactor *r, struct tgt_cmd *cmd);
void tgt_reactor_want_flush(struct tgt_reactor *r, struct tgt_queue *q);
void tgt_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * One reactor on the calling thread, for tests and fuzzers: opens t's
 * namespaces; queues are added from connected sockets; each step runs the
 * reactor loop once (waiting at most timeout_ms). stop closes every queue
 * and the devices. One at a time, and not with tgt_run.
 */
struct tgt_reactor *tgt_local_start(struct tgt *t);
void tgt_local_add(struct tgt_reactor *r, int fd, struct tgt_port *port);
void tgt_local_step(struct tgt_reactor *r, int timeout_ms);
unsigned tgt_local_nr_queues(const struct tgt_reactor *r);
void tgt_local_stop(struct tgt_reactor *r);

#endif
