/* SPDX-License-Identifier: MIT */
/*
 * Offsets for random workloads: a fast seeded generator and fio's random
 * map (each block touched once per pass, unless --norandommap).
 */
#ifndef MQBLK_BENCH_RAND_H
#define MQBLK_BENCH_RAND_H

#include <stdbool.h>
#include <stdint.h>

/* xoshiro256**: 4 words of state, ~1 ns per number, good equidistribution;
 * fio's tausworthe would do too, the sequence need not match fio's. */
struct bench_rng {
	uint64_t s[4];
};

void bench_rng_seed(struct bench_rng *r, uint64_t seed);

static inline uint64_t bench_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t bench_rng_next(struct bench_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = bench_rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = bench_rng_rotl(s[3], 45);
	return res;
}

/* Uniform in [0, n) (Lemire's multiply-shift; bias < n / 2^64). */
static inline uint64_t bench_rng_below(struct bench_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)bench_rng_next(r) * n) >> 64);
}

/*
 * The random map: two levels of bits, level 1 marking full level-0 words,
 * so finding the next free block near the end of a pass stays cheap.
 */
struct bench_randmap {
	uint64_t nr_blocks;
	uint64_t nr_free;
	uint64_t *l0;
	uint64_t *l1;
	uint64_t nr_l0;
	uint64_t nr_l1;
};

int bench_randmap_init(struct bench_randmap *m, uint64_t nr_blocks);
void bench_randmap_free(struct bench_randmap *m);
void bench_randmap_reset(struct bench_randmap *m);
/* Claim block want if free, else the next free block after it (wrapping).
 * Returns the block, or UINT64_MAX when the map is full. */
uint64_t bench_randmap_claim(struct bench_randmap *m, uint64_t want);
/*
 * An I/O of nr blocks starting at block b (claimed): claim the blocks after
 * it up to the first one already used or the end of the map, as fio's
 * mark_random_map does. Returns how many blocks the I/O may cover (>= 1);
 * fewer than nr means the caller shortens it.
 */
uint64_t bench_randmap_extend(struct bench_randmap *m, uint64_t b, uint64_t nr);

#endif
