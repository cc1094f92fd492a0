// SPDX-License-Identifier: MIT
/*
 * DH-HMAC-CHAP (src/nvme/auth*.c): secrets made by nvme-cli's own
 * gen-dhchap-key, its key transformation, known-answer responses, and the
 * whole exchange host <-> controller in memory for every hash and group.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "nvme/auth.h"
#include "nvme_cli.h"

#define HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:0c4f3b2a-auth-test-host"
#define SUBNQN "nqn.2024-01.io.mqblk:auth-test"

/* ---- nvme-cli --------------------------------------------------------- */

static void parse_ok(const char *s, struct nvme_auth_key *k)
{
	char err[256] = "";
	int ret = nvme_auth_key_parse(s, k, err, sizeof(err));

	if (ret)
		fail_msg("%s: %d %s", s, ret, err);
}

static void parse_bad(const char *s, const char *in_msg)
{
	struct nvme_auth_key k;
	char err[256] = "";

	assert_int_equal(nvme_auth_key_parse(s, &k, err, sizeof(err)), -EINVAL);
	if (!strstr(err, in_msg))
		fail_msg("%s: reason '%s' lacks '%s'", s, err, in_msg);
	assert_null(strchr(err, '\n'));
	assert_int_equal(k.len, 0);
}

/* Keys nvme gen-dhchap-key makes, every length and transformation hash:
 * parsed, CRC checked, and written back the same. */
static void test_nvme_cli_keys(void **state)
{
	char cmd[256], line[256], back[256];
	struct nvme_auth_key k;

	if (!have_nvme_cli())
		skip();
	for (int len = 32; len <= 64; len += 16) {
		for (int hmac = 0; hmac <= 3; hmac++) {
			/* with a transformation hash, nvme-cli transforms
			 * and the key is the hash's length */
			int want =
				hmac ? (int)nvme_auth_hash_len((uint8_t)hmac) :
				       len;

			if (hmac && want != len)
				continue;
			snprintf(cmd, sizeof(cmd),
				 "nvme gen-dhchap-key -l %d -m %d -n %s", len,
				 hmac, HOSTNQN);
			assert_int_equal(run_line(cmd, line, sizeof(line)), 0);
			parse_ok(line, &k);
			assert_int_equal(k.len, want);
			assert_int_equal(k.hash, hmac);
			assert_int_equal(nvme_auth_key_format(&k, back,
							      sizeof(back)),
					 0);
			assert_string_equal(back, line);
			nvme_auth_key_clear(&k);
			assert_int_equal(k.len, 0);
		}
	}
}

/* nvme-cli 2.3's gen-dhchap-key --secret S --hmac H --nqn N prints
 * HMAC(H, S, N || "NVMe-over-Fabrics"): our transformation of S must be
 * the key it printed. */
static void test_nvme_cli_transform(void **state)
{
	char cmd[512], line[256], hex[129];
	struct nvme_auth_key raw, cli;
	uint8_t out[NVME_AUTH_MAX_HASH_LEN];

	if (!have_nvme_cli())
		skip();
	for (uint8_t h = 1; h <= 3; h++) {
		raw.hash = h;
		raw.len = (uint8_t)nvme_auth_hash_len(h);
		for (int i = 0; i < raw.len; i++) {
			raw.data[i] = (uint8_t)(i * 7 + h);
			snprintf(hex + 2 * i, 3, "%02x", raw.data[i]);
		}
		snprintf(cmd, sizeof(cmd),
			 "nvme gen-dhchap-key -s %s -l %d -m %u -n %s", hex,
			 raw.len, h, HOSTNQN);
		assert_int_equal(run_line(cmd, line, sizeof(line)), 0);
		parse_ok(line, &cli);
		assert_int_equal(cli.hash, h);
		assert_int_equal(nvme_auth_key_transform(&raw, HOSTNQN, out),
				 raw.len);
		assert_memory_equal(out, cli.data, raw.len);
		/* another NQN, another key */
		assert_int_equal(nvme_auth_key_transform(&raw, SUBNQN, out),
				 raw.len);
		assert_memory_not_equal(out, cli.data, raw.len);
	}
	/* hash 00: used as is */
	raw.hash = 0;
	raw.len = 48;
	assert_int_equal(nvme_auth_key_transform(&raw, HOSTNQN, out), 48);
	assert_memory_equal(out, raw.data, 48);
}

