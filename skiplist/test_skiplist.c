// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the skiplist.  As a module (test_skiplist.ko) they run at load
 * time, print "N of M tests passed" and fail the load if any failed; the
 * userspace harness in tools/testing/skiplist builds this same file against
 * liburcu and runs it the same way, and skiplist/kunit.c wraps the same
 * tests as a KUnit suite for kernels that have KUnit.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <linux/memcontrol.h>
#include "leaf.h"		/* SL_LEAF_KEYS, SL_ATOMIC_LEAVES */

static unsigned int sl_tests_run;
static unsigned int sl_tests_passed;

/* How a failed expectation is reported; the KUnit wrapper overrides it. */
#ifndef SL_TEST_REPORT
#define SL_TEST_REPORT(func, line, cond)				\
	pr_err("test_skiplist: %s:%d: expected %s\n", func, line, cond)
#endif

#define SL_EXPECT(cond) ({						\
	bool __ok = (cond);						\
	sl_tests_run++;							\
	if (likely(__ok))						\
		sl_tests_passed++;					\
	else								\
		SL_TEST_REPORT(__func__, __LINE__, #cond);		\
	__ok;								\
})

/*
 * The longest tests repeat their work this many times fewer.  The KUnit
 * wrapper sets it: it runs on the debug kernels, where KASAN or KCSAN and
 * lockdep check every access and every lock, so the same paths taken a
 * fifth as often still meet every checker, in a fifth of the time.
 */
#ifndef SL_TEST_ROUNDS_DIV
#define SL_TEST_ROUNDS_DIV	1
#endif

#define SL_TEST_MAGIC	0x5157ab1eUL
#define SL_TEST_FREED	0xdeadf1eeUL

struct sl_test_item {
	struct sl_slot slot;
	unsigned long magic;
	struct rcu_head rcu;
};

/* xorshift64: the tests must be reproducible, not random. */
static u64 sl_test_rng = 88172645463325252ULL;

static u64 sl_test_rand(void)
{
	sl_test_rng ^= sl_test_rng << 13;
	sl_test_rng ^= sl_test_rng >> 7;
	sl_test_rng ^= sl_test_rng << 17;
	return sl_test_rng;
}

static struct sl_test_item *sl_test_item_new(unsigned long key,
					     unsigned long size)
{
	struct sl_test_item *item = kmalloc(sizeof(*item), GFP_KERNEL);

	if (item) {
		item->slot.key = key;
		item->slot.size = size;
		item->magic = SL_TEST_MAGIC;
	}
	return item;
}

static void sl_test_item_free_cb(struct rcu_head *head)
{
	struct sl_test_item *item = container_of(head, struct sl_test_item,
						 rcu);

	item->magic = SL_TEST_FREED;
	kfree(item);
}

static void sl_test_item_free(struct sl_test_item *item)
{
	call_rcu(&item->rcu, sl_test_item_free_cb);
}

static void sl_test_free_slot(struct sl_slot *slot, void *arg)
{
	unsigned long *count = arg;

	if (count)
		(*count)++;
	sl_test_item_free(container_of(slot, struct sl_test_item, slot));
}

static struct sl_test_item *sl_test_item_of(struct sl_slot *slot)
{
	return slot ? container_of(slot, struct sl_test_item, slot) : NULL;
}

/* Insert a fresh item; frees it again unless the insert took it. */
static int sl_test_insert(struct sl_list *list, unsigned long key,
			  unsigned long size)
{
	struct sl_test_item *item = sl_test_item_new(key, size);
	int ret;

	if (!item)
		return -ENOMEM;
	ret = sl_insert(list, &item->slot, GFP_KERNEL);
	if (ret)
		kfree(item);
	return ret;
}

static bool sl_test_remove(struct sl_list *list, unsigned long key)
{
	struct sl_slot *slot = sl_remove(list, key);

	if (!slot)
		return false;
	sl_test_item_free(sl_test_item_of(slot));
	return true;
}

/* Key of the slot a lookup finds, or ULONG_MAX for none. */
static unsigned long sl_test_lookup(struct sl_list *list, unsigned long key)
{
	struct sl_slot *slot;
	unsigned long found = ULONG_MAX;

	rcu_read_lock();
	slot = sl_lookup(list, key);
	if (slot) {
		found = slot->key;
		if (sl_test_item_of(slot)->magic != SL_TEST_MAGIC)
			found = ULONG_MAX - 1;
	}
	rcu_read_unlock();
	return found;
}

static unsigned long sl_test_overlap(struct sl_list *list,
				     unsigned long start, unsigned long end)
{
	struct sl_slot *slot;
	unsigned long found;

	rcu_read_lock();
	slot = sl_first_overlap(list, start, end);
	found = slot ? slot->key : ULONG_MAX;
	rcu_read_unlock();
	return found;
}

static unsigned long sl_test_items(struct sl_list *list)
{
	struct sl_stats stats;

	sl_stats(list, &stats);
	return stats.items;
}

static void sl_test_destroy(struct sl_list *list)
{
	sl_destroy(list, sl_test_free_slot, NULL);
}

static void test_empty(void)
{
	struct sl_list list;
	struct sl_test_item item = { .slot = { .key = 5, .size = 1 } };
	struct sl_stats stats;
	struct sl_iter iter;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	SL_EXPECT(sl_test_lookup(&list, 0) == ULONG_MAX);
	SL_EXPECT(sl_test_lookup(&list, ULONG_MAX) == ULONG_MAX);
	SL_EXPECT(sl_test_overlap(&list, 0, ULONG_MAX) == ULONG_MAX);
	SL_EXPECT(!sl_remove(&list, 5));
	SL_EXPECT(sl_erase(&list, &item.slot) == -ENOENT);
	rcu_read_lock();
	sl_iter_start(&iter, &list, 0);
	SL_EXPECT(!sl_iter_next(&iter));
	SL_EXPECT(!sl_iter_prev(&iter));
	sl_iter_start(&iter, &list, ULONG_MAX);
	SL_EXPECT(!sl_iter_prev(&iter));
	rcu_read_unlock();
	sl_stats(&list, &stats);
	SL_EXPECT(stats.items == 0 && stats.leaves == 1);
	SL_EXPECT(sl_check(&list) == 0);
	sl_test_destroy(&list);
}

