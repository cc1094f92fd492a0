// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the input is a device URI ("null:k=v,...", a path
 * with "?k=v", "nvme-tcp://HOST:PORT/NQN?k=v&k=v", nvme-rdma://). It goes
 * through the core's uri_parse, and every parameter it yields through the
 * number and switch parsers drivers use (mqblk_param_u64,
 * mqblk_param_bool). No
 * device is opened. Checked: on success the driver name and every key
 * and value are non-empty strings inside the split buffer, keys hold no
 * '=' and no separator, and no key comes twice; on failure the reason
 * is one non-empty line.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mqblk/driver.h>

#include "core/core.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_err(const char *err)
{
	FUZZ_CHECK(err[0]);
	FUZZ_CHECK(!strchr(err, '\n'));
}

static bool inside(const char *p, const char *buf, size_t len)
{
	return p >= buf && p < buf + len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mqblk_params params = { 0 };
	const char *driver = NULL;
	char err[256];
	char *buf;
	unsigned i, k;

	if (size > 4096)
		return 0;
	buf = fuzz_string(data, size);
	if (!buf)
		return 0;
	err[0] = '\0';
	if (uri_parse(buf, &driver, &params, err, sizeof(err))) {
		check_err(err);
		FUZZ_CHECK(!params.v && !params.nr);
		free(buf);
		return 0;
	}
	FUZZ_CHECK(driver && driver[0]);
	FUZZ_CHECK(params.nr <= 64);
	FUZZ_CHECK(!params.nr || params.v);
	for (i = 0; i < params.nr; i++) {
		struct mqblk_param *p = &params.v[i];
		uint64_t v;
		bool b;

		FUZZ_CHECK(p->key && p->val);
		if (p->used) {
			/* the one key uri_parse makes itself: an
			 * nvme-rdma:// URI's transport, for multipath */
			FUZZ_CHECK(i == 1 && !strcmp(p->key, "transport") &&
				   !strcmp(p->val, "rdma") &&
				   !strncmp(buf, "nvme-rdma://", 12));
			continue;
		}
		/* the first key of a path or nvme-tcp URI is the driver's
		 * own ("path", "addr"), pointing into buf like the rest */
		FUZZ_CHECK(inside(p->val, buf, size + 1));
		if (i || (strcmp(p->key, "path") && strcmp(p->key, "addr"))) {
			FUZZ_CHECK(inside(p->key, buf, size + 1));
			FUZZ_CHECK(p->key[0] && p->val[0]);
			FUZZ_CHECK(!strchr(p->key, '=') &&
				   !strchr(p->key, ','));
		}
		err[0] = '\0';
		if (mqblk_param_u64(p, 0, UINT64_MAX, true, &v, err,
				    sizeof(err)))
			check_err(err);
		p->used = false;
		err[0] = '\0';
		if (mqblk_param_u64(p, 1, 1024, false, &v, err, sizeof(err)))
			check_err(err);
		else
			FUZZ_CHECK(v >= 1 && v <= 1024);
		err[0] = '\0';
		if (mqblk_param_bool(p, &b, err, sizeof(err)))
			check_err(err);
		/* a key given twice is refused, never both kept */
		for (k = 0; k < i; k++)
			FUZZ_CHECK(strcmp(params.v[k].key, p->key));
	}
	free(params.v);
	free(buf);
	return 0;
}
