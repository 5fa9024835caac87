// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the extent map (extent/extent_map.c).  skiplist/test_skiplist.c
 * includes this file, so the tests run wherever its tests run: at the load
 * of test_skiplist.ko, in its KUnit suite and in the userspace unit
 * programs.  They use its SL_EXPECT() and sl_test_rand().
 */
#include "extent_map.h"

#define EM_TEST_NONE	U64_MAX

static int em_test_add(struct sl_extent_map *em, u64 start, u64 len,
		       u64 disk, u32 flags, unsigned int mode)
{
	struct sl_extent_info info = {
		.start = start, .len = len, .disk_start = disk, .flags = flags,
	};

	return sl_em_add(em, &info, mode, GFP_KERNEL);
}

/* Whether the extent containing @offset is exactly this one. */
static bool em_test_is(struct sl_extent_map *em, u64 offset, u64 start,
		       u64 len, u64 disk, u32 flags)
{
	struct sl_extent_info e;

	return !sl_em_lookup(em, offset, &e) && e.start == start &&
	       e.len == len && e.disk_start == disk && e.flags == flags;
}

static bool em_test_hole(struct sl_extent_map *em, u64 offset)
{
	struct sl_extent_info e;

	return sl_em_lookup(em, offset, &e) == -ENOENT;
}

/* Start of the first extent overlapping [start, +len), or EM_TEST_NONE. */
static u64 em_test_overlap(struct sl_extent_map *em, u64 start, u64 len)
{
	struct sl_extent_info e;

	return sl_em_first_overlap(em, start, len, &e) ? EM_TEST_NONE :
	       e.start;
}

/* A fingerprint of every extent in the map, in order, and their number. */
static u64 em_test_digest(struct sl_extent_map *em, unsigned long *count)
{
	struct sl_em_cursor cur = SL_EM_CURSOR(0);
	u64 h = 0x9e3779b97f4a7c15ULL;
	struct sl_extent_info e;

	*count = 0;
	while (sl_em_walk(em, &cur, &e)) {
		h = (h ^ e.start) * 0x100000001b3ULL;
		h = (h ^ e.len) * 0x100000001b3ULL;
		h = (h ^ e.disk_start) * 0x100000001b3ULL;
		h = (h ^ e.flags) * 0x100000001b3ULL;
		(*count)++;
	}
	return h;
}

static bool em_test_init(struct sl_extent_map *em)
{
	return SL_EXPECT(sl_em_init(em, GFP_KERNEL) == 0);
}

static void em_test_done(struct sl_extent_map *em)
{
	SL_EXPECT(sl_em_check(em) == 0);
	sl_em_destroy(em);
}

static void test_em_add_overlap(void)
{
	struct sl_extent_map em;
	u64 off;
	int mode;

	if (!em_test_init(&em))
		return;
	SL_EXPECT(sl_em_count(&em) == 0);
	SL_EXPECT(em_test_hole(&em, 0) && em_test_hole(&em, U64_MAX));
	SL_EXPECT(em_test_add(&em, 100, 10, 1000, 0, 0) == 0);
	/* Every way of overlapping [100, 110) is refused, in both modes. */
	for (mode = 0; mode <= SL_EM_MERGE; mode++) {
		SL_EXPECT(em_test_add(&em, 100, 10, 1000, 0, mode) == -EEXIST);
		SL_EXPECT(em_test_add(&em, 99, 2, 999, 0, mode) == -EEXIST);
		SL_EXPECT(em_test_add(&em, 109, 5, 1009, 0, mode) == -EEXIST);
		SL_EXPECT(em_test_add(&em, 105, 1, 7, 0, mode) == -EEXIST);
		SL_EXPECT(em_test_add(&em, 0, 1000, 0, 0, mode) == -EEXIST);
	}
	/* Lookups at the edges. */
	SL_EXPECT(em_test_hole(&em, 99));
	for (off = 100; off < 110; off++)
		SL_EXPECT(em_test_is(&em, off, 100, 10, 1000, 0));
	SL_EXPECT(em_test_hole(&em, 110));
	/* Touching is not overlapping. */
	SL_EXPECT(em_test_add(&em, 90, 10, 5000, 3, 0) == 0);
	SL_EXPECT(em_test_add(&em, 110, 10, 6000, 3, 0) == 0);
	SL_EXPECT(em_test_is(&em, 99, 90, 10, 5000, 3));
	SL_EXPECT(em_test_is(&em, 110, 110, 10, 6000, 3));
	/* The first and the last offset can be mapped. */
	SL_EXPECT(em_test_add(&em, 0, 1, 0, 1, 0) == 0);
	SL_EXPECT(em_test_add(&em, U64_MAX - 9, 10, 7, 2, 0) == 0);
	SL_EXPECT(em_test_is(&em, 0, 0, 1, 0, 1));
	SL_EXPECT(em_test_is(&em, U64_MAX, U64_MAX - 9, 10, 7, 2));
	SL_EXPECT(em_test_is(&em, U64_MAX - 9, U64_MAX - 9, 10, 7, 2));
	SL_EXPECT(em_test_hole(&em, U64_MAX - 10));
	SL_EXPECT(em_test_add(&em, U64_MAX, 1, 0, 0, SL_EM_MERGE) == -EEXIST);
	SL_EXPECT(sl_em_count(&em) == 5);
	em_test_done(&em);
}

