/* SPDX-License-Identifier: MIT */
/*
 * mqblk plot: one self-contained HTML page of charts (gnuplot's SVG,
 * inline) from fio or mqblk bench JSON reports and their logs.
 */
#ifndef MQBLK_TOOLS_PLOT_H
#define MQBLK_TOOLS_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* mqblk plot ARGS (argv[0] = "plot"): the exit status, 0 or 1. */
int plot_cmd(int argc, char **argv);

/*
 * The reports in len bytes of text (one, or a --status-interval file's
 * several, each starting on a line that starts with '{'; other lines,
 * such as fio's "note:" ones or a normal report after the JSON, are
 * skipped). Each must be a JSON object with a non-empty "jobs" array.
 * Returns 0 with the parsed reports in *docs (*nr of them, free with
 * plot_reports_free) and the last one's place in text, or -1 with
 * "NAME: reason" (one line) in err.
 */
int plot_reports(const char *name, const char *text, size_t len,
		 struct json_object ***docs, size_t *nr, size_t *last_off,
		 size_t *last_len, char *err, size_t errlen);
void plot_reports_free(struct json_object **docs, size_t nr);

/* One line of a fio log: "time, value, direction, bs[, offset][, prio]"
 * (blanks and a line end allowed), numbers only, direction 0..2: 0 with
 * time, value, direction and bs in out, or -1. */
int plot_log_line(const char *line, uint64_t out[4]);

#endif
