// SPDX-License-Identifier: MIT
/*
 * Unit tests of the report writers: report_normal's fio text layout and
 * report_json's fio JSON / JSON+ keys, nesting, values and number formats.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "bench/stats.h"

#define NS_PER_MS 1000000ull

/* ---- a small strict JSON reader, so the checks need no python ---- */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype type;
	char *text; /* J_STR: decoded string; J_NUM: the number as printed */
	double num;
	size_t nr;
	char **keys; /* J_OBJ */
	struct jv **items;
};

struct jparse {
	const char *p;
	unsigned depth;
};

static void jv_free(struct jv *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->nr; i++) {
		if (v->keys)
			free(v->keys[i]);
		jv_free(v->items[i]);
	}
	free(v->keys);
	free(v->items);
	free(v->text);
	free(v);
}

static void skip_ws(struct jparse *jp)
{
	while (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' ||
	       *jp->p == '\r')
		jp->p++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A JSON string at jp->p; returns it decoded (\u only below 0x80). */
static char *parse_string(struct jparse *jp)
{
	size_t cap = strlen(jp->p) + 1, n = 0;
	char *out;

	if (*jp->p != '"')
		return NULL;
	jp->p++;
	out = malloc(cap);
	if (!out)
		return NULL;
	while (*jp->p != '"') {
		unsigned char c = (unsigned char)*jp->p++;

		if (c < 0x20)
			goto bad; /* raw control characters are invalid */
		if (c != '\\') {
			out[n++] = (char)c;
			continue;
		}
		c = (unsigned char)*jp->p++;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			out[n++] = (char)c;
			break;
		case 'n':
			out[n++] = '\n';
			break;
		case 't':
			out[n++] = '\t';
			break;
		case 'r':
			out[n++] = '\r';
			break;
		case 'b':
			out[n++] = '\b';
			break;
		case 'f':
			out[n++] = '\f';
			break;
		case 'u': {
			int i, v = 0;

			for (i = 0; i < 4; i++) {
				int h = hexval(jp->p[i]);

				if (h < 0)
					goto bad;
				v = v * 16 + h;
			}
			if (v == 0 || v >= 0x80)
				goto bad;
			out[n++] = (char)v;
			jp->p += 4;
			break;
		}
		default:
			goto bad;
		}
	}
	jp->p++;
	out[n] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

static struct jv *parse_value(struct jparse *jp);

static int jv_push(struct jv *v, char *key, struct jv *item)
{
	struct jv **items = realloc(v->items, (v->nr + 1) * sizeof(*items));
	char **keys;

	if (!items)
		return -1;
	v->items = items;
	if (v->type == J_OBJ) {
		keys = realloc(v->keys, (v->nr + 1) * sizeof(*keys));
		if (!keys)
			return -1;
		v->keys = keys;
		v->keys[v->nr] = key;
	}
	v->items[v->nr++] = item;
	return 0;
}

static struct jv *parse_container(struct jparse *jp, struct jv *v)
{
	char close = v->type == J_OBJ ? '}' : ']';

	jp->p++;
	skip_ws(jp);
	if (*jp->p == close) {
		jp->p++;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct jv *item;

		skip_ws(jp);
		if (v->type == J_OBJ) {
			size_t i;

			key = parse_string(jp);
			if (!key)
				goto bad;
			/* fio never repeats a key; neither may we */
			for (i = 0; i < v->nr; i++)
				if (!strcmp(v->keys[i], key)) {
					free(key);
					goto bad;
				}
			skip_ws(jp);
			if (*jp->p++ != ':') {
				free(key);
				goto bad;
			}
		}
		item = parse_value(jp);
		if (!item || jv_push(v, key, item)) {
			free(key);
			jv_free(item);
			goto bad;
		}
		skip_ws(jp);
		if (*jp->p == ',') {
			jp->p++;
			continue;
		}
		if (*jp->p++ != close)
			goto bad;
		return v;
	}
bad:
	jv_free(v);
	return NULL;
}

static struct jv *parse_number(struct jparse *jp, struct jv *v)
{
	const char *s = jp->p;

	if (*jp->p == '-')
		jp->p++;
	if (*jp->p == '0')
		jp->p++;
	else if (isdigit((unsigned char)*jp->p))
		while (isdigit((unsigned char)*jp->p))
			jp->p++;
	else
		goto bad;
	if (*jp->p == '.') {
		jp->p++;
		if (!isdigit((unsigned char)*jp->p))
			goto bad;
		while (isdigit((unsigned char)*jp->p))
			jp->p++;
	}
	if (*jp->p == 'e' || *jp->p == 'E') {
		jp->p++;
		if (*jp->p == '+' || *jp->p == '-')
			jp->p++;
		if (!isdigit((unsigned char)*jp->p))
			goto bad;
		while (isdigit((unsigned char)*jp->p))
			jp->p++;
	}
	v->type = J_NUM;
	v->text = strndup(s, (size_t)(jp->p - s));
	if (!v->text)
		goto bad;
	v->num = strtod(v->text, NULL);
	return v;
bad:
	jv_free(v);
	return NULL;
}

static struct jv *parse_value(struct jparse *jp)
{
	struct jv *v;

	skip_ws(jp);
	if (++jp->depth > 32)
		return NULL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	switch (*jp->p) {
	case '{':
		v->type = J_OBJ;
		v = parse_container(jp, v);
		break;
	case '[':
		v->type = J_ARR;
		v = parse_container(jp, v);
		break;
	case '"':
		v->type = J_STR;
		v->text = parse_string(jp);
		if (!v->text) {
			jv_free(v);
			v = NULL;
		}
		break;
	default:
		if (!strncmp(jp->p, "true", 4) || !strncmp(jp->p, "null", 4)) {
			v->type = *jp->p == 't' ? J_BOOL : J_NULL;
			jp->p += 4;
		} else if (!strncmp(jp->p, "false", 5)) {
			v->type = J_BOOL;
			jp->p += 5;
		} else {
			v = parse_number(jp, v);
		}
	}
	jp->depth--;
	return v;
}

/* The whole text must be one JSON value. */
static struct jv *json_parse(const char *text)
{
	struct jparse jp = { .p = text };
	struct jv *v = parse_value(&jp);

	if (!v)
		return NULL;
	skip_ws(&jp);
	if (*jp.p) {
		jv_free(v);
		return NULL;
	}
	return v;
}

static struct jv *jv_key(const struct jv *v, const char *key)
{
	size_t i;

	if (!v || v->type != J_OBJ)
		return NULL;
	for (i = 0; i < v->nr; i++)
		if (!strcmp(v->keys[i], key))
			return v->items[i];
	return NULL;
}

/* "jobs/0/read/clat_ns/percentile/99.000000": keys and array indexes. */
static struct jv *jv_path(const struct jv *root, const char *path)
{
	const struct jv *v = root;
	char buf[256], *save = NULL, *seg;

	snprintf(buf, sizeof(buf), "%s", path);
	for (seg = strtok_r(buf, "/", &save); seg && v;
	     seg = strtok_r(NULL, "/", &save)) {
		if (v->type == J_ARR) {
			char *end;
			unsigned long i = strtoul(seg, &end, 10);

			v = *end || i >= v->nr ? NULL : v->items[i];
		} else {
			v = jv_key(v, seg);
		}
	}
	return (struct jv *)v;
}

static double jnum(const struct jv *root, const char *path)
{
	const struct jv *v = jv_path(root, path);

	if (!v || v->type != J_NUM)
		fail_msg("%s: not a number", path);
	return v->num;
}

static const char *jraw(const struct jv *root, const char *path)
{
	const struct jv *v = jv_path(root, path);

	if (!v || v->type != J_NUM)
		fail_msg("%s: not a number", path);
	return v->text;
}

static const char *jstr(const struct jv *root, const char *path)
{
	const struct jv *v = jv_path(root, path);

	if (!v || v->type != J_STR)
		fail_msg("%s: not a string", path);
	return v->text;
}

/* The object at path has exactly these keys, in this order. */
static void assert_keys(const struct jv *root, const char *path,
			const char *const *keys, size_t nr)
{
	const struct jv *v = path ? jv_path(root, path) : root;
	const char *name = path ? path : "(top level)";
	size_t i;

	if (!v || v->type != J_OBJ)
		fail_msg("%s: not an object", name);
	for (i = 0; i < nr && i < v->nr; i++)
		if (strcmp(v->keys[i], keys[i]))
			fail_msg("%s: key %zu is \"%s\", want \"%s\"", name, i,
				 v->keys[i], keys[i]);
	if (v->nr != nr)
		fail_msg("%s: %zu keys, want %zu", name, v->nr, nr);
}

#define ASSERT_KEYS(root, path, ...)                                     \
	do {                                                             \
		static const char *const k_[] = { __VA_ARGS__ };         \
		assert_keys(root, path, k_, sizeof(k_) / sizeof(k_[0])); \
	} while (0)

/* fio's json.c prints doubles with "%f": digits, a dot, six decimals. */
static bool is_f6(const char *s)
{
	const char *dot = strchr(s, '.');

	return dot && strlen(dot + 1) == 6 &&
	       strspn(dot + 1, "0123456789") == 6;
}

static void test_json_reader_rejects_bad_input(void **state)
{
	static const char *const bad[] = {
		"",
		"{",
		"{\"a\" : 1,}",
		"[1 2]",
		"{\"a\" : 1, \"a\" : 2}",
		"\"x\ty\"",
		"01",
		"1.",
		"{} x",
		"nan",
		"\"\\u0000\"",
	};
	struct jv *v;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = json_parse(bad[i]);
		if (v)
			fail_msg("accepted bad JSON: %s", bad[i]);
	}
	v = json_parse(" {\"a\" : [1, -2.5e3, \"\\\"\\u0001\"], \"b\" : {}}\n");
	assert_non_null(v);
	assert_true(jnum(v, "a/1") == -2500.0);
	assert_string_equal(jstr(v, "a/2"), "\"\x01");
	jv_free(v);
}

