// SPDX-License-Identifier: MIT
/*
 * DH-HMAC-CHAP's computations (OpenSSL EVP): HMAC, the key
 * transformation, augmented challenges and responses, and the
 * Diffie-Hellman key pairs and shared secrets of the RFC 7919 groups.
 */
#include <errno.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/dh.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "auth_int.h"

/* OpenSSL's digest name for an id (NULL when there is none) */
static const char *hash_md_name(uint8_t hash)
{
	switch (hash) {
	case NVME_AUTH_HASH_SHA256:
		return "SHA256";
	case NVME_AUTH_HASH_SHA384:
		return "SHA384";
	case NVME_AUTH_HASH_SHA512:
		return "SHA512";
	default:
		return NULL;
	}
}

/* HMAC over a list of pieces; out gets the hash length. */
struct piece {
	const void *p;
	size_t len;
};

static int hmac(uint8_t hash, const uint8_t *key, size_t key_len,
		const struct piece *pieces, unsigned nr, uint8_t *out)
{
	const char *md = hash_md_name(hash);
	EVP_MAC *mac = NULL;
	EVP_MAC_CTX *ctx = NULL;
	OSSL_PARAM params[2];
	size_t out_len = 0;
	int ret = -EIO;

	if (!md)
		return -EINVAL;
	mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (!mac)
		return -EIO;
	ctx = EVP_MAC_CTX_new(mac);
	if (!ctx)
		goto out;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						     (char *)md, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (EVP_MAC_init(ctx, key, key_len, params) != 1)
		goto out;
	for (unsigned i = 0; i < nr; i++)
		if (pieces[i].len &&
		    EVP_MAC_update(ctx, pieces[i].p, pieces[i].len) != 1)
			goto out;
	if (EVP_MAC_final(ctx, out, &out_len, NVME_AUTH_MAX_HASH_LEN) != 1)
		goto out;
	ret = out_len == nvme_auth_hash_len(hash) ? 0 : -EIO;
out:
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return ret;
}

int nvme_auth_key_transform(const struct nvme_auth_key *key, const char *nqn,
			    uint8_t *out)
{
	static const char tail[] = "NVMe-over-Fabrics";
	struct piece p[2] = {
		{ nqn, strlen(nqn) },
		{ tail, sizeof(tail) - 1 },
	};
	int ret;

	if (key->len == 0 || key->len > sizeof(key->data))
		return -EINVAL;
	if (key->hash == NVME_AUTH_HASH_NONE) {
		memcpy(out, key->data, key->len);
		return key->len;
	}
	ret = hmac(key->hash, key->data, key->len, p, 2, out);
	return ret ? ret : (int)nvme_auth_hash_len(key->hash);
}

/* ---- Computations ----------------------------------------------------- */

int nvme_auth_augment(uint8_t hash, const uint8_t *chal, const uint8_t *sess,
		      size_t sess_len, uint8_t *out)
{
	uint8_t hkey[EVP_MAX_MD_SIZE];
	unsigned hkey_len = 0;
	size_t hl = nvme_auth_hash_len(hash);
	struct piece p = { chal, hl };
	int ret;

	if (!hl)
		return -EINVAL;
	if (EVP_Digest(sess, sess_len, hkey, &hkey_len,
		       EVP_get_digestbyname(hash_md_name(hash)), NULL) != 1)
		return -EIO;
	ret = hmac(hash, hkey, hkey_len, &p, 1, out);
	OPENSSL_cleanse(hkey, sizeof(hkey));
	return ret;
}

int nvme_auth_response(uint8_t hash, const uint8_t *key, size_t key_len,
		       const uint8_t *chal, const uint8_t *sess,
		       size_t sess_len, uint32_t seqnum, uint16_t t_id,
		       uint8_t sc_c, const char *role, const char *nqn1,
		       const char *nqn2, uint8_t *out)
{
	uint8_t ca[NVME_AUTH_MAX_HASH_LEN], seq[4], tid[2], zero = 0;
	size_t hl = nvme_auth_hash_len(hash);
	int ret;

	if (!hl)
		return -EINVAL;
	if (sess) {
		ret = nvme_auth_augment(hash, chal, sess, sess_len, ca);
		if (ret)
			return ret;
	} else {
		memcpy(ca, chal, hl);
	}
	nvme_put_le32(seq, seqnum);
	nvme_put_le16(tid, t_id);
	struct piece p[] = {
		{ ca, hl },
		{ seq, 4 },
		{ tid, 2 },
		{ &sc_c, 1 },
		{ role, strlen(role) },
		{ nqn1, strlen(nqn1) },
		{ &zero, 1 },
		{ nqn2, strlen(nqn2) },
	};
	ret = hmac(hash, key, key_len, p, sizeof(p) / sizeof(p[0]), out);
	OPENSSL_cleanse(ca, sizeof(ca));
	return ret;
}

/* ---- Diffie-Hellman (RFC 7919 groups built into OpenSSL) --------------- */

