// SPDX-License-Identifier: MIT
/*
 * Unit tests of src/nvme: structure layouts at the specification's
 * offsets, every NVMe/TCP PDU against bytes written out from the TCP
 * transport binding, encode/decode round trips, each decoder refusal, and
 * a replay of the Linux kernel's own traffic (tests/nvme/vectors).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvme/crc32c.h"
#include "nvme/nvme.h"
#include "nvme/rdma.h"
#include "nvme/tcp.h"

/* A connection past its IC exchange, as one end sees it */
static struct nvme_tcp_conn conn(bool host, bool hdgst, bool ddgst)
{
	struct nvme_tcp_conn c = {
		.host = host,
		.ic_done = true,
		.hdgst = hdgst,
		.ddgst = ddgst,
		.maxh2cdata = 8192,
	};

	return c;
}

/* The same connection seen from the other end */
static struct nvme_tcp_conn peer(const struct nvme_tcp_conn *c)
{
	struct nvme_tcp_conn p = *c;

	p.host = !c->host;
	p.rx_pda = c->tx_pda;
	p.tx_pda = c->rx_pda;
	return p;
}

static int decode(const struct nvme_tcp_conn *c, const void *buf, size_t len,
		  struct nvme_tcp_rx_pdu *p)
{
	return nvme_tcp_rx_pdu(c, buf, len, p);
}

/* Decode, expecting a fatal error with this FES and FEI */
static void expect_fatal(const struct nvme_tcp_conn *c, const void *buf,
			 size_t len, uint16_t fes, uint32_t fei)
{
	struct nvme_tcp_rx_pdu p;

	assert_int_equal(decode(c, buf, len, &p), NVME_TCP_RX_FATAL);
	assert_int_equal(p.fes, fes);
	assert_int_equal(p.fei, fei);
}

/* ---- CRC32C and layouts -------------------------------------------------- */

static void test_crc32c(void **state)
{
	(void)state;
	assert_int_equal(mqblk_crc32c("123456789", 9), 0xE3069283u);
	assert_int_equal(mqblk_crc32c("", 0), 0);
	/* extending by pieces gives the CRC of the whole */
	assert_int_equal(mqblk_crc32c_extend(mqblk_crc32c("1234", 4), "56789",
					     5),
			 0xE3069283u);
	assert_int_equal(mqblk_crc32c_extend(0, "123456789", 9), 0xE3069283u);
}

static void test_layouts(void **state)
{
	(void)state;
	/* Identify Controller, Base spec figure "Identify Controller" */
	assert_int_equal(sizeof(struct nvme_id_ctrl), 4096);
	assert_int_equal(offsetof(struct nvme_id_ctrl, sn), 4);
	assert_int_equal(offsetof(struct nvme_id_ctrl, mn), 24);
	assert_int_equal(offsetof(struct nvme_id_ctrl, fr), 64);
	assert_int_equal(offsetof(struct nvme_id_ctrl, mdts), 77);
	assert_int_equal(offsetof(struct nvme_id_ctrl, cntlid), 78);
	assert_int_equal(offsetof(struct nvme_id_ctrl, ver), 80);
	assert_int_equal(offsetof(struct nvme_id_ctrl, oacs), 256);
	assert_int_equal(offsetof(struct nvme_id_ctrl, lpa), 261);
	assert_int_equal(offsetof(struct nvme_id_ctrl, kas), 320);
	assert_int_equal(offsetof(struct nvme_id_ctrl, nn), 516);
	assert_int_equal(offsetof(struct nvme_id_ctrl, vwc), 525);
	assert_int_equal(offsetof(struct nvme_id_ctrl, sgls), 536);
	assert_int_equal(offsetof(struct nvme_id_ctrl, subnqn), 768);
	assert_int_equal(offsetof(struct nvme_id_ctrl, ioccsz), 1792);
	assert_int_equal(offsetof(struct nvme_id_ctrl, iorcsz), 1796);
	assert_int_equal(offsetof(struct nvme_id_ctrl, icdoff), 1800);
	assert_int_equal(offsetof(struct nvme_id_ctrl, msdbd), 1803);
	assert_int_equal(offsetof(struct nvme_id_ctrl, psd), 2048);
	/* Identify Namespace */
	assert_int_equal(sizeof(struct nvme_id_ns), 4096);
	assert_int_equal(offsetof(struct nvme_id_ns, ncap), 8);
	assert_int_equal(offsetof(struct nvme_id_ns, nuse), 16);
	assert_int_equal(offsetof(struct nvme_id_ns, nlbaf), 25);
	assert_int_equal(offsetof(struct nvme_id_ns, flbas), 26);
	assert_int_equal(offsetof(struct nvme_id_ns, nguid), 104);
	assert_int_equal(offsetof(struct nvme_id_ns, eui64), 120);
	assert_int_equal(offsetof(struct nvme_id_ns, lbaf), 128);
	assert_int_equal(nvme_flbas_index(0x62), 0x32); /* 6:5 above 3:0 */
	/* Fabrics */
	assert_int_equal(sizeof(struct nvmf_connect_data), 1024);
	assert_int_equal(offsetof(struct nvmf_connect_data, cntlid), 16);
	/* SUBNQN at 256, HOSTNQN at 512 (Fabrics "Connect Data"; the
	 * kernel's Connect in tests/nvme/vectors agrees) */
	assert_int_equal(offsetof(struct nvmf_connect_data, subsysnqn), 256);
	assert_int_equal(offsetof(struct nvmf_connect_data, hostnqn), 512);
	assert_int_equal(offsetof(struct nvmf_connect_command, qid), 42);
	assert_int_equal(offsetof(struct nvmf_connect_command, kato), 48);
	assert_int_equal(offsetof(struct nvmf_property_get_command, offset),
			 44);
	assert_int_equal(sizeof(struct nvmf_disc_log_entry), 1024);
	assert_int_equal(offsetof(struct nvmf_disc_log_entry, trsvcid), 32);
	assert_int_equal(offsetof(struct nvmf_disc_log_entry, subnqn), 256);
	assert_int_equal(offsetof(struct nvmf_disc_log_entry, traddr), 512);
	assert_int_equal(offsetof(struct nvmf_disc_log_entry, tsas), 768);
	/* commands, completion */
	assert_int_equal(sizeof(union nvme_command), 64);
	assert_int_equal(offsetof(struct nvme_rw_command, slba), 40);
	assert_int_equal(offsetof(struct nvme_rw_command, length), 48);
	assert_int_equal(offsetof(struct nvme_get_log_page_command, lpo), 48);
	assert_int_equal(sizeof(struct nvme_completion), 16);
	assert_int_equal(offsetof(struct nvme_completion, status), 14);
	/* NVMe/TCP */
	assert_int_equal(sizeof(struct nvme_tcp_icreq_pdu), 128);
	assert_int_equal(sizeof(struct nvme_tcp_icresp_pdu), 128);
	assert_int_equal(sizeof(struct nvme_tcp_cmd_pdu), 72);
	assert_int_equal(sizeof(struct nvme_tcp_rsp_pdu), 24);
	assert_int_equal(sizeof(struct nvme_tcp_data_pdu), 24);
	assert_int_equal(sizeof(struct nvme_tcp_r2t_pdu), 24);
	assert_int_equal(sizeof(struct nvme_tcp_term_pdu), 24);
}