/* ---- building reports by hand ---- */

struct fixture {
	struct bench_job jobs[4];
	struct job_stats *js[4];
	struct bench_config cfg;
	struct report r;
	char *text;
	struct jv *root;
};

static void job_init(struct bench_job *job, const char *name)
{
	unsigned d;

	memset(job, 0, sizeof(*job));
	snprintf(job->name, sizeof(job->name), "%s", name);
	job->rw = RW_RANDREAD;
	job->rwmixread = 50;
	for (d = 0; d < DDIR_NR; d++)
		job->bs[d] = 4096;
	job->size = 1ull << 30;
	job->iodepth = 4;
	job->numjobs = 1;
	job->runtime_ns = 1000 * NS_PER_MS;
	job->time_based = true;
	job->iodepth_batch_submit = 1;
	job->iodepth_batch_complete_min = 1;
	job->iodepth_batch_complete_max = 1; /* fio: = complete_min */
	job->iodepth_low = 4;
	job->randrepeat = true;
	job->clat_percentiles = true;
	job->loops = 1;
}

/*
 * One job thread that read 1000 x 4 KiB in exactly 1 s: slat 100 ns,
 * clat 1000 ns (bucket 1004), at depth 4; two bw samples of 3000 and
 * 5000 KiB/s, two iops samples of 800 and 1200.
 */
static struct job_stats *reader(const struct bench_job *job)
{
	struct job_stats *js = malloc(sizeof(*js));

