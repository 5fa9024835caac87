// SPDX-License-Identifier: GPL-2.0
/*
 * The block cache (block_cache.h): a hash table of blocks keyed by
 * (owner, block number), each block a page, in a CLOCK order for
 * eviction, bounded in bytes, with a shrinker.
 *
 * Locking and lifetimes:
 *  - @lock (spinlock) guards every change: the hash chains, the CLOCK
 *    list, @bytes, @nr, @next_owner, an owner's @dropped.  Nothing else is
 *    taken under it, and nothing is allocated or freed under it (blocks
 *    evicted are gathered and put after it is dropped), so reclaim that
 *    calls the shrinker from an allocation anywhere in the store never
 *    waits for it.
 *  - Lookups take no lock: they walk a hash chain under rcu_read_lock()
 *    and take a reference with refcount_inc_not_zero().  A block's key
 *    and page never change once it is published (hlist_add_head_rcu()
 *    orders its filling before its publication), so a reader that holds
 *    a reference reads the page in place, and may keep it after the
 *    block was evicted: the page is freed with the last reference.  The
 *    struct itself is freed after a grace period (kfree_rcu()), since a
 *    reader may still be walking through it; a reader that finds a block
 *    whose count already fell to zero treats it as a miss.
 *  - The cache holds one reference on each block it holds (@cached
 *    true); eviction unlinks the block under @lock and drops that
 *    reference after.
 *  - The reference bit (@referenced) is set by lookups without the lock
 *    (a lost update costs one block a second chance) and cleared by the
 *    CLOCK hand under it.
 *  - An owner's blocks are dropped by lsm_block_cache_drop(), which must
 *    not race with a lookup or insert for that owner (a run is closed
 *    only when no reader can reach it); a lookup after it finds nothing,
 *    an insert after it is refused with a warning.  It finds them by
 *    their keys (an owner's blocks are numbered below its @blocks), each
 *    under RCU, and takes the lock only for one it finds: no list of an
 *    owner's blocks is kept, so an insert or an eviction touches no
 *    other block's lines than its neighbours' in its chain and in
 *    @clock.
 *
 * Eviction is CLOCK: blocks enter at the head of @clock, the hand takes
 * from the tail, and a block whose reference bit is set is moved back to
 * the head with the bit cleared instead of going.  A scan's blocks enter
 * only while there is room, at the tail (the next to go), and evict
 * none.  A hit costs one atomic increment and decrement on the block and
 * a store to its bit only when the bit is clear: the hits of several
 * threads meet on no shared cache line but the block's own.
 */
#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include "block_cache.h"
#include "record.h"

/**
 * struct lsm_cached_block - one block, in the cache or held by a reader
 * @hash:       its hash chain (RCU readers; changed under the lock)
 * @clock:      its place in the CLOCK order, under the lock; once
 *              evicted, briefly on the list of blocks to put
 * @rcu:        frees the struct after the readers walking past it (once
 *              it is on no list: it shares @clock's room)
 * @owner:      the owner's id: with @nr, the key
 * @nr:         the block's number within its owner (its run)
 * @ref:        references: the cache's, and each reader's
 * @data:       the page holding the block
 * @referenced: used since the hand last passed (set locklessly)
 * @cached:     the cache holds it (and a reference), under the lock
 *
 * 64 bytes on a 64-bit kernel: one cache line to touch per block the
 * hand passes.
 */
struct lsm_cached_block {
	struct hlist_node hash;
	union {
		struct list_head clock;
		struct rcu_head rcu;
	};
	u64 owner;
	u32 nr;
	refcount_t ref;
	void *data;
	bool referenced;
	bool cached;
};

/* A block fills at most one page. */
static_assert(LSM_BLOCK_SIZE <= PAGE_SIZE);

/* What a block costs the cache: its page and its bookkeeping. */
#define LSM_CACHE_CHARGE	(PAGE_SIZE + sizeof(struct lsm_cached_block))

/* Per CPU, so that the hits of several threads share no cache line. */
struct lsm_block_cache_cpu {
	u64 hits;
	u64 misses;
};

/**
 * struct lsm_block_cache - the cache
 * @lock:        every change (see the top of this file)
 * @buckets:     the hash chains, 1 << @bucket_bits of them
 * @bucket_bits: at least one bucket per block the capacity holds
 * @clock:       the blocks held, newest at the head, the hand at the tail
 * @capacity:    the bound on @bytes
 * @bytes:       LSM_CACHE_CHARGE per block held (read locklessly too)
 * @nr:          blocks held (read locklessly too)
 * @next_owner:  the last owner id handed out
 * @cpu:         hits and misses
 * @shrinker:    gives blocks back under memory pressure
 */
