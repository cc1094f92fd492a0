// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the TLS PSKs of NVMe/TCP (src/nvme/tls.c). Byte 0
 * even: the rest is an NVMeTLSkey-1 string; checked: an accepted key is
 * 32 or 48 bytes with hash 0..2 agreeing with its length and prints back
 * as the same string, a refused one says why in one line and leaves no
 * key. Byte 0 odd: the rest is a PSK identity as a ClientHello carries it
 * (what the target parses before any key is known); checked: an accepted
 * one has NQNs of 1..223 characters without spaces, a digest exactly for
 * version 1, rebuilds to the same bytes (version 0), and a TLS PSK derives
 * from it for a fixed key unless it is a version 0 identity too long to be
 * an HkdfLabel's context; a refused one says why in one line.
 * Every input (after byte 0) is also a kTLS socket's handshake records
 * (src/nvme/ktls_mode.c: NewSessionTickets skipped, anything else
 * refused), read whole and then one byte at a time: the verdict and where
 * the skipper stands must not depend on how the bytes were cut.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "nvme/ktls.h"
#include "nvme/tls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_key(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), err[256], back[128];
	struct nvme_tls_key k;
	int ret;

	if (!s)
		return;
	err[0] = '\0';
	ret = nvme_tls_key_parse(s, &k, err, sizeof(err));
	if (ret == 0) {
		FUZZ_CHECK(k.len == 32 || k.len == 48);
		FUZZ_CHECK(k.hash <= NVME_TLS_HASH_SHA384);
		FUZZ_CHECK(!k.hash || k.len == (k.hash == 1 ? 32 : 48));
		FUZZ_CHECK(nvme_tls_key_format(&k, back, sizeof(back)) == 0);
		FUZZ_CHECK(strcmp(back, s) == 0);
	} else {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(k.len == 0);
		FUZZ_CHECK(err[0] && !strchr(err, '\n'));
	}
	nvme_tls_key_clear(&k);
	free(s);
}

static void fuzz_identity(const uint8_t *data, size_t size)
{
	struct nvme_tls_identity id;
	char err[256] = "", *s, back[NVME_TLS_MAX_IDENTITY];
	uint8_t retained[NVME_TLS_MAX_KEY], psk[NVME_TLS_MAX_KEY];
	int ret = nvme_tls_identity_parse(data, size, &id, err, sizeof(err));

	if (ret) {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(err[0] && !strchr(err, '\n'));
		return;
	}
	FUZZ_CHECK(id.version <= 1 && (id.hash == 1 || id.hash == 2));
	FUZZ_CHECK(id.hostnqn[0] && strlen(id.hostnqn) <= NVME_TLS_NQN_MAX);
	FUZZ_CHECK(id.subnqn[0] && strlen(id.subnqn) <= NVME_TLS_NQN_MAX);
	FUZZ_CHECK(!strchr(id.hostnqn, ' ') && !strchr(id.subnqn, ' '));
	FUZZ_CHECK(!id.version == !id.digest[0]);
	if (id.version == 0 && !id.generated) {
		ret = nvme_tls_identity_build(0, id.hash, NULL, 0, id.hostnqn,
					      id.subnqn, back, sizeof(back));
		FUZZ_CHECK(ret == (int)size && !memcmp(back, data, size));
	}
	s = fuzz_string(data, size);
	if (!s)
		return;
	memset(retained, 0x5a, sizeof(retained));
	ret = nvme_tls_psk(&id, s, retained, id.hash == 1 ? 32 : 48, psk);
	/* a version 0 identity is the HkdfLabel's context: 255 bytes */
	if (id.version == 0 && size > 255)
		FUZZ_CHECK(ret == -EINVAL);
	else
		FUZZ_CHECK(ret == (id.hash == 1 ? 32 : 48));
	free(s);
}

static void fuzz_hs_skip(const uint8_t *data, size_t size)
{
	struct nvme_ktls_rx whole = { 0 }, cut = { 0 };
	int a = nvme_ktls_hs_skip(&whole, data, size), b = 0;

	FUZZ_CHECK(a == 0 || a == -EPROTO);
	for (size_t i = 0; i < size && !b; i++)
		b = nvme_ktls_hs_skip(&cut, data + i, 1);
	FUZZ_CHECK(a == b);
	if (!a) {
		FUZZ_CHECK(whole.skip == cut.skip);
		FUZZ_CHECK(whole.hdr_got == cut.hdr_got && whole.hdr_got < 4);
		FUZZ_CHECK(memcmp(whole.hdr, cut.hdr, whole.hdr_got) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	fuzz_hs_skip(data + 1, size - 1);
	if (data[0] & 1)
		fuzz_identity(data + 1, size - 1);
	else
		fuzz_key(data + 1, size - 1);
	return 0;
}
