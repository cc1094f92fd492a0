// SPDX-License-Identifier: MIT
/*
 * Unit tests of the target's stats renderers (core/stats_prom.c,
 * core/stats_json.c) on a snapshot built by hand, and of the latency
 * bucket function: bucket bounds, cumulative Prometheus buckets, exact
 * seconds, label escaping, the JSON structure.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/core/stats.h"

/* bucket b holds values below 2^(b + 10) ns, the last one the rest */
static void test_lat_bucket(void **state)
{
	unsigned b;

	(void)state;
	assert_int_equal(tgt_lat_bucket(0), 0);
	assert_int_equal(tgt_lat_bucket(1023), 0);
	assert_int_equal(tgt_lat_bucket(1024), 1);
	for (b = 1; b < TGT_LAT_BUCKETS - 1; b++) {
		uint64_t bound = (uint64_t)1 << (b + TGT_LAT_SHIFT);

		assert_int_equal(tgt_lat_bucket(bound - 1), b);
		assert_int_equal(tgt_lat_bucket(bound), b + 1);
	}
	assert_int_equal(tgt_lat_bucket(UINT64_MAX), TGT_LAT_BUCKETS - 1);
}

struct fixture {
	struct tgt_port port;
	struct tgt_snap_port sport;
	struct tgt_snap_ns ns;
	struct tgt_snap_ctrl ctrl;
	struct tgt_snap_subsys subsys;
	struct tgt_snap_queue queue;
	struct tgt_snap snap;
	int ctrl_tag; /* what ctrl and queue point at: only compared */
	char uri[32]; /* what ns.uri points at (a snapshot owns its copy) */
};

static struct fixture *fixture_new(void)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->port.portid = 3;
	f->sport.port = &f->port;
	snprintf(f->sport.name, sizeof(f->sport.name), "127.0.0.1:4420");
	f->sport.conns = 1;
	f->sport.conns_gone = 2;
	f->sport.c.v[TGT_C_READ_BYTES] = 12288;
	f->ns.nsid = 7;
	f->ns.enabled = true;
	f->ns.uri = f->uri;
	snprintf(f->uri, sizeof(f->uri), "null:size=1m");
	f->ns.read_cmds = 3;
	f->ns.lat_hist[0] = 1; /* < 1.024 us */
	f->ns.lat_hist[2] = 2; /* < 4.096 us */
	f->ns.lat_count = 3;
	f->ns.lat_ns_sum = 1500000001; /* 1.500000001 s */
	f->ctrl.ctrl = (const struct tgt_ctrl *)&f->ctrl_tag;
	f->ctrl.cntlid = 5;
	f->ctrl.portid = 3;
	snprintf(f->ctrl.hostnqn, sizeof(f->ctrl.hostnqn), "nqn.h");
	f->ctrl.c.v[TGT_C_CMDS] = 9;
	snprintf(f->subsys.nqn, sizeof(f->subsys.nqn), "%s",
		 "nqn.2026-01.io.mqblk:\"q\"\\");
	f->subsys.ctrls = &f->ctrl;
	f->subsys.nr_ctrls = 1;
	f->subsys.ns = &f->ns;
	f->subsys.nr_ns = 1;
	f->subsys.ctrls_gone = 4;
	f->subsys.c.v[TGT_C_READ_BYTES] = 12288;
	f->queue.ctrl = f->ctrl.ctrl;
	f->queue.port = &f->port;
	f->queue.cntlid = 5;
	f->queue.qid = 1;
	f->queue.depth = 2;
	f->queue.max_depth = 8;
	snprintf(f->queue.peer, sizeof(f->queue.peer), "127.0.0.1:5000");
	f->queue.c.v[TGT_C_CMDS] = 6;
	f->queue.c.lat_ns_max = 2000;
	f->snap.ports = &f->sport;
	f->snap.nr_ports = 1;
	f->snap.subsys = &f->subsys;
	f->snap.nr_subsys = 1;
	f->snap.queues = &f->queue;
	f->snap.nr_queues = 1;
	return f;
}

static char *render_prom(const struct tgt_snap *snap)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(tgt_stats_prometheus(snap, f), 0);
	fclose(f);
	return buf;
}

static void has_line(const char *text, const char *line)
{
	const char *p = text;
	size_t n = strlen(line);

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
		p++;
	}
	fail_msg("no line '%s'", line);
}

#define NQN_LABEL "subsystem=\"nqn.2026-01.io.mqblk:\\\"q\\\"\\\\\""

