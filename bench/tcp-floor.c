// SPDX-License-Identifier: MIT
/*
 * tcp-floor: this machine's floor for one NVMe/TCP-shaped round trip over
 * loopback TCP, and its loopback bandwidth. A server process and a client
 * process (each pinned to its own CPU) exchange messages with the byte
 * counts of NVMe/TCP (not its protocol) over a TCP socket on 127.0.0.1 with
 * TCP_NODELAY on both ends:
 *
 *   read4k     request 72             response 24 + 4096 + 24
 *   write4k    request 72 + 4096      response 24
 *   read128k   request 72             response 24 + 131072 + 24
 *   write128k  request 72 + 131072    response 24
 *
 * (72 = a command capsule, 24 = a C2HData header and a response capsule.)
 * Both ends run in the same mode, one of two socket layers:
 *
 *   block             send(2)/recv(2) on blocking sockets; the kernel wakes
 *                     the thread (recv with MSG_WAITALL)
 *   poll              the same calls with MSG_DONTWAIT, spinning on EAGAIN:
 *                     never sleeps
 *   uring             io_uring: IORING_OP_SEND/RECV SQEs (MSG_WAITALL),
 *                     submitted with io_uring_submit_and_wait; the kernel
 *                     wakes the thread when the receive is done
 *   uring-poll        the same SQEs, submitted with io_uring_submit; the
 *                     thread spins on io_uring_peek_cqe, never sleeps
 *   uring-poll-fixed  uring-poll with the socket registered (a fixed file,
 *                     IOSQE_FIXED_FILE) and the ring fd registered
 *
 * The rings are SINGLE_ISSUER | DEFER_TASKRUN | COOP_TASKRUN |
 * TASKRUN_FLAG (as src/drivers/uring sets them up): a completion's task
 * work runs when the owner asks for completions, and the peek of the
 * polled modes sees IORING_SQ_TASKRUN and enters the kernel to run it.
 *
 * The client keeps QD requests outstanding; the server answers them one
 * at a time, in order. Each request's latency runs from just before its
 * send to the end of its response's receive.
 *
 * Each end moves a message with one contiguous buffer (no scatter-gather,
 * no header/data split) and one request at a time: the floor of a simple
 * transport, not the best a batching one could do at QD > 1. The io_uring
 * modes keep that shape: one send SQE per request and one recv SQE per
 * message, and only one recv in flight on a socket (two would race for its
 * bytes). What they batch is the submission: the client stamps and
 * prepares the send of every request it admits (all QD at the start, then
 * one per response), links them (IOSQE_IO_LINK keeps the byte stream in
 * order), and submits them with the recv of the next response in one
 * io_uring_enter; the server submits its response's send and the recv of
 * the next request together. Each end then reaps until that recv and its
 * sends are done (uring: one io_uring_submit_and_wait for all of them).
 *
 * Usage: tcp-floor [options] (--help lists them). Prints a table, or with
 * --lines one "tcp-floor: shape=... qd=... mode=..." line per row, or with
 * --json a JSON array.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <liburing.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CAPSULE_CMD 72 /* NVMe/TCP command capsule PDU */
#define PDU_HDR 24 /* C2HData PDU header; response capsule PDU */
#define MAX_QD 1024
#define MAX_ROWS 64

enum mode {
	MODE_BLOCK,
	MODE_POLL,
	MODE_URING,
	MODE_URING_POLL,
	MODE_URING_POLL_FIXED,
	NR_MODES
};

static const char *const mode_name[NR_MODES] = {
	"block", "poll", "uring", "uring-poll", "uring-poll-fixed",
};

static bool mode_uring(enum mode mode)
{
	return mode >= MODE_URING;
}

struct shape {
	const char *name;
	size_t data; /* payload bytes */
	bool write; /* data travels with the request (in-capsule) */
};

static const struct shape shapes[] = {
	{ "read4k", 4096, false },
	{ "write4k", 4096, true },
	{ "read128k", 131072, false },
	{ "write128k", 131072, true },
};

#define NR_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

static size_t req_len(const struct shape *s)
{
	return CAPSULE_CMD + (s->write ? s->data : 0);
}

static size_t resp_len(const struct shape *s)
{
	return s->write ? PDU_HDR : PDU_HDR + s->data + PDU_HDR;
}