static void test_em_add_merge(void)
{
	struct sl_extent_map em;

	if (!em_test_init(&em))
		return;
	/* Left: [0, 10) at 100, then [10, 20) at 110. */
	SL_EXPECT(em_test_add(&em, 0, 10, 100, 5, 0) == 0);
	SL_EXPECT(em_test_add(&em, 10, 10, 110, 5, SL_EM_MERGE) == 0);
	SL_EXPECT(em_test_is(&em, 0, 0, 20, 100, 5));
	SL_EXPECT(em_test_is(&em, 19, 0, 20, 100, 5));
	SL_EXPECT(sl_em_count(&em) == 1);
	/* Right: [40, 50) at 140, then [30, 40) at 130. */
	SL_EXPECT(em_test_add(&em, 40, 10, 140, 5, 0) == 0);
	SL_EXPECT(em_test_add(&em, 30, 10, 130, 5, SL_EM_MERGE) == 0);
	SL_EXPECT(em_test_is(&em, 30, 30, 20, 130, 5));
	SL_EXPECT(em_test_is(&em, 49, 30, 20, 130, 5));
	SL_EXPECT(sl_em_count(&em) == 2);
	/* Both: [20, 30) at 120 joins them into [0, 50) at 100. */
	SL_EXPECT(em_test_add(&em, 20, 10, 120, 5, SL_EM_MERGE) == 0);
	SL_EXPECT(em_test_is(&em, 0, 0, 50, 100, 5));
	SL_EXPECT(em_test_is(&em, 25, 0, 50, 100, 5));
	SL_EXPECT(em_test_is(&em, 49, 0, 50, 100, 5));
	SL_EXPECT(sl_em_count(&em) == 1);
	/* Without SL_EM_MERGE contiguous extents stay apart. */
	SL_EXPECT(em_test_add(&em, 50, 10, 150, 5, 0) == 0);
	SL_EXPECT(em_test_is(&em, 50, 50, 10, 150, 5));
	SL_EXPECT(sl_em_count(&em) == 2);
	/* A merge only goes one extent deep on each side. */
	SL_EXPECT(em_test_add(&em, 60, 10, 160, 5, SL_EM_MERGE) == 0);
	SL_EXPECT(em_test_is(&em, 60, 50, 20, 150, 5));
	SL_EXPECT(em_test_is(&em, 0, 0, 50, 100, 5));
	SL_EXPECT(sl_em_count(&em) == 2);
	em_test_done(&em);
}

static void test_em_no_merge(void)
{
	struct sl_extent_map em;

	if (!em_test_init(&em))
		return;
	SL_EXPECT(em_test_add(&em, 0, 10, 100, 1, 0) == 0);
	SL_EXPECT(em_test_add(&em, 20, 10, 120, 1, 0) == 0);
	/* Flags differ from both neighbours. */
	SL_EXPECT(em_test_add(&em, 10, 10, 110, 2, SL_EM_MERGE) == 0);
	SL_EXPECT(sl_em_count(&em) == 3);
	SL_EXPECT(em_test_is(&em, 10, 10, 10, 110, 2));
	SL_EXPECT(sl_em_remove(&em, 10) == 0);
	/* Disk not contiguous with either: a gap, then a step back. */
	SL_EXPECT(em_test_add(&em, 10, 10, 111, 1, SL_EM_MERGE) == 0);
	SL_EXPECT(em_test_is(&em, 10, 10, 10, 111, 1));
	SL_EXPECT(sl_em_remove(&em, 10) == 0);
	SL_EXPECT(em_test_add(&em, 10, 10, 90, 1, SL_EM_MERGE) == 0);
	SL_EXPECT(em_test_is(&em, 10, 10, 10, 90, 1));
	SL_EXPECT(sl_em_remove(&em, 10) == 0);
	/* Contiguous on disk with the left one only. */
	SL_EXPECT(sl_em_remove(&em, 20) == 0);
	SL_EXPECT(em_test_add(&em, 20, 10, 500, 1, 0) == 0);
	SL_EXPECT(em_test_add(&em, 10, 10, 110, 1, SL_EM_MERGE) == 0);
	SL_EXPECT(em_test_is(&em, 19, 0, 20, 100, 1));
	SL_EXPECT(em_test_is(&em, 20, 20, 10, 500, 1));
	SL_EXPECT(sl_em_remove(&em, 0) == 0);
	SL_EXPECT(sl_em_remove(&em, 20) == 0);
	SL_EXPECT(sl_em_count(&em) == 0);
	/* Contiguous on disk but not adjacent in the file. */
	SL_EXPECT(em_test_add(&em, 0, 10, 100, 1, 0) == 0);
	SL_EXPECT(em_test_add(&em, 11, 10, 110, 1, SL_EM_MERGE) == 0);
	SL_EXPECT(sl_em_count(&em) == 2);
	/* Adjacent in the file, contiguous with the right one only. */
	SL_EXPECT(em_test_add(&em, 10, 1, 109, 1, SL_EM_MERGE) == 0);
	SL_EXPECT(em_test_is(&em, 10, 10, 11, 109, 1));
	SL_EXPECT(em_test_is(&em, 0, 0, 10, 100, 1));
	SL_EXPECT(sl_em_count(&em) == 2);
	em_test_done(&em);
}

/* Merges at the ends of the offset space and of the disk. */
static void test_em_merge_limits(void)
{
	struct sl_extent_map em;
	u64 half = 1ULL << 63;

	if (!em_test_init(&em))
		return;
	/* The left one ends at the last disk address: no wrap to 0. */
	SL_EXPECT(em_test_add(&em, 0, 10, U64_MAX - 9, 0, 0) == 0);
	SL_EXPECT(em_test_add(&em, 10, 10, 0, 0, SL_EM_MERGE) == 0);
	SL_EXPECT(sl_em_count(&em) == 2);
	SL_EXPECT(sl_em_drop_range(&em, 0, 20, GFP_KERNEL) == 0);
	/* Two halves of the whole space would need a length of 2^64. */
	SL_EXPECT(em_test_add(&em, 0, half, 0, 0, 0) == 0);
	SL_EXPECT(em_test_add(&em, half, half, half, 0, SL_EM_MERGE) == 0);
	SL_EXPECT(sl_em_count(&em) == 2);
	/* Three parts: the left merge happens, the right one cannot. */
	SL_EXPECT(sl_em_remove(&em, half) == 0);
	SL_EXPECT(em_test_add(&em, half + 10, half - 10, half + 10, 0, 0) == 0);
	SL_EXPECT(em_test_add(&em, half, 10, half, 0, SL_EM_MERGE) == 0);
	SL_EXPECT(em_test_is(&em, 0, 0, half + 10, 0, 0));
	SL_EXPECT(em_test_is(&em, U64_MAX, half + 10, half - 10, half + 10, 0));
	SL_EXPECT(sl_em_count(&em) == 2);
	/* Without [0, half + 10) it merges, up to the last offset. */
	SL_EXPECT(sl_em_remove(&em, 0) == 0);
	SL_EXPECT(em_test_add(&em, half, 10, half, 0, SL_EM_MERGE) == 0);
	SL_EXPECT(em_test_is(&em, U64_MAX, half, half, half, 0));
	SL_EXPECT(sl_em_count(&em) == 1);
	em_test_done(&em);
}

