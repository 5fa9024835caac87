// SPDX-License-Identifier: GPL-2.0
/*
 * RCU skiplist range index: list life cycle, statistics and the module.
 *
 * Concurrency contract (the rest of skiplist/ relies on it):
 *  - Readers take only rcu_read_lock().  They never lock, never count
 *    references and never write shared memory.  They read a leaf between two
 *    reads of its sequence count and retry if a writer was inside it.
 *  - Writers lock only the leaves they change, left to right (increasing
 *    lower fence), at most three at a time; a leaf's lock guards its slots,
 *    its upper fence, its tower pointers, its liveness, and the back pointer
 *    of the leaf after it.  Writers change a leaf only inside its write
 *    section, and move slots between leaves only inside the write sections
 *    of both.
 *
 * Why sequence counts and not copy-on-write leaves: an update changes a
 * few words of one leaf, and copying a leaf of 64 keys and relinking it at
 * every level of its tower would cost an allocation, a grace period and
 * tower surgery per update; a reader pays one more load of the count.
 *
 * Invariants, true whenever no write section is open:
 *  - Level 0 is the whole list: leaves in increasing order of their lower
 *    fence @lo, each leaf's keys sorted and inside [@lo, @hi], each @hi one
 *    below the next leaf's @lo, the head's @lo 0 and the last @hi ULONG_MAX.
 *  - Slots never overlap, in a leaf or across leaves.
 *  - Only the head may be empty.
 *  - A leaf's @lo never changes.  A leaf that a live leaf, a tower or the
 *    directory names is alive, or dead with its pointers frozen, and it is
 *    freed a grace period after the last of those stops naming it.  A dead
 *    leaf's frozen @next and @prev keep nothing alive: the leaf they name
 *    may be merged away and freed while the dead leaf is still found
 *    through its tower or the directory.  A search therefore follows a
 *    dead leaf's tower links, which unlinking top down keeps safe, and
 *    never its level 0 pointers (search.c, "Which pointers a search may
 *    follow").
 *  - No leaf, alive or dead, holds a pointer to a slot that was removed
 *    from the list (vacated entries are cleared).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include "leaf.h"

#ifdef SL_COUNT_KEY_LOADS
DEFINE_PER_CPU(unsigned long, sl_key_load_count);
#endif

#ifndef __KERNEL__
void (*sl_window_hook)(const struct sl_window_at *at);
#endif

/**
 * sl_init() - initialise an empty list
 * @list: the list
 * @gfp:  allocation flags for the head leaf; with __GFP_ACCOUNT, the leaf
 *        directory, which a background rebuild allocates, is charged to
 *        the memory cgroup the caller allocates in
 *
 * Context: Any context; may sleep if @gfp allows.
 * Return: 0, or -ENOMEM.
 */
int sl_init(struct sl_list *list, gfp_t gfp)
{
	struct sl_leaf *head = sl_leaf_alloc(SL_MAX_HEIGHT, gfp);

	if (!head)
		return -ENOMEM;
	head->lo = 0;
	head->hi = ULONG_MAX;
	head->linked = SL_MAX_HEIGHT;
	list->head = head;
	list->level = 1;
	list->finger_lo = ULONG_MAX;
	list->gaps_searched = 0;
	RCU_INIT_POINTER(list->finger, NULL);
	RCU_INIT_POINTER(list->debugfs, NULL);
	sl_dir_init(list, gfp);
	return 0;
}
EXPORT_SYMBOL_GPL(sl_init);

/**
 * sl_destroy() - free every leaf of a list
 * @list:      the list; no other function may run on it any more
 * @free_slot: called once for each slot still in the list, or NULL
 * @arg:       passed to @free_slot
 *
 * The leaves are freed after a grace period, so readers that found the
 * list before the caller stopped them are safe; a module that destroys
 * lists must call rcu_barrier() before it unloads.  Nobody else holds a
 * leaf, so the walk keeps its place while it reschedules every
 * SL_ATOMIC_LEAVES leaves.
 *
 * A list still published in debugfs is taken out first
 * (sl_debugfs_remove()).
 *
 * Context: Process context; sleeps (while reads of the list's debugfs
 * files and a rebuild of the leaf directory finish, and between chunks
 * of leaves).
 */
void sl_destroy(struct sl_list *list,
		void (*free_slot)(struct sl_slot *slot, void *arg), void *arg)
{
	struct sl_leaf *leaf = list->head, *next;
	unsigned long flags, n = 0;
	int i;

	might_sleep();
	sl_debugfs_remove(list);
	sl_dir_destroy(list);
	while (leaf) {
		/*
		 * Nobody else can change the list any more; the lock is taken
		 * anyway, so that the rule for reading a next pointer
		 * outside RCU stays one that lockdep checks.
		 */
		spin_lock_irqsave(&leaf->lock, flags);
		next = rcu_dereference_protected(leaf->next,
						 lockdep_is_held(&leaf->lock));
		spin_unlock_irqrestore(&leaf->lock, flags);
		if (free_slot)
			for (i = 0; i < leaf->nr; i++)
				free_slot(leaf->slots[i], arg);
		sl_leaf_free_rcu(leaf);
		leaf = next;
		if (!(++n % SL_ATOMIC_LEAVES))
			cond_resched();
	}
	list->head = NULL;
	RCU_INIT_POINTER(list->finger, NULL);
}
EXPORT_SYMBOL_GPL(sl_destroy);

