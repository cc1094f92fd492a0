/* SPDX-License-Identifier: MIT */
/*
 * CRC32C (Castagnoli), the one routine every mqblk component shares: the
 * NVMe/TCP header and data digests and the bench's --verify=crc32c.
 */
#ifndef MQBLK_NVME_CRC32C_H
#define MQBLK_NVME_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * CRC32C as iSCSI and NVMe/TCP digests use it: initial value ~0, reflected,
 * final xor ~0; crc32c("123456789") = 0xE3069283, crc32c of nothing = 0.
 * Computed by ISA-L (hardware accelerated where the CPU has it).
 */
uint32_t mqblk_crc32c(const void *buf, size_t len);

/*
 * Continue a CRC32C: given crc = mqblk_crc32c(a), returns mqblk_crc32c(a
 * followed by buf). Start from 0 (the CRC of nothing), so a digest over
 * scattered buffers needs no copy.
 */
uint32_t mqblk_crc32c_extend(uint32_t crc, const void *buf, size_t len);

#endif
