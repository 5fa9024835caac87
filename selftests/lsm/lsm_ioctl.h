/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thin wrappers over the /dev/sl_lsm ioctls for the selftests: each
 * returns 0 or -errno, so a test asserts the exact error in one line;
 * and the disks the tests run on.  What every device's tests share is in
 * selftests/lib/devtest.h.
 *
 * The disks are named by the environment: SL_LSM_DISK, a block device
 * the tests may erase (256 MiB or more; tools/vm/guest-selftests.sh
 * passes a virtio disk), and SL_LSM_SMALL_DISK, one too small for a
 * store.  A test whose disk is not named skips.
 */
#ifndef _LSM_IOCTL_H
#define _LSM_IOCTL_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "devtest.h"
#include "sl_lsm_dev.h"

#define LSM_DEVICE	"/dev/sl_lsm"
#define LSM_MISSING	LSM_DEVICE " missing: load sl_lsm.ko"
#define LSM_BLOCK	4096

/* A descriptor, or -1 with errno set (-ENOMEM from failslab is retried). */
static inline int lsm_open(void)
{
	int fd = dt_open(LSM_DEVICE);

	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

static inline int lsm_ioc(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static inline const char *lsm_disk(void)
{
	const char *d = getenv("SL_LSM_DISK");

	return d && *d ? d : NULL;
}

static inline const char *lsm_small_disk(void)
{
	const char *d = getenv("SL_LSM_SMALL_DISK");

	return d && *d ? d : NULL;
}

/*
 * Every test here needs the device and SL_LSM_DISK: without them the
 * program skips as a whole (exit 4, as kselftests do) before the harness
 * runs; a fixture's own SKIP would still run the test body in this
 * harness.
 */
static void __attribute__((constructor)) lsm_require(void)
{
	const char *why = NULL;

	if (!lsm_disk())
		why = "SL_LSM_DISK not set: no disk to test on";
	else if (access(LSM_DEVICE, F_OK))
		why = LSM_MISSING;
	if (why) {
		printf("TAP version 13\n1..0 # SKIP %s\n", why);
		exit(DT_KSFT_SKIP);
	}
}

/* Attach @path with @flags and a memtable of @memtable bytes (0: default). */
static inline int lsm_attach_mt(int fd, const char *path, __u32 flags,
				__u64 memtable)
{
	struct sl_lsm_ioc_attach r = {
		.path = (unsigned long)path,
		.flags = flags,
		.memtable_bytes = memtable,
	};

	return lsm_ioc(fd, SL_LSM_IOC_ATTACH, &r);
}

static inline int lsm_attach(int fd, const char *path, __u32 flags)
{
	return lsm_attach_mt(fd, path, flags, 0);
}

static inline int lsm_detach(int fd)
{
	return ioctl(fd, SL_LSM_IOC_DETACH) ? -errno : 0;
}

static inline int lsm_put(int fd, __u64 key, __u64 len, const void *v,
			  __u32 vlen, __u32 flags)
{
	struct sl_lsm_ioc_put r = {
		.key = key, .len = len, .value = (unsigned long)v,
		.vlen = vlen, .flags = flags,
	};

	return lsm_ioc(fd, SL_LSM_IOC_PUT, &r);
}

static inline int lsm_delete(int fd, __u64 key, __u64 len, __u32 flags)
{
	struct sl_lsm_ioc_delete r = { .key = key, .len = len, .flags = flags };

	return lsm_ioc(fd, SL_LSM_IOC_DELETE, &r);
}

static inline int lsm_batch(int fd, struct sl_lsm_ioc_rec *recs, __u32 n,
			    __u32 flags)
{
	struct sl_lsm_ioc_batch r = {
		.recs = (unsigned long)recs, .count = n, .flags = flags,
	};

	return lsm_ioc(fd, SL_LSM_IOC_BATCH, &r);
}

/*
 * One lookup: 0 with *@out filled in (its value in @vbuf), -ENOENT, or
 * the call's -errno.
 */
static inline int lsm_get(int fd, __u64 key, struct sl_lsm_ioc_get_rec *out,
			  void *vbuf, __u32 vbuf_size)
{
	struct sl_lsm_ioc_get_rec rec = {
		.key = key, .value = (unsigned long)vbuf,
		.vbuf_size = vbuf_size,
	};
	struct sl_lsm_ioc_get r = { .recs = (unsigned long)&rec, .count = 1 };
	int ret = lsm_ioc(fd, SL_LSM_IOC_GET, &r);

	if (ret)
		return ret;
	if (out)
		*out = rec;
	return rec.result;
}

static inline int lsm_stats(int fd, struct sl_lsm_ioc_stats *s)
{
	memset(s, 0, sizeof(*s));
	return lsm_ioc(fd, SL_LSM_IOC_STATS, s);
}

static inline int lsm_sync(int fd)
{
	return ioctl(fd, SL_LSM_IOC_SYNC) ? -errno : 0;
}

static inline int lsm_flush(int fd)
{
	return ioctl(fd, SL_LSM_IOC_FLUSH) ? -errno : 0;
}

/*
 * Overwrite @nr blocks of @path from @block with @fill, bypassing the
 * page cache (the store reads the device with bios, not through it).
 */
static inline int lsm_scribble(const char *path, __u64 block, int nr,
			       int fill)
{
	void *buf;
	int fd, ret = 0;

	if (posix_memalign(&buf, LSM_BLOCK, (size_t)nr * LSM_BLOCK))
		return -ENOMEM;
	memset(buf, fill, (size_t)nr * LSM_BLOCK);
	fd = open(path, O_RDWR | O_DIRECT | O_SYNC | O_CLOEXEC);
	if (fd < 0 ||
	    pwrite(fd, buf, (size_t)nr * LSM_BLOCK, block * LSM_BLOCK) !=
	    (ssize_t)nr * LSM_BLOCK)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

/* Flip one byte of block @block of @path (the page cache bypassed). */
static inline int lsm_flip(const char *path, __u64 block, size_t off)
{
	void *buf;
	int fd, ret = 0;

	if (posix_memalign(&buf, LSM_BLOCK, LSM_BLOCK))
		return -ENOMEM;
	fd = open(path, O_RDWR | O_DIRECT | O_SYNC | O_CLOEXEC);
	if (fd < 0 || pread(fd, buf, LSM_BLOCK, block * LSM_BLOCK) != LSM_BLOCK) {
		ret = -errno;
	} else {
		((unsigned char *)buf)[off] ^= 0x5a;
		if (pwrite(fd, buf, LSM_BLOCK, block * LSM_BLOCK) != LSM_BLOCK)
			ret = -errno;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

#endif /* _LSM_IOCTL_H */
