/* SPDX-License-Identifier: MIT */
/*
 * What every fuzz harness shares: an invariant that does not hold aborts,
 * which libFuzzer reports as a crash with the input that did it.
 */
#ifndef MQBLK_FUZZ_H
#define MQBLK_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                 \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", \
				__FILE__, __LINE__, #cond);              \
			abort();                                         \
		}                                                        \
	} while (0)

/* The input as a NUL-terminated string (it may hold NULs of its own);
 * NULL when out of memory. The caller frees it. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

#endif
