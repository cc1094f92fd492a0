// SPDX-License-Identifier: MIT
/*
 * The target's admin command set: Identify, Get Log Page (the discovery
 * log too), Set/Get Features, Keep Alive, Asynchronous Events and Abort.
 *
 * What a Linux host asks for and checks decides most values: cntlid must
 * match Connect's, KAS must be non-zero on an I/O controller, MAXCMD,
 * IOCCSZ and IORCSZ must be sane, ICDOFF 0 and SGLs supported; a
 * namespace it finds through CNS 08h must say it is ready. Where the spec
 * leaves a choice we do what the kernel's own target (nvmet) does, so a
 * host that works with one works with the other.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mqblk/mqblk.h"
#include "admin.h"

#define DEFAULT_MODEL "mqblk"
#define ADMIN_VS NVME_VS(1, 3, 0) /* what nvmet reports, unless VS differs */
#define KAS_100MS 10 /* keep alive granularity: 1 s, as nvmet */
#define ABORT_LIMIT 3 /* ACL, 0's based: the spec's minimum of 4 */
#define CTRL_LIST_MAX 2047 /* CNS 13h: identifiers after the count */

/* Command field byte offsets, for the error log's parameter location */
#define LOC_OPCODE 0
#define LOC_NSID 4
#define LOC_CDW10 40
#define LOC_CDW11 44
#define LOC_CSI_IDENTIFY 47
#define LOC_LPO 48
#define LOC_CSI_LOG 59
#define LOC_BIT(byte, bit) ((uint16_t)((byte) | (bit) << 8))

/* The AEN mask bits the logs clear when read (RAE 0) */
#define AEN_MASK_SMART NVME_AEN_CFG_SMART_MASK
#define AEN_MASK_NS_ATTR NVME_CTRL_OAES_NS_ATTR
#define AEN_MASK_ANA NVME_AEN_CFG_ANA_CHANGE

/* Events a controller may enable (Set Features 0Bh) */
#define IO_AEC_SUPPORTED \
	(AEN_MASK_SMART | NVME_CTRL_OAES_NS_ATTR | NVME_AEN_CFG_ANA_CHANGE)
#define DISC_AEC_SUPPORTED NVME_CTRL_OAES_DISC_CHANGE

/*
 * Error logs are written by every reactor that fails a command of the
 * controller, not only the admin queue's: one lock for all of them, taken
 * only on error paths and by the log pages that read them.
 */
static pthread_mutex_t errlog_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t cdw10(const struct admin_req *r)
{
	return le32_to_cpu(r->sqe->common.cdw10);
}

static uint32_t cdw11(const struct admin_req *r)
{
	return le32_to_cpu(r->sqe->common.cdw11);
}

static uint32_t cmd_nsid(const struct admin_req *r)
{
	return le32_to_cpu(r->sqe->common.nsid);
}

/* Data to the host: at most len bytes (the rest of buf is zeroed). */
static void put_data(struct admin_req *r, const void *src, size_t n)
{
	if (n > r->len)
		n = r->len;
	if (n)
		memcpy(r->buf, src, n);
}

/* An NQN field: NUL padded (the buffer is zeroed already) */
void tgt_admin_put_nqn(char field[NVME_NQN_SIZE], const char *nqn)
{
	memcpy(field, nqn, strnlen(nqn, TGT_NQN_MAX));
}

static bool ctrl_has_vwc(const struct tgt_ctrl *ctrl)
{
	const struct tgt_subsys *s = ctrl->subsys;
	unsigned i;

	for (i = 0; i < s->nr_ns; i++)
		if (s->ns[i]->enabled && s->ns[i]->vwc)
			return true;
	return false;
}

static const char *firmware_rev(const struct tgt_subsys *s)
{
	return s->firmware[0] ? s->firmware : TGT_VERSION;
}

/* ---- Error log -------------------------------------------------------- */

void tgt_ctrl_log_error(struct tgt_ctrl *ctrl, uint16_t sqid, uint16_t cid,
			uint16_t status, uint16_t param_loc, uint64_t lba,
			uint32_t nsid)
{
	struct nvme_error_log_entry *e;
	uint64_t n;

	pthread_mutex_lock(&errlog_lock);
	/* a ring by count: entry n (1..) in slot (n - 1) % size */
	n = ++ctrl->err_count;
	e = &ctrl->errlog[(n - 1) % TGT_ERROR_LOG_ENTRIES];
	memset(e, 0, sizeof(*e));
	e->error_count = cpu_to_le64(n);
	e->sqid = cpu_to_le16(sqid);
	e->cmdid = cid;
	/* the completion's status field: phase bit 0 clear */
	e->status_field = cpu_to_le16((uint16_t)(status << 1));
	e->param_error_location = cpu_to_le16(param_loc);
	e->lba = cpu_to_le64(lba);
	e->nsid = cpu_to_le32(nsid);
	e->trtype = ctrl->port && ctrl->port->trtype ? ctrl->port->trtype :
						       NVMF_TRTYPE_TCP;
	pthread_mutex_unlock(&errlog_lock);
}

/* ---- Asynchronous events --------------------------------------------- */

/*
 * The Asynchronous Event Configuration bit that enables an event, which is
 * also its bit in aen_masked; -1 for events no configuration gates (errors,
 * vendor specific).
 */
