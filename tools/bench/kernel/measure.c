// SPDX-License-Identifier: GPL-2.0
/*
 * What both builds of the benchmark share above their threads (runner.c
 * runs a round on kthreads in the module, native/run_threads.c on POSIX
 * threads in the native program): the workloads' names, a cell's rounds
 * summed and reduced to their median, and the result lines that report
 * them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "bench.h"

const char *const bench_workload_names[BENCH_W_NR] = {
	[BENCH_W_LOOKUP] = "lookup",
	[BENCH_W_OVERLAP] = "overlap",
	[BENCH_W_RANGE] = "range16",
	[BENCH_W_SCAN] = "scan",
	[BENCH_W_MIX50] = "mix50",
	[BENCH_W_INSDEL] = "insdel",
	[BENCH_W_CHURN] = "churn",
	[BENCH_W_FRAG] = "frag",
	[BENCH_W_FRAG_ALIGN] = "frag-align",
};

static u64 bench_errors;

/**
 * bench_thread_init() - thread @i of a cell's round, cleared for the round
 * @cell: the cell
 * @i:    the thread's index
 * @seed: the round's seed
 *
 * Context: Before the round's threads start.
 * Return: the thread, its random stream seeded (never zero, different for
 * every thread and seed).
 */
struct bench_thread *bench_thread_init(struct bench_cell *cell,
				       unsigned int i, u64 seed)
{
	struct bench_thread *t = &cell->thread[i];

	memset(t, 0, sizeof(*t));
	t->cell = cell;
	t->id = i;
	t->rng = (seed + 1) * 0x9e3779b97f4a7c15ULL + i * 0x632be59bd9b4e019ULL;
	bench_rand(&t->rng);
	return t;
}

/* Add up what the threads of a cell measured in one round. */
static void bench_cell_sum(const struct bench_cell *cell, struct bench_sum *sum)
{
	unsigned int i;

	memset(sum, 0, sizeof(*sum));
	sum->threads = cell->threads;
	for (i = 0; i < cell->threads; i++) {
		const struct bench_thread *t = &cell->thread[i];

		sum->ops += t->ops;
		sum->ns = max(sum->ns, t->ns);
		sum->errors += t->errors;
		sum->misses += t->misses;
		sum->aux_ns += t->aux_ns;
	}
}

/* Operations per second of a measurement. */
u64 bench_sum_rate(const struct bench_sum *sum)
{
	if (!sum->ns)
		return 0;
	return mul_u64_u64_div_u64(sum->ops, NSEC_PER_SEC, sum->ns);
}

/* Run round @r of a cell and add up its threads. */
static int bench_cell_round(struct bench_cell *cell,
			    const struct bench_config *cfg, u64 seed,
			    unsigned int r, struct bench_sum *sum)
{
	int ret;

	cell->cell_ms = cfg->cell_ms;
	ret = bench_cell_run(cell, seed + r * 1000003ULL);
	if (ret)
		return ret;
	bench_cell_sum(cell, sum);
	return 0;
}

/*
 * The median round of @n (at least 1) by ops per second, with the slowest
 * and fastest rates and the errors of every round; sorts @sums by rate.
 */
static void bench_sum_median(struct bench_sum *sums, unsigned int n,
			     struct bench_sum *median)
{
	struct bench_sum tmp;
	unsigned int r, i;
	u64 errors = 0;

	for (r = 0; r < n; r++) {
		errors += sums[r].errors;
		/* Insertion sort by rate: a few rounds. */
		for (i = r; i > 0 && bench_sum_rate(&sums[i - 1]) >
				      bench_sum_rate(&sums[i]); i--) {
			tmp = sums[i];
			sums[i] = sums[i - 1];
			sums[i - 1] = tmp;
		}
	}
	*median = sums[n / 2];
	median->errors = errors;
	median->rounds = n;
	median->rate_min = bench_sum_rate(&sums[0]);
	median->rate_max = bench_sum_rate(&sums[n - 1]);
}

