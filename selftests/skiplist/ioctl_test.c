// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of every /dev/skiplist ioctl: what each returns on
 * success, iteration both ways, insert_hole alignment, bounds and wrap,
 * stats, clear and check, and that two descriptors are two indexes.
 */
#include "kselftest_harness.h"
#include "sl_ioctl.h"

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = sl_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SL_MISSING);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(dev, insert_lookup_delete)
{
	struct sl_ioc_extent e = { 0 };

	ASSERT_EQ(0, sl_insert(self->fd, 100, 10, 7));
	ASSERT_EQ(0, sl_lookup(self->fd, 105, &e));
	EXPECT_EQ(100, e.key);
	EXPECT_EQ(10, e.size);
	EXPECT_EQ(7, e.value);
	EXPECT_EQ(0, sl_lookup(self->fd, 109, &e));
	EXPECT_EQ(-ENOENT, sl_lookup(self->fd, 110, &e));
	EXPECT_EQ(-ENOENT, sl_lookup(self->fd, 99, &e));
	EXPECT_EQ(-EEXIST, sl_insert(self->fd, 109, 5, 0));
	EXPECT_EQ(-EEXIST, sl_insert(self->fd, 95, 6, 0));
	EXPECT_EQ(0, sl_insert(self->fd, 110, 1, 0));
	EXPECT_EQ(-ENOENT, sl_delete(self->fd, 105));
	EXPECT_EQ(0, sl_delete(self->fd, 100));
	EXPECT_EQ(-ENOENT, sl_delete(self->fd, 100));
	EXPECT_EQ(-ENOENT, sl_lookup(self->fd, 105, &e));
	/* The very last unit of the key space. */
	EXPECT_EQ(0, sl_insert(self->fd, ~0ULL, 1, 1));
	EXPECT_EQ(0, sl_lookup(self->fd, ~0ULL, &e));
	EXPECT_EQ(~0ULL, e.key);
	EXPECT_EQ(0, sl_check(self->fd));
}

TEST_F(dev, first_overlap)
{
	struct sl_ioc_extent e = { 0 };
	int i;

	for (i = 1; i <= 100; i++)
		ASSERT_EQ(0, sl_insert(self->fd, i * 100, 50, i));
	EXPECT_EQ(-ENOENT, sl_overlap(self->fd, 0, 100, &e));
	EXPECT_EQ(0, sl_overlap(self->fd, 0, 101, &e));
	EXPECT_EQ(100, e.key);
	EXPECT_EQ(0, sl_overlap(self->fd, 149, 150, &e));
	EXPECT_EQ(100, e.key);
	EXPECT_EQ(-ENOENT, sl_overlap(self->fd, 150, 200, &e));
	EXPECT_EQ(0, sl_overlap(self->fd, 150, 5000, &e));
	EXPECT_EQ(200, e.key);
	EXPECT_EQ(-ENOENT, sl_overlap(self->fd, 10050, ~0ULL, &e));
}