/*
 * Log-linear latency histogram in ns: values below 64 are exact; above,
 * each power of two is cut into 64 equal buckets, and a bucket reports its
 * midpoint, so a percentile is off by at most 1/128 (0.8%).
 */
#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS ((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t max_ns;
	uint64_t bucket[HIST_BUCKETS];
};

static unsigned int hist_index(uint64_t v)
{
	unsigned int e;

	if (v < HIST_SUB)
		return v;
	e = 63 - __builtin_clzll(v);
	return (e - HIST_SUB_BITS + 1) * HIST_SUB +
	       ((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

static double hist_value(unsigned int i)
{
	unsigned int e;
	double low, width;

	if (i < HIST_SUB)
		return i;
	e = i / HIST_SUB + HIST_SUB_BITS - 1;
	width = ldexp(1.0, e - HIST_SUB_BITS);
	low = (HIST_SUB + i % HIST_SUB) * width;
	return low + width / 2;
}

static void hist_add(struct hist *h, uint64_t ns)
{
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->bucket[hist_index(ns)]++;
}

/* The p-quantile (0 < p <= 1) in ns, or 0 with no samples. */
static double hist_quantile(const struct hist *h, double p)
{
	uint64_t want = (uint64_t)ceil(p * h->count), seen = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	if (!want)
		want = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= want)
			return hist_value(i);
	}
	return h->max_ns;
}

struct config {
	double seconds;
	double warmup;
	int server_cpu; /* -1: not pinned */
	int client_cpu;
	bool modes[NR_MODES];
	const struct shape *shape[NR_SHAPES];
	unsigned int nr_shapes;
	unsigned int qd[16];
	unsigned int nr_qd;
	enum { OUT_TABLE, OUT_LINES, OUT_JSON } out;
};

struct result {
	const struct shape *shape;
	unsigned int qd;
	enum mode mode;
	double elapsed; /* seconds of the measured window */
	struct hist lat;
};

static const char *role = "tcp-floor";

static void die(const char *what)
{
	fprintf(stderr, "tcp-floor: %s: %s: %s\n", role, what, strerror(errno));
	exit(1);
}

static void fail(const char *msg)
{
	fprintf(stderr, "tcp-floor: %s: %s\n", role, msg);
	exit(1);
}

static void on_alarm(int sig)
{
	static const char msg[] = "tcp-floor: timed out\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "tcp-floor: %s: cannot run on CPU %d: %s\n",
			role, cpu, strerror(errno));
		exit(1);
	}
}

/*
 * Send all of buf. Blocking: the kernel sleeps us until there is room.
 * Poll: spin on EAGAIN. Returns 0 or -errno.
 */
static int send_all(int fd, const char *buf, size_t len, enum mode mode)
{
	int flags = MSG_NOSIGNAL | (mode == MODE_POLL ? MSG_DONTWAIT : 0);
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, flags);
		if (n > 0) {
			buf += n;
			len -= n;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			return -errno;
		}
	}
	return 0;
}

/*
 * Receive exactly len bytes. Blocking uses MSG_WAITALL (one wake-up per
 * message where the kernel can manage it); poll spins on MSG_DONTWAIT.
 * Returns len, 0 on EOF before the first byte, -EPIPE on EOF mid-message,
 * or -errno.
 */
static ssize_t recv_all(int fd, char *buf, size_t len, enum mode mode)
{
	int flags = mode == MODE_POLL ? MSG_DONTWAIT : MSG_WAITALL;
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = recv(fd, buf + got, len - got, flags);
		if (n > 0)
			got += n;
		else if (n == 0)
			return got ? -EPIPE : 0;
		else if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
	return len;
}

/*
 * One end's io_uring. Every SQE posts a CQE; user_data says which kind.
 * At most one recv is in flight (ur->recv), and the sends in flight
 * (ur->sends) are one linked chain.
 */
enum { UR_SEND = 1, UR_RECV };

struct ur {
	struct io_uring ring;
	int fd; /* the socket, or 0: its slot in the registered files */
	unsigned char sqe_flags; /* IOSQE_FIXED_FILE with a registered fd */
	bool poll; /* spin on the CQ instead of sleeping in the kernel */
	bool recv; /* a recv is in flight */
	int recv_res;
	unsigned int sends; /* send SQEs in flight */
	size_t send_len; /* what each of them sends */
	struct io_uring_sqe *last_send; /* of the chain being prepared */
};

