// SPDX-License-Identifier: MIT
/*
 * mqblk compare: the comparison as a text table (the default output).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compare.h"
#include "cmp_int.h"
#include "target/config/json.h"

struct text_ctx {
	FILE *out;
	int name_w;
	unsigned nr_rows;
};

static int print_row(const struct cmp_row *row, void *arg)
{
	struct text_ctx *tx = arg;
	char name[NAME_SHOW_MAX + 20], bs[48] = "-", ns[48] = "-";
	char change[48] = "-", verdict[48] = "-";
	double scale = cmp_metric_scale(row->metric);

	tx->nr_rows++;
	if (row->nr_base)
		cmp_fmt_val(bs, sizeof(bs), row->base * scale, row->metric);
	if (row->nr_new)
		cmp_fmt_val(ns, sizeof(ns), row->new_val * scale, row->metric);
	if (row->nr_base && row->nr_new) {
		if (row->have_pct) {
			if (fabs(row->pct) >= 1e6)
				snprintf(change, sizeof(change), "%+.3g%%",
					 row->pct);
			else
				snprintf(change, sizeof(change), "%+.2f%%",
					 row->pct);
		}
		if (!row->tested)
			snprintf(verdict, sizeof(verdict), "n/a (1 run)");
		else if (row->p < 0.001)
			snprintf(verdict, sizeof(verdict), "%s (p<0.001)",
				 row->significant ? "significant" : "noise");
		else
			snprintf(verdict, sizeof(verdict), "%s (p=%.3f)",
				 row->significant ? "significant" : "noise",
				 row->p);
	}
	cmp_show_name(name, sizeof(name), row->job);
	fprintf(tx->out,
		"%-*s %5" PRId64 "  %-5s  %-16s %14s %14s %10s  %s%s\n",
		tx->name_w, name, row->job->groupid, cmp_dir_name(row->dir),
		cmp_metric_label(row->metric), bs, ns, change, verdict,
		row->regression ? "  REGRESSION" : "");
	return 0;
}

static void print_side(FILE *out, const char *label, const struct cmp_run *runs,
		       size_t nr)
{
	size_t r;

	fprintf(out, "%s %zu run%s:", label, nr, nr == 1 ? "" : "s");
	for (r = 0; r < nr; r++)
		fprintf(out, " %s", runs[r].path);
	fputc('\n', out);
}

int cmp_report(FILE *out, const struct cmp_run *base, size_t nr_base,
	       const struct cmp_run *new_runs, size_t nr_new, double threshold,
	       char *err, size_t errlen)
{
	struct text_ctx tx = { .out = out, .name_w = 3 };
	char name[NAME_SHOW_MAX + 20];
	size_t i;
	int nr_regressions;

	/* bad input is one line and no half-printed table */
	if (cmp_check(base, nr_base, new_runs, nr_new, err, errlen))
		return -1;
	for (i = 0; i < base[0].nr_jobs; i++) {
		cmp_show_name(name, sizeof(name), &base[0].jobs[i]);
		if ((int)strlen(name) > tx.name_w)
			tx.name_w = (int)strlen(name);
	}

	print_side(out, "base:", base, nr_base);
	print_side(out, "new: ", new_runs, nr_new);
	fprintf(out,
		"test: Welch's t-test, two-sided, 95 %% (needs >= 2 runs a "
		"side); values are means over runs\n");
	if (threshold >= 0)
		fprintf(out, "threshold: %g%% (%s)\n", threshold,
			nr_base >= 2 && nr_new >= 2 ?
				"only a significant regression past it counts" :
				"single run: any regression past it counts");
	fputc('\n', out);
	fprintf(out, "%-*s %5s  %-5s  %-16s %14s %14s %10s  %s\n", tx.name_w,
		"job", "group", "dir", "metric", "base", "new", "change",
		"significance");
	nr_regressions = cmp_rows(base, nr_base, new_runs, nr_new, threshold,
				  print_row, &tx, err, errlen);
	if (nr_regressions < 0)
		return -1;
	if (!tx.nr_rows)
		fprintf(out, "(no job did any I/O)\n");
	if (threshold >= 0) {
		fputc('\n', out);
		if (nr_regressions)
			fprintf(out, "%d regression%s past %g%%\n",
				nr_regressions, nr_regressions == 1 ? "" : "s",
				threshold);
		else
			fprintf(out, "no regression past %g%%\n", threshold);
	}
	return nr_regressions ? 1 : 0;
}
