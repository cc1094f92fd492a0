/* SPDX-License-Identifier: MIT */
/*
 * fio's --random_distribution laws for random offsets (zipf, pareto,
 * normal), after fio 3.33's lib/zipf.c and lib/gauss.c: the same formulas,
 * the same hash scattering the hot blocks over the range, the same optional
 * center; the uniform numbers come from mqblk's generator (rand.h), not
 * fio's tausworthe, so the sequences are fio's in law, not value for value.
 * zoned and zoned_abs are fio's zones (io_u.c's zoned offsets): a uniform
 * percentile picks a zone, then a block uniformly inside it.
 */
#ifndef MQBLK_BENCH_DIST_H
#define MQBLK_BENCH_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "rand.h"

enum bench_rand_dist {
	DIST_RANDOM = 0, /* uniform, fio's default */
	DIST_ZIPF,
	DIST_PARETO,
	DIST_NORMAL,
	DIST_ZONED, /* zones in percent of the range */
	DIST_ZONED_ABS, /* zones in bytes from its start */
};

/* fio's zone_split_index: for each percentile 1..100 of the draw, the
 * zone it picks, [prev, end) in percent of the range (zoned) or in bytes
 * (zoned_abs) */
struct bench_zone_pick {
	uint64_t prev, end;
};
#define BENCH_ZONE_PICKS 100

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
	/* zoned: the job's table (BENCH_ZONE_PICKS entries); zoned_abs:
	 * the block size its bytes are counted in */
	const struct bench_zone_pick *pick;
	uint64_t bs;
};

/*
 * A law over nranges (>= 1) blocks: val is zipf's theta, pareto's h or
 * normal's deviation in percent of the range; center in [0, 1] or < 0 for
 * none (fio's random rand_off, or none for normal). rng draws rand_off.
 */
void bench_dist_init(struct bench_dist *d, enum bench_rand_dist kind,
		     double val, double center, uint64_t nranges,
		     struct bench_rng *rng);
/*
 * fio's zoned (abs false: picks in percent) or zoned_abs (in bytes, bs
 * the block they are counted in; every zone must end inside nranges
 * blocks: bench_zones_end / bs <= nranges) law over nranges (>= 1) blocks, pick the
 * job's table of BENCH_ZONE_PICKS entries (kept by the caller).
 */
void bench_dist_init_zoned(struct bench_dist *d, bool abs,
			   const struct bench_zone_pick *pick, uint64_t bs,
			   uint64_t nranges);
/* zoned_abs: the end of its last zone, in bytes (0: no zones) */
uint64_t bench_zones_end(const struct bench_zone_pick *pick);
/* The next block, in [0, nranges). */
uint64_t bench_dist_next(const struct bench_dist *d, struct bench_rng *rng);

#endif