/* Set up ur for socket fd in mode; returns 0 or -errno, *what says where. */
static int ur_init(struct ur *ur, int fd, enum mode mode, unsigned int depth,
		   const char **what)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_DEFER_TASKRUN |
			 IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
	};
	int ret;

	memset(ur, 0, sizeof(*ur));
	ur->fd = fd;
	ur->poll = mode != MODE_URING;
	*what = "io_uring_queue_init";
	ret = io_uring_queue_init_params(depth, &ur->ring, &p);
	if (ret)
		return ret;
	if (mode != MODE_URING_POLL_FIXED)
		return 0;
	*what = "io_uring_register_files";
	ret = io_uring_register_files(&ur->ring, &fd, 1);
	if (ret)
		return ret;
	ur->fd = 0;
	ur->sqe_flags = IOSQE_FIXED_FILE;
	*what = "io_uring_register_ring_fd";
	ret = io_uring_register_ring_fd(&ur->ring);
	return ret < 0 ? ret : 0;
}

static struct io_uring_sqe *ur_sqe(struct ur *ur)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ur->ring);

	if (!sqe)
		fail("io_uring submission queue full");
	return sqe;
}

/*
 * Queue a send of len bytes, linked after the sends queued before it
 * since the last submit (MSG_WAITALL: the kernel finishes a short send
 * itself). buf must stay put until the peer has read it.
 */
static void ur_send(struct ur *ur, const char *buf, size_t len)
{
	struct io_uring_sqe *sqe = ur_sqe(ur);

	io_uring_prep_send(sqe, ur->fd, buf, len, MSG_WAITALL);
	sqe->flags = ur->sqe_flags;
	io_uring_sqe_set_data64(sqe, UR_SEND);
	if (ur->last_send)
		ur->last_send->flags |= IOSQE_IO_LINK;
	ur->last_send = sqe;
	ur->send_len = len;
	ur->sends++;
}

/*
 * Submit what is queued and reap until no recv and no send is in flight.
 * uring: sleep in io_uring_submit_and_wait until all of them completed;
 * uring-poll: io_uring_submit, then spin on io_uring_peek_cqe (which
 * enters the kernel when IORING_SQ_TASKRUN says completions wait there).
 * Returns 0 or -errno; *what says which operation failed.
 */
static int ur_reap(struct ur *ur, const char **what)
{
	struct io_uring_cqe *cqe;
	unsigned int want;
	int ret, res;

	ur->last_send = NULL;
	for (;;) {
		want = ur->sends + ur->recv;
		if (!want)
			return 0;
		*what = "io_uring_enter";
		if (!ur->poll)
			ret = io_uring_submit_and_wait(&ur->ring, want);
		else if (io_uring_sq_ready(&ur->ring))
			ret = io_uring_submit(&ur->ring);
		else
			ret = 0;
		if (ret < 0 && ret != -EINTR)
			return ret;
		while (!(ret = io_uring_peek_cqe(&ur->ring, &cqe))) {
			res = cqe->res;
			if (cqe->user_data == UR_SEND) {
				*what = "send";
				ur->sends--;
				if (res < 0)
					return res;
				if ((size_t)res != ur->send_len)
					return -EPIPE;
			} else {
				ur->recv = false;
				ur->recv_res = res;
			}
			io_uring_cqe_seen(&ur->ring, cqe);
		}
		if (ret != -EAGAIN && ret != -EINTR) {
			*what = "io_uring_peek_cqe";
			return ret;
		}
	}
}

/*
 * Receive exactly len bytes with one recv SQE (MSG_WAITALL), submitted
 * with the sends queued before it; one more for the rest should it come
 * back short. Returns len, 0 on EOF before the first byte, -EPIPE on EOF
 * mid-message, or -errno with *what set.
 */
