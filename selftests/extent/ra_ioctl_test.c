// SPDX-License-Identifier: GPL-2.0
/*
 * Functional tests of the range allocator's ioctls on /dev/sl_extent:
 * creation, first-fit allocation with alignment, window and hint, the
 * per-CPU mode, reservations, frees, the statistics and the shadow
 * bitmap's count, and that two descriptors are two allocators.
 */
#include "kselftest_harness.h"
#include "sx_ioctl.h"

FIXTURE(ra) {
	int fd;
};

FIXTURE_SETUP(ra)
{
	self->fd = sx_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SX_MISSING);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ra)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(ra, init_once)
{
	struct sl_ra_ioc_stats st;

	/* Nothing but INIT works before INIT. */
	EXPECT_EQ(-ENXIO, sx_ra_alloc(self->fd, 1, 1, 0, 0, 0, NULL));
	EXPECT_EQ(-ENXIO, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(-ENXIO, sx_ra_free(self->fd, 0, 1));
	EXPECT_EQ(-ENXIO, sx_ra_reserve(self->fd, 0, 1));
	EXPECT_EQ(-ENXIO, sx_ra_shadow(self->fd));
	ASSERT_EQ(0, sx_ra_init(self->fd, 1000, 2000, 0));
	EXPECT_EQ(-EBUSY, sx_ra_init(self->fd, 0, 10, 0));
	EXPECT_EQ(-EBUSY, sx_ra_init(self->fd, 1000, 2000, 0));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(1000, st.size);
	EXPECT_EQ(1000, st.free);
	EXPECT_EQ(0, st.ranges);
	EXPECT_EQ(1000, st.largest_free);
	EXPECT_EQ(0, st.fragmentation);
	/* Without the shadow bitmap there is no count to report. */
	EXPECT_EQ(-ENODATA, sx_ra_shadow(self->fd));
}

TEST_F(ra, first_fit_align_window_hint)
{
	__u64 start;
	int i;

	ASSERT_EQ(0, sx_ra_init(self->fd, 100, 1100, SL_RA_INIT_SHADOW));
	/* First fit from the space's start, whatever min says below it. */
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, sx_ra_alloc(self->fd, 10, 1, 0, 0, 0, &start));
		EXPECT_EQ(100 + i * 10, start);
	}
	/* Alignment is relative to unit 0, not to the space. */
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 4, 64, 0, 0, 0, &start));
	EXPECT_EQ(256, start);
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 1, 1, 0, 0, 0, &start));
	EXPECT_EQ(200, start);
	/* A window: the range must end at or before max. */
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 50, 1, 500, 560, 0, &start));
	EXPECT_EQ(500, start);
	EXPECT_EQ(-ENOSPC, sx_ra_alloc(self->fd, 11, 1, 500, 560, 0, &start));
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 10, 1, 500, 560, 0, &start));
	EXPECT_EQ(550, start);
	/* The hint is honoured, and wraps to min when nothing fits above. */
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 8, 8, 0, 0, 800, &start));
	EXPECT_EQ(800, start);
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 100, 1, 300, 1000, 950, &start));
	EXPECT_EQ(300, start);
	/* max beyond the space means the space's end. */
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 92, 1, 1008, ~0ULL, 0, &start));
	EXPECT_EQ(1008, start);
	EXPECT_EQ(-ENOSPC, sx_ra_alloc(self->fd, 1, 1, 1008, 0, 0, &start));
	/* Without the freed range, [400, 500) would be the first fit. */
	ASSERT_EQ(0, sx_ra_free(self->fd, 300, 100));
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 100, 4, 250, 0, 0, &start));
	EXPECT_EQ(260, start);
	EXPECT_EQ(0, sx_ra_shadow(self->fd));
}

TEST_F(ra, fill_and_drain)
{
	struct sl_ra_ioc_stats st;
	__u64 start;
	int i;

	ASSERT_EQ(0, sx_ra_init(self->fd, 0, 4096, SL_RA_INIT_SHADOW));
	for (i = 0; i < 512; i++) {
		ASSERT_EQ(0, sx_ra_alloc(self->fd, 8, 8, 0, 0, 0, &start));
		ASSERT_EQ((__u64)i * 8, start);
	}
	EXPECT_EQ(-ENOSPC, sx_ra_alloc(self->fd, 1, 1, 0, 0, 0, &start));
	EXPECT_EQ(-ENOSPC, sx_ra_alloc_cpu(self->fd, 1, 1, &start));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(4096, st.size);
	EXPECT_EQ(0, st.free);
	EXPECT_EQ(512, st.ranges);
	EXPECT_EQ(0, st.largest_free);
	EXPECT_EQ(0, st.fragmentation);
	/* Every other one back: 256 free runs of 8. */
	for (i = 0; i < 512; i += 2)
		ASSERT_EQ(0, sx_ra_free(self->fd, i * 8, 8));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(2048, st.free);
	EXPECT_EQ(256, st.ranges);
	EXPECT_EQ(8, st.largest_free);
	EXPECT_EQ(1000 - 8 / 2, st.fragmentation);
	EXPECT_EQ(-ENOSPC, sx_ra_alloc(self->fd, 9, 1, 0, 0, 0, &start));
	for (i = 1; i < 512; i += 2)
		ASSERT_EQ(0, sx_ra_free(self->fd, i * 8, 8));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(4096, st.free);
	EXPECT_EQ(0, st.ranges);
	EXPECT_EQ(4096, st.largest_free);
	EXPECT_EQ(0, st.fragmentation);
	EXPECT_EQ(0, sx_ra_shadow(self->fd));
}