static int aen_bit(uint32_t dw0)
{
	unsigned info = NVME_AER_INFO(dw0);

	switch (NVME_AER_TYPE(dw0)) {
	case NVME_AER_TYPE_SMART:
		/* information 0 reliability, 1 temperature, 2 spare: the
		 * critical warning bits 2, 1 and 0 */
		return info <= 2 ? 2 - (int)info : -1;
	case NVME_AER_TYPE_NOTICE:
		if (info == NVME_AER_NOTICE_DISC_CHANGED)
			return 31;
		return info <= NVME_AER_NOTICE_ANA ? 8 + (int)info : -1;
	default:
		return -1;
	}
}

void tgt_ctrl_aen(struct tgt_ctrl *ctrl, uint32_t dw0)
{
	int bit = aen_bit(dw0);
	uint32_t mask = bit >= 0 ? 1u << bit : 0;

	if (mask) {
		/* disabled, or reported and its log not read yet */
		if (!(ctrl->aec & mask) || (ctrl->aen_masked & mask))
			return;
		ctrl->aen_masked |= mask;
	}
	if (ctrl->nr_aer) {
		uint16_t cid = ctrl->aer_cid[--ctrl->nr_aer];

		tgt_queue_complete_aer(ctrl, cid, dw0);
		return;
	}
	if (ctrl->nr_aen_pending <
	    sizeof(ctrl->aen_pending) / sizeof(ctrl->aen_pending[0])) {
		ctrl->aen_pending[ctrl->nr_aen_pending++] = dw0;
		return;
	}
	/* no room: dropped, so let the next one of its kind through */
	ctrl->aen_masked &= ~mask;
}

void tgt_ctrl_ns_changed(struct tgt_ctrl *ctrl, uint32_t nsid)
{
	unsigned i;

	/* nvmet's nvmet_add_to_changed_ns_log: each NSID once; the 1025th
	 * overflows the list (the log then reads FFFFFFFFh: rescan all)
	 * until it is read. The list fills whether or not the event is
	 * enabled; the event goes only where it is. */
	if (ctrl->nr_changed_ns <= NVME_MAX_CHANGED_NAMESPACES) {
		for (i = 0; i < ctrl->nr_changed_ns; i++)
			if (ctrl->changed_ns[i] == nsid)
				break;
		if (i < ctrl->nr_changed_ns)
			; /* listed already */
		else if (ctrl->nr_changed_ns == NVME_MAX_CHANGED_NAMESPACES)
			ctrl->nr_changed_ns++;
		else
			ctrl->changed_ns[ctrl->nr_changed_ns++] = nsid;
	}
	tgt_ctrl_aen(ctrl, NVME_AER_DW0(NVME_AER_TYPE_NOTICE,
					NVME_AER_NOTICE_NS_CHANGED,
					NVME_LOG_CHANGED_NS));
}

static uint16_t exec_async_event(struct admin_req *r)
{
	struct tgt_ctrl *ctrl = r->ctrl;
	uint16_t cid = r->sqe->common.command_id;

	if (ctrl->nr_aer >= TGT_AERL)
		return fail(r, NVME_SC_ASYNC_LIMIT | NVME_SC_DNR, NO_ERR_LOC);
	if (ctrl->nr_aen_pending) {
		/* an event waited for this request: the oldest goes now */
		uint32_t dw0 = ctrl->aen_pending[0];

		ctrl->nr_aen_pending--;
		memmove(ctrl->aen_pending, ctrl->aen_pending + 1,
			ctrl->nr_aen_pending * sizeof(ctrl->aen_pending[0]));
		tgt_queue_complete_aer(ctrl, cid, dw0);
		return TGT_STATUS_DEFER;
	}
	ctrl->aer_cid[ctrl->nr_aer++] = cid;
	return TGT_STATUS_DEFER;
}

/* ---- Identify -------------------------------------------------------- */

static bool port_keyed_sgls(const struct tgt_port *p)
{
	const struct tgt_transport_id *id = p ? tgt_transport_id(p->trtype) :
						NULL;

	return id && id->keyed_sgls;
}

static void id_ctrl_common(const struct tgt_ctrl *ctrl, struct nvme_id_ctrl *id)
{
	const struct tgt_subsys *s = ctrl->subsys;

	nvme_put_ascii(id->sn, sizeof(id->sn), s->serial);
	nvme_put_ascii(id->mn, sizeof(id->mn),
		       s->model[0] ? s->model : DEFAULT_MODEL);
	nvme_put_ascii(id->fr, sizeof(id->fr), firmware_rev(s));
	id->cntlid = cpu_to_le16(ctrl->cntlid);
	id->ver = cpu_to_le32(ctrl->vs ? ctrl->vs : ADMIN_VS);
	id->lpa = NVME_CTRL_LPA_EXT_DATA;
	id->maxcmd = cpu_to_le16(ctrl->port->max_queue_size);
	/* SGLs; an offset SGL names in-capsule data; keyed ones (RDMA's)
	 * where the port's transport has keys (NVMe/TCP has none) */
	id->sgls = cpu_to_le32(
		NVME_CTRL_SGLS_SUPPORTED | NVME_CTRL_SGLS_OFFSET |
		(port_keyed_sgls(ctrl->port) ? NVME_CTRL_SGLS_KEYED : 0));
	tgt_admin_put_nqn(id->subnqn, s->nqn);
}

/* A discovery controller: what nvmet's discovery Identify fills, and
 * the controller type. */
static void id_ctrl_disc(const struct tgt_ctrl *ctrl, struct nvme_id_ctrl *id)
{
	id_ctrl_common(ctrl, id);
	id->cntrltype = NVME_CTRL_TYPE_DISC;
	id->oaes = cpu_to_le32(NVME_CTRL_OAES_DISC_CHANGE);
}

