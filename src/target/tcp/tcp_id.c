// SPDX-License-Identifier: MIT
/*
 * What the NVMe/TCP transport says of itself in the discovery log:
 * SQ flow control may be disabled; the secure channel not specified and
 * no security type, or on a TLS port TLS 1.3, required or not. The same
 * fields nvmet puts in a TCP port's entries.
 */
#include "tcp.h"

static void tcp_fill_tsas(const struct tgt_port *p,
			  struct nvmf_disc_log_entry *e)
{
	e->tsas.tcp.sectype = p->sectype;
	/* a TLS port: the secure channel required or not, as configured */
	if (p->sectype)
		e->treq = (uint8_t)((e->treq & ~3u) | p->treq);
}

const struct tgt_transport_id tgt_tcp_id = {
	.name = "tcp",
	.trtype = NVMF_TRTYPE_TCP,
	.treq = NVMF_TREQ_NOT_SPECIFIED | NVMF_TREQ_DISABLE_SQFLOW,
	.mdts = TGT_MDTS,
	.fill_tsas = tcp_fill_tsas,
};
