/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interface between the user-space benchmark driver and each index under
 * test.  The driver only ever talks to an index through one of these tables,
 * so every implementation is measured through the same call overhead.
 *
 * Keys and sizes describe extents [key, key + size); key + size must not wrap.
 * Every implementation allocates its own items and frees them itself, so the
 * malloc heap accounting in the driver covers items and index alike.
 *
 * Threading contract kept by the driver:
 *  - create() and destroy() run on the main thread, with no other thread
 *    using the index.  destroy() must work whether or not the calling thread
 *    did thread_start() (libcds needs the thread attached to free nodes, so
 *    its destroy() attaches by itself when needed).
 *  - Every thread calls thread_start() before its first operation on an index
 *    and thread_stop() after its last one; the main thread too, around the
 *    untimed fills and checks it does itself.
 *  - index_bytes() is only called while no other thread uses the index.
 *  - When concurrent_remove is false, remove() never runs alongside any other
 *    operation.
 */
#ifndef _BENCH_INDEX_H
#define _BENCH_INDEX_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Never defined: each implementation casts its own structure to and from it,
 * which keeps the type opaque without needing one definition per program.
 */
struct bench_index;

struct bench_impl {
	const char *name;		/* e.g. "rbtree-spin" */
	struct bench_index *(*create)(void);
	/* Frees all items too. */
	void (*destroy)(struct bench_index *idx);
	/* Per-thread setup (RCU registration etc.), may be NULL. */
	void (*thread_start)(struct bench_index *idx);
	void (*thread_stop)(struct bench_index *idx);	/* may be NULL */
	/* Insert [key, key + size): 0, -EEXIST (overlap) or -ENOMEM. */
	int (*insert)(struct bench_index *idx, unsigned long key,
		      unsigned long size);
	/* Remove the item starting at key: 0 or -ENOENT. */
	int (*remove)(struct bench_index *idx, unsigned long key);
	/*
	 * True if an item contains key.  Point maps may only look up the exact
	 * start key; the workloads only query start keys or absent keys.
	 */
	bool (*lookup)(struct bench_index *idx, unsigned long key);
	/*
	 * Insert an item of @size at the lowest @align-aligned start in
	 * [min, max) whose whole extent fits in a gap below max; first fit,
	 * atomic with respect to other updates.  Returns 0 and the start in
	 * *key, or -ENOSPC (-ENOMEM if allocation fails).  NULL if unsupported.
	 */
	int (*insert_hole)(struct bench_index *idx, unsigned long size,
			   unsigned long align, unsigned long min,
			   unsigned long max, unsigned long *key);
	/*
	 * Bytes the index structure itself allocates, not counting the items;
	 * NULL if unknown.
	 */
	size_t (*index_bytes)(struct bench_index *idx);
	/* False if remove() is not thread-safe (tbb::concurrent_map). */
	bool concurrent_remove;
	/*
	 * Complete frees deferred past an RCU grace period, so that a heap
	 * sample sees memory actually given back; NULL if nothing is deferred.
	 * Called on the main thread between thread_start() and thread_stop().
	 */
	void (*quiesce)(struct bench_index *idx);
};

extern const struct bench_impl bench_impl_rbtree_spin;
extern const struct bench_impl bench_impl_rbtree_rw;
extern const struct bench_impl bench_impl_tbb_map;
extern const struct bench_impl bench_impl_cds_skiplist;
extern const struct bench_impl bench_impl_maple;
#ifdef HAVE_SKIPLIST
extern const struct bench_impl bench_impl_skiplist;
#endif

/* NULL-terminated; the first entry is the baseline of the ratio columns. */
extern const struct bench_impl *const bench_impls[];

#ifdef __cplusplus
}
#endif

#endif /* _BENCH_INDEX_H */