static void test_insert_lookup(void)
{
	struct sl_list list;
	unsigned long k;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	SL_EXPECT(sl_test_insert(&list, 10, 5) == 0);
	for (k = 8; k < 17; k++)
		SL_EXPECT(sl_test_lookup(&list, k) ==
			  (k >= 10 && k < 15 ? 10 : ULONG_MAX));
	/* Every way of overlapping [10, 15) is refused. */
	SL_EXPECT(sl_test_insert(&list, 10, 5) == -EEXIST);
	SL_EXPECT(sl_test_insert(&list, 10, 1) == -EEXIST);
	SL_EXPECT(sl_test_insert(&list, 9, 2) == -EEXIST);
	SL_EXPECT(sl_test_insert(&list, 14, 1) == -EEXIST);
	SL_EXPECT(sl_test_insert(&list, 12, 1) == -EEXIST);
	SL_EXPECT(sl_test_insert(&list, 0, 100) == -EEXIST);
	/* Touching is not overlapping. */
	SL_EXPECT(sl_test_insert(&list, 15, 5) == 0);
	SL_EXPECT(sl_test_insert(&list, 5, 5) == 0);
	SL_EXPECT(sl_test_lookup(&list, 9) == 5);
	SL_EXPECT(sl_test_lookup(&list, 15) == 15);
	SL_EXPECT(sl_test_lookup(&list, 20) == ULONG_MAX);
	/* Bad extents. */
	SL_EXPECT(sl_test_insert(&list, 100, 0) == -EINVAL);
	SL_EXPECT(sl_test_insert(&list, ULONG_MAX, 2) == -EINVAL);
	SL_EXPECT(sl_test_insert(&list, ULONG_MAX - 9, 11) == -EINVAL);
	/* The very last unit can be covered. */
	SL_EXPECT(sl_test_insert(&list, ULONG_MAX - 9, 10) == 0);
	SL_EXPECT(sl_test_lookup(&list, ULONG_MAX) == ULONG_MAX - 9);
	SL_EXPECT(sl_test_insert(&list, ULONG_MAX, 1) == -EEXIST);
	SL_EXPECT(sl_test_items(&list) == 4);
	SL_EXPECT(sl_check(&list) == 0);
	sl_test_destroy(&list);
}

/* Fill with @n items of size 8 at multiples of 16, in the given order. */
static bool sl_test_fill(struct sl_list *list, unsigned long n, int order)
{
	unsigned long i, key;

	for (i = 0; i < n; i++) {
		if (order > 0)
			key = i;
		else if (order < 0)
			key = n - 1 - i;
		else
			key = (i * 7919) % n;	/* 7919 is prime: a permutation */
		if (sl_test_insert(list, key * 16, 8))
			return false;
	}
	return true;
}

static void test_orders(void)
{
	static const unsigned long sizes[] = {
		1, 3, 4, 5, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000,
		20000 / SL_TEST_ROUNDS_DIV
	};
	int order, s;

	for (order = -1; order <= 1; order++) {
		for (s = 0; s < ARRAY_SIZE(sizes); s++) {
			unsigned long n = sizes[s], i, bad = 0;
			struct sl_list list;

			if (order == 0 && n % 7919 == 0)
				continue;
			if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
				return;
			SL_EXPECT(sl_test_fill(&list, n, order));
			for (i = 0; i < n; i++) {
				bad += sl_test_lookup(&list, i * 16) != i * 16;
				bad += sl_test_lookup(&list, i * 16 + 7) != i * 16;
				bad += sl_test_lookup(&list, i * 16 + 8) != ULONG_MAX;
			}
			SL_EXPECT(bad == 0);
			SL_EXPECT(sl_test_items(&list) == n);
			SL_EXPECT(sl_check(&list) == 0);
			sl_test_destroy(&list);
		}
	}
}

static void test_remove(void)
{
	unsigned long n = 5000, i, key, bad = 0;
	struct sl_test_item *other;
	struct sl_list list;
	struct sl_stats stats;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	SL_EXPECT(sl_test_fill(&list, n, 1));
	/* Only the exact start key removes. */
	SL_EXPECT(!sl_remove(&list, 17));
	/* sl_erase() wants the very slot, not just its key. */
	other = sl_test_item_new(16, 8);
	if (other) {
		SL_EXPECT(sl_erase(&list, &other->slot) == -ENOENT);
		kfree(other);
	}
	SL_EXPECT(sl_test_lookup(&list, 16) == 16);
	for (i = 0; i < n; i++) {
		key = ((i * 7919) % n) * 16;
		bad += !sl_test_remove(&list, key);
		bad += sl_test_lookup(&list, key) != ULONG_MAX;
		bad += sl_test_remove(&list, key);
		if (i % 500 == 0)
			SL_EXPECT(sl_check(&list) == 0);
	}
	SL_EXPECT(bad == 0);
	/* Every emptied leaf was merged away: only the head is left. */
	sl_stats(&list, &stats);
	SL_EXPECT(stats.items == 0 && stats.leaves == 1);
	SL_EXPECT(sl_check(&list) == 0);
	sl_test_destroy(&list);
}

static void test_erase(void)
{
	struct sl_test_item *a = sl_test_item_new(100, 10);
	struct sl_list list;

	if (!a || !SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0)) {
		kfree(a);
		return;
	}
	SL_EXPECT(sl_insert(&list, &a->slot, GFP_KERNEL) == 0);
	SL_EXPECT(sl_erase(&list, &a->slot) == 0);
	SL_EXPECT(sl_erase(&list, &a->slot) == -ENOENT);
	SL_EXPECT(sl_test_lookup(&list, 100) == ULONG_MAX);
	sl_test_item_free(a);
	sl_test_destroy(&list);
}