struct lsm_block_cache {
	spinlock_t lock;		/* every change; see the top */
	struct hlist_head *buckets;
	unsigned int bucket_bits;
	struct list_head clock;
	u64 capacity;
	u64 bytes;
	unsigned long nr;
	u64 next_owner;
	struct lsm_block_cache_cpu __percpu *cpu;
#ifdef LSM_SHRINKER_ALLOC
	struct shrinker *shrinker;
#else
	struct shrinker shrinker;
#endif
};

static unsigned long lsm_block_cache_count(struct shrinker *s,
					   struct shrink_control *sc);
static unsigned long lsm_block_cache_scan(struct shrinker *s,
					  struct shrink_control *sc);

/*
 * The one place the two kernels differ: since 6.7 a shrinker is
 * allocated by shrinker_alloc() and reaches its owner through
 * private_data (LSM_SHRINKER_ALLOC, from lsm/Kbuild's look at the
 * headers; the userspace shim has that interface); before, it is
 * embedded and registered with a name.
 */
#ifdef LSM_SHRINKER_ALLOC
static int lsm_block_cache_shrinker_add(struct lsm_block_cache *c,
					const char *name)
{
	c->shrinker = shrinker_alloc(0, "sl_lsm-%s", name);
	if (!c->shrinker)
		return -ENOMEM;
	c->shrinker->count_objects = lsm_block_cache_count;
	c->shrinker->scan_objects = lsm_block_cache_scan;
	c->shrinker->seeks = DEFAULT_SEEKS;
	c->shrinker->private_data = c;
	shrinker_register(c->shrinker);
	return 0;
}

static struct lsm_block_cache *lsm_block_cache_of(struct shrinker *s)
{
	return s->private_data;
}

static void lsm_block_cache_shrinker_del(struct lsm_block_cache *c)
{
	shrinker_free(c->shrinker);
}
#else
static int lsm_block_cache_shrinker_add(struct lsm_block_cache *c,
					const char *name)
{
	c->shrinker.count_objects = lsm_block_cache_count;
	c->shrinker.scan_objects = lsm_block_cache_scan;
	c->shrinker.seeks = DEFAULT_SEEKS;
	return register_shrinker(&c->shrinker, "sl_lsm-%s", name);
}

static struct lsm_block_cache *lsm_block_cache_of(struct shrinker *s)
{
	return container_of(s, struct lsm_block_cache, shrinker);
}

static void lsm_block_cache_shrinker_del(struct lsm_block_cache *c)
{
	unregister_shrinker(&c->shrinker);
}
#endif

static struct hlist_head *lsm_block_cache_bucket(struct lsm_block_cache *c,
						 u64 owner, u32 nr)
{
	return &c->buckets[hash_64(owner << 32 ^ nr, c->bucket_bits)];
}

/*
 * Take @b out of the cache onto @out, whose blocks the caller puts once
 * the lock is dropped.
 */
static void lsm_block_cache_unlink(struct lsm_block_cache *c,
				   struct lsm_cached_block *b,
				   struct list_head *out)
{
	lockdep_assert_held(&c->lock);
	WARN_ON_ONCE(!b->cached);
	hlist_del_rcu(&b->hash);
	list_move(&b->clock, out);
	b->cached = false;
	WRITE_ONCE(c->bytes, c->bytes - LSM_CACHE_CHARGE);
	WRITE_ONCE(c->nr, c->nr - 1);
}

/*
 * One step of the hand: the block at the tail goes to @out, unless it
 * was used since the hand last passed and @spare allows a second
 * chance.  Returns whether it went.
 */
static bool lsm_block_cache_hand(struct lsm_block_cache *c, bool spare,
				 struct list_head *out)
{
	struct lsm_cached_block *b = list_last_entry(&c->clock,
						     struct lsm_cached_block,
						     clock);

	lockdep_assert_held(&c->lock);
	if (spare && READ_ONCE(b->referenced)) {
		WRITE_ONCE(b->referenced, false);
		list_move(&b->clock, &c->clock);
		return false;
	}
	lsm_block_cache_unlink(c, b, out);
	return true;
}

