// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the NVMe/TCP target's queues (src/target/tcp.c)
 * with the real target in process: one reactor on this thread
 * (tgt_local_*), kept across inputs, serving a subsystem with three null
 * namespaces (the third has two device tags and fails every seventh
 * request). Each input is what hosts send on up to four connections
 * (socketpairs); what the target sends back is decoded as a host would
 * and checked.
 *
 * Input: byte 0 picks how the streams are cut into writes (bits 2:0 the
 * largest chunk: 1, 7, 24, 100, 512, 4 KiB, 64 KiB or all at once; bits
 * 7:3 seed the sizes), so PDUs arrive whole, split and merged. Then
 * segments: a byte (bits 1:0 the connection, opened on first use; bit 7:
 * shut our sending side once the segment is written), a little-endian
 * 16-bit length (0: the rest of the input), the bytes. The I/O queue
 * Connect of the kernel's captures names controller 1: every input starts
 * from a subsystem whose next controller is 1.
 *
 * Checked: each connection's answer is a valid controller-to-host PDU
 * stream for the ICReq it was sent (ICResp first, digests and PDA as
 * negotiated, no PDU beyond MDTS); every CapsuleResp, R2T and C2HData
 * names a command id the host sent and not yet answered, and nothing
 * answers more commands than were sent; CapsuleResps name SQ 0 until one
 * names the queue a Connect made, and that one after; after a C2HTermReq
 * nothing more comes and the target closes at once; when the hosts are
 * done every queue and controller goes away (bounded), and nothing is
 * left at the devices.
 *
 * FUZZ_TARGET_VERBOSE=1 shows the target's log (silenced otherwise) and
 * each PDU it sends.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nvme/tcp.h"
#include "target/internal.h"
#include "target/target.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define NR_CONNS 4
#define MAX_STEPS 1000
/* the biggest PDU the target may send: a C2HData of MDTS */
#define OUT_MAX_PLEN (TGT_MAX_XFER + 256)
#define OUT_BUF (2 * OUT_MAX_PLEN)

struct conn {
	bool open; /* socketpair made, queue added */
	bool shut; /* our sending side is shut */
	bool dead; /* the target refused more bytes (EPIPE) */
	bool eof; /* the target closed its end */
	bool term; /* a C2HTermReq came */
	int fd; /* our (the host's) end */

	/* the bytes this connection is sent in all, from the input */
	uint8_t *in;
	size_t in_len;

	/* what the target sent, not yet decoded */
	uint8_t *out;
	size_t out_len;
	struct nvme_tcp_conn dec; /* the host's decoder state */
	uint16_t sqid; /* of the CapsuleResps so far */

	/* command ids sent, minus those answered */
	uint32_t *cid_left;
	uint32_t *cids; /* the ids sent, to clear cid_left again */
	size_t nr_cids;
};

static struct tgt t;
static struct tgt_reactor *r;
static struct conn conns[NR_CONNS];
static FILE *devnull, *real_stderr;
static bool verbose;

/* The target logs to stderr: quiet while it runs (sanitizer reports and
 * libFuzzer's own output write to fd 2 and are not affected). */
static void quiet(bool on)
{
	if (devnull)
		stderr = on ? devnull : real_stderr;
}

static void step(void)
{
	quiet(true);
	tgt_local_step(r, 0);
	quiet(false);
}

static void stop_target(void)
{
	if (!r)
		return;
	quiet(true);
	tgt_local_stop(r);
	quiet(false);
	r = NULL;
	tgt_config_free(&t);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *args[] = { "target", "--listen", "127.0.0.1:1", "--nqn",
			 "nqn.2026-01.io.example:test", "--ns",
			 "null:size=16m,memory_backed=1", "--ns",
			 "null:size=1m",
			 /* two device tags (commands wait for one) and
			  * failures (every seventh request) */
			 "--ns", "null:size=1m,hw_queue_depth=2,error_every=7",
			 "--allow-any-host" };
	char err[256];
	const char *v = getenv("FUZZ_TARGET_VERBOSE");
	unsigned i;

	(void)argc;
	(void)argv;
	if (tgt_config_args(&t, sizeof(args) / sizeof(args[0]), args, err,
			    sizeof(err))) {
		fprintf(stderr, "fuzz-target: %s\n", err);
		abort();
	}
	real_stderr = stderr;
	if (!v || strcmp(v, "1")) {
		devnull = fopen("/dev/null", "w");
		if (t.verbose)
			abort();
	} else {
		t.verbose = verbose = true;
	}
	r = tgt_local_start(&t);
	if (!r) {
		fprintf(stderr, "fuzz-target: tgt_local_start failed\n");
		abort();
	}
	for (i = 0; i < NR_CONNS; i++) {
		conns[i].out = malloc(OUT_BUF);
		conns[i].cid_left = calloc(65536, sizeof(uint32_t));
		FUZZ_CHECK(conns[i].out && conns[i].cid_left);
	}
	atexit(stop_target);
	return 0;
}

