// SPDX-License-Identifier: MIT
/*
 * NVMe/TCP PDU encoders and the validating decoder. The decoder is the
 * attack surface: it reads a field only after the bytes holding it are
 * known to be there, and trusts no length before checking it.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "tcp.h"

/* Byte offsets of the fields the decoder blames in a TermReq's FEI */
#define OFF_TYPE 0
#define OFF_FLAGS 1
#define OFF_HLEN 2
#define OFF_PDO 3
#define OFF_PLEN 4
#define OFF_PFV 8
#define OFF_PDA 10
#define OFF_DIGEST 11
#define OFF_MAXDATA 12
#define OFF_DATAO 12 /* H2C/C2HData DATAO and R2T R2TO */
#define OFF_DATAL 16 /* H2C/C2HData DATAL and R2T R2TL */

uint8_t nvme_tcp_hlen(uint8_t type)
{
	switch (type) {
	case nvme_tcp_icreq:
	case nvme_tcp_icresp:
		return 128;
	case nvme_tcp_cmd:
		return 72;
	case nvme_tcp_h2c_term:
	case nvme_tcp_c2h_term:
	case nvme_tcp_rsp:
	case nvme_tcp_h2c_data:
	case nvme_tcp_c2h_data:
	case nvme_tcp_r2t:
		return 24;
	default:
		return 0;
	}
}

/*
 * Where a sender puts data after a header of hdr_len bytes: the first
 * multiple of (pda + 1) dwords (headers are whole dwords, so PDA 0 needs
 * no padding). Receivers also accept larger multiples.
 */
static uint32_t data_pdo(uint32_t hdr_len, uint8_t pda)
{
	uint32_t a = ((uint32_t)pda + 1) * 4;

	return (hdr_len + a - 1) / a * a;
}

uint32_t nvme_tcp_digest(const void *data, size_t len)
{
	return mqblk_crc32c(data, len);
}

void nvme_tcp_put_ddgst(void *out4, const void *data, size_t len)
{
	nvme_put_le32(out4, mqblk_crc32c(data, len));
}

bool nvme_tcp_ddgst_ok(const void *data, size_t len, const void *dgst)
{
	return mqblk_crc32c(data, len) == nvme_get_le32(dgst);
}

int nvme_tcp_conn_establish(struct nvme_tcp_conn *c, const void *icreq,
			    const void *icresp)
{
	/* byte access: the PDUs may sit anywhere in a receive buffer */
	const uint8_t *req = icreq, *rsp = icresp;
	uint8_t asked = req[OFF_DIGEST], granted = rsp[OFF_DIGEST];

	if (granted & ~asked & (NVME_TCP_HDGST_ENABLE | NVME_TCP_DDGST_ENABLE))
		return -EPROTO;
	c->hdgst = granted & NVME_TCP_HDGST_ENABLE;
	c->ddgst = granted & NVME_TCP_DDGST_ENABLE;
	c->rx_pda = c->host ? req[OFF_PDA] : rsp[OFF_PDA];
	c->tx_pda = c->host ? rsp[OFF_PDA] : req[OFF_PDA];
	c->maxh2cdata = nvme_get_le32(rsp + OFF_MAXDATA);
	c->ic_done = true;
	return 0;
}

/* ---- Encoders ------------------------------------------------------------ */

static void put_hdr(uint8_t *b, uint8_t type, uint8_t flags, uint8_t hlen,
		    uint8_t pdo, uint32_t plen)
{
	b[0] = type;
	b[1] = flags;
	b[2] = hlen;
	b[3] = pdo;
	nvme_put_le32(b + OFF_PLEN, plen);
}

static ssize_t build_ic(void *buf, size_t len, uint8_t type, uint8_t pda,
			uint8_t digest, uint32_t dw3)
{
	uint8_t *b = buf;

	if (len < 128)
		return -ENOSPC;
	if (pda > NVME_TCP_MAX_PDA)
		return -EINVAL;
	memset(b, 0, 128);
	put_hdr(b, type, 0, 128, 0, 128);
	nvme_put_le16(b + OFF_PFV, NVME_TCP_PFV_1_0);
	b[OFF_PDA] = pda;
	b[OFF_DIGEST] = digest;
	nvme_put_le32(b + 12, dw3);
	return 128;
}