static ssize_t ur_recv_all(struct ur *ur, char *buf, size_t len,
			   const char **what)
{
	struct io_uring_sqe *sqe;
	size_t got = 0;
	int ret;

	while (got < len) {
		sqe = ur_sqe(ur);
		io_uring_prep_recv(sqe, ur->fd, buf + got, len - got,
				   MSG_WAITALL);
		sqe->flags = ur->sqe_flags;
		io_uring_sqe_set_data64(sqe, UR_RECV);
		ur->recv = true;
		ret = ur_reap(ur, what);
		if (ret)
			return ret;
		*what = "recv";
		if (ur->recv_res < 0)
			return ur->recv_res;
		if (ur->recv_res == 0)
			return got ? -EPIPE : 0;
		got += ur->recv_res;
	}
	return len;
}

/*
 * Both modes leave the socket itself blocking: poll mode passes
 * MSG_DONTWAIT on every call, which is what O_NONBLOCK would do.
 */
static void set_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		die("TCP_NODELAY");
}

/*
 * The server's io_uring loop: the send of a response goes out with the
 * recv of the next request, and both are done before the response buffer
 * is written again.
 */
static void serve_uring(int fd, char *req, size_t rq, char *resp, size_t rs,
			enum mode mode)
{
	const char *what;
	struct ur ur;
	ssize_t n;
	int err;

	err = ur_init(&ur, fd, mode, 4, &what);
	if (err) {
		errno = -err;
		die(what);
	}
	for (;;) {
		n = ur_recv_all(&ur, req, rq, &what);
		if (n == 0)
			break;
		if (n < 0) {
			errno = -n;
			die(n == -EPIPE && !strcmp(what, "recv") ?
				    "client closed mid-request" :
				    what);
		}
		memcpy(resp + rs - PDU_HDR, req, sizeof(uint64_t));
		ur_send(&ur, resp, rs);
	}
	io_uring_queue_exit(&ur.ring);
	close(fd);
	exit(0);
}

/* The server: answer requests in order until the client closes. */
static void serve(int lfd, const struct shape *s, enum mode mode, int cpu)
{
	size_t rq = req_len(s), rs = resp_len(s);
	char *req = calloc(1, rq), *resp = calloc(1, rs);
	ssize_t n;
	int fd, err;

	role = "server";
	pin(cpu);
	if (!req || !resp)
		fail("out of memory");
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	close(lfd);
	set_nodelay(fd);
	if (mode_uring(mode))
		serve_uring(fd, req, rq, resp, rs, mode);
	for (;;) {
		n = recv_all(fd, req, rq, mode);
		if (n == 0)
			break;
		if (n < 0) {
			errno = -n;
			die(n == -EPIPE ? "client closed mid-request" : "recv");
		}
		/* echo the tag into the response capsule (its last 24 bytes) */
		memcpy(resp + rs - PDU_HDR, req, sizeof(uint64_t));
		err = send_all(fd, resp, rs, mode);
		if (err) {
			errno = -err;
			die("send");
		}
	}
	close(fd);
	exit(0);
}

/*
 * Reap the server; exit 1 if it failed, quietly when it said why itself.
 * Returns if it exited 0.
 */
static void reap(pid_t server)
{
	int status;

	if (waitpid(server, &status, 0) != server)
		die("waitpid");
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "tcp-floor: server killed by signal %d\n",
			WTERMSIG(status));
		exit(1);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		exit(1);
}

/* A client I/O error: blame the server if it failed first. */
static void client_error(int fd, pid_t server, const char *what, int err)
{
	close(fd);
	reap(server);
	errno = err;
	die(what);
}

