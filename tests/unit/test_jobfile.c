// SPDX-License-Identifier: MIT
/*
 * Unit tests of fio job files (src/bench/jobfile.c), from memory through
 * fmemopen and from real files: [global] sections, comments, spacing, bare
 * booleans, ${VAR} and $ncpus, the defaults passed in from the command
 * line, and an error naming file:line for each malformed input.
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

static char err[512];

/* Parse len bytes of text as job file "test.fio" into a fresh cfg. */
static int parse_mem(const char *text, size_t len,
		     const struct bench_job *defaults, struct bench_config *cfg)
{
	struct bench_job dflt;
	FILE *f;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	bench_job_defaults(&dflt);
	/* glibc reads a zero-length buffer as an empty stream */
	f = fmemopen((void *)text, len, "r");
	assert_non_null(f);
	memset(err, 0, sizeof(err));
	ret = bench_parse_jobfile_stream(f, "test.fio",
					 defaults ? defaults : &dflt, cfg, err,
					 sizeof(err));
	fclose(f);
	return ret;
}

static void parse_ok(const char *text, struct bench_config *cfg)
{
	if (parse_mem(text, strlen(text), NULL, cfg))
		fail_msg("refused: %s\n--- input ---\n%s", err, text);
}

/* Must fail with an error that contains want. */
static void parse_bad_len(const char *text, size_t len, const char *want)
{
	struct bench_config cfg;
	int ret = parse_mem(text, len, NULL, &cfg);

	bench_config_free(&cfg);
	if (ret != -1)
		fail_msg("accepted (%d), wanted an error with '%s'", ret, want);
	if (!strstr(err, want))
		fail_msg("error '%s' does not say '%s'", err, want);
	if (strncmp(err, "test.fio:", 9))
		fail_msg("error '%s' does not start with the file name", err);
}

static void parse_bad(const char *text, const char *want)
{
	parse_bad_len(text, strlen(text), want);
}

static const struct bench_job *job_named(const struct bench_config *cfg,
					 const char *name)
{
	unsigned i;

	for (i = 0; i < cfg->nr_jobs; i++)
		if (!strcmp(cfg->jobs[i].name, name))
			return &cfg->jobs[i];
	fail_msg("no job '%s'", name);
	return NULL;
}

/* ---- sections ---- */

static void test_global_then_jobs(void **state)
{
	struct bench_config cfg;
	const struct bench_job *a, *b;

	(void)state;
	parse_ok("[global]\n"
		 "rw=randread\n"
		 "bs=8k\n"
		 "filename=null:size=1g\n"
		 "\n"
		 "[job1]\n"
		 "iodepth=4\n"
		 "\n"
		 "[job2]\n"
		 "bs=16k\n",
		 &cfg);
	assert_int_equal(cfg.nr_jobs, 2);
	assert_string_equal(cfg.jobs[0].name, "job1");
	assert_string_equal(cfg.jobs[1].name, "job2");
	a = &cfg.jobs[0];
	b = &cfg.jobs[1];
	assert_int_equal(a->rw, RW_RANDREAD);
	assert_int_equal(b->rw, RW_RANDREAD);
	assert_int_equal(a->bs[DDIR_READ], 8192);
	assert_int_equal(a->bs[DDIR_TRIM], 8192);
	assert_int_equal(b->bs[DDIR_READ], 16384);
	assert_int_equal(a->iodepth, 4);
	assert_int_equal(b->iodepth, 1);
	assert_string_equal(a->filename, "null:size=1g");
	assert_string_equal(b->filename, "null:size=1g");
	assert_ptr_not_equal(a->filename, b->filename);
	bench_config_free(&cfg);
}

