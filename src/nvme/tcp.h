/* SPDX-License-Identifier: MIT */
/*
 * NVMe/TCP PDUs (NVMe over Fabrics TCP transport binding, TP 8000): wire
 * layouts, encoders into a caller's buffer and a validating decoder.
 */
#ifndef MQBLK_NVME_TCP_H
#define MQBLK_NVME_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "nvme.h"

enum nvme_tcp_pdu_type {
	nvme_tcp_icreq = 0x00,
	nvme_tcp_icresp = 0x01,
	nvme_tcp_h2c_term = 0x02,
	nvme_tcp_c2h_term = 0x03,
	nvme_tcp_cmd = 0x04,
	nvme_tcp_rsp = 0x05,
	nvme_tcp_h2c_data = 0x06,
	nvme_tcp_c2h_data = 0x07,
	nvme_tcp_r2t = 0x09,
};

/* Common header flags */
#define NVME_TCP_F_HDGST 0x01 /* a header digest follows the header */
#define NVME_TCP_F_DDGST 0x02 /* a data digest follows the data */
#define NVME_TCP_F_DATA_LAST 0x04 /* H2C/C2HData: last of the transfer */
#define NVME_TCP_F_DATA_SUCCESS 0x08 /* C2HData: no CapsuleResp will follow */

/* ICReq/ICResp digest byte */
#define NVME_TCP_HDGST_ENABLE 0x01
#define NVME_TCP_DDGST_ENABLE 0x02

#define NVME_TCP_PFV_1_0 0x0000
#define NVME_TCP_DIGEST_LEN 4
#define NVME_TCP_MAX_PDA 31 /* PDA: 0's based dwords */
#define NVME_TCP_MIN_MAXH2CDATA 4096
#define NVME_TCP_TERM_PLEN_MAX 152 /* 24-byte header + the bad header */
#define NVME_TCP_TERM_DATA_MAX (NVME_TCP_TERM_PLEN_MAX - 24)

/* Fatal error status of an H2C/C2HTermReq (FES) */
enum nvme_tcp_fes {
	NVME_TCP_FES_INVALID_PDU_HDR = 0x01, /* FEI: byte offset of the field */
	NVME_TCP_FES_PDU_SEQ_ERR = 0x02,
	NVME_TCP_FES_HDR_DIGEST_ERR = 0x03,
	NVME_TCP_FES_DATA_OUT_OF_RANGE = 0x04,
	NVME_TCP_FES_DATA_LIMIT_EXCEEDED = 0x05, /* also: R2T limit exceeded */
	NVME_TCP_FES_UNSUPPORTED_PARAM = 0x06, /* FEI: byte offset */
};

#define NVME_TCP_FES_R2T_LIMIT_EXCEEDED NVME_TCP_FES_DATA_LIMIT_EXCEEDED

/* ---- Layouts ------------------------------------------------------------ */

/* Every PDU starts with this */
struct nvme_tcp_hdr {
	uint8_t type;
	uint8_t flags;
	uint8_t hlen; /* header length, without the header digest */
	uint8_t pdo; /* data offset from the PDU's start; 0 = no data */
	nvme_le32 plen; /* whole PDU: header, digests, padding, data */
};

struct nvme_tcp_icreq_pdu {
	struct nvme_tcp_hdr hdr;
	nvme_le16 pfv;
	uint8_t hpda; /* alignment the host wants of C2HData's data */
	uint8_t digest; /* NVME_TCP_*DGST_ENABLE asked for */
	nvme_le32 maxr2t; /* 0's based outstanding R2Ts per command */
	uint8_t rsvd16[112];
};

struct nvme_tcp_icresp_pdu {
	struct nvme_tcp_hdr hdr;
	nvme_le16 pfv;
	uint8_t cpda; /* alignment the controller wants of H2C data */
	uint8_t digest; /* NVME_TCP_*DGST_ENABLE granted */
	nvme_le32 maxdata; /* MAXH2CDATA: bytes per H2CData PDU */
	uint8_t rsvd16[112];
};

/* H2CTermReq and C2HTermReq; data: the PDU header that was in error */
struct nvme_tcp_term_pdu {
	struct nvme_tcp_hdr hdr;
	nvme_le16 fes;
	uint8_t fei[4]; /* little-endian dword at an unaligned offset */
	uint8_t rsvd14[10];
};

