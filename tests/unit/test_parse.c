// SPDX-License-Identifier: MIT
/*
 * Unit tests of fio's value syntax (src/bench/parse.c): sizes with fio's
 * suffixes (checked against fio 3.33: "1KiB" is 1000 there, kb_base=1024
 * inverting the IEC units), times, bounded integers and booleans, and the
 * errors for what fio would misread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)
#define TIB (1024ull * GIB)
#define PIB (1024ull * TIB)
#define SEC 1000000000ull

static char err[256];

/* some cases pass NULL: printf's %s must not see it */
static const char *show(const char *s)
{
	return s ? s : "(null)";
}

/* ---- helpers: the input is in every failure message ---- */

static uint64_t size_ok(const char *s)
{
	uint64_t v = 0xdeadbeef;

	err[0] = 0;
	if (bench_parse_size(s, &v, err, sizeof(err)))
		fail_msg("size '%s' refused: %s", show(s), err);
	return v;
}

static void size_bad(const char *s, const char *want)
{
	uint64_t v = 12345;

	err[0] = 0;
	if (bench_parse_size(s, &v, err, sizeof(err)) != -1)
		fail_msg("size '%s' accepted as %llu", show(s),
			 (unsigned long long)v);
	if (v != 12345)
		fail_msg("size '%s': output written on error", show(s));
	if (!strstr(err, want))
		fail_msg("size '%s': error '%s' does not say '%s'", show(s),
			 err, want);
}

static uint64_t time_ok(const char *s)
{
	uint64_t v = 0xdeadbeef;

	err[0] = 0;
	if (bench_parse_time(s, &v, err, sizeof(err)))
		fail_msg("time '%s' refused: %s", show(s), err);
	return v;
}

static void time_bad(const char *s, const char *want)
{
	uint64_t v = 12345;

	err[0] = 0;
	if (bench_parse_time(s, &v, err, sizeof(err)) != -1)
		fail_msg("time '%s' accepted as %llu ns", show(s),
			 (unsigned long long)v);
	if (v != 12345)
		fail_msg("time '%s': output written on error", show(s));
	if (!strstr(err, want))
		fail_msg("time '%s': error '%s' does not say '%s'", show(s),
			 err, want);
}

static uint64_t uint_ok(const char *s, uint64_t min, uint64_t max)
{
	uint64_t v = 0xdeadbeef;

	err[0] = 0;
	if (bench_parse_uint(s, min, max, &v, err, sizeof(err)))
		fail_msg("uint '%s' refused: %s", show(s), err);
	return v;
}

static void uint_bad(const char *s, uint64_t min, uint64_t max,
		     const char *want)
{
	uint64_t v = 12345;

	err[0] = 0;
	if (bench_parse_uint(s, min, max, &v, err, sizeof(err)) != -1)
		fail_msg("uint '%s' accepted as %llu", show(s),
			 (unsigned long long)v);
	if (v != 12345)
		fail_msg("uint '%s': output written on error", show(s));
	if (!strstr(err, want))
		fail_msg("uint '%s': error '%s' does not say '%s'", show(s),
			 err, want);
}

static bool bool_ok(const char *s)
{
	bool v = false, w = true;

	/* two runs from opposite starting values: the result is the
	 * parse, not what was there before */
	if (bench_parse_bool(s, &v, err, sizeof(err)) ||
	    bench_parse_bool(s, &w, err, sizeof(err)))
		fail_msg("bool '%s' refused: %s", show(s), err);
	if (v != w)
		fail_msg("bool '%s' depends on the old value", show(s));
	return v;
}

static void bool_bad(const char *s)
{
	bool v = true;

	err[0] = 0;
	if (bench_parse_bool(s, &v, err, sizeof(err)) != -1)
		fail_msg("bool '%s' accepted", show(s));
	if (!v)
		fail_msg("bool '%s': output written on error", show(s));
	if (s && !strstr(err, s))
		fail_msg("bool '%s': error '%s' does not name it", show(s),
			 err);
}

/* ---- sizes ---- */

static void test_size_plain_numbers(void **state)
{
	(void)state;
	assert_int_equal(size_ok("0"), 0);
	assert_int_equal(size_ok("1"), 1);
	assert_int_equal(size_ok("4096"), 4096);
	assert_int_equal(size_ok("007"), 7);
	assert_int_equal(size_ok("18446744073709551615"), UINT64_MAX);
}

