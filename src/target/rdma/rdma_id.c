// SPDX-License-Identifier: MIT
/*
 * What the NVMe/RDMA transport says of itself in the discovery log and
 * Identify: a reliable connected QP, provider type not specified,
 * connections through the RDMA CM, as nvmet-rdma's ports say.
 */
#include "rdma.h"

static void rdma_fill_tsas(const struct tgt_port *p,
			   struct nvmf_disc_log_entry *e)
{
	(void)p;
	e->tsas.rdma.qptype = NVMF_RDMA_QPTYPE_CONNECTED;
	e->tsas.rdma.prtype = NVMF_RDMA_PRTYPE_NOT_SPECIFIED;
	e->tsas.rdma.cms = NVMF_RDMA_CMS_RDMA_CM;
}

const struct tgt_transport_id tgt_rdma_id = {
	.name = "rdma",
	.trtype = NVMF_TRTYPE_RDMA,
	.treq = NVMF_TREQ_NOT_SPECIFIED,
	.mdts = TGT_MDTS,
	.keyed_sgls = true,
	.fill_tsas = rdma_fill_tsas,
};
