/* SPDX-License-Identifier: MIT */
/*
 * fio's non-uniform offset laws (see dist.h). Zipf is Gray et al.'s
 * constant-time method ("Quickly generating billion-record synthetic
 * databases", 1994) with zeta(n) summed over at most fio's 10 million
 * terms; pareto raises a uniform number to log(h)/log(1-h) (the 80/20 rule
 * at h = 0.2); normal averages 12 uniform draws then adds a spread.
 */
#include <math.h>

#include "dist.h"

/* fio's ZIPF_MAX_GEN: zeta(n) beyond 10M terms is left out */
#define ZIPF_MAX_TERMS 10000000ull
/* fio's GAUSS_ITERS */
#define NORMAL_DRAWS 12
/* fio's FRAND32_MAX, the largest 32-bit draw */
#define RAND32_MAX 4294967295.0
/* the 64-bit golden ratio multiplier fio's __hash_u64 (and Linux's
 * hash_64) scatter with */
#define GOLDEN_RATIO_64 0x61c8864680b583ebull

static inline uint32_t draw32(struct bench_rng *rng)
{
	return (uint32_t)(bench_rng_next(rng) >> 32);
}

static inline uint64_t scatter(uint64_t v)
{
	return v * GOLDEN_RATIO_64;
}

void bench_dist_init(struct bench_dist *d, enum bench_rand_dist kind,
		     double val, double center, uint64_t nranges,
		     struct bench_rng *rng)
{
	uint64_t i, terms;

	*d = (struct bench_dist){ .kind = kind, .nranges = nranges };
	if (kind == DIST_NORMAL) {
		if (val != 0.0) {
			d->stddev =
				(uint64_t)ceil((double)nranges * val / 100.0);
			if (d->stddev > nranges / 2)
				d->stddev = nranges / 2;
		}
		/* the center at the middle is no shift; fio computes
		 * nranges * (center - 0.5) in an unsigned, which wraps for a
		 * center below the middle: the same shift modulo nranges */
		if (center >= 0.5) {
			d->rand_off =
				(uint64_t)((double)nranges * (center - 0.5)) %
				nranges;
		} else if (center >= 0.0) {
			uint64_t back =
				(uint64_t)((double)nranges * (0.5 - center)) %
				nranges;

			d->rand_off = back ? nranges - back : 0;
		}
		return;
	}
	d->rand_off = draw32(rng);
	if (center >= 0.0)
		d->rand_off = (uint64_t)((double)nranges * center);
	if (kind == DIST_PARETO) {
		d->pareto_pow = log(val) / log(1.0 - val);
		return;
	}
	d->theta = val;
	d->zeta2 = 1.0 + pow(0.5, val);
	d->half_pow = pow(0.5, val);
	terms = nranges < ZIPF_MAX_TERMS ? nranges : ZIPF_MAX_TERMS;
	for (i = 0; i < terms; i++)
		d->zetan += pow(1.0 / (double)(i + 1), val);
	d->alpha = 1.0 / (1.0 - val);
	d->eta = (1.0 - pow(2.0 / (double)nranges, 1.0 - val)) /
		 (1.0 - d->zeta2 / d->zetan);
}

static uint64_t zipf_next(const struct bench_dist *d, struct bench_rng *rng)
{
	double u = (double)draw32(rng) / RAND32_MAX;
	double z = u * d->zetan;
	uint64_t rank;

	/* ranks from 0, the most likely first */
	if (z < 1.0)
		rank = 0;
	else if (z < 1.0 + d->half_pow)
		rank = 1;
	else
		rank = (uint64_t)((double)d->nranges *
				  pow(d->eta * u - d->eta + 1.0, d->alpha));
	return (scatter(rank) + d->rand_off) % d->nranges;
}

static uint64_t pareto_next(const struct bench_dist *d, struct bench_rng *rng)
{
	double u = (double)draw32(rng) / RAND32_MAX;
	uint64_t n =
		(uint64_t)((double)(d->nranges - 1) * pow(u, d->pareto_pow));

	return (scatter(n) + d->rand_off) % d->nranges;
}

static uint64_t normal_next(const struct bench_dist *d, struct bench_rng *rng)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < NORMAL_DRAWS; i++)
		sum += draw32(rng) % (d->nranges + 1);
	sum = (sum + NORMAL_DRAWS - 1) / NORMAL_DRAWS;
	if (d->stddev) {
		/* uniform in [-stddev/2, stddev/2), halved while it would
		 * take the sum out of the range (fio's unsigned test: a
		 * sum below zero counts as out) */
		int64_t dev =
			(int64_t)((double)d->stddev *
				  ((double)draw32(rng) / (RAND32_MAX + 1.0))) -
			(int64_t)(d->stddev / 2);

		while (sum + (uint64_t)dev >= d->nranges)
			dev /= 2;
		sum += (uint64_t)dev;
	}
	return (scatter(sum) + d->rand_off) % d->nranges;
}

void bench_dist_init_zoned(struct bench_dist *d, bool abs,
			   const struct bench_zone_pick *pick, uint64_t bs,
			   uint64_t nranges)
{
	*d = (struct bench_dist){ .kind = abs ? DIST_ZONED_ABS : DIST_ZONED,
				  .nranges = nranges,
				  .pick = pick,
				  .bs = bs };
}

uint64_t bench_zones_end(const struct bench_zone_pick *pick)
{
	uint64_t end = 0;
	unsigned v;

	for (v = 0; v < BENCH_ZONE_PICKS; v++)
		if (pick[v].end > end)
			end = pick[v].end;
	return end;
}

/* fio's zoned offsets: a percentile 1..100 picks the zone; a block
 * uniformly inside it (fio: its first block when the zone rounds to none) */
static uint64_t zoned_next(const struct bench_dist *d, struct bench_rng *rng)
{
	const struct bench_zone_pick *p =
		&d->pick[bench_rng_below(rng, BENCH_ZONE_PICKS)];
	uint64_t start, len, b;

	if (d->kind == DIST_ZONED) {
		start = p->prev * d->nranges / 100;
		len = d->nranges * (p->end - p->prev) / 100;
	} else {
		start = p->prev / d->bs;
		len = p->end / d->bs - start;
	}
	b = start + (len ? bench_rng_below(rng, len) : 0);
	return b < d->nranges ? b : d->nranges - 1;
}

uint64_t bench_dist_next(const struct bench_dist *d, struct bench_rng *rng)
{
	switch (d->kind) {
	case DIST_ZONED:
	case DIST_ZONED_ABS:
		return zoned_next(d, rng);
	case DIST_ZIPF:
		return zipf_next(d, rng);
	case DIST_PARETO:
		return pareto_next(d, rng);
	case DIST_NORMAL:
		return normal_next(d, rng);
	case DIST_RANDOM:
		break;
	}
	return bench_rng_below(rng, d->nranges);
}
