// SPDX-License-Identifier: GPL-2.0
/*
 * btrfs's extent map cache on the skiplist range index.
 *
 * Written for this project to the semantics btrfs's callers rely on in
 * Linux 6.1: the same functions as btrfs's own, the same merging
 * of neighbours, the same modified-extents list and flags.  What changes
 * is the index under it and how readers reach it; extent_map.h has the
 * locking rules.
 *
 * Why readers see whole write sections: a writer holds the tree's rwlock
 * for writing and marks the section in the tree's seqcount.  A lockless
 * lookup finds the extent map under RCU, takes a reference, and starts
 * again if the seqcount moved, so it returns what the tree held between
 * two sections, as a reader holding the rwlock would have.
 *
 * Why merging in place stays safe: btrfs merges a map into its neighbour
 * only when nobody but the tree and the merging task holds it (two
 * references).  A lookup takes its reference and then checks the
 * seqcount; the writer bumps the seqcount and then reads the count, each
 * with a full barrier between, so either the writer sees the lookup's
 * reference and does not merge, or the lookup sees the section and drops
 * its reference.
 *
 * The index never allocates on removal, shrinking, replacing a map by
 * one that starts at the same byte, or merging (which erases one slot
 * and grows the other into its units, or puts one in the other's place
 * with both lengths); only inserting may split a leaf.  Writers hold a
 * spinning lock, so a split allocates with GFP_NOWAIT, and falls back on
 * the leaves extent_map_write_lock() preloaded (sl_preload()) before
 * taking the lock: btrfs's callers expect no insert to fail for want of
 * memory, since the rbtree never allocates.  No write section inserts
 * more than two maps, within SL_PRELOAD_LEAVES (three): split_zoned_em()
 * adds two, btrfs_add_extent_mapping() may add one after a failed one,
 * btrfs_drop_extent_map_range() cuts one tail.
 *
 * @start and @len are the slot's key and size (extent_map.h), so a map's
 * length changes only through the index: sl_resize() for a map that stays
 * in the tree, and sl_replace_resized() where a map leaves it for one of
 * another length, which leaves the one leaving as it was for whoever
 * holds it.
 */

#include <linux/err.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sched.h>
#include "ctree.h"
#include "volumes.h"
#include "extent_map.h"
#include "compression.h"
#include "btrfs_inode.h"

static struct kmem_cache *extent_map_cache;

/* A tree's index, freed after a grace period. */
struct em_index {
	struct sl_list list;
	struct rcu_head rcu;
};

/*
 * Each CPU keeps one index ready for a tree's first insert, made by
 * extent_map_write_lock() where it may still sleep; a write section
 * cannot, and the index (its head leaf is about 1 KiB) is the other
 * allocation an insert may need besides a split's leaf.
 */
static DEFINE_PER_CPU(struct em_index *, em_spare_index);

static struct em_index *em_index_alloc(gfp_t gfp)
{
	struct em_index *index = kmalloc(sizeof(*index), gfp);

	if (index && sl_init(&index->list, gfp)) {
		kfree(index);
		index = NULL;
	}
	return index;
}

/* An index no tree ever used. */
static void em_index_free(struct em_index *index)
{
	sl_destroy(&index->list, NULL, NULL);
	kfree(index);
}

/*
 * Start the section with this CPU's spare index in place: checked with
 * preemption off (sl_preload()), so that, without PREEMPT_RT, no other
 * writer can take it before this one's section ends.  If memory is that
 * short, the section starts without one and a first insert may fail.
 */
static void em_write_preload(void)
{
	/*
	 * Sections also run from reclaim (a page's release, an inode's
	 * eviction), which must not park the emergency reserves that
	 * PF_MEMALLOC opens in a CPU's spares.
	 */
	const gfp_t gfp = GFP_NOFS | __GFP_NOMEMALLOC;
	struct em_index *index;

	for (;;) {
		sl_preload(gfp);
		if (this_cpu_read(em_spare_index))
			return;
		sl_preload_end();
		index = em_index_alloc(gfp | __GFP_NOWARN);
		if (!index)
			break;
		if (this_cpu_cmpxchg(em_spare_index, NULL, index))
			em_index_free(index);
	}
	sl_preload(gfp);
}

int __init extent_map_init(void)
{
	extent_map_cache = kmem_cache_create("btrfs_extent_map",
					     sizeof(struct extent_map), 0,
					     SLAB_MEM_SPREAD, NULL);
	return extent_map_cache ? 0 : -ENOMEM;
}

void __cold extent_map_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct em_index **spare = per_cpu_ptr(&em_spare_index, cpu);

		if (*spare)
			em_index_free(*spare);
		*spare = NULL;
	}
	/* Extent maps still waiting for their grace period. */
	rcu_barrier();
	kmem_cache_destroy(extent_map_cache);
}

