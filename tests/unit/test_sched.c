// SPDX-License-Identifier: MIT
/*
 * Unit tests of the core's scheduling (seed 004) on the null device:
 * mq-deadline merges, FIFO expiry and write starvation, one-at-a-time
 * dispatch, shared tagsets, poll budgets, and the keys' bad values.
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

#include "helpers.h"

#define BS 4096

static void submit(struct mqblk_queue *q, enum mqblk_op op, uint64_t off,
		   uint32_t len, void *buf)
{
	assert_int_equal(mqblk_submit(get_rq(q, op, off, len, buf)), 0);
}

static void put_all(struct mqblk_rq **rqs, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		mqblk_rq_put(rqs[i]);
}

/* n BS-sized requests of op under one plug, the ith at block i * step of
 * the device, from block i * buf_step of buf; then reaped into rqs (in
 * completion order) */
static void plugged(struct mqblk_queue *q, enum mqblk_op op, unsigned n,
		    unsigned step, uint8_t *buf, unsigned buf_step,
		    struct mqblk_rq **rqs)
{
	unsigned i;

	mqblk_plug(q);
	for (i = 0; i < n; i++)
		submit(q, op, (uint64_t)i * step * BS, BS,
		       buf + i * buf_step * BS);
	mqblk_unplug(q);
	reap_all(q, rqs, n);
}

/* ---- mq-deadline merges ---- */

/* 16 sequential 4k writes from one contiguous buffer, under a plug. */
static void write_seq16(const char *uri, struct mqblk_queue_stats *st,
			bool check_data)
{
	struct mqblk_dev *dev = open_dev(uri, 1);
	struct mqblk_queue *q = open_queue(dev);
	uint8_t *buf = aligned_alloc(4096, 16 * BS);
	uint8_t *back = aligned_alloc(4096, 16 * BS);
	struct mqblk_rq *rqs[16];
	unsigned i;

	assert_non_null(buf);
	assert_non_null(back);
	for (i = 0; i < 16 * BS; i++)
		buf[i] = (uint8_t)(i * 7 + i / BS);
	mqblk_plug(q);
	/* odd blocks first, then even: back and front merges both */
	for (i = 1; i < 16; i += 2)
		submit(q, MQBLK_OP_WRITE, 65536 + i * BS, BS, buf + i * BS);
	for (i = 0; i < 16; i += 2)
		submit(q, MQBLK_OP_WRITE, 65536 + i * BS, BS, buf + i * BS);
	mqblk_unplug(q);
	reap_all(q, rqs, 16);
	for (i = 0; i < 16; i++) {
		/* every request comes back as it was submitted */
		assert_int_equal(rqs[i]->res, BS);
		assert_int_equal(rqs[i]->len, BS);
		assert_ptr_equal(rqs[i]->buf, buf + (rqs[i]->offset - 65536));
	}
	put_all(rqs, 16);
	if (check_data) {
		/* read back one block at a time, no plug: no merging */
		for (i = 0; i < 16; i++) {
			submit(q, MQBLK_OP_READ, 65536 + i * BS, BS,
			       back + i * BS);
			reap_all(q, rqs, 1);
			assert_int_equal(rqs[0]->res, BS);
			put_all(rqs, 1);
		}
		assert_memory_equal(buf, back, 16 * BS);
	}
	mqblk_queue_get_stats(q, st);
	assert_string_equal(mqblk_dev_scheduler(dev),
			    strstr(uri, "mq-deadline") ? "mq-deadline" :
							 "none");
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	free(buf);
	free(back);
}

static void test_deadline_merges_sequential_writes(void **state)
{
	struct mqblk_queue_stats st;

	(void)state;
	write_seq16("null:size=1m,memory_backed=1,scheduler=mq-deadline", &st,
		    true);
	/* all 16 in one 64 KiB request */
	assert_int_equal(st.merges, 15);
	assert_int_equal(st.dispatched, 1 + 16);
	assert_int_equal(st.submitted, 32);
}

