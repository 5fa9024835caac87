// SPDX-License-Identifier: GPL-2.0
/*
 * The skiplist as a bench index: the items' slots go straight into the
 * list.  Readers run under rcu_read_lock() alone; writers take no lock of
 * ours (the list locks its leaves).
 */
#include <linux/err.h>
#include <linux/slab.h>
#include "bench.h"

struct bench_skiplist {
	struct bench_index bi;
	struct sl_list list;
};

static struct sl_list *bench_sl(struct bench_index *bi)
{
	return &container_of(bi, struct bench_skiplist, bi)->list;
}

static struct bench_index *bench_sl_init(void)
{
	struct bench_skiplist *s = kzalloc(sizeof(*s), GFP_KERNEL);
	int ret;

	if (!s)
		return ERR_PTR(-ENOMEM);
	ret = sl_init(&s->list, GFP_KERNEL);
	if (ret) {
		kfree(s);
		return ERR_PTR(ret);
	}
	s->bi.ops = &bench_index_skiplist;
	return &s->bi;
}

static void bench_sl_destroy(struct bench_index *bi)
{
	/* The items belong to the benchmark, not to the list. */
	sl_destroy(bench_sl(bi), NULL, NULL);
	kfree(container_of(bi, struct bench_skiplist, bi));
}

static int bench_sl_insert(struct bench_index *bi, struct bench_item *item)
{
	return sl_insert(bench_sl(bi), &item->slot, GFP_KERNEL);
}

static int bench_sl_remove(struct bench_index *bi, struct bench_item *item)
{
	return sl_erase(bench_sl(bi), &item->slot);
}

static bool bench_sl_lookup(struct bench_index *bi, unsigned long key,
			    unsigned long *found)
{
	struct sl_slot *slot;

	rcu_read_lock();
	slot = sl_lookup(bench_sl(bi), key);
	if (slot)
		*found = slot->key;
	rcu_read_unlock();
	return slot;
}

static bool bench_sl_first_overlap(struct bench_index *bi, unsigned long start,
				   unsigned long end, unsigned long *found)
{
	struct sl_slot *slot;

	rcu_read_lock();
	slot = sl_first_overlap(bench_sl(bi), start, end);
	if (slot)
		*found = slot->key;
	rcu_read_unlock();
	return slot;
}

static unsigned long bench_sl_iterate(struct bench_index *bi,
				      unsigned long from, unsigned long max)
{
	unsigned long seen = 0;
	struct sl_iter iter;

	rcu_read_lock();
	sl_iter_start(&iter, bench_sl(bi), from);
	while (seen < max && sl_iter_next(&iter))
		seen++;
	rcu_read_unlock();
	return seen;
}

const struct bench_index_ops bench_index_skiplist = {
	.name = "skiplist",
	.workloads = BENCH_INDEX_WORKLOADS,
	.init = bench_sl_init,
	.destroy = bench_sl_destroy,
	.insert = bench_sl_insert,
	.remove = bench_sl_remove,
	.lookup = bench_sl_lookup,
	.first_overlap = bench_sl_first_overlap,
	.iterate = bench_sl_iterate,
};
