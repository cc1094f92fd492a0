// SPDX-License-Identifier: MIT
/*
 * Unit tests of the `mqblk bench` command line (src/bench/options*.c):
 * fio's layout (globals before the first --name, --name starting a job),
 * its value rules (bs=R,W,T, rwmixwrite, percentile_list), the fixups of
 * bench_config_finish (iodepth_batch, stonewall group ids), output formats,
 * and an error naming the bad token for every refused argument. Every
 * parse also checks that argv came back unmodified.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"

#define SEC 1000000000ull
#define MAX_ARGS 64

static char err[512];

/*
 * Parse "bench" followed by the NULL-terminated args. The parser gets
 * private writable copies; they must compare equal afterwards, pointer
 * array included.
 */
static int parse_list(struct bench_config *cfg, const char *const *args)
{
	char *argv[MAX_ARGS + 2], *saved[MAX_ARGS + 2];
	int argc = 0, i, ret;

	argv[argc++] = strdup("bench");
	for (i = 0; args[i]; i++) {
		assert_true(argc < MAX_ARGS);
		argv[argc++] = strdup(args[i]);
	}
	argv[argc] = NULL;
	memcpy(saved, argv, sizeof(argv[0]) * (size_t)(argc + 1));

	memset(err, 0, sizeof(err));
	ret = bench_parse_args(argc, argv, cfg, err, sizeof(err));

	for (i = 0; i <= argc; i++)
		if (argv[i] != saved[i])
			fail_msg("argv[%d] pointer changed", i);
	if (strcmp(argv[0], "bench"))
		fail_msg("argv[0] changed to '%s'", argv[0]);
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], args[i - 1]))
			fail_msg("argv[%d] '%s' changed to '%s'", i,
				 args[i - 1], argv[i]);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	return ret;
}

#define PARSE(cfg, ...) parse_list((cfg), (const char *[]){ __VA_ARGS__, NULL })

/* Must parse; the message of a refusal is in the failure. */
#define PARSE_OK(cfg, ...)                            \
	do {                                          \
		if (PARSE((cfg), __VA_ARGS__))        \
			fail_msg("refused: %s", err); \
	} while (0)

/* Must fail with -1 and an error message containing want. */
#define PARSE_BAD(want, ...)                                                   \
	do {                                                                   \
		struct bench_config bad_cfg_;                                  \
		int r_ = PARSE(&bad_cfg_, __VA_ARGS__);                        \
		bench_config_free(&bad_cfg_);                                  \
		if (r_ != -1)                                                  \
			fail_msg("accepted (%d), wanted an error with '%s'",   \
				 r_, (want));                                  \
		if (!strstr(err, (want)))                                      \
			fail_msg("error '%s' does not say '%s'", err, (want)); \
		if (strchr(err, '\n'))                                         \
			fail_msg("error '%s' is not one line", err);           \
	} while (0)

static void assert_bs(const struct bench_job *job, uint64_t r, uint64_t w,
		      uint64_t t)
{
	if (job->bs[DDIR_READ] != r || job->bs[DDIR_WRITE] != w ||
	    job->bs[DDIR_TRIM] != t)
		fail_msg("%s: bs %llu,%llu,%llu, want %llu,%llu,%llu",
			 job->name, (unsigned long long)job->bs[DDIR_READ],
			 (unsigned long long)job->bs[DDIR_WRITE],
			 (unsigned long long)job->bs[DDIR_TRIM],
			 (unsigned long long)r, (unsigned long long)w,
			 (unsigned long long)t);
}

/* ---- layout ---- */

static void test_defaults_of_one_job(void **state)
{
	struct bench_config cfg;
	const struct bench_job *j;

	(void)state;
	PARSE_OK(&cfg, "--name=a");
	assert_int_equal(cfg.nr_jobs, 1);
	j = &cfg.jobs[0];
	assert_string_equal(j->name, "a");
	assert_null(j->filename);
	assert_null(j->ioengine);
	assert_null(j->description);
	assert_int_equal(j->rw, RW_READ);
	assert_int_equal(j->rwmixread, 50);
	assert_bs(j, 4096, 4096, 4096);
	assert_int_equal(j->size, 0);
	assert_int_equal(j->offset, 0);
	assert_int_equal(j->iodepth, 1);
	assert_int_equal(j->numjobs, 1);
	assert_int_equal(j->runtime_ns, 0);
	assert_int_equal(j->ramp_time_ns, 0);
	assert_false(j->time_based);
	assert_int_equal(j->iodepth_batch_submit, 1);
	assert_int_equal(j->iodepth_batch_complete_min, 1);
	assert_int_equal(j->iodepth_batch_complete_max, 1);
	assert_int_equal(j->iodepth_low, 1);
	assert_false(j->hipri);
	assert_false(j->direct);
	assert_false(j->group_reporting);
	assert_true(j->randrepeat);
	assert_false(j->randseed_set);
	assert_false(j->stonewall);
	assert_true(j->clat_percentiles);
	assert_false(j->lat_percentiles);
	assert_false(j->slat_percentiles);
	assert_int_equal(j->nr_percentiles, 0);
	assert_int_equal(j->number_ios, 0);
	assert_int_equal(j->loops, 1);
	assert_int_equal(j->groupid, 0);
	assert_int_equal(cfg.output_format, OUTPUT_NORMAL);
	assert_null(cfg.output);
	assert_int_equal(cfg.eta, ETA_AUTO);
	assert_false(cfg.help);
	assert_false(cfg.version);
	assert_string_equal(cfg.cmdline, "bench --name=a");
	bench_config_free(&cfg);
	/* free leaves an empty config, safe to free again */
	assert_null(cfg.jobs);
	assert_int_equal(cfg.nr_jobs, 0);
	bench_config_free(&cfg);
}