/* Items at 100 * i of size 50: gaps of 50 between them. */
static void test_overlap(void)
{
	unsigned long n = 1000, i, bad = 0;
	struct sl_list list;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	for (i = 0; i < n; i++)
		bad += sl_test_insert(&list, 100 * i + 100, 50) != 0;
	SL_EXPECT(bad == 0);
	SL_EXPECT(sl_test_overlap(&list, 0, 100) == ULONG_MAX);
	SL_EXPECT(sl_test_overlap(&list, 0, 101) == 100);
	SL_EXPECT(sl_test_overlap(&list, 5, 5) == ULONG_MAX);
	SL_EXPECT(sl_test_overlap(&list, 6, 5) == ULONG_MAX);
	for (i = 1; i <= n; i++) {
		unsigned long k = 100 * i;

		bad += sl_test_overlap(&list, k, k + 1) != k;
		bad += sl_test_overlap(&list, k + 49, k + 200) != k;
		bad += sl_test_overlap(&list, k + 50, k + 100) != ULONG_MAX;
		bad += sl_test_overlap(&list, k + 50, k + 101) !=
		       (i < n ? k + 100 : ULONG_MAX);
		bad += sl_test_overlap(&list, k + 60, ULONG_MAX) !=
		       (i < n ? k + 100 : ULONG_MAX);
		bad += sl_test_overlap(&list, k - 1, k + 10) != k;
	}
	SL_EXPECT(bad == 0);
	/*
	 * Every leaf boundary, both ways: the neighbour an insert must not
	 * overlap may sit in the leaf before or after the one it lands in.
	 */
	for (i = 1; i <= n; i++) {
		unsigned long k = 100 * i;

		bad += sl_test_insert(&list, k + 49, 2) != -EEXIST;
		bad += sl_test_insert(&list, k + 60, 41) !=
		       (i < n ? -EEXIST : 0);
		/* [k - 51, k - 50] covers the previous item's last unit. */
		bad += sl_test_insert(&list, k - 51, 2) !=
		       (i > 1 ? -EEXIST : 0);
		if (i == n)
			bad += !sl_test_remove(&list, k + 60);
		if (i == 1)
			bad += !sl_test_remove(&list, k - 51);
		bad += sl_test_insert(&list, k + 50, 50) != 0;
		bad += !sl_test_remove(&list, k + 50);
	}
	SL_EXPECT(bad == 0);
	/*
	 * An extent may reach past the lower fence of the next leaf once that
	 * leaf's first slot is gone.  Build that at every slot, and check
	 * that an insert landing first in the next leaf still sees it.
	 */
	for (i = 2; i <= n; i++) {
		unsigned long k = 100 * i;

		bad += !sl_test_remove(&list, k);
		bad += sl_test_insert(&list, k - 40, 60) != 0;
		bad += sl_test_insert(&list, k + 10, 5) != -EEXIST;
		bad += sl_test_insert(&list, k + 19, 1) != -EEXIST;
		bad += sl_test_lookup(&list, k + 19) != k - 40;
		bad += sl_test_overlap(&list, k + 15, k + 16) != k - 40;
		bad += sl_test_insert(&list, k + 20, 30) != 0;
		bad += !sl_test_remove(&list, k + 20);
		bad += !sl_test_remove(&list, k - 40);
		bad += sl_test_insert(&list, k, 50) != 0;
	}
	SL_EXPECT(bad == 0);
	SL_EXPECT(sl_test_items(&list) == n);
	SL_EXPECT(sl_check(&list) == 0);
	sl_test_destroy(&list);
}

static void test_iterate(void)
{
	unsigned long n = 3000, i, bad = 0, expect;
	struct sl_slot *slot;
	struct sl_iter iter;
	struct sl_list list;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	SL_EXPECT(sl_test_fill(&list, n, 0));
	rcu_read_lock();
	/* Forward over everything, then back again. */
	sl_iter_start(&iter, &list, 0);
	for (i = 0; (slot = sl_iter_next(&iter)); i++)
		bad += slot->key != i * 16;
	bad += i != n;
	bad += !!sl_iter_next(&iter);
	for (i = n; (slot = sl_iter_prev(&iter)); i--)
		bad += slot->key != (i - 1) * 16;
	bad += i != 0;
	/* From any key, both ways. */
	for (i = 0; i < 200; i++) {
		unsigned long pos = sl_test_rand() % (n * 16 + 32);

		sl_iter_start(&iter, &list, pos);
		slot = sl_iter_next(&iter);
		expect = (pos + 15) / 16 * 16;
		bad += expect < n * 16 ? !slot || slot->key != expect : !!slot;
		sl_iter_start(&iter, &list, pos);
		slot = sl_iter_prev(&iter);
		expect = pos ? (pos - 1) / 16 * 16 : ULONG_MAX;
		if (expect != ULONG_MAX && expect >= n * 16)
			expect = (n - 1) * 16;
		bad += expect != ULONG_MAX ? !slot || slot->key != expect :
		       !!slot;
	}
	/* next and prev alternate over the same slot. */
	sl_iter_start(&iter, &list, 160);
	slot = sl_iter_next(&iter);
	bad += !slot || slot->key != 160;
	slot = sl_iter_prev(&iter);
	bad += !slot || slot->key != 160;
	slot = sl_iter_prev(&iter);
	bad += !slot || slot->key != 144;
	slot = sl_iter_next(&iter);
	bad += !slot || slot->key != 144;
	rcu_read_unlock();
	SL_EXPECT(bad == 0);

	/* Past the end and at ULONG_MAX. */
	SL_EXPECT(sl_test_insert(&list, ULONG_MAX, 1) == 0);
	rcu_read_lock();
	sl_iter_start(&iter, &list, ULONG_MAX);
	slot = sl_iter_next(&iter);
	SL_EXPECT(slot && slot->key == ULONG_MAX);
	SL_EXPECT(!sl_iter_next(&iter));
	slot = sl_iter_prev(&iter);
	SL_EXPECT(slot && slot->key == ULONG_MAX);
	slot = sl_iter_prev(&iter);
	SL_EXPECT(slot && slot->key == (n - 1) * 16);
	rcu_read_unlock();
	sl_test_destroy(&list);
}

static int sl_test_hole(struct sl_list *list, unsigned long size,
			unsigned long align, unsigned long min,
			unsigned long max, unsigned long hint,
			unsigned long *key)
{
	struct sl_test_item *item = sl_test_item_new(0, 0);
	int ret;

	if (!item)
		return -ENOMEM;
	ret = sl_insert_hole(list, &item->slot, size, align, min, max, hint,
			     key, GFP_KERNEL);
	if (ret) {
		kfree(item);
		return ret;
	}
	return item->slot.size == size && item->slot.key == *key ? 0 : -EUCLEAN;
}

