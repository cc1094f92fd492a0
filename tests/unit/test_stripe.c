// SPDX-License-Identifier: MIT
/*
 * Unit tests of the stripe device (src/drivers/stripe): URI validation,
 * capacity, chunk layout (by its per-member counters), data through
 * memory-backed null members, errors, flush, and completion policies.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mqblk/mqblk.h>

#include "drivers/stripe/stripe.h"
#include "helpers.h"

static void fill(uint8_t *b, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		b[i] = (uint8_t)(seed >> 16);
	}
}

static void get_stats(struct mqblk_dev *dev, struct stripe_stats *st)
{
	assert_int_equal(stripe_get_stats(dev, st), 0);
}

/* ---- URIs ---- */

static void test_bad_uris_refused_with_reason(void **state)
{
	(void)state;
	expect_open_fail("stripe", -EINVAL, "no members");
	expect_open_fail("stripe:chunk=4k", -EINVAL, "no members");
	expect_open_fail("stripe:member=null:size=1m", -EINVAL, "members=N");
	expect_open_fail("stripe:chunk=3k,members=2,member=null", -EINVAL,
			 "chunk 3072 is not a power of two");
	expect_open_fail("stripe:chunk=0,members=2,member=null", -EINVAL,
			 "chunk");
	expect_open_fail("stripe:members=2,member=nope:size=1m", -ENODEV,
			 "member 0: no driver");
	expect_open_fail(
		"stripe:member0=null:size=1m,member1=null:size=1m;bs=4096",
		-EINVAL, "member 1 has 4096-byte blocks, member 0 has 512");
	expect_open_fail("stripe:chunk=512,members=2,member=null:bs=4k;size=1m",
			 -EINVAL,
			 "chunk 512 is smaller than the members' 4096");
	expect_open_fail("stripe:member0=null:size=1m,member2=null:size=1m",
			 -EINVAL, "member1 is missing");
	expect_open_fail("stripe:member1=null:size=1m", -EINVAL,
			 "member0 is missing");
	expect_open_fail("stripe:member0=null,member0=null", -EINVAL,
			 "member0 given twice");
	expect_open_fail("stripe:members=3,member0=null,member1=null", -EINVAL,
			 "members=3 but 2 members listed");
	expect_open_fail("stripe:members=2,member=null,member0=null", -EINVAL,
			 "exclude each other");
	expect_open_fail("stripe:members=2,member=null:complete=polled",
			 -EINVAL, "member 0 sets complete=");
	expect_open_fail("stripe:chunk=2m,members=2,member=null:size=1m",
			 -EINVAL, "smaller than one chunk");
	expect_open_fail("stripe:members=2,member=null:size=1m;bogus=1",
			 -EINVAL, "member 0: unknown parameter 'bogus'");
	expect_open_fail("stripe:members=2,member=stripe:members=1", -EINVAL,
			 "itself a stripe");
	expect_open_fail("stripe:members=65,member=null", -EINVAL,
			 "members=65 out of range");
	expect_open_fail("stripe:member64=null", -EINVAL, "out of range");
	expect_open_fail("stripe:members=1,member=null,frobnicate=1", -EINVAL,
			 "unknown parameter 'frobnicate'");
}

static void test_capacity_is_n_times_smallest_in_whole_chunks(void **state)
{
	struct mqblk_dev *dev;
	struct stripe_stats st;

	(void)state;
	dev = open_dev(
		"stripe:chunk=64k,member0=null:size=1m,member1=null:size=1000k",
		1);
	assert_int_equal(mqblk_dev_size(dev), 2 * 960 * 1024);
	assert_int_equal(mqblk_dev_block_size(dev), 512);
	assert_string_equal(mqblk_dev_driver_name(dev), "stripe");
	get_stats(dev, &st);
	assert_int_equal(st.nr_members, 2);
	mqblk_dev_close(dev);

	/* template, 8 copies, 4 KiB blocks; default chunk 64k */
	dev = open_dev("stripe:members=8,member=null:size=1g;bs=4k", 1);
	assert_int_equal(mqblk_dev_size(dev), 8ull << 30);
	assert_int_equal(mqblk_dev_block_size(dev), 4096);
	mqblk_dev_close(dev);

	/* queue_depth is the stripe's own (a core key) */
	dev = open_dev("stripe:queue_depth=32,members=2,member=null:size=1m",
		       1);
	assert_int_equal(mqblk_dev_queue_depth(dev), 32);
	mqblk_dev_close(dev);
}

