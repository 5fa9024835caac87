// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to /dev/sl_extent: every error the interface documents, each
 * asserted with its exact errno, and afterwards a map that passes its
 * check and an allocator whose shadow bitmap saw nothing wrong and whose
 * free space adds up.
 */
#include <sys/mman.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"
#include "sx_ioctl.h"

/* A kernel address: never valid from userspace. */
#define KERNEL_ADDR ((void *)0xffffffff81000000UL)

/* The allocator every test starts with: [1000, 1000 + SPACE), shadowed. */
#define BASE	1000
#define SPACE	4096

FIXTURE(dev) {
	int fd;
	void *unmapped;
	__u64 used;		/* units the test left allocated */
};

FIXTURE_SETUP(dev)
{
	self->fd = sx_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SX_MISSING);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, sx_ra_init(self->fd, BASE, BASE + SPACE,
				SL_RA_INIT_SHADOW));
	self->unmapped = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->unmapped);
	munmap(self->unmapped, 4096);
}

/* Whatever the test threw at it, both structures are intact. */
FIXTURE_TEARDOWN(dev)
{
	struct sl_ra_ioc_stats st;

	if (self->fd < 0)
		return;
	EXPECT_EQ(0, sx_em_check(self->fd));
	EXPECT_EQ(0, sx_ra_shadow(self->fd));
	EXPECT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(SPACE, st.size);
	EXPECT_EQ(SPACE - self->used, st.free);
	close(self->fd);
}

static const unsigned long all_cmds[] = {
	SL_EM_IOC_ADD, SL_EM_IOC_LOOKUP, SL_EM_IOC_FIRST_OVERLAP,
	SL_EM_IOC_NEXT, SL_EM_IOC_REMOVE, SL_EM_IOC_DROP, SL_EM_IOC_COUNT,
	SL_RA_IOC_INIT, SL_RA_IOC_ALLOC, SL_RA_IOC_FREE, SL_RA_IOC_RESERVE,
	SL_RA_IOC_STATS, SL_RA_IOC_SHADOW,
};

TEST_F(dev, bad_pointers_efault)
{
	struct sl_ra_ioc_alloc al = { .size = 1, .align = 1 };
	struct sl_em_ioc_lookup lk = { .offset = 5 };
	struct sl_ra_ioc_stats st;
	unsigned int i;
	char *ro;

	for (i = 0; i < ARRAY_SIZE(all_cmds); i++) {
		EXPECT_EQ(-EFAULT, sx_ioc(self->fd, all_cmds[i], NULL));
		EXPECT_EQ(-EFAULT, sx_ioc(self->fd, all_cmds[i],
					  self->unmapped));
		EXPECT_EQ(-EFAULT, sx_ioc(self->fd, all_cmds[i], KERNEL_ADDR));
	}
	/*
	 * Requests on a read-only page: read, and the result cannot be
	 * written back.  An allocation finds that out before it allocates
	 * (it is never undone afterwards: extent_uffd_test); a lookup is
	 * carried out and fails to report.
	 */
	ASSERT_EQ(0, sx_em_add(self->fd, 0, 10, 100, 0, false));
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	memcpy(ro, &al, sizeof(al));
	memcpy(ro + 1024, &lk, sizeof(lk));
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	EXPECT_EQ(-EFAULT, sx_ioc(self->fd, SL_RA_IOC_ALLOC, ro));
	EXPECT_EQ(-EFAULT, sx_ioc(self->fd, SL_EM_IOC_LOOKUP, ro + 1024));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(SPACE, st.free);
	EXPECT_EQ(0, st.ranges);
	munmap(ro, 4096);
}