static void test_size_binary_suffixes(void **state)
{
	(void)state;
	/* fio 3.33: 4k = 4K = 4kb = 4KB = 4kB = 4096 */
	assert_int_equal(size_ok("4k"), 4 * KIB);
	assert_int_equal(size_ok("4K"), 4 * KIB);
	assert_int_equal(size_ok("4kb"), 4 * KIB);
	assert_int_equal(size_ok("4KB"), 4 * KIB);
	assert_int_equal(size_ok("4kB"), 4 * KIB);
	assert_int_equal(size_ok("1m"), MIB);
	assert_int_equal(size_ok("3M"), 3 * MIB);
	assert_int_equal(size_ok("2mb"), 2 * MIB);
	assert_int_equal(size_ok("1g"), GIB);
	assert_int_equal(size_ok("8G"), 8 * GIB);
	assert_int_equal(size_ok("1gb"), GIB);
	assert_int_equal(size_ok("1t"), TIB);
	assert_int_equal(size_ok("2TB"), 2 * TIB);
	assert_int_equal(size_ok("1p"), PIB);
	assert_int_equal(size_ok("1PB"), PIB);
	/* "b" alone is bytes */
	assert_int_equal(size_ok("1b"), 1);
	assert_int_equal(size_ok("512B"), 512);
	assert_int_equal(size_ok("0k"), 0);
}

/*
 * fio's default kb_base=1024 uses "opposite units": the IEC forms are
 * powers of 1000. Measured with fio 3.33: --size=1KiB moves 1000 bytes,
 * --size=1MiB with --bs=1KiB is 1000 I/Os of 1000 bytes.
 */
static void test_size_iec_units_are_powers_of_1000(void **state)
{
	(void)state;
	assert_int_equal(size_ok("1KiB"), 1000);
	assert_int_equal(size_ok("1kib"), 1000);
	assert_int_equal(size_ok("1KIB"), 1000);
	assert_int_equal(size_ok("4KiB"), 4000);
	assert_int_equal(size_ok("1MiB"), 1000000);
	assert_int_equal(size_ok("1mib"), 1000000);
	assert_int_equal(size_ok("1GiB"), 1000000000ull);
	assert_int_equal(size_ok("1TiB"), 1000000000000ull);
	assert_int_equal(size_ok("1PiB"), 1000000000000000ull);
}