static void test_stats_refused_for_other_devices(void **state)
{
	struct mqblk_dev *dev = open_dev("null:size=1m", 1);
	struct stripe_stats st;

	(void)state;
	assert_int_equal(stripe_get_stats(dev, &st), -EINVAL);
	mqblk_dev_close(dev);
}

/* ---- layout and data ---- */

static void test_layout_chunk_goes_to_its_member(void **state)
{
	struct mqblk_dev *dev = open_dev(
		"stripe:chunk=4k,members=2,member=null:size=1m;memory_backed=1",
		1);
	struct mqblk_queue *q;
	struct stripe_stats st;
	uint8_t buf[16384];

	(void)state;
	fill(buf, sizeof(buf), 1);
	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	/* stripe offset 4k: chunk 1, member 1 */
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 4096, 4096, buf), 4096);
	get_stats(dev, &st);
	assert_int_equal(st.children[0], 0);
	assert_int_equal(st.children[1], 1);
	assert_int_equal(st.parents, 1);
	assert_int_equal(st.split, 0);
	/* chunk 2: member 0 again */
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 8192, 512, buf), 512);
	get_stats(dev, &st);
	assert_int_equal(st.children[0], 1);
	assert_int_equal(st.children[1], 1);
	/* 1k before the end of chunk 0 to 1k into chunk 3: 4 pieces, 2 per
	 * member, split */
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 3072, 10240, buf), 10240);
	get_stats(dev, &st);
	assert_int_equal(st.children[0], 3);
	assert_int_equal(st.children[1], 3);
	assert_int_equal(st.parents, 3);
	assert_int_equal(st.split, 1);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_data_across_chunks_at_odd_offsets(void **state)
{
	struct mqblk_dev *dev = open_dev(
		"stripe:chunk=4k,member0=null:size=1m;memory_backed=1,member1=null:size=1m;memory_backed=1,member2=null:size=2m;memory_backed=1",
		1);
	struct mqblk_queue *q;
	const uint64_t off = 3 * 512, len = 41 * 1024 + 512;
	uint8_t *w = malloc(len), *r = malloc(len + 8192);
	uint64_t o;

	(void)state;
	assert_non_null(w);
	assert_non_null(r);
	assert_int_equal(mqblk_dev_size(dev), 3 << 20);
	fill(w, len, 7);
	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, off, (uint32_t)len, w),
			 (int)len);
	/* whole, with a margin that must read as zeros */
	memset(r, 0xaa, len + 8192);
	assert_int_equal(do_io(q, MQBLK_OP_READ, 0, (uint32_t)(len + 4096), r),
			 (int)(len + 4096));
	for (o = 0; o < off; o++)
		assert_int_equal(r[o], 0);
	assert_memory_equal(r + off, w, len);
	for (o = off + len; o < len + 4096; o++)
		assert_int_equal(r[o], 0);
	/* in pieces of odd sizes that straddle chunks */
	for (o = 0; o < len;) {
		uint32_t n = (uint32_t)(((o / 512) % 7 + 1) * 1536);

		if (n > len - o)
			n = (uint32_t)(len - o);
		memset(r, 0, n);
		assert_int_equal(do_io(q, MQBLK_OP_READ, off + o, n, r),
				 (int)n);
		assert_memory_equal(r, w + o, n);
		o += n;
	}
	/* the last chunk of the device */
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, (3 << 20) - 4096, 4096, w),
			 4096);
	assert_int_equal(do_io(q, MQBLK_OP_READ, (3 << 20) - 4096, 4096, r),
			 4096);
	assert_memory_equal(r, w, 4096);
	/* past the end: refused at submit by the core */
	{
		struct mqblk_rq *rq = mqblk_rq_get(q, 0);

		rq->op = MQBLK_OP_READ;
		rq->offset = 3 << 20;
		rq->len = 512;
		rq->buf = r;
		assert_int_equal(mqblk_submit(rq), -EINVAL);
		mqblk_rq_put(rq);
	}
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	free(w);
	free(r);
}

