// SPDX-License-Identifier: MIT
/*
 * Live configuration: the control socket's add/remove commands applied
 * to a running target, on the main thread.
 *
 * Reactors read the model (a port's subsystems, a subsystem's
 * namespaces and hosts) with no lock. A change is prepared off to the
 * side (a device opened, a new array built), then swapped in while every
 * reactor is parked between two passes (tgt_reactors_pause): the same
 * point at which a reactor runs a control job, so nothing it holds across
 * passes changes under it but what it can tell apart (a dead controller,
 * a quiesced queue). The events a change raises (Namespace Attribute
 * Changed, Discovery Log Change) are posted in that window too, on
 * controllers whose reactors are parked.
 *
 * What reactors may still point at is not freed at once: a removed
 * namespace is retired (each reactor lets go once no request of its
 * refers to it; the last closes the device), a removed port stays a
 * slot of t->ports, a removed subsystem waits until its controllers
 * are gone. The sweep frees them while paused, and at exit.
 *
 * The --metrics thread reads the model too (core/stats.c's snapshot,
 * under the stats lock): every swap and every free here happens with
 * that lock held as well (model_pause), so a snapshot sees the model
 * before or after a change, never half of it nor freed memory. The
 * main thread's own readers (ctl stats, save, show) run between two
 * commands. Removed objects drop out of the statistics with the swap:
 * a subsystem's and a namespace's counters go with them (their
 * Prometheus series end), a removed port's slot is not reported.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mqblk/mqblk.h"
#include "reactor.h"
#include "stats.h"
#include "target/config/config.h"

/* Ports that may be added over a target's life (t->ports cannot move). */
#define LIVE_PORTS 64

int tgt_live_init(struct tgt *t)
{
	struct tgt_port *p;

	p = realloc(t->ports, (t->nr_ports + LIVE_PORTS) * sizeof(*p));
	if (!p)
		return -1;
	memset(p + t->nr_ports, 0, LIVE_PORTS * sizeof(*p));
	t->ports = p;
	t->ports_cap = t->nr_ports + LIVE_PORTS;
	return 0;
}

/*
 * Every reactor parked, then the stats lock: what the reactors and the
 * metrics thread read may change. In that order: a reactor closing a
 * queue takes the stats lock, and could not park while it waits for it.
 */
static void model_pause(void)
{
	tgt_reactors_pause();
	tgt_stats_lock();
}

static void model_resume(void)
{
	tgt_stats_unlock();
	tgt_reactors_resume();
}

/* Stats lock held: no reactor refers to ns any more (no request of its
 * has cmd->ns, hence cmd->nst, on it), nor does the model. */
static void free_gone_ns(struct tgt_ns *ns)
{
	if (ns->dev)
		mqblk_dev_close(ns->dev);
	free(ns->q);
	free(ns->st);
	ns->st = NULL;
	tgt_cfg_ns_free(ns);
}

/* Free what nothing refers to any more: reactors paused or ended (then
 * all is, their device queues closed), the stats lock held. */
static void sweep(struct tgt *t, bool all)
{
	unsigned i = 0;

	while (i < t->nr_gone_ns) {
		struct tgt_ns *ns = t->gone_ns[i];

		if (!all && atomic_load(&ns->retire_refs)) {
			i++;
			continue;
		}
		free_gone_ns(ns);
		t->gone_ns[i] = t->gone_ns[--t->nr_gone_ns];
	}
	i = 0;
	while (i < t->nr_gone_subsys) {
		struct tgt_subsys *s = t->gone_subsys[i];
		bool busy;

		pthread_mutex_lock(&s->lock);
		busy = s->ctrls != NULL;
		pthread_mutex_unlock(&s->lock);
		if (busy && !all) {
			i++;
			continue;
		}
		/* its namespaces went to gone_ns already */
		s->nr_ns = 0;
		tgt_cfg_subsys_free(s);
		t->gone_subsys[i] = t->gone_subsys[--t->nr_gone_subsys];
	}
}

void tgt_live_fini(struct tgt *t)
{
	tgt_stats_lock();
	sweep(t, true);
	tgt_stats_unlock();
	free(t->gone_ns);
	free(t->gone_subsys);
	t->gone_ns = NULL;
	t->gone_subsys = NULL;
}

/* ---- Lookups and events ---------------------------------------------- */

static struct tgt_subsys *subsys_find(struct tgt *t, const char *nqn,
				      unsigned *idx)
{
	unsigned i;

	for (i = 0; i < t->nr_subsys; i++)
		if (!strcmp(t->subsys[i]->nqn, nqn)) {
			if (idx)
				*idx = i;
			return t->subsys[i];
		}
	return NULL;
}

static struct tgt_subsys *need_subsys(struct tgt *t, const char *verb,
				      const char *nqn, char *err, size_t errlen)
{
	struct tgt_subsys *s = subsys_find(t, nqn, NULL);

	if (!s)
		tgt_err(err, errlen, "%s: %s: no such subsystem", verb, nqn);
	return s;
}

