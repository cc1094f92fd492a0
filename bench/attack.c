// SPDX-License-Identifier: MIT
/*
 * bench/attack's hostile hosts: one attack on an NVMe/TCP target for a
 * number of seconds, then a line of what it did. bench/attack runs each
 * while a well-behaved host measures what it still gets.
 *
 *   attack --port P --nqn NQN --mode MODE --seconds S [--conns N]
 *
 * Modes: idle-ic (N connections, ICReq sent, then nothing), idle-tcp (N
 * connections, nothing sent), churn (connect, ICReq, close, as fast as
 * it can), slowloris (N connections each stopping halfway through its
 * Connect capsule, reopened when the target closes one), noread (N I/O
 * queues of a real controller sending 128 KiB reads of namespace
 * --nsid, as many as each queue has entries, and never reading an
 * answer; with --then-read it reads them all once its time is up), malformed (bad PDUs at full rate: oversize PLEN, unknown
 * type, bad HLEN, a capsule before ICReq, a bad PFV), forbidden (Connects
 * for a subsystem that is not there and for NQN as a host not allowed).
 * Each ends with "attack: mode=... key=value ..." (counts, how many of
 * its connections the target closed).
 */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nvme/nvme.h"
#include "nvme/tcp.h"

#define HOSTNQN_BAD "nqn.2026-12.io.mqblk:attack-not-allowed"
#define IO_CMD_BYTES (128u << 10)

static int port;
static const char *nqn;
static const char *hostnqn = "nqn.2026-12.io.mqblk:attack";
static double seconds = 5;
static unsigned nr_conns = 1000;
static unsigned nsid = 1; /* noread's namespace */
/* noread, once its time is up: read every answer after all (the target
 * must have kept them, and go on reading commands) */
static bool then_read;
static uint64_t completed;

/* what happened, printed at the end */
static uint64_t connects, connect_errors, closed_by_target, pdus, cmds;
static uint64_t refused; /* Connects answered with an error status */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int tcp_open(bool nonblock)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	int fd, one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		connect_errors++;
		return -1;
	}
	connects++;
	if (nonblock) {
		struct timeval tv = { .tv_sec = 0, .tv_usec = 1 };

		/* sends that would block give up at once (SO_SNDTIMEO) */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	return fd;
}

/* All of buf, or -1 (closed, or timed out after timeout_ms). */
static int send_all(int fd, const void *buf, size_t len, int timeout_ms)
{
	const uint8_t *b = buf;
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000;

	while (len) {
		ssize_t n = send(fd, b, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			b += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			if (now_ns() > end)
				return -1;
			poll(&p, 1, 10);
			continue;
		}
		return -1;
	}
	return 0;
}

static int recv_all(int fd, void *buf, size_t len, int timeout_ms)
{
	uint8_t *b = buf;

	while (len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, timeout_ms) <= 0)
			return -1;
		n = recv(fd, b, len, 0);
		if (n <= 0)
			return -1;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_icreq(int fd, struct nvme_tcp_conn *c)
{
	uint8_t req[128], rsp[128];
	ssize_t n = nvme_tcp_build_icreq(req, sizeof(req), 0, 0, 0);

	if (n <= 0 || send_all(fd, req, (size_t)n, 1000))
		return -1;
	if (!c)
		return 0;
	if (recv_all(fd, rsp, sizeof(rsp), 5000))
		return -1;
	memset(c, 0, sizeof(*c));
	c->host = true;
	return nvme_tcp_conn_establish(c, req, rsp);
}

/* A Connect capsule (the 1024 bytes of its data in the capsule) into
 * buf: its length. */
