// SPDX-License-Identifier: MIT
/*
 * NVMe multipath over NVMe/TCP: one device over several controllers of
 * one subsystem, the userspace counterpart of Linux's
 * drivers/nvme/host/multipath.c (the ns_head above per-controller queues).
 *
 *   nvme-tcp://A1:P1,A2:P2/SUBNQN?iopolicy=numa|round-robin|queue-depth
 *   nvme-tcp://DISCADDR:PORT/SUBNQN?paths=discover
 *
 * Each path is an nvme-tcp:// device of its own (its admin and I/O
 * queues, keep alive, reconnect until ctrl_loss_tmo), opened with
 * multipath=1 so a reset hands its outstanding requests back at once
 * (Host Aborted Command) instead of holding them, and I/O to a controller
 * that is not live fails with Host Path Error. This device is a client of
 * its paths through the public API, as the stripe driver is of its
 * members: each hardware queue opens one software queue on every path,
 * and a request goes out as one child request on the path the I/O policy
 * picks (mp_select: optimized paths first, non-optimized only when no
 * optimized one is usable, never inaccessible, persistent loss or change).
 *
 * Failover (nvme_failover_req): a child that ends with a path-related
 * status (SCT 3h, no DNR) is put back and its parent goes out again on
 * another path; an ANA status also marks its path pending until the
 * control thread has read the ANA log again. A parent completes only
 * from its last child's answer (or here with an error), so it completes
 * exactly once. With no usable path, requests wait on the hardware
 * queue's hold list (queue_if_no_path) while any path's controller may
 * come back; once every controller is past its ctrl_loss_tmo they fail
 * with Host Path Error (-EIO).
 *
 * The control thread reads each path's ANA log when its controller
 * reports an ANA change (AEN, log 0Ch), after a reconnect and after an
 * ANA error, logs path state changes, and kicks hardware queues that
 * hold requests or have children out (a child failed inline by a path
 * that is down wakes no fd).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <poll.h>
#include <unistd.h>

#include <mqblk/driver.h>

#include "nvme/nvme.h"
#include "host.h"
#include "mpath_dev.h"

/* A path without a transport of its own: the URI's (nvme-tcp://) */
/* ---- path selection ---------------------------------------------------- */

static bool path_usable(const struct mp_path *p)
{
	return mp_path_joined(p) && nvmf_ctrl_state(p->dev) == NVMF_CTRL_LIVE &&
	       !atomic_load_explicit(&p->ana_pending, memory_order_relaxed) &&
	       !atomic_load_explicit(&p->sq_gone, memory_order_relaxed);
}

static int mp_pick(struct mp_dev *md)
{
	struct mp_path_view v[MP_MAX_PATHS];
	int cur = atomic_load_explicit(&md->current, memory_order_relaxed);
	int old = cur, pick;
	/* once: a path discovery adds meanwhile waits for the next pick */
	unsigned nr = atomic_load_explicit(&md->nr, memory_order_acquire), i;

	for (i = 0; i < nr; i++) {
		v[i].usable = path_usable(&md->path[i]);
		v[i].ana = atomic_load_explicit(&md->path[i].ana,
						memory_order_relaxed);
		v[i].inflight =
			md->pol == MP_IOPOLICY_QD ?
				atomic_load_explicit(&md->path[i].inflight,
						     memory_order_relaxed) :
				0;
	}
	pick = mp_select(md->pol, v, nr, &cur);
	if (cur != old)
		atomic_store_explicit(&md->current, cur, memory_order_relaxed);
	return pick;
}

/* Could a path still come back? (nvme_available_path: a controller that
 * is live or reconnecting; only one past ctrl_loss_tmo is gone. A path
 * not connected yet may still come, until its ctrl_loss_tmo.) */
static bool mp_any_alive(struct mp_dev *md)
{
	unsigned i;

	for (i = 0; i < md->nr; i++) {
		struct mp_path *p = &md->path[i];

		if (mp_path_joined(p) ?
			    nvmf_ctrl_state(p->dev) != NVMF_CTRL_DEAD :
			    !atomic_load(&p->given_up))
			return true;
	}
	return false;
}

