// SPDX-License-Identifier: GPL-2.0
/*
 * The index workloads.  Each index is preloaded with the n extents of a
 * key set (keyset.h: for the even set [i * 16, i * 16 + 8)), inserted in a
 * random order (timed: the "fill" result), and then every workload runs
 * on every index with each thread count, the rounds of a cell interleaved
 * across the indexes (bench_indexes_run()):
 *
 *  lookup   the extent holding a random unit of a random extent (the
 *           XArray, which knows only first keys, looks up the first key)
 *  overlap  the first extent overlapping a random 64-unit window that
 *           starts in a random extent or in the gap before it
 *  range16  16 extents in order, from a random extent's first key
 *  scan     full ordered scans; ops are extents visited
 *  mix50    half lookups as above, half updates: erase a random extent the
 *           thread owns and insert it again
 *  insdel   insert or delete (whichever applies) a random "extra" extent
 *           the thread owns; the extras are the key set's other n extents
 *           (for the even set the holes [i * 16 + 8, +8))
 *
 * Items are split between threads (item i belongs to thread i % threads)
 * so that writers never race for one item and each knows whether its items
 * are in the index.  The read-only workloads check every answer; any wrong
 * answer is an error in the result line.  They run first, in the order
 * above, and insdel last, since the extras it leaves in the index would
 * change their answers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "bench.h"

/* Operations between two looks at the stop flag and the scheduler. */
#define BENCH_BATCH	64
#define BENCH_WINDOW	64	/* units in an overlap window */
#define BENCH_RANGE_LEN	16	/* extents per range16 operation */

struct bench_index_ctx {
	const struct bench_index_ops *ops;
	struct bench_index *bi;
	struct bench_item *items;	/* [0, n) preloaded, [n, 2n) extras */
	unsigned long n;
};

/* The first key of item @i. */
static unsigned long bench_key(struct bench_index_ctx *x, unsigned long i)
{
	return x->items[i].slot.key;
}

/*
 * A random unit of a random preloaded extent, and the extent's number.
 * Every key set's sizes are powers of two, so the low bits of the draw
 * pick the unit; its high bits picked the extent.
 */
static unsigned long bench_rand_key(struct bench_index_ctx *x,
				    struct bench_thread *t, unsigned long *i)
{
	u64 r = bench_rand(&t->rng);

	*i = (unsigned long)(((r >> 32) * x->n) >> 32);
	if (x->ops->exact_keys)
		return bench_key(x, *i);
	return bench_key(x, *i) + (r & (x->items[*i].slot.size - 1));
}

/* A random item of [0, n) that thread t owns. */
static unsigned long bench_rand_own(struct bench_index_ctx *x,
				    struct bench_thread *t)
{
	unsigned int nt = t->cell->threads;
	unsigned long owned = (x->n - t->id + nt - 1) / nt;

	return bench_rand_below(&t->rng, owned) * nt + t->id;
}

static void bench_w_lookup(struct bench_thread *t)
{
	struct bench_index_ctx *x = t->cell->arg;
	unsigned long i, key, found;
	unsigned int b;
	u64 t0;

	t0 = ktime_get_ns();
	while (!bench_stop(t)) {
		for (b = 0; b < BENCH_BATCH; b++) {
			key = bench_rand_key(x, t, &i);
			if (!x->ops->lookup(x->bi, key, &found) ||
			    found != bench_key(x, i))
				t->errors++;
		}
		t->ops += BENCH_BATCH;
		cond_resched();
	}
	t->ns = ktime_get_ns() - t0;
}

/*
 * The window starts anywhere from the end of extent i - 1 to the end of
 * extent i, so nothing before extent i overlaps it, and extent i does
 * exactly when it starts inside the window.
 */
static void bench_w_overlap(struct bench_thread *t)
{
	struct bench_index_ctx *x = t->cell->arg;
	unsigned long i, lo, hi, start, found;
	unsigned int b;
	bool hit;
	u64 t0;

	t0 = ktime_get_ns();
	while (!bench_stop(t)) {
		for (b = 0; b < BENCH_BATCH; b++) {
			i = bench_rand_below(&t->rng, x->n);
			hi = bench_key(x, i) + x->items[i].slot.size;
			lo = i ? bench_key(x, i - 1) + x->items[i - 1].slot.size :
				 bench_key(x, i);
			start = lo + (unsigned long)bench_rand(&t->rng) % (hi - lo);
			hit = x->ops->first_overlap(x->bi, start,
						    start + BENCH_WINDOW, &found);
			if (bench_key(x, i) < start + BENCH_WINDOW ?
			    !hit || found != bench_key(x, i) : hit)
				t->errors++;
		}
		t->ops += BENCH_BATCH;
		cond_resched();
	}
	t->ns = ktime_get_ns() - t0;
}

