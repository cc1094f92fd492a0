// SPDX-License-Identifier: MIT
/*
 * The fabrics host's control thread, transport-independent: keep alive
 * every KATO/2 on the admin queue, Asynchronous Events (namespace change:
 * the capacity follows; ANA change: the multipath layer's count), an
 * Abort for each command past its timeout, stall reports, and recovery:
 * a broken connection, a PDU that makes no sense or a command past its
 * timeout twice puts the controller in reset; every connection closes,
 * what is outstanding is held (or handed back to the multipath layer),
 * and the controller is connected again (admin queue, set-up, every I/O
 * queue with its old qid) reconnect_delay seconds later and every
 * reconnect_delay from then on until ctrl_loss_tmo (a reset asked for
 * tries at once, as nvme_reset_ctrl does); then each held request is
 * sent again, once per reset. Past ctrl_loss_tmo everything held fails.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fabrics.h"

static void reset_ctrl(struct nvmf_ctrl *d);

/* Is fd readable right now? */
static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

uint64_t nvmf_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* cqe answers s's outstanding AER: keep it for the control thread. */
bool nvmf_take_aen(struct nvmf_sock *s, const struct nvme_completion *cqe)
{
	if (!s->aer_cid || cqe->command_id != s->aer_cid)
		return false;
	s->aer_cid = 0;
	s->aen_dw0 = le32_to_cpu(cqe->result.u32);
	s->aen_status = nvme_cqe_status(cqe) & 0x7ff;
	s->aen_ready = true;
	return true;
}

/* The admin connection is readable with no command of ours waiting: the
 * only thing the controller may send is the AER's answer. */
static int aer_reap(struct nvmf_ctrl *d)
{
	struct nvmf_sock *s = &d->admin;
	struct nvme_completion cqe;
	int ret = d->ops->sync_recv(s->cn, 0, NULL, 0, &cqe);

	if (ret == -EAGAIN)
		return 0; /* a spurious wake-up: the AER is still out */
	if (ret)
		return ret;
	return nvmf_take_aen(s, &cqe) ? 0 : -EPROTO;
}

void nvmf_wake_ctrl(struct nvmf_ctrl *d)
{
	uint64_t one = 1;

	if (write(d->ka_efd, &one, sizeof(one)) < 0)
		abort();
}

/* The admin connection failed (control thread): reset, unless there is
 * nothing to reset (a one-shot discovery controller has no I/O queues;
 * a persistent one, kept alive, reconnects as an I/O controller does) or
 * a reset is under way. True if this started one. */
bool nvmf_admin_fail(struct nvmf_ctrl *d, const char *why)
{
	int live = NVMF_LIVE;

	if ((d->nr_queues || (d->discovery && d->kato_ms)) &&
	    atomic_compare_exchange_strong(&d->state, &live, NVMF_RESETTING)) {
		fprintf(stderr,
			"mqblk: nvme-%s: %s:%s: %s: resetting the "
			"controller\n",
			d->ops->name, d->host, d->port, why);
		nvmf_wake_ctrl(d);
		return true;
	}
	return false;
}

/* Identify (CNS cns, namespace nsid) into id, 4 KiB. */
int nvmf_identify(struct nvmf_ctrl *d, uint8_t cns, uint32_t nsid, void *id)
{
	union nvme_command cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.identify.opcode = nvme_admin_identify;
	cmd.identify.cns = cns;
	cmd.identify.nsid = cpu_to_le32(nsid);
	return nvmf_admin_cmd(d, &cmd, id, 4096, NULL);
}

/* Identify Namespace d->nsid: its size in blocks and block shift (0
 * and 0 for an inactive namespace). */
int nvmf_id_ns(struct nvmf_ctrl *d, uint8_t *id, uint64_t *nsze,
	       unsigned *shift)
{
	int ret = nvmf_identify(d, NVME_ID_CNS_NS, d->nsid, id);

	if (ret)
		return ret;
	*nsze = nvme_get_le64(id);
	*shift = *nsze ? id[128 + 4 * (id[26] & 0xf) + 2] : 0;
	return 0;
}

/* Our namespace's size as the controller now tells it: the device's
 * capacity follows (the kernel's "detected capacity change"). A
 * namespace that went away or changed its block size takes no I/O. */