TEST_F(ra, reserve_and_free)
{
	struct sl_ra_ioc_stats st;
	__u64 start;

	ASSERT_EQ(0, sx_ra_init(self->fd, 0, 1000, SL_RA_INIT_SHADOW));
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 100, 1, 0, 0, 0, &start));
	EXPECT_EQ(0, start);
	ASSERT_EQ(0, sx_ra_reserve(self->fd, 500, 100));
	EXPECT_EQ(-EEXIST, sx_ra_reserve(self->fd, 500, 100));
	EXPECT_EQ(-EEXIST, sx_ra_reserve(self->fd, 450, 51));
	EXPECT_EQ(-EEXIST, sx_ra_reserve(self->fd, 599, 10));
	EXPECT_EQ(-EEXIST, sx_ra_reserve(self->fd, 99, 1));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(800, st.free);
	EXPECT_EQ(2, st.ranges);
	EXPECT_EQ(400, st.largest_free);
	/* Two free runs of 400: half the free space is outside the largest. */
	EXPECT_EQ(500, st.fragmentation);
	/* Allocation goes around the reservation. */
	EXPECT_EQ(-ENOSPC, sx_ra_alloc(self->fd, 401, 1, 0, 0, 0, &start));
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 400, 1, 0, 0, 0, &start));
	EXPECT_EQ(100, start);
	ASSERT_EQ(0, sx_ra_free(self->fd, start, 400));
	/* A reservation frees like an allocation. */
	ASSERT_EQ(0, sx_ra_free(self->fd, 500, 100));
	ASSERT_EQ(0, sx_ra_reserve(self->fd, 999, 1));
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 899, 1, 0, 0, 0, &start));
	EXPECT_EQ(100, start);
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(0, st.free);
	EXPECT_EQ(3, st.ranges);
	EXPECT_EQ(0, sx_ra_shadow(self->fd));
}

TEST_F(ra, percpu_mode)
{
	struct sl_ra_ioc_stats st;
	__u64 start[64];
	int i, j;

	ASSERT_EQ(0, sx_ra_init(self->fd, 0, 1 << 16, SL_RA_INIT_SHADOW));
	for (i = 0; i < 64; i++) {
		ASSERT_EQ(0, sx_ra_alloc_cpu(self->fd, 16, 16, &start[i]));
		EXPECT_EQ(0, start[i] % 16);
		EXPECT_GE((1 << 16) - 16, start[i]);
		for (j = 0; j < i; j++)
			EXPECT_NE(start[j], start[i]);
	}
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ((1 << 16) - 64 * 16, st.free);
	EXPECT_EQ(64, st.ranges);
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, sx_ra_free(self->fd, start[i], 16));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(1 << 16, st.free);
	EXPECT_EQ(0, sx_ra_shadow(self->fd));
}

TEST_F(ra, whole_space)
{
	struct sl_ra_ioc_stats st;
	__u64 start;

	/* end 0: the space reaches the last unit, 2^64 - 1. */
	ASSERT_EQ(0, sx_ra_init(self->fd, 0, 0, 0));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(~0ULL, st.size);
	EXPECT_EQ(~0ULL, st.free);
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 16, 1, ~0ULL - 15, 0, 0, &start));
	EXPECT_EQ(~0ULL - 15, start);
	EXPECT_EQ(-ENOSPC, sx_ra_alloc(self->fd, 1, 1, ~0ULL - 15, 0, 0,
				       &start));
	ASSERT_EQ(0, sx_ra_reserve(self->fd, 1ULL << 63, 1ULL << 20));
	ASSERT_EQ(0, sx_ra_alloc_cpu(self->fd, 1ULL << 40, 1ULL << 40, &start));
	EXPECT_EQ(0, start & ((1ULL << 40) - 1));
	ASSERT_EQ(0, sx_ra_free(self->fd, start, 1ULL << 40));
	ASSERT_EQ(0, sx_ra_free(self->fd, ~0ULL - 15, 16));
	ASSERT_EQ(0, sx_ra_free(self->fd, 1ULL << 63, 1ULL << 20));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(0, st.ranges);
}

TEST(descriptors_are_independent)
{
	int a = sx_open(), b;
	__u64 start;

	if (a < 0 && errno == ENOENT)
		SKIP(return, SX_MISSING);
	ASSERT_LE(0, a);
	b = sx_open();
	ASSERT_LE(0, b);
	ASSERT_EQ(0, sx_ra_init(a, 0, 100, 0));
	EXPECT_EQ(-ENXIO, sx_ra_alloc(b, 1, 1, 0, 0, 0, &start));
	ASSERT_EQ(0, sx_ra_init(b, 0, 100, 0));
	ASSERT_EQ(0, sx_ra_alloc(a, 100, 1, 0, 0, 0, &start));
	ASSERT_EQ(0, sx_ra_alloc(b, 100, 1, 0, 0, 0, &start));
	close(a);
	/* Closing one leaves the other intact. */
	EXPECT_EQ(-ENOSPC, sx_ra_alloc(b, 1, 1, 0, 0, 0, &start));
	EXPECT_EQ(0, sx_ra_free(b, 0, 100));
	close(b);
}

TEST_HARNESS_MAIN