ssize_t nvme_tcp_build_icreq(void *buf, size_t len, uint8_t hpda,
			     uint8_t digest, uint32_t maxr2t)
{
	return build_ic(buf, len, nvme_tcp_icreq, hpda, digest, maxr2t);
}

ssize_t nvme_tcp_build_icresp(void *buf, size_t len, uint8_t cpda,
			      uint8_t digest, uint32_t maxh2cdata)
{
	if (maxh2cdata < NVME_TCP_MIN_MAXH2CDATA || maxh2cdata % 4)
		return -EINVAL;
	return build_ic(buf, len, nvme_tcp_icresp, cpda, digest, maxh2cdata);
}

/*
 * The frame of a PDU with an optional data section: header fields,
 * header digest, zeroed padding, then the data and its digest if data is
 * given. hdr holds the type-specific header (hlen bytes, common header
 * included but not yet filled).
 */
static ssize_t build_framed(const struct nvme_tcp_conn *c, uint8_t *b,
			    size_t len, uint8_t type, uint8_t flags,
			    const uint8_t *hdr, uint8_t hlen, const void *data,
			    uint32_t data_len)
{
	uint32_t hdr_len = hlen + (c->hdgst ? NVME_TCP_DIGEST_LEN : 0);
	uint32_t pdo = 0, dlen = 0;
	uint64_t plen = hdr_len;

	if (c->hdgst)
		flags |= NVME_TCP_F_HDGST;
	if (data_len) {
		if (c->tx_pda > NVME_TCP_MAX_PDA)
			return -EINVAL;
		pdo = data_pdo(hdr_len, c->tx_pda);
		dlen = c->ddgst ? NVME_TCP_DIGEST_LEN : 0;
		plen = (uint64_t)pdo + data_len + dlen;
		if (plen > UINT32_MAX || plen > SSIZE_MAX)
			return -EINVAL;
		if (c->ddgst)
			flags |= NVME_TCP_F_DDGST;
	}
	if (len < (data ? plen : (data_len ? pdo : hdr_len)))
		return -ENOSPC;

	memcpy(b, hdr, hlen);
	put_hdr(b, type, flags, hlen, (uint8_t)pdo, (uint32_t)plen);
	if (c->hdgst)
		nvme_put_le32(b + hlen, mqblk_crc32c(b, hlen));
	if (!data_len)
		return hdr_len;
	memset(b + hdr_len, 0, pdo - hdr_len);
	if (!data)
		return pdo;
	memcpy(b + pdo, data, data_len);
	if (c->ddgst)
		nvme_tcp_put_ddgst(b + pdo + data_len, data, data_len);
	return (ssize_t)plen;
}

ssize_t nvme_tcp_build_cmd(const struct nvme_tcp_conn *c, void *buf, size_t len,
			   const union nvme_command *cmd, const void *data,
			   uint32_t data_len)
{
	uint8_t hdr[72];

	memset(hdr, 0, 8);
	memcpy(hdr + 8, cmd, sizeof(*cmd));
	return build_framed(c, buf, len, nvme_tcp_cmd, 0, hdr, sizeof(hdr),
			    data, data_len);
}

ssize_t nvme_tcp_build_rsp(const struct nvme_tcp_conn *c, void *buf, size_t len,
			   const struct nvme_completion *cqe)
{
	uint8_t hdr[24];

	memset(hdr, 0, 8);
	memcpy(hdr + 8, cqe, sizeof(*cqe));
	return build_framed(c, buf, len, nvme_tcp_rsp, 0, hdr, sizeof(hdr),
			    NULL, 0);
}