	assert_non_null(js);
	stats_init(js, job);
	stats_add_io(js, DDIR_READ, 100, 1000, 1000 * 4096, 1000, true);
	js->dd[DDIR_READ].issued = 1000;
	js->dd[DDIR_READ].runtime_ns = 1000 * NS_PER_MS;
	js->runtime_ns = 1000 * NS_PER_MS;
	lat_stat_add(&js->dd[DDIR_READ].bw, 3000, 1);
	lat_stat_add(&js->dd[DDIR_READ].bw, 5000, 1);
	lat_stat_add(&js->dd[DDIR_READ].iops, 800, 1);
	lat_stat_add(&js->dd[DDIR_READ].iops, 1200, 1);
	js->depth_map[stats_depth_slot(4)] = 1000;
	js->submit_map[stats_batch_slot(1)] = 1000;
	js->total_submit = 1000;
	js->complete_map[stats_batch_slot(2)] = 500;
	js->total_complete = 500;
	js->usr_us = 250000;
	js->sys_us = 125999;
	js->ctx = 12;
	js->majf = 1;
	js->minf = 34;
	js->pid = 4242;
	js->mq.comp_local = 750;
	js->mq.comp_remote = 250;
	js->mq.comp_batched = 100;
	js->mq.comp_polled = 0;
	js->mq.comp_irq = 0;
	js->mq.wakeups = 11;
	js->mq.requeues = 2;
	js->mq.tag_waits = 3;
	js->mq.timeouts = 4;
	js->mq.errors = 5;
	js->mq.merges = 15;
	js->mq.dispatched = 17;
	js->mq.dispatch_runs = 6;
	js->mq.doorbells = 7;
	js->mq.sched_expired = 1;
	js->mq.dispatch_locks = 8;
	js->mq.dispatch_lock_contended = 2;
	js->mq.poll_budget_hits = 9;
	js->mq.tag_wait_ns = 12345;
	return js;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct timeval tv;

	if (!fx)
		return -1;
	job_init(&fx->jobs[0], "t");
	fx->js[0] = reader(&fx->jobs[0]);
	fx->cfg.jobs = fx->jobs;
	fx->cfg.nr_jobs = 1;
	fx->r.cfg = &fx->cfg;
	fx->r.jobs = fx->js;
	fx->r.nr_jobs = 1;
	fx->r.version = "mqblk-0.1.0";
	gettimeofday(&tv, NULL);
	fx->r.start_time_ms =
		(uint64_t)tv.tv_sec * 1000 + (uint64_t)tv.tv_usec / 1000;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	unsigned i;

	for (i = 0; i < 4; i++)
		free(fx->js[i]);
	free(fx->text);
	jv_free(fx->root);
	free(fx);
	return 0;
}

static const char *render_normal(struct fixture *fx)
{
	size_t len;
	FILE *f;

	free(fx->text);
	f = open_memstream(&fx->text, &len);
	assert_non_null(f);
	report_normal(f, &fx->r);
	assert_int_equal(fclose(f), 0);
	return fx->text;
}

static struct jv *render_json(struct fixture *fx, bool plus)
{
	size_t len;
	FILE *f;

	free(fx->text);
	jv_free(fx->root);
	f = open_memstream(&fx->text, &len);
	assert_non_null(f);
	report_json(f, &fx->r, plus);
	assert_int_equal(fclose(f), 0);
	fx->root = json_parse(fx->text);
	if (!fx->root)
		fail_msg("report_json wrote invalid JSON:\n%s", fx->text);
	return fx->root;
}

static void assert_has(const char *text, const char *what)
{
	if (!text)
		fail_msg("no report text");
	else if (!strstr(text, what))
		fail_msg("missing \"%s\" in:\n%s", what, text);
}

/* ---- report_normal ---- */

static void test_normal_job_block(void **state)
{
	struct fixture *fx = *state;
	const char *t = render_normal(fx);

	assert_true(t[0] == '\n');
	assert_has(t, "\nt: (groupid=0, jobs=1): err= 0: pid=4242: ");
	assert_has(t, "\n  read: IOPS=1000, BW=4000KiB/s (4096kB/s)"
		      "(4000KiB/1000msec)\n");
	assert_has(t, "\n    slat (nsec): min=100, max=100, avg=100.00, "
		      "stdev= 0.00\n");
	assert_has(t, "\n    clat (nsec): min=1000, max=1000, avg=1000.00, "
		      "stdev= 0.00\n");
	assert_has(t, "\n     lat (nsec): min=1100, max=1100, avg=1100.00, "
		      "stdev= 0.00\n");
	assert_has(t, "\n    clat percentiles (nsec):\n"
		      "     |  1.00th=[ 1004],  5.00th=[ 1004], "
		      "10.00th=[ 1004], 20.00th=[ 1004],\n");
	assert_has(t, "| 99.00th=[ 1004], 99.50th=[ 1004], 99.90th=[ 1004], "
		      "99.95th=[ 1004],\n     | 99.99th=[ 1004]\n");
	assert_has(t, "\n   bw (  KiB/s): min= 3000, max= 5000, "
		      "per=100.00%, avg=4000.00, stdev=1414.21, samples=2\n");
	assert_has(t, "\n   iops        : min=  800, max= 1200, avg=1000.00, "
		      "stdev=282.84, samples=2\n");
	assert_has(t, "\n  lat (usec)   : 2=100.00%\n");
	assert_has(t, "\n  cpu          : usr=25.00%, sys=12.50%, ctx=12, "
		      "majf=1, minf=34\n");
	assert_has(t, "\n  IO depths    : 1=0.0%, 2=0.0%, 4=100.0%, 8=0.0%, "
		      "16=0.0%, 32=0.0%, >=64=0.0%\n");
	assert_has(t, "\n     submit    : 0=0.0%, 4=100.0%, 8=0.0%, ");
	assert_has(t, "\n     issued rwts: total=1000,0,0,0 short=0,0,0,0 "
		      "dropped=0,0,0,0\n");
	assert_has(t, "\n     latency   : target=0, window=0, "
		      "percentile=100.00%, depth=4\n");
	assert_has(t, "\n  mqblk        : completions local=750 remote=250 "
		      "batched=100 polled=0 irq=0 (remote=31.8%), "
		      "wakeups=11, requeues=2, "
		      "tag_waits=3, timeouts=4, errors=5, verify_errors=0\n"
		      "  mqblk sched  : merges=15, dispatched=17, runs=6, "
		      "doorbells=7, expired=1, dispatch_lock=8/2 contended, "
		      "budget_hits=9, tag_wait_usec=12\n");
	assert_has(t, "\nRun status group 0 (all jobs):\n   READ: "
		      "bw=4000KiB/s (4096kB/s), 4000KiB/s-4000KiB/s "
		      "(4096kB/s-4096kB/s), io=4000KiB (4096kB), "
		      "run=1000-1000msec\n");
	/* no write or trim lines for a read-only job */
	assert_null(strstr(t, "  write:"));
	assert_null(strstr(t, "  WRITE:"));
	assert_null(strstr(t, "slat percentiles"));
}

