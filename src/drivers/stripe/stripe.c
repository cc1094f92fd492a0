// SPDX-License-Identifier: MIT
/*
 * The stripe device: RAID 0 over N member devices (seed 004's "two 8-drive
 * RAID 0 virtual disks behind one adapter"), a client of its members
 * through the public API, as the NVMe/TCP target is of its namespaces.
 *
 * URI: stripe:chunk=64k,members=8,member=null:size=1g;irqmode=2
 *      stripe:member0=null:size=1g,member1=./disk.img
 * The core splits keys on ',', so inside a member URI ';' stands for ','.
 * member=URI with members=N opens N copies of one URI; memberK=URI (K from
 * 0, no gaps) lists distinct ones. chunk (default 64k) is a power of two,
 * at least the members' logical block size, which must all be the same.
 * Capacity: N x (smallest member, rounded down to whole chunks).
 *
 * Layout: stripe chunk s lives on member s % N at member chunk s / N. A
 * request is cut at chunk boundaries into one child request per piece on
 * the member's software queue (flush: one per member). The parent
 * completes once every child has: with the first error (-errno and NVMe
 * status) or its full length.
 *
 * Queues: each stripe hardware queue opens one software queue on every
 * member (init_hctx). Those queues are used by whichever thread runs
 * queue_rq or poll on the stripe hctx, one at a time: a mutex per stripe
 * hctx serialises them (queue_rq and poll may otherwise overlap on two
 * threads). It costs one uncontended lock per request batch and per poll
 * pass, and contention when an interrupt thread (remote/batched) polls
 * while the submitter submits. The stripe hctx's interrupt is an epoll set
 * of its member queues' fds (mqblk_queue_fd) plus a "kick" eventfd for
 * what no fd reports: members that complete inline or must be polled, and
 * children a member refused BUSY (retried by reaping that member).
 *
 * Members are opened with the local policy and as if each of their
 * hardware queues had two submitters (the stripe's submitter and its
 * poller may be different threads), so no member binds a queue to one
 * thread (uring's SINGLE_ISSUER ring would refuse the second).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <mqblk/driver.h>

#include "stripe.h"

#define STRIPE_DEFAULT_DEPTH 128
#define STRIPE_REAP_BATCH 64
#define STRIPE_KICK STRIPE_MAX_MEMBERS /* epoll tag of the kick fd */

struct stripe_dev {
	struct stripe_conf conf;
	unsigned nr; /* members */
	uint64_t chunk;
	unsigned chunk_shift;
	uint64_t member_bytes; /* used of each member: whole chunks */
	unsigned max_per_member; /* children of one request on one member */
	struct mqblk_dev *member[STRIPE_MAX_MEMBERS];
	/* counters: relaxed atomics, hctxs update them concurrently */
	_Atomic uint64_t parents, split, busy;
	_Atomic uint64_t children[STRIPE_MAX_MEMBERS];
};

struct stripe_mq {
	struct mqblk_queue *q;
	bool no_fd; /* nothing to wait on: reap it while it has children */
	uint64_t requeues_seen;
};

struct stripe_hctx {
	struct stripe_dev *sd;
	pthread_mutex_t lock; /* member queues, plug state, scratch */
	int epfd; /* the irq fd: member queue fds + kick_fd */
	int kick_fd;
	bool plugged;
	uint64_t touched; /* members with children since the plug */
	uint64_t retry; /* members that refused a child BUSY */
	struct stripe_mq mq[STRIPE_MAX_MEMBERS];
	struct {
		struct mqblk_rq *rq;
		unsigned m;
	} * scratch; /* children of one parent, before submit */
	unsigned scratch_cap;
};

/* Per parent request. Children complete only through this hctx's reaping,
 * under its lock, so plain fields do. */
struct stripe_cmd {
	unsigned pending;
	int res;
	uint16_t status;
};

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

/* The hardware queues the stripe offers: the core key nr_hw_queues when
 * given (the core has checked it), else the online CPUs. Members must know
 * it at open, before the core picks the stripe's count (<= this). */
