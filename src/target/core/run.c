// SPDX-License-Identifier: MIT
/*
 * The target's main thread: start the reactors (and --metrics' server),
 * wait for SIGINT/SIGTERM while serving the control sockets, stop. A control command
 * that touches queues (an ANA change's events, a port going down) is a
 * job handed to every reactor through its inbox lock and wake-up
 * eventfd; the main thread waits until each has run it, so `mqblk ctl`
 * answers once the change is in effect.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <mqblk/mqblk.h>

#include "reactor.h"
#include "stats.h"

/* ---- Stats ------------------------------------------------------------- */

/* The RDMA transport's columns (zero on TCP queues). */
static const char *rdma_header(void)
{
	return " rdma_recvs_posted rdma_recvs rdma_sends rdma_signalled "
	       "rdma_invs rdma_cqes rdma_events rdma_mod_timers rdma_reads "
	       "rdma_read_bytes rdma_writes rdma_write_bytes rdma_backlog";
}

static void rdma_row(FILE *f, struct tgt_rdma_stats *s)
{
	_Atomic uint64_t *v[] = {
		&s->recvs_posted, &s->recvs,	  &s->sends,  &s->signalled,
		&s->invs,	  &s->cqes,	  &s->events, &s->mod_timers,
		&s->reads,	  &s->read_bytes, &s->writes, &s->write_bytes,
		&s->backlog
	};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		fprintf(f, "%s%llu", i ? " " : "",
			(unsigned long long)atomic_load(v[i]));
	fputc('\n', f);
}

static void stats_dump(struct tgt *t, FILE *f)
{
	unsigned i;

	fprintf(f,
		"%-6s %-4s %-22s %-8s %10s %10s %10s %12s %12s %5s %5s "
		"%10s %10s %6s %6s %6s %10s %10s %10s %10s %10s %10s %10s %10s"
		"%s\n",
		"ctrl", "qid", "peer", "reactor", "cmds", "reads", "writes",
		"read_bytes", "write_bytes", "depth", "max", "avg_lat_us",
		"max_lat_us", "errors", "stalls", "ddgst", "r2ts", "sends",
		"cqes", "held", "zc_sends", "zc_polls", "zc_reads", "zc_copied",
		rdma_header());
	for (i = 0; i < tgt_reactors_count(); i++) {
		struct tgt_reactor *r = tgt_reactor_at(i);
		struct tgt_queue *q;

		pthread_mutex_lock(&r->lock);
		for (q = r->queues; q; q = q->next) {
			uint64_t lc = atomic_load(&q->st.lat_count);
			uint64_t ls = atomic_load(&q->st.lat_ns_sum);

			fprintf(f,
				"%-6u %-4u %-22s %-8u %10llu %10llu %10llu "
				"%12llu %12llu %5u %5u %10.1f %10.1f %6llu "
				"%6llu %6llu %10llu %10llu %10llu %10llu %10llu "
				"%10llu %10llu %10llu ",
				(unsigned)atomic_load(&q->st.cntlid),
				(unsigned)atomic_load(&q->st.qid), q->peer, i,
				(unsigned long long)atomic_load(&q->st.cmds),
				(unsigned long long)atomic_load(
					&q->st.read_cmds),
				(unsigned long long)atomic_load(
					&q->st.write_cmds),
				(unsigned long long)atomic_load(
					&q->st.read_bytes),
				(unsigned long long)atomic_load(
					&q->st.write_bytes),
				atomic_load(&q->st.depth),
				atomic_load(&q->st.max_depth),
				lc ? (double)ls / (double)lc / 1e3 : 0.0,
				(double)atomic_load(&q->st.lat_ns_max) / 1e3,
				(unsigned long long)atomic_load(&q->st.errors),
				(unsigned long long)atomic_load(&q->st.stalls),
				(unsigned long long)atomic_load(
					&q->st.ddgst_errors),
				(unsigned long long)atomic_load(&q->st.r2ts),
				(unsigned long long)atomic_load(&q->st.sends),
				(unsigned long long)atomic_load(&q->st.cqes),
				(unsigned long long)atomic_load(&q->st.held),
				(unsigned long long)atomic_load(
					&q->st.zc_sends),
				(unsigned long long)atomic_load(
					&q->st.zc_polls),
				(unsigned long long)atomic_load(
					&q->st.zc_reads),
				(unsigned long long)atomic_load(
					&q->st.zc_copied));
			rdma_row(f, &q->st.rdma);
		}
		pthread_mutex_unlock(&r->lock);
	}
	fflush(f);
}

