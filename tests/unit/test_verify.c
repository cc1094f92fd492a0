// SPDX-License-Identifier: MIT
/*
 * Unit tests of --verify (src/bench/verify.c): the CRC32C check value,
 * header stamp/check round trips for every checksum type and interval,
 * detection of a flipped byte, a wrong offset, a stale seed and a wrong
 * pattern, fio's verify_pattern syntax, and the options that set them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/verify.h"

static char msg[512];

static void test_crc32c_check_value(void **state)
{
	static const uint8_t zeros[32];

	(void)state;
	assert_int_equal(mqblk_crc32c("123456789", 9), 0xE3069283u);
	assert_int_equal(mqblk_crc32c("", 0), 0);
	/* RFC 3720 B.4: 32 bytes of zeros */
	assert_int_equal(mqblk_crc32c(zeros, sizeof(zeros)), 0x8A9136AAu);
}

static void ctx_init(struct verify_ctx *c, unsigned type)
{
	memset(c, 0, sizeof(*c));
	c->type = type;
	c->seed = 0x89;
	c->file = "null:memory_backed=1";
}

static void round_trip(unsigned type, uint32_t len, uint32_t interval)
{
	static const uint8_t pat[] = { 0xde, 0xad, 0xbe, 0xef, 0x01 };
	struct verify_ctx c;
	uint8_t *buf = malloc(len);
	uint32_t i;

	assert_non_null(buf);
	ctx_init(&c, type);
	c.interval = interval;
	if (type == BENCH_VERIFY_PATTERN) {
		c.pattern = pat;
		c.pattern_len = sizeof(pat);
	}
	verify_stamp(&c, buf, 8192, len, 0);
	assert_int_equal(verify_check(&c, buf, 8192, len, msg, sizeof(msg)), 0);
	/* a flipped byte in every interval's payload and header is caught */
	for (i = 0; i < len; i += 997) {
		buf[i] ^= 0x40;
		assert_int_equal(
			verify_check(&c, buf, 8192, len, msg, sizeof(msg)), -1);
		assert_non_null(strstr(msg, "verify: bad "));
		buf[i] ^= 0x40;
	}
	/* the block read from somewhere else: the header names the offset */
	assert_int_equal(verify_check(&c, buf, 4096, len, msg, sizeof(msg)),
			 -1);
	assert_non_null(strstr(msg, "bad header offset 8192, wanted 4096"));
	assert_non_null(strstr(msg, "offset 4096, length"));
	/* another run's data (a different seed) */
	c.seed = 0x8a;
	assert_int_equal(verify_check(&c, buf, 8192, len, msg, sizeof(msg)),
			 -1);
	assert_non_null(strstr(msg, "bad header rand_seed"));
	free(buf);
}

static void test_round_trips(void **state)
{
	unsigned t;

	(void)state;
	for (t = BENCH_VERIFY_CRC32C; t <= BENCH_VERIFY_PATTERN; t++) {
		round_trip(t, 4096, 0);
		round_trip(t, 65536, 0);
		round_trip(t, 8192, 512);
		round_trip(t, 512, 0);
	}
}

static void test_checksum_message(void **state)
{
	struct verify_ctx c;
	uint8_t buf[4096];

	(void)state;
	ctx_init(&c, BENCH_VERIFY_CRC32C);
	verify_stamp(&c, buf, 0, sizeof(buf), 0);
	buf[1000] ^= 1;
	assert_int_equal(
		verify_check(&c, buf, 0, sizeof(buf), msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "verify: bad crc32c 0x"));
	assert_non_null(strstr(msg, ", wanted 0x"));
	assert_non_null(strstr(msg, "at file null:memory_backed=1 offset 0, "
				    "length 4096"));

	ctx_init(&c, BENCH_VERIFY_SHA256);
	verify_stamp(&c, buf, 0, sizeof(buf), 0);
	buf[4095] ^= 1;
	assert_int_equal(
		verify_check(&c, buf, 0, sizeof(buf), msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "verify: bad sha256 "));

	/* zeros: never written */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(
		verify_check(&c, buf, 0, sizeof(buf), msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "verify: bad magic header 0, wanted acca"));
}