/* One row: fork a server, run the client here, fill r. */
static void run_row(const struct config *cfg, struct result *r)
{
	const struct shape *s = r->shape;
	size_t rq = req_len(s), rs = resp_len(s);
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	uint64_t sent_at[MAX_QD], t, start, warm_end, end;
	uint64_t next_tag = 0, done_tag = 0, tag;
	unsigned int inflight = 0, qd = r->qd;
	char *req, *resp, *buf;
	const char *what;
	struct ur ur;
	int lfd, fd, err;
	ssize_t n;
	pid_t server, parent = getpid();

	alarm((unsigned int)(cfg->warmup + cfg->seconds) + 20);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(lfd, (struct sockaddr *)&addr, &alen) || listen(lfd, 1))
		die("listen on 127.0.0.1");
	fflush(NULL);
	server = fork();
	if (server < 0)
		die("fork");
	if (server == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			exit(1);
		serve(lfd, s, r->mode, cfg->server_cpu);
	}
	close(lfd);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		die("connect to 127.0.0.1");
	set_nodelay(fd);
	/* io_uring: one request buffer per slot, as its send is async */
	req = calloc(mode_uring(r->mode) ? qd : 1, rq);
	resp = calloc(1, rs);
	if (!req || !resp)
		fail("out of memory");
	if (mode_uring(r->mode)) {
		err = ur_init(&ur, fd, r->mode, qd + 1, &what);
		if (err)
			client_error(fd, server, what, -err);
	}

	memset(&r->lat, 0, sizeof(r->lat));
	start = now_ns();
	warm_end = start + (uint64_t)(cfg->warmup * 1e9);
	end = warm_end + (uint64_t)(cfg->seconds * 1e9);
	t = start;
	for (;;) {
		/* keep qd requests outstanding until the window closes */
		while (inflight < qd && t < end) {
			if (mode_uring(r->mode)) {
				buf = req + next_tag % qd * rq;
				memcpy(buf, &next_tag, sizeof(next_tag));
				sent_at[next_tag % qd] = t;
				ur_send(&ur, buf, rq);
			} else {
				memcpy(req, &next_tag, sizeof(next_tag));
				sent_at[next_tag % qd] = t;
				err = send_all(fd, req, rq, r->mode);
				if (err)
					client_error(fd, server, "send", -err);
			}
			next_tag++;
			inflight++;
			if (inflight < qd)
				t = now_ns();
		}
		if (!inflight)
			break;
		what = "recv";
		if (mode_uring(r->mode))
			n = ur_recv_all(&ur, resp, rs, &what);
		else
			n = recv_all(fd, resp, rs, r->mode);
		if (n <= 0)
			client_error(fd, server, what, n ? -n : EPIPE);
		t = now_ns();
		memcpy(&tag, resp + rs - PDU_HDR, sizeof(tag));
		if (tag != done_tag)
			fail("response out of order");
		/*
		 * The window is [warm_end, end]: a stall there counts against
		 * the rate; completions while draining after it do not.
		 */
		if (t >= warm_end && t <= end)
			hist_add(&r->lat, t - sent_at[done_tag % qd]);
		done_tag++;
		inflight--;
	}
	r->elapsed = (end - warm_end) / 1e9;
	if (!r->lat.count)
		fail("no round trip completed in the window");
	if (mode_uring(r->mode))
		io_uring_queue_exit(&ur.ring);
	close(fd);
	reap(server);
	alarm(0);
	free(req);
	free(resp);
}

static double iops(const struct result *r)
{
	return r->elapsed > 0 ? r->lat.count / r->elapsed : 0;
}

static double mbps(const struct result *r)
{
	return iops(r) * r->shape->data / 1e6;
}

static void print_table_head(void)
{
	printf("%-10s %4s %-16s %10s %9s %9s %9s %9s %9s\n", "shape", "qd",
	       "mode", "IOPS", "avg us", "p50 us", "p99 us", "max us", "MB/s");
}