static void test_deadline_no_front_merges(void **state)
{
	struct mqblk_queue_stats st;

	(void)state;
	write_seq16("null:size=1m,memory_backed=1,scheduler=mq-deadline,"
		    "front_merges=0",
		    &st, true);
	/* the odd blocks are not adjacent; each even one back-merges onto
	 * the odd block before it (block 0 has none) ... */
	assert_true(st.merges > 0 && st.merges < 15);
}

static void test_none_does_not_merge(void **state)
{
	struct mqblk_queue_stats st;

	(void)state;
	write_seq16("null:size=1m,memory_backed=1", &st, true);
	assert_int_equal(st.merges, 0);
	assert_int_equal(st.dispatched, 32);
	write_seq16("null:size=1m,memory_backed=1,scheduler=none", &st, false);
	assert_int_equal(st.merges, 0);
	assert_int_equal(st.dispatched, 16);
}

static void test_deadline_needs_contiguous_buffers(void **state)
{
	struct mqblk_dev *dev =
		open_dev("null:size=1m,scheduler=mq-deadline", 1);
	struct mqblk_queue *q = open_queue(dev);
	uint8_t *buf = aligned_alloc(4096, 8 * BS);
	struct mqblk_queue_stats st;
	struct mqblk_rq *rqs[4];

	(void)state;
	/* sequential on the device, every other block in memory */
	plugged(q, MQBLK_OP_WRITE, 4, 1, buf, 2, rqs);
	put_all(rqs, 4);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.merges, 0);
	assert_int_equal(st.dispatched, 4);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	free(buf);
}

/* A merged request that fails fails every request it carries. */
static void test_deadline_merged_error_reaches_all(void **state)
{
	struct mqblk_dev *dev = open_dev(
		"null:size=1m,scheduler=mq-deadline,badblocks=8k-12k", 1);
	struct mqblk_queue *q = open_queue(dev);
	uint8_t *buf = aligned_alloc(4096, 4 * BS);
	struct mqblk_queue_stats st;
	struct mqblk_rq *rqs[4];
	unsigned i;

	(void)state;
	plugged(q, MQBLK_OP_READ, 4, 1, buf, 1, rqs);
	for (i = 0; i < 4; i++)
		assert_int_equal(rqs[i]->res, -EIO);
	put_all(rqs, 4);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.merges, 3);
	assert_int_equal(st.errors, 4);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	free(buf);
}

/* ---- mq-deadline ordering ---- */

/* Reads of blocks 3, 1, 2 (in that order), buffers apart: no merges. */
static void read_312(const char *uri, uint64_t *order,
		     struct mqblk_queue_stats *st)
{
	struct mqblk_dev *dev = open_dev(uri, 1);
	struct mqblk_queue *q = open_queue(dev);
	uint8_t *buf = aligned_alloc(4096, 8 * BS);
	static const unsigned blk[3] = { 3, 1, 2 };
	struct mqblk_rq *rqs[3];
	unsigned i;

	mqblk_plug(q);
	for (i = 0; i < 3; i++)
		submit(q, MQBLK_OP_READ, blk[i] * BS, BS, buf + i * 2 * BS);
	mqblk_unplug(q);
	reap_all(q, rqs, 3);
	for (i = 0; i < 3; i++)
		order[i] = rqs[i]->offset / BS;
	put_all(rqs, 3);
	mqblk_queue_get_stats(q, st);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	free(buf);
}

static void test_deadline_sorts_by_sector(void **state)
{
	struct mqblk_queue_stats st;
	uint64_t order[3];

	(void)state;
	read_312("null:size=1m,scheduler=mq-deadline", order, &st);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 3);
	assert_int_equal(st.sched_expired, 0);
	assert_int_equal(st.merges, 0);
	/* no scheduler: submission order */
	read_312("null:size=1m", order, &st);
	assert_int_equal(order[0], 3);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 2);
}

static void test_deadline_expired_fifo_goes_first(void **state)
{
	struct mqblk_queue_stats st;
	uint64_t order[3];

	(void)state;
	/* read_expire=0: every read has expired when a batch starts */
	read_312("null:size=1m,scheduler=mq-deadline,read_expire=0", order,
		 &st);
	assert_int_equal(order[0], 3); /* the oldest, ahead of sector 1 */
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 2);
	assert_int_equal(st.sched_expired, 2);
}