static void test_pattern_mismatch(void **state)
{
	static const uint8_t a[] = { 0x11 }, b[] = { 0x22 };
	struct verify_ctx c;
	uint8_t buf[4096];

	(void)state;
	ctx_init(&c, BENCH_VERIFY_PATTERN);
	c.pattern = a;
	c.pattern_len = 1;
	verify_stamp(&c, buf, 0, sizeof(buf), 0);
	c.pattern = b;
	assert_int_equal(
		verify_check(&c, buf, 0, sizeof(buf), msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "bad pattern byte 11, wanted 22"));
}

static void expect_pattern(const char *s, const uint8_t *want, unsigned n)
{
	uint8_t out[BENCH_VERIFY_PATTERN_MAX];
	unsigned len = 0;

	assert_int_equal(verify_parse_pattern(s, out, &len, msg, sizeof(msg)),
			 0);
	assert_int_equal(len, n);
	assert_memory_equal(out, want, n);
}

static void expect_pattern_error(const char *s)
{
	uint8_t out[BENCH_VERIFY_PATTERN_MAX];
	unsigned len = 0;

	msg[0] = 0;
	assert_int_equal(verify_parse_pattern(s, out, &len, msg, sizeof(msg)),
			 -1);
	assert_true(msg[0] != 0);
}

static void test_pattern_parse(void **state)
{
	char big[2048];

	(void)state;
	expect_pattern("0xdeadbeef", (const uint8_t *)"\xde\xad\xbe\xef", 4);
	expect_pattern("0xabc", (const uint8_t *)"\x0a\xbc", 2);
	expect_pattern("\"abc\"", (const uint8_t *)"abc", 3);
	expect_pattern("'ab'", (const uint8_t *)"ab", 2);
	expect_pattern("0", (const uint8_t *)"\0", 1);
	expect_pattern("258", (const uint8_t *)"\x02\x01", 2);
	expect_pattern("0xff,\"A\",1",
		       (const uint8_t *)"\xff"
					"A\x01",
		       3);
	expect_pattern_error("");
	expect_pattern_error("0x");
	expect_pattern_error("\"abc");
	expect_pattern_error("%o");
	expect_pattern_error("0x12,");
	expect_pattern_error("12zz");
	expect_pattern_error("99999999999999999999999");
	memset(big, 'a', sizeof(big));
	big[0] = '"';
	big[sizeof(big) - 2] = '"';
	big[sizeof(big) - 1] = 0;
	expect_pattern_error(big);
}

static void test_type_parse(void **state)
{
	unsigned t = 99;

	(void)state;
	assert_int_equal(verify_parse_type("crc32c", &t, msg, sizeof(msg)), 0);
	assert_int_equal(t, BENCH_VERIFY_CRC32C);
	assert_int_equal(
		verify_parse_type("crc32c-intel", &t, msg, sizeof(msg)), 0);
	assert_int_equal(t, BENCH_VERIFY_CRC32C);
	assert_int_equal(verify_parse_type("md5", &t, msg, sizeof(msg)), 0);
	assert_int_equal(t, BENCH_VERIFY_MD5);
	assert_int_equal(verify_parse_type("sha256", &t, msg, sizeof(msg)), 0);
	assert_int_equal(t, BENCH_VERIFY_SHA256);
	assert_int_equal(verify_parse_type("pattern", &t, msg, sizeof(msg)), 0);
	assert_int_equal(t, BENCH_VERIFY_PATTERN);
	assert_int_equal(verify_parse_type("0", &t, msg, sizeof(msg)), 0);
	assert_int_equal(t, BENCH_VERIFY_NONE);
	assert_int_equal(verify_parse_type("crc64", &t, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "crc64"));
}

static int parse(struct bench_config *cfg, int argc, const char **args)
{
	char *argv[32];
	int i, ret;

	for (i = 0; i < argc; i++)
		argv[i] = strdup(args[i]);
	ret = bench_parse_args(argc, argv, cfg, msg, sizeof(msg));
	for (i = 0; i < argc; i++)
		free(argv[i]);
	return ret;
}

