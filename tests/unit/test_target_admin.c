// SPDX-License-Identifier: MIT
/*
 * Unit tests of src/target/admin.c: every admin command a controller (I/O
 * or discovery) answers, checked by bytes at the specification's offsets,
 * with the status codes for bad fields and the error log they leave.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mqblk/mqblk.h"
#include "target/target.h"

#define HOST_A "nqn.2014-08.org.nvmexpress:uuid:aaaa"
#define HOST_B "nqn.2014-08.org.nvmexpress:uuid:bbbb"
#define IO_NQN "nqn.2026-01.io.mqblk:one"
#define IO2_NQN "nqn.2026-01.io.mqblk:two"
#define DNR NVME_SC_DNR

/* ---- Doubles for config.c and tcp.c ------------------------------------ */

struct tgt_ns *tgt_subsys_ns(struct tgt_subsys *s, uint32_t nsid)
{
	unsigned i;

	for (i = 0; i < s->nr_ns; i++)
		if (s->ns[i]->nsid == nsid && s->ns[i]->enabled)
			return s->ns[i];
	return NULL;
}

bool tgt_host_allowed(const struct tgt_subsys *s, const char *hostnqn)
{
	unsigned i;

	if (s->allow_any_host)
		return true;
	for (i = 0; i < s->nr_hosts; i++)
		if (!strcmp(s->hosts[i].nqn, hostnqn))
			return true;
	return false;
}

static struct {
	unsigned calls;
	uint16_t cid;
	uint32_t dw0;
} aer_done;

void tgt_queue_complete_aer(struct tgt_ctrl *ctrl, uint16_t cid, uint32_t dw0)
{
	(void)ctrl;
	aer_done.calls++;
	aer_done.cid = cid;
	aer_done.dw0 = dw0;
}

/* ---- Fixture ------------------------------------------------------------ */

struct fix {
	struct tgt t;
	struct tgt_subsys io, io2;
	struct tgt_ns ns[3];
	struct tgt_ns *ns_list[3]; /* the subsystem's list: &ns[i] */
	struct tgt_host hosts[1];
	struct tgt_port ports[3];
	struct tgt_subsys *p1_subsys[2], *p3_subsys[1];
	struct tgt_ctrl ctrl, other, dctrl;
	uint8_t buf[16384];
};

static void subsys_init(struct tgt_subsys *s, const char *nqn)
{
	snprintf(s->nqn, sizeof(s->nqn), "%s", nqn);
	pthread_mutex_init(&s->lock, NULL);
}

static void ctrl_init(struct tgt_ctrl *c, struct tgt *t, struct tgt_subsys *s,
		      uint16_t cntlid, const char *hostnqn)
{
	c->tgt = t;
	c->subsys = s;
	c->port = &t->ports[0];
	c->cntlid = cntlid;
	snprintf(c->hostnqn, sizeof(c->hostnqn), "%s", hostnqn);
	c->csts = NVME_CSTS_RDY;
	c->kato_ms = 5000;
	c->start_ns = mqblk_clock_ns();
	c->next = s->ctrls;
	s->ctrls = c;
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	unsigned i;

	if (!f)
		return -1;
	subsys_init(&f->io, IO_NQN);
	snprintf(f->io.serial, sizeof(f->io.serial), "SN0001");
	snprintf(f->io.model, sizeof(f->io.model), "mqblk target");
	f->io.allow_any_host = true;
	for (i = 0; i < 3; i++)
		f->ns_list[i] = &f->ns[i];
	f->io.ns = f->ns_list;
	f->io.nr_ns = 3;
	for (i = 0; i < 3; i++) {
		f->ns[i].nsid = i + 1;
		f->ns[i].enabled = true;
		f->ns[i].size = 1ull << 30;
		f->ns[i].lba_shift = 12;
	}
	f->ns[0].has_uuid = f->ns[0].has_nguid = f->ns[0].has_eui64 = true;
	memset(f->ns[0].uuid, 0x11, 16);
	memset(f->ns[0].nguid, 0x22, 16);
	memset(f->ns[0].eui64, 0x33, 8);
	f->ns[0].vwc = true;
	f->ns[1].enabled = false; /* NSID 2: configured, not enabled */
	f->ns[2].size = 1ull << 20;
	f->ns[2].lba_shift = 9;
	f->ns[2].readonly = true;

	subsys_init(&f->io2, IO2_NQN);
	snprintf(f->hosts[0].nqn, sizeof(f->hosts[0].nqn), HOST_B);
	f->io2.hosts = f->hosts;
	f->io2.nr_hosts = 1;

	subsys_init(&f->t.disc, NVME_DISC_SUBSYS_NAME);
	f->t.disc.discovery = true;
	f->t.disc.allow_any_host = true;
	f->t.disc.genctr = 7;

	f->p1_subsys[0] = &f->io;
	f->p1_subsys[1] = &f->io2;
	f->p3_subsys[0] = &f->io;
	f->ports[0] = (struct tgt_port){ .portid = 1,
					 .adrfam = NVMF_ADDR_FAMILY_IP4,
					 .traddr = "10.0.0.1",
					 .trsvcid = "4420",
					 .inline_data = TGT_INLINE_DATA,
					 .max_queue_size = TGT_MAX_QUEUE_DEPTH,
					 .subsys = f->p1_subsys,
					 .nr_subsys = 2 };
	f->ports[1] = (struct tgt_port){ .portid = 2,
					 .adrfam = NVMF_ADDR_FAMILY_IP4,
					 .traddr = "10.0.0.1",
					 .trsvcid = "8009",
					 .inline_data = TGT_INLINE_DATA,
					 .max_queue_size = TGT_MAX_QUEUE_DEPTH,
					 .discovery_only = true };
	f->ports[2] = (struct tgt_port){ .portid = 3,
					 .adrfam = NVMF_ADDR_FAMILY_IP6,
					 .traddr = "fe80::1",
					 .trsvcid = "4421",
					 .inline_data = TGT_INLINE_DATA,
					 .max_queue_size = TGT_MAX_QUEUE_DEPTH,
					 .subsys = f->p3_subsys,
					 .nr_subsys = 1 };
	f->t.ports = f->ports;
	f->t.nr_ports = 3;

	ctrl_init(&f->ctrl, &f->t, &f->io, 5, HOST_A);
	ctrl_init(&f->other, &f->t, &f->io, 2, HOST_B);
	ctrl_init(&f->dctrl, &f->t, &f->t.disc, 9, HOST_A);
	memset(&aer_done, 0, sizeof(aer_done));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	pthread_mutex_destroy(&f->io.lock);
	pthread_mutex_destroy(&f->io2.lock);
	pthread_mutex_destroy(&f->t.disc.lock);
	free(f);
	return 0;
}

/* ---- Commands ------------------------------------------------------------ */

static union nvme_command identify(uint8_t cns, uint32_t nsid, uint8_t csi)
{
	union nvme_command c;

	memset(&c, 0, sizeof(c));
	c.identify.opcode = nvme_admin_identify;
	c.identify.command_id = 0x1234;
	c.identify.nsid = cpu_to_le32(nsid);
	c.identify.cns = cns;
	c.identify.csi = csi;
	return c;
}

static union nvme_command get_log(uint8_t lid, uint32_t nsid, uint32_t bytes,
				  uint64_t lpo, bool rae)
{
	union nvme_command c;
	uint32_t numd = bytes / 4 - 1;

	memset(&c, 0, sizeof(c));
	c.get_log_page.opcode = nvme_admin_get_log_page;
	c.get_log_page.command_id = 0x42;
	c.get_log_page.nsid = cpu_to_le32(nsid);
	c.get_log_page.lid = lid;
	c.get_log_page.lsp = rae ? NVME_LOG_LSP_RAE : 0;
	c.get_log_page.numdl = cpu_to_le16((uint16_t)numd);
	c.get_log_page.numdu = cpu_to_le16((uint16_t)(numd >> 16));
	c.get_log_page.lpo = cpu_to_le64(lpo);
	return c;
}

static union nvme_command feature(uint8_t opcode, uint32_t cdw10,
				  uint32_t cdw11)
{
	union nvme_command c;

	memset(&c, 0, sizeof(c));
	c.features.opcode = opcode;
	c.features.command_id = 0x77;
	c.features.fid = cpu_to_le32(cdw10);
	c.features.dword11 = cpu_to_le32(cdw11);
	return c;
}

static union nvme_command simple(uint8_t opcode, uint16_t cid)
{
	union nvme_command c;

