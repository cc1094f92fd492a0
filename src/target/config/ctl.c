// SPDX-License-Identifier: MIT
/*
 * The target's control socket language: one line per connection, the
 * parser both the target and the fuzz harness run, and `mqblk ctl`, the
 * client that sends a line and prints the answer.
 *
 * The answer is text: a first line "ok" or "error: REASON", then
 * whatever the command prints (stats). The target side (executing a
 * command with its reactors) is in reactor.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "target/target.h"

#define CTL_MAX_WORDS 12 /* add-ns NQN NSID URI and its key=value pairs */
#define CTL_TIMEOUT_MS 10000 /* a port-down waits for every reactor */

#define word tgt_ctl_word

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool word_is(const struct word *w, const char *s)
{
	return strlen(s) == w->len && !memcmp(w->s, s, w->len);
}

/* A word for a message: printable ASCII only, at most 40 characters. */
static void word_quote(char *out, size_t size, const struct word *w)
{
	size_t i, o = 0;

	for (i = 0; i < w->len && o + 5 < size && i < 40; i++) {
		unsigned char c = (unsigned char)w->s[i];

		if (c >= 0x20 && c < 0x7f) {
			out[o++] = (char)c;
		} else {
			snprintf(out + o, size - o, "\\x%02x", c);
			o += 4;
		}
	}
	if (i < w->len && o + 4 < size) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = 0;
}

static int parse_grp(const struct word *w, uint32_t *grp, char *err,
		     size_t errlen)
{
	uint64_t v = 0;
	size_t i;
	char q[64];

	for (i = 0; i < w->len; i++) {
		if (w->s[i] < '0' || w->s[i] > '9' || v > TGT_MAX_ANA_GROUPS)
			break;
		v = v * 10 + (uint64_t)(w->s[i] - '0');
	}
	if (i < w->len || !w->len || !v || v > TGT_MAX_ANA_GROUPS) {
		word_quote(q, sizeof(q), w);
		return tgt_err(err, errlen,
			       "ana: %s: the ANA group must be 1..%u", q,
			       TGT_MAX_ANA_GROUPS);
	}
	*grp = (uint32_t)v;
	return 0;
}

static int put_port(struct tgt_ctl_cmd *cmd, const struct word *w,
		    const char *verb, char *err, size_t errlen)
{
	char q[64];

	if (w->len >= sizeof(cmd->port)) {
		word_quote(q, sizeof(q), w);
		return tgt_err(err, errlen, "%s: %s: port name too long", verb,
			       q);
	}
	memcpy(cmd->port, w->s, w->len);
	cmd->port[w->len] = 0;
	return 0;
}

/* ns-set NQN NSID KEY=VALUE: the words checked for form only; the
 * target finds the namespace and its driver judges the key and value. */
static int parse_ns_set(const struct word *w, size_t n, struct tgt_ctl_cmd *cmd,
			char *err, size_t errlen)
{
	const char *eq;
	uint64_t v = 0;
	size_t i, klen;
	char q[64];

	if (n != 4)
		return tgt_err(err, errlen, "usage: ns-set NQN NSID KEY=VALUE");
	cmd->op = TGT_CTL_NS_SET;
	if (w[1].len > TGT_NQN_MAX) {
		word_quote(q, sizeof(q), &w[1]);
		return tgt_err(err, errlen, "ns-set: %s: NQN too long", q);
	}
	memcpy(cmd->nqn, w[1].s, w[1].len);
	cmd->nqn[w[1].len] = 0;
	for (i = 0; i < w[2].len && v <= UINT32_MAX; i++) {
		if (w[2].s[i] < '0' || w[2].s[i] > '9')
			break;
		v = v * 10 + (uint64_t)(w[2].s[i] - '0');
	}
	if (i < w[2].len || !w[2].len || !v || v > UINT32_MAX - 1) {
		word_quote(q, sizeof(q), &w[2]);
		return tgt_err(err, errlen,
			       "ns-set: %s: the NSID must be a number, 1..%u",
			       q, UINT32_MAX - 1);
	}
	cmd->nsid = (uint32_t)v;
	eq = memchr(w[3].s, '=', w[3].len);
	klen = eq ? (size_t)(eq - w[3].s) : 0;
	if (!eq || !klen || klen >= sizeof(cmd->key) ||
	    w[3].len - klen - 1 >= sizeof(cmd->val) || klen + 1 == w[3].len) {
		word_quote(q, sizeof(q), &w[3]);
		return tgt_err(err, errlen,
			       "ns-set: %s: not KEY=VALUE (a key up to %zu "
			       "characters, a value up to %zu)",
			       q, sizeof(cmd->key) - 1, sizeof(cmd->val) - 1);
	}
	memcpy(cmd->key, w[3].s, klen);
	cmd->key[klen] = 0;
	memcpy(cmd->val, eq + 1, w[3].len - klen - 1);
	cmd->val[w[3].len - klen - 1] = 0;
	return 0;
}

