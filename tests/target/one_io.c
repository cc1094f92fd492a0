// SPDX-License-Identifier: MIT
/*
 * one-io: one request to a device through the public API, and what came
 * back, for tests that need a request the bench does not make (Write
 * Zeroes, FUA, a Flush alone, with the controller's write cache off).
 *
 *   one-io [--vwc-off] URI OP OFFSET LEN
 *
 * OP: read, write, write-fua, write-zeroes, write-zeroes-fua, discard,
 * flush (OFFSET and LEN are bytes; a flush ignores them). --vwc-off first
 * sends Set Features Volatile Write Cache = 0 to the device's controller.
 * Prints "OP: ok" and exits 0, or "OP: failed: ..." and exits 1; a device
 * that cannot be opened or a bad argument: exit 2.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mqblk/mqblk.h>

static const struct {
	const char *name;
	enum mqblk_op op;
	uint32_t flags;
} ops[] = {
	{ "read", MQBLK_OP_READ, 0 },
	{ "write", MQBLK_OP_WRITE, 0 },
	{ "write-fua", MQBLK_OP_WRITE, MQBLK_REQ_FUA },
	{ "write-zeroes", MQBLK_OP_WRITE_ZEROES, 0 },
	{ "write-zeroes-fua", MQBLK_OP_WRITE_ZEROES, MQBLK_REQ_FUA },
	{ "discard", MQBLK_OP_DISCARD, 0 },
	{ "flush", MQBLK_OP_FLUSH, 0 },
};

static uint64_t num(const char *what, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "one-io: %s: '%s' is not a number\n", what, s);
		exit(2);
	}
	return v;
}

/* Set Features, Volatile Write Cache (FID 06h) = 0 */
static int vwc_off(struct mqblk_dev *dev)
{
	uint8_t sqe[64] = { 0 };
	uint32_t result = 0;
	uint16_t status = 0;
	int ret;

	sqe[0] = 0x09; /* Set Features */
	sqe[40] = 0x06; /* CDW10: FID */
	ret = mqblk_dev_nvme_admin(dev, sqe, NULL, 0, false, &result, &status);
	if (ret || status) {
		fprintf(stderr, "one-io: Set Features VWC=0: %s, status 0x%x\n",
			ret ? strerror(-ret) : "sent", status);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct mqblk_dev_opts o;
	struct mqblk_queue *q;
	struct mqblk_dev *dev;
	struct mqblk_rq *rq;
	bool off = false;
	uint64_t offset, len;
	char err[256];
	void *buf = NULL;
	unsigned i;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "--vwc-off")) {
		off = true;
		argv++;
		argc--;
	}
	if (argc != 5) {
		fprintf(stderr,
			"usage: one-io [--vwc-off] URI OP OFFSET LEN\n");
		return 2;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(argv[2], ops[i].name))
			break;
	if (i == sizeof(ops) / sizeof(ops[0])) {
		fprintf(stderr, "one-io: unknown OP '%s'\n", argv[2]);
		return 2;
	}
	offset = num("OFFSET", argv[3]);
	len = num("LEN", argv[4]);
	if (len > (64u << 20)) {
		fprintf(stderr, "one-io: LEN %s is above 64 MiB\n", argv[4]);
		return 2;
	}
	mqblk_dev_opts_init(&o);
	o.nr_queues = 1;
	if (mqblk_dev_open(argv[1], &o, &dev, err, sizeof(err))) {
		fprintf(stderr, "one-io: %s\n", err);
		return 2;
	}
	if (off && vwc_off(dev)) {
		mqblk_dev_close(dev);
		return 2;
	}
	if (mqblk_queue_open(dev, &q)) {
		fprintf(stderr, "one-io: cannot open a queue\n");
		mqblk_dev_close(dev);
		return 2;
	}
	if ((ops[i].op == MQBLK_OP_READ || ops[i].op == MQBLK_OP_WRITE) &&
	    (posix_memalign(&buf, 4096, len ? len : 1) || !buf)) {
		fprintf(stderr, "one-io: out of memory\n");
		return 2;
	}
	if (buf)
		memset(buf, 0x5a, len);
	rq = mqblk_rq_get(q, 0);
	rq->op = ops[i].op;
	rq->flags = ops[i].flags;
	rq->offset = ops[i].op == MQBLK_OP_FLUSH ? 0 : offset;
	rq->len = ops[i].op == MQBLK_OP_FLUSH ? 0 : (uint32_t)len;
	rq->buf = buf;
	ret = mqblk_submit(rq);
	if (!ret && mqblk_reap(q, &rq, 1, 1, -1) == 1) {
		if (rq->res < 0 || rq->nvme_status)
			printf("%s: failed: %s, NVMe status 0x%x\n", argv[2],
			       strerror(rq->res < 0 ? -rq->res : EIO),
			       rq->nvme_status);
		else
			printf("%s: ok\n", argv[2]);
		ret = rq->res < 0 || rq->nvme_status ? 1 : 0;
	} else {
		printf("%s: failed: refused at submit: %s\n", argv[2],
		       strerror(ret ? -ret : EIO));
		ret = 1;
	}
	mqblk_rq_put(rq);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	free(buf);
	return ret;
}