ssize_t nvme_tcp_build_data(const struct nvme_tcp_conn *c, void *buf,
			    size_t len, uint16_t command_id, uint16_t ttag,
			    uint32_t offset, const void *data,
			    uint32_t data_len, uint8_t flags)
{
	uint8_t hdr[24];

	if (!data_len || (uint64_t)offset + data_len > UINT32_MAX)
		return -EINVAL;
	if (flags & ~(NVME_TCP_F_DATA_LAST | NVME_TCP_F_DATA_SUCCESS))
		return -EINVAL;
	/* SUCCESS replaces the CapsuleResp: only a controller, only last */
	if ((flags & NVME_TCP_F_DATA_SUCCESS) &&
	    (c->host || !(flags & NVME_TCP_F_DATA_LAST)))
		return -EINVAL;
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr + 8, &command_id, 2);
	if (c->host)
		memcpy(hdr + 10, &ttag, 2);
	nvme_put_le32(hdr + 12, offset);
	nvme_put_le32(hdr + 16, data_len);
	return build_framed(c, buf, len,
			    c->host ? nvme_tcp_h2c_data : nvme_tcp_c2h_data,
			    flags, hdr, sizeof(hdr), data, data_len);
}

ssize_t nvme_tcp_build_r2t(const struct nvme_tcp_conn *c, void *buf, size_t len,
			   uint16_t command_id, uint16_t ttag, uint32_t offset,
			   uint32_t length)
{
	uint8_t hdr[24];

	if (!length || (uint64_t)offset + length > UINT32_MAX)
		return -EINVAL;
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr + 8, &command_id, 2);
	memcpy(hdr + 10, &ttag, 2);
	nvme_put_le32(hdr + 12, offset);
	nvme_put_le32(hdr + 16, length);
	return build_framed(c, buf, len, nvme_tcp_r2t, 0, hdr, sizeof(hdr),
			    NULL, 0);
}

ssize_t nvme_tcp_build_term(const struct nvme_tcp_conn *c, void *buf,
			    size_t len, uint16_t fes, uint32_t fei,
			    const void *hdr, size_t hdr_len)
{
	uint8_t *b = buf;
	uint32_t plen;

	if (hdr_len > NVME_TCP_TERM_DATA_MAX)
		hdr_len = NVME_TCP_TERM_DATA_MAX;
	plen = 24 + (uint32_t)hdr_len;
	if (len < plen)
		return -ENOSPC;
	/* never digests: the peer may be failing exactly there */
	memset(b, 0, 24);
	put_hdr(b, c->host ? nvme_tcp_h2c_term : nvme_tcp_c2h_term, 0, 24, 0,
		plen);
	nvme_put_le16(b + 8, fes);
	nvme_put_le32(b + 10, fei);
	if (hdr_len)
		memcpy(b + 24, hdr, hdr_len);
	return plen;
}

/* ---- Decoder ------------------------------------------------------------- */

static int fatal(struct nvme_tcp_rx_pdu *p, uint16_t fes, uint32_t fei)
{
	p->fes = fes;
	p->fei = fei;
	return NVME_TCP_RX_FATAL;
}

static int invalid(struct nvme_tcp_rx_pdu *p, uint32_t off)
{
	return fatal(p, NVME_TCP_FES_INVALID_PDU_HDR, off);
}

static int more(struct nvme_tcp_rx_pdu *p, uint32_t need)
{
	p->need = need;
	return NVME_TCP_RX_MORE;
}

/* May this end receive a PDU of this type? */
static bool type_ok(const struct nvme_tcp_conn *c, uint8_t type)
{
	switch (type) {
	case nvme_tcp_icresp:
	case nvme_tcp_c2h_term:
	case nvme_tcp_rsp:
	case nvme_tcp_c2h_data:
	case nvme_tcp_r2t:
		return c->host;
	case nvme_tcp_icreq:
	case nvme_tcp_h2c_term:
	case nvme_tcp_cmd:
	case nvme_tcp_h2c_data:
		return !c->host;
	default:
		return false;
	}
}

