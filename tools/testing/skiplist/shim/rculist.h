/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RCU variants of list.h, as the kernel's <linux/rculist.h> has them:
 * an add publishes the entry with a release store, so a reader that finds
 * it sees it initialised; a delete leaves the entry's forward pointer for
 * the readers still on it and poisons only the backward one.  A walk
 * asserts what lockdep-RCU asserts in the kernel: that it runs inside
 * rcu_read_lock(), or that the condition given (the update side's lock
 * held) is true.
 */
#ifndef _SHIM_RCULIST_H
#define _SHIM_RCULIST_H

#include "list.h"
#include "rcu.h"

static inline void hlist_add_head_rcu(struct hlist_node *n,
				      struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	SHIM_ASSERT(!first || first->pprev == &h->first,
		    "hlist_add_head_rcu corruption: the first node does not point back");
	n->next = first;
	n->pprev = &h->first;
	rcu_assign_pointer(h->first, n);
	if (first)
		first->pprev = &n->next;
}

static inline void hlist_del_rcu(struct hlist_node *n)
{
	shim_hlist_unlink(n);
	n->pprev = LIST_POISON2;
}

static inline void hlist_del_init_rcu(struct hlist_node *n)
{
	if (hlist_unhashed(n))
		return;
	shim_hlist_unlink(n);
	n->pprev = NULL;
}

/* The optional condition of a walk: false when none is given. */
#define shim_rcu_list_cond(dummy, cond, extra...)	(cond)
#define shim_rcu_list_deref(p, cond...) ({				\
	SHIM_ASSERT(shim_rcu_depth > 0 ||				\
		    shim_rcu_list_cond(0, ## cond, 0),			\
		    "RCU list walked outside rcu_read_lock() and without its lock"); \
	__atomic_load_n(&(p), __ATOMIC_CONSUME);			\
})

#define hlist_for_each_entry_rcu(pos, head, member, cond...)		\
	for (pos = hlist_entry_safe(shim_rcu_list_deref((head)->first, ## cond), \
				    __typeof__(*(pos)), member);	\
	     pos;							\
	     pos = hlist_entry_safe(shim_rcu_list_deref((pos)->member.next, ## cond), \
				    __typeof__(*(pos)), member))

#endif /* _SHIM_RCULIST_H */
