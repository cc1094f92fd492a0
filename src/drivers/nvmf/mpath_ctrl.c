// SPDX-License-Identifier: MIT
/*
 * The multipath device's control thread (see multipath.c for the whole):
 * it connects paths that join late, reads ANA logs, follows path states
 * and a persistent discovery controller, and kicks hardware queues; also
 * its start (mp_start) and what the device answers of its paths.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <mqblk/driver.h>

#include "host.h"
#include "mpath_dev.h"

/*
 * Path i did not answer when the device opened (or at the last retry):
 * the control thread connects it again, as the kernel's reconnect work
 * does for a controller that lost its connection: every reconnect_delay
 * it starts mp_path_connect_fn, and on a later pass takes what that found.
 * Once connected and checked, a queue of it is opened in every hctx (in
 * hctx order) and the path joins: true, and its ANA state is as read at
 * connect. No answer again: retried after reconnect_delay, until
 * ctrl_loss_tmo from the open; then, or on any other failure (a refusal,
 * another namespace, fewer queues), it is given up (true: held I/O may
 * have no path left). False while it connects or waits to.
 */
static bool path_retry(struct mp_dev *md, unsigned i)
{
	struct mp_path *p = &md->path[i];
	unsigned n = mqblk_dev_nr_hw_queues(md->dev), k, have = 0;
	char err[512] = "";
	int ret;

	switch (atomic_load_explicit(&p->conn, memory_order_acquire)) {
	case MP_CONN_BUSY:
		return false;
	case MP_CONN_DONE:
		mp_path_connect_join(p);
		ret = p->conn_ret;
		snprintf(err, sizeof(err), "%s", p->conn_err);
		break;
	default:
		if (mp_now_ms() < p->retry_ms)
			return false;
		pthread_mutex_lock(&md->lock);
		for (k = 0; k < n && k < MP_MAX_HCTX; k++)
			have += md->hctx[k] != NULL;
		pthread_mutex_unlock(&md->lock);
		if (have < n || n > MP_MAX_HCTX) {
			/* the device is still setting up (or closing) */
			p->retry_ms = mp_now_ms() + MP_TICK_MS;
			return false;
		}
		p->md = md;
		atomic_store(&p->conn, MP_CONN_BUSY);
		ret = pthread_create(&p->conn_thread, NULL, mp_path_connect_fn,
				     p);
		if (!ret)
			return false;
		atomic_store(&p->conn, MP_CONN_IDLE);
		ret = -ret;
		snprintf(err, sizeof(err), "cannot start its connect: %s",
			 strerror(-ret));
		p->give_up_ms = 0; /* not a transient failure */
		break;
	}
	if (ret && mp_err_transient(ret) && mp_now_ms() < p->give_up_ms) {
		p->retry_ms = mp_now_ms() + md->reconnect_ms;
		return false;
	}
	if (!ret) {
		mp_path_baseline(p);
		pthread_mutex_lock(&md->lock);
		for (k = 0; k < n && !ret; k++) {
			struct mp_hctx *mh = md->hctx[k];

			if (!mh) {
				ret = -ENODEV; /* closing meanwhile */
				break;
			}
			pthread_mutex_lock(&mh->lock);
			ret = mp_hctx_add_path(mh, i);
			pthread_mutex_unlock(&mh->lock);
		}
		if (!ret) {
			atomic_store_explicit(&p->joined, true,
					      memory_order_release);
			pthread_mutex_unlock(&md->lock);
			p->waiting = false;
			fprintf(stderr,
				"mqblk: nvme-mpath: %s: path %s: connected "
				"(ANA state %s): joined%s\n",
				md->subnqn, p->name,
				mp_ana_state_name(atomic_load(&p->ana)),
				p->discovered ? " (found by discovery)" : "");
			return true;
		}
		while (k--) {
			struct mp_hctx *mh = md->hctx[k];

			if (mh && mh->q[i]) {
				pthread_mutex_lock(&mh->lock);
				mqblk_queue_close(mh->q[i]);
				mh->q[i] = NULL;
				pthread_mutex_unlock(&mh->lock);
			}
		}
		pthread_mutex_unlock(&md->lock);
		mqblk_dev_close(p->dev);
		p->dev = NULL;
		snprintf(err, sizeof(err),
			 "nvme-mpath: path %s: its queues: %s", p->name,
			 strerror(-ret));
	}
	if (mp_err_transient(ret))
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: path %s: no connection within "
			"ctrl_loss_tmo (%u s), last: %s: giving up on it\n",
			md->subnqn, p->name, md->loss_ms / 1000,
			err[0] ? err : strerror(-ret));
	else if (!strncmp(err, "nvme-mpath: ", 12))
		fprintf(stderr, "mqblk: %s (%s): giving up on the path\n", err,
			md->subnqn);
	else
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: path %s: %s: giving up on it\n",
			md->subnqn, p->name, err[0] ? err : strerror(-ret));
	p->waiting = false;
	atomic_store(&p->given_up, true);
	return true;
}