TEST_F(dev, flags_reserved_pad_einval)
{
	struct sl_em_ioc_add add = {
		.extent = { .start = 0, .len = 1, .disk_start = 0 },
	};
	struct sl_em_ioc_lookup lk = { 0 };
	struct sl_em_ioc_range rg = { .start = 0, .len = 1 };
	struct sl_em_ioc_next nx = { 0 };
	struct sl_em_ioc_remove rm = { 0 };
	struct sl_em_ioc_count ct = { 0 };
	struct sl_ra_ioc_init in = { .start = 0, .end = 10 };
	struct sl_ra_ioc_alloc al = { .size = 1, .align = 1 };
	struct sl_ra_ioc_range rr = { .start = BASE, .size = 1 };
	struct sl_ra_ioc_stats st = { 0 };
	struct sl_ra_ioc_shadow sh = { 0 };

	/* Each with an unknown flag, then with a non-zero reserved field. */
	add.flags = 2;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_ADD, &add));
	add.flags = 0x80000000;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_ADD, &add));
	add.flags = SL_EM_ADD_MERGE;
	add.reserved = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_ADD, &add));
	add.reserved = 0;
	add.extent.pad = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_ADD, &add));
	/* The extent's own flags are the caller's: any value goes. */
	add.extent.pad = 0;
	add.extent.flags = 0xffffffff;
	EXPECT_EQ(0, sx_ioc(self->fd, SL_EM_IOC_ADD, &add));

	lk.flags = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_LOOKUP, &lk));
	lk.flags = 0;
	lk.reserved = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_LOOKUP, &lk));
	rg.flags = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_FIRST_OVERLAP, &rg));
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_DROP, &rg));
	rg.flags = 0;
	rg.reserved = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_FIRST_OVERLAP, &rg));
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_DROP, &rg));
	nx.flags = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_NEXT, &nx));
	nx.flags = 0;
	nx.reserved = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_NEXT, &nx));
	rm.flags = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_REMOVE, &rm));
	rm.flags = 0;
	rm.reserved = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_REMOVE, &rm));
	ct.flags = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_COUNT, &ct));
	ct.flags = 0;
	ct.reserved = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_EM_IOC_COUNT, &ct));
	/* None of them did anything. */
	EXPECT_EQ(1, sx_em_count(self->fd));
	EXPECT_EQ(0, sx_em_lookup(self->fd, 0, NULL));

	in.flags = 2;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_INIT, &in));
	in.flags = 0;
	in.reserved = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_INIT, &in));
	al.flags = 2;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_ALLOC, &al));
	al.flags = 0;
	al.reserved = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_ALLOC, &al));
	rr.flags = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_RESERVE, &rr));
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_FREE, &rr));
	rr.flags = 0;
	rr.reserved = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_RESERVE, &rr));
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_FREE, &rr));
	st.flags = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_STATS, &st));
	st.flags = 0;
	st.reserved = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_STATS, &st));
	sh.flags = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_SHADOW, &sh));
	sh.flags = 0;
	sh.reserved = 1;
	EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_SHADOW, &sh));
}

TEST_F(dev, zero_length_einval)
{
	ASSERT_EQ(0, sx_em_add(self->fd, 100, 10, 1000, 0, false));
	EXPECT_EQ(-EINVAL, sx_em_add(self->fd, 0, 0, 0, 0, false));
	EXPECT_EQ(-EINVAL, sx_em_add(self->fd, 200, 0, 0, 0, true));
	EXPECT_EQ(-EINVAL, sx_em_overlap(self->fd, 100, 0, NULL));
	EXPECT_EQ(-EINVAL, sx_em_drop(self->fd, 100, 0));
	EXPECT_EQ(-EINVAL, sx_ra_alloc(self->fd, 0, 1, 0, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, sx_ra_alloc_cpu(self->fd, 0, 1, NULL));
	EXPECT_EQ(-EINVAL, sx_ra_reserve(self->fd, BASE, 0));
	EXPECT_EQ(-EINVAL, sx_ra_free(self->fd, BASE, 0));
	/* Nothing was punched. */
	EXPECT_EQ(1, sx_em_count(self->fd));
}

TEST_F(dev, alignment_einval)
{
	static const __u64 bad[] = {
		0, 3, 6, 48, 1000, (1ULL << 63) | 1, ~0ULL,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, sx_ra_alloc(self->fd, 1, bad[i], 0, 0, 0,
					       NULL));
		EXPECT_EQ(-EINVAL, sx_ra_alloc_cpu(self->fd, 1, bad[i], NULL));
	}
	/* The largest power of two is an alignment nothing in the space meets. */
	EXPECT_EQ(-ENOSPC, sx_ra_alloc(self->fd, 1, 1ULL << 63, 0, 0, 0, NULL));
}

