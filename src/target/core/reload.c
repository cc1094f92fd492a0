// SPDX-License-Identifier: MIT
/*
 * SIGHUP: re-read --config and apply what differs from the running
 * configuration, as the control socket's commands would (core/live.c),
 * so that nothing the difference does not name is touched: a controller
 * of an unchanged subsystem on an unchanged port keeps its connection.
 *
 * A file that does not load (syntax, a bad value) is refused whole before
 * anything changes. What is changed in place: hosts and their allowed
 * lists, allow_any_host, a namespace's enable, a port's links and ANA
 * states. An object whose identity changed (a subsystem's serial, model,
 * firmware or cntlid range; a namespace's device or IDs; a port's
 * address or parameters) is removed and added again, as nvmet would need
 * it recreated. A step that fails once applying (a device that no longer
 * opens, an address taken) is logged and the rest carry on: the log says
 * what did not apply.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reactor.h"
#include "target/config/config.h"

struct reload {
	struct tgt *t;
	FILE *sink; /* the commands' answers: the log has what changed */
	unsigned changes, failures;
};

static void step(struct reload *rl, struct tgt_ctl_cmd *cmd, const char *what)
{
	char err[512];

	if (tgt_live_exec(rl->t, cmd, rl->sink, err, sizeof(err))) {
		tgt_log("SIGHUP: %s: not applied: %s", what, err);
		rl->failures++;
		return;
	}
	rl->changes++;
}

static void cmd_init(struct tgt_ctl_cmd *cmd, enum tgt_ctl_op op,
		     const char *nqn)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->op = op;
	cmd->enable = -1;
	cmd->allow_any = -1;
	if (nqn)
		snprintf(cmd->nqn, sizeof(cmd->nqn), "%s", nqn);
}

static struct tgt_subsys *find_subsys(struct tgt *t, const char *nqn)
{
	unsigned i;

	for (i = 0; i < t->nr_subsys; i++)
		if (!strcmp(t->subsys[i]->nqn, nqn))
			return t->subsys[i];
	return NULL;
}

static struct tgt_ns *find_ns(const struct tgt_subsys *s, uint32_t nsid)
{
	unsigned i;

	for (i = 0; i < s->nr_ns; i++)
		if (s->ns[i]->nsid == nsid)
			return s->ns[i];
	return NULL;
}

static const struct tgt_host *find_host(const struct tgt_subsys *s,
					const char *nqn)
{
	unsigned i;

	for (i = 0; i < s->nr_hosts; i++)
		if (!strcmp(s->hosts[i].nqn, nqn))
			return &s->hosts[i];
	return NULL;
}

static struct tgt_port *find_port(struct tgt *t, uint16_t portid)
{
	unsigned i;

	for (i = 0; i < t->nr_ports; i++)
		if (!t->ports[i].removed && t->ports[i].portid == portid)
			return &t->ports[i];
	return NULL;
}

static bool linked(const struct tgt_port *p, const char *nqn)
{
	unsigned i;

	for (i = 0; i < p->nr_subsys; i++)
		if (!strcmp(p->subsys[i]->nqn, nqn))
			return true;
	return false;
}

static bool same_host(const struct tgt_host *a, const struct tgt_host *b)
{
	return a->key.len == b->key.len && a->key.hash == b->key.hash &&
	       !memcmp(a->key.data, b->key.data, a->key.len) &&
	       a->ctrl_key.len == b->ctrl_key.len &&
	       a->ctrl_key.hash == b->ctrl_key.hash &&
	       !memcmp(a->ctrl_key.data, b->ctrl_key.data, a->ctrl_key.len) &&
	       a->nr_hashes == b->nr_hashes &&
	       !memcmp(a->hashes, b->hashes, a->nr_hashes) &&
	       a->nr_dhgroups == b->nr_dhgroups &&
	       !memcmp(a->dhgroups, b->dhgroups, a->nr_dhgroups);
}

static bool same_subsys_attrs(const struct tgt_subsys *a,
			      const struct tgt_subsys *b)
{
	return !strcmp(a->serial, b->serial) && !strcmp(a->model, b->model) &&
	       !strcmp(a->firmware, b->firmware) &&
	       a->cntlid_min == b->cntlid_min && a->cntlid_max == b->cntlid_max;
}

