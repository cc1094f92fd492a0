// SPDX-License-Identifier: MIT
/*
 * kTLS for NVMe/TCP (ktls.h): the application traffic keys of a TLS 1.3
 * handshake OpenSSL ran, handed to the kernel's tls module by hand
 * (Debian's OpenSSL 3.0 is built without its own kTLS support).
 */
#include <errno.h>
#include <linux/tls.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/ssl.h>

#include "ktls.h"
#include "tls.h"

#ifndef SOL_TLS
#define SOL_TLS 282
#endif

/* TLS record content types (RFC 8446 B.1) */
#define REC_ALERT 21
#define REC_HANDSHAKE 22
#define REC_DATA 23

/* The two application traffic secrets of one handshake, kept from the
 * keylog callback to nvme_ktls_start (then wiped) */
struct ktls_secrets {
	uint8_t client[48], server[48];
	uint8_t client_len, server_len;
};

static int ex_idx = -1;
static pthread_once_t ex_once = PTHREAD_ONCE_INIT;

static void secrets_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx,
			 long argl, void *argp)
{
	(void)parent;
	(void)ad;
	(void)idx;
	(void)argl;
	(void)argp;
	OPENSSL_clear_free(ptr, sizeof(struct ktls_secrets));
}

static void ex_init(void)
{
	ex_idx = SSL_get_ex_new_index(0, NULL, NULL, NULL, secrets_free);
}

/* "LABEL <client random> <secret>", in hex: only the two application
 * traffic secrets of an SSL that asked are kept; the line is never
 * written anywhere */
