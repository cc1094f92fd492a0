// SPDX-License-Identifier: MIT
/*
 * crash-check: the host side of bench/crash. Writes self-describing blocks
 * to a device (an NVMe/TCP namespace of the target under test) and logs
 * every acknowledgement; after the target crashed and came back, reads the
 * device and checks what it holds against that log.
 *
 *   crash-check init   DIR SLOTS [SEED]
 *   crash-check write  DIR URI [--seed=S] [--qd=N] [--flush-every=N]
 *                      [--fua-every=N] [--seconds=N]
 *   crash-check verify DIR URI [--all-durable]
 *
 * The device is SLOTS slots of 4 KiB; each write is one whole slot. Every
 * 512-byte sector of a slot (the namespace's logical block: a file-backed
 * namespace has 512-byte LBAs, and the target reports no atomic write unit
 * beyond one LBA) carries a header — magic, run id, slot, sector index,
 * generation — and a CRC32C over the whole sector, so each sector read
 * back names the one write it came from, or is all zeros (never written),
 * or is neither (torn or foreign data: a violation). A slot's generations
 * only grow, and a slot has at most one write in flight, so the one write
 * a slot may have had unacknowledged is the one after its last
 * acknowledged generation.
 *
 * DIR holds `state` (the run id, each sector's generation as the last
 * verify read it, and per slot the highest generation a write may have
 * carried so far) and `log`, the history: one 16-byte record per
 * acknowledged write (slot, generation, FUA or not), per Flush sent (how
 * many acknowledgements the writer had seen when it sent it) and per Flush
 * acknowledged. The log is appended to by write and only read by verify,
 * which checks the records since the last verify (one crash's epoch):
 *
 *   durable  a write acknowledged with FUA, or acknowledged before a Flush
 *            was sent that was itself acknowledged, must read back, or a
 *            later write to the slot: reading an older generation is an
 *            acknowledged write lost;
 *   written  every sector holds a generation some write to the slot may
 *            have carried (or, with no durable write in the epoch, what
 *            the last verify read): anything else was never written;
 *   whole    every sector is one write's, header and CRC intact.
 *
 * With --all-durable every acknowledged write is durable (a device with no
 * volatile write cache: each write is on stable media when acknowledged).
 * verify prints one line of counts (lost: sectors that lost a durable
 * write, lost_writes: the blocks they are in, one durable write each) and
 * exits 1 when a rule was broken.
 * Then it sends a Flush (what it read is the next epoch's baseline) and
 * rewrites `state`. write stops at its first failed request (the target
 * went away), or after --seconds; what completes after that still counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mqblk/mqblk.h>

#define SLOT_SIZE 4096u
#define SECTOR 512u
#define SECTORS (SLOT_SIZE / SECTOR)
#define MAGIC 0x4d514352u /* "MQCR" */
#define STATE_MAGIC 0x4d514353u
#define MAX_QD 256u
#define READ_SLOTS 64u /* slots per read request in verify */

/* the sector header; the rest of the sector is a pattern of (run, slot,
 * gen, sector) */
#define H_MAGIC 0
#define H_SECTOR 4
#define H_RUN 8
#define H_SLOT 16
#define H_GEN 24
#define H_CRC 28
#define H_END 32

enum rec_type { REC_WRITE = 1, REC_FLUSH_SENT = 2, REC_FLUSH_DONE = 3 };

/* one log record, 16 bytes, host byte order (the log never leaves DIR) */
struct rec {
	uint8_t type;
	uint8_t fua;
	uint16_t pad;
	uint32_t gen;
	uint64_t arg; /* WRITE: slot; FLUSH_SENT: acknowledgements seen */
};
_Static_assert(sizeof(struct rec) == 16, "log record size");

struct state {
	uint64_t run;
	uint64_t nslots;
	uint64_t log_off; /* where the current epoch's records begin */
	uint64_t epoch;
	uint32_t *base; /* [nslots * SECTORS] generation read by the last verify */
	uint32_t *floor; /* [nslots] highest generation a write may have had */
};

