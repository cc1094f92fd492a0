// SPDX-License-Identifier: MIT
/*
 * The NVMe/RDMA host transport when mqblk is built without rdma-core
 * (-Drdma=disabled, or librdmacm/libibverbs absent): the same symbols,
 * each refusing with -ENOTSUP and a line saying why (the fabrics core's
 * driver does, for a controller, from the transport's .missing).
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

/* What transports.c lists (names, trtype); opening a controller stops at
 * .missing, before any hook would run. */
const struct nvmf_transport_ops nvmf_rdma_transport = {
	.name = "rdma",
	.driver = "nvme_rdma",
	.trtype = NVMF_TRTYPE_RDMA,
	.missing = NR_NO_RDMA,
};

int nvme_rdma_get_stats(const struct mqblk_dev *dev,
			struct nvme_rdma_queue_stats *out, unsigned max)
{
	(void)dev;
	(void)out;
	(void)max;
	return -ENOTSUP;
}
