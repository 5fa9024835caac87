// SPDX-License-Identifier: GPL-2.0
/*
 * A memtable's arena: bump allocation in 1 MiB slabs of the pool.
 *
 * Only the memtable's writer allocates, and the caller serializes those
 * calls; lsm_arena_bytes() may be read by anyone (a racing read sees the
 * count before or after a slab was added).  Objects are never freed
 * alone: the memory of a record that dies stays in the arena until the
 * memtable is destroyed, and the memtable counts it as held, so the store
 * switches memtables on what the arena really takes.
 */
#include <linux/module.h>
#include <linux/compiler.h>
#include "arena.h"
#include "pool.h"

/* Objects are 8-byte aligned; the slab's first word links the slabs. */
#define LSM_ARENA_ALIGN		8
#define LSM_ARENA_HEADER	LSM_ARENA_ALIGN

/**
 * lsm_arena_init() - set up an empty arena
 * @arena: the arena
 * @pool:  the pool its slabs come from
 *
 * Context: Any context.
 */
void lsm_arena_init(struct lsm_arena *arena, struct lsm_pool *pool)
{
	arena->pool = pool;
	arena->slabs = NULL;
	arena->next = NULL;
	arena->left = 0;
	arena->nr = 0;
}
EXPORT_SYMBOL_GPL(lsm_arena_init);

/**
 * lsm_arena_alloc() - allocate from an arena
 * @arena: the arena
 * @size:  bytes, 1 to LSM_POOL_MAX_SIZE
 * @gfp:   allocation flags for a new slab
 *
 * The rest of the newest slab is abandoned when @size does not fit in it.
 *
 * Context: Any context but hardirq and NMI; may sleep if @gfp allows.
 * The caller serializes calls on @arena.
 * Return: the object, 8-byte aligned, or NULL if @size is 0 or too large,
 * or no slab could be had.
 */
void *lsm_arena_alloc(struct lsm_arena *arena, size_t size, gfp_t gfp)
{
	void *obj, *slab;

	if (WARN_ON_ONCE(!size || size > LSM_POOL_MAX_SIZE))
		return NULL;
	size = (size + LSM_ARENA_ALIGN - 1) & ~(size_t)(LSM_ARENA_ALIGN - 1);
	if (unlikely(size > arena->left)) {
		slab = lsm_pool_slab_alloc(arena->pool, gfp);
		if (!slab)
			return NULL;
		*(void **)slab = arena->slabs;
		arena->slabs = slab;
		arena->next = (char *)slab + LSM_ARENA_HEADER;
		arena->left = LSM_POOL_SLAB_SIZE - LSM_ARENA_HEADER;
		WRITE_ONCE(arena->nr, arena->nr + 1);
	}
	obj = arena->next;
	arena->next += size;
	arena->left -= size;
	return obj;
}
EXPORT_SYMBOL_GPL(lsm_arena_alloc);

/**
 * lsm_arena_release() - give every slab of an arena back to its pool
 * @arena: the arena; nobody may use its objects any more (readers under
 *         RCU included: the caller waits for them)
 *
 * The arena is empty afterwards and may be used again.
 *
 * Context: Any context but hardirq and NMI.
 */
void lsm_arena_release(struct lsm_arena *arena)
{
	void *slab, *next;

	for (slab = arena->slabs; slab; slab = next) {
		next = *(void **)slab;
		lsm_pool_slab_free(arena->pool, slab);
	}
	lsm_arena_init(arena, arena->pool);
}
EXPORT_SYMBOL_GPL(lsm_arena_release);

/**
 * lsm_arena_bytes() - memory an arena holds
 * @arena: the arena
 *
 * Context: Any context.
 * Return: the bytes of its slabs.
 */
u64 lsm_arena_bytes(const struct lsm_arena *arena)
{
	return (u64)READ_ONCE(arena->nr) << LSM_POOL_SLAB_SHIFT;
}
EXPORT_SYMBOL_GPL(lsm_arena_bytes);