/* ---- issue, complete, fail over (hctx lock held) ------------------------ */

static void hold(struct mp_hctx *mh, struct mqblk_rq *rq)
{
	struct mp_cmd *cmd = mqblk_rq_pdu(rq);

	cmd->hold_next = NULL;
	if (mh->hold_tail)
		((struct mp_cmd *)mqblk_rq_pdu(mh->hold_tail))->hold_next = rq;
	else
		mh->hold_head = rq;
	mh->hold_tail = rq;
	atomic_fetch_add(&mh->nr_held, 1);
}

static int mp_issue(struct mp_hctx *mh, struct mqblk_rq *rq)
{
	struct mp_dev *md = mh->md;
	struct mp_cmd *cmd = mqblk_rq_pdu(rq);
	struct mqblk_rq *c;
	struct mp_path *path;
	int p = mp_pick(md), ret;

	if (p < 0) {
		if (mp_any_alive(md))
			return MP_HELD;
		if (!atomic_fetch_add(&md->no_path_fails, 1))
			fprintf(stderr,
				"mqblk: nvme-mpath: %s: no path left (every "
				"controller past ctrl_loss_tmo): failing I/O "
				"with Host Path Error\n",
				md->subnqn);
		mqblk_complete_rq(rq, -EIO, NVME_SC_HOST_PATH_ERROR);
		return MP_DONE;
	}
	path = &md->path[p];
	c = mqblk_rq_get(mh->q[p], MQBLK_RQ_NOWAIT);
	if (!c)
		return MP_BUSY;
	c->op = rq->op;
	c->flags = rq->flags;
	c->offset = rq->offset;
	c->len = rq->len;
	c->buf = rq->buf;
	c->private = rq;
	cmd->path = (uint8_t)p;
	ret = mqblk_submit(c);
	if (ret) {
		/* cannot happen for what the core let through to us */
		mqblk_rq_put(c);
		mqblk_complete_rq(rq, ret, 0);
		return MP_DONE;
	}
	atomic_fetch_add_explicit(&path->sent, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&path->inflight, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&mh->children, 1, memory_order_relaxed);
	mh->touched |= 1u << p;
	return MP_SENT;
}

/* Send the held parents again, in order, while paths take them. Returns
 * the parents completed (failed: no path left); *resent when any went
 * out. Still held: the control thread's tick comes back for them (a kick
 * here would spin for as long as no path is usable). */
static int retry_held(struct mp_hctx *mh, bool *resent)
{
	struct mqblk_rq *rq;
	int done = 0;

	while ((rq = mh->hold_head)) {
		struct mp_cmd *cmd = mqblk_rq_pdu(rq);
		int r;

		mh->hold_head = cmd->hold_next;
		if (!mh->hold_head)
			mh->hold_tail = NULL;
		atomic_fetch_sub(&mh->nr_held, 1);
		r = mp_issue(mh, rq);
		if (r == MP_DONE) {
			done++;
			continue;
		}
		if (r == MP_SENT) {
			*resent = true;
			continue;
		}
		/* back at the head: still no path, or no tag */
		cmd->hold_next = mh->hold_head;
		mh->hold_head = rq;
		if (!mh->hold_tail)
			mh->hold_tail = rq;
		atomic_fetch_add(&mh->nr_held, 1);
		break;
	}
	return done;
}