static void test_later_global_affects_only_later_jobs(void **state)
{
	struct bench_config cfg;

	(void)state;
	parse_ok("[global]\nbs=8k\n"
		 "[a]\n"
		 "[global]\niodepth=8\n"
		 "[b]\n"
		 "[global]\nbs=2k\n"
		 "[c]\niodepth=2\n",
		 &cfg);
	assert_int_equal(cfg.nr_jobs, 3);
	assert_int_equal(job_named(&cfg, "a")->iodepth, 1);
	assert_int_equal(job_named(&cfg, "a")->bs[DDIR_READ], 8192);
	assert_int_equal(job_named(&cfg, "b")->iodepth, 8);
	assert_int_equal(job_named(&cfg, "b")->bs[DDIR_READ], 8192);
	/* a later [global] adds to the earlier ones, it does not reset */
	assert_int_equal(job_named(&cfg, "c")->iodepth, 2);
	assert_int_equal(job_named(&cfg, "c")->bs[DDIR_READ], 2048);
	bench_config_free(&cfg);

	/* options of a job stay in that job */
	parse_ok("[a]\nbs=64k\nrw=write\n[b]\n", &cfg);
	assert_int_equal(job_named(&cfg, "b")->bs[DDIR_READ], 4096);
	assert_int_equal(job_named(&cfg, "b")->rw, RW_READ);
	bench_config_free(&cfg);
}

static void test_no_global_section(void **state)
{
	struct bench_config cfg;

	(void)state;
	parse_ok("[only]\nrw=randwrite\n", &cfg);
	assert_int_equal(cfg.nr_jobs, 1);
	assert_string_equal(cfg.jobs[0].name, "only");
	assert_int_equal(cfg.jobs[0].rw, RW_RANDWRITE);
	assert_int_equal(cfg.jobs[0].iodepth, 1);
	bench_config_free(&cfg);
}

/* ---- syntax ---- */

static void test_comments(void **state)
{
	struct bench_config cfg;
	const struct bench_job *j;

	(void)state;
	parse_ok("; fio job file\n"
		 "# another comment\n"
		 "   ; indented comment\n"
		 "[global]   # comment after a header\n"
		 "bs=8k ; note\n"
		 "[a]\n"
		 "\t# tab then comment\n"
		 "rw=write# no blank before it\n"
		 "description=hello;world\n"
		 "; iodepth=64\n"
		 "#iodepth=32\n",
		 &cfg);
	assert_int_equal(cfg.nr_jobs, 1);
	j = &cfg.jobs[0];
	assert_string_equal(j->name, "a");
	assert_int_equal(j->bs[DDIR_WRITE], 8192);
	assert_int_equal(j->rw, RW_WRITE);
	/* fio (measured, 3.33) cuts a value at ';' or '#' too */
	assert_string_equal(j->description, "hello");
	assert_int_equal(j->iodepth, 1);
	bench_config_free(&cfg);
}

static void test_spacing_and_line_endings(void **state)
{
	struct bench_config cfg;
	const struct bench_job *j;

	(void)state;
	parse_ok("  [ spaced ]  \n"
		 "bs   =   8k   \n"
		 "\trw\t=\trandwrite\t\n"
		 "iodepth= 4\n"
		 "numjobs =2\n"
		 "description = two words \n",
		 &cfg);
	j = &cfg.jobs[0];
	assert_string_equal(j->name, "spaced");
	assert_int_equal(j->bs[DDIR_READ], 8192);
	assert_int_equal(j->rw, RW_RANDWRITE);
	assert_int_equal(j->iodepth, 4);
	assert_int_equal(j->numjobs, 2);
	assert_string_equal(j->description, "two words");
	bench_config_free(&cfg);

	/* CRLF files and a last line without a newline */
	parse_ok("[global]\r\nbs=16k\r\n\r\n[w]\r\nrw=write\r\niodepth=3",
		 &cfg);
	j = &cfg.jobs[0];
	assert_string_equal(j->name, "w");
	assert_int_equal(j->bs[DDIR_READ], 16384);
	assert_int_equal(j->rw, RW_WRITE);
	assert_int_equal(j->iodepth, 3);
	bench_config_free(&cfg);
}

