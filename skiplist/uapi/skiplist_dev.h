/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/skiplist: the skiplist range index driven from userspace.
 *
 * Every open file description owns an independent, initially empty index
 * of extents [key, key + size), each carrying a 64-bit value.  Closing it
 * frees the index.  Many threads may issue ioctls on one descriptor at
 * once; that is how userspace exercises the index's concurrent paths.
 *
 * The node is root-only (0600) and every ioctl also requires
 * CAP_SYS_ADMIN (-EPERM otherwise).  All structures have a fixed layout
 * with explicit padding; "flags" must hold only the flags documented for
 * the command and "reserved" must be zero, else -EINVAL, so both can be
 * given meaning later.
 *
 * Errors common to all commands: -EPERM (no CAP_SYS_ADMIN), -EFAULT (bad
 * user pointer), -EINVAL (unknown flags, non-zero reserved, or an argument
 * out of range as described per command), -ENOTTY (unknown command),
 * -ENOMEM, and -EINTR when a fatal signal ends the wait for a CLEAR or
 * CHECK on the descriptor (the caller is dying and never sees it).
 *
 * Results: a command reads its whole request before it touches the index
 * and writes its result back after; a user page that stalls (userfaultfd)
 * holds up only the thread that passed it.  SL_IOC_INSERT_HOLE, the one
 * command that creates something and returns a result, first writes its
 * request's @key back unchanged: if that faults, it fails with -EFAULT
 * and inserts nothing.  If the result cannot be written all the same
 * (another thread unmapped or write-protected the page meanwhile), the
 * extent stays in the index and the call still fails with -EFAULT: it is
 * never undone, because by then another thread may have deleted it and
 * been given the same range, which an undo would delete.
 */
#ifndef _UAPI_SKIPLIST_DEV_H
#define _UAPI_SKIPLIST_DEV_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define SL_IOC_MAGIC		0xb9

/* Most records one SL_IOC_ITERATE call returns. */
#define SL_IOC_ITERATE_MAX	4096

/* Tower heights reported by SL_IOC_STATS. */
#define SL_IOC_MAX_HEIGHT	24

/**
 * struct sl_ioc_extent - one extent as returned to userspace
 * @key:   first unit
 * @size:  units covered
 * @value: the value given when it was inserted
 */
struct sl_ioc_extent {
	__u64 key;
	__u64 size;
	__u64 value;
};

/**
 * struct sl_ioc_insert - SL_IOC_INSERT: insert [key, key + size)
 * @key:    first unit of the extent
 * @size:   units it covers; >= 1, and key + size - 1 must not wrap past
 *          2^64 - 1 (-EINVAL)
 * @value:  its value
 * @flags:    zero
 * @reserved: zero
 *
 * -EEXIST if it overlaps an extent in the index.
 */
