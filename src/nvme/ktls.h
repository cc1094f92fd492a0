/* SPDX-License-Identifier: MIT */
/*
 * kTLS for NVMe/TCP: after OpenSSL's TLS 1.3 handshake the kernel's tls
 * module takes the record layer (TCP_ULP "tls", TLS_TX/TLS_RX with keys
 * derived here from the application traffic secrets OpenSSL's keylog
 * callback hands over), so the queue sends and receives with plain
 * sendmsg/recvmsg. Shared by the target's and the host's NVMe/TCP code.
 */
#ifndef MQBLK_NVME_KTLS_H
#define MQBLK_NVME_KTLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <openssl/ssl.h>

/* --ktls= / ktls=: auto (the default: kTLS where the kernel has it, else
 * OpenSSL's record layer), off, on (no kTLS fails the connection) */
enum nvme_ktls_mode {
	NVME_KTLS_AUTO = 0,
	NVME_KTLS_OFF,
	NVME_KTLS_ON,
};

/* Why kTLS is not there, where TCP_ULP "tls" answers ENOENT (without
 * CAP_NET_ADMIN the kernel does not load the module on demand) */
#define NVME_KTLS_NO_MODULE                                       \
	"this kernel has no tls module loaded (TCP_ULP \"tls\": " \
	"ENOENT; only CAP_NET_ADMIN loads it on demand)"

/* "auto", "off" or "on": 0, or -EINVAL */
int nvme_ktls_mode_parse(const char *s, uint8_t *mode);

/* Whether this kernel has the tls ULP at all (an unconnected socket
 * asked for it: ENOENT if not): 0, or -errno with a one-line reason. */
int nvme_ktls_probe(char *err, size_t errlen);

/* Install the keylog callback on ctx (once, before any handshake): it
 * keeps the application traffic secrets of an SSL given to
 * nvme_ktls_want, and nothing of any other. */
void nvme_ktls_ctx_prepare(SSL_CTX *ctx);
/* Before ssl's handshake: keep its traffic secrets, and read no further
 * than each record (no read-ahead: nothing of the application phase is
 * to sit in OpenSSL's buffer at the switch). 0 or -ENOMEM. */
int nvme_ktls_want(SSL *ssl);

/*
 * After ssl's handshake on fd: give the record layer to the kernel.
 * 1: done, the secrets are wiped; ssl must not read or write again (free
 * it: SSL_free sends nothing) and fd is used with sendmsg (no
 * MSG_ZEROCOPY: software kTLS refuses it) and nvme_ktls_recv.
 * 0: fd stays OpenSSL's (read-ahead restored), the reason in err (no tls
 * module, or OpenSSL already holds bytes past the handshake).
 * -errno: the socket is half switched and unusable: close it.
 */
int nvme_ktls_start(SSL *ssl, int fd, char *err, size_t errlen);

/* The crypto_info (struct tls12_crypto_info_aes_gcm_128 or _256) nvme_ktls_start
 * gives the kernel for ssl's sending (tx) or receiving direction, at
 * record 0, into ci (cap bytes): its length, or -ENOKEY (no secrets
 * kept), -EOPNOTSUPP (another cipher suite), -ENOSPC, -EIO. For tests
 * (the keys checked against OpenSSL's own records). */
int nvme_ktls_crypto_info(SSL *ssl, bool tx, void *ci, size_t cap);

/* A kTLS socket's receive state: a handshake message from the peer
 * (a NewSessionTicket) being skipped across records. */
struct nvme_ktls_rx {
	uint8_t hdr[4];
	uint8_t hdr_got;
	uint32_t skip;
};

/* The n bytes of a handshake record from the peer: NewSessionTickets
 * (whole or cut across records: st keeps the place) are skipped, 0;
 * any other message (a KeyUpdate: Linux 6.1's kTLS cannot take new
 * keys) is -EPROTO. */
int nvme_ktls_hs_skip(struct nvme_ktls_rx *st, const uint8_t *b, size_t n);

/* recv on a kTLS socket (MSG_DONTWAIT): application data into buf; a
 * NewSessionTicket is dropped, a close_notify reads as the peer's close
 * (0), any other alert or a KeyUpdate fails (-1, ECONNABORTED or
 * EPROTO). Otherwise recv's conventions (-1 and EAGAIN to wait). */
ssize_t nvme_ktls_recv(int fd, struct nvme_ktls_rx *st, void *buf, size_t len);

/* A close_notify alert on a kTLS socket, if the socket takes it now */
void nvme_ktls_close_notify(int fd);

/* true the first time it is called for this outcome in the process
 * (used = kTLS on, else OpenSSL's records): to log the choice once */
bool nvme_ktls_first(bool used);

#endif