	memset(&c, 0, sizeof(c));
	c.common.opcode = opcode;
	c.common.command_id = cid;
	return c;
}

/* Run with a 0x5a-filled buffer of len bytes (what the host must not see) */
static uint16_t run(struct fix *f, struct tgt_ctrl *c,
		    const union nvme_command *cmd, uint32_t len, uint32_t *res)
{
	uint32_t dummy;

	memset(f->buf, 0x5a, sizeof(f->buf));
	return tgt_admin_exec(c, cmd, f->buf, len, res ? res : &dummy);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* ---- Identify ------------------------------------------------------------ */

static void test_identify_ctrl(void **state)
{
	struct fix *f = *state;
	union nvme_command c = identify(NVME_ID_CNS_CTRL, 0, 0);
	const uint8_t *b = f->buf;

	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le16(b + 0), 0); /* VID */
	assert_memory_equal(b + 4, "SN0001              ", 20);
	assert_memory_equal(b + 24, "mqblk target", 12);
	assert_int_equal(b[63], ' ');
	assert_memory_equal(b + 64, TGT_VERSION "     ", 8);
	assert_int_equal(b[72], 6); /* RAB */
	/* CMIC: multi port, multi controller, ANA reporting */
	assert_int_equal(b[76], 0xb);
	assert_int_equal(b[77], TGT_MDTS);
	assert_int_equal(nvme_get_le16(b + 78), 5); /* CNTLID */
	assert_int_equal(nvme_get_le32(b + 80), 0x10300);
	/* OAES: namespace attribute and ANA change notices */
	assert_int_equal(nvme_get_le32(b + 92), 1u << 8 | 1u << 11);
	assert_int_equal(nvme_get_le32(b + 96), 1); /* CTRATT 128-bit id */
	assert_int_equal(b[111], 1); /* CNTRLTYPE I/O */
	assert_int_equal(nvme_get_le16(b + 256), 0); /* OACS */
	assert_int_equal(b[258], 3); /* ACL */
	assert_int_equal(b[259], TGT_AERL - 1);
	assert_int_equal(b[260], 3); /* FRMW */
	assert_int_equal(b[261], 6); /* LPA */
	assert_int_equal(b[262], TGT_ERROR_LOG_ENTRIES - 1);
	assert_int_equal(nvme_get_le16(b + 320), 10); /* KAS */
	assert_int_equal(b[512], 0x66);
	assert_int_equal(b[513], 0x44);
	assert_int_equal(nvme_get_le16(b + 514), TGT_MAX_QUEUE_DEPTH);
	assert_int_equal(nvme_get_le32(b + 516), TGT_MAX_NS);
	assert_int_equal(nvme_get_le16(b + 520), 0x0c); /* DSM, zeroes */
	assert_int_equal(b[525], 1); /* VWC present: NSID 1 has one */
	assert_int_equal(nvme_get_le32(b + 536), 0x100001); /* SGLS */
	assert_int_equal(nvme_get_le32(b + 540), TGT_MAX_NS); /* MNAN */
	assert_string_equal((const char *)b + 768, IO_NQN);
	assert_true(all_zero(b + 768 + strlen(IO_NQN), 256 - strlen(IO_NQN)));
	assert_int_equal(nvme_get_le32(b + 1792), (64 + TGT_INLINE_DATA) / 16);
	assert_int_equal(nvme_get_le32(b + 1796), 1);
	assert_int_equal(nvme_get_le16(b + 1800), 0); /* ICDOFF */
	assert_int_equal(b[1802], 0); /* FCATT */
	assert_int_equal(b[1803], 1); /* MSDBD */
	assert_int_equal(nvme_get_le16(b + 2048), 2500); /* PSD0 MP */
	assert_true(all_zero(b + 3072, 1024));
	/* beyond the 4096 bytes: zeroes, not what the buffer held */
	assert_int_equal(run(f, &f->ctrl, &c, 8192, NULL), NVME_SC_SUCCESS);
	assert_true(all_zero(f->buf + 4096, 4096));
	/* a short transfer gets the start */
	assert_int_equal(run(f, &f->ctrl, &c, 100, NULL), NVME_SC_SUCCESS);
	assert_int_equal(f->buf[77], TGT_MDTS);
	assert_int_equal(f->buf[100], 0x5a);
	/* IOCCSZ and MAXCMD follow the controller's port (nvmet's
	 * inline_data_size and max_queue_size) */
	f->ports[0].inline_data = 0;
	f->ports[0].max_queue_size = 128;
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le32(f->buf + 1792), 4);
	assert_int_equal(nvme_get_le16(f->buf + 514), 128);
	f->ports[0].inline_data = TGT_MAX_INLINE_DATA;
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le32(f->buf + 1792),
			 (64 + TGT_MAX_INLINE_DATA) / 16);
}

static void test_identify_ctrl_no_vwc(void **state)
{
	struct fix *f = *state;
	union nvme_command c = identify(NVME_ID_CNS_CTRL, 0, 0);

	f->ns[0].vwc = false;
	f->ns[1].vwc = true; /* not enabled: does not count */
	f->io.model[0] = '\0';
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(f->buf[525], 0);
	assert_memory_equal(f->buf + 24, "mqblk ", 6);
}

