// SPDX-License-Identifier: GPL-2.0
/*
 * Preloading: a per-CPU reserve of leaves for inserts that cannot sleep.
 *
 * An insert allocates a leaf only when it splits a full one.  A caller
 * that inserts under a spinning lock of its own (btrfs's extent map tree)
 * must use a non-sleeping allocation there, which can fail when memory
 * is short; the index's answer would be -ENOMEM, where an rbtree, which
 * never allocates, cannot fail at all.  As idr_preload() does for the
 * IDR, such a caller fills its CPU's reserve with sl_preload() before it
 * takes its lock, with the allocation flags it may sleep with, and ends
 * the section with sl_preload_end() after it lets go.  A split inside
 * that cannot get a fresh leaf takes one from the reserve instead.
 *
 * Why the reserve stays the preloading task's: sl_preload() returns
 * holding the CPU's local lock (preemption off, without PREEMPT_RT), so
 * no other task runs on that CPU until sl_preload_end(); the reserve
 * records its owner and gives leaves only to that task, never to an
 * interrupt that arrives meanwhile (whose "current" is the same task) nor
 * to a non-preloaded caller (under PREEMPT_RT another task could run on
 * the CPU and would not hold the lock).
 *
 * Reserve leaves have height 1: a leaf of any height is valid, and the
 * reserve cannot know the list's level at the time.  Splits try a fresh
 * leaf of random height first, so that the towers stay as the search
 * needs them; the reserve is only for the failure.
 */
#include <linux/local_lock.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "leaf.h"

struct sl_reserve {
	local_lock_t lock;
	/* The task between sl_preload() and sl_preload_end(), or NULL. */
	struct task_struct *owner;
	unsigned int nr;
	struct sl_leaf *leaf[SL_PRELOAD_LEAVES];
};

static struct sl_reserve __percpu *sl_reserves;

/**
 * sl_preload() - fill this CPU's reserve of leaves, then hold the CPU
 * @gfp: allocation flags for the leaves; may sleep if they allow
 *
 * Up to %SL_PRELOAD_LEAVES non-sleeping inserts made by this task before
 * sl_preload_end() cannot fail for want of a leaf (a sleeping one never
 * needs the reserve), as long as this returned with the reserve full (it is not told: as
 * for idr_preload(), an insert may still return -ENOMEM if the reserve
 * could not be filled).  Pair every call with sl_preload_end(); they
 * do not nest.
 *
 * Context: Process context, outside rcu_read_lock() and spinlocks if @gfp
 * may sleep.  Returns with preemption disabled (the CPU's local lock
 * held): the section up to sl_preload_end() must not sleep.
 */
void sl_preload(gfp_t gfp)
{
	struct sl_reserve *rsv;
	struct sl_leaf *leaf;

	might_alloc(gfp);
	local_lock(&sl_reserves->lock);
	rsv = this_cpu_ptr(sl_reserves);
	while (rsv->nr < SL_PRELOAD_LEAVES) {
		local_unlock(&sl_reserves->lock);
		leaf = sl_leaf_alloc(1, gfp | __GFP_NOWARN);
		local_lock(&sl_reserves->lock);
		/* The task may have moved to another CPU meanwhile. */
		rsv = this_cpu_ptr(sl_reserves);
		if (!leaf)
			break;
		if (rsv->nr < SL_PRELOAD_LEAVES)
			rsv->leaf[rsv->nr++] = leaf;
		else
			sl_leaf_free(leaf);
	}
	WARN_ON_ONCE(rsv->owner);
	rsv->owner = current;
}
EXPORT_SYMBOL_GPL(sl_preload);

/**
 * sl_preload_end() - end a section started by sl_preload()
 *
 * The leaves left in the reserve stay there for the next section on
 * this CPU.
 *
 * Context: After sl_preload(), on the CPU it returned on (preemption is
 * still disabled); re-enables preemption.
 */
void sl_preload_end(void)
{
	struct sl_reserve *rsv = this_cpu_ptr(sl_reserves);

	WARN_ON_ONCE(rsv->owner != current);
	rsv->owner = NULL;
	local_unlock(&sl_reserves->lock);
}
EXPORT_SYMBOL_GPL(sl_preload_end);

/*
 * A leaf from this CPU's reserve, for the task that preloaded it; NULL
 * for anyone else or when it is empty.
 */
static struct sl_leaf *sl_reserve_take(void)
{
	struct sl_reserve *rsv;
	struct sl_leaf *leaf = NULL;

	if (!in_task())
		return NULL;
	/* Pinned for the check: a caller that did not preload may migrate. */
	rsv = get_cpu_ptr(sl_reserves);
	if (rsv->owner == current && rsv->nr)
		leaf = rsv->leaf[--rsv->nr];
	put_cpu_ptr(sl_reserves);
	return leaf;
}

/**
 * sl_split_leaf_alloc() - a leaf for a split
 * @height: the tower height drawn for it
 * @gfp:    the insert's allocation flags
 *
 * A fresh leaf of @height, or, when that fails and @gfp cannot sleep,
 * one of height 1 from the reserve of a task that preloaded.
 *
 * Return: the leaf, unpublished, or NULL.
 */
struct sl_leaf *sl_split_leaf_alloc(unsigned int height, gfp_t gfp)
{
	struct sl_leaf *leaf;

	if (gfpflags_allow_blocking(gfp))
		return sl_leaf_alloc(height, gfp);
	leaf = sl_leaf_alloc(height, gfp | __GFP_NOWARN);
	return leaf ?: sl_reserve_take();
}

/*
 * Give back a leaf from sl_split_leaf_alloc() that the split turned out
 * not to need (the list changed while the insert held no lock): to the
 * reserve of the task that preloaded, if it came from there, so that the
 * section's other inserts still find it.
 */
void sl_split_leaf_unused(struct sl_leaf *leaf)
{
	struct sl_reserve *rsv;

	if (leaf->height == 1 && in_task()) {
		rsv = get_cpu_ptr(sl_reserves);
		if (rsv->owner == current && rsv->nr < SL_PRELOAD_LEAVES) {
			rsv->leaf[rsv->nr++] = leaf;
			leaf = NULL;
		}
		put_cpu_ptr(sl_reserves);
	}
	if (leaf)
		sl_leaf_free(leaf);
}

int sl_preload_init(void)
{
	unsigned int cpu;

	sl_reserves = alloc_percpu(struct sl_reserve);
	if (!sl_reserves) {
		pr_err("skiplist: cannot allocate the per-CPU leaf reserves\n");
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu)
		local_lock_init(&per_cpu_ptr(sl_reserves, cpu)->lock);
	return 0;
}

/*
 * A CPU that went offline keeps its reserve until here: at most
 * SL_PRELOAD_LEAVES leaves, and no CPU hotplug callback to maintain.
 */
void sl_preload_exit(void)
{
	unsigned int cpu;

	if (!sl_reserves)
		return;
	for_each_possible_cpu(cpu) {
		struct sl_reserve *rsv = per_cpu_ptr(sl_reserves, cpu);

		WARN_ON_ONCE(rsv->owner);
		while (rsv->nr)
			sl_leaf_free(rsv->leaf[--rsv->nr]);
	}
	free_percpu(sl_reserves);
	sl_reserves = NULL;
}