static int ns_index(const struct tgt_subsys *s, uint32_t nsid)
{
	unsigned i;

	for (i = 0; i < s->nr_ns; i++)
		if (s->ns[i]->nsid == nsid)
			return (int)i;
	return -1;
}

static struct tgt_port *port_by_id(struct tgt *t, uint16_t id)
{
	unsigned i;

	for (i = 0; i < t->nr_ports; i++)
		if (!t->ports[i].removed && t->ports[i].portid == id)
			return &t->ports[i];
	return NULL;
}

static int linked_at(const struct tgt_port *p, const struct tgt_subsys *s)
{
	unsigned i;

	for (i = 0; i < p->nr_subsys; i++)
		if (p->subsys[i] == s)
			return (int)i;
	return -1;
}

/* Paused: nsid of s changed (added, removed, enabled, disabled): every
 * live controller's Changed Namespace List and notice. */
static void ns_changed(struct tgt_subsys *s, uint32_t nsid)
{
	struct tgt_ctrl *c;

	pthread_mutex_lock(&s->lock);
	for (c = s->ctrls; c; c = c->next)
		if (c->adminq && !atomic_load(&c->dead))
			tgt_ctrl_ns_changed(c, nsid);
	pthread_mutex_unlock(&s->lock);
}

/* Paused: the discovery log changed: its generation moves and connected
 * discovery controllers that enabled it get the notice. */
static void disc_changed(struct tgt *t)
{
	const uint32_t dw0 = NVME_AER_DW0(NVME_AER_TYPE_NOTICE,
					  NVME_AER_NOTICE_DISC_CHANGED,
					  NVME_LOG_DISC);
	struct tgt_ctrl *c;

	atomic_fetch_add(&t->disc.genctr, 1);
	pthread_mutex_lock(&t->disc.lock);
	for (c = t->disc.ctrls; c; c = c->next)
		if (c->adminq && !atomic_load(&c->dead))
			tgt_ctrl_aen(c, dw0);
	pthread_mutex_unlock(&t->disc.lock);
}

/* Paused: s's controllers (those that came in on port p, or all with p
 * NULL) are torn down: their queues close at the reactors' next tick. */
