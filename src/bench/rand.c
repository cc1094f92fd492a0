// SPDX-License-Identifier: MIT
/*
 * Random offsets: generator seeding and the two-level random map.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rand.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void bench_rng_seed(struct bench_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

int bench_randmap_init(struct bench_randmap *m, uint64_t nr_blocks)
{
	memset(m, 0, sizeof(*m));
	if (!nr_blocks)
		return -EINVAL;
	m->nr_blocks = nr_blocks;
	m->nr_l0 = (nr_blocks + 63) / 64;
	m->nr_l1 = (m->nr_l0 + 63) / 64;
	m->l0 = calloc(m->nr_l0, sizeof(uint64_t));
	m->l1 = calloc(m->nr_l1, sizeof(uint64_t));
	if (!m->l0 || !m->l1) {
		bench_randmap_free(m);
		return -ENOMEM;
	}
	bench_randmap_reset(m);
	return 0;
}

void bench_randmap_free(struct bench_randmap *m)
{
	free(m->l0);
	free(m->l1);
	m->l0 = m->l1 = NULL;
}

void bench_randmap_reset(struct bench_randmap *m)
{
	uint64_t tail = m->nr_blocks % 64;

	memset(m->l0, 0, m->nr_l0 * sizeof(uint64_t));
	memset(m->l1, 0, m->nr_l1 * sizeof(uint64_t));
	/* bits past the end are permanently "used" */
	if (tail) {
		m->l0[m->nr_l0 - 1] = ~((1ull << tail) - 1);
	}
	tail = m->nr_l0 % 64;
	if (tail)
		m->l1[m->nr_l1 - 1] = ~((1ull << tail) - 1);
	m->nr_free = m->nr_blocks;
}

static inline void mark(struct bench_randmap *m, uint64_t b)
{
	uint64_t w = b / 64;

	m->l0[w] |= 1ull << (b % 64);
	if (m->l0[w] == ~0ull)
		m->l1[w / 64] |= 1ull << (w % 64);
	m->nr_free--;
}

uint64_t bench_randmap_claim(struct bench_randmap *m, uint64_t want)
{
	uint64_t w, i, free_bits, l1w;

	if (!m->nr_free)
		return UINT64_MAX;
	w = want / 64;
	free_bits = ~m->l0[w] & ~((1ull << (want % 64)) - 1);
	if (free_bits) {
		uint64_t b = w * 64 + (uint64_t)__builtin_ctzll(free_bits);

		mark(m, b);
		return b;
	}
	/* next level-0 word with a free bit, via level 1, wrapping */
	w++;
	for (i = 0; i <= m->nr_l1; i++) {
		uint64_t l1 = (w / 64) % m->nr_l1;
		uint64_t avail;

		if (w >= m->nr_l0)
			w = 0, l1 = 0;
		l1w = m->l1[l1];
		avail = ~l1w & ~((1ull << (w % 64)) - 1);
		if (avail) {
			uint64_t b;

			w = l1 * 64 + (uint64_t)__builtin_ctzll(avail);
			b = w * 64 + (uint64_t)__builtin_ctzll(~m->l0[w]);
			mark(m, b);
			return b;
		}
		w = (l1 + 1) * 64;
	}
	return UINT64_MAX;
}

uint64_t bench_randmap_extend(struct bench_randmap *m, uint64_t b, uint64_t nr)
{
	uint64_t n = 1;

	/* block by block: an I/O covers at most max_bs / min_bs blocks */
	while (n < nr && b + n < m->nr_blocks &&
	       !(m->l0[(b + n) / 64] & (1ull << ((b + n) % 64)))) {
		mark(m, b + n);
		n++;
	}
	return n;
}