static void test_bare_boolean_keys(void **state)
{
	struct bench_config cfg;
	const struct bench_job *a, *b;

	(void)state;
	parse_ok("[global]\n"
		 "direct\n"
		 "group_reporting\n"
		 "[a]\n"
		 "time_based\n"
		 "runtime=5\n"
		 "hipri\n"
		 "norandommap\n"
		 "[b]\n"
		 "direct=0\n"
		 "randrepeat=false\n"
		 "stonewall\n",
		 &cfg);
	a = job_named(&cfg, "a");
	b = job_named(&cfg, "b");
	assert_true(a->direct);
	assert_true(a->group_reporting);
	assert_true(a->time_based);
	assert_int_equal(a->runtime_ns, 5 * SEC);
	assert_true(a->hipri);
	assert_true(a->norandommap);
	assert_true(a->randrepeat);
	assert_false(b->direct);
	assert_true(b->group_reporting);
	assert_false(b->time_based);
	assert_false(b->hipri);
	assert_false(b->randrepeat);
	assert_true(b->stonewall);
	bench_config_free(&cfg);

	/* a bare key that needs a value, an empty boolean */
	parse_bad("[a]\nbs\n", "test.fio:2: option 'bs' needs a value");
	parse_bad("[a]\ndirect=\n", "test.fio:2: direct: bad boolean");
}

/* ---- variables ---- */

static void test_environment_variables(void **state)
{
	struct bench_config cfg;
	const struct bench_job *j;

	(void)state;
	assert_int_equal(setenv("MQBLK_TEST_BS", "16k", 1), 0);
	assert_int_equal(setenv("MQBLK_TEST_KEY", "iodepth", 1), 0);
	assert_int_equal(setenv("MQBLK_TEST_RW", "rand", 1), 0);
	parse_ok("[a]\n"
		 "bs=${MQBLK_TEST_BS}\n"
		 "${MQBLK_TEST_KEY}=12\n"
		 "rw=${MQBLK_TEST_RW}write\n"
		 "description=${MQBLK_TEST_BS}-${MQBLK_TEST_RW}\n",
		 &cfg);
	j = &cfg.jobs[0];
	assert_int_equal(j->bs[DDIR_READ], 16384);
	assert_int_equal(j->iodepth, 12);
	assert_int_equal(j->rw, RW_RANDWRITE);
	assert_string_equal(j->description, "16k-rand");
	bench_config_free(&cfg);

	/* the value changes, so does the job */
	assert_int_equal(setenv("MQBLK_TEST_BS", "2k", 1), 0);
	parse_ok("[a]\nbs=${MQBLK_TEST_BS}\n", &cfg);
	assert_int_equal(cfg.jobs[0].bs[DDIR_READ], 2048);
	bench_config_free(&cfg);

	/* a set but empty variable expands to nothing */
	assert_int_equal(setenv("MQBLK_TEST_EMPTY", "", 1), 0);
	parse_ok("[a]\ndescription=x${MQBLK_TEST_EMPTY}y\n", &cfg);
	assert_string_equal(cfg.jobs[0].description, "xy");
	bench_config_free(&cfg);

	unsetenv("MQBLK_TEST_BS");
	unsetenv("MQBLK_TEST_KEY");
	unsetenv("MQBLK_TEST_RW");
	unsetenv("MQBLK_TEST_EMPTY");
}

static void test_builtin_variables(void **state)
{
	struct bench_config cfg;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	long pagesize = sysconf(_SC_PAGESIZE);

	(void)state;
	assert_true(ncpus >= 1 && ncpus <= 1024);
	parse_ok("[a]\nnumjobs=$ncpus\nbs=$pagesize\n"
		 "description=$ncpus cpus\n",
		 &cfg);
	assert_int_equal(cfg.jobs[0].numjobs, ncpus);
	assert_int_equal(cfg.jobs[0].bs[DDIR_READ], pagesize);
	{
		char want[64];

		snprintf(want, sizeof(want), "%ld cpus", ncpus);
		assert_string_equal(cfg.jobs[0].description, want);
	}
	bench_config_free(&cfg);

	/* ${ncpus} works too when no such environment variable is set */
	unsetenv("ncpus");
	parse_ok("[a]\nnumjobs=${ncpus}\n", &cfg);
	assert_int_equal(cfg.jobs[0].numjobs, ncpus);
	bench_config_free(&cfg);

	/* $mb_memory expands to a number */
	parse_ok("[a]\ndescription=$mb_memory\n", &cfg);
	assert_true(atol(cfg.jobs[0].description) > 0);
	bench_config_free(&cfg);
}