static void test_options(void **state)
{
	struct bench_config cfg;
	const char *ok[] = { "bench",
			     "--name=v",
			     "--rw=randwrite",
			     "--verify_pattern=0xaa55",
			     "--verify_backlog=8",
			     "--fsync=4",
			     "--end_fsync=1",
			     "--ioengine=libaio",
			     "--size=1m" };
	const char *reg[] = { "bench", "--name=v", "--filename=/tmp/x.img",
			      "--registerfiles", "--sqthread_poll" };
	const char *reg2[] = { "bench", "--name=v",
			       "--filename=./x.img?complete=polled",
			       "--registerfiles" };
	const char *bad_null[] = { "bench", "--name=v", "--registerfiles" };
	const char *fixed[] = { "bench", "--name=v", "--fixedbufs" };
	const char *nopat[] = { "bench", "--name=v", "--rw=write",
				"--verify=pattern" };
	const char *backlog[] = { "bench", "--name=v", "--verify_backlog=4" };
	const char *trim[] = { "bench", "--name=v", "--rw=trim",
			       "--verify=md5" };
	const char *iv[] = {
		"bench",	"--name=v", "--rw=write",
		"--verify=md5", "--bs=4k",  "--verify_interval=3k"
	};
	const char *eng[] = { "bench", "--name=v", "--ioengine=windowsaio" };
	const char *nullpath[] = { "bench", "--name=v", "--ioengine=null",
				   "--filename=/dev/shm/x" };

	(void)state;
	/* libaio with no --filename: fio's file v.0.0, so size= too */
	assert_int_equal(parse(&cfg, 9, ok), 0);
	assert_int_equal(cfg.jobs[0].target, TARGET_JOBFILES);
	assert_int_equal(cfg.jobs[0].verify, BENCH_VERIFY_PATTERN);
	assert_int_equal(cfg.jobs[0].verify_pattern_len, 2);
	assert_true(cfg.jobs[0].do_verify);
	assert_int_equal(cfg.jobs[0].verify_backlog, 8);
	assert_int_equal(cfg.jobs[0].fsync_blocks, 4);
	assert_true(cfg.jobs[0].end_fsync);
	assert_string_equal(cfg.jobs[0].ioengine, "libaio");
	bench_config_free(&cfg);

	assert_int_equal(parse(&cfg, 5, reg), 0);
	assert_string_equal(cfg.jobs[0].filename,
			    "/tmp/x.img?registerfiles=1,sqpoll=1");
	bench_config_free(&cfg);
	assert_int_equal(parse(&cfg, 4, reg2), 0);
	assert_string_equal(cfg.jobs[0].filename,
			    "./x.img?complete=polled,registerfiles=1");
	bench_config_free(&cfg);

	assert_int_equal(parse(&cfg, 3, bad_null), -1);
	assert_non_null(strstr(msg, "only for a path device"));
	bench_config_free(&cfg);
	assert_int_equal(parse(&cfg, 3, fixed), -1);
	assert_non_null(strstr(msg, "fixedbufs is only for a path device"));
	bench_config_free(&cfg);
	assert_int_equal(parse(&cfg, 4, nopat), -1);
	assert_non_null(strstr(msg, "verify_pattern"));
	bench_config_free(&cfg);
	assert_int_equal(parse(&cfg, 3, backlog), -1);
	assert_non_null(strstr(msg, "needs --verify"));
	bench_config_free(&cfg);
	assert_int_equal(parse(&cfg, 4, trim), -1);
	bench_config_free(&cfg);
	assert_int_equal(parse(&cfg, 6, iv), -1);
	assert_non_null(strstr(msg, "verify_interval"));
	bench_config_free(&cfg);
	assert_int_equal(parse(&cfg, 3, eng), -1);
	assert_non_null(strstr(msg, "windowsaio"));
	bench_config_free(&cfg);
	assert_int_equal(parse(&cfg, 4, nullpath), -1);
	bench_config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_check_value),
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_checksum_message),
		cmocka_unit_test(test_pattern_mismatch),
		cmocka_unit_test(test_pattern_parse),
		cmocka_unit_test(test_type_parse),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