static void test_normal_error_and_groups(void **state)
{
	struct fixture *fx = *state;
	const char *t;

	fx->jobs[1] = fx->jobs[0];
	snprintf(fx->jobs[1].name, sizeof(fx->jobs[1].name), "second");
	fx->jobs[1].groupid = 1;
	fx->js[1] = reader(&fx->jobs[1]);
	fx->js[1]->error = 5;
	/* 10 more issued than completed (they failed): fio's IOPS counts
	 * issued I/Os (total_io_u), bandwidth only the bytes done */
	fx->js[1]->dd[DDIR_READ].issued = 1010;
	/* a job that never issued an I/O gets no block, as in fio */
	fx->jobs[2] = fx->jobs[1];
	snprintf(fx->jobs[2].name, sizeof(fx->jobs[2].name), "idle");
	fx->js[2] = malloc(sizeof(*fx->js[2]));
	assert_non_null(fx->js[2]);
	stats_init(fx->js[2], &fx->jobs[2]);
	fx->r.nr_jobs = 3;
	t = render_normal(fx);
	assert_has(t, "\nsecond: (groupid=1, jobs=1): err= 5 "
		      "(error=Input/output error): pid=4242: ");
	assert_has(t, "\n  read: IOPS=1010, BW=4000KiB/s (4096kB/s)"
		      "(4000KiB/1000msec)\n");
	assert_has(t, "\n     issued rwts: total=1010,0,0,0 ");
	assert_null(strstr(t, "idle:"));
	assert_has(t, "\nRun status group 0 (all jobs):\n   READ: ");
	assert_has(t, "\nRun status group 1 (all jobs):\n   READ: ");
}

static void test_normal_group_reporting_merges(void **state)
{
	struct fixture *fx = *state;
	const char *t;

	fx->jobs[0].group_reporting = true;
	fx->js[1] = reader(&fx->jobs[0]);
	fx->r.nr_jobs = 2;
	t = render_normal(fx);
	assert_has(t, "\nt: (groupid=0, jobs=2): err= 0: pid=4242: ");
	assert_null(strstr(t, "jobs=1"));
	/* both ran side by side for 1 s: twice the I/O, same time */
	assert_has(t, "\n  read: IOPS=2000, BW=8000KiB/s (8192kB/s)"
		      "(8000KiB/1000msec)\n");
	assert_has(t, "bw (  KiB/s): min= 6000, max=10000, per=100.00%, "
		      "avg=8000.00, stdev=1154.70, samples=4\n");
}

/* ---- report_json ---- */

static void test_json_top_level(void **state)
{
	struct fixture *fx = *state;
	struct jv *root = render_json(fx, false);
	struct timeval tv;
	uint64_t now_ms;
	const char *t = fx->text;
	double ts;

	ASSERT_KEYS(root, NULL, "fio version", "timestamp", "timestamp_ms",
		    "time", "global options", "jobs", "disk_util");
	assert_string_equal(jstr(root, "fio version"), "mqblk-0.1.0");
	gettimeofday(&tv, NULL);
	now_ms = (uint64_t)tv.tv_sec * 1000 + (uint64_t)tv.tv_usec / 1000;
	ts = jnum(root, "timestamp_ms");
	assert_true(ts >= (double)fx->r.start_time_ms && ts <= (double)now_ms);
	assert_true(jnum(root, "timestamp") == (double)((uint64_t)ts / 1000));
	assert_null(strchr(jstr(root, "time"), '\n'));
	assert_int_equal(strlen(jstr(root, "time")), 24); /* ctime's form */
	assert_int_equal(jv_path(root, "jobs")->type, J_ARR);
	assert_int_equal(jv_path(root, "jobs")->nr, 1);
	assert_int_equal(jv_path(root, "disk_util")->type, J_ARR);
	assert_int_equal(jv_path(root, "disk_util")->nr, 0);
	/* fio's json.c layout, byte for byte where it is fixed */
	{
		static const char head[] =
			"{\n  \"fio version\" : "
			"\"mqblk-0.1.0\",\n  \"timestamp\" : ";

		assert_true(!strncmp(t, head, strlen(head)));
	}
	assert_has(t, "\n  \"jobs\" : [\n    {\n      \"jobname\" : \"t\",\n"
		      "      \"groupid\" : 0,\n      \"error\" : 0,\n");
	assert_has(t, "\n        \"clat_ns\" : {\n          \"min\" : 1000,\n");
	assert_has(t, "\n          \"percentile\" : {\n"
		      "            \"1.000000\" : 1004,\n");
	assert_has(t, "\n    }\n  ],\n  \"disk_util\" : [\n\n  ]\n}\n");
}

