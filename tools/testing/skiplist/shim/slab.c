// SPDX-License-Identifier: GPL-2.0
/* Userspace shim: checking kmem_cache/kmalloc, see slab.h. */
#include <pthread.h>
#include <sched.h>
#include "slab.h"
#include "pages.h"
#include "lock.h"
#include "rcu.h"
#include "memcg.h"

#if defined(__SANITIZE_ADDRESS__)
#define SHIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHIM_ASAN 1
#endif
#endif

struct kmem_cache {
	char name[48];
	size_t size;
	size_t align;
	long live;
	int id;
};

/* An object of @cache, aligned as the cache asks, like SLUB's. */
static void *shim_cache_malloc(struct kmem_cache *cache)
{
	void *obj;

	if (cache->align <= 16)
		return malloc(cache->size);
	if (posix_memalign(&obj, cache->align, cache->size))
		return NULL;
	return obj;
}

static int shim_nr_caches;

/* Fault injection state. */
static unsigned long shim_fail_countdown;
static unsigned int shim_fail_ppm;
static u64 shim_fail_rng;
static unsigned long shim_fail_count;

void shim_fail_nth(unsigned long nth)
{
	__atomic_store_n(&shim_fail_countdown, nth, __ATOMIC_SEQ_CST);
}

void shim_fail_random(unsigned int per_million, u64 seed)
{
	shim_fail_rng = seed | 1;
	__atomic_store_n(&shim_fail_ppm, per_million, __ATOMIC_SEQ_CST);
}

void shim_fail_off(void)
{
	shim_fail_nth(0);
	shim_fail_random(0, 1);
}

unsigned long shim_failed_allocs(void)
{
	return __atomic_load_n(&shim_fail_count, __ATOMIC_SEQ_CST);
}

__thread bool shim_in_work_item;

/*
 * Whether this allocation fails at @ppm per million, by one xorshift draw
 * from @state; no draw at all while @ppm is 0, so that a sequence replays.
 */
static bool shim_fail_draw(u64 *state, unsigned int ppm)
{
	u64 x = *state;

	if (!ppm)
		return false;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return (x * 0x2545f4914f6cdd1dULL >> 11) % 1000000 < ppm;
}

static bool shim_should_fail(void)
{
	static __thread u64 work_rng = 0x9e3779b97f4a7c15ULL;
	unsigned long n;

	/*
	 * A work item's allocations (the leaf directory's rebuild) run on
	 * threads of their own, at times no test controls: they must neither
	 * take the n-th failure a test aimed at its own call nor draw from the
	 * sequence a single-threaded test replays.  They fail at the same
	 * random rate, from a generator of their own.
	 */
	if (shim_in_work_item) {
		if (shim_fail_draw(&work_rng,
				   __atomic_load_n(&shim_fail_ppm, __ATOMIC_RELAXED)))
			goto fail;
		return false;
	}
	n = __atomic_load_n(&shim_fail_countdown, __ATOMIC_RELAXED);

	while (n) {
		if (__atomic_compare_exchange_n(&shim_fail_countdown, &n,
						n - 1, false, __ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED)) {
			if (n == 1)
				goto fail;
			break;
		}
	}
	/* Racy on purpose between threads; single-threaded tests replay. */
	if (shim_fail_draw(&shim_fail_rng,
			   __atomic_load_n(&shim_fail_ppm, __ATOMIC_RELAXED)))
		goto fail;
	return false;
fail:
	__atomic_add_fetch(&shim_fail_count, 1, __ATOMIC_SEQ_CST);
	return true;
}

__thread gfp_t shim_gfp_required;
__thread unsigned long shim_gfp_missing;

static void shim_gfp_check(gfp_t gfp)
{
	if (shim_gfp_required & ~gfp)
		shim_gfp_missing++;
}

void might_alloc(gfp_t gfp)
{
	if (!gfpflags_allow_blocking(gfp))
		return;
	SHIM_ASSERT(!shim_rcu_depth,
		    "blocking allocation inside rcu_read_lock()");
	SHIM_ASSERT(!shim_locks_held, "blocking allocation under a spinlock");
	SHIM_ASSERT(!shim_rwlocks_held, "blocking allocation under a rwlock");
	SHIM_ASSERT(!irqs_disabled() && !in_interrupt(),
		    "blocking allocation with interrupts off or in an interrupt");
}