void nvmf_ns_revalidate(struct nvmf_ctrl *d, uint64_t nsze, unsigned shift)
{
	uint64_t old = d->nsze << d->lba_shift;

	if (!nsze || shift != d->lba_shift) {
		if (d->nsze)
			fprintf(stderr,
				"mqblk: nvme-%s: %s:%s: namespace %u %s: no "
				"more I/O to it\n",
				d->ops->name, d->host, d->port, d->nsid,
				nsze ? "changed its block size" : "is gone");
		d->nsze = 0;
		mqblk_dev_set_capacity(d->dev, 0);
		return;
	}
	if (nsze == d->nsze)
		return;
	d->nsze = nsze;
	fprintf(stderr,
		"mqblk: nvme-%s: %s:%s: namespace %u: capacity change from "
		"%llu to %llu bytes\n",
		d->ops->name, d->host, d->port, d->nsid,
		(unsigned long long)old, (unsigned long long)(nsze << shift));
	mqblk_dev_set_capacity(d->dev, nsze << shift);
}

/* What the AER reported (admin_lock held): a namespace change clears
 * the Changed Namespace List and re-reads our namespace; anything else
 * is logged. Then the next AER goes out. */
static void aen_handle(struct nvmf_ctrl *d)
{
	struct nvmf_sock *s = &d->admin;
	uint32_t dw0 = s->aen_dw0;
	uint8_t *buf;

	s->aen_ready = false;
	if (s->aen_status) {
		/* aborted at shutdown, or the controller takes no more */
		if (atomic_load(&d->state) == NVMF_LIVE)
			fprintf(stderr,
				"mqblk: nvme-%s: %s:%s: Asynchronous Event "
				"Request failed (status 0x%x): no more "
				"events\n",
				d->ops->name, d->host, d->port, s->aen_status);
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
		if (nvmf_admin_cmd(d, &cmd, buf, 4096, NULL) ||
		    nvmf_id_ns(d, buf, &nsze, &shift)) {
			free(buf);
			nvmf_admin_fail(
				d, "namespace change: re-reading it failed");
			return;
		}
		nvmf_ns_revalidate(d, nsze, shift);
	} else if (NVME_AER_TYPE(dw0) == NVME_AER_TYPE_NOTICE &&
		   NVME_AER_INFO(dw0) == NVME_AER_NOTICE_ANA && d->multipath) {
		/* the multipath layer reads the ANA log (RAE clear, which
		 * re-arms the notice) when it sees the count move */
		atomic_fetch_add(&d->ana_gen, 1);
	} else if (NVME_AER_TYPE(dw0) == NVME_AER_TYPE_NOTICE &&
		   NVME_AER_INFO(dw0) == NVME_AER_NOTICE_DISC_CHANGED &&
		   d->discovery) {
		/* whoever keeps this discovery controller (the multipath
		 * device's paths=discover) re-reads the log, RAE clear,
		 * which re-arms the notice */
		atomic_fetch_add(&d->disc_gen, 1);
	} else {
		fprintf(stderr,
			"mqblk: nvme-%s: %s:%s: asynchronous event 0x%08x "
			"(type %u, info 0x%02x, log page 0x%02x)\n",
			d->ops->name, d->host, d->port, dw0, NVME_AER_TYPE(dw0),
			NVME_AER_INFO(dw0), NVME_AER_LID(dw0));
	}
	free(buf);
	if (nvmf_aer_send(d))
		nvmf_admin_fail(d, "Asynchronous Event Request failed");
}

/* An Abort for each command the timeout handler listed; the command's
 * own answer (aborted or not) still comes on its queue, and a second
 * timeout resets the controller. */
static void aborts_send(struct nvmf_ctrl *d)
{
	unsigned n, i;
	struct {
		uint16_t qid, cid;
	} a[NVMF_MAX_ABORTS];

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
		if (atomic_load(&d->state) == NVMF_LIVE && d->admin.cn)
			ret = nvmf_admin_cmd(d, &cmd, NULL, 0, &res);
		pthread_mutex_unlock(&d->admin_lock);
		if (ret == -EIO && atomic_load(&d->state) != NVMF_LIVE)
			continue; /* the reset takes care of it */
		fprintf(stderr,
			"mqblk: nvme-%s: %s:%s qid %u: command %u timed out: "
			"Abort %s\n",
			d->ops->name, d->host, d->port, a[i].qid, a[i].cid,
			ret == -EIO ? "refused" :
			ret	    ? "not sent" :
			(res & 1)   ? "sent, the controller did not abort it" :
				      "sent, the controller aborted it");
		if (ret && ret != -EIO)
			nvmf_admin_fail(d, "Abort failed");
	}
}