static bool is_ic(uint8_t type)
{
	return type == nvme_tcp_icreq || type == nvme_tcp_icresp;
}

static bool is_term(uint8_t type)
{
	return type == nvme_tcp_h2c_term || type == nvme_tcp_c2h_term;
}

/* Flags each type may carry; any other bit is an invalid header field */
static uint8_t valid_flags(uint8_t type)
{
	switch (type) {
	case nvme_tcp_cmd:
		return NVME_TCP_F_HDGST | NVME_TCP_F_DDGST;
	case nvme_tcp_rsp:
	case nvme_tcp_r2t:
		return NVME_TCP_F_HDGST;
	case nvme_tcp_h2c_data:
		return NVME_TCP_F_HDGST | NVME_TCP_F_DDGST |
		       NVME_TCP_F_DATA_LAST;
	case nvme_tcp_c2h_data:
		return NVME_TCP_F_HDGST | NVME_TCP_F_DDGST |
		       NVME_TCP_F_DATA_LAST | NVME_TCP_F_DATA_SUCCESS;
	default:
		return 0; /* IC and TermReq: no digests, no flags */
	}
}

static bool may_carry_data(uint8_t type)
{
	return type == nvme_tcp_cmd || type == nvme_tcp_h2c_data ||
	       type == nvme_tcp_c2h_data;
}

/*
 * The common header: each field checked in byte order, because the
 * binding wants the lowest wrong field reported. hdr_len and, for data,
 * data_off/data_len/ddgst are filled as they become known.
 */
static int check_common(const struct nvme_tcp_conn *c,
			struct nvme_tcp_rx_pdu *p)
{
	bool carries = may_carry_data(p->type);
	uint32_t hdr_len, dlen, align;
	bool has_data;
	uint8_t want;

	if (!type_ok(c, p->type))
		return invalid(p, OFF_TYPE);
	/* a TermReq may come at any time: it may be refusing the ICReq */
	if (!is_term(p->type) && is_ic(p->type) == c->ic_done)
		return fatal(p, NVME_TCP_FES_PDU_SEQ_ERR, 0);

	/* flags: digests present exactly when negotiated, a data digest
	 * only with data */
	hdr_len = nvme_tcp_hlen(p->type);
	if (valid_flags(p->type) & NVME_TCP_F_HDGST && c->hdgst)
		hdr_len += NVME_TCP_DIGEST_LEN;
	has_data = carries && p->plen > hdr_len;
	want = 0;
	if (hdr_len > nvme_tcp_hlen(p->type))
		want |= NVME_TCP_F_HDGST;
	if (has_data && c->ddgst)
		want |= NVME_TCP_F_DDGST;
	if (p->flags & ~valid_flags(p->type) ||
	    (p->flags & (NVME_TCP_F_HDGST | NVME_TCP_F_DDGST)) != want)
		return invalid(p, OFF_FLAGS);
	/* SUCCESS stands for the CapsuleResp: only on the last C2HData */
	if ((p->flags & (NVME_TCP_F_DATA_SUCCESS | NVME_TCP_F_DATA_LAST)) ==
	    NVME_TCP_F_DATA_SUCCESS)
		return invalid(p, OFF_FLAGS);

	if (p->hlen != nvme_tcp_hlen(p->type))
		return invalid(p, OFF_HLEN);
	p->hdr_len = hdr_len;

	/* pdo: 0 without data; with data past the header and its digest,
	 * at a multiple of our PDA, inside the PDU */
	dlen = (want & NVME_TCP_F_DDGST) ? NVME_TCP_DIGEST_LEN : 0;
	align = ((uint32_t)c->rx_pda + 1) * 4;
	if (has_data) {
		if (p->pdo < hdr_len || p->pdo % align || p->pdo > p->plen)
			return invalid(p, OFF_PDO);
	} else if (p->pdo) {
		return invalid(p, OFF_PDO);
	}