/*
 * The control socket at path, named by option opt in messages; -1
 * (logged) if it cannot be had. A path a live target serves is refused,
 * never taken over: bind first, and only when the path is taken and
 * nobody answers on it (a target that died) unlink it and bind again.
 */
static int unix_listen(const char *path, const char *opt)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, probe;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		tgt_log("%s %s: socket path too long", opt, path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		tgt_log("%s %s: %s", opt, path, strerror(errno));
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (errno != EADDRINUSE)
			goto out_close;
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 &&
		    !connect(probe, (struct sockaddr *)&sa, sizeof(sa))) {
			close(probe);
			close(fd);
			tgt_log("%s %s: another target serves this socket: "
				"give this one its own (--ctl PATH)",
				opt, path);
			return -1;
		}
		if (probe >= 0)
			close(probe);
		/* nobody answers: a dead target's */
		unlink(path);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			goto out_close;
	}
	if (listen(fd, 8))
		goto out_close;
	return fd;
out_close:
	tgt_log("%s %s: %s", opt, path, strerror(errno));
	close(fd);
	return -1;
}

/* ---- Control socket ---------------------------------------------------- */

/* Hand job to every reactor and wait until each has run it. The main
 * thread's (tgt_run): not for tgt_local_*, whose one reactor is the
 * caller. */
void tgt_ctl_job_post(struct tgt_ctl_job *job)
{
	unsigned i, n = tgt_reactors_count();
	uint64_t one = 1;

	pthread_mutex_init(&job->lock, NULL);
	pthread_cond_init(&job->done, NULL);
	job->pending = n;
	for (i = 0; i < n; i++) {
		struct tgt_reactor *r = tgt_reactor_at(i);

		pthread_mutex_lock(&r->lock);
		r->ctl_job = job;
		pthread_mutex_unlock(&r->lock);
		if (write(r->wake_fd, &one, sizeof(one)) < 0)
			tgt_log("cannot wake reactor %u: %s", i,
				strerror(errno));
	}
	pthread_mutex_lock(&job->lock);
	while (job->pending)
		pthread_cond_wait(&job->done, &job->lock);
	pthread_mutex_unlock(&job->lock);
	pthread_cond_destroy(&job->done);
	pthread_mutex_destroy(&job->lock);
}

/* Each subsystem's totals (controllers gone included) and each
 * namespace's, for the text form: what the queue table forgets when a
 * host disconnects. */