/* A child is back. Returns 1 when its parent completed. */
static int child_done(struct mp_hctx *mh, struct mqblk_rq *c, bool *resent)
{
	struct mp_dev *md = mh->md;
	struct mqblk_rq *rq = c->private;
	struct mp_cmd *cmd = mqblk_rq_pdu(rq);
	struct mp_path *path = &md->path[cmd->path];
	int res = c->res;
	uint16_t st = c->nvme_status;
	int r;

	mqblk_rq_put(c);
	atomic_fetch_sub_explicit(&path->inflight, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&mh->children, 1, memory_order_relaxed);
	if (res < 0 && mp_status_fails_over(st) &&
	    ++cmd->failovers <= 8 * md->nr + 8) {
		uint8_t ana = mp_status_ana_state(st);

		atomic_fetch_add_explicit(&path->failovers, 1,
					  memory_order_relaxed);
		if (ana || (st & 0x7ff) == NVME_SC_INTERNAL_PATH_ERROR) {
			/* the path's ANA state is in doubt: off until the
			 * control thread has read its log again (the
			 * kernel's NVME_NS_ANA_PENDING; the state itself
			 * comes from the log) */
			atomic_store(&path->ana_pending, true);
			atomic_store(&md->ana_reread, true);
			mp_wake(md);
		}
		if ((st & 0x7ff) == NVME_SC_ABORT_QUEUE) {
			/* its controller is going: off until it resets.
			 * Every path's going at once (one target stalled
			 * past KATO) holds the request for a path, where
			 * sending it back and forth would spend its
			 * failovers in a millisecond and fail it */
			atomic_store(&path->sq_gone, true);
			mp_wake(md);
		}
		r = mp_issue(mh, rq);
		if (r == MP_SENT)
			*resent = true;
		if (r == MP_HELD || r == MP_BUSY)
			hold(mh, rq);
		return r == MP_DONE;
	}
	if (res >= 0 && (uint32_t)res != c->len)
		res = -EIO;
	atomic_fetch_add_explicit(&path->completed, 1, memory_order_relaxed);
	mqblk_complete_rq(rq, res, st);
	return 1;
}

/* Reap what path p has ready (a peek: never sleeps). */
static int reap_path(struct mp_hctx *mh, unsigned p, bool *resent)
{
	struct mqblk_rq *rqs[MP_REAP_BATCH];
	int n, j, done = 0;

	for (;;) {
		n = mqblk_reap(mh->q[p], rqs, 1, MP_REAP_BATCH, 0);
		if (n <= 0)
			break;
		for (j = 0; j < n; j++)
			done += child_done(mh, rqs[j], resent);
		if (n < MP_REAP_BATCH)
			break;
	}
	return done;
}

static void mp_unplug(struct mp_hctx *mh)
{
	struct mp_dev *md = mh->md;
	bool kick = false;
	unsigned i;

	if (!mh->plugged)
		return;
	mh->plugged = false;
	for (i = 0; i < md->nr; i++)
		if (mh->q[i])
			mqblk_unplug(mh->q[i]);
	for (i = 0; i < md->nr; i++)
		if ((mh->touched & (1u << i)) &&
		    (nvmf_ctrl_state(md->path[i].dev) != NVMF_CTRL_LIVE ||
		     mqblk_queue_completed(mh->q[i])))
			kick = true; /* failed inline: no fd says so */
	mh->touched = 0;
	if (kick)
		mp_kick(mh);
}

static enum mqblk_status mp_queue_rq(struct mqblk_hctx *hctx,
				     struct mqblk_rq *rq, bool last)
{
	struct mp_hctx *mh = mqblk_hctx_data(hctx);
	struct mp_cmd *cmd = mqblk_rq_pdu(rq);
	unsigned i;
	int r;

	pthread_mutex_lock(&mh->lock);
	if (!mh->plugged) {
		/* one doorbell per path for the core's whole batch */
		for (i = 0; i < mh->md->nr; i++)
			if (mh->q[i])
				mqblk_plug(mh->q[i]);
		mh->plugged = true;
	}
	cmd->failovers = 0;
	/* behind what is held: keep the order */
	r = mh->hold_head ? MP_HELD : mp_issue(mh, rq);
	if (r == MP_BUSY) {
		mp_unplug(mh);
		pthread_mutex_unlock(&mh->lock);
		return MQBLK_STS_BUSY;
	}
	if (r == MP_HELD) {
		hold(mh, rq);
		mp_kick(mh); /* poll retries it, or fails it when all died */
	}
	if (last)
		mp_unplug(mh);
	pthread_mutex_unlock(&mh->lock);
	return MQBLK_STS_OK;
}

static void mp_commit_rqs(struct mqblk_hctx *hctx)
{
	struct mp_hctx *mh = mqblk_hctx_data(hctx);

	pthread_mutex_lock(&mh->lock);
	mp_unplug(mh);
	pthread_mutex_unlock(&mh->lock);
}

