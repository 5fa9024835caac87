// SPDX-License-Identifier: GPL-2.0
/*
 * The allocation workloads.
 *
 * churn: each thread holds a ring of 64 live ranges in a space of 2^28
 * units (pages); each operation frees the oldest and allocates a new one
 * of 1 to 32 units, aligned to its size rounded up to a power of two (the
 * DMA API's rule, which the IOVA allocator always applies).  Ops are
 * free + alloc pairs.  Filling the ring and emptying it are not timed.
 *
 * frag: one thread, and a space cut into n live ranges of one unit with
 * one-unit holes between them, so that no hole holds two units, and one
 * gap of exactly two aligned units at the far end of the allocator's
 * search direction:
 *
 *   top-down (rbtree, iova, iova-fast)
 *     [1, 6) reserved | gap [6, 8) | ranges at 8, 10, ... 8 + 2(n-1)
 *   bottom-up (skiplist, maple)
 *     ranges at 1, 3, ... 2n - 1 | [2n, 2n + 2) reserved | gap [2n + 2, 2n + 4)
 *
 * (the skiplist searches up from a per-CPU hint and wraps round; the
 * thread runs on the first online CPU, whose hint starts at the bottom,
 * and after the first allocation the hint sits at the end of the space, so
 * every later search starts from the bottom again).  One operation is:
 * allocate two units (only the gap fits them) and free them, then free the
 * range at the near end (the top for top-down allocators, the bottom for
 * the others) and reserve it again.  The near-end free is what real users
 * do all the time, and what moves the rbtree allocator's cached node back
 * to the top (the IOVA allocator's as well), so that the next search has
 * to walk down past every range: without it, the cache would sit right
 * above the gap and the search would be trivially short.  The IOVA
 * allocator's per-CPU caches (iova-fast) hand the same two units back
 * without any search, which is what they are for; the result says so.
 *
 * frag-align: the same, but the space is cut so that every hole fits the
 * request's size and none its alignment: n ranges of one unit at every
 * even unit, one-unit holes at the odd ones, and the request one unit
 * aligned to two, which only the far end holds.  A gap search that prunes
 * by size alone visits every hole (the alignment-adversarial layout of
 * issue 18; filling such a space one request at a time is quadratic):
 *
 *   top-down (rbtree)
 *     [1, 2) reserved | gap [2, 4) | ranges at 4, 6, ... 4 + 2(n-1)
 *   bottom-up (skiplist, maple)
 *     ranges at 2, 4, ... 2n | gap [2n + 1, 2n + 4)
 *
 * (the gaps are wider than the request so that the maple tree's fallback,
 * a search for size + align - 1 units, finds them too; the only even
 * unit in each is 2, or 2n + 2).  The IOVA allocator aligns only to the
 * size rounded up, so it cannot ask for this and sits it out.
 *
 * ns_per_op is the whole operation; alloc_ns is the part spent inside the
 * allocation, timed around each call (so it includes reading the clock).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "bench.h"

#define BENCH_RING		64
#define BENCH_CHURN_BATCH	16
#define BENCH_CHURN_END		BIT(28)
#define BENCH_CHURN_MAX		32
#define BENCH_FRAG_REQ		2	/* units in the far request */
#define BENCH_FRAG_MIN_OPS	4

struct bench_alloc_ctx {
	const struct bench_alloc_ops *ops;
	struct bench_alloc *ba;
	unsigned long start;
	unsigned long end;		/* exclusive */
	unsigned long gap;		/* frag: where the far request lands */
	unsigned long req_size;		/* frag: the far request */
	unsigned long req_align;
	struct bench_range near;	/* frag: the near-end range */
};

static bool bench_range_ok(const struct bench_alloc_ctx *x,
			   const struct bench_range *r, unsigned long size,
			   unsigned long align)
{
	return r->start >= x->start && r->start < x->end &&
	       size <= x->end - r->start && IS_ALIGNED(r->start, align);
}

static void bench_churn_alloc(struct bench_alloc_ctx *x, struct bench_thread *t,
			      struct bench_range *r)
{
	unsigned long size = 1 + bench_rand_below(&t->rng, BENCH_CHURN_MAX);
	unsigned long align = roundup_pow_of_two(size);

