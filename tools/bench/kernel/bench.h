/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel benchmark (sl_bench.ko): private header.
 *
 * Two families of peers, each behind an ops table:
 *  - ordered indexes of extents (struct bench_index_ops): the skiplist,
 *    an rbtree under a spinlock and under an rwlock, the maple tree in RCU
 *    mode and, for point lookups only, the XArray;
 *  - range allocators (struct bench_alloc_ops): the skiplist's range
 *    allocator, with and without its per-CPU caches, an rbtree allocator
 *    in the 2013 IOVA design, the maple tree's gap search and the kernel's
 *    IOVA allocator, with and without its per-CPU range caches.
 *
 * A cell is one workload on one peer with a number of kthreads for a fixed
 * time (runner.c); every cell prints one result line (results.c).
 */
#ifndef _SL_BENCH_H
#define _SL_BENCH_H

#include <linux/types.h>
#include <linux/rbtree.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include "skiplist.h"
#include "keyset.h"

#define BENCH_MAX_THREADS	64
#define BENCH_MAX_ROUNDS	9

enum bench_workload {
	BENCH_W_LOOKUP,		/* point lookup of a random preloaded key */
	BENCH_W_OVERLAP,	/* first extent overlapping a random window */
	BENCH_W_RANGE,		/* 16 extents in order from a random extent */
	BENCH_W_SCAN,		/* full ordered scans; ops are extents seen */
	BENCH_W_MIX50,		/* 50% lookups, 50% updates (erase+reinsert) */
	BENCH_W_INSDEL,		/* inserts and deletes of extra extents */
	BENCH_W_CHURN,		/* allocate and free, 64 live per thread */
	BENCH_W_FRAG,		/* allocate in a fragmented space */
	BENCH_W_FRAG_ALIGN,	/* the same, every hole misaligned */
	BENCH_W_NR,
};

#define BENCH_INDEX_WORKLOADS	(BIT(BENCH_W_LOOKUP) | BIT(BENCH_W_OVERLAP) | \
				 BIT(BENCH_W_RANGE) | BIT(BENCH_W_SCAN) | \
				 BIT(BENCH_W_MIX50) | BIT(BENCH_W_INSDEL))

extern const char *const bench_workload_names[BENCH_W_NR];

/**
 * struct bench_item - an extent as the index workloads store it
 * @slot:    key and size, for every index (the skiplist stores the slot)
 * @rb:      node in the rbtree indexes
 * @present: whether it is in the index; written only by the thread that
 *           owns the item in the current cell, read by it alone
 */
struct bench_item {
	struct sl_slot slot;
	struct rb_node rb;
	bool present;
};

struct bench_index {
	const struct bench_index_ops *ops;
};

/**
 * struct bench_index_ops - an ordered index of non-overlapping extents
 * @name:          as in the results and the indexes= parameter
 * @workloads:     mask of the workloads it supports
 * @exact_keys:    finds an extent only by its first key (the XArray)
 * @even_only:     runs on the even key set only: its memory grows with
 *                 the bits of the keys (the XArray, whose 64-bit random
 *                 keys would each need a chain of nodes of their own)
 * @init:          a new empty index, or an ERR_PTR()
 * @destroy:       free the index (not the items); nothing runs on it
 * @insert:        add an item that is not in the index: 0 or -errno
 * @remove:        take out an item that is in it: 0 or -errno
 * @lookup:        the start of the extent holding @key, in *@found
 * @first_overlap: the start of the lowest extent overlapping
 *                 [@start, @end), in *@found
 * @iterate:       visit up to @max extents in order, from the first whose
 *                 start is >= @from; returns how many it visited
 *
 * All may sleep (GFP_KERNEL); readers take what their design needs (RCU or
 * the lock) inside the call.
 */
