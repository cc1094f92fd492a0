/* SPDX-License-Identifier: MIT */
/*
 * Data verification with fio's meaning (--verify): every block a write
 * phase issues carries a header (magic, type, length, offset, seed,
 * generation, header CRC, payload checksum) and a payload; a read phase
 * checks both. Its CRC32C is the shared one in src/nvme/crc32c.h.
 */
#ifndef MQBLK_BENCH_VERIFY_H
#define MQBLK_BENCH_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "nvme/crc32c.h" /* mqblk_crc32c, shared with NVMe/TCP */

/* fio's verify header magic */
#define VERIFY_MAGIC 0xacca

/* What sits in front of each verify interval: the header and room for the
 * largest payload checksum (SHA-256). */
#define VERIFY_HDR_SIZE 64u

/* --verify=NAME -> BENCH_VERIFY_*; 0 or -1 with err filled. */
int verify_parse_type(const char *s, unsigned *type, char *err, size_t errlen);
const char *verify_type_name(unsigned type);

/*
 * fio's --verify_pattern: comma-separated elements, each 0xHEX (bytes in
 * the order written), "string" (its bytes), or a decimal number (its
 * bytes, least significant first, as fio stores it). Fills out (at most
 * BENCH_VERIFY_PATTERN_MAX bytes); 0 or -1 with err filled.
 */
int verify_parse_pattern(const char *s, uint8_t *out, unsigned *len, char *err,
			 size_t errlen);

/* What the stamping and checking of one job need. */
struct verify_ctx {
	unsigned type; /* BENCH_VERIFY_* */
	const uint8_t *pattern; /* NULL = random payload */
	unsigned pattern_len;
	uint64_t seed; /* the job's seed: every block's seed derives from it */
	uint32_t interval; /* bytes per header; 0 = the whole I/O */
	const char *file; /* device URI, for messages */
};

/* The seed of the block at offset (what its header must carry). */
uint64_t verify_block_seed(const struct verify_ctx *c, uint64_t offset);

/* Fill buf (len bytes, to be written at offset) with headers and
 * payloads. gen is recorded in the header (not checked). */
void verify_stamp(const struct verify_ctx *c, void *buf, uint64_t offset,
		  uint32_t len, uint32_t gen);

/*
 * Check buf (len bytes read from offset). Returns 0, or -1 with one line
 * (no newline) in msg naming the file, offset, what was expected and what
 * was found, fio style ("verify: bad magic header 0, wanted acca at file
 * ... offset ..., length ...").
 */
int verify_check(const struct verify_ctx *c, const void *buf, uint64_t offset,
		 uint32_t len, char *msg, size_t msglen);

#endif
