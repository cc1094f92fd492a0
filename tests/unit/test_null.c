// SPDX-License-Identifier: MIT
/*
 * Unit tests of the null device (src/drivers/null): its parameters and
 * their validation, timer completion, the sparse store, write zeroes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mqblk/mqblk.h>

#include "helpers.h"

static void expect_einval(const char *uri, const char *in_msg)
{
	expect_open_fail(uri, -EINVAL, in_msg);
}

/* ---- parameters ---- */

static void test_params_size_suffixes_and_gb(void **state)
{
	struct mqblk_dev *dev;

	(void)state;
	dev = open_with("null:size=4k", NULL);
	assert_int_equal(mqblk_dev_size(dev), 4096);
	mqblk_dev_close(dev);
	dev = open_with("null:size=3m", NULL);
	assert_int_equal(mqblk_dev_size(dev), 3u << 20);
	mqblk_dev_close(dev);
	dev = open_with("null:size=2GiB", NULL);
	assert_int_equal(mqblk_dev_size(dev), 2ull << 30);
	mqblk_dev_close(dev);
	dev = open_with("null:gb=5", NULL);
	assert_int_equal(mqblk_dev_size(dev), 5ull << 30);
	mqblk_dev_close(dev);
	dev = open_with("null", NULL);
	assert_int_equal(mqblk_dev_size(dev), 250ull << 30);
	assert_int_equal(mqblk_dev_block_size(dev), 512);
	assert_int_equal(mqblk_dev_queue_depth(dev), 64);
	mqblk_dev_close(dev);
}

static void test_params_blocksize_alias_and_values(void **state)
{
	struct mqblk_dev *dev;

	(void)state;
	dev = open_with("null:size=1m,bs=4k", NULL);
	assert_int_equal(mqblk_dev_block_size(dev), 4096);
	mqblk_dev_close(dev);
	dev = open_with("null:size=1m,blocksize=65536", NULL);
	assert_int_equal(mqblk_dev_block_size(dev), 65536);
	mqblk_dev_close(dev);
}

static void test_params_blocksize_not_power_of_two_rejected(void **state)
{
	(void)state;
	expect_einval("null:size=1m,blocksize=1000", "power of two");
	expect_einval("null:size=1m,blocksize=3072", "power of two");
	expect_einval("null:size=1m,blocksize=256", "blocksize");
	expect_einval("null:size=1m,blocksize=131072", "blocksize");
}

static void test_params_size_not_multiple_of_blocksize_rejected(void **state)
{
	(void)state;
	expect_einval("null:size=6k,blocksize=4096", "multiple");
	expect_einval("null:size=4097", NULL);
	expect_einval("null:size=1k", "size"); /* below the minimum */
}

static void test_params_out_of_range_rejected(void **state)
{
	(void)state;
	expect_einval("null:irqmode=3", "irqmode");
	expect_einval("null:submit_queues=0", "submit_queues");
	expect_einval("null:hw_queue_depth=65537", "hw_queue_depth");
	expect_einval("null:memory_backed=yes", "memory_backed");
	expect_einval("null:shared_tags=2", "shared_tags");
	expect_einval("null:completion_nsec=-5", "completion_nsec");
	expect_einval("null:gb=0", "gb");
	expect_einval("null:requeue_every=x", "requeue_every");
	expect_einval("null:memory_backed=1,nt_writes=2", "nt_writes");
	expect_einval("null:nt_writes=1", "nt_writes= needs memory_backed=1");
	/* more hardware queues than the device has: refused, not fewer */
	expect_einval("null:submit_queues=2,nr_hw_queues=3",
		      "nr_hw_queues=3: the null device offers at most 2");
}

