// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/sl_lsm refuses bad input with the errno its header documents and
 * changes nothing: each refusal of an attach (no such path, not a block
 * device, a device in use, a disk too small, a foreign or corrupt
 * superblock, an overlong path), commands without a store, unknown flags
 * and non-zero reserved fields of every command, malformed, oversized
 * and too many records, bad pointers, unknown commands, and callers
 * without CAP_SYS_ADMIN.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/syscall.h>
#include "lsm_ioctl.h"
#include "kselftest_harness.h"

/* A store formatted on SL_LSM_DISK, and a second descriptor with none. */
FIXTURE(bad)
{
	int fd;
	int bare;
	const char *disk;
};

FIXTURE_SETUP(bad)
{
	self->fd = self->bare = -1;
	self->disk = lsm_disk();
	self->fd = lsm_open();
	ASSERT_LE(0, self->fd);
	self->bare = lsm_open();
	ASSERT_LE(0, self->bare);
	ASSERT_EQ(0, lsm_attach(self->fd, self->disk, SL_LSM_ATTACH_FORMAT));
}

FIXTURE_TEARDOWN(bad)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->bare >= 0)
		close(self->bare);
}

TEST_F(bad, attach_refusals)
{
	char *longpath;

	EXPECT_EQ(-ENOENT, lsm_attach(self->bare, "/dev/no-such-disk", 0));
	EXPECT_EQ(-ENOTBLK, lsm_attach(self->bare, "/dev/null", 0));
	EXPECT_EQ(-ENOTBLK, lsm_attach(self->bare, "/proc/self/status", 0));
	/* The disk is attached on the other descriptor. */
	EXPECT_EQ(-EBUSY, lsm_attach(self->bare, self->disk, 0));
	EXPECT_EQ(-EBUSY, lsm_attach(self->bare, self->disk,
				     SL_LSM_ATTACH_FORMAT));
	/* This descriptor has a store already. */
	EXPECT_EQ(-EISCONN, lsm_attach(self->fd, self->disk, 0));
	EXPECT_EQ(-EISCONN, lsm_attach(self->fd, "/dev/null", 0));
	longpath = malloc(5000);
	ASSERT_NE(NULL, longpath);
	memset(longpath, 'a', 4999);
	longpath[4999] = '\0';
	EXPECT_EQ(-ENAMETOOLONG, lsm_attach(self->bare, longpath, 0));
	free(longpath);
	EXPECT_EQ(-EFAULT, lsm_attach(self->bare, DT_KERNEL_ADDR, 0));
	EXPECT_EQ(-EFAULT, lsm_attach(self->bare, NULL, 0));
	/* Once detached, the disk is free for the other descriptor. */
	ASSERT_EQ(0, lsm_detach(self->fd));
	EXPECT_EQ(0, lsm_attach(self->bare, self->disk, 0));
}

TEST_F(bad, attach_too_small)
{
	const char *small = lsm_small_disk();

	if (!small)
		SKIP(return, "SL_LSM_SMALL_DISK not set");
	EXPECT_EQ(-ENOSPC, lsm_attach(self->bare, small, SL_LSM_ATTACH_FORMAT));
	EXPECT_EQ(-ENOSPC, lsm_attach(self->bare, small, 0));
}

