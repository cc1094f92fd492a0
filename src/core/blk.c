// SPDX-License-Identifier: MIT
/*
 * The block core: device open/close, software queues mapped onto hardware
 * queues, tag allocation, plugging, dispatch with BUSY requeue, and reap.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "clock.h"
#include "core.h"

#define DEFAULT_TIMEOUT_NS (30ull * 1000 * 1000 * 1000)
#define MAX_HW_QUEUES 4096
#define MAX_QUEUE_DEPTH 65536
/* the kernel's BLK_MAX_REQUEST_COUNT: flush a plug this long */
#define PLUG_MAX 32

static const char *const policy_names[] = {
	[MQBLK_COMP_LOCAL] = "local",	  [MQBLK_COMP_REMOTE] = "remote",
	[MQBLK_COMP_BATCHED] = "batched", [MQBLK_COMP_POLLED] = "polled",
	[MQBLK_COMP_IRQ] = "irq",
};

const char *mqblk_comp_policy_name(enum mqblk_comp_policy p)
{
	if ((unsigned)p >= sizeof(policy_names) / sizeof(policy_names[0]))
		return "?";
	return policy_names[p];
}

void mqblk_dev_opts_init(struct mqblk_dev_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->comp_policy = -1;
	opts->shared_tags = -1;
	opts->flags = MQBLK_OPEN_WRITE;
}

/* ---- driver-visible accessors ---- */

unsigned mqblk_dev_open_flags(const struct mqblk_dev *dev)
{
	return dev->open_flags;
}

void mqblk_dev_set_data(struct mqblk_dev *dev, void *data)
{
	dev->driver_data = data;
}

void *mqblk_dev_data(const struct mqblk_dev *dev)
{
	return dev->driver_data;
}

void mqblk_hctx_set_data(struct mqblk_hctx *hctx, void *data)
{
	hctx->driver_data = data;
}

void *mqblk_hctx_data(const struct mqblk_hctx *hctx)
{
	return hctx->driver_data;
}

unsigned mqblk_hctx_idx(const struct mqblk_hctx *hctx)
{
	return hctx->idx;
}

unsigned mqblk_hctx_depth(const struct mqblk_hctx *hctx)
{
	return hctx->depth;
}

struct mqblk_dev *mqblk_hctx_dev(const struct mqblk_hctx *hctx)
{
	return hctx->dev;
}

bool mqblk_hctx_sole_submitter(const struct mqblk_hctx *hctx)
{
	return (hctx->dev->policy == MQBLK_COMP_LOCAL ||
		hctx->dev->policy == MQBLK_COMP_POLLED) &&
	       !hctx->need_lock;
}

void mqblk_hctx_set_irq_fd(struct mqblk_hctx *hctx, int fd)
{
	hctx->irq_fd = fd;
}

/* capacity: a relaxed atomic, as a driver may change it under I/O */
uint64_t mqblk_dev_size(const struct mqblk_dev *dev)
{
	return __atomic_load_n(&dev->lim.capacity, __ATOMIC_RELAXED);
}

void mqblk_dev_set_capacity(struct mqblk_dev *dev, uint64_t bytes)
{
	__atomic_store_n(&dev->lim.capacity, bytes, __ATOMIC_RELAXED);
}

uint32_t mqblk_dev_block_size(const struct mqblk_dev *dev)
{
	return dev->lim.logical_block_size;
}

uint32_t mqblk_dev_max_transfer(const struct mqblk_dev *dev)
{
	return dev->lim.max_hw_bytes;
}

void mqblk_dev_mark_dead(struct mqblk_dev *dev)
{
	atomic_store(&dev->dead, true);
}

bool mqblk_dev_is_dead(const struct mqblk_dev *dev)
{
	return atomic_load(&dev->dead);
}

uint64_t mqblk_dev_timeout_ns(const struct mqblk_dev *dev)
{
	return dev->timeout_ns;
}

unsigned mqblk_dev_nr_hw_queues(const struct mqblk_dev *dev)
{
	return dev->nr_hw_queues;
}

unsigned mqblk_dev_queue_depth(const struct mqblk_dev *dev)
{
	return dev->lim.queue_depth;
}

enum mqblk_comp_policy mqblk_dev_comp_policy(const struct mqblk_dev *dev)
{
	return dev->policy;
}

int mqblk_dev_nvme_admin(struct mqblk_dev *dev, void *sqe, void *data,
			 uint32_t len, bool to_dev, uint32_t *result,
			 uint16_t *status)
{
	if (!dev->ops->nvme_admin)
		return -EOPNOTSUPP;
	return dev->ops->nvme_admin(dev, sqe, data, len, to_dev, result,
				    status);
}

int mqblk_dev_get_paths(const struct mqblk_dev *dev,
			struct mqblk_path_stats *out, unsigned max)
{
	if (!dev->ops->get_paths)
		return -EOPNOTSUPP;
	return dev->ops->get_paths(dev, out, max);
}

int mqblk_dev_set_param(struct mqblk_dev *dev, const char *key, const char *val,
			char *err, size_t errlen)
{
	if (!dev->ops->set_param) {
		snprintf(err, errlen, "%s: the %s driver changes no key live",
			 key, dev->ops->name);
		return -EOPNOTSUPP;
	}
	return dev->ops->set_param(dev, key, val, err, errlen);
}

const char *mqblk_dev_iopolicy(const struct mqblk_dev *dev)
{
	return dev->ops->iopolicy ? dev->ops->iopolicy(dev) : NULL;
}

