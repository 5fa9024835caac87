// SPDX-License-Identifier: GPL-2.0
/*
 * Memory a user makes /dev/skiplist allocate is charged to the user's
 * memory cgroup (GFP_KERNEL_ACCOUNT): the extents, and the leaves that
 * hold them.  The test moves itself into a new memory cgroup (cgroup v2;
 * skipped where there is none) and reads memory.current around the
 * inserts: uncharged, the extents would add nothing there.
 */
#include <stdio.h>
#include "kselftest_harness.h"
#include "sl_ioctl.h"

#define EXTENTS		20000
/* struct sl_dev_extent: a slot, a value and an rcu_head. */
#define EXTENT_BYTES	40

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
	self->fd = sl_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SL_MISSING);
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
	__u64 key;
	int i;

	if (SKIPPED_IN_SETUP())
		return;
	for (i = 0; i < EXTENTS / 2; i++)
		ASSERT_EQ(0, sl_insert(self->fd, 4 * i, 1, i));
	/* Holes in an empty part of the keys: each fits first time. */
	for (i = 0; i < EXTENTS / 2; i++)
		ASSERT_EQ(0, sl_hole(self->fd, 1, 1, 1ULL << 40, 0, 0, &key));
	after = dt_memcg_current(self->cg);
	TH_LOG("%d extents: %lld bytes charged to the caller's cgroup",
	       EXTENTS, after - before);
	EXPECT_LE((long long)EXTENTS * EXTENT_BYTES, after - before);
}

TEST_HARNESS_MAIN
