/* SPDX-License-Identifier: MIT */
/*
 * NVMe wire structures (NVM Express Base 2.0, NVMe over Fabrics 1.1):
 * commands, completions, status codes, registers, Identify and log pages.
 */
#ifndef MQBLK_NVME_NVME_H
#define MQBLK_NVME_NVME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Little-endian wire values. The typedefs only document which fields are
 * little-endian; convert with the helpers below, never use them raw. The
 * get/put forms take a byte pointer and need no alignment: a receive
 * buffer may put a field anywhere.
 */
typedef uint16_t nvme_le16;
typedef uint32_t nvme_le32;
typedef uint64_t nvme_le64;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NVME_LE16(x) ((uint16_t)(x))
#define NVME_LE32(x) ((uint32_t)(x))
#define NVME_LE64(x) ((uint64_t)(x))
#else
#define NVME_LE16(x) __builtin_bswap16(x)
#define NVME_LE32(x) __builtin_bswap32(x)
#define NVME_LE64(x) __builtin_bswap64(x)
#endif

static inline uint16_t le16_to_cpu(nvme_le16 v)
{
	return NVME_LE16(v);
}

static inline uint32_t le32_to_cpu(nvme_le32 v)
{
	return NVME_LE32(v);
}

static inline uint64_t le64_to_cpu(nvme_le64 v)
{
	return NVME_LE64(v);
}

static inline nvme_le16 cpu_to_le16(uint16_t v)
{
	return NVME_LE16(v);
}

static inline nvme_le32 cpu_to_le32(uint32_t v)
{
	return NVME_LE32(v);
}

static inline nvme_le64 cpu_to_le64(uint64_t v)
{
	return NVME_LE64(v);
}

static inline uint16_t nvme_get_le16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t nvme_get_le32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static inline uint64_t nvme_get_le64(const void *p)
{
	const uint8_t *b = p;

	return (uint64_t)nvme_get_le32(b) | (uint64_t)nvme_get_le32(b + 4)
						    << 32;
}

static inline void nvme_put_le16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void nvme_put_le32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void nvme_put_le64(void *p, uint64_t v)
{
	uint8_t *b = p;

	nvme_put_le32(b, (uint32_t)v);
	nvme_put_le32(b + 4, (uint32_t)(v >> 32));
}

/*
 * Copy a C string into a fixed-width ASCII field padded with spaces, as
 * Identify's sn/mn/fr are (NQN fields are NUL padded: use memcpy there).
 */
static inline void nvme_put_ascii(void *field, size_t width, const char *s)
{
	size_t n = strnlen(s, width);

	memcpy(field, s, n);
	memset((char *)field + n, ' ', width - n);
}

#define NVME_NQN_SIZE 256 /* NQN fields: 223 characters + NUL, padded */
#define NVME_SQE_SIZE 64
#define NVME_CQE_SIZE 16
#define NVME_IDENTIFY_SIZE 4096
#define NVME_DISC_ENTRY_SIZE 1024

/* ---- Opcodes ------------------------------------------------------------ */

enum nvme_admin_opcode {
	nvme_admin_delete_sq = 0x00,
	nvme_admin_create_sq = 0x01,
	nvme_admin_get_log_page = 0x02,
	nvme_admin_delete_cq = 0x04,
	nvme_admin_create_cq = 0x05,
	nvme_admin_identify = 0x06,
	nvme_admin_abort = 0x08,
	nvme_admin_set_features = 0x09,
	nvme_admin_get_features = 0x0a,
	nvme_admin_async_event = 0x0c,
	nvme_admin_ns_mgmt = 0x0d,
	nvme_admin_fw_commit = 0x10,
	nvme_admin_fw_download = 0x11,
	nvme_admin_dev_self_test = 0x14,
	nvme_admin_ns_attach = 0x15,
	nvme_admin_keep_alive = 0x18,
	nvme_admin_directive_send = 0x19,
	nvme_admin_directive_recv = 0x1a,
	nvme_admin_dbbuf = 0x7c,
	nvme_admin_format_nvm = 0x80,
	nvme_admin_security_send = 0x81,
	nvme_admin_security_recv = 0x82,
	nvme_admin_sanitize = 0x84,
	nvme_admin_get_lba_status = 0x86,
};

enum nvme_io_opcode {
	nvme_cmd_flush = 0x00,
	nvme_cmd_write = 0x01,
	nvme_cmd_read = 0x02,
	nvme_cmd_write_uncor = 0x04,
	nvme_cmd_compare = 0x05,
	nvme_cmd_write_zeroes = 0x08,
	nvme_cmd_dsm = 0x09,
	nvme_cmd_verify = 0x0c,
	nvme_cmd_resv_register = 0x0d,
	nvme_cmd_resv_report = 0x0e,
	nvme_cmd_resv_acquire = 0x11,
	nvme_cmd_resv_release = 0x15,
	nvme_cmd_copy = 0x19,
};

/* Fabrics commands share one opcode on every queue; fctype tells them apart */
#define nvme_fabrics_command 0x7f

enum nvme_fabrics_type {
	nvme_fabrics_type_property_set = 0x00,
	nvme_fabrics_type_connect = 0x01,
	nvme_fabrics_type_property_get = 0x04,
	nvme_fabrics_type_auth_send = 0x05,
	nvme_fabrics_type_auth_receive = 0x06,
	nvme_fabrics_type_disconnect = 0x08,
};

/* ---- Status (SCT << 8 | SC; in the CQE it sits shifted left by one) ----- */

enum nvme_status {
	/* generic command status (SCT 0) */
	NVME_SC_SUCCESS = 0x000,
	NVME_SC_INVALID_OPCODE = 0x001,
	NVME_SC_INVALID_FIELD = 0x002,
	NVME_SC_CMDID_CONFLICT = 0x003,
	NVME_SC_DATA_XFER_ERROR = 0x004,
	NVME_SC_POWER_LOSS = 0x005,
	NVME_SC_INTERNAL = 0x006,
	NVME_SC_ABORT_REQ = 0x007,
	NVME_SC_ABORT_QUEUE = 0x008,
	NVME_SC_FUSED_FAIL = 0x009,
	NVME_SC_FUSED_MISSING = 0x00a,
	NVME_SC_INVALID_NS = 0x00b,
	NVME_SC_CMD_SEQ_ERROR = 0x00c,
	NVME_SC_SGL_INVALID_LAST = 0x00d,
	NVME_SC_SGL_INVALID_COUNT = 0x00e,
	NVME_SC_SGL_INVALID_DATA = 0x00f,
	NVME_SC_SGL_INVALID_METADATA = 0x010,
	NVME_SC_SGL_INVALID_TYPE = 0x011,
	NVME_SC_CMB_INVALID_USE = 0x012,
	NVME_SC_PRP_INVALID_OFFSET = 0x013,
	NVME_SC_ATOMIC_WU_EXCEEDED = 0x014,
	NVME_SC_OP_DENIED = 0x015,
	NVME_SC_SGL_INVALID_OFFSET = 0x016,
	NVME_SC_HOST_ID_INCONSIST = 0x018,
	NVME_SC_KA_TIMEOUT_EXPIRED = 0x019,
	NVME_SC_KA_TIMEOUT_INVALID = 0x01a,
	NVME_SC_ABORTED_PREEMPT = 0x01b,
	NVME_SC_SANITIZE_FAILED = 0x01c,
	NVME_SC_SANITIZE_IN_PROGRESS = 0x01d,
	NVME_SC_SGL_INVALID_GRANULARITY = 0x01e,
	NVME_SC_CMD_NOT_SUP_CMB_QUEUE = 0x01f,
	NVME_SC_NS_WRITE_PROTECTED = 0x020,
	NVME_SC_CMD_INTERRUPTED = 0x021,
	NVME_SC_TRANSIENT_TR_ERR = 0x022,
	NVME_SC_ADMIN_MEDIA_NOT_READY = 0x024,
	NVME_SC_INVALID_IO_CMD_SET = 0x02c,
	/* generic, NVM command set */
	NVME_SC_LBA_RANGE = 0x080,
	NVME_SC_CAP_EXCEEDED = 0x081,
	NVME_SC_NS_NOT_READY = 0x082,
	NVME_SC_RESERVATION_CONFLICT = 0x083,
	NVME_SC_FORMAT_IN_PROGRESS = 0x084,

