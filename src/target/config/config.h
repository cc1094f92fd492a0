/* SPDX-License-Identifier: MIT */
/*
 * Inside the target's configuration (src/target/config/): what the model
 * (model.c), the nvmetcli JSON loader (nvmetcli*.c) and the command line
 * (args.c) share. The rest of the target sees only target.h.
 */
#ifndef MQBLK_TARGET_CONFIG_CONFIG_H
#define MQBLK_TARGET_CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/target.h"

#define TGT_CFG_DEFAULT_STALL_MS 5000
#define TGT_CFG_DEFAULT_MODEL "mqblk"
#define TGT_CFG_CNTLID_MAX 0xffef /* NVME_CNTLID_MAX: FFF0h.. are reserved */

/*
 * A transport a port may name (nvmetcli's addr.trtype): one row per
 * transport mqblk's target serves. Adding one is a row here and the
 * transport itself; a name not in the table is refused, naming it and
 * the ones that are.
 */
struct tgt_cfg_transport {
	const char *name; /* as nvmetcli and configfs spell it */
	uint8_t trtype; /* NVMF_TRTYPE_*: tgt_port.trtype, the core's key */
	uint16_t default_port; /* the NVMe-oF I/O port (4420) */
};

/* The row named len bytes of name, or NULL. */
const struct tgt_cfg_transport *tgt_cfg_transport_find(const char *name,
						       size_t len);

/* The transport of the command line's --listen ports: tcp. */
const struct tgt_cfg_transport *tgt_cfg_transport_default(void);

/* "\"tcp\"" (or "\"tcp\", \"rdma\"") into buf, for messages. */
void tgt_cfg_transport_names(char *buf, size_t len);

/* Stable namespace IDs from (subsystem NQN, NSID): see model.c. */
void tgt_cfg_derive_uuid(const char *nqn, uint32_t nsid, uint8_t uuid[16]);
void tgt_cfg_derive_nguid(const char *nqn, uint32_t nsid, uint8_t nguid[16]);

/* Serial (derived from the NQN), model, firmware, controller ID range. */
void tgt_cfg_subsys_defaults(struct tgt_subsys *s);

/* A new subsystem, its lock ready; NULL if out of memory. */
struct tgt_subsys *tgt_cfg_subsys_new(void);

/* A namespace's uri and itself; a subsystem, its namespaces and hosts
 * (not its controllers: it has none left). NULL is fine. */
void tgt_cfg_ns_free(struct tgt_ns *ns);
void tgt_cfg_subsys_free(struct tgt_subsys *s);

/* The discovery subsystem with its defaults: 0, or -1 (out of memory). */
int tgt_cfg_disc_init(struct tgt *t);

/* Every ANA group of p optimized: nvmet's default for a new group. */
void tgt_cfg_port_ana_init(struct tgt_port *p);

/* After the model is built: group 1 and every namespace's group exist. */
void tgt_cfg_ana_finish(struct tgt *t);

/* Everything but the run options (reactors, stall, stats, verbose). */
void tgt_cfg_free_model(struct tgt *t);

/* Why len bytes of s cannot be an NQN for nvmet, or NULL if they can. */
const char *tgt_cfg_nqn_problem(const char *s, size_t len);

/* nqn is the discovery subsystem's (the well-known or configured one). */
bool tgt_cfg_is_disc_nqn(const struct tgt *t, const char *nqn);

/* Decimal digits only, no sign, no spaces, value <= max: 0 or -1. */
int tgt_cfg_parse_dec(const char *s, size_t len, uint64_t max, uint64_t *out);

/* nvmet's DH-HMAC-CHAP defaults for a host: hmac(sha256), group null. */
void tgt_cfg_host_auth_defaults(struct tgt_host *h);

/* "sha256,sha384" (hashes, nvmet's "hmac(sha256)" too) or
 * "null,ffdhe2048" into ids: 0, or -1 with a one-line reason. */
int tgt_cfg_auth_list(const char *s, bool hashes, uint8_t *ids, uint8_t *nr,
		      char *err, size_t errlen);

/* One address family, address and service. */
bool tgt_cfg_same_addr(const struct tgt_port *a, const struct tgt_port *b);

#endif
