// SPDX-License-Identifier: MIT
/*
 * The NVMe-oF host's fabrics core: a remote namespace as an mqblk device,
 * whatever the transport (nvme-tcp://, and every transport after it),
 * the userspace counterpart of Linux's drivers/nvme/host/fabrics.c and
 * core.c.
 *
 * init() sets the controller up on the admin queue with synchronous
 * commands (Connect, CAP, CC.EN, CSTS.RDY, Identify, Number of Queues,
 * the namespace); each hardware queue of the core is one I/O queue, one
 * transport connection (init_hctx), whose fd is the hardware queue's
 * interrupt (an epoll of it and a kick). The core keeps every request
 * outstanding on a queue by tag, completes it only when its transport no
 * longer holds its buffer, and hands the transport what to send
 * (queue_rq, flush) and when to receive (poll). Keep-alive, events,
 * aborts and recovery are the control thread's (ctrl.c).
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fabrics.h"
#include "host.h"

void nvmf_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* ---- Synchronous commands (set-up, the admin queue) ------------------- */

/*
 * One command, synchronously, on a set-up or admin connection: data to
 * the controller in-capsule (Connect, and nothing else here is larger
 * than a capsule), data from it into buf. Returns 0 and the CQE, or
 * -errno for a transport failure. An AER answer that comes first is kept
 * (nvmf_take_aen).
 */
int nvmf_sync_cmd(struct nvmf_ctrl *d, struct nvmf_sock *s,
		  union nvme_command *cmd, void *buf, uint32_t len,
		  bool to_ctrl, struct nvme_completion *cqe)
{
	int ret;

	if (!s->cn)
		return -ENOTCONN;
	s->cid = (uint16_t)(s->cid % 0x7fff + 1);
	cmd->common.command_id = s->cid;
	ret = d->ops->sync_send(s->cn, cmd, buf, len, to_ctrl);
	if (ret)
		return ret;
	for (;;) {
		ret = d->ops->sync_recv(s->cn, cmd->common.command_id, buf,
					to_ctrl ? 0 : len, cqe);
		if (ret)
			return ret;
		if (nvmf_take_aen(s, cqe))
			continue;
		if (cqe->command_id != cmd->common.command_id)
			return -EPROTO;
		return 0;
	}
}

/* An Asynchronous Event Request on the admin queue (answered whenever
 * the controller has an event: nvmf_take_aen). */
