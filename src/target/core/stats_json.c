// SPDX-License-Identifier: MIT
/*
 * `mqblk ctl SOCK stats -o json`: a stats snapshot as JSON (json-c):
 * ports, subsystems with their namespaces and controllers, each
 * controller with its queues; every level has the same counters object.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static void put(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static struct json_object *u64(uint64_t v)
{
	/* json-c's uint64 keeps values past INT64_MAX exact */
	return json_object_new_uint64(v);
}

static struct json_object *counters_json(const struct tgt_counters *c)
{
	struct json_object *o = json_object_new_object();

#define PUT(id, f, j, p, s, h) put(o, j, u64(c->v[TGT_C_##id]));
	TGT_COUNTERS(PUT)
#undef PUT
	put(o, "lat_ns_max", u64(c->lat_ns_max));
	return o;
}

static struct json_object *ns_json(const struct tgt_snap_ns *n)
{
	struct json_object *o = json_object_new_object();
	struct json_object *c = json_object_new_object();
	struct json_object *l = json_object_new_object();
	struct json_object *b = json_object_new_array();
	unsigned i;

	put(o, "nsid", u64(n->nsid));
	put(o, "uri", json_object_new_string(n->uri ? n->uri : ""));
	put(o, "enabled", json_object_new_boolean(n->enabled));
	put(c, "reads", u64(n->read_cmds));
	put(c, "writes", u64(n->write_cmds));
	put(c, "other_cmds", u64(n->other_cmds));
	put(c, "read_bytes", u64(n->read_bytes));
	put(c, "write_bytes", u64(n->write_bytes));
	put(c, "errors", u64(n->errors));
	put(o, "counters", c);
	put(l, "count", u64(n->lat_count));
	put(l, "sum_ns", u64(n->lat_ns_sum));
	/* each bucket on its own (not cumulative), with its exclusive
	 * upper bound; the last one's is null: everything slower */
	for (i = 0; i < TGT_LAT_BUCKETS; i++) {
		struct json_object *e = json_object_new_object();

		put(e, "below_ns",
		    i + 1 < TGT_LAT_BUCKETS ?
			    u64((uint64_t)1 << (i + TGT_LAT_SHIFT)) :
			    NULL);
		put(e, "count", u64(n->lat_hist[i]));
		json_object_array_add(b, e);
	}
	put(l, "buckets", b);
	put(o, "latency", l);
	return o;
}

static struct json_object *ctrl_json(const struct tgt_snap *snap,
				     const struct tgt_snap_ctrl *sc)
{
	struct json_object *o = json_object_new_object();
	struct json_object *qs = json_object_new_array();
	unsigned k;

	put(o, "cntlid", u64(sc->cntlid));
	put(o, "host", json_object_new_string(sc->hostnqn));
	put(o, "port", u64(sc->portid));
	put(o, "dead", json_object_new_boolean(sc->dead));
	put(o, "counters", counters_json(&sc->c));
	for (k = 0; k < snap->nr_queues; k++) {
		const struct tgt_snap_queue *q = &snap->queues[k];
		struct json_object *j;

		if (q->ctrl != sc->ctrl)
			continue;
		j = json_object_new_object();
		put(j, "qid", u64(q->qid));
		put(j, "peer", json_object_new_string(q->peer));
		put(j, "reactor", u64(q->reactor));
		put(j, "depth", u64(q->depth));
		put(j, "max_depth", u64(q->max_depth));
		put(j, "counters", counters_json(&q->c));
		json_object_array_add(qs, j);
	}
	put(o, "queues", qs);
	return o;
}

static struct json_object *subsys_json(const struct tgt_snap *snap,
				       const struct tgt_snap_subsys *ss)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ns = json_object_new_array();
	struct json_object *cs = json_object_new_array();
	unsigned k;

	put(o, "nqn", json_object_new_string(ss->nqn));
	put(o, "discovery", json_object_new_boolean(ss->discovery));
	put(o, "controllers_now", u64(ss->nr_ctrls));
	put(o, "controllers_gone", u64(ss->ctrls_gone));
	put(o, "counters", counters_json(&ss->c));
	for (k = 0; k < ss->nr_ns; k++)
		json_object_array_add(ns, ns_json(&ss->ns[k]));
	put(o, "namespaces", ns);
	for (k = 0; k < ss->nr_ctrls; k++)
		json_object_array_add(cs, ctrl_json(snap, &ss->ctrls[k]));
	put(o, "controllers", cs);
	return o;
}

static struct json_object *port_json(const struct tgt_snap_port *sp)
{
	struct json_object *o = json_object_new_object();
	const struct tgt_port *p = sp->port;

	put(o, "portid", u64(p->portid));
	put(o, "address", json_object_new_string(sp->name));
	put(o, "trtype",
	    json_object_new_string(p->trtype == NVMF_TRTYPE_RDMA ? "rdma" :
								   "tcp"));
	put(o, "state", json_object_new_string(sp->down ? "down" : "up"));
	put(o, "discovery_only", json_object_new_boolean(p->discovery_only));
	put(o, "connections_now", u64(sp->conns));
	put(o, "connections_gone", u64(sp->conns_gone));
	put(o, "counters", counters_json(&sp->c));
	return o;
}

char *tgt_stats_json(const struct tgt_snap *snap)
{
	struct json_object *root = json_object_new_object();
	struct json_object *ports = json_object_new_array();
	struct json_object *subsys = json_object_new_array();
	const char *s;
	char *out = NULL;
	size_t len;
	unsigned i;

	if (!root || !ports || !subsys) {
		json_object_put(root);
		json_object_put(ports);
		json_object_put(subsys);
		return NULL;
	}
	put(root, "ana_change_count", u64(snap->ana_chgcnt));
	for (i = 0; i < snap->nr_ports; i++)
		json_object_array_add(ports, port_json(&snap->ports[i]));
	put(root, "ports", ports);
	for (i = 0; i < snap->nr_subsys; i++)
		json_object_array_add(subsys,
				      subsys_json(snap, &snap->subsys[i]));
	put(root, "subsystems", subsys);
	s = json_object_to_json_string_ext(
		root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
	if (s) {
		len = strlen(s);
		out = malloc(len + 2);
		if (out) {
			memcpy(out, s, len);
			out[len] = '\n';
			out[len + 1] = 0;
		}
	}
	json_object_put(root);
	return out;
}
