/* SPDX-License-Identifier: MIT */
/*
 * NVMe in-band authentication, DH-HMAC-CHAP (NVMe Base 2.0, TP 8006): the
 * DHHC-1 secret format, key transformation, the AUTH messages' wire
 * layouts with encoders and validating decoders, and the host's and the
 * controller's halves of the exchange as message-in/message-out steps.
 * No I/O: the fabrics cores carry the messages in Authentication
 * Send/Receive commands. Crypto from OpenSSL's libcrypto.
 */
#ifndef MQBLK_NVME_AUTH_H
#define MQBLK_NVME_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvme.h"

/* Authentication Send/Receive: SECP and SPSP0/SPSP1 of the NVMe
 * in-band authentication protocol */
#define NVME_AUTH_SECP 0xe9
/* Connect's DW0: AUTHREQ.ATR, an authentication transaction required */
#define NVME_CONNECT_AUTHREQ_ATR (1u << 17)
#define NVME_AUTH_SPSP0 0x01
#define NVME_AUTH_SPSP1 0x01

/* Largest message either side sends: a Reply with two 64-byte values and
 * an ffdhe8192 public value (16 + 64 + 64 + 1024); receive buffers of
 * this size hold every valid message. */
#define NVME_AUTH_MAX_MSG 4096
#define NVME_AUTH_MAX_HASH_LEN 64
#define NVME_AUTH_MAX_DH_LEN 1024 /* ffdhe8192 */
#define NVME_AUTH_MAX_IDS 30 /* ids in a protocol descriptor's lists */

/* Hash function identifiers (also the HH of a DHHC-1 secret) */
enum nvme_auth_hash {
	NVME_AUTH_HASH_NONE = 0x00, /* secrets only: not transformed */
	NVME_AUTH_HASH_SHA256 = 0x01,
	NVME_AUTH_HASH_SHA384 = 0x02,
	NVME_AUTH_HASH_SHA512 = 0x03,
};

/* Diffie-Hellman group identifiers (RFC 7919 groups) */
enum nvme_auth_dhgroup {
	NVME_AUTH_DHGROUP_NULL = 0x00,
	NVME_AUTH_DHGROUP_2048 = 0x01,
	NVME_AUTH_DHGROUP_3072 = 0x02,
	NVME_AUTH_DHGROUP_4096 = 0x03,
	NVME_AUTH_DHGROUP_6144 = 0x04,
	NVME_AUTH_DHGROUP_8192 = 0x05,
};

/* auth_type: the common messages (Negotiate, Failure1/2) and the
 * DH-HMAC-CHAP ones */
enum nvme_auth_type {
	NVME_AUTH_COMMON_MESSAGES = 0x00,
	NVME_AUTH_DHCHAP_MESSAGES = 0x01,
};

/* auth_id */
enum nvme_auth_id {
	NVME_AUTH_ID_NEGOTIATE = 0x00,
	NVME_AUTH_ID_CHALLENGE = 0x01,
	NVME_AUTH_ID_REPLY = 0x02,
	NVME_AUTH_ID_SUCCESS1 = 0x03,
	NVME_AUTH_ID_SUCCESS2 = 0x04,
	NVME_AUTH_ID_FAILURE2 = 0xf0, /* host to controller */
	NVME_AUTH_ID_FAILURE1 = 0xf1, /* controller to host */
};

#define NVME_AUTH_DHCHAP_AUTH_ID 0x01 /* protocol descriptor authid */
#define NVME_AUTH_RESCODE_FAILED 0x01 /* Failure1/2 reason code */

/* Failure1/2 reason code explanations */
enum nvme_auth_failure {
	NVME_AUTH_FAIL_FAILED = 0x01,
	NVME_AUTH_FAIL_NOT_USABLE = 0x02,
	NVME_AUTH_FAIL_CONCAT_MISMATCH = 0x03,
	NVME_AUTH_FAIL_HASH_UNUSABLE = 0x04,
	NVME_AUTH_FAIL_DHGROUP_UNUSABLE = 0x05,
	NVME_AUTH_FAIL_INCORRECT_PAYLOAD = 0x06,
	NVME_AUTH_FAIL_INCORRECT_MESSAGE = 0x07,
};

/* ---- Wire layouts --------------------------------------------------- */