int nvmf_aer_send(struct nvmf_ctrl *d)
{
	struct nvmf_sock *s = &d->admin;
	union nvme_command cmd;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	cmd.common.opcode = nvme_admin_async_event;
	cmd.common.command_id = NVMF_AER_CID;
	ret = d->ops->sync_send(s->cn, &cmd, NULL, 0, false);
	if (!ret) {
		s->aer_cid = NVMF_AER_CID;
		s->aen_ready = false;
	}
	return ret;
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

/* One Authentication Send (msg, len bytes) or Receive (into msg, up to
 * NVME_AUTH_MAX_MSG): 0, -errno, or -EPROTO for a status. */
static int auth_cmd(struct nvmf_ctrl *d, struct nvmf_sock *s, bool send,
		    void *msg, uint32_t len)
{
	union nvme_command cmd;
	struct nvmf_auth_command *a = (struct nvmf_auth_command *)&cmd;
	struct nvme_completion cqe;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	a->opcode = nvme_fabrics_command;
	a->fctype = send ? nvme_fabrics_type_auth_send :
			   nvme_fabrics_type_auth_receive;
	a->secp = NVME_AUTH_SECP;
	a->spsp0 = NVME_AUTH_SPSP0;
	a->spsp1 = NVME_AUTH_SPSP1;
	a->tl_al = cpu_to_le32(len);
	if (!send)
		memset(msg, 0, len);
	ret = nvmf_sync_cmd(d, s, &cmd, msg, len, send, &cqe);
	if (ret)
		return ret;
	return (nvme_cqe_status(&cqe) & 0x7ff) ? -EPROTO : 0;
}

/*
 * DH-HMAC-CHAP on queue qid after its Connect asked for it (AUTHREQ):
 * Negotiate, Challenge, Reply, Success1 (and Success2 when we check the
 * controller too). 0, or -EACCES with the reason in err.
 */
static int nvmf_authenticate(struct nvmf_ctrl *d, struct nvmf_sock *s,
			     uint16_t qid, char *err, size_t errlen)
{
	struct nvme_auth_cfg cfg = {
		.hostnqn = d->hostnqn,
		.subnqn = d->subnqn,
		.host_key = &d->dhchap_key,
		.ctrl_key = &d->dhchap_ctrl_key,
	};
	struct nvme_auth_exch x;
	uint8_t *out = malloc(NVME_AUTH_MAX_MSG),
		*in = malloc(NVME_AUTH_MAX_MSG);
	const char *step = "Negotiate";
	size_t olen = 0;
	int ret;

	nvme_auth_exch_init(&x, &cfg);
	if (!out || !in) {
		ret = -ENOMEM;
		goto out;
	}
	ret = nvme_auth_host_start(&x, (uint16_t)(qid + 1), out,
				   NVME_AUTH_MAX_MSG, &olen);
	if (!ret)
		ret = auth_cmd(d, s, true, out, (uint32_t)olen);
	if (!ret)
		ret = auth_cmd(d, s, false, in, NVME_AUTH_MAX_MSG);
	if (ret)
		goto out;
	step = "Reply";
	ret = nvme_auth_host_step_challenge(&x, in, NVME_AUTH_MAX_MSG, out,
					    NVME_AUTH_MAX_MSG, &olen);
	if (ret)
		goto out;
	ret = auth_cmd(d, s, true, out, (uint32_t)olen);
	if (!ret)
		ret = auth_cmd(d, s, false, in, NVME_AUTH_MAX_MSG);
	if (ret)
		goto out;
	step = "Success1";
	ret = nvme_auth_host_step_success1(&x, in, NVME_AUTH_MAX_MSG, out,
					   NVME_AUTH_MAX_MSG, &olen);
	if (!ret && olen) {
		step = "Success2";
		ret = auth_cmd(d, s, true, out, (uint32_t)olen);
	}
out:
	if (ret > 0) {
		/* ours goes in Failure2; the controller's came in Failure1 */
		if (olen && !x.peer_failed)
			auth_cmd(d, s, true, out, (uint32_t)olen);
		nvmf_err(err, errlen,
			 "nvme-%s: %s:%s: DH-HMAC-CHAP (qid %u) failed: %s "
			 "(%s)",
			 d->ops->name, d->host, d->port, qid,
			 nvme_auth_failure_str((uint8_t)ret),
			 x.peer_failed ?
				 "AUTH_Failure1 from the controller" :
				 "this host refused the controller's message");
		ret = -EACCES;
	} else if (ret) {
		nvmf_err(err, errlen,
			 "nvme-%s: %s:%s: DH-HMAC-CHAP (qid %u) at %s: %s",
			 d->ops->name, d->host, d->port, qid, step,
			 ret == -EPROTO ? "the controller refused the command" :
					  strerror(-ret));
		ret = -EACCES;
	}
	nvme_auth_exch_clear(&x);
	free(out);
	free(in);
	return ret;
}

int nvmf_connect(struct nvmf_ctrl *d, struct nvmf_sock *s, uint16_t qid,
		 uint16_t sqsize, uint16_t *cntlid, char *err, size_t errlen)
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
	ret = nvmf_sync_cmd(d, s, &cmd, &data, sizeof(data), true, &cqe);
	if (ret) {
		nvmf_err(err, errlen, "nvme-%s: %s:%s: Connect (qid %u): %s",
			 d->ops->name, d->host, d->port, qid, strerror(-ret));
		return ret;
	}
	st = nvme_cqe_status(&cqe) & 0x7ff;
	if (st) {
		nvmf_err(err, errlen,
			 "nvme-%s: %s:%s: Connect to %s (qid %u) refused: "
			 "status 0x%x%s",
			 d->ops->name, d->host, d->port, d->subnqn, qid, st,
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
	if (le32_to_cpu(cqe.result.u32) & NVME_CONNECT_AUTHREQ_ATR) {
		if (!d->dhchap_key.len) {
			nvmf_err(err, errlen,
				 "nvme-%s: %s:%s: %s requires DH-HMAC-CHAP "
				 "authentication (qid %u): give "
				 "dhchap_secret=",
				 d->ops->name, d->host, d->port, d->subnqn,
				 qid);
			return -EACCES;
		}
		return nvmf_authenticate(d, s, qid, err, errlen);
	}
	return 0;
}

int nvmf_admin_cmd(struct nvmf_ctrl *d, union nvme_command *cmd, void *buf,
		   uint32_t len, uint64_t *result)
{
	struct nvme_completion cqe;
	int ret;

	ret = nvmf_sync_cmd(d, &d->admin, cmd, buf, len, false, &cqe);
	if (ret)
		return ret;
	if (result)
		*result = le64_to_cpu(cqe.result.u64);
	return (nvme_cqe_status(&cqe) & 0x7ff) ? -EIO : 0;
}

static int prop_get(struct nvmf_ctrl *d, uint32_t off, bool wide, uint64_t *v)
{
	union nvme_command cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.prop_get.opcode = nvme_fabrics_command;
	cmd.prop_get.fctype = nvme_fabrics_type_property_get;
	cmd.prop_get.attrib = wide ? NVMF_PROP_ATTR_8BYTE : 0;
	cmd.prop_get.offset = cpu_to_le32(off);
	return nvmf_admin_cmd(d, &cmd, NULL, 0, v);
}

static int prop_set(struct nvmf_ctrl *d, uint32_t off, uint32_t v)
{
	union nvme_command cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.prop_set.opcode = nvme_fabrics_command;
	cmd.prop_set.fctype = nvme_fabrics_type_property_set;
	cmd.prop_set.offset = cpu_to_le32(off);
	cmd.prop_set.value = cpu_to_le64(v);
	return nvmf_admin_cmd(d, &cmd, NULL, 0, NULL);
}

/* Asynchronous Event Configuration for the notices in aen, then one AER
 * (as the Linux host asks for them). A controller that refuses the
 * configuration sends no events: 0, as the kernel goes on. */
static int aen_enable(struct nvmf_ctrl *d, uint32_t aen)
{
	union nvme_command cmd;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	cmd.features.opcode = nvme_admin_set_features;
	cmd.features.fid = cpu_to_le32(NVME_FEAT_ASYNC_EVENT);
	cmd.features.dword11 = cpu_to_le32(aen);
	ret = nvmf_admin_cmd(d, &cmd, NULL, 0, NULL);
	if (ret == -EIO)
		return 0;
	return ret ? ret : nvmf_aer_send(d);
}

int nvmf_ctrl_setup(struct nvmf_ctrl *d, char *err, size_t errlen)
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
	end = nvmf_now_ms() + (NVME_CAP_TIMEOUT(d->cap) + 1) * 500ull;
	for (;;) {
		ret = prop_get(d, NVME_REG_CSTS, false, &v);
		if (ret)
			goto fail_step;
		if (v & NVME_CSTS_CFS) {
			nvmf_err(err, errlen,
				 "nvme-%s: %s: controller fatal status on "
				 "enable",
				 d->ops->name, d->subnqn);
			return -EIO;
		}
		if (v & NVME_CSTS_RDY)
			break;
		if (nvmf_now_ms() > end) {
			nvmf_err(err, errlen,
				 "nvme-%s: %s: controller not ready in time",
				 d->ops->name, d->subnqn);
			return -ETIMEDOUT;
		}
		usleep(1000);
	}
	id = aligned_alloc(4096, 4096);
	if (!id)
		return -ENOMEM;
	ret = nvmf_identify(d, NVME_ID_CNS_CTRL, 0, id);
	if (ret)
		goto fail_step;
	if (id[77]) {
		/* 2^MDTS pages of CAP.MPSMIN; past 4 GiB, no limit we
		 * could reach (a request's length is 32 bits) */
		uint64_t b = (4096ull << mps) << (id[77] < 32 ? id[77] : 32);

		d->mdts_bytes = b > 0x80000000u ? 0x80000000u : (uint32_t)b;
	} else {
		d->mdts_bytes = NVMF_NO_MDTS_MAX_BYTES;
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
		id = NULL; /* fail_step frees it */
		/* a persistent discovery controller (kept alive) asks for
		 * Discovery Log Page Change notices, as the kernel's does
		 * (nvme_enable_aen); a one-shot one reads the log and goes */
		if (!d->kato_ms || !(d->oaes & NVME_CTRL_OAES_DISC_CHANGE))
			return 0;
		ret = aen_enable(d, NVME_CTRL_OAES_DISC_CHANGE);
		if (ret)
			goto fail_step;
		return 0;
	}

	/* Number of Queues: what the controller grants is what we use */
	memset(&cmd, 0, sizeof(cmd));
	cmd.features.opcode = nvme_admin_set_features;
	cmd.features.fid = cpu_to_le32(NVME_FEAT_NUM_QUEUES);
	cmd.features.dword11 =
		cpu_to_le32((d->want_queues - 1) | (d->want_queues - 1) << 16);
	ret = nvmf_admin_cmd(d, &cmd, NULL, 0, &v);
	if (ret)
		goto fail_step;
	d->granted = (unsigned)(v & 0xffff) + 1;
	if (((v >> 16) & 0xffff) + 1 < d->granted)
		d->granted = (unsigned)((v >> 16) & 0xffff) + 1;
	if (d->granted > d->want_queues)
		d->granted = d->want_queues;

	/* the namespace: nsid=, else the first active one */
	if (!d->nsid) {
		ret = nvmf_identify(d, NVME_ID_CNS_NS_ACTIVE_LIST, 0, id);
		if (ret)
			goto fail_step;
		d->nsid = nvme_get_le32(id);
		if (!d->nsid) {
			nvmf_err(err, errlen, "nvme-%s: %s has no namespace",
				 d->ops->name, d->subnqn);
			free(id);
			return -ENODEV;
		}
	}
	ret = nvmf_id_ns(d, id, &d->nsze, &d->lba_shift);
	if (ret)
		goto fail_step;
	if (!d->nsze || d->lba_shift < 9 || d->lba_shift > 16) {
		nvmf_err(err, errlen,
			 "nvme-%s: %s: namespace %u is not active or has an "
			 "unusable format",
			 d->ops->name, d->subnqn, d->nsid);
		free(id);
		return -ENODEV;
	}
	free(id);
	id = NULL;
	/* namespace changes reported by AER */
	aen = d->oaes & NVME_CTRL_OAES_NS_ATTR;
	if (d->multipath)
		aen |= d->oaes & NVME_CTRL_OAES_ANA_CHANGE;
	if (aen) {
		ret = aen_enable(d, aen);
		if (ret)
			goto fail_step;
	}
	return 0;
fail_step:
	free(id);
	nvmf_err(err, errlen, "nvme-%s: %s:%s: controller set-up failed: %s",
		 d->ops->name, d->host, d->port, strerror(-ret));
	return ret;
}

static void admin_shutdown(struct nvmf_ctrl *d)
{
	uint64_t v, end;

	if (!d->admin.cn)
		return;
	if (!prop_set(d, NVME_REG_CC,
		      NVME_CC_ENABLE | NVME_CC_SHN_NORMAL << 14 | 6u << 16 |
			      4u << 20)) {
		end = nvmf_now_ms() + 5000;
		while (!prop_get(d, NVME_REG_CSTS, false, &v) &&
		       (v & NVME_CSTS_SHST_MASK) != NVME_CSTS_SHST_CMPLT &&
		       nvmf_now_ms() < end)
			usleep(1000);
	}
	d->ops->conn_close(d->admin.cn);
	d->admin.cn = NULL;
}

void nvmf_exit(struct mqblk_dev *dev)
{
	struct nvmf_ctrl *d = mqblk_dev_data(dev);
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
	if (d->enabled && atomic_load(&d->state) == NVMF_LIVE)
		admin_shutdown(d);
	else if (d->admin.cn)
		d->ops->conn_close(d->admin.cn);
	pthread_mutex_destroy(&d->admin_lock);
	pthread_mutex_destroy(&d->queues_lock);
	pthread_mutex_destroy(&d->abort_lock);
	free(d->queues);
	if (d->ops->ctrl_free)
		d->ops->ctrl_free(d);
	nvme_auth_key_clear(&d->dhchap_key);
	nvme_auth_key_clear(&d->dhchap_ctrl_key);
	free(d);
}

int nvmf_init(struct mqblk_dev *dev, struct mqblk_params *params,
	      struct mqblk_dev_limits *lim, char *err, size_t errlen,
	      const struct nvmf_transport_ops *ops)
{
	struct nvmf_ctrl *d = calloc(1, sizeof(*d));
	int ret;

	if (!d)
		return -ENOMEM;
	d->ops = ops;
	d->ka_efd = -1;
	pthread_mutex_init(&d->admin_lock, NULL);
	pthread_mutex_init(&d->queues_lock, NULL);
	pthread_mutex_init(&d->abort_lock, NULL);
	d->dev = dev;
	mqblk_dev_set_data(dev, d);
	ret = ops->ctrl_init ? ops->ctrl_init(d) : 0;
	if (!ret)
		ret = nvmf_parse_params(d, params, err, errlen);
	if (ret)
		goto fail;
	d->admin.cn = ops->conn_open(d, 0, err, errlen, &ret);
	if (d->admin.cn)
		ret = nvmf_connect(d, &d->admin, 0, NVMF_ADMIN_DEPTH - 1,
				   &d->cntlid, err, errlen);
	if (!ret)
		ret = nvmf_ctrl_setup(d, err, errlen);
	if (ret)
		goto fail;
	if (d->queue_size > NVME_CAP_MQES(d->cap) + 1)
		d->queue_size = NVME_CAP_MQES(d->cap) + 1;
	d->queues = calloc(d->granted, sizeof(*d->queues));
	d->ka_efd = eventfd(0, EFD_CLOEXEC);
	if (!d->queues || d->ka_efd < 0 ||
	    pthread_create(&d->ka_thread, NULL, nvmf_ctrl_main, d)) {
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
	lim->cmd_size = sizeof(struct nvmf_req) + ops->req_size;
	lim->default_policy = MQBLK_COMP_LOCAL;
	lim->has_irq = true;
	return 0;
fail:
	nvmf_exit(dev);
	mqblk_dev_set_data(dev, NULL);
	return ret;
}

int nvmf_init_hctx(struct mqblk_hctx *hctx, unsigned idx)
{
	struct nvmf_ctrl *d = mqblk_dev_data(mqblk_hctx_dev(hctx));
	const struct nvmf_transport_ops *ops = d->ops;
	struct nvmf_queue *q = calloc(1, ops->queue_size);
	struct epoll_event ev = { .events = EPOLLIN };
	struct nvmf_sock s;
	bool tr_made = false;
	char err[256];
	int ret;

	if (!q)
		return -ENOMEM;
	q->d = d;
	q->hctx = hctx;
	q->qid = (uint16_t)(idx + 1);
	q->depth = mqblk_hctx_depth(hctx);
	q->rqs = calloc(q->depth, sizeof(*q->rqs));
	q->epfd = epoll_create1(EPOLL_CLOEXEC);
	q->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_init(&q->tx_lock, NULL);
	pthread_mutex_init(&q->rx_lock, NULL);
	if (!q->rqs || q->epfd < 0 || q->kick_fd < 0 || idx >= d->granted) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = ops->queue_init(q);
	if (ret)
		goto fail;
	tr_made = true;
	/* the irq fd is an epoll of the connection and the kick, so a
	 * reconnect can change the connection under it */
	ev.data.fd = q->kick_fd;
	if (epoll_ctl(q->epfd, EPOLL_CTL_ADD, q->kick_fd, &ev))
		goto fail_errno;
	if (d->discovery) {
		/* nothing to connect: I/O is refused at queue_rq */
		atomic_store(&q->dead, true);
		mqblk_hctx_set_data(hctx, q);
		mqblk_hctx_set_irq_fd(hctx, q->epfd);
		return 0;
	}
	memset(&s, 0, sizeof(s));
	s.cn = ops->conn_open(d, q->qid, err, sizeof(err), &ret);
	if (!s.cn)
		goto fail_msg;
	ret = nvmf_connect(d, &s, q->qid, (uint16_t)(d->queue_size - 1),
			   &d->cntlid, err, sizeof(err));
	if (ret) {
		ops->conn_close(s.cn);
		goto fail_msg;
	}
	q->defer_tx = mqblk_dev_comp_policy(mqblk_hctx_dev(hctx)) ==
		      MQBLK_COMP_POLLED;
	ret = ops->queue_attach(q, s.cn);
	if (ret)
		goto fail;
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
	if (tr_made) {
		ops->queue_detach(q);
		ops->queue_free(q);
	}
	if (q->epfd >= 0)
		close(q->epfd);
	if (q->kick_fd >= 0)
		close(q->kick_fd);
	free(q->rqs);
	pthread_mutex_destroy(&q->tx_lock);
	pthread_mutex_destroy(&q->rx_lock);
	free(q);
	return ret;
}

void nvmf_exit_hctx(struct mqblk_hctx *hctx)
{
	struct nvmf_queue *q = mqblk_hctx_data(hctx);

	if (!q)
		return;
	/* The device is closing. A reset that is retrying reconnects holds
	 * queues_lock until it sees stop (a multipath device closes while
	 * one of its paths is still down): tell it now, not in nvmf_exit. */
	if (!atomic_exchange(&q->d->stop, true) && q->d->ka_running)
		nvmf_wake_ctrl(q->d);
	pthread_mutex_lock(&q->d->queues_lock);
	if (!q->d->discovery)
		q->d->queues[q->qid - 1] = NULL;
	pthread_mutex_unlock(&q->d->queues_lock);
	q->d->ops->queue_detach(q);
	q->d->ops->queue_free(q);
	close(q->epfd);
	close(q->kick_fd);
	free(q->rqs);
	pthread_mutex_destroy(&q->tx_lock);
	pthread_mutex_destroy(&q->rx_lock);
	free(q);
}

/* The command id of rq: its tag, and 4 bits of its incarnation so a late
 * answer to an earlier use of the tag is told apart. Derived, not read
 * from the request, so any thread may compute it. */
uint16_t nvmf_req_cid(const struct mqblk_rq *rq)
{
	return (uint16_t)((rq->tag & 0xfff) | (rq->gen & 0xf) << 12);
}

/* The request a PDU's command id names, or NULL (stale or unknown). */
struct mqblk_rq *nvmf_cid_rq(struct nvmf_queue *q, uint16_t cid)
{
	unsigned tag = cid & 0xfff;
	struct mqblk_rq *rq;

	if (tag >= q->depth)
		return NULL;
	rq = q->rqs[tag];
	if (!rq || ((struct nvmf_req *)mqblk_rq_pdu(rq))->cid != cid)
		return NULL;
	return rq;
}

/*
 * Whether the send path still holds r (some of its PDUs unsent). Clear is
 * final for the receive path: only it (R2T) or a new use of the tag sets
 * it again. Set may be a sender between its sendmsg and its bookkeeping
 * (it holds tx_lock throughout): then ask again under the lock, where
 * set means not handed to the kernel. Receive path, no lock held.
 */
bool nvmf_tx_holds(struct nvmf_queue *q, struct nvmf_req *r)
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
void nvmf_req_complete(struct mqblk_rq *rq, int res, uint16_t status)
{
	struct nvmf_req *r = mqblk_rq_pdu(rq);

	assert(!atomic_load_explicit(&r->queued, memory_order_acquire));
	(void)r;
	mqblk_complete_rq(rq, res, status);
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
int nvmf_complete_tag(struct nvmf_queue *q, struct mqblk_rq *rq,
		      uint16_t status)
{
	struct nvmf_req *r = mqblk_rq_pdu(rq);

	if (nvmf_tx_holds(q, r)) {
		char why[80];

		atomic_fetch_add(&q->d->early_rsps, 1);
		snprintf(why, sizeof(why),
			 "command %u answered before the host sent its data",
			 r->cid);
		nvmf_conn_fail(q, why);
		return -1;
	}
	q->rqs[rq->tag] = NULL;
	status &= 0x7ff;
	nvmf_req_complete(rq, status ? -EIO : (int)rq->len, status);
	return 1;
}

/* The connection is unusable: the controller goes into reset (the
 * control thread reconnects; what is outstanding is held, not failed). */
void nvmf_conn_fail(struct nvmf_queue *q, const char *why)
{
	struct nvmf_ctrl *d = q->d;
	int live = NVMF_LIVE;
	uint64_t one = 1;

	if (atomic_exchange(&q->dead, true))
		return;
	d->ops->queue_kill(q);
	if (atomic_compare_exchange_strong(&d->state, &live, NVMF_RESETTING)) {
		fprintf(stderr,
			"mqblk: nvme-%s: %s:%s qid %u: %s: resetting the "
			"controller\n",
			d->ops->name, d->host, d->port, q->qid, why);
		if (write(d->ka_efd, &one, sizeof(one)) < 0)
			abort();
	}
}

enum mqblk_status nvmf_queue_rq(struct mqblk_hctx *hctx, struct mqblk_rq *rq,
				bool last)
{
	struct nvmf_queue *q = mqblk_hctx_data(hctx);
	struct nvmf_ctrl *d = q->d;
	int state = atomic_load(&d->state);

	if (state == NVMF_DEAD) {
		/* the controller is gone for good: a path error, as Linux
		 * fails a command for a controller that will not return */
		nvmf_req_complete(rq, -EIO, NVME_SC_HOST_PATH_ERROR);
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
				"mqblk: nvme-%s: %s:%s: a %u-byte %s is past "
				"the controller's MDTS (%u bytes): failed "
				"(EMSGSIZE)\n",
				d->ops->name, d->host, d->port, rq->len,
				rq->op == MQBLK_OP_READ ? "read" : "write",
				d->mdts_bytes);
		nvmf_req_complete(rq, -EMSGSIZE, 0);
		return MQBLK_STS_OK;
	}
	pthread_mutex_lock(&q->tx_lock);
	if (state != NVMF_LIVE || atomic_load(&q->dead)) {
		/* in reset: the core retries it once the kick says so; a
		 * path of a multipath device gives it back at once */
		pthread_mutex_unlock(&q->tx_lock);
		if (d->multipath) {
			nvmf_req_complete(rq, -EIO, NVME_SC_HOST_PATH_ERROR);
			return MQBLK_STS_OK;
		}
		return MQBLK_STS_BUSY;
	}
	if (d->ops->queue_rq(q, rq)) {
		pthread_mutex_unlock(&q->tx_lock);
		return MQBLK_STS_ERROR;
	}
	((struct nvmf_req *)mqblk_rq_pdu(rq))->retries = 0;
	if (d->stall_ms)
		((struct nvmf_req *)mqblk_rq_pdu(rq))->sent_ns =
			mqblk_clock_ns();
	q->rqs[rq->tag] = rq;
	if (last && !q->defer_tx)
		d->ops->flush(q);
	pthread_mutex_unlock(&q->tx_lock);
	return MQBLK_STS_OK;
}

void nvmf_commit_rqs(struct mqblk_hctx *hctx)
{
	struct nvmf_queue *q = mqblk_hctx_data(hctx);

	pthread_mutex_lock(&q->tx_lock);
	q->d->ops->flush(q);
	pthread_mutex_unlock(&q->tx_lock);
}

int nvmf_poll(struct mqblk_hctx *hctx, unsigned budget)
{
	struct nvmf_queue *q = mqblk_hctx_data(hctx);
	const struct nvmf_transport_ops *ops = q->d->ops;
	uint64_t v;
	int done;

	(void)budget; /* buffered PDUs are always processed: the connection
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
		ops->flush(q);
		pthread_mutex_unlock(&q->tx_lock);
	}
	pthread_mutex_lock(&q->rx_lock);
	done = ops->poll(q);
	pthread_mutex_unlock(&q->rx_lock);
	if (done && q->d->stall_ms)
		atomic_store_explicit(&q->last_done_ns, mqblk_clock_ns(),
				      memory_order_relaxed);
	return done;
}

bool nvmf_fail_held(struct mqblk_hctx *hctx, int res, unsigned *nr)
{
	struct nvmf_queue *q = mqblk_hctx_data(hctx);
	unsigned t;

	*nr = 0;
	if (!q || !atomic_load(&q->dead))
		return false;
	/* the locks reconnect_once takes to send the held requests again:
	 * each is either sent on the new connection or failed here */
	pthread_mutex_lock(&q->rx_lock);
	pthread_mutex_lock(&q->tx_lock);
	if (!atomic_load(&q->dead)) {
		pthread_mutex_unlock(&q->tx_lock);
		pthread_mutex_unlock(&q->rx_lock);
		return false; /* reconnected meanwhile */
	}
	for (t = 0; t < q->depth; t++) {
		struct mqblk_rq *rq = q->rqs[t];

		if (!rq)
			continue;
		q->rqs[t] = NULL;
		nvmf_req_complete(rq, res, NVME_SC_HOST_ABORTED_CMD);
		(*nr)++;
	}
	pthread_mutex_unlock(&q->tx_lock);
	pthread_mutex_unlock(&q->rx_lock);
	if (*nr)
		fprintf(stderr,
			"mqblk: nvme-%s: %s:%s qid %u: %u request%s held for "
			"the reconnect failed (%s)\n",
			q->d->ops->name, q->d->host, q->d->port, q->qid, *nr,
			*nr == 1 ? "" : "s", strerror(-res));
	return true;
}

enum mqblk_timeout_ret nvmf_timeout(struct mqblk_rq *rq)
{
	struct nvmf_queue *q = mqblk_hctx_data(rq->hctx);
	struct nvmf_ctrl *d = q->d;

	if (atomic_load(&d->state) == NVMF_DEAD)
		return MQBLK_EH_RESET_TIMER; /* failed by the control thread */
	/* a command past its time gets an Abort (the control thread sends
	 * it); past its time again, it resets the controller, as the Linux
	 * host does: the request is held and sent again after the reset */
	if (atomic_load(&d->state) == NVMF_LIVE) {
		struct nvmf_req *r = mqblk_rq_pdu(rq);
		bool listed = false;
		char why[64];

		pthread_mutex_lock(&q->tx_lock);
		if (q->rqs[rq->tag] == rq && !r->abort_sent) {
			pthread_mutex_lock(&d->abort_lock);
			if (d->nr_aborts < NVMF_MAX_ABORTS) {
				d->aborts[d->nr_aborts].qid = q->qid;
				d->aborts[d->nr_aborts++].cid = r->cid;
				r->abort_sent = listed = true;
			}
			pthread_mutex_unlock(&d->abort_lock);
		}
		pthread_mutex_unlock(&q->tx_lock);
		if (listed) {
			nvmf_wake_ctrl(d);
			return MQBLK_EH_RESET_TIMER;
		}
		snprintf(why, sizeof(why), "command %u timed out",
			 nvmf_req_cid(rq));
		nvmf_conn_fail(q, why);
	}
	return MQBLK_EH_RESET_TIMER;
}

int nvmf_nvme_admin(struct mqblk_dev *dev, void *sqe, void *data, uint32_t len,
		    bool to_dev, uint32_t *result, uint16_t *status)
{
	struct nvmf_ctrl *d = mqblk_dev_data(dev);
	union nvme_command cmd;
	struct nvme_completion cqe;
	int ret;

	if (to_dev && len > NVMF_ADMIN_INLINE)
		return -EINVAL; /* only in-capsule data to the controller */
	memcpy(&cmd, sqe, sizeof(cmd));
	pthread_mutex_lock(&d->admin_lock);
	if (atomic_load(&d->state) != NVMF_LIVE || !d->admin.cn) {
		pthread_mutex_unlock(&d->admin_lock);
		return -EIO;
	}
	ret = nvmf_sync_cmd(d, &d->admin, &cmd, data, len, to_dev, &cqe);
	if (d->admin.aen_ready)
		nvmf_wake_ctrl(
			d); /* an event came first: the control thread's */
	pthread_mutex_unlock(&d->admin_lock);
	if (ret)
		return ret;
	if (result)
		*result = le32_to_cpu(cqe.result.u32);
	if (status)
		*status = nvme_cqe_status(&cqe) & 0x7ff;
	return 0;
}

int nvmf_ctrl_state(const struct mqblk_dev *dev)
{
	const struct nvmf_ctrl *d = mqblk_dev_data(dev);

	return atomic_load_explicit(&d->state, memory_order_relaxed);
}

int nvmf_ctrl_info(const struct mqblk_dev *dev, struct nvmf_ctrl_info *ci)
{
	struct nvmf_ctrl *d;

	if (!nvmf_is_ctrl(dev))
		return -EINVAL;
	d = mqblk_dev_data(dev);
	ci->state = atomic_load(&d->state);
	ci->resets = atomic_load(&d->resets);
	ci->ana_gen = atomic_load(&d->ana_gen);
	ci->disc_gen = atomic_load(&d->disc_gen);
	ci->stalls = atomic_load(&d->stalls);
	ci->early_rsps = atomic_load(&d->early_rsps);
	ci->reconnect_delay_ms = d->reconnect_delay_ms; /* set at init */
	ci->ctrl_loss_tmo_ms = d->ctrl_loss_tmo_ms;
	ci->nsid = d->nsid; /* set at init, never changed */
	return 0;
}

int nvmf_ctrl_reset(struct mqblk_dev *dev, const char *why)
{
	struct nvmf_ctrl *d;

	if (!nvmf_is_ctrl(dev))
		return -EINVAL;
	d = mqblk_dev_data(dev);
	atomic_store(&d->reset_now, true);
	if (!nvmf_admin_fail(d, why))
		atomic_store(&d->reset_now, false); /* one under way already */
	return 0;
}
