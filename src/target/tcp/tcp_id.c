// SPDX-License-Identifier: MIT
/*
 * What the NVMe/TCP transport says of itself in the discovery log:
 * secure channel not specified, SQ flow control may be disabled, no
 * security type. The same fields nvmet puts in a TCP port's entries.
 */
#include "tcp.h"

static void tcp_fill_tsas(const struct tgt_port *p,
			  struct nvmf_disc_log_entry *e)
{
	(void)p;
	e->tsas.tcp.sectype = NVMF_TCP_SECTYPE_NONE;
}

const struct tgt_transport_id tgt_tcp_id = {
	.name = "tcp",
	.trtype = NVMF_TRTYPE_TCP,
	.treq = NVMF_TREQ_NOT_SPECIFIED | NVMF_TREQ_DISABLE_SQFLOW,
	.mdts = TGT_MDTS,
	.fill_tsas = tcp_fill_tsas,
};