static void test_em_bad_input(void)
{
	struct sl_extent_map em;
	struct sl_extent_info e;

	if (!em_test_init(&em))
		return;
	SL_EXPECT(em_test_add(&em, 10, 0, 0, 0, 0) == -EINVAL);
	SL_EXPECT(em_test_add(&em, 10, 0, 0, 0, SL_EM_MERGE) == -EINVAL);
	SL_EXPECT(em_test_add(&em, U64_MAX, 2, 0, 0, 0) == -EINVAL);
	SL_EXPECT(em_test_add(&em, U64_MAX - 9, 11, 0, 0, SL_EM_MERGE) == -EINVAL);
	SL_EXPECT(em_test_add(&em, 0, U64_MAX, 2, 0, 0) == -EINVAL);
	SL_EXPECT(em_test_add(&em, 5, 10, U64_MAX - 8, 0, 0) == -EINVAL);
	SL_EXPECT(em_test_add(&em, 5, 10, 0, 0, 0x2) == -EINVAL);
	SL_EXPECT(sl_em_first_overlap(&em, 5, 0, &e) == -EINVAL);
	SL_EXPECT(sl_em_first_overlap(&em, U64_MAX, 2, &e) == -EINVAL);
	SL_EXPECT(sl_em_drop_range(&em, 5, 0, GFP_KERNEL) == -EINVAL);
	SL_EXPECT(sl_em_drop_range(&em, 2, U64_MAX, GFP_KERNEL) == -EINVAL);
	SL_EXPECT(sl_em_count(&em) == 0);
	/* The largest extents that fit. */
	SL_EXPECT(em_test_add(&em, 0, U64_MAX, 1, 0, 0) == 0);
	SL_EXPECT(em_test_add(&em, U64_MAX, 1, U64_MAX, 0, 0) == 0);
	SL_EXPECT(sl_em_count(&em) == 2);
	em_test_done(&em);
}

static void test_em_first_overlap(void)
{
	struct sl_extent_map em;
	u64 i, bad = 0;

	if (!em_test_init(&em))
		return;
	/* Extents [100 i, 100 i + 50) for i = 1 .. 200. */
	for (i = 1; i <= 200; i++)
		bad += em_test_add(&em, 100 * i, 50, 7 * i, 0, 0) != 0;
	SL_EXPECT(bad == 0);
	SL_EXPECT(em_test_overlap(&em, 0, 100) == EM_TEST_NONE);
	SL_EXPECT(em_test_overlap(&em, 0, 101) == 100);
	for (i = 1; i <= 200; i++) {
		u64 k = 100 * i;

		bad += em_test_overlap(&em, k, 1) != k;
		bad += em_test_overlap(&em, k + 49, 1000) != k;
		bad += em_test_overlap(&em, k + 50, 50) != EM_TEST_NONE;
		bad += em_test_overlap(&em, k + 50, 51) !=
		       (i < 200 ? k + 100 : EM_TEST_NONE);
		bad += em_test_overlap(&em, k - 1, 2) != k;
		/* To the very end of the space. */
		bad += em_test_overlap(&em, k + 60, U64_MAX - (k + 60) + 1) !=
		       (i < 200 ? k + 100 : EM_TEST_NONE);
	}
	SL_EXPECT(bad == 0);
	SL_EXPECT(em_test_add(&em, U64_MAX, 1, 0, 0, 0) == 0);
	SL_EXPECT(em_test_overlap(&em, 20100, U64_MAX - 20100 + 1) == U64_MAX);
	SL_EXPECT(em_test_overlap(&em, U64_MAX, 1) == U64_MAX);
	SL_EXPECT(em_test_overlap(&em, U64_MAX - 1, 1) == EM_TEST_NONE);
	em_test_done(&em);
}

static void test_em_iterate(void)
{
	struct sl_extent_map em;
	struct sl_extent_info e;
	struct sl_em_cursor cur;
	u64 i, pos, bad = 0, n = 300;

	if (!em_test_init(&em))
		return;
	for (i = 0; i < n; i++)
		bad += em_test_add(&em, 16 * ((i * 7919) % n), 8, i, 0, 0) != 0;
	SL_EXPECT(bad == 0);
	/* All of them, in order. */
	i = 0;
	cur = SL_EM_CURSOR(0);
	while (sl_em_walk(&em, &cur, &e)) {
		bad += e.start != 16 * i || e.len != 8;
		i++;
	}
	SL_EXPECT(bad == 0 && i == n);
	/* From inside an extent, and from a gap. */
	SL_EXPECT(sl_em_next(&em, 35, &e) == 0 && e.start == 32);
	SL_EXPECT(sl_em_next(&em, 40, &e) == 0 && e.start == 48);
	SL_EXPECT(sl_em_next(&em, 16 * n, &e) == -ENOENT);
	/* A range: the extents meeting [100, 200). */
	i = 0;
	for (pos = 100; !sl_em_next(&em, pos, &e) && e.start < 200;
	     pos = e.start + e.len)
		i++;
	SL_EXPECT(i == 7);
	/* An extent ending at U64_MAX ends the walk instead of wrapping. */
	SL_EXPECT(em_test_add(&em, U64_MAX - 4, 5, 0, 0, 0) == 0);
	SL_EXPECT(em_test_add(&em, 0x1000000, 5, 0, 0, 0) == 0);
	i = 0;
	cur = SL_EM_CURSOR(16 * (n - 1));
	while (sl_em_walk(&em, &cur, &e))
		i++;
	SL_EXPECT(i == 3 && cur.done);
	SL_EXPECT(!sl_em_walk(&em, &cur, &e));
	SL_EXPECT(sl_em_next(&em, U64_MAX, &e) == 0 && e.start == U64_MAX - 4);
	em_test_done(&em);
}

