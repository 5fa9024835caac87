/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A memtable's arena: records bump-allocated in slabs of the store's pool
 * (pool.h), never freed one by one, all given back at once when the
 * memtable is destroyed.  One writer at a time (the memtable's).
 */
#ifndef _LSM_ARENA_H
#define _LSM_ARENA_H

#include <linux/types.h>
#include <linux/gfp.h>

struct lsm_pool;

/**
 * struct lsm_arena - the slabs of one memtable
 * @pool:  where the slabs come from
 * @slabs: the slabs, linked through their first word, the newest first
 * @next:  the next free byte of the newest slab
 * @left:  bytes left after @next in the newest slab
 * @nr:    slabs held
 */
struct lsm_arena {
	struct lsm_pool *pool;
	void *slabs;
	char *next;
	size_t left;
	unsigned long nr;
};

void lsm_arena_init(struct lsm_arena *arena, struct lsm_pool *pool);
void *lsm_arena_alloc(struct lsm_arena *arena, size_t size, gfp_t gfp);
void lsm_arena_release(struct lsm_arena *arena);
u64 lsm_arena_bytes(const struct lsm_arena *arena);

#endif /* _LSM_ARENA_H */
