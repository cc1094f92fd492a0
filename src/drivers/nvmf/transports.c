// SPDX-License-Identifier: MIT
/*
 * The fabrics host's transports: which mqblk devices are its controllers,
 * and the mqblk driver of each transport's (the core's ops, one table).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <mqblk/driver.h>

#include "fabrics.h"
#include "host.h"

extern const struct nvmf_transport_ops nvmf_tcp_transport;
extern const struct nvmf_transport_ops nvmf_rdma_transport;

static const struct nvmf_transport_ops *const transports[] = {
	&nvmf_tcp_transport,
	&nvmf_rdma_transport,
};

static char names_buf[64];

static void names_make(void)
{
	size_t i, off = 0;

	for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		off += (size_t)snprintf(names_buf + off,
					sizeof(names_buf) - off, "%s%s",
					i ? ", " : "", transports[i]->name);
}

bool nvmf_is_ctrl(const struct mqblk_dev *dev)
{
	const char *name = mqblk_dev_driver_name(dev);
	size_t i;

	for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		if (!strcmp(name, transports[i]->driver))
			return true;
	return false;
}

const char *nvmf_transport_name(uint8_t trtype)
{
	size_t i;

	for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		if (transports[i]->trtype == trtype)
			return transports[i]->name;
	return NULL;
}

bool nvmf_transport_known(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		if (!strcmp(transports[i]->name, name))
			return true;
	return false;
}

/* "tcp, rdma": the list's names, made once (the list is constant). */
const char *nvmf_transport_names(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, names_make);
	return names_buf;
}

/* The transport of a driver name ("nvme_tcp"), or NULL */
static const struct nvmf_transport_ops *transport_of(const char *driver)
{
	size_t i;

	for (i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		if (!strcmp(transports[i]->driver, driver))
			return transports[i];
	return NULL;
}

/* mqblk's driver init for every transport: the device's driver name says
 * which transport it is */
static int nvmf_driver_init(struct mqblk_dev *dev, struct mqblk_params *params,
			    struct mqblk_dev_limits *lim, char *err,
			    size_t errlen)
{
	const char *name = mqblk_dev_driver_name(dev);
	const struct nvmf_transport_ops *ops = transport_of(name);

	if (!ops) {
		nvmf_err(err, errlen, "driver %s: no NVMe-oF transport", name);
		return -ENODEV;
	}
	if (ops->missing) {
		nvmf_err(err, errlen, "%s", ops->missing);
		return -ENOTSUP;
	}
	return nvmf_init(dev, params, lim, err, errlen, ops);
}

int nvmf_map_buf(struct mqblk_hctx *hctx, void *base, size_t len)
{
	const struct nvmf_ctrl *d = mqblk_dev_data(mqblk_hctx_dev(hctx));
	struct nvmf_queue *q = mqblk_hctx_data(hctx);

	if (!q || !d->ops->map_buf)
		return -EOPNOTSUPP;
	return d->ops->map_buf(q, base, len);
}

void nvmf_unmap_buf(struct mqblk_hctx *hctx, void *base)
{
	const struct nvmf_ctrl *d = mqblk_dev_data(mqblk_hctx_dev(hctx));
	struct nvmf_queue *q = mqblk_hctx_data(hctx);

	if (q && d->ops->unmap_buf)
		d->ops->unmap_buf(q, base);
}

/* Each transport's mqblk driver: only the name differs (it picks the
 * transport in nvmf_driver_init); the registry (src/core/registry.c)
 * lists them by these symbols. */
#define NVMF_DRIVER(drv_name)                                           \
	{                                                               \
		.name = (drv_name), .init = nvmf_driver_init,           \
		.exit = nvmf_exit, .init_hctx = nvmf_init_hctx,         \
		.exit_hctx = nvmf_exit_hctx, .queue_rq = nvmf_queue_rq, \
		.commit_rqs = nvmf_commit_rqs, .poll = nvmf_poll,       \
		.timeout = nvmf_timeout, .fail_held = nvmf_fail_held,   \
		.map_buf = nvmf_map_buf, .unmap_buf = nvmf_unmap_buf,   \
		.nvme_admin = nvmf_nvme_admin,                          \
	}

const struct mqblk_driver_ops mqblk_nvme_tcp_driver = NVMF_DRIVER("nvme_tcp");
const struct mqblk_driver_ops mqblk_nvme_rdma_driver = NVMF_DRIVER("nvme_rdma");
