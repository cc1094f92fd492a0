/* SPDX-License-Identifier: MIT */
/*
 * The NVMe-oF host's fabrics core and what a transport sees of it, the
 * userspace counterpart of Linux's drivers/nvme/host/fabrics.c + core.c
 * with nvme_ctrl_ops beneath them.
 *
 * The core owns everything that does not depend on how capsules travel:
 * the URI's options, the controller's set-up on the admin queue (Connect,
 * CAP/CC/CSTS, Identify, Number of Queues, the namespace), Asynchronous
 * Events, Abort, keep-alive, stall reports, reset and reconnect with
 * reconnect_delay/ctrl_loss_tmo, the mqblk driver ops of the device, and
 * the table of requests outstanding on each I/O queue (by tag). A
 * transport owns its connections: it opens one for a queue (the admin
 * queue's is used synchronously), turns a request into its wire form,
 * sends, receives, and completes through the core (nvmf_complete_tag).
 *
 * A transport's queue embeds struct nvmf_queue first; its per-request
 * data follows struct nvmf_req (nvmf_req_tr()).
 */
#ifndef MQBLK_DRIVERS_NVMF_FABRICS_H
#define MQBLK_DRIVERS_NVMF_FABRICS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <mqblk/driver.h>

#include "nvme/auth.h"
#include "nvme/nvme.h"

#define NVMF_ADMIN_DEPTH 32
#define NVMF_MAX_RETRIES 5 /* resends across resets (the kernel's default) */
#define NVMF_ADMIN_INLINE 8192 /* what a Linux host puts in admin capsules */
#define NVMF_DEFAULT_QUEUE_SIZE 128
#define NVMF_MAX_QUEUE_SIZE 1024
#define NVMF_IO_TIMEOUT_MS 10000 /* blocking set-up steps */
/* The Asynchronous Event Request's command id on the admin queue (the
 * synchronous commands count in 1..7fffh). */
#define NVMF_AER_CID 0xfffe
#define NVMF_MAX_ABORTS 16 /* timed-out commands waiting for their Abort */
/*
 * The largest READ/WRITE sent to a controller that reports no MDTS (0:
 * "no limit"; the kernel's nvmet-tcp does, having no get_mdts op). The
 * Linux host then leaves max_hw_sectors unlimited and its block layer
 * caps requests at BLK_DEF_MAX_SECTORS_CAP, 2560 sectors (1280 KiB, for
 * years; recently raised to 4 MiB by "block: Increase
 * BLK_DEF_MAX_SECTORS_CAP"): 1280 KiB is what such a controller is known
 * to take from Linux, and what we send at most.
 */
#define NVMF_NO_MDTS_MAX_BYTES (2560u * 512)

struct nvmf_conn; /* a transport's connection (opaque to the core) */
struct nvmf_transport_ops;

/* A connection used synchronously: set-up, then the admin queue. */
struct nvmf_sock {
	struct nvmf_conn *cn; /* NULL: none */
	uint16_t cid;
	uint16_t aer_cid; /* an AER is outstanding under this id (0: none) */
	bool aen_ready; /* ... and was answered: aen_dw0, aen_status */
	uint16_t aen_status;
	uint32_t aen_dw0;
};

enum nvmf_state {
	NVMF_LIVE = 0,
	NVMF_RESETTING = 1, /* connections down, requests held */
	NVMF_DEAD = 2, /* ctrl_loss_tmo passed: everything fails */
};

struct nvmf_ctrl {
	const struct nvmf_transport_ops *ops;
	void *tr; /* the transport's per-controller options */
	struct mqblk_dev *dev;
	char host[256]; /* traddr */
	char port[16]; /* trsvcid */
	char subnqn[NVME_NQN_SIZE];
	char hostnqn[NVME_NQN_SIZE];
	uint8_t hostid[16];
	/* DH-HMAC-CHAP (dhchap_secret=, dhchap_ctrl_secret=): len 0 none.
	 * Used on every queue whose Connect answers AUTHREQ.ATR. */
	struct nvme_auth_key dhchap_key, dhchap_ctrl_key;
	bool discovery; /* a discovery controller: admin queue only */
	bool enabled; /* CC.EN was set: shut it down (CC.SHN) at exit */
	unsigned want_queues;
	unsigned queue_size;
	uint32_t kato_ms;
	uint32_t nsid;