static void test_params_shared_tags_and_queues(void **state)
{
	struct mqblk_dev_opts o;
	struct mqblk_dev *dev;
	struct mqblk_queue *q[3];
	struct mqblk_rq *rq[8];
	char err[256];
	unsigned i;

	(void)state;
	mqblk_dev_opts_init(&o);
	o.nr_queues = 3;
	assert_int_equal(mqblk_dev_open("null:size=1m,submit_queues=3,"
					"shared_tags=1,hw_queue_depth=8",
					&o, &dev, err, sizeof(err)),
			 0);
	assert_int_equal(mqblk_dev_nr_hw_queues(dev), 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(mqblk_queue_open(dev, &q[i]), 0);
	/* one host-wide set of 8: the three queues share it */
	for (i = 0; i < 8; i++)
		assert_non_null(
			rq[i] = mqblk_rq_get(q[i % 3], MQBLK_RQ_NOWAIT));
	for (i = 0; i < 3; i++)
		assert_null(mqblk_rq_get(q[i], MQBLK_RQ_NOWAIT));
	for (i = 0; i < 8; i++)
		mqblk_rq_put(rq[i]);
	for (i = 0; i < 3; i++)
		mqblk_queue_close(q[i]);
	mqblk_dev_close(dev);
}

/* ---- timer completion ---- */

static void test_irqmode2_completes_after_completion_nsec(void **state)
{
	static uint8_t buf[512];
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_rq *rq, *out;
	uint64_t t0;

	(void)state;
	dev = open_with("null:size=1m,irqmode=2,completion_nsec=2000000", NULL);
	q = open_queue(dev);
	rq = get_rq(q, MQBLK_OP_READ, 0, 512, buf);
	t0 = mqblk_clock_ns();
	assert_int_equal(mqblk_submit(rq), 0);
	assert_int_equal(mqblk_reap(q, &out, 0, 1, 0), 0);
	assert_int_equal(mqblk_queue_inflight(q), 1);
	assert_int_equal(mqblk_reap(q, &out, 1, 1, -1), 1);
	assert_ptr_equal(out, rq);
	assert_int_equal(out->res, 512);
	/* not before its time */
	assert_true(mqblk_clock_ns() - t0 >= 2000000);
	mqblk_rq_put(out);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_irqmode2_polled_completes_after_completion_nsec(void **state)
{
	static uint8_t buf[512];
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_rq *rq, *out;
	uint64_t t0;

	(void)state;
	dev = open_with("null:size=1m,irqmode=2,completion_nsec=2000000,"
			"complete=polled",
			NULL);
	q = open_queue(dev);
	rq = get_rq(q, MQBLK_OP_READ, 0, 512, buf);
	t0 = mqblk_clock_ns();
	assert_int_equal(mqblk_submit(rq), 0);
	assert_int_equal(mqblk_reap(q, &out, 0, 1, 0), 0);
	assert_int_equal(mqblk_reap(q, &out, 1, 1, -1), 1);
	assert_true(mqblk_clock_ns() - t0 >= 2000000);
	assert_int_equal(out->comp_path, MQBLK_PATH_POLLED);
	mqblk_rq_put(out);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_reap_with_timeout_returns_short(void **state)
{
	static uint8_t buf[512];
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_rq *rq, *out;

	(void)state;
	/* completion after 10 s: a 1 ms reap must come back empty */
	dev = open_with("null:size=1m,irqmode=2,completion_nsec=10000000000,"
			"timeout=20",
			NULL);
	q = open_queue(dev);
	rq = get_rq(q, MQBLK_OP_READ, 0, 512, buf);
	assert_int_equal(mqblk_submit(rq), 0);
	assert_int_equal(mqblk_reap(q, &out, 1, 1, 1000000), 0);
	/* then the core's 20 ms deadline fails it */
	assert_int_equal(mqblk_reap(q, &out, 1, 1, -1), 1);
	assert_int_equal(out->res, -ETIMEDOUT);
	mqblk_rq_put(out);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_reap_rejects_bad_bounds(void **state)
{
	struct mqblk_dev *dev = open_with("null:size=1m", NULL);
	struct mqblk_queue *q;
	struct mqblk_rq *out[2];

	(void)state;
	q = open_queue(dev);
	assert_int_equal(mqblk_reap(q, out, 0, 0, 0), -EINVAL);
	assert_int_equal(mqblk_reap(q, out, 2, 1, 0), -EINVAL);
	/* nothing in flight: returns at once even when waiting forever */
	assert_int_equal(mqblk_reap(q, out, 1, 2, -1), 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_timed_out_timer_command_tag_reuse_is_safe(void **state)
{
	static uint8_t buf[512];
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_rq *rq, *out;
	uint64_t t0;
	int i;

	(void)state;
	/* one tag; the device takes 200 ms, the deadline is 20 ms */
	dev = open_with("null:size=1m,irqmode=2,completion_nsec=200000000,"
			"timeout=20,hw_queue_depth=1",
			NULL);
	q = open_queue(dev);
	for (i = 0; i < 3; i++) {
		rq = get_rq(q, MQBLK_OP_READ, 0, 512, buf);
		t0 = mqblk_clock_ns();
		assert_int_equal(mqblk_submit(rq), 0);
		assert_int_equal(mqblk_reap(q, &out, 1, 1, -1), 1);
		assert_int_equal(out->res, -ETIMEDOUT);
		/* the same tag again: its pdu must not still be linked in
		 * the device's pending list, and the old command's late
		 * completion must not complete the new incarnation early */
		assert_true(mqblk_clock_ns() - t0 >= 20000000);
		mqblk_rq_put(out);
	}
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* ---- sparse store ---- */

static long rss_pages(void)
{
	long size = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &rss) != 2)
		rss = -1;
	fclose(f);
	return rss;
}

static void test_sparse_write_at_end_of_1t_device_keeps_rss_small(void **state)
{
	static uint8_t w[8192], r[8192];
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	long before, after, page = sysconf(_SC_PAGESIZE);
	uint64_t end = 1ull << 40;
	size_t i;

	(void)state;
	before = rss_pages();
	assert_true(before > 0);
	dev = open_with("null:size=1t,memory_backed=1", NULL);
	assert_int_equal(mqblk_dev_size(dev), end);
	q = open_queue(dev);
	for (i = 0; i < sizeof(w); i++)
		w[i] = (uint8_t)(i * 13 + 1);
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, end - sizeof(w), sizeof(w),
			       w),
			 (int)sizeof(w));
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 0, 512, w), 512);
	assert_int_equal(do_io(q, MQBLK_OP_READ, end - sizeof(r), sizeof(r), r),
			 (int)sizeof(r));
	assert_memory_equal(w, r, sizeof(w));
	/* the middle was never written */
	assert_int_equal(do_io(q, MQBLK_OP_READ, end / 2, 4096, r), 4096);
	for (i = 0; i < 4096; i++)
		assert_int_equal(r[i], 0);
	after = rss_pages();
	/* 1 TiB of address space; well under 64 MiB actually resident
	 * (the page directory is 4 MiB of untouched zeroes) */
	assert_true((after - before) * page < (64l << 20));
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_not_memory_backed_reads_leave_buffer(void **state)
{
	static uint8_t r[512];
	struct mqblk_dev *dev = open_with("null:size=1m", NULL);
	struct mqblk_queue *q;

	(void)state;
	q = open_queue(dev);
	memset(r, 0x5a, sizeof(r));
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 0, 512, r), 512);
	assert_int_equal(do_io(q, MQBLK_OP_READ, 0, 512, r), 512);
	assert_int_equal(r[0], 0x5a); /* no store: data untouched */
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* ---- write zeroes ---- */

static void test_write_zeroes_zeroes_range(void **state)
{
	static uint8_t w[16384], r[16384];
	struct mqblk_dev *dev = open_with("null:size=1m,memory_backed=1", NULL);
	struct mqblk_queue *q;
	size_t i;

	(void)state;
	q = open_queue(dev);
	memset(w, 0xab, sizeof(w));
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 0, sizeof(w), w),
			 (int)sizeof(w));
	/* across a page boundary, unaligned to pages */
	assert_int_equal(do_io(q, MQBLK_OP_WRITE_ZEROES, 3584, 5120, NULL),
			 5120);
	assert_int_equal(do_io(q, MQBLK_OP_READ, 0, sizeof(r), r),
			 (int)sizeof(r));
	for (i = 0; i < sizeof(r); i++) {
		uint8_t want = (i >= 3584 && i < 3584 + 5120) ? 0 : 0xab;

		if (r[i] != want)
			fail_msg("byte %zu: %#x, want %#x", i, r[i], want);
	}
	/* on never-written space it succeeds and reads back zero */
	assert_int_equal(
		do_io(q, MQBLK_OP_WRITE_ZEROES, 512 * 1024, 4096, NULL), 4096);
	memset(r, 0xee, 4096);
	assert_int_equal(do_io(q, MQBLK_OP_READ, 512 * 1024, 4096, r), 4096);
	for (i = 0; i < 4096; i++)
		assert_int_equal(r[i], 0);
	/* out of range is refused like any other op */
	{
		struct mqblk_rq *rq = mqblk_rq_get(q, 0);

		rq->op = MQBLK_OP_WRITE_ZEROES;
		rq->offset = (1u << 20) - 512;
		rq->len = 1024;
		rq->buf = NULL;
		assert_int_equal(mqblk_submit(rq), -EINVAL);
		mqblk_rq_put(rq);
	}
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_write_zeroes_with_timer_completion(void **state)
{
	static uint8_t w[4096], r[4096];
	struct mqblk_dev *dev = open_with("null:size=1m,memory_backed=1,"
					  "irqmode=2,completion_nsec=100000",
					  NULL);
	struct mqblk_queue *q;
	size_t i;

	(void)state;
	q = open_queue(dev);
	memset(w, 0x11, sizeof(w));
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 8192, 4096, w), 4096);
	assert_int_equal(do_io(q, MQBLK_OP_WRITE_ZEROES, 8192, 4096, NULL),
			 4096);
	assert_int_equal(do_io(q, MQBLK_OP_READ, 8192, 4096, r), 4096);
	for (i = 0; i < 4096; i++)
		assert_int_equal(r[i], 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_size_suffixes_and_gb),
		cmocka_unit_test(test_params_blocksize_alias_and_values),
		cmocka_unit_test(
			test_params_blocksize_not_power_of_two_rejected),
		cmocka_unit_test(
			test_params_size_not_multiple_of_blocksize_rejected),
		cmocka_unit_test(test_params_out_of_range_rejected),
		cmocka_unit_test(test_params_shared_tags_and_queues),
		cmocka_unit_test(test_irqmode2_completes_after_completion_nsec),
		cmocka_unit_test(
			test_irqmode2_polled_completes_after_completion_nsec),
		cmocka_unit_test(test_reap_with_timeout_returns_short),
		cmocka_unit_test(test_reap_rejects_bad_bounds),
		cmocka_unit_test(
			test_timed_out_timer_command_tag_reuse_is_safe),
		cmocka_unit_test(
			test_sparse_write_at_end_of_1t_device_keeps_rss_small),
		cmocka_unit_test(test_not_memory_backed_reads_leave_buffer),
		cmocka_unit_test(test_write_zeroes_zeroes_range),
		cmocka_unit_test(test_write_zeroes_with_timer_completion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