static unsigned ctrls_kill(struct tgt_subsys *s, const struct tgt_port *p)
{
	struct tgt_ctrl *c;
	unsigned n = 0;

	pthread_mutex_lock(&s->lock);
	for (c = s->ctrls; c; c = c->next) {
		if ((p && c->port != p) || atomic_load(&c->dead))
			continue;
		atomic_store(&c->dead, true);
		c->ka_dead_ns = 0;
		n++;
	}
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* A copy of list (n pointers) without index skip (or with add at the
 * end when skip < 0): NULL if out of memory. n + 1 may be 0 bytes. */
static void **list_edit(void *const *list, unsigned n, int skip, void *add)
{
	void **out = malloc((n + 1) * sizeof(*out));
	unsigned i, o = 0;

	if (!out)
		return NULL;
	for (i = 0; i < n; i++)
		if ((int)i != skip)
			out[o++] = list[i];
	if (skip < 0)
		out[o] = add;
	return out;
}

static int gone_push(void ***list, unsigned *n, void *item)
{
	void **l = realloc(*list, (*n + 1) * sizeof(*l));

	if (!l)
		return -1;
	l[(*n)++] = item;
	*list = l;
	return 0;
}

/* ---- Answers ---------------------------------------------------------- */

/* s as a JSON string (NQNs, URIs, addresses: escape quotes, backslashes
 * and control characters). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void tgt_live_answer(FILE *out, const struct tgt_ctl_cmd *cmd, const char *verb,
		     const char *text, const char *k1, const char *v1,
		     const char *k2, const char *v2, const char *knum,
		     long long num)
{
	fprintf(out, "ok\n");
	if (!cmd->json) {
		if (text)
			fprintf(out, "%s\n", text);
		return;
	}
	fprintf(out, "{\"command\": ");
	json_str(out, verb);
	if (k1) {
		fprintf(out, ", \"%s\": ", k1);
		json_str(out, v1);
	}
	if (k2) {
		fprintf(out, ", \"%s\": ", k2);
		json_str(out, v2);
	}
	if (knum)
		fprintf(out, ", \"%s\": %lld", knum, num);
	fprintf(out, "}\n");
}

/* ---- Subsystems -------------------------------------------------------- */

static int add_subsys(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		      char *err, size_t errlen)
{
	struct tgt_subsys *s, **list;
	char text[320];

	if (tgt_cfg_is_disc_nqn(t, cmd->nqn))
		return tgt_err(err, errlen,
			       "add-subsys: %s is the discovery subsystem's "
			       "NQN",
			       cmd->nqn);
	if (subsys_find(t, cmd->nqn, NULL))
		return tgt_err(err, errlen, "add-subsys: %s exists already",
			       cmd->nqn);
	s = tgt_cfg_subsys_new();
	if (!s)
		return tgt_err(err, errlen, "add-subsys: out of memory");
	snprintf(s->nqn, sizeof(s->nqn), "%s", cmd->nqn);
	tgt_cfg_subsys_defaults(s);
	if (cmd->serial[0])
		snprintf(s->serial, sizeof(s->serial), "%s", cmd->serial);
	if (cmd->model[0])
		snprintf(s->model, sizeof(s->model), "%s", cmd->model);
	s->allow_any_host = cmd->allow_any == 1;
	if (cmd->subsys_tmpl) {
		const struct tgt_subsys *m = cmd->subsys_tmpl;

		memcpy(s->serial, m->serial, sizeof(s->serial));
		memcpy(s->model, m->model, sizeof(s->model));
		memcpy(s->firmware, m->firmware, sizeof(s->firmware));
		s->cntlid_min = m->cntlid_min;
		s->cntlid_max = m->cntlid_max;
		s->allow_any_host = m->allow_any_host;
	}
	s->next_cntlid = s->cntlid_min;
	/* reactors do not read t->subsys (ports list theirs); the metrics
	 * thread does, under the stats lock */
	tgt_stats_lock();
	list = realloc(t->subsys, (t->nr_subsys + 1) * sizeof(*list));
	if (!list) {
		tgt_stats_unlock();
		tgt_cfg_subsys_free(s);
		return tgt_err(err, errlen, "add-subsys: out of memory");
	}
	t->subsys = list;
	t->subsys[t->nr_subsys++] = s;
	tgt_stats_unlock();
	tgt_log("subsystem %s added (link it to a port: link PORT NQN)",
		s->nqn);
	snprintf(text, sizeof(text), "subsystem %s added", s->nqn);
	tgt_live_answer(out, cmd, "add-subsys", text, "nqn", s->nqn, "serial",
			s->serial, NULL, 0);
	return 0;
}

static int remove_subsys(struct tgt *t, const struct tgt_ctl_cmd *cmd,
			 FILE *out, char *err, size_t errlen)
{
	struct tgt_subsys *s;
	unsigned idx, i, killed, open = 0;
	bool linked = false;
	char text[320];

	s = subsys_find(t, cmd->nqn, &idx);
	if (!s)
		return tgt_err(err, errlen,
			       "remove-subsys: %s: no such subsystem",
			       cmd->nqn);
	for (i = 0; i < s->nr_ns; i++)
		open += s->ns[i]->dev != NULL;
	/* every allocation before anything changes */
	if (tgt_reactors_retire_reserve(open) ||
	    gone_push((void ***)&t->gone_subsys, &t->nr_gone_subsys, s))
		return tgt_err(err, errlen, "remove-subsys: out of memory");
	for (i = 0; i < s->nr_ns; i++)
		if (gone_push((void ***)&t->gone_ns, &t->nr_gone_ns,
			      s->ns[i])) {
			t->nr_gone_ns -= i;
			t->nr_gone_subsys--;
			return tgt_err(err, errlen,
				       "remove-subsys: out of memory");
		}

	model_pause();
	for (i = 0; i < t->nr_ports; i++) {
		struct tgt_port *p = &t->ports[i];
		int k = linked_at(p, s);

		if (k < 0)
			continue;
		/* shrinking in place: reactors are parked */
		memmove(&p->subsys[k], &p->subsys[k + 1],
			(p->nr_subsys - (unsigned)k - 1) *
				sizeof(p->subsys[0]));
		p->nr_subsys--;
		linked = true;
	}
	memmove(&t->subsys[idx], &t->subsys[idx + 1],
		(t->nr_subsys - idx - 1) * sizeof(t->subsys[0]));
	t->nr_subsys--;
	killed = ctrls_kill(s, NULL);
	for (i = 0; i < s->nr_ns; i++)
		if (s->ns[i]->dev)
			tgt_reactors_retire_ns(s->ns[i]);
	if (linked)
		disc_changed(t);
	sweep(t, false);
	model_resume();

	tgt_log("subsystem %s removed: %u controllers disconnected", cmd->nqn,
		killed);
	snprintf(text, sizeof(text),
		 "subsystem %s removed: %u controllers disconnected", cmd->nqn,
		 killed);
	tgt_live_answer(out, cmd, "remove-subsys", text, "nqn", cmd->nqn, NULL,
			NULL, "controllers_disconnected", killed);
	return 0;
}

static int allow_any_host(struct tgt *t, const struct tgt_ctl_cmd *cmd,
			  FILE *out, char *err, size_t errlen)
{
	struct tgt_subsys *s =
		need_subsys(t, "allow-any-host", cmd->nqn, err, errlen);
	char text[320];

	if (!s)
		return -1;
	/* nvmet's rule (and the JSON loader's): one or the other */
	if (cmd->allow_any && s->nr_hosts)
		return tgt_err(err, errlen,
			       "allow-any-host: %s has %u allowed hosts: "
			       "disallow them first",
			       s->nqn, s->nr_hosts);
	model_pause();
	s->allow_any_host = cmd->allow_any;
	model_resume();
	tgt_log("subsystem %s: allow_any_host %d", s->nqn, cmd->allow_any);
	snprintf(text, sizeof(text), "subsystem %s: allow_any_host %d", s->nqn,
		 cmd->allow_any);
	tgt_live_answer(out, cmd, "allow-any-host", text, "nqn", s->nqn, NULL,
			NULL, "allow_any_host", cmd->allow_any);
	return 0;
}

/* ---- Namespaces -------------------------------------------------------- */

static int add_ns(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		  char *err, size_t errlen)
{
	struct tgt_subsys *s = need_subsys(t, "add-ns", cmd->nqn, err, errlen);
	struct tgt_ns *ns, **list;
	char why[256], text[512];
	unsigned i, o = 0;

	if (!s)
		return -1;
	if (ns_index(s, cmd->nsid) >= 0)
		return tgt_err(err, errlen, "add-ns: %s has NSID %u already",
			       s->nqn, cmd->nsid);
	ns = calloc(1, sizeof(*ns));
	list = malloc((s->nr_ns + 1) * sizeof(*list));
	if (!ns || !list || !(ns->uri = strdup(cmd->uri))) {
		free(list);
		tgt_cfg_ns_free(ns);
		return tgt_err(err, errlen, "add-ns: out of memory");
	}
	ns->nsid = cmd->nsid;
	ns->enabled = cmd->enable != 0;
	ns->anagrpid = cmd->anagrpid ? cmd->anagrpid : TGT_DEFAULT_ANA_GROUP;
	ns->has_uuid = ns->has_nguid = true;
	if (cmd->has_uuid)
		memcpy(ns->uuid, cmd->uuid, 16);
	else
		tgt_cfg_derive_uuid(s->nqn, ns->nsid, ns->uuid);
	if (cmd->has_nguid)
		memcpy(ns->nguid, cmd->nguid, 16);
	else
		tgt_cfg_derive_nguid(s->nqn, ns->nsid, ns->nguid);
	if (cmd->ns_tmpl) {
		/* exactly the file's: a restart with it shows the same */
		const struct tgt_ns *m = cmd->ns_tmpl;

		ns->has_uuid = m->has_uuid;
		ns->has_nguid = m->has_nguid;
		ns->has_eui64 = m->has_eui64;
		memcpy(ns->uuid, m->uuid, 16);
		memcpy(ns->nguid, m->nguid, 16);
		memcpy(ns->eui64, m->eui64, 8);
		ns->readonly = m->readonly;
	}
	/* the device opens before any host can see it */
	if (ns->enabled && tgt_ns_attach(t, s, ns, why, sizeof(why))) {
		free(list);
		tgt_cfg_ns_free(ns);
		return tgt_err(err, errlen, "add-ns: %s", why);
	}
	for (i = 0; i < s->nr_ns && s->ns[i]->nsid < ns->nsid; i++)
		list[o++] = s->ns[i];
	list[o++] = ns;
	for (; i < s->nr_ns; i++)
		list[o++] = s->ns[i];

	model_pause();
	free(s->ns);
	s->ns = list;
	s->nr_ns++;
	t->ana_group_used[ns->anagrpid] = true;
	if (ns->enabled)
		ns_changed(s, ns->nsid);
	model_resume();

	tgt_log("%s namespace %u: %s added%s", s->nqn, ns->nsid, ns->uri,
		ns->enabled ? "" : " (disabled)");
	snprintf(text, sizeof(text), "%s namespace %u: %s, %llu bytes%s",
		 s->nqn, ns->nsid, ns->uri, (unsigned long long)ns->size,
		 ns->enabled ? "" : ", disabled");
	tgt_live_answer(out, cmd, "add-ns", text, "nqn", s->nqn, "uri", ns->uri,
			"nsid", ns->nsid);
	return 0;
}

static int remove_ns(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		     char *err, size_t errlen)
{
	struct tgt_subsys *s =
		need_subsys(t, "remove-ns", cmd->nqn, err, errlen);
	struct tgt_ns *ns, **list;
	char text[320];
	bool visible;
	int k;

	if (!s)
		return -1;
	k = ns_index(s, cmd->nsid);
	if (k < 0)
		return tgt_err(err, errlen, "remove-ns: %s has no NSID %u",
			       s->nqn, cmd->nsid);
	ns = s->ns[k];
	list = (struct tgt_ns **)list_edit((void *const *)s->ns, s->nr_ns, k,
					   NULL);
	if (!list || tgt_reactors_retire_reserve(1) ||
	    gone_push((void ***)&t->gone_ns, &t->nr_gone_ns, ns)) {
		free(list);
		return tgt_err(err, errlen, "remove-ns: out of memory");
	}
	visible = ns->enabled;

	model_pause();
	free(s->ns);
	s->ns = list;
	s->nr_ns--;
	if (ns->dev)
		tgt_reactors_retire_ns(ns);
	if (visible)
		ns_changed(s, ns->nsid);
	sweep(t, false);
	model_resume();

	tgt_log("%s namespace %u removed", s->nqn, cmd->nsid);
	snprintf(text, sizeof(text), "%s namespace %u removed", s->nqn,
		 cmd->nsid);
	tgt_live_answer(out, cmd, "remove-ns", text, "nqn", s->nqn, NULL, NULL,
			"nsid", cmd->nsid);
	return 0;
}

static int enable_ns(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		     char *err, size_t errlen)
{
	bool on = cmd->op == TGT_CTL_ENABLE_NS;
	const char *verb = on ? "enable-ns" : "disable-ns";
	struct tgt_subsys *s = need_subsys(t, verb, cmd->nqn, err, errlen);
	struct tgt_ns *ns;
	char why[256], text[320];
	int k;

	if (!s)
		return -1;
	k = ns_index(s, cmd->nsid);
	if (k < 0)
		return tgt_err(err, errlen, "%s: %s has no NSID %u", verb,
			       s->nqn, cmd->nsid);
	ns = s->ns[k];
	if (ns->enabled == on)
		return tgt_err(err, errlen, "%s: %s namespace %u is %s already",
			       verb, s->nqn, ns->nsid,
			       on ? "enabled" : "disabled");
	/* a disabled namespace keeps its device open: I/O that was in
	 * flight finishes there, and enabling it again is instant */
	if (on && !ns->dev && tgt_ns_attach(t, s, ns, why, sizeof(why)))
		return tgt_err(err, errlen, "%s: %s: %s", verb, ns->uri, why);
	model_pause();
	ns->enabled = on;
	ns_changed(s, ns->nsid);
	model_resume();
	tgt_log("%s namespace %u %s", s->nqn, ns->nsid,
		on ? "enabled" : "disabled");
	snprintf(text, sizeof(text), "%s namespace %u %s", s->nqn, ns->nsid,
		 on ? "enabled" : "disabled");
	tgt_live_answer(out, cmd, verb, text, "nqn", s->nqn, NULL, NULL, "nsid",
			ns->nsid);
	return 0;
}

/* ---- Ports -------------------------------------------------------------- */

static void port_label(const struct tgt_port *p, char *out, size_t size)
{
	const char *tr = p->trtype == NVMF_TRTYPE_RDMA ? "rdma:" : "";

	if (p->adrfam == NVMF_ADDR_FAMILY_IP6)
		snprintf(out, size, "%s[%s]:%s", tr, p->traddr, p->trsvcid);
	else
		snprintf(out, size, "%s%s:%s", tr, p->traddr, p->trsvcid);
}

static int add_port(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		    char *err, size_t errlen)
{
	const struct tgt_transport_ops *ops = tgt_transport_ops(cmd->trtype);
	struct tgt_port *p;
	char name[128], text[256];
	unsigned i;
	int ret;

	if (port_by_id(t, cmd->portid))
		return tgt_err(err, errlen, "add-port: port %u exists already",
			       cmd->portid);
	if (t->nr_ports >= t->ports_cap)
		return tgt_err(err, errlen,
			       "add-port: no room: %u ports may be added while "
			       "running (restart with them in --config)",
			       LIVE_PORTS);
	if (!ops)
		return tgt_err(err, errlen,
			       "add-port: the %s transport is not built in",
			       cmd->trtype == NVMF_TRTYPE_RDMA ? "rdma" :
								 "tcp");
	/* the next slot: not visible to reactors until nr_ports counts it */
	p = &t->ports[t->nr_ports];
	memset(p, 0, sizeof(*p));
	p->portid = cmd->portid;
	p->trtype = cmd->trtype;
	p->adrfam = strchr(cmd->traddr, ':') ? NVMF_ADDR_FAMILY_IP6 :
					       NVMF_ADDR_FAMILY_IP4;
	snprintf(p->traddr, sizeof(p->traddr), "%s", cmd->traddr);
	snprintf(p->trsvcid, sizeof(p->trsvcid), "%s", cmd->trsvcid);
	p->inline_data = TGT_INLINE_DATA;
	p->max_queue_size = TGT_MAX_QUEUE_DEPTH;
	tgt_cfg_port_ana_init(p);
	if (cmd->port_tmpl) {
		const struct tgt_port *m = cmd->port_tmpl;
		unsigned g;

		p->adrfam = m->adrfam;
		p->sectype = m->sectype;
		p->treq = m->treq;
		p->inline_data = m->inline_data;
		p->max_queue_size = m->max_queue_size;
		for (g = 1; g <= TGT_MAX_ANA_GROUPS; g++)
			atomic_store(&p->ana_state[g],
				     atomic_load(&m->ana_state[g]));
	}
	port_label(p, name, sizeof(name));
	for (i = 0; i < t->nr_ports; i++)
		if (!t->ports[i].removed && tgt_cfg_same_addr(&t->ports[i], p))
			return tgt_err(err, errlen,
				       "add-port: port %u has address %s "
				       "already",
				       t->ports[i].portid, name);
	p->listen_fd = ops->port_open(p);
	if (p->listen_fd < 0)
		return tgt_err(err, errlen, "add-port: cannot listen on %s: %s",
			       name, strerror(errno));

	model_pause();
	t->nr_ports++;
	ret = tgt_reactors_watch_port(p);
	if (ret) {
		t->nr_ports--;
		model_resume();
		ops->port_close(p, p->listen_fd);
		p->listen_fd = -1;
		return tgt_err(err, errlen,
			       "add-port: cannot watch the listener: %s",
			       strerror(-ret));
	}
	disc_changed(t);
	model_resume();

	tgt_log("port %u added: listening on %s", p->portid, name);
	snprintf(text, sizeof(text), "port %u %s added", p->portid, name);
	tgt_live_answer(out, cmd, "add-port", text, "address", name, NULL, NULL,
			"portid", p->portid);
	return 0;
}

static int remove_port(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		       char *err, size_t errlen)
{
	struct tgt_port *p = port_by_id(t, cmd->portid);
	struct tgt_ctl_job job;
	char name[128], text[256];

	if (!p)
		return tgt_err(err, errlen, "remove-port: no port %u",
			       cmd->portid);
	port_label(p, name, sizeof(name));
	/* as port-down: reactor 0 closes the listener, every reactor its
	 * connections on the port, and tells its discovery controllers */
	memset(&job, 0, sizeof(job));
	if (!atomic_load(&p->down)) {
		atomic_store(&p->down, true);
		atomic_fetch_add(&t->disc.genctr, 1);
		job.op = TGT_CTL_PORT_DOWN;
		job.port = p;
		tgt_ctl_job_post(&job);
	}
	model_pause();
	free(p->subsys);
	p->subsys = NULL;
	p->nr_subsys = 0;
	p->removed = true;
	disc_changed(t);
	model_resume();

	tgt_log("port %u (%s) removed: %u connections closed", cmd->portid,
		name, job.closed);
	snprintf(text, sizeof(text),
		 "port %u %s removed: %u connections closed", cmd->portid, name,
		 job.closed);
	tgt_live_answer(out, cmd, "remove-port", text, "address", name, NULL,
			NULL, "connections_closed", job.closed);
	return 0;
}

static int link_port(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		     char *err, size_t errlen)
{
	bool add = cmd->op == TGT_CTL_LINK;
	const char *verb = add ? "link" : "unlink";
	struct tgt_subsys *s, **list;
	struct tgt_port *p;
	char name[128], text[512];
	unsigned killed = 0;
	int k;

	p = tgt_port_find(t, cmd->port, strlen(cmd->port), text, sizeof(text));
	if (!p || p->removed)
		return tgt_err(err, errlen, "%s: %s", verb,
			       p ? "no such port" : text);
	s = need_subsys(t, verb, cmd->nqn, err, errlen);
	if (!s)
		return -1;
	port_label(p, name, sizeof(name));
	k = linked_at(p, s);
	if (add && p->discovery_only)
		return tgt_err(err, errlen,
			       "link: port %u serves discovery only",
			       p->portid);
	if (add == (k >= 0))
		return tgt_err(err, errlen, "%s: %s is %s port %u already",
			       verb, s->nqn, add ? "linked to" : "not on",
			       p->portid);
	list = (struct tgt_subsys **)list_edit((void *const *)p->subsys,
					       p->nr_subsys, add ? -1 : k, s);
	if (!list)
		return tgt_err(err, errlen, "%s: out of memory", verb);

	model_pause();
	free(p->subsys);
	p->subsys = list;
	p->nr_subsys += add ? 1 : -1;
	if (!add)
		killed = ctrls_kill(s, p);
	disc_changed(t);
	model_resume();

	tgt_log("%s %s port %u (%s)%s", s->nqn,
		add ? "linked to" : "unlinked from", p->portid, name,
		add ? "" : ": its controllers there disconnected");
	snprintf(text, sizeof(text), "%s %s port %u %s", s->nqn,
		 add ? "linked to" : "unlinked from", p->portid, name);
	tgt_live_answer(out, cmd, verb, text, "nqn", s->nqn, "address", name,
			add ? "portid" : "controllers_disconnected",
			add ? p->portid : killed);
	return 0;
}

/* ---- Hosts ------------------------------------------------------------- */

static struct tgt_host *host_find(struct tgt_host *list, unsigned n,
				  const char *nqn)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i].nqn, nqn))
			return &list[i];
	return NULL;
}