static void test_em_remove(void)
{
	struct sl_extent_map em;

	if (!em_test_init(&em))
		return;
	SL_EXPECT(sl_em_remove(&em, 0) == -ENOENT);
	SL_EXPECT(em_test_add(&em, 10, 10, 0, 0, 0) == 0);
	SL_EXPECT(em_test_add(&em, 20, 10, 10, 0, 0) == 0);
	/* Only the exact start removes. */
	SL_EXPECT(sl_em_remove(&em, 11) == -ENOENT);
	SL_EXPECT(sl_em_remove(&em, 19) == -ENOENT);
	SL_EXPECT(sl_em_remove(&em, 10) == 0);
	SL_EXPECT(sl_em_remove(&em, 10) == -ENOENT);
	SL_EXPECT(em_test_hole(&em, 15));
	SL_EXPECT(em_test_is(&em, 20, 20, 10, 10, 0));
	SL_EXPECT(sl_em_count(&em) == 1);
	/* A merged extent is removed whole, by its new start. */
	SL_EXPECT(em_test_add(&em, 10, 10, 0, 0, SL_EM_MERGE) == 0);
	SL_EXPECT(sl_em_remove(&em, 20) == -ENOENT);
	SL_EXPECT(sl_em_remove(&em, 10) == 0);
	SL_EXPECT(sl_em_count(&em) == 0);
	em_test_done(&em);
}

/* Only an extent of exactly the range is replaced, in place, unmerged. */
static void test_em_replace(void)
{
	struct sl_extent_info info = { .start = 10, .len = 10, .disk_start = 500,
				       .flags = 2 };
	struct sl_extent_info old;
	struct sl_extent_map em;

	if (!em_test_init(&em))
		return;
	SL_EXPECT(sl_em_replace(&em, &info, &old, GFP_KERNEL) == -ENOENT);
	SL_EXPECT(em_test_add(&em, 10, 10, 0, 0, 0) == 0);
	SL_EXPECT(em_test_add(&em, 20, 10, 10, 0, 0) == 0);
	info.len = 9;
	SL_EXPECT(sl_em_replace(&em, &info, &old, GFP_KERNEL) == -ENOENT);
	info.start = 11;
	SL_EXPECT(sl_em_replace(&em, &info, &old, GFP_KERNEL) == -ENOENT);
	info.len = 0;
	SL_EXPECT(sl_em_replace(&em, &info, &old, GFP_KERNEL) == -EINVAL);
	SL_EXPECT(em_test_is(&em, 10, 10, 10, 0, 0));
	info.start = 10;
	info.len = 10;
	SL_EXPECT(sl_em_replace(&em, &info, &old, GFP_KERNEL) == 0);
	SL_EXPECT(old.start == 10 && old.len == 10 && old.disk_start == 0 &&
		  old.flags == 0);
	SL_EXPECT(em_test_is(&em, 15, 10, 10, 500, 2));
	/* The neighbour continues it on disk no more, and is left alone. */
	SL_EXPECT(em_test_is(&em, 20, 20, 10, 10, 0));
	SL_EXPECT(sl_em_count(&em) == 2);
	info.disk_start = 0;
	info.flags = 0;
	SL_EXPECT(sl_em_replace(&em, &info, NULL, GFP_KERNEL) == 0);
	SL_EXPECT(em_test_is(&em, 19, 10, 10, 0, 0));
	SL_EXPECT(sl_em_count(&em) == 2);
#ifdef SL_TEST_FAULT_INJECTION
	shim_fail_nth(1);
	SL_EXPECT(sl_em_replace(&em, &info, NULL, GFP_KERNEL) == -ENOMEM);
	shim_fail_off();
	SL_EXPECT(em_test_is(&em, 19, 10, 10, 0, 0));
#endif
	em_test_done(&em);
}

static void test_em_drop_range(void)
{
	struct sl_extent_map em;
	unsigned long count;
	u64 digest, i, bad = 0;

	if (!em_test_init(&em))
		return;
	/* Extents [100 i, 100 i + 50) at disk 1000 i, flags i, i = 1 .. 9. */
	for (i = 1; i <= 9; i++)
		bad += em_test_add(&em, 100 * i, 50, 1000 * i, i, 0) != 0;
	SL_EXPECT(bad == 0);
	/* Nothing mapped there: nothing changes. */
	digest = em_test_digest(&em, &count);
	SL_EXPECT(sl_em_drop_range(&em, 150, 50, GFP_KERNEL) == 0);
	SL_EXPECT(sl_em_drop_range(&em, 0, 100, GFP_KERNEL) == 0);
	SL_EXPECT(em_test_digest(&em, &count) == digest && count == 9);
	/* Exactly one extent, and one inside a wider hole. */
	SL_EXPECT(sl_em_drop_range(&em, 100, 50, GFP_KERNEL) == 0);
	SL_EXPECT(sl_em_drop_range(&em, 190, 70, GFP_KERNEL) == 0);
	SL_EXPECT(em_test_hole(&em, 100) && em_test_hole(&em, 200));
	SL_EXPECT(sl_em_count(&em) == 7);
	/* Straddling the left end: the tail of [300, 350) goes. */
	SL_EXPECT(sl_em_drop_range(&em, 340, 20, GFP_KERNEL) == 0);
	SL_EXPECT(em_test_is(&em, 300, 300, 40, 3000, 3));
	SL_EXPECT(em_test_hole(&em, 340) && em_test_hole(&em, 349));
	/* Straddling the right end: the head of [400, 450) goes. */
	SL_EXPECT(sl_em_drop_range(&em, 390, 20, GFP_KERNEL) == 0);
	SL_EXPECT(em_test_hole(&em, 409));
	SL_EXPECT(em_test_is(&em, 410, 410, 40, 4010, 4));
	SL_EXPECT(em_test_is(&em, 449, 410, 40, 4010, 4));
	SL_EXPECT(sl_em_remove(&em, 400) == -ENOENT);
	/* Inside one extent: it splits, the tail at the right disk place. */
	SL_EXPECT(sl_em_drop_range(&em, 510, 10, GFP_KERNEL) == 0);
	SL_EXPECT(em_test_is(&em, 500, 500, 10, 5000, 5));
	SL_EXPECT(em_test_hole(&em, 510) && em_test_hole(&em, 519));
	SL_EXPECT(em_test_is(&em, 520, 520, 30, 5020, 5));
	SL_EXPECT(em_test_is(&em, 549, 520, 30, 5020, 5));
	SL_EXPECT(sl_em_count(&em) == 8);
	/* Spanning many, trimming at both ends. */
	SL_EXPECT(sl_em_drop_range(&em, 505, 340, GFP_KERNEL) == 0);
	SL_EXPECT(em_test_is(&em, 500, 500, 5, 5000, 5));
	SL_EXPECT(em_test_hole(&em, 505) && em_test_hole(&em, 844));
	SL_EXPECT(em_test_is(&em, 845, 845, 5, 8045, 8));
	SL_EXPECT(em_test_is(&em, 900, 900, 50, 9000, 9));
	SL_EXPECT(sl_em_count(&em) == 5);
	/* A hole merged over again is one extent. */
	SL_EXPECT(sl_em_drop_range(&em, 910, 10, GFP_KERNEL) == 0);
	SL_EXPECT(em_test_add(&em, 910, 10, 9010, 9, SL_EM_MERGE) == 0);
	SL_EXPECT(em_test_is(&em, 915, 900, 50, 9000, 9));
	/* The edges of the space. */
	SL_EXPECT(em_test_add(&em, U64_MAX - 99, 100, 0, 0, 0) == 0);
	SL_EXPECT(sl_em_drop_range(&em, U64_MAX, 1, GFP_KERNEL) == 0);
	SL_EXPECT(em_test_is(&em, U64_MAX - 1, U64_MAX - 99, 99, 0, 0));
	SL_EXPECT(sl_em_drop_range(&em, U64_MAX - 89, 10, GFP_KERNEL) == 0);
	SL_EXPECT(em_test_is(&em, U64_MAX - 1, U64_MAX - 79, 79, 20, 0));
	SL_EXPECT(sl_em_drop_range(&em, 0, U64_MAX, GFP_KERNEL) == 0);
	SL_EXPECT(sl_em_count(&em) == 0);
	em_test_done(&em);
}

