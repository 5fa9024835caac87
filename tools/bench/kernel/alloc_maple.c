// SPDX-License-Identifier: GPL-2.0
/*
 * The maple tree as a bench allocator (gap tracking, RCU mode, as the mm
 * uses it for virtual memory areas): mas_empty_area() finds the lowest
 * free gap of a size under the tree lock, then mtree_insert_range()
 * claims it, again if a concurrent allocation took it first (-EEXIST).
 * In 6.1, mtree_alloc_range() is broken and mas_store_gfp() may drop the
 * lock to allocate, so neither is used.
 *
 * The gap search has no alignment argument.  An aligned request first
 * tries the lowest gap of its size, aligned up; if that no longer fits,
 * it searches again for size + align - 1 units, which always hold an
 * aligned range (what the mm does for aligned mappings).
 */
#include <linux/err.h>
#include <linux/maple_tree.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include "bench.h"

/* Searches before giving up on a request that keeps colliding. */
#define BENCH_MT_TRIES	16

struct bench_mt_alloc {
	struct bench_alloc ba;
	struct maple_tree mt;
	unsigned long start;
	unsigned long end;	/* exclusive */
};

static struct bench_mt_alloc *bench_mta(struct bench_alloc *ba)
{
	return container_of(ba, struct bench_mt_alloc, ba);
}

static struct bench_alloc *bench_mta_init(unsigned long start,
					  unsigned long end)
{
	struct bench_mt_alloc *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return ERR_PTR(-ENOMEM);
	mt_init_flags(&a->mt, MT_FLAGS_ALLOC_RANGE | MT_FLAGS_USE_RCU);
	a->start = start;
	a->end = end;
	a->ba.ops = &bench_alloc_maple;
	return &a->ba;
}

static void bench_mta_destroy(struct bench_alloc *ba)
{
	struct bench_mt_alloc *a = bench_mta(ba);

	/* No reader is left; see bench_mt_destroy() in index_maple.c. */
	mt_clear_in_rcu(&a->mt);
	mtree_destroy(&a->mt);
	kfree(a);
}

/* The start of the lowest free gap of @size units, or -ENOSPC. */
static int bench_mta_gap(struct bench_mt_alloc *a, unsigned long size,
			 unsigned long *lo)
{
	MA_STATE(mas, &a->mt, 0, 0);
	int ret;

	mtree_lock(&a->mt);
	ret = mas_empty_area(&mas, a->start, a->end - 1, size);
	*lo = mas.index;
	mtree_unlock(&a->mt);
	return ret ? -ENOSPC : 0;
}

static int bench_mta_alloc(struct bench_alloc *ba, unsigned long size,
			   unsigned long align, struct bench_range *r)
{
	struct bench_mt_alloc *a = bench_mta(ba);
	unsigned long lo, want = size;
	unsigned int tries;
	int ret;

	if (!size || !is_power_of_2(align))
		return -EINVAL;
	for (tries = 0; tries < BENCH_MT_TRIES; tries++) {
		ret = bench_mta_gap(a, want, &lo);
		if (ret)
			return ret;
		lo = ALIGN(lo, align);
		if (lo + size > a->end) {
			ret = -EEXIST;
		} else {
			ret = mtree_insert_range(&a->mt, lo, lo + size - 1,
						 xa_mk_value(size), GFP_KERNEL);
			if (!ret) {
				r->start = lo;
				r->size = size;
				r->cookie = NULL;
				return 0;
			}
		}
		if (ret != -EEXIST)
			return ret;
		/* Aligned up, it did not fit (or someone took it): pad. */
		want = size + align - 1;
	}
	return -EBUSY;
}

static int bench_mta_free(struct bench_alloc *ba, struct bench_range *r)
{
	struct bench_mt_alloc *a = bench_mta(ba);

	return mtree_erase(&a->mt, r->start) ? 0 : -ENOENT;
}

static int bench_mta_reserve(struct bench_alloc *ba, unsigned long start,
			     unsigned long size, struct bench_range *r)
{
	struct bench_mt_alloc *a = bench_mta(ba);
	int ret;

	if (!size || start < a->start || start + size > a->end)
		return -ERANGE;
	ret = mtree_insert_range(&a->mt, start, start + size - 1,
				 xa_mk_value(size), GFP_KERNEL);
	if (!ret) {
		r->start = start;
		r->size = size;
		r->cookie = NULL;
	}
	return ret;
}

const struct bench_alloc_ops bench_alloc_maple = {
	.name = "maple",
	.top_down = false,
	.init = bench_mta_init,
	.destroy = bench_mta_destroy,
	.alloc = bench_mta_alloc,
	.free = bench_mta_free,
	.reserve = bench_mta_reserve,
};
