// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's rbtree as a bench index, in two locking designs: every
 * operation under one spinlock, and readers under read_lock() of an
 * rwlock with writers under write_lock() (the design of btrfs's extent
 * maps).  The tree helpers below know nothing of locks; each operation
 * takes its variant's lock around them.
 */
#include <linux/err.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "bench.h"

struct bench_rbtree {
	struct bench_index bi;
	struct rb_root root;
	spinlock_t lock;	/* rbtree-spin: everything */
	rwlock_t rwlock;	/* rbtree-rw: shared by readers */
};

static struct bench_rbtree *bench_rb(struct bench_index *bi)
{
	return container_of(bi, struct bench_rbtree, bi);
}

static struct bench_item *bench_rb_item(struct rb_node *node)
{
	return rb_entry(node, struct bench_item, rb);
}

/* The extent holding @key. */
static struct bench_item *bench_rb_find(struct rb_root *root, unsigned long key)
{
	struct rb_node *node = root->rb_node;

	while (node) {
		struct bench_item *item = bench_rb_item(node);

		if (key < item->slot.key)
			node = node->rb_left;
		else if (key > sl_slot_last(&item->slot))
			node = node->rb_right;
		else
			return item;
	}
	return NULL;
}

/*
 * The lowest extent ending at or after @start, or the lowest starting at
 * or after it (@by_start): extents never overlap, so both orders agree
 * with the tree's.
 */
