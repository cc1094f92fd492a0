// SPDX-License-Identifier: MIT
/*
 * The target's NVMe/RDMA transport: its ports (RDMA CM listeners), the
 * connect requests they take or refuse, and its queues' set-up and
 * teardown. What the commands do is the fabrics core's; how capsules,
 * data and responses move is rdma_io.c's.
 *
 * A port's fd is its RDMA CM event channel's, watched by reactor 0. A
 * CONNECT_REQUEST's private data is checked (nvme_rdma_cm_req_check:
 * refused with the binding's status otherwise, counted on the port),
 * then the new cm_id moves to an event channel of its own and is handed
 * to the next reactor. There the queue gets its completion channel, CQ
 * and QP, posts a receive for every command the host may send, and
 * accepts; from then on the queue's CM events, completion events and
 * moderation timer are three fds in that reactor's epoll, all standing
 * for the queue.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "rdma_queue.h"

static const struct tgt_transport_ops rdma_ops;

/* ---- Devices: one protection domain each, shared by every queue -------- */

struct rdma_dev {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct rdma_dev *next;
};

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rdma_dev *devs;

static struct rdma_dev *dev_get(struct ibv_context *verbs)
{
	struct rdma_dev *d;

	pthread_mutex_lock(&dev_lock);
	for (d = devs; d; d = d->next)
		if (d->verbs == verbs)
			goto out;
	d = calloc(1, sizeof(*d));
	if (!d)
		goto out;
	d->verbs = verbs;
	d->pd = ibv_alloc_pd(verbs);
	if (!d->pd || ibv_query_device(verbs, &d->attr)) {
		tgt_log("rdma device %s: cannot set up a protection domain",
			ibv_get_device_name(verbs->device));
		if (d->pd)
			ibv_dealloc_pd(d->pd);
		free(d);
		d = NULL;
		goto out;
	}
	d->next = devs;
	devs = d;
out:
	pthread_mutex_unlock(&dev_lock);
	return d;
}

/* Once nothing uses them (no port, no queue, the reactors' registrations
 * gone): a domain still in use stays. */
static void devs_put_all(void)
{
	struct rdma_dev **dp = &devs, *d;

	pthread_mutex_lock(&dev_lock);
	while ((d = *dp)) {
		if (ibv_dealloc_pd(d->pd)) {
			dp = &d->next;
			continue;
		}
		*dp = d->next;
		free(d);
	}
	pthread_mutex_unlock(&dev_lock);
}

/* ---- Ports ---------------------------------------------------------------- */

struct rdma_listener {
	struct tgt_port *p;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
};

static pthread_mutex_t port_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rdma_listener *listeners;
static unsigned nr_listeners, cap_listeners;
static _Atomic unsigned nr_live_queues;

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int rdma_port_open(struct tgt_port *p)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
					      AI_PASSIVE };
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;
	struct addrinfo *ai;
	int ret, err;

	hints.ai_family = p->adrfam == NVMF_ADDR_FAMILY_IP6 ? AF_INET6 :
							      AF_INET;
	ret = getaddrinfo(p->traddr, p->trsvcid, &hints, &ai);
	if (ret) {
		tgt_log("port %u: bad address rdma:%s:%s: %s", p->portid,
			p->traddr, p->trsvcid, gai_strerror(ret));
		errno = EINVAL;
		return -1;
	}
	ch = rdma_create_event_channel();
	if (!ch) {
		err = errno;
		tgt_log("cannot listen on rdma:%s:%s: no RDMA CM event "
			"channel: %s (is rdma_ucm loaded and an RDMA device "
			"up?)",
			p->traddr, p->trsvcid, strerror(err));
		freeaddrinfo(ai);
		errno = err;
		return -1;
	}
	if (set_nonblock(ch->fd) || rdma_create_id(ch, &id, p, RDMA_PS_TCP) ||
	    rdma_bind_addr(id, ai->ai_addr) || rdma_listen(id, 128)) {
		err = errno;
		tgt_log("cannot listen on rdma:%s:%s: %s (no RDMA device on "
			"that address?)",
			p->traddr, p->trsvcid, strerror(err));
		goto fail;
	}
	pthread_mutex_lock(&port_lock);
	if (nr_listeners == cap_listeners) {
		unsigned cap = cap_listeners ? 2 * cap_listeners : 4;
		struct rdma_listener *n = realloc(listeners, cap * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&port_lock);
			err = ENOMEM;
			goto fail;
		}
		listeners = n;
		cap_listeners = cap;
	}
	listeners[nr_listeners].p = p;
	listeners[nr_listeners].ch = ch;
	listeners[nr_listeners].id = id;
	nr_listeners++;
	pthread_mutex_unlock(&port_lock);
	freeaddrinfo(ai);
	return ch->fd;
