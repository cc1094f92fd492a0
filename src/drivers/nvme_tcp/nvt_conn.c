// SPDX-License-Identifier: MIT
/*
 * The NVMe/TCP host transport's connections: the URI keys, the socket
 * (TCP_NODELAY), TLS 1.3 with a configured PSK before ICReq (its records
 * handed to the kernel where ktls= allows), ICReq/ICResp, and the
 * blocking, synchronous commands of set-up and the admin queue. An I/O
 * queue takes a connection over (nvt_queue_attach in nvme_tcp.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "nvme/nvme.h"
#include "nvt.h"

/* ---- Blocking socket helpers (set-up, admin) --------------------------- */

int nvt_sock_wait(int fd, short ev, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int n;

	do {
		n = poll(&p, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n == 0)
		return -ETIMEDOUT;
	return n < 0 ? -errno : 0;
}

static int send_all(struct nvmf_conn *cn, const struct iovec *iov_in, int niov)
{
	struct iovec iov[8];
	int i = 0, fd = cn->fd;

	memcpy(iov, iov_in, (size_t)niov * sizeof(*iov));
	while (i < niov) {
		ssize_t n = nvt_io_send(fd, cn->ssl, cn->tls_w, iov + i,
					(unsigned)(niov - i));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				int r = nvt_sock_wait(fd, POLLOUT,
						      NVMF_IO_TIMEOUT_MS);

				if (r)
					return r;
				continue;
			}
			return -errno;
		}
		while (i < niov && (size_t)n >= iov[i].iov_len) {
			n -= (ssize_t)iov[i].iov_len;
			i++;
		}
		if (i < niov) {
			iov[i].iov_base = (char *)iov[i].iov_base + n;
			iov[i].iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int recv_all(struct nvmf_conn *cn, void *buf, size_t len)
{
	size_t got = 0;
	int fd = cn->fd;

	while (got < len) {
		ssize_t n = nvt_io_recv(fd, cn->ssl,
					cn->ktls ? &cn->ktls_rx : NULL,
					(char *)buf + got, len - got);

		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int r = nvt_sock_wait(fd, POLLIN, NVMF_IO_TIMEOUT_MS);

			if (r)
				return r;
			continue;
		}
		return -errno;
	}
	return 0;
}

/* A blocking connect a signal interrupted (EINTR) goes on in the kernel
 * (POSIX): wait for it as the connect would have, bounded by the
 * kernel's own SYN retries, and take its outcome. 0 or -errno. */
static int connect_finish(int fd)
{
	int soerr = 0, ret = nvt_sock_wait(fd, POLLOUT, -1);
	socklen_t len = sizeof(soerr);

	if (ret)
		return ret;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len))
		return -errno;
	return -soerr;
}

