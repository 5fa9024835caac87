// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to /dev/skiplist: every error the interface documents, each
 * asserted with its exact errno, and an index that is still consistent
 * afterwards.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"
#include "sl_ioctl.h"

/* A kernel address: never valid from userspace. */
#define KERNEL_ADDR ((void *)0xffffffff81000000UL)

FIXTURE(dev) {
	int fd;
	void *unmapped;
};

FIXTURE_SETUP(dev)
{
	self->fd = sl_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SL_MISSING);
	ASSERT_LE(0, self->fd);
	self->unmapped = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->unmapped);
	munmap(self->unmapped, 4096);
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0) {
		EXPECT_EQ(0, sl_check(self->fd));
		close(self->fd);
	}
}

TEST_F(dev, bad_pointers_efault)
{
	static const unsigned long cmds[] = {
		SL_IOC_INSERT, SL_IOC_INSERT_HOLE, SL_IOC_LOOKUP,
		SL_IOC_FIRST_OVERLAP, SL_IOC_DELETE, SL_IOC_ITERATE,
		SL_IOC_STATS,
	};
	struct sl_ioc_extent recs[4];
	struct sl_ioc_iterate it = { .max = 4 };
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		EXPECT_EQ(-EFAULT, sl_ioc(self->fd, cmds[i], NULL));
		EXPECT_EQ(-EFAULT, sl_ioc(self->fd, cmds[i], self->unmapped));
		EXPECT_EQ(-EFAULT, sl_ioc(self->fd, cmds[i], KERNEL_ADDR));
	}
	/* A good request whose output buffer is bad. */
	ASSERT_EQ(0, sl_insert(self->fd, 1, 1, 1));
	it.records = (unsigned long)self->unmapped;
	EXPECT_EQ(-EFAULT, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	it.records = (unsigned long)KERNEL_ADDR;
	EXPECT_EQ(-EFAULT, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	it.records = (unsigned long)recs;
	EXPECT_EQ(0, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	EXPECT_EQ(1, it.count);
}

/*
 * A request on a read-only page is read, but its result cannot be
 * written back: INSERT_HOLE finds that out before it inserts anything,
 * and a lookup is carried out and fails to report.
 */
TEST_F(dev, read_only_request_efault)
{
	struct sl_ioc_insert_hole hole = { .size = 4, .align = 1, .value = 9 };
	struct sl_ioc_lookup lk = { .key = 1 };
	struct sl_ioc_stats st;
	char *ro;

	ASSERT_EQ(0, sl_insert(self->fd, 1, 1, 1));
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	memcpy(ro, &hole, sizeof(hole));
	memcpy(ro + 1024, &lk, sizeof(lk));
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	EXPECT_EQ(-EFAULT, sl_ioc(self->fd, SL_IOC_INSERT_HOLE, ro));
	EXPECT_EQ(-EFAULT, sl_ioc(self->fd, SL_IOC_LOOKUP, ro + 1024));
	ASSERT_EQ(0, sl_stats(self->fd, &st));
	EXPECT_EQ(1, st.items) {
		TH_LOG("INSERT_HOLE inserted an extent nobody learns of");
	}
	munmap(ro, 4096);
}

TEST_F(dev, flags_and_reserved_einval)
{
	struct sl_ioc_insert ins = { .key = 1, .size = 1 };
	struct sl_ioc_insert_hole hole = { .size = 1, .align = 1 };
	struct sl_ioc_lookup lk = { .key = 1 };
	struct sl_ioc_overlap ov = { .start = 0, .end = 10 };
	struct sl_ioc_delete del = { .key = 1 };
	struct sl_ioc_extent recs[1];
	struct sl_ioc_iterate it = { .records = (unsigned long)recs, .max = 1 };
	struct sl_ioc_stats st = { 0 };

	ins.flags = 1;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_INSERT, &ins));
	ins.flags = 0;
	ins.reserved = 1;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_INSERT, &ins));
	hole.flags = 0x80000000;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_INSERT_HOLE, &hole));
	hole.flags = 0;
	hole.reserved = 2;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_INSERT_HOLE, &hole));
	lk.flags = 4;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_LOOKUP, &lk));
	lk.flags = 0;
	lk.reserved = 1;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_LOOKUP, &lk));
	ov.flags = 1;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_FIRST_OVERLAP, &ov));
	ov.flags = 0;
	ov.reserved = 1;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_FIRST_OVERLAP, &ov));
	del.flags = 1;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_DELETE, &del));
	del.flags = 0;
	del.reserved = 1;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_DELETE, &del));
	it.flags = 4;		/* only BACKWARD and FROM_END are defined */
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	/* From the end, only backward, and from no key. */
	it.flags = SL_ITER_FROM_END;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	it.flags = SL_ITER_BACKWARD | SL_ITER_FROM_END;
	it.key = 1;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	it.key = 0;
	EXPECT_EQ(0, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	it.flags = 0;
	it.reserved = 1;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	st.flags = 1;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_STATS, &st));
	st.flags = 0;
	st.reserved = 1;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_STATS, &st));
}