/*
 * A random mix of every operation, against a model over EM_SPACE units:
 * per unit, the start of the extent holding it (EM_TEST_NONE in a hole),
 * its disk address and its flags.  The window sits at offset 0 or at the
 * top of the space.
 */
#define EM_SPACE	1024
#define EM_MAX_LEN	40

struct em_model {
	u64 base;
	u64 start[EM_SPACE];	/* relative to @base */
	u64 disk[EM_SPACE];
	u8 flags[EM_SPACE];
};

static bool em_model_used(const struct em_model *m, u64 u)
{
	return u < EM_SPACE && m->start[u] != EM_TEST_NONE;
}

/* The model's extent holding unit @u (relative), as the map reports it. */
static void em_model_extent(const struct em_model *m, u64 u,
			    struct sl_extent_info *e)
{
	u64 s = m->start[u], end = s;

	while (end < EM_SPACE && m->start[end] == s)
		end++;
	e->start = m->base + s;
	e->len = end - s;
	e->disk_start = m->disk[s];
	e->flags = m->flags[s];
}

static bool em_info_eq(const struct sl_extent_info *a,
		       const struct sl_extent_info *b)
{
	return a->start == b->start && a->len == b->len &&
	       a->disk_start == b->disk_start && a->flags == b->flags;
}

static void em_model_relabel(struct em_model *m, u64 from, u64 old, u64 new)
{
	for (; from < EM_SPACE && m->start[from] == old; from++)
		m->start[from] = new;
}

/* Whether unit @b's extent goes on from unit @a on disk, same flags. */
static bool em_model_contiguous(const struct em_model *m, u64 a, u64 b)
{
	return em_model_used(m, a) && em_model_used(m, b) &&
	       m->flags[a] == m->flags[b] && m->disk[a] != U64_MAX &&
	       m->disk[a] + 1 == m->disk[b];
}

static int em_model_add(struct em_model *m, u64 s, u64 len, u64 disk,
			u32 flags, unsigned int mode)
{
	u64 u, label = s;

	for (u = s; u < s + len; u++)
		if (em_model_used(m, u))
			return -EEXIST;
	for (u = s; u < s + len; u++) {
		m->start[u] = s;
		m->disk[u] = disk + (u - s);
		m->flags[u] = flags;
	}
	if (!(mode & SL_EM_MERGE))
		return 0;
	if (s && em_model_contiguous(m, s - 1, s)) {
		label = m->start[s - 1];
		em_model_relabel(m, s, s, label);
	}
	if (em_model_contiguous(m, s + len - 1, s + len))
		em_model_relabel(m, s + len, s + len, label);
	return 0;
}

static void em_model_drop(struct em_model *m, u64 s, u64 len)
{
	u64 u, end = s + len;

	if (end < EM_SPACE && em_model_used(m, end) && m->start[end] < end)
		em_model_relabel(m, end, m->start[end], end);
	for (u = s; u < end; u++)
		m->start[u] = EM_TEST_NONE;
}

/* Compare every extent of the map with the model's. */
static unsigned long em_model_compare(struct sl_extent_map *em,
				      const struct em_model *m)
{
	struct sl_em_cursor cur = SL_EM_CURSOR(m->base);
	struct sl_extent_info e, want;
	unsigned long bad = 0;
	u64 u = 0;

	while (sl_em_walk(em, &cur, &e)) {
		while (u < EM_SPACE && !em_model_used(m, u))
			u++;
		if (u == EM_SPACE)
			return bad + 1;
		em_model_extent(m, u, &want);
		bad += !em_info_eq(&e, &want);
		u = want.start - m->base + want.len;
	}
	while (u < EM_SPACE && !em_model_used(m, u))
		u++;
	return bad + (u != EM_SPACE);
}

static unsigned long em_model_step(struct sl_extent_map *em,
				   struct em_model *m)
{
	u64 s = sl_test_rand() % EM_SPACE, len, disk;
	unsigned int op = sl_test_rand() % 16, mode;
	struct sl_extent_info e, want;
	unsigned long bad = 0;
	u32 flags;
	int ret;

