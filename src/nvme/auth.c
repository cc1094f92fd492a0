// SPDX-License-Identifier: MIT
/*
 * DH-HMAC-CHAP: secrets, the hash and Diffie-Hellman computations (OpenSSL
 * EVP), the AUTH message codec and the two halves of the exchange.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/dh.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "auth.h"

NVME_ASSERT_SIZE(struct nvme_auth_protocol_desc, 64);
NVME_ASSERT_SIZE(struct nvme_auth_negotiate, 8);
NVME_ASSERT_SIZE(struct nvme_auth_challenge, 16);
NVME_ASSERT_OFF(struct nvme_auth_challenge, hashid, 8);
NVME_ASSERT_OFF(struct nvme_auth_challenge, dhvlen, 10);
NVME_ASSERT_OFF(struct nvme_auth_challenge, seqnum, 12);
NVME_ASSERT_SIZE(struct nvme_auth_reply, 16);
NVME_ASSERT_OFF(struct nvme_auth_reply, cvalid, 8);
NVME_ASSERT_OFF(struct nvme_auth_reply, dhvlen, 10);
NVME_ASSERT_SIZE(struct nvme_auth_success1, 16);
NVME_ASSERT_OFF(struct nvme_auth_success1, rvalid, 8);
NVME_ASSERT_SIZE(struct nvme_auth_success2, 16);
NVME_ASSERT_SIZE(struct nvme_auth_failure_msg, 8);
NVME_ASSERT_SIZE(struct nvmf_auth_command, 64);
NVME_ASSERT_OFF(struct nvmf_auth_command, spsp0, 41);
NVME_ASSERT_OFF(struct nvmf_auth_command, secp, 43);
NVME_ASSERT_OFF(struct nvmf_auth_command, tl_al, 44);

/* ---- Names and sizes ------------------------------------------------ */

const char *nvme_auth_hash_name(uint8_t hash)
{
	switch (hash) {
	case NVME_AUTH_HASH_NONE:
		return "none";
	case NVME_AUTH_HASH_SHA256:
		return "sha256";
	case NVME_AUTH_HASH_SHA384:
		return "sha384";
	case NVME_AUTH_HASH_SHA512:
		return "sha512";
	default:
		return NULL;
	}
}

size_t nvme_auth_hash_len(uint8_t hash)
{
	switch (hash) {
	case NVME_AUTH_HASH_SHA256:
		return 32;
	case NVME_AUTH_HASH_SHA384:
		return 48;
	case NVME_AUTH_HASH_SHA512:
		return 64;
	default:
		return 0;
	}
}

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

int nvme_auth_hash_from_name(const char *name)
{
	char bare[16];
	size_t n = strlen(name);

	/* nvmet's configfs (and so nvmetcli's JSON) says "hmac(sha256)" */
	if (n > 6 && !strncmp(name, "hmac(", 5) && name[n - 1] == ')') {
		if (n - 6 >= sizeof(bare))
			return -EINVAL;
		memcpy(bare, name + 5, n - 6);
		bare[n - 6] = '\0';
		name = bare;
	}
	for (uint8_t h = NVME_AUTH_HASH_SHA256; h <= NVME_AUTH_HASH_SHA512; h++)
		if (!strcmp(name, nvme_auth_hash_name(h)))
			return h;
	return -EINVAL;
}

static const struct {
	const char *name;
	size_t len;
} dhgroups[] = {
	[NVME_AUTH_DHGROUP_NULL] = { "null", 0 },
	[NVME_AUTH_DHGROUP_2048] = { "ffdhe2048", 256 },
	[NVME_AUTH_DHGROUP_3072] = { "ffdhe3072", 384 },
	[NVME_AUTH_DHGROUP_4096] = { "ffdhe4096", 512 },
	[NVME_AUTH_DHGROUP_6144] = { "ffdhe6144", 768 },
	[NVME_AUTH_DHGROUP_8192] = { "ffdhe8192", 1024 },
};
#define NR_DHGROUPS (sizeof(dhgroups) / sizeof(dhgroups[0]))

const char *nvme_auth_dhgroup_name(uint8_t group)
{
	return group < NR_DHGROUPS ? dhgroups[group].name : NULL;
}

size_t nvme_auth_dhgroup_len(uint8_t group)
{
	return group < NR_DHGROUPS ? dhgroups[group].len : 0;
}

int nvme_auth_dhgroup_from_name(const char *name)
{
	for (uint8_t g = 0; g < NR_DHGROUPS; g++)
		if (!strcmp(name, dhgroups[g].name))
			return g;
	return -EINVAL;
}

const char *nvme_auth_failure_str(uint8_t reason)
{
	switch (reason) {
	case NVME_AUTH_FAIL_FAILED:
		return "authentication failed";
	case NVME_AUTH_FAIL_NOT_USABLE:
		return "authentication protocol not usable";
	case NVME_AUTH_FAIL_CONCAT_MISMATCH:
		return "secure channel concatenation mismatch";
	case NVME_AUTH_FAIL_HASH_UNUSABLE:
		return "hash function not usable";
	case NVME_AUTH_FAIL_DHGROUP_UNUSABLE:
		return "DH group not usable";
	case NVME_AUTH_FAIL_INCORRECT_PAYLOAD:
		return "incorrect payload";
	case NVME_AUTH_FAIL_INCORRECT_MESSAGE:
		return "incorrect protocol message";
	default:
		return "unknown failure reason";
	}
}

/* ---- Secrets -------------------------------------------------------- */

/* CRC-32 as zlib computes it (reflected 0xedb88320, inverted in and out):
 * the check nvme-cli and the kernel append to a DHHC-1 key. Bitwise: it
 * runs once per key parsed. */