/* The exclusive end of [start, start + len), cut at U64_MAX. */
static u64 range_end(u64 start, u64 len)
{
	if (start + len < start)
		return (u64)-1;
	return start + len;
}

static struct extent_map *em_of(struct sl_slot *slot)
{
	return slot ? container_of(slot, struct extent_map, slot) : NULL;
}

/* An interrupt on the writer's CPU is not the writer. */
static bool em_writer_is_me(const struct extent_map_tree *tree)
{
	return in_task() && READ_ONCE(tree->writer) == current;
}

/* The index, for the writer (or a walker holding the lock for reading). */
static struct sl_list *em_map_locked(const struct extent_map_tree *tree)
{
	return rcu_dereference_protected(tree->map,
					 lockdep_is_held(&tree->lock) ||
					 !tree->map);
}

/**
 * extent_map_write_lock() - start a write section
 * @tree: the tree
 *
 * Fills this CPU's reserve of index leaves first (sl_preload()) and
 * its spare index, so that the section's inserts do not fail for want
 * of memory.
 *
 * Context: Process context; may sleep to allocate (GFP_NOFS), then
 * spins.  The section must not sleep, and sections do not nest.
 */
void extent_map_write_lock(struct extent_map_tree *tree)
	__acquires(&tree->lock)
{
	em_write_preload();
	write_lock(&tree->lock);
	write_seqcount_begin(&tree->seq);
	WRITE_ONCE(tree->writer, current);
}

/**
 * extent_map_write_unlock() - end a write section
 * @tree: the tree
 *
 * Context: Inside a section started by extent_map_write_lock().
 */
void extent_map_write_unlock(struct extent_map_tree *tree)
	__releases(&tree->lock)
{
	WRITE_ONCE(tree->writer, NULL);
	write_seqcount_end(&tree->seq);
	write_unlock(&tree->lock);
	sl_preload_end();
}

static void em_write_cond_resched(struct extent_map_tree *tree)
	__must_hold(&tree->lock)
{
	if (!need_resched() && !rwlock_needbreak(&tree->lock))
		return;
	extent_map_write_unlock(tree);
	cond_resched();
	extent_map_write_lock(tree);
}

/* Writers change the tree only inside a marked section. */
static void em_assert_writer(struct extent_map_tree *tree)
{
	lockdep_assert_held_write(&tree->lock);
	WARN_ON_ONCE(!em_writer_is_me(tree));
}

void extent_map_tree_init(struct extent_map_tree *tree)
{
	RCU_INIT_POINTER(tree->map, NULL);
	INIT_LIST_HEAD(&tree->modified_extents);
	rwlock_init(&tree->lock);
	seqcount_rwlock_init(&tree->seq, &tree->lock);
	tree->writer = NULL;
}

static void em_release_slot(struct sl_slot *slot, void *arg)
{
	struct extent_map *em = em_of(slot);

	em->in_tree = false;
	free_extent_map(em);
}

/**
 * extent_map_tree_release() - free a tree's index
 * @tree: the tree; no lookup may run on it any more
 *
 * Drops the tree's reference on any map still in it.  The inode (or file
 * system) that owns @tree is going away, so no task can start a lookup,
 * and the index's leaves are freed after a grace period.
 *
 * Context: Process context; may sleep.
 */
void extent_map_tree_release(struct extent_map_tree *tree)
{
	struct sl_list *map = rcu_dereference_protected(tree->map, true);
	struct em_index *index;

	if (!map)
		return;
	index = container_of(map, struct em_index, list);
	RCU_INIT_POINTER(tree->map, NULL);
	sl_destroy(map, em_release_slot, NULL);
	/* A lookup that broke the rule above still finds it whole. */
	kfree_rcu(index, rcu);
}

/* The index, made at the first insert. */
static struct sl_list *em_map_create(struct extent_map_tree *tree)
{
	struct sl_list *map = em_map_locked(tree);
	struct em_index *index;

	if (map)
		return map;
	index = this_cpu_xchg(em_spare_index, NULL) ?:
		em_index_alloc(GFP_NOWAIT | __GFP_NOWARN);
	if (!index)
		return NULL;
	rcu_assign_pointer(tree->map, &index->list);
	return &index->list;
}

struct extent_map *alloc_extent_map(void)
{
	struct extent_map *em;

	em = kmem_cache_zalloc(extent_map_cache, GFP_NOFS);
	if (!em)
		return NULL;
	em->compress_type = BTRFS_COMPRESS_NONE;
	refcount_set(&em->refs, 1);
	INIT_LIST_HEAD(&em->list);
	return em;
}

static void em_free_rcu(struct rcu_head *head)
{
	struct extent_map *em = container_of(head, struct extent_map, rcu);

	if (test_bit(EXTENT_FLAG_FS_MAPPING, &em->flags))
		kfree(em->map_lookup);
	kmem_cache_free(extent_map_cache, em);
}