static void test_insert_hole(void)
{
	unsigned long key = 0, i, bad = 0;
	struct sl_list list;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	/* Bad arguments. */
	SL_EXPECT(sl_test_hole(&list, 0, 1, 0, 100, 0, &key) == -EINVAL);
	SL_EXPECT(sl_test_hole(&list, 1, 0, 0, 100, 0, &key) == -EINVAL);
	SL_EXPECT(sl_test_hole(&list, 1, 3, 0, 100, 0, &key) == -EINVAL);
	SL_EXPECT(sl_test_hole(&list, 1, 1, 100, 100, 0, &key) == -EINVAL);
	SL_EXPECT(sl_test_hole(&list, 1, 1, 200, 100, 0, &key) == -EINVAL);
	SL_EXPECT(sl_test_hole(&list, 101, 1, 0, 100, 0, &key) == -ENOSPC);
	/* First fit fills [0, 100) exactly, then there is no room. */
	for (i = 0; i < 10; i++) {
		bad += sl_test_hole(&list, 10, 1, 0, 100, 0, &key) != 0;
		bad += key != i * 10;
	}
	SL_EXPECT(bad == 0);
	SL_EXPECT(sl_test_hole(&list, 1, 1, 0, 100, 0, &key) == -ENOSPC);
	/* A gap in the middle is found; the window's end is exclusive. */
	SL_EXPECT(sl_test_remove(&list, 50));
	SL_EXPECT(sl_test_hole(&list, 11, 1, 0, 100, 0, &key) == -ENOSPC);
	SL_EXPECT(sl_test_hole(&list, 10, 1, 0, 100, 0, &key) == 0 && key == 50);
	SL_EXPECT(sl_test_hole(&list, 5, 1, 0, 105, 0, &key) == 0 && key == 100);
	/* Alignment skips the unaligned part of a gap. */
	SL_EXPECT(sl_test_hole(&list, 4, 64, 0, 1000, 0, &key) == 0 &&
		  key == 128);
	SL_EXPECT(sl_test_hole(&list, 64, 64, 0, 1000, 0, &key) == 0 &&
		  key == 192);
	/* @min is honoured, and so is the hint, which wraps to @min. */
	SL_EXPECT(sl_test_hole(&list, 1, 1, 300, 1000, 0, &key) == 0 &&
		  key == 300);
	SL_EXPECT(sl_test_hole(&list, 1, 1, 300, 1000, 900, &key) == 0 &&
		  key == 900);
	SL_EXPECT(sl_test_hole(&list, 100, 1, 300, 1000, 950, &key) == 0 &&
		  key == 301);
	/* A hint outside the window is ignored. */
	SL_EXPECT(sl_test_hole(&list, 1, 1, 300, 1000, 5000, &key) == 0 &&
		  key == 401);
	/* An unbounded window reaches ULONG_MAX and no further. */
	SL_EXPECT(sl_test_hole(&list, 2, 1, ULONG_MAX - 1, 0, 0, &key) == 0 &&
		  key == ULONG_MAX - 1);
	SL_EXPECT(sl_test_hole(&list, 1, 1, ULONG_MAX - 1, 0, 0, &key) ==
		  -ENOSPC);
	SL_EXPECT(sl_test_hole(&list, 1, 1, ULONG_MAX - 5, 0, 0, &key) == 0 &&
		  key == ULONG_MAX - 5);
	SL_EXPECT(sl_test_hole(&list, 4, 4, ULONG_MAX - 5, 0, 0, &key) ==
		  -ENOSPC);
	SL_EXPECT(sl_check(&list) == 0);
	sl_test_destroy(&list);
}

/* A model-checked random mix of every operation on a small key space. */
static void test_random_model(void)
{
	enum { SPACE = 2048, OPS = 200000 / SL_TEST_ROUNDS_DIV };
	static u8 model[SPACE];
	unsigned long i, bad = 0, count = 0, key;
	struct sl_list list;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	memset(model, 0, sizeof(model));
	for (i = 0; i < OPS; i++) {
		unsigned long k = sl_test_rand() % SPACE;
		unsigned int op = sl_test_rand() % 4;

		if (op == 0) {
			int ret = sl_test_insert(&list, k * 4, 3);

			bad += ret != (model[k] ? -EEXIST : 0);
			if (!ret) {
				model[k] = 1;
				count++;
			}
		} else if (op == 1) {
			bool removed = sl_test_remove(&list, k * 4);

			bad += removed != model[k];
			if (removed) {
				model[k] = 0;
				count--;
			}
		} else if (op == 2) {
			key = sl_test_lookup(&list, k * 4 + 2);
			bad += key != (model[k] ? k * 4 : ULONG_MAX);
			bad += sl_test_lookup(&list, k * 4 + 3) != ULONG_MAX;
		} else {
			/* First free cell at or after the hint, wrapping. */
			unsigned long want = k;

			while (want < SPACE && model[want])
				want++;
			if (want == SPACE)
				for (want = 0; want < SPACE && model[want];)
					want++;
			if (sl_test_hole(&list, 3, 4, 0, SPACE * 4, k * 4,
					 &key) == 0) {
				bad += key != want * 4;
				model[key / 4] = 1;
				count++;
			} else {
				bad += count != SPACE || want != SPACE;
			}
		}
		if (i % (OPS / 10) == 0) {
			SL_EXPECT(sl_check(&list) == 0);
			SL_EXPECT(sl_test_items(&list) == count);
		}
	}
	SL_EXPECT(bad == 0);
	SL_EXPECT(sl_test_items(&list) == count);
	SL_EXPECT(sl_check(&list) == 0);
	sl_test_destroy(&list);
}

static void test_destroy(void)
{
	unsigned long freed = 0;
	struct sl_list list;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	SL_EXPECT(sl_test_fill(&list, 777, 0));
	sl_destroy(&list, sl_test_free_slot, &freed);
	SL_EXPECT(freed == 777);
}

/*
 * The leaf directory (directory.c): a list grown past its minimum gets one
 * from the background rebuild; searches through it find every item, also
 * in leaves split since the rebuild; and leaves merged away leave it.
 */
static void test_directory(void)
{
	enum { N = 20000, STEP = 7919 };	/* STEP prime: a permutation */
	unsigned long i, bad = 0;
	struct sl_list list;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	for (i = 0; i < N; i++)
		bad += sl_test_insert(&list, (i * STEP % N) * 16, 8) != 0;
	flush_work(&list.dir_work);
	SL_EXPECT(rcu_access_pointer(list.dir));
	SL_EXPECT(sl_check(&list) == 0);
	for (i = 0; i < N; i++) {
		bad += sl_test_lookup(&list, i * 16 + 7) != i * 16;
		bad += sl_test_lookup(&list, i * 16 + 8) != ULONG_MAX;
	}
	/* Splits the directory does not know of yet. */
	for (i = 0; i < N; i++)
		bad += sl_test_insert(&list, (i * STEP % N) * 16 + 8, 4) != 0;
	for (i = 0; i < N; i++) {
		bad += sl_test_lookup(&list, i * 16 + 7) != i * 16;
		bad += sl_test_lookup(&list, i * 16 + 11) != i * 16 + 8;
		bad += sl_test_lookup(&list, i * 16 + 12) != ULONG_MAX;
	}
	SL_EXPECT(sl_check(&list) == 0);
	/* Merges: every leaf they kill must leave the directory. */
	for (i = 0; i < N; i++)
		if (i % 16)
			bad += !sl_test_remove(&list, (i * STEP % N) * 16);
	SL_EXPECT(sl_check(&list) == 0);
	flush_work(&list.dir_work);
	SL_EXPECT(sl_check(&list) == 0);
	for (i = 0; i < N; i++)
		bad += sl_test_lookup(&list, i * 16 + 1) !=
		       (i % 16 ? ULONG_MAX : i * 16);
	SL_EXPECT(bad == 0);
	sl_test_destroy(&list);
}

