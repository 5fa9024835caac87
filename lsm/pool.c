// SPDX-License-Identifier: GPL-2.0
/*
 * The store's memory pool: size classes of 64 B to 64 KiB, doubling, each
 * carved from 1 MiB slabs, with a per-CPU cache of free objects per class.
 *
 * Concurrency and context:
 *  - A CPU's cache is touched only by that CPU, under its local lock with
 *    interrupts off (local_lock_irqsave()): objects are freed from RCU
 *    callbacks, which run in softirq context and may interrupt an
 *    allocation on the same CPU; with interrupts off neither can see the
 *    cache half changed, and the task cannot migrate meanwhile.
 *  - A class's slabs are shared by every CPU under the class's spinlock,
 *    taken with interrupts off as well.  The slow paths move objects in
 *    batches of half a cache between the two, so a CPU takes the class
 *    lock once per batch, not once per object.
 *  - Pages are allocated and freed with no lock held: a blocking
 *    allocation (the caller's gfp allows it) sleeps only there.
 *
 * Memory bound: a slab goes back to the page allocator when its last
 * object comes back to it, except one empty slab the pool keeps as a
 * spare (for any class) so that a class at a slab boundary does not take
 * and give back a megabyte per object.  Objects in per-CPU caches count as
 * in use for their slab; a cache holds at most LSM_POOL_CPU_BYTES of a
 * class (and at least one object).  At destroy every slab goes back.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/local_lock.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <linux/log2.h>
#include <linux/build_bug.h>
#include "pool.h"

/* The most objects of one class a CPU caches, and bytes (past one object). */
#define LSM_POOL_CPU_OBJS	32
#define LSM_POOL_CPU_BYTES	(16 * 1024)

#define LSM_POOL_SLAB_ORDER	(LSM_POOL_SLAB_SHIFT - PAGE_SHIFT)

/**
 * struct lsm_pool_slab - the header of a slab, in its first object slot
 * @next:   next slab of the same list of its class
 * @pprev:  the pointer to this slab in its list
 * @free:   objects given back, linked through their first word
 * @cls:    the size class
 * @used:   objects out of the slab, in use or in a per-CPU cache
 * @carved: objects ever handed out from the slab's untouched end; object
 *          slots 1 to @carved have been carved (slot 0 is this header)
 * @nr:     object slots past the header
 *
 * Under the class's lock.
 */
struct lsm_pool_slab {
	struct lsm_pool_slab *next;
	struct lsm_pool_slab **pprev;
	void *free;
	u32 cls;
	u32 used;
	u32 carved;
	u32 nr;
};

/* The header takes the first object slot of the smallest class. */
static_assert(sizeof(struct lsm_pool_slab) <= LSM_POOL_MIN_SIZE);

/**
 * struct lsm_pool_class - the slabs of one size class
 * @lock:    protects both lists and the slabs on them
 * @partial: slabs with an object to hand out
 * @full:    slabs with every object out
 * @size:    object size
 * @cache:   objects a CPU caches at most
 */
struct lsm_pool_class {
	spinlock_t lock;		/* the lists and their slabs */
	struct lsm_pool_slab *partial;
	struct lsm_pool_slab *full;
	u32 size;
	u32 cache;
};

/**
 * struct lsm_pool_cpu - one CPU's free objects
 * @lock: the local lock (interrupts off) that the cache is used under
 * @nr:   objects cached per class
 * @objs: the objects, per class, the last cached first out
 */
struct lsm_pool_cpu {
	local_lock_t lock;
	u8 nr[LSM_POOL_NR_CLASSES];
	void *objs[LSM_POOL_NR_CLASSES][LSM_POOL_CPU_OBJS];
};

/**
 * struct lsm_pool - a pool
 * @kind:       how the pool's memtables allocate
 * @cpu:        per-CPU caches
 * @cls:        the size classes
 * @spare_lock: protects @spare
 * @spare:      an empty slab kept for the next slab allocation, or NULL
 * @slabs:      slabs the pool holds, @spare and arenas' slabs included
 */
struct lsm_pool {
	enum lsm_pool_kind kind;
	struct lsm_pool_cpu __percpu *cpu;
	struct lsm_pool_class cls[LSM_POOL_NR_CLASSES];
	spinlock_t spare_lock;		/* @spare */
	void *spare;
	atomic_long_t slabs;
};