/* A lookup may have found the map just before its last reference went. */
void free_extent_map(struct extent_map *em)
{
	if (!em)
		return;
	if (refcount_dec_and_test(&em->refs)) {
		WARN_ON(extent_map_in_tree(em));
		WARN_ON(!list_empty(&em->list));
		call_rcu(&em->rcu, em_free_rcu);
	}
}

/* The map after @em, or NULL; under the lock or inside RCU. */
static struct extent_map *em_next(struct sl_list *map,
				  const struct extent_map *em)
{
	struct sl_iter iter;
	struct sl_slot *slot;

	if (em->slot.key == ULONG_MAX)
		return NULL;
	rcu_read_lock();
	sl_iter_start(&iter, map, em->slot.key + 1);
	slot = sl_iter_next(&iter);
	rcu_read_unlock();
	return em_of(slot);
}

static struct extent_map *em_prev(struct sl_list *map,
				  const struct extent_map *em)
{
	struct sl_iter iter;
	struct sl_slot *slot;

	rcu_read_lock();
	sl_iter_start(&iter, map, em->slot.key);
	slot = sl_iter_prev(&iter);
	rcu_read_unlock();
	return em_of(slot);
}

/**
 * extent_map_first() - the first map of a tree, without a reference
 * @tree: the tree
 *
 * Context: The caller keeps @tree from changing (holds its lock, or is
 * its only user).
 * Return: the map with the lowest start, or NULL for an empty tree.
 */
struct extent_map *extent_map_first(struct extent_map_tree *tree)
{
	struct sl_list *map = rcu_dereference_protected(tree->map, true);
	struct sl_iter iter;
	struct sl_slot *slot;

	if (!map)
		return NULL;
	rcu_read_lock();
	sl_iter_start(&iter, map, 0);
	slot = sl_iter_next(&iter);
	rcu_read_unlock();
	return em_of(slot);
}

/**
 * extent_map_next_locked() - the map after another, without a reference
 * @tree: the tree
 * @em:   a map in @tree
 *
 * Context: As extent_map_first().
 * Return: the next map, or NULL after the last.
 */
struct extent_map *extent_map_next_locked(struct extent_map_tree *tree,
					  const struct extent_map *em)
{
	return em_next(rcu_dereference_protected(tree->map, true), em);
}

/**
 * extent_map_last() - the last map of a tree, without a reference
 * @tree: the tree
 *
 * Context: As extent_map_first().
 * Return: the map with the highest start, or NULL for an empty tree.
 */
struct extent_map *extent_map_last(struct extent_map_tree *tree)
{
	struct sl_list *map = rcu_dereference_protected(tree->map, true);
	struct sl_iter iter;
	struct sl_slot *slot;

	if (!map)
		return NULL;
	rcu_read_lock();
	slot = sl_lookup(map, ULONG_MAX);
	if (!slot) {
		sl_iter_start(&iter, map, ULONG_MAX);
		slot = sl_iter_prev(&iter);
	}
	rcu_read_unlock();
	return em_of(slot);
}

/* Two neighbours btrfs would have as one map. */
static bool mergable_maps(struct extent_map *prev, struct extent_map *next)
{
	/* Pinned and compressed maps keep their own size. */
	if (test_bit(EXTENT_FLAG_PINNED, &prev->flags) ||
	    test_bit(EXTENT_FLAG_COMPRESSED, &prev->flags))
		return false;
	/* Being logged, or waiting to be: the log needs them as they are. */
	if (test_bit(EXTENT_FLAG_LOGGING, &prev->flags) ||
	    test_bit(EXTENT_FLAG_LOGGING, &next->flags))
		return false;
	if (!list_empty(&prev->list) || !list_empty(&next->list))
		return false;

	ASSERT(next->block_start != EXTENT_MAP_DELALLOC &&
	       prev->block_start != EXTENT_MAP_DELALLOC);
	/*
	 * Each chunk mapping owns its stripes, so btrfs's test of equal
	 * @map_lookup never merged two; it would read a file extent's
	 * @ram_bytes now, which shares the bytes.
	 */
	if (test_bit(EXTENT_FLAG_FS_MAPPING, &prev->flags) ||
	    test_bit(EXTENT_FLAG_FS_MAPPING, &next->flags))
		return false;

	/*
	 * No map in a tree ends past U64_MAX (em_insert()), so two
	 * neighbours' lengths add up without wrapping.
	 */
	if (extent_map_end(prev) != next->start || prev->flags != next->flags)
		return false;
	if (next->block_start == EXTENT_MAP_HOLE)
		return prev->block_start == EXTENT_MAP_HOLE;
	if (next->block_start == EXTENT_MAP_INLINE)
		return prev->block_start == EXTENT_MAP_INLINE;
	return next->block_start < EXTENT_MAP_LAST_BYTE - 1 &&
	       next->block_start == extent_map_block_end(prev);
}