/* Put the blocks gathered on @out (the lock dropped). */
static void lsm_block_cache_put_list(struct list_head *out)
{
	struct lsm_cached_block *b, *next;

	list_for_each_entry_safe(b, next, out, clock) {
		list_del(&b->clock);
		lsm_cached_block_put(b);
	}
}

/**
 * lsm_block_cache_create() - a cache for one store
 * @capacity: the bound on what it holds, in bytes, at most
 *            LSM_BLOCK_CACHE_MAX; below one block's charge (a page and
 *            its 64 bytes of bookkeeping) it holds nothing
 * @name:     names its shrinker (the device's name; a path is cut to its
 *            last component)
 *
 * Context: process; sleeps.
 * Return: the cache, or NULL without memory or if the shrinker cannot be
 * registered.
 */
struct lsm_block_cache *lsm_block_cache_create(u64 capacity, const char *name)
{
	struct lsm_block_cache *c;
	const char *base = strrchr(name, '/');
	u64 blocks;

	if (WARN_ON_ONCE(capacity > LSM_BLOCK_CACHE_MAX))
		return NULL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->clock);
	c->capacity = capacity;
	blocks = max_t(u64, capacity / LSM_CACHE_CHARGE, 16);
	c->bucket_bits = ilog2(roundup_pow_of_two(blocks));
	c->buckets = kvcalloc(1UL << c->bucket_bits, sizeof(*c->buckets),
			      GFP_KERNEL);
	c->cpu = alloc_percpu(struct lsm_block_cache_cpu);
	if (!c->buckets || !c->cpu)
		goto fail;
	if (lsm_block_cache_shrinker_add(c, base ? base + 1 : name))
		goto fail;
	return c;
fail:
	free_percpu(c->cpu);
	kvfree(c->buckets);
	kfree(c);
	return NULL;
}

/**
 * lsm_block_cache_destroy() - free a cache and every block it holds
 * @c: from lsm_block_cache_create(), or NULL
 *
 * Every owner should have dropped its blocks already (a warning if not:
 * their blocks are freed all the same).  Blocks readers still hold are
 * freed when they put them.
 *
 * Context: process; sleeps (the shrinker's removal waits for its scans);
 * no other call on @c may run or follow.
 */
void lsm_block_cache_destroy(struct lsm_block_cache *c)
{
	LIST_HEAD(out);

	if (!c)
		return;
	lsm_block_cache_shrinker_del(c);
	spin_lock(&c->lock);
	WARN_ON_ONCE(c->nr);
	while (c->nr)
		lsm_block_cache_hand(c, false, &out);
	spin_unlock(&c->lock);
	lsm_block_cache_put_list(&out);
	free_percpu(c->cpu);
	kvfree(c->buckets);
	kfree(c);
}

/**
 * lsm_block_cache_owner_init() - make a run an owner of cached blocks
 * @c:      the cache
 * @o:      the run's, to be passed to every later call for its blocks
 * @blocks: the run's blocks that may be cached are numbered below this
 *
 * Context: any; takes the cache's lock.
 */
void lsm_block_cache_owner_init(struct lsm_block_cache *c,
				struct lsm_cache_owner *o, u32 blocks)
{
	o->blocks = blocks;
	o->dropped = false;
	spin_lock(&c->lock);
	o->id = ++c->next_owner;
	spin_unlock(&c->lock);
}

/* The block of that key in the chain, or NULL; under RCU or the lock. */
static struct lsm_cached_block *lsm_block_cache_find(struct lsm_block_cache *c,
						     u64 owner, u32 nr)
{
	struct hlist_head *head = lsm_block_cache_bucket(c, owner, nr);
	struct lsm_cached_block *b;

	hlist_for_each_entry_rcu(b, head, hash, lockdep_is_held(&c->lock))
		if (b->owner == owner && b->nr == nr)
			return b;
	return NULL;
}

/**
 * lsm_block_cache_drop() - evict every block of an owner
 * @c: the cache
 * @o: the owner; no lookup or insert for it may run at the same time,
 *     and no insert may follow
 *
 * A run that is closed gives its memory back at once, rather than
 * leaving blocks nobody can look up again for the hand to find: each of
 * its block numbers is looked up under RCU (a hash and a chain, about as
 * much as reading the run cost per block), and the lock is taken only
 * for a block that is there.
 *
 * Context: process; takes the cache's lock.
 */
