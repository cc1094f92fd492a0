// SPDX-License-Identifier: MIT
/*
 * DH-HMAC-CHAP: the host's and the controller's halves of the exchange,
 * message in, message out (auth_msg.c the messages, auth_key.c the
 * secrets, auth_crypto.c the computations).
 */
#include <errno.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "auth_int.h"

/* ---- The exchange ---------------------------------------------------- */

static const uint8_t all_hashes[] = {
	NVME_AUTH_HASH_SHA256,
	NVME_AUTH_HASH_SHA384,
	NVME_AUTH_HASH_SHA512,
};
static const uint8_t all_dhgroups[] = {
	NVME_AUTH_DHGROUP_NULL, NVME_AUTH_DHGROUP_2048, NVME_AUTH_DHGROUP_3072,
	NVME_AUTH_DHGROUP_4096, NVME_AUTH_DHGROUP_6144, NVME_AUTH_DHGROUP_8192,
};

static void cfg_hashes(const struct nvme_auth_cfg *c, const uint8_t **l,
		       unsigned *n)
{
	*l = c->nr_hashes ? c->hashes : all_hashes;
	*n = c->nr_hashes ? c->nr_hashes : sizeof(all_hashes);
}

static void cfg_dhgroups(const struct nvme_auth_cfg *c, const uint8_t **l,
			 unsigned *n)
{
	*l = c->nr_dhgroups ? c->dhgroups : all_dhgroups;
	*n = c->nr_dhgroups ? c->nr_dhgroups : sizeof(all_dhgroups);
}

static bool in_list(const uint8_t *l, unsigned n, uint8_t v)
{
	for (unsigned i = 0; i < n; i++)
		if (l[i] == v)
			return true;
	return false;
}

static bool has_ctrl_key(const struct nvme_auth_cfg *c)
{
	return c->ctrl_key && c->ctrl_key->len;
}

/*
 * The responses of the exchange, from the transformed secrets: R1, the
 * host's to challenge C1 (the host computes it to send, the controller to
 * check), and R2, the controller's to C2. The transformed key is
 * cleansed before returning. 0 or -errno.
 */
static int host_response(const struct nvme_auth_exch *x,
			 const struct nvme_auth_cfg *c, uint8_t *r1)
{
	uint8_t key[NVME_AUTH_MAX_HASH_LEN];
	int key_len = nvme_auth_key_transform(c->host_key, c->hostnqn, key);
	int ret;

	if (key_len < 0)
		return key_len;
	ret = nvme_auth_response(x->hash, key, (size_t)key_len, x->c1,
				 x->sess_len ? x->sess : NULL, x->sess_len,
				 x->s1, x->t_id, 0, "HostHost", c->hostnqn,
				 c->subnqn, r1);
	OPENSSL_cleanse(key, sizeof(key));
	return ret;
}

static int ctrl_response(const struct nvme_auth_exch *x,
			 const struct nvme_auth_cfg *c, uint8_t *r2)
{
	uint8_t key[NVME_AUTH_MAX_HASH_LEN];
	int key_len = nvme_auth_key_transform(c->ctrl_key, c->subnqn, key);
	int ret;

	if (key_len < 0)
		return key_len;
	ret = nvme_auth_response(x->hash, key, (size_t)key_len, x->c2,
				 x->sess_len ? x->sess : NULL, x->sess_len,
				 x->s2, x->t_id, 0, "Controller", c->subnqn,
				 c->hostnqn, r2);
	OPENSSL_cleanse(key, sizeof(key));
	return ret;
}

void nvme_auth_exch_init(struct nvme_auth_exch *x,
			 const struct nvme_auth_cfg *cfg)
{
	memset(x, 0, sizeof(*x));
	x->cfg = cfg;
	x->state = NVME_AUTH_ST_IDLE;
}

void nvme_auth_exch_clear(struct nvme_auth_exch *x)
{
	EVP_PKEY_free(x->dh_key);
	OPENSSL_cleanse(x, sizeof(*x));
}

