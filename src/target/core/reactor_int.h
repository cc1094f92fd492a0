/* SPDX-License-Identifier: MIT */
/*
 * What the reactor files share (reactor_set.c: the threads, start and
 * stop; reactor.c: a reactor's pass; reactor_dev.c: device queues and
 * namespaces; reactor_ctl.c: connections, control jobs, pause;
 * reactor_buf.c: buffers). Calls go down that list, never up.
 */
#ifndef MQBLK_TARGET_CORE_REACTOR_INT_H
#define MQBLK_TARGET_CORE_REACTOR_INT_H

#include "nvmet.h"

struct tgt_devq {
	struct tgt_ns *ns;
	struct mqblk_queue *q;
};

/* Per-reactor state the transports do not see. */
struct reactor_priv {
	struct tgt_devq *devq;
	unsigned nr_devq, cap_devq;
	/* namespaces the control socket removed that this reactor has not
	 * let go of yet (reactor_retire_pass) */
	struct tgt_ns **retiring;
	unsigned nr_retiring, cap_retiring;
	_Atomic bool pause_req; /* park at the next inbox read */
};

/* The reactors (reactor_set.c makes and frees them): reactor i is
 * reactors[i], its private part rpriv[i]. */
extern struct tgt_reactor *reactors;
extern struct reactor_priv *rpriv;
extern unsigned nr_reactors;

/* reactor.c */
/* One pass: wait (not past timeout_ms, not at all while there is work),
 * handle events, reap devices, send, run the timers, free closed queues. */
void reactor_step(struct tgt_reactor *r, int timeout_ms, bool tick_now);

/* reactor_dev.c */
/* Before a reactor ends: every namespace it wrote through gets its
 * cache flushed, then its device queues close. */
void reactor_close_devices(struct tgt_reactor *r);
/* Each removed namespace nothing of r's refers to any more lets go. */
void reactor_retire_pass(struct tgt_reactor *r);
/* Kept allocated until the process exits (the kernel may write it). */
void reactor_stuck_keep(void *p);
/* Open every enabled namespace of t (at start): 0, or -1 logged. */
int reactor_ns_open_all(struct tgt *t);
void reactor_ns_close_all(struct tgt *t);

/* reactor_ctl.c */
/* conn (a transport's connection) on r: a queue of r's. */
void reactor_add_queue(struct tgt_reactor *r, intptr_t conn,
		       struct tgt_port *port);
void reactor_remove_queue(struct tgt_reactor *r, struct tgt_queue *q);
/* New connections, then the control job, then a pause, if any. */
void reactor_drain_inbox(struct tgt_reactor *r);
/* Reactor 0's tick: paused listeners are watched again. */
void reactor_ports_resume(struct tgt_reactor *r);

#endif
