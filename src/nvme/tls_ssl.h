/* SPDX-License-Identifier: MIT */
/*
 * The TLS 1.3 record layer NVMe/TCP runs over (OpenSSL's libssl): a
 * PSK-only context, a session for a derived TLS PSK, and non-blocking
 * read and gathered write with the sockets' conventions (-1 and EAGAIN
 * when the socket must wait). Shared by the target's and the host's
 * NVMe/TCP code; the keys and identities are tls.c's.
 */
#ifndef MQBLK_NVME_TLS_SSL_H
#define MQBLK_NVME_TLS_SSL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <openssl/ssl.h>

/* One TLS record's worth of plaintext: a gathered write copies up to this
 * much and writes it in one SSL_write (one record, one send). */
#define NVME_TLS_WBUF 16384

/* A write that the socket pushed back: OpenSSL wants the same bytes again,
 * so they stay here until it takes them. */
struct nvme_tls_wbuf {
	size_t pending;
	/* a direct write pushed back: the caller's bytes (which it keeps
	 * until they are taken), offered again as they are */
	const void *direct;
	uint8_t buf[NVME_TLS_WBUF];
};

/* An iovec at least this long is written from where it lies (its own
 * records, up to NVME_TLS_WBUF each), not copied into the buffer: a
 * whole record's worth, so a big payload's records start at its first
 * byte (the receiver then reads them straight into the request's buffer,
 * nothing staged) and the PDUs of small I/O still share one record (a
 * record of its own costs an SSL_write and an SSL_read, several thousand
 * instructions each: more than copying 4 or 8 KiB). */
#define NVME_TLS_DIRECT NVME_TLS_WBUF

/* A TLS 1.3-only context, no certificates, the two cipher suites TP 8011
 * names, no session tickets: NULL with a one-line reason in err. */
SSL_CTX *nvme_tls_ctx_new(bool server, char *err, size_t errlen);
/* A session holding psk (len bytes) for the cipher suite of hash
 * (enum nvme_tls_hash), to hand to OpenSSL's PSK callbacks; NULL if
 * OpenSSL refuses. */
SSL_SESSION *nvme_tls_session(SSL *ssl, const uint8_t *psk, size_t len,
			      uint8_t hash);
/* What OpenSSL last said went wrong, in one line (its error queue is
 * emptied); "no OpenSSL error" if it said nothing. */
void nvme_tls_errstr(char *buf, size_t len);

/* Put ssl on socket fd (SSL_set_fd's part, but for the MSG_MORE of
 * nvme_tls_writev's records that have more behind them): 0 or -ENOMEM. */
int nvme_tls_set_fd(SSL *ssl, int fd);

/* SSL_read: bytes read, 0 at the peer's close, -1 with errno (EAGAIN: the
 * socket has nothing yet). */
ssize_t nvme_tls_read(SSL *ssl, void *buf, size_t len);
/* Gathered write: bytes of iov taken (up to NVME_TLS_WBUF), or -1 with
 * errno (EAGAIN: call again with iov starting at the same byte, its
 * bytes unchanged). Small iovecs are copied together into one record; an
 * iovec of NVME_TLS_DIRECT bytes or more ends the copy and, first, is
 * encrypted from its own memory (no copy). */
ssize_t nvme_tls_writev(SSL *ssl, struct nvme_tls_wbuf *w,
			const struct iovec *iov, unsigned niov);
/* close_notify (RFC 8446 6.1) before the socket closes, if the socket
 * takes it now: not before the handshake is done, not after a fatal
 * alert, not behind a record pushed back half sent (w, may be NULL) */
void nvme_tls_close_notify(SSL *ssl, const struct nvme_tls_wbuf *w);

#endif