/* Up to this many objects move between a CPU's cache and the slabs. */
static unsigned int lsm_pool_batch(const struct lsm_pool_class *cls)
{
	return DIV_ROUND_UP(cls->cache, 2);
}

static unsigned int lsm_pool_class_of(size_t size)
{
	if (size <= LSM_POOL_MIN_SIZE)
		return 0;
	return fls_long(size - 1) - LSM_POOL_MIN_SHIFT;
}

static struct lsm_pool_slab *lsm_pool_slab_of(const void *obj)
{
	return (struct lsm_pool_slab *)((unsigned long)obj &
					~(LSM_POOL_SLAB_SIZE - 1));
}

static void lsm_pool_link(struct lsm_pool_slab **head,
			  struct lsm_pool_slab *slab)
{
	slab->next = *head;
	if (slab->next)
		slab->next->pprev = &slab->next;
	slab->pprev = head;
	*head = slab;
}

static void lsm_pool_unlink(struct lsm_pool_slab *slab)
{
	*slab->pprev = slab->next;
	if (slab->next)
		slab->next->pprev = slab->pprev;
}

/**
 * lsm_pool_create() - make a pool
 * @kind: how the memtables that use the pool allocate their records
 * @gfp:  allocation flags for the pool itself
 *
 * Context: Process context; may sleep if @gfp allows.
 * Return: the pool, or NULL if @kind is unknown or memory ran out.
 */
struct lsm_pool *lsm_pool_create(enum lsm_pool_kind kind, gfp_t gfp)
{
	struct lsm_pool *pool;
	unsigned int c;
	int cpu;

	if (WARN_ON_ONCE(kind != LSM_POOL_CLASSES &&
			 kind != LSM_POOL_KMALLOC && kind != LSM_POOL_ARENA))
		return NULL;
	pool = kzalloc(sizeof(*pool), gfp);
	if (!pool)
		return NULL;
	pool->cpu = alloc_percpu_gfp(struct lsm_pool_cpu, gfp);
	if (!pool->cpu) {
		kfree(pool);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		local_lock_init(&per_cpu_ptr(pool->cpu, cpu)->lock);
	for (c = 0; c < LSM_POOL_NR_CLASSES; c++) {
		struct lsm_pool_class *cls = &pool->cls[c];

		spin_lock_init(&cls->lock);
		cls->size = LSM_POOL_MIN_SIZE << c;
		cls->cache = min_t(u32, LSM_POOL_CPU_BYTES / cls->size,
				   LSM_POOL_CPU_OBJS);
		cls->cache = max_t(u32, cls->cache, 1);
	}
	spin_lock_init(&pool->spare_lock);
	pool->kind = kind;
	atomic_long_set(&pool->slabs, 0);
	return pool;
}
EXPORT_SYMBOL_GPL(lsm_pool_create);

/**
 * lsm_pool_kind() - how the memtables of a pool allocate
 * @pool: the pool
 *
 * Context: Any context.
 * Return: the kind the pool was created with.
 */
enum lsm_pool_kind lsm_pool_kind(const struct lsm_pool *pool)
{
	return pool->kind;
}
EXPORT_SYMBOL_GPL(lsm_pool_kind);

/**
 * lsm_pool_slab_alloc() - take a whole slab
 * @pool: the pool
 * @gfp:  allocation flags, for the page allocator
 *
 * The spare slab if the pool has one, else LSM_POOL_SLAB_SIZE bytes from
 * the page allocator, aligned to their size.  The size classes carve
 * their objects from these; an arena (arena.h) bump-allocates in them.
 *
 * Context: Any context but hardirq and NMI; may sleep if @gfp allows.
 * Return: the slab, or NULL.
 */
void *lsm_pool_slab_alloc(struct lsm_pool *pool, gfp_t gfp)
{
	unsigned long flags;
	void *slab;

	spin_lock_irqsave(&pool->spare_lock, flags);
	slab = pool->spare;
	pool->spare = NULL;
	spin_unlock_irqrestore(&pool->spare_lock, flags);
	if (slab)
		return slab;
	slab = (void *)__get_free_pages(gfp | __GFP_NOWARN,
					LSM_POOL_SLAB_ORDER);
	if (slab)
		atomic_long_inc(&pool->slabs);
	return slab;
}
EXPORT_SYMBOL_GPL(lsm_pool_slab_alloc);

/**
 * lsm_pool_slab_free() - give a slab back
 * @pool: the pool
 * @slab: a slab from lsm_pool_slab_alloc(); no object in it is in use
 *
 * It becomes the pool's spare if the pool has none, else it goes back to
 * the page allocator.
 *
 * Context: Any context but hardirq and NMI.
 */
void lsm_pool_slab_free(struct lsm_pool *pool, void *slab)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->spare_lock, flags);
	if (!pool->spare) {
		pool->spare = slab;
		slab = NULL;
	}
	spin_unlock_irqrestore(&pool->spare_lock, flags);
	if (slab) {
		free_pages((unsigned long)slab, LSM_POOL_SLAB_ORDER);
		atomic_long_dec(&pool->slabs);
	}
}
EXPORT_SYMBOL_GPL(lsm_pool_slab_free);