struct nvme_tcp_cmd_pdu {
	struct nvme_tcp_hdr hdr;
	union nvme_command cmd;
};

struct nvme_tcp_rsp_pdu {
	struct nvme_tcp_hdr hdr;
	struct nvme_completion cqe;
};

/* H2CData and C2HData (ttag is reserved in C2HData) */
struct nvme_tcp_data_pdu {
	struct nvme_tcp_hdr hdr;
	uint16_t command_id;
	uint16_t ttag;
	nvme_le32 data_offset;
	nvme_le32 data_length;
	uint8_t rsvd20[4];
};

struct nvme_tcp_r2t_pdu {
	struct nvme_tcp_hdr hdr;
	uint16_t command_id;
	uint16_t ttag;
	nvme_le32 r2t_offset;
	nvme_le32 r2t_length;
	uint8_t rsvd20[4];
};

NVME_ASSERT_SIZE(struct nvme_tcp_hdr, 8);
NVME_ASSERT_OFF(struct nvme_tcp_hdr, plen, 4);
NVME_ASSERT_SIZE(struct nvme_tcp_icreq_pdu, 128);
NVME_ASSERT_OFF(struct nvme_tcp_icreq_pdu, hpda, 10);
NVME_ASSERT_OFF(struct nvme_tcp_icreq_pdu, maxr2t, 12);
NVME_ASSERT_SIZE(struct nvme_tcp_icresp_pdu, 128);
NVME_ASSERT_OFF(struct nvme_tcp_icresp_pdu, maxdata, 12);
NVME_ASSERT_SIZE(struct nvme_tcp_term_pdu, 24);
NVME_ASSERT_OFF(struct nvme_tcp_term_pdu, fei, 10);
NVME_ASSERT_SIZE(struct nvme_tcp_cmd_pdu, 72);
NVME_ASSERT_OFF(struct nvme_tcp_cmd_pdu, cmd, 8);
NVME_ASSERT_SIZE(struct nvme_tcp_rsp_pdu, 24);
NVME_ASSERT_OFF(struct nvme_tcp_rsp_pdu, cqe, 8);
NVME_ASSERT_SIZE(struct nvme_tcp_data_pdu, 24);
NVME_ASSERT_OFF(struct nvme_tcp_data_pdu, data_offset, 12);
NVME_ASSERT_OFF(struct nvme_tcp_data_pdu, data_length, 16);
NVME_ASSERT_SIZE(struct nvme_tcp_r2t_pdu, 24);
NVME_ASSERT_OFF(struct nvme_tcp_r2t_pdu, ttag, 10);
NVME_ASSERT_OFF(struct nvme_tcp_r2t_pdu, r2t_length, 16);

/* The header length each type must carry; 0 for an unknown type */
uint8_t nvme_tcp_hlen(uint8_t type);

/* ---- Connection state ---------------------------------------------------- */

/*
 * What one end knows of its connection: the encoders and the decoder read
 * it, the caller owns it. Before the IC exchange only ic fields are used.
 */
struct nvme_tcp_conn {
	bool host; /* this end is the host (else the controller) */
	bool ic_done; /* ICReq/ICResp exchanged */
	bool hdgst; /* header digests negotiated */
	bool ddgst; /* data digests negotiated */
	/* PDA: data aligned to (pda + 1) dwords from the PDU's start */
	uint8_t rx_pda; /* what this end asked for: data it receives */
	uint8_t tx_pda; /* what the peer asked for: data this end sends */
	uint32_t maxh2cdata; /* MAXH2CDATA of the ICResp */
	/* bound on the PDUs this end receives (a buffer size), 0 = none */
	uint32_t max_plen;
};

/*
 * Take the negotiated values from the exchanged ICReq and ICResp (each
 * end has both: one sent, one received; both already passed the decoder
 * or came from the encoders). Returns 0, or -EPROTO if the ICResp grants
 * a digest the ICReq did not ask for.
 */
int nvme_tcp_conn_establish(struct nvme_tcp_conn *c, const void *icreq,
			    const void *icresp);

