// SPDX-License-Identifier: MIT
/*
 * DH-HMAC-CHAP's wire: the names and sizes of its hash, group and reason
 * identifiers, and the AUTH messages' validating decoders and encoders.
 */
#include <errno.h>
#include <string.h>

#include "auth.h"

NVME_ASSERT_SIZE(struct nvme_auth_protocol_desc, 64);
NVME_ASSERT_SIZE(struct nvme_auth_negotiate, 8);
NVME_ASSERT_SIZE(struct nvme_auth_challenge, 16);
NVME_ASSERT_OFF(struct nvme_auth_challenge, hashid, 8);
NVME_ASSERT_OFF(struct nvme_auth_challenge, dhvlen, 10);
NVME_ASSERT_OFF(struct nvme_auth_challenge, seqnum, 12);
NVME_ASSERT_SIZE(struct nvme_auth_reply, 16);
NVME_ASSERT_OFF(struct nvme_auth_reply, cvalid, 8);
NVME_ASSERT_OFF(struct nvme_auth_reply, dhvlen, 10);
NVME_ASSERT_SIZE(struct nvme_auth_success1, 16);
NVME_ASSERT_OFF(struct nvme_auth_success1, rvalid, 8);
NVME_ASSERT_SIZE(struct nvme_auth_success2, 16);
NVME_ASSERT_SIZE(struct nvme_auth_failure_msg, 8);
NVME_ASSERT_SIZE(struct nvmf_auth_command, 64);
NVME_ASSERT_OFF(struct nvmf_auth_command, spsp0, 41);
NVME_ASSERT_OFF(struct nvmf_auth_command, secp, 43);
NVME_ASSERT_OFF(struct nvmf_auth_command, tl_al, 44);

/* ---- Names and sizes ------------------------------------------------ */

const char *nvme_auth_hash_name(uint8_t hash)
{
	switch (hash) {
	case NVME_AUTH_HASH_NONE:
		return "none";
	case NVME_AUTH_HASH_SHA256:
		return "sha256";
	case NVME_AUTH_HASH_SHA384:
		return "sha384";
	case NVME_AUTH_HASH_SHA512:
		return "sha512";
	default:
		return NULL;
	}
}

size_t nvme_auth_hash_len(uint8_t hash)
{
	switch (hash) {
	case NVME_AUTH_HASH_SHA256:
		return 32;
	case NVME_AUTH_HASH_SHA384:
		return 48;
	case NVME_AUTH_HASH_SHA512:
		return 64;
	default:
		return 0;
	}
}

int nvme_auth_hash_from_name(const char *name)
{
	char bare[16];
	size_t n = strlen(name);

	/* nvmet's configfs (and so nvmetcli's JSON) says "hmac(sha256)" */
	if (n > 6 && !strncmp(name, "hmac(", 5) && name[n - 1] == ')') {
		if (n - 6 >= sizeof(bare))
			return -EINVAL;
		memcpy(bare, name + 5, n - 6);
		bare[n - 6] = '\0';
		name = bare;
	}
	for (uint8_t h = NVME_AUTH_HASH_SHA256; h <= NVME_AUTH_HASH_SHA512; h++)
		if (!strcmp(name, nvme_auth_hash_name(h)))
			return h;
	return -EINVAL;
}

static const struct {
	const char *name;
	size_t len;
} dhgroups[] = {
	[NVME_AUTH_DHGROUP_NULL] = { "null", 0 },
	[NVME_AUTH_DHGROUP_2048] = { "ffdhe2048", 256 },
	[NVME_AUTH_DHGROUP_3072] = { "ffdhe3072", 384 },
	[NVME_AUTH_DHGROUP_4096] = { "ffdhe4096", 512 },
	[NVME_AUTH_DHGROUP_6144] = { "ffdhe6144", 768 },
	[NVME_AUTH_DHGROUP_8192] = { "ffdhe8192", 1024 },
};
#define NR_DHGROUPS (sizeof(dhgroups) / sizeof(dhgroups[0]))

const char *nvme_auth_dhgroup_name(uint8_t group)
{
	return group < NR_DHGROUPS ? dhgroups[group].name : NULL;
}

size_t nvme_auth_dhgroup_len(uint8_t group)
{
	return group < NR_DHGROUPS ? dhgroups[group].len : 0;
}

int nvme_auth_dhgroup_from_name(const char *name)
{
	for (uint8_t g = 0; g < NR_DHGROUPS; g++)
		if (!strcmp(name, dhgroups[g].name))
			return g;
	return -EINVAL;
}