void lsm_block_cache_drop(struct lsm_block_cache *c, struct lsm_cache_owner *o)
{
	struct lsm_cached_block *b;
	LIST_HEAD(out);
	u32 nr;

	spin_lock(&c->lock);
	o->dropped = true;
	spin_unlock(&c->lock);
	for (nr = 0; nr < o->blocks; nr++) {
		rcu_read_lock();
		b = lsm_block_cache_find(c, o->id, nr);
		if (b) {
			/* Unless the hand took it meanwhile. */
			spin_lock(&c->lock);
			if (b->cached)
				lsm_block_cache_unlink(c, b, &out);
			spin_unlock(&c->lock);
		}
		rcu_read_unlock();
		if (!((nr + 1) % 1024)) {
			lsm_block_cache_put_list(&out);
			cond_resched();
		}
	}
	lsm_block_cache_put_list(&out);
}

/**
 * lsm_block_cache_lookup() - a block of an owner, if the cache has it
 * @c:   the cache
 * @o:   the owner
 * @nr:  the block's number within the owner
 * @use: LSM_CACHE_SCAN leaves the block's reference bit alone
 *
 * Counts a hit or a miss.
 *
 * Context: any in which rcu_read_lock() may be taken; takes no lock.
 * Return: the block, with a reference the caller puts with
 * lsm_cached_block_put(), or NULL.
 */
struct lsm_cached_block *lsm_block_cache_lookup(struct lsm_block_cache *c,
						const struct lsm_cache_owner *o,
						u32 nr, enum lsm_cache_use use)
{
	struct lsm_cached_block *b, *found = NULL;

	rcu_read_lock();
	b = lsm_block_cache_find(c, o->id, nr);
	/* Zero: on its way to be freed, gone from the chain. */
	if (b && refcount_inc_not_zero(&b->ref))
		found = b;
	rcu_read_unlock();
	if (!found) {
		this_cpu_inc(c->cpu->misses);
		return NULL;
	}
	/* Only a store that changes something: hits share no line. */
	if (use == LSM_CACHE_LOOKUP && !READ_ONCE(found->referenced))
		WRITE_ONCE(found->referenced, true);
	this_cpu_inc(c->cpu->hits);
	return found;
}

/**
 * lsm_block_cache_has_room() - whether a block would go in without an
 *                              eviction
 * @c: the cache
 *
 * A hint, read without the lock: a scan asks it before it allocates a
 * page for a block that lsm_block_cache_insert() would refuse.
 *
 * Context: any.
 * Return: true if the cache held less than its capacity less a block.
 */
bool lsm_block_cache_has_room(struct lsm_block_cache *c)
{
	return READ_ONCE(c->bytes) + LSM_CACHE_CHARGE <= c->capacity;
}

/**
 * lsm_cached_block_alloc() - a block to read into and then insert
 * @gfp: for the struct and the page
 *
 * Context: as @gfp allows.
 * Return: the block, with one reference (the caller's), or NULL.
 */
struct lsm_cached_block *lsm_cached_block_alloc(gfp_t gfp)
{
	struct lsm_cached_block *b = kmalloc(sizeof(*b), gfp);

	if (!b)
		return NULL;
	b->data = (void *)__get_free_page(gfp);
	if (!b->data) {
		kfree(b);
		return NULL;
	}
	INIT_HLIST_NODE(&b->hash);
	INIT_LIST_HEAD(&b->clock);
	b->owner = 0;
	b->nr = 0;
	b->referenced = false;
	b->cached = false;
	refcount_set(&b->ref, 1);
	return b;
}

/**
 * lsm_block_cache_insert() - offer a block just read and checked
 * @c:   the cache
 * @o:   its owner
 * @nr:  its number within the owner
 * @b:   from lsm_cached_block_alloc(), filled in; the caller's reference
 *       passes to this call
 * @use: LSM_CACHE_SCAN puts it at the cold end, and only if there is
 *       room without evicting anything
 *
 * A lookup's block evicts what it must to stay within the capacity.  If
 * another reader inserted the same block meanwhile, that one is kept and
 * @b put; a block that does not go in (a scan's without room, or any in a
 * cache smaller than one block) stays the caller's alone.
 *
 * Context: process; takes the cache's lock.
 * Return: the block to read (@b or the one already there), with a
 * reference the caller puts.
 */
struct lsm_cached_block *lsm_block_cache_insert(struct lsm_block_cache *c,
						struct lsm_cache_owner *o,
						u32 nr, struct lsm_cached_block *b,
						enum lsm_cache_use use)
{
	struct hlist_head *head = lsm_block_cache_bucket(c, o->id, nr);
	struct lsm_cached_block *old;
	LIST_HEAD(out);