static unsigned stripe_hw_queues(const struct mqblk_params *params)
{
	unsigned i;

	for (i = 0; i < params->nr; i++)
		if (!strcmp(params->v[i].key, "nr_hw_queues"))
			return (unsigned)strtoul(params->v[i].val, NULL, 0);
	return online_cpus();
}

static void stripe_close_members(struct stripe_dev *sd)
{
	unsigned i;

	for (i = 0; i < sd->nr; i++)
		mqblk_dev_close(sd->member[i]);
}

static int stripe_open_members(struct mqblk_dev *dev, struct stripe_dev *sd,
			       unsigned nr_hw, char *err, size_t errlen)
{
	struct mqblk_dev_opts o;
	uint64_t smallest = UINT64_MAX;
	uint32_t bs = 0;
	unsigned i;
	int ret;

	mqblk_dev_opts_init(&o);
	o.nr_hw_queues = nr_hw;
	o.nr_queues = 2 * nr_hw; /* see the header: no single-thread queues */
	o.comp_policy = MQBLK_COMP_LOCAL;
	o.flags = mqblk_dev_open_flags(dev);
	for (i = 0; i < sd->nr; i++) {
		char merr[200];
		uint64_t size;

		merr[0] = '\0';
		ret = mqblk_dev_open(sd->conf.member[i], &o, &sd->member[i],
				     merr, sizeof(merr));
		if (ret) {
			snprintf(err, errlen, "stripe: member %u: %s", i,
				 merr[0] ? merr : strerror(-ret));
			goto out_close;
		}
		if (!bs)
			bs = mqblk_dev_block_size(sd->member[i]);
		if (mqblk_dev_block_size(sd->member[i]) != bs) {
			snprintf(
				err, errlen,
				"stripe: member %u has %u-byte blocks, member 0 has %u",
				i, mqblk_dev_block_size(sd->member[i]), bs);
			ret = -EINVAL;
			i++;
			goto out_close;
		}
		size = mqblk_dev_size(sd->member[i]);
		if (size < sd->chunk) {
			snprintf(
				err, errlen,
				"stripe: member %u (%llu bytes) is smaller than one chunk (%llu)",
				i, (unsigned long long)size,
				(unsigned long long)sd->chunk);
			ret = -EINVAL;
			i++;
			goto out_close;
		}
		if (size < smallest)
			smallest = size;
		if (!i ||
		    mqblk_dev_queue_depth(sd->member[i]) < sd->max_per_member)
			sd->max_per_member =
				mqblk_dev_queue_depth(sd->member[i]);
	}
	if (sd->chunk < bs) {
		snprintf(
			err, errlen,
			"stripe: chunk %llu is smaller than the members' %u-byte blocks",
			(unsigned long long)sd->chunk, bs);
		ret = -EINVAL;
		goto out_close;
	}
	sd->member_bytes = smallest & ~(sd->chunk - 1);
	return (int)bs;

out_close:
	while (i--)
		mqblk_dev_close(sd->member[i]);
	return ret;
}

static int stripe_init(struct mqblk_dev *dev, struct mqblk_params *params,
		       struct mqblk_dev_limits *lim, char *err, size_t errlen)
{
	struct stripe_dev *sd = calloc(1, sizeof(*sd));
	unsigned nr_hw = stripe_hw_queues(params), i;
	int ret;

	if (!sd)
		return -ENOMEM;
	ret = stripe_conf_parse(params, &sd->conf, err, errlen);
	if (ret)
		goto out_free;
	sd->nr = sd->conf.nr_members;
	sd->chunk = sd->conf.chunk;
	sd->chunk_shift =
		63 - (unsigned)__builtin_clzll(sd->chunk | 1); /* log2 */
	if (!nr_hw)
		nr_hw = 1;
	ret = stripe_open_members(dev, sd, nr_hw, err, errlen);
	if (ret < 0)
		goto out_conf;
	lim->capacity = sd->member_bytes * sd->nr;
	lim->logical_block_size = (uint32_t)ret;
	/* the smallest of the members' (a member's own core would split a
	 * child past its limit anyway: this splits once, up front) */
	for (i = 0; i < sd->nr; i++) {
		uint32_t m = mqblk_dev_max_transfer(sd->member[i]);

		if (m && (!lim->max_hw_bytes || m < lim->max_hw_bytes))
			lim->max_hw_bytes = m;
	}
	lim->max_hw_queues = nr_hw;
	if (!lim->queue_depth)
		lim->queue_depth = STRIPE_DEFAULT_DEPTH;
	lim->shared_tags = false;
	lim->cmd_size = sizeof(struct stripe_cmd);
	lim->default_policy = MQBLK_COMP_LOCAL;
	lim->has_irq = true;
	mqblk_dev_set_data(dev, sd);
	return 0;

out_conf:
	stripe_conf_free(&sd->conf);
out_free:
	free(sd);
	return ret;
}

