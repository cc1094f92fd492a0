// SPDX-License-Identifier: MIT
/*
 * TLS 1.3 with PSKs over a socket for NVMe/TCP: the OpenSSL context,
 * sessions and the non-blocking read/write wrappers (tls_ssl.h).
 */
#include <errno.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "tls.h"
#include "tls_ssl.h"

SSL_CTX *nvme_tls_ctx_new(bool server, char *err, size_t errlen)
{
	SSL_CTX *ctx =
		SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
	char why[160];

	if (!ctx)
		goto fail;
	if (SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) != 1 ||
	    SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) != 1 ||
	    SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256:"
					  "TLS_AES_256_GCM_SHA384") != 1 ||
	    SSL_CTX_set_num_tickets(ctx, 0) != 1)
		goto fail;
	/* no resumption: every connection proves the key afresh. A peer
	 * closing its socket without close_notify has closed the queue,
	 * as on a plaintext one (the kernel's hosts close so) */
	SSL_CTX_set_options(ctx,
			    SSL_OP_NO_TICKET | SSL_OP_IGNORE_UNEXPECTED_EOF);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	/* read as much as the socket has, up to 64 KiB, in one read() (not
	 * a record header, then its body): the callers read until OpenSSL
	 * says WANT_READ, and a reactor that stops early checks
	 * SSL_has_pending, so nothing buffered here waits for an epoll
	 * event that will not come */
	SSL_CTX_set_read_ahead(ctx, 1);
	SSL_CTX_set_default_read_buffer_len(ctx, 65536);
	return ctx;
fail:
	nvme_tls_errstr(why, sizeof(why));
	snprintf(err, errlen, "TLS: cannot set up OpenSSL: %s", why);
	SSL_CTX_free(ctx);
	return NULL;
}

SSL_SESSION *nvme_tls_session(SSL *ssl, const uint8_t *psk, size_t len,
			      uint8_t hash)
{
	/* the suites' IANA numbers: 13 01 and 13 02 */
	const unsigned char id[2] = { 0x13, hash == NVME_TLS_HASH_SHA384 ?
						    0x02 :
						    0x01 };
	const SSL_CIPHER *c = SSL_CIPHER_find(ssl, id);
	SSL_SESSION *s;

	if (!c || !nvme_tls_cipher_name(hash))
		return NULL;
	s = SSL_SESSION_new();
	if (!s)
		return NULL;
	if (SSL_SESSION_set1_master_key(s, psk, len) != 1 ||
	    SSL_SESSION_set_cipher(s, c) != 1 ||
	    SSL_SESSION_set_protocol_version(s, TLS1_3_VERSION) != 1) {
		SSL_SESSION_free(s);
		return NULL;
	}
	return s;
}

void nvme_tls_errstr(char *buf, size_t len)
{
	unsigned long e = ERR_get_error();

	if (!e)
		snprintf(buf, len, "no OpenSSL error");
	else
		ERR_error_string_n(e, buf, len);
	ERR_clear_error();
}

/* errno for an SSL_get_error answer; 0 for a clean close */
static int ssl_errno(SSL *ssl, int ret)
{
	switch (SSL_get_error(ssl, ret)) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE:
		return EAGAIN;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	case SSL_ERROR_SYSCALL:
		/* EOF without close_notify is a close; errno otherwise */
		ERR_clear_error();
		return errno ? errno : 0;
	default:
		ERR_clear_error();
		return EPROTO;
	}
}

ssize_t nvme_tls_read(SSL *ssl, void *buf, size_t len)
{
	size_t n = 0;
	int ret, e;

	errno = 0;
	ret = SSL_read_ex(ssl, buf, len, &n);
	if (ret == 1)
		return (ssize_t)n;
	e = ssl_errno(ssl, ret);
	if (!e)
		return 0;
	errno = e;
	return -1;
}

ssize_t nvme_tls_writev(SSL *ssl, struct nvme_tls_wbuf *w,
			const struct iovec *iov, unsigned niov)
{
	size_t n = 0;
	int ret, e;

	if (!w->pending) {
		for (unsigned i = 0; i < niov && n < sizeof(w->buf); i++) {
			size_t k = iov[i].iov_len;

			if (k > sizeof(w->buf) - n)
				k = sizeof(w->buf) - n;
			memcpy(w->buf + n, iov[i].iov_base, k);
			n += k;
		}
		if (!n)
			return 0;
		w->pending = n;
	}
	errno = 0;
	ret = SSL_write_ex(ssl, w->buf, w->pending, &n);
	if (ret == 1) {
		w->pending = 0;
		return (ssize_t)n;
	}
	e = ssl_errno(ssl, ret);
	errno = e ? e : EPIPE;
	return -1;
}
