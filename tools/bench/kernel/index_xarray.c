// SPDX-License-Identifier: GPL-2.0
/*
 * The XArray as a bench index, for point lookups only: each extent is
 * stored at the index of its first key (xa_store()), and found only by
 * that key (xa_load(), under RCU).  It has no notion of a range, so the
 * range workloads do not run on it.
 */
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include "bench.h"

struct bench_xarray {
	struct bench_index bi;
	struct xarray xa;
};

static struct xarray *bench_xa(struct bench_index *bi)
{
	return &container_of(bi, struct bench_xarray, bi)->xa;
}

static struct bench_index *bench_xa_init(void)
{
	struct bench_xarray *x = kzalloc(sizeof(*x), GFP_KERNEL);

	if (!x)
		return ERR_PTR(-ENOMEM);
	xa_init(&x->xa);
	x->bi.ops = &bench_index_xarray;
	return &x->bi;
}

static void bench_xa_destroy(struct bench_index *bi)
{
	xa_destroy(bench_xa(bi));
	kfree(container_of(bi, struct bench_xarray, bi));
}

static int bench_xa_insert(struct bench_index *bi, struct bench_item *item)
{
	return xa_err(xa_store(bench_xa(bi), item->slot.key, item, GFP_KERNEL));
}

static int bench_xa_remove(struct bench_index *bi, struct bench_item *item)
{
	return xa_erase(bench_xa(bi), item->slot.key) == item ? 0 : -ENOENT;
}

static bool bench_xa_lookup(struct bench_index *bi, unsigned long key,
			    unsigned long *found)
{
	struct bench_item *item;

	rcu_read_lock();
	item = xa_load(bench_xa(bi), key);
	if (item)
		*found = item->slot.key;
	rcu_read_unlock();
	return item;
}

const struct bench_index_ops bench_index_xarray = {
	.name = "xarray",
	.workloads = BIT(BENCH_W_LOOKUP),
	.exact_keys = true,
	.even_only = true,
	.init = bench_xa_init,
	.destroy = bench_xa_destroy,
	.insert = bench_xa_insert,
	.remove = bench_xa_remove,
	.lookup = bench_xa_lookup,
};
