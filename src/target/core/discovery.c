// SPDX-License-Identifier: MIT
/*
 * The discovery log page (70h): an entry for every (port, subsystem) pair
 * a host may connect to, each with its port's transport fields (the
 * transport's identity: type, TREQ, TSAS).
 */
#include <stdlib.h>
#include <string.h>

#include "admin.h"

/* May the host see s on port p in the discovery log? */
static bool disc_visible(const struct tgt_ctrl *ctrl, const struct tgt_port *p,
			 const struct tgt_subsys *s)
{
	return !p->discovery_only && !s->discovery && !atomic_load(&p->down) &&
	       tgt_host_allowed(s, ctrl->hostnqn);
}

/* A space padded address field from a shorter C string buffer */
static void put_addr(char *field, size_t width, const char *s, size_t max)
{
	size_t n = strnlen(s, max < width ? max : width);

	memcpy(field, s, n);
	memset(field + n, ' ', width - n);
}

static void disc_entry(struct nvmf_disc_log_entry *e, const struct tgt_port *p,
		       const struct tgt_subsys *s)
{
	const struct tgt_transport_id *id = tgt_transport_id(p->trtype);

	/* the transport's own fields: type, TREQ, TSAS */
	e->trtype = id->trtype;
	e->adrfam = (uint8_t)p->adrfam;
	e->subtype = NVME_NQN_NVME;
	e->treq = id->treq;
	e->portid = cpu_to_le16(p->portid);
	e->cntlid = cpu_to_le16(NVME_CNTLID_DYNAMIC);
	e->asqsz = cpu_to_le16(DISC_ASQSZ);
	put_addr(e->trsvcid, sizeof(e->trsvcid), p->trsvcid,
		 sizeof(p->trsvcid));
	tgt_admin_put_nqn(e->subnqn, s->nqn);
	put_addr(e->traddr, sizeof(e->traddr), p->traddr, sizeof(p->traddr));
	id->fill_tsas(p, e);
}

/*
 * The discovery log: an entry for every (port, subsystem) pair this host
 * may connect to, on every port (not only the one asked: a discovery-only
 * port has no subsystems of its own). No entry for the discovery
 * subsystem itself, as the Linux 6.1 target's.
 */
uint16_t tgt_log_discovery(struct admin_req *r)
{
	struct tgt_ctrl *ctrl = r->ctrl;
	const struct tgt *t = ctrl->tgt;
	struct nvmf_disc_log_header *hdr;
	struct nvmf_disc_log_entry *e;
	uint64_t nr = 0;
	unsigned i, j;
	size_t size;
	uint16_t status;

	/* room for every pair: a port may go down or up meanwhile */
	for (i = 0; i < t->nr_ports; i++)
		nr += t->ports[i].nr_subsys;
	hdr = calloc(1, sizeof(*hdr) + nr * sizeof(*e));
	if (!hdr)
		return fail(r, NVME_SC_INTERNAL, NO_ERR_LOC);
	e = (struct nvmf_disc_log_entry *)(hdr + 1);
	nr = 0;
	for (i = 0; i < t->nr_ports; i++) {
		const struct tgt_port *p = &t->ports[i];

		for (j = 0; j < p->nr_subsys; j++) {
			if (!disc_visible(ctrl, p, p->subsys[j]))
				continue;
			disc_entry(e++, p, p->subsys[j]);
			nr++;
		}
	}
	size = sizeof(*hdr) + nr * sizeof(*e);
	hdr->genctr = cpu_to_le64(atomic_load(&ctrl->subsys->genctr));
	hdr->numrec = cpu_to_le64(nr);
	hdr->recfmt = cpu_to_le16(0);
	status = tgt_admin_log_out(r, hdr, size);
	if (status == NVME_SC_SUCCESS && !tgt_admin_log_rae(r))
		ctrl->aen_masked &= ~AEN_MASK_DISC;
	free(hdr);
	return status;
}