static struct rb_node *bench_rb_lower_bound(struct rb_root *root,
					    unsigned long start, bool by_start)
{
	struct rb_node *node = root->rb_node, *best = NULL;

	while (node) {
		struct bench_item *item = bench_rb_item(node);
		unsigned long edge = by_start ? item->slot.key :
			sl_slot_last(&item->slot);

		if (edge >= start) {
			best = node;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return best;
}

static int bench_rb_link(struct rb_root *root, struct bench_item *new)
{
	struct rb_node **link = &root->rb_node, *parent = NULL;

	while (*link) {
		struct bench_item *item = bench_rb_item(*link);

		parent = *link;
		if (sl_slot_last(&new->slot) < item->slot.key)
			link = &(*link)->rb_left;
		else if (new->slot.key > sl_slot_last(&item->slot))
			link = &(*link)->rb_right;
		else
			return -EEXIST;
	}
	rb_link_node(&new->rb, parent, link);
	rb_insert_color(&new->rb, root);
	return 0;
}

static int bench_rb_unlink(struct rb_root *root, struct bench_item *item)
{
	if (RB_EMPTY_NODE(&item->rb))
		return -ENOENT;
	rb_erase(&item->rb, root);
	RB_CLEAR_NODE(&item->rb);
	return 0;
}

static bool bench_rb_overlap(struct rb_root *root, unsigned long start,
			     unsigned long end, unsigned long *found)
{
	struct rb_node *node = bench_rb_lower_bound(root, start, false);

	if (!node || bench_rb_item(node)->slot.key >= end)
		return false;
	*found = bench_rb_item(node)->slot.key;
	return true;
}

static unsigned long bench_rb_count(struct rb_root *root, unsigned long from,
				    unsigned long max)
{
	struct rb_node *node = bench_rb_lower_bound(root, from, true);
	unsigned long seen = 0;

	for (; node && seen < max; node = rb_next(node))
		seen++;
	return seen;
}

static struct bench_rbtree *bench_rb_new(const struct bench_index_ops *ops)
{
	struct bench_rbtree *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	t->root = RB_ROOT;
	spin_lock_init(&t->lock);
	rwlock_init(&t->rwlock);
	t->bi.ops = ops;
	return t;
}

/* The items are the benchmark's: nothing to free but the tree head. */
static void bench_rb_destroy(struct bench_index *bi)
{
	kfree(bench_rb(bi));
}

/* rbtree-spin */

static struct bench_index *bench_rbs_init(void)
{
	struct bench_rbtree *t = bench_rb_new(&bench_index_rbtree_spin);

	return t ? &t->bi : ERR_PTR(-ENOMEM);
}

static int bench_rbs_insert(struct bench_index *bi, struct bench_item *item)
{
	struct bench_rbtree *t = bench_rb(bi);
	int ret;

	spin_lock(&t->lock);
	ret = bench_rb_link(&t->root, item);
	spin_unlock(&t->lock);
	return ret;
}

static int bench_rbs_remove(struct bench_index *bi, struct bench_item *item)
{
	struct bench_rbtree *t = bench_rb(bi);
	int ret;

	spin_lock(&t->lock);
	ret = bench_rb_unlink(&t->root, item);
	spin_unlock(&t->lock);
	return ret;
}

static bool bench_rbs_lookup(struct bench_index *bi, unsigned long key,
			     unsigned long *found)
{
	struct bench_rbtree *t = bench_rb(bi);
	struct bench_item *item;

	spin_lock(&t->lock);
	item = bench_rb_find(&t->root, key);
	if (item)
		*found = item->slot.key;
	spin_unlock(&t->lock);
	return item;
}

static bool bench_rbs_first_overlap(struct bench_index *bi,
				    unsigned long start, unsigned long end,
				    unsigned long *found)
{
	struct bench_rbtree *t = bench_rb(bi);
	bool hit;

	spin_lock(&t->lock);
	hit = bench_rb_overlap(&t->root, start, end, found);
	spin_unlock(&t->lock);
	return hit;
}

static unsigned long bench_rbs_iterate(struct bench_index *bi,
				       unsigned long from, unsigned long max)
{
	struct bench_rbtree *t = bench_rb(bi);
	unsigned long seen;

	spin_lock(&t->lock);
	seen = bench_rb_count(&t->root, from, max);
	spin_unlock(&t->lock);
	return seen;
}

const struct bench_index_ops bench_index_rbtree_spin = {
	.name = "rbtree-spin",
	.workloads = BENCH_INDEX_WORKLOADS,
	.init = bench_rbs_init,
	.destroy = bench_rb_destroy,
	.insert = bench_rbs_insert,
	.remove = bench_rbs_remove,
	.lookup = bench_rbs_lookup,
	.first_overlap = bench_rbs_first_overlap,
	.iterate = bench_rbs_iterate,
};

/* rbtree-rw */

static struct bench_index *bench_rbw_init(void)
{
	struct bench_rbtree *t = bench_rb_new(&bench_index_rbtree_rw);

	return t ? &t->bi : ERR_PTR(-ENOMEM);
}

static int bench_rbw_insert(struct bench_index *bi, struct bench_item *item)
{
	struct bench_rbtree *t = bench_rb(bi);
	int ret;

	write_lock(&t->rwlock);
	ret = bench_rb_link(&t->root, item);
	write_unlock(&t->rwlock);
	return ret;
}

static int bench_rbw_remove(struct bench_index *bi, struct bench_item *item)
{
	struct bench_rbtree *t = bench_rb(bi);
	int ret;

	write_lock(&t->rwlock);
	ret = bench_rb_unlink(&t->root, item);
	write_unlock(&t->rwlock);
	return ret;
}

static bool bench_rbw_lookup(struct bench_index *bi, unsigned long key,
			     unsigned long *found)
{
	struct bench_rbtree *t = bench_rb(bi);
	struct bench_item *item;

	read_lock(&t->rwlock);
	item = bench_rb_find(&t->root, key);
	if (item)
		*found = item->slot.key;
	read_unlock(&t->rwlock);
	return item;
}

static bool bench_rbw_first_overlap(struct bench_index *bi,
				    unsigned long start, unsigned long end,
				    unsigned long *found)
{
	struct bench_rbtree *t = bench_rb(bi);
	bool hit;

	read_lock(&t->rwlock);
	hit = bench_rb_overlap(&t->root, start, end, found);
	read_unlock(&t->rwlock);
	return hit;
}

static unsigned long bench_rbw_iterate(struct bench_index *bi,
				       unsigned long from, unsigned long max)
{
	struct bench_rbtree *t = bench_rb(bi);
	unsigned long seen;

	read_lock(&t->rwlock);
	seen = bench_rb_count(&t->root, from, max);
	read_unlock(&t->rwlock);
	return seen;
}

const struct bench_index_ops bench_index_rbtree_rw = {
	.name = "rbtree-rw",
	.workloads = BENCH_INDEX_WORKLOADS,
	.init = bench_rbw_init,
	.destroy = bench_rb_destroy,
	.insert = bench_rbw_insert,
	.remove = bench_rbw_remove,
	.lookup = bench_rbw_lookup,
	.first_overlap = bench_rbw_first_overlap,
	.iterate = bench_rbw_iterate,
};
