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
#include <linux/hash.h>
#include <linux/local_lock.h>

/*
 * sl_range_stats() walks SL_RANGE_BATCH ranges per read-side section
 * (SL_WIN_RANGE_STATS_STEP between them): ranges of one unit at 2 i,
 * i < RA_STEP_N.
 */
#define RA_STEP_N	(4 * SL_RANGE_BATCH + 3)

struct ra_step_state {
	struct sl_range_alloc *ra;
	unsigned long prev, steps, too_long, items;
	bool meddled;
};

static struct ra_step_state ra_step;

static void ra_stats_window(const struct sl_window_at *at)
{
	unsigned long walked;

	if (at->win != SL_WIN_RANGE_STATS_STEP || at->list != &ra_step.ra->list)
		return;
	ra_step.steps++;
	/* Keys 2 i in [prev, key), and the odd one the meddling added. */
	walked = (at->key + 1) / 2 - (ra_step.prev + 1) / 2;
	if (ra_step.meddled && ra_step.prev <= 2 * RA_STEP_N - 1 &&
	    at->key > 2 * RA_STEP_N - 1)
		walked++;
	if (walked > SL_RANGE_BATCH)
		ra_step.too_long++;
	ra_step.prev = at->key;
	if (ra_step.steps == 2) {
		/* Free one the walk counted, reserve one ahead of it. */
		SL_EXPECT(sl_range_free(ra_step.ra, 0, 1) == 0);
		SL_EXPECT(sl_range_reserve(ra_step.ra, 2 * RA_STEP_N - 1, 1,
					   GFP_KERNEL) == 0);
		ra_step.meddled = true;
	}
}

/*
 * The statistics are a walk in steps: none longer than SL_RANGE_BATCH
 * ranges, and a change between two steps counts where the walk meets it.
 */
static void test_range_stats_steps(void)
{
	unsigned long resched = shim_cond_resched_calls, i, bad = 0;
	const unsigned long space = 4 * RA_STEP_N;
	struct sl_range_alloc ra;
	struct sl_range_stats st;

	if (!SL_EXPECT(sl_range_init(&ra, 0, space, SL_RANGE_SHADOW,
				     GFP_KERNEL) == 0))
		return;
	for (i = 0; i < RA_STEP_N; i++)
		bad += !!sl_range_reserve(&ra, 2 * i, 1, GFP_KERNEL);
	SL_EXPECT(bad == 0);
	memset(&ra_step, 0, sizeof(ra_step));
	ra_step.ra = &ra;
	sl_window_hook = ra_stats_window;
	sl_range_stats(&ra, &st);
	sl_window_hook = NULL;
	SL_EXPECT(ra_step.steps == (RA_STEP_N + 1) / SL_RANGE_BATCH);
	SL_EXPECT(ra_step.too_long == 0);
	SL_EXPECT(shim_cond_resched_calls - resched >= ra_step.steps);
	/* The freed range was counted before its free, the new one after. */
	SL_EXPECT(st.ranges == RA_STEP_N + 1 && st.free == space - st.ranges);
	sl_range_stats(&ra, &st);
	SL_EXPECT(st.ranges == RA_STEP_N && st.free == space - RA_STEP_N);
	SL_EXPECT(st.largest_free == space - 2 * RA_STEP_N);
	SL_EXPECT(sl_range_shadow_errors(&ra) == 0);
	sl_range_destroy(&ra);
}

/*
 * A read of an allocator's "alloc" file stalled between two steps of its
 * walk (sl_range_stats(), outside any read-side section), and the
 * allocator's destruction on a thread of its own (sl_partner and
 * sl_test_stat() are skiplist/test_skiplist.c's).
 */
static struct {
	struct sl_range_alloc ra;
	struct work_struct destroy;
	long ranges;
	bool stalled;
	bool destroyed;
} ra_sr;

static void ra_sr_window(const struct sl_window_at *at)
{
	if (at->win == SL_WIN_RANGE_STATS_STEP && sl_on_partner() &&
	    !ra_sr.stalled) {
		ra_sr.stalled = true;
		sl_partner_stall();
	}
}

static void ra_sr_read(struct work_struct *work)
{
	ra_sr.ranges = sl_test_stat("skiplist/ra_race/alloc", "ranges");
	sl_partner_done();
}

static void ra_sr_destroy(struct work_struct *work)
{
	sl_range_destroy(&ra_sr.ra);
	/* Release: the test reads it after the allocator is gone. */
	smp_store_release(&ra_sr.destroyed, true);
}