fail:
	if (id)
		rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	freeaddrinfo(ai);
	errno = err;
	return -1;
}

static struct rdma_event_channel *listener_channel(struct tgt_port *p)
{
	struct rdma_event_channel *ch = NULL;
	unsigned i;

	pthread_mutex_lock(&port_lock);
	for (i = 0; i < nr_listeners; i++)
		if (listeners[i].p == p)
			ch = listeners[i].ch;
	pthread_mutex_unlock(&port_lock);
	return ch;
}

static void rdma_port_close(struct tgt_port *p, int fd)
{
	unsigned i;
	bool last;

	(void)fd;
	pthread_mutex_lock(&port_lock);
	for (i = 0; i < nr_listeners; i++) {
		if (listeners[i].p != p)
			continue;
		rdma_destroy_id(listeners[i].id);
		rdma_destroy_event_channel(listeners[i].ch);
		listeners[i] = listeners[--nr_listeners];
		break;
	}
	last = !nr_listeners;
	if (last) {
		free(listeners);
		listeners = NULL;
		cap_listeners = 0;
	}
	pthread_mutex_unlock(&port_lock);
	if (last && !atomic_load(&nr_live_queues))
		devs_put_all();
}

static void reject(struct rdma_cm_id *id, uint16_t status)
{
	struct nvme_rdma_cm_rej rej;

	nvme_rdma_cm_rej_fill(&rej, status);
	rdma_reject(id, &rej, sizeof(rej));
}

static void peer_name(struct rdma_cm_id *id, char *buf, size_t len)
{
	struct sockaddr *sa = rdma_get_peer_addr(id);
	char host[48] = "?";
	unsigned port = 0;

	if (sa && sa->sa_family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &s->sin_addr, host, sizeof(host));
		port = ntohs(s->sin_port);
	} else if (sa && sa->sa_family == AF_INET6) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof(host));
		port = ntohs(s->sin6_port);
	}
	snprintf(buf, len, "%s:%u", host, port);
}

/* A connect request (ev, acked here): refused, or handed to a reactor. */
static void connect_request(struct tgt_port *p, struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	struct nvme_rdma_conn_params prm;
	struct rdma_conn *c = NULL;
	char peer[64];
	uint16_t max = p->max_queue_size > UINT16_MAX ?
			       UINT16_MAX :
			       (uint16_t)p->max_queue_size;
	uint16_t status;

	status = nvme_rdma_cm_req_check(ev->param.conn.private_data,
					ev->param.conn.private_data_len,
					TGT_MAX_IO_QUEUES, max, &prm);
	if (!status) {
		c = calloc(1, sizeof(*c));
		if (!c)
			status = NVME_RDMA_CM_NO_RSC;
	}
	if (status) {
		peer_name(id, peer, sizeof(peer));
		tgt_log("port %u: connect from %s refused: %s", p->portid, peer,
			nvme_rdma_cm_msg(status));
		atomic_fetch_add(&p->rejects, 1);
		reject(id, status);
		rdma_ack_cm_event(ev);
		rdma_destroy_id(id);
		return;
	}
	c->id = id;
	c->prm = prm;
	/* from our side already: what the host lets us read at once */
	c->initiator_depth = ev->param.conn.initiator_depth;
	c->responder_resources = ev->param.conn.responder_resources;
	rdma_ack_cm_event(ev);
	c->ch = rdma_create_event_channel();
	if (!c->ch || set_nonblock(c->ch->fd) || rdma_migrate_id(id, c->ch)) {
		tgt_log("port %u: cannot give a connection its own event "
			"channel: %s",
			p->portid, strerror(errno));
		atomic_fetch_add(&p->rejects, 1);
		reject(id, NVME_RDMA_CM_NO_RSC);
		rdma_destroy_id(id);
		if (c->ch)
			rdma_destroy_event_channel(c->ch);
		free(c);
		return;
	}
	tgt_reactor_hand_over((intptr_t)c, p);
}