static void bench_w_range(struct bench_thread *t)
{
	struct bench_index_ctx *x = t->cell->arg;
	unsigned long i, seen;
	unsigned int b;
	u64 t0;

	t0 = ktime_get_ns();
	while (!bench_stop(t)) {
		for (b = 0; b < BENCH_BATCH; b++) {
			i = bench_rand_below(&t->rng, x->n);
			seen = x->ops->iterate(x->bi, bench_key(x, i),
					       BENCH_RANGE_LEN);
			if (seen != min_t(unsigned long, BENCH_RANGE_LEN, x->n - i))
				t->errors++;
		}
		t->ops += BENCH_BATCH;
		cond_resched();
	}
	t->ns = ktime_get_ns() - t0;
}

static void bench_w_scan(struct bench_thread *t)
{
	struct bench_index_ctx *x = t->cell->arg;
	unsigned long seen;
	u64 t0;

	t0 = ktime_get_ns();
	while (!bench_stop(t)) {
		seen = x->ops->iterate(x->bi, 0, ULONG_MAX);
		if (seen != x->n)
			t->errors++;
		t->ops += seen;
		cond_resched();
	}
	t->ns = ktime_get_ns() - t0;
}

static void bench_w_mix50(struct bench_thread *t)
{
	struct bench_index_ctx *x = t->cell->arg;
	unsigned long i, key, found;
	struct bench_item *item;
	unsigned int b;
	u64 t0;

	t0 = ktime_get_ns();
	while (!bench_stop(t)) {
		for (b = 0; b < BENCH_BATCH; b++) {
			if (bench_rand(&t->rng) & (1ULL << 40)) {
				key = bench_rand_key(x, t, &i);
				/* Another thread may be updating it. */
				if (!x->ops->lookup(x->bi, key, &found))
					t->misses++;
				else if (found != bench_key(x, i))
					t->errors++;
				continue;
			}
			item = &x->items[bench_rand_own(x, t)];
			if (x->ops->remove(x->bi, item) ||
			    x->ops->insert(x->bi, item))
				t->errors++;
		}
		t->ops += BENCH_BATCH;
		cond_resched();
	}
	t->ns = ktime_get_ns() - t0;
}

static void bench_w_insdel(struct bench_thread *t)
{
	struct bench_index_ctx *x = t->cell->arg;
	struct bench_item *item;
	unsigned int b;
	u64 t0;

	t0 = ktime_get_ns();
	while (!bench_stop(t)) {
		for (b = 0; b < BENCH_BATCH; b++) {
			item = &x->items[x->n + bench_rand_own(x, t)];
			if (item->present) {
				if (x->ops->remove(x->bi, item))
					t->errors++;
				else
					item->present = false;
			} else {
				if (x->ops->insert(x->bi, item))
					t->errors++;
				else
					item->present = true;
			}
		}
		t->ops += BENCH_BATCH;
		cond_resched();
	}
	t->ns = ktime_get_ns() - t0;
}

static void (*const bench_index_body[BENCH_W_NR])(struct bench_thread *t) = {
	[BENCH_W_LOOKUP] = bench_w_lookup,
	[BENCH_W_OVERLAP] = bench_w_overlap,
	[BENCH_W_RANGE] = bench_w_range,
	[BENCH_W_SCAN] = bench_w_scan,
	[BENCH_W_MIX50] = bench_w_mix50,
	[BENCH_W_INSDEL] = bench_w_insdel,
};

/* Preload in a random order, the same for every index; timed. */
static int bench_fill(struct bench_index_ctx *x, u64 seed, u64 *ns)
{
	unsigned long k, j, n = x->n;
	u64 rng = seed * 0x9e3779b97f4a7c15ULL + 1, t0;
	u32 *perm, tmp;
	int ret = 0;

	perm = kvmalloc_array(n, sizeof(*perm), GFP_KERNEL);
	if (!perm)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		perm[k] = k;
	for (k = n - 1; k > 0; k--) {
		j = bench_rand_below(&rng, k + 1);
		tmp = perm[k];
		perm[k] = perm[j];
		perm[j] = tmp;
	}
	t0 = ktime_get_ns();
	for (k = 0; k < n; k++) {
		struct bench_item *item = &x->items[perm[k]];

		ret = x->ops->insert(x->bi, item);
		if (ret) {
			pr_err("%s: preload insert of %lu failed: %d\n",
			       x->ops->name, item->slot.key, ret);
			break;
		}
		item->present = true;
		if (!(k % 1024))
			cond_resched();
	}
	*ns = ktime_get_ns() - t0;
	kvfree(perm);
	return ret;
}

/* Build one index of the pass and preload it; reports the fill. */
static int bench_index_build(struct bench_index_ctx *x,
			     const struct bench_config *cfg,
			     const struct bench_extent *ext,
			     unsigned int keyset)
{
	struct bench_sum sum;
	unsigned long i;
	u64 ns;
	int ret;

	x->items = kvcalloc(2 * x->n, sizeof(*x->items), GFP_KERNEL);
	if (!x->items)
		return -ENOMEM;
	for (i = 0; i < 2 * x->n; i++) {
		struct bench_item *item = &x->items[i];

		item->slot.key = ext[i].key;
		item->slot.size = ext[i].size;
		RB_CLEAR_NODE(&item->rb);
	}
	x->bi = x->ops->init();
	if (IS_ERR(x->bi)) {
		ret = PTR_ERR(x->bi);
		x->bi = NULL;
		pr_err("%s: init failed: %d\n", x->ops->name, ret);
		return ret;
	}
	ret = bench_fill(x, cfg->seed, &ns);
	if (ret)
		return ret;
	memset(&sum, 0, sizeof(sum));
	sum.threads = 1;
	sum.ops = x->n;
	sum.ns = ns;
	sum.rounds = 1;
	sum.rate_min = bench_sum_rate(&sum);
	sum.rate_max = sum.rate_min;
	bench_result("fill", x->ops->name, x->n, &sum, "keyset=%s",
		     bench_keyset_name(keyset));
	return 0;
}

