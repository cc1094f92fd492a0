// SPDX-License-Identifier: MIT
/*
 * Wire-level behaviour test of `mqblk target`: a raw NVMe/TCP host, built on
 * the project's own PDU code, that sends good and bad input and checks what
 * the target answers (TAP output; `wire MQBLK_BINARY`).
 *
 * Expectations follow the NVMe/TCP binding (TP 8000) and the NVMe over
 * Fabrics spec; where those leave a choice, what the Linux kernel's nvmet
 * does. Every receive has a timeout: a hang is a failure, not a hung test.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nvme/auth.h"
#include "nvme/nvme.h"
#include "nvme/tcp.h"

#define SUBNQN "nqn.2026-12.io.mqblk:wire"
#define HOST_OK "nqn.2026-12.io.mqblk:host-ok"
#define HOST_OTHER "nqn.2026-12.io.mqblk:host-other"
/* scenario J: a host that must authenticate (DH-HMAC-CHAP), its secret
 * (bytes 0..31, transformed with SHA-256) and the controller's (nvme
 * gen-dhchap-key -l 48 -m 2) */
#define HOST_AUTH "nqn.2026-12.io.mqblk:host-auth"
#define AUTH_KEY "DHHC-1:01:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:"
#define AUTH_CTRL_KEY                                                        \
	"DHHC-1:02:lVCFqdfo0VZ/tRLHd10ixuXcppe/O0Enmuq7sXAFP5j0lnd3GU2zJVZB" \
	"IWtrRQuQ9gVKLA==:"
/* another valid secret: the wrong one */
#define AUTH_BAD_KEY \
	"DHHC-1:01:deiiB+6hb21bH5K7OhySoV94KEqeyYGALcLvO47Fc6T8s4Af:"
#define FILE_SIZE (16u << 20)
/* nsid 3 (and of the --config target, nsid 1): a null device whose every
 * I/O takes STALL_NS_MS, longer than the target's --stall-ms */
#define STALL_NS_MS 1200
#define STALL_MS 300
#define NR_NS 3
#define NULL_SIZE (64u << 20)
#define TIMEOUT_MS 5000
#define START_TIMEOUT_MS 20000
#define BIG_IO (256u << 10)

/* wc_* errors (the reason is in why[]) */
#define W_ERR -1 /* a check failed */
#define W_EOF -2 /* the target closed (FIN or RST) */
#define W_TIMEOUT -3
#define W_PROTO -4 /* our decoder refused what the target sent */
#define W_DDGST -5 /* a data digest from the target was wrong */

enum { XFER_AUTO, XFER_INCAPSULE, XFER_R2T };
enum { DIR_NONE = 0, DIR_C2H = 1, DIR_H2C = 2 };

static char why[2048];
static unsigned nr_tests, nr_failed;

static const char *mqblk_bin;
static int port, dport;
static int port2; /* a second --listen port: another path, ANA scenario */
static char ctl_path[300];
static unsigned disc_found2; /* discovery(): entries for port2 */
static pid_t tgt_pid = -1;
static int tgt_status = -1;
static char tmpdir[256], file_path[300], log_path[300], sock_path[300];
static bool ns2_given; /* WIRE_NS2: nsid 2 is the caller's block device */

/* ---- Reporting ------------------------------------------------------------ */

static int fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return code;
}

/* Prefix why[] with what was being done */
static int ctx(int ret, const char *what)
{
	size_t n = strlen(what);

	if (!ret)
		return 0;
	if (n + 2 >= sizeof(why))
		return ret;
	/* "what: " in front, the old reason cut to fit */
	memmove(why + n + 2, why, sizeof(why) - n - 2);
	why[sizeof(why) - 1] = 0;
	memcpy(why, what, n);
	why[n] = ':';
	why[n + 1] = ' ';
	return ret;
}

static void tap(const char *name, int ret)
{
	nr_tests++;
	if (!ret) {
		printf("ok %u - %s\n", nr_tests, name);
	} else {
		nr_failed++;
		printf("not ok %u - %s: %s\n", nr_tests, name, why);
	}
	fflush(stdout);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void fill(void *buf, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	uint8_t *b = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (uint8_t)x;
	}
}

static int compare(const void *got, const void *want, size_t len,
		   const char *what)
{
	const uint8_t *g = got, *w = want;
	size_t i;

	for (i = 0; i < len; i++)
		if (g[i] != w[i])
			return fail(W_ERR,
				    "%s: byte %zu is 0x%02x, expected 0x%02x",
				    what, i, g[i], w[i]);
	return 0;
}

static bool all_zero(const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* ---- Sockets -------------------------------------------------------------- */

static int free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), p = -1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    !getsockname(fd, (struct sockaddr *)&sa, &sl))
		p = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return p;
}

static int tcp_connect(int p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)p) };
	int one = 1, fd;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(W_ERR, "socket: %s", strerror(errno));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(fd);
		return fail(W_ERR, "connect to port %d: %s", p, strerror(e));
	}
	return fd;
}

static int send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *b = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		ssize_t n;
		int r = poll(&pfd, 1, TIMEOUT_MS);

		if (r == 0)
			return fail(W_TIMEOUT, "send blocked for %d ms",
				    TIMEOUT_MS);
		if (r < 0 && errno == EINTR)
			continue;
		n = send(fd, b, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			if (errno == EPIPE || errno == ECONNRESET)
				return fail(W_EOF, "send: %s", strerror(errno));
			return fail(W_ERR, "send: %s", strerror(errno));
		}
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

static int recv_exact(int fd, void *buf, size_t len, int timeout_ms)
{
	uint8_t *b = buf;
	uint64_t end = now_ms() + (uint64_t)timeout_ms;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ms();
		ssize_t n;
		int r;

		if (now >= end)
			return fail(W_TIMEOUT,
				    "nothing from the target in %d ms",
				    timeout_ms);
		r = poll(&pfd, 1, (int)(end - now));
		if (r == 0)
			return fail(W_TIMEOUT,
				    "nothing from the target in %d ms",
				    timeout_ms);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return fail(W_ERR, "poll: %s", strerror(errno));
		}
		n = recv(fd, b, len, MSG_DONTWAIT);
		if (n == 0)
			return fail(W_EOF, "the target closed the connection");
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			if (errno == ECONNRESET)
				return fail(W_EOF,
					    "the target reset the connection");
			return fail(W_ERR, "recv: %s", strerror(errno));
		}
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---- One NVMe/TCP connection: a queue ------------------------------------- */

struct wc {
	int fd;
	struct nvme_tcp_conn c;
	uint16_t qid;
	uint16_t next_cid;
	bool sqflow_off;
	uint32_t incap_max; /* in-capsule data we may send */
	uint8_t *rx;
	size_t rx_cap;
	struct nvme_tcp_rx_pdu p; /* the PDU in rx */
	unsigned nr_success; /* reads answered by C2HData SUCCESS */
	unsigned nr_reads_ok; /* reads with data that succeeded, either way */
};

static void wc_init(struct wc *w)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->c.host = true;
	w->next_cid = 1;
}

static void wc_close(struct wc *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->rx);
	wc_init(w);
}

static int wc_reserve(struct wc *w, size_t n)
{
	uint8_t *nb;

	if (n <= w->rx_cap)
		return 0;
	nb = realloc(w->rx, n);
	if (!nb)
		return fail(W_ERR, "out of memory");
	w->rx = nb;
	w->rx_cap = n;
	return 0;
}

/* Receive one PDU into w->rx, validated by the shared decoder. */
static int wc_recv_to(struct wc *w, int timeout_ms)
{
	size_t have = 0, need = sizeof(struct nvme_tcp_hdr);
	int ret;

	for (;;) {
		if (wc_reserve(w, need))
			return W_ERR;
		ret = recv_exact(w->fd, w->rx + have, need - have, timeout_ms);
		if (ret)
			return ret;
		have = need;
		ret = nvme_tcp_rx_header(&w->c, w->rx, have, &w->p);
		if (ret == NVME_TCP_RX_MORE) {
			need = w->p.need;
			continue;
		}
		if (ret != NVME_TCP_RX_OK)
			return fail(W_PROTO,
				    "the target sent a PDU our decoder refuses "
				    "(type 0x%02x flags 0x%02x hlen %u pdo %u "
				    "plen %u): FES %u FEI %u",
				    w->rx[0], w->rx[1], w->rx[2], w->rx[3],
				    nvme_get_le32(w->rx + 4), w->p.fes,
				    w->p.fei);
		if (have < w->p.plen) {
			if (wc_reserve(w, w->p.plen))
				return W_ERR;
			ret = recv_exact(w->fd, w->rx + have, w->p.plen - have,
					 timeout_ms);
			if (ret)
				return ret;
			have = w->p.plen;
		}
		ret = nvme_tcp_rx_pdu(&w->c, w->rx, have, &w->p);
		if (ret == NVME_TCP_RX_DDGST_ERR)
			return fail(W_DDGST,
				    "wrong data digest in a PDU of type 0x%02x "
				    "from the target",
				    w->p.type);
		if (ret != NVME_TCP_RX_OK)
			return fail(W_PROTO,
				    "the target's PDU type 0x%02x refused: FES "
				    "%u FEI %u",
				    w->p.type, w->p.fes, w->p.fei);
		return 0;
	}
}

static int wc_recv(struct wc *w)
{
	return wc_recv_to(w, TIMEOUT_MS);
}

static int wc_open(struct wc *w, int p)
{
	int fd;

	wc_init(w);
	fd = tcp_connect(p);
	if (fd < 0)
		return fd;
	w->fd = fd;
	/* the biggest PDU a target may send us: C2HData of MDTS, and more */
	w->c.max_plen = 4u << 20;
	return 0;
}

/* ICReq/ICResp: digest = NVME_TCP_*DGST_ENABLE asked for. */
static int wc_ic(struct wc *w, uint8_t digest)
{
	uint8_t icreq[128];
	const uint8_t *r;
	ssize_t n = nvme_tcp_build_icreq(icreq, sizeof(icreq), 0, digest, 0);
	int ret;

	if (n != 128)
		return fail(W_ERR, "build_icreq: %zd", n);
	ret = send_all(w->fd, icreq, 128);
	if (ret)
		return ctx(ret, "ICReq");
	ret = wc_recv(w);
	if (ret)
		return ctx(ret, "ICResp");
	r = w->rx;
	if (w->p.type != nvme_tcp_icresp)
		return fail(W_ERR, "answer to ICReq is PDU type 0x%02x",
			    w->p.type);
	if (nvme_get_le16(r + 8))
		return fail(W_ERR, "ICResp PFV %u, expected 0",
			    nvme_get_le16(r + 8));
	if (r[10])
		return fail(W_ERR, "ICResp CPDA %u, expected 0", r[10]);
	if (r[11] != digest)
		return fail(W_ERR, "ICResp digest 0x%02x, asked for 0x%02x",
			    r[11], digest);
	if (nvme_get_le32(r + 12) % 4 || nvme_get_le32(r + 12) < 4096)
		return fail(W_ERR, "ICResp MAXH2CDATA %u",
			    nvme_get_le32(r + 12));
	if (nvme_tcp_conn_establish(&w->c, icreq, r))
		return fail(W_ERR, "conn_establish refused the ICResp");
	return 0;
}

static void sgl_set(union nvme_command *cmd, uint8_t type, uint32_t len)
{
	cmd->common.dptr.sgl.addr = cpu_to_le64(0);
	cmd->common.dptr.sgl.length = cpu_to_le32(len);
	memset(cmd->common.dptr.sgl.rsvd, 0, 3);
	cmd->common.dptr.sgl.type = type;
}

/* Send a CapsuleCmd (cmd as given, no SGL changes) with optional data. */
static int wc_send_capsule(struct wc *w, const union nvme_command *cmd,
			   const void *data, uint32_t len)
{
	size_t cap = 256 + (size_t)len;
	uint8_t *b = malloc(cap);
	ssize_t n;
	int ret;

	if (!b)
		return fail(W_ERR, "out of memory");
	n = nvme_tcp_build_cmd(&w->c, b, cap, cmd, data, len);
	if (n < 0) {
		free(b);
		return fail(W_ERR, "build_cmd: %zd", n);
	}
	ret = send_all(w->fd, b, (size_t)n);
	free(b);
	return ret;
}

/* One H2CData PDU: header from the encoder, then the data and digest. */
static int wc_send_h2c(struct wc *w, uint16_t cid, uint16_t ttag, uint32_t off,
		       const void *data, uint32_t len, uint8_t flags)
{
	uint8_t hdr[128], dg[4];
	ssize_t pdo = nvme_tcp_build_data(&w->c, hdr, sizeof(hdr), cid, ttag,
					  off, NULL, len, flags);
	int ret;

	if (pdo < 0)
		return fail(W_ERR, "build_data: %zd", pdo);
	ret = send_all(w->fd, hdr, (size_t)pdo);
	if (!ret)
		ret = send_all(w->fd, data, len);
	if (!ret && w->c.ddgst) {
		nvme_tcp_put_ddgst(dg, data, len);
		ret = send_all(w->fd, dg, 4);
	}
	return ret;
}

static uint16_t cqe_status(const struct nvme_completion *cqe)
{
	return nvme_cqe_status(cqe) & 0x7fff;
}

/*
 * Run one command to its end: the data in the capsule or by R2T/H2CData
 * (split at MAXH2CDATA), or back by C2HData; *cqe gets the completion
 * (a C2HData SUCCESS makes one with status 0).
 */
static int wc_exec(struct wc *w, union nvme_command *cmd, void *buf,
		   uint32_t len, int dir, int mode, struct nvme_completion *cqe)
{
	uint16_t cid = w->next_cid++;
	uint32_t got = 0, sent = 0;
	bool incap = false;
	int ret;

	if (w->next_cid == 0xffff)
		w->next_cid = 1;
	cmd->common.command_id = cid;
	cmd->common.flags =
		(uint8_t)((cmd->common.flags & ~0xc0) | NVME_CMD_SGL_METABUF);
	if (dir == DIR_H2C && len &&
	    (mode == XFER_INCAPSULE ||
	     (mode == XFER_AUTO && len <= w->incap_max)))
		incap = true;
	if (incap)
		sgl_set(cmd, NVME_SGL_TCP_INCAPSULE, len);
	else
		sgl_set(cmd, NVME_SGL_TCP_TRANSPORT, len);
	ret = wc_send_capsule(w, cmd, incap ? buf : NULL, incap ? len : 0);
	if (ret)
		return ctx(ret, "sending the capsule");
	for (;;) {
		const uint8_t *b;
		uint32_t off, dl;

		ret = wc_recv(w);
		if (ret)
			return ctx(ret, "waiting for the command's answer");
		b = w->rx;
		switch (w->p.type) {
		case nvme_tcp_rsp:
			memcpy(cqe, b + 8, sizeof(*cqe));
			if (cqe->command_id != cid)
				return fail(W_ERR,
					    "CapsuleResp for cid %u, expected "
					    "%u",
					    cqe->command_id, cid);
			/* a refused Connect comes from no queue yet: nvmet
			 * answers SQID 0 then too */
			if (le16_to_cpu(cqe->sq_id) != w->qid &&
			    !(cmd->common.opcode == nvme_fabrics_command &&
			      cmd->fabrics.fctype ==
				      nvme_fabrics_type_connect &&
			      cqe_status(cqe)))
				return fail(W_ERR, "CQE SQID %u on qid %u",
					    le16_to_cpu(cqe->sq_id), w->qid);
			if (dir == DIR_C2H && !cqe_status(cqe) && got != len)
				return fail(W_ERR,
					    "success after %u of %u bytes", got,
					    len);
			if (dir == DIR_H2C && !incap && !cqe_status(cqe) &&
			    sent != len)
				return fail(W_ERR,
					    "success after %u of %u bytes sent",
					    sent, len);
			if (dir == DIR_C2H && len && !cqe_status(cqe))
				w->nr_reads_ok++;
			return 0;
		case nvme_tcp_c2h_data:
			off = nvme_get_le32(b + 12);
			dl = nvme_get_le32(b + 16);
			if (memcmp(b + 8, &cid, 2))
				return fail(W_ERR, "C2HData for another cid");
			if (dir != DIR_C2H)
				return fail(W_ERR,
					    "C2HData for a command without "
					    "controller-to-host data");
			if (off != got || dl > len - got)
				return fail(W_ERR,
					    "C2HData offset %u length %u: "
					    "expected offset %u, %u bytes in "
					    "all",
					    off, dl, got, len);
			memcpy((uint8_t *)buf + off, b + w->p.data_off, dl);
			got += dl;
			if (w->p.flags & NVME_TCP_F_DATA_SUCCESS) {
				if (!w->sqflow_off)
					return fail(
						W_ERR,
						"C2HData SUCCESS on a "
						"queue with SQ flow control");
				if (got != len)
					return fail(W_ERR,
						    "SUCCESS after %u of %u "
						    "bytes",
						    got, len);
				memset(cqe, 0, sizeof(*cqe));
				cqe->command_id = cid;
				w->nr_success++;
				w->nr_reads_ok++;
				return 0;
			}
			break;
		case nvme_tcp_r2t: {
			uint16_t ttag;
			uint32_t r2to = nvme_get_le32(b + 12);
			uint32_t r2tl = nvme_get_le32(b + 16), done = 0;

			memcpy(&ttag, b + 10, 2);
			if (memcmp(b + 8, &cid, 2))
				return fail(W_ERR, "R2T for another cid");
			if (dir != DIR_H2C || incap)
				return fail(W_ERR,
					    "R2T for a command with no data "
					    "to solicit");
			if (r2to != sent || r2tl > len - sent)
				return fail(W_ERR,
					    "R2T offset %u length %u: sent %u "
					    "of %u",
					    r2to, r2tl, sent, len);
			while (done < r2tl) {
				uint32_t n = r2tl - done;

				if (n > w->c.maxh2cdata)
					n = w->c.maxh2cdata;
				ret = wc_send_h2c(w, cid, ttag, r2to + done,
						  (uint8_t *)buf + r2to + done,
						  n,
						  done + n == r2tl ?
							  NVME_TCP_F_DATA_LAST :
							  0);
				if (ret)
					return ctx(ret, "H2CData");
				done += n;
			}
			sent += r2tl;
			break;
		}
		case nvme_tcp_c2h_term:
			return fail(W_ERR,
				    "the target sent C2HTermReq FES %u FEI %u",
				    nvme_get_le16(b + 8),
				    nvme_get_le32(b + 10));
		default:
			return fail(W_ERR, "unexpected PDU type 0x%02x",
				    w->p.type);
		}
	}
}