static void subsys_lines(struct tgt *t, FILE *f)
{
	struct tgt_snap *snap = tgt_stats_collect(t);
	unsigned i, k;

	if (!snap) {
		fprintf(f, "subsys totals: out of memory\n");
		return;
	}
	for (i = 0; i < snap->nr_subsys; i++) {
		const struct tgt_snap_subsys *ss = &snap->subsys[i];
		const uint64_t *v = ss->c.v;

		if (ss->discovery)
			continue;
		fprintf(f,
			"subsys %s controllers %u gone %llu cmds %llu reads "
			"%llu writes %llu read_bytes %llu write_bytes %llu "
			"errors %llu\n",
			ss->nqn, ss->nr_ctrls,
			(unsigned long long)ss->ctrls_gone,
			(unsigned long long)v[TGT_C_CMDS],
			(unsigned long long)v[TGT_C_READ_CMDS],
			(unsigned long long)v[TGT_C_WRITE_CMDS],
			(unsigned long long)v[TGT_C_READ_BYTES],
			(unsigned long long)v[TGT_C_WRITE_BYTES],
			(unsigned long long)v[TGT_C_ERRORS]);
		for (k = 0; k < ss->nr_ns; k++) {
			const struct tgt_snap_ns *n = &ss->ns[k];

			fprintf(f,
				"ns %s %u reads %llu writes %llu read_bytes "
				"%llu write_bytes %llu errors %llu avg_lat_us "
				"%.1f\n",
				ss->nqn, n->nsid,
				(unsigned long long)n->read_cmds,
				(unsigned long long)n->write_cmds,
				(unsigned long long)n->read_bytes,
				(unsigned long long)n->write_bytes,
				(unsigned long long)n->errors,
				n->lat_count ?
					(double)n->lat_ns_sum /
						(double)n->lat_count / 1e3 :
					0.0);
		}
	}
	tgt_stats_free(snap);
}

/* Ports, their ANA states and connections; controllers; subsystem and
 * namespace totals; the queues. */
static void ctl_stats(struct tgt *t, FILE *f)
{
	unsigned i, k, g;
	char name[128];

	fprintf(f, "ana change count %llu\n",
		(unsigned long long)atomic_load(&t->ana_chgcnt));
	for (i = 0; i < t->nr_ports; i++) {
		struct tgt_port *p = &t->ports[i];
		unsigned conns = 0;

		if (p->removed)
			continue;
		for (k = 0; k < tgt_reactors_count(); k++) {
			struct tgt_reactor *r = tgt_reactor_at(k);
			struct tgt_queue *q;

			pthread_mutex_lock(&r->lock);
			/* q->port is set before the queue is listed (under
			 * this lock); closing is the reactor's own */
			for (q = r->queues; q; q = q->next)
				conns += q->port == p;
			pthread_mutex_unlock(&r->lock);
		}
		tgt_port_name(p, name, sizeof(name));
		fprintf(f, "port %u %s %s%s connections %u", p->portid, name,
			atomic_load(&p->down) ? "down" : "up",
			p->discovery_only ? " discovery" : "", conns);
		if (p->trtype == NVMF_TRTYPE_RDMA)
			fprintf(f, " rejects %llu",
				(unsigned long long)atomic_load(&p->rejects));
		if (!p->discovery_only) {
			fprintf(f, " ana");
			for (g = 1; g <= TGT_MAX_ANA_GROUPS; g++)
				if (t->ana_group_used[g])
					fprintf(f, " %u:%s", g,
						nvme_ana_state_name(atomic_load(
							&p->ana_state[g])));
		}
		fputc('\n', f);
	}
	for (i = 0; i < t->nr_subsys; i++) {
		struct tgt_subsys *s = t->subsys[i];
		struct tgt_ctrl *c;

		pthread_mutex_lock(&s->lock);
		for (c = s->ctrls; c; c = c->next) {
			unsigned nq = 0;

			for (k = 1; k <= TGT_MAX_IO_QUEUES; k++)
				nq += c->ioq[k] != NULL;
			fprintf(f,
				"ctrl %u subsys %s port %u host %s io_queues "
				"%u%s\n",
				c->cntlid, s->nqn, c->port->portid, c->hostnqn,
				nq, atomic_load(&c->dead) ? " dead" : "");
		}
		pthread_mutex_unlock(&s->lock);
	}
	subsys_lines(t, f);
	stats_dump(t, f);
}

