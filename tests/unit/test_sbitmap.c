// SPDX-License-Identifier: MIT
/*
 * Unit tests of the scalable bitmap (src/core/sbitmap.h): geometry, get/put
 * semantics, deferred clears and hints, a threaded stress, waiter wake-ups.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/sbitmap.h"

static const unsigned depths[] = { 1, 63, 64, 65, 128, 1000 };
#define NR_DEPTHS (sizeof(depths) / sizeof(depths[0]))

static void test_init_depths_cover_depth(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < NR_DEPTHS; i++) {
		struct sbitmap sb;
		unsigned bits;

		assert_int_equal(sbitmap_init(&sb, depths[i], -1), 0);
		bits = 1u << sb.shift;
		assert_int_equal(sb.depth, depths[i]);
		assert_true(sb.shift <= 6);
		assert_true((uint64_t)sb.map_nr * bits >= depths[i]);
		assert_true((uint64_t)(sb.map_nr - 1) * bits < depths[i]);
		assert_int_equal((uintptr_t)sb.map % SB_CACHELINE, 0);
		assert_int_equal(sbitmap_weight(&sb), 0);
		sbitmap_free(&sb);
	}
}

static void test_init_rejects_zero_depth_and_big_shift(void **state)
{
	struct sbitmap sb;

	(void)state;
	assert_int_equal(sbitmap_init(&sb, 0, -1), -22);
	assert_int_equal(sbitmap_init(&sb, 64, 7), -22);
}

static void test_shift_gives_four_words_when_depth_allows(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < NR_DEPTHS; i++) {
		struct sbitmap sb;

		assert_int_equal(sbitmap_init(&sb, depths[i], -1), 0);
		if (depths[i] >= 4)
			assert_true(sb.map_nr >= 4);
		/* and no more words than needed for that: the widest word
		 * that still gives four */
		if (sb.shift < 6)
			assert_true((4u << (sb.shift + 1)) > depths[i]);
		sbitmap_free(&sb);
	}
	/* big depths keep 64-bit words */
	assert_int_equal(sbitmap_calc_shift(256), 6);
	assert_int_equal(sbitmap_calc_shift(4096), 6);
}

static void test_get_returns_every_bit_once_then_fails(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < NR_DEPTHS; i++) {
		unsigned d = depths[i], n, hint = 0;
		struct sbitmap sb;
		char *seen = calloc(d, 1);

		assert_non_null(seen);
		assert_int_equal(sbitmap_init(&sb, d, -1), 0);
		for (n = 0; n < d; n++) {
			int b = sbitmap_get(&sb, &hint);

			assert_true(b >= 0 && (unsigned)b < d);
			assert_int_equal(seen[b], 0);
			seen[b] = 1;
			assert_true(sbitmap_test(&sb, (unsigned)b));
		}
		assert_int_equal(sbitmap_weight(&sb), d);
		assert_int_equal(sbitmap_get(&sb, &hint), -1);
		/* a stale hint beyond the depth is tolerated */
		hint = d + 17;
		assert_int_equal(sbitmap_get(&sb, &hint), -1);
		sbitmap_free(&sb);
		free(seen);
	}
}

static void test_put_then_get_reuses_via_deferred_clear(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < NR_DEPTHS; i++) {
		unsigned d = depths[i], n, hint = 0, victim = d / 2;
		struct sbitmap sb;

		assert_int_equal(sbitmap_init(&sb, d, -1), 0);
		for (n = 0; n < d; n++)
			assert_true(sbitmap_get(&sb, &hint) >= 0);
		sbitmap_put(&sb, victim, &hint);
		/* freed, though still set in the word until folded */
		assert_false(sbitmap_test(&sb, victim));
		assert_int_equal(sbitmap_weight(&sb), d - 1);
		hint = 0; /* even from elsewhere the fold finds it */
		assert_int_equal(sbitmap_get(&sb, &hint), (int)victim);
		assert_int_equal(sbitmap_get(&sb, &hint), -1);
		/* a full round: free everything, get everything back */
		for (n = 0; n < d; n++)
			sbitmap_put(&sb, n, &hint);
		assert_int_equal(sbitmap_weight(&sb), 0);
		for (n = 0; n < d; n++)
			assert_true(sbitmap_get(&sb, &hint) >= 0);
		assert_int_equal(sbitmap_get(&sb, &hint), -1);
		sbitmap_free(&sb);
	}
}

static void test_put_sets_hint_so_next_get_returns_that_tag(void **state)
{
	struct sbitmap sb;
	unsigned n, hint = 0;

	(void)state;
	assert_int_equal(sbitmap_init(&sb, 128, -1), 0);
	for (n = 0; n < 128; n++)
		assert_true(sbitmap_get(&sb, &hint) >= 0);
	/* free a low tag, then a high one: the hint is now the high one,
	 * so the next get must find it before the low one */
	sbitmap_put(&sb, 5, &hint);
	assert_int_equal(hint, 5);
	sbitmap_put(&sb, 100, &hint);
	assert_int_equal(hint, 100);
	assert_int_equal(sbitmap_get(&sb, &hint), 100);
	assert_int_equal(hint, 100);
	assert_int_equal(sbitmap_get(&sb, &hint), 5);
	assert_int_equal(hint, 5);
	sbitmap_free(&sb);
}

