// SPDX-License-Identifier: MIT
/*
 * Bad input for `mqblk target`'s NVMe/RDMA transport: a raw RDMA host
 * (librdmacm and libibverbs, the project's own CM private data and SGL
 * code) that sends what a broken or hostile host would and checks the
 * answers. TAP output; `rdma-bad ADDR PORT SUBNQN`, against a target
 * already listening on rdma:ADDR:PORT that allows any host (run in the
 * QEMU guest with soft-RoCE: tests/interop/kernel-rdma-host.sh).
 *
 * Checked: connect requests with bad private data are rejected with the
 * binding's status (RECFMT, QID, HSQSIZE too small and too big, HRQSIZE;
 * LEN cannot be sent over RoCE, whose CM pads private data to 56 bytes);
 * a Connect for another QID than the RDMA connection's, or for more
 * entries than its HSQSIZE, gets Connect Invalid Parameters with the
 * field named; an I/O queue for a controller that does not exist gets
 * Connect Invalid Parameters; a keyed SGL past MDTS gets Invalid Field;
 * a keyed SGL with a key we never registered makes the target's RDMA
 * WRITE fail and the target close that queue, while another queue goes
 * on answering; 64 KiB written and read back intact, and a host gone
 * while the target RDMA READs a 1 MiB write leaves the target and the
 * controller's admin queue going; a flood of connects (bad and good, torn
 * down at once) leaves the target answering; an admin queue with a 2 s
 * KATO that falls silent has its controller torn down: a Keep Alive then
 * is aborted and the target disconnects the queue. Every wait has a
 * timeout.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "nvme/nvme.h"
#include "nvme/rdma.h"

#define TIMEOUT_MS 5000
#define NR_RECV 32
#define BUF_SIZE (4u << 20)
#define HOSTNQN "nqn.2026-12.io.mqblk:rdma-bad"

static const char *addr, *port, *subnqn;
static unsigned nr_tests, nr_failed;
static char why[512];

static void ok(bool pass, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void setwhy(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	nr_tests++;
	printf("%s %u - ", pass ? "ok" : "not ok", nr_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!pass) {
		nr_failed++;
		printf(" (%s)", why);
	}
	putchar('\n');
	fflush(stdout);
}

static void setwhy(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One connection: its QP, a CQ polled by us, a registered buffer: the
 * capsule to send at 0, receives (CQEs) after it, data from 64 KiB. */
struct conn {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint16_t cid;
	bool disconnected;
};

#define CAPSULE_OFF 0
#define RECV_OFF 16384
#define DATA_OFF 65536

static int wait_event(struct conn *c, enum rdma_cm_event_type want,
		      int *reject_status, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type got;

	for (;;) {
		int n = poll(&pfd, 1, timeout_ms);

		if (n <= 0) {
			setwhy("no %s within %d ms", rdma_event_str(want),
			       timeout_ms);
			return -ETIMEDOUT;
		}
		if (rdma_get_cm_event(c->ch, &ev))
			return -errno;
		got = ev->event;
		if (got == RDMA_CM_EVENT_REJECTED && reject_status)
			*reject_status = nvme_rdma_cm_rej_parse(
				ev->param.conn.private_data,
				ev->param.conn.private_data_len);
		rdma_ack_cm_event(ev);
		if (got == RDMA_CM_EVENT_DISCONNECTED)
			c->disconnected = true;
		if (got == want)
			return 0;
		if (got == RDMA_CM_EVENT_REJECTED ||
		    got == RDMA_CM_EVENT_UNREACHABLE ||
		    got == RDMA_CM_EVENT_CONNECT_ERROR ||
		    got == RDMA_CM_EVENT_ADDR_ERROR ||
		    got == RDMA_CM_EVENT_ROUTE_ERROR ||
		    got == RDMA_CM_EVENT_DISCONNECTED) {
			setwhy("%s instead of %s", rdma_event_str(got),
			       rdma_event_str(want));
			return -ECONNREFUSED;
		}
	}
}

