// SPDX-License-Identifier: MIT
/*
 * kTLS's keys (src/nvme/ktls.c): two OpenSSL ends run the TLS 1.3 PSK
 * handshake over a socketpair; the crypto_info nvme_ktls_start would give
 * the kernel must decrypt the first record each end's OpenSSL writes
 * after it (AES-GCM at record 0, the header as additional data), for
 * both of TP 8011's suites, with nothing left in OpenSSL's buffers.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/tls.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>

#include "nvme/ktls.h"
#include "nvme/tls.h"
#include "nvme/tls_ssl.h"

static uint8_t psk[48];
static uint8_t psk_hash;

static int use_session(SSL *ssl, const EVP_MD *md, const unsigned char **id,
		       size_t *idlen, SSL_SESSION **sess)
{
	(void)md;
	*sess = nvme_tls_session(ssl, psk, psk_hash == 2 ? 48 : 32, psk_hash);
	*id = (const unsigned char *)"ktls-test";
	*idlen = 9;
	return *sess != NULL;
}

static int find_session(SSL *ssl, const unsigned char *id, size_t len,
			SSL_SESSION **sess)
{
	*sess = NULL;
	if (len != 9 || memcmp(id, "ktls-test", 9))
		return 0;
	*sess = nvme_tls_session(ssl, psk, psk_hash == 2 ? 48 : 32, psk_hash);
	return *sess != NULL;
}

/* One record off fd (the socketpair: it is all there, or not yet) */
static size_t read_record(int fd, uint8_t *buf, size_t cap)
{
	size_t got = 0, want = 5;
	int spins = 0;

	while (got < want) {
		ssize_t n = recv(fd, buf + got, want - got, 0);

		if (n <= 0) {
			assert_true(n < 0 && errno == EAGAIN && spins++ < 1000);
			usleep(1000);
			continue;
		}
		got += (size_t)n;
		if (got == 5) {
			want = 5 + ((size_t)buf[3] << 8 | buf[4]);
			assert_true(want <= cap);
		}
	}
	return got;
}

/* Decrypt the record rec (len bytes) with ci: the plaintext and its
 * content type byte, into out; returns the inner plaintext's length */
static size_t open_record(
	const union {
		struct tls12_crypto_info_aes_gcm_128 g128;
		struct tls12_crypto_info_aes_gcm_256 g256;
	} * ci,
	bool aes256, const uint8_t *rec, size_t len, uint8_t *out)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint8_t nonce[12];
	const uint8_t *key = aes256 ? ci->g256.key : ci->g128.key;
	const uint8_t *seq = aes256 ? ci->g256.rec_seq : ci->g128.rec_seq;
	size_t body = len - 5 - 16;
	int n = 0, m = 0;

	/* record 0: the nonce is the IV itself (salt, then iv) */
	for (int i = 0; i < 8; i++)
		assert_int_equal(seq[i], 0);
	memcpy(nonce, aes256 ? ci->g256.salt : ci->g128.salt, 4);
	memcpy(nonce + 4, aes256 ? ci->g256.iv : ci->g128.iv, 8);
	assert_non_null(c);
	assert_int_equal(EVP_DecryptInit_ex(c,
					    aes256 ? EVP_aes_256_gcm() :
						     EVP_aes_128_gcm(),
					    NULL, key, nonce),
			 1);
	assert_int_equal(EVP_DecryptUpdate(c, NULL, &n, rec, 5), 1);
	assert_int_equal(EVP_DecryptUpdate(c, out, &n, rec + 5, (int)body), 1);
	assert_int_equal(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, 16,
					     (void *)(rec + 5 + body)),
			 1);
	assert_int_equal(EVP_DecryptFinal_ex(c, out + n, &m), 1);
	EVP_CIPHER_CTX_free(c);
	return (size_t)(n + m);
}