static int add_host(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		    char *err, size_t errlen)
{
	struct tgt_host h, *list;
	char why[160], text[320];

	if (host_find(t->hosts, t->nr_hosts, cmd->nqn))
		return tgt_err(err, errlen, "add-host: %s exists already",
			       cmd->nqn);
	memset(&h, 0, sizeof(h));
	snprintf(h.nqn, sizeof(h.nqn), "%s", cmd->nqn);
	tgt_cfg_host_auth_defaults(&h);
	if (cmd->dhchap_key[0] &&
	    nvme_auth_key_load(cmd->dhchap_key, &h.key, why, sizeof(why)))
		return tgt_err(err, errlen, "add-host: dhchap_key: %s", why);
	/* the PSK its NVMe/TCP connections to a TLS port prove, as
	 * --tls-key and nvmetcli's "tls_key" give it; allow-host copies
	 * it into the subsystem's entry, where the handshake looks */
	if (cmd->tls_key[0] &&
	    nvme_tls_key_load(cmd->tls_key, &h.tls_key, why, sizeof(why))) {
		nvme_auth_key_clear(&h.key);
		return tgt_err(err, errlen, "add-host: tls_key: %s", why);
	}
	list = realloc(t->hosts, (t->nr_hosts + 1) * sizeof(*list));
	if (!list) {
		nvme_auth_key_clear(&h.key);
		nvme_tls_key_clear(&h.tls_key);
		return tgt_err(err, errlen, "add-host: out of memory");
	}
	t->hosts = list; /* the main thread's: allow-host copies from it */
	t->hosts[t->nr_hosts++] = h;
	nvme_auth_key_clear(&h.key);
	nvme_tls_key_clear(&h.tls_key);
	snprintf(text, sizeof(text), "host %s added%s%s", cmd->nqn,
		 cmd->dhchap_key[0] ? " with a DH-HMAC-CHAP key" : "",
		 !cmd->tls_key[0]   ? "" :
		 cmd->dhchap_key[0] ? " and a TLS PSK" :
				      " with a TLS PSK");
	tgt_log("%s", text);
	tgt_live_answer(out, cmd, "add-host", text, "hostnqn", cmd->nqn,
			"tls_key", cmd->tls_key[0] ? "set" : "none", "dhchap",
			cmd->dhchap_key[0] != 0);
	return 0;
}

