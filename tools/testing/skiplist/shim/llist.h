/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lock-less lists as the kernel's <linux/llist.h> has them: any number of
 * threads add, one takes everything at once.  Adding is fully ordered, as
 * the kernel's cmpxchg() is.
 */
#ifndef _SHIM_LLIST_H
#define _SHIM_LLIST_H

#include "base.h"

struct llist_node {
	struct llist_node *next;
};

struct llist_head {
	struct llist_node *first;
};

static inline void init_llist_head(struct llist_head *list)
{
	list->first = NULL;
}

/* Returns whether the list was empty. */
static inline bool llist_add(struct llist_node *node, struct llist_head *head)
{
	struct llist_node *first = __atomic_load_n(&head->first,
						   __ATOMIC_RELAXED);

	do {
		node->next = first;
	} while (!__atomic_compare_exchange_n(&head->first, &first, node, false,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	return !first;
}

static inline struct llist_node *llist_del_all(struct llist_head *head)
{
	return __atomic_exchange_n(&head->first, NULL, __ATOMIC_SEQ_CST);
}

#endif /* _SHIM_LLIST_H */