/* DH-HMAC-CHAP protocol descriptor: the host's hash and group lists */
struct nvme_auth_protocol_desc {
	uint8_t authid; /* NVME_AUTH_DHCHAP_AUTH_ID */
	uint8_t rsvd1;
	uint8_t halen; /* hash ids in idlist[0..29] */
	uint8_t dhlen; /* DH group ids in idlist[30..59] */
	uint8_t idlist[60];
};

/* AUTH_Negotiate (host): followed by napd descriptors */
struct nvme_auth_negotiate {
	uint8_t auth_type; /* common */
	uint8_t auth_id; /* negotiate */
	uint8_t rsvd2[2];
	nvme_le16 t_id; /* transaction: every later message repeats it */
	uint8_t sc_c; /* secure channel concatenation: 0 = none */
	uint8_t napd; /* number of protocol descriptors */
};

/* DH-HMAC-CHAP_Challenge (controller): hl bytes of C1, then dhvlen bytes
 * of the controller's DH public value */
struct nvme_auth_challenge {
	uint8_t auth_type;
	uint8_t auth_id;
	uint8_t rsvd2[2];
	nvme_le16 t_id;
	uint8_t hl; /* hash length */
	uint8_t rsvd7;
	uint8_t hashid;
	uint8_t dhgid;
	nvme_le16 dhvlen;
	nvme_le32 seqnum; /* S1 */
};

/* DH-HMAC-CHAP_Reply (host): hl bytes of R1, hl bytes of C2 (valid when
 * cvalid), dhvlen bytes of the host's DH public value */
struct nvme_auth_reply {
	uint8_t auth_type;
	uint8_t auth_id;
	uint8_t rsvd2[2];
	nvme_le16 t_id;
	uint8_t hl;
	uint8_t rsvd7;
	uint8_t cvalid; /* bit 0: C2 valid, bidirectional authentication */
	uint8_t rsvd9;
	nvme_le16 dhvlen;
	nvme_le32 seqnum; /* S2: 0 unless bidirectional */
};

/* DH-HMAC-CHAP_Success1 (controller): hl bytes of R2 (valid when rvalid) */
struct nvme_auth_success1 {
	uint8_t auth_type;
	uint8_t auth_id;
	uint8_t rsvd2[2];
	nvme_le16 t_id;
	uint8_t hl;
	uint8_t rsvd7;
	uint8_t rvalid; /* bit 0: R2 valid */
	uint8_t rsvd9[7];
};

/* DH-HMAC-CHAP_Success2 (host, bidirectional only) */
struct nvme_auth_success2 {
	uint8_t auth_type;
	uint8_t auth_id;
	uint8_t rsvd2[2];
	nvme_le16 t_id;
	uint8_t rsvd6[10];
};

/* AUTH_Failure1 (controller) / AUTH_Failure2 (host) */
struct nvme_auth_failure_msg {
	uint8_t auth_type; /* common */
	uint8_t auth_id;
	uint8_t rsvd2[2];
	nvme_le16 t_id;
	uint8_t rescode; /* NVME_AUTH_RESCODE_FAILED */
	uint8_t rescode_exp; /* enum nvme_auth_failure */
};

/* Authentication Send (fctype 0x05) / Receive (0x06) command */
struct nvmf_auth_command {
	uint8_t opcode; /* nvme_fabrics_command */
	uint8_t rsvd1;
	uint16_t command_id;
	uint8_t fctype;
	uint8_t rsvd5[19];
	union nvme_data_ptr dptr;
	uint8_t rsvd40;
	uint8_t spsp0;
	uint8_t spsp1;
	uint8_t secp;
	nvme_le32 tl_al; /* Send: transfer length; Receive: allocation */
	uint8_t rsvd48[16];
};

/* ---- Names and sizes ------------------------------------------------ */

/* "sha256", "sha384", "sha512" ("none" for 0); NULL for an unknown id */
const char *nvme_auth_hash_name(uint8_t hash);
/* digest length in bytes, 0 for an unknown id or NONE */
size_t nvme_auth_hash_len(uint8_t hash);
/* "sha256" or nvmet's "hmac(sha256)"; -EINVAL if neither */
int nvme_auth_hash_from_name(const char *name);
/* "null", "ffdhe2048" ... "ffdhe8192"; NULL for an unknown id */
const char *nvme_auth_dhgroup_name(uint8_t group);
/* the group's prime size in bytes (0 for null and unknown ids) */
size_t nvme_auth_dhgroup_len(uint8_t group);
int nvme_auth_dhgroup_from_name(const char *name);
/* the reason code explanation in words */
const char *nvme_auth_failure_str(uint8_t reason);