static void test_json_job_keys_match_fio(void **state)
{
	struct fixture *fx = *state;
	struct jv *root = render_json(fx, false);
	static const char *const dirs[] = { "jobs/0/read", "jobs/0/write",
					    "jobs/0/trim" };
	unsigned i;

	/* fio 3.33's order, then mqblk's own object */
	ASSERT_KEYS(root, "jobs/0", "jobname", "groupid", "error", "eta",
		    "elapsed", "job options", "read", "write", "trim", "sync",
		    "job_runtime", "usr_cpu", "sys_cpu", "ctx", "majf", "minf",
		    "iodepth_level", "iodepth_submit", "iodepth_complete",
		    "latency_ns", "latency_us", "latency_ms", "latency_depth",
		    "latency_target", "latency_percentile", "latency_window",
		    "mqblk");
	for (i = 0; i < 3; i++)
		assert_keys(root, dirs[i],
			    (const char *const[]){
				    "io_bytes",	   "io_kbytes",	  "bw_bytes",
				    "bw",	   "iops",	  "runtime",
				    "total_ios",   "short_ios",	  "drop_ios",
				    "slat_ns",	   "clat_ns",	  "lat_ns",
				    "bw_min",	   "bw_max",	  "bw_agg",
				    "bw_mean",	   "bw_dev",	  "bw_samples",
				    "iops_min",	   "iops_max",	  "iops_mean",
				    "iops_stddev", "iops_samples" },
			    23);
	ASSERT_KEYS(root, "jobs/0/read/clat_ns", "min", "max", "mean", "stddev",
		    "N", "percentile");
	ASSERT_KEYS(root, "jobs/0/read/slat_ns", "min", "max", "mean", "stddev",
		    "N");
	ASSERT_KEYS(root, "jobs/0/read/lat_ns", "min", "max", "mean", "stddev",
		    "N");
	ASSERT_KEYS(root, "jobs/0/write/clat_ns", "min", "max", "mean",
		    "stddev", "N");
	ASSERT_KEYS(root, "jobs/0/sync", "total_ios", "lat_ns");
	ASSERT_KEYS(root, "jobs/0/sync/lat_ns", "min", "max", "mean", "stddev",
		    "N");
	ASSERT_KEYS(root, "jobs/0/read/clat_ns/percentile", "1.000000",
		    "5.000000", "10.000000", "20.000000", "30.000000",
		    "40.000000", "50.000000", "60.000000", "70.000000",
		    "80.000000", "90.000000", "95.000000", "99.000000",
		    "99.500000", "99.900000", "99.950000", "99.990000");
	ASSERT_KEYS(root, "jobs/0/iodepth_level", "1", "2", "4", "8", "16",
		    "32", ">=64");
	ASSERT_KEYS(root, "jobs/0/iodepth_submit", "0", "4", "8", "16", "32",
		    "64", ">=64");
	ASSERT_KEYS(root, "jobs/0/iodepth_complete", "0", "4", "8", "16", "32",
		    "64", ">=64");
	ASSERT_KEYS(root, "jobs/0/latency_ns", "2", "4", "10", "20", "50",
		    "100", "250", "500", "750", "1000");
	ASSERT_KEYS(root, "jobs/0/latency_us", "2", "4", "10", "20", "50",
		    "100", "250", "500", "750", "1000");
	ASSERT_KEYS(root, "jobs/0/latency_ms", "2", "4", "10", "20", "50",
		    "100", "250", "500", "750", "1000", "2000", ">=2000");
	ASSERT_KEYS(root, "jobs/0/mqblk", "completions", "remote_pct",
		    "wakeups", "requeues", "tag_waits", "timeouts", "errors",
		    "verify_errors", "tag_wait_ns", "merges", "dispatched",
		    "dispatch_runs", "doorbells", "sched_expired",
		    "dispatch_locks", "dispatch_lock_contended",
		    "poll_budget_hits");
	ASSERT_KEYS(root, "jobs/0/mqblk/completions", "local", "remote",
		    "batched", "polled", "irq");
}

static void test_json_read_values(void **state)
{
	struct fixture *fx = *state;
	struct jv *root = render_json(fx, false);

	assert_string_equal(jstr(root, "jobs/0/jobname"), "t");
	assert_true(jnum(root, "jobs/0/read/io_bytes") == 4096000);
	assert_true(jnum(root, "jobs/0/read/io_kbytes") == 4000);
	assert_true(jnum(root, "jobs/0/read/bw_bytes") == 4096000);
	assert_true(jnum(root, "jobs/0/read/bw") == 4000);
	assert_string_equal(jraw(root, "jobs/0/read/iops"), "1000.000000");
	assert_true(jnum(root, "jobs/0/read/runtime") == 1000);
	assert_true(jnum(root, "jobs/0/read/total_ios") == 1000);
	assert_true(jnum(root, "jobs/0/read/short_ios") == 0);
	assert_true(jnum(root, "jobs/0/read/slat_ns/min") == 100);
	assert_true(jnum(root, "jobs/0/read/slat_ns/N") == 1000);
	assert_string_equal(jraw(root, "jobs/0/read/clat_ns/mean"),
			    "1000.000000");
	assert_string_equal(jraw(root, "jobs/0/read/clat_ns/stddev"),
			    "0.000000");
	assert_true(jnum(root, "jobs/0/read/lat_ns/max") == 1100);
	assert_true(jnum(root, "jobs/0/read/clat_ns/percentile/99.000000") ==
		    1004);
	assert_true(jnum(root, "jobs/0/read/clat_ns/percentile/50.000000") ==
		    1004);
	assert_true(jnum(root, "jobs/0/read/bw_min") == 3000);
	assert_true(jnum(root, "jobs/0/read/bw_max") == 5000);
	/* 4000 KiB/s mean of the group's 4000 KiB/s */
	assert_string_equal(jraw(root, "jobs/0/read/bw_agg"), "100.000000");
	assert_string_equal(jraw(root, "jobs/0/read/bw_mean"), "4000.000000");
	assert_string_equal(jraw(root, "jobs/0/read/bw_dev"), "1414.213562");
	assert_true(jnum(root, "jobs/0/read/bw_samples") == 2);
	assert_true(jnum(root, "jobs/0/read/iops_min") == 800);
	assert_string_equal(jraw(root, "jobs/0/read/iops_stddev"),
			    "282.842712");
	assert_true(jnum(root, "jobs/0/read/iops_samples") == 2);

	/* directions without I/O: zeros, not the empty summary's min */
	assert_true(jnum(root, "jobs/0/write/clat_ns/min") == 0);
	assert_true(jnum(root, "jobs/0/write/bw_min") == 0);
	assert_string_equal(jraw(root, "jobs/0/write/bw_agg"), "0.000000");
	assert_string_equal(jraw(root, "jobs/0/trim/iops"), "0.000000");
	assert_true(jnum(root, "jobs/0/trim/runtime") == 0);
	assert_true(jnum(root, "jobs/0/sync/lat_ns/N") == 0);
}

