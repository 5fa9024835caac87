// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's IOVA allocator (drivers/iommu/iova.c, built in as
 * CONFIG_IOMMU_IOVA) as a bench allocator, in two ways:
 *
 *  iova       alloc_iova() and __free_iova(): the rbtree under one
 *             spinlock, searched downwards from a cached node, one
 *             struct iova allocated per range;
 *  iova-fast  alloc_iova_fast() and free_iova_fast(), what the DMA API
 *             uses: per-CPU magazines of recently freed ranges (sizes up
 *             to 32 pages, by power of two) in front of the same tree.
 *             Requests are rounded up to a power of two.
 *
 * Units are pages of a domain with granule PAGE_SIZE.  Allocation is
 * top-down from the end of the space, and always aligned to the request's
 * size rounded up to a power of two, as the DMA API wants.
 *
 * Reserving a fixed range uses alloc_iova() with the range's last unit as
 * the limit, which lands exactly there when it is free; reserve_iova()
 * would do, but it scans every range in the tree first.
 */
#include <linux/err.h>
#include <linux/iova.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include "bench.h"

struct bench_iova {
	struct bench_alloc ba;
	struct iova_domain iovad;
	unsigned long limit;	/* last unit of the space */
	bool fast;
};

static struct bench_iova *bench_iv(struct bench_alloc *ba)
{
	return container_of(ba, struct bench_iova, ba);
}

static struct bench_alloc *bench_iv_new(unsigned long start,
					unsigned long end, bool fast)
{
	struct bench_iova *v;
	int ret;

	/* alloc_iova_fast() returns 0 for failure: unit 0 cannot be used. */
	if (!start)
		return ERR_PTR(-EINVAL);
	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return ERR_PTR(-ENOMEM);
	ret = iova_cache_get();
	if (ret)
		goto out_free;
	init_iova_domain(&v->iovad, PAGE_SIZE, start);
	if (fast) {
		ret = iova_domain_init_rcaches(&v->iovad);
		if (ret)
			goto out_domain;
	}
	v->limit = end - 1;
	v->fast = fast;
	v->ba.ops = fast ? &bench_alloc_iova_fast : &bench_alloc_iova;
	return &v->ba;

out_domain:
	put_iova_domain(&v->iovad);
	iova_cache_put();
out_free:
	kfree(v);
	return ERR_PTR(ret);
}

static struct bench_alloc *bench_iv_init(unsigned long start,
					 unsigned long end)
{
	return bench_iv_new(start, end, false);
}

static struct bench_alloc *bench_iv_fast_init(unsigned long start,
					      unsigned long end)
{
	return bench_iv_new(start, end, true);
}

/* Frees every range still allocated, and the caches. */
static void bench_iv_destroy(struct bench_alloc *ba)
{
	struct bench_iova *v = bench_iv(ba);

	put_iova_domain(&v->iovad);
	iova_cache_put();
	kfree(v);
}

static int bench_iv_alloc(struct bench_alloc *ba, unsigned long size,
			  unsigned long align, struct bench_range *r)
{
	struct bench_iova *v = bench_iv(ba);
	struct iova *iova;
	unsigned long pfn;

	/* The allocator aligns to the size or not at all. */
	if (!size || (align > 1 && align != roundup_pow_of_two(size)))
		return -EINVAL;
	if (v->fast) {
		pfn = alloc_iova_fast(&v->iovad, size, v->limit, true);
		if (!pfn)
			return -ENOSPC;
		r->start = pfn;
		r->cookie = NULL;
	} else {
		iova = alloc_iova(&v->iovad, size, v->limit, align > 1);
		if (!iova)
			return -ENOSPC;
		r->start = iova->pfn_lo;
		r->cookie = iova;
	}
	r->size = size;
	return 0;
}

static int bench_iv_free(struct bench_alloc *ba, struct bench_range *r)
{
	struct bench_iova *v = bench_iv(ba);

	if (r->cookie)
		__free_iova(&v->iovad, r->cookie);
	else
		free_iova_fast(&v->iovad, r->start, r->size);
	return 0;
}

static int bench_iv_reserve(struct bench_alloc *ba, unsigned long start,
			    unsigned long size, struct bench_range *r)
{
	struct bench_iova *v = bench_iv(ba);
	struct iova *iova;

	if (!size || start + size - 1 > v->limit)
		return -ERANGE;
	iova = alloc_iova(&v->iovad, size, start + size - 1, false);
	if (!iova)
		return -EEXIST;
	if (iova->pfn_lo != start) {
		__free_iova(&v->iovad, iova);
		return -EEXIST;
	}
	/* Freed through the tree even in iova-fast, never into a cache. */
	r->start = start;
	r->size = size;
	r->cookie = iova;
	return 0;
}

const struct bench_alloc_ops bench_alloc_iova = {
	.name = "iova",
	.top_down = true,
	.size_align_only = true,
	.init = bench_iv_init,
	.destroy = bench_iv_destroy,
	.alloc = bench_iv_alloc,
	.free = bench_iv_free,
	.reserve = bench_iv_reserve,
};

const struct bench_alloc_ops bench_alloc_iova_fast = {
	.name = "iova-fast",
	.top_down = true,
	.size_align_only = true,
	.init = bench_iv_fast_init,
	.destroy = bench_iv_destroy,
	.alloc = bench_iv_alloc,
	.free = bench_iv_free,
	.reserve = bench_iv_reserve,
};