/* ---- What the hosts send ------------------------------------------------ */

/* Decode c's input as the target does, counting the commands by id. */
static void scan_input(struct conn *c)
{
	struct nvme_tcp_conn ctl = { .host = false,
				     .max_plen = TGT_MAXH2CDATA + 256 };
	size_t off = 0;

	c->cids = malloc((c->in_len / 72 + 1) * sizeof(*c->cids));
	FUZZ_CHECK(c->cids);
	while (off < c->in_len) {
		const uint8_t *p = c->in + off;
		struct nvme_tcp_rx_pdu pdu;
		int ret = nvme_tcp_rx_pdu(&ctl, p, c->in_len - off, &pdu);

		if (ret != NVME_TCP_RX_OK && ret != NVME_TCP_RX_DDGST_ERR)
			break;
		if (pdu.type == nvme_tcp_icreq) {
			uint8_t icresp[128];

			/* what rx_icreq answers */
			nvme_tcp_build_icresp(icresp, sizeof(icresp), 0,
					      p[11] & (NVME_TCP_HDGST_ENABLE |
						       NVME_TCP_DDGST_ENABLE),
					      TGT_MAXH2CDATA);
			if (nvme_tcp_conn_establish(&ctl, p, icresp))
				break;
		} else if (pdu.type == nvme_tcp_cmd) {
			uint16_t cid = nvme_get_le16(p + 10);

			if (!c->cid_left[cid]++)
				c->cids[c->nr_cids++] = cid;
		} else if (pdu.type == nvme_tcp_h2c_term) {
			break;
		}
		off += pdu.plen;
	}
}

/* ---- What the target answers -------------------------------------------- */

/* One PDU the target sent, already through the decoder */
static void check_pdu(struct conn *c, const uint8_t *p,
		      const struct nvme_tcp_rx_pdu *pdu)
{
	uint16_t cid, sqid;

	if (verbose)
		fprintf(stderr,
			"fuzz-target: connection %td: PDU type %u flags 0x%x "
			"plen %u, bytes 8..23: %02x%02x %02x%02x %08x %08x\n",
			c - conns, pdu->type, pdu->flags, pdu->plen, p[8], p[9],
			p[10], p[11], nvme_get_le32(p + 12),
			nvme_get_le32(p + 16));
	switch (pdu->type) {
	case nvme_tcp_icresp:
		/* the decoder took it as the first PDU: an ICReq came */
		FUZZ_CHECK(c->in_len >= 128);
		FUZZ_CHECK(nvme_tcp_conn_establish(&c->dec, c->in, p) == 0);
		FUZZ_CHECK(nvme_get_le32(p + 12) == TGT_MAXH2CDATA);
		break;
	case nvme_tcp_rsp:
		cid = nvme_get_le16(p + 8 + 12);
		FUZZ_CHECK(c->cid_left[cid] > 0);
		c->cid_left[cid]--;
		/* SQID: 0 until a Connect succeeds, then its QID */
		sqid = nvme_get_le16(p + 8 + 10);
		if (sqid != c->sqid) {
			FUZZ_CHECK(c->sqid == 0 && sqid <= TGT_MAX_IO_QUEUES);
			c->sqid = sqid;
		}
		break;
	case nvme_tcp_c2h_data:
		cid = nvme_get_le16(p + 8);
		FUZZ_CHECK(c->cid_left[cid] > 0);
		/* whole transfers only: one PDU each */
		FUZZ_CHECK(nvme_get_le32(p + 12) == 0);
		FUZZ_CHECK(nvme_get_le32(p + 16) == pdu->data_len);
		FUZZ_CHECK(pdu->flags & NVME_TCP_F_DATA_LAST);
		FUZZ_CHECK(pdu->data_len <= TGT_MAX_XFER);
		if (pdu->flags & NVME_TCP_F_DATA_SUCCESS)
			c->cid_left[cid]--;
		break;
	case nvme_tcp_r2t:
		cid = nvme_get_le16(p + 8);
		FUZZ_CHECK(c->cid_left[cid] > 0);
		/* the whole transfer at once, into a slot that exists */
		FUZZ_CHECK(nvme_get_le32(p + 12) == 0);
		FUZZ_CHECK(nvme_get_le32(p + 16) <= TGT_MAX_XFER);
		FUZZ_CHECK(nvme_get_le16(p + 10) < TGT_MAX_QUEUE_DEPTH);
		break;
	case nvme_tcp_c2h_term:
		c->term = true;
		break;
	default:
		/* the decoder lets only controller-to-host types through */
		FUZZ_CHECK(0);
	}
}

