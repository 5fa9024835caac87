/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records the store passes between its layers (memtable, write-ahead
 * log, runs, reads): an extent as put, and the visible piece of one.
 * In memory only; the on-disk forms are in format.h and
 * Documentation/lsm.rst.
 */
#ifndef _LSM_RECORD_H
#define _LSM_RECORD_H

#include <linux/types.h>

/* The device block, and the unit of every on-disk structure. */
#define LSM_BLOCK_SIZE		4096
#define LSM_BLOCK_SHIFT		12

/* The largest value of one extent. */
#define LSM_VALUE_MAX		(64 * 1024)

/* lsm_extent.flags */
#define LSM_EXT_TOMBSTONE	0x1	/* a punch: no value, hides older data */
#define LSM_EXT_FLAGS		LSM_EXT_TOMBSTONE

/**
 * struct lsm_extent - an extent as put (or punched)
 * @key:   first unit of the extent
 * @len:   units, at least 1; @key + @len - 1 never passes U64_MAX
 * @seq:   the store's sequence number of the operation that wrote it:
 *         a newer extent has a higher one
 * @flags: LSM_EXT_*
 * @vlen:  bytes of @value, 0 to LSM_VALUE_MAX (0 for a tombstone)
 * @value: the value; who owns it and for how long is said where an
 *         extent is handed over
 *
 * The value applies to the whole of [@key, @key + @len), as a btrfs file
 * extent item applies to its range: a newer extent that covers part of
 * it leaves the rest visible, and a reader is told both the extent as
 * stored and the window of it that is visible (struct lsm_piece), so it
 * can adjust offsets as btrfs does with extent_offset.
 */
struct lsm_extent {
	u64 key;
	u64 len;
	u64 seq;
	u32 flags;
	u32 vlen;
	const void *value;
};

/**
 * struct lsm_piece - the part of an extent that is visible in one layer
 * @start: first visible unit, within [ext.key, ext.key + ext.len)
 * @len:   visible units, at least 1
 * @ext:   the extent as stored
 *
 * In one layer (a memtable, a run) pieces never overlap: a newer extent
 * trims or hides the older ones of its layer.  Across layers the newer
 * layer wins, and the store clips a piece of an older layer to what the
 * newer layers leave visible.
 */
struct lsm_piece {
	u64 start;
	u64 len;
	struct lsm_extent ext;
};

/* The last unit of [key, key + len), which never wraps. */
static inline u64 lsm_last(u64 key, u64 len)
{
	return key + (len - 1);
}

#endif /* _LSM_RECORD_H */
