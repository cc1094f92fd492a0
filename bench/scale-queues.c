// SPDX-License-Identifier: MIT
/*
 * scale-queues: how many NVMe/TCP I/O queues mqblk's host opens, how fast,
 * and what each one costs in memory (issue 7's scale bar, the nvme-tcp
 * scalability seed's subject).
 *
 *   scale-queues [-n QUEUES] [-p PER_CTRL] [-d IODEPTH] [-b BS]
 *                [-t TARGET_PID] nvme-tcp://ADDR:PORT/NQN
 *
 * Opens ceil(QUEUES / PER_CTRL) controllers of the URI (one device each,
 * nr_io_queues=PER_CTRL, the last one the rest; the target caps I/O queues
 * per controller at 128, as nvmet's default and SPDK's do), one software
 * queue per hardware queue, all on this thread, polled. Then keeps IODEPTH
 * reads of BS bytes outstanding on every queue for ROUNDS rounds, and
 * closes everything. Printed, one line of key=value:
 *
 *   connect_s     opening every controller and I/O queue (TCP connect,
 *                 ICReq/ICResp, Fabrics Connect per queue), serially
 *   teardown_s    closing them
 *   host_kib_q    this process's RSS growth per queue, idle
 *   host_kib_q_io ... with IODEPTH requests outstanding on each
 *   tgt_kib_q     the target process's (-t) RSS growth per queue, idle
 *   tgt_kib_q_io  ... at depth
 *
 * The I/O buffers are allocated and touched before the first RSS reading
 * (one BS buffer per queue, which all of that queue's reads land in: the
 * data does not matter), so the growth is the stack's own: the core's
 * requests and tags, the driver's queue state and PDU headers, the sockets'
 * user-space side, and on the target its queues, command slots and data
 * buffers. Socket buffers live in the kernel and are not in either RSS.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <mqblk/mqblk.h>

#define ROUNDS 3

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Resident set of pid (0: this process) in KiB, or -1. */
static long rss_kib(int pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static unsigned long num_arg(const char *opt, const char *s, unsigned long lo,
			     unsigned long hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "scale-queues: -%s %s: want %lu..%lu\n", opt, s,
			lo, hi);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr, "usage: scale-queues [-n QUEUES] [-p PER_CTRL] "
			"[-d IODEPTH] [-b BS] [-t TARGET_PID] "
			"nvme-tcp://ADDR:PORT/NQN\n");
	exit(2);
}

/* Keep depth reads outstanding on every queue, one round: returns the
 * number of failed requests, or -1 on a submission error. */
static long round_io(struct mqblk_queue **qs, unsigned nq, unsigned depth,
		     uint32_t bs, char *bufs, uint64_t span, int tgt_pid,
		     long *host_peak, long *tgt_peak)
{
	struct mqblk_rq *out[64];
	unsigned i, k, left = 0;
	long failed = 0;

	for (i = 0; i < nq; i++) {
		for (k = 0; k < depth; k++) {
			struct mqblk_rq *rq = mqblk_rq_get(qs[i], 0);

			rq->op = MQBLK_OP_READ;
			rq->offset = ((uint64_t)(i * depth + k) * bs) % span;
			rq->len = bs;
			rq->buf = bufs + (size_t)i * bs;
			if (mqblk_submit(rq)) {
				mqblk_rq_put(rq);
				return -1;
			}
			left++;
		}
	}
	/* every queue holds depth requests now */
	*host_peak = rss_kib(0);
	*tgt_peak = tgt_pid ? rss_kib(tgt_pid) : 0;
	while (left) {
		for (i = 0; i < nq; i++) {
			int n = mqblk_reap(qs[i], out, 1, 64, 0);

			for (k = 0; k < (unsigned)(n > 0 ? n : 0); k++) {
				if (out[k]->res != (int)bs)
					failed++;
				mqblk_rq_put(out[k]);
			}
			left -= n > 0 ? (unsigned)n : 0;
		}
	}
	return failed;
}