static void test_deadline_writes_starved(void **state)
{
	struct mqblk_dev *dev = open_dev(
		"null:size=1m,scheduler=mq-deadline,fifo_batch=1,writes_starved=2",
		1);
	struct mqblk_queue *q = open_queue(dev);
	uint8_t *buf = aligned_alloc(4096, 32 * BS);
	static const char want[] = "RRWRRWRR";
	struct mqblk_rq *rqs[8];
	char got[9] = { 0 };
	unsigned i;

	(void)state;
	mqblk_plug(q);
	/* the writes first: reads are still preferred, until starved */
	for (i = 0; i < 2; i++)
		submit(q, MQBLK_OP_WRITE, (20 + 2 * i) * BS, BS,
		       buf + (20 + 2 * i) * BS);
	for (i = 0; i < 6; i++)
		submit(q, MQBLK_OP_READ, 2 * i * BS, BS, buf + 2 * i * BS);
	mqblk_unplug(q);
	reap_all(q, rqs, 8);
	for (i = 0; i < 8; i++)
		got[i] = rqs[i]->op == MQBLK_OP_READ ? 'R' : 'W';
	assert_string_equal(got, want);
	put_all(rqs, 8);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	free(buf);
}

/* ---- dispatch modes ---- */

static void test_dispatch_one_pulls_one_at_a_time(void **state)
{
	struct mqblk_dev *dev = open_dev("null:size=1m,dispatch=one", 1);
	struct mqblk_queue *q = open_queue(dev);
	uint8_t *buf = aligned_alloc(4096, 16 * BS);
	struct mqblk_queue_stats st;
	struct mqblk_rq *rqs[16];
	unsigned i;

	(void)state;
	plugged(q, MQBLK_OP_WRITE, 16, 1, buf, 1, rqs);
	for (i = 0; i < 16; i++)
		assert_int_equal(rqs[i]->offset, i * BS); /* FIFO per queue */
	put_all(rqs, 16);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.dispatched, 16);
	assert_int_equal(st.dispatch_runs, 1);
	assert_int_equal(st.doorbells, 16); /* one per request */
	assert_int_equal(st.dispatch_locks, 1);
	assert_int_equal(st.dispatch_lock_contended, 0);
	assert_int_equal(st.merges, 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);

	/* batch (the default) issues the plug's list in one go */
	dev = open_dev("null:size=1m,dispatch=batch", 1);
	q = open_queue(dev);
	plugged(q, MQBLK_OP_WRITE, 16, 1, buf, 1, rqs);
	put_all(rqs, 16);
	mqblk_queue_get_stats(q, &st);
	assert_int_equal(st.dispatched, 16);
	assert_int_equal(st.dispatch_runs, 1);
	assert_int_equal(st.doorbells, 1);
	/* one submitter on its hw queue: no lock at all */
	assert_int_equal(st.dispatch_locks, 0);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	free(buf);
}

/* BUSY stops a run; the rest wait and all complete exactly once. */
static void check_busy(const char *uri)
{
	struct mqblk_dev *dev = open_dev(uri, 1);
	struct mqblk_queue *q = open_queue(dev);
	uint8_t *buf = aligned_alloc(4096, 64 * BS);
	struct mqblk_queue_stats st;
	struct mqblk_rq *rqs[32];
	char seen[32] = { 0 };
	unsigned i, round;

	for (round = 0; round < 4; round++) {
		/* every other block: nothing merges */
		plugged(q, MQBLK_OP_WRITE, 32, 2, buf, 2, rqs);
		memset(seen, 0, sizeof(seen));
		for (i = 0; i < 32; i++) {
			unsigned b = (unsigned)(rqs[i]->offset / BS / 2);

			assert_true(b < 32);
			assert_int_equal(seen[b], 0);
			seen[b] = 1;
			assert_int_equal(rqs[i]->res, BS);
		}
		put_all(rqs, 32);
	}
	mqblk_queue_get_stats(q, &st);
	assert_true(st.requeues > 0);
	/* each accepted request once; each BUSY one tried again */
	assert_int_equal(st.dispatched, 128);
	assert_true(st.dispatch_runs > 4);
	assert_int_equal(st.dispatch_locks, st.dispatch_runs);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	free(buf);
}

