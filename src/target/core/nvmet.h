/* SPDX-License-Identifier: MIT */
/*
 * The target's fabrics core and what a transport sees of it, in the
 * manner of the kernel's nvmet (struct nvmet_fabrics_ops) and SPDK's
 * lib/nvmf (spdk_nvmf_transport_ops).
 *
 * The core owns what does not depend on how capsules travel: controllers
 * (Connect, Property Get/Set, CC/CSTS, shutdown with flush, keep-alive),
 * the admin and discovery commands, ANA, I/O against mqblk devices, the
 * reactor threads with their buffer pools and device queues, per-queue
 * counters and stall reports. A transport owns its connections: it moves
 * a command's capsule and data in and out and calls the core at the
 * points below. It embeds the core's queue (struct tgt_queue) in its own
 * and the core's request (struct tgt_req) in its command slot; the core
 * never includes socket or verbs headers.
 *
 * A request's life, as the transport drives it:
 *   slot taken    -> tgt_req_init (capsule copied in: counts, SQ head,
 *                    keep-alive, the data direction)
 *   SGL checked   -> tgt_req_prepare (state, namespace, ANA, range)
 *   data fetched  -> (transport: in-capsule, R2T/H2CData, RDMA READ)
 *   run           -> tgt_req_exec (fabrics, admin or device I/O), or
 *                    tgt_req_complete with an error status
 *   answered      <- ops->queue_response (C2H data and the CQE); the
 *                    transport frees the slot once both are sent
 */
#ifndef MQBLK_TARGET_CORE_NVMET_H
#define MQBLK_TARGET_CORE_NVMET_H

#include <stdatomic.h>
#include <stdint.h>

#include "target/target.h"

struct mqblk_rq;
struct tgt_reactor;
struct tgt_ctl_job;

#define TGT_BUF_CLASSES 9 /* 4 KiB .. 1 MiB */
#define TGT_BUF_SLAB 262144 /* buffers are carved from slabs this big */
#define TGT_TICK_MS 100
/* A reactor with I/O at a device polls it; once TGT_DEV_SPIN_NS pass with
 * nothing completing (a disk, not memory or a fast SSD) it sleeps in
 * naps of TGT_DEV_NAP_NS between polls instead: a spinning reactor is
 * pinned to its CPU, and there it starves every other thread pinned to
 * that CPU for as long as the device takes. --busy-poll always spins. */
#define TGT_DEV_SPIN_NS (200 * 1000ull)
#define TGT_DEV_NAP_NS (50 * 1000ull)
/* How long the admin queue of a controller its keep-alive timer tore
 * down stays open for a shutdown: the Linux host's admin timeout (a
 * Property Set it sends later it has given up on anyway) */
#define TGT_KA_SHUTDOWN_GRACE_MS 60000

enum tgt_req_state {
	CMD_FREE = 0,
	CMD_RX_DATA, /* in-capsule or host data arriving */
	CMD_R2T, /* asked the host for its data, waiting for it */
	CMD_EXEC, /* at the device (or waiting for a device tag) */
	CMD_TX, /* response queued or being sent */
	CMD_AER, /* an outstanding Asynchronous Event Request */
	CMD_ZC_WAIT, /* answered; the transport still refers to its data */
};

/* The core's part of a command slot (a transport's embeds it). */
struct tgt_req {
	struct tgt_queue *q;
	union nvme_command sqe;
	uint8_t state; /* enum tgt_req_state */
	uint8_t dir; /* 0 none, 1 to host (C2H), 2 from host (H2C) */
	bool stall_logged;
	bool err_logged; /* admin_cmd.c put it in the error log already */
	uint16_t status; /* NVMe status so far (data digest errors, ...) */
	uint32_t xfer_len; /* SGL length */
	uint32_t buf_cap;
	void *buf;
	bool buf_counted; /* in q->buf_bytes (data for the host) */
	struct tgt_ns *ns;
	/* the namespace's counters on this reactor: set when an I/O
	 * command names one namespace (not a broadcast Flush) */
	struct tgt_ns_stats *nst;
	uint64_t start_ns;
	uint64_t result; /* CQE DW0 (and DW1: Property Get of CAP) */
	uint32_t step; /* DSM range next / broadcast flush: last NSID done */
	bool shutdown_flush; /* Property Set CC.SHN: CSTS when done */
	struct tgt_req *wait_next; /* reactor's wait-for-tag list */
};

