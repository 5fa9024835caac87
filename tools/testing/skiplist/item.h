/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The objects the userspace tests store in the index: a slot, a unique id
 * and a magic number that is overwritten when the object is freed.  Objects
 * are freed only after a grace period (call_rcu), and then poisoned, so a
 * reader that is handed a slot the index should no longer reach either sees
 * the poison or trips AddressSanitizer.
 */
#ifndef _TEST_ITEM_H
#define _TEST_ITEM_H

#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include "skiplist.h"

#define ITEM_LIVE	0x11fe11fe11fe11feULL
#define ITEM_DEAD	0xdeaddeaddeaddeadULL

struct item {
	struct sl_slot slot;
	u64 id;
	u64 magic;
	struct rcu_head rcu;
};

struct item *item_new(unsigned long key, unsigned long size);
/* Free after a grace period; only for items no longer in any list. */
void item_free_rcu(struct item *item);
/* Free now; only for items never inserted. */
void item_free_now(struct item *item);
/* sl_destroy() callback. */
void item_destroy_slot(struct sl_slot *slot, void *arg);

static inline struct item *item_of(struct sl_slot *slot)
{
	return container_of(slot, struct item, slot);
}

/* Abort unless @slot belongs to a live item; returns the item. */
static inline struct item *item_check(struct sl_slot *slot)
{
	struct item *item = item_of(slot);

	if (READ_ONCE(item->magic) != ITEM_LIVE) {
		fprintf(stderr, "slot %p key %lx: item magic %llx, freed?\n",
			slot, slot->key, (unsigned long long)item->magic);
		shim_die(__FILE__, __LINE__, "reader saw a freed item");
	}
	return item;
}

#endif /* _TEST_ITEM_H */
