// SPDX-License-Identifier: MIT
/*
 * A stats snapshot in Prometheus' text exposition format (0.0.4), for
 * `mqblk target --metrics`: every counter of counters.h at four scopes
 * (port, subsystem, controller, queue: mqblk_<scope>_<name>_total), the
 * gauges, and each namespace's counters and latency histogram. Base
 * units (seconds, bytes), a HELP and a TYPE line per family.
 */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "stats.h"

/* A label value with \, " and newline escaped, as the format asks. */
static void put_label(FILE *f, const char *name, const char *v, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
	fputc('"', f);
}

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* ns nanoseconds as seconds, exactly */
static void put_seconds(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u,
		ns % 1000000000u);
}

static void put_value(FILE *f, uint64_t v, double scale)
{
	if (scale == 1.0)
		fprintf(f, "%" PRIu64, v);
	else /* the only other scale is ns -> s */
		put_seconds(f, v);
}

enum scope { SC_PORT, SC_SUBSYS, SC_CTRL, SC_QUEUE, SC_NR };
static const char *const scope_name[SC_NR] = { "port", "subsystem",
					       "controller", "queue" };
static const char *const scope_help[SC_NR] = {
	"on the port, closed connections included",
	"of the subsystem, controllers gone included",
	"of the controller, closed queues included", "on the queue"
};

/* The subsystem a queue's or controller's controller is of: its NQN. */
static const struct tgt_snap_subsys *subsys_of(const struct tgt_snap *snap,
					       const struct tgt_ctrl *ctrl,
					       const struct tgt_snap_ctrl **sc)
{
	unsigned i, k;

	for (i = 0; i < snap->nr_subsys; i++)
		for (k = 0; k < snap->subsys[i].nr_ctrls; k++)
			if (snap->subsys[i].ctrls[k].ctrl == ctrl) {
				*sc = &snap->subsys[i].ctrls[k];
				return &snap->subsys[i];
			}
	return NULL;
}

static void ctrl_labels(FILE *f, const struct tgt_snap_subsys *ss,
			const struct tgt_snap_ctrl *sc)
{
	char n[16];

	put_label(f, "subsystem", ss->nqn, true);
	snprintf(n, sizeof(n), "%u", sc->cntlid);
	put_label(f, "cntlid", n, false);
	snprintf(n, sizeof(n), "%u", sc->portid);
	put_label(f, "port", n, false);
}

/* One sample per object of scope sc: name{labels} value. */
static void scope_samples(FILE *f, const struct tgt_snap *snap, enum scope sc,
			  const char *name, unsigned id, double scale)
{
	unsigned i, k;
	char n[16];

	switch (sc) {
	case SC_PORT:
		for (i = 0; i < snap->nr_ports; i++) {
			snprintf(n, sizeof(n), "%u",
				 snap->ports[i].port->portid);
			fprintf(f, "%s{", name);
			put_label(f, "port", n, true);
			fputs("} ", f);
			put_value(f, snap->ports[i].c.v[id], scale);
			fputc('\n', f);
		}
		break;
	case SC_SUBSYS:
		for (i = 0; i < snap->nr_subsys; i++) {
			fprintf(f, "%s{", name);
			put_label(f, "subsystem", snap->subsys[i].nqn, true);
			fputs("} ", f);
			put_value(f, snap->subsys[i].c.v[id], scale);
			fputc('\n', f);
		}
		break;
	case SC_CTRL:
		for (i = 0; i < snap->nr_subsys; i++)
			for (k = 0; k < snap->subsys[i].nr_ctrls; k++) {
				fprintf(f, "%s{", name);
				ctrl_labels(f, &snap->subsys[i],
					    &snap->subsys[i].ctrls[k]);
				fputs("} ", f);
				put_value(f, snap->subsys[i].ctrls[k].c.v[id],
					  scale);
				fputc('\n', f);
			}
		break;
	case SC_QUEUE:
		for (i = 0; i < snap->nr_queues; i++) {
			const struct tgt_snap_queue *q = &snap->queues[i];
			const struct tgt_snap_subsys *ss;
			const struct tgt_snap_ctrl *c = NULL;

			/* not yet connected: the port's alone */
			ss = q->ctrl ? subsys_of(snap, q->ctrl, &c) : NULL;
			if (!ss)
				continue;
			fprintf(f, "%s{", name);
			ctrl_labels(f, ss, c);
			snprintf(n, sizeof(n), "%u", q->qid);
			put_label(f, "qid", n, false);
			fputs("} ", f);
			put_value(f, q->c.v[id], scale);
			fputc('\n', f);
		}
		break;
	case SC_NR:
		break;
	}
}

