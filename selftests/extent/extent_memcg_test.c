// SPDX-License-Identifier: GPL-2.0
/*
 * Memory a user makes /dev/sl_extent allocate is charged to the user's
 * memory cgroup (GFP_KERNEL_ACCOUNT): extents of the map, ranges of the
 * allocator, and the leaves of their indexes.  The test moves itself into
 * a new memory cgroup (cgroup v2; skipped where there is none) and reads
 * memory.current around the calls: uncharged, they would add nothing.
 */
#include <stdio.h>
#include "kselftest_harness.h"
#include "sx_ioctl.h"

#define N		20000
/* struct sl_extent and struct sl_range are larger: a lower bound. */
#define OBJECT_BYTES	32

FIXTURE(dev) {
	int fd;
	char cg[512];
};

FIXTURE_SETUP(dev)
{
	int ret = dt_memcg_enter(self->cg, sizeof(self->cg));

	self->fd = -1;
	if (ret)
		SKIP(return, "no memory cgroup to move into: %s",
		     strerror(-ret));
	self->fd = sx_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SX_MISSING);
	ASSERT_LE(0, self->fd);
}

/*
 * A skip in FIXTURE_SETUP does not stop kselftest_harness.h (6.1) from
 * running the test: each test returns at once, still skipped, when
 * setup found no cgroup or no device.
 */
#define SKIPPED_IN_SETUP()	(self->fd < 0)

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->cg[0])
		dt_memcg_leave(self->cg);
}

TEST_F_TIMEOUT(dev, extents_charged_to_the_caller, 300)
{
	long long before = dt_memcg_current(self->cg), after;
	int i;

	if (SKIPPED_IN_SETUP())
		return;
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, sx_em_add(self->fd, 2 * i, 1, 2 * i, 0, false));
	after = dt_memcg_current(self->cg);
	TH_LOG("%d extents: %lld bytes charged", N, after - before);
	EXPECT_LE((long long)N * OBJECT_BYTES, after - before);
}

TEST_F_TIMEOUT(dev, ranges_charged_to_the_caller, 300)
{
	long long before, after;
	__u64 start;
	int i;

	if (SKIPPED_IN_SETUP())
		return;
	ASSERT_EQ(0, sx_ra_init(self->fd, 0, 0, 0));
	before = dt_memcg_current(self->cg);
	for (i = 0; i < N; i++)
		ASSERT_EQ(0, sx_ra_alloc(self->fd, 1, 1, 0, 0, 0, &start));
	after = dt_memcg_current(self->cg);
	TH_LOG("%d ranges: %lld bytes charged", N, after - before);
	EXPECT_LE((long long)N * OBJECT_BYTES, after - before);
}
/*
 * The shadow bitmap, 32 MiB for SL_RA_SHADOW_MAX units, is allocated by
 * the range allocator with the gfp that SL_RA_IOC_INIT passes it.
 */
TEST_F_TIMEOUT(dev, shadow_bitmap_charged_to_the_caller, 120)
{
	long long before = dt_memcg_current(self->cg), after;

	if (SKIPPED_IN_SETUP())
		return;
	ASSERT_EQ(0, sx_ra_init(self->fd, 0, SL_RA_SHADOW_MAX,
				SL_RA_INIT_SHADOW));
	after = dt_memcg_current(self->cg);
	TH_LOG("a shadow bitmap of %llu bytes: %lld bytes charged",
	       SL_RA_SHADOW_MAX / 8, after - before);
	EXPECT_LE((long long)SL_RA_SHADOW_MAX / 8, after - before);
}

TEST_HARNESS_MAIN
