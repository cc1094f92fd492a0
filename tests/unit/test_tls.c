// SPDX-License-Identifier: MIT
/*
 * TLS PSKs for NVMe/TCP (src/nvme/tls.c): keys nvme-cli's gen-tls-key
 * makes and check-tls-key judges, and the retained PSK, digests,
 * identities and TLS PSKs against answers computed apart (tls_vectors.py);
 * the record layer's wrappers (tls_ssl.c) over a loopback TCP connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cmocka.h>

#include "nvme/tls.h"
#include "nvme/tls_ssl.h"
#include "nvme_cli.h"

#define HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:0c4f3b2a-tls-test-host"
#define SUBNQN "nqn.2024-01.io.mqblk:tls-test"

static void parse_ok(const char *s, struct nvme_tls_key *k)
{
	char err[256] = "";
	int ret = nvme_tls_key_parse(s, k, err, sizeof(err));

	if (ret)
		fail_msg("%s: %d %s", s, ret, err);
}

static void parse_bad(const char *s, const char *in_msg)
{
	struct nvme_tls_key k;
	char err[256] = "";

	assert_int_equal(nvme_tls_key_parse(s, &k, err, sizeof(err)), -EINVAL);
	if (!strstr(err, in_msg))
		fail_msg("%s: reason '%s' lacks '%s'", s, err, in_msg);
	assert_null(strchr(err, '\n'));
	assert_int_equal(k.len, 0);
}

static void unhex(const char *hex, uint8_t *out, size_t len)
{
	assert_int_equal(strlen(hex), 2 * len);
	for (size_t i = 0; i < len; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

/* Keys of both hashes from nvme gen-tls-key: parsed, printed back the
 * same; a key check-tls-key refuses (one CRC byte changed) we refuse. */
static void test_nvme_cli_keys(void **state)
{
	char line[256], back[256], cmd[512];
	struct nvme_tls_key k;

	if (!have_nvme_cli())
		skip();
	for (int m = 1; m <= 2; m++) {
		snprintf(cmd, sizeof(cmd), "nvme gen-tls-key -m %d", m);
		assert_int_equal(run_line(cmd, line, sizeof(line)), 0);
		parse_ok(line, &k);
		assert_int_equal(k.hash, m);
		assert_int_equal(k.len, m == 1 ? 32 : 48);
		assert_int_equal(nvme_tls_key_format(&k, back, sizeof(back)),
				 0);
		assert_string_equal(back, line);
		nvme_tls_key_clear(&k);
		assert_int_equal(k.len, 0);

		/* change one base64 character of the key itself */
		line[20] = line[20] == 'A' ? 'B' : 'A';
		snprintf(cmd, sizeof(cmd),
			 "nvme check-tls-key -k '%s' >/dev/null 2>&1", line);
		assert_int_not_equal(system(cmd), 0);
		parse_bad(line, "CRC-32 mismatch");
	}
}

static void test_bad_keys(void **state)
{
	parse_bad("DHHC-1:01:LUC8qvJzWf2ypuGvm6NGuF+KI46lNl6edS3g4C7jDjU3I45s:",
		  "NVMeTLSkey-1:HH:BASE64:");
	parse_bad("NVMeTLSkey-1:1:LUC8:", "two digits");
	parse_bad("NVMeTLSkey-1:03:LUC8qvJzWf2ypuGvm6NGuF+KI46lNl6edS3g4C7jDjU"
		  "3I45s:",
		  "hash 03");
	parse_bad("NVMeTLSkey-1:01:LUC8qvJzWf2ypuGvm6NGuF+KI46lNl6edS3g4C7jDjU"
		  "3I45s",
		  "does not end");
	parse_bad("NVMeTLSkey-1:01:LUC8qvJzWf2ypuGvm6NGuF+KI46lNl6edS3g4C7jDjU"
		  "3I45s:x",
		  "does not end");
	parse_bad("NVMeTLSkey-1:01:LUC8qvJzWf2ypuGvm6NGuF+KI46lNl6edS3g4C7jDjU"
		  "3I4*s:",
		  "base64");
	/* a 32-byte key labelled SHA-384 */
	parse_bad("NVMeTLSkey-1:02:LUC8qvJzWf2ypuGvm6NGuF+KI46lNl6edS3g4C7jDjU"
		  "3I45s:",
		  "want 32 (hash 01)");
	parse_bad("NVMeTLSkey-1:01:AAAA:", "want 32 (hash 01)");
}

struct vector {
	const char *key, *retained, *id0, *psk0, *id1, *psk1;
};

/* tests/unit/tls_vectors.py KEY HOSTNQN SUBNQN, keys from gen-tls-key
 * (-m 1, -m 2, and the first relabelled 00) */
