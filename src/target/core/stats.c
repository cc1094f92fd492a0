// SPDX-License-Identifier: MIT
/*
 * Counters that survive: a queue's folded into its port and controller
 * when it goes away, a controller's into its subsystem, all under one
 * lock that only teardown and the stats readers take; and the snapshot
 * the readers render, copied under that lock so every sum is of one
 * moment (a queue is either listed or folded, never both or neither).
 */
#include <stdlib.h>
#include <string.h>

#include "reactor.h"
#include "stats.h"

/*
 * One lock for the whole target: it orders a queue's fold against a
 * reader's copy. Taken per disconnect and per stats request, never per
 * command; the reactors' counters are read racily (relaxed), as before.
 */
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

void tgt_stats_lock(void)
{
	pthread_mutex_lock(&stats_lock);
}

void tgt_stats_unlock(void)
{
	pthread_mutex_unlock(&stats_lock);
}

static void counters_add(struct tgt_counters *d, const struct tgt_counters *s)
{
	unsigned i;

	for (i = 0; i < TGT_NR_COUNTERS; i++)
		d->v[i] += s->v[i];
	if (s->lat_ns_max > d->lat_ns_max)
		d->lat_ns_max = s->lat_ns_max;
}

static void counters_of_queue(struct tgt_counters *d,
			      struct tgt_queue_stats *st)
{
#define LOAD(id, f, j, p, s, h) \
	d->v[TGT_C_##id] = atomic_load_explicit(&st->f, memory_order_relaxed);
	TGT_COUNTERS(LOAD)
#undef LOAD
	d->lat_ns_max =
		atomic_load_explicit(&st->lat_ns_max, memory_order_relaxed);
}

void tgt_stats_queue_gone(struct tgt_queue *q)
{
	struct tgt_ctrl *ctrl =
		atomic_load_explicit(&q->st.ctrl, memory_order_relaxed);
	struct tgt_counters c;

	counters_of_queue(&c, &q->st);
	if (q->port) {
		counters_add(&q->port->gone, &c);
		q->port->conns_gone++;
	}
	if (ctrl)
		counters_add(&ctrl->gone, &c);
}

void tgt_stats_ctrl_gone(struct tgt_ctrl *ctrl)
{
	counters_add(&ctrl->subsys->gone, &ctrl->gone);
	ctrl->subsys->ctrls_gone++;
}

void tgt_port_name(const struct tgt_port *p, char *out, size_t size)
{
	const char *tr = p->trtype == NVMF_TRTYPE_RDMA ? "rdma:" : "";

	if (p->adrfam == NVMF_ADDR_FAMILY_IP6)
		snprintf(out, size, "%s[%s]:%s", tr, p->traddr, p->trsvcid);
	else
		snprintf(out, size, "%s%s:%s", tr, p->traddr, p->trsvcid);
}

/* Every live queue, under each reactor's lock. 0 or -1 (memory). */
static int snap_queues(struct tgt_snap *snap)
{
	unsigned i, cap = 0;

	for (i = 0; i < tgt_reactors_count(); i++) {
		struct tgt_reactor *r = tgt_reactor_at(i);
		struct tgt_queue *q;
		int ret = 0;

		pthread_mutex_lock(&r->lock);
		for (q = r->queues; q; q = q->next) {
			struct tgt_snap_queue *sq;

			if (snap->nr_queues == cap) {
				unsigned ncap = cap ? cap * 2 : 64;
				void *n = realloc(snap->queues,
						  ncap * sizeof(*snap->queues));

				if (!n) {
					ret = -1;
					break;
				}
				snap->queues = n;
				cap = ncap;
			}
			sq = &snap->queues[snap->nr_queues++];
			memset(sq, 0, sizeof(*sq));
			sq->port = q->port;
			sq->ctrl = atomic_load_explicit(&q->st.ctrl,
							memory_order_relaxed);
			sq->reactor = i;
			sq->cntlid = atomic_load_explicit(&q->st.cntlid,
							  memory_order_relaxed);
			sq->qid = atomic_load_explicit(&q->st.qid,
						       memory_order_relaxed);
			/* q->peer is written before the queue is listed */
			memcpy(sq->peer, q->peer, sizeof(sq->peer));
			sq->peer[sizeof(sq->peer) - 1] = 0;
			sq->depth = atomic_load_explicit(&q->st.depth,
							 memory_order_relaxed);
			sq->max_depth = atomic_load_explicit(
				&q->st.max_depth, memory_order_relaxed);
			counters_of_queue(&sq->c, &q->st);
		}
		pthread_mutex_unlock(&r->lock);
		if (ret)
			return ret;
	}
	return 0;
}

/* The ports configured now (a removed one's slot stays, unreported). */
static void snap_ports(struct tgt_snap *snap, struct tgt *t)
{
	unsigned i, k;

	for (i = 0; i < t->nr_ports; i++) {
		struct tgt_snap_port *sp = &snap->ports[snap->nr_ports];
		struct tgt_port *p = &t->ports[i];

		if (p->removed)
			continue;
		snap->nr_ports++;
		sp->port = p;
		tgt_port_name(p, sp->name, sizeof(sp->name));
		sp->down = atomic_load(&p->down);
		sp->conns_gone = p->conns_gone;
		sp->c = p->gone;
		for (k = 0; k < snap->nr_queues; k++) {
			if (snap->queues[k].port != p)
				continue;
			sp->conns++;
			counters_add(&sp->c, &snap->queues[k].c);
		}
	}
}

static int snap_ns(struct tgt_snap_ns *sn, const struct tgt_ns *ns)
{
	unsigned r, b;

	sn->nsid = ns->nsid;
	sn->enabled = ns->enabled;
	sn->uri = strdup(ns->uri ? ns->uri : "");
	if (!sn->uri)
		return -1;
	/* ns->st is set while the devices are open (the reactors' life) */
	for (r = 0; ns->st && r < tgt_reactors_count(); r++) {
		struct tgt_ns_stats *st = &ns->st[r];

#define LD(f) atomic_load_explicit(&st->f, memory_order_relaxed)
		sn->read_cmds += LD(read_cmds);
		sn->write_cmds += LD(write_cmds);
		sn->other_cmds += LD(other_cmds);
		sn->read_bytes += LD(read_bytes);
		sn->write_bytes += LD(write_bytes);
		sn->errors += LD(errors);
		sn->lat_ns_sum += LD(lat_ns_sum);
		for (b = 0; b < TGT_LAT_BUCKETS; b++)
			sn->lat_hist[b] += LD(lat_hist[b]);
#undef LD
	}
	for (b = 0; b < TGT_LAT_BUCKETS; b++)
		sn->lat_count += sn->lat_hist[b];
	return 0;
}

/* s's namespaces and controllers (with their live queues' counters). */
static int snap_subsys(struct tgt_snap *snap, struct tgt_snap_subsys *ss,
		       struct tgt_subsys *s)
{
	struct tgt_ctrl *c;
	unsigned n = 0, k;

