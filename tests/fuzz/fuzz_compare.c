// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the input is one or two fio JSON reports (split at
 * the first NUL byte, which no JSON text may hold) for mqblk compare's
 * reader (cmp_run_load_buf: leading text, JSON, the jobs and their
 * numbers) and, when they load, its comparison (cmp_report, printed to
 * /dev/null). Invariants: a refusal is one non-empty line; a report
 * compared with itself, one run or two a side, shows no regression at
 * any threshold; a comparison returns 0, 1, or -1 with a one-line reason;
 * -o json returns as the table does and is JSON the strict parser takes,
 * whatever the job names hold; -o junit returns as the table does.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "fuzz.h"
#include "target/config/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

static void check_error(const char *err, size_t errlen)
{
	FUZZ_CHECK(memchr(err, 0, errlen) != NULL);
	FUZZ_CHECK(err[0] != 0);
	FUZZ_CHECK(strchr(err, '\n') == NULL);
}

/* -o json and -o junit of the same comparison: the table's verdict, and
 * the JSON parses. */
static void check_formats(const struct cmp_run *base, size_t nb,
			  const struct cmp_run *new_runs, size_t nn,
			  double threshold, int want)
{
	struct json_object *root;
	char err[1024], *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int ret;

	mem = open_memstream(&buf, &len);
	FUZZ_CHECK(mem != NULL);
	ret = cmp_report_json(mem, base, nb, new_runs, nn, threshold, err,
			      sizeof(err));
	FUZZ_CHECK(fclose(mem) == 0);
	FUZZ_CHECK(ret == want);
	if (ret >= 0) {
		FUZZ_CHECK(cj_parse(buf, len, &root, err, sizeof(err)) == 0);
		cj_free(root);
	}
	free(buf);
	ret = cmp_report_junit(devnull, base, nb, new_runs, nn, threshold, err,
			       sizeof(err));
	FUZZ_CHECK(ret == want);
}

static void check_run(const struct cmp_run *run)
{
	size_t i;

	FUZZ_CHECK(run->nr_jobs > 0);
	for (i = 0; i < run->nr_jobs; i++) {
		FUZZ_CHECK(run->jobs[i].name != NULL);
		FUZZ_CHECK(run->by_key[i] != NULL);
		if (i)
			FUZZ_CHECK(strcmp(run->by_key[i - 1]->name,
					  run->by_key[i]->name) <= 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nul;
	struct cmp_run runs[2], pair[2];
	size_t len[2], nr = 1;
	char err[1024];
	int i, ret;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	FUZZ_CHECK(devnull != NULL);
	nul = memchr(text, 0, size);
	len[0] = nul ? (size_t)(nul - text) : size;
	if (nul) {
		len[1] = size - len[0] - 1;
		nr = 2;
	}
	for (i = 0; i < (int)nr; i++) {
		const char *p = i ? nul + 1 : text;

		err[0] = 0;
		if (cmp_run_load_buf(&runs[i], i ? "new" : "base", p, len[i],
				     err, sizeof(err))) {
			check_error(err, sizeof(err));
			while (i > 0)
				cmp_run_free(&runs[--i]);
			return 0;
		}
		check_run(&runs[i]);
	}

	/* against itself: never a regression, whatever the threshold */
	ret = cmp_report(devnull, &runs[0], 1, &runs[0], 1, 0, err,
			 sizeof(err));
	FUZZ_CHECK(ret == 0);
	check_formats(&runs[0], 1, &runs[0], 1, 0, 0);
	pair[0] = runs[0];
	pair[1] = runs[0];
	ret = cmp_report(devnull, pair, 2, pair, 2, 0, err, sizeof(err));
	FUZZ_CHECK(ret == 0);

	if (nr == 2) {
		err[0] = 0;
		ret = cmp_report(devnull, &runs[0], 1, &runs[1], 1, 5, err,
				 sizeof(err));
		FUZZ_CHECK(ret >= -1 && ret <= 1);
		if (ret < 0)
			check_error(err, sizeof(err));
		check_formats(&runs[0], 1, &runs[1], 1, 5, ret);
		pair[0] = runs[0];
		pair[1] = runs[1];
		/* two runs of one side that may disagree on their jobs */
		err[0] = 0;
		ret = cmp_report(devnull, pair, 2, pair, 2, 5, err,
				 sizeof(err));
		FUZZ_CHECK(ret >= -1 && ret <= 1);
		if (ret < 0)
			check_error(err, sizeof(err));
	}
	for (i = 0; i < (int)nr; i++)
		cmp_run_free(&runs[i]);
	return 0;
}
