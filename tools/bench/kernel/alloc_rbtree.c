// SPDX-License-Identifier: GPL-2.0
/*
 * The rbtree allocator peer: the kernel's IOVA allocator in its 2013
 * design (tools/peers/rbtree_2013.h, shared with the IOMMU demo's "rbtree"
 * backend): one spinlock over one rbtree of the allocated ranges,
 * top-down allocation by a linear walk down from a cached node.
 *
 * The cache makes repeated allocations from one shrinking free area
 * cheap, and makes a request that only fits far below cost a walk over
 * every range in between whenever the cache sits high: after any free
 * near the top.  The fragmented workload does exactly that.  A free here
 * unlinks the range the benchmark hands back, without a lookup.
 */
#include <linux/err.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include "bench.h"
#include "rbtree_2013.h"

struct bench_rb_alloc {
	struct bench_alloc ba;
	struct rb2013 space;
};

static struct rb2013 *bench_rba(struct bench_alloc *ba)
{
	return &container_of(ba, struct bench_rb_alloc, ba)->space;
}

static struct bench_alloc *bench_rba_init(unsigned long start,
					  unsigned long end)
{
	struct bench_rb_alloc *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return ERR_PTR(-ENOMEM);
	rb2013_init(&a->space, start, end);
	a->ba.ops = &bench_alloc_rbtree;
	return &a->ba;
}

static void bench_rba_destroy(struct bench_alloc *ba)
{
	rb2013_destroy(bench_rba(ba));
	kfree(container_of(ba, struct bench_rb_alloc, ba));
}

static int bench_rba_alloc(struct bench_alloc *ba, unsigned long size,
			   unsigned long align, struct bench_range *out)
{
	struct rb2013_range *new;

	if (!size || !is_power_of_2(align))
		return -EINVAL;
	/* As the IOVA allocator did: allocate before taking the lock. */
	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	if (!rb2013_alloc(bench_rba(ba), new, size, align)) {
		kfree(new);
		return -ENOSPC;
	}
	out->start = new->lo;
	out->size = size;
	out->cookie = new;
	return 0;
}

static int bench_rba_free(struct bench_alloc *ba, struct bench_range *r)
{
	struct rb2013_range *range = r->cookie;

	if (!range || range->lo != r->start || range->hi != r->start + r->size - 1)
		return -EINVAL;
	rb2013_erase(bench_rba(ba), range);
	kfree(range);
	return 0;
}

static int bench_rba_reserve(struct bench_alloc *ba, unsigned long start,
			     unsigned long size, struct bench_range *r)
{
	struct rb2013 *a = bench_rba(ba);
	struct rb2013_range *new;
	int ret;

	if (!size || start < a->start || start + size > a->end ||
	    start + size < start)
		return -ERANGE;
	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	ret = rb2013_reserve(a, new, start, size);
	if (ret) {
		kfree(new);
		return ret;
	}
	r->start = start;
	r->size = size;
	r->cookie = new;
	return 0;
}

const struct bench_alloc_ops bench_alloc_rbtree = {
	.name = "rbtree",
	.top_down = true,
	.init = bench_rba_init,
	.destroy = bench_rba_destroy,
	.alloc = bench_rba_alloc,
	.free = bench_rba_free,
	.reserve = bench_rba_reserve,
};
