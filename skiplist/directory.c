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
 *    entry in the directory it finds published (sl_dir_retire()) before it
 *    goes to be freed, so a reader that still finds it there began before
 *    the grace period that frees it did.
 *  - The rebuild walks level 0 in chunks of SL_ATOMIC_LEAVES leaves, each
 *    in a read-side section of its own, and may reschedule between them,
 *    so that it never holds a CPU for a time that grows with the list.  It
 *    keeps no leaf pointer from one section to the next but those in the
 *    entries it has filled: each section after the first starts with a
 *    fresh search for the fence of the last entry (sl_dir_resume()).  It
 *    skips dead leaves and fences that do not grow.
 *  - The entries it has filled name leaves that may die in a later chunk,
 *    long after a grace period would have freed them.  So a leaf that dies
 *    while a rebuild runs (@dir_building) is not freed: it goes on the
 *    list's queue @dir_dying, and only the rebuild's work item, which runs
 *    once at a time, takes leaves off that queue: at its end, after it has
 *    published the new directory and cleared in it the entries of leaves
 *    that died (the sweep, which reads them and so needs them unfreed),
 *    and at its start, for leaves queued after the previous rebuild ended.
 *  - The start: the rebuild sets @dir_building, then (full barrier) reads
 *    which leaves are dead; a dying leaf sets @dead, then (full barrier)
 *    reads @dir_building.  Either the leaf sees the rebuild running and
 *    queues itself, or the walk sees it dead and never enters it.  Every
 *    leaf an entry names therefore stays unfreed until the rebuild ends.
 *  - The sweep: the rebuild publishes, then (full barrier) reads which
 *    leaves are dead; a dying leaf sets @dead, then (same barrier) reads
 *    which directory is published.  Either the sweep clears its entry in
 *    the new directory, or the leaf does.
 *  - The end: the rebuild clears @dir_building (release: a leaf that sees
 *    it clear sees the new directory), then (full barrier) empties the
 *    queue; a queued leaf, after queuing itself, (full barrier) reads
 *    @dir_building again.  Either the rebuild takes the leaf off the queue,
 *    or the leaf sees the rebuild ended and queues the next one, whose
 *    start frees it.  No leaf waits on the queue for more than a rebuild.
 *  - A leaf taken off the queue is freed after one grace period: its
 *    entries in every directory that named it were cleared before it was
 *    queued or by the sweep, both before the queue was emptied, so every
 *    reader that found it there had begun before that grace period; and a
 *    reader of an older directory began before the new one was published.
 *  - A leaf that dies while no rebuild runs goes straight to RCU: no
 *    rebuild holds it, and the next one sees it dead.
 *
 * tools/testing/skiplist runs a rebuild that loses leaves between its
 * chunks, with grace periods forced there, under AddressSanitizer
 * (test_skiplist.c, test_directory_chunks).
 *
 * The directory is memory a list's user makes the rebuild allocate: a list
 * set up with __GFP_ACCOUNT records the memory cgroup of its creator
 * (sl_init()), and the rebuild charges the directory to it, as the leaves
 * that writers allocate with their own flags are charged to the writers'.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/workqueue.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/ktime.h>
#include "leaf.h"
#include <trace/events/skiplist.h>

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
	 * rebuild runs and which directory is out, as the rebuild orders
	 * setting those before reading which leaves are dead.
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
	if (!building) {
		sl_leaf_free_rcu(leaf);
		return;
	}
	sl_window(list, SL_WIN_DIR_RETIRE, .leaf = leaf);
	/* A fully ordered exchange: the entry above is clear before this. */
	llist_add(&leaf->dying, &list->dir_dying);
	/* Pairs with the rebuild's end: it empties the queue after ending. */
	smp_mb();
	if (!READ_ONCE(list->dir_building))
		queue_work(system_unbound_wq, &list->dir_work);
}

/*
 * Free the leaves that died while a rebuild ran, one grace period from
 * now; only the rebuild's work item calls it, outside any rebuild's walk,
 * or the list's destruction, when no rebuild can run.
 */
