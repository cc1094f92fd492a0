/* SPDX-License-Identifier: MIT */
/*
 * The NVMe-oF target: ports, subsystems, namespaces (mqblk devices),
 * controllers and their queues. The model (what config/ fills and
 * core/admin_cmd.c reads) comes first; queues, requests, reactors and
 * the transport ops are the core's (core/nvmet.h).
 *
 * Threads: the configuration (ports, subsystems, namespaces, hosts) is
 * built before any reactor starts; reactors read it without a lock. What
 * the control socket changes while running is a port's ANA states and
 * down flag (atomics) and its listener (reactor 0's), and the model
 * itself (core/live.c): swapped in while every reactor is parked between
 * two passes, with what a reactor may still point at kept until it lets
 * go. Controllers
 * are created and destroyed at Connect/teardown under their subsystem's
 * lock; a controller's admin state (registers, features, AER slots,
 * logs) belongs to the reactor that owns its admin queue, except the few
 * _Atomic fields other reactors read.
 */
#ifndef MQBLK_TARGET_TARGET_H
#define MQBLK_TARGET_TARGET_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nvme/auth.h"
#include "nvme/nvme.h"
#include "nvme/tls.h"
#include "target/counters.h"

struct mqblk_dev;
struct mqblk_queue;
struct tgt;
struct tgt_queue;

#define TGT_NQN_MAX 223 /* characters, without the NUL */
#define TGT_MAX_NS 1024 /* namespaces per subsystem (NSIDs 1..1024) */
#define TGT_MAX_IO_QUEUES 128 /* per controller */
#define TGT_MAX_QUEUE_DEPTH 1024 /* MQES + 1 (a port's max_queue_size) */
#define TGT_MIN_QUEUE_DEPTH 16 /* a port's max_queue_size at least */
#define TGT_AERL 4 /* outstanding Asynchronous Event Requests */
#define TGT_ERROR_LOG_ENTRIES 64
#define TGT_MDTS 8 /* 2^8 pages of 4 KiB: 1 MiB per command */
#define TGT_MAX_XFER (4096u << TGT_MDTS)
#define TGT_INLINE_DATA \
	16384 /* default in-capsule data on I/O queues
				* (IOCCSZ): nvmet-tcp's 4 pages */
#define TGT_MAX_INLINE_DATA 131072 /* a port's inline_data_size at most */
#define TGT_ADMIN_INLINE_DATA 8192 /* the host's admin capsules: 8 KiB */
#define TGT_MAXH2CDATA 131072 /* bytes per H2CData PDU we accept */
/* Hostile load (docs/reliability.md): a connection's time to Connect,
 * and how many may be on their way there at once */
#define TGT_CONNECT_TIMEOUT_MS 10000
#define TGT_MAX_UNCONNECTED 1024
/* A queue stops reading commands while its commands hold this many
 * bytes of data for the host (answers it does not read, or a device
 * that does not keep up), and reads again below half of it */
#define TGT_QUEUE_BUF_CAP (16u << 20)
#define TGT_DEFAULT_KATO_MS \
	120000 /* a Connect with KATO 0 on a discovery
				    * controller: none (spec); others: as sent */
#define TGT_VERSION "0.1" /* firmware revision: mqblk's version */
#define TGT_MAX_ANA_GROUPS 128 /* ANAGRPMAX and NANAGRPID, as nvmet */
#define TGT_ANATT 10 /* ANA transition time, seconds (nvmet's) */
#define TGT_DEFAULT_ANA_GROUP 1 /* every namespace's unless configured */

/* A namespace: an mqblk device behind an NSID. */
struct tgt_ns {
	uint32_t nsid; /* 1.. */
	char *uri; /* what mqblk_dev_open takes: a path, null:..., ... */
	bool enabled; /* nvmetcli "enable": a disabled one is not visible */
	bool has_uuid, has_nguid, has_eui64;
	uint8_t uuid[16];
	uint8_t nguid[16];
	uint8_t eui64[8];
	bool readonly; /* opened without MQBLK_OPEN_WRITE */
	uint32_t anagrpid; /* ANA group: 1..TGT_MAX_ANA_GROUPS */

