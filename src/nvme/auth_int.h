/* SPDX-License-Identifier: MIT */
/*
 * What the DH-HMAC-CHAP files share beyond auth.h (auth_crypto.c: HMAC,
 * the key transformation and Diffie-Hellman; auth.c: the exchange).
 */
#ifndef MQBLK_NVME_AUTH_INT_H
#define MQBLK_NVME_AUTH_INT_H

#include <openssl/evp.h>

#include "auth.h"

/* A fresh key pair of group; its public value, zero-padded to the
 * prime's size, in pub. 0 or -errno. */
int auth_dh_generate(uint8_t group, EVP_PKEY **pkey, uint8_t *pub);
/* The shared secret with peer's public value, zero-padded to the prime's
 * size: 0, -EPROTO for a peer value that is not valid, or -errno. */
int auth_dh_derive(EVP_PKEY *own, uint8_t group, const uint8_t *peer,
		   size_t peer_len, uint8_t *sess, size_t *sess_len);

#endif