/* A fresh slab for class @c, its header written; not yet on a list. */
static struct lsm_pool_slab *lsm_pool_slab_new(struct lsm_pool *pool,
					       unsigned int c, gfp_t gfp)
{
	struct lsm_pool_slab *slab = lsm_pool_slab_alloc(pool, gfp);

	if (!slab)
		return NULL;
	slab->free = NULL;
	slab->cls = c;
	slab->used = 0;
	slab->carved = 0;
	slab->nr = (LSM_POOL_SLAB_SIZE >> (LSM_POOL_MIN_SHIFT + c)) - 1;
	return slab;
}

/* One object out of @slab, which has one; under the class lock. */
static void *lsm_pool_slab_take(struct lsm_pool_class *cls,
				struct lsm_pool_slab *slab)
{
	void *obj = slab->free;

	if (obj) {
		slab->free = *(void **)obj;
	} else {
		slab->carved++;
		obj = (char *)slab + (size_t)slab->carved * cls->size;
	}
	if (++slab->used == slab->nr) {
		lsm_pool_unlink(slab);
		lsm_pool_link(&cls->full, slab);
	}
	return obj;
}

/*
 * Up to @want objects of class @c into @objs, from the class's slabs, with
 * a new slab if they have none; the only step that may sleep is that
 * slab's allocation, with no lock held.  Returns how many it took.
 */
static unsigned int lsm_pool_take(struct lsm_pool *pool, unsigned int c,
				  void **objs, unsigned int want, gfp_t gfp)
{
	struct lsm_pool_class *cls = &pool->cls[c];
	struct lsm_pool_slab *fresh = NULL;
	unsigned int n = 0;
	unsigned long flags;

	spin_lock_irqsave(&cls->lock, flags);
	if (!cls->partial) {
		spin_unlock_irqrestore(&cls->lock, flags);
		fresh = lsm_pool_slab_new(pool, c, gfp);
		if (!fresh)
			return 0;
		spin_lock_irqsave(&cls->lock, flags);
		lsm_pool_link(&cls->partial, fresh);
	}
	while (n < want && cls->partial)
		objs[n++] = lsm_pool_slab_take(cls, cls->partial);
	spin_unlock_irqrestore(&cls->lock, flags);
	return n;
}

/*
 * Give @nr objects of class @c back to their slabs; slabs left empty go
 * back to the pool's spare or the page allocator, after the lock.
 */
static void lsm_pool_give(struct lsm_pool *pool, unsigned int c,
			  void **objs, unsigned int nr)
{
	struct lsm_pool_class *cls = &pool->cls[c];
	struct lsm_pool_slab *empty = NULL, *slab;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&cls->lock, flags);
	for (i = 0; i < nr; i++) {
		slab = lsm_pool_slab_of(objs[i]);
		if (WARN_ON_ONCE(slab->cls != c || !slab->used))
			continue;
		if (slab->used == slab->nr) {
			lsm_pool_unlink(slab);
			lsm_pool_link(&cls->partial, slab);
		}
		*(void **)objs[i] = slab->free;
		slab->free = objs[i];
		if (--slab->used)
			continue;
		/* Empty: off the class, onto a private list through @free. */
		lsm_pool_unlink(slab);
		slab->free = empty;
		empty = slab;
	}
	spin_unlock_irqrestore(&cls->lock, flags);
	while (empty) {
		slab = empty;
		empty = slab->free;
		lsm_pool_slab_free(pool, slab);
	}
}

