// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf directory: every leaf's lower fence in one sorted array, with
 * the leaf's address beside it, rebuilt in the background.  A search
 * binary-searches the fences, and lands in the leaf covering its key or
 * just left of it, instead of descending about log2(leaves) tower levels
 * through twice as many links in scattered leaves (Documentation/
 * skiplist.rst, "Leaf directory").  A table of buckets by the key's top
 * bits narrows the binary search to the fences in the key's bucket: about
 * two when the fences are spread over the key space, all of them when
 * they are bunched in one bucket.
 *
 * Like the descent it stands in for, the directory is only a guess: what
 * makes a search's answer right is the snapshot of the leaf it ends in,
 * checked against that leaf's fences (search.c).  A leaf split since the
 * last rebuild is missing from the directory, so a search for a key it
 * took lands on its left neighbour, sees the key beyond that leaf's upper
 * fence, tries the next leaf once and then descends through the towers
 * (search.c, sl_start()), so that a run of splits never makes a long
 * walk.  Writers count splits and merges, and once they reach an eighth
 * of the leaves the directory was built from, they queue a rebuild.
 * Readers never write.
 *
 * What makes a pointer read from the directory safe to follow is that no
 * leaf is freed while a reader can still find it there:
 *
 *  - A leaf that dies (merged into the leaf before it, delete.c) clears its
 *    entry in the current directory before it goes to RCU to be freed, so
 *    a reader that still finds it there began before the grace period did.
 *  - The rebuild walks level 0 inside one read-side section, and skips dead
 *    leaves; after publishing the new directory it clears the entries of
 *    leaves that died during the walk.  A leaf that dies while a rebuild is
 *    running cannot know whether its entry is in the directory being built,
 *    so it waits two grace periods: the first outlasts the rebuild's
 *    read-side section, and with it the clearing of its entry; the second
 *    outlasts every reader that found the leaf in the new directory before
 *    that.
 *  - The two sides order themselves with full barriers (sl_dir_retire()
 *    against the rebuild): either the dying leaf sees the rebuild running,
 *    or the rebuild's walk sees the leaf dead; and a leaf that sees a
 *    rebuild finished sees the directory it published.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/overflow.h>
#include <linux/workqueue.h>
#include "leaf.h"

/*
 * Below this many leaves the descent is short and the directory would not
 * pay for its rebuilds; a list has none until it grows past it.
 */
#define SL_DIR_MIN_LEAVES	64

/* Splits and merges that queue a rebuild: an eighth of the leaves. */
#define SL_DIR_STALE_SHIFT	3

#ifndef SL_NO_DIRECTORY
/* Count a split or a merge, and queue a rebuild once enough have. */
void sl_dir_changed(struct sl_list *list)
{
	if (atomic_long_inc_return(&list->dir_changes) >=
	    READ_ONCE(list->dir_rebuild_at) && !work_pending(&list->dir_work))
		queue_work(system_unbound_wq, &list->dir_work);
}
#else
void sl_dir_changed(struct sl_list *list)
{
}
#endif

/* The entry of @leaf in @dir, if it has one; -1 if not. */
static long sl_dir_find(struct sl_dir *dir, struct sl_leaf *leaf)
{
	unsigned int loads = 0;	/* a writer's search: not counted */
	unsigned long base = sl_dir_floor(dir, leaf->lo, &loads);

	if (dir->entry[base].lo != leaf->lo ||
	    rcu_access_pointer(dir->entry[base].leaf) != leaf)
		return -1;
	return base;
}

/**
 * sl_dir_retire() - take a dead leaf out of the directory and free it
 * @list: the list
 * @leaf: a leaf that is dead and unlinked from every level
 *
 * Context: rcu_read_lock() held.
 */
void sl_dir_retire(struct sl_list *list, struct sl_leaf *leaf)
{
	struct sl_dir *dir;
	bool building;
	long idx;

	/*
	 * @leaf->dead was set in the merge; order it before reading whether a
	 * rebuild runs, as the rebuild orders setting that before reading
	 * which leaves are dead.
	 */
	smp_mb();
	/* Pairs with the rebuild's release: one seen finished had published. */
	building = smp_load_acquire(&list->dir_building);
	dir = rcu_dereference(list->dir);
	if (dir) {
		idx = sl_dir_find(dir, leaf);
		if (idx >= 0)
			RCU_INIT_POINTER(dir->entry[idx].leaf, NULL);
	}
	sl_dir_changed(list);
	if (building)
		sl_leaf_free_rcu_twice(leaf);
	else
		sl_leaf_free_rcu(leaf);
}

/* Words of sl_dir.mem for @cap entries and @buckets buckets. */
static unsigned long sl_dir_words(unsigned long cap, unsigned long buckets)
{
	return DIV_ROUND_UP(cap * sizeof(struct sl_dir_entry) +
			    (buckets + 1) * sizeof(u32), sizeof(unsigned long));
}

