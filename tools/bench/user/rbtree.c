// SPDX-License-Identifier: GPL-2.0
/*
 * Baseline for the benchmark: a plain red-black tree of extents behind one
 * lock, the way most range indexes (the IOVA allocator, VMAs before maple
 * trees) were protected.  Two flavours share the tree:
 *
 *  rbtree-spin: a pthread spinlock around every operation.
 *  rbtree-rw:   a pthread rwlock; lookups share the read side.
 *
 * The tree is the usual CLRS one with parent pointers and NULL leaves.  Nodes
 * are embedded in the items, as the kernel's rb_node is, so the index itself
 * allocates nothing per item apart from the link fields inside each item.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "bench_index.h"

struct rbt_node {
	struct rbt_node *parent;
	struct rbt_node *left;
	struct rbt_node *right;
	bool red;
};

struct rbt_item {
	struct rbt_node node;		/* first, so a cast converts */
	unsigned long key;
	unsigned long size;
};

struct rbt_index {
	/*
	 * Every operation writes the lock word, while the root pointer and
	 * count are read by all; keep them on different cache lines.
	 */
	union {
		pthread_spinlock_t spin;
		pthread_rwlock_t rw;
	} lock __attribute__((aligned(64)));
	bool use_rw;
	struct rbt_node *root __attribute__((aligned(64)));
	unsigned long count;
};

static inline struct rbt_item *to_item(struct rbt_node *n)
{
	return (struct rbt_item *)n;
}

static inline unsigned long item_end(const struct rbt_item *it)
{
	return it->key + it->size;
}

static inline bool is_red(const struct rbt_node *n)
{
	return n && n->red;
}

/* ---- tree mechanics ---------------------------------------------------- */

static void rotate_left(struct rbt_index *t, struct rbt_node *x)
{
	struct rbt_node *y = x->right;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	y->parent = x->parent;
	if (!x->parent)
		t->root = y;
	else if (x == x->parent->left)
		x->parent->left = y;
	else
		x->parent->right = y;
	y->left = x;
	x->parent = y;
}

static void rotate_right(struct rbt_index *t, struct rbt_node *x)
{
	struct rbt_node *y = x->left;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	y->parent = x->parent;
	if (!x->parent)
		t->root = y;
	else if (x == x->parent->right)
		x->parent->right = y;
	else
		x->parent->left = y;
	y->right = x;
	x->parent = y;
}

/* Restore the red-black properties after linking the red node z. */
static void insert_fixup(struct rbt_index *t, struct rbt_node *z)
{
	while (is_red(z->parent)) {
		/* A red parent is never the root, so the grandparent exists. */
		struct rbt_node *p = z->parent, *g = p->parent, *u;

		if (p == g->left) {
			u = g->right;
			if (is_red(u)) {
				p->red = false;
				u->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->right) {
				z = p;
				rotate_left(t, z);
				p = z->parent;
			}
			p->red = false;
			g->red = true;
			rotate_right(t, g);
		} else {
			u = g->left;
			if (is_red(u)) {
				p->red = false;
				u->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->left) {
				z = p;
				rotate_right(t, z);
				p = z->parent;
			}
			p->red = false;
			g->red = true;
			rotate_left(t, g);
		}
	}
	t->root->red = false;
}

static void link_node(struct rbt_index *t, struct rbt_node *n,
		      struct rbt_node *parent, struct rbt_node **slot)
{
	n->parent = parent;
	n->left = NULL;
	n->right = NULL;
	n->red = true;
	*slot = n;
	insert_fixup(t, n);
	t->count++;
}

/* Put v where u was, as far as u's parent is concerned. */
static void transplant(struct rbt_index *t, struct rbt_node *u,
		       struct rbt_node *v)
{
	if (!u->parent)
		t->root = v;
	else if (u == u->parent->left)
		u->parent->left = v;
	else
		u->parent->right = v;
	if (v)
		v->parent = u->parent;
}

static struct rbt_node *subtree_min(struct rbt_node *n)
{
	while (n->left)
		n = n->left;
	return n;
}

static struct rbt_node *rbt_next(struct rbt_node *n)
{
	struct rbt_node *p;

	if (n->right)
		return subtree_min(n->right);
	p = n->parent;
	while (p && n == p->right) {
		n = p;
		p = p->parent;
	}
	return p;
}

/*
 * x took one black away from its subtree; x may be NULL (a leaf), which is
 * why its parent xp is carried separately.  The sibling w is never NULL
 * here: the other side has a black height of at least one.
 */