static const struct vector vectors[] = {
	{
		"NVMeTLSkey-1:01:LUC8qvJzWf2ypuGvm6NGuF+KI46lNl6edS3g4C7jDjU3I"
		"45s:",
		"5445d3ef16c2ded744ed3f50c8d4acaa188de6adee5351895e31cacf5b6e7"
		"91a",
		"NVMe0R01 " HOSTNQN " " SUBNQN,
		"ea21209f222a43617b79d896e89e048b0b4e9216b504766f7d6c6870452af"
		"e96",
		"NVMe1R01 " HOSTNQN " " SUBNQN
		" 7hg9bFJxYD7vYdR2QiPHcBRKOMpG17dNnkKW1X4AfZI=",
		"e3abc7cd452438bb0a695381c7cd171730f65ee7c273d5b4f66c4eb8a0a2a"
		"200",
	},
	{
		"NVMeTLSkey-1:02:0/kL4BCi9ld89OW2WEcKjaoAI9Ah8lD2sVGnghBj+TGKd"
		"mIivqUbn/nnAsylpXfIu/eQTw==:",
		"98a31ab523b82cc86d2541f6a4f566b167dc46f42684c2cf30883e7b8fd91"
		"16195cffddb03c3b6ef5d20a2e5f03dcc2a",
		"NVMe0R02 " HOSTNQN " " SUBNQN,
		"60b925ef456c315a6195209ff8bcecdb8d914a52408b7c9efa87ecb172bae"
		"9900fda701714b9a0189d0fff5b071217df",
		"NVMe1R02 " HOSTNQN " " SUBNQN
		" U9vznaym/3wS/uiF8Xh6DXggzSygVS2kR+a5FqsG1YhqLOOrHrIUUXCUll0l"
		"NGzM",
		"e36d7d897864afc734c5d0afafa78ee6f6fa12e7df33fa7875107212aa020"
		"90fa352e194461ed001afa854d892c0ff14",
	},
	{
		"NVMeTLSkey-1:00:LUC8qvJzWf2ypuGvm6NGuF+KI46lNl6edS3g4C7jDjU3I"
		"45s:",
		"2d40bcaaf27359fdb2a6e1af9ba346b85f8a238ea5365e9e752de0e02ee30"
		"e35",
		"NVMe0R01 " HOSTNQN " " SUBNQN,
		"b7a13cb840535e2e0ff3e83d8153014038192d562ea345cf696eae9efb9ec"
		"87d",
		"NVMe1R01 " HOSTNQN " " SUBNQN
		" EnuQ9axUkNcWEpWFoS3Ly0j8+M4TVUq9GmmDcjymE4E=",
		"e7094c3a7d640a045f622e2fa491fc2636003387b3edb53cc56a75b53f711"
		"1b7",
	},
};

static void test_derivation(void **state)
{
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct vector *v = &vectors[i];
		uint8_t want[NVME_TLS_MAX_KEY], got[NVME_TLS_MAX_KEY];
		char id[NVME_TLS_MAX_IDENTITY];
		struct nvme_tls_key k;
		size_t len;

		parse_ok(v->key, &k);
		len = k.len;
		unhex(v->retained, want, len);
		assert_int_equal(nvme_tls_retained(&k, HOSTNQN, got), len);
		assert_memory_equal(got, want, len);
		/* another host, another retained PSK (unless used as is) */
		assert_int_equal(nvme_tls_retained(&k, HOSTNQN "x", got), len);
		if (k.hash)
			assert_memory_not_equal(got, want, len);

		assert_int_equal(nvme_tls_derive(&k, 0, HOSTNQN, SUBNQN, id,
						 sizeof(id), got),
				 len);
		assert_string_equal(id, v->id0);
		unhex(v->psk0, want, len);
		assert_memory_equal(got, want, len);

		assert_int_equal(nvme_tls_derive(&k, 1, HOSTNQN, SUBNQN, id,
						 sizeof(id), got),
				 len);
		assert_string_equal(id, v->id1);
		unhex(v->psk1, want, len);
		assert_memory_equal(got, want, len);

		/* the identity's buffer too short: refused, not cut */
		assert_int_equal(nvme_tls_derive(&k, 1, HOSTNQN, SUBNQN, id, 40,
						 got),
				 -ENOSPC);
		nvme_tls_key_clear(&k);
	}
}

static void id_bad(const char *s, const char *in_msg)
{
	struct nvme_tls_identity id;
	char err[256] = "";

	assert_int_equal(nvme_tls_identity_parse(s, strlen(s), &id, err,
						 sizeof(err)),
			 -EINVAL);
	if (!strstr(err, in_msg))
		fail_msg("%s: reason '%s' lacks '%s'", s, err, in_msg);
}