	b->owner = o->id;
	b->nr = nr;
	spin_lock(&c->lock);
	if (WARN_ON_ONCE(o->dropped || nr >= o->blocks) ||
	    c->capacity < LSM_CACHE_CHARGE ||
	    (use == LSM_CACHE_SCAN &&
	     c->bytes + LSM_CACHE_CHARGE > c->capacity))
		goto alone;
	old = lsm_block_cache_find(c, o->id, nr);
	if (old) {
		/* The cache's reference keeps it above zero. */
		refcount_inc(&old->ref);
		spin_unlock(&c->lock);
		lsm_cached_block_put(b);
		return old;
	}
	while (c->bytes + LSM_CACHE_CHARGE > c->capacity) {
		unsigned long spared = 0;

		/* A lap of second chances at most, then the tail goes. */
		while (!lsm_block_cache_hand(c, spared < c->nr, &out))
			spared++;
	}
	refcount_inc(&b->ref);
	b->cached = true;
	if (use == LSM_CACHE_SCAN)
		list_add_tail(&b->clock, &c->clock);
	else
		list_add(&b->clock, &c->clock);
	WRITE_ONCE(c->bytes, c->bytes + LSM_CACHE_CHARGE);
	WRITE_ONCE(c->nr, c->nr + 1);
	/* Filled in before a reader can find it. */
	hlist_add_head_rcu(&b->hash, head);
alone:
	spin_unlock(&c->lock);
	lsm_block_cache_put_list(&out);
	return b;
}

/**
 * lsm_cached_block_data() - the bytes of a block
 * @b: a block the caller holds a reference on
 *
 * Context: any.
 * Return: LSM_BLOCK_SIZE bytes, unchanged while the reference is held.
 */
void *lsm_cached_block_data(const struct lsm_cached_block *b)
{
	return b->data;
}

/**
 * lsm_cached_block_put() - drop a reference on a block
 * @b: the block, or NULL
 *
 * The last reference frees the page at once and the struct after a
 * grace period (readers may be walking through it).
 *
 * Context: any that may free memory.
 */
void lsm_cached_block_put(struct lsm_cached_block *b)
{
	if (!b || !refcount_dec_and_test(&b->ref))
		return;
	WARN_ON_ONCE(b->cached);
	free_page((unsigned long)b->data);
	kfree_rcu(b, rcu);
}

/**
 * lsm_block_cache_shrink() - evict blocks from the cold end
 * @c:          the cache
 * @nr_to_scan: blocks the hand may look at; a block used since the hand
 *              last passed counts, and gets a second chance
 *
 * The shrinker's scan, and the tests'.
 *
 * Context: process; takes the cache's lock.
 * Return: the blocks evicted (each LSM_CACHE_CHARGE bytes less in the
 * cache).
 */
unsigned long lsm_block_cache_shrink(struct lsm_block_cache *c,
				     unsigned long nr_to_scan)
{
	unsigned long freed = 0;
	LIST_HEAD(out);

	spin_lock(&c->lock);
	for (; nr_to_scan && c->nr; nr_to_scan--)
		freed += lsm_block_cache_hand(c, true, &out);
	spin_unlock(&c->lock);
	lsm_block_cache_put_list(&out);
	return freed;
}

static unsigned long lsm_block_cache_count(struct shrinker *s,
					   struct shrink_control *sc)
{
	unsigned long nr = READ_ONCE(lsm_block_cache_of(s)->nr);

	return nr ?: SHRINK_EMPTY;
}

static unsigned long lsm_block_cache_scan(struct shrinker *s,
					  struct shrink_control *sc)
{
	return lsm_block_cache_shrink(lsm_block_cache_of(s), sc->nr_to_scan);
}

/**
 * lsm_block_cache_stats() - a cache's counters
 * @c: the cache
 * @s: filled in
 *
 * Context: any; takes no lock (the figures are each exact, not taken at
 * one instant).
 */
void lsm_block_cache_stats(struct lsm_block_cache *c,
			   struct lsm_block_cache_stats *s)
{
	int cpu;

	memset(s, 0, sizeof(*s));
	for_each_possible_cpu(cpu) {
		const struct lsm_block_cache_cpu *p = per_cpu_ptr(c->cpu, cpu);

		s->hits += READ_ONCE(p->hits);
		s->misses += READ_ONCE(p->misses);
	}
	s->bytes = READ_ONCE(c->bytes);
	s->blocks = READ_ONCE(c->nr);
	s->capacity = c->capacity;
}
