// SPDX-License-Identifier: MIT
/*
 * The smallest mqblk program: open a memory-backed null device, write a
 * block, read it back, compare. Build, once mqblk is installed:
 * cc simple.c $(pkg-config --cflags --libs mqblk)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mqblk/mqblk.h>

int main(int argc, char **argv)
{
	const char *uri = argc > 1 ? argv[1] : "null:size=1m,memory_backed=1";
	static char wbuf[4096], rbuf[4096];
	struct mqblk_queue *q;
	struct mqblk_dev *dev;
	struct mqblk_rq *rq;
	char err[256];
	int ret;

	ret = mqblk_dev_open(uri, NULL, &dev, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "example: %s\n", err);
		return 1;
	}
	ret = mqblk_queue_open(dev, &q);
	if (ret)
		goto out_close;
	memset(wbuf, 0xa5, sizeof(wbuf));

	rq = mqblk_rq_get(q, 0);
	rq->op = MQBLK_OP_WRITE;
	rq->offset = 8192;
	rq->len = sizeof(wbuf);
	rq->buf = wbuf;
	ret = mqblk_submit(rq);
	if (!ret && mqblk_reap(q, &rq, 1, 1, -1) == 1)
		ret = rq->res < 0 ? rq->res : 0;
	mqblk_rq_put(rq);

	rq = mqblk_rq_get(q, 0);
	rq->op = MQBLK_OP_READ;
	rq->offset = 8192;
	rq->len = sizeof(rbuf);
	rq->buf = rbuf;
	if (!ret)
		ret = mqblk_submit(rq);
	if (!ret && mqblk_reap(q, &rq, 1, 1, -1) == 1)
		ret = rq->res < 0 ? rq->res : 0;
	mqblk_rq_put(rq);

	if (!ret)
		ret = memcmp(wbuf, rbuf, sizeof(wbuf)) ? -1 : 0;
	printf("%s: %s\n", uri, ret ? "FAILED" : "wrote and read back 4 KiB");
	mqblk_queue_close(q);
out_close:
	mqblk_dev_close(dev);
	return ret ? 1 : 0;
}
