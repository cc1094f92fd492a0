// SPDX-License-Identifier: MIT
/*
 * TLS PSKs for NVMe/TCP: the interchange format, the retained PSK, the
 * identities and the TLS PSK (HKDF and HMAC from OpenSSL's libcrypto).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include "auth.h"
#include "tls.h"

#define KEY_PREFIX "NVMeTLSkey-1:"

static const char *hash_md(uint8_t hash)
{
	switch (hash) {
	case NVME_TLS_HASH_SHA256:
		return "SHA256";
	case NVME_TLS_HASH_SHA384:
		return "SHA384";
	default:
		return NULL;
	}
}

static size_t hash_len(uint8_t hash)
{
	return hash == NVME_TLS_HASH_SHA256 ? 32 :
	       hash == NVME_TLS_HASH_SHA384 ? 48 :
					      0;
}

const char *nvme_tls_cipher_name(uint8_t hash)
{
	switch (hash) {
	case NVME_TLS_HASH_SHA256:
		return "TLS_AES_128_GCM_SHA256";
	case NVME_TLS_HASH_SHA384:
		return "TLS_AES_256_GCM_SHA384";
	default:
		return NULL;
	}
}

/* 32 bytes of key with hash 01, 48 with 02, either with 00; and the CRC */
static bool tls_key_len_ok(unsigned hash, int len)
{
	if (hash == NVME_TLS_HASH_SHA256)
		return len == 36;
	if (hash == NVME_TLS_HASH_SHA384)
		return len == 52;
	return len == 36 || len == 52;
}

static const struct nvme_key_format tls_key_format = {
	.prefix = KEY_PREFIX,
	.max_hash = NVME_TLS_HASH_SHA384,
	.max_len = NVME_TLS_MAX_KEY,
	.len_ok = tls_key_len_ok,
	.what = "TLS PSK",
	.no_prefix = "not in the NVMeTLSkey-1:HH:BASE64: format",
	.no_digits = "the hash is not two digits",
	.hash_pre = "hash",
	.hash_post = "is not 00 (none), 01 (SHA-256) or 02 (SHA-384)",
	.no_end = "does not end with ':' after the base64 key",
	.no_base64 = "the key is not valid base64",
	.len_post = "bytes of key and CRC, want 32 (hash 01) or 48 (hash 02) "
		    "bytes and a 4-byte CRC",
	.bad_crc = "CRC-32 mismatch (corrupted key)",
};

int nvme_tls_key_parse(const char *str, struct nvme_tls_key *key, char *err,
		       size_t errlen)
{
	memset(key, 0, sizeof(*key));
	return nvme_key_envelope_parse(&tls_key_format, str, &key->hash,
				       key->data, &key->len, err, errlen);
}

int nvme_tls_key_load(const char *arg, struct nvme_tls_key *key, char *err,
		      size_t errlen)
{
	char buf[256];
	const char *text;
	int ret;

	memset(key, 0, sizeof(*key));
	ret = nvme_key_arg_text(arg, "TLS PSK", buf, sizeof(buf), &text, err,
				errlen);
	if (!ret)
		ret = nvme_tls_key_parse(text, key, err, errlen);
	OPENSSL_cleanse(buf, sizeof(buf));
	return ret;
}

int nvme_tls_key_format(const struct nvme_tls_key *key, char *out, size_t cap)
{
	if ((key->len != 32 && key->len != 48) ||
	    key->hash > NVME_TLS_HASH_SHA384 ||
	    (key->hash && hash_len(key->hash) != key->len))
		return -EINVAL;
	return nvme_key_envelope_format(KEY_PREFIX, key->hash, key->data,
					key->len, out, cap);
}

void nvme_tls_key_clear(struct nvme_tls_key *key)
{
	OPENSSL_cleanse(key, sizeof(*key));
}

uint8_t nvme_tls_key_cipher(const struct nvme_tls_key *key)
{
	if (key->hash)
		return key->hash;
	return key->len == 48 ? NVME_TLS_HASH_SHA384 : NVME_TLS_HASH_SHA256;
}

/*
 * HKDF-Expand-Label(HKDF-Extract(0, secret), label, context, len) of
 * RFC 8446 7.1: the info is the HkdfLabel structure, a big-endian
 * length, then "tls13 " label and the context, each behind its one-byte
 * length.
 */