	struct nvmf_sock admin;
	pthread_mutex_t admin_lock; /* the control thread and exit */
	uint16_t cntlid;
	uint64_t cap;
	/* the largest READ/WRITE it takes (MDTS; when it reports none,
	 * NVMF_NO_MDTS_MAX_BYTES): the core's max_hw_bytes, fixed at open */
	uint32_t mdts_bytes;
	_Atomic bool mdts_logged; /* one past it was refused: said once */
	uint32_t incap_max; /* in-capsule data bytes on I/O queues */
	unsigned granted;
	uint64_t nsze;
	unsigned lba_shift;
	bool vwc;
	uint32_t oaes; /* events the controller can report */
	/* a path of a multipath device (multipath=1): fail fast instead of
	 * holding I/O in reset, and ask for ANA change notices */
	bool multipath;
	_Atomic uint32_t ana_gen; /* ANA change notices received */
	/* a discovery controller: Discovery Log Page Change notices
	 * received (a persistent one, kato= set, asks for them) */
	_Atomic uint32_t disc_gen;
	/* stall detection (stall_ms=, 0 off): a queue with commands out and
	 * no completion for that long is logged once per stall */
	uint32_t stall_ms;
	_Atomic uint64_t stalls;
	/* answers for a command whose data the host was still sending
	 * (a protocol error: each one reset the controller) */
	_Atomic uint64_t early_rsps;

	pthread_t ka_thread; /* the control thread: keep alive, recovery */
	bool ka_running;
	int ka_efd; /* wakes it: reset wanted */
	_Atomic bool stop;
	_Atomic int state; /* enum nvmf_state */
	/* the reset asked for (nvmf_ctrl_reset) reconnects at once; one for a
	 * failure first waits reconnect_delay, as the kernel's error
	 * recovery does (nvme_tcp_reconnect_or_remove) */
	_Atomic bool reset_now;
	uint32_t reconnect_delay_ms;
	uint32_t ctrl_loss_tmo_ms;
	pthread_mutex_t queues_lock;
	struct nvmf_queue **queues; /* by qid - 1 */
	_Atomic unsigned nr_queues; /* written under queues_lock */
	_Atomic uint64_t resets;

	/* timed-out commands the control thread sends an Abort for */
	pthread_mutex_t abort_lock;
	struct {
		uint16_t qid, cid;
	} aborts[NVMF_MAX_ABORTS];
	unsigned nr_aborts;
};

/* Per request: the core's part (the driver data after struct mqblk_rq);
 * the transport's follows. */
struct nvmf_req {
	/* the transport still reads the request's buffer (some of its
	 * PDUs or data are not all handed to the kernel yet). Written under
	 * the queue's tx_lock by the transport (cleared with release once
	 * sent); the core completes a request only when it is clear
	 * (nvmf_tx_holds, nvmf_req_complete) */
	_Atomic bool queued;
	uint16_t cid;
	uint8_t retries; /* times sent again after a reset */
	bool abort_sent; /* timed out once: an Abort went to the controller */
	uint64_t sent_ns; /* queue_rq's time (stall_ms= only) */
};

static inline void *nvmf_req_tr(struct nvmf_req *r)
{
	return r + 1;
}

/* One I/O queue: the core's part (a transport's queue embeds it first). */
struct nvmf_queue {
	struct nvmf_ctrl *d;
	struct mqblk_hctx *hctx;
	uint16_t qid;
	unsigned depth;
	struct mqblk_rq **rqs; /* by tag, under tx_lock (writes) */
	_Atomic bool dead; /* this connection is unusable */
	int epfd; /* the hw queue's irq fd: the connection and the kick */
	int kick_fd; /* eventfd: wake the waiter after a reconnect */
	/* polled (hipri) queue: sends wait for the next poll(), which the
	 * submitter runs right away, so the commands of a completion batch
	 * go out in one send (as SPDK's socket layer flushes once per
	 * poller pass) */
	bool defer_tx;
	/* something was queued to send since the last flush: the poller's
	 * unlocked look (the list itself is tx_lock's) */
	_Atomic bool tx_queued;
	_Atomic bool kicked; /* kick_fd has a count to drain */
	pthread_mutex_t rx_lock; /* poll, and the control thread's swap */
	pthread_mutex_t tx_lock; /* queue_rq and poll both send */
	_Atomic uint64_t last_done_ns; /* poll's last completion (stall_ms) */
	bool stalled; /* control thread: this stall was logged */
};