int tgt_ctl_parse(const char *line, size_t len, struct tgt_ctl_cmd *cmd,
		  char *err, size_t errlen)
{
	struct word w[CTL_MAX_WORDS + 1];
	size_t i = 0, n = 0;
	char q[64];

	memset(cmd, 0, sizeof(*cmd));
	while (i < len) {
		while (i < len && is_space(line[i]))
			i++;
		if (i == len)
			break;
		if (n == CTL_MAX_WORDS + 1)
			return tgt_err(err, errlen, "too many words");
		w[n].s = line + i;
		while (i < len && !is_space(line[i])) {
			if (!line[i])
				return tgt_err(err, errlen, "NUL in command");
			i++;
		}
		w[n].len = (size_t)(line + i - w[n].s);
		n++;
	}
	/* -o FORMAT (or -oFORMAT, --output-format=FORMAT) anywhere, for
	 * every command: taken out of the words */
	for (i = 0; i < n; i++) {
		struct word f;
		size_t drop = 1;

		if (word_is(&w[i], "-o") && i + 1 < n) {
			f = w[i + 1];
			drop = 2;
		} else if (word_is(&w[i], "-o")) {
			return tgt_err(err, errlen,
				       "-o: missing the output format (text, "
				       "json; stats: table)");
		} else if (w[i].len > 16 &&
			   !memcmp(w[i].s, "--output-format=", 16)) {
			f.s = w[i].s + 16;
			f.len = w[i].len - 16;
		} else if (w[i].len > 2 && !memcmp(w[i].s, "-o", 2)) {
			f.s = w[i].s + 2;
			f.len = w[i].len - 2;
		} else {
			continue;
		}
		if (word_is(&f, "text")) {
			cmd->format = TGT_CTL_TEXT;
		} else if (word_is(&f, "json")) {
			cmd->format = TGT_CTL_JSON;
		} else if (word_is(&f, "table")) {
			cmd->format = TGT_CTL_TABLE;
		} else {
			word_quote(q, sizeof(q), &f);
			return tgt_err(err, errlen,
				       "-o %s: not an output format (text, "
				       "json; stats: table)",
				       q);
		}
		memmove(&w[i], &w[i + drop], (n - i - drop) * sizeof(w[0]));
		n -= drop;
		i--;
	}
	cmd->json = cmd->format == TGT_CTL_JSON;
	if (!n)
		return tgt_err(err, errlen,
			       "empty command (ana, port-down, port-up, "
			       "stats, ns-set, %s)",
			       tgt_ctl_config_names());
	if (cmd->format == TGT_CTL_TABLE && !word_is(&w[0], "stats")) {
		word_quote(q, sizeof(q), &w[0]);
		return tgt_err(err, errlen,
			       "-o table: only stats has a table (%s: text "
			       "or json)",
			       q);
	}
	switch (tgt_ctl_config_parse(w, n, cmd, err, errlen)) {
	case 0:
		return 0;
	case 1:
		break;
	default:
		return -1;
	}
	if (word_is(&w[0], "ana")) {
		if (n != 4)
			return tgt_err(err, errlen,
				       "usage: ana GROUP PORT STATE");
		cmd->op = TGT_CTL_ANA;
		if (parse_grp(&w[1], &cmd->grp, err, errlen) ||
		    put_port(cmd, &w[2], "ana", err, errlen))
			return -1;
		cmd->state = nvme_ana_state_parse(w[3].s, w[3].len);
		if (!cmd->state) {
			word_quote(q, sizeof(q), &w[3]);
			return tgt_err(err, errlen,
				       "ana: %s: not an ANA state (optimized, "
				       "non-optimized, inaccessible, "
				       "persistent-loss, change)",
				       q);
		}
		return 0;
	}
	if (word_is(&w[0], "port-down") || word_is(&w[0], "port-up")) {
		bool down = word_is(&w[0], "port-down");

		if (n != 2)
			return tgt_err(err, errlen, "usage: %s PORT",
				       down ? "port-down" : "port-up");
		cmd->op = down ? TGT_CTL_PORT_DOWN : TGT_CTL_PORT_UP;
		return put_port(cmd, &w[1], down ? "port-down" : "port-up", err,
				errlen);
	}
	if (word_is(&w[0], "stats")) {
		if (n != 1)
			return tgt_err(err, errlen,
				       "usage: stats [-o text|json|table]");
		cmd->op = TGT_CTL_STATS;
		return 0;
	}
	if (word_is(&w[0], "ns-set"))
		return parse_ns_set(w, n, cmd, err, errlen);
	word_quote(q, sizeof(q), &w[0]);
	return tgt_err(err, errlen,
		       "%s: unknown command (ana, port-down, port-up, stats, "
		       "ns-set, %s)",
		       q, tgt_ctl_config_names());
}

