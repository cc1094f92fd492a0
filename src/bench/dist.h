/* SPDX-License-Identifier: MIT */
/*
 * fio's --random_distribution laws for random offsets (zipf, pareto,
 * normal), after fio 3.33's lib/zipf.c and lib/gauss.c: the same formulas,
 * the same hash scattering the hot blocks over the range, the same optional
 * center; the uniform numbers come from mqblk's generator (rand.h), not
 * fio's tausworthe, so the sequences are fio's in law, not value for value.
 */
#ifndef MQBLK_BENCH_DIST_H
#define MQBLK_BENCH_DIST_H

#include <stdint.h>

#include "rand.h"

enum bench_rand_dist {
	DIST_RANDOM = 0, /* uniform, fio's default */
	DIST_ZIPF,
	DIST_PARETO,
	DIST_NORMAL,
};

struct bench_dist {
	enum bench_rand_dist kind;
	uint64_t nranges; /* blocks in the range */
	uint64_t rand_off; /* where block 0 of the law lands */
	/* zipf: theta and the sums fio derives from it */
	double theta, zetan, zeta2, alpha, eta, half_pow;
	/* pareto: log(h) / log(1 - h) */
	double pareto_pow;
	/* normal: the spread, in blocks */
	uint64_t stddev;
};

/*
 * A law over nranges (>= 1) blocks: val is zipf's theta, pareto's h or
 * normal's deviation in percent of the range; center in [0, 1] or < 0 for
 * none (fio's random rand_off, or none for normal). rng draws rand_off.
 */
void bench_dist_init(struct bench_dist *d, enum bench_rand_dist kind,
		     double val, double center, uint64_t nranges,
		     struct bench_rng *rng);
/* The next block, in [0, nranges). */
uint64_t bench_dist_next(const struct bench_dist *d, struct bench_rng *rng);

#endif