/*
 * @em takes over @prev's units and becomes one map with it.  @prev is
 * left as it was: a lookup may hold it, and btrfs never changes a map it
 * takes out of the tree.
 */
static void em_merge_prev(struct extent_map_tree *tree, struct sl_list *map,
			  struct extent_map *em, struct extent_map *prev)
{
	/* Out of the index, @em grows into @prev's place in one step. */
	WARN_ON(sl_erase(map, &em->slot));

	em->start = prev->start;
	em->orig_start = prev->orig_start;
	/* A lookup that found @em before the erase may still read it. */
	WRITE_ONCE(em->len, em->len + prev->len);
	em->block_len += prev->block_len;
	em->block_start = prev->block_start;
	em->mod_len = (em->mod_len + em->mod_start) - prev->mod_start;
	em->mod_start = prev->mod_start;
	em->generation = max(em->generation, prev->generation);
	set_bit(EXTENT_FLAG_MERGED, &em->flags);

	WARN_ON(sl_replace_resized(map, &prev->slot, &em->slot));
	prev->in_tree = false;
	free_extent_map(prev);
}

/* @em takes over @next's units. */
static void em_merge_next(struct extent_map_tree *tree, struct sl_list *map,
			  struct extent_map *em, struct extent_map *next)
{
	WARN_ON(sl_erase(map, &next->slot));
	next->in_tree = false;
	/* @em->len, through the index: lockless lookups read it. */
	WARN_ON(sl_resize(map, &em->slot, em->len + next->len));

	em->block_len += next->block_len;
	em->mod_len = (next->mod_start + next->mod_len) - em->mod_start;
	em->generation = max(em->generation, next->generation);
	set_bit(EXTENT_FLAG_MERGED, &em->flags);
	free_extent_map(next);
}

static void try_merge_map(struct extent_map_tree *tree, struct extent_map *em)
{
	struct sl_list *map = em_map_locked(tree);
	struct extent_map *merge;

	/*
	 * The tree and this task hold @em; a third holder would see it
	 * change.  The barrier orders the section's seqcount bump before
	 * this read, against a lookup's reference and its seqcount check.
	 */
	smp_mb();
	if (refcount_read(&em->refs) > 2)
		return;

	if (em->start != 0) {
		merge = em_prev(map, em);
		if (merge && mergable_maps(merge, em))
			em_merge_prev(tree, map, em, merge);
	}
	merge = em_next(map, em);
	if (merge && mergable_maps(em, merge))
		em_merge_next(tree, map, em, merge);
}

/**
 * unpin_extent_cache - unpin an extent from the cache
 * @tree:	tree to unpin the extent in
 * @start:	logical offset in the file
 * @len:	length of the extent
 * @gen:	generation that this extent has been modified in
 *
 * The extent is on disk now: it may merge with its neighbours, and @gen
 * tells fsync whether it must be logged.
 *
 * Context: Process context; takes the tree's lock.
 * Return: 0.
 */
int unpin_extent_cache(struct extent_map_tree *tree, u64 start, u64 len,
		       u64 gen)
{
	struct extent_map *em;
	bool prealloc = false;

	extent_map_write_lock(tree);
	em = lookup_extent_mapping(tree, start, len);
	WARN_ON(!em || em->start != start);
	if (!em)
		goto out;

	em->generation = gen;
	clear_bit(EXTENT_FLAG_PINNED, &em->flags);
	em->mod_start = em->start;
	em->mod_len = em->len;
	if (test_bit(EXTENT_FLAG_FILLING, &em->flags)) {
		prealloc = true;
		clear_bit(EXTENT_FLAG_FILLING, &em->flags);
	}

	try_merge_map(tree, em);

	if (prealloc) {
		em->mod_start = em->start;
		em->mod_len = em->len;
	}
	free_extent_map(em);
out:
	extent_map_write_unlock(tree);
	return 0;
}

void clear_em_logging(struct extent_map_tree *tree, struct extent_map *em)
{
	em_assert_writer(tree);

	clear_bit(EXTENT_FLAG_LOGGING, &em->flags);
	if (extent_map_in_tree(em))
		try_merge_map(tree, em);
}

/* The tree's reference, and either the modified list or a merge. */
static void setup_extent_mapping(struct extent_map_tree *tree,
				 struct extent_map *em, int modified)
{
	refcount_inc(&em->refs);
	em->mod_start = em->start;
	em->mod_len = em->len;

	if (modified)
		list_move(&em->list, &tree->modified_extents);
	else
		try_merge_map(tree, em);
}

/* Mark or clear @bits on each device range a chunk mapping stripes over. */
static void em_device_bits(struct extent_map *em, unsigned int bits, bool set)
{
	struct map_lookup *map = em->map_lookup;
	u64 stripe_size = em->orig_block_len;
	int i;

	for (i = 0; i < map->num_stripes; i++) {
		struct btrfs_io_stripe *stripe = &map->stripes[i];
		struct btrfs_device *device = stripe->dev;
		u64 end = stripe->physical + stripe_size - 1;

		if (set)
			set_extent_bits_nowait(&device->alloc_state,
					       stripe->physical, end, bits);
		else
			__clear_extent_bit(&device->alloc_state,
					   stripe->physical, end, bits,
					   NULL, GFP_NOWAIT, NULL);
	}
}

