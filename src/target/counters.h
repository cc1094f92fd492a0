/* SPDX-License-Identifier: MIT */
/*
 * The target's cumulative counters, named once: the queue counters a
 * reactor keeps (core/nvmet.h's struct tgt_queue_stats), what they fold
 * into when a queue or controller goes away, and the namespace counters
 * with their latency histogram. The stats readers (text, JSON,
 * Prometheus) walk the same table, so a counter added here shows in all.
 */
#ifndef MQBLK_TARGET_COUNTERS_H
#define MQBLK_TARGET_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

/*
 * X(ID, field in struct tgt_queue_stats, JSON name, Prometheus name
 * without the mqblk_<scope>_ prefix and the _total suffix, scale to the
 * Prometheus base unit, HELP text).
 */
#define TGT_COUNTERS(X)                                                        \
	X(CMDS, cmds, "cmds", "commands", 1.0,                                 \
	  "Commands received (fabrics, admin and I/O)")                        \
	X(READ_CMDS, read_cmds, "reads", "read_commands", 1.0,                 \
	  "Read commands")                                                     \
	X(WRITE_CMDS, write_cmds, "writes", "write_commands", 1.0,             \
	  "Write commands")                                                    \
	X(OTHER_CMDS, other_cmds, "other_cmds", "other_io_commands", 1.0,      \
	  "I/O commands other than Read and Write")                            \
	X(READ_BYTES, read_bytes, "read_bytes", "read_bytes", 1.0,             \
	  "Bytes read from namespaces")                                        \
	X(WRITE_BYTES, write_bytes, "write_bytes", "write_bytes", 1.0,         \
	  "Bytes written to namespaces")                                       \
	X(ERRORS, errors, "errors", "errors", 1.0,                             \
	  "Commands completed with an error status")                           \
	X(STALLS, stalls, "stalls", "stalls", 1.0,                             \
	  "Commands reported outstanding longer than the stall time")          \
	X(DDGST, ddgst_errors, "ddgst_errors", "data_digest_errors", 1.0,      \
	  "NVMe/TCP data digest mismatches")                                   \
	X(R2TS, r2ts, "r2ts", "r2t_pdus", 1.0, "NVMe/TCP R2T PDUs sent")       \
	X(SENDS, sends, "sends", "send_calls", 1.0,                            \
	  "Send calls that sent PDUs or posted RDMA SENDs")                    \
	X(CQES, cqes, "cqes", "completions_sent", 1.0,                         \
	  "Completions sent to the host")                                      \
	X(HELD, held, "held", "coalesced_flushes", 1.0,                        \
	  "Flushes put off by response coalescing")                            \
	X(ZC_SENDS, zc_sends, "zc_sends", "zerocopy_sends", 1.0,               \
	  "sendmsg calls with MSG_ZEROCOPY")                                   \
	X(ZC_POLLS, zc_polls, "zc_polls", "zerocopy_polls", 1.0,               \
	  "Passes reading the socket error queue")                             \
	X(ZC_READS, zc_reads, "zc_reads", "zerocopy_notifications", 1.0,       \
	  "Zero-copy completion notifications read")                           \
	X(ZC_COPIED, zc_copied, "zc_copied", "zerocopy_copied", 1.0,           \
	  "Zero-copy sends the kernel copied after all")                       \
	X(LAT_COUNT, lat_count, "lat_count", "answered_commands", 1.0,         \
	  "Commands answered (the latency sum's count)")                       \
	X(LAT_SUM, lat_ns_sum, "lat_ns_sum", "command_latency_seconds", 1e-9,  \
	  "Time from a command's arrival to its answer, summed")               \
	X(RDMA_RECVS_POSTED, rdma.recvs_posted, "rdma_recvs_posted",           \
	  "rdma_receives_posted", 1.0, "RDMA capsule receives posted")         \
	X(RDMA_RECVS, rdma.recvs, "rdma_recvs", "rdma_receives", 1.0,          \
	  "RDMA capsules received")                                            \
	X(RDMA_SENDS, rdma.sends, "rdma_sends", "rdma_sends", 1.0,             \
	  "RDMA SENDs posted")                                                 \
	X(RDMA_SIGNALLED, rdma.signalled, "rdma_signalled",                    \
	  "rdma_signalled_sends", 1.0, "RDMA SENDs posted signalled")          \
	X(RDMA_INVS, rdma.invs, "rdma_invs", "rdma_send_with_invalidate", 1.0, \
	  "RDMA SEND_WITH_INV posted")                                         \
	X(RDMA_CQES, rdma.cqes, "rdma_cqes", "rdma_work_completions", 1.0,     \
	  "RDMA work completions polled")                                      \
	X(RDMA_EVENTS, rdma.events, "rdma_events", "rdma_cq_events", 1.0,      \
	  "RDMA completion channel wake-ups")                                  \
	X(RDMA_MOD_TIMERS, rdma.mod_timers, "rdma_mod_timers",                 \
	  "rdma_moderation_timer_expiries", 1.0,                               \
	  "RDMA software completion moderation expiries")                      \
	X(RDMA_READS, rdma.reads, "rdma_reads", "rdma_reads", 1.0,             \
	  "RDMA READs of host data")                                           \
	X(RDMA_READ_BYTES, rdma.read_bytes, "rdma_read_bytes",                 \
	  "rdma_read_bytes", 1.0, "Bytes moved by RDMA READ")                  \
	X(RDMA_WRITES, rdma.writes, "rdma_writes", "rdma_writes", 1.0,         \
	  "RDMA WRITEs of data to the host")                                   \
	X(RDMA_WRITE_BYTES, rdma.write_bytes, "rdma_write_bytes",              \
	  "rdma_write_bytes", 1.0, "Bytes moved by RDMA WRITE")                \
	X(RDMA_BACKLOG, rdma.backlog, "rdma_backlog", "rdma_backlog", 1.0,     \
	  "RDMA capsules that waited for a command slot")

