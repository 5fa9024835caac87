/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thin wrappers over the /dev/skiplist ioctls for the selftests: each
 * returns 0 or -errno, so a test asserts the exact error in one line.
 * What every device's tests share is in selftests/lib/devtest.h.
 */
#ifndef _SL_IOCTL_H
#define _SL_IOCTL_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "devtest.h"
#include "skiplist_dev.h"

#define SL_DEVICE "/dev/skiplist"
#define SL_MISSING SL_DEVICE " missing: load skiplist_dev.ko"

/* A descriptor, or -1 with errno set (-ENOMEM from failslab is retried). */
static inline int sl_open(void)
{
	int fd = dt_open(SL_DEVICE);

	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

static inline int sl_ioc(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static inline int sl_insert(int fd, __u64 key, __u64 size, __u64 value)
{
	struct sl_ioc_insert r = { .key = key, .size = size, .value = value };

	return sl_ioc(fd, SL_IOC_INSERT, &r);
}

static inline int sl_hole_value(int fd, __u64 size, __u64 align, __u64 min,
				__u64 max, __u64 hint, __u64 value, __u64 *key)
{
	struct sl_ioc_insert_hole r = {
		.size = size, .align = align, .min = min, .max = max,
		.hint = hint, .value = value,
	};
	int ret = sl_ioc(fd, SL_IOC_INSERT_HOLE, &r);

	if (!ret && key)
		*key = r.key;
	return ret;
}

static inline int sl_hole(int fd, __u64 size, __u64 align, __u64 min,
			  __u64 max, __u64 hint, __u64 *key)
{
	return sl_hole_value(fd, size, align, min, max, hint, 0, key);
}

static inline int sl_lookup(int fd, __u64 key, struct sl_ioc_extent *out)
{
	struct sl_ioc_lookup r = { .key = key };
	int ret = sl_ioc(fd, SL_IOC_LOOKUP, &r);

	if (!ret && out)
		*out = r.extent;
	return ret;
}

static inline int sl_overlap(int fd, __u64 start, __u64 end,
			     struct sl_ioc_extent *out)
{
	struct sl_ioc_overlap r = { .start = start, .end = end };
	int ret = sl_ioc(fd, SL_IOC_FIRST_OVERLAP, &r);

	if (!ret && out)
		*out = r.extent;
	return ret;
}

static inline int sl_delete(int fd, __u64 key)
{
	struct sl_ioc_delete r = { .key = key };

	return sl_ioc(fd, SL_IOC_DELETE, &r);
}

/* Returns the number of records, or -errno. */
static inline int sl_iterate(int fd, __u64 from, bool backward,
			     struct sl_ioc_extent *recs, __u32 max)
{
	struct sl_ioc_iterate r = {
		.key = from, .records = (unsigned long)recs, .max = max,
		.flags = backward ? SL_ITER_BACKWARD : 0,
	};
	int ret = sl_ioc(fd, SL_IOC_ITERATE, &r);

	return ret ? ret : (int)r.count;
}

static inline int sl_stats(int fd, struct sl_ioc_stats *st)
{
	memset(st, 0, sizeof(*st));
	return sl_ioc(fd, SL_IOC_STATS, st);
}

static inline int sl_check(int fd)
{
	return ioctl(fd, SL_IOC_CHECK) ? -errno : 0;
}

static inline int sl_clear(int fd)
{
	return ioctl(fd, SL_IOC_CLEAR) ? -errno : 0;
}

#endif /* _SL_IOCTL_H */
