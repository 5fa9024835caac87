/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A range allocator on the skiplist: hands out and takes back ranges of a
 * space [start, end) (device sectors, IO virtual page numbers).  Every live
 * range is a slot in the list; a free range is a gap between slots, found
 * in logarithmic time by the list's gap index (skiplist/gap.c).
 *
 * Callers need no lock.  Allocations from different CPUs start their search
 * at different places (a hint per CPU), so that they land in different
 * leaves and do not contend.
 *
 * With SL_RANGE_CACHE, each CPU keeps small ranges it freed, by size, and
 * hands them out again without touching the index (as the IOVA
 * allocator's per-CPU magazines do): they stay in the index, marked as
 * cached, so a double free is still caught.
 */
#ifndef _SL_RANGE_ALLOC_H
#define _SL_RANGE_ALLOC_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include "skiplist.h"

struct sl_range_shadow;
struct sl_range_cache;
struct dentry;

/**
 * struct sl_range_alloc - a range allocator
 * @list:   live ranges, as slots
 * @start:  first unit of the space
 * @end:    end of the space, exclusive (0: up to ULONG_MAX inclusive)
 * @hint:   per CPU, where the next allocation on that CPU starts looking
 * @debug:  shadow bitmap checking, when enabled at init (may be NULL)
 * @cache:  per CPU, freed ranges kept for reuse (NULL without
 *          SL_RANGE_CACHE)
 * @reclaimed: cached ranges taken back by requests that found no room
 * @debugfs: the allocator's directory in debugfs, or NULL
 *          (sl_range_debugfs_add())
 *
 * Fields are private.
 */
struct sl_range_alloc {
	struct sl_list list;
	unsigned long start;
	unsigned long end;
	unsigned long __percpu *hint;
	struct sl_range_shadow *debug;
	struct sl_range_cache __percpu *cache;
	atomic_long_t reclaimed;
	struct dentry *debugfs;
};

/**
 * struct sl_range_stats - what sl_range_stats() reports
 * @size:          units in the space
 * @free:          units not allocated or reserved
 * @ranges:        live ranges (allocated and reserved)
 * @largest_free:  the largest run of free units
 * @fragmentation: per mille of free space outside the largest free run
 *                 (0: all free space is one run)
 */
struct sl_range_stats {
	unsigned long size;
	unsigned long free;
	unsigned long ranges;
	unsigned long largest_free;
	unsigned int fragmentation;
};

/* Flags for sl_range_init(). */
#define SL_RANGE_SHADOW	0x1	/* check every operation on a bitmap */
#define SL_RANGE_CACHE	0x2	/* per-CPU caches of freed small ranges */

/*
 * The sizes a cache keeps, 1 to this many units, and how many of each.
 * 64, not the IOVA allocator's 32: a 255-sector block request that starts
 * inside a page spans 33 pages.
 */
#define SL_RANGE_CACHE_SIZES	64
#define SL_RANGE_CACHE_DEPTH	16
/* Ranges each CPU remembers handing out, for frees without a lookup. */
#define SL_RANGE_RECENT_BITS	10
#define SL_RANGE_RECENT		BIT(SL_RANGE_RECENT_BITS)

/*
 * The most ranges sl_range_stats() walks in one read-side section, and a
 * reclaim takes back from the caches between two chances to reschedule:
 * what bounds the time a CPU spends atomically on a space of any size.
 * The userspace tests build with small values, to meet the boundaries.
 */
#ifndef SL_RANGE_BATCH
#define SL_RANGE_BATCH		64
#endif
#ifndef SL_RANGE_RECLAIM_BATCH
#define SL_RANGE_RECLAIM_BATCH	(2 * SL_RANGE_CACHE_DEPTH)
#endif

int sl_range_init(struct sl_range_alloc *ra, unsigned long start,
		  unsigned long end, unsigned int flags, gfp_t gfp);
void sl_range_destroy(struct sl_range_alloc *ra);
int sl_range_alloc(struct sl_range_alloc *ra, unsigned long size,
		   unsigned long align, unsigned long min, unsigned long max,
		   unsigned long hint, unsigned long *out, gfp_t gfp);
int sl_range_alloc_cpu(struct sl_range_alloc *ra, unsigned long size,
		       unsigned long align, unsigned long *out, gfp_t gfp);
int sl_range_reserve(struct sl_range_alloc *ra, unsigned long start,
		     unsigned long size, gfp_t gfp);
int sl_range_free(struct sl_range_alloc *ra, unsigned long start,
		  unsigned long size);
void sl_range_stats(struct sl_range_alloc *ra, struct sl_range_stats *stats);
long sl_range_shadow_errors(struct sl_range_alloc *ra);
int sl_range_debugfs_add(struct sl_range_alloc *ra, struct dentry *parent,
			 const char *name);
void sl_range_debugfs_remove(struct sl_range_alloc *ra);

#endif /* _SL_RANGE_ALLOC_H */
