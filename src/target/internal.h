/* SPDX-License-Identifier: MIT */
/*
 * One reactor on the calling thread, for tests and fuzzers: opens t's
 * namespaces; queues are added from connected sockets (on a TCP port);
 * each step runs the reactor loop once (waiting at most timeout_ms). stop
 * closes every queue and the devices. One at a time, and not with
 * tgt_run.
 */
#ifndef MQBLK_TARGET_INTERNAL_H
#define MQBLK_TARGET_INTERNAL_H

#include "target/core/nvmet.h"

struct tgt_reactor *tgt_local_start(struct tgt *t);
void tgt_local_add(struct tgt_reactor *r, int fd, struct tgt_port *port);
void tgt_local_step(struct tgt_reactor *r, int timeout_ms);
unsigned tgt_local_nr_queues(const struct tgt_reactor *r);
void tgt_local_stop(struct tgt_reactor *r);

#endif
