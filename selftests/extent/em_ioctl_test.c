// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of the extent map's ioctls on /dev/sl_extent: add with
 * and without merging, lookup, first overlap, iteration, removal, punches
 * that trim, split and empty, the count and the check, the top of the
 * offset space, and that two descriptors are two maps.
 */
#include "kselftest_harness.h"
#include "sx_ioctl.h"

FIXTURE(em) {
	int fd;
};

FIXTURE_SETUP(em)
{
	self->fd = sx_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SX_MISSING);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(em)
{
	if (self->fd >= 0) {
		EXPECT_EQ(0, sx_em_check(self->fd));
		close(self->fd);
	}
}

/* Asserts that @e is [start, +len) -> disk with flags. */
#define EXPECT_EXTENT(e, s, l, d, f) do {		\
	EXPECT_EQ((__u64)(s), (e).start);		\
	EXPECT_EQ((__u64)(l), (e).len);			\
	EXPECT_EQ((__u64)(d), (e).disk_start);		\
	EXPECT_EQ((__u32)(f), (e).flags);		\
	EXPECT_EQ(0, (e).pad);				\
} while (0)

TEST_F(em, add_lookup_remove)
{
	struct sl_em_ioc_extent e;

	EXPECT_EQ(0, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_add(self->fd, 100, 10, 5000, 7, false));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 100, &e));
	EXPECT_EXTENT(e, 100, 10, 5000, 7);
	ASSERT_EQ(0, sx_em_lookup(self->fd, 109, &e));
	EXPECT_EXTENT(e, 100, 10, 5000, 7);
	EXPECT_EQ(-ENOENT, sx_em_lookup(self->fd, 110, &e));
	EXPECT_EQ(-ENOENT, sx_em_lookup(self->fd, 99, &e));
	/* Overlaps, at either end or all around. */
	EXPECT_EQ(-EEXIST, sx_em_add(self->fd, 109, 5, 0, 7, false));
	EXPECT_EQ(-EEXIST, sx_em_add(self->fd, 95, 6, 0, 7, true));
	EXPECT_EQ(-EEXIST, sx_em_add(self->fd, 50, 100, 0, 7, false));
	EXPECT_EQ(1, sx_em_count(self->fd));
	/* Adjacent is fine. */
	ASSERT_EQ(0, sx_em_add(self->fd, 110, 1, 9000, 7, false));
	ASSERT_EQ(0, sx_em_add(self->fd, 99, 1, 9001, 7, false));
	EXPECT_EQ(3, sx_em_count(self->fd));
	/* Removal wants the exact start. */
	EXPECT_EQ(-ENOENT, sx_em_remove(self->fd, 105));
	EXPECT_EQ(0, sx_em_remove(self->fd, 100));
	EXPECT_EQ(-ENOENT, sx_em_remove(self->fd, 100));
	EXPECT_EQ(-ENOENT, sx_em_lookup(self->fd, 105, &e));
	EXPECT_EQ(2, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 110, &e));
	EXPECT_EXTENT(e, 110, 1, 9000, 7);
}

TEST_F(em, merge)
{
	struct sl_em_ioc_extent e;

	/* Contiguous in the file and on disk, same flags: one extent. */
	ASSERT_EQ(0, sx_em_add(self->fd, 0, 10, 1000, 1, true));
	ASSERT_EQ(0, sx_em_add(self->fd, 10, 10, 1010, 1, true));
	EXPECT_EQ(1, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 15, &e));
	EXPECT_EXTENT(e, 0, 20, 1000, 1);
	/* Filling a hole merges both sides at once. */
	ASSERT_EQ(0, sx_em_add(self->fd, 30, 10, 1030, 1, true));
	EXPECT_EQ(2, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_add(self->fd, 20, 10, 1020, 1, true));
	EXPECT_EQ(1, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 39, &e));
	EXPECT_EXTENT(e, 0, 40, 1000, 1);
	/* Not contiguous on disk: no merge. */
	ASSERT_EQ(0, sx_em_add(self->fd, 40, 10, 5000, 1, true));
	EXPECT_EQ(2, sx_em_count(self->fd));
	/* Other flags: no merge. */
	ASSERT_EQ(0, sx_em_add(self->fd, 50, 10, 5010, 2, true));
	EXPECT_EQ(3, sx_em_count(self->fd));
	/* Contiguous but without the merge flag: no merge. */
	ASSERT_EQ(0, sx_em_add(self->fd, 60, 10, 5020, 2, false));
	EXPECT_EQ(4, sx_em_count(self->fd));
	/* Merging into the one before, which then takes the next along. */
	ASSERT_EQ(0, sx_em_remove(self->fd, 50));
	ASSERT_EQ(0, sx_em_add(self->fd, 50, 10, 5010, 2, true));
	EXPECT_EQ(3, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 50, &e));
	EXPECT_EXTENT(e, 50, 20, 5010, 2);
	ASSERT_EQ(0, sx_em_lookup(self->fd, 40, &e));
	EXPECT_EXTENT(e, 40, 10, 5000, 1);
	/* A merge that fails leaves the map as it was. */
	EXPECT_EQ(-EEXIST, sx_em_add(self->fd, 69, 2, 5029, 2, true));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 69, &e));
	EXPECT_EXTENT(e, 50, 20, 5010, 2);
	EXPECT_EQ(3, sx_em_count(self->fd));
}