	/* plen, before waiting for any of the bytes it announces */
	if (p->plen < hdr_len)
		return invalid(p, OFF_PLEN);
	switch (p->type) {
	case nvme_tcp_icreq:
	case nvme_tcp_icresp:
	case nvme_tcp_rsp:
	case nvme_tcp_r2t:
		if (p->plen != hdr_len)
			return invalid(p, OFF_PLEN);
		break;
	case nvme_tcp_h2c_term:
	case nvme_tcp_c2h_term:
		if (p->plen > NVME_TCP_TERM_PLEN_MAX)
			return invalid(p, OFF_PLEN);
		if (p->plen > hdr_len) {
			p->data_off = hdr_len;
			p->data_len = p->plen - hdr_len;
		}
		break;
	default:
		if (c->max_plen && p->plen > c->max_plen)
			return fatal(p, NVME_TCP_FES_DATA_LIMIT_EXCEEDED, 0);
		/* H2C/C2HData exist to carry data: at least one byte */
		if (!has_data && p->type != nvme_tcp_cmd)
			return invalid(p, OFF_PLEN);
		if (!has_data)
			break;
		if (p->plen - p->pdo <= dlen)
			return invalid(p, OFF_PLEN);
		p->data_off = p->pdo;
		p->data_len = p->plen - p->pdo - dlen;
		p->ddgst = dlen;
		break;
	}
	return NVME_TCP_RX_OK;
}

static int check_ic(const uint8_t *b, struct nvme_tcp_rx_pdu *p)
{
	if (nvme_get_le16(b + OFF_PFV) != NVME_TCP_PFV_1_0)
		return fatal(p, NVME_TCP_FES_UNSUPPORTED_PARAM, OFF_PFV);
	if (b[OFF_PDA] > NVME_TCP_MAX_PDA)
		return invalid(p, OFF_PDA);
	if (p->type == nvme_tcp_icresp) {
		uint32_t maxdata = nvme_get_le32(b + OFF_MAXDATA);

		if (maxdata < NVME_TCP_MIN_MAXH2CDATA || maxdata % 4)
			return invalid(p, OFF_MAXDATA);
	}
	return NVME_TCP_RX_OK;
}

/* H2C/C2HData's own fields, and R2T's (same offsets) */
static int check_transfer(const struct nvme_tcp_conn *c, const uint8_t *b,
			  struct nvme_tcp_rx_pdu *p)
{
	uint32_t offset = nvme_get_le32(b + OFF_DATAO);
	uint32_t length = nvme_get_le32(b + OFF_DATAL);

	if (p->type == nvme_tcp_r2t ? !length : length != p->data_len)
		return invalid(p, OFF_DATAL);
	if ((uint64_t)offset + length > UINT32_MAX)
		return fatal(p, NVME_TCP_FES_DATA_OUT_OF_RANGE, 0);
	if (p->type == nvme_tcp_h2c_data && length > c->maxh2cdata)
		return fatal(p, NVME_TCP_FES_DATA_LIMIT_EXCEEDED, 0);
	return NVME_TCP_RX_OK;
}

int nvme_tcp_rx_header(const struct nvme_tcp_conn *c, const void *buf,
		       size_t len, struct nvme_tcp_rx_pdu *p)
{
	const uint8_t *b = buf;
	int ret;

	memset(p, 0, sizeof(*p));
	if (len < sizeof(struct nvme_tcp_hdr))
		return more(p, sizeof(struct nvme_tcp_hdr));
	p->type = b[0];
	p->flags = b[1];
	p->hlen = b[2];
	p->pdo = b[3];
	p->plen = nvme_get_le32(b + OFF_PLEN);
	ret = check_common(c, p);
	if (ret)
		return ret;

	if (len < p->hdr_len)
		return more(p, p->hdr_len);
	if (p->hdr_len > p->hlen &&
	    mqblk_crc32c(b, p->hlen) != nvme_get_le32(b + p->hlen))
		return fatal(p, NVME_TCP_FES_HDR_DIGEST_ERR, 0);

	switch (p->type) {
	case nvme_tcp_icreq:
	case nvme_tcp_icresp:
		return check_ic(b, p);
	case nvme_tcp_h2c_data:
	case nvme_tcp_c2h_data:
	case nvme_tcp_r2t:
		return check_transfer(c, b, p);
	default:
		return NVME_TCP_RX_OK; /* nothing more to check */
	}
}