static void sl_dir_free_dying(struct sl_list *list)
{
	struct llist_node *node = llist_del_all(&list->dir_dying), *next;
	unsigned long n = 0;

	for (; node; node = next) {
		next = node->next;
		/* @rcu overlays @dying: the link is read first. */
		sl_leaf_free_rcu(container_of(node, struct sl_leaf, dying));
		if (!(++n % SL_ATOMIC_LEAVES))
			cond_resched();
	}
}

/* Words of sl_dir.mem for @cap entries and @buckets buckets. */
static unsigned long sl_dir_words(unsigned long cap, unsigned long buckets)
{
	return DIV_ROUND_UP(cap * sizeof(struct sl_dir_entry) +
			    (buckets + 1) * sizeof(u32), sizeof(unsigned long));
}

/* Bytes @dir takes. */
static unsigned long sl_dir_size(const struct sl_dir *dir)
{
	return struct_size(dir, mem, sl_dir_words(dir->cap, dir->buckets));
}

/*
 * Where a rebuild's walk goes on in a new read-side section: a live leaf
 * at or left of @lo, the fence of the last leaf it took, found by a fresh
 * search (the leaves it held before may have been freed since).  The walk
 * passes the leaves up to @lo again.
 */
static struct sl_leaf *sl_dir_resume(struct sl_list *list, unsigned long lo)
{
	unsigned int loads = 0;	/* a writer's search: not counted */
	struct sl_leaf *leaf = sl_descend(list, lo, &loads);

	if (READ_ONCE(leaf->dead))
		leaf = sl_left_of_dead(list, leaf);
	return leaf;
}

/*
 * Call @take on each live leaf met on a walk along level 0 whose lower
 * fence is above every fence taken before, until it returns false; the
 * fences met only grow, since each leaf's next pointer, dead or alive,
 * names a leaf further right.  In chunks of SL_ATOMIC_LEAVES leaves, each
 * in a read-side section of its own (see the top of the file).  Returns
 * false if @take stopped the walk.
 */
static bool sl_dir_walk(struct sl_list *list,
			bool (*take)(struct sl_leaf *leaf, void *arg),
			void *arg)
{
	struct sl_leaf *leaf;
	unsigned long last = 0, n;
	bool taken = false;

	rcu_read_lock();
	leaf = list->head;
	for (;;) {
		for (n = 0; leaf && n < SL_ATOMIC_LEAVES;
		     n++, leaf = rcu_dereference(leaf->next)) {
			if (READ_ONCE(leaf->dead) || (taken && leaf->lo <= last))
				continue;
			if (!take(leaf, arg)) {
				rcu_read_unlock();
				return false;
			}
			last = leaf->lo;
			taken = true;
		}
		if (!leaf)
			break;
		rcu_read_unlock();
		sl_window(list, SL_WIN_DIR_CHUNK, .key = last);
		cond_resched();
		rcu_read_lock();
		leaf = sl_dir_resume(list, last);
	}
	rcu_read_unlock();
	return true;
}

static bool sl_dir_count_leaf(struct sl_leaf *leaf, void *arg)
{
	unsigned long *count = arg;

	(*count)++;
	return true;
}

/* Live leaves at level 0 now, near enough. */
static unsigned long sl_dir_count(struct sl_list *list)
{
	unsigned long count = 0;

	sl_dir_walk(list, sl_dir_count_leaf, &count);
	return count;
}

/* Take a leaf into the directory being filled, if there is room. */
static bool sl_dir_fill_leaf(struct sl_leaf *leaf, void *arg)
{
	struct sl_dir *dir = arg;

	if (dir->nr == dir->cap)
		return false;
	dir->entry[dir->nr].lo = leaf->lo;
	RCU_INIT_POINTER(dir->entry[dir->nr].leaf, leaf);
	dir->nr++;
	return true;
}

/*
 * Fill @dir with the live leaves met on one walk along level 0, as many as
 * it has room for.  Returns false if there were more.
 */
