// SPDX-License-Identifier: MIT
/*
 * The NVMe/RDMA transport of a target built without rdma-core: the same
 * ops table, whose ports refuse to open with the reason. No port opens,
 * so no connection or queue ever reaches the other ops; they are the
 * ones a port-less transport needs to be a valid table.
 */
#include <errno.h>

#include "rdma.h"

static int rdma_port_open(struct tgt_port *p)
{
	tgt_log("mqblk was built without rdma-core (librdmacm, libibverbs): "
		"cannot listen on rdma:%s:%s",
		p->traddr, p->trsvcid);
	errno = ENOTSUP;
	return -1;
}

static void rdma_port_accept(struct tgt_port *p)
{
	(void)p;
}

static void rdma_port_close(struct tgt_port *p, int fd)
{
	(void)p;
	(void)fd;
}

static void rdma_conn_drop(intptr_t conn)
{
	(void)conn;
}

static struct tgt_queue *rdma_queue_create(struct tgt_reactor *r, intptr_t conn,
					   struct tgt_port *port)
{
	(void)r;
	(void)conn;
	(void)port;
	errno = ENOTSUP;
	return NULL;
}

static const struct tgt_transport_ops rdma_ops = {
	.name = "rdma",
	.trtype = NVMF_TRTYPE_RDMA,
	.port_open = rdma_port_open,
	.port_accept = rdma_port_accept,
	.port_close = rdma_port_close,
	.conn_drop = rdma_conn_drop,
	.queue_create = rdma_queue_create,
	.id = &tgt_rdma_id,
};

const struct tgt_transport_ops *const tgt_rdma_transport = &rdma_ops;
