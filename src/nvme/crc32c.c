// SPDX-License-Identifier: MIT
/*
 * CRC32C through ISA-L's crc32_iscsi, which takes an int length and applies
 * neither the initial nor the final inversion: both are done here.
 */
#include <isa-l/crc.h>

#include "crc32c.h"

uint32_t mqblk_crc32c_extend(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	/* undo the final inversion of the CRC so far: that is the running
	 * state (and ~0, the initial value, for the CRC of nothing) */
	crc = ~crc;
	while (len) {
		size_t n = len > (1u << 30) ? (1u << 30) : len;

		crc = crc32_iscsi((unsigned char *)p, (int)n, crc);
		p += n;
		len -= n;
	}
	return ~crc;
}

uint32_t mqblk_crc32c(const void *buf, size_t len)
{
	return mqblk_crc32c_extend(0, buf, len);
}
