/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/sl_extent: the extent map and the range allocator driven from
 * userspace.
 *
 * Every open file description owns one extent map, empty at open, and one
 * range allocator, which SL_RA_IOC_INIT creates; closing the descriptor
 * frees both.  Many threads may issue ioctls on one descriptor at once;
 * that is how userspace exercises the concurrent paths of both.
 *
 * The node is root-only (0600) and every ioctl also requires
 * CAP_SYS_ADMIN (-EPERM otherwise).  Every structure has a fixed layout
 * with explicit padding.  "flags" must hold only the flags documented for
 * the command, and "reserved" and "pad" must be zero, else -EINVAL, so
 * that they can be given meaning later.  A range [start, start + len)
 * must not wrap: its last unit, start + len - 1, must not pass 2^64 - 1
 * (-EINVAL, not -EOVERFLOW).
 *
 * Errors common to all commands: -EPERM (no CAP_SYS_ADMIN), -EFAULT (bad
 * user pointer), -EINVAL (unknown flags, non-zero reserved or pad, or an
 * argument out of range as described per command; the kernel log names
 * the problem), -ENOTTY (unknown command), -ENOMEM, and -EINTR when a
 * fatal signal ends the wait for an SL_RA_IOC_INIT or SL_EM_IOC_CHECK on
 * the descriptor (the caller is dying and never sees it).  Arguments are
 * checked before anything else, so a malformed allocator command gets
 * -EINVAL even before SL_RA_IOC_INIT.  -ENOENT, -EEXIST and -ENOSPC are
 * ordinary results, not misuse.
 *
 * Results: a command reads its whole request before it touches the map
 * or the allocator and writes its result back after; a user page that
 * stalls (userfaultfd) holds up only the thread that passed it.
 * SL_RA_IOC_ALLOC, the one command that creates something and returns a
 * result, first writes its request's @start back unchanged: if that
 * faults, it fails with -EFAULT and allocates nothing.  If the result
 * cannot be written all the same (another thread unmapped or
 * write-protected the page meanwhile), the range stays allocated until it
 * is freed or the descriptor closed, and the call still fails with
 * -EFAULT: an allocation is never undone, because by then another thread
 * may have freed the range and been handed it again, and an undo would
 * free that thread's range.
 */
#ifndef _UAPI_SL_EXTENT_DEV_H
#define _UAPI_SL_EXTENT_DEV_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define SL_EXT_IOC_MAGIC	0xba

/* The largest space SL_RA_INIT_SHADOW covers, in units: 2^28. */
#define SL_RA_SHADOW_MAX	0x10000000ULL

/* ----- The extent map: file offset -> disk address ----- */

/**
 * struct sl_em_ioc_extent - one extent of the map
 * @start:      file offset of the first unit mapped
 * @len:        units mapped, >= 1
 * @disk_start: disk address of the first unit; @disk_start + @len - 1
 *              must not wrap either
 * @flags:      the extent's own flags, any value; only extents with equal
 *              flags merge
 * @pad:        zero
 */
struct sl_em_ioc_extent {
	__u64 start;
	__u64 len;
	__u64 disk_start;
	__u32 flags;
	__u32 pad;
};

/* SL_EM_IOC_ADD flags */
#define SL_EM_ADD_MERGE	0x1	/* merge with neighbours contiguous on disk */

/**
 * struct sl_em_ioc_add - SL_EM_IOC_ADD: map a range
 * @extent: the new extent
 * @flags:  SL_EM_ADD_MERGE or 0
 * @reserved: zero
 *
 * -EEXIST if it overlaps an extent of the map (the map is unchanged).
 * With SL_EM_ADD_MERGE the new extent absorbs the extent ending right
 * where it starts and the one starting right where it ends, each if its
 * disk range continues the new one's and its flags are equal (an extent
 * that would cover all 2^64 offsets is not merged at its end); readers
 * see the merge whole or not at all.
 */