static void conn_close(struct conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

static int post_recv(struct conn *c, unsigned i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)c->buf + RECV_OFF + 64 * i,
			       .length = 64,
			       .lkey = c->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

/*
 * Connect with the given private data (pd, len; NULL: a valid request
 * for qid and entries). 0 when established; the reject status (> 0)
 * when rejected; < 0 on anything else.
 */
static int conn_open(struct conn *c, uint16_t qid, uint16_t entries,
		     const void *pd, uint8_t len)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr qa;
	struct rdma_conn_param cp;
	struct nvme_rdma_cm_req req;
	int ret, rej = -1;
	unsigned i;

	memset(c, 0, sizeof(*c));
	c->buf = aligned_alloc(4096, BUF_SIZE);
	c->ch = rdma_create_event_channel();
	if (!c->buf || !c->ch)
		return -ENOMEM;
	memset(c->buf, 0, BUF_SIZE);
	if (rdma_getaddrinfo(addr, port, &hints, &res)) {
		setwhy("rdma_getaddrinfo %s:%s: %s", addr, port,
		       strerror(errno));
		return -EINVAL;
	}
	ret = rdma_create_id(c->ch, &c->id, c, RDMA_PS_TCP);
	if (!ret)
		ret = rdma_resolve_addr(c->id, NULL, res->ai_dst_addr,
					TIMEOUT_MS);
	rdma_freeaddrinfo(res);
	if (ret ||
	    wait_event(c, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, TIMEOUT_MS) ||
	    rdma_resolve_route(c->id, TIMEOUT_MS) ||
	    wait_event(c, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, TIMEOUT_MS))
		return -EHOSTUNREACH;
	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = c->pd ? ibv_create_cq(c->id->verbs, 256, NULL, NULL, 0) : NULL;
	c->mr = c->pd ? ibv_reg_mr(c->pd, c->buf, BUF_SIZE,
				   IBV_ACCESS_LOCAL_WRITE |
					   IBV_ACCESS_REMOTE_READ |
					   IBV_ACCESS_REMOTE_WRITE) :
			NULL;
	if (!c->cq || !c->mr)
		return -ENOMEM;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 64;
	qa.cap.max_recv_wr = NR_RECV;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &qa))
		return -errno;
	for (i = 0; i < NR_RECV; i++)
		if (post_recv(c, i))
			return -EIO;
	if (!pd) {
		nvme_rdma_cm_req_fill(&req, qid, entries, entries - 1, 0xffff);
		pd = &req;
		len = sizeof(req);
	}
	memset(&cp, 0, sizeof(cp));
	cp.private_data = pd;
	cp.private_data_len = len;
	cp.responder_resources = 16;
	cp.initiator_depth = 16;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_connect(c->id, &cp))
		return -errno;
	ret = wait_event(c, RDMA_CM_EVENT_ESTABLISHED, &rej, TIMEOUT_MS);
	if (!ret)
		return 0;
	return rej > 0 ? rej : ret;
}

/* Send a capsule (sqe, then incap bytes from DATA_OFF) and wait for its
 * CQE: 0 with *cqe, or < 0 (timeout, error completion). */