int nvme_tcp_rx_pdu(const struct nvme_tcp_conn *c, const void *buf, size_t len,
		    struct nvme_tcp_rx_pdu *p)
{
	const uint8_t *b = buf;
	int ret;

	ret = nvme_tcp_rx_header(c, buf, len, p);
	if (ret != NVME_TCP_RX_OK)
		return ret;
	if (len < p->plen)
		return more(p, p->plen);
	if (p->ddgst && !nvme_tcp_ddgst_ok(b + p->data_off, p->data_len,
					   b + p->data_off + p->data_len))
		return NVME_TCP_RX_DDGST_ERR;
	return NVME_TCP_RX_OK;
}

int nvme_tcp_check_data_range(uint32_t offset, uint32_t len,
			      uint32_t expect_offset, uint32_t window_end)
{
	if (offset != expect_offset || len > window_end ||
	    offset > window_end - len)
		return NVME_TCP_FES_DATA_OUT_OF_RANGE;
	return 0;
}

/* ---- Receive stepping ---------------------------------------------------- */

int nvme_tcp_rx_init(struct nvme_tcp_rx_state *rx, uint32_t cap)
{
	memset(rx, 0, sizeof(*rx));
	if (cap < 4096)
		return -EINVAL;
	rx->stage = malloc(cap);
	if (!rx->stage)
		return -ENOMEM;
	rx->cap = cap;
	return 0;
}

void nvme_tcp_rx_free(struct nvme_tcp_rx_state *rx)
{
	free(rx->stage);
	memset(rx, 0, sizeof(*rx));
}

void nvme_tcp_rx_reset(struct nvme_tcp_rx_state *rx)
{
	uint8_t *stage = rx->stage;
	uint32_t cap = rx->cap;

	memset(rx, 0, sizeof(*rx));
	rx->stage = stage;
	rx->cap = cap;
}

void nvme_tcp_rx_begin_data(struct nvme_tcp_rx_state *rx, uint8_t *dst)
{
	const struct nvme_tcp_rx_pdu *p = &rx->pdu;

	rx->dst = dst;
	rx->data = dst;
	rx->len = p->data_len;
	rx->left = p->data_off - p->hdr_len;
	rx->step = rx->left ? NVME_TCP_RXS_PAD : NVME_TCP_RXS_DATA;
	if (!rx->left)
		rx->left = p->data_len;
}

/* The data is all in: its digest next, or the event. */
static enum nvme_tcp_rx_event data_end(struct nvme_tcp_rx_state *rx,
				       bool *ddgst_ok)
{
	if (rx->pdu.ddgst) {
		rx->step = NVME_TCP_RXS_DDGST;
		rx->left = 4;
		rx->dgst_have = 0;
		return NVME_TCP_RXE_MORE;
	}
	rx->step = NVME_TCP_RXS_HDR;
	*ddgst_ok = true;
	return NVME_TCP_RXE_DATA;
}