static void test_prometheus(void **state)
{
	struct fixture *f = fixture_new();
	char *t = render_prom(&f->snap);

	(void)state;
	has_line(t, "# TYPE mqblk_port_read_bytes_total counter");
	has_line(t, "mqblk_port_read_bytes_total{port=\"3\"} 12288");
	has_line(t, "mqblk_port_connections{port=\"3\"} 1");
	has_line(t, "mqblk_port_connections_closed_total{port=\"3\"} 2");
	has_line(t, "mqblk_port_info{port=\"3\",address=\"127.0.0.1:4420\","
		    "trtype=\"tcp\"} 1");
	/* the NQN's quotes and backslash escaped */
	has_line(t, "mqblk_subsystem_controllers_gone_total{" NQN_LABEL "} 4");
	has_line(t, "mqblk_controller_commands_total{" NQN_LABEL
		    ",cntlid=\"5\",port=\"3\"} 9");
	has_line(t, "mqblk_queue_commands_total{" NQN_LABEL
		    ",cntlid=\"5\",port=\"3\",qid=\"1\"} 6");
	has_line(t, "mqblk_queue_depth_max{" NQN_LABEL
		    ",cntlid=\"5\",port=\"3\",qid=\"1\"} 8");
	has_line(t, "mqblk_queue_latency_max_seconds{" NQN_LABEL
		    ",cntlid=\"5\",port=\"3\",qid=\"1\"} 0.000002000");
	/* cumulative buckets, +Inf the count, the sum in exact seconds */
	has_line(t, "# TYPE mqblk_namespace_command_latency_seconds histogram");
	has_line(t, "mqblk_namespace_command_latency_seconds_bucket{" NQN_LABEL
		    ",nsid=\"7\",le=\"1.024e-06\"} 1");
	has_line(t, "mqblk_namespace_command_latency_seconds_bucket{" NQN_LABEL
		    ",nsid=\"7\",le=\"2.048e-06\"} 1");
	has_line(t, "mqblk_namespace_command_latency_seconds_bucket{" NQN_LABEL
		    ",nsid=\"7\",le=\"4.096e-06\"} 3");
	has_line(t, "mqblk_namespace_command_latency_seconds_bucket{" NQN_LABEL
		    ",nsid=\"7\",le=\"+Inf\"} 3");
	has_line(t, "mqblk_namespace_command_latency_seconds_sum{" NQN_LABEL
		    ",nsid=\"7\"} 1.500000001");
	has_line(t, "mqblk_namespace_command_latency_seconds_count{" NQN_LABEL
		    ",nsid=\"7\"} 3");
	has_line(t, "mqblk_namespace_read_commands_total{" NQN_LABEL
		    ",nsid=\"7\"} 3");
	free(t);
	free(f);
}

/* a queue not yet connected counts on its port only */
static void test_prometheus_unconnected_queue(void **state)
{
	struct fixture *f = fixture_new();
	char *t;

	(void)state;
	f->queue.ctrl = NULL;
	t = render_prom(&f->snap);
	assert_null(strstr(t, "mqblk_queue_commands_total{"));
	has_line(t, "mqblk_port_read_bytes_total{port=\"3\"} 12288");
	free(t);
	free(f);
}

static void test_json(void **state)
{
	struct fixture *f = fixture_new();
	char *s = tgt_stats_json(&f->snap);
	struct json_object *root, *o, *ss, *ns, *lat, *b, *q, *v;

	(void)state;
	assert_non_null(s);
	root = json_tokener_parse(s);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "ports", &o));
	o = json_object_array_get_idx(o, 0);
	assert_true(json_object_object_get_ex(o, "connections_gone", &v));
	assert_int_equal(json_object_get_int64(v), 2);
	assert_true(json_object_object_get_ex(root, "subsystems", &o));
	ss = json_object_array_get_idx(o, 0);
	assert_true(json_object_object_get_ex(ss, "nqn", &v));
	assert_string_equal(json_object_get_string(v), f->subsys.nqn);
	assert_true(json_object_object_get_ex(ss, "namespaces", &o));
	ns = json_object_array_get_idx(o, 0);
	assert_true(json_object_object_get_ex(ns, "latency", &lat));
	assert_true(json_object_object_get_ex(lat, "buckets", &o));
	assert_int_equal(json_object_array_length(o), TGT_LAT_BUCKETS);
	b = json_object_array_get_idx(o, 2);
	assert_true(json_object_object_get_ex(b, "count", &v));
	assert_int_equal(json_object_get_int64(v), 2); /* not cumulative */
	assert_true(json_object_object_get_ex(b, "below_ns", &v));
	assert_int_equal(json_object_get_int64(v), 4096);
	b = json_object_array_get_idx(o, TGT_LAT_BUCKETS - 1);
	assert_true(json_object_object_get_ex(b, "below_ns", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(ss, "controllers", &o));
	o = json_object_array_get_idx(o, 0);
	assert_true(json_object_object_get_ex(o, "counters", &v));
	assert_true(json_object_object_get_ex(v, "cmds", &v));
	assert_int_equal(json_object_get_int64(v), 9);
	assert_true(json_object_object_get_ex(o, "queues", &o));
	assert_int_equal(json_object_array_length(o), 1);
	q = json_object_array_get_idx(o, 0);
	assert_true(json_object_object_get_ex(q, "max_depth", &v));
	assert_int_equal(json_object_get_int64(v), 8);
	json_object_put(root);
	free(s);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lat_bucket),
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_prometheus_unconnected_queue),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