static void erase_fixup(struct rbt_index *t, struct rbt_node *x,
			struct rbt_node *xp)
{
	struct rbt_node *w;

	while (x != t->root && !is_red(x)) {
		if (x == xp->left) {
			w = xp->right;
			if (is_red(w)) {
				w->red = false;
				xp->red = true;
				rotate_left(t, xp);
				w = xp->right;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = true;
				x = xp;
				xp = x->parent;
				continue;
			}
			if (!is_red(w->right)) {
				w->left->red = false;
				w->red = true;
				rotate_right(t, w);
				w = xp->right;
			}
			w->red = xp->red;
			xp->red = false;
			w->right->red = false;
			rotate_left(t, xp);
		} else {
			w = xp->left;
			if (is_red(w)) {
				w->red = false;
				xp->red = true;
				rotate_right(t, xp);
				w = xp->left;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = true;
				x = xp;
				xp = x->parent;
				continue;
			}
			if (!is_red(w->left)) {
				w->right->red = false;
				w->red = true;
				rotate_left(t, w);
				w = xp->left;
			}
			w->red = xp->red;
			xp->red = false;
			w->left->red = false;
			rotate_right(t, xp);
		}
		x = t->root;
		break;
	}
	if (x)
		x->red = false;
}

static void erase_node(struct rbt_index *t, struct rbt_node *z)
{
	struct rbt_node *y = z, *x, *xp;
	bool removed_red = z->red;

	if (!z->left) {
		x = z->right;
		xp = z->parent;
		transplant(t, z, z->right);
	} else if (!z->right) {
		x = z->left;
		xp = z->parent;
		transplant(t, z, z->left);
	} else {
		/* Two children: the successor y takes z's place and colour. */
		y = subtree_min(z->right);
		removed_red = y->red;
		x = y->right;
		if (y->parent == z) {
			xp = y;
		} else {
			xp = y->parent;
			transplant(t, y, y->right);
			y->right = z->right;
			y->right->parent = y;
		}
		transplant(t, z, y);
		y->left = z->left;
		y->left->parent = y;
		y->red = z->red;
	}
	if (!removed_red)
		erase_fixup(t, x, xp);
	t->count--;
}

/* The item with the largest start <= key, or NULL. */
static struct rbt_item *find_le(struct rbt_index *t, unsigned long key)
{
	struct rbt_node *n = t->root, *best = NULL;

	while (n) {
		if (key < to_item(n)->key) {
			n = n->left;
		} else {
			best = n;
			n = n->right;
		}
	}
	return best ? to_item(best) : NULL;
}

static struct rbt_item *find_exact(struct rbt_index *t, unsigned long key)
{
	struct rbt_node *n = t->root;

	while (n) {
		struct rbt_item *it = to_item(n);

		if (key < it->key)
			n = n->left;
		else if (key > it->key)
			n = n->right;
		else
			return it;
	}
	return NULL;
}

/*
 * Link it unless it overlaps a neighbour.  On the way down, the last node we
 * turned right at is the predecessor and the last we turned left at is the
 * successor, so both overlap checks come for free.
 */
static int tree_insert(struct rbt_index *t, struct rbt_item *it)
{
	struct rbt_node **slot = &t->root, *parent = NULL;
	struct rbt_item *pred = NULL, *succ = NULL;

	while (*slot) {
		struct rbt_item *cur = to_item(*slot);

		parent = *slot;
		if (it->key < cur->key) {
			succ = cur;
			slot = &parent->left;
		} else if (it->key > cur->key) {
			pred = cur;
			slot = &parent->right;
		} else {
			return -EEXIST;
		}
	}
	if (pred && item_end(pred) > it->key)
		return -EEXIST;
	if (succ && item_end(it) > succ->key)
		return -EEXIST;
	link_node(t, &it->node, parent, slot);
	return 0;
}

static unsigned long align_up(unsigned long x, unsigned long align)
{
	if (!(align & (align - 1)))
		return (x + align - 1) & ~(align - 1);
	return (x + align - 1) / align * align;
}

/*
 * First fit by walking the items in address order from min, as the IOVA
 * allocator did before it grew a gap-augmented tree: O(items before the
 * first fitting gap), which is the cost the benchmark wants to expose.
 */
