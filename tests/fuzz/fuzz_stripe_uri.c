// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the input is a stripe: URI. It goes through the
 * core's uri_parse and then the stripe driver's own keys
 * (stripe_conf_parse); no device is opened. Checked: on success 1..64
 * members, each a non-empty string with every ';' turned into ',', a
 * power-of-two chunk in range, and the member/chunk keys marked used; on
 * failure one non-empty line of reason and nothing left allocated.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mqblk/driver.h>

#include "core/core.h"
#include "drivers/stripe/stripe.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mqblk_params params = { 0 };
	struct stripe_conf c;
	const char *driver = NULL;
	char err[256];
	char *buf;
	unsigned i;
	int ret;

	if (size > 4096)
		return 0;
	buf = fuzz_string(data, size);
	if (!buf)
		return 0;
	err[0] = '\0';
	if (uri_parse(buf, &driver, &params, err, sizeof(err))) {
		free(buf);
		return 0;
	}
	err[0] = '\0';
	ret = stripe_conf_parse(&params, &c, err, sizeof(err));
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL || ret == -ENOMEM);
		FUZZ_CHECK(ret == -ENOMEM || (err[0] && !strchr(err, '\n')));
		FUZZ_CHECK(!c.nr_members);
		for (i = 0; i < STRIPE_MAX_MEMBERS; i++)
			FUZZ_CHECK(!c.member[i]);
	} else {
		FUZZ_CHECK(c.nr_members >= 1 &&
			   c.nr_members <= STRIPE_MAX_MEMBERS);
		FUZZ_CHECK(c.chunk >= 512 && c.chunk <= STRIPE_MAX_CHUNK &&
			   !(c.chunk & (c.chunk - 1)));
		for (i = 0; i < STRIPE_MAX_MEMBERS; i++) {
			if (i >= c.nr_members) {
				FUZZ_CHECK(!c.member[i]);
				continue;
			}
			FUZZ_CHECK(c.member[i] && c.member[i][0]);
			FUZZ_CHECK(!strchr(c.member[i], ';'));
		}
		for (i = 0; i < params.nr; i++) {
			const char *k = params.v[i].key;

			if (!strcmp(k, "chunk") || !strcmp(k, "member"))
				FUZZ_CHECK(params.v[i].used);
		}
		stripe_conf_free(&c);
	}
	free(params.v);
	free(buf);
	return 0;
}