/* Decode what c has received so far, PDU by PDU */
static void check_out(struct conn *c)
{
	size_t off = 0;

	while (off < c->out_len) {
		const uint8_t *p = c->out + off;
		struct nvme_tcp_rx_pdu pdu;
		int ret;

		/* nothing after a C2HTermReq */
		FUZZ_CHECK(!c->term);
		ret = nvme_tcp_rx_pdu(&c->dec, p, c->out_len - off, &pdu);
		if (ret == NVME_TCP_RX_MORE) {
			FUZZ_CHECK(pdu.need <= OUT_MAX_PLEN);
			break;
		}
		if (ret != NVME_TCP_RX_OK)
			fprintf(stderr,
				"fuzz-target: connection %td: bad PDU at "
				"%zu: decoder says %d (type %u, fes %u, "
				"fei %u)\n",
				c - conns, off, ret, pdu.type, pdu.fes,
				pdu.fei);
		FUZZ_CHECK(ret == NVME_TCP_RX_OK);
		check_pdu(c, p, &pdu);
		off += pdu.plen;
	}
	if (off) {
		memmove(c->out, c->out + off, c->out_len - off);
		c->out_len -= off;
	}
}

/* Read (and check) whatever the target sent on c. */
static void drain(struct conn *c)
{
	bool got = false;

	while (c->open && !c->eof) {
		ssize_t n = recv(c->fd, c->out + c->out_len,
				 OUT_BUF - c->out_len, MSG_DONTWAIT);

		if (n > 0) {
			/* nothing after a C2HTermReq */
			FUZZ_CHECK(!c->term);
			c->out_len += (size_t)n;
			got = true;
			if (c->out_len == OUT_BUF) {
				check_out(c);
				FUZZ_CHECK(c->out_len < OUT_BUF);
			}
			continue;
		}
		/* ECONNRESET: it closed with bytes of ours unread (after
		 * everything it sent was read, as EOF would be) */
		if (n == 0 || errno == ECONNRESET) {
			c->eof = true;
			break;
		}
		if (errno == EINTR)
			continue;
		FUZZ_CHECK(errno == EAGAIN || errno == EWOULDBLOCK);
		break;
	}
	if (got)
		check_out(c);
}

static void drain_all(void)
{
	unsigned i;

	for (i = 0; i < NR_CONNS; i++)
		drain(&conns[i]);
}

/* ---- Per input ------------------------------------------------------------ */

static uint32_t rng;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static size_t chunk_max;

static size_t next_chunk(void)
{
	if (!chunk_max)
		return SIZE_MAX;
	return 1 + next_rand() % chunk_max;
}

static void conn_open(struct conn *c)
{
	int fds[2];

	FUZZ_CHECK(socketpair(AF_UNIX,
			      SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
			      fds) == 0);
	c->open = true;
	c->fd = fds[1];
	c->dec = (struct nvme_tcp_conn){ .host = true,
					 .max_plen = OUT_MAX_PLEN };
	quiet(true);
	tgt_local_add(r, fds[0], &t.ports[0]);
	quiet(false);
}

static void conn_shut(struct conn *c)
{
	if (!c->open || c->shut)
		return;
	c->shut = true;
	shutdown(c->fd, SHUT_WR);
}