	if (x->ops->alloc(x->ba, size, align, r)) {
		r->size = 0;
		t->errors++;
	} else if (!bench_range_ok(x, r, size, align)) {
		t->errors++;
	}
}

static void bench_w_churn(struct bench_thread *t)
{
	struct bench_alloc_ctx *x = t->cell->arg;
	struct bench_range *ring;
	unsigned int i, b, slot = 0;
	u64 t0;

	ring = kcalloc(BENCH_RING, sizeof(*ring), GFP_KERNEL);
	if (!ring) {
		t->errors++;
		return;
	}
	for (i = 0; i < BENCH_RING; i++)
		bench_churn_alloc(x, t, &ring[i]);

	t0 = ktime_get_ns();
	while (!bench_stop(t)) {
		for (b = 0; b < BENCH_CHURN_BATCH; b++) {
			struct bench_range *r = &ring[slot];

			if (r->size && x->ops->free(x->ba, r))
				t->errors++;
			bench_churn_alloc(x, t, r);
			slot = (slot + 1) % BENCH_RING;
		}
		t->ops += BENCH_CHURN_BATCH;
		cond_resched();
	}
	t->ns = ktime_get_ns() - t0;

	for (i = 0; i < BENCH_RING; i++)
		if (ring[i].size && x->ops->free(x->ba, &ring[i]))
			t->errors++;
	kfree(ring);
}

/**
 * bench_alloc_churn() - the churn workload on every allocator given, at
 * each thread count, their rounds interleaved
 * @cfg:      thread counts, cell time, rounds, seed
 * @ops:      the allocators
 * @nr:       how many
 * @failures: incremented, with an error line, each time an allocator
 *            could not be built (once per thread count)
 *
 * Each thread count gets a fresh allocator of each kind; the cell's rounds
 * then run allocator after allocator (bench_cells_measure()).  Each round
 * leaves its allocator empty.
 *
 * Context: Process context; sleeps.
 * Return: 0, -ENOMEM if its own arrays could not be allocated, or -errno
 * if a cell could not be run (which ends the churn for every allocator).
 */
int bench_alloc_churn(const struct bench_config *cfg,
		      const struct bench_alloc_ops *const *ops, unsigned int nr,
		      unsigned int *failures)
{
	struct bench_alloc_ctx *x;
	struct bench_sum *medians;
	struct bench_cell *cell;
	unsigned int k, i;
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
	cell->body = bench_w_churn;
	for (k = 0; k < cfg->nr_threads && !ret; k++) {
		for (i = 0; i < nr; i++) {
			x[i] = (struct bench_alloc_ctx){ .ops = ops[i], .start = 1,
							 .end = BENCH_CHURN_END };
			x[i].ba = ops[i]->init(x[i].start, x[i].end);
			args[i] = &x[i];
			if (IS_ERR(x[i].ba)) {
				pr_err("%s: allocator init failed: %ld\n",
				       ops[i]->name, PTR_ERR(x[i].ba));
				bench_result_line("error workload=churn impl=%s items=0 ret=%ld",
						  ops[i]->name, PTR_ERR(x[i].ba));
				(*failures)++;
				args[i] = NULL;
			}
		}
		cell->threads = cfg->threads[k];
		ret = bench_cells_measure(cell, cfg, cfg->seed + 7 * k, args, nr,
					  medians);
		for (i = 0; i < nr; i++) {
			if (!args[i])
				continue;
			if (!ret)
				bench_result("churn", ops[i]->name, 0, &medians[i],
					     "ring=%u max_units=%u", BENCH_RING,
					     BENCH_CHURN_MAX);
			ops[i]->destroy(x[i].ba);
		}
	}
out:
	kfree(cell);
	kfree(medians);
	kfree(args);
	kfree(x);
	return ret;
}

static void bench_w_frag(struct bench_thread *t)
{
	struct bench_alloc_ctx *x = t->cell->arg;
	struct bench_range far;
	u64 t0, a0;
	int ret;

	t0 = ktime_get_ns();
	while (!bench_stop(t) || t->ops < BENCH_FRAG_MIN_OPS) {
		a0 = ktime_get_ns();
		ret = x->ops->alloc(x->ba, x->req_size, x->req_align, &far);
		t->aux_ns += ktime_get_ns() - a0;
		if (ret) {
			t->errors++;
		} else {
			if (far.start != x->gap)
				t->errors++;
			if (x->ops->free(x->ba, &far))
				t->errors++;
		}
		if (x->ops->free(x->ba, &x->near) ||
		    x->ops->reserve(x->ba, x->near.start, 1, &x->near)) {
			/* The layout is lost: stop here. */
			t->errors++;
			t->ops++;
			break;
		}
		t->ops++;
		cond_resched();
	}
	t->ns = ktime_get_ns() - t0;
}