	/* set when the target starts (tgt_start) */
	struct mqblk_dev *dev;
	uint64_t size; /* bytes */
	uint32_t lba_shift; /* log2 of the logical block size */
	bool vwc; /* a volatile write cache to flush (files, block devices) */
	struct mqblk_queue **q; /* per reactor, opened by that reactor */
	struct tgt_ns_stats *st; /* per reactor, written by that reactor */
	/* removed by the control socket (core/live.c): reactors that have
	 * not yet let go of it (no request of theirs refers to it, their
	 * device queue closed); the last one closes the device */
	_Atomic unsigned retire_refs;
	/* a reactor left requests stuck on its failed device: never closed
	 * (reactor.c's devq_close) */
	_Atomic bool stuck;
};

/* An allowed host (nvmetcli "hosts" / "allowed_hosts"), with its
 * DH-HMAC-CHAP secrets (nvmetcli's "dhchap"): every queue of a host with a
 * key must authenticate. Hash and group lists in the controller's order of
 * preference (nvmet's defaults: hmac(sha256), null). */
struct tgt_host {
	char nqn[TGT_NQN_MAX + 1];
	struct nvme_auth_key key; /* len 0: no authentication */
	struct nvme_auth_key ctrl_key; /* len 0: the host's alone (one way) */
	uint8_t hashes[NVME_AUTH_MAX_IDS];
	uint8_t nr_hashes;
	uint8_t dhgroups[NVME_AUTH_MAX_IDS];
	uint8_t nr_dhgroups;
	/* TLS (nvmetcli "tls_key", --tls-key): the configured PSK its
	 * NVMe/TCP connections to a TLS port prove; len 0: none */
	struct nvme_tls_key tls_key;
};

struct tgt_subsys {
	char nqn[TGT_NQN_MAX + 1];
	bool discovery; /* the discovery subsystem (built in, not configured) */
	char serial[21]; /* ASCII, space padded on the wire */
	char model[41];
	char firmware[9];
	uint16_t cntlid_min, cntlid_max; /* 1..0xffef by default */
	bool allow_any_host; /* attr_allow_any_host */
	struct tgt_host *hosts; /* allowed hosts */
	unsigned nr_hosts;
	/* sorted by nsid; each its own allocation, so a request or a
	 * reactor's device queue may keep pointing at one while the
	 * control socket adds or removes others */
	struct tgt_ns **ns;
	unsigned nr_ns;

	pthread_mutex_t lock; /* controllers (Connect, teardown) */
	struct tgt_ctrl *ctrls; /* list through ctrl->next */
	uint16_t next_cntlid;
	/* discovery log generation (discovery subsys): the control thread
	 * bumps it when a port goes down or up */
	_Atomic uint64_t genctr;
	/* controllers gone, and their counters (under the stats lock) */
	uint64_t ctrls_gone;
	struct tgt_counters gone;
};

/* A port: an address the target listens on, and the subsystems linked
 * to it (nvmetcli "ports" with their "subsystems"). */
struct tgt_port {
	uint16_t portid; /* nvmetcli port name, a number */
	uint8_t trtype; /* NVMF_TRTYPE_*; 0: TCP, the default */
	int adrfam; /* NVMF_ADDR_FAMILY_IP4/IP6 */
	char traddr[64];
	char trsvcid[32];
	bool discovery_only; /* the --discovery-port: no I/O subsystems */
	uint32_t inline_data; /* nvmet inline_data_size: in-capsule bytes
			       * on I/O queues (0..TGT_MAX_INLINE_DATA) */
	uint32_t max_queue_size; /* nvmet max_queue_size: MQES + 1 */
	/* NVMe/TCP secure channel (nvmetcli addr.tsas, addr.treq):
	 * NVMF_TCP_SECTYPE_TLS13 takes TLS 1.3 handshakes; treq's
	 * NVMF_TREQ_REQUIRED refuses a plaintext ICReq there */
	uint8_t sectype;
	uint8_t treq;
	struct tgt_subsys **subsys; /* linked subsystems */
	unsigned nr_subsys;
	int listen_fd; /* -1 until tgt_start; reactor 0's once running */
	/*
	 * ANA state of each group as seen through this port (NVME_ANA_*,
	 * index = ANA group ID). The control thread writes, any reactor's
	 * I/O path reads: atomics, relaxed (a command racing a change may
	 * see either state, as on any target).
	 */
	_Atomic uint8_t ana_state[TGT_MAX_ANA_GROUPS + 1];
	_Atomic bool down; /* `mqblk ctl port-down`: not listening */
	/* reactor 0's: accept ran out of descriptors (or memory), so the
	 * listener is out of its epoll until the next tick (level
	 * triggered, it would spin); how many times so far */
	bool accept_paused;
	uint64_t accept_pauses;
	_Atomic uint64_t rejects; /* RDMA: connect requests refused */
	/* connections closed, and their queues' counters (under the stats
	 * lock) */
	uint64_t conns_gone;
	struct tgt_counters gone;
	/* `mqblk ctl remove-port`: a slot left so that pointers to it
	 * stay good (queues, controllers, epoll); listed nowhere */
	bool removed;
};