/* Run a parsed control command. 0, or -1 with the reason in err. */
static int ctl_exec(struct tgt *t, const struct tgt_ctl_cmd *cmd, FILE *out,
		    char *err, size_t errlen)
{
	struct tgt_ctl_job job;
	struct tgt_port *p;
	char name[128], text[256];

	if (cmd->op == TGT_CTL_STATS && cmd->format == TGT_CTL_TABLE) {
		fprintf(out, "ok\n");
		stats_dump(t, out);
		return 0;
	}
	if (cmd->op == TGT_CTL_STATS && cmd->format == TGT_CTL_JSON) {
		struct tgt_snap *snap = tgt_stats_collect(t);
		char *js = snap ? tgt_stats_json(snap) : NULL;

		tgt_stats_free(snap);
		if (!js) {
			snprintf(err, errlen, "stats: out of memory");
			return -1;
		}
		fprintf(out, "ok\n%s", js);
		free(js);
		return 0;
	}
	if (cmd->op == TGT_CTL_STATS) {
		fprintf(out, "ok\n");
		ctl_stats(t, out);
		return 0;
	}
	if (cmd->op == TGT_CTL_NS_SET || cmd->op > TGT_CTL_STATS)
		return tgt_live_exec(t, cmd, out, err, errlen);
	p = tgt_ctl_port(t, cmd, err, errlen);
	if (!p)
		return -1;
	tgt_port_name(p, name, sizeof(name));
	memset(&job, 0, sizeof(job));
	job.op = cmd->op;
	job.port = p;
	switch (cmd->op) {
	case TGT_CTL_ANA:
		/* the state first: the event's log read must find it */
		atomic_store(&p->ana_state[cmd->grp], cmd->state);
		atomic_fetch_add(&t->ana_chgcnt, 1);
		job.aen_dw0 = NVME_AER_DW0(NVME_AER_TYPE_NOTICE,
					   NVME_AER_NOTICE_ANA, NVME_LOG_ANA);
		tgt_ctl_job_post(&job);
		tgt_log("port %u (%s): ANA group %u %s", p->portid, name,
			cmd->grp, nvme_ana_state_name(cmd->state));
		tgt_live_answer(out, cmd, "ana", NULL, "address", name, "state",
				nvme_ana_state_name(cmd->state), "group",
				cmd->grp);
		return 0;
	case TGT_CTL_PORT_DOWN:
		if (atomic_load(&p->down)) {
			snprintf(err, errlen,
				 "port-down: port %u (%s) is down "
				 "already",
				 p->portid, name);
			return -1;
		}
		atomic_store(&p->down, true);
		atomic_fetch_add(&t->disc.genctr, 1);
		tgt_ctl_job_post(&job);
		tgt_log("port %u (%s): down, %u connections closed", p->portid,
			name, job.closed);
		snprintf(text, sizeof(text),
			 "port %u %s down: %u connections closed", p->portid,
			 name, job.closed);
		tgt_live_answer(out, cmd, "port-down", text, "address", name,
				NULL, NULL, "connections_closed", job.closed);
		return 0;
	case TGT_CTL_PORT_UP:
		if (!atomic_load(&p->down)) {
			snprintf(err, errlen, "port-up: port %u (%s) is up",
				 p->portid, name);
			return -1;
		}
		job.listen_fd = tgt_transport_ops(p->trtype)->port_open(p);
		if (job.listen_fd < 0) {
			snprintf(err, errlen,
				 "port-up: cannot listen on %s: %s", name,
				 strerror(errno));
			return -1;
		}
		/* reactor 0 takes the listener; every reactor tells its
		 * discovery controllers (the port is back in the log) */
		atomic_store(&p->down, false);
		atomic_fetch_add(&t->disc.genctr, 1);
		tgt_ctl_job_post(&job);
		tgt_log("port %u (%s): up", p->portid, name);
		snprintf(text, sizeof(text), "port %u %s up", p->portid, name);
		tgt_live_answer(out, cmd, "port-up", text, "address", name,
				NULL, NULL, "portid", p->portid);
		return 0;
	default:
		break;
	}
	snprintf(err, errlen, "internal: unhandled command");
	return -1;
}

/* One control connection: a line in, the answer out, closed. A client
 * that sends nothing for a second is dropped: the main thread serves the
 * signals too. */