/* Live leaves at level 0 now, near enough. */
static unsigned long sl_dir_count(struct sl_list *list)
{
	struct sl_leaf *leaf;
	unsigned long count = 0;

	rcu_read_lock();
	for (leaf = list->head; leaf; leaf = rcu_dereference(leaf->next))
		count++;
	rcu_read_unlock();
	return count;
}

/*
 * Fill @dir with the live leaves met on one walk along level 0, at most
 * @cap of them.  Returns false if there were more.  Inside a read-side
 * section; the lower fences met only grow, since each leaf's next pointer,
 * dead or alive, names a leaf further right.
 */
static bool sl_dir_fill(struct sl_list *list, struct sl_dir *dir,
			unsigned long cap)
{
	struct sl_leaf *leaf;
	unsigned long nr = 0;

	for (leaf = list->head; leaf; leaf = rcu_dereference(leaf->next)) {
		if (READ_ONCE(leaf->dead) || (nr && leaf->lo <= dir->entry[nr - 1].lo))
			continue;
		if (nr == cap)
			return false;
		dir->entry[nr].lo = leaf->lo;
		RCU_INIT_POINTER(dir->entry[nr].leaf, leaf);
		nr++;
	}
	dir->nr = nr;
	return true;
}

/*
 * Fill the bucket table of @dir, whose fences are in: the shift puts the
 * highest fence in the last bucket or below, and each bucket gets the
 * floor entry of its first key.
 */
static void sl_dir_fill_buckets(struct sl_dir *dir)
{
	unsigned long b, i = 0, top = dir->entry[dir->nr - 1].lo;
	unsigned int bits = ilog2(dir->buckets);

	dir->shift = fls_long(top) > bits ? fls_long(top) - bits : 0;
	for (b = 0; b < dir->buckets; b++) {
		unsigned long first = b << dir->shift;

		while (i + 1 < dir->nr && dir->entry[i + 1].lo <= first)
			i++;
		dir->bucket[b] = i;
	}
	dir->bucket[dir->buckets] = dir->nr - 1;
}

/* Clear the entries of leaves that died while @dir was being built. */
static void sl_dir_sweep(struct sl_dir *dir)
{
	unsigned long i;

	for (i = 0; i < dir->nr; i++) {
		struct sl_leaf *leaf = rcu_dereference(dir->entry[i].leaf);

		if (leaf && READ_ONCE(leaf->dead))
			RCU_INIT_POINTER(dir->entry[i].leaf, NULL);
	}
}

/* The directory of @list, to the work item that alone replaces it. */
static struct sl_dir *sl_dir_owned(struct sl_list *list)
{
	return rcu_dereference_protected(list->dir,
					 current_work() == &list->dir_work);
}

/* The work item: build a directory of the leaves now, and publish it. */
static void sl_dir_rebuild(struct work_struct *work)
{
	struct sl_list *list = container_of(work, struct sl_list, dir_work);
	struct sl_dir *dir = NULL, *old = sl_dir_owned(list);
	unsigned long count, cap = 0, buckets;
	bool full;

	/* Changes from here on count towards the next rebuild. */
	atomic_long_set(&list->dir_changes, 0);
	count = sl_dir_count(list);
	WRITE_ONCE(list->dir_rebuild_at,
		   max_t(long, count >> SL_DIR_STALE_SHIFT, SL_DIR_MIN_LEAVES));
	/* Bucket entries are 32 bits: far more leaves than memory holds. */
	if (count >= SL_DIR_MIN_LEAVES && count < U32_MAX / 2) {
		/* Room for the splits that land during the walk. */
		cap = count + count / 8 + 16;
		buckets = rounddown_pow_of_two(cap);
		dir = kvmalloc(struct_size(dir, mem, sl_dir_words(cap, buckets)),
			       GFP_KERNEL | __GFP_NOWARN);
		/* Without memory, the old directory serves until next time. */
		if (!dir)
			return;
		dir->cap = cap;
		dir->buckets = buckets;
		dir->entry = (struct sl_dir_entry *)dir->mem;
		dir->bucket = (u32 *)(dir->entry + cap);
	}

	rcu_read_lock();
	WRITE_ONCE(list->dir_building, 1);
	/* Pairs with sl_dir_retire(): it sees us, or we see its leaf dead. */
	smp_mb();
	full = dir && !sl_dir_fill(list, dir, cap);
	if (dir && !full)
		sl_dir_fill_buckets(dir);
	sl_window(list, SL_WIN_DIR_FILLED, .key = 0);
	if (!full) {
		rcu_assign_pointer(list->dir, dir);
		/* Published before the sweep reads which leaves died. */
		smp_mb();
		if (dir)
			sl_dir_sweep(dir);
	}
	rcu_read_unlock();
	/* Pairs with sl_dir_retire()'s acquire: the directory is out first. */
	smp_store_release(&list->dir_building, 0);

	if (full) {
		/* The list outgrew the count: try again, with a fresh one. */
		kvfree(dir);
		queue_work(system_unbound_wq, &list->dir_work);
		return;
	}
	if (old)
		kvfree_rcu(old, rcu);
}