enum tgt_counter_id {
#define TGT_COUNTER_ENUM(id, f, j, p, s, h) TGT_C_##id,
	TGT_COUNTERS(TGT_COUNTER_ENUM)
#undef TGT_COUNTER_ENUM
		TGT_NR_COUNTERS
};

/* Counters of queues that went away (or a snapshot's sums): plain
 * integers, written under the stats lock (core/stats.c). */
struct tgt_counters {
	uint64_t v[TGT_NR_COUNTERS];
	uint64_t lat_ns_max; /* the largest of a queue's, a gauge */
};

/*
 * A namespace's latency histogram: bucket b counts answers that took
 * less than 2^(b + TGT_LAT_SHIFT) ns (1.02 us .. 8.6 s), the last one
 * the rest. Each bucket's bound is at most twice the values in it.
 */
#define TGT_LAT_SHIFT 10
#define TGT_LAT_BUCKETS 25

static inline unsigned tgt_lat_bucket(uint64_t ns)
{
	/* floor(log2) of ns / 2^(SHIFT - 1), 0 below: one bsr */
	unsigned b = 63u -
		     (unsigned)__builtin_clzll((ns >> (TGT_LAT_SHIFT - 1)) | 1);

	return b < TGT_LAT_BUCKETS - 1 ? b : TGT_LAT_BUCKETS - 1;
}

/*
 * A namespace's I/O counters on one reactor (struct tgt_ns keeps one per
 * reactor, each on its own cache lines): written by that reactor only,
 * relaxed, and summed by the stats readers, like the queue counters.
 * The namespace outlives every queue, so nothing folds into it.
 */
struct tgt_ns_stats {
	_Atomic uint64_t read_cmds, write_cmds, other_cmds;
	_Atomic uint64_t read_bytes, write_bytes, errors;
	_Atomic uint64_t lat_ns_sum;
	_Atomic uint64_t lat_hist[TGT_LAT_BUCKETS];
} __attribute__((aligned(64)));

#endif