/* wc_exec, and the status must be want. */
static int wc_expect(struct wc *w, union nvme_command *cmd, void *buf,
		     uint32_t len, int dir, int mode, uint16_t want,
		     struct nvme_completion *out)
{
	struct nvme_completion cqe;
	int ret = wc_exec(w, cmd, buf, len, dir, mode, &cqe);

	if (ret)
		return ret;
	if (out)
		*out = cqe;
	if (cqe_status(&cqe) != want)
		return fail(W_ERR, "status %#x, expected %#x (DW0 %#x)",
			    cqe_status(&cqe), want,
			    le32_to_cpu(cqe.result.u32));
	return 0;
}

/* The connection must be closed by the target (nothing more on it). */
static int wc_expect_eof(struct wc *w)
{
	uint8_t b;
	int ret = recv_exact(w->fd, &b, 1, TIMEOUT_MS);

	if (ret == W_EOF)
		return 0;
	if (!ret)
		return fail(W_ERR,
			    "the connection stayed open: got a byte 0x%02x", b);
	return ctx(ret, "the connection stayed open");
}

/* A C2HTermReq (after any R2Ts) with fes (fei < 0: any), then close. */
static int wc_expect_term(struct wc *w, uint16_t fes, long fei,
			  uint16_t *got_fes, uint32_t *got_fei)
{
	uint16_t f;
	uint32_t i;
	int ret;

	for (;;) {
		ret = wc_recv(w);
		if (ret)
			return ctx(ret, "expected a C2HTermReq");
		if (w->p.type != nvme_tcp_r2t)
			break;
	}
	if (w->p.type != nvme_tcp_c2h_term)
		return fail(W_ERR, "expected a C2HTermReq, got PDU type 0x%02x",
			    w->p.type);
	f = nvme_get_le16(w->rx + 8);
	i = nvme_get_le32(w->rx + 10);
	if (got_fes)
		*got_fes = f;
	if (got_fei)
		*got_fei = i;
	if (fes && f != fes)
		return fail(W_ERR, "C2HTermReq FES %u (FEI %u), expected %u", f,
			    i, fes);
	if (fes && fei >= 0 && i != (uint32_t)fei)
		return fail(W_ERR, "C2HTermReq FEI %u, expected %ld", i, fei);
	return ctx(wc_expect_eof(w), "after the C2HTermReq");
}

/* ---- Commands --------------------------------------------------------------- */

static const uint8_t hostid_ok[16] = { 0x6d, 0x71, 0x62, 0x6c, 0x6b, 0x2d,
				       0x77, 0x69, 0x72, 0x65, 0x2d, 0x68,
				       0x6f, 0x73, 0x74, 0x01 };

/* KATO a Connect of an admin queue sends (ms; 0: none, the default) */
static uint32_t connect_kato_ms;

static int wc_connect(struct wc *w, const char *subnqn, const char *host,
		      uint16_t qid, uint16_t cntlid, uint16_t sqsize,
		      uint8_t cattr, struct nvme_completion *cqe)
{
	struct nvmf_connect_data d;
	union nvme_command cmd;
	int ret;

	memset(&d, 0, sizeof(d));
	memset(&cmd, 0, sizeof(cmd));
	memcpy(d.hostid, hostid_ok, 16);
	d.hostid[15] = (uint8_t)strlen(host);
	d.cntlid = cpu_to_le16(cntlid);
	strncpy(d.subsysnqn, subnqn, sizeof(d.subsysnqn) - 1);
	strncpy(d.hostnqn, host, sizeof(d.hostnqn) - 1);
	cmd.connect.opcode = nvme_fabrics_command;
	cmd.connect.fctype = nvme_fabrics_type_connect;
	cmd.connect.qid = cpu_to_le16(qid);
	cmd.connect.sqsize = cpu_to_le16(sqsize);
	cmd.connect.cattr = cattr;
	cmd.connect.kato = cpu_to_le32(qid ? 0 : connect_kato_ms);
	/* the response comes on the queue being connected */
	w->qid = qid;
	/* the Connect's data always in the capsule, as Linux does */
	ret = wc_exec(w, &cmd, &d, sizeof(d), DIR_H2C, XFER_INCAPSULE, cqe);
	if (ret)
		return ctx(ret, "Connect");
	if (!cqe_status(cqe))
		w->sqflow_off = cattr & NVME_CONNECT_DISABLE_SQFLOW;
	return 0;
}

static int prop_get(struct wc *w, uint32_t off, bool wide, uint64_t *val,
		    uint16_t *status)
{
	union nvme_command cmd;
	struct nvme_completion cqe;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	cmd.prop_get.opcode = nvme_fabrics_command;
	cmd.prop_get.fctype = nvme_fabrics_type_property_get;
	cmd.prop_get.attrib = wide ? NVMF_PROP_ATTR_8BYTE : 0;
	cmd.prop_get.offset = cpu_to_le32(off);
	ret = wc_exec(w, &cmd, NULL, 0, DIR_NONE, XFER_AUTO, &cqe);
	if (ret)
		return ctx(ret, "Property Get");
	*status = cqe_status(&cqe);
	*val = le64_to_cpu(cqe.result.u64);
	return 0;
}

static int prop_set(struct wc *w, uint32_t off, uint64_t val, uint16_t *status)
{
	union nvme_command cmd;
	struct nvme_completion cqe;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	cmd.prop_set.opcode = nvme_fabrics_command;
	cmd.prop_set.fctype = nvme_fabrics_type_property_set;
	cmd.prop_set.offset = cpu_to_le32(off);
	cmd.prop_set.value = cpu_to_le64(val);
	ret = wc_exec(w, &cmd, NULL, 0, DIR_NONE, XFER_AUTO, &cqe);
	if (ret)
		return ctx(ret, "Property Set");
	*status = cqe_status(&cqe);
	return 0;
}

/* CC.EN with the NVM command set, 4 KiB pages, 64/16-byte entries. */
static int wc_enable(struct wc *w)
{
	uint64_t v = 0, end = now_ms() + TIMEOUT_MS;
	uint16_t st;
	int ret;

	ret = prop_set(w, NVME_REG_CC, 0x460001, &st);
	if (ret)
		return ret;
	if (st)
		return fail(W_ERR, "Property Set CC: status %#x", st);
	for (;;) {
		ret = prop_get(w, NVME_REG_CSTS, false, &v, &st);
		if (ret)
			return ret;
		if (st)
			return fail(W_ERR, "Property Get CSTS: status %#x", st);
		if (v & NVME_CSTS_CFS)
			return fail(W_ERR, "CSTS.CFS set (CSTS %#llx)",
				    (unsigned long long)v);
		if (v & NVME_CSTS_RDY)
			return 0;
		if (now_ms() > end)
			return fail(W_TIMEOUT, "CSTS.RDY not set in %d ms",
				    TIMEOUT_MS);
		usleep(10000);
	}
}

static int identify(struct wc *w, uint8_t cns, uint32_t nsid, void *buf)
{
	union nvme_command cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.identify.opcode = nvme_admin_identify;
	cmd.identify.nsid = cpu_to_le32(nsid);
	cmd.identify.cns = cns;
	return ctx(wc_expect(w, &cmd, buf, 4096, DIR_C2H, XFER_AUTO, 0, NULL),
		   "Identify");
}

static int get_log(struct wc *w, uint8_t lid, void *buf, uint32_t len)
{
	union nvme_command cmd;
	uint32_t numd = len / 4 - 1;

	memset(&cmd, 0, sizeof(cmd));
	cmd.get_log_page.opcode = nvme_admin_get_log_page;
	cmd.get_log_page.lid = lid;
	cmd.get_log_page.numdl = cpu_to_le16((uint16_t)numd);
	cmd.get_log_page.numdu = cpu_to_le16((uint16_t)(numd >> 16));
	return ctx(wc_expect(w, &cmd, buf, len, DIR_C2H, XFER_AUTO, 0, NULL),
		   "Get Log Page");
}

static int set_features(struct wc *w, uint8_t fid, uint32_t v, uint32_t *dw0)
{
	union nvme_command cmd;
	struct nvme_completion cqe;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	cmd.features.opcode = nvme_admin_set_features;
	cmd.features.fid = cpu_to_le32(fid);
	cmd.features.dword11 = cpu_to_le32(v);
	ret = wc_expect(w, &cmd, NULL, 0, DIR_NONE, XFER_AUTO, 0, &cqe);
	if (ret)
		return ctx(ret, "Set Features");
	*dw0 = le32_to_cpu(cqe.result.u32);
	return 0;
}

static void rw_cmd(union nvme_command *cmd, uint8_t opcode, uint32_t nsid,
		   uint64_t slba, uint32_t nlb)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->rw.opcode = opcode;
	cmd->rw.nsid = cpu_to_le32(nsid);
	cmd->rw.slba = cpu_to_le64(slba);
	cmd->rw.length = cpu_to_le16((uint16_t)(nlb - 1));
}

/* ---- A controller: admin queue and I/O queues -------------------------- */

struct ctrl {
	struct wc admin;
	struct wc io[4]; /* by qid */
	uint16_t cntlid;
	uint8_t digest;
	uint8_t idc[4096];
	unsigned lba_shift[4]; /* by nsid */
	uint64_t nsze[4];
	uint32_t max_xfer;
	uint32_t incap; /* I/O in-capsule data: IOCCSZ * 16 - 64 */
};

static void ctrl_init(struct ctrl *x)
{
	unsigned i;

	memset(x, 0, sizeof(*x));
	wc_init(&x->admin);
	for (i = 0; i < 4; i++)
		wc_init(&x->io[i]);
}

static void ctrl_close(struct ctrl *x)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		wc_close(&x->io[i]);
	wc_close(&x->admin);
}

/* IC and Connect of the admin queue; status in *st. */
static int ctrl_admin(struct ctrl *x, int p, const char *subnqn,
		      const char *host, uint8_t digest, uint16_t *st)
{
	struct nvme_completion cqe;
	int ret;

	ctrl_init(x);
	x->digest = digest;
	ret = wc_open(&x->admin, p);
	if (!ret)
		ret = wc_ic(&x->admin, digest);
	x->admin.incap_max = 8192;
	if (!ret)
		ret = wc_connect(&x->admin, subnqn, host, 0,
				 NVME_CNTLID_DYNAMIC, 31, 0, &cqe);
	if (ret)
		return ctx(ret, "admin queue");
	*st = cqe_status(&cqe);
	if (!*st)
		x->cntlid = le16_to_cpu(cqe.result.u16);
	return 0;
}

static int ctrl_identify(struct ctrl *x)
{
	uint8_t ns[4096];
	unsigned nsid;
	int ret;

	ret = identify(&x->admin, NVME_ID_CNS_CTRL, 0, x->idc);
	if (ret)
		return ret;
	if (x->idc[77] == 0 || x->idc[77] > 12)
		return fail(W_ERR, "MDTS %u", x->idc[77]);
	x->max_xfer = 4096u << x->idc[77];
	x->incap = nvme_get_le32(x->idc + 1792) * 16 - 64;
	for (nsid = 1; nsid <= NR_NS; nsid++) {
		unsigned fmt, lbads;

		ret = identify(&x->admin, NVME_ID_CNS_NS, nsid, ns);
		if (ret)
			return ctx(ret, "namespace");
		if (!nvme_get_le64(ns))
			break; /* not an active namespace: the last was */
		fmt = ns[26] & 0xf;
		lbads = ns[128 + 4 * fmt + 2];
		if (lbads < 9 || lbads > 16)
			return fail(W_ERR, "nsid %u: LBADS %u", nsid, lbads);
		x->lba_shift[nsid] = lbads;
		x->nsze[nsid] = nvme_get_le64(ns);
	}
	return 0;
}

static int ctrl_io(struct ctrl *x, int p, uint16_t qid, uint16_t sqsize,
		   uint8_t cattr, const char *host, uint16_t *st)
{
	struct nvme_completion cqe;
	struct wc *w = &x->io[qid < 4 ? qid : 3];
	int ret;

	wc_close(w);
	ret = wc_open(w, p);
	if (!ret)
		ret = wc_ic(w, x->digest);
	w->incap_max = x->incap < 8192 ? x->incap : 8192;
	if (!ret)
		ret = wc_connect(w, SUBNQN, host, qid, x->cntlid, sqsize, cattr,
				 &cqe);
	if (ret)
		return ctx(ret, "I/O queue");
	*st = cqe_status(&cqe);
	return 0;
}

/* A whole controller of the wire subsystem: enabled, identified, with
 * nr_io I/O queues connected (qid 2 with SQ flow control disabled). */
static int ctrl_open_at(struct ctrl *x, int p, uint8_t digest, unsigned nr_io)
{
	uint32_t dw0 = 0;
	uint16_t st;
	unsigned q;
	int ret;

	ret = ctrl_admin(x, p, SUBNQN, HOST_OK, digest, &st);
	if (ret)
		return ret;
	if (st)
		return fail(W_ERR, "admin Connect: status %#x", st);
	ret = ctx(wc_enable(&x->admin), "enable");
	if (!ret)
		ret = ctrl_identify(x);
	if (!ret)
		ret = set_features(&x->admin, NVME_FEAT_NUM_QUEUES,
				   NVME_FEAT_NUMQ(2, 2), &dw0);
	if (ret)
		return ret;
	if ((dw0 & 0xffff) < 1 || (dw0 >> 16) < 1)
		return fail(W_ERR, "Number of Queues granted %#x", dw0);
	for (q = 1; q <= nr_io; q++) {
		ret = ctrl_io(x, p, (uint16_t)q, 127,
			      q == 2 ? NVME_CONNECT_DISABLE_SQFLOW : 0, HOST_OK,
			      &st);
		if (ret)
			return ret;
		if (st)
			return fail(W_ERR, "I/O Connect qid %u: status %#x", q,
				    st);
	}
	return 0;
}

static int ctrl_open(struct ctrl *x, uint8_t digest, unsigned nr_io)
{
	return ctrl_open_at(x, port, digest, nr_io);
}

static int io_rw(struct ctrl *x, unsigned qid, bool write, uint32_t nsid,
		 uint64_t off, void *buf, uint32_t len, int mode)
{
	union nvme_command cmd;
	unsigned sh = x->lba_shift[nsid];

	rw_cmd(&cmd, write ? nvme_cmd_write : nvme_cmd_read, nsid, off >> sh,
	       len >> sh);
	return ctx(wc_expect(&x->io[qid], &cmd, buf, len,
			     write ? DIR_H2C : DIR_C2H, mode, 0, NULL),
		   write ? "Write" : "Read");
}

/* ---- The target process --------------------------------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = calloc(1, (size_t)n + 1);
	if (s && n > 0 && fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = 0;
	fclose(f);
	return s;
}

static bool log_has(const char *needle)
{
	char *s = slurp(log_path);
	bool yes = s && strstr(s, needle);

	free(s);
	return yes;
}

static void dump_log_tail(unsigned lines)
{
	char *s = slurp(log_path), *p;
	unsigned n = 0;

	if (!s)
		return;
	for (p = s + strlen(s); p > s; p--)
		if (p[-1] == '\n' && ++n > lines)
			break;
	printf("# target log (last lines):\n");
	for (char *l = strtok(p, "\n"); l; l = strtok(NULL, "\n"))
		printf("#   %s\n", l);
	free(s);
}

static bool target_alive(void)
{
	int st;

	if (tgt_pid <= 0)
		return false;
	if (waitpid(tgt_pid, &st, WNOHANG) == tgt_pid) {
		tgt_status = st;
		tgt_pid = -1;
		return false;
	}
	return true;
}

#define STR_(x) #x
#define STR(x) STR_(x)

static int start_target(void)
{
	char portarg[64], dportarg[16], nsfile[320], port2arg[64];
	uint64_t end;
	int fd;

	snprintf(portarg, sizeof(portarg), "127.0.0.1:%d", port);
	snprintf(dportarg, sizeof(dportarg), "%d", dport);
	snprintf(port2arg, sizeof(port2arg), "127.0.0.1:%d", port2);
	snprintf(nsfile, sizeof(nsfile), "%s", file_path);
	tgt_pid = fork();
	if (tgt_pid < 0)
		return fail(W_ERR, "fork: %s", strerror(errno));
	if (!tgt_pid) {
		fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
		/* memory_backed: what is written to the null namespace can
		 * be read back and compared */
		execl(mqblk_bin, mqblk_bin, "target", "--listen", portarg,
		      "--nqn", SUBNQN, "--ns", "null:size=64m,memory_backed=1",
		      "--ns", nsfile, "--ns",
		      "null:size=1m,irqmode=2,completion_nsec=" STR(
			      STALL_NS_MS) "000000",
		      "--stall-ms", STR(STALL_MS), "--allow-host", HOST_OK,
		      "--allow-host", HOST_AUTH, "--dhchap-key", AUTH_KEY,
		      "--dhchap-ctrl-key", AUTH_CTRL_KEY, "--dhchap-hash",
		      "sha512,sha256", "--dhchap-dhgroup", "ffdhe2048,null",
		      "--discovery-port", dportarg, "--stats-socket", sock_path,
		      "--listen", port2arg, "--ana-group", "2:2", "--ctl",
		      ctl_path, (char *)NULL);
		_exit(127);
	}
	end = now_ms() + START_TIMEOUT_MS;
	while (now_ms() < end) {
		if (log_has("ready"))
			return 0;
		if (!target_alive())
			return fail(W_ERR,
				    "the target exited (status %#x) "
				    "before \"ready\"",
				    tgt_status);
		usleep(20000);
	}
	return fail(W_TIMEOUT, "no \"ready\" in the target's log in %d ms",
		    START_TIMEOUT_MS);
}