static void test_globals_before_name_apply_to_every_job(void **state)
{
	struct bench_config cfg;

	(void)state;
	PARSE_OK(&cfg, "--bs=8k", "--iodepth=4", "--rw=randread",
		 "--filename=null:size=1g", "--name=a", "--name=b",
		 "--iodepth=16");
	assert_int_equal(cfg.nr_jobs, 2);
	assert_string_equal(cfg.jobs[0].name, "a");
	assert_string_equal(cfg.jobs[1].name, "b");
	assert_bs(&cfg.jobs[0], 8192, 8192, 8192);
	assert_bs(&cfg.jobs[1], 8192, 8192, 8192);
	assert_int_equal(cfg.jobs[0].rw, RW_RANDREAD);
	assert_int_equal(cfg.jobs[1].rw, RW_RANDREAD);
	assert_int_equal(cfg.jobs[0].iodepth, 4);
	assert_int_equal(cfg.jobs[1].iodepth, 16);
	/* each job owns a copy of the global string */
	assert_string_equal(cfg.jobs[0].filename, "null:size=1g");
	assert_string_equal(cfg.jobs[1].filename, "null:size=1g");
	assert_ptr_not_equal(cfg.jobs[0].filename, cfg.jobs[1].filename);
	bench_config_free(&cfg);
}

static void test_options_after_name_apply_to_that_job_only(void **state)
{
	struct bench_config cfg;

	(void)state;
	PARSE_OK(&cfg, "--name=a", "--bs=16k", "--rw=write", "--direct=1",
		 "--description=first", "--name=b", "--name=c", "--numjobs=3");
	assert_int_equal(cfg.nr_jobs, 3);
	assert_bs(&cfg.jobs[0], 16384, 16384, 16384);
	assert_int_equal(cfg.jobs[0].rw, RW_WRITE);
	assert_true(cfg.jobs[0].direct);
	assert_string_equal(cfg.jobs[0].description, "first");
	assert_int_equal(cfg.jobs[0].numjobs, 1);
	assert_bs(&cfg.jobs[1], 4096, 4096, 4096);
	assert_int_equal(cfg.jobs[1].rw, RW_READ);
	assert_false(cfg.jobs[1].direct);
	assert_null(cfg.jobs[1].description);
	assert_int_equal(cfg.jobs[1].numjobs, 1);
	assert_string_equal(cfg.jobs[2].name, "c");
	assert_int_equal(cfg.jobs[2].numjobs, 3);
	bench_config_free(&cfg);
}

static void test_later_value_wins_and_strings_are_replaced(void **state)
{
	struct bench_config cfg;

	(void)state;
	PARSE_OK(&cfg, "--filename=null:size=1g", "--name=a",
		 "--filename=null:size=2g", "--iodepth=2", "--iodepth=8",
		 "--randseed=42");
	assert_string_equal(cfg.jobs[0].filename, "null:size=2g");
	assert_int_equal(cfg.jobs[0].iodepth, 8);
	assert_true(cfg.jobs[0].randseed_set);
	assert_int_equal(cfg.jobs[0].randseed, 42);
	bench_config_free(&cfg);
}

static void test_key_space_value_form(void **state)
{
	struct bench_config cfg;
	const struct bench_job *j;

	(void)state;
	PARSE_OK(&cfg, "--output-format", "json", "--eta", "never", "--name",
		 "a", "--bs", "8k", "--rw", "write", "--iodepth", "8",
		 "--runtime", "5", "--time_based", "--size", "1m", "--output",
		 "out.json");
	assert_int_equal(cfg.nr_jobs, 1);
	j = &cfg.jobs[0];
	assert_string_equal(j->name, "a");
	assert_bs(j, 8192, 8192, 8192);
	assert_int_equal(j->rw, RW_WRITE);
	assert_int_equal(j->iodepth, 8);
	assert_int_equal(j->runtime_ns, 5 * SEC);
	assert_true(j->time_based);
	assert_int_equal(j->size, 1048576);
	assert_int_equal(cfg.output_format, OUTPUT_JSON);
	assert_int_equal(cfg.eta, ETA_NEVER);
	assert_string_equal(cfg.output, "out.json");
	assert_string_equal(cfg.cmdline,
			    "bench --output-format json --eta never --name a "
			    "--bs 8k --rw write --iodepth 8 --runtime 5 "
			    "--time_based --size 1m --output out.json");
	bench_config_free(&cfg);

	/* a boolean does not take the next argument as its value */
	PARSE_OK(&cfg, "--name=a", "--direct", "--hipri", "--thread",
		 "--iodepth=2");
	assert_true(cfg.jobs[0].direct);
	assert_true(cfg.jobs[0].hipri);
	assert_true(cfg.jobs[0].thread);
	assert_int_equal(cfg.jobs[0].iodepth, 2);
	bench_config_free(&cfg);

	/* an explicit "=0" turns a boolean off */
	PARSE_OK(&cfg, "--randrepeat=0", "--name=a", "--clat_percentiles=0");
	assert_false(cfg.jobs[0].randrepeat);
	assert_false(cfg.jobs[0].clat_percentiles);
	bench_config_free(&cfg);
}

static void test_single_dash_options(void **state)
{
	struct bench_config cfg;

	(void)state;
	PARSE_OK(&cfg, "-bs=8k", "-name=x", "-iodepth=2", "-rw", "randwrite",
		 "-output-format=json");
	assert_int_equal(cfg.nr_jobs, 1);
	assert_string_equal(cfg.jobs[0].name, "x");
	assert_bs(&cfg.jobs[0], 8192, 8192, 8192);
	assert_int_equal(cfg.jobs[0].iodepth, 2);
	assert_int_equal(cfg.jobs[0].rw, RW_RANDWRITE);
	assert_int_equal(cfg.output_format, OUTPUT_JSON);
	bench_config_free(&cfg);
}

