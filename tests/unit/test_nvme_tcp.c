// SPDX-License-Identifier: MIT
/*
 * Unit tests of the NVMe/TCP host driver's set-up that need no target:
 * a connect a signal interrupts goes on (POSIX: the kernel keeps
 * connecting; EINTR is not the connect's outcome).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <mqblk/mqblk.h>

static atomic_int signals_caught;

static void on_alarm(int sig)
{
	(void)sig;
	atomic_fetch_add(&signals_caught, 1);
}

struct peer {
	int lfd;
	pthread_t opener;
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* While the opener's connect waits (the listener's accept queue is full,
 * so its SYN is dropped until a retransmission finds room), interrupt it
 * with SIGALRM every 50 ms for 600 ms; then make room, and close the
 * connection that arrives without answering its ICReq. */
static void *peer_fn(void *arg)
{
	struct peer *p = arg;
	sigset_t set;
	int i, fd;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < 12; i++) {
		sleep_ms(50);
		pthread_kill(p->opener, SIGALRM);
	}
	/* the filler, then the opener's if it still connects (bounded:
	 * one that gave up never comes) */
	for (i = 0; i < 2; i++) {
		struct pollfd pf = { .fd = p->lfd, .events = POLLIN };

		if (poll(&pf, 1, 10000) != 1)
			break;
		fd = accept(p->lfd, NULL, NULL);
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

static void test_connect_interrupted(void **state)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	struct mqblk_dev_opts o;
	struct mqblk_dev *dev = NULL;
	struct peer p;
	pthread_t pt;
	char uri[256], err[256] = "";
	int filler, ret;

	(void)state;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p.lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(p.lfd >= 0);
	assert_int_equal(bind(p.lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	/* backlog 0: one connection queued fills it */
	assert_int_equal(listen(p.lfd, 0), 0);
	assert_int_equal(getsockname(p.lfd, (struct sockaddr *)&a, &alen), 0);
	filler = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(filler, (struct sockaddr *)&a, sizeof(a)), 0);

	/* no SA_RESTART: the connect sees EINTR, as under libFuzzer's
	 * SIGALRM (fuzz-host's open failed so on a loaded machine) */
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	p.opener = pthread_self();
	assert_int_equal(pthread_create(&pt, NULL, peer_fn, &p), 0);
	snprintf(uri, sizeof(uri),
		 "nvme-tcp://127.0.0.1:%u/nqn.2026-12.io.mqblk:eintr"
		 "?ctrl_loss_tmo=0",
		 ntohs(a.sin_port));
	mqblk_dev_opts_init(&o);
	ret = mqblk_dev_open(uri, &o, &dev, err, sizeof(err));
	pthread_join(pt, NULL);
	sigaction(SIGALRM, &old, NULL);

	/* the signals came while it connected, and the connect held: the
	 * open fails later, at the ICReq nobody answered */
	assert_true(atomic_load(&signals_caught) > 0);
	assert_int_not_equal(ret, 0);
	if (strstr(err, "connect to") || !strstr(err, "ICReq"))
		fail_msg("want an ICReq failure, got: %s", err);
	close(filler);
	close(p.lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect_interrupted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