/**
 * bench_cells_measure() - one cell on several peers, rounds interleaved
 * @cell:    body and threads filled in; its arg is set to each peer's in
 *           turn
 * @cfg:     cell time, rounds
 * @seed:    seeds the first round; each round gets its own, the same for
 *           every peer
 * @args:    each peer's arg for the body, NULL for a peer that sits out
 * @nr:      peers
 * @medians: each running peer's median round by ops per second, with the
 *           slowest and fastest rates and the errors of every round
 *
 * Round 1 runs on every peer, then round 2 on every peer, and so on: the
 * host's speed drifts by tens of percent over minutes on these shared,
 * emulated machines, and run back to back a peer's figure would carry the
 * drift of its own turn, and a ratio the drift between two turns.
 *
 * Context: Process context; sleeps for about rounds * cell_ms per peer.
 * Return: 0, -ENOMEM, or -errno if a thread could not be created.
 */
int bench_cells_measure(struct bench_cell *cell, const struct bench_config *cfg,
			u64 seed, void *const *args, unsigned int nr,
			struct bench_sum *medians)
{
	unsigned int n = clamp(cfg->rounds, 1U, (unsigned int)BENCH_MAX_ROUNDS);
	struct bench_sum *sums;
	unsigned int r, i;
	int ret = 0;

	sums = kcalloc(nr * n, sizeof(*sums), GFP_KERNEL);
	if (!sums)
		return -ENOMEM;
	for (r = 0; r < n; r++) {
		for (i = 0; i < nr; i++) {
			if (!args[i])
				continue;
			cell->arg = args[i];
			ret = bench_cell_round(cell, cfg, seed, r,
					       &sums[i * n + r]);
			if (ret)
				goto out;
		}
	}
	for (i = 0; i < nr; i++)
		if (args[i])
			bench_sum_median(&sums[i * n], n, &medians[i]);
out:
	kfree(sums);
	return ret;
}

/**
 * bench_cell_measure() - run a cell's rounds on one peer and take the median
 * @cell:   body, arg and threads filled in
 * @cfg:    cell time, rounds
 * @seed:   seeds the first round; each round gets its own
 * @median: see bench_cells_measure()
 *
 * For the frag workload, whose peers each hold a layout of up to a
 * million ranges of their own and so run one at a time.
 *
 * Context: Process context; sleeps for about rounds * cell_ms.
 * Return: 0, -ENOMEM, or -errno if a thread could not be created.
 */
int bench_cell_measure(struct bench_cell *cell, const struct bench_config *cfg,
		       u64 seed, struct bench_sum *median)
{
	void *arg = cell->arg;

	return bench_cells_measure(cell, cfg, seed, &arg, 1, median);
}

/**
 * bench_result() - one result line
 * @workload:  the workload's name
 * @impl:      the peer's name
 * @items:     extents preloaded (0 where the workload has none)
 * @sum:       what the cell measured
 * @extra_fmt: further "key=value" fields, or NULL
 *
 * Context: Process context, between cells.
 */
void bench_result(const char *workload, const char *impl,
		  unsigned long items, const struct bench_sum *sum,
		  const char *extra_fmt, ...)
{
	char extra[BENCH_LINE_MAX / 2] = "", head[BENCH_LINE_MAX / 2];
	char rates[BENCH_LINE_MAX / 2];
	va_list args;
	u64 rate;

	if (extra_fmt) {
		extra[0] = ' ';
		va_start(args, extra_fmt);
		vscnprintf(extra + 1, sizeof(extra) - 1, extra_fmt, args);
		va_end(args);
	}
	rate = bench_sum_rate(sum);
	bench_errors += sum->errors;
	scnprintf(head, sizeof(head), "result workload=%s impl=%s items=%lu threads=%u",
		  workload, impl, items, sum->threads);
	scnprintf(rates, sizeof(rates), "ops=%llu ns=%llu ops_per_sec=%llu rounds=%u",
		  sum->ops, sum->ns, rate, sum->rounds);
	bench_result_line("%s %s min=%llu max=%llu errors=%llu misses=%llu%s",
			  head, rates, sum->rate_min, sum->rate_max,
			  sum->errors, sum->misses, extra);
}

/* Errors in all results so far. */
u64 bench_result_errors(void)
{
	return bench_errors;
}