uint32_t nvme_key_crc32(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;

	while (len--) {
		crc ^= *p++;
		for (int i = 0; i < 8; i++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

static const char b64_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(char c)
{
	const char *p = c ? strchr(b64_chars, c) : NULL;

	return p ? (int)(p - b64_chars) : -1;
}

/* Strict standard base64 with '=' padding: len a multiple of 4. Returns
 * the decoded length or -1. */
int nvme_key_b64_decode(const char *s, size_t len, uint8_t *out, size_t cap)
{
	size_t n = 0;

	if (len == 0 || len % 4)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;

		for (int j = 0; j < 4; j++) {
			if (s[i + j] == '=' && i + 4 == len && j >= 2) {
				v[j] = 0;
				pad++;
				continue;
			}
			if (pad) /* "=x" */
				return -1;
			v[j] = b64_value(s[i + j]);
			if (v[j] < 0)
				return -1;
		}
		uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 |
			     (uint32_t)v[2] << 6 | (uint32_t)v[3];
		/* the bits padding drops must be zero: one encoding per key */
		if ((pad == 2 && (w & 0xffff)) || (pad == 1 && (w & 0xff)))
			return -1;
		if (n + 3 - pad > cap)
			return -1;
		out[n++] = w >> 16;
		if (pad < 2)
			out[n++] = (w >> 8) & 0xff;
		if (pad < 1)
			out[n++] = w & 0xff;
	}
	return (int)n;
}

size_t nvme_key_b64_encode(const uint8_t *in, size_t len, char *out)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t w = (uint32_t)in[i] << 16;
		size_t left = len - i;

		if (left > 1)
			w |= (uint32_t)in[i + 1] << 8;
		if (left > 2)
			w |= in[i + 2];
		out[n++] = b64_chars[(w >> 18) & 63];
		out[n++] = b64_chars[(w >> 12) & 63];
		out[n++] = left > 1 ? b64_chars[(w >> 6) & 63] : '=';
		out[n++] = left > 2 ? b64_chars[w & 63] : '=';
	}
	return n;
}

#define KEY_PREFIX "DHHC-1:"

/* 32, 48 or 64 bytes of key, each hash (HH only says how to transform
 * it), and the CRC */
static bool auth_key_len_ok(unsigned hash, int len)
{
	return len == 36 || len == 52 || len == 68;
}

static const struct nvme_key_format auth_key_format = {
	.prefix = KEY_PREFIX,
	.max_hash = NVME_AUTH_HASH_SHA512,
	.max_len = 64,
	.len_ok = auth_key_len_ok,
	.what = "DH-HMAC-CHAP secret",
	.no_prefix = "not in the DHHC-1:HH:BASE64: format",
	.no_digits = "the transformation hash is not two digits",
	.hash_pre = "transformation hash",
	.hash_post = "is not 00 (none), 01, 02 or 03 (SHA-256/384/512)",
	.no_end = "does not end with ':' after the base64 key",
	.no_base64 = "the key is not valid base64",
	.len_post = "bytes of key and CRC, want 32, 48 or 64 bytes and a "
		    "4-byte CRC",
	.bad_crc = "CRC-32 mismatch (corrupted key)",
};

int nvme_auth_key_parse(const char *str, struct nvme_auth_key *key, char *err,
			size_t errlen)
{
	memset(key, 0, sizeof(*key));
	return nvme_key_envelope_parse(&auth_key_format, str, &key->hash,
				       key->data, &key->len, err, errlen);
}

int nvme_auth_key_format(const struct nvme_auth_key *key, char *out, size_t cap)
{
	if (key->len != 32 && key->len != 48 && key->len != 64)
		return -EINVAL;
	return nvme_key_envelope_format(KEY_PREFIX, key->hash, key->data,
					key->len, out, cap);
}

int nvme_key_file_read(const char *path, const char *what, char *buf,
		       size_t cap, char *err, size_t errlen)
{
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		n = -errno;
		snprintf(err, errlen, "%s key file %s: %s", what, path,
			 strerror(errno));
		return (int)n;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s key file %s: not a regular file",
			 what, path);
		return -EINVAL;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		close(fd);
		snprintf(err, errlen,
			 "%s key file %s: group or others may read "
			 "or write it (mode %04o): chmod 600 it",
			 what, path, (unsigned)(st.st_mode & 07777));
		return -EACCES;
	}
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s key file %s: %s", what, path,
			 strerror(errno));
		return -EIO;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

int nvme_key_envelope_parse(const struct nvme_key_format *f, const char *str,
			    uint8_t *hash, uint8_t *key, uint8_t *len,
			    char *err, size_t errlen)
{
	/* the key and its CRC; a longer one fails as bad base64 */
	uint8_t raw[64 + 8];
	const char *b64, *end;
	unsigned hh;
	uint32_t want;
	int n, ret = -EINVAL;

	if (strncmp(str, f->prefix, strlen(f->prefix))) {
		snprintf(err, errlen, "%s: %s", f->what, f->no_prefix);
		return -EINVAL;
	}
	str += strlen(f->prefix);
	if (!((str[0] >= '0' && str[0] <= '9') &&
	      (str[1] >= '0' && str[1] <= '9') && str[2] == ':')) {
		snprintf(err, errlen, "%s: %s", f->what, f->no_digits);
		return -EINVAL;
	}
	hh = (unsigned)(str[0] - '0') * 10 + (unsigned)(str[1] - '0');
	if (hh > f->max_hash) {
		snprintf(err, errlen, "%s: %s %02u %s", f->what, f->hash_pre,
			 hh, f->hash_post);
		return -EINVAL;
	}
	b64 = str + 3;
	end = strchr(b64, ':');
	if (!end || end[1] != '\0') {
		snprintf(err, errlen, "%s: %s", f->what, f->no_end);
		return -EINVAL;
	}
	n = nvme_key_b64_decode(b64, (size_t)(end - b64), raw,
				f->max_len + 8 < sizeof(raw) ? f->max_len + 8 :
							       sizeof(raw));
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", f->what, f->no_base64);
		goto out;
	}
	if (!f->len_ok(hh, n)) {
		snprintf(err, errlen, "%s: %d %s", f->what, n, f->len_post);
		goto out;
	}
	n -= 4;
	want = (uint32_t)raw[n] | (uint32_t)raw[n + 1] << 8 |
	       (uint32_t)raw[n + 2] << 16 | (uint32_t)raw[n + 3] << 24;
	if (nvme_key_crc32(raw, (size_t)n) != want) {
		snprintf(err, errlen, "%s: %s", f->what, f->bad_crc);
		goto out;
	}
	*hash = (uint8_t)hh;
	*len = (uint8_t)n;
	memcpy(key, raw, (size_t)n);
	ret = 0;