/* Per-ctrl I/O counters for SMART (updated by each reactor, atomics). */
struct tgt_ctrl_smart {
	_Atomic uint64_t read_bytes, write_bytes;
	_Atomic uint64_t read_cmds, write_cmds;
};

/* Controller registers and admin state. */
struct tgt_ctrl {
	struct tgt *tgt;
	struct tgt_subsys *subsys;
	struct tgt_port *port; /* the port the admin queue came in on */
	struct tgt_ctrl *next; /* subsys->ctrls */
	struct tgt_queue *adminq; /* its admin queue (that reactor only) */
	uint16_t cntlid;
	char hostnqn[TGT_NQN_MAX + 1];
	uint8_t hostid[16];

	/* registers (Property Get/Set) */
	uint64_t cap;
	uint32_t vs;
	uint32_t cc;
	_Atomic uint32_t csts;

	uint16_t sqsize; /* admin queue's, 0's based */
	_Atomic uint32_t kato_ms; /* 0: no keep alive; Set Features changes it */
	_Atomic uint64_t last_ka_ns; /* any command, any queue */
	_Atomic bool dead; /* torn down: every queue of it closes */
	/* when the keep-alive timer tore it down (admin reactor's; 0: not
	 * that way, or the admin queue is to close now): until
	 * TGT_KA_SHUTDOWN_GRACE_MS later its admin queue still answers
	 * Property Get/Set, for the shutdown of a host that stopped its
	 * keep-alives to tear the controller down itself */
	uint64_t ka_dead_ns;
	_Atomic int refs; /* queues (admin and I/O) + Connect in flight */

	/* Set Features state */
	unsigned nr_io_queues; /* granted (Number of Queues): 1.. */
	uint32_t aec; /* Asynchronous Event Configuration */
	bool vwc; /* Volatile Write Cache enabled */
	uint32_t hostid_feature_set; /* Host Identifier set via features */

	/* I/O queues by qid (1..nr_io_queues), under subsys->lock */
	struct tgt_queue *ioq[TGT_MAX_IO_QUEUES + 1];

	/* Asynchronous events: outstanding AER command ids, and events
	 * waiting for one (DW0 of the completion) */
	uint16_t aer_cid[TGT_AERL];
	unsigned nr_aer;
	uint32_t aen_pending[8];
	unsigned nr_aen_pending;
	uint32_t aen_masked; /* event types reported and not yet read
			      * (the log page clears them; RAE keeps) */

	/* Error Information log: newest first */
	struct nvme_error_log_entry errlog[TGT_ERROR_LOG_ENTRIES];
	uint64_t err_count;

	/* Changed Namespace List (log 04h): NSIDs since last read */
	uint32_t changed_ns[1024];
	unsigned nr_changed_ns;

	uint64_t start_ns; /* for power-on hours */

	/* SMART / Health log (02h): every I/O queue's reactor adds */
	struct tgt_ctrl_smart smart;
	/* its queues that went away (under the stats lock) */
	struct tgt_counters gone;
};