const char *nvme_auth_failure_str(uint8_t reason)
{
	switch (reason) {
	case NVME_AUTH_FAIL_FAILED:
		return "authentication failed";
	case NVME_AUTH_FAIL_NOT_USABLE:
		return "authentication protocol not usable";
	case NVME_AUTH_FAIL_CONCAT_MISMATCH:
		return "secure channel concatenation mismatch";
	case NVME_AUTH_FAIL_HASH_UNUSABLE:
		return "hash function not usable";
	case NVME_AUTH_FAIL_DHGROUP_UNUSABLE:
		return "DH group not usable";
	case NVME_AUTH_FAIL_INCORRECT_PAYLOAD:
		return "incorrect payload";
	case NVME_AUTH_FAIL_INCORRECT_MESSAGE:
		return "incorrect protocol message";
	default:
		return "unknown failure reason";
	}
}

/* ---- Decoders -------------------------------------------------------- */

int nvme_auth_msg_peek(const void *buf, size_t len, uint8_t *auth_type,
		       uint8_t *auth_id, uint16_t *t_id)
{
	const uint8_t *p = buf;

	if (len < 6)
		return -EINVAL;
	*auth_type = p[0];
	*auth_id = p[1];
	*t_id = nvme_get_le16(p + 4);
	return 0;
}

static bool is_msg(const uint8_t *p, size_t len, uint8_t type, uint8_t id)
{
	return len >= 6 && p[0] == type && p[1] == id;
}

int nvme_auth_negotiate_decode(const void *buf, size_t len,
			       struct nvme_auth_negotiate_info *out)
{
	const uint8_t *p = buf;
	const struct nvme_auth_protocol_desc *d;
	bool found = false;

	memset(out, 0, sizeof(*out));
	if (!is_msg(p, len, NVME_AUTH_COMMON_MESSAGES, NVME_AUTH_ID_NEGOTIATE))
		return NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (len < sizeof(struct nvme_auth_negotiate))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->t_id = nvme_get_le16(p + 4);
	out->sc_c = p[6];
	uint8_t napd = p[7];
	if (napd == 0 || len < sizeof(struct nvme_auth_negotiate) +
					 (size_t)napd * sizeof(*d))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	for (unsigned i = 0; i < napd; i++) {
		d = (const void *)(p + sizeof(struct nvme_auth_negotiate) +
				   i * sizeof(*d));
		if (d->authid != NVME_AUTH_DHCHAP_AUTH_ID)
			continue; /* another protocol: not ours */
		if (found || d->halen == 0 || d->halen > NVME_AUTH_MAX_IDS ||
		    d->dhlen == 0 || d->dhlen > NVME_AUTH_MAX_IDS)
			return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
		found = true;
		out->nr_hashes = d->halen;
		memcpy(out->hashes, d->idlist, d->halen);
		out->nr_dhgroups = d->dhlen;
		memcpy(out->dhgroups, d->idlist + NVME_AUTH_MAX_IDS, d->dhlen);
	}
	return found ? 0 : NVME_AUTH_FAIL_NOT_USABLE;
}

int nvme_auth_challenge_decode(const void *buf, size_t len,
			       struct nvme_auth_challenge_info *out)
{
	const uint8_t *p = buf;
	size_t dh_max;

	memset(out, 0, sizeof(*out));
	if (!is_msg(p, len, NVME_AUTH_DHCHAP_MESSAGES, NVME_AUTH_ID_CHALLENGE))
		return NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (len < sizeof(struct nvme_auth_challenge))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->t_id = nvme_get_le16(p + 4);
	out->hl = p[6];
	out->hash = p[8];
	out->dhgroup = p[9];
	out->dhvlen = nvme_get_le16(p + 10);
	out->seqnum = nvme_get_le32(p + 12);
	if (!nvme_auth_hash_len(out->hash))
		return NVME_AUTH_FAIL_HASH_UNUSABLE;
	if (out->dhgroup >= NR_DHGROUPS)
		return NVME_AUTH_FAIL_DHGROUP_UNUSABLE;
	dh_max = nvme_auth_dhgroup_len(out->dhgroup);
	/* S1 is never 0; a DH group needs a value no longer than its prime
	 * (SPDK sends it unpadded, the kernel padded) */
	if (out->hl != nvme_auth_hash_len(out->hash) || out->seqnum == 0 ||
	    out->dhvlen > dh_max || (dh_max && out->dhvlen == 0) ||
	    len < sizeof(struct nvme_auth_challenge) + out->hl + out->dhvlen)
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->cval = p + sizeof(struct nvme_auth_challenge);
	out->dhv = out->dhvlen ? out->cval + out->hl : NULL;
	return 0;
}

