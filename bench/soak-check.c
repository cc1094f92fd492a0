// SPDX-License-Identifier: MIT
/*
 * soak-check: the history-checking host of bench/soak. It writes blocks
 * that each carry their generation, logs every completion, reads every
 * block back at the end and checks the history after the fact.
 *
 *   soak-check --uri=URI --seconds=S [--blocks=N] [--qd=Q] [--seed=S]
 *              --history=FILE [--status=FILE]
 *   soak-check --check=FILE
 *
 * The run keeps Q requests out on one queue of URI (a multipath device in
 * the soak): random blocks of the device's block size among the first N,
 * 70 % writes, the rest reads, never two requests on one block at once,
 * so the writes to a block are ordered: each is sent after the one before
 * it completed. A write fills its block with a header (magic, block
 * number, generation: one counter over the run, from 1) and a pattern
 * drawn from block and generation. Every completion goes to the history,
 * in completion order, one line each:
 *
 *   A BLK GEN   a write acknowledged
 *   F BLK GEN   a write that failed: it may or may not have landed
 *   R BLK GEN   a read during the run found GEN (0: the block as it was
 *               before any write, all zeros)
 *   X BLK       a read found something no write of this run made: a
 *               pattern that does not match its header (torn), another
 *               block's data (misdirected), or garbage
 *   E BLK       a read failed
 *   V BLK GEN   the final read-back (after every write completed), or
 *   V BLK X     it found no write's data (as X), or
 *   V BLK E     it failed
 *
 * The check (the same code for --check=FILE): every read returns the
 * generation of the last acknowledged write to that block, or of a write
 * that failed after it (an unacknowledged write may land). A read of an
 * older acknowledged generation, or of zeros after an acknowledgement,
 * is an acknowledged write lost; an X line, a generation never written
 * to that block, or the final read-back missing for a written block, is
 * a verify error. A request completed twice (reaped while not out) is a
 * duplicated completion.
 *
 * --status=FILE is rewritten every 200 ms (renamed into place) with the
 * completions so far and each path's state, so the soak's fault driver
 * can tell when I/O resumed and a path came back. The last line printed
 * is one of key=value figures; exit 0 when the history holds, 1 when not,
 * 2 on bad usage or a device that does not open.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mqblk/mqblk.h>

#include "soak-history.h"

#define SOAK_MAGIC 0x4b414f534b4c424dull /* "MBLKSOAK" */
#define MAX_QD 256
#define STATUS_EVERY_NS (200ull * 1000 * 1000)
#define DRAIN_NS (300ull * 1000 * 1000 * 1000)

struct hdr {
	uint64_t magic;
	uint64_t blk;
	uint64_t gen;
};

struct slot {
	struct mqblk_rq *rq;
	uint64_t blk;
	uint64_t gen; /* writes */
	uint64_t seq; /* bumped per submission: a stale completion shows */
	uint64_t start_ns;
	bool busy;
	bool write;
	bool final; /* the final read-back */
	char *buf;
};

struct run {
	struct mqblk_dev *dev;
	struct mqblk_queue *q;
	uint32_t bs;
	uint64_t nr_blocks;
	unsigned qd;
	uint64_t seed;
	FILE *hist;
	const char *status_path;
	uint8_t *blk_busy;
	struct slot slots[MAX_QD];
	unsigned inflight;
	uint64_t gen;
	uint64_t completions, errors, dups;
	uint64_t max_lat_ns, max_gap_ns;
	uint64_t last_progress_ns, last_status_ns;
};

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static uint64_t pattern_seed(uint64_t blk, uint64_t gen)
{
	uint64_t s = blk * 0x9e3779b97f4a7c15ull ^ gen * 0xc2b2ae3d27d4eb4full;

	return s ? s : 1;
}

static void fill_block(char *buf, uint32_t bs, uint64_t blk, uint64_t gen)
{
	struct hdr h = { SOAK_MAGIC, blk, gen };
	uint64_t s = pattern_seed(blk, gen), v;
	uint32_t off;

	memcpy(buf, &h, sizeof(h));
	for (off = sizeof(h); off + 8 <= bs; off += 8) {
		v = xorshift(&s);
		memcpy(buf + off, &v, 8);
	}
}

/* The generation a block read holds: 0 for all zeros, -1 for anything
 * no write of blk made. */