static void test_identify_disc_ctrl(void **state)
{
	struct fix *f = *state;
	union nvme_command c = identify(NVME_ID_CNS_CTRL, 0, 0);
	const uint8_t *b = f->buf;

	assert_int_equal(run(f, &f->dctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(b[111], 2); /* CNTRLTYPE discovery */
	assert_int_equal(nvme_get_le16(b + 78), 9);
	assert_int_equal(b[77], 0); /* MDTS */
	assert_int_equal(b[261], 4); /* LPA: extended data only */
	assert_int_equal(nvme_get_le32(b + 92), 1u << 31);
	assert_int_not_equal(nvme_get_le16(b + 514), 0); /* MAXCMD */
	assert_int_equal(nvme_get_le32(b + 536) & 3, 1);
	assert_int_equal(nvme_get_le32(b + 516), 0); /* NN */
	assert_string_equal((const char *)b + 768, NVME_DISC_SUBSYS_NAME);

	c = identify(NVME_ID_CNS_NS, 1, 0);
	assert_int_equal(run(f, &f->dctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
}

static void test_identify_ns(void **state)
{
	struct fix *f = *state;
	union nvme_command c = identify(NVME_ID_CNS_NS, 1, 0);
	const uint8_t *b = f->buf;
	uint8_t x[16];

	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le64(b + 0), (1ull << 30) >> 12); /* NSZE */
	assert_int_equal(nvme_get_le64(b + 8), (1ull << 30) >> 12); /* NCAP */
	assert_int_equal(nvme_get_le64(b + 16), (1ull << 30) >> 12); /* NUSE */
	assert_int_equal(b[24], 0); /* NSFEAT */
	assert_int_equal(b[25], 0); /* NLBAF */
	assert_int_equal(b[26], 0); /* FLBAS */
	assert_int_equal(b[30], 1); /* NMIC shared */
	assert_int_equal(b[33], 0); /* DLFEAT */
	assert_int_equal(b[99], 0); /* NSATTR */
	memset(x, 0x22, 16);
	assert_memory_equal(b + 104, x, 16); /* NGUID */
	memset(x, 0x33, 8);
	assert_memory_equal(b + 120, x, 8); /* EUI64 */
	assert_int_equal(nvme_get_le16(b + 128), 0); /* LBAF0 MS */
	assert_int_equal(b[130], 12); /* LBAF0 LBADS */
	assert_true(all_zero(b + 132, 4096 - 132));

	c = identify(NVME_ID_CNS_NS, 3, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le64(b), 2048);
	assert_int_equal(b[99], 1); /* read only */
	assert_int_equal(b[130], 9);
	assert_true(all_zero(b + 104, 24)); /* no NGUID, no EUI64 */

	/* valid NSIDs without an active namespace: zeroes */
	c = identify(NVME_ID_CNS_NS, 2, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_true(all_zero(b, 4096));
	c = identify(NVME_ID_CNS_NS, TGT_MAX_NS, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_true(all_zero(b, 4096));

	/* invalid NSIDs */
	c = identify(NVME_ID_CNS_NS, 0, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_NS | DNR);
	c = identify(NVME_ID_CNS_NS, NVME_NSID_ALL, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_NS | DNR);
	c = identify(NVME_ID_CNS_NS, TGT_MAX_NS + 1, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_NS | DNR);
}

static void test_identify_active_list(void **state)
{
	struct fix *f = *state;
	union nvme_command c = identify(NVME_ID_CNS_NS_ACTIVE_LIST, 0, 0);
	const uint8_t *b = f->buf;

	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le32(b), 1);
	assert_int_equal(nvme_get_le32(b + 4), 3); /* 2 is not enabled */
	assert_true(all_zero(b + 8, 4096 - 8));

	c = identify(NVME_ID_CNS_NS_ACTIVE_LIST, 1, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le32(b), 3);
	assert_true(all_zero(b + 4, 4096 - 4));

	c = identify(NVME_ID_CNS_NS_ACTIVE_LIST, 3, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_true(all_zero(b, 4096));

	c = identify(NVME_ID_CNS_NS_ACTIVE_LIST, 0xfffffffe, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_NS | DNR);
}

static void test_identify_desc_list(void **state)
{
	struct fix *f = *state;
	union nvme_command c = identify(NVME_ID_CNS_NS_DESC_LIST, 1, 0);
	static const uint8_t want_type[] = { NVME_NIDT_EUI64, NVME_NIDT_NGUID,
					     NVME_NIDT_UUID, NVME_NIDT_CSI };
	static const uint8_t want_byte[] = { 0x33, 0x22, 0x11, NVME_CSI_NVM };
	const uint8_t *id;
	uint8_t nidt, nidl;
	size_t off = 0;
	unsigned n = 0;

	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	while (nvme_ns_desc_next(f->buf, 4096, &off, &nidt, &id, &nidl) == 1) {
		assert_true(n < 4);
		assert_int_equal(nidt, want_type[n]);
		assert_int_equal(id[0], want_byte[n]);
		n++;
	}
	assert_int_equal(n, 4);
	assert_int_equal(off, 4 + 8 + 4 + 16 + 4 + 16 + 4 + 1);
	assert_true(all_zero(f->buf + off, 4096 - off));

	/* no identifiers configured: the CSI alone */
	c = identify(NVME_ID_CNS_NS_DESC_LIST, 3, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(f->buf[0], NVME_NIDT_CSI);
	assert_int_equal(f->buf[1], 1);
	assert_int_equal(f->buf[4], NVME_CSI_NVM);
	assert_true(all_zero(f->buf + 5, 4096 - 5));

	c = identify(NVME_ID_CNS_NS_DESC_LIST, 2, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_NS | DNR);
}

static void test_identify_cs(void **state)
{
	struct fix *f = *state;
	union nvme_command c = identify(NVME_ID_CNS_CS_NS, 1, NVME_CSI_NVM);

	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_true(all_zero(f->buf, 4096));
	c = identify(NVME_ID_CNS_CS_NS, 1, NVME_CSI_ZNS);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
	c = identify(NVME_ID_CNS_CS_NS, 0, NVME_CSI_NVM);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_NS | DNR);

	c = identify(NVME_ID_CNS_CS_CTRL, 0, NVME_CSI_NVM);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_true(all_zero(f->buf, 4096));
	c = identify(NVME_ID_CNS_CS_CTRL, 0, NVME_CSI_ZNS);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_FIELD | DNR);

	/* CNS 08h: shared, ready; read only shows */
	c = identify(NVME_ID_CNS_NS_CS_INDEP, 3, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(f->buf[1], 1); /* NMIC */
	assert_int_equal(f->buf[8], 1); /* NSATTR */
	assert_int_equal(f->buf[14], 1); /* NSTAT ready */
	c = identify(NVME_ID_CNS_NS_CS_INDEP, 2, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_true(all_zero(f->buf, 4096));

	c = identify(0x1f, 0, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
}

static void test_identify_ctrl_list(void **state)
{
	struct fix *f = *state;
	union nvme_command c = identify(NVME_ID_CNS_CTRL_LIST, 0, 0);

	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le16(f->buf), 2);
	assert_int_equal(nvme_get_le16(f->buf + 2), 2);
	assert_int_equal(nvme_get_le16(f->buf + 4), 5);
	assert_true(all_zero(f->buf + 6, 4096 - 6));

	c.identify.cntid = cpu_to_le16(3);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le16(f->buf), 1);
	assert_int_equal(nvme_get_le16(f->buf + 2), 5);
}

/* ---- Log pages ----------------------------------------------------------- */

static void test_log_error(void **state)
{
	struct fix *f = *state;
	union nvme_command bad = identify(0x1f, 0, 0);
	union nvme_command c;
	const uint8_t *b = f->buf;
	unsigned i;

	/* two failures: the newest first */
	run(f, &f->ctrl, &bad, 4096, NULL);
	bad.identify.command_id = 0x99;
	c = get_log(NVME_LOG_SMART, 0, 512, 2, false); /* LPO not aligned */
	c.get_log_page.command_id = 0x99;
	assert_int_equal(run(f, &f->ctrl, &c, 512, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
	assert_int_equal(f->ctrl.err_count, 2);

	c = get_log(NVME_LOG_ERROR, 0, 4096, 0, false);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le64(b + 0), 2); /* error count */
	assert_int_equal(nvme_get_le16(b + 8), 0); /* SQID */
	assert_int_equal(*(const uint16_t *)(b + 10), 0x99);
	assert_int_equal(nvme_get_le16(b + 12), (NVME_SC_INVALID_FIELD | DNR)
							<< 1);
	assert_int_equal(nvme_get_le16(b + 14), 48); /* LPO's byte */
	assert_int_equal(b[29], NVMF_TRTYPE_TCP);
	assert_int_equal(nvme_get_le64(b + 64), 1);
	assert_int_equal(*(const uint16_t *)(b + 64 + 10), 0x1234);
	assert_int_equal(nvme_get_le16(b + 64 + 14), 40); /* CNS's byte */
	assert_true(all_zero(b + 128, 4096 - 128));

	/* from an offset: the second entry first */
	c = get_log(NVME_LOG_ERROR, 0, 64, 64, false);
	assert_int_equal(run(f, &f->ctrl, &c, 64, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le64(b), 1);

	/* the ring keeps the newest TGT_ERROR_LOG_ENTRIES */
	for (i = 0; i < TGT_ERROR_LOG_ENTRIES + 5; i++)
		tgt_ctrl_log_error(&f->ctrl, 1, (uint16_t)i, NVME_SC_LBA_RANGE,
				   0xffff, i, 1);
	c = get_log(NVME_LOG_ERROR, 0, 4096, 0, false);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le64(b), TGT_ERROR_LOG_ENTRIES + 7);
	assert_int_equal(nvme_get_le16(b + 8), 1);
	assert_int_equal(nvme_get_le64(b + 16), TGT_ERROR_LOG_ENTRIES + 4);
	assert_int_equal(nvme_get_le32(b + 24), 1);
	assert_int_equal(nvme_get_le64(b + 4032), 8);

	/* past the end of the log */
	c = get_log(NVME_LOG_ERROR, 0, 4, 4096, false);
	assert_int_equal(run(f, &f->ctrl, &c, 4, NULL), NVME_SC_SUCCESS);
	assert_true(all_zero(b, 4));
	c = get_log(NVME_LOG_ERROR, 0, 4, 4100, false);
	assert_int_equal(run(f, &f->ctrl, &c, 4, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
}

static void test_log_smart(void **state)
{
	struct fix *f = *state;
	union nvme_command c =
		get_log(NVME_LOG_SMART, NVME_NSID_ALL, 512, 0, false);
	const uint8_t *b = f->buf;
	const uint64_t hour = 3600ull * 1000000000ull;
	uint64_t now = mqblk_clock_ns(), ago, hours;

	/* started two hours ago, or (the clock is CLOCK_MONOTONIC's) as
	 * long ago as this machine has been up, if that is less */
	ago = now > 2 * hour ? 2 * hour : now - 1;
	f->ctrl.smart.read_bytes = 512 * 3000 + 1;
	f->ctrl.smart.write_bytes = 512 * 1500;
	f->ctrl.smart.read_cmds = 11;
	f->ctrl.smart.write_cmds = 22;
	f->ctrl.start_ns = now - ago;
	tgt_ctrl_log_error(&f->ctrl, 0, 1, NVME_SC_INTERNAL, 0xffff, 0, 0);

	assert_int_equal(run(f, &f->ctrl, &c, 512, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le64(b + 32), 3); /* data units read */
	assert_int_equal(nvme_get_le64(b + 40), 0);
	assert_int_equal(nvme_get_le64(b + 48), 2); /* written, rounded up */
	assert_int_equal(nvme_get_le64(b + 64), 11);
	assert_int_equal(nvme_get_le64(b + 80), 22);
	hours = nvme_get_le64(b + 128); /* power on hours, rounded down */
	assert_true(hours >= ago / hour);
	assert_true(hours <= (mqblk_clock_ns() - f->ctrl.start_ns) / hour);
	assert_int_equal(nvme_get_le64(b + 176), 1); /* error entries */

	c = get_log(NVME_LOG_SMART, 0, 512, 0, false);
	assert_int_equal(run(f, &f->ctrl, &c, 512, NULL), NVME_SC_SUCCESS);
	c = get_log(NVME_LOG_SMART, 1, 512, 0, false);
	assert_int_equal(run(f, &f->ctrl, &c, 512, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
}

static void test_log_fw_slot(void **state)
{
	struct fix *f = *state;
	union nvme_command c =
		get_log(NVME_LOG_FW_SLOT, NVME_NSID_ALL, 512, 0, false);

	assert_int_equal(run(f, &f->ctrl, &c, 512, NULL), NVME_SC_SUCCESS);
	assert_int_equal(f->buf[0], 1);
	assert_memory_equal(f->buf + 8, TGT_VERSION "     ", 8);
	assert_true(all_zero(f->buf + 16, 512 - 16));
}

static void test_log_changed_ns(void **state)
{
	struct fix *f = *state;
	union nvme_command c;
	uint32_t res;

	f->ctrl.aec = NVME_CTRL_OAES_NS_ATTR;
	f->ctrl.changed_ns[0] = 3;
	f->ctrl.changed_ns[1] = 1;
	f->ctrl.nr_changed_ns = 2;
	tgt_ctrl_aen(&f->ctrl, NVME_AER_DW0(NVME_AER_TYPE_NOTICE,
					    NVME_AER_NOTICE_NS_CHANGED,
					    NVME_LOG_CHANGED_NS));
	assert_int_equal(f->ctrl.aen_masked, NVME_CTRL_OAES_NS_ATTR);

	/* RAE: the list and the mask stay */
	c = get_log(NVME_LOG_CHANGED_NS, NVME_NSID_ALL, 4096, 0, true);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, &res), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le32(f->buf), 3);
	assert_int_equal(nvme_get_le32(f->buf + 4), 1);
	assert_true(all_zero(f->buf + 8, 4096 - 8));
	assert_int_equal(f->ctrl.nr_changed_ns, 2);
	assert_int_equal(f->ctrl.aen_masked, NVME_CTRL_OAES_NS_ATTR);

	c = get_log(NVME_LOG_CHANGED_NS, NVME_NSID_ALL, 4096, 0, false);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, &res), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le32(f->buf), 3);
	assert_int_equal(f->ctrl.nr_changed_ns, 0);
	assert_int_equal(f->ctrl.aen_masked, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, &res), NVME_SC_SUCCESS);
	assert_true(all_zero(f->buf, 4096));

	/* more than fit */
	f->ctrl.nr_changed_ns = NVME_MAX_CHANGED_NAMESPACES + 1;
	assert_int_equal(run(f, &f->ctrl, &c, 4096, &res), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le32(f->buf), NVME_NSID_ALL);
	assert_true(all_zero(f->buf + 4, 4096 - 4));
}

/* The list as nvmet keeps it: each NSID once, the 1025th overflows it
 * (FFFFFFFFh, nothing more added) until a read clears it; the event only
 * when enabled, once until the log is read. */
static void test_ns_changed_list(void **state)
{
	struct fix *f = *state;
	union nvme_command c;
	uint32_t res, i;

	tgt_ctrl_ns_changed(&f->ctrl, 7); /* events off: listed, no event */
	assert_int_equal(f->ctrl.nr_changed_ns, 1);
	assert_int_equal(f->ctrl.aen_masked, 0);
	assert_int_equal(f->ctrl.nr_aen_pending, 0);
	f->ctrl.aec = NVME_CTRL_OAES_NS_ATTR;
	tgt_ctrl_ns_changed(&f->ctrl, 7);
	tgt_ctrl_ns_changed(&f->ctrl, 9);
	assert_int_equal(f->ctrl.nr_changed_ns, 2);
	assert_int_equal(f->ctrl.changed_ns[0], 7);
	assert_int_equal(f->ctrl.changed_ns[1], 9);
	assert_int_equal(f->ctrl.nr_aen_pending, 1); /* masked after one */
	assert_int_equal(f->ctrl.aen_pending[0],
			 NVME_AER_DW0(NVME_AER_TYPE_NOTICE,
				      NVME_AER_NOTICE_NS_CHANGED,
				      NVME_LOG_CHANGED_NS));
	for (i = 1; i <= NVME_MAX_CHANGED_NAMESPACES + 5; i++)
		tgt_ctrl_ns_changed(&f->ctrl, i);
	assert_int_equal(f->ctrl.nr_changed_ns,
			 NVME_MAX_CHANGED_NAMESPACES + 1);
	c = get_log(NVME_LOG_CHANGED_NS, NVME_NSID_ALL, 4096, 0, false);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, &res), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le32(f->buf), NVME_NSID_ALL);
	assert_true(all_zero(f->buf + 4, 4096 - 4));
	assert_int_equal(f->ctrl.nr_changed_ns, 0);
	assert_int_equal(f->ctrl.aen_masked, 0);
	tgt_ctrl_ns_changed(&f->ctrl, 3);
	assert_int_equal(f->ctrl.nr_changed_ns, 1);
	assert_int_equal(f->ctrl.nr_aen_pending, 2); /* the next event */
}

static void test_log_cmd_effects(void **state)
{
	struct fix *f = *state;
	union nvme_command c = get_log(NVME_LOG_CMD_EFFECTS, 0, 4096, 0, false);
	const uint8_t *b = f->buf;

	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le32(b + 4 * nvme_admin_identify), 1);
	assert_int_equal(nvme_get_le32(b + 4 * nvme_admin_get_log_page), 1);
	assert_int_equal(nvme_get_le32(b + 4 * nvme_admin_keep_alive), 1);
	assert_int_equal(nvme_get_le32(b + 4 * nvme_admin_async_event), 1);
	assert_int_equal(nvme_get_le32(b + 4 * nvme_admin_ns_mgmt), 0);
	assert_int_equal(nvme_get_le32(b + 4 * nvme_admin_create_sq), 0);
	assert_int_equal(nvme_get_le32(b + 1024 + 4 * nvme_cmd_read), 1);
	assert_int_equal(nvme_get_le32(b + 1024 + 4 * nvme_cmd_write), 3);
	assert_int_equal(nvme_get_le32(b + 1024 + 4 * nvme_cmd_write_zeroes),
			 3);
	assert_int_equal(nvme_get_le32(b + 1024 + 4 * nvme_cmd_dsm), 3);
	assert_int_equal(nvme_get_le32(b + 1024 + 4 * nvme_cmd_flush), 1);
	assert_int_equal(nvme_get_le32(b + 1024 + 4 * nvme_cmd_compare), 0);

	c.get_log_page.csi = NVME_CSI_ZNS;
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_LOG_PAGE | DNR);
}

static void test_log_unknown(void **state)
{
	struct fix *f = *state;
	union nvme_command c = get_log(0x06 /* self test */, 0, 4096, 0, false);

	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
	/* a discovery controller has no ANA log */
	c = get_log(NVME_LOG_ANA, 0, 4096, 0, false);
	assert_int_equal(run(f, &f->dctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
	c = get_log(NVME_LOG_DISC, 0, 4096, 0, false);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
	c = get_log(NVME_LOG_SMART, 0, 512, 0, false);
	assert_int_equal(run(f, &f->dctrl, &c, 512, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
}

static void check_entry(const uint8_t *e, const struct tgt_port *p,
			const char *nqn)
{
	char want[256];

	assert_int_equal(e[0], NVMF_TRTYPE_TCP);
	assert_int_equal(e[1], p->adrfam);
	assert_int_equal(e[2], NVME_NQN_NVME);
	assert_int_equal(e[3], NVMF_TREQ_DISABLE_SQFLOW);
	assert_int_equal(nvme_get_le16(e + 4), p->portid);
	assert_int_equal(nvme_get_le16(e + 6), 0xffff);
	assert_int_equal(nvme_get_le16(e + 8), 32);
	memset(want, ' ', sizeof(want));
	memcpy(want, p->trsvcid, strlen(p->trsvcid));
	assert_memory_equal(e + 32, want, 32);
	assert_string_equal((const char *)e + 256, nqn);
	assert_true(all_zero(e + 256 + strlen(nqn), 256 - strlen(nqn)));
	memset(want, ' ', sizeof(want));
	memcpy(want, p->traddr, strlen(p->traddr));
	assert_memory_equal(e + 512, want, 256);
	assert_int_equal(e[768], NVMF_TCP_SECTYPE_NONE);
}

static void test_log_discovery(void **state)
{
	struct fix *f = *state;
	union nvme_command c = get_log(NVME_LOG_DISC, 0, 4096, 0, false);
	const uint8_t *b = f->buf;

	/* host A: not io2 (host B only) */
	assert_int_equal(run(f, &f->dctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le64(b), 7); /* genctr */
	assert_int_equal(nvme_get_le64(b + 8), 2); /* numrec */
	assert_int_equal(nvme_get_le16(b + 16), 0); /* recfmt */
	check_entry(b + 1024, &f->ports[0], IO_NQN);
	check_entry(b + 2048, &f->ports[2], IO_NQN);
	assert_true(all_zero(b + 3072, 1024));

	/* host B sees both on port 1 */
	snprintf(f->dctrl.hostnqn, sizeof(f->dctrl.hostnqn), HOST_B);
	c = get_log(NVME_LOG_DISC, 0, 8192, 0, false);
	assert_int_equal(run(f, &f->dctrl, &c, 8192, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le64(b + 8), 3);
	check_entry(b + 1024, &f->ports[0], IO_NQN);
	check_entry(b + 2048, &f->ports[0], IO2_NQN);
	check_entry(b + 3072, &f->ports[2], IO_NQN);
	assert_true(all_zero(b + 4096, 4096));

	/* the header alone, then the entries from LPO 1024 (nvme-cli) */
	c = get_log(NVME_LOG_DISC, 0, 16, 0, false);
	assert_int_equal(run(f, &f->dctrl, &c, 16, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le64(b + 8), 3);
	assert_int_equal(b[16], 0x5a);
	c = get_log(NVME_LOG_DISC, 0, 1024, 2048, false);
	assert_int_equal(run(f, &f->dctrl, &c, 1024, NULL), NVME_SC_SUCCESS);
	check_entry(b, &f->ports[0], IO2_NQN);
	c = get_log(NVME_LOG_DISC, 0, 1024, 1022, false);
	assert_int_equal(run(f, &f->dctrl, &c, 1024, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
	c = get_log(NVME_LOG_DISC, 0, 1024, 5 * 1024, false);
	assert_int_equal(run(f, &f->dctrl, &c, 1024, NULL),
			 NVME_SC_INVALID_FIELD | DNR);

	/* reading it unmasks the discovery change event, unless RAE */
	f->dctrl.aen_masked = NVME_CTRL_OAES_DISC_CHANGE;
	c = get_log(NVME_LOG_DISC, 0, 1024, 0, true);
	assert_int_equal(run(f, &f->dctrl, &c, 1024, NULL), NVME_SC_SUCCESS);
	assert_int_equal(f->dctrl.aen_masked, NVME_CTRL_OAES_DISC_CHANGE);
	c = get_log(NVME_LOG_DISC, 0, 1024, 0, false);
	assert_int_equal(run(f, &f->dctrl, &c, 1024, NULL), NVME_SC_SUCCESS);
	assert_int_equal(f->dctrl.aen_masked, 0);

	/* no subsystem for an unknown host */
	snprintf(f->dctrl.hostnqn, sizeof(f->dctrl.hostnqn), "nqn.x");
	f->io.allow_any_host = false;
	assert_int_equal(run(f, &f->dctrl, &c, 1024, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le64(b + 8), 0);
}

/* A controller on an RDMA port: keyed SGLs in Identify; the port's
 * discovery entry with trtype rdma and the RDMA TSAS (nvmet-rdma's). */
static void test_rdma_port(void **state)
{
	struct fix *f = *state;
	union nvme_command c = identify(NVME_ID_CNS_CTRL, 0, 0);
	const uint8_t *b = f->buf;

	f->ports[0].trtype = NVMF_TRTYPE_RDMA;
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le32(b + 536), 0x100005); /* SGLS, keyed */
	assert_int_equal(b[77], TGT_MDTS);
	c = get_log(NVME_LOG_DISC, 0, 4096, 0, false);
	assert_int_equal(run(f, &f->dctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(b[1024], NVMF_TRTYPE_RDMA);
	assert_int_equal(b[1024 + 3], NVMF_TREQ_NOT_SPECIFIED);
	assert_int_equal(b[1024 + 768], NVMF_RDMA_QPTYPE_CONNECTED);
	assert_int_equal(b[1024 + 769], NVMF_RDMA_PRTYPE_NOT_SPECIFIED);
	assert_int_equal(b[1024 + 770], NVMF_RDMA_CMS_RDMA_CM);
	/* the TCP port's entry after it is still TCP's */
	check_entry(b + 2048, &f->ports[2], IO_NQN);
	f->ports[0].trtype = NVMF_TRTYPE_TCP;
}

/* ---- Features ------------------------------------------------------------ */

static void test_features_num_queues(void **state)
{
	struct fix *f = *state;
	union nvme_command c;
	uint32_t res;

	c = feature(nvme_admin_set_features, NVME_FEAT_NUM_QUEUES, 3 | 7 << 16);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, 3 | 3 << 16);
	assert_int_equal(f->ctrl.nr_io_queues, 4);
	c = feature(nvme_admin_get_features, NVME_FEAT_NUM_QUEUES, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, 3 | 3 << 16);
	c = feature(nvme_admin_get_features, NVME_FEAT_NUM_QUEUES | 1 << 8, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, (TGT_MAX_IO_QUEUES - 1) * 0x10001u);

	c = feature(nvme_admin_set_features, NVME_FEAT_NUM_QUEUES, 0xfffe0fff);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, (TGT_MAX_IO_QUEUES - 1) * 0x10001u);
	c = feature(nvme_admin_set_features, NVME_FEAT_NUM_QUEUES, 0xffff);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res),
			 NVME_SC_INVALID_FIELD | DNR);

	f->ctrl.ioq[1] = (struct tgt_queue *)f; /* any non-NULL */
	c = feature(nvme_admin_set_features, NVME_FEAT_NUM_QUEUES, 1);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res),
			 NVME_SC_CMD_SEQ_ERROR | DNR);
	f->ctrl.ioq[1] = NULL;
}

static void test_features_kato_aec(void **state)
{
	struct fix *f = *state;
	union nvme_command c;
	uint32_t res;
	uint64_t before = mqblk_clock_ns();

	c = feature(nvme_admin_set_features, NVME_FEAT_KATO, 30000);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(f->ctrl.kato_ms, 30000);
	assert_true(f->ctrl.last_ka_ns >= before);
	c = feature(nvme_admin_get_features, NVME_FEAT_KATO, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, 30000);
	c = feature(nvme_admin_get_features, NVME_FEAT_KATO | 3 << 8, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, NVME_FEAT_CAP_CHANGEABLE);

	c = feature(nvme_admin_set_features, NVME_FEAT_ASYNC_EVENT, 0x100);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(f->ctrl.aec, 0x100);
	c = feature(nvme_admin_get_features, NVME_FEAT_ASYNC_EVENT, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, 0x100);
	c = feature(nvme_admin_set_features, NVME_FEAT_ASYNC_EVENT, 1u << 31);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res),
			 NVME_SC_INVALID_FIELD | DNR);
	assert_int_equal(f->ctrl.aec, 0x100);

	/* a discovery controller: KATO and discovery change notices */
	c = feature(nvme_admin_set_features, NVME_FEAT_ASYNC_EVENT, 1u << 31);
	assert_int_equal(run(f, &f->dctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(f->dctrl.aec, 1u << 31);
	c = feature(nvme_admin_set_features, NVME_FEAT_ASYNC_EVENT, 0x100);
	assert_int_equal(run(f, &f->dctrl, &c, 0, &res),
			 NVME_SC_INVALID_FIELD | DNR);
	c = feature(nvme_admin_set_features, NVME_FEAT_KATO, 0);
	assert_int_equal(run(f, &f->dctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(f->dctrl.kato_ms, 0);
	c = feature(nvme_admin_get_features, NVME_FEAT_NUM_QUEUES, 0);
	assert_int_equal(run(f, &f->dctrl, &c, 0, &res),
			 NVME_SC_INVALID_FIELD | DNR);
	c = feature(nvme_admin_set_features, NVME_FEAT_NUM_QUEUES, 0);
	assert_int_equal(run(f, &f->dctrl, &c, 0, &res),
			 NVME_SC_INVALID_FIELD | DNR);
}

static void test_features_vwc_hostid(void **state)
{
	struct fix *f = *state;
	union nvme_command c;
	uint32_t res;

	f->ctrl.vwc = true;
	c = feature(nvme_admin_set_features, NVME_FEAT_VOLATILE_WC, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_false(f->ctrl.vwc);
	c = feature(nvme_admin_get_features, NVME_FEAT_VOLATILE_WC, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, 0);
	c = feature(nvme_admin_get_features, NVME_FEAT_VOLATILE_WC | 1 << 8, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, 1);
	f->ns[0].vwc = false;
	c = feature(nvme_admin_set_features, NVME_FEAT_VOLATILE_WC, 1);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res),
			 NVME_SC_INVALID_FIELD | DNR);

	memset(f->ctrl.hostid, 0xab, 16);
	c = feature(nvme_admin_get_features, NVME_FEAT_HOST_ID, 1);
	assert_int_equal(run(f, &f->ctrl, &c, 16, &res), NVME_SC_SUCCESS);
	assert_memory_equal(f->buf, f->ctrl.hostid, 16);
	c = feature(nvme_admin_get_features, NVME_FEAT_HOST_ID, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 16, &res),
			 NVME_SC_INVALID_FIELD | DNR);
	c = feature(nvme_admin_get_features, NVME_FEAT_HOST_ID, 1);
	assert_int_equal(run(f, &f->ctrl, &c, 8, &res),
			 NVME_SC_SGL_INVALID_DATA | DNR);
	c = feature(nvme_admin_set_features, NVME_FEAT_HOST_ID, 1);
	assert_int_equal(run(f, &f->ctrl, &c, 16, &res),
			 NVME_SC_CMD_SEQ_ERROR | DNR);
}

static void test_features_other(void **state)
{
	struct fix *f = *state;
	union nvme_command c;
	uint32_t res;

	c = feature(nvme_admin_get_features, NVME_FEAT_ARBITRATION, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, 0);
	c = feature(nvme_admin_get_features, NVME_FEAT_POWER_MGMT, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	c = feature(nvme_admin_set_features, NVME_FEAT_POWER_MGMT, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	c = feature(nvme_admin_set_features, NVME_FEAT_POWER_MGMT, 1);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res),
			 NVME_SC_INVALID_FIELD | DNR);
	c = feature(nvme_admin_get_features, NVME_FEAT_WRITE_ATOMIC, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	c = feature(nvme_admin_get_features, NVME_FEAT_ERR_RECOVERY, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);

	/* saving, unknown selects and features */
	c = feature(nvme_admin_set_features, NVME_FEAT_KATO | 1u << 31, 1000);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res),
			 NVME_SC_FEATURE_NOT_SAVEABLE | DNR);
	assert_int_equal(f->ctrl.kato_ms, 5000);
	c = feature(nvme_admin_get_features, NVME_FEAT_KATO | 4 << 8, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res),
			 NVME_SC_INVALID_FIELD | DNR);
	c = feature(nvme_admin_get_features, NVME_FEAT_KATO | 2 << 8, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	c = feature(nvme_admin_get_features, 0x7e, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res),
			 NVME_SC_INVALID_FIELD | DNR);

	/* namespace write protection (nvme-cli get-feature -f 0x84 -n N,
	 * which nvmet answers): per namespace, read-only ones protected */
	c = feature(nvme_admin_get_features, NVME_FEAT_WRITE_PROTECT, 0);
	c.common.nsid = cpu_to_le32(1);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, NVME_NS_WP_NONE);
	c.common.nsid = cpu_to_le32(3);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, NVME_NS_WP_WRITE_PROTECT);
	c = feature(nvme_admin_get_features, NVME_FEAT_WRITE_PROTECT | 3 << 8,
		    0);
	c.common.nsid = cpu_to_le32(3);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, NVME_FEAT_CAP_NS);
	/* not an active namespace (2 is disabled), none, broadcast */
	c = feature(nvme_admin_get_features, NVME_FEAT_WRITE_PROTECT, 0);
	c.common.nsid = cpu_to_le32(2);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res),
			 NVME_SC_INVALID_NS | DNR);
	c.common.nsid = 0;
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res),
			 NVME_SC_INVALID_NS | DNR);
	c.common.nsid = cpu_to_le32(NVME_NSID_ALL);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res),
			 NVME_SC_INVALID_NS | DNR);
	/* nor changed through us */
	c = feature(nvme_admin_set_features, NVME_FEAT_WRITE_PROTECT, 1);
	c.common.nsid = cpu_to_le32(1);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res),
			 NVME_SC_INVALID_FIELD | DNR);
	c = feature(nvme_admin_set_features, NVME_FEAT_TIMESTAMP, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 8, &res),
			 NVME_SC_INVALID_FIELD | DNR);
}

