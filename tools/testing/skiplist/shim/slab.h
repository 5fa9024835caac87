/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmem_cache and kmalloc that check.
 *
 * The default (checking) build allocates every object with malloc() and
 * frees it with free(), so AddressSanitizer sees every use after free;
 * freed objects are filled with POISON_FREE first, and without ASan they
 * sit in a quarantine whose poison is verified when they leave it, which
 * catches writes after free.  kmem_cache_destroy() aborts if objects are
 * still live.  Allocations can be made to fail deterministically (the n-th
 * from now) or at random with a seed, and a blocking allocation inside an
 * RCU read-side section or under a spinlock aborts.
 *
 * The SHIM_FAST build (benchmarks) keeps a per-thread free list per cache
 * in front of malloc, which is roughly what SLUB's per-CPU fast path does.
 */
#ifndef _SHIM_SLAB_H
#define _SHIM_SLAB_H

#include "base.h"

#define ___GFP_DIRECT_RECLAIM	0x400u
#define ___GFP_ZERO		0x100u
#define ___GFP_HIGH		0x20u
#define ___GFP_NOWARN		0x2000u
#define ___GFP_ACCOUNT		0x400000u
#define __GFP_DIRECT_RECLAIM	___GFP_DIRECT_RECLAIM
#define __GFP_ZERO		___GFP_ZERO
#define __GFP_NOWARN		___GFP_NOWARN
#define __GFP_ACCOUNT		___GFP_ACCOUNT
#define GFP_KERNEL		(0x1u | __GFP_DIRECT_RECLAIM)
#define GFP_NOWAIT		0x2u
#define GFP_ATOMIC		(0x2u | ___GFP_HIGH)
#define GFP_KERNEL_ACCOUNT	(GFP_KERNEL | __GFP_ACCOUNT)

#define POISON_FREE	0x6b

static inline bool gfpflags_allow_blocking(gfp_t gfp)
{
	return gfp & __GFP_DIRECT_RECLAIM;
}

struct kmem_cache;

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, slab_flags_t flags,
				     void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *cache);
void *kmem_cache_alloc(struct kmem_cache *cache, gfp_t gfp);
void kmem_cache_free(struct kmem_cache *cache, void *obj);
long shim_cache_live(struct kmem_cache *cache);

void *kmalloc(size_t size, gfp_t gfp);
void *kzalloc(size_t size, gfp_t gfp);
void *kcalloc(size_t n, size_t size, gfp_t gfp);
void kfree(const void *obj);
#define kvcalloc(n, size, gfp)	kcalloc((n), (size), (gfp))
#define kvfree(obj)		kfree(obj)
#define kvmalloc(size, gfp)	kmalloc((size), (gfp))
#define kvzalloc(size, gfp)	kzalloc((size), (gfp))

/* As the kernel's: NULL when @n * @size overflows. */
static inline void *kvmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return kmalloc(bytes, gfp);
}
#define struct_size(p, member, n) \
	(sizeof(*(p)) + sizeof(*(p)->member) * (n))
long shim_kmalloc_live(void);

void might_alloc(gfp_t gfp);
/* Before retrying a failed allocation: yields if @gfp may block. */
void memalloc_retry_wait(gfp_t gfp);

/* No file system to reclaim here: the scope is only marked. */
static inline unsigned int memalloc_nofs_save(void)
{
	return 0;
}

static inline void memalloc_nofs_restore(unsigned int flags)
{
	(void)flags;
}

/*
 * Charging checks: while a thread sets shim_gfp_required, each of its
 * kmalloc() and kmem_cache_alloc() calls whose flags lack one of those
 * bits (__GFP_ACCOUNT: memory a user caused, for its memory cgroup) is
 * counted in shim_gfp_missing.
 */
extern __thread gfp_t shim_gfp_required;
extern __thread unsigned long shim_gfp_missing;

/* Fault injection. */
void shim_fail_nth(unsigned long nth);
void shim_fail_random(unsigned int per_million, u64 seed);
void shim_fail_off(void);
/* Set on the threads that run work items (workqueue.c). */
extern __thread bool shim_in_work_item;
unsigned long shim_failed_allocs(void);

#endif /* _SHIM_SLAB_H */