/* ---- Scenario K: DH-HMAC-CHAP in-band authentication --------------------- */

static int auth_cmd(struct wc *w, uint8_t fctype, void *buf, uint32_t len,
		    uint16_t want)
{
	union nvme_command cmd;
	struct nvmf_auth_command *a = (struct nvmf_auth_command *)&cmd;

	memset(&cmd, 0, sizeof(cmd));
	a->opcode = nvme_fabrics_command;
	a->fctype = fctype;
	a->secp = NVME_AUTH_SECP;
	a->spsp0 = NVME_AUTH_SPSP0;
	a->spsp1 = NVME_AUTH_SPSP1;
	a->tl_al = cpu_to_le32(len);
	return wc_expect(w, &cmd, buf, len,
			 fctype == nvme_fabrics_type_auth_send ? DIR_H2C :
								 DIR_C2H,
			 XFER_AUTO, want, NULL);
}

/* The host's half over w: 0 and *reason 0 when authenticated, else the
 * reason (ours in Failure2, or the target's Failure1: *peer). */
static int wc_authenticate(struct wc *w, const struct nvme_auth_cfg *cfg,
			   struct nvme_auth_exch *x, int *reason)
{
	static uint8_t out[NVME_AUTH_MAX_MSG], in[NVME_AUTH_MAX_MSG];
	size_t olen;
	int ret;

	*reason = 0;
	nvme_auth_exch_init(x, cfg);
	ret = nvme_auth_host_start(x, (uint16_t)(w->qid + 7), out, sizeof(out),
				   &olen);
	if (ret)
		return fail(W_ERR, "host_start: %d", ret);
	ret = auth_cmd(w, nvme_fabrics_type_auth_send, out, (uint32_t)olen, 0);
	if (!ret)
		ret = auth_cmd(w, nvme_fabrics_type_auth_receive, in,
			       sizeof(in), 0);
	if (ret)
		return ctx(ret, "Negotiate/Challenge");
	ret = nvme_auth_host_step_challenge(x, in, sizeof(in), out, sizeof(out),
					    &olen);
	if (ret < 0)
		return fail(W_ERR, "host step (challenge): %d", ret);
	if (ret)
		goto failed;
	ret = auth_cmd(w, nvme_fabrics_type_auth_send, out, (uint32_t)olen, 0);
	if (!ret)
		ret = auth_cmd(w, nvme_fabrics_type_auth_receive, in,
			       sizeof(in), 0);
	if (ret)
		return ctx(ret, "Reply/Success1");
	ret = nvme_auth_host_step_success1(x, in, sizeof(in), out, sizeof(out),
					   &olen);
	if (ret < 0)
		return fail(W_ERR, "host step (success1): %d", ret);
	if (ret)
		goto failed;
	if (olen)
		return ctx(auth_cmd(w, nvme_fabrics_type_auth_send, out,
				    (uint32_t)olen, 0),
			   "Success2");
	return 0;
failed:
	*reason = ret;
	if (olen)
		return ctx(auth_cmd(w, nvme_fabrics_type_auth_send, out,
				    (uint32_t)olen, 0),
			   "Failure2");
	return 0;
}

/* Commands a queue that has not authenticated must refuse. */
static int auth_refused(struct wc *w, bool admin)
{
	const uint16_t want = NVME_SC_AUTH_REQUIRED | NVME_SC_DNR;
	union nvme_command cmd;
	uint64_t v;
	uint16_t st;
	uint8_t buf[4096];
	int ret;

	if (admin) {
		ret = prop_get(w, NVME_REG_CSTS, false, &v, &st);
		if (!ret && st != want)
			return fail(W_ERR, "Property Get: status %#x", st);
		memset(&cmd, 0, sizeof(cmd));
		cmd.identify.opcode = nvme_admin_identify;
		cmd.identify.cns = NVME_ID_CNS_CTRL;
		if (!ret)
			ret = ctx(wc_expect(w, &cmd, buf, 4096, DIR_C2H,
					    XFER_AUTO, want, NULL),
				  "Identify");
		return ret;
	}
	rw_cmd(&cmd, nvme_cmd_read, 1, 0, 8);
	ret = ctx(wc_expect(w, &cmd, buf, 4096, DIR_C2H, XFER_AUTO, want, NULL),
		  "Read");
	if (!ret) {
		rw_cmd(&cmd, nvme_cmd_write, 1, 0, 8);
		memset(buf, 0x5a, sizeof(buf));
		ret = ctx(wc_expect(w, &cmd, buf, 4096, DIR_H2C, XFER_AUTO,
				    want, NULL),
			  "Write");
	}
	return ret;
}

static int auth_connect(struct ctrl *x, const char *host, bool *atr);

/* The exchange by hand on w, with the commands that must fail between
 * its steps; then the Reply replayed on a second queue of the same host. */
static int auth_midway(struct wc *w, const struct nvme_auth_cfg *cfg)
{
	static uint8_t out[NVME_AUTH_MAX_MSG], in[NVME_AUTH_MAX_MSG];
	static uint8_t reply[NVME_AUTH_MAX_MSG];
	struct nvme_auth_exch x;
	union nvme_command cmd;
	size_t olen, rlen = 0;
	struct ctrl c2;
	bool atr;
	int ret, r = 0;

	nvme_auth_exch_init(&x, cfg);
	ret = ctx(auth_cmd(w, nvme_fabrics_type_auth_receive, in, sizeof(in),
			   NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR),
		  "Receive before Negotiate");
	if (!ret) {
		struct nvmf_auth_command *a = (struct nvmf_auth_command *)&cmd;

		memset(&cmd, 0, sizeof(cmd));
		a->opcode = nvme_fabrics_command;
		a->fctype = nvme_fabrics_type_auth_send;
		a->secp = 0xea;
		a->spsp0 = a->spsp1 = 1;
		a->tl_al = cpu_to_le32(72);
		memset(out, 0, 72);
		ret = ctx(wc_expect(w, &cmd, out, 72, DIR_H2C, XFER_AUTO,
				    NVME_SC_INVALID_FIELD | NVME_SC_DNR, NULL),
			  "Send with SECP EAh");
	}
	if (!ret)
		ret = nvme_auth_host_start(&x, 77, out, sizeof(out), &olen);
	if (!ret)
		ret = auth_cmd(w, nvme_fabrics_type_auth_send, out,
			       (uint32_t)olen, 0);
	if (!ret)
		ret = ctx(auth_refused(w, true), "after Negotiate");
	if (!ret)
		ret = auth_cmd(w, nvme_fabrics_type_auth_receive, in,
			       sizeof(in), 0);
	if (!ret)
		ret = ctx(auth_refused(w, true), "after Challenge");
	if (!ret) {
		r = nvme_auth_host_step_challenge(&x, in, sizeof(in), out,
						  sizeof(out), &olen);
		if (r)
			ret = fail(W_ERR, "host step (challenge): %d", r);
	}
	if (!ret) {
		memcpy(reply, out, olen);
		rlen = olen;
		ret = auth_cmd(w, nvme_fabrics_type_auth_send, out,
			       (uint32_t)olen, 0);
	}
	if (!ret)
		ret = auth_cmd(w, nvme_fabrics_type_auth_receive, in,
			       sizeof(in), 0);
	if (!ret) {
		r = nvme_auth_host_step_success1(&x, in, sizeof(in), out,
						 sizeof(out), &olen);
		if (r || olen)
			ret = fail(W_ERR, "host step (success1): %d, %zu", r,
				   olen);
	}
	nvme_auth_exch_clear(&x);
	if (!ret)
		ret = ctx(wc_enable(w), "enable after authenticating");
	/* re-authentication on the authenticated queue, as a host may ask */
	if (!ret)
		ret = ctx(wc_authenticate(w, cfg, &x, &r), "re-authentication");
	nvme_auth_exch_clear(&x);
	if (!ret && r)
		ret = fail(W_ERR, "re-authentication failed: %s",
			   nvme_auth_failure_str((uint8_t)r));
	if (!ret) {
		uint8_t id[4096];

		ret = ctx(identify(w, NVME_ID_CNS_CTRL, 0, id),
			  "after re-authentication");
	}
	if (ret)
		return ret;

	/* replay: a new admin queue, its own Negotiate, the old Reply */
	ret = auth_connect(&c2, HOST_AUTH, &atr);
	nvme_auth_exch_init(&x, cfg);
	if (!ret)
		ret = nvme_auth_host_start(&x, 77, out, sizeof(out), &olen);
	if (!ret)
		ret = auth_cmd(&c2.admin, nvme_fabrics_type_auth_send, out,
			       (uint32_t)olen, 0);
	if (!ret)
		ret = auth_cmd(&c2.admin, nvme_fabrics_type_auth_receive, in,
			       sizeof(in), 0);
	if (!ret)
		ret = auth_cmd(&c2.admin, nvme_fabrics_type_auth_send, reply,
			       (uint32_t)rlen, 0);
	if (!ret)
		ret = auth_cmd(&c2.admin, nvme_fabrics_type_auth_receive, in,
			       sizeof(in), 0);
	if (!ret) {
		uint16_t t_id;
		uint8_t reason;

		if (nvme_auth_failure_decode(in, sizeof(in),
					     NVME_AUTH_ID_FAILURE1, &t_id,
					     &reason) ||
		    reason != NVME_AUTH_FAIL_FAILED)
			ret = fail(W_ERR, "the replayed Reply was not failed");
	}
	if (!ret)
		ret = ctx(wc_expect_eof(&c2.admin), "after the replay");
	nvme_auth_exch_clear(&x);
	ctrl_close(&c2);
	return ret;
}

/* Admin Connect as host; the ATR bit of DW0 in *atr. */
static int auth_connect(struct ctrl *x, const char *host, bool *atr)
{
	struct nvme_completion cqe;
	int ret;

	ctrl_init(x);
	ret = wc_open(&x->admin, port);
	if (!ret)
		ret = wc_ic(&x->admin, 0);
	x->admin.incap_max = 8192;
	if (!ret)
		ret = wc_connect(&x->admin, SUBNQN, host, 0,
				 NVME_CNTLID_DYNAMIC, 31, 0, &cqe);
	if (ret)
		return ctx(ret, "admin queue");
	if (cqe_status(&cqe))
		return fail(W_ERR, "admin Connect: status %#x",
			    cqe_status(&cqe));
	x->cntlid = le16_to_cpu(cqe.result.u16);
	*atr = le32_to_cpu(cqe.result.u32) & NVME_CONNECT_AUTHREQ_ATR;
	return 0;
}