struct sl_em_ioc_add {
	struct sl_em_ioc_extent extent;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_em_ioc_lookup - SL_EM_IOC_LOOKUP: the extent mapping an offset
 * @offset: the file offset looked up
 * @extent: out: the extent containing @offset; -ENOENT if none does
 * @flags:    zero
 * @reserved: zero
 */
struct sl_em_ioc_lookup {
	__u64 offset;
	struct sl_em_ioc_extent extent;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_em_ioc_range - a range of file offsets
 * @start:  first unit
 * @len:    units, >= 1
 * @extent: out, SL_EM_IOC_FIRST_OVERLAP only: the extent with the lowest
 *          start among those overlapping the range; -ENOENT if none
 * @flags:    zero
 * @reserved: zero
 *
 * SL_EM_IOC_FIRST_OVERLAP: find the first extent meeting the range.
 * SL_EM_IOC_DROP: unmap the range, a punch: extents inside it go, extents
 * straddling its ends are trimmed (one spanning all of it is split in
 * two).  0 even if nothing was mapped there; @extent is ignored.
 */
struct sl_em_ioc_range {
	__u64 start;
	__u64 len;
	struct sl_em_ioc_extent extent;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_em_ioc_next - SL_EM_IOC_NEXT: iterate the map in offset order
 * @pos:    where to look from
 * @extent: out: the first extent that ends after @pos, the one containing
 *          @pos or else the lowest starting above it; -ENOENT if none
 * @flags:    zero
 * @reserved: zero
 *
 * To continue, call again with @pos = @extent.start + @extent.len (if
 * that wraps to 0, the extent reached the last offset and the walk is
 * over).
 */
struct sl_em_ioc_next {
	__u64 pos;
	struct sl_em_ioc_extent extent;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_em_ioc_remove - SL_EM_IOC_REMOVE: remove one whole extent
 * @start: the extent's first unit, exactly; -ENOENT if no extent starts
 *         there
 * @flags:    zero
 * @reserved: zero
 */
struct sl_em_ioc_remove {
	__u64 start;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_em_ioc_count - SL_EM_IOC_COUNT: the number of extents
 * @count: out: extents in the map
 * @flags:    zero
 * @reserved: zero
 */
struct sl_em_ioc_count {
	__u64 count;
	__u32 flags;
	__u32 reserved;
};

/* ----- The range allocator ----- */

/* SL_RA_IOC_INIT flags */
#define SL_RA_INIT_SHADOW	0x1	/* check every operation on a bitmap */

/**
 * struct sl_ra_ioc_init - SL_RA_IOC_INIT: create the descriptor's allocator
 * @start: first unit of the space
 * @end:   end of the space, exclusive, above @start (-EINVAL otherwise);
 *         0 means up to and including 2^64 - 1
 * @flags: SL_RA_INIT_SHADOW or 0.  The shadow bitmap keeps one bit per
 *         unit and counts every overlap or bad free the allocator lets
 *         through (SL_RA_IOC_SHADOW); it needs @end != 0 and a space of
 *         at most SL_RA_SHADOW_MAX units (-EINVAL otherwise).
 * @reserved: zero
 *
 * Once per descriptor: -EBUSY if it already has an allocator.  Until
 * then every other SL_RA_IOC_* command fails with -ENXIO.
 */
struct sl_ra_ioc_init {
	__u64 start;
	__u64 end;
	__u32 flags;
	__u32 reserved;
};

/* SL_RA_IOC_ALLOC flags */
#define SL_RA_ALLOC_PERCPU	0x1	/* anywhere, from this CPU's hint */

/**
 * struct sl_ra_ioc_alloc - SL_RA_IOC_ALLOC: allocate a range
 * @size:  units, >= 1
 * @align: alignment of the start (relative to unit 0), a power of two
 * @min:   lowest start allowed; below the space means the space's start
 * @max:   the range must end at or before @max; 0, or beyond the space,
 *         means the space's end.  Non-zero and at or below @min: -EINVAL.
 *         A window [@min, @max) entirely outside the space: -ERANGE.
 * @hint:  where to start looking; the search wraps to @min if nothing
 *         fits above it.  Outside the window it is ignored.
 * @start: out: the first unit of the range allocated (see "Results"
 *         above for a @start that cannot be written)
 * @flags: 0, or SL_RA_ALLOC_PERCPU: search the whole space from where the
 *         calling CPU's last allocation ended, so that threads on
 *         different CPUs work in different parts of the index; @min,
 *         @max and @hint must then be 0 (-EINVAL)
 * @reserved: zero
 *
 * -ENOSPC if no free range of the window fits.
 */
struct sl_ra_ioc_alloc {
	__u64 size;
	__u64 align;
	__u64 min;
	__u64 max;
	__u64 hint;
	__u64 start;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_ra_ioc_range - a range of the allocator's space
 * @start: first unit
 * @size:  units, >= 1
 * @flags:    zero
 * @reserved: zero
 *
 * Both must lie inside the space: -ERANGE otherwise.
 * SL_RA_IOC_FREE: return a range allocated or reserved earlier, with the
 * size it was given: -ENOENT if no live range starts at @start (a double
 * free, or a start inside a range), -EINVAL if the one there has another
 * size (it stays allocated).
 * SL_RA_IOC_RESERVE: claim exactly this range: -EEXIST if any of it is in
 * use.  A reserved range is freed like an allocated one.
 */
struct sl_ra_ioc_range {
	__u64 start;
	__u64 size;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_ra_ioc_stats - SL_RA_IOC_STATS: the allocator's space
 * @size:          units in the space (2^64 - 1 for the whole of 64 bits,
 *                 where the figures saturate)
 * @free:          units neither allocated nor reserved
 * @ranges:        live ranges
 * @largest_free:  the longest run of free units
 * @fragmentation: per mille of the free space outside its longest run
 *                 (0: all free space is one run)
 * @flags:    zero
 * @reserved: zero
 *
 * A snapshot: exact only while no other thread allocates or frees.
 */
struct sl_ra_ioc_stats {
	__u64 size;
	__u64 free;
	__u64 ranges;
	__u64 largest_free;
	__u64 fragmentation;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct sl_ra_ioc_shadow - SL_RA_IOC_SHADOW: the shadow bitmap's verdict
 * @errors: out: overlapping allocations and frees of free units seen so
 *          far; 0 unless the allocator is broken
 * @flags:    zero
 * @reserved: zero
 *
 * -ENODATA if the allocator was created without SL_RA_INIT_SHADOW.
 */
struct sl_ra_ioc_shadow {
	__u64 errors;
	__u32 flags;
	__u32 reserved;
};

#define SL_EM_IOC_ADD		_IOWR(SL_EXT_IOC_MAGIC, 1, struct sl_em_ioc_add)
#define SL_EM_IOC_LOOKUP	_IOWR(SL_EXT_IOC_MAGIC, 2, struct sl_em_ioc_lookup)
#define SL_EM_IOC_FIRST_OVERLAP	_IOWR(SL_EXT_IOC_MAGIC, 3, struct sl_em_ioc_range)
#define SL_EM_IOC_NEXT		_IOWR(SL_EXT_IOC_MAGIC, 4, struct sl_em_ioc_next)
#define SL_EM_IOC_REMOVE	_IOWR(SL_EXT_IOC_MAGIC, 5, struct sl_em_ioc_remove)
#define SL_EM_IOC_DROP		_IOWR(SL_EXT_IOC_MAGIC, 6, struct sl_em_ioc_range)
#define SL_EM_IOC_COUNT		_IOWR(SL_EXT_IOC_MAGIC, 7, struct sl_em_ioc_count)
/*
 * Check the map (other ioctls on the descriptor wait meanwhile): the
 * index's invariants, extents sorted, disjoint and well formed, and the
 * count: 0, or -EUCLEAN with the violation in the kernel log.
 */
#define SL_EM_IOC_CHECK		_IO(SL_EXT_IOC_MAGIC, 8)

#define SL_RA_IOC_INIT		_IOWR(SL_EXT_IOC_MAGIC, 16, struct sl_ra_ioc_init)
#define SL_RA_IOC_ALLOC		_IOWR(SL_EXT_IOC_MAGIC, 17, struct sl_ra_ioc_alloc)
#define SL_RA_IOC_FREE		_IOWR(SL_EXT_IOC_MAGIC, 18, struct sl_ra_ioc_range)
#define SL_RA_IOC_RESERVE	_IOWR(SL_EXT_IOC_MAGIC, 19, struct sl_ra_ioc_range)
#define SL_RA_IOC_STATS		_IOWR(SL_EXT_IOC_MAGIC, 20, struct sl_ra_ioc_stats)
#define SL_RA_IOC_SHADOW	_IOWR(SL_EXT_IOC_MAGIC, 21, struct sl_ra_ioc_shadow)

#endif /* _UAPI_SL_EXTENT_DEV_H */
