// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the NVMe/TCP host driver's receive path
 * (src/drivers/nvme_tcp/: nvt_poll, rx_process, rx_header; R2T
 * and H2CData, C2HData placement, data digests, conn_fail and the
 * reset/reconnect that follows) through the real core: each input opens
 * an nvme-tcp:// device with the public API and submits reads, writes,
 * flushes, discards and write zeroes, while a controller thread of this
 * harness plays the subsystem on a real loopback listening socket. The
 * admin queue is always answered correctly (ICResp, Connect, CAP, VS, CC,
 * CSTS, Identify, Number of Queues, Keep Alive, shutdown); on the I/O
 * queue connection the input says what the controller sends.
 *
 * Input: byte 0: bit 0 header digests, bit 1 data digests, bits 3:2 the
 * completion policy (local, polled, remote, batched), bit 4 4 KiB blocks
 * (else 512 B), bit 5 8 KiB of in-capsule data (IOCCSZ; else none), bits
 * 7:6 MAXH2CDATA (4, 8, 32 or 128 KiB). Byte 1: bits 1:0 the CPDA (0, 1,
 * 7, 31), bit 2 a second round of the same requests, bit 3 plugged
 * submission, bits 5:4 the queue size (32, 32, 8, 4), bits 7:6 the
 * request timeout (1000, 1000, 200, 50 ms). Byte 2: bits 3:0 the number
 * of requests less one, bits 6:4 how the controller answers once the
 * script is over. Then a byte per request: bits 2:0 the operation (read,
 * read, write, write, flush, discard, write zeroes, read), bits 5:3 the
 * size (a block, 4, 12, 64, 68, 128 KiB = MDTS, 256 KiB = past MDTS: the
 * host's core splits it into two commands, 8 KiB), bit 6 FUA; request i has the device's 256 KiB at i * 256 KiB.
 * The rest is the controller's script for its I/O queue connections, one
 * op per byte (bits 3:0 the op, 7:4 its argument k), some with bytes of
 * their own:
 *
 *   WAIT k          until k + 1 commands are unanswered
 *   ANSWER k, m     answer unanswered command k correctly in mode m: reads
 *                   as C2HData in one PDU, halves, 4 KiB or 1000-byte
 *                   pieces (m bits 1:0), with the SUCCESS flag or a
 *                   CapsuleResp (bit 2); writes with one R2T (two in
 *                   turn: bits 1:0 = 3) and the response when the
 *                   H2CData is in; bit 3: an error status (bits 6:4; with
 *                   bit 0 after half the data) instead
 *   ANSWER_ALL m    every unanswered command so
 *   ERROR k, s      a CapsuleResp with error status s
 *   RAW k, n, ...   (k << 8 | n) + 1 bytes of the input as they are
 *   PDU k, t, a, b  a PDU built from fields of the input for command k:
 *                   C2HData (offsets and lengths derived from a and b,
 *                   flags from a), R2T, CapsuleResp, C2HData with
 *                   padding or a wrong data digest, C2HTermReq, any
 *                   header, an ICResp
 *   STALE k         a correct answer again, to a command already answered
 *                   or finished at the host (it must be dropped)
 *   CLOSE k         close the I/O connection (k bit 0: the admin one too)
 *   TERM k          a C2HTermReq, then close
 *   REFUSE k        from now on refuse connections (k bit 0: with a
 *                   Connect error, else by closing at the ICReq)
 *   DELAY k         (k + 1) * 200 us
 *
 * A reset reconnects (reconnect_delay=1, ctrl_loss_tmo=0: one attempt,
 * then everything fails): the script goes on on the new connection. When
 * it is over, or the host stalls, the controller answers everything
 * correctly; a host still waiting 20 ms after that has its connections
 * closed (three times, then refused) so every input ends in bounded time.
 *
 * Checked: the host's PDUs all decode (digests, PDA, MAXH2CDATA); every
 * command names a request in flight, with the right LBA range, length
 * (a read or write past MDTS in MDTS-sized pieces from its start), SGL,
 * FUA and in-capsule data, no two live ones share a command id, no read
 * or write past MDTS leaves the host; every H2CData answers the
 * R2T in force in order and carries the request's bytes, LAST exactly at
 * the window's end. Every request completes exactly once and none is
 * missing; a request the controller answered only correctly (no raw or
 * built PDUs while it was in flight, none on its connections) succeeds
 * only if a success was sent for it (for each of its pieces), with exactly the data sent for it,
 * and fails only with a status sent for it or the host's path/abort
 * status; nothing changes a read's buffer after its completion or a
 * write's buffer before it; a write's buffer is overwritten as soon as
 * it completes, so H2CData sent from it after that fails the data check
 * (and the driver asserts at each completion that the request is off its
 * send list); device close returns, no file descriptor stays open and
 * nothing leaks (ASan, -detect_leaks).
 *
 * FUZZ_HOST_VERBOSE=1 shows the driver's log and the script's ops;
 * FUZZ_HOST_STATS=1 prints at exit how often each path was taken;
 * FUZZ_HOST_SEEDS=DIR writes the built-in seed inputs to DIR and exits.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <mqblk/mqblk.h>

#include "nvme/crc32c.h"
#include "nvme/nvme.h"
#include "nvme/tcp.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define SUBNQN "nqn.2026-01.io.example:fuzz-host"
#define HOSTID "4d7ab1c0-5eed-4f00-8d1e-00000000f022"
#define HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:" HOSTID

#define NR_REQS 16
#define SLOT (256u << 10) /* each request's own part of the device */
#define DEV_BYTES ((uint64_t)NR_REQS * SLOT)
#define MDTS_SHIFT 5
#define MDTS_BYTES (4096u << MDTS_SHIFT) /* 128 KiB */
#define PAT_SIZE (1u << 20)
#define MAX_CONNS 8
#define MAX_CMDS 64 /* per connection: two rounds of 16, and room */
/* the biggest PDU a host sends: H2CData of 128 KiB with CPDA 31 */
#define IN_CAP (160u << 10)
/* crafted data PDUs send at most this much of what their header claims */
#define CRAFT_DATA_MAX (260u << 10)

/* what a write's buffer holds once it completed */
#define WRITE_REUSED 0xa5

#define MS 1000000ull
#define OP_WAIT_NS (3 * MS) /* one script op waiting for commands */
#define WAIT_BUDGET_NS (30 * MS) /* all of an input's ops together */
#define STALL_NS (8 * MS) /* host waiting with the script over */
#define HANG_NS (4000 * MS) /* a round that long is a hang */

/* ---- Checks -------------------------------------------------------------- */

static FILE *real_stderr, *devnull;
static bool verbose;

/* The driver logs to stderr: silenced unless verbose; a failed check
 * speaks again before it aborts. */
#define CHECK(cond)                                   \
	do {                                          \
		if (!(cond)) {                        \
			if (real_stderr)              \
				stderr = real_stderr; \
			FUZZ_CHECK(cond);             \
		}                                     \
	} while (0)

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(real_stderr ? real_stderr : stderr, fmt, ap);
	va_end(ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- Statistics (FUZZ_HOST_STATS=1) -------------------------------------- */

enum {
	ST_INPUTS,
	ST_ADMIN_CONNECT,
	ST_IO_CONNECT,
	ST_REFUSED,
	ST_CMD,
	ST_C2H,
	ST_C2H_SUCCESS,
	ST_RSP_OK,
	ST_RSP_ERR,
	ST_R2T,
	ST_R2T_SECOND,
	ST_H2C,
	ST_INCAP,
	ST_RAW,
	ST_CRAFT,
	ST_STALE,
	ST_CLOSE,
	ST_TERM,
	ST_KICK,
	ST_DONE_OK,
	ST_DONE_ERR,
	ST_VERIFIED,
	ST_NR
};

static const char *const st_names[ST_NR] = {
	"inputs",	  "admin connects", "I/O connects",
	"refusals",	  "I/O commands",   "C2HData (valid)",
	"  with SUCCESS", "CapsuleResp ok", "CapsuleResp error",
	"R2T (valid)",	  "second R2T",	    "H2CData",
	"in-capsule",	  "raw segments",   "built PDUs",
	"stale answers",  "closes",	    "C2HTermReqs",
	"stall closes",	  "completed ok",   "completed with error",
	"verified",
};

static uint64_t stats[ST_NR];
static bool want_stats;

static void print_stats(void)
{
	unsigned i;

	for (i = 0; i < ST_NR; i++)
		say("fuzz-host: %-22s %llu\n", st_names[i],
		    (unsigned long long)stats[i]);
}

/* ---- Data patterns ------------------------------------------------------- */

/* Random bytes, doubled so any slice of up to PAT_SIZE is contiguous */
static uint8_t *pat;

/* What the controller sends for (reads) or expects at (writes) device
 * byte addr in a round: slices of pat, different per request slot,
 * direction and round, contiguous inside a slot. */
static const uint8_t *pat_at(uint64_t addr, bool wr, unsigned round)
{
	uint64_t salt = wr ? 0x5bd1e995ull * round : 0x27d4eb2dull * round + 77;

	return pat + (addr + (addr >> 18) * 40961 + salt) % PAT_SIZE;
}

/* ---- The input ------------------------------------------------------------ */

enum { K_READ, K_WRITE, K_FLUSH, K_DISCARD, K_WZ };

struct req_spec {
	uint8_t kind;
	bool fua;
	uint32_t len;
};

struct cfg {
	bool hdgst, ddgst;
	unsigned policy;
	unsigned lba_shift;
	uint32_t incap_max;
	uint32_t maxh2c;
	uint8_t cpda;
	unsigned rounds;
	bool plug;
	unsigned qsize;
	unsigned tmo_ms;
	unsigned nreq;
	uint8_t fin_mode;
	struct req_spec req[NR_REQS];
};

static size_t parse_cfg(const uint8_t *d, size_t size, struct cfg *c)
{
	static const uint32_t maxh2c[4] = { 4096, 8192, 32768, 131072 };
	static const uint8_t cpda[4] = { 0, 1, 7, 31 };
	static const unsigned qsize[4] = { 32, 32, 8, 4 };
	static const unsigned tmo[4] = { 1000, 1000, 200, 50 };
	static const uint8_t kinds[8] = { K_READ,  K_READ,    K_WRITE, K_WRITE,
					  K_FLUSH, K_DISCARD, K_WZ,    K_READ };
	bool flush = false, discard = false;
	unsigned i;

	if (size < 3)
		return 0;
	memset(c, 0, sizeof(*c));
	c->hdgst = d[0] & 1;
	c->ddgst = d[0] & 2;
	c->policy = (d[0] >> 2) & 3;
	c->lba_shift = d[0] & 0x10 ? 12 : 9;
	c->incap_max = d[0] & 0x20 ? 8192 : 0;
	c->maxh2c = maxh2c[d[0] >> 6];
	c->cpda = cpda[d[1] & 3];
	c->rounds = d[1] & 4 ? 2 : 1;
	c->plug = d[1] & 8;
	c->qsize = qsize[(d[1] >> 4) & 3];
	c->tmo_ms = tmo[d[1] >> 6];
	c->nreq = (d[2] & 15) + 1;
	c->fin_mode = (d[2] >> 4) & 7;
	if (size < 3 + c->nreq)
		return 0;
	for (i = 0; i < c->nreq; i++) {
		uint8_t b = d[3 + i];
		uint32_t sizes[8] = {
			1u << c->lba_shift, 4096,	    12288, 65536, 69632,
			MDTS_BYTES,	    2 * MDTS_BYTES, 8192
		};
		struct req_spec *r = &c->req[i];

		r->kind = kinds[b & 7];
		/* one flush and one discard a round: the controller tells
		 * them apart by what they address, and these address none */
		if ((r->kind == K_FLUSH && flush) ||
		    (r->kind == K_DISCARD && discard))
			r->kind = K_READ;
		flush |= r->kind == K_FLUSH;
		discard |= r->kind == K_DISCARD;
		r->len = r->kind == K_FLUSH ? 0 : sizes[(b >> 3) & 7];
		r->fua = (b & 0x40) &&
			 (r->kind == K_READ || r->kind == K_WRITE);
	}
	return 3 + c->nreq;
}

/* ---- Shared state: the controller thread and the host's thread ----------- */

/* One request of the current round, seen from both ends */
struct rec {
	struct req_spec s;
	uint64_t addr;
	uint8_t *buf; /* reads and writes */
	uint8_t *snap; /* a read's buffer as it completed */
	bool submitted, reaped;
	bool tainted; /* the controller sent more than correct answers */
	uint8_t ok_pieces; /* a success was sent for piece i: bit i */
	uint16_t errs_sent[8];
	unsigned nr_errs;
	int res;
	uint16_t status;
};

/* A command the controller received on an I/O connection */
struct ccmd {
	uint16_t cid;
	uint8_t opcode;
	uint8_t round;
	int req; /* index into recs of that round */
	uint32_t len; /* bytes addressed */
	uint32_t xfer; /* data bytes moved (a discard's: its 16-byte range) */
	uint64_t addr;
	bool incap;
	bool answered; /* the final answer is out (or it is retired) */
	uint32_t c2h_sent; /* C2HData bytes sent in order */
	/* the R2T in force: H2CData must answer it, in order */
	bool r2t;
	uint16_t ttag;
	uint32_t r2t_off, r2t_end, h2c_next;
	bool r2t_auto; /* ours: respond once the data is in */
	bool r2t_split; /* ours: a second R2T for the rest first */
};

enum { C_NEW, C_ADMIN, C_IO };

struct cconn {
	int fd; /* -1: slot free */
	int role;
	bool tainted; /* raw or built PDUs went out on it */
	bool close_after_tx;
	struct nvme_tcp_conn tc;
	uint8_t icreq[128];
	uint8_t *in;
	size_t in_len;
	uint8_t *out;
	size_t out_len, out_off, out_cap;
	uint64_t cc;
	struct ccmd cmds[MAX_CMDS];
	unsigned nr_cmds;
};

enum { PH_IDLE, PH_RUN, PH_STOP };

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	int lfd, wfd;
	uint16_t port;
	char addr[INET_ADDRSTRLEN]; /* 127.x.y.z, the harness's own */
	bool exit;
	int phase;

	struct cfg cfg;
	const uint8_t *sc;
	size_t sc_len, sc_off;
	bool go; /* the device is open: the script may run */
	bool finished; /* script over: correct answers from now on */
	bool closing; /* the host is closing the device */
	uint64_t op_wait; /* when the current op started waiting */
	uint64_t wait_used;
	uint64_t pause_until;
	bool refuse;
	uint8_t refuse_mode;
	unsigned kick_req, kick_done;
	uint16_t ttag_next;

	unsigned round;
	bool in_round, all_submitted;
	struct rec recs[NR_REQS];
	unsigned outstanding;

	struct cconn conns[MAX_CONNS];
	int active; /* the live I/O connection, or -1 */
} S = { .mu = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
	.lfd = -1,
	.wfd = -1,
	.active = -1 };

static uint8_t *inbufs;

static void wake_ctl(void)
{
	uint64_t one = 1;

	if (write(S.wfd, &one, sizeof(one)) < 0)
		abort();
}

/* ---- The controller: output -------------------------------------------- */

static uint8_t *out_reserve(struct cconn *c, size_t n)
{
	if (c->out_cap - c->out_len < n) {
		size_t cap = c->out_cap ? c->out_cap : 65536;
		uint8_t *p;

		while (cap - c->out_len < n)
			cap *= 2;
		p = realloc(c->out, cap);
		CHECK(p != NULL);
		c->out = p;
		c->out_cap = cap;
	}
	return c->out + c->out_len;
}

static void out_put(struct cconn *c, const void *b, size_t n)
{
	memcpy(out_reserve(c, n), b, n);
	c->out_len += n;
}

static struct rec *cmd_rec(const struct ccmd *m)
{
	return m->round == S.round && m->req >= 0 ? &S.recs[m->req] : NULL;
}

/* The commands of this connection go to requests the host no longer
 * trusts the stream for, and so do all requests now in flight (their
 * commands may be on the way). */
static void taint(struct cconn *c)
{
	unsigned i;

	c->tainted = true;
	for (i = 0; i < S.cfg.nreq; i++)
		if (S.recs[i].submitted && !S.recs[i].reaped)
			S.recs[i].tainted = true;
}

static void conn_close(struct cconn *c)
{
	if (c->fd < 0)
		return;
	close(c->fd);
	if (S.active == c - S.conns)
		S.active = -1;
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = c->out_cap = 0;
	c->fd = -1;
}

static void conn_tx(struct cconn *c)
{
	while (c->fd >= 0 && c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off,
				 c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			c->out_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		/* the host closed: it will reconnect if it wants */
		conn_close(c);
		return;
	}
	if (c->fd >= 0) {
		c->out_off = c->out_len = 0;
		if (c->close_after_tx)
			conn_close(c);
	}
}

static void send_rsp(struct cconn *c, uint16_t cid, uint16_t status,
		     uint64_t result)
{
	struct nvme_completion cqe;
	ssize_t n;

	memset(&cqe, 0, sizeof(cqe));
	cqe.command_id = cid;
	cqe.result.u64 = cpu_to_le64(result);
	nvme_cqe_set_status(&cqe, status);
	n = nvme_tcp_build_rsp(&c->tc, out_reserve(c, 64), 64, &cqe);
	CHECK(n > 0);
	c->out_len += (size_t)n;
}

/* C2HData with data from buf */
static void send_data(struct cconn *c, uint16_t cid, uint32_t off,
		      const void *buf, uint32_t len, uint8_t flags)
{
	size_t need = 24 + 4 + 128 + (size_t)len + 4;
	ssize_t n = nvme_tcp_build_data(&c->tc, out_reserve(c, need), need, cid,
					0, off, buf, len, flags);

	CHECK(n > 0);
	c->out_len += (size_t)n;
}

static void send_r2t(struct cconn *c, struct ccmd *m, uint16_t ttag,
		     uint32_t off, uint32_t len)
{
	ssize_t n = nvme_tcp_build_r2t(&c->tc, out_reserve(c, 64), 64, m->cid,
				       ttag, off, len);

	CHECK(n > 0);
	c->out_len += (size_t)n;
	/* a host takes an R2T only when none is in force */
	if (!m->r2t || m->h2c_next == m->r2t_end) {
		m->r2t = true;
		m->ttag = ttag;
		m->r2t_off = m->h2c_next = off;
		m->r2t_end = off + len;
	}
}

/* ---- The controller: correct answers -------------------------------------- */

static const uint16_t err_tab[8] = {
	NVME_SC_READ_ERROR,    NVME_SC_WRITE_FAULT,
	NVME_SC_INVALID_FIELD, NVME_SC_LBA_RANGE,
	NVME_SC_NS_NOT_READY,  NVME_SC_READ_ERROR | NVME_SC_DNR,
	NVME_SC_ACCESS_DENIED, NVME_SC_INTERNAL_PATH_ERROR | NVME_SC_DNR,
};

/* A read or write past MDTS goes as MDTS-sized pieces from its start */
static unsigned rec_pieces(const struct rec *r)
{
	if (r->s.kind != K_READ && r->s.kind != K_WRITE)
		return 1;
	return (r->s.len + MDTS_BYTES - 1) / MDTS_BYTES;
}

static bool success_sent(const struct rec *r)
{
	return r->ok_pieces == (1u << rec_pieces(r)) - 1;
}

static void mark_success(struct ccmd *m)
{
	struct rec *r = cmd_rec(m);

	if (!r)
		return;
	if (m->opcode == nvme_cmd_read || m->opcode == nvme_cmd_write)
		r->ok_pieces |=
			(uint8_t)(1u << ((m->addr - r->addr) / MDTS_BYTES));
	else
		r->ok_pieces = 1;
}

static void answer_err(struct cconn *c, struct ccmd *m, uint16_t status)
{
	struct rec *r = cmd_rec(m);

	send_rsp(c, m->cid, status, 0);
	stats[ST_RSP_ERR]++;
	m->answered = true;
	if (r && r->nr_errs < 8)
		r->errs_sent[r->nr_errs++] = status & 0x7ff;
	else if (r)
		r->tainted = true; /* more than we keep track of */
}

static void answer_ok(struct cconn *c, struct ccmd *m)
{
	send_rsp(c, m->cid, 0, 0);
	stats[ST_RSP_OK]++;
	m->answered = true;
	mark_success(m);
}

static void read_data(struct cconn *c, struct ccmd *m, uint32_t off,
		      uint32_t len, uint8_t flags)
{
	send_data(c, m->cid, off, pat_at(m->addr + off, false, m->round), len,
		  flags);
	m->c2h_sent = off + len;
	stats[ST_C2H]++;
	if (flags & NVME_TCP_F_DATA_SUCCESS)
		stats[ST_C2H_SUCCESS]++;
}

/* The DSM range a discard carries */
static void dsm_range(const struct ccmd *m, uint8_t out[16])
{
	memset(out, 0, 16);
	nvme_put_le32(out + 4, m->len >> S.cfg.lba_shift);
	nvme_put_le64(out + 8, m->addr >> S.cfg.lba_shift);
}

static void answer_valid(struct cconn *c, struct ccmd *m, uint8_t mode)
{
	static const uint32_t chunks[4] = { 0, 0, 4096, 1000 };
	uint32_t off, chunk;

	switch (m->opcode) {
	case nvme_cmd_read:
		if (mode & 8) {
			if ((mode & 1) && m->len >= 2)
				read_data(c, m, 0, m->len / 2, 0);
			answer_err(c, m, err_tab[(mode >> 4) & 7]);
			return;
		}
		chunk = chunks[mode & 3];
		if (!chunk)
			chunk = (mode & 3) ? (m->len + 1) / 2 : m->len;
		for (off = 0; off < m->len; off += chunk) {
			uint32_t n = m->len - off < chunk ? m->len - off :
							    chunk;
			uint8_t fl = 0;

			if (off + n == m->len)
				fl = NVME_TCP_F_DATA_LAST |
				     (mode & 4 ? NVME_TCP_F_DATA_SUCCESS : 0);
			read_data(c, m, off, n, fl);
		}
		if (mode & 4) {
			m->answered = true;
			mark_success(m);
		} else {
			answer_ok(c, m);
		}
		return;
	case nvme_cmd_write:
	case nvme_cmd_dsm:
		if (mode & 8) {
			answer_err(c, m, err_tab[(mode >> 4) & 7]);
			return;
		}
		if (m->incap) {
			answer_ok(c, m);
			return;
		}
		/* R2T, and the response once the data is in */
		m->r2t_auto = true;
		m->r2t_split = (mode & 3) == 3 && !S.finished;
		stats[ST_R2T]++;
		send_r2t(c, m, S.ttag_next++, 0,
			 m->r2t_split ? m->xfer / 2 : m->xfer);
		return;
	default:
		if (mode & 8)
			answer_err(c, m, err_tab[(mode >> 4) & 7]);
		else
			answer_ok(c, m);
	}
}

/* Waiting for its data after our R2T */
static bool cmd_busy(const struct ccmd *m)
{
	return m->r2t_auto && !m->answered;
}

/* Unanswered commands of live requests on c */
static unsigned live_cmds(struct cconn *c, struct ccmd **out, bool idle_only)
{
	unsigned i, n = 0;

	for (i = 0; i < c->nr_cmds; i++) {
		struct ccmd *m = &c->cmds[i];
		struct rec *r = cmd_rec(m);

		if (m->answered || !r || r->reaped)
			continue;
		if (idle_only && cmd_busy(m))
			continue;
		out[n++] = m;
	}
	return n;
}

static void answer_all(struct cconn *c, uint8_t mode)
{
	struct ccmd *cands[MAX_CMDS];
	unsigned i, n = live_cmds(c, cands, true);

	for (i = 0; i < n; i++)
		answer_valid(c, cands[i], mode);
}

/* ---- The controller: admin queue ------------------------------------------ */

static uint32_t csts_of(uint64_t cc)
{
	uint32_t v = 0;

	if (cc & NVME_CC_ENABLE)
		v |= NVME_CSTS_RDY;
	if (NVME_CC_SHN(cc))
		v |= NVME_CSTS_SHST_CMPLT;
	return v;
}

static void identify(struct cconn *c, const union nvme_command *cmd)
{
	uint8_t id[4096];

	memset(id, 0, sizeof(id));
	switch (cmd->identify.cns) {
	case NVME_ID_CNS_CTRL:
		id[77] = MDTS_SHIFT;
		nvme_put_le32(id + 1792, (S.cfg.incap_max + 64) / 16);
		id[525] = NVME_CTRL_VWC_PRESENT;
		nvme_put_ascii(id + 768, 256, SUBNQN);
		break;
	case NVME_ID_CNS_NS_ACTIVE_LIST:
		nvme_put_le32(id, 1);
		break;
	case NVME_ID_CNS_NS:
		if (le32_to_cpu(cmd->identify.nsid) != 1)
			break;
		nvme_put_le64(id, DEV_BYTES >> S.cfg.lba_shift);
		nvme_put_le64(id + 8, DEV_BYTES >> S.cfg.lba_shift);
		nvme_put_le64(id + 16, DEV_BYTES >> S.cfg.lba_shift);
		id[130] = (uint8_t)S.cfg.lba_shift;
		break;
	default:
		send_rsp(c, cmd->common.command_id, NVME_SC_INVALID_FIELD, 0);
		return;
	}
	send_data(c, cmd->common.command_id, 0, id, sizeof(id),
		  NVME_TCP_F_DATA_LAST | NVME_TCP_F_DATA_SUCCESS);
}

static void admin_cmd(struct cconn *c, const union nvme_command *cmd)
{
	uint16_t cid = cmd->common.command_id;

	if (cmd->common.opcode == nvme_fabrics_command) {
		uint32_t off = le32_to_cpu(cmd->prop_get.offset);
		uint64_t v = 0;

		switch (cmd->fabrics.fctype) {
		case nvme_fabrics_type_property_get:
			if (off == NVME_REG_CAP)
				v = nvme_cap_make(63, 1, NVME_CAP_CSS_NVM, 0,
						  0);
			else if (off == NVME_REG_VS)
				v = NVME_VS(1, 4, 0);
			else if (off == NVME_REG_CC)
				v = c->cc;
			else if (off == NVME_REG_CSTS)
				v = csts_of(c->cc);
			send_rsp(c, cid, 0, v);
			return;
		case nvme_fabrics_type_property_set:
			if (off == NVME_REG_CC)
				c->cc = le64_to_cpu(cmd->prop_set.value);
			send_rsp(c, cid, 0, 0);
			return;
		default:
			send_rsp(c, cid, NVME_SC_INVALID_OPCODE, 0);
			return;
		}
	}
	switch (cmd->common.opcode) {
	case nvme_admin_identify:
		identify(c, cmd);
		return;
	case nvme_admin_set_features:
		/* one I/O queue each way is what the host asked for */
		send_rsp(c, cid, 0, 0);
		return;
	case nvme_admin_keep_alive:
		send_rsp(c, cid, 0, 0);
		return;
	default:
		send_rsp(c, cid, NVME_SC_INVALID_OPCODE, 0);
	}
}

/* ---- The controller: I/O queue -------------------------------------------- */

/* The request a command is for: by the range it addresses, or for the
 * round's one flush / discard by its kind */
static int cmd_req(uint8_t opcode, uint64_t addr, uint32_t len)
{
	unsigned i;

	for (i = 0; i < S.cfg.nreq; i++) {
		const struct rec *r = &S.recs[i];

		switch (opcode) {
		case nvme_cmd_flush:
			if (r->s.kind == K_FLUSH)
				return (int)i;
			break;
		case nvme_cmd_dsm:
			if (r->s.kind == K_DISCARD)
				return (int)i;
			break;
		default:
			/* a piece of it (io_cmd checks which) */
			if (addr >= r->addr &&
			    addr + len <= r->addr + r->s.len &&
			    r->s.kind == (opcode == nvme_cmd_read  ? K_READ :
					  opcode == nvme_cmd_write ? K_WRITE :
								     K_WZ))
				return (int)i;
		}
	}
	return -1;
}

static void io_cmd(struct cconn *c, const union nvme_command *cmd,
		   const uint8_t *data, uint32_t dlen)
{
	uint8_t op = cmd->common.opcode;
	uint32_t sgl_len = le32_to_cpu(cmd->common.dptr.sgl.length);
	uint8_t sgl_type = cmd->common.dptr.sgl.type;
	struct ccmd *m;
	struct rec *r;
	unsigned i;

	stats[ST_CMD]++;
	CHECK(c->nr_cmds < MAX_CMDS);
	m = &c->cmds[c->nr_cmds];
	memset(m, 0, sizeof(*m));
	m->cid = cmd->common.command_id;
	m->opcode = op;
	m->round = (uint8_t)S.round;
	CHECK(le32_to_cpu(cmd->common.nsid) == 1);
	switch (op) {
	case nvme_cmd_read:
	case nvme_cmd_write:
	case nvme_cmd_write_zeroes:
		m->addr = le64_to_cpu(cmd->rw.slba) << S.cfg.lba_shift;
		m->len = ((uint32_t)le16_to_cpu(cmd->rw.length) + 1)
			 << S.cfg.lba_shift;
		if (op != nvme_cmd_write_zeroes)
			CHECK(sgl_len == m->len);
		/* the host refuses what is past MDTS itself */
		CHECK(op == nvme_cmd_write_zeroes || m->len <= MDTS_BYTES);
		break;
	case nvme_cmd_dsm:
		CHECK(le32_to_cpu(cmd->common.cdw11) & (1u << 2));
		CHECK(sgl_len == 16);
		break;
	case nvme_cmd_flush:
		break;
	default:
		say("fuzz-host: unexpected I/O opcode 0x%x\n", op);
		CHECK(0);
	}
	m->req = cmd_req(op, m->addr, m->len);
	if (m->req < 0)
		say("fuzz-host: command opcode 0x%x at %llu, %u bytes: no "
		    "such request in round %u\n",
		    op, (unsigned long long)m->addr, m->len, S.round);
	CHECK(m->req >= 0);
	r = &S.recs[m->req];
	/* only requests in flight are sent (again) */
	CHECK(r->submitted && !r->reaped);
	if (op == nvme_cmd_dsm) {
		m->addr = r->addr;
		m->len = r->s.len;
	}
	if (op == nvme_cmd_read || op == nvme_cmd_write) {
		/* the whole request, or one of its MDTS-sized pieces */
		uint64_t at = m->addr - r->addr;

		CHECK(at % MDTS_BYTES == 0 &&
		      m->len == (r->s.len - at < MDTS_BYTES ? r->s.len - at :
							      MDTS_BYTES));
	} else if (op == nvme_cmd_write_zeroes) {
		CHECK(m->addr == r->addr && m->len == r->s.len);
	}
	m->xfer = op == nvme_cmd_dsm			      ? 16 :
		  op == nvme_cmd_read || op == nvme_cmd_write ? m->len :
								0;
	CHECK(!!(le16_to_cpu(cmd->rw.control) & NVME_RW_FUA) == r->s.fua ||
	      (op != nvme_cmd_read && op != nvme_cmd_write));
	/* no two live commands with one id */
	for (i = 0; i < c->nr_cmds; i++) {
		struct rec *o = cmd_rec(&c->cmds[i]);

		CHECK(c->cmds[i].cid != m->cid || !o || o->reaped);
	}
	/* data to the controller: in the capsule when it fits */
	if (op == nvme_cmd_write || op == nvme_cmd_dsm) {
		uint32_t bytes = m->xfer;

		m->incap = bytes <= S.cfg.incap_max;
		CHECK(sgl_type == (m->incap ? NVME_SGL_TCP_INCAPSULE :
					      NVME_SGL_TCP_TRANSPORT));
		CHECK(dlen == (m->incap ? bytes : 0));
		if (m->incap && op == nvme_cmd_write) {
			CHECK(!memcmp(data, pat_at(m->addr, true, m->round),
				      bytes));
		} else if (m->incap) {
			uint8_t want[16];

			dsm_range(m, want);
			CHECK(!memcmp(data, want, 16));
		}
		if (m->incap)
			stats[ST_INCAP]++;
	} else {
		CHECK(dlen == 0);
		if (op == nvme_cmd_read)
			CHECK(sgl_type == NVME_SGL_TCP_TRANSPORT);
	}
	c->nr_cmds++;
	if (c->tainted)
		r->tainted = true;
	if (S.finished)
		answer_valid(c, m, S.cfg.fin_mode);
}

static void h2c_data(struct cconn *c, const uint8_t *b,
		     const struct nvme_tcp_rx_pdu *p)
{
	uint16_t cid, ttag = nvme_get_le16(b + 10);
	uint32_t off = nvme_get_le32(b + 12), len = p->data_len;
	const uint8_t *data = b + p->data_off;
	struct ccmd *m = NULL;
	unsigned i;

	stats[ST_H2C]++;
	memcpy(&cid, b + 8, 2);
	for (i = c->nr_cmds; i-- > 0;)
		if (c->cmds[i].cid == cid) {
			m = &c->cmds[i];
			break;
		}
	if (!m || !m->r2t || ttag != m->ttag || off != m->h2c_next ||
	    len > m->r2t_end - off)
		say("fuzz-host: H2CData cid %u ttag %u at %u, %u bytes: the R2T "
		    "in force is %s (ttag %u, %u..%u, next %u)\n",
		    cid, ttag, off, len, m && m->r2t ? "this" : "none",
		    m ? m->ttag : 0, m ? m->r2t_off : 0, m ? m->r2t_end : 0,
		    m ? m->h2c_next : 0);
	CHECK(m != NULL);
	CHECK(m->opcode == nvme_cmd_write || m->opcode == nvme_cmd_dsm);
	CHECK(!m->incap);
	CHECK(m->r2t && ttag == m->ttag);
	CHECK(off == m->h2c_next && len <= m->r2t_end - off);
	CHECK(len <= c->tc.maxh2cdata);
	CHECK(!!(p->flags & NVME_TCP_F_DATA_LAST) == (off + len == m->r2t_end));
	if (m->opcode == nvme_cmd_write) {
		CHECK(!memcmp(data, pat_at(m->addr + off, true, m->round),
			      len));
	} else {
		uint8_t want[16];

		dsm_range(m, want);
		CHECK(off + len <= 16 && !memcmp(data, want + off, len));
	}
	m->h2c_next += len;
	if (m->h2c_next < m->r2t_end || !m->r2t_auto || m->answered)
		return;
	if (m->r2t_split) {
		/* the rest with a second R2T (a host may take it: the first
		 * is done) */
		m->r2t_split = false;
		stats[ST_R2T_SECOND]++;
		send_r2t(c, m, S.ttag_next++, m->r2t_end, m->xfer - m->r2t_end);
		return;
	}
	answer_ok(c, m);
}

static void connect_cmd(struct cconn *c, const union nvme_command *cmd,
			uint32_t dlen)
{
	uint16_t qid = le16_to_cpu(cmd->connect.qid);
	uint16_t cid = cmd->common.command_id;
	unsigned i;

	CHECK(dlen == sizeof(struct nvmf_connect_data));
	if (S.refuse) {
		stats[ST_REFUSED]++;
		send_rsp(c, cid, NVME_SC_CONNECT_INVALID_PARAM, 0);
		return;
	}
	if (!qid) {
		stats[ST_ADMIN_CONNECT]++;
		c->role = C_ADMIN;
		send_rsp(c, cid, 0, 1); /* controller 1 */
		return;
	}
	CHECK(qid == 1);
	stats[ST_IO_CONNECT]++;
	/* the host dropped its earlier I/O connections before this one */
	for (i = 0; i < MAX_CONNS; i++)
		if (&S.conns[i] != c && S.conns[i].fd >= 0 &&
		    S.conns[i].role == C_IO)
			conn_close(&S.conns[i]);
	c->role = C_IO;
	S.active = (int)(c - S.conns);
	send_rsp(c, cid, 0, 0);
}

static void cmd_pdu(struct cconn *c, const uint8_t *b,
		    const struct nvme_tcp_rx_pdu *p)
{
	union nvme_command cmd;

	memcpy(&cmd, b + 8, sizeof(cmd));
	if (cmd.common.opcode == nvme_fabrics_command &&
	    cmd.fabrics.fctype == nvme_fabrics_type_connect) {
		CHECK(c->role == C_NEW);
		connect_cmd(c, &cmd, p->data_len);
		return;
	}
	/* nothing but Connect before a Connect */
	CHECK(c->role != C_NEW);
	if (c->role == C_ADMIN)
		admin_cmd(c, &cmd);
	else
		io_cmd(c, &cmd, b + p->data_off, p->data_len);
}

static void icreq(struct cconn *c, const uint8_t *b)
{
	uint8_t resp[128];

	if (S.refuse && !S.refuse_mode) {
		stats[ST_REFUSED]++;
		conn_close(c);
		return;
	}
	memcpy(c->icreq, b, 128);
	CHECK(nvme_tcp_build_icresp(resp, sizeof(resp), S.cfg.cpda,
				    b[11] & (NVME_TCP_HDGST_ENABLE |
					     NVME_TCP_DDGST_ENABLE),
				    S.cfg.maxh2c) == 128);
	CHECK(nvme_tcp_conn_establish(&c->tc, b, resp) == 0);
	out_put(c, resp, sizeof(resp));
}

/* Decode what c received; false once c is closed */
static bool conn_parse(struct cconn *c)
{
	size_t off = 0;

	while (c->fd >= 0 && off < c->in_len) {
		const uint8_t *b = c->in + off;
		struct nvme_tcp_rx_pdu p;
		int ret = nvme_tcp_rx_pdu(&c->tc, b, c->in_len - off, &p);

		if (ret == NVME_TCP_RX_MORE) {
			CHECK(p.need <= IN_CAP);
			break;
		}
		if (ret != NVME_TCP_RX_OK)
			say("fuzz-host: the host sent a bad PDU: decoder says "
			    "%d (type %u, fes %u, fei %u)\n",
			    ret, p.type, p.fes, p.fei);
		CHECK(ret == NVME_TCP_RX_OK);
		switch (p.type) {
		case nvme_tcp_icreq:
			icreq(c, b);
			break;
		case nvme_tcp_cmd:
			cmd_pdu(c, b, &p);
			break;
		case nvme_tcp_h2c_data:
			CHECK(c->role == C_IO);
			h2c_data(c, b, &p);
			break;
		default:
			/* an H2CTermReq: the host gave up on it */
			conn_close(c);
			break;
		}
		off += p.plen;
	}
	if (c->fd < 0)
		return false;
	memmove(c->in, c->in + off, c->in_len - off);
	c->in_len -= off;
	return true;
}

static void conn_rx(struct cconn *c)
{
	while (c->fd >= 0) {
		ssize_t n = recv(c->fd, c->in + c->in_len, IN_CAP - c->in_len,
				 MSG_DONTWAIT);

		if (n > 0) {
			c->in_len += (size_t)n;
			if (!conn_parse(c))
				return;
			CHECK(c->in_len < IN_CAP);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		conn_close(c);
	}
}

static void ctl_accept(void)
{
	for (;;) {
		int fd = accept4(S.lfd, NULL, NULL, SOCK_CLOEXEC), one = 1;
		unsigned i;

		if (fd < 0)
			return;
		for (i = 0; i < MAX_CONNS; i++)
			if (S.conns[i].fd < 0)
				break;
		if (S.phase != PH_RUN || i == MAX_CONNS) {
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		S.conns[i] = (struct cconn){
			.fd = fd,
			.role = C_NEW,
			.tc = { .host = false, .max_plen = IN_CAP },
			.in = inbufs + (size_t)i * IN_CAP,
		};
	}
}

/* ---- The controller: the script ------------------------------------------- */

enum {
	OP_WAIT,
	OP_ANSWER,
	OP_ANSWER_ALL,
	OP_ERROR,
	OP_RAW,
	OP_PDU,
	OP_STALE,
	OP_CLOSE,
	OP_TERM,
	OP_REFUSE,
	OP_DELAY,
};

static const uint8_t op_of[16] = {
	OP_WAIT,   OP_ANSWER,	  OP_ANSWER_ALL, OP_ERROR,  OP_RAW,   OP_PDU,
	OP_STALE,  OP_CLOSE,	  OP_TERM,	 OP_REFUSE, OP_DELAY, OP_ANSWER,
	OP_ANSWER, OP_ANSWER_ALL, OP_PDU,	 OP_RAW,
};

static const char *const op_names[] = {
	"WAIT",	 "ANSWER", "ANSWER_ALL", "ERROR",  "RAW",   "PDU",
	"STALE", "CLOSE",  "TERM",	 "REFUSE", "DELAY",
};

/* Bytes an op takes, with its own */
static size_t op_size(uint8_t kind)
{
	switch (kind) {
	case OP_ANSWER:
	case OP_ANSWER_ALL:
	case OP_ERROR:
		return 2;
	case OP_PDU:
		return 10;
	default:
		return 1;
	}
}

static void script_finish(void)
{
	S.finished = true;
	if (S.active >= 0)
		answer_all(&S.conns[S.active], S.cfg.fin_mode);
}

/* Answers that must be dropped: to commands of c answered already, or
 * whose request has completed, when every request in flight has its
 * command here (so a reused command id cannot be one in flight). */
static unsigned stale_cands(struct cconn *c, struct ccmd **out)
{
	unsigned i, j, n = 0, live = 0;

	if (!S.all_submitted)
		return 0;
	for (i = 0; i < c->nr_cmds; i++) {
		struct rec *r = cmd_rec(&c->cmds[i]);

		if (r && !r->reaped)
			live++;
	}
	if (live != S.outstanding)
		return 0;
	for (i = 0; i < c->nr_cmds; i++) {
		struct ccmd *m = &c->cmds[i];
		struct rec *r = cmd_rec(m);
		bool clash = false;

		/* in flight and not answered yet: not stale */
		if (r && !r->reaped && !m->answered)
			continue;
		for (j = 0; j < c->nr_cmds; j++) {
			struct rec *o = cmd_rec(&c->cmds[j]);

			if (c->cmds[j].cid == m->cid && o && !o->reaped &&
			    &c->cmds[j] != m)
				clash = true;
		}
		if (!clash)
			out[n++] = m;
	}
	return n;
}

static void op_stale(struct cconn *c, struct ccmd *m, uint8_t k)
{
	stats[ST_STALE]++;
	if (m->opcode == nvme_cmd_read && (k & 1) && m->len)
		send_data(c, m->cid, 0, pat_at(m->addr, false, m->round + 1),
			  m->len,
			  NVME_TCP_F_DATA_LAST | NVME_TCP_F_DATA_SUCCESS);
	else
		send_rsp(c, m->cid, 0, 0);
}

/* A PDU header of our own making (fields as given), with its header
 * digest when they are on */
static void put_hdr(struct cconn *c, const uint8_t *h, uint8_t hlen,
		    bool digest)
{
	uint8_t b[136];

	memcpy(b, h, hlen);
	if (digest && c->tc.hdgst) {
		b[1] |= NVME_TCP_F_HDGST;
		nvme_put_le32(b + hlen, mqblk_crc32c(b, hlen));
		out_put(c, b, (size_t)hlen + 4);
	} else {
		out_put(c, b, hlen);
	}
}

/* PDU k, t, a, b: see the header comment */
static void op_pdu(struct cconn *c, struct ccmd *m, const uint8_t *x)
{
	uint8_t t = x[0], h[128];
	uint32_t a = nvme_get_le32(x + 1), bb = nvme_get_le32(x + 5);
	uint16_t cid = m ? m->cid : (uint16_t)a;
	uint32_t cmd_len = m ? m->xfer : 4096, next = m ? m->c2h_sent : 0;
	uint32_t off, len, hdr_len, pdo, plen, send_len;
	uint64_t addr = m ? m->addr : 0;
	uint8_t type = t & 7, flags;

	stats[ST_CRAFT]++;
	taint(c);
	switch ((t >> 3) & 3) {
	case 0:
		off = next;
		break;
	case 1:
		off = 0;
		break;
	case 2:
		off = a & 0xffff;
		break;
	default:
		off = a;
	}
	switch ((t >> 5) & 3) {
	case 0:
		len = cmd_len > off ? cmd_len - off : 1;
		break;
	case 1:
		len = (bb & 0xffff) + 1;
		break;
	case 2:
		len = (cmd_len > off ? cmd_len - off : 0) + 1 + (bb & 0xff);
		break;
	default:
		len = bb;
	}
	memset(h, 0, sizeof(h));
	hdr_len = 24 + (c->tc.hdgst ? 4 : 0);
	switch (type) {
	case 0: /* C2HData */
	case 3: /* with padding */
	case 4: /* with a wrong data digest */
		flags = (uint8_t)((a >> 24) & (NVME_TCP_F_DATA_LAST |
					       NVME_TCP_F_DATA_SUCCESS));
		if (t & 0x80)
			flags = NVME_TCP_F_DATA_LAST | NVME_TCP_F_DATA_SUCCESS;
		pdo = (hdr_len + 3) / 4 * 4;
		if (type == 3)
			pdo += 4 * (1 + ((a >> 16) & 31));
		plen = pdo + len + (c->tc.ddgst ? 4 : 0);
		h[0] = nvme_tcp_c2h_data;
		h[1] = flags | (c->tc.ddgst ? NVME_TCP_F_DDGST : 0);
		h[2] = 24;
		h[3] = (uint8_t)pdo;
		nvme_put_le32(h + 4, plen);
		memcpy(h + 8, &cid, 2);
		nvme_put_le32(h + 12, off);
		nvme_put_le32(h + 16, len);
		put_hdr(c, h, 24, true);
		memset(out_reserve(c, pdo - hdr_len), 0, pdo - hdr_len);
		c->out_len += pdo - hdr_len;
		send_len = len < CRAFT_DATA_MAX ? len : CRAFT_DATA_MAX;
		{
			/* the request's own bytes, from its offset */
			uint8_t *d = out_reserve(c, (size_t)send_len + 4);
			uint32_t i;

			for (i = 0; i < send_len; i += 65536) {
				uint32_t n = send_len - i < 65536 ?
						     send_len - i :
						     65536;

				memcpy(d + i,
				       pat_at((addr + off + i) % DEV_BYTES,
					      false, S.round),
				       n);
			}
			c->out_len += send_len;
			if (c->tc.ddgst && send_len == len) {
				nvme_put_le32(d + len,
					      mqblk_crc32c(d, len) ^
						      (type == 4 ? 1 : 0));
				c->out_len += 4;
			}
		}
		return;
	case 1: /* R2T */
		h[0] = nvme_tcp_r2t;
		h[2] = 24;
		nvme_put_le32(h + 4, hdr_len);
		memcpy(h + 8, &cid, 2);
		nvme_put_le16(h + 10, (uint16_t)(a >> 16));
		nvme_put_le32(h + 12, off);
		nvme_put_le32(h + 16, len);
		put_hdr(c, h, 24, true);
		if (m && len && (!m->r2t || m->h2c_next == m->r2t_end)) {
			/* the host may take it: the one in force */
			m->r2t = true;
			m->ttag = (uint16_t)(a >> 16);
			m->r2t_off = m->h2c_next = off;
			m->r2t_end = off + len;
			if (m->r2t_end < off)
				m->r2t = false; /* wraps: refused */
		}
		return;
	case 2: { /* CapsuleResp with any status */
		struct nvme_completion cqe;

		memset(&cqe, 0, sizeof(cqe));
		cqe.command_id = t & 0x80 ? (uint16_t)bb : cid;
		cqe.status = cpu_to_le16((uint16_t)(a >> 16));
		cqe.sq_id = cpu_to_le16((uint16_t)a);
		h[0] = nvme_tcp_rsp;
		h[2] = 24;
		nvme_put_le32(h + 4, hdr_len);
		memcpy(h + 8, &cqe, sizeof(cqe));
		put_hdr(c, h, 24, true);
		return;
	}
	case 5: /* C2HTermReq, any FES, some of a header after it */
		h[0] = nvme_tcp_c2h_term;
		h[2] = 24;
		len = bb % 129;
		nvme_put_le32(h + 4, 24 + len);
		nvme_put_le16(h + 8, (uint16_t)a);
		nvme_put_le32(h + 10, bb);
		put_hdr(c, h, 24, false);
		memset(out_reserve(c, len), 0xa5, len);
		c->out_len += len;
		return;
	case 6: /* any common header: type, flags, hlen, pdo from a */
		nvme_put_le32(h, a);
		nvme_put_le32(h + 4, bb);
		memcpy(h + 8, &cid, 2);
		put_hdr(c, h, 24, (t & 0x80) != 0);
		return;
	default: /* an ICResp after the ICResp */
		CHECK(nvme_tcp_build_icresp(h, sizeof(h), 0, 0, 4096) == 128);
		out_put(c, h, 128);
		return;
	}
}

enum { READY, WAIT, SKIP };

/* Can an op that needs an I/O connection and `need` unanswered commands
 * (or a stale candidate) run now, wait for them, or must it go? */
static int op_ready(unsigned need, bool stale, uint64_t now)
{
	unsigned visible = 0;

	if (S.active >= 0) {
		struct cconn *c = &S.conns[S.active];
		struct ccmd *cands[MAX_CMDS];
		unsigned i, n = stale ? stale_cands(c, cands) :
					live_cmds(c, cands, true);

		if (n >= need)
			return READY;
		for (i = 0; i < c->nr_cmds; i++) {
			struct rec *r = cmd_rec(&c->cmds[i]);

			visible += r && !r->reaped;
		}
	}
	/* no more commands can come: every request in flight has its
	 * command here already (or none is in flight) */
	if (!S.in_round || S.refuse ||
	    (S.all_submitted && visible == S.outstanding))
		return SKIP;
	if (!S.op_wait)
		S.op_wait = now;
	if (now - S.op_wait < OP_WAIT_NS &&
	    S.wait_used + (now - S.op_wait) < WAIT_BUDGET_NS)
		return WAIT;
	return SKIP;
}

static void script_op(uint8_t kind, uint8_t k, const uint8_t *x, size_t *used)
{
	struct cconn *c = S.active >= 0 ? &S.conns[S.active] : NULL;
	struct ccmd *cands[MAX_CMDS];
	unsigned n;

	switch (kind) {
	case OP_WAIT:
		return;
	case OP_ANSWER:
	case OP_ERROR:
		n = live_cmds(c, cands, true);
		if (kind == OP_ANSWER)
			answer_valid(c, cands[k % n], x[1]);
		else
			answer_err(c, cands[k % n],
				   err_tab[x[1] & 7] |
					   (x[1] & 8 ? NVME_SC_DNR : 0));
		return;
	case OP_ANSWER_ALL:
		answer_all(c, x[1]);
		return;
	case OP_RAW: {
		size_t len = ((size_t)k << 8 | x[1]) + 1;

		if (len > S.sc_len - S.sc_off - 2)
			len = S.sc_len - S.sc_off - 2;
		*used = 2 + len;
		if (!c || !len)
			return;
		stats[ST_RAW]++;
		taint(c);
		out_put(c, x + 2, len);
		return;
	}
	case OP_PDU:
		n = c ? live_cmds(c, cands, false) : 0;
		if (c)
			op_pdu(c, n ? cands[k % n] : NULL, x + 1);
		return;
	case OP_STALE:
		n = stale_cands(c, cands);
		op_stale(c, cands[(k >> 1) % n], k);
		return;
	case OP_CLOSE:
		stats[ST_CLOSE]++;
		if (c)
			conn_close(c);
		if (k & 1)
			for (n = 0; n < MAX_CONNS; n++)
				if (S.conns[n].role == C_ADMIN)
					conn_close(&S.conns[n]);
		return;
	case OP_TERM: {
		uint8_t t[24];

		if (!c)
			return;
		stats[ST_TERM]++;
		CHECK(nvme_tcp_build_term(&c->tc, t, sizeof(t), k % 6 + 1, 0,
					  NULL, 0) == 24);
		out_put(c, t, 24);
		c->close_after_tx = true;
		S.active = -1;
		return;
	}
	case OP_REFUSE:
		S.refuse = true;
		S.refuse_mode = k & 1;
		return;
	case OP_DELAY:
		/* counted with the waits: a script of delays ends too */
		if (S.wait_used < WAIT_BUDGET_NS) {
			S.wait_used += (uint64_t)(k + 1) * 200000;
			S.pause_until = now_ns() + (uint64_t)(k + 1) * 200000;
		}
		return;
	}
}

/* Run the script as far as it goes now */
static void script_run(void)
{
	while (!S.finished && S.go) {
		uint64_t now = now_ns();
		uint8_t b, kind, k;
		size_t used;
		int ready = READY;

		if (S.closing || S.sc_off >= S.sc_len) {
			script_finish();
			return;
		}
		if (now < S.pause_until)
			return;
		b = S.sc[S.sc_off];
		kind = op_of[b & 15];
		k = b >> 4;
		used = op_size(kind);
		if (kind == OP_RAW)
			used = 2;
		if (S.sc_off + used > S.sc_len) {
			script_finish();
			return;
		}
		switch (kind) {
		case OP_WAIT:
			ready = op_ready(k + 1u, false, now);
			break;
		case OP_ANSWER:
		case OP_ERROR:
		case OP_ANSWER_ALL:
			ready = op_ready(1, false, now);
			break;
		case OP_STALE:
			ready = op_ready(1, true, now);
			break;
		case OP_RAW:
		case OP_PDU:
		case OP_CLOSE:
		case OP_TERM:
			ready = op_ready(0, false, now);
			break;
		}
		if (ready == WAIT)
			return;
		if (S.op_wait) {
			S.wait_used += now - S.op_wait;
			S.op_wait = 0;
		}
		if (verbose)
			say("fuzz-host: op %s k=%u%s\n", op_names[kind], k,
			    ready == SKIP ? " (skipped)" : "");
		if (ready == READY)
			script_op(kind, k, S.sc + S.sc_off, &used);
		else if (kind == OP_RAW)
			used = 2 + ((size_t)k << 8 | S.sc[S.sc_off + 1]) + 1;
		S.sc_off += used < S.sc_len - S.sc_off ? used :
							 S.sc_len - S.sc_off;
	}
}

/* ---- The controller thread ------------------------------------------------- */

static void ctl_stop_all(void)
{
	unsigned i;

	for (i = 0; i < MAX_CONNS; i++)
		conn_close(&S.conns[i]);
}

static void *ctl_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&S.mu);
	while (!S.exit) {
		struct pollfd pfd[2 + MAX_CONNS];
		int map[2 + MAX_CONNS];
		unsigned i, n = 2;
		int timeout = 50;
		uint64_t v;

		pfd[0] = (struct pollfd){ .fd = S.wfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = S.lfd, .events = POLLIN };
		for (i = 0; i < MAX_CONNS; i++) {
			struct cconn *c = &S.conns[i];

			if (c->fd < 0)
				continue;
			map[n] = (int)i;
			pfd[n++] = (struct pollfd){
				.fd = c->fd,
				.events = (short)(POLLIN |
						  (c->out_len ? POLLOUT : 0)),
			};
		}
		if (S.phase == PH_RUN && S.go && !S.finished)
			timeout = 1;
		pthread_mutex_unlock(&S.mu);
		poll(pfd, n, timeout);
		pthread_mutex_lock(&S.mu);
		if (pfd[0].revents && read(S.wfd, &v, sizeof(v)) < 0)
			abort();
		if (S.phase == PH_STOP) {
			ctl_stop_all();
			S.phase = PH_IDLE;
			pthread_cond_broadcast(&S.cv);
			continue;
		}
		if (pfd[1].revents)
			ctl_accept();
		for (i = 2; i < n; i++) {
			struct cconn *c = &S.conns[map[i]];

			if (pfd[i].revents & (POLLIN | POLLERR | POLLHUP))
				conn_rx(c);
		}
		if (S.phase == PH_RUN) {
			if (S.kick_done != S.kick_req) {
				S.kick_done = S.kick_req;
				stats[ST_KICK]++;
				for (i = 0; i < MAX_CONNS; i++)
					if (S.conns[i].role == C_IO)
						conn_close(&S.conns[i]);
			}
			script_run();
		}
		for (i = 0; i < MAX_CONNS; i++)
			if (S.conns[i].fd >= 0 && S.conns[i].out_len)
				conn_tx(&S.conns[i]);
	}
	pthread_mutex_unlock(&S.mu);
	return NULL;
}

/* ---- The host ---------------------------------------------------------------- */

struct host {
	struct mqblk_queue *q;
	uint64_t start, last;
	unsigned kicks;
};

static void dump_recs(void)
{
	unsigned i;

	for (i = 0; i < S.cfg.nreq; i++) {
		const struct rec *r = &S.recs[i];

		say("fuzz-host: request %u: kind %u, %u bytes at %llu: %s%s, "
		    "res %d status 0x%x, success sent for pieces 0x%x, %u "
		    "errors sent%s\n",
		    i, r->s.kind, r->s.len, (unsigned long long)r->addr,
		    r->submitted ? "submitted" : "not submitted",
		    r->reaped ? ", completed" : "", r->res, r->status,
		    r->ok_pieces, r->nr_errs, r->tainted ? ", tainted" : "");
	}
}

/* What one completion must be (under S.mu) */
static void verify(struct rec *r)
{
	bool ok = r->res == (int)r->s.len && r->status == 0;
	unsigned i;

	if (ok)
		stats[ST_DONE_OK]++;
	else
		stats[ST_DONE_ERR]++;
	/* bytes done, or -errno */
	CHECK(ok || r->res < 0);
	if (r->s.kind == K_READ)
		memcpy(r->snap, r->buf, r->s.len);
	if (r->tainted)
		return;
	stats[ST_VERIFIED]++;
	if (ok) {
		if (!success_sent(r))
			dump_recs();
		CHECK(success_sent(r));
		if (r->s.kind == K_READ &&
		    memcmp(r->buf, pat_at(r->addr, false, S.round), r->s.len)) {
			dump_recs();
			CHECK(!"a read's data is not what the controller sent");
		}
		return;
	}
	CHECK(r->res == -EIO);
	/* the host's own refusal (no status): a controller gone for good */
	if (r->status == 0 && S.refuse)
		return;
	if (r->status == NVME_SC_HOST_PATH_ERROR ||
	    r->status == NVME_SC_HOST_ABORTED_CMD)
		return;
	for (i = 0; i < r->nr_errs; i++)
		if (r->errs_sent[i] == r->status)
			return;
	dump_recs();
	CHECK(!"a request failed with a status nobody sent");
}

static void complete_one(struct mqblk_rq *rq)
{
	struct rec *r = rq->private;

	pthread_mutex_lock(&S.mu);
	CHECK(r >= S.recs && r < S.recs + S.cfg.nreq);
	if (r->reaped)
		dump_recs();
	CHECK(r->submitted && !r->reaped); /* exactly once */
	r->reaped = true;
	r->res = rq->res;
	r->status = rq->nvme_status;
	S.outstanding--;
	verify(r);
	if (r->s.kind == K_WRITE) {
		/* the buffer is ours again: reuse it at once, as an
		 * application would, so bytes the host sends from it after
		 * this (the send path still holding it) fail the H2CData
		 * check instead of going unseen */
		CHECK(!memcmp(r->buf, pat_at(r->addr, true, S.round),
			      r->s.len));
		memset(r->buf, WRITE_REUSED, r->s.len);
	}
	pthread_mutex_unlock(&S.mu);
	mqblk_rq_put(rq);
}

/* Reap what there is (a little wait); close the connections of a host
 * that stalls with the script over; a round past HANG_NS is a hang. */
static unsigned reap(struct host *h)
{
	struct mqblk_rq *out[NR_REQS];
	int i, n = mqblk_reap(h->q, out, 1, NR_REQS, 2 * (int64_t)MS);
	uint64_t now = now_ns();

	CHECK(n >= 0);
	for (i = 0; i < n; i++)
		complete_one(out[i]);
	if (n > 0) {
		h->last = now;
		return (unsigned)n;
	}
	if (now - h->start > HANG_NS) {
		pthread_mutex_lock(&S.mu);
		say("fuzz-host: round %u: requests still in flight after "
		    "%llu ms\n",
		    S.round, (unsigned long long)((now - h->start) / MS));
		dump_recs();
		CHECK(!"requests never completed");
	}
	pthread_mutex_lock(&S.mu);
	if (S.finished && now - h->last > STALL_NS) {
		/* answered everything and still waiting: its stream is
		 * out of step; a new connection, or none after three */
		if (++h->kicks >= 3)
			S.refuse = true;
		S.kick_req++;
		h->last = now;
		wake_ctl();
	}
	pthread_mutex_unlock(&S.mu);
	return 0;
}

static void run_round(struct host *h, unsigned round)
{
	const struct cfg *cf = &S.cfg;
	unsigned i, done = 0;
	bool plugged = cf->plug, round_tainted = false;

	pthread_mutex_lock(&S.mu);
	S.round = round;
	S.in_round = S.go = true;
	S.all_submitted = false;
	for (i = 0; i < MAX_CONNS; i++) {
		struct cconn *c = &S.conns[i];
		unsigned j;

		/* commands of the last round get no more answers */
		for (j = 0; j < c->nr_cmds; j++)
			c->cmds[j].answered = true;
	}
	for (i = 0; i < cf->nreq; i++) {
		struct rec *r = &S.recs[i];

		memset(r, 0, sizeof(*r));
		r->s = cf->req[i];
		r->addr = (uint64_t)i * SLOT;
		if (r->s.kind == K_READ || r->s.kind == K_WRITE) {
			r->buf = malloc(r->s.len);
			CHECK(r->buf != NULL);
		}
		if (r->s.kind == K_READ) {
			memset(r->buf, 0xee, r->s.len);
			r->snap = malloc(r->s.len);
			CHECK(r->snap != NULL);
		} else if (r->s.kind == K_WRITE) {
			memcpy(r->buf, pat_at(r->addr, true, round), r->s.len);
		}
	}
	/* a connection out of step already: nothing on it is sure */
	for (i = 0; i < MAX_CONNS; i++)
		if (S.conns[i].fd >= 0 && S.conns[i].tainted)
			round_tainted = true;
	for (i = 0; round_tainted && i < cf->nreq; i++)
		S.recs[i].tainted = true;
	pthread_mutex_unlock(&S.mu);

	h->start = h->last = now_ns();
	if (plugged)
		mqblk_plug(h->q);
	for (i = 0; i < cf->nreq; i++) {
		struct rec *r = &S.recs[i];
		struct mqblk_rq *rq;
		static const enum mqblk_op ops[] = {
			[K_READ] = MQBLK_OP_READ,
			[K_WRITE] = MQBLK_OP_WRITE,
			[K_FLUSH] = MQBLK_OP_FLUSH,
			[K_DISCARD] = MQBLK_OP_DISCARD,
			[K_WZ] = MQBLK_OP_WRITE_ZEROES,
		};

		while (!(rq = mqblk_rq_get(h->q, MQBLK_RQ_NOWAIT))) {
			if (plugged) {
				mqblk_unplug(h->q);
				plugged = false;
			}
			done += reap(h);
		}
		rq->op = ops[r->s.kind];
		rq->flags = r->s.fua ? MQBLK_REQ_FUA : 0;
		rq->offset = r->addr;
		rq->len = r->s.len;
		rq->buf = r->buf;
		rq->private = r;
		pthread_mutex_lock(&S.mu);
		r->submitted = true;
		S.outstanding++;
		if (i + 1 == cf->nreq)
			S.all_submitted = true;
		pthread_mutex_unlock(&S.mu);
		CHECK(mqblk_submit(rq) == 0);
	}
	if (plugged)
		mqblk_unplug(h->q);
	wake_ctl();
	while (done < cf->nreq)
		done += reap(h);

	pthread_mutex_lock(&S.mu);
	/* between rounds the script waits for the next one */
	if (round == cf->rounds)
		S.in_round = false;
	S.all_submitted = false;
	for (i = 0; i < cf->nreq; i++) {
		struct rec *r = &S.recs[i];

		/* nothing writes to a read's buffer once it completed, nor
		 * ever to a write's */
		if (r->s.kind == K_READ)
			CHECK(!memcmp(r->buf, r->snap, r->s.len));
		if (r->s.kind == K_WRITE)
			CHECK(r->s.len && r->buf[0] == WRITE_REUSED &&
			      !memcmp(r->buf, r->buf + 1, r->s.len - 1));
		free(r->buf);
		free(r->snap);
		r->buf = r->snap = NULL;
	}
	pthread_mutex_unlock(&S.mu);
	/* and nothing more comes */
	{
		struct mqblk_rq *extra;

		CHECK(mqblk_reap(h->q, &extra, 0, 1, 0) == 0);
		CHECK(mqblk_queue_inflight(h->q) == 0);
	}
}

static void run_host(void)
{
	static const char *const pol[4] = { "local", "polled", "remote",
					    "batched" };
	const struct cfg *cf = &S.cfg;
	struct mqblk_dev_opts o;
	struct mqblk_dev *dev;
	struct host h = { 0 };
	char uri[1024], err[256];
	unsigned round;
	int ret;

	snprintf(uri, sizeof(uri),
		 "nvme-tcp://%s:%u/%s?nr_io_queues=1&hdr_digest=%d"
		 "&data_digest=%d&kato=0&reconnect_delay=1&ctrl_loss_tmo=0"
		 "&queue_size=%u&timeout=%u&complete=%s&hostnqn=%s&hostid=%s",
		 S.addr, S.port, SUBNQN, cf->hdgst, cf->ddgst, cf->qsize,
		 cf->tmo_ms, pol[cf->policy], HOSTNQN, HOSTID);
	mqblk_dev_opts_init(&o);
	o.nr_queues = 1;
	ret = mqblk_dev_open(uri, &o, &dev, err, sizeof(err));
	if (ret)
		say("fuzz-host: %s: %s\n", uri, err);
	CHECK(ret == 0);
	CHECK(mqblk_dev_size(dev) == DEV_BYTES);
	CHECK(mqblk_dev_block_size(dev) == 1u << cf->lba_shift);
	CHECK(mqblk_queue_open(dev, &h.q) == 0);

	for (round = 1; round <= cf->rounds; round++)
		run_round(&h, round);
	mqblk_queue_close(h.q);

	/* the controller answers the shutdown whatever the script said */
	pthread_mutex_lock(&S.mu);
	S.closing = true;
	pthread_mutex_unlock(&S.mu);
	wake_ctl();
	mqblk_dev_close(dev);
}

static unsigned count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned n = 0;

	CHECK(d != NULL);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfg cf;
	size_t hdr = parse_cfg(data, size, &cf);
	unsigned i, fds;

	if (!hdr)
		return 0;
	fds = count_fds();
	pthread_mutex_lock(&S.mu);
	CHECK(S.phase == PH_IDLE);
	stats[ST_INPUTS]++;
	S.cfg = cf;
	S.sc = data + hdr;
	S.sc_len = size - hdr;
	S.sc_off = 0;
	S.go = S.finished = S.closing = false;
	S.op_wait = S.wait_used = S.pause_until = 0;
	S.refuse = false;
	S.refuse_mode = 0;
	S.kick_req = S.kick_done = 0;
	S.round = 0;
	S.in_round = S.all_submitted = false;
	S.outstanding = 0;
	S.active = -1;
	for (i = 0; i < MAX_CONNS; i++)
		S.conns[i].fd = -1;
	S.phase = PH_RUN;
	pthread_mutex_unlock(&S.mu);

	run_host();

	pthread_mutex_lock(&S.mu);
	S.phase = PH_STOP;
	wake_ctl();
	while (S.phase != PH_IDLE)
		pthread_cond_wait(&S.cv, &S.mu);
	S.sc = NULL;
	pthread_mutex_unlock(&S.mu);
	/* every socket, epoll and eventfd of the device is gone */
	CHECK(count_fds() == fds);
	return 0;
}

