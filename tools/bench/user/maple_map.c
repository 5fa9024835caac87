// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own maple tree as a peer of the benchmark: lib/maple_tree.c
 * of Debian's linux-source-6.1, compiled at build time against the kernel's
 * userspace harness (tools/testing/radix-tree and tools/include from the
 * same tarball), never copied into this tree.  The Makefile extracts them,
 * builds this file with the harness's include paths and hides every symbol
 * but bench_impl_maple, so the harness's kmalloc() and friends cannot meet
 * the skiplist shim's.
 *
 * The tree runs as the kernel runs it for RCU readers and gap searches
 * (MT_FLAGS_USE_RCU | MT_FLAGS_ALLOC_RANGE): lookups take only
 * rcu_read_lock() (liburcu's memb flavour here), writers serialise on the
 * tree's own lock.  What differs from the kernel: that lock is the
 * harness's pthread mutex, and RCU frees run on liburcu's call_rcu thread.
 * The node cache is this file's, not the harness's (which poisons and
 * returns every aligned object to malloc, and fails every allocation that
 * may not sleep): a per-thread free list in front of malloc, as the
 * skiplist's benchmark shim has, standing in for SLUB's per-CPU lists.
 * Lookups touch neither the lock nor the cache, so the lookup figures
 * compare the two search paths as they are.
 */
#include "test.h"
#include <stdlib.h>
#include <linux/init.h>

#define module_init(x)
#define module_exit(x)
#define MODULE_AUTHOR(x)
#define MODULE_LICENSE(x)
#define dump_stack()	assert(0)

#include MAPLE_TREE_C

#include "bench_index.h"

/* The harness's call_rcu() wrapper asks whether to trace; it never should. */
int kmalloc_verbose;

/*
 * The node cache.  Each thread keeps up to MM_CACHE_MAX freed objects; the
 * call_rcu thread, which frees every node a writer replaced, hands its
 * overflow back to malloc, where writers find it again.
 */
#define MM_CACHE_MAX	256

struct kmem_cache {
	unsigned int size;
	unsigned int align;
	void (*ctor)(void *obj);
	long allocated;		/* objects handed out and not yet freed */
};

struct mm_free_obj {
	struct mm_free_obj *next;
};

static __thread struct mm_free_obj *mm_free_list;
static __thread unsigned int mm_free_nr;

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, unsigned int flags,
				     void (*ctor)(void *))
{
	struct kmem_cache *cachep = calloc(1, sizeof(*cachep));

	if (!cachep)
		abort();
	cachep->size = size;
	cachep->align = align;
	cachep->ctor = ctor;
	return cachep;
}

/* Only the maple tree's node cache exists, so one list per thread will do. */
void *kmem_cache_alloc_lru(struct kmem_cache *cachep, struct list_lru *lru,
			   int gfp)
{
	struct mm_free_obj *obj = mm_free_list;
	void *p;

	if (obj) {
		mm_free_list = obj->next;
		mm_free_nr--;
		p = obj;
	} else if (posix_memalign(&p, cachep->align ?: sizeof(void *),
				  cachep->size)) {
		return NULL;
	}
	if (cachep->ctor)
		cachep->ctor(p);
	else if (gfp & __GFP_ZERO)
		memset(p, 0, cachep->size);
	__atomic_fetch_add(&cachep->allocated, 1, __ATOMIC_RELAXED);
	return p;
}

void kmem_cache_free(struct kmem_cache *cachep, void *p)
{
	struct mm_free_obj *obj = p;

	__atomic_fetch_sub(&cachep->allocated, 1, __ATOMIC_RELAXED);
	if (mm_free_nr >= MM_CACHE_MAX) {
		free(p);
		return;
	}
	obj->next = mm_free_list;
	mm_free_list = obj;
	mm_free_nr++;
}

int kmem_cache_alloc_bulk(struct kmem_cache *cachep, gfp_t gfp, size_t size,
			  void **list)
{
	size_t i;

	for (i = 0; i < size; i++) {
		list[i] = kmem_cache_alloc_lru(cachep, NULL, gfp);
		if (!list[i]) {
			kmem_cache_free_bulk(cachep, i, list);
			return 0;
		}
	}
	return size;
}

void kmem_cache_free_bulk(struct kmem_cache *cachep, size_t size, void **list)
{
	size_t i;

	for (i = 0; i < size; i++)
		kmem_cache_free(cachep, list[i]);
}

struct mm_item {
	struct rcu_head rcu;
	unsigned long key;
	unsigned long size;
};

struct mm_index {
	struct maple_tree mt;
};

static struct mm_index *mm(struct bench_index *idx)
{
	return (struct mm_index *)idx;
}