static ssize_t connect_pdu(const struct nvme_tcp_conn *c, uint8_t *buf,
			   size_t len, const char *subnqn, const char *host,
			   uint16_t qid, uint16_t cntlid, uint16_t sqsize)
{
	struct nvmf_connect_data d;
	union nvme_command cmd;

	memset(&d, 0, sizeof(d));
	memset(&cmd, 0, sizeof(cmd));
	memset(d.hostid, 0x5a, sizeof(d.hostid));
	d.cntlid = cpu_to_le16(cntlid);
	snprintf(d.subsysnqn, sizeof(d.subsysnqn), "%s", subnqn);
	snprintf(d.hostnqn, sizeof(d.hostnqn), "%s", host);
	cmd.connect.opcode = nvme_fabrics_command;
	cmd.connect.fctype = nvme_fabrics_type_connect;
	cmd.connect.qid = cpu_to_le16(qid);
	cmd.connect.sqsize = cpu_to_le16(sqsize);
	cmd.common.flags = NVME_CMD_SGL_METABUF;
	cmd.common.dptr.sgl.length = cpu_to_le32(sizeof(d));
	cmd.common.dptr.sgl.type = NVME_SGL_TCP_INCAPSULE;
	return nvme_tcp_build_cmd(c, buf, len, &cmd, &d, sizeof(d));
}

/* Read PDUs until the CapsuleResp of cid: its status and DW0 (C2HData
 * is skipped). -1: closed or no answer in time. */
static int wait_rsp(int fd, uint16_t cid, uint16_t *status, uint32_t *dw0)
{
	uint8_t hdr[8], body[256];

	for (;;) {
		uint32_t plen, left;
		uint8_t hlen;

		if (recv_all(fd, hdr, 8, 5000))
			return -1;
		hlen = hdr[2];
		plen = nvme_get_le32(hdr + 4);
		if (plen < 8 || hlen < 8 || plen < hlen)
			return -1;
		if (recv_all(fd, body, hlen - 8u, 5000))
			return -1;
		left = plen - hlen;
		while (left) {
			uint8_t skip[4096];
			uint32_t k = left < sizeof(skip) ?
					     left :
					     (uint32_t)sizeof(skip);

			if (recv_all(fd, skip, k, 5000))
				return -1;
			left -= k;
		}
		if (hdr[0] == nvme_tcp_rsp) {
			struct nvme_completion cqe;

			memcpy(&cqe, body, sizeof(cqe));
			if (cqe.command_id != cid)
				continue;
			*status = (uint16_t)(le16_to_cpu(cqe.status) >> 1);
			*dw0 = le32_to_cpu(cqe.result.u32);
			return 0;
		}
		if (hdr[0] != nvme_tcp_c2h_data)
			return -1;
	}
}

/* CapsuleResps read from fd until want have come (or 5 s pass with none,
 * or the connection ends): how many. */
static unsigned drain(int fd, unsigned want)
{
	unsigned got = 0;

	while (got < want) {
		uint8_t hdr[8], body[256];
		uint32_t plen, left;

		if (recv_all(fd, hdr, 8, 5000))
			break;
		plen = nvme_get_le32(hdr + 4);
		if (hdr[2] < 8 || plen < hdr[2] ||
		    recv_all(fd, body, hdr[2] - 8u, 5000))
			break;
		for (left = plen - hdr[2]; left;) {
			uint8_t skip[16384];
			uint32_t k = left < sizeof(skip) ? left : sizeof(skip);

			if (recv_all(fd, skip, k, 5000))
				return got;
			left -= k;
		}
		if (hdr[0] == nvme_tcp_rsp)
			got++;
	}
	return got;
}

static int exec_cmd(int fd, const struct nvme_tcp_conn *c,
		    union nvme_command *cmd, uint16_t *status, uint32_t *dw0)
{
	uint8_t buf[256];
	ssize_t n;

	cmd->common.flags = NVME_CMD_SGL_METABUF; /* no data: SGL length 0 */
	n = nvme_tcp_build_cmd(c, buf, sizeof(buf), cmd, NULL, 0);

	if (n <= 0 || send_all(fd, buf, (size_t)n, 1000))
		return -1;
	return wait_rsp(fd, cmd->common.command_id, status, dw0);
}

/* A queue of a controller: ICReq, Connect. The admin queue (qid 0)
 * makes the controller (its cntlid in *cntlid) and enables it. */