static void test_values_with_units_and_aliases(void **state)
{
	struct bench_config cfg;
	const struct bench_job *j;

	(void)state;
	PARSE_OK(&cfg, "--name=a", "--size=1g", "--offset=4KiB",
		 "--runtime=1500ms", "--ramp_time=2", "--time_based",
		 "--number_ios=1000", "--loops=3", "--readwrite=randrw",
		 "--blocksize=2k", "--iodepth_batch=4", "--iodepth=8",
		 "--iodepth_batch_complete=2", "--gtod_reduce=0",
		 "--norandommap", "--group_reporting", "--ioengine=null",
		 "--filename=null");
	j = &cfg.jobs[0];
	assert_int_equal(j->size, 1073741824ull);
	assert_int_equal(j->offset, 4000);
	assert_int_equal(j->runtime_ns, 1500000000ull);
	assert_int_equal(j->ramp_time_ns, 2 * SEC);
	assert_true(j->time_based);
	assert_int_equal(j->number_ios, 1000);
	assert_int_equal(j->loops, 3);
	assert_int_equal(j->rw, RW_RANDRW);
	assert_bs(j, 2048, 2048, 2048);
	assert_int_equal(j->iodepth_batch_submit, 4);
	assert_int_equal(j->iodepth_batch_complete_min, 2);
	assert_true(j->norandommap);
	assert_true(j->group_reporting);
	assert_string_equal(j->ioengine, "null");
	bench_config_free(&cfg);

	/* timeout is fio's alias of runtime */
	PARSE_OK(&cfg, "--name=a", "--timeout=1m");
	assert_int_equal(cfg.jobs[0].runtime_ns, 60 * SEC);
	bench_config_free(&cfg);
}

static void test_every_rw_name(void **state)
{
	static const struct {
		const char *arg;
		enum bench_rw rw;
	} names[] = {
		{ "--rw=read", RW_READ },
		{ "--rw=write", RW_WRITE },
		{ "--rw=randread", RW_RANDREAD },
		{ "--rw=randwrite", RW_RANDWRITE },
		{ "--rw=rw", RW_RW },
		{ "--rw=readwrite", RW_RW },
		{ "--rw=randrw", RW_RANDRW },
		{ "--rw=trim", RW_TRIM },
		{ "--rw=randtrim", RW_RANDTRIM },
	};
	struct bench_config cfg;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		PARSE_OK(&cfg, "--name=a", names[i].arg);
		if (cfg.jobs[0].rw != names[i].rw)
			fail_msg("%s gave rw %d", names[i].arg,
				 (int)cfg.jobs[0].rw);
		bench_config_free(&cfg);
	}
}

/* fio's rw=NAME:N: I/Os per random offset, or a signed hole in bytes */
static void test_rw_postfix(void **state)
{
	struct bench_config cfg;

	(void)state;
	PARSE_OK(&cfg, "--name=a", "--rw=randrw:8");
	assert_int_equal(cfg.jobs[0].rw, RW_RANDRW);
	assert_int_equal(cfg.jobs[0].ddir_seq_nr, 8);
	assert_int_equal(cfg.jobs[0].ddir_seq_add, 0);
	bench_config_free(&cfg);
	PARSE_OK(&cfg, "--name=a", "--rw=write:-8k");
	assert_int_equal(cfg.jobs[0].rw, RW_WRITE);
	assert_true(cfg.jobs[0].ddir_seq_add == -8192);
	bench_config_free(&cfg);
	/* a later rw= without one drops it, as fio's str_rw_cb */
	PARSE_OK(&cfg, "--name=a", "--rw=read:1m", "--rw=read");
	assert_int_equal(cfg.jobs[0].ddir_seq_add, 0);
	bench_config_free(&cfg);
	PARSE_BAD("rw postfix parsing failed", "--name=a", "--rw=read:-");
	PARSE_BAD("out of range", "--name=a", "--rw=randread:4294967296");
}

/* ---- fio's bs=R,W,T (measured against fio 3.33 with --rw=trim etc.) ---- */

static void check_bs(const char *arg, uint64_t r, uint64_t w, uint64_t t)
{
	struct bench_config cfg;

	if (PARSE(&cfg, "--name=a", arg))
		fail_msg("%s refused: %s", arg, err);
	assert_bs(&cfg.jobs[0], r, w, t);
	bench_config_free(&cfg);
}

static void test_bs_per_direction(void **state)
{
	(void)state;
	check_bs("--bs=8k", 8192, 8192, 8192);
	/* a value not followed by a comma also fills the ones after it */
	check_bs("--bs=8k,32k", 8192, 32768, 32768);
	/* a trailing comma stops that: trim keeps its default */
	check_bs("--bs=8k,32k,", 8192, 32768, 4096);
	check_bs("--bs=8k,", 8192, 4096, 4096);
	/* an empty field keeps that direction */
	check_bs("--bs=,8k", 4096, 8192, 8192);
	check_bs("--bs=,8k,", 4096, 8192, 4096);
	check_bs("--bs=8k,,16k", 8192, 4096, 16384);
	check_bs("--bs=,,16k", 4096, 4096, 16384);
	check_bs("--bs=8k,16k,32k", 8192, 16384, 32768);
	check_bs("--bs=512,1k,1g", 512, 1024, 1073741824ull);
	check_bs("--bs=1", 1, 1, 1);
}

static void test_bs_empty_field_keeps_the_global_value(void **state)
{
	struct bench_config cfg;

	(void)state;
	PARSE_OK(&cfg, "--bs=16k", "--name=a", "--bs=,8k", "--name=b",
		 "--bs=2k,");
	assert_bs(&cfg.jobs[0], 16384, 8192, 8192);
	assert_bs(&cfg.jobs[1], 2048, 16384, 16384);
	bench_config_free(&cfg);
}

static void test_bs_errors(void **state)
{
	(void)state;
	PARSE_BAD("at most 3", "--name=a", "--bs=4k,8k,16k,32k");
	PARSE_BAD("4k-8k", "--name=a", "--bs=4k-8k");
	PARSE_BAD("ranges", "--name=a", "--bs=4k:8k");
	PARSE_BAD("4q", "--name=a", "--bs=4q");
	PARSE_BAD("8q", "--name=a", "--bs=4k,8q");
	PARSE_BAD("1 byte to 1 GiB", "--name=a", "--bs=0");
	PARSE_BAD("2g", "--name=a", "--bs=4k,2g");
	/* fio refuses a bs with no size in it */
	PARSE_BAD("no block size", "--name=a", "--bs=");
	PARSE_BAD("no block size", "--name=a", "--bs=,,");
	PARSE_BAD("needs a value", "--name=a", "--bs");
}

/* ---- mixes and percentiles ---- */

