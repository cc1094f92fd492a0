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
/* Hand job to every reactor and wait until each has run it (run.c). */
void tgt_ctl_job_post(struct tgt_ctl_job *job);

/* ---- Live configuration (core/live.c uses these) ---------------------- */

/* Every reactor parked at its next inbox read: until resume, the main
 * thread may change what reactors read (the model) and touch what they
 * own (controllers' AER state, queues), as they would between two
 * passes. The I/O path takes no lock for it: a reactor checks a flag
 * when its wake-up eventfd fires. */
void tgt_reactors_pause(void);
void tgt_reactors_resume(void);
/* Room on every reactor for n more removed namespaces: 0 or -ENOMEM. */
int tgt_reactors_retire_reserve(unsigned n);
/* Paused, room reserved: ns (taken out of its subsystem, its device
 * open) goes once no reactor refers to it; the last closes its device. */
void tgt_reactors_retire_ns(struct tgt_ns *ns);
/* Open ns's device for the reactors (at start, add-ns, enable-ns): 0,
 * or -1 with the reason in err. */
int tgt_ns_attach(struct tgt *t, struct tgt_subsys *s, struct tgt_ns *ns,
		  char *err, size_t errlen);
/* Reactor 0 accepts on p's listener (a port added while running), or
 * stops (removed). */
int tgt_reactors_watch_port(struct tgt_port *p);
void tgt_reactors_unwatch_port(struct tgt_port *p);
/* Before the reactors start: room for ports added while running. */
int tgt_live_init(struct tgt *t);
/* After they ended: free what was removed while running. */
void tgt_live_fini(struct tgt *t);
/* SIGHUP (core/reload.c): re-read --config and apply the difference;
 * a file that does not load changes nothing. Logged either way. */
void tgt_live_reload(struct tgt *t);

#endif