	/* command specific status (SCT 1) */
	NVME_SC_CQ_INVALID = 0x100,
	NVME_SC_QID_INVALID = 0x101,
	NVME_SC_QUEUE_SIZE = 0x102,
	NVME_SC_ABORT_LIMIT = 0x103,
	NVME_SC_ASYNC_LIMIT = 0x105,
	NVME_SC_FIRMWARE_SLOT = 0x106,
	NVME_SC_FIRMWARE_IMAGE = 0x107,
	NVME_SC_INVALID_VECTOR = 0x108,
	NVME_SC_INVALID_LOG_PAGE = 0x109,
	NVME_SC_INVALID_FORMAT = 0x10a,
	NVME_SC_FW_NEEDS_CONV_RESET = 0x10b,
	NVME_SC_INVALID_QUEUE = 0x10c,
	NVME_SC_FEATURE_NOT_SAVEABLE = 0x10d,
	NVME_SC_FEATURE_NOT_CHANGEABLE = 0x10e,
	NVME_SC_FEATURE_NOT_PER_NS = 0x10f,
	NVME_SC_FW_NEEDS_SUBSYS_RESET = 0x110,
	NVME_SC_FW_NEEDS_RESET = 0x111,
	NVME_SC_FW_NEEDS_MAX_TIME = 0x112,
	NVME_SC_FW_ACTIVATE_PROHIBITED = 0x113,
	NVME_SC_OVERLAPPING_RANGE = 0x114,
	NVME_SC_NS_INSUFFICIENT_CAP = 0x115,
	NVME_SC_NS_ID_UNAVAILABLE = 0x116,
	NVME_SC_NS_ALREADY_ATTACHED = 0x118,
	NVME_SC_NS_IS_PRIVATE = 0x119,
	NVME_SC_NS_NOT_ATTACHED = 0x11a,
	NVME_SC_THIN_PROV_NOT_SUPP = 0x11b,
	NVME_SC_CTRL_LIST_INVALID = 0x11c,
	/* command specific, NVM command set I/O commands */
	NVME_SC_BAD_ATTRIBUTES = 0x180,
	NVME_SC_INVALID_PI = 0x181,
	NVME_SC_READ_ONLY = 0x182,
	/* command specific, Fabrics Connect (and Discovery) */
	NVME_SC_CONNECT_FORMAT = 0x180,
	NVME_SC_CONNECT_CTRL_BUSY = 0x181,
	NVME_SC_CONNECT_INVALID_PARAM = 0x182,
	NVME_SC_CONNECT_RESTART_DISC = 0x183,
	NVME_SC_CONNECT_INVALID_HOST = 0x184,
	NVME_SC_CONNECT_INVALID_QUEUE_TYPE = 0x185,
	NVME_SC_DISCOVERY_RESTART = 0x190,
	NVME_SC_AUTH_REQUIRED = 0x191,

	/* media and data integrity errors (SCT 2) */
	NVME_SC_WRITE_FAULT = 0x280,
	NVME_SC_READ_ERROR = 0x281,
	NVME_SC_GUARD_CHECK = 0x282,
	NVME_SC_APPTAG_CHECK = 0x283,
	NVME_SC_REFTAG_CHECK = 0x284,
	NVME_SC_COMPARE_FAILED = 0x285,
	NVME_SC_ACCESS_DENIED = 0x286,
	NVME_SC_UNWRITTEN_BLOCK = 0x287,

	/* path related status (SCT 3) */
	NVME_SC_INTERNAL_PATH_ERROR = 0x300,
	NVME_SC_ANA_PERSISTENT_LOSS = 0x301,
	NVME_SC_ANA_INACCESSIBLE = 0x302,
	NVME_SC_ANA_TRANSITION = 0x303,
	NVME_SC_HOST_PATH_ERROR = 0x370,
	NVME_SC_HOST_ABORTED_CMD = 0x371,
};

/* Above SCT/SC in the same (unshifted) form */
#define NVME_SC_CRD 0x1800 /* command retry delay index, 2 bits */
#define NVME_SC_MORE 0x2000
#define NVME_SC_DNR 0x4000 /* do not retry */
#define NVME_SCT(s) (((s) >> 8) & 0x7)
#define NVME_SC(s) ((s)&0xff)

/* ---- Data pointer: SGL descriptors (Fabrics uses SGLs only) ------------ */

enum {
	NVME_SGL_FMT_ADDRESS = 0x00,
	NVME_SGL_FMT_OFFSET = 0x01, /* address is an offset into the capsule */
	NVME_SGL_FMT_TRANSPORT_A = 0x0a,
	NVME_SGL_FMT_INVALIDATE = 0x0f,
};

enum {
	NVME_SGL_FMT_DATA_DESC = 0x00,
	NVME_SGL_FMT_SEG_DESC = 0x02,
	NVME_SGL_FMT_LAST_SEG_DESC = 0x03,
	NVME_KEY_SGL_FMT_DATA_DESC = 0x04,
	NVME_TRANSPORT_SGL_DATA_DESC = 0x05,
};

/* SGL identifier byte: descriptor type in the high nibble, subtype low */
#define NVME_SGL_TYPE(desc, sub) ((uint8_t)((desc) << 4 | (sub)))
/* NVMe/TCP: data in the capsule, and data moved by R2T/H2CData/C2HData */
#define NVME_SGL_TCP_INCAPSULE \
	NVME_SGL_TYPE(NVME_SGL_FMT_DATA_DESC, NVME_SGL_FMT_OFFSET)
#define NVME_SGL_TCP_TRANSPORT \
	NVME_SGL_TYPE(NVME_TRANSPORT_SGL_DATA_DESC, NVME_SGL_FMT_TRANSPORT_A)

struct nvme_sgl_desc {
	nvme_le64 addr;
	nvme_le32 length;
	uint8_t rsvd[3];
	uint8_t type; /* NVME_SGL_TYPE() */
};

struct nvme_keyed_sgl_desc {
	nvme_le64 addr;
	uint8_t length[3]; /* 24-bit little endian */
	uint8_t key[4];
	uint8_t type;
};

union nvme_data_ptr {
	struct {
		nvme_le64 prp1;
		nvme_le64 prp2;
	};
	struct nvme_sgl_desc sgl;
	struct nvme_keyed_sgl_desc ksgl;
};

/* ---- Submission queue entries (64 bytes) -------------------------------- */

/* flags byte: fused operation bits 1:0, PSDT bits 7:6 */
#define NVME_CMD_FUSE_FIRST 0x01
#define NVME_CMD_FUSE_SECOND 0x02
#define NVME_CMD_SGL_METABUF 0x40 /* PSDT 01b: SGLs, metadata a buffer */
#define NVME_CMD_SGL_METASEG 0x80 /* PSDT 10b: SGLs, metadata an SGL */

struct nvme_common_command {
	uint8_t opcode;
	uint8_t flags;
	uint16_t command_id; /* opaque to the controller: any byte order */
	nvme_le32 nsid;
	nvme_le32 cdw2[2];
	nvme_le64 metadata;
	union nvme_data_ptr dptr;
	nvme_le32 cdw10;
	nvme_le32 cdw11;
	nvme_le32 cdw12;
	nvme_le32 cdw13;
	nvme_le32 cdw14;
	nvme_le32 cdw15;
};

struct nvme_rw_command {
	uint8_t opcode;
	uint8_t flags;
	uint16_t command_id;
	nvme_le32 nsid;
	nvme_le32 cdw2[2];
	nvme_le64 metadata;
	union nvme_data_ptr dptr;
	nvme_le64 slba;
	nvme_le16 length; /* number of logical blocks, 0's based */
	nvme_le16 control; /* NVME_RW_* */
	nvme_le32 dsmgmt;
	nvme_le32 reftag;
	nvme_le16 apptag;
	nvme_le16 appmask;
};