const char *mqblk_dev_driver_name(const struct mqblk_dev *dev)
{
	return dev->ops->name;
}

/* ---- open / close ---- */

static int ops_validate(const struct mqblk_driver_ops *ops)
{
	if (!ops->name || !ops->init || !ops->queue_rq)
		return -EINVAL;
	if (!ops->init_hctx != !ops->exit_hctx ||
	    !ops->map_buf != !ops->unmap_buf)
		return -EINVAL;
	return 0;
}

static int parse_policy(const char *s, enum mqblk_comp_policy *p)
{
	unsigned i;

	for (i = 0; i < sizeof(policy_names) / sizeof(policy_names[0]); i++) {
		if (!strcmp(s, policy_names[i])) {
			*p = (enum mqblk_comp_policy)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Core keys beyond struct mqblk_dev_opts (scheduling, seed 004). */
struct core_opts {
	struct core_sched_opts so;
	const char *tagset;
	unsigned poll_budget; /* 0: the queue depth */
	unsigned nr_hw_asked; /* the URI's nr_hw_queues= (0: none) */
};

static int check_tagset_name(const char *s, char *err, size_t errlen)
{
	char pv[96];
	size_t i, n = strlen(s);

	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      s[i] == '-' || s[i] == '.'))
			break;
	if (n && n < 64 && i == n)
		return 0;
	snprintf(err, errlen,
		 "bad tagset='%s': expected up to 63 of [A-Za-z0-9_.-]",
		 core_printable(s, pv, sizeof(pv)));
	return -EINVAL;
}

/* Core keys that any device URI may carry. */
static int core_params(struct mqblk_params *params, struct mqblk_dev_opts *o,
		       struct core_opts *co, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < params->nr; i++) {
		struct mqblk_param *p = &params->v[i];
		uint64_t v;
		int r;

		r = sched_param(p, &co->so, err, errlen);
		if (r < 0)
			return r;
		if (r)
			continue;
		if (!strcmp(p->key, "complete")) {
			enum mqblk_comp_policy pol;

			if (parse_policy(p->val, &pol)) {
				snprintf(
					err, errlen,
					"bad complete='%s': expected local, remote, batched, polled or irq",
					p->val);
				return -EINVAL;
			}
			o->comp_policy = (int)pol;
		} else if (!strcmp(p->key, "nr_hw_queues")) {
			if (mqblk_param_u64(p, 1, MAX_HW_QUEUES, false, &v, err,
					    errlen))
				return -EINVAL;
			o->nr_hw_queues = (unsigned)v;
			co->nr_hw_asked = (unsigned)v;
		} else if (!strcmp(p->key, "irq_threads")) {
			if (mqblk_param_u64(p, 1, MAX_HW_QUEUES, false, &v, err,
					    errlen))
				return -EINVAL;
			o->irq_threads = (unsigned)v;
		} else if (!strcmp(p->key, "timeout")) {
			/* milliseconds, like the kernel's io_timeout */
			if (mqblk_param_u64(p, 1, 3600ull * 1000, false, &v,
					    err, errlen))
				return -EINVAL;
			o->timeout_ns = v * 1000 * 1000;
		} else if (!strcmp(p->key, "queue_depth")) {
			if (mqblk_param_u64(p, 1, MAX_QUEUE_DEPTH, false, &v,
					    err, errlen))
				return -EINVAL;
			o->queue_depth = (unsigned)v;
		} else if (!strcmp(p->key, "shared_tags")) {
			bool on;

			/* a driver may read it too (null's own key): both
			 * see the same value */
			if (mqblk_param_bool(p, &on, err, errlen))
				return -EINVAL;
			o->shared_tags = on;
		} else if (!strcmp(p->key, "tagset")) {
			if (check_tagset_name(p->val, err, errlen))
				return -EINVAL;
			co->tagset = p->val;
		} else if (!strcmp(p->key, "poll_budget")) {
			if (mqblk_param_u64(p, 1, MAX_QUEUE_DEPTH, false, &v,
					    err, errlen))
				return -EINVAL;
			co->poll_budget = (unsigned)v;
		} else {
			continue;
		}
		p->used = true;
	}
	return 0;
}

static void hctx_lock_init(struct mqblk_hctx *h)
{
	pthread_mutexattr_t a;

	/* spins a little before it sleeps: as cheap as a spinlock while
	 * the holder runs, and no burnt time slices while it does not */
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(&h->lock, &a);
	pthread_mutexattr_destroy(&a);
}

static void hctx_exit_all(struct mqblk_dev *dev, unsigned nr)
{
	unsigned i;

	for (i = 0; i < nr; i++) {
		if (dev->ops->exit_hctx)
			dev->ops->exit_hctx(&dev->hctx[i]);
		pthread_mutex_destroy(&dev->hctx[i].lock);
		pthread_spin_destroy(&dev->hctx[i].sched_lock);
		atomic_fetch_sub(&dev->hctx[i].tags->nr_hctx, 1);
	}
}

static void dev_free_tags(struct mqblk_dev *dev)
{
	unsigned i;

	if (dev->tags && dev->tags->shared) {
		tagset_put(dev->tags, dev);
	} else if (dev->tags) {
		for (i = 0; i < dev->nr_tag_sets; i++)
			tags_exit(&dev->tags[i], dev);
		free(dev->tags);
	}
	dev->tags = NULL;
}

