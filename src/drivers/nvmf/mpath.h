/* SPDX-License-Identifier: MIT */
/*
 * NVMe multipath, the pure part: the path list of a multipath URI, ANA
 * log parsing, path-related status, and the kernel's path selectors
 * (drivers/nvme/host/multipath.c), apart from any I/O so unit tests and
 * the fuzzer reach them. Not public API.
 */
#ifndef MQBLK_NVME_MPATH_H
#define MQBLK_NVME_MPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MP_MAX_PATHS 16

enum mp_iopolicy {
	MP_IOPOLICY_NUMA = 0, /* sticky first optimized path (one node) */
	MP_IOPOLICY_RR = 1, /* rotate among the optimized paths */
	MP_IOPOLICY_QD = 2, /* fewest requests in flight */
};

/* ANA states (Asymmetric Namespace Access log, descriptor byte 16) */
enum {
	MP_ANA_OPTIMIZED = 0x1,
	MP_ANA_NONOPTIMIZED = 0x2,
	MP_ANA_INACCESSIBLE = 0x3,
	MP_ANA_PERSISTENT_LOSS = 0x4,
	MP_ANA_CHANGE = 0xf,
};

/* ANA log page (LID 0Ch) layout */
#define MP_ANA_HDR_SIZE 16 /* chgcnt u64, ngrps u16, reserved */
#define MP_ANA_DESC_SIZE 32 /* grpid u32, nnsids u32, chgcnt u64, state */

struct mp_addr {
	char tr[8]; /* its transport ("tcp", "rdma"); "" = the URI's */
	char host[256];
	char port[8];
};

/*
 * "[TR:]HOST:PORT[,[TR:]HOST:PORT...]/SUBNQN" (IPv6 hosts in brackets;
 * TR a transport name, lowercase letters, for a path over another
 * transport than the URI's: "rdma:10.0.0.2:4420") into addrs[0..*nr)
 * and subnqn (NVME_NQN_SIZE bytes). An empty element, a path given twice
 * (same transport, host and port), a missing or bad port, more than max
 * paths or no SUBNQN: -EINVAL with a one-line reason in err. Whether a
 * transport exists is the caller's to check.
 */
int mp_parse_addrs(const char *s, struct mp_addr *addrs, unsigned max,
		   unsigned *nr, char *subnqn, char *err, size_t errlen);

/* The same path: transport, host and port. */
bool mp_addr_same(const struct mp_addr *a, const struct mp_addr *b);

/* A discovery log record (Get Log Page 70h, after its 1 KiB header) */
#define MP_DISC_ENTRY_SIZE 1024

/*
 * The paths a discovery log lists for subsystem subnqn: of the nr records
 * at rec, each whose transport type trname names (NULL: one this host
 * does not have) and whose TRADDR and TRSVCID are set and fit, once (a
 * path listed twice is one), into addrs, up to max. Fields are taken as
 * the spec pads them (ASCII, spaces at the end); the subsystem NQN must
 * match exactly. Returns how many it wrote.
 */
unsigned mp_disc_paths(const uint8_t *rec, size_t nr, const char *subnqn,
		       const char *(*trname)(uint8_t trtype),
		       struct mp_addr *addrs, unsigned max);

/* Up to len bytes of s (user or wire input) as one printable line in
 * out: control bytes become '?'. Returns out. */
const char *mp_printable(const char *s, size_t len, char *out, size_t outlen);

/* "numa", "round-robin", "queue-depth": 0, else -EINVAL. */
int mp_parse_iopolicy(const char *s, enum mp_iopolicy *p);
const char *mp_iopolicy_name(enum mp_iopolicy p);
const char *mp_ana_state_name(uint8_t state);

/*
 * Check an ANA log of len bytes: every group descriptor and its NSID list
 * inside len. Returns the number of groups, or -EBADMSG.
 */
int mp_ana_log_check(const uint8_t *log, size_t len);
/*
 * The ANA state of group grpid in the log: 0 and *state, -ENOENT when the
 * log does not list the group, -EBADMSG for a malformed log.
 */
int mp_ana_log_state(const uint8_t *log, size_t len, uint32_t grpid,
		     uint8_t *state);

/* A path-related status (SCT 3h), or Command Aborted due to SQ Deletion
 * (0x008: not run, its controller going), without Do Not Retry: the
 * request goes to another path (nvme_failover_req's test, and more). */
bool mp_status_fails_over(uint16_t status);
/* The ANA state an ANA status code reports (0x301 persistent loss, 0x302
 * inaccessible, 0x303 change), or 0 for any other status. */
uint8_t mp_status_ana_state(uint16_t status);

/* A path's connect failed for want of an answer (refused, reset, timed
 * out, unreachable): one worth trying again, as against a refusal by the
 * controller or a namespace that does not match. */
bool mp_err_transient(int err);

/* How long a path's ANA group may stay in change before its controller is
 * reset: twice ANATT (the kernel's slack for transport and AEN delays),
 * ANATT 0 (not reported) taken as 1 s. Milliseconds. */
uint64_t mp_anatt_ms(uint8_t anatt);

/* One path as the selectors see it. */
struct mp_path_view {
	bool usable; /* controller live and ANA state not pending */
	uint8_t ana; /* MP_ANA_* */
	unsigned inflight; /* requests outstanding (queue-depth) */
};

/*
 * Pick a path for the next request, as the kernel's nvme_find_path does
 * for the policy: optimized paths first, non-optimized only when no
 * optimized one is usable, never an inaccessible, persistent-loss or
 * changing one. *current is the policy's remembered path (-1: none),
 * updated. Returns the path's index or -1 when no path is usable.
 */
int mp_select(enum mp_iopolicy pol, const struct mp_path_view *v, unsigned nr,
	      int *current);

#endif