#define NVME_RW_FUA (1u << 14)
#define NVME_RW_LR (1u << 15) /* limited retry */

/* Identify CNS values */
enum {
	NVME_ID_CNS_NS = 0x00,
	NVME_ID_CNS_CTRL = 0x01,
	NVME_ID_CNS_NS_ACTIVE_LIST = 0x02,
	NVME_ID_CNS_NS_DESC_LIST = 0x03,
	NVME_ID_CNS_CS_NS = 0x05,
	NVME_ID_CNS_CS_CTRL = 0x06,
	NVME_ID_CNS_NS_CS_INDEP = 0x08,
	NVME_ID_CNS_NS_PRESENT_LIST = 0x10,
	NVME_ID_CNS_NS_PRESENT = 0x11,
	NVME_ID_CNS_CTRL_NS_LIST = 0x12,
	NVME_ID_CNS_CTRL_LIST = 0x13,
};

/* Command set identifiers (CSI) */
enum {
	NVME_CSI_NVM = 0x00,
	NVME_CSI_ZNS = 0x02,
};

struct nvme_identify_command {
	uint8_t opcode;
	uint8_t flags;
	uint16_t command_id;
	nvme_le32 nsid;
	nvme_le32 cdw2[2];
	nvme_le64 metadata;
	union nvme_data_ptr dptr;
	uint8_t cns; /* CDW10 7:0 */
	uint8_t rsvd41;
	nvme_le16 cntid; /* CDW10 31:16 */
	nvme_le16 cnssid; /* CDW11 15:0 */
	uint8_t rsvd46;
	uint8_t csi; /* CDW11 31:24 */
	nvme_le32 cdw12_15[4];
};

/* Log page identifiers */
enum {
	NVME_LOG_ERROR = 0x01,
	NVME_LOG_SMART = 0x02,
	NVME_LOG_FW_SLOT = 0x03,
	NVME_LOG_CHANGED_NS = 0x04,
	NVME_LOG_CMD_EFFECTS = 0x05,
	NVME_LOG_DEVICE_SELF_TEST = 0x06,
	NVME_LOG_TELEMETRY_HOST = 0x07,
	NVME_LOG_TELEMETRY_CTRL = 0x08,
	NVME_LOG_ENDURANCE_GROUP = 0x09,
	NVME_LOG_ANA = 0x0c,
	NVME_LOG_DISC = 0x70,
	NVME_LOG_RESERVATION = 0x80,
};

struct nvme_get_log_page_command {
	uint8_t opcode;
	uint8_t flags;
	uint16_t command_id;
	nvme_le32 nsid;
	nvme_le32 cdw2[2];
	nvme_le64 metadata;
	union nvme_data_ptr dptr;
	uint8_t lid; /* CDW10 7:0 */
	uint8_t lsp; /* CDW10 14:8 log specific; bit 15 RAE */
	nvme_le16 numdl; /* dwords to transfer, 0's based, low half */
	nvme_le16 numdu; /* ... high half (CDW11 15:0) */
	nvme_le16 lsi; /* log specific identifier */
	nvme_le64 lpo; /* log page offset in bytes, dword aligned */
	uint8_t rsvd56[3];
	uint8_t csi; /* CDW14 31:24 */
	nvme_le32 cdw15;
};

#define NVME_LOG_LSP_RAE 0x80 /* retain asynchronous event */
#define NVME_LOG_LSP_ANA_RGO 0x01 /* ANA log: return groups only */

/* Bytes a Get Log Page asks for */
static inline uint64_t
nvme_log_page_len(const struct nvme_get_log_page_command *c)
{
	uint32_t numd = (uint32_t)le16_to_cpu(c->numdu) << 16 |
			le16_to_cpu(c->numdl);

	return ((uint64_t)numd + 1) * 4;
}

/* Feature identifiers */
enum {
	NVME_FEAT_ARBITRATION = 0x01,
	NVME_FEAT_POWER_MGMT = 0x02,
	NVME_FEAT_LBA_RANGE = 0x03,
	NVME_FEAT_TEMP_THRESH = 0x04,
	NVME_FEAT_ERR_RECOVERY = 0x05,
	NVME_FEAT_VOLATILE_WC = 0x06,
	NVME_FEAT_NUM_QUEUES = 0x07,
	NVME_FEAT_IRQ_COALESCE = 0x08,
	NVME_FEAT_IRQ_CONFIG = 0x09,
	NVME_FEAT_WRITE_ATOMIC = 0x0a,
	NVME_FEAT_ASYNC_EVENT = 0x0b,
	NVME_FEAT_AUTO_PST = 0x0c,
	NVME_FEAT_HOST_MEM_BUF = 0x0d,
	NVME_FEAT_TIMESTAMP = 0x0e,
	NVME_FEAT_KATO = 0x0f,
	NVME_FEAT_HCTM = 0x10,
	NVME_FEAT_NOPSC = 0x11,
	NVME_FEAT_RRL = 0x12,
	NVME_FEAT_HOST_BEHAVIOR = 0x16,
	NVME_FEAT_SANITIZE = 0x17,
	NVME_FEAT_SW_PROGRESS = 0x80,
	NVME_FEAT_HOST_ID = 0x81,
	NVME_FEAT_RESV_MASK = 0x82,
	NVME_FEAT_RESV_PERSIST = 0x83,
	NVME_FEAT_WRITE_PROTECT = 0x84,
};

struct nvme_features_command {
	uint8_t opcode;
	uint8_t flags;
	uint16_t command_id;
	nvme_le32 nsid;
	nvme_le32 cdw2[2];
	nvme_le64 metadata;
	union nvme_data_ptr dptr;
	nvme_le32 fid; /* CDW10: FID 7:0, Get's SEL 10:8, Set's SV bit 31 */
	nvme_le32 dword11;
	nvme_le32 dword12;
	nvme_le32 dword13;
	nvme_le32 dword14;
	nvme_le32 dword15;
};

/* ---- Fabrics commands ---------------------------------------------------- */

struct nvmf_common_command {
	uint8_t opcode; /* nvme_fabrics_command */
	uint8_t rsvd1;
	uint16_t command_id;
	uint8_t fctype;
	uint8_t rsvd5[35];
	uint8_t ts[24]; /* fctype specific */
};

#define NVME_CONNECT_CATTR_PRIO_MASK 0x03
#define NVME_CONNECT_DISABLE_SQFLOW 0x04

struct nvmf_connect_command {
	uint8_t opcode;
	uint8_t rsvd1;
	uint16_t command_id;
	uint8_t fctype;
	uint8_t rsvd5[19];
	union nvme_data_ptr dptr; /* the 1024 bytes of nvmf_connect_data */
	nvme_le16 recfmt; /* record format: 0 */
	nvme_le16 qid; /* 0 = admin queue */
	nvme_le16 sqsize; /* 0's based */
	uint8_t cattr;
	uint8_t rsvd47;
	nvme_le32 kato; /* keep alive timeout, ms */
	uint8_t rsvd52[12];
};

/* Connect's data: who connects, to what, to which controller */
struct nvmf_connect_data {
	uint8_t hostid[16];
	nvme_le16 cntlid; /* 0xffff: any (dynamic); I/O queues: the admin's */
	uint8_t rsvd18[238];
	char subsysnqn[NVME_NQN_SIZE]; /* SUBNQN first, then HOSTNQN */
	char hostnqn[NVME_NQN_SIZE];
	uint8_t rsvd768[256];
};

#define NVME_CNTLID_DYNAMIC 0xffff

/*
 * Connect's completion DW0: the controller ID on success; on
 * NVME_SC_CONNECT_INVALID_PARAM the offset of the bad field (IPO) and
 * whether it is in the command (0) or the data (1) (IATTR).
 */
struct nvmf_connect_result {
	nvme_le16 ipo_or_cntlid;
	uint8_t iattr;
	uint8_t rsvd3;
};