static int64_t block_gen(const char *buf, uint32_t bs, uint64_t blk)
{
	struct hdr h;
	uint64_t s, v;
	uint32_t off;

	memcpy(&h, buf, sizeof(h));
	if (h.magic != SOAK_MAGIC) {
		for (off = 0; off < bs; off++)
			if (buf[off])
				return -1;
		return 0;
	}
	if (h.blk != blk || !h.gen || h.gen > INT64_MAX)
		return -1;
	s = pattern_seed(blk, h.gen);
	for (off = sizeof(h); off + 8 <= bs; off += 8) {
		v = xorshift(&s);
		if (memcmp(buf + off, &v, 8))
			return -1;
	}
	return (int64_t)h.gen;
}

/* ---- the run */

static void write_status(struct run *r, uint64_t now)
{
	struct mqblk_path_stats ps[MQBLK_MAX_PATHS];
	char tmp[4096];
	int n, i;
	FILE *f;

	r->last_status_ns = now;
	if (!r->status_path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", r->status_path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "completions %" PRIu64 "\nerrors %" PRIu64 "\n",
		r->completions, r->errors);
	n = mqblk_dev_get_paths(r->dev, ps, MQBLK_MAX_PATHS);
	for (i = 0; i < n && i < MQBLK_MAX_PATHS; i++)
		fprintf(f, "path %s %s %s %" PRIu64 "\n", ps[i].name,
			ps[i].state, ps[i].ana_state, ps[i].completed);
	if (fclose(f) == 0)
		rename(tmp, r->status_path);
}

static uint64_t pick_block(struct run *r)
{
	uint64_t blk;

	do
		blk = xorshift(&r->seed) % r->nr_blocks;
	while (r->blk_busy[blk]);
	return blk;
}

static int submit_one(struct run *r, struct slot *s, uint64_t blk, bool write,
		      bool final)
{
	struct mqblk_rq *rq = mqblk_rq_get(r->q, 0);
	int ret;

	if (!rq)
		return -ENOMEM;
	s->blk = blk;
	s->write = write;
	s->final = final;
	s->seq++;
	if (write) {
		s->gen = ++r->gen;
		fill_block(s->buf, r->bs, blk, s->gen);
	}
	rq->op = write ? MQBLK_OP_WRITE : MQBLK_OP_READ;
	rq->flags = 0;
	rq->offset = blk * r->bs;
	rq->len = r->bs;
	rq->buf = s->buf;
	rq->private = s;
	s->rq = rq;
	s->busy = true;
	s->start_ns = mqblk_clock_ns();
	r->blk_busy[blk] = 1;
	if (!r->inflight)
		r->last_progress_ns = s->start_ns;
	r->inflight++;
	ret = mqblk_submit(rq);
	if (ret) {
		s->busy = false;
		r->blk_busy[blk] = 0;
		r->inflight--;
		mqblk_rq_put(rq);
	}
	return ret;
}

/* One completion: into the history; the slot freed. */
static void complete_one(struct run *r, struct mqblk_rq *rq, uint64_t now)
{
	struct slot *s = rq->private;
	uint64_t lat;
	int64_t gen;

	if (!s || s < r->slots || s >= r->slots + MAX_QD || !s->busy ||
	    s->rq != rq) {
		r->dups++;
		return;
	}
	s->busy = false;
	r->inflight--;
	r->completions++;
	r->blk_busy[s->blk] = 0;
	lat = now - s->start_ns;
	if (lat > r->max_lat_ns)
		r->max_lat_ns = lat;
	if (rq->res < 0 && r->errors++ < 10)
		fprintf(stderr,
			"soak-check: %s of block %" PRIu64
			" failed: %s (NVMe status 0x%x) after %" PRIu64 " ms\n",
			s->write ? "write" : "read", s->blk, strerror(-rq->res),
			rq->nvme_status, lat / 1000000);
	if (s->write) {
		fprintf(r->hist, "%c %" PRIu64 " %" PRIu64 "\n",
			rq->res < 0 ? 'F' : 'A', s->blk, s->gen);
	} else if (rq->res < 0) {
		if (s->final)
			fprintf(r->hist, "V %" PRIu64 " E\n", s->blk);
		else
			fprintf(r->hist, "E %" PRIu64 "\n", s->blk);
	} else {
		gen = block_gen(s->buf, r->bs, s->blk);
		if (gen < 0)
			fprintf(r->hist, "%s %" PRIu64 "%s\n",
				s->final ? "V" : "X", s->blk,
				s->final ? " X" : "");
		else
			fprintf(r->hist, "%c %" PRIu64 " %" PRId64 "\n",
				s->final ? 'V' : 'R', s->blk, gen);
	}
	rq->private = NULL;
	mqblk_rq_put(rq);
}

