// SPDX-License-Identifier: MIT
/*
 * The target's NVMe/TCP over TLS 1.3 (TP 8011): on a TLS port a queue's
 * first byte says what comes, a TLS record (a ClientHello) or an ICReq
 * (plaintext: refused where the port requires TLS); the handshake runs
 * before ICReq, the host's PSK identity picks the PSK (the configured key
 * of the host it names, on a subsystem it names behind this port), and
 * after it every byte of the queue goes through the TLS record layer:
 * the kernel's (kTLS, ktls.c) where it has the tls module and --ktls
 * allows, else OpenSSL's in user space. The identity's NQNs bind the
 * Connect that follows.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <openssl/crypto.h>
#include <openssl/ssl.h>

#include "nvme/ktls.h"
#include "nvme/tls.h"
#include "nvme/tls_ssl.h"
#include "tcp_queue.h"

/* One context for every TLS queue of the process: SSL_new on it from
 * several reactors is safe, it is never changed after it is made. */
static SSL_CTX *tls_ctx;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static char tls_ctx_err[200];

/* The configured key of host on subsystem subnqn behind port (the
 * discovery subsystem: the host's key on any of the port's subsystems). */
static const struct nvme_tls_key *
host_key(const struct tgt_port *port, const char *hostnqn, const char *subnqn)
{
	bool disc = !strcmp(subnqn, NVME_DISC_SUBSYS_NAME);

	for (unsigned i = 0; i < port->nr_subsys; i++) {
		const struct tgt_subsys *s = port->subsys[i];
		const struct tgt_host *h;

		if (!disc && strcmp(s->nqn, subnqn))
			continue;
		h = tgt_host_find(s, hostnqn);
		if (h && h->tls_key.len)
			return &h->tls_key;
	}
	return NULL;
}

/* OpenSSL asks, on the ClientHello's identity, for the PSK's session. A
 * refusal (0) ends the handshake with an alert; a wrong key shows later,
 * as a binder that does not verify. */
static int find_session(SSL *ssl, const unsigned char *identity, size_t len,
			SSL_SESSION **sess)
{
	struct tcp_queue *q = SSL_get_app_data(ssl);
	const struct nvme_tls_key *key;
	struct nvme_tls_identity id;
	uint8_t retained[NVME_TLS_MAX_KEY], psk[NVME_TLS_MAX_KEY];
	char idstr[NVME_TLS_MAX_IDENTITY], why[160], dig[72];
	int n, ret = 0;

	*sess = NULL;
	if (nvme_tls_identity_parse(identity, len, &id, why, sizeof(why))) {
		tgt_log("queue %s: TLS: %s: refused", q->sq.peer, why);
		return 0;
	}
	memcpy(idstr, identity, len); /* parse bounded len */
	idstr[len] = '\0';
	if (id.generated) {
		tgt_log("queue %s: TLS: identity %s: a generated PSK (secure "
			"channel concatenation) is not supported",
			q->sq.peer, idstr);
		return 0;
	}
	key = host_key(q->sq.port, id.hostnqn, id.subnqn);
	if (!key) {
		tgt_log("queue %s: TLS: no PSK for host %s on %s behind port "
			"%u: refused",
			q->sq.peer, id.hostnqn, id.subnqn, q->sq.port->portid);
		return 0;
	}
	if (nvme_tls_key_cipher(key) != id.hash) {
		tgt_log("queue %s: TLS: identity %s asks for hash %02u, the "
			"host's PSK is for %02u: refused",
			q->sq.peer, idstr, id.hash, nvme_tls_key_cipher(key));
		return 0;
	}
	n = nvme_tls_retained(key, id.hostnqn, retained);
	if (n < 0)
		goto out;
	if (id.version == 1) {
		/* the digest names the key: another key, another digest */
		if (nvme_tls_digest(id.hash, retained, (size_t)n, id.hostnqn,
				    id.subnqn, dig, sizeof(dig)) < 0 ||
		    strlen(dig) != strlen(id.digest) ||
		    CRYPTO_memcmp(dig, id.digest, strlen(dig))) {
			tgt_log("queue %s: TLS: host %s: the PSK digest of its "
				"identity is not its key's: refused",
				q->sq.peer, id.hostnqn);
			goto out;
		}
	}
	if (nvme_tls_psk(&id, idstr, retained, (size_t)n, psk) != n)
		goto out;
	*sess = nvme_tls_session(ssl, psk, (size_t)n, id.hash);
	if (!*sess)
		goto out;
	q->sq.tls = true;
	snprintf(q->sq.tls_hostnqn, sizeof(q->sq.tls_hostnqn), "%s",
		 id.hostnqn);
	snprintf(q->sq.tls_subnqn, sizeof(q->sq.tls_subnqn), "%s", id.subnqn);
	ret = 1;
out:
	OPENSSL_cleanse(retained, sizeof(retained));
	OPENSSL_cleanse(psk, sizeof(psk));
	return ret;
}

/*
 * Before OpenSSL picks the cipher suite: a PSK is usable only with a
 * suite of its hash, and a host may offer both suites (in its order of
 * preference), so the suite the first identity names (NVMe?R0H: H) is
 * made this connection's only one. Anything unreadable is left to the
 * handshake to refuse.
 */
static int client_hello(SSL *ssl, int *alert, void *arg)
{
	const unsigned char *ext;
	size_t len;
	const char *suite;

	(void)alert;
	(void)arg;
	/* pre_shared_key (41): identities<7..2^16-1>, then each
	 * identity<1..2^16-1> and its 4-byte obfuscated age */
	if (SSL_client_hello_get0_ext(ssl, 41, &ext, &len) != 1 || len < 4 + 8)
		return SSL_CLIENT_HELLO_SUCCESS;
	if ((size_t)(ext[2] << 8 | ext[3]) < 8 || len - 4 < 8 ||
	    memcmp(ext + 4, "NVMe", 4))
		return SSL_CLIENT_HELLO_SUCCESS;
	suite = nvme_tls_cipher_name((uint8_t)(ext[4 + 7] - '0'));
	if (suite && ext[4 + 6] == '0')
		SSL_set_ciphersuites(ssl, suite);
	return SSL_CLIENT_HELLO_SUCCESS;
}