static void test_get_starts_at_hint(void **state)
{
	struct sbitmap sb;
	unsigned hint = 37;

	(void)state;
	assert_int_equal(sbitmap_init(&sb, 1000, -1), 0);
	assert_int_equal(sbitmap_get(&sb, &hint), 37);
	assert_int_equal(sbitmap_get(&sb, &hint), 38);
	sbitmap_free(&sb);
}

static void test_weight_counts_allocated_bits(void **state)
{
	struct sbitmap sb;
	unsigned n, hint = 0;

	(void)state;
	assert_int_equal(sbitmap_init(&sb, 1000, -1), 0);
	for (n = 0; n < 300; n++)
		assert_true(sbitmap_get(&sb, &hint) >= 0);
	assert_int_equal(sbitmap_weight(&sb), 300);
	for (n = 0; n < 300; n += 3)
		sbitmap_put(&sb, n, &hint);
	assert_int_equal(sbitmap_weight(&sb), 200);
	sbitmap_free(&sb);
}

/* ---- threaded stress ---- */

#define STRESS_DEPTH 64
#define STRESS_ITERS 1000000

struct stress {
	struct sbitmap sb;
	_Atomic int owner[STRESS_DEPTH];
	_Atomic unsigned errors;
};

struct stress_arg {
	struct stress *s;
	int id;
	unsigned long got;
};

static void *stress_fn(void *arg)
{
	struct stress_arg *a = arg;
	struct stress *s = a->s;
	unsigned hint = (unsigned)a->id * 13 % STRESS_DEPTH;
	long i;

	/* every thread must get tags, however the two CPUs are shared out:
	 * iterations alone let one thread spend them all in a time slice
	 * while the others, preempted, held the few bits (a flaky failure) */
	for (i = 0; i < STRESS_ITERS || a->got < 1000; i++) {
		int b = sbitmap_get(&s->sb, &hint), exp = 0;

		if (b < 0) {
			/* all held by the others: let a holder run */
			sched_yield();
			continue;
		}
		if (!atomic_compare_exchange_strong(&s->owner[b], &exp,
						    a->id + 1))
			atomic_fetch_add(&s->errors, 1);
		a->got++;
		exp = a->id + 1;
		if (!atomic_compare_exchange_strong(&s->owner[b], &exp, 0))
			atomic_fetch_add(&s->errors, 1);
		sbitmap_put(&s->sb, (unsigned)b, &hint);
	}
	return NULL;
}

static void stress_run(int nr_threads, unsigned depth)
{
	struct stress *s = calloc(1, sizeof(*s));
	struct stress_arg a[4];
	pthread_t t[4];
	int i;

	assert_non_null(s);
	assert_int_equal(sbitmap_init(&s->sb, depth, -1), 0);
	for (i = 0; i < nr_threads; i++) {
		a[i].s = s;
		a[i].id = i;
		a[i].got = 0;
		assert_int_equal(pthread_create(&t[i], NULL, stress_fn, &a[i]),
				 0);
	}
	for (i = 0; i < nr_threads; i++) {
		pthread_join(t[i], NULL);
		assert_true(a[i].got > 0);
	}
	assert_int_equal(atomic_load(&s->errors), 0);
	assert_int_equal(sbitmap_weight(&s->sb), 0);
	sbitmap_free(&s->sb);
	free(s);
}

static void test_stress_2_threads_no_tag_held_twice(void **state)
{
	(void)state;
	stress_run(2, STRESS_DEPTH);
}

static void test_stress_4_threads_tiny_map_no_tag_held_twice(void **state)
{
	(void)state;
	/* depth 3 < threads: exhaustion and deferred folds all the time */
	stress_run(4, 3);
}

static void test_stress_4_threads_no_tag_held_twice(void **state)
{
	(void)state;
	stress_run(4, STRESS_DEPTH);
}

/* ---- sbitmap_queue waiters ---- */

struct test_waiter {
	struct sbq_waiter w;
	int woken;
};

static void test_wake(struct sbq_waiter *w)
{
	((struct test_waiter *)w)->woken++;
}