static void drop_dh(struct nvme_auth_exch *x)
{
	EVP_PKEY_free(x->dh_key);
	x->dh_key = NULL;
}

/* Fail with reason; out gets the Failure1/2 for it. */
static int fail(struct nvme_auth_exch *x, uint8_t auth_id, uint8_t reason,
		void *out, size_t cap, size_t *out_len)
{
	int n = nvme_auth_failure_encode(out, cap, auth_id, x->t_id, reason);

	drop_dh(x);
	OPENSSL_cleanse(x->sess, sizeof(x->sess));
	x->state = NVME_AUTH_ST_FAILED;
	x->failure = reason;
	*out_len = n > 0 ? (size_t)n : 0;
	return reason;
}

/* The peer sent a Failure1/2: fail with its reason, send nothing. */
static int peer_failed(struct nvme_auth_exch *x, uint8_t reason,
		       size_t *out_len)
{
	drop_dh(x);
	x->state = NVME_AUTH_ST_FAILED;
	x->failure = reason;
	x->peer_failed = true;
	*out_len = 0;
	return reason;
}

static int random_bytes(void *p, size_t n)
{
	return RAND_bytes(p, (int)n) == 1 ? 0 : -EIO;
}

/* A nonzero sequence number */
static int random_seqnum(uint32_t *s)
{
	do {
		if (random_bytes(s, sizeof(*s)))
			return -EIO;
	} while (*s == 0);
	return 0;
}

int nvme_auth_host_start(struct nvme_auth_exch *x, uint16_t t_id, void *out,
			 size_t cap, size_t *out_len)
{
	const uint8_t *h, *g;
	unsigned nh, ng;
	int n;

	*out_len = 0;
	if (x->state != NVME_AUTH_ST_IDLE)
		return -EBUSY;
	cfg_hashes(x->cfg, &h, &nh);
	cfg_dhgroups(x->cfg, &g, &ng);
	x->t_id = t_id;
	n = nvme_auth_negotiate_encode(out, cap, t_id, h, nh, g, ng);
	if (n < 0)
		return n;
	*out_len = (size_t)n;
	x->state = NVME_AUTH_ST_NEGOTIATE;
	return 0;
}

/* host or controller: a failure message where a step expected another */
static bool take_failure(struct nvme_auth_exch *x, const void *in,
			 size_t in_len, uint8_t fail_id, int *ret,
			 size_t *out_len)
{
	uint16_t t_id;
	uint8_t reason;

	if (nvme_auth_failure_decode(in, in_len, fail_id, &t_id, &reason))
		return false;
	*ret = peer_failed(x, reason, out_len);
	return true;
}

