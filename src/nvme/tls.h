/* SPDX-License-Identifier: MIT */
/*
 * TLS 1.3 pre-shared keys for NVMe/TCP (TP 8011, TP 8018): the PSK
 * interchange format (NVMeTLSkey-1, as nvme gen-tls-key prints it), the
 * retained PSK, the PSK identities (NVMe0R0x, and NVMe1R0x with the PSK
 * digest) and the TLS PSK a handshake uses. No I/O: the target's and the
 * host's NVMe/TCP code run the handshake (OpenSSL's libssl) with these.
 */
#ifndef MQBLK_NVME_TLS_H
#define MQBLK_NVME_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvme.h"

/* Hash identifiers: of the interchange format's HH field (how the
 * configured PSK becomes the retained one; 0 = used as is), and of an
 * identity's cipher suite (never 0). */
enum nvme_tls_hash {
	NVME_TLS_HASH_NONE = 0,
	NVME_TLS_HASH_SHA256 = 1, /* TLS_AES_128_GCM_SHA256 */
	NVME_TLS_HASH_SHA384 = 2, /* TLS_AES_256_GCM_SHA384 */
};

#define NVME_TLS_MAX_KEY 48
/* "NVMe1R02 " + two NQNs (223 each) + 2 spaces + digest (64) + NUL */
#define NVME_TLS_MAX_IDENTITY 528
#define NVME_TLS_NQN_MAX 223

/* Discovery log entry's TSAS SECTYPE for TCP beyond NONE (nvme.h has
 * NONE and the TREQ values) */
#define NVMF_TCP_SECTYPE_TLS12 1
#define NVMF_TCP_SECTYPE_TLS13 2

/* A configured PSK: 32 or 48 bytes and the hash that makes the retained
 * PSK of it. Clear it with nvme_tls_key_clear (zeroes the bytes). */
struct nvme_tls_key {
	uint8_t hash; /* enum nvme_tls_hash */
	uint8_t len; /* 0: no key */
	uint8_t data[NVME_TLS_MAX_KEY];
};

/*
 * Parse "NVMeTLSkey-1:HH:BASE64:" (HH 00, 01 or 02; base64 of the key and
 * its CRC-32, little-endian; 32 bytes of key with 01, 48 with 02, either
 * with 00). Returns 0, or -EINVAL with a one-line reason in err (never the
 * key itself).
 */
int nvme_tls_key_parse(const char *str, struct nvme_tls_key *key, char *err,
		       size_t errlen);
/* nvme_tls_key_parse, or for "@PATH" the key in the file PATH (one line;
 * a file group or others may read or write is refused). */
int nvme_tls_key_load(const char *arg, struct nvme_tls_key *key, char *err,
		      size_t errlen);
/* The interchange form, NUL-terminated; -ENOSPC if cap is short. */
int nvme_tls_key_format(const struct nvme_tls_key *key, char *out, size_t cap);
void nvme_tls_key_clear(struct nvme_tls_key *key);

/* The cipher suite's hash for a key: its HH, or with 00 its length's
 * (32: SHA-256, 48: SHA-384), as libnvme and SPDK choose. */
uint8_t nvme_tls_key_cipher(const struct nvme_tls_key *key);
/* The TLS 1.3 cipher suite name of a hash (OpenSSL's), or NULL */
const char *nvme_tls_cipher_name(uint8_t hash);

/*
 * The HkdfLabel of RFC 8446 7.1 for HKDF-Expand-Label: the output length
 * big-endian, then "tls13 " LABEL and CTX, each behind its one-byte
 * length, written to info (NVME_TLS_HKDF_LABEL_MAX bytes hold any).
 * Returns its length, or -EINVAL for a label or context over 255 bytes.
 */
#define NVME_TLS_HKDF_LABEL_MAX (2 + 1 + 255 + 1 + 255)
int nvme_tls_hkdf_label(uint8_t *info, size_t out_len, const char *label,
			const void *ctx, size_t ctx_len);

/*
 * Retained PSK (TP 8018): the configured PSK as is (HH 00), or
 * HKDF-Expand-Label(HKDF-Extract(0, configured), "HostNQN", hostnqn,
 * key length) with the HH hash. out holds NVME_TLS_MAX_KEY bytes.
 * Returns the length, or -errno.
 */
int nvme_tls_retained(const struct nvme_tls_key *key, const char *hostnqn,
		      uint8_t *out);

/*
 * The PSK digest of version 1 identities: base64 of HMAC(hash, retained,
 * hostnqn " " subnqn " NVMe-over-Fabrics"), NUL-terminated (out holds
 * 65 bytes). Returns its length or -errno.
 */
int nvme_tls_digest(uint8_t hash, const uint8_t *retained, size_t len,
		    const char *hostnqn, const char *subnqn, char *out,
		    size_t cap);

/* A PSK identity, parsed: "NVMe<version><R|G><hash> host sub[ digest]" */
struct nvme_tls_identity {
	uint8_t version; /* 0, or 1 (with the digest) */
	bool generated; /* 'G': a PSK from DH-HMAC-CHAP (not supported) */
	uint8_t hash; /* 1 or 2 */
	char hostnqn[NVME_TLS_NQN_MAX + 1];
	char subnqn[NVME_TLS_NQN_MAX + 1];
	char digest[68]; /* version 1 only */
};

/* Build the identity of a retained PSK: version 0 or 1 (the digest of
 * retained, which version 0 ignores). Returns its length or -errno. */
int nvme_tls_identity_build(uint8_t version, uint8_t hash,
			    const uint8_t *retained, size_t len,
			    const char *hostnqn, const char *subnqn, char *out,
			    size_t cap);
/* Parse an identity as a TLS ClientHello carries it (len bytes, not
 * NUL-terminated): 0, or -EINVAL with a one-line reason in err. */
int nvme_tls_identity_parse(const void *id, size_t len,
			    struct nvme_tls_identity *out, char *err,
			    size_t errlen);

/*
 * The TLS PSK: HKDF-Expand-Label(HKDF-Extract(0, retained),
 * "nvme-tls-psk", context, len) with the identity's hash, where context
 * is the identity (version 0) or "HH digest" (version 1), as libnvme and
 * the kernel derive it. Returns len or -errno: -EINVAL for a version 0
 * identity beyond 255 bytes (the HkdfLabel context's limit; SPDK refuses
 * those too, where libnvme would cut the length byte).
 */
int nvme_tls_psk(const struct nvme_tls_identity *id, const char *identity,
		 const uint8_t *retained, size_t len, uint8_t *out);

/*
 * Everything one side needs for one handshake: the identity (version
 * 0 or 1) and the TLS PSK, from a configured key and the two NQNs.
 * Returns the PSK length (identity NUL-terminated in identity), or -errno.
 */
int nvme_tls_derive(const struct nvme_tls_key *key, uint8_t version,
		    const char *hostnqn, const char *subnqn, char *identity,
		    size_t cap, uint8_t *psk);

#endif
