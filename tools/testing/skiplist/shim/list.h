/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Doubly linked lists as the kernel's <linux/list.h> has them, with the
 * checks of CONFIG_DEBUG_LIST always on: an add whose neighbours do not
 * point at each other, and a delete of an entry whose neighbours do not
 * point at it (deleted twice, or never added), abort.  A deleted entry's
 * pointers are poisoned, so a walk through it faults at once (an address
 * in the first page, which AddressSanitizer reports) instead of reading
 * what happens to be there.
 */
#ifndef _SHIM_LIST_H
#define _SHIM_LIST_H

#include "base.h"

#define LIST_POISON1	((void *)0x100)
#define LIST_POISON2	((void *)0x122)

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	WRITE_ONCE(list->next, list);
	list->prev = list;
}

static inline void shim_list_add(struct list_head *new,
				 struct list_head *prev,
				 struct list_head *next)
{
	SHIM_ASSERT(next->prev == prev && prev->next == next,
		    "list_add corruption: the neighbours do not point at each other");
	SHIM_ASSERT(new != prev && new != next,
		    "list_add of an entry already there");
	next->prev = new;
	new->next = next;
	new->prev = prev;
	WRITE_ONCE(prev->next, new);
}

static inline void list_add(struct list_head *new, struct list_head *head)
{
	shim_list_add(new, head, head->next);
}

static inline void list_add_tail(struct list_head *new,
				 struct list_head *head)
{
	shim_list_add(new, head->prev, head);
}

static inline void shim_list_unlink(struct list_head *entry)
{
	SHIM_ASSERT(entry->next != LIST_POISON1 && entry->prev != LIST_POISON2,
		    "list_del of an entry already deleted");
	SHIM_ASSERT(entry->prev->next == entry && entry->next->prev == entry,
		    "list_del corruption: the neighbours do not point at the entry");
	entry->next->prev = entry->prev;
	WRITE_ONCE(entry->prev->next, entry->next);
}

static inline void list_del(struct list_head *entry)
{
	shim_list_unlink(entry);
	entry->next = LIST_POISON1;
	entry->prev = LIST_POISON2;
}

static inline void list_del_init(struct list_head *entry)
{
	shim_list_unlink(entry);
	INIT_LIST_HEAD(entry);
}

static inline void list_move(struct list_head *entry, struct list_head *head)
{
	shim_list_unlink(entry);
	list_add(entry, head);
}

static inline void list_move_tail(struct list_head *entry,
				  struct list_head *head)
{
	shim_list_unlink(entry);
	list_add_tail(entry, head);
}

static inline bool list_empty(const struct list_head *head)
{
	return READ_ONCE(head->next) == head;
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) \
	list_entry((ptr)->next, type, member)
#define list_last_entry(ptr, type, member) \
	list_entry((ptr)->prev, type, member)
#define list_first_entry_or_null(ptr, type, member) ({			\
	struct list_head *__head = (ptr);				\
	struct list_head *__pos = READ_ONCE(__head->next);		\
	__pos != __head ? list_entry(__pos, type, member) : NULL;	\
})
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)

#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_next_entry(pos, member))

#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, __typeof__(*pos), member),	\
	     n = list_next_entry(pos, member);				\
	     &pos->member != (head);					\
	     pos = n, n = list_next_entry(n, member))

/* --- Lists with a single-pointer head, for hash tables --- */

#define HLIST_HEAD_INIT		{ .first = NULL }

static inline void INIT_HLIST_HEAD(struct hlist_head *h)
{
	h->first = NULL;
}

static inline void INIT_HLIST_NODE(struct hlist_node *n)
{
	n->next = NULL;
	n->pprev = NULL;
}

static inline bool hlist_unhashed(const struct hlist_node *n)
{
	return !n->pprev;
}

static inline bool hlist_empty(const struct hlist_head *h)
{
	return !READ_ONCE(h->first);
}

static inline void shim_hlist_unlink(struct hlist_node *n)
{
	SHIM_ASSERT(n->pprev && n->pprev != LIST_POISON2,
		    "hlist_del of a node not in a list");
	SHIM_ASSERT(*n->pprev == n,
		    "hlist_del corruption: the previous node does not point at it");
	SHIM_ASSERT(!n->next || n->next->pprev == &n->next,
		    "hlist_del corruption: the next node does not point back");
	WRITE_ONCE(*n->pprev, n->next);
	if (n->next)
		n->next->pprev = n->pprev;
}

static inline void hlist_del(struct hlist_node *n)
{
	shim_hlist_unlink(n);
	n->next = LIST_POISON1;
	n->pprev = LIST_POISON2;
}

static inline void hlist_del_init(struct hlist_node *n)
{
	if (hlist_unhashed(n))
		return;
	shim_hlist_unlink(n);
	INIT_HLIST_NODE(n);
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	SHIM_ASSERT(!first || first->pprev == &h->first,
		    "hlist_add_head corruption: the first node does not point back");
	n->next = first;
	if (first)
		first->pprev = &n->next;
	WRITE_ONCE(h->first, n);
	n->pprev = &h->first;
}

#define hlist_entry(ptr, type, member)	container_of(ptr, type, member)
#define hlist_entry_safe(ptr, type, member) ({				\
	__typeof__(ptr) __ptr = (ptr);					\
	__ptr ? hlist_entry(__ptr, type, member) : NULL;		\
})

#define hlist_for_each_entry(pos, head, member)				\
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); \
	     pos;							\
	     pos = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), member))

#endif /* _SHIM_LIST_H */