static void rdma_port_accept(struct tgt_port *p)
{
	struct rdma_event_channel *ch;
	struct rdma_cm_event *ev;

	if (p->listen_fd < 0)
		return;
	ch = listener_channel(p);
	if (!ch)
		return;
	while (!rdma_get_cm_event(ch, &ev)) {
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			connect_request(p, ev);
			continue;
		}
		tgt_log("port %u (rdma:%s:%s): %s", p->portid, p->traddr,
			p->trsvcid, rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
	}
}

static void conn_free(struct rdma_conn *c, bool rej)
{
	if (rej)
		reject(c->id, NVME_RDMA_CM_NO_RSC);
	rdma_destroy_id(c->id);
	rdma_destroy_event_channel(c->ch);
	free(c);
}

static void rdma_conn_drop(intptr_t conn)
{
	conn_free((struct rdma_conn *)conn, true);
}

/* ---- Queue life ------------------------------------------------------------ */

static void epoll_del(struct rdma_queue *q)
{
	int epfd = q->sq.r->epfd;

	epoll_ctl(epfd, EPOLL_CTL_DEL, q->cm_ch->fd, NULL);
	if (q->comp_ch)
		epoll_ctl(epfd, EPOLL_CTL_DEL, q->comp_ch->fd, NULL);
	if (q->timer_fd >= 0)
		epoll_ctl(epfd, EPOLL_CTL_DEL, q->timer_fd, NULL);
}

/* What queue_create made, undone (the QP first: nothing moves after). */
static void queue_free(struct rdma_queue *q)
{
	unsigned i;

	if (q->id->qp)
		rdma_destroy_qp(q->id);
	if (q->cq) {
		q->sq.closing = true;
		rdma_cq_salvage(q);
		if (q->unacked_events)
			ibv_ack_cq_events(q->cq, q->unacked_events);
		ibv_destroy_cq(q->cq);
	}
	if (q->comp_ch)
		ibv_destroy_comp_channel(q->comp_ch);
	for (i = 0; i < q->nr_cmds; i++)
		tgt_req_release_buf(&q->cmds[i].req);
	if (q->recv_mr)
		ibv_dereg_mr(q->recv_mr);
	if (q->cmd_mr)
		ibv_dereg_mr(q->cmd_mr);
	if (q->timer_fd >= 0)
		close(q->timer_fd);
	free(q->recv_bufs);
	free(q->recvs);
	tgt_queue_release(&q->sq);
	free(q->cmds);
	rdma_destroy_id(q->id);
	rdma_destroy_event_channel(q->cm_ch);
	atomic_fetch_sub(&nr_live_queues, 1);
	free(q);
}

