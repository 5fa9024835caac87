// SPDX-License-Identifier: GPL-2.0
/*
 * sl_bench.ko: the in-kernel benchmark of the skiplist and its range
 * allocator against the kernel's own structures.  Loading it runs the
 * whole matrix the parameters select, then stays loaded so that
 * /sys/kernel/debug/sl_bench/results can be read; every line is in the
 * kernel log as well.  Unload it to free the results.  Bad parameters
 * refuse the load with -EINVAL; a failed cell is an "error" line and
 * counts in the closing "done" line, which a script should check.
 *
 * See tools/bench/kernel/README for the workloads and the result format.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include "bench.h"

static char *indexes = "skiplist,rbtree-spin,rbtree-rw,maple,xarray";
module_param(indexes, charp, 0444);
MODULE_PARM_DESC(indexes,
		 "Indexes to run, comma-separated, from skiplist, rbtree-spin, rbtree-rw, maple, xarray; \"none\" for none");

static char *allocators = "skiplist,skiplist-cache,rbtree,maple,iova,iova-fast";
module_param(allocators, charp, 0444);
MODULE_PARM_DESC(allocators,
		 "Allocators to run, comma-separated, from skiplist, skiplist-cache (churn only), rbtree, maple, iova, iova-fast; \"none\" for none");

static char *workloads = "lookup,overlap,range16,scan,mix50,insdel,churn,frag,frag-align";
module_param(workloads, charp, 0444);
MODULE_PARM_DESC(workloads,
		 "Workloads, comma-separated: index workloads lookup, overlap, range16, scan, mix50, insdel; allocator workloads churn, frag, frag-align");

static char *keysets = "even,uniform,extents,clustered,geometric";
module_param(keysets, charp, 0444);
MODULE_PARM_DESC(keysets,
		 "Key sets the index workloads run on, comma-separated, from even, uniform, extents, clustered, geometric");

static char *keyset_workloads = "lookup,range16,mix50";
module_param(keyset_workloads, charp, 0444);
MODULE_PARM_DESC(keyset_workloads,
		 "The index workloads (of those selected) that run on every key set but even, comma-separated; the even set runs them all");

static char *items = "1024,65536,1048576";
module_param(items, charp, 0444);
MODULE_PARM_DESC(items,
		 "Extents preloaded into each index, and live ranges in the frag workload, comma-separated (64 to 4194304 each)");

static char *threads = "";
module_param(threads, charp, 0444);
MODULE_PARM_DESC(threads,
		 "Kthread counts, comma-separated (1 to 64 each; frag always runs one); default 1 and the number of online CPUs");

static unsigned int cell_ms = 300;
module_param(cell_ms, uint, 0444);
MODULE_PARM_DESC(cell_ms, "Milliseconds each round of a cell runs (1 to 60000; default 300)");

static unsigned int rounds = 3;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "Rounds of each cell; the median is reported (1 to 9; default 3)");

static ulong seed = 1;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "Seed of every random choice (default 1)");

#define BENCH_MAX_SIZES	8
#define BENCH_MIN_ITEMS	BENCH_MAX_THREADS
#define BENCH_MAX_ITEMS	BIT(22)

static const struct bench_index_ops *const bench_all_indexes[] = {
	&bench_index_skiplist,
	&bench_index_rbtree_spin,
	&bench_index_rbtree_rw,
	&bench_index_maple,
	&bench_index_xarray,
};

static const struct bench_alloc_ops *const bench_all_allocators[] = {
	&bench_alloc_skiplist,
	&bench_alloc_skiplist_cache,
	&bench_alloc_rbtree,
	&bench_alloc_maple,
	&bench_alloc_iova,
	&bench_alloc_iova_fast,
};

/* What the parameters asked for, once checked. */
struct bench_plan {
	struct bench_config cfg;
	unsigned int index_mask;
	unsigned int alloc_mask;
	unsigned int workload_mask;
	unsigned int keyset_mask;
	unsigned int keyset_workload_mask;	/* on sets but even */
	unsigned long sizes[BENCH_MAX_SIZES];
	unsigned int nr_sizes;
};

/*
 * Split a comma-separated parameter and hand each field to @one; a copy is
 * split, since the parameter stays visible in sysfs.
 */