/*
 * A map the index could not take for want of memory (an insert that
 * must split a leaf, under the writer's spinning lock).  A modified map
 * is on no list then, so the next fsync of its inode must be a full one,
 * as btrfs does when its own split allocation fails.  Only inode trees
 * hold modified maps.
 */
static void em_not_cached(struct extent_map_tree *tree, struct extent_map *em,
			  int modified, int err)
{
	if (err != -ENOMEM)
		return;
	pr_warn_ratelimited("btrfs: extent map %llu+%llu not cached: out of memory\n",
			    em->start, em->len);
	if (modified)
		btrfs_set_inode_full_sync(container_of(tree, struct btrfs_inode,
						       extent_tree));
}

/* Put @em in the index: 0, -EEXIST on overlap, -ENOMEM, -EINVAL. */
static int em_insert(struct extent_map_tree *tree, struct extent_map *em)
{
	struct sl_list *map;
	int ret;

	if (WARN_ON_ONCE(!em->len))
		return -EINVAL;
	/*
	 * @len is the slot's size, which cannot reach past U64_MAX.  btrfs
	 * cached a map whose end wraps cut at U64_MAX, but none of its
	 * callers makes one: the tree checker refuses file extent and chunk
	 * items whose end wraps, and the maps btrfs makes itself (holes,
	 * I/O) lie inside files, below 2^63.
	 */
	if (em->start + em->len < em->start) {
		pr_warn_ratelimited("btrfs: extent map %llu+%llu not cached: its end wraps past U64_MAX\n",
				    em->start, em->len);
		return -EINVAL;
	}
	map = em_map_create(tree);
	if (!map)
		return -ENOMEM;
	ret = sl_insert(map, &em->slot, GFP_NOWAIT);
	if (!ret)
		em->in_tree = true;
	return ret;
}

/**
 * add_extent_mapping - add an extent map to a tree
 * @tree:	the tree
 * @em:		the map; the tree takes a reference of its own
 * @modified:	put @em on the modified list (it must be logged) instead
 *		of merging it with its neighbours
 *
 * Context: Inside extent_map_write_lock().
 * Return: 0; -EEXIST if @em overlaps a map in the tree; -ENOMEM if the
 * index could not grow (new with the skiplist: a leaf split allocates).
 */
int add_extent_mapping(struct extent_map_tree *tree,
		       struct extent_map *em, int modified)
{
	int ret;

	em_assert_writer(tree);
	ret = em_insert(tree, em);
	if (ret) {
		em_not_cached(tree, em, modified, ret);
		return ret;
	}
	setup_extent_mapping(tree, em, modified);
	if (test_bit(EXTENT_FLAG_FS_MAPPING, &em->flags)) {
		em_device_bits(em, CHUNK_ALLOCATED, true);
		em_device_bits(em, CHUNK_TRIMMED, false);
	}
	return 0;
}

/*
 * The map covering @start, else the first after it, else (unless
 * @strict) the last before it; with @strict, only one overlapping
 * [@start, @end).  Under RCU or the tree's lock.
 */
static struct extent_map *em_find(struct sl_list *map, u64 start, u64 end,
				  bool strict)
{
	struct extent_map *em = NULL;
	struct sl_iter iter;

	if (!map)
		return NULL;
	if (start < ULONG_MAX)
		em = em_of(sl_first_overlap(map, start, ULONG_MAX));
	if (!em && !strict) {
		sl_iter_start(&iter, map, start);
		em = em_of(sl_iter_prev(&iter));
	}
	if (em && strict && !(end > em->start && start < extent_map_end(em)))
		return NULL;
	return em;
}

static struct extent_map *
__lookup_extent_mapping(struct extent_map_tree *tree, u64 start, u64 len,
			bool strict)
{
	u64 end = range_end(start, len);
	struct extent_map *em;
	unsigned int seq;

	if (em_writer_is_me(tree)) {
		/* Our own section: nothing else changes the tree. */
		rcu_read_lock();
		em = em_find(em_map_locked(tree), start, end, strict);
		if (em)
			refcount_inc(&em->refs);
		rcu_read_unlock();
		return em;
	}
	for (;;) {
		bool held = true;

		seq = read_seqcount_begin(&tree->seq);
		rcu_read_lock();
		em = em_find(rcu_dereference(tree->map), start, end, strict);
		if (em)
			held = refcount_inc_not_zero(&em->refs);
		rcu_read_unlock();
		/* Our reference before the check: see try_merge_map(). */
		smp_mb();
		if (held && !read_seqcount_retry(&tree->seq, seq))
			return em;
		if (em && held)
			free_extent_map(em);
	}
}