/* Our own key strings pass nvme check-dhchap-key. */
static void test_nvme_cli_checks_ours(void **state)
{
	struct nvme_auth_key k = { .hash = 2, .len = 48 };
	char s[256], cmd[512];

	if (!have_nvme_cli())
		skip();
	for (int i = 0; i < k.len; i++)
		k.data[i] = (uint8_t)(0xa5 ^ i);
	assert_int_equal(nvme_auth_key_format(&k, s, sizeof(s)), 0);
	snprintf(cmd, sizeof(cmd), "nvme check-dhchap-key -k '%s' 2>&1", s);
	assert_int_equal(system(cmd), 0);
}

static void test_bad_keys(void **state)
{
	/* a good one, then damaged copies of it */
	const char *good =
		"DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";
	struct nvme_auth_key k;
	char s[128];

	parse_ok(good, &k);
	assert_int_equal(k.len, 32);
	for (int i = 0; i < 32; i++)
		assert_int_equal(k.data[i], i);
	/* one base64 character changed: same length, CRC mismatch */
	snprintf(s, sizeof(s), "%s", good);
	s[12] = s[12] == 'A' ? 'B' : 'A';
	parse_bad(s, "CRC-32 mismatch");
	parse_bad("DHHC-2:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		  "format");
	parse_bad("DHHC-1:04:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		  "transformation hash 04");
	parse_bad("DHHC-1:0:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		  "two digits");
	parse_bad("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR",
		  "does not end");
	parse_bad(
		"DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:x",
		"does not end");
	parse_bad("DHHC-1:00:AAEC*wQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		  "base64");
	/* 24 bytes: a length the format does not have */
	parse_bad("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYX:", "want 32, 48");
	parse_bad("", "format");
}

/* "@FILE": the secret from a file only its owner may read */
static void test_key_file(void **state)
{
	const char *good =
		"DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";
	char dir[] = "/tmp/mqblk-auth-XXXXXX", path[64], arg[80], err[256];
	struct nvme_auth_key k;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key", dir);
	snprintf(arg, sizeof(arg), "@%s", path);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", good);
	fclose(f);
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(nvme_auth_key_load(arg, &k, err, sizeof(err)), 0);
	assert_int_equal(k.len, 32);
	assert_int_equal(k.data[5], 5);
	/* readable by the group: refused, the key not loaded */
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(nvme_auth_key_load(arg, &k, err, sizeof(err)),
			 -EACCES);
	assert_non_null(strstr(err, "group or others may read"));
	assert_int_equal(k.len, 0);
	assert_int_equal(chmod(path, 0604), 0);
	assert_int_equal(nvme_auth_key_load(arg, &k, err, sizeof(err)),
			 -EACCES);
	unlink(path);
	assert_int_equal(nvme_auth_key_load(arg, &k, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "No such file"));
	rmdir(dir);
	/* without '@': the secret itself */
	assert_int_equal(nvme_auth_key_load(good, &k, err, sizeof(err)), 0);
}

/* ---- Known answers (computed independently with Python's hmac) -------- */

static void test_known_answers(void **state)
{
	static const uint8_t r1[32] = {
		0x81, 0xdd, 0x8a, 0x0f, 0x9d, 0x44, 0x3c, 0xf0,
		0x54, 0x91, 0x99, 0xec, 0x76, 0x36, 0xac, 0x24,
		0xd2, 0x7b, 0x0c, 0x76, 0x52, 0x4a, 0x75, 0x49,
		0x5d, 0xde, 0x5a, 0x53, 0xd8, 0x64, 0xdb, 0x9c,
	};
	static const uint8_t r2[48] = {
		0xe7, 0x55, 0xc0, 0x4b, 0xe6, 0x86, 0xcf, 0x77, 0x09, 0x7f,
		0x78, 0xaa, 0xce, 0xde, 0x9a, 0x15, 0x52, 0xd7, 0x4e, 0x89,
		0x2b, 0x47, 0x85, 0xff, 0xf0, 0x78, 0x62, 0xf4, 0x5b, 0xb2,
		0x48, 0xe3, 0x2f, 0xb0, 0x18, 0x9d, 0x93, 0x69, 0xdd, 0x1c,
		0x28, 0x9e, 0xbe, 0x51, 0x91, 0x85, 0x37, 0x6d,
	};
	uint8_t key[32], chal[48], sess[256], out[64];

	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 48; i++)
		chal[i] = (uint8_t)(0x40 + i);
	for (int i = 0; i < 256; i++)
		sess[i] = (uint8_t)(0x80 + i);
	assert_int_equal(nvme_auth_response(NVME_AUTH_HASH_SHA256, key, 32,
					    chal, NULL, 0, 0x01020304, 0x0506,
					    0, "HostHost", "nqn.h", "nqn.s",
					    out),
			 0);
	assert_memory_equal(out, r1, 32);
	/* augmented challenge (a DH session key) */
	assert_int_equal(nvme_auth_response(NVME_AUTH_HASH_SHA384, key, 32,
					    chal, sess, sizeof(sess), 7, 9, 0,
					    "Controller", "nqn.s", "nqn.h",
					    out),
			 0);
	assert_memory_equal(out, r2, 48);
}

/* ---- The exchange ---------------------------------------------------- */

static void make_key(struct nvme_auth_key *k, uint8_t hash, uint8_t len,
		     uint8_t seed)
{
	k->hash = hash;
	k->len = len;
	for (int i = 0; i < len; i++)
		k->data[i] = (uint8_t)(seed + 31 * i);
}

struct pair {
	struct nvme_auth_cfg hc, cc; /* host's and controller's views */
	struct nvme_auth_exch h, c;
	uint8_t a[NVME_AUTH_MAX_MSG], b[NVME_AUTH_MAX_MSG];
	size_t alen, blen;
};

static void pair_init(struct pair *p, const struct nvme_auth_key *hkey,
		      const struct nvme_auth_key *hckey,
		      const struct nvme_auth_key *ckey,
		      const struct nvme_auth_key *cckey)
{
	memset(p, 0, sizeof(*p));
	p->hc.hostnqn = p->cc.hostnqn = HOSTNQN;
	p->hc.subnqn = p->cc.subnqn = SUBNQN;
	p->hc.host_key = hkey;
	p->hc.ctrl_key = hckey;
	p->cc.host_key = ckey;
	p->cc.ctrl_key = cckey;
	nvme_auth_exch_init(&p->h, &p->hc);
	nvme_auth_exch_init(&p->c, &p->cc);
}

static void pair_clear(struct pair *p)
{
	nvme_auth_exch_clear(&p->h);
	nvme_auth_exch_clear(&p->c);
}

/* The host's Negotiate (transaction t_id) in p->a */
static void host_start(struct pair *p, uint16_t t_id)
{
	assert_int_equal(nvme_auth_host_start(&p->h, t_id, p->a, sizeof(p->a),
					      &p->alen),
			 0);
}

/* The controller's answer to the first alen bytes of p->a, in p->b: its
 * verdict */
static int ctrl_negotiate(struct pair *p, size_t alen)
{
	return nvme_auth_ctrl_step_negotiate(&p->c, p->a, alen, p->b,
					     sizeof(p->b), &p->blen);
}

/* The host's answer to the first blen bytes of p->b, in p->a */
static int host_challenge(struct pair *p, size_t blen)
{
	return nvme_auth_host_step_challenge(&p->h, p->b, blen, p->a,
					     sizeof(p->a), &p->alen);
}

/* The controller's verdict on a Reply, Success1 (or Failure1) in p->b */
static int ctrl_reply(struct pair *p, const uint8_t *msg, size_t len)
{
	return nvme_auth_ctrl_step_reply(&p->c, msg, len, p->b, sizeof(p->b),
					 &p->blen);
}

/* Negotiate -> Challenge: the host's Reply in p->a */
static void run_to_reply(struct pair *p, uint16_t t_id)
{
	host_start(p, t_id);
	assert_int_equal(ctrl_negotiate(p, p->alen), 0);
	assert_int_equal(host_challenge(p, p->blen), 0);
}

/* Negotiate -> Challenge -> Reply; returns the controller's verdict on
 * the Reply with Success1 (or Failure1) in p->b. */
static int run_to_success1(struct pair *p, uint16_t t_id)
{
	run_to_reply(p, t_id);
	return ctrl_reply(p, p->a, p->alen);
}

static void exchange_ok(uint8_t hash, uint8_t group, bool bidir)
{
	struct nvme_auth_key hk, ck;
	struct pair *p = malloc(sizeof(*p));
	uint8_t tmp[NVME_AUTH_MAX_MSG];
	size_t tlen;

	assert_non_null(p);
	make_key(&hk, NVME_AUTH_HASH_SHA256, 32, 1);
	make_key(&ck, NVME_AUTH_HASH_NONE, 64, 2);
	pair_init(p, &hk, bidir ? &ck : NULL, &hk, bidir ? &ck : NULL);
	p->cc.hashes[0] = hash;
	p->cc.nr_hashes = 1;
	p->cc.dhgroups[0] = group;
	p->cc.nr_dhgroups = 1;
	assert_int_equal(run_to_success1(p, 0x1234), 0);
	assert_int_equal(p->c.hash, hash);
	assert_int_equal(p->c.dhgroup, group);
	/* the Challenge carried the group's full public value */
	assert_int_equal(p->h.dhgroup, group);
	assert_int_equal(p->c.state,
			 bidir ? NVME_AUTH_ST_SUCCESS1 : NVME_AUTH_ST_DONE);
	assert_int_equal(nvme_auth_host_step_success1(&p->h, p->b, p->blen, tmp,
						      sizeof(tmp), &tlen),
			 0);
	assert_int_equal(p->h.state, NVME_AUTH_ST_DONE);
	if (bidir) {
		assert_int_equal(tlen, sizeof(struct nvme_auth_success2));
		assert_int_equal(nvme_auth_ctrl_step_success2(&p->c, tmp, tlen),
				 0);
		assert_int_equal(p->c.state, NVME_AUTH_ST_DONE);
	} else {
		assert_int_equal(tlen, 0);
	}
	pair_clear(p);
	free(p);
}

static void test_every_hash_and_group(void **state)
{
	for (uint8_t h = 1; h <= 3; h++)
		for (uint8_t g = 0; g <= NVME_AUTH_DHGROUP_8192; g++)
			for (int bidir = 0; bidir < 2; bidir++)
				exchange_ok(h, g, bidir);
}

/* The host's reply under the wrong key: Failure1 "failed", and the host
 * learns the reason from it. */
static void test_wrong_host_key(void **state)
{
	struct nvme_auth_key hk, bad;
	struct pair *p = malloc(sizeof(*p));
	uint8_t tmp[NVME_AUTH_MAX_MSG];
	size_t tlen;
	uint16_t t_id;
	uint8_t reason;

	assert_non_null(p);
	make_key(&hk, 1, 32, 1);
	make_key(&bad, 1, 32, 9);
	for (uint8_t g = 0; g <= NVME_AUTH_DHGROUP_2048; g++) {
		pair_init(p, &bad, NULL, &hk, NULL);
		p->cc.dhgroups[0] = g;
		p->cc.nr_dhgroups = 1;
		assert_int_equal(run_to_success1(p, 7), NVME_AUTH_FAIL_FAILED);
		assert_int_equal(p->c.state, NVME_AUTH_ST_FAILED);
		assert_int_equal(nvme_auth_failure_decode(p->b, p->blen,
							  NVME_AUTH_ID_FAILURE1,
							  &t_id, &reason),
				 0);
		assert_int_equal(t_id, 7);
		assert_int_equal(reason, NVME_AUTH_FAIL_FAILED);
		assert_int_equal(
			nvme_auth_host_step_success1(&p->h, p->b, p->blen, tmp,
						     sizeof(tmp), &tlen),
			NVME_AUTH_FAIL_FAILED);
		assert_true(p->h.peer_failed);
		assert_int_equal(tlen, 0);
		pair_clear(p);
	}
	/* the right secret under another transformation hash is another key */
	make_key(&bad, 2, 32, 1);
	pair_init(p, &bad, NULL, &hk, NULL);
	assert_int_equal(run_to_success1(p, 8), NVME_AUTH_FAIL_FAILED);
	pair_clear(p);
	free(p);
}

/* A controller that does not know the controller key the host expects:
 * the host refuses it with Failure2, and the controller takes that. */
static void test_wrong_ctrl_key(void **state)
{
	struct nvme_auth_key hk, ck, bad;
	struct pair *p = malloc(sizeof(*p));
	uint16_t t_id;
	uint8_t reason;

	assert_non_null(p);
	make_key(&hk, 1, 32, 1);
	make_key(&ck, 3, 64, 2);
	make_key(&bad, 3, 64, 3);
	pair_init(p, &hk, &ck, &hk, &bad);
	assert_int_equal(run_to_success1(p, 3), 0);
	assert_int_equal(nvme_auth_host_step_success1(&p->h, p->b, p->blen,
						      p->a, sizeof(p->a),
						      &p->alen),
			 NVME_AUTH_FAIL_FAILED);
	assert_int_equal(p->h.state, NVME_AUTH_ST_FAILED);
	assert_false(p->h.peer_failed);
	assert_int_equal(nvme_auth_failure_decode(p->a, p->alen,
						  NVME_AUTH_ID_FAILURE2, &t_id,
						  &reason),
			 0);
	assert_int_equal(reason, NVME_AUTH_FAIL_FAILED);
	assert_int_equal(nvme_auth_ctrl_step_success2(&p->c, p->a, p->alen),
			 NVME_AUTH_FAIL_FAILED);
	assert_int_equal(p->c.state, NVME_AUTH_ST_FAILED);
	pair_clear(p);

	/* bidirectional asked of a controller with no controller key */
	pair_init(p, &hk, &ck, &hk, NULL);
	assert_int_equal(run_to_success1(p, 4), NVME_AUTH_FAIL_FAILED);
	pair_clear(p);

	/* a controller that sends Success1 without R2 when asked for it */
	pair_init(p, &hk, &ck, &hk, &ck);
	assert_int_equal(run_to_success1(p, 5), 0);
	p->b[8] = 0; /* rvalid */
	assert_int_equal(nvme_auth_host_step_success1(&p->h, p->b, p->blen,
						      p->a, sizeof(p->a),
						      &p->alen),
			 NVME_AUTH_FAIL_FAILED);
	pair_clear(p);
	free(p);
}

/* Nothing in common: the hash or the group is unusable (Failure1). */
static void test_unusable(void **state)
{
	struct nvme_auth_key hk;
	struct pair *p = malloc(sizeof(*p));
	uint16_t t_id;
	uint8_t reason;

	assert_non_null(p);
	make_key(&hk, 0, 32, 1);
	pair_init(p, &hk, NULL, &hk, NULL);
	p->hc.hashes[0] = NVME_AUTH_HASH_SHA256;
	p->hc.nr_hashes = 1;
	p->cc.hashes[0] = NVME_AUTH_HASH_SHA512;
	p->cc.nr_hashes = 1;
	host_start(p, 1);
	assert_int_equal(ctrl_negotiate(p, p->alen),
			 NVME_AUTH_FAIL_HASH_UNUSABLE);
	assert_int_equal(nvme_auth_failure_decode(p->b, p->blen,
						  NVME_AUTH_ID_FAILURE1, &t_id,
						  &reason),
			 0);
	assert_int_equal(reason, NVME_AUTH_FAIL_HASH_UNUSABLE);
	assert_int_equal(host_challenge(p, p->blen),
			 NVME_AUTH_FAIL_HASH_UNUSABLE);
	assert_true(p->h.peer_failed);
	pair_clear(p);

	pair_init(p, &hk, NULL, &hk, NULL);
	p->hc.dhgroups[0] = NVME_AUTH_DHGROUP_NULL;
	p->hc.nr_dhgroups = 1;
	p->cc.dhgroups[0] = NVME_AUTH_DHGROUP_3072;
	p->cc.nr_dhgroups = 1;
	host_start(p, 1);
	assert_int_equal(ctrl_negotiate(p, p->alen),
			 NVME_AUTH_FAIL_DHGROUP_UNUSABLE);
	pair_clear(p);

	/* a controller choosing what the host did not offer: the host says
	 * so in Failure2 */
	pair_init(p, &hk, NULL, &hk, NULL);
	p->hc.hashes[0] = NVME_AUTH_HASH_SHA256;
	p->hc.nr_hashes = 1;
	host_start(p, 2);
	uint8_t c1[64] = { 1 };
	int n = nvme_auth_challenge_encode(p->b, sizeof(p->b), 2,
					   NVME_AUTH_HASH_SHA384, 0, 5, c1,
					   NULL, 0);
	assert_true(n > 0);
	assert_int_equal(host_challenge(p, (size_t)n),
			 NVME_AUTH_FAIL_HASH_UNUSABLE);
	assert_int_equal(nvme_auth_failure_decode(p->a, p->alen,
						  NVME_AUTH_ID_FAILURE2, &t_id,
						  &reason),
			 0);
	assert_int_equal(reason, NVME_AUTH_FAIL_HASH_UNUSABLE);
	pair_clear(p);
	free(p);
}

/* Messages out of place, of another transaction, cut short or replayed. */
static void test_bad_messages(void **state)
{
	struct nvme_auth_key hk;
	struct pair *p = malloc(sizeof(*p));
	uint8_t old[NVME_AUTH_MAX_MSG];
	size_t old_len;

	assert_non_null(p);
	make_key(&hk, 1, 32, 1);

	/* a Reply where the controller waits for a Negotiate */
	pair_init(p, &hk, NULL, &hk, NULL);
	host_start(p, 1);
	p->a[1] = NVME_AUTH_ID_REPLY;
	assert_int_equal(ctrl_negotiate(p, p->alen),
			 NVME_AUTH_FAIL_INCORRECT_MESSAGE);
	pair_clear(p);

	/* a Negotiate cut short */
	pair_init(p, &hk, NULL, &hk, NULL);
	host_start(p, 1);
	assert_int_equal(ctrl_negotiate(p, p->alen - 1),
			 NVME_AUTH_FAIL_INCORRECT_PAYLOAD);
	pair_clear(p);

	/* a secure channel concatenation we do not do */
	pair_init(p, &hk, NULL, &hk, NULL);
	host_start(p, 1);
	p->a[6] = 1;
	assert_int_equal(ctrl_negotiate(p, p->alen),
			 NVME_AUTH_FAIL_CONCAT_MISMATCH);
	pair_clear(p);

	/* a Reply of another transaction */
	pair_init(p, &hk, NULL, &hk, NULL);
	run_to_reply(p, 1);
	nvme_put_le16(p->a + 4, 2);
	assert_int_equal(ctrl_reply(p, p->a, p->alen),
			 NVME_AUTH_FAIL_INCORRECT_MESSAGE);
	pair_clear(p);

	/* a Reply cut short (missing its DH value) */
	pair_init(p, &hk, NULL, &hk, NULL);
	p->cc.dhgroups[0] = NVME_AUTH_DHGROUP_2048;
	p->cc.nr_dhgroups = 1;
	run_to_reply(p, 1);
	assert_int_equal(ctrl_reply(p, p->a, p->alen - 256),
			 NVME_AUTH_FAIL_INCORRECT_PAYLOAD);
	pair_clear(p);

	/* a DH public value of 1 (a small subgroup): refused */
	pair_init(p, &hk, NULL, &hk, NULL);
	p->cc.dhgroups[0] = NVME_AUTH_DHGROUP_2048;
	p->cc.nr_dhgroups = 1;
	run_to_reply(p, 1);
	memset(p->a + 16 + 64, 0, 256);
	p->a[16 + 64 + 255] = 1;
	assert_int_equal(ctrl_reply(p, p->a, p->alen),
			 NVME_AUTH_FAIL_INCORRECT_PAYLOAD);
	pair_clear(p);

	/* a Reply replayed into a later exchange (new C1): refused */
	pair_init(p, &hk, NULL, &hk, NULL);
	assert_int_equal(run_to_success1(p, 1), 0);
	memcpy(old, p->a, p->alen);
	old_len = p->alen;
	/* re-authentication on the same queue */
	nvme_auth_exch_clear(&p->c);
	nvme_auth_exch_init(&p->c, &p->cc);
	nvme_auth_exch_clear(&p->h);
	nvme_auth_exch_init(&p->h, &p->hc);
	host_start(p, 1);
	assert_int_equal(ctrl_negotiate(p, p->alen), 0);
	assert_int_equal(ctrl_reply(p, old, old_len), NVME_AUTH_FAIL_FAILED);
	/* and a step out of order is a local error, not a message */
	assert_int_equal(nvme_auth_ctrl_step_success2(&p->c, old, old_len),
			 -EBUSY);
	pair_clear(p);
	free(p);
}

static void test_names(void **state)
{
	assert_int_equal(nvme_auth_hash_from_name("sha384"), 2);
	assert_int_equal(nvme_auth_hash_from_name("hmac(sha512)"), 3);
	assert_int_equal(nvme_auth_hash_from_name("hmac(md5)"), -EINVAL);
	assert_int_equal(nvme_auth_hash_from_name("hmac("), -EINVAL);
	assert_int_equal(nvme_auth_dhgroup_from_name("ffdhe6144"), 4);
	assert_int_equal(nvme_auth_dhgroup_from_name("null"), 0);
	assert_int_equal(nvme_auth_dhgroup_from_name("ffdhe1024"), -EINVAL);
	assert_int_equal(nvme_auth_dhgroup_len(NVME_AUTH_DHGROUP_8192), 1024);
	assert_null(nvme_auth_dhgroup_name(6));
	assert_string_equal(nvme_auth_failure_str(NVME_AUTH_FAIL_FAILED),
			    "authentication failed");
	/* a Failure1 explaining itself with a code the spec lacks: failed */
	uint8_t msg[8], reason = 0;
	uint16_t t_id;
	assert_int_equal(nvme_auth_failure_encode(msg, sizeof(msg),
						  NVME_AUTH_ID_FAILURE1, 3,
						  0x6d),
			 8);
	assert_int_equal(nvme_auth_failure_decode(msg, 8, NVME_AUTH_ID_FAILURE1,
						  &t_id, &reason),
			 0);
	assert_int_equal(reason, NVME_AUTH_FAIL_FAILED);
	assert_int_equal(t_id, 3);
	/* ... and a Failure2 is not a Failure1 */
	assert_int_equal(nvme_auth_failure_decode(msg, 8, NVME_AUTH_ID_FAILURE2,
						  &t_id, &reason),
			 NVME_AUTH_FAIL_INCORRECT_MESSAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvme_cli_keys),
		cmocka_unit_test(test_nvme_cli_transform),
		cmocka_unit_test(test_nvme_cli_checks_ours),
		cmocka_unit_test(test_bad_keys),
		cmocka_unit_test(test_key_file),
		cmocka_unit_test(test_known_answers),
		cmocka_unit_test(test_every_hash_and_group),
		cmocka_unit_test(test_wrong_host_key),
		cmocka_unit_test(test_wrong_ctrl_key),
		cmocka_unit_test(test_unusable),
		cmocka_unit_test(test_bad_messages),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
