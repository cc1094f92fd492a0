/* SPDX-License-Identifier: MIT */
/*
 * What the multipath device's two files share: its paths, hardware
 * queues and per-request state. multipath.c is the I/O path (path
 * selection, issue, completion, failover, hardware queues); mpath_ctrl.c
 * the set-up (paths, discovery, the namespace's identity) and the control
 * thread (ANA, path states, late joins).
 */
#ifndef MQBLK_DRIVERS_NVMF_MPATH_DEV_H
#define MQBLK_DRIVERS_NVMF_MPATH_DEV_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include <mqblk/driver.h>

#include "nvme/nvme.h"
#include "mpath.h"

#define MP_DEFAULT_TR "tcp"

#define MP_REAP_BATCH 64
#define MP_KICK MP_MAX_PATHS /* epoll tag of the kick fd */
#define MP_TICK_MS 100 /* control thread period */
#define MP_ANA_RETRY_MS 1000 /* re-read a pending path's log this often */
/* a path whose controller answered SQ Deletion and has not reset since:
 * tried again after this long all the same (a controller that aborts a
 * command without going away) */
#define MP_SQ_GONE_MS 1000
/* The biggest ANA log this host reads (a controller whose NANAGRPID
 * and MNAN make more is refused at open). */
#define MP_ANA_LOG_MAX (16u << 20)
#define MP_MAX_HCTX 1024
/* discovery log records read (the first ones of a longer log), and how
 * many per Get Log Page; a log whose generation counter moves while it
 * is read is read again, this many times at most */
#define MP_DISC_MAX 1024
#define MP_DISC_CHUNK 64
#define MP_DISC_TRIES 10
/* a persistent discovery controller's keep-alive timeout when the URI
 * gives none (nvme-cli's --persistent, NVMF_DEF_DISC_TMO) */
#define MP_DISC_KATO "30"

struct mp_path {
	char name[280]; /* HOST:PORT */
	char *uri; /* its nvme-tcp:// device */
	struct mp_addr addr; /* what name and uri were made from */
	/* added after the device opened, on a discovery log change: set
	 * before md->nr counts the path, then constant */
	bool discovered;
	struct mqblk_dev *dev; /* NULL until it connects */
	/* dev open and identified, and a queue of it in every hctx: only
	 * then do other threads touch dev or pick the path */
	_Atomic bool joined;
	_Atomic bool given_up; /* never connected within ctrl_loss_tmo */
	/* a path that did not answer at open: retried by the control
	 * thread every reconnect_delay until ctrl_loss_tmo */
	bool waiting;
	uint64_t retry_ms, give_up_ms;
	/* each retry connects on a thread of its own (path_connect_fn), so
	 * the control thread goes on with the paths that are up; it joins
	 * the thread once conn says MP_CONN_DONE. The connecting thread
	 * alone touches dev, conn_ret and conn_err until then. */
	struct mp_dev *md;
	pthread_t conn_thread;
	_Atomic int conn; /* MP_CONN_* */
	int conn_ret;
	char conn_err[512];
	bool ana_supported; /* CMIC bit 3: the controller reports ANA */
	uint32_t ana_log_len; /* the whole log at most (nvme_mpath_init_identify) */
	uint32_t anagrpid;
	uint8_t anatt; /* Identify's ANA transition time, seconds */
	_Atomic uint8_t ana; /* MP_ANA_* */
	_Atomic bool ana_pending; /* ANA error: unused until log re-read */
	/* Command Aborted due to SQ Deletion: its controller is being torn
	 * down under the host (a keep-alive expiry at the target) and
	 * aborts whatever it gets; unused until it resets, MP_SQ_GONE_MS at
	 * most */
	_Atomic bool sq_gone;
	/* control thread only */
	uint32_t ana_gen_seen;
	uint64_t resets_seen;
	int state_seen;
	uint64_t ana_read_ms;
	uint64_t change_ms; /* when its group entered ANA change, or 0 */
	uint64_t sq_gone_ms; /* when the pass first saw sq_gone, or 0 */
	uint64_t sq_gone_resets; /* its controller's resets then */
	uint64_t resets_base; /* resets before the device was up */
	/* counters: relaxed atomics, every hctx updates them */
	_Atomic uint64_t sent, completed, failovers;
	_Atomic unsigned inflight;
};