static int queue_open(uint16_t qid, uint16_t *cntlid, uint16_t sqsize)
{
	struct nvme_tcp_conn c;
	union nvme_command cmd;
	uint8_t buf[2048];
	uint16_t st;
	uint32_t dw0;
	ssize_t n;
	int fd = tcp_open(false), i;

	if (fd < 0)
		return -1;
	if (send_icreq(fd, &c))
		goto fail;
	n = connect_pdu(&c, buf, sizeof(buf), nqn, hostnqn, qid,
			qid ? *cntlid : 0xffff, sqsize);
	if (n <= 0 || send_all(fd, buf, (size_t)n, 1000) ||
	    wait_rsp(fd, 0, &st, &dw0) || st)
		goto fail;
	if (qid)
		return fd;
	*cntlid = (uint16_t)dw0;
	memset(&cmd, 0, sizeof(cmd));
	cmd.prop_set.opcode = nvme_fabrics_command;
	cmd.prop_set.fctype = nvme_fabrics_type_property_set;
	cmd.prop_set.command_id = 1;
	cmd.prop_set.offset = cpu_to_le32(NVME_REG_CC);
	cmd.prop_set.value = cpu_to_le64(0x460001);
	if (exec_cmd(fd, &c, &cmd, &st, &dw0) || st)
		goto fail;
	for (i = 0; i < 500; i++) {
		memset(&cmd, 0, sizeof(cmd));
		cmd.prop_get.opcode = nvme_fabrics_command;
		cmd.prop_get.fctype = nvme_fabrics_type_property_get;
		cmd.prop_get.command_id = 2;
		cmd.prop_get.offset = cpu_to_le32(NVME_REG_CSTS);
		if (exec_cmd(fd, &c, &cmd, &st, &dw0) || st)
			goto fail;
		if (dw0 & NVME_CSTS_RDY)
			return fd;
		usleep(10000);
	}
fail:
	close(fd);
	return -1;
}

/* ---- The attacks ------------------------------------------------------- */

/* Hold fds until the end, counting those the target closes (and, with
 * reopen, opening them again as open_fn does). */
static void hold(int *fds, unsigned n, int (*open_fn)(void))
{
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	struct pollfd *p = calloc(n, sizeof(*p));
	unsigned i;

	if (!p)
		return;
	while (now_ns() < end) {
		for (i = 0; i < n; i++) {
			p[i].fd = fds[i];
			p[i].events = POLLIN;
			p[i].revents = 0;
		}
		if (poll(p, n, 100) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			char junk[4096];

			if (!p[i].revents || fds[i] < 0)
				continue;
			if (recv(fds[i], junk, sizeof(junk), MSG_DONTWAIT) > 0)
				continue;
			close(fds[i]);
			fds[i] = -1;
			closed_by_target++;
			if (open_fn)
				fds[i] = open_fn();
		}
	}
	free(p);
}

static int open_idle_tcp(void)
{
	return tcp_open(false);
}