void memalloc_retry_wait(gfp_t gfp)
{
	might_alloc(gfp);
	if (gfpflags_allow_blocking(gfp))
		sched_yield();
}

#if !defined(SHIM_FAST) && !defined(SHIM_ASAN)
/*
 * Without ASan, freed objects wait here, poisoned, and the poison is
 * checked when they leave: a write after free shows up as damage.
 */
#define SHIM_QUARANTINE 4096
struct shim_quarantined {
	void *obj;
	size_t size;
	const char *what;
};
static struct shim_quarantined shim_quarantine[SHIM_QUARANTINE];
static unsigned int shim_quarantine_next;
static pthread_mutex_t shim_quarantine_lock = PTHREAD_MUTEX_INITIALIZER;

static void shim_check_poison(const struct shim_quarantined *q)
{
	const unsigned char *p = q->obj;
	size_t i;

	for (i = 0; i < q->size; i++)
		if (p[i] != POISON_FREE) {
			fprintf(stderr, "%s object %p: byte %zu written after free\n",
				q->what, q->obj, i);
			shim_die(__FILE__, __LINE__, "write after free");
		}
}
#endif

#ifndef SHIM_FAST
static void shim_release(void *obj, size_t size, const char *what)
{
	memset(obj, POISON_FREE, size);
#ifdef SHIM_ASAN
	(void)what;
	free(obj);
#else
	struct shim_quarantined old;

	pthread_mutex_lock(&shim_quarantine_lock);
	old = shim_quarantine[shim_quarantine_next];
	shim_quarantine[shim_quarantine_next].obj = obj;
	shim_quarantine[shim_quarantine_next].size = size;
	shim_quarantine[shim_quarantine_next].what = what;
	shim_quarantine_next = (shim_quarantine_next + 1) % SHIM_QUARANTINE;
	pthread_mutex_unlock(&shim_quarantine_lock);
	if (old.obj) {
		shim_check_poison(&old);
		free(old.obj);
	}
#endif
}
#endif

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, slab_flags_t flags,
				     void (*ctor)(void *))
{
	struct kmem_cache *cache = calloc(1, sizeof(*cache));

	(void)flags;
	SHIM_ASSERT(!ctor, "constructors are not supported");
	if (!cache)
		return NULL;
	snprintf(cache->name, sizeof(cache->name), "%s", name);
	cache->size = size;
	cache->align = align;
	cache->id = __atomic_fetch_add(&shim_nr_caches, 1, __ATOMIC_RELAXED);
	return cache;
}

long shim_cache_live(struct kmem_cache *cache)
{
	return __atomic_load_n(&cache->live, __ATOMIC_SEQ_CST);
}

#ifdef SHIM_FAST
/* Per-thread free lists, like SLUB's per-CPU freelist; no checks. */
#define SHIM_FAST_CACHES	64
#define SHIM_FAST_DEPTH		64
struct shim_freelist {
	void *obj[SHIM_FAST_DEPTH];
	int nr;
};
static __thread struct shim_freelist shim_freelists[SHIM_FAST_CACHES];

void *kmem_cache_alloc(struct kmem_cache *cache, gfp_t gfp)
{
	struct shim_freelist *fl = &shim_freelists[cache->id];

	(void)gfp;
	if (shim_should_fail())
		return NULL;
	if (cache->id < SHIM_FAST_CACHES && fl->nr)
		return fl->obj[--fl->nr];
	return shim_cache_malloc(cache);
}

void kmem_cache_free(struct kmem_cache *cache, void *obj)
{
	struct shim_freelist *fl = &shim_freelists[cache->id];

	if (cache->id < SHIM_FAST_CACHES && fl->nr < SHIM_FAST_DEPTH) {
		fl->obj[fl->nr++] = obj;
		return;
	}
	free(obj);
}