/*
 * A host add-host defined, gone from the list. Refused while a subsystem
 * allows it, naming the subsystem: the kernel's configfs would take the
 * rmdir and leave the subsystem's allowed_hosts link in place, the host
 * still allowed through it, a state nvmetcli's JSON cannot hold (save
 * lists every allowed host among "hosts", so the host would come back
 * with the next load). Its controllers are not touched.
 */
static int remove_host(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		       char *err, size_t errlen)
{
	struct tgt_host *h = host_find(t->hosts, t->nr_hosts, cmd->nqn);
	char text[320];
	unsigned i;

	if (!h)
		return tgt_err(err, errlen,
			       "remove-host: %s: no such host (add-host "
			       "defines one)",
			       cmd->nqn);
	for (i = 0; i < t->nr_subsys; i++)
		if (host_find(t->subsys[i]->hosts, t->subsys[i]->nr_hosts,
			      cmd->nqn))
			return tgt_err(err, errlen,
				       "remove-host: %s is allowed in %s "
				       "(disallow-host %s %s first)",
				       cmd->nqn, t->subsys[i]->nqn,
				       t->subsys[i]->nqn, cmd->nqn);
	/* the main thread's list alone: no reactor reads it */
	nvme_auth_key_clear(&h->key);
	nvme_auth_key_clear(&h->ctrl_key);
	nvme_tls_key_clear(&h->tls_key);
	memmove(h, h + 1,
		(size_t)(t->hosts + t->nr_hosts - (h + 1)) * sizeof(*h));
	t->nr_hosts--;
	tgt_log("host %s removed", cmd->nqn);
	snprintf(text, sizeof(text), "host %s removed", cmd->nqn);
	tgt_live_answer(out, cmd, "remove-host", text, "hostnqn", cmd->nqn,
			NULL, NULL, NULL, 0);
	return 0;
}

