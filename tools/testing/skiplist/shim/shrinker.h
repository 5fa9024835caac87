/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shrinkers as the kernel has them since 6.7 (shrinker_alloc(),
 * shrinker_register(), shrinker_free()), and memory pressure to call
 * them.
 *
 * The kernel calls a shrinker from reclaim, at any time, on any thread,
 * concurrently with everything its owner does; here a test calls
 * shim_shrink_slab() or shim_drop_slab() (what "echo 2 >
 * /proc/sys/vm/drop_caches" does) from any thread, as often as it likes.
 * Both follow the kernel's do_shrink_slab(): count, then scans of at
 * most a batch (128) each, until the number of objects the priority asks
 * for has been scanned.  Checked: a shrinker registered twice, or freed
 * while a scan of it runs (shrinker_free() waits for running scans as the
 * kernel's does), a pass started inside an RCU reader or under a
 * spinlock, and a scan that returns with a spinlock held.
 */
#ifndef _SHIM_SHRINKER_H
#define _SHIM_SHRINKER_H

#include "base.h"

struct mem_cgroup;

struct shrink_control {
	gfp_t gfp_mask;
	int nid;
	unsigned long nr_to_scan;
	unsigned long nr_scanned;
	struct mem_cgroup *memcg;
};

#define SHRINK_STOP	(~0UL)
#define SHRINK_EMPTY	(~0UL - 1)
#define DEFAULT_SEEKS	2
#define SHRINK_BATCH	128

struct shrinker {
	unsigned long (*count_objects)(struct shrinker *shrinker,
				       struct shrink_control *sc);
	unsigned long (*scan_objects)(struct shrinker *shrinker,
				      struct shrink_control *sc);
	long batch;
	int seeks;
	unsigned int flags;
	void *private_data;
	/* The shim's own. */
	char name[64];
	bool registered;
	struct shrinker *next;
};

struct shrinker *shrinker_alloc(unsigned int flags, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void shrinker_register(struct shrinker *shrinker);
void shrinker_free(struct shrinker *shrinker);

/*
 * One pass over every registered shrinker at reclaim priority @priority
 * (12, the kernel's DEF_PRIORITY, scans 1/4096 of the objects; 0 scans
 * them all); returns the objects they say they freed.
 */
unsigned long shim_shrink_slab(int priority);
/* Passes at priority 0 until they free almost nothing, as drop_caches. */
unsigned long shim_drop_slab(void);

#endif /* _SHIM_SHRINKER_H */