static bool sl_dir_fill(struct sl_list *list, struct sl_dir *dir)
{
	dir->nr = 0;
	return sl_dir_walk(list, sl_dir_fill_leaf, dir);
}

/*
 * Fill the bucket table of @dir, whose fences are in: the shift puts the
 * highest fence in the last bucket or below, and each bucket gets the
 * floor entry of its first key.  Touches only @dir: no section needed,
 * but a rest now and then.
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
		if (!((b + 1) % SL_ATOMIC_LEAVES))
			cond_resched();
	}
	dir->bucket[dir->buckets] = dir->nr - 1;
}

/* The directory of @list, to the work item that alone replaces it. */
static struct sl_dir *sl_dir_owned(struct sl_list *list)
{
	return rcu_dereference_protected(list->dir,
					 current_work() == &list->dir_work);
}

/*
 * Clear the entries of leaves that died while @dir was being built.  The
 * leaves it names are all unfreed until the rebuild ends (see the top of
 * the file), so no read-side section is needed to read them.
 */
static void sl_dir_sweep(struct sl_list *list, struct sl_dir *dir)
{
	unsigned long i;

	for (i = 0; i < dir->nr; i++) {
		struct sl_leaf *leaf = rcu_dereference_protected(dir->entry[i].leaf,
								 current_work() == &list->dir_work);

		if (leaf && READ_ONCE(leaf->dead))
			RCU_INIT_POINTER(dir->entry[i].leaf, NULL);
		if (!((i + 1) % SL_ATOMIC_LEAVES))
			cond_resched();
	}
}

/* A directory for @count leaves, charged to the list's memory cgroup. */
static struct sl_dir *sl_dir_alloc(struct sl_list *list, unsigned long count)
{
	/* Room for the splits that land during the walk. */
	unsigned long cap = count + count / 8 + 16;
	unsigned long buckets = rounddown_pow_of_two(cap);
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;
	struct mem_cgroup *old_memcg = NULL;
	unsigned int nofs;
	struct sl_dir *dir;

	if (list->dir_memcg) {
		gfp |= __GFP_ACCOUNT;
		old_memcg = set_active_memcg(list->dir_memcg);
	}
	/*
	 * No file system reclaim: it may evict the inode that owns this
	 * list, whose teardown (sl_destroy()) waits for this very work item
	 * (btrfs's extent maps; found in review).
	 */
	nofs = memalloc_nofs_save();
	dir = kvmalloc(struct_size(dir, mem, sl_dir_words(cap, buckets)), gfp);
	memalloc_nofs_restore(nofs);
	if (list->dir_memcg)
		set_active_memcg(old_memcg);
	if (!dir)
		return NULL;
	dir->cap = cap;
	dir->nr = 0;
	dir->buckets = buckets;
	dir->entry = (struct sl_dir_entry *)dir->mem;
	dir->bucket = (u32 *)(dir->entry + cap);
	return dir;
}

/*
 * A rebuild ended: counted, for a published list, and traced.  The
 * event's arguments are computed only while it is enabled: the clock is
 * a call the compiler cannot leave out.
 */
static void sl_dir_rebuilt(struct sl_list *list, struct sl_dir *dir,
			   unsigned long count, unsigned int outcome, u64 t0)
{
	rcu_read_lock();
	if (outcome == SL_TRACE_DIR_PUBLISHED || outcome == SL_TRACE_DIR_NONE)
		sl_count_stat(list, SL_COUNT_DIR_REBUILDS);
	rcu_read_unlock();
	if (trace_sl_dir_rebuild_enabled())
		trace_sl_dir_rebuild(list, count, dir ? dir->nr : 0,
				     dir ? sl_dir_size(dir) : 0, outcome,
				     ktime_get_ns() - t0);
}