/* Send a capsule (sqe, then incap bytes from DATA_OFF) without waiting. */
static int post_capsule(struct conn *c, union nvme_command *sqe, uint32_t incap)
{
	struct ibv_sge sge = { .addr = (uintptr_t)c->buf + CAPSULE_OFF,
			       .length = 64 + incap,
			       .lkey = c->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;

	sqe->common.command_id = ++c->cid;
	memcpy(c->buf + CAPSULE_OFF, sqe, 64);
	if (incap)
		memmove(c->buf + CAPSULE_OFF + 64, c->buf + DATA_OFF, incap);
	if (ibv_post_send(c->id->qp, &wr, &bad)) {
		setwhy("post_send failed");
		return -EIO;
	}
	return 0;
}

static int exec(struct conn *c, union nvme_command *sqe, uint32_t incap,
		struct nvme_completion *cqe)
{
	uint64_t end = now_ms() + TIMEOUT_MS;
	struct ibv_wc wc;

	if (post_capsule(c, sqe, incap))
		return -EIO;
	while (now_ms() < end) {
		int n = ibv_poll_cq(c->cq, 1, &wc);

		if (n < 0)
			return -EIO;
		if (!n) {
			usleep(200);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			setwhy("%s completion: %s",
			       wc.opcode & IBV_WC_RECV ? "receive" : "send",
			       ibv_wc_status_str(wc.status));
			return -EPIPE;
		}
		if (!(wc.opcode & IBV_WC_RECV))
			continue;
		memcpy(cqe, c->buf + RECV_OFF + 64 * wc.wr_id, sizeof(*cqe));
		post_recv(c, (unsigned)wc.wr_id);
		if (cqe->command_id != c->cid)
			continue;
		return 0;
	}
	setwhy("no completion within %d ms", TIMEOUT_MS);
	return -ETIMEDOUT;
}

static uint16_t cqe_status(const struct nvme_completion *cqe)
{
	return (uint16_t)(le16_to_cpu(cqe->status) >> 1);
}

/* A Connect (qid, sqsize 0's based, cntlid) with its data in the
 * capsule: the CQE's status, *dw0 its result; -1 on a transport error. */
static int do_connect(struct conn *c, uint16_t qid, uint16_t sqsize,
		      uint16_t cntlid, uint32_t kato, uint32_t *dw0)
{
	union nvme_command sqe;
	struct nvmf_connect_data *d = (void *)(c->buf + DATA_OFF);
	struct nvme_completion cqe;

	memset(&sqe, 0, sizeof(sqe));
	memset(d, 0, sizeof(*d));
	sqe.connect.opcode = nvme_fabrics_command;
	sqe.connect.fctype = nvme_fabrics_type_connect;
	sqe.connect.qid = cpu_to_le16(qid);
	sqe.connect.sqsize = cpu_to_le16(sqsize);
	sqe.connect.kato = cpu_to_le32(kato);
	nvme_rdma_sgl_incapsule(&sqe, sizeof(*d));
	d->cntlid = cpu_to_le16(cntlid);
	snprintf(d->subsysnqn, sizeof(d->subsysnqn), "%s", subnqn);
	snprintf(d->hostnqn, sizeof(d->hostnqn), "%s", HOSTNQN);
	memset(d->hostid, 0x5a, sizeof(d->hostid));
	if (exec(c, &sqe, sizeof(*d), &cqe))
		return -1;
	*dw0 = le32_to_cpu(cqe.result.u32);
	return cqe_status(&cqe);
}

/* Identify Controller into DATA_OFF with a keyed SGL of len bytes and
 * key (0: ours): the status, or -1 on a transport error. */
static int identify(struct conn *c, uint32_t len, uint32_t key)
{
	union nvme_command sqe;
	struct nvme_completion cqe;

	memset(&sqe, 0, sizeof(sqe));
	sqe.common.opcode = nvme_admin_identify;
	sqe.common.cdw10 = cpu_to_le32(1);
	nvme_rdma_sgl_keyed(&sqe, (uintptr_t)c->buf + DATA_OFF, len,
			    key ? key : c->mr->rkey, false);
	if (exec(c, &sqe, 0, &cqe))
		return -1;
	return cqe_status(&cqe);
}

static int prop_set_cc_en(struct conn *c)
{
	union nvme_command sqe;
	struct nvme_completion cqe;

	memset(&sqe, 0, sizeof(sqe));
	sqe.prop_set.opcode = nvme_fabrics_command;
	sqe.prop_set.fctype = nvme_fabrics_type_property_set;
	sqe.prop_set.offset = cpu_to_le32(NVME_REG_CC);
	sqe.prop_set.value = cpu_to_le64(1 | (6u << 16) | (4u << 20));
	nvme_rdma_sgl_none(&sqe);
	if (exec(c, &sqe, 0, &cqe))
		return -1;
	return cqe_status(&cqe);
}

/* An admin queue, connected and enabled: its controller ID, or -1. */
static int admin_up(struct conn *c, uint32_t kato)
{
	uint32_t dw0 = 0;
	int st;

	if (conn_open(c, 0, 32, NULL, 0)) {
		setwhy("admin connection: %s", why);
		return -1;
	}
	st = do_connect(c, 0, 31, 0xffff, kato, &dw0);
	if (st) {
		setwhy("admin Connect: status 0x%x", st);
		return -1;
	}
	if (prop_set_cc_en(c)) {
		setwhy("Property Set CC.EN failed");
		return -1;
	}
	usleep(100000); /* CSTS.RDY follows CC.EN at once on our target */
	return (int)(dw0 & 0xffff);
}

static void test_rejects(void)
{
	static const struct {
		const char *what;
		uint16_t recfmt, qid, hrqsize, hsqsize, want;
	} cases[] = {
		{ "RECFMT 1", 1, 0, 32, 31, NVME_RDMA_CM_INVALID_RECFMT },
		{ "QID 4000", 0, 4000, 32, 31, NVME_RDMA_CM_INVALID_QID },
		{ "HSQSIZE 0", 0, 0, 32, 0, NVME_RDMA_CM_INVALID_HSQSIZE },
		{ "admin HSQSIZE 200", 0, 0, 201, 200,
		  NVME_RDMA_CM_INVALID_HSQSIZE },
		{ "I/O HSQSIZE 60000", 0, 1, 60001, 60000,
		  NVME_RDMA_CM_INVALID_HSQSIZE },
		{ "HRQSIZE below HSQSIZE", 0, 1, 4, 31,
		  NVME_RDMA_CM_INVALID_HRQSIZE },
	};
	struct nvme_rdma_cm_req req;
	struct conn c;
	unsigned i;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nvme_rdma_cm_req_fill(&req, cases[i].qid, cases[i].hrqsize,
				      cases[i].hsqsize, 0xffff);
		req.recfmt = cpu_to_le16(cases[i].recfmt);
		ret = conn_open(&c, 0, 0, &req, sizeof(req));
		setwhy("got %d", ret);
		ok(ret == cases[i].want, "connect with %s rejected: %s",
		   cases[i].what, nvme_rdma_cm_msg(cases[i].want));
		conn_close(&c);
	}
}