int nvme_auth_host_step_challenge(struct nvme_auth_exch *x, const void *in,
				  size_t in_len, void *out, size_t cap,
				  size_t *out_len)
{
	const struct nvme_auth_cfg *c = x->cfg;
	struct nvme_auth_challenge_info ch;
	uint8_t r1[NVME_AUTH_MAX_HASH_LEN];
	uint8_t pub[NVME_AUTH_MAX_DH_LEN];
	const uint8_t *l;
	unsigned nl;
	EVP_PKEY *pkey = NULL;
	int ret, n;

	*out_len = 0;
	if (x->state != NVME_AUTH_ST_NEGOTIATE)
		return -EBUSY;
	if (take_failure(x, in, in_len, NVME_AUTH_ID_FAILURE1, &ret, out_len))
		return ret;
	ret = nvme_auth_challenge_decode(in, in_len, &ch);
	if (ret)
		return fail(x, NVME_AUTH_ID_FAILURE2, (uint8_t)ret, out, cap,
			    out_len);
	if (ch.t_id != x->t_id)
		return fail(x, NVME_AUTH_ID_FAILURE2,
			    NVME_AUTH_FAIL_INCORRECT_MESSAGE, out, cap,
			    out_len);
	/* the controller must pick from what was offered */
	cfg_hashes(c, &l, &nl);
	if (!in_list(l, nl, ch.hash))
		return fail(x, NVME_AUTH_ID_FAILURE2,
			    NVME_AUTH_FAIL_HASH_UNUSABLE, out, cap, out_len);
	cfg_dhgroups(c, &l, &nl);
	if (!in_list(l, nl, ch.dhgroup))
		return fail(x, NVME_AUTH_ID_FAILURE2,
			    NVME_AUTH_FAIL_DHGROUP_UNUSABLE, out, cap, out_len);
	x->hash = ch.hash;
	x->dhgroup = ch.dhgroup;
	x->hl = ch.hl;
	x->s1 = ch.seqnum;
	memcpy(x->c1, ch.cval, ch.hl);

	if (ch.dhgroup != NVME_AUTH_DHGROUP_NULL) {
		ret = auth_dh_generate(ch.dhgroup, &pkey, pub);
		if (ret)
			goto out;
		ret = auth_dh_derive(pkey, ch.dhgroup, ch.dhv, ch.dhvlen,
				     x->sess, &x->sess_len);
		EVP_PKEY_free(pkey);
		if (ret == -EPROTO)
			return fail(x, NVME_AUTH_ID_FAILURE2,
				    NVME_AUTH_FAIL_INCORRECT_PAYLOAD, out, cap,
				    out_len);
		if (ret)
			goto out;
	}
	ret = host_response(x, c, r1);
	if (ret)
		goto out;
	x->bidirectional = has_ctrl_key(c);
	if (x->bidirectional) {
		ret = random_seqnum(&x->s2);
		if (!ret)
			ret = random_bytes(x->c2, x->hl);
		if (ret)
			goto out;
	}
	n = nvme_auth_reply_encode(out, cap, x->t_id, x->hl, r1,
				   x->bidirectional ? x->c2 : NULL, x->s2, pub,
				   (uint16_t)nvme_auth_dhgroup_len(x->dhgroup));
	if (n < 0) {
		ret = n;
		goto out;
	}
	*out_len = (size_t)n;
	x->state = NVME_AUTH_ST_CHALLENGE;
	ret = 0;
out:
	if (ret < 0)
		x->state = NVME_AUTH_ST_FAILED;
	return ret;
}

int nvme_auth_host_step_success1(struct nvme_auth_exch *x, const void *in,
				 size_t in_len, void *out, size_t cap,
				 size_t *out_len)
{
	const struct nvme_auth_cfg *c = x->cfg;
	struct nvme_auth_success1_info s;
	uint8_t r2[NVME_AUTH_MAX_HASH_LEN];
	int ret, n;

	*out_len = 0;
	if (x->state != NVME_AUTH_ST_CHALLENGE)
		return -EBUSY;
	if (take_failure(x, in, in_len, NVME_AUTH_ID_FAILURE1, &ret, out_len))
		return ret;
	ret = nvme_auth_success1_decode(in, in_len, &s);
	if (ret)
		return fail(x, NVME_AUTH_ID_FAILURE2, (uint8_t)ret, out, cap,
			    out_len);
	if (s.t_id != x->t_id || s.hl != x->hl)
		return fail(x, NVME_AUTH_ID_FAILURE2,
			    NVME_AUTH_FAIL_INCORRECT_MESSAGE, out, cap,
			    out_len);
	if (!x->bidirectional) {
		/* one way: R2 is not expected; we are in */
		OPENSSL_cleanse(x->sess, sizeof(x->sess));
		x->state = NVME_AUTH_ST_DONE;
		return 0;
	}
	/* we asked the controller to prove itself and it did not */
	if (!s.rvalid)
		return fail(x, NVME_AUTH_ID_FAILURE2, NVME_AUTH_FAIL_FAILED,
			    out, cap, out_len);
	ret = ctrl_response(x, c, r2);
	if (ret)
		goto out;
	if (CRYPTO_memcmp(r2, s.rval, x->hl))
		return fail(x, NVME_AUTH_ID_FAILURE2, NVME_AUTH_FAIL_FAILED,
			    out, cap, out_len);
	n = nvme_auth_success2_encode(out, cap, x->t_id);
	if (n < 0) {
		ret = n;
		goto out;
	}
	*out_len = (size_t)n;
	x->state = NVME_AUTH_ST_DONE;
out:
	/* a local failure (the HMAC, the buffer) ends the exchange as the
	 * other steps' do: no session key left behind, no step after it */
	OPENSSL_cleanse(x->sess, sizeof(x->sess));
	OPENSSL_cleanse(r2, sizeof(r2));
	if (ret)
		x->state = NVME_AUTH_ST_FAILED;
	return ret;
}