static int open_idle_ic(void)
{
	struct nvme_tcp_conn c;
	int fd = tcp_open(false);

	if (fd >= 0 && send_icreq(fd, &c)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int open_slowloris(void)
{
	struct nvme_tcp_conn c;
	uint8_t buf[2048];
	ssize_t n;
	int fd = open_idle_ic();

	if (fd < 0)
		return -1;
	memset(&c, 0, sizeof(c));
	c.host = true;
	n = connect_pdu(&c, buf, sizeof(buf), nqn, hostnqn, 0, 0xffff, 31);
	/* half of it: the header and some of the data, then nothing */
	if (n <= 0 || send_all(fd, buf, (size_t)n / 2, 1000)) {
		close(fd);
		return -1;
	}
	pdus++;
	return fd;
}

static void attack_hold(int (*open_fn)(void), bool reopen)
{
	int *fds = calloc(nr_conns, sizeof(*fds));
	unsigned i, n = 0;

	if (!fds)
		return;
	for (i = 0; i < nr_conns; i++) {
		int fd = open_fn();

		if (fd >= 0)
			fds[n++] = fd;
	}
	hold(fds, n, reopen ? open_fn : NULL);
	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}

static void attack_churn(void)
{
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	unsigned k = 0;

	while (now_ns() < end) {
		int fd = tcp_open(false);
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		if (fd < 0) {
			usleep(1000);
			continue;
		}
		/* every other one sends its ICReq first; an RST close
		 * leaves no TIME_WAIT to run the ports out */
		if (k++ & 1)
			send_icreq(fd, NULL);
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd);
	}
}

/* One bad PDU of kind k on a fresh connection (after an ICReq but for a
 * capsule before it), then the next: the target answers each with a
 * TermReq and closes. */
static void attack_malformed(void)
{
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	unsigned k = 0;

	while (now_ns() < end) {
		struct nvme_tcp_conn c;
		uint8_t pdu[256];
		size_t len = 72;
		bool ic = true;
		int fd = tcp_open(false);
		union nvme_command cmd;

		if (fd < 0) {
			usleep(1000);
			continue;
		}
		memset(&c, 0, sizeof(c));
		c.host = true;
		memset(&cmd, 0, sizeof(cmd));
		cmd.rw.opcode = nvme_cmd_read;
		nvme_tcp_build_cmd(&c, pdu, sizeof(pdu), &cmd, NULL, 0);
		switch (k++ % 5) {
		case 0: /* PLEN far past anything the target takes */
			nvme_put_le32(pdu + 4, 0xfffffff0u);
			break;
		case 1: /* a type no one defines */
			pdu[0] = 0x7e;
			break;
		case 2: /* a capsule whose HLEN is not a capsule's */
			pdu[2] = 24;
			break;
		case 3: /* a capsule before the ICReq */
			ic = false;
			break;
		case 4: /* an ICReq with an unknown PDU format version */
			nvme_tcp_build_icreq(pdu, sizeof(pdu), 0, 0, 0);
			nvme_put_le16(pdu + 8, 7);
			len = 128;
			ic = false;
			break;
		}
		if ((!ic || !send_icreq(fd, &c)) &&
		    !send_all(fd, pdu, len, 1000)) {
			pdus++;
			/* the TermReq, or the close */
			recv_all(fd, pdu, 24, 1000);
		}
		close(fd);
	}
}

static void attack_forbidden(void)
{
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	unsigned k = 0;

	while (now_ns() < end) {
		struct nvme_tcp_conn c;
		uint8_t buf[2048];
		uint16_t st = 0;
		uint32_t dw0;
		ssize_t n;
		int fd = tcp_open(false);

		if (fd < 0) {
			usleep(1000);
			continue;
		}
		if (send_icreq(fd, &c)) {
			close(fd);
			continue;
		}
		/* a subsystem that is not there, or ours as a stranger */
		n = k++ & 1 ? connect_pdu(&c, buf, sizeof(buf),
					  "nqn.2026-12.io.mqblk:attack-absent",
					  hostnqn, 0, 0xffff, 31) :
			      connect_pdu(&c, buf, sizeof(buf), nqn,
					  HOSTNQN_BAD, 0, 0xffff, 31);
		if (n > 0 && !send_all(fd, buf, (size_t)n, 1000)) {
			pdus++;
			if (!wait_rsp(fd, 0, &st, &dw0) && st)
				refused++;
		}
		close(fd);
	}
}

/* nr_conns I/O queues of one controller, each sent as many reads as
 * it has entries (SQ flow control kept: a host may have that many
 * outstanding), none of whose answers is ever read. */
static void attack_noread(void)
{
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	struct nvme_tcp_conn c;
	uint16_t cntlid = 0, cid = 0;
	int admin = queue_open(0, &cntlid, 31), *fds;
	unsigned i, n = 0, nlb = IO_CMD_BYTES / 512, *sent;

	if (admin < 0) {
		fprintf(stderr, "attack: noread: no controller\n");
		return;
	}
	fds = calloc(nr_conns, sizeof(*fds));
	sent = calloc(nr_conns, sizeof(*sent));
	if (!fds || !sent)
		return;
	memset(&c, 0, sizeof(c));
	c.host = true;
	for (i = 0; i < nr_conns; i++) {
		/* the socket's default receive buffer: never read, it
		 * stays small (a smaller one set here would clamp the window
		 * for good, and --then-read would crawl) */
		int fd = queue_open((uint16_t)(i + 1), &cntlid, 1023);

		if (fd < 0)
			break;
		fds[n++] = fd;
	}
	while (now_ns() < end) {
		bool any = false;

		for (i = 0; i < n; i++) {
			union nvme_command cmd;
			uint8_t buf[128];
			ssize_t len;

			if (fds[i] < 0 || sent[i] == 1023)
				continue;
			memset(&cmd, 0, sizeof(cmd));
			cmd.rw.opcode = nvme_cmd_read;
			cmd.rw.command_id = cid++;
			cmd.rw.nsid = cpu_to_le32(nsid);
			cmd.rw.slba = cpu_to_le64((uint64_t)(cid % 64) * nlb);
			cmd.rw.length = cpu_to_le16((uint16_t)(nlb - 1));
			cmd.common.flags = NVME_CMD_SGL_METABUF;
			cmd.common.dptr.sgl.length = cpu_to_le32(IO_CMD_BYTES);
			cmd.common.dptr.sgl.type = NVME_SGL_TCP_TRANSPORT;
			len = nvme_tcp_build_cmd(&c, buf, sizeof(buf), &cmd,
						 NULL, 0);
			if (len <= 0)
				continue;
			if (send(fds[i], buf, (size_t)len,
				 MSG_NOSIGNAL | MSG_DONTWAIT) == len) {
				cmds++;
				pdus++;
				sent[i]++;
				any = true;
			} else if (errno != EAGAIN && errno != EWOULDBLOCK) {
				/* the target gave up on this queue */
				close(fds[i]);
				fds[i] = -1;
				closed_by_target++;
			}
		}
		if (!any)
			usleep(10000); /* every queue pushed back */
	}
	for (i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		if (then_read)
			completed += drain(fds[i], sent[i]);
		close(fds[i]);
	}
	close(admin);
	free(fds);
	free(sent);
	nr_conns = n;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: attack --port P --nqn NQN --mode MODE [--seconds S] "
		"[--conns N] [--hostnqn NQN] [--nsid N] [--then-read]\n"
		"  modes: idle-ic idle-tcp churn slowloris noread malformed "
		"forbidden\n");
	exit(2);
}