static int bench_parse_list(const char *param, const char *value,
			    int (*one)(const char *param, const char *field,
				       void *arg),
			    void *arg)
{
	char *copy, *rest, *field;
	int ret = 0;

	copy = kstrdup(value, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	rest = copy;
	while ((field = strsep(&rest, ","))) {
		field = strim(field);
		if (!*field) {
			pr_err("%s=\"%s\": empty field\n", param, value);
			ret = -EINVAL;
			break;
		}
		ret = one(param, field, arg);
		if (ret)
			break;
	}
	kfree(copy);
	return ret;
}

struct bench_names {
	const char *const *names;
	unsigned int nr;
	unsigned int mask;
};

static int bench_parse_name(const char *param, const char *field, void *arg)
{
	struct bench_names *n = arg;
	unsigned int i;

	if (!strcmp(field, "none"))
		return 0;
	for (i = 0; i < n->nr; i++) {
		if (!strcmp(field, n->names[i])) {
			n->mask |= BIT(i);
			return 0;
		}
	}
	pr_err("%s: unknown name \"%s\"\n", param, field);
	return -EINVAL;
}

struct bench_numbers {
	unsigned long *vals;
	unsigned int max_nr;
	unsigned int nr;
	unsigned long min;
	unsigned long max;
};

static int bench_parse_number(const char *param, const char *field, void *arg)
{
	struct bench_numbers *n = arg;
	unsigned long v;
	unsigned int i;

	if (kstrtoul(field, 0, &v) || v < n->min || v > n->max) {
		pr_err("%s: \"%s\" is not a number from %lu to %lu\n",
		       param, field, n->min, n->max);
		return -EINVAL;
	}
	for (i = 0; i < n->nr; i++)
		if (n->vals[i] == v)
			return 0;	/* a repeat runs once */
	if (n->nr == n->max_nr) {
		pr_err("%s: more than %u values\n", param, n->max_nr);
		return -EINVAL;
	}
	n->vals[n->nr++] = v;
	return 0;
}

static int bench_parse_names(const char *param, const char *value,
			     const char *const *names, unsigned int nr,
			     unsigned int *mask)
{
	struct bench_names n = { .names = names, .nr = nr };
	int ret = bench_parse_list(param, value, bench_parse_name, &n);

	*mask = n.mask;
	return ret;
}

static int bench_parse(struct bench_plan *plan)
{
	const char *names[BENCH_W_NR];
	unsigned long vals[BENCH_MAX_THREADS];
	struct bench_numbers nums;
	unsigned int i;
	int ret;

	BUILD_BUG_ON(ARRAY_SIZE(bench_all_indexes) > ARRAY_SIZE(names));
	BUILD_BUG_ON(ARRAY_SIZE(bench_all_allocators) > ARRAY_SIZE(names));
	for (i = 0; i < ARRAY_SIZE(bench_all_indexes); i++)
		names[i] = bench_all_indexes[i]->name;
	ret = bench_parse_names("indexes", indexes, names,
				ARRAY_SIZE(bench_all_indexes), &plan->index_mask);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(bench_all_allocators); i++)
		names[i] = bench_all_allocators[i]->name;
	ret = bench_parse_names("allocators", allocators, names,
				ARRAY_SIZE(bench_all_allocators),
				&plan->alloc_mask);
	if (ret)
		return ret;
	ret = bench_parse_names("workloads", workloads, bench_workload_names,
				BENCH_W_NR, &plan->workload_mask);
	if (ret)
		return ret;
	ret = bench_parse_names("keyset_workloads", keyset_workloads,
				bench_workload_names, BENCH_W_NR,
				&plan->keyset_workload_mask);
	if (ret)
		return ret;
	plan->keyset_workload_mask &= plan->workload_mask;
	BUILD_BUG_ON(ARRAY_SIZE(names) < BENCH_KS_NR);
	for (i = 0; i < BENCH_KS_NR; i++)
		names[i] = bench_keyset_name(i);
	ret = bench_parse_names("keysets", keysets, names, BENCH_KS_NR,
				&plan->keyset_mask);
	if (ret)
		return ret;

	nums = (struct bench_numbers){ .vals = plan->sizes,
		.max_nr = BENCH_MAX_SIZES, .min = BENCH_MIN_ITEMS,
		.max = BENCH_MAX_ITEMS };
	ret = bench_parse_list("items", items, bench_parse_number, &nums);
	if (ret)
		return ret;
	plan->nr_sizes = nums.nr;

	nums = (struct bench_numbers){ .vals = vals,
		.max_nr = BENCH_MAX_THREADS, .min = 1,
		.max = BENCH_MAX_THREADS };
	if (*threads) {
		ret = bench_parse_list("threads", threads, bench_parse_number,
				       &nums);
		if (ret)
			return ret;
	} else {
		vals[nums.nr++] = 1;
		if (num_online_cpus() > 1)
			vals[nums.nr++] = min(num_online_cpus(),
					      (unsigned int)BENCH_MAX_THREADS);
	}
	for (i = 0; i < nums.nr; i++)
		plan->cfg.threads[i] = vals[i];
	plan->cfg.nr_threads = nums.nr;

	if (cell_ms < 1 || cell_ms > 60000) {
		pr_err("cell_ms=%u: must be from 1 to 60000\n", cell_ms);
		return -EINVAL;
	}
	plan->cfg.cell_ms = cell_ms;
	if (rounds < 1 || rounds > BENCH_MAX_ROUNDS) {
		pr_err("rounds=%u: must be from 1 to %u\n", rounds,
		       BENCH_MAX_ROUNDS);
		return -EINVAL;
	}
	plan->cfg.rounds = rounds;
	plan->cfg.seed = seed;
	return 0;
}

