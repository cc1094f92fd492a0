// SPDX-License-Identifier: MIT
/*
 * How a run is stopped from outside: SIGINT and SIGTERM taken on a thread
 * of their own, raising the flags the job threads poll.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "runner_int.h"

/*
 * SIGINT and SIGTERM end a run as they end fio's: the signal is named on
 * stderr, each job stops issuing (its verify pass too), lets what it has
 * out complete, and the report covers what ran; no later group starts and
 * the exit status is 128, fio's. A second signal takes its default action.
 * The signals are blocked in every thread (the device's own threads inherit
 * the mask) and taken by one thread in sigwait, so no library call ever
 * sees EINTR. Like fio, this takes them even where the shell had set them
 * ignored (a background job of a script).
 */
_Atomic int stop_signal;
/* fio's exitall: a job with it has ended, every other one stops */
_Atomic int stop_exitall;
/* set with either of those: the reap loop loads this one word */
_Atomic int stop_any;

static void *signal_thread_fn(void *arg)
{
	const sigset_t *set = arg;
	int sig;

	for (;;) {
		if (sigwait(set, &sig))
			continue;
		atomic_store(&stop_any, 1);
		if (atomic_exchange(&stop_signal, sig)) {
			sigset_t one;

			signal(sig, SIG_DFL);
			sigemptyset(&one);
			sigaddset(&one, sig);
			pthread_sigmask(SIG_UNBLOCK, &one, NULL);
			raise(sig);
		}
		fprintf(stderr, "\nmqblk: terminating on signal %d\n", sig);
	}
	return NULL;
}

void catch_stop_signals(void)
{
	static sigset_t set;
	static bool done;
	pthread_attr_t a;
	pthread_t t;

	if (done)
		return;
	done = true;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGINT, SIG_DFL); /* blocked: pending until sigwait */
	signal(SIGTERM, SIG_DFL);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &a, signal_thread_fn, &set))
		pthread_sigmask(SIG_UNBLOCK, &set, NULL); /* default action */
	pthread_attr_destroy(&a);
}
