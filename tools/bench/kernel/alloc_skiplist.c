// SPDX-License-Identifier: GPL-2.0
/*
 * The skiplist's range allocator (extent/range_alloc.h, in sl_extent.ko)
 * as a bench allocator: sl_range_alloc_cpu(), which searches up from where
 * this CPU's last allocation ended and wraps round to the start of the
 * space, sl_range_free() and sl_range_reserve().  No lock of ours.
 * "skiplist-cache" turns on the per-CPU caches of freed ranges
 * (SL_RANGE_CACHE), the counterpart of iova-fast's magazines.
 */
#include <linux/err.h>
#include <linux/slab.h>
#include "bench.h"
#include "range_alloc.h"

struct bench_sl_alloc {
	struct bench_alloc ba;
	struct sl_range_alloc ra;
};

static struct sl_range_alloc *bench_ra(struct bench_alloc *ba)
{
	return &container_of(ba, struct bench_sl_alloc, ba)->ra;
}

static struct bench_alloc *bench_ra_new(unsigned long start,
					unsigned long end,
					const struct bench_alloc_ops *ops,
					unsigned int flags)
{
	struct bench_sl_alloc *a = kzalloc(sizeof(*a), GFP_KERNEL);
	int ret;

	if (!a)
		return ERR_PTR(-ENOMEM);
	ret = sl_range_init(&a->ra, start, end, flags, GFP_KERNEL);
	if (ret) {
		kfree(a);
		return ERR_PTR(ret);
	}
	a->ba.ops = ops;
	return &a->ba;
}

static struct bench_alloc *bench_ra_init(unsigned long start, unsigned long end)
{
	return bench_ra_new(start, end, &bench_alloc_skiplist, 0);
}

static struct bench_alloc *bench_ra_cache_init(unsigned long start,
					       unsigned long end)
{
	return bench_ra_new(start, end, &bench_alloc_skiplist_cache,
			    SL_RANGE_CACHE);
}

static void bench_ra_destroy(struct bench_alloc *ba)
{
	sl_range_destroy(bench_ra(ba));
	kfree(container_of(ba, struct bench_sl_alloc, ba));
}

static int bench_ra_alloc(struct bench_alloc *ba, unsigned long size,
			  unsigned long align, struct bench_range *r)
{
	int ret = sl_range_alloc_cpu(bench_ra(ba), size, align, &r->start,
				     GFP_KERNEL);

	if (!ret)
		r->size = size;
	return ret;
}

static int bench_ra_free(struct bench_alloc *ba, struct bench_range *r)
{
	return sl_range_free(bench_ra(ba), r->start, r->size);
}

static int bench_ra_reserve(struct bench_alloc *ba, unsigned long start,
			    unsigned long size, struct bench_range *r)
{
	int ret = sl_range_reserve(bench_ra(ba), start, size, GFP_KERNEL);

	if (!ret) {
		r->start = start;
		r->size = size;
	}
	return ret;
}

const struct bench_alloc_ops bench_alloc_skiplist = {
	.name = "skiplist",
	.top_down = false,
	.init = bench_ra_init,
	.destroy = bench_ra_destroy,
	.alloc = bench_ra_alloc,
	.free = bench_ra_free,
	.reserve = bench_ra_reserve,
};

const struct bench_alloc_ops bench_alloc_skiplist_cache = {
	.name = "skiplist-cache",
	.top_down = false,
	.churn_only = true,
	.init = bench_ra_cache_init,
	.destroy = bench_ra_destroy,
	.alloc = bench_ra_alloc,
	.free = bench_ra_free,
	.reserve = bench_ra_reserve,
};