static void stripe_exit(struct mqblk_dev *dev)
{
	struct stripe_dev *sd = mqblk_dev_data(dev);
	struct stripe_stats st;
	unsigned i;

	if (!sd)
		return;
	if (sd->conf.verbose && !stripe_get_stats(dev, &st)) {
		fprintf(stderr,
			"stripe: %u members, %llu requests, %llu split, %llu busy, children",
			st.nr_members, (unsigned long long)st.parents,
			(unsigned long long)st.split,
			(unsigned long long)st.busy);
		for (i = 0; i < st.nr_members; i++)
			fprintf(stderr, " %llu",
				(unsigned long long)st.children[i]);
		fputc('\n', stderr);
	}
	stripe_close_members(sd);
	stripe_conf_free(&sd->conf);
	free(sd);
}

/* ---- hardware queues ---- */

static void stripe_hctx_free(struct stripe_hctx *sh)
{
	unsigned i;

	for (i = 0; i < sh->sd->nr; i++)
		if (sh->mq[i].q)
			mqblk_queue_close(sh->mq[i].q);
	if (sh->epfd >= 0)
		close(sh->epfd);
	if (sh->kick_fd >= 0)
		close(sh->kick_fd);
	pthread_mutex_destroy(&sh->lock);
	free(sh->scratch);
	free(sh);
}

static int stripe_init_hctx(struct mqblk_hctx *hctx, unsigned idx)
{
	struct stripe_dev *sd = mqblk_dev_data(mqblk_hctx_dev(hctx));
	struct stripe_hctx *sh = calloc(1, sizeof(*sh));
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned i;
	int ret;

	(void)idx;
	if (!sh)
		return -ENOMEM;
	sh->sd = sd;
	pthread_mutex_init(&sh->lock, NULL);
	sh->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	sh->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sh->kick_fd < 0 || sh->epfd < 0)
		goto out_errno;
	ev.data.u32 = STRIPE_KICK;
	if (epoll_ctl(sh->epfd, EPOLL_CTL_ADD, sh->kick_fd, &ev))
		goto out_errno;
	for (i = 0; i < sd->nr; i++) {
		int fd;

		/* member queue idx maps to member hw queue idx % its count:
		 * hctxs are set up in order, so it follows the stripe's */
		ret = mqblk_queue_open(sd->member[i], &sh->mq[i].q);
		if (ret)
			goto out_free;
		fd = mqblk_queue_fd(sh->mq[i].q);
		if (fd < 0) {
			sh->mq[i].no_fd = true;
			continue;
		}
		ev.data.u32 = i;
		if (epoll_ctl(sh->epfd, EPOLL_CTL_ADD, fd, &ev))
			goto out_errno;
	}
	mqblk_hctx_set_data(hctx, sh);
	mqblk_hctx_set_irq_fd(hctx, sh->epfd);
	return 0;

out_errno:
	ret = -errno;
out_free:
	stripe_hctx_free(sh);
	return ret;
}

static void stripe_exit_hctx(struct mqblk_hctx *hctx)
{
	struct stripe_hctx *sh = mqblk_hctx_data(hctx);

	if (sh)
		stripe_hctx_free(sh);
}

