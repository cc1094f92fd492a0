// SPDX-License-Identifier: MIT
/*
 * Software queues, one per submitting thread: opening one onto its
 * hardware queue (and the interrupt fd it may sleep on), closing it
 * drained, and what its owner reads of it.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core.h"

static void queue_waiter_wake(struct sbq_waiter *w)
{
	struct mqblk_queue *q =
		(struct mqblk_queue *)((char *)w -
				       offsetof(struct mqblk_queue, waiter));

	queue_wake(q);
}

int mqblk_queue_open(struct mqblk_dev *dev, struct mqblk_queue **qp)
{
	struct mqblk_queue *q;
	struct mqblk_hctx *h;
	int ret;

	q = aligned_alloc(CORE_CACHELINE, (sizeof(*q) + CORE_CACHELINE -
					   1) & ~(size_t)(CORE_CACHELINE - 1));
	if (!q)
		return -ENOMEM;
	memset(q, 0, sizeof(*q));
	q->dev = dev;
	atomic_init(&q->tid, core_gettid());
	q->policy = dev->policy;
	q->split_max = dev->lim.max_hw_bytes ? dev->lim.max_hw_bytes :
					       UINT32_MAX;
	q->epfd = -1;
	rq_list_init(&q->plug);
	rq_list_init(&q->done);
	rq_list_init(&q->split_next);
	q->waiter.wake = queue_waiter_wake;
	q->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (q->wake_fd < 0) {
		ret = -errno;
		goto out_free;
	}

	pthread_mutex_lock(&dev->lock);
	/* the kernel's blk_mq_map_queues: software queue i -> hw i % nr */
	q->idx = dev->next_queue_idx++;
	h = &dev->hctx[q->idx % dev->nr_hw_queues];
	if (h->nr_ctx && !h->need_lock) {
		/* more submitters than the device was opened for: this hw
		 * queue dispatches without a lock and must stay single */
		dev->next_queue_idx--;
		pthread_mutex_unlock(&dev->lock);
		ret = -EBUSY;
		goto out_close;
	}
	/* read unlocked by queue_wait_step: relaxed atomics */
	__atomic_fetch_add(&h->nr_ctx, 1, __ATOMIC_RELAXED);
	dev->nr_queues_open++;
	pthread_mutex_unlock(&dev->lock);
	q->hctx = h;
	q->tags = h->tags;
	q->tag_hint = (unsigned)(q->idx * 7919u) % q->tags->depth;
	sched_queue_attach(q);

	if (q->policy == MQBLK_COMP_LOCAL && h->irq_fd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN };
		/* the irq fd is every submitter's of h: edge-triggered and
		 * exclusive, so one arrival wakes one sleeper, and a thread
		 * that loses the poll to another does not spin on a fd that
		 * stays readable until that one has read it (the missed
		 * flag makes the other poll again) */
		struct epoll_event irq_ev = {
			.events = EPOLLIN | EPOLLET | EPOLLEXCLUSIVE,
			.data.u32 = 1,
		};

		q->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (q->epfd < 0) {
			ret = -errno;
			goto out_unmap;
		}
		ev.data.u32 = 0;
		if (epoll_ctl(q->epfd, EPOLL_CTL_ADD, q->wake_fd, &ev)) {
			ret = -errno;
			goto out_unmap;
		}
		/* (not for an irq fd that is itself an epoll set, as
		 * nvme-tcp's: the kernel refuses EPOLLEXCLUSIVE there) */
		if (epoll_ctl(q->epfd, EPOLL_CTL_ADD, h->irq_fd, &irq_ev) &&
		    (errno != EINVAL ||
		     (irq_ev.events &= ~(uint32_t)EPOLLEXCLUSIVE,
		      epoll_ctl(q->epfd, EPOLL_CTL_ADD, h->irq_fd, &irq_ev)))) {
			ret = -errno;
			goto out_unmap;
		}
	}
	*qp = q;
	return 0;

out_unmap:
	sched_queue_detach(q);
	if (q->epfd >= 0)
		close(q->epfd);
	pthread_mutex_lock(&dev->lock);
	__atomic_fetch_sub(&h->nr_ctx, 1, __ATOMIC_RELAXED);
	dev->nr_queues_open--;
	pthread_mutex_unlock(&dev->lock);
out_close:
	close(q->wake_fd);
out_free:
	free(q);
	return ret;
}

void mqblk_queue_close(struct mqblk_queue *q)
{
	struct mqblk_dev *dev;
	struct mqblk_rq *rqs[64];

	if (!q)
		return;
	dev = q->dev;
	if (q->plug_depth) {
		q->plug_depth = 1;
		mqblk_unplug(q);
	}
	/* drain: nothing may complete into a freed queue */
	while (q->inflight) {
		int i, n = mqblk_reap(q, rqs, 1, 64, -1);

		for (i = 0; i < n; i++)
			mqblk_rq_put(rqs[i]);
		if (n < 0)
			break;
	}
	/* a completer may still be writing our wake-up */
	while (atomic_load_explicit(&q->producers, memory_order_acquire))
		sched_yield();
	while (q->nr_bufs)
		dev->ops->unmap_buf(q->hctx, q->bufs[--q->nr_bufs]);
	sched_queue_detach(q);
	pthread_mutex_lock(&dev->lock);
	__atomic_fetch_sub(&q->hctx->nr_ctx, 1, __ATOMIC_RELAXED);
	dev->nr_queues_open--;
	pthread_mutex_unlock(&dev->lock);
	if (q->epfd >= 0)
		close(q->epfd);
	close(q->wake_fd);
	free(q);
}

void mqblk_queue_get_stats(const struct mqblk_queue *q,
			   struct mqblk_queue_stats *st)
{
	*st = q->st;
	st->wakeups = atomic_load_explicit(&q->wakeups, memory_order_relaxed);
}

unsigned mqblk_queue_inflight(const struct mqblk_queue *q)
{
	return q->inflight;
}

void mqblk_queue_claim(struct mqblk_queue *q)
{
	pid_t me = core_gettid();

	/* relaxed: a thread that is not the owner goes remote whichever
	 * value it reads, and owners change only under the caller's lock */
	if (atomic_load_explicit(&q->tid, memory_order_relaxed) != me)
		atomic_store_explicit(&q->tid, me, memory_order_relaxed);
}

unsigned mqblk_queue_completed(const struct mqblk_queue *q)
{
	return q->done.nr;
}

int mqblk_queue_fd(struct mqblk_queue *q)
{
	if (q->epfd >= 0)
		return q->epfd; /* LOCAL with an irq fd */
	if (q->policy == MQBLK_COMP_REMOTE || q->policy == MQBLK_COMP_BATCHED)
		return q->wake_fd;
	if (q->policy == MQBLK_COMP_IRQ) {
		/* its owner will sleep on the fd, where the core cannot
		 * see it: every hand-over wakes from now on */
		atomic_store_explicit(&q->sleeping, QUEUE_SLEEP_ALWAYS,
				      memory_order_seq_cst);
		return q->wake_fd;
	}
	return -1;
}

int mqblk_queue_map_buf(struct mqblk_queue *q, void *base, size_t len)
{
	int ret;

	if (!q->dev->ops->map_buf)
		return -EOPNOTSUPP;
	if (q->nr_bufs == MQBLK_QUEUE_MAX_BUFS)
		return -ENOSPC;
	ret = q->dev->ops->map_buf(q->hctx, base, len);
	if (!ret)
		q->bufs[q->nr_bufs++] = base;
	return ret;
}
