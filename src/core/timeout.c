// SPDX-License-Identifier: MIT
/*
 * Request deadlines: a per-device thread keeps a coarse clock (the core's
 * "jiffies", read on dispatch without a clock call) and scans the tag sets
 * for requests in flight past their deadline, handing each to the
 * driver's timeout op.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "clock.h"
#include "core.h"

static void rq_expire(struct mqblk_dev *dev, struct mqblk_tags *t,
		      struct mqblk_rq *rq, uint64_t now)
{
	enum mqblk_timeout_ret ret;

	/* pin the request: mqblk_rq_put() waits while this is set, so the
	 * tag cannot be reused under the driver's timeout handler */
	atomic_store(&t->timing_out[rq->tag], 1);
	if (atomic_load(&rq->state) != RQ_IN_FLIGHT ||
	    __atomic_load_n(&rq->deadline_ns, __ATOMIC_RELAXED) > now)
		goto out;
	if (!dev->ops->timeout) {
		/* no handler: the driver keeps no reference it could use
		 * after this, so fail the request here */
		mqblk_complete_rq(rq, -ETIMEDOUT, 0);
		goto out;
	}
	/* as blk-mq: EH_DONE hands the request to the driver, which has
	 * completed it or will (completing it here could recycle the tag
	 * while the driver still has the command queued) */
	ret = dev->ops->timeout(rq);
	if (ret == MQBLK_EH_RESET_TIMER)
		__atomic_store_n(&rq->deadline_ns, now + dev->timeout_ns,
				 __ATOMIC_RELAXED);
out:
	atomic_store_explicit(&t->timing_out[rq->tag], 0, memory_order_release);
}

static void timeout_scan(struct mqblk_dev *dev, uint64_t now)
{
	unsigned s, i;

	for (s = 0; s < dev->nr_tag_sets; s++) {
		struct mqblk_tags *t = &dev->tags[s];

		for (i = 0; i < t->depth; i++) {
			struct mqblk_rq *rq = tags_rq(t, i);

			/* a shared tagset holds other devices' too */
			if (atomic_load_explicit(&rq->state,
						 memory_order_acquire) ==
				    RQ_IN_FLIGHT &&
			    __atomic_load_n(&rq->hctx, __ATOMIC_RELAXED)->dev ==
				    dev &&
			    __atomic_load_n(&rq->deadline_ns,
					    __ATOMIC_RELAXED) <= now)
				rq_expire(dev, t, rq, now);
		}
	}
}

static void *timeout_fn(void *arg)
{
	struct mqblk_dev *dev = arg;
	struct pollfd pfd = { .fd = dev->timeout_stop_fd, .events = POLLIN };
	int ms = (int)(dev->timeout_tick_ns / 1000000);

	for (;;) {
		uint64_t now;

		if (poll(&pfd, 1, ms) > 0)
			return NULL;
		now = clock_now_ns();
		atomic_store_explicit(&dev->jiffies_ns, now,
				      memory_order_relaxed);
		timeout_scan(dev, now);
	}
}

int timeout_start(struct mqblk_dev *dev)
{
	int ret;

	/* check four times per timeout period, between 1 ms and 1 s */
	dev->timeout_tick_ns = dev->timeout_ns / 4;
	if (dev->timeout_tick_ns < 1000000)
		dev->timeout_tick_ns = 1000000;
	if (dev->timeout_tick_ns > 1000000000)
		dev->timeout_tick_ns = 1000000000;
	atomic_store(&dev->jiffies_ns, clock_now_ns());
	dev->timeout_stop_fd = eventfd(0, EFD_CLOEXEC);
	if (dev->timeout_stop_fd < 0)
		return -errno;
	ret = -pthread_create(&dev->timeout_thread, NULL, timeout_fn, dev);
	if (ret) {
		close(dev->timeout_stop_fd);
		return ret;
	}
	dev->timeout_running = true;
	return 0;
}

void timeout_stop(struct mqblk_dev *dev)
{
	uint64_t one = 1;

	if (!dev->timeout_running)
		return;
	if (write(dev->timeout_stop_fd, &one, sizeof(one)) < 0)
		abort();
	pthread_join(dev->timeout_thread, NULL);
	close(dev->timeout_stop_fd);
	dev->timeout_running = false;
}