static void test_dispatch_one_busy_requeues(void **state)
{
	(void)state;
	check_busy("null:size=1m,dispatch=one,requeue_every=5");
	check_busy("null:size=1m,dispatch=one,requeue_every=5,irqmode=1");
	check_busy("null:size=1m,scheduler=mq-deadline,requeue_every=5");
	check_busy(
		"null:size=1m,scheduler=mq-deadline,dispatch=one,requeue_every=5");
}

/* Several submitters on one hw queue: each gets its own back. */
struct mt_arg {
	struct mqblk_dev *dev;
	unsigned idx;
	struct mqblk_queue_stats st;
	unsigned bad;
};

static void *mt_fn(void *arg)
{
	struct mt_arg *a = arg;
	struct mqblk_queue *q = NULL;
	uint8_t *buf = aligned_alloc(4096, 8 * BS);
	struct mqblk_rq *out[8];
	unsigned sent = 0, got = 0, inflight = 0;

	if (!buf || mqblk_queue_open(a->dev, &q)) {
		a->bad++;
		free(buf);
		return NULL;
	}
	while (got < 2000) {
		int i, r;

		mqblk_plug(q);
		while (sent < 2000 && inflight < 8) {
			/* block only with nothing of ours in flight (as the
			 * bench): our own reaps free the tags we wait for */
			struct mqblk_rq *rq =
				mqblk_rq_get(q, inflight ? MQBLK_RQ_NOWAIT : 0);

			if (!rq)
				break;
			rq->op = MQBLK_OP_WRITE;
			/* sequential per thread, in separate regions */
			rq->offset = (a->idx * 64 + sent % 64) * BS;
			rq->len = BS;
			rq->buf = buf + (sent % 8) * BS;
			rq->private = q;
			if (mqblk_submit(rq))
				a->bad++;
			sent++;
			inflight++;
		}
		mqblk_unplug(q);
		r = mqblk_reap(q, out, 1, 8, -1);
		for (i = 0; i < r; i++) {
			if (out[i]->private != q || out[i]->res != BS)
				a->bad++;
			mqblk_rq_put(out[i]);
		}
		got += (unsigned)r;
		inflight -= (unsigned)r;
	}
	mqblk_queue_get_stats(q, &a->st);
	mqblk_queue_close(q);
	free(buf);
	return NULL;
}

static void run_mt(const char *uri)
{
	struct mqblk_dev *dev = open_dev(uri, 3);
	struct mt_arg a[3];
	pthread_t t[3];
	uint64_t dispatched = 0;
	unsigned i;

	for (i = 0; i < 3; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].dev = dev;
		a[i].idx = i;
		assert_int_equal(pthread_create(&t[i], NULL, mt_fn, &a[i]), 0);
	}
	for (i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(a[i].bad, 0);
		assert_int_equal(a[i].st.submitted, 2000);
		assert_int_equal(a[i].st.dispatch_locks, a[i].st.dispatch_runs);
		dispatched += a[i].st.dispatched + a[i].st.merges;
	}
	/* every request reached the driver alone or inside another */
	assert_true(dispatched >= 6000);
	mqblk_dev_close(dev);
}

static void test_threads_share_one_hw_queue(void **state)
{
	(void)state;
	run_mt("null:size=1m,nr_hw_queues=1,dispatch=one");
	run_mt("null:size=1m,nr_hw_queues=1,dispatch=one,irqmode=1,"
	       "complete=remote");
	run_mt("null:size=1m,nr_hw_queues=1,scheduler=mq-deadline");
	run_mt("null:size=1m,nr_hw_queues=1,scheduler=mq-deadline,"
	       "dispatch=one,irqmode=2,completion_nsec=20000,complete=batched");
}

/* ---- shared tagsets ---- */

