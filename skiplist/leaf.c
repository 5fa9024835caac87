// SPDX-License-Identifier: GPL-2.0
/*
 * Leaf allocation: one slab cache per tower height, so that every leaf uses
 * all the tower pointers it carries, and freeing after a grace period.
 */
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/bitops.h>
#include "leaf.h"

static struct kmem_cache *sl_leaf_cache[SL_MAX_HEIGHT];
static char sl_leaf_cache_name[SL_MAX_HEIGHT][24];

/* One class for every leaf lock; leaf.h documents the nesting order. */
static struct lock_class_key sl_leaf_lock_key;

/**
 * sl_leaf_alloc() - allocate an empty, unpublished leaf
 * @height: tower height, 1..SL_MAX_HEIGHT
 * @gfp:    allocation flags
 *
 * The fences and links are the caller's to set before publishing it.
 *
 * Return: the leaf, or NULL if the allocation failed.
 */
struct sl_leaf *sl_leaf_alloc(unsigned int height, gfp_t gfp)
{
	struct sl_leaf *leaf;
	unsigned int i;
	void *obj;

	if (WARN_ON(height < 1 || height > SL_MAX_HEIGHT))
		return NULL;
	obj = kmem_cache_alloc(sl_leaf_cache[height - 1], gfp);
	if (!obj)
		return NULL;
	memset(obj, 0, sl_leaf_size(height));
	leaf = obj + sl_tower_bytes(height);
	leaf->height = height;
	/* A new link knows nothing of the gaps it will span (gap.c). */
	for (i = 1; i < height; i++)
		sl_up(leaf, i)->gap = sl_gap_unknown();
	spin_lock_init(&leaf->lock);
	lockdep_set_class(&leaf->lock, &sl_leaf_lock_key);
	seqcount_spinlock_init(&leaf->seq, &leaf->lock);
	return leaf;
}

/* Free a leaf no reader can have seen. */
void sl_leaf_free(struct sl_leaf *leaf)
{
	kmem_cache_free(sl_leaf_cache[leaf->height - 1],
			(void *)leaf - sl_tower_bytes(leaf->height));
}

static void sl_leaf_free_cb(struct rcu_head *head)
{
	sl_leaf_free(container_of(head, struct sl_leaf, rcu));
}

/*
 * Free a leaf that has been unlinked from every level, once every reader
 * that might still be walking through it has left its read-side section.
 */
void sl_leaf_free_rcu(struct sl_leaf *leaf)
{
	call_rcu(&leaf->rcu, sl_leaf_free_cb);
}

#ifndef __KERNEL__
/*
 * Userspace tests only: the height of the next leaf drawn, once, so that a
 * test can build the towers an interleaving needs.  0 draws at random.
 */
unsigned int sl_test_next_height;
#endif

/*
 * Tower height with P(height >= h) = 2^-(h-1): p = 1/2 makes a search
 * compare about twice per level, and makes it likely (1/2) that the node
 * met one level down is the one just rejected, which the search then skips
 * (seed 001).  Capping at one above the current level keeps one unlucky
 * draw from adding empty levels every search must cross.
 */
unsigned int sl_random_height(unsigned int level)
{
	unsigned int height;

#ifndef __KERNEL__
	if (unlikely(READ_ONCE(sl_test_next_height))) {
		height = __atomic_exchange_n(&sl_test_next_height, 0,
					     __ATOMIC_RELAXED);
		if (height)
			return height;
	}
#endif
	height = __ffs(get_random_u32() | BIT(SL_MAX_HEIGHT - 1)) + 1;
	return min(height, level + 1);
}

int sl_caches_init(void)
{
	unsigned int h;

	for (h = 1; h <= SL_MAX_HEIGHT; h++) {
		snprintf(sl_leaf_cache_name[h - 1],
			 sizeof(sl_leaf_cache_name[0]), "skiplist_leaf_%u", h);
		sl_leaf_cache[h - 1] = kmem_cache_create(sl_leaf_cache_name[h - 1],
							 sl_leaf_size(h), SL_LEAF_ALIGN, 0,
							 NULL);
		if (!sl_leaf_cache[h - 1]) {
			pr_err("skiplist: cannot create slab cache %s\n",
			       sl_leaf_cache_name[h - 1]);
			sl_caches_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

/* Callers must have freed every leaf and waited for pending frees. */
void sl_caches_exit(void)
{
	unsigned int h;

	for (h = 0; h < SL_MAX_HEIGHT; h++) {
		kmem_cache_destroy(sl_leaf_cache[h]);
		sl_leaf_cache[h] = NULL;
	}
}
