// SPDX-License-Identifier: MIT
/*
 * Write buffers' content made to compress or repeat (fio's
 * buffer_compress_percentage, dedupe_percentage): runner.c's refill
 * calls it, for such jobs only, before each write.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rand.h"
#include "runner_gen.h"

/*
 * fio's fill_io_buffer with buffer_compress_percentage/dedupe_percentage:
 * a buffer is unique, or (dedupe_percentage of the time) the last unique
 * one again (its generator state replayed: dedupe_mode=repeat); either is
 * made chunk by chunk of buffer_compress_chunk, each (100 - N)% random
 * bytes then N% zeroes or the buffer_pattern (fio's
 * fill_random_buf_percentage), so zlib-like compressors shrink it by
 * about N%.
 */
__attribute__((noinline)) void
gen_fill_content(struct gen *g, unsigned char *buf, uint64_t len)
{
	const struct bench_job *job = g->job;
	uint64_t off, n, rnd, i, v, chunk = job->compress_chunk;
	struct bench_rng rs;
	bool unique = true;

	if (job->dedupe_pct && g->buf_prev_set &&
	    bench_rng_below(&g->dedupe_rng, 100) < job->dedupe_pct) {
		rs = g->buf_prev;
		unique = false;
	} else {
		g->buf_prev = g->buf_state;
		g->buf_prev_set = true;
		rs = g->buf_state;
	}
	for (off = 0; off < len; off += n) {
		n = len - off < chunk ? len - off : chunk;
		rnd = n * (100 - job->compress_pct) / 100;
		for (i = 0; i < rnd; i += 8) {
			v = bench_rng_next(&rs);
			memcpy(buf + off + i, &v, rnd - i < 8 ? rnd - i : 8);
		}
		if (!job->buffer_pattern_len)
			memset(buf + off + rnd, 0, n - rnd);
		else
			for (i = rnd; i < n; i++)
				buf[off + i] =
					job->buffer_pattern
						[(i - rnd) %
						 job->buffer_pattern_len];
	}
	if (unique)
		g->buf_state = rs;
}