static int tcp_open(const struct nvmf_ctrl *d, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai, *a;
	int fd = -1, one = 1, ret;

	ret = getaddrinfo(d->host, d->port, &hints, &ai);
	if (ret) {
		nvmf_err(err, errlen, "nvme-tcp: %s:%s: %s", d->host, d->port,
			 gai_strerror(ret));
		return -EINVAL;
	}
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (!connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		ret = -errno;
		if (ret == -EINTR)
			ret = connect_finish(fd);
		if (!ret)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		nvmf_err(err, errlen, "nvme-tcp: connect to %s:%s: %s", d->host,
			 d->port, strerror(-ret));
		return ret ? ret : -ECONNREFUSED;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* ICReq/ICResp on a fresh connection. */
static int nvt_ic(const struct nvmf_ctrl *d, struct nvmf_conn *cn, char *err,
		  size_t errlen)
{
	struct nvme_tcp_conn *c = &cn->conn;
	uint8_t icreq[128], icresp[128];
	struct nvme_tcp_rx_pdu p;
	struct iovec iov = { icreq, sizeof(icreq) };
	const struct nvt_opts *o = d->tr;
	uint8_t digest = (o->hdgst ? NVME_TCP_HDGST_ENABLE : 0) |
			 (o->ddgst ? NVME_TCP_DDGST_ENABLE : 0);
	int ret;

	memset(c, 0, sizeof(*c));
	c->host = true;
	nvme_tcp_build_icreq(icreq, sizeof(icreq), 0, digest, 0);
	ret = send_all(cn, &iov, 1);
	if (!ret)
		ret = recv_all(cn, icresp, sizeof(icresp));
	if (ret) {
		nvmf_err(err, errlen, "nvme-tcp: %s:%s: ICReq: %s", d->host,
			 d->port, strerror(-ret));
		return ret;
	}
	if (nvme_tcp_rx_pdu(c, icresp, sizeof(icresp), &p) != NVME_TCP_RX_OK ||
	    p.type != nvme_tcp_icresp) {
		nvmf_err(err, errlen, "nvme-tcp: %s:%s: not an ICResp", d->host,
			 d->port);
		return -EPROTO;
	}
	if (nvme_tcp_conn_establish(c, icreq, icresp) || c->hdgst != o->hdgst ||
	    c->ddgst != o->ddgst) {
		nvmf_err(err, errlen,
			 "nvme-tcp: %s:%s: the controller did not grant the "
			 "digests asked for",
			 d->host, d->port);
		return -EPROTO;
	}
	/* the biggest PDU we take: C2HData of a whole transfer */
	c->max_plen = 0;
	return 0;
}

/* Read one PDU header into h (at least 128 bytes) and decode it. */
static int recv_hdr(struct nvmf_conn *s, uint8_t *h, size_t hlen,
		    struct nvme_tcp_rx_pdu *p)
{
	uint32_t need = 8;
	int ret;

	/* the header, growing to what the decoder asks for */
	ret = recv_all(s, h, 8);
	while (!ret) {
		int r = nvme_tcp_rx_header(&s->conn, h, need, p);

		if (r == NVME_TCP_RX_OK)
			return 0;
		if (r != NVME_TCP_RX_MORE || p->need > hlen)
			return -EPROTO;
		ret = recv_all(s, h + need, p->need - need);
		need = p->need;
	}
	return ret;
}

/* ---- TLS ------------------------------------------------------------------ */

/* The client context, shared by every connection of the process */
static SSL_CTX *tls_ctx;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static char tls_ctx_err[200];

static void tls_ctx_init(void)
{
	tls_ctx = nvme_tls_ctx_new(false, tls_ctx_err, sizeof(tls_ctx_err));
	if (tls_ctx)
		nvme_ktls_ctx_prepare(tls_ctx);
}

/* What the PSK callback hands OpenSSL, for the length of a handshake */
struct tls_offer {
	char identity[NVME_TLS_MAX_IDENTITY];
	uint8_t psk[NVME_TLS_MAX_KEY];
	int psk_len;
	uint8_t hash;
};

static int tls_use_session(SSL *ssl, const EVP_MD *md, const unsigned char **id,
			   size_t *idlen, SSL_SESSION **sess)
{
	struct tls_offer *o = SSL_get_app_data(ssl);

	*sess = nvme_tls_session(ssl, o->psk, (size_t)o->psk_len, o->hash);
	if (!*sess)
		return 0;
	/* after a HelloRetryRequest: the suite's hash must still fit */
	if (md && md != SSL_CIPHER_get_handshake_digest(
				SSL_SESSION_get0_cipher(*sess))) {
		SSL_SESSION_free(*sess);
		*sess = NULL;
		return 1;
	}
	*id = (const unsigned char *)o->identity;
	*idlen = strlen(o->identity);
	return 1;
}

/* After the handshake: the records to the kernel where ktls= allows and
 * it can; ktls=on fails the connection where it cannot. */
static int tls_to_kernel(const struct nvmf_ctrl *d, struct nvmf_conn *cn,
			 char *err, size_t errlen)
{
	const struct nvt_opts *o = d->tr;
	char why[200];
	int ret;

	if (o->ktls == NVME_KTLS_OFF)
		return 0;
	ret = nvme_ktls_start(cn->ssl, cn->fd, why, sizeof(why));
	if (ret < 0 || (!ret && o->ktls == NVME_KTLS_ON)) {
		nvmf_err(err, errlen, "nvme-tcp: %s:%s: %s%s", d->host, d->port,
			 ret < 0 ? "" : "ktls=on: ", why);
		return ret < 0 ? ret : -EOPNOTSUPP;
	}
	if (ret) {
		/* OpenSSL is done with the socket (SSL_free sends nothing) */
		SSL_free(cn->ssl);
		cn->ssl = NULL;
		cn->ktls = true;
	}
	/* auto: the choice said once per process; the fallback only when
	 * ktls=auto was asked for (the default says nothing on a kernel
	 * without the module: every TLS run there would) */
	if ((ret || o->ktls_said) && nvme_ktls_first(ret == 1)) {
		if (ret)
			fprintf(stderr,
				"mqblk: nvme-tcp: TLS records in the kernel "
				"(kTLS)\n");
		else
			fprintf(stderr,
				"mqblk: nvme-tcp: TLS records in user space "
				"(OpenSSL): %s\n",
				why);
	}
	return 0;
}

/* TLS 1.3 on cn's socket, before ICReq: the identity and PSK of the
 * configured key for (hostnqn, subnqn), then the handshake (blocking,
 * NVMF_IO_TIMEOUT_MS per wait). */
static int tls_connect(const struct nvmf_ctrl *d, struct nvmf_conn *cn,
		       char *err, size_t errlen)
{
	const struct nvt_opts *o = d->tr;
	struct tls_offer *offer;
	char why[200];
	int ret;

	if (!o->tls_key.len) {
		nvmf_err(err, errlen,
			 "nvme-tcp: tls=1 needs tls_key= (the PSK in "
			 "NVMeTLSkey-1 form, or @FILE): mqblk has no keyring");
		return -EINVAL;
	}
	pthread_once(&tls_once, tls_ctx_init);
	if (!tls_ctx) {
		nvmf_err(err, errlen, "nvme-tcp: %s", tls_ctx_err);
		return -EIO;
	}
	offer = calloc(1, sizeof(*offer));
	cn->tls_w = calloc(1, sizeof(*cn->tls_w));
	cn->ssl = SSL_new(tls_ctx);
	if (!offer || !cn->tls_w || !cn->ssl ||
	    nvme_tls_set_fd(cn->ssl, cn->fd)) {
		free(offer);
		nvmf_err(err, errlen, "nvme-tcp: TLS: out of memory");
		return -ENOMEM;
	}
	offer->hash = nvme_tls_key_cipher(&o->tls_key);
	/* offer the PSK's suite alone: a server picking the other one
	 * would pass over the PSK (its hash must be the suite's) */
	if (SSL_set_ciphersuites(cn->ssl, nvme_tls_cipher_name(offer->hash)) !=
	    1) {
		nvmf_err(err, errlen, "nvme-tcp: TLS: no cipher suite %s",
			 nvme_tls_cipher_name(offer->hash));
		free(offer);
		return -EIO;
	}
	offer->psk_len = nvme_tls_derive(&o->tls_key, o->tls_identity,
					 d->hostnqn, d->subnqn, offer->identity,
					 sizeof(offer->identity), offer->psk);
	if (offer->psk_len < 0) {
		ret = offer->psk_len;
		OPENSSL_clear_free(offer, sizeof(*offer));
		nvmf_err(err, errlen,
			 "nvme-tcp: TLS: no PSK identity for host %s and %s: "
			 "%s",
			 d->hostnqn, d->subnqn, strerror(-ret));
		return ret;
	}
	if (o->ktls != NVME_KTLS_OFF && nvme_ktls_want(cn->ssl)) {
		OPENSSL_clear_free(offer, sizeof(*offer));
		nvmf_err(err, errlen, "nvme-tcp: TLS: out of memory");
		return -ENOMEM;
	}
	SSL_set_app_data(cn->ssl, offer);
	SSL_set_psk_use_session_callback(cn->ssl, tls_use_session);
	/* OpenSSL reads and writes the socket itself: non-blocking, as
	 * every other call here uses it */
	fcntl(cn->fd, F_SETFL, fcntl(cn->fd, F_GETFL) | O_NONBLOCK);
	for (;;) {
		ret = SSL_connect(cn->ssl);
		if (ret == 1)
			break;
		switch (SSL_get_error(cn->ssl, ret)) {
		case SSL_ERROR_WANT_READ:
			ret = nvt_sock_wait(cn->fd, POLLIN, NVMF_IO_TIMEOUT_MS);
			break;
		case SSL_ERROR_WANT_WRITE:
			ret = nvt_sock_wait(cn->fd, POLLOUT,
					    NVMF_IO_TIMEOUT_MS);
			break;
		default:
			nvme_tls_errstr(why, sizeof(why));
			nvmf_err(err, errlen,
				 "nvme-tcp: %s:%s: TLS handshake as %s "
				 "refused: %s",
				 d->host, d->port, offer->identity, why);
			ret = -ECONNREFUSED;
			break;
		}
		if (ret) {
			if (ret == -ETIMEDOUT)
				nvmf_err(err, errlen,
					 "nvme-tcp: %s:%s: TLS handshake timed "
					 "out",
					 d->host, d->port);
			SSL_set_app_data(cn->ssl, NULL);
			OPENSSL_clear_free(offer, sizeof(*offer));
			return ret;
		}
	}
	SSL_set_app_data(cn->ssl, NULL);
	OPENSSL_clear_free(offer, sizeof(*offer));
	return tls_to_kernel(d, cn, err, errlen);
}

static void conn_free(struct nvmf_conn *cn)
{
	/* no waiting: the socket is closed next either way */
	nvme_tls_close_notify(cn->ssl, cn->tls_w);
	SSL_free(cn->ssl);
	if (cn->ktls && cn->fd >= 0)
		nvme_ktls_close_notify(cn->fd);
	free(cn->tls_w);
	if (cn->fd >= 0)
		close(cn->fd);
	free(cn);
}

/* ---- Synchronous commands (set-up, the admin queue) --------------------- */

struct nvmf_conn *nvt_conn_open(struct nvmf_ctrl *d, uint16_t qid, char *err,
				size_t errlen, int *ret)
{
	const struct nvt_opts *o = d->tr;

	struct nvmf_conn *cn = calloc(1, sizeof(*cn));

	(void)qid;
	if (!cn) {
		*ret = -ENOMEM;
		nvmf_err(err, errlen, "nvme-tcp: out of memory");
		return NULL;
	}
	if (o->ktls == NVME_KTLS_ON && !o->tls) {
		*ret = -EINVAL;
		nvmf_err(err, errlen,
			 "nvme-tcp: ktls=on without TLS (tls_key=): no records "
			 "for the kernel to take");
		free(cn);
		return NULL;
	}
	cn->fd = tcp_open(d, err, errlen);
	if (cn->fd < 0) {
		*ret = cn->fd;
		free(cn);
		return NULL;
	}
	*ret = o->tls ? tls_connect(d, cn, err, errlen) : 0;
	if (!*ret)
		*ret = nvt_ic(d, cn, err, errlen);
	if (*ret) {
		conn_free(cn);
		return NULL;
	}
	return cn;
}

void nvt_conn_close(struct nvmf_conn *cn)
{
	conn_free(cn);
}

int nvt_conn_fd(const struct nvmf_conn *cn)
{
	return cn->fd;
}

/* One command on a synchronous connection: data to the controller goes
 * in-capsule, from buf, not copied. */
int nvt_sync_send(struct nvmf_conn *s, union nvme_command *cmd, void *buf,
		  uint32_t len, bool to_ctrl)
{
	uint8_t hdr[NVT_PDU_HDR_MAX], ddgst[4];
	struct iovec iov[3];
	ssize_t n;
	int niov = 1;

	cmd->common.flags = NVME_CMD_SGL_METABUF;
	cmd->common.dptr.sgl.addr = 0;
	cmd->common.dptr.sgl.length = cpu_to_le32(len);
	cmd->common.dptr.sgl.type = to_ctrl && len ? NVME_SGL_TCP_INCAPSULE :
						     NVME_SGL_TCP_TRANSPORT;
	n = nvme_tcp_build_cmd(&s->conn, hdr, sizeof(hdr), cmd, NULL,
			       to_ctrl ? len : 0);
	if (n < 0)
		return (int)n;
	iov[0].iov_base = hdr;
	iov[0].iov_len = (size_t)n;
	if (to_ctrl && len) {
		iov[niov].iov_base = buf;
		iov[niov++].iov_len = len;
		if (s->conn.ddgst) {
			nvme_tcp_put_ddgst(ddgst, buf, len);
			iov[niov].iov_base = ddgst;
			iov[niov++].iov_len = 4;
		}
	}
	return send_all(s, iov, niov);
}

/* The next completion on s: a CapsuleResp, or the last C2HData of
 * command cid with SUCCESS (a CQE with status 0); C2HData on the way
 * lands in buf (len bytes). */
int nvt_sync_recv(struct nvmf_conn *s, uint16_t cid, void *buf, uint32_t len,
		  struct nvme_completion *cqe)
{
	uint8_t rhdr[128];
	struct nvme_tcp_rx_pdu p;
	uint32_t got = 0;
	int ret;

	for (;;) {
		uint32_t off, dlen;
		uint8_t pad[128], dg[4];
		uint16_t dcid;

		ret = recv_hdr(s, rhdr, sizeof(rhdr), &p);
		if (ret)
			return ret;
		if (p.type == nvme_tcp_rsp) {
			memcpy(cqe, rhdr + 8, sizeof(*cqe));
			return 0;
		}
		if (p.type != nvme_tcp_c2h_data)
			return -EPROTO;
		memcpy(&dcid, rhdr + 8, 2);
		off = nvme_get_le32(rhdr + 12);
		dlen = nvme_get_le32(rhdr + 16);
		if (!buf || dcid != cid ||
		    nvme_tcp_check_data_range(off, dlen, got, len))
			return -EPROTO;
		if (p.data_off > p.hdr_len &&
		    (p.data_off - p.hdr_len > sizeof(pad) ||
		     recv_all(s, pad, p.data_off - p.hdr_len)))
			return -EPROTO;
		ret = recv_all(s, (uint8_t *)buf + off, dlen);
		if (!ret && p.ddgst) {
			ret = recv_all(s, dg, 4);
			if (!ret &&
			    !nvme_tcp_ddgst_ok((uint8_t *)buf + off, dlen, dg))
				ret = -EBADMSG;
		}
		if (ret)
			return ret;
		got += dlen;
		if (p.flags & NVME_TCP_F_DATA_SUCCESS) {
			memset(cqe, 0, sizeof(*cqe));
			cqe->command_id = cid;
			return 0;
		}
	}
}

/* ---- The URI keys --------------------------------------------------------- */

int nvt_ctrl_init(struct nvmf_ctrl *d)
{
	d->tr = calloc(1, sizeof(struct nvt_opts));
	return d->tr ? 0 : -ENOMEM;
}

void nvt_ctrl_free(struct nvmf_ctrl *d)
{
	if (d->tr)
		nvme_tls_key_clear(&((struct nvt_opts *)d->tr)->tls_key);
	free(d->tr);
	d->tr = NULL;
}

int nvt_parse_param(struct nvmf_ctrl *d, struct mqblk_param *p, bool *taken,
		    char *err, size_t errlen)
{
	struct nvt_opts *o = d->tr;

	*taken = true;
	if (!strcmp(p->key, "hdr_digest"))
		return mqblk_param_bool(p, &o->hdgst, err, errlen);
	if (!strcmp(p->key, "data_digest"))
		return mqblk_param_bool(p, &o->ddgst, err, errlen);
	if (!strcmp(p->key, "tls")) {
		int ret = mqblk_param_bool(p, &o->tls, err, errlen);

		o->tls_off = !ret && !o->tls;
		if (o->tls_off && o->tls_key.len)
			goto tls_conflict;
		return ret;
	}
	if (!strcmp(p->key, "tls_key")) {
		char why[160];

		p->used = true;
		if (nvme_tls_key_load(p->val, &o->tls_key, why, sizeof(why))) {
			nvmf_err(err, errlen, "tls_key: %s", why);
			return -EINVAL;
		}
		/* a key asks for TLS, as nvme-cli's --tls_key */
		if (o->tls_off)
			goto tls_conflict;
		o->tls = true;
		return 0;
	}
	if (!strcmp(p->key, "ktls")) {
		p->used = true;
		if (nvme_ktls_mode_parse(p->val, &o->ktls)) {
			nvmf_err(err, errlen,
				 "ktls: '%s' is not auto, off or on", p->val);
			return -EINVAL;
		}
		o->ktls_said = true;
		return 0;
	}
	if (!strcmp(p->key, "tls_identity")) {
		p->used = true;
		if (strcmp(p->val, "0") && strcmp(p->val, "1")) {
			nvmf_err(err, errlen,
				 "tls_identity: '%s' is not 0 (NVMe0R0x) or 1 "
				 "(NVMe1R0x, with the PSK digest)",
				 p->val);
			return -EINVAL;
		}
		o->tls_identity = (uint8_t)(p->val[0] - '0');
		return 0;
	}
	*taken = false;
	return 0;
tls_conflict:
	nvmf_err(err, errlen, "tls=0 with tls_key=: TLS off, yet a key for it");
	return -EINVAL;
}