TEST_F(dev, wraparound_einval)
{
	/* start + len - 1 past 2^64 - 1, for every command taking a range. */
	EXPECT_EQ(-EINVAL, sx_em_add(self->fd, ~0ULL, 2, 0, 0, false));
	EXPECT_EQ(-EINVAL, sx_em_add(self->fd, 1ULL << 63, (1ULL << 63) + 1,
				     0, 0, true));
	EXPECT_EQ(-EINVAL, sx_em_add(self->fd, 0, ~0ULL, 2, 0, false));
	/* The disk range must not wrap either. */
	EXPECT_EQ(-EINVAL, sx_em_add(self->fd, 0, 16, ~0ULL - 14, 0, false));
	EXPECT_EQ(-EINVAL, sx_em_overlap(self->fd, 10, ~0ULL, NULL));
	EXPECT_EQ(-EINVAL, sx_em_drop(self->fd, ~0ULL, 2));
	EXPECT_EQ(-EINVAL, sx_ra_reserve(self->fd, ~0ULL - 1, 3));
	EXPECT_EQ(-EINVAL, sx_ra_free(self->fd, BASE, ~0ULL));
	EXPECT_EQ(0, sx_em_count(self->fd));
	/* The very last unit is a valid extent. */
	EXPECT_EQ(0, sx_em_add(self->fd, ~0ULL, 1, ~0ULL, 0, false));
	EXPECT_EQ(0, sx_em_add(self->fd, 0, 16, ~0ULL - 15, 0, false));
	EXPECT_EQ(2, sx_em_count(self->fd));
}

TEST_F(dev, outside_space_erange)
{
	__u64 start = 0;

	/* Entirely below, entirely above, straddling either end. */
	EXPECT_EQ(-ERANGE, sx_ra_reserve(self->fd, 0, 10));
	EXPECT_EQ(-ERANGE, sx_ra_reserve(self->fd, BASE - 1, 2));
	EXPECT_EQ(-ERANGE, sx_ra_reserve(self->fd, BASE + SPACE, 1));
	EXPECT_EQ(-ERANGE, sx_ra_reserve(self->fd, BASE + SPACE - 1, 2));
	EXPECT_EQ(-ERANGE, sx_ra_free(self->fd, 0, 10));
	EXPECT_EQ(-ERANGE, sx_ra_free(self->fd, BASE - 1, 2));
	EXPECT_EQ(-ERANGE, sx_ra_free(self->fd, BASE + SPACE, 1));
	EXPECT_EQ(-ERANGE, sx_ra_free(self->fd, ~0ULL, 1));
	/* A window that misses the space. */
	EXPECT_EQ(-ERANGE, sx_ra_alloc(self->fd, 1, 1, 0, BASE, 0, &start));
	EXPECT_EQ(-ERANGE, sx_ra_alloc(self->fd, 1, 1, BASE + SPACE, 0, 0,
				       &start));
	EXPECT_EQ(-ERANGE, sx_ra_alloc(self->fd, 1, 1, ~0ULL - 1, ~0ULL, 0,
				       &start));
	/* The edges themselves are inside. */
	EXPECT_EQ(0, sx_ra_reserve(self->fd, BASE, 1));
	EXPECT_EQ(0, sx_ra_reserve(self->fd, BASE + SPACE - 1, 1));
	EXPECT_EQ(0, sx_ra_alloc(self->fd, 1, 1, 0, BASE + 2, 0, &start));
	EXPECT_EQ(BASE + 1, start);
	self->used = 3;
}

