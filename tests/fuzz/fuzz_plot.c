// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: mqblk plot's readers. The input, split at its first
 * NUL byte, is a file of reports (plot_reports: --status-interval's
 * several JSON documents among other lines) and a fio log (plot_log_line,
 * line by line). Invariants: a refusal is one non-empty line; reports
 * taken are at least one, each with a non-empty "jobs" array, the last
 * one's place inside the text from '{' to '}'; a log line taken has a
 * direction of 0, 1 or 2 and only digits, commas and blanks.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "plot.h"
#include "target/config/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reports(const char *text, size_t len)
{
	struct json_object **docs = NULL;
	size_t nr = 0, off = 0, dlen = 0, i;
	char err[1024];

	err[0] = 0;
	if (plot_reports("in", text, len, &docs, &nr, &off, &dlen, err,
			 sizeof(err))) {
		FUZZ_CHECK(err[0] != 0);
		FUZZ_CHECK(strchr(err, '\n') == NULL);
		return;
	}
	FUZZ_CHECK(nr >= 1);
	FUZZ_CHECK(dlen >= 2 && off + dlen <= len);
	FUZZ_CHECK(text[off] == '{' && text[off + dlen - 1] == '}');
	for (i = 0; i < nr; i++) {
		const struct json_object *jobs = cj_get(docs[i], "jobs");

		FUZZ_CHECK(cj_type(jobs) == CJ_ARRAY && cj_count(jobs) > 0);
	}
	plot_reports_free(docs, nr);
}

static void check_log(const char *text, size_t len)
{
	char line[600];
	uint64_t v[4];
	size_t p = 0, n, i;

	while (p < len) {
		const char *nl = memchr(text + p, '\n', len - p);

		n = nl ? (size_t)(nl - (text + p)) + 1 : len - p;
		if (n < sizeof(line)) {
			memcpy(line, text + p, n);
			line[n] = 0;
			if (!plot_log_line(line, v)) {
				FUZZ_CHECK(v[2] <= 2);
				for (i = 0; line[i]; i++)
					FUZZ_CHECK(strchr("0123456789, \t\r\n",
							  line[i]) != NULL);
			}
		}
		p += n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *nul = memchr(text, 0, size);
	size_t len = nul ? (size_t)(nul - text) : size;

	check_reports(text, len);
	if (nul)
		check_log(nul + 1, size - len - 1);
	return 0;
}