static void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "crash-check: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* ---- CRC32C (Castagnoli, reflected), table built on first use ---------- */

static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static uint32_t sector_crc(const uint8_t *s)
{
	uint32_t c = crc32c(0, s, H_CRC);

	return crc32c(c, s + H_END, SECTOR - H_END);
}

/* ---- Sectors ----------------------------------------------------------- */

static inline void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void fill_slot(uint8_t *buf, uint64_t run, uint64_t slot, uint32_t gen)
{
	for (uint32_t s = 0; s < SECTORS; s++) {
		uint8_t *p = buf + s * SECTOR;
		uint64_t x =
			mix64(run ^ (slot << 20) ^ ((uint64_t)gen << 3) ^ s);

		put32(p + H_MAGIC, MAGIC);
		put32(p + H_SECTOR, s);
		put64(p + H_RUN, run);
		put64(p + H_SLOT, slot);
		put32(p + H_GEN, gen);
		for (uint32_t o = H_END; o < SECTOR; o += 8) {
			x = mix64(x + 0x9e3779b97f4a7c15ull);
			put64(p + o, x);
		}
		put32(p + H_CRC, sector_crc(p));
	}
}

/* A sector read back: 0 and *gen set (0 for all zeros), or -1 (not one
 * whole write of this slot: torn, foreign or corrupt). */
static int parse_sector(const uint8_t *p, uint64_t run, uint64_t slot,
			uint32_t idx, uint32_t *gen)
{
	static const uint8_t zero[SECTOR];

	if (!memcmp(p, zero, SECTOR)) {
		*gen = 0;
		return 0;
	}
	if (get32(p + H_MAGIC) != MAGIC || get32(p + H_SECTOR) != idx ||
	    get64(p + H_RUN) != run || get64(p + H_SLOT) != slot ||
	    get32(p + H_CRC) != sector_crc(p) || !get32(p + H_GEN))
		return -1;
	*gen = get32(p + H_GEN);
	return 0;
}

/* ---- State and log ---------------------------------------------------- */

static char *path_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (!p)
		die("%s", "out of memory");
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static void write_all(int fd, const void *buf, size_t len, const char *what)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("writing %s failed", what);
		p += n;
		len -= (size_t)n;
	}
}

static void state_save(const char *dir, const struct state *st)
{
	char *path = path_in(dir, "state"), *tmp = path_in(dir, "state.new");
	uint64_t hdr[6] = { STATE_MAGIC, st->run,   st->nslots,
			    st->log_off, st->epoch, 0 };
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		die("cannot create %s", tmp);
	write_all(fd, hdr, sizeof(hdr), tmp);
	write_all(fd, st->base, st->nslots * SECTORS * sizeof(*st->base), tmp);
	write_all(fd, st->floor, st->nslots * sizeof(*st->floor), tmp);
	if (fsync(fd) || close(fd) || rename(tmp, path))
		die("cannot save %s", path);
	free(path);
	free(tmp);
}

static void state_alloc(struct state *st)
{
	st->base = calloc(st->nslots * SECTORS, sizeof(*st->base));
	st->floor = calloc(st->nslots, sizeof(*st->floor));
	if (!st->base || !st->floor)
		die("%s", "out of memory");
}

static void state_load(const char *dir, struct state *st)
{
	char *path = path_in(dir, "state");
	uint64_t hdr[6];
	FILE *f = fopen(path, "rb");

	if (!f)
		die("%s: no state (run crash-check init first)", path);
	if (fread(hdr, sizeof(hdr), 1, f) != 1 || hdr[0] != STATE_MAGIC ||
	    !hdr[2] || hdr[2] > (1ull << 24))
		die("%s: not a crash-check state file", path);
	st->run = hdr[1];
	st->nslots = hdr[2];
	st->log_off = hdr[3];
	st->epoch = hdr[4];
	state_alloc(st);
	if (fread(st->base, sizeof(*st->base), st->nslots * SECTORS, f) !=
		    st->nslots * SECTORS ||
	    fread(st->floor, sizeof(*st->floor), st->nslots, f) != st->nslots)
		die("%s: truncated", path);
	fclose(f);
	free(path);
}

