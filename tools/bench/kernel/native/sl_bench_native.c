// SPDX-License-Identifier: GPL-2.0
/*
 * sl_bench_native: the allocator workloads of sl_bench.ko (alloc_work.c,
 * churn, frag and frag-align), with the module's own allocator files (alloc_skiplist.c,
 * alloc_rbtree.c, alloc_iova.c), built as one userspace program instead of
 * a module: the skiplist's allocator on the skiplist's userspace shim (fast
 * flavour), the kernel's IOVA allocator (drivers/iommu/iova.c from Debian's
 * linux-source-6.1, compiled at build time) on the same shim, so that both
 * run natively side by side, where the module can only run under
 * emulation here.  The maple tree is not in it: that backend needs the
 * kernel's maple tree API in the same build (bench_user compares the maple
 * tree's lookups natively).
 *
 * It prints the module's result lines on standard output, so report.py
 * turns them into the same tables:
 *
 *   sl_bench_native [--allocators a,b] [--workloads churn,frag,frag-align]
 *                   [--items n,n] [--threads t,t] [--cell-ms ms]
 *                   [--rounds r] [--seed s]
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "bench.h"

static const struct bench_alloc_ops *const bench_all_allocators[] = {
	&bench_alloc_skiplist,
	&bench_alloc_skiplist_cache,
	&bench_alloc_rbtree,
	&bench_alloc_iova,
	&bench_alloc_iova_fast,
};

#define BENCH_MAX_SIZES	8

static __attribute__((noreturn)) void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: sl_bench_native [--allocators skiplist,skiplist-cache,rbtree,iova,iova-fast]\n"
		"                       [--workloads churn,frag,frag-align] [--items 1024,1048576]\n"
		"                       [--threads 1,2] [--cell-ms 300] [--rounds 3] [--seed 1]\n");
	exit(status);
}

static __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
	va_list args;

	fprintf(stderr, "sl_bench_native: ");
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fputc('\n', stderr);
	exit(2);
}

/* A comma-separated list of numbers from @min to @max; returns how many. */
static unsigned int parse_numbers(const char *opt, const char *arg,
				  unsigned long *vals, unsigned int max_nr,
				  unsigned long min, unsigned long max)
{
	char *copy = strdup(arg), *rest = copy, *field, *end;
	unsigned int nr = 0;

	while ((field = strsep(&rest, ","))) {
		unsigned long v = strtoul(field, &end, 0);

		if (!*field || *end || v < min || v > max)
			die("--%s: \"%s\" is not a number from %lu to %lu",
			    opt, field, min, max);
		if (nr == max_nr)
			die("--%s: more than %u values", opt, max_nr);
		vals[nr++] = v;
	}
	free(copy);
	return nr;
}

static unsigned int parse_names(const char *opt, const char *arg,
				const char *const *names, unsigned int nr)
{
	char *copy = strdup(arg), *rest = copy, *field;
	unsigned int mask = 0, i;

	while ((field = strsep(&rest, ","))) {
		for (i = 0; i < nr; i++)
			if (names[i] && !strcmp(field, names[i]))
				break;
		if (i == nr)
			die("--%s: unknown name \"%s\"", opt, field);
		mask |= BIT(i);
	}
	free(copy);
	return mask;
}

