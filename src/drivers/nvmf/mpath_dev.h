/* SPDX-License-Identifier: MIT */
/*
 * What the multipath device's files share: its paths, hardware queues
 * and per-request state. multipath.c is the I/O path (path selection,
 * issue, completion, failover, hardware queues); mpath_open.c the set-up
 * and end (the URI's keys, opening the paths, freeing it); mpath_path.c
 * one path (Identify, the namespace's identity, ANA log, a late connect);
 * mpath_disc.c the discovery log and persistent discovery; mpath_ctrl.c
 * the control thread (ANA, path states, late joins, kicks).
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

/* The namespace's identity on one path (nvme_ns_ids). */
struct ns_ids {
	uint8_t nguid[16];
	uint8_t eui64[8];
	uint8_t uuid[16];
};
_Static_assert(sizeof(struct ns_ids) == sizeof(((struct mp_dev *)0)->ids),
	       "mp_dev.ids holds a struct ns_ids");

/* multipath.c */
int mp_hctx_add_path(struct mp_hctx *mh, unsigned i);

/* mpath_open.c */
int mp_init(struct mqblk_dev *dev, struct mqblk_params *params,
	    struct mqblk_dev_limits *lim, char *err, size_t errlen);
/* Stop the control thread, close the paths, free md. */
void mp_free(struct mp_dev *md);
void mp_exit(struct mqblk_dev *dev);

/* mpath_path.c */
/* Get Log Page (NSID all) from dev: 0, -errno, or -EIO for an NVMe
 * status. */
int mp_get_log(struct mqblk_dev *dev, uint8_t lid, bool rae, void *buf,
	       uint32_t len, uint64_t off);
/* Read path p's ANA log and take its group's state. 0 or -errno. */
int mp_ana_read(struct mp_dev *md, struct mp_path *p);
/* "live", "dead" or "resetting" */
const char *mp_ctrl_state_name(int s);
/* What p's controller has done so far (a freshly opened path). */
void mp_path_baseline(struct mp_path *p);
/* Identify path p: subsystem NQN, ANA support and group, *ids. 0, or
 * -errno with the reason in err. */
int mp_path_identify(struct mp_dev *md, struct mp_path *p, struct ns_ids *ids,
		     char *err, size_t errlen);
/* Does path p, identified as ids, show the device's namespace? */
int mp_path_matches(struct mp_dev *md, struct mp_path *p,
		    const struct ns_ids *ids, char *err, size_t errlen);
/* Path p did not answer: connected again from reconnect_delay on. */
void mp_path_wait(struct mp_dev *md, struct mp_path *p);
/* A late path's connect (arg: the path), on a thread of its own. */
void *mp_path_connect_fn(void *arg);
/* Wait for path p's connecting thread, if any. */
void mp_path_connect_join(struct mp_path *p);

/* mpath_disc.c */
/* HOST:PORT, with the transport when it is not the default. */
void mp_host_str(char *out, size_t len, const struct mp_addr *a);
/* The nvme-TR:// URI of one path (malloc'd), or NULL. */
char *mp_path_uri(const struct mp_addr *a, const char *nqn, const char *q);
int mp_disc_open(const struct mp_addr *a, const char *q, struct mqblk_dev **dd,
		 char *err, size_t errlen);
int mp_disc_read(struct mqblk_dev *dd, const char *nqn, struct mp_addr *addrs,
		 unsigned *nr, uint64_t *gen);
/* Control thread: the persistent discovery controller's pass. */
void mp_disc_pass(struct mp_dev *md);

/* mpath_ctrl.c */
int mp_start(struct mp_dev *md, bool polled);
int mp_get_paths(const struct mqblk_dev *dev, struct mqblk_path_stats *out,
		 unsigned max);
int mp_nvme_admin(struct mqblk_dev *dev, void *sqe, void *data, uint32_t len,
		  bool to_dev, uint32_t *result, uint16_t *status);
const char *mp_iopolicy_of(const struct mqblk_dev *dev);

#endif