/* Per-queue counters (written by the owning reactor, read by stats).
 * The transport counters are zero where a transport has no such thing. */
struct tgt_queue_stats {
	_Atomic uint64_t cmds, read_cmds, write_cmds, other_cmds;
	_Atomic uint64_t read_bytes, write_bytes;
	_Atomic uint64_t errors, stalls, ddgst_errors;
	_Atomic uint64_t r2ts; /* R2T PDUs sent (writes past inline_data) */
	_Atomic uint64_t buf_holds; /* reads stopped at TGT_QUEUE_BUF_CAP */
	/* the controller and qid once connected, for the stats reader
	 * (q->ctrl and q->qid are the reactor's own) */
	_Atomic uint16_t cntlid, qid;
	/* the controller, for the stats lock's holder: it lives while the
	 * queue is on its reactor's list (the queue holds a reference) */
	struct tgt_ctrl *_Atomic ctrl;
	_Atomic uint64_t sends; /* send calls that sent PDUs */
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
	/* RDMA (zero on TCP): work requests and their completions */
	struct tgt_rdma_stats {
		_Atomic uint64_t recvs_posted, recvs; /* capsule receives */
		_Atomic uint64_t sends, signalled; /* SENDs, signalled */
		_Atomic uint64_t invs; /* SEND_WITH_INV among them */
		_Atomic uint64_t cqes; /* work completions polled */
		_Atomic uint64_t events; /* completion channel wake-ups */
		_Atomic uint64_t mod_timers; /* software moderation expiries */
		_Atomic uint64_t reads, read_bytes; /* RDMA READ (host data) */
		_Atomic uint64_t writes, write_bytes; /* RDMA WRITE */
		_Atomic uint64_t backlog; /* capsules that waited for a slot */
	} rdma;
};

/* The core's part of a queue (a transport's embeds it). */
struct tgt_queue {
	const struct tgt_transport_ops *ops;
	struct tgt_reactor *r;
	struct tgt *t;
	struct tgt_port *port;
	char peer[64];
	struct tgt_queue *next, *prev; /* reactor's queues */
	bool closing; /* no more reading; freed when nothing is in flight */
	bool stopping; /* target shutdown: finish what is in flight, close */
	bool tx_queued; /* on the reactor's flush list */
	struct tgt_queue *flush_next;

	/* after Connect */
	struct tgt_ctrl *ctrl;
	uint16_t qid;
	uint16_t sqsize; /* 0's based */
	uint16_t sqhd;
	bool sqflow_off;
	bool connected;
	/* DH-HMAC-CHAP (core/auth.c): set at Connect when the host has a
	 * key; until it succeeds only Authentication Send/Receive run */
	struct tgt_auth *auth;
	/* TLS (the TCP transport's handshake): the NQNs its PSK identity
	 * named; Connect must name the same */
	bool tls;
	char tls_hostnqn[TGT_NQN_MAX + 1];
	char tls_subnqn[TGT_NQN_MAX + 1];
	/* the transport's command slots, for the core to walk (stalls,
	 * AERs): nr_reqs of them, req_stride bytes apart from reqs */
	struct tgt_req *reqs;
	size_t req_stride;
	unsigned nr_reqs;
	unsigned inflight; /* slots in use */
	uint64_t born_ns; /* accepted (the Connect timeout runs from it) */
	uint64_t buf_bytes; /* buffers of data for the host its commands
			     * hold (reads, and admin data) */
	/* the transport stopped reading at TGT_QUEUE_BUF_CAP: its
	 * queue_buf_low is called once buf_bytes is below half of it */
	bool buf_held;
	unsigned dev_inflight; /* at the device */