/*
 * The directory's buckets when the keys are bunched: nine in ten of them
 * below 2^19, the rest spread up to 2^58, so that one bucket holds nearly
 * every fence and most hold none.
 * sl_check() finds every fence through the buckets; lookups do too.
 */
static void test_directory_skewed(void)
{
	enum { N = 20000, STEP = 7919 };
	unsigned long i, bad = 0;
	struct sl_list list;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	for (i = 0; i < N; i++) {
		unsigned long j = i * STEP % N;
		unsigned long key = j % 10 ? j * 16 : (j + 1) << 44;

		bad += sl_test_insert(&list, key, 8) != 0;
	}
	flush_work(&list.dir_work);
	SL_EXPECT(rcu_access_pointer(list.dir));
	SL_EXPECT(sl_check(&list) == 0);
	for (i = 0; i < N; i++) {
		unsigned long key = i % 10 ? i * 16 : (i + 1) << 44;

		bad += sl_test_lookup(&list, key + 7) != key;
		bad += sl_test_lookup(&list, key + 8) != ULONG_MAX;
	}
	SL_EXPECT(bad == 0);
	sl_test_destroy(&list);
}

/* Lookups of every key in @keys (sorted, sizes 8, gaps of 9 or more). */
static unsigned long sl_test_lookup_all(struct sl_list *list,
					const unsigned long *keys,
					unsigned long n)
{
	unsigned long i, bad = 0;

	for (i = 0; i < n; i++) {
		bad += sl_test_lookup(list, keys[i]) != keys[i];
		bad += sl_test_lookup(list, keys[i] + 5) != keys[i];
		bad += sl_test_lookup(list, keys[i] + 8) != ULONG_MAX;
		bad += sl_test_lookup(list, keys[i] - 1) != ULONG_MAX;
	}
	return bad;
}

/*
 * A leaf search starts where the key would be if the leaf's keys were
 * spread evenly between its fences (sl_snapshot_guess()).  Evenly spaced
 * keys must then cost few loads: two for the leaf's fences and one or two
 * keys, against six keys for a binary search of a full leaf.  Keys spread
 * unevenly must still be found: spaced quadratically, so that every
 * guess is off; and the last thousand spaced 2^54 apart up to the end of
 * the key space, where a leaf's span times its keys overflows 64 bits.
 */
static void test_lookup_guess(void)
{
	enum { N = 8191, STEP = 1543, HIGH = 1000 };	/* STEP prime */
	unsigned long i, bad = 0, loads, *keys;
	struct sl_list list;
	unsigned int kind;

	keys = kcalloc(N, sizeof(*keys), GFP_KERNEL);
	if (!SL_EXPECT(keys))
		return;
	for (kind = 0; kind < 3; kind++) {
		if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
			break;
		for (i = 0; i < N; i++)
			keys[i] = kind == 1 ? (i + 1) * (i + 1) * 16 :
				  kind == 2 && i >= N - HIGH ?
				  (i - (N - HIGH) + 1) << 54 : (i + 1) * 16;
		for (i = 0; i < N; i++)
			bad += sl_test_insert(&list, keys[i * STEP % N], 8) != 0;
		flush_work(&list.dir_work);
		SL_EXPECT(sl_check(&list) == 0);
		loads = sl_key_loads();
		bad += sl_test_lookup_all(&list, keys, N);
		loads = sl_key_loads() - loads;
		/*
		 * Four lookups per key: 23.9 loads with the guess, 30.8
		 * without it (64 keys per leaf).  Builds without
		 * SL_COUNT_KEY_LOADS count nothing; in leaves of a few keys
		 * the fences cost more than the guess saves.
		 */
		if (kind == 0 && loads && SL_LEAF_KEYS >= 32)
			SL_EXPECT(loads < 27 * N);
		sl_test_destroy(&list);
	}
	SL_EXPECT(bad == 0);
	kfree(keys);
}

/* Kept outside the kernel build: the kernel has no deterministic hook. */
#ifdef SL_TEST_FAULT_INJECTION
/*
 * Fail each allocation an insert makes, one at a time, and check that the
 * list is left exactly as it was and the insert then succeeds.
 */
static void test_enomem(void)
{
	unsigned long n = 3000, i, bad = 0, hits = 0;
	struct sl_list list;

	shim_fail_nth(1);
	SL_EXPECT(sl_init(&list, GFP_KERNEL) == -ENOMEM);
	shim_fail_off();
	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	for (i = 0; i < n; i++) {
		unsigned long key = ((i * 7919) % n) * 16;
		struct sl_test_item *item = sl_test_item_new(key, 8);
		int ret;

		if (!item)
			break;
		shim_fail_nth(1);
		ret = sl_insert(&list, &item->slot, GFP_KERNEL);
		shim_fail_off();
		if (ret == -ENOMEM) {
			hits++;
			bad += sl_test_lookup(&list, key) != ULONG_MAX;
			bad += sl_test_items(&list) != i;
			bad += sl_check(&list) != 0;
			ret = sl_insert(&list, &item->slot, GFP_KERNEL);
		}
		bad += ret != 0;
		if (ret)
			kfree(item);
	}
	SL_EXPECT(bad == 0);
	/* Every split needs a leaf: many inserts must have hit the failure. */
	SL_EXPECT(hits >= n / 64);
	SL_EXPECT(sl_test_items(&list) == n);
	SL_EXPECT(sl_check(&list) == 0);

	/* insert_hole fails the same way and leaves nothing behind. */
	{
		struct sl_test_item *item = sl_test_item_new(0, 0);
		int ret = -ENOMEM;

		for (i = 0; item && ret == -ENOMEM && i < 64; i++) {
			shim_fail_nth(1);
			ret = sl_insert_hole(&list, &item->slot, 8, 8, 0, 0, 0,
					     NULL, GFP_KERNEL);
			shim_fail_off();
			bad += ret == -ENOMEM && sl_test_items(&list) != n;
		}
		SL_EXPECT(ret == 0 || ret == -ENOMEM);
		if (ret)
			kfree(item);
	}
	SL_EXPECT(bad == 0);
	sl_test_destroy(&list);
}

static unsigned long sl_race_removed;

/*
 * Inside the window, free the second slot of the span being tightened (if
 * the one after it is in the span too), so that the gap it leaves is one
 * the recount did not see.
 */