static void stripe_kick(struct stripe_hctx *sh)
{
	uint64_t one = 1;

	/* EAGAIN: the counter is saturated, a wake is pending anyway */
	if (write(sh->kick_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		abort();
}

/* A child is back: fold it into its parent, complete the parent when it
 * was the last. Returns 1 when a parent completed. */
static int stripe_child_done(struct mqblk_rq *child)
{
	struct mqblk_rq *parent = child->private;
	struct stripe_cmd *cmd = mqblk_rq_pdu(parent);
	int res = child->res;

	if (res >= 0 && (uint32_t)res != child->len)
		res = -EIO; /* a member transferred less than asked */
	if (res < 0 && cmd->res >= 0) {
		cmd->res = res;
		cmd->status = child->nvme_status;
	}
	mqblk_rq_put(child);
	if (--cmd->pending)
		return 0;
	mqblk_complete_rq(parent, cmd->res < 0 ? cmd->res : (int)parent->len,
			  cmd->status);
	return 1;
}

/* Did member i refuse a child BUSY since we last looked? Then it holds
 * the child until its queue is reaped again: remember to. */
static bool stripe_saw_requeue(struct stripe_hctx *sh, unsigned i)
{
	struct mqblk_queue_stats st;

	mqblk_queue_get_stats(sh->mq[i].q, &st);
	if (st.requeues == sh->mq[i].requeues_seen)
		return false;
	sh->mq[i].requeues_seen = st.requeues;
	return true;
}

/* Reap what member i has ready (a peek: never sleeps). Lock held. Returns
 * the parents completed, or -1 when nothing came back. */
static int stripe_reap_member(struct stripe_hctx *sh, unsigned i)
{
	struct mqblk_rq *rqs[STRIPE_REAP_BATCH];
	int n, j, done = 0;
	bool any = false;

	/* what this thread completes there stays here: the member queues
	 * were opened at set-up, and a completion handed over to that
	 * thread is a wake-up this one would read back */
	mqblk_queue_claim(sh->mq[i].q);
	/* even with nothing in flight: a readable fd is a wake-up to take */
	for (;;) {
		n = mqblk_reap(sh->mq[i].q, rqs, 1, STRIPE_REAP_BATCH, 0);
		if (n <= 0)
			break;
		any = true;
		for (j = 0; j < n; j++)
			done += stripe_child_done(rqs[j]);
		if (n < STRIPE_REAP_BATCH &&
		    !mqblk_queue_completed(sh->mq[i].q))
			break;
	}
	return any ? done : -1;
}

/* After a batch went out: reap members that report nothing by fd (inline
 * completion), and make sure poll comes round for what is still pending
 * there or was refused BUSY. Lock held. */
static void stripe_unplug(struct stripe_hctx *sh)
{
	struct stripe_dev *sd = sh->sd;
	bool kick = false;
	unsigned i;

	if (!sh->plugged)
		return;
	sh->plugged = false;
	for (i = 0; i < sd->nr; i++)
		mqblk_unplug(sh->mq[i].q);
	for (i = 0; i < sd->nr; i++) {
		if (!(sh->touched & (1ull << i)))
			continue;
		if (stripe_saw_requeue(sh, i))
			sh->retry |= 1ull << i;
		/* completed inline (no fd, or on a queue this thread
		 * owns): nothing will say so */
		if (sh->mq[i].no_fd || mqblk_queue_completed(sh->mq[i].q))
			stripe_reap_member(sh, i);
		if (sh->mq[i].no_fd && mqblk_queue_inflight(sh->mq[i].q))
			kick = true;
	}
	sh->touched = 0;
	if (kick || sh->retry)
		stripe_kick(sh);
}

static bool stripe_scratch(struct stripe_hctx *sh, unsigned n)
{
	void *s;

	if (n <= sh->scratch_cap)
		return true;
	s = realloc(sh->scratch, n * sizeof(*sh->scratch));
	if (!s)
		return false;
	sh->scratch = s;
	sh->scratch_cap = n;
	return true;
}

/* One child on member m; NULL when it has no free tag. */
static struct mqblk_rq *stripe_child(struct stripe_hctx *sh, unsigned m,
				     struct mqblk_rq *parent, uint64_t off,
				     uint32_t len, void *buf)
{
	struct mqblk_rq *c = mqblk_rq_get(sh->mq[m].q, MQBLK_RQ_NOWAIT);

	if (!c)
		return NULL;
	c->op = parent->op;
	c->flags = parent->flags;
	c->offset = off;
	c->len = len;
	c->buf = buf;
	c->private = parent;
	return c;
}

static enum mqblk_status stripe_queue_rq(struct mqblk_hctx *hctx,
					 struct mqblk_rq *rq, bool last)
{
	struct stripe_hctx *sh = mqblk_hctx_data(hctx);
	struct stripe_dev *sd = sh->sd;
	struct stripe_cmd *cmd = mqblk_rq_pdu(rq);
	bool has_data = rq->op == MQBLK_OP_READ || rq->op == MQBLK_OP_WRITE;
	unsigned n = 0, i, first = 0;
	bool split = false;
	enum mqblk_status sts = MQBLK_STS_OK;
	int err = 0;

	pthread_mutex_lock(&sh->lock);
	if (!sh->plugged) {
		/* one doorbell per member for the core's whole batch */
		for (i = 0; i < sd->nr; i++)
			mqblk_plug(sh->mq[i].q);
		sh->plugged = true;
	}
	/* all or nothing: take every child's tag before submitting any */
	if (rq->op == MQBLK_OP_FLUSH) {
		if (!stripe_scratch(sh, sd->nr))
			goto busy;
		for (i = 0; i < sd->nr; i++) {
			sh->scratch[n].rq = stripe_child(sh, i, rq, 0, 0, NULL);
			if (!sh->scratch[n].rq)
				goto busy;
			sh->scratch[n++].m = i;
		}
		split = sd->nr > 1;
	} else {
		uint64_t off = rq->offset, left = rq->len;
		char *buf = rq->buf;
		uint64_t pieces =
			((rq->offset + rq->len - 1) >> sd->chunk_shift) -
			(rq->offset >> sd->chunk_shift) + 1;

		if ((pieces + sd->nr - 1) / sd->nr > sd->max_per_member) {
			/* more children on one member than it has tags:
			 * it could never go out whole */
			if (last)
				stripe_unplug(sh);
			pthread_mutex_unlock(&sh->lock);
			mqblk_complete_rq(rq, -EINVAL, 0);
			return MQBLK_STS_OK;
		}
		if (!stripe_scratch(sh, (unsigned)pieces))
			goto busy;
		while (left) {
			uint64_t s = off >> sd->chunk_shift;
			uint64_t in = off & (sd->chunk - 1);
			uint64_t len = sd->chunk - in < left ? sd->chunk - in :
							       left;
			unsigned m = (unsigned)(s % sd->nr);
			uint64_t moff = ((s / sd->nr) << sd->chunk_shift) + in;

			sh->scratch[n].rq = stripe_child(sh, m, rq, moff,
							 (uint32_t)len,
							 has_data ? buf : NULL);
			if (!sh->scratch[n].rq)
				goto busy;
			sh->scratch[n].m = m;
			if (!n)
				first = m;
			else if (m != first)
				split = true;
			n++;
			off += len;
			left -= len;
			if (has_data)
				buf += len;
		}
	}
	cmd->pending = n;
	cmd->res = 0;
	cmd->status = 0;
	for (i = 0; i < n; i++) {
		struct mqblk_rq *c = sh->scratch[i].rq;
		unsigned m = sh->scratch[i].m;
		int ret = err ? err : mqblk_submit(c);

		if (ret) {
			/* cannot happen for pieces inside the members; keep
			 * the parent whole: it fails once the rest is back */
			err = ret;
			mqblk_rq_put(c);
			cmd->pending--;
			if (cmd->res >= 0)
				cmd->res = ret;
			continue;
		}
		sh->touched |= 1ull << m;
		atomic_fetch_add_explicit(&sd->children[m], 1,
					  memory_order_relaxed);
	}
	atomic_fetch_add_explicit(&sd->parents, 1, memory_order_relaxed);
	if (split)
		atomic_fetch_add_explicit(&sd->split, 1, memory_order_relaxed);
	if (!cmd->pending) {
		/* nothing went out: the core completes it with -EIO */
		sts = MQBLK_STS_ERROR;
	}
	if (last)
		stripe_unplug(sh);
	pthread_mutex_unlock(&sh->lock);
	return sts;

busy:
	while (n--)
		mqblk_rq_put(sh->scratch[n].rq);
	atomic_fetch_add_explicit(&sd->busy, 1, memory_order_relaxed);
	/* the core ends its batch here without commit_rqs when nothing was
	 * queued before: send what is plugged now */
	stripe_unplug(sh);
	pthread_mutex_unlock(&sh->lock);
	return MQBLK_STS_BUSY;
}

static void stripe_commit_rqs(struct mqblk_hctx *hctx)
{
	struct stripe_hctx *sh = mqblk_hctx_data(hctx);

	pthread_mutex_lock(&sh->lock);
	stripe_unplug(sh);
	pthread_mutex_unlock(&sh->lock);
}

static int stripe_poll(struct mqblk_hctx *hctx, unsigned budget)
{
	struct stripe_hctx *sh = mqblk_hctx_data(hctx);
	struct stripe_dev *sd = sh->sd;
	struct epoll_event ev[STRIPE_MAX_MEMBERS + 1];
	uint64_t ready = 0, v, retry;
	bool kick = false;
	int n, i, r, done = 0;

	pthread_mutex_lock(&sh->lock);
	/* drained first: a kick after this read brings us back */
	if (read(sh->kick_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		abort();
	n = epoll_wait(sh->epfd, ev, STRIPE_MAX_MEMBERS + 1, 0);
	for (i = 0; i < n; i++)
		if (ev[i].data.u32 < STRIPE_KICK)
			ready |= 1ull << ev[i].data.u32;
	retry = sh->retry;
	sh->retry = 0;
	for (i = 0; i < (int)sd->nr; i++) {
		struct stripe_mq *m = &sh->mq[i];
		bool want = (ready | retry) & (1ull << i);

		if (m->no_fd && mqblk_queue_inflight(m->q))
			want = true;
		if (!want)
			continue;
		if ((unsigned)done >= budget) {
			/* budget spent: come back for the rest */
			kick = true;
			sh->retry |= retry & (1ull << i);
			continue;
		}
		r = stripe_reap_member(sh, (unsigned)i);
		if (r > 0)
			done += r;
		/* a member holding a refused child: keep reaping it until a
		 * pass dispatches it (nothing came back, no new refusal) */
		if (stripe_saw_requeue(sh, (unsigned)i) ||
		    ((retry & (1ull << i)) && r >= 0))
			sh->retry |= 1ull << i;
		if (m->no_fd && mqblk_queue_inflight(m->q))
			kick = true;
	}
	if (kick || sh->retry)
		stripe_kick(sh);
	pthread_mutex_unlock(&sh->lock);
	return done;
}

/* Children carry the members' own deadlines and end the parent when they
 * do; completing the parent here would free it under its children. */
static enum mqblk_timeout_ret stripe_timeout(struct mqblk_rq *rq)
{
	(void)rq;
	return MQBLK_EH_RESET_TIMER;
}

int stripe_get_stats(const struct mqblk_dev *dev, struct stripe_stats *st)
{
	struct stripe_dev *sd;
	unsigned i;

	if (strcmp(mqblk_dev_driver_name(dev), "stripe"))
		return -EINVAL;
	sd = mqblk_dev_data(dev);
	memset(st, 0, sizeof(*st));
	st->nr_members = sd->nr;
	st->parents = atomic_load_explicit(&sd->parents, memory_order_relaxed);
	st->split = atomic_load_explicit(&sd->split, memory_order_relaxed);
	st->busy = atomic_load_explicit(&sd->busy, memory_order_relaxed);
	for (i = 0; i < sd->nr; i++)
		st->children[i] = atomic_load_explicit(&sd->children[i],
						       memory_order_relaxed);
	return 0;
}

const struct mqblk_driver_ops mqblk_stripe_driver = {
	.name = "stripe",
	/* passed on to the members, which refuse it or honour it */
	.open_flags = MQBLK_OPEN_SYNC | MQBLK_OPEN_DSYNC,
	.init = stripe_init,
	.exit = stripe_exit,
	.init_hctx = stripe_init_hctx,
	.exit_hctx = stripe_exit_hctx,
	.queue_rq = stripe_queue_rq,
	.commit_rqs = stripe_commit_rqs,
	.poll = stripe_poll,
	.timeout = stripe_timeout,
};
