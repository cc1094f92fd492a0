// SPDX-License-Identifier: MIT
/*
 * Unit tests of the public block API (include/mqblk/mqblk.h) on the null
 * device: URIs, geometry, completion routing, faults, tags, threads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mqblk/mqblk.h>

#include "helpers.h"

#define BS 512

/* ---- URIs ---- */

static int open_err(const char *uri, char *err, size_t errlen)
{
	struct mqblk_dev *dev = NULL;
	int ret;

	err[0] = '\0';
	ret = mqblk_dev_open(uri, NULL, &dev, err, errlen);
	if (!ret)
		mqblk_dev_close(dev);
	return ret;
}

static void test_uri_unknown_driver_is_enodev(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(open_err("nosuch", err, sizeof(err)), -ENODEV);
	assert_true(strlen(err) > 0);
	assert_int_equal(open_err("nosuch:size=1m", err, sizeof(err)), -ENODEV);
	assert_true(strlen(err) > 0);
}

static void test_uri_unknown_parameter_is_einval(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(open_err("null:frobnicate=1", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "frobnicate"));
}

static void test_uri_bad_value_is_einval(void **state)
{
	static const char *const bad[] = {
		"null:size=abc",
		"null:size=-1",
		"null:irqmode=3",
		"null:complete=x",
		"null:timeout=0",
		"null:memory_backed=2",
		"null:size=1q",
		"null:submit_queues=0",
		"null:size",
		"null:=1",
		"null:size=",
		"null:hw_queue_depth=0",
		"null:hugepages=1", /* without memory_backed */
		"null:memory_backed=1,hugepages=2",
		"null:memory_backed=1,size=65t",
	};
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(open_err(bad[i], err, sizeof(err)), -EINVAL);
		assert_true(strlen(err) > 0);
	}
}

static void test_uri_empty_is_einval(void **state)
{
	struct mqblk_dev *dev = NULL;
	char err[256];

	(void)state;
	assert_int_equal(open_err("", err, sizeof(err)), -EINVAL);
	assert_true(strlen(err) > 0);
	assert_int_equal(open_err(":size=1m", err, sizeof(err)), -EINVAL);
	assert_true(strlen(err) > 0);
	assert_int_equal(mqblk_dev_open(NULL, NULL, &dev, err, sizeof(err)),
			 -EINVAL);
	/* no err buffer is allowed */
	assert_int_equal(mqblk_dev_open("nosuch", NULL, &dev, NULL, 0),
			 -ENODEV);
}

/* ---- geometry ---- */

static void test_geometry_reports_size_bs_queues_depth(void **state)
{
	struct mqblk_dev *dev;

	(void)state;
	dev = open_dev("null:size=8m,blocksize=4096,submit_queues=3,"
		       "hw_queue_depth=32",
		       8);
	assert_int_equal(mqblk_dev_size(dev), 8u << 20);
	assert_int_equal(mqblk_dev_block_size(dev), 4096);
	assert_int_equal(mqblk_dev_nr_hw_queues(dev), 3); /* min(8, 3) */
	assert_int_equal(mqblk_dev_queue_depth(dev), 32);
	assert_string_equal(mqblk_dev_driver_name(dev), "null");
	assert_int_equal(mqblk_dev_comp_policy(dev), MQBLK_COMP_LOCAL);
	mqblk_dev_close(dev);

	dev = open_dev("null:size=8m,submit_queues=4", 2);
	assert_int_equal(mqblk_dev_nr_hw_queues(dev), 2); /* min(2, 4) */
	assert_int_equal(mqblk_dev_block_size(dev), 512);
	assert_int_equal(mqblk_dev_queue_depth(dev), 64);
	mqblk_dev_close(dev);

	dev = open_dev("null:size=8m,submit_queues=4", 0);
	assert_int_equal(mqblk_dev_nr_hw_queues(dev), 1); /* 0 = 1 */
	mqblk_dev_close(dev);
}

static void test_geometry_core_keys_override_opts(void **state)
{
	struct mqblk_dev *dev;

	(void)state;
	dev = open_dev("null:size=1m,submit_queues=8,nr_hw_queues=2,"
		       "complete=polled,queue_depth=16",
		       4);
	assert_int_equal(mqblk_dev_nr_hw_queues(dev), 2);
	assert_int_equal(mqblk_dev_queue_depth(dev), 16);
	assert_int_equal(mqblk_dev_comp_policy(dev), MQBLK_COMP_POLLED);
	mqblk_dev_close(dev);
}

/* ---- completion routing ---- */

static void check_path(int irqmode, const char *complete,
		       enum mqblk_comp_path want)
{
	char uri[256];
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats st;
	struct mqblk_rq *rqs[16];
	unsigned i, reaped = 0;
	int p;