static unsigned long num_arg(const char *what, const char *s, unsigned long lo,
			     unsigned long hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi || *s == '-') {
		fprintf(stderr,
			"crash-check: %s: '%s' is not a number in %lu..%lu\n",
			what, s, lo, hi);
		exit(2);
	}
	return v;
}

/* ---- init ------------------------------------------------------------------- */

static int cmd_init(int argc, char **argv)
{
	struct state st = { 0 };
	char *log;
	int fd;

	if (argc < 2 || argc > 3)
		die("%s", "usage: crash-check init DIR SLOTS [SEED]");
	st.nslots = num_arg("SLOTS", argv[1], 1, 1ul << 24);
	st.run = mix64(argc > 2 ? num_arg("SEED", argv[2], 0, ~0ul) :
				  (uint64_t)time(NULL) ^ (uint64_t)getpid());
	state_alloc(&st);
	log = path_in(argv[0], "log");
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("cannot create %s", log);
	close(fd);
	state_save(argv[0], &st);
	free(log);
	free(st.base);
	free(st.floor);
	return 0;
}

/* ---- write ------------------------------------------------------------------- */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

struct writer {
	struct state st;
	int log_fd;
	struct rec *recs;
	size_t nrecs, cap;
	uint64_t acks; /* writes acknowledged (REC_WRITE logged) */
};

static void log_rec(struct writer *w, uint8_t type, uint8_t fua, uint32_t gen,
		    uint64_t arg)
{
	if (w->nrecs == w->cap) {
		write_all(w->log_fd, w->recs, w->nrecs * sizeof(*w->recs),
			  "log");
		w->nrecs = 0;
	}
	w->recs[w->nrecs++] = (struct rec){
		.type = type, .fua = fua, .gen = gen, .arg = arg
	};
}