static void test_tagset_shared_between_devices(void **state)
{
	struct mqblk_dev *a, *b, *c = NULL;
	struct mqblk_queue *qa, *qb;
	struct mqblk_rq *rqs[8], *rb;
	static uint8_t data[BS];
	char err[256];
	unsigned i;

	(void)state;
	a = open_dev("null:size=1m,tagset=adapter0,queue_depth=8", 1);
	b = open_dev("null:size=2m,tagset=adapter0", 1);
	assert_int_equal(mqblk_dev_queue_depth(a), 8);
	assert_int_equal(mqblk_dev_queue_depth(b), 8);
	qa = open_queue(a);
	qb = open_queue(b);
	for (i = 0; i < 8; i++) {
		rqs[i] = mqblk_rq_get(qa, MQBLK_RQ_NOWAIT);
		assert_non_null(rqs[i]);
	}
	/* a holds every tag of the adapter: b gets none */
	assert_null(mqblk_rq_get(qb, MQBLK_RQ_NOWAIT));
	mqblk_rq_put(rqs[3]);
	rb = mqblk_rq_get(qb, MQBLK_RQ_NOWAIT);
	assert_non_null(rb);
	assert_null(mqblk_rq_get(qa, MQBLK_RQ_NOWAIT));
	/* I/O on both goes to its own device */
	rb->op = MQBLK_OP_READ;
	rb->offset = 1536 * 1024; /* beyond a's size */
	rb->len = BS;
	rb->buf = data;
	assert_int_equal(mqblk_submit(rb), 0);
	assert_int_equal(mqblk_reap(qb, rqs + 3, 1, 1, -1), 1);
	assert_int_equal(rqs[3]->res, BS);
	put_all(rqs, 8);

	/* another depth for the same set: refused, naming it */
	assert_int_equal(mqblk_dev_open("null:size=1m,tagset=adapter0,"
					"queue_depth=16",
					NULL, &c, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "tagset=adapter0"));
	mqblk_queue_close(qa);
	mqblk_queue_close(qb);
	mqblk_dev_close(a);
	mqblk_dev_close(b);
	/* the last close freed it: a new first opener sets the depth */
	c = open_dev("null:size=1m,tagset=adapter0,queue_depth=16", 1);
	assert_int_equal(mqblk_dev_queue_depth(c), 16);
	mqblk_dev_close(c);
}

/* Two devices on one set, I/O from one thread each, all completes. */
static void test_tagset_io_from_two_devices(void **state)
{
	struct mqblk_dev *a, *b;
	struct mt_arg x, y;
	pthread_t t[2];

	(void)state;
	a = open_dev("null:size=1m,tagset=adapter1,queue_depth=8,irqmode=1,"
		     "complete=remote",
		     1);
	b = open_dev("null:size=1m,tagset=adapter1,irqmode=1,complete=remote",
		     1);
	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	x.dev = a;
	y.dev = b;
	assert_int_equal(pthread_create(&t[0], NULL, mt_fn, &x), 0);
	assert_int_equal(pthread_create(&t[1], NULL, mt_fn, &y), 0);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	assert_int_equal(x.bad, 0);
	assert_int_equal(y.bad, 0);
	assert_int_equal(x.st.completions[MQBLK_PATH_REMOTE], 2000);
	assert_int_equal(y.st.completions[MQBLK_PATH_REMOTE], 2000);
	mqblk_dev_close(a);
	mqblk_dev_close(b);
}

/* ---- poll budget ---- */

static void test_poll_budget_hits(void **state)
{
	static const char *const uris[] = {
		"null:size=1m,irqmode=1,poll_budget=2",
		"null:size=1m,irqmode=1,poll_budget=2,complete=remote",
		"null:size=1m,irqmode=1,poll_budget=2,complete=polled",
	};
	uint8_t *buf = aligned_alloc(4096, 32 * BS);
	unsigned u;

	(void)state;
	for (u = 0; u < 3; u++) {
		struct mqblk_dev *dev = open_dev(uris[u], 1);
		struct mqblk_queue *q = open_queue(dev);
		struct mqblk_queue_stats st;
		struct mqblk_dev_stats ds;
		struct mqblk_rq *rqs[32];

		plugged(q, MQBLK_OP_READ, 32, 1, buf, 1, rqs);
		put_all(rqs, 32);
		mqblk_queue_get_stats(q, &st);
		mqblk_dev_get_stats(dev, &ds);
		assert_true(ds.poll_budget_hits > 0);
		if (u != 1) /* the submitter polled: its own count */
			assert_true(st.poll_budget_hits > 0);
		mqblk_queue_close(q);
		mqblk_dev_close(dev);
	}
	/* the default budget (the depth) is not hit by 32 of 64 */
	{
		struct mqblk_dev *dev = open_dev("null:size=1m,irqmode=1", 1);
		struct mqblk_queue *q = open_queue(dev);
		struct mqblk_dev_stats ds;
		struct mqblk_rq *rqs[32];

		plugged(q, MQBLK_OP_READ, 32, 1, buf, 1, rqs);
		put_all(rqs, 32);
		mqblk_dev_get_stats(dev, &ds);
		assert_int_equal(ds.poll_budget_hits, 0);
		mqblk_queue_close(q);
		mqblk_dev_close(dev);
	}
	free(buf);
}

