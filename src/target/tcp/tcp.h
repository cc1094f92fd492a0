/* SPDX-License-Identifier: MIT */
/* The target's NVMe/TCP transport, as the core's registry sees it. */
#ifndef MQBLK_TARGET_TCP_TCP_H
#define MQBLK_TARGET_TCP_TCP_H

#include "target/core/nvmet.h"

/* What it says of itself (tcp_id.c: no I/O, the admin commands' own) */
extern const struct tgt_transport_id tgt_tcp_id;
/* Its ops (tcp.c) */
extern const struct tgt_transport_ops *const tgt_tcp_transport;

#endif