/* Bytes kmalloc() takes for @size, as its caches round it. */
static size_t lsm_pool_kmalloc_charge(size_t size)
{
	if (size <= 8)
		return 8;
	if (size > 64 && size <= 96)
		return 96;
	if (size > 128 && size <= 192)
		return 192;
	if (size > 8192)
		return PAGE_SIZE << get_order(size);
	return roundup_pow_of_two(size);
}

/**
 * lsm_pool_charge() - the bytes an allocation of a given size takes
 * @pool: the pool
 * @size: the size asked for, 1 to LSM_POOL_MAX_SIZE
 *
 * What the memtable counts for a record: its size class, kmalloc()'s
 * rounding (as the kernel's caches round), or for an arena the size
 * rounded to 8 bytes.
 *
 * Context: Any context.
 * Return: the bytes.
 */
size_t lsm_pool_charge(const struct lsm_pool *pool, size_t size)
{
	switch (pool->kind) {
	case LSM_POOL_KMALLOC:
		return lsm_pool_kmalloc_charge(size);
	case LSM_POOL_ARENA:
		return (size + 7) & ~(size_t)7;
	default:
		return (size_t)LSM_POOL_MIN_SIZE << lsm_pool_class_of(size);
	}
}
EXPORT_SYMBOL_GPL(lsm_pool_charge);

/**
 * lsm_pool_alloc() - allocate an object
 * @pool: the pool
 * @size: bytes, 1 to LSM_POOL_MAX_SIZE
 * @gfp:  allocation flags, used when the CPU's cache of the class is
 *        empty and the class needs a new slab
 *
 * From kmalloc() if the pool is of kind LSM_POOL_KMALLOC, else from the
 * size class that fits @size: the CPU's cache, refilled with a batch from
 * the class's slabs when empty.  Objects are aligned to 64 bytes (to
 * their size up to 4 KiB), their contents undefined.
 *
 * Context: Any context but hardirq and NMI; may sleep if @gfp allows.
 * Return: the object, or NULL if @size is 0 or too large, or memory
 * ran out.
 */
void *lsm_pool_alloc(struct lsm_pool *pool, size_t size, gfp_t gfp)
{
	void *objs[LSM_POOL_CPU_OBJS], *obj = NULL;
	struct lsm_pool_class *cls;
	struct lsm_pool_cpu *pc;
	unsigned int c, n;
	unsigned long flags;

	if (WARN_ON_ONCE(!size || size > LSM_POOL_MAX_SIZE))
		return NULL;
	if (pool->kind == LSM_POOL_KMALLOC)
		return kmalloc(size, gfp);
	c = lsm_pool_class_of(size);
	local_lock_irqsave(&pool->cpu->lock, flags);
	pc = this_cpu_ptr(pool->cpu);
	if (likely(pc->nr[c]))
		obj = pc->objs[c][--pc->nr[c]];
	local_unlock_irqrestore(&pool->cpu->lock, flags);
	if (likely(obj))
		return obj;

	/* Refill: one for the caller, the rest into this CPU's cache. */
	cls = &pool->cls[c];
	n = lsm_pool_take(pool, c, objs, lsm_pool_batch(cls), gfp);
	if (!n)
		return NULL;
	obj = objs[--n];
	local_lock_irqsave(&pool->cpu->lock, flags);
	pc = this_cpu_ptr(pool->cpu);
	for (; n && pc->nr[c] < cls->cache; n--)
		pc->objs[c][pc->nr[c]++] = objs[n - 1];
	local_unlock_irqrestore(&pool->cpu->lock, flags);
	/* Another allocation on this CPU refilled the cache meanwhile. */
	if (n)
		lsm_pool_give(pool, c, objs, n);
	return obj;
}
EXPORT_SYMBOL_GPL(lsm_pool_alloc);

/**
 * lsm_pool_free() - free an object
 * @pool: the pool the object came from
 * @obj:  the object, or NULL
 * @size: the size it was allocated with
 *
 * Into the CPU's cache of its class; a full cache first gives half of
 * its objects back to their slabs, and a slab whose last object comes
 * back is freed.
 *
 * Context: Any context but hardirq and NMI (RCU callbacks included).
 */