static void test_write_zeroes_and_discard_split_like_io(void **state)
{
	struct mqblk_dev *dev = open_dev(
		"stripe:chunk=4k,members=2,member=null:size=1m;memory_backed=1",
		1);
	struct mqblk_queue *q;
	struct stripe_stats st;
	uint8_t w[32768], r[32768], z[32768] = { 0 };

	(void)state;
	fill(w, sizeof(w), 3);
	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 0, sizeof(w), w),
			 (int)sizeof(w));
	assert_int_equal(do_io(q, MQBLK_OP_WRITE_ZEROES, 2048, 8192, NULL),
			 8192);
	assert_int_equal(do_io(q, MQBLK_OP_DISCARD, 16384, 4096, NULL), 4096);
	get_stats(dev, &st);
	/* 8 + 3 + 1 children */
	assert_int_equal(st.children[0] + st.children[1], 12);
	assert_int_equal(do_io(q, MQBLK_OP_READ, 0, sizeof(r), r),
			 (int)sizeof(r));
	assert_memory_equal(r, w, 2048);
	assert_memory_equal(r + 2048, z, 8192);
	assert_memory_equal(r + 10240, w + 10240, 16384 - 10240);
	assert_memory_equal(r + 16384, z, 4096);
	assert_memory_equal(r + 20480, w + 20480, sizeof(w) - 20480);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* ---- errors, flush, limits ---- */

static void test_member_error_fails_parent(void **state)
{
	struct mqblk_dev *dev = open_dev(
		"stripe:chunk=4k,member0=null:size=1m,member1=null:size=1m;error_every=1",
		1);
	struct mqblk_queue *q;
	uint8_t buf[8192] = { 0 };
	uint16_t status = 0;

	(void)state;
	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	/* member 0 only: fine */
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 0, 4096, buf), 4096);
	/* member 1 only, and across both: -EIO with the member's status */
	assert_int_equal(do_io_full(q, MQBLK_OP_READ, 4096, 4096, buf, 0,
				    &status),
			 -EIO);
	assert_int_equal(status, 0x0281);
	status = 0;
	assert_int_equal(
		do_io_full(q, MQBLK_OP_WRITE, 0, 8192, buf, 0, &status), -EIO);
	assert_int_equal(status, 0x0280);
	/* every flush reaches member 1 too */
	assert_int_equal(do_io(q, MQBLK_OP_FLUSH, 0, 0, NULL), -EIO);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_flush_goes_to_every_member(void **state)
{
	struct mqblk_dev *dev =
		open_dev("stripe:members=4,member=null:size=1m;irqmode=1", 1);
	struct mqblk_queue *q;
	struct stripe_stats st;
	unsigned i;

	(void)state;
	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	assert_int_equal(do_io(q, MQBLK_OP_FLUSH, 0, 0, NULL), 0);
	assert_int_equal(do_io(q, MQBLK_OP_FLUSH, 0, 0, NULL), 0);
	get_stats(dev, &st);
	for (i = 0; i < 4; i++)
		assert_int_equal(st.children[i], 2);
	assert_int_equal(st.parents, 2);
	assert_int_equal(st.split, 2);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

static void test_request_wider_than_member_tags_fails(void **state)
{
	struct mqblk_dev *dev = open_dev(
		"stripe:chunk=4k,members=1,member=null:size=1m;hw_queue_depth=2",
		1);
	struct mqblk_queue *q;
	uint8_t buf[16384] = { 0 };

	(void)state;
	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 0, 8192, buf), 8192);
	/* 4 children on a member with 2 tags could never go out whole */
	assert_int_equal(do_io(q, MQBLK_OP_WRITE, 0, 16384, buf), -EINVAL);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* ---- completion paths ---- */

/* Keep depth requests in flight on q: write a pattern over the first
 * nr * 8k, then read it all back and compare. Returns completions. */
