// SPDX-License-Identifier: MIT
/*
 * Tag sets: one scalable bitmap and one preallocated request (plus driver
 * pdu) per tag, so the I/O path never allocates.
 */
#include <errno.h>
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
	if (!t->timing_out) {
		ret = -ENOMEM;
		goto out_free_mem;
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
	free(t->timing_out);
out_free_mem:
	free(t->rq_mem);
out_free_sbq:
	sbitmap_queue_free(&t->sbq);
	return ret;
}

void tags_exit(struct mqblk_tags *t, struct mqblk_dev *dev)
{
	(void)dev;
	free(t->timing_out);
	free(t->rq_mem);
	sbitmap_queue_free(&t->sbq);
}