TEST_F_TIMEOUT(dev, iterate_both_ways, 300)
{
	struct sl_ioc_extent recs[SL_IOC_ITERATE_MAX];
	int i, n;

	/* More than one call's worth, inserted out of order. */
	for (i = 0; i < 5000; i++)
		ASSERT_EQ(0, sl_insert(self->fd, ((i * 7919) % 5000) * 16, 8, i));
	n = sl_iterate(self->fd, 0, false, recs, SL_IOC_ITERATE_MAX);
	ASSERT_EQ(SL_IOC_ITERATE_MAX, n);
	for (i = 0; i < n; i++)
		ASSERT_EQ((__u64)i * 16, recs[i].key);
	/* Continue past the last record. */
	n = sl_iterate(self->fd, recs[n - 1].key + 1, false, recs,
		       SL_IOC_ITERATE_MAX);
	ASSERT_EQ(5000 - SL_IOC_ITERATE_MAX, n);
	EXPECT_EQ((__u64)SL_IOC_ITERATE_MAX * 16, recs[0].key);
	EXPECT_EQ(4999 * 16, recs[n - 1].key);
	/* Backward from the middle: keys below 1000, descending. */
	n = sl_iterate(self->fd, 1000, true, recs, 10);
	ASSERT_EQ(10, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ((__u64)(62 - i) * 16, recs[i].key);
	/* Backward from the end, and from the start (nothing). */
	n = sl_iterate(self->fd, ~0ULL, true, recs, 1);
	ASSERT_EQ(1, n);
	EXPECT_EQ(4999 * 16, recs[0].key);
	EXPECT_EQ(0, sl_iterate(self->fd, 0, true, recs, 10));
	/* A zero-sized buffer returns nothing, successfully. */
	EXPECT_EQ(0, sl_iterate(self->fd, 0, false, recs, 0));
}

/* An extent at the last key, which only SL_ITER_FROM_END reaches backward. */
TEST_F(dev, iterate_from_the_end)
{
	struct sl_ioc_extent recs[4];
	struct sl_ioc_iterate it = {
		.records = (unsigned long)recs, .max = 4,
		.flags = SL_ITER_BACKWARD | SL_ITER_FROM_END,
	};

	/* Nothing yet: nothing from the end either. */
	ASSERT_EQ(0, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	EXPECT_EQ(0, it.count);
	ASSERT_EQ(0, sl_insert(self->fd, 0, 1, 1));
	ASSERT_EQ(0, sl_insert(self->fd, ~0ULL - 10, 5, 2));
	ASSERT_EQ(0, sl_insert(self->fd, ~0ULL, 1, 3));
	/* From below the last key, the extent there is out of reach... */
	ASSERT_EQ(2, sl_iterate(self->fd, ~0ULL, true, recs, 4));
	EXPECT_EQ(~0ULL - 10, recs[0].key);
	/* ...but from the end it comes first. */
	ASSERT_EQ(0, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	ASSERT_EQ(3, it.count);
	EXPECT_EQ(~0ULL, recs[0].key);
	EXPECT_EQ(1, recs[0].size);
	EXPECT_EQ(3, recs[0].value);
	EXPECT_EQ(~0ULL - 10, recs[1].key);
	EXPECT_EQ(0, recs[2].key);
	/* One at a time, continuing from the last key returned. */
	it.max = 1;
	ASSERT_EQ(0, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	ASSERT_EQ(1, it.count);
	EXPECT_EQ(~0ULL, recs[0].key);
	ASSERT_EQ(1, sl_iterate(self->fd, recs[0].key, true, recs, 1));
	EXPECT_EQ(~0ULL - 10, recs[0].key);
	/* Forward, the last key is reachable as ever. */
	ASSERT_EQ(1, sl_iterate(self->fd, ~0ULL, false, recs, 4));
	EXPECT_EQ(~0ULL, recs[0].key);
	/* Without an extent at the last key, from the end is from below it. */
	ASSERT_EQ(0, sl_delete(self->fd, ~0ULL));
	it.max = 4;
	ASSERT_EQ(0, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	ASSERT_EQ(2, it.count);
	EXPECT_EQ(~0ULL - 10, recs[0].key);
	EXPECT_EQ(0, recs[1].key);
}

TEST_F(dev, insert_hole)
{
	__u64 key;
	int i;

	/* First fit fills [0, 100), then nothing fits. */
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, sl_hole(self->fd, 10, 1, 0, 100, 0, &key));
		EXPECT_EQ((__u64)i * 10, key);
	}
	EXPECT_EQ(-ENOSPC, sl_hole(self->fd, 1, 1, 0, 100, 0, &key));
	/* Alignment skips the unaligned part of a gap. */
	ASSERT_EQ(0, sl_hole(self->fd, 4, 64, 0, 1000, 0, &key));
	EXPECT_EQ(128, key);
	/* The hint is honoured, and wraps to min when nothing fits above. */
	ASSERT_EQ(0, sl_hole(self->fd, 8, 8, 0, 1000, 512, &key));
	EXPECT_EQ(512, key);
	ASSERT_EQ(0, sl_hole(self->fd, 100, 1, 200, 1000, 950, &key));
	EXPECT_EQ(200, key);
	/* max 0: no limit, up to the last unit. */
	ASSERT_EQ(0, sl_hole(self->fd, 2, 1, ~0ULL - 1, 0, 0, &key));
	EXPECT_EQ(~0ULL - 1, key);
	EXPECT_EQ(-ENOSPC, sl_hole(self->fd, 1, 1, ~0ULL - 1, 0, 0, &key));
	EXPECT_EQ(0, sl_check(self->fd));
}

TEST_F_TIMEOUT(dev, stats_clear_check, 300)
{
	struct sl_ioc_stats st;
	int i;

	ASSERT_EQ(0, sl_stats(self->fd, &st));
	EXPECT_EQ(0, st.items);
	EXPECT_EQ(1, st.leaves);
	for (i = 0; i < 10000; i++)
		ASSERT_EQ(0, sl_insert(self->fd, i * 2, 1, i));
	ASSERT_EQ(0, sl_stats(self->fd, &st));
	EXPECT_EQ(10000, st.items);
	EXPECT_LT(1, st.leaves);
	EXPECT_LT(0, st.bytes);
	EXPECT_LT(0, st.height[0]);
	EXPECT_EQ(0, sl_check(self->fd));
	ASSERT_EQ(0, sl_clear(self->fd));
	ASSERT_EQ(0, sl_stats(self->fd, &st));
	EXPECT_EQ(0, st.items);
	EXPECT_EQ(1, st.leaves);
	EXPECT_EQ(-ENOENT, sl_lookup(self->fd, 2, NULL));
	EXPECT_EQ(0, sl_insert(self->fd, 2, 1, 0));
}

TEST(descriptors_are_independent)
{
	int a = sl_open(), b;

	if (a < 0 && errno == ENOENT)
		SKIP(return, SL_DEVICE " missing");
	ASSERT_LE(0, a);
	b = sl_open();
	ASSERT_LE(0, b);
	ASSERT_EQ(0, sl_insert(a, 10, 1, 1));
	EXPECT_EQ(-ENOENT, sl_lookup(b, 10, NULL));
	EXPECT_EQ(0, sl_insert(b, 10, 1, 2));
	close(a);
	/* Closing one leaves the other intact. */
	EXPECT_EQ(0, sl_lookup(b, 10, NULL));
	close(b);
}

TEST_HARNESS_MAIN