static bool same_ns(const struct tgt_ns *a, const struct tgt_ns *b)
{
	return ((!a->uri && !b->uri) ||
		(a->uri && b->uri && !strcmp(a->uri, b->uri))) &&
	       a->has_uuid == b->has_uuid && a->has_nguid == b->has_nguid &&
	       a->has_eui64 == b->has_eui64 && !memcmp(a->uuid, b->uuid, 16) &&
	       !memcmp(a->nguid, b->nguid, 16) &&
	       !memcmp(a->eui64, b->eui64, 8) && a->anagrpid == b->anagrpid &&
	       a->readonly == b->readonly;
}

static bool same_port(const struct tgt_port *a, const struct tgt_port *b)
{
	return a->trtype == b->trtype && a->adrfam == b->adrfam &&
	       !strcmp(a->traddr, b->traddr) &&
	       !strcmp(a->trsvcid, b->trsvcid) &&
	       a->inline_data == b->inline_data &&
	       a->max_queue_size == b->max_queue_size;
}

static void add_ns(struct reload *rl, const char *nqn, const struct tgt_ns *m)
{
	struct tgt_ctl_cmd cmd;
	char what[300];

	cmd_init(&cmd, TGT_CTL_ADD_NS, nqn);
	cmd.nsid = m->nsid;
	snprintf(cmd.uri, sizeof(cmd.uri), "%s", m->uri ? m->uri : "");
	cmd.anagrpid = m->anagrpid;
	cmd.enable = m->enabled;
	cmd.ns_tmpl = m;
	snprintf(what, sizeof(what), "%s namespace %u", nqn, m->nsid);
	step(rl, &cmd, what);
}

static void simple(struct reload *rl, enum tgt_ctl_op op, const char *nqn,
		   uint32_t nsid, const char *what)
{
	struct tgt_ctl_cmd cmd;

	cmd_init(&cmd, op, nqn);
	cmd.nsid = nsid;
	step(rl, &cmd, what);
}

static void host_cmd(struct reload *rl, enum tgt_ctl_op op, const char *nqn,
		     const struct tgt_host *h)
{
	struct tgt_ctl_cmd cmd;

	cmd_init(&cmd, op, nqn);
	snprintf(cmd.hostnqn, sizeof(cmd.hostnqn), "%s", h->nqn);
	cmd.host_tmpl = op == TGT_CTL_ALLOW_HOST ? h : NULL;
	step(rl, &cmd,
	     op == TGT_CTL_ALLOW_HOST ? "allow-host" : "disallow-host");
}

static void allow_any(struct reload *rl, const char *nqn, bool on)
{
	struct tgt_ctl_cmd cmd;

	cmd_init(&cmd, TGT_CTL_ALLOW_ANY_HOST, nqn);
	cmd.allow_any = on;
	step(rl, &cmd, "allow_any_host");
}

/* A subsystem the file has and the target has not (or had, with other
 * attributes): added with its hosts and namespaces. */
static void add_subsys(struct reload *rl, const struct tgt_subsys *m)
{
	struct tgt_ctl_cmd cmd;
	unsigned i;

	cmd_init(&cmd, TGT_CTL_ADD_SUBSYS, m->nqn);
	cmd.subsys_tmpl = m;
	step(rl, &cmd, m->nqn);
	if (!find_subsys(rl->t, m->nqn))
		return;
	for (i = 0; i < m->nr_hosts; i++)
		host_cmd(rl, TGT_CTL_ALLOW_HOST, m->nqn, &m->hosts[i]);
	for (i = 0; i < m->nr_ns; i++)
		add_ns(rl, m->nqn, m->ns[i]);
}