/* The work item: build a directory of the leaves now, and publish it. */
static void sl_dir_rebuild(struct work_struct *work)
{
	struct sl_list *list = container_of(work, struct sl_list, dir_work);
	struct sl_dir *dir = NULL, *old = sl_dir_owned(list);
	u64 t0 = ktime_get_ns();
	unsigned long count;
	bool full;

	/* Queued after the last rebuild ended: no rebuild holds them. */
	sl_dir_free_dying(list);
	/* Changes from here on count towards the next rebuild. */
	atomic_long_set(&list->dir_changes, 0);
	count = sl_dir_count(list);
	WRITE_ONCE(list->dir_rebuild_at,
		   max_t(long, count >> SL_DIR_STALE_SHIFT, SL_DIR_MIN_LEAVES));
	/* Bucket entries are 32 bits: far more leaves than memory holds. */
	if (count >= SL_DIR_MIN_LEAVES && count < U32_MAX / 2) {
		dir = sl_dir_alloc(list, count);
		/* Without memory, the old directory serves until next time. */
		if (!dir) {
			sl_dir_rebuilt(list, NULL, count, SL_TRACE_DIR_NOMEM,
				       t0);
			return;
		}
	}

	WRITE_ONCE(list->dir_building, 1);
	/* Pairs with sl_dir_retire(): it sees us, or we see its leaf dead. */
	smp_mb();
	full = dir && !sl_dir_fill(list, dir);
	if (dir && !full)
		sl_dir_fill_buckets(dir);
	sl_window(list, SL_WIN_DIR_FILLED, .key = 0);
	if (!full) {
		if (dir)
			dir->built_ns = ktime_get_ns();
		rcu_assign_pointer(list->dir, dir);
		/* Published before the sweep reads which leaves died. */
		smp_mb();
		if (dir)
			sl_dir_sweep(list, dir);
	}
	/* Pairs with sl_dir_retire()'s acquire: the directory is out first. */
	smp_store_release(&list->dir_building, 0);
	/* Ended before the queue is read: pairs with sl_dir_retire(). */
	smp_mb();
	sl_dir_free_dying(list);

	if (full) {
		sl_dir_rebuilt(list, dir, count, SL_TRACE_DIR_OUTGROWN, t0);
		/* The list outgrew the count: try again, with a fresh one. */
		kvfree(dir);
		queue_work(system_unbound_wq, &list->dir_work);
		return;
	}
	/* Only this work item frees @dir, and not before it replaces it. */
	sl_dir_rebuilt(list, dir, count,
		       dir ? SL_TRACE_DIR_PUBLISHED : SL_TRACE_DIR_NONE, t0);
	if (old)
		kvfree_rcu(old, rcu);
}

/* Bytes the directory of @list takes; under rcu_read_lock(). */
unsigned long sl_dir_bytes(struct sl_list *list)
{
	struct sl_dir *dir = rcu_dereference(list->dir);

	return dir ? sl_dir_size(dir) : 0;
}

/*
 * Set up the directory fields of a new list: no directory yet.  With
 * __GFP_ACCOUNT in @gfp, and in a task, the memory cgroup the caller
 * allocates in (its own, or the one it made active) pays for the
 * directories to come; get_mem_cgroup_from_mm() returns NULL where memory
 * cgroups are disabled, and the root cgroup, which is never charged, for
 * a kernel thread.  Any context.
 */
void sl_dir_init(struct sl_list *list, gfp_t gfp)
{
	RCU_INIT_POINTER(list->dir, NULL);
	atomic_long_set(&list->dir_changes, 0);
	list->dir_rebuild_at = SL_DIR_MIN_LEAVES;
	list->dir_building = 0;
	init_llist_head(&list->dir_dying);
	list->dir_memcg = NULL;
	if ((gfp & __GFP_ACCOUNT) && in_task())
		list->dir_memcg = get_mem_cgroup_from_mm(NULL);
	INIT_WORK(&list->dir_work, sl_dir_rebuild);
}

/*
 * Wait until no rebuild is queued or running, for a caller that keeps
 * every writer away from the list meanwhile, so that nothing queues
 * another: a rebuild that found the list grown queues itself once more.
 * Context: process context; sleeps while a rebuild finishes.
 */