enum nvme_tcp_rx_event nvme_tcp_rx_step(const struct nvme_tcp_conn *c,
					struct nvme_tcp_rx_state *rx,
					const uint8_t *buf, uint32_t avail,
					uint32_t *used, bool *ddgst_ok)
{
	uint32_t off = 0, n;
	enum nvme_tcp_rx_event ev;

	*ddgst_ok = true;
	for (;;) {
		switch (rx->step) {
		case NVME_TCP_RXS_HDR: {
			int ret;

			if (off == avail)
				goto more;
			ret = nvme_tcp_rx_header(c, buf + off, avail - off,
						 &rx->pdu);
			if (ret == NVME_TCP_RX_MORE)
				goto more;
			if (ret != NVME_TCP_RX_OK) {
				*used = off;
				return NVME_TCP_RXE_BAD;
			}
			*used = off + rx->pdu.hdr_len;
			return NVME_TCP_RXE_HDR;
		}
		case NVME_TCP_RXS_PAD:
			n = avail - off < rx->left ? avail - off : rx->left;
			off += n;
			rx->left -= n;
			if (rx->left)
				goto more;
			rx->step = NVME_TCP_RXS_DATA;
			rx->left = rx->len;
			break;
		case NVME_TCP_RXS_DATA:
			n = avail - off < rx->left ? avail - off : rx->left;
			if (rx->dst) {
				memcpy(rx->dst, buf + off, n);
				rx->dst += n;
			}
			off += n;
			rx->left -= n;
			if (rx->left)
				goto more;
			ev = data_end(rx, ddgst_ok);
			if (ev != NVME_TCP_RXE_MORE) {
				*used = off;
				return ev;
			}
			break;
		case NVME_TCP_RXS_DDGST:
			n = avail - off < rx->left ? avail - off : rx->left;
			memcpy(rx->dgst + rx->dgst_have, buf + off, n);
			rx->dgst_have += n;
			off += n;
			rx->left -= n;
			if (rx->left)
				goto more;
			rx->step = NVME_TCP_RXS_HDR;
			*ddgst_ok =
				!rx->data ||
				nvme_tcp_ddgst_ok(rx->data, rx->len, rx->dgst);
			*used = off;
			return NVME_TCP_RXE_DATA;
		default:
			*used = off;
			return NVME_TCP_RXE_BAD;
		}
	}
more:
	*used = off;
	return NVME_TCP_RXE_MORE;
}

enum nvme_tcp_rx_event nvme_tcp_rx_next(const struct nvme_tcp_conn *c,
					struct nvme_tcp_rx_state *rx,
					const uint8_t **at, uint32_t *avail,
					bool *ddgst_ok)
{
	uint32_t used;
	enum nvme_tcp_rx_event ev =
		nvme_tcp_rx_step(c, rx, rx->stage + rx->start,
				 rx->end - rx->start, &used, ddgst_ok);

	/* HDR: used ends with the header; BAD: the bad one starts there */
	*at = rx->stage + rx->start + used -
	      (ev == NVME_TCP_RXE_HDR ? rx->pdu.hdr_len : 0);
	rx->start += used;
	*avail = (uint32_t)(rx->stage + rx->end - *at);
	if (rx->start == rx->end)
		rx->start = rx->end = 0;
	return ev;
}

uint8_t *nvme_tcp_rx_room(struct nvme_tcp_rx_state *rx, uint32_t *len,
			  bool *direct)
{
	uint32_t want;
	uint8_t *dst = nvme_tcp_rx_direct(rx, &want);

	if (dst && rx->start == rx->end && want >= 4096) {
		*direct = true;
		*len = want;
		return dst;
	}
	*direct = false;
	if (rx->cap - rx->end < 256) {
		memmove(rx->stage, rx->stage + rx->start, rx->end - rx->start);
		rx->end -= rx->start;
		rx->start = 0;
	}
	*len = rx->cap - rx->end;
	return rx->stage + rx->end;
}

void nvme_tcp_rx_got(struct nvme_tcp_rx_state *rx, uint32_t n, bool direct)
{
	if (direct)
		nvme_tcp_rx_direct_done(rx, n);
	else
		rx->end += n;
}

uint8_t *nvme_tcp_rx_direct(const struct nvme_tcp_rx_state *rx, uint32_t *len)
{
	if (rx->step != NVME_TCP_RXS_DATA || !rx->dst || !rx->left)
		return NULL;
	*len = rx->left;
	return rx->dst;
}

void nvme_tcp_rx_direct_done(struct nvme_tcp_rx_state *rx, uint32_t n)
{
	rx->dst += n;
	rx->left -= n;
}