static void print_row(const struct config *cfg, const struct result *r)
{
	const struct hist *h = &r->lat;
	double avg = h->sum_ns / 1e3 / h->count;
	double p50 = hist_quantile(h, 0.50) / 1e3;
	double p99 = hist_quantile(h, 0.99) / 1e3;

	switch (cfg->out) {
	case OUT_TABLE:
		printf("%-10s %4u %-16s %10.0f %9.1f %9.1f %9.1f %9.1f %9.1f\n",
		       r->shape->name, r->qd, mode_name[r->mode], iops(r), avg,
		       p50, p99, h->max_ns / 1e3, mbps(r));
		break;
	case OUT_LINES:
		printf("tcp-floor: shape=%s qd=%u mode=%s iops=%.0f avg_us=%.2f "
		       "p50_us=%.2f p99_us=%.2f max_us=%.2f MBps=%.1f ops=%llu "
		       "seconds=%.3f server_cpu=%d client_cpu=%d\n",
		       r->shape->name, r->qd, mode_name[r->mode], iops(r), avg,
		       p50, p99, h->max_ns / 1e3, mbps(r),
		       (unsigned long long)h->count, r->elapsed,
		       cfg->server_cpu, cfg->client_cpu);
		break;
	case OUT_JSON:
		printf("  {\"shape\": \"%s\", \"qd\": %u, \"mode\": \"%s\", "
		       "\"iops\": %.0f, \"avg_us\": %.2f, \"p50_us\": %.2f, "
		       "\"p99_us\": %.2f, \"max_us\": %.2f, \"MBps\": %.1f, "
		       "\"ops\": %llu, \"seconds\": %.3f, \"server_cpu\": %d, "
		       "\"client_cpu\": %d}",
		       r->shape->name, r->qd, mode_name[r->mode], iops(r), avg,
		       p50, p99, h->max_ns / 1e3, mbps(r),
		       (unsigned long long)h->count, r->elapsed,
		       cfg->server_cpu, cfg->client_cpu);
		break;
	}
	fflush(stdout);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tcp-floor [options]\n"
		"  --seconds=S      measured seconds per row (default 5)\n"
		"  --warmup=S       warm-up seconds per row (default 0.5)\n"
		"  --server-cpu=N   pin the server to CPU N (default 0; -1: "
		"no pin)\n"
		"  --client-cpu=N   pin the client to CPU N (default 1; -1: "
		"no pin)\n"
		"  --mode=LIST      block, poll, uring, uring-poll, "
		"uring-poll-fixed;\n"
		"                   both (block,poll, the default) or all\n"
		"  --shape=LIST     read4k,write4k,read128k,write128k or all\n"
		"  --qd=LIST        queue depths, e.g. 1,32 (default 1)\n"
		"  --lines          one 'tcp-floor: key=value ...' line per row\n"
		"  --json           a JSON array, one object per row\n"
		"Without --shape and --qd: 4k read/write QD1, 4k read QD32, "
		"128k read/write QD16.\n");
}

static int parse_int(const char *arg, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	return errno || end == arg || *end || *out < min || *out > max ?
		       -EINVAL :
		       0;
}

/* A number of seconds in [0, 3600]. */
static int parse_secs(const char *arg, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	return errno || end == arg || *end || !(*out >= 0 && *out <= 3600) ?
		       -EINVAL :
		       0;
}

static int parse_shapes(struct config *cfg, char *list)
{
	char *tok, *save = NULL;
	unsigned int i;

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			for (i = 0; i < NR_SHAPES; i++)
				cfg->shape[i] = &shapes[i];
			cfg->nr_shapes = NR_SHAPES;
			continue;
		}
		for (i = 0; i < NR_SHAPES; i++)
			if (!strcmp(tok, shapes[i].name))
				break;
		if (i == NR_SHAPES || cfg->nr_shapes == NR_SHAPES)
			return -EINVAL;
		cfg->shape[cfg->nr_shapes++] = &shapes[i];
	}
	return cfg->nr_shapes ? 0 : -EINVAL;
}

static int parse_qds(struct config *cfg, char *list)
{
	char *tok, *save = NULL;
	long v;

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (parse_int(tok, 1, MAX_QD, &v) ||
		    cfg->nr_qd == sizeof(cfg->qd) / sizeof(cfg->qd[0]))
			return -EINVAL;
		cfg->qd[cfg->nr_qd++] = v;
	}
	return cfg->nr_qd ? 0 : -EINVAL;
}