/* A fresh key pair; its public value, zero-padded to the prime's size
 * (as the kernel sends it), in pub. */
int auth_dh_generate(uint8_t group, EVP_PKEY **pkey, uint8_t *pub)
{
	EVP_PKEY_CTX *ctx;
	OSSL_PARAM params[2];
	BIGNUM *bn = NULL;
	int ret = -EIO;

	*pkey = NULL;
	ctx = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
	if (!ctx)
		return -ENOMEM;
	params[0] = OSSL_PARAM_construct_utf8_string(
		OSSL_PKEY_PARAM_GROUP_NAME,
		(char *)nvme_auth_dhgroup_name(group), 0);
	params[1] = OSSL_PARAM_construct_end();
	if (EVP_PKEY_keygen_init(ctx) != 1 ||
	    EVP_PKEY_CTX_set_params(ctx, params) != 1 ||
	    EVP_PKEY_generate(ctx, pkey) != 1)
		goto out;
	if (EVP_PKEY_get_bn_param(*pkey, OSSL_PKEY_PARAM_PUB_KEY, &bn) != 1 ||
	    BN_bn2binpad(bn, pub, (int)nvme_auth_dhgroup_len(group)) < 0)
		goto out;
	ret = 0;
out:
	if (ret) {
		EVP_PKEY_free(*pkey);
		*pkey = NULL;
	}
	BN_free(bn);
	EVP_PKEY_CTX_free(ctx);
	return ret;
}

/* The shared secret g^xy mod p, zero-padded to the prime's size (the
 * kernel's and SPDK's form). A peer value OpenSSL refuses (0, 1, p-1, out
 * of range) is an incorrect payload, returned as -EPROTO; -ENOMEM when
 * OpenSSL could not allocate, -EIO for its other failures. */
int auth_dh_derive(EVP_PKEY *own, uint8_t group, const uint8_t *peer,
		   size_t peer_len, uint8_t *sess, size_t *sess_len)
{
	EVP_PKEY_CTX *ctx = NULL, *dctx = NULL, *pctx = NULL;
	EVP_PKEY *peer_key = NULL;
	OSSL_PARAM params[3];
	BIGNUM *bn;
	uint8_t *bnbuf = NULL;
	int bnlen, ret = -EIO;

	bn = BN_bin2bn(peer, (int)peer_len, NULL);
	if (!bn)
		return -ENOMEM;
	/* OSSL_PARAM wants the BIGNUM in native byte order */
	bnlen = BN_num_bytes(bn);
	bnbuf = OPENSSL_zalloc((size_t)bnlen + 1);
	if (!bnbuf) {
		ret = -ENOMEM;
		goto out;
	}
	if (BN_bn2nativepad(bn, bnbuf, bnlen + 1) < 0)
		goto out;
	params[0] = OSSL_PARAM_construct_utf8_string(
		OSSL_PKEY_PARAM_GROUP_NAME,
		(char *)nvme_auth_dhgroup_name(group), 0);
	params[1] = OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_PUB_KEY, bnbuf,
					    (size_t)bnlen + 1);
	params[2] = OSSL_PARAM_construct_end();
	ctx = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
	if (!ctx) {
		ret = -ENOMEM;
		goto out;
	}
	if (EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, &peer_key, EVP_PKEY_PUBLIC_KEY, params) !=
		    1) {
		ret = -EPROTO;
		goto out;
	}
	dctx = EVP_PKEY_CTX_new(own, NULL);
	if (!dctx || EVP_PKEY_derive_init(dctx) != 1 ||
	    EVP_PKEY_CTX_set_dh_pad(dctx, 1) != 1)
		goto out;
	/* RFC 7919 section 5.1: for these safe primes 1 < y < p-1 is the
	 * check a peer's value needs (OpenSSL's quick check). The full one
	 * adds an exponentiation by q to refuse values that could leak one
	 * bit of a one-time exponent; measured, one exchange (both sides,
	 * in memory): ffdhe4096 200 -> 23 ms, ffdhe8192 1015 -> 111 ms. */
	pctx = EVP_PKEY_CTX_new_from_pkey(NULL, peer_key, NULL);
	if (!pctx) {
		ret = -ENOMEM;
		goto out;
	}
	if (EVP_PKEY_public_check_quick(pctx) != 1 ||
	    EVP_PKEY_derive_set_peer_ex(dctx, peer_key, 0) != 1) {
		ret = -EPROTO;
		goto out;
	}
	*sess_len = NVME_AUTH_MAX_DH_LEN;
	if (EVP_PKEY_derive(dctx, sess, sess_len) != 1 ||
	    *sess_len != nvme_auth_dhgroup_len(group))
		goto out;
	ret = 0;
out:
	EVP_PKEY_CTX_free(pctx);
	EVP_PKEY_CTX_free(dctx);
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(peer_key);
	OPENSSL_free(bnbuf);
	BN_free(bn);
	return ret;
}