static void test_helpers(void **state)
{
	struct nvme_completion cqe = { 0 };
	struct nvme_get_log_page_command glp = { 0 };
	uint8_t b[8];
	char sn[8];

	(void)state;
	nvme_put_le64(b, 0x0102030405060708ull);
	assert_int_equal(b[0], 0x08);
	assert_int_equal(b[7], 0x01);
	assert_int_equal(nvme_get_le64(b), 0x0102030405060708ull);
	assert_int_equal(nvme_get_le32(b + 1), 0x04050607);
	assert_int_equal(nvme_get_le16(b + 3), 0x0405);
	nvme_put_ascii(sn, sizeof(sn), "ab");
	assert_memory_equal(sn, "ab      ", 8);
	/* status field sits above the phase bit; DNR is bit 15 */
	nvme_cqe_set_status(&cqe, NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	assert_int_equal(le16_to_cpu(cqe.status), 0x8304);
	assert_int_equal(NVME_SCT(nvme_cqe_status(&cqe)), 1);
	assert_int_equal(NVME_SC(nvme_cqe_status(&cqe)), 0x82);
	/* NUMD is 0's based dwords: 0x0003_00ff -> (0x300ff + 1) * 4 */
	glp.numdl = cpu_to_le16(0x00ff);
	glp.numdu = cpu_to_le16(0x0003);
	assert_int_equal(nvme_log_page_len(&glp), (0x300ffull + 1) * 4);
	assert_int_equal(NVME_VS(1, 4, 0), 0x00010400);
	assert_int_equal(NVME_CAP_MQES(nvme_cap_make(127, 15, 1, 0, 4)), 127);
	assert_int_equal(NVME_CAP_TIMEOUT(nvme_cap_make(127, 15, 1, 0, 4)), 15);
	assert_int_equal(NVME_CAP_CSS(nvme_cap_make(127, 15, 1, 0, 4)), 1);
	assert_int_equal(NVME_CAP_MPSMAX(nvme_cap_make(127, 15, 1, 0, 4)), 4);
	assert_int_equal(NVME_CC_IOSQES(0x00460001), 6);
	assert_int_equal(NVME_CC_IOCQES(0x00460001), 4);
	assert_int_equal(NVME_SGL_TCP_TRANSPORT, 0x5a);
	assert_int_equal(NVME_SGL_TCP_INCAPSULE, 0x01);
}

static void test_ns_descs(void **state)
{
	static const uint8_t eui[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t uuid[16] = { 0xaa, [15] = 0xbb };
	const uint8_t csi = NVME_CSI_NVM;
	uint8_t list[48] = { 0 }, nidt, nidl;
	const uint8_t *id;
	size_t off = 0;

	(void)state;
	assert_int_equal(nvme_ns_desc_put(list, sizeof(list), &off,
					  NVME_NIDT_EUI64, eui, 8),
			 0);
	assert_int_equal(nvme_ns_desc_put(list, sizeof(list), &off,
					  NVME_NIDT_UUID, uuid, 16),
			 0);
	assert_int_equal(nvme_ns_desc_put(list, sizeof(list), &off,
					  NVME_NIDT_CSI, &csi, 1),
			 0);
	assert_int_equal(off, 12 + 20 + 5);
	/* the bytes of the spec's figure: NIDT, NIDL, 2 reserved, NID */
	assert_int_equal(list[0], 1);
	assert_int_equal(list[1], 8);
	assert_memory_equal(list + 4, eui, 8);
	assert_int_equal(list[12], 3);
	assert_int_equal(list[13], 16);
	assert_int_equal(list[32], 4);
	assert_int_equal(list[33], 1);
	assert_int_equal(list[36], 0);
	/* refusals: a wrong length for the type, no room */
	assert_int_equal(nvme_ns_desc_put(list, sizeof(list), &off,
					  NVME_NIDT_NGUID, uuid, 8),
			 -EINVAL);
	assert_int_equal(nvme_ns_desc_put(list, sizeof(list), &off,
					  NVME_NIDT_NGUID, uuid, 16),
			 -ENOSPC);

	off = 0;
	assert_int_equal(nvme_ns_desc_next(list, sizeof(list), &off, &nidt, &id,
					   &nidl),
			 1);
	assert_int_equal(nidt, NVME_NIDT_EUI64);
	assert_memory_equal(id, eui, 8);
	assert_int_equal(nvme_ns_desc_next(list, sizeof(list), &off, &nidt, &id,
					   &nidl),
			 1);
	assert_int_equal(nidt, NVME_NIDT_UUID);
	assert_int_equal(nvme_ns_desc_next(list, sizeof(list), &off, &nidt, &id,
					   &nidl),
			 1);
	assert_int_equal(nidt, NVME_NIDT_CSI);
	assert_int_equal(*id, NVME_CSI_NVM);
	assert_int_equal(nvme_ns_desc_next(list, sizeof(list), &off, &nidt, &id,
					   &nidl),
			 0);
	/* a length past the buffer, a wrong length for the type, empty */
	off = 12;
	list[13] = 40;
	assert_int_equal(nvme_ns_desc_next(list, sizeof(list), &off, &nidt, &id,
					   &nidl),
			 -EBADMSG);
	list[13] = 8;
	assert_int_equal(nvme_ns_desc_next(list, sizeof(list), &off, &nidt, &id,
					   &nidl),
			 -EBADMSG);
	list[12] = 0x7f; /* unknown types pass, any length */
	assert_int_equal(nvme_ns_desc_next(list, sizeof(list), &off, &nidt, &id,
					   &nidl),
			 1);
	assert_int_equal(off, 24);
	list[13] = 0;
	off = 12;
	assert_int_equal(nvme_ns_desc_next(list, sizeof(list), &off, &nidt, &id,
					   &nidl),
			 -EBADMSG);
	/* a header that would not fit ends the list */
	off = 46;
	assert_int_equal(nvme_ns_desc_next(list, sizeof(list), &off, &nidt, &id,
					   &nidl),
			 0);
}

/* ---- PDUs against bytes from the transport binding ----------------------- */

static void test_icreq_bytes(void **state)
{
	/* ICReq: PFV 0, HPDA 0, no digests, MAXR2T 0 (one R2T) */
	uint8_t want[128] = { 0x00, 0x00, 0x80, 0x00, 0x80, 0x00, 0x00, 0x00 };
	uint8_t buf[128];
	struct nvme_tcp_conn ctrl = { .host = false };
	struct nvme_tcp_rx_pdu p;

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(nvme_tcp_build_icreq(buf, sizeof(buf), 0, 0, 0), 128);
	assert_memory_equal(buf, want, 128);
	assert_int_equal(decode(&ctrl, buf, 128, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.type, nvme_tcp_icreq);
	assert_int_equal(p.plen, 128);
	assert_int_equal(p.data_len, 0);

	/* HPDA 3, both digests, MAXR2T 0x01020304 */
	want[10] = 3;
	want[11] = 0x03;
	want[12] = 0x04;
	want[13] = 0x03;
	want[14] = 0x02;
	want[15] = 0x01;
	assert_int_equal(
		nvme_tcp_build_icreq(buf, sizeof(buf), 3, 3, 0x01020304), 128);
	assert_memory_equal(buf, want, 128);
	assert_int_equal(nvme_tcp_build_icreq(buf, 127, 0, 0, 0), -ENOSPC);
	assert_int_equal(nvme_tcp_build_icreq(buf, 128, 32, 0, 0), -EINVAL);
}

static void test_icresp_bytes(void **state)
{
	/* ICResp: PFV 0, CPDA 0, no digests, MAXH2CDATA 0x400000 */
	uint8_t want[128] = { 0x01, 0x00, 0x80, 0x00, 0x80, 0x00, 0x00, 0x00,
			      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00 };
	uint8_t buf[128];
	struct nvme_tcp_conn host = { .host = true };
	struct nvme_tcp_rx_pdu p;

	(void)state;
	assert_int_equal(
		nvme_tcp_build_icresp(buf, sizeof(buf), 0, 0, 0x400000), 128);
	assert_memory_equal(buf, want, 128);
	assert_int_equal(decode(&host, buf, 128, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.type, nvme_tcp_icresp);
	/* MAXH2CDATA is at least 4096 and a multiple of 4 */
	assert_int_equal(nvme_tcp_build_icresp(buf, 128, 0, 0, 4092), -EINVAL);
	assert_int_equal(nvme_tcp_build_icresp(buf, 128, 0, 0, 4098), -EINVAL);
}

static void test_establish(void **state)
{
	uint8_t req[128], rsp[128];
	struct nvme_tcp_conn host = { .host = true };
	struct nvme_tcp_conn ctrl = { .host = false };

	(void)state;
	nvme_tcp_build_icreq(req, sizeof(req), 1, NVME_TCP_HDGST_ENABLE, 0);
	nvme_tcp_build_icresp(rsp, sizeof(rsp), 2, NVME_TCP_HDGST_ENABLE,
			      65536);
	assert_int_equal(nvme_tcp_conn_establish(&host, req, rsp), 0);
	assert_int_equal(nvme_tcp_conn_establish(&ctrl, req, rsp), 0);
	assert_true(host.ic_done && host.hdgst && !host.ddgst);
	assert_int_equal(host.rx_pda, 1);
	assert_int_equal(host.tx_pda, 2);
	assert_int_equal(ctrl.rx_pda, 2);
	assert_int_equal(ctrl.tx_pda, 1);
	assert_int_equal(host.maxh2cdata, 65536);
	/* a controller may not grant a digest the host did not ask for */
	nvme_tcp_build_icresp(rsp, sizeof(rsp), 0, 3, 65536);
	host.ic_done = false;
	assert_int_equal(nvme_tcp_conn_establish(&host, req, rsp), -EPROTO);
}

static union nvme_command read_cmd(void)
{
	union nvme_command cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.rw.opcode = nvme_cmd_read;
	cmd.rw.flags = NVME_CMD_SGL_METABUF;
	cmd.rw.command_id = 0x1234; /* opaque: host byte order */
	cmd.rw.nsid = cpu_to_le32(1);
	cmd.rw.dptr.sgl.length = cpu_to_le32(4096);
	cmd.rw.dptr.sgl.type = NVME_SGL_TCP_TRANSPORT;
	cmd.rw.slba = cpu_to_le64(0x10);
	cmd.rw.length = cpu_to_le16(7);
	return cmd;
}

static void test_cmd_bytes(void **state)
{
	union nvme_command cmd = read_cmd();
	struct nvme_tcp_conn host = conn(true, false, false);
	struct nvme_tcp_conn ctrl = peer(&host);
	uint8_t want[72] = {
		0x04, 0x00, 0x48, 0x00, 0x48, 0x00, 0x00, 0x00, /* CH */
		0x02, 0x40, 0x34, 0x12, 0x01, 0x00, 0x00, 0x00, /* SQE */
	};
	uint8_t buf[256];
	struct nvme_tcp_rx_pdu p;

	(void)state;
	want[8 + 32] = 0x00; /* SGL length 4096 at SQE byte 32 */
	want[8 + 33] = 0x10;
	want[8 + 39] = 0x5a; /* SGL identifier */
	want[8 + 40] = 0x10; /* SLBA */
	want[8 + 48] = 0x07; /* NLB, 0's based */
	assert_int_equal(
		nvme_tcp_build_cmd(&host, buf, sizeof(buf), &cmd, NULL, 0), 72);
	assert_memory_equal(buf, want, 72);
	assert_int_equal(decode(&ctrl, buf, 72, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.data_len, 0);
	assert_memory_equal(buf + 8, &cmd, 64);

	/* header digest: HDGSTF, plen 76, CRC32C of the 72 header bytes */
	host.hdgst = ctrl.hdgst = true;
	want[1] = NVME_TCP_F_HDGST;
	want[4] = 0x4c;
	assert_int_equal(
		nvme_tcp_build_cmd(&host, buf, sizeof(buf), &cmd, NULL, 0), 76);
	assert_memory_equal(buf, want, 72);
	assert_int_equal(nvme_get_le32(buf + 72), mqblk_crc32c(want, 72));
	assert_int_equal(decode(&ctrl, buf, 76, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.hdr_len, 76);
}

static void test_cmd_incapsule(void **state)
{
	union nvme_command cmd = read_cmd();
	struct nvme_tcp_conn host = conn(true, false, false);
	struct nvme_tcp_conn ctrl;
	uint8_t data[16], buf[256];
	struct nvme_tcp_rx_pdu p;
	ssize_t n;

	(void)state;
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	cmd.rw.opcode = nvme_cmd_write;
	cmd.rw.dptr.sgl.type = NVME_SGL_TCP_INCAPSULE;
	cmd.rw.dptr.sgl.length = cpu_to_le32(sizeof(data));

	/* no digests, no alignment: data right after the header */
	ctrl = peer(&host);
	n = nvme_tcp_build_cmd(&host, buf, sizeof(buf), &cmd, data, 16);
	assert_int_equal(n, 88);
	assert_int_equal(buf[1], 0);
	assert_int_equal(buf[3], 72); /* PDO */
	assert_int_equal(nvme_get_le32(buf + 4), 88);
	assert_memory_equal(buf + 72, data, 16);
	assert_int_equal(decode(&ctrl, buf, (size_t)n, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.data_off, 72);
	assert_int_equal(p.data_len, 16);

	/* both digests, CPDA 3 (16-byte alignment): 72 + 4 -> PDO 80 */
	host.hdgst = host.ddgst = true;
	host.tx_pda = 3;
	ctrl = peer(&host);
	n = nvme_tcp_build_cmd(&host, buf, sizeof(buf), &cmd, data, 16);
	assert_int_equal(n, 80 + 16 + 4);
	assert_int_equal(buf[1], NVME_TCP_F_HDGST | NVME_TCP_F_DDGST);
	assert_int_equal(buf[3], 80);
	assert_int_equal(nvme_get_le32(buf + 4), 100);
	assert_int_equal(nvme_get_le32(buf + 72), mqblk_crc32c(buf, 72));
	assert_int_equal(nvme_get_le32(buf + 76), 0); /* padding */
	assert_int_equal(nvme_get_le32(buf + 96), mqblk_crc32c(data, 16));
	assert_int_equal(decode(&ctrl, buf, (size_t)n, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.data_off, 80);
	assert_int_equal(p.data_len, 16);
	assert_true(p.ddgst);

	/* header only (zero copy): returns PDO; data then digest follow */
	assert_int_equal(nvme_tcp_build_cmd(&host, buf, 80, &cmd, NULL, 16),
			 80);
	assert_int_equal(nvme_get_le32(buf + 4), 100);
	assert_int_equal(nvme_tcp_build_cmd(&host, buf, 79, &cmd, NULL, 16),
			 -ENOSPC);
	assert_int_equal(nvme_tcp_build_cmd(&host, buf, 99, &cmd, data, 16),
			 -ENOSPC);
}

static void test_rsp_bytes(void **state)
{
	struct nvme_tcp_conn ctrl = conn(false, false, false);
	struct nvme_tcp_conn host = peer(&ctrl);
	struct nvme_completion cqe = { 0 };
	const uint8_t want[24] = {
		0x05, 0x00, 0x18, 0x00, 0x18, 0x00, 0x00, 0x00, /* CH */
		0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* DW0, DW1 */
		0x05, 0x00, 0x02, 0x00, 0x34, 0x12, 0x04, 0x80, /* ... status */
	};
	uint8_t buf[64];
	struct nvme_tcp_rx_pdu p;

	(void)state;
	cqe.result.u32 = cpu_to_le32(1);
	cqe.sq_head = cpu_to_le16(5);
	cqe.sq_id = cpu_to_le16(2);
	cqe.command_id = 0x1234;
	nvme_cqe_set_status(&cqe, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	assert_int_equal(nvme_tcp_build_rsp(&ctrl, buf, sizeof(buf), &cqe), 24);
	assert_memory_equal(buf, want, 24);
	assert_int_equal(decode(&host, buf, 24, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.type, nvme_tcp_rsp);
	assert_int_equal(p.data_len, 0);
	assert_int_equal(nvme_tcp_build_rsp(&ctrl, buf, 23, &cqe), -ENOSPC);
}

static void test_c2h_data_bytes(void **state)
{
	struct nvme_tcp_conn ctrl = conn(false, false, false);
	struct nvme_tcp_conn host = peer(&ctrl);
	const uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const uint8_t want[32] = {
		0x07, 0x0c, 0x18, 0x18,
		0x20, 0x00, 0x00, 0x00, /* CH */
		0x34, 0x12, 0x00, 0x00,
		0x00, 0x10, 0x00, 0x00, /* CCCID, DATAO */
		0x08, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, /* DATAL */
		1,    2,    3,	  4,
		5,    6,    7,	  8,
	};
	uint8_t buf[64];
	struct nvme_tcp_rx_pdu p;

	(void)state;
	/* last PDU, success: no CapsuleResp will follow */
	assert_int_equal(nvme_tcp_build_data(&ctrl, buf, sizeof(buf), 0x1234,
					     0xffff, 0x1000, data, 8,
					     NVME_TCP_F_DATA_LAST |
						     NVME_TCP_F_DATA_SUCCESS),
			 32);
	assert_memory_equal(buf, want, 32);
	assert_int_equal(decode(&host, buf, 32, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.type, nvme_tcp_c2h_data);
	assert_int_equal(p.data_off, 24);
	assert_int_equal(p.data_len, 8);
	/* SUCCESS without LAST, or from a host, is no valid PDU */
	assert_int_equal(nvme_tcp_build_data(&ctrl, buf, sizeof(buf), 1, 0, 0,
					     data, 8, NVME_TCP_F_DATA_SUCCESS),
			 -EINVAL);
	assert_int_equal(nvme_tcp_build_data(&host, buf, sizeof(buf), 1, 0, 0,
					     data, 8,
					     NVME_TCP_F_DATA_LAST |
						     NVME_TCP_F_DATA_SUCCESS),
			 -EINVAL);
	assert_int_equal(nvme_tcp_build_data(&ctrl, buf, sizeof(buf), 1, 0, 0,
					     data, 0, 0),
			 -EINVAL);
}

static void test_h2c_data_bytes(void **state)
{
	struct nvme_tcp_conn host = conn(true, true, true);
	struct nvme_tcp_conn ctrl = peer(&host);
	const uint8_t data[4] = { 0xde, 0xad, 0xbe, 0xef };
	const uint8_t want[24] = {
		0x06, 0x07, 0x18, 0x1c,
		0x24, 0x00, 0x00, 0x00, /* CH */
		0x01, 0x00, 0x02, 0x00,
		0x00, 0x02, 0x00, 0x00, /* CCCID, TTAG */
		0x04, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, /* DATAL */
	};
	uint8_t buf[64];
	struct nvme_tcp_rx_pdu p;

	(void)state;
	/* both digests: HDGST at 24, data at 28, DDGST at 32; plen 36 */
	assert_int_equal(nvme_tcp_build_data(&host, buf, sizeof(buf), 1, 2,
					     0x200, data, 4,
					     NVME_TCP_F_DATA_LAST),
			 36);
	assert_memory_equal(buf, want, 24);
	assert_int_equal(nvme_get_le32(buf + 24), mqblk_crc32c(want, 24));
	assert_memory_equal(buf + 28, data, 4);
	assert_int_equal(nvme_get_le32(buf + 32), mqblk_crc32c(data, 4));
	assert_int_equal(decode(&ctrl, buf, 36, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.type, nvme_tcp_h2c_data);
	assert_int_equal(p.data_off, 28);
	assert_int_equal(p.data_len, 4);
	/* header only: PDO bytes, the caller adds data and digest */
	assert_int_equal(nvme_tcp_build_data(&host, buf, 28, 1, 2, 0x200, NULL,
					     4, 0),
			 28);
	nvme_tcp_put_ddgst(buf + 32, data, 4);
	memcpy(buf + 28, data, 4);
	assert_int_equal(decode(&ctrl, buf, 36, &p), NVME_TCP_RX_OK);
}

static void test_r2t_bytes(void **state)
{
	struct nvme_tcp_conn ctrl = conn(false, false, false);
	struct nvme_tcp_conn host = peer(&ctrl);
	const uint8_t want[24] = {
		0x09, 0x00, 0x18, 0x00,
		0x18, 0x00, 0x00, 0x00, /* CH */
		0x07, 0x00, 0x03, 0x00,
		0x00, 0x00, 0x00, 0x00, /* CCCID, TTAG */
		0x00, 0x80, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, /* R2TL */
	};
	uint8_t buf[64];
	struct nvme_tcp_rx_pdu p;

	(void)state;
	assert_int_equal(nvme_tcp_build_r2t(&ctrl, buf, sizeof(buf), 7, 3, 0,
					    0x8000),
			 24);
	assert_memory_equal(buf, want, 24);
	assert_int_equal(decode(&host, buf, 24, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.type, nvme_tcp_r2t);
	assert_int_equal(nvme_tcp_build_r2t(&ctrl, buf, sizeof(buf), 7, 3, 0,
					    0),
			 -EINVAL);
	assert_int_equal(nvme_tcp_build_r2t(&ctrl, buf, sizeof(buf), 7, 3,
					    0xfffff000, 0x2000),
			 -EINVAL);
}

static void test_term_bytes(void **state)
{
	struct nvme_tcp_conn ctrl = conn(false, true, true);
	struct nvme_tcp_conn host = peer(&ctrl);
	uint8_t bad[200], buf[256];
	const uint8_t want[24] = {
		0x03, 0x00, 0x18, 0x00, 0x98, 0x00, 0x00, 0x00, /* CH, 152 */
		0x01, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, /* FES, FEI */
	};
	struct nvme_tcp_rx_pdu p;

	(void)state;
	memset(bad, 0xab, sizeof(bad));
	/* Invalid PDU Header Field at byte 4 (PLEN); never digests; the
	 * offending header, cut at 128 bytes */
	assert_int_equal(nvme_tcp_build_term(&ctrl, buf, sizeof(buf),
					     NVME_TCP_FES_INVALID_PDU_HDR, 4,
					     bad, sizeof(bad)),
			 152);
	assert_memory_equal(buf, want, 24);
	assert_memory_equal(buf + 24, bad, 128);
	assert_int_equal(decode(&host, buf, 152, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.type, nvme_tcp_c2h_term);
	assert_int_equal(p.data_off, 24);
	assert_int_equal(p.data_len, 128);
	/* an H2CTermReq from the host, before any IC exchange */
	host.ic_done = false;
	ctrl.ic_done = false;
	assert_int_equal(nvme_tcp_build_term(&host, buf, sizeof(buf),
					     NVME_TCP_FES_PDU_SEQ_ERR, 0, NULL,
					     0),
			 24);
	assert_int_equal(buf[0], nvme_tcp_h2c_term);
	assert_int_equal(decode(&ctrl, buf, 24, &p), NVME_TCP_RX_OK);
	assert_int_equal(nvme_get_le16(buf + 8), NVME_TCP_FES_PDU_SEQ_ERR);
	assert_int_equal(nvme_tcp_build_term(&host, buf, 23, 1, 0, NULL, 0),
			 -ENOSPC);
}

/* ---- Decoder refusals ---------------------------------------------------- */

static void test_rx_truncated(void **state)
{
	struct nvme_tcp_conn host = conn(true, true, true);
	struct nvme_tcp_conn ctrl = peer(&host);
	union nvme_command cmd = read_cmd();
	uint8_t data[100], buf[256];
	struct nvme_tcp_rx_pdu p;
	ssize_t n;

	(void)state;
	memset(data, 0x5a, sizeof(data));
	n = nvme_tcp_build_cmd(&host, buf, sizeof(buf), &cmd, data, 100);
	assert_int_equal(n, 76 + 100 + 4);
	/* the common header, then the header and its digest, then all */
	for (size_t len = 0; len < (size_t)n; len++) {
		size_t want = len < 8 ? 8 : len < 76 ? 76 : (size_t)n;

		assert_int_equal(decode(&ctrl, buf, len, &p), NVME_TCP_RX_MORE);
		assert_int_equal(p.need, want);
	}
	assert_int_equal(decode(&ctrl, buf, (size_t)n, &p), NVME_TCP_RX_OK);
	/* the header alone is enough for nvme_tcp_rx_header */
	assert_int_equal(nvme_tcp_rx_header(&ctrl, buf, 76, &p),
			 NVME_TCP_RX_OK);
	assert_int_equal(p.data_off, 76);
	assert_int_equal(p.data_len, 100);
}

static void test_rx_bad_common(void **state)
{
	struct nvme_tcp_conn host = conn(true, false, false);
	struct nvme_tcp_conn ctrl = peer(&host);
	union nvme_command cmd = read_cmd();
	uint8_t buf[256];
	struct nvme_completion cqe = { 0 };

	(void)state;
	/* unknown type, and a type of the other direction */
	nvme_tcp_build_cmd(&host, buf, sizeof(buf), &cmd, NULL, 0);
	buf[0] = 0x08;
	expect_fatal(&ctrl, buf, 72, NVME_TCP_FES_INVALID_PDU_HDR, 0);
	buf[0] = 0xff;
	expect_fatal(&ctrl, buf, 72, NVME_TCP_FES_INVALID_PDU_HDR, 0);
	buf[0] = nvme_tcp_cmd;
	expect_fatal(&host, buf, 72, NVME_TCP_FES_INVALID_PDU_HDR, 0);
	nvme_tcp_build_rsp(&ctrl, buf, sizeof(buf), &cqe);
	expect_fatal(&ctrl, buf, 24, NVME_TCP_FES_INVALID_PDU_HDR, 0);

	/* wrong hlen */
	nvme_tcp_build_cmd(&host, buf, sizeof(buf), &cmd, NULL, 0);
	buf[2] = 24;
	expect_fatal(&ctrl, buf, 72, NVME_TCP_FES_INVALID_PDU_HDR, 2);
	/* plen below hlen, and a CapsuleResp with a tail */
	buf[2] = 72;
	nvme_put_le32(buf + 4, 71);
	expect_fatal(&ctrl, buf, 72, NVME_TCP_FES_INVALID_PDU_HDR, 4);
	nvme_tcp_build_rsp(&ctrl, buf, sizeof(buf), &cqe);
	nvme_put_le32(buf + 4, 28);
	expect_fatal(&host, buf, 28, NVME_TCP_FES_INVALID_PDU_HDR, 4);
	/* plen beyond what the receiver takes: refused after 8 bytes */
	ctrl.max_plen = 8192;
	nvme_tcp_build_cmd(&host, buf, sizeof(buf), &cmd, buf + 128, 16);
	nvme_put_le32(buf + 4, 0xffffffff);
	expect_fatal(&ctrl, buf, 8, NVME_TCP_FES_DATA_LIMIT_EXCEEDED, 0);
	/* flags a type may not carry: LAST on a CapsuleResp, any on a
	 * TermReq; a PDO on a PDU without data */
	nvme_tcp_build_rsp(&ctrl, buf, sizeof(buf), &cqe);
	buf[1] = NVME_TCP_F_DATA_LAST;
	expect_fatal(&host, buf, 24, NVME_TCP_FES_INVALID_PDU_HDR, 1);
	buf[1] = 0;
	buf[3] = 24;
	expect_fatal(&host, buf, 24, NVME_TCP_FES_INVALID_PDU_HDR, 3);
	nvme_tcp_build_term(&ctrl, buf, sizeof(buf), 1, 0, NULL, 0);
	buf[1] = 0x10;
	expect_fatal(&host, buf, 24, NVME_TCP_FES_INVALID_PDU_HDR, 1);
	/* two bad fields: the lowest offset is the one reported */
	nvme_tcp_build_rsp(&ctrl, buf, sizeof(buf), &cqe);
	buf[2] = 25;
	nvme_put_le32(buf + 4, 7);
	expect_fatal(&host, buf, 24, NVME_TCP_FES_INVALID_PDU_HDR, 2);
	buf[1] = 0x80;
	expect_fatal(&host, buf, 24, NVME_TCP_FES_INVALID_PDU_HDR, 1);
	/* a TermReq longer than 152 bytes */
	nvme_tcp_build_term(&ctrl, buf, sizeof(buf), 1, 0, NULL, 0);
	nvme_put_le32(buf + 4, 153);
	expect_fatal(&host, buf, 8, NVME_TCP_FES_INVALID_PDU_HDR, 4);
}

static void test_rx_sequence(void **state)
{
	struct nvme_tcp_conn host = conn(true, false, false);
	struct nvme_tcp_conn ctrl = peer(&host);
	union nvme_command cmd = read_cmd();
	uint8_t buf[256];

	(void)state;
	/* a data PDU (or any but IC/TermReq) before the IC exchange */
	nvme_tcp_build_data(&host, buf, sizeof(buf), 1, 1, 0, "abcd", 4, 0);
	ctrl.ic_done = false;
	expect_fatal(&ctrl, buf, 28, NVME_TCP_FES_PDU_SEQ_ERR, 0);
	nvme_tcp_build_cmd(&host, buf, sizeof(buf), &cmd, NULL, 0);
	expect_fatal(&ctrl, buf, 72, NVME_TCP_FES_PDU_SEQ_ERR, 0);
	/* a second ICReq */
	ctrl.ic_done = true;
	nvme_tcp_build_icreq(buf, sizeof(buf), 0, 0, 0);
	expect_fatal(&ctrl, buf, 128, NVME_TCP_FES_PDU_SEQ_ERR, 0);
}

static void test_rx_bad_ic(void **state)
{
	struct nvme_tcp_conn host = { .host = true };
	struct nvme_tcp_conn ctrl = { .host = false };
	uint8_t buf[128];

	(void)state;
	nvme_tcp_build_icreq(buf, sizeof(buf), 0, 0, 0);
	buf[8] = 1; /* PFV */
	expect_fatal(&ctrl, buf, 128, NVME_TCP_FES_UNSUPPORTED_PARAM, 8);
	buf[8] = 0;
	buf[10] = 32; /* HPDA */
	expect_fatal(&ctrl, buf, 128, NVME_TCP_FES_INVALID_PDU_HDR, 10);
	buf[10] = 0;
	buf[1] = NVME_TCP_F_HDGST; /* no digests on IC */
	expect_fatal(&ctrl, buf, 128, NVME_TCP_FES_INVALID_PDU_HDR, 1);
	buf[1] = 0;
	nvme_put_le32(buf + 4, 132);
	expect_fatal(&ctrl, buf, 128, NVME_TCP_FES_INVALID_PDU_HDR, 4);

	nvme_tcp_build_icresp(buf, sizeof(buf), 0, 0, 4096);
	nvme_put_le32(buf + 12, 4095);
	expect_fatal(&host, buf, 128, NVME_TCP_FES_INVALID_PDU_HDR, 12);
	nvme_put_le32(buf + 12, 8190);
	expect_fatal(&host, buf, 128, NVME_TCP_FES_INVALID_PDU_HDR, 12);
}

static void test_rx_digests(void **state)
{
	struct nvme_tcp_conn ctrl = conn(false, true, true);
	struct nvme_tcp_conn host = peer(&ctrl);
	struct nvme_tcp_rx_pdu p;
	uint8_t data[64], buf[256];
	ssize_t n;

	(void)state;
	memset(data, 0x11, sizeof(data));
	n = nvme_tcp_build_data(&ctrl, buf, sizeof(buf), 9, 0, 0, data, 64,
				NVME_TCP_F_DATA_LAST);
	assert_int_equal(n, 28 + 64 + 4);
	assert_int_equal(decode(&host, buf, (size_t)n, &p), NVME_TCP_RX_OK);

	/* a flipped data byte: the PDU stands, its data does not */
	buf[40] ^= 1;
	assert_int_equal(decode(&host, buf, (size_t)n, &p),
			 NVME_TCP_RX_DDGST_ERR);
	assert_int_equal(p.plen, n);
	buf[40] ^= 1;
	/* a flipped header byte, or digest byte: fatal */
	buf[12] ^= 1;
	expect_fatal(&host, buf, (size_t)n, NVME_TCP_FES_HDR_DIGEST_ERR, 0);
	buf[12] ^= 1;
	buf[25] ^= 0x80;
	expect_fatal(&host, buf, (size_t)n, NVME_TCP_FES_HDR_DIGEST_ERR, 0);
	buf[25] ^= 0x80;

	/* digest flags must be what was negotiated (header digest made
	 * good again, so the flag itself is what fails) */
	buf[1] &= (uint8_t)~NVME_TCP_F_DDGST;
	nvme_put_le32(buf + 24, mqblk_crc32c(buf, 24));
	expect_fatal(&host, buf, (size_t)n, NVME_TCP_FES_INVALID_PDU_HDR, 1);
	host.ddgst = false;
	buf[1] |= NVME_TCP_F_DDGST;
	nvme_put_le32(buf + 24, mqblk_crc32c(buf, 24));
	expect_fatal(&host, buf, (size_t)n, NVME_TCP_FES_INVALID_PDU_HDR, 1);
	host.hdgst = false;
	expect_fatal(&host, buf, (size_t)n, NVME_TCP_FES_INVALID_PDU_HDR, 1);
}

static void test_rx_bad_data(void **state)
{
	struct nvme_tcp_conn host = conn(true, false, false);
	struct nvme_tcp_conn ctrl = peer(&host);
	union nvme_command cmd = read_cmd();
	struct nvme_tcp_rx_pdu p;
	uint8_t data[32], buf[256];
	ssize_t n;

	(void)state;
	memset(data, 0x22, sizeof(data));
	n = nvme_tcp_build_data(&host, buf, sizeof(buf), 1, 1, 0, data, 32, 0);
	assert_int_equal(n, 56);

	/* PDO inside the header, off the dword grid (PDA 0 is one dword),
	 * beyond plen; 0 although there is data */
	buf[3] = 20;
	expect_fatal(&ctrl, buf, 56, NVME_TCP_FES_INVALID_PDU_HDR, 3);
	buf[3] = 26;
	expect_fatal(&ctrl, buf, 56, NVME_TCP_FES_INVALID_PDU_HDR, 3);
	buf[3] = 60;
	expect_fatal(&ctrl, buf, 56, NVME_TCP_FES_INVALID_PDU_HDR, 3);
	buf[3] = 0;
	expect_fatal(&ctrl, buf, 56, NVME_TCP_FES_INVALID_PDU_HDR, 3);
	/* more padding than needed is allowed: the PDO says where data is */
	buf[3] = 28;
	nvme_put_le32(buf + 16, 28);
	assert_int_equal(decode(&ctrl, buf, 56, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.data_off, 28);
	assert_int_equal(p.data_len, 28);
	nvme_put_le32(buf + 16, 32);
	buf[3] = 24;
	/* DATAL disagreeing with plen; zero DATAL and no data */
	nvme_put_le32(buf + 16, 31);
	expect_fatal(&ctrl, buf, 56, NVME_TCP_FES_INVALID_PDU_HDR, 16);
	nvme_put_le32(buf + 16, 0);
	nvme_put_le32(buf + 4, 24);
	expect_fatal(&ctrl, buf, 56, NVME_TCP_FES_INVALID_PDU_HDR, 3);
	buf[3] = 0;
	expect_fatal(&ctrl, buf, 56, NVME_TCP_FES_INVALID_PDU_HDR, 4);
	buf[3] = 24;
	nvme_put_le32(buf + 4, 56);
	nvme_put_le32(buf + 16, 32);
	/* an offset running past 4 GiB */
	nvme_put_le32(buf + 12, 0xfffffff0);
	expect_fatal(&ctrl, buf, 56, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0);
	nvme_put_le32(buf + 12, 0);
	/* more than MAXH2CDATA in one H2CData */
	ctrl.maxh2cdata = 16;
	expect_fatal(&ctrl, buf, 56, NVME_TCP_FES_DATA_LIMIT_EXCEEDED, 0);
	ctrl.maxh2cdata = 8192;

	/* with CPDA 7 (32-byte alignment) data must start at 32 */
	host.tx_pda = 7;
	ctrl.rx_pda = 7;
	n = nvme_tcp_build_data(&host, buf, sizeof(buf), 1, 1, 0, data, 32, 0);
	assert_int_equal(n, 64);
	assert_int_equal(buf[3], 32);
	assert_int_equal(decode(&ctrl, buf, 64, &p), NVME_TCP_RX_OK);
	buf[3] = 24; /* unaligned */
	expect_fatal(&ctrl, buf, 64, NVME_TCP_FES_INVALID_PDU_HDR, 3);
	buf[3] = 96; /* past plen */
	expect_fatal(&ctrl, buf, 64, NVME_TCP_FES_INVALID_PDU_HDR, 3);

	/* C2HData: SUCCESS without LAST */
	host.rx_pda = 0;
	ctrl.tx_pda = 0;
	n = nvme_tcp_build_data(&ctrl, buf, sizeof(buf), 1, 0, 0, data, 32,
				NVME_TCP_F_DATA_LAST);
	buf[1] = NVME_TCP_F_DATA_SUCCESS;
	expect_fatal(&host, buf, (size_t)n, NVME_TCP_FES_INVALID_PDU_HDR, 1);

	/* R2T for zero bytes, and one past 4 GiB */
	nvme_tcp_build_r2t(&ctrl, buf, sizeof(buf), 1, 1, 0, 4096);
	nvme_put_le32(buf + 16, 0);
	expect_fatal(&host, buf, 24, NVME_TCP_FES_INVALID_PDU_HDR, 16);
	nvme_put_le32(buf + 16, 4096);
	nvme_put_le32(buf + 12, 0xfffff001);
	expect_fatal(&host, buf, 24, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0);

	/* a CapsuleCmd announcing a data digest but carrying no data */
	nvme_tcp_build_cmd(&host, buf, sizeof(buf), &cmd, NULL, 0);
	buf[1] = NVME_TCP_F_DDGST;
	expect_fatal(&ctrl, buf, 72, NVME_TCP_FES_INVALID_PDU_HDR, 1);
}

static void test_data_range(void **state)
{
	(void)state;
	assert_int_equal(nvme_tcp_check_data_range(0, 4096, 0, 8192), 0);
	assert_int_equal(nvme_tcp_check_data_range(4096, 4096, 4096, 8192), 0);
	assert_int_equal(nvme_tcp_check_data_range(4096, 4097, 4096, 8192),
			 NVME_TCP_FES_DATA_OUT_OF_RANGE);
	assert_int_equal(nvme_tcp_check_data_range(0, 4096, 4096, 8192),
			 NVME_TCP_FES_DATA_OUT_OF_RANGE);
	assert_int_equal(nvme_tcp_check_data_range(8192, 1, 8192, 8192),
			 NVME_TCP_FES_DATA_OUT_OF_RANGE);
	assert_int_equal(nvme_tcp_check_data_range(0, 9000, 0, 8192),
			 NVME_TCP_FES_DATA_OUT_OF_RANGE);
}

/* ---- The Linux kernel's traffic -------------------------------------------- */

struct stream {
	uint8_t *b;
	size_t len;
};

static struct stream load(const char *name)
{
	const char *dir = getenv("MQBLK_NVME_VECTORS");
	struct stream s = { 0 };
	char path[1024];
	FILE *f;
	long n;

	if (!dir)
		dir = "tests/nvme/vectors";
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	s.len = (size_t)n;
	s.b = malloc(s.len);
	assert_non_null(s.b);
	assert_int_equal(fread(s.b, 1, s.len, f), s.len);
	fclose(f);
	return s;
}

struct replay_counts {
	unsigned pdus[10];
	unsigned incapsule; /* CapsuleCmds with data */
	unsigned data_bytes;
};

/* Decode a whole stream PDU by PDU, as one end receives it */
static void replay(struct nvme_tcp_conn *c, const struct stream *s,
		   struct replay_counts *rc)
{
	struct nvme_tcp_rx_pdu p;
	size_t off = 0;

	memset(rc, 0, sizeof(*rc));
	while (off < s->len) {
		int ret = decode(c, s->b + off, s->len - off, &p);

		if (ret != NVME_TCP_RX_OK)
			fail_msg("offset %zu: result %d type %u fes %u fei %u",
				 off, ret, p.type, p.fes, p.fei);
		assert_true(p.type < 10);
		rc->pdus[p.type]++;
		if (p.type == nvme_tcp_cmd && p.data_len)
			rc->incapsule++;
		rc->data_bytes += p.data_len;
		off += p.plen;
	}
	assert_int_equal(off, s->len);
}

static void replay_run(const char *name, bool digests, unsigned nr_r2t,
		       struct stream *h2c_out)
{
	char hname[64], cname[64];
	struct nvme_tcp_conn host = { .host = true };
	struct nvme_tcp_conn ctrl = { .host = false };
	struct replay_counts rh, rc;
	struct stream h2c, c2h, h, c;
	struct nvme_tcp_rx_pdu p;

	snprintf(hname, sizeof(hname), "%s.h2c", name);
	snprintf(cname, sizeof(cname), "%s.c2h", name);
	h2c = load(hname);
	c2h = load(cname);
	host.max_plen = ctrl.max_plen = 1u << 20;
	/* each end decodes the IC PDU it receives, then applies both */
	assert_int_equal(decode(&ctrl, h2c.b, h2c.len, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.type, nvme_tcp_icreq);
	assert_int_equal(decode(&host, c2h.b, c2h.len, &p), NVME_TCP_RX_OK);
	assert_int_equal(p.type, nvme_tcp_icresp);
	assert_int_equal(nvme_tcp_conn_establish(&host, h2c.b, c2h.b), 0);
	assert_int_equal(nvme_tcp_conn_establish(&ctrl, h2c.b, c2h.b), 0);
	assert_int_equal(host.hdgst, digests);
	assert_int_equal(host.ddgst, digests);
	assert_int_equal(host.maxh2cdata, 0x400000);
	h = (struct stream){ h2c.b + 128, h2c.len - 128 };
	c = (struct stream){ c2h.b + 128, c2h.len - 128 };
	replay(&ctrl, &h, &rh);
	replay(&host, &c, &rc);
	/* every command got its response; R2Ts answered by H2CData */
	assert_int_equal(rh.pdus[nvme_tcp_cmd], rc.pdus[nvme_tcp_rsp]);
	assert_int_equal(rc.pdus[nvme_tcp_r2t], nr_r2t);
	assert_true(rh.pdus[nvme_tcp_h2c_data] >= nr_r2t);
	assert_true(rh.incapsule >= 1); /* at least the Connect's data */
	if (h2c_out)
		*h2c_out = h2c;
	else
		free(h2c.b);
	free(c2h.b);
}

static void test_kernel_plain(void **state)
{
	struct stream s;
	const uint8_t *b;

	(void)state;
	replay_run("plain.c0", false, 0, NULL);
	replay_run("plain.c1", false, 0, NULL);
	replay_run("plain.c2", false, 2, NULL);

	/* the first command on the admin queue: Fabrics Connect, QID 0,
	 * its 1024 bytes in the capsule right after the header */
	replay_run("plain.c1", false, 0, &s);
	b = s.b + 128;
	assert_int_equal(b[0], nvme_tcp_cmd);
	assert_int_equal(b[3], 72);
	assert_int_equal(nvme_get_le32(b + 4), 72 + 1024);
	assert_int_equal(b[8], nvme_fabrics_command);
	assert_int_equal(b[8 + 4], nvme_fabrics_type_connect);
	assert_int_equal(nvme_get_le16(b + 8 + 42), 0);
	assert_int_equal(b[8 + 39], NVME_SGL_TCP_INCAPSULE);
	assert_int_equal(nvme_get_le32(b + 8 + 32), 1024);
	assert_int_equal(nvme_get_le16(b + 72 + 16), NVME_CNTLID_DYNAMIC);
	assert_string_equal((const char *)b + 72 + 256,
			    "nqn.2026-01.io.example:test");
	assert_memory_equal(b + 72 + 512,
			    "nqn.2014-08.org.nvmexpress:uuid:", 32);
	free(s.b);
}

static void test_kernel_digest(void **state)
{
	(void)state;
	replay_run("digest.c0", true, 0, NULL);
	replay_run("digest.c1", true, 2, NULL);
}

/* Every prefix of a real stream asks for more, never fails */
static void test_kernel_streaming(void **state)
{
	struct stream s = load("plain.c0.h2c");
	struct nvme_tcp_conn ctrl = { .host = false };
	struct nvme_tcp_rx_pdu p;
	size_t off = 0;

	(void)state;
	while (off < s.len) {
		size_t len = 0;
		int ret;

		while ((ret = decode(&ctrl, s.b + off, len, &p)) ==
		       NVME_TCP_RX_MORE) {
			assert_true(p.need > len);
			assert_true(off + p.need <= s.len);
			len = p.need;
		}
		assert_int_equal(ret, NVME_TCP_RX_OK);
		if (!ctrl.ic_done) {
			uint8_t rsp[128];

			nvme_tcp_build_icresp(rsp, sizeof(rsp), 0, 0, 0x400000);
			assert_int_equal(
				nvme_tcp_conn_establish(&ctrl, s.b, rsp), 0);
		}
		off += p.plen;
	}
	free(s.b);
}

/* A stream of PDUs through the receive stepper: a C2HData (padded to the
 * host's PDA, both digests), a CapsuleResp, a C2HData whose data digest
 * is wrong, then a header that fails: fed whole, in odd chunks, and a
 * byte at a time; and with the data received straight to its place. */
struct step_run {
	unsigned hdrs, datas, bad_digests, bad;
	uint8_t types[8];
};

static void step_stream(const struct nvme_tcp_conn *host, const uint8_t *s,
			uint32_t len, uint32_t chunk, bool direct, uint8_t *dst,
			struct step_run *run)
{
	struct nvme_tcp_rx_state rx;
	uint32_t have = 0, pos = 0, dst_off = 0;

	nvme_tcp_rx_reset(&rx);
	memset(run, 0, sizeof(*run));
	for (;;) {
		uint32_t used, want;
		uint8_t *to;
		bool ok;
		enum nvme_tcp_rx_event ev;

		to = direct ? nvme_tcp_rx_direct(&rx, &want) : NULL;
		if (to && pos == have && have < len) {
			/* straight from the stream to the destination */
			uint32_t n = want < len - have ? want : len - have;

			memcpy(to, s + have, n);
			have += n;
			pos = have;
			nvme_tcp_rx_direct_done(&rx, n);
		}
		ev = nvme_tcp_rx_step(host, &rx, s + pos, have - pos, &used,
				      &ok);
		pos += used;
		if (ev == NVME_TCP_RXE_MORE) {
			if (have == len)
				return;
			have += chunk < len - have ? chunk : len - have;
			continue;
		}
		if (ev == NVME_TCP_RXE_BAD) {
			run->bad++;
			return;
		}
		if (ev == NVME_TCP_RXE_DATA) {
			run->datas++;
			run->bad_digests += !ok;
			continue;
		}
		run->types[run->hdrs++] = rx.pdu.type;
		if (rx.pdu.data_len) {
			nvme_tcp_rx_begin_data(&rx, dst + dst_off);
			dst_off += rx.pdu.data_len;
		}
	}
}

/* The stream test_rx_step and test_rx_staged feed: a padded C2HData of
 * dlen bytes with both digests, a CapsuleResp, a C2HData of 100 bytes
 * with a wrong data digest, 8 bytes of no PDU. Returns its length. */
static uint32_t rx_stream(struct nvme_tcp_conn *host, uint8_t *stream,
			  size_t size, uint8_t *data, size_t dlen)
{
	struct nvme_tcp_conn ctrl = conn(false, true, true);
	struct nvme_completion cqe;
	uint32_t len, i;
	ssize_t n;

	ctrl.tx_pda = 1; /* data 8-byte aligned: header 24 + 4 pads to 32 */
	*host = peer(&ctrl);
	for (i = 0; i < dlen; i++)
		data[i] = (uint8_t)(i * 7 + 3);
	n = nvme_tcp_build_data(&ctrl, stream, size, 1, 0, 0, NULL,
				(uint32_t)dlen, NVME_TCP_F_DATA_LAST);
	assert_true(n > 0);
	/* the header (and padding) only: data and digest follow */
	len = (uint32_t)n;
	memcpy(stream + len, data, dlen);
	len += (uint32_t)dlen;
	nvme_tcp_put_ddgst(stream + len, data, dlen);
	len += 4;
	memset(&cqe, 0, sizeof(cqe));
	n = nvme_tcp_build_rsp(&ctrl, stream + len, size - len, &cqe);
	assert_true(n > 0);
	len += (uint32_t)n;
	n = nvme_tcp_build_data(&ctrl, stream + len, size - len, 2, 0, 0, NULL,
				100, NVME_TCP_F_DATA_LAST);
	assert_true(n > 0);
	len += (uint32_t)n;
	memcpy(stream + len, data, 100);
	len += 100;
	nvme_tcp_put_ddgst(stream + len, data, 100);
	stream[len] ^= 1; /* the wrong digest */
	len += 4;
	memset(stream + len, 0xee, 8); /* no PDU type */
	len += 8;
	return len;
}

static void test_rx_step(void **state)
{
	struct nvme_tcp_conn host;
	static uint8_t stream[32768], data[5000], got[16384];
	const uint32_t chunks[] = { 1, 7, 4096, sizeof(stream) };
	uint32_t len, i, c;

	(void)state;
	len = rx_stream(&host, stream, sizeof(stream), data, sizeof(data));
	for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		for (i = 0; i < 2; i++) {
			struct step_run run;

			memset(got, 0, sizeof(got));
			step_stream(&host, stream, len, chunks[c], i, got,
				    &run);
			assert_int_equal(run.hdrs, 3);
			assert_int_equal(run.types[0], nvme_tcp_c2h_data);
			assert_int_equal(run.types[1], nvme_tcp_rsp);
			assert_int_equal(run.types[2], nvme_tcp_c2h_data);
			assert_int_equal(run.datas, 2);
			assert_int_equal(run.bad_digests, 1);
			assert_int_equal(run.bad, 1);
			assert_memory_equal(got, data, sizeof(data));
			assert_memory_equal(got + sizeof(data), data, 100);
		}
	}
}

/* The same stream through the staging buffer (nvme_tcp_rx_room/got/next),
 * with 12000 bytes in the first C2HData, "received" in chunks of 1, 7,
 * 3000 and all it takes: big data goes straight to its place, the rest
 * is staged, and the events and data are as stepping them says. */
static void test_rx_staged(void **state)
{
	struct nvme_tcp_conn host;
	static uint8_t stream[32768], data[12000], got[16384];
	const uint32_t chunks[] = { 1, 7, 3000, sizeof(stream) };
	uint32_t len, c;

	(void)state;
	len = rx_stream(&host, stream, sizeof(stream), data, sizeof(data));
	for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		struct nvme_tcp_rx_state rx;
		unsigned hdrs = 0, datas = 0, bad_digests = 0, bad = 0;
		unsigned directs = 0;
		uint32_t pos = 0, dst_off = 0;

		assert_int_equal(nvme_tcp_rx_init(&rx, 4096), 0);
		memset(got, 0, sizeof(got));
		while (!bad) {
			const uint8_t *at;
			uint32_t avail, room, n;
			bool ok, direct;
			uint8_t *to;

			switch (nvme_tcp_rx_next(&host, &rx, &at, &avail,
						 &ok)) {
			case NVME_TCP_RXE_HDR:
				assert_int_equal(at[0], rx.pdu.type);
				hdrs++;
				if (rx.pdu.data_len) {
					nvme_tcp_rx_begin_data(&rx,
							       got + dst_off);
					dst_off += rx.pdu.data_len;
				}
				continue;
			case NVME_TCP_RXE_DATA:
				datas++;
				bad_digests += !ok;
				continue;
			case NVME_TCP_RXE_BAD:
				assert_int_equal(at[0], 0xee);
				assert_int_equal(avail, 8);
				bad++;
				continue;
			case NVME_TCP_RXE_MORE:
				break;
			}
			assert_true(pos < len);
			to = nvme_tcp_rx_room(&rx, &room, &direct);
			assert_true(room > 0);
			n = chunks[c] < room ? chunks[c] : room;
			if (n > len - pos)
				n = len - pos;
			memcpy(to, stream + pos, n);
			pos += n;
			directs += direct;
			nvme_tcp_rx_got(&rx, n, direct);
		}
		assert_int_equal(hdrs, 3);
		assert_int_equal(datas, 2);
		assert_int_equal(bad_digests, 1);
		assert_int_equal(pos, len);
		assert_memory_equal(got, data, sizeof(data));
		assert_memory_equal(got + sizeof(data), data, 100);
		/* past the first staged bytes, the 12000 bytes' data goes
		 * straight to its place (more than 4 KiB of it wanted) */
		assert_true(directs > 0);
		nvme_tcp_rx_free(&rx);
	}
}

/* ---- NVMe/RDMA: CM private data and data pointers ---------------------- */

static void test_rdma_cm_req(void **state)
{
	struct nvme_rdma_cm_req req;
	struct nvme_rdma_conn_params cp;
	uint8_t padded[56] = { 0 };
	const uint8_t *b = (const uint8_t *)&req;

	(void)state;
	/* what the kernel host sends for I/O queue 1 of 128 entries */
	nvme_rdma_cm_req_fill(&req, 1, 128, 127, 0xffff);
	assert_int_equal(b[0] | b[1] << 8, 0);
	assert_int_equal(b[2] | b[3] << 8, 1);
	assert_int_equal(b[4] | b[5] << 8, 128);
	assert_int_equal(b[6] | b[7] << 8, 127);
	assert_int_equal(b[8] | b[9] << 8, 0xffff);
	memcpy(padded, &req, sizeof(req));
	assert_int_equal(
		nvme_rdma_cm_req_check(padded, sizeof(padded), 4, 128, &cp), 0);
	assert_int_equal(cp.qid, 1);
	assert_int_equal(cp.sq_entries, 128);
	assert_int_equal(cp.hrqsize, 128);
	assert_int_equal(cp.cntlid, 0xffff);

	/* each reject the binding names */
	assert_int_equal(nvme_rdma_cm_req_check(&req, 31, 4, 128, &cp),
			 NVME_RDMA_CM_INVALID_LEN);
	assert_int_equal(nvme_rdma_cm_req_check(NULL, 0, 4, 128, &cp),
			 NVME_RDMA_CM_INVALID_LEN);
	req.recfmt = cpu_to_le16(1);
	assert_int_equal(nvme_rdma_cm_req_check(&req, 32, 4, 128, &cp),
			 NVME_RDMA_CM_INVALID_RECFMT);
	nvme_rdma_cm_req_fill(&req, 5, 128, 127, 0xffff);
	assert_int_equal(nvme_rdma_cm_req_check(&req, 32, 4, 128, &cp),
			 NVME_RDMA_CM_INVALID_QID);
	nvme_rdma_cm_req_fill(&req, 1, 256, 255, 0xffff);
	assert_int_equal(nvme_rdma_cm_req_check(&req, 32, 4, 128, &cp),
			 NVME_RDMA_CM_INVALID_HSQSIZE);
	nvme_rdma_cm_req_fill(&req, 1, 2, 0, 0xffff);
	assert_int_equal(nvme_rdma_cm_req_check(&req, 32, 4, 128, &cp),
			 NVME_RDMA_CM_INVALID_HSQSIZE);
	/* the admin queue: 32 entries at most, whatever I/O queues take */
	nvme_rdma_cm_req_fill(&req, 0, 32, 31, 0);
	assert_int_equal(nvme_rdma_cm_req_check(&req, 32, 4, 128, &cp), 0);
	nvme_rdma_cm_req_fill(&req, 0, 64, 63, 0);
	assert_int_equal(nvme_rdma_cm_req_check(&req, 32, 4, 128, &cp),
			 NVME_RDMA_CM_INVALID_HSQSIZE);
	nvme_rdma_cm_req_fill(&req, 1, 8, 127, 0xffff);
	assert_int_equal(nvme_rdma_cm_req_check(&req, 32, 4, 128, &cp),
			 NVME_RDMA_CM_INVALID_HRQSIZE);
	assert_string_equal(nvme_rdma_cm_msg(NVME_RDMA_CM_INVALID_HRQSIZE),
			    "invalid HRQSIZE");
}

static void test_rdma_cm_rep_rej(void **state)
{
	struct nvme_rdma_cm_rep rep;
	struct nvme_rdma_cm_rej rej;
	uint16_t crq = 0;
	uint8_t bad[4] = { 1, 0, 6, 0 };

	(void)state;
	nvme_rdma_cm_rep_fill(&rep, 128);
	assert_int_equal(nvme_rdma_cm_rep_parse(&rep, sizeof(rep), &crq), 0);
	assert_int_equal(crq, 128);
	assert_int_equal(nvme_rdma_cm_rep_parse(&rep, 3, &crq), -1);
	nvme_rdma_cm_rej_fill(&rej, NVME_RDMA_CM_NO_RSC);
	assert_int_equal(nvme_rdma_cm_rej_parse(&rej, sizeof(rej)),
			 NVME_RDMA_CM_NO_RSC);
	assert_int_equal(nvme_rdma_cm_rej_parse(&rej, 2), -1);
	assert_int_equal(nvme_rdma_cm_rej_parse(bad, sizeof(bad)), -1);
}

static void test_rdma_data(void **state)
{
	union nvme_command c;
	struct nvme_rdma_data d;
	const uint8_t *sgl = (const uint8_t *)&c.common.dptr;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.common.opcode = nvme_cmd_read;
	nvme_rdma_sgl_keyed(&c, 0x1122334455667788ull, 131072, 0xabcd1234,
			    true);
	assert_int_equal(c.common.flags & 0xc0, NVME_CMD_SGL_METABUF);
	assert_int_equal(sgl[8] | sgl[9] << 8 | sgl[10] << 16, 131072);
	assert_int_equal(sgl[15], 0x4f);
	assert_int_equal(nvme_rdma_data_parse(&c, 0, 4096, 131072, 1, &d), 0);
	assert_int_equal(d.kind, NVME_RDMA_DATA_KEYED);
	assert_int_equal(d.len, 131072);
	assert_true(d.invalidate);
	assert_true(d.addr == 0x1122334455667788ull);
	assert_int_equal(d.key, 0xabcd1234);
	/* past MDTS */
	assert_int_equal(nvme_rdma_data_parse(&c, 0, 4096, 65536, 1, &d),
			 NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	/* keyed data with bytes in the capsule too */
	assert_int_equal(nvme_rdma_data_parse(&c, 512, 4096, 131072, 1, &d),
			 NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	/* data for a command that moves none */
	assert_int_equal(nvme_rdma_data_parse(&c, 0, 4096, 131072, 0, &d),
			 NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	/* a zero-length keyed SGL: no data, whatever the direction */
	nvme_rdma_sgl_none(&c);
	assert_int_equal(sgl[15], 0x40);
	assert_int_equal(nvme_rdma_data_parse(&c, 0, 4096, 131072, 0, &d), 0);
	assert_int_equal(d.kind, NVME_RDMA_DATA_NONE);
	/* PRPs */
	c.common.flags &= (uint8_t)~0xc0;
	assert_int_equal(nvme_rdma_data_parse(&c, 0, 4096, 131072, 0, &d),
			 NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	/* an all-zero descriptor (subtype 0, type 0) is not one of ours */
	memset(&c, 0, sizeof(c));
	c.common.flags = NVME_CMD_SGL_METABUF;
	assert_int_equal(nvme_rdma_data_parse(&c, 0, 4096, 131072, 0, &d),
			 NVME_SC_SGL_INVALID_TYPE | NVME_SC_DNR);

	/* in-capsule: writes only, within what arrived and the queue's room */
	nvme_rdma_sgl_incapsule(&c, 4096);
	assert_int_equal(sgl[15], 0x01);
	assert_int_equal(nvme_rdma_data_parse(&c, 4096, 4096, 131072, 2, &d),
			 0);
	assert_int_equal(d.kind, NVME_RDMA_DATA_INCAPSULE);
	assert_int_equal(d.len, 4096);
	assert_int_equal(d.offset, 0);
	assert_int_equal(nvme_rdma_data_parse(&c, 4096, 4096, 131072, 1, &d),
			 NVME_SC_SGL_INVALID_TYPE | NVME_SC_DNR);
	assert_int_equal(nvme_rdma_data_parse(&c, 4096, 0, 131072, 2, &d),
			 NVME_SC_SGL_INVALID_TYPE | NVME_SC_DNR);
	assert_int_equal(nvme_rdma_data_parse(&c, 2048, 4096, 131072, 2, &d),
			 NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	assert_int_equal(nvme_rdma_data_parse(&c, 8192, 2048, 131072, 2, &d),
			 NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR);
	c.common.dptr.sgl.addr = cpu_to_le64(1ull << 40);
	assert_int_equal(nvme_rdma_data_parse(&c, 8192, 8192, 131072, 2, &d),
			 NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_ns_descs),
		cmocka_unit_test(test_icreq_bytes),
		cmocka_unit_test(test_icresp_bytes),
		cmocka_unit_test(test_establish),
		cmocka_unit_test(test_cmd_bytes),
		cmocka_unit_test(test_cmd_incapsule),
		cmocka_unit_test(test_rsp_bytes),
		cmocka_unit_test(test_c2h_data_bytes),
		cmocka_unit_test(test_h2c_data_bytes),
		cmocka_unit_test(test_r2t_bytes),
		cmocka_unit_test(test_term_bytes),
		cmocka_unit_test(test_rx_truncated),
		cmocka_unit_test(test_rx_bad_common),
		cmocka_unit_test(test_rx_sequence),
		cmocka_unit_test(test_rx_bad_ic),
		cmocka_unit_test(test_rx_digests),
		cmocka_unit_test(test_rx_bad_data),
		cmocka_unit_test(test_data_range),
		cmocka_unit_test(test_rx_step),
		cmocka_unit_test(test_rx_staged),
		cmocka_unit_test(test_kernel_plain),
		cmocka_unit_test(test_kernel_digest),
		cmocka_unit_test(test_kernel_streaming),
		cmocka_unit_test(test_rdma_cm_req),
		cmocka_unit_test(test_rdma_cm_rep_rej),
		cmocka_unit_test(test_rdma_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