int nvme_tls_hkdf_label(uint8_t *info, size_t out_len, const char *label,
			const void *ctx, size_t ctx_len)
{
	size_t label_len = 6 + strlen(label), pos = 0;

	if (label_len > 255 || ctx_len > 255)
		return -EINVAL;
	info[pos++] = (uint8_t)(out_len >> 8);
	info[pos++] = (uint8_t)out_len;
	info[pos++] = (uint8_t)label_len;
	memcpy(info + pos, "tls13 ", 6);
	memcpy(info + pos + 6, label, label_len - 6);
	pos += label_len;
	info[pos++] = (uint8_t)ctx_len;
	if (ctx_len)
		memcpy(info + pos, ctx, ctx_len);
	return (int)(pos + ctx_len);
}

static int expand_label(uint8_t hash, const uint8_t *secret, size_t len,
			const char *label, const void *ctx, size_t ctx_len,
			uint8_t *out)
{
	uint8_t info[NVME_TLS_HKDF_LABEL_MAX];
	size_t out_len = len;
	EVP_PKEY_CTX *pctx;
	int ret = -EIO, pos;

	if (!hash_md(hash) || !len)
		return -EINVAL;
	pos = nvme_tls_hkdf_label(info, len, label, ctx, ctx_len);
	if (pos < 0)
		return pos;

	pctx = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
	if (!pctx)
		return -ENOMEM;
	if (EVP_PKEY_derive_init(pctx) == 1 &&
	    EVP_PKEY_CTX_set_hkdf_md(
		    pctx, EVP_get_digestbyname(hash_md(hash))) == 1 &&
	    EVP_PKEY_CTX_set1_hkdf_key(pctx, secret, (int)len) == 1 &&
	    EVP_PKEY_CTX_add1_hkdf_info(pctx, info, pos) == 1 &&
	    EVP_PKEY_derive(pctx, out, &out_len) == 1 && out_len == len)
		ret = (int)len;
	EVP_PKEY_CTX_free(pctx);
	return ret;
}

int nvme_tls_retained(const struct nvme_tls_key *key, const char *hostnqn,
		      uint8_t *out)
{
	if ((key->len != 32 && key->len != 48) ||
	    (key->hash && hash_len(key->hash) != key->len))
		return -EINVAL;
	if (key->hash == NVME_TLS_HASH_NONE) {
		memcpy(out, key->data, key->len);
		return key->len;
	}
	return expand_label(key->hash, key->data, key->len, "HostNQN", hostnqn,
			    strlen(hostnqn), out);
}

int nvme_tls_digest(uint8_t hash, const uint8_t *retained, size_t len,
		    const char *hostnqn, const char *subnqn, char *out,
		    size_t cap)
{
	static const char tail[] = " NVMe-over-Fabrics";
	char msg[2 * NVME_TLS_NQN_MAX + sizeof(tail) + 2];
	uint8_t mac[EVP_MAX_MD_SIZE];
	size_t mac_len = 0, n;
	int m;

	if (!hash_md(hash) || len != hash_len(hash))
		return -EINVAL;
	m = snprintf(msg, sizeof(msg), "%s %s%s", hostnqn, subnqn, tail);
	if (m < 0 || (size_t)m >= sizeof(msg))
		return -EINVAL;
	if (!EVP_Q_mac(NULL, "HMAC", NULL, hash_md(hash), NULL, retained, len,
		       (const unsigned char *)msg, (size_t)m, mac, sizeof(mac),
		       &mac_len) ||
	    mac_len != len)
		return -EIO;
	if (cap < (mac_len + 2) / 3 * 4 + 1)
		return -ENOSPC;
	n = nvme_key_b64_encode(mac, mac_len, out);
	out[n] = '\0';
	OPENSSL_cleanse(mac, sizeof(mac));
	return (int)n;
}

int nvme_tls_identity_build(uint8_t version, uint8_t hash,
			    const uint8_t *retained, size_t len,
			    const char *hostnqn, const char *subnqn, char *out,
			    size_t cap)
{
	char digest[68];
	int n;

	if (!hash_md(hash) || version > 1 || !*hostnqn || !*subnqn ||
	    strlen(hostnqn) > NVME_TLS_NQN_MAX ||
	    strlen(subnqn) > NVME_TLS_NQN_MAX || strchr(hostnqn, ' ') ||
	    strchr(subnqn, ' '))
		return -EINVAL;
	if (version == 0) {
		n = snprintf(out, cap, "NVMe0R%02u %s %s", hash, hostnqn,
			     subnqn);
	} else {
		n = nvme_tls_digest(hash, retained, len, hostnqn, subnqn,
				    digest, sizeof(digest));
		if (n < 0)
			return n;
		n = snprintf(out, cap, "NVMe1R%02u %s %s %s", hash, hostnqn,
			     subnqn, digest);
	}
	if (n < 0 || (size_t)n >= cap)
		return -ENOSPC;
	return n;
}