static void id_ctrl_io(const struct tgt_ctrl *ctrl, struct nvme_id_ctrl *id)
{
	id_ctrl_common(ctrl, id);
	id->rab = 6;
	/*
	 * Several ports, several controllers (hosts, or one host's paths):
	 * a Linux host refuses a second controller of a subsystem without
	 * MULTI_CTRL; with ANA it reads log 0Ch for each path's state.
	 */
	id->cmic = NVME_CTRL_CMIC_MULTI_PORT | NVME_CTRL_CMIC_MULTI_CTRL |
		   NVME_CTRL_CMIC_ANA;
	id->mdts = tgt_transport_id(ctrl->port->trtype)->mdts;
	id->oaes =
		cpu_to_le32(NVME_CTRL_OAES_NS_ATTR | NVME_CTRL_OAES_ANA_CHANGE);
	/*
	 * Not CTRATT TBKAS (traffic based keep alive): a host then skips
	 * Keep Alives while I/O flows, and only holds if every command on
	 * every queue restarts the timer.
	 */
	id->ctratt = cpu_to_le32(NVME_CTRL_CTRATT_128_ID);
	id->cntrltype = NVME_CTRL_TYPE_IO;
	id->acl = ABORT_LIMIT;
	id->aerl = TGT_AERL - 1;
	/* one firmware slot, read only */
	id->frmw = 1u << 0 | 1u << 1;
	id->lpa = NVME_CTRL_LPA_CMD_EFFECTS_LOG | NVME_CTRL_LPA_EXT_DATA;
	id->elpe = TGT_ERROR_LOG_ENTRIES - 1;
	id->npss = 0;
	id->kas = cpu_to_le16(KAS_100MS);
	id->sqes = 0x6 << 4 | 0x6;
	id->cqes = 0x4 << 4 | 0x4;
	id->nn = cpu_to_le32(TGT_MAX_NS);
	id->mnan = cpu_to_le32(TGT_MAX_NS);
	/*
	 * ANA: every state can be reported, and a namespace's group is
	 * fixed while it is attached (nvmet's ANACAP). Linux sizes its log
	 * buffer from NANAGRPID descriptors plus MNAN NSIDs.
	 */
	id->anacap = NVME_ANACAP_OPTIMIZED | NVME_ANACAP_NONOPTIMIZED |
		     NVME_ANACAP_INACCESSIBLE | NVME_ANACAP_PERSISTENT_LOSS |
		     NVME_ANACAP_CHANGE | NVME_ANACAP_GRPID_STATIC;
	id->anatt = ctrl->tgt->anatt ? ctrl->tgt->anatt : TGT_ANATT;
	id->anagrpmax = cpu_to_le32(TGT_MAX_ANA_GROUPS);
	id->nanagrpid = cpu_to_le32(TGT_MAX_ANA_GROUPS);
	id->oncs =
		cpu_to_le16(NVME_CTRL_ONCS_DSM | NVME_CTRL_ONCS_WRITE_ZEROES);
	if (ctrl_has_vwc(ctrl))
		id->vwc = NVME_CTRL_VWC_PRESENT;
	id->ioccsz =
		cpu_to_le32((NVME_SQE_SIZE + ctrl->port->inline_data) / 16);
	id->iorcsz = cpu_to_le32(NVME_CQE_SIZE / 16);
	id->icdoff = 0;
	id->fcatt = 0; /* dynamic controller model */
	id->msdbd = 1;
	/* one power state, the values nvmet (and QEMU) show: 25 W */
	id->psd[0].max_power = cpu_to_le16(2500);
	id->psd[0].entry_lat = cpu_to_le32(16);
	id->psd[0].exit_lat = cpu_to_le32(4);
}

static void id_ns(const struct tgt_ns *ns, struct nvme_id_ns *id)
{
	uint64_t blocks = ns->size >> ns->lba_shift;

	/* no thin provisioning: size, capacity and use are one */
	id->nsze = cpu_to_le64(blocks);
	id->ncap = cpu_to_le64(blocks);
	id->nuse = cpu_to_le64(blocks);
	id->nlbaf = 0;
	id->flbas = 0;
	/* other controllers, and other users of the device, may share it */
	id->nmic = NVME_NMIC_SHARED;
	/* deallocated blocks read as what the device has: no promise */
	id->dlfeat = 0;
	if (ns->readonly)
		id->nsattr = NVME_NS_ATTR_RO;
	if (ns->has_nguid)
		memcpy(id->nguid, ns->nguid, sizeof(id->nguid));
	if (ns->has_eui64)
		memcpy(id->eui64, ns->eui64, sizeof(id->eui64));
	id->lbaf[0].ds = (uint8_t)ns->lba_shift;
	id->anagrpid = cpu_to_le32(ns->anagrpid);
}

static void id_ns_indep(const struct tgt_ns *ns, struct nvme_id_ns_cs_indep *id)
{
	id->nmic = NVME_NMIC_SHARED;
	if (ns->readonly)
		id->nsattr = NVME_NS_ATTR_RO;
	id->nstat = NVME_NSTAT_NRDY;
	id->anagrpid = cpu_to_le32(ns->anagrpid);
}

/* A valid NSID (1..NN), active or not; 0 and broadcast are not. */
static bool nsid_valid(uint32_t nsid)
{
	return nsid >= 1 && nsid <= TGT_MAX_NS;
}