/* ---- Set-up, seeds --------------------------------------------------------- */

static void ctl_exit(void)
{
	pthread_mutex_lock(&S.mu);
	S.exit = true;
	pthread_mutex_unlock(&S.mu);
	wake_ctl();
	pthread_join(S.thread, NULL);
	if (want_stats)
		print_stats();
}

/* Seed inputs: a config, requests, a script */
struct seed {
	const char *name;
	uint8_t bytes[64];
	size_t len;
};

#define SEED(n, ...)                                                   \
	{                                                              \
		n, { __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }) \
	}

static const struct seed seeds[] = {
	/* 4 KiB read, 64 KiB read, small write, big write, flush; all
	 * answered in the default way (one C2HData, SUCCESS) */
	SEED("valid-mixed", 0x00, 0x00, 0x44, 0x08, 0x18, 0x0a, 0x1a, 0x04,
	     0x10, 0x04),
	/* digests on, 4 KiB blocks, in-capsule data, CPDA 1, two rounds */
	SEED("valid-digests", 0x33, 0x05, 0x63, 0x08, 0x0a, 0x2a, 0x1f, 0x02,
	     0x34, 0x02, 0x01),
	/* reads in pieces (halves, 4 KiB, 1000 B) with CapsuleResps, then
	 * errors */
	SEED("split-reads", 0x40, 0x08, 0x03, 0x18, 0x28, 0x20, 0x08, 0x30,
	     0x01, 0x01, 0x11, 0x02, 0x21, 0x07, 0x01, 0x0b, 0x03, 0x25),
	/* a big write with two R2Ts in turn, small MAXH2CDATA */
	SEED("two-r2t", 0x00, 0x01, 0x00, 0x1a, 0x00, 0x01, 0x03),
	/* raw garbage on the I/O queue, then a reconnect */
	SEED("raw", 0x00, 0x00, 0x01, 0x08, 0x18, 0x00, 0x14, 0x07, 0x05, 0x00,
	     0x00, 0x18, 0x00, 0x00, 0x00, 0x00),
	/* a C2HData past the request's end, and one with a bad digest */
	SEED("pdu-range", 0x02, 0x00, 0x01, 0x18, 0x18, 0x00, 0x05, 0xc0, 0x00,
	     0x00, 0x00, 0x0c, 0x00, 0x10, 0x00, 0x00, 0x00, 0x15, 0x84, 0, 0,
	     0, 0, 0, 0, 0, 0),
	/* R2T out of range for a write; a CapsuleResp with a raw status */
	SEED("pdu-r2t", 0x00, 0x00, 0x01, 0x1a, 0x1a, 0x00, 0x05, 0x61, 0x00,
	     0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x15, 0x02, 0x00, 0x00,
	     0x02, 0x40, 0, 0, 0, 0),
	/* stale answers, a C2HTermReq, reconnect, then refuse */
	SEED("stale-term", 0x00, 0x04, 0x02, 0x08, 0x1a, 0x08, 0x00, 0x2b, 0x04,
	     0x06, 0x16, 0x00, 0x08, 0x00, 0x01, 0x04, 0x09),
	/* timeouts: a 50 ms request timeout and no answers for 64 ms */
	SEED("timeout", 0x00, 0xc0, 0x00, 0x08, 0xfa, 0xfa, 0xfa, 0xfa, 0xfa,
	     0xfa, 0xfa, 0xfa, 0xfa, 0xfa, 0xfa, 0xfa, 0xfa, 0xfa, 0xfa, 0xfa,
	     0xfa, 0xfa, 0xfa, 0xfa),
	/* past MDTS, discard, write zeroes, polled, small queue */
	SEED("mdts-polled", 0x04, 0x30, 0x47, 0x30, 0x05, 0x06, 0x08, 0x28,
	     0x1a, 0x22, 0x3b, 0x02, 0x00),
	/* refused with a Connect error after a close */
	SEED("refuse", 0x08, 0x00, 0x01, 0x08, 0x1a, 0x19, 0x07, 0x00),
	/* remote completions; a 68 KiB write gets an R2T for all of it and
	 * at once an error CapsuleResp, before its H2CData can be out: the
	 * host must not complete it while it still sends from its buffer
	 * (it resets the controller and sends it again) */
	SEED("rsp-before-h2cdata", 0x08, 0x00, 0x00, 0x23, 0x05, 0x09, 0x00,
	     0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00),
};