static void assert_range(const struct bench_job *job, int d, uint64_t lo,
			 uint64_t hi)
{
	if (job->bs[d] != lo || job->bs_max[d] != hi)
		fail_msg("%s: direction %d range %llu-%llu, want %llu-%llu",
			 job->name, d, (unsigned long long)job->bs[d],
			 (unsigned long long)job->bs_max[d],
			 (unsigned long long)lo, (unsigned long long)hi);
}

/* fio's bsrange: MIN-MAX (or MIN:MAX) per direction, swapped if reversed,
 * the last one given also applying to the directions after it. */
static void test_bsrange(void **state)
{
	struct bench_config cfg;
	int d;

	(void)state;
	PARSE_OK(&cfg, "--name=a", "--bsrange=4k-1m", "--name=b",
		 "--bsrange=4k-64k,8k-128k", "--name=c",
		 "--blocksize_range=8k-4k", "--name=d",
		 "--bsrange=1k:2k,,512-4k", "--name=e", "--bsrange=4k-1m",
		 "--bs=8k");
	for (d = 0; d < DDIR_NR; d++)
		assert_range(&cfg.jobs[0], d, 4096, 1048576);
	assert_range(&cfg.jobs[1], DDIR_READ, 4096, 65536);
	assert_range(&cfg.jobs[1], DDIR_WRITE, 8192, 131072);
	assert_range(&cfg.jobs[1], DDIR_TRIM, 8192, 131072);
	/* fio's parser swaps a range given high-low */
	assert_range(&cfg.jobs[2], DDIR_READ, 4096, 8192);
	assert_range(&cfg.jobs[3], DDIR_READ, 1024, 2048);
	assert_range(&cfg.jobs[3], DDIR_WRITE, 4096, 4096);
	assert_range(&cfg.jobs[3], DDIR_TRIM, 512, 4096);
	/* a later bs= makes it one size again */
	for (d = 0; d < DDIR_NR; d++)
		assert_range(&cfg.jobs[4], d, 8192, 8192);
	bench_config_free(&cfg);
}

static void test_bsrange_errors(void **state)
{
	(void)state;
	PARSE_BAD("bsrange=4k: '4k' is not a range", "--name=a",
		  "--bsrange=4k");
	PARSE_BAD("bsrange: ", "--name=a", "--bsrange=4k-1q");
	PARSE_BAD("bsrange: block size 0 must be 1 byte to 1 GiB", "--name=a",
		  "--bsrange=0-4k");
	PARSE_BAD("bsrange: block size 2g", "--name=a", "--bsrange=4k-2g");
	PARSE_BAD("bsrange=1k-2k,1k-2k,1k-2k,1k-2k: at most 3", "--name=a",
		  "--bsrange=1k-2k,1k-2k,1k-2k,1k-2k");
	PARSE_BAD("bsrange=',': no range given", "--name=a", "--bsrange=,");
	PARSE_BAD("bsrange: ", "--name=a", "--bsrange=-");
	PARSE_BAD("blocksize_range=x: 'x' is not a range", "--name=a",
		  "--blocksize_range=x");
	PARSE_BAD("needs a value", "--name=a", "--bsrange");
	PARSE_BAD("ranges and mixes are --bsrange", "--name=a", "--bs=4k-8k");
}

static void assert_split(const struct bench_job *job, int d, unsigned nr,
			 const uint64_t *bs, const unsigned *perc)
{
	unsigned i;

	if (job->bssplit_nr[d] != nr)
		fail_msg("%s: direction %d has %u entries, want %u", job->name,
			 d, job->bssplit_nr[d], nr);
	for (i = 0; i < nr; i++)
		if (job->bssplit[d][i].bs != bs[i] ||
		    job->bssplit[d][i].perc != perc[i])
			fail_msg("%s: entry %u is %llu/%u, want %llu/%u",
				 job->name, i,
				 (unsigned long long)job->bssplit[d][i].bs,
				 job->bssplit[d][i].perc,
				 (unsigned long long)bs[i], perc[i]);
}

/* fio's bssplit: sorted by percentage; entries without one share the rest
 * equally; R,W[,T] lists. */
static void test_bssplit(void **state)
{
	struct bench_config cfg;
	int d;

	(void)state;
	PARSE_OK(&cfg, "--name=a", "--bssplit=4k/10:64k/50:1m/40", "--name=b",
		 "--bssplit=4k/10:8k:16k", "--name=c",
		 "--bssplit=4k/50,64k/50:8k", "--name=d",
		 "--bssplit=2k/30,,16k/100", "--name=e", "--bssplit=8k",
		 "--name=f", "--bssplit=4k/0:8k/50");
	for (d = 0; d < DDIR_NR; d++) {
		assert_split(&cfg.jobs[0], d, 3,
			     (const uint64_t[]){ 4096, 1048576, 65536 },
			     (const unsigned[]){ 10, 40, 50 });
		assert_range(&cfg.jobs[0], d, 4096, 1048576);
		assert_split(&cfg.jobs[1], d, 3,
			     (const uint64_t[]){ 4096, 8192, 16384 },
			     (const unsigned[]){ 10, 45, 45 });
	}
	assert_split(&cfg.jobs[2], DDIR_READ, 1, (const uint64_t[]){ 4096 },
		     (const unsigned[]){ 50 });
	assert_range(&cfg.jobs[2], DDIR_READ, 4096, 4096);
	/* "8k" with no percentage: what 64k leaves */
	assert_split(&cfg.jobs[2], DDIR_WRITE, 2,
		     (const uint64_t[]){ 65536, 8192 },
		     (const unsigned[]){ 50, 50 });
	assert_range(&cfg.jobs[2], DDIR_TRIM, 8192, 65536);
	/* an empty list keeps the direction as it was */
	assert_range(&cfg.jobs[3], DDIR_READ, 2048, 2048);
	assert_range(&cfg.jobs[3], DDIR_WRITE, 4096, 4096);
	assert_int_equal(cfg.jobs[3].bssplit_nr[DDIR_WRITE], 0);
	assert_range(&cfg.jobs[3], DDIR_TRIM, 16384, 16384);
	assert_range(&cfg.jobs[4], DDIR_WRITE, 8192, 8192);
	/* fio reads a 0 percentage as "not given" (atoi) */
	assert_split(&cfg.jobs[5], DDIR_READ, 2,
		     (const uint64_t[]){ 4096, 8192 },
		     (const unsigned[]){ 50, 50 });
	bench_config_free(&cfg);
}

