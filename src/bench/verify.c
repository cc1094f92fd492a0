// SPDX-License-Identifier: MIT
/*
 * --verify: block headers and payload checksums with fio's semantics.
 * CRC32C comes from ISA-L, MD5 and SHA-256 from OpenSSL's libcrypto (EVP).
 * The option values (verify_parse_type, verify_parse_pattern) are parsed in
 * parse.c, which the fuzzers link without these libraries.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "verify.h"

struct verify_hdr {
	uint16_t magic;
	uint8_t type;
	uint8_t pad;
	uint32_t len; /* bytes of this interval, header included */
	uint64_t offset; /* where the interval lives on the device */
	uint64_t seed; /* verify_block_seed() of the block */
	uint32_t gen; /* pass that wrote it (informational) */
	uint32_t hdr_crc; /* crc32c of the bytes above */
	uint8_t csum[32]; /* payload checksum, size by type */
};

_Static_assert(sizeof(struct verify_hdr) == VERIFY_HDR_SIZE,
	       "verify header layout");

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t verify_block_seed(const struct verify_ctx *c, uint64_t offset)
{
	uint64_t x = c->seed ^ (offset * 0xd6e8feb86659fd93ull);

	return splitmix64(&x);
}

static unsigned csum_len(unsigned type)
{
	switch (type) {
	case BENCH_VERIFY_CRC32C:
		return 4;
	case BENCH_VERIFY_MD5:
		return 16;
	case BENCH_VERIFY_SHA256:
		return 32;
	}
	return 0;
}

static void csum(unsigned type, const void *buf, size_t len, uint8_t *out)
{
	const EVP_MD *md = NULL;
	uint32_t crc;

	memset(out, 0, 32);
	switch (type) {
	case BENCH_VERIFY_CRC32C:
		crc = mqblk_crc32c(buf, len);
		memcpy(out, &crc, sizeof(crc));
		return;
	case BENCH_VERIFY_MD5:
		md = EVP_md5();
		break;
	case BENCH_VERIFY_SHA256:
		md = EVP_sha256();
		break;
	default:
		return;
	}
	/* EVP_Digest fails only without memory; out stays zero then, and
	 * the check reports a mismatch rather than passing */
	EVP_Digest(buf, len, out, NULL, md, NULL);
}

static void csum_hex(const uint8_t *c, unsigned n, char *out)
{
	unsigned i;

	if (n == 4) {
		uint32_t v;

		memcpy(&v, c, 4);
		sprintf(out, "0x%08" PRIx32, v);
		return;
	}
	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", c[i]);
}

/* Payload: the pattern, phase-aligned with the interval start as fio's
 * (the header is laid over the pattern), or the block's random stream. */
static void fill_payload(const struct verify_ctx *c, uint8_t *p, uint32_t len,
			 uint64_t seed)
{
	uint32_t i;

	if (c->pattern) {
		for (i = 0; i < len; i++)
			p[i] = c->pattern[(i + VERIFY_HDR_SIZE) %
					  c->pattern_len];
		return;
	}
	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t v = splitmix64(&seed);

		memcpy(p + i, &v, 8);
	}
	if (i < len) {
		uint64_t v = splitmix64(&seed);

		memcpy(p + i, &v, len - i);
	}
}

static uint32_t interval_of(const struct verify_ctx *c, uint32_t len)
{
	return c->interval && c->interval < len ? c->interval : len;
}

void verify_stamp(const struct verify_ctx *c, void *buf, uint64_t offset,
		  uint32_t len, uint32_t gen)
{
	uint32_t iv = interval_of(c, len), pos;

	for (pos = 0; pos + iv <= len; pos += iv) {
		uint8_t *b = (uint8_t *)buf + pos;
		struct verify_hdr h;

		memset(&h, 0, sizeof(h));
		h.magic = VERIFY_MAGIC;
		h.type = (uint8_t)c->type;
		h.len = iv;
		h.offset = offset + pos;
		h.seed = verify_block_seed(c, offset + pos);
		h.gen = gen;
		fill_payload(c, b + VERIFY_HDR_SIZE, iv - VERIFY_HDR_SIZE,
			     h.seed);
		h.hdr_crc =
			mqblk_crc32c(&h, offsetof(struct verify_hdr, hdr_crc));
		csum(c->type, b + VERIFY_HDR_SIZE, iv - VERIFY_HDR_SIZE,
		     h.csum);
		memcpy(b, &h, sizeof(h));
	}
}