/* The whole target: configuration and run-time. */
struct tgt {
	struct tgt_port *ports;
	unsigned nr_ports;
	struct tgt_subsys **subsys; /* configured (I/O) subsystems */
	unsigned nr_subsys;
	struct tgt_subsys disc; /* the discovery subsystem */
	/* ANA groups that exist (group 1, and every group a namespace or
	 * a port's configuration names): fixed once configured */
	bool ana_group_used[TGT_MAX_ANA_GROUPS + 1];
	/* ANA change count: incremented on every state change (the log
	 * page's CHGCNT); written by the control thread */
	_Atomic uint64_t ana_chgcnt;
	char *ctl_path; /* --ctl: control socket, NULL = none */
	/* --metrics ADDR:PORT (as given, NULL = none), parsed */
	char *metrics;
	int metrics_adrfam; /* NVMF_ADDR_FAMILY_IP4/IP6 */
	char metrics_addr[64];
	uint16_t metrics_port;

	unsigned nr_reactors; /* 0 = one per online CPU */
	uint32_t stall_ms; /* a command outstanding this long is logged */
	/* hostile load: a connection that has not completed its Connect
	 * this long is closed (0: TGT_CONNECT_TIMEOUT_MS), and at most
	 * max_unconnected such wait at once (0: TGT_MAX_UNCONNECTED), the
	 * oldest closed to make room */
	uint32_t connect_timeout_ms;
	uint32_t max_unconnected;
	/* ... and how many were closed so (logged at exit) */
	_Atomic uint64_t conn_timeouts, conn_evictions;
	/* cache flushes that failed as a device queue closed (shutdown, a
	 * namespace removed): what was written may not be durable */
	_Atomic uint64_t close_flush_failed;
	char *stats_path; /* --stats-socket (or the default): a second control
			   * socket, NULL = none */
	bool verbose;
	bool busy_poll; /* reactors poll sockets and devices, never sleep */
	/* response coalescing (--coalesce-count/--coalesce-usecs): a
	 * queue's completions wait until coal_count are queued or the
	 * oldest has waited coal_usecs; coal_count <= 1: off */
	uint32_t coal_count, coal_usecs;
	/* --zerocopy: data-bearing sends with MSG_ZEROCOPY, their
	 * completion notifications read after every send (signalled) or
	 * once per reactor pass, many sends in one (unsignalled) */
	enum tgt_zerocopy {
		TGT_ZC_OFF,
		TGT_ZC_SIGNALLED,
		TGT_ZC_UNSIGNALLED
	} zerocopy;
	/* --ktls: enum nvme_ktls_mode, TLS queues' records in the kernel
	 * after the handshake (auto: where it has the tls module) */
	uint8_t ktls;
	/* --anatt: Identify's ANA transition time, seconds (0 =
	 * TGT_ANATT) */
	uint8_t anatt;
	/* RDMA: one SEND in rdma_signal_every signalled (0 or 1: every
	 * one); completion events moderated (rdma_cqm_count completions or
	 * rdma_cqm_usecs, by the device or in software; count 0: off) */
	uint32_t rdma_signal_every;
	uint32_t rdma_cqm_count, rdma_cqm_usecs;
	bool rdma_srq; /* one shared receive queue per reactor */

	/* The control socket's live changes (core/live.c, main thread
	 * only): room for ports added while running (t->ports does not
	 * move: queues and epoll point into it), hosts add-host defined,
	 * subsystems and namespaces removed and not yet freed. */
	unsigned ports_cap;
	/* hosts defined apart from a subsystem (nvmetcli's "hosts",
	 * add-host): allow-host and save take them from here */
	struct tgt_host *hosts;
	unsigned nr_hosts;
	char *config_path; /* --config, absolute: save and SIGHUP */
	struct tgt_subsys **gone_subsys;
	unsigned nr_gone_subsys;
	struct tgt_ns **gone_ns;
	unsigned nr_gone_ns;
};

/* ---- Admin commands (core/admin_cmd.c) -------------------------------- */

/* tgt_admin_exec's "no completion now": the command stays outstanding
 * (an Asynchronous Event Request) until tgt_ctrl_aen() completes it. */
#define TGT_STATUS_DEFER 0xffffu

/*
 * Execute an admin command other than a Fabrics command, on ctrl's admin
 * queue (a discovery controller: only what a discovery controller
 * supports). buf, len: the command's data (len = transfer length from
 * the SGL; for data the controller returns, fill at most len bytes; for
 * data the host sent, len bytes of it). *result: completion DW0.
 * Returns an NVMe status (NVME_SC_*, with NVME_SC_DNR where the spec
 * says no retry would help) or TGT_STATUS_DEFER.
 */
