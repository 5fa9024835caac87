// SPDX-License-Identifier: GPL-2.0
/* Userspace shim: shrinkers and memory pressure, see shrinker.h. */
#include <pthread.h>
#include <stdarg.h>
#include "shrinker.h"
#include "lock.h"
#include "rcu.h"
#include "slab.h"

/*
 * The registered shrinkers.  A pass holds the mutex across its calls,
 * so that shrinker_free() waits for it as the kernel's waits for the
 * scans in flight.
 */
static pthread_mutex_t shim_shrinkers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shrinker *shim_shrinkers;

struct shrinker *shrinker_alloc(unsigned int flags, const char *fmt, ...)
{
	struct shrinker *s = kzalloc(sizeof(*s), GFP_KERNEL);
	va_list ap;

	if (!s)
		return NULL;
	s->flags = flags;
	va_start(ap, fmt);
	vsnprintf(s->name, sizeof(s->name), fmt, ap);
	va_end(ap);
	return s;
}

void shrinker_register(struct shrinker *s)
{
	SHIM_ASSERT(s->count_objects && s->scan_objects,
		    "shrinker_register without count_objects and scan_objects");
	pthread_mutex_lock(&shim_shrinkers_lock);
	SHIM_ASSERT(!s->registered, "shrinker_register twice");
	s->registered = true;
	s->next = shim_shrinkers;
	shim_shrinkers = s;
	pthread_mutex_unlock(&shim_shrinkers_lock);
}

void shrinker_free(struct shrinker *s)
{
	struct shrinker **p;

	if (!s)
		return;
	might_sleep();
	pthread_mutex_lock(&shim_shrinkers_lock);
	if (s->registered) {
		for (p = &shim_shrinkers; *p != s; p = &(*p)->next)
			SHIM_ASSERT(*p, "shrinker_free of a shrinker not in the list");
		*p = s->next;
		s->registered = false;
	}
	pthread_mutex_unlock(&shim_shrinkers_lock);
	kfree(s);
}

/* The kernel's do_shrink_slab(), without the deferred work. */
static unsigned long shim_do_shrink(struct shrinker *s, int priority)
{
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL };
	unsigned long batch = s->batch ? s->batch : SHRINK_BATCH;
	unsigned long freeable, total, freed = 0, ret;

	freeable = s->count_objects(s, &sc);
	if (!freeable || freeable == SHRINK_EMPTY)
		return 0;
	if (s->seeks)
		total = (freeable >> priority) * 4 / s->seeks;
	else
		total = freeable / 2;
	if (total > 2 * freeable)
		total = 2 * freeable;
	while (total >= batch || total >= freeable) {
		sc.nr_to_scan = total < batch ? total : batch;
		sc.nr_scanned = sc.nr_to_scan;
		ret = s->scan_objects(s, &sc);
		SHIM_ASSERT(!shim_locks_held,
			    "a shrinker's scan returned with a spinlock held");
		if (ret == SHRINK_STOP)
			break;
		freed += ret;
		if (!sc.nr_scanned || sc.nr_scanned > total)
			break;
		total -= sc.nr_scanned;
		cond_resched();
	}
	return freed;
}

unsigned long shim_shrink_slab(int priority)
{
	unsigned long freed = 0;
	struct shrinker *s;

	might_sleep();
	SHIM_ASSERT(priority >= 0 && priority <= 12, "reclaim priority out of range");
	pthread_mutex_lock(&shim_shrinkers_lock);
	for (s = shim_shrinkers; s; s = s->next)
		freed += shim_do_shrink(s, priority);
	pthread_mutex_unlock(&shim_shrinkers_lock);
	return freed;
}

unsigned long shim_drop_slab(void)
{
	unsigned long freed, total = 0;
	int shift = 0;

	do {
		freed = shim_shrink_slab(0);
		total += freed;
	} while ((freed >> shift++) > 1);
	return total;
}