/* Send len bytes on c in chunks, the target running in between. */
static void conn_send(struct conn *c, const uint8_t *p, size_t len)
{
	unsigned stuck = 0;

	while (len && !c->dead) {
		size_t want = next_chunk();
		ssize_t n;

		if (want > len)
			want = len;
		n = send(c->fd, p, want, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			FUZZ_CHECK(errno == EAGAIN || errno == EWOULDBLOCK ||
				   errno == EPIPE || errno == EINTR ||
				   errno == ECONNRESET);
			if (errno == EPIPE || errno == ECONNRESET) {
				/* the target closed: the rest is not read */
				c->dead = true;
				break;
			}
			/* a target that never reads again is a hang */
			FUZZ_CHECK(++stuck < MAX_STEPS);
		} else {
			stuck = 0;
			p += n;
			len -= (size_t)n;
		}
		step();
		drain_all();
	}
}

/* Step until the target has nothing left to do for the moment. */
static void settle(void)
{
	unsigned i;

	for (i = 0; i < 4 || r->dev_inflight || r->wait_head || r->flush_list;
	     i++) {
		FUZZ_CHECK(i < MAX_STEPS);
		step();
		drain_all();
	}
}

static void reset_subsys(struct tgt_subsys *s)
{
	/* every controller went with its queues */
	FUZZ_CHECK(s->ctrls == NULL);
	s->next_cntlid = s->cntlid_min;
}

static void finish(void)
{
	unsigned i, steps;

	settle();
	/* a C2HTermReq is the last thing before the close */
	for (i = 0; i < NR_CONNS; i++)
		FUZZ_CHECK(!conns[i].term || conns[i].eof);
	for (i = 0; i < NR_CONNS; i++)
		conn_shut(&conns[i]);
	for (steps = 0; tgt_local_nr_queues(r); steps++) {
		if (steps == MAX_STEPS) {
			fprintf(stderr,
				"fuzz-target: %u queues still open after %u "
				"steps with every host gone\n",
				tgt_local_nr_queues(r), steps);
			abort();
		}
		step();
		drain_all();
	}
	drain_all();
	for (i = 0; i < NR_CONNS; i++) {
		struct conn *c = &conns[i];
		size_t k;

		if (c->open) {
			/* the target's end is closed: EOF, all decoded */
			FUZZ_CHECK(c->eof);
			check_out(c);
			close(c->fd);
		}
		for (k = 0; k < c->nr_cids; k++)
			c->cid_left[c->cids[k]] = 0;
		free(c->cids);
		free(c->in);
		*c = (struct conn){ .out = c->out, .cid_left = c->cid_left };
	}
	FUZZ_CHECK(!r->dev_inflight && !r->wait_head && !r->flush_list);
	for (i = 0; i < t.nr_subsys; i++)
		reset_subsys(t.subsys[i]);
	reset_subsys(&t.disc);
}

/* Walk the segments: with send, send them; else gather each
 * connection's bytes. */
static void walk(const uint8_t *data, size_t size, bool send)
{
	size_t off = 1;

	while (off + 3 <= size) {
		uint8_t how = data[off];
		size_t len = nvme_get_le16(data + off + 1);
		struct conn *c = &conns[how & 3];

		off += 3;
		if (!len || len > size - off)
			len = size - off;
		if (send) {
			if (!c->open)
				conn_open(c);
			if (!c->shut)
				conn_send(c, data + off, len);
			if (how & 0x80)
				conn_shut(c);
		} else if (!c->shut) {
			memcpy(c->in + c->in_len, data + off, len);
			c->in_len += len;
			if (how & 0x80)
				c->shut = true;
		}
		off += len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t chunks[8] = { 1, 7, 24, 100, 512, 4096, 65536, 0 };
	unsigned i;

	if (size < 4)
		return 0;
	chunk_max = chunks[data[0] & 7];
	rng = 0x9e3779b9u ^ (uint32_t)(data[0] >> 3) * 0x85ebca6bu;

	for (i = 0; i < NR_CONNS; i++) {
		conns[i].in = malloc(size);
		FUZZ_CHECK(conns[i].in);
	}
	walk(data, size, false);
	for (i = 0; i < NR_CONNS; i++) {
		conns[i].shut = false;
		scan_input(&conns[i]);
	}
	walk(data, size, true);
	finish();
	return 0;
}