TEST_F(em, first_overlap)
{
	struct sl_em_ioc_extent e;
	int i;

	for (i = 1; i <= 100; i++)
		ASSERT_EQ(0, sx_em_add(self->fd, i * 100, 50, i * 1000, i,
				       false));
	EXPECT_EQ(-ENOENT, sx_em_overlap(self->fd, 0, 100, &e));
	ASSERT_EQ(0, sx_em_overlap(self->fd, 0, 101, &e));
	EXPECT_EXTENT(e, 100, 50, 1000, 1);
	ASSERT_EQ(0, sx_em_overlap(self->fd, 149, 1, &e));
	EXPECT_EXTENT(e, 100, 50, 1000, 1);
	EXPECT_EQ(-ENOENT, sx_em_overlap(self->fd, 150, 50, &e));
	/* The lowest of several. */
	ASSERT_EQ(0, sx_em_overlap(self->fd, 150, 5000, &e));
	EXPECT_EXTENT(e, 200, 50, 2000, 2);
	ASSERT_EQ(0, sx_em_overlap(self->fd, 5020, 10000, &e));
	EXPECT_EXTENT(e, 5000, 50, 50000, 50);
	EXPECT_EQ(-ENOENT, sx_em_overlap(self->fd, 10050, ~0ULL - 10050, &e));
	/* Up to the very last offset. */
	ASSERT_EQ(0, sx_em_add(self->fd, ~0ULL, 1, 7, 0, false));
	ASSERT_EQ(0, sx_em_overlap(self->fd, 10050, ~0ULL - 10049, &e));
	EXPECT_EXTENT(e, ~0ULL, 1, 7, 0);
}

TEST_F(em, next_walks_in_order)
{
	struct sl_em_ioc_extent e;
	__u64 pos = 0;
	int i, n = 0;

	/* Inserted out of order, in merge mode, though none continues another. */
	for (i = 0; i < 3000; i++) {
		__u64 k = (i * 7919) % 3000;

		ASSERT_EQ(0, sx_em_add(self->fd, k * 16, 8, k * 64, k, true));
	}
	EXPECT_EQ(3000, sx_em_count(self->fd));
	while (!sx_em_next(self->fd, pos, &e)) {
		EXPECT_EXTENT(e, n * 16, 8, n * 64, n);
		n++;
		pos = e.start + e.len;
	}
	EXPECT_EQ(3000, n);
	/* From inside an extent, that extent; from a gap, the next one. */
	ASSERT_EQ(0, sx_em_next(self->fd, 16 * 5 + 3, &e));
	EXPECT_EQ(16 * 5, e.start);
	ASSERT_EQ(0, sx_em_next(self->fd, 16 * 5 + 8, &e));
	EXPECT_EQ(16 * 6, e.start);
	EXPECT_EQ(-ENOENT, sx_em_next(self->fd, 16 * 2999 + 8, &e));
	/* The walk ends at an extent reaching the last offset. */
	ASSERT_EQ(0, sx_em_add(self->fd, ~0ULL - 9, 10, 0, 0, false));
	ASSERT_EQ(0, sx_em_next(self->fd, 16 * 2999 + 8, &e));
	EXPECT_EXTENT(e, ~0ULL - 9, 10, 0, 0);
	EXPECT_EQ(0, e.start + e.len);
	ASSERT_EQ(0, sx_em_next(self->fd, ~0ULL, &e));
	EXPECT_EQ(~0ULL - 9, e.start);
}