/* Each I/O queue with commands out and no completion for stall_ms: one
 * line per stall, naming the queue and its oldest command. */
static void stall_check(struct nvmf_ctrl *d)
{
	uint64_t now = mqblk_clock_ns(), lim = d->stall_ms * 1000000ull;
	unsigned i, t;

	pthread_mutex_lock(&d->queues_lock);
	for (i = 0; i < d->nr_queues; i++) {
		struct nvmf_queue *q = d->queues[i];
		uint64_t oldest = UINT64_MAX, last;
		uint16_t ocid = 0;
		unsigned n = 0;

		if (!q)
			continue;
		pthread_mutex_lock(&q->rx_lock);
		pthread_mutex_lock(&q->tx_lock);
		for (t = 0; t < q->depth; t++) {
			struct nvmf_req *r;

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
			"mqblk: nvme-%s: %s:%s qid %u: stalled: %u commands "
			"out, no completion for %llu ms; oldest command id %u "
			"(sent %llu ms ago)\n",
			d->ops->name, d->host, d->port, q->qid, n,
			(unsigned long long)((now - last) / 1000000), ocid,
			(unsigned long long)((now - oldest) / 1000000));
	}
	pthread_mutex_unlock(&d->queues_lock);
}

void *nvmf_ctrl_main(void *arg)
{
	struct nvmf_ctrl *d = arg;
	uint64_t next_ka = nvmf_now_ms() + d->kato_ms / 2;

	while (!atomic_load(&d->stop)) {
		struct pollfd p[2] = { { .fd = d->ka_efd, .events = POLLIN },
				       { .fd = -1, .events = POLLIN } };
		uint64_t now = nvmf_now_ms(), v;
		int timeout = -1, admin_fd;

		if (d->kato_ms)
			timeout = next_ka > now ? (int)(next_ka - now) : 0;
		if (d->stall_ms &&
		    (timeout < 0 || (unsigned)timeout > d->stall_ms / 4 + 1))
			timeout = (int)(d->stall_ms / 4 + 1);
		/* the admin socket only speaks when our AER is answered */
		pthread_mutex_lock(&d->admin_lock);
		admin_fd = d->admin.aer_cid && d->admin.cn ?
				   d->ops->conn_fd(d->admin.cn) :
				   -1;
		pthread_mutex_unlock(&d->admin_lock);
		p[1].fd = admin_fd;
		if (poll(p, 2, timeout) > 0 && p[0].revents &&
		    read(d->ka_efd, &v, sizeof(v)) < 0)
			abort();
		if (atomic_load(&d->stop))
			break;
		if (atomic_load(&d->state) == NVMF_RESETTING) {
			reset_ctrl(d);
			next_ka = nvmf_now_ms() + d->kato_ms / 2;
			continue;
		}
		aborts_send(d);
		if (d->stall_ms)
			stall_check(d);
		pthread_mutex_lock(&d->admin_lock);
		if (p[1].revents && d->admin.cn &&
		    d->ops->conn_fd(d->admin.cn) == admin_fd &&
		    d->admin.aer_cid && readable(admin_fd) && aer_reap(d)) {
			d->admin.aer_cid = 0; /* not polled again */
			nvmf_admin_fail(d, "admin connection failed");
		}
		if (d->kato_ms && nvmf_now_ms() >= next_ka &&
		    atomic_load(&d->state) == NVMF_LIVE) {
			union nvme_command cmd;

			memset(&cmd, 0, sizeof(cmd));
			cmd.common.opcode = nvme_admin_keep_alive;
			if (nvmf_admin_cmd(d, &cmd, NULL, 0, NULL) < 0)
				nvmf_admin_fail(d, "keep alive failed");
			next_ka = nvmf_now_ms() + d->kato_ms / 2;
		}
		if (d->admin.aen_ready && atomic_load(&d->state) == NVMF_LIVE)
			aen_handle(d);
		pthread_mutex_unlock(&d->admin_lock);
	}
	return NULL;
}

