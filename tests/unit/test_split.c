// SPDX-License-Identifier: MIT
/*
 * Unit tests of request splitting (src/core/split.c) on the null device
 * given a maximum transfer (max_bytes=, max_sectors=): pieces, data,
 * the first error, timeouts, tag exhaustion, plugging, every completion
 * path and the schedulers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <mqblk/mqblk.h>

#include "helpers.h"

#define KIB 1024u

static uint8_t wbuf[512 * KIB], rbuf[512 * KIB];

static void fill(uint8_t *p, size_t len, unsigned seed)
{
	uint32_t x = 0x9e3779b9u * (seed + 1);
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

static void stats(struct mqblk_queue *q, struct mqblk_queue_stats *st)
{
	mqblk_queue_get_stats(q, st);
}

static void test_split_limit_reported_and_checked(void **state)
{
	struct mqblk_dev *dev;

	(void)state;
	dev = open_dev("null:size=1m,max_sectors=8", 1);
	assert_int_equal(mqblk_dev_max_transfer(dev), 4096);
	mqblk_dev_close(dev);
	dev = open_dev("null:size=1m,max_bytes=6k", 1);
	assert_int_equal(mqblk_dev_max_transfer(dev), 6144);
	mqblk_dev_close(dev);
	/* whole blocks only: rounded down */
	dev = open_dev("null:size=1m,bs=4k,max_bytes=9k", 1);
	assert_int_equal(mqblk_dev_max_transfer(dev), 8192);
	mqblk_dev_close(dev);
	dev = open_dev("null:size=1m", 1);
	assert_int_equal(mqblk_dev_max_transfer(dev), 0);
	mqblk_dev_close(dev);
	expect_open_fail("null:size=1m,bs=4k,max_bytes=2k", -EINVAL,
			 "max_bytes");
	expect_open_fail("null:size=1m,max_sectors=0", -EINVAL, "max_sectors");
	expect_open_fail("null:size=1m,max_bytes=x", -EINVAL, "max_bytes");
}

/* One big write, then one big read of it back and a small read inside,
 * on a device that takes 8 KiB at most: the submitter sees one request
 * each, the pieces are counted, the data is whole. */