static int dev_setup_queues(struct mqblk_dev *dev, const char *tagset,
			    unsigned asked_depth, char *err, size_t errlen)
{
	unsigned i, depth = dev->lim.queue_depth;
	int ret;

	dev->nr_tag_sets = dev->shared_tags ? 1 : dev->nr_hw_queues;
	dev->hctx = aligned_alloc(CORE_CACHELINE,
				  dev->nr_hw_queues * sizeof(*dev->hctx));
	if (!dev->hctx)
		return -ENOMEM;
	memset(dev->hctx, 0, dev->nr_hw_queues * sizeof(*dev->hctx));
	if (tagset) {
		/* one set for every hw queue of every device naming it */
		ret = tagset_get(tagset, dev, depth, asked_depth, &dev->tags,
				 err, errlen);
		if (ret) {
			free(dev->hctx);
			dev->hctx = NULL;
			return ret;
		}
		depth = dev->tags->depth; /* fixed by its first device */
		dev->lim.queue_depth = depth;
		goto setup_hctx;
	}
	dev->tags = calloc(dev->nr_tag_sets, sizeof(*dev->tags));
	if (!dev->tags) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < dev->nr_tag_sets; i++) {
		ret = tags_init(&dev->tags[i], dev, depth);
		if (ret) {
			while (i--)
				tags_exit(&dev->tags[i], dev);
			snprintf(err, errlen, "cannot allocate %u tags: %s",
				 depth, strerror(-ret));
			goto out_free;
		}
	}
setup_hctx:
	for (i = 0; i < dev->nr_hw_queues; i++) {
		struct mqblk_hctx *h = &dev->hctx[i];

		h->idx = i;
		h->dev = dev;
		h->depth = depth;
		h->irq_fd = -1;
		h->tags = &dev->tags[dev->shared_tags ? 0 : i];
		/* software queue k maps to hw queue k % nr_hw_queues: lock
		 * dispatch where more than one of the expected submitters
		 * lands */
		h->need_lock = i + dev->nr_hw_queues < dev->nr_queues_expected;
		h->tags = tagset ? dev->tags : h->tags;
		rq_list_init(&h->dispatch);
		hctx_lock_init(h);
		sched_hctx_init(h);
		atomic_fetch_add(&h->tags->nr_hctx, 1);
		if (dev->ops->init_hctx) {
			ret = dev->ops->init_hctx(h, i);
			if (ret) {
				pthread_mutex_destroy(&h->lock);
				pthread_spin_destroy(&h->sched_lock);
				atomic_fetch_sub(&h->tags->nr_hctx, 1);
				hctx_exit_all(dev, i);
				snprintf(err, errlen,
					 "%s: cannot set up hw queue %u: %s",
					 dev->ops->name, i, strerror(-ret));
				goto out_free_tags;
			}
		}
	}
	return 0;

out_free_tags:
	dev_free_tags(dev);
out_free:
	free(dev->tags);
	free(dev->hctx);
	dev->tags = NULL;
	dev->hctx = NULL;
	return ret;
}

int mqblk_dev_open(const char *uri, const struct mqblk_dev_opts *opts,
		   struct mqblk_dev **devp, char *err, size_t errlen)
{
	struct mqblk_dev_opts o;
	struct core_opts co = { .tagset = NULL };
	struct mqblk_params params = { 0 };
	struct mqblk_dev *dev;
	const char *name;
	char dummy[8], *buf;
	unsigned i, want_hw;
	uint32_t max_hw_asked;
	int ret;

	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	mqblk_clock_init();
	if (opts)
		o = *opts;
	else
		mqblk_dev_opts_init(&o);
	if (!uri || !*uri) {
		snprintf(err, errlen, "empty device URI");
		return -EINVAL;
	}
	buf = strdup(uri);
	dev = calloc(1, sizeof(*dev));
	if (!buf || !dev) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = uri_parse(buf, &name, &params, err, errlen);
	if (ret)
		goto out_free;
	dev->ops = mqblk_driver_find(name);
	if (!dev->ops) {
		char pr[128];

		snprintf(err, errlen, "no driver for device '%s'",
			 core_printable(uri, pr, sizeof(pr)));
		ret = -ENODEV;
		goto out_free;
	}
	if (ops_validate(dev->ops)) {
		snprintf(err, errlen, "driver %s: invalid ops table", name);
		ret = -EINVAL;
		goto out_free;
	}
	if (o.flags & (MQBLK_OPEN_SYNC | MQBLK_OPEN_DSYNC) &
	    ~dev->ops->open_flags) {
		snprintf(err, errlen,
			 "the %s driver has no synchronous writes (O_%sSYNC: "
			 "files and block devices have them)",
			 name, o.flags & MQBLK_OPEN_DSYNC ? "D" : "");
		ret = -EOPNOTSUPP;
		goto out_free;
	}
	sched_opts_init(&co.so);
	ret = core_params(&params, &o, &co, err, errlen);
	if (ret)
		goto out_free;
	if (co.so.dd_key && co.so.sched != IOSCHED_DEADLINE) {
		snprintf(err, errlen, "%s= needs scheduler=mq-deadline",
			 co.so.dd_key);
		ret = -EINVAL;
		goto out_free;
	}
	if (o.queue_depth)
		dev->lim.queue_depth = o.queue_depth;
	dev->open_flags = o.flags;
	ret = dev->ops->init(dev, &params, &dev->lim, err, errlen);
	max_hw_asked = dev->lim.max_hw_bytes;
	if (ret)
		goto out_free;
	for (i = 0; i < params.nr; i++) {
		if (!params.v[i].used) {
			char pr[128];

			snprintf(err, errlen,
				 "unknown parameter '%s' for device %s",
				 core_printable(params.v[i].key, pr,
						sizeof(pr)),
				 name);
			ret = -EINVAL;
			goto out_exit;
		}
	}
	if (!dev->lim.logical_block_size || !dev->lim.queue_depth ||
	    !dev->lim.max_hw_queues) {
		snprintf(err, errlen, "driver %s: incomplete limits", name);
		ret = -EINVAL;
		goto out_exit;
	}
	/* pieces of a split request are whole blocks */
	dev->lim.max_hw_bytes &= ~(dev->lim.logical_block_size - 1);
	if (dev->lim.max_hw_bytes == 0 && max_hw_asked) {
		snprintf(err, errlen,
			 "driver %s: a maximum transfer of %u bytes is less "
			 "than a %u-byte block",
			 name, max_hw_asked, dev->lim.logical_block_size);
		ret = -EINVAL;
		goto out_exit;
	}