/* Every path queue of this hctx that has children out or a readable fd,
 * then the hold list. Polled (hipri) or not, each path's queue is reaped
 * with a peek, which polls a path's socket itself. */
static int mp_poll(struct mqblk_hctx *hctx, unsigned budget)
{
	struct mp_hctx *mh = mqblk_hctx_data(hctx);
	struct mp_dev *md = mh->md;
	struct epoll_event ev[MP_MAX_PATHS + 1];
	uint32_t ready = 0;
	bool resent = false, idle = false;
	uint64_t v;
	int n, i, done = 0;

	(void)budget; /* children already answered must be taken */
	pthread_mutex_lock(&mh->lock);
	if (atomic_load_explicit(&mh->kicked, memory_order_relaxed) &&
	    atomic_exchange(&mh->kicked, false) &&
	    read(mh->kick_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		abort();
	for (i = 0; i < (int)md->nr; i++)
		if (mh->q[i] && !mqblk_queue_inflight(mh->q[i]))
			idle = true;
	/* a path with children out is reaped whatever its fd says: ask
	 * the fds only when some path has none out */
	if (idle && mqblk_dev_comp_policy(md->dev) != MQBLK_COMP_POLLED) {
		n = epoll_wait(mh->epfd, ev, MP_MAX_PATHS + 1, 0);
		for (i = 0; i < n; i++)
			if (ev[i].data.u32 < MP_KICK)
				ready |= 1u << ev[i].data.u32;
	}
	for (i = 0; i < (int)md->nr; i++) {
		if (!mh->q[i])
			continue;
		/* what this pass completes stays on this thread: the path
		 * queues were opened at set-up (or by the control thread),
		 * and a completion there would be handed over to that
		 * thread with a wake-up this thread then reads back */
		mqblk_queue_claim(mh->q[i]);
		if ((ready & (1u << i)) || mqblk_queue_inflight(mh->q[i]))
			done += reap_path(mh, (unsigned)i, &resent);
	}
	if (mh->hold_head)
		done += retry_held(mh, &resent);
	if (resent) {
		/* a child sent again may have failed inline: come back */
		mp_kick(mh);
	}
	pthread_mutex_unlock(&mh->lock);
	return done;
}

/* mqblk_queue_fail_held: the parents held for want of a usable path
 * complete now with res (Host Path Error), in order; false when none is
 * held (a path only out of tags is not a reconnection). */
static bool mp_fail_held(struct mqblk_hctx *hctx, int res, unsigned *nr)
{
	struct mp_hctx *mh = mqblk_hctx_data(hctx);
	struct mqblk_rq *rq;

	*nr = 0;
	if (!mh || !atomic_load(&mh->nr_held))
		return false;
	pthread_mutex_lock(&mh->lock);
	while ((rq = mh->hold_head)) {
		struct mp_cmd *cmd = mqblk_rq_pdu(rq);

		mh->hold_head = cmd->hold_next;
		if (!mh->hold_head)
			mh->hold_tail = NULL;
		atomic_fetch_sub(&mh->nr_held, 1);
		mqblk_complete_rq(rq, res, NVME_SC_HOST_PATH_ERROR);
		(*nr)++;
	}
	pthread_mutex_unlock(&mh->lock);
	if (*nr)
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: %u request%s held for a usable "
			"path failed (%s)\n",
			mh->md->subnqn, *nr, *nr == 1 ? "" : "s",
			strerror(-res));
	return *nr > 0;
}

/* Children carry the paths' own deadlines (abort, reset, failover); a
 * held parent waits for ctrl_loss_tmo, not for the core's timer. */
static enum mqblk_timeout_ret mp_timeout(struct mqblk_rq *rq)
{
	(void)rq;
	return MQBLK_EH_RESET_TIMER;
}

/* ---- hardware queues --------------------------------------------------- */

static void hctx_free(struct mp_hctx *mh)
{
	unsigned i;

	for (i = 0; i < mh->md->nr; i++)
		if (mh->q[i])
			mqblk_queue_close(mh->q[i]);
	if (mh->epfd >= 0)
		close(mh->epfd);
	if (mh->kick_fd >= 0)
		close(mh->kick_fd);
	pthread_mutex_destroy(&mh->lock);
	free(mh);
}

/* Path i's queue in hctx mh (its lock held, or mh not published yet): the
 * path queue opened k-th maps to the path's hw queue k, so each hctx's
 * are opened in hctx order. 0 or -errno. */
int mp_hctx_add_path(struct mp_hctx *mh, unsigned i)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };
	struct mqblk_queue *q;
	int ret, fd;

	ret = mqblk_queue_open(mh->md->path[i].dev, &q);
	if (ret)
		return ret;
	fd = mqblk_queue_fd(q);
	/* fd < 0: polled, reaped with a peek while it has children out */
	if (fd >= 0 && epoll_ctl(mh->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		ret = -errno;
		mqblk_queue_close(q);
		return ret;
	}
	if (mh->plugged)
		mqblk_plug(q); /* unplugged with the others */
	mh->q[i] = q;
	return 0;
}