struct sl_ioc_insert {
	__u64 key;
	__u64 size;
	__u64 value;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_ioc_insert_hole - SL_IOC_INSERT_HOLE: claim a free range
 * @size:   units to claim, >= 1
 * @align:  alignment of the start, a power of two
 * @min:    lowest start allowed
 * @max:    end of the window, exclusive; 0 means no limit (up to and
 *          including 2^64 - 1); otherwise must be above @min
 * @hint:   where to start looking; the search wraps to @min.  Outside the
 *          window it is ignored.
 * @value:  value of the new extent
 * @key:    out: the start claimed (see "Results" above for a @key that
 *          cannot be written)
 * @flags:    zero
 * @reserved: zero
 *
 * Finds the lowest fitting start at or above @hint (else at or above @min)
 * and inserts the extent there atomically.  -ENOSPC if nothing fits.
 */
struct sl_ioc_insert_hole {
	__u64 size;
	__u64 align;
	__u64 min;
	__u64 max;
	__u64 hint;
	__u64 value;
	__u64 key;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_ioc_lookup - SL_IOC_LOOKUP: the extent containing a key
 * @key:    the unit looked up
 * @extent: out: the extent; -ENOENT if none contains @key
 * @flags:    zero
 * @reserved: zero
 */
struct sl_ioc_lookup {
	__u64 key;
	struct sl_ioc_extent extent;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_ioc_overlap - SL_IOC_FIRST_OVERLAP: first extent meeting a range
 * @start:  first unit of the range
 * @end:    one past its last unit; must be above @start (-EINVAL)
 * @extent: out: the overlapping extent with the lowest key; -ENOENT if none
 * @flags:    zero
 * @reserved: zero
 */
struct sl_ioc_overlap {
	__u64 start;
	__u64 end;
	struct sl_ioc_extent extent;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_ioc_delete - SL_IOC_DELETE: remove the extent starting at @key
 * @key: its first unit, exactly; -ENOENT if no extent starts there
 * @flags:    zero
 * @reserved: zero
 */
struct sl_ioc_delete {
	__u64 key;
	__u32 flags;
	__u32 reserved;
};

/* SL_IOC_ITERATE flags */
#define SL_ITER_BACKWARD	0x1	/* descending keys, from below @key */
#define SL_ITER_FROM_END	0x2	/* with BACKWARD: from the very end */

/**
 * struct sl_ioc_iterate - SL_IOC_ITERATE: extents in key order
 * @key:     where to start: forward, the first extent returned is the first
 *           with a key >= @key; backward, the last with a key < @key;
 *           0 with SL_ITER_FROM_END
 * @records: user address of an array of struct sl_ioc_extent
 * @max:     its capacity, 0..SL_IOC_ITERATE_MAX (-EINVAL above)
 * @count:   out: records written; fewer than @max means the end was reached
 * @flags:   0, SL_ITER_BACKWARD, or SL_ITER_BACKWARD | SL_ITER_FROM_END:
 *           backward from past the last key, so that the first record is
 *           the extent with the highest key, even one at 2^64 - 1, which
 *           no @key below could reach.  SL_ITER_FROM_END without
 *           SL_ITER_BACKWARD, or with a non-zero @key: -EINVAL.
 * @reserved: zero
 *
 * To continue, call again with @key just past the last record returned
 * (its key + 1 forward, its key backward, without SL_ITER_FROM_END).
 */
struct sl_ioc_iterate {
	__u64 key;
	__u64 records;
	__u32 max;
	__u32 count;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_ioc_stats - SL_IOC_STATS: a summary of the index
 * @items:     extents in the index
 * @leaves:    leaves of the index
 * @bytes:     bytes the index allocated for its leaves and its leaf directory
 * @key_loads: keys loaded by searches of all indexes since skiplist.ko
 *             was loaded
 * @height:    leaves per tower height, those of height h at index h - 1
 * @flags:    zero
 * @reserved: zero
 */
struct sl_ioc_stats {
	__u64 items;
	__u64 leaves;
	__u64 bytes;
	__u64 key_loads;
	__u64 height[SL_IOC_MAX_HEIGHT];
	__u32 flags;
	__u32 reserved;
};

#define SL_IOC_INSERT		_IOW(SL_IOC_MAGIC, 1, struct sl_ioc_insert)
#define SL_IOC_INSERT_HOLE	_IOWR(SL_IOC_MAGIC, 2, struct sl_ioc_insert_hole)
#define SL_IOC_LOOKUP		_IOWR(SL_IOC_MAGIC, 3, struct sl_ioc_lookup)
#define SL_IOC_FIRST_OVERLAP	_IOWR(SL_IOC_MAGIC, 4, struct sl_ioc_overlap)
#define SL_IOC_DELETE		_IOW(SL_IOC_MAGIC, 5, struct sl_ioc_delete)
#define SL_IOC_ITERATE		_IOWR(SL_IOC_MAGIC, 6, struct sl_ioc_iterate)
#define SL_IOC_STATS		_IOWR(SL_IOC_MAGIC, 7, struct sl_ioc_stats)
/* Remove every extent. */
#define SL_IOC_CLEAR		_IO(SL_IOC_MAGIC, 8)
/*
 * Check every invariant of the index (other ioctls on the descriptor wait
 * meanwhile): 0, or -EUCLEAN with the violation in the kernel log.
 */
#define SL_IOC_CHECK		_IO(SL_IOC_MAGIC, 9)

#endif /* _UAPI_SKIPLIST_DEV_H */
