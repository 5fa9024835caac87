// SPDX-License-Identifier: GPL-2.0
#include "item.h"

static u64 item_next_id = 1;

struct item *item_new(unsigned long key, unsigned long size)
{
	struct item *item;

	/* kmalloc, for its quarantine; retried past injected failures. */
	do {
		item = kmalloc(sizeof(*item), GFP_KERNEL);
	} while (!item);
	item->slot.key = key;
	item->slot.size = size;
	item->id = __atomic_fetch_add(&item_next_id, 1, __ATOMIC_RELAXED);
	item->magic = ITEM_LIVE;
	return item;
}

void item_free_now(struct item *item)
{
	item->magic = ITEM_DEAD;
	kfree(item);
}

static void item_free_cb(struct rcu_head *head)
{
	struct item *item = container_of(head, struct item, rcu);

	/* Poison first: without ASan, a late reader still sees it. */
	WRITE_ONCE(item->magic, ITEM_DEAD);
	item->slot.key = ~0UL;
	item->slot.size = 0;
	kfree(item);
}

void item_free_rcu(struct item *item)
{
	call_rcu(&item->rcu, item_free_cb);
}

void item_destroy_slot(struct sl_slot *slot, void *arg)
{
	item_free_rcu(item_of(slot));
}