static void test_variable_errors(void **state)
{
	(void)state;
	unsetenv("MQBLK_TEST_UNSET");
	parse_bad("[a]\nbs=${MQBLK_TEST_UNSET}\n",
		  "test.fio:2: environment variable 'MQBLK_TEST_UNSET' is not "
		  "set");
	parse_bad("[a]\n\nbs=$bogus\n", "test.fio:3: unknown variable");
	parse_bad("[a]\nbs=$\n", "test.fio:2: unknown variable");
	parse_bad("[a]\nbs=${MQBLK_TEST_BS\n", "test.fio:2: unterminated '${'");
	parse_bad("[a]\nbs=${}\n", "test.fio:2: bad variable name");
}

/* ---- errors name file:line ---- */

static void test_unknown_key(void **state)
{
	(void)state;
	parse_bad("[a]\nbs=4k\nnosuchkey=1\n",
		  "test.fio:3: unknown option 'nosuchkey'");
	parse_bad("[global]\nnosuchkey\n[a]\n",
		  "test.fio:2: unknown option 'nosuchkey'");
	/* a bad value names its key and the line */
	parse_bad("[a]\n\n\nbs=4q\n",
		  "test.fio:4: bs: bad size suffix in '4q'");
	parse_bad("[a]\nbs=4q\n", "4q");
	parse_bad("[a]\nrw=readx\n", "test.fio:2: unknown rw 'readx'");
	parse_bad("[a]\niodepth=0\n", "test.fio:2: iodepth: '0' is too small");
	parse_bad("[a]\ninclude other.fio\n",
		  "test.fio:2: 'include' is not supported");
	parse_bad("[a]\ninclude=other.fio\n", "test.fio:2: 'include'");
	parse_bad("[a]\nincludes=1\n", "test.fio:2: unknown option 'includes'");
	parse_bad("[a]\n=4k\n", "test.fio:2: missing option name");
}

static void test_option_outside_a_section(void **state)
{
	(void)state;
	parse_bad("bs=4k\n[a]\n", "test.fio:1: option 'bs=4k' outside");
	parse_bad("; comment\n\ndirect\n[a]\n", "test.fio:3: option 'direct'");
}

static void test_bad_section_headers(void **state)
{
	(void)state;
	parse_bad("[global\nbs=4k\n[a]\n",
		  "test.fio:1: unterminated section header '[global'");
	parse_bad("[a]\n[b\n", "test.fio:2: unterminated");
	parse_bad("[a] x\n", "test.fio:1: text after section header");
	parse_bad("[]\n", "test.fio:1: empty section name");
	parse_bad("[   ]\n", "test.fio:1: empty section name");
	parse_bad(
		"[xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxx]\n",
		"test.fio:1: job name");
}

static void test_no_job(void **state)
{
	(void)state;
	parse_bad("", "empty job file: no job defined");
	parse_bad("\n\n; only comments\n# here\n", "no job defined");
	parse_bad("[global]\nbs=4k\n", "no job section (only [global])");
	parse_bad("[global]\n[global]\n", "only [global]");
}

static void test_nul_byte(void **state)
{
	static const char text[] = "[a]\nbs=4k\0junk\niodepth=2\n";

	(void)state;
	parse_bad_len(text, sizeof(text) - 1, "test.fio:2: NUL byte");
	parse_bad_len("\0", 1, "test.fio:1: NUL byte");
}

static void test_line_length_limit(void **state)
{
	static const char prefix[] = "[a]\ndescription=";
	struct bench_config cfg;
	size_t plen = strlen(prefix), vlen;
	char *text;

	(void)state;
	/* 4095 bytes with the newline is the longest line */
	vlen = 4094 - strlen("description=");
	text = malloc(plen + vlen + 16);
	assert_non_null(text);
	memcpy(text, prefix, plen);
	memset(text + plen, 'x', vlen);
	strcpy(text + plen + vlen, "\n");
	parse_ok(text, &cfg);
	assert_int_equal(strlen(cfg.jobs[0].description), vlen);
	bench_config_free(&cfg);

	/* one more byte is refused */
	text[plen + vlen] = 'x';
	strcpy(text + plen + vlen + 1, "\n");
	parse_bad(text, "test.fio:2: line longer than 4095 bytes");
	free(text);

	/* far longer, without a newline */
	text = malloc(100001);
	assert_non_null(text);
	memcpy(text, "[a]\n", 4);
	memset(text + 4, 'y', 100000 - 4);
	text[100000] = 0;
	parse_bad(text, "test.fio:2: line longer");
	free(text);
}