static uint16_t id_active_list(struct admin_req *r, uint8_t *page)
{
	const struct tgt_subsys *s = r->ctrl->subsys;
	uint32_t after = cmd_nsid(r);
	unsigned i, n = 0;

	if (after >= NVME_NSID_ALL - 1)
		return fail(r, NVME_SC_INVALID_NS | NVME_SC_DNR, LOC_NSID);
	/* s->ns is sorted by NSID: the list comes out ascending */
	for (i = 0; i < s->nr_ns && n < NVME_IDENTIFY_SIZE / 4; i++) {
		if (!s->ns[i]->enabled || s->ns[i]->nsid <= after)
			continue;
		nvme_put_le32(page + 4 * n++, s->ns[i]->nsid);
	}
	return NVME_SC_SUCCESS;
}

static uint16_t id_desc_list(struct admin_req *r, uint8_t *page)
{
	const struct tgt_ns *ns = tgt_subsys_ns(r->ctrl->subsys, cmd_nsid(r));
	uint8_t csi = NVME_CSI_NVM;
	size_t off = 0;

	if (!ns)
		return fail(r, NVME_SC_INVALID_NS | NVME_SC_DNR, LOC_NSID);
	/* at most 4 + 8, 4 + 16, 4 + 16, 4 + 1 bytes: always fits */
	if (ns->has_eui64)
		nvme_ns_desc_put(page, NVME_IDENTIFY_SIZE, &off,
				 NVME_NIDT_EUI64, ns->eui64,
				 NVME_NIDT_EUI64_LEN);
	if (ns->has_nguid)
		nvme_ns_desc_put(page, NVME_IDENTIFY_SIZE, &off,
				 NVME_NIDT_NGUID, ns->nguid,
				 NVME_NIDT_NGUID_LEN);
	if (ns->has_uuid)
		nvme_ns_desc_put(page, NVME_IDENTIFY_SIZE, &off, NVME_NIDT_UUID,
				 ns->uuid, NVME_NIDT_UUID_LEN);
	nvme_ns_desc_put(page, NVME_IDENTIFY_SIZE, &off, NVME_NIDT_CSI, &csi,
			 NVME_NIDT_CSI_LEN);
	return NVME_SC_SUCCESS;
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* CNS 13h: the subsystem's controllers from CNTID up, ascending. */
static uint16_t id_ctrl_list(struct admin_req *r, uint8_t *page)
{
	struct tgt_subsys *s = r->ctrl->subsys;
	uint16_t from = le16_to_cpu(r->sqe->identify.cntid);
	uint16_t ids[CTRL_LIST_MAX];
	struct tgt_ctrl *c;
	size_t i, n = 0;

	pthread_mutex_lock(&s->lock);
	for (c = s->ctrls; c && n < CTRL_LIST_MAX; c = c->next)
		if (c->cntlid >= from)
			ids[n++] = c->cntlid;
	pthread_mutex_unlock(&s->lock);
	if (n > 1)
		qsort(ids, n, sizeof(ids[0]), cmp_u16);
	nvme_put_le16(page, (uint16_t)n);
	for (i = 0; i < n; i++)
		nvme_put_le16(page + 2 + 2 * i, ids[i]);
	return NVME_SC_SUCCESS;
}

static uint16_t exec_identify(struct admin_req *r)
{
	const struct nvme_identify_command *c = &r->sqe->identify;
	struct tgt_ctrl *ctrl = r->ctrl;
	uint32_t nsid = cmd_nsid(r);
	const struct tgt_ns *ns;
	uint16_t status = NVME_SC_SUCCESS;
	union {
		uint8_t b[NVME_IDENTIFY_SIZE];
		struct nvme_id_ctrl ctrl;
		struct nvme_id_ns ns;
		struct nvme_id_ns_cs_indep indep;
	} page;

	memset(&page, 0, sizeof(page));
	if (ctrl->subsys->discovery) {
		if (c->cns != NVME_ID_CNS_CTRL)
			return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR,
				    LOC_CDW10);
		id_ctrl_disc(ctrl, &page.ctrl);
		put_data(r, &page, sizeof(page));
		return NVME_SC_SUCCESS;
	}

	switch (c->cns) {
	case NVME_ID_CNS_NS:
	case NVME_ID_CNS_NS_CS_INDEP:
		/* an unused but valid NSID reads as zeroes (nvmet does so) */
		if (!nsid_valid(nsid))
			return fail(r, NVME_SC_INVALID_NS | NVME_SC_DNR,
				    LOC_NSID);
		ns = tgt_subsys_ns(ctrl->subsys, nsid);
		if (ns && c->cns == NVME_ID_CNS_NS)
			id_ns(ns, &page.ns);
		else if (ns)
			id_ns_indep(ns, &page.indep);
		break;
	case NVME_ID_CNS_CTRL:
		id_ctrl_io(ctrl, &page.ctrl);
		break;
	case NVME_ID_CNS_NS_ACTIVE_LIST:
		status = id_active_list(r, page.b);
		break;
	case NVME_ID_CNS_NS_DESC_LIST:
		status = id_desc_list(r, page.b);
		break;
	case NVME_ID_CNS_CS_NS:
		/* the NVM command set's own namespace fields: none we use */
		if (c->csi != NVME_CSI_NVM)
			return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR,
				    LOC_CSI_IDENTIFY);
		if (!nsid_valid(nsid))
			return fail(r, NVME_SC_INVALID_NS | NVME_SC_DNR,
				    LOC_NSID);
		break;
	case NVME_ID_CNS_CS_CTRL:
		/* NVM: zeroes, no limits beyond MDTS (nvmet does the same) */
		if (c->csi != NVME_CSI_NVM)
			return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR,
				    LOC_CSI_IDENTIFY);
		break;
	case NVME_ID_CNS_CTRL_LIST:
		status = id_ctrl_list(r, page.b);
		break;
	default:
		return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR, LOC_CDW10);
	}
	if (status == NVME_SC_SUCCESS)
		put_data(r, &page, sizeof(page));
	return status;
}