/**
 * lookup_extent_mapping - find the first map overlapping a range
 * @tree:	the tree
 * @start:	first byte of the range
 * @len:	bytes in the range
 *
 * Context: Any context that may spin; no lock needed.
 * Return: the map with the lowest start that overlaps [@start, @start +
 * @len), with a reference the caller drops with free_extent_map(); NULL
 * if none does.
 */
struct extent_map *lookup_extent_mapping(struct extent_map_tree *tree,
					 u64 start, u64 len)
{
	return __lookup_extent_mapping(tree, start, len, true);
}

/**
 * search_extent_mapping - find the map nearest a range
 * @tree:	the tree
 * @start:	first byte of the range
 * @len:	bytes in the range
 *
 * Context: Any context that may spin; no lock needed.
 * Return: the map covering @start, else the first after it, else the last
 * before it, with a reference; NULL for an empty tree.
 */
struct extent_map *search_extent_mapping(struct extent_map_tree *tree,
					 u64 start, u64 len)
{
	return __lookup_extent_mapping(tree, start, len, false);
}

/**
 * remove_extent_mapping - take a map out of its tree
 * @tree:	the tree
 * @em:		the map; the tree's reference becomes the caller's to drop
 *
 * Context: Inside extent_map_write_lock().
 */
void remove_extent_mapping(struct extent_map_tree *tree, struct extent_map *em)
{
	em_assert_writer(tree);

	WARN_ON(test_bit(EXTENT_FLAG_PINNED, &em->flags));
	WARN_ON(sl_erase(em_map_locked(tree), &em->slot));
	em->in_tree = false;
	if (!test_bit(EXTENT_FLAG_LOGGING, &em->flags))
		list_del_init(&em->list);
	if (test_bit(EXTENT_FLAG_FS_MAPPING, &em->flags))
		em_device_bits(em, CHUNK_ALLOCATED, false);
}

/*
 * Put @new where @cur is; @new lies inside @cur's range.  Without an
 * allocation when both start at the same byte; otherwise @cur's slot
 * goes and @new's is inserted, which fails only if a leaf must split and
 * no memory is found, not even preloaded: then @cur is out and @new is
 * not in.
 */
static int em_replace(struct extent_map_tree *tree, struct extent_map *cur,
		      struct extent_map *new, int modified)
{
	struct sl_list *map = em_map_locked(tree);
	int ret = 0;

	em_assert_writer(tree);
	WARN_ON(test_bit(EXTENT_FLAG_PINNED, &cur->flags));
	ASSERT(extent_map_in_tree(cur));
	if (!test_bit(EXTENT_FLAG_LOGGING, &cur->flags))
		list_del_init(&cur->list);

	if (new->start == cur->start && new->len && new->len <= cur->len) {
		/* @cur keeps its length: its holders may still read it. */
		WARN_ON(sl_replace_resized(map, &cur->slot, &new->slot));
		new->in_tree = true;
	} else {
		WARN_ON(sl_erase(map, &cur->slot));
		ret = em_insert(tree, new);
		em_not_cached(tree, new, modified, ret);
	}
	cur->in_tree = false;
	if (!ret)
		setup_extent_mapping(tree, new, modified);
	return ret;
}

/**
 * replace_extent_mapping - put one map in place of another
 * @tree:	the tree
 * @cur:	a map in @tree; the tree's reference becomes the caller's
 * @new:	the map taking its place, within its range
 * @modified:	as for add_extent_mapping()
 *
 * Context: Inside extent_map_write_lock().
 */
void replace_extent_mapping(struct extent_map_tree *tree,
			    struct extent_map *cur,
			    struct extent_map *new,
			    int modified)
{
	em_replace(tree, cur, new, modified);
}

/**
 * btrfs_next_extent_map - the map after another
 * @tree:	the tree, locked for reading or writing
 * @em:		a map in @tree
 *
 * Context: The caller holds @tree's lock, so @em stays in @tree.
 * Return: the next map with a reference, or NULL after the last.
 */
struct extent_map *btrfs_next_extent_map(const struct extent_map_tree *tree,
					 const struct extent_map *em)
{
	struct extent_map *next;

	lockdep_assert_held(&tree->lock);
	ASSERT(extent_map_in_tree(em));

	next = em_next(em_map_locked(tree), em);
	if (next)
		refcount_inc(&next->refs);
	return next;
}

/*
 * btrfs_get_extent() read @em from disk, but a map in the tree overlaps
 * it: cut @em to the gap around @map_start between @existing's
 * neighbours and insert that.
 */
