/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The latency histogram of the extent benchmarks' drivers: lsm_bench
 * (C) and rocksdb_extent_bench (C++) record and print their latencies
 * with this one header, so that a percentile means the same thing in
 * both columns of a table.  db_bench's own histogram (the other drivers'
 * peer) has wider buckets; its percentiles interpolate within them as
 * these do.
 *
 * Nanoseconds in buckets of 1/64 of a power of two (under 1.6% wide),
 * exact below 128 ns.  Not thread-safe: one per thread, merged at the end.
 */
#ifndef LSM_BENCH_HIST_H
#define LSM_BENCH_HIST_H

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_SUB	64
#define HIST_BUCKETS	(128 + 57 * HIST_SUB)

struct hist {
	uint64_t count, sum_ns, min_ns, max_ns;
	double sum_sq;
	uint64_t bucket[HIST_BUCKETS];
};

static inline unsigned int hist_index(uint64_t ns)
{
	int e;

	if (ns < 128)
		return ns;
	e = 63 - __builtin_clzll(ns);
	return 128 + (e - 7) * HIST_SUB + ((ns >> (e - 6)) & (HIST_SUB - 1));
}

static inline void hist_bounds(unsigned int i, double *lo, double *hi)
{
	unsigned int e, sub;

	if (i < 128) {
		*lo = i;
		*hi = i + 1;
		return;
	}
	e = (i - 128) / HIST_SUB + 7;
	sub = (i - 128) % HIST_SUB;
	*lo = (double)(HIST_SUB + sub) * (double)(1ULL << (e - 6));
	*hi = *lo + (double)(1ULL << (e - 6));
}

static inline void hist_add(struct hist *h, uint64_t ns)
{
	h->count++;
	h->sum_ns += ns;
	h->sum_sq += (double)ns * ns;
	if (ns < h->min_ns || h->count == 1)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->bucket[hist_index(ns)]++;
}

static inline void hist_merge(struct hist *to, const struct hist *from)
{
	unsigned int i;

	if (!from->count)
		return;
	if (!to->count || from->min_ns < to->min_ns)
		to->min_ns = from->min_ns;
	if (from->max_ns > to->max_ns)
		to->max_ns = from->max_ns;
	to->count += from->count;
	to->sum_ns += from->sum_ns;
	to->sum_sq += from->sum_sq;
	for (i = 0; i < HIST_BUCKETS; i++)
		to->bucket[i] += from->bucket[i];
}

/* The @p-th percentile, in microseconds. */
static inline double hist_pct(const struct hist *h, double p)
{
	double want = h->count * p / 100, seen = 0, lo, hi;
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		if (seen + h->bucket[i] >= want) {
			hist_bounds(i, &lo, &hi);
			if (hi > h->max_ns + 1)
				hi = h->max_ns + 1;
			return (lo + (hi - lo) * (want - seen) / h->bucket[i]) / 1e3;
		}
		seen += h->bucket[i];
	}
	return h->max_ns / 1e3;
}

/* db_bench's lines, which tools/bench/lsm/run.py parses. */
static inline void hist_print(const struct hist *h, int writes)
{
	double avg = h->count ? (double)h->sum_ns / h->count : 0;
	double var = h->count ? h->sum_sq / h->count - avg * avg : 0;

	printf("Microseconds per %s:\n", writes ? "write" : "read");
	printf("Count: %" PRIu64 " Average: %.4f  StdDev: %.2f\n", h->count,
	       avg / 1e3, sqrt(var > 0 ? var : 0) / 1e3);
	printf("Min: %.3f  Median: %.4f  Max: %.3f\n", h->min_ns / 1e3,
	       hist_pct(h, 50), h->max_ns / 1e3);
	printf("Percentiles: P50: %.2f P75: %.2f P99: %.2f P99.9: %.2f P99.99: %.2f\n",
	       hist_pct(h, 50), hist_pct(h, 75), hist_pct(h, 99),
	       hist_pct(h, 99.9), hist_pct(h, 99.99));
	printf("------------------------------------------------------\n");
}

#endif /* LSM_BENCH_HIST_H */