#define NVMF_PROP_ATTR_8BYTE 0x01 /* attrib bits 2:0: 0 = 4 bytes, 1 = 8 */

struct nvmf_property_set_command {
	uint8_t opcode;
	uint8_t rsvd1;
	uint16_t command_id;
	uint8_t fctype;
	uint8_t rsvd5[35];
	uint8_t attrib;
	uint8_t rsvd41[3];
	nvme_le32 offset;
	nvme_le64 value;
	uint8_t rsvd56[8];
};

struct nvmf_property_get_command {
	uint8_t opcode;
	uint8_t rsvd1;
	uint16_t command_id;
	uint8_t fctype;
	uint8_t rsvd5[35];
	uint8_t attrib;
	uint8_t rsvd41[3];
	nvme_le32 offset;
	uint8_t rsvd48[16];
};

union nvme_command {
	uint8_t bytes[NVME_SQE_SIZE];
	struct nvme_common_command common;
	struct nvme_rw_command rw;
	struct nvme_identify_command identify;
	struct nvme_get_log_page_command get_log_page;
	struct nvme_features_command features;
	struct nvmf_common_command fabrics;
	struct nvmf_connect_command connect;
	struct nvmf_property_set_command prop_set;
	struct nvmf_property_get_command prop_get;
};

/* ---- Completion queue entry (16 bytes) ---------------------------------- */

struct nvme_completion {
	union {
		nvme_le64 u64;
		nvme_le32 u32; /* DW0 */
		nvme_le16 u16;
	} result;
	nvme_le16 sq_head;
	nvme_le16 sq_id;
	uint16_t command_id;
	nvme_le16 status; /* phase bit 0, then the status field (nvme_status) */
};

static inline uint16_t nvme_cqe_status(const struct nvme_completion *c)
{
	return le16_to_cpu(c->status) >> 1;
}

static inline void nvme_cqe_set_status(struct nvme_completion *c,
				       uint16_t status)
{
	c->status = cpu_to_le16((uint16_t)(status << 1));
}

/* ---- Controller registers (Property Get/Set offsets on Fabrics) -------- */

enum {
	NVME_REG_CAP = 0x00, /* 8 bytes */
	NVME_REG_VS = 0x08,
	NVME_REG_INTMS = 0x0c,
	NVME_REG_INTMC = 0x10,
	NVME_REG_CC = 0x14,
	NVME_REG_CSTS = 0x1c,
	NVME_REG_NSSR = 0x20,
	NVME_REG_AQA = 0x24,
	NVME_REG_ASQ = 0x28,
	NVME_REG_ACQ = 0x30,
};

/* CAP: 0's based max queue entries, timeout (500 ms units), doorbell
 * stride, command sets, min/max memory page size (2^(12+n)) */
#define NVME_CAP_MQES(cap) ((uint32_t)((cap)&0xffff))
#define NVME_CAP_CQR(cap) ((uint32_t)(((cap) >> 16) & 0x1))
#define NVME_CAP_TIMEOUT(cap) ((uint32_t)(((cap) >> 24) & 0xff))
#define NVME_CAP_STRIDE(cap) ((uint32_t)(((cap) >> 32) & 0xf))
#define NVME_CAP_NSSRC(cap) ((uint32_t)(((cap) >> 36) & 0x1))
#define NVME_CAP_CSS(cap) ((uint32_t)(((cap) >> 37) & 0xff))
#define NVME_CAP_MPSMIN(cap) ((uint32_t)(((cap) >> 48) & 0xf))
#define NVME_CAP_MPSMAX(cap) ((uint32_t)(((cap) >> 52) & 0xf))
#define NVME_CAP_CSS_NVM (1u << 0)
#define NVME_CAP_CSS_CSI (1u << 6)

static inline uint64_t nvme_cap_make(uint16_t mqes, uint8_t timeout,
				     uint8_t css, uint8_t mpsmin,
				     uint8_t mpsmax)
{
	return (uint64_t)mqes | 1ull << 16 /* CQR */ | (uint64_t)timeout << 24 |
	       (uint64_t)css << 37 | (uint64_t)(mpsmin & 0xf) << 48 |
	       (uint64_t)(mpsmax & 0xf) << 52;
}

/* VS: major 31:16, minor 15:8, tertiary 7:0 */
#define NVME_VS(major, minor, ter) \
	((uint32_t)(major) << 16 | (uint32_t)(minor) << 8 | (uint32_t)(ter))
#define NVME_VS_MAJOR(vs) ((vs) >> 16)
#define NVME_VS_MINOR(vs) (((vs) >> 8) & 0xff)

/* CC */
#define NVME_CC_ENABLE (1u << 0)
#define NVME_CC_CSS(cc) (((cc) >> 4) & 0x7)
#define NVME_CC_MPS(cc) (((cc) >> 7) & 0xf)
#define NVME_CC_AMS(cc) (((cc) >> 11) & 0x7)
#define NVME_CC_SHN(cc) (((cc) >> 14) & 0x3)
#define NVME_CC_IOSQES(cc) (((cc) >> 16) & 0xf)
#define NVME_CC_IOCQES(cc) (((cc) >> 20) & 0xf)
#define NVME_CC_SHN_NONE 0
#define NVME_CC_SHN_NORMAL 1
#define NVME_CC_SHN_ABRUPT 2
#define NVME_CC_CSS_NVM 0
#define NVME_CC_CSS_CSI 6

/* CSTS */
#define NVME_CSTS_RDY (1u << 0)
#define NVME_CSTS_CFS (1u << 1) /* controller fatal status */
#define NVME_CSTS_SHST_MASK (3u << 2)
#define NVME_CSTS_SHST_NORMAL (0u << 2)
#define NVME_CSTS_SHST_OCCUR (1u << 2)
#define NVME_CSTS_SHST_CMPLT (2u << 2)
#define NVME_CSTS_NSSRO (1u << 4)

/* ---- Identify Controller (CNS 01h, 4096 bytes) --------------------------- */

struct nvme_id_power_state {
	nvme_le16 max_power; /* centiwatts */
	uint8_t rsvd2;
	uint8_t flags;
	nvme_le32 entry_lat; /* us */
	nvme_le32 exit_lat; /* us */
	uint8_t read_tput;
	uint8_t read_lat;
	uint8_t write_tput;
	uint8_t write_lat;
	nvme_le16 idle_power;
	uint8_t idle_scale;
	uint8_t rsvd19;
	nvme_le16 active_power;
	uint8_t active_work_scale;
	uint8_t rsvd23[9];
};