void bench_result_line(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	putchar('\n');
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "allocators", required_argument, NULL, 'a' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "items", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 't' },
		{ "cell-ms", required_argument, NULL, 'c' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *names[ARRAY_SIZE(bench_all_allocators)];
	unsigned long sizes[BENCH_MAX_SIZES] = { 1024, 1048576 };
	unsigned long vals[BENCH_MAX_THREADS], v;
	unsigned int nr_sizes = 2, alloc_mask, workload_mask, i, s, failures = 0;
	struct bench_config cfg = { .cell_ms = 300, .rounds = 3, .seed = 1 };
	struct utsname uts;
	u64 t0;
	int c, ret;

	for (i = 0; i < ARRAY_SIZE(bench_all_allocators); i++)
		names[i] = bench_all_allocators[i]->name;
	alloc_mask = BIT(ARRAY_SIZE(bench_all_allocators)) - 1;
#define NATIVE_WORKLOADS (BIT(BENCH_W_CHURN) | BIT(BENCH_W_FRAG) | \
			  BIT(BENCH_W_FRAG_ALIGN))
	workload_mask = NATIVE_WORKLOADS;
	cfg.threads[0] = 1;
	cfg.threads[1] = sysconf(_SC_NPROCESSORS_ONLN);
	cfg.nr_threads = cfg.threads[1] > 1 ? 2 : 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			alloc_mask = parse_names("allocators", optarg, names,
						 ARRAY_SIZE(names));
			break;
		case 'w':
			workload_mask = parse_names("workloads", optarg,
						    bench_workload_names,
						    BENCH_W_NR);
			if (workload_mask & ~NATIVE_WORKLOADS)
				die("--workloads: only churn, frag and frag-align run natively");
			break;
		case 'n':
			nr_sizes = parse_numbers("items", optarg, sizes,
						 BENCH_MAX_SIZES, 64, BIT(22));
			break;
		case 't':
			cfg.nr_threads = parse_numbers("threads", optarg, vals,
						       BENCH_MAX_THREADS, 1,
						       BENCH_MAX_THREADS);
			for (i = 0; i < cfg.nr_threads; i++)
				cfg.threads[i] = vals[i];
			break;
		case 'c':
			parse_numbers("cell-ms", optarg, &v, 1, 1, 60000);
			cfg.cell_ms = v;
			break;
		case 'r':
			parse_numbers("rounds", optarg, &v, 1, 1, BENCH_MAX_ROUNDS);
			cfg.rounds = v;
			break;
		case 's':
			parse_numbers("seed", optarg, &v, 1, 0, ULONG_MAX);
			cfg.seed = v;
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind != argc)
		usage(2);

	shim_rcu_register();
	/* skiplist.ko's and sl_extent.ko's init: the leaf caches. */
	if (shim_modules_load())
		die("the skiplist's module init failed");
	uname(&uts);
	t0 = ktime_get_ns();
	bench_result_line("machine kernel=%s vcpus=%ld cell_ms=%u rounds=%u seed=%llu native=1",
			  uts.release, sysconf(_SC_NPROCESSORS_ONLN),
			  cfg.cell_ms, cfg.rounds, cfg.seed);
	for (s = 0; s < nr_sizes; s++) {
		for (i = 0; i < ARRAY_SIZE(bench_all_allocators); i++) {
			const struct bench_alloc_ops *ops = bench_all_allocators[i];
			int misaligned;

			if (!(alloc_mask & BIT(i)) || ops->churn_only)
				continue;
			for (misaligned = 0; misaligned < 2; misaligned++) {
				unsigned int w = misaligned ? BENCH_W_FRAG_ALIGN :
					BENCH_W_FRAG;

				if (!(workload_mask & BIT(w)) ||
				    (misaligned && ops->size_align_only))
					continue;
				ret = bench_alloc_frag(&cfg, ops, sizes[s], misaligned);
				if (ret) {
					failures++;
					bench_result_line("error workload=%s impl=%s items=%lu ret=%d",
							  bench_workload_names[w],
							  ops->name, sizes[s], ret);
				}
			}
		}
	}
	if (workload_mask & BIT(BENCH_W_CHURN)) {
		const struct bench_alloc_ops *allocators[ARRAY_SIZE(bench_all_allocators)];
		unsigned int nr = 0;

		for (i = 0; i < ARRAY_SIZE(bench_all_allocators); i++)
			if (alloc_mask & BIT(i))
				allocators[nr++] = bench_all_allocators[i];
		ret = nr ? bench_alloc_churn(&cfg, allocators, nr, &failures) : 0;
		if (ret) {
			failures++;
			bench_result_line("error workload=churn impl=all items=0 ret=%d",
					  ret);
		}
	}
	bench_result_line("done failures=%u errors=%llu seconds=%llu", failures,
			  bench_result_errors(), (ktime_get_ns() - t0) / NSEC_PER_SEC);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	return failures || bench_result_errors();
}