static void keylog(const SSL *ssl, const char *line)
{
	struct ktls_secrets *s = SSL_get_ex_data(ssl, ex_idx);
	const char *hex;
	uint8_t *out, *len;
	size_t n, i;

	if (!s)
		return;
	if (!strncmp(line, "CLIENT_TRAFFIC_SECRET_0 ", 24)) {
		out = s->client;
		len = &s->client_len;
	} else if (!strncmp(line, "SERVER_TRAFFIC_SECRET_0 ", 24)) {
		out = s->server;
		len = &s->server_len;
	} else {
		return;
	}
	hex = strrchr(line, ' ') + 1;
	n = strlen(hex);
	if (n % 2 || n / 2 > sizeof(s->client))
		return;
	for (i = 0; i < n / 2; i++) {
		int hi = OPENSSL_hexchar2int((unsigned char)hex[2 * i]),
		    lo = OPENSSL_hexchar2int((unsigned char)hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = (uint8_t)(n / 2);
}

void nvme_ktls_ctx_prepare(SSL_CTX *ctx)
{
	pthread_once(&ex_once, ex_init);
	SSL_CTX_set_keylog_callback(ctx, keylog);
}

int nvme_ktls_want(SSL *ssl)
{
	struct ktls_secrets *s;

	pthread_once(&ex_once, ex_init);
	if (ex_idx < 0)
		return -ENOMEM;
	s = OPENSSL_zalloc(sizeof(*s));
	if (!s || SSL_set_ex_data(ssl, ex_idx, s) != 1) {
		OPENSSL_free(s);
		return -ENOMEM;
	}
	SSL_set_read_ahead(ssl, 0);
	return 0;
}

/* HKDF-Expand-Label(secret, label, "", len) of RFC 8446 7.1: the secret
 * is already a pseudorandom key (expand only) */
static int expand_label(const EVP_MD *md, const uint8_t *secret,
			size_t secret_len, const char *label, uint8_t *out,
			size_t len)
{
	uint8_t info[NVME_TLS_HKDF_LABEL_MAX];
	size_t out_len = len;
	EVP_PKEY_CTX *pctx;
	int ret = -EIO, pos;

	pos = nvme_tls_hkdf_label(info, len, label, NULL, 0); /* no context */
	if (pos < 0)
		return pos;
	pctx = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
	if (!pctx)
		return -ENOMEM;
	if (EVP_PKEY_derive_init(pctx) == 1 &&
	    EVP_PKEY_CTX_set_hkdf_mode(pctx, EVP_PKEY_HKDEF_MODE_EXPAND_ONLY) ==
		    1 &&
	    EVP_PKEY_CTX_set_hkdf_md(pctx, md) == 1 &&
	    EVP_PKEY_CTX_set1_hkdf_key(pctx, secret, (int)secret_len) == 1 &&
	    EVP_PKEY_CTX_add1_hkdf_info(pctx, info, pos) == 1 &&
	    EVP_PKEY_derive(pctx, out, &out_len) == 1 && out_len == len)
		ret = 0;
	EVP_PKEY_CTX_free(pctx);
	return ret;
}

/* Either suite's crypto_info: the 256-bit one is the 128-bit one with a
 * longer key, the same layout otherwise */
union ktls_crypto {
	struct tls12_crypto_info_aes_gcm_128 g128;
	struct tls12_crypto_info_aes_gcm_256 g256;
};

/* One direction's crypto_info from its traffic secret, at record
 * sequence number 0: the IV's first 4 bytes are the "salt", the other 8
 * the "iv" (the kernel XORs the sequence number in, as RFC 8446 5.3) */
static int crypto_info(union ktls_crypto *ci, bool aes256, const EVP_MD *md,
		       const uint8_t *secret, size_t secret_len)
{
	uint8_t key[32], iv[12];
	size_t klen = aes256 ? 32 : 16;
	int ret;

	memset(ci, 0, sizeof(*ci));
	ret = expand_label(md, secret, secret_len, "key", key, klen);
	if (!ret)
		ret = expand_label(md, secret, secret_len, "iv", iv,
				   sizeof(iv));
	if (ret)
		goto out;
	if (aes256) {
		ci->g256.info.version = TLS_1_3_VERSION;
		ci->g256.info.cipher_type = TLS_CIPHER_AES_GCM_256;
		memcpy(ci->g256.salt, iv, 4);
		memcpy(ci->g256.iv, iv + 4, 8);
		memcpy(ci->g256.key, key, klen);
	} else {
		ci->g128.info.version = TLS_1_3_VERSION;
		ci->g128.info.cipher_type = TLS_CIPHER_AES_GCM_128;
		memcpy(ci->g128.salt, iv, 4);
		memcpy(ci->g128.iv, iv + 4, 8);
		memcpy(ci->g128.key, key, klen);
	}
out:
	OPENSSL_cleanse(key, sizeof(key));
	OPENSSL_cleanse(iv, sizeof(iv));
	return ret;
}

/* Back to OpenSSL's records: reads as before nvme_ktls_want */
static int stay(SSL *ssl)
{
	struct ktls_secrets *s = SSL_get_ex_data(ssl, ex_idx);

	if (s) {
		SSL_set_ex_data(ssl, ex_idx, NULL);
		OPENSSL_clear_free(s, sizeof(*s));
	}
	SSL_set_read_ahead(ssl, 1);
	return 0;
}

/* The cipher suite's AES key size (16 or 32) and hash; 0 if neither of
 * TP 8011's */
static size_t suite(const SSL *ssl, const EVP_MD **md)
{
	const SSL_CIPHER *c = SSL_get_current_cipher(ssl);

	switch (c ? SSL_CIPHER_get_id(c) & 0xffff : 0) {
	case 0x1301: /* TLS_AES_128_GCM_SHA256 */
		*md = EVP_sha256();
		return 16;
	case 0x1302: /* TLS_AES_256_GCM_SHA384 */
		*md = EVP_sha384();
		return 32;
	default:
		return 0;
	}
}

int nvme_ktls_crypto_info(SSL *ssl, bool tx, void *ci, size_t cap)
{
	struct ktls_secrets *s = ex_idx >= 0 ? SSL_get_ex_data(ssl, ex_idx) :
					       NULL;
	const EVP_MD *md = NULL;
	size_t klen = suite(ssl, &md);
	union ktls_crypto u;
	size_t len = klen == 32 ? sizeof(u.g256) : sizeof(u.g128);
	bool client = SSL_is_server(ssl) ? !tx : tx;

	if (!s || !s->client_len || s->client_len != s->server_len)
		return -ENOKEY;
	if (!klen)
		return -EOPNOTSUPP;
	if (cap < len)
		return -ENOSPC;
	if (crypto_info(&u, klen == 32, md, client ? s->client : s->server,
			s->client_len))
		return -EIO;
	memcpy(ci, &u, len);
	OPENSSL_cleanse(&u, sizeof(u));
	return (int)len;
}

int nvme_ktls_start(SSL *ssl, int fd, char *err, size_t errlen)
{
	union ktls_crypto tx, rx;
	const EVP_MD *md;
	int ret, len;

	/* nothing of the application phase read yet: the kernel starts at
	 * record 0 both ways (no read-ahead since nvme_ktls_want; the
	 * target sends no NewSessionTicket; nothing was written since the
	 * handshake) */
	if (SSL_has_pending(ssl)) {
		snprintf(err, errlen,
			 "kTLS: OpenSSL has read past the handshake (%d "
			 "bytes): the queue stays on its records",
			 SSL_pending(ssl));
		return stay(ssl);
	}
	if (!suite(ssl, &md)) {
		snprintf(err, errlen, "kTLS: cipher suite %s not handled",
			 SSL_get_cipher_name(ssl));
		return stay(ssl);
	}
	len = nvme_ktls_crypto_info(ssl, true, &tx, sizeof(tx));
	ret = len < 0 ? len :
			nvme_ktls_crypto_info(ssl, false, &rx, sizeof(rx));
	if (ret < 0) {
		snprintf(err, errlen, "kTLS: %s",
			 ret == -ENOKEY ? "OpenSSL gave no application traffic "
					  "secrets" :
					  "cannot derive the traffic keys");
		ret = stay(ssl);
		goto out;
	}
	if (setsockopt(fd, SOL_TCP, TCP_ULP, "tls", 3)) {
		if (errno == ENOENT)
			snprintf(err, errlen, "kTLS: %s", NVME_KTLS_NO_MODULE);
		else
			snprintf(err, errlen,
				 "kTLS: the kernel refuses TCP_ULP \"tls\": %s",
				 strerror(errno));
		ret = stay(ssl);
		goto out;
	}
	/* with the ULP and no keys the socket still passes bytes as they
	 * are: a refused TLS_TX leaves OpenSSL's records working */
	if (setsockopt(fd, SOL_TLS, TLS_TX, &tx, (socklen_t)len)) {
		snprintf(err, errlen, "kTLS: the kernel refuses TLS_TX: %s",
			 strerror(errno));
		ret = stay(ssl);
		goto out;
	}
	if (setsockopt(fd, SOL_TLS, TLS_RX, &rx, (socklen_t)len)) {
		ret = -errno;
		snprintf(err, errlen,
			 "kTLS: the kernel took TLS_TX, refuses TLS_RX: %s",
			 strerror(errno));
		goto out;
	}
	stay(ssl); /* wipes the secrets; ssl is not read again */
	ret = 1;
out:
	OPENSSL_cleanse(&tx, sizeof(tx));
	OPENSSL_cleanse(&rx, sizeof(rx));
	return ret;
}

ssize_t nvme_ktls_recv(int fd, struct nvme_ktls_rx *st, void *buf, size_t len)
{
	for (;;) {
		union {
			char buf[CMSG_SPACE(sizeof(uint8_t))];
			struct cmsghdr align;
		} cb;
		struct iovec iov = { .iov_base = buf, .iov_len = len };
		struct msghdr mh = { .msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = cb.buf,
				     .msg_controllen = sizeof(cb.buf) };
		struct cmsghdr *cm;
		uint8_t type = REC_DATA;
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

		if (n <= 0)
			return n;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_TLS &&
			    cm->cmsg_type == TLS_GET_RECORD_TYPE)
				type = *(uint8_t *)CMSG_DATA(cm);
		if (type == REC_DATA)
			return n;
		if (type == REC_ALERT) {
			const uint8_t *a = buf;

			/* close_notify (warning 1, 0): the peer's close */
			if (n >= 2 && a[1] == 0)
				return 0;
			errno = ECONNABORTED;
			return -1;
		}
		if (type != REC_HANDSHAKE ||
		    nvme_ktls_hs_skip(st, buf, (size_t)n)) {
			errno = EPROTO;
			return -1;
		}
	}
}

void nvme_ktls_close_notify(int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(uint8_t))];
		struct cmsghdr align;
	} cb;
	uint8_t alert[2] = { 1, 0 }; /* warning, close_notify */
	struct iovec iov = { .iov_base = alert, .iov_len = sizeof(alert) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cb.buf,
			     .msg_controllen = sizeof(cb.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	memset(&cb, 0, sizeof(cb));
	cm->cmsg_level = SOL_TLS;
	cm->cmsg_type = TLS_SET_RECORD_TYPE;
	cm->cmsg_len = CMSG_LEN(sizeof(uint8_t));
	*(uint8_t *)CMSG_DATA(cm) = REC_ALERT;
	(void)sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
}

bool nvme_ktls_first(bool used)
{
	static atomic_bool said_on, said_off;

	return !atomic_exchange(used ? &said_on : &said_off, true);
}