static void test_json_job_values(void **state)
{
	struct fixture *fx = *state;
	struct jv *root = render_json(fx, false);

	assert_true(jnum(root, "jobs/0/groupid") == 0);
	assert_true(jnum(root, "jobs/0/error") == 0);
	/* fio gives no estimate in the first 3 s: INT_MAX */
	assert_true(jnum(root, "jobs/0/eta") == 2147483647.0);
	assert_true(jnum(root, "jobs/0/elapsed") <= 1);
	assert_true(jnum(root, "jobs/0/job_runtime") == 1000);
	assert_string_equal(jraw(root, "jobs/0/usr_cpu"), "25.000000");
	/* whole ms of cpu time, as fio */
	assert_string_equal(jraw(root, "jobs/0/sys_cpu"), "12.500000");
	assert_true(jnum(root, "jobs/0/ctx") == 12);
	assert_true(jnum(root, "jobs/0/majf") == 1);
	assert_true(jnum(root, "jobs/0/minf") == 34);
	assert_string_equal(jraw(root, "jobs/0/iodepth_level/4"), "100.000000");
	assert_string_equal(jraw(root, "jobs/0/iodepth_level/1"), "0.000000");
	assert_string_equal(jraw(root, "jobs/0/iodepth_submit/4"),
			    "100.000000");
	assert_string_equal(jraw(root, "jobs/0/iodepth_complete/4"),
			    "100.000000");
	assert_string_equal(jraw(root, "jobs/0/latency_us/2"), "100.000000");
	assert_string_equal(jraw(root, "jobs/0/latency_ns/1000"), "0.000000");
	assert_string_equal(jraw(root, "jobs/0/latency_ms/>=2000"), "0.000000");
	assert_true(jnum(root, "jobs/0/latency_depth") == 4);
	assert_true(jnum(root, "jobs/0/latency_target") == 0);
	assert_string_equal(jraw(root, "jobs/0/latency_percentile"),
			    "100.000000");
	assert_true(jnum(root, "jobs/0/latency_window") == 0);
	assert_true(jnum(root, "jobs/0/mqblk/completions/local") == 750);
	assert_true(jnum(root, "jobs/0/mqblk/completions/remote") == 250);
	assert_true(jnum(root, "jobs/0/mqblk/completions/batched") == 100);
	assert_true(jnum(root, "jobs/0/mqblk/completions/polled") == 0);
	assert_string_equal(jraw(root, "jobs/0/mqblk/remote_pct"), "31.818182");
	assert_true(jnum(root, "jobs/0/mqblk/requeues") == 2);
	assert_true(jnum(root, "jobs/0/mqblk/tag_waits") == 3);
	assert_true(jnum(root, "jobs/0/mqblk/merges") == 15);
	assert_true(jnum(root, "jobs/0/mqblk/dispatch_lock_contended") == 2);
	assert_true(jnum(root, "jobs/0/mqblk/tag_wait_ns") == 12345);
	assert_true(jnum(root, "jobs/0/mqblk/timeouts") == 4);
	assert_true(jnum(root, "jobs/0/mqblk/errors") == 5);
}

/* Every number is a plain integer or fio's "%f" double. */
static void check_number_forms(const struct jv *v, const char *key)
{
	static const char *const float_keys[] = {
		"iops",	   "mean",    "stddev",	    "bw_agg",
		"bw_mean", "bw_dev",  "iops_mean",  "iops_stddev",
		"usr_cpu", "sys_cpu", "remote_pct", "latency_percentile",
	};
	bool want_float = false;
	size_t i;

	if (!key)
		key = "(top level)";
	if (v->type == J_NUM) {
		for (i = 0; i < sizeof(float_keys) / sizeof(float_keys[0]); i++)
			if (!strcmp(key, float_keys[i]))
				want_float = true;
		if (want_float && !is_f6(v->text))
			fail_msg("\"%s\" : %s is not %%f", key, v->text);
		if (!want_float &&
		    strspn(v->text, "0123456789") != strlen(v->text))
			fail_msg("\"%s\" : %s is not an integer", key, v->text);
		return;
	}
	for (i = 0; i < v->nr; i++) {
		const char *k = v->keys ? v->keys[i] : key;

		/* distribution objects hold percentages: all doubles */
		if (v->keys && v->items[i]->type == J_NUM &&
		    (!strncmp(key, "iodepth_", 8) ||
		     !strncmp(key, "latency_", 8)) &&
		    strcmp(key, "latency_depth")) {
			if (!is_f6(v->items[i]->text))
				fail_msg("%s/%s : %s is not %%f", key, k,
					 v->items[i]->text);
			continue;
		}
		check_number_forms(v->items[i], k);
	}
}

static void test_json_number_formats(void **state)
{
	struct fixture *fx = *state;
	struct jv *root = render_json(fx, true);

	check_number_forms(root, NULL);
	/* big counters print whole, never in exponent form */
	fx->js[0]->dd[DDIR_READ].io_bytes = 1ull << 62;
	root = render_json(fx, false);
	assert_string_equal(jraw(root, "jobs/0/read/io_bytes"),
			    "4611686018427387904");
	check_number_forms(root, NULL);
}