	struct tgt_queue_stats st;
};

static inline struct tgt_req *tgt_queue_req(const struct tgt_queue *q,
					    unsigned i)
{
	return (struct tgt_req *)((char *)q->reqs + (size_t)i * q->req_stride);
}

/*
 * A transport. Every op runs on the queue's (or the port's) reactor
 * thread unless said otherwise.
 */
struct tgt_transport_ops {
	const char *name; /* "tcp" */
	uint8_t trtype; /* NVMF_TRTYPE_* */

	/* A listening endpoint for p (main thread): an fd reactor 0 waits
	 * on, or -1 (logged, errno set). */
	int (*port_open)(struct tgt_port *p);
	/* p's fd is readable (reactor 0): take what connects and hand
	 * each to a reactor with tgt_reactor_hand_over(). */
	void (*port_accept)(struct tgt_port *p);
	void (*port_close)(struct tgt_port *p, int fd);
	/* A connection handed over and then refused (port down, stop). */
	void (*conn_drop)(intptr_t conn);

	/* A queue for conn on reactor r, watched by r's epoll (data.ptr
	 * the queue); NULL if it cannot be had (conn dropped). */
	struct tgt_queue *(*queue_create)(struct tgt_reactor *r, intptr_t conn,
					  struct tgt_port *port);
	/* Connect accepted: slots for depth commands. -ENOMEM fails it. */
	int (*queue_connected)(struct tgt_queue *q, unsigned depth);
	void (*queue_event)(struct tgt_queue *q, uint32_t events);
	/* Send what is queued (the reactor's flush list). */
	void (*queue_flush)(struct tgt_queue *q);
	/* --busy-poll: look for completions on every reactor pass instead
	 * of waiting for an event (optional: TCP's sockets need none) */
	void (*queue_poll)(struct tgt_queue *q);
	/* q->buf_held, and its commands' buffers are below half of
	 * TGT_QUEUE_BUF_CAP: read again (required if the transport sets
	 * buf_held; it clears it) */
	void (*queue_buf_low)(struct tgt_queue *q);
	/* Coalescing: may q's flush wait (until *deadline_ns)? optional */
	bool (*queue_hold)(struct tgt_queue *q, uint64_t now,
			   uint64_t *deadline_ns);
	/* Shutdown: nothing left to send (answers, control PDUs)? */
	bool (*queue_drained)(const struct tgt_queue *q);
	/* Stop reading: the host sees the connection close. */
	void (*queue_quiesce)(struct tgt_queue *q);
	/* Target shutdown: read no more commands, answer those in flight. */
	void (*queue_stop)(struct tgt_queue *q);
	void (*queue_destroy)(struct tgt_queue *q);

	/* Send req's answer: its data to the host first if it has any (a
	 * successful read), then the completion (status). */
	void (*queue_response)(struct tgt_req *req, uint16_t status);
	/* Done with req without an answer (its queue is closing). */
	void (*req_free)(struct tgt_req *req);

	/* Identify Controller's IOCCSZ/ICDOFF and the discovery log entry's
	 * transport fields are the transport identity's (below). */
	const struct tgt_transport_id *id;
};

/*
 * What a transport says of itself in Identify and in the discovery log:
 * plain data and a filler with no dependencies, so the admin commands
 * (and their unit test) need no transport code.
 */
struct tgt_transport_id {
	const char *name;
	uint8_t trtype;
	uint8_t treq; /* discovery entry TREQ */
	/* Identify's MDTS (2^mdts pages of 4 KiB per command): what the
	 * transport moves in one command (nvmet's get_mdts) */
	uint8_t mdts;
	/* Identify's SGLS has Keyed SGL Data Block descriptors (RDMA) */
	bool keyed_sgls;
	/* the discovery entry's TSAS for a port */
	void (*fill_tsas)(const struct tgt_port *p,
			  struct nvmf_disc_log_entry *e);
};