static int tree_insert_hole(struct rbt_index *t, struct rbt_item *it,
			    unsigned long align, unsigned long min,
			    unsigned long max)
{
	struct rbt_item *prev = find_le(t, min);
	struct rbt_node *next;
	unsigned long start = min, limit;

	if (prev) {
		if (item_end(prev) > start)
			start = item_end(prev);
		next = rbt_next(&prev->node);
	} else {
		next = t->root ? subtree_min(t->root) : NULL;
	}

	for (;;) {
		start = align_up(start, align);
		/* start >= min also catches align_up() wrapping past zero. */
		limit = next ? to_item(next)->key : max;
		if (limit > max)
			limit = max;
		if (start >= min && start < limit &&
		    it->size <= limit - start)
			break;
		if (!next || limit == max)
			return -ENOSPC;
		if (item_end(to_item(next)) > start)
			start = item_end(to_item(next));
		next = rbt_next(next);
	}

	it->key = start;
	/* Cannot fail: the extent lies inside a gap. */
	return tree_insert(t, it);
}

static void tree_free_all(struct rbt_node *n)
{
	/* Recursion depth is bounded by the tree height, 2 log2(n). */
	while (n) {
		struct rbt_node *right = n->right;

		tree_free_all(n->left);
		free(to_item(n));
		n = right;
	}
}

/* ---- locking wrappers -------------------------------------------------- */

static inline struct rbt_index *to_rbt(struct bench_index *idx)
{
	return (struct rbt_index *)idx;
}

static inline void read_lock(struct rbt_index *t)
{
	if (t->use_rw)
		pthread_rwlock_rdlock(&t->lock.rw);
	else
		pthread_spin_lock(&t->lock.spin);
}

static inline void read_unlock(struct rbt_index *t)
{
	if (t->use_rw)
		pthread_rwlock_unlock(&t->lock.rw);
	else
		pthread_spin_unlock(&t->lock.spin);
}

static inline void write_lock(struct rbt_index *t)
{
	if (t->use_rw)
		pthread_rwlock_wrlock(&t->lock.rw);
	else
		pthread_spin_lock(&t->lock.spin);
}

static inline void write_unlock(struct rbt_index *t)
{
	read_unlock(t);
}

static struct rbt_index *rbt_create(bool use_rw)
{
	struct rbt_index *t = aligned_alloc(64, sizeof(*t));

	if (!t)
		return NULL;
	t->use_rw = use_rw;
	t->root = NULL;
	t->count = 0;
	if (use_rw)
		pthread_rwlock_init(&t->lock.rw, NULL);
	else
		pthread_spin_init(&t->lock.spin, PTHREAD_PROCESS_PRIVATE);
	return t;
}

static struct bench_index *rbt_create_spin(void)
{
	return (struct bench_index *)rbt_create(false);
}

static struct bench_index *rbt_create_rw(void)
{
	return (struct bench_index *)rbt_create(true);
}

static void rbt_destroy(struct bench_index *idx)
{
	struct rbt_index *t = to_rbt(idx);

	tree_free_all(t->root);
	if (t->use_rw)
		pthread_rwlock_destroy(&t->lock.rw);
	else
		pthread_spin_destroy(&t->lock.spin);
	free(t);
}

static int rbt_insert(struct bench_index *idx, unsigned long key,
		      unsigned long size)
{
	struct rbt_index *t = to_rbt(idx);
	/* Allocate before locking so malloc stays out of the critical section. */
	struct rbt_item *it = malloc(sizeof(*it));
	int ret;

	if (!it)
		return -ENOMEM;
	it->key = key;
	it->size = size;
	write_lock(t);
	ret = tree_insert(t, it);
	write_unlock(t);
	if (ret)
		free(it);
	return ret;
}

static int rbt_remove(struct bench_index *idx, unsigned long key)
{
	struct rbt_index *t = to_rbt(idx);
	struct rbt_item *it;

	write_lock(t);
	it = find_exact(t, key);
	if (it)
		erase_node(t, &it->node);
	write_unlock(t);
	if (!it)
		return -ENOENT;
	/* Readers hold the lock too, so nobody can still see the item. */
	free(it);
	return 0;
}

static bool rbt_lookup(struct bench_index *idx, unsigned long key)
{
	struct rbt_index *t = to_rbt(idx);
	struct rbt_item *it;
	bool found;

	read_lock(t);
	it = find_le(t, key);
	found = it && key - it->key < it->size;
	read_unlock(t);
	return found;
}