struct counter_desc {
	const char *prom, *help;
	double scale;
};

static const struct counter_desc counters[TGT_NR_COUNTERS] = {
#define DESC(id, f, j, p, s, h) [TGT_C_##id] = { p, h, s },
	TGT_COUNTERS(DESC)
#undef DESC
};

static void queue_gauges(FILE *f, const struct tgt_snap *snap)
{
	static const char *const names[] = {
		"mqblk_queue_depth", "mqblk_queue_depth_max",
		"mqblk_queue_latency_max_seconds"
	};
	static const char *const helps[] = {
		"Commands in flight on the queue",
		"The most commands in flight on the queue at once",
		"The longest a command of the queue took to be answered"
	};
	unsigned g, i;
	char n[16];

	for (g = 0; g < 3; g++) {
		family(f, names[g], "gauge", helps[g]);
		for (i = 0; i < snap->nr_queues; i++) {
			const struct tgt_snap_queue *q = &snap->queues[i];
			const struct tgt_snap_subsys *ss;
			const struct tgt_snap_ctrl *c = NULL;

			ss = q->ctrl ? subsys_of(snap, q->ctrl, &c) : NULL;
			if (!ss)
				continue;
			fprintf(f, "%s{", names[g]);
			ctrl_labels(f, ss, c);
			snprintf(n, sizeof(n), "%u", q->qid);
			put_label(f, "qid", n, false);
			fputs("} ", f);
			if (g == 0)
				fprintf(f, "%u", q->depth);
			else if (g == 1)
				fprintf(f, "%u", q->max_depth);
			else
				put_seconds(f, q->c.lat_ns_max);
			fputc('\n', f);
		}
	}
}

static void port_gauges(FILE *f, const struct tgt_snap *snap)
{
	unsigned i;
	char n[16];

	family(f, "mqblk_port_info", "gauge",
	       "A port's address and transport (the value is 1)");
	for (i = 0; i < snap->nr_ports; i++) {
		const struct tgt_snap_port *p = &snap->ports[i];

		snprintf(n, sizeof(n), "%u", p->port->portid);
		fputs("mqblk_port_info{", f);
		put_label(f, "port", n, true);
		put_label(f, "address", p->name, false);
		put_label(f, "trtype",
			  p->port->trtype == NVMF_TRTYPE_RDMA ? "rdma" : "tcp",
			  false);
		fputs("} 1\n", f);
	}
	family(f, "mqblk_port_up", "gauge",
	       "1 if the port listens, 0 after mqblk ctl port-down");
	for (i = 0; i < snap->nr_ports; i++) {
		snprintf(n, sizeof(n), "%u", snap->ports[i].port->portid);
		fputs("mqblk_port_up{", f);
		put_label(f, "port", n, true);
		fprintf(f, "} %d\n", !snap->ports[i].down);
	}
	family(f, "mqblk_port_connections", "gauge",
	       "Connections (queues) open on the port");
	for (i = 0; i < snap->nr_ports; i++) {
		snprintf(n, sizeof(n), "%u", snap->ports[i].port->portid);
		fputs("mqblk_port_connections{", f);
		put_label(f, "port", n, true);
		fprintf(f, "} %u\n", snap->ports[i].conns);
	}
	family(f, "mqblk_port_connections_closed_total", "counter",
	       "Connections (queues) closed on the port");
	for (i = 0; i < snap->nr_ports; i++) {
		snprintf(n, sizeof(n), "%u", snap->ports[i].port->portid);
		fputs("mqblk_port_connections_closed_total{", f);
		put_label(f, "port", n, true);
		fprintf(f, "} %" PRIu64 "\n", snap->ports[i].conns_gone);
	}
}

static void subsys_gauges(FILE *f, const struct tgt_snap *snap)
{
	unsigned i;

	family(f, "mqblk_subsystem_controllers", "gauge",
	       "Controllers of the subsystem now");
	for (i = 0; i < snap->nr_subsys; i++) {
		fputs("mqblk_subsystem_controllers{", f);
		put_label(f, "subsystem", snap->subsys[i].nqn, true);
		fprintf(f, "} %u\n", snap->subsys[i].nr_ctrls);
	}
	family(f, "mqblk_subsystem_controllers_gone_total", "counter",
	       "Controllers of the subsystem torn down");
	for (i = 0; i < snap->nr_subsys; i++) {
		fputs("mqblk_subsystem_controllers_gone_total{", f);
		put_label(f, "subsystem", snap->subsys[i].nqn, true);
		fprintf(f, "} %" PRIu64 "\n", snap->subsys[i].ctrls_gone);
	}
}