/* The transport a port uses (trtype 0: TCP, the default), or NULL. */
const struct tgt_transport_id *tgt_transport_id(uint8_t trtype);
const struct tgt_transport_ops *tgt_transport_ops(uint8_t trtype);

/* ---- Requests (core/req.c) ------------------------------------------- */

/* A slot just taken, its SQE copied in: count it, move the SQ head,
 * note the keep-alive, set req->dir. */
void tgt_req_init(struct tgt_req *req, struct tgt_queue *q);
/* Before any data moves: the queue's state, the namespace, ANA, range.
 * Returns an NVMe status. */
uint16_t tgt_req_prepare(struct tgt_req *req);
/* Every byte of the host's data is in req->buf (or there is none): run. */
void tgt_req_exec(struct tgt_req *req);
/* Answer req with status (accounted, error-logged, then the transport's
 * queue_response). */
void tgt_req_complete(struct tgt_req *req, uint16_t status);
/* A buffer of len bytes from the reactor's pool into req->buf. */
int tgt_req_alloc_buf(struct tgt_req *req, uint32_t len);
void tgt_req_release_buf(struct tgt_req *req);
/* A device request finished / a tag waiter's turn (reactor.c). */
void tgt_req_dev_done(struct mqblk_rq *rq);
void tgt_req_retry(struct tgt_req *req);
/* Issue req's next device request, or complete it if none is left
 * (Property Set's shutdown flush starts here too). */
void tgt_req_issue(struct tgt_req *req);

/* ---- Queues and controllers (core/ctrl.c) ---------------------------- */

/* Fill q's core part for a new connection. */
void tgt_queue_init(struct tgt_queue *q, const struct tgt_transport_ops *ops,
		    struct tgt_reactor *r, struct tgt_port *port);
/* The queue goes away: give its controller back. */
void tgt_queue_release(struct tgt_queue *q);
/* A slot is taken / given back: the depth gauges. */
void tgt_queue_depth_inc(struct tgt_queue *q);
void tgt_queue_depth_dec(struct tgt_queue *q);
/*
 * ctrl's keep-alive timer had run out at NOW: nothing (a command on any
 * queue, a Keep Alive) came within KATO. Its admin queue's tick tears it
 * down; a command arriving before that tick (a reactor stopped between
 * its tick and its sockets, then resumed) keeps nothing alive and is
 * answered as after the teardown.
 */
static inline bool tgt_ka_expired(struct tgt_ctrl *ctrl, uint64_t now)
{
	uint32_t kato =
		atomic_load_explicit(&ctrl->kato_ms, memory_order_relaxed);
	uint64_t last;

	if (!kato)
		return false;
	last = atomic_load_explicit(&ctrl->last_ka_ns, memory_order_relaxed);
	return now > last && now - last > (uint64_t)kato * 1000000;
}
/* Every TGT_TICK_MS: shutdown progress, keep-alive, controller gone,
 * stalls. */
void tgt_queue_tick(struct tgt_queue *q, uint64_t now);
/* Nothing of q at a device: it may be freed once closing. */
bool tgt_queue_idle(const struct tgt_queue *q);
/* Fabrics commands (Connect, Property Get/Set). */
void tgt_fabrics_exec(struct tgt_req *req);

/* ---- DH-HMAC-CHAP (core/auth.c) ------------------------------------------ */

/* At Connect: q must authenticate when h has a key. 0, or -1 (memory). */
int tgt_auth_queue_init(struct tgt_queue *q, const struct tgt_host *h,
			const char *subnqn);
/* Secrets zeroed, state freed (queue teardown). */
void tgt_auth_queue_free(struct tgt_queue *q);
/* q must authenticate and has not (yet, or it failed). */
bool tgt_auth_pending(const struct tgt_queue *q);
/* A queue whose host has not completed DH-HMAC-CHAP and has let it stand
 * TGT_AUTH_TIMEOUT_MS since its last step (a host that stops mid-exchange
 * must not hold the queue when there is no keep-alive to end it; nvmet
 * too expires an authentication that does not move). */
