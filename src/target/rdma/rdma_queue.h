/* SPDX-License-Identifier: MIT */
/*
 * What the RDMA transport's files share: a queue (one RDMA CM connection
 * with its QP, CQ and completion channel, on one reactor) and its
 * command slots. rdma.c: ports, CM events, queue set-up and teardown;
 * rdma_io.c: receives, RDMA READ/WRITE, responses, completions.
 */
#ifndef MQBLK_TARGET_RDMA_RDMA_QUEUE_H
#define MQBLK_TARGET_RDMA_RDMA_QUEUE_H

#include <stddef.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "rdma.h"

/* --rdma-srq: receives in each reactor's shared receive queue: 1024, or
 * fewer where capsules are big (at most 32 MiB of them, at least 64);
 * a host that finds none posted retries (RNR) until one is */
#define TGT_RDMA_SRQ_SIZE 1024
#define TGT_RDMA_SRQ_BYTES (32u << 20)
#define TGT_RDMA_SRQ_MIN 64

/* A capsule's receive buffer: the SQE and up to the queue's in-capsule
 * data (its queue's, or the reactor's SRQ's). Reposted as soon as its capsule is taken in (in-capsule data is
 * copied to the command's buffer first). */
struct rdma_recv {
	struct ibv_srq *srq; /* the reactor's, or NULL: the queue's own */
	struct ibv_recv_wr wr;
	struct ibv_sge sge;
	uint8_t *buf;
	uint32_t len; /* bytes received, while waiting for a slot */
	struct rdma_recv *next; /* the backlog */
};

/* One command slot: the core's request, its data pointer and its work
 * requests (an RDMA READ of host data; an RDMA WRITE of the answer's
 * data, then the SEND of its completion). */
struct rdma_cmd {
	struct tgt_req req;
	struct nvme_rdma_data d;
	struct nvme_completion cqe; /* the response SEND's payload */
	struct ibv_send_wr data_wr, send_wr;
	struct ibv_sge data_sge, send_sge;
	struct ibv_send_wr *first, *last; /* what the next flush posts */
	struct rdma_cmd *next; /* free list, post list or send FIFO */
	bool read_posted; /* its RDMA READ is on the QP, not completed */
	bool signalled; /* its SEND asks for a completion */
};

/* A connection handed from the port's reactor to the queue's. */
struct rdma_conn {
	struct rdma_cm_id *id; /* migrated to ch already */
	struct rdma_event_channel *ch;
	struct nvme_rdma_conn_params prm;
	uint8_t initiator_depth, responder_resources; /* ours to accept */
};

struct rdma_queue {
	struct tgt_queue sq;
	struct rdma_cm_id *id;
	struct rdma_event_channel *cm_ch; /* this queue's CM events */
	struct ibv_comp_channel *comp_ch;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_srq *srq; /* --rdma-srq: the reactor's */
	int timer_fd; /* software CQ moderation */
	bool established, cq_armed, timer_armed, hw_moderation;
	bool inline_rsp; /* responses sent inline (no lkey needed) */
	unsigned unacked_events; /* ibv_ack_cq_events owed */
	uint32_t mod_count; /* completions since the channel was armed */

	struct nvme_rdma_conn_params prm;
	uint32_t incap_max; /* in-capsule bytes this queue takes */
	uint32_t capsule_size; /* SQE + incap_max */

	struct rdma_recv *recvs; /* prm.sq_entries of them (no SRQ) */
	uint8_t *recv_bufs;
	struct ibv_mr *recv_mr, *cmd_mr;
	unsigned nr_recvs;
	struct rdma_recv *backlog_head, *backlog_tail;

	struct rdma_cmd *cmds;
	unsigned nr_cmds;
	struct rdma_cmd *free_cmds;
	/* work requests built, posted at the reactor's flush */
	struct rdma_cmd *post_head, *post_tail;
	/* SENDs posted, oldest first: a signalled one's completion says
	 * it and every one before it are done (one send queue, in order) */
	struct rdma_cmd *sendq_head, *sendq_tail;
	unsigned signal_every; /* 1: every SEND signalled */
	unsigned unsignalled; /* SENDs since the last signalled one */
	unsigned signalled_inflight; /* signalled SENDs not yet completed */
	unsigned reads_inflight;
	bool fatal_logged;
};

static inline struct rdma_queue *rdma_q(struct tgt_queue *sq)
{
	return (struct rdma_queue *)((char *)sq -
				     offsetof(struct rdma_queue, sq));
}

static inline struct rdma_cmd *rdma_cmd_of(struct tgt_req *req)
{
	return (struct rdma_cmd *)((char *)req -
				   offsetof(struct rdma_cmd, req));
}

/* wr_id: a pointer with its kind in the low bits */
enum rdma_wr_kind {
	RDMA_WR_RECV = 0,
	RDMA_WR_SEND = 1,
	RDMA_WR_READ = 2,
	RDMA_WR_WRITE = 3,
};
#define RDMA_WR_KIND_MASK 3ull

/* rdma_io.c */
int rdma_post_recv(struct rdma_queue *q, struct rdma_recv *rv);
/* --rdma-srq: the reactor's SRQ on q's device (made on first use) */
struct ibv_srq *rdma_reactor_srq(struct rdma_queue *q);
void rdma_queue_flush(struct tgt_queue *sq);
void rdma_queue_poll(struct tgt_queue *sq);
void rdma_queue_response(struct tgt_req *req, uint16_t status);
/* The completion channel or the moderation timer is readable. */
void rdma_cq_event(struct rdma_queue *q);
void rdma_timer_event(struct rdma_queue *q);
/* Arm the completion channel (after set-up, and as moderation says). */
void rdma_cq_arm(struct rdma_queue *q);
/* Before the CQ goes: shared receives completed on it back to the SRQ. */
void rdma_cq_salvage(struct rdma_queue *q);
void rdma_cmd_free(struct rdma_cmd *cmd);
/* lkey of the reactor's registration covering buf (registered on first
 * use, slab by slab); 0 with a log line if it cannot be had */
int rdma_buf_lkey(struct rdma_queue *q, void *buf, uint32_t cap,
		  uint32_t *lkey);
/* An error the queue cannot go on from (logged once): close it. */
void rdma_queue_fail(struct rdma_queue *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* rdma.c */
void rdma_queue_quiesce(struct tgt_queue *sq);

#endif