TEST_F(em, drop_trims_splits_empties)
{
	struct sl_em_ioc_extent e;

	/* A punch inside one extent splits it; the tail keeps mapping on. */
	ASSERT_EQ(0, sx_em_add(self->fd, 0, 100, 1000, 3, false));
	ASSERT_EQ(0, sx_em_drop(self->fd, 40, 20));
	EXPECT_EQ(2, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 39, &e));
	EXPECT_EXTENT(e, 0, 40, 1000, 3);
	EXPECT_EQ(-ENOENT, sx_em_lookup(self->fd, 40, &e));
	EXPECT_EQ(-ENOENT, sx_em_lookup(self->fd, 59, &e));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 60, &e));
	EXPECT_EXTENT(e, 60, 40, 1060, 3);
	/* Refilling with the same disk range merges it back whole. */
	ASSERT_EQ(0, sx_em_add(self->fd, 40, 20, 1040, 3, true));
	EXPECT_EQ(1, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 50, &e));
	EXPECT_EXTENT(e, 0, 100, 1000, 3);

	/* Trims at both ends, and whole extents in between go. */
	ASSERT_EQ(0, sx_em_add(self->fd, 100, 10, 2000, 0, false));
	ASSERT_EQ(0, sx_em_add(self->fd, 120, 10, 3000, 0, false));
	ASSERT_EQ(0, sx_em_add(self->fd, 140, 60, 4000, 0, false));
	EXPECT_EQ(4, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_drop(self->fd, 90, 60));
	EXPECT_EQ(2, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 0, &e));
	EXPECT_EXTENT(e, 0, 90, 1000, 3);
	EXPECT_EQ(-ENOENT, sx_em_overlap(self->fd, 90, 60, &e));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 150, &e));
	EXPECT_EXTENT(e, 150, 50, 4010, 0);
	/* Nothing mapped there: still 0. */
	EXPECT_EQ(0, sx_em_drop(self->fd, 90, 60));
	EXPECT_EQ(0, sx_em_drop(self->fd, 1000000, 1));
	/* Exactly one extent. */
	EXPECT_EQ(0, sx_em_drop(self->fd, 150, 50));
	EXPECT_EQ(1, sx_em_count(self->fd));
	/* Everything but the last offset, then the last offset alone. */
	ASSERT_EQ(0, sx_em_add(self->fd, ~0ULL - 4, 5, 0, 0, false));
	EXPECT_EQ(0, sx_em_drop(self->fd, 0, ~0ULL));
	EXPECT_EQ(1, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_lookup(self->fd, ~0ULL, &e));
	EXPECT_EXTENT(e, ~0ULL, 1, 4, 0);
	EXPECT_EQ(0, sx_em_drop(self->fd, ~0ULL, 1));
	EXPECT_EQ(0, sx_em_count(self->fd));
	/* Everything but offset 0. */
	ASSERT_EQ(0, sx_em_add(self->fd, 0, 2, 0, 0, false));
	ASSERT_EQ(0, sx_em_add(self->fd, ~0ULL - 1, 2, 0, 0, false));
	EXPECT_EQ(0, sx_em_drop(self->fd, 1, ~0ULL));
	EXPECT_EQ(1, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 0, &e));
	EXPECT_EXTENT(e, 0, 1, 0, 0);
}

TEST_F(em, many_and_check)
{
	struct sl_em_ioc_extent e;
	int i;

	for (i = 0; i < 20000; i++)
		ASSERT_EQ(0, sx_em_add(self->fd, i * 4, 2, i * 2, 0, false));
	EXPECT_EQ(20000, sx_em_count(self->fd));
	EXPECT_EQ(0, sx_em_check(self->fd));
	/* One punch over all of them but the ends. */
	ASSERT_EQ(0, sx_em_drop(self->fd, 1, 4 * 19999));
	EXPECT_EQ(2, sx_em_count(self->fd));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 0, &e));
	EXPECT_EXTENT(e, 0, 1, 0, 0);
	ASSERT_EQ(0, sx_em_lookup(self->fd, 4 * 19999 + 1, &e));
	EXPECT_EXTENT(e, 4 * 19999 + 1, 1, 2 * 19999 + 1, 0);
	EXPECT_EQ(0, sx_em_check(self->fd));
}

TEST(descriptors_are_independent)
{
	int a = sx_open(), b;

	if (a < 0 && errno == ENOENT)
		SKIP(return, SX_MISSING);
	ASSERT_LE(0, a);
	b = sx_open();
	ASSERT_LE(0, b);
	ASSERT_EQ(0, sx_em_add(a, 10, 1, 1, 0, false));
	EXPECT_EQ(-ENOENT, sx_em_lookup(b, 10, NULL));
	EXPECT_EQ(0, sx_em_add(b, 10, 1, 2, 0, false));
	close(a);
	/* Closing one leaves the other intact. */
	EXPECT_EQ(0, sx_em_lookup(b, 10, NULL));
	EXPECT_EQ(1, sx_em_count(b));
	close(b);
}

TEST_HARNESS_MAIN
