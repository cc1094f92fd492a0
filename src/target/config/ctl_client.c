// SPDX-License-Identifier: MIT
/*
 * `mqblk ctl SOCKET COMMAND`: the client of the target's control socket.
 * The line is checked with the target's own parser (ctl.c) before it is
 * sent; the answer (a first line "ok" or "error: REASON", then what the
 * command prints) is printed as it comes. `mqblk target --stats` reads
 * the stats table the same way.
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

#define CTL_TIMEOUT_MS 10000 /* a port-down waits for every reactor */

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