static void keys_for(uint8_t hash)
{
	union {
		struct tls12_crypto_info_aes_gcm_128 g128;
		struct tls12_crypto_info_aes_gcm_256 g256;
	} ctx_c, crx_c, ctx_s, crx_s;
	const char *suite = nvme_tls_cipher_name(hash);
	bool aes256 = hash == NVME_TLS_HASH_SHA384;
	size_t want = aes256 ? sizeof(ctx_c.g256) : sizeof(ctx_c.g128);
	char err[200];
	SSL_CTX *cc = nvme_tls_ctx_new(false, err, sizeof(err));
	SSL_CTX *sc = nvme_tls_ctx_new(true, err, sizeof(err));
	uint8_t rec[512], pt[512];
	bool c_up = false, s_up = false;
	SSL *c, *s;
	int sv[2];
	size_t n;

	for (size_t i = 0; i < sizeof(psk); i++)
		psk[i] = (uint8_t)(i * 7 + hash);
	psk_hash = hash;
	assert_non_null(cc);
	assert_non_null(sc);
	nvme_ktls_ctx_prepare(cc);
	nvme_ktls_ctx_prepare(sc);
	SSL_CTX_set_psk_find_session_callback(sc, find_session);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	c = SSL_new(cc);
	s = SSL_new(sc);
	assert_non_null(c);
	assert_non_null(s);
	SSL_set_fd(c, sv[0]);
	SSL_set_fd(s, sv[1]);
	assert_int_equal(SSL_set_ciphersuites(c, suite), 1);
	SSL_set_psk_use_session_callback(c, use_session);
	/* no secrets kept before asking */
	assert_int_equal(nvme_ktls_want(c), 0);
	assert_int_equal(nvme_ktls_want(s), 0);
	for (int i = 0; i < 100 && !(c_up && s_up); i++) {
		if (!c_up)
			c_up = SSL_connect(c) == 1;
		if (!s_up)
			s_up = SSL_accept(s) == 1;
	}
	assert_true(c_up && s_up);
	assert_string_equal(SSL_get_cipher_name(c), suite);
	assert_false(SSL_has_pending(c));
	assert_false(SSL_has_pending(s));

	assert_int_equal(nvme_ktls_crypto_info(c, true, &ctx_c, sizeof(ctx_c)),
			 (int)want);
	assert_int_equal(nvme_ktls_crypto_info(c, false, &crx_c, sizeof(crx_c)),
			 (int)want);
	assert_int_equal(nvme_ktls_crypto_info(s, true, &ctx_s, sizeof(ctx_s)),
			 (int)want);
	assert_int_equal(nvme_ktls_crypto_info(s, false, &crx_s, sizeof(crx_s)),
			 (int)want);
	assert_int_equal(nvme_ktls_crypto_info(c, true, &ctx_c, 8), -ENOSPC);
	/* each direction the same on both ends, the two directions apart */
	assert_memory_equal(&ctx_c, &crx_s, want);
	assert_memory_equal(&crx_c, &ctx_s, want);
	assert_memory_not_equal(&ctx_c, &crx_c, want);
	assert_int_equal(ctx_c.g128.info.version, TLS_1_3_VERSION);
	assert_int_equal(ctx_c.g128.info.cipher_type,
			 aes256 ? TLS_CIPHER_AES_GCM_256 :
				  TLS_CIPHER_AES_GCM_128);

	/* host to target, then back: OpenSSL's first application records,
	 * opened with the kernel's keys (inner type 23: application data,
	 * so nothing such as a NewSessionTicket came first) */
	assert_int_equal(SSL_write(c, "ICReq, say", 10), 10);
	n = read_record(sv[1], rec, sizeof(rec));
	assert_int_equal(rec[0], 23);
	assert_int_equal(open_record((void *)&crx_s, aes256, rec, n, pt), 11);
	assert_memory_equal(pt, "ICReq, say\x17", 11);
	assert_int_equal(SSL_write(s, "ICResp", 6), 6);
	n = read_record(sv[0], rec, sizeof(rec));
	assert_int_equal(open_record((void *)&crx_c, aes256, rec, n, pt), 7);
	assert_memory_equal(pt, "ICResp\x17", 7);

	SSL_free(c);
	SSL_free(s);
	SSL_CTX_free(cc);
	SSL_CTX_free(sc);
	close(sv[0]);
	close(sv[1]);
}

static void test_keys_aes128(void **state)
{
	(void)state;
	keys_for(NVME_TLS_HASH_SHA256);
}

static void test_keys_aes256(void **state)
{
	(void)state;
	keys_for(NVME_TLS_HASH_SHA384);
}

/* an SSL that did not ask keeps no secrets: nothing to give the kernel */
static void test_not_asked(void **state)
{
	char err[200];
	SSL_CTX *cc = nvme_tls_ctx_new(false, err, sizeof(err));
	uint8_t ci[64];
	SSL *c;

	(void)state;
	assert_non_null(cc);
	nvme_ktls_ctx_prepare(cc);
	c = SSL_new(cc);
	assert_non_null(c);
	assert_int_equal(nvme_ktls_crypto_info(c, true, ci, sizeof(ci)),
			 -ENOKEY);
	SSL_free(c);
	SSL_CTX_free(cc);
}

/* a peer's handshake records on a kTLS socket: NewSessionTickets go,
 * whole or cut anywhere; a KeyUpdate (type 24) is refused */
static void test_hs_skip(void **state)
{
	const uint8_t two[] = { 4, 0, 0, 3, 'a', 'b', 'c', 4, 0, 0, 1, 'd' };
	const uint8_t keyupdate[] = { 24, 0, 0, 1, 0 };
	struct nvme_ktls_rx st = { 0 };

	(void)state;
	assert_int_equal(nvme_ktls_hs_skip(&st, two, sizeof(two)), 0);
	assert_int_equal(st.skip, 0);
	assert_int_equal(st.hdr_got, 0);
	for (size_t i = 0; i < sizeof(two); i++)
		assert_int_equal(nvme_ktls_hs_skip(&st, two + i, 1), 0);
	assert_int_equal(st.skip + st.hdr_got, 0);
	assert_int_equal(nvme_ktls_hs_skip(&st, two, 6), 0);
	assert_int_equal(st.skip, 1); /* 'c' still to come */
	assert_int_equal(nvme_ktls_hs_skip(&st, two + 6, 6), 0);
	assert_int_equal(nvme_ktls_hs_skip(&st, keyupdate, sizeof(keyupdate)),
			 -EPROTO);
}

static void test_mode_parse(void **state)
{
	uint8_t m = 99;

	(void)state;
	assert_int_equal(nvme_ktls_mode_parse("auto", &m), 0);
	assert_int_equal(m, NVME_KTLS_AUTO);
	assert_int_equal(nvme_ktls_mode_parse("off", &m), 0);
	assert_int_equal(m, NVME_KTLS_OFF);
	assert_int_equal(nvme_ktls_mode_parse("on", &m), 0);
	assert_int_equal(m, NVME_KTLS_ON);
	assert_int_equal(nvme_ktls_mode_parse("ON", &m), -EINVAL);
	assert_int_equal(nvme_ktls_mode_parse("", &m), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_aes128),
		cmocka_unit_test(test_keys_aes256),
		cmocka_unit_test(test_not_asked),
		cmocka_unit_test(test_hs_skip),
		cmocka_unit_test(test_mode_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
