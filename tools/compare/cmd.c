// SPDX-License-Identifier: MIT
/*
 * mqblk compare: the command, its options and its two sides of reports.
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

#define CMP_ERRLEN 1024

int cmp_parse_threshold(const char *s, double *out)
{
	size_t i, len = strlen(s), digits = 0, dots = 0;
	char *end;
	double v;

	if (len && s[len - 1] == '%')
		len--;
	if (!len)
		return -1;
	for (i = 0; i < len; i++) {
		if (isdigit((unsigned char)s[i]))
			digits++;
		else if (s[i] == '.')
			dots++;
		else
			return -1;
	}
	if (!digits || dots > 1)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end != s + len || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

static void cmp_usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk compare BASE.json[,BASE2.json...] "
		"NEW.json[,NEW2.json...] [--threshold PCT]\n"
		"                     [-o normal|json|junit]\n"
		"\n"
		"Compares fio JSON reports (fio --output-format=json or json+, or\n"
		"mqblk bench's, which has the same format) of one or several runs\n"
		"per side. Jobs match by jobname and groupid. For each job and\n"
		"direction (read, write, trim) that did I/O it prints IOPS,\n"
		"bandwidth (MiB/s), mean, p99 and p99.99 completion latency (us):\n"
		"the base and new values (means over runs), the change in\n"
		"percent, and whether the change is beyond run-to-run noise.\n"
		"\n"
		"Significance: Welch's t-test (unequal variances), two-sided, at\n"
		"95 %%: |t| against Student's t critical value for the\n"
		"Welch-Satterthwaite degrees of freedom; p is printed. It needs\n"
		"at least 2 runs on each side; otherwise \"n/a (1 run)\".\n"
		"\n"
		"options:\n"
		"  --threshold PCT  exit 1 if a metric regressed by more than PCT\n"
		"                   percent (5%% or 5): IOPS or bandwidth lower,\n"
		"                   a latency higher. With >= 2 runs a side only\n"
		"                   a significant regression counts; with a single\n"
		"                   run on either side any regression past PCT does\n"
		"  -o, --output-format FMT\n"
		"                   normal (the table), json (a row per metric:\n"
		"                   base, new, change_pct, p, significant,\n"
		"                   regression; \"result\": pass or regression)\n"
		"                   or junit (JUnit XML: a testcase per metric,\n"
		"                   a failure per regression past the threshold)\n"
		"  -h, --help       this text\n"
		"\n"
		"Text before the first line starting with '{' (fio's \"note:\"\n"
		"lines) is skipped. File names cannot contain ','.\n"
		"\n"
		"exit status: 0 no regression past the threshold (or none given),\n"
		"1 a regression past it, 2 bad input (one line on stderr)\n");
}

/* Split a comma-separated list of files and load each. */
static int load_side(const char *list, struct cmp_run **runs, size_t *nr,
		     char *err, size_t errlen)
{
	const char *p = list, *comma;
	struct cmp_run *r = NULL, *nr_ptr;
	size_t n = 0, len;
	char *path;

	*runs = NULL;
	*nr = 0;
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len) {
			snprintf(err, errlen, "empty file name in '%s'", list);
			goto out_free;
		}
		path = strndup(p, len);
		nr_ptr = path ? realloc(r, (n + 1) * sizeof(*r)) : NULL;
		if (!nr_ptr) {
			free(path);
			snprintf(err, errlen, "out of memory");
			goto out_free;
		}
		r = nr_ptr;
		if (cmp_run_load_file(&r[n], path, err, errlen)) {
			free(path);
			goto out_free;
		}
		free(path);
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	*runs = r;
	*nr = n;
	return 0;

out_free:
	while (n)
		cmp_run_free(&r[--n]);
	free(r);
	return -1;
}

static void free_side(struct cmp_run *runs, size_t nr)
{
	while (nr)
		cmp_run_free(&runs[--nr]);
	free(runs);
}