int main(int argc, char **argv)
{
	unsigned nqueues = 256, per = 128, depth = 128, ndev, i, j, nq = 0;
	uint32_t bs = 4096;
	int tgt_pid = 0, c;
	struct mqblk_dev **devs;
	struct mqblk_queue **qs;
	long h0, h1, hio = 0, t0 = 0, t1 = 0, tio = 0, failed = 0;
	double c0, c1, d0, d1;
	struct rlimit rl;
	uint64_t span = UINT64_MAX;
	char *bufs;

	while ((c = getopt(argc, argv, "n:p:d:b:t:h")) != -1) {
		switch (c) {
		case 'n':
			nqueues = (unsigned)num_arg("n", optarg, 1, 65536);
			break;
		case 'p':
			per = (unsigned)num_arg("p", optarg, 1, 1024);
			break;
		case 'd':
			depth = (unsigned)num_arg("d", optarg, 1, 1024);
			break;
		case 'b':
			bs = (uint32_t)num_arg("b", optarg, 512, 1 << 20);
			break;
		case 't':
			tgt_pid = (int)num_arg("t", optarg, 1, 1 << 30);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	if (strncmp(argv[optind], "nvme-tcp://", 11) ||
	    strchr(argv[optind], '?')) {
		fprintf(stderr, "scale-queues: %s: want nvme-tcp://ADDR:PORT/NQN "
				"without keys\n",
			argv[optind]);
		return 2;
	}
	/* a socket, an epoll set and an eventfd or two per queue */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 4ull * nqueues + 64)
		fprintf(stderr,
			"scale-queues: warning: %llu file descriptors may "
			"be too few for %u queues\n",
			(unsigned long long)rl.rlim_cur, nqueues);

	ndev = (nqueues + per - 1) / per;
	devs = calloc(ndev, sizeof(*devs));
	qs = calloc(nqueues, sizeof(*qs));
	bufs = aligned_alloc(4096, (size_t)nqueues * bs);
	if (!devs || !qs || !bufs) {
		fprintf(stderr, "scale-queues: out of memory\n");
		return 1;
	}
	memset(bufs, 0, (size_t)nqueues * bs);

	h0 = rss_kib(0);
	if (tgt_pid)
		t0 = rss_kib(tgt_pid);
	c0 = now_s();
	for (i = 0; i < ndev; i++) {
		unsigned k = nqueues - i * per < per ? nqueues - i * per : per;
		struct mqblk_dev_opts o;
		char uri[1024], err[256];
		int ret;

		mqblk_dev_opts_init(&o);
		o.nr_queues = k;
		o.nr_hw_queues = k;
		o.comp_policy = MQBLK_COMP_POLLED;
		o.queue_depth = depth;
		o.flags = 0;
		snprintf(uri, sizeof(uri), "%s?nr_io_queues=%u", argv[optind],
			 k);
		ret = mqblk_dev_open(uri, &o, &devs[i], err, sizeof(err));
		if (ret) {
			fprintf(stderr, "scale-queues: controller %u: %s\n", i,
				err);
			return 1;
		}
		if (mqblk_dev_nr_hw_queues(devs[i]) != k) {
			fprintf(stderr,
				"scale-queues: controller %u: %u I/O queues "
				"granted, not %u\n",
				i, mqblk_dev_nr_hw_queues(devs[i]), k);
			return 1;
		}
		if (mqblk_dev_size(devs[i]) < span)
			span = mqblk_dev_size(devs[i]);
		for (j = 0; j < k; j++) {
			ret = mqblk_queue_open(devs[i], &qs[nq]);
			if (ret) {
				fprintf(stderr,
					"scale-queues: controller %u queue "
					"%u: %s\n",
					i, j, strerror(-ret));
				return 1;
			}
			nq++;
		}
	}
	c1 = now_s();
	h1 = rss_kib(0);
	if (tgt_pid)
		t1 = rss_kib(tgt_pid);
	if (span < (uint64_t)bs) {
		fprintf(stderr, "scale-queues: namespace smaller than -b\n");
		return 1;
	}
	span -= span % bs;

	for (i = 0; i < ROUNDS; i++) {
		long r = round_io(qs, nq, depth, bs, bufs, span, tgt_pid, &hio,
				  &tio);

		if (r < 0) {
			fprintf(stderr, "scale-queues: submit failed\n");
			return 1;
		}
		failed += r;
	}

	d0 = now_s();
	for (i = 0; i < nq; i++)
		mqblk_queue_close(qs[i]);
	for (i = 0; i < ndev; i++)
		mqblk_dev_close(devs[i]);
	d1 = now_s();

	printf("scale-queues: queues=%u controllers=%u iodepth=%u bs=%u "
	       "connect_s=%.3f per_queue_ms=%.2f teardown_s=%.3f "
	       "host_kib_q=%.1f host_kib_q_io=%.1f",
	       nq, ndev, depth, bs, c1 - c0, (c1 - c0) * 1e3 / nq, d1 - d0,
	       (double)(h1 - h0) / nq, (double)(hio - h0) / nq);
	if (tgt_pid)
		printf(" tgt_kib_q=%.1f tgt_kib_q_io=%.1f",
		       (double)(t1 - t0) / nq, (double)(tio - t0) / nq);
	printf(" failed=%ld\n", failed);
	free(bufs);
	free(qs);
	free(devs);
	return failed ? 1 : 0;
}