static void log_sync(struct writer *w)
{
	write_all(w->log_fd, w->recs, w->nrecs * sizeof(*w->recs), "log");
	w->nrecs = 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct mqblk_dev *open_dev(const char *uri, uint64_t nslots)
{
	struct mqblk_dev_opts o;
	struct mqblk_dev *dev;
	char err[256];

	mqblk_dev_opts_init(&o);
	o.nr_queues = 1;
	if (mqblk_dev_open(uri, &o, &dev, err, sizeof(err))) {
		fprintf(stderr, "crash-check: %s\n", err);
		exit(3); /* the target is not there: not a verdict */
	}
	if (mqblk_dev_size(dev) < nslots * SLOT_SIZE) {
		fprintf(stderr,
			"crash-check: %s: %" PRIu64 " bytes, %" PRIu64
			" slots need %" PRIu64 "\n",
			uri, mqblk_dev_size(dev), nslots,
			nslots * (uint64_t)SLOT_SIZE);
		exit(2);
	}
	if (SECTOR % mqblk_dev_block_size(dev)) {
		fprintf(stderr,
			"crash-check: %s: %u-byte blocks; the check "
			"needs 512-byte logical blocks\n",
			uri, mqblk_dev_block_size(dev));
		exit(2);
	}
	return dev;
}

static int cmd_write(int argc, char **argv)
{
	unsigned long qd = 32, flush_every = 64, fua_every = 8, seconds = 60;
	uint64_t seed = 1, rnd, deadline, submitted = 0, fua = 0, flushes = 0;
	uint64_t flushes_done = 0, failed = 0, stop_at = 0;
	struct writer w = { 0 };
	struct mqblk_queue *q;
	struct mqblk_dev *dev;
	struct mqblk_rq *done[MAX_QD + 1];
	uint8_t *bufs, *busy;
	uint32_t *cur;
	unsigned inflight = 0, free_buf[MAX_QD], nfree = 0;
	bool flush_out = false, stopping = false;
	const char *dir, *uri;
	char *log;

	if (argc < 2)
		die("%s",
		    "usage: crash-check write DIR URI [--seed=S] [--qd=N] "
		    "[--flush-every=N] [--fua-every=N] [--seconds=N]");
	dir = argv[0];
	uri = argv[1];
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "--seed=", 7))
			seed = num_arg("--seed", a + 7, 0, ~0ul);
		else if (!strncmp(a, "--qd=", 5))
			qd = num_arg("--qd", a + 5, 1, MAX_QD);
		else if (!strncmp(a, "--flush-every=", 14))
			flush_every =
				num_arg("--flush-every", a + 14, 1, 1ul << 30);
		else if (!strncmp(a, "--fua-every=", 12))
			fua_every =
				num_arg("--fua-every", a + 12, 0, 1ul << 30);
		else if (!strncmp(a, "--seconds=", 10))
			seconds = num_arg("--seconds", a + 10, 1, 86400);
		else
			die("write: unknown option '%s'", a);
	}
	state_load(dir, &w.st);
	if (qd > w.st.nslots)
		qd = w.st.nslots;
	log = path_in(dir, "log");
	w.log_fd = open(log, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (w.log_fd < 0)
		die("cannot open %s", log);
	w.cap = 4096;
	w.recs = malloc(w.cap * sizeof(*w.recs));
	cur = calloc(w.st.nslots, sizeof(*cur));
	busy = calloc(w.st.nslots, 1);
	if (!w.recs || !cur || !busy ||
	    posix_memalign((void **)&bufs, 4096, (size_t)qd * SLOT_SIZE))
		die("%s", "out of memory");
	for (uint64_t s = 0; s < w.st.nslots; s++)
		cur[s] = w.st.floor[s];
	for (unsigned i = 0; i < qd; i++)
		free_buf[nfree++] = i;
	rnd = mix64(seed ^ w.st.run ^ w.st.epoch);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	dev = open_dev(uri, w.st.nslots);
	if (mqblk_queue_open(dev, &q))
		die("%s", "cannot open a queue");
	deadline = now_ns() + seconds * 1000000000ull;

	while (!stopping || inflight) {
		struct mqblk_rq *rq;
		int n;

		if (!stopping && (stop_signal || now_ns() > deadline)) {
			stopping = true;
			deadline = now_ns();
		}
		if (stopping && !stop_at) {
			stop_at = now_ns();
		} else if (stop_at && now_ns() - stop_at > 60000000000ull) {
			fprintf(stderr,
				"crash-check: %u requests still out "
				"60 s after the first failure\n",
				inflight);
			exit(3);
		}
		while (!stopping && nfree) {
			uint64_t slot;
			unsigned b;

			do {
				rnd = mix64(rnd + 0x9e3779b97f4a7c15ull);
				slot = rnd % w.st.nslots;
			} while (busy[slot]);
			rq = mqblk_rq_get(q, MQBLK_RQ_NOWAIT);
			if (!rq)
				break;
			b = free_buf[--nfree];
			busy[slot] = 1;
			fill_slot(bufs + (size_t)b * SLOT_SIZE, w.st.run, slot,
				  ++cur[slot]);
			rq->op = MQBLK_OP_WRITE;
			rq->flags = fua_every && (rnd >> 40) % fua_every == 0 ?
					    MQBLK_REQ_FUA :
					    0;
			rq->offset = slot * SLOT_SIZE;
			rq->len = SLOT_SIZE;
			rq->buf = bufs + (size_t)b * SLOT_SIZE;
			rq->private = (void *)(uintptr_t)b;
			fua += rq->flags != 0;
			if (mqblk_submit(rq)) {
				mqblk_rq_put(rq);
				die("%s", "a write was refused at submit");
			}
			submitted++;
			inflight++;
			if (!flush_out && submitted % flush_every == 0) {
				struct mqblk_rq *f =
					mqblk_rq_get(q, MQBLK_RQ_NOWAIT);

				if (f) {
					f->op = MQBLK_OP_FLUSH;
					f->flags = 0;
					f->offset = 0;
					f->len = 0;
					f->buf = NULL;
					f->private = NULL;
					/* covers what was acknowledged so far */
					log_rec(&w, REC_FLUSH_SENT, 0, 0,
						w.acks);
					if (mqblk_submit(f)) {
						mqblk_rq_put(f);
						die("%s", "a flush was refused "
							  "at submit");
					}
					flush_out = true;
					flushes++;
					inflight++;
				}
			}
		}
		n = mqblk_reap(q, done, 1, MAX_QD + 1, 200 * 1000 * 1000);
		if (n < 0)
			die("%s", "reap failed");
		for (int i = 0; i < n; i++) {
			rq = done[i];
			inflight--;
			if (rq->op == MQBLK_OP_FLUSH) {
				flush_out = false;
				if (rq->res >= 0 && !rq->nvme_status) {
					log_rec(&w, REC_FLUSH_DONE, 0, 0, 0);
					log_sync(&w);
					flushes_done++;
				} else {
					failed++;
					stopping = true;
				}
			} else {
				unsigned b = (unsigned)(uintptr_t)rq->private;
				uint64_t slot = rq->offset / SLOT_SIZE;

				if (rq->res == (int)rq->len &&
				    !rq->nvme_status) {
					log_rec(&w, REC_WRITE,
						rq->flags & MQBLK_REQ_FUA,
						cur[slot], slot);
					w.acks++;
				} else {
					failed++;
					stopping = true;
				}
				busy[slot] = 0;
				free_buf[nfree++] = b;
			}
			mqblk_rq_put(rq);
		}
		/* the controller is gone and being reconnected: what it
		 * holds will not be acknowledged by this target any more */
		if (stopping && inflight && n == 0)
			mqblk_queue_fail_held(q, -ETIMEDOUT);
	}
	log_sync(&w);
	close(w.log_fd);
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	printf("acked=%" PRIu64 " submitted=%" PRIu64 " fua=%" PRIu64
	       " flushes=%" PRIu64 " flushes_acked=%" PRIu64 " failed=%" PRIu64
	       "\n",
	       w.acks, submitted, fua, flushes, flushes_done, failed);
	free(bufs);
	free(busy);
	free(cur);
	free(w.recs);
	free(w.st.base);
	free(w.st.floor);
	free(log);
	return 0;
}