/*
 * A transport. The queue ops run with the queue's locks as noted; "sync"
 * ops block (set-up, the admin queue, under admin_lock).
 */
struct nvmf_transport_ops {
	const char *name; /* "tcp": the URI scheme is nvme-NAME:// */
	const char *driver; /* the mqblk driver's name: "nvme_tcp" */
	uint8_t trtype; /* NVMF_TRTYPE_* */
	size_t req_size; /* the transport's bytes after struct nvmf_req */
	size_t queue_size; /* its queue struct, struct nvmf_queue first */

	/* The transport's per-controller options (d->tr): made before the
	 * URI is parsed, freed when the device closes. */
	int (*ctrl_init)(struct nvmf_ctrl *d);
	void (*ctrl_free)(struct nvmf_ctrl *d);
	/* A URI key the core does not know: *taken if it is the
	 * transport's (p->used set by the mqblk_param_* helpers); 0 or
	 * -errno with a one-line reason in err. */
	int (*parse_param)(struct nvmf_ctrl *d, struct mqblk_param *p,
			   bool *taken, char *err, size_t errlen);

	/* A connection to the controller for queue qid, ready for Connect
	 * (the transport's own handshake done); NULL with a reason in err
	 * (*ret: -errno). */
	struct nvmf_conn *(*conn_open)(struct nvmf_ctrl *d, uint16_t qid,
				       char *err, size_t errlen, int *ret);
	void (*conn_close)(struct nvmf_conn *cn);
	/* Readable when the controller sent something (an AER answer). */
	int (*conn_fd)(const struct nvmf_conn *cn);
	/* Send one command (cid set) synchronously, with len bytes of data
	 * to the controller in-capsule (to_ctrl), or room for len bytes from
	 * it. */
	int (*sync_send)(struct nvmf_conn *cn, union nvme_command *cmd,
			 void *buf, uint32_t len, bool to_ctrl);
	/* The next completion on cn (blocking), data for command cid
	 * landing in buf (len bytes); a data transfer that also completes
	 * the command makes a CQE with status 0. 0 or -errno. cid 0 is the
	 * control thread's look after conn_fd was readable: -EAGAIN when
	 * nothing had come after all (a spurious wake-up: an RDMA
	 * completion channel can hold an event for a completion already
	 * reaped). */
	int (*sync_recv)(struct nvmf_conn *cn, uint16_t cid, void *buf,
			 uint32_t len, struct nvme_completion *cqe);

	/* I/O queues: the transport's part made / freed (the core's part
	 * filled, rqs and locks included). */
	int (*queue_init)(struct nvmf_queue *q);
	void (*queue_free)(struct nvmf_queue *q);
	/* cn (Connect done) becomes q's connection: its fd into q->epfd.
	 * Under rx_lock and tx_lock (or before the queue is live). */
	int (*queue_attach)(struct nvmf_queue *q, struct nvmf_conn *cn);
	/* Close q's connection; what its send list holds is dropped
	 * (queued cleared). Under rx_lock and tx_lock. */
	void (*queue_detach)(struct nvmf_queue *q);
	/* Wake anyone blocked on q's connection (it is dead). Any thread. */
	void (*queue_kill)(struct nvmf_queue *q);
	/* rq's command (and in-capsule data) from scratch, queued to send
	 * (queued set); -1 for a request this controller cannot take.
	 * Under tx_lock. */
	int (*queue_rq)(struct nvmf_queue *q, struct mqblk_rq *rq);
	/* Send what is queued. Under tx_lock. */
	void (*flush)(struct nvmf_queue *q);
	/* Receive what has arrived, completing requests; how many. Under
	 * rx_lock (tx_lock free). */
	int (*poll)(struct nvmf_queue *q);

	/* Optional pair (mqblk_queue_map_buf): register [base, base+len)
	 * for I/O on q until unmap_buf (the driver's map_buf contract);
	 * without them the driver answers -EOPNOTSUPP. 0 or -errno. */
	int (*map_buf)(struct nvmf_queue *q, void *base, size_t len);
	void (*unmap_buf)(struct nvmf_queue *q, void *base);

	/* Set when this build lacks the transport (no rdma-core): why,
	 * which opening one of its controllers says, with -ENOTSUP. */
	const char *missing;
};

/* ---- What the core gives transports --------------------------------- */