static void test_bssplit_errors(void **state)
{
	(void)state;
	PARSE_BAD(
		"bssplit=4k/50:8k/60: percentages add up to 110, more than 100",
		"--name=a", "--bssplit=4k/50:8k/60");
	PARSE_BAD("bssplit=4k/100:8k:16k/1: percentages add up", "--name=a",
		  "--bssplit=4k/100:8k:16k/1");
	PARSE_BAD("bssplit: percentage of 4k: ", "--name=a",
		  "--bssplit=4k/101");
	PARSE_BAD("bssplit: percentage of 4k: ", "--name=a", "--bssplit=4k/x");
	PARSE_BAD("bssplit: percentage of 4k: ", "--name=a",
		  "--bssplit=4k/-5:8k");
	PARSE_BAD("bssplit: ", "--name=a", "--bssplit=garbage");
	PARSE_BAD("bssplit: block size 0 must be", "--name=a",
		  "--bssplit=0/50:4k/50");
	PARSE_BAD("empty entry", "--name=a", "--bssplit=4k/50::8k/50");
	PARSE_BAD("at most 3 lists", "--name=a", "--bssplit=4k,4k,4k,4k");
	PARSE_BAD("no block size given", "--name=a", "--bssplit=,,");
	PARSE_BAD("at most 64 entries", "--name=a",
		  "--bssplit=1k:2k:3k:4k:5k:6k:7k:8k:9k:10k:11k:12k:13k:14k:"
		  "15k:16k:17k:18k:19k:20k:21k:22k:23k:24k:25k:26k:27k:28k:"
		  "29k:30k:31k:32k:33k:34k:35k:36k:37k:38k:39k:40k:41k:42k:"
		  "43k:44k:45k:46k:47k:48k:49k:50k:51k:52k:53k:54k:55k:56k:"
		  "57k:58k:59k:60k:61k:62k:63k:64k:65k");
	PARSE_BAD("needs a value", "--name=a", "--bssplit");
}

/* bs_unaligned is refused by name (never ignored); bs_is_seq_rand is a
 * bool; verify with mixed sizes gets fio's header interval. */
static void test_bs_unaligned_seq_rand_and_verify_interval(void **state)
{
	struct bench_config cfg;

	(void)state;
	PARSE_BAD("bs_unaligned is not supported", "--name=a",
		  "--bsrange=4k-8k", "--bs_unaligned");
	PARSE_BAD("blocksize_unaligned is not supported", "--name=a",
		  "--blocksize_unaligned=1");
	PARSE_BAD("bs_unaligned: ", "--name=a", "--bs_unaligned=maybe");
	PARSE_OK(&cfg, "--name=a", "--bs_unaligned=0", "--bs_is_seq_rand",
		 "--bs=4k,64k", "--name=v", "--rw=randwrite", "--bsrange=4k-1m",
		 "--verify=crc32c", "--name=w", "--rw=write", "--bsrange=4k-6k",
		 "--verify=md5", "--name=x", "--rw=randwrite",
		 "--bssplit=8k/50:64k/50", "--verify=md5",
		 "--verify_interval=16k");
	assert_true(cfg.jobs[0].bs_is_seq_rand);
	assert_int_equal(cfg.jobs[1].verify_interval, 4096);
	/* 4k does not divide 6k: their gcd */
	assert_int_equal(cfg.jobs[2].verify_interval, 2048);
	/* at most the minimum write size */
	assert_int_equal(cfg.jobs[3].verify_interval, 8192);
	bench_config_free(&cfg);
	PARSE_BAD("too small for a verify header", "--name=a", "--rw=randwrite",
		  "--bsrange=512-1000", "--verify=crc32c");
}

static void test_rwmix(void **state)
{
	struct bench_config cfg;

	(void)state;
	PARSE_OK(&cfg, "--rw=randrw", "--name=a", "--rwmixwrite=30", "--name=b",
		 "--rwmixread=80", "--name=c", "--rwmixread=80",
		 "--rwmixwrite=10", "--name=d", "--rwmixwrite=100");
	assert_int_equal(cfg.jobs[0].rwmixread, 70);
	assert_int_equal(cfg.jobs[1].rwmixread, 80);
	/* the later one wins, as in fio */
	assert_int_equal(cfg.jobs[2].rwmixread, 90);
	assert_int_equal(cfg.jobs[3].rwmixread, 0);
	bench_config_free(&cfg);

	PARSE_BAD("rwmixwrite", "--name=a", "--rwmixwrite=101");
	PARSE_BAD("101", "--name=a", "--rwmixread=101");
	PARSE_BAD("rwmixread", "--name=a", "--rwmixread=-1");
}

static void test_percentile_list(void **state)
{
	struct bench_config cfg;
	const struct bench_job *j;

	(void)state;
	PARSE_OK(&cfg, "--name=a", "--percentile_list=50:99:99.99");
	j = &cfg.jobs[0];
	assert_int_equal(j->nr_percentiles, 3);
	assert_true(j->percentiles[0] == 50.0);
	assert_true(j->percentiles[1] == 99.0);
	assert_true(j->percentiles[2] == 99.99);
	bench_config_free(&cfg);

	PARSE_OK(&cfg, "--percentile_list=0:100", "--name=a");
	assert_int_equal(cfg.jobs[0].nr_percentiles, 2);
	assert_true(cfg.jobs[0].percentiles[0] == 0.0);
	assert_true(cfg.jobs[0].percentiles[1] == 100.0);
	bench_config_free(&cfg);

	/* twenty is fio's limit (FIO_IO_U_LIST_MAX_LEN) */
	PARSE_OK(&cfg, "--name=a",
		 "--percentile_list=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:"
		 "18:19:20");
	assert_int_equal(cfg.jobs[0].nr_percentiles, 20);
	assert_true(cfg.jobs[0].percentiles[19] == 20.0);
	bench_config_free(&cfg);
	PARSE_BAD("at most 20", "--name=a",
		  "--percentile_list=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:"
		  "18:19:20:21");

	PARSE_BAD("50:abc", "--name=a", "--percentile_list=50:abc");
	PARSE_BAD("100.5", "--name=a", "--percentile_list=100.5");
	PARSE_BAD("-1", "--name=a", "--percentile_list=-1:50");
	PARSE_BAD("50::99", "--name=a", "--percentile_list=50::99");
	PARSE_BAD("50,99", "--name=a", "--percentile_list=50,99");
	PARSE_BAD("empty", "--name=a", "--percentile_list=");
	/* NaN is neither below 0 nor above 100: it must still be refused */
	PARSE_BAD("nan", "--name=a", "--percentile_list=nan");
	PARSE_BAD("inf", "--name=a", "--percentile_list=50:inf");
}