TEST_F(dev, bad_window_einval)
{
	/* max at or below min (max 0 means no limit). */
	EXPECT_EQ(-EINVAL, sx_ra_alloc(self->fd, 1, 1, BASE + 10, BASE + 10, 0,
				       NULL));
	EXPECT_EQ(-EINVAL, sx_ra_alloc(self->fd, 1, 1, BASE + 10, BASE + 5, 0,
				       NULL));
	/* The per-CPU mode takes no window and no hint. */
	{
		struct sl_ra_ioc_alloc r = {
			.size = 1, .align = 1, .flags = SL_RA_ALLOC_PERCPU,
		};

		r.min = BASE;
		EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_ALLOC, &r));
		r.min = 0;
		r.max = BASE + SPACE;
		EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_ALLOC, &r));
		r.max = 0;
		r.hint = BASE;
		EXPECT_EQ(-EINVAL, sx_ioc(self->fd, SL_RA_IOC_ALLOC, &r));
	}
	/* A window too small for the size is no misuse: nothing fits. */
	EXPECT_EQ(-ENOSPC, sx_ra_alloc(self->fd, 11, 1, BASE, BASE + 10, 0,
				       NULL));
}

TEST_F(dev, double_and_wrong_frees)
{
	struct sl_ra_ioc_stats st;
	__u64 a, b;

	ASSERT_EQ(0, sx_ra_alloc(self->fd, 16, 1, 0, 0, 0, &a));
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 32, 1, 0, 0, 0, &b));
	/* The wrong size: refused, and the range stays allocated. */
	EXPECT_EQ(-EINVAL, sx_ra_free(self->fd, a, 15));
	EXPECT_EQ(-EINVAL, sx_ra_free(self->fd, a, 17));
	EXPECT_EQ(-EINVAL, sx_ra_free(self->fd, b, 16));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(SPACE - 48, st.free);
	EXPECT_EQ(2, st.ranges);
	/* Not the start of a live range. */
	EXPECT_EQ(-ENOENT, sx_ra_free(self->fd, a + 1, 15));
	EXPECT_EQ(-ENOENT, sx_ra_free(self->fd, b + 48, 1));
	/* The right size, then the double free. */
	EXPECT_EQ(0, sx_ra_free(self->fd, a, 16));
	EXPECT_EQ(-ENOENT, sx_ra_free(self->fd, a, 16));
	EXPECT_EQ(0, sx_ra_free(self->fd, b, 32));
	EXPECT_EQ(-ENOENT, sx_ra_free(self->fd, b, 32));
	/* A reservation's double free too. */
	EXPECT_EQ(0, sx_ra_reserve(self->fd, BASE + 100, 10));
	EXPECT_EQ(0, sx_ra_free(self->fd, BASE + 100, 10));
	EXPECT_EQ(-ENOENT, sx_ra_free(self->fd, BASE + 100, 10));
}

TEST_F(dev, full_enospc)
{
	__u64 start;
	int i;

	for (i = 0; i < SPACE / 64; i++)
		ASSERT_EQ(0, sx_ra_alloc(self->fd, 64, 1, 0, 0, 0, &start));
	EXPECT_EQ(-ENOSPC, sx_ra_alloc(self->fd, 1, 1, 0, 0, 0, &start));
	EXPECT_EQ(-ENOSPC, sx_ra_alloc_cpu(self->fd, 1, 1, &start));
	EXPECT_EQ(-ENOSPC, sx_ra_alloc(self->fd, SPACE + 1, 1, 0, 0, 0,
				       &start));
	EXPECT_EQ(-EEXIST, sx_ra_reserve(self->fd, BASE + 5, 1));
	self->used = SPACE;
}