#define TGT_AUTH_TIMEOUT_MS 5000u
bool tgt_auth_expired(const struct tgt_queue *q, uint64_t now);
/* Authentication Send / Receive (fctype 05h / 06h): a status. */
uint16_t tgt_auth_send(struct tgt_req *req);
uint16_t tgt_auth_receive(struct tgt_req *req);
/* Release a controller reference (a queue's, or a failed Connect's). */
void tgt_ctrl_put(struct tgt_ctrl *ctrl);

static inline void tgt_stat_add(_Atomic uint64_t *v, uint64_t n)
{
	atomic_store_explicit(v,
			      atomic_load_explicit(v, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* ---- Reactors (core/reactor.c) --------------------------------------- */

/* One reactor thread. */
struct tgt_reactor {
	struct tgt *t;
	unsigned idx;
	pthread_t thread;
	int epfd;
	int wake_fd; /* eventfd: new connections, stop */
	_Atomic bool stop;
	_Atomic bool unclean; /* ended with queues still at a device */
	/* gave up on requests stuck on a failed device (devq_drain): its
	 * buffers stay allocated, the kernel may still write them */
	bool stuck;

	pthread_mutex_t lock; /* inbox, ctl_job and the queue list (stats
			       * reads it) */
	struct tgt_ctl_job *ctl_job; /* the control thread's, to run */
	intptr_t *inbox; /* handed-over connections, with their port */
	struct tgt_port **inbox_port;
	unsigned nr_inbox, inbox_cap;
	struct tgt_queue *queues;
	unsigned nr_queues;

	struct tgt_queue *flush_list;
	struct tgt_queue *held_list; /* coalescing: flushes put off */
	uint64_t held_deadline_ns; /* the earliest of theirs */
	struct tgt_req *wait_head, *wait_tail; /* waiting for a device tag */
	unsigned dev_inflight;
	/* the last pass's clock, and the last pass that reaped a device
	 * completion or had none out: past TGT_DEV_SPIN_NS between them,
	 * the reactor naps instead of spinning (reactor_step) */
	uint64_t pass_ns, dev_progress_ns;
	void *bufs[TGT_BUF_CLASSES]; /* free lists through the first word */
	void **slabs; /* what the buffers were carved from */
	unsigned nr_slabs, slab_cap;
	uint64_t next_tick_ns;
	/* A transport's per-reactor state (RDMA: the slabs' memory
	 * registrations), and what frees it before the slabs go. */
	void *xport_priv;
	void (*xport_fini)(struct tgt_reactor *r);
};

void *tgt_buf_get(struct tgt_reactor *r, uint32_t len, uint32_t *cap);
void tgt_buf_put(struct tgt_reactor *r, void *buf, uint32_t cap);
/* A buffer the kernel may still read (a zero-copy send on a closed
 * socket): never handed out again; a slab's stays until the reactor ends. */
void tgt_buf_abandon(struct tgt_reactor *r, void *buf, uint32_t cap);
/* This reactor's queue on ns's device (opened on first use); NULL with
 * a logged reason if it cannot be opened. */
struct mqblk_queue *tgt_ns_queue(struct tgt_reactor *r, struct tgt_ns *ns);
void tgt_reactor_wait_tag(struct tgt_reactor *r, struct tgt_req *req);
void tgt_reactor_want_flush(struct tgt_reactor *r, struct tgt_queue *q);
/* From a port's accept (reactor 0): conn goes to the next reactor. */
void tgt_reactor_hand_over(intptr_t conn, struct tgt_port *port);
/* accept failed for want of descriptors or memory (reactor 0): stop
 * watching p's listener until the next tick, log the first time. */
void tgt_port_accept_pause(struct tgt_port *p, int err);
void tgt_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