static unsigned write_read_batch(struct mqblk_queue *q, unsigned nr,
				 uint32_t seed)
{
	const uint32_t bs = 8192;
	uint8_t *w = malloc((size_t)nr * bs), *r = malloc((size_t)nr * bs);
	struct mqblk_rq *out[64];
	unsigned pass, i, reaped = 0;

	assert_non_null(w);
	assert_non_null(r);
	fill(w, (size_t)nr * bs, seed);
	memset(r, 0, (size_t)nr * bs);
	for (pass = 0; pass < 2; pass++) {
		unsigned sent = 0, back = 0;

		while (back < nr) {
			while (sent < nr && sent - back < 16) {
				struct mqblk_rq *rq = mqblk_rq_get(q, 0);

				assert_non_null(rq);
				rq->op = pass ? MQBLK_OP_READ : MQBLK_OP_WRITE;
				/* 2k into a chunk: every request spans two */
				rq->offset = (uint64_t)sent * bs + 2048;
				rq->len = bs;
				rq->buf = (pass ? r : w) + (size_t)sent * bs;
				assert_int_equal(mqblk_submit(rq), 0);
				sent++;
			}
			{
				int n = mqblk_reap(q, out, 1, 64, -1);

				assert_true(n > 0);
				for (i = 0; i < (unsigned)n; i++) {
					assert_int_equal(out[i]->res, (int)bs);
					mqblk_rq_put(out[i]);
				}
				back += (unsigned)n;
			}
		}
		reaped += back;
	}
	assert_memory_equal(r, w, (size_t)nr * bs);
	free(w);
	free(r);
	return reaped;
}

/* path < 0: any path (members that complete inline complete the parent
 * inside submission, on the submitter: locally, whatever the policy) */