static void scenario_auth(void)
{
	struct nvme_auth_key key, ckey, bad;
	struct nvme_auth_cfg cfg = { .hostnqn = HOST_AUTH, .subnqn = SUBNQN };
	struct nvme_auth_exch x;
	struct ctrl c;
	uint8_t wbuf[4096], rbuf[4096];
	char e[160];
	bool atr = false;
	int reason = 0, ret;
	uint16_t st;

	if (nvme_auth_key_parse(AUTH_KEY, &key, e, sizeof(e)) ||
	    nvme_auth_key_parse(AUTH_CTRL_KEY, &ckey, e, sizeof(e)) ||
	    nvme_auth_key_parse(AUTH_BAD_KEY, &bad, e, sizeof(e))) {
		tap("K: the test's secrets parse", fail(W_ERR, "%s", e));
		return;
	}
	cfg.host_key = &key;
	cfg.ctrl_key = &ckey;

	ret = auth_connect(&c, HOST_AUTH, &atr);
	if (!ret && !atr)
		ret = fail(W_ERR, "no AUTHREQ.ATR in the Connect response");
	if (!ret)
		ret = auth_refused(&c.admin, true);
	tap("K: a keyed host's admin Connect asks for authentication "
	    "(AUTHREQ.ATR); Property Get and Identify before it: "
	    "Authentication Required",
	    ret);

	/* the host offers sha256 and ffdhe2048 only */
	cfg.hashes[0] = NVME_AUTH_HASH_SHA256;
	cfg.nr_hashes = 1;
	cfg.dhgroups[0] = NVME_AUTH_DHGROUP_2048;
	cfg.nr_dhgroups = 1;
	if (!ret)
		ret = wc_authenticate(&c.admin, &cfg, &x, &reason);
	if (!ret && reason)
		ret = fail(W_ERR, "failed: %s%s", nvme_auth_failure_str(reason),
			   x.peer_failed ? " (Failure1)" : "");
	if (!ret && (x.hash != NVME_AUTH_HASH_SHA256 ||
		     x.dhgroup != NVME_AUTH_DHGROUP_2048 || !x.bidirectional))
		ret = fail(W_ERR, "hash %u group %u bidirectional %d", x.hash,
			   x.dhgroup, x.bidirectional);
	nvme_auth_exch_clear(&x);
	if (!ret)
		ret = ctx(wc_enable(&c.admin), "enable");
	if (!ret)
		ret = ctrl_identify(&c);
	tap("K: bidirectional DH-HMAC-CHAP (SHA-256, ffdhe2048) on the admin "
	    "queue: then the controller enables and identifies",
	    ret);

	if (!ret)
		ret = ctrl_io(&c, port, 1, 31, 0, HOST_AUTH, &st);
	if (!ret && st)
		ret = fail(W_ERR, "I/O Connect: status %#x", st);
	if (!ret)
		ret = auth_refused(&c.io[1], false);
	/* one way this time, sha512 and the null group */
	cfg.ctrl_key = NULL;
	cfg.hashes[0] = NVME_AUTH_HASH_SHA512;
	cfg.dhgroups[0] = NVME_AUTH_DHGROUP_NULL;
	if (!ret)
		ret = wc_authenticate(&c.io[1], &cfg, &x, &reason);
	if (!ret && reason)
		ret = fail(W_ERR, "failed: %s", nvme_auth_failure_str(reason));
	nvme_auth_exch_clear(&x);
	fill(wbuf, sizeof(wbuf), 2323);
	if (!ret)
		ret = io_rw(&c, 1, true, 1, 8u << 20, wbuf, sizeof(wbuf),
			    XFER_AUTO);
	if (!ret)
		ret = io_rw(&c, 1, false, 1, 8u << 20, rbuf, sizeof(rbuf),
			    XFER_AUTO);
	if (!ret)
		ret = compare(rbuf, wbuf, sizeof(rbuf), "read back");
	tap("K: an I/O queue of the keyed host: Read and Write refused before "
	    "it authenticates (one way, SHA-512, null group), then a write "
	    "reads back",
	    ret);
	ctrl_close(&c);

	/* the wrong secret: Failure1 "failed", then the queue closes */
	cfg.host_key = &bad;
	ret = auth_connect(&c, HOST_AUTH, &atr);
	if (!ret)
		ret = wc_authenticate(&c.admin, &cfg, &x, &reason);
	if (!ret && (reason != NVME_AUTH_FAIL_FAILED || !x.peer_failed))
		ret = fail(W_ERR, "reason %d (%s), from the target %d", reason,
			   nvme_auth_failure_str((uint8_t)reason),
			   x.peer_failed);
	nvme_auth_exch_clear(&x);
	if (!ret)
		ret = ctx(wc_expect_eof(&c.admin), "after Failure1");
	tap("K: a wrong host secret gets AUTH_Failure1 (authentication "
	    "failed) and the queue closed",
	    ret);
	ctrl_close(&c);

	/* the host expects another controller secret: it refuses the
	 * target's R2 with Failure2, and the target closes */
	cfg.host_key = &key;
	cfg.ctrl_key = &bad;
	ret = auth_connect(&c, HOST_AUTH, &atr);
	if (!ret)
		ret = wc_authenticate(&c.admin, &cfg, &x, &reason);
	if (!ret && (reason != NVME_AUTH_FAIL_FAILED || x.peer_failed))
		ret = fail(W_ERR, "reason %d, from the target %d", reason,
			   x.peer_failed);
	nvme_auth_exch_clear(&x);
	if (!ret)
		ret = ctx(wc_expect_eof(&c.admin), "after Failure2");
	tap("K: a controller that fails the host's check (its R2) gets "
	    "AUTH_Failure2, and the queue closes",
	    ret);
	ctrl_close(&c);

	/* commands in the middle of the exchange, a Receive with nothing to
	 * receive, another protocol: refused; then a Reply replayed into a
	 * later exchange fails */
	cfg.host_key = &key;
	cfg.ctrl_key = NULL;
	ret = auth_connect(&c, HOST_AUTH, &atr);
	if (!ret)
		ret = auth_midway(&c.admin, &cfg);
	tap("K: during the exchange: Identify and Property Get refused "
	    "(Authentication Required), a Receive with nothing pending "
	    "(Command Sequence Error), a Send with another SECP (Invalid "
	    "Field); the exchange then completes, re-authentication too; a "
	    "Reply replayed on a new queue gets Failure1",
	    ret);
	ctrl_close(&c);

	/* a host with no key: never asked, and Authentication Send is not
	 * for it */
	ret = auth_connect(&c, HOST_OK, &atr);
	if (!ret && atr)
		ret = fail(W_ERR, "AUTHREQ.ATR for a host without a key");
	if (!ret) {
		uint8_t msg[72] = { 0 };

		ret = auth_cmd(&c.admin, nvme_fabrics_type_auth_send, msg,
			       sizeof(msg),
			       NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	}
	tap("K: a host without a key is not asked to authenticate; "
	    "Authentication Send from it: Invalid Opcode",
	    ret);
	ctrl_close(&c);
	nvme_auth_key_clear(&key);
	nvme_auth_key_clear(&ckey);
	nvme_auth_key_clear(&bad);
}

/* ---- Scenario A: the happy path ---------------------------------------- */

static struct ctrl good; /* kept open for "other connections unaffected" */
static uint8_t good_data[4096];
#define GOOD_NSID 1 /* the null namespace: memory backed */
#define GOOD_OFF (40u << 20) /* byte offset of good_data there */

/* The good connection still answers a read of what it wrote. */
static int good_alive(void)
{
	uint8_t buf[4096];
	int ret;

	if (!target_alive())
		return fail(W_ERR, "the target is gone (status %#x)",
			    tgt_status);
	ret = io_rw(&good, 1, false, GOOD_NSID, GOOD_OFF, buf, sizeof(buf),
		    XFER_AUTO);
	if (!ret)
		ret = compare(buf, good_data, sizeof(buf), "good read");
	return ctx(ret, "other connections unaffected");
}

/* Returns nonzero if the controller did not come up. */
static int scenario_a(struct ctrl *x, uint8_t digest, const char *tag,
		      uint32_t base)
{
	char name[160];
	uint8_t *wbuf = malloc(BIG_IO), *rbuf = malloc(BIG_IO);
	union nvme_command cmd;
	unsigned nsid, qid, succ0, reads0, succ, reads;
	int ret;

#define T(label) snprintf(name, sizeof(name), "A %s: %s", tag, label)
	T("ICReq/ICResp, admin Connect, enable, Number of Queues, I/O "
	  "Connect qid 1 and 2");
	ret = ctrl_open(x, digest, 2);
	tap(name, ret);
	if (ret) {
		free(wbuf);
		free(rbuf);
		return ret;
	}

	T("Identify Controller (MDTS, CNTLID, SUBNQN, IOCCSZ)");
	ret = 0;
	if (nvme_get_le16(x->idc + 78) != x->cntlid)
		ret = fail(W_ERR, "CNTLID %u, Connect said %u",
			   nvme_get_le16(x->idc + 78), x->cntlid);
	else if (strncmp((char *)x->idc + 768, SUBNQN, 256))
		ret = fail(W_ERR, "SUBNQN \"%.64s\"", (char *)x->idc + 768);
	else if (x->max_xfer < BIG_IO)
		ret = fail(W_ERR, "MDTS %u: under 256 KiB", x->idc[77]);
	else if (nvme_get_le32(x->idc + 1792) < 4 || x->incap < 4096)
		ret = fail(W_ERR,
			   "IOCCSZ %u: no room for 4 KiB in-capsule writes",
			   nvme_get_le32(x->idc + 1792));
	else if (nvme_get_le32(x->idc + 1796) != 1)
		ret = fail(W_ERR, "IORCSZ %u, expected 1",
			   nvme_get_le32(x->idc + 1796));
	else if (x->nsze[1] << x->lba_shift[1] != NULL_SIZE ||
		 x->nsze[2] << x->lba_shift[2] != FILE_SIZE)
		ret = fail(W_ERR, "namespace sizes %llu and %llu bytes",
			   (unsigned long long)(x->nsze[1] << x->lba_shift[1]),
			   (unsigned long long)(x->nsze[2] << x->lba_shift[2]));
	tap(name, ret);

	/* qid 2's reads from here on, for the C2HData SUCCESS check */
	succ0 = x->io[2].nr_success;
	reads0 = x->io[2].nr_reads_ok;
	for (nsid = 1; nsid <= 2; nsid++) {
		for (qid = 1; qid <= 2; qid++) {
			uint64_t off = base + (uint64_t)qid * (512u << 10);

			snprintf(
				name, sizeof(name),
				"A %s: nsid %u qid %u: 4 KiB in-capsule write, "
				"read back",
				tag, nsid, qid);
			fill(wbuf, 4096, base + nsid * 10 + qid);
			ret = io_rw(x, qid, true, nsid, off, wbuf, 4096,
				    XFER_INCAPSULE);
			if (!ret)
				ret = io_rw(x, qid, false, nsid, off, rbuf,
					    4096, XFER_AUTO);
			if (!ret)
				ret = compare(rbuf, wbuf, 4096, "read back");
			tap(name, ret);

			snprintf(name, sizeof(name),
				 "A %s: nsid %u qid %u: 256 KiB write by "
				 "R2T/H2CData, read back",
				 tag, nsid, qid);
			fill(wbuf, BIG_IO, base + nsid * 100 + qid);
			off += 64 << 10;
			ret = io_rw(x, qid, true, nsid, off, wbuf, BIG_IO,
				    XFER_R2T);
			if (!ret)
				ret = io_rw(x, qid, false, nsid, off, rbuf,
					    BIG_IO, XFER_AUTO);
			if (!ret)
				ret = compare(rbuf, wbuf, BIG_IO, "read back");
			if (!ret && nsid == 2) {
				/* the data is in FILE where it belongs */
				int fd = open(file_path, O_RDONLY);
				ssize_t n;

				/* no stale page cache of a block device */
				if (fd >= 0)
					posix_fadvise(fd, 0, 0,
						      POSIX_FADV_DONTNEED);
				n = fd >= 0 ? pread(fd, rbuf, BIG_IO,
						    (off_t)off) :
					      -1;

				if (fd >= 0)
					close(fd);
				if (n != (ssize_t)BIG_IO)
					ret = fail(W_ERR, "pread FILE: %zd", n);
				else
					ret = compare(rbuf, wbuf, BIG_IO,
						      "FILE contents");
			}
			tap(name, ret);
		}
	}

	/*
	 * With SQ flow control off a controller may let the last C2HData,
	 * flagged SUCCESS, stand for the CapsuleResp; mqblk's target does so
	 * for every read that succeeds (as nvmet does), and wc_exec fails a
	 * SUCCESS on qid 1, where flow control is on. Two reads per
	 * namespace went to qid 2 above.
	 */
	T("qid 2 (SQ flow control disabled): every successful read ends in "
	  "C2HData SUCCESS, no CapsuleResp");
	succ = x->io[2].nr_success - succ0;
	reads = x->io[2].nr_reads_ok - reads0;
	printf("# %s: %u of %u reads on qid 2 answered by C2HData SUCCESS\n",
	       tag, succ, reads);
	if (reads != 4)
		ret = fail(W_ERR, "%u reads succeeded on qid 2, expected 4",
			   reads);
	else if (succ != reads)
		ret = fail(W_ERR,
			   "%u of %u reads on qid 2 ended in C2HData SUCCESS",
			   succ, reads);
	else
		ret = 0;
	tap(name, ret);

	for (nsid = 1; nsid <= 2; nsid++) {
		struct nvme_completion cqe;
		uint64_t off = base + (3u << 20);
		unsigned sh = x->lba_shift[nsid];
		uint8_t dsm[16];

		snprintf(name, sizeof(name), "A %s: nsid %u: Flush", tag, nsid);
		memset(&cmd, 0, sizeof(cmd));
		cmd.common.opcode = nvme_cmd_flush;
		cmd.common.nsid = cpu_to_le32(nsid);
		tap(name, wc_expect(&x->io[1], &cmd, NULL, 0, DIR_NONE,
				    XFER_AUTO, 0, &cqe));

		snprintf(name, sizeof(name),
			 "A %s: nsid %u: Write Zeroes reads back zeroes", tag,
			 nsid);
		fill(wbuf, 16384, base + nsid);
		ret = io_rw(x, 1, true, nsid, off, wbuf, 16384, XFER_AUTO);
		if (!ret) {
			rw_cmd(&cmd, nvme_cmd_write_zeroes, nsid, off >> sh,
			       16384 >> sh);
			ret = ctx(wc_expect(&x->io[1], &cmd, NULL, 0, DIR_NONE,
					    XFER_AUTO, 0, &cqe),
				  "Write Zeroes");
		}
		if (!ret)
			ret = io_rw(x, 1, false, nsid, off, rbuf, 16384,
				    XFER_AUTO);
		if (!ret && !all_zero(rbuf, 16384))
			ret = fail(W_ERR, "not zeroes after Write Zeroes");
		tap(name, ret);

		snprintf(name, sizeof(name),
			 "A %s: nsid %u: Dataset Management deallocate", tag,
			 nsid);
		memset(&cmd, 0, sizeof(cmd));
		cmd.common.opcode = nvme_cmd_dsm;
		cmd.common.nsid = cpu_to_le32(nsid);
		cmd.common.cdw10 = cpu_to_le32(0); /* one range */
		cmd.common.cdw11 = cpu_to_le32(1u << 2); /* AD */
		memset(dsm, 0, sizeof(dsm));
		nvme_put_le32(dsm + 4, (uint32_t)(65536 >> sh));
		nvme_put_le64(dsm + 8, off >> sh);
		tap(name, wc_expect(&x->io[1], &cmd, dsm, sizeof(dsm), DIR_H2C,
				    XFER_AUTO, 0, &cqe));
	}
#undef T
	free(wbuf);
	free(rbuf);
	return 0;
}

/* ---- Scenario B: discovery ---------------------------------------------- */

static int discovery(int p, const char *host, unsigned want)
{
	struct ctrl x;
	uint8_t *log = calloc(1, 16384);
	uint64_t numrec, i;
	unsigned found = 0;
	uint16_t st;
	char svc[33];
	char svc2[33];
	int ret;

	if (!log)
		return fail(W_ERR, "out of memory");
	snprintf(svc, sizeof(svc), "%-32d", port);
	snprintf(svc2, sizeof(svc2), "%-32d", port2);
	disc_found2 = 0;
	ret = ctrl_admin(&x, p, NVME_DISC_SUBSYS_NAME, host, 0, &st);
	if (!ret && st)
		ret = fail(W_ERR, "Connect: status %#x", st);
	if (!ret)
		ret = ctx(wc_enable(&x.admin), "enable");
	if (!ret)
		ret = get_log(&x.admin, NVME_LOG_DISC, log, 16384);
	if (ret)
		goto out;
	numrec = nvme_get_le64(log + 8);
	if (numrec > 15) {
		ret = fail(W_ERR, "numrec %llu", (unsigned long long)numrec);
		goto out;
	}
	for (i = 0; i < numrec; i++) {
		const uint8_t *e = log + 1024 * (i + 1);

		if (strncmp((const char *)e + 256, SUBNQN, 256))
			continue;
		/* the second path (scenario I): counted apart */
		if (!memcmp(e + 32, svc2, 32)) {
			disc_found2++;
			continue;
		}
		found++;
		if (e[0] != NVMF_TRTYPE_TCP || e[1] != NVMF_ADDR_FAMILY_IP4 ||
		    e[2] != NVME_NQN_NVME) {
			ret = fail(W_ERR,
				   "entry trtype %u adrfam %u subtype %u", e[0],
				   e[1], e[2]);
			goto out;
		}
		if (memcmp(e + 32, svc, 32)) {
			ret = fail(W_ERR,
				   "entry trsvcid \"%.32s\", expected %d",
				   (const char *)e + 32, port);
			goto out;
		}
		if (strncmp((const char *)e + 512, "127.0.0.1 ", 10)) {
			ret = fail(W_ERR, "entry traddr \"%.32s\"",
				   (const char *)e + 512);
			goto out;
		}
	}
	if (found != want)
		ret = fail(W_ERR,
			   "%u entries for %s (numrec %llu), expected %u",
			   found, SUBNQN, (unsigned long long)numrec, want);
out:
	ctrl_close(&x);
	free(log);
	return ret;
}

static void scenario_b(void)
{
	tap("B: discovery on the discovery port as host-ok: one entry",
	    discovery(dport, HOST_OK, 1));
	tap("B: discovery on the subsystem port as host-ok: one entry",
	    discovery(port, HOST_OK, 1));
	tap("B: discovery on the discovery port as another host: no entry",
	    discovery(dport, HOST_OTHER, 0));
	tap("B: discovery on the subsystem port as another host: no entry",
	    discovery(port, HOST_OTHER, 0));
}

/* ---- Scenario C: bad input ---------------------------------------------- */

/* A fresh socket past ICReq/ICResp */
static int fresh_ic(struct wc *w, uint8_t digest)
{
	int ret = wc_open(w, port);

	if (!ret)
		ret = wc_ic(w, digest);
	return ret;
}

static void capsule_read(union nvme_command *cmd, uint16_t cid)
{
	rw_cmd(cmd, nvme_cmd_read, 1, 0, 8);
	cmd->common.command_id = cid;
	cmd->common.flags = NVME_CMD_SGL_METABUF;
	sgl_set(cmd, NVME_SGL_TCP_TRANSPORT, 4096);
}

/* Send raw bytes, expect a C2HTermReq with fes/fei, then close. */
static int raw_term(struct wc *w, const void *pdu, size_t len, uint16_t fes,
		    long fei)
{
	int ret = send_all(w->fd, pdu, len);

	if (ret && ret != W_EOF)
		return ret;
	return wc_expect_term(w, fes, fei, NULL, NULL);
}

static int bad_unknown_type(void)
{
	struct wc w;
	uint8_t b[24] = { 0x7f, 0, 24, 0, 24 };
	int ret = fresh_ic(&w, 0);

	if (!ret)
		ret = raw_term(&w, b, sizeof(b), NVME_TCP_FES_INVALID_PDU_HDR,
			       0);
	wc_close(&w);
	return ret;
}

static int bad_hlen(void)
{
	struct wc w;
	union nvme_command cmd;
	uint8_t b[256];
	ssize_t n;
	int ret = fresh_ic(&w, 0);

	capsule_read(&cmd, 1);
	n = nvme_tcp_build_cmd(&w.c, b, sizeof(b), &cmd, NULL, 0);
	b[2] = 80; /* hlen */
	if (!ret)
		ret = raw_term(&w, b, (size_t)n, NVME_TCP_FES_INVALID_PDU_HDR,
			       2);
	wc_close(&w);
	return ret;
}

static int bad_hdgst(void)
{
	struct wc w;
	union nvme_command cmd;
	uint8_t b[256];
	ssize_t n;
	int ret = fresh_ic(&w, NVME_TCP_HDGST_ENABLE | NVME_TCP_DDGST_ENABLE);

	capsule_read(&cmd, 1);
	n = nvme_tcp_build_cmd(&w.c, b, sizeof(b), &cmd, NULL, 0);
	if (!ret && n != 76)
		ret = fail(W_ERR, "capsule with header digest: %zd bytes", n);
	b[72] ^= 0x5a;
	if (!ret)
		ret = raw_term(&w, b, (size_t)n, NVME_TCP_FES_HDR_DIGEST_ERR,
			       -1);
	wc_close(&w);
	return ret;
}

static int bad_plen(void)
{
	struct wc w;
	union nvme_command cmd;
	uint8_t b[256];
	uint16_t fes = 0;
	uint32_t fei = 0;
	ssize_t n;
	int ret = fresh_ic(&w, 0);

	capsule_read(&cmd, 1);
	n = nvme_tcp_build_cmd(&w.c, b, sizeof(b), &cmd, NULL, 0);
	/* a capsule announcing 4 MiB of in-capsule data */
	b[3] = 72; /* pdo */
	nvme_put_le32(b + 4, 4u << 20);
	if (!ret)
		ret = send_all(w.fd, b, (size_t)n);
	if (!ret)
		ret = wc_expect_term(&w, 0, -1, &fes, &fei);
	if (!ret && fes != NVME_TCP_FES_DATA_LIMIT_EXCEEDED &&
	    !(fes == NVME_TCP_FES_INVALID_PDU_HDR && fei == 4))
		ret = fail(W_ERR,
			   "C2HTermReq FES %u FEI %u: expected 5 (data "
			   "limit exceeded) or 1 at plen (FEI 4)",
			   fes, fei);
	if (!ret)
		printf("# plen too large: C2HTermReq FES %u FEI %u\n", fes,
		       fei);
	wc_close(&w);
	return ret;
}

static int bad_truncated(void)
{
	struct wc w;
	union nvme_command cmd;
	uint8_t b[256];
	int ret = fresh_ic(&w, 0);

	capsule_read(&cmd, 1);
	nvme_tcp_build_cmd(&w.c, b, sizeof(b), &cmd, NULL, 0);
	if (!ret)
		ret = send_all(w.fd, b, 40);
	usleep(100000);
	wc_close(&w);
	usleep(100000);
	return ret;
}

/* A fresh controller with I/O qid 1; digest as asked. */
static int fresh_ctrl(struct ctrl *x, uint8_t digest)
{
	return ctx(ctrl_open(x, digest, 1), "opening a fresh controller");
}

/*
 * A fatal error while a read's C2HData is part way out: the host takes
 * nothing for a while (a small receive buffer, 12 MiB of reads), so the
 * socket has part of a train when the bad header comes. The C2HTermReq
 * comes at a PDU boundary, after the rest of that train: every byte before
 * it decodes (a fuzzer found the TermReq inside a C2HData's data).
 */
static int bad_hlen_mid_pdu(void)
{
	struct ctrl x;
	union nvme_command cmd;
	uint8_t b[256];
	unsigned i, nr = 12, datas = 0;
	int small = 16384, ret = fresh_ctrl(&x, 0);
	uint32_t nlb;
	ssize_t n;

	if (ret)
		goto out;
	setsockopt(x.io[1].fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	nlb = x.max_xfer >> x.lba_shift[1];
	for (i = 0; !ret && i < nr; i++) {
		rw_cmd(&cmd, nvme_cmd_read, 1, (uint64_t)i * nlb, nlb);
		cmd.common.command_id = (uint16_t)(100 + i);
		cmd.common.flags = NVME_CMD_SGL_METABUF;
		sgl_set(&cmd, NVME_SGL_TCP_TRANSPORT, nlb << x.lba_shift[1]);
		ret = wc_send_capsule(&x.io[1], &cmd, NULL, 0);
	}
	if (ret)
		goto out;
	/* the target fills its socket, and stops inside a train: once its
	 * first reads have come back from the device (a loop device under
	 * TSan had sent nothing 300 ms after the reads were sent, and the
	 * C2HTermReq then came first), 300 ms more */
	for (i = 0; i < 1000; i++) {
		int queued = 0;

		if (!ioctl(x.io[1].fd, FIONREAD, &queued) && queued > 0)
			break;
		usleep(10 * 1000);
	}
	usleep(300 * 1000);
	capsule_read(&cmd, 1);
	n = nvme_tcp_build_cmd(&x.io[1].c, b, sizeof(b), &cmd, NULL, 0);
	b[2] = 80; /* hlen */
	ret = send_all(x.io[1].fd, b, (size_t)n);
	if (ret)
		goto out;
	for (;;) {
		ret = wc_recv(&x.io[1]);
		if (ret) {
			ret = ctx(ret, "reading what came before the "
				       "C2HTermReq");
			goto out;
		}
		if (x.io[1].p.type == nvme_tcp_c2h_data)
			datas++;
		else if (x.io[1].p.type != nvme_tcp_rsp)
			break;
	}
	if (x.io[1].p.type != nvme_tcp_c2h_term) {
		ret = fail(W_ERR, "expected a C2HTermReq, got PDU type 0x%02x",
			   x.io[1].p.type);
		goto out;
	}
	if (nvme_get_le16(x.io[1].rx + 8) != NVME_TCP_FES_INVALID_PDU_HDR) {
		ret = fail(W_ERR, "C2HTermReq FES %u",
			   nvme_get_le16(x.io[1].rx + 8));
		goto out;
	}
	/* the socket held some of the data, not all of it */
	if (!datas || datas == nr) {
		ret = fail(W_ERR,
			   "%u of %u reads' C2HData came before the "
			   "C2HTermReq: the test did not catch the target "
			   "part way",
			   datas, nr);
		goto out;
	}
	ret = ctx(wc_expect_eof(&x.io[1]), "after the C2HTermReq");
out:
	ctrl_close(&x);
	return ret;
}

static int bad_truncated_h2c(void)
{
	struct ctrl x;
	union nvme_command cmd;
	uint8_t data[16384], hdr[128];
	uint16_t cid = 77;
	int ret = fresh_ctrl(&x, 0);
	ssize_t pdo;

	if (ret)
		goto out;
	rw_cmd(&cmd, nvme_cmd_write, 1, 0, 16384 >> x.lba_shift[1]);
	cmd.common.command_id = cid;
	cmd.common.flags = NVME_CMD_SGL_METABUF;
	sgl_set(&cmd, NVME_SGL_TCP_TRANSPORT, sizeof(data));
	ret = wc_send_capsule(&x.io[1], &cmd, NULL, 0);
	if (!ret)
		ret = wc_recv(&x.io[1]);
	if (!ret && x.io[1].p.type != nvme_tcp_r2t)
		ret = fail(W_ERR, "expected an R2T, got type 0x%02x",
			   x.io[1].p.type);
	if (ret)
		goto out;
	fill(data, sizeof(data), 5);
	pdo = nvme_tcp_build_data(&x.io[1].c, hdr, sizeof(hdr), cid,
				  nvme_get_le16(x.io[1].rx + 10), 0, NULL,
				  sizeof(data), NVME_TCP_F_DATA_LAST);
	ret = send_all(x.io[1].fd, hdr, (size_t)pdo);
	if (!ret)
		ret = send_all(x.io[1].fd, data, 5000);
	usleep(100000);
out:
	ctrl_close(&x);
	usleep(100000);
	return ret;
}

static int bad_ddgst(void)
{
	struct ctrl x;
	union nvme_command cmd;
	struct nvme_completion cqe;
	uint8_t data[4096], rbuf[4096], *b = NULL;
	uint16_t cid = 99;
	ssize_t n;
	int ret = fresh_ctrl(&x, NVME_TCP_HDGST_ENABLE | NVME_TCP_DDGST_ENABLE);

	if (ret)
		goto out;
	b = malloc(8192);
	fill(data, sizeof(data), 9);
	rw_cmd(&cmd, nvme_cmd_write, 1, 0, 4096 >> x.lba_shift[1]);
	cmd.common.command_id = cid;
	cmd.common.flags = NVME_CMD_SGL_METABUF;
	sgl_set(&cmd, NVME_SGL_TCP_INCAPSULE, sizeof(data));
	n = nvme_tcp_build_cmd(&x.io[1].c, b, 8192, &cmd, data, sizeof(data));
	if (n != 76 + 4096 + 4) {
		ret = fail(W_ERR, "capsule with digests: %zd bytes", n);
		goto out;
	}
	b[n - 1] ^= 0xff; /* the data digest */
	ret = send_all(x.io[1].fd, b, (size_t)n);
	if (!ret)
		ret = wc_recv(&x.io[1]);
	if (ret)
		goto out;
	if (x.io[1].p.type != nvme_tcp_rsp) {
		ret = fail(W_ERR, "expected a CapsuleResp, got PDU type 0x%02x",
			   x.io[1].p.type);
		goto out;
	}
	memcpy(&cqe, x.io[1].rx + 8, sizeof(cqe));
	if (cqe.command_id != cid ||
	    cqe_status(&cqe) != NVME_SC_TRANSIENT_TR_ERR) {
		ret = fail(W_ERR,
			   "CapsuleResp cid %u status %#x, expected "
			   "cid %u status 0x22",
			   cqe.command_id, cqe_status(&cqe), cid);
		goto out;
	}
	/* not fatal: the same connection still works */
	ret = ctx(io_rw(&x, 1, false, 1, 0, rbuf, sizeof(rbuf), XFER_AUTO),
		  "the connection after the digest error");
out:
	free(b);
	ctrl_close(&x);
	return ret;
}

/* An R2T-solicited 16 KiB write on a fresh controller; ttag of the R2T. */
static int start_r2t_write(struct ctrl *x, uint16_t cid, uint16_t *ttag)
{
	union nvme_command cmd;
	int ret = fresh_ctrl(x, 0);

	if (ret)
		return ret;
	rw_cmd(&cmd, nvme_cmd_write, 1, 0, 16384 >> x->lba_shift[1]);
	cmd.common.command_id = cid;
	cmd.common.flags = NVME_CMD_SGL_METABUF;
	sgl_set(&cmd, NVME_SGL_TCP_TRANSPORT, 16384);
	ret = wc_send_capsule(&x->io[1], &cmd, NULL, 0);
	if (!ret)
		ret = wc_recv(&x->io[1]);
	if (ret)
		return ret;
	if (x->io[1].p.type != nvme_tcp_r2t)
		return fail(W_ERR, "expected an R2T, got PDU type 0x%02x",
			    x->io[1].p.type);
	if (nvme_get_le32(x->io[1].rx + 12) != 0 ||
	    nvme_get_le32(x->io[1].rx + 16) != 16384)
		return fail(W_ERR, "R2T offset %u length %u",
			    nvme_get_le32(x->io[1].rx + 12),
			    nvme_get_le32(x->io[1].rx + 16));
	memcpy(ttag, x->io[1].rx + 10, 2);
	return 0;
}

static int bad_h2c_ttag(void)
{
	struct ctrl x;
	uint8_t data[4096];
	uint16_t ttag = 0;
	int ret = start_r2t_write(&x, 5, &ttag);

	memset(data, 0xab, sizeof(data));
	if (!ret)
		ret = wc_send_h2c(&x.io[1], 5, (uint16_t)(ttag ^ 0x7ff0), 0,
				  data, sizeof(data), 0);
	if (!ret)
		ret = wc_expect_term(&x.io[1], NVME_TCP_FES_INVALID_PDU_HDR, 10,
				     NULL, NULL);
	ctrl_close(&x);
	return ret;
}

static int bad_h2c_offset(void)
{
	struct ctrl x;
	uint8_t data[4096];
	uint16_t ttag = 0;
	int ret = start_r2t_write(&x, 6, &ttag);

	memset(data, 0xab, sizeof(data));
	if (!ret)
		ret = wc_send_h2c(&x.io[1], 6, ttag, 16384, data, sizeof(data),
				  NVME_TCP_F_DATA_LAST);
	if (!ret)
		ret = wc_expect_term(&x.io[1], NVME_TCP_FES_DATA_OUT_OF_RANGE,
				     -1, NULL, NULL);
	ctrl_close(&x);
	return ret;
}

static int bad_h2c_no_r2t(void)
{
	struct ctrl x;
	uint8_t data[4096];
	uint16_t fes = 0;
	uint32_t fei = 0;
	int ret = fresh_ctrl(&x, 0);

	memset(data, 0xab, sizeof(data));
	if (!ret)
		ret = wc_send_h2c(&x.io[1], 1, 0, 0, data, sizeof(data),
				  NVME_TCP_F_DATA_LAST);
	if (!ret)
		ret = wc_expect_term(&x.io[1], 0, -1, &fes, &fei);
	if (!ret && fes != NVME_TCP_FES_INVALID_PDU_HDR &&
	    fes != NVME_TCP_FES_PDU_SEQ_ERR)
		ret = fail(W_ERR, "C2HTermReq FES %u FEI %u, expected 1 or 2",
			   fes, fei);
	if (!ret)
		printf("# H2CData without an R2T: C2HTermReq FES %u FEI %u\n",
		       fes, fei);
	ctrl_close(&x);
	return ret;
}

static int bad_cmd_before_ic(void)
{
	struct wc w;
	union nvme_command cmd;
	uint8_t b[256];
	ssize_t n;
	int ret = wc_open(&w, port);

	capsule_read(&cmd, 1);
	/* framed as if IC were done without digests */
	w.c.ic_done = true;
	n = nvme_tcp_build_cmd(&w.c, b, sizeof(b), &cmd, NULL, 0);
	w.c.ic_done = false;
	if (!ret)
		ret = raw_term(&w, b, (size_t)n, NVME_TCP_FES_PDU_SEQ_ERR, -1);
	wc_close(&w);
	return ret;
}

static int bad_io_before_connect(void)
{
	struct wc w;
	union nvme_command cmd;
	uint8_t buf[4096];
	int ret = fresh_ic(&w, 0);

	rw_cmd(&cmd, nvme_cmd_read, 1, 0, 1);
	if (!ret)
		ret = wc_expect(&w, &cmd, buf, 512, DIR_C2H, XFER_AUTO,
				NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR, NULL);
	wc_close(&w);
	return ret;
}

static int bad_connect(const char *subnqn, const char *host, uint16_t want,
		       uint32_t want_dw0)
{
	struct ctrl x;
	struct nvme_completion cqe;
	int ret;

	ctrl_init(&x);
	ret = wc_open(&x.admin, port);
	if (!ret)
		ret = wc_ic(&x.admin, 0);
	if (!ret)
		ret = wc_connect(&x.admin, subnqn, host, 0, NVME_CNTLID_DYNAMIC,
				 31, 0, &cqe);
	if (!ret && cqe_status(&cqe) != want)
		ret = fail(W_ERR, "status %#x, expected %#x", cqe_status(&cqe),
			   want);
	if (!ret && want_dw0 != ~0u && le32_to_cpu(cqe.result.u32) != want_dw0)
		ret = fail(W_ERR, "DW0 %#x, expected %#x",
			   le32_to_cpu(cqe.result.u32), want_dw0);
	ctrl_close(&x);
	return ret;
}

/* An I/O queue Connect to the good controller */
static int bad_io_connect(uint16_t qid, uint16_t want, uint32_t want_dw0)
{
	struct ctrl x;
	uint16_t st;
	int ret;

	ctrl_init(&x);
	x.cntlid = good.cntlid;
	x.incap = good.incap;
	ret = ctrl_io(&x, port, qid, 31, 0, HOST_OK, &st);
	if (!ret && st != want)
		ret = fail(W_ERR, "status %#x, expected %#x", st, want);
	if (!ret && want_dw0 != ~0u &&
	    le32_to_cpu(*(nvme_le32 *)(x.io[qid < 4 ? qid : 3].rx + 8)) !=
		    want_dw0)
		ret = fail(W_ERR, "DW0 %#x, expected %#x",
			   nvme_get_le32(x.io[qid < 4 ? qid : 3].rx + 8),
			   want_dw0);
	ctrl_close(&x);
	return ret;
}

/* A command on a fresh controller's I/O queue (admin: qid 0) that must
 * fail with want, the connection staying up. */
static int bad_status(unsigned qid, union nvme_command *cmd, uint32_t len,
		      int dir, uint16_t want)
{
	struct ctrl x;
	uint8_t *buf = calloc(1, len ? len : 1), rbuf[4096];
	int ret = fresh_ctrl(&x, 0);
	struct wc *w = qid ? &x.io[qid] : &x.admin;

	if (!ret)
		ret = wc_expect(w, cmd, buf, len, dir, XFER_R2T, want, NULL);
	if (!ret)
		ret = ctx(io_rw(&x, 1, false, 1, 0, rbuf, sizeof(rbuf),
				XFER_AUTO),
			  "the queue after the error");
	free(buf);
	ctrl_close(&x);
	return ret;
}

static int bad_mdts(void)
{
	union nvme_command cmd;
	uint32_t len = 2u << 20;

	/* 512-byte LBAs at most: 4096 blocks fit NLB */
	rw_cmd(&cmd, nvme_cmd_read, 1, 0, len >> good.lba_shift[1]);
	if (len > 2 * good.max_xfer && good.max_xfer)
		len = 2 * good.max_xfer;
	return bad_status(1, &cmd, len, DIR_C2H,
			  NVME_SC_INVALID_FIELD | NVME_SC_DNR);
}

static int bad_io_opcode(void)
{
	union nvme_command cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.common.opcode = 0x7c; /* no NVM command */
	cmd.common.nsid = cpu_to_le32(1);
	return bad_status(1, &cmd, 0, DIR_NONE,
			  NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
}

static int bad_admin_opcode(void)
{
	union nvme_command cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.common.opcode = 0xc0; /* vendor specific, none implemented */
	return bad_status(0, &cmd, 0, DIR_NONE,
			  NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
}

static int bad_lba(void)
{
	union nvme_command cmd;

	rw_cmd(&cmd, nvme_cmd_read, 1, good.nsze[1], 1);
	return bad_status(1, &cmd, 1u << good.lba_shift[1], DIR_C2H,
			  NVME_SC_LBA_RANGE | NVME_SC_DNR);
}

static int bad_prop_set(void)
{
	struct ctrl x;
	uint16_t st = 0;
	int ret = fresh_ctrl(&x, 0);

	if (!ret)
		ret = prop_set(&x.admin, NVME_REG_AQA, 0x001f001f, &st);
	if (!ret && st != (NVME_SC_INVALID_FIELD | NVME_SC_DNR))
		ret = fail(W_ERR, "Property Set AQA: status %#x, expected %#x",
			   st, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	ctrl_close(&x);
	return ret;
}

/* sqsize 3 (4 entries): 6 writes held at their R2Ts must overflow it. */
static int bad_queue_overflow(void)
{
	struct ctrl x;
	union nvme_command cmd;
	uint16_t st = 0, fes = 0;
	uint32_t fei = 0;
	unsigned i;
	int ret = fresh_ctrl(&x, 0);

	if (!ret)
		ret = ctrl_io(&x, port, 2, 3, 0, HOST_OK, &st);
	if (!ret && st)
		ret = fail(W_ERR, "I/O Connect sqsize 3: status %#x", st);
	for (i = 0; !ret && i < 6; i++) {
		rw_cmd(&cmd, nvme_cmd_write, 1, i * 8, 4096 >> x.lba_shift[1]);
		cmd.common.command_id = (uint16_t)(100 + i);
		cmd.common.flags = NVME_CMD_SGL_METABUF;
		sgl_set(&cmd, NVME_SGL_TCP_TRANSPORT, 4096);
		ret = wc_send_capsule(&x.io[2], &cmd, NULL, 0);
		if (ret == W_EOF)
			ret = 0; /* already closed: the term is waiting */
	}
	if (!ret)
		ret = wc_expect_term(&x.io[2], 0, -1, &fes, &fei);
	if (!ret)
		printf("# queue overflow: C2HTermReq FES %u FEI %u\n", fes,
		       fei);
	ctrl_close(&x);
	return ret;
}

static int bad_admin_before_enable(void)
{
	struct ctrl x;
	union nvme_command cmd;
	uint8_t buf[4096];
	uint16_t st;
	int ret = ctrl_admin(&x, port, SUBNQN, HOST_OK, 0, &st);

	if (!ret && st)
		ret = fail(W_ERR, "Connect: status %#x", st);
	memset(&cmd, 0, sizeof(cmd));
	cmd.identify.opcode = nvme_admin_identify;
	cmd.identify.cns = NVME_ID_CNS_CTRL;
	if (!ret)
		ret = wc_expect(&x.admin, &cmd, buf, 4096, DIR_C2H, XFER_AUTO,
				NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR, NULL);
	ctrl_close(&x);
	return ret;
}

static void bad(const char *name, int (*fn)(void))
{
	int ret = fn();

	if (!ret)
		ret = good_alive();
	tap(name, ret);
}

static int bad_unknown_nqn(void)
{
	return bad_connect("nqn.2026-12.io.mqblk:nope", HOST_OK,
			   NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR,
			   256u | 1u << 16);
}

static int bad_host(void)
{
	return bad_connect(SUBNQN, HOST_OTHER,
			   NVME_SC_CONNECT_INVALID_HOST | NVME_SC_DNR, ~0u);
}

static int bad_dup_qid(void)
{
	return bad_io_connect(1, NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR, ~0u);
}

static int bad_qid_range(void)
{
	return bad_io_connect(3, NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR,
			      42);
}

static void scenario_c(void)
{
	bad("C: unknown PDU type: C2HTermReq FES 1 FEI 0, close",
	    bad_unknown_type);
	bad("C: wrong hlen: C2HTermReq FES 1 FEI 2, close", bad_hlen);
	bad("C: wrong hlen while a C2HData is part way out: the rest of "
	    "it, then C2HTermReq FES 1, close",
	    bad_hlen_mid_pdu);
	bad("C: wrong header digest: C2HTermReq FES 3, close", bad_hdgst);
	bad("C: plen over the target's limit: C2HTermReq, close", bad_plen);
	bad("C: truncated capsule, then the host closes", bad_truncated);
	bad("C: truncated H2CData, then the host closes", bad_truncated_h2c);
	bad("C: wrong data digest in a capsule: status 0x22, connection "
	    "stays up",
	    bad_ddgst);
	bad("C: H2CData with an unknown transfer tag: C2HTermReq FES 1 FEI "
	    "10, close",
	    bad_h2c_ttag);
	bad("C: H2CData offset out of range: C2HTermReq FES 4, close",
	    bad_h2c_offset);
	bad("C: H2CData without an R2T: C2HTermReq, close", bad_h2c_no_r2t);
	bad("C: CapsuleCmd before ICReq: C2HTermReq FES 2, close",
	    bad_cmd_before_ic);
	bad("C: I/O before Connect: status 0x400c", bad_io_before_connect);
	bad("C: Connect to an unknown NQN: 0x4182, IPO 256, IATTR 1",
	    bad_unknown_nqn);
	bad("C: Connect from a host not allowed: 0x4184", bad_host);
	bad("C: I/O Connect of a qid already connected: 0x400c", bad_dup_qid);
	bad("C: I/O Connect of a qid above the granted number: 0x4182, IPO "
	    "42",
	    bad_qid_range);
	bad("C: read over MDTS: 0x4002", bad_mdts);
	bad("C: unknown I/O opcode: 0x4001", bad_io_opcode);
	bad("C: unknown admin opcode: 0x4001", bad_admin_opcode);
	bad("C: LBA out of range: 0x4080", bad_lba);
	bad("C: Property Set of an unsupported offset: 0x4002", bad_prop_set);
	bad("C: more commands than the queue's size: C2HTermReq, close",
	    bad_queue_overflow);
	bad("C: admin command before CC.EN: 0x400c", bad_admin_before_enable);
}

/* ---- Scenario D: stats ------------------------------------------------------ */

static int stats(void)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	char peer[64], line[512], *out = NULL;
	size_t cap = 0, len = 0;
	int pfd[2], st, rows = 0, busy = 0;
	uint64_t end = now_ms() + 10000;
	pid_t pid;
	FILE *f;

	if (getsockname(good.io[1].fd, (struct sockaddr *)&sa, &sl))
		return fail(W_ERR, "getsockname: %s", strerror(errno));
	snprintf(peer, sizeof(peer), "127.0.0.1:%u", ntohs(sa.sin_port));
	if (pipe(pfd))
		return fail(W_ERR, "pipe: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execl(mqblk_bin, mqblk_bin, "target", "--stats",
		      "--stats-socket", sock_path, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, (int)(end > now_ms() ? end - now_ms() : 0)) <=
		    0)
			break;
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			out = realloc(out, cap);
		}
		n = read(pfd[0], out + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(pfd[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		kill(pid, SIGKILL);
		free(out);
		return fail(W_ERR, "mqblk target --stats failed (status %#x)",
			    st);
	}
	if (!out)
		return fail(W_ERR, "mqblk target --stats printed nothing");
	out[len] = 0;
	f = fmemopen(out, len, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned ctrl, qid, reactor;
		char p[64];
		unsigned long long cmds, reads;

		if (sscanf(line, "%u %u %63s %u %llu %llu", &ctrl, &qid, p,
			   &reactor, &cmds, &reads) != 6)
			continue;
		rows++;
		if (!strcmp(p, peer) && ctrl == good.cntlid && qid == 1 &&
		    cmds > 0 && reads > 0)
			busy++;
	}
	if (f)
		fclose(f);
	if (!busy) {
		int ret = fail(W_ERR,
			       "no row for ctrl %u qid 1 peer %s with nonzero "
			       "cmds and reads (%d rows): %.600s",
			       good.cntlid, peer, rows, out);

		free(out);
		return ret;
	}
	if (strncmp(out, "ctrl", 4)) {
		free(out);
		return fail(W_ERR, "no header line");
	}
	printf("# stats: %d rows\n", rows);
	free(out);
	return 0;
}

/* ---- Scenario F: stall detection ----------------------------------------- */

/* A read of the slow namespace is outstanding past --stall-ms: the target
 * logs it once, with its queue and command id, and still completes it. */
static int stall(void)
{
	uint8_t buf[4096];
	char want[128];
	uint64_t t0 = now_ms();
	int ret = io_rw(&good, 1, false, 3, 0, buf, sizeof(buf), XFER_AUTO);

	if (ret)
		return ctx(ret, "read of the slow namespace");
	if (now_ms() - t0 < STALL_NS_MS / 2)
		return fail(W_ERR, "the slow read took only %llu ms",
			    (unsigned long long)(now_ms() - t0));
	snprintf(want, sizeof(want), "stall: ctrl %u qid 1 cid ", good.cntlid);
	if (!log_has(want))
		return fail(W_ERR, "no \"%s...\" line in the log", want);
	return 0;
}

/* ---- Scenario G: nvmetcli JSON ------------------------------------------ */

/*
 * A second target from the JSON `nvmetcli save` writes (one port, one
 * subsystem with an allowed host, a namespace with a uuid): a host
 * connects, writes and reads back, and the namespace reports the uuid.
 */
static int config_target(void)
{
	char cfg[320], clog[320], cfgsock[320], portstr[16];
	struct ctrl x;
	uint8_t wbuf[8192], rbuf[8192], desc[4096];
	const uint8_t uuid[16] = { 0x5b, 0x1f, 0x0b, 0x2c, 0x4d, 0x6e,
				   0x47, 0x8a, 0x9b, 0xac, 0xbd, 0xce,
				   0xdf, 0xe0, 0xf1, 0x02 };
	int saved_port = port, cport = free_port(), ret;
	pid_t pid;
	FILE *f;
	size_t off = 0;

	snprintf(cfg, sizeof(cfg), "%s/nvmet.json", tmpdir);
	snprintf(clog, sizeof(clog), "%s/config-target.log", tmpdir);
	snprintf(cfgsock, sizeof(cfgsock), "%s/config.sock", tmpdir);
	snprintf(portstr, sizeof(portstr), "%d", cport);
	f = fopen(cfg, "w");
	if (!f)
		return fail(W_ERR, "%s: %s", cfg, strerror(errno));
	fprintf(f,
		"{\n  \"hosts\": [\n    {\n      \"nqn\": \"" HOST_OK "\"\n"
		"    }\n  ],\n  \"ports\": [\n    {\n      \"addr\": {\n"
		"        \"adrfam\": \"ipv4\",\n"
		"        \"traddr\": \"127.0.0.1\",\n"
		"        \"treq\": \"not specified\",\n"
		"        \"trsvcid\": \"%s\",\n"
		"        \"trtype\": \"tcp\"\n      },\n"
		"      \"ana_groups\": [],\n"
		"      \"param\": {\n        \"inline_data_size\": \"16384\"\n"
		"      },\n      \"portid\": 1,\n      \"referrals\": [],\n"
		"      \"subsystems\": [\n        \"" SUBNQN "\"\n      ]\n"
		"    }\n  ],\n  \"subsystems\": [\n    {\n"
		"      \"allowed_hosts\": [\n        \"" HOST_OK
		"\"\n      ],\n"
		"      \"attr\": {\n        \"allow_any_host\": \"0\",\n"
		"        \"model\": \"wire-config\",\n"
		"        \"serial\": \"0123456789abcdef\",\n"
		"        \"version\": \"1.3\"\n      },\n"
		"      \"namespaces\": [\n        {\n          \"device\": {\n"
		"            \"nguid\": \"00000000-0000-0000-0000-000000000000\",\n"
		"            \"path\": \"null:size=16m,memory_backed=1\",\n"
		"            \"uuid\": \"5b1f0b2c-4d6e-478a-9bac-bdcedfe0f102\"\n"
		"          },\n          \"enable\": 1,\n"
		"          \"nsid\": 1\n        }\n      ],\n"
		"      \"nqn\": \"" SUBNQN "\"\n    }\n  ]\n}\n",
		portstr);
	fclose(f);
	pid = fork();
	if (pid < 0)
		return fail(W_ERR, "fork: %s", strerror(errno));
	if (!pid) {
		int fd = open(clog, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
		execl(mqblk_bin, mqblk_bin, "target", "--config", cfg,
		      "--stats-socket", cfgsock, (char *)NULL);
		_exit(127);
	}
	ret = fail(W_TIMEOUT, "no \"ready\" from the --config target");
	for (int i = 0; i < 500; i++) {
		char *l = slurp(clog);
		bool ready = l && strstr(l, "ready");

		free(l);
		if (ready) {
			ret = 0;
			break;
		}
		usleep(20000);
	}
	port = cport;
	ctrl_init(&x);
	if (!ret)
		ret = ctrl_open(&x, 0, 1);
	if (!ret && memcmp(x.idc + 24, "wire-config", 11))
		ret = fail(W_ERR, "model is not the config's attr model");
	if (!ret && memcmp(x.idc + 4, "0123456789abcdef", 16))
		ret = fail(W_ERR, "serial is not the config's attr serial");
	if (!ret)
		ret = identify(&x.admin, NVME_ID_CNS_NS_DESC_LIST, 1, desc);
	if (!ret) {
		uint8_t nidt, nidl;
		const uint8_t *id;
		bool found = false;

		while (nvme_ns_desc_next(desc, sizeof(desc), &off, &nidt, &id,
					 &nidl) > 0)
			if (nidt == NVME_NIDT_UUID && !memcmp(id, uuid, 16))
				found = true;
		if (!found)
			ret = fail(W_ERR,
				   "no descriptor with the config's uuid");
	}
	fill(wbuf, sizeof(wbuf), 77);
	if (!ret)
		ret = io_rw(&x, 1, true, 1, 1 << 20, wbuf, sizeof(wbuf),
			    XFER_AUTO);
	if (!ret)
		ret = io_rw(&x, 1, false, 1, 1 << 20, rbuf, sizeof(rbuf),
			    XFER_AUTO);
	if (!ret)
		ret = compare(rbuf, wbuf, sizeof(wbuf), "read back");
	ctrl_close(&x);
	port = saved_port;
	kill(pid, SIGTERM);
	{
		int st = 0;

		waitpid(pid, &st, 0);
		if (!ret && (!WIFEXITED(st) || WEXITSTATUS(st)))
			ret = fail(W_ERR, "--config target: exit status %#x",
				   st);
	}
	if (ret) {
		char *l = slurp(clog);

		printf("# --config target's log:\n%s", l ? l : "");
		free(l);
	}
	unlink(cfg);
	unlink(cfgsock);
	if (!getenv("WIRE_KEEP"))
		unlink(clog);
	return ret;
}

/* ---- Scenario H: many controllers and queues at once ------------------ */

#define SCALE_CTRLS 100 /* x (admin + 2 I/O queues): 300 connections */

/* Rows in `mqblk target --stats` (queues the target has) */
static int stats_rows(unsigned *rows)
{
	char cmd[700], line[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' target --stats --stats-socket '%s'",
		 mqblk_bin, sock_path);
	p = popen(cmd, "r");
	if (!p)
		return fail(W_ERR, "popen: %s", strerror(errno));
	*rows = 0;
	while (fgets(line, sizeof(line), p))
		if (line[0] >= '0' && line[0] <= '9')
			(*rows)++;
	if (pclose(p))
		return fail(W_ERR, "mqblk target --stats failed");
	return 0;
}

/*
 * SCALE_CTRLS controllers, each with two I/O queues, all connected at
 * once: every queue reads the good block and gets the right data, the
 * stats table has a row for every one, and once they close the target
 * has only the good controller's left.
 */
static int scale(void)
{
	struct ctrl *x = calloc(SCALE_CTRLS, sizeof(*x));
	unsigned i, q, rows = 0, before = 0;
	uint8_t buf[4096];
	int ret;

	if (!x)
		return fail(W_ERR, "out of memory");
	ret = stats_rows(&before);
	for (i = 0; i < SCALE_CTRLS; i++)
		ctrl_init(&x[i]);
	for (i = 0; !ret && i < SCALE_CTRLS; i++)
		ret = ctx(ctrl_open(&x[i], 0, 2), "controller");
	for (i = 0; !ret && i < SCALE_CTRLS; i++) {
		for (q = 1; !ret && q <= 2; q++) {
			ret = io_rw(&x[i], q, false, GOOD_NSID, GOOD_OFF, buf,
				    sizeof(buf), XFER_AUTO);
			if (!ret)
				ret = compare(buf, good_data, sizeof(buf),
					      "read on a scale queue");
		}
	}
	if (!ret)
		ret = stats_rows(&rows);
	if (!ret && rows < before + 3 * SCALE_CTRLS)
		ret = fail(W_ERR,
			   "%u stats rows with %u queues open (%u before)",
			   rows, 3 * SCALE_CTRLS, before);
	for (i = 0; i < SCALE_CTRLS; i++)
		ctrl_close(&x[i]);
	free(x);
	if (!ret) {
		/* the target frees them on its next passes */
		uint64_t end = now_ms() + 5000;

		do {
			usleep(50000);
			ret = stats_rows(&rows);
		} while (!ret && rows > before && now_ms() < end);
		if (!ret && rows > before)
			ret = fail(W_ERR,
				   "%u stats rows after closing, %u before",
				   rows, before);
	}
	if (!ret)
		ret = good_alive();
	return ret;
}

/* ---- Scenario E: shutdown ---------------------------------------------- */

static int shutdown_target(void)
{
	uint64_t end = now_ms() + 10000;
	uint8_t b;
	int ret;

	if (!target_alive())
		return fail(W_ERR, "the target is already gone (status %#x)",
			    tgt_status);
	kill(tgt_pid, SIGTERM);
	while (target_alive() && now_ms() < end)
		usleep(20000);
	if (target_alive()) {
		kill(tgt_pid, SIGKILL);
		waitpid(tgt_pid, NULL, 0);
		tgt_pid = -1;
		return fail(W_TIMEOUT, "still running 10 s after SIGTERM");
	}
	if (!WIFEXITED(tgt_status) || WEXITSTATUS(tgt_status))
		return fail(W_ERR, "exit status %#x after SIGTERM", tgt_status);
	ret = recv_exact(good.io[1].fd, &b, 1, 1000);
	if (ret != W_EOF)
		return fail(W_ERR, "the good connection saw no EOF");
	if (!log_has("stopped"))
		return fail(W_ERR, "no \"stopped\" in the log");
	return 0;
}

static int sanitizers_quiet(void)
{
	char *s = slurp(log_path);
	const char *bad[] = { "AddressSanitizer", "LeakSanitizer",
			      "runtime error", "ThreadSanitizer" };
	unsigned i;
	int ret = 0;

	if (!s)
		return fail(W_ERR, "cannot read the log");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strstr(s, bad[i]))
			ret = fail(W_ERR, "\"%s\" in the target's log", bad[i]);
	free(s);
	return ret;
}

/* ---- Main ---------------------------------------------------------------- */

/* ---- Scenario I: two paths, ANA, the control socket ---------------------- */

/* `mqblk ctl CTL_PATH words...`: its exit status (its output to the log). */
static int ctl(const char *words)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' ctl '%s' %s >>'%s' 2>&1", mqblk_bin,
		 ctl_path, words, log_path);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* A read of one block of nsid on x's qid 1 must end with status want. */
static int read_status(struct ctrl *x, uint32_t nsid, uint16_t want)
{
	union nvme_command cmd;
	uint8_t buf[4096];

	rw_cmd(&cmd, nvme_cmd_read, nsid, 0, 4096u >> x->lba_shift[nsid]);
	return wc_expect(&x->io[1], &cmd, buf, 4096, DIR_C2H, XFER_AUTO, want,
			 NULL);
}

/* The ANA log through x: group grp's state and the change count. */
static int ana_state(struct ctrl *x, uint32_t grp, uint8_t *state,
		     uint64_t *chgcnt)
{
	uint8_t log[4096];
	size_t off = 16;
	unsigned g, ngrps;
	int ret = get_log(&x->admin, NVME_LOG_ANA, log, sizeof(log));

	if (ret)
		return ret;
	ngrps = nvme_get_le16(log + 8);
	*chgcnt = nvme_get_le64(log);
	for (g = 0; g < ngrps && off + 32 <= sizeof(log); g++) {
		if (nvme_get_le32(log + off) == grp) {
			*state = log[off + 16];
			return 0;
		}
		off += 32 + 4 * (size_t)nvme_get_le32(log + off + 4);
	}
	return fail(W_ERR, "no ANA group %u in the log (%u groups)", grp,
		    ngrps);
}

/* An outstanding AER on x's admin queue must complete with dw0. */
static int expect_aen(struct ctrl *x, uint16_t cid, uint32_t dw0)
{
	struct nvme_completion cqe;
	int ret = wc_recv(&x->admin);

	if (ret)
		return ctx(ret, "waiting for the AER's completion");
	if (x->admin.p.type != nvme_tcp_rsp)
		return fail(W_ERR, "PDU type %#x, expected a CapsuleResp",
			    x->admin.p.type);
	memcpy(&cqe, x->admin.rx + 8, sizeof(cqe));
	if (cqe.command_id != cid || cqe_status(&cqe) ||
	    le32_to_cpu(cqe.result.u32) != dw0)
		return fail(W_ERR,
			    "AER cid %u status %#x DW0 %#x, expected "
			    "cid %u DW0 %#x",
			    cqe.command_id, cqe_status(&cqe),
			    le32_to_cpu(cqe.result.u32), cid, dw0);
	return 0;
}

/* An AER on x's admin queue, not waited for; its command id. */
static int send_aer(struct ctrl *x, uint16_t *cid)
{
	union nvme_command cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.common.opcode = nvme_admin_async_event;
	*cid = x->admin.next_cid++;
	cmd.common.command_id = *cid;
	cmd.common.flags = NVME_CMD_SGL_METABUF;
	sgl_set(&cmd, NVME_SGL_TCP_TRANSPORT, 0);
	return wc_send_capsule(&x->admin, &cmd, NULL, 0);
}

/* A discovery controller on the discovery port with discovery log
 * change notices enabled and an AER outstanding (*cid). */
static int disc_watch(struct ctrl *d, uint16_t *cid, uint64_t *genctr)
{
	uint8_t log[1024];
	uint32_t dw0;
	uint16_t st;
	int ret = ctrl_admin(d, dport, NVME_DISC_SUBSYS_NAME, HOST_OK, 0, &st);

	if (!ret && st)
		ret = fail(W_ERR, "Connect: status %#x", st);
	if (!ret)
		ret = ctx(wc_enable(&d->admin), "enable");
	if (!ret)
		ret = set_features(&d->admin, NVME_FEAT_ASYNC_EVENT, 1u << 31,
				   &dw0);
	if (!ret)
		ret = get_log(&d->admin, NVME_LOG_DISC, log, sizeof(log));
	if (!ret)
		*genctr = nvme_get_le64(log);
	if (!ret)
		ret = send_aer(d, cid);
	return ret;
}

/* The discovery controller's AER completes with the discovery change
 * notice; the log's generation is then want. Another AER goes out. */
static int disc_changed(struct ctrl *d, uint16_t *cid, uint64_t want)
{
	const uint32_t dw0 = NVME_AER_DW0(NVME_AER_TYPE_NOTICE,
					  NVME_AER_NOTICE_DISC_CHANGED,
					  NVME_LOG_DISC);
	uint8_t log[1024];
	int ret = expect_aen(d, *cid, dw0);

	if (!ret)
		ret = get_log(&d->admin, NVME_LOG_DISC, log, sizeof(log));
	if (!ret && nvme_get_le64(log) != want)
		ret = fail(W_ERR, "discovery genctr %llu, expected %llu",
			   (unsigned long long)nvme_get_le64(log),
			   (unsigned long long)want);
	if (!ret)
		ret = send_aer(d, cid);
	return ret;
}

/*
 * J: a host that stops its keep-alives before it shuts the controller
 * down (Linux deleting a controller: nvme_stop_ctrl, then the namespaces
 * go, which for hundreds of them takes longer than KATO): the keep-alive
 * timer tears the controller down and its I/O queue closes, but its admin
 * queue still answers the shutdown (Property Set CC.SHN, then CSTS with
 * SHST complete); any other command then fails and the queue closes.
 */
static int ka_then_shutdown(void)
{
	union nvme_command cmd;
	struct ctrl x;
	char needle[512];
	uint64_t v = 0, end;
	uint16_t st = 0;
	int ret;

	connect_kato_ms = 1000;
	ret = ctrl_open(&x, 0, 1);
	connect_kato_ms = 0;
	if (ret)
		goto out;
	snprintf(needle, sizeof(needle),
		 "ctrl %u (host %s, %s): keep-alive timeout", x.cntlid, HOST_OK,
		 SUBNQN);
	end = now_ms() + TIMEOUT_MS;
	while (!log_has(needle) && now_ms() < end)
		usleep(50000);
	if (!log_has(needle)) {
		ret = fail(W_TIMEOUT, "no \"%s\" in the target's log", needle);
		goto out;
	}
	ret = ctx(wc_expect_eof(&x.io[1]), "the I/O queue after KATO");
	if (!ret)
		ret = prop_set(&x.admin, NVME_REG_CC,
			       0x460001 | NVME_CC_SHN_NORMAL << 14, &st);
	if (!ret && st)
		ret = fail(W_ERR, "shutdown Property Set: status %#x", st);
	end = now_ms() + TIMEOUT_MS;
	while (!ret) {
		ret = prop_get(&x.admin, NVME_REG_CSTS, false, &v, &st);
		if (!ret && st)
			ret = fail(W_ERR, "Property Get CSTS: status %#x", st);
		if (ret || (v & NVME_CSTS_SHST_MASK) == NVME_CSTS_SHST_CMPLT)
			break;
		if (now_ms() > end)
			ret = fail(W_TIMEOUT, "CSTS %#llx: no SHST complete",
				   (unsigned long long)v);
		usleep(10000);
	}
	if (ret)
		goto out;
	memset(&cmd, 0, sizeof(cmd));
	cmd.common.opcode = nvme_admin_keep_alive;
	ret = wc_expect(&x.admin, &cmd, NULL, 0, DIR_NONE, XFER_AUTO,
			NVME_SC_ABORT_QUEUE, NULL);
	if (!ret)
		ret = ctx(wc_expect_eof(&x.admin), "the admin queue after a "
						   "Keep Alive");
out:
	ctrl_close(&x);
	return ret;
}

/* ---- Scenario L: a stalled target past KATO ------------------------------ */

/*
 * The target process stops (SIGSTOP: a long scheduling stall, a VM
 * pause) with a Write in its socket, and resumes after the controller's
 * KATO passed. A host has taken the controller for dead by then and may
 * have sent that Write again on another path, and newer writes after it:
 * the stale copy must not run (it would undo them). The Write is answered
 * with Command Aborted due to SQ Deletion or its queue closes, and the
 * block still holds what was written before the stall.
 */
/*
 * kill() queues SIGSTOP and returns; the target's threads stop when they
 * next reach user mode. Until every one shows state T, a command sent now
 * may still run before the stall (a slow build, TSan, made that visible).
 */
static int wait_stopped(pid_t pid)
{
	char path[300], line[256];
	int tries, stopped, total;
	struct dirent *de;
	DIR *dir;
	FILE *f;

	for (tries = 0; tries < 500; tries++) {
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		dir = opendir(path);
		if (!dir)
			return -1;
		stopped = total = 0;
		while ((de = readdir(dir))) {
			const char *st;

			if (de->d_name[0] == '.')
				continue;
			total++;
			snprintf(path, sizeof(path), "/proc/%d/task/%s/stat",
				 (int)pid, de->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(line, sizeof(line), f)) {
				st = strrchr(line, ')');
				if (st && st[1] == ' ' && st[2] == 'T')
					stopped++;
			}
			fclose(f);
		}
		closedir(dir);
		if (total && stopped == total)
			return 0;
		usleep(10 * 1000);
	}
	return -1;
}

static int stall_past_kato(void)
{
	uint8_t before[4096], stale[4096], got[4096];
	const uint64_t off = 48u << 20; /* nsid 1, no other scenario's */
	struct nvme_completion cqe;
	union nvme_command cmd;
	struct ctrl x, y;
	pid_t waker;
	int ret, st;

	ctrl_init(&y);
	connect_kato_ms = 1000;
	ret = ctrl_open(&x, 0, 1);
	connect_kato_ms = 0;
	fill(before, sizeof(before), 1201);
	fill(stale, sizeof(stale), 1202);
	if (!ret)
		ret = io_rw(&x, 1, true, 1, off, before, sizeof(before),
			    XFER_AUTO);
	if (ret)
		goto out;
	/* the keep-alive timer starts over now: 1 s from here */
	memset(&cmd, 0, sizeof(cmd));
	cmd.common.opcode = nvme_admin_keep_alive;
	ret = wc_expect(&x.admin, &cmd, NULL, 0, DIR_NONE, XFER_AUTO, 0, NULL);
	if (ret)
		goto out;
	if (kill(tgt_pid, SIGSTOP)) {
		ret = fail(W_ERR, "SIGSTOP: %s", strerror(errno));
		goto out;
	}
	if (wait_stopped(tgt_pid)) {
		kill(tgt_pid, SIGCONT);
		ret = fail(W_ERR, "the target's threads did not all stop "
				  "within 5 s of SIGSTOP");
		goto out;
	}
	/* a child wakes the target 2.5 s on (KATO 1 s, ticks of 100 ms),
	 * while this thread's Write waits for its answer */
	waker = fork();
	if (waker == 0) {
		usleep(2500 * 1000);
		kill(tgt_pid, SIGCONT);
		_exit(0);
	}
	if (waker < 0) {
		kill(tgt_pid, SIGCONT);
		ret = fail(W_ERR, "fork: %s", strerror(errno));
		goto out;
	}
	rw_cmd(&cmd, nvme_cmd_write, 1, off >> x.lba_shift[1],
	       sizeof(stale) >> x.lba_shift[1]);
	ret = wc_exec(&x.io[1], &cmd, stale, sizeof(stale), DIR_H2C, XFER_AUTO,
		      &cqe);
	waitpid(waker, &st, 0);
	kill(tgt_pid, SIGCONT);
	if (!ret && cqe_status(&cqe) != NVME_SC_ABORT_QUEUE) {
		ret = fail(W_ERR,
			   "the Write sent before the stall was answered "
			   "%#x after it, past KATO: expected %#x (SQ deleted) "
			   "or the queue closed",
			   cqe_status(&cqe), NVME_SC_ABORT_QUEUE);
		goto out;
	}
	if (ret && ret != W_EOF)
		goto out;
	/* another controller reads the block: the stall's Write did not run */
	ret = ctrl_open(&y, 0, 1);
	if (!ret)
		ret = io_rw(&y, 1, false, 1, off, got, sizeof(got), XFER_AUTO);
	if (!ret)
		ret = compare(got, before, sizeof(got),
			      "the block after the stall");
out:
	ctrl_close(&y);
	ctrl_close(&x);
	return ret;
}

static void scenario_i(void)
{
	const uint32_t ana_aen = NVME_AER_DW0(
		NVME_AER_TYPE_NOTICE, NVME_AER_NOTICE_ANA, NVME_LOG_ANA);
	char words[128];
	struct ctrl x, y, d;
	uint8_t ns[4096], state = 0;
	uint64_t chg = 0, chg0 = 0, gen = 0;
	uint32_t dw0;
	uint16_t aer_cid, disc_cid = 0;
	int ret, fd, dret;

	ret = ctrl_open_at(&x, port2, 0, 1);
	tap("I: a controller on the second --listen port (another path)", ret);
	if (ret) {
		ctrl_close(&x);
		return;
	}
	ret = 0;
	if ((x.idc[76] & 0xb) != 0xb || x.idc[342] != 10 ||
	    x.idc[343] != 0x5f || nvme_get_le32(x.idc + 344) != 128 ||
	    nvme_get_le32(x.idc + 348) != 128 ||
	    !(nvme_get_le32(x.idc + 92) & (1u << 11)))
		ret = fail(W_ERR,
			   "CMIC %#x ANATT %u ANACAP %#x ANAGRPMAX %u "
			   "NANAGRPID %u OAES %#x",
			   x.idc[76], x.idc[342], x.idc[343],
			   nvme_get_le32(x.idc + 344),
			   nvme_get_le32(x.idc + 348),
			   nvme_get_le32(x.idc + 92));
	if (!ret)
		ret = identify(&x.admin, NVME_ID_CNS_NS, 2, ns);
	if (!ret && nvme_get_le32(ns + 92) != 2)
		ret = fail(W_ERR, "nsid 2 ANAGRPID %u, expected 2",
			   nvme_get_le32(ns + 92));
	tap("I: Identify: CMIC ANA, ANATT, ANACAP, ANAGRPMAX, NANAGRPID, "
	    "OAES; --ana-group 2:2 in ANAGRPID",
	    ret);

	ret = set_features(&x.admin, NVME_FEAT_ASYNC_EVENT,
			   NVME_AEN_CFG_ANA_CHANGE, &dw0);
	if (!ret)
		ret = send_aer(&x, &aer_cid);
	if (!ret)
		ret = ana_state(&x, 1, &state, &chg0);
	if (!ret && state != NVME_ANA_OPTIMIZED)
		ret = fail(W_ERR, "group 1 state %#x before", state);
	if (!ret)
		ret = read_status(&x, 1, 0);
	tap("I: both paths optimized: reads on the second path succeed", ret);

	snprintf(words, sizeof(words), "ana 1 127.0.0.1:%d inaccessible",
		 port2);
	ret = ctl(words) ? fail(W_ERR, "mqblk ctl %s: exit status", words) : 0;
	if (!ret)
		ret = expect_aen(&x, aer_cid, ana_aen);
	tap("I: mqblk ctl ana 1 PORT2 inaccessible: the AER completes with "
	    "the ANA change notice (DW0 0C0302h)",
	    ret);
	ret = ana_state(&x, 1, &state, &chg);
	if (!ret && (state != NVME_ANA_INACCESSIBLE || chg != chg0 + 1))
		ret = fail(W_ERR, "group 1 state %#x change count %llu", state,
			   (unsigned long long)chg);
	if (!ret)
		ret = ana_state(&good, 1, &state, &chg);
	if (!ret && state != NVME_ANA_OPTIMIZED)
		ret = fail(W_ERR, "through port 1: state %#x", state);
	tap("I: the ANA log: group 1 inaccessible through port 2 (change "
	    "count up by one), optimized through port 1",
	    ret);
	ret = ctx(read_status(&x, 1, NVME_SC_ANA_INACCESSIBLE), "nsid 1");
	if (!ret)
		ret = ctx(read_status(&x, 2, 0), "nsid 2 (group 2)");
	if (!ret)
		ret = ctx(read_status(&good, 1, 0), "nsid 1 on port 1");
	tap("I: a read of group 1 on port 2 fails with ANA Inaccessible "
	    "(302h); group 2 there and group 1 on port 1 read",
	    ret);
	ret = ctl("ana 1 2 change") ? fail(W_ERR, "ana 1 2 change") : 0;
	if (!ret)
		ret = read_status(&x, 1, NVME_SC_ANA_TRANSITION);
	if (!ret)
		ret = ctl("ana 1 2 persistent-loss") ?
			      fail(W_ERR, "ana 1 2 persistent-loss") :
			      0;
	if (!ret)
		ret = read_status(&x, 1, NVME_SC_ANA_PERSISTENT_LOSS);
	if (!ret)
		ret = ctl("ana 1 2 non-optimized") ?
			      fail(W_ERR, "ana 1 2 non-optimized") :
			      0;
	if (!ret)
		ret = read_status(&x, 1, 0);
	tap("I: change -> 303h, persistent-loss -> 301h, non-optimized -> "
	    "reads again (port ID form)",
	    ret);
	ret = ctl("ana 1 2 sleepy") == 2 && ctl("ana 1 9 optimized") == 1 &&
			      ctl("ana 3 2 optimized") == 1 &&
			      ctl("frobnicate") == 2 ?
		      0 :
		      fail(W_ERR, "a bad control command was not refused");
	tap("I: mqblk ctl refuses a bad state, an unknown port, a group "
	    "with no namespace and an unknown command",
	    ret);

	ret = discovery(dport, HOST_OK, 1);
	if (!ret && disc_found2 != 1)
		ret = fail(W_ERR, "%u discovery entries for port 2",
			   disc_found2);
	tap("I: the discovery log has both ports", ret);
	dret = disc_watch(&d, &disc_cid, &gen);
	tap("I: a discovery controller with change notices and an AER", dret);
	snprintf(words, sizeof(words), "port-down 127.0.0.1:%d", port2);
	ret = ctl(words) ? fail(W_ERR, "mqblk ctl %s", words) : 0;
	if (!ret)
		ret = ctx(wc_expect_eof(&x.io[1]), "I/O queue");
	if (!ret) {
		fd = tcp_connect(port2);
		if (fd >= 0) {
			close(fd);
			ret = fail(W_ERR, "port 2 still accepts connections");
		}
	}
	if (!ret)
		ret = ctx(read_status(&good, 1, 0), "port 1");
	if (!ret)
		ret = discovery(dport, HOST_OK, 1);
	if (!ret && disc_found2)
		ret = fail(W_ERR, "port 2 still in the discovery log");
	if (!ret && ctl(words) != 1)
		ret = fail(W_ERR, "a second port-down was not refused");
	tap("I: port-down: its connections close, it refuses new ones, "
	    "port 1 carries on, the discovery log drops it",
	    ret);
	if (!dret)
		dret = disc_changed(&d, &disc_cid, gen + 1);
	tap("I: port-down: the discovery controller gets the discovery log "
	    "change notice (DW0 70F002h), the generation moves",
	    dret);
	ctrl_close(&x);
	snprintf(words, sizeof(words), "port-up 127.0.0.1:%d", port2);
	ret = ctl(words) ? fail(W_ERR, "mqblk ctl %s", words) : 0;
	if (!ret)
		ret = ctrl_open_at(&y, port2, 0, 1);
	if (!ret)
		ret = read_status(&y, 1, 0);
	if (!ret && ctl(words) != 1)
		ret = fail(W_ERR, "a second port-up was not refused");
	tap("I: port-up: the second path connects and reads again", ret);
	if (!dret)
		dret = disc_changed(&d, &disc_cid, gen + 2);
	tap("I: port-up: the discovery change notice again", dret);
	ctrl_close(&d);
	ctrl_close(&y);
	ctl("ana 1 2 optimized");
}

/* ---- Scenario L: live configuration through the control socket ---------- */

#define LIVE_NQN "nqn.2026-12.io.mqblk:wire-live"

/* A read of one 512-byte block of nsid on w with status want. */
static int read_nsid(struct wc *w, uint32_t nsid, uint16_t want)
{
	union nvme_command cmd;
	uint8_t buf[512];

	rw_cmd(&cmd, nvme_cmd_read, nsid, 0, 1);
	return wc_expect(w, &cmd, buf, sizeof(buf), DIR_C2H, XFER_AUTO, want,
			 NULL);
}

/* The Changed Namespace List through x (rae: keep it): its NSIDs into
 * list (up to 8), their count into *n. */
static int changed_ns(struct ctrl *x, bool rae, uint32_t *list, unsigned *n)
{
	union nvme_command cmd;
	uint8_t log[4096];
	uint32_t numd = sizeof(log) / 4 - 1;
	unsigned i;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	cmd.get_log_page.opcode = nvme_admin_get_log_page;
	cmd.get_log_page.lid = NVME_LOG_CHANGED_NS;
	cmd.get_log_page.lsp = rae ? 0x80 : 0;
	cmd.get_log_page.numdl = cpu_to_le16((uint16_t)numd);
	cmd.get_log_page.nsid = cpu_to_le32(0xffffffff);
	ret = wc_expect(&x->admin, &cmd, log, sizeof(log), DIR_C2H, XFER_AUTO,
			0, NULL);
	if (ret)
		return ctx(ret, "Get Log Page 04h");
	*n = 0;
	for (i = 0; i < sizeof(log) / 4 && nvme_get_le32(log + 4 * i); i++)
		if (*n < 8)
			list[(*n)++] = nvme_get_le32(log + 4 * i);
	return 0;
}

/* The AER completes with Namespace Attribute Changed; the log lists
 * exactly nsid, and is empty when read again. Another AER goes out. */
static int ns_notice(struct ctrl *x, uint16_t *cid, uint32_t nsid)
{
	const uint32_t dw0 = NVME_AER_DW0(NVME_AER_TYPE_NOTICE,
					  NVME_AER_NOTICE_NS_CHANGED,
					  NVME_LOG_CHANGED_NS);
	uint32_t list[8];
	unsigned n;
	int ret = expect_aen(x, *cid, dw0);

	if (!ret)
		ret = changed_ns(x, true, list, &n);
	if (!ret && (n != 1 || list[0] != nsid))
		ret = fail(W_ERR, "RAE read: %u NSIDs, first %u, expected %u",
			   n, n ? list[0] : 0, nsid);
	if (!ret)
		ret = changed_ns(x, false, list, &n);
	if (!ret && (n != 1 || list[0] != nsid))
		ret = fail(W_ERR, "after RAE: %u NSIDs, expected %u kept", n,
			   nsid);
	if (!ret)
		ret = changed_ns(x, false, list, &n);
	if (!ret && n)
		ret = fail(W_ERR, "%u NSIDs (first %u) after a clearing read",
			   n, list[0]);
	if (!ret)
		ret = send_aer(x, cid);
	return ret;
}

/* Is nsid in x's active namespace list? */
static int ns_active(struct ctrl *x, uint32_t nsid, bool *yes)
{
	uint8_t list[4096];
	unsigned i;
	int ret = identify(&x->admin, NVME_ID_CNS_NS_ACTIVE_LIST, 0, list);

	*yes = false;
	for (i = 0; !ret && i < 1024 && nvme_get_le32(list + 4 * i); i++)
		*yes |= nvme_get_le32(list + 4 * i) == nsid;
	return ret;
}

static void scenario_l(void)
{
	char words[1536];
	struct ctrl x, d, y;
	uint16_t cid = 0, disc_cid = 0, st;
	uint64_t gen = 0, t0;
	uint32_t dw0;
	bool active;
	int ret, dret;

	ret = ctrl_open(&x, 0, 1);
	if (!ret)
		ret = set_features(&x.admin, NVME_FEAT_ASYNC_EVENT,
				   NVME_CTRL_OAES_NS_ATTR, &dw0);
	if (!ret)
		ret = send_aer(&x, &cid);
	tap("L: a controller with namespace change notices and an AER", ret);
	if (ret) {
		ctrl_close(&x);
		return;
	}

	ret = ctl("add-ns " SUBNQN " 7 null:size=1m") ?
		      fail(W_ERR, "add-ns: exit status") :
		      0;
	if (!ret)
		ret = ns_notice(&x, &cid, 7);
	if (!ret)
		ret = ns_active(&x, 7, &active);
	if (!ret && !active)
		ret = fail(W_ERR, "NSID 7 not in the active list");
	if (!ret)
		ret = ctx(read_nsid(&x.io[1], 7, 0), "read of NSID 7");
	tap("L: add-ns: Namespace Attribute Changed (DW0 040002h), the "
	    "Changed Namespace List holds NSID 7 (kept with RAE, cleared "
	    "without), NSID 7 is active and reads",
	    ret);

	ret = ctl("disable-ns " SUBNQN " 7") ? fail(W_ERR, "disable-ns") : 0;
	if (!ret)
		ret = ns_notice(&x, &cid, 7);
	if (!ret)
		ret = ctx(read_nsid(&x.io[1], 7,
				    NVME_SC_INVALID_NS | NVME_SC_DNR),
			  "read of disabled NSID 7");
	if (!ret)
		ret = ctl("enable-ns " SUBNQN " 7") ? fail(W_ERR, "enable-ns") :
						      0;
	if (!ret)
		ret = ns_notice(&x, &cid, 7);
	if (!ret)
		ret = ctx(read_nsid(&x.io[1], 7, 0), "read of NSID 7 again");
	tap("L: disable-ns / enable-ns: a notice each; reads fail with "
	    "Invalid Namespace (0Bh, DNR) while disabled, read again after",
	    ret);

	/* the removal while a read is at the (1.2 s) device: the read
	 * completes, later ones fail, the device closes after the read */
	ret = ctl("add-ns " SUBNQN
		  " 8 null:size=1m,irqmode=2,completion_nsec=" STR(
			  STALL_NS_MS) "000000") ?
		      fail(W_ERR, "add-ns 8") :
		      0;
	if (!ret)
		ret = ns_notice(&x, &cid, 8);
	if (!ret) {
		snprintf(words, sizeof(words),
			 "(sleep 0.3; '%s' ctl '%s' remove-ns " SUBNQN
			 " 8) >>'%s' 2>&1 &",
			 mqblk_bin, ctl_path, log_path);
		t0 = now_ms();
		ret = system(words) ? fail(W_ERR, "%s", words) : 0;
		if (!ret)
			ret = ctx(read_nsid(&x.io[1], 8, 0),
				  "the read in flight at the removal");
		if (!ret && now_ms() - t0 < STALL_NS_MS / 2)
			ret = fail(W_ERR, "the slow read took %llu ms",
				   (unsigned long long)(now_ms() - t0));
	}
	if (!ret)
		ret = ns_notice(&x, &cid, 8);
	if (!ret)
		ret = ctx(read_nsid(&x.io[1], 8,
				    NVME_SC_INVALID_NS | NVME_SC_DNR),
			  "a read after the removal");
	for (t0 = now_ms(); !ret && now_ms() - t0 < TIMEOUT_MS;) {
		if (log_has("namespace 8 (null:size=1m,irqmode=2"))
			break;
		usleep(20000);
	}
	if (!ret && !log_has("namespace 8 (null:size=1m,irqmode=2"))
		ret = fail(W_ERR, "no \"namespace 8 ...: removed, device "
				  "closed\" in the log");
	tap("L: remove-ns with a read at the device: the read completes "
	    "with success, the notice comes, a later read fails with Invalid "
	    "Namespace, the device closes after",
	    ret);

	{
		/* a Flush of every namespace (NSID FFFFFFFFh) walks them by
		 * NSID, the list having changed under it */
		union nvme_command fl;

		memset(&fl, 0, sizeof(fl));
		fl.common.opcode = nvme_cmd_flush;
		fl.common.nsid = cpu_to_le32(0xffffffff);
		tap("L: a Flush of all namespaces after the changes succeeds",
		    ctx(wc_expect(&x.io[1], &fl, NULL, 0, DIR_NONE, XFER_AUTO,
				  0, NULL),
			"Flush FFFFFFFFh"));
	}
	ret = ctl("remove-ns " SUBNQN " 7") ? fail(W_ERR, "remove-ns 7") : 0;
	if (!ret)
		ret = ns_notice(&x, &cid, 7);
	if (!ret)
		ret = ns_active(&x, 7, &active);
	if (!ret && active)
		ret = fail(W_ERR, "NSID 7 still active");
	tap("L: remove-ns: the notice, NSID 7 no longer active", ret);

	ret = ctl("add-ns " SUBNQN " 1 null:size=1m") == 1 &&
			      ctl("remove-ns " SUBNQN " 77") == 1 &&
			      ctl("add-ns nqn.2026-12.io.mqblk:nope 5 "
				  "null:size=1m") == 1 &&
			      ctl("add-ns " SUBNQN " 9 /nonexistent/x") == 1 &&
			      ctl("add-ns " SUBNQN " 0 null:size=1m") == 2 &&
			      ctl("add-ns " SUBNQN " 9 null: bogus=1") == 2 &&
			      ctl("add-ns " SUBNQN) == 2 &&
			      ctl("link 99 " SUBNQN) == 1 &&
			      ctl("enable-ns " SUBNQN " 1") == 1 ?
		      0 :
		      fail(W_ERR, "a bad live command was not refused (or "
				  "with the wrong exit status)");
	if (!ret)
		ret = ns_active(&x, 9, &active);
	if (!ret && active)
		ret = fail(W_ERR, "a refused add-ns left NSID 9 active");
	tap("L: refused: an NSID in use, an unknown NSID or subsystem, a "
	    "device that cannot open, NSID 0, an unknown key, too few "
	    "words, an unknown port, enabling an enabled namespace",
	    ret);

	dret = disc_watch(&d, &disc_cid, &gen);
	ret = ctl("add-subsys " LIVE_NQN " allow_any_host=1") ||
			      ctl("add-ns " LIVE_NQN " 1 null:size=1m") ||
			      ctl("link 1 " LIVE_NQN) ?
		      fail(W_ERR, "add-subsys, add-ns, link") :
		      0;
	if (!ret && !dret)
		ret = disc_changed(&d, &disc_cid, gen + 1);
	if (!ret) {
		ret = ctrl_admin(&y, port, LIVE_NQN, HOST_OTHER, 0, &st);
		if (!ret && st)
			ret = fail(W_ERR,
				   "Connect to the new subsystem: "
				   "status %#x",
				   st);
		if (!ret)
			ret = ctx(wc_enable(&y.admin), "enable");
	}
	tap("L: add-subsys + add-ns + link: the discovery change notice, the "
	    "generation moves; any host connects to the new subsystem",
	    ret);
	ret = ctl("unlink 1 " LIVE_NQN) ? fail(W_ERR, "unlink") : 0;
	if (!ret && !dret)
		ret = disc_changed(&d, &disc_cid, gen + 2);
	if (!ret)
		ret = ctx(wc_expect_eof(&y.admin), "the new subsystem's "
						   "controller after unlink");
	if (!ret)
		ret = ctl("remove-subsys " LIVE_NQN) ?
			      fail(W_ERR, "remove-subsys") :
			      0;
	if (!ret && ctl("remove-subsys " LIVE_NQN) != 1)
		ret = fail(W_ERR, "a second remove-subsys was not refused");
	tap("L: unlink: the notice again, the subsystem's controller on the "
	    "port is disconnected; remove-subsys",
	    ret);
	ctrl_close(&y);
	ctrl_close(&d);
	ctrl_close(&x);
	tap("L: the first connection still reads after all that",
	    ctx(read_status(&good, 1, 0), "nsid 1"));
}

static void cleanup(void)
{
	if (tgt_pid > 0) {
		kill(tgt_pid, SIGKILL);
		waitpid(tgt_pid, NULL, 0);
	}
	if (file_path[0] && !ns2_given)
		unlink(file_path);
	if (sock_path[0])
		unlink(sock_path);
	if (ctl_path[0])
		unlink(ctl_path);
	if (!getenv("WIRE_KEEP")) {
		if (log_path[0])
			unlink(log_path);
		if (tmpdir[0])
			rmdir(tmpdir);
	}
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	int fd, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s MQBLK_BINARY\n", argv[0]);
		return 2;
	}
	mqblk_bin = argv[1];
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(tmpdir, sizeof(tmpdir), "%s/mqblk-wire-XXXXXX",
		 tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	atexit(cleanup);
	snprintf(log_path, sizeof(log_path), "%s/target.log", tmpdir);
	snprintf(sock_path, sizeof(sock_path), "%s/stats.sock", tmpdir);
	snprintf(ctl_path, sizeof(ctl_path), "%s/ctl.sock", tmpdir);
	if (getenv("WIRE_NS2")) {
		/* nsid 2 on a block device the caller made (a loop device):
		 * used as it is, never removed */
		snprintf(file_path, sizeof(file_path), "%s",
			 getenv("WIRE_NS2"));
		ns2_given = true;
	} else {
		snprintf(file_path, sizeof(file_path), "%s/ns2.img", tmpdir);
		fd = open(file_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || ftruncate(fd, FILE_SIZE)) {
			perror(file_path);
			return 1;
		}
		close(fd);
	}
	port = free_port();
	dport = free_port();
	while (dport == port)
		dport = free_port();
	port2 = free_port();
	while (port2 == port || port2 == dport)
		port2 = free_port();
	if (port <= 0 || dport <= 0 || port2 <= 0) {
		fprintf(stderr, "no free port\n");
		return 1;
	}

	ret = start_target();
	tap("the target starts and logs \"ready\"", ret);
	if (ret) {
		dump_log_tail(30);
		printf("1..%u\n", nr_tests);
		return 1;
	}

	if (scenario_a(&good, 0, "no digests", 0)) {
		printf("# the good controller did not come up: stopping\n");
		dump_log_tail(30);
		printf("1..%u\n", nr_tests);
		return 1;
	}
	fill(good_data, sizeof(good_data), 4242);
	ret = io_rw(&good, 1, true, GOOD_NSID, GOOD_OFF, good_data,
		    sizeof(good_data), XFER_AUTO);
	tap("A: the good connection writes its reference block", ret);
	{
		struct ctrl dg;

		scenario_a(&dg, NVME_TCP_HDGST_ENABLE | NVME_TCP_DDGST_ENABLE,
			   "header+data digests", 4u << 20);
		ctrl_close(&dg);
	}

	scenario_b();
	scenario_c();
	tap("D: mqblk target --stats shows the good queue with its counts",
	    stats());
	tap("F: a command outstanding past --stall-ms is logged with its "
	    "queue and command id, and completes",
	    stall());
	tap("H: " STR(
		    SCALE_CTRLS) " controllers x 2 I/O queues at once: "
				 "each queue reads right, one stats row each, all freed on close",
	    scale());
	scenario_i();
	scenario_l();
	tap("J: KATO expired before the host's shutdown: the I/O queue "
	    "closes, the admin queue answers the shutdown, then closes",
	    ka_then_shutdown());
	tap("L: a Write that waited in a stopped target past KATO does not "
	    "run when it resumes: aborted, the block unchanged",
	    stall_past_kato());
	scenario_auth();
	tap("G: --config FILE (nvmetcli JSON): connect as the allowed host, "
	    "model/serial/uuid from the file, write and read back",
	    config_target());
	tap("E: SIGTERM: exit 0 within 10 s, EOF on the good connection, "
	    "\"stopped\" logged",
	    shutdown_target());
	tap("the target's log has no sanitizer report", sanitizers_quiet());
	if (nr_failed)
		dump_log_tail(60);
	ctrl_close(&good);
	printf("1..%u\n", nr_tests);
	return nr_failed ? 1 : 0;
}