/* ---- verify ------------------------------------------------------------------ */

struct slot_hist {
	uint32_t acked; /* highest generation acknowledged this epoch, 0 none */
	uint32_t durable; /* highest generation made durable this epoch */
};

/* The epoch's history, per slot. */
static struct slot_hist *replay(const char *dir, const struct state *st,
				bool all_durable, uint64_t *nacked,
				uint64_t *ndurable, uint64_t *log_end)
{
	struct slot_hist *h = calloc(st->nslots, sizeof(*h));
	char *path = path_in(dir, "log");
	struct rec *w = NULL;
	size_t nw = 0, capw = 0, covered = 0;
	uint64_t sent = 0;
	bool flush_out = false;
	struct rec r;
	FILE *f = fopen(path, "rb");

	if (!h)
		die("%s", "out of memory");
	if (!f || fseek(f, (long)st->log_off, SEEK_SET))
		die("cannot read %s", path);
	*nacked = *ndurable = 0;
	while (fread(&r, sizeof(r), 1, f) == 1) {
		switch (r.type) {
		case REC_WRITE:
			if (r.arg >= st->nslots || r.gen <= st->floor[r.arg] ||
			    r.gen <= h[r.arg].acked)
				die("%s: a write record out of order", path);
			if (nw == capw) {
				capw = capw ? capw * 2 : 65536;
				w = realloc(w, capw * sizeof(*w));
				if (!w)
					die("%s", "out of memory");
			}
			w[nw++] = r;
			h[r.arg].acked = r.gen;
			if (r.fua || all_durable)
				h[r.arg].durable = r.gen;
			(*nacked)++;
			break;
		case REC_FLUSH_SENT:
			if (flush_out || r.arg > nw)
				die("%s: a flush record out of order", path);
			flush_out = true;
			sent = r.arg;
			break;
		case REC_FLUSH_DONE:
			if (!flush_out)
				die("%s: a flush completion without a flush",
				    path);
			flush_out = false;
			/* everything acknowledged before the Flush went out */
			for (; covered < sent; covered++) {
				struct slot_hist *s = &h[w[covered].arg];

				if (w[covered].gen > s->durable)
					s->durable = w[covered].gen;
			}
			break;
		default:
			die("%s: a record of unknown type", path);
		}
	}
	/* a torn last record (a writer killed mid-write) is left out */
	*log_end = (uint64_t)ftell(f);
	*log_end -= (*log_end - st->log_off) % sizeof(struct rec);
	for (size_t i = 0; i < nw; i++)
		*ndurable += w[i].gen <= h[w[i].arg].durable;
	fclose(f);
	free(w);
	free(path);
	return h;
}