static void test_expansion_too_long(void **state)
{
	char *big, *text;

	(void)state;
	big = malloc(3001);
	assert_non_null(big);
	memset(big, 'v', 3000);
	big[3000] = 0;
	assert_int_equal(setenv("MQBLK_TEST_BIG", big, 1), 0);
	text = "[a]\ndescription=${MQBLK_TEST_BIG}${MQBLK_TEST_BIG}\n";
	parse_bad(text, "test.fio:2: line too long after expansion");
	unsetenv("MQBLK_TEST_BIG");
	free(big);
}

/* ---- command-line defaults ---- */

static void test_defaults_are_inherited_and_overridden(void **state)
{
	struct bench_config cfg;
	struct bench_job dflt;
	const struct bench_job *a, *b, *c;
	char *filename;
	static const char text[] = "[a]\n"
				   "[b]\n"
				   "iodepth=2\n"
				   "filename=null:size=2g\n"
				   "[global]\n"
				   "rw=read\n"
				   "direct=0\n"
				   "[c]\n";

	(void)state;
	bench_job_defaults(&dflt);
	dflt.bs[DDIR_READ] = dflt.bs[DDIR_WRITE] = dflt.bs[DDIR_TRIM] = 8192;
	dflt.iodepth = 16;
	dflt.rw = RW_RANDWRITE;
	dflt.direct = true;
	filename = strdup("null:size=1g");
	assert_non_null(filename);
	dflt.filename = filename;

	assert_int_equal(parse_mem(text, strlen(text), &dflt, &cfg), 0);
	assert_int_equal(cfg.nr_jobs, 3);
	a = job_named(&cfg, "a");
	b = job_named(&cfg, "b");
	c = job_named(&cfg, "c");
	assert_int_equal(a->iodepth, 16);
	assert_int_equal(a->bs[DDIR_WRITE], 8192);
	assert_int_equal(a->rw, RW_RANDWRITE);
	assert_true(a->direct);
	assert_string_equal(a->filename, "null:size=1g");
	/* a copy, not the caller's string */
	assert_ptr_not_equal(a->filename, filename);
	assert_int_equal(b->iodepth, 2);
	assert_string_equal(b->filename, "null:size=2g");
	assert_int_equal(b->rw, RW_RANDWRITE);
	assert_int_equal(c->rw, RW_READ);
	assert_false(c->direct);
	assert_int_equal(c->iodepth, 16);
	assert_int_equal(c->bs[DDIR_READ], 8192);
	bench_config_free(&cfg);

	/* the defaults themselves are untouched */
	assert_ptr_equal(dflt.filename, filename);
	assert_string_equal(dflt.filename, "null:size=1g");
	assert_int_equal(dflt.iodepth, 16);
	assert_int_equal(dflt.rw, RW_RANDWRITE);
	assert_true(dflt.direct);
	bench_job_free(&dflt);
}

static void test_jobs_append_to_config(void **state)
{
	struct bench_config cfg;
	struct bench_job dflt;
	FILE *f;
	static const char more[] = "[c]\n[d]\n";
	static const char only_global[] = "[global]\nbs=4k\n";

	(void)state;
	parse_ok("[a]\n[b]\n", &cfg);
	bench_job_defaults(&dflt);
	f = fmemopen((void *)more, strlen(more), "r");
	assert_non_null(f);
	assert_int_equal(bench_parse_jobfile_stream(f, "more.fio", &dflt, &cfg,
						    err, sizeof(err)),
			 0);
	fclose(f);
	assert_int_equal(cfg.nr_jobs, 4);
	assert_string_equal(cfg.jobs[0].name, "a");
	assert_string_equal(cfg.jobs[3].name, "d");

	/* a second file without jobs is an error even though cfg has some */
	f = fmemopen((void *)only_global, strlen(only_global), "r");
	assert_non_null(f);
	assert_int_equal(bench_parse_jobfile_stream(f, "g.fio", &dflt, &cfg,
						    err, sizeof(err)),
			 -1);
	fclose(f);
	assert_non_null(strstr(err, "g.fio:"));
	assert_non_null(strstr(err, "only [global]"));
	bench_config_free(&cfg);
}