/* Close q's connection: no poll or send runs while it goes. What was
 * not sent never will be: its requests are held (resent from scratch
 * after the reconnect) or failed, both safe now. */
static void queue_disconnect(struct nvmf_queue *q)
{
	pthread_mutex_lock(&q->rx_lock);
	pthread_mutex_lock(&q->tx_lock);
	atomic_store(&q->dead, true);
	q->d->ops->queue_detach(q);
	pthread_mutex_unlock(&q->tx_lock);
	pthread_mutex_unlock(&q->rx_lock);
}

void nvmf_queue_kick(struct nvmf_queue *q)
{
	uint64_t one = 1;

	atomic_store(&q->kicked, true);
	if (write(q->kick_fd, &one, sizeof(one)) < 0)
		abort();
}

/* Complete every request outstanding on d's queues with -EIO and status
 * (their connections are closed: no answer can come for them any more). */
static void complete_outstanding(struct nvmf_ctrl *d, uint16_t status)
{
	unsigned i, t;

	for (i = 0; i < d->nr_queues; i++) {
		struct nvmf_queue *q = d->queues[i];

		if (!q)
			continue;
		pthread_mutex_lock(&q->rx_lock);
		pthread_mutex_lock(&q->tx_lock);
		for (t = 0; t < q->depth; t++) {
			struct mqblk_rq *rq = q->rqs[t];

			if (rq) {
				q->rqs[t] = NULL;
				nvmf_req_complete(rq, -EIO, status);
			}
		}
		pthread_mutex_unlock(&q->tx_lock);
		pthread_mutex_unlock(&q->rx_lock);
		nvmf_queue_kick(q);
	}
}

/* Past ctrl_loss_tmo: what is held fails, and so will new I/O. */
static void fail_held(struct nvmf_ctrl *d)
{
	atomic_store(&d->state, NVMF_DEAD);
	complete_outstanding(d, NVME_SC_HOST_PATH_ERROR);
}

/* A path of a multipath device holds nothing across a reset: what was
 * outstanding goes back to the multipath layer at once with Host Aborted
 * Command, a path error it sends again on another path (the kernel's
 * nvme_cancel_request then nvme_failover_req). The connections are
 * closed (queue_disconnect), so no answer can come for them any more. */
static void fail_over_held(struct nvmf_ctrl *d)
{
	complete_outstanding(d, NVME_SC_HOST_ABORTED_CMD);
}

/* One reconnect attempt: admin queue, set-up, every I/O queue. */
static int reconnect_once(struct nvmf_ctrl *d, char *err, size_t errlen)
{
	const struct nvmf_transport_ops *ops = d->ops;
	uint64_t nsze = d->nsze;
	unsigned lba_shift = d->lba_shift, want = d->want_queues, i;
	int ret = 0;
	struct nvmf_conn **cns =
		calloc(d->nr_queues ? d->nr_queues : 1, sizeof(*cns));

	if (!cns)
		return -ENOMEM;
	pthread_mutex_lock(&d->admin_lock);
	if (d->admin.cn)
		ops->conn_close(d->admin.cn);
	d->admin.aer_cid = 0; /* it went with the connection */
	d->admin.aen_ready = false;
	d->admin.cn = ops->conn_open(d, 0, err, errlen, &ret);
	if (d->admin.cn)
		ret = nvmf_connect(d, &d->admin, 0, NVMF_ADMIN_DEPTH - 1,
				   &d->cntlid, err, errlen);
	if (!ret) {
		/* the same namespace, and queues for every hw queue */
		d->want_queues = d->nr_queues ? d->nr_queues : 1;
		ret = nvmf_ctrl_setup(d, err, errlen);
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
		nvmf_ns_revalidate(d, now_nsze, d->lba_shift);
	}
	pthread_mutex_unlock(&d->admin_lock);
	for (i = 0; !ret && !d->discovery && i < d->nr_queues; i++) {
		struct nvmf_sock s;

		if (!d->queues[i])
			continue; /* its hw queue is gone (or not yet made) */
		memset(&s, 0, sizeof(s));
		s.cn = ops->conn_open(d, (uint16_t)(i + 1), err, errlen, &ret);
		if (!s.cn)
			break;
		cns[i] = s.cn;
		ret = nvmf_connect(d, &s, (uint16_t)(i + 1),
				   (uint16_t)(d->queue_size - 1), &d->cntlid,
				   err, errlen);
	}
	if (ret) {
		for (i = 0; i < d->nr_queues; i++)
			if (cns[i])
				ops->conn_close(cns[i]);
		free(cns);
		return ret;
	}
	/* swap the connections in and send what was held, once */
	for (i = 0; !d->discovery && i < d->nr_queues; i++) {
		struct nvmf_queue *q = d->queues[i];
		unsigned t;

		if (!q)
			continue;
		pthread_mutex_lock(&q->rx_lock);
		pthread_mutex_lock(&q->tx_lock);
		if (ops->queue_attach(q, cns[i])) {
			/* stays dead: the next reset tries again */
			pthread_mutex_unlock(&q->tx_lock);
			pthread_mutex_unlock(&q->rx_lock);
			continue;
		}
		atomic_store(&q->dead, false);
		for (t = 0; t < q->depth; t++) {
			struct mqblk_rq *rq = q->rqs[t];
			struct nvmf_req *r;

			if (!rq)
				continue;
			r = mqblk_rq_pdu(rq);
			if (++r->retries > NVMF_MAX_RETRIES ||
			    ops->queue_rq(q, rq)) {
				/* sent too often: it fails, as in Linux */
				q->rqs[t] = NULL;
				nvmf_req_complete(rq, -EIO,
						  NVME_SC_HOST_ABORTED_CMD);
			}
		}
		ops->flush(q);
		pthread_mutex_unlock(&q->tx_lock);
		pthread_mutex_unlock(&q->rx_lock);
	}
	free(cns);
	return 0;
}