/* ---- bench_config_finish fixups ---- */

static void test_iodepth_batch_fixups(void **state)
{
	struct bench_config cfg;
	const struct bench_job *j;

	(void)state;
	/* batch_submit=0 means iodepth (fio); iodepth_low unset defaults to
	 * iodepth, complete_max unset to complete_min (fio's fixup) */
	PARSE_OK(&cfg, "--name=a", "--iodepth=32", "--iodepth_batch_submit=0");
	j = &cfg.jobs[0];
	assert_int_equal(j->iodepth_batch_submit, 32);
	assert_int_equal(j->iodepth_batch_complete_min, 1);
	assert_int_equal(j->iodepth_batch_complete_max, 1);
	assert_int_equal(j->iodepth_low, 32);
	bench_config_free(&cfg);

	/* the default submit batch stays 1 */
	PARSE_OK(&cfg, "--name=a", "--iodepth=16");
	j = &cfg.jobs[0];
	assert_int_equal(j->iodepth_batch_submit, 1);
	assert_int_equal(j->iodepth_batch_complete_max, 1);
	assert_int_equal(j->iodepth_low, 16);
	bench_config_free(&cfg);

	/* explicit values inside iodepth are kept */
	PARSE_OK(&cfg, "--name=a", "--iodepth=32", "--iodepth_batch=8",
		 "--iodepth_low=4", "--iodepth_batch_complete_min=2",
		 "--iodepth_batch_complete_max=16");
	j = &cfg.jobs[0];
	assert_int_equal(j->iodepth_batch_submit, 8);
	assert_int_equal(j->iodepth_low, 4);
	assert_int_equal(j->iodepth_batch_complete_min, 2);
	assert_int_equal(j->iodepth_batch_complete_max, 16);
	bench_config_free(&cfg);

	/* submit batch and iodepth_low above iodepth come down to it; the
	 * complete bounds are left alone (fio's getevents clamps them) */
	PARSE_OK(&cfg, "--name=a", "--iodepth=4", "--iodepth_batch_submit=16",
		 "--iodepth_low=9", "--iodepth_batch_complete_max=64",
		 "--iodepth_batch_complete_min=8");
	j = &cfg.jobs[0];
	assert_int_equal(j->iodepth_batch_submit, 4);
	assert_int_equal(j->iodepth_low, 4);
	assert_int_equal(j->iodepth_batch_complete_max, 64);
	assert_int_equal(j->iodepth_batch_complete_min, 8);
	bench_config_free(&cfg);

	PARSE_OK(&cfg, "--name=a", "--iodepth=8",
		 "--iodepth_batch_complete_min=6",
		 "--iodepth_batch_complete_max=4");
	/* a complete_min above complete_max raises complete_max */
	assert_int_equal(cfg.jobs[0].iodepth_batch_complete_min, 6);
	assert_int_equal(cfg.jobs[0].iodepth_batch_complete_max, 6);
	bench_config_free(&cfg);

	/* complete_min=0 (fio: reap without waiting) is kept */
	PARSE_OK(&cfg, "--name=a", "--iodepth=8",
		 "--iodepth_batch_complete_min=0");
	assert_int_equal(cfg.jobs[0].iodepth_batch_complete_min, 0);
	bench_config_free(&cfg);
}

static void test_gtod_reduce_turns_off_percentiles(void **state)
{
	struct bench_config cfg;

	(void)state;
	PARSE_OK(&cfg, "--name=a", "--lat_percentiles", "--slat_percentiles",
		 "--gtod_reduce");
	assert_true(cfg.jobs[0].gtod_reduce);
	assert_false(cfg.jobs[0].clat_percentiles);
	assert_false(cfg.jobs[0].lat_percentiles);
	assert_false(cfg.jobs[0].slat_percentiles);
	bench_config_free(&cfg);
}

static void check_groups(const char *const *args, const unsigned *want,
			 unsigned nr)
{
	struct bench_config cfg;
	unsigned i;

	if (parse_list(&cfg, args))
		fail_msg("refused: %s", err);
	assert_int_equal(cfg.nr_jobs, nr);
	for (i = 0; i < nr; i++)
		if (cfg.jobs[i].groupid != want[i])
			fail_msg("job %u (%s): group %u, want %u", i,
				 cfg.jobs[i].name, cfg.jobs[i].groupid,
				 want[i]);
	bench_config_free(&cfg);
}

static void test_stonewall_and_new_group_ids(void **state)
{
	(void)state;
	/* the first job's stonewall opens no group: there is nothing
	 * before it */
	check_groups((const char *[]){ "--name=a", "--stonewall", "--name=b",
				       "--name=c", "--stonewall", "--name=d",
				       "--new_group", "--name=e", NULL },
		     (const unsigned[]){ 0, 0, 1, 2, 2 }, 5);
	/* a global stonewall puts every job in its own group */
	check_groups((const char *[]){ "--stonewall", "--name=a", "--name=b",
				       "--name=c", NULL },
		     (const unsigned[]){ 0, 1, 2 }, 3);
	/* wait_for_previous is fio's alias of stonewall */
	check_groups((const char *[]){ "--name=a", "--name=b",
				       "--wait_for_previous", "--name=c",
				       "--stonewall=0", NULL },
		     (const unsigned[]){ 0, 1, 1 }, 3);
	/* without either everything is group 0 */
	check_groups((const char *[]){ "--name=a", "--name=b", "--name=c",
				       NULL },
		     (const unsigned[]){ 0, 0, 0 }, 3);
}

