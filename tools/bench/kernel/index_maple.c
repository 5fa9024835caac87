// SPDX-License-Identifier: GPL-2.0
/*
 * The maple tree as a bench index, in RCU mode with gap tracking
 * (MT_FLAGS_USE_RCU | MT_FLAGS_ALLOC_RANGE, as the mm uses it): each
 * extent is one range entry.  Readers run under rcu_read_lock(); writers
 * take the tree's own spinlock (mtree_insert_range(), mtree_erase()), so
 * they never run in parallel.
 */
#include <linux/err.h>
#include <linux/maple_tree.h>
#include <linux/slab.h>
#include "bench.h"

struct bench_maple {
	struct bench_index bi;
	struct maple_tree mt;
};

static struct maple_tree *bench_mt(struct bench_index *bi)
{
	return &container_of(bi, struct bench_maple, bi)->mt;
}

static struct bench_index *bench_mt_init(void)
{
	struct bench_maple *m = kzalloc(sizeof(*m), GFP_KERNEL);

	if (!m)
		return ERR_PTR(-ENOMEM);
	mt_init_flags(&m->mt, MT_FLAGS_USE_RCU | MT_FLAGS_ALLOC_RANGE);
	m->bi.ops = &bench_index_maple;
	return &m->bi;
}

static void bench_mt_destroy(struct bench_index *bi)
{
	struct maple_tree *mt = bench_mt(bi);

	/*
	 * No reader is left.  Destroying a 1M-entry tree still in RCU mode
	 * oopsed in 6.1 (a NULL dereference in the RCU callback that frees
	 * the nodes); leaving RCU mode first frees them at once.
	 */
	mt_clear_in_rcu(mt);
	mtree_destroy(mt);
	kfree(container_of(bi, struct bench_maple, bi));
}

static int bench_mt_insert(struct bench_index *bi, struct bench_item *item)
{
	return mtree_insert_range(bench_mt(bi), item->slot.key,
				  sl_slot_last(&item->slot), item, GFP_KERNEL);
}

static int bench_mt_remove(struct bench_index *bi, struct bench_item *item)
{
	return mtree_erase(bench_mt(bi), item->slot.key) == item ? 0 : -ENOENT;
}

static bool bench_mt_lookup(struct bench_index *bi, unsigned long key,
			    unsigned long *found)
{
	struct bench_item *item;

	rcu_read_lock();
	item = mtree_load(bench_mt(bi), key);
	if (item)
		*found = item->slot.key;
	rcu_read_unlock();
	return item;
}

static bool bench_mt_first_overlap(struct bench_index *bi, unsigned long start,
				   unsigned long end, unsigned long *found)
{
	unsigned long index = start;
	struct bench_item *item;

	rcu_read_lock();
	item = mt_find(bench_mt(bi), &index, end - 1);
	if (item)
		*found = item->slot.key;
	rcu_read_unlock();
	return item;
}

static unsigned long bench_mt_iterate(struct bench_index *bi,
				      unsigned long from, unsigned long max)
{
	MA_STATE(mas, bench_mt(bi), from, from);
	unsigned long seen = 0;
	void *entry;

	rcu_read_lock();
	mas_for_each(&mas, entry, ULONG_MAX) {
		if (++seen == max)
			break;
	}
	rcu_read_unlock();
	return seen;
}

const struct bench_index_ops bench_index_maple = {
	.name = "maple",
	.workloads = BENCH_INDEX_WORKLOADS,
	.init = bench_mt_init,
	.destroy = bench_mt_destroy,
	.insert = bench_mt_insert,
	.remove = bench_mt_remove,
	.lookup = bench_mt_lookup,
	.first_overlap = bench_mt_first_overlap,
	.iterate = bench_mt_iterate,
};