static void sl_race_window(const struct sl_window_at *at)
{
	unsigned long key = ((at->key + 1) & ~1UL) + 2;
	struct sl_slot *slot;

	if (at->win != SL_WIN_GAP_TIGHTEN || at->level != 1 ||
	    sl_race_removed != ULONG_MAX || (at->end && key + 2 >= at->end))
		return;
	slot = sl_remove(at->list, key);
	if (slot) {
		sl_race_removed = key;
		sl_test_item_free(sl_test_item_of(slot));
	}
}

/*
 * A free that raises a bound while a search is tightening it must win:
 * afterwards the bound still covers the new gap and the gap is found.
 * Slots of one unit sit at every even key, so every gap is one unit and a
 * search for two units looks through, and tightens, every span.
 */
static void test_gap_race(void)
{
	unsigned long n = 2000, i, bad = 0;
	struct sl_test_item *item;
	struct sl_list list;
	int ret;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	for (i = 0; i < n; i++)
		bad += sl_test_insert(&list, 2 * i, 1) != 0;
	SL_EXPECT(bad == 0);
	item = sl_test_item_new(0, 0);
	if (!SL_EXPECT(item)) {
		sl_test_destroy(&list);
		return;
	}
	sl_race_removed = ULONG_MAX;
	sl_window_hook = sl_race_window;
	ret = sl_insert_hole(&list, &item->slot, 2, 1, 0, 2 * n, 0, NULL,
			     GFP_KERNEL);
	sl_window_hook = NULL;
	SL_EXPECT(sl_race_removed != ULONG_MAX);
	/* The new gap lay behind the search: it may miss it this once. */
	if (ret == -ENOSPC)
		ret = sl_insert_hole(&list, &item->slot, 2, 1, 0, 2 * n, 0,
				     NULL, GFP_KERNEL);
	SL_EXPECT(ret == 0);
	if (ret)
		kfree(item);
	else
		SL_EXPECT(item->slot.key == sl_race_removed - 1);
	SL_EXPECT(sl_check(&list) == 0);
	sl_test_destroy(&list);
}

/*
 * Insert the item a test left in @pending, once, from inside a window
 * hook (an atomic insert: the code the hook sits in holds the RCU read
 * lock).
 */
static void sl_window_insert(struct sl_list *list,
			     struct sl_test_item **pending)
{
	struct sl_test_item *item = *pending;

	if (!item)
		return;
	*pending = NULL;
	if (!SL_EXPECT(sl_insert(list, &item->slot, GFP_ATOMIC) == 0))
		kfree(item);
}

static struct sl_test_item *sl_note_item;

/* Inside the window, put a shorter slot where the one removed began. */
static void sl_note_window(const struct sl_window_at *at)
{
	if (at->win != SL_WIN_DELETE_NOTE)
		return;
	if (sl_note_item)
		sl_note_item->slot.key = at->key;
	sl_window_insert(at->list, &sl_note_item);
}

/* Tighten every bound to the one-unit gaps: a search that cannot succeed. */
static void sl_note_tighten(struct sl_list *list, struct sl_test_item *probe,
			    unsigned long end)
{
	SL_EXPECT(sl_insert_hole(list, &probe->slot, 2, 1, 0, end, 0, NULL,
				 GFP_KERNEL) == -ENOSPC);
}

/*
 * A delete at a leaf's edge learns the run it freed only after it
 * unlocks.  If a shorter slot lands at the same key first, the run after
 * that slot, owned by the removed slot's successor, has still grown, and
 * its bound must be raised.  Slots of two units every three keys, bounds
 * tightened to the one-unit gaps; then each slot in turn is removed until
 * a removal takes the note path (a leaf's edge), the others put back and
 * the bounds tightened again.
 */
static void test_delete_note_race(void)
{
	unsigned long n = 2000, i, bad = 0;
	struct sl_test_item *item, *probe;
	struct sl_slot *slot;
	struct sl_list list;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	for (i = 0; i < n; i++)
		bad += sl_test_insert(&list, 3 * i, 2) != 0;
	SL_EXPECT(bad == 0);
	item = sl_test_item_new(0, 1);
	probe = sl_test_item_new(0, 2);
	if (!SL_EXPECT(item && probe)) {
		kfree(item);
		kfree(probe);
		sl_test_destroy(&list);
		return;
	}
	sl_note_tighten(&list, probe, 3 * n - 1);
	sl_note_item = item;
	sl_window_hook = sl_note_window;
	for (i = 1; i < n - 1 && sl_note_item; i++) {
		slot = sl_remove(&list, 3 * i);
		if (!SL_EXPECT(slot))
			break;
		if (!sl_note_item) {
			sl_test_item_free(sl_test_item_of(slot));
			break;
		}
		/* The exact path, under the lock: put it back. */
		if (!SL_EXPECT(sl_insert(&list, slot, GFP_KERNEL) == 0)) {
			sl_test_item_free(sl_test_item_of(slot));
			break;
		}
		sl_note_tighten(&list, probe, 3 * n - 1);
	}
	sl_window_hook = NULL;
	if (SL_EXPECT(!sl_note_item))
		SL_EXPECT(sl_check(&list) == 0);
	else
		kfree(item);
	kfree(probe);
	sl_test_destroy(&list);
}

static struct sl_test_item *sl_torn_item;

/* Inside the window, put a slot before the one the lookup has found. */
static void sl_torn_window(const struct sl_window_at *at)
{
	if (at->win == SL_WIN_LOOKUP_SNAPSHOT)
		sl_window_insert(at->list, &sl_torn_item);
}

/*
 * A leaf that changes under a lookup's open snapshot shifts its arrays:
 * the index found before the change names another slot after it.  The
 * lookup must notice and locate again, or it answers from a torn leaf.
 */
static void test_torn_lookup(void)
{
	struct sl_list list;

	if (!SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0))
		return;
	SL_EXPECT(sl_test_insert(&list, 0, 1) == 0);
	SL_EXPECT(sl_test_insert(&list, 100, 10) == 0);
	sl_torn_item = sl_test_item_new(50, 1);
	if (!SL_EXPECT(sl_torn_item)) {
		sl_test_destroy(&list);
		return;
	}
	sl_window_hook = sl_torn_window;
	SL_EXPECT(sl_test_lookup(&list, 105) == 100);
	sl_window_hook = NULL;
	SL_EXPECT(!sl_torn_item);
	SL_EXPECT(sl_test_lookup(&list, 50) == 50);
	SL_EXPECT(sl_check(&list) == 0);
	sl_test_destroy(&list);
}