/* ---- Encoders -------------------------------------------------------------
 *
 * Each fills buf (len bytes, any alignment) and returns the bytes written,
 * -ENOSPC if len is too small, or -EINVAL for arguments no valid PDU has.
 * Header digests are computed when c->hdgst; data PDUs use c->tx_pda for
 * the padding before the data and c->ddgst for the data digest.
 *
 * Where data is optional (data == NULL with data_len > 0), only the
 * header, its digest and the padding are written and their length (the
 * PDO) returned: the caller sends the data and then, with c->ddgst, the
 * 4 bytes nvme_tcp_put_ddgst() makes, so payloads are never copied.
 */

ssize_t nvme_tcp_build_icreq(void *buf, size_t len, uint8_t hpda,
			     uint8_t digest, uint32_t maxr2t);
ssize_t nvme_tcp_build_icresp(void *buf, size_t len, uint8_t cpda,
			      uint8_t digest, uint32_t maxh2cdata);

/* CapsuleCmd; data_len 0 = no in-capsule data */
ssize_t nvme_tcp_build_cmd(const struct nvme_tcp_conn *c, void *buf, size_t len,
			   const union nvme_command *cmd, const void *data,
			   uint32_t data_len);

ssize_t nvme_tcp_build_rsp(const struct nvme_tcp_conn *c, void *buf, size_t len,
			   const struct nvme_completion *cqe);

/*
 * H2CData from a host, C2HData from a controller (c->host says which).
 * flags: NVME_TCP_F_DATA_LAST, and NVME_TCP_F_DATA_SUCCESS (C2HData,
 * with LAST). ttag is written only in H2CData.
 */
ssize_t nvme_tcp_build_data(const struct nvme_tcp_conn *c, void *buf,
			    size_t len, uint16_t command_id, uint16_t ttag,
			    uint32_t offset, const void *data,
			    uint32_t data_len, uint8_t flags);

ssize_t nvme_tcp_build_r2t(const struct nvme_tcp_conn *c, void *buf, size_t len,
			   uint16_t command_id, uint16_t ttag, uint32_t offset,
			   uint32_t length);

/*
 * H2CTermReq from a host, C2HTermReq from a controller, carrying the
 * header of the PDU in error (its first NVME_TCP_TERM_DATA_MAX bytes at
 * most; hdr may be NULL with hdr_len 0).
 */
ssize_t nvme_tcp_build_term(const struct nvme_tcp_conn *c, void *buf,
			    size_t len, uint16_t fes, uint32_t fei,
			    const void *hdr, size_t hdr_len);

/* Digest of a data section, and its 4 wire bytes */
uint32_t nvme_tcp_digest(const void *data, size_t len);
void nvme_tcp_put_ddgst(void *out4, const void *data, size_t len);

/* ---- Sending a PDU train from iovecs (no I/O: both ends' sendmsg) ----- */

/*
 * The data section of a data PDU or capsule as iovecs after its header:
 * data, then (with c->ddgst) its digest, made into dgst4. Returns how
 * many iovecs it wrote at iov (1 or 2).
 */
static inline unsigned nvme_tcp_data_iov(const struct nvme_tcp_conn *c,
					 struct iovec *iov, void *data,
					 uint32_t len, uint8_t dgst4[4])
{
	iov[0].iov_base = data;
	iov[0].iov_len = len;
	if (!c->ddgst)
		return 1;
	nvme_tcp_put_ddgst(dgst4, data, len);
	iov[1].iov_base = dgst4;
	iov[1].iov_len = 4;
	return 2;
}

static inline size_t nvme_tcp_iov_len(const struct iovec *iov, unsigned n)
{
	size_t len = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		len += iov[i].iov_len;
	return len;
}

/*
 * Append src's n iovecs to dst (room for `room` more), first dropping the
 * *skip bytes already sent (consumed from *skip). Returns how many it
 * appended; the caller stops when room runs short.
 */
static inline unsigned nvme_tcp_iov_append(struct iovec *dst, unsigned room,
					   const struct iovec *src, unsigned n,
					   size_t *skip)
{
	unsigned i, out = 0;

	for (i = 0; i < n && out < room; i++) {
		size_t k = *skip < src[i].iov_len ? *skip : src[i].iov_len;

		*skip -= k;
		if (k == src[i].iov_len)
			continue;
		dst[out].iov_base = (char *)src[i].iov_base + k;
		dst[out].iov_len = src[i].iov_len - k;
		out++;
	}
	return out;
}