	snprintf(uri, sizeof(uri),
		 "null:size=1m,irqmode=%d,complete=%s,completion_nsec=1000",
		 irqmode, complete);
	dev = open_dev(uri, 1);
	q = open_queue(dev);
	for (i = 0; i < 16; i++) {
		struct mqblk_rq *rq = get_rq(q, MQBLK_OP_READ, i * BS, BS,
					     rqs); /* buf unused: no store */

		assert_int_equal(mqblk_submit(rq), 0);
	}
	assert_int_equal(mqblk_queue_inflight(q), 16);
	while (reaped < 16) {
		int n = mqblk_reap(q, rqs, 1, 16, -1);

		assert_true(n >= 1);
		for (i = 0; i < (unsigned)n; i++) {
			assert_int_equal(rqs[i]->res, BS);
			assert_int_equal(rqs[i]->comp_path, want);
			mqblk_rq_put(rqs[i]);
		}
		reaped += (unsigned)n;
	}
	assert_int_equal(mqblk_queue_inflight(q), 0);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.submitted, 16);
	for (p = 0; p < MQBLK_PATH_NR; p++)
		assert_int_equal(st.completions[p], p == (int)want ? 16 : 0);
	assert_int_equal(st.errors, 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_path_irqmode0_is_always_local(void **state)
{
	(void)state;
	check_path(0, "local", MQBLK_PATH_LOCAL);
	check_path(0, "remote", MQBLK_PATH_LOCAL);
	check_path(0, "batched", MQBLK_PATH_LOCAL);
	check_path(0, "polled", MQBLK_PATH_LOCAL);
}

static void test_path_irqmode1_local_is_local(void **state)
{
	(void)state;
	check_path(1, "local", MQBLK_PATH_LOCAL);
}

static void test_path_irqmode1_remote_is_remote(void **state)
{
	(void)state;
	check_path(1, "remote", MQBLK_PATH_REMOTE);
}

static void test_path_irqmode1_batched_is_batched(void **state)
{
	(void)state;
	check_path(1, "batched", MQBLK_PATH_BATCHED);
}

static void test_path_irqmode1_irq_is_irq(void **state)
{
	(void)state;
	check_path(1, "irq", MQBLK_PATH_IRQ);
	check_path(2, "irq", MQBLK_PATH_IRQ);
	check_path(0, "irq", MQBLK_PATH_LOCAL); /* no interrupt to land */
}

/*
 * A submitter that never sleeps: IRQ completions are posted without a
 * single wake-up; REMOTE writes one whenever its list was empty. Then
 * one that sleeps in mqblk_reap: IRQ wakes it (else the reap would hang).
 */
static unsigned spin_reap(struct mqblk_queue *q, unsigned nr)
{
	struct mqblk_rq *rqs[16];
	unsigned i, reaped = 0;

	for (i = 0; i < nr; i++)
		assert_int_equal(
			mqblk_submit(get_rq(q, MQBLK_OP_READ, i * BS, BS, rqs)),
			0);
	while (reaped < nr) {
		int n = mqblk_reap(q, rqs, 0, 16, 0);

		assert_true(n >= 0);
		for (i = 0; i < (unsigned)n; i++) {
			assert_int_equal(rqs[i]->res, BS);
			mqblk_rq_put(rqs[i]);
		}
		reaped += (unsigned)n;
	}
	return reaped;
}

static void check_wakeups(const char *complete, bool want_wakes)
{
	char uri[256];
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats st;
	struct mqblk_rq *rqs[16];
	unsigned i, round;

	snprintf(uri, sizeof(uri),
		 "null:size=1m,irqmode=1,complete=%s,completion_nsec=1000",
		 complete);
	dev = open_dev(uri, 1);
	q = open_queue(dev);
	for (round = 0; round < 8; round++)
		spin_reap(q, 16);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.errors, 0);
	if (want_wakes)
		assert_true(st.wakeups > 0);
	else
		assert_int_equal(st.wakeups, 0);

	/* now sleep for each completion: a wake-up per sleep at least */
	for (round = 0; round < 8; round++) {
		assert_int_equal(
			mqblk_submit(get_rq(q, MQBLK_OP_READ, 0, BS, rqs)), 0);
		assert_int_equal(mqblk_reap(q, rqs, 1, 1, -1), 1);
		mqblk_rq_put(rqs[0]);
	}
	mqblk_queue_get_stats(q, &st);
	for (i = 0; i < MQBLK_PATH_NR; i++)
		if (i != MQBLK_PATH_LOCAL)
			assert_true(st.completions[i] == 0 ||
				    st.completions[i] == 16 * 8 + 8);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_irq_busy_submitter_gets_no_wakeups(void **state)
{
	(void)state;
	check_wakeups("irq", false);
	check_wakeups("remote", true);
}

static void test_irq_queue_fd_always_wakes(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats st;

	(void)state;
	dev = open_dev("null:size=1m,irqmode=1,complete=irq,"
		       "completion_nsec=1000",
		       1);
	q = open_queue(dev);
	assert_true(mqblk_queue_fd(q) >= 0);
	spin_reap(q, 16);
	mqblk_queue_get_stats(q, &st);
	assert_true(st.wakeups > 0);
	assert_int_equal(st.completions[MQBLK_PATH_IRQ], 16);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_path_irqmode1_polled_is_polled(void **state)
{
	(void)state;
	check_path(1, "polled", MQBLK_PATH_POLLED);
}

static void test_path_irqmode2_local_is_local(void **state)
{
	(void)state;
	check_path(2, "local", MQBLK_PATH_LOCAL);
}

static void test_path_irqmode2_remote_is_remote(void **state)
{
	(void)state;
	check_path(2, "remote", MQBLK_PATH_REMOTE);
}

static void test_path_irqmode2_batched_is_batched(void **state)
{
	(void)state;
	check_path(2, "batched", MQBLK_PATH_BATCHED);
}

static void test_path_irqmode2_polled_is_polled(void **state)
{
	(void)state;
	check_path(2, "polled", MQBLK_PATH_POLLED);
}

/* ---- memory backing ---- */

static void fill(uint8_t *buf, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed + i * 7);
}

static int all_zero(const uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i])
			return 0;
	return 1;
}