int nvme_auth_reply_decode(const void *buf, size_t len,
			   struct nvme_auth_reply_info *out)
{
	const uint8_t *p = buf;

	memset(out, 0, sizeof(*out));
	if (!is_msg(p, len, NVME_AUTH_DHCHAP_MESSAGES, NVME_AUTH_ID_REPLY))
		return NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (len < sizeof(struct nvme_auth_reply))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->t_id = nvme_get_le16(p + 4);
	out->hl = p[6];
	out->cvalid = p[8] & 1;
	out->dhvlen = nvme_get_le16(p + 10);
	out->seqnum = nvme_get_le32(p + 12);
	if (out->hl != 32 && out->hl != 48 && out->hl != 64)
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	if (out->dhvlen > NVME_AUTH_MAX_DH_LEN ||
	    len < sizeof(struct nvme_auth_reply) + 2u * out->hl + out->dhvlen)
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	/* a bidirectional request carries a nonzero S2, a one-way one 0 */
	if (out->cvalid != (out->seqnum != 0))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->rval = p + sizeof(struct nvme_auth_reply);
	out->cval = out->cvalid ? out->rval + out->hl : NULL;
	out->dhv = out->dhvlen ? out->rval + 2 * out->hl : NULL;
	return 0;
}

int nvme_auth_success1_decode(const void *buf, size_t len,
			      struct nvme_auth_success1_info *out)
{
	const uint8_t *p = buf;

	memset(out, 0, sizeof(*out));
	if (!is_msg(p, len, NVME_AUTH_DHCHAP_MESSAGES, NVME_AUTH_ID_SUCCESS1))
		return NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (len < sizeof(struct nvme_auth_success1))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	out->t_id = nvme_get_le16(p + 4);
	out->hl = p[6];
	out->rvalid = p[8] & 1;
	if (out->rvalid) {
		if ((out->hl != 32 && out->hl != 48 && out->hl != 64) ||
		    len < sizeof(struct nvme_auth_success1) + out->hl)
			return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
		out->rval = p + sizeof(struct nvme_auth_success1);
	}
	return 0;
}

int nvme_auth_success2_decode(const void *buf, size_t len, uint16_t *t_id)
{
	const uint8_t *p = buf;

	if (!is_msg(p, len, NVME_AUTH_DHCHAP_MESSAGES, NVME_AUTH_ID_SUCCESS2))
		return NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (len < sizeof(struct nvme_auth_success2))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	*t_id = nvme_get_le16(p + 4);
	return 0;
}

int nvme_auth_failure_decode(const void *buf, size_t len, uint8_t want_id,
			     uint16_t *t_id, uint8_t *reason)
{
	const uint8_t *p = buf;

	if (!is_msg(p, len, NVME_AUTH_COMMON_MESSAGES, want_id))
		return NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (len < sizeof(struct nvme_auth_failure_msg))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	*t_id = nvme_get_le16(p + 4);
	/* a failure is a failure whatever it says: an explanation the spec
	 * does not have is reported as plain "failed" */
	*reason = NVME_AUTH_FAIL_FAILED;
	if (p[7] >= NVME_AUTH_FAIL_FAILED &&
	    p[7] <= NVME_AUTH_FAIL_INCORRECT_MESSAGE)
		*reason = p[7];
	return 0;
}

/* ---- Encoders -------------------------------------------------------- */

static uint8_t *msg_start(void *buf, size_t cap, size_t len, uint8_t type,
			  uint8_t id, uint16_t t_id)
{
	uint8_t *p = buf;

	if (cap < len)
		return NULL;
	memset(p, 0, len);
	p[0] = type;
	p[1] = id;
	nvme_put_le16(p + 4, t_id);
	return p;
}

int nvme_auth_negotiate_encode(void *buf, size_t cap, uint16_t t_id,
			       const uint8_t *hashes, unsigned nr_hashes,
			       const uint8_t *dh, unsigned nr_dh)
{
	size_t len = sizeof(struct nvme_auth_negotiate) +
		     sizeof(struct nvme_auth_protocol_desc);
	struct nvme_auth_protocol_desc *d;
	uint8_t *p;

	if (!nr_hashes || nr_hashes > NVME_AUTH_MAX_IDS || !nr_dh ||
	    nr_dh > NVME_AUTH_MAX_IDS)
		return -EINVAL;
	p = msg_start(buf, cap, len, NVME_AUTH_COMMON_MESSAGES,
		      NVME_AUTH_ID_NEGOTIATE, t_id);
	if (!p)
		return -ENOSPC;
	p[6] = 0; /* sc_c: no secure channel concatenation */
	p[7] = 1;
	d = (void *)(p + sizeof(struct nvme_auth_negotiate));
	d->authid = NVME_AUTH_DHCHAP_AUTH_ID;
	d->halen = (uint8_t)nr_hashes;
	d->dhlen = (uint8_t)nr_dh;
	memcpy(d->idlist, hashes, nr_hashes);
	memcpy(d->idlist + NVME_AUTH_MAX_IDS, dh, nr_dh);
	return (int)len;
}