TEST_F(bad, attach_foreign_or_corrupt)
{
	ASSERT_EQ(0, lsm_put(self->fd, 1, 1, "k", 1, 0));
	ASSERT_EQ(0, lsm_detach(self->fd));

	/* One superblock copy damaged: the other one serves. */
	ASSERT_EQ(0, lsm_flip(self->disk, 0, 100));
	ASSERT_EQ(0, lsm_attach(self->fd, self->disk, 0));
	EXPECT_EQ(0, lsm_get(self->fd, 1, NULL, NULL, 0));
	ASSERT_EQ(0, lsm_detach(self->fd));

	/* Both damaged: corrupt, and nothing is written. */
	ASSERT_EQ(0, lsm_flip(self->disk, 0, 200));
	ASSERT_EQ(0, lsm_flip(self->disk, 1, 200));
	ASSERT_EQ(-EUCLEAN, lsm_attach(self->fd, self->disk, 0));
	EXPECT_EQ(-EUCLEAN, lsm_attach(self->fd, self->disk, 0));

	/* Zeroes: no store at all. */
	ASSERT_EQ(0, lsm_scribble(self->disk, 0, 2, 0));
	EXPECT_EQ(-EUCLEAN, lsm_attach(self->fd, self->disk, 0));

	/* Something else's bytes (a file system's, say). */
	ASSERT_EQ(0, lsm_scribble(self->disk, 0, 4, 0x53));
	EXPECT_EQ(-EUCLEAN, lsm_attach(self->fd, self->disk, 0));
	/* A refused attach leaves the descriptor free to try again. */
	EXPECT_EQ(-ENOTCONN, lsm_sync(self->fd));

	/* FORMAT takes any of them. */
	ASSERT_EQ(0, lsm_attach(self->fd, self->disk, SL_LSM_ATTACH_FORMAT));
	EXPECT_EQ(-ENOENT, lsm_get(self->fd, 1, NULL, NULL, 0));
}

TEST_F(bad, attach_options)
{
	struct sl_lsm_ioc_attach a = { .path = (unsigned long)self->disk };

	ASSERT_EQ(0, lsm_detach(self->fd));
	a.flags = 0x4;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_ATTACH, &a));
	a.flags = 0;
	a.reserved = 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_ATTACH, &a));
	a.reserved = 0;
	a.memtable_bytes = SL_LSM_MEMTABLE_MIN - 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_ATTACH, &a));
	a.memtable_bytes = SL_LSM_MEMTABLE_MAX + 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_ATTACH, &a));
	a.memtable_bytes = 0;
	a.max_immutables = SL_LSM_IMMUTABLES_MAX + 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_ATTACH, &a));
	a.max_immutables = 0;
	a.commit_interval_ms = SL_LSM_COMMIT_MS_MAX + 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_ATTACH, &a));
	a.commit_interval_ms = 0;
	/* None of those attached anything. */
	EXPECT_EQ(-ENOTCONN, lsm_sync(self->fd));
	ASSERT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_ATTACH, &a));
	EXPECT_LT(0, a.nr_blocks);
}

TEST_F(bad, no_store)
{
	struct sl_lsm_ioc_stats s;
	struct sl_lsm_ioc_rec rec = { .key = 1, .len = 1, .kind = SL_LSM_REC_DELETE };
	struct sl_lsm_ioc_piece p;
	static char buf[SL_LSM_VALUE_MAX];
	struct sl_lsm_ioc_scan sc = {
		.pieces = (unsigned long)&p, .values = (unsigned long)buf,
		.values_size = sizeof(buf), .max = 1,
	};

	EXPECT_EQ(-ENOTCONN, lsm_detach(self->bare));
	EXPECT_EQ(-ENOTCONN, lsm_put(self->bare, 1, 1, "x", 1, 0));
	EXPECT_EQ(-ENOTCONN, lsm_delete(self->bare, 1, 1, 0));
	EXPECT_EQ(-ENOTCONN, lsm_batch(self->bare, &rec, 1, 0));
	EXPECT_EQ(-ENOTCONN, lsm_get(self->bare, 1, NULL, NULL, 0));
	EXPECT_EQ(-ENOTCONN, lsm_ioc(self->bare, SL_LSM_IOC_SCAN, &sc));
	EXPECT_EQ(-ENOTCONN, lsm_sync(self->bare));
	EXPECT_EQ(-ENOTCONN, lsm_flush(self->bare));
	EXPECT_EQ(-ENOTCONN, lsm_stats(self->bare, &s));
	/* A malformed request is refused as such even without a store. */
	EXPECT_EQ(-EINVAL, lsm_put(self->bare, 1, 0, "x", 1, 0));
}