/*
 * sl_range_destroy() while a read of the allocator's "alloc" file is
 * under way: it must wait for the read to end before it frees a range
 * (sl_range_debugfs_remove() first), and the read counts every range.
 * A destruction that freed first would have the read resume on freed
 * ranges and an index without a head.
 */
static void test_range_debugfs_read_vs_destroy(void)
{
	unsigned long i, bad = 0;
	bool destroyed;

	if (!SL_EXPECT(sl_range_init(&ra_sr.ra, 0, 4 * RA_STEP_N, 0,
				     GFP_KERNEL) == 0))
		return;
	for (i = 0; i < RA_STEP_N; i++)
		bad += !!sl_range_reserve(&ra_sr.ra, 2 * i, 1, GFP_KERNEL);
	SL_EXPECT(bad == 0);
	SL_EXPECT(sl_range_debugfs_add(&ra_sr.ra, NULL, "ra_race") == 0);
	ra_sr.stalled = false;
	ra_sr.destroyed = false;
	ra_sr.ranges = -1;
	sl_window_hook = ra_sr_window;
	sl_partner_start(&ra_sr.ra.list, 0, ra_sr_read);
	SL_EXPECT(sl_partner_wait() == SL_PARTNER_STALLED);
	INIT_WORK(&ra_sr.destroy, ra_sr_destroy);
	queue_work(system_unbound_wq, &ra_sr.destroy);
	/*
	 * The destruction reaches the removal of the files and waits there;
	 * it must not end while the read is stalled.
	 */
	for (;;) {
		/* Acquire: pairs with the destroyer's release. */
		destroyed = smp_load_acquire(&ra_sr.destroyed);
		if (destroyed || shim_debugfs_removals_waiting())
			break;
		cpu_relax();
	}
	SL_EXPECT(!destroyed);
	sl_partner_finish();
	flush_work(&ra_sr.destroy);
	sl_window_hook = NULL;
	/* Acquire: as above; flush_work() orders it anyway. */
	SL_EXPECT(smp_load_acquire(&ra_sr.destroyed));
	SL_EXPECT(ra_sr.ranges == RA_STEP_N);
	SL_EXPECT(!shim_debugfs_exists("skiplist/ra_race"));
}

/* The index's size, as the reclaim changes it. */
static unsigned long ra_items(struct sl_range_alloc *ra)
{
	struct sl_stats stats;

	sl_stats(&ra->list, &stats);
	return stats.items;
}

static void ra_reclaim_window(const struct sl_window_at *at)
{
	unsigned long items, got;

	if (at->win != SL_WIN_RANGE_RECLAIM_STEP ||
	    at->list != &ra_step.ra->list)
		return;
	ra_step.steps++;
	items = ra_items(ra_step.ra);
	if (ra_step.items - items > SL_RANGE_RECLAIM_BATCH)
		ra_step.too_long++;
	if (ra_step.steps == 2) {
		/*
		 * This CPU pops a range of 7 (one still cached, or past the
		 * reclaimed ones that it drops) and frees it again.
		 */
		SL_EXPECT(sl_range_alloc_cpu(ra_step.ra, 7, 1, &got,
					     GFP_KERNEL) == 0);
		SL_EXPECT(sl_range_free(ra_step.ra, got, 7) == 0);
		items = ra_items(ra_step.ra);
	}
	ra_step.items = items;
}

/* Every stack of this CPU's cache full: sizes 1 to 64, 16 of each. */
#define RA_CACHE_UNITS	(SL_RANGE_CACHE_DEPTH * SL_RANGE_CACHE_SIZES * \
			 (SL_RANGE_CACHE_SIZES + 1) / 2)

static bool ra_fill_caches(struct sl_range_alloc *ra)
{
	unsigned long size, n, start, bad = 0;
	static unsigned long starts[SL_RANGE_CACHE_SIZES][SL_RANGE_CACHE_DEPTH];

	for (size = 1; size <= SL_RANGE_CACHE_SIZES; size++)
		for (n = 0; n < SL_RANGE_CACHE_DEPTH; n++) {
			bad += !!sl_range_alloc(ra, size, 1, 0, 0, 0, &start,
						GFP_KERNEL);
			starts[size - 1][n] = start;
		}
	for (size = 1; size <= SL_RANGE_CACHE_SIZES; size++)
		for (n = 0; n < SL_RANGE_CACHE_DEPTH; n++)
			bad += !!sl_range_free(ra, starts[size - 1][n], size);
	return SL_EXPECT(bad == 0) &&
	       SL_EXPECT(ra_items(ra) == SL_RANGE_CACHE_SIZES *
					  SL_RANGE_CACHE_DEPTH);
}