int cmp_cmd(int argc, char **argv)
{
	const char *pos[2] = { NULL, NULL }, *tval = NULL, *fval = NULL;
	struct cmp_run *base = NULL, *new_runs = NULL;
	char *text = NULL;
	size_t text_len = 0;
	FILE *mem;
	size_t nr_base = 0, nr_new = 0;
	double threshold = -1;
	char err[CMP_ERRLEN];
	int i, nr_pos = 0, ret = 2;
	bool opts_done = false;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!opts_done && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
			cmp_usage(stdout);
			return 0;
		}
		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && !strcmp(a, "--threshold")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "mqblk compare: --threshold "
						"needs a value (e.g. 5%%)\n");
				return 2;
			}
			tval = argv[++i];
		} else if (!opts_done && !strncmp(a, "--threshold=", 12)) {
			tval = a + 12;
		} else if (!opts_done && (!strcmp(a, "-o") ||
					  !strcmp(a, "--output-format"))) {
			if (i + 1 >= argc) {
				fprintf(stderr,
					"mqblk compare: %s needs a format "
					"(normal, json or junit)\n",
					a);
				return 2;
			}
			fval = argv[++i];
		} else if (!opts_done && !strncmp(a, "--output-format=", 16)) {
			fval = a + 16;
		} else if (!opts_done && a[0] == '-' && a[1]) {
			fprintf(stderr,
				"mqblk compare: unknown option '%s' (try "
				"mqblk compare --help)\n",
				a);
			return 2;
		} else if (nr_pos < 2) {
			pos[nr_pos++] = a;
		} else {
			fprintf(stderr,
				"mqblk compare: one more argument than "
				"BASE and NEW: '%s'\n",
				a);
			return 2;
		}
	}
	if (tval && cmp_parse_threshold(tval, &threshold)) {
		fprintf(stderr,
			"mqblk compare: bad --threshold '%s' (want a "
			"percentage like 5%% or 5)\n",
			tval);
		return 2;
	}
	if (fval && strcmp(fval, "normal") && strcmp(fval, "json") &&
	    strcmp(fval, "junit")) {
		fprintf(stderr,
			"mqblk compare: unknown output format '%s' (normal, "
			"json or junit)\n",
			fval);
		return 2;
	}
	if (nr_pos < 2) {
		fprintf(stderr,
			"mqblk compare: want BASE.json[,...] NEW.json[,...] "
			"(try mqblk compare --help)\n");
		return 2;
	}
	if (load_side(pos[0], &base, &nr_base, err, sizeof(err)) ||
	    load_side(pos[1], &new_runs, &nr_new, err, sizeof(err))) {
		fprintf(stderr, "mqblk compare: %s\n", err);
		goto out_free;
	}
	/* the report whole or not at all: made aside, then printed */
	mem = open_memstream(&text, &text_len);
	if (!mem) {
		fprintf(stderr, "mqblk compare: out of memory\n");
		goto out_free;
	}
	if (fval && !strcmp(fval, "json"))
		ret = cmp_report_json(mem, base, nr_base, new_runs, nr_new,
				      threshold, err, sizeof(err));
	else if (fval && !strcmp(fval, "junit"))
		ret = cmp_report_junit(mem, base, nr_base, new_runs, nr_new,
				       threshold, err, sizeof(err));
	else
		ret = cmp_report(mem, base, nr_base, new_runs, nr_new,
				 threshold, err, sizeof(err));
	if (fclose(mem) && ret >= 0) {
		snprintf(err, sizeof(err), "out of memory");
		ret = -1;
	}
	if (ret < 0) {
		fprintf(stderr, "mqblk compare: %s\n", err);
		ret = 2;
		goto out_free;
	}
	fwrite(text, 1, text_len, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "mqblk compare: writing the report: %s\n",
			strerror(errno));
		ret = 2;
	}

out_free:
	free(text);
	free_side(base, nr_base);
	free_side(new_runs, nr_new);
	return ret;
}
