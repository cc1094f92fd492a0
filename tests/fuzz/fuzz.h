/* SPDX-License-Identifier: MIT */
/*
 * What every fuzz harness shares: an invariant that does not hold aborts,
 * which libFuzzer reports as a crash with the input that did it.
 */
#ifndef MQBLK_FUZZ_H
#define MQBLK_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                 \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", \
				__FILE__, __LINE__, #cond);              \
			abort();                                         \
		}                                                        \
	} while (0)

#endif
