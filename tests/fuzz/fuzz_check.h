/* SPDX-License-Identifier: MIT */
/*
 * Shared by the bench fuzz harnesses: what every configuration the parsers
 * accept must satisfy, and what every refusal must carry (FUZZ_CHECK).
 */
#ifndef MQBLK_FUZZ_CHECK_H
#define MQBLK_FUZZ_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "fuzz.h"

/* The engine names options_set.c accepts (set_ioengine). */
static inline bool fuzz_engine_known(const char *e)
{
	static const char *const known[] = {
		"null", "mqblk",  "io_uring", "libaio",	  "psync",
		"sync", "pvsync", "pvsync2",  "posixaio",
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(e, known[i]))
			return true;
	return false;
}

/* A refusal: a non-empty one-line message, terminated inside err. */
static inline void fuzz_check_error(const char *err, size_t errlen)
{
	FUZZ_CHECK(memchr(err, 0, errlen) != NULL);
	FUZZ_CHECK(err[0] != 0);
	FUZZ_CHECK(strchr(err, '\n') == NULL);
}

static inline bool fuzz_opt_string_ok(const char *s)
{
	return !s || *s;
}

/*
 * Every job of an accepted configuration; finished says whether
 * bench_config_finish ran on it (--help and --version skip it).
 */
static inline void fuzz_check_config(const struct bench_config *cfg,
				     bool finished)
{
	unsigned i, d, p;

	FUZZ_CHECK(cfg->nr_jobs == 0 || cfg->jobs != NULL);
	FUZZ_CHECK(cfg->output_format != 0);
	FUZZ_CHECK((cfg->output_format & (OUTPUT_JSON | OUTPUT_JSONPLUS)) !=
		   (OUTPUT_JSON | OUTPUT_JSONPLUS));
	/* terse lines: one of fio's terse versions */
	FUZZ_CHECK(cfg->terse_version >= 2 && cfg->terse_version <= 5);
	FUZZ_CHECK(!(cfg->output_format &
		     ~(unsigned)(OUTPUT_NORMAL | OUTPUT_JSON | OUTPUT_JSONPLUS |
				 OUTPUT_TERSE)));
	FUZZ_CHECK(fuzz_opt_string_ok(cfg->output));
	if (finished)
		FUZZ_CHECK(cfg->nr_jobs >= 1);
	for (i = 0; i < cfg->nr_jobs; i++) {
		const struct bench_job *j = &cfg->jobs[i];

		FUZZ_CHECK(memchr(j->name, 0, sizeof(j->name)) != NULL);
		FUZZ_CHECK(j->name[0] != 0);
		FUZZ_CHECK(j->rw >= RW_READ && j->rw <= RW_RANDTRIM);
		FUZZ_CHECK(j->rwmixread <= 100);
		for (d = 0; d < DDIR_NR; d++)
			FUZZ_CHECK(j->bs[d] >= 1 && j->bs[d] <= (1u << 30));
		FUZZ_CHECK(j->iodepth >= 1 && j->iodepth <= 65536);
		FUZZ_CHECK(j->numjobs >= 1 && j->numjobs <= 1024);
		FUZZ_CHECK(j->loops >= 1);
		FUZZ_CHECK(fuzz_opt_string_ok(j->filename));
		FUZZ_CHECK(fuzz_opt_string_ok(j->description));
		FUZZ_CHECK(!j->ioengine || fuzz_engine_known(j->ioengine));
		FUZZ_CHECK(j->nr_percentiles <= BENCH_MAX_PERCENTILES);
		for (p = 0; p < j->nr_percentiles; p++)
			FUZZ_CHECK(j->percentiles[p] >= 0.0 &&
				   j->percentiles[p] <= 100.0);
		if (!finished)
			continue;
		/* bench_config_finish's fixups and checks */
		FUZZ_CHECK(j->iodepth_batch_submit >= 1 &&
			   j->iodepth_batch_submit <= j->iodepth);
		FUZZ_CHECK(j->iodepth_batch_complete_min <=
			   j->iodepth_batch_complete_max);
		FUZZ_CHECK(j->iodepth_low >= 1 && j->iodepth_low <= j->iodepth);
		FUZZ_CHECK(!j->time_based || j->runtime_ns > 0);
		/* where the I/O goes: fio's jobname file has a name and a
		 * size (or size=N% of what it will hold); only files take
		 * directory/filesize/unlink */
		FUZZ_CHECK(j->nrfiles == 1 ||
			   ((j->target == TARGET_JOBFILES ||
			     (j->files && j->target == TARGET_PATH)) &&
			    j->nrfiles <= 1024));
		/* fio's list of files (filename=a:b): at least two, each
		 * a path URI, none twice */
		if (j->files) {
			FUZZ_CHECK(j->nrfiles >= 2 && j->filename);
			for (unsigned k = 0; k < j->nrfiles; k++) {
				FUZZ_CHECK(j->files[k] &&
					   (j->files[k][0] == '/' ||
					    j->files[k][0] == '.'));
				for (unsigned m = 0; m < k; m++)
					FUZZ_CHECK(strcmp(j->files[k],
							  j->files[m]));
			}
		}
		FUZZ_CHECK(!j->filesize_high || j->filesize_high > j->filesize);
		FUZZ_CHECK(j->continue_on_error <= 7);
		for (unsigned t = 0; t < 3; t++) {
			FUZZ_CHECK(j->ignore_error_nr[t] <=
				   BENCH_IGNORE_ERROR_MAX);
			for (unsigned e = 0; e < j->ignore_error_nr[t]; e++)
				FUZZ_CHECK(j->ignore_error[t][e] > 0);
		}
		FUZZ_CHECK(j->size_pct <= 100);
		/* fio's zones: each direction's 100 picks in order, a zoned
		 * one within 100 percent */
		if (j->rand_dist == DIST_ZONED ||
		    j->rand_dist == DIST_ZONED_ABS)
			for (unsigned d = 0; d < DDIR_NR; d++)
				for (unsigned v = 0;
				     j->zone_set[d] && v < BENCH_ZONE_PICKS;
				     v++) {
					const struct bench_zone_pick *zp =
						&j->zone_pick[d][v];

					FUZZ_CHECK(zp->prev <= zp->end);
					FUZZ_CHECK(j->rand_dist ==
							   DIST_ZONED_ABS ||
						   zp->end <= 100);
					FUZZ_CHECK(!v ||
						   zp->prev >= zp[-1].prev);
				}
		if (j->target == TARGET_JOBFILES)
			FUZZ_CHECK(j->filename &&
				   (j->filesize > 0 || j->size_pct));
		if (j->target == TARGET_URI || j->target == TARGET_NULL_DEFAULT)
			FUZZ_CHECK(!j->directory && !j->filesize &&
				   !j->unlink && !j->create_on_open);
		FUZZ_CHECK(!j->gtod_reduce ||
			   (!j->clat_percentiles && !j->lat_percentiles &&
			    !j->slat_percentiles));
		/* groups start at 0 and go up by at most one per job */
		if (i == 0)
			FUZZ_CHECK(j->groupid == 0);
		else
			FUZZ_CHECK(j->groupid == cfg->jobs[i - 1].groupid ||
				   j->groupid == cfg->jobs[i - 1].groupid + 1);
	}
}

#endif