static void ctx_init(void)
{
	tls_ctx = nvme_tls_ctx_new(true, tls_ctx_err, sizeof(tls_ctx_err));
	if (!tls_ctx)
		return;
	SSL_CTX_set_psk_find_session_callback(tls_ctx, find_session);
	SSL_CTX_set_client_hello_cb(tls_ctx, client_hello, NULL);
	nvme_ktls_ctx_prepare(tls_ctx);
}

void tcp_tls_want_out(struct tcp_queue *q, bool on)
{
	if (q->want_out == on || q->sq.closing)
		return;
	q->want_out = on;
	/* no EPOLLIN while reads are stopped (tcp_queue_arm) */
	tcp_queue_arm(q);
}

/* The first byte: 0x16 a TLS handshake record, else plaintext NVMe/TCP
 * (an ICReq's PDU type is 0). 1: go on, 0: wait, -1: close. */
static int tls_peek(struct tcp_queue *q)
{
	uint8_t b;
	ssize_t n = recv(q->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

	if (n == 0)
		return -1;
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ||
				       errno == EINTR ?
			       0 :
			       -1;
	if (b != 0x16) {
		if (q->sq.port->treq == NVMF_TREQ_REQUIRED) {
			tgt_log("queue %s: plaintext NVMe/TCP on port %u, "
				"which requires TLS: refused",
				q->sq.peer, q->sq.port->portid);
			return -1;
		}
		q->tls_state = TCP_TLS_OFF;
		return 1;
	}
	pthread_once(&tls_once, ctx_init);
	if (!tls_ctx) {
		tgt_log("queue %s: %s", q->sq.peer, tls_ctx_err);
		return -1;
	}
	q->tls_w = calloc(1, sizeof(*q->tls_w));
	q->ssl = SSL_new(tls_ctx);
	if (!q->tls_w || !q->ssl || nvme_tls_set_fd(q->ssl, q->fd)) {
		tgt_log("queue %s: TLS: out of memory", q->sq.peer);
		return -1;
	}
	SSL_set_app_data(q->ssl, q);
	if (q->sq.t->ktls != NVME_KTLS_OFF && nvme_ktls_want(q->ssl)) {
		tgt_log("queue %s: TLS: out of memory", q->sq.peer);
		return -1;
	}
	q->tls_state = TCP_TLS_HANDSHAKE;
	return 1;
}

/* After the handshake: the records to the kernel where --ktls allows
 * and it can (1: go on, -1: close) */
static int tls_to_kernel(struct tcp_queue *q)
{
	uint8_t mode = q->sq.t->ktls;
	char why[200];
	int ret;

	if (mode == NVME_KTLS_OFF)
		return 1;
	ret = nvme_ktls_start(q->ssl, q->fd, why, sizeof(why));
	if (ret < 0) {
		tgt_log("queue %s: %s: closed", q->sq.peer, why);
		return -1;
	}
	if (!ret && mode == NVME_KTLS_ON) {
		tgt_log("queue %s: --ktls=on: %s: closed", q->sq.peer, why);
		return -1;
	}
	if (ret) {
		/* OpenSSL is done with the socket (SSL_free sends nothing) */
		SSL_free(q->ssl);
		q->ssl = NULL;
		q->ktls = true;
	}
	/* auto: the choice logged once per process (each queue's with -v) */
	if (nvme_ktls_first(ret == 1) || q->sq.t->verbose) {
		if (ret)
			tgt_log("queue %s: TLS records in the kernel (kTLS)",
				q->sq.peer);
		else
			tgt_log("queue %s: TLS records in user space "
				"(OpenSSL): %s",
				q->sq.peer, why);
	}
	return 1;
}

int tcp_tls_start(struct tcp_queue *q)
{
	char why[200];
	int ret;

	if (q->tls_state == TCP_TLS_PEEK) {
		ret = tls_peek(q);
		if (ret <= 0 || q->tls_state == TCP_TLS_OFF)
			return ret;
	}
	ret = SSL_accept(q->ssl);
	if (ret == 1) {
		q->tls_state = TCP_TLS_UP;
		tcp_tls_want_out(q, false);
		if (q->sq.t->verbose)
			tgt_log("queue %s: TLS 1.3 (%s) as host %s to %s",
				q->sq.peer, SSL_get_cipher_name(q->ssl),
				q->sq.tls_hostnqn, q->sq.tls_subnqn);
		return tls_to_kernel(q);
	}
	switch (SSL_get_error(q->ssl, ret)) {
	case SSL_ERROR_WANT_READ:
		tcp_tls_want_out(q, false);
		return 0;
	case SSL_ERROR_WANT_WRITE:
		tcp_tls_want_out(q, true);
		return 0;
	default:
		nvme_tls_errstr(why, sizeof(why));
		tgt_log("queue %s: TLS handshake failed: %s", q->sq.peer, why);
		return -1;
	}
}

void tcp_tls_free(struct tcp_queue *q)
{
	SSL_free(q->ssl);
	q->ssl = NULL;
	free(q->tls_w);
	q->tls_w = NULL;
}

void tcp_tls_close_notify(struct tcp_queue *q)
{
	if (q->ktls)
		nvme_ktls_close_notify(q->fd);
	else
		nvme_tls_close_notify(q->ssl, q->tls_w);
}