int nvme_auth_ctrl_step_negotiate(struct nvme_auth_exch *x, const void *in,
				  size_t in_len, void *out, size_t cap,
				  size_t *out_len)
{
	struct nvme_auth_negotiate_info neg;
	uint8_t pub[NVME_AUTH_MAX_DH_LEN];
	const uint8_t *l;
	unsigned nl, i;
	uint16_t dhvlen;
	int ret, n;

	*out_len = 0;
	/* a new Negotiate restarts the exchange: re-authentication */
	drop_dh(x);
	x->state = NVME_AUTH_ST_IDLE;
	x->sess_len = 0;
	ret = nvme_auth_negotiate_decode(in, in_len, &neg);
	x->t_id = neg.t_id;
	if (ret)
		return fail(x, NVME_AUTH_ID_FAILURE1, (uint8_t)ret, out, cap,
			    out_len);
	if (neg.sc_c != 0)
		return fail(x, NVME_AUTH_ID_FAILURE1,
			    NVME_AUTH_FAIL_CONCAT_MISMATCH, out, cap, out_len);
	/* the controller's preference, among what the host offers */
	cfg_hashes(x->cfg, &l, &nl);
	for (i = 0; i < nl && !in_list(neg.hashes, neg.nr_hashes, l[i]); i++)
		;
	if (i == nl)
		return fail(x, NVME_AUTH_ID_FAILURE1,
			    NVME_AUTH_FAIL_HASH_UNUSABLE, out, cap, out_len);
	x->hash = l[i];
	x->hl = (uint8_t)nvme_auth_hash_len(x->hash);
	cfg_dhgroups(x->cfg, &l, &nl);
	for (i = 0; i < nl && !in_list(neg.dhgroups, neg.nr_dhgroups, l[i]);
	     i++)
		;
	if (i == nl)
		return fail(x, NVME_AUTH_ID_FAILURE1,
			    NVME_AUTH_FAIL_DHGROUP_UNUSABLE, out, cap, out_len);
	x->dhgroup = l[i];
	ret = random_seqnum(&x->s1);
	if (!ret)
		ret = random_bytes(x->c1, x->hl);
	if (!ret && x->dhgroup != NVME_AUTH_DHGROUP_NULL)
		ret = auth_dh_generate(x->dhgroup, (EVP_PKEY **)&x->dh_key,
				       pub);
	if (ret)
		goto err;
	dhvlen = (uint16_t)nvme_auth_dhgroup_len(x->dhgroup);
	n = nvme_auth_challenge_encode(out, cap, x->t_id, x->hash, x->dhgroup,
				       x->s1, x->c1, pub, dhvlen);
	if (n < 0) {
		ret = n;
		goto err;
	}
	*out_len = (size_t)n;
	x->state = NVME_AUTH_ST_CHALLENGE;
	return 0;
err:
	drop_dh(x);
	x->state = NVME_AUTH_ST_FAILED;
	return ret;
}