static int allow_host(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		      char *err, size_t errlen)
{
	bool add = cmd->op == TGT_CTL_ALLOW_HOST;
	const char *verb = add ? "allow-host" : "disallow-host";
	struct tgt_subsys *s = need_subsys(t, verb, cmd->nqn, err, errlen);
	struct tgt_host *list, *h;
	const struct tgt_host *known;
	char text[512];
	unsigned i, o = 0;

	if (!s)
		return -1;
	h = host_find(s->hosts, s->nr_hosts, cmd->hostnqn);
	if (add && h)
		return tgt_err(err, errlen, "allow-host: %s allows %s already",
			       s->nqn, cmd->hostnqn);
	if (!add && !h)
		return tgt_err(err, errlen,
			       "disallow-host: %s does not list %s", s->nqn,
			       cmd->hostnqn);
	if (add && s->allow_any_host)
		return tgt_err(err, errlen,
			       "allow-host: %s allows any host (allow-any-host "
			       "%s 0 first)",
			       s->nqn, s->nqn);
	list = calloc(s->nr_hosts + 1, sizeof(*list));
	if (!list)
		return tgt_err(err, errlen, "%s: out of memory", verb);
	for (i = 0; i < s->nr_hosts; i++)
		if (&s->hosts[i] != h)
			list[o++] = s->hosts[i];
	if (add) {
		/* add-host's entry (with its key), or the host alone */
		known = cmd->host_tmpl ?
				cmd->host_tmpl :
				host_find(t->hosts, t->nr_hosts, cmd->hostnqn);
		if (known) {
			list[o] = *known;
		} else {
			snprintf(list[o].nqn, sizeof(list[o].nqn), "%s",
				 cmd->hostnqn);
			tgt_cfg_host_auth_defaults(&list[o]);
		}
		o++;
	}

	model_pause();
	h = s->hosts;
	s->hosts = list;
	s->nr_hosts = o;
	model_resume();
	for (i = 0; i < o + (add ? -1 : 1); i++) {
		nvme_auth_key_clear(&h[i].key);
		nvme_auth_key_clear(&h[i].ctrl_key);
		nvme_tls_key_clear(&h[i].tls_key);
	}
	free(h);

	tgt_log("%s: host %s %s", s->nqn, cmd->hostnqn,
		add ? "allowed" : "no longer allowed (its controllers stay)");
	snprintf(text, sizeof(text), "%s: host %s %s", s->nqn, cmd->hostnqn,
		 add ? "allowed" : "disallowed");
	tgt_live_answer(out, cmd, verb, text, "nqn", s->nqn, "hostnqn",
			cmd->hostnqn, NULL, 0);
	return 0;
}