static void test_waiter_woken_after_wake_batch_puts(void **state)
{
	struct sbitmap_queue sbq;
	struct test_waiter tw = { .w.wake = test_wake };
	unsigned n, hint = 0, ws_idx;

	(void)state;
	assert_int_equal(sbitmap_queue_init(&sbq, 64), 0);
	assert_int_equal(sbq.wake_batch, 8);
	for (n = 0; n < 64; n++)
		assert_true(sbitmap_queue_get(&sbq, &hint) >= 0);
	sbitmap_queue_prepare_wait(&sbq, &tw.w, &ws_idx);
	assert_true(tw.w.queued);
	assert_int_equal(sbitmap_queue_get(&sbq, &hint), -1);
	for (n = 0; n < sbq.wake_batch - 1; n++) {
		sbitmap_queue_put(&sbq, n, &hint);
		assert_int_equal(tw.woken, 0);
	}
	sbitmap_queue_put(&sbq, n, &hint);
	assert_int_equal(tw.woken, 1);
	assert_false(tw.w.queued);
	sbitmap_queue_finish_wait(&sbq, &tw.w, ws_idx);
	/* no longer queued: more puts wake nobody */
	for (n = 0; n < 16; n++)
		sbitmap_queue_put(&sbq, 16 + n, &hint);
	assert_int_equal(tw.woken, 1);
	assert_int_equal(atomic_load(&sbq.ws_active), 0);
	sbitmap_queue_free(&sbq);
}

static void test_waiter_wake_batch_one_for_small_depth(void **state)
{
	struct sbitmap_queue sbq;
	struct test_waiter tw = { .w.wake = test_wake };
	unsigned n, hint = 0, ws_idx;

	(void)state;
	assert_int_equal(sbitmap_queue_init(&sbq, 4), 0);
	assert_int_equal(sbq.wake_batch, 1);
	for (n = 0; n < 4; n++)
		assert_true(sbitmap_queue_get(&sbq, &hint) >= 0);
	sbitmap_queue_prepare_wait(&sbq, &tw.w, &ws_idx);
	sbitmap_queue_put(&sbq, 2, &hint);
	assert_int_equal(tw.woken, 1);
	sbitmap_queue_finish_wait(&sbq, &tw.w, ws_idx);
	assert_int_equal(sbitmap_queue_get(&sbq, &hint), 2);
	sbitmap_queue_free(&sbq);
}

static void test_finish_wait_unqueues_unwoken_waiter(void **state)
{
	struct sbitmap_queue sbq;
	struct test_waiter tw = { .w.wake = test_wake };
	unsigned n, hint = 0, ws_idx;

	(void)state;
	assert_int_equal(sbitmap_queue_init(&sbq, 64), 0);
	for (n = 0; n < 64; n++)
		assert_true(sbitmap_queue_get(&sbq, &hint) >= 0);
	sbitmap_queue_prepare_wait(&sbq, &tw.w, &ws_idx);
	sbitmap_queue_put(&sbq, 0, &hint);
	sbitmap_queue_finish_wait(&sbq, &tw.w, ws_idx);
	assert_false(tw.w.queued);
	for (n = 1; n < 64; n++)
		sbitmap_queue_put(&sbq, n, &hint);
	assert_int_equal(tw.woken, 0);
	sbitmap_queue_free(&sbq);
}

static void test_wake_all_wakes_every_waiter(void **state)
{
	struct sbitmap_queue sbq;
	struct test_waiter tw[12];
	unsigned i, idx[12];

	(void)state;
	memset(tw, 0, sizeof(tw));
	assert_int_equal(sbitmap_queue_init(&sbq, 64), 0);
	for (i = 0; i < 12; i++) {
		tw[i].w.wake = test_wake;
		sbitmap_queue_prepare_wait(&sbq, &tw[i].w, &idx[i]);
	}
	sbitmap_queue_wake_all(&sbq);
	for (i = 0; i < 12; i++) {
		assert_int_equal(tw[i].woken, 1);
		sbitmap_queue_finish_wait(&sbq, &tw[i].w, idx[i]);
	}
	assert_int_equal(atomic_load(&sbq.ws_active), 0);
	sbitmap_queue_free(&sbq);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_depths_cover_depth),
		cmocka_unit_test(test_init_rejects_zero_depth_and_big_shift),
		cmocka_unit_test(test_shift_gives_four_words_when_depth_allows),
		cmocka_unit_test(test_get_returns_every_bit_once_then_fails),
		cmocka_unit_test(test_put_then_get_reuses_via_deferred_clear),
		cmocka_unit_test(
			test_put_sets_hint_so_next_get_returns_that_tag),
		cmocka_unit_test(test_get_starts_at_hint),
		cmocka_unit_test(test_weight_counts_allocated_bits),
		cmocka_unit_test(test_stress_2_threads_no_tag_held_twice),
		cmocka_unit_test(
			test_stress_4_threads_tiny_map_no_tag_held_twice),
		cmocka_unit_test(test_stress_4_threads_no_tag_held_twice),
		cmocka_unit_test(test_waiter_woken_after_wake_batch_puts),
		cmocka_unit_test(test_waiter_wake_batch_one_for_small_depth),
		cmocka_unit_test(test_finish_wait_unqueues_unwoken_waiter),
		cmocka_unit_test(test_wake_all_wakes_every_waiter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
