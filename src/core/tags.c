// SPDX-License-Identifier: MIT
/*
 * Tag sets: one scalable bitmap and one preallocated request (plus driver
 * pdu) per tag, so the I/O path never allocates; and named sets shared by
 * several devices of the process (an adapter's host-wide tags).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

int tags_init(struct mqblk_tags *t, struct mqblk_dev *dev, unsigned depth)
{
	size_t sz = sizeof(struct mqblk_rq) + dev->lim.cmd_size;
	unsigned i;
	int ret;

	memset(t, 0, sizeof(*t));
	t->depth = depth;
	t->rq_size = (sz + CORE_CACHELINE - 1) & ~(size_t)(CORE_CACHELINE - 1);
	ret = sbitmap_queue_init(&t->sbq, depth);
	if (ret)
		return ret;
	t->rq_mem = aligned_alloc(CORE_CACHELINE, t->rq_size * depth);
	if (!t->rq_mem) {
		ret = -ENOMEM;
		goto out_free_sbq;
	}
	memset(t->rq_mem, 0, t->rq_size * depth);
	t->timing_out = calloc(depth, sizeof(*t->timing_out));
	t->sched = calloc(depth, sizeof(*t->sched));
	t->split = calloc(depth, sizeof(*t->split));
	if (!t->timing_out || !t->sched || !t->split) {
		ret = -ENOMEM;
		goto out_free_flags;
	}
	for (i = 0; i < depth; i++) {
		struct mqblk_rq *rq = tags_rq(t, i);

		rq->tag = i;
		atomic_init(&rq->state, RQ_IDLE);
		if (dev->ops->init_request) {
			ret = dev->ops->init_request(dev, rq);
			if (ret)
				goto out_free_flags;
		}
	}
	return 0;

out_free_flags:
	free(t->split);
	free(t->sched);
	free(t->timing_out);
	free(t->rq_mem);
out_free_sbq:
	sbitmap_queue_free(&t->sbq);
	return ret;
}

void tags_exit(struct mqblk_tags *t, struct mqblk_dev *dev)
{
	(void)dev;
	free(t->split);
	free(t->sched);
	free(t->timing_out);
	free(t->rq_mem);
	sbitmap_queue_free(&t->sbq);
}

/* ---- shared tag sets (tagset=NAME) ---- */

struct core_tagset {
	struct core_tagset *next;
	char name[64];
	unsigned refs;
	/* the driver whose request size and pdu the set was made for */
	const struct mqblk_driver_ops *ops;
	size_t cmd_size;
	struct mqblk_tags tags;
};

static pthread_mutex_t tagset_lock = PTHREAD_MUTEX_INITIALIZER;
static struct core_tagset *tagsets;

int tagset_get(const char *name, struct mqblk_dev *dev, unsigned depth,
	       unsigned asked, struct mqblk_tags **tagsp, char *err,
	       size_t errlen)
{
	struct core_tagset *ts;
	int ret = 0;

	pthread_mutex_lock(&tagset_lock);
	for (ts = tagsets; ts; ts = ts->next)
		if (!strcmp(ts->name, name))
			break;
	if (ts) {
		if (asked && asked != ts->tags.depth) {
			snprintf(
				err, errlen,
				"tagset=%s has queue_depth=%u (set by its first device), not %u",
				name, ts->tags.depth, asked);
			ret = -EINVAL;
		} else if (ts->ops != dev->ops ||
			   ts->cmd_size != dev->lim.cmd_size) {
			snprintf(err, errlen,
				 "tagset=%s belongs to driver %s, not %s", name,
				 ts->ops->name, dev->ops->name);
			ret = -EINVAL;
		} else {
			ts->refs++;
		}
		goto out;
	}
	ts = calloc(1, sizeof(*ts));
	if (!ts) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(ts->name, sizeof(ts->name), "%s", name);
	ts->ops = dev->ops;
	ts->cmd_size = dev->lim.cmd_size;
	ts->refs = 1;
	ret = tags_init(&ts->tags, dev, depth);
	if (ret) {
		snprintf(err, errlen, "cannot allocate %u tags: %s", depth,
			 strerror(-ret));
		free(ts);
		goto out;
	}
	ts->tags.shared = ts;
	ts->next = tagsets;
	tagsets = ts;
out:
	if (!ret)
		*tagsp = &ts->tags;
	pthread_mutex_unlock(&tagset_lock);
	return ret;
}

void tagset_put(struct mqblk_tags *tags, struct mqblk_dev *dev)
{
	struct core_tagset *ts = tags->shared, **pp;

	pthread_mutex_lock(&tagset_lock);
	if (--ts->refs == 0) {
		for (pp = &tagsets; *pp != ts; pp = &(*pp)->next)
			;
		*pp = ts->next;
		tags_exit(&ts->tags, dev);
		free(ts);
	}
	pthread_mutex_unlock(&tagset_lock);
}