uint16_t tgt_admin_exec(struct tgt_ctrl *ctrl, const union nvme_command *sqe,
			void *buf, uint32_t len, uint32_t *result);

/*
 * The data direction and length an admin command needs, checked against
 * what the SGL says (len): 0 = no data, 1 = to the host, 2 = from the
 * host. core/req.c uses it to size buffers before the handler runs.
 */
int tgt_admin_data_dir(const union nvme_command *sqe);

/*
 * Post an asynchronous event (DW0 of the AER completion: type, info, log
 * page) for ctrl: completes an outstanding AER through
 * tgt_queue_complete_aer(), or keeps it until one arrives. Admin queue's
 * reactor only.
 */
void tgt_ctrl_aen(struct tgt_ctrl *ctrl, uint32_t dw0);

/* Namespace nsid of ctrl's subsystem changed (added, removed, enabled,
 * disabled): into the Changed Namespace List (nvmet's rules), then the
 * Namespace Attribute Changed notice if enabled. Admin queue's reactor,
 * or the main thread with the reactors paused (core/live.c). */
void tgt_ctrl_ns_changed(struct tgt_ctrl *ctrl, uint32_t nsid);

/* Record a failed command in ctrl's Error Information log. */
void tgt_ctrl_log_error(struct tgt_ctrl *ctrl, uint16_t sqid, uint16_t cid,
			uint16_t status, uint16_t param_loc, uint64_t lba,
			uint32_t nsid);

/* A namespace of ctrl's subsystem by NSID, enabled ones only; NULL if
 * none (or nsid 0 / broadcast). */
struct tgt_ns *tgt_subsys_ns(struct tgt_subsys *s, uint32_t nsid);

/* May this host use subsystem s (allow_any_host or named)? */
bool tgt_host_allowed(const struct tgt_subsys *s, const char *hostnqn);

/* s's entry for hostnqn when it names one, else NULL (allow_any_host,
 * discovery): the entry says whether the host must authenticate. */
const struct tgt_host *tgt_host_find(const struct tgt_subsys *s,
				     const char *hostnqn);

/* ---- Provided by the core's requests for admin_cmd.c --------------------- */

/* Complete the outstanding AER with command id cid on ctrl's admin
 * queue with DW0 dw0. */
void tgt_queue_complete_aer(struct tgt_ctrl *ctrl, uint16_t cid, uint32_t dw0);

/* ---- Configuration (config/) --------------------------------------------- */

/*
 * Fill t from nvmetcli's saved JSON (`nvmetcli save`): ports (addr_*,
 * portid, subsystems), subsystems (nqn, attr_allow_any_host,
 * attr_serial, attr_model, attr_cntlid_min/max, allowed_hosts,
 * namespaces: nsid, enable, device.path, device.uuid, device.nguid,
 * device.eui64), hosts. Device paths may be any mqblk device URI.
 * Returns 0, or -1 with a one-line reason (naming the file, and the
 * JSON path of the bad value) in err.
 *
 * t: zeroed, or with only the run options (nr_reactors, stall_ms,
 * stats_path, verbose) set; they are kept (stall_ms 0 becomes the
 * default). On failure the model parts are freed again (ports,
 * subsystems, disc), so tgt_config_free(t) stays safe either way. The
 * discovery subsystem (t->disc) may carry the file's "discovery.nqn";
 * Connect should take NVME_DISC_SUBSYS_NAME as well, as nvmet does.
 */
int tgt_config_load(struct tgt *t, const char *path, char *err, size_t errlen);

/* The same from len bytes in memory; name stands for the file in
 * messages (the fuzz harness and unit tests use it). */
int tgt_config_load_buf(struct tgt *t, const char *name, const char *buf,
			size_t len, char *err, size_t errlen);

/*
 * The command line (argv[0] is "target"): --config FILE | --listen
 * ADDR:PORT --nqn NQN --ns URI [--ns URI ...] [--allow-host NQN ... |
 * --allow-any-host] [--discovery-port PORT] [--reactors N]
 * [--stall-ms MS] [--stats-socket PATH] [-v]. Returns 0, 1 for --help
 * (usage printed), or -1 with a one-line reason in err. t is
 * overwritten; on 1 or -1 it is left empty (tgt_config_free is still
 * safe).
 */