/* Reap what completed (waiting up to wait_ns for one); 0 or -errno. */
static int reap(struct run *r, int64_t wait_ns)
{
	struct mqblk_rq *out[MAX_QD];
	uint64_t now;
	int n, i;

	n = mqblk_reap(r->q, out, 1, MAX_QD, wait_ns);
	if (n < 0)
		return n;
	now = mqblk_clock_ns();
	if (n > 0 || !r->inflight) {
		if (r->inflight && now - r->last_progress_ns > r->max_gap_ns)
			r->max_gap_ns = now - r->last_progress_ns;
		r->last_progress_ns = now;
	} else if (now - r->last_progress_ns > r->max_gap_ns) {
		r->max_gap_ns = now - r->last_progress_ns;
	}
	for (i = 0; i < n; i++)
		complete_one(r, out[i], now);
	if (now - r->last_status_ns >= STATUS_EVERY_NS)
		write_status(r, now);
	return 0;
}

static struct slot *free_slot(struct run *r)
{
	unsigned i;

	for (i = 0; i < r->qd; i++)
		if (!r->slots[i].busy)
			return &r->slots[i];
	return NULL;
}

static int drain(struct run *r)
{
	uint64_t until = mqblk_clock_ns() + DRAIN_NS;
	int ret;

	while (r->inflight) {
		if (mqblk_clock_ns() > until) {
			fprintf(stderr,
				"soak-check: %u requests still out after %llu s: failing them\n",
				r->inflight,
				(unsigned long long)(DRAIN_NS / 1000000000ull));
			mqblk_queue_fail_held(r->q, -ETIMEDOUT);
			until = UINT64_MAX;
		}
		ret = reap(r, 100 * 1000 * 1000);
		if (ret)
			return ret;
	}
	return 0;
}

static int run_workload(struct run *r, uint64_t seconds)
{
	uint64_t end = mqblk_clock_ns() + seconds * 1000000000ull, blk;
	struct slot *s;
	int ret;

	r->last_progress_ns = mqblk_clock_ns();
	while (mqblk_clock_ns() < end) {
		while ((s = free_slot(r))) {
			bool write = xorshift(&r->seed) % 10 < 7;

			ret = submit_one(r, s, pick_block(r), write, false);
			if (ret) {
				fprintf(stderr, "soak-check: submit: %s\n",
					strerror(-ret));
				return ret;
			}
		}
		ret = reap(r, 100 * 1000 * 1000);
		if (ret)
			return ret;
	}
	ret = drain(r);
	if (ret)
		return ret;
	/* the final read-back of every block */
	for (blk = 0; blk < r->nr_blocks; blk++) {
		while (!(s = free_slot(r))) {
			ret = reap(r, 100 * 1000 * 1000);
			if (ret)
				return ret;
		}
		ret = submit_one(r, s, blk, false, true);
		if (ret)
			return ret;
	}
	return drain(r);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: soak-check --uri=URI --seconds=S --history=FILE [--blocks=N] [--qd=Q] [--seed=S] [--status=FILE]\n"
		"       soak-check --check=FILE\n");
}

/* A whole number in [min, max] or exit 2 naming the option. */
static uint64_t num_arg(const char *name, const char *s, uint64_t min,
			uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > max) {
		fprintf(stderr,
			"soak-check: --%s=%s: not a whole number in %llu..%llu\n",
			name, s, (unsigned long long)min,
			(unsigned long long)max);
		exit(2);
	}
	return v;
}