static int parse_modes(struct config *cfg, char *list)
{
	char *tok, *save = NULL;
	unsigned int i;

	memset(cfg->modes, 0, sizeof(cfg->modes));
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "both") || !strcmp(tok, "all")) {
			for (i = 0; i < NR_MODES; i++)
				if (tok[0] == 'a' || !mode_uring(i))
					cfg->modes[i] = true;
			continue;
		}
		for (i = 0; i < NR_MODES; i++)
			if (!strcmp(tok, mode_name[i]))
				break;
		if (i == NR_MODES)
			return -EINVAL;
		cfg->modes[i] = true;
	}
	for (i = 0; i < NR_MODES; i++)
		if (cfg->modes[i])
			return 0;
	return -EINVAL;
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	enum {
		O_SECONDS = 256,
		O_WARMUP,
		O_SCPU,
		O_CCPU,
		O_MODE,
		O_SHAPE,
		O_QD,
		O_LINES,
		O_JSON,
		O_HELP
	};
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, O_SECONDS },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "server-cpu", required_argument, NULL, O_SCPU },
		{ "client-cpu", required_argument, NULL, O_CCPU },
		{ "mode", required_argument, NULL, O_MODE },
		{ "shape", required_argument, NULL, O_SHAPE },
		{ "qd", required_argument, NULL, O_QD },
		{ "lines", no_argument, NULL, O_LINES },
		{ "json", no_argument, NULL, O_JSON },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_SECONDS:
			if (parse_secs(optarg, &cfg->seconds) ||
			    !(cfg->seconds > 0))
				goto bad;
			break;
		case O_WARMUP:
			if (parse_secs(optarg, &cfg->warmup))
				goto bad;
			break;
		case O_SCPU:
		case O_CCPU:
			if (parse_int(optarg, -1, CPU_SETSIZE - 1, &v))
				goto bad;
			*(c == O_SCPU ? &cfg->server_cpu : &cfg->client_cpu) =
				v;
			break;
		case O_MODE:
			if (parse_modes(cfg, optarg))
				goto bad;
			break;
		case O_SHAPE:
			if (parse_shapes(cfg, optarg))
				goto bad;
			break;
		case O_QD:
			if (parse_qds(cfg, optarg))
				goto bad;
			break;
		case O_LINES:
			cfg->out = OUT_LINES;
			break;
		case O_JSON:
			cfg->out = OUT_JSON;
			break;
		case O_HELP:
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind == argc)
		return;
	optarg = argv[optind];
bad:
	fprintf(stderr, "tcp-floor: bad argument '%s' (--help lists them)\n",
		optarg);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *shape;
		unsigned int qd;
	} defaults[] = {
		{ "read4k", 1 },    { "write4k", 1 },	 { "read4k", 32 },
		{ "read128k", 16 }, { "write128k", 16 },
	};
	struct config cfg = {
		.seconds = 5,
		.warmup = 0.5,
		.server_cpu = 0,
		.client_cpu = 1,
		.modes = { [MODE_BLOCK] = true, [MODE_POLL] = true },
	};
	static struct result rows[MAX_ROWS];
	unsigned int nr = 0, i, j, k, m;

	parse_args(argc, argv, &cfg);
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);

	/* rows: the default set, or every --shape x --qd */
	if (!cfg.nr_shapes && !cfg.nr_qd) {
		for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
			for (m = 0; m < NR_MODES; m++) {
				if (!cfg.modes[m])
					continue;
				for (k = 0;
				     strcmp(shapes[k].name, defaults[i].shape);
				     k++)
					;
				rows[nr].shape = &shapes[k];
				rows[nr].qd = defaults[i].qd;
				rows[nr++].mode = m;
			}
	} else {
		if (!cfg.nr_shapes)
			cfg.shape[cfg.nr_shapes++] = &shapes[0];
		if (!cfg.nr_qd)
			cfg.qd[cfg.nr_qd++] = 1;
		for (i = 0; i < cfg.nr_shapes; i++)
			for (j = 0; j < cfg.nr_qd; j++)
				for (m = 0; m < NR_MODES; m++) {
					if (!cfg.modes[m])
						continue;
					if (nr == MAX_ROWS)
						fail("too many rows");
					rows[nr].shape = cfg.shape[i];
					rows[nr].qd = cfg.qd[j];
					rows[nr++].mode = m;
				}
	}

	role = "client";
	pin(cfg.client_cpu);
	if (cfg.out == OUT_TABLE) {
		printf("loopback TCP floor: %gs per row after %gs warm-up, "
		       "server CPU %d, client CPU %d\n",
		       cfg.seconds, cfg.warmup, cfg.server_cpu, cfg.client_cpu);
		print_table_head();
	} else if (cfg.out == OUT_JSON) {
		printf("[\n");
	}
	for (i = 0; i < nr; i++) {
		run_row(&cfg, &rows[i]);
		if (cfg.out == OUT_JSON && i)
			printf(",\n");
		print_row(&cfg, &rows[i]);
	}
	if (cfg.out == OUT_JSON)
		printf("\n]\n");
	return 0;
}