/*
 * A list of whole leaves for the chunked walks: keys 16 apart, inserted in
 * order, so that each leaf holds SL_LEAF_KEYS of them and leaf j starts at
 * key j * SL_LEAF_KEYS * 16; four chunks of leaves at least, and enough
 * for a directory.  Returns the number of items, 0 on failure.
 */
static unsigned long sl_test_chunked_list(struct sl_list *list)
{
	unsigned long leaves = max(4 * SL_ATOMIC_LEAVES, 256);

	if (!SL_EXPECT(sl_init(list, GFP_KERNEL) == 0))
		return 0;
	if (!SL_EXPECT(sl_test_fill(list, leaves * SL_LEAF_KEYS, 1))) {
		sl_test_destroy(list);
		return 0;
	}
	/* The rebuilds the fill queued are over. */
	flush_work(&list->dir_work);
	return leaves * SL_LEAF_KEYS;
}

/* The first key of the leaf @n leaves from the one starting at @key. */
static unsigned long sl_test_leaf_key(unsigned long key, long n)
{
	return key + n * SL_LEAF_KEYS * 16;
}

/* Remove the items of @n whole leaves from the one starting at @key. */
static unsigned long sl_test_kill_leaves(struct sl_list *list,
					 unsigned long key, long n)
{
	unsigned long k, removed = 0;

	for (k = key; k < sl_test_leaf_key(key, n); k += 16)
		removed += sl_test_remove(list, k);
	return removed;
}

/* Let every grace period pass, the callbacks they free included. */
static void sl_test_grace_periods(void)
{
	/* Twice: a free that waits two grace periods requeues itself. */
	rcu_barrier();
	rcu_barrier();
}

static struct {
	unsigned long at;	/* fence of the last leaf the rebuild took */
	unsigned long removed;
} sl_chunk_kill;

/*
 * Between two chunks of a rebuild's fill, kill the last three leaves it
 * took into the new directory and the first it has still to walk, and
 * let every grace period pass.
 */
static void sl_chunk_kill_window(const struct sl_window_at *at)
{
	if (at->win != SL_WIN_DIR_CHUNK || sl_chunk_kill.at != ULONG_MAX ||
	    !READ_ONCE(at->list->dir_building))
		return;
	sl_chunk_kill.at = at->key;
	sl_chunk_kill.removed =
		sl_test_kill_leaves(at->list, sl_test_leaf_key(at->key, -2), 4);
	sl_test_grace_periods();
}

/*
 * The directory's rebuild walks the leaves in chunks, each in a read-side
 * section of its own, and keeps pointers to the leaves it took from one
 * section to the next (directory.c).  Leaves it took that die between two
 * chunks must not be freed, whatever grace periods pass, until it has
 * swept them out of the directory it publishes (AddressSanitizer sees the
 * sweep read freed memory otherwise); then the directory names none of
 * them, and every search still finds what it must.
 */
static void test_directory_chunks(void)
{
	unsigned long n, i, bad = 0, at;
	struct sl_list list;

	n = sl_test_chunked_list(&list);
	if (!n)
		return;
	sl_chunk_kill.at = ULONG_MAX;
	sl_window_hook = sl_chunk_kill_window;
	queue_work(system_unbound_wq, &list.dir_work);
	flush_work(&list.dir_work);
	sl_window_hook = NULL;
	at = sl_chunk_kill.at;
	if (!SL_EXPECT(at != ULONG_MAX)) {
		sl_test_destroy(&list);
		return;
	}
	SL_EXPECT(sl_chunk_kill.removed == 4 * SL_LEAF_KEYS);
	SL_EXPECT(rcu_access_pointer(list.dir));
	SL_EXPECT(sl_check(&list) == 0);
	for (i = 0; i < n; i++) {
		bool gone = i * 16 >= sl_test_leaf_key(at, -2) &&
			    i * 16 < sl_test_leaf_key(at, 2);

		bad += sl_test_lookup(&list, i * 16 + 7) !=
		       (gone ? ULONG_MAX : i * 16);
	}
	SL_EXPECT(bad == 0);
	sl_test_destroy(&list);
}

/*
 * The end of a rebuild against a leaf dying as it ends: the leaf saw the
 * rebuild running, and the rebuild has emptied its queue of dying leaves
 * before the leaf is on it.  The rebuild waits between two chunks until
 * the leaf has seen it running; the leaf, in its window, waits for the
 * rebuild to end.  The leaf must not stay on the queue.
 */
static int sl_straggler_state;	/* 1: rebuild waits, 2: leaf saw it, 3: done */

static void sl_straggler_window(const struct sl_window_at *at)
{
	if (at->win == SL_WIN_DIR_CHUNK && READ_ONCE(sl_straggler_state) == 0 &&
	    READ_ONCE(at->list->dir_building)) {
		WRITE_ONCE(sl_straggler_state, 1);
		while (READ_ONCE(sl_straggler_state) == 1)
			cpu_relax();
	} else if (at->win == SL_WIN_DIR_RETIRE &&
		   READ_ONCE(sl_straggler_state) == 1) {
		WRITE_ONCE(sl_straggler_state, 2);
		/* No grace period to wait for: the rebuild ends meanwhile. */
		flush_work(&at->list->dir_work);
		WRITE_ONCE(sl_straggler_state, 3);
	}
}

static void test_directory_straggler(void)
{
	struct sl_list list;
	unsigned long n;

	n = sl_test_chunked_list(&list);
	if (!n)
		return;
	sl_straggler_state = 0;
	sl_window_hook = sl_straggler_window;
	queue_work(system_unbound_wq, &list.dir_work);
	while (READ_ONCE(sl_straggler_state) == 0)
		cpu_relax();
	/* The leaf in the middle of the list dies while the rebuild waits. */
	SL_EXPECT(sl_test_kill_leaves(&list, sl_test_leaf_key(0, n / SL_LEAF_KEYS / 2),
				      1) == SL_LEAF_KEYS);
	sl_window_hook = NULL;
	SL_EXPECT(sl_straggler_state == 3);
	flush_work(&list.dir_work);
	SL_EXPECT(!READ_ONCE(list.dir_dying.first));
	SL_EXPECT(sl_check(&list) == 0);
	sl_test_destroy(&list);
}

static struct {
	unsigned long from;	/* where the second chunk starts */
	unsigned long removed;
} sl_stats_kill;

/*
 * Between the first two chunks of sl_stats(), kill the last leaf it
 * counted and the first it has still to count, and let every grace
 * period pass.
 */
static void sl_stats_kill_window(const struct sl_window_at *at)
{
	if (at->win != SL_WIN_STATS_CHUNK || sl_stats_kill.from != ULONG_MAX)
		return;
	sl_stats_kill.from = at->key;
	sl_stats_kill.removed =
		sl_test_kill_leaves(at->list, sl_test_leaf_key(at->key, -1), 2);
	sl_test_grace_periods();
}