static struct bench_index *mm_create(void)
{
	struct mm_index *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (!maple_node_cache)
		maple_tree_init();
	mt_init_flags(&t->mt, MT_FLAGS_USE_RCU | MT_FLAGS_ALLOC_RANGE);
	return (struct bench_index *)t;
}

static void mm_destroy(struct bench_index *idx)
{
	struct mm_index *t = mm(idx);
	struct mm_item *it;
	unsigned long index = 0;

	rcu_register_thread();
	/* No reader is left; a tree out of RCU mode frees its nodes at once. */
	mt_clear_in_rcu(&t->mt);
	mt_for_each(&t->mt, it, index, ULONG_MAX)
		free(it);
	mtree_destroy(&t->mt);
	rcu_barrier();
	rcu_unregister_thread();
	free(t);
}

static void mm_thread_start(struct bench_index *idx)
{
	rcu_register_thread();
}

static void mm_thread_stop(struct bench_index *idx)
{
	rcu_unregister_thread();
}

static struct mm_item *mm_item_new(unsigned long key, unsigned long size)
{
	struct mm_item *it = malloc(sizeof(*it));

	if (it) {
		it->key = key;
		it->size = size;
	}
	return it;
}

static int mm_insert(struct bench_index *idx, unsigned long key,
		     unsigned long size)
{
	struct mm_item *it = mm_item_new(key, size);
	int ret;

	if (!it)
		return -ENOMEM;
	ret = mtree_insert_range(&mm(idx)->mt, key, key + size - 1, it,
				 GFP_KERNEL);
	if (ret) {
		free(it);
		return ret == -EEXIST ? -EEXIST : -ENOMEM;
	}
	return 0;
}

static void mm_item_free_rcu(struct rcu_head *head)
{
	free(container_of(head, struct mm_item, rcu));
}

static int mm_remove(struct bench_index *idx, unsigned long key)
{
	struct maple_tree *mt = &mm(idx)->mt;
	struct mm_item *it;

	MA_STATE(mas, mt, key, key);

	/* Erase only an item that starts at @key, as the other indexes do. */
	mtree_lock(mt);
	it = mas_walk(&mas);
	if (it && mas.index == key)
		mas_erase(&mas);
	else
		it = NULL;
	mtree_unlock(mt);
	if (!it)
		return -ENOENT;
	call_rcu(&it->rcu, mm_item_free_rcu);
	return 0;
}

static bool mm_lookup(struct bench_index *idx, unsigned long key)
{
	return mtree_load(&mm(idx)->mt, key) != NULL;
}

/*
 * The kernel's pattern for an aligned first fit (mtree_alloc_range() is
 * broken in 6.1): find a gap big enough for the size plus the worst-case
 * alignment padding under the lock, then insert outside it, and search
 * again if another writer took the space meanwhile.
 */
static int mm_insert_hole(struct bench_index *idx, unsigned long size,
			  unsigned long align, unsigned long min,
			  unsigned long max, unsigned long *key)
{
	struct maple_tree *mt = &mm(idx)->mt;
	struct mm_item *it = mm_item_new(0, size);
	int ret;

	if (!it)
		return -ENOMEM;
	for (;;) {
		MA_STATE(mas, mt, 0, 0);
		unsigned long start;

		mtree_lock(mt);
		ret = mas_empty_area(&mas, min, max - 1, size + align - 1);
		mtree_unlock(mt);
		if (ret) {
			free(it);
			return -ENOSPC;
		}
		start = (mas.index + align - 1) & ~(align - 1);
		ret = mtree_insert_range(mt, start, start + size - 1, it,
					 GFP_KERNEL);
		if (ret == -EEXIST)
			continue;
		if (ret) {
			free(it);
			return -ENOMEM;
		}
		it->key = start;
		*key = start;
		return 0;
	}
}

static size_t mm_index_bytes(struct bench_index *idx)
{
	return __atomic_load_n(&maple_node_cache->allocated, __ATOMIC_RELAXED) *
	       maple_node_cache->size;
}

static void mm_quiesce(struct bench_index *idx)
{
	rcu_barrier();
}

const struct bench_impl bench_impl_maple = {
	.name			= "maple",
	.create			= mm_create,
	.destroy		= mm_destroy,
	.thread_start		= mm_thread_start,
	.thread_stop		= mm_thread_stop,
	.insert			= mm_insert,
	.remove			= mm_remove,
	.lookup			= mm_lookup,
	.insert_hole		= mm_insert_hole,
	.index_bytes		= mm_index_bytes,
	.concurrent_remove	= true,
	.quiesce		= mm_quiesce,
};