/* ---- run options ---- */

static unsigned format_of(const char *arg)
{
	struct bench_config cfg;
	unsigned mask;

	if (PARSE(&cfg, arg, "--name=a"))
		fail_msg("%s refused: %s", arg, err);
	mask = cfg.output_format;
	bench_config_free(&cfg);
	return mask;
}

static void test_output_format(void **state)
{
	struct bench_config cfg;

	(void)state;
	assert_int_equal(format_of("--output-format=normal"), OUTPUT_NORMAL);
	assert_int_equal(format_of("--output-format=json"), OUTPUT_JSON);
	assert_int_equal(format_of("--output-format=json+"), OUTPUT_JSONPLUS);
	assert_int_equal(format_of("--output-format=json,normal"),
			 OUTPUT_JSON | OUTPUT_NORMAL);
	assert_int_equal(format_of("--output-format=normal,json,"),
			 OUTPUT_JSON | OUTPUT_NORMAL);
	/* json+ includes json: asking for both prints it once */
	assert_int_equal(format_of("--output-format=json+,json"),
			 OUTPUT_JSONPLUS);
	assert_int_equal(format_of("--output-format=json,json+,normal"),
			 OUTPUT_JSONPLUS | OUTPUT_NORMAL);
	/* the last --output-format replaces the earlier one */
	PARSE_OK(&cfg, "--output-format=json", "--name=a",
		 "--output-format=normal");
	assert_int_equal(cfg.output_format, OUTPUT_NORMAL);
	bench_config_free(&cfg);

	/* terse: fio's --minimal, alone or beside the others */
	assert_int_equal(format_of("--output-format=terse"), OUTPUT_TERSE);
	assert_int_equal(format_of("--output-format=terse,json,normal"),
			 OUTPUT_TERSE | OUTPUT_JSON | OUTPUT_NORMAL);
	assert_int_equal(format_of("--minimal"), OUTPUT_TERSE);
	/* as fio: the later of --minimal and --output-format wins */
	PARSE_OK(&cfg, "--minimal", "--output-format=json", "--name=a");
	assert_int_equal(cfg.output_format, OUTPUT_JSON);
	assert_int_equal(cfg.terse_version, 3);
	bench_config_free(&cfg);
	PARSE_OK(&cfg, "--output-format=json", "--minimal", "--terse-version=5",
		 "--name=a");
	assert_int_equal(cfg.output_format, OUTPUT_TERSE);
	assert_int_equal(cfg.terse_version, 5);
	bench_config_free(&cfg);
	PARSE_BAD("bad terse version format", "--terse-version=6", "--name=a");
	PARSE_BAD("bad terse version format", "--terse-version=x", "--name=a");
	PARSE_BAD("xml", "--output-format=json,xml", "--name=a");
	PARSE_BAD("empty output-format", "--output-format=,,", "--name=a");
	PARSE_BAD("needs a value", "--output-format=", "--name=a");
	PARSE_BAD("needs a value", "--name=a", "--output-format");
}

static void test_output_eta_help_version(void **state)
{
	struct bench_config cfg;

	(void)state;
	PARSE_OK(&cfg, "--output=/tmp/x.json", "--eta=always", "--name=a");
	assert_string_equal(cfg.output, "/tmp/x.json");
	assert_int_equal(cfg.eta, ETA_ALWAYS);
	bench_config_free(&cfg);
	PARSE_OK(&cfg, "--eta=auto", "--name=a");
	assert_int_equal(cfg.eta, ETA_AUTO);
	bench_config_free(&cfg);
	PARSE_BAD("sometimes", "--eta=sometimes", "--name=a");
	PARSE_BAD("needs a value", "--name=a", "--output=");

	/* --help and --version need no job and skip the checks */
	PARSE_OK(&cfg, "--help");
	assert_true(cfg.help);
	assert_int_equal(cfg.nr_jobs, 0);
	bench_config_free(&cfg);
	PARSE_OK(&cfg, "-h");
	assert_true(cfg.help);
	bench_config_free(&cfg);
	PARSE_OK(&cfg, "--version");
	assert_true(cfg.version);
	bench_config_free(&cfg);
	PARSE_OK(&cfg, "--name=a", "--time_based", "--help");
	assert_true(cfg.help);
	assert_int_equal(cfg.nr_jobs, 1);
	bench_config_free(&cfg);
}

/* ---- errors: -1 and a message naming the bad token ---- */