struct nvme_id_ctrl {
	nvme_le16 vid; /* PCI vendor ID */
	nvme_le16 ssvid;
	char sn[20]; /* ASCII, space padded */
	char mn[40];
	char fr[8];
	uint8_t rab;
	uint8_t ieee[3];
	uint8_t cmic; /* multipath / sharing capabilities */
	uint8_t mdts; /* max transfer: 2^mdts min pages; 0 = no limit */
	nvme_le16 cntlid;
	nvme_le32 ver;
	nvme_le32 rtd3r;
	nvme_le32 rtd3e;
	nvme_le32 oaes; /* asynchronous events supported */
	nvme_le32 ctratt;
	nvme_le16 rrls;
	uint8_t rsvd102[9];
	uint8_t cntrltype; /* 1 I/O, 2 discovery, 3 administrative */
	uint8_t fguid[16];
	nvme_le16 crdt1;
	nvme_le16 crdt2;
	nvme_le16 crdt3;
	uint8_t rsvd134[119];
	uint8_t nvmsr;
	uint8_t vwci;
	uint8_t mec;
	nvme_le16 oacs; /* optional admin commands */
	uint8_t acl;
	uint8_t aerl;
	uint8_t frmw;
	uint8_t lpa; /* log page attributes */
	uint8_t elpe;
	uint8_t npss;
	uint8_t avscc;
	uint8_t apsta;
	nvme_le16 wctemp;
	nvme_le16 cctemp;
	nvme_le16 mtfa;
	nvme_le32 hmpre;
	nvme_le32 hmmin;
	uint8_t tnvmcap[16];
	uint8_t unvmcap[16];
	nvme_le32 rpmbs;
	nvme_le16 edstt;
	uint8_t dsto;
	uint8_t fwug;
	nvme_le16 kas; /* keep alive granularity, 100 ms units */
	nvme_le16 hctma;
	nvme_le16 mntmt;
	nvme_le16 mxtmt;
	nvme_le32 sanicap;
	nvme_le32 hmminds;
	nvme_le16 hmmaxd;
	nvme_le16 nsetidmax;
	nvme_le16 endgidmax;
	uint8_t anatt;
	uint8_t anacap;
	nvme_le32 anagrpmax;
	nvme_le32 nanagrpid;
	nvme_le32 pels;
	nvme_le16 domainid;
	uint8_t rsvd358[10];
	uint8_t megcap[16];
	uint8_t rsvd384[128];
	uint8_t sqes; /* max 7:4, required 3:0, log2 bytes */
	uint8_t cqes;
	nvme_le16 maxcmd;
	nvme_le32 nn; /* number of namespaces (highest NSID) */
	nvme_le16 oncs; /* optional NVM commands */
	nvme_le16 fuses;
	uint8_t fna;
	uint8_t vwc; /* volatile write cache */
	nvme_le16 awun;
	nvme_le16 awupf;
	uint8_t icsvscc;
	uint8_t nwpc;
	nvme_le16 acwu;
	nvme_le16 ocfs;
	nvme_le32 sgls; /* SGL support */
	nvme_le32 mnan;
	uint8_t maxdna[16];
	nvme_le32 maxcna;
	uint8_t rsvd564[204];
	char subnqn[NVME_NQN_SIZE];
	uint8_t rsvd1024[768];
	/* Fabrics: capsule sizes in 16-byte units, in-capsule data offset */
	nvme_le32 ioccsz;
	nvme_le32 iorcsz;
	nvme_le16 icdoff;
	uint8_t fcatt; /* bit 0: dynamic (0) / static (1) controller model */
	uint8_t msdbd; /* max SGL data block descriptors per command */
	nvme_le16 ofcs;
	uint8_t rsvd1806[242];
	struct nvme_id_power_state psd[32];
	uint8_t vs[1024];
};

/* Bits a Linux host tests */
#define NVME_CTRL_CMIC_MULTI_PORT (1u << 0)
#define NVME_CTRL_CMIC_MULTI_CTRL (1u << 1)
#define NVME_CTRL_CMIC_ANA (1u << 3)
#define NVME_CTRL_OACS_SEC_SUPP (1u << 0)
#define NVME_CTRL_OACS_NS_MNGT_SUPP (1u << 3)
#define NVME_CTRL_OACS_DIRECTIVES (1u << 5)
#define NVME_CTRL_OACS_DBBUF_SUPP (1u << 8)
#define NVME_CTRL_LPA_CMD_EFFECTS_LOG (1u << 1)
#define NVME_CTRL_LPA_EXT_DATA (1u << 2) /* extended Get Log Page */
#define NVME_CTRL_ONCS_COMPARE (1u << 0)
#define NVME_CTRL_ONCS_WRITE_UNCORRECTABLE (1u << 1)
#define NVME_CTRL_ONCS_DSM (1u << 2)
#define NVME_CTRL_ONCS_WRITE_ZEROES (1u << 3)
#define NVME_CTRL_ONCS_RESERVATIONS (1u << 5)
#define NVME_CTRL_ONCS_TIMESTAMP (1u << 6)
#define NVME_CTRL_VWC_PRESENT (1u << 0)
#define NVME_CTRL_VWC_FLUSH_NSID_FFFF (3u << 1) /* flush of all namespaces */
#define NVME_CTRL_SGLS_SUPPORTED 0x1u /* SGLs, no dword alignment needed */
#define NVME_CTRL_SGLS_KEYED (1u << 2)
#define NVME_CTRL_SGLS_OFFSET (1u << 20) /* address as offset (in-capsule) */
#define NVME_CTRL_SGLS_TRANSPORT (1u << 21) /* Transport SGL Data Block */
#define NVME_CTRL_CTRATT_128_ID (1u << 0)
#define NVME_CTRL_OAES_NS_ATTR (1u << 8)
#define NVME_CTRL_OAES_ANA_CHANGE (1u << 11)
#define NVME_CTRL_OAES_DISC_CHANGE (1u << 31)
#define NVME_CTRL_TYPE_IO 1
#define NVME_CTRL_TYPE_DISC 2

/* ---- Identify Namespace (CNS 00h, 4096 bytes) ---------------------------- */

struct nvme_lbaf {
	nvme_le16 ms; /* metadata bytes per block */
	uint8_t ds; /* log2 of the block size */
	uint8_t rp; /* relative performance */
};

struct nvme_id_ns {
	nvme_le64 nsze; /* size in blocks */
	nvme_le64 ncap;
	nvme_le64 nuse;
	uint8_t nsfeat;
	uint8_t nlbaf; /* number of LBA formats, 0's based */
	uint8_t flbas; /* the format in use (nvme_flbas_index) */
	uint8_t mc;
	uint8_t dpc;
	uint8_t dps;
	uint8_t nmic;
	uint8_t rescap;
	uint8_t fpi;
	uint8_t dlfeat;
	nvme_le16 nawun;
	nvme_le16 nawupf;
	nvme_le16 nacwu;
	nvme_le16 nabsn;
	nvme_le16 nabo;
	nvme_le16 nabspf;
	nvme_le16 noiob;
	uint8_t nvmcap[16];
	nvme_le16 npwg;
	nvme_le16 npwa;
	nvme_le16 npdg;
	nvme_le16 npda;
	nvme_le16 nows;
	nvme_le16 mssrl;
	nvme_le32 mcl;
	uint8_t msrc;
	uint8_t rsvd81[11];
	nvme_le32 anagrpid;
	uint8_t rsvd96[3];
	uint8_t nsattr;
	nvme_le16 nvmsetid;
	nvme_le16 endgid;
	uint8_t nguid[16];
	uint8_t eui64[8];
	struct nvme_lbaf lbaf[64];
	uint8_t vs[3712];
};

#define NVME_NS_FEAT_THIN (1u << 0)
#define NVME_NS_FLBAS_META_EXT (1u << 4)
#define NVME_NMIC_SHARED (1u << 0)
#define NVME_NS_ATTR_RO (1u << 0) /* nsattr: write protected */

/* The LBA format index in flbas: bits 3:0, and 6:5 above them */
static inline unsigned nvme_flbas_index(uint8_t flbas)
{
	return (flbas & 0xfu) | (flbas >> 5 & 0x3u) << 4;
}

/* ---- Namespace identification descriptors (CNS 03h) --------------------- */

enum {
	NVME_NIDT_EUI64 = 0x01, /* 8 bytes */
	NVME_NIDT_NGUID = 0x02, /* 16 bytes */
	NVME_NIDT_UUID = 0x03, /* 16 bytes */
	NVME_NIDT_CSI = 0x04, /* 1 byte */
};

#define NVME_NIDT_EUI64_LEN 8
#define NVME_NIDT_NGUID_LEN 16
#define NVME_NIDT_UUID_LEN 16
#define NVME_NIDT_CSI_LEN 1

/* Each descriptor: this header, then nidl bytes; a zero nidt ends the list */
struct nvme_ns_id_desc {
	uint8_t nidt;
	uint8_t nidl;
	nvme_le16 rsvd2;
};

/*
 * Append a descriptor at *off of an Identify CNS 03h buffer (len bytes)
 * and advance *off. Returns 0, -EINVAL (zero NIDT or NIDL, or a length
 * the type does not have) or -ENOSPC.
 */
int nvme_ns_desc_put(void *list, size_t len, size_t *off, uint8_t nidt,
		     const void *id, uint8_t nidl);