/* ---- Log pages ------------------------------------------------------- */

/* Copy the log page's bytes from LPO, as many as NUMD and len allow. */
uint16_t tgt_admin_log_out(struct admin_req *r, const void *page, size_t size)
{
	const struct nvme_get_log_page_command *c = &r->sqe->get_log_page;
	uint64_t lpo = le64_to_cpu(c->lpo);
	uint64_t n = nvme_log_page_len(c);

	if (lpo > size)
		return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR, LOC_LPO);
	if (n > size - lpo)
		n = size - lpo;
	put_data(r, (const uint8_t *)page + lpo, (size_t)n);
	return NVME_SC_SUCCESS;
}

bool tgt_admin_log_rae(const struct admin_req *r)
{
	return r->sqe->get_log_page.lsp & NVME_LOG_LSP_RAE;
}

static uint16_t log_error(struct admin_req *r)
{
	static const size_t size =
		TGT_ERROR_LOG_ENTRIES * sizeof(struct nvme_error_log_entry);
	struct tgt_ctrl *ctrl = r->ctrl;
	struct nvme_error_log_entry *page;
	uint64_t n, i;
	uint16_t status;

	page = calloc(1, size);
	if (!page)
		return fail(r, NVME_SC_INTERNAL, NO_ERR_LOC);
	pthread_mutex_lock(&errlog_lock);
	n = ctrl->err_count;
	/* newest first */
	for (i = 0; i < n && i < TGT_ERROR_LOG_ENTRIES; i++)
		page[i] = ctrl->errlog[(n - 1 - i) % TGT_ERROR_LOG_ENTRIES];
	pthread_mutex_unlock(&errlog_lock);
	status = tgt_admin_log_out(r, page, size);
	free(page);
	return status;
}

/* 128-bit little-endian counter from 64 bits */
static void put_le128(uint8_t *field, uint64_t v)
{
	nvme_put_le64(field, v);
	nvme_put_le64(field + 8, 0);
}

/* SMART data units: thousands of 512-byte units, rounded up */
static uint64_t data_units(uint64_t bytes)
{
	return (bytes / 512 + 999) / 1000;
}

static uint16_t log_smart(struct admin_req *r)
{
	struct tgt_ctrl *ctrl = r->ctrl;
	struct tgt_ctrl_smart *sm = &ctrl->smart;
	struct nvme_smart_log log;
	uint32_t nsid = cmd_nsid(r);
	uint64_t now, hours = 0, errors;
	uint16_t status;

	/* controller-wide only (LPA bit 0 clear) */
	if (nsid != 0 && nsid != NVME_NSID_ALL)
		return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR, LOC_NSID);
	memset(&log, 0, sizeof(log));
	put_le128(log.data_units_read,
		  data_units(atomic_load_explicit(&sm->read_bytes,
						  memory_order_relaxed)));
	put_le128(log.data_units_written,
		  data_units(atomic_load_explicit(&sm->write_bytes,
						  memory_order_relaxed)));
	put_le128(log.host_reads,
		  atomic_load_explicit(&sm->read_cmds, memory_order_relaxed));
	put_le128(log.host_writes,
		  atomic_load_explicit(&sm->write_cmds, memory_order_relaxed));
	now = mqblk_clock_ns();
	if (ctrl->start_ns && now > ctrl->start_ns)
		hours = (now - ctrl->start_ns) / (3600ull * 1000000000ull);
	put_le128(log.power_on_hours, hours);
	pthread_mutex_lock(&errlog_lock);
	errors = ctrl->err_count;
	pthread_mutex_unlock(&errlog_lock);
	put_le128(log.num_err_log_entries, errors);
	status = tgt_admin_log_out(r, &log, sizeof(log));
	if (status == NVME_SC_SUCCESS && !tgt_admin_log_rae(r))
		ctrl->aen_masked &= ~AEN_MASK_SMART;
	return status;
}

static uint16_t log_fw_slot(struct admin_req *r)
{
	struct nvme_fw_slot_log log;

	memset(&log, 0, sizeof(log));
	log.afi = 1; /* slot 1 active, no other on reset */
	nvme_put_ascii(&log.frs[0], sizeof(log.frs[0]),
		       firmware_rev(r->ctrl->subsys));
	return tgt_admin_log_out(r, &log, sizeof(log));
}

static uint16_t log_changed_ns(struct admin_req *r)
{
	struct tgt_ctrl *ctrl = r->ctrl;
	uint8_t page[NVME_MAX_CHANGED_NAMESPACES * 4];
	unsigned i;
	uint16_t status;

	memset(page, 0, sizeof(page));
	if (ctrl->nr_changed_ns > NVME_MAX_CHANGED_NAMESPACES) {
		/* overflowed: the host must rescan everything */
		nvme_put_le32(page, NVME_NSID_ALL);
	} else {
		for (i = 0; i < ctrl->nr_changed_ns; i++)
			nvme_put_le32(page + 4 * i, ctrl->changed_ns[i]);
	}
	status = tgt_admin_log_out(r, page, sizeof(page));
	if (status == NVME_SC_SUCCESS && !tgt_admin_log_rae(r)) {
		ctrl->nr_changed_ns = 0;
		ctrl->aen_masked &= ~AEN_MASK_NS_ATTR;
	}
	return status;
}