void lsm_pool_free(struct lsm_pool *pool, void *obj, size_t size)
{
	void *objs[LSM_POOL_CPU_OBJS];
	struct lsm_pool_class *cls;
	struct lsm_pool_cpu *pc;
	unsigned int c, n = 0;
	unsigned long flags;

	if (!obj)
		return;
	if (pool->kind == LSM_POOL_KMALLOC) {
		kfree(obj);
		return;
	}
	c = lsm_pool_class_of(size);
	cls = &pool->cls[c];
	WARN_ON_ONCE(lsm_pool_slab_of(obj)->cls != c);
	local_lock_irqsave(&pool->cpu->lock, flags);
	pc = this_cpu_ptr(pool->cpu);
	if (unlikely(pc->nr[c] == cls->cache)) {
		n = lsm_pool_batch(cls);
		pc->nr[c] -= n;
		memcpy(objs, &pc->objs[c][pc->nr[c]], n * sizeof(*objs));
	}
	pc->objs[c][pc->nr[c]++] = obj;
	local_unlock_irqrestore(&pool->cpu->lock, flags);
	if (n)
		lsm_pool_give(pool, c, objs, n);
}
EXPORT_SYMBOL_GPL(lsm_pool_free);

/**
 * lsm_pool_drain() - give every cached object and the spare slab back
 * @pool: the pool
 *
 * Empties every CPU's cache into the slabs, so that empty slabs go back,
 * and frees the spare: afterwards the pool holds only slabs with objects
 * in use (and arenas' slabs).
 *
 * Context: Process context; no allocation or free may run on @pool
 * meanwhile (the caches of other CPUs are emptied from this one).
 */
void lsm_pool_drain(struct lsm_pool *pool)
{
	unsigned long flags;
	unsigned int c;
	void *spare;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct lsm_pool_cpu *pc = per_cpu_ptr(pool->cpu, cpu);

		for (c = 0; c < LSM_POOL_NR_CLASSES; c++) {
			lsm_pool_give(pool, c, pc->objs[c], pc->nr[c]);
			pc->nr[c] = 0;
		}
	}
	spin_lock_irqsave(&pool->spare_lock, flags);
	spare = pool->spare;
	pool->spare = NULL;
	spin_unlock_irqrestore(&pool->spare_lock, flags);
	if (spare) {
		free_pages((unsigned long)spare, LSM_POOL_SLAB_ORDER);
		atomic_long_dec(&pool->slabs);
	}
}
EXPORT_SYMBOL_GPL(lsm_pool_drain);

/**
 * lsm_pool_bytes() - memory the pool holds
 * @pool: the pool
 *
 * Context: Any context.
 * Return: bytes of the slabs it holds, the spare and arenas' included;
 * 0 for a pool of kind LSM_POOL_KMALLOC.
 */
u64 lsm_pool_bytes(struct lsm_pool *pool)
{
	return (u64)atomic_long_read(&pool->slabs) << LSM_POOL_SLAB_SHIFT;
}
EXPORT_SYMBOL_GPL(lsm_pool_bytes);

/* Free the slabs of @head, which must be empty; count those that were not. */
static unsigned long lsm_pool_free_list(struct lsm_pool *pool,
					struct lsm_pool_slab *head)
{
	unsigned long leaked = 0;
	struct lsm_pool_slab *next;

	for (; head; head = next) {
		next = head->next;
		leaked += head->used;
		free_pages((unsigned long)head, LSM_POOL_SLAB_ORDER);
		atomic_long_dec(&pool->slabs);
	}
	return leaked;
}

/**
 * lsm_pool_destroy() - free a pool and every slab it holds
 * @pool: the pool, or NULL
 *
 * Every object should have been freed (and every arena released) first:
 * a leaked object is reported with a warning, and its slab is freed all
 * the same.
 *
 * Context: Process context; nobody may use @pool meanwhile, and RCU
 * callbacks that free into it must have run (rcu_barrier()).
 */
void lsm_pool_destroy(struct lsm_pool *pool)
{
	unsigned long leaked = 0;
	unsigned int c;

	if (!pool)
		return;
	lsm_pool_drain(pool);
	for (c = 0; c < LSM_POOL_NR_CLASSES; c++) {
		leaked += lsm_pool_free_list(pool, pool->cls[c].partial);
		leaked += lsm_pool_free_list(pool, pool->cls[c].full);
	}
	WARN(leaked, "lsm: %lu pool objects still in use at destroy\n",
	     leaked);
	WARN(atomic_long_read(&pool->slabs),
	     "lsm: %ld arena slabs not released at destroy\n",
	     atomic_long_read(&pool->slabs));
	free_percpu(pool->cpu);
	kfree(pool);
}
EXPORT_SYMBOL_GPL(lsm_pool_destroy);