/*
 * Walk a received descriptor list from *off (0 first): returns 1 with the
 * next descriptor's type, identifier and length (*off advanced), 0 at the
 * end (a zero NIDT, or no room for another header), or -EBADMSG for a
 * descriptor that is empty, runs past len or has the wrong length for
 * its type. Unknown types are returned for the caller to skip.
 */
int nvme_ns_desc_next(const void *list, size_t len, size_t *off, uint8_t *nidt,
		      const uint8_t **id, uint8_t *nidl);

/* ---- Log pages ----------------------------------------------------------- */

struct nvme_error_log_entry {
	nvme_le64 error_count;
	nvme_le16 sqid;
	uint16_t cmdid;
	nvme_le16 status_field;
	nvme_le16 param_error_location;
	nvme_le64 lba;
	nvme_le32 nsid;
	uint8_t vs;
	uint8_t trtype;
	uint8_t rsvd30[2];
	nvme_le64 cs;
	nvme_le16 trtype_spec_info;
	uint8_t rsvd42[22];
};

struct nvme_smart_log {
	uint8_t critical_warning;
	uint8_t temperature[2]; /* kelvin, little endian, unaligned */
	uint8_t avail_spare;
	uint8_t spare_thresh;
	uint8_t percent_used;
	uint8_t endu_grp_crit_warn_sumry;
	uint8_t rsvd7[25];
	uint8_t data_units_read[16]; /* 128-bit counters, 1000 * 512 bytes */
	uint8_t data_units_written[16];
	uint8_t host_reads[16];
	uint8_t host_writes[16];
	uint8_t ctrl_busy_time[16];
	uint8_t power_cycles[16];
	uint8_t power_on_hours[16];
	uint8_t unsafe_shutdowns[16];
	uint8_t media_errors[16];
	uint8_t num_err_log_entries[16];
	nvme_le32 warning_temp_time;
	nvme_le32 critical_comp_time;
	nvme_le16 temp_sensor[8];
	nvme_le32 thm_temp1_trans_count;
	nvme_le32 thm_temp2_trans_count;
	nvme_le32 thm_temp1_total_time;
	nvme_le32 thm_temp2_total_time;
	uint8_t rsvd232[280];
};

struct nvme_fw_slot_log {
	uint8_t afi; /* active slot 2:0, next reset's slot 6:4 */
	uint8_t rsvd1[7];
	nvme_le64 frs[7]; /* firmware revision per slot, ASCII */
	uint8_t rsvd64[448];
};

/* Commands Supported and Effects: one dword per opcode */
struct nvme_effects_log {
	nvme_le32 acs[256];
	nvme_le32 iocs[256];
	uint8_t rsvd2048[2048];
};

#define NVME_CMD_EFFECTS_CSUPP (1u << 0)
#define NVME_CMD_EFFECTS_LBCC (1u << 1)

/* Discovery log page (LID 70h): this header, then numrec entries */
struct nvmf_disc_log_header {
	nvme_le64 genctr;
	nvme_le64 numrec;
	nvme_le16 recfmt;
	uint8_t rsvd18[1006];
};

enum {
	NVMF_TRTYPE_RDMA = 1,
	NVMF_TRTYPE_FC = 2,
	NVMF_TRTYPE_TCP = 3,
	NVMF_TRTYPE_LOOP = 254,
};

enum {
	NVMF_ADDR_FAMILY_IP4 = 1,
	NVMF_ADDR_FAMILY_IP6 = 2,
};

enum {
	NVME_NQN_DISC = 1, /* referral to another discovery service */
	NVME_NQN_NVME = 2, /* an NVM subsystem */
	NVME_NQN_CURR = 3, /* the current discovery subsystem */
};

/* treq: secure channel bits 1:0, bit 2 SQ flow control disable allowed */
#define NVMF_TREQ_NOT_SPECIFIED 0
#define NVMF_TREQ_REQUIRED 1
#define NVMF_TREQ_NOT_REQUIRED 2
#define NVMF_TREQ_DISABLE_SQFLOW 4

#define NVMF_TCP_SECTYPE_NONE 0

/* RDMA transport specific address subtype (discovery log TSAS) */
#define NVMF_RDMA_QPTYPE_CONNECTED 1 /* reliable connected */
#define NVMF_RDMA_QPTYPE_DATAGRAM 2
#define NVMF_RDMA_PRTYPE_NOT_SPECIFIED 1
#define NVMF_RDMA_PRTYPE_IB 2
#define NVMF_RDMA_PRTYPE_ROCE 3
#define NVMF_RDMA_PRTYPE_ROCEV2 4
#define NVMF_RDMA_PRTYPE_IWARP 5
#define NVMF_RDMA_CMS_RDMA_CM 1 /* connections through the RDMA CM */

#define NVME_DISC_SUBSYS_NAME "nqn.2014-08.org.nvmexpress.discovery"

struct nvmf_disc_log_entry {
	uint8_t trtype;
	uint8_t adrfam;
	uint8_t subtype;
	uint8_t treq;
	nvme_le16 portid;
	nvme_le16 cntlid;
	nvme_le16 asqsz;
	nvme_le16 eflags;
	uint8_t rsvd12[20];
	char trsvcid[32]; /* port, ASCII, space padded */
	uint8_t rsvd64[192];
	char subnqn[NVME_NQN_SIZE];
	char traddr[256]; /* address, ASCII, space padded */
	union {
		uint8_t common[256];
		struct {
			uint8_t sectype; /* NVMF_TCP_SECTYPE_* */
		} tcp;
		struct {
			uint8_t qptype; /* NVMF_RDMA_QPTYPE_* */
			uint8_t prtype; /* NVMF_RDMA_PRTYPE_* */
			uint8_t cms; /* NVMF_RDMA_CMS_* */
			uint8_t rsvd3[5];
			nvme_le16 pkey;
		} rdma;
	} tsas;
};

/* ---- Admin command odds and ends --------------------------------------- */

#define NVME_NSID_ALL 0xffffffffu /* broadcast NSID */

/* Get Features CDW10 SEL (bits 10:8), Set Features CDW10 SV (bit 31) */
#define NVME_FEAT_SEL(cdw10) (((cdw10) >> 8) & 0x7)
#define NVME_FEAT_SEL_CURRENT 0
#define NVME_FEAT_SEL_DEFAULT 1
#define NVME_FEAT_SEL_SAVED 2
#define NVME_FEAT_SEL_SUPPORTED 3 /* DW0: the capabilities below */
#define NVME_FEAT_SV (1u << 31)
#define NVME_FEAT_CAP_SAVEABLE (1u << 0)
#define NVME_FEAT_CAP_NS (1u << 1) /* namespace specific */
#define NVME_FEAT_CAP_CHANGEABLE (1u << 2)
/* Namespace Write Protection Config (feature 84h): DW0 bits 2:0 */
#define NVME_NS_WP_NONE 0u
#define NVME_NS_WP_WRITE_PROTECT 1u

/* Number of Queues: CDW11 / DW0 NSQR(A) 15:0, NCQR(A) 31:16, 0's based */
#define NVME_FEAT_NUMQ(nsq, ncq) \
	(((uint32_t)((nsq)-1) & 0xffff) | ((uint32_t)((ncq)-1) & 0xffff) << 16)

/* Host Identifier: CDW11 bit 0 asks for the 128-bit one */
#define NVME_FEAT_HOST_ID_EXHID (1u << 0)

/*
 * Asynchronous Event Request completion DW0: event type 2:0, event
 * information 15:8, the log page to read 23:16. The Asynchronous Event
 * Configuration feature enables notices by the OAES bit positions
 * (NVME_CTRL_OAES_*) and SMART / health warnings by bits 7:0.
 */
#define NVME_AER_DW0(type, info, lid) \
	((uint32_t)(type) | (uint32_t)(info) << 8 | (uint32_t)(lid) << 16)
#define NVME_AER_TYPE(dw0) ((dw0)&0x7)
#define NVME_AER_INFO(dw0) (((dw0) >> 8) & 0xff)
#define NVME_AER_LID(dw0) (((dw0) >> 16) & 0xff)