/* ---- Decoder ---------------------------------------------------------- */

enum nvme_tcp_rx_status {
	NVME_TCP_RX_OK = 0, /* a valid PDU (header, or all of it) */
	NVME_TCP_RX_MORE = 1, /* p->need bytes needed from the PDU's start */
	/*
	 * The PDU is well formed and complete but its data digest is wrong:
	 * not a fatal transport error. The receiver drops the PDU (plen
	 * bytes) and fails the command (Transient Transport Error).
	 */
	NVME_TCP_RX_DDGST_ERR = 2,
	/* fatal: send a TermReq with p->fes, p->fei, and close */
	NVME_TCP_RX_FATAL = 3,
};

/* What the decoder found in a PDU; offsets count from the PDU's start */
struct nvme_tcp_rx_pdu {
	uint8_t type;
	uint8_t flags;
	uint8_t hlen;
	uint8_t pdo;
	uint32_t plen;
	uint32_t hdr_len; /* hlen + header digest */
	uint32_t data_off; /* 0 = no data */
	uint32_t data_len; /* without padding or digest */
	bool ddgst; /* a data digest follows the data */
	uint32_t need; /* NVME_TCP_RX_MORE: bytes needed in all */
	uint16_t fes; /* NVME_TCP_RX_FATAL: NVME_TCP_FES_* */
	uint32_t fei; /* field error information for fes */
};

/*
 * Validate the header of the PDU at buf (len bytes received so far),
 * checking every field before it is used, the common header in byte
 * order so that the lowest wrong field is the one reported: type and
 * direction for c->host, order (IC first), flags (reserved bits clear,
 * digests exactly as negotiated, a data digest only with data), hlen,
 * pdo (0 without data; else past the header digest, a multiple of
 * c->rx_pda's alignment, inside the PDU), plen (exact for IC, CapsuleResp
 * and R2T, 24..152 for TermReq, c->max_plen for the rest); then the
 * header digest and each type's own fields. Asks only for the header and
 * its digest, so data can be received straight into its final place; a
 * PDU whose common header fails is refused after 8 bytes.
 * Returns NVME_TCP_RX_OK, _MORE or _FATAL.
 *
 * A TermReq is never answered with one: on FATAL for p->type == either
 * TermReq, just close the connection.
 */
int nvme_tcp_rx_header(const struct nvme_tcp_conn *c, const void *buf,
		       size_t len, struct nvme_tcp_rx_pdu *p);

/*
 * nvme_tcp_rx_header, then wait for all plen bytes and check the data
 * digest. Returns NVME_TCP_RX_OK, _MORE, _DDGST_ERR or _FATAL; on OK and
 * DDGST_ERR the PDU is p->plen bytes.
 */
int nvme_tcp_rx_pdu(const struct nvme_tcp_conn *c, const void *buf, size_t len,
		    struct nvme_tcp_rx_pdu *p);

/* Check the data digest of data (len bytes) against the 4 bytes at dgst */
bool nvme_tcp_ddgst_ok(const void *data, size_t len, const void *dgst);

/*
 * Does a data PDU (C2HData at the host; H2CData at the controller, with
 * the R2T's window) land where the transfer expects it: at expect_offset,
 * the next byte not yet received (data arrives in order), and ending at or
 * before window_end? Returns 0 or NVME_TCP_FES_DATA_OUT_OF_RANGE.
 */
int nvme_tcp_check_data_range(uint32_t offset, uint32_t len,
			      uint32_t expect_offset, uint32_t window_end);

/* ---- Receive stepping ---------------------------------------------------- */

/*
 * The receive side of a connection, host or controller alike: a PDU's
 * header (validated by nvme_tcp_rx_header before any field is used), the
 * padding up to its data (PDO), its data straight to where the caller
 * says (or dropped), and its data digest. The caller owns the bytes
 * (a staging buffer, or the destination itself: nvme_tcp_rx_direct) and
 * acts on the events.
 */
enum nvme_tcp_rx_step_state {
	NVME_TCP_RXS_HDR = 0, /* collecting a PDU header */
	NVME_TCP_RXS_PAD, /* skipping to the PDU's data (PDO) */
	NVME_TCP_RXS_DATA, /* data into dst (or discarded) */
	NVME_TCP_RXS_DDGST, /* the data digest */
};

