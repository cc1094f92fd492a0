/* SPDX-License-Identifier: MIT */
/*
 * What the block-API unit tests (core, null, sched, stripe, uring) all do:
 * open a device or fail to with a one-line reason, open a queue, fill a
 * request, do one I/O and wait for it, reap a number of them. Include it
 * after <cmocka.h> and <mqblk/mqblk.h>. Everything is static inline, so a
 * test program that uses only some of it still builds with -Werror.
 */
#ifndef MQBLK_TESTS_UNIT_HELPERS_H
#define MQBLK_TESTS_UNIT_HELPERS_H

#include <string.h>

/* Open with these options (NULL: the defaults); a failure fails the test
 * and prints the driver's reason. */
static inline struct mqblk_dev *open_with(const char *uri,
					  const struct mqblk_dev_opts *o)
{
	struct mqblk_dev *dev = NULL;
	char err[256] = "";
	int ret = mqblk_dev_open(uri, o, &dev, err, sizeof(err));

	if (ret)
		fail_msg("open %s: %d %s", uri, ret, err);
	assert_non_null(dev);
	return dev;
}

static inline struct mqblk_dev *open_dev(const char *uri, unsigned nr_queues)
{
	struct mqblk_dev_opts o;

	mqblk_dev_opts_init(&o);
	o.nr_queues = nr_queues;
	return open_with(uri, &o);
}

/* The open must fail with want and one line of reason holding in_msg
 * (any reason when in_msg is NULL). */
static inline void expect_open_fail(const char *uri, int want,
				    const char *in_msg)
{
	struct mqblk_dev *dev = NULL;
	char err[256] = "";
	int ret = mqblk_dev_open(uri, NULL, &dev, err, sizeof(err));

	if (!ret)
		mqblk_dev_close(dev);
	if (ret != want)
		fail_msg("%s: returned %d, want %d (%s)", uri, ret, want, err);
	if (!err[0] || strchr(err, '\n'))
		fail_msg("%s: not a one-line reason: '%s'", uri, err);
	if (in_msg && !strstr(err, in_msg))
		fail_msg("%s: message '%s' lacks '%s'", uri, err, in_msg);
}

static inline struct mqblk_queue *open_queue(struct mqblk_dev *dev)
{
	struct mqblk_queue *q = NULL;

	assert_int_equal(mqblk_queue_open(dev, &q), 0);
	assert_non_null(q);
	return q;
}

/* A request of q (waiting for a tag), filled in, not submitted. */
static inline struct mqblk_rq *get_rq(struct mqblk_queue *q, enum mqblk_op op,
				      uint64_t off, uint32_t len, void *buf)
{
	struct mqblk_rq *rq = mqblk_rq_get(q, 0);

	assert_non_null(rq);
	rq->op = op;
	rq->flags = 0;
	rq->offset = off;
	rq->len = len;
	rq->buf = buf;
	rq->private = NULL;
	return rq;
}

/* One request with these flags, submitted and waited for (it must be the
 * one reaped); returns its res, and its NVMe status in *status if asked. */
static inline int do_io_full(struct mqblk_queue *q, enum mqblk_op op,
			     uint64_t off, uint32_t len, void *buf,
			     uint32_t flags, uint16_t *status)
{
	struct mqblk_rq *rq = get_rq(q, op, off, len, buf), *out;
	int res;

	rq->flags = flags;
	assert_int_equal(mqblk_submit(rq), 0);
	assert_int_equal(mqblk_reap(q, &out, 1, 1, -1), 1);
	assert_ptr_equal(out, rq);
	res = out->res;
	if (status)
		*status = out->nvme_status;
	mqblk_rq_put(out);
	return res;
}

static inline int do_io(struct mqblk_queue *q, enum mqblk_op op, uint64_t off,
			uint32_t len, void *buf)
{
	return do_io_full(q, op, off, len, buf, 0, NULL);
}

/* Reap n requests, waiting as long as it takes; out[] in completion
 * order. */
static inline void reap_all(struct mqblk_queue *q, struct mqblk_rq **out,
			    unsigned n)
{
	unsigned got = 0;

	while (got < n) {
		int r = mqblk_reap(q, out + got, 1, n - got, -1);

		assert_true(r >= 1);
		got += (unsigned)r;
	}
}

#endif