static bool parse_num(const char *s, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return !errno && end != s && !*end && *v >= lo && *v <= hi;
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	struct rlimit rl;
	double v;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i],
			   *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--then-read")) {
			then_read = true;
			continue;
		}
		if (!val)
			usage();
		if (!strcmp(a, "--port") && parse_num(val, 1, 65535, &v))
			port = (int)v;
		else if (!strcmp(a, "--nqn"))
			nqn = val;
		else if (!strcmp(a, "--hostnqn"))
			hostnqn = val;
		else if (!strcmp(a, "--mode"))
			mode = val;
		else if (!strcmp(a, "--seconds") &&
			 parse_num(val, 0.1, 3600, &v))
			seconds = v;
		else if (!strcmp(a, "--nsid") && parse_num(val, 1, 1024, &v))
			nsid = (unsigned)v;
		else if (!strcmp(a, "--conns") && parse_num(val, 1, 100000, &v))
			nr_conns = (unsigned)v;
		else {
			fprintf(stderr, "attack: bad option %s %s\n", a, val);
			usage();
		}
		i++;
	}
	if (!port || !nqn || !mode)
		usage();
	signal(SIGPIPE, SIG_IGN);
	/* a descriptor per connection */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!strcmp(mode, "idle-ic"))
		attack_hold(open_idle_ic, false);
	else if (!strcmp(mode, "idle-tcp"))
		attack_hold(open_idle_tcp, false);
	else if (!strcmp(mode, "slowloris"))
		attack_hold(open_slowloris, true);
	else if (!strcmp(mode, "churn"))
		attack_churn();
	else if (!strcmp(mode, "malformed"))
		attack_malformed();
	else if (!strcmp(mode, "forbidden"))
		attack_forbidden();
	else if (!strcmp(mode, "noread"))
		attack_noread();
	else {
		fprintf(stderr, "attack: unknown mode %s\n", mode);
		usage();
	}
	printf("attack: mode=%s conns=%u connects=%llu connect_errors=%llu "
	       "closed_by_target=%llu pdus=%llu cmds=%llu refused=%llu "
	       "completed=%llu\n",
	       mode, nr_conns, (unsigned long long)connects,
	       (unsigned long long)connect_errors,
	       (unsigned long long)closed_by_target, (unsigned long long)pdus,
	       (unsigned long long)cmds, (unsigned long long)refused,
	       (unsigned long long)completed);
	return 0;
}