static uint16_t log_cmd_effects(struct admin_req *r)
{
	static const uint8_t admin_ops[] = {
		nvme_admin_get_log_page, nvme_admin_identify,
		nvme_admin_abort,	 nvme_admin_set_features,
		nvme_admin_get_features, nvme_admin_async_event,
		nvme_admin_keep_alive,
	};
	const uint32_t lbcc = NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC;
	struct nvme_effects_log log;
	size_t i;

	if (r->sqe->get_log_page.csi != NVME_CSI_NVM)
		return fail(r, NVME_SC_INVALID_LOG_PAGE | NVME_SC_DNR,
			    LOC_CSI_LOG);
	memset(&log, 0, sizeof(log));
	for (i = 0; i < sizeof(admin_ops); i++)
		log.acs[admin_ops[i]] = cpu_to_le32(NVME_CMD_EFFECTS_CSUPP);
	log.iocs[nvme_cmd_flush] = cpu_to_le32(NVME_CMD_EFFECTS_CSUPP);
	log.iocs[nvme_cmd_read] = cpu_to_le32(NVME_CMD_EFFECTS_CSUPP);
	log.iocs[nvme_cmd_write] = cpu_to_le32(lbcc);
	log.iocs[nvme_cmd_write_zeroes] = cpu_to_le32(lbcc);
	log.iocs[nvme_cmd_dsm] = cpu_to_le32(lbcc);
	return tgt_admin_log_out(r, &log, sizeof(log));
}

/*
 * The ANA log (0Ch): a descriptor per ANA group that exists, ascending,
 * each with the controller's subsystem's namespaces in it (none with
 * RGO) and the group's state on the port this controller came in on.
 * Built whole, then cut at LPO and the length: Linux reads it at once,
 * nvme-cli and others in pieces (hundreds of namespaces span pages).
 * Its size, for LPO, is the most it could hold: NANAGRPID descriptors
 * and MNAN NSIDs, as Identify says. nvme-cli reads that much, 4 KiB at a
 * time, and what lies past the groups reads as zeroes (nvmet answers
 * such reads too: it ignores LPO).
 */
static uint16_t log_ana(struct admin_req *r)
{
	struct tgt_ctrl *ctrl = r->ctrl;
	const struct tgt *t = ctrl->tgt;
	const struct tgt_subsys *s = ctrl->subsys;
	bool rgo = r->sqe->get_log_page.lsp & NVME_LOG_LSP_ANA_RGO;
	uint64_t chgcnt = atomic_load(&ctrl->tgt->ana_chgcnt);
	struct nvme_ana_log_hdr *hdr;
	const size_t size =
		sizeof(*hdr) +
		TGT_MAX_ANA_GROUPS * sizeof(struct nvme_ana_group_desc) +
		(rgo ? 0 : 4 * (size_t)TGT_MAX_NS);
	size_t off;
	unsigned g, i, ngrps = 0;
	uint16_t status;
	uint8_t *page;

	page = calloc(1, size);
	if (!page)
		return fail(r, NVME_SC_INTERNAL, NO_ERR_LOC);
	off = sizeof(*hdr);
	for (g = 1; g <= TGT_MAX_ANA_GROUPS; g++) {
		struct nvme_ana_group_desc *d;
		uint32_t n = 0;

		if (!t->ana_group_used[g])
			continue;
		d = (struct nvme_ana_group_desc *)(page + off);
		off += sizeof(*d);
		/* s->ns is sorted: the NSIDs come out ascending */
		for (i = 0; !rgo && i < s->nr_ns; i++) {
			if (!s->ns[i]->enabled || s->ns[i]->anagrpid != g)
				continue;
			nvme_put_le32(page + off, s->ns[i]->nsid);
			off += 4;
			n++;
		}
		d->grpid = cpu_to_le32(g);
		d->nnsids = cpu_to_le32(n);
		d->chgcnt = cpu_to_le64(chgcnt);
		d->state = atomic_load_explicit(&ctrl->port->ana_state[g],
						memory_order_relaxed);
		ngrps++;
	}
	hdr = (struct nvme_ana_log_hdr *)page;
	hdr->chgcnt = cpu_to_le64(chgcnt);
	hdr->ngrps = cpu_to_le16((uint16_t)ngrps);
	status = tgt_admin_log_out(r, page, size);
	if (status == NVME_SC_SUCCESS && !tgt_admin_log_rae(r))
		ctrl->aen_masked &= ~AEN_MASK_ANA;
	free(page);
	return status;
}

static uint16_t exec_get_log_page(struct admin_req *r)
{
	const struct nvme_get_log_page_command *c = &r->sqe->get_log_page;

	/* the offset is in bytes but must be dword aligned */
	if (le64_to_cpu(c->lpo) & 3)
		return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR, LOC_LPO);
	if (r->ctrl->subsys->discovery) {
		if (c->lid != NVME_LOG_DISC)
			return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR,
				    LOC_CDW10);
		return tgt_log_discovery(r);
	}
	switch (c->lid) {
	case NVME_LOG_ERROR:
		return log_error(r);
	case NVME_LOG_SMART:
		return log_smart(r);
	case NVME_LOG_FW_SLOT:
		return log_fw_slot(r);
	case NVME_LOG_CHANGED_NS:
		return log_changed_ns(r);
	case NVME_LOG_CMD_EFFECTS:
		return log_cmd_effects(r);
	case NVME_LOG_ANA:
		return log_ana(r);
	default:
		/* nvmet answers unknown LIDs so */
		return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR, LOC_CDW10);
	}
}