	len = 1 + sl_test_rand() % EM_MAX_LEN;
	if (s + len > EM_SPACE)
		len = EM_SPACE - s;
	if (op < 6) {
		/* Add; often contiguous on disk with the unit before. */
		mode = sl_test_rand() % 3 ? SL_EM_MERGE : 0;
		flags = sl_test_rand() % 2;
		if (s && em_model_used(m, s - 1) && sl_test_rand() % 4) {
			disk = m->disk[s - 1] + 1;
			flags = m->flags[s - 1];
		} else {
			disk = sl_test_rand() % 4096;
		}
		/* Sometimes the right neighbour's disk place, to merge both. */
		if (s + len < EM_SPACE && em_model_used(m, s + len) &&
		    !(sl_test_rand() % 4) && m->disk[s + len] >= len)
			disk = m->disk[s + len] - len;
		ret = em_test_add(em, m->base + s, len, disk, flags, mode);
		bad += ret != em_model_add(m, s, len, disk, flags, mode);
	} else if (op < 8) {
		ret = sl_em_remove(em, m->base + s);
		if (em_model_used(m, s) && m->start[s] == s) {
			em_model_extent(m, s, &want);
			em_model_drop(m, s, want.len);
			bad += ret != 0;
		} else {
			bad += ret != -ENOENT;
		}
	} else if (op < 10) {
		bad += sl_em_drop_range(em, m->base + s, len, GFP_KERNEL) != 0;
		em_model_drop(m, s, len);
	} else if (op < 13) {
		ret = sl_em_lookup(em, m->base + s, &e);
		if (em_model_used(m, s)) {
			em_model_extent(m, s, &want);
			bad += ret || !em_info_eq(&e, &want);
		} else {
			bad += ret != -ENOENT;
		}
	} else {
		u64 u = s;

		ret = sl_em_first_overlap(em, m->base + s, len, &e);
		while (u < s + len && !em_model_used(m, u))
			u++;
		if (u < s + len) {
			em_model_extent(m, u, &want);
			bad += ret || !em_info_eq(&e, &want);
		} else {
			bad += ret != -ENOENT;
		}
	}
	return bad;
}

static void test_em_random_model(void)
{
	static struct em_model model;
	struct sl_extent_map em;
	unsigned long i, bad = 0, ops = 20000;
	int round;

	for (round = 0; round < 2; round++) {
		if (!em_test_init(&em))
			return;
		model.base = round ? U64_MAX - EM_SPACE + 1 : 0;
		for (i = 0; i < EM_SPACE; i++)
			model.start[i] = EM_TEST_NONE;
		for (i = 0; i < ops; i++) {
			bad += em_model_step(&em, &model);
			if (i % 1000 == 999) {
				bad += em_model_compare(&em, &model);
				SL_EXPECT(sl_em_check(&em) == 0);
			}
		}
		bad += em_model_compare(&em, &model);
		SL_EXPECT(bad == 0);
		em_test_done(&em);
	}
}

/* Kept outside the kernel build: the kernel has no deterministic hook. */
#ifdef SL_TEST_FAULT_INJECTION
/*
 * Fail the n-th allocation of a merge or a punch for n = 1, 2, ... until
 * it succeeds, on a map whose leaves are full, so that the inserts need
 * leaf splits: every failure must leave the map exactly as it was.
 */
static void test_em_enomem(void)
{
	unsigned long count, want_count, i, n, bad = 0, hits = 0, rounds = 0;
	unsigned long failed;
	struct sl_extent_map em;
	u64 digest;
	int ret;

	if (!em_test_init(&em))
		return;
	/* Ascending inserts leave full leaves; gaps of 10 between extents. */
	for (i = 0; i < 2000; i++)
		bad += em_test_add(&em, 20 * i, 10, 1000 * i, 0, 0) != 0;
	SL_EXPECT(bad == 0);
	for (i = 0; i < 2000; i += 7, rounds++) {
		u64 at = 20 * i;

		for (n = 1, ret = -ENOMEM; ret == -ENOMEM && n < 8; n++) {
			digest = em_test_digest(&em, &want_count);
			shim_fail_nth(n);
			/* A split: a new extent, and a new leaf if it is full. */
			ret = sl_em_drop_range(&em, at + 3, 4, GFP_NOWAIT);
			shim_fail_off();
			if (ret == -ENOMEM) {
				hits++;
				bad += em_test_digest(&em, &count) != digest;
				bad += count != want_count;
			}
		}
		bad += ret != 0;
		/* Merge it back: [at + 3, at + 7) rejoins both sides. */
		for (n = 1, ret = -ENOMEM; ret == -ENOMEM && n < 8; n++) {
			digest = em_test_digest(&em, &want_count);
			shim_fail_nth(n);
			ret = em_test_add(&em, at + 3, 4, 1000 * i + 3, 0,
					  SL_EM_MERGE);
			shim_fail_off();
			if (ret == -ENOMEM) {
				hits++;
				bad += em_test_digest(&em, &count) != digest;
				bad += count != want_count;
			}
		}
		bad += ret != 0;
		bad += !em_test_is(&em, at + 5, at, 10, 1000 * i, 0);
	}
	SL_EXPECT(bad == 0);
	/*
	 * Each extent allocation failed once; more failures mean that leaf
	 * splits under the lock failed too, and were undone.
	 */
	SL_EXPECT(hits > 2 * rounds);
	SL_EXPECT(sl_em_count(&em) == 2000);
	/*
	 * A caller that may sleep gets through a failed split by retrying:
	 * fresh full leaves, where the second allocation of a split (after
	 * the new extent's) is a leaf.
	 */
	for (i = 2000; i < 4000; i++)
		bad += em_test_add(&em, 20 * i, 10, 1000 * i, 0, 0) != 0;
	failed = shim_failed_allocs();
	for (i = 2000, rounds = 0; i < 4000; i += 7, rounds++) {
		shim_fail_nth(2);
		bad += sl_em_drop_range(&em, 20 * i + 3, 4, GFP_KERNEL) != 0;
		shim_fail_off();
	}
	SL_EXPECT(bad == 0);
	SL_EXPECT(shim_failed_allocs() > failed);
	SL_EXPECT(sl_em_count(&em) == 4000 + rounds);
	em_test_done(&em);
}
#endif

#ifdef SL_TEST_FAULT_INJECTION
/*
 * A long punch runs in steps (SL_WIN_EM_DROP_STEP between them): extents
 * E_i = [10 i, 10 i + 5) at disk 1000 + 10 i, i < EM_STEP_N, and a punch
 * of [2, 10 (EM_STEP_N - 1) + 2], which trims E_0 and cuts E_(N-1).
 */
#define EM_STEP_N	(4 * SL_EM_BATCH + 3)
#define EM_STEP_LAST	(10 * (EM_STEP_N - 1) + 2)

