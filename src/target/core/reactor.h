/* SPDX-License-Identifier: MIT */
/*
 * What the main thread (run.c: signals, the stats and control sockets)
 * needs of the reactors (reactor.c).
 */
#ifndef MQBLK_TARGET_CORE_REACTOR_H
#define MQBLK_TARGET_CORE_REACTOR_H

#include "nvmet.h"

/* A control command's part that reactors run, each for its own queues. */
struct tgt_ctl_job {
	enum tgt_ctl_op op;
	struct tgt_port *port;
	uint32_t aen_dw0; /* TGT_CTL_ANA: the event to post */
	int listen_fd; /* TGT_CTL_PORT_UP: reactor 0 takes it */
	unsigned closed; /* TGT_CTL_PORT_DOWN: connections closed */
	pthread_mutex_t lock;
	pthread_cond_t done;
	unsigned pending; /* reactors yet to run it */
};

/* Open t's namespaces, listen on its ports, make the reactors (reactor
 * 0 watching the listeners). 0, or -1 (logged) with everything undone. */
int tgt_reactors_setup(struct tgt *t);
/* Start the reactor threads: how many started. */
unsigned tgt_reactors_launch(void);
/* Stop and join the first started reactors, free them, close the ports
 * and namespaces. 0 if every reactor ended clean. */
int tgt_reactors_teardown(struct tgt *t, unsigned started);
unsigned tgt_reactors_count(void);
/* Reactor idx's CPU (from the process's affinity at set-up), or -1 if
 * the reactors are not pinned (more of them than allowed CPUs). */
int tgt_reactor_cpu(unsigned idx);
struct tgt_reactor *tgt_reactor_at(unsigned i);

#endif