int tgt_config_args(struct tgt *t, int argc, char **argv, char *err,
		    size_t errlen);

/* The model as nvmetcli's saved JSON into *out (malloc'd, pretty, one
 * trailing newline), what tgt_config_load reads back the same. 0, or -1
 * with a one-line reason. */
int tgt_config_to_json(const struct tgt *t, char **out, char *err,
		       size_t errlen);

/* tgt_config_to_json into path, atomically (a 0600 file beside it, then
 * renamed over it). 0, or -1 with a one-line reason. */
int tgt_config_save(const struct tgt *t, const char *path, char *err,
		    size_t errlen);

/* The model as text, one line per port, subsystem, namespace and host
 * (no secrets): `mqblk ctl show`. */
void tgt_config_show(const struct tgt *t, FILE *f);

/* Free what the two above allocated and zero t. Safe on a zeroed t, after
 * a failure, and twice. */
void tgt_config_free(struct tgt *t);

/*
 * A port by its ID ("2") or its address as --listen gives it
 * ("127.0.0.1:4420", "[::1]:4420"): spec is len bytes, not terminated.
 * NULL with a one-line reason in err if there is none.
 */
struct tgt_port *tgt_port_find(struct tgt *t, const char *spec, size_t len,
			       char *err, size_t errlen);

/* A one-line reason into err (errlen bytes; none if err is NULL or errlen
 * 0); returns -1, for "return tgt_err(...)". */
int tgt_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- Control socket (config/ctl.c; served by core/run.c) -------------- */

enum tgt_ctl_op {
	TGT_CTL_ANA, /* ana GROUP PORT STATE */
	TGT_CTL_PORT_DOWN, /* port-down PORT */
	TGT_CTL_PORT_UP, /* port-up PORT */
	TGT_CTL_NS_SET, /* ns-set NQN NSID KEY=VALUE */
	/* ns-set and every op after STATS are run by core/live.c */
	TGT_CTL_STATS, /* stats */
	/* live configuration (config/ctl_config.c, core/live.c) */
	TGT_CTL_ADD_SUBSYS, /* add-subsys NQN [allow_any_host=] [serial=]
			     * [model=] */
	TGT_CTL_REMOVE_SUBSYS, /* remove-subsys NQN */
	TGT_CTL_ADD_NS, /* add-ns NQN NSID URI [uuid=] [nguid=]
			 * [ana_grpid=] [enable=] */
	TGT_CTL_REMOVE_NS, /* remove-ns NQN NSID */
	TGT_CTL_ENABLE_NS, /* enable-ns NQN NSID */
	TGT_CTL_DISABLE_NS, /* disable-ns NQN NSID */
	TGT_CTL_ADD_PORT, /* add-port ID tcp|rdma ADDR PORT */
	TGT_CTL_REMOVE_PORT, /* remove-port ID */
	TGT_CTL_LINK, /* link PORT NQN */
	TGT_CTL_UNLINK, /* unlink PORT NQN */
	TGT_CTL_ADD_HOST, /* add-host HOSTNQN [dhchap_key=] [tls_key=] */
	TGT_CTL_REMOVE_HOST, /* remove-host HOSTNQN */
	TGT_CTL_ALLOW_HOST, /* allow-host NQN HOSTNQN */
	TGT_CTL_DISALLOW_HOST, /* disallow-host NQN HOSTNQN */
	TGT_CTL_ALLOW_ANY_HOST, /* allow-any-host NQN 0|1 */
	TGT_CTL_SAVE, /* save [FILE] */
	TGT_CTL_SHOW, /* show */
};

#define TGT_CTL_LINE_MAX 512 /* a command line, with its newline */

/* A word of a control line: len bytes at s, not terminated. */
struct tgt_ctl_word {
	const char *s;
	size_t len;
};