static void test_connects(void)
{
	struct conn a, c;
	uint32_t dw0 = 0;
	int cntlid, st;

	cntlid = admin_up(&a, 0);
	ok(cntlid > 0, "admin queue up (controller %d)", cntlid);
	if (cntlid <= 0) {
		conn_close(&a);
		return;
	}
	/* a Connect for qid 2 on the connection made for qid 1 */
	st = conn_open(&c, 1, 16, NULL, 0);
	if (!st)
		st = do_connect(&c, 2, 15, (uint16_t)cntlid, 0, &dw0);
	setwhy("status 0x%x dw0 0x%x", st, dw0);
	ok(st == (NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR) &&
		   (dw0 & 0xffff) == 42,
	   "a Connect for another QID than the connection's: invalid "
	   "parameter (QID)");
	conn_close(&c);
	/* more entries than the connection's HSQSIZE */
	st = conn_open(&c, 1, 16, NULL, 0);
	if (!st)
		st = do_connect(&c, 1, 63, (uint16_t)cntlid, 0, &dw0);
	setwhy("status 0x%x dw0 0x%x", st, dw0);
	ok(st == (NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR) &&
		   (dw0 & 0xffff) == 44,
	   "a Connect for more entries than HSQSIZE: invalid parameter "
	   "(SQSIZE)");
	conn_close(&c);
	/* an I/O queue of a controller that does not exist */
	st = conn_open(&c, 1, 16, NULL, 0);
	if (!st)
		st = do_connect(&c, 1, 15, 0x7000, 0, &dw0);
	setwhy("status 0x%x", st);
	ok(st == (NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR),
	   "an I/O queue for an unknown controller: invalid parameter");
	conn_close(&c);

	/* a keyed SGL past MDTS (1 MiB) */
	st = identify(&a, 2u << 20, 0);
	setwhy("status 0x%x", st);
	ok(st == (NVME_SC_INVALID_FIELD | NVME_SC_DNR),
	   "a keyed SGL of 2 MiB (past MDTS): invalid field");
	st = identify(&a, 4096, 0);
	setwhy("status 0x%x", st);
	ok(st == 0, "Identify with a good key still answered");

	/* a key we never registered: the target's RDMA WRITE fails and it
	 * closes that queue; another admin queue goes on */
	cntlid = admin_up(&c, 0);
	ok(cntlid > 0, "second admin queue up");
	if (cntlid > 0) {
		st = identify(&c, 4096, c.mr->rkey ^ 0x5a5a00);
		setwhy("status %d", st);
		ok(st < 0 || st != 0,
		   "Identify with a bad key gets no success");
		st = wait_event(&c, RDMA_CM_EVENT_DISCONNECTED, NULL,
				TIMEOUT_MS);
		ok(!st || c.disconnected,
		   "the target disconnects the queue with the bad key");
	}
	conn_close(&c);
	st = identify(&a, 4096, 0);
	setwhy("status %d", st);
	ok(st == 0, "the first admin queue is unaffected");
	conn_close(&a);
}

/* A read or write of nlb 512-byte blocks at LBA 0 of namespace 1 with a
 * keyed SGL over DATA_OFF (posted only, when nowait). */
static int rw(struct conn *c, uint8_t opcode, uint32_t nlb, bool nowait)
{
	union nvme_command sqe;
	struct nvme_completion cqe;

	memset(&sqe, 0, sizeof(sqe));
	sqe.rw.opcode = opcode;
	sqe.rw.nsid = cpu_to_le32(1);
	sqe.rw.length = cpu_to_le16((uint16_t)(nlb - 1));
	nvme_rdma_sgl_keyed(&sqe, (uintptr_t)c->buf + DATA_OFF, nlb * 512,
			    c->mr->rkey, false);
	if (nowait)
		return post_capsule(c, &sqe, 0);
	if (exec(c, &sqe, 0, &cqe))
		return -1;
	return cqe_status(&cqe);
}