static noinline int merge_extent_mapping(struct extent_map_tree *em_tree,
					 struct extent_map *existing,
					 struct extent_map *em,
					 u64 map_start)
{
	struct sl_list *map = em_map_locked(em_tree);
	struct extent_map *prev, *next;
	u64 start, end, start_diff;

	if (WARN_ON(map_start < em->start || map_start >= extent_map_end(em)))
		return -EINVAL;

	if (existing->start > map_start) {
		next = existing;
		prev = em_prev(map, next);
	} else {
		prev = existing;
		next = em_next(map, prev);
	}

	start = prev ? extent_map_end(prev) : em->start;
	start = max_t(u64, start, em->start);
	end = next ? next->start : extent_map_end(em);
	end = min_t(u64, end, extent_map_end(em));
	start_diff = start - em->start;
	em->start = start;
	em->len = end - start;
	if (em->block_start < EXTENT_MAP_LAST_BYTE &&
	    !test_bit(EXTENT_FLAG_COMPRESSED, &em->flags)) {
		em->block_start += start_diff;
		em->block_len = em->len;
	}
	return add_extent_mapping(em_tree, em, 0);
}

/**
 * btrfs_add_extent_mapping - add a map read from disk
 * @fs_info:  the file system
 * @em_tree:  the tree
 * @em_in:    the map; on return, the map that serves [@start, @start +
 *            @len) (an existing one when it covers @start)
 * @start:    the range btrfs_get_extent() was asked for
 * @len:      its length
 *
 * Another task may have cached an overlapping map while this one read
 * the disk: then the existing map is returned if it covers @start, and
 * otherwise @em_in is cut to the gap it leaves and inserted.
 *
 * Context: Inside extent_map_write_lock().
 * Return: 0, or a negative errno (@em_in is then dropped and NULL).
 */
int btrfs_add_extent_mapping(struct btrfs_fs_info *fs_info,
			     struct extent_map_tree *em_tree,
			     struct extent_map **em_in, u64 start, u64 len)
{
	struct extent_map *em = *em_in;
	struct extent_map *existing;
	u64 orig_start, orig_len;
	int ret;

	ret = add_extent_mapping(em_tree, em, 0);
	if (ret != -EEXIST)
		return ret;

	existing = search_extent_mapping(em_tree, start, len);
	trace_btrfs_handle_em_exist(fs_info, existing, em, start, len);

	/* Something overlaps @em, so the tree is not empty. */
	if (start >= existing->start && start < extent_map_end(existing)) {
		free_extent_map(em);
		*em_in = existing;
		return 0;
	}

	orig_start = em->start;
	orig_len = em->len;
	ret = merge_extent_mapping(em_tree, existing, em, start);
	if (ret) {
		free_extent_map(em);
		*em_in = NULL;
		WARN_ONCE(ret != -ENOMEM,
			  "btrfs: cannot cache %llu+%llu beside %llu+%llu: %d\n",
			  orig_start, orig_len, existing->start, existing->len,
			  ret);
	}
	free_extent_map(existing);
	return ret;
}

/* Empty the tree one first map at a time, yielding the lock as needed. */
static void drop_all_extent_maps_fast(struct extent_map_tree *tree)
{
	struct extent_map *em;

	extent_map_write_lock(tree);
	while ((em = extent_map_first(tree))) {
		clear_bit(EXTENT_FLAG_PINNED, &em->flags);
		clear_bit(EXTENT_FLAG_LOGGING, &em->flags);
		remove_extent_mapping(tree, em);
		free_extent_map(em);
		em_write_cond_resched(tree);
	}
	extent_map_write_unlock(tree);
}

/* Fill @split with the part of @em in [@start, @end) (one side of a cut). */
static void em_split_part(struct extent_map *split, struct extent_map *em,
			  u64 start, u64 end, unsigned long flags, bool head)
{
	bool compressed = test_bit(EXTENT_FLAG_COMPRESSED, &em->flags);

	/* An inode's tree holds no chunk mapping: @ram_bytes is a length. */
	ASSERT(!test_bit(EXTENT_FLAG_FS_MAPPING, &em->flags));
	split->start = start;
	split->len = end - start;
	split->block_start = em->block_start;
	split->flags = flags;
	split->compress_type = em->compress_type;
	split->generation = em->generation;

	if (em->block_start >= EXTENT_MAP_LAST_BYTE) {
		split->orig_start = split->start;
		split->block_len = 0;
		split->orig_block_len = 0;
		split->ram_bytes = split->len;
		return;
	}
	split->orig_start = em->orig_start;
	split->ram_bytes = em->ram_bytes;
	if (compressed) {
		split->block_len = em->block_len;
	} else {
		split->block_len = split->len;
		if (!head)
			split->block_start += start - em->start;
	}
	if (head)
		split->orig_block_len = max(split->block_len,
					    em->orig_block_len);
	else
		split->orig_block_len = max(em->block_len,
					    em->orig_block_len);
}