static void test_identity_parse(void **state)
{
	struct nvme_tls_identity id;
	char err[256] = "";
	const char *s = vectors[1].id1;

	assert_int_equal(nvme_tls_identity_parse(s, strlen(s), &id, err,
						 sizeof(err)),
			 0);
	assert_int_equal(id.version, 1);
	assert_int_equal(id.hash, 2);
	assert_false(id.generated);
	assert_string_equal(id.hostnqn, HOSTNQN);
	assert_string_equal(id.subnqn, SUBNQN);
	assert_string_equal(id.digest, "U9vznaym/3wS/uiF8Xh6DXggzSygVS2kR+a5F"
				       "qsG1YhqLOOrHrIUUXCUll0lNGzM");
	s = "NVMe0G01 host sub";
	assert_int_equal(nvme_tls_identity_parse(s, strlen(s), &id, err,
						 sizeof(err)),
			 0);
	assert_true(id.generated);
	assert_int_equal(id.version, 0);

	id_bad("NVMe2R01 host sub", "not NVMe");
	id_bad("NVMe0R03 host sub", "not NVMe");
	id_bad("NVMe0X01 host sub", "not NVMe");
	id_bad("nvme0R01 host sub", "not NVMe");
	id_bad("NVMe0R01 host", "NQN is empty");
	id_bad("NVMe0R01 host  sub", "NQN is empty");
	id_bad("NVMe0R01 host sub digest", "more than the nothing");
	id_bad("NVMe0R01 host sub ", "more than");
	id_bad("NVMe1R01 host sub", "without its PSK digest");
	id_bad("NVMe1R01 host sub dig more", "more than the digest");
	assert_int_equal(nvme_tls_identity_parse("NVMe0R01 a\0b c", 14, &id,
						 err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "NUL"));
}

/* @FILE: read when only its owner may, refused otherwise */
static void test_key_file(void **state)
{
	char path[] = "/tmp/mqblk-tls-XXXXXX", arg[64], err[256] = "";
	struct nvme_tls_key k;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_true(dprintf(fd, "%s\n", vectors[0].key) > 0);
	close(fd);
	snprintf(arg, sizeof(arg), "@%s", path);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(nvme_tls_key_load(arg, &k, err, sizeof(err)), 0);
	assert_int_equal(k.len, 32);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(nvme_tls_key_load(arg, &k, err, sizeof(err)), -EACCES);
	assert_non_null(strstr(err, "TLS PSK key file"));
	unlink(path);
	assert_int_equal(nvme_tls_key_load(arg, &k, err, sizeof(err)), -ENOENT);
}

static void test_names(void **state)
{
	assert_string_equal(nvme_tls_cipher_name(1), "TLS_AES_128_GCM_SHA256");
	assert_string_equal(nvme_tls_cipher_name(2), "TLS_AES_256_GCM_SHA384");
	assert_null(nvme_tls_cipher_name(0));
}

/* ---- The record layer (tls_ssl.c) ------------------------------------- */

static const uint8_t rec_psk[32] = { 1, 2, 3, 4, 5, 6, 7, 8 };

static int rec_find(SSL *ssl, const unsigned char *id, size_t len,
		    SSL_SESSION **sess)
{
	(void)id;
	(void)len;
	*sess = nvme_tls_session(ssl, rec_psk, sizeof(rec_psk),
				 NVME_TLS_HASH_SHA256);
	return *sess != NULL;
}

static int rec_use(SSL *ssl, const EVP_MD *md, const unsigned char **id,
		   size_t *idlen, SSL_SESSION **sess)
{
	(void)md;
	*id = (const unsigned char *)"rec";
	*idlen = 3;
	*sess = nvme_tls_session(ssl, rec_psk, sizeof(rec_psk),
				 NVME_TLS_HASH_SHA256);
	return *sess != NULL;
}

/* A connected pair of non-blocking loopback TCP sockets (TCP_NODELAY,
 * as the queues have them), small buffers so that writes push back. */