static void test_json_plus_bins(void **state)
{
	struct fixture *fx = *state;
	struct jv *root;

	stats_add_io(fx->js[0], DDIR_READ, 100, 150, 4096, 3, true);
	fx->js[0]->dd[DDIR_READ].issued += 3;
	root = render_json(fx, true);
	ASSERT_KEYS(root, "jobs/0/read/clat_ns", "min", "max", "mean", "stddev",
		    "N", "percentile", "bins");
	/* keyed by bucket midpoint, ascending, non-empty buckets only */
	ASSERT_KEYS(root, "jobs/0/read/clat_ns/bins", "151", "1004");
	assert_true(jnum(root, "jobs/0/read/clat_ns/bins/151") == 3);
	assert_true(jnum(root, "jobs/0/read/clat_ns/bins/1004") == 1000);
	/* no percentiles, no bins: slat/lat by default, empty writes */
	assert_null(jv_path(root, "jobs/0/read/slat_ns/bins"));
	assert_null(jv_path(root, "jobs/0/read/lat_ns/bins"));
	assert_null(jv_path(root, "jobs/0/write/clat_ns/bins"));

	root = render_json(fx, false);
	assert_null(jv_path(root, "jobs/0/read/clat_ns/bins"));
}

static void test_json_percentile_switches(void **state)
{
	struct fixture *fx = *state;
	struct jv *root;

	/* lat_percentiles and slat_percentiles fill their own objects;
	 * a custom list comes out sorted */
	fx->jobs[0].lat_percentiles = true;
	fx->jobs[0].slat_percentiles = true;
	fx->jobs[0].clat_percentiles = false;
	fx->jobs[0].nr_percentiles = 2;
	fx->jobs[0].percentiles[0] = 99.9;
	fx->jobs[0].percentiles[1] = 50;
	free(fx->js[0]);
	fx->js[0] = reader(&fx->jobs[0]);
	root = render_json(fx, true);
	assert_null(jv_path(root, "jobs/0/read/clat_ns/percentile"));
	ASSERT_KEYS(root, "jobs/0/read/lat_ns/percentile", "50.000000",
		    "99.900000");
	/* 1100 ns falls in [1088, 1104) */
	assert_true(jnum(root, "jobs/0/read/lat_ns/percentile/99.900000") ==
		    1096);
	assert_true(jnum(root, "jobs/0/read/slat_ns/percentile/50.000000") ==
		    100);
	assert_true(jnum(root, "jobs/0/read/lat_ns/bins/1096") == 1000);
	assert_string_equal(jstr(root, "jobs/0/job options/clat_percentiles"),
			    "0");
	assert_string_equal(jstr(root, "jobs/0/job options/percentile_list"),
			    "99.9:50");
}

static void test_json_job_options(void **state)
{
	struct fixture *fx = *state;
	struct jv *root = render_json(fx, false);

	/* the fio run this mirrors: --name=t --size=1g --rw=randread
	 * --bs=4k --iodepth=4 --runtime=1 --time_based */
	ASSERT_KEYS(root, "jobs/0/job options", "name", "rw", "bs", "size",
		    "iodepth", "runtime", "time_based");
	assert_string_equal(jstr(root, "jobs/0/job options/name"), "t");
	assert_string_equal(jstr(root, "jobs/0/job options/rw"), "randread");
	assert_string_equal(jstr(root, "jobs/0/job options/bs"), "4k");
	assert_string_equal(jstr(root, "jobs/0/job options/size"), "1g");
	assert_string_equal(jstr(root, "jobs/0/job options/iodepth"), "4");
	assert_string_equal(jstr(root, "jobs/0/job options/runtime"), "1");

	fx->jobs[0].bs[DDIR_WRITE] = 8192;
	fx->jobs[0].bs[DDIR_TRIM] = 1000;
	fx->jobs[0].runtime_ns = 1500 * NS_PER_MS;
	fx->jobs[0].ramp_time_ns = 2500;
	fx->jobs[0].size = 0;
	fx->jobs[0].filename = "null://x";
	fx->jobs[0].ioengine = "io_uring";
	fx->jobs[0].numjobs = 3;
	fx->jobs[0].randrepeat = false;
	fx->jobs[0].hipri = true;
	root = render_json(fx, false);
	assert_null(jv_path(root, "jobs/0/job options/size"));
	assert_string_equal(jstr(root, "jobs/0/job options/bs"), "4k,8k,1000");
	assert_string_equal(jstr(root, "jobs/0/job options/runtime"), "1500ms");
	assert_string_equal(jstr(root, "jobs/0/job options/ramp_time"),
			    "2500ns");
	assert_string_equal(jstr(root, "jobs/0/job options/filename"),
			    "null://x");
	assert_string_equal(jstr(root, "jobs/0/job options/ioengine"),
			    "io_uring");
	assert_string_equal(jstr(root, "jobs/0/job options/numjobs"), "3");
	assert_string_equal(jstr(root, "jobs/0/job options/randrepeat"), "0");
	assert_string_equal(jstr(root, "jobs/0/job options/hipri"), "1");
}

static void test_json_global_options(void **state)
{
	struct fixture *fx = *state;
	struct jv *root = render_json(fx, false);

	/* no command line recorded: still an object */
	ASSERT_KEYS(root, "global options");

	fx->cfg.cmdline = "bench --bs=8k -ioengine=null --output-format=json "
			  "--time_based --eta=never --size 1g "
			  "--filename=a\"b --name=t --rw=read";
	root = render_json(fx, false);
	/* "--key=value" before the first --name, job options only */
	ASSERT_KEYS(root, "global options", "bs", "ioengine", "filename");
	assert_string_equal(jstr(root, "global options/bs"), "8k");
	assert_string_equal(jstr(root, "global options/ioengine"), "null");
	assert_string_equal(jstr(root, "global options/filename"), "a\"b");
	fx->cfg.cmdline = NULL;
}