struct bench_index_ops {
	const char *name;
	unsigned int workloads;
	bool exact_keys;
	bool even_only;
	struct bench_index *(*init)(void);
	void (*destroy)(struct bench_index *bi);
	int (*insert)(struct bench_index *bi, struct bench_item *item);
	int (*remove)(struct bench_index *bi, struct bench_item *item);
	bool (*lookup)(struct bench_index *bi, unsigned long key,
		       unsigned long *found);
	bool (*first_overlap)(struct bench_index *bi, unsigned long start,
			      unsigned long end, unsigned long *found);
	unsigned long (*iterate)(struct bench_index *bi, unsigned long from,
				 unsigned long max);
};

extern const struct bench_index_ops bench_index_skiplist;
extern const struct bench_index_ops bench_index_rbtree_spin;
extern const struct bench_index_ops bench_index_rbtree_rw;
extern const struct bench_index_ops bench_index_maple;
extern const struct bench_index_ops bench_index_xarray;

/**
 * struct bench_range - a range a thread holds from an allocator
 * @start:  first unit
 * @size:   units; 0 for an empty ring entry
 * @cookie: whatever the allocator needs to free it (the IOVA allocator's
 *          struct iova), or NULL
 */
struct bench_range {
	unsigned long start;
	unsigned long size;
	void *cookie;
};

struct bench_alloc {
	const struct bench_alloc_ops *ops;
};

/**
 * struct bench_alloc_ops - a range allocator over [start, end)
 * @name:     as in the results and the allocators= parameter
 * @top_down: searches from the end of the space down (else from the start
 *            up); the fragmented workload puts the one fitting gap at the
 *            far end of that direction
 * @churn_only: left out of the fragmented workloads, whose repeated request
 *            a cache of freed ranges would answer without any search
 * @size_align_only: aligns only to the size rounded up to a power of two
 *            (the IOVA allocator), so it cannot serve frag-align's one
 *            unit aligned to two
 * @init:     a new allocator for [@start, @end), or an ERR_PTR()
 * @destroy:  free it and every range still allocated
 * @alloc:    @size units aligned to @align (a power of two): 0 or -errno
 * @free:     give back a range from @alloc or @reserve: 0 or -errno
 * @reserve:  allocate exactly [@start, @start + @size): 0 or -errno
 */
struct bench_alloc_ops {
	const char *name;
	bool top_down;
	bool churn_only;
	bool size_align_only;
	struct bench_alloc *(*init)(unsigned long start, unsigned long end);
	void (*destroy)(struct bench_alloc *ba);
	int (*alloc)(struct bench_alloc *ba, unsigned long size,
		     unsigned long align, struct bench_range *r);
	int (*free)(struct bench_alloc *ba, struct bench_range *r);
	int (*reserve)(struct bench_alloc *ba, unsigned long start,
		       unsigned long size, struct bench_range *r);
};

extern const struct bench_alloc_ops bench_alloc_skiplist;
extern const struct bench_alloc_ops bench_alloc_skiplist_cache;
extern const struct bench_alloc_ops bench_alloc_rbtree;
extern const struct bench_alloc_ops bench_alloc_maple;
extern const struct bench_alloc_ops bench_alloc_iova;
extern const struct bench_alloc_ops bench_alloc_iova_fast;

struct bench_cell;

/**
 * struct bench_thread - one kthread of a cell, and what it measured
 * @cell:    the cell
 * @id:      0 .. threads - 1
 * @rng:     its random state
 * @ops:     operations completed in the timed part
 * @ns:      length of the timed part
 * @errors:  wrong answers or failed operations (any fails the run)
 * @misses:  lookups that found nothing where a concurrent update may have
 *           taken the extent out (not errors)
 * @aux_ns:  workload-specific time (frag: inside the allocations)
 */
struct bench_thread {
	struct bench_cell *cell;
	unsigned int id;
	u64 rng;
	u64 ops;
	u64 ns;
	u64 errors;
	u64 misses;
	u64 aux_ns;
};