struct tgt_port *tgt_ctl_port(struct tgt *t, const struct tgt_ctl_cmd *cmd,
			      char *err, size_t errlen)
{
	struct tgt_port *p;

	if (cmd->op != TGT_CTL_ANA && cmd->op != TGT_CTL_PORT_DOWN &&
	    cmd->op != TGT_CTL_PORT_UP) {
		tgt_err(err, errlen, "the command names no port of its own");
		return NULL;
	}
	p = tgt_port_find(t, cmd->port, strlen(cmd->port), err, errlen);
	if (!p)
		return NULL;
	if (cmd->op == TGT_CTL_ANA) {
		if (p->discovery_only) {
			tgt_err(err, errlen,
				"ana: port %u serves discovery only: no ANA "
				"groups",
				p->portid);
			return NULL;
		}
		if (!t->ana_group_used[cmd->grp]) {
			tgt_err(err, errlen,
				"ana: ANA group %u does not exist (no namespace "
				"or port configuration names it)",
				cmd->grp);
			return NULL;
		}
	}
	return p;
}

/* ---- mqblk ctl ----------------------------------------------------------- */

static void ctl_usage(FILE *f)
{
	fprintf(f,
		"usage: mqblk ctl SOCKET COMMAND [ARGS] [-o FORMAT]\n"
		"\n"
		"Send one command to a target started with --ctl SOCKET.\n"
		"-o FORMAT, anywhere: text (the default), json (stats: its "
		"document; the others:\n"
		"one object), table (stats alone).\n"
		"\n"
		"  ana GROUP PORT STATE  set ANA group GROUP's state on PORT "
		"(a port ID or\n"
		"                        ADDR:PORT): optimized, non-optimized, "
		"inaccessible,\n"
		"                        persistent-loss or change; "
		"controllers on the port\n"
		"                        get an ANA change event\n"
		"  port-down PORT        stop listening on PORT and close its "
		"connections\n"
		"  port-up PORT          listen on PORT again\n"
		"  stats [-o FORMAT]     ports with their ANA states and "
		"connections, then the\n"
		"                        per-queue table; -o json: ports, "
		"subsystems with\n"
		"                        namespaces (latency histograms) and "
		"controllers with\n"
		"                        queues, each with counters that "
		"survive disconnects;\n"
		"                        -o table: the per-queue table alone "
		"(target --stats)\n"
		"  ns-set NQN NSID KEY=VALUE\n"
		"                        change a namespace's device key live "
		"(null's\n"
		"                        completion_nsec, irqmode=2: a slow "
		"device)\n"
		"\n"
		"Live configuration:\n"
		"  add-subsys NQN [allow_any_host=0|1] [serial=S] [model=M]\n"
		"  remove-subsys NQN     its controllers are disconnected\n"
		"  add-ns NQN NSID URI [uuid=U] [nguid=G] [ana_grpid=N] "
		"[enable=0|1]\n"
		"  remove-ns NQN NSID    I/O in flight completes; the device "
		"closes after it\n"
		"  enable-ns NQN NSID\n"
		"  disable-ns NQN NSID\n"
		"  add-port ID tcp|rdma ADDR PORT\n"
		"  remove-port ID        its connections are closed\n"
		"  link PORT NQN         export subsystem NQN on PORT\n"
		"  unlink PORT NQN       its controllers on PORT are "
		"disconnected\n"
		"  add-host HOSTNQN [dhchap_key=KEY] [tls_key=KEY]\n"
		"  remove-host HOSTNQN   refused while a subsystem allows it\n"
		"  allow-host NQN HOSTNQN\n"
		"  disallow-host NQN HOSTNQN\n"
		"  allow-any-host NQN 0|1  nvmetcli's attr_allow_any_host\n"
		"  save [FILE]           the running configuration as "
		"nvmetcli JSON into FILE\n"
		"                        (default: --config's file), "
		"atomically\n"
		"  show                  the running configuration (-o json: "
		"as save writes it)\n"
		"\n"
		"A target serves the same commands on --ctl PATH and "
		"--stats-socket PATH, or\n"
		"on /tmp/mqblk-target.sock when given neither.\n");
}