struct em_step_state {
	struct sl_extent_map *em;
	u64 prev_low;		/* where the step before began */
	unsigned long prev_count;
	unsigned long steps, too_long, unmapped_bad, mapped_bad;
	unsigned long meddle_at;	/* step after which to change the map */
	u64 meddle_key;		/* where that step began */
	bool fail_next;		/* and make the next allocation fail */
};

static struct em_step_state em_step;

static bool em_step_orig(struct sl_extent_map *em, u64 i)
{
	return em_test_is(em, 10 * i + 2, 10 * i, 5, 1000 + 10 * i, 0);
}

/*
 * Other writers between two steps of the punch, at 10 j where the step
 * began: one maps [10 j + 6, +2) in the part already punched (it stays),
 * one maps [10 (j - 2) + 6, +2) in the part not yet punched (it goes), one
 * removes E_(j-3), and one grows E_(j-1) by a merging add up to 10 j + 3,
 * across the step boundary: the next step must cut it at 10 j - 1 and
 * keep [10 j, 10 j + 3), mapped after that part was punched.
 */
static void em_step_meddle(struct sl_extent_map *em, u64 j)
{
	SL_EXPECT(em_test_add(em, 10 * j + 6, 2, 5000000, 0, 0) == 0);
	SL_EXPECT(em_test_add(em, 10 * (j - 2) + 6, 2, 6000000, 0, 0) == 0);
	SL_EXPECT(sl_em_remove(em, 10 * (j - 3)) == 0);
	SL_EXPECT(em_test_add(em, 10 * (j - 1) + 5, 8, 1000 + 10 * (j - 1) + 5,
			      0, SL_EM_MERGE) == 0);
	SL_EXPECT(em_test_is(em, 10 * j, 10 * (j - 1), 13,
			     1000 + 10 * (j - 1), 0));
}

/*
 * Between steps, what the punch left from @from to its end: nothing, but
 * for what the meddling mapped there after that part was punched.
 */
static bool em_step_punched(struct em_step_state *st, u64 from)
{
	struct sl_em_cursor cur = SL_EM_CURSOR(from);
	u64 k = st->meddle_key;
	struct sl_extent_info e;

	while (sl_em_walk(st->em, &cur, &e) && e.start <= EM_STEP_LAST)
		if (!k || !((e.start == k + 6 && e.disk_start == 5000000) ||
			    (e.start == k && e.disk_start == 1000 + k)))
			return false;
	return true;
}

/* Extents with a key in [@a, @b) before a step, by the test's model. */
static u64 em_step_keys(struct em_step_state *st, u64 a, u64 b)
{
	u64 k = st->meddle_key, n = (b + 9) / 10 - (a + 9) / 10;

	/* The meddling removed E_(j-3) and added [10 (j - 2) + 6, +2). */
	if (k && 10 * (k / 10 - 3) >= a && 10 * (k / 10 - 3) < b)
		n--;
	if (k && 10 * (k / 10 - 2) + 6 >= a && 10 * (k / 10 - 2) + 6 < b)
		n++;
	return n;
}

static void em_step_window(const struct sl_window_at *at)
{
	struct em_step_state *st = &em_step;
	u64 i, j = at->key / 10;

	if (at->win != SL_WIN_EM_DROP_STEP || at->list != &st->em->list)
		return;
	st->steps++;
	/*
	 * The step covered the extents from 10 j up to where the one before
	 * began, and erased as many (but for a cut): at most SL_EM_BATCH.
	 */
	if (em_step_keys(st, at->key, st->prev_low) > SL_EM_BATCH ||
	    st->prev_count - sl_em_count(st->em) > SL_EM_BATCH)
		st->too_long++;
	/*
	 * What readers see between steps: the range punched from 10 j to its
	 * end (but for what a writer mapped there since), the rest as before.
	 */
	if (!em_step_punched(st, at->key))
		st->unmapped_bad++;
	for (i = 0; i < j; i++)
		if (!st->meddle_at || i < st->meddle_key / 10 - 3)
			st->mapped_bad += !em_step_orig(st->em, i);
	if (st->steps == st->meddle_at) {
		st->meddle_key = at->key;
		em_step_meddle(st->em, j);
		if (st->fail_next)
			shim_fail_nth(1);
	}
	st->prev_low = at->key;
	st->prev_count = sl_em_count(st->em);
}

static bool em_step_setup(struct sl_extent_map *em, unsigned long meddle_at,
			  bool fail_next)
{
	u64 i, bad = 0;

	if (!em_test_init(em))
		return false;
	for (i = 0; i < EM_STEP_N; i++)
		bad += !!em_test_add(em, 10 * i, 5, 1000 + 10 * i, 0, 0);
	SL_EXPECT(bad == 0);
	memset(&em_step, 0, sizeof(em_step));
	em_step.em = em;
	em_step.prev_low = EM_STEP_LAST + 1;
	em_step.prev_count = EM_STEP_N;
	em_step.meddle_at = meddle_at;
	em_step.fail_next = fail_next;
	sl_window_hook = em_step_window;
	return true;
}

/*
 * The steps of a long punch: none covers more than SL_EM_BATCH extents,
 * readers see between two steps what a punch of the range's end alone
 * would leave, and each step punches the map as it is then.
 */