/* ---- Asynchronous events, keep alive, abort, the rest -------------------- */

static void test_aer(void **state)
{
	struct fix *f = *state;
	union nvme_command c;
	const uint32_t ns_changed = NVME_AER_DW0(NVME_AER_TYPE_NOTICE,
						 NVME_AER_NOTICE_NS_CHANGED,
						 NVME_LOG_CHANGED_NS);
	uint16_t i;

	for (i = 0; i < TGT_AERL; i++) {
		c = simple(nvme_admin_async_event, 100 + i);
		assert_int_equal(run(f, &f->ctrl, &c, 0, NULL),
				 TGT_STATUS_DEFER);
	}
	c = simple(nvme_admin_async_event, 200);
	assert_int_equal(run(f, &f->ctrl, &c, 0, NULL),
			 NVME_SC_ASYNC_LIMIT | DNR);
	assert_int_equal(f->ctrl.nr_aer, TGT_AERL);
	assert_int_equal(aer_done.calls, 0);

	/* not enabled: nothing */
	tgt_ctrl_aen(&f->ctrl, ns_changed);
	assert_int_equal(aer_done.calls, 0);
	f->ctrl.aec = NVME_CTRL_OAES_NS_ATTR;
	tgt_ctrl_aen(&f->ctrl, ns_changed);
	assert_int_equal(aer_done.calls, 1);
	assert_int_equal(aer_done.dw0, 0x040002);
	assert_true(aer_done.cid >= 100 && aer_done.cid < 100 + TGT_AERL);
	assert_int_equal(f->ctrl.nr_aer, TGT_AERL - 1);
	/* masked until the log is read */
	tgt_ctrl_aen(&f->ctrl, ns_changed);
	assert_int_equal(aer_done.calls, 1);
	c = get_log(NVME_LOG_CHANGED_NS, NVME_NSID_ALL, 4096, 0, false);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	tgt_ctrl_aen(&f->ctrl, ns_changed);
	assert_int_equal(aer_done.calls, 2);

	/* errors are not gated; with no AER left they wait for one */
	f->ctrl.nr_aer = 0;
	tgt_ctrl_aen(&f->ctrl,
		     NVME_AER_DW0(NVME_AER_TYPE_ERROR, 0x01, NVME_LOG_ERROR));
	assert_int_equal(aer_done.calls, 2);
	assert_int_equal(f->ctrl.nr_aen_pending, 1);
	c = simple(nvme_admin_async_event, 300);
	assert_int_equal(run(f, &f->ctrl, &c, 0, NULL), TGT_STATUS_DEFER);
	assert_int_equal(aer_done.calls, 3);
	assert_int_equal(aer_done.cid, 300);
	assert_int_equal(aer_done.dw0, 0x010100);
	assert_int_equal(f->ctrl.nr_aen_pending, 0);
	assert_int_equal(f->ctrl.nr_aer, 0);

	/* a discovery controller's change notice */
	f->dctrl.aec = NVME_CTRL_OAES_DISC_CHANGE;
	c = simple(nvme_admin_async_event, 400);
	assert_int_equal(run(f, &f->dctrl, &c, 0, NULL), TGT_STATUS_DEFER);
	tgt_ctrl_aen(&f->dctrl,
		     NVME_AER_DW0(NVME_AER_TYPE_NOTICE,
				  NVME_AER_NOTICE_DISC_CHANGED, NVME_LOG_DISC));
	assert_int_equal(aer_done.calls, 4);
	assert_int_equal(aer_done.cid, 400);
	assert_int_equal(aer_done.dw0, 0x70f002);
}