static int watch(struct rdma_queue *q, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &q->sq };

	return epoll_ctl(q->sq.r->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Slots, receives, CQ and QP for the connection's queue size. */
static int queue_setup(struct rdma_queue *q)
{
	const struct tgt *t = q->sq.t;
	struct ibv_qp_init_attr qa;
	unsigned i, every, nr_wr;
	size_t size;

	q->nr_recvs = q->prm.sq_entries;
	q->incap_max = q->prm.qid ? q->sq.port->inline_data :
				    TGT_ADMIN_INLINE_DATA;
	q->capsule_size = (uint32_t)sizeof(union nvme_command) + q->incap_max;
	/* Selective signalling keeps up to every - 1 answered slots until
	 * a later signalled SEND completes: that many slots more than the
	 * host may fill, so a capsule always finds one soon. */
	every = t->rdma_signal_every > 1 ? t->rdma_signal_every : 1;
	if (every > q->nr_recvs)
		every = q->nr_recvs;
	q->signal_every = every;
	q->nr_cmds = q->prm.sq_entries + every;
	q->cmds = calloc(q->nr_cmds, sizeof(*q->cmds));
	if (!q->cmds)
		return -ENOMEM;
	for (i = q->nr_cmds; i-- > 0;) {
		q->cmds[i].req.q = &q->sq;
		q->cmds[i].next = q->free_cmds;
		q->free_cmds = &q->cmds[i];
	}
	q->sq.reqs = &q->cmds[0].req;
	q->sq.req_stride = sizeof(struct rdma_cmd);
	q->sq.nr_reqs = q->nr_cmds;

	q->cmd_mr =
		ibv_reg_mr(q->pd, q->cmds, q->nr_cmds * sizeof(*q->cmds), 0);
	if (!q->cmd_mr)
		return -errno;
	if (t->rdma_srq) {
		/* the reactor's receives, shared by its queues */
		q->srq = rdma_reactor_srq(q);
		if (!q->srq)
			return -ENOMEM;
	} else {
		q->recvs = calloc(q->nr_recvs, sizeof(*q->recvs));
		size = ((size_t)q->nr_recvs * q->capsule_size + 4095) &
		       ~(size_t)4095;
		q->recv_bufs = aligned_alloc(4096, size);
		if (!q->recvs || !q->recv_bufs)
			return -ENOMEM;
		q->recv_mr = ibv_reg_mr(q->pd, q->recv_bufs, size,
					IBV_ACCESS_LOCAL_WRITE);
		if (!q->recv_mr)
			return -errno;
	}

	/* a command posts at most two work requests (READ, or WRITE and
	 * SEND); its completions and each receive's fit the CQ */
	nr_wr = 2 * q->nr_cmds + 1;
	if (!t->busy_poll) {
		q->comp_ch = ibv_create_comp_channel(q->id->verbs);
		if (!q->comp_ch || set_nonblock(q->comp_ch->fd))
			return -errno;
	}
	q->cq = ibv_create_cq(q->id->verbs, (int)(nr_wr + q->nr_recvs), q,
			      q->comp_ch, 0);
	if (!q->cq)
		return -errno;
	if (t->rdma_cqm_count && !t->busy_poll) {
		struct ibv_modify_cq_attr ma = {
			.attr_mask = IBV_CQ_ATTR_MODERATE,
			.moderate = { .cq_count = (uint16_t)t->rdma_cqm_count,
				      .cq_period =
					      (uint16_t)t->rdma_cqm_usecs },
		};

		/* the device's own, or ours (soft-RoCE has none) */
		q->hw_moderation = !ibv_modify_cq(q->cq, &ma);
		if (!q->hw_moderation) {
			q->timer_fd = timerfd_create(
				CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
			if (q->timer_fd < 0)
				return -errno;
		}
	}

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = q->cq;
	qa.recv_cq = q->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 0;
	qa.cap.max_send_wr = nr_wr;
	qa.cap.max_recv_wr = q->srq ? 0 : q->nr_recvs;
	qa.srq = q->srq;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = sizeof(struct nvme_completion);
	if (rdma_create_qp(q->id, q->pd, &qa)) {
		/* a device without inline sends: responses by lkey */
		qa.cap.max_inline_data = 0;
		if (rdma_create_qp(q->id, q->pd, &qa))
			return -errno;
	}
	q->inline_rsp = qa.cap.max_inline_data >=
			sizeof(struct nvme_completion);

	for (i = 0; !q->srq && i < q->nr_recvs; i++) {
		struct rdma_recv *rv = &q->recvs[i];

		rv->buf = q->recv_bufs + (size_t)i * q->capsule_size;
		rv->sge.addr = (uintptr_t)rv->buf;
		rv->sge.length = q->capsule_size;
		rv->sge.lkey = q->recv_mr->lkey;
		rv->wr.wr_id = (uintptr_t)rv | RDMA_WR_RECV;
		rv->wr.sg_list = &rv->sge;
		rv->wr.num_sge = 1;
		if (rdma_post_recv(q, rv))
			return -EIO;
	}
	if (watch(q, q->cm_ch->fd) ||
	    (q->comp_ch && watch(q, q->comp_ch->fd)) ||
	    (q->timer_fd >= 0 && watch(q, q->timer_fd)))
		return -errno;
	if (q->comp_ch)
		rdma_cq_arm(q);
	return 0;
}

static struct tgt_queue *rdma_queue_create(struct tgt_reactor *r, intptr_t conn,
					   struct tgt_port *port)
{
	struct rdma_conn *c = (struct rdma_conn *)conn;
	struct rdma_queue *q = calloc(1, sizeof(*q));
	struct rdma_conn_param cp;
	struct nvme_rdma_cm_rep rep;
	struct rdma_dev *dev;
	int ret;

	dev = q ? dev_get(c->id->verbs) : NULL;
	if (!dev) {
		free(q);
		atomic_fetch_add(&port->rejects, 1);
		conn_free(c, true);
		return NULL;
	}
	atomic_fetch_add(&nr_live_queues, 1);
	tgt_queue_init(&q->sq, &rdma_ops, r, port);
	q->id = c->id;
	q->cm_ch = c->ch;
	q->prm = c->prm;
	q->pd = dev->pd;
	q->timer_fd = -1;
	q->id->context = q;
	peer_name(q->id, q->sq.peer, sizeof(q->sq.peer));
	ret = queue_setup(q);
	if (ret) {
		tgt_log("connect from %s (qid %u, %u entries): cannot set up "
			"the queue: %s",
			q->sq.peer, q->prm.qid, q->prm.sq_entries,
			strerror(-ret));
		goto fail;
	}
	memset(&cp, 0, sizeof(cp));
	nvme_rdma_cm_rep_fill(&rep, q->prm.sq_entries);
	cp.private_data = &rep;
	cp.private_data_len = sizeof(rep);
	/* we RDMA READ the host's data: as many at once as both allow */
	cp.initiator_depth = c->initiator_depth;
	if (cp.initiator_depth > dev->attr.max_qp_init_rd_atom)
		cp.initiator_depth = (uint8_t)dev->attr.max_qp_init_rd_atom;
	cp.responder_resources = c->responder_resources;
	if (cp.responder_resources > dev->attr.max_qp_rd_atom)
		cp.responder_resources = (uint8_t)dev->attr.max_qp_rd_atom;
	cp.flow_control = 1;
	cp.srq = q->srq != NULL;
	cp.rnr_retry_count = 7; /* the host retries until a receive is up */
	if (rdma_accept(q->id, &cp)) {
		ret = -errno;
		tgt_log("connect from %s (qid %u): accept failed: %s",
			q->sq.peer, q->prm.qid, strerror(-ret));
		goto fail;
	}
	free(c);
	if (q->sq.t->verbose)
		tgt_log("rdma queue from %s: qid %u, %u entries, %u slots, "
			"in-capsule %u, %s, moderation %s",
			q->sq.peer, q->prm.qid, q->prm.sq_entries, q->nr_cmds,
			q->incap_max,
			q->srq ? "the reactor's SRQ" : "its own receives",
			!q->sq.t->rdma_cqm_count ? "off" :
			q->hw_moderation	 ? "device" :
						   "software");
	return &q->sq;
fail:
	atomic_fetch_add(&port->rejects, 1);
	reject(q->id, NVME_RDMA_CM_NO_RSC);
	epoll_del(q);
	free(c);
	queue_free(q);
	return NULL;
}

/* Connect accepted: the slots are the connection's (its HSQSIZE), made
 * when it was accepted; a Connect asking for more than that is refused. */
static int rdma_queue_connected(struct tgt_queue *sq, unsigned depth)
{
	struct rdma_queue *q = rdma_q(sq);

	if (depth > q->prm.sq_entries) {
		tgt_log("queue %s qid %u: Connect asks for %u entries, the "
			"RDMA connection for %u",
			sq->peer, q->prm.qid, depth, q->prm.sq_entries);
		return -EINVAL;
	}
	return 0;
}

/* The host sees the connection go (a disconnect): nothing more is read. */
void rdma_queue_quiesce(struct tgt_queue *sq)
{
	struct rdma_queue *q = rdma_q(sq);

	if (sq->closing)
		return;
	sq->closing = true;
	epoll_del(q);
	rdma_disconnect(q->id);
}

static void rdma_queue_stop(struct tgt_queue *sq)
{
	if (!sq->closing)
		sq->stopping = true;
}

/* Shutdown: every answer posted and the signalled ones done; an
 * unsignalled tail is on the wire, as a send is once it is posted. */
static bool rdma_queue_drained(const struct tgt_queue *sq)
{
	const struct rdma_queue *q =
		(const struct rdma_queue *)((const char *)sq -
					    offsetof(struct rdma_queue, sq));

	return !q->post_head && !q->signalled_inflight && !q->reads_inflight;
}

static void rdma_queue_destroy(struct tgt_queue *sq)
{
	struct rdma_queue *q = rdma_q(sq);

	if (!sq->closing)
		rdma_queue_quiesce(sq);
	queue_free(q);
}

/* CM events on the queue's own channel. */
static void cm_events(struct rdma_queue *q)
{
	struct rdma_cm_event *ev;

	while (!q->sq.closing && !rdma_get_cm_event(q->cm_ch, &ev)) {
		enum rdma_cm_event_type type = ev->event;

		rdma_ack_cm_event(ev);
		switch (type) {
		case RDMA_CM_EVENT_ESTABLISHED:
			q->established = true;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			if (q->sq.t->verbose || (q->sq.ctrl && !q->sq.qid))
				tgt_log("queue %s (ctrl %u qid %u): "
					"disconnected by the host",
					q->sq.peer,
					q->sq.ctrl ? q->sq.ctrl->cntlid : 0,
					q->sq.qid);
			rdma_queue_quiesce(&q->sq);
			break;
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			tgt_log("queue %s qid %u: %s", q->sq.peer, q->prm.qid,
				rdma_event_str(type));
			rdma_queue_quiesce(&q->sq);
			break;
		default:
			break;
		}
	}
}

static void rdma_queue_event(struct tgt_queue *sq, uint32_t events)
{
	struct rdma_queue *q = rdma_q(sq);

	(void)events;
	if (sq->closing)
		return;
	/* one of three fds stands for the queue: look at each */
	cm_events(q);
	if (!sq->closing && q->comp_ch)
		rdma_cq_event(q);
	if (!sq->closing && q->timer_fd >= 0)
		rdma_timer_event(q);
}

static void rdma_req_free(struct tgt_req *req)
{
	rdma_cmd_free(rdma_cmd_of(req));
}

static const struct tgt_transport_ops rdma_ops = {
	.name = "rdma",
	.trtype = NVMF_TRTYPE_RDMA,
	.port_open = rdma_port_open,
	.port_accept = rdma_port_accept,
	.port_close = rdma_port_close,
	.conn_drop = rdma_conn_drop,
	.queue_create = rdma_queue_create,
	.queue_connected = rdma_queue_connected,
	.queue_event = rdma_queue_event,
	.queue_flush = rdma_queue_flush,
	.queue_poll = rdma_queue_poll,
	.queue_drained = rdma_queue_drained,
	.queue_quiesce = rdma_queue_quiesce,
	.queue_stop = rdma_queue_stop,
	.queue_destroy = rdma_queue_destroy,
	.queue_response = rdma_queue_response,
	.req_free = rdma_req_free,
	.id = &tgt_rdma_id,
};

const struct tgt_transport_ops *const tgt_rdma_transport = &rdma_ops;