/* ---- save, show ------------------------------------------------------- */

static int save(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		char *err, size_t errlen)
{
	const char *path = cmd->path[0] ? cmd->path : t->config_path;
	char why[512], text[600];

	if (!path)
		return tgt_err(err, errlen,
			       "save: no FILE, and the target was not started "
			       "with --config");
	if (path[0] != '/')
		return tgt_err(err, errlen,
			       "save: %s: an absolute path (mqblk ctl makes "
			       "one of a relative path)",
			       path);
	if (tgt_config_save(t, path, why, sizeof(why)))
		return tgt_err(err, errlen, "save: %s", why);
	tgt_log("configuration saved to %s", path);
	snprintf(text, sizeof(text), "saved to %s", path);
	tgt_live_answer(out, cmd, "save", text, "file", path, NULL, NULL, NULL,
			0);
	return 0;
}

static int show(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		char *err, size_t errlen)
{
	char *json;

	if (!cmd->json) {
		fprintf(out, "ok\n");
		tgt_config_show(t, out);
		return 0;
	}
	if (tgt_config_to_json(t, &json, err, errlen))
		return -1;
	fprintf(out, "ok\n%s", json);
	free(json);
	return 0;
}

/* ns-set: the namespace's open device changes the key itself (its
 * driver makes the change safe against the reactors' I/O). */