/* The control thread waits ms, or less if the device is closing (other
 * wake-ups, e.g. another queue's failure, do not end the wait). */
static void ctrl_sleep(struct nvmf_ctrl *d, uint32_t ms)
{
	uint64_t end = nvmf_now_ms() + ms;
	struct pollfd p = { .fd = d->ka_efd, .events = POLLIN };
	uint64_t t, v;

	while (!atomic_load(&d->stop) && (t = nvmf_now_ms()) < end)
		if (poll(&p, 1, (int)(end - t)) > 0 &&
		    read(d->ka_efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			abort();
}

static void reset_ctrl(struct nvmf_ctrl *d)
{
	uint64_t start = nvmf_now_ms();
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

		fprintf(stderr, "mqblk: nvme-%s: %s:%s: reconnecting in %u s\n",
			d->ops->name, d->host, d->port, ms / 1000);
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
			atomic_store(&d->state, NVMF_LIVE);
			fprintf(stderr,
				"mqblk: nvme-%s: %s:%s: reconnected after "
				"%.1f s (attempt %u)\n",
				d->ops->name, d->host, d->port,
				(double)(nvmf_now_ms() - start) / 1000,
				attempt);
			for (i = 0; i < d->nr_queues; i++) {
				struct nvmf_queue *q = d->queues[i];
				int live = NVMF_LIVE;

				if (!q)
					continue;
				/* a connection that failed before LIVE
				 * could not start a reset: start it now */
				if (atomic_load(&q->dead) &&
				    atomic_compare_exchange_strong(
					    &d->state, &live, NVMF_RESETTING)) {
					fprintf(stderr,
						"mqblk: nvme-%s: %s:%s qid "
						"%u: failed while reconnecting: "
						"resetting the controller\n",
						d->ops->name, d->host, d->port,
						q->qid);
					nvmf_wake_ctrl(d);
				}
				nvmf_queue_kick(q);
			}
			break;
		}
		if (nvmf_now_ms() - start >= d->ctrl_loss_tmo_ms) {
			fprintf(stderr,
				"mqblk: nvme-%s: %s:%s: no controller after "
				"ctrl_loss_tmo (%u s): failing I/O (%s)\n",
				d->ops->name, d->host, d->port,
				d->ctrl_loss_tmo_ms / 1000, err);
			fail_held(d);
			break;
		}
		fprintf(stderr,
			"mqblk: nvme-%s: %s:%s: reconnect failed (%s); "
			"retrying in %u s\n",
			d->ops->name, d->host, d->port, err,
			d->reconnect_delay_ms / 1000);
		ctrl_sleep(d, d->reconnect_delay_ms);
	}
	pthread_mutex_unlock(&d->queues_lock);
}