static int do_flush(struct mqblk_queue *q)
{
	struct mqblk_rq *rq = mqblk_rq_get(q, 0);
	int ret;

	rq->op = MQBLK_OP_FLUSH;
	rq->flags = 0;
	rq->offset = 0;
	rq->len = 0;
	rq->buf = NULL;
	ret = mqblk_submit(rq);
	if (!ret && mqblk_reap(q, &rq, 1, 1, -1) == 1)
		ret = rq->res < 0 ? rq->res : rq->nvme_status ? -EIO : 0;
	mqblk_rq_put(rq);
	return ret;
}

static int cmd_verify(int argc, char **argv)
{
	uint64_t nacked, ndurable, log_end, lost = 0, never = 0, torn = 0;
	uint64_t torn4k = 0, old = 0, newer = 0, sectors = 0, shown = 0;
	uint64_t per_read, lost_writes = 0;
	bool all_durable = false;
	struct state st;
	struct slot_hist *h;
	struct mqblk_queue *q;
	struct mqblk_dev *dev;
	uint8_t *buf;
	const char *dir;
	int ret;

	if (argc == 3 && !strcmp(argv[2], "--all-durable"))
		all_durable = true;
	else if (argc != 2)
		die("%s", "usage: crash-check verify DIR URI [--all-durable]");
	dir = argv[0];
	state_load(dir, &st);
	h = replay(dir, &st, all_durable, &nacked, &ndurable, &log_end);
	dev = open_dev(argv[1], st.nslots);
	if (mqblk_queue_open(dev, &q))
		die("%s", "cannot open a queue");
	if (posix_memalign((void **)&buf, 4096, READ_SLOTS * SLOT_SIZE))
		die("%s", "out of memory");

	per_read = mqblk_dev_max_transfer(dev) / SLOT_SIZE;
	if (!per_read || per_read > READ_SLOTS)
		per_read = READ_SLOTS;
	for (uint64_t first = 0; first < st.nslots; first += per_read) {
		uint64_t n = st.nslots - first < per_read ? st.nslots - first :
							    per_read;
		struct mqblk_rq *rq = mqblk_rq_get(q, 0);

		rq->op = MQBLK_OP_READ;
		rq->flags = 0;
		rq->offset = first * SLOT_SIZE;
		rq->len = (uint32_t)(n * SLOT_SIZE);
		rq->buf = buf;
		ret = mqblk_submit(rq);
		if (!ret && mqblk_reap(q, &rq, 1, 1, -1) == 1)
			ret = rq->res < 0     ? rq->res :
			      rq->nvme_status ? -EIO :
						0;
		mqblk_rq_put(rq);
		if (ret) {
			fprintf(stderr,
				"crash-check: read at slot %" PRIu64
				" failed: %s\n",
				first, strerror(-ret));
			exit(3);
		}
		for (uint64_t k = 0; k < n; k++) {
			uint64_t slot = first + k;
			const struct slot_hist *s = &h[slot];
			uint32_t fl = st.floor[slot];
			/* the one write that may have gone unacknowledged */
			uint32_t hi = (s->acked ? s->acked : fl) + 1;
			uint32_t g, g0 = 0, maxg = 0;
			uint64_t lost0 = lost;
			bool mixed = false;

			for (uint32_t i = 0; i < SECTORS; i++) {
				const uint8_t *p =
					buf + (k * SECTORS + i) * SECTOR;
				uint32_t *base = &st.base[slot * SECTORS + i];
				const char *bad = NULL;

				sectors++;
				if (parse_sector(p, st.run, slot, i, &g)) {
					torn++;
					bad = "torn or foreign data";
					g = 0;
				} else if (s->durable && g < s->durable) {
					lost++;
					bad = "acknowledged write lost";
				} else if (!s->durable && g != *base &&
					   (g <= fl || g > hi)) {
					if (g < *base) {
						lost++;
						bad = "acknowledged write lost";
					} else {
						never++;
						bad = "never written";
					}
				} else if (s->durable && g > hi) {
					never++;
					bad = "never written";
				}
				if (bad && shown++ < 10)
					fprintf(stderr,
						"crash-check: slot %" PRIu64
						" sector %u: %s (read gen %u;"
						" durable %u, last acked %u,"
						" before %u)\n",
						slot, i, bad, g, s->durable,
						s->acked, *base);
				if (!bad && s->acked && s->acked > s->durable) {
					/* an acknowledged write not yet
					 * durable: either is allowed */
					if (g >= s->acked)
						newer++;
					else
						old++;
				}
				if (i && g != g0)
					mixed = true;
				g0 = i ? g0 : g;
				maxg = g > maxg ? g : maxg;
				*base = g;
			}
			torn4k += mixed;
			lost_writes += lost != lost0;
			/* the next epoch's writes start above anything this
			 * slot's writes may have carried */
			st.floor[slot] = maxg > hi ? maxg : hi;
		}
	}
	/* what was read is the next epoch's baseline: make it durable */
	ret = do_flush(q);
	if (ret) {
		fprintf(stderr, "crash-check: flush after verify failed: %s\n",
			strerror(-ret));
		exit(3);
	}
	mqblk_queue_close(q);
	mqblk_dev_close(dev);
	st.log_off = log_end;
	st.epoch++;
	state_save(dir, &st);
	printf("epoch=%" PRIu64 " acked=%" PRIu64 " durable=%" PRIu64
	       " sectors=%" PRIu64 " lost_writes=%" PRIu64 " lost=%" PRIu64
	       " never_written=%" PRIu64 " torn=%" PRIu64
	       " acked_read_new=%" PRIu64 " acked_read_old=%" PRIu64
	       " mixed_4k=%" PRIu64 " violations=%" PRIu64 "\n",
	       st.epoch, nacked, ndurable, sectors, lost_writes, lost, never,
	       torn, newer, old, torn4k, lost + never + torn);
	free(buf);
	free(h);
	free(st.base);
	free(st.floor);
	return lost + never + torn ? 1 : 0;
}

int main(int argc, char **argv)
{
	crc_init();
	if (argc >= 2 && !strcmp(argv[1], "init"))
		return cmd_init(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "write"))
		return cmd_write(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "verify"))
		return cmd_verify(argc - 2, argv + 2);
	fprintf(stderr, "usage: crash-check init|write|verify DIR ... (see "
			"bench/crash-check.c)\n");
	return 2;
}
