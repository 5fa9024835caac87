// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs_dump DIR: what the modules' own code publishes in debugfs, run
 * on the shims, written under DIR as a copy of debugfs
 * (shim_debugfs_dump()), for tools/slctl/test-top.sh to run slctl top on:
 *  - skiplist/dump-list/stats: a list of LIST_ITEMS extents;
 *  - skiplist/dump-alloc/{alloc,index/stats}: a range allocator with
 *    per-CPU caches after ALLOCS allocations, FREES frees and AGAIN more
 *    allocations of one size.
 * It prints what slctl top must show of them, one "name value" a line:
 * the counts it made, and the caches' hits and misses as their events
 * (trace/events/sl_extent.h) counted them, apart from the counters
 * debugfs shows.
 */
#include <linux/debugfs.h>
#include "skiplist.h"
#include "range_alloc.h"
#include <trace/events/sl_extent.h>

#define LIST_ITEMS	1000
#define ALLOCS		100
#define FREES		60
#define AGAIN		30
#define SIZE		8

static struct sl_slot slots[LIST_ITEMS];

int main(int argc, char **argv)
{
	unsigned long start[ALLOCS + AGAIN];
	struct sl_range_alloc ra;
	struct sl_list list;
	unsigned long i;
	int ret = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: debugfs_dump DIR\n");
		return 2;
	}
	shim_rcu_register();
	if (shim_modules_load())
		goto out;
	if (sl_init(&list, GFP_KERNEL) ||
	    sl_range_init(&ra, 0, 1 << 20, SL_RANGE_CACHE, GFP_KERNEL))
		goto out;
	for (i = 0; i < LIST_ITEMS; i++) {
		slots[i].key = 4 * i;
		slots[i].size = 2;
		if (sl_insert(&list, &slots[i], GFP_KERNEL))
			goto out;
	}
	if (sl_debugfs_add(&list, NULL, "dump-list") ||
	    sl_range_debugfs_add(&ra, NULL, "dump-alloc"))
		goto out;
	shim_trace_start();
	for (i = 0; i < ALLOCS; i++)
		if (sl_range_alloc_cpu(&ra, SIZE, 1, &start[i], GFP_KERNEL))
			goto out;
	for (i = 0; i < FREES; i++)
		if (sl_range_free(&ra, start[i], SIZE))
			goto out;
	for (i = 0; i < AGAIN; i++)
		if (sl_range_alloc_cpu(&ra, SIZE, 1, &start[ALLOCS + i],
				       GFP_KERNEL))
			goto out;
	shim_trace_stop();
	if (shim_debugfs_dump(argv[1])) {
		fprintf(stderr, "debugfs_dump: cannot write %s\n", argv[1]);
		goto out;
	}
	printf("items %d\n", LIST_ITEMS);
	printf("ranges %d\n", ALLOCS - FREES + AGAIN);
	printf("free %lu\n", (1UL << 20) - (ALLOCS - FREES + AGAIN) * SIZE);
	printf("cache_hits %lu\n", shim_trace_count(sl_range_cache_hit));
	printf("cache_misses %lu\n", shim_trace_count(sl_range_cache_miss));
	ret = 0;
	sl_range_destroy(&ra);
	sl_destroy(&list, NULL, NULL);
out:
	shim_modules_unload();
	rcu_barrier();
	shim_rcu_unregister();
	if (ret)
		fprintf(stderr, "debugfs_dump: FAIL\n");
	return ret;
}