/* ---- Features -------------------------------------------------------- */

/* Does the controller have any I/O queue yet? */
static bool ctrl_has_ioq(struct tgt_ctrl *ctrl)
{
	bool any = false;
	unsigned i;

	pthread_mutex_lock(&ctrl->subsys->lock);
	for (i = 1; i <= TGT_MAX_IO_QUEUES && !any; i++)
		any = ctrl->ioq[i] != NULL;
	pthread_mutex_unlock(&ctrl->subsys->lock);
	return any;
}

static uint16_t set_num_queues(struct admin_req *r, uint32_t v)
{
	struct tgt_ctrl *ctrl = r->ctrl;
	uint32_t nsqr = v & 0xffff, ncqr = v >> 16, n;

	if (nsqr == 0xffff || ncqr == 0xffff)
		return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR, LOC_CDW11);
	if (ctrl_has_ioq(ctrl))
		return fail(r, NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR, NO_ERR_LOC);
	/* Fabrics queues are SQ/CQ pairs: the same number of each */
	n = (nsqr < ncqr ? nsqr : ncqr) + 1;
	if (n > TGT_MAX_IO_QUEUES)
		n = TGT_MAX_IO_QUEUES;
	ctrl->nr_io_queues = n;
	*r->result = NVME_FEAT_NUMQ(n, n);
	return NVME_SC_SUCCESS;
}

static uint16_t exec_set_features(struct admin_req *r)
{
	struct tgt_ctrl *ctrl = r->ctrl;
	bool disc = ctrl->subsys->discovery;
	uint32_t v = cdw11(r);
	uint8_t fid = cdw10(r) & 0xff;

	if (cdw10(r) & NVME_FEAT_SV)
		return fail(r, NVME_SC_FEATURE_NOT_SAVEABLE | NVME_SC_DNR,
			    LOC_BIT(LOC_CDW10 + 3, 7));
	switch (fid) {
	case NVME_FEAT_KATO:
		ctrl->kato_ms = v;
		/* the timer restarts with the new timeout */
		atomic_store(&ctrl->last_ka_ns, mqblk_clock_ns());
		return NVME_SC_SUCCESS;
	case NVME_FEAT_ASYNC_EVENT:
		if (v & ~(disc ? DISC_AEC_SUPPORTED : IO_AEC_SUPPORTED))
			return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR,
				    LOC_CDW11);
		ctrl->aec = v;
		return NVME_SC_SUCCESS;
	}
	if (disc)
		return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR, LOC_CDW10);
	switch (fid) {
	case NVME_FEAT_NUM_QUEUES:
		return set_num_queues(r, v);
	case NVME_FEAT_VOLATILE_WC:
		if (!ctrl_has_vwc(ctrl))
			return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR,
				    LOC_CDW10);
		ctrl->vwc = v & 1;
		return NVME_SC_SUCCESS;
	case NVME_FEAT_POWER_MGMT:
		/* one power state (NPSS 0), no workload hint */
		if (v != 0)
			return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR,
				    LOC_CDW11);
		return NVME_SC_SUCCESS;
	case NVME_FEAT_HOST_ID:
		/* on Fabrics the host identifier comes with Connect */
		return fail(r, NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR, NO_ERR_LOC);
	default:
		return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR, LOC_CDW10);
	}
}

/*
 * A feature's value for Get Features' SEL: current, default or saved
 * (nothing is saveable, so saved reads as default), or its capabilities.
 * Returns false for a feature this controller does not have.
 */
static bool feat_value(struct tgt_ctrl *ctrl, uint8_t fid, unsigned sel,
		       uint32_t *val)
{
	bool disc = ctrl->subsys->discovery;
	bool cur = sel == NVME_FEAT_SEL_CURRENT;
	bool caps = sel == NVME_FEAT_SEL_SUPPORTED;
	uint32_t n;

	switch (fid) {
	case NVME_FEAT_KATO:
		/* the default is what Connect asked for: current */
		*val = caps ? NVME_FEAT_CAP_CHANGEABLE : ctrl->kato_ms;
		return true;
	case NVME_FEAT_ASYNC_EVENT:
		*val = caps ? NVME_FEAT_CAP_CHANGEABLE : cur ? ctrl->aec : 0;
		return true;
	}
	if (disc)
		return false;
	switch (fid) {
	case NVME_FEAT_NUM_QUEUES:
		n = cur && ctrl->nr_io_queues ? ctrl->nr_io_queues :
						TGT_MAX_IO_QUEUES;
		*val = caps ? NVME_FEAT_CAP_CHANGEABLE : NVME_FEAT_NUMQ(n, n);
		return true;
	case NVME_FEAT_VOLATILE_WC:
		if (caps)
			*val = ctrl_has_vwc(ctrl) ? NVME_FEAT_CAP_CHANGEABLE :
						    0;
		else if (cur)
			*val = ctrl->vwc;
		else
			*val = ctrl_has_vwc(ctrl); /* enabled where present */
		return true;
	case NVME_FEAT_ARBITRATION:
	case NVME_FEAT_POWER_MGMT: /* power state 0 */
	case NVME_FEAT_ERR_RECOVERY: /* no time limited error recovery */
	case NVME_FEAT_WRITE_ATOMIC: /* no write atomicity relaxation */
	case NVME_FEAT_HOST_ID:
		*val = 0;
		return true;
	default:
		return false;
	}
}