	if (co.nr_hw_asked > dev->lim.max_hw_queues) {
		/* asked by name and not possible: not quietly fewer */
		snprintf(err, errlen,
			 "nr_hw_queues=%u: the %s device offers at most %u "
			 "hardware queues%s",
			 co.nr_hw_asked, name, dev->lim.max_hw_queues,
			 strcmp(name, "null") ? "" : " (raise submit_queues=)");
		ret = -EINVAL;
		goto out_exit;
	}
	dev->nr_queues_expected = o.nr_queues ? o.nr_queues : 1;
	want_hw = o.nr_hw_queues ? o.nr_hw_queues : dev->nr_queues_expected;
	dev->nr_hw_queues = want_hw < dev->lim.max_hw_queues ?
				    want_hw :
				    dev->lim.max_hw_queues;
	dev->shared_tags = o.shared_tags >= 0 ? o.shared_tags != 0 :
						dev->lim.shared_tags;
	dev->policy = o.comp_policy >= 0 ?
			      (enum mqblk_comp_policy)o.comp_policy :
			      dev->lim.default_policy;
	dev->timeout_ns = o.timeout_ns ? o.timeout_ns : DEFAULT_TIMEOUT_NS;
	dev->nr_irq_threads = o.irq_threads;
	dev->sched = co.so.sched > 0 ? (enum core_sched)co.so.sched :
				       IOSCHED_NONE;
	dev->dispatch = co.so.dispatch > 0 ?
				(enum core_dispatch)co.so.dispatch :
				DISPATCH_BATCH;
	dev->dd = co.so.dd;
	if (co.tagset) {
		if (dev->ops->init_request) {
			snprintf(
				err, errlen,
				"driver %s cannot share a tagset across devices",
				name);
			ret = -EINVAL;
			goto out_exit;
		}
		/* host-wide by nature: one set for all hw queues */
		dev->shared_tags = true;
	}
	pthread_mutex_init(&dev->lock, NULL);

	if ((dev->policy == MQBLK_COMP_POLLED) && !dev->ops->poll) {
		snprintf(err, errlen, "driver %s cannot be polled", name);
		ret = -EINVAL;
		goto out_exit;
	}
	ret = dev_setup_queues(dev, co.tagset, o.queue_depth, err, errlen);
	if (ret)
		goto out_exit;
	dev->poll_budget = co.poll_budget ? co.poll_budget :
					    dev->lim.queue_depth;
	ret = irq_threads_start(dev);
	if (ret) {
		snprintf(err, errlen, "cannot start interrupt threads: %s",
			 strerror(-ret));
		goto out_queues;
	}
	ret = timeout_start(dev);
	if (ret) {
		snprintf(err, errlen, "cannot start timeout thread: %s",
			 strerror(-ret));
		goto out_irq;
	}
	free(params.v);
	free(buf);
	*devp = dev;
	return 0;

out_irq:
	irq_threads_stop(dev);
out_queues:
	hctx_exit_all(dev, dev->nr_hw_queues);
	dev_free_tags(dev);
	free(dev->hctx);
out_exit:
	if (dev->ops->exit)
		dev->ops->exit(dev);
out_free:
	free(params.v);
	free(buf);
	free(dev);
	return ret;
}

void mqblk_dev_close(struct mqblk_dev *dev)
{
	if (!dev)
		return;
	timeout_stop(dev);
	irq_threads_stop(dev);
	hctx_exit_all(dev, dev->nr_hw_queues);
	dev_free_tags(dev);
	if (dev->ops->exit)
		dev->ops->exit(dev);
	pthread_mutex_destroy(&dev->lock);
	free(dev->hctx);
	free(dev);
}

/* ---- software queues ---- */

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

void mqblk_dev_get_stats(const struct mqblk_dev *dev,
			 struct mqblk_dev_stats *st)
{
	unsigned i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < dev->nr_hw_queues; i++)
		st->poll_budget_hits += atomic_load_explicit(
			&dev->hctx[i].budget_hits, memory_order_relaxed);
}

const char *mqblk_dev_scheduler(const struct mqblk_dev *dev)
{
	return sched_name(dev->sched);
}

unsigned mqblk_queue_inflight(const struct mqblk_queue *q)
{
	return q->inflight;
}