static void test_memory_backed_write_reads_back(void **state)
{
	static uint8_t w[3 * 4096], r[3 * 4096];
	const char *const uris[] = {
		"null:size=1m,memory_backed=1",
		"null:size=1m,memory_backed=1,irqmode=1,complete=remote",
		"null:size=1m,memory_backed=1,irqmode=2,completion_nsec=1000",
		"null:size=5m,memory_backed=1,hugepages=0",
		"null:size=5m,memory_backed=1,hugepages=1",
	};
	size_t u;

	(void)state;
	for (u = 0; u < sizeof(uris) / sizeof(uris[0]); u++) {
		struct mqblk_dev *dev = open_dev(uris[u], 1);
		struct mqblk_queue *q = open_queue(dev);

		/* straddles pages: starts mid-page */
		fill(w, sizeof(w), (uint8_t)u);
		assert_int_equal(do_io(q, MQBLK_OP_WRITE, 4096 + 1536,
				       sizeof(w), w),
				 (int)sizeof(w));
		memset(r, 0xee, sizeof(r));
		assert_int_equal(do_io(q, MQBLK_OP_READ, 4096 + 1536, sizeof(r),
				       r),
				 (int)sizeof(r));
		assert_memory_equal(w, r, sizeof(w));
		/* a sub-range */
		assert_int_equal(do_io(q, MQBLK_OP_READ, 4096 + 2048, BS, r),
				 BS);
		assert_memory_equal(w + 512, r, BS);
		mqblk_queue_close(q);
		mqblk_dev_close(dev);
	}
}

/* The store comes in 2 MiB segments: I/O and discards across a segment
 * boundary, and a big discard that gives whole pages back. */
static void test_memory_backed_across_segments(void **state)
{
	static uint8_t w[1 << 20], r[1 << 20];
	const uint64_t seg = 2u << 20;
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	size_t i;

	(void)state;
	dev = open_dev("null:size=6m,memory_backed=1", 1);
	q = open_queue(dev);
	for (i = 0; i < sizeof(w); i++)
		w[i] = (uint8_t)(i * 7 + 3);
	/* 1 MiB straddling the first boundary, then reading it back */
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, seg - 4096, sizeof(w), w),
			 (int)sizeof(w));
	assert_int_equal(do_io(q, MQBLK_OP_READ, seg - 4096, sizeof(r), r),
			 (int)sizeof(r));
	assert_memory_equal(w, r, sizeof(w));
	/* a 512 KiB discard from mid-page across the boundary: zeros there,
	 * the data around it untouched */
	assert_int_equal(do_io(q, MQBLK_OP_DISCARD, seg - 2048, 512 << 10,
			       NULL),
			 512 << 10);
	assert_int_equal(do_io(q, MQBLK_OP_READ, seg - 4096, sizeof(r), r),
			 (int)sizeof(r));
	assert_memory_equal(w, r, 2048);
	assert_true(all_zero(r + 2048, 512 << 10));
	assert_memory_equal(w + 2048 + (512 << 10), r + 2048 + (512 << 10),
			    sizeof(w) - 2048 - (512 << 10));
	/* the third segment was never written: zeros, no memory */
	assert_int_equal(do_io(q, MQBLK_OP_READ, 2 * seg, 4096, r), 4096);
	assert_true(all_zero(r, 4096));
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* Big writes go to the store with non-temporal stores (nt_writes, on by
 * default) when both ends are 16-byte aligned, with memcpy otherwise:
 * every shape reads back what was written, with and without them. */
static void test_memory_backed_nt_writes(void **state)
{
	static uint8_t w[(256 << 10) + 64] __attribute__((aligned(64)));
	static uint8_t r[256 << 10];
	static const char *const uris[] = {
		"null:size=8m,memory_backed=1",
		"null:size=8m,memory_backed=1,nt_writes=0",
	};
	/* buffer offset (16: the NT path; 8, 1: memcpy), length, offset */
	static const struct {
		size_t at;
		uint32_t len;
		uint64_t off;
	} cases[] = {
		{ 0, 256 << 10, 0 },
		{ 16, 64 << 10, 1 << 20 },
		{ 8, 64 << 10, 3 << 20 },
		{ 1, 32 << 10, 5 << 20 },
		{ 0, 2048, 6 << 20 }, /* under the threshold */
		{ 0, 4096, 7 << 20 }, /* the threshold */
		{ 0, 128 << 10, (2 << 20) - (64 << 10) }, /* two segments */
	};
	size_t u, c, i;

	(void)state;
	for (u = 0; u < sizeof(uris) / sizeof(uris[0]); u++) {
		struct mqblk_dev *dev = open_dev(uris[u], 1);
		struct mqblk_queue *q = open_queue(dev);

		for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			uint8_t *b = w + cases[c].at;

			for (i = 0; i < cases[c].len; i++)
				b[i] = (uint8_t)(i * 31 + c + u * 7 + 1);
			assert_int_equal(do_io(q, MQBLK_OP_WRITE, cases[c].off,
					       cases[c].len, b),
					 (int)cases[c].len);
			memset(r, 0xee, sizeof(r));
			assert_int_equal(do_io(q, MQBLK_OP_READ, cases[c].off,
					       cases[c].len, r),
					 (int)cases[c].len);
			assert_memory_equal(b, r, cases[c].len);
		}
		mqblk_queue_close(q);
		mqblk_dev_close(dev);
	}
}

