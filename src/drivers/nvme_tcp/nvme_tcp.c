// SPDX-License-Identifier: MIT
/*
 * The NVMe/TCP host driver: a remote namespace as an mqblk device, the
 * userspace counterpart of Linux's drivers/nvme/host/tcp.c.
 *
 *   nvme-tcp://HOST:PORT/SUBNQN?nr_io_queues=N&hdr_digest=1&data_digest=1
 *       &hostnqn=NQN&hostid=UUID&kato=SEC&queue_size=N&nsid=N
 *
 * init() sets the controller up on the admin queue with blocking socket
 * calls (ICReq, Connect, CAP, CC.EN, CSTS.RDY, Identify, Number of
 * Queues, the namespace); each hardware queue of the core is one I/O
 * queue, one TCP connection (init_hctx). The connection's socket is the
 * hardware queue's interrupt: readable means PDUs to process, which
 * poll() does: CapsuleResp and C2HData complete requests (C2HData lands
 * in the request's own buffer), R2T starts H2CData from the request's
 * buffer. Sends are batched: queue_rq queues PDUs and the last request of
 * a plug sends them all with one sendmsg, and the H2CData for every R2T
 * one poll pass finds goes out in one sendmsg at its end. The control
 * thread sends Keep Alive on the admin queue every KATO/2.
 *
 * Recovery, as the Linux host does it: a broken connection, a PDU that
 * makes no sense or a command past its timeout twice (the first time
 * the control thread sends an Abort for it, as the PCIe host does) puts
 * the controller in reset: the control thread closes every connection,
 * holds what is outstanding, and reconnects (admin queue, set-up, every
 * I/O queue with its old qid) reconnect_delay seconds later and every
 * reconnect_delay from then on until ctrl_loss_tmo (a reset asked for,
 * nvt_ctrl_reset, tries at once, as nvme_reset_ctrl does); then each
 * held request is sent again, once per reset, and its answer can only
 * come on the new connection (never acknowledged twice). Past
 * ctrl_loss_tmo everything held fails with EIO and so does new I/O.
 *
 * Events: when the controller reports namespace attribute notices
 * (OAES), set-up enables them and leaves one Asynchronous Event Request
 * outstanding on the admin queue; the control thread polls the admin
 * socket for its answer (or takes it from whatever admin command was
 * waiting when it came), reads the Changed Namespace List and Identify
 * Namespace again, changes the device's capacity to match, and sends the
 * next AER.
 */
#include <assert.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <mqblk/driver.h>

#include "nvme/nvme.h"
#include "nvme/tcp.h"
#include "nvme_tcp.h"

#define NVT_ADMIN_DEPTH 32
#define NVT_MAX_RETRIES 5 /* resends across resets (the kernel's default) */
#define NVT_ADMIN_INLINE 8192 /* what a Linux host puts in admin capsules */
#define NVT_DEFAULT_QUEUE_SIZE 128
#define NVT_MAX_QUEUE_SIZE 1024
#define NVT_IO_TIMEOUT_MS 10000 /* blocking set-up steps */
#define NVT_RXBUF 65536
/* A PDU header with its digest and the padding up to its data: the data
 * offset can be (CPDA + 1) * 4 = 128 bytes (CPDA 31), more than a capsule
 * header (72) or an H2CData header (24) with its digest needs. */
#define NVT_PDU_HDR_MAX 128

/* The Asynchronous Event Request's command id on the admin queue (the
 * synchronous commands count in 1..7fffh). */
#define NVT_AER_CID 0xfffe
#define NVT_MAX_ABORTS 16 /* timed-out commands waiting for their Abort */
/*
 * The largest READ/WRITE sent to a controller that reports no MDTS (0:
 * "no limit"; the kernel's nvmet-tcp does, having no get_mdts op). The
 * Linux host then leaves max_hw_sectors unlimited and its block layer
 * caps requests at BLK_DEF_MAX_SECTORS_CAP, 2560 sectors (1280 KiB, for
 * years; recently raised to 4 MiB by "block: Increase
 * BLK_DEF_MAX_SECTORS_CAP"): 1280 KiB is what such a controller is known
 * to take from Linux, and what we send at most.
 */
#define NVT_NO_MDTS_MAX_BYTES (2560u * 512)

/* One NVMe/TCP connection during set-up and the admin queue (blocking). */
struct nvt_sock {
	int fd;
	struct nvme_tcp_conn conn;
	uint16_t cid;
	uint16_t aer_cid; /* an AER is outstanding under this id (0: none) */
	bool aen_ready; /* ... and was answered: aen_dw0, aen_status */
	uint16_t aen_status;
	uint32_t aen_dw0;
};

struct nvt_dev {
	struct mqblk_dev *dev;
	char host[256];
	char port[16];
	char subnqn[NVME_NQN_SIZE];
	char hostnqn[NVME_NQN_SIZE];
	uint8_t hostid[16];
	bool hdgst, ddgst;
	bool discovery; /* a discovery controller: admin queue only */
	bool enabled; /* CC.EN was set: shut it down (CC.SHN) at exit */
	unsigned want_queues;
	unsigned queue_size;
	uint32_t kato_ms;
	uint32_t nsid;

	struct nvt_sock admin;
	pthread_mutex_t admin_lock; /* the keep-alive thread and exit */
	uint16_t cntlid;
	uint64_t cap;
	/* the largest READ/WRITE it takes (MDTS; when it reports none,
	 * NVT_NO_MDTS_MAX_BYTES): the core's max_hw_bytes, fixed at open */
	uint32_t mdts_bytes;
	_Atomic bool mdts_logged; /* one past it was refused: said once */
	uint32_t incap_max; /* in-capsule data bytes on I/O queues */
	unsigned granted;
	uint64_t nsze;
	unsigned lba_shift;
	bool vwc;
	uint32_t oaes; /* events the controller can report */
	/* a path of a multipath device (multipath=1): fail fast instead of
	 * holding I/O in reset, and ask for ANA change notices */
	bool multipath;
	_Atomic uint32_t ana_gen; /* ANA change notices received */
	/* stall detection (stall_ms=, 0 off): a queue with commands out and
	 * no completion for that long is logged once per stall */
	uint32_t stall_ms;
	_Atomic uint64_t stalls;
	/* answers for a command whose data the host was still sending
	 * (a protocol error: each one reset the controller) */
	_Atomic uint64_t early_rsps;

	pthread_t ka_thread; /* the control thread: keep alive, recovery */
	bool ka_running;
	int ka_efd; /* wakes it: reset wanted */
	_Atomic bool stop;
	_Atomic int state; /* enum nvt_state */
	/* the reset asked for (nvt_ctrl_reset) reconnects at once; one for a
	 * failure first waits reconnect_delay, as the kernel's error
	 * recovery does (nvme_tcp_reconnect_or_remove) */
	_Atomic bool reset_now;
	uint32_t reconnect_delay_ms;
	uint32_t ctrl_loss_tmo_ms;
	pthread_mutex_t queues_lock;
	struct nvt_queue **queues; /* by qid - 1 */
	_Atomic unsigned nr_queues; /* written under queues_lock */
	_Atomic uint64_t resets;

	/* timed-out commands the control thread sends an Abort for */
	pthread_mutex_t abort_lock;
	struct {
		uint16_t qid, cid;
	} aborts[NVT_MAX_ABORTS];
	unsigned nr_aborts;
};

enum nvt_state {
	NVT_LIVE = 0,
	NVT_RESETTING = 1, /* connections down, requests held */
	NVT_DEAD = 2, /* ctrl_loss_tmo passed: everything fails */
};

/* Per request (the driver data after struct mqblk_rq). */
struct nvt_req {
	struct nvt_req *tx_next;
	struct iovec iov[4];
	uint8_t niov;
	bool h2c; /* the queued train is H2CData, not the command */
	/* on the send list: a PDU of it (command, in-capsule data or
	 * H2CData) is not all handed to the kernel yet, so the send path
	 * still reads its buffer. Written under tx_lock (cleared with
	 * release once sent); read by the receive path before it completes
	 * the request, never while this is set (tx_holds, req_complete) */
	_Atomic bool queued;
	uint16_t cid;
	uint16_t ttag; /* the R2T's transfer tag */
	uint8_t retries; /* times sent again after a reset */
	bool abort_sent; /* timed out once: an Abort went to the controller */
	bool incap; /* the data went in the capsule: no R2T for it */
	uint32_t r2t_off, r2t_end; /* the R2T's window, H2C next at r2t_off */
	uint32_t c2h_rcvd;
	uint64_t sent_ns; /* queue_rq's time (stall_ms= only) */
	uint8_t pdu[NVT_PDU_HDR_MAX];
	uint8_t h2c_hdr[NVT_PDU_HDR_MAX];
	uint8_t ddgst[4];
	uint8_t dsm[16];
};

enum nvt_rx_state {
	NRX_HDR = 0,
	NRX_PAD,
	NRX_DATA,
	NRX_DDGST,
};

struct nvt_queue {
	struct nvt_dev *d;
	struct mqblk_hctx *hctx;
	uint16_t qid;
	int fd;
	struct nvme_tcp_conn conn;
	unsigned depth;
	struct mqblk_rq **rqs; /* by tag, under tx_lock (writes) */
	_Atomic bool dead; /* this connection is unusable */
	int epfd; /* the hw queue's irq fd: the socket and the kick */
	int kick_fd; /* eventfd: wake the waiter after a reconnect */
	/* polled (hipri) queue: sends wait for the next poll(), which the
	 * submitter runs right away, so the commands of a completion batch
	 * go out in one sendmsg (as SPDK's socket layer flushes once per
	 * poller pass) */
	bool defer_tx;
	/* something was queued to send since the last flush: the poller's
	 * unlocked look (the list itself is tx_lock's) */
	_Atomic bool tx_queued;
	_Atomic bool kicked; /* kick_fd has a count to drain */

	pthread_mutex_t rx_lock; /* poll, and the control thread's swap */
	pthread_mutex_t tx_lock; /* queue_rq and poll (R2T) both send */
	struct nvt_req *tx_head, *tx_tail;
	size_t tx_off;

	/* receive: poll() only, never concurrent with itself */
	uint8_t *rxbuf;
	uint32_t rx_start, rx_end;
	uint8_t rx_state;
	struct nvme_tcp_rx_pdu pdu;
	uint8_t hdr[32];
	struct mqblk_rq *rx_rq;
	uint8_t *rx_dst;
	uint8_t *rx_data;
	uint32_t rx_left, rx_len;
	uint8_t rx_dgst[4];
	uint32_t rx_dgst_have;
	bool rx_success;
	bool rx_h2c; /* this pass queued H2CData: flush at its end */
	_Atomic uint64_t last_done_ns; /* poll's last completion (stall_ms) */
	bool stalled; /* control thread: this stall was logged */
};

static void nvt_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void nvt_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* ---- Blocking socket helpers (set-up, admin) --------------------------- */

static int sock_wait(int fd, short ev, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int n;

	do {
		n = poll(&p, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n == 0)
		return -ETIMEDOUT;
	return n < 0 ? -errno : 0;
}

static int send_all(int fd, const struct iovec *iov_in, int niov)
{
	struct iovec iov[8];
	int i = 0;

	memcpy(iov, iov_in, (size_t)niov * sizeof(*iov));
	while (i < niov) {
		struct msghdr mh = { .msg_iov = iov + i,
				     .msg_iovlen = (size_t)(niov - i) };
		ssize_t n = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				int r = sock_wait(fd, POLLOUT,
						  NVT_IO_TIMEOUT_MS);

				if (r)
					return r;
				continue;
			}
			return -errno;
		}
		while (i < niov && (size_t)n >= iov[i].iov_len) {
			n -= (ssize_t)iov[i].iov_len;
			i++;
		}
		if (i < niov) {
			iov[i].iov_base = (char *)iov[i].iov_base + n;
			iov[i].iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int recv_all(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n =
			recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);

		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int r = sock_wait(fd, POLLIN, NVT_IO_TIMEOUT_MS);

			if (r)
				return r;
			continue;
		}
		return -errno;
	}
	return 0;
}