void kmem_cache_destroy(struct kmem_cache *cache)
{
	free(cache);
}

/*
 * Single pages, as the kernel's per-CPU page lists keep them (pages.h).
 * No failure is injected here: only the benchmarks use this build.
 */
struct shim_page_list {
	unsigned long page[SHIM_FAST_DEPTH];
	int nr;
};
static __thread struct shim_page_list shim_pages;

unsigned long shim_fast_page_get(gfp_t gfp)
{
	unsigned long page;

	if (!shim_pages.nr)
		return 0;
	page = shim_pages.page[--shim_pages.nr];
	if (gfp & __GFP_ZERO)
		memset((void *)page, 0, PAGE_SIZE);
	return page;
}

bool shim_fast_page_put(unsigned long addr)
{
	if (shim_pages.nr == SHIM_FAST_DEPTH)
		return false;
	shim_pages.page[shim_pages.nr++] = addr;
	return true;
}
#else
void *kmem_cache_alloc(struct kmem_cache *cache, gfp_t gfp)
{
	void *obj;

	might_alloc(gfp);
	shim_gfp_check(gfp);
	if (shim_should_fail())
		return NULL;
	obj = shim_cache_malloc(cache);
	if (!obj)
		return NULL;
	/* Garbage, not zeroes: code that forgets to initialise shows it. */
	memset(obj, 0xa5, cache->size);
	__atomic_add_fetch(&cache->live, 1, __ATOMIC_SEQ_CST);
	return obj;
}

void kmem_cache_free(struct kmem_cache *cache, void *obj)
{
	if (!obj)
		return;
	SHIM_ASSERT(__atomic_sub_fetch(&cache->live, 1, __ATOMIC_SEQ_CST) >= 0,
		    "kmem_cache_free of more objects than allocated");
	shim_release(obj, cache->size, cache->name);
}

void kmem_cache_destroy(struct kmem_cache *cache)
{
	if (!cache)
		return;
	if (cache->live) {
		fprintf(stderr, "kmem_cache_destroy(%s): %ld objects leaked\n",
			cache->name, cache->live);
		shim_die(__FILE__, __LINE__, "slab cache destroyed with live objects");
	}
	free(cache);
}
#endif

__thread struct mem_cgroup *shim_task_memcg;
__thread struct mem_cgroup *shim_active_memcg;

void shim_memcg_charge(void)
{
	struct mem_cgroup *memcg = shim_active_memcg ?: shim_task_memcg;

	if (memcg)
		__atomic_add_fetch(&memcg->charged, 1, __ATOMIC_RELAXED);
}

/* kmalloc keeps the size in front of the object. */
static long shim_kmalloc_count;

void *kmalloc(size_t size, gfp_t gfp)
{
	size_t *hdr;

	might_alloc(gfp);
	shim_gfp_check(gfp);
	if (shim_should_fail())
		return NULL;
	hdr = malloc(sizeof(size_t) * 2 + size);
	if (!hdr)
		return NULL;
	hdr[0] = size;
	if (gfp & __GFP_ACCOUNT)
		shim_memcg_charge();
	memset(hdr + 2, (gfp & __GFP_ZERO) ? 0 : 0xa5, size);
	__atomic_add_fetch(&shim_kmalloc_count, 1, __ATOMIC_SEQ_CST);
	return hdr + 2;
}

void *kzalloc(size_t size, gfp_t gfp)
{
	return kmalloc(size, gfp | __GFP_ZERO);
}

void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return kzalloc(n * size, gfp);
}

void kfree(const void *obj)
{
	size_t *hdr;

	if (!obj)
		return;
	hdr = (size_t *)obj - 2;
	__atomic_sub_fetch(&shim_kmalloc_count, 1, __ATOMIC_SEQ_CST);
#ifdef SHIM_FAST
	free(hdr);
#else
	shim_release(hdr, hdr[0] + 2 * sizeof(size_t), "kmalloc");
#endif
}

long shim_kmalloc_live(void)
{
	return __atomic_load_n(&shim_kmalloc_count, __ATOMIC_SEQ_CST);
}