/* Copy the next space-separated word of [*p, end) into out (cap bytes
 * with the NUL); false if it is empty or too long. */
static bool next_word(const char **p, const char *end, char *out, size_t cap)
{
	const char *s = *p, *e = s;

	while (e < end && *e != ' ')
		e++;
	if (e == s || (size_t)(e - s) >= cap)
		return false;
	memcpy(out, s, (size_t)(e - s));
	out[e - s] = '\0';
	*p = e < end ? e + 1 : e;
	return true;
}

int nvme_tls_identity_parse(const void *id, size_t len,
			    struct nvme_tls_identity *out, char *err,
			    size_t errlen)
{
	const char *s = id, *end = s + len, *p;

	memset(out, 0, sizeof(*out));
	if (len < 9 || memcmp(s, "NVMe", 4) || (s[4] != '0' && s[4] != '1') ||
	    (s[5] != 'R' && s[5] != 'G') || s[6] != '0' ||
	    (s[7] != '1' && s[7] != '2') || s[8] != ' ') {
		snprintf(err, errlen,
			 "TLS PSK identity: not NVMe<0|1><R|G><01|02> "
			 "followed by the NQNs");
		return -EINVAL;
	}
	if (memchr(s, '\0', len)) {
		snprintf(err, errlen, "TLS PSK identity: holds a NUL byte");
		return -EINVAL;
	}
	out->version = (uint8_t)(s[4] - '0');
	out->generated = s[5] == 'G';
	out->hash = (uint8_t)(s[7] - '0');
	p = s + 9;
	if (!next_word(&p, end, out->hostnqn, sizeof(out->hostnqn)) ||
	    !next_word(&p, end, out->subnqn, sizeof(out->subnqn))) {
		snprintf(err, errlen,
			 "TLS PSK identity: a host or subsystem NQN is empty "
			 "or longer than %u characters",
			 NVME_TLS_NQN_MAX);
		return -EINVAL;
	}
	if (out->version == 1 &&
	    !next_word(&p, end, out->digest, sizeof(out->digest))) {
		snprintf(err, errlen,
			 "TLS PSK identity: version 1 without its PSK digest");
		return -EINVAL;
	}
	if (p != end || (p > s && p[-1] == ' ')) {
		snprintf(err, errlen,
			 "TLS PSK identity: more than the %s after the NQNs",
			 out->version ? "digest" : "nothing");
		return -EINVAL;
	}
	return 0;
}

int nvme_tls_psk(const struct nvme_tls_identity *id, const char *identity,
		 const uint8_t *retained, size_t len, uint8_t *out)
{
	char ctx[72];
	int n;

	if (len != hash_len(id->hash))
		return -EINVAL;
	if (id->version == 0)
		return expand_label(id->hash, retained, len, "nvme-tls-psk",
				    identity, strlen(identity), out);
	n = snprintf(ctx, sizeof(ctx), "%02u %s", id->hash, id->digest);
	if (n < 0 || (size_t)n >= sizeof(ctx))
		return -EINVAL;
	return expand_label(id->hash, retained, len, "nvme-tls-psk", ctx,
			    (size_t)n, out);
}

int nvme_tls_derive(const struct nvme_tls_key *key, uint8_t version,
		    const char *hostnqn, const char *subnqn, char *identity,
		    size_t cap, uint8_t *psk)
{
	struct nvme_tls_identity id;
	uint8_t retained[NVME_TLS_MAX_KEY];
	uint8_t hash = nvme_tls_key_cipher(key);
	char err[8];
	int ret;

	ret = nvme_tls_retained(key, hostnqn, retained);
	if (ret < 0)
		goto out;
	ret = nvme_tls_identity_build(version, hash, retained, (size_t)ret,
				      hostnqn, subnqn, identity, cap);
	if (ret < 0)
		goto out;
	ret = nvme_tls_identity_parse(identity, (size_t)ret, &id, err,
				      sizeof(err));
	if (!ret)
		ret = nvme_tls_psk(&id, identity, retained, key->len, psk);
out:
	OPENSSL_cleanse(retained, sizeof(retained));
	return ret;
}