TEST_F(bad, flags_and_reserved)
{
	struct sl_lsm_ioc_put put = { .key = 1, .len = 1 };
	struct sl_lsm_ioc_delete del = { .key = 1, .len = 1 };
	struct sl_lsm_ioc_rec rec = { .key = 1, .len = 1, .kind = SL_LSM_REC_DELETE };
	struct sl_lsm_ioc_batch batch = { .recs = (unsigned long)&rec, .count = 1 };
	struct sl_lsm_ioc_get_rec grec = { .key = 1 };
	struct sl_lsm_ioc_get get = { .recs = (unsigned long)&grec, .count = 1 };
	struct sl_lsm_ioc_stats st = { 0 };
	struct sl_lsm_ioc_piece p;
	static char buf[SL_LSM_VALUE_MAX];
	struct sl_lsm_ioc_scan sc = {
		.pieces = (unsigned long)&p, .values = (unsigned long)buf,
		.values_size = sizeof(buf), .max = 1,
	};

	put.flags = 2;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_PUT, &put));
	put.flags = 0;
	put.reserved = 1ULL << 40;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_PUT, &put));
	del.flags = 0x80000000;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_DELETE, &del));
	del.flags = 0;
	del.reserved = 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_DELETE, &del));
	batch.flags = 4;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_BATCH, &batch));
	batch.flags = 0;
	batch.reserved = 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_BATCH, &batch));
	get.flags = 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_GET, &get));
	get.flags = 0;
	get.reserved = 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_GET, &get));
	get.reserved = 0;
	grec.reserved = 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_GET, &get));
	sc.flags = 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &sc));
	sc.flags = 0;
	sc.reserved = 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &sc));
	sc.reserved = 0;
	st.flags = 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_STATS, &st));
	st.flags = 0;
	st.reserved = 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_STATS, &st));
	/* The well-formed versions pass. */
	st.reserved = 0;
	EXPECT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_STATS, &st));
	EXPECT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &sc));
	del.reserved = 0;
	EXPECT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_DELETE, &del));
}

TEST_F(bad, records)
{
	static char big[SL_LSM_VALUE_MAX + 1];
	struct sl_lsm_ioc_rec recs[2] = {
		{ .key = 50, .len = 1, .value = (unsigned long)"ok", .vlen = 2,
		  .kind = SL_LSM_REC_PUT },
	};

	EXPECT_EQ(-EINVAL, lsm_put(self->fd, 1, 0, "x", 1, 0));
	EXPECT_EQ(-EINVAL, lsm_put(self->fd, ~0ULL, 2, "x", 1, 0));
	EXPECT_EQ(-EINVAL, lsm_put(self->fd, 1ULL << 63, 1ULL << 63 | 1, "x",
				   1, 0));
	EXPECT_EQ(0, lsm_put(self->fd, 1ULL << 63, 1ULL << 63, "x", 1, 0));
	EXPECT_EQ(-EINVAL, lsm_delete(self->fd, 5, 0, 0));
	EXPECT_EQ(-EINVAL, lsm_delete(self->fd, 2, ~0ULL, 0));
	EXPECT_EQ(-EMSGSIZE, lsm_put(self->fd, 1, 1, big, sizeof(big), 0));
	EXPECT_EQ(-EFAULT, lsm_put(self->fd, 1, 1, DT_KERNEL_ADDR, 10, 0));
	EXPECT_EQ(-EFAULT, lsm_put(self->fd, 1, 1, NULL, 10, 0));
	/* A value of length 0 needs no pointer. */
	EXPECT_EQ(0, lsm_put(self->fd, 1, 1, NULL, 0, 0));

	/* One bad record and the batch applies nothing. */
	recs[1] = (struct sl_lsm_ioc_rec){ .key = 60, .len = 1, .kind = 3 };
	EXPECT_EQ(-EINVAL, lsm_batch(self->fd, recs, 2, 0));
	recs[1] = (struct sl_lsm_ioc_rec){ .key = 60, .len = 0,
					   .kind = SL_LSM_REC_DELETE };
	EXPECT_EQ(-EINVAL, lsm_batch(self->fd, recs, 2, 0));
	recs[1] = (struct sl_lsm_ioc_rec){ .key = 60, .len = 1, .vlen = 1,
					   .value = (unsigned long)"x",
					   .kind = SL_LSM_REC_DELETE };
	EXPECT_EQ(-EINVAL, lsm_batch(self->fd, recs, 2, 0));
	recs[1] = (struct sl_lsm_ioc_rec){ .key = 60, .len = 1,
					   .value = (unsigned long)big,
					   .vlen = sizeof(big),
					   .kind = SL_LSM_REC_PUT };
	EXPECT_EQ(-EMSGSIZE, lsm_batch(self->fd, recs, 2, 0));
	recs[1] = (struct sl_lsm_ioc_rec){ .key = 60, .len = 1,
					   .value = (unsigned long)DT_KERNEL_ADDR,
					   .vlen = 1, .kind = SL_LSM_REC_PUT };
	EXPECT_EQ(-EFAULT, lsm_batch(self->fd, recs, 2, 0));
	EXPECT_EQ(-ENOENT, lsm_get(self->fd, 50, NULL, NULL, 0));
	EXPECT_EQ(-EINVAL, lsm_batch(self->fd, recs, 0, 0));
	EXPECT_EQ(-EFAULT, lsm_batch(self->fd, DT_KERNEL_ADDR, 1, 0));
	/* And a good one applies all. */
	recs[1] = (struct sl_lsm_ioc_rec){ .key = 60, .len = 1,
					   .kind = SL_LSM_REC_DELETE };
	EXPECT_EQ(0, lsm_batch(self->fd, recs, 2, 0));
	EXPECT_EQ(0, lsm_get(self->fd, 50, NULL, NULL, 0));
}