static int ns_set(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		  char *err, size_t errlen)
{
	struct tgt_subsys *s = subsys_find(t, cmd->nqn, NULL);
	struct tgt_ns *ns;
	char why[160];
	int k;

	if (!s)
		return tgt_err(err, errlen, "ns-set: no subsystem %.100s",
			       cmd->nqn);
	k = ns_index(s, cmd->nsid);
	if (k < 0)
		return tgt_err(err, errlen,
			       "ns-set: %.100s has no namespace %u", cmd->nqn,
			       cmd->nsid);
	ns = s->ns[k];
	if (!ns->dev)
		return tgt_err(err, errlen,
			       "ns-set: namespace %u is not open (disabled)",
			       cmd->nsid);
	if (mqblk_dev_set_param(ns->dev, cmd->key, cmd->val, why, sizeof(why)))
		return tgt_err(err, errlen, "ns-set: %s", why);
	tgt_log("%s namespace %u: %s=%s", cmd->nqn, cmd->nsid, cmd->key,
		cmd->val);
	tgt_live_answer(out, cmd, "ns-set", NULL, "nqn", s->nqn, "set",
			cmd->key, "nsid", cmd->nsid);
	return 0;
}

int tgt_live_exec(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		  char *err, size_t errlen)
{
	switch (cmd->op) {
	case TGT_CTL_SAVE:
		return save(t, cmd, out, err, errlen);
	case TGT_CTL_SHOW:
		return show(t, cmd, out, err, errlen);
	case TGT_CTL_ADD_SUBSYS:
		return add_subsys(t, cmd, out, err, errlen);
	case TGT_CTL_REMOVE_SUBSYS:
		return remove_subsys(t, cmd, out, err, errlen);
	case TGT_CTL_ALLOW_ANY_HOST:
		return allow_any_host(t, cmd, out, err, errlen);
	case TGT_CTL_ADD_NS:
		return add_ns(t, cmd, out, err, errlen);
	case TGT_CTL_REMOVE_NS:
		return remove_ns(t, cmd, out, err, errlen);
	case TGT_CTL_ENABLE_NS:
	case TGT_CTL_DISABLE_NS:
		return enable_ns(t, cmd, out, err, errlen);
	case TGT_CTL_NS_SET:
		return ns_set(t, cmd, out, err, errlen);
	case TGT_CTL_ADD_PORT:
		return add_port(t, cmd, out, err, errlen);
	case TGT_CTL_REMOVE_PORT:
		return remove_port(t, cmd, out, err, errlen);
	case TGT_CTL_LINK:
	case TGT_CTL_UNLINK:
		return link_port(t, cmd, out, err, errlen);
	case TGT_CTL_ADD_HOST:
		return add_host(t, cmd, out, err, errlen);
	case TGT_CTL_REMOVE_HOST:
		return remove_host(t, cmd, out, err, errlen);
	case TGT_CTL_ALLOW_HOST:
	case TGT_CTL_DISALLOW_HOST:
		return allow_host(t, cmd, out, err, errlen);
	default:
		return tgt_err(err, errlen, "internal: not a live command");
	}
}