static inline void rq_start(struct mqblk_dev *dev, struct mqblk_rq *rq);

int mqblk_queue_fail_held(struct mqblk_queue *q, int res)
{
	struct mqblk_hctx *h = q->hctx;
	struct rq_list list;
	struct mqblk_rq *rq;
	unsigned n = 0;

	if (res >= 0)
		return -EINVAL;
	if (!h->dev->ops->fail_held || !h->dev->ops->fail_held(h, res, &n))
		return (int)n;
	/* what the driver refused as busy meanwhile waits on h's busy
	 * list (any submitter's: they wait for the same connection) */
	pthread_mutex_lock(&h->lock);
	list = h->dispatch;
	if (!list.head)
		list.tailp = &list.head;
	rq_list_init(&h->dispatch);
	atomic_store_explicit(&h->dispatch_nr, 0, memory_order_relaxed);
	pthread_mutex_unlock(&h->lock);
	while ((rq = rq_list_pop(&list))) {
		/* idle since the driver refused it: in flight again for
		 * the one completion it gets */
		rq_start(h->dev, rq);
		if (mqblk_complete_rq(rq, res, 0))
			n++;
	}
	return (int)n;
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

/* ---- tags ---- */

static struct mqblk_rq *rq_init(struct mqblk_queue *q, int tag)
{
	struct mqblk_rq *rq = tags_rq(q->tags, (unsigned)tag);

	rq->q = q;
	/* the timeout thread reads it to tell devices of a shared tagset
	 * apart, racing a re-init of a request it just saw in flight */
	__atomic_store_n(&rq->hctx, q->hctx, __ATOMIC_RELAXED);
	rq->gen++;
	rq->flags = 0;
	rq->core_flags = 0;
	rq->res = 0;
	rq->nvme_status = 0;
	rq->next = NULL;
	q->held++;
	return rq;
}

/* One step of waiting for something to happen on q: completions to
 * collect, a tag wake-up, or the timeout. Policy decides sleep vs poll. */
static void queue_wait_step(struct mqblk_queue *q, int64_t timeout_ns);

/* Wait for a tag wake-up (or 1 ms). Polled queues keep polling: the tag
 * they wait for may be theirs to complete. */
static void queue_wait_tag(struct mqblk_queue *q)
{
	if (q->policy == MQBLK_COMP_POLLED || q->epfd >= 0) {
		queue_wait_step(q, 1000 * 1000);
		return;
	}
	if (q->policy == MQBLK_COMP_LOCAL && q->hctx->irq_fd < 0)
		core_poll_hctx(q->hctx, q, MQBLK_PATH_LOCAL, q->hctx->depth);
	queue_sleep(q, 1);
}

struct mqblk_rq *mqblk_rq_get(struct mqblk_queue *q, unsigned flags)
{
	struct sbitmap_queue *sbq = &q->tags->sbq;
	uint64_t t0 = 0;
	unsigned ws_idx;
	int tag;

	/* holding every tag ourselves: no need to scan a full map (a
	 * submitter deeper than the tag set hits this on every refill) */
	if (__builtin_expect(q->held < q->tags->depth, 1)) {
		tag = sbitmap_queue_get(sbq, &q->tag_hint);
		if (__builtin_expect(tag >= 0, 1))
			return rq_init(q, tag);
	}
	if (flags & MQBLK_RQ_NOWAIT) {
		q->st.tag_nowait_fails++;
		return NULL;
	}
	for (;;) {
		/* every tag is ours: only our own put can free one (a
		 * completion does not), so waiting would never end, even
		 * with requests in flight; the caller must reap and put.
		 * Pieces of split requests are the exception: the core
		 * puts them as it collects their completions. */
		if (q->held >= q->tags->depth && !q->split_held) {
			tag = -1;
			break;
		}
		if (q->split_held)
			split_collect(q);
		sbitmap_queue_prepare_wait(sbq, &q->waiter, &ws_idx);
		tag = sbitmap_queue_get(sbq, &q->tag_hint);
		if (tag < 0) {
			/* a real wait: counted once per call */
			if (!t0)
				t0 = clock_now_ns();
			queue_wait_tag(q);
		}
		sbitmap_queue_finish_wait(sbq, &q->waiter, ws_idx);
		if (tag < 0)
			tag = sbitmap_queue_get(sbq, &q->tag_hint);
		if (tag >= 0)
			break;
	}
	if (t0) {
		q->st.tag_waits++;
		q->st.tag_wait_ns += clock_now_ns() - t0;
	}
	return tag >= 0 ? rq_init(q, tag) : NULL;
}

/* A tag for a piece of a split request, if one is free now. */
struct mqblk_rq *queue_rq_get_nowait(struct mqblk_queue *q)
{
	int tag;

	if (q->held >= q->tags->depth)
		return NULL;
	tag = sbitmap_queue_get(&q->tags->sbq, &q->tag_hint);
	return tag >= 0 ? rq_init(q, tag) : NULL;
}

void mqblk_rq_put(struct mqblk_rq *rq)
{
	struct mqblk_queue *q = rq->q;
	struct mqblk_tags *t = q->tags;

	/* a timeout handler may still be looking at this request */
	while (__builtin_expect(atomic_load_explicit(&t->timing_out[rq->tag],
						     memory_order_acquire),
				0))
		sched_yield();
	atomic_store_explicit(&rq->state, RQ_IDLE, memory_order_relaxed);
	q->held--;
	sbitmap_queue_put(&t->sbq, rq->tag, &q->tag_hint);
}

/* ---- dispatch ---- */

static inline void hctx_unlock(struct mqblk_hctx *h)
{
	if (h->need_lock)
		pthread_mutex_unlock(&h->lock);
}

/* The dispatch lock of a scheduler/one-at-a-time run, counted: a
 * trylock first, so a contended acquisition shows. */
void hctx_lock_counted(struct mqblk_hctx *h, struct mqblk_queue *q)
{
	q->st.dispatch_locks++;
	if (pthread_mutex_trylock(&h->lock)) {
		q->st.dispatch_lock_contended++;
		pthread_mutex_lock(&h->lock);
	}
}

/* Append list to h's BUSY list. Lock held. */
void hctx_busy_add(struct mqblk_hctx *h, struct rq_list *list)
{
	*h->dispatch.tailp = list->head;
	h->dispatch.tailp = list->tailp;
	h->dispatch.nr += list->nr;
	atomic_store(&h->dispatch_nr, h->dispatch.nr);
	rq_list_init(list);
}

/*
 * Fair share of a host-wide tag set (the kernel's hctx_may_queue): the
 * hw queues with requests in flight, of this device or of every device
 * on a shared tagset, split the depth.
 */
bool hctx_may_queue(struct mqblk_hctx *h)
{
	unsigned users, share;

	if (!h->dev->shared_tags ||
	    atomic_load_explicit(&h->tags->nr_hctx, memory_order_relaxed) <= 1)
		return true;
	if (!h->active) {
		h->active = true;
		atomic_fetch_add(&h->tags->active_queues, 1);
	}
	users = atomic_load_explicit(&h->tags->active_queues,
				     memory_order_relaxed);
	share = (h->tags->depth + users - 1) / (users ? users : 1);
	if (share < 4)
		share = 4;
	return atomic_load_explicit(&h->nr_active, memory_order_relaxed) <
	       share;
}

static inline void rq_start(struct mqblk_dev *dev, struct mqblk_rq *rq)
{
	/* read by the timeout thread: a relaxed atomic (READ_ONCE's role) */
	__atomic_store_n(&rq->deadline_ns,
			 atomic_load_explicit(&dev->jiffies_ns,
					      memory_order_relaxed) +
				 dev->timeout_ns,
			 __ATOMIC_RELAXED);
	atomic_store_explicit(&rq->state, RQ_IN_FLIGHT, memory_order_release);
	if (dev->shared_tags)
		atomic_fetch_add_explicit(&rq->hctx->nr_active, 1,
					  memory_order_relaxed);
}

/* Returns false when the driver said BUSY (rq is back in IDLE). */
bool issue_one(struct mqblk_hctx *h, struct mqblk_rq *rq, bool last,
	       struct mqblk_queue *q)
{
	struct mqblk_dev *dev = h->dev;
	enum mqblk_status sts;

	rq_start(dev, rq);
	sts = dev->ops->queue_rq(h, rq, last);
	q->st.doorbells += last;
	if (__builtin_expect(sts == MQBLK_STS_OK, 1)) {
		q->st.dispatched++;
		return true;
	}
	if (sts == MQBLK_STS_BUSY) {
		atomic_store_explicit(&rq->state, RQ_IDLE,
				      memory_order_relaxed);
		if (dev->shared_tags)
			atomic_fetch_sub(&h->nr_active, 1);
		q->st.requeues++;
		return false;
	}
	mqblk_complete_rq(rq, -EIO, 0);
	return true;
}

/*
 * Issue a chain (rq->next linked, n long) to h. Whatever the driver
 * refuses stays on h->dispatch, in order. Lock held.
 */
void __dispatch_list(struct mqblk_hctx *h, struct rq_list *list,
		     struct mqblk_queue *q)
{
	bool queued_unterminated = false;
	struct mqblk_rq *rq;

	while ((rq = list->head)) {
		bool last = rq->next == NULL;

		if (!hctx_may_queue(h))
			break;
		rq_list_pop(list);
		if (!issue_one(h, rq, last, q)) {
			/* put it back at the head, keep the order */
			rq->next = list->head;
			list->head = rq;
			if (!rq->next)
				list->tailp = &rq->next;
			list->nr++;
			break;
		}
		queued_unterminated = !last;
	}
	if (queued_unterminated && h->dev->ops->commit_rqs) {
		h->dev->ops->commit_rqs(h);
		q->st.doorbells++;
	}
}

void hctx_run_dispatch(struct mqblk_hctx *h, struct mqblk_queue *q)
{
	struct rq_list list;

	if (h->dev->sched != IOSCHED_NONE ||
	    h->dev->dispatch != DISPATCH_BATCH) {
		if (atomic_load_explicit(&h->dispatch_nr,
					 memory_order_relaxed) ||
		    atomic_load_explicit(&h->queued, memory_order_relaxed))
			sched_run(h, q);
		return;
	}
	if (!atomic_load_explicit(&h->dispatch_nr, memory_order_relaxed))
		return;
	/* taken even with one submitter: it is rare, and it keeps the
	 * list consistent with queue_issue_list() appending to it */
	pthread_mutex_lock(&h->lock);
	list = h->dispatch;
	if (!list.head)
		list.tailp = &list.head;
	rq_list_init(&h->dispatch);
	__dispatch_list(h, &list, q);
	h->dispatch = list;
	if (!h->dispatch.head)
		rq_list_init(&h->dispatch);
	atomic_store_explicit(&h->dispatch_nr, h->dispatch.nr,
			      memory_order_relaxed);
	pthread_mutex_unlock(&h->lock);
}

/* Issue a list of requests of q to its hctx. */
static void queue_issue_list(struct mqblk_queue *q, struct rq_list *list)
{
	struct mqblk_hctx *h = q->hctx;

	if (__builtin_expect(q->dev->sched != IOSCHED_NONE ||
				     q->dev->dispatch != DISPATCH_BATCH,
			     0)) {
		sched_insert_and_run(q, list);
		return;
	}
	if (__builtin_expect(atomic_load_explicit(&h->dispatch_nr,
						  memory_order_relaxed),
			     0)) {
		/* earlier requests are waiting: keep the order */
		pthread_mutex_lock(&h->lock);
		*h->dispatch.tailp = list->head;
		h->dispatch.tailp = list->tailp;
		h->dispatch.nr += list->nr;
		atomic_store(&h->dispatch_nr, h->dispatch.nr);
		pthread_mutex_unlock(&h->lock);
		rq_list_init(list);
		hctx_run_dispatch(h, q);
		return;
	}
	q->st.dispatch_runs++;
	if (h->need_lock)
		hctx_lock_counted(h, q);
	__dispatch_list(h, list, q);
	hctx_unlock(h);
	if (__builtin_expect(list->head != NULL, 0)) {
		pthread_mutex_lock(&h->lock);
		*h->dispatch.tailp = list->head;
		h->dispatch.tailp = list->tailp;
		h->dispatch.nr += list->nr;
		atomic_store(&h->dispatch_nr, h->dispatch.nr);
		pthread_mutex_unlock(&h->lock);
		rq_list_init(list);
	}
}

static int rq_check(const struct mqblk_dev *dev, const struct mqblk_rq *rq)
{
	uint64_t mask = dev->lim.logical_block_size - 1, cap;

	switch (rq->op) {
	case MQBLK_OP_FLUSH:
		return 0;
	case MQBLK_OP_WRITE:
	case MQBLK_OP_DISCARD:
	case MQBLK_OP_WRITE_ZEROES:
		if (!(dev->open_flags & MQBLK_OPEN_WRITE))
			return -EBADF;
		/* fall through */
	case MQBLK_OP_READ:
		if (!rq->buf &&
		    (rq->op == MQBLK_OP_READ || rq->op == MQBLK_OP_WRITE))
			return -EINVAL;
		if (!rq->len || (rq->offset & mask) || (rq->len & mask))
			return -EINVAL;
		cap = mqblk_dev_size(dev);
		if (rq->offset > cap || rq->len > cap - rq->offset)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

int mqblk_submit(struct mqblk_rq *rq)
{
	struct mqblk_queue *q = rq->q;
	struct rq_list one;
	int ret = rq_check(q->dev, rq);

	if (__builtin_expect(ret != 0, 0))
		return ret;
	q->st.submitted++;
	q->inflight++;
	if (__builtin_expect(rq->len > q->split_max, 0) &&
	    (rq->op == MQBLK_OP_READ || rq->op == MQBLK_OP_WRITE)) {
		struct rq_list pieces;

		split_start(q, rq, &pieces);
		if (!q->plug_depth) {
			queue_issue_list(q, &pieces);
			return 0;
		}
		*q->plug.tailp = pieces.head;
		q->plug.tailp = pieces.tailp;
		q->plug.nr += pieces.nr;
		if (q->plug.nr >= PLUG_MAX) {
			struct rq_list list = q->plug;

			rq_list_init(&q->plug);
			queue_issue_list(q, &list);
		}
		return 0;
	}
	if (q->plug_depth) {
		rq_list_add_tail(&q->plug, rq);
		if (q->plug.nr >= PLUG_MAX) {
			struct rq_list list = q->plug;

			rq_list_init(&q->plug);
			queue_issue_list(q, &list);
		}
		return 0;
	}
	/* issue directly: nothing is queued ahead of it */
	rq->next = NULL;
	one.head = rq;
	one.tailp = &rq->next;
	one.nr = 1;
	queue_issue_list(q, &one);
	return 0;
}

void mqblk_plug(struct mqblk_queue *q)
{
	q->plug_depth++;
}

void mqblk_unplug(struct mqblk_queue *q)
{
	struct rq_list list;

	if (!q->plug_depth || --q->plug_depth)
		return;
	if (!q->plug.head)
		return;
	list = q->plug;
	rq_list_init(&q->plug);
	queue_issue_list(q, &list);
}

/* ---- reap ---- */

/* Move completions handed over by other threads onto the done list. */
static inline void queue_pull_remote(struct mqblk_queue *q)
{
	struct mqblk_rq *chain = rq_llist_del_all(&q->remote);

	if (chain)
		rq_list_splice_chain(&q->done, rq_chain_reverse(chain));
}

/* Pieces that carry on (split.c): issued as their requests come back */
void queue_issue_pieces(struct mqblk_queue *q)
{
	struct rq_list list = q->split_next;

	if (!list.head)
		return;
	rq_list_init(&q->split_next);
	queue_issue_list(q, &list);
}

static inline unsigned queue_collect(struct mqblk_queue *q,
				     struct mqblk_rq **out, unsigned max)
{
	unsigned n = 0;

	if (q->done.nr < max)
		queue_pull_remote(q);
	for (;;) {
		while (n < max) {
			struct mqblk_rq *rq = rq_list_pop(&q->done);

			if (!rq)
				break;
			if (__builtin_expect(rq->core_flags & RQF_SPLIT, 0)) {
				rq = split_piece_done(q, rq);
				if (!rq)
					continue;
			}
			q->st.completions[rq->comp_path]++;
			if (__builtin_expect(rq->res < 0, 0)) {
				q->st.errors++;
				if (rq->res == -ETIMEDOUT)
					q->st.timeouts++;
			}
			out[n++] = rq;
		}
		if (__builtin_expect(q->split_next.head == NULL, 1))
			break;
		/* pieces that carry on; a driver may complete them inline,
		 * and nothing would wake us for those */
		queue_issue_pieces(q);
		if (!q->done.nr || n >= max)
			break;
	}
	q->inflight -= n;
	return n;
}

static void queue_wait_step(struct mqblk_queue *q, int64_t timeout_ns)
{
	struct mqblk_hctx *h = q->hctx;
	int ms;

	bool drv_wait = q->policy == MQBLK_COMP_LOCAL && h->dev->ops->wait &&
			__atomic_load_n(&h->nr_ctx, __ATOMIC_RELAXED) == 1;

	if (q->policy == MQBLK_COMP_POLLED ||
	    (q->policy == MQBLK_COMP_LOCAL && h->irq_fd < 0 && !drv_wait)) {
		/* hipri, or a driver without interrupts: poll the queue */
		if (core_poll_hctx(h, q,
				   q->policy == MQBLK_COMP_POLLED ?
					   MQBLK_PATH_POLLED :
					   MQBLK_PATH_LOCAL,
				   h->depth) == 0) {
			if (!rq_llist_empty(&q->remote))
				return;
			__builtin_ia32_pause();
		}
		return;
	}
	ms = timeout_ns < 0 ? -1 : (int)((timeout_ns + 999999) / 1000000);
	if (drv_wait && q->inflight && rq_llist_empty(&q->remote)) {
		int exp = 0;

		/* LOCAL, sole user of the hw queue: the driver's own wait.
		 * It reads the hw queue's completions as a poll does, and
		 * another queue may have joined the hw queue since nr_ctx
		 * was read (jobs opening one device together): so only as
		 * its poller (h->polling); a thread that comes to poll
		 * meanwhile leaves poll_missed, which the poll after the
		 * wait serves. Someone else polling: wait as below. */
		if (atomic_compare_exchange_strong_explicit(
			    &h->polling, &exp, 1, memory_order_acquire,
			    memory_order_relaxed)) {
			h->dev->ops->wait(h, timeout_ns);
			atomic_store_explicit(&h->polling, 0,
					      memory_order_seq_cst);
			core_poll_hctx(h, q, MQBLK_PATH_LOCAL, h->depth);
			return;
		}
	}
	if (q->epfd >= 0) {
		/* LOCAL: this thread takes its hw queue's interrupt */
		struct epoll_event ev[2];
		int i, n = epoll_wait(q->epfd, ev, 2, ms);

		for (i = 0; i < n; i++) {
			if (ev[i].data.u32 == 1)
				core_poll_hctx_irq(h, q, MQBLK_PATH_LOCAL);
			else
				queue_drain_wake(q);
		}
		return;
	}
	queue_sleep(q, ms);
}

int mqblk_reap(struct mqblk_queue *q, struct mqblk_rq **out, unsigned min,
	       unsigned max, int64_t timeout_ns)
{
	uint64_t end = 0;
	unsigned n;

	if (!max || min > max)
		return -EINVAL;
	n = queue_collect(q, out, max);
	if (n >= min)
		return (int)n;
	if (timeout_ns == 0 && q->policy != MQBLK_COMP_POLLED) {
		/* peek, not polled: take a pending interrupt or wake-up
		 * without sleeping, even with nothing in flight, so the fd
		 * of mqblk_queue_fd() reads empty again */
		hctx_run_dispatch(q->hctx, q);
		queue_wait_step(q, 0);
		return (int)(n + queue_collect(q, out + n, max - n));
	}
	for (;;) {
		int64_t left = timeout_ns;

		hctx_run_dispatch(q->hctx, q);
		if (!q->inflight)
			break; /* nothing left that could complete */
		if (__builtin_expect(q->nr_split != 0, 0) && q->done.nr) {
			/* pieces of a split request issued by the last
			 * collect completed inline: nothing to wait for */
			n += queue_collect(q, out + n, max - n);
			if (n >= min)
				break;
			continue;
		}
		if (timeout_ns > 0) {
			/* counted from the first wait: a reap that finds its
			 * completions reads no clock */
			uint64_t now = clock_now_ns();

			if (!end)
				end = now + (uint64_t)timeout_ns;
			else if (now >= end)
				break;
			left = (int64_t)(end - now);
		} else if (timeout_ns == 0) {
			/* peek: one poll pass for polled queues */
			if (q->policy == MQBLK_COMP_POLLED)
				core_poll_hctx(q->hctx, q, MQBLK_PATH_POLLED,
					       q->hctx->depth);
			n += queue_collect(q, out + n, max - n);
			break;
		}
		queue_wait_step(q, left);
		n += queue_collect(q, out + n, max - n);
		if (n >= min)
			break;
	}
	return (int)n;
}
