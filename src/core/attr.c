// SPDX-License-Identifier: MIT
/*
 * What drivers and callers read of a device and its hardware queues:
 * limits, driver data, statistics, and the ops a driver may not have.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core.h"

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

uint64_t mqblk_dev_size(const struct mqblk_dev *dev)
{
	return dev_capacity(dev);
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