static int print_check(const char *path)
{
	struct soak_history cr;
	FILE *f = fopen(path, "r");
	int ret;

	if (!f) {
		fprintf(stderr, "soak-check: %s: %s\n", path, strerror(errno));
		return 2;
	}
	ret = soak_history_check(f, path, &cr);
	fclose(f);
	if (ret)
		return 2;
	printf("history: events=%" PRIu64 " writes_acked=%" PRIu64
	       " writes_failed=%" PRIu64 " reads=%" PRIu64
	       " read_errors=%" PRIu64 " final_reads=%" PRIu64 " lost=%" PRIu64
	       " verify_errors=%" PRIu64 "\n",
	       cr.events, cr.acked, cr.failed, cr.reads, cr.read_errors,
	       cr.finals, cr.lost, cr.verify_errors);
	return cr.lost || cr.verify_errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "uri", required_argument, NULL, 'u' },
		{ "seconds", required_argument, NULL, 't' },
		{ "blocks", required_argument, NULL, 'n' },
		{ "qd", required_argument, NULL, 'q' },
		{ "seed", required_argument, NULL, 's' },
		{ "history", required_argument, NULL, 'h' },
		{ "status", required_argument, NULL, 'S' },
		{ "check", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *uri = NULL, *hist = NULL, *check = NULL;
	uint64_t seconds = 0, blocks = 4096;
	struct mqblk_dev_opts opts;
	struct run r = { .qd = 16, .seed = 1 };
	char err[512];
	unsigned i;
	int c, ret, rc;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'u':
			uri = optarg;
			break;
		case 't':
			seconds = num_arg("seconds", optarg, 1, 86400);
			break;
		case 'n':
			blocks = num_arg("blocks", optarg, 1, SOAK_MAX_BLOCKS);
			break;
		case 'q':
			r.qd = (unsigned)num_arg("qd", optarg, 1, MAX_QD);
			break;
		case 's':
			r.seed = num_arg("seed", optarg, 0, UINT64_MAX);
			break;
		case 'h':
			hist = optarg;
			break;
		case 'S':
			r.status_path = optarg;
			break;
		case 'c':
			check = optarg;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "soak-check: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	if (check) {
		if (uri || hist) {
			fprintf(stderr,
				"soak-check: --check takes no --uri or --history\n");
			return 2;
		}
		return print_check(check);
	}
	if (!uri || !hist || !seconds) {
		usage();
		return 2;
	}
	if (blocks < r.qd) {
		fprintf(stderr,
			"soak-check: --blocks=%" PRIu64
			" is fewer than --qd=%u\n",
			blocks, r.qd);
		return 2;
	}
	/* a zero seed would stick xorshift at zero */
	r.seed = pattern_seed(r.seed, 1);
	mqblk_dev_opts_init(&opts);
	opts.queue_depth = r.qd;
	ret = mqblk_dev_open(uri, &opts, &r.dev, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "soak-check: %s\n", err);
		return 2;
	}
	r.bs = mqblk_dev_block_size(r.dev);
	if (r.bs < 512)
		r.bs = 512;
	r.nr_blocks = mqblk_dev_size(r.dev) / r.bs;
	if (r.nr_blocks > blocks)
		r.nr_blocks = blocks;
	if (r.nr_blocks < r.qd) {
		fprintf(stderr, "soak-check: %s: too small for --qd=%u\n", uri,
			r.qd);
		rc = 2;
		goto out_close;
	}
	r.hist = fopen(hist, "w");
	r.blk_busy = calloc(r.nr_blocks, 1);
	if (!r.hist || !r.blk_busy) {
		fprintf(stderr, "soak-check: %s: %s\n", hist,
			strerror(r.hist ? ENOMEM : errno));
		rc = 2;
		goto out_close;
	}
	for (i = 0; i < r.qd; i++) {
		if (posix_memalign((void **)&r.slots[i].buf, 4096, r.bs)) {
			fprintf(stderr, "soak-check: out of memory\n");
			rc = 2;
			goto out_close;
		}
	}
	ret = mqblk_queue_open(r.dev, &r.q);
	if (ret) {
		fprintf(stderr, "soak-check: queue: %s\n", strerror(-ret));
		rc = 2;
		goto out_close;
	}
	ret = run_workload(&r, seconds);
	write_status(&r, mqblk_clock_ns());
	mqblk_queue_close(r.q);
	if (fclose(r.hist) || ret) {
		r.hist = NULL;
		fprintf(stderr, "soak-check: run: %s\n",
			strerror(ret ? -ret : errno));
		rc = 2;
		goto out_close;
	}
	r.hist = NULL;
	rc = print_check(hist);
	printf("run: completions=%" PRIu64 " errors=%" PRIu64
	       " dup_completions=%" PRIu64 " max_request_ms=%" PRIu64
	       " max_no_progress_ms=%" PRIu64 "\n",
	       r.completions, r.errors, r.dups, r.max_lat_ns / 1000000,
	       r.max_gap_ns / 1000000);
	if (r.dups)
		rc = 1;
out_close:
	if (r.hist)
		fclose(r.hist);
	for (i = 0; i < MAX_QD; i++)
		free(r.slots[i].buf);
	free(r.blk_busy);
	mqblk_dev_close(r.dev);
	return rc;
}