/*
 * Lay out the fragmented space (see the top of the file), reserving in the
 * allocator's search direction, the filler last: the IOVA allocator then
 * finds each place right below its cached node.
 */
static int bench_frag_layout(struct bench_alloc_ctx *x, unsigned long n,
			     bool misaligned)
{
	const struct bench_alloc_ops *ops = x->ops;
	unsigned long j, pos, first, filler, filler_size, near;
	struct bench_range r;
	int ret;

	x->start = 1;
	x->req_size = misaligned ? 1 : BENCH_FRAG_REQ;
	x->req_align = BENCH_FRAG_REQ;
	if (ops->top_down) {
		first = misaligned ? 4 : 8;
		x->end = first + 2 * (n - 1) + 1;
		x->gap = misaligned ? 2 : 6;
		filler = 1;
		filler_size = misaligned ? 1 : 5;
		near = first + 2 * (n - 1);
	} else {
		first = misaligned ? 2 : 1;
		x->end = 2 * n + 4;
		x->gap = 2 * n + 2;
		filler = 2 * n;
		filler_size = misaligned ? 0 : 2;
		near = first;
	}
	x->ba = ops->init(x->start, x->end);
	if (IS_ERR(x->ba))
		return PTR_ERR(x->ba);
	for (j = 0; j < n; j++) {
		pos = ops->top_down ? first + 2 * (n - 1 - j) : first + 2 * j;
		ret = ops->reserve(x->ba, pos, 1, &r);
		if (ret) {
			pr_err("%s: frag: reserving unit %lu failed: %d\n",
			       ops->name, pos, ret);
			goto out;
		}
		if (pos == near)
			x->near = r;
		if (!(j % 1024))
			cond_resched();
	}
	ret = filler_size ? ops->reserve(x->ba, filler, filler_size, &r) : 0;
	if (ret) {
		pr_err("%s: frag: reserving [%lu, +%lu) failed: %d\n",
		       ops->name, filler, filler_size, ret);
		goto out;
	}
	return 0;
out:
	ops->destroy(x->ba);
	return ret;
}

/**
 * bench_alloc_frag() - a fragmented workload on one allocator
 * @cfg:        cell time, seed
 * @ops:        the allocator
 * @items:      live one-unit ranges to lay out
 * @misaligned: frag-align's layout (holes that fit the size and not the
 *              alignment) rather than frag's (holes too small)
 *
 * Context: Process context; sleeps.
 * Return: 0 or -errno.
 */
int bench_alloc_frag(const struct bench_config *cfg,
		     const struct bench_alloc_ops *ops, unsigned long items,
		     bool misaligned)
{
	struct bench_alloc_ctx x = { .ops = ops };
	struct bench_cell *cell;
	struct bench_sum sum;
	int ret;

	cell = kzalloc(sizeof(*cell), GFP_KERNEL);
	if (!cell)
		return -ENOMEM;
	ret = bench_frag_layout(&x, items, misaligned);
	if (ret)
		goto out;
	/* The layout's frees past a grace period are not the cell's. */
	rcu_barrier();
	cell->body = bench_w_frag;
	cell->arg = &x;
	cell->threads = 1;
	ret = bench_cell_measure(cell, cfg, cfg->seed, &sum);
	ops->destroy(x.ba);
	/* As after an index pass: the next cell should not pay for these. */
	rcu_barrier();
	if (ret)
		goto out;
	bench_result(misaligned ? "frag-align" : "frag", ops->name, items, &sum,
		     "ns_per_op=%llu alloc_ns=%llu direction=%s",
		     sum.ops ? div64_u64(sum.ns, sum.ops) : 0,
		     sum.ops ? div64_u64(sum.aux_ns, sum.ops) : 0,
		     ops->top_down ? "down" : "up");
out:
	kfree(cell);
	return ret;
}
