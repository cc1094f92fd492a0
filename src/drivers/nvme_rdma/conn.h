/* SPDX-License-Identifier: MIT */
/*
 * Inside the NVMe/RDMA host transport: a connection (CM id, QP, CQs,
 * receive ring) and what the I/O queues (nvme_rdma.c) use of conn.c,
 * where connections are made, used synchronously and torn down.
 */
#ifndef MQBLK_DRIVERS_NVME_RDMA_CONN_H
#define MQBLK_DRIVERS_NVME_RDMA_CONN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "drivers/nvmf/fabrics.h"
#include "nvme/nvme.h"

#define NR_CM_TIMEOUT_MS 3000 /* address and route resolution */
#define NR_STASH 8 /* responses read ahead on a synchronous connection */
/* the control thread's look at a readable admin connection (sync_recv
 * with cid 0): how long a spurious wake-up waits */
#define NR_LOOK_MS 100
#define NR_WC_BATCH 32
/* the IB CM's reject reason "consumer defined": the peer's application
 * (nvmet-rdma) rejected, with its private data */
#define NR_CM_REJ_CONSUMER 28
#define NR_ACCESS                                          \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
	 IBV_ACCESS_REMOTE_WRITE)

/* A counter with one writer at a time (a queue's lock), read by any
 * thread. */
static inline void st_add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c,
			      atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

struct nr_stats {
	_Atomic uint64_t sends, signalled, recv_posted, recv_done, cqes, events,
		regs, incapsule, keyed, bounced, rsp_before_send, remote_inv,
		local_inv;
};

/* Per controller (d->tr): the protection domain every queue's memory is
 * registered in, so registrations outlive reconnects. */
struct nr_ctrl {
	pthread_mutex_t lock;
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	uint8_t rd_atom; /* the device's max_qp_rd_atom (responder side) */
	/* remote_invalidate=1: I/O data through a type-2 memory window per
	 * tag, bound before the SEND, that the controller invalidates with
	 * SEND with Invalidate (SGL subtype 0xF) */
	bool rinv;
	struct nr_stats admin; /* the admin queue's, across reconnects */
};

/* A connection: CM id, QP, CQs and the receive ring. Used synchronously
 * (set-up, the admin queue) until an I/O queue takes it. */
struct nvmf_conn {
	struct nvmf_ctrl *d;
	uint16_t qid;
	uint16_t crqsize; /* the controller's receive queue (accept) */
	unsigned nr_rsp; /* receive buffers: the queue's entries */
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_comp_channel *cch;
	struct ibv_cq *scq, *rcq;
	int wait_fd; /* epoll of cch and ech: conn_fd */
	unsigned scq_unacked, rcq_unacked; /* events got, not yet acked */
	bool qp_made, connected;
	_Atomic bool disconnected; /* the CM said so */
	/* registered: the response buffers, then the synchronous SQE */
	uint8_t *mem;
	struct ibv_mr *mem_mr;
	struct nvme_completion *rsps;
	union nvme_command *sqe;
	/* synchronous data both ways, by keyed SGL through a bounce */
	uint8_t *bounce;
	size_t bounce_len;
	struct ibv_mr *bounce_mr;
	bool pend; /* a command with data from the controller is out */
	uint16_t pend_cid;
	void *pend_buf;
	uint32_t pend_len;
	unsigned sends_out; /* synchronous SENDs not yet completed */
	struct nvme_completion stash[NR_STASH];
	unsigned nr_stash;
	struct nr_stats own, *st; /* st: own, or the queue's once attached */
};

/* Memory registered in the controller's PD (counted in st). */
struct ibv_mr *nr_reg(struct nvmf_ctrl *d, void *buf, size_t len,
		      struct nr_stats *st);
/* Response buffer i posted again; 0 or -errno. */
int nr_post_recv(struct nvmf_conn *cn, unsigned i);
/* Everything of cn gone, in the order rxe needs. */
void nr_conn_destroy(struct nvmf_conn *cn);
/* The CM's events taken (non-blocking): 1 when cn is disconnected. */
int nr_cm_check(struct nvmf_conn *cn);
/* The completion channel's events taken (non-blocking), counted. */
void nr_events_drain(struct nvmf_conn *cn);

/* The transport ops of a connection (conn.c). */
struct nvmf_conn *nr_conn_open(struct nvmf_ctrl *d, uint16_t qid, char *err,
			       size_t errlen, int *ret);
void nr_conn_close(struct nvmf_conn *cn);
int nr_conn_fd(const struct nvmf_conn *cn);
int nr_sync_send(struct nvmf_conn *cn, union nvme_command *cmd, void *buf,
		 uint32_t len, bool to_ctrl);
int nr_sync_recv(struct nvmf_conn *cn, uint16_t cid, void *buf, uint32_t len,
		 struct nvme_completion *cqe);

#endif