int nvme_auth_challenge_encode(void *buf, size_t cap, uint16_t t_id,
			       uint8_t hash, uint8_t dhgroup, uint32_t seqnum,
			       const uint8_t *cval, const uint8_t *dhv,
			       uint16_t dhvlen)
{
	size_t hl = nvme_auth_hash_len(hash);
	size_t len = sizeof(struct nvme_auth_challenge) + hl + dhvlen;
	uint8_t *p;

	if (!hl || dhvlen > NVME_AUTH_MAX_DH_LEN)
		return -EINVAL;
	p = msg_start(buf, cap, len, NVME_AUTH_DHCHAP_MESSAGES,
		      NVME_AUTH_ID_CHALLENGE, t_id);
	if (!p)
		return -ENOSPC;
	p[6] = (uint8_t)hl;
	p[8] = hash;
	p[9] = dhgroup;
	nvme_put_le16(p + 10, dhvlen);
	nvme_put_le32(p + 12, seqnum);
	memcpy(p + 16, cval, hl);
	if (dhvlen)
		memcpy(p + 16 + hl, dhv, dhvlen);
	return (int)len;
}

int nvme_auth_reply_encode(void *buf, size_t cap, uint16_t t_id, uint8_t hl,
			   const uint8_t *rval, const uint8_t *cval,
			   uint32_t seqnum, const uint8_t *dhv, uint16_t dhvlen)
{
	size_t len = sizeof(struct nvme_auth_reply) + 2u * hl + dhvlen;
	uint8_t *p;

	if ((hl != 32 && hl != 48 && hl != 64) || dhvlen > NVME_AUTH_MAX_DH_LEN)
		return -EINVAL;
	p = msg_start(buf, cap, len, NVME_AUTH_DHCHAP_MESSAGES,
		      NVME_AUTH_ID_REPLY, t_id);
	if (!p)
		return -ENOSPC;
	p[6] = hl;
	p[8] = cval ? 1 : 0;
	nvme_put_le16(p + 10, dhvlen);
	nvme_put_le32(p + 12, cval ? seqnum : 0);
	memcpy(p + 16, rval, hl);
	if (cval)
		memcpy(p + 16 + hl, cval, hl);
	if (dhvlen)
		memcpy(p + 16 + 2 * hl, dhv, dhvlen);
	return (int)len;
}

int nvme_auth_success1_encode(void *buf, size_t cap, uint16_t t_id, uint8_t hl,
			      const uint8_t *rval)
{
	/* R2's room is always there (the kernel host reads hl bytes
	 * whether or not rvalid is set) */
	size_t len = sizeof(struct nvme_auth_success1) + hl;
	uint8_t *p;

	if (hl != 32 && hl != 48 && hl != 64)
		return -EINVAL;
	p = msg_start(buf, cap, len, NVME_AUTH_DHCHAP_MESSAGES,
		      NVME_AUTH_ID_SUCCESS1, t_id);
	if (!p)
		return -ENOSPC;
	p[6] = hl;
	if (rval) {
		p[8] = 1;
		memcpy(p + 16, rval, hl);
	}
	return (int)len;
}

int nvme_auth_success2_encode(void *buf, size_t cap, uint16_t t_id)
{
	size_t len = sizeof(struct nvme_auth_success2);

	if (!msg_start(buf, cap, len, NVME_AUTH_DHCHAP_MESSAGES,
		       NVME_AUTH_ID_SUCCESS2, t_id))
		return -ENOSPC;
	return (int)len;
}

int nvme_auth_failure_encode(void *buf, size_t cap, uint8_t auth_id,
			     uint16_t t_id, uint8_t reason)
{
	size_t len = sizeof(struct nvme_auth_failure_msg);
	uint8_t *p;

	if (auth_id != NVME_AUTH_ID_FAILURE1 &&
	    auth_id != NVME_AUTH_ID_FAILURE2)
		return -EINVAL;
	p = msg_start(buf, cap, len, NVME_AUTH_COMMON_MESSAGES, auth_id, t_id);
	if (!p)
		return -ENOSPC;
	p[6] = NVME_AUTH_RESCODE_FAILED;
	p[7] = reason;
	return (int)len;
}