out:
	OPENSSL_cleanse(raw, sizeof(raw));
	return ret;
}

int nvme_key_envelope_format(const char *prefix, uint8_t hash,
			     const uint8_t *key, size_t len, char *out,
			     size_t cap)
{
	uint8_t raw[64 + 4];
	uint32_t crc;
	size_t n;

	if (len > 64)
		return -EINVAL;
	/* "PREFIXHH:" + base64 of len + 4 + ":" + NUL */
	if (cap < strlen(prefix) + 3 + (len + 4 + 2) / 3 * 4 + 2)
		return -ENOSPC;
	memcpy(raw, key, len);
	crc = nvme_key_crc32(raw, len);
	for (int i = 0; i < 4; i++)
		raw[len + i] = (uint8_t)(crc >> (8 * i));
	n = (size_t)snprintf(out, cap, "%s%02u:", prefix, hash);
	n += nvme_key_b64_encode(raw, len + 4, out + n);
	out[n++] = ':';
	out[n] = '\0';
	OPENSSL_cleanse(raw, sizeof(raw));
	return 0;
}

int nvme_key_arg_text(const char *arg, const char *what, char *buf, size_t cap,
		      const char **text, char *err, size_t errlen)
{
	int ret = 0;

	*text = arg;
	if (arg[0] == '@') {
		ret = nvme_key_file_read(arg + 1, what, buf, cap, err, errlen);
		*text = buf;
	}
	return ret;
}

int nvme_auth_key_load(const char *arg, struct nvme_auth_key *key, char *err,
		       size_t errlen)
{
	char buf[256];
	const char *text;
	int ret;

	memset(key, 0, sizeof(*key));
	ret = nvme_key_arg_text(arg, "DH-HMAC-CHAP", buf, sizeof(buf), &text,
				err, errlen);
	if (!ret)
		ret = nvme_auth_key_parse(text, key, err, errlen);
	OPENSSL_cleanse(buf, sizeof(buf));
	return ret;
}

void nvme_auth_key_clear(struct nvme_auth_key *key)
{
	OPENSSL_cleanse(key, sizeof(*key));
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
static int dh_generate(uint8_t group, EVP_PKEY **pkey, uint8_t *pub)
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
 * of range) is an incorrect payload, returned as -EPROTO. */
