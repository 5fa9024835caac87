/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The block cache of a store: checked data and value blocks of its runs,
 * kept in pages, up to a bound in bytes, so that a lookup that finds its
 * block here neither reads it nor checks it again.  One per open store;
 * a run registers with it as an owner and drops its blocks when it is
 * closed.  Lookups are lockless (RCU and a reference per block held);
 * insertions, evictions and drops take the cache's one lock; a shrinker
 * gives the memory back under pressure.  Design, locking and figures:
 * Documentation/lsm.rst, "Block cache"; the rules in block_cache.c.
 */
#ifndef _LSM_BLOCK_CACHE_H
#define _LSM_BLOCK_CACHE_H

#include <linux/gfp.h>
#include <linux/types.h>

/* The size of a store's cache unless its options say otherwise. */
#define LSM_BLOCK_CACHE_DEFAULT	(8ULL << 20)
/* The largest cache a store may ask for (its hash table: 8 B per block). */
#define LSM_BLOCK_CACHE_MAX	(16ULL << 30)

struct lsm_block_cache;
struct lsm_cached_block;

/**
 * struct lsm_cache_owner - a run, as the cache knows it
 * @id:      names the owner's blocks in the cache; unique among the
 *           owners of one cache, never reused (not the run's id, which
 *           another store's image, attached later, may share)
 * @blocks:  its blocks are numbered below this (a run's data region)
 * @dropped: lsm_block_cache_drop() has run: nothing may be inserted
 *           (a lookup finds nothing)
 *
 * Embedded in the run; lsm_block_cache_owner_init() fills it in.
 */
struct lsm_cache_owner {
	u64 id;
	u32 blocks;
	bool dropped;
};

/*
 * What a block is looked up or inserted for.  A scan's blocks go in only
 * while the cache has room, and then at the cold end, the first to be
 * evicted; a scan never evicts, and its hits do not mark a block as used
 * again: a scan larger than the cache leaves the blocks that point
 * lookups keep using where they are, and costs no eviction.
 */
enum lsm_cache_use {
	LSM_CACHE_LOOKUP,
	LSM_CACHE_SCAN,
};

/**
 * struct lsm_block_cache_stats - a cache's counters
 * @hits:     lookups that found their block
 * @misses:   lookups that did not (each is a block read from the device)
 * @bytes:    what the cache holds now: its pages and their bookkeeping
 * @blocks:   blocks it holds now
 * @capacity: the bound on @bytes
 */
struct lsm_block_cache_stats {
	u64 hits;
	u64 misses;
	u64 bytes;
	u64 blocks;
	u64 capacity;
};

struct lsm_block_cache *lsm_block_cache_create(u64 capacity, const char *name);
void lsm_block_cache_destroy(struct lsm_block_cache *c);

void lsm_block_cache_owner_init(struct lsm_block_cache *c,
				struct lsm_cache_owner *o, u32 blocks);
void lsm_block_cache_drop(struct lsm_block_cache *c,
			  struct lsm_cache_owner *o);

struct lsm_cached_block *lsm_block_cache_lookup(struct lsm_block_cache *c,
						const struct lsm_cache_owner *o,
						u32 nr, enum lsm_cache_use use);
bool lsm_block_cache_has_room(struct lsm_block_cache *c);
struct lsm_cached_block *lsm_cached_block_alloc(gfp_t gfp);
struct lsm_cached_block *lsm_block_cache_insert(struct lsm_block_cache *c,
						struct lsm_cache_owner *o,
						u32 nr, struct lsm_cached_block *b,
						enum lsm_cache_use use);
void *lsm_cached_block_data(const struct lsm_cached_block *b);
void lsm_cached_block_put(struct lsm_cached_block *b);

unsigned long lsm_block_cache_shrink(struct lsm_block_cache *c,
				     unsigned long nr_to_scan);
void lsm_block_cache_stats(struct lsm_block_cache *c,
			   struct lsm_block_cache_stats *s);

#endif /* _LSM_BLOCK_CACHE_H */