int nvme_auth_ctrl_step_reply(struct nvme_auth_exch *x, const void *in,
			      size_t in_len, void *out, size_t cap,
			      size_t *out_len)
{
	const struct nvme_auth_cfg *c = x->cfg;
	struct nvme_auth_reply_info r;
	uint8_t want[NVME_AUTH_MAX_HASH_LEN];
	uint8_t r2[NVME_AUTH_MAX_HASH_LEN];
	int ret, n;

	*out_len = 0;
	if (x->state != NVME_AUTH_ST_CHALLENGE)
		return -EBUSY;
	if (take_failure(x, in, in_len, NVME_AUTH_ID_FAILURE2, &ret, out_len))
		return ret;
	ret = nvme_auth_reply_decode(in, in_len, &r);
	if (ret)
		return fail(x, NVME_AUTH_ID_FAILURE1, (uint8_t)ret, out, cap,
			    out_len);
	if (r.t_id != x->t_id)
		return fail(x, NVME_AUTH_ID_FAILURE1,
			    NVME_AUTH_FAIL_INCORRECT_MESSAGE, out, cap,
			    out_len);
	if (r.hl != x->hl ||
	    (x->dhgroup == NVME_AUTH_DHGROUP_NULL) != (r.dhvlen == 0) ||
	    r.dhvlen > nvme_auth_dhgroup_len(x->dhgroup))
		return fail(x, NVME_AUTH_ID_FAILURE1,
			    NVME_AUTH_FAIL_INCORRECT_PAYLOAD, out, cap,
			    out_len);
	/* the host wants us to prove ourselves, and we have no key to */
	if (r.cvalid && !has_ctrl_key(c))
		return fail(x, NVME_AUTH_ID_FAILURE1, NVME_AUTH_FAIL_FAILED,
			    out, cap, out_len);
	if (x->dhgroup != NVME_AUTH_DHGROUP_NULL) {
		ret = auth_dh_derive(x->dh_key, x->dhgroup, r.dhv, r.dhvlen,
				     x->sess, &x->sess_len);
		drop_dh(x);
		if (ret == -EPROTO)
			return fail(x, NVME_AUTH_ID_FAILURE1,
				    NVME_AUTH_FAIL_INCORRECT_PAYLOAD, out, cap,
				    out_len);
		if (ret)
			goto out;
	}
	ret = host_response(x, c, want);
	if (ret)
		goto out;
	if (CRYPTO_memcmp(want, r.rval, x->hl)) {
		ret = fail(x, NVME_AUTH_ID_FAILURE1, NVME_AUTH_FAIL_FAILED, out,
			   cap, out_len);
		goto out;
	}
	x->bidirectional = r.cvalid;
	if (x->bidirectional) {
		x->s2 = r.seqnum;
		memcpy(x->c2, r.cval, x->hl);
		ret = ctrl_response(x, c, r2);
		if (ret)
			goto out;
	}
	n = nvme_auth_success1_encode(out, cap, x->t_id, x->hl,
				      x->bidirectional ? r2 : NULL);
	if (n < 0) {
		ret = n;
		goto out;
	}
	*out_len = (size_t)n;
	x->state = x->bidirectional ? NVME_AUTH_ST_SUCCESS1 : NVME_AUTH_ST_DONE;
	ret = 0;
out:
	OPENSSL_cleanse(x->sess, sizeof(x->sess));
	if (ret < 0)
		x->state = NVME_AUTH_ST_FAILED;
	return ret;
}

int nvme_auth_ctrl_step_success2(struct nvme_auth_exch *x, const void *in,
				 size_t in_len)
{
	size_t none;
	uint16_t t_id;
	int ret;

	if (x->state != NVME_AUTH_ST_SUCCESS1)
		return -EBUSY;
	if (take_failure(x, in, in_len, NVME_AUTH_ID_FAILURE2, &ret, &none))
		return ret;
	ret = nvme_auth_success2_decode(in, in_len, &t_id);
	if (!ret && t_id != x->t_id)
		ret = NVME_AUTH_FAIL_INCORRECT_MESSAGE;
	if (ret) {
		x->state = NVME_AUTH_ST_FAILED;
		x->failure = (uint8_t)ret;
		return ret;
	}
	x->state = NVME_AUTH_ST_DONE;
	return 0;
}