/* Result lines the plan will print, to size the buffer. */
static size_t bench_plan_lines(const struct bench_plan *p)
{
	size_t per_size = hweight32(p->index_mask) * hweight32(p->keyset_mask) *
		(1 + hweight32(p->workload_mask) * p->cfg.nr_threads) +
		2 * hweight32(p->alloc_mask);

	return per_size * p->nr_sizes +
		hweight32(p->alloc_mask) * p->cfg.nr_threads + 16;
}

/**
 * bench_failed() - report a peer that could not be measured
 * @failures: the run's count of them, incremented
 * @what:     the workload, or "index" for an index that could not be built
 * @impl:     the peer
 * @n:        items
 * @ret:      the -errno
 *
 * Context: Process context, between cells.
 */
void bench_failed(unsigned int *failures, const char *what,
		  const char *impl, unsigned long n, int ret)
{
	(*failures)++;
	bench_result_line("error workload=%s impl=%s items=%lu ret=%d",
			  what, impl, n, ret);
}

static void bench_run(const struct bench_plan *p)
{
	const struct bench_alloc_ops *allocators[ARRAY_SIZE(bench_all_allocators)];
	const struct bench_index_ops *indexes[ARRAY_SIZE(bench_all_indexes)];
	unsigned int s, i, ks, nr, failures = 0;
	u64 t0 = ktime_get_ns();
	int ret;

	bench_result_line("machine kernel=%s vcpus=%u cell_ms=%u rounds=%u seed=%llu",
			  utsname()->release, num_online_cpus(),
			  p->cfg.cell_ms, p->cfg.rounds, p->cfg.seed);
	for (s = 0; s < p->nr_sizes; s++) {
		unsigned long n = p->sizes[s];

		for (ks = 0; ks < BENCH_KS_NR; ks++) {
			unsigned int wl = ks == BENCH_KS_EVEN ? p->workload_mask :
					  p->keyset_workload_mask;

			if (!(p->keyset_mask & BIT(ks)))
				continue;
			for (i = 0, nr = 0; i < ARRAY_SIZE(bench_all_indexes); i++)
				if ((p->index_mask & BIT(i)) &&
				    (wl & bench_all_indexes[i]->workloads) &&
				    (ks == BENCH_KS_EVEN ||
				     !bench_all_indexes[i]->even_only))
					indexes[nr++] = bench_all_indexes[i];
			if (!nr)
				continue;
			ret = bench_indexes_run(&p->cfg, indexes, nr, ks, n, wl,
						&failures);
			if (ret)
				bench_failed(&failures, "index", "all", n, ret);
		}
		for (i = 0; i < ARRAY_SIZE(bench_all_allocators); i++) {
			const struct bench_alloc_ops *ops = bench_all_allocators[i];

			if (!(p->alloc_mask & BIT(i)) || ops->churn_only)
				continue;
			if (p->workload_mask & BIT(BENCH_W_FRAG)) {
				ret = bench_alloc_frag(&p->cfg, ops, n, false);
				if (ret)
					bench_failed(&failures, "frag",
						     ops->name, n, ret);
			}
			if ((p->workload_mask & BIT(BENCH_W_FRAG_ALIGN)) &&
			    !ops->size_align_only) {
				ret = bench_alloc_frag(&p->cfg, ops, n, true);
				if (ret)
					bench_failed(&failures, "frag-align",
						     ops->name, n, ret);
			}
		}
	}
	/* Churn does not depend on the item count: once per load. */
	if (p->workload_mask & BIT(BENCH_W_CHURN)) {
		for (i = 0, nr = 0; i < ARRAY_SIZE(bench_all_allocators); i++)
			if (p->alloc_mask & BIT(i))
				allocators[nr++] = bench_all_allocators[i];
		ret = nr ? bench_alloc_churn(&p->cfg, allocators, nr,
					     &failures) : 0;
		if (ret)
			bench_failed(&failures, "churn", "all", 0, ret);
	}
	bench_result_line("done failures=%u errors=%llu seconds=%llu",
			  failures, bench_result_errors(),
			  div_u64(ktime_get_ns() - t0, NSEC_PER_SEC));
}

static int __init sl_bench_init(void)
{
	struct bench_plan *plan;
	int ret;

	plan = kzalloc(sizeof(*plan), GFP_KERNEL);
	if (!plan)
		return -ENOMEM;
	ret = bench_parse(plan);
	if (ret)
		goto out;
	ret = bench_results_init(bench_plan_lines(plan));
	if (ret)
		goto out;
	bench_run(plan);
out:
	kfree(plan);
	return ret;
}

static void __exit sl_bench_exit(void)
{
	bench_results_exit();
}

module_init(sl_bench_init);
module_exit(sl_bench_exit);
MODULE_DESCRIPTION("In-kernel benchmark: the RCU skiplist and its range allocator against rbtree, maple tree, XArray and IOVA");
MODULE_LICENSE("GPL");
MODULE_AUTHOR("Seed 86df1db9 maintainers <maintainers@users.noreply.a-seed-86df1db9.example>");
MODULE_VERSION(SL_VERSION);