static int check_one(const struct verify_ctx *c, const uint8_t *b, uint64_t off,
		     uint32_t iv, char *msg, size_t msglen)
{
	struct verify_hdr h;
	uint64_t want_seed = verify_block_seed(c, off);
	uint8_t want[32];
	char ws[72], fs[72];
	uint32_t crc, i;

	memcpy(&h, b, sizeof(h));
	if (h.magic != VERIFY_MAGIC)
		return bench_err(
			msg, msglen,
			"verify: bad magic header %x, wanted %x at file %s offset %" PRIu64
			", length %u",
			h.magic, VERIFY_MAGIC, c->file, off, iv);
	crc = mqblk_crc32c(&h, offsetof(struct verify_hdr, hdr_crc));
	if (crc != h.hdr_crc)
		return bench_err(
			msg, msglen,
			"verify: bad header crc %08x, wanted %08x at file %s offset %" PRIu64
			", length %u",
			h.hdr_crc, crc, c->file, off, iv);
	if (h.type != c->type)
		return bench_err(
			msg, msglen,
			"verify: bad header verify type %s, wanted %s at file %s offset %" PRIu64
			", length %u",
			verify_type_name(h.type), verify_type_name(c->type),
			c->file, off, iv);
	if (h.len != iv)
		return bench_err(
			msg, msglen,
			"verify: bad header length %u, wanted %u at file %s offset %" PRIu64
			", length %u",
			h.len, iv, c->file, off, iv);
	if (h.offset != off)
		return bench_err(msg, msglen,
				 "verify: bad header offset %" PRIu64
				 ", wanted %" PRIu64
				 " at file %s offset %" PRIu64 ", length %u",
				 h.offset, off, c->file, off, iv);
	if (h.seed != want_seed)
		return bench_err(msg, msglen,
				 "verify: bad header rand_seed %" PRIu64
				 ", wanted %" PRIu64
				 " at file %s offset %" PRIu64 ", length %u",
				 h.seed, want_seed, c->file, off, iv);
	if (c->type == BENCH_VERIFY_PATTERN || c->pattern) {
		const uint8_t *p = b + VERIFY_HDR_SIZE;

		for (i = 0; i < iv - VERIFY_HDR_SIZE; i++) {
			uint8_t e = c->pattern[(i + VERIFY_HDR_SIZE) %
					       c->pattern_len];

			if (p[i] != e)
				return bench_err(
					msg, msglen,
					"verify: bad pattern byte %02x, wanted %02x at file %s offset %" PRIu64
					", length %u (byte %u of the block)",
					p[i], e, c->file, off, iv,
					i + VERIFY_HDR_SIZE);
		}
	}
	if (!csum_len(c->type))
		return 0;
	csum(c->type, b + VERIFY_HDR_SIZE, iv - VERIFY_HDR_SIZE, want);
	if (memcmp(want, h.csum, csum_len(c->type))) {
		/* as fio: expected is what the header recorded at write
		 * time, found is what the data read back sums to */
		csum_hex(h.csum, csum_len(c->type), ws);
		csum_hex(want, csum_len(c->type), fs);
		return bench_err(
			msg, msglen,
			"verify: bad %s %s, wanted %s at file %s offset %" PRIu64
			", length %u",
			verify_type_name(c->type), fs, ws, c->file, off, iv);
	}
	return 0;
}

int verify_check(const struct verify_ctx *c, const void *buf, uint64_t offset,
		 uint32_t len, char *msg, size_t msglen)
{
	uint32_t iv = interval_of(c, len), pos;

	for (pos = 0; pos + iv <= len; pos += iv)
		if (check_one(c, (const uint8_t *)buf + pos, offset + pos, iv,
			      msg, msglen))
			return -1;
	return 0;
}
