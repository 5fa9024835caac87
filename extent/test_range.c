// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the range allocator (extent/range_alloc.c), included by
 * skiplist/test_skiplist.c and run with its tests, in the kernel and in
 * the userspace harness.
 */
#include <linux/bitmap.h>
#include "range_alloc.h"

/* Alignment, bounds, hints, reservations, frees and stats, by hand. */
static void test_range_basic(void)
{
	struct sl_range_alloc ra;
	struct sl_range_stats st;
	unsigned long a = 0, b = 0, c = 0;

	if (!SL_EXPECT(sl_range_init(&ra, 100, 1100, SL_RANGE_SHADOW,
				     GFP_KERNEL) == 0))
		return;
	SL_EXPECT(sl_range_alloc(&ra, 10, 1, 0, 0, 0, &a, GFP_KERNEL) == 0);
	SL_EXPECT(a == 100);
	/* Aligned to 64: the first multiple of 64 in the space is 128. */
	SL_EXPECT(sl_range_alloc(&ra, 10, 64, 0, 0, 0, &b, GFP_KERNEL) == 0);
	SL_EXPECT(b == 128);
	/* A window: [500, 520) holds exactly one range of 20. */
	SL_EXPECT(sl_range_alloc(&ra, 20, 1, 500, 520, 0, &c, GFP_KERNEL) == 0);
	SL_EXPECT(c == 500);
	SL_EXPECT(sl_range_alloc(&ra, 1, 1, 500, 520, 0, &c,
				 GFP_KERNEL) == -ENOSPC);
	/* A hint above a free range is taken; below the window it is not. */
	SL_EXPECT(sl_range_alloc(&ra, 5, 1, 0, 0, 900, &c, GFP_KERNEL) == 0);
	SL_EXPECT(c == 900);
	SL_EXPECT(sl_range_reserve(&ra, 1090, 10, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_reserve(&ra, 1095, 10, GFP_KERNEL) == -ERANGE);
	SL_EXPECT(sl_range_reserve(&ra, 1089, 2, GFP_KERNEL) == -EEXIST);
	SL_EXPECT(sl_range_reserve(&ra, 99, 2, GFP_KERNEL) == -ERANGE);
	/* The hint wraps to the window's start when nothing fits above. */
	SL_EXPECT(sl_range_alloc(&ra, 8, 1, 0, 0, 1095, &c, GFP_KERNEL) == 0);
	SL_EXPECT(c == 110);

	sl_range_stats(&ra, &st);
	SL_EXPECT(st.size == 1000);
	SL_EXPECT(st.ranges == 6);
	SL_EXPECT(st.free == 1000 - 10 - 10 - 20 - 5 - 10 - 8);
	/* The largest free run is [520, 900). */
	SL_EXPECT(st.largest_free == 380);
	SL_EXPECT(st.fragmentation > 0 && st.fragmentation < 1000);

	SL_EXPECT(sl_range_free(&ra, 128, 11) == -EINVAL);
	SL_EXPECT(sl_range_free(&ra, 128, 10) == 0);
	SL_EXPECT(sl_range_free(&ra, 128, 10) == -ENOENT);
	SL_EXPECT(sl_range_free(&ra, 129, 1) == -ENOENT);
	/* Freed, so allocatable again at once. */
	SL_EXPECT(sl_range_alloc(&ra, 10, 64, 0, 0, 0, &b, GFP_KERNEL) == 0);
	SL_EXPECT(b == 128);

	SL_EXPECT(sl_range_alloc(&ra, 0, 1, 0, 0, 0, &c, GFP_KERNEL) == -EINVAL);
	SL_EXPECT(sl_range_alloc(&ra, 1, 3, 0, 0, 0, &c, GFP_KERNEL) == -EINVAL);
	SL_EXPECT(sl_range_alloc(&ra, 1, 1, 600, 600, 0, &c,
				 GFP_KERNEL) == -EINVAL);
	SL_EXPECT(sl_range_reserve(&ra, ULONG_MAX, 2, GFP_KERNEL) == -EINVAL);
	SL_EXPECT(sl_range_shadow_errors(&ra) == 0);
	SL_EXPECT(sl_check(&ra.list) == 0);
	sl_range_destroy(&ra);

	SL_EXPECT(sl_range_init(&ra, 5, 5, 0, GFP_KERNEL) == -EINVAL);
	SL_EXPECT(sl_range_init(&ra, 0, 10, 0x100, GFP_KERNEL) == -EINVAL);
}

/*
 * A fragmented space: every other unit in use, so every gap is one unit,
 * and the only room for two units at the far end.  Allocating two units
 * must find it, again and again as it is freed, and a free in the middle
 * must make room there that the next search finds first.
 */
static void test_range_fragmented(void)
{
	unsigned long n = 20000, i, got = 0, bad = 0;
	struct sl_range_alloc ra;

	if (!SL_EXPECT(sl_range_init(&ra, 0, 2 * n + 2, 0, GFP_KERNEL) == 0))
		return;
	for (i = 0; i < n; i++)
		bad += sl_range_reserve(&ra, 2 * i, 1, GFP_KERNEL) != 0;
	SL_EXPECT(bad == 0);
	for (i = 0; i < 100; i++) {
		bad += sl_range_alloc(&ra, 2, 1, 0, 0, 0, &got, GFP_KERNEL) != 0;
		bad += got != 2 * n - 1;
		bad += sl_range_free(&ra, 2 * n - 1, 2) != 0;
	}
	SL_EXPECT(bad == 0);
	SL_EXPECT(sl_range_free(&ra, 2 * (n / 2), 1) == 0);
	SL_EXPECT(sl_range_alloc(&ra, 3, 1, 0, 0, 0, &got, GFP_KERNEL) == 0);
	SL_EXPECT(got == 2 * (n / 2) - 1);
	SL_EXPECT(sl_range_alloc(&ra, 2, 1, 0, 0, 0, &got, GFP_KERNEL) == 0);
	SL_EXPECT(got == 2 * n - 1);
	SL_EXPECT(sl_range_alloc(&ra, 2, 1, 0, 0, 0, &got,
				 GFP_KERNEL) == -ENOSPC);
	SL_EXPECT(sl_check(&ra.list) == 0);
	sl_range_destroy(&ra);
}

/*
 * Alloc and free churn against a bitmap kept here, with the shadow on,
 * and the per-CPU caches if @flags asks for them.
 */
static void sl_test_range_churn(unsigned int flags)
{
	unsigned long space = 1 << 14, live_s[64], live_n[64], i, bad = 0;
	struct sl_range_stats st;
	struct sl_range_alloc ra;
	unsigned long *map;

	map = kcalloc(BITS_TO_LONGS(space), sizeof(long), GFP_KERNEL);
	if (!SL_EXPECT(map))
		return;
	if (!SL_EXPECT(sl_range_init(&ra, 0, space, SL_RANGE_SHADOW | flags,
				     GFP_KERNEL) == 0)) {
		kfree(map);
		return;
	}
	for (i = 0; i < 64; i++)
		live_n[i] = 0;
	for (i = 0; i < 20000; i++) {
		unsigned long slot = sl_test_rand() % 64, size, got;

		if (live_n[slot]) {
			bitmap_clear(map, live_s[slot], live_n[slot]);
			bad += sl_range_free(&ra, live_s[slot], live_n[slot]) != 0;
			live_n[slot] = 0;
			continue;
		}
		size = 1 + sl_test_rand() % 32;
		if (sl_range_alloc_cpu(&ra, size, 1, &got, GFP_KERNEL)) {
			bad++;
			continue;
		}
		bad += find_next_bit(map, got + size, got) < got + size;
		bitmap_set(map, got, size);
		live_s[slot] = got;
		live_n[slot] = size;
	}
	for (i = 0; i < 64; i++)
		if (live_n[i])
			bad += sl_range_free(&ra, live_s[i], live_n[i]) != 0;
	SL_EXPECT(bad == 0);
	sl_range_stats(&ra, &st);
	SL_EXPECT(st.free == space && st.ranges == 0 &&
		  st.largest_free == space && st.fragmentation == 0);
	SL_EXPECT(sl_range_shadow_errors(&ra) == 0);
	SL_EXPECT(sl_check(&ra.list) == 0);
	sl_range_destroy(&ra);
	kfree(map);
}

static void test_range_churn(void)
{
	sl_test_range_churn(0);
}

static void test_range_churn_cached(void)
{
	sl_test_range_churn(SL_RANGE_CACHE);
}

/* The per-CPU caches: reuse, double and wrong-size frees, reclaiming. */
static void test_range_cache(void)
{
	unsigned long a = 0, b = 0, c = 0, r[16], i;
	struct sl_range_alloc ra;
	struct sl_range_stats st;

	if (!SL_EXPECT(sl_range_init(&ra, 0, 64,
				     SL_RANGE_CACHE | SL_RANGE_SHADOW,
				     GFP_KERNEL) == 0))
		return;
	/* Aligned, so that 16 ranges of 4 fill the space exactly below. */
	SL_EXPECT(sl_range_alloc_cpu(&ra, 4, 4, &a, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_free(&ra, a, 4) == 0);
	/* Cached, so still indexed: freeing it again is a double free. */
	SL_EXPECT(sl_range_free(&ra, a, 4) == -ENOENT);
	SL_EXPECT(sl_range_alloc_cpu(&ra, 4, 4, &b, GFP_KERNEL) == 0);
#ifndef __KERNEL__
	/* One thread, one CPU: the range comes back from its cache. */
	SL_EXPECT(b == a);
#endif
	SL_EXPECT(sl_range_free(&ra, b, 5) == -EINVAL);
	SL_EXPECT(sl_range_free(&ra, b, 4) == 0);

	/*
	 * A space full of live ranges (the last one only after the caches
	 * are reclaimed), then all of them cached.
	 */
	for (i = 0; i < 16; i++)
		SL_EXPECT(sl_range_alloc(&ra, 4, 4, 0, 0, 0, &r[i],
					 GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_alloc_cpu(&ra, 1, 1, &c, GFP_KERNEL) == -ENOSPC);
	for (i = 0; i < 16; i++)
		SL_EXPECT(sl_range_free(&ra, r[i], 4) == 0);
	/* Only the caches are in the way: they are reclaimed. */
	SL_EXPECT(sl_range_alloc(&ra, 64, 1, 0, 0, 0, &c, GFP_KERNEL) == 0);
	SL_EXPECT(c == 0);
	SL_EXPECT(sl_range_free(&ra, c, 64) == 0);

	/* A reservation over a cached range reclaims it. */
	SL_EXPECT(sl_range_alloc_cpu(&ra, 8, 1, &a, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_free(&ra, a, 8) == 0);
	SL_EXPECT(sl_range_reserve(&ra, a, 8, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_free(&ra, a, 8) == 0);

	/*
	 * A range reclaimed from a cache stays on its stack until the cache
	 * comes to it, and must then be dropped, not handed out over the
	 * reservation that took its place.
	 */
	SL_EXPECT(sl_range_alloc_cpu(&ra, 6, 2, &a, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_free(&ra, a, 6) == 0);
	SL_EXPECT(sl_range_reserve(&ra, a, 6, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_alloc_cpu(&ra, 6, 2, &b, GFP_KERNEL) == 0);
	SL_EXPECT(b != a);
	SL_EXPECT(sl_range_free(&ra, b, 6) == 0);
	SL_EXPECT(sl_range_free(&ra, a, 6) == 0);

	/* A cached range without the alignment asked for is not used. */
	SL_EXPECT(sl_range_reserve(&ra, 1, 3, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_free(&ra, 1, 3) == 0);
	SL_EXPECT(sl_range_alloc_cpu(&ra, 3, 4, &c, GFP_KERNEL) == 0);
	SL_EXPECT(c % 4 == 0);
	SL_EXPECT(sl_range_free(&ra, c, 3) == 0);

	/* Cached ranges count as free. */
	sl_range_stats(&ra, &st);
	SL_EXPECT(st.free == 64 && st.ranges == 0 && st.largest_free == 64);
	SL_EXPECT(sl_range_shadow_errors(&ra) == 0);
	SL_EXPECT(sl_check(&ra.list) == 0);

	/*
	 * Destroyed with ranges in the caches: those in the index go with
	 * it, and one reclaimed but still on its stack goes too.
	 */
	SL_EXPECT(sl_range_alloc_cpu(&ra, 2, 1, &a, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_free(&ra, a, 2) == 0);
	SL_EXPECT(sl_range_alloc_cpu(&ra, 5, 1, &b, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_free(&ra, b, 5) == 0);
	SL_EXPECT(sl_range_reserve(&ra, b, 5, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_free(&ra, b, 5) == 0);
	SL_EXPECT(sl_range_shadow_errors(&ra) == 0);
	sl_range_destroy(&ra);
}

/*
 * The table of ranges each CPU handed out last, which lets a free skip the
 * index: its entries must never outlive their ranges, nor vouch for a free
 * of the wrong size or a double free.
 */
static void test_range_recent(void)
{
	const unsigned long big = SL_RANGE_CACHE_SIZES + 8;
	unsigned long a = 0, b = 0, i;
	struct sl_range_alloc ra;

	if (!SL_EXPECT(sl_range_init(&ra, 0, 1024,
				     SL_RANGE_CACHE | SL_RANGE_SHADOW,
				     GFP_KERNEL) == 0))
		return;
	/* Too large to be cached: a free erases it at once. */
	SL_EXPECT(sl_range_alloc_cpu(&ra, big, 1, &a, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_free(&ra, a, big + 1) == -EINVAL);
	SL_EXPECT(sl_range_free(&ra, a, big) == 0);
	/*
	 * Once the grace period is over its memory is gone: a second free
	 * must not find it through the table (AddressSanitizer would see
	 * the read in userspace).
	 */
	synchronize_rcu();
	rcu_barrier();
	SL_EXPECT(sl_range_free(&ra, a, big) == -ENOENT);
	/* Allocated again at the same start: a new range, freed once. */
	SL_EXPECT(sl_range_reserve(&ra, a, big, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_free(&ra, a, big) == 0);
	SL_EXPECT(sl_range_free(&ra, a, big) == -ENOENT);

	/* Cached, handed out again, freed again: each free counts once. */
	for (i = 0; i < 4; i++) {
		SL_EXPECT(sl_range_alloc_cpu(&ra, 3, 1, &b, GFP_KERNEL) == 0);
		SL_EXPECT(sl_range_free(&ra, b, 3) == 0);
		SL_EXPECT(sl_range_free(&ra, b, 3) == -ENOENT);
	}
	/*
	 * A reservation over the cached range reclaims it (erasing what
	 * the table named) and puts its own range in that entry.
	 */
	SL_EXPECT(sl_range_reserve(&ra, b, 3, GFP_KERNEL) == 0);
	synchronize_rcu();
	rcu_barrier();
	SL_EXPECT(sl_range_free(&ra, b, 3) == 0);
	SL_EXPECT(sl_range_free(&ra, b, 3) == -ENOENT);
	SL_EXPECT(sl_range_shadow_errors(&ra) == 0);
	SL_EXPECT(sl_check(&ra.list) == 0);
	sl_range_destroy(&ra);
}

#ifdef SL_TEST_FAULT_INJECTION
/*
 * Memory a user causes is charged to its memory cgroup: every allocation
 * the allocator makes for a caller passing GFP_KERNEL_ACCOUNT (the per-CPU
 * hints and caches, the index, the shadow bitmap, the ranges) carries
 * __GFP_ACCOUNT.
 */
static void test_range_account(void)
{
	unsigned long i, got, bad = 0;
	struct sl_range_alloc ra;

	shim_gfp_required = __GFP_ACCOUNT;
	shim_gfp_missing = 0;
	if (!SL_EXPECT(sl_range_init(&ra, 0, 1UL << 20,
				     SL_RANGE_SHADOW | SL_RANGE_CACHE,
				     GFP_KERNEL_ACCOUNT) == 0)) {
		shim_gfp_required = 0;
		return;
	}
	/* Enough ranges to split leaves, in both kinds of allocation. */
	for (i = 0; i < 300; i++) {
		bad += !!sl_range_alloc_cpu(&ra, 1 + i % 70, 1, &got,
					    GFP_KERNEL_ACCOUNT);
		bad += !!sl_range_reserve(&ra, (1UL << 19) + 2 * i, 1,
					  GFP_KERNEL_ACCOUNT);
	}
	shim_gfp_required = 0;
	SL_EXPECT(bad == 0);
	SL_EXPECT(shim_gfp_missing == 0);
	sl_range_destroy(&ra);
}
#endif