TEST_F(dev, init_errors)
{
	int fd = sx_open();

	ASSERT_LE(0, fd);
	/* An empty or inverted space. */
	EXPECT_EQ(-EINVAL, sx_ra_init(fd, 10, 10, 0));
	EXPECT_EQ(-EINVAL, sx_ra_init(fd, 10, 5, 0));
	/* The shadow bitmap covers only a bounded space. */
	EXPECT_EQ(-EINVAL, sx_ra_init(fd, 0, 0, SL_RA_INIT_SHADOW));
	EXPECT_EQ(-EINVAL, sx_ra_init(fd, 1, SL_RA_SHADOW_MAX + 2,
				      SL_RA_INIT_SHADOW));
	/* None of that created an allocator. */
	EXPECT_EQ(-ENXIO, sx_ra_free(fd, 0, 1));
	EXPECT_EQ(0, sx_ra_init(fd, 1, SL_RA_SHADOW_MAX + 1,
				SL_RA_INIT_SHADOW));
	EXPECT_EQ(-EBUSY, sx_ra_init(fd, 0, 10, 0));
	EXPECT_EQ(0, sx_ra_shadow(fd));
	close(fd);
	/* The fixture's allocator exists already. */
	EXPECT_EQ(-EBUSY, sx_ra_init(self->fd, 0, 10, 0));
}

TEST_F(dev, ordinary_results)
{
	ASSERT_EQ(0, sx_em_add(self->fd, 100, 10, 1000, 0, false));
	EXPECT_EQ(-EEXIST, sx_em_add(self->fd, 100, 10, 1000, 0, false));
	EXPECT_EQ(-EEXIST, sx_em_add(self->fd, 109, 1, 5000, 0, true));
	EXPECT_EQ(-EEXIST, sx_em_add(self->fd, 0, 101, 5000, 0, false));
	EXPECT_EQ(-ENOENT, sx_em_lookup(self->fd, 110, NULL));
	EXPECT_EQ(-ENOENT, sx_em_lookup(self->fd, 99, NULL));
	EXPECT_EQ(-ENOENT, sx_em_remove(self->fd, 101));
	EXPECT_EQ(-ENOENT, sx_em_overlap(self->fd, 110, 100, NULL));
	EXPECT_EQ(-ENOENT, sx_em_next(self->fd, 110, NULL));
	EXPECT_EQ(1, sx_em_count(self->fd));
}

TEST_F(dev, unknown_commands_enotty)
{
	struct sl_em_ioc_add add = { .extent = { .len = 1 } };

	EXPECT_EQ(-ENOTTY, sx_ioc(self->fd, _IO(SL_EXT_IOC_MAGIC, 0), NULL));
	EXPECT_EQ(-ENOTTY, sx_ioc(self->fd, _IO(SL_EXT_IOC_MAGIC, 99), NULL));
	EXPECT_EQ(-ENOTTY, sx_ioc(self->fd, _IOWR(SL_EXT_IOC_MAGIC, 9, int),
				  &add));
	EXPECT_EQ(-ENOTTY, sx_ioc(self->fd, _IOW('x', 1, int), &add));
	/* The skiplist device's commands are not ours. */
	EXPECT_EQ(-ENOTTY, sx_ioc(self->fd, _IO(0xb9, 9), NULL));
	/* A known number with another size or direction is another command. */
	EXPECT_EQ(-ENOTTY, sx_ioc(self->fd, _IOWR(SL_EXT_IOC_MAGIC, 1, int),
				  &add));
	EXPECT_EQ(-ENOTTY, sx_ioc(self->fd,
				  _IOW(SL_EXT_IOC_MAGIC, 1, struct sl_em_ioc_add),
				  &add));
	EXPECT_EQ(0, sx_em_count(self->fd));
}

TEST_F(dev, unprivileged_eperm)
{
	struct sl_ra_ioc_stats st = { 0 };
	unsigned int i;

	ASSERT_EQ(0, sx_em_add(self->fd, 0, 1, 0, 0, false));
	ASSERT_EQ(0, dt_drop_sys_admin());
	for (i = 0; i < ARRAY_SIZE(all_cmds); i++)
		EXPECT_EQ(-EPERM, sx_ioc(self->fd, all_cmds[i], &st));
	EXPECT_EQ(-EPERM, sx_em_check(self->fd));
	/* The teardown's checks would be refused too. */
	close(self->fd);
	self->fd = -1;
}

TEST_HARNESS_MAIN
