// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the NVMe/RDMA target's command intake
 * (tgt_rdma_intake: the capsule, the core's checks and the data
 * pointer), which the transport runs on every receive, with no verbs:
 * a queue of a ready controller whose subsystem has one namespace of
 * 2^21 512-byte blocks.
 *
 * Input: byte 0 picks the queue (bit 0: I/O queue 1, else the admin
 * queue; bit 1: not yet connected, so only a Connect is valid; bits 4:2
 * the in-capsule limit: 0, 4 KiB, 8 KiB, 16 KiB, 64, 1 KiB, 128 KiB or
 * 100 bytes), then the capsule as received (an SQE, then in-capsule
 * data).
 *
 * Checked: a capsule shorter than an SQE is refused as such and nothing
 * else is; an accepted command's data pointer is one of the three kinds
 * and consistent: in-capsule data only for host-to-controller data,
 * within what arrived and the limit; keyed data with a length, at most
 * MDTS, for a command that moves data; the transfer length is the
 * SGL's (0 for none); an SGL type or offset refused has DNR set.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "target/core/nvmet.h"
#include "target/rdma/rdma.h"
#include "target/target.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint32_t incap_limits[8] = { 0,  4096, 8192,   16384,
					  64, 1024, 131072, 100 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tgt t;
	static struct tgt_subsys s;
	static struct tgt_ns ns;
	static struct tgt_ns *nsp = &ns;
	/* the namespace's counters, one reactor's (as ns_open sets them) */
	static struct tgt_ns_stats nst;
	static struct tgt_ctrl ctrl;
	static struct tgt_port port;
	static struct tgt_reactor r;
	struct tgt_queue q;
	struct tgt_req req;
	struct nvme_rdma_data d;
	uint32_t incap_max, incap_len;
	uint16_t status;
	uint8_t mode;

	if (!size)
		return 0;
	mode = data[0];
	data++;
	size--;
	if (size > 64 + 256 * 1024)
		return 0;

	memset(&ns, 0, sizeof(ns));
	ns.nsid = 1;
	ns.enabled = true;
	ns.anagrpid = 1;
	ns.lba_shift = 9;
	ns.size = (uint64_t)1 << 30;
	memset(&nst, 0, sizeof(nst));
	ns.st = &nst;
	memset(&s, 0, sizeof(s));
	s.ns = &nsp;
	s.nr_ns = 1;
	memset(&port, 0, sizeof(port));
	port.trtype = NVMF_TRTYPE_RDMA;
	port.inline_data = incap_limits[(mode >> 2) & 7];
	port.max_queue_size = 128;
	atomic_store(&port.ana_state[1], NVME_ANA_OPTIMIZED);
	memset(&ctrl, 0, sizeof(ctrl));
	ctrl.subsys = &s;
	ctrl.port = &port;
	ctrl.tgt = &t;
	atomic_store(&ctrl.csts, NVME_CSTS_RDY);
	r.t = &t;

	memset(&q, 0, sizeof(q));
	q.r = &r;
	q.t = &t;
	q.port = &port;
	q.qid = mode & 1;
	if (!(mode & 2)) {
		q.ctrl = &ctrl;
		q.connected = true;
		q.sqsize = 127;
		ctrl.adminq = q.qid ? NULL : &q;
	}
	memset(&req, 0, sizeof(req));
	req.q = &q;
	incap_max = port.inline_data;
	status = tgt_rdma_intake(&req, data, (uint32_t)size, incap_max, &d);
	if (size < sizeof(union nvme_command)) {
		FUZZ_CHECK(status == TGT_RDMA_BAD_CAPSULE);
		return 0;
	}
	FUZZ_CHECK(status != TGT_RDMA_BAD_CAPSULE);
	incap_len = (uint32_t)(size - sizeof(union nvme_command));
	if (status) {
		/* a data pointer the binding refuses: no retry will help */
		if ((status & 0x7ff) == NVME_SC_SGL_INVALID_TYPE ||
		    (status & 0x7ff) == NVME_SC_SGL_INVALID_OFFSET)
			FUZZ_CHECK(status & NVME_SC_DNR);
		return 0;
	}
	FUZZ_CHECK(req.dir <= 2);
	switch (d.kind) {
	case NVME_RDMA_DATA_NONE:
		FUZZ_CHECK(req.xfer_len == 0);
		break;
	case NVME_RDMA_DATA_INCAPSULE:
		FUZZ_CHECK(req.dir == 2);
		FUZZ_CHECK(d.len > 0);
		FUZZ_CHECK((uint64_t)d.offset + d.len <= incap_len);
		FUZZ_CHECK((uint64_t)d.offset + d.len <= incap_max);
		FUZZ_CHECK(req.xfer_len == d.len);
		break;
	case NVME_RDMA_DATA_KEYED:
		FUZZ_CHECK(req.dir != 0);
		FUZZ_CHECK(d.len > 0 && d.len <= TGT_RDMA_MAX_XFER);
		FUZZ_CHECK(incap_len == 0);
		FUZZ_CHECK(req.xfer_len == d.len);
		break;
	default:
		FUZZ_CHECK(!"unknown data kind");
	}
	/* before Connect only a Connect gets through */
	if (!q.connected)
		FUZZ_CHECK(req.sqe.common.opcode == nvme_fabrics_command &&
			   req.sqe.fabrics.fctype == nvme_fabrics_type_connect);
	return 0;
}