/*
 * A full space whose free space is all in this CPU's cache (1024 ranges):
 * a request too large for any cache reclaims them, at most
 * SL_RANGE_RECLAIM_BATCH between two chances to reschedule, and goes on
 * right through this CPU popping and pushing in between.  In an atomic
 * caller (GFP_ATOMIC, inside a read-side section here) it never offers
 * to reschedule, which the shim would refuse.
 */
static void test_range_reclaim_steps(void)
{
	unsigned long resched = shim_cond_resched_calls, got;
	struct sl_range_alloc ra;
	struct sl_range_stats st;
	int ret;

	if (!SL_EXPECT(sl_range_init(&ra, 0, RA_CACHE_UNITS,
				     SL_RANGE_CACHE | SL_RANGE_SHADOW,
				     GFP_KERNEL) == 0))
		return;
	if (!ra_fill_caches(&ra))
		goto out;
	memset(&ra_step, 0, sizeof(ra_step));
	ra_step.ra = &ra;
	ra_step.items = ra_items(&ra);
	sl_window_hook = ra_reclaim_window;
	ret = sl_range_alloc(&ra, 100, 1, 0, 0, 0, &got, GFP_KERNEL);
	sl_window_hook = NULL;
	SL_EXPECT(ret == 0);
	SL_EXPECT(ra_step.too_long == 0);
	SL_EXPECT(ra_step.steps >= SL_RANGE_CACHE_SIZES *
				   SL_RANGE_CACHE_DEPTH /
				   SL_RANGE_RECLAIM_BATCH);
	SL_EXPECT(shim_cond_resched_calls - resched >= ra_step.steps);
	if (!ret)
		SL_EXPECT(sl_range_free(&ra, got, 100) == 0);

	/* Again, from an atomic caller. */
	if (!ra_fill_caches(&ra))
		goto out;
	resched = shim_cond_resched_calls;
	rcu_read_lock();
	ret = sl_range_alloc(&ra, 100, 1, 0, 0, 0, &got, GFP_ATOMIC);
	rcu_read_unlock();
	SL_EXPECT(ret == 0);
	SL_EXPECT(shim_cond_resched_calls == resched);
	if (!ret)
		SL_EXPECT(sl_range_free(&ra, got, 100) == 0);
	sl_range_stats(&ra, &st);
	SL_EXPECT(st.free == RA_CACHE_UNITS && st.ranges == 0);
	SL_EXPECT(sl_range_shadow_errors(&ra) == 0);
	SL_EXPECT(sl_check(&ra.list) == 0);
out:
	sl_range_destroy(&ra);
}

static unsigned long ra_lookups, ra_lookups_irqs_off;

static void ra_free_window(const struct sl_window_at *at)
{
	if (at->win != SL_WIN_LOOKUP_SNAPSHOT)
		return;
	ra_lookups++;
	ra_lookups_irqs_off += shim_local_locks_held > 0;
}

/*
 * A cached free whose range the CPU's table no longer names looks it up
 * in the index, and does so with interrupts on: not under the local lock.
 */
static void test_range_free_lookup(void)
{
	unsigned long a, b, slot;
	struct sl_range_alloc ra;

	if (!SL_EXPECT(sl_range_init(&ra, 0, 1UL << 20,
				     SL_RANGE_CACHE | SL_RANGE_SHADOW,
				     GFP_KERNEL) == 0))
		return;
	/* Two starts with one entry in the table: the second evicts the first. */
	a = 1000;
	slot = hash_long(a, SL_RANGE_RECENT_BITS);
	for (b = a + 1; hash_long(b, SL_RANGE_RECENT_BITS) != slot; b++)
		;
	SL_EXPECT(sl_range_reserve(&ra, a, 1, GFP_KERNEL) == 0);
	SL_EXPECT(sl_range_reserve(&ra, b, 1, GFP_KERNEL) == 0);
	ra_lookups = 0;
	ra_lookups_irqs_off = 0;
	sl_window_hook = ra_free_window;
	SL_EXPECT(sl_range_free(&ra, a, 1) == 0);
	sl_window_hook = NULL;
	SL_EXPECT(ra_lookups > 0);
	SL_EXPECT(ra_lookups_irqs_off == 0);
	/* The table's own range is freed without a lookup. */
	ra_lookups = 0;
	sl_window_hook = ra_free_window;
	SL_EXPECT(sl_range_free(&ra, b, 1) == 0);
	sl_window_hook = NULL;
	SL_EXPECT(ra_lookups == 0);
	SL_EXPECT(sl_range_shadow_errors(&ra) == 0);
	sl_range_destroy(&ra);
}

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