/**
 * btrfs_drop_extent_map_range - drop the maps in a range of an inode
 * @inode:       the inode
 * @start:       first byte of the range
 * @end:         last byte of the range (inclusive)
 * @skip_pinned: leave pinned maps alone
 *
 * Maps that stick out of the range are cut, keeping the parts outside.
 * When a cut finds no memory, the whole map goes: it is read again from
 * the file extent items when needed, and an inode whose modified map
 * went that way gets a full fsync.  The caller has locked the range in
 * the inode's io tree.
 *
 * Context: Process context; takes the tree's lock.
 */
void btrfs_drop_extent_map_range(struct btrfs_inode *inode, u64 start, u64 end,
				 bool skip_pinned)
{
	struct extent_map_tree *em_tree = &inode->extent_tree;
	struct extent_map *split, *split2, *em;
	u64 len = end - start + 1;

	WARN_ON(end < start);
	if (end == (u64)-1) {
		if (start == 0 && !skip_pinned) {
			drop_all_extent_maps_fast(em_tree);
			return;
		}
		len = (u64)-1;
	} else {
		end++;	/* exclusive from here on */
	}

	/* At most two cuts: the first map and the last one. */
	split = alloc_extent_map();
	split2 = alloc_extent_map();

	extent_map_write_lock(em_tree);
	em = lookup_extent_mapping(em_tree, start, len);
	while (em) {
		const u64 em_end = extent_map_end(em);
		struct extent_map *next_em = NULL;
		unsigned long flags;
		bool modified;

		if (em_end < end) {
			next_em = em_next(em_map_locked(em_tree), em);
			if (next_em && next_em->start < end)
				refcount_inc(&next_em->refs);
			else
				next_em = NULL;
		}

		if (skip_pinned && test_bit(EXTENT_FLAG_PINNED, &em->flags)) {
			start = em_end;
			goto next;
		}

		flags = em->flags;
		clear_bit(EXTENT_FLAG_PINNED, &em->flags);
		/* The parts kept are not being logged; @em still may be. */
		clear_bit(EXTENT_FLAG_LOGGING, &flags);
		modified = !list_empty(&em->list);

		if (em->start >= start && em_end <= end)
			goto remove_em;

		if (em->start < start) {
			if (!split) {
				split = split2;
				split2 = NULL;
				if (!split)
					goto remove_em;
			}
			em_split_part(split, em, em->start, start, flags, true);
			if (em_replace(em_tree, em, split, modified) && modified)
				btrfs_set_inode_full_sync(inode);
			free_extent_map(split);
			split = split2;
			split2 = NULL;
		}
		if (em_end > end) {
			int ret;

			if (!split) {
				split = split2;
				split2 = NULL;
				if (!split)
					goto remove_em;
			}
			em_split_part(split, em, end, em_end, flags, false);
			if (extent_map_in_tree(em))
				ret = em_replace(em_tree, em, split, modified);
			else
				ret = add_extent_mapping(em_tree, split,
							 modified);
			/* -EEXIST would be a logic error; -ENOMEM is not. */
			WARN_ON(ret == -EEXIST);
			if (ret && modified)
				btrfs_set_inode_full_sync(inode);
			free_extent_map(split);
			split = NULL;
		}
remove_em:
		if (extent_map_in_tree(em)) {
			/*
			 * Either all of it is in the range, or a cut found
			 * no memory: the parts outside are read again when
			 * needed, but a modified map must then be logged by
			 * a full fsync.
			 */
			if ((em->start < start || em_end > end) && modified) {
				ASSERT(!split);
				btrfs_set_inode_full_sync(inode);
			}
			remove_extent_mapping(em_tree, em);
		}
		/* The tree's reference (replaced or removed). */
		free_extent_map(em);
next:
		/* Our lookup's reference. */
		free_extent_map(em);
		em = next_em;
	}
	extent_map_write_unlock(em_tree);

	free_extent_map(split);
	free_extent_map(split2);
}

/**
 * btrfs_replace_extent_map_range - replace the maps in a range by one
 * @inode:      the inode
 * @new_em:     the map, in no tree
 * @modified:   as for add_extent_mapping()
 *
 * Two tasks working on different parts of one extent may still make the
 * add meet an overlap after the drop, so it drops and adds until the add
 * succeeds.  The caller has locked the range in the inode's io tree.
 *
 * Context: Process context; takes the tree's lock.
 * Return: 0, or -ENOMEM if the index could not grow.
 */
int btrfs_replace_extent_map_range(struct btrfs_inode *inode,
				   struct extent_map *new_em,
				   bool modified)
{
	const u64 end = new_em->start + new_em->len - 1;
	struct extent_map_tree *tree = &inode->extent_tree;
	int ret;

	ASSERT(!extent_map_in_tree(new_em));
	do {
		btrfs_drop_extent_map_range(inode, new_em->start, end, false);
		extent_map_write_lock(tree);
		ret = add_extent_mapping(tree, new_em, modified);
		extent_map_write_unlock(tree);
	} while (ret == -EEXIST);
	return ret;
}