/*
 * Namespace Write Protection Config (84h), as nvmet answers it: the
 * namespace's state (write protected when it was opened read-only), per
 * namespace. Not changeable here: a namespace's mode is its --ns/config
 * one for as long as the target runs.
 */
static uint16_t get_write_protect(struct admin_req *r, unsigned sel)
{
	const struct tgt_ns *ns = tgt_subsys_ns(r->ctrl->subsys, cmd_nsid(r));

	if (!ns)
		return fail(r, NVME_SC_INVALID_NS | NVME_SC_DNR, LOC_NSID);
	*r->result = sel == NVME_FEAT_SEL_SUPPORTED ? NVME_FEAT_CAP_NS :
		     ns->readonly		    ? NVME_NS_WP_WRITE_PROTECT :
						      NVME_NS_WP_NONE;
	return NVME_SC_SUCCESS;
}

static uint16_t exec_get_features(struct admin_req *r)
{
	struct tgt_ctrl *ctrl = r->ctrl;
	uint8_t fid = cdw10(r) & 0xff;
	unsigned sel = NVME_FEAT_SEL(cdw10(r));
	uint32_t val = 0;

	if (sel > NVME_FEAT_SEL_SUPPORTED)
		return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR,
			    LOC_BIT(LOC_CDW10 + 1, 0));
	if (fid == NVME_FEAT_WRITE_PROTECT && !ctrl->subsys->discovery)
		return get_write_protect(r, sel);
	if (!feat_value(ctrl, fid, sel, &val))
		return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR, LOC_CDW10);
	if (fid == NVME_FEAT_HOST_ID && sel != NVME_FEAT_SEL_SUPPORTED) {
		/* only the 128-bit identifier: Connect sent that one */
		if (!(cdw11(r) & NVME_FEAT_HOST_ID_EXHID))
			return fail(r, NVME_SC_INVALID_FIELD | NVME_SC_DNR,
				    LOC_CDW11);
		if (r->len < sizeof(ctrl->hostid))
			return fail(r, NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR,
				    NO_ERR_LOC);
		put_data(r, ctrl->hostid, sizeof(ctrl->hostid));
	}
	*r->result = val;
	return NVME_SC_SUCCESS;
}

/* ---- The rest -------------------------------------------------------- */

static uint16_t exec_keep_alive(struct admin_req *r)
{
	atomic_store(&r->ctrl->last_ka_ns, mqblk_clock_ns());
	return NVME_SC_SUCCESS;
}

/* The minimum the spec allows, as nvmet: "not aborted" (DW0 bit 0). */
static uint16_t exec_abort(struct admin_req *r)
{
	*r->result = 1;
	return NVME_SC_SUCCESS;
}

static uint16_t dispatch(struct admin_req *r)
{
	bool disc = r->ctrl->subsys->discovery;

	switch (r->sqe->common.opcode) {
	case nvme_admin_identify:
		return exec_identify(r);
	case nvme_admin_get_log_page:
		return exec_get_log_page(r);
	case nvme_admin_set_features:
		return exec_set_features(r);
	case nvme_admin_get_features:
		return exec_get_features(r);
	case nvme_admin_keep_alive:
		return exec_keep_alive(r);
	case nvme_admin_async_event:
		return exec_async_event(r);
	case nvme_admin_abort:
		if (!disc)
			return exec_abort(r);
		break;
	}
	return fail(r, NVME_SC_INVALID_OPCODE | NVME_SC_DNR, LOC_OPCODE);
}

uint16_t tgt_admin_exec(struct tgt_ctrl *ctrl, const union nvme_command *sqe,
			void *buf, uint32_t len, uint32_t *result)
{
	struct admin_req r = {
		.ctrl = ctrl,
		.sqe = sqe,
		.buf = buf,
		.len = buf ? len : 0,
		.result = result,
		.err_loc = NO_ERR_LOC,
	};
	uint16_t status;

	*result = 0;
	/* what the host does not get from us reads as zeroes */
	if (r.len && tgt_admin_data_dir(sqe) == 1)
		memset(buf, 0, r.len);
	if (!(atomic_load(&ctrl->csts) & NVME_CSTS_RDY))
		status =
			fail(&r,
			     (ctrl->subsys->discovery ? NVME_SC_INVALID_OPCODE :
							NVME_SC_CMD_SEQ_ERROR) |
				     NVME_SC_DNR,
			     LOC_OPCODE);
	else
		status = dispatch(&r);
	if (status != NVME_SC_SUCCESS && status != TGT_STATUS_DEFER)
		tgt_ctrl_log_error(ctrl, 0, sqe->common.command_id, status,
				   r.err_loc, 0, le32_to_cpu(sqe->common.nsid));
	return status;
}

int tgt_admin_data_dir(const union nvme_command *sqe)
{
	/* the opcode's (Fabrics: the command type's) bits 1:0 */
	uint8_t op = sqe->common.opcode == nvme_fabrics_command ?
			     sqe->fabrics.fctype :
			     sqe->common.opcode;

	switch (op & 3) {
	case 1:
		return 2; /* host to controller */
	case 2:
		return 1; /* controller to host */
	default:
		return 0; /* none, or bidirectional: nothing we run */
	}
}