static int tcp_open(struct nvt_dev *d, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai, *a;
	int fd = -1, one = 1, ret;

	ret = getaddrinfo(d->host, d->port, &hints, &ai);
	if (ret) {
		nvt_err(err, errlen, "nvme-tcp: %s:%s: %s", d->host, d->port,
			gai_strerror(ret));
		return -EINVAL;
	}
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (!connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		ret = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		nvt_err(err, errlen, "nvme-tcp: connect to %s:%s: %s", d->host,
			d->port, strerror(-ret));
		return ret ? ret : -ECONNREFUSED;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* ICReq/ICResp on a fresh connection. */
static int nvt_ic(struct nvt_dev *d, int fd, struct nvme_tcp_conn *c, char *err,
		  size_t errlen)
{
	uint8_t icreq[128], icresp[128];
	struct nvme_tcp_rx_pdu p;
	struct iovec iov = { icreq, sizeof(icreq) };
	uint8_t digest = (d->hdgst ? NVME_TCP_HDGST_ENABLE : 0) |
			 (d->ddgst ? NVME_TCP_DDGST_ENABLE : 0);
	int ret;

	memset(c, 0, sizeof(*c));
	c->host = true;
	nvme_tcp_build_icreq(icreq, sizeof(icreq), 0, digest, 0);
	ret = send_all(fd, &iov, 1);
	if (!ret)
		ret = recv_all(fd, icresp, sizeof(icresp));
	if (ret) {
		nvt_err(err, errlen, "nvme-tcp: %s:%s: ICReq: %s", d->host,
			d->port, strerror(-ret));
		return ret;
	}
	if (nvme_tcp_rx_pdu(c, icresp, sizeof(icresp), &p) != NVME_TCP_RX_OK ||
	    p.type != nvme_tcp_icresp) {
		nvt_err(err, errlen, "nvme-tcp: %s:%s: not an ICResp", d->host,
			d->port);
		return -EPROTO;
	}
	if (nvme_tcp_conn_establish(c, icreq, icresp) || c->hdgst != d->hdgst ||
	    c->ddgst != d->ddgst) {
		nvt_err(err, errlen,
			"nvme-tcp: %s:%s: the controller did not grant the "
			"digests asked for",
			d->host, d->port);
		return -EPROTO;
	}
	/* the biggest PDU we take: C2HData of a whole transfer */
	c->max_plen = 0;
	return 0;
}

/* cqe answers s's outstanding AER: keep it for the control thread. */
static bool take_aen(struct nvt_sock *s, const struct nvme_completion *cqe)
{
	if (!s->aer_cid || cqe->command_id != s->aer_cid)
		return false;
	s->aer_cid = 0;
	s->aen_dw0 = le32_to_cpu(cqe->result.u32);
	s->aen_status = nvme_cqe_status(cqe) & 0x7ff;
	s->aen_ready = true;
	return true;
}

/* Read one PDU header into h (at least 128 bytes) and decode it. */
static int recv_hdr(struct nvt_sock *s, uint8_t *h, size_t hlen,
		    struct nvme_tcp_rx_pdu *p)
{
	uint32_t need = 8;
	int ret;

	/* the header, growing to what the decoder asks for */
	ret = recv_all(s->fd, h, 8);
	while (!ret) {
		int r = nvme_tcp_rx_header(&s->conn, h, need, p);

		if (r == NVME_TCP_RX_OK)
			return 0;
		if (r != NVME_TCP_RX_MORE || p->need > hlen)
			return -EPROTO;
		ret = recv_all(s->fd, h + need, p->need - need);
		need = p->need;
	}
	return ret;
}

/* An Asynchronous Event Request on the admin queue (answered whenever
 * the controller has an event: take_aen). */
static int aer_send(struct nvt_sock *s)
{
	union nvme_command cmd;
	uint8_t hdr[NVT_PDU_HDR_MAX];
	struct iovec iov;
	ssize_t n;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	cmd.common.opcode = nvme_admin_async_event;
	cmd.common.command_id = NVT_AER_CID;
	cmd.common.flags = NVME_CMD_SGL_METABUF;
	cmd.common.dptr.sgl.type = NVME_SGL_TCP_TRANSPORT;
	n = nvme_tcp_build_cmd(&s->conn, hdr, sizeof(hdr), &cmd, NULL, 0);
	if (n < 0)
		return (int)n;
	iov.iov_base = hdr;
	iov.iov_len = (size_t)n;
	ret = send_all(s->fd, &iov, 1);
	if (!ret) {
		s->aer_cid = NVT_AER_CID;
		s->aen_ready = false;
	}
	return ret;
}

/* The admin socket is readable with no command of ours waiting: the
 * only thing the controller may send is the AER's answer. */
static int aer_reap(struct nvt_sock *s)
{
	struct nvme_tcp_rx_pdu p;
	struct nvme_completion cqe;
	uint8_t h[128];
	int ret = recv_hdr(s, h, sizeof(h), &p);

	if (ret)
		return ret;
	if (p.type != nvme_tcp_rsp)
		return -EPROTO;
	memcpy(&cqe, h + 8, sizeof(cqe));
	return take_aen(s, &cqe) ? 0 : -EPROTO;
}

/*
 * One command, synchronously, on a set-up or admin connection: data to
 * the controller goes in-capsule (Connect, and nothing else here is
 * larger than a capsule), data from it in C2HData. Returns 0 and the
 * CQE, or -errno for a transport failure. An AER answer that comes
 * first is kept (take_aen).
 */
static int sync_cmd(struct nvt_sock *s, union nvme_command *cmd, void *buf,
		    uint32_t len, bool to_ctrl, struct nvme_completion *cqe)
{
	uint8_t hdr[NVT_PDU_HDR_MAX], ddgst[4], rhdr[128];
	struct iovec iov[3];
	struct nvme_tcp_rx_pdu p;
	uint32_t got = 0;
	ssize_t n;
	int niov = 1, ret;

	s->cid = (uint16_t)(s->cid % 0x7fff + 1);
	cmd->common.command_id = s->cid;
	cmd->common.flags = NVME_CMD_SGL_METABUF;
	cmd->common.dptr.sgl.addr = 0;
	cmd->common.dptr.sgl.length = cpu_to_le32(len);
	cmd->common.dptr.sgl.type = to_ctrl && len ? NVME_SGL_TCP_INCAPSULE :
						     NVME_SGL_TCP_TRANSPORT;
	/* header only: the data follows from buf, not copied */
	n = nvme_tcp_build_cmd(&s->conn, hdr, sizeof(hdr), cmd, NULL,
			       to_ctrl ? len : 0);
	if (n < 0)
		return (int)n;
	iov[0].iov_base = hdr;
	iov[0].iov_len = (size_t)n;
	if (to_ctrl && len) {
		iov[niov].iov_base = buf;
		iov[niov++].iov_len = len;
		if (s->conn.ddgst) {
			nvme_tcp_put_ddgst(ddgst, buf, len);
			iov[niov].iov_base = ddgst;
			iov[niov++].iov_len = 4;
		}
	}
	ret = send_all(s->fd, iov, niov);
	if (ret)
		return ret;
	for (;;) {
		ret = recv_hdr(s, rhdr, sizeof(rhdr), &p);
		if (ret)
			return ret;
		if (p.type == nvme_tcp_rsp) {
			memcpy(cqe, rhdr + 8, sizeof(*cqe));
			if (take_aen(s, cqe))
				continue;
			if (cqe->command_id != cmd->common.command_id)
				return -EPROTO;
			return 0;
		}
		if (p.type != nvme_tcp_c2h_data)
			return -EPROTO;
		{
			uint32_t off = nvme_get_le32(rhdr + 12);
			uint32_t dlen = nvme_get_le32(rhdr + 16);
			uint8_t pad[128], dg[4];

			if (nvme_tcp_check_data_range(off, dlen, got, len))
				return -EPROTO;
			if (p.data_off > p.hdr_len &&
			    (p.data_off - p.hdr_len > sizeof(pad) ||
			     recv_all(s->fd, pad, p.data_off - p.hdr_len)))
				return -EPROTO;
			ret = recv_all(s->fd, (uint8_t *)buf + off, dlen);
			if (!ret && p.ddgst) {
				ret = recv_all(s->fd, dg, 4);
				if (!ret &&
				    !nvme_tcp_ddgst_ok((uint8_t *)buf + off,
						       dlen, dg))
					ret = -EBADMSG;
			}
			if (ret)
				return ret;
			got += dlen;
			if (p.flags & NVME_TCP_F_DATA_SUCCESS) {
				memset(cqe, 0, sizeof(*cqe));
				cqe->command_id = cmd->common.command_id;
				return 0;
			}
		}
	}
}

/* What a Connect's Invalid Parameter names: its result is the parameter's
 * offset (IPO, bits 15:0) in the command (IATTR, bit 16, clear) or in its
 * data (set); nvmf_log_connect_error's reading. */
static const char *connect_ipo_name(uint32_t result)
{
	static const struct {
		uint32_t ipo; /* IATTR << 16 | IPO */
		const char *what;
	} names[] = {
		{ 1u << 16 | 256, " (invalid parameter: subsystem NQN)" },
		{ 1u << 16 | 512, " (invalid parameter: host NQN)" },
		{ 1u << 16 | 16, " (invalid parameter: controller ID)" },
		{ 44, " (invalid parameter: queue size)" },
		{ 42, " (invalid parameter: queue ID)" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((result & 0x1ffff) == names[i].ipo)
			return names[i].what;
	return " (invalid parameter)";
}
static int nvt_connect(struct nvt_dev *d, struct nvt_sock *s, uint16_t qid,
		       uint16_t sqsize, uint16_t *cntlid, char *err,
		       size_t errlen)
{
	union nvme_command cmd;
	struct nvmf_connect_data data;
	struct nvme_completion cqe;
	uint16_t st;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	memset(&data, 0, sizeof(data));
	cmd.connect.opcode = nvme_fabrics_command;
	cmd.connect.fctype = nvme_fabrics_type_connect;
	cmd.connect.qid = cpu_to_le16(qid);
	cmd.connect.sqsize = cpu_to_le16(sqsize);
	if (!qid)
		cmd.connect.kato = cpu_to_le32(d->kato_ms);
	memcpy(data.hostid, d->hostid, sizeof(data.hostid));
	data.cntlid = cpu_to_le16(qid ? *cntlid : NVME_CNTLID_DYNAMIC);
	memcpy(data.subsysnqn, d->subnqn, sizeof(data.subsysnqn));
	memcpy(data.hostnqn, d->hostnqn, sizeof(data.hostnqn));
	ret = sync_cmd(s, &cmd, &data, sizeof(data), true, &cqe);
	if (ret) {
		nvt_err(err, errlen, "nvme-tcp: %s:%s: Connect (qid %u): %s",
			d->host, d->port, qid, strerror(-ret));
		return ret;
	}
	st = nvme_cqe_status(&cqe) & 0x7ff;
	if (st) {
		nvt_err(err, errlen,
			"nvme-tcp: %s:%s: Connect to %s (qid %u) refused: "
			"status 0x%x%s",
			d->host, d->port, d->subnqn, qid, st,
			st == NVME_SC_CONNECT_INVALID_HOST ?
				" (host not allowed)" :
			st == NVME_SC_CONNECT_INVALID_PARAM ?
				connect_ipo_name(le32_to_cpu(cqe.result.u32)) :
				"");
		/* a host or parameter the controller will not take is not
		 * worth a retry; another refusal (busy, ...) may pass */
		return st == NVME_SC_CONNECT_INVALID_HOST  ? -EACCES :
		       st == NVME_SC_CONNECT_INVALID_PARAM ? -EINVAL :
							     -ECONNREFUSED;
	}
	if (!qid)
		*cntlid = le16_to_cpu(cqe.result.u16);
	return 0;
}

static int admin_cmd(struct nvt_dev *d, union nvme_command *cmd, void *buf,
		     uint32_t len, uint64_t *result)
{
	struct nvme_completion cqe;
	int ret;

	ret = sync_cmd(&d->admin, cmd, buf, len, false, &cqe);
	if (ret)
		return ret;
	if (result)
		*result = le64_to_cpu(cqe.result.u64);
	return (nvme_cqe_status(&cqe) & 0x7ff) ? -EIO : 0;
}

static int prop_get(struct nvt_dev *d, uint32_t off, bool wide, uint64_t *v)
{
	union nvme_command cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.prop_get.opcode = nvme_fabrics_command;
	cmd.prop_get.fctype = nvme_fabrics_type_property_get;
	cmd.prop_get.attrib = wide ? NVMF_PROP_ATTR_8BYTE : 0;
	cmd.prop_get.offset = cpu_to_le32(off);
	return admin_cmd(d, &cmd, NULL, 0, v);
}

static int prop_set(struct nvt_dev *d, uint32_t off, uint32_t v)
{
	union nvme_command cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.prop_set.opcode = nvme_fabrics_command;
	cmd.prop_set.fctype = nvme_fabrics_type_property_set;
	cmd.prop_set.offset = cpu_to_le32(off);
	cmd.prop_set.value = cpu_to_le64(v);
	return admin_cmd(d, &cmd, NULL, 0, NULL);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- The control thread: keep alive, reset and reconnect -------------- */

static int nvt_ic(struct nvt_dev *d, int fd, struct nvme_tcp_conn *c, char *err,
		  size_t errlen);
static int nvt_connect(struct nvt_dev *d, struct nvt_sock *s, uint16_t qid,
		       uint16_t sqsize, uint16_t *cntlid, char *err,
		       size_t errlen);
static int tcp_open(struct nvt_dev *d, char *err, size_t errlen);
static int ctrl_setup(struct nvt_dev *d, char *err, size_t errlen);
static void reset_ctrl(struct nvt_dev *d);
static int build_req(struct nvt_queue *q, struct mqblk_rq *rq);
static void tx_enqueue(struct nvt_queue *q, struct nvt_req *r);
static void tx_flush(struct nvt_queue *q);

static void wake_ctrl(struct nvt_dev *d)
{
	uint64_t one = 1;

	if (write(d->ka_efd, &one, sizeof(one)) < 0)
		abort();
}

/* The admin connection failed (control thread): reset, unless there is
 * nothing to reset (a discovery controller has no I/O queues) or a reset
 * is under way. True if this started one. */
static bool admin_fail(struct nvt_dev *d, const char *why)
{
	int live = NVT_LIVE;

	if (d->nr_queues &&
	    atomic_compare_exchange_strong(&d->state, &live, NVT_RESETTING)) {
		fprintf(stderr,
			"mqblk: nvme-tcp: %s:%s: %s: resetting the "
			"controller\n",
			d->host, d->port, why);
		wake_ctrl(d);
		return true;
	}
	return false;
}

/* Identify (CNS cns, namespace nsid) into id, 4 KiB. */
static int identify(struct nvt_dev *d, uint8_t cns, uint32_t nsid, void *id)
{
	union nvme_command cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.identify.opcode = nvme_admin_identify;
	cmd.identify.cns = cns;
	cmd.identify.nsid = cpu_to_le32(nsid);
	return admin_cmd(d, &cmd, id, 4096, NULL);
}

/* Identify Namespace d->nsid: its size in blocks and block shift (0
 * and 0 for an inactive namespace). */
static int id_ns(struct nvt_dev *d, uint8_t *id, uint64_t *nsze,
		 unsigned *shift)
{
	int ret = identify(d, NVME_ID_CNS_NS, d->nsid, id);

	if (ret)
		return ret;
	*nsze = nvme_get_le64(id);
	*shift = *nsze ? id[128 + 4 * (id[26] & 0xf) + 2] : 0;
	return 0;
}

/* Our namespace's size as the controller now tells it: the device's
 * capacity follows (the kernel's "detected capacity change"). A
 * namespace that went away or changed its block size takes no I/O. */
static void ns_revalidate(struct nvt_dev *d, uint64_t nsze, unsigned shift)
{
	uint64_t old = d->nsze << d->lba_shift;

	if (!nsze || shift != d->lba_shift) {
		if (d->nsze)
			fprintf(stderr,
				"mqblk: nvme-tcp: %s:%s: namespace %u %s: no "
				"more I/O to it\n",
				d->host, d->port, d->nsid,
				nsze ? "changed its block size" : "is gone");
		d->nsze = 0;
		mqblk_dev_set_capacity(d->dev, 0);
		return;
	}
	if (nsze == d->nsze)
		return;
	d->nsze = nsze;
	fprintf(stderr,
		"mqblk: nvme-tcp: %s:%s: namespace %u: capacity change from "
		"%llu to %llu bytes\n",
		d->host, d->port, d->nsid, (unsigned long long)old,
		(unsigned long long)(nsze << shift));
	mqblk_dev_set_capacity(d->dev, nsze << shift);
}

/* What the AER reported (admin_lock held): a namespace change clears
 * the Changed Namespace List and re-reads our namespace; anything else
 * is logged. Then the next AER goes out. */
static void aen_handle(struct nvt_dev *d)
{
	struct nvt_sock *s = &d->admin;
	uint32_t dw0 = s->aen_dw0;
	uint8_t *buf;

	s->aen_ready = false;
	if (s->aen_status) {
		/* aborted at shutdown, or the controller takes no more */
		if (atomic_load(&d->state) == NVT_LIVE)
			fprintf(stderr,
				"mqblk: nvme-tcp: %s:%s: Asynchronous Event "
				"Request failed (status 0x%x): no more "
				"events\n",
				d->host, d->port, s->aen_status);
		return;
	}
	buf = aligned_alloc(4096, 4096);
	if (!buf)
		return;
	if (NVME_AER_TYPE(dw0) == NVME_AER_TYPE_NOTICE &&
	    NVME_AER_INFO(dw0) == NVME_AER_NOTICE_NS_CHANGED) {
		union nvme_command cmd;
		uint64_t nsze;
		unsigned shift;

		memset(&cmd, 0, sizeof(cmd));
		cmd.get_log_page.opcode = nvme_admin_get_log_page;
		cmd.get_log_page.nsid = cpu_to_le32(0xffffffff);
		cmd.get_log_page.lid = NVME_LOG_CHANGED_NS; /* RAE 0: clear */
		cmd.get_log_page.numdl = cpu_to_le16(4096 / 4 - 1);
		if (admin_cmd(d, &cmd, buf, 4096, NULL) ||
		    id_ns(d, buf, &nsze, &shift)) {
			free(buf);
			admin_fail(d, "namespace change: re-reading it failed");
			return;
		}
		ns_revalidate(d, nsze, shift);
	} else if (NVME_AER_TYPE(dw0) == NVME_AER_TYPE_NOTICE &&
		   NVME_AER_INFO(dw0) == NVME_AER_NOTICE_ANA && d->multipath) {
		/* the multipath layer reads the ANA log (RAE clear, which
		 * re-arms the notice) when it sees the count move */
		atomic_fetch_add(&d->ana_gen, 1);
	} else {
		fprintf(stderr,
			"mqblk: nvme-tcp: %s:%s: asynchronous event 0x%08x "
			"(type %u, info 0x%02x, log page 0x%02x)\n",
			d->host, d->port, dw0, NVME_AER_TYPE(dw0),
			NVME_AER_INFO(dw0), NVME_AER_LID(dw0));
	}
	free(buf);
	if (aer_send(s))
		admin_fail(d, "Asynchronous Event Request failed");
}

/* An Abort for each command the timeout handler listed; the command's
 * own answer (aborted or not) still comes on its queue, and a second
 * timeout resets the controller. */
static void aborts_send(struct nvt_dev *d)
{
	unsigned n, i;
	struct {
		uint16_t qid, cid;
	} a[NVT_MAX_ABORTS];

	pthread_mutex_lock(&d->abort_lock);
	n = d->nr_aborts;
	memcpy(a, d->aborts, n * sizeof(a[0]));
	d->nr_aborts = 0;
	pthread_mutex_unlock(&d->abort_lock);
	for (i = 0; i < n; i++) {
		union nvme_command cmd;
		uint64_t res = 1;
		int ret = -EIO;

		memset(&cmd, 0, sizeof(cmd));
		cmd.common.opcode = nvme_admin_abort;
		cmd.common.cdw10 =
			cpu_to_le32(a[i].qid | (uint32_t)a[i].cid << 16);
		pthread_mutex_lock(&d->admin_lock);
		if (atomic_load(&d->state) == NVT_LIVE && d->admin.fd >= 0)
			ret = admin_cmd(d, &cmd, NULL, 0, &res);
		pthread_mutex_unlock(&d->admin_lock);
		if (ret == -EIO && atomic_load(&d->state) != NVT_LIVE)
			continue; /* the reset takes care of it */
		fprintf(stderr,
			"mqblk: nvme-tcp: %s:%s qid %u: command %u timed out: "
			"Abort %s\n",
			d->host, d->port, a[i].qid, a[i].cid,
			ret == -EIO ? "refused" :
			ret	    ? "not sent" :
			(res & 1)   ? "sent, the controller did not abort it" :
				      "sent, the controller aborted it");
		if (ret && ret != -EIO)
			admin_fail(d, "Abort failed");
	}
}

/* Each I/O queue with commands out and no completion for stall_ms: one
 * line per stall, naming the queue and its oldest command. */
static void stall_check(struct nvt_dev *d)
{
	uint64_t now = mqblk_clock_ns(), lim = d->stall_ms * 1000000ull;
	unsigned i, t;

	pthread_mutex_lock(&d->queues_lock);
	for (i = 0; i < d->nr_queues; i++) {
		struct nvt_queue *q = d->queues[i];
		uint64_t oldest = UINT64_MAX, last;
		uint16_t ocid = 0;
		unsigned n = 0;

		if (!q)
			continue;
		pthread_mutex_lock(&q->rx_lock);
		pthread_mutex_lock(&q->tx_lock);
		for (t = 0; t < q->depth; t++) {
			struct nvt_req *r;

			if (!q->rqs[t])
				continue;
			r = mqblk_rq_pdu(q->rqs[t]);
			n++;
			if (r->sent_ns < oldest) {
				oldest = r->sent_ns;
				ocid = r->cid;
			}
		}
		pthread_mutex_unlock(&q->tx_lock);
		pthread_mutex_unlock(&q->rx_lock);
		last = atomic_load_explicit(&q->last_done_ns,
					    memory_order_relaxed);
		if (last < oldest)
			last = oldest;
		if (!n || now < last || now - last < lim) {
			q->stalled = false;
			continue;
		}
		if (q->stalled)
			continue;
		q->stalled = true;
		atomic_fetch_add(&d->stalls, 1);
		fprintf(stderr,
			"mqblk: nvme-tcp: %s:%s qid %u: stalled: %u commands "
			"out, no completion for %llu ms; oldest command id %u "
			"(sent %llu ms ago)\n",
			d->host, d->port, q->qid, n,
			(unsigned long long)((now - last) / 1000000), ocid,
			(unsigned long long)((now - oldest) / 1000000));
	}
	pthread_mutex_unlock(&d->queues_lock);
}

static void *ctrl_main(void *arg)
{
	struct nvt_dev *d = arg;
	uint64_t next_ka = now_ms() + d->kato_ms / 2;

	while (!atomic_load(&d->stop)) {
		struct pollfd p[2] = { { .fd = d->ka_efd, .events = POLLIN },
				       { .fd = -1, .events = POLLIN } };
		uint64_t now = now_ms(), v;
		int timeout = -1, admin_fd;

		if (d->kato_ms)
			timeout = next_ka > now ? (int)(next_ka - now) : 0;
		if (d->stall_ms &&
		    (timeout < 0 || (unsigned)timeout > d->stall_ms / 4 + 1))
			timeout = (int)(d->stall_ms / 4 + 1);
		/* the admin socket only speaks when our AER is answered */
		pthread_mutex_lock(&d->admin_lock);
		admin_fd = d->admin.aer_cid ? d->admin.fd : -1;
		pthread_mutex_unlock(&d->admin_lock);
		p[1].fd = admin_fd;
		if (poll(p, 2, timeout) > 0 && p[0].revents &&
		    read(d->ka_efd, &v, sizeof(v)) < 0)
			abort();
		if (atomic_load(&d->stop))
			break;
		if (atomic_load(&d->state) == NVT_RESETTING) {
			reset_ctrl(d);
			next_ka = now_ms() + d->kato_ms / 2;
			continue;
		}
		aborts_send(d);
		if (d->stall_ms)
			stall_check(d);
		pthread_mutex_lock(&d->admin_lock);
		if (p[1].revents && d->admin.fd == admin_fd &&
		    d->admin.aer_cid && !sock_wait(admin_fd, POLLIN, 0) &&
		    aer_reap(&d->admin)) {
			d->admin.aer_cid = 0; /* not polled again */
			admin_fail(d, "admin connection failed");
		}
		if (d->kato_ms && now_ms() >= next_ka &&
		    atomic_load(&d->state) == NVT_LIVE) {
			union nvme_command cmd;

			memset(&cmd, 0, sizeof(cmd));
			cmd.common.opcode = nvme_admin_keep_alive;
			if (admin_cmd(d, &cmd, NULL, 0, NULL) < 0)
				admin_fail(d, "keep alive failed");
			next_ka = now_ms() + d->kato_ms / 2;
		}
		if (d->admin.aen_ready && atomic_load(&d->state) == NVT_LIVE)
			aen_handle(d);
		pthread_mutex_unlock(&d->admin_lock);
	}
	return NULL;
}

/* Forget what q's send list holds (the connection is gone or going):
 * none of it will be read by the send path again. Under tx_lock. */
static void tx_drop(struct nvt_queue *q)
{
	struct nvt_req *r;

	for (r = q->tx_head; r; r = r->tx_next)
		atomic_store_explicit(&r->queued, false, memory_order_release);
	q->tx_head = q->tx_tail = NULL;
	q->tx_off = 0;
}

/*
 * Whether the send path still holds r (some of its PDUs unsent). Clear is
 * final for the receive path: only it (R2T) or a new use of the tag sets
 * it again. Set may be a sender between its sendmsg and its bookkeeping
 * (it holds tx_lock throughout): then ask again under the lock, where
 * set means not handed to the kernel. Receive path, no lock held.
 */
static bool tx_holds(struct nvt_queue *q, struct nvt_req *r)
{
	bool held;

	if (!atomic_load_explicit(&r->queued, memory_order_acquire))
		return false;
	pthread_mutex_lock(&q->tx_lock);
	held = atomic_load_explicit(&r->queued, memory_order_relaxed);
	pthread_mutex_unlock(&q->tx_lock);
	return held;
}

/*
 * Complete rq to its submitter, who may free or reuse its buffer at once:
 * so never while the send path may still read that buffer (a request on
 * the send list). Every completion of an I/O request goes through here;
 * the paths that can meet a queued request (an answer from the
 * controller) check first and take the error path instead.
 */
static void req_complete(struct mqblk_rq *rq, int res, uint16_t status)
{
	struct nvt_req *r = mqblk_rq_pdu(rq);

	assert(!atomic_load_explicit(&r->queued, memory_order_acquire));
	(void)r;
	mqblk_complete_rq(rq, res, status);
}

/* Close q's connection: no poll or send runs while it goes. */
static void queue_disconnect(struct nvt_queue *q)
{
	pthread_mutex_lock(&q->rx_lock);
	pthread_mutex_lock(&q->tx_lock);
	atomic_store(&q->dead, true);
	if (q->fd >= 0) {
		epoll_ctl(q->epfd, EPOLL_CTL_DEL, q->fd, NULL);
		close(q->fd);
		q->fd = -1;
	}
	/* what was not sent never will be: its requests are held (resent
	 * from scratch after the reconnect) or failed, both safe now */
	tx_drop(q);
	q->rx_start = q->rx_end = 0;
	q->rx_state = NRX_HDR;
	q->rx_rq = NULL;
	pthread_mutex_unlock(&q->tx_lock);
	pthread_mutex_unlock(&q->rx_lock);
}

static void queue_kick(struct nvt_queue *q)
{
	uint64_t one = 1;

	atomic_store(&q->kicked, true);
	if (write(q->kick_fd, &one, sizeof(one)) < 0)
		abort();
}

/* Complete every request outstanding on d's queues with -EIO and status
 * (their connections are closed: no answer can come for them any more). */
static void complete_outstanding(struct nvt_dev *d, uint16_t status)
{
	unsigned i, t;

	for (i = 0; i < d->nr_queues; i++) {
		struct nvt_queue *q = d->queues[i];

		if (!q)
			continue;
		pthread_mutex_lock(&q->rx_lock);
		pthread_mutex_lock(&q->tx_lock);
		for (t = 0; t < q->depth; t++) {
			struct mqblk_rq *rq = q->rqs[t];

			if (rq) {
				q->rqs[t] = NULL;
				req_complete(rq, -EIO, status);
			}
		}
		pthread_mutex_unlock(&q->tx_lock);
		pthread_mutex_unlock(&q->rx_lock);
		queue_kick(q);
	}
}

/* Past ctrl_loss_tmo: what is held fails, and so will new I/O. */
static void fail_held(struct nvt_dev *d)
{
	atomic_store(&d->state, NVT_DEAD);
	complete_outstanding(d, NVME_SC_HOST_PATH_ERROR);
}

/* A path of a multipath device holds nothing across a reset: what was
 * outstanding goes back to the multipath layer at once with Host Aborted
 * Command, a path error it sends again on another path (the kernel's
 * nvme_cancel_request then nvme_failover_req). The connections are
 * closed (queue_disconnect), so no answer can come for them any more. */
static void fail_over_held(struct nvt_dev *d)
{
	complete_outstanding(d, NVME_SC_HOST_ABORTED_CMD);
}

/* One reconnect attempt: admin queue, set-up, every I/O queue. */
static int reconnect_once(struct nvt_dev *d, char *err, size_t errlen)
{
	uint64_t nsze = d->nsze;
	unsigned lba_shift = d->lba_shift, want = d->want_queues, i;
	int fd, ret;
	int *fds = calloc(d->nr_queues ? d->nr_queues : 1, sizeof(*fds));
	struct nvme_tcp_conn *conns =
		calloc(d->nr_queues ? d->nr_queues : 1, sizeof(*conns));

	if (!fds || !conns) {
		free(fds);
		free(conns);
		return -ENOMEM;
	}
	for (i = 0; i < d->nr_queues; i++)
		fds[i] = -1;
	pthread_mutex_lock(&d->admin_lock);
	if (d->admin.fd >= 0)
		close(d->admin.fd);
	d->admin.fd = -1;
	d->admin.aer_cid = 0; /* it went with the connection */
	d->admin.aen_ready = false;
	fd = tcp_open(d, err, errlen);
	ret = fd < 0 ? fd : 0;
	if (!ret) {
		d->admin.fd = fd;
		ret = nvt_ic(d, fd, &d->admin.conn, err, errlen);
	}
	if (!ret)
		ret = nvt_connect(d, &d->admin, 0, NVT_ADMIN_DEPTH - 1,
				  &d->cntlid, err, errlen);
	if (!ret) {
		/* the same namespace, and queues for every hw queue */
		d->want_queues = d->nr_queues ? d->nr_queues : 1;
		ret = ctrl_setup(d, err, errlen);
		d->want_queues = want;
	}
	if (!ret && (d->lba_shift != lba_shift || d->granted < d->nr_queues)) {
		snprintf(err, errlen,
			 "the controller came back different (block size or "
			 "fewer queues)");
		ret = -ENODEV;
	}
	if (!ret && d->nsze != nsze) {
		/* resized while we were away: the device follows */
		uint64_t now_nsze = d->nsze;

		d->nsze = nsze;
		ns_revalidate(d, now_nsze, d->lba_shift);
	}
	pthread_mutex_unlock(&d->admin_lock);
	for (i = 0; !ret && !d->discovery && i < d->nr_queues; i++) {
		struct nvt_sock s;

		if (!d->queues[i])
			continue; /* its hw queue is gone (or not yet made) */
		fds[i] = tcp_open(d, err, errlen);
		if (fds[i] < 0) {
			ret = fds[i];
			break;
		}
		memset(&s, 0, sizeof(s));
		s.fd = fds[i];
		ret = nvt_ic(d, fds[i], &s.conn, err, errlen);
		if (!ret)
			ret = nvt_connect(d, &s, (uint16_t)(i + 1),
					  (uint16_t)(d->queue_size - 1),
					  &d->cntlid, err, errlen);
		conns[i] = s.conn;
	}
	if (ret) {
		for (i = 0; i < d->nr_queues; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		free(fds);
		free(conns);
		return ret;
	}
	/* swap the connections in and send what was held, once */
	for (i = 0; !d->discovery && i < d->nr_queues; i++) {
		struct nvt_queue *q = d->queues[i];
		struct epoll_event ev = { .events = EPOLLIN };
		unsigned t;

		if (!q)
			continue;
		pthread_mutex_lock(&q->rx_lock);
		pthread_mutex_lock(&q->tx_lock);
		q->fd = fds[i];
		q->conn = conns[i];
		ev.data.fd = q->fd;
		epoll_ctl(q->epfd, EPOLL_CTL_ADD, q->fd, &ev);
		atomic_store(&q->dead, false);
		for (t = 0; t < q->depth; t++) {
			struct mqblk_rq *rq = q->rqs[t];
			struct nvt_req *r;

			if (!rq)
				continue;
			r = mqblk_rq_pdu(rq);
			if (++r->retries > NVT_MAX_RETRIES ||
			    build_req(q, rq)) {
				/* sent too often: it fails, as in Linux */
				q->rqs[t] = NULL;
				req_complete(rq, -EIO,
					     NVME_SC_HOST_ABORTED_CMD);
				continue;
			}
			tx_enqueue(q, r);
		}
		tx_flush(q);
		pthread_mutex_unlock(&q->tx_lock);
		pthread_mutex_unlock(&q->rx_lock);
	}
	free(fds);
	free(conns);
	return 0;
}

/* The control thread waits ms, or less if the device is closing (other
 * wake-ups, e.g. another queue's failure, do not end the wait). */
static void ctrl_sleep(struct nvt_dev *d, uint32_t ms)
{
	uint64_t end = now_ms() + ms;
	struct pollfd p = { .fd = d->ka_efd, .events = POLLIN };
	uint64_t t, v;

	while (!atomic_load(&d->stop) && (t = now_ms()) < end)
		if (poll(&p, 1, (int)(end - t)) > 0 &&
		    read(d->ka_efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			abort();
}

static void reset_ctrl(struct nvt_dev *d)
{
	uint64_t start = now_ms();
	char err[256];
	unsigned i, attempt = 0;

	atomic_fetch_add(&d->resets, 1);
	pthread_mutex_lock(&d->queues_lock);
	for (i = 0; i < d->nr_queues; i++)
		if (d->queues[i])
			queue_disconnect(d->queues[i]);
	if (d->multipath)
		fail_over_held(d);
	if (!atomic_exchange(&d->reset_now, false) && d->ctrl_loss_tmo_ms) {
		/* a failure: the first attempt after reconnect_delay (never
		 * past ctrl_loss_tmo; 0: one attempt at once), so a target
		 * that is going away is not asked again at once */
		uint32_t ms = d->reconnect_delay_ms < d->ctrl_loss_tmo_ms ?
				      d->reconnect_delay_ms :
				      d->ctrl_loss_tmo_ms;

		fprintf(stderr,
			"mqblk: nvme-tcp: %s:%s: reconnecting in %u s\n",
			d->host, d->port, ms / 1000);
		ctrl_sleep(d, ms);
	}
	for (;;) {
		int ret;

		if (atomic_load(&d->stop))
			break;
		err[0] = 0;
		ret = reconnect_once(d, err, sizeof(err));
		attempt++;
		if (!ret) {
			atomic_store(&d->state, NVT_LIVE);
			fprintf(stderr,
				"mqblk: nvme-tcp: %s:%s: reconnected after "
				"%.1f s (attempt %u)\n",
				d->host, d->port,
				(double)(now_ms() - start) / 1000, attempt);
			for (i = 0; i < d->nr_queues; i++) {
				struct nvt_queue *q = d->queues[i];
				int live = NVT_LIVE;

				if (!q)
					continue;
				/* a connection that failed before LIVE
				 * could not start a reset: start it now */
				if (atomic_load(&q->dead) &&
				    atomic_compare_exchange_strong(
					    &d->state, &live, NVT_RESETTING)) {
					fprintf(stderr,
						"mqblk: nvme-tcp: %s:%s qid "
						"%u: failed while reconnecting: "
						"resetting the controller\n",
						d->host, d->port, q->qid);
					wake_ctrl(d);
				}
				queue_kick(q);
			}
			break;
		}
		if (now_ms() - start >= d->ctrl_loss_tmo_ms) {
			fprintf(stderr,
				"mqblk: nvme-tcp: %s:%s: no controller after "
				"ctrl_loss_tmo (%u s): failing I/O (%s)\n",
				d->host, d->port, d->ctrl_loss_tmo_ms / 1000,
				err);
			fail_held(d);
			break;
		}
		fprintf(stderr,
			"mqblk: nvme-tcp: %s:%s: reconnect failed (%s); "
			"retrying in %u s\n",
			d->host, d->port, err, d->reconnect_delay_ms / 1000);
		ctrl_sleep(d, d->reconnect_delay_ms);
	}
	pthread_mutex_unlock(&d->queues_lock);
}

/* ---- Device ---------------------------------------------------------------- */

/* "HOST:PORT/SUBNQN" or "[V6]:PORT/SUBNQN" */
static int parse_addr(struct nvt_dev *d, const char *s, char *err,
		      size_t errlen)
{
	const char *slash = strchr(s, '/'), *colon;
	size_t hl;

	if (!slash || !slash[1]) {
		nvt_err(err, errlen,
			"nvme-tcp URI: expected nvme-tcp://HOST:PORT/SUBNQN, "
			"got '%s'",
			s);
		return -EINVAL;
	}
	if (s[0] == '[') {
		const char *rb = memchr(s, ']', (size_t)(slash - s));

		if (!rb || rb[1] != ':') {
			nvt_err(err, errlen, "nvme-tcp URI: bad address '%.*s'",
				(int)(slash - s), s);
			return -EINVAL;
		}
		hl = (size_t)(rb - s - 1);
		memcpy(d->host, s + 1, hl < sizeof(d->host) ? hl : 0);
		colon = rb + 1;
	} else {
		colon = memchr(s, ':', (size_t)(slash - s));
		if (!colon) {
			nvt_err(err, errlen,
				"nvme-tcp URI: no port in '%.*s' (HOST:PORT)",
				(int)(slash - s), s);
			return -EINVAL;
		}
		hl = (size_t)(colon - s);
		if (hl >= sizeof(d->host)) {
			nvt_err(err, errlen, "nvme-tcp URI: host too long");
			return -EINVAL;
		}
		memcpy(d->host, s, hl);
	}
	if (!hl || slash - colon - 1 <= 0 ||
	    (size_t)(slash - colon - 1) >= sizeof(d->port)) {
		nvt_err(err, errlen, "nvme-tcp URI: bad address '%.*s'",
			(int)(slash - s), s);
		return -EINVAL;
	}
	memcpy(d->port, colon + 1, (size_t)(slash - colon - 1));
	{
		unsigned long p = strtoul(d->port, NULL, 10);
		size_t i;

		for (i = 0; d->port[i]; i++)
			if (d->port[i] < '0' || d->port[i] > '9')
				p = 0;
		if (!p || p > 65535) {
			nvt_err(err, errlen, "nvme-tcp URI: bad port '%s'",
				d->port);
			return -EINVAL;
		}
	}
	if (strlen(slash + 1) > 223) {
		nvt_err(err, errlen,
			"nvme-tcp URI: subsystem NQN longer than 223 bytes");
		return -EINVAL;
	}
	strcpy(d->subnqn, slash + 1);
	return 0;
}

static int parse_uuid(const char *s, uint8_t out[16])
{
	unsigned i = 0;

	while (*s && i < 32) {
		int v;

		if (*s == '-') {
			s++;
			continue;
		}
		if (*s >= '0' && *s <= '9')
			v = *s - '0';
		else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			v = (*s | 0x20) - 'a' + 10;
		else
			return -1;
		if (i & 1)
			out[i / 2] |= (uint8_t)v;
		else
			out[i / 2] = (uint8_t)(v << 4);
		i++;
		s++;
	}
	return i == 32 && !*s ? 0 : -1;
}

/* The host's identity: hostnqn= or /etc/nvme/hostnqn, else one made
 * from hostid= or a random UUID (as nvme-cli's gen-hostnqn). */
static void default_host(struct nvt_dev *d, bool have_id)
{
	FILE *f;

	if (!have_id) {
		f = fopen("/dev/urandom", "r");
		if (!f || fread(d->hostid, 1, 16, f) != 16)
			memset(d->hostid, 0x5a, 16);
		if (f)
			fclose(f);
		d->hostid[6] = (uint8_t)((d->hostid[6] & 0x0f) | 0x40);
		d->hostid[8] = (uint8_t)((d->hostid[8] & 0x3f) | 0x80);
	}
	if (d->hostnqn[0])
		return;
	f = fopen("/etc/nvme/hostnqn", "r");
	if (f) {
		if (fgets(d->hostnqn, sizeof(d->hostnqn), f))
			d->hostnqn[strcspn(d->hostnqn, "\r\n")] = 0;
		fclose(f);
	}
	if (!d->hostnqn[0]) {
		const uint8_t *u = d->hostid;

		snprintf(d->hostnqn, sizeof(d->hostnqn),
			 "nqn.2014-08.org.nvmexpress:uuid:%02x%02x%02x%02x-"
			 "%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8],
			 u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	}
}

static int parse_params(struct nvt_dev *d, struct mqblk_params *params,
			char *err, size_t errlen)
{
	bool have_id = false, have_discovery = false, have_kato = false;
	unsigned i;

	d->queue_size = NVT_DEFAULT_QUEUE_SIZE;
	d->kato_ms = 5000;
	d->reconnect_delay_ms = 10000; /* the Linux host's defaults */
	d->ctrl_loss_tmo_ms = 600000;
	d->want_queues = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	for (i = 0; i < params->nr; i++) {
		struct mqblk_param *p = &params->v[i];
		uint64_t v;
		int ret = 0;

		if (!strcmp(p->key, "addr")) {
			p->used = true;
			ret = parse_addr(d, p->val, err, errlen);
		} else if (!strcmp(p->key, "nr_io_queues")) {
			ret = mqblk_param_u64(p, 1, 1024, false, &v, err,
					      errlen);
			d->want_queues = (unsigned)v;
		} else if (!strcmp(p->key, "queue_size")) {
			ret = mqblk_param_u64(p, 2, NVT_MAX_QUEUE_SIZE, false,
					      &v, err, errlen);
			d->queue_size = (unsigned)v;
		} else if (!strcmp(p->key, "kato")) {
			ret = mqblk_param_u64(p, 0, 3600, false, &v, err,
					      errlen);
			d->kato_ms = (uint32_t)v * 1000;
			have_kato = true;
		} else if (!strcmp(p->key, "reconnect_delay")) {
			ret = mqblk_param_u64(p, 1, 3600, false, &v, err,
					      errlen);
			d->reconnect_delay_ms = (uint32_t)v * 1000;
		} else if (!strcmp(p->key, "ctrl_loss_tmo")) {
			ret = mqblk_param_u64(p, 0, 86400, false, &v, err,
					      errlen);
			d->ctrl_loss_tmo_ms = (uint32_t)v * 1000;
		} else if (!strcmp(p->key, "nsid")) {
			ret = mqblk_param_u64(p, 1, 0xfffffffe, false, &v, err,
					      errlen);
			d->nsid = (uint32_t)v;
		} else if (!strcmp(p->key, "stall_ms")) {
			ret = mqblk_param_u64(p, 0, 3600000, false, &v, err,
					      errlen);
			d->stall_ms = (uint32_t)v;
		} else if (!strcmp(p->key, "multipath")) {
			ret = mqblk_param_bool(p, &d->multipath, err, errlen);
		} else if (!strcmp(p->key, "discovery")) {
			ret = mqblk_param_bool(p, &d->discovery, err, errlen);
			if (!ret)
				have_discovery = true;
		} else if (!strcmp(p->key, "hdr_digest")) {
			ret = mqblk_param_bool(p, &d->hdgst, err, errlen);
		} else if (!strcmp(p->key, "data_digest")) {
			ret = mqblk_param_bool(p, &d->ddgst, err, errlen);
		} else if (!strcmp(p->key, "hostnqn")) {
			p->used = true;
			if (strlen(p->val) > 223) {
				nvt_err(err, errlen,
					"hostnqn longer than 223 bytes");
				return -EINVAL;
			}
			strcpy(d->hostnqn, p->val);
		} else if (!strcmp(p->key, "hostid")) {
			p->used = true;
			if (parse_uuid(p->val, d->hostid)) {
				nvt_err(err, errlen,
					"bad hostid '%s': expected a UUID",
					p->val);
				return -EINVAL;
			}
			have_id = true;
		}
		if (ret)
			return ret;
	}
	if (!d->subnqn[0]) {
		nvt_err(err, errlen, "nvme-tcp URI: no address");
		return -EINVAL;
	}
	if (!have_discovery)
		d->discovery = !strcmp(d->subnqn, NVME_DISC_SUBSYS_NAME);
	if (d->discovery && !have_kato)
		d->kato_ms = 0; /* as nvme-cli's one-shot discovery */
	default_host(d, have_id);
	return 0;
}

static int ctrl_setup(struct nvt_dev *d, char *err, size_t errlen)
{
	uint8_t *id = NULL;
	union nvme_command cmd;
	uint64_t v, end;
	uint32_t aen;
	unsigned mps;
	int ret;

	ret = prop_get(d, NVME_REG_CAP, true, &d->cap);
	if (ret)
		goto fail_step;
	mps = NVME_CAP_MPSMIN(d->cap);
	/* CC: NVM command set, 4 KiB pages (MPS 0) unless the controller
	 * needs bigger, 64-byte SQEs, 16-byte CQEs, enable */
	ret = prop_set(d, NVME_REG_CC,
		       NVME_CC_ENABLE | mps << 7 | 6u << 16 | 4u << 20);
	if (ret)
		goto fail_step;
	d->enabled = true;
	end = now_ms() + (NVME_CAP_TIMEOUT(d->cap) + 1) * 500ull;
	for (;;) {
		ret = prop_get(d, NVME_REG_CSTS, false, &v);
		if (ret)
			goto fail_step;
		if (v & NVME_CSTS_CFS) {
			nvt_err(err, errlen,
				"nvme-tcp: %s: controller fatal status on "
				"enable",
				d->subnqn);
			return -EIO;
		}
		if (v & NVME_CSTS_RDY)
			break;
		if (now_ms() > end) {
			nvt_err(err, errlen,
				"nvme-tcp: %s: controller not ready in time",
				d->subnqn);
			return -ETIMEDOUT;
		}
		usleep(1000);
	}
	id = aligned_alloc(4096, 4096);
	if (!id)
		return -ENOMEM;
	ret = identify(d, NVME_ID_CNS_CTRL, 0, id);
	if (ret)
		goto fail_step;
	if (id[77]) {
		/* 2^MDTS pages of CAP.MPSMIN; past 4 GiB, no limit we
		 * could reach (a request's length is 32 bits) */
		uint64_t b = (4096ull << mps) << (id[77] < 32 ? id[77] : 32);

		d->mdts_bytes = b > 0x80000000u ? 0x80000000u : (uint32_t)b;
	} else {
		d->mdts_bytes = NVT_NO_MDTS_MAX_BYTES;
	}
	{
		uint32_t ioccsz = nvme_get_le32(id + 1792);

		d->incap_max = ioccsz * 16 > NVME_SQE_SIZE ?
				       ioccsz * 16 - NVME_SQE_SIZE :
				       0;
	}
	d->vwc = id[525] & NVME_CTRL_VWC_PRESENT;
	d->oaes = nvme_get_le32(id + 92);
	if (d->discovery) {
		/* no I/O queues, no namespaces: only admin commands */
		d->granted = 1;
		d->nsze = 0;
		d->lba_shift = 9;
		free(id);
		return 0;
	}

	/* Number of Queues: what the controller grants is what we use */
	memset(&cmd, 0, sizeof(cmd));
	cmd.features.opcode = nvme_admin_set_features;
	cmd.features.fid = cpu_to_le32(NVME_FEAT_NUM_QUEUES);
	cmd.features.dword11 =
		cpu_to_le32((d->want_queues - 1) | (d->want_queues - 1) << 16);
	ret = admin_cmd(d, &cmd, NULL, 0, &v);
	if (ret)
		goto fail_step;
	d->granted = (unsigned)(v & 0xffff) + 1;
	if (((v >> 16) & 0xffff) + 1 < d->granted)
		d->granted = (unsigned)((v >> 16) & 0xffff) + 1;
	if (d->granted > d->want_queues)
		d->granted = d->want_queues;

	/* the namespace: nsid=, else the first active one */
	if (!d->nsid) {
		ret = identify(d, NVME_ID_CNS_NS_ACTIVE_LIST, 0, id);
		if (ret)
			goto fail_step;
		d->nsid = nvme_get_le32(id);
		if (!d->nsid) {
			nvt_err(err, errlen, "nvme-tcp: %s has no namespace",
				d->subnqn);
			free(id);
			return -ENODEV;
		}
	}
	ret = id_ns(d, id, &d->nsze, &d->lba_shift);
	if (ret)
		goto fail_step;
	if (!d->nsze || d->lba_shift < 9 || d->lba_shift > 16) {
		nvt_err(err, errlen,
			"nvme-tcp: %s: namespace %u is not active or has an "
			"unusable format",
			d->subnqn, d->nsid);
		free(id);
		return -ENODEV;
	}
	free(id);
	id = NULL;
	/* namespace changes reported by AER (as the Linux host asks for
	 * them: Asynchronous Event Configuration, then one AER) */
	aen = d->oaes & NVME_CTRL_OAES_NS_ATTR;
	if (d->multipath)
		aen |= d->oaes & NVME_CTRL_OAES_ANA_CHANGE;
	if (aen) {
		memset(&cmd, 0, sizeof(cmd));
		cmd.features.opcode = nvme_admin_set_features;
		cmd.features.fid = cpu_to_le32(NVME_FEAT_ASYNC_EVENT);
		cmd.features.dword11 = cpu_to_le32(aen);
		ret = admin_cmd(d, &cmd, NULL, 0, NULL);
		if (ret == -EIO)
			return 0; /* refused: no events, as the kernel goes on */
		if (!ret)
			ret = aer_send(&d->admin);
		if (ret)
			goto fail_step;
	}
	return 0;
fail_step:
	free(id);
	nvt_err(err, errlen, "nvme-tcp: %s:%s: controller set-up failed: %s",
		d->host, d->port, strerror(-ret));
	return ret;
}

static void admin_shutdown(struct nvt_dev *d)
{
	uint64_t v, end;

	if (d->admin.fd < 0)
		return;
	if (!prop_set(d, NVME_REG_CC,
		      NVME_CC_ENABLE | NVME_CC_SHN_NORMAL << 14 | 6u << 16 |
			      4u << 20)) {
		end = now_ms() + 5000;
		while (!prop_get(d, NVME_REG_CSTS, false, &v) &&
		       (v & NVME_CSTS_SHST_MASK) != NVME_CSTS_SHST_CMPLT &&
		       now_ms() < end)
			usleep(1000);
	}
	close(d->admin.fd);
	d->admin.fd = -1;
}

static void nvt_exit(struct mqblk_dev *dev)
{
	struct nvt_dev *d = mqblk_dev_data(dev);
	uint64_t one = 1;

	if (!d)
		return;
	if (d->ka_running) {
		atomic_store(&d->stop, true);
		if (write(d->ka_efd, &one, sizeof(one)) < 0)
			abort();
		pthread_join(d->ka_thread, NULL);
	}
	if (d->ka_efd >= 0)
		close(d->ka_efd);
	/* a controller that never came up (a refused Connect) gets no more
	 * commands: only what was enabled is shut down */
	if (d->enabled && atomic_load(&d->state) == NVT_LIVE)
		admin_shutdown(d);
	else if (d->admin.fd >= 0)
		close(d->admin.fd);
	pthread_mutex_destroy(&d->admin_lock);
	pthread_mutex_destroy(&d->queues_lock);
	pthread_mutex_destroy(&d->abort_lock);
	free(d->queues);
	free(d);
}

static int nvt_init(struct mqblk_dev *dev, struct mqblk_params *params,
		    struct mqblk_dev_limits *lim, char *err, size_t errlen)
{
	struct nvt_dev *d = calloc(1, sizeof(*d));
	int ret, fd;

	if (!d)
		return -ENOMEM;
	d->admin.fd = -1;
	d->ka_efd = -1;
	pthread_mutex_init(&d->admin_lock, NULL);
	pthread_mutex_init(&d->queues_lock, NULL);
	pthread_mutex_init(&d->abort_lock, NULL);
	d->dev = dev;
	mqblk_dev_set_data(dev, d);
	ret = parse_params(d, params, err, errlen);
	if (ret)
		goto fail;
	fd = tcp_open(d, err, errlen);
	if (fd < 0) {
		ret = fd;
		goto fail;
	}
	d->admin.fd = fd;
	ret = nvt_ic(d, fd, &d->admin.conn, err, errlen);
	if (!ret)
		ret = nvt_connect(d, &d->admin, 0, NVT_ADMIN_DEPTH - 1,
				  &d->cntlid, err, errlen);
	if (!ret)
		ret = ctrl_setup(d, err, errlen);
	if (ret)
		goto fail;
	if (d->queue_size > NVME_CAP_MQES(d->cap) + 1)
		d->queue_size = NVME_CAP_MQES(d->cap) + 1;
	d->queues = calloc(d->granted, sizeof(*d->queues));
	d->ka_efd = eventfd(0, EFD_CLOEXEC);
	if (!d->queues || d->ka_efd < 0 ||
	    pthread_create(&d->ka_thread, NULL, ctrl_main, d)) {
		ret = -ENOMEM;
		goto fail;
	}
	d->ka_running = true;
	lim->capacity = d->nsze << d->lba_shift;
	lim->logical_block_size = 1u << d->lba_shift;
	lim->max_hw_bytes = d->mdts_bytes;
	lim->max_hw_queues = d->granted;
	lim->queue_depth = d->queue_size;
	lim->shared_tags = false;
	lim->cmd_size = sizeof(struct nvt_req);
	lim->default_policy = MQBLK_COMP_LOCAL;
	lim->has_irq = true;
	return 0;
fail:
	nvt_exit(dev);
	mqblk_dev_set_data(dev, NULL);
	return ret;
}

/* ---- I/O queues ---------------------------------------------------------- */

static int nvt_init_hctx(struct mqblk_hctx *hctx, unsigned idx)
{
	struct nvt_dev *d = mqblk_dev_data(mqblk_hctx_dev(hctx));
	struct nvt_queue *q = calloc(1, sizeof(*q));
	struct nvt_sock s;
	char err[256];
	int ret, fd;

	if (!q)
		return -ENOMEM;
	q->d = d;
	q->hctx = hctx;
	q->qid = (uint16_t)(idx + 1);
	q->depth = mqblk_hctx_depth(hctx);
	q->rqs = calloc(q->depth, sizeof(*q->rqs));
	q->rxbuf = malloc(NVT_RXBUF);
	q->fd = -1;
	q->epfd = epoll_create1(EPOLL_CLOEXEC);
	q->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_init(&q->tx_lock, NULL);
	pthread_mutex_init(&q->rx_lock, NULL);
	if (!q->rqs || !q->rxbuf || q->epfd < 0 || q->kick_fd < 0 ||
	    idx >= d->granted) {
		ret = -ENOMEM;
		goto fail;
	}
	if (d->discovery) {
		/* nothing to connect: I/O is refused at queue_rq */
		struct epoll_event ev = { .events = EPOLLIN,
					  .data.fd = q->kick_fd };

		atomic_store(&q->dead, true);
		if (epoll_ctl(q->epfd, EPOLL_CTL_ADD, q->kick_fd, &ev))
			goto fail_errno;
		mqblk_hctx_set_data(hctx, q);
		mqblk_hctx_set_irq_fd(hctx, q->epfd);
		return 0;
	}
	fd = tcp_open(d, err, sizeof(err));
	if (fd < 0) {
		ret = fd;
		goto fail_msg;
	}
	q->fd = fd;
	memset(&s, 0, sizeof(s));
	s.fd = fd;
	ret = nvt_ic(d, fd, &s.conn, err, sizeof(err));
	if (!ret)
		ret = nvt_connect(d, &s, q->qid, (uint16_t)(d->queue_size - 1),
				  &d->cntlid, err, sizeof(err));
	if (ret)
		goto fail_msg;
	q->conn = s.conn;
	q->defer_tx = mqblk_dev_comp_policy(mqblk_hctx_dev(hctx)) ==
		      MQBLK_COMP_POLLED;
	{
		/* the irq fd is an epoll of the socket and the kick, so a
		 * reconnect can change the socket under it */
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

		if (epoll_ctl(q->epfd, EPOLL_CTL_ADD, fd, &ev))
			goto fail_errno;
		ev.data.fd = q->kick_fd;
		if (epoll_ctl(q->epfd, EPOLL_CTL_ADD, q->kick_fd, &ev))
			goto fail_errno;
	}
	mqblk_hctx_set_data(hctx, q);
	mqblk_hctx_set_irq_fd(hctx, q->epfd);
	pthread_mutex_lock(&d->queues_lock);
	d->queues[idx] = q;
	if (idx + 1 > d->nr_queues)
		d->nr_queues = idx + 1;
	pthread_mutex_unlock(&d->queues_lock);
	return 0;
fail_errno:
	ret = -errno;
	goto fail;
fail_msg:
	fprintf(stderr, "mqblk: %s\n", err);
fail:
	if (q->fd >= 0)
		close(q->fd);
	if (q->epfd >= 0)
		close(q->epfd);
	if (q->kick_fd >= 0)
		close(q->kick_fd);
	free(q->rqs);
	free(q->rxbuf);
	pthread_mutex_destroy(&q->tx_lock);
	pthread_mutex_destroy(&q->rx_lock);
	free(q);
	return ret;
}

static void nvt_exit_hctx(struct mqblk_hctx *hctx)
{
	struct nvt_queue *q = mqblk_hctx_data(hctx);

	if (!q)
		return;
	/* The device is closing. A reset that is retrying reconnects holds
	 * queues_lock until it sees stop (a multipath device closes while
	 * one of its paths is still down): tell it now, not in nvt_exit. */
	if (!atomic_exchange(&q->d->stop, true) && q->d->ka_running)
		wake_ctrl(q->d);
	pthread_mutex_lock(&q->d->queues_lock);
	if (!q->d->discovery)
		q->d->queues[q->qid - 1] = NULL;
	pthread_mutex_unlock(&q->d->queues_lock);
	if (q->fd >= 0)
		close(q->fd);
	close(q->epfd);
	close(q->kick_fd);
	free(q->rqs);
	free(q->rxbuf);
	pthread_mutex_destroy(&q->tx_lock);
	pthread_mutex_destroy(&q->rx_lock);
	free(q);
}

/* ---- Transmit ---------------------------------------------------------- */

static void tx_enqueue(struct nvt_queue *q, struct nvt_req *r)
{
	r->tx_next = NULL;
	atomic_store_explicit(&r->queued, true, memory_order_relaxed);
	if (q->tx_tail)
		q->tx_tail->tx_next = r;
	else
		q->tx_head = r;
	q->tx_tail = r;
	atomic_store_explicit(&q->tx_queued, true, memory_order_relaxed);
}

static void *req_data(struct mqblk_rq *rq)
{
	struct nvt_req *r = mqblk_rq_pdu(rq);

	return rq->op == MQBLK_OP_DISCARD ? (void *)r->dsm : rq->buf;
}

static uint32_t req_data_len(struct mqblk_rq *rq)
{
	return rq->op == MQBLK_OP_DISCARD ? 16 : rq->len;
}

/* The next H2CData PDU of r's R2T window into r's iovecs; 0, or -1
 * when it does not fit (it always does: NVT_PDU_HDR_MAX). */
static int h2c_next(struct nvt_queue *q, struct mqblk_rq *rq)
{
	struct nvt_req *r = mqblk_rq_pdu(rq);
	uint32_t left = r->r2t_end - r->r2t_off;
	uint32_t len = left < q->conn.maxh2cdata ? left : q->conn.maxh2cdata;
	uint8_t *data = (uint8_t *)req_data(rq) + r->r2t_off;
	uint8_t flags = len == left ? NVME_TCP_F_DATA_LAST : 0;
	ssize_t pdo;

	pdo = nvme_tcp_build_data(&q->conn, r->h2c_hdr, sizeof(r->h2c_hdr),
				  r->cid, r->ttag, r->r2t_off, NULL, len,
				  flags);
	if (pdo < 0)
		return -1;
	r->iov[0].iov_base = r->h2c_hdr;
	r->iov[0].iov_len = (size_t)pdo;
	r->niov = (uint8_t)(1 + nvme_tcp_data_iov(&q->conn, r->iov + 1, data,
						  len, r->ddgst));
	r->h2c = true;
	r->r2t_off += len;
	return 0;
}

static void conn_fail(struct nvt_queue *q, const char *why);

/* Send what is queued; waits for room rather than leave data behind
 * (the controller always drains its socket). Under tx_lock. */
static void tx_flush(struct nvt_queue *q)
{
	struct iovec iov[64];

	while (q->tx_head && !atomic_load(&q->dead)) {
		struct msghdr mh = { .msg_iov = iov };
		struct nvt_req *r, *again = NULL;
		size_t skip = q->tx_off, done;
		unsigned n = 0;
		ssize_t sent;

		for (r = q->tx_head; r && n + 4 <= 64; r = r->tx_next)
			n += nvme_tcp_iov_append(iov + n, 64 - n, r->iov,
						 r->niov, &skip);
		mh.msg_iovlen = n;
		sent = sendmsg(q->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (sent < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (sock_wait(q->fd, POLLOUT,
					      NVT_IO_TIMEOUT_MS))
					conn_fail(q, "send stalled");
				continue;
			}
			conn_fail(q, strerror(errno));
			return;
		}
		done = q->tx_off + (size_t)sent;
		while (q->tx_head) {
			size_t len = nvme_tcp_iov_len(q->tx_head->iov,
						      q->tx_head->niov);

			if (done < len)
				break;
			done -= len;
			r = q->tx_head;
			q->tx_head = r->tx_next;
			if (!q->tx_head)
				q->tx_tail = NULL;
			if (r->h2c && r->r2t_off < r->r2t_end) {
				/* more H2CData for this R2T: after the rest */
				struct mqblk_rq *rq = (struct mqblk_rq *)r - 1;

				if (h2c_next(q, rq)) {
					conn_fail(q, "H2CData header");
					return;
				}
				r->tx_next = again;
				again = r;
			} else {
				/* this R2T's window is sent: the controller
				 * may ask for more with another R2T. The
				 * kernel has the bytes: the buffer is the
				 * request's again (pairs with the acquire in
				 * tx_holds) */
				r->h2c = false;
				atomic_store_explicit(&r->queued, false,
						      memory_order_release);
			}
		}
		q->tx_off = done;
		while (again) {
			r = again;
			again = r->tx_next;
			tx_enqueue(q, r);
		}
	}
}

/* The command id of rq: its tag, and 4 bits of its incarnation so a late
 * answer to an earlier use of the tag is told apart. Derived, not read
 * from the request, so any thread may compute it. */
static uint16_t req_cid(const struct mqblk_rq *rq)
{
	return (uint16_t)((rq->tag & 0xfff) | (rq->gen & 0xf) << 12);
}

/* The command PDU (and in-capsule data) of rq into its iovecs, from
 * scratch: also what a reconnect resends. 0, or -1 for a request this
 * controller cannot take. */
static int build_req(struct nvt_queue *q, struct mqblk_rq *rq)
{
	struct nvt_dev *d = q->d;
	struct nvt_req *r = mqblk_rq_pdu(rq);
	union nvme_command cmd;
	uint32_t incap = 0;
	ssize_t n;

	memset(&cmd, 0, sizeof(cmd));
	r->cid = req_cid(rq);
	r->h2c = false;
	r->abort_sent = false;
	r->c2h_rcvd = 0;
	r->r2t_off = r->r2t_end = 0;
	cmd.common.command_id = r->cid;
	cmd.common.flags = NVME_CMD_SGL_METABUF;
	cmd.common.nsid = cpu_to_le32(d->nsid);
	cmd.common.dptr.sgl.type = NVME_SGL_TCP_TRANSPORT;
	switch (rq->op) {
	case MQBLK_OP_READ:
	case MQBLK_OP_WRITE:
	case MQBLK_OP_WRITE_ZEROES:
		cmd.rw.opcode = rq->op == MQBLK_OP_READ ? nvme_cmd_read :
				rq->op == MQBLK_OP_WRITE ?
							  nvme_cmd_write :
							  nvme_cmd_write_zeroes;
		cmd.rw.slba = cpu_to_le64(rq->offset >> d->lba_shift);
		cmd.rw.length =
			cpu_to_le16((uint16_t)((rq->len >> d->lba_shift) - 1));
		if (rq->flags & MQBLK_REQ_FUA)
			cmd.rw.control = cpu_to_le16(NVME_RW_FUA);
		if (rq->op != MQBLK_OP_WRITE_ZEROES)
			cmd.common.dptr.sgl.length = cpu_to_le32(rq->len);
		if (rq->op == MQBLK_OP_WRITE && rq->len <= d->incap_max)
			incap = rq->len;
		break;
	case MQBLK_OP_FLUSH:
		cmd.common.opcode = nvme_cmd_flush;
		break;
	case MQBLK_OP_DISCARD:
		cmd.common.opcode = nvme_cmd_dsm;
		cmd.common.cdw11 = cpu_to_le32(1u << 2); /* AD */
		memset(r->dsm, 0, sizeof(r->dsm));
		nvme_put_le32(r->dsm + 4, rq->len >> d->lba_shift);
		nvme_put_le64(r->dsm + 8, rq->offset >> d->lba_shift);
		cmd.common.dptr.sgl.length = cpu_to_le32(16);
		if (d->incap_max >= 16)
			incap = 16;
		break;
	}
	r->incap = incap != 0;
	if (incap) {
		cmd.common.dptr.sgl.type = NVME_SGL_TCP_INCAPSULE;
		cmd.common.dptr.sgl.addr = 0;
	}
	n = nvme_tcp_build_cmd(&q->conn, r->pdu, sizeof(r->pdu), &cmd, NULL,
			       incap);
	if (n < 0)
		return -1;
	r->iov[0].iov_base = r->pdu;
	r->iov[0].iov_len = (size_t)n;
	r->niov = 1;
	if (incap)
		r->niov = (uint8_t)(1 + nvme_tcp_data_iov(&q->conn, r->iov + 1,
							  req_data(rq), incap,
							  r->ddgst));
	return 0;
}

static enum mqblk_status nvt_queue_rq(struct mqblk_hctx *hctx,
				      struct mqblk_rq *rq, bool last)
{
	struct nvt_queue *q = mqblk_hctx_data(hctx);
	struct nvt_dev *d = q->d;
	int state = atomic_load(&d->state);

	if (state == NVT_DEAD) {
		/* the controller is gone for good: a path error, as Linux
		 * fails a command for a controller that will not return */
		req_complete(rq, -EIO, NVME_SC_HOST_PATH_ERROR);
		return MQBLK_STS_OK;
	}
	if (rq->tag >= q->depth || d->discovery)
		return MQBLK_STS_ERROR;
	if (__builtin_expect(rq->len > d->mdts_bytes, 0) &&
	    (rq->op == MQBLK_OP_READ || rq->op == MQBLK_OP_WRITE)) {
		/* the core splits to the MDTS it was given at open: only a
		 * controller that came back from a reset with a smaller one
		 * gets here. Said, and failed as too long, not a bare EIO */
		if (!atomic_exchange(&d->mdts_logged, true))
			fprintf(stderr,
				"mqblk: nvme-tcp: %s:%s: a %u-byte %s is past "
				"the controller's MDTS (%u bytes): failed "
				"(EMSGSIZE)\n",
				d->host, d->port, rq->len,
				rq->op == MQBLK_OP_READ ? "read" : "write",
				d->mdts_bytes);
		req_complete(rq, -EMSGSIZE, 0);
		return MQBLK_STS_OK;
	}
	pthread_mutex_lock(&q->tx_lock);
	if (state != NVT_LIVE || atomic_load(&q->dead)) {
		/* in reset: the core retries it once the kick says so; a
		 * path of a multipath device gives it back at once */
		pthread_mutex_unlock(&q->tx_lock);
		if (d->multipath) {
			req_complete(rq, -EIO, NVME_SC_HOST_PATH_ERROR);
			return MQBLK_STS_OK;
		}
		return MQBLK_STS_BUSY;
	}
	if (build_req(q, rq)) {
		pthread_mutex_unlock(&q->tx_lock);
		return MQBLK_STS_ERROR;
	}
	((struct nvt_req *)mqblk_rq_pdu(rq))->retries = 0;
	if (d->stall_ms)
		((struct nvt_req *)mqblk_rq_pdu(rq))->sent_ns =
			mqblk_clock_ns();
	q->rqs[rq->tag] = rq;
	tx_enqueue(q, mqblk_rq_pdu(rq));
	if (last && !q->defer_tx)
		tx_flush(q);
	pthread_mutex_unlock(&q->tx_lock);
	return MQBLK_STS_OK;
}

static void nvt_commit_rqs(struct mqblk_hctx *hctx)
{
	struct nvt_queue *q = mqblk_hctx_data(hctx);

	pthread_mutex_lock(&q->tx_lock);
	tx_flush(q);
	pthread_mutex_unlock(&q->tx_lock);
}

/* ---- Receive ---------------------------------------------------------------- */

/* The connection is unusable: the controller goes into reset (the
 * control thread reconnects; what is outstanding is held, not failed). */
static void conn_fail(struct nvt_queue *q, const char *why)
{
	struct nvt_dev *d = q->d;
	int live = NVT_LIVE;
	uint64_t one = 1;

	if (atomic_exchange(&q->dead, true))
		return;
	shutdown(q->fd, SHUT_RDWR);
	if (atomic_compare_exchange_strong(&d->state, &live, NVT_RESETTING)) {
		fprintf(stderr,
			"mqblk: nvme-tcp: %s:%s qid %u: %s: resetting the "
			"controller\n",
			d->host, d->port, q->qid, why);
		if (write(d->ka_efd, &one, sizeof(one)) < 0)
			abort();
	}
}

/* The request a PDU's command id names, or NULL (stale or unknown). */
static struct mqblk_rq *cid_rq(struct nvt_queue *q, uint16_t cid)
{
	unsigned tag = cid & 0xfff;
	struct mqblk_rq *rq;

	if (tag >= q->depth)
		return NULL;
	rq = q->rqs[tag];
	if (!rq || ((struct nvt_req *)mqblk_rq_pdu(rq))->cid != cid)
		return NULL;
	return rq;
}

/*
 * The controller ended rq (a CapsuleResp, or C2HData with SUCCESS or a
 * bad digest): 1, or -1 when that cannot be taken. An answer to a command
 * whose capsule or H2CData the host has not all sent yet (it is on the
 * send list) breaks the protocol: the controller cannot have read the
 * command, or asked for the data with an R2T and answers before taking
 * it (the host's H2CData would then name a finished command). Completing
 * it would hand the submitter a buffer the send path still reads (it
 * would put freed or reused memory on the wire), and dropping the rest of
 * a half-sent PDU would break the stream; so, as for any other protocol
 * error, the connection goes (error recovery): the request stays held and
 * is sent again from scratch after the reconnect, or goes back to the
 * multipath layer, once nothing of it can be sent any more. (SPDK's host
 * instead completes such a request only once its send is done as well,
 * nvme_tcp_req_complete_safe; both keep the buffer safe, and only a
 * broken controller sees the difference.)
 */
static int complete_tag(struct nvt_queue *q, struct mqblk_rq *rq,
			uint16_t status)
{
	struct nvt_req *r = mqblk_rq_pdu(rq);

	if (tx_holds(q, r)) {
		char why[80];

		atomic_fetch_add(&q->d->early_rsps, 1);
		snprintf(why, sizeof(why),
			 "command %u answered before the host sent its data",
			 r->cid);
		conn_fail(q, why);
		return -1;
	}
	q->rqs[rq->tag] = NULL;
	status &= 0x7ff;
	req_complete(rq, status ? -EIO : (int)rq->len, status);
	return 1;
}

static int rx_data_done(struct nvt_queue *q, bool ok)
{
	struct mqblk_rq *rq = q->rx_rq;

	q->rx_state = NRX_HDR;
	q->rx_rq = NULL;
	if (!rq)
		return 0;
	if (!ok) {
		/* data digest error: the command failed (transient) */
		return complete_tag(q, rq, NVME_SC_TRANSIENT_TR_ERR);
	}
	((struct nvt_req *)mqblk_rq_pdu(rq))->c2h_rcvd += q->rx_len;
	if (q->rx_success)
		return complete_tag(q, rq, 0);
	return 0;
}

static int rx_header(struct nvt_queue *q, const uint8_t *h)
{
	const struct nvme_tcp_rx_pdu *p = &q->pdu;
	struct mqblk_rq *rq;
	struct nvt_req *r;
	uint16_t cid;
	int ret;

	switch (p->type) {
	case nvme_tcp_rsp: {
		struct nvme_completion cqe;

		memcpy(&cqe, h + 8, sizeof(cqe));
		rq = cid_rq(q, cqe.command_id);
		if (!rq)
			return 0; /* a stale answer: dropped */
		return complete_tag(q, rq, nvme_cqe_status(&cqe));
	}
	case nvme_tcp_c2h_data: {
		uint32_t off = nvme_get_le32(h + 12);
		uint32_t len = nvme_get_le32(h + 16);

		memcpy(&cid, h + 8, 2);
		rq = cid_rq(q, cid);
		if (rq && rq->op != MQBLK_OP_READ) {
			conn_fail(q,
				  "C2HData for a command that reads nothing");
			return -1;
		}
		if (rq) {
			r = mqblk_rq_pdu(rq);
			if (nvme_tcp_check_data_range(off, len, r->c2h_rcvd,
						      rq->len)) {
				conn_fail(q, "C2HData out of range");
				return -1;
			}
		}
		q->rx_rq = rq;
		q->rx_dst = rq ? (uint8_t *)rq->buf + off : NULL;
		q->rx_data = q->rx_dst;
		q->rx_len = len;
		q->rx_success = (p->flags & NVME_TCP_F_DATA_SUCCESS) && rq &&
				off + len == rq->len;
		q->rx_left = p->data_off - p->hdr_len;
		q->rx_state = q->rx_left ? NRX_PAD : NRX_DATA;
		if (!q->rx_left)
			q->rx_left = len;
		return 0;
	}
	case nvme_tcp_r2t: {
		uint32_t off = nvme_get_le32(h + 12);
		uint32_t len = nvme_get_le32(h + 16);

		memcpy(&cid, h + 8, 2);
		rq = cid_rq(q, cid);
		if (!rq ||
		    (rq->op != MQBLK_OP_WRITE && rq->op != MQBLK_OP_DISCARD)) {
			conn_fail(q, "R2T for no write");
			return -1;
		}
		r = mqblk_rq_pdu(rq);
		if (off + (uint64_t)len > req_data_len(rq) || r->h2c ||
		    r->incap) {
			conn_fail(q, r->incap ? "R2T for data sent in-capsule" :
						"R2T out of range");
			return -1;
		}
		if (tx_holds(q, r)) {
			/* its command is not all sent: put on the send list
			 * again, it would be linked in twice */
			conn_fail(q, "R2T for a command not yet sent");
			return -1;
		}
		r->ttag = nvme_get_le16(h + 10);
		r->r2t_off = off;
		r->r2t_end = off + len;
		/* sent at the end of this poll pass, with the H2CData of
		 * every other R2T it finds: one sendmsg */
		pthread_mutex_lock(&q->tx_lock);
		ret = h2c_next(q, rq);
		if (!ret)
			tx_enqueue(q, r);
		pthread_mutex_unlock(&q->tx_lock);
		if (ret) {
			conn_fail(q, "H2CData header");
			return -1;
		}
		q->rx_h2c = true;
		return 0;
	}
	case nvme_tcp_c2h_term:
		conn_fail(q, "the controller terminated the connection "
			     "(C2HTermReq)");
		return -1;
	default:
		conn_fail(q, "unexpected PDU");
		return -1;
	}
}

/* Process what the receive buffer holds; completions counted. */
static int rx_process(struct nvt_queue *q, int *done)
{
	while (!atomic_load(&q->dead)) {
		uint32_t avail = q->rx_end - q->rx_start;
		uint8_t *b = q->rxbuf + q->rx_start;
		uint32_t n;
		int ret;

		switch (q->rx_state) {
		case NRX_HDR:
			if (!avail)
				return 0;
			ret = nvme_tcp_rx_header(&q->conn, b, avail, &q->pdu);
			if (ret == NVME_TCP_RX_MORE)
				return 0;
			if (ret != NVME_TCP_RX_OK) {
				conn_fail(q, "malformed PDU");
				return -1;
			}
			q->rx_start += q->pdu.hdr_len;
			ret = rx_header(q, b);
			if (ret < 0)
				return -1;
			*done += ret;
			break;
		case NRX_PAD:
			n = avail < q->rx_left ? avail : q->rx_left;
			q->rx_start += n;
			q->rx_left -= n;
			if (q->rx_left)
				return 0;
			q->rx_state = NRX_DATA;
			q->rx_left = q->rx_len;
			break;
		case NRX_DATA:
			n = avail < q->rx_left ? avail : q->rx_left;
			if (q->rx_dst) {
				memcpy(q->rx_dst, b, n);
				q->rx_dst += n;
			}
			q->rx_start += n;
			q->rx_left -= n;
			if (q->rx_left)
				return 0;
			if (q->pdu.ddgst) {
				q->rx_state = NRX_DDGST;
				q->rx_left = 4;
				q->rx_dgst_have = 0;
			} else {
				ret = rx_data_done(q, true);
				if (ret < 0)
					return -1;
				*done += ret;
			}
			break;
		case NRX_DDGST:
			n = avail < q->rx_left ? avail : q->rx_left;
			memcpy(q->rx_dgst + q->rx_dgst_have, b, n);
			q->rx_dgst_have += n;
			q->rx_start += n;
			q->rx_left -= n;
			if (q->rx_left)
				return 0;
			ret = rx_data_done(
				q, !q->rx_data || nvme_tcp_ddgst_ok(
							  q->rx_data, q->rx_len,
							  q->rx_dgst));
			if (ret < 0)
				return -1;
			*done += ret;
			break;
		}
	}
	return -1;
}

static int nvt_poll(struct mqblk_hctx *hctx, unsigned budget)
{
	struct nvt_queue *q = mqblk_hctx_data(hctx);
	uint64_t v;
	int done = 0;
	bool h2c;

	(void)budget; /* buffered PDUs are always processed: the socket
		       * would not wake anyone for them again */
	/* only after a kick: a polled queue calls this in a tight loop */
	if (atomic_load_explicit(&q->kicked, memory_order_relaxed) &&
	    atomic_exchange(&q->kicked, false) &&
	    read(q->kick_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		abort();
	if (q->defer_tx &&
	    atomic_load_explicit(&q->tx_queued, memory_order_relaxed)) {
		pthread_mutex_lock(&q->tx_lock);
		atomic_store_explicit(&q->tx_queued, false,
				      memory_order_relaxed);
		tx_flush(q);
		pthread_mutex_unlock(&q->tx_lock);
	}
	pthread_mutex_lock(&q->rx_lock);
	while (!atomic_load(&q->dead)) {
		ssize_t n;

		if (rx_process(q, &done))
			break;
		if (q->rx_start == q->rx_end)
			q->rx_start = q->rx_end = 0;
		if (q->rx_state == NRX_DATA && q->rx_dst &&
		    q->rx_start == q->rx_end && q->rx_left >= 4096) {
			/* a big data section: straight into the buffer */
			n = recv(q->fd, q->rx_dst, q->rx_left, MSG_DONTWAIT);
			if (n > 0) {
				q->rx_dst += n;
				q->rx_left -= (uint32_t)n;
				continue;
			}
		} else {
			if (NVT_RXBUF - q->rx_end < 256) {
				memmove(q->rxbuf, q->rxbuf + q->rx_start,
					q->rx_end - q->rx_start);
				q->rx_end -= q->rx_start;
				q->rx_start = 0;
			}
			n = recv(q->fd, q->rxbuf + q->rx_end,
				 NVT_RXBUF - q->rx_end, MSG_DONTWAIT);
			if (n > 0) {
				q->rx_end += (uint32_t)n;
				continue;
			}
		}
		if (n == 0) {
			conn_fail(q, "connection closed by the controller");
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			conn_fail(q, strerror(errno));
		break;
	}
	h2c = q->rx_h2c;
	q->rx_h2c = false;
	pthread_mutex_unlock(&q->rx_lock);
	if (done && q->d->stall_ms)
		atomic_store_explicit(&q->last_done_ns, mqblk_clock_ns(),
				      memory_order_relaxed);
	if (h2c) {
		pthread_mutex_lock(&q->tx_lock);
		tx_flush(q);
		pthread_mutex_unlock(&q->tx_lock);
	}
	return done;
}

static enum mqblk_timeout_ret nvt_timeout(struct mqblk_rq *rq)
{
	struct nvt_queue *q = mqblk_hctx_data(rq->hctx);
	struct nvt_dev *d = q->d;

	if (atomic_load(&d->state) == NVT_DEAD)
		return MQBLK_EH_RESET_TIMER; /* failed by the control thread */
	/* a command past its time gets an Abort (the control thread sends
	 * it); past its time again, it resets the controller, as the Linux
	 * host does: the request is held and sent again after the reset */
	if (atomic_load(&d->state) == NVT_LIVE) {
		struct nvt_req *r = mqblk_rq_pdu(rq);
		bool listed = false;
		char why[64];

		pthread_mutex_lock(&q->tx_lock);
		if (q->rqs[rq->tag] == rq && !r->abort_sent) {
			pthread_mutex_lock(&d->abort_lock);
			if (d->nr_aborts < NVT_MAX_ABORTS) {
				d->aborts[d->nr_aborts].qid = q->qid;
				d->aborts[d->nr_aborts++].cid = r->cid;
				r->abort_sent = listed = true;
			}
			pthread_mutex_unlock(&d->abort_lock);
		}
		pthread_mutex_unlock(&q->tx_lock);
		if (listed) {
			wake_ctrl(d);
			return MQBLK_EH_RESET_TIMER;
		}
		snprintf(why, sizeof(why), "command %u timed out", req_cid(rq));
		conn_fail(q, why);
	}
	return MQBLK_EH_RESET_TIMER;
}

static int nvt_nvme_admin(struct mqblk_dev *dev, void *sqe, void *data,
			  uint32_t len, bool to_dev, uint32_t *result,
			  uint16_t *status)
{
	struct nvt_dev *d = mqblk_dev_data(dev);
	union nvme_command cmd;
	struct nvme_completion cqe;
	int ret;

	if (to_dev && len > NVT_ADMIN_INLINE)
		return -EINVAL; /* only in-capsule data to the controller */
	memcpy(&cmd, sqe, sizeof(cmd));
	pthread_mutex_lock(&d->admin_lock);
	if (atomic_load(&d->state) != NVT_LIVE || d->admin.fd < 0) {
		pthread_mutex_unlock(&d->admin_lock);
		return -EIO;
	}
	ret = sync_cmd(&d->admin, &cmd, data, len, to_dev, &cqe);
	if (d->admin.aen_ready)
		wake_ctrl(d); /* an event came first: the control thread's */
	pthread_mutex_unlock(&d->admin_lock);
	if (ret)
		return ret;
	if (result)
		*result = le32_to_cpu(cqe.result.u32);
	if (status)
		*status = nvme_cqe_status(&cqe) & 0x7ff;
	return 0;
}

int nvt_ctrl_state(const struct mqblk_dev *dev)
{
	const struct nvt_dev *d = mqblk_dev_data(dev);

	return atomic_load_explicit(&d->state, memory_order_relaxed);
}

int nvt_ctrl_info(const struct mqblk_dev *dev, struct nvt_ctrl_info *ci)
{
	struct nvt_dev *d;

	if (strcmp(mqblk_dev_driver_name(dev), "nvme_tcp"))
		return -EINVAL;
	d = mqblk_dev_data(dev);
	ci->state = atomic_load(&d->state);
	ci->resets = atomic_load(&d->resets);
	ci->ana_gen = atomic_load(&d->ana_gen);
	ci->stalls = atomic_load(&d->stalls);
	ci->early_rsps = atomic_load(&d->early_rsps);
	ci->reconnect_delay_ms = d->reconnect_delay_ms; /* set at init */
	ci->ctrl_loss_tmo_ms = d->ctrl_loss_tmo_ms;
	ci->nsid = d->nsid; /* set at init, never changed */
	return 0;
}

int nvt_ctrl_reset(struct mqblk_dev *dev, const char *why)
{
	struct nvt_dev *d;

	if (strcmp(mqblk_dev_driver_name(dev), "nvme_tcp"))
		return -EINVAL;
	d = mqblk_dev_data(dev);
	atomic_store(&d->reset_now, true);
	if (!admin_fail(d, why))
		atomic_store(&d->reset_now, false); /* one under way already */
	return 0;
}

const struct mqblk_driver_ops mqblk_nvme_tcp_driver = {
	.name = "nvme_tcp",
	.init = nvt_init,
	.exit = nvt_exit,
	.init_hctx = nvt_init_hctx,
	.exit_hctx = nvt_exit_hctx,
	.queue_rq = nvt_queue_rq,
	.commit_rqs = nvt_commit_rqs,
	.poll = nvt_poll,
	.timeout = nvt_timeout,
	.nvme_admin = nvt_nvme_admin,
};