static void write_read_back(const char *uri)
{
	struct mqblk_dev *dev = open_dev(uri, 1);
	struct mqblk_queue *q = open_queue(dev);
	struct mqblk_queue_stats st;
	const uint32_t len = 100 * KIB; /* 12 pieces of 8 KiB and 4 KiB */
	const uint64_t off = 4096 + 512; /* not on a piece boundary */

	fill(wbuf, len, 7);
	memset(rbuf, 0xee, len);
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, off, len, wbuf), (int)len);
	assert_int_equal(do_io(q, MQBLK_OP_READ, off, len, rbuf), (int)len);
	assert_memory_equal(wbuf, rbuf, len);
	stats(q, &st);
	if (st.splits != 2 || st.split_pieces != 26)
		fail_msg("%s: %llu splits, %llu pieces (want 2, 26)", uri,
			 (unsigned long long)st.splits,
			 (unsigned long long)st.split_pieces);
	/* at or under the limit: not split */
	assert_int_equal(do_io(q, MQBLK_OP_READ, off + 8192, 8192, rbuf), 8192);
	assert_memory_equal(wbuf + 8192, rbuf, 8192);
	stats(q, &st);
	assert_int_equal(st.splits, 2);
	assert_int_equal(st.errors, 0);
	assert_int_equal(mqblk_queue_inflight(q), 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_split_data_every_path(void **state)
{
	static const char *const uris[] = {
		"null:size=4m,memory_backed=1,max_bytes=8k",
		"null:size=4m,memory_backed=1,max_bytes=8k,irqmode=1,"
		"complete=remote",
		"null:size=4m,memory_backed=1,max_bytes=8k,irqmode=1,"
		"complete=batched",
		"null:size=4m,memory_backed=1,max_bytes=8k,irqmode=1,"
		"complete=irq",
		"null:size=4m,memory_backed=1,max_bytes=8k,irqmode=1,"
		"complete=polled",
		"null:size=4m,memory_backed=1,max_bytes=8k,irqmode=2,"
		"completion_nsec=2000",
		"null:size=4m,memory_backed=1,max_bytes=8k,"
		"scheduler=mq-deadline",
		"null:size=4m,memory_backed=1,max_bytes=8k,dispatch=one",
		"null:size=4m,memory_backed=1,max_sectors=16,shared_tags=1",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(uris) / sizeof(uris[0]); i++)
		write_read_back(uris[i]);
}

/* The first piece error is the request's (error_every counts the
 * device's requests, pieces included); the other pieces still complete
 * and give their tags back. */
static void test_split_first_error_wins(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats st;
	struct mqblk_rq *rqs[8];
	uint16_t status = 0;
	unsigned i;

	(void)state;
	dev = open_dev("null:size=1m,max_bytes=4k,error_every=5,"
		       "error_status=0x281,hw_queue_depth=8",
		       1);
	q = open_queue(dev);
	/* 8 pieces: the 5th fails (an injected status: -EREMOTEIO) */
	assert_int_equal(do_io_full(q, MQBLK_OP_READ, 0, 32 * KIB, rbuf, 0,
				    &status),
			 -EREMOTEIO);
	assert_int_equal(status, 0x281);
	stats(q, &st);
	assert_int_equal(st.errors, 1);
	assert_int_equal(st.split_pieces, 8);
	assert_int_equal(mqblk_queue_inflight(q), 0);
	/* every tag is back */
	for (i = 0; i < 8; i++)
		assert_non_null(rqs[i] = mqblk_rq_get(q, MQBLK_RQ_NOWAIT));
	for (i = 0; i < 8; i++)
		mqblk_rq_put(rqs[i]);
	/* device request 9: not split, fine */
	assert_int_equal(do_io(q, MQBLK_OP_READ, 0, 4 * KIB, rbuf),
			 (int)(4 * KIB));
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_split_piece_timeout_is_the_requests(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats st;

	(void)state;
	dev = open_dev("null:size=1m,max_bytes=4k,timeout_every=3,timeout=50",
		       1);
	q = open_queue(dev);
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 0, 16 * KIB, wbuf),
			 -ETIMEDOUT);
	stats(q, &st);
	assert_int_equal(st.timeouts, 1);
	assert_int_equal(st.errors, 1);
	assert_int_equal(mqblk_queue_inflight(q), 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/*
 * The submitter holds every tag but one's: a request of 16 pieces still
 * completes, a piece at a time on its own tag. Then all four at once,
 * each wanting 16 pieces from a set of 4 tags.
 */
static void tag_exhaustion(const char *uri)
{
	struct mqblk_dev *dev = open_dev(uri, 1);
	struct mqblk_queue *q = open_queue(dev);
	struct mqblk_queue_stats st;
	struct mqblk_rq *rq[4], *out[4];
	unsigned i;

	fill(wbuf, 4 * 64 * KIB, 3);
	for (i = 0; i < 4; i++)
		rq[i] = get_rq(q, MQBLK_OP_WRITE, (uint64_t)i * 64 * KIB,
			       64 * KIB, wbuf + (size_t)i * 64 * KIB);
	assert_null(mqblk_rq_get(q, MQBLK_RQ_NOWAIT));
	assert_int_equal(mqblk_submit(rq[0]), 0);
	reap_all(q, out, 1);
	assert_ptr_equal(out[0], rq[0]);
	assert_int_equal(out[0]->res, (int)(64 * KIB));
	/* the submitter's fields are as it set them */
	assert_int_equal(out[0]->offset, 0);
	assert_int_equal(out[0]->len, 64 * KIB);
	assert_ptr_equal(out[0]->buf, wbuf);
	stats(q, &st);
	assert_int_equal(st.split_serial, 1);
	assert_int_equal(st.split_pieces, 16);
	mqblk_rq_put(out[0]);
	rq[0] = get_rq(q, MQBLK_OP_WRITE, 0, 64 * KIB, wbuf);
	for (i = 1; i < 4; i++)
		assert_int_equal(mqblk_submit(rq[i]), 0);
	assert_int_equal(mqblk_submit(rq[0]), 0);
	reap_all(q, out, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(out[i]->res, (int)(64 * KIB));
		mqblk_rq_put(out[i]);
	}
	stats(q, &st);
	assert_int_equal(st.splits, 5);
	assert_int_equal(st.split_pieces, 5 * 16);
	assert_int_equal(st.errors, 0);
	memset(rbuf, 0, 4 * 64 * KIB);
	assert_int_equal(do_io(q, MQBLK_OP_READ, 0, 4 * 64 * KIB, rbuf),
			 (int)(4 * 64 * KIB));
	assert_memory_equal(wbuf, rbuf, 4 * 64 * KIB);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_split_tag_exhaustion_progresses(void **state)
{
	(void)state;
	tag_exhaustion("null:size=1m,memory_backed=1,max_bytes=4k,"
		       "hw_queue_depth=4");
	tag_exhaustion("null:size=1m,memory_backed=1,max_bytes=4k,"
		       "hw_queue_depth=4,irqmode=1,complete=remote");
	tag_exhaustion("null:size=1m,memory_backed=1,max_bytes=4k,"
		       "hw_queue_depth=4,irqmode=1,complete=polled");
}

/* A blocking tag get while the only free tags are out with pieces: the
 * wait collects those pieces (nobody else would put their tags). */
static void test_split_blocking_get_waits_for_pieces(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_rq *a, *b, *c, *out;

	(void)state;
	dev = open_dev("null:size=1m,max_bytes=4k,hw_queue_depth=3,irqmode=2,"
		       "completion_nsec=200000",
		       1);
	q = open_queue(dev);
	a = get_rq(q, MQBLK_OP_READ, 0, 12 * KIB, rbuf);
	assert_int_equal(mqblk_submit(a), 0); /* takes the other two tags */
	b = mqblk_rq_get(q, 0); /* waits for a piece's tag */
	assert_non_null(b);
	c = mqblk_rq_get(q, 0); /* and the last */
	assert_non_null(c);
	reap_all(q, &out, 1);
	assert_ptr_equal(out, a);
	assert_int_equal(a->res, (int)(12 * KIB));
	mqblk_rq_put(a);
	mqblk_rq_put(b);
	mqblk_rq_put(c);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* Plugged: the pieces wait in the plug with the rest and go at unplug. */
static void test_split_plugged(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats st;
	struct mqblk_rq *rq, *out[6];
	unsigned i;

	(void)state;
	dev = open_dev("null:size=4m,memory_backed=1,max_bytes=16k,"
		       "scheduler=mq-deadline",
		       1);
	q = open_queue(dev);
	fill(wbuf, 6 * 40 * KIB, 9);
	mqblk_plug(q);
	for (i = 0; i < 6; i++) {
		/* back to back: mq-deadline may merge pieces, never past
		 * the limit (the null device fails what is bigger) */
		rq = get_rq(q, MQBLK_OP_WRITE, (uint64_t)i * 40 * KIB, 40 * KIB,
			    wbuf + (size_t)i * 40 * KIB);
		assert_int_equal(mqblk_submit(rq), 0);
	}
	stats(q, &st);
	assert_int_equal(st.dispatched, 0);
	mqblk_unplug(q);
	reap_all(q, out, 6);
	for (i = 0; i < 6; i++) {
		assert_int_equal(out[i]->res, (int)(40 * KIB));
		mqblk_rq_put(out[i]);
	}
	assert_int_equal(do_io(q, MQBLK_OP_READ, 0, 6 * 40 * KIB, rbuf),
			 (int)(6 * 40 * KIB));
	assert_memory_equal(wbuf, rbuf, 6 * 40 * KIB);
	stats(q, &st);
	assert_int_equal(st.splits, 7);
	assert_int_equal(st.errors, 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* A stripe takes the smallest limit of its members, and its data is
 * whole through both levels (stripe pieces, then per-member chunks). */
static void test_split_stripe_smallest_member_limit(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats st;
	const uint32_t len = 200 * KIB;

	(void)state;
	dev = open_dev("stripe:chunk=64k,"
		       "member0=null:size=2m;memory_backed=1;max_bytes=16k,"
		       "member1=null:size=2m;memory_backed=1;max_bytes=8k",
		       1);
	assert_int_equal(mqblk_dev_max_transfer(dev), 8192);
	q = open_queue(dev);
	fill(wbuf, len, 5);
	memset(rbuf, 0, len);
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 12 * KIB, len, wbuf),
			 (int)len);
	assert_int_equal(do_io(q, MQBLK_OP_READ, 12 * KIB, len, rbuf),
			 (int)len);
	assert_memory_equal(wbuf, rbuf, len);
	stats(q, &st);
	assert_int_equal(st.splits, 2);
	assert_int_equal(st.split_pieces, 50);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* Discards and write zeroes are not READ/WRITE transfers: not split. */
static void test_split_not_for_discard(void **state)
{
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats st;

	(void)state;
	dev = open_dev("null:size=1m,max_bytes=4k", 1);
	q = open_queue(dev);
	assert_int_equal(do_io(q, MQBLK_OP_DISCARD, 0, 64 * KIB, NULL),
			 (int)(64 * KIB));
	stats(q, &st);
	assert_int_equal(st.splits, 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_limit_reported_and_checked),
		cmocka_unit_test(test_split_data_every_path),
		cmocka_unit_test(test_split_first_error_wins),
		cmocka_unit_test(test_split_piece_timeout_is_the_requests),
		cmocka_unit_test(test_split_tag_exhaustion_progresses),
		cmocka_unit_test(test_split_blocking_get_waits_for_pieces),
		cmocka_unit_test(test_split_plugged),
		cmocka_unit_test(test_split_stripe_smallest_member_limit),
		cmocka_unit_test(test_split_not_for_discard),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