enum { MP_CONN_IDLE, MP_CONN_BUSY, MP_CONN_DONE };

struct mp_dev {
	struct mqblk_dev *dev;
	enum mp_iopolicy pol;
	/* paths in path[]: only the control thread adds one (persistent
	 * discovery), filled before nr counts it (release); readers load
	 * it once per walk */
	_Atomic unsigned nr;
	struct mp_path path[MP_MAX_PATHS];
	char subnqn[NVME_NQN_SIZE];
	_Atomic int current; /* the policy's current path (one NUMA node) */
	struct mqblk_dev_opts popts; /* how the paths were opened */
	uint8_t ids[40]; /* the namespace's NGUID, EUI-64, UUID */
	unsigned ref; /* the path they were read from first */
	uint64_t size;
	uint32_t bs;
	unsigned depth; /* every path's queues take this many */
	uint32_t reconnect_ms, loss_ms; /* reconnect_delay, ctrl_loss_tmo */
	_Atomic uint64_t no_path_fails;
	char q[2048]; /* the URI keys every path's URI carries ("&k=v...") */

	/* paths=discover with persistent_discovery (the default): the
	 * discovery controller, kept connected for the device's life; on
	 * each Discovery Log Page Change notice, and after it reconnects,
	 * its log is read again and the new paths for subnqn join
	 * (disc_pass). Control thread only, after set-up. */
	bool persist;
	struct mqblk_dev *disc;
	char disc_name[280];
	uint32_t disc_gen_seen;
	uint64_t disc_resets_seen;
	int disc_state_seen;
	bool disc_want; /* a read is due (retried after a failure) */
	uint64_t disc_retry_ms;

	pthread_t thread;
	bool running;
	int efd; /* wakes the control thread */
	_Atomic bool stop;
	_Atomic bool ana_reread; /* some path's log wants reading now */
	pthread_mutex_t lock; /* hctx[] */
	struct mp_hctx *hctx[MP_MAX_HCTX];
};

struct mp_hctx {
	struct mp_dev *md;
	pthread_mutex_t lock; /* path queues, plug state, hold list */
	int epfd; /* the irq fd: path queue fds + kick_fd */
	int kick_fd;
	_Atomic bool kicked;
	bool plugged;
	uint32_t touched; /* paths with children since the plug */
	struct mqblk_queue *q[MP_MAX_PATHS];
	struct mqblk_rq *hold_head, *hold_tail; /* parents with no path */
	_Atomic unsigned nr_held;
	_Atomic unsigned children; /* children out on any path */
};

/* Per parent request. Touched only under its hctx's lock. */
struct mp_cmd {
	struct mqblk_rq *hold_next;
	unsigned failovers;
	uint8_t path;
};

enum { MP_SENT, MP_DONE, MP_HELD, MP_BUSY };

static inline uint64_t mp_now_ms(void)
{
	return mqblk_clock_ns() / 1000000;
}

static inline void mp_wake(struct mp_dev *md)
{
	uint64_t one = 1;

	if (write(md->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		abort();
}

static inline void mp_kick(struct mp_hctx *mh)
{
	uint64_t one = 1;

	atomic_store(&mh->kicked, true);
	if (write(mh->kick_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		abort();
}

static inline bool mp_path_joined(const struct mp_path *p)
{
	return atomic_load_explicit(&p->joined, memory_order_acquire);
}

/* multipath.c */
int mp_hctx_add_path(struct mp_hctx *mh, unsigned i);

/* mpath_ctrl.c */
int mp_start(struct mp_dev *md, bool polled);
int mp_init(struct mqblk_dev *dev, struct mqblk_params *params,
	    struct mqblk_dev_limits *lim, char *err, size_t errlen);
void mp_exit(struct mqblk_dev *dev);
int mp_get_paths(const struct mqblk_dev *dev, struct mqblk_path_stats *out,
		 unsigned max);
int mp_nvme_admin(struct mqblk_dev *dev, void *sqe, void *data, uint32_t len,
		  bool to_dev, uint32_t *result, uint16_t *status);
const char *mp_iopolicy_of(const struct mqblk_dev *dev);

#endif