static void test_keep_alive_abort(void **state)
{
	struct fix *f = *state;
	union nvme_command c = simple(nvme_admin_keep_alive, 1);
	uint64_t before = mqblk_clock_ns();
	uint32_t res;

	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_true(f->ctrl.last_ka_ns >= before);
	f->dctrl.last_ka_ns = 0;
	assert_int_equal(run(f, &f->dctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_true(f->dctrl.last_ka_ns >= before);

	c = simple(nvme_admin_abort, 2);
	c.common.cdw10 = cpu_to_le32(7u << 16);
	assert_int_equal(run(f, &f->ctrl, &c, 0, &res), NVME_SC_SUCCESS);
	assert_int_equal(res, 1);
	assert_int_equal(run(f, &f->dctrl, &c, 0, &res),
			 NVME_SC_INVALID_OPCODE | DNR);
}

static void test_invalid(void **state)
{
	struct fix *f = *state;
	union nvme_command c;
	uint8_t op[] = { nvme_admin_ns_mgmt,   nvme_admin_create_sq,
			 nvme_admin_fw_commit, nvme_admin_format_nvm,
			 nvme_fabrics_command, 0xc0 };
	size_t i;

	for (i = 0; i < sizeof(op); i++) {
		c = simple(op[i], (uint16_t)i);
		assert_int_equal(run(f, &f->ctrl, &c, 0, NULL),
				 NVME_SC_INVALID_OPCODE | DNR);
		assert_int_equal(run(f, &f->dctrl, &c, 0, NULL),
				 NVME_SC_INVALID_OPCODE | DNR);
	}
	assert_int_equal(f->ctrl.err_count, sizeof(op));
	assert_int_equal(nvme_get_le16(&f->ctrl.errlog[0].param_error_location),
			 0);

	/* not enabled yet */
	f->ctrl.csts = 0;
	c = identify(NVME_ID_CNS_CTRL, 0, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL),
			 NVME_SC_CMD_SEQ_ERROR | DNR);
	assert_true(all_zero(f->buf, 4096));
}

static void test_data_dir(void **state)
{
	union nvme_command c;

	(void)state;
	c = simple(nvme_admin_identify, 0);
	assert_int_equal(tgt_admin_data_dir(&c), 1);
	c = simple(nvme_admin_get_log_page, 0);
	assert_int_equal(tgt_admin_data_dir(&c), 1);
	c = simple(nvme_admin_get_features, 0);
	assert_int_equal(tgt_admin_data_dir(&c), 1);
	c = simple(nvme_admin_set_features, 0);
	assert_int_equal(tgt_admin_data_dir(&c), 2);
	c = simple(nvme_admin_keep_alive, 0);
	assert_int_equal(tgt_admin_data_dir(&c), 0);
	c = simple(nvme_admin_async_event, 0);
	assert_int_equal(tgt_admin_data_dir(&c), 0);
	c = simple(nvme_admin_abort, 0);
	assert_int_equal(tgt_admin_data_dir(&c), 0);
	c = simple(nvme_fabrics_command, 0);
	c.fabrics.fctype = nvme_fabrics_type_connect;
	assert_int_equal(tgt_admin_data_dir(&c), 2);
	c.fabrics.fctype = nvme_fabrics_type_property_get;
	assert_int_equal(tgt_admin_data_dir(&c), 0);
	c.fabrics.fctype = nvme_fabrics_type_auth_receive;
	assert_int_equal(tgt_admin_data_dir(&c), 1);
}

/* ---- ANA ------------------------------------------------------------------ */

/* Groups 1 and 2: NSIDs 1 and 2 (disabled) in 1, NSID 3 in 2; port 1 sees
 * group 2 inaccessible, port 3 group 1 non-optimized. */
static void ana_setup(struct fix *f)
{
	unsigned g;

	f->t.ana_group_used[1] = f->t.ana_group_used[2] = true;
	f->ns[0].anagrpid = 1;
	f->ns[1].anagrpid = 1;
	f->ns[2].anagrpid = 2;
	for (g = 1; g <= TGT_MAX_ANA_GROUPS; g++) {
		f->ports[0].ana_state[g] = NVME_ANA_OPTIMIZED;
		f->ports[2].ana_state[g] = NVME_ANA_OPTIMIZED;
	}
	f->ports[0].ana_state[2] = NVME_ANA_INACCESSIBLE;
	f->ports[2].ana_state[1] = NVME_ANA_NONOPTIMIZED;
	f->t.ana_chgcnt = 5;
}

static void test_identify_ana(void **state)
{
	struct fix *f = *state;
	union nvme_command c = identify(NVME_ID_CNS_CTRL, 0, 0);
	const uint8_t *b = f->buf;

	ana_setup(f);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(b[342], TGT_ANATT); /* ANATT */
	/* ANACAP: states 01h-04h and 0Fh reportable, ANAGRPID static */
	assert_int_equal(b[343], 0x5f);
	assert_int_equal(nvme_get_le32(b + 344), TGT_MAX_ANA_GROUPS);
	assert_int_equal(nvme_get_le32(b + 348), TGT_MAX_ANA_GROUPS);
	assert_int_equal(nvme_get_le32(b + 540), TGT_MAX_NS); /* MNAN */

	c = identify(NVME_ID_CNS_NS, 3, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(b[30], 1); /* NMIC: shared */
	assert_int_equal(nvme_get_le32(b + 92), 2); /* ANAGRPID */
	c = identify(NVME_ID_CNS_NS_CS_INDEP, 1, 0);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(b[1], 1); /* NMIC */
	assert_int_equal(nvme_get_le32(b + 4), 1); /* ANAGRPID */
}

static union nvme_command ana_log(uint32_t bytes, uint64_t lpo, bool rgo,
				  bool rae)
{
	union nvme_command c =
		get_log(NVME_LOG_ANA, NVME_NSID_ALL, bytes, lpo, rae);

	if (rgo)
		c.get_log_page.lsp |= NVME_LOG_LSP_ANA_RGO;
	return c;
}

static void test_log_ana(void **state)
{
	struct fix *f = *state;
	union nvme_command c = ana_log(4096, 0, false, false);
	const uint8_t *b = f->buf;

	ana_setup(f);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le64(b), 5); /* CHGCNT */
	assert_int_equal(nvme_get_le16(b + 8), 2); /* NGRPS */
	/* group 1: NSID 1 only (2 is not enabled), optimized on port 1 */
	assert_int_equal(nvme_get_le32(b + 16), 1);
	assert_int_equal(nvme_get_le32(b + 20), 1);
	assert_int_equal(nvme_get_le64(b + 24), 5);
	assert_int_equal(b[32], NVME_ANA_OPTIMIZED);
	assert_true(all_zero(b + 33, 15));
	assert_int_equal(nvme_get_le32(b + 48), 1);
	/* group 2: NSID 3, inaccessible on port 1 */
	assert_int_equal(nvme_get_le32(b + 52), 2);
	assert_int_equal(nvme_get_le32(b + 56), 1);
	assert_int_equal(b[68], NVME_ANA_INACCESSIBLE);
	assert_int_equal(nvme_get_le32(b + 84), 3);
	/* the log is 88 bytes: the rest of the transfer is zeroes */
	assert_true(all_zero(b + 88, 4096 - 88));

	/* the same groups through port 3: its own states */
	f->ctrl.port = &f->ports[2];
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(b[32], NVME_ANA_NONOPTIMIZED);
	assert_int_equal(b[68], NVME_ANA_OPTIMIZED);
	f->ctrl.port = &f->ports[0];

	/* RGO: descriptors without NSIDs */
	c = ana_log(4096, 0, true, false);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le16(b + 8), 2);
	assert_int_equal(nvme_get_le32(b + 16), 1);
	assert_int_equal(nvme_get_le32(b + 20), 0);
	assert_int_equal(nvme_get_le32(b + 48), 2);
	assert_int_equal(nvme_get_le32(b + 52), 0);
	assert_int_equal(b[64], NVME_ANA_INACCESSIBLE);
	assert_true(all_zero(b + 80, 4096 - 80));

	/* LPO: from byte 48 on, 8 bytes (NUMD 1) */
	c = ana_log(8, 48, false, false);
	assert_int_equal(run(f, &f->ctrl, &c, 8, NULL), NVME_SC_SUCCESS);
	assert_int_equal(nvme_get_le32(b), 1); /* group 1's NSID */
	assert_int_equal(nvme_get_le32(b + 4), 2); /* group 2's GRPID */
	assert_int_equal(b[8], 0x5a); /* nothing past the transfer */
	/* past the groups, up to the most the log could hold (what
	 * nvme-cli's ana-log reads, in 4 KiB pieces, from Identify's
	 * NANAGRPID and MNAN): zeroes; past that: Invalid Field;
	 * unaligned too */
	c = ana_log(8, 88, false, false);
	assert_int_equal(run(f, &f->ctrl, &c, 8, NULL), NVME_SC_SUCCESS);
	assert_true(all_zero(b, 8));
	c = ana_log(8, 92, false, false);
	assert_int_equal(run(f, &f->ctrl, &c, 8, NULL), NVME_SC_SUCCESS);
	assert_true(all_zero(b, 8));
	c = ana_log(4096, 4096, false, false);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	assert_true(all_zero(b, 4096));
	c = ana_log(16, 16 + 32 * TGT_MAX_ANA_GROUPS + 4 * TGT_MAX_NS - 16,
		    false, false);
	assert_int_equal(run(f, &f->ctrl, &c, 16, NULL), NVME_SC_SUCCESS);
	c = ana_log(8, 16 + 32 * TGT_MAX_ANA_GROUPS + 4 * TGT_MAX_NS + 4, false,
		    false);
	assert_int_equal(run(f, &f->ctrl, &c, 8, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
	/* with RGO there are no NSIDs: the log is the descriptors */
	c = ana_log(8, 16 + 32 * TGT_MAX_ANA_GROUPS + 4, true, false);
	assert_int_equal(run(f, &f->ctrl, &c, 8, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
	c = ana_log(8, 2, false, false);
	assert_int_equal(run(f, &f->ctrl, &c, 8, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
}

/*
 * n namespaces in three groups (NSID i in group i % 3 + 1), read whole
 * and in piece-byte pieces through LPO: the same bytes, every NSID once,
 * in its group, ascending.
 */
static void check_big_ana_log(struct fix *f, unsigned n, uint32_t piece)
{
	struct tgt_ns *ns = calloc(n, sizeof(*ns));
	struct tgt_ns **list = calloc(n, sizeof(*list));
	size_t size = 16 + 3 * 32 + 4 * (size_t)n, off, got;
	uint8_t *whole = malloc(size), *pieces = malloc(size);
	uint8_t *seen = calloc(n + 1, 1);
	union nvme_command c;
	unsigned i, g, k;

	assert_non_null(ns);
	assert_non_null(list);
	assert_non_null(whole);
	assert_non_null(pieces);
	assert_non_null(seen);
	assert_true(size <= sizeof(f->buf));
	for (i = 0; i < n; i++) {
		ns[i].nsid = i + 1;
		ns[i].enabled = true;
		ns[i].anagrpid = (i + 1) % 3 + 1;
		ns[i].size = 1 << 20;
		ns[i].lba_shift = 9;
		list[i] = &ns[i];
	}
	f->io.ns = list;
	f->io.nr_ns = n;
	f->t.ana_group_used[1] = f->t.ana_group_used[2] = true;
	f->t.ana_group_used[3] = true;
	for (g = 1; g <= 3; g++)
		f->ports[0].ana_state[g] = NVME_ANA_OPTIMIZED;

	c = ana_log((uint32_t)sizeof(f->buf), 0, false, true);
	assert_int_equal(run(f, &f->ctrl, &c, sizeof(f->buf), NULL),
			 NVME_SC_SUCCESS);
	memcpy(whole, f->buf, size);
	assert_true(all_zero(f->buf + size, sizeof(f->buf) - size));
	for (off = 0; off < size; off += got) {
		c = ana_log(piece, off, false, true);
		assert_int_equal(run(f, &f->ctrl, &c, piece, NULL),
				 NVME_SC_SUCCESS);
		got = size - off < piece ? size - off : piece;
		memcpy(pieces + off, f->buf, got);
	}
	assert_memory_equal(whole, pieces, size);

	assert_int_equal(nvme_get_le16(whole + 8), 3);
	off = 16;
	for (g = 1; g <= 3; g++) {
		uint32_t nn = nvme_get_le32(whole + off + 4), prev = 0;

		assert_int_equal(nvme_get_le32(whole + off), g);
		assert_int_equal(whole[off + 16], NVME_ANA_OPTIMIZED);
		off += 32;
		for (k = 0; k < nn; k++, off += 4) {
			uint32_t nsid = nvme_get_le32(whole + off);

			assert_true(nsid >= 1 && nsid <= n);
			assert_true(nsid > prev);
			assert_int_equal(nsid % 3 + 1, g);
			assert_int_equal(seen[nsid], 0);
			seen[nsid] = 1;
			prev = nsid;
		}
	}
	assert_int_equal(off, size);
	for (i = 1; i <= n; i++)
		assert_int_equal(seen[i], 1);

	f->io.ns = f->ns_list;
	f->io.nr_ns = 3;
	free(list);
	free(ns);
	free(whole);
	free(pieces);
	free(seen);
}

static void test_log_ana_many(void **state)
{
	struct fix *f = *state;

	/* past the 228 namespaces where a Linux host once failed on
	 * another target; 1312 bytes read 512 at a time */
	check_big_ana_log(f, 300, 512);
	/* every NSID: 4240 bytes, more than a page, read by pages */
	check_big_ana_log(f, TGT_MAX_NS, 4096);
}

static void test_ana_aen(void **state)
{
	struct fix *f = *state;
	const uint32_t ana = NVME_AER_DW0(NVME_AER_TYPE_NOTICE,
					  NVME_AER_NOTICE_ANA, NVME_LOG_ANA);
	union nvme_command c;
	uint16_t i;

	ana_setup(f);
	for (i = 0; i < 2; i++) {
		c = simple(nvme_admin_async_event, 100 + i);
		assert_int_equal(run(f, &f->ctrl, &c, 0, NULL),
				 TGT_STATUS_DEFER);
	}
	/* not enabled: nothing */
	tgt_ctrl_aen(&f->ctrl, ana);
	assert_int_equal(aer_done.calls, 0);
	/* Set Features Asynchronous Event Configuration bit 11 */
	c = feature(nvme_admin_set_features, NVME_FEAT_ASYNC_EVENT,
		    NVME_AEN_CFG_ANA_CHANGE);
	assert_int_equal(run(f, &f->ctrl, &c, 0, NULL), NVME_SC_SUCCESS);
	tgt_ctrl_aen(&f->ctrl, ana);
	assert_int_equal(aer_done.calls, 1);
	assert_int_equal(aer_done.dw0, 0x0c0302);
	/* masked until the ANA log is read; RAE keeps it masked */
	tgt_ctrl_aen(&f->ctrl, ana);
	assert_int_equal(aer_done.calls, 1);
	assert_int_equal(f->ctrl.nr_aen_pending, 0);
	c = ana_log(4096, 0, false, true);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	tgt_ctrl_aen(&f->ctrl, ana);
	assert_int_equal(aer_done.calls, 1);
	c = ana_log(4096, 0, false, false);
	assert_int_equal(run(f, &f->ctrl, &c, 4096, NULL), NVME_SC_SUCCESS);
	tgt_ctrl_aen(&f->ctrl, ana);
	assert_int_equal(aer_done.calls, 2);
	assert_int_equal(f->ctrl.nr_aer, 0);
	/* a discovery controller cannot enable it */
	c = feature(nvme_admin_set_features, NVME_FEAT_ASYNC_EVENT,
		    NVME_AEN_CFG_ANA_CHANGE);
	assert_int_equal(run(f, &f->dctrl, &c, 0, NULL),
			 NVME_SC_INVALID_FIELD | DNR);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_identify_ctrl),
		T(test_identify_ctrl_no_vwc),
		T(test_identify_disc_ctrl),
		T(test_identify_ns),
		T(test_identify_active_list),
		T(test_identify_desc_list),
		T(test_identify_cs),
		T(test_identify_ctrl_list),
		T(test_log_error),
		T(test_log_smart),
		T(test_log_fw_slot),
		T(test_log_changed_ns),
		T(test_ns_changed_list),
		T(test_log_cmd_effects),
		T(test_log_unknown),
		T(test_log_discovery),
		T(test_rdma_port),
		T(test_features_num_queues),
		T(test_features_kato_aec),
		T(test_identify_ana),
		T(test_log_ana),
		T(test_log_ana_many),
		T(test_ana_aen),
		T(test_features_vwc_hostid),
		T(test_features_other),
		T(test_aer),
		T(test_keep_alive_abort),
		T(test_invalid),
		T(test_data_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