/*
 * sl_stats() walks in chunks, each in a read-side section of its own, and
 * starts each chunk with a fresh search: the leaves it stood on between
 * two chunks may be freed meanwhile (AddressSanitizer).  It counts each
 * range of keys once, as it was when the walk passed: the slots of the
 * leaf counted last went after it was counted, and count; those of the
 * leaf after it went before, and do not.
 */
static void test_stats_chunks(void)
{
	struct sl_stats before, after;
	struct sl_list list;
	unsigned long n;

	n = sl_test_chunked_list(&list);
	if (!n)
		return;
	sl_stats(&list, &before);
	sl_stats_kill.from = ULONG_MAX;
	sl_window_hook = sl_stats_kill_window;
	sl_stats(&list, &after);
	sl_window_hook = NULL;
	SL_EXPECT(sl_stats_kill.from == sl_test_leaf_key(0, SL_ATOMIC_LEAVES));
	SL_EXPECT(sl_stats_kill.removed == 2 * SL_LEAF_KEYS);
	SL_EXPECT(before.items == n);
	SL_EXPECT(after.items == n - SL_LEAF_KEYS);
	SL_EXPECT(after.leaves == before.leaves - 1);
	SL_EXPECT(sl_test_items(&list) == n - 2 * SL_LEAF_KEYS);
	SL_EXPECT(sl_check(&list) == 0);
	sl_test_destroy(&list);
}

/*
 * The directory is memory the list's user makes the rebuild allocate, on
 * a worker thread of its own: with __GFP_ACCOUNT at sl_init(), it is
 * charged to the creator's memory cgroup, which the list holds a
 * reference to until it is destroyed; without, to nobody.
 */
static void test_directory_memcg(void)
{
	struct mem_cgroup creator = {}, other = {};
	struct sl_list list;
	long charged;
	bool ok;

	shim_task_memcg = &creator;
	ok = SL_EXPECT(sl_init(&list, GFP_KERNEL_ACCOUNT) == 0);
	shim_task_memcg = &other;
	if (!ok)
		return;
	SL_EXPECT(creator.refs == 1);
	charged = creator.charged;
	SL_EXPECT(sl_test_fill(&list, 256 * SL_LEAF_KEYS, 1));
	flush_work(&list.dir_work);
	SL_EXPECT(rcu_access_pointer(list.dir));
	SL_EXPECT(creator.charged > charged);
	SL_EXPECT(other.charged == 0);
	sl_test_destroy(&list);
	SL_EXPECT(creator.refs == 0);

	charged = creator.charged;
	shim_task_memcg = &creator;
	ok = SL_EXPECT(sl_init(&list, GFP_KERNEL) == 0);
	shim_task_memcg = NULL;
	if (!ok)
		return;
	SL_EXPECT(sl_test_fill(&list, 256 * SL_LEAF_KEYS, 1));
	flush_work(&list.dir_work);
	SL_EXPECT(rcu_access_pointer(list.dir));
	SL_EXPECT(creator.charged == charged && creator.refs == 0);
	sl_test_destroy(&list);
}
#endif

/* The extent map's tests (extent/test_extent.c); they use the above. */
#include "../extent/test_extent.c"
/* The range allocator's (extent/test_range.c). */
#include "../extent/test_range.c"

/* Every test, in the order they run. */
struct sl_test_case {
	const char *name;
	void (*run)(void);
};

static const struct sl_test_case sl_test_cases[] = {
	{ "empty", test_empty },
	{ "insert_lookup", test_insert_lookup },
	{ "orders", test_orders },
	{ "remove", test_remove },
	{ "erase", test_erase },
	{ "overlap", test_overlap },
	{ "iterate", test_iterate },
	{ "insert_hole", test_insert_hole },
	{ "random_model", test_random_model },
	{ "destroy", test_destroy },
	{ "directory", test_directory },
	{ "directory_skewed", test_directory_skewed },
	{ "lookup_guess", test_lookup_guess },
#ifdef SL_TEST_FAULT_INJECTION
	/* Need the userspace shims: a failure hook, windows into races. */
	{ "enomem", test_enomem },
	{ "gap_race", test_gap_race },
	{ "delete_note_race", test_delete_note_race },
	{ "torn_lookup", test_torn_lookup },
	{ "directory_chunks", test_directory_chunks },
	{ "directory_straggler", test_directory_straggler },
	{ "stats_chunks", test_stats_chunks },
	{ "directory_memcg", test_directory_memcg },
#endif
	/* The extent map: extent/test_extent.c. */
	{ "em_add_overlap", test_em_add_overlap },
	{ "em_add_merge", test_em_add_merge },
	{ "em_no_merge", test_em_no_merge },
	{ "em_merge_limits", test_em_merge_limits },
	{ "em_bad_input", test_em_bad_input },
	{ "em_first_overlap", test_em_first_overlap },
	{ "em_iterate", test_em_iterate },
	{ "em_remove", test_em_remove },
	{ "em_drop_range", test_em_drop_range },
	{ "em_random_model", test_em_random_model },
#ifdef SL_TEST_FAULT_INJECTION
	{ "em_enomem", test_em_enomem },
#endif
	/* The range allocator: extent/test_range.c. */
	{ "range_basic", test_range_basic },
	{ "range_fragmented", test_range_fragmented },
	{ "range_churn", test_range_churn },
	{ "range_churn_cached", test_range_churn_cached },
	{ "range_cache", test_range_cache },
	{ "range_recent", test_range_recent },
};

#ifndef SL_TEST_KUNIT
/**
 * sl_run_tests() - run every test
 *
 * Context: Process context.
 * Return: 0 if all passed, -EINVAL otherwise.
 */
static int sl_run_tests(void)
{
	unsigned int i;

	sl_tests_run = 0;
	sl_tests_passed = 0;
	for (i = 0; i < ARRAY_SIZE(sl_test_cases); i++)
		sl_test_cases[i].run();
	/* Let the frees queued by the tests run before anyone counts. */
	rcu_barrier();
	pr_info("test_skiplist: %u of %u tests passed\n", sl_tests_passed,
		sl_tests_run);
	return sl_tests_run == sl_tests_passed ? 0 : -EINVAL;
}

static int __init test_skiplist_init(void)
{
	return sl_run_tests();
}

static void __exit test_skiplist_exit(void)
{
}

module_init(test_skiplist_init);
module_exit(test_skiplist_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Self-test for the RCU skiplist range index");
#endif /* !SL_TEST_KUNIT */