struct nvme_tcp_rx_state {
	/* the staging buffer (nvme_tcp_rx_init): bytes [start, end) are
	 * received and not yet stepped over */
	uint8_t *stage;
	uint32_t cap, start, end;
	uint8_t step; /* enum nvme_tcp_rx_step_state */
	struct nvme_tcp_rx_pdu pdu; /* the current PDU's header */
	uint8_t *dst; /* where the next data byte goes; NULL: dropped */
	uint8_t *data; /* where this PDU's data began (digest check) */
	uint32_t left; /* bytes of the current step left */
	uint32_t len; /* this PDU's data length */
	uint8_t dgst[4];
	uint32_t dgst_have;
};

enum nvme_tcp_rx_event {
	NVME_TCP_RXE_MORE = 0, /* every byte given was used: more needed */
	/* a valid header at buf (consumed): the caller acts on it, and for
	 * a PDU with data calls nvme_tcp_rx_begin_data before stepping on */
	NVME_TCP_RXE_HDR,
	/* the PDU's data (and digest) all arrived: *ddgst_ok says whether
	 * the digest matched (true without one, or when the data was
	 * dropped) */
	NVME_TCP_RXE_DATA,
	/* a header that fails validation (rx->pdu.fes/fei, rx->pdu.type):
	 * a fatal transport error; nothing is consumed */
	NVME_TCP_RXE_BAD,
};

/* A receive state with a staging buffer of cap bytes (at least 4 KiB):
 * 0 or -ENOMEM. nvme_tcp_rx_free gives the buffer back. */
int nvme_tcp_rx_init(struct nvme_tcp_rx_state *rx, uint32_t cap);
void nvme_tcp_rx_free(struct nvme_tcp_rx_state *rx);

/* Forget any PDU under way and what is staged (a new connection). */
void nvme_tcp_rx_reset(struct nvme_tcp_rx_state *rx);

/* After NVME_TCP_RXE_HDR for a PDU with data: its data goes to dst
 * (NULL: dropped), rx->pdu.data_len bytes of it. */
void nvme_tcp_rx_begin_data(struct nvme_tcp_rx_state *rx, uint8_t *dst);

/*
 * Step over the avail bytes at buf (the caller's unread bytes): *used
 * tells how many were consumed. Returns at the first event; MORE when
 * all of buf was used (or avail is 0 and a byte is needed). With avail 0
 * it still moves past data received directly (nvme_tcp_rx_direct).
 */
enum nvme_tcp_rx_event nvme_tcp_rx_step(const struct nvme_tcp_conn *c,
					struct nvme_tcp_rx_state *rx,
					const uint8_t *buf, uint32_t avail,
					uint32_t *used, bool *ddgst_ok);

/*
 * The next event from what is staged: nvme_tcp_rx_step over the staging
 * buffer. *at is where the event's bytes begin (the header for HDR, the
 * failing header for BAD) and *avail how many are staged from there.
 */
enum nvme_tcp_rx_event nvme_tcp_rx_next(const struct nvme_tcp_conn *c,
					struct nvme_tcp_rx_state *rx,
					const uint8_t **at, uint32_t *avail,
					bool *ddgst_ok);

/*
 * Where the next receive goes, and how many bytes it may take (*len):
 * straight to the PDU's data when nothing is staged and at least 4 KiB
 * of it is wanted (*direct), else the staging buffer's free end (moved
 * down when under 256 bytes are left). Then nvme_tcp_rx_got with how
 * many arrived.
 */
uint8_t *nvme_tcp_rx_room(struct nvme_tcp_rx_state *rx, uint32_t *len,
			  bool *direct);
void nvme_tcp_rx_got(struct nvme_tcp_rx_state *rx, uint32_t n, bool direct);

/*
 * Where data may be received straight to (no staging copy): the
 * destination and how many bytes it still takes, or NULL when the
 * current step is not data with a destination. Then
 * nvme_tcp_rx_direct_done with how many arrived.
 */
uint8_t *nvme_tcp_rx_direct(const struct nvme_tcp_rx_state *rx, uint32_t *len);
void nvme_tcp_rx_direct_done(struct nvme_tcp_rx_state *rx, uint32_t n);

#endif
