// SPDX-License-Identifier: MIT
/*
 * The NVMe/RDMA host transport when mqblk is built without rdma-core
 * (-Drdma=disabled, or librdmacm/libibverbs absent): the same symbols,
 * each refusing with -ENOTSUP and a line saying why.
 */
#include <errno.h>
#include <string.h>

#include <mqblk/driver.h>

#include "drivers/nvmf/fabrics.h"
#include "nvme/nvme.h"
#include "nvme_rdma.h"

#define NR_NO_RDMA                                                    \
	"mqblk was built without rdma-core (librdmacm, libibverbs): " \
	"nvme-rdma is not available"

static struct nvmf_conn *nr_conn_open(struct nvmf_ctrl *d, uint16_t qid,
				      char *err, size_t errlen, int *ret)
{
	(void)d;
	(void)qid;
	nvmf_err(err, errlen, "%s", NR_NO_RDMA);
	*ret = -ENOTSUP;
	return NULL;
}

/* Reached only through nvmf_init's path, which the driver's init below
 * never takes: the table is what transports.c lists (names, trtype). */
const struct nvmf_transport_ops nvmf_rdma_transport = {
	.name = "rdma",
	.driver = "nvme_rdma",
	.trtype = NVMF_TRTYPE_RDMA,
	.conn_open = nr_conn_open,
};

static int nr_init(struct mqblk_dev *dev, struct mqblk_params *params,
		   struct mqblk_dev_limits *lim, char *err, size_t errlen)
{
	(void)dev;
	(void)params;
	(void)lim;
	nvmf_err(err, errlen, "%s", NR_NO_RDMA);
	return -ENOTSUP;
}

static enum mqblk_status nr_queue_rq(struct mqblk_hctx *hctx,
				     struct mqblk_rq *rq, bool last)
{
	(void)hctx;
	(void)rq;
	(void)last;
	return MQBLK_STS_ERROR;
}

const struct mqblk_driver_ops mqblk_nvme_rdma_driver = {
	.name = "nvme_rdma",
	.init = nr_init,
	.queue_rq = nr_queue_rq,
};

int nvme_rdma_get_stats(const struct mqblk_dev *dev,
			struct nvme_rdma_queue_stats *out, unsigned max)
{
	(void)dev;
	(void)out;
	(void)max;
	return -ENOTSUP;
}