enum {
	NVME_AER_TYPE_ERROR = 0,
	NVME_AER_TYPE_SMART = 1,
	NVME_AER_TYPE_NOTICE = 2,
	NVME_AER_TYPE_IO_CMD_SET = 6,
	NVME_AER_TYPE_VS = 7,
};

enum {
	NVME_AER_NOTICE_NS_CHANGED = 0x00,
	NVME_AER_NOTICE_FW_ACT_STARTING = 0x01,
	NVME_AER_NOTICE_TELEMETRY = 0x02,
	NVME_AER_NOTICE_ANA = 0x03,
	NVME_AER_NOTICE_DISC_CHANGED = 0xf0,
};

#define NVME_AEN_CFG_SMART_MASK 0xffu /* critical warning bits */

/* Changed Namespace List: 1024 NSIDs; more than that: FFFFFFFFh first */
#define NVME_MAX_CHANGED_NAMESPACES 1024

/* Asynchronous Event Configuration: ANA change notices (bit 11) */
#define NVME_AEN_CFG_ANA_CHANGE (1u << 11)

/* ---- Asymmetric Namespace Access (log page 0Ch) ------------------------ */

/* ANA states: a group's, as seen through one controller */
enum nvme_ana_state {
	NVME_ANA_OPTIMIZED = 0x01,
	NVME_ANA_NONOPTIMIZED = 0x02,
	NVME_ANA_INACCESSIBLE = 0x03,
	NVME_ANA_PERSISTENT_LOSS = 0x04,
	NVME_ANA_CHANGE = 0x0f,
};

/* Identify Controller ANACAP bits */
#define NVME_ANACAP_OPTIMIZED (1u << 0)
#define NVME_ANACAP_NONOPTIMIZED (1u << 1)
#define NVME_ANACAP_INACCESSIBLE (1u << 2)
#define NVME_ANACAP_PERSISTENT_LOSS (1u << 3)
#define NVME_ANACAP_CHANGE (1u << 4)
#define NVME_ANACAP_GRPID_STATIC (1u << 6) /* ANAGRPID fixed while attached */

/* The log page's header: then NGRPS group descriptors */
struct nvme_ana_log_hdr {
	nvme_le64 chgcnt; /* change count */
	nvme_le16 ngrps; /* group descriptors that follow */
	uint8_t rsvd10[6];
};

/* One group: its NNSIDS namespace IDs (ascending) follow it, 4 bytes
 * each; none when the command set RGO (return groups only) */
struct nvme_ana_group_desc {
	nvme_le32 grpid; /* ANA group ID, 1.. */
	nvme_le32 nnsids; /* NSIDs that follow */
	nvme_le64 chgcnt; /* change count (as the header's, nvmet) */
	uint8_t state; /* enum nvme_ana_state, bits 3:0 */
	uint8_t rsvd17[15];
} __attribute__((packed)); /* after 4-byte NSID lists: any 4-byte offset */

/* An ANA state's name as nvme-cli prints it ("optimized",
 * "non-optimized", "inaccessible", "persistent-loss", "change"), or
 * NULL for a value that is no state. */
const char *nvme_ana_state_name(uint8_t state);

/* The state a name (len bytes, as above) stands for; 0 if none. */
uint8_t nvme_ana_state_parse(const char *name, size_t len);

/* ---- I/O Command Set Independent Identify Namespace (CNS 08h) ---------- */

struct nvme_id_ns_cs_indep {
	uint8_t nsfeat;
	uint8_t nmic;
	uint8_t rescap;
	uint8_t fpi;
	nvme_le32 anagrpid;
	uint8_t nsattr;
	uint8_t rsvd9;
	nvme_le16 nvmsetid;
	nvme_le16 endgid;
	uint8_t nstat; /* NVME_NSTAT_NRDY */
	uint8_t rsvd15[4081];
};

#define NVME_NSTAT_NRDY (1u << 0) /* namespace ready (a Linux host checks) */

/* ---- Layout checks against the specification's byte offsets ------------ */