TEST_F(dev, ranges_einval)
{
	struct sl_ioc_extent recs[1];
	struct sl_ioc_iterate it = {
		.records = (unsigned long)recs, .max = SL_IOC_ITERATE_MAX + 1,
	};

	/* Size 0, and extents that wrap past 2^64 - 1. */
	EXPECT_EQ(-EINVAL, sl_insert(self->fd, 10, 0, 0));
	EXPECT_EQ(-EINVAL, sl_insert(self->fd, ~0ULL, 2, 0));
	EXPECT_EQ(-EINVAL, sl_insert(self->fd, 1ULL << 63, 1ULL << 63 | 1, 0));
	EXPECT_EQ(0, sl_insert(self->fd, 1ULL << 63, 1ULL << 63, 0));
	/* An empty or inverted overlap range. */
	EXPECT_EQ(-EINVAL, sl_overlap(self->fd, 5, 5, NULL));
	EXPECT_EQ(-EINVAL, sl_overlap(self->fd, 6, 5, NULL));
	/* insert_hole: size 0, bad alignments, empty windows. */
	EXPECT_EQ(-EINVAL, sl_hole(self->fd, 0, 1, 0, 100, 0, NULL));
	EXPECT_EQ(-EINVAL, sl_hole(self->fd, 1, 0, 0, 100, 0, NULL));
	EXPECT_EQ(-EINVAL, sl_hole(self->fd, 1, 3, 0, 100, 0, NULL));
	EXPECT_EQ(-EINVAL, sl_hole(self->fd, 1, 48, 0, 100, 0, NULL));
	EXPECT_EQ(-EINVAL, sl_hole(self->fd, 1, 1, 100, 100, 0, NULL));
	EXPECT_EQ(-EINVAL, sl_hole(self->fd, 1, 1, 200, 100, 0, NULL));
	/* A buffer count over the documented maximum. */
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
	it.max = ~0U;
	EXPECT_EQ(-EINVAL, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
}

TEST_F(dev, unknown_commands_enotty)
{
	struct sl_ioc_insert ins = { .key = 1, .size = 1 };

	EXPECT_EQ(-ENOTTY, sl_ioc(self->fd, _IO(SL_IOC_MAGIC, 0), NULL));
	EXPECT_EQ(-ENOTTY, sl_ioc(self->fd, _IO(SL_IOC_MAGIC, 99), NULL));
	EXPECT_EQ(-ENOTTY, sl_ioc(self->fd, _IOW('x', 1, int), &ins));
	/* A known number with the wrong size is a different command. */
	EXPECT_EQ(-ENOTTY, sl_ioc(self->fd, _IOW(SL_IOC_MAGIC, 1, int), &ins));
}

TEST_F(dev, results_eexist_enoent_enospc)
{
	ASSERT_EQ(0, sl_insert(self->fd, 100, 10, 0));
	EXPECT_EQ(-EEXIST, sl_insert(self->fd, 100, 10, 0));
	EXPECT_EQ(-EEXIST, sl_insert(self->fd, 109, 1, 0));
	EXPECT_EQ(-EEXIST, sl_insert(self->fd, 0, 101, 0));
	EXPECT_EQ(-ENOENT, sl_lookup(self->fd, 110, NULL));
	EXPECT_EQ(-ENOENT, sl_delete(self->fd, 101));
	EXPECT_EQ(-ENOENT, sl_overlap(self->fd, 110, 200, NULL));
	EXPECT_EQ(-ENOSPC, sl_hole(self->fd, 11, 1, 100, 120, 0, NULL));
	EXPECT_EQ(-ENOSPC, sl_hole(self->fd, 1, 1, 100, 110, 0, NULL));
}

TEST_F(dev, unprivileged_eperm)
{
	static const unsigned long cmds[] = {
		SL_IOC_INSERT, SL_IOC_INSERT_HOLE, SL_IOC_LOOKUP,
		SL_IOC_FIRST_OVERLAP, SL_IOC_DELETE, SL_IOC_ITERATE,
		SL_IOC_STATS, SL_IOC_CLEAR, SL_IOC_CHECK,
	};
	struct sl_ioc_stats st = { 0 };
	unsigned int i;

	ASSERT_EQ(0, sl_insert(self->fd, 1, 1, 0));
	ASSERT_EQ(0, dt_drop_sys_admin());
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		EXPECT_EQ(-EPERM, sl_ioc(self->fd, cmds[i], &st));
	/* The teardown's check would be refused too. */
	close(self->fd);
	self->fd = -1;
}

TEST(node_is_root_only)
{
	struct stat st;

	if (stat(SL_DEVICE, &st) && errno == ENOENT)
		SKIP(return, SL_DEVICE " missing");
	ASSERT_EQ(0, stat(SL_DEVICE, &st));
	EXPECT_EQ(0600, st.st_mode & 0777);
	EXPECT_EQ(0, st.st_uid);
}

TEST_HARNESS_MAIN
