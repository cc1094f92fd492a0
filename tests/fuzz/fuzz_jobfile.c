// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the input is a fio job file. It goes through
 * bench_parse_jobfile_stream (via fmemopen, NUL bytes included) and, when
 * accepted, bench_config_finish; both results are checked against the
 * invariants of fuzz_check.h, then everything is freed (LeakSanitizer
 * watches that).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char empty[1];
	struct bench_config cfg;
	struct bench_job defaults;
	char err[256];
	FILE *f;

	/* fmemopen refuses a NULL buffer; an empty input is still a case */
	f = fmemopen(size ? (void *)data : (void *)empty, size, "r");
	if (!f)
		return 0;
	memset(&cfg, 0, sizeof(cfg));
	cfg.output_format = OUTPUT_NORMAL;
	cfg.terse_version = 3; /* bench_parse_args's default */
	bench_job_defaults(&defaults);
	memset(err, 0x55, sizeof(err));

	if (bench_parse_jobfile_stream(f, "fuzz.fio", &defaults, &cfg, err,
				       sizeof(err))) {
		fuzz_check_error(err, sizeof(err));
	} else {
		fuzz_check_config(&cfg, false);
		FUZZ_CHECK(cfg.nr_jobs >= 1);
		memset(err, 0x55, sizeof(err));
		if (bench_config_finish(&cfg, err, sizeof(err)))
			fuzz_check_error(err, sizeof(err));
		else
			fuzz_check_config(&cfg, true);
	}

	fclose(f);
	bench_config_free(&cfg);
	bench_job_free(&defaults);
	return 0;
}
