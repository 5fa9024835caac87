/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An extent map on the skiplist: which disk extent backs each range of a
 * file, the structure a btrfs-style filesystem keeps per inode.
 *
 * Lookups are lockless (RCU plus a sequence count, so that a reader sees a
 * multi-extent change whole or not at all).  Writers that change one extent
 * share the map and rely on the skiplist's per-leaf locks; writers that
 * change several at once (merge, punch) take the map exclusively, a punch
 * of many extents in steps of at most SL_EM_BATCH.
 * The full contract is in Documentation/extent.rst.
 */
#ifndef _SL_EXTENT_MAP_H
#define _SL_EXTENT_MAP_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include "skiplist.h"

struct dentry;

/**
 * struct sl_extent_info - an extent as callers see it (a copy)
 * @start:      file offset of the first unit mapped
 * @len:        units mapped, at least 1
 * @disk_start: disk address of the first unit
 * @flags:      caller's flags; only extents with equal flags merge
 */
struct sl_extent_info {
	u64 start;
	u64 len;
	u64 disk_start;
	u32 flags;
};

/**
 * struct sl_extent_map - the map of one file
 * @list: the extents, as slots keyed by file offset
 * @lock: shared by single-extent writers, exclusive for merge and punch;
 *        taken with bottom halves disabled
 * @seq:  written under @lock held exclusively; readers retry across it
 * @nr:   extents in @list; a multi-extent writer changes it inside its
 *        write section of @seq, so that a count is never half of one
 *
 * Fields are private.
 */
struct sl_extent_map {
	struct sl_list list;
	rwlock_t lock;
	seqcount_rwlock_t seq;
	atomic_long_t nr;
};

/*
 * The most extents a punch changes in one write section, and a check
 * walks in one read-side section: what bounds the time a CPU holds the map
 * (and readers spin) on a map of any size.  The userspace tests build with
 * a small value, so that their punches cross step boundaries often.
 */
#ifndef SL_EM_BATCH
#define SL_EM_BATCH	64
#endif

/* Modes for sl_em_add(). */
#define SL_EM_MERGE	0x1	/* merge with neighbours contiguous on disk */

int sl_em_init(struct sl_extent_map *em, gfp_t gfp);
void sl_em_destroy(struct sl_extent_map *em);
int sl_em_debugfs_add(struct sl_extent_map *em, struct dentry *parent,
		      const char *name);
void sl_em_debugfs_remove(struct sl_extent_map *em);
int sl_em_add(struct sl_extent_map *em, const struct sl_extent_info *ext,
	      unsigned int mode, gfp_t gfp);
int sl_em_lookup(struct sl_extent_map *em, u64 offset,
		 struct sl_extent_info *out);
int sl_em_first_overlap(struct sl_extent_map *em, u64 start, u64 len,
			struct sl_extent_info *out);
int sl_em_next(struct sl_extent_map *em, u64 pos, struct sl_extent_info *out);
int sl_em_remove(struct sl_extent_map *em, u64 start);
int sl_em_replace(struct sl_extent_map *em, const struct sl_extent_info *info,
		  struct sl_extent_info *old, gfp_t gfp);
int sl_em_drop_range(struct sl_extent_map *em, u64 start, u64 len, gfp_t gfp);
unsigned long sl_em_count(struct sl_extent_map *em);
int sl_em_check(struct sl_extent_map *em);

/**
 * struct sl_em_cursor - a walk over a map, from an offset on
 * @pos:  where the next step looks from
 * @done: the walk passed an extent that reaches the last offset
 *
 * Set it up with SL_EM_CURSOR(offset) and call sl_em_walk() until it
 * returns false.
 */
struct sl_em_cursor {
	u64 pos;
	bool done;
};

#define SL_EM_CURSOR(start)	((struct sl_em_cursor){ .pos = (start) })

/**
 * sl_em_walk() - the next extent of a walk
 * @em:  the map
 * @cur: the cursor, advanced past the extent returned
 * @out: filled in with a copy of the extent
 *
 * Each step is one sl_em_next() call: an extent that changes between two
 * steps may be seen in its old or its new form, and one that grew back
 * over the cursor is seen again, but each step sees the map whole, never
 * half of a merge or punch, and an extent that stays in the map during
 * the walk is seen.
 *
 * Context: as sl_em_next().
 * Return: true with the extent in @out; false at the end of the map.
 */
static inline bool sl_em_walk(struct sl_extent_map *em,
			      struct sl_em_cursor *cur,
			      struct sl_extent_info *out)
{
	if (cur->done || sl_em_next(em, cur->pos, out))
		return false;
	/* Wraps to 0 after an extent that reaches U64_MAX: the end. */
	cur->pos = out->start + out->len;
	cur->done = !cur->pos;
	return true;
}

#endif /* _SL_EXTENT_MAP_H */