static void ns_labels(FILE *f, const struct tgt_snap_subsys *ss,
		      const struct tgt_snap_ns *n)
{
	char b[16];

	put_label(f, "subsystem", ss->nqn, true);
	snprintf(b, sizeof(b), "%u", n->nsid);
	put_label(f, "nsid", b, false);
}

static void namespaces(FILE *f, const struct tgt_snap *snap)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} c[] = {
		{ "mqblk_namespace_read_commands_total", "Read commands",
		  offsetof(struct tgt_snap_ns, read_cmds) },
		{ "mqblk_namespace_write_commands_total", "Write commands",
		  offsetof(struct tgt_snap_ns, write_cmds) },
		{ "mqblk_namespace_other_io_commands_total",
		  "I/O commands other than Read and Write",
		  offsetof(struct tgt_snap_ns, other_cmds) },
		{ "mqblk_namespace_read_bytes_total", "Bytes read",
		  offsetof(struct tgt_snap_ns, read_bytes) },
		{ "mqblk_namespace_write_bytes_total", "Bytes written",
		  offsetof(struct tgt_snap_ns, write_bytes) },
		{ "mqblk_namespace_errors_total",
		  "Commands completed with an error status",
		  offsetof(struct tgt_snap_ns, errors) },
	};
	const char *h = "mqblk_namespace_command_latency_seconds";
	unsigned i, k, m, b;

	for (m = 0; m < sizeof(c) / sizeof(c[0]); m++) {
		family(f, c[m].name, "counter", c[m].help);
		for (i = 0; i < snap->nr_subsys; i++)
			for (k = 0; k < snap->subsys[i].nr_ns; k++) {
				const struct tgt_snap_ns *n =
					&snap->subsys[i].ns[k];

				fprintf(f, "%s{", c[m].name);
				ns_labels(f, &snap->subsys[i], n);
				fprintf(f, "} %" PRIu64 "\n",
					*(const uint64_t *)((const char *)n +
							    c[m].off));
			}
	}
	family(f, h, "histogram",
	       "Time from an I/O command's arrival to its answer");
	for (i = 0; i < snap->nr_subsys; i++)
		for (k = 0; k < snap->subsys[i].nr_ns; k++) {
			const struct tgt_snap_ns *n = &snap->subsys[i].ns[k];
			uint64_t cum = 0;

			for (b = 0; b < TGT_LAT_BUCKETS; b++) {
				cum += n->lat_hist[b];
				fprintf(f, "%s_bucket{", h);
				ns_labels(f, &snap->subsys[i], n);
				if (b + 1 < TGT_LAT_BUCKETS)
					fprintf(f,
						",le=\"%.9g\"} %" PRIu64 "\n",
						(double)((uint64_t)1
							 << (b +
							     TGT_LAT_SHIFT)) /
							1e9,
						cum);
				else
					fprintf(f,
						",le=\"+Inf\"} %" PRIu64 "\n",
						cum);
			}
			fprintf(f, "%s_sum{", h);
			ns_labels(f, &snap->subsys[i], n);
			fputs("} ", f);
			put_seconds(f, n->lat_ns_sum);
			fprintf(f, "\n%s_count{", h);
			ns_labels(f, &snap->subsys[i], n);
			fprintf(f, "} %" PRIu64 "\n", n->lat_count);
		}
}

int tgt_stats_prometheus(const struct tgt_snap *snap, FILE *f)
{
	char name[128], help[256];
	unsigned id, sc;

	family(f, "mqblk_ana_changes_total", "counter",
	       "ANA state changes (the ANA log's change count)");
	fprintf(f, "mqblk_ana_changes_total %" PRIu64 "\n", snap->ana_chgcnt);
	port_gauges(f, snap);
	subsys_gauges(f, snap);
	for (sc = 0; sc < SC_NR; sc++)
		for (id = 0; id < TGT_NR_COUNTERS; id++) {
			snprintf(name, sizeof(name), "mqblk_%s_%s_total",
				 scope_name[sc], counters[id].prom);
			snprintf(help, sizeof(help), "%s %s", counters[id].help,
				 scope_help[sc]);
			family(f, name, "counter", help);
			scope_samples(f, snap, (enum scope)sc, name, id,
				      counters[id].scale);
		}
	queue_gauges(f, snap);
	namespaces(f, snap);
	fflush(f);
	return ferror(f) ? -1 : 0;
}