static void test_json_escapes_strings(void **state)
{
	static const char name[] = "q\"b\\s/n\nt\tc\x01\x1f"
				   "\xc3\xa9";
	struct fixture *fx = *state;
	struct jv *root;

	snprintf(fx->js[0]->name, sizeof(fx->js[0]->name), "%s", name);
	snprintf(fx->jobs[0].name, sizeof(fx->jobs[0].name), "%s", name);
	fx->jobs[0].description = "say \"hi\"";
	root = render_json(fx, false);
	assert_string_equal(jstr(root, "jobs/0/jobname"), name);
	assert_string_equal(jstr(root, "jobs/0/job options/name"), name);
	assert_string_equal(jstr(root, "jobs/0/desc"), "say \"hi\"");
	assert_string_equal(jstr(root, "jobs/0/job options/description"),
			    "say \"hi\"");
	fx->jobs[0].description = NULL;
}

static void test_json_group_reporting(void **state)
{
	struct fixture *fx = *state;
	struct jv *root;

	/* two plain jobs: two entries */
	fx->jobs[1] = fx->jobs[0];
	snprintf(fx->jobs[1].name, sizeof(fx->jobs[1].name), "u");
	fx->js[1] = reader(&fx->jobs[1]);
	fx->r.nr_jobs = 2;
	root = render_json(fx, false);
	assert_int_equal(jv_path(root, "jobs")->nr, 2);
	assert_string_equal(jstr(root, "jobs/1/jobname"), "u");
	/* each has half of the group's 8000 KiB/s */
	assert_string_equal(jraw(root, "jobs/1/read/bw_agg"), "50.000000");

	/* group_reporting: one merged entry, named for the first */
	fx->jobs[0].group_reporting = true;
	fx->jobs[1].group_reporting = true;
	root = render_json(fx, true);
	assert_int_equal(jv_path(root, "jobs")->nr, 1);
	assert_string_equal(jstr(root, "jobs/0/jobname"), "t");
	assert_true(jnum(root, "jobs/0/read/total_ios") == 2000);
	assert_true(jnum(root, "jobs/0/read/io_bytes") == 8192000);
	assert_true(jnum(root, "jobs/0/read/runtime") == 1000);
	assert_string_equal(jraw(root, "jobs/0/read/iops"), "2000.000000");
	/* bw/iops samples are summed across the group (fio's pure sum) */
	assert_true(jnum(root, "jobs/0/read/bw_min") == 6000);
	assert_true(jnum(root, "jobs/0/read/bw_max") == 10000);
	assert_string_equal(jraw(root, "jobs/0/read/bw_mean"), "8000.000000");
	/* S adds up: (2e6 + 2e6) / 3 */
	assert_string_equal(jraw(root, "jobs/0/read/bw_dev"), "1154.700538");
	assert_true(jnum(root, "jobs/0/read/bw_samples") == 4);
	assert_string_equal(jraw(root, "jobs/0/read/iops_mean"), "2000.000000");
	assert_true(jnum(root, "jobs/0/read/clat_ns/N") == 2000);
	assert_true(jnum(root, "jobs/0/read/clat_ns/bins/1004") == 2000);
	assert_true(jnum(root, "jobs/0/job_runtime") == 2000);
	assert_true(jnum(root, "jobs/0/ctx") == 24);
	assert_true(jnum(root, "jobs/0/mqblk/completions/remote") == 500);
	assert_string_equal(jraw(root, "jobs/0/mqblk/remote_pct"), "31.818182");
	/* the threads' own stats are untouched by the report */
	assert_int_equal(fx->js[0]->dd[DDIR_READ].total_ios, 1000);
}

static void test_json_error_and_groups(void **state)
{
	struct fixture *fx = *state;
	struct jv *root;

	fx->jobs[1] = fx->jobs[0];
	fx->jobs[1].groupid = 1;
	fx->jobs[1].rw = RW_WRITE;
	fx->js[1] = malloc(sizeof(*fx->js[1]));
	assert_non_null(fx->js[1]);
	stats_init(fx->js[1], &fx->jobs[1]);
	fx->js[1]->error = 5;
	fx->r.nr_jobs = 2;
	fx->js[0]->dd[DDIR_READ].issued = 1010;
	root = render_json(fx, false);
	assert_string_equal(jraw(root, "jobs/0/read/iops"), "1010.000000");
	assert_true(jnum(root, "jobs/0/read/total_ios") == 1010);
	assert_true(jnum(root, "jobs/0/read/io_bytes") == 4096000);
	/* a job that did nothing is still listed, as fio does */
	assert_int_equal(jv_path(root, "jobs")->nr, 2);
	assert_true(jnum(root, "jobs/1/groupid") == 1);
	assert_true(jnum(root, "jobs/1/error") == 5);
	assert_true(jnum(root, "jobs/1/write/total_ios") == 0);
	assert_string_equal(jstr(root, "jobs/1/job options/rw"), "write");
	assert_string_equal(jraw(root, "jobs/1/usr_cpu"), "0.000000");
	assert_string_equal(jraw(root, "jobs/1/iodepth_level/1"), "0.000000");
}

#define FX_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_reader_rejects_bad_input),
		FX_TEST(test_normal_job_block),
		FX_TEST(test_normal_error_and_groups),
		FX_TEST(test_normal_group_reporting_merges),
		FX_TEST(test_json_top_level),
		FX_TEST(test_json_job_keys_match_fio),
		FX_TEST(test_json_read_values),
		FX_TEST(test_json_job_values),
		FX_TEST(test_json_number_formats),
		FX_TEST(test_json_plus_bins),
		FX_TEST(test_json_percentile_switches),
		FX_TEST(test_json_job_options),
		FX_TEST(test_json_global_options),
		FX_TEST(test_json_escapes_strings),
		FX_TEST(test_json_group_reporting),
		FX_TEST(test_json_error_and_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
