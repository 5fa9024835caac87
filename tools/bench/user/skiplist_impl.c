// SPDX-License-Identifier: GPL-2.0
/*
 * The skiplist as a benchmark index: skiplist/ built for userspace with
 * the fast shims (per-thread slab free lists, no checking).  Items are
 * malloc()ed and freed after a grace period, as a kernel user would.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include "skiplist.h"
#include "bench_index.h"

struct sl_bench_item {
	struct sl_slot slot;
};

/*
 * Removed items are freed in batches after a grace period, one call_rcu()
 * per batch, the way the kernel's kfree_rcu() batches: liburcu's call_rcu()
 * per object, with its worker thread, costs far more than the kernel's.
 */
#define SL_BENCH_BATCH	62

struct sl_bench_batch {
	struct rcu_head rcu;
	int nr;
	void *items[SL_BENCH_BATCH];
};

static __thread struct sl_bench_batch *sl_bench_pending;
static __thread int sl_bench_registered;
static __thread unsigned int sl_bench_ops;

/*
 * Built with QSBR RCU, whose threads must say when they hold no reference:
 * every few operations, as a kernel CPU does at each tick or switch.
 */
static inline void sl_bench_tick(void)
{
	if (!(++sl_bench_ops % 16))
		shim_rcu_quiescent();
}
static bool sl_bench_loaded;

static void sl_bench_batch_free(struct rcu_head *head)
{
	struct sl_bench_batch *b = container_of(head, struct sl_bench_batch,
						rcu);
	int i;

	for (i = 0; i < b->nr; i++)
		free(b->items[i]);
	free(b);
}

static void sl_bench_flush(void)
{
	if (sl_bench_pending) {
		call_rcu(&sl_bench_pending->rcu, sl_bench_batch_free);
		sl_bench_pending = NULL;
	}
}

static void sl_bench_free_rcu(void *item)
{
	if (!sl_bench_pending) {
		sl_bench_pending = malloc(sizeof(*sl_bench_pending));
		if (!sl_bench_pending)
			abort();
		sl_bench_pending->nr = 0;
	}
	sl_bench_pending->items[sl_bench_pending->nr++] = item;
	if (sl_bench_pending->nr == SL_BENCH_BATCH)
		sl_bench_flush();
}

static void sl_bench_thread_start(struct bench_index *idx)
{
	if (!sl_bench_registered++)
		shim_rcu_register();
}

static void sl_bench_thread_stop(struct bench_index *idx)
{
	if (!--sl_bench_registered) {
		sl_bench_flush();
		shim_rcu_unregister();
	}
}

static struct bench_index *sl_bench_create(void)
{
	struct sl_list *list = malloc(sizeof(*list));

	/* The caches live as long as the process, like a loaded module. */
	if (!sl_bench_loaded) {
		if (shim_modules_load())
			abort();
		sl_bench_loaded = true;
	}
	if (!list || sl_init(list, GFP_KERNEL))
		abort();
	return (struct bench_index *)list;
}

static void sl_bench_free_slot(struct sl_slot *slot, void *arg)
{
	free(container_of(slot, struct sl_bench_item, slot));
}

static void sl_bench_destroy(struct bench_index *idx)
{
	struct sl_list *list = (struct sl_list *)idx;

	sl_bench_thread_start(idx);
	/* No reader is left, so items can go at once; leaves wait for RCU. */
	sl_destroy(list, sl_bench_free_slot, NULL);
	sl_bench_flush();
	rcu_barrier();
	sl_bench_thread_stop(idx);
	free(list);
}

static int sl_bench_insert(struct bench_index *idx, unsigned long key,
			   unsigned long size)
{
	struct sl_bench_item *item = malloc(sizeof(*item));
	int ret;

	if (!item)
		return -ENOMEM;
	item->slot.key = key;
	item->slot.size = size;
	ret = sl_insert((struct sl_list *)idx, &item->slot, GFP_KERNEL);
	if (ret)
		free(item);
	sl_bench_tick();
	return ret;
}

static int sl_bench_remove(struct bench_index *idx, unsigned long key)
{
	struct sl_slot *slot = sl_remove((struct sl_list *)idx, key);

	sl_bench_tick();
	if (!slot)
		return -ENOENT;
	sl_bench_free_rcu(container_of(slot, struct sl_bench_item, slot));
	return 0;
}

static bool sl_bench_lookup(struct bench_index *idx, unsigned long key)
{
	struct sl_slot *slot;

	rcu_read_lock();
	slot = sl_lookup((struct sl_list *)idx, key);
	rcu_read_unlock();
	sl_bench_tick();
	return slot;
}

static int sl_bench_insert_hole(struct bench_index *idx, unsigned long size,
				unsigned long align, unsigned long min,
				unsigned long max, unsigned long *key)
{
	struct sl_bench_item *item = malloc(sizeof(*item));
	int ret;

	if (!item)
		return -ENOMEM;
	ret = sl_insert_hole((struct sl_list *)idx, &item->slot, size, align,
			     min, max, min, key, GFP_KERNEL);
	sl_bench_tick();
	if (ret) {
		free(item);
		return ret;
	}
	return 0;
}

static size_t sl_bench_index_bytes(struct bench_index *idx)
{
	struct sl_stats stats;

	sl_stats((struct sl_list *)idx, &stats);
	return stats.bytes;
}

static void sl_bench_quiesce(struct bench_index *idx)
{
	sl_bench_flush();
	rcu_barrier();
}

const struct bench_impl bench_impl_skiplist = {
	.name = "skiplist",
	.create = sl_bench_create,
	.destroy = sl_bench_destroy,
	.thread_start = sl_bench_thread_start,
	.thread_stop = sl_bench_thread_stop,
	.insert = sl_bench_insert,
	.remove = sl_bench_remove,
	.lookup = sl_bench_lookup,
	.insert_hole = sl_bench_insert_hole,
	.index_bytes = sl_bench_index_bytes,
	.concurrent_remove = true,
	.quiesce = sl_bench_quiesce,
};
