/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Windows: the points where an operation has left the list in a transient
 * state that other contexts can see, or has read part of what it needs and
 * not the rest.  Races live in these windows, and a stress run only meets
 * them by luck, so the userspace tests hook every one: to stall the thread
 * there, to run another operation there (on another thread, or on the same
 * one as a simulated interrupt), or to change the list under a reader.
 *
 * In the kernel sl_window() compiles to nothing.  Private to skiplist/ and
 * its tests.
 */
#ifndef _SKIPLIST_WINDOW_H
#define _SKIPLIST_WINDOW_H

struct sl_list;
struct sl_leaf;

enum sl_window {
	/* A lookup's leaf snapshot is open (search.c). */
	SL_WIN_LOOKUP_SNAPSHOT,
	/*
	 * A search is about to leave the leaf the directory named by its
	 * next pointer (@leaf), or to step along level 0 after the towers
	 * (search.c).
	 */
	SL_WIN_SEARCH_HOP,
	/*
	 * A split published its new leaf (@leaf) at level 0 and dropped its
	 * locks; no tower level is linked yet (insert.c).
	 */
	SL_WIN_SPLIT_PUBLISHED,
	/* An insert got a leaf (@leaf) for a split, holding no lock (insert.c). */
	SL_WIN_SPLIT_ALLOCATED,
	/* A new leaf (@leaf) is linked up to @level - 1, not yet @level. */
	SL_WIN_LINK_LEVEL,
	/*
	 * A merge killed @leaf at level 0 and dropped its locks; its tower
	 * and the directory still name it (delete.c).
	 */
	SL_WIN_DELETE_UNLOCKED,
	/* @leaf's tower is unlinked; the directory still names it. */
	SL_WIN_DELETE_UNLINKED,
	/* A delete of @key dropped its locks and has not noted its gap. */
	SL_WIN_DELETE_NOTE,
	/*
	 * Dead @leaf's link at @level is sealed and its gap bound absorbed by
	 * its predecessor, which is locked and still points at it (tower.c).
	 */
	SL_WIN_UNLINK_ABSORBED,
	/*
	 * A tightening of a link at @level read the next pointer of @leaf's
	 * link at @level - 1 and not yet its gap bound (gap.c).
	 */
	SL_WIN_GAP_COUNT_LINK,
	/*
	 * A gap search read the next pointer of @leaf's link at @level and
	 * not yet its gap bound (gap.c).
	 */
	SL_WIN_GAP_SEARCH_LINK,
	/*
	 * A tightening of @leaf's link at @level has recounted its bound and
	 * not stored it; @end is where the span ends, 0 for the end of the
	 * space (gap.c).
	 */
	SL_WIN_GAP_TIGHTEN,
	/*
	 * A rebuild's walk of level 0 left its read-side section between two
	 * chunks; @key is the fence of the last leaf it took (directory.c).
	 */
	SL_WIN_DIR_CHUNK,
	/*
	 * A dying leaf (@leaf) saw a rebuild running and has not queued
	 * itself for it yet (directory.c).
	 */
	SL_WIN_DIR_RETIRE,
	/* A rebuild filled a new directory and has not published it. */
	SL_WIN_DIR_FILLED,
	/*
	 * extent/: an operation over many extents ended one bounded step and
	 * holds no lock and no read-side section.  Here a drop has punched
	 * its range from @key to its end and goes on below @key
	 * (extent_map.c).
	 */
	SL_WIN_EM_DROP_STEP,
	/* A check of an extent map walked the extents below @key. */
	SL_WIN_EM_CHECK_STEP,
	/* sl_range_stats() walked the ranges below @key (range_alloc.c). */
	SL_WIN_RANGE_STATS_STEP,
	/*
	 * A reclaim erased a batch of the cached ranges it took back; @key is
	 * the CPU whose caches it looks at next (range_alloc.c).
	 */
	SL_WIN_RANGE_RECLAIM_STEP,
	/*
	 * sl_stats() left its read-side section between two chunks; it has
	 * counted the slots below @key (list.c).
	 */
	SL_WIN_STATS_CHUNK,
	SL_WIN_NR
};

/**
 * struct sl_window_at - where an operation is, for a window hook
 * @list:  the list
 * @win:   the window
 * @key:   the key the operation works on, where it has one
 * @leaf:  the leaf in the transient state, where there is one
 * @level: the tower level concerned, where there is one
 * @end:   the end of the span concerned (SL_WIN_GAP_TIGHTEN), 0 for the
 *         end of the space
 */
struct sl_window_at {
	struct sl_list *list;
	enum sl_window win;
	unsigned long key;
	struct sl_leaf *leaf;
	unsigned int level;
	unsigned long end;
};

#ifdef __KERNEL__
#define sl_window(...)	do { } while (0)
#else
/* Userspace tests only: called at every window while set (list.c). */
extern void (*sl_window_hook)(const struct sl_window_at *at);

#define sl_window(_list, _win, ...) do {				\
	if (sl_window_hook) {						\
		struct sl_window_at __at = {				\
			.list = (_list), .win = (_win), __VA_ARGS__	\
		};							\
		sl_window_hook(&__at);					\
	}								\
} while (0)
#endif

#endif /* _SKIPLIST_WINDOW_H */