/* --kb_base=1000: k, m ... are SI and KiB, MiB ... IEC, as they say */
static void test_size_kb_base_1000(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(
		bench_parse_size_base("1k", 1000, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(
		bench_parse_size_base("4KB", 1000, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 4000);
	assert_int_equal(
		bench_parse_size_base("2m", 1000, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 2000000);
	assert_int_equal(
		bench_parse_size_base("1KiB", 1000, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(
		bench_parse_size_base("1GiB", 1000, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(
		bench_parse_size_base("1k", 1024, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(
		bench_parse_size_base("4q", 1000, &v, err, sizeof(err)), -1);
}

static void test_size_hex(void **state)
{
	(void)state;
	assert_int_equal(size_ok("0x10"), 16);
	assert_int_equal(size_ok("0X1f"), 31);
	assert_int_equal(size_ok("0xABCdef"), 0xabcdef);
	/* hex digits b and B are digits, not the bytes suffix */
	assert_int_equal(size_ok("0x1b"), 27);
	assert_int_equal(size_ok("0xffffffffffffffff"), UINT64_MAX);
	size_bad("0x10000000000000000", "too large");
	/* fio 3.33 takes no suffix on a hex number: "0x10k" is 16 there */
	size_bad("0x10k", "0x10k");
	size_bad("0x10kb", "hex");
	/* "0x" without digits is 0 with an unknown suffix "x" */
	size_bad("0x", "0x");
	size_bad("0xg", "suffix");
}

static void test_size_overflow(void **state)
{
	(void)state;
	/* in the digits */
	size_bad("18446744073709551616", "too large");
	size_bad("99999999999999999999999", "too large");
	/* in the multiplication: 16384p = 2^64 */
	assert_int_equal(size_ok("16383p"), 16383 * PIB);
	size_bad("16384p", "too large");
	size_bad("17179869184g", "too large");
	assert_int_equal(size_ok("17179869183g"), 17179869183ull * GIB);
	size_bad("18446744073709551615k", "too large");
	/* 18446 * 10^15 < 2^64 < 18447 * 10^15 */
	assert_int_equal(size_ok("18446PiB"), 18446000000000000000ull);
	size_bad("18447PiB", "too large");
}

static void test_size_unknown_suffix_is_an_error(void **state)
{
	(void)state;
	/* fio reads all of these as the bare number: a typo must not
	 * silently change a block size */
	size_bad("4q", "4q");
	size_bad("4q", "suffix");
	size_bad("10x", "10x");
	size_bad("1s", "suffix");
	/* fio 3.33 has no exa unit ("101e" is 101 there) */
	size_bad("1e", "1e");
	size_bad("1EiB", "suffix");
	/* fio's prefix match reads these as k; they are refused here */
	size_bad("1Ki", "suffix");
	size_bad("1kbyte", "suffix");
	size_bad("1KiBx", "suffix");
	size_bad("1kk", "suffix");
	size_bad("4k4", "suffix");
	size_bad("1.5k", "suffix");
	size_bad("k", "bad size");
	size_bad("kb", "bad size");
	size_bad("10%", "percentages");
	size_bad("4k%", "percentages");
}

static void test_size_negative_empty_and_blanks(void **state)
{
	(void)state;
	size_bad("-1", "negative");
	size_bad("-4k", "negative");
	size_bad("", "empty");
	size_bad(NULL, "empty");
	size_bad("+4k", "bad size");
	size_bad(" 4k", "bad size");
	size_bad("4k ", "suffix");
	size_bad("4 k", "suffix");
}

static void test_size_error_buffer_handling(void **state)
{
	char small[8];
	uint64_t v = 99;

	(void)state;
	/* no buffer at all: still -1, no crash */
	assert_int_equal(bench_parse_size("4q", &v, NULL, 0), -1);
	assert_int_equal(bench_parse_size("4q", &v, small, 0), -1);
	assert_int_equal(v, 99);
	/* a short buffer is truncated and terminated */
	memset(small, 'X', sizeof(small));
	assert_int_equal(bench_parse_size("4q", &v, small, sizeof(small)), -1);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	/* success leaves the error buffer alone */
	strcpy(err, "untouched");
	assert_int_equal(bench_parse_size("8k", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 8192);
	assert_string_equal(err, "untouched");
}

/* ---- times ---- */

static void test_time_bare_number_is_seconds(void **state)
{
	(void)state;
	assert_int_equal(time_ok("0"), 0);
	assert_int_equal(time_ok("1"), SEC);
	assert_int_equal(time_ok("10"), 10 * SEC);
	assert_int_equal(time_ok("3600"), 3600 * SEC);
}

static void test_time_units(void **state)
{
	(void)state;
	assert_int_equal(time_ok("250us"), 250000ull);
	assert_int_equal(time_ok("7usec"), 7000ull);
	assert_int_equal(time_ok("500ms"), 500000000ull);
	assert_int_equal(time_ok("100msec"), 100000000ull);
	assert_int_equal(time_ok("3s"), 3 * SEC);
	assert_int_equal(time_ok("2m"), 120 * SEC);
	assert_int_equal(time_ok("1h"), 3600 * SEC);
	assert_int_equal(time_ok("2d"), 2 * 86400 * SEC);
	/* fio lower-cases the unit */
	assert_int_equal(time_ok("5MS"), 5000000ull);
	assert_int_equal(time_ok("1S"), SEC);
	assert_int_equal(time_ok("4US"), 4000ull);
	assert_int_equal(time_ok("1H"), 3600 * SEC);
}

static void test_time_bad_units(void **state)
{
	(void)state;
	time_bad("10x", "10x");
	time_bad("10x", "unit");
	time_bad("1.5s", "unit");
	time_bad("5 s", "unit");
	/* fio 3.33 reads all of these as microseconds (measured: runtime=
	 * 2000000sec runs 2 s), so their English meaning would be wrong */
	time_bad("5ns", "5ns");
	time_bad("5nsec", "unit");
	time_bad("1sec", "unit");
	time_bad("1min", "unit");
	time_bad("1hour", "unit");
	time_bad("1day", "unit");
	time_bad("1mss", "unit");
}

static void test_time_errors(void **state)
{
	(void)state;
	time_bad("-1", "negative");
	time_bad("-5s", "negative");
	time_bad("", "empty");
	time_bad(NULL, "empty");
	time_bad("s", "bad time");
	time_bad(" 5", "bad time");
	/* fio reads a hex time as microseconds whatever the unit */
	time_bad("0x10", "hex");
	time_bad("0X10s", "hex");
	time_bad("18446744073709551616", "too large");
	/* 18446744073 s fits in 64-bit ns, one more second does not */
	assert_int_equal(time_ok("18446744073"), 18446744073ull * SEC);
	time_bad("18446744074", "too large");
	time_bad("213503982335d", "too large");
}

/* ---- integers ---- */

static void test_uint_bounds(void **state)
{
	(void)state;
	assert_int_equal(uint_ok("5", 1, 10), 5);
	assert_int_equal(uint_ok("1", 1, 10), 1);
	assert_int_equal(uint_ok("10", 1, 10), 10);
	assert_int_equal(uint_ok("0", 0, 0), 0);
	uint_bad("0", 1, 10, "too small (min 1)");
	uint_bad("11", 1, 10, "too large (max 10)");
	uint_bad("11", 1, 10, "'11'");
	assert_int_equal(uint_ok("18446744073709551615", 0, UINT64_MAX),
			 UINT64_MAX);
	uint_bad("18446744073709551616", 0, UINT64_MAX, "too large");
	uint_bad("4294967296", 0, 4294967295u, "max 4294967295");
}

static void test_uint_syntax(void **state)
{
	(void)state;
	assert_int_equal(uint_ok("0x10", 0, 100), 16);
	assert_int_equal(uint_ok("0X0a", 0, 100), 10);
	assert_int_equal(uint_ok("0042", 0, 100), 42);
	/* no unit suffixes on plain integers */
	uint_bad("4k", 0, UINT64_MAX, "bad number '4k'");
	uint_bad("1.0", 0, 100, "bad number");
	uint_bad("5 ", 0, 100, "bad number");
	uint_bad(" 5", 0, 100, "bad number");
	uint_bad("+5", 0, 100, "bad number");
	uint_bad("-1", 0, 100, "negative");
	uint_bad("", 0, 100, "empty");
	uint_bad(NULL, 0, 100, "empty");
	uint_bad("0x", 0, 100, "bad number");
	uint_bad("abc", 0, 100, "bad number");
}

/*
 * Found by tests/fuzz: an overflowing number made bench_parse_uint read
 * the end pointer parse_number had not set. Parsing "5x" first leaves a
 * pointer to 'x' in that stack slot: the old code said "bad number" or
 * crashed.
 */
static void test_uint_overflow_after_junk(void **state)
{
	uint64_t v = 7;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		assert_int_equal(bench_parse_uint("5x", 0, 100, &v, err,
						  sizeof(err)),
				 -1);
		assert_non_null(strstr(err, "bad number '5x'"));
		assert_int_equal(bench_parse_uint("99999999999999999999999", 0,
						  100, &v, err, sizeof(err)),
				 -1);
		assert_non_null(strstr(err, "too large (max 100)"));
		assert_int_equal(v, 7);
	}
}

/* ---- booleans ---- */

static void test_bool_values(void **state)
{
	(void)state;
	assert_true(bool_ok("1"));
	assert_true(bool_ok("true"));
	assert_true(bool_ok("TRUE"));
	assert_true(bool_ok("yes"));
	assert_true(bool_ok("on"));
	assert_true(bool_ok("On"));
	assert_false(bool_ok("0"));
	assert_false(bool_ok("false"));
	assert_false(bool_ok("False"));
	assert_false(bool_ok("no"));
	assert_false(bool_ok("off"));
	assert_false(bool_ok("OFF"));
}

static void test_bool_errors(void **state)
{
	(void)state;
	bool_bad("2");
	bool_bad("-1");
	bool_bad("");
	bool_bad("y");
	bool_bad("truee");
	bool_bad(" 1");
	bool_bad("01");
	bool_bad(NULL);
	assert_int_equal(bench_parse_bool("maybe", &(bool){ false }, NULL, 0),
			 -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_plain_numbers),
		cmocka_unit_test(test_size_binary_suffixes),
		cmocka_unit_test(test_size_iec_units_are_powers_of_1000),
		cmocka_unit_test(test_size_kb_base_1000),
		cmocka_unit_test(test_size_hex),
		cmocka_unit_test(test_size_overflow),
		cmocka_unit_test(test_size_unknown_suffix_is_an_error),
		cmocka_unit_test(test_size_negative_empty_and_blanks),
		cmocka_unit_test(test_size_error_buffer_handling),
		cmocka_unit_test(test_time_bare_number_is_seconds),
		cmocka_unit_test(test_time_units),
		cmocka_unit_test(test_time_bad_units),
		cmocka_unit_test(test_time_errors),
		cmocka_unit_test(test_uint_bounds),
		cmocka_unit_test(test_uint_syntax),
		cmocka_unit_test(test_uint_overflow_after_junk),
		cmocka_unit_test(test_bool_values),
		cmocka_unit_test(test_bool_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