void sl_dir_quiesce(struct sl_list *list)
{
	while (flush_work(&list->dir_work))
		;
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
	sl_dir_free_dying(list);
	mem_cgroup_put(list->dir_memcg);
	list->dir_memcg = NULL;
}

/*
 * Every SL_ATOMIC_LEAVES steps of a check, leave the read-side section and
 * rest.  Nothing replaces the directory meanwhile (sl_dir_check()); if
 * something did, a writer ran against the caller's promise: say so.
 */
static int sl_dir_check_rest(struct sl_list *list, struct sl_dir *dir,
			     unsigned long step)
{
	if ((step + 1) % SL_ATOMIC_LEAVES)
		return 0;
	rcu_read_unlock();
	cond_resched();
	rcu_read_lock();
	if (rcu_dereference(list->dir) == dir)
		return 0;
	pr_err("skiplist: check failed: the directory was replaced during the check\n");
	return -EUCLEAN;
}

/*
 * Each bucket starting at the floor entry of its first key, and each
 * fence, and the key below it, found where it belongs.
 */
static int sl_dir_check_buckets(struct sl_list *list, struct sl_dir *dir)
{
	unsigned int loads = 0;
	unsigned long b, i;
	int ret;

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
		ret = sl_dir_check_rest(list, dir, b);
		if (ret)
			return ret;
	}
	for (i = 0; i < dir->nr; i++) {
		if (sl_dir_floor(dir, dir->entry[i].lo, &loads) != i ||
		    (i && sl_dir_floor(dir, dir->entry[i].lo - 1, &loads) != i - 1)) {
			pr_err("skiplist: check failed: directory search misses entry %lu (%lx)\n",
			       i, dir->entry[i].lo);
			return -EUCLEAN;
		}
		ret = sl_dir_check_rest(list, dir, i);
		if (ret)
			return ret;
	}
	if (sl_dir_floor(dir, ULONG_MAX, &loads) != dir->nr - 1) {
		pr_err("skiplist: check failed: directory search misses the top\n");
		return -EUCLEAN;
	}
	return 0;
}

/* Fences strictly increasing, each entry naming a live leaf with its fence. */
static int sl_dir_check_entries(struct sl_list *list, struct sl_dir *dir)
{
	unsigned long i;
	int ret;

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
		if (leaf && leaf->lo != dir->entry[i].lo) {
			pr_err("skiplist: check failed: directory entry %lu says %lx, its leaf %lx\n",
			       i, dir->entry[i].lo, leaf->lo);
			return -EUCLEAN;
		}
		if (leaf && READ_ONCE(leaf->dead)) {
			pr_err("skiplist: check failed: directory entry %lu names a dead leaf\n",
			       i);
			return -EUCLEAN;
		}
		ret = sl_dir_check_rest(list, dir, i);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * sl_dir_check() - verify the directory of a quiescent list
 * @list: the list; no writer may run on it meanwhile
 *
 * Waits for a rebuild in flight first, so that no leaf dies and nothing
 * replaces the directory while it is checked.  Fences strictly increasing
 * from 0, each entry naming a leaf with that fence, the head first, no
 * dead leaf; and the bucketed search finding each fence, and the key just
 * below it, in the entry it belongs to.  In chunks of SL_ATOMIC_LEAVES
 * entries or buckets per read-side section.
 *
 * Context: Process context, outside any read-side section; sleeps.
 * Return: 0, or -EUCLEAN after printing the first violation.
 */
int sl_dir_check(struct sl_list *list)
{
	struct sl_dir *dir;
	int ret = 0;

	might_sleep();
	sl_dir_quiesce(list);
	rcu_read_lock();
	dir = rcu_dereference(list->dir);
	if (dir)
		ret = sl_dir_check_entries(list, dir);
	if (dir && !ret)
		ret = sl_dir_check_buckets(list, dir);
	rcu_read_unlock();
	return ret;
}