static void control_pass(struct mp_dev *md)
{
	bool reread = atomic_exchange(&md->ana_reread, false);
	bool kick_all = false;
	unsigned i;

	mp_disc_pass(md);
	for (i = 0; i < md->nr; i++) {
		struct mp_path *p = &md->path[i];
		struct nvmf_ctrl_info ci;
		bool want = false;

		if (!mp_path_joined(p)) {
			if (p->waiting && path_retry(md, i))
				kick_all = true;
			continue;
		}
		if (nvmf_ctrl_info(p->dev, &ci))
			continue;
		if (ci.state != p->state_seen) {
			fprintf(stderr,
				"mqblk: nvme-mpath: %s: path %s: %s -> %s\n",
				md->subnqn, p->name,
				mp_ctrl_state_name(p->state_seen),
				mp_ctrl_state_name(ci.state));
			p->state_seen = ci.state;
			kick_all = true;
			if (ci.state == NVMF_CTRL_LIVE)
				want = true; /* back: its ANA state anew */
		}
		if (ci.ana_gen != p->ana_gen_seen) {
			p->ana_gen_seen = ci.ana_gen;
			want = true;
		}
		if (atomic_load(&p->ana_pending) &&
		    (reread || mp_now_ms() - p->ana_read_ms >= MP_ANA_RETRY_MS))
			want = true;
		if (atomic_load(&p->sq_gone) && !p->sq_gone_ms) {
			p->sq_gone_ms = mp_now_ms();
			p->sq_gone_resets = ci.resets;
		}
		if (p->sq_gone_ms && ci.state == NVMF_CTRL_LIVE &&
		    (ci.resets != p->sq_gone_resets ||
		     mp_now_ms() - p->sq_gone_ms >= MP_SQ_GONE_MS)) {
			/* a new controller, or the old one lasted */
			p->sq_gone_ms = 0;
			atomic_store(&p->sq_gone, false);
			kick_all = true;
		}
		if (want && ci.state == NVMF_CTRL_LIVE && !mp_ana_read(md, p))
			kick_all = true;
		if (ci.state == NVMF_CTRL_LIVE && p->change_ms &&
		    mp_now_ms() - p->change_ms >= mp_anatt_ms(p->anatt)) {
			char why[96];

			/* nvme_anatt_timeout: a transition that does not
			 * end is a controller in trouble */
			snprintf(why, sizeof(why),
				 "ANA group %u in change past 2 x ANATT (%u s)",
				 p->anagrpid, p->anatt);
			p->change_ms = 0; /* again after the reconnect */
			nvmf_ctrl_reset(p->dev, why);
		}
	}
	pthread_mutex_lock(&md->lock);
	for (i = 0; i < MP_MAX_HCTX; i++) {
		struct mp_hctx *mh = md->hctx[i];

		if (mh && (kick_all || atomic_load(&mh->nr_held) ||
			   atomic_load(&mh->children)))
			mp_kick(mh);
	}
	pthread_mutex_unlock(&md->lock);
}