/* ---- Secrets -------------------------------------------------------- */

/* What the DHHC-1 and NVMeTLSkey-1 formats share (tls.c uses them too):
 * zlib's CRC-32 (the check appended to a key, little-endian), strict
 * base64 with '=' padding (decode: the length, or -1), and a key file
 * read (one line, newline cut) that refuses a file group or others may
 * read or write, as ssh refuses such a private key; "what" names the key
 * in err. */
uint32_t nvme_key_crc32(const uint8_t *p, size_t len);
int nvme_key_b64_decode(const char *s, size_t len, uint8_t *out, size_t cap);
size_t nvme_key_b64_encode(const uint8_t *in, size_t len, char *out);
int nvme_key_file_read(const char *path, const char *what, char *buf,
		       size_t cap, char *err, size_t errlen);

/*
 * A key format of the "PREFIXHH:BASE64:" kind (DHHC-1, NVMeTLSkey-1):
 * HH a hash number up to max_hash, the base64 of the key and its CRC-32
 * (little-endian), whose length (key and CRC) len_ok judges. Each format
 * words its own errors: a message is "WHAT: TEXT", the number (HH, the
 * length) between the two halves that take one.
 */
struct nvme_key_format {
	const char *prefix;
	unsigned max_hash;
	/* of the key, 64 at most: base64 of more than max_len + 8 bytes is
	 * refused as not valid base64 (the bound of the former buffers) */
	size_t max_len;
	/* len: the decoded bytes, key and CRC */
	bool (*len_ok)(unsigned hash, int len);
	const char *what;
	const char *no_prefix, *no_digits, *hash_pre, *hash_post, *no_end;
	const char *no_base64, *len_post, *bad_crc;
};

/* str in format f: 0 with *hash, the key in key[0, *len); -EINVAL with a
 * one-line reason in err (never the key itself) */
int nvme_key_envelope_parse(const struct nvme_key_format *f, const char *str,
			    uint8_t *hash, uint8_t *key, uint8_t *len,
			    char *err, size_t errlen);
/* "PREFIXHH:BASE64:" of len (at most 64) bytes of key and their CRC,
 * NUL-terminated: 0, -ENOSPC if cap is short, -EINVAL if len is over 64. */
int nvme_key_envelope_format(const char *prefix, uint8_t hash,
			     const uint8_t *key, size_t len, char *out,
			     size_t cap);
/* The key text an argument names: arg itself, or for "@PATH" the line of
 * the file PATH read into buf (nvme_key_file_read, what naming the key).
 * 0 with *text set, or -errno with a reason in err. */
int nvme_key_arg_text(const char *arg, const char *what, char *buf, size_t cap,
		      const char **text, char *err, size_t errlen);

/* A DHHC-1 secret: 32, 48 or 64 bytes and the hash that transforms it.
 * Clear it with nvme_auth_key_clear (zeroes the bytes). */
struct nvme_auth_key {
	uint8_t hash; /* enum nvme_auth_hash: 0 = used as is */
	uint8_t len; /* 0: no key */
	uint8_t data[64];
};

/*
 * Parse "DHHC-1:HH:BASE64:" (nvme gen-dhchap-key's output): base64 of the
 * key and its CRC-32 (IEEE, little-endian). Returns 0, or -EINVAL with a
 * one-line reason in err (never the key itself).
 */
int nvme_auth_key_parse(const char *str, struct nvme_auth_key *key, char *err,
			size_t errlen);
/*
 * nvme_auth_key_parse, or for "@PATH" the secret in the file PATH (one
 * line): a file that group or others may read or write is refused, as
 * ssh refuses such a private key. -EINVAL/-EACCES/-errno with a reason.
 */
int nvme_auth_key_load(const char *arg, struct nvme_auth_key *key, char *err,
		       size_t errlen);
/* The DHHC-1 form of a key, NUL-terminated; -ENOSPC if cap is short. */
int nvme_auth_key_format(const struct nvme_auth_key *key, char *out,
			 size_t cap);
void nvme_auth_key_clear(struct nvme_auth_key *key);

/*
 * The key an exchange uses: the secret as is (hash NONE) or
 * HMAC(hash, secret, nqn || "NVMe-over-Fabrics") (hash-length bytes).
 * out holds NVME_AUTH_MAX_HASH_LEN bytes. Returns the length, or -errno.
 */
int nvme_auth_key_transform(const struct nvme_auth_key *key, const char *nqn,
			    uint8_t *out);

