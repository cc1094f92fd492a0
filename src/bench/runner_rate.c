// SPDX-License-Identifier: MIT
/*
 * fio's rate, rate_min, rate_process and thinktime for the job threads:
 * when the next I/O may go and in which direction, and the minimum-rate
 * check at the end of each ratecycle.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "core/clock.h"
#include "rand.h"
#include "runner_int.h"
#include "stats.h"

#define RATE_CYCLE_NS 1000000000ull /* fio's ratecycle default */

/* Does the job do I/O in direction d at all? */
static bool ddir_used(const struct bench_job *job, enum bench_ddir d)
{
	switch (job->rw) {
	case RW_READ:
	case RW_RANDREAD:
		return d == DDIR_READ;
	case RW_WRITE:
	case RW_RANDWRITE:
		return d == DDIR_WRITE;
	case RW_TRIM:
	case RW_RANDTRIM:
		return d == DDIR_TRIM;
	case RW_RW:
	case RW_RANDRW:
		return d == DDIR_READ  ? job->rwmixread > 0 :
		       d == DDIR_WRITE ? job->rwmixread < 100 :
					 false;
	}
	return false;
}

void pace_init(struct pace *pc, const struct bench_job *job, uint64_t seed,
	       uint64_t now)
{
	int d;

	memset(pc, 0, sizeof(*pc));
	for (d = 0; d < DDIR_NR; d++) {
		if (job->rate[d] || job->rate_iops[d])
			pc->rated = true;
		if (job->rate_min[d] || job->rate_iops_min[d])
			pc->check_min = true;
		pc->next_ns[d] = now;
	}
	pc->poisson = job->rate_poisson;
	pc->cycle_ns = now;
	pc->think_left = job->thinktime_blocks;
	pc->ddir = -1;
	bench_rng_seed(&pc->rng, seed ^ 0x5851f42d4c957f2dull);
	pc->on = pc->rated || job->thinktime_ns;
}

/* Sleep until t (or a stop), in slices so a signal is seen. */
void sleep_until(uint64_t t)
{
	for (;;) {
		uint64_t now = clock_now_ns(), d;
		struct timespec ts;

		if (now >= t || atomic_load(&stop_signal) ||
		    atomic_load(&stop_exitall))
			return;
		d = t - now < 100000000ull ? t - now : 100000000ull;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)d;
		nanosleep(&ts, NULL);
	}
}

/*
 * Before the next I/O: true when it must wait for the I/O in flight
 * first (fio quiesces before a thinktime, and before sleeping off a rate
 * it is ahead of).
 */
bool pace_wait(struct pace *pc, int *forced_ddir, struct bench_rng *rng,
	       bool main_phase, const struct bench_job *job, unsigned inflight,
	       uint64_t t_end)
{
	uint64_t now, until;
	int d, od;

	if (pc->think_due) {
		if (inflight)
			return true;
		pc->think_due = false;
		now = clock_now_ns();
		until = now + job->thinktime_ns;
		if (t_end && until > t_end)
			until = t_end;
		/* thinktime_spin of it busy, the rest asleep */
		while (clock_now_ns() < now + job->thinktime_spin_ns &&
		       clock_now_ns() < until)
			;
		sleep_until(until);
		/* fio moves the rate clocks past the think: no burst */
		now = clock_now_ns();
		for (d = 0; d < DDIR_NR; d++)
			if (pc->next_ns[d] < now)
				pc->next_ns[d] = now;
	}
	if (!pc->rated || *forced_ddir >= 0 || !main_phase)
		return false;
	d = pc->ddir >= 0 ? pc->ddir : (int)job_ddir(job, rng);
	pc->ddir = -1;
	now = clock_now_ns();
	until = pc->next_ns[d];
	if (until > now && bench_rw_is_mixed(job->rw)) {
		od = d == DDIR_READ ? DDIR_WRITE : DDIR_READ;
		/* fio's rate_ddir: the other direction if it is behind,
		 * else whichever may go first */
		if (ddir_used(job, (enum bench_ddir)od) &&
		    pc->next_ns[od] < until) {
			d = od;
			until = pc->next_ns[od];
		}
	}
	if (until > now) {
		if (inflight) {
			pc->ddir = d; /* drawn: keep it for after the wait */
			return true;
		}
		sleep_until(t_end && t_end < until ? t_end : until);
	}
	*forced_ddir = d;
	return false;
}

/* An I/O went: that direction's next time, and the thinktime count. */
void pace_issued(struct pace *pc, const struct bench_job *job,
		 enum bench_ddir d, uint32_t len)
{
	double gap = 0;

	if (job->rate_iops[d])
		gap = 1e9 / (double)job->rate_iops[d];
	else if (job->rate[d])
		gap = 1e9 * len / (double)job->rate[d];
	if (gap > 0) {
		if (pc->poisson) {
			/* exponential gaps of the same mean */
			double u = (double)(bench_rng_next(&pc->rng) >> 11) *
				   (1.0 / 9007199254740992.0);

			gap = -log(1.0 - u) * gap;
		}
		pc->next_ns[d] += (uint64_t)gap;
	}
	if (job->thinktime_ns && --pc->think_left == 0) {
		pc->think_due = true;
		pc->think_left = job->thinktime_blocks;
	}
}

/*
 * fio's check_min_rate: at the end of each ratecycle, a direction below
 * its rate_min / rate_iops_min fails the job (true).
 */
bool pace_check_min(struct job_thread *jt, struct pace *pc, uint64_t now,
		    bool counting)
{
	const struct bench_job *job = jt->job;
	struct job_stats *js = &jt->stats;
	uint64_t el = now - pc->cycle_ns;
	int d;

	if (el < RATE_CYCLE_NS)
		return false;
	for (d = 0; d < DDIR_NR && counting; d++) {
		uint64_t b = js->dd[d].io_bytes - pc->cycle_bytes[d];
		uint64_t n = js->dd[d].total_ios - pc->cycle_ios[d];
		uint64_t bps = (uint64_t)((double)b * 1e9 / (double)el);
		uint64_t iops = (uint64_t)((double)n * 1e9 / (double)el);

		if (!ddir_used(job, (enum bench_ddir)d))
			continue;
		/* fio's words; the job fails with EIO, as fio's does */
		if (job->rate_min[d] && bps < job->rate_min[d]) {
			js->error = EIO;
			job_fail(jt, EIO,
				 "%s: rate_min=%lluB/s not met, got %lluB/s",
				 job->name,
				 (unsigned long long)job->rate_min[d],
				 (unsigned long long)bps);
			return true;
		}
		if (job->rate_iops_min[d] && iops < job->rate_iops_min[d]) {
			js->error = EIO;
			job_fail(
				jt, EIO,
				"%s: rate_iops_min=%llu not met, got %llu IOPS",
				job->name,
				(unsigned long long)job->rate_iops_min[d],
				(unsigned long long)iops);
			return true;
		}
	}
	for (d = 0; d < DDIR_NR; d++) {
		pc->cycle_bytes[d] = js->dd[d].io_bytes;
		pc->cycle_ios[d] = js->dd[d].total_ios;
	}
	pc->cycle_ns = now;
	return false;
}