static int rbt_insert_hole(struct bench_index *idx, unsigned long size,
			   unsigned long align, unsigned long min,
			   unsigned long max, unsigned long *key)
{
	struct rbt_index *t = to_rbt(idx);
	struct rbt_item *it;
	int ret;

	if (!size || !align || min >= max)
		return -ENOSPC;
	it = malloc(sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->size = size;
	write_lock(t);
	ret = tree_insert_hole(t, it, align, min, max);
	if (!ret)
		*key = it->key;
	write_unlock(t);
	if (ret)
		free(it);
	return ret;
}

/*
 * The tree allocates no nodes of its own; charge it the link fields it
 * embeds in every item plus its root structure, which is what an intrusive
 * tree costs on top of a bare {key, size} item.
 */
static size_t rbt_index_bytes(struct bench_index *idx)
{
	struct rbt_index *t = to_rbt(idx);
	size_t bytes;

	read_lock(t);
	bytes = sizeof(*t) + t->count * sizeof(struct rbt_node);
	read_unlock(t);
	return bytes;
}

const struct bench_impl bench_impl_rbtree_spin = {
	.name			= "rbtree-spin",
	.create			= rbt_create_spin,
	.destroy		= rbt_destroy,
	.insert			= rbt_insert,
	.remove			= rbt_remove,
	.lookup			= rbt_lookup,
	.insert_hole		= rbt_insert_hole,
	.index_bytes		= rbt_index_bytes,
	.concurrent_remove	= true,
};

const struct bench_impl bench_impl_rbtree_rw = {
	.name			= "rbtree-rw",
	.create			= rbt_create_rw,
	.destroy		= rbt_destroy,
	.insert			= rbt_insert,
	.remove			= rbt_remove,
	.lookup			= rbt_lookup,
	.insert_hole		= rbt_insert_hole,
	.index_bytes		= rbt_index_bytes,
	.concurrent_remove	= true,
};

#ifdef RBTREE_SELFTEST
/*
 * Build with -DRBTREE_SELFTEST (make rbtree_selftest) to check the tree
 * against a flat bitmap of occupied units and the red-black invariants.
 */
#include <stdio.h>
#include <string.h>

static int check_subtree(struct rbt_node *n, struct rbt_node *parent,
			 unsigned long *count)
{
	int lh, rh;

	if (!n)
		return 1;
	if (n->parent != parent)
		abort();
	if (n->red && (is_red(n->left) || is_red(n->right)))
		abort();
	if (n->left && to_item(n->left)->key >= to_item(n)->key)
		abort();
	if (n->right && to_item(n->right)->key <= to_item(n)->key)
		abort();
	lh = check_subtree(n->left, n, count);
	rh = check_subtree(n->right, n, count);
	if (lh != rh)
		abort();
	(*count)++;
	return lh + !n->red;
}

static void check_tree(struct rbt_index *t)
{
	unsigned long count = 0;

	if (is_red(t->root))
		abort();
	check_subtree(t->root, NULL, &count);
	if (count != t->count)
		abort();
}

#define SPACE	4096

int main(void)
{
	static unsigned char used[SPACE], start[SPACE];
	struct bench_index *idx = rbt_create_spin();
	struct rbt_index *t = to_rbt(idx);
	uint64_t s = 88172645463325252ull;
	unsigned long i, k, sz, got;
	int ret;

	for (i = 0; i < 2000000; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		k = s % SPACE;
		sz = 1 + (s >> 20) % 24;
		switch ((s >> 40) % 4) {
		case 0: {
			bool free_range = k + sz <= SPACE &&
				!memchr(used + k, 1, sz);

			ret = rbt_insert(idx, k, sz);
			if (k + sz > SPACE) {
				if (!ret)
					rbt_remove(idx, k);
				break;
			}
			if (free_range != !ret)
				abort();
			if (!ret) {
				memset(used + k, 1, sz);
				start[k] = sz;
			}
			break;
		}
		case 1:
			ret = rbt_remove(idx, k);
			if (!start[k] != !!ret)
				abort();
			if (!ret) {
				memset(used + k, 0, start[k]);
				start[k] = 0;
			}
			break;
		case 2:
			if (rbt_lookup(idx, k) != used[k])
				abort();
			break;
		case 3: {
			unsigned long align = 1ul << ((s >> 50) % 4);
			unsigned long min = (s >> 30) % SPACE, exp = 0;
			bool found = false;

			for (exp = align_up(min, align);
			     exp + sz <= SPACE; exp += align)
				if (!memchr(used + exp, 1, sz)) {
					found = true;
					break;
				}
			ret = rbt_insert_hole(idx, sz, align, min, SPACE, &got);
			if (found != !ret || (found && got != exp))
				abort();
			if (!ret) {
				memset(used + got, 1, sz);
				start[got] = sz;
			}
			break;
		}
		}
		if (!(i % 1024))
			check_tree(t);
	}
	check_tree(t);
	printf("rbtree selftest ok, %lu items at the end\n", t->count);
	rbt_destroy(idx);
	return 0;
}
#endif
