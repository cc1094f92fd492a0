/* SPDX-License-Identifier: MIT */
/*
 * The target's statistics as a reader sees them: a snapshot of every
 * port, subsystem (with its namespaces and controllers) and queue, taken
 * under the stats lock, where counters of queues and controllers that
 * went away are already folded into their parents, so no cumulative
 * counter goes backwards. The JSON and Prometheus renderers read it.
 */
#ifndef MQBLK_TARGET_CORE_STATS_H
#define MQBLK_TARGET_CORE_STATS_H

#include <stdio.h>

#include "nvmet.h"

/* The lock ordering: the stats lock first, then a reactor's or a
 * subsystem's lock. Queue and controller teardown take it (not the I/O
 * path); readers hold it while they copy. */
void tgt_stats_lock(void);
void tgt_stats_unlock(void);

/* q goes away (its reactor, stats lock held): its counters fold into its
 * port and its controller. */
void tgt_stats_queue_gone(struct tgt_queue *q);
/* ctrl goes away (stats lock held): its counters fold into its
 * subsystem. */
void tgt_stats_ctrl_gone(struct tgt_ctrl *ctrl);

/* A command of the namespace answered (its reactor; the commands and
 * bytes are counted where the queue's are, in core/req.c). */
static inline void tgt_stats_ns_lat(struct tgt_ns_stats *st, uint16_t status,
				    uint64_t lat)
{
	if (status)
		tgt_stat_add(&st->errors, 1);
	tgt_stat_add(&st->lat_ns_sum, lat);
	tgt_stat_add(&st->lat_hist[tgt_lat_bucket(lat)], 1);
}

struct tgt_snap_queue {
	const struct tgt_port *port;
	const struct tgt_ctrl *ctrl; /* compared, not read: NULL before
				      * Connect */
	unsigned reactor;
	uint16_t cntlid, qid;
	char peer[64];
	uint32_t depth, max_depth;
	struct tgt_counters c;
};

struct tgt_snap_ctrl {
	const struct tgt_ctrl *ctrl; /* compared, not read */
	uint16_t cntlid, portid;
	bool dead;
	char hostnqn[TGT_NQN_MAX + 1];
	unsigned nr_queues; /* live ones */
	struct tgt_counters c; /* its live and gone queues' */
};

struct tgt_snap_ns {
	uint32_t nsid;
	bool enabled;
	char *uri; /* a copy: the namespace may be removed once unlocked */
	uint64_t read_cmds, write_cmds, other_cmds;
	uint64_t read_bytes, write_bytes, errors;
	uint64_t lat_ns_sum, lat_count;
	uint64_t lat_hist[TGT_LAT_BUCKETS];
};

struct tgt_snap_subsys {
	char nqn[TGT_NQN_MAX + 1]; /* a copy, as uri */
	bool discovery;
	uint64_t ctrls_gone;
	struct tgt_counters c; /* every controller's, live and gone */
	struct tgt_snap_ctrl *ctrls;
	unsigned nr_ctrls;
	struct tgt_snap_ns *ns;
	unsigned nr_ns;
};

struct tgt_snap_port {
	/* read after the lock for its portid, transport, discovery_only:
	 * set once, and a port's slot lives as long as the target (a port
	 * removed live stays an unreported slot) */
	const struct tgt_port *port;
	char name[128]; /* ADDR:PORT as --listen takes it */
	bool down;
	unsigned conns; /* connections now */
	uint64_t conns_gone;
	struct tgt_counters c; /* every connection's, live and gone */
};

struct tgt_snap {
	uint64_t ana_chgcnt;
	struct tgt_snap_port *ports;
	unsigned nr_ports;
	struct tgt_snap_subsys *subsys; /* configured ones, then discovery */
	unsigned nr_subsys;
	struct tgt_snap_queue *queues;
	unsigned nr_queues;
};

/* A snapshot of t's counters (reactors running or not), or NULL (memory).
 * Any thread: it walks the model under the stats lock, which the control
 * socket's live changes hold while they swap or free (core/live.c). Only
 * what is configured now is in it: a subsystem or namespace removed live
 * is gone from it with its counters, a removed port too. */
struct tgt_snap *tgt_stats_collect(struct tgt *t);
void tgt_stats_free(struct tgt_snap *snap);

/* --metrics (metrics.c, or metrics_stub.c without libmicrohttpd): bind
 * t's address first (before the devices open: a clear error early), then
 * serve once the reactors run; stop before they are torn down. 0, or -1
 * with a one-line reason. */
int tgt_metrics_bind(struct tgt *t, char *err, size_t errlen);
int tgt_metrics_start(struct tgt *t, char *err, size_t errlen);
void tgt_metrics_stop(void);

/* "127.0.0.1:4420", "[::1]:4420", "rdma:10.0.0.1:4420". */
void tgt_port_name(const struct tgt_port *p, char *out, size_t size);

/* The snapshot as JSON (json-c, pretty printed, newline ended): a string
 * to free, or NULL (memory). */
char *tgt_stats_json(const struct tgt_snap *snap);

/* The snapshot in Prometheus' text exposition format 0.0.4. 0, or -1 if
 * writing to f failed. */
int tgt_stats_prometheus(const struct tgt_snap *snap, FILE *f);

#endif