/* ---- Computations (exposed for the tests) ----------------------------- */

/* Augmented challenge: HMAC(hash, H(sess), chal), hash-length bytes. */
int nvme_auth_augment(uint8_t hash, const uint8_t *chal, const uint8_t *sess,
		      size_t sess_len, uint8_t *out);

/*
 * A response value:
 *   HMAC(key, Ca || seqnum(le32) || t_id(le16) || sc_c || role || nqn1 ||
 *        00h || nqn2)
 * with Ca the challenge, augmented when sess is not NULL; role is
 * "HostHost" (R1: nqn1 the host's, nqn2 the subsystem's) or "Controller"
 * (R2: the other way round). key is the transformed key.
 */
int nvme_auth_response(uint8_t hash, const uint8_t *key, size_t key_len,
		       const uint8_t *chal, const uint8_t *sess,
		       size_t sess_len, uint32_t seqnum, uint16_t t_id,
		       uint8_t sc_c, const char *role, const char *nqn1,
		       const char *nqn2, uint8_t *out);

/* ---- Decoders -------------------------------------------------------- */

/* Decoders return 0, or the failure reason (enum nvme_auth_failure) a
 * peer is sent: INCORRECT_MESSAGE for an unexpected type/id,
 * INCORRECT_PAYLOAD for bad lengths or fields. Pointers point into buf. */

struct nvme_auth_negotiate_info {
	uint16_t t_id;
	uint8_t sc_c;
	uint8_t nr_hashes, nr_dhgroups;
	uint8_t hashes[NVME_AUTH_MAX_IDS];
	uint8_t dhgroups[NVME_AUTH_MAX_IDS];
};

struct nvme_auth_challenge_info {
	uint16_t t_id;
	uint8_t hash, dhgroup, hl;
	uint32_t seqnum;
	const uint8_t *cval;
	const uint8_t *dhv;
	uint16_t dhvlen;
};

struct nvme_auth_reply_info {
	uint16_t t_id;
	uint8_t hl;
	bool cvalid;
	uint32_t seqnum;
	const uint8_t *rval;
	const uint8_t *cval; /* C2 when cvalid */
	const uint8_t *dhv;
	uint16_t dhvlen;
};

struct nvme_auth_success1_info {
	uint16_t t_id;
	uint8_t hl;
	bool rvalid;
	const uint8_t *rval;
};

/* The header every message starts with; -EINVAL under 6 bytes. */
int nvme_auth_msg_peek(const void *buf, size_t len, uint8_t *auth_type,
		       uint8_t *auth_id, uint16_t *t_id);
int nvme_auth_negotiate_decode(const void *buf, size_t len,
			       struct nvme_auth_negotiate_info *out);
int nvme_auth_challenge_decode(const void *buf, size_t len,
			       struct nvme_auth_challenge_info *out);
int nvme_auth_reply_decode(const void *buf, size_t len,
			   struct nvme_auth_reply_info *out);
int nvme_auth_success1_decode(const void *buf, size_t len,
			      struct nvme_auth_success1_info *out);
int nvme_auth_success2_decode(const void *buf, size_t len, uint16_t *t_id);
/* want_id: NVME_AUTH_ID_FAILURE1 or _FAILURE2; *reason the explanation */
int nvme_auth_failure_decode(const void *buf, size_t len, uint8_t want_id,
			     uint16_t *t_id, uint8_t *reason);

/* ---- Encoders -------------------------------------------------------- */

/* Encoders return the message length, or -ENOSPC when cap is short
 * (-EINVAL for lists or lengths the format cannot carry). */
int nvme_auth_negotiate_encode(void *buf, size_t cap, uint16_t t_id,
			       const uint8_t *hashes, unsigned nr_hashes,
			       const uint8_t *dhgroups, unsigned nr_dhgroups);
int nvme_auth_challenge_encode(void *buf, size_t cap, uint16_t t_id,
			       uint8_t hash, uint8_t dhgroup, uint32_t seqnum,
			       const uint8_t *cval, const uint8_t *dhv,
			       uint16_t dhvlen);
int nvme_auth_reply_encode(void *buf, size_t cap, uint16_t t_id, uint8_t hl,
			   const uint8_t *rval, const uint8_t *cval,
			   uint32_t seqnum, const uint8_t *dhv,
			   uint16_t dhvlen);
int nvme_auth_success1_encode(void *buf, size_t cap, uint16_t t_id, uint8_t hl,
			      const uint8_t *rval);
