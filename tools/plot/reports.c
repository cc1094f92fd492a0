// SPDX-License-Identifier: MIT
/*
 * mqblk plot: the runs' reports (one, or a --status-interval file's
 * several, each a JSON document) read and checked.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../compare.h"
#include "../plot.h"
#include "plot_int.h"
#include "target/config/json.h"

/* ---- reading a run: its reports ---- */

/* From p, the offset of the next line whose first non-blank byte is '{'
 * (fio's "note:" lines, a normal report after the JSON one are skipped),
 * or len. */
static size_t next_doc(const char *t, size_t len, size_t p)
{
	while (p < len) {
		while (p < len && (t[p] == ' ' || t[p] == '\t' || t[p] == '\r'))
			p++;
		if (p < len && t[p] == '{')
			return p;
		while (p < len && t[p] != '\n')
			p++;
		if (p < len)
			p++;
	}
	return len;
}

/* One past the brace closing the object at t[p] == '{', or 0 when it
 * does not close (strings are skipped whole). */
static size_t object_end(const char *t, size_t len, size_t p)
{
	size_t depth = 0;
	bool in_str = false;

	for (; p < len; p++) {
		char c = t[p];

		if (in_str) {
			if (c == '\\')
				p++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"')
			in_str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && depth && !--depth)
			return p + 1;
	}
	return 0;
}

void plot_reports_free(struct json_object **docs, size_t nr)
{
	while (nr)
		cj_free(docs[--nr]);
	free(docs);
}

int plot_reports(const char *name, const char *text, size_t len,
		 struct json_object ***docs_out, size_t *nr_out,
		 size_t *last_off, size_t *last_len, char *err, size_t errlen)
{
	struct json_object *root, **docs = NULL, **nd;
	const struct json_object *jobs;
	size_t p = 0, end, nr = 0;
	char perr[256];

	for (;;) {
		p = next_doc(text, len, p);
		if (p == len)
			break;
		end = object_end(text, len, p);
		if (!end) {
			snprintf(err, errlen,
				 "%s: report %zu does not end (a truncated "
				 "JSON object)",
				 name, nr + 1);
			goto out_free;
		}
		if (cj_parse(text + p, end - p, &root, perr, sizeof(perr))) {
			snprintf(err, errlen, "%s: report %zu is not JSON: %s",
				 name, nr + 1, perr);
			goto out_free;
		}
		nd = realloc(docs, (nr + 1) * sizeof(*docs));
		if (!nd) {
			cj_free(root);
			snprintf(err, errlen, "%s: out of memory", name);
			goto out_free;
		}
		docs = nd;
		docs[nr++] = root;
		jobs = cj_get(root, "jobs");
		if (cj_type(jobs) != CJ_ARRAY) {
			snprintf(err, errlen,
				 "%s: report %zu has no \"jobs\" array (not a "
				 "fio or mqblk JSON report)",
				 name, nr);
			goto out_free;
		}
		if (!cj_count(jobs)) {
			snprintf(err, errlen, "%s: report %zu has no jobs",
				 name, nr);
			goto out_free;
		}
		*last_off = p;
		*last_len = end - p;
		p = end;
	}
	if (!nr) {
		snprintf(err, errlen,
			 "%s: not a JSON report (no line starts with '{')",
			 name);
		goto out_free;
	}
	*docs_out = docs;
	*nr_out = nr;
	return 0;

out_free:
	plot_reports_free(docs, nr);
	return -1;
}

int plot_load_run(struct plot *pl, struct run *run, struct cmp_run *cmp,
		  const char *path)
{
	size_t end, last_off = 0, last_len = 0;
	char *slash, *dup;

	memset(run, 0, sizeof(*run));
	memset(cmp, 0, sizeof(*cmp));
	run->path = path;
	if (cj_read_file(path, &run->text, &run->len, pl->err, sizeof(pl->err)))
		return -1;
	dup = strdup(path);
	if (!dup)
		return plot_oom(pl);
	slash = strrchr(dup, '/');
	if (slash == dup)
		dup[1] = 0;
	else if (slash)
		*slash = 0;
	else
		snprintf(dup, strlen(dup) + 1, ".");
	run->dir = dup;
	/* the label: the file name without its directory and .json */
	slash = strrchr(path, '/');
	snprintf(run->label, sizeof(run->label), "%s",
		 slash ? slash + 1 : path);
	end = strlen(run->label);
	if (end > 5 && !strcmp(run->label + end - 5, ".json"))
		run->label[end - 5] = 0;
	plot_clean_label(run->label);

	if (plot_reports(path, run->text, run->len, &run->docs, &run->nr_docs,
			 &last_off, &last_len, pl->err, sizeof(pl->err)))
		return -1;
	/* the final report, read as mqblk compare reads it: jobs, names,
	 * numbers checked */
	return cmp_run_load_buf(cmp, path, run->text + last_off, last_len,
				pl->err, sizeof(pl->err));
}

void plot_free_run(struct run *run)
{
	plot_reports_free(run->docs, run->nr_docs);
	free(run->text);
	free(run->dir);
}

const struct json_object *plot_final_doc(const struct run *run)
{
	return run->docs[run->nr_docs - 1];
}

/* A string option of a job: its "job options", else the report's
 * "global options"; NULL when neither names it. */
const char *plot_job_opt(const struct json_object *doc,
			 const struct json_object *job, const char *key)
{
	const struct json_object *v = cj_get(cj_get(job, "job options"), key);

	if (!v)
		v = cj_get(cj_get(doc, "global options"), key);
	return cj_str(v, NULL);
}