/* Data by RDMA READ and WRITE, and a host gone while the target reads
 * its data. */
static void test_io(void)
{
	struct conn a, io;
	uint32_t dw0 = 0, i;
	int cntlid, st;

	cntlid = admin_up(&a, 0);
	st = cntlid > 0 ? conn_open(&io, 1, 32, NULL, 0) : -1;
	if (!st)
		st = do_connect(&io, 1, 31, (uint16_t)cntlid, 0, &dw0);
	setwhy("%s, status %d", why, st);
	ok(!st, "an I/O queue up");
	if (st) {
		conn_close(&io);
		conn_close(&a);
		return;
	}
	for (i = 0; i < 65536; i++)
		io.buf[DATA_OFF + i] = (uint8_t)(i * 7 + 3);
	st = rw(&io, nvme_cmd_write, 128, false);
	memset(io.buf + DATA_OFF, 0, 65536);
	if (!st)
		st = rw(&io, nvme_cmd_read, 128, false);
	for (i = 0; !st && i < 65536; i++)
		if (io.buf[DATA_OFF + i] != (uint8_t)(i * 7 + 3))
			st = 1000;
	setwhy("status %d", st);
	ok(!st, "64 KiB written (the target's RDMA READ) and read back "
		"(its RDMA WRITE) intact");
	/* 1 MiB to write, and the host gone at once: the target's RDMA
	 * READ fails (or finds no one); the queue goes, the target stays */
	st = rw(&io, nvme_cmd_write, 2048, true);
	conn_close(&io);
	usleep(500000);
	st = st ? st : identify(&a, 4096, 0);
	setwhy("status %d", st);
	ok(!st, "a host gone during the target's RDMA READ: the target and "
		"the controller's admin queue go on");
	conn_close(&a);
}

static void test_flood(void)
{
	struct nvme_rdma_cm_req req;
	struct conn c, a;
	unsigned i, refused = 0, up = 0;
	int ret;

	for (i = 0; i < 24; i++) {
		if (i % 2) {
			nvme_rdma_cm_req_fill(&req, 0, 32, 31, 0xffff);
			req.recfmt = cpu_to_le16(7);
			ret = conn_open(&c, 0, 0, &req, sizeof(req));
			refused += ret == NVME_RDMA_CM_INVALID_RECFMT;
		} else {
			ret = conn_open(&c, 0, 32, NULL, 0);
			up += ret == 0;
		}
		/* torn down at once, established or not */
		conn_close(&c);
	}
	setwhy("%u refused, %u established", refused, up);
	ok(refused == 12 && up == 12,
	   "24 connects (half bad) each handled and torn down");
	ret = admin_up(&a, 0);
	ok(ret > 0, "the target still takes a controller after the flood");
	conn_close(&a);
}

static void test_kato(void)
{
	union nvme_command sqe;
	struct nvme_completion cqe;
	struct conn a;
	int cntlid, st;

	cntlid = admin_up(&a, 2000);
	ok(cntlid > 0, "admin queue with a 2 s KATO up");
	if (cntlid > 0) {
		/* silence past KATO: the controller is torn down, its admin
		 * queue left to answer a shutdown only; a Keep Alive now is
		 * aborted and the queue closes */
		sleep(4);
		memset(&sqe, 0, sizeof(sqe));
		sqe.common.opcode = nvme_admin_keep_alive;
		nvme_rdma_sgl_none(&sqe);
		st = exec(&a, &sqe, 0, &cqe) ? -1 : cqe_status(&cqe);
		setwhy("status %d", st);
		ok(st == NVME_SC_ABORT_QUEUE,
		   "a Keep Alive after KATO: Abort (SQ deletion)");
		st = wait_event(&a, RDMA_CM_EVENT_DISCONNECTED, NULL, 5000);
		ok(!st || a.disconnected,
		   "then the target disconnects the silent host's admin "
		   "queue");
	}
	conn_close(&a);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: rdma-bad ADDR PORT SUBNQN\n");
		return 2;
	}
	addr = argv[1];
	port = argv[2];
	subnqn = argv[3];
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_rejects();
	test_connects();
	test_io();
	test_flood();
	test_kato();
	printf("1..%u\n", nr_tests);
	if (nr_failed)
		printf("# %u of %u failed\n", nr_failed, nr_tests);
	return nr_failed ? 1 : 0;
}
