/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory cgroups, as far as the tests need them to see which cgroup an
 * allocation is charged to: a thread belongs to one (shim_task_memcg, NULL
 * for none, as when memory cgroups are disabled), may make another active
 * (set_active_memcg()), and every kmalloc() with __GFP_ACCOUNT counts one
 * charge against the active one, or else its own.  References are counted,
 * so that a test can see every one given back.
 */
#ifndef _SHIM_MEMCG_H
#define _SHIM_MEMCG_H

#include "base.h"
#include "irq.h"

struct mm_struct;

struct mem_cgroup {
	long refs;
	long charged;
};

extern __thread struct mem_cgroup *shim_task_memcg;
extern __thread struct mem_cgroup *shim_active_memcg;
void shim_memcg_charge(void);

/* With a NULL @mm, as in the kernel: the active cgroup, or the caller's. */
static inline struct mem_cgroup *get_mem_cgroup_from_mm(struct mm_struct *mm)
{
	struct mem_cgroup *memcg = shim_active_memcg ?: shim_task_memcg;

	SHIM_ASSERT(!mm, "get_mem_cgroup_from_mm: only NULL is supported");
	if (memcg)
		__atomic_add_fetch(&memcg->refs, 1, __ATOMIC_RELAXED);
	return memcg;
}

static inline void mem_cgroup_put(struct mem_cgroup *memcg)
{
	if (memcg)
		SHIM_ASSERT(__atomic_sub_fetch(&memcg->refs, 1,
					       __ATOMIC_RELAXED) >= 0,
			    "mem_cgroup_put: reference count below zero");
}

static inline struct mem_cgroup *set_active_memcg(struct mem_cgroup *memcg)
{
	struct mem_cgroup *old = shim_active_memcg;

	shim_active_memcg = memcg;
	return old;
}

#endif /* _SHIM_MEMCG_H */