struct tgt_ctl_cmd {
	enum tgt_ctl_op op;
	/* -o FORMAT, taken by every command: text (no -o), json (the
	 * answer as JSON: stats its own document, the others one object),
	 * table (stats alone: the queue table, as target --stats) */
	enum tgt_ctl_format {
		TGT_CTL_TEXT,
		TGT_CTL_JSON,
		TGT_CTL_TABLE,
	} format;
	bool json; /* format == TGT_CTL_JSON */
	uint32_t grp; /* ana: 1..TGT_MAX_ANA_GROUPS */
	uint8_t state; /* ana: NVME_ANA_* */
	char port[128]; /* ana, port-*, link, unlink: the PORT word */
	/* live configuration: what the command names and sets */
	char nqn[TGT_NQN_MAX + 1]; /* the subsystem (add-host: the host) */
	char hostnqn[TGT_NQN_MAX + 1]; /* allow-host, disallow-host */
	uint32_t nsid; /* 1..TGT_MAX_NS */
	char uri[TGT_CTL_LINE_MAX]; /* add-ns: the device */
	bool has_uuid, has_nguid;
	uint8_t uuid[16], nguid[16];
	uint32_t anagrpid; /* add-ns: 0 = the default group */
	int enable; /* add-ns: -1 unset (enabled), 0, 1 */
	int allow_any; /* add-subsys, allow-any-host: -1 unset, 0, 1 */
	char serial[21], model[41]; /* add-subsys: "" = the default */
	uint16_t portid; /* add-port, remove-port */
	uint8_t trtype; /* add-port: NVMF_TRTYPE_* */
	char traddr[64], trsvcid[32]; /* add-port */
	char dhchap_key[TGT_CTL_LINE_MAX]; /* add-host: "" = none */
	char tls_key[TGT_CTL_LINE_MAX]; /* add-host: "" = none */
	char path[TGT_CTL_LINE_MAX]; /* save: "" = --config's file */
	char key[32], val[64]; /* ns-set: the device URI key and its value */
	/* not from a line: a SIGHUP reload's new configuration gives the
	 * whole object to copy (what a line cannot say: firmware, cntlid
	 * range, EUI-64, port parameters, a host's key set) */
	const struct tgt_subsys *subsys_tmpl; /* add-subsys */
	const struct tgt_ns *ns_tmpl; /* add-ns */
	const struct tgt_port *port_tmpl; /* add-port */
	const struct tgt_host *host_tmpl; /* allow-host */
};

/*
 * One control line (len bytes, no newline needed, words separated by
 * spaces or tabs) into cmd. Returns 0, or -1 with a one-line reason in
 * err. Syntax only: tgt_ctl_port() finds the port.
 */
int tgt_ctl_parse(const char *line, size_t len, struct tgt_ctl_cmd *cmd,
		  char *err, size_t errlen);

/* The live configuration commands (config/ctl_config.c): the n words
 * of a line whose first word is w[0] into cmd. 0, -1 with a one-line
 * reason, or 1 when w[0] names none of them. */
int tgt_ctl_config_parse(const struct tgt_ctl_word *w, size_t n,
			 struct tgt_ctl_cmd *cmd, char *err, size_t errlen);

/* "add-subsys, remove-subsys, ..." for messages. */
const char *tgt_ctl_config_names(void);

/* Apply a live configuration command to a running target (core/live.c,
 * the main thread's): "ok" and what changed to out (text, or one JSON
 * object with cmd->json), or -1 with a one-line reason in err and
 * nothing changed. */
int tgt_live_exec(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		  char *err, size_t errlen);

/* The port cmd names, checked for what cmd does with it (not the
 * discovery-only port for ana); NULL with a reason in err. */
struct tgt_port *tgt_ctl_port(struct tgt *t, const struct tgt_ctl_cmd *cmd,
			      char *err, size_t errlen);

/* `mqblk ctl PATH CMD ARGS...`: send the words as one line to a
 * running target's control socket, print its answer. Returns the exit
 * status (0 ok, 1 refused or unreachable, 2 usage). */
int tgt_ctl_client(int argc, char **argv);

/* ---- Running (core/run.c) ----------------------------------------------- */

/* Open devices, listen, run reactors until SIGINT/SIGTERM; clean
 * shutdown. Returns the process exit status. */
int tgt_run(struct tgt *t);

/* `mqblk target --stats`: print the per-queue table of the running target
 * whose control socket (--ctl or --stats-socket) is at path: `stats -o
 * table` sent there. Returns the exit status. */
int tgt_stats_client(const char *path);

#endif
