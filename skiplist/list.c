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
 * @gfp:  allocation flags for the head leaf
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
	RCU_INIT_POINTER(list->finger, NULL);
	sl_dir_init(list);
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
 * lists must call rcu_barrier() before it unloads.
 *
 * Context: Process context; sleeps while a rebuild of the leaf directory
 * finishes.
 */
void sl_destroy(struct sl_list *list,
		void (*free_slot)(struct sl_slot *slot, void *arg), void *arg)
{
	struct sl_leaf *leaf = list->head, *next;
	unsigned long flags;
	int i;

	might_sleep();
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

/**
 * sl_stats() - summarise a list
 * @list:  the list
 * @stats: filled in
 *
 * Walks level 0.  Under concurrent updates the counts are a blend of the
 * states the walk passed through.
 *
 * Context: Any context.
 */
void sl_stats(struct sl_list *list, struct sl_stats *stats)
{
	struct sl_leaf *leaf;

	memset(stats, 0, sizeof(*stats));
	rcu_read_lock();
	for (leaf = list->head; leaf; leaf = rcu_dereference(leaf->next)) {
		stats->items += READ_ONCE(leaf->nr);
		stats->leaves++;
		stats->bytes += sl_leaf_size(leaf->height);
		stats->height[leaf->height - 1]++;
	}
	stats->bytes += sl_dir_bytes(list);
	rcu_read_unlock();
	stats->key_loads = sl_key_loads();
}
EXPORT_SYMBOL_GPL(sl_stats);

static int __init skiplist_module_init(void)
{
	return sl_caches_init();
}

static void __exit skiplist_module_exit(void)
{
	/*
	 * Leaves freed by the lists' last deletes may still be queued; twice,
	 * since a leaf that waits two grace periods is queued again by its
	 * first callback (sl_leaf_free_rcu_twice()).
	 */
	rcu_barrier();
	rcu_barrier();
	sl_caches_exit();
}

module_init(skiplist_module_init);
module_exit(skiplist_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("RCU skiplist range index");
