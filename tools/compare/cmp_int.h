/* SPDX-License-Identifier: MIT */
/*
 * What the files of mqblk compare share beyond compare.h: the job order,
 * the sample statistics and the cells of a row, as every output shows them.
 */
#ifndef MQBLK_TOOLS_COMPARE_CMP_INT_H
#define MQBLK_TOOLS_COMPARE_CMP_INT_H

#include <stddef.h>

#include "../compare.h"

#define NAME_SHOW_MAX 40 /* a job name's width in the table, at most */

/* load.c: the match key's order (name, group, ordinal), <0, 0 or >0;
 * each run's by_key is sorted in it */
int cmp_job_key_cmp(const struct cmp_job *x, const struct cmp_job *y);

/* stats.c: the mean and sample variance (0 for one value) of x[0, n) */
void cmp_mean_var(const double *x, size_t n, double *mean, double *var);

/* rows.c: the two sides compare: each side's runs agree on their jobs,
 * and the sides have the same jobs. 0, or -1 with a one-line reason. */
int cmp_check(const struct cmp_run *base, size_t nr_base,
	      const struct cmp_run *new_runs, size_t nr_new, char *err,
	      size_t errlen);
/* A job's name as the table shows it: printable, at most NAME_SHOW_MAX
 * wide, "#N" after the Nth entry of a name and group */
void cmp_show_name(char *out, size_t outlen, const struct cmp_job *job);
/* What a metric's value is multiplied by to be shown in its label's
 * units (MiB/s, us) */
double cmp_metric_scale(int metric);
/* A value (already scaled) with the decimals its metric is shown with */
void cmp_fmt_val(char *out, size_t outlen, double v, int metric);

#endif