static void run_policy(const char *member, const char *policy, int path)
{
	char uri[512];
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	struct mqblk_queue_stats qs;
	struct stripe_stats st;
	unsigned n;

	snprintf(uri, sizeof(uri),
		 "stripe:chunk=4k,members=3,member=%s,complete=%s", member,
		 policy);
	dev = open_dev(uri, 1);
	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	n = write_read_batch(q, 48, 11);
	assert_int_equal(n, 96);
	mqblk_queue_get_stats(q, &qs);
	if (path >= 0 && qs.completions[path] != 96)
		fail_msg(
			"%s under %s: %llu of 96 completions by the expected path",
			member, policy,
			(unsigned long long)qs.completions[path]);
	assert_int_equal(qs.completions[0] + qs.completions[1] +
				 qs.completions[2] + qs.completions[3],
			 96);
	assert_int_equal(qs.errors, 0);
	get_stats(dev, &st);
	assert_int_equal(st.parents, 96);
	/* 8k at 2k into a 4k chunk: three pieces on three members */
	assert_int_equal(st.split, 96);
	assert_int_equal(st.children[0] + st.children[1] + st.children[2],
			 3 * 96);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

#define TIMER_MEMBER \
	"null:size=1m;memory_backed=1;irqmode=2;completion_nsec=30000"

static void test_timer_members_local(void **state)
{
	(void)state;
	run_policy(TIMER_MEMBER, "local", MQBLK_PATH_LOCAL);
}

static void test_timer_members_remote(void **state)
{
	(void)state;
	run_policy(TIMER_MEMBER, "remote", MQBLK_PATH_REMOTE);
}

static void test_timer_members_batched(void **state)
{
	(void)state;
	run_policy(TIMER_MEMBER, "batched", MQBLK_PATH_BATCHED);
}

static void test_timer_members_polled(void **state)
{
	(void)state;
	run_policy(TIMER_MEMBER, "polled", MQBLK_PATH_POLLED);
}

/* Members that complete inside submission (no fd to wait on). */
static void test_inline_members_local_and_remote(void **state)
{
	(void)state;
	run_policy("null:size=1m;memory_backed=1", "local", MQBLK_PATH_LOCAL);
	run_policy("null:size=1m;memory_backed=1", "remote", MQBLK_PATH_LOCAL);
	run_policy("null:size=1m;memory_backed=1;irqmode=1", "polled",
		   MQBLK_PATH_POLLED);
}

/* Members that refuse some children BUSY (null's requeue_every): the
 * stripe retries them and every parent completes, data intact. */
static void test_member_busy_is_retried(void **state)
{
	(void)state;
	run_policy(
		"null:size=1m;memory_backed=1;irqmode=2;completion_nsec=20000;requeue_every=3",
		"local", MQBLK_PATH_LOCAL);
	run_policy("null:size=1m;memory_backed=1;requeue_every=2", "remote",
		   -1);
}

/* A stripe deeper than its members: BUSY from the stripe, requeued by the
 * core, no child leaked. */
static void test_member_out_of_tags_is_busy(void **state)
{
	struct mqblk_dev *dev = open_dev(
		"stripe:chunk=4k,queue_depth=64,members=3,member=null:size=1m;memory_backed=1;irqmode=2;completion_nsec=20000;hw_queue_depth=4",
		1);
	struct mqblk_queue *q;
	struct stripe_stats st;

	(void)state;
	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	assert_int_equal(write_read_batch(q, 48, 5), 96);
	get_stats(dev, &st);
	assert_true(st.busy > 0);
	assert_int_equal(st.parents, 96);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
}

/* ---- threads ---- */

struct worker {
	struct mqblk_dev *dev;
	unsigned idx;
};

static void *worker_fn(void *arg)
{
	struct worker *wk = arg;
	struct mqblk_queue *q;
	const uint32_t bs = 12288;
	uint8_t *w = malloc(bs), *r = malloc(bs);
	unsigned i;

	if (!w || !r || mqblk_queue_open(wk->dev, &q))
		abort();
	for (i = 0; i < 200; i++) {
		/* each thread its own half of the device */
		uint64_t off = (uint64_t)wk->idx * (1536 << 10) +
			       (uint64_t)(i % 100) * bs + 1024;

		fill(w, bs, i * 2 + wk->idx);
		if (do_io(q, MQBLK_OP_WRITE, off, bs, w) != (int)bs ||
		    do_io(q, MQBLK_OP_READ, off, bs, r) != (int)bs ||
		    memcmp(w, r, bs))
			abort();
	}
	mqblk_queue_close(q);
	free(w);
	free(r);
	return NULL;
}

static void run_threads(const char *policy)
{
	char uri[256];
	struct worker wk[2];
	pthread_t t[2];
	struct stripe_stats st;
	unsigned i;

	snprintf(
		uri, sizeof(uri),
		"stripe:chunk=4k,members=2,member=null:size=2m;memory_backed=1;irqmode=2;completion_nsec=10000,nr_hw_queues=2,complete=%s",
		policy);
	wk[0].dev = wk[1].dev = open_dev(uri, 2);
	assert_int_equal(mqblk_dev_nr_hw_queues(wk[0].dev), 2);
	for (i = 0; i < 2; i++) {
		wk[i].idx = i;
		assert_int_equal(pthread_create(&t[i], NULL, worker_fn, &wk[i]),
				 0);
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	get_stats(wk[0].dev, &st);
	assert_int_equal(st.parents, 800);
	mqblk_dev_close(wk[0].dev);
}

static void test_two_threads_two_hw_queues(void **state)
{
	(void)state;
	run_threads("local");
	run_threads("remote");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_uris_refused_with_reason),
		cmocka_unit_test(
			test_capacity_is_n_times_smallest_in_whole_chunks),
		cmocka_unit_test(test_stats_refused_for_other_devices),
		cmocka_unit_test(test_layout_chunk_goes_to_its_member),
		cmocka_unit_test(test_data_across_chunks_at_odd_offsets),
		cmocka_unit_test(test_write_zeroes_and_discard_split_like_io),
		cmocka_unit_test(test_member_error_fails_parent),
		cmocka_unit_test(test_flush_goes_to_every_member),
		cmocka_unit_test(test_request_wider_than_member_tags_fails),
		cmocka_unit_test(test_timer_members_local),
		cmocka_unit_test(test_timer_members_remote),
		cmocka_unit_test(test_timer_members_batched),
		cmocka_unit_test(test_timer_members_polled),
		cmocka_unit_test(test_inline_members_local_and_remote),
		cmocka_unit_test(test_member_busy_is_retried),
		cmocka_unit_test(test_member_out_of_tags_is_busy),
		cmocka_unit_test(test_two_threads_two_hw_queues),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