	memcpy(ss->nqn, s->nqn, sizeof(ss->nqn));
	ss->nqn[sizeof(ss->nqn) - 1] = 0;
	ss->discovery = s->discovery;
	ss->ctrls_gone = s->ctrls_gone;
	ss->c = s->gone;
	if (s->nr_ns) {
		ss->ns = calloc(s->nr_ns, sizeof(*ss->ns));
		if (!ss->ns)
			return -1;
		for (k = 0; k < s->nr_ns; k++)
			snap_ns(&ss->ns[k], s->ns[k]);
		ss->nr_ns = s->nr_ns;
	}
	pthread_mutex_lock(&s->lock);
	for (c = s->ctrls; c; c = c->next)
		n++;
	ss->ctrls = n ? calloc(n, sizeof(*ss->ctrls)) : NULL;
	if (n && !ss->ctrls) {
		pthread_mutex_unlock(&s->lock);
		return -1;
	}
	for (c = s->ctrls; c; c = c->next) {
		struct tgt_snap_ctrl *sc = &ss->ctrls[ss->nr_ctrls++];

		sc->ctrl = c;
		sc->cntlid = c->cntlid;
		sc->portid = c->port->portid;
		sc->dead = atomic_load(&c->dead);
		memcpy(sc->hostnqn, c->hostnqn, sizeof(sc->hostnqn));
		sc->c = c->gone;
		for (k = 0; k < snap->nr_queues; k++) {
			if (snap->queues[k].ctrl != c)
				continue;
			sc->nr_queues++;
			counters_add(&sc->c, &snap->queues[k].c);
		}
		counters_add(&ss->c, &sc->c);
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
}

struct tgt_snap *tgt_stats_collect(struct tgt *t)
{
	struct tgt_snap *snap = calloc(1, sizeof(*snap));
	unsigned i;

	if (!snap)
		return NULL;
	snap->ana_chgcnt = atomic_load(&t->ana_chgcnt);
	/* the counts too: a live change moves them under this lock */
	tgt_stats_lock();
	snap->ports = calloc(t->nr_ports + 1, sizeof(*snap->ports));
	snap->subsys = calloc(t->nr_subsys + 1, sizeof(*snap->subsys));
	if (!snap->ports || !snap->subsys)
		goto out_unlock;
	if (snap_queues(snap))
		goto out_unlock;
	snap_ports(snap, t);
	for (i = 0; i <= t->nr_subsys; i++) {
		struct tgt_subsys *s = i < t->nr_subsys ? t->subsys[i] :
							  &t->disc;

		snap->nr_subsys++;
		if (snap_subsys(snap, &snap->subsys[i], s))
			goto out_unlock;
	}
	tgt_stats_unlock();
	return snap;
out_unlock:
	tgt_stats_unlock();
	tgt_stats_free(snap);
	return NULL;
}

void tgt_stats_free(struct tgt_snap *snap)
{
	unsigned i, k;

	if (!snap)
		return;
	for (i = 0; i < snap->nr_subsys; i++) {
		for (k = 0; k < snap->subsys[i].nr_ns; k++)
			free(snap->subsys[i].ns[k].uri);
		free(snap->subsys[i].ctrls);
		free(snap->subsys[i].ns);
	}
	free(snap->subsys);
	free(snap->ports);
	free(snap->queues);
	free(snap);
}