static int mp_init_hctx(struct mqblk_hctx *hctx, unsigned idx)
{
	struct mp_dev *md = mqblk_dev_data(mqblk_hctx_dev(hctx));
	struct mp_hctx *mh = calloc(1, sizeof(*mh));
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned i;
	int ret;

	if (!mh)
		return -ENOMEM;
	if (idx >= MP_MAX_HCTX) {
		free(mh);
		return -EINVAL;
	}
	if (!idx) {
		/* the paths as the device's policy wants them, then the
		 * control thread */
		ret = mp_start(md, mqblk_dev_comp_policy(mqblk_hctx_dev(
					   hctx)) == MQBLK_COMP_POLLED);
		if (ret) {
			free(mh);
			return ret;
		}
	}
	mh->md = md;
	pthread_mutex_init(&mh->lock, NULL);
	mh->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	mh->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (mh->kick_fd < 0 || mh->epfd < 0)
		goto out_errno;
	ev.data.u32 = MP_KICK;
	if (epoll_ctl(mh->epfd, EPOLL_CTL_ADD, mh->kick_fd, &ev))
		goto out_errno;
	/* the paths joined so far; one joining later adds its queue to
	 * every hctx under md->lock, once all are here */
	pthread_mutex_lock(&md->lock);
	for (i = 0; i < md->nr; i++) {
		if (!mp_path_joined(&md->path[i]))
			continue;
		ret = mp_hctx_add_path(mh, i);
		if (ret) {
			pthread_mutex_unlock(&md->lock);
			goto out_free;
		}
	}
	mqblk_hctx_set_data(hctx, mh);
	mqblk_hctx_set_irq_fd(hctx, mh->epfd);
	md->hctx[idx] = mh;
	pthread_mutex_unlock(&md->lock);
	return 0;

out_errno:
	ret = -errno;
out_free:
	hctx_free(mh);
	return ret;
}

static void mp_exit_hctx(struct mqblk_hctx *hctx)
{
	struct mp_hctx *mh = mqblk_hctx_data(hctx);
	struct mp_dev *md;
	unsigned idx = mqblk_hctx_idx(hctx);

	if (!mh)
		return;
	md = mh->md;
	pthread_mutex_lock(&md->lock);
	if (idx < MP_MAX_HCTX)
		md->hctx[idx] = NULL;
	pthread_mutex_unlock(&md->lock);
	hctx_free(mh);
}

const struct mqblk_driver_ops mqblk_nvme_mpath_driver = {
	.name = "nvme_mpath",
	.init = mp_init,
	.exit = mp_exit,
	.init_hctx = mp_init_hctx,
	.exit_hctx = mp_exit_hctx,
	.queue_rq = mp_queue_rq,
	.commit_rqs = mp_commit_rqs,
	.poll = mp_poll,
	.timeout = mp_timeout,
	.fail_held = mp_fail_held,
	.nvme_admin = mp_nvme_admin,
	.get_paths = mp_get_paths,
	.iopolicy = mp_iopolicy_of,
};
