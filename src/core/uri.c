// SPDX-License-Identifier: MIT
/*
 * Device URIs: "driver" or "driver:key=value,key=value"; a path ("/..." or
 * "./...", "../...") is the uring driver's, "PATH" or "PATH?key=value,...",
 * handed over as a first key "path"; "nvme-tcp://HOST:PORT/SUBNQN?k=v&k=v"
 * is the nvme_tcp driver's (nvme-rdma:// the nvme_rdma driver's), the part
 * before '?' handed over as "addr"
 * (its keys may be separated by '&', as in a URL, or ','), or the
 * nvme_mpath driver's with several addresses ("HOST:PORT,HOST:PORT/")
 * or an iopolicy= or paths= key. Splits in place; the driver name
 * decides who consumes the keys.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define URI_MAX_PARAMS 64

/* s as one printable line for an error message: control bytes become
 * '?' and it is cut to fit (a URI is user input, and the message must
 * stay one line). */
const char *core_printable(const char *s, char *out, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		out[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' :
								      s[i];
	out[i] = '\0';
	return out;
}

/* An nvme-tcp:// URI for the multipath driver: several addresses before
 * the '/' (commas outside IPv6 brackets), or a multipath key. */
static bool nvme_tcp_is_multipath(const struct mqblk_params *params)
{
	const char *a = params->v[0].val;
	bool in_br = false;
	unsigned i;

	for (; *a && (in_br || *a != '/'); a++) {
		if (*a == '[')
			in_br = true;
		else if (*a == ']')
			in_br = false;
		else if (*a == ',' && !in_br)
			return true;
	}
	for (i = 1; i < params->nr; i++)
		if (!strcmp(params->v[i].key, "iopolicy") ||
		    !strcmp(params->v[i].key, "paths"))
			return true;
	return false;
}

/* "SCHEME://...": only nvme-tcp:// is a device URL; a path is written
 * as itself. The message names what was typed. */
static void uri_scheme_err(const char *uri, const char *colon, char *err,
			   size_t errlen)
{
	char pu[128], ps[32], pp[128];
	size_t n = (size_t)(colon - uri);

	core_printable(uri, pu, sizeof(pu));
	if (n >= sizeof(ps))
		n = sizeof(ps) - 1;
	memcpy(ps, uri, n);
	ps[n] = '\0';
	core_printable(ps, ps, sizeof(ps));
	if (!strcmp(ps, "file"))
		snprintf(err, errlen,
			 "'%s': no file:// URLs; give the path itself "
			 "(%s)",
			 pu,
			 colon[3] ? core_printable(colon + 3, pp, sizeof(pp)) :
				    "/...");
	else
		snprintf(err, errlen,
			 "'%s': unknown URL scheme '%s://' (a device is "
			 "nvme-tcp://HOST:PORT/NQN, a path, or "
			 "DRIVER:key=value,...)",
			 pu, ps);
}

/* A key given twice (null:size=1g,size=2g): refused, not the last one
 * silently taken. */
static int uri_dup_key(const struct mqblk_params *params, char *err,
		       size_t errlen)
{
	unsigned i, j;

	for (i = 1; i < params->nr; i++)
		for (j = 0; j < i; j++) {
			char pk[64], pv1[64], pv2[64];

			if (strcmp(params->v[i].key, params->v[j].key))
				continue;
			snprintf(err, errlen,
				 "device parameter %s given twice "
				 "(%s=%s and %s=%s)",
				 core_printable(params->v[i].key, pk,
						sizeof(pk)),
				 pk,
				 core_printable(params->v[j].val, pv1,
						sizeof(pv1)),
				 pk,
				 core_printable(params->v[i].val, pv2,
						sizeof(pv2)));
			return -EINVAL;
		}
	return 0;
}

int uri_parse(char *buf, const char **driver, struct mqblk_params *params,
	      char *err, size_t errlen)
{
	char *colon, *p;
	bool is_path = buf[0] == '/' || buf[0] == '.';
	/* nvme-tcp:// and nvme-rdma://: the fabrics host's (the variable
	 * keeps its first transport's name) */
	bool is_rdma = !strncmp(buf, "nvme-rdma://", 12);
	bool is_nvme_tcp = !strncmp(buf, "nvme-tcp://", 11) || is_rdma;

	params->nr = 0;
	params->v = NULL;
	*driver = buf;
	if (is_path || is_nvme_tcp) {
		char *q = strchr(buf, '?');

		params->v = calloc(URI_MAX_PARAMS, sizeof(*params->v));
		if (!params->v)
			return -ENOMEM;
		*driver = is_path ? "uring" :
			  is_rdma ? "nvme_rdma" :
				    "nvme_tcp";
		params->v[0].key = is_path ? "path" : "addr";
		params->v[0].val = is_path ? buf : buf + (is_rdma ? 12 : 11);
		params->v[0].used = false;
		params->nr = 1;
		if (is_rdma) {
			/* for the multipath driver: its paths' transport
			 * when a path names none (the scheme's); made
			 * here, so no driver is asked to consume it */
			params->v[1].key = "transport";
			params->v[1].val = "rdma";
			params->v[1].used = true;
			params->nr = 2;
		}
		if (is_nvme_tcp && nvme_tcp_is_multipath(params))
			*driver = "nvme_mpath";
		if (!q)
			return 0;
		*q = '\0';
		p = q + 1;
		if (!*p)
			return 0;
	} else {
		colon = strchr(buf, ':');
		if (!colon)
			goto check_name;
		if (!strncmp(colon, "://", 3)) {
			/* a URL of another kind (nvme+tcp://, file:///...):
			 * named as typed, not as a bad key=value */
			uri_scheme_err(buf, colon, err, errlen);
			return -EINVAL;
		}
		*colon = '\0';
		p = colon + 1;
		if (!*p)
			goto check_name;
		params->v = calloc(URI_MAX_PARAMS, sizeof(*params->v));
		if (!params->v)
			return -ENOMEM;
	}
	while (p) {
		char *comma = strpbrk(p, is_nvme_tcp ? ",&" : ",");
		char *eq;

		if (comma)
			*comma = '\0';
		eq = strchr(p, '=');
		if (!eq || eq == p || !eq[1]) {
			char pr[128];

			snprintf(
				err, errlen,
				"bad device parameter '%s': expected key=value",
				core_printable(p, pr, sizeof(pr)));
			goto out_free;
		}
		if (params->nr == URI_MAX_PARAMS) {
			snprintf(err, errlen, "too many device parameters");
			goto out_free;
		}
		*eq = '\0';
		params->v[params->nr].key = p;
		params->v[params->nr].val = eq + 1;
		params->v[params->nr].used = false;
		params->nr++;
		p = comma ? comma + 1 : NULL;
	}
	if (uri_dup_key(params, err, errlen))
		goto out_free;
	if (is_nvme_tcp && nvme_tcp_is_multipath(params))
		*driver = "nvme_mpath";
check_name:
	if (!**driver) {
		snprintf(err, errlen, "empty device name");
		goto out_free;
	}
	return 0;
out_free:
	free(params->v);
	params->v = NULL;
	params->nr = 0;
	return -EINVAL;
}

int mqblk_param_u64(struct mqblk_param *p, uint64_t min, uint64_t max,
		    bool size, uint64_t *out, char *err, size_t errlen)
{
	const char *s = p->val;
	char pk[64], pv[96];
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	errno = 0;
	if (*s == '-' || *s == '+' || *s == ' ')
		goto bad;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		goto bad;
	if (*end && size) {
		switch (*end | 0x20) {
		case 'k':
			mult = 1ull << 10;
			break;
		case 'm':
			mult = 1ull << 20;
			break;
		case 'g':
			mult = 1ull << 30;
			break;
		case 't':
			mult = 1ull << 40;
			break;
		case 'p':
			mult = 1ull << 50;
			break;
		default:
			goto bad;
		}
		end++;
		if ((*end | 0x20) == 'i')
			end++;
		if ((*end | 0x20) == 'b')
			end++;
	}
	if (*end)
		goto bad;
	if (v > UINT64_MAX / mult)
		goto range;
	v *= mult;
	if (v < min || v > max)
		goto range;
	*out = v;
	p->used = true;
	return 0;
bad:
	snprintf(err, errlen, "bad value '%s' for %s: expected %s",
		 core_printable(p->val, pv, sizeof(pv)),
		 core_printable(p->key, pk, sizeof(pk)),
		 size ? "a size like 512, 4k, 8g" : "a number");
	return -EINVAL;
range:
	snprintf(err, errlen, "%s=%s out of range [%llu, %llu]",
		 core_printable(p->key, pk, sizeof(pk)),
		 core_printable(p->val, pv, sizeof(pv)),
		 (unsigned long long)min, (unsigned long long)max);
	return -EINVAL;
}

int mqblk_param_bool(struct mqblk_param *p, bool *out, char *err, size_t errlen)
{
	uint64_t v;

	if (mqblk_param_u64(p, 0, 1, false, &v, err, errlen))
		return -EINVAL;
	*out = v != 0;
	return 0;
}