/*
 * Send line (len bytes, newline ended) to the control socket at path and
 * print the answer: what follows "ok" to stdout, an "error: " line to
 * stderr. prog names the client in messages. The exit status: 0, or 1
 * (refused, unreachable, no answer).
 */
static int ctl_request(const char *prog, const char *path, const char *line,
		       size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096];
	size_t n, total = 0;
	bool first = true, ok = false;
	struct pollfd pfd;
	ssize_t r;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "%s: socket path too long: %s\n", prog, path);
		return 1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	/* MSG_NOSIGNAL: a peer that closes early is an error said in a
	 * line, not a death by SIGPIPE */
	if (send(fd, line, len, MSG_NOSIGNAL) != (ssize_t)len) {
		fprintf(stderr, "%s: %s: cannot send: %s\n", prog, path,
			strerror(errno));
		close(fd);
		return 1;
	}
	shutdown(fd, SHUT_WR);
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, CTL_TIMEOUT_MS) <= 0) {
			fprintf(stderr, "%s: %s: no answer\n", prog, path);
			close(fd);
			return 1;
		}
		r = read(fd, buf + total, sizeof(buf) - 1 - total);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		total += (size_t)r;
		if (first) {
			char *nl;

			buf[total] = 0;
			nl = strchr(buf, '\n');
			if (!nl && total < sizeof(buf) - 1)
				continue;
			if (nl)
				*nl = 0;
			ok = !strcmp(buf, "ok");
			if (!ok && !strncmp(buf, "error: ", 7))
				fprintf(stderr, "%s: %s\n", prog, buf + 7);
			else if (!ok)
				fprintf(stderr,
					"%s: %s: not an mqblk target's "
					"control socket (it answered \"%.40s\")\n",
					prog, path, buf);
			first = false;
			n = nl ? (size_t)(nl + 1 - buf) : total;
			if (ok && total > n)
				fwrite(buf + n, 1, total - n, stdout);
			total = 0;
			if (!ok)
				break;
			continue;
		}
		fwrite(buf, 1, total, stdout);
		total = 0;
	}
	close(fd);
	if (first) {
		fprintf(stderr, "%s: %s: connection closed without an answer\n",
			prog, path);
		return 1;
	}
	if (fflush(stdout)) {
		fprintf(stderr, "%s: writing the answer: %s\n", prog,
			strerror(errno));
		return 1;
	}
	return ok ? 0 : 1;
}

int tgt_ctl_client(int argc, char **argv)
{
	struct tgt_ctl_cmd cmd;
	char line[TGT_CTL_LINE_MAX], err[256];
	char abs_path[TGT_CTL_LINE_MAX];
	size_t len = 0, n;
	int i;

	/* argv[0] is "ctl" */
	if (argc >= 2 &&
	    (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		ctl_usage(stdout);
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "mqblk ctl: missing %s (see --help)\n",
			argc < 2 ? "SOCKET and COMMAND" : "COMMAND");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		const char *word = argv[i];

		/* save FILE: the target's cwd is not ours */
		if (i == argc - 1 && i > 2 && !strcmp(argv[i - 1], "save") &&
		    word[0] != '/' && word[0] != '-') {
			char cwd[TGT_CTL_LINE_MAX];

			if (!getcwd(cwd, sizeof(cwd)) ||
			    (size_t)snprintf(abs_path, sizeof(abs_path),
					     "%s/%s", cwd,
					     word) >= sizeof(abs_path)) {
				fprintf(stderr,
					"mqblk ctl: save: %s: path too "
					"long\n",
					word);
				return 2;
			}
			word = abs_path;
		}
		n = strlen(word);
		if (len + n + 2 > sizeof(line)) {
			fprintf(stderr, "mqblk ctl: command too long\n");
			return 2;
		}
		if (i > 2)
			line[len++] = ' ';
		memcpy(line + len, word, n);
		len += n;
	}
	/* refused here already: no round trip for a typo */
	if (tgt_ctl_parse(line, len, &cmd, err, sizeof(err))) {
		fprintf(stderr, "mqblk ctl: %s\n", err);
		return 2;
	}
	line[len++] = '\n';
	return ctl_request("mqblk ctl", argv[1], line, len);
}

int tgt_stats_client(const char *path)
{
	static const char line[] = "stats -o table\n";

	return ctl_request("mqblk target --stats", path, line,
			   sizeof(line) - 1);
}