/* A subsystem both have: its hosts and namespaces brought in line. */
static void update_subsys(struct reload *rl, struct tgt_subsys *s,
			  const struct tgt_subsys *m)
{
	const struct tgt_host *h;
	struct tgt_ns *ns;
	char what[300];
	unsigned i;

	/* hosts gone (or changed) first: allow_any_host 1 needs none */
	for (i = s->nr_hosts; i-- > 0;) {
		h = find_host(m, s->hosts[i].nqn);
		if (!h || !same_host(h, &s->hosts[i]))
			host_cmd(rl, TGT_CTL_DISALLOW_HOST, s->nqn,
				 &s->hosts[i]);
	}
	if (s->allow_any_host != m->allow_any_host)
		allow_any(rl, s->nqn, m->allow_any_host);
	for (i = 0; i < m->nr_hosts; i++)
		if (!find_host(s, m->hosts[i].nqn))
			host_cmd(rl, TGT_CTL_ALLOW_HOST, s->nqn, &m->hosts[i]);

	for (i = s->nr_ns; i-- > 0;) {
		const struct tgt_ns *n = find_ns(m, s->ns[i]->nsid);

		ns = s->ns[i];
		if (n && same_ns(n, ns))
			continue;
		snprintf(what, sizeof(what), "%s namespace %u", s->nqn,
			 ns->nsid);
		simple(rl, TGT_CTL_REMOVE_NS, s->nqn, ns->nsid, what);
	}
	for (i = 0; i < m->nr_ns; i++) {
		ns = find_ns(s, m->ns[i]->nsid);
		if (!ns) {
			add_ns(rl, s->nqn, m->ns[i]);
			continue;
		}
		if (ns->enabled == m->ns[i]->enabled)
			continue;
		snprintf(what, sizeof(what), "%s namespace %u", s->nqn,
			 ns->nsid);
		simple(rl,
		       m->ns[i]->enabled ? TGT_CTL_ENABLE_NS :
					   TGT_CTL_DISABLE_NS,
		       s->nqn, ns->nsid, what);
	}
}

static void port_cmd(struct reload *rl, enum tgt_ctl_op op,
		     const struct tgt_port *p, const char *nqn)
{
	struct tgt_ctl_cmd cmd;

	cmd_init(&cmd, op, nqn);
	cmd.portid = p->portid;
	snprintf(cmd.port, sizeof(cmd.port), "%u", p->portid);
	if (op == TGT_CTL_ADD_PORT) {
		cmd.trtype = p->trtype;
		snprintf(cmd.traddr, sizeof(cmd.traddr), "%s", p->traddr);
		snprintf(cmd.trsvcid, sizeof(cmd.trsvcid), "%s", p->trsvcid);
		cmd.port_tmpl = p;
	}
	step(rl, &cmd,
	     op == TGT_CTL_ADD_PORT    ? "add-port" :
	     op == TGT_CTL_REMOVE_PORT ? "remove-port" :
	     op == TGT_CTL_LINK	       ? "link" :
					 "unlink");
}

/* ANA states of a port both have: each group that differs, set, with
 * the ANA change notice to that port's controllers (as `mqblk ctl ana`). */
static void update_ana(struct reload *rl, struct tgt_port *p,
		       const struct tgt_port *m)
{
	struct tgt_ctl_job job;
	bool changed = false;
	unsigned g;

	for (g = 1; g <= TGT_MAX_ANA_GROUPS; g++) {
		uint8_t want = atomic_load(&m->ana_state[g]);

		if (!rl->t->ana_group_used[g] ||
		    atomic_load(&p->ana_state[g]) == want)
			continue;
		atomic_store(&p->ana_state[g], want);
		tgt_log("SIGHUP: port %u: ANA group %u %s", p->portid, g,
			nvme_ana_state_name(want));
		changed = true;
	}
	if (!changed)
		return;
	atomic_fetch_add(&rl->t->ana_chgcnt, 1);
	memset(&job, 0, sizeof(job));
	job.op = TGT_CTL_ANA;
	job.port = p;
	job.aen_dw0 = NVME_AER_DW0(NVME_AER_TYPE_NOTICE, NVME_AER_NOTICE_ANA,
				   NVME_LOG_ANA);
	tgt_ctl_job_post(&job);
	rl->changes++;
}