static void test_memory_backed_unwritten_reads_zero(void **state)
{
	static uint8_t w[4096], r[8192];
	struct mqblk_dev *dev;
	struct mqblk_queue *q;

	(void)state;
	dev = open_dev("null:size=1m,memory_backed=1", 1);
	q = open_queue(dev);
	memset(r, 0xee, sizeof(r));
	assert_int_equal(do_io(q, MQBLK_OP_READ, 65536, sizeof(r), r),
			 (int)sizeof(r));
	assert_true(all_zero(r, sizeof(r)));
	/* the rest of a written page is zero too */
	fill(w, BS, 1);
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 0, BS, w), BS);
	memset(r, 0xee, sizeof(r));
	assert_int_equal(do_io(q, MQBLK_OP_READ, 0, 4096, r), 4096);
	assert_memory_equal(r, w, BS);
	assert_true(all_zero(r + BS, 4096 - BS));
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_memory_backed_discard_zeroes(void **state)
{
	static uint8_t w[8192], r[8192];
	struct mqblk_dev *dev;
	struct mqblk_queue *q;

	(void)state;
	dev = open_dev("null:size=1m,memory_backed=1", 1);
	q = open_queue(dev);
	fill(w, sizeof(w), 3);
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 0, sizeof(w), w),
			 (int)sizeof(w));
	assert_int_equal(do_io(q, MQBLK_OP_DISCARD, 1024, 4096, NULL), 4096);
	assert_int_equal(do_io(q, MQBLK_OP_READ, 0, sizeof(r), r),
			 (int)sizeof(r));
	assert_memory_equal(r, w, 1024);
	assert_true(all_zero(r + 1024, 4096));
	assert_memory_equal(r + 5120, w + 5120, sizeof(w) - 5120);
	/* discarding never-written space is fine */
	assert_int_equal(do_io(q, MQBLK_OP_DISCARD, 512 * 1024, 8192, NULL),
			 8192);
	assert_int_equal(do_io(q, MQBLK_OP_FLUSH, 0, 0, NULL), 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* ---- submit validation ---- */

/* Opened without MQBLK_OPEN_WRITE: reads and flushes go, writes, discards
 * and write zeroes are refused at submit with -EBADF, nothing queued. */
static void test_read_only_device_refuses_writes(void **state)
{
	static uint8_t buf[4096];
	static const enum mqblk_op refused[] = { MQBLK_OP_WRITE,
						 MQBLK_OP_DISCARD,
						 MQBLK_OP_WRITE_ZEROES };
	struct mqblk_dev_opts o;
	struct mqblk_dev *dev = NULL;
	struct mqblk_queue *q;
	struct mqblk_rq *rq;
	unsigned i;

	(void)state;
	mqblk_dev_opts_init(&o);
	assert_int_equal(o.flags, MQBLK_OPEN_WRITE); /* the default */
	o.flags = 0;
	assert_int_equal(mqblk_dev_open("null:size=1m", &o, &dev, NULL, 0), 0);
	q = open_queue(dev);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		rq = get_rq(q, refused[i], 0, BS, buf);
		assert_int_equal(mqblk_submit(rq), -EBADF);
		mqblk_rq_put(rq);
	}
	assert_int_equal(mqblk_queue_inflight(q), 0);
	rq = get_rq(q, MQBLK_OP_READ, 0, BS, buf);
	assert_int_equal(mqblk_submit(rq), 0);
	assert_int_equal(mqblk_reap(q, &rq, 1, 1, -1), 1);
	assert_int_equal(rq->res, BS);
	mqblk_rq_put(rq);
	rq = get_rq(q, MQBLK_OP_FLUSH, 0, 0, NULL);
	assert_int_equal(mqblk_submit(rq), 0);
	assert_int_equal(mqblk_reap(q, &rq, 1, 1, -1), 1);
	assert_int_equal(rq->res, 0);
	mqblk_rq_put(rq);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_submit_out_of_range_is_einval(void **state)
{
	static uint8_t buf[4096];
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_rq *rq;
	struct mqblk_queue_stats st;

	(void)state;
	dev = open_dev("null:size=1m", 1);
	q = open_queue(dev);
	rq = get_rq(q, MQBLK_OP_READ, 1u << 20, BS, buf);
	assert_int_equal(mqblk_submit(rq), -EINVAL);
	rq->offset = (1u << 20) - BS;
	rq->len = 2 * BS;
	assert_int_equal(mqblk_submit(rq), -EINVAL);
	rq->offset = UINT64_MAX - BS + 1;
	rq->len = BS;
	assert_int_equal(mqblk_submit(rq), -EINVAL);
	rq->offset = (1u << 20) - BS; /* the last block is fine */
	assert_int_equal(mqblk_queue_inflight(q), 0);
	assert_int_equal(mqblk_submit(rq), 0);
	assert_int_equal(mqblk_reap(q, &rq, 1, 1, -1), 1);
	assert_int_equal(rq->res, BS);
	mqblk_rq_put(rq);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.submitted, 1);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_submit_misaligned_is_einval(void **state)
{
	static uint8_t buf[8192];
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_rq *rq;

	(void)state;
	dev = open_dev("null:size=1m,blocksize=4096", 1);
	q = open_queue(dev);
	rq = get_rq(q, MQBLK_OP_WRITE, 512, 4096, buf);
	assert_int_equal(mqblk_submit(rq), -EINVAL);
	rq->offset = 0;
	rq->len = 512;
	assert_int_equal(mqblk_submit(rq), -EINVAL);
	rq->len = 0;
	assert_int_equal(mqblk_submit(rq), -EINVAL);
	rq->len = 4096;
	rq->buf = NULL; /* a write needs a buffer */
	assert_int_equal(mqblk_submit(rq), -EINVAL);
	rq->op = (enum mqblk_op)99;
	rq->buf = buf;
	assert_int_equal(mqblk_submit(rq), -EINVAL);
	assert_int_equal(mqblk_queue_inflight(q), 0);
	mqblk_rq_put(rq);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* ---- plugging ---- */

static void test_plug_holds_submissions_until_unplug(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_rq *rqs[16];
	unsigned i;

	(void)state;
	dev = open_dev("null:size=1m,irqmode=0", 1);
	q = open_queue(dev);
	mqblk_plug(q);
	mqblk_plug(q); /* nests */
	for (i = 0; i < 16; i++)
		assert_int_equal(
			mqblk_submit(get_rq(q, MQBLK_OP_READ, i * BS, BS, rqs)),
			0);
	assert_int_equal(mqblk_reap(q, rqs, 0, 16, 0), 0);
	mqblk_unplug(q);
	assert_int_equal(mqblk_reap(q, rqs, 0, 16, 0), 0);
	mqblk_unplug(q);
	assert_int_equal(mqblk_reap(q, rqs, 16, 16, 0), 16);
	for (i = 0; i < 16; i++) {
		/* issued in submission order */
		assert_int_equal(rqs[i]->offset, i * BS);
		mqblk_rq_put(rqs[i]);
	}
	/* unbalanced unplug is harmless */
	mqblk_unplug(q);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* ---- fault injection ---- */

/* Submit n requests tagged 1..n in private through a window of depth,
 * reap all; every tag must come back exactly once. */
static void run_tagged(struct mqblk_queue *q, unsigned n, unsigned window,
		       unsigned *nr_res_err, int want_err)
{
	char *seen = calloc(n + 1, 1);
	struct mqblk_rq *out[64];
	unsigned sent = 0, got = 0;

	assert_non_null(seen);
	*nr_res_err = 0;
	while (got < n) {
		int k, r;

		while (sent < n && mqblk_queue_inflight(q) < window) {
			struct mqblk_rq *rq = get_rq(q, MQBLK_OP_WRITE,
						     (sent % 64) * BS, BS, out);

			rq->private = (void *)(uintptr_t)(sent + 1);
			assert_int_equal(mqblk_submit(rq), 0);
			sent++;
		}
		r = mqblk_reap(q, out, 1, 64, -1);
		assert_true(r >= 1);
		for (k = 0; k < r; k++) {
			uintptr_t id = (uintptr_t)out[k]->private;

			assert_true(id >= 1 && id <= n);
			assert_int_equal(seen[id], 0);
			seen[id] = 1;
			if (out[k]->res < 0) {
				assert_int_equal(out[k]->res, want_err);
				(*nr_res_err)++;
			} else {
				assert_int_equal(out[k]->res, BS);
			}
			mqblk_rq_put(out[k]);
		}
		got += (unsigned)r;
	}
	assert_int_equal(mqblk_queue_inflight(q), 0);
	free(seen);
}

static void check_requeue(const char *uri)
{
	struct mqblk_dev *dev = open_dev(uri, 1);
	struct mqblk_queue *q = open_queue(dev);
	struct mqblk_queue_stats st;
	unsigned nerr;

	run_tagged(q, 300, 16, &nerr, 0);
	assert_int_equal(nerr, 0);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.submitted, 300);
	assert_true(st.requeues > 0);
	assert_int_equal(st.errors, 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_busy_requeue_loses_nothing_irqmode0(void **state)
{
	(void)state;
	check_requeue("null:size=1m,requeue_every=3");
}

static void test_busy_requeue_loses_nothing_irqmode1(void **state)
{
	(void)state;
	check_requeue("null:size=1m,requeue_every=3,irqmode=1");
	check_requeue("null:size=1m,requeue_every=3,irqmode=1,complete=remote");
}

static void test_busy_requeue_loses_nothing_plugged(void **state)
{
	struct mqblk_dev *dev = open_dev("null:size=1m,requeue_every=3", 1);
	struct mqblk_queue *q = open_queue(dev);
	struct mqblk_queue_stats st;
	struct mqblk_rq *out[16];
	unsigned i, got = 0;
	char seen[17] = { 0 };

	(void)state;
	mqblk_plug(q);
	for (i = 0; i < 16; i++) {
		struct mqblk_rq *rq = get_rq(q, MQBLK_OP_READ, 0, BS, out);

		rq->private = (void *)(uintptr_t)(i + 1);
		assert_int_equal(mqblk_submit(rq), 0);
	}
	mqblk_unplug(q);
	while (got < 16) {
		int k, r = mqblk_reap(q, out, 1, 16, -1);

		assert_true(r >= 1);
		for (k = 0; k < r; k++) {
			uintptr_t id = (uintptr_t)out[k]->private;

			assert_int_equal(seen[id], 0);
			seen[id] = 1;
			mqblk_rq_put(out[k]);
		}
		got += (unsigned)r;
	}
	mqblk_queue_get_stats(q, &st);
	assert_true(st.requeues > 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_timeout_every_completes_etimedout(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats st;
	unsigned nerr;

	(void)state;
	dev = open_dev("null:size=1m,timeout_every=5,timeout=50", 1);
	q = open_queue(dev);
	run_tagged(q, 40, 40, &nerr, -ETIMEDOUT);
	assert_int_equal(nerr, 8);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.timeouts, 8);
	assert_int_equal(st.errors, 8);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_timeout_every_with_interrupts(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats st;
	unsigned nerr;

	(void)state;
	dev = open_dev("null:size=1m,timeout_every=5,timeout=50,irqmode=1,"
		       "complete=remote",
		       1);
	q = open_queue(dev);
	run_tagged(q, 20, 20, &nerr, -ETIMEDOUT);
	assert_int_equal(nerr, 4);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.timeouts, 4);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_error_every_completes_eio(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats st;
	unsigned nerr;

	(void)state;
	dev = open_dev("null:size=1m,error_every=4", 1);
	q = open_queue(dev);
	run_tagged(q, 100, 8, &nerr, -EIO);
	assert_int_equal(nerr, 25);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.errors, 25);
	assert_int_equal(st.timeouts, 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* ---- tags ---- */

static void test_tags_nowait_fails_when_exhausted(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats st;
	struct mqblk_rq *rq[5];
	unsigned i, j;

	(void)state;
	dev = open_dev("null:size=1m,hw_queue_depth=4", 1);
	q = open_queue(dev);
	assert_int_equal(mqblk_dev_queue_depth(dev), 4);
	for (i = 0; i < 4; i++) {
		rq[i] = mqblk_rq_get(q, MQBLK_RQ_NOWAIT);
		assert_non_null(rq[i]);
		for (j = 0; j < i; j++)
			assert_int_not_equal(rq[i]->tag, rq[j]->tag);
	}
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.tag_waits, 0);
	assert_null(mqblk_rq_get(q, MQBLK_RQ_NOWAIT));
	mqblk_queue_get_stats(q, &st);
	/* a NOWAIT miss is not a wait */
	assert_int_equal(st.tag_waits, 0);
	assert_int_equal(st.tag_nowait_fails, 1);
	/* blocking with every tag held by us and none in flight: NULL, not
	 * a hang (and no wait either) */
	assert_null(mqblk_rq_get(q, 0));
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.tag_waits, 0);
	assert_int_equal(st.tag_wait_ns, 0);
	mqblk_rq_put(rq[2]);
	rq[4] = mqblk_rq_get(q, MQBLK_RQ_NOWAIT);
	assert_non_null(rq[4]);
	assert_int_equal(rq[4]->tag, rq[2]->tag);
	for (i = 0; i < 5; i++)
		if (i != 2)
			mqblk_rq_put(rq[i]);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_tags_blocking_get_all_own_inflight_returns_null(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_rq *rq[4], *extra;
	unsigned i;
	static uint8_t buf[BS];

	(void)state;
	dev = open_dev("null:size=1m,hw_queue_depth=4,irqmode=2,"
		       "completion_nsec=1000000",
		       1);
	q = open_queue(dev);
	for (i = 0; i < 4; i++) {
		rq[i] = get_rq(q, MQBLK_OP_READ, 0, BS, buf);
		assert_int_equal(mqblk_submit(rq[i]), 0);
	}
	/* all four tags are ours and only our put frees one: a blocking
	 * get must fail rather than wait forever */
	assert_null(mqblk_rq_get(q, 0));
	assert_int_equal(mqblk_reap(q, rq, 4, 4, -1), 4);
	/* reaped is not freed: still all ours */
	assert_null(mqblk_rq_get(q, 0));
	mqblk_rq_put(rq[0]);
	extra = mqblk_rq_get(q, 0);
	assert_non_null(extra);
	mqblk_rq_put(extra);
	for (i = 1; i < 4; i++)
		mqblk_rq_put(rq[i]);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

struct blocker {
	struct mqblk_dev *dev;
	_Atomic int stage; /* 1: holder has all tags; 2: holder put one */
	_Atomic int got_before_put;
	struct mqblk_queue_stats st;
};

static void *blocker_fn(void *arg)
{
	struct blocker *b = arg;
	struct mqblk_queue *q;
	struct mqblk_rq *rq;

	if (mqblk_queue_open(b->dev, &q))
		return NULL;
	while (atomic_load(&b->stage) < 1)
		sched_yield();
	rq = mqblk_rq_get(q, 0);
	if (rq && atomic_load(&b->stage) < 2)
		atomic_store(&b->got_before_put, 1);
	if (rq)
		mqblk_rq_put(rq);
	mqblk_queue_get_stats(q, &b->st);
	mqblk_queue_close(q);
	return rq ? (void *)1 : NULL;
}

static void test_tags_blocking_get_woken_by_other_thread_put(void **state)
{
	struct blocker b = { 0 };
	struct mqblk_queue *q;
	struct mqblk_rq *rq[4];
	pthread_t t;
	void *ret;
	unsigned i;

	(void)state;
	b.dev = open_dev("null:size=1m,hw_queue_depth=4,shared_tags=1,"
			 "submit_queues=2",
			 2);
	q = open_queue(b.dev);
	for (i = 0; i < 4; i++)
		assert_non_null(rq[i] = mqblk_rq_get(q, MQBLK_RQ_NOWAIT));
	assert_int_equal(pthread_create(&t, NULL, blocker_fn, &b), 0);
	atomic_store(&b.stage, 1);
	usleep(20000); /* let it block (correct either way) */
	atomic_store(&b.stage, 2);
	mqblk_rq_put(rq[0]);
	pthread_join(t, &ret);
	assert_non_null(ret);
	assert_int_equal(atomic_load(&b.got_before_put), 0);
	assert_true(b.st.tag_waits >= 1);
	for (i = 1; i < 4; i++)
		mqblk_rq_put(rq[i]);
	mqblk_queue_close(q);
	mqblk_dev_close(b.dev);
}

/* ---- threads ---- */

#define MT_THREADS 4
#define MT_IOS 10000

struct mt_arg {
	struct mqblk_dev *dev;
	unsigned id;
	unsigned errors;
	struct mqblk_queue_stats st;
};

/* private = (thread id << 24) | sequence number (1-based) */
static void *mt_fn(void *arg)
{
	struct mt_arg *a = arg;
	struct mqblk_queue *q;
	struct mqblk_rq *out[32];
	char *seen = calloc(MT_IOS + 1, 1);
	unsigned sent = 0, got = 0;

	if (!seen || mqblk_queue_open(a->dev, &q)) {
		a->errors++;
		free(seen);
		return NULL;
	}
	while (got < MT_IOS) {
		int k, r;

		while (sent < MT_IOS && mqblk_queue_inflight(q) < 16) {
			struct mqblk_rq *rq = mqblk_rq_get(q, 0);

			if (!rq) {
				a->errors++;
				break;
			}
			rq->op = MQBLK_OP_READ;
			rq->offset = (uint64_t)(sent % 128) * BS;
			rq->len = BS;
			rq->buf = out;
			sent++;
			rq->private = (void *)(uintptr_t)((a->id << 24) | sent);
			if (mqblk_submit(rq))
				a->errors++;
		}
		r = mqblk_reap(q, out, 1, 32, -1);
		if (r < 1) {
			a->errors++;
			break;
		}
		for (k = 0; k < r; k++) {
			uintptr_t p = (uintptr_t)out[k]->private;
			unsigned seq = p & 0xffffff;

			if ((p >> 24) != a->id || out[k]->q != q || !seq ||
			    seq > MT_IOS || seen[seq] || out[k]->res != BS)
				a->errors++;
			else
				seen[seq] = 1;
			mqblk_rq_put(out[k]);
		}
		got += (unsigned)r;
	}
	mqblk_queue_get_stats(q, &a->st);
	mqblk_queue_close(q);
	free(seen);
	return NULL;
}

static void run_mt(const char *uri, enum mqblk_comp_path want)
{
	struct mqblk_dev_opts o;
	struct mqblk_dev *dev;
	struct mt_arg a[MT_THREADS];
	pthread_t t[MT_THREADS];
	char err[256];
	unsigned i;

	mqblk_dev_opts_init(&o);
	o.nr_queues = MT_THREADS;
	assert_int_equal(mqblk_dev_open(uri, &o, &dev, err, sizeof(err)), 0);
	assert_int_equal(mqblk_dev_nr_hw_queues(dev), 2);
	for (i = 0; i < MT_THREADS; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].dev = dev;
		a[i].id = i + 1;
		assert_int_equal(pthread_create(&t[i], NULL, mt_fn, &a[i]), 0);
	}
	for (i = 0; i < MT_THREADS; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(a[i].errors, 0);
		assert_int_equal(a[i].st.submitted, MT_IOS);
		assert_int_equal(a[i].st.completions[want], MT_IOS);
	}
	mqblk_dev_close(dev);
}

static void test_threads_remote_shared_tags_each_reaps_own(void **state)
{
	(void)state;
	run_mt("null:size=1m,submit_queues=2,shared_tags=1,irqmode=1,"
	       "complete=remote",
	       MQBLK_PATH_REMOTE);
}

static void test_threads_batched_each_reaps_own(void **state)
{
	(void)state;
	run_mt("null:size=1m,submit_queues=2,shared_tags=1,irqmode=1,"
	       "complete=batched",
	       MQBLK_PATH_BATCHED);
}

static void test_threads_irq_each_reaps_own(void **state)
{
	(void)state;
	run_mt("null:size=1m,submit_queues=2,shared_tags=1,irqmode=1,"
	       "complete=irq",
	       MQBLK_PATH_IRQ);
}

#define MT_MAX_THREADS 16

static void run_mt_local_shared(const char *uri, unsigned nr)
{
	struct mqblk_dev_opts o;
	struct mqblk_dev *dev;
	struct mt_arg a[MT_MAX_THREADS];
	pthread_t t[MT_MAX_THREADS];
	char err[256];
	unsigned i;

	mqblk_dev_opts_init(&o);
	o.nr_queues = nr;
	assert_int_equal(mqblk_dev_open(uri, &o, &dev, err, sizeof(err)), 0);
	for (i = 0; i < nr; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].dev = dev;
		a[i].id = i + 1;
		assert_int_equal(pthread_create(&t[i], NULL, mt_fn, &a[i]), 0);
	}
	for (i = 0; i < nr; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(a[i].errors, 0);
		assert_int_equal(a[i].st.completions[MQBLK_PATH_LOCAL] +
					 a[i].st.completions[MQBLK_PATH_REMOTE],
				 MT_IOS);
	}
	mqblk_dev_close(dev);
}

static void test_threads_local_shared_hctx_each_reaps_own(void **state)
{
	(void)state;
	/* two submitters per hw queue take its interrupt in turn: paths
	 * are mixed, but every request still reaches its own submitter */
	run_mt_local_shared("null:size=1m,submit_queues=2,irqmode=1,"
			    "complete=local",
			    MT_THREADS);
}

/*
 * The same with a poll budget of 1: every pass leaves work and re-raises
 * the interrupt, and the thread that takes that edge often finds another
 * one polling. It must be polled for (the missed flag), or every
 * submitter sleeps with completions waiting (this hung once). Tags for
 * every thread's window of 16, so no thread waits for a tag that an
 * unreaped completion of its own holds.
 */
static void test_threads_local_shared_hctx_budget_hits(void **state)
{
	(void)state;
	run_mt_local_shared("null:size=1m,submit_queues=2,irqmode=1,"
			    "complete=local,poll_budget=1,hw_queue_depth=128",
			    MT_MAX_THREADS);
}

/* A queue opened on this thread, used on another (a stacking driver's
 * path queue, reaped by whichever submitter holds its lock). */
struct claim_arg {
	struct mqblk_queue *q;
	bool claim;
	void *buf;
	int submitted, reaped, res;
};

static void *claim_fn(void *p)
{
	struct claim_arg *a = p;
	struct mqblk_rq *rq, *out = NULL;

	if (a->claim)
		mqblk_queue_claim(a->q);
	rq = mqblk_rq_get(a->q, 0);
	if (!rq)
		return NULL;
	rq->op = MQBLK_OP_READ;
	rq->flags = 0;
	rq->offset = 0;
	rq->len = BS;
	rq->buf = a->buf;
	a->submitted = mqblk_submit(rq);
	a->reaped = mqblk_reap(a->q, &out, 1, 1, -1);
	if (a->reaped == 1) {
		a->res = out->res;
		mqblk_rq_put(out);
	}
	return NULL;
}

/* One read on a.q from a thread of its own, claiming the queue first if
 * a.claim; it must come back whole. */
static void claim_run(struct claim_arg *a)
{
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, claim_fn, a), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(a->submitted, 0);
	assert_int_equal(a->reaped, 1);
	assert_int_equal(a->res, BS);
}

/* null completes inline, on the submitting thread: local to the queue's
 * owner, handed over with a wake-up otherwise; mqblk_queue_claim makes
 * the calling thread the owner */
static void test_queue_claim_keeps_completions_local(void **state)
{
	struct mqblk_dev *dev = open_dev("null:size=1m", 1);
	struct mqblk_queue *q = open_queue(dev);
	struct mqblk_queue_stats st;
	char buf[BS];
	struct claim_arg a = { .q = q, .buf = buf };

	(void)state;
	claim_run(&a);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.completions[MQBLK_PATH_REMOTE], 1);
	assert_int_equal(st.completions[MQBLK_PATH_LOCAL], 0);
	assert_int_equal(st.wakeups, 1);

	a.claim = true;
	claim_run(&a);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.completions[MQBLK_PATH_REMOTE], 1);
	assert_int_equal(st.completions[MQBLK_PATH_LOCAL], 1);
	assert_int_equal(st.wakeups, 1);

	/* and back: this thread's completions are handed over now */
	assert_int_equal(do_io(q, MQBLK_OP_READ, 0, BS, buf), BS);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.completions[MQBLK_PATH_REMOTE], 2);
	assert_int_equal(st.wakeups, 2);
	mqblk_queue_claim(q);
	assert_int_equal(do_io(q, MQBLK_OP_READ, 0, BS, buf), BS);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.completions[MQBLK_PATH_LOCAL], 2);
	assert_int_equal(st.wakeups, 2);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_queue_open_beyond_expected_is_ebusy(void **state)
{
	struct mqblk_dev *dev = open_dev("null:size=1m,submit_queues=1", 1);
	struct mqblk_queue *q, *q2 = NULL;

	(void)state;
	q = open_queue(dev);
	/* one expected submitter: its hw queue dispatches unlocked */
	assert_int_equal(mqblk_queue_open(dev, &q2), -EBUSY);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* ---- close ---- */

static void check_close_drains(const char *uri)
{
	struct mqblk_dev *dev = open_dev(uri, 1);
	struct mqblk_queue *q = open_queue(dev);
	struct mqblk_rq *rq[64];
	static uint8_t buf[BS];
	unsigned i;

	mqblk_plug(q);
	for (i = 0; i < 40; i++)
		assert_int_equal(
			mqblk_submit(get_rq(q, MQBLK_OP_READ, 0, BS, buf)), 0);
	/* still plugged, and more issued directly */
	mqblk_queue_close(q);
	/* every tag came back: a new queue can take all of them */
	q = open_queue(dev);
	for (i = 0; i < 64; i++)
		assert_non_null(rq[i] = mqblk_rq_get(q, MQBLK_RQ_NOWAIT));
	assert_null(mqblk_rq_get(q, MQBLK_RQ_NOWAIT));
	for (i = 0; i < 64; i++)
		mqblk_rq_put(rq[i]);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_queue_close_with_io_in_flight_drains(void **state)
{
	(void)state;
	check_close_drains("null:size=1m,irqmode=2,completion_nsec=2000000");
	check_close_drains("null:size=1m,irqmode=1,complete=remote");
	check_close_drains("null:size=1m,irqmode=2,completion_nsec=100000,"
			   "complete=batched");
	check_close_drains("null:size=1m,irqmode=2,completion_nsec=100000,"
			   "complete=polled");
	check_close_drains("null:size=1m,irqmode=0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uri_unknown_driver_is_enodev),
		cmocka_unit_test(test_uri_unknown_parameter_is_einval),
		cmocka_unit_test(test_uri_bad_value_is_einval),
		cmocka_unit_test(test_uri_empty_is_einval),
		cmocka_unit_test(test_geometry_reports_size_bs_queues_depth),
		cmocka_unit_test(test_geometry_core_keys_override_opts),
		cmocka_unit_test(test_path_irqmode0_is_always_local),
		cmocka_unit_test(test_path_irqmode1_local_is_local),
		cmocka_unit_test(test_path_irqmode1_remote_is_remote),
		cmocka_unit_test(test_path_irqmode1_batched_is_batched),
		cmocka_unit_test(test_path_irqmode1_irq_is_irq),
		cmocka_unit_test(test_irq_busy_submitter_gets_no_wakeups),
		cmocka_unit_test(test_irq_queue_fd_always_wakes),
		cmocka_unit_test(test_path_irqmode1_polled_is_polled),
		cmocka_unit_test(test_path_irqmode2_local_is_local),
		cmocka_unit_test(test_path_irqmode2_remote_is_remote),
		cmocka_unit_test(test_path_irqmode2_batched_is_batched),
		cmocka_unit_test(test_path_irqmode2_polled_is_polled),
		cmocka_unit_test(test_memory_backed_write_reads_back),
		cmocka_unit_test(test_memory_backed_across_segments),
		cmocka_unit_test(test_memory_backed_nt_writes),
		cmocka_unit_test(test_memory_backed_unwritten_reads_zero),
		cmocka_unit_test(test_memory_backed_discard_zeroes),
		cmocka_unit_test(test_submit_out_of_range_is_einval),
		cmocka_unit_test(test_submit_misaligned_is_einval),
		cmocka_unit_test(test_read_only_device_refuses_writes),
		cmocka_unit_test(test_plug_holds_submissions_until_unplug),
		cmocka_unit_test(test_busy_requeue_loses_nothing_irqmode0),
		cmocka_unit_test(test_busy_requeue_loses_nothing_irqmode1),
		cmocka_unit_test(test_busy_requeue_loses_nothing_plugged),
		cmocka_unit_test(test_timeout_every_completes_etimedout),
		cmocka_unit_test(test_timeout_every_with_interrupts),
		cmocka_unit_test(test_error_every_completes_eio),
		cmocka_unit_test(test_tags_nowait_fails_when_exhausted),
		cmocka_unit_test(
			test_tags_blocking_get_all_own_inflight_returns_null),
		cmocka_unit_test(
			test_tags_blocking_get_woken_by_other_thread_put),
		cmocka_unit_test(
			test_threads_remote_shared_tags_each_reaps_own),
		cmocka_unit_test(test_threads_batched_each_reaps_own),
		cmocka_unit_test(test_threads_irq_each_reaps_own),
		cmocka_unit_test(test_threads_local_shared_hctx_each_reaps_own),
		cmocka_unit_test(test_threads_local_shared_hctx_budget_hits),
		cmocka_unit_test(test_queue_claim_keeps_completions_local),
		cmocka_unit_test(test_queue_open_beyond_expected_is_ebusy),
		cmocka_unit_test(test_queue_close_with_io_in_flight_drains),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
