/* SPDX-License-Identifier: MIT */
/*
 * Inside the NVMe/TCP host transport: what its two halves share. The
 * connection half (nvt_conn.c: the URI keys, socket, TLS, ICReq, the
 * synchronous commands of set-up and the admin queue) hands an I/O queue
 * of the data half (nvme_tcp.c) a struct nvmf_conn to take over.
 */
#ifndef MQBLK_NVME_TCP_NVT_H
#define MQBLK_NVME_TCP_NVT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <openssl/ssl.h>

#include "drivers/nvmf/fabrics.h"
#include "nvme/ktls.h"
#include "nvme/tcp.h"
#include "nvme/tls.h"
#include "nvme/tls_ssl.h"

/* A PDU header with its digest and the padding up to its data: the data
 * offset can be (CPDA + 1) * 4 = 128 bytes (CPDA 31), more than a capsule
 * header (72) or an H2CData header (24) with its digest needs. */
#define NVT_PDU_HDR_MAX 128

/* The transport's URI keys */
struct nvt_opts {
	bool hdgst, ddgst;
	/* tls=1, tls_key= (nvme-cli's --tls, --tls_key): TLS 1.3 with the
	 * PSK derived from this configured key; tls_identity=0|1: the
	 * NVMe0R0x identity (default, SPDK's and Linux 6.7's) or the
	 * NVMe1R0x one with the PSK digest */
	bool tls;
	bool tls_off; /* tls=0 said: a tls_key= contradicts it */
	uint8_t tls_identity;
	struct nvme_tls_key tls_key;
	/* ktls=auto|off|on: the records in the kernel after the
	 * handshake (enum nvme_ktls_mode) */
	uint8_t ktls;
	bool ktls_said; /* given in the URI (not the default) */
};

/* A connection: the socket after ICReq/ICResp, and its TLS session
 * (NULL: plaintext). */
struct nvmf_conn {
	int fd;
	SSL *ssl;
	struct nvme_tls_wbuf *tls_w;
	/* kTLS: the kernel has the records, ssl is NULL */
	bool ktls;
	struct nvme_ktls_rx ktls_rx;
	struct nvme_tcp_conn conn;
};

/* A gathered send on fd, or through its TLS session */
static inline ssize_t nvt_io_send(int fd, SSL *ssl, struct nvme_tls_wbuf *w,
				  struct iovec *iov, unsigned niov)
{
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = niov };

	if (ssl)
		return nvme_tls_writev(ssl, w, iov, niov);
	return sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static inline ssize_t nvt_io_recv(int fd, SSL *ssl, struct nvme_ktls_rx *krx,
				  void *buf, size_t len)
{
	if (ssl)
		return nvme_tls_read(ssl, buf, len);
	if (krx)
		return nvme_ktls_recv(fd, krx, buf, len);
	return recv(fd, buf, len, MSG_DONTWAIT);
}

/* poll fd for ev; 0, -ETIMEDOUT or -errno */
int nvt_sock_wait(int fd, short ev, int timeout_ms);

/* nvt_conn.c: the transport ops of set-up */
int nvt_ctrl_init(struct nvmf_ctrl *d);
void nvt_ctrl_free(struct nvmf_ctrl *d);
int nvt_parse_param(struct nvmf_ctrl *d, struct mqblk_param *p, bool *taken,
		    char *err, size_t errlen);
struct nvmf_conn *nvt_conn_open(struct nvmf_ctrl *d, uint16_t qid, char *err,
				size_t errlen, int *ret);
void nvt_conn_close(struct nvmf_conn *cn);
int nvt_conn_fd(const struct nvmf_conn *cn);
int nvt_sync_send(struct nvmf_conn *s, union nvme_command *cmd, void *buf,
		  uint32_t len, bool to_ctrl);
int nvt_sync_recv(struct nvmf_conn *s, uint16_t cid, void *buf, uint32_t len,
		  struct nvme_completion *cqe);

#endif