TEST_F(bad, too_many)
{
	static char v[SL_LSM_VALUE_MAX];
	struct sl_lsm_ioc_rec *recs;
	struct sl_lsm_ioc_get_rec *grecs;
	struct sl_lsm_ioc_get get = { .count = SL_LSM_BATCH_MAX + 1 };
	unsigned int i, n = SL_LSM_BATCH_BYTES / SL_LSM_VALUE_MAX + 1;

	recs = calloc(SL_LSM_BATCH_MAX + 1, sizeof(*recs));
	grecs = calloc(SL_LSM_BATCH_MAX + 1, sizeof(*grecs));
	ASSERT_NE(NULL, recs);
	ASSERT_NE(NULL, grecs);
	for (i = 0; i <= SL_LSM_BATCH_MAX; i++)
		recs[i] = (struct sl_lsm_ioc_rec){ .key = i, .len = 1,
						   .kind = SL_LSM_REC_DELETE };
	EXPECT_EQ(-E2BIG, lsm_batch(self->fd, recs, SL_LSM_BATCH_MAX + 1, 0));
	EXPECT_EQ(0, lsm_batch(self->fd, recs, SL_LSM_BATCH_MAX, 0));
	/* More value bytes than one call carries. */
	for (i = 0; i < n; i++)
		recs[i] = (struct sl_lsm_ioc_rec){ .key = i, .len = 1,
						   .value = (unsigned long)v,
						   .vlen = sizeof(v),
						   .kind = SL_LSM_REC_PUT };
	EXPECT_EQ(-E2BIG, lsm_batch(self->fd, recs, n, 0));
	/*
	 * Exactly SL_LSM_BATCH_BYTES: the device copies it in, but its log
	 * record, headers and all, is larger than any log segment (1 MiB
	 * at most, on a disk of 64 MiB or more).
	 */
	EXPECT_EQ(-E2BIG, lsm_batch(self->fd, recs, n - 1, 0));
	EXPECT_EQ(-ENOENT, lsm_get(self->fd, 0, NULL, NULL, 0));
	/* Half of it fits such a segment. */
	EXPECT_EQ(0, lsm_batch(self->fd, recs, (n - 1) / 2, 0));
	EXPECT_EQ(0, lsm_get(self->fd, 0, NULL, NULL, 0));
	get.recs = (unsigned long)grecs;
	EXPECT_EQ(-E2BIG, lsm_ioc(self->fd, SL_LSM_IOC_GET, &get));
	get.count = 0;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_GET, &get));
	get.count = SL_LSM_BATCH_MAX;
	EXPECT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_GET, &get));
	free(recs);
	free(grecs);
}

