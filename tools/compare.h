/* SPDX-License-Identifier: MIT */
/*
 * mqblk compare: fio 3.x JSON reports (fio's or mqblk bench's) of a base
 * and a new side, one or several runs each, compared job by job.
 */
#ifndef MQBLK_TOOLS_COMPARE_H
#define MQBLK_TOOLS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cmp_dir { CMP_READ, CMP_WRITE, CMP_TRIM, CMP_NR_DIRS };

enum cmp_metric {
	CMP_IOPS,
	CMP_BW, /* bytes/s */
	CMP_CLAT_MEAN, /* ns */
	CMP_CLAT_P99, /* ns */
	CMP_CLAT_P9999, /* ns */
	CMP_NR_METRICS,
};

/* One direction of one job of one run. */
struct cmp_dir_vals {
	bool io; /* total_ios or io_bytes > 0 */
	bool have[CMP_NR_METRICS];
	double val[CMP_NR_METRICS];
};

/* A job entry of one report. Jobs match across runs by (name, groupid,
 * ordinal): the ordinal tells apart entries with the same name and group
 * (numjobs > 1 without group_reporting), in document order. */
struct cmp_job {
	char *name;
	int64_t groupid;
	unsigned ordinal;
	size_t doc_idx;
	struct cmp_dir_vals dir[CMP_NR_DIRS];
};

/* One report (one file). jobs is in document order, by_key sorted. */
struct cmp_run {
	char *path;
	struct cmp_job *jobs;
	struct cmp_job **by_key;
	size_t nr_jobs;
};

/*
 * Read the report in len bytes of buf (text before the first line that
 * starts with '{' is skipped: fio's "note: ..." lines). name is used in
 * messages. Returns 0, or -1 with "NAME: reason" (one line) in err.
 */
int cmp_run_load_buf(struct cmp_run *run, const char *name, const char *buf,
		     size_t len, char *err, size_t errlen);

/* The same, from a file. */
int cmp_run_load_file(struct cmp_run *run, const char *path, char *err,
		      size_t errlen);

void cmp_run_free(struct cmp_run *run);

/*
 * Compare nr_base base runs with nr_new new runs and print the table to
 * out. threshold: percent, or < 0 for none. Returns 0 (no regression past
 * the threshold), 1 (one or more), or -1 with a one-line reason in err
 * (runs of a side disagreeing on their jobs, a job on one side only).
 */
int cmp_report(FILE *out, const struct cmp_run *base, size_t nr_base,
	       const struct cmp_run *new_runs, size_t nr_new, double threshold,
	       char *err, size_t errlen);

/* One line of the comparison: one metric of one job's direction. */
struct cmp_row {
	const struct cmp_job *job; /* base[0]'s */
	int dir; /* enum cmp_dir */
	int metric; /* enum cmp_metric */
	size_t nr_base, nr_new; /* runs of each side that had the value */
	double base, new_val; /* means over those runs: IOPS, bytes/s, ns */
	bool have_pct; /* both sides have it and the change is finite */
	double pct; /* (new - base) / |base|, percent */
	bool tested; /* Welch's t-test ran: >= 2 runs a side */
	bool significant; /* beyond noise (true when not tested: a single
			   * run's change counts) */
	double p; /* two-sided p-value, when tested */
	bool regression; /* significant and past the threshold */
};

/*
 * The comparison, row by row: fn is called for each metric of each job
 * and direction that did I/O on either side, in the table's order (the
 * jobs in base[0]'s document order). fn returns nonzero only when it ran
 * out of memory: cmp_rows stops and says so. Returns the number of
 * regressions past threshold (percent, < 0 for none), or -1 with a
 * one-line reason in err (as cmp_report).
 */
int cmp_rows(const struct cmp_run *base, size_t nr_base,
	     const struct cmp_run *new_runs, size_t nr_new, double threshold,
	     int (*fn)(const struct cmp_row *row, void *arg), void *arg,
	     char *err, size_t errlen);

/*
 * The comparison as JSON (a row per metric, "result": "pass" or
 * "regression") or JUnit XML (a testcase per metric, a failure per
 * regression), for CI. Returns as cmp_report.
 */
int cmp_report_json(FILE *out, const struct cmp_run *base, size_t nr_base,
		    const struct cmp_run *new_runs, size_t nr_new,
		    double threshold, char *err, size_t errlen);
int cmp_report_junit(FILE *out, const struct cmp_run *base, size_t nr_base,
		     const struct cmp_run *new_runs, size_t nr_new,
		     double threshold, char *err, size_t errlen);

/* "read", "write", "trim" */
const char *cmp_dir_name(int dir);
/* The table's label: "iops", "bw (MiB/s)", "clat p99 (us)" ... */
const char *cmp_metric_label(int metric);
/* The key in -o json: "iops", "bw_bytes", "clat_mean_ns", "clat_p99_ns",
 * "clat_p99.99_ns" (the values are in those units) */
const char *cmp_metric_key(int metric);

/*
 * Welch's t-test on two samples (n >= 2 each): 1 if the means differ at
 * 95 % (two-sided; |t| above the t distribution's critical value for the
 * Welch-Satterthwaite degrees of freedom), else 0; *p the two-sided
 * p-value (may be NULL).
 */
int cmp_welch(const double *a, size_t na, const double *b, size_t nb,
	      double *p);

/* The two-sided 95 % critical value of Student's t with df > 0 degrees
 * of freedom (df = 4: 2.776). */
double cmp_t_crit95(double df);

/* Parse a --threshold value ("5%", "5", "2.5%"): 0, or -1. */
int cmp_parse_threshold(const char *s, double *out);

/* mqblk compare ARGS (argv[0] = "compare"): the exit status, 0, 1 or 2. */
int cmp_cmd(int argc, char **argv);

#endif