/**
 * sl_key_loads() - keys loaded by searches so far
 *
 * Context: Any context.
 * Return: the number of keys all searches on all lists have loaded to
 * compare since the module was loaded, or 0 in builds that do not count.
 */
unsigned long sl_key_loads(void)
{
	unsigned long sum = 0;
#ifdef SL_COUNT_KEY_LOADS
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(sl_key_load_count, cpu);
#endif
	return sum;
}
EXPORT_SYMBOL_GPL(sl_key_loads);

/*
 * The live leaf covering @key, found by a fresh search, and in *@above
 * the number of its slots at or above @key, read in one snapshot.
 */
static struct sl_leaf *sl_stats_resume(struct sl_list *list, unsigned long key,
				       unsigned long *above)
{
	unsigned int loads = 0;	/* a summary's search: not counted */
	struct sl_leaf *leaf = sl_descend(list, key, &loads), *next;

	for (;;) {
		unsigned int seq = read_seqcount_begin(&leaf->seq);
		int nr, i;

		if (READ_ONCE(leaf->dead)) {
			leaf = sl_left_of_dead(list, leaf);
			continue;
		}
		if (key > READ_ONCE(leaf->hi)) {
			next = rcu_dereference(leaf->next);
			if (!read_seqcount_retry(&leaf->seq, seq))
				leaf = next;
			continue;
		}
		nr = min_t(int, READ_ONCE(leaf->nr), SL_LEAF_KEYS);
		for (i = nr; i > 0 && READ_ONCE(leaf->keys[i - 1]) >= key; i--)
			;
		*above = nr - i;
		if (!read_seqcount_retry(&leaf->seq, seq))
			return leaf;
	}
}

static void sl_stats_leaf(struct sl_stats *stats, struct sl_leaf *leaf)
{
	stats->leaves++;
	stats->bytes += sl_leaf_size(leaf->height);
	stats->height[leaf->height - 1]++;
}

/*
 * Count the slots from @*from on, along level 0, in one read-side section
 * of at most SL_ATOMIC_LEAVES leaves.  Returns false at the end of the
 * list, true with @*from set to where the next chunk starts.
 */
static bool sl_stats_chunk(struct sl_list *list, struct sl_stats *stats,
			   unsigned long *from)
{
	struct sl_leaf *leaf, *next;
	unsigned long above, n;

	if (!*from) {
		leaf = list->head;
		above = READ_ONCE(leaf->nr);
	} else {
		leaf = sl_stats_resume(list, *from, &above);
	}
	stats->items += above;
	/* A leaf that reaches below @from was counted in an earlier chunk. */
	if (leaf->lo >= *from)
		sl_stats_leaf(stats, leaf);
	for (n = 1; (next = rcu_dereference(leaf->next)); n++) {
		if (n == SL_ATOMIC_LEAVES) {
			*from = next->lo;
			return true;
		}
		leaf = next;
		stats->items += READ_ONCE(leaf->nr);
		sl_stats_leaf(stats, leaf);
	}
	return false;
}

/**
 * sl_stats() - summarise a list
 * @list:  the list
 * @stats: filled in
 *
 * Walks level 0 in chunks of SL_ATOMIC_LEAVES leaves, each in a read-side
 * section of its own, and may reschedule between them.  A chunk starts
 * with a fresh search for the first key the chunks before did not cover,
 * and counts only the slots from there on, so that no chunk counts what
 * an earlier one did.  Under concurrent updates the counts are a blend of
 * the states the walk passed through.
 *
 * Context: Process context; may sleep.
 */
void sl_stats(struct sl_list *list, struct sl_stats *stats)
{
	unsigned long from = 0;
	bool more;

	might_sleep();
	memset(stats, 0, sizeof(*stats));
	for (;;) {
		rcu_read_lock();
		more = sl_stats_chunk(list, stats, &from);
		if (!more)
			stats->bytes += sl_dir_bytes(list);
		rcu_read_unlock();
		if (!more)
			break;
		sl_window(list, SL_WIN_STATS_CHUNK, .key = from);
		cond_resched();
	}
	stats->key_loads = sl_key_loads();
}
EXPORT_SYMBOL_GPL(sl_stats);

static int __init skiplist_module_init(void)
{
	int ret = sl_caches_init();

	if (ret)
		return ret;
	ret = sl_preload_init();
	if (ret) {
		sl_caches_exit();
		return ret;
	}
	sl_debugfs_init();
	return 0;
}

static void __exit skiplist_module_exit(void)
{
	sl_debugfs_exit();
	/*
	 * Leaves freed by the lists' last deletes, and counters of lists
	 * taken out of debugfs, may still be queued.
	 */
	rcu_barrier();
	sl_preload_exit();
	sl_caches_exit();
}

module_init(skiplist_module_init);
module_exit(skiplist_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("RCU skiplist range index");
MODULE_AUTHOR("Seed 86df1db9 maintainers <maintainers@users.noreply.a-seed-86df1db9.example>");
MODULE_VERSION(SL_VERSION);
