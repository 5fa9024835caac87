/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included before every file of the native build of the allocator
 * benchmark: what the kernel gives those files and the skiplist's
 * userspace shim (tools/testing/skiplist/shim/) does not.  The shim's fast
 * flavour (-DSHIM_FAST -DSHIM_RCU_QSBR) supplies locks, per-CPU data, slab
 * caches and RCU, so the skiplist's allocator and the kernel's IOVA
 * allocator run on the same ones.
 */
#ifndef _BENCH_NATIVE_H
#define _BENCH_NATIVE_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <linux/kernel.h>
#include <linux/spinlock.h>
#include <linux/slab.h>
#include <linux/percpu.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/math64.h>	/* the test shim's: div64_u64() and friends */

#define KBUILD_MODNAME		"sl_bench_native"
#define NSEC_PER_SEC		1000000000ULL
#define PAGE_SHIFT		12
#define PAGE_SIZE		4096UL
/*
 * This file stands in for ktime.h and completion.h itself: the test
 * shim's versions (for lsm/) must not come in as well.
 */
#define _SHIM_KTIME_H
#define _SHIM_COMPLETION_H
#define ENOTSUPP		524
/* Error pointers: the test shim's (tools/testing/skiplist/shim/err.h). */
#include <linux/err.h>

typedef u64 dma_addr_t;

#define __printf(a, b)		__attribute__((format(printf, a, b)))
#define clamp(val, lo, hi)	min(max((val), (lo)), (hi))
/* Kconfig: the IOVA allocator is built in. */
#define CONFIG_IOMMU_IOVA	1
#define IS_REACHABLE(option)	(option)
#define ALIGN(x, a)		(((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a)	(((x) & ((__typeof__(x))(a) - 1)) == 0)

#define swap(a, b) \
	do { __typeof__(a) __tmp = (a); (a) = (b); (b) = __tmp; } while (0)

/* ceil(log2(n)), 0 for n <= 1 */
static inline unsigned int order_base_2(unsigned long n)
{
	return n > 1 ? fls_long(n - 1) : 0;
}

static inline u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

#define vscnprintf(buf, size, fmt, args) \
	min_t(int, vsnprintf((buf), (size), (fmt), (args)), (int)(size) - 1)
#define scnprintf(buf, size, fmt, ...) \
	min_t(int, snprintf((buf), (size), (fmt), ##__VA_ARGS__), (int)(size) - 1)

/*
 * The workloads call cond_resched() between batches; here that is where a
 * thread reports a quiescent state to RCU (QSBR), as a CPU does when it
 * schedules.  (The test shim's own only checks the context.)
 */
#undef cond_resched
#define cond_resched()		shim_rcu_quiescent()

typedef struct {
	int counter;
} atomic_t;

/* What the kernel-only headers (kthread.h, completion.h) would declare. */
struct completion {
	int done;
};

/* The IOVA allocator's CPU hotplug hooks: no CPU goes away here. */
struct hlist_node {
	struct hlist_node *next, **pprev;
};

#define hlist_entry_safe(ptr, type, member) \
	({ __typeof__(ptr) ____ptr = (ptr); \
	   ____ptr ? container_of(____ptr, type, member) : NULL; })

enum { CPUHP_IOMMU_IOVA_DEAD = 1 };

static inline int cpuhp_setup_state_multi(int state, const char *name,
		int (*startup)(unsigned int cpu, struct hlist_node *node),
		int (*teardown)(unsigned int cpu, struct hlist_node *node))
{
	return 0;
}

static inline int cpuhp_state_add_instance_nocalls(int state,
						   struct hlist_node *node)
{
	return 0;
}

static inline int cpuhp_state_remove_instance_nocalls(int state,
						      struct hlist_node *node)
{
	return 0;
}

static inline void cpuhp_remove_multi_state(int state)
{
}

struct mutex {
	pthread_mutex_t m;
};

#define DEFINE_MUTEX(name)	struct mutex name = { PTHREAD_MUTEX_INITIALIZER }
#define mutex_lock(l)		pthread_mutex_lock(&(l)->m)
#define mutex_unlock(l)		pthread_mutex_unlock(&(l)->m)

#define SLAB_HWCACHE_ALIGN	0
#define assert_spin_locked(l)	((void)(l))
#define for_each_online_cpu(cpu) for_each_possible_cpu(cpu)
#define __alloc_percpu(size, align) shim_alloc_percpu(size, GFP_KERNEL)

static inline int cache_line_size(void)
{
	return 64;
}

/* The only zeroed cache object is the IOVA allocator's struct iova. */
#define kmem_cache_zalloc(cache, gfp) \
	({ void *__p = kmem_cache_alloc((cache), (gfp)); \
	   if (__p) \
		memset(__p, 0, sizeof(struct iova)); \
	   __p; })

#endif /* _BENCH_NATIVE_H */
