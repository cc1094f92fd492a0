// SPDX-License-Identifier: MIT
/*
 * The transports the target has, by trtype: what each says of itself
 * (for Identify and the discovery log) and its ops. A port with trtype
 * 0 (built without one: the unit tests' ports) is TCP's, the default.
 */
#include "nvmet.h"
#include "target/rdma/rdma.h"
#include "target/tcp/tcp.h"

const struct tgt_transport_id *tgt_transport_id(uint8_t trtype)
{
	switch (trtype) {
	case 0:
	case NVMF_TRTYPE_TCP:
		return &tgt_tcp_id;
	case NVMF_TRTYPE_RDMA:
		return &tgt_rdma_id;
	default:
		return NULL;
	}
}
