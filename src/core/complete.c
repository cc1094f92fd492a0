// SPDX-License-Identifier: MIT
/*
 * Completion routing: a driver's completion is handed to the thread that
 * submitted the request, locally, through a lockless list plus an eventfd
 * wake (the IPI), in per-pass batches (the softirq), finished where they
 * land and posted without a wake unless the submitter sleeps (IRQ), or
 * found by polling. Also the interrupt threads that serve REMOTE, BATCHED
 * and IRQ devices.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core.h"

#define COMP_BATCH_QUEUES 16

struct comp_batch {
	struct mqblk_queue *q;
	struct mqblk_rq *first, *last;
};

/* The completion context of the poll pass this thread is running. */
struct comp_ctx {
	enum mqblk_comp_path path; /* for this thread's own requests */
	bool batching; /* hand others' completions over in batches */
	bool landing; /* complete others' where they land (IRQ) */
	unsigned nr;
	struct comp_batch b[COMP_BATCH_QUEUES];
};

static __thread struct comp_ctx *tls_comp;
static __thread pid_t tls_tid;

pid_t core_gettid(void)
{
	if (!tls_tid)
		tls_tid = (pid_t)syscall(SYS_gettid);
	return tls_tid;
}

void queue_wake(struct mqblk_queue *q)
{
	uint64_t one = 1;

	atomic_fetch_add_explicit(&q->wakeups, 1, memory_order_relaxed);
	/* EAGAIN means the counter is saturated: a wake is pending anyway */
	if (write(q->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		abort();
}

void queue_drain_wake(struct mqblk_queue *q)
{
	uint64_t v;

	if (read(q->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		abort();
}

/*
 * Hand a chain to another thread's queue. producers keeps q alive until
 * the wake is written: the owner may reap the requests the instant they
 * are on its list, and close the queue.
 */
static void queue_hand_over(struct mqblk_queue *q, struct mqblk_rq *first,
			    struct mqblk_rq *last)
{
	atomic_fetch_add_explicit(&q->producers, 1, memory_order_acquire);
	if (rq_llist_add_batch(&q->remote, first, last))
		queue_wake(q);
	atomic_fetch_sub_explicit(&q->producers, 1, memory_order_release);
}

static void comp_flush(struct comp_ctx *c)
{
	unsigned i;

	for (i = 0; i < c->nr; i++)
		queue_hand_over(c->b[i].q, c->b[i].first, c->b[i].last);
	c->nr = 0;
}

static void comp_batch_add(struct comp_ctx *c, struct mqblk_queue *q,
			   struct mqblk_rq *rq)
{
	unsigned i;

	for (i = 0; i < c->nr; i++) {
		if (c->b[i].q == q) {
			/* prepend: order is restored by the consumer's
			 * reversal of the whole llist */
			rq->next = c->b[i].first;
			c->b[i].first = rq;
			return;
		}
	}
	if (c->nr == COMP_BATCH_QUEUES)
		comp_flush(c);
	rq->next = NULL;
	c->b[c->nr].q = q;
	c->b[c->nr].first = rq;
	c->b[c->nr].last = rq;
	c->nr++;
}

/*
 * IRQ: post rq on its submitter's list from the thread it landed on, and
 * wake the submitter only if it sleeps (or sleeps outside the core). The
 * seq_cst fence pairs with queue_sleep()'s: either this thread sees
 * QUEUE_SLEEP_YES, or the sleeper sees rq on the list and does not sleep.
 * One of the wakers claims the sleeper (YES -> NO) so it gets one write.
 */
static void queue_post_landed(struct mqblk_queue *q, struct mqblk_rq *rq)
{
	int s;

	atomic_fetch_add_explicit(&q->producers, 1, memory_order_acquire);
	rq_llist_add(&q->remote, rq);
	atomic_thread_fence(memory_order_seq_cst);
	s = atomic_load_explicit(&q->sleeping, memory_order_relaxed);
	if (s == QUEUE_SLEEP_ALWAYS ||
	    (s == QUEUE_SLEEP_YES &&
	     atomic_compare_exchange_strong_explicit(
		     &q->sleeping, &s, QUEUE_SLEEP_NO, memory_order_relaxed,
		     memory_order_relaxed)))
		queue_wake(q);
	atomic_fetch_sub_explicit(&q->producers, 1, memory_order_release);
}

void queue_sleep(struct mqblk_queue *q, int ms)
{
	struct pollfd pfd = { .fd = q->wake_fd, .events = POLLIN };
	bool landing = q->policy == MQBLK_COMP_IRQ && ms != 0;
	int s = QUEUE_SLEEP_NO;

	if (landing) {
		atomic_compare_exchange_strong_explicit(&q->sleeping, &s,
							QUEUE_SLEEP_YES,
							memory_order_relaxed,
							memory_order_relaxed);
		atomic_thread_fence(memory_order_seq_cst);
	}
	if (rq_llist_empty(&q->remote) && poll(&pfd, 1, ms) > 0)
		queue_drain_wake(q);
	if (landing) {
		s = QUEUE_SLEEP_YES;
		atomic_compare_exchange_strong_explicit(&q->sleeping, &s,
							QUEUE_SLEEP_NO,
							memory_order_relaxed,
							memory_order_relaxed);
	}
}

/* Deliver a completed request to its submitter by the path in force. */
static inline void rq_route(struct mqblk_rq *rq, struct comp_ctx *c)
{
	struct mqblk_queue *q = rq->q;

	if (__builtin_expect(atomic_load_explicit(
				     &q->tid, memory_order_relaxed) == tls_tid,
			     1)) {
		rq->comp_path = (uint8_t)(c ? c->path : MQBLK_PATH_LOCAL);
		rq_list_add_tail(&q->done, rq);
		return;
	}
	if (c && c->batching) {
		rq->comp_path = MQBLK_PATH_BATCHED;
		comp_batch_add(c, q, rq);
		return;
	}
	if (c && c->landing) {
		rq->comp_path = MQBLK_PATH_IRQ;
		queue_post_landed(q, rq);
		return;
	}
	rq->comp_path = MQBLK_PATH_REMOTE;
	queue_hand_over(q, rq, rq);
}

/* The bytes of a merged transfer's res that fall in [pos, pos + len). */
static int part_res(int res, uint64_t pos, uint32_t len)
{
	if (res < 0)
		return res;
	if ((uint64_t)res <= pos)
		return 0;
	return (uint64_t)res - pos >= len ? (int)len : (int)(res - pos);
}

/*
 * rq carried requests the scheduler merged into it: each completes with
 * its share of res. Its chain is read before rq is handed over (the
 * owner may put it, and its tag's scheduler state, at once).
 */
static void complete_merged(struct mqblk_rq *rq, int res, uint16_t status,
			    struct comp_ctx *c)
{
	struct sched_rq *s = rq_sched(rq);
	struct mqblk_rq *a = s->merged;
	uint64_t start = rq->offset;

	rq->len = s->own_len;
	rq->core_flags &= (uint8_t)~RQF_MERGED;
	rq->res = part_res(res, 0, rq->len);
	rq->nvme_status = status;
	rq_route(rq, c);
	while (a) {
		struct mqblk_rq *next = rq_sched(a)->merged;

		/* never in flight on its own: no timeout can race this */
		atomic_store_explicit(&a->state, RQ_COMPLETE,
				      memory_order_relaxed);
		a->res = part_res(res, a->offset - start, a->len);
		a->nvme_status = status;
		rq_route(a, c);
		a = next;
	}
}

bool mqblk_complete_rq(struct mqblk_rq *rq, int res, uint16_t nvme_status)
{
	uint32_t exp = RQ_IN_FLIGHT;
	struct comp_ctx *c = tls_comp;

	/* the first completion of this incarnation wins (a timeout and a
	 * late device completion must not both reach the submitter) */
	if (!atomic_compare_exchange_strong_explicit(
		    &rq->state, &exp, RQ_COMPLETE, memory_order_acq_rel,
		    memory_order_relaxed))
		return false;
	if (rq->q->dev->shared_tags)
		atomic_fetch_sub_explicit(&rq->hctx->nr_active, 1,
					  memory_order_relaxed);
	if (__builtin_expect(rq->core_flags & RQF_MERGED, 0)) {
		complete_merged(rq, res, nvme_status, c);
		return true;
	}
	rq->res = res;
	rq->nvme_status = nvme_status;
	rq_route(rq, c);
	return true;
}

int core_poll_hctx(struct mqblk_hctx *h, struct mqblk_queue *q,
		   enum mqblk_comp_path path, unsigned budget)
{
	struct comp_ctx c, *prev;
	int exp = 0, n;
	bool hit = false;

	if (!h->dev->ops->poll)
		return 0;
	if (budget > h->dev->poll_budget)
		budget = h->dev->poll_budget;
	if (!atomic_compare_exchange_strong_explicit(&h->polling, &exp, 1,
						     memory_order_acquire,
						     memory_order_relaxed))
		return 0;
	c.path = path;
	c.batching = !q && h->dev->policy == MQBLK_COMP_BATCHED;
	c.landing = !q && h->dev->policy == MQBLK_COMP_IRQ;
	c.nr = 0;
	prev = tls_comp;
	tls_comp = &c;
	n = 0;
	for (;;) {
		int r;

		if (atomic_load_explicit(&h->poll_missed, memory_order_relaxed))
			atomic_store_explicit(&h->poll_missed, 0,
					      memory_order_seq_cst);
		r = h->dev->ops->poll(h, budget);
		if (r > 0)
			n += r;
		else if (r < 0 && !n)
			n = r;
		hit |= r >= 0 && (unsigned)r >= budget;
		/* pairs with core_poll_hctx_irq(): a thread that found us
		 * polling set poll_missed first, so we see it here. Even
		 * after a pass that used its budget: the driver's re-raised
		 * interrupt may be the very edge that thread consumed, and
		 * it sleeps now, counting on us */
		atomic_store_explicit(&h->polling, 0, memory_order_seq_cst);
		if (!atomic_load_explicit(&h->poll_missed,
					  memory_order_seq_cst))
			break;
		exp = 0;
		if (!atomic_compare_exchange_strong_explicit(
			    &h->polling, &exp, 1, memory_order_acquire,
			    memory_order_relaxed))
			break; /* the new poller sees the flag */
	}
	tls_comp = prev;
	if (c.nr)
		comp_flush(&c);
	if (hit) {
		/* irq-poll's "budget exhausted": counted; the caller comes
		 * back to this hw queue after serving the others */
		atomic_fetch_add_explicit(&h->budget_hits, 1,
					  memory_order_relaxed);
		if (q)
			q->st.poll_budget_hits++;
		return (int)budget > n ? (int)budget : n;
	}
	return n;
}

int core_poll_hctx_irq(struct mqblk_hctx *h, struct mqblk_queue *q,
		       enum mqblk_comp_path path)
{
	atomic_store_explicit(&h->poll_missed, 1, memory_order_seq_cst);
	return core_poll_hctx(h, q, path, h->depth);
}

/* ---- interrupt threads ---- */

static void *irq_thread_fn(void *arg)
{
	struct irq_thread *t = arg;
	struct epoll_event ev[16];

	for (;;) {
		int i, n = epoll_wait(t->epfd, ev, 16, -1);
		bool again[16], more;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			abort();
		/* round robin: a hw queue that used up poll_budget is
		 * served again only after the others had their pass */
		for (i = 0; i < n; i++)
			again[i] = true;
		do {
			more = false;
			for (i = 0; i < n; i++) {
				struct mqblk_hctx *h = ev[i].data.ptr;
				int r;

				if (!h)
					return NULL;
				if (!again[i])
					continue;
				r = core_poll_hctx(h, NULL, MQBLK_PATH_REMOTE,
						   h->depth);
				again[i] = r > 0 &&
					   (unsigned)r >= h->dev->poll_budget;
				more |= again[i];
			}
		} while (more);
	}
}

static int nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

int irq_threads_start(struct mqblk_dev *dev)
{
	unsigned i, nr;
	int ret;

	if (dev->policy != MQBLK_COMP_REMOTE &&
	    dev->policy != MQBLK_COMP_BATCHED && dev->policy != MQBLK_COMP_IRQ)
		return 0;
	for (i = 0; i < dev->nr_hw_queues; i++)
		if (dev->hctx[i].irq_fd >= 0)
			break;
	if (i == dev->nr_hw_queues)
		return 0; /* nothing raises interrupts */
	nr = dev->nr_irq_threads;
	if (!nr)
		nr = dev->nr_hw_queues < (unsigned)nr_cpus() ?
			     dev->nr_hw_queues :
			     (unsigned)nr_cpus();
	if (nr > dev->nr_hw_queues)
		nr = dev->nr_hw_queues;
	dev->irq = calloc(nr, sizeof(*dev->irq));
	if (!dev->irq)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		dev->irq[i].epfd = dev->irq[i].stop_fd = -1;
	for (i = 0; i < nr; i++) {
		struct irq_thread *t = &dev->irq[i];
		struct epoll_event ev = { .events = EPOLLIN };
		unsigned j;

		t->dev = dev;
		t->idx = i;
		t->epfd = epoll_create1(EPOLL_CLOEXEC);
		t->stop_fd = eventfd(0, EFD_CLOEXEC);
		if (t->epfd < 0 || t->stop_fd < 0) {
			ret = -errno;
			goto out_stop;
		}
		ev.data.ptr = NULL;
		if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->stop_fd, &ev)) {
			ret = -errno;
			goto out_stop;
		}
		/* hw queue j is served by thread j % nr */
		for (j = i; j < dev->nr_hw_queues; j += nr) {
			struct mqblk_hctx *h = &dev->hctx[j];

			if (h->irq_fd < 0)
				continue;
			h->irq = t;
			ev.data.ptr = h;
			if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, h->irq_fd, &ev)) {
				ret = -errno;
				goto out_stop;
			}
		}
		ret = -pthread_create(&t->thread, NULL, irq_thread_fn, t);
		if (ret)
			goto out_stop;
		t->started = true;
		dev->nr_irq_threads = i + 1;
	}
	return 0;

out_stop:
	dev->nr_irq_threads = i + 1;
	dev->irq[i].started = false;
	irq_threads_stop(dev);
	return ret;
}

void irq_threads_stop(struct mqblk_dev *dev)
{
	unsigned i;

	if (!dev->irq)
		return;
	for (i = 0; i < dev->nr_irq_threads; i++) {
		struct irq_thread *t = &dev->irq[i];
		uint64_t one = 1;

		if (t->started) {
			if (write(t->stop_fd, &one, sizeof(one)) < 0)
				abort();
			pthread_join(t->thread, NULL);
		}
		if (t->epfd >= 0)
			close(t->epfd);
		if (t->stop_fd >= 0)
			close(t->stop_fd);
	}
	free(dev->irq);
	dev->irq = NULL;
	dev->nr_irq_threads = 0;
}