TEST_F(bad, scan_arguments)
{
	struct sl_lsm_ioc_piece p[2];
	static char buf[SL_LSM_VALUE_MAX];
	struct sl_lsm_ioc_scan sc = {
		.pieces = (unsigned long)p, .values = (unsigned long)buf,
		.values_size = sizeof(buf), .max = 0,
	};

	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &sc));
	sc.max = SL_LSM_SCAN_MAX + 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &sc));
	sc.max = 2;
	sc.values_size = SL_LSM_VALUE_MAX - 1;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &sc));
	sc.values_size = sizeof(buf);
	sc.done = 2;
	EXPECT_EQ(-EINVAL, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &sc));
	sc.done = 0;
	ASSERT_EQ(0, lsm_put(self->fd, 3, 1, "v", 1, 0));
	sc.pieces = (unsigned long)DT_KERNEL_ADDR;
	EXPECT_EQ(-EFAULT, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &sc));
	sc.pieces = (unsigned long)p;
	sc.values = 0;
	EXPECT_EQ(-EFAULT, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &sc));
	sc.values = (unsigned long)buf;
	EXPECT_EQ(0, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &sc));
	EXPECT_EQ(1, sc.count);
}

TEST_F(bad, bad_pointers_and_commands)
{
	EXPECT_EQ(-EFAULT, lsm_ioc(self->fd, SL_LSM_IOC_PUT, DT_KERNEL_ADDR));
	EXPECT_EQ(-EFAULT, lsm_ioc(self->fd, SL_LSM_IOC_GET, NULL));
	EXPECT_EQ(-EFAULT, lsm_ioc(self->fd, SL_LSM_IOC_STATS, DT_KERNEL_ADDR));
	EXPECT_EQ(-EFAULT, lsm_ioc(self->bare, SL_LSM_IOC_ATTACH, NULL));
	EXPECT_EQ(-ENOTTY, lsm_ioc(self->fd, _IO(SL_LSM_IOC_MAGIC, 99), NULL));
	EXPECT_EQ(-ENOTTY, lsm_ioc(self->fd, _IOW(SL_LSM_IOC_MAGIC, 3, int),
				   NULL));
	/* The store is still fine. */
	EXPECT_EQ(0, lsm_sync(self->fd));
}

TEST_F(bad, unprivileged)
{
	struct sl_lsm_ioc_stats s;
	static char buf[SL_LSM_VALUE_MAX];
	struct sl_lsm_ioc_piece p;
	struct sl_lsm_ioc_scan sc = {
		.pieces = (unsigned long)&p, .values = (unsigned long)buf,
		.values_size = sizeof(buf), .max = 1,
	};
	struct sl_lsm_ioc_rec rec = { .key = 1, .len = 1, .kind = SL_LSM_REC_DELETE };

	ASSERT_EQ(0, lsm_put(self->fd, 9, 1, "p", 1, 0));
	ASSERT_EQ(0, dt_drop_sys_admin());
	EXPECT_EQ(-EPERM, lsm_attach(self->bare, self->disk, 0));
	EXPECT_EQ(-EPERM, lsm_detach(self->fd));
	EXPECT_EQ(-EPERM, lsm_put(self->fd, 1, 1, "x", 1, 0));
	EXPECT_EQ(-EPERM, lsm_delete(self->fd, 9, 1, 0));
	EXPECT_EQ(-EPERM, lsm_batch(self->fd, &rec, 1, 0));
	EXPECT_EQ(-EPERM, lsm_get(self->fd, 9, NULL, NULL, 0));
	EXPECT_EQ(-EPERM, lsm_ioc(self->fd, SL_LSM_IOC_SCAN, &sc));
	EXPECT_EQ(-EPERM, lsm_sync(self->fd));
	EXPECT_EQ(-EPERM, lsm_flush(self->fd));
	EXPECT_EQ(-EPERM, lsm_stats(self->fd, &s));
}

TEST_HARNESS_MAIN