static void bench_index_teardown(struct bench_index_ctx *x)
{
	if (x->bi)
		x->ops->destroy(x->bi);
	x->bi = NULL;
	kvfree(x->items);
	x->items = NULL;
}

/* The key set's 2n extents; a kernel caller may take seconds here. */
static struct bench_extent *bench_layout(unsigned int keyset, unsigned long n,
					 u64 seed)
{
	struct bench_extent *ext;

	BUILD_BUG_ON(sizeof(unsigned long) != 8);
	ext = kvmalloc_array(2 * n, sizeof(*ext), GFP_KERNEL);
	if (!ext)
		return ERR_PTR(-ENOMEM);
	if (bench_keyset_build(keyset, n, seed, ext)) {
		kvfree(ext);
		pr_err("key set %u of %lu extents: cannot build\n", keyset, n);
		return ERR_PTR(-EINVAL);
	}
	return ext;
}

/**
 * bench_indexes_run() - every selected index workload on every index given
 * @cfg:       thread counts, cell time, rounds, seed
 * @ops:       the indexes
 * @nr:        how many
 * @keyset:    enum bench_keyset: the extents preloaded
 * @items:     extents to preload into each
 * @workloads: mask of the workloads to run (those an index lacks are
 *             skipped for it)
 * @failures:  incremented for each index that could not be built
 *
 * Every index is built and preloaded first, each over items of its own.
 * Then each cell runs its rounds interleaved across the indexes
 * (bench_cells_measure()), and each index reports the median of its
 * rounds.
 *
 * Context: Process context; sleeps.
 * Return: 0, -ENOMEM if the pass's own arrays could not be allocated,
 * -EINVAL if the key set cannot be built for @items, or
 * -errno if a cell could not be run (which ends the pass for every index).
 */
int bench_indexes_run(const struct bench_config *cfg,
		      const struct bench_index_ops *const *ops, unsigned int nr,
		      unsigned int keyset, unsigned long items,
		      unsigned int workloads, unsigned int *failures)
{
	struct bench_extent *ext = NULL;
	struct bench_index_ctx *x;
	struct bench_sum *medians;
	struct bench_cell *cell;
	unsigned int w, k, i;
	void **args;
	int ret = 0;

	x = kcalloc(nr, sizeof(*x), GFP_KERNEL);
	args = kcalloc(nr, sizeof(*args), GFP_KERNEL);
	medians = kcalloc(nr, sizeof(*medians), GFP_KERNEL);
	cell = kzalloc(sizeof(*cell), GFP_KERNEL);
	if (!x || !args || !medians || !cell) {
		ret = -ENOMEM;
		goto out;
	}
	ext = bench_layout(keyset, items, cfg->seed);
	if (IS_ERR(ext)) {
		ret = PTR_ERR(ext);
		ext = NULL;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		x[i].ops = ops[i];
		x[i].n = items;
		ret = bench_index_build(&x[i], cfg, ext, keyset);
		if (ret) {
			bench_failed(failures, "index", ops[i]->name, items, ret);
			bench_index_teardown(&x[i]);
			x[i].ops = NULL;
			ret = 0;
		}
	}
	/* Each index's items carry the keys from here on. */
	kvfree(ext);
	ext = NULL;

	for (w = 0; w < BENCH_W_NR; w++) {
		if (!(workloads & BIT(w)) || !bench_index_body[w])
			continue;
		/* The indexes that lack the workload sit it out. */
		for (i = 0; i < nr; i++)
			args[i] = x[i].ops && (x[i].ops->workloads & BIT(w)) ?
				  &x[i] : NULL;
		cell->body = bench_index_body[w];
		for (k = 0; k < cfg->nr_threads; k++) {
			cell->threads = cfg->threads[k];
			ret = bench_cells_measure(cell, cfg,
						  cfg->seed + w * 131 + k,
						  args, nr, medians);
			if (ret)
				goto out;
			for (i = 0; i < nr; i++)
				if (args[i])
					bench_result(bench_workload_names[w],
						     x[i].ops->name, items,
						     &medians[i], "keyset=%s",
						     bench_keyset_name(keyset));
		}
	}
out:
	kvfree(ext);
	if (x)
		for (i = 0; i < nr; i++)
			bench_index_teardown(&x[i]);
	/*
	 * Millions of nodes and leaves go to RCU here; let them be freed now,
	 * not in softirqs on the CPUs of the next pass's cells.
	 */
	rcu_barrier();
	kfree(cell);
	kfree(medians);
	kfree(args);
	kfree(x);
	return ret;
}