static void ctl_serve(struct tgt *t, int listen_fd)
{
	char line[TGT_CTL_LINE_MAX], err[256];
	struct tgt_ctl_cmd cmd;
	size_t len = 0;
	bool got_line = false;
	FILE *f;
	int c;

	c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	while (len < sizeof(line)) {
		struct pollfd pfd = { .fd = c, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 1000) <= 0)
			break;
		n = read(c, line + len, sizeof(line) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (memchr(line, '\n', len)) {
			got_line = true;
			len = (size_t)((char *)memchr(line, '\n', len) - line);
			break;
		}
	}
	f = fdopen(c, "w");
	if (!f) {
		close(c);
		return;
	}
	if (!got_line && len == sizeof(line))
		fprintf(f, "error: command longer than %u bytes\n",
			TGT_CTL_LINE_MAX - 1);
	else if (tgt_ctl_parse(line, len, &cmd, err, sizeof(err)) ||
		 ctl_exec(t, &cmd, f, err, sizeof(err)))
		fprintf(f, "error: %s\n", err);
	fclose(f);
}

/* ---- Start and stop ------------------------------------------------------ */

/* "on CPUs 0,1" (reactor i on the i-th), or "not pinned", for the log. */
static const char *reactor_cpus(char *buf, size_t len)
{
	unsigned i, n = tgt_reactors_count();
	size_t off;

	if (tgt_reactor_cpu(0) < 0) {
		snprintf(buf, len, "(not pinned: more than the CPUs allowed)");
		return buf;
	}
	off = (size_t)snprintf(buf, len, "on CPU%s ", n > 1 ? "s" : "");
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%d",
					i ? "," : "", tgt_reactor_cpu(i));
	return buf;
}

/* The namespaces a host can see: a disabled one is configured, not
 * exported. */
static unsigned subsys_nr_enabled(const struct tgt_subsys *s)
{
	unsigned i, n = 0;

	for (i = 0; i < s->nr_ns; i++)
		n += s->ns[i]->enabled;
	return n;
}