int nvme_auth_success2_encode(void *buf, size_t cap, uint16_t t_id);
int nvme_auth_failure_encode(void *buf, size_t cap, uint8_t auth_id,
			     uint16_t t_id, uint8_t reason);

/* ---- The exchange ---------------------------------------------------- */

enum nvme_auth_state {
	NVME_AUTH_ST_IDLE, /* nothing sent or received yet */
	NVME_AUTH_ST_NEGOTIATE, /* host: Negotiate sent */
	NVME_AUTH_ST_CHALLENGE, /* ctrl: Challenge sent; host: Reply sent */
	NVME_AUTH_ST_SUCCESS1, /* ctrl: Success1 sent, waiting Success2 */
	NVME_AUTH_ST_DONE, /* authenticated */
	NVME_AUTH_ST_FAILED, /* failed: reason in ->failure */
};

/*
 * What one side knows. The host holds its own secret (and, for
 * bidirectional authentication, the controller's); the controller holds
 * the same secrets for that host. Lists are in preference order; empty
 * lists mean every hash / every group (null first, then by size, as
 * nvmet offers them). The strings and keys must outlive the exchange.
 */
struct nvme_auth_cfg {
	const char *hostnqn;
	const char *subnqn;
	const struct nvme_auth_key *host_key;
	const struct nvme_auth_key *ctrl_key; /* NULL/len 0: one way */
	uint8_t hashes[NVME_AUTH_MAX_IDS];
	uint8_t nr_hashes;
	uint8_t dhgroups[NVME_AUTH_MAX_IDS];
	uint8_t nr_dhgroups;
};

/* One queue's exchange, either side. Opaque beyond the state and the
 * failure; cleared (secrets zeroed) by nvme_auth_exch_clear. */
struct nvme_auth_exch {
	const struct nvme_auth_cfg *cfg;
	enum nvme_auth_state state;
	uint8_t failure; /* enum nvme_auth_failure once FAILED */
	bool peer_failed; /* the failure came in a Failure1/2 */
	bool bidirectional;
	uint16_t t_id;
	uint8_t hash, dhgroup, hl;
	uint32_t s1, s2;
	uint8_t c1[NVME_AUTH_MAX_HASH_LEN];
	uint8_t c2[NVME_AUTH_MAX_HASH_LEN];
	void *dh_key; /* EVP_PKEY: the controller's, Challenge to Reply */
	uint8_t sess[NVME_AUTH_MAX_DH_LEN];
	size_t sess_len;
};

void nvme_auth_exch_init(struct nvme_auth_exch *x,
			 const struct nvme_auth_cfg *cfg);
void nvme_auth_exch_clear(struct nvme_auth_exch *x);

/*
 * Each step takes the peer's message (none for the host's first) and
 * writes this side's next message to out (cap bytes, at least
 * NVME_AUTH_MAX_MSG), its length in *out_len (0: nothing to send).
 * Returns 0 while the exchange goes on or once it succeeded (state
 * DONE), a failure reason (> 0) when it failed (state FAILED: out holds
 * the Failure1/2 to send, unless the peer's message was itself a
 * failure), or -errno for a local error (no memory, crypto).
 */
/* host: the AUTH_Negotiate, t_id chosen by the caller (per queue) */
int nvme_auth_host_start(struct nvme_auth_exch *x, uint16_t t_id, void *out,
			 size_t cap, size_t *out_len);
/* host: Challenge (or Failure1) in, Reply out */
int nvme_auth_host_step_challenge(struct nvme_auth_exch *x, const void *in,
				  size_t in_len, void *out, size_t cap,
				  size_t *out_len);
/* host: Success1 (or Failure1) in; Success2 out when bidirectional */
int nvme_auth_host_step_success1(struct nvme_auth_exch *x, const void *in,
				 size_t in_len, void *out, size_t cap,
				 size_t *out_len);
/* controller: Negotiate in, Challenge out */
int nvme_auth_ctrl_step_negotiate(struct nvme_auth_exch *x, const void *in,
				  size_t in_len, void *out, size_t cap,
				  size_t *out_len);
/* controller: Reply in, Success1 out */
int nvme_auth_ctrl_step_reply(struct nvme_auth_exch *x, const void *in,
			      size_t in_len, void *out, size_t cap,
			      size_t *out_len);
/* controller: Success2 (or Failure2) in, nothing out */
int nvme_auth_ctrl_step_success2(struct nvme_auth_exch *x, const void *in,
				 size_t in_len);

#endif
