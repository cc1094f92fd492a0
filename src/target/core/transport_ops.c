// SPDX-License-Identifier: MIT
/*
 * The transports' ops by trtype, apart from their identities
 * (transport.c) so that the admin commands link without any transport.
 */
#include "nvmet.h"
#include "target/rdma/rdma.h"
#include "target/tcp/tcp.h"

const struct tgt_transport_ops *tgt_transport_ops(uint8_t trtype)
{
	switch (trtype) {
	case 0:
	case NVMF_TRTYPE_TCP:
		return tgt_tcp_transport;
	case NVMF_TRTYPE_RDMA:
		return tgt_rdma_transport;
	default:
		return NULL;
	}
}
