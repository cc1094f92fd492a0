// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the NVMe/TCP PDU decoder (src/nvme/tcp.c): the
 * input's first byte picks the receiving end's state, the rest is the byte
 * stream it receives, decoded PDU by PDU as a connection would.
 *
 * First byte: bit 0 host (else controller), bit 1 header digests, bit 2
 * data digests, bit 3 IC exchange already done, bits 5:4 our PDA (0, 1,
 * 3 or 7), bit 6 a 4 KiB bound on PDU length.
 *
 * Every answer must be consistent: MORE asks for bytes beyond what it was
 * given; OK and DDGST_ERR describe a PDU inside the bytes given, its data
 * inside it; FATAL names a defined status. Each accepted PDU is encoded
 * again from the decoded fields by the peer's encoder and must decode to
 * the same shape, so the encoders and the decoder agree. Each PDU's
 * data is also walked as an Identify namespace descriptor list.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvme/tcp.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[1 << 17];

/* The other end of c */
static struct nvme_tcp_conn peer_of(const struct nvme_tcp_conn *c)
{
	struct nvme_tcp_conn p = *c;

	p.host = !c->host;
	p.rx_pda = c->tx_pda;
	p.tx_pda = c->rx_pda;
	return p;
}

/* Encode pdu's content again as the peer would, decode it as c */
static void reencode(const struct nvme_tcp_conn *c, const uint8_t *pdu,
		     const struct nvme_tcp_rx_pdu *p)
{
	struct nvme_tcp_conn peer = peer_of(c);
	const uint8_t *data = p->data_len ? pdu + p->data_off : NULL;
	struct nvme_tcp_rx_pdu q;
	union nvme_command cmd;
	struct nvme_completion cqe;
	uint8_t flags;
	ssize_t n;
	int ret;

	switch (p->type) {
	case nvme_tcp_icreq:
		n = nvme_tcp_build_icreq(out, sizeof(out), pdu[10], pdu[11],
					 nvme_get_le32(pdu + 12));
		break;
	case nvme_tcp_icresp:
		n = nvme_tcp_build_icresp(out, sizeof(out), pdu[10], pdu[11],
					  nvme_get_le32(pdu + 12));
		break;
	case nvme_tcp_cmd:
		memcpy(&cmd, pdu + 8, sizeof(cmd));
		n = nvme_tcp_build_cmd(&peer, out, sizeof(out), &cmd, data,
				       p->data_len);
		break;
	case nvme_tcp_rsp:
		memcpy(&cqe, pdu + 8, sizeof(cqe));
		n = nvme_tcp_build_rsp(&peer, out, sizeof(out), &cqe);
		break;
	case nvme_tcp_h2c_data:
	case nvme_tcp_c2h_data:
		/* SUCCESS is a reserved bit in H2CData: not re-encoded */
		flags = p->flags & NVME_TCP_F_DATA_LAST;
		if (p->type == nvme_tcp_c2h_data)
			flags |= p->flags & NVME_TCP_F_DATA_SUCCESS;
		n = nvme_tcp_build_data(&peer, out, sizeof(out),
					nvme_get_le16(pdu + 8),
					nvme_get_le16(pdu + 10),
					nvme_get_le32(pdu + 12), data,
					p->data_len, flags);
		break;
	case nvme_tcp_r2t:
		n = nvme_tcp_build_r2t(&peer, out, sizeof(out),
				       nvme_get_le16(pdu + 8),
				       nvme_get_le16(pdu + 10),
				       nvme_get_le32(pdu + 12),
				       nvme_get_le32(pdu + 16));
		break;
	default:
		n = nvme_tcp_build_term(&peer, out, sizeof(out),
					nvme_get_le16(pdu + 8),
					nvme_get_le32(pdu + 10), data,
					p->data_len);
		break;
	}
	FUZZ_CHECK(n > 0);
	ret = nvme_tcp_rx_pdu(c, out, (size_t)n, &q);
	FUZZ_CHECK(ret == NVME_TCP_RX_OK);
	FUZZ_CHECK(q.plen == (uint64_t)n);
	FUZZ_CHECK(q.type == p->type);
	FUZZ_CHECK(q.data_len == p->data_len);
	FUZZ_CHECK(!q.data_len || !memcmp(out + q.data_off, data, q.data_len));
}

/* Walk data as an Identify CNS 03h descriptor list: every descriptor
 * returned lies inside it, and the walk moves forward */
static void walk_ns_descs(const uint8_t *data, size_t len)
{
	const uint8_t *id;
	uint8_t nidt, nidl;
	size_t off = 0, prev;
	int ret;

	for (;;) {
		prev = off;
		ret = nvme_ns_desc_next(data, len, &off, &nidt, &id, &nidl);
		if (ret <= 0) {
			FUZZ_CHECK(ret == 0 || ret == -EBADMSG);
			FUZZ_CHECK(off == prev);
			return;
		}
		FUZZ_CHECK(nidt && nidl);
		FUZZ_CHECK(off == prev + 4 + nidl && off <= len);
		FUZZ_CHECK(id == data + prev + 4);
	}
}

