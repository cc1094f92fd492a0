// SPDX-License-Identifier: MIT
/*
 * The live status line on a terminal, shaped like fio's:
 * Jobs: 1 (f=1): [r(1)][45.0%][r=17.3GiB/s][r=4539k IOPS][eta 00m:05s]
 */
#include <stdio.h>
#include <string.h>

#include "runner.h"

/* Rate with fio's eta-line units: binary for bytes, decimal for IOPS, at
 * most 4 significant characters before the unit. */
static void rate_str(char *buf, size_t len, double v, bool bytes)
{
	static const char *const bunit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	static const char *const nunit[] = { "", "k", "M", "G", "T" };
	double base = bytes ? 1024.0 : 1000.0;
	unsigned u = 0;

	while (v >= 9999.5 && u < 4) {
		v /= base;
		u++;
	}
	if (v < 10 && u)
		snprintf(buf, len, "%.1f%s", v, bytes ? bunit[u] : nunit[u]);
	else
		snprintf(buf, len, "%.0f%s", v, bytes ? bunit[u] : nunit[u]);
}

void status_print(FILE *f, const struct status_snapshot *prev,
		  const struct status_snapshot *cur)
{
	static const char ddir_ch[DDIR_NR] = { 'r', 'w', 't' };
	double dt = (double)(cur->now_ns - prev->now_ns) / 1e9;
	char bw[128] = "", iops[128] = "", tmp[32];
	size_t bl = 0, il = 0;
	int d;

	if (dt <= 0)
		dt = 1e-9;
	for (d = 0; d < DDIR_NR; d++) {
		double b = (double)(cur->bytes[d] - prev->bytes[d]) / dt;
		double n = (double)(cur->ios[d] - prev->ios[d]) / dt;

		if (!cur->ios[d])
			continue;
		rate_str(tmp, sizeof(tmp), b, true);
		bl += (size_t)snprintf(bw + bl, sizeof(bw) - bl, "%s%c=%s/s",
				       bl ? "," : "", ddir_ch[d], tmp);
		rate_str(tmp, sizeof(tmp), n, false);
		il += (size_t)snprintf(iops + il, sizeof(iops) - il, "%s%c=%s",
				       il ? "," : "", ddir_ch[d], tmp);
	}
	fprintf(f,
		"\rJobs: %u (f=%u): [%s][%.1f%%][%s][%s IOPS][eta %02llum:%02llus]",
		cur->nr_running, cur->nr_running, cur->modes, cur->pct_done,
		bl ? bw : "r=0KiB/s", il ? iops : "r=0",
		(unsigned long long)(cur->eta_s / 60),
		(unsigned long long)(cur->eta_s % 60));
	fflush(f);
}