static void *mp_main(void *arg)
{
	struct mp_dev *md = arg;

	while (!atomic_load(&md->stop)) {
		struct pollfd p = { .fd = md->efd, .events = POLLIN };
		uint64_t v;

		if (poll(&p, 1, MP_TICK_MS) > 0 &&
		    read(md->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			abort();
		if (atomic_load(&md->stop))
			break;
		control_pass(md);
	}
	return NULL;
}

/*
 * Before the first hardware queue: a polled (hipri) device reopens its
 * paths polled, so a poll pass polls each path's socket directly (one
 * recv, no epoll_wait) and a path's commands wait for that pass to go out
 * in one sendmsg, as a single nvme-tcp device does; the paths were opened
 * with the local policy for init, which cannot know the device's policy.
 * Then the control thread starts.
 */
int mp_start(struct mp_dev *md, bool polled)
{
	struct mqblk_dev_opts o = md->popts;
	char err[512];
	unsigned i;
	int ret;

	for (i = 0; polled && i < md->nr; i++) {
		struct mp_path *p = &md->path[i];
		struct ns_ids ids;

		if (!mp_path_joined(p))
			continue; /* opened polled when it joins */
		mqblk_dev_close(p->dev);
		p->dev = NULL;
		o.comp_policy = MQBLK_COMP_POLLED;
		err[0] = '\0';
		ret = mqblk_dev_open(p->uri, &o, &p->dev, err, sizeof(err));
		if (!ret)
			ret = mp_path_identify(md, p, &ids, err, sizeof(err));
		if (!ret)
			ret = mp_path_matches(md, p, &ids, err, sizeof(err));
		if (ret && p->dev) {
			mqblk_dev_close(p->dev);
			p->dev = NULL;
		}
		if (ret && mp_err_transient(ret)) {
			/* gone since set-up: joins later, as one that
			 * did not answer at open */
			atomic_store(&p->joined, false);
			mp_path_wait(md, p);
			fprintf(stderr,
				"mqblk: nvme-mpath: %s: path %s: reopening it "
				"polled: %s; retrying every %u s\n",
				md->subnqn, p->name,
				err[0] ? err : strerror(-ret),
				md->reconnect_ms / 1000);
			continue;
		}
		if (ret) {
			fprintf(stderr,
				"mqblk: nvme-mpath: path %s: reopening it "
				"polled: %s\n",
				p->name, err[0] ? err : strerror(-ret));
			return ret;
		}
		mp_path_baseline(p);
	}
	for (i = 0; i < md->nr && !mp_path_joined(&md->path[i]); i++)
		;
	if (i == md->nr) {
		fprintf(stderr,
			"mqblk: nvme-mpath: %s: no path left after reopening "
			"them polled\n",
			md->subnqn);
		return -ENOTCONN;
	}
	if (polled)
		md->popts.comp_policy = MQBLK_COMP_POLLED;
	md->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (md->efd < 0)
		return -errno;
	ret = pthread_create(&md->thread, NULL, mp_main, md);
	if (ret) {
		close(md->efd);
		md->efd = -1;
		return -ret;
	}
	md->running = true;
	return 0;
}

int mp_get_paths(const struct mqblk_dev *dev, struct mqblk_path_stats *out,
		 unsigned max)
{
	struct mp_dev *md = mqblk_dev_data(dev);
	int cur = atomic_load(&md->current);
	unsigned nr = atomic_load_explicit(&md->nr, memory_order_acquire), i;

	for (i = 0; i < nr && i < max; i++) {
		struct mp_path *p = &md->path[i];
		struct mqblk_path_stats *s = &out[i];
		struct nvmf_ctrl_info ci;

		memset(s, 0, sizeof(*s));
		memset(&ci, 0, sizeof(ci));
		snprintf(s->name, sizeof(s->name), "%s", p->name);
		if (mp_path_joined(p)) {
			nvmf_ctrl_info(p->dev, &ci);
			snprintf(s->state, sizeof(s->state), "%s",
				 mp_ctrl_state_name(ci.state));
		} else {
			/* not connected since the device opened */
			snprintf(s->state, sizeof(s->state), "%s",
				 atomic_load(&p->given_up) ? "dead" :
							     "connecting");
		}
		snprintf(s->ana_state, sizeof(s->ana_state), "%s",
			 mp_ana_state_name(atomic_load(&p->ana)));
		s->current = md->pol != MP_IOPOLICY_QD && (int)i == cur;
		s->sent = atomic_load(&p->sent);
		s->completed = atomic_load(&p->completed);
		s->failovers = atomic_load(&p->failovers);
		s->reconnects = ci.resets - p->resets_base;
		s->stalls = ci.stalls;
		s->inflight = atomic_load(&p->inflight);
		s->discovered = p->discovered;
	}
	return (int)nr;
}

/* An admin command to the device goes to one controller: the current
 * path if it is live, else the first live one (nvme-cli on a multipath
 * head node reaches a controller of the subsystem the same way). */
int mp_nvme_admin(struct mqblk_dev *dev, void *sqe, void *data, uint32_t len,
		  bool to_dev, uint32_t *result, uint16_t *status)
{
	struct mp_dev *md = mqblk_dev_data(dev);
	int cur = atomic_load(&md->current);
	unsigned i;

	if (cur >= 0 && (unsigned)cur < md->nr &&
	    mp_path_joined(&md->path[cur]) &&
	    nvmf_ctrl_state(md->path[cur].dev) == NVMF_CTRL_LIVE)
		return mqblk_dev_nvme_admin(md->path[cur].dev, sqe, data, len,
					    to_dev, result, status);
	for (i = 0; i < md->nr; i++)
		if (mp_path_joined(&md->path[i]) &&
		    nvmf_ctrl_state(md->path[i].dev) == NVMF_CTRL_LIVE)
			return mqblk_dev_nvme_admin(md->path[i].dev, sqe, data,
						    len, to_dev, result,
						    status);
	return -EIO;
}

const char *mp_iopolicy_of(const struct mqblk_dev *dev)
{
	struct mp_dev *md = mqblk_dev_data(dev);

	return mp_iopolicy_name(md->pol);
}
