/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thin wrappers over the /dev/sl_extent ioctls for the selftests: each
 * returns 0 or -errno, so a test asserts the exact error in one line.
 * What every device's tests share is in selftests/lib/devtest.h.
 */
#ifndef _SX_IOCTL_H
#define _SX_IOCTL_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "devtest.h"
#include "sl_extent_dev.h"

#define SX_DEVICE "/dev/sl_extent"
#define SX_MISSING SX_DEVICE " missing: load sl_extent_dev.ko"

/* A descriptor, or -1 with errno set (-ENOMEM from failslab is retried). */
static inline int sx_open(void)
{
	int fd = dt_open(SX_DEVICE);

	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

static inline int sx_ioc(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/* ----- extent map ----- */

static inline int sx_em_add(int fd, __u64 start, __u64 len, __u64 disk,
			    __u32 eflags, bool merge)
{
	struct sl_em_ioc_add r = {
		.extent = { .start = start, .len = len, .disk_start = disk,
			    .flags = eflags },
		.flags = merge ? SL_EM_ADD_MERGE : 0,
	};

	return sx_ioc(fd, SL_EM_IOC_ADD, &r);
}

static inline int sx_em_lookup(int fd, __u64 offset,
			       struct sl_em_ioc_extent *out)
{
	struct sl_em_ioc_lookup r = { .offset = offset };
	int ret = sx_ioc(fd, SL_EM_IOC_LOOKUP, &r);

	if (!ret && out)
		*out = r.extent;
	return ret;
}

static inline int sx_em_overlap(int fd, __u64 start, __u64 len,
				struct sl_em_ioc_extent *out)
{
	struct sl_em_ioc_range r = { .start = start, .len = len };
	int ret = sx_ioc(fd, SL_EM_IOC_FIRST_OVERLAP, &r);

	if (!ret && out)
		*out = r.extent;
	return ret;
}

static inline int sx_em_next(int fd, __u64 pos, struct sl_em_ioc_extent *out)
{
	struct sl_em_ioc_next r = { .pos = pos };
	int ret = sx_ioc(fd, SL_EM_IOC_NEXT, &r);

	if (!ret && out)
		*out = r.extent;
	return ret;
}

static inline int sx_em_remove(int fd, __u64 start)
{
	struct sl_em_ioc_remove r = { .start = start };

	return sx_ioc(fd, SL_EM_IOC_REMOVE, &r);
}

static inline int sx_em_drop(int fd, __u64 start, __u64 len)
{
	struct sl_em_ioc_range r = { .start = start, .len = len };

	return sx_ioc(fd, SL_EM_IOC_DROP, &r);
}

/* The number of extents, or -errno. */
static inline long sx_em_count(int fd)
{
	struct sl_em_ioc_count r = { 0 };
	int ret = sx_ioc(fd, SL_EM_IOC_COUNT, &r);

	return ret ? ret : (long)r.count;
}

static inline int sx_em_check(int fd)
{
	return ioctl(fd, SL_EM_IOC_CHECK) ? -errno : 0;
}

/* ----- range allocator ----- */

static inline int sx_ra_init(int fd, __u64 start, __u64 end, __u32 flags)
{
	struct sl_ra_ioc_init r = { .start = start, .end = end, .flags = flags };

	return sx_ioc(fd, SL_RA_IOC_INIT, &r);
}

static inline int sx_ra_alloc(int fd, __u64 size, __u64 align, __u64 min,
			      __u64 max, __u64 hint, __u64 *start)
{
	struct sl_ra_ioc_alloc r = {
		.size = size, .align = align, .min = min, .max = max,
		.hint = hint,
	};
	int ret = sx_ioc(fd, SL_RA_IOC_ALLOC, &r);

	if (!ret && start)
		*start = r.start;
	return ret;
}

static inline int sx_ra_alloc_cpu(int fd, __u64 size, __u64 align,
				  __u64 *start)
{
	struct sl_ra_ioc_alloc r = {
		.size = size, .align = align, .flags = SL_RA_ALLOC_PERCPU,
	};
	int ret = sx_ioc(fd, SL_RA_IOC_ALLOC, &r);

	if (!ret && start)
		*start = r.start;
	return ret;
}

static inline int sx_ra_free(int fd, __u64 start, __u64 size)
{
	struct sl_ra_ioc_range r = { .start = start, .size = size };

	return sx_ioc(fd, SL_RA_IOC_FREE, &r);
}

static inline int sx_ra_reserve(int fd, __u64 start, __u64 size)
{
	struct sl_ra_ioc_range r = { .start = start, .size = size };

	return sx_ioc(fd, SL_RA_IOC_RESERVE, &r);
}

static inline int sx_ra_stats(int fd, struct sl_ra_ioc_stats *st)
{
	memset(st, 0, sizeof(*st));
	return sx_ioc(fd, SL_RA_IOC_STATS, st);
}

/* The shadow bitmap's error count, or -errno. */
static inline long sx_ra_shadow(int fd)
{
	struct sl_ra_ioc_shadow r = { 0 };
	int ret = sx_ioc(fd, SL_RA_IOC_SHADOW, &r);

	return ret ? ret : (long)r.errors;
}

#endif /* _SX_IOCTL_H */