static void write_seeds(const char *dir)
{
	size_t i;

	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, seeds[i].name);
		f = fopen(path, "wb");
		if (!f || fwrite(seeds[i].bytes, 1, seeds[i].len, f) !=
				  seeds[i].len) {
			perror(path);
			exit(1);
		}
		fclose(f);
	}
	exit(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/*
	 * Not 127.0.0.1: a port of its own there is not enough on a machine
	 * where other tests run. Their ports come from the same ephemeral
	 * range (bound, released, bound again later), and their hosts
	 * reconnect to a port whose target they killed; such a host reached
	 * this controller, filled its connection slots or had its I/O queue
	 * Connect close ours, and the open of the next input failed
	 * ("Connection reset by peer", issue 22: reproduced by connecting to
	 * the harness's port from outside in a loop). An address of the
	 * 127/8 loopback net no other test uses, from the pid, cannot be
	 * reached that way.
	 */
	uint32_t host = 2 + (uint32_t)getpid() % 0xfffffd;
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(0x7f000000 | host) };
	socklen_t alen = sizeof(a);
	const char *v = getenv("FUZZ_HOST_VERBOSE");
	const char *sd = getenv("FUZZ_HOST_SEEDS");
	uint32_t x = 0x12345678;
	unsigned i;

	(void)argc;
	(void)argv;
	if (sd && *sd)
		write_seeds(sd);
	verbose = v && !strcmp(v, "1");
	want_stats = getenv("FUZZ_HOST_STATS") &&
		     !strcmp(getenv("FUZZ_HOST_STATS"), "1");
	pat = malloc(2 * (size_t)PAT_SIZE);
	inbufs = malloc((size_t)MAX_CONNS * IN_CAP);
	FUZZ_CHECK(pat && inbufs);
	for (i = 0; i < PAT_SIZE; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		pat[i] = (uint8_t)(x >> 7);
	}
	memcpy(pat + PAT_SIZE, pat, PAT_SIZE);
	for (i = 0; i < MAX_CONNS; i++)
		S.conns[i].fd = -1;

	S.lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	FUZZ_CHECK(S.lfd >= 0);
	FUZZ_CHECK(bind(S.lfd, (struct sockaddr *)&a, sizeof(a)) == 0);
	FUZZ_CHECK(listen(S.lfd, 64) == 0);
	FUZZ_CHECK(getsockname(S.lfd, (struct sockaddr *)&a, &alen) == 0);
	S.port = ntohs(a.sin_port);
	FUZZ_CHECK(inet_ntop(AF_INET, &a.sin_addr, S.addr, sizeof(S.addr)));
	S.wfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	FUZZ_CHECK(S.wfd >= 0);
	FUZZ_CHECK(pthread_create(&S.thread, NULL, ctl_main, NULL) == 0);
	atexit(ctl_exit);

	real_stderr = stderr;
	if (!verbose) {
		devnull = fopen("/dev/null", "w");
		FUZZ_CHECK(devnull != NULL);
		stderr = devnull;
	}
	return 0;
}