static int dh_derive(EVP_PKEY *own, uint8_t group, const uint8_t *peer,
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
	if (!ctx || EVP_PKEY_fromdata_init(ctx) != 1 ||
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
	if (!pctx || EVP_PKEY_public_check_quick(pctx) != 1 ||
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

/* ---- Decoders -------------------------------------------------------- */

int nvme_auth_msg_peek(const void *buf, size_t len, uint8_t *auth_type,
		       uint8_t *auth_id, uint16_t *t_id)
{
	const uint8_t *p = buf;

	if (len < 6)
		return -EINVAL;
	*auth_type = p[0];
	*auth_id = p[1];
	*t_id = nvme_get_le16(p + 4);
	return 0;
}

static bool is_msg(const uint8_t *p, size_t len, uint8_t type, uint8_t id)
{
	return len >= 6 && p[0] == type && p[1] == id;
}

int nvme_auth_negotiate_decode(const void *buf, size_t len,
			       struct nvme_auth_negotiate_info *out)
{
	const uint8_t *p = buf;
	const struct nvme_auth_protocol_desc *d;
	bool found = false;

	memset(out, 0, sizeof(*out));
	if (!is_msg(p, len, NVME_AUTH_COMMON_MESSAGES, NVME_AUTH_ID_NEGOTIATE))
		return NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (len < sizeof(struct nvme_auth_negotiate))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->t_id = nvme_get_le16(p + 4);
	out->sc_c = p[6];
	uint8_t napd = p[7];
	if (napd == 0 || len < sizeof(struct nvme_auth_negotiate) +
					 (size_t)napd * sizeof(*d))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	for (unsigned i = 0; i < napd; i++) {
		d = (const void *)(p + sizeof(struct nvme_auth_negotiate) +
				   i * sizeof(*d));
		if (d->authid != NVME_AUTH_DHCHAP_AUTH_ID)
			continue; /* another protocol: not ours */
		if (found || d->halen == 0 || d->halen > NVME_AUTH_MAX_IDS ||
		    d->dhlen == 0 || d->dhlen > NVME_AUTH_MAX_IDS)
			return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
		found = true;
		out->nr_hashes = d->halen;
		memcpy(out->hashes, d->idlist, d->halen);
		out->nr_dhgroups = d->dhlen;
		memcpy(out->dhgroups, d->idlist + NVME_AUTH_MAX_IDS, d->dhlen);
	}
	return found ? 0 : NVME_AUTH_FAIL_NOT_USABLE;
}

int nvme_auth_challenge_decode(const void *buf, size_t len,
			       struct nvme_auth_challenge_info *out)
{
	const uint8_t *p = buf;
	size_t dh_max;

	memset(out, 0, sizeof(*out));
	if (!is_msg(p, len, NVME_AUTH_DHCHAP_MESSAGES, NVME_AUTH_ID_CHALLENGE))
		return NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (len < sizeof(struct nvme_auth_challenge))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->t_id = nvme_get_le16(p + 4);
	out->hl = p[6];
	out->hash = p[8];
	out->dhgroup = p[9];
	out->dhvlen = nvme_get_le16(p + 10);
	out->seqnum = nvme_get_le32(p + 12);
	if (!nvme_auth_hash_len(out->hash))
		return NVME_AUTH_FAIL_HASH_UNUSABLE;
	if (out->dhgroup >= NR_DHGROUPS)
		return NVME_AUTH_FAIL_DHGROUP_UNUSABLE;
	dh_max = nvme_auth_dhgroup_len(out->dhgroup);
	/* S1 is never 0; a DH group needs a value no longer than its prime
	 * (SPDK sends it unpadded, the kernel padded) */
	if (out->hl != nvme_auth_hash_len(out->hash) || out->seqnum == 0 ||
	    out->dhvlen > dh_max || (dh_max && out->dhvlen == 0) ||
	    len < sizeof(struct nvme_auth_challenge) + out->hl + out->dhvlen)
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->cval = p + sizeof(struct nvme_auth_challenge);
	out->dhv = out->dhvlen ? out->cval + out->hl : NULL;
	return 0;
}

int nvme_auth_reply_decode(const void *buf, size_t len,
			   struct nvme_auth_reply_info *out)
{
	const uint8_t *p = buf;

	memset(out, 0, sizeof(*out));
	if (!is_msg(p, len, NVME_AUTH_DHCHAP_MESSAGES, NVME_AUTH_ID_REPLY))
		return NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (len < sizeof(struct nvme_auth_reply))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->t_id = nvme_get_le16(p + 4);
	out->hl = p[6];
	out->cvalid = p[8] & 1;
	out->dhvlen = nvme_get_le16(p + 10);
	out->seqnum = nvme_get_le32(p + 12);
	if (out->hl != 32 && out->hl != 48 && out->hl != 64)
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	if (out->dhvlen > NVME_AUTH_MAX_DH_LEN ||
	    len < sizeof(struct nvme_auth_reply) + 2u * out->hl + out->dhvlen)
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	/* a bidirectional request carries a nonzero S2, a one-way one 0 */
	if (out->cvalid != (out->seqnum != 0))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->rval = p + sizeof(struct nvme_auth_reply);
	out->cval = out->cvalid ? out->rval + out->hl : NULL;
	out->dhv = out->dhvlen ? out->rval + 2 * out->hl : NULL;
	return 0;
}

int nvme_auth_success1_decode(const void *buf, size_t len,
			      struct nvme_auth_success1_info *out)
{
	const uint8_t *p = buf;

	memset(out, 0, sizeof(*out));
	if (!is_msg(p, len, NVME_AUTH_DHCHAP_MESSAGES, NVME_AUTH_ID_SUCCESS1))
		return NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (len < sizeof(struct nvme_auth_success1))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->t_id = nvme_get_le16(p + 4);
	out->hl = p[6];
	out->rvalid = p[8] & 1;
	if (out->rvalid) {
		if ((out->hl != 32 && out->hl != 48 && out->hl != 64) ||
		    len < sizeof(struct nvme_auth_success1) + out->hl)
			return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
		out->rval = p + sizeof(struct nvme_auth_success1);
	}
	return 0;
}

int nvme_auth_success2_decode(const void *buf, size_t len, uint16_t *t_id)
{
	const uint8_t *p = buf;

	if (!is_msg(p, len, NVME_AUTH_DHCHAP_MESSAGES, NVME_AUTH_ID_SUCCESS2))
		return NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (len < sizeof(struct nvme_auth_success2))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	*t_id = nvme_get_le16(p + 4);
	return 0;
}

int nvme_auth_failure_decode(const void *buf, size_t len, uint8_t want_id,
			     uint16_t *t_id, uint8_t *reason)
{
	const uint8_t *p = buf;

	if (!is_msg(p, len, NVME_AUTH_COMMON_MESSAGES, want_id))
		return NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (len < sizeof(struct nvme_auth_failure_msg))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	*t_id = nvme_get_le16(p + 4);
	/* a failure is a failure whatever it says: an explanation the spec
	 * does not have is reported as plain "failed" */
	*reason = NVME_AUTH_FAIL_FAILED;
	if (p[7] >= NVME_AUTH_FAIL_FAILED &&
	    p[7] <= NVME_AUTH_FAIL_INCORRECT_MESSAGE)
		*reason = p[7];
	return 0;
}

/* ---- Encoders -------------------------------------------------------- */

static uint8_t *msg_start(void *buf, size_t cap, size_t len, uint8_t type,
			  uint8_t id, uint16_t t_id)
{
	uint8_t *p = buf;

	if (cap < len)
		return NULL;
	memset(p, 0, len);
	p[0] = type;
	p[1] = id;
	nvme_put_le16(p + 4, t_id);
	return p;
}

int nvme_auth_negotiate_encode(void *buf, size_t cap, uint16_t t_id,
			       const uint8_t *hashes, unsigned nr_hashes,
			       const uint8_t *dh, unsigned nr_dh)
{
	size_t len = sizeof(struct nvme_auth_negotiate) +
		     sizeof(struct nvme_auth_protocol_desc);
	struct nvme_auth_protocol_desc *d;
	uint8_t *p;

	if (!nr_hashes || nr_hashes > NVME_AUTH_MAX_IDS || !nr_dh ||
	    nr_dh > NVME_AUTH_MAX_IDS)
		return -EINVAL;
	p = msg_start(buf, cap, len, NVME_AUTH_COMMON_MESSAGES,
		      NVME_AUTH_ID_NEGOTIATE, t_id);
	if (!p)
		return -ENOSPC;
	p[6] = 0; /* sc_c: no secure channel concatenation */
	p[7] = 1;
	d = (void *)(p + sizeof(struct nvme_auth_negotiate));
	d->authid = NVME_AUTH_DHCHAP_AUTH_ID;
	d->halen = (uint8_t)nr_hashes;
	d->dhlen = (uint8_t)nr_dh;
	memcpy(d->idlist, hashes, nr_hashes);
	memcpy(d->idlist + NVME_AUTH_MAX_IDS, dh, nr_dh);
	return (int)len;
}

int nvme_auth_challenge_encode(void *buf, size_t cap, uint16_t t_id,
			       uint8_t hash, uint8_t dhgroup, uint32_t seqnum,
			       const uint8_t *cval, const uint8_t *dhv,
			       uint16_t dhvlen)
{
	size_t hl = nvme_auth_hash_len(hash);
	size_t len = sizeof(struct nvme_auth_challenge) + hl + dhvlen;
	uint8_t *p;

	if (!hl || dhvlen > NVME_AUTH_MAX_DH_LEN)
		return -EINVAL;
	p = msg_start(buf, cap, len, NVME_AUTH_DHCHAP_MESSAGES,
		      NVME_AUTH_ID_CHALLENGE, t_id);
	if (!p)
		return -ENOSPC;
	p[6] = (uint8_t)hl;
	p[8] = hash;
	p[9] = dhgroup;
	nvme_put_le16(p + 10, dhvlen);
	nvme_put_le32(p + 12, seqnum);
	memcpy(p + 16, cval, hl);
	if (dhvlen)
		memcpy(p + 16 + hl, dhv, dhvlen);
	return (int)len;
}

int nvme_auth_reply_encode(void *buf, size_t cap, uint16_t t_id, uint8_t hl,
			   const uint8_t *rval, const uint8_t *cval,
			   uint32_t seqnum, const uint8_t *dhv, uint16_t dhvlen)
{
	size_t len = sizeof(struct nvme_auth_reply) + 2u * hl + dhvlen;
	uint8_t *p;

	if ((hl != 32 && hl != 48 && hl != 64) || dhvlen > NVME_AUTH_MAX_DH_LEN)
		return -EINVAL;
	p = msg_start(buf, cap, len, NVME_AUTH_DHCHAP_MESSAGES,
		      NVME_AUTH_ID_REPLY, t_id);
	if (!p)
		return -ENOSPC;
	p[6] = hl;
	p[8] = cval ? 1 : 0;
	nvme_put_le16(p + 10, dhvlen);
	nvme_put_le32(p + 12, cval ? seqnum : 0);
	memcpy(p + 16, rval, hl);
	if (cval)
		memcpy(p + 16 + hl, cval, hl);
	if (dhvlen)
		memcpy(p + 16 + 2 * hl, dhv, dhvlen);
	return (int)len;
}

int nvme_auth_success1_encode(void *buf, size_t cap, uint16_t t_id, uint8_t hl,
			      const uint8_t *rval)
{
	/* R2's room is always there (the kernel host reads hl bytes
	 * whether or not rvalid is set) */
	size_t len = sizeof(struct nvme_auth_success1) + hl;
	uint8_t *p;

	if (hl != 32 && hl != 48 && hl != 64)
		return -EINVAL;
	p = msg_start(buf, cap, len, NVME_AUTH_DHCHAP_MESSAGES,
		      NVME_AUTH_ID_SUCCESS1, t_id);
	if (!p)
		return -ENOSPC;
	p[6] = hl;
	if (rval) {
		p[8] = 1;
		memcpy(p + 16, rval, hl);
	}
	return (int)len;
}

int nvme_auth_success2_encode(void *buf, size_t cap, uint16_t t_id)
{
	size_t len = sizeof(struct nvme_auth_success2);

	if (!msg_start(buf, cap, len, NVME_AUTH_DHCHAP_MESSAGES,
		       NVME_AUTH_ID_SUCCESS2, t_id))
		return -ENOSPC;
	return (int)len;
}

int nvme_auth_failure_encode(void *buf, size_t cap, uint8_t auth_id,
			     uint16_t t_id, uint8_t reason)
{
	size_t len = sizeof(struct nvme_auth_failure_msg);
	uint8_t *p;

	if (auth_id != NVME_AUTH_ID_FAILURE1 &&
	    auth_id != NVME_AUTH_ID_FAILURE2)
		return -EINVAL;
	p = msg_start(buf, cap, len, NVME_AUTH_COMMON_MESSAGES, auth_id, t_id);
	if (!p)
		return -ENOSPC;
	p[6] = NVME_AUTH_RESCODE_FAILED;
	p[7] = reason;
	return (int)len;
}

/* ---- The exchange ---------------------------------------------------- */

static const uint8_t all_hashes[] = {
	NVME_AUTH_HASH_SHA256,
	NVME_AUTH_HASH_SHA384,
	NVME_AUTH_HASH_SHA512,
};
static const uint8_t all_dhgroups[] = {
	NVME_AUTH_DHGROUP_NULL, NVME_AUTH_DHGROUP_2048, NVME_AUTH_DHGROUP_3072,
	NVME_AUTH_DHGROUP_4096, NVME_AUTH_DHGROUP_6144, NVME_AUTH_DHGROUP_8192,
};

static void cfg_hashes(const struct nvme_auth_cfg *c, const uint8_t **l,
		       unsigned *n)
{
	*l = c->nr_hashes ? c->hashes : all_hashes;
	*n = c->nr_hashes ? c->nr_hashes : sizeof(all_hashes);
}

static void cfg_dhgroups(const struct nvme_auth_cfg *c, const uint8_t **l,
			 unsigned *n)
{
	*l = c->nr_dhgroups ? c->dhgroups : all_dhgroups;
	*n = c->nr_dhgroups ? c->nr_dhgroups : sizeof(all_dhgroups);
}

static bool in_list(const uint8_t *l, unsigned n, uint8_t v)
{
	for (unsigned i = 0; i < n; i++)
		if (l[i] == v)
			return true;
	return false;
}

static bool has_ctrl_key(const struct nvme_auth_cfg *c)
{
	return c->ctrl_key && c->ctrl_key->len;
}

/*
 * The responses of the exchange, from the transformed secrets: R1, the
 * host's to challenge C1 (the host computes it to send, the controller to
 * check), and R2, the controller's to C2. The transformed key is
 * cleansed before returning. 0 or -errno.
 */
static int host_response(const struct nvme_auth_exch *x,
			 const struct nvme_auth_cfg *c, uint8_t *r1)
{
	uint8_t key[NVME_AUTH_MAX_HASH_LEN];
	int key_len = nvme_auth_key_transform(c->host_key, c->hostnqn, key);
	int ret;

	if (key_len < 0)
		return key_len;
	ret = nvme_auth_response(x->hash, key, (size_t)key_len, x->c1,
				 x->sess_len ? x->sess : NULL, x->sess_len,
				 x->s1, x->t_id, 0, "HostHost", c->hostnqn,
				 c->subnqn, r1);
	OPENSSL_cleanse(key, sizeof(key));
	return ret;
}

static int ctrl_response(const struct nvme_auth_exch *x,
			 const struct nvme_auth_cfg *c, uint8_t *r2)
{
	uint8_t key[NVME_AUTH_MAX_HASH_LEN];
	int key_len = nvme_auth_key_transform(c->ctrl_key, c->subnqn, key);
	int ret;

	if (key_len < 0)
		return key_len;
	ret = nvme_auth_response(x->hash, key, (size_t)key_len, x->c2,
				 x->sess_len ? x->sess : NULL, x->sess_len,
				 x->s2, x->t_id, 0, "Controller", c->subnqn,
				 c->hostnqn, r2);
	OPENSSL_cleanse(key, sizeof(key));
	return ret;
}

void nvme_auth_exch_init(struct nvme_auth_exch *x,
			 const struct nvme_auth_cfg *cfg)
{
	memset(x, 0, sizeof(*x));
	x->cfg = cfg;
	x->state = NVME_AUTH_ST_IDLE;
}

void nvme_auth_exch_clear(struct nvme_auth_exch *x)
{
	EVP_PKEY_free(x->dh_key);
	OPENSSL_cleanse(x, sizeof(*x));
}

static void drop_dh(struct nvme_auth_exch *x)
{
	EVP_PKEY_free(x->dh_key);
	x->dh_key = NULL;
}

/* Fail with reason; out gets the Failure1/2 for it. */
static int fail(struct nvme_auth_exch *x, uint8_t auth_id, uint8_t reason,
		void *out, size_t cap, size_t *out_len)
{
	int n = nvme_auth_failure_encode(out, cap, auth_id, x->t_id, reason);

	drop_dh(x);
	OPENSSL_cleanse(x->sess, sizeof(x->sess));
	x->state = NVME_AUTH_ST_FAILED;
	x->failure = reason;
	*out_len = n > 0 ? (size_t)n : 0;
	return reason;
}

/* The peer sent a Failure1/2: fail with its reason, send nothing. */
static int peer_failed(struct nvme_auth_exch *x, uint8_t reason,
		       size_t *out_len)
{
	drop_dh(x);
	x->state = NVME_AUTH_ST_FAILED;
	x->failure = reason;
	x->peer_failed = true;
	*out_len = 0;
	return reason;
}

static int random_bytes(void *p, size_t n)
{
	return RAND_bytes(p, (int)n) == 1 ? 0 : -EIO;
}

/* A nonzero sequence number */
static int random_seqnum(uint32_t *s)
{
	do {
		if (random_bytes(s, sizeof(*s)))
			return -EIO;
	} while (*s == 0);
	return 0;
}

int nvme_auth_host_start(struct nvme_auth_exch *x, uint16_t t_id, void *out,
			 size_t cap, size_t *out_len)
{
	const uint8_t *h, *g;
	unsigned nh, ng;
	int n;

	*out_len = 0;
	if (x->state != NVME_AUTH_ST_IDLE)
		return -EBUSY;
	cfg_hashes(x->cfg, &h, &nh);
	cfg_dhgroups(x->cfg, &g, &ng);
	x->t_id = t_id;
	n = nvme_auth_negotiate_encode(out, cap, t_id, h, nh, g, ng);
	if (n < 0)
		return n;
	*out_len = (size_t)n;
	x->state = NVME_AUTH_ST_NEGOTIATE;
	return 0;
}

/* host or controller: a failure message where a step expected another */
static bool take_failure(struct nvme_auth_exch *x, const void *in,
			 size_t in_len, uint8_t fail_id, int *ret,
			 size_t *out_len)
{
	uint16_t t_id;
	uint8_t reason;

	if (nvme_auth_failure_decode(in, in_len, fail_id, &t_id, &reason))
		return false;
	*ret = peer_failed(x, reason, out_len);
	return true;
}

int nvme_auth_host_step_challenge(struct nvme_auth_exch *x, const void *in,
				  size_t in_len, void *out, size_t cap,
				  size_t *out_len)
{
	const struct nvme_auth_cfg *c = x->cfg;
	struct nvme_auth_challenge_info ch;
	uint8_t r1[NVME_AUTH_MAX_HASH_LEN];
	uint8_t pub[NVME_AUTH_MAX_DH_LEN];
	const uint8_t *l;
	unsigned nl;
	EVP_PKEY *pkey = NULL;
	int ret, n;

	*out_len = 0;
	if (x->state != NVME_AUTH_ST_NEGOTIATE)
		return -EBUSY;
	if (take_failure(x, in, in_len, NVME_AUTH_ID_FAILURE1, &ret, out_len))
		return ret;
	ret = nvme_auth_challenge_decode(in, in_len, &ch);
	if (ret)
		return fail(x, NVME_AUTH_ID_FAILURE2, (uint8_t)ret, out, cap,
			    out_len);
	if (ch.t_id != x->t_id)
		return fail(x, NVME_AUTH_ID_FAILURE2,
			    NVME_AUTH_FAIL_INCORRECT_MESSAGE, out, cap,
			    out_len);
	/* the controller must pick from what was offered */
	cfg_hashes(c, &l, &nl);
	if (!in_list(l, nl, ch.hash))
		return fail(x, NVME_AUTH_ID_FAILURE2,
			    NVME_AUTH_FAIL_HASH_UNUSABLE, out, cap, out_len);
	cfg_dhgroups(c, &l, &nl);
	if (!in_list(l, nl, ch.dhgroup))
		return fail(x, NVME_AUTH_ID_FAILURE2,
			    NVME_AUTH_FAIL_DHGROUP_UNUSABLE, out, cap, out_len);
	x->hash = ch.hash;
	x->dhgroup = ch.dhgroup;
	x->hl = ch.hl;
	x->s1 = ch.seqnum;
	memcpy(x->c1, ch.cval, ch.hl);

	if (ch.dhgroup != NVME_AUTH_DHGROUP_NULL) {
		ret = dh_generate(ch.dhgroup, &pkey, pub);
		if (ret)
			goto out;
		ret = dh_derive(pkey, ch.dhgroup, ch.dhv, ch.dhvlen, x->sess,
				&x->sess_len);
		EVP_PKEY_free(pkey);
		if (ret == -EPROTO)
			return fail(x, NVME_AUTH_ID_FAILURE2,
				    NVME_AUTH_FAIL_INCORRECT_PAYLOAD, out, cap,
				    out_len);
		if (ret)
			goto out;
	}
	ret = host_response(x, c, r1);
	if (ret)
		goto out;
	x->bidirectional = has_ctrl_key(c);
	if (x->bidirectional) {
		ret = random_seqnum(&x->s2);
		if (!ret)
			ret = random_bytes(x->c2, x->hl);
		if (ret)
			goto out;
	}
	n = nvme_auth_reply_encode(out, cap, x->t_id, x->hl, r1,
				   x->bidirectional ? x->c2 : NULL, x->s2, pub,
				   (uint16_t)nvme_auth_dhgroup_len(x->dhgroup));
	if (n < 0) {
		ret = n;
		goto out;
	}
	*out_len = (size_t)n;
	x->state = NVME_AUTH_ST_CHALLENGE;
	ret = 0;
out:
	if (ret < 0)
		x->state = NVME_AUTH_ST_FAILED;
	return ret;
}

int nvme_auth_host_step_success1(struct nvme_auth_exch *x, const void *in,
				 size_t in_len, void *out, size_t cap,
				 size_t *out_len)
{
	const struct nvme_auth_cfg *c = x->cfg;
	struct nvme_auth_success1_info s;
	uint8_t r2[NVME_AUTH_MAX_HASH_LEN];
	int ret, n;

	*out_len = 0;
	if (x->state != NVME_AUTH_ST_CHALLENGE)
		return -EBUSY;
	if (take_failure(x, in, in_len, NVME_AUTH_ID_FAILURE1, &ret, out_len))
		return ret;
	ret = nvme_auth_success1_decode(in, in_len, &s);
	if (ret)
		return fail(x, NVME_AUTH_ID_FAILURE2, (uint8_t)ret, out, cap,
			    out_len);
	if (s.t_id != x->t_id || s.hl != x->hl)
		return fail(x, NVME_AUTH_ID_FAILURE2,
			    NVME_AUTH_FAIL_INCORRECT_MESSAGE, out, cap,
			    out_len);
	if (!x->bidirectional) {
		/* one way: R2 is not expected; we are in */
		OPENSSL_cleanse(x->sess, sizeof(x->sess));
		x->state = NVME_AUTH_ST_DONE;
		return 0;
	}
	/* we asked the controller to prove itself and it did not */
	if (!s.rvalid)
		return fail(x, NVME_AUTH_ID_FAILURE2, NVME_AUTH_FAIL_FAILED,
			    out, cap, out_len);
	ret = ctrl_response(x, c, r2);
	if (ret)
		return ret;
	if (CRYPTO_memcmp(r2, s.rval, x->hl))
		return fail(x, NVME_AUTH_ID_FAILURE2, NVME_AUTH_FAIL_FAILED,
			    out, cap, out_len);
	n = nvme_auth_success2_encode(out, cap, x->t_id);
	if (n < 0)
		return n;
	*out_len = (size_t)n;
	OPENSSL_cleanse(x->sess, sizeof(x->sess));
	x->state = NVME_AUTH_ST_DONE;
	return 0;
}

int nvme_auth_ctrl_step_negotiate(struct nvme_auth_exch *x, const void *in,
				  size_t in_len, void *out, size_t cap,
				  size_t *out_len)
{
	struct nvme_auth_negotiate_info neg;
	uint8_t pub[NVME_AUTH_MAX_DH_LEN];
	const uint8_t *l;
	unsigned nl, i;
	uint16_t dhvlen;
	int ret, n;

	*out_len = 0;
	/* a new Negotiate restarts the exchange: re-authentication */
	drop_dh(x);
	x->state = NVME_AUTH_ST_IDLE;
	x->sess_len = 0;
	ret = nvme_auth_negotiate_decode(in, in_len, &neg);
	x->t_id = neg.t_id;
	if (ret)
		return fail(x, NVME_AUTH_ID_FAILURE1, (uint8_t)ret, out, cap,
			    out_len);
	if (neg.sc_c != 0)
		return fail(x, NVME_AUTH_ID_FAILURE1,
			    NVME_AUTH_FAIL_CONCAT_MISMATCH, out, cap, out_len);
	/* the controller's preference, among what the host offers */
	cfg_hashes(x->cfg, &l, &nl);
	for (i = 0; i < nl && !in_list(neg.hashes, neg.nr_hashes, l[i]); i++)
		;
	if (i == nl)
		return fail(x, NVME_AUTH_ID_FAILURE1,
			    NVME_AUTH_FAIL_HASH_UNUSABLE, out, cap, out_len);
	x->hash = l[i];
	x->hl = (uint8_t)nvme_auth_hash_len(x->hash);
	cfg_dhgroups(x->cfg, &l, &nl);
	for (i = 0; i < nl && !in_list(neg.dhgroups, neg.nr_dhgroups, l[i]);
	     i++)
		;
	if (i == nl)
		return fail(x, NVME_AUTH_ID_FAILURE1,
			    NVME_AUTH_FAIL_DHGROUP_UNUSABLE, out, cap, out_len);
	x->dhgroup = l[i];
	ret = random_seqnum(&x->s1);
	if (!ret)
		ret = random_bytes(x->c1, x->hl);
	if (!ret && x->dhgroup != NVME_AUTH_DHGROUP_NULL)
		ret = dh_generate(x->dhgroup, (EVP_PKEY **)&x->dh_key, pub);
	if (ret)
		goto err;
	dhvlen = (uint16_t)nvme_auth_dhgroup_len(x->dhgroup);
	n = nvme_auth_challenge_encode(out, cap, x->t_id, x->hash, x->dhgroup,
				       x->s1, x->c1, pub, dhvlen);
	if (n < 0) {
		ret = n;
		goto err;
	}
	*out_len = (size_t)n;
	x->state = NVME_AUTH_ST_CHALLENGE;
	return 0;
err:
	drop_dh(x);
	x->state = NVME_AUTH_ST_FAILED;
	return ret;
}

int nvme_auth_ctrl_step_reply(struct nvme_auth_exch *x, const void *in,
			      size_t in_len, void *out, size_t cap,
			      size_t *out_len)
{
	const struct nvme_auth_cfg *c = x->cfg;
	struct nvme_auth_reply_info r;
	uint8_t want[NVME_AUTH_MAX_HASH_LEN];
	uint8_t r2[NVME_AUTH_MAX_HASH_LEN];
	int ret, n;

	*out_len = 0;
	if (x->state != NVME_AUTH_ST_CHALLENGE)
		return -EBUSY;
	if (take_failure(x, in, in_len, NVME_AUTH_ID_FAILURE2, &ret, out_len))
		return ret;
	ret = nvme_auth_reply_decode(in, in_len, &r);
	if (ret)
		return fail(x, NVME_AUTH_ID_FAILURE1, (uint8_t)ret, out, cap,
			    out_len);
	if (r.t_id != x->t_id)
		return fail(x, NVME_AUTH_ID_FAILURE1,
			    NVME_AUTH_FAIL_INCORRECT_MESSAGE, out, cap,
			    out_len);
	if (r.hl != x->hl ||
	    (x->dhgroup == NVME_AUTH_DHGROUP_NULL) != (r.dhvlen == 0) ||
	    r.dhvlen > nvme_auth_dhgroup_len(x->dhgroup))
		return fail(x, NVME_AUTH_ID_FAILURE1,
			    NVME_AUTH_FAIL_INCORRECT_PAYLOAD, out, cap,
			    out_len);
	/* the host wants us to prove ourselves, and we have no key to */
	if (r.cvalid && !has_ctrl_key(c))
		return fail(x, NVME_AUTH_ID_FAILURE1, NVME_AUTH_FAIL_FAILED,
			    out, cap, out_len);
	if (x->dhgroup != NVME_AUTH_DHGROUP_NULL) {
		ret = dh_derive(x->dh_key, x->dhgroup, r.dhv, r.dhvlen, x->sess,
				&x->sess_len);
		drop_dh(x);
		if (ret == -EPROTO)
			return fail(x, NVME_AUTH_ID_FAILURE1,
				    NVME_AUTH_FAIL_INCORRECT_PAYLOAD, out, cap,
				    out_len);
		if (ret)
			goto out;
	}
	ret = host_response(x, c, want);
	if (ret)
		goto out;
	if (CRYPTO_memcmp(want, r.rval, x->hl)) {
		ret = fail(x, NVME_AUTH_ID_FAILURE1, NVME_AUTH_FAIL_FAILED, out,
			   cap, out_len);
		goto out;
	}
	x->bidirectional = r.cvalid;
	if (x->bidirectional) {
		x->s2 = r.seqnum;
		memcpy(x->c2, r.cval, x->hl);
		ret = ctrl_response(x, c, r2);
		if (ret)
			goto out;
	}
	n = nvme_auth_success1_encode(out, cap, x->t_id, x->hl,
				      x->bidirectional ? r2 : NULL);
	if (n < 0) {
		ret = n;
		goto out;
	}
	*out_len = (size_t)n;
	x->state = x->bidirectional ? NVME_AUTH_ST_SUCCESS1 : NVME_AUTH_ST_DONE;
	ret = 0;
out:
	OPENSSL_cleanse(x->sess, sizeof(x->sess));
	if (ret < 0)
		x->state = NVME_AUTH_ST_FAILED;
	return ret;
}

int nvme_auth_ctrl_step_success2(struct nvme_auth_exch *x, const void *in,
				 size_t in_len)
{
	size_t none;
	uint16_t t_id;
	int ret;

	if (x->state != NVME_AUTH_ST_SUCCESS1)
		return -EBUSY;
	if (take_failure(x, in, in_len, NVME_AUTH_ID_FAILURE2, &ret, &none))
		return ret;
	ret = nvme_auth_success2_decode(in, in_len, &t_id);
	if (!ret && t_id != x->t_id)
		ret = NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (ret) {
		x->state = NVME_AUTH_ST_FAILED;
		x->failure = (uint8_t)ret;
		return ret;
	}
	x->state = NVME_AUTH_ST_DONE;
	return 0;
}