static void test_em_drop_steps(void)
{
	unsigned long resched = shim_cond_resched_calls, count;
	struct sl_extent_map em;
	u64 j;

	/* Undisturbed. */
	if (!em_step_setup(&em, 0, false))
		return;
	SL_EXPECT(sl_em_drop_range(&em, 2, EM_STEP_LAST - 1, GFP_KERNEL) == 0);
	sl_window_hook = NULL;
	/* N extents, SL_EM_BATCH a step: the last step makes no window. */
	SL_EXPECT(em_step.steps == (EM_STEP_N - 1) / SL_EM_BATCH);
	SL_EXPECT(em_step.too_long == 0);
	SL_EXPECT(em_step.unmapped_bad == 0 && em_step.mapped_bad == 0);
	SL_EXPECT(shim_cond_resched_calls - resched >= em_step.steps);
	SL_EXPECT(em_test_is(&em, 1, 0, 2, 1000, 0));
	SL_EXPECT(em_test_is(&em, EM_STEP_LAST + 1, EM_STEP_LAST + 1, 2,
			     1000 + EM_STEP_LAST + 1, 0));
	SL_EXPECT(sl_em_count(&em) == 2);
	em_test_done(&em);

	/* Other writers between the second step and the third. */
	if (!em_step_setup(&em, 2, false))
		return;
	SL_EXPECT(sl_em_drop_range(&em, 2, EM_STEP_LAST - 1, GFP_KERNEL) == 0);
	sl_window_hook = NULL;
	j = em_step.meddle_key / 10;
	SL_EXPECT(em_step.steps >= 2);
	SL_EXPECT(em_step.too_long == 0);
	SL_EXPECT(em_step.unmapped_bad == 0 && em_step.mapped_bad == 0);
	SL_EXPECT(em_test_is(&em, 1, 0, 2, 1000, 0));
	SL_EXPECT(em_test_is(&em, 10 * j, 10 * j, 3, 1000 + 10 * j, 0));
	SL_EXPECT(em_test_hole(&em, 10 * j - 1));
	SL_EXPECT(em_test_is(&em, 10 * j + 6, 10 * j + 6, 2, 5000000, 0));
	SL_EXPECT(em_test_hole(&em, 10 * (j - 2) + 6));
	SL_EXPECT(em_test_is(&em, EM_STEP_LAST + 1, EM_STEP_LAST + 1, 2,
			     1000 + EM_STEP_LAST + 1, 0));
	em_test_digest(&em, &count);
	SL_EXPECT(count == 4 && sl_em_count(&em) == 4);
	em_test_done(&em);

	/*
	 * The same, and the cut that E_(j-1)'s growth makes necessary cannot
	 * allocate its tail: -ENOMEM, with the steps made so far kept and
	 * nothing below 10 j changed.
	 */
	if (!em_step_setup(&em, 2, true))
		return;
	SL_EXPECT(sl_em_drop_range(&em, 2, EM_STEP_LAST - 1, GFP_KERNEL) ==
		  -ENOMEM);
	shim_fail_off();
	sl_window_hook = NULL;
	j = em_step.meddle_key / 10;
	SL_EXPECT(em_step.steps == 2);
	SL_EXPECT(em_test_is(&em, 1, 0, 5, 1000, 0));
	SL_EXPECT(em_test_is(&em, 10 * j + 2, 10 * (j - 1), 13,
			     1000 + 10 * (j - 1), 0));
	SL_EXPECT(em_test_is(&em, 10 * (j - 2) + 6, 10 * (j - 2) + 6, 2,
			     6000000, 0));
	SL_EXPECT(em_test_is(&em, 10 * j + 6, 10 * j + 6, 2, 5000000, 0));
	SL_EXPECT(em_test_hole(&em, 10 * j + 8));
	SL_EXPECT(em_test_hole(&em, EM_STEP_LAST));
	em_test_digest(&em, &count);
	/* E_0 .. E_(j-1) but E_(j-3), the two added, E_(N-1)'s tail. */
	SL_EXPECT(count == j - 1 + 2 + 1 && sl_em_count(&em) == count);
	em_test_done(&em);
}

/* Extents a check walks: E_i = [10 i, 10 i + 5), i < EM_STEP_N. */
struct em_check_state {
	struct sl_extent_map *em;
	u64 prev;
	unsigned long steps, too_long;
};

static struct em_check_state em_chk;

static void em_check_window(const struct sl_window_at *at)
{
	u64 walked;

	if (at->win != SL_WIN_EM_CHECK_STEP || at->list != &em_chk.em->list)
		return;
	em_chk.steps++;
	/* Keys 10 i in [prev, key); the meddling below keeps the count. */
	walked = (at->key + 9) / 10 - (em_chk.prev + 9) / 10;
	if (walked > SL_EM_BATCH)
		em_chk.too_long++;
	em_chk.prev = at->key;
	if (em_chk.steps == 2) {
		/*
		 * Ahead of the walk, remove one extent and map another in
		 * its place, shorter: seen whole, nothing to report.
		 */
		SL_EXPECT(sl_em_remove(em_chk.em, 10 * (EM_STEP_N - 2)) == 0);
		SL_EXPECT(em_test_add(em_chk.em, 10 * (EM_STEP_N - 2) + 1, 2,
				      7, 0, 0) == 0);
	}
}

/*
 * A check walks SL_EM_BATCH extents per read-side section and may
 * reschedule between them; a change it sees whole is no violation, and
 * the count still matches.
 */
static void test_em_check_steps(void)
{
	unsigned long resched = shim_cond_resched_calls;
	struct sl_extent_map em;
	u64 i, bad = 0;

	if (!em_test_init(&em))
		return;
	for (i = 0; i < EM_STEP_N; i++)
		bad += !!em_test_add(&em, 10 * i, 5, 1000 + 10 * i, 0, 0);
	SL_EXPECT(bad == 0);
	memset(&em_chk, 0, sizeof(em_chk));
	em_chk.em = &em;
	sl_window_hook = em_check_window;
	SL_EXPECT(sl_em_check(&em) == 0);
	sl_window_hook = NULL;
	SL_EXPECT(em_chk.steps == EM_STEP_N / SL_EM_BATCH);
	SL_EXPECT(em_chk.too_long == 0);
	SL_EXPECT(shim_cond_resched_calls - resched >= em_chk.steps);
	em_test_done(&em);
}

/* The memory a caller's map takes is charged to it. */
static void test_em_account(void)
{
	struct sl_extent_map em;
	struct sl_extent_info info = { .len = 5 };
	u64 i, bad = 0;

	shim_gfp_required = __GFP_ACCOUNT;
	shim_gfp_missing = 0;
	if (!SL_EXPECT(sl_em_init(&em, GFP_KERNEL_ACCOUNT) == 0)) {
		shim_gfp_required = 0;
		return;
	}
	/* Enough to split leaves; merging adds and splitting punches. */
	for (i = 0; i < 400; i++) {
		info.start = 10 * i;
		info.disk_start = 10 * i;
		bad += !!sl_em_add(&em, &info, SL_EM_MERGE, GFP_KERNEL_ACCOUNT);
	}
	for (i = 0; i < 400; i += 3)
		bad += !!sl_em_drop_range(&em, 10 * i + 1, 2,
					  GFP_KERNEL_ACCOUNT);
	shim_gfp_required = 0;
	SL_EXPECT(bad == 0);
	SL_EXPECT(shim_gfp_missing == 0);
	em_test_done(&em);
}
#endif
