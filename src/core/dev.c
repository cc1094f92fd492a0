// SPDX-License-Identifier: MIT
/*
 * Opening and closing a device: the URI's core keys, the driver's limits,
 * the hardware queues and their tag sets, the interrupt and timeout threads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "core.h"

#define DEFAULT_TIMEOUT_NS (30ull * 1000 * 1000 * 1000)
#define MAX_HW_QUEUES 4096
#define MAX_QUEUE_DEPTH 65536

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
