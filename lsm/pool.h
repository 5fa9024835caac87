/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store's memory pool for memtable records: size classes from 64 B to
 * 64 KiB, doubling, carved from 1 MiB slabs, with a per-CPU cache of free
 * objects in front of each class.  A slab goes back to the page allocator
 * as soon as its last object comes back (one empty slab is kept as a
 * spare), and every slab goes back when the pool is destroyed.
 *
 * A pool also says how its memtables allocate (enum lsm_pool_kind): from
 * the size classes, from kmalloc(), or from a per-memtable arena of slabs
 * (arena.h) freed all at once with the memtable.  The store makes one pool
 * and hands it to each memtable it creates.
 *
 * Every function may be called from any context but hardirq and NMI, so
 * that objects can be freed from RCU callbacks; allocation may sleep only
 * if its gfp flags allow.  Documentation/lsm-memory.rst has the design,
 * the bound on memory and the measurements.
 */
#ifndef _LSM_POOL_H
#define _LSM_POOL_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/bitops.h>

/* The smallest and the largest object of the size classes. */
#define LSM_POOL_MIN_SHIFT	6
#define LSM_POOL_MAX_SHIFT	16
#define LSM_POOL_MIN_SIZE	BIT(LSM_POOL_MIN_SHIFT)
#define LSM_POOL_MAX_SIZE	BIT(LSM_POOL_MAX_SHIFT)
#define LSM_POOL_NR_CLASSES	(LSM_POOL_MAX_SHIFT - LSM_POOL_MIN_SHIFT + 1)

/* Slabs: 1 MiB, aligned to their size. */
#define LSM_POOL_SLAB_SHIFT	20
#define LSM_POOL_SLAB_SIZE	BIT(LSM_POOL_SLAB_SHIFT)

/**
 * enum lsm_pool_kind - how the memtables of a pool allocate their records
 * @LSM_POOL_CLASSES: from the pool's size classes (lsm_pool_alloc())
 * @LSM_POOL_KMALLOC: from kmalloc(); the pool holds no memory itself
 * @LSM_POOL_ARENA:   bump allocation in slabs of the pool that each
 *                    memtable owns and frees whole (arena.h); a record
 *                    freed earlier keeps its bytes until then
 */
enum lsm_pool_kind {
	LSM_POOL_CLASSES,
	LSM_POOL_KMALLOC,
	LSM_POOL_ARENA,
};

/*
 * The kind the store uses: the arena was the fastest on the memtable's
 * insert path and the tightest after a fill, and its memory is bounded by
 * the memtable's size, on which the store switches memtables
 * (Documentation/lsm-memory.rst, "Measurements").
 */
#define LSM_POOL_DEFAULT	LSM_POOL_ARENA

struct lsm_pool;

struct lsm_pool *lsm_pool_create(enum lsm_pool_kind kind, gfp_t gfp);
void lsm_pool_destroy(struct lsm_pool *pool);
enum lsm_pool_kind lsm_pool_kind(const struct lsm_pool *pool);

void *lsm_pool_alloc(struct lsm_pool *pool, size_t size, gfp_t gfp);
void lsm_pool_free(struct lsm_pool *pool, void *obj, size_t size);
size_t lsm_pool_charge(const struct lsm_pool *pool, size_t size);

void *lsm_pool_slab_alloc(struct lsm_pool *pool, gfp_t gfp);
void lsm_pool_slab_free(struct lsm_pool *pool, void *slab);

void lsm_pool_drain(struct lsm_pool *pool);
u64 lsm_pool_bytes(struct lsm_pool *pool);

#endif /* _LSM_POOL_H */
