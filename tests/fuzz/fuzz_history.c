// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the input is a bench/soak history (soak-check's
 * completion log). soak_history_check either refuses it (-EINVAL, or
 * -ENOMEM) or returns counts that add up: every event counted once, no
 * more lost writes than reads, nothing past the block limit kept.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz.h"
#include "soak-history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct soak_history cr;
	FILE *f;
	int ret;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	ret = soak_history_check(f, "fuzz", &cr);
	fclose(f);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENOMEM);
	if (ret)
		return 0;
	FUZZ_CHECK(cr.acked + cr.failed + cr.reads + cr.finals <= cr.events);
	FUZZ_CHECK(cr.lost <= cr.reads + cr.finals);
	FUZZ_CHECK(cr.events <= size / 4 + 1);
	return 0;
}