#define NVME_ASSERT_SIZE(type, size) \
	_Static_assert(sizeof(type) == (size), #type " size")
#define NVME_ASSERT_OFF(type, field, off) \
	_Static_assert(offsetof(type, field) == (off), #type "." #field)

NVME_ASSERT_SIZE(struct nvme_sgl_desc, 16);
NVME_ASSERT_SIZE(struct nvme_ana_log_hdr, 16);
NVME_ASSERT_OFF(struct nvme_ana_log_hdr, ngrps, 8);
NVME_ASSERT_SIZE(struct nvme_ana_group_desc, 32);
NVME_ASSERT_OFF(struct nvme_ana_group_desc, nnsids, 4);
NVME_ASSERT_OFF(struct nvme_ana_group_desc, chgcnt, 8);
NVME_ASSERT_OFF(struct nvme_ana_group_desc, state, 16);
NVME_ASSERT_SIZE(struct nvme_keyed_sgl_desc, 16);
NVME_ASSERT_SIZE(union nvme_data_ptr, 16);
NVME_ASSERT_SIZE(struct nvme_common_command, 64);
NVME_ASSERT_OFF(struct nvme_common_command, nsid, 4);
NVME_ASSERT_OFF(struct nvme_common_command, metadata, 16);
NVME_ASSERT_OFF(struct nvme_common_command, dptr, 24);
NVME_ASSERT_OFF(struct nvme_common_command, cdw10, 40);
NVME_ASSERT_OFF(struct nvme_common_command, cdw15, 60);
NVME_ASSERT_SIZE(struct nvme_rw_command, 64);
NVME_ASSERT_OFF(struct nvme_rw_command, slba, 40);
NVME_ASSERT_OFF(struct nvme_rw_command, length, 48);
NVME_ASSERT_OFF(struct nvme_rw_command, control, 50);
NVME_ASSERT_OFF(struct nvme_rw_command, reftag, 56);
NVME_ASSERT_OFF(struct nvme_rw_command, appmask, 62);
NVME_ASSERT_SIZE(struct nvme_identify_command, 64);
NVME_ASSERT_OFF(struct nvme_identify_command, cns, 40);
NVME_ASSERT_OFF(struct nvme_identify_command, cntid, 42);
NVME_ASSERT_OFF(struct nvme_identify_command, csi, 47);
NVME_ASSERT_SIZE(struct nvme_get_log_page_command, 64);
NVME_ASSERT_OFF(struct nvme_get_log_page_command, numdl, 42);
NVME_ASSERT_OFF(struct nvme_get_log_page_command, numdu, 44);
NVME_ASSERT_OFF(struct nvme_get_log_page_command, lpo, 48);
NVME_ASSERT_OFF(struct nvme_get_log_page_command, csi, 59);
NVME_ASSERT_SIZE(struct nvme_features_command, 64);
NVME_ASSERT_OFF(struct nvme_features_command, dword11, 44);
NVME_ASSERT_SIZE(struct nvmf_common_command, 64);
NVME_ASSERT_OFF(struct nvmf_common_command, fctype, 4);
NVME_ASSERT_OFF(struct nvmf_common_command, ts, 40);
NVME_ASSERT_SIZE(struct nvmf_connect_command, 64);
NVME_ASSERT_OFF(struct nvmf_connect_command, dptr, 24);
NVME_ASSERT_OFF(struct nvmf_connect_command, recfmt, 40);
NVME_ASSERT_OFF(struct nvmf_connect_command, qid, 42);
NVME_ASSERT_OFF(struct nvmf_connect_command, sqsize, 44);
NVME_ASSERT_OFF(struct nvmf_connect_command, cattr, 46);
NVME_ASSERT_OFF(struct nvmf_connect_command, kato, 48);
NVME_ASSERT_SIZE(struct nvmf_connect_data, 1024);
NVME_ASSERT_OFF(struct nvmf_connect_data, cntlid, 16);
NVME_ASSERT_OFF(struct nvmf_connect_data, subsysnqn, 256);
NVME_ASSERT_OFF(struct nvmf_connect_data, hostnqn, 512);
NVME_ASSERT_SIZE(struct nvmf_connect_result, 4);
NVME_ASSERT_SIZE(struct nvmf_property_set_command, 64);
NVME_ASSERT_OFF(struct nvmf_property_set_command, attrib, 40);
NVME_ASSERT_OFF(struct nvmf_property_set_command, offset, 44);
NVME_ASSERT_OFF(struct nvmf_property_set_command, value, 48);
NVME_ASSERT_SIZE(struct nvmf_property_get_command, 64);
NVME_ASSERT_OFF(struct nvmf_property_get_command, offset, 44);
NVME_ASSERT_SIZE(union nvme_command, 64);
NVME_ASSERT_SIZE(struct nvme_completion, 16);
NVME_ASSERT_OFF(struct nvme_completion, sq_head, 8);
NVME_ASSERT_OFF(struct nvme_completion, sq_id, 10);
NVME_ASSERT_OFF(struct nvme_completion, command_id, 12);
NVME_ASSERT_OFF(struct nvme_completion, status, 14);
NVME_ASSERT_SIZE(struct nvme_id_power_state, 32);
NVME_ASSERT_SIZE(struct nvme_id_ctrl, NVME_IDENTIFY_SIZE);
NVME_ASSERT_OFF(struct nvme_id_ctrl, sn, 4);
NVME_ASSERT_OFF(struct nvme_id_ctrl, mn, 24);
NVME_ASSERT_OFF(struct nvme_id_ctrl, fr, 64);
NVME_ASSERT_OFF(struct nvme_id_ctrl, cmic, 76);
NVME_ASSERT_OFF(struct nvme_id_ctrl, mdts, 77);
NVME_ASSERT_OFF(struct nvme_id_ctrl, cntlid, 78);
NVME_ASSERT_OFF(struct nvme_id_ctrl, ver, 80);
NVME_ASSERT_OFF(struct nvme_id_ctrl, oaes, 92);
NVME_ASSERT_OFF(struct nvme_id_ctrl, ctratt, 96);
NVME_ASSERT_OFF(struct nvme_id_ctrl, cntrltype, 111);
NVME_ASSERT_OFF(struct nvme_id_ctrl, crdt1, 128);
NVME_ASSERT_OFF(struct nvme_id_ctrl, mec, 255);
NVME_ASSERT_OFF(struct nvme_id_ctrl, oacs, 256);
NVME_ASSERT_OFF(struct nvme_id_ctrl, lpa, 261);
NVME_ASSERT_OFF(struct nvme_id_ctrl, wctemp, 266);
NVME_ASSERT_OFF(struct nvme_id_ctrl, tnvmcap, 280);
NVME_ASSERT_OFF(struct nvme_id_ctrl, kas, 320);
NVME_ASSERT_OFF(struct nvme_id_ctrl, anatt, 342);
NVME_ASSERT_OFF(struct nvme_id_ctrl, anagrpmax, 344);
NVME_ASSERT_OFF(struct nvme_id_ctrl, pels, 352);
NVME_ASSERT_OFF(struct nvme_id_ctrl, sqes, 512);
NVME_ASSERT_OFF(struct nvme_id_ctrl, maxcmd, 514);
NVME_ASSERT_OFF(struct nvme_id_ctrl, nn, 516);
NVME_ASSERT_OFF(struct nvme_id_ctrl, oncs, 520);
NVME_ASSERT_OFF(struct nvme_id_ctrl, vwc, 525);
NVME_ASSERT_OFF(struct nvme_id_ctrl, sgls, 536);
NVME_ASSERT_OFF(struct nvme_id_ctrl, maxcna, 560);
NVME_ASSERT_OFF(struct nvme_id_ctrl, subnqn, 768);
NVME_ASSERT_OFF(struct nvme_id_ctrl, ioccsz, 1792);
NVME_ASSERT_OFF(struct nvme_id_ctrl, iorcsz, 1796);
NVME_ASSERT_OFF(struct nvme_id_ctrl, icdoff, 1800);
NVME_ASSERT_OFF(struct nvme_id_ctrl, fcatt, 1802);
NVME_ASSERT_OFF(struct nvme_id_ctrl, msdbd, 1803);
NVME_ASSERT_OFF(struct nvme_id_ctrl, psd, 2048);
NVME_ASSERT_OFF(struct nvme_id_ctrl, vs, 3072);
NVME_ASSERT_SIZE(struct nvme_lbaf, 4);
NVME_ASSERT_SIZE(struct nvme_id_ns, NVME_IDENTIFY_SIZE);
NVME_ASSERT_OFF(struct nvme_id_ns, nsfeat, 24);
NVME_ASSERT_OFF(struct nvme_id_ns, nlbaf, 25);
NVME_ASSERT_OFF(struct nvme_id_ns, flbas, 26);
NVME_ASSERT_OFF(struct nvme_id_ns, nmic, 30);
NVME_ASSERT_OFF(struct nvme_id_ns, dlfeat, 33);
NVME_ASSERT_OFF(struct nvme_id_ns, nvmcap, 48);
NVME_ASSERT_OFF(struct nvme_id_ns, npwg, 64);
NVME_ASSERT_OFF(struct nvme_id_ns, nows, 72);
NVME_ASSERT_OFF(struct nvme_id_ns, anagrpid, 92);
NVME_ASSERT_OFF(struct nvme_id_ns, nsattr, 99);
NVME_ASSERT_OFF(struct nvme_id_ns, nguid, 104);
NVME_ASSERT_OFF(struct nvme_id_ns, eui64, 120);
NVME_ASSERT_OFF(struct nvme_id_ns, lbaf, 128);
NVME_ASSERT_OFF(struct nvme_id_ns, vs, 384);
NVME_ASSERT_SIZE(struct nvme_ns_id_desc, 4);
NVME_ASSERT_SIZE(struct nvme_error_log_entry, 64);
NVME_ASSERT_OFF(struct nvme_error_log_entry, lba, 16);
NVME_ASSERT_OFF(struct nvme_error_log_entry, cs, 32);
NVME_ASSERT_SIZE(struct nvme_smart_log, 512);
NVME_ASSERT_OFF(struct nvme_smart_log, data_units_read, 32);
NVME_ASSERT_OFF(struct nvme_smart_log, num_err_log_entries, 176);
NVME_ASSERT_OFF(struct nvme_smart_log, temp_sensor, 200);
NVME_ASSERT_SIZE(struct nvme_fw_slot_log, 512);
NVME_ASSERT_SIZE(struct nvme_effects_log, 4096);
NVME_ASSERT_OFF(struct nvme_effects_log, iocs, 1024);
NVME_ASSERT_SIZE(struct nvmf_disc_log_header, 1024);
NVME_ASSERT_OFF(struct nvmf_disc_log_header, recfmt, 16);
NVME_ASSERT_SIZE(struct nvmf_disc_log_entry, NVME_DISC_ENTRY_SIZE);
NVME_ASSERT_OFF(struct nvmf_disc_log_entry, portid, 4);
NVME_ASSERT_OFF(struct nvmf_disc_log_entry, asqsz, 8);
NVME_ASSERT_OFF(struct nvmf_disc_log_entry, trsvcid, 32);
NVME_ASSERT_OFF(struct nvmf_disc_log_entry, subnqn, 256);
NVME_ASSERT_OFF(struct nvmf_disc_log_entry, traddr, 512);
NVME_ASSERT_OFF(struct nvmf_disc_log_entry, tsas, 768);
NVME_ASSERT_SIZE(struct nvme_id_ns_cs_indep, NVME_IDENTIFY_SIZE);
NVME_ASSERT_OFF(struct nvme_id_ns_cs_indep, anagrpid, 4);
NVME_ASSERT_OFF(struct nvme_id_ns_cs_indep, nsattr, 8);
NVME_ASSERT_OFF(struct nvme_id_ns_cs_indep, endgid, 12);
NVME_ASSERT_OFF(struct nvme_id_ns_cs_indep, nstat, 14);

#endif
