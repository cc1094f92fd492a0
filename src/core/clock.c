// SPDX-License-Identifier: MIT
/*
 * Calibrates the TSC against CLOCK_MONOTONIC once, at first device open,
 * when /proc/cpuinfo says the TSC is constant and non-stop.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"

#include <mqblk/mqblk.h>

struct mqblk_clock mqblk_clock;
static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

static bool tsc_is_invariant(void)
{
	char line[4096];
	bool constant = false, nonstop = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
}

static void clock_calibrate(void)
{
#if defined(__x86_64__)
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	uint64_t t0, t1, c0, c1;

	if (!tsc_is_invariant())
		return;
	t0 = clock_mono_ns();
	c0 = __builtin_ia32_rdtsc();
	nanosleep(&pause, NULL);
	t1 = clock_mono_ns();
	c1 = __builtin_ia32_rdtsc();
	if (c1 <= c0 || t1 <= t0)
		return;
	mqblk_clock.mult =
		(uint64_t)(((unsigned __int128)(t1 - t0) << 32) / (c1 - c0));
	mqblk_clock.tsc_base = c1;
	mqblk_clock.ns_base = t1;
	mqblk_clock.use_tsc = true;
#endif
}

void mqblk_clock_init(void)
{
	pthread_once(&clock_once, clock_calibrate);
}

uint64_t mqblk_clock_ns(void)
{
	mqblk_clock_init();
	return clock_now_ns();
}
