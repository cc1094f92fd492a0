/* SPDX-License-Identifier: MIT */
/*
 * What the files of mqblk plot share: the runs, the charts' data and the
 * steps from reports to page (read, gather, draw, write).
 */
#ifndef MQBLK_TOOLS_PLOT_PLOT_INT_H
#define MQBLK_TOOLS_PLOT_PLOT_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

#include "../compare.h"

#define PLOT_ERRLEN 1024
#define LABEL_MAX 160

enum chart { CH_IOPS, CH_BW, CH_LAT, CH_HIST, CH_CMP, CH_NR };

/* Each chart's id in the page ("plot-iops" ...) */
extern const char *const plot_chart_id[CH_NR];
/* fio's ddir numbers in a log: 0 read, 1 write, 2 trim */
extern const char *const plot_ddir_name[3];

struct pt {
	double x, y;
};

struct series {
	char label[LABEL_MAX];
	unsigned run_idx; /* its dash type: runs overlaid stay apart */
	struct pt *p;
	size_t nr, cap;
};

struct chart_data {
	struct series *s;
	size_t nr, cap;
	char src[256]; /* where the data came from, for the caption */
	bool drawn; /* gnuplot wrote its SVG */
};

struct run {
	const char *path; /* as given */
	char label[LABEL_MAX];
	char *dir; /* the report's directory: logs are looked for there */
	char *text;
	size_t len;
	/* each report in the file: --status-interval's, then the final */
	struct json_object **docs;
	size_t nr_docs;
};

struct plot {
	struct run *runs;
	/* each run's final report as mqblk compare reads it (jobs, names,
	 * numbers checked), apart: compare takes an array of them */
	struct cmp_run *cmps;
	size_t nr_runs, nr_base; /* the base side is runs[0, nr_base) */
	bool two_sides;
	double threshold;
	const char *title;
	const char *out_path;
	const char *log_dir; /* --log-dir: the logs are here, not beside */
	struct chart_data ch[CH_NR];
	char tmpdir[PATH_MAX];
	unsigned nr_files; /* data files written, d0.dat ... */
	char *cmp_text; /* mqblk compare's table */
	size_t cmp_text_len;
	int nr_regressions;
	char err[PLOT_ERRLEN];
};

/* ---- series.c: helpers, and every chart's series from every run ---- */

/* The one-line reason in pl->err; a long path in it is cut to fit. */
void plot_set_err(struct plot *pl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "out of memory" said: -1 */
int plot_oom(struct plot *pl);
/* A label gnuplot and HTML both take as it is: printable ASCII, none of
 * the characters either would read as markup or quoting. */
void plot_clean_label(char *s);
/* A new series of chart ch, its label printf'd and cleaned; NULL when
 * out of memory */
struct series *plot_new_series(struct plot *pl, enum chart ch, unsigned run_idx,
			       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* 0, or -1 when out of memory */
int plot_add_pt(struct series *s, double x, double y);
/* qsort's order of points by x */
int plot_pt_cmp(const void *a, const void *b);
/* Every chart's series from run run_idx's jobs: src_log[c] / src_status[c]
 * set when chart c got any from logs / from --status-interval reports.
 * 0, or -1 with pl->err. */
int plot_gather_run(struct plot *pl, unsigned run_idx, bool src_log[CH_NR],
		    bool src_status[CH_NR]);

/* ---- reports.c: a run's reports ---- */

/* path's reports into run and its final one into cmp: 0, or -1 with
 * pl->err */
int plot_load_run(struct plot *pl, struct run *run, struct cmp_run *cmp,
		  const char *path);
void plot_free_run(struct run *run);
/* The run's final report (the last in its file) */
const struct json_object *plot_final_doc(const struct run *run);
/* A string option of a job: its "job options", else the report's
 * "global options"; NULL when neither names it. */
const char *plot_job_opt(const struct json_object *doc,
			 const struct json_object *job, const char *key);

/* ---- logs.c ---- */

/* The series of the bw, iops and lat logs of job job_idx of a run:
 * got[c] chart c has this job's log lines; dup[c] an earlier entry of the
 * same name drew them. 0, or -1 with pl->err. */
int plot_log_type_series(struct plot *pl, const struct run *run,
			 unsigned run_idx, size_t job_idx, const char *who,
			 bool got[CH_NR], bool dup[CH_NR]);

/* ---- gnuplot.c ---- */

/* name is an executable file in a directory of $PATH */
bool plot_in_path(const char *name);
/* Each chart with data drawn by gnuplot in pl->tmpdir: 0, or -1 with
 * pl->err */
int plot_draw(struct plot *pl);

/* ---- page.c ---- */

/* The page to f: 0, or -1 with pl->err */
int plot_write_page(struct plot *pl, FILE *f);

#endif
