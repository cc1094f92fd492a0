// SPDX-License-Identifier: MIT
/*
 * Each reactor's data buffers: power-of-two classes from 4 KiB carved
 * from slabs and kept on per-class free lists, so no lock is shared.
 */
#include <stdlib.h>

#include "reactor_int.h"

static unsigned buf_class(uint32_t len)
{
	unsigned c = 0;

	while (c < TGT_BUF_CLASSES && (4096u << c) < len)
		c++;
	return c;
}

/* A class's buffers are carved from slabs of TGT_BUF_SLAB bytes (one
 * buffer per slab for the classes at least that big): aligned_alloc of a
 * single 4 KiB page costs malloc two, and at iodepth 128 that doubled the
 * target's memory per queue. Slabs are freed when the reactor ends; until
 * then a class's free buffers are kept on its list. */
static int buf_refill(struct tgt_reactor *r, unsigned c)
{
	uint32_t size = 4096u << c;
	uint32_t slab = size < TGT_BUF_SLAB ? TGT_BUF_SLAB : size;
	char *b;
	uint32_t off;

	if (r->nr_slabs == r->slab_cap) {
		unsigned cap = r->slab_cap ? 2 * r->slab_cap : 16;
		void **n = realloc(r->slabs, cap * sizeof(*n));

		if (!n)
			return -1;
		r->slabs = n;
		r->slab_cap = cap;
	}
	b = aligned_alloc(4096, slab);
	if (!b)
		return -1;
	r->slabs[r->nr_slabs++] = b;
	for (off = slab; off >= size; off -= size) {
		*(void **)(b + off - size) = r->bufs[c];
		r->bufs[c] = b + off - size;
	}
	return 0;
}

void *tgt_buf_get(struct tgt_reactor *r, uint32_t len, uint32_t *cap)
{
	unsigned c = buf_class(len);
	void *b;

	if (c >= TGT_BUF_CLASSES) {
		*cap = (len + 4095) & ~4095u;
		return aligned_alloc(4096, *cap);
	}
	*cap = 4096u << c;
	if (!r->bufs[c] && buf_refill(r, c))
		return NULL;
	b = r->bufs[c];
	r->bufs[c] = *(void **)b;
	return b;
}

void tgt_buf_put(struct tgt_reactor *r, void *buf, uint32_t cap)
{
	unsigned c = buf_class(cap);

	if (c >= TGT_BUF_CLASSES || (4096u << c) != cap) {
		free(buf);
		return;
	}
	*(void **)buf = r->bufs[c];
	r->bufs[c] = buf;
}

void tgt_buf_abandon(struct tgt_reactor *r, void *buf, uint32_t cap)
{
	unsigned c = buf_class(cap);

	(void)r;
	if (c >= TGT_BUF_CLASSES || (4096u << c) != cap)
		free(buf); /* not from a slab */
}