static void tcp_pair(int fd[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1, small = 16384;

	assert_true(l >= 0);
	setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &alen), 0);
	assert_int_equal(listen(l, 1), 0);
	fd[0] = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd[0] >= 0);
	setsockopt(fd[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	assert_int_equal(connect(fd[0], (struct sockaddr *)&a, sizeof(a)), 0);
	fd[1] = accept(l, NULL, NULL);
	assert_true(fd[1] >= 0);
	close(l);
	for (int i = 0; i < 2; i++) {
		setsockopt(fd[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		fcntl(fd[i], F_SETFL, fcntl(fd[i], F_GETFL) | O_NONBLOCK);
	}
}

/* Read what has come (up to len - *got), 1 if anything did. */
static int rec_read_some(SSL *s, uint8_t *buf, size_t len, size_t *got)
{
	int any = 0;

	while (*got < len) {
		ssize_t n = nvme_tls_read(s, buf + *got, len - *got);

		if (n < 0) {
			assert_int_equal(errno, EAGAIN);
			break;
		}
		assert_true(n > 0);
		*got += (size_t)n;
		any = 1;
	}
	return any;
}

/*
 * A gathered write as a queue's is (a header, a payload of several
 * records, a digest) over a socket that pushes back, read back whole on
 * the other end; its last bytes arrive without anything more being sent
 * (the records with more behind them go with MSG_MORE, the last
 * without); a peer's close without close_notify reads as a close.
 */
static void test_record_layer(void **state)
{
	SSL_CTX *sctx, *cctx;
	SSL *srv, *cli;
	int fd[2], cdone = 0, sdone = 0, pushed_back = 0;
	char err[200];
	static uint8_t payload[16 * NVME_TLS_WBUF + 1000],
		got[sizeof(payload) + 64];
	uint8_t hdr[24], dig[4] = { 0xde, 0xad, 0xbe, 0xef };
	struct iovec iov[3] = { { hdr, sizeof(hdr) },
				{ payload, sizeof(payload) },
				{ dig, sizeof(dig) } };
	const size_t total = sizeof(hdr) + sizeof(payload) + sizeof(dig);
	struct nvme_tls_wbuf *w = calloc(1, sizeof(*w));
	size_t off = 0, rcvd = 0;

	(void)state;
	assert_non_null(w);
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + i / 251);
	memset(hdr, 0x5a, sizeof(hdr));
	sctx = nvme_tls_ctx_new(true, err, sizeof(err));
	cctx = nvme_tls_ctx_new(false, err, sizeof(err));
	assert_non_null(sctx);
	assert_non_null(cctx);
	SSL_CTX_set_psk_find_session_callback(sctx, rec_find);
	SSL_CTX_set_psk_use_session_callback(cctx, rec_use);
	tcp_pair(fd);
	srv = SSL_new(sctx);
	cli = SSL_new(cctx);
	assert_int_equal(nvme_tls_set_fd(srv, fd[1]), 0);
	assert_int_equal(nvme_tls_set_fd(cli, fd[0]), 0);
	assert_int_equal(SSL_get_fd(cli), fd[0]);
	for (int i = 0; i < 1000 && !(cdone && sdone); i++) {
		if (!cdone)
			cdone = SSL_connect(cli) == 1;
		if (!sdone)
			sdone = SSL_accept(srv) == 1;
	}
	assert_true(cdone && sdone);

	while (off < total) {
		struct iovec cur[3];
		unsigned n = 0;
		size_t skip = off;
		ssize_t ret;

		for (unsigned i = 0; i < 3; i++) {
			if (skip >= iov[i].iov_len) {
				skip -= iov[i].iov_len;
				continue;
			}
			cur[n].iov_base = (uint8_t *)iov[i].iov_base + skip;
			cur[n++].iov_len = iov[i].iov_len - skip;
			skip = 0;
		}
		ret = nvme_tls_writev(cli, w, cur, n);
		if (ret < 0) {
			assert_int_equal(errno, EAGAIN);
			pushed_back = 1;
			/* the reader drains some; the same bytes go again */
			rec_read_some(srv, got, sizeof(got), &rcvd);
			continue;
		}
		assert_true(ret > 0 && (size_t)ret <= NVME_TLS_WBUF);
		off += (size_t)ret;
	}
	assert_true(pushed_back);
	/* everything written arrives with nothing more sent: over loopback
	 * a pushed segment is in the reader's queue when send returns, one
	 * held back by MSG_MORE would come only after 200 ms (or never) */
	for (int i = 0; i < 20 && rcvd < total; i++) {
		struct pollfd p = { .fd = fd[1], .events = POLLIN };

		if (!rec_read_some(srv, got, sizeof(got), &rcvd))
			poll(&p, 1, 5);
	}
	assert_int_equal(rcvd, total);
	assert_memory_equal(got, hdr, sizeof(hdr));
	assert_memory_equal(got + sizeof(hdr), payload, sizeof(payload));
	assert_memory_equal(got + sizeof(hdr) + sizeof(payload), dig,
			    sizeof(dig));

	/* the host goes without close_notify: a close, not an error */
	close(fd[0]);
	for (int i = 0; i < 100; i++) {
		struct pollfd p = { .fd = fd[1], .events = POLLIN };
		ssize_t n = nvme_tls_read(srv, got, sizeof(got));

		if (n == 0)
			break;
		assert_true(n < 0 && errno == EAGAIN);
		poll(&p, 1, 10);
		assert_true(i < 99);
	}
	SSL_free(cli);
	SSL_free(srv);
	close(fd[1]);
	SSL_CTX_free(cctx);
	SSL_CTX_free(sctx);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvme_cli_keys),
		cmocka_unit_test(test_bad_keys),
		cmocka_unit_test(test_derivation),
		cmocka_unit_test(test_identity_parse),
		cmocka_unit_test(test_key_file),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_record_layer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