/* Bytes the directory of @list takes; under rcu_read_lock(). */
unsigned long sl_dir_bytes(struct sl_list *list)
{
	struct sl_dir *dir = rcu_dereference(list->dir);

	return dir ? struct_size(dir, mem, sl_dir_words(dir->cap, dir->buckets)) : 0;
}

/* Set up the directory fields of a new list: no directory yet. */
void sl_dir_init(struct sl_list *list)
{
	RCU_INIT_POINTER(list->dir, NULL);
	atomic_long_set(&list->dir_changes, 0);
	list->dir_rebuild_at = SL_DIR_MIN_LEAVES;
	list->dir_building = 0;
	INIT_WORK(&list->dir_work, sl_dir_rebuild);
}

/*
 * Stop rebuilding and free the directory of a list nobody uses any more.
 * Context: process context; sleeps while a rebuild finishes.
 */
void sl_dir_destroy(struct sl_list *list)
{
	struct sl_dir *dir;

	cancel_work_sync(&list->dir_work);
	/* No rebuild runs or can start: nothing else writes the pointer. */
	dir = rcu_dereference_protected(list->dir, true);
	RCU_INIT_POINTER(list->dir, NULL);
	if (dir)
		kvfree_rcu(dir, rcu);
}

/*
 * Each bucket starting at the floor entry of its first key, and each
 * fence, and the key below it, found where it belongs.
 */
static int sl_dir_check_buckets(struct sl_dir *dir)
{
	unsigned int loads = 0;
	unsigned long b, i;

	if (dir->bucket[dir->buckets] != dir->nr - 1 ||
	    dir->entry[dir->nr - 1].lo >> dir->shift >= dir->buckets) {
		pr_err("skiplist: check failed: directory buckets end wrong\n");
		return -EUCLEAN;
	}
	for (b = 0; b < dir->buckets; b++) {
		unsigned long first = b << dir->shift, e = dir->bucket[b];

		if (e >= dir->nr || dir->entry[e].lo > first ||
		    (e + 1 < dir->nr && dir->entry[e + 1].lo <= first)) {
			pr_err("skiplist: check failed: directory bucket %lu starts at entry %lu\n",
			       b, e);
			return -EUCLEAN;
		}
	}
	for (i = 0; i < dir->nr; i++) {
		if (sl_dir_floor(dir, dir->entry[i].lo, &loads) != i ||
		    (i && sl_dir_floor(dir, dir->entry[i].lo - 1, &loads) != i - 1)) {
			pr_err("skiplist: check failed: directory search misses entry %lu (%lx)\n",
			       i, dir->entry[i].lo);
			return -EUCLEAN;
		}
	}
	if (sl_dir_floor(dir, ULONG_MAX, &loads) != dir->nr - 1) {
		pr_err("skiplist: check failed: directory search misses the top\n");
		return -EUCLEAN;
	}
	return 0;
}

/**
 * sl_dir_check() - verify the directory of a quiescent list
 * @list: the list; no writer may run on it meanwhile
 *
 * Fences strictly increasing from 0, each entry naming a leaf with that
 * fence, the head first, and no dead leaf unless a rebuild is still
 * sweeping; and the bucketed search finding each fence, and the key just
 * below it, in the entry it belongs to.
 *
 * Context: rcu_read_lock() held.
 * Return: 0, or -EUCLEAN after printing the first violation.
 */
int sl_dir_check(struct sl_list *list)
{
	struct sl_dir *dir = rcu_dereference(list->dir);
	unsigned long i;

	if (!dir)
		return 0;
	if (!dir->nr || dir->entry[0].lo || rcu_dereference(dir->entry[0].leaf) != list->head) {
		pr_err("skiplist: check failed: directory does not start at the head\n");
		return -EUCLEAN;
	}
	for (i = 0; i < dir->nr; i++) {
		struct sl_leaf *leaf = rcu_dereference(dir->entry[i].leaf);

		if (i && dir->entry[i].lo <= dir->entry[i - 1].lo) {
			pr_err("skiplist: check failed: directory entry %lu fence %lx after %lx\n",
			       i, dir->entry[i].lo, dir->entry[i - 1].lo);
			return -EUCLEAN;
		}
		if (!leaf)
			continue;
		if (leaf->lo != dir->entry[i].lo) {
			pr_err("skiplist: check failed: directory entry %lu says %lx, its leaf %lx\n",
			       i, dir->entry[i].lo, leaf->lo);
			return -EUCLEAN;
		}
		if (READ_ONCE(leaf->dead) && !READ_ONCE(list->dir_building)) {
			pr_err("skiplist: check failed: directory entry %lu names a dead leaf\n",
			       i);
			return -EUCLEAN;
		}
	}
	return sl_dir_check_buckets(dir);
}
