// SPDX-License-Identifier: MIT
/*
 * Unit tests of mqblk compare's statistics and reader (tools/compare/):
 * Student's t critical values against the printed table, Welch's test
 * against hand-computed cases, --threshold values, job matching, the
 * comparison's rows (cmp_rows), and what reading the reports with json-c
 * changes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"

/* The two-sided 95 % column of any t table, to its 3 decimals. */
static void test_t_crit(void **state)
{
	static const struct {
		double df, t;
	} table[] = {
		{ 1, 12.706 }, { 2, 4.303 },  { 3, 3.182 },  { 4, 2.776 },
		{ 5, 2.571 },  { 10, 2.228 }, { 30, 2.042 }, { 1e6, 1.960 },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		assert_true(fabs(cmp_t_crit95(table[i].df) - table[i].t) <
			    0.0006);
}

static void test_welch(void **state)
{
	const double a[] = { 10, 11, 12 }, b[] = { 13, 14, 15 };
	const double c[] = { 11, 12, 13 }, d[] = { 20, 24, 28, 32 };
	const double same[] = { 7, 7 }, other[] = { 8, 8 };
	double p;

	/* t = 3.674, df = 4, p = 0.0213 */
	assert_int_equal(cmp_welch(a, 3, b, 3, &p), 1);
	assert_true(fabs(p - 0.02131) < 1e-4);
	/* t = 1.225, df = 4, p = 0.2879 */
	assert_int_equal(cmp_welch(a, 3, c, 3, &p), 0);
	assert_true(fabs(p - 0.28786) < 1e-4);
	/* unequal variances: t = 5.669, df = 3.295, p = 0.00839 */
	assert_int_equal(cmp_welch(a, 3, d, 4, &p), 1);
	assert_true(fabs(p - 0.008393) < 1e-5);
	/* symmetric in the sides */
	assert_int_equal(cmp_welch(d, 4, a, 3, &p), 1);
	assert_true(fabs(p - 0.008393) < 1e-5);
	/* no spread: equal means are noise, different ones are not */
	assert_int_equal(cmp_welch(same, 2, same, 2, &p), 0);
	assert_true(p == 1);
	assert_int_equal(cmp_welch(same, 2, other, 2, &p), 1);
	assert_true(p == 0);
	/* identical samples with spread */
	assert_int_equal(cmp_welch(a, 3, a, 3, &p), 0);
	assert_true(fabs(p - 1) < 1e-12);
}

static void test_threshold(void **state)
{
	static const char *const bad[] = { "",	   "%",	    "-5",  "abc", "5%%",
					   "0x10", "1e3",   "nan", "inf", " 5",
					   "5 ",   "1.2.3", ".",   "5%5" };
	double v;
	size_t i;

	assert_int_equal(cmp_parse_threshold("5%", &v), 0);
	assert_true(v == 5);
	assert_int_equal(cmp_parse_threshold("5", &v), 0);
	assert_true(v == 5);
	assert_int_equal(cmp_parse_threshold("2.5%", &v), 0);
	assert_true(v == 2.5);
	assert_int_equal(cmp_parse_threshold("0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(cmp_parse_threshold(".5", &v), 0);
	assert_true(v == 0.5);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(cmp_parse_threshold(bad[i], &v), -1);
}

/* Clones of a job (same name and group) match by their order; leading
 * text is skipped, line numbers in errors still count it. */
static void test_load(void **state)
{
	static const char two[] =
		"note: a warning\n"
		"{\"jobs\": [{\"jobname\": \"c\", \"groupid\": 1,"
		" \"read\": {\"total_ios\": 5, \"iops\": 100,"
		" \"clat_ns\": {\"mean\": 2000, \"percentile\":"
		" {\"99.000000\": 3000}}}},"
		" {\"jobname\": \"c\", \"groupid\": 1,"
		" \"read\": {\"total_ios\": 5, \"iops\": 50}}]}";
	static const char broken[] = "note: x\nnote: y\n{\"jobs\": [}";
	struct cmp_run run;
	char err[256];

	assert_int_equal(cmp_run_load_buf(&run, "t", two, strlen(two), err,
					  sizeof(err)),
			 0);
	assert_int_equal(run.nr_jobs, 2);
	assert_int_equal(run.jobs[0].ordinal, 0);
	assert_int_equal(run.jobs[1].ordinal, 1);
	assert_int_equal(run.jobs[0].groupid, 1);
	assert_true(run.jobs[0].dir[CMP_READ].io);
	assert_true(run.jobs[0].dir[CMP_READ].val[CMP_IOPS] == 100);
	assert_true(run.jobs[1].dir[CMP_READ].val[CMP_IOPS] == 50);
	assert_true(run.jobs[0].dir[CMP_READ].have[CMP_CLAT_P99]);
	assert_false(run.jobs[0].dir[CMP_READ].have[CMP_CLAT_P9999]);
	assert_false(run.jobs[0].dir[CMP_WRITE].io);
	cmp_run_free(&run);

	assert_int_equal(cmp_run_load_buf(&run, "b", broken, strlen(broken),
					  err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "b: not JSON: 3:"));
}

/* cmp_rows: a row per metric of each job and direction that did I/O on
 * either side, in base[0]'s order, with the change, the test and the
 * threshold's verdict. */
struct rows_seen {
	struct cmp_row row[16];
	int nr;
};

static int keep_row(const struct cmp_row *row, void *arg)
{
	struct rows_seen *rs = arg;

	if (rs->nr < 16)
		rs->row[rs->nr] = *row;
	rs->nr++;
	return 0;
}

static void load_iops(struct cmp_run *run, double read_iops, double write_iops)
{
	char buf[512], err[256];
	int n;

	n = snprintf(buf, sizeof(buf),
		     "{\"jobs\": [{\"jobname\": \"j\", \"read\": "
		     "{\"total_ios\": 9, \"iops\": %g, \"clat_ns\": "
		     "{\"mean\": 1000}}, \"write\": {\"total_ios\": %d, "
		     "\"iops\": %g}}]}",
		     read_iops, write_iops > 0 ? 9 : 0, write_iops);
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	assert_int_equal(cmp_run_load_buf(run, "r", buf, (size_t)n, err,
					  sizeof(err)),
			 0);
}

static void test_rows(void **state)
{
	struct cmp_run base[3], news[3];
	struct rows_seen rs = { .nr = 0 };
	char err[256];
	int i;

	/* 10, 11, 12 against 13, 14, 15 reads; no writes on either side */
	for (i = 0; i < 3; i++) {
		load_iops(&base[i], 10 + i, 0);
		load_iops(&news[i], 13 + i, 0);
	}
	assert_int_equal(cmp_rows(base, 3, news, 3, 5, keep_row, &rs, err,
				  sizeof(err)),
			 0);
	/* read only: iops, bw, clat mean, p99, p99.99 */
	assert_int_equal(rs.nr, CMP_NR_METRICS);
	assert_int_equal(rs.row[0].dir, CMP_READ);
	assert_int_equal(rs.row[0].metric, CMP_IOPS);
	assert_true(rs.row[0].base == 11 && rs.row[0].new_val == 14);
	assert_true(rs.row[0].have_pct &&
		    fabs(rs.row[0].pct - 300.0 / 11) < 1e-9);
	assert_true(rs.row[0].tested && rs.row[0].significant);
	assert_true(fabs(rs.row[0].p - 0.02131) < 1e-4);
	assert_false(rs.row[0].regression); /* better */
	/* no bw in these reports: no value on either side */
	assert_int_equal(rs.row[1].nr_base, 0);
	assert_false(rs.row[1].have_pct);
	/* the same latency everywhere: tested, not significant */
	assert_int_equal(rs.row[2].metric, CMP_CLAT_MEAN);
	assert_true(rs.row[2].tested && !rs.row[2].significant);

	/* the other way round: a significant drop past 5 % */
	rs.nr = 0;
	assert_int_equal(cmp_rows(news, 3, base, 3, 5, keep_row, &rs, err,
				  sizeof(err)),
			 1);
	assert_true(rs.row[0].regression);
	/* past 30 % it is not */
	rs.nr = 0;
	assert_int_equal(cmp_rows(news, 3, base, 3, 30, keep_row, &rs, err,
				  sizeof(err)),
			 0);

	/* one run a side: not tested, and any drop past the threshold
	 * counts; writes on the new side only still get their rows */
	cmp_run_free(&news[0]);
	load_iops(&news[0], 10, 5);
	rs.nr = 0;
	assert_int_equal(cmp_rows(&base[2], 1, &news[0], 1, 5, keep_row, &rs,
				  err, sizeof(err)),
			 1);
	assert_int_equal(rs.nr, 2 * CMP_NR_METRICS);
	assert_false(rs.row[0].tested);
	assert_true(rs.row[0].significant && rs.row[0].regression);
	assert_int_equal(rs.row[CMP_NR_METRICS].dir, CMP_WRITE);
	assert_int_equal(rs.row[CMP_NR_METRICS].nr_base, 1);
	assert_true(rs.row[CMP_NR_METRICS].base == 0);
	/* base IOPS 0, new 5: no finite change */
	assert_false(rs.row[CMP_NR_METRICS].have_pct);

	for (i = 0; i < 3; i++) {
		cmp_run_free(&base[i]);
		cmp_run_free(&news[i]);
	}
}

/* What reading with json-c changes: json-c alone would keep the second
 * of two equal keys and clamp integers beyond int64; the reader refuses
 * the first and takes the second as the number it is. */
static void test_load_strict(void **state)
{
	static const char dup[] =
		"{\"jobs\": [{\"jobname\": \"c\",\n"
		" \"read\": {\"total_ios\": 5, \"iops\": 100, \"iops\": 1}}]}";
	static const char big[] =
		"{\"jobs\": [{\"jobname\": \"c\", \"read\": {\"total_ios\": "
		"18446744073709551616, \"iops\": 18446744073709551616}}]}";
	static const char big_group[] =
		"{\"jobs\": [{\"jobname\": \"c\", \"groupid\": "
		"9223372036854775808}]}";
	static const char null_iops[] =
		"{\"jobs\": [{\"jobname\": \"c\", \"read\": {\"iops\": null}}]}";
	struct cmp_run run;
	char err[256];

	(void)state;
	assert_int_equal(cmp_run_load_buf(&run, "d", dup, strlen(dup), err,
					  sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "d: not JSON: 2:40: duplicate key "
				    "\"iops\""));
	assert_int_equal(cmp_run_load_buf(&run, "b", big, strlen(big), err,
					  sizeof(err)),
			 0);
	assert_true(run.jobs[0].dir[CMP_READ].val[CMP_IOPS] ==
		    18446744073709551616.0);
	cmp_run_free(&run);
	assert_int_equal(cmp_run_load_buf(&run, "g", big_group,
					  strlen(big_group), err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "g: jobs[0].groupid is not an integer"));
	/* null is there, not absent: refused like any other non-number */
	assert_int_equal(cmp_run_load_buf(&run, "n", null_iops,
					  strlen(null_iops), err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "n: jobs[0].read.iops"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_crit),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_load_strict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