static void ports(struct reload *rl, const struct tgt *nt)
{
	struct tgt *t = rl->t;
	unsigned i, j;

	for (i = 0; i < t->nr_ports; i++) {
		struct tgt_port *p = &t->ports[i];
		struct tgt_port *m;

		if (p->removed)
			continue;
		m = find_port((struct tgt *)nt, p->portid);
		if (!m || !same_port(p, m))
			port_cmd(rl, TGT_CTL_REMOVE_PORT, p, NULL);
	}
	for (i = 0; i < nt->nr_ports; i++) {
		const struct tgt_port *m = &nt->ports[i];
		struct tgt_port *p = find_port(t, m->portid);

		if (!p) {
			port_cmd(rl, TGT_CTL_ADD_PORT, m, NULL);
			p = find_port(t, m->portid);
			if (!p)
				continue;
		}
		for (j = p->nr_subsys; j-- > 0;)
			if (!linked(m, p->subsys[j]->nqn))
				port_cmd(rl, TGT_CTL_UNLINK, p,
					 p->subsys[j]->nqn);
		for (j = 0; j < m->nr_subsys; j++)
			if (!linked(p, m->subsys[j]->nqn))
				port_cmd(rl, TGT_CTL_LINK, p,
					 m->subsys[j]->nqn);
		update_ana(rl, p, m);
	}
}

/* t->hosts (nvmetcli's "hosts") become the file's. */
static int take_hosts(struct tgt *t, const struct tgt *nt)
{
	struct tgt_host *h = NULL;
	unsigned i;

	if (nt->nr_hosts) {
		h = calloc(nt->nr_hosts, sizeof(*h));
		if (!h)
			return -1;
		memcpy(h, nt->hosts, nt->nr_hosts * sizeof(*h));
	}
	for (i = 0; i < t->nr_hosts; i++) {
		nvme_auth_key_clear(&t->hosts[i].key);
		nvme_auth_key_clear(&t->hosts[i].ctrl_key);
	}
	free(t->hosts);
	t->hosts = h;
	t->nr_hosts = nt->nr_hosts;
	return 0;
}

void tgt_live_reload(struct tgt *t)
{
	struct reload rl = { .t = t };
	struct tgt nt;
	char err[512];
	unsigned i, g;

	if (!t->config_path) {
		tgt_log("SIGHUP: the target was not started with --config: "
			"nothing to re-read");
		return;
	}
	memset(&nt, 0, sizeof(nt));
	if (tgt_config_load(&nt, t->config_path, err, sizeof(err))) {
		tgt_log("SIGHUP: %s; the running configuration stays", err);
		tgt_config_free(&nt);
		return;
	}
	rl.sink = fopen("/dev/null", "w");
	if (!rl.sink || take_hosts(t, &nt)) {
		tgt_log("SIGHUP: out of memory; the running configuration "
			"stays");
		goto out;
	}
	/* groups the file names exist from now on (as at start) */
	tgt_reactors_pause();
	for (g = 1; g <= TGT_MAX_ANA_GROUPS; g++)
		t->ana_group_used[g] |= nt.ana_group_used[g];
	memcpy(t->disc.nqn, nt.disc.nqn, sizeof(t->disc.nqn));
	tgt_reactors_resume();

	for (i = t->nr_subsys; i-- > 0;) {
		struct tgt_subsys *s = t->subsys[i];
		struct tgt_subsys *m = find_subsys(&nt, s->nqn);

		if (!m || !same_subsys_attrs(s, m))
			simple(&rl, TGT_CTL_REMOVE_SUBSYS, s->nqn, 0, s->nqn);
	}
	for (i = 0; i < nt.nr_subsys; i++) {
		struct tgt_subsys *s = find_subsys(t, nt.subsys[i]->nqn);

		if (s)
			update_subsys(&rl, s, nt.subsys[i]);
		else
			add_subsys(&rl, nt.subsys[i]);
	}
	ports(&rl, &nt);
	if (rl.failures)
		tgt_log("SIGHUP: %s re-read: %u changes applied, %u could not "
			"be (above)",
			t->config_path, rl.changes, rl.failures);
	else
		tgt_log("SIGHUP: %s re-read: %u changes applied",
			t->config_path, rl.changes);
out:
	if (rl.sink)
		fclose(rl.sink);
	tgt_config_free(&nt);
}
