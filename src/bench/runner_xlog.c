// SPDX-License-Identifier: MIT
/*
 * --verify with write lengths that vary (fio's io_piece log): every write
 * logged as an extent, the log resolved (extents a later write overlaps
 * dropped) and sorted before a read-back, which reads the extents left.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "runner_gen.h"

static void xcover_range(struct gen *g, const struct wext *x, bool set,
			 bool *hit)
{
	uint64_t i = x->off / g->gran, end = (x->off + x->len - 1) / g->gran;

	for (; i <= end; i++) {
		uint64_t bit = 1ull << (i % 64);

		if (g->xcover[i / 64] & bit)
			*hit = true;
		if (set)
			g->xcover[i / 64] |= bit;
		else
			g->xcover[i / 64] &= ~bit;
	}
}

#define WEXT_DEAD (1ull << 63) /* in wext.len while resolving */

/*
 * Keep, of xlog[0, xnr), the extents no later one overlaps, in write order:
 * newest first, an extent touching a granule a newer one covered is dead
 * (part of its data is gone). A second pass clears the granule map and
 * packs the survivors. O(bytes logged / granule).
 */
void xlog_resolve(struct gen *g)
{
	uint64_t i, kept = 0;
	bool hit;

	for (i = g->xnr; i-- > 0;) {
		hit = false;
		xcover_range(g, &g->xlog[i], true, &hit);
		if (hit)
			g->xlog[i].len |= WEXT_DEAD;
	}
	for (i = 0; i < g->xnr; i++) {
		struct wext x = g->xlog[i];

		x.len &= ~WEXT_DEAD;
		xcover_range(g, &x, false, &hit);
		if (!(g->xlog[i].len & WEXT_DEAD))
			g->xlog[kept++] = x;
	}
	g->xnr = kept;
}

int xext_cmp(const void *a, const void *b)
{
	const struct wext *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

int xlog_add(struct gen *g, uint64_t off, uint64_t len)
{
	if (g->xnr == g->xcap) {
		struct wext *n;
		uint64_t cap;

		/* drop dead extents before growing: at most one live extent
		 * per granule, so the log stays within twice that */
		if (g->xnr > 2 * g->nr_gran + 1024) {
			xlog_resolve(g);
			if (g->xnr < g->xcap)
				goto add;
		}
		cap = g->xcap ? 2 * g->xcap : 1024;
		n = realloc(g->xlog, cap * sizeof(*n));
		if (!n)
			return -1;
		g->xlog = n;
		g->xcap = cap;
	}
add:
	g->xlog[g->xnr].off = off - g->region_start;
	g->xlog[g->xnr].len = len;
	g->xnr++;
	return 0;
}

void xlog_read(struct gen *g, const struct wext *x, struct next_io *n)
{
	uint64_t pos = x->off;

	if (g->files)
		pos = multi_file_of(g, pos, n);
	n->d = DDIR_READ;
	n->off = g->region_start + pos;
	n->len = (uint32_t)x->len;
	n->verify = true;
}