static void test_finish_after_jobfile(void **state)
{
	struct bench_config cfg;

	(void)state;
	parse_ok("[global]\niodepth=8\n"
		 "[a]\n[b]\nstonewall\n[c]\n[d]\nnew_group\niodepth_low=2\n",
		 &cfg);
	assert_int_equal(bench_config_finish(&cfg, err, sizeof(err)), 0);
	assert_int_equal(job_named(&cfg, "a")->groupid, 0);
	assert_int_equal(job_named(&cfg, "b")->groupid, 1);
	assert_int_equal(job_named(&cfg, "c")->groupid, 1);
	assert_int_equal(job_named(&cfg, "d")->groupid, 2);
	assert_int_equal(job_named(&cfg, "a")->iodepth_low, 8);
	assert_int_equal(job_named(&cfg, "d")->iodepth_low, 2);
	bench_config_free(&cfg);

	parse_ok("[x]\ntime_based\n", &cfg);
	assert_int_equal(bench_config_finish(&cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "x: time_based needs a runtime"));
	bench_config_free(&cfg);
}

/* ---- real files ---- */

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/mqblk-test-jobfile-XXXXXX");
	FILE *f;
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void test_real_file(void **state)
{
	struct bench_config cfg;
	struct bench_job dflt;
	char *path, want[128];

	(void)state;
	bench_job_defaults(&dflt);
	dflt.numjobs = 2;
	path = write_tmp("[global]\nioengine=null\nrw=randrw\nrwmixwrite=25\n"
			 "\n[r1]\nbs=4k,8k\n[r2]\n");
	memset(&cfg, 0, sizeof(cfg));
	if (bench_parse_jobfile(path, &dflt, &cfg, err, sizeof(err)))
		fail_msg("refused: %s", err);
	assert_int_equal(cfg.nr_jobs, 2);
	assert_string_equal(cfg.jobs[0].name, "r1");
	assert_string_equal(cfg.jobs[0].ioengine, "null");
	assert_int_equal(cfg.jobs[0].rw, RW_RANDRW);
	assert_int_equal(cfg.jobs[0].rwmixread, 75);
	assert_int_equal(cfg.jobs[0].bs[DDIR_READ], 4096);
	assert_int_equal(cfg.jobs[0].bs[DDIR_WRITE], 8192);
	assert_int_equal(cfg.jobs[1].numjobs, 2);
	bench_config_free(&cfg);
	unlink(path);
	free(path);

	/* errors carry the real path */
	path = write_tmp("[a]\nbs=4k\n\nbogus=1\n");
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(
		bench_parse_jobfile(path, &dflt, &cfg, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:4: unknown option 'bogus'", path);
	assert_string_equal(err, want);
	bench_config_free(&cfg);
	unlink(path);

	/* a missing file */
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(
		bench_parse_jobfile(path, &dflt, &cfg, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "cannot open job file '%s'", path);
	assert_non_null(strstr(err, want));
	assert_int_equal(cfg.nr_jobs, 0);
	bench_config_free(&cfg);
	free(path);

	/* a directory opens but does not read */
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(
		bench_parse_jobfile("/tmp", &dflt, &cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/tmp"));
	bench_config_free(&cfg);
	bench_job_free(&dflt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_global_then_jobs),
		cmocka_unit_test(test_later_global_affects_only_later_jobs),
		cmocka_unit_test(test_no_global_section),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_spacing_and_line_endings),
		cmocka_unit_test(test_bare_boolean_keys),
		cmocka_unit_test(test_environment_variables),
		cmocka_unit_test(test_builtin_variables),
		cmocka_unit_test(test_variable_errors),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_option_outside_a_section),
		cmocka_unit_test(test_bad_section_headers),
		cmocka_unit_test(test_no_job),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_line_length_limit),
		cmocka_unit_test(test_expansion_too_long),
		cmocka_unit_test(test_defaults_are_inherited_and_overridden),
		cmocka_unit_test(test_jobs_append_to_config),
		cmocka_unit_test(test_finish_after_jobfile),
		cmocka_unit_test(test_real_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