/* After an accepted ICReq/ICResp: apply it with a matching counterpart */
static void establish(struct nvme_tcp_conn *c, const uint8_t *pdu)
{
	uint8_t other[128];
	int ret;

	if (c->host) {
		/* we asked for exactly what was granted */
		nvme_tcp_build_icreq(other, sizeof(other), c->rx_pda, pdu[11],
				     0);
		ret = nvme_tcp_conn_establish(c, other, pdu);
	} else {
		/* grant what was asked for; keep our own PDA */
		nvme_tcp_build_icresp(other, sizeof(other), c->rx_pda, pdu[11],
				      8192);
		ret = nvme_tcp_conn_establish(c, pdu, other);
	}
	FUZZ_CHECK(ret == 0);
	FUZZ_CHECK(c->ic_done);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t pdas[4] = { 0, 1, 3, 7 };
	struct nvme_tcp_conn c = { 0 };
	struct nvme_tcp_rx_pdu p, h;
	size_t off;

	if (size < 1)
		return 0;
	c.host = data[0] & 0x01;
	c.hdgst = data[0] & 0x02;
	c.ddgst = data[0] & 0x04;
	c.ic_done = data[0] & 0x08;
	c.rx_pda = pdas[(data[0] >> 4) & 3];
	c.tx_pda = c.rx_pda;
	c.max_plen = (data[0] & 0x40) ? 4096 : 0;
	c.maxh2cdata = 8192;

	for (off = 1; off < size;) {
		const uint8_t *pdu = data + off;
		size_t avail = size - off;
		int ret = nvme_tcp_rx_pdu(&c, pdu, avail, &p);
		int hret = nvme_tcp_rx_header(&c, pdu, avail, &h);

		switch (ret) {
		case NVME_TCP_RX_MORE:
			FUZZ_CHECK(p.need > avail);
			FUZZ_CHECK(p.need >= 8);
			/* the header alone may be complete */
			FUZZ_CHECK(hret == NVME_TCP_RX_MORE ||
				   hret == NVME_TCP_RX_OK);
			if (hret == NVME_TCP_RX_MORE)
				FUZZ_CHECK(h.need == p.need);
			else
				FUZZ_CHECK(h.hdr_len <= avail &&
					   p.need == h.plen);
			return 0;
		case NVME_TCP_RX_FATAL:
			FUZZ_CHECK(hret == NVME_TCP_RX_FATAL &&
				   h.fes == p.fes && h.fei == p.fei);
			FUZZ_CHECK(p.fes >= NVME_TCP_FES_INVALID_PDU_HDR &&
				   p.fes <= NVME_TCP_FES_UNSUPPORTED_PARAM);
			if (p.fes == NVME_TCP_FES_INVALID_PDU_HDR)
				FUZZ_CHECK(p.fei < 128);
			return 0;
		case NVME_TCP_RX_OK:
		case NVME_TCP_RX_DDGST_ERR:
			break;
		default:
			FUZZ_CHECK(0);
		}
		FUZZ_CHECK(hret == NVME_TCP_RX_OK);
		FUZZ_CHECK(h.plen == p.plen && h.data_len == p.data_len);
		FUZZ_CHECK(p.plen >= 8 && p.plen <= avail);
		FUZZ_CHECK(p.hlen == nvme_tcp_hlen(p.type) && p.hlen);
		FUZZ_CHECK(p.hdr_len >= p.hlen && p.hdr_len <= p.plen);
		FUZZ_CHECK(!c.max_plen || p.plen <= c.max_plen ||
			   p.type == nvme_tcp_h2c_term ||
			   p.type == nvme_tcp_c2h_term);
		if (p.data_len) {
			FUZZ_CHECK(p.data_off >= p.hdr_len);
			FUZZ_CHECK(
				(uint64_t)p.data_off + p.data_len +
					(p.ddgst ? NVME_TCP_DIGEST_LEN : 0) ==
				p.plen);
		} else {
			FUZZ_CHECK(!p.ddgst && ret == NVME_TCP_RX_OK);
		}
		if (ret == NVME_TCP_RX_DDGST_ERR)
			FUZZ_CHECK(p.ddgst);
		else
			reencode(&c, pdu, &p);
		if (p.data_len)
			walk_ns_descs(pdu + p.data_off, p.data_len);
		if (p.type == nvme_tcp_icreq || p.type == nvme_tcp_icresp)
			establish(&c, pdu);
		off += p.plen;
	}
	return 0;
}
