/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole pages from the buddy allocator: __get_free_pages() returns
 * PAGE_SIZE << order bytes aligned to their own size, as the kernel's
 * buddy allocator does, so that code relying on that alignment (the lsm
 * pool finds a slab's header by masking an object's address) is tested
 * as it runs.  Each call first makes a one-byte kmalloc() with the same
 * flags, so that the shim's checks (a blocking allocation in an atomic
 * section) and its failure injection apply to pages too.
 *
 * The SHIM_FAST build (benchmarks) keeps single pages on a free list per
 * thread in front of aligned_alloc(), as the kernel keeps them on per-CPU
 * lists in front of the buddy allocator: what a benchmark then measures
 * is the code that asks for pages, not glibc's memalign.
 */
#ifndef _SHIM_PAGES_H
#define _SHIM_PAGES_H

#include "base.h"
#include "slab.h"

#ifndef PAGE_SHIFT
#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#endif

#ifdef SHIM_FAST
/* A page from this thread's list, or 0 if it is empty; then one to it. */
unsigned long shim_fast_page_get(gfp_t gfp);
bool shim_fast_page_put(unsigned long addr);
#endif

static inline unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
{
	size_t bytes = PAGE_SIZE << order;
	void *probe;
	void *mem;

#ifdef SHIM_FAST
	if (!order) {
		unsigned long page = shim_fast_page_get(gfp);

		if (page)
			return page;
	}
#endif
	probe = kmalloc(1, gfp & ~__GFP_ZERO);
	if (!probe)
		return 0;
	kfree(probe);
	mem = aligned_alloc(bytes, bytes);
	if (mem && (gfp & __GFP_ZERO))
		memset(mem, 0, bytes);
	return (unsigned long)mem;
}

static inline void free_pages(unsigned long addr, unsigned int order)
{
	SHIM_ASSERT(!(addr & ((PAGE_SIZE << order) - 1)),
		    "free_pages() of an address not from __get_free_pages()");
#ifdef SHIM_FAST
	if (!order && shim_fast_page_put(addr))
		return;
#endif
	free((void *)addr);
}

#define __get_free_page(gfp)	__get_free_pages((gfp), 0)
#define free_page(addr)		free_pages((addr), 0)

static inline unsigned int get_order(unsigned long size)
{
	return size <= PAGE_SIZE ? 0 : fls_long((size - 1) >> PAGE_SHIFT);
}

#endif /* _SHIM_PAGES_H */
