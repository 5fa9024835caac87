// SPDX-License-Identifier: GPL-2.0
/*
 * cache_bench: the block cache's hit path (lsm/block_cache.c) alone, on
 * the benchmarks' build of the store (-O2, SHIM_FAST, liburcu memb), to
 * choose between its two ways of handing a block to a reader:
 *
 *  - ref:  take a reference (one atomic increment), decode in place, put
 *          it (one atomic decrement): what the store does;
 *  - copy: the same lookup, then 4 KiB copied out to the reader's buffer,
 *          which is what a cache that hands out copies under its lock
 *          must do on every hit.
 *
 * Each thread looks up random blocks of a cache that holds all of them
 * (every lookup hits) and reads the block as a lookup does (the entry
 * header and the 32 bytes of one entry); with --threads 2 the two share
 * the cache, as two readers of one store do.  Prints the CPU time per
 * lookup (each thread's own clock: the figure a loaded machine disturbs
 * least) and the lookups per second for each way.
 *
 *   cache_bench [--threads N] [--seconds S] [--blocks N]
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/gfp.h>
#include <linux/rcupdate.h>
#include "block_cache.h"
#include "record.h"

static unsigned int nthreads = 1, blocks = 1024;
static double seconds = 1.0;
static struct lsm_block_cache *cache;
static struct lsm_cache_owner owner;
static volatile int stop;

struct worker {
	pthread_t thread;
	bool copy;
	unsigned long long seed, ops, sum;
	double cpu;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* This thread's CPU time: on a shared machine, what a lookup costs. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned long long x = w->seed | 1, sum = 0, ops = 0;
	static __thread unsigned char buf[LSM_BLOCK_SIZE];
	double c0;

	shim_rcu_register();
	c0 = cpu_now();
	while (!stop) {
		for (int i = 0; i < 256; i++) {
			struct lsm_cached_block *b;
			const unsigned char *p;
			unsigned int off;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			b = lsm_block_cache_lookup(cache, &owner, x % blocks,
						   LSM_CACHE_LOOKUP);
			if (!b)
				abort();
			p = lsm_cached_block_data(b);
			if (w->copy) {
				memcpy(buf, p, LSM_BLOCK_SIZE);
				lsm_cached_block_put(b);
				p = buf;
			}
			/* The header and one entry, as a lookup decodes. */
			off = 40 + (x >> 32) % 100 * 32;
			sum += p[0] + p[36] + p[off] + p[off + 31];
			if (!w->copy)
				lsm_cached_block_put(b);
		}
		ops += 256;
	}
	w->cpu = cpu_now() - c0;
	w->ops = ops;
	w->sum = sum;
	shim_rcu_unregister();
	return NULL;
}

static double run(bool copy)
{
	struct worker *w = calloc(nthreads, sizeof(*w));
	unsigned long long ops = 0;
	double t0, t, cpu = 0;
	unsigned int i;

	stop = 0;
	t0 = now();
	for (i = 0; i < nthreads; i++) {
		w[i].copy = copy;
		w[i].seed = 0x9e3779b97f4a7c15ULL * (i + 1);
		pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
	}
	while (now() - t0 < seconds)
		usleep(10000);
	stop = 1;
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].thread, NULL);
		ops += w[i].ops;
		cpu += w[i].cpu;
	}
	t = now() - t0;
	free(w);
	printf("%-4s %u thread%s: %6.1f ns of CPU per lookup, %6.2f M lookups/s (%.2f CPUs busy)\n",
	       copy ? "copy" : "ref", nthreads, nthreads > 1 ? "s" : "",
	       cpu * 1e9 / ops, ops / t / 1e6, cpu / t);
	return cpu / ops;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "blocks", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	double ref, copy;
	int c;

	while ((c = getopt_long(argc, argv, "t:s:b:", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			nthreads = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seconds = strtod(optarg, NULL);
			break;
		case 'b':
			blocks = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: cache_bench [--threads N] [--seconds S] [--blocks N]\n");
			return 2;
		}
	}
	if (!nthreads || !blocks)
		return 2;
	shim_rcu_register();
	cache = lsm_block_cache_create((unsigned long long)blocks * 8192, "bench");
	if (!cache)
		return 1;
	lsm_block_cache_owner_init(cache, &owner, blocks);
	for (unsigned int i = 0; i < blocks; i++) {
		struct lsm_cached_block *b = lsm_cached_block_alloc(GFP_KERNEL);

		if (!b)
			return 1;
		memset(lsm_cached_block_data(b), i, LSM_BLOCK_SIZE);
		lsm_cached_block_put(lsm_block_cache_insert(cache, &owner, i, b,
							    LSM_CACHE_LOOKUP));
	}
	printf("cache_bench: %u blocks of %u bytes in the cache, every lookup a hit, %.1f s per way\n",
	       blocks, LSM_BLOCK_SIZE, seconds);
	ref = run(false);
	copy = run(true);
	printf("copy/ref: %.2fx the CPU time per lookup\n", copy / ref);
	lsm_block_cache_drop(cache, &owner);
	lsm_block_cache_destroy(cache);
	shim_rcu_unregister();
	return 0;
}