static void test_errors_name_the_bad_token(void **state)
{
	char longkey[80];

	(void)state;
	PARSE_BAD("--nosuch", "--name=a", "--nosuch=1");
	PARSE_BAD("--bogus", "--bogus", "--name=a");
	PARSE_BAD("readx", "--name=a", "--rw=readx");
	PARSE_BAD("randrw postfix", "--name=a", "--rw=randread:0");
	PARSE_BAD("iodepth: '0' is too small", "--name=a", "--iodepth=0");
	PARSE_BAD("iodepth: '65537' is too large", "--name=a",
		  "--iodepth=65537");
	PARSE_BAD("iodepth", "--name=a", "--iodepth=99999999999999999999999");
	PARSE_BAD("numjobs: '0'", "--name=a", "--numjobs=0");
	PARSE_BAD("numjobs: '1025'", "--name=a", "--numjobs=1025");
	PARSE_BAD("loops: '0'", "--name=a", "--loops=0");
	PARSE_BAD("runtime: bad time unit in '10x'", "--name=a",
		  "--runtime=10x");
	PARSE_BAD("size: bad size suffix in '1q'", "--name=a", "--size=1q");
	PARSE_BAD("direct: bad boolean '2'", "--name=a", "--direct=2");
	PARSE_BAD("windowsaio", "--name=a", "--ioengine=windowsaio");
	PARSE_BAD("randseed", "--name=a", "--randseed=x");
	PARSE_BAD("filename: empty value", "--name=a", "--filename=");
	/* the job is named by the cross-option checks */
	PARSE_BAD("job7: time_based needs a runtime", "--name=job7",
		  "--time_based");
	PARSE_BAD("job7: ioengine=null", "--name=job7", "--ioengine=null",
		  "--filename=dev0");
	/* no job at all */
	PARSE_BAD("no job defined", "--bs=8k");
	PARSE_BAD("no job defined", "--output-format=json");
	{
		struct bench_config cfg;
		char prog[] = "bench", *argv[] = { prog, NULL };

		assert_int_equal(
			bench_parse_args(1, argv, &cfg, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "no job defined"));
		bench_config_free(&cfg);
	}
	/* names */
	PARSE_BAD("empty job name", "--name=");
	PARSE_BAD("name' needs a value", "--name");
	PARSE_BAD("too long", "--name=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	/* malformed options */
	PARSE_BAD("bad option '--'", "--");
	PARSE_BAD("bad option '--=x'", "--=x", "--name=a");
	memset(longkey, 'k', sizeof(longkey));
	memcpy(longkey, "--", 2);
	longkey[sizeof(longkey) - 1] = 0;
	PARSE_BAD("bad option '--kkkk", longkey, "--name=a");
	/* a bare argument is a job file */
	PARSE_BAD("no-such-dir/job.fio", "no-such-dir/job.fio");
}

/* The error path leaves nothing behind (ASan's leak check runs this). */
static void test_error_after_jobs_frees_cleanly(void **state)
{
	(void)state;
	PARSE_BAD("--nosuch", "--filename=null", "--description=g", "--name=a",
		  "--description=d", "--name=b", "--filename=null:size=1m",
		  "--nosuch");
	PARSE_BAD("time_based", "--filename=null", "--name=a", "--name=b",
		  "--time_based");
}

/* ---- job files named on the command line ---- */

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/mqblk-test-options-XXXXXX");
	FILE *f;
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void test_job_file_argument(void **state)
{
	struct bench_config cfg;
	char *path;
	int ret;

	(void)state;
	path = write_tmp("[global]\nrw=randread\n[f1]\n[f2]\nbs=16k\n");
	/* as fio (getopt first, job files after): command-line globals
	 * are the file's defaults; the command line's --name jobs come
	 * first, the file's after */
	ret = PARSE(&cfg, "--iodepth=4", "--bs=8k", "--name=a", path,
		    "--name=z");
	if (ret)
		fail_msg("refused: %s", err);
	assert_int_equal(cfg.nr_jobs, 4);
	assert_string_equal(cfg.jobs[0].name, "a");
	assert_string_equal(cfg.jobs[1].name, "z");
	assert_string_equal(cfg.jobs[2].name, "f1");
	assert_string_equal(cfg.jobs[3].name, "f2");
	assert_int_equal(cfg.jobs[0].rw, RW_READ);
	assert_int_equal(cfg.jobs[1].rw, RW_READ);
	assert_int_equal(cfg.jobs[2].rw, RW_RANDREAD);
	assert_int_equal(cfg.jobs[3].rw, RW_RANDREAD);
	assert_int_equal(cfg.jobs[2].iodepth, 4);
	assert_bs(&cfg.jobs[2], 8192, 8192, 8192);
	assert_bs(&cfg.jobs[3], 16384, 16384, 16384);
	assert_int_equal(cfg.jobs[1].iodepth, 4);
	bench_config_free(&cfg);

	/* globals after the file are its defaults too (seed 004's
	 * `fio 2vd.fio --bs=4k --iodepth=128 ...`); the file's own
	 * settings still win */
	ret = PARSE(&cfg, path, "--iodepth=8", "--bs=4k");
	if (ret)
		fail_msg("refused: %s", err);
	assert_int_equal(cfg.nr_jobs, 2);
	assert_int_equal(cfg.jobs[0].iodepth, 8);
	assert_bs(&cfg.jobs[0], 4096, 4096, 4096);
	assert_bs(&cfg.jobs[1], 16384, 16384, 16384);
	bench_config_free(&cfg);

	/* an error in the file names the file and line */
	unlink(path);
	free(path);
	path = write_tmp("[f1]\nbs=8k\nnosuchkey=1\n");
	PARSE_BAD(":3: unknown option 'nosuchkey'", "--name=a", path);
	PARSE_BAD(path, "--name=a", path);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_of_one_job),
		cmocka_unit_test(test_globals_before_name_apply_to_every_job),
		cmocka_unit_test(
			test_options_after_name_apply_to_that_job_only),
		cmocka_unit_test(
			test_later_value_wins_and_strings_are_replaced),
		cmocka_unit_test(test_key_space_value_form),
		cmocka_unit_test(test_single_dash_options),
		cmocka_unit_test(test_values_with_units_and_aliases),
		cmocka_unit_test(test_every_rw_name),
		cmocka_unit_test(test_bs_per_direction),
		cmocka_unit_test(test_bs_empty_field_keeps_the_global_value),
		cmocka_unit_test(test_bs_errors),
		cmocka_unit_test(test_bsrange),
		cmocka_unit_test(test_bsrange_errors),
		cmocka_unit_test(test_bssplit),
		cmocka_unit_test(test_bssplit_errors),
		cmocka_unit_test(
			test_bs_unaligned_seq_rand_and_verify_interval),
		cmocka_unit_test(test_rwmix),
		cmocka_unit_test(test_percentile_list),
		cmocka_unit_test(test_iodepth_batch_fixups),
		cmocka_unit_test(test_gtod_reduce_turns_off_percentiles),
		cmocka_unit_test(test_stonewall_and_new_group_ids),
		cmocka_unit_test(test_output_format),
		cmocka_unit_test(test_output_eta_help_version),
		cmocka_unit_test(test_errors_name_the_bad_token),
		cmocka_unit_test(test_rw_postfix),
		cmocka_unit_test(test_error_after_jobs_frees_cleanly),
		cmocka_unit_test(test_job_file_argument),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