/* ---- bad values ---- */

static void test_bad_values_name_the_key(void **state)
{
	static const struct {
		const char *uri, *key;
	} cases[] = {
		{ "null:scheduler=cfq", "scheduler" },
		{ "null:scheduler=", NULL }, /* not key=value at all */
		{ "null:dispatch=all", "dispatch" },
		{ "null:scheduler=mq-deadline,read_expire=soon",
		  "read_expire" },
		{ "null:scheduler=mq-deadline,write_expire=-1",
		  "write_expire" },
		{ "null:scheduler=mq-deadline,writes_starved=x",
		  "writes_starved" },
		{ "null:scheduler=mq-deadline,fifo_batch=0", "fifo_batch" },
		{ "null:scheduler=mq-deadline,front_merges=2", "front_merges" },
		{ "null:fifo_batch=4", "fifo_batch" }, /* no scheduler */
		{ "null:scheduler=none,read_expire=10", "read_expire" },
		{ "null:tagset=a/b", "tagset" },
		{ "null:poll_budget=0", "poll_budget" },
		{ "null:poll_budget=many", "poll_budget" },
		{ "null:shared_tags=2", "shared_tags" },
	};
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mqblk_dev *dev = NULL;
		char err[256] = "";
		int ret = mqblk_dev_open(cases[i].uri, NULL, &dev, err,
					 sizeof(err));

		if (ret != -EINVAL)
			fprintf(stderr, "%s: %d\n", cases[i].uri, ret);
		assert_int_equal(ret, -EINVAL);
		assert_null(strchr(err, '\n'));
		if (cases[i].key && !strstr(err, cases[i].key))
			fprintf(stderr, "%s: '%s'\n", cases[i].uri, err);
		if (cases[i].key)
			assert_non_null(strstr(err, cases[i].key));
	}
}

static void test_shared_tags_is_a_core_key(void **state)
{
	struct mqblk_dev *dev;

	(void)state;
	dev = open_dev("null:size=1m,shared_tags=1,nr_hw_queues=2", 2);
	mqblk_dev_close(dev);
	dev = open_dev("null:size=1m,shared_tags=0", 1);
	mqblk_dev_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deadline_merges_sequential_writes),
		cmocka_unit_test(test_deadline_no_front_merges),
		cmocka_unit_test(test_none_does_not_merge),
		cmocka_unit_test(test_deadline_needs_contiguous_buffers),
		cmocka_unit_test(test_deadline_merged_error_reaches_all),
		cmocka_unit_test(test_deadline_sorts_by_sector),
		cmocka_unit_test(test_deadline_expired_fifo_goes_first),
		cmocka_unit_test(test_deadline_writes_starved),
		cmocka_unit_test(test_dispatch_one_pulls_one_at_a_time),
		cmocka_unit_test(test_dispatch_one_busy_requeues),
		cmocka_unit_test(test_threads_share_one_hw_queue),
		cmocka_unit_test(test_tagset_shared_between_devices),
		cmocka_unit_test(test_tagset_io_from_two_devices),
		cmocka_unit_test(test_poll_budget_hits),
		cmocka_unit_test(test_bad_values_name_the_key),
		cmocka_unit_test(test_shared_tags_is_a_core_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
