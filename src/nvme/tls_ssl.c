// SPDX-License-Identifier: MIT
/*
 * TLS 1.3 with PSKs over a socket for NVMe/TCP: the OpenSSL context,
 * sessions and the non-blocking read/write wrappers (tls_ssl.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/bio.h>
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
	/* read as much as the socket has in one read() (not a record
	 * header, then its body): the callers read until OpenSSL says
	 * WANT_READ, and a reactor that stops early checks
	 * SSL_has_pending, so nothing buffered here waits for an epoll
	 * event that will not come. Into OpenSSL's own buffer, one
	 * record's worth (its default), not more: before each record
	 * OpenSSL moves all it holds past it to the buffer's start (to
	 * align the payload), so a 64 KiB buffer holding four 16 KiB
	 * records copied about 2.3 bytes more for each byte of a 128 KiB
	 * read (callgrind); with one record's worth only the next
	 * record's first bytes move, for one read() per record */
	SSL_CTX_set_read_ahead(ctx, 1);
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

/*
 * The socket under a TLS queue: OpenSSL's socket BIO, but for one flag.
 * OpenSSL writes each record with its own send, so a 128 KiB payload is
 * eight sends of 16 KiB, each pushed to the wire (TCP_NODELAY) as a
 * segment of its own: on loopback, each a pass through the peer's
 * receive path and a wake-up of its reader. A writer that knows more
 * records follow at once (nvme_tls_writev: bytes of the same gathered
 * write still to come) says so, and the send goes with MSG_MORE: the
 * kernel builds full segments and pushes them when the last record (no
 * MSG_MORE) is written. Nothing is held back by it past that last
 * record: a writer stopped by EAGAIN offers the rest again, and the
 * kernel pushes what an ACK lets out meanwhile (MSG_MORE corks only the
 * send it is given to).
 */
struct tls_sock {
	int fd;
	bool more; /* the next records' sends: more follow */
	bool eof; /* recv said 0: the peer closed */
};

static int tls_sock_write(BIO *b, const char *buf, int len)
{
	struct tls_sock *s = BIO_get_data(b);
	ssize_t n;

	BIO_clear_retry_flags(b);
	n = send(s->fd, buf, (size_t)len,
		 MSG_NOSIGNAL | (s->more ? MSG_MORE : 0));
	if (n < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		BIO_set_retry_write(b);
	return (int)n;
}

static int tls_sock_read(BIO *b, char *buf, int len)
{
	struct tls_sock *s = BIO_get_data(b);
	ssize_t n;

	BIO_clear_retry_flags(b);
	n = recv(s->fd, buf, (size_t)len, 0);
	if (n < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		BIO_set_retry_read(b);
	else if (n == 0)
		s->eof = true;
	return (int)n;
}

static long tls_sock_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	struct tls_sock *s = BIO_get_data(b);

	(void)num;
	switch (cmd) {
	case BIO_C_GET_FD:
		if (ptr)
			*(int *)ptr = s->fd;
		return s->fd;
	case BIO_CTRL_EOF:
		/* SSL_OP_IGNORE_UNEXPECTED_EOF asks: a close, not an error */
		return s->eof;
	case BIO_CTRL_FLUSH:
		return 1;
	default:
		return 0;
	}
}

static int tls_sock_destroy(BIO *b)
{
	free(BIO_get_data(b));
	BIO_set_data(b, NULL);
	BIO_set_init(b, 0);
	return 1;
}

static BIO_METHOD *tls_sock_meth;
static int tls_sock_type;
static pthread_once_t tls_sock_once = PTHREAD_ONCE_INIT;

static void tls_sock_meth_init(void)
{
	int idx = BIO_get_new_index();
	BIO_METHOD *m;

	if (idx < 0)
		return;
	tls_sock_type = idx | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR;
	m = BIO_meth_new(tls_sock_type, "nvme-tcp socket");
	if (!m)
		return;
	if (BIO_meth_set_write(m, tls_sock_write) != 1 ||
	    BIO_meth_set_read(m, tls_sock_read) != 1 ||
	    BIO_meth_set_ctrl(m, tls_sock_ctrl) != 1 ||
	    BIO_meth_set_destroy(m, tls_sock_destroy) != 1) {
		BIO_meth_free(m);
		return;
	}
	tls_sock_meth = m;
}

int nvme_tls_set_fd(SSL *ssl, int fd)
{
	struct tls_sock *s;
	BIO *b;

	pthread_once(&tls_sock_once, tls_sock_meth_init);
	if (!tls_sock_meth)
		return -ENOMEM;
	s = calloc(1, sizeof(*s));
	b = s ? BIO_new(tls_sock_meth) : NULL;
	if (!b) {
		free(s);
		return -ENOMEM;
	}
	s->fd = fd;
	BIO_set_data(b, s);
	BIO_set_init(b, 1);
	SSL_set_bio(ssl, b, b);
	return 0;
}

/* Say whether the records of the next SSL_write have more behind them. */
static void tls_sock_more(SSL *ssl, bool more)
{
	BIO *b = SSL_get_wbio(ssl);

	if (b && BIO_method_type(b) == tls_sock_type) {
		struct tls_sock *s = BIO_get_data(b);

		s->more = more;
	}
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
	const void *from;
	size_t n = 0, total = 0;
	int ret, e;

	if (!w->pending) {
		unsigned i = 0;

		while (i < niov && !iov[i].iov_len)
			i++;
		if (i < niov && iov[i].iov_len >= NVME_TLS_DIRECT) {
			/* a payload: its own record(s), from where it is */
			w->direct = iov[i].iov_base;
			n = iov[i].iov_len < sizeof(w->buf) ? iov[i].iov_len :
							      sizeof(w->buf);
		} else {
			w->direct = NULL;
			for (; i < niov && n < sizeof(w->buf); i++) {
				size_t k = iov[i].iov_len;

				if (k >= NVME_TLS_DIRECT)
					break; /* the next call sends it */
				if (k > sizeof(w->buf) - n)
					k = sizeof(w->buf) - n;
				memcpy(w->buf + n, iov[i].iov_base, k);
				n += k;
			}
		}
		if (!n)
			return 0;
		w->pending = n;
	}
	/* a retry offers OpenSSL the same bytes at the same address, as it
	 * requires: the buffer's, or the caller's (still its first iovec) */
	from = w->direct ? w->direct : w->buf;
	for (unsigned i = 0; i < niov; i++)
		total += iov[i].iov_len;
	tls_sock_more(ssl, total > w->pending);
	errno = 0;
	ret = SSL_write_ex(ssl, from, w->pending, &n);
	tls_sock_more(ssl, false);
	if (ret == 1) {
		w->pending = 0;
		w->direct = NULL;
		return (ssize_t)n;
	}
	e = ssl_errno(ssl, ret);
	errno = e ? e : EPIPE;
	return -1;
}

void nvme_tls_close_notify(SSL *ssl, const struct nvme_tls_wbuf *w)
{
	/* a fatal error leaves OpenSSL in init: SSL_is_init_finished is
	 * false there, as SSL_shutdown must not follow one */
	if (!ssl || !SSL_is_init_finished(ssl) || (w && w->pending))
		return;
	tls_sock_more(ssl, false);
	if (SSL_shutdown(ssl) < 0)
		ERR_clear_error(); /* the peer gone, or the socket full */
}