/* The request a command id names on q, or NULL (stale or unknown). */
struct mqblk_rq *nvmf_cid_rq(struct nvmf_queue *q, uint16_t cid);
/* Whether the transport still holds r's buffer (rx path, no lock). */
bool nvmf_tx_holds(struct nvmf_queue *q, struct nvmf_req *r);
/* The controller ended rq with status: 1, or -1 when that cannot be
 * taken (the connection failed: an answer before the host sent all). */
int nvmf_complete_tag(struct nvmf_queue *q, struct mqblk_rq *rq,
		      uint16_t status);
/* q's connection is unusable: reset the controller (logged with why). */
void nvmf_conn_fail(struct nvmf_queue *q, const char *why);
/* The command id of rq: its tag, and 4 bits of its incarnation. */
uint16_t nvmf_req_cid(const struct mqblk_rq *rq);
/* Is dev a controller of the fabrics host (any transport)? */
bool nvmf_is_ctrl(const struct mqblk_dev *dev);
/* A one-line error into err. */
void nvmf_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- The host's mqblk driver ops: transports.c's driver tables ------- */

int nvmf_init(struct mqblk_dev *dev, struct mqblk_params *params,
	      struct mqblk_dev_limits *lim, char *err, size_t errlen,
	      const struct nvmf_transport_ops *ops);
void nvmf_exit(struct mqblk_dev *dev);
int nvmf_init_hctx(struct mqblk_hctx *hctx, unsigned idx);
void nvmf_exit_hctx(struct mqblk_hctx *hctx);
enum mqblk_status nvmf_queue_rq(struct mqblk_hctx *hctx, struct mqblk_rq *rq,
				bool last);
void nvmf_commit_rqs(struct mqblk_hctx *hctx);
int nvmf_poll(struct mqblk_hctx *hctx, unsigned budget);
/* mqblk_queue_fail_held: a queue whose connection is gone gives up what
 * it holds for the reconnect. */
bool nvmf_fail_held(struct mqblk_hctx *hctx, int res, unsigned *nr);
enum mqblk_timeout_ret nvmf_timeout(struct mqblk_rq *rq);
int nvmf_nvme_admin(struct mqblk_dev *dev, void *sqe, void *data, uint32_t len,
		    bool to_dev, uint32_t *result, uint16_t *status);
/* mqblk_queue_map_buf: the transport's map_buf/unmap_buf, if it has them */
int nvmf_map_buf(struct mqblk_hctx *hctx, void *base, size_t len);
void nvmf_unmap_buf(struct mqblk_hctx *hctx, void *base);

/* ---- Inside the core (host.c, ctrl.c, options.c) -------------------- */

int nvmf_parse_params(struct nvmf_ctrl *d, struct mqblk_params *params,
		      char *err, size_t errlen);
int nvmf_connect(struct nvmf_ctrl *d, struct nvmf_sock *s, uint16_t qid,
		 uint16_t sqsize, uint16_t *cntlid, char *err, size_t errlen);
int nvmf_ctrl_setup(struct nvmf_ctrl *d, char *err, size_t errlen);
int nvmf_admin_cmd(struct nvmf_ctrl *d, union nvme_command *cmd, void *buf,
		   uint32_t len, uint64_t *result);
int nvmf_sync_cmd(struct nvmf_ctrl *d, struct nvmf_sock *s,
		  union nvme_command *cmd, void *buf, uint32_t len,
		  bool to_ctrl, struct nvme_completion *cqe);
int nvmf_aer_send(struct nvmf_ctrl *d);
/* cqe answers s's outstanding AER: kept for the control thread. */
bool nvmf_take_aen(struct nvmf_sock *s, const struct nvme_completion *cqe);
int nvmf_identify(struct nvmf_ctrl *d, uint8_t cns, uint32_t nsid, void *id);
int nvmf_id_ns(struct nvmf_ctrl *d, uint8_t *id, uint64_t *nsze,
	       unsigned *shift);
void nvmf_ns_revalidate(struct nvmf_ctrl *d, uint64_t nsze, unsigned shift);
void nvmf_req_complete(struct mqblk_rq *rq, int res, uint16_t status);
void nvmf_wake_ctrl(struct nvmf_ctrl *d);
bool nvmf_admin_fail(struct nvmf_ctrl *d, const char *why);
void *nvmf_ctrl_main(void *arg);
void nvmf_queue_kick(struct nvmf_queue *q);
uint64_t nvmf_now_ms(void);

#endif