/**
 * struct bench_cell - one timed run of a workload on a peer
 * @body:     what each thread runs; it times itself and returns when
 *            bench_stop() says so
 * @arg:      for @body
 * @threads:  number of threads
 * @cell_ms:  how long to let them run, per round
 * @stop:     set when the time is up
 * @ready:    threads that reached the start line
 * @running:  threads still in @body
 * @all_ready, @go, @finished: the start line, the start, the end
 * @thread:   per-thread state and results
 */
struct bench_cell {
	void (*body)(struct bench_thread *t);
	void *arg;
	unsigned int threads;
	unsigned int cell_ms;
	bool stop;
	atomic_t ready;
	atomic_t running;
	struct completion all_ready;
	struct completion go;
	struct completion finished;
	struct bench_thread thread[BENCH_MAX_THREADS];
};

static inline bool bench_stop(struct bench_thread *t)
{
	return READ_ONCE(t->cell->stop);
}

/* xorshift64*: cheap enough for the inner loops, and reproducible. */
static inline u64 bench_rand(u64 *state)
{
	u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Uniform in [0, n) for n < 2^32, without a division. */
static inline unsigned long bench_rand_below(u64 *state, unsigned long n)
{
	return (unsigned long)(((bench_rand(state) >> 32) * (u64)n) >> 32);
}

/* What the workloads share with main.c. */
struct bench_config {
	unsigned int threads[BENCH_MAX_THREADS];
	unsigned int nr_threads;
	unsigned int cell_ms;
	unsigned int rounds;
	u64 seed;
};

int bench_indexes_run(const struct bench_config *cfg,
		      const struct bench_index_ops *const *ops, unsigned int nr,
		      unsigned int keyset, unsigned long items,
		      unsigned int workloads, unsigned int *failures);
void bench_failed(unsigned int *failures, const char *what,
		  const char *impl, unsigned long n, int ret);
int bench_alloc_churn(const struct bench_config *cfg,
		      const struct bench_alloc_ops *const *ops, unsigned int nr,
		      unsigned int *failures);
int bench_alloc_frag(const struct bench_config *cfg,
		     const struct bench_alloc_ops *ops, unsigned long items,
		     bool misaligned);

/**
 * struct bench_sum - what a cell measured, over all its threads
 * @threads: threads that ran
 * @ops:     operations, all threads together
 * @ns:      the longest thread's timed part
 * @errors:  see struct bench_thread; of all rounds together
 * @misses:  see struct bench_thread
 * @aux_ns:  see struct bench_thread, all threads together
 * @rounds:  rounds run; the other fields are the median round's
 * @rate_min: ops per second of the slowest round
 * @rate_max: ops per second of the fastest round
 */
struct bench_sum {
	unsigned int threads;
	u64 ops;
	u64 ns;
	u64 errors;
	u64 misses;
	u64 aux_ns;
	unsigned int rounds;
	u64 rate_min;
	u64 rate_max;
};

/* measure.c, with each build's bench_cell_run() (runner.c in the module) */
int bench_cell_run(struct bench_cell *cell, u64 seed);
struct bench_thread *bench_thread_init(struct bench_cell *cell,
				       unsigned int i, u64 seed);
u64 bench_sum_rate(const struct bench_sum *sum);
int bench_cells_measure(struct bench_cell *cell, const struct bench_config *cfg,
			u64 seed, void *const *args, unsigned int nr,
			struct bench_sum *medians);
int bench_cell_measure(struct bench_cell *cell, const struct bench_config *cfg,
		       u64 seed, struct bench_sum *median);

/* The longest result line; results.c in the module keeps them. */
#define BENCH_LINE_MAX	384

int bench_results_init(size_t lines);
void bench_results_exit(void);
void bench_result(const char *workload, const char *impl,
		  unsigned long items, const struct bench_sum *sum,
		  const char *extra_fmt, ...) __printf(5, 6);
void bench_result_line(const char *fmt, ...) __printf(1, 2);
u64 bench_result_errors(void);

#endif /* _SL_BENCH_H */
