// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for DH-HMAC-CHAP (src/nvme/auth*.c). Byte 0 % 10 picks
 * what the rest is:
 *   0:   a DHHC-1 secret string; checked: accepted ones are 32/48/64
 *        bytes with hash 0..3 and print back as the same string; refused
 *        ones say why in one line and leave no key behind.
 *   1-6: one message for the decoder of Negotiate, Challenge, Reply,
 *        Success1, Success2, Failure1; checked: the result is 0 or a
 *        failure reason 1..7, and what a decoder accepts lies inside the
 *        input and encodes back to a message that decodes the same.
 *   7:   a Negotiate into a controller's exchange;
 *   8:   a Challenge (or Failure1) into a host's after its Negotiate;
 *   9:   a Reply (or Failure2) into a controller's after a real
 *        Negotiate; checked for 7-9: the step returns 0, a reason or
 *        -errno, a reason leaves the state FAILED and either nothing to
 *        send (the peer's failure) or an 8-byte Failure1/2 with it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "nvme/auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:fuzz-host"
#define SUBNQN "nqn.2024-01.io.mqblk:fuzz"

static void check_reason(int r)
{
	FUZZ_CHECK(r >= 0 && r <= NVME_AUTH_FAIL_INCORRECT_MESSAGE);
}

static bool inside(const uint8_t *p, size_t n, const uint8_t *buf, size_t len)
{
	return p >= buf && n <= len && (size_t)(p - buf) <= len - n;
}

static void fuzz_secret(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), err[256], back[128];
	struct nvme_auth_key k;
	int ret;

	if (!s)
		return;
	err[0] = '\0';
	ret = nvme_auth_key_parse(s, &k, err, sizeof(err));
	if (ret == 0) {
		FUZZ_CHECK(k.len == 32 || k.len == 48 || k.len == 64);
		FUZZ_CHECK(k.hash <= NVME_AUTH_HASH_SHA512);
		FUZZ_CHECK(nvme_auth_key_format(&k, back, sizeof(back)) == 0);
		FUZZ_CHECK(strcmp(back, s) == 0);
	} else {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(k.len == 0);
		FUZZ_CHECK(err[0] && !strchr(err, '\n'));
	}
	nvme_auth_key_clear(&k);
	free(s);
}

static void fuzz_decode(int which, const uint8_t *buf, size_t len)
{
	static uint8_t out[NVME_AUTH_MAX_MSG];
	int r, n;

	switch (which) {
	case 1: {
		struct nvme_auth_negotiate_info a, b;

		r = nvme_auth_negotiate_decode(buf, len, &a);
		check_reason(r);
		if (r)
			break;
		FUZZ_CHECK(a.nr_hashes >= 1 &&
			   a.nr_hashes <= NVME_AUTH_MAX_IDS);
		FUZZ_CHECK(a.nr_dhgroups >= 1 &&
			   a.nr_dhgroups <= NVME_AUTH_MAX_IDS);
		n = nvme_auth_negotiate_encode(out, sizeof(out), a.t_id,
					       a.hashes, a.nr_hashes,
					       a.dhgroups, a.nr_dhgroups);
		FUZZ_CHECK(n > 0);
		FUZZ_CHECK(nvme_auth_negotiate_decode(out, (size_t)n, &b) == 0);
		FUZZ_CHECK(b.t_id == a.t_id && b.nr_hashes == a.nr_hashes &&
			   b.nr_dhgroups == a.nr_dhgroups);
		FUZZ_CHECK(!memcmp(b.hashes, a.hashes, a.nr_hashes));
		FUZZ_CHECK(!memcmp(b.dhgroups, a.dhgroups, a.nr_dhgroups));
		break;
	}
	case 2: {
		struct nvme_auth_challenge_info a, b;

		r = nvme_auth_challenge_decode(buf, len, &a);
		check_reason(r);
		if (r)
			break;
		FUZZ_CHECK(a.hl == nvme_auth_hash_len(a.hash));
		FUZZ_CHECK(a.seqnum != 0);
		FUZZ_CHECK(inside(a.cval, a.hl, buf, len));
		FUZZ_CHECK(a.dhvlen <= nvme_auth_dhgroup_len(a.dhgroup));
		FUZZ_CHECK(!a.dhvlen || inside(a.dhv, a.dhvlen, buf, len));
		n = nvme_auth_challenge_encode(out, sizeof(out), a.t_id, a.hash,
					       a.dhgroup, a.seqnum, a.cval,
					       a.dhv, a.dhvlen);
		FUZZ_CHECK(n > 0);
		FUZZ_CHECK(nvme_auth_challenge_decode(out, (size_t)n, &b) == 0);
		FUZZ_CHECK(b.seqnum == a.seqnum && b.dhvlen == a.dhvlen &&
			   b.hash == a.hash && b.dhgroup == a.dhgroup);
		FUZZ_CHECK(!memcmp(b.cval, a.cval, a.hl));
		FUZZ_CHECK(!a.dhvlen || !memcmp(b.dhv, a.dhv, a.dhvlen));
		break;
	}
	case 3: {
		struct nvme_auth_reply_info a, b;

		r = nvme_auth_reply_decode(buf, len, &a);
		check_reason(r);
		if (r)
			break;
		FUZZ_CHECK(inside(a.rval, 2u * a.hl, buf, len));
		FUZZ_CHECK(a.cvalid == (a.cval != NULL));
		FUZZ_CHECK(a.cvalid == (a.seqnum != 0));
		FUZZ_CHECK(!a.dhvlen || inside(a.dhv, a.dhvlen, buf, len));
		n = nvme_auth_reply_encode(out, sizeof(out), a.t_id, a.hl,
					   a.rval, a.cval, a.seqnum, a.dhv,
					   a.dhvlen);
		FUZZ_CHECK(n > 0);
		FUZZ_CHECK(nvme_auth_reply_decode(out, (size_t)n, &b) == 0);
		FUZZ_CHECK(b.seqnum == a.seqnum && b.cvalid == a.cvalid &&
			   b.dhvlen == a.dhvlen && b.hl == a.hl);
		FUZZ_CHECK(!memcmp(b.rval, a.rval, a.hl));
		break;
	}
	case 4: {
		struct nvme_auth_success1_info a, b;

		r = nvme_auth_success1_decode(buf, len, &a);
		check_reason(r);
		if (r || !a.rvalid)
			break;
		FUZZ_CHECK(inside(a.rval, a.hl, buf, len));
		n = nvme_auth_success1_encode(out, sizeof(out), a.t_id, a.hl,
					      a.rval);
		FUZZ_CHECK(n > 0);
		FUZZ_CHECK(nvme_auth_success1_decode(out, (size_t)n, &b) == 0);
		FUZZ_CHECK(b.rvalid && !memcmp(b.rval, a.rval, a.hl));
		break;
	}
	case 5: {
		uint16_t t_id;

		check_reason(nvme_auth_success2_decode(buf, len, &t_id));
		break;
	}
	case 6: {
		uint16_t t_id;
		uint8_t reason;

		r = nvme_auth_failure_decode(buf, len, NVME_AUTH_ID_FAILURE1,
					     &t_id, &reason);
		check_reason(r);
		if (!r)
			FUZZ_CHECK(reason >= NVME_AUTH_FAIL_FAILED &&
				   reason <= NVME_AUTH_FAIL_INCORRECT_MESSAGE);
		break;
	}
	}
}