int tgt_run(struct tgt *t)
{
	sigset_t sigs;
	int sfd = -1, stats_fd = -1, ctl_fd = -1, status = 1;
	unsigned i, j, started = 0;
	bool metrics = false;
	char cpus[256], err[256];

	/* before any thread exists (devices start the core's): SIGINT and
	 * SIGTERM are read from the signalfd, by this thread only */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP); /* reload (core/reload.c) */
	sigaddset(&sigs, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	sigdelset(&sigs, SIGPIPE);
	/* t->ports takes its spare slots before the metrics thread may
	 * read it */
	if (tgt_live_init(t)) {
		tgt_log("out of memory");
		return 1;
	}
	/* before the devices open: a busy address is said at once */
	if (t->metrics && tgt_metrics_bind(t, err, sizeof(err))) {
		tgt_log("%s", err);
		return 1;
	}
	if (tgt_reactors_setup(t)) {
		tgt_metrics_stop();
		return 1;
	}
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0)
		goto out;
	if (t->ctl_path) {
		/* asked for explicitly: no target without it */
		ctl_fd = unix_listen(t->ctl_path, "--ctl");
		if (ctl_fd < 0)
			goto out;
	}
	/* --stats-socket (or the default path): the same commands, served
	 * the same way (one protocol, so no socket can be the wrong one) */
	if (t->stats_path &&
	    (!t->ctl_path || strcmp(t->stats_path, t->ctl_path))) {
		stats_fd = unix_listen(t->stats_path, "--stats-socket");
		if (stats_fd < 0)
			goto out;
	}
	started = tgt_reactors_launch();
	if (started < tgt_reactors_count())
		goto out;
	if (t->metrics) {
		if (tgt_metrics_start(t, err, sizeof(err))) {
			tgt_log("%s", err);
			goto out;
		}
		metrics = true;
	}

	for (i = 0; i < t->nr_ports; i++) {
		struct tgt_port *p = &t->ports[i];

		const char *tr = p->trtype == NVMF_TRTYPE_RDMA ? "rdma:" : "";

		if (p->discovery_only) {
			tgt_log("listening on %s%s:%s (discovery)", tr,
				p->traddr, p->trsvcid);
			continue;
		}
		for (j = 0; j < p->nr_subsys; j++)
			tgt_log("listening on %s%s:%s: %s (%u namespaces)", tr,
				p->traddr, p->trsvcid, p->subsys[j]->nqn,
				subsys_nr_enabled(p->subsys[j]));
	}
	for (i = 0; i < t->nr_subsys; i++) {
		const struct tgt_subsys *s = t->subsys[i];

		/* not an error (hosts may be meant to come later, as with
		 * nvmet), but a target nobody can use says so */
		if (!s->allow_any_host && !s->nr_hosts)
			tgt_log("warning: %s allows no host: no host can "
				"connect to it (--allow-host NQN or "
				"--allow-any-host; nvmetcli: allowed_hosts or "
				"attr_allow_any_host)",
				s->nqn);
	}
	tgt_log("ready: %u reactor%s %s%s%s%s%s%s%s%s", tgt_reactors_count(),
		tgt_reactors_count() > 1 ? "s" : "",
		reactor_cpus(cpus, sizeof(cpus)),
		stats_fd >= 0 ? ", stats on " : "",
		stats_fd >= 0 ? t->stats_path : "",
		ctl_fd >= 0 ? ", control on " : "",
		ctl_fd >= 0 ? t->ctl_path : "",
		metrics ? ", metrics on http://" : "",
		metrics ? t->metrics : "", metrics ? "/metrics" : "");

	for (;;) {
		struct pollfd pfd[3] = { { .fd = sfd, .events = POLLIN },
					 { .fd = stats_fd, .events = POLLIN },
					 { .fd = ctl_fd, .events = POLLIN } };
		int n = poll(pfd, 3, -1);

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (pfd[0].revents & POLLIN)) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) != sizeof(si)) {
				/* nothing read: nothing to do */
			} else if (si.ssi_signo == SIGHUP) {
				tgt_live_reload(t);
			} else {
				tgt_log("%s: shutting down",
					strsignal((int)si.ssi_signo));
				break;
			}
		}
		if (n > 0 && stats_fd >= 0 && (pfd[1].revents & POLLIN))
			ctl_serve(t, stats_fd);
		if (n > 0 && ctl_fd >= 0 && (pfd[2].revents & POLLIN))
			ctl_serve(t, ctl_fd);
	}
	status = 0;
out:
	/* its thread reads the namespaces' counters: gone before they are */
	tgt_metrics_stop();
	if (tgt_reactors_teardown(t, started))
		status = 1;
	if (atomic_load(&t->conn_timeouts) || atomic_load(&t->conn_evictions))
		tgt_log("connections closed before their Connect: %llu timed "
			"out, %llu to make room for newer ones",
			(unsigned long long)atomic_load(&t->conn_timeouts),
			(unsigned long long)atomic_load(&t->conn_evictions));
	tgt_live_fini(t);
	if (atomic_load(&t->close_flush_failed)) {
		/* written data may sit in a cache that would not flush: not
		 * a clean stop, and the exit status says so */
		tgt_log("stopped: %llu namespace cache flush(es) failed: "
			"data written may not be durable",
			(unsigned long long)atomic_load(
				&t->close_flush_failed));
		status = 1;
	} else if (!status)
		tgt_log("stopped: every connection closed, caches flushed");
	else if (started)
		tgt_log("stopped with I/O still outstanding at a device");
	if (stats_fd >= 0) {
		close(stats_fd);
		unlink(t->stats_path);
	}
	if (sfd >= 0)
		close(sfd);
	if (ctl_fd >= 0) {
		close(ctl_fd);
		unlink(t->ctl_path);
	}
	return status;
}