/* What any step's answer must look like */
static void check_step(const struct nvme_auth_exch *x, int ret,
		       const uint8_t *out, size_t out_len, uint8_t fail_id)
{
	uint16_t t_id;
	uint8_t reason;

	FUZZ_CHECK(ret <= NVME_AUTH_FAIL_INCORRECT_MESSAGE);
	if (ret <= 0)
		return;
	FUZZ_CHECK(x->state == NVME_AUTH_ST_FAILED);
	FUZZ_CHECK(x->failure == ret);
	if (x->peer_failed) {
		FUZZ_CHECK(out_len == 0);
		return;
	}
	FUZZ_CHECK(out_len == sizeof(struct nvme_auth_failure_msg));
	FUZZ_CHECK(nvme_auth_failure_decode(out, out_len, fail_id, &t_id,
					    &reason) == 0);
	FUZZ_CHECK(reason == ret);
}

static void fuzz_exchange(int which, const uint8_t *buf, size_t len)
{
	static uint8_t out[NVME_AUTH_MAX_MSG], neg[NVME_AUTH_MAX_MSG];
	struct nvme_auth_key hk = { .hash = 1, .len = 32 }, ck = { .len = 48 };
	struct nvme_auth_cfg cfg = {
		.hostnqn = HOSTNQN,
		.subnqn = SUBNQN,
		.host_key = &hk,
		.ctrl_key = &ck,
		/* the null group and ffdhe2048 only: the bigger ones cost
		 * time per run and exercise no other code */
		.dhgroups = { NVME_AUTH_DHGROUP_NULL, NVME_AUTH_DHGROUP_2048 },
		.nr_dhgroups = 2,
	};
	struct nvme_auth_exch x, h;
	size_t out_len = 0, neg_len;
	int ret;

	nvme_auth_exch_init(&x, &cfg);
	switch (which) {
	case 7:
		ret = nvme_auth_ctrl_step_negotiate(&x, buf, len, out,
						    sizeof(out), &out_len);
		check_step(&x, ret, out, out_len, NVME_AUTH_ID_FAILURE1);
		if (ret == 0)
			FUZZ_CHECK(x.state == NVME_AUTH_ST_CHALLENGE &&
				   out_len > 0);
		break;
	case 8:
		FUZZ_CHECK(nvme_auth_host_start(&x, 1, neg, sizeof(neg),
						&neg_len) == 0);
		ret = nvme_auth_host_step_challenge(&x, buf, len, out,
						    sizeof(out), &out_len);
		check_step(&x, ret, out, out_len, NVME_AUTH_ID_FAILURE2);
		if (ret == 0)
			FUZZ_CHECK(x.state == NVME_AUTH_ST_CHALLENGE);
		break;
	case 9:
		/* a real host's Negotiate, t_id 1, then the fuzzer's Reply */
		nvme_auth_exch_init(&h, &cfg);
		FUZZ_CHECK(nvme_auth_host_start(&h, 1, neg, sizeof(neg),
						&neg_len) == 0);
		nvme_auth_exch_clear(&h);
		FUZZ_CHECK(nvme_auth_ctrl_step_negotiate(&x, neg, neg_len, out,
							 sizeof(out),
							 &out_len) == 0);
		ret = nvme_auth_ctrl_step_reply(&x, buf, len, out, sizeof(out),
						&out_len);
		check_step(&x, ret, out, out_len, NVME_AUTH_ID_FAILURE1);
		break;
	}
	nvme_auth_exch_clear(&x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int which;

	if (size < 1)
		return 0;
	which = data[0] % 10;
	data++;
	size--;
	if (which == 0)
		fuzz_secret(data, size);
	else if (which <= 6)
		fuzz_decode(which, data, size);
	else
		fuzz_exchange(which, data, size);
	return 0;
}
