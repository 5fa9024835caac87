// SPDX-License-Identifier: GPL-2.0
/*
 * The pool (lsm/pool.c) and the arena (lsm/arena.c):
 *  - every size class, at its boundaries: the class charged, alignment,
 *    the whole object writable and distinct from every other live one;
 *  - many objects of each class (several slabs): after they are freed
 *    and the caches drained, the pool holds no memory; before the drain
 *    no more than the per-CPU caches and the spare slab can hold;
 *  - the per-CPU paths from several threads, objects freed by another
 *    thread than the one that allocated them and from RCU callbacks, each
 *    object tagged and checked, so that an object handed out twice or a
 *    slab freed under a live object is seen;
 *  - a failed slab allocation (injected) returns NULL and leaves the
 *    pool usable; kmalloc kind and the arena give everything back.
 *
 * Usage: test_pool [--seed N] [--threads T] [--ops N]
 */
#include <getopt.h>
#include <pthread.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include "pool.h"
#include "arena.h"
#include "rnd.h"

#define EXPECT(cond) do { if (!(cond)) { \
	fprintf(stderr, "test_pool: %s:%d: %s (seed %llu)\n", __FILE__, \
		__LINE__, #cond, (unsigned long long)seed); \
	exit(1); } } while (0)

static u64 seed = 1;
static unsigned int nthreads = 4;
static unsigned long ops = 200000;
static struct lsm_pool *pool;

static u64 rnd(u64 *s)
{
	return xorshift64(s);
}

/* A tag in every word of an object: its size and a per-object id. */
static void tag(void *obj, size_t size, u64 id)
{
	u64 *w = obj;
	size_t i;

	for (i = 0; i < size / 8; i++)
		w[i] = id ^ (i * 0x9e3779b97f4a7c15ULL);
}

static bool tag_ok(const void *obj, size_t size, u64 id)
{
	const u64 *w = obj;
	size_t i;

	for (i = 0; i < size / 8; i++)
		if (w[i] != (id ^ (i * 0x9e3779b97f4a7c15ULL)))
			return false;
	return true;
}

static size_t class_size(size_t size)
{
	return lsm_pool_charge(pool, size);
}

/* Every class at its boundaries. */
static void test_classes(void)
{
	size_t size, sizes[64];
	void *objs[64];
	unsigned int n = 0, i;

	for (size = LSM_POOL_MIN_SIZE; size <= LSM_POOL_MAX_SIZE; size *= 2) {
		if (size > LSM_POOL_MIN_SIZE)
			sizes[n++] = size / 2 + 1;
		sizes[n++] = size;
	}
	sizes[n++] = 1;
	for (i = 0; i < n; i++) {
		size_t c = class_size(sizes[i]);

		EXPECT(c >= sizes[i] && c < 2 * sizes[i] + LSM_POOL_MIN_SIZE);
		EXPECT(c >= LSM_POOL_MIN_SIZE && is_power_of_2(c));
		objs[i] = lsm_pool_alloc(pool, sizes[i], GFP_KERNEL);
		EXPECT(objs[i]);
		EXPECT(!((unsigned long)objs[i] & (min_t(size_t, c, 4096) - 1)));
		tag(objs[i], c, i);
	}
	for (i = 0; i < n; i++) {
		EXPECT(tag_ok(objs[i], class_size(sizes[i]), i));
		lsm_pool_free(pool, objs[i], sizes[i]);
	}
	lsm_pool_drain(pool);
	EXPECT(lsm_pool_bytes(pool) == 0);
}

/* Several slabs of one class, freed in random order. */
static void test_slabs(size_t size)
{
	size_t c = class_size(size);
	unsigned long nr = 3 * (LSM_POOL_SLAB_SIZE / c) + 7, i;
	void **objs = calloc(nr, sizeof(*objs));
	u64 s = seed ^ size;
	u64 bound, held;

	EXPECT(objs);
	for (i = 0; i < nr; i++) {
		objs[i] = lsm_pool_alloc(pool, size, GFP_KERNEL);
		EXPECT(objs[i]);
		tag(objs[i], c, i);
	}
	/* The objects of a slab less its header slot, and no more slabs. */
	EXPECT(lsm_pool_bytes(pool) >= nr * c);
	EXPECT(lsm_pool_bytes(pool) <=
	       (DIV_ROUND_UP(nr, LSM_POOL_SLAB_SIZE / c - 1) + 1) *
	       LSM_POOL_SLAB_SIZE);
	held = lsm_pool_bytes(pool) / LSM_POOL_SLAB_SIZE;
	for (i = nr - 1; i > 0; i--) {
		unsigned long j = rnd(&s) % (i + 1);
		void *t = objs[i];

		objs[i] = objs[j];
		objs[j] = t;
	}
	for (i = 0; i < nr; i++) {
		const u64 *w = objs[i];

		EXPECT(tag_ok(objs[i], c, w[0]));
		lsm_pool_free(pool, objs[i], size);
	}
	/*
	 * Before a drain, slabs stay only for the objects in this CPU's
	 * cache (at most 32, one slab each at worst), and one spare.
	 */
	bound = (min_t(u64, held, 32) + 1) * LSM_POOL_SLAB_SIZE;
	EXPECT(held >= 3);
	EXPECT(lsm_pool_bytes(pool) <= bound);
	lsm_pool_drain(pool);
	EXPECT(lsm_pool_bytes(pool) == 0);
	free(objs);
}

/* Objects handed between threads through a shared exchange array. */
#define SLOTS	1024
static struct {
	void *obj;
	size_t size;
	u64 id;
} slots[SLOTS];
static pthread_mutex_t slot_lock[SLOTS];
static unsigned long rcu_frees_queued;

struct rcu_obj {
	struct rcu_head rcu;
	size_t size;
};

static void free_cb(struct rcu_head *head)
{
	struct rcu_obj *o = container_of(head, struct rcu_obj, rcu);

	lsm_pool_free(pool, o, o->size);
}

static void *worker(void *arg)
{
	u64 s = seed * 0x9e3779b97f4a7c15ULL + (uintptr_t)arg + 1;
	unsigned long i;

	shim_rcu_register();
	for (i = 0; i < ops; i++) {
		unsigned int k = rnd(&s) % SLOTS;
		size_t size = 1 + rnd(&s) % ((rnd(&s) & 7) ? 512 : LSM_POOL_MAX_SIZE);
		void *old;

		pthread_mutex_lock(&slot_lock[k]);
		old = slots[k].obj;
		if (old) {
			EXPECT(tag_ok(old, class_size(slots[k].size) < 256 ?
				      class_size(slots[k].size) : 256,
				      slots[k].id));
			if (rnd(&s) & 1) {
				lsm_pool_free(pool, old, slots[k].size);
			} else if (slots[k].size >= sizeof(struct rcu_obj)) {
				struct rcu_obj *o = old;

				o->size = slots[k].size;
				call_rcu(&o->rcu, free_cb);
				__atomic_add_fetch(&rcu_frees_queued, 1,
						   __ATOMIC_RELAXED);
			} else {
				lsm_pool_free(pool, old, slots[k].size);
			}
			slots[k].obj = NULL;
		} else {
			void *obj = lsm_pool_alloc(pool, size, GFP_KERNEL);

			EXPECT(obj);
			slots[k].obj = obj;
			slots[k].size = size;
			slots[k].id = rnd(&s);
			tag(obj, min_t(size_t, class_size(size), 256),
			    slots[k].id);
		}
		pthread_mutex_unlock(&slot_lock[k]);
	}
	shim_rcu_unregister();
	return NULL;
}

static void test_threads(void)
{
	pthread_t tids[64];
	unsigned int i;

	for (i = 0; i < SLOTS; i++)
		pthread_mutex_init(&slot_lock[i], NULL);
	for (i = 0; i < nthreads; i++)
		EXPECT(!pthread_create(&tids[i], NULL, worker,
				       (void *)(uintptr_t)i));
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	for (i = 0; i < SLOTS; i++) {
		if (!slots[i].obj)
			continue;
		EXPECT(tag_ok(slots[i].obj,
			      min_t(size_t, class_size(slots[i].size), 256),
			      slots[i].id));
		lsm_pool_free(pool, slots[i].obj, slots[i].size);
		slots[i].obj = NULL;
	}
	rcu_barrier();
	lsm_pool_drain(pool);
	EXPECT(lsm_pool_bytes(pool) == 0);
}

/* A slab that cannot be had: NULL, and the pool still works. */
static void test_failure(void)
{
	void *obj;

	lsm_pool_drain(pool);
	shim_fail_nth(1);
	obj = lsm_pool_alloc(pool, 100, GFP_KERNEL);
	shim_fail_off();
	EXPECT(!obj);
	EXPECT(lsm_pool_bytes(pool) == 0);
	obj = lsm_pool_alloc(pool, 100, GFP_KERNEL);
	EXPECT(obj);
	lsm_pool_free(pool, obj, 100);
	lsm_pool_drain(pool);
	EXPECT(lsm_pool_bytes(pool) == 0);
}

static void test_kmalloc_kind(void)
{
	struct lsm_pool *kp = lsm_pool_create(LSM_POOL_KMALLOC, GFP_KERNEL);
	long live = shim_kmalloc_live();
	void *objs[100];
	unsigned int i;

	EXPECT(kp);
	EXPECT(lsm_pool_charge(kp, 100) == 128);
	EXPECT(lsm_pool_charge(kp, 90) == 96);
	EXPECT(lsm_pool_charge(kp, 150) == 192);
	EXPECT(lsm_pool_charge(kp, 65536) == 65536);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = lsm_pool_alloc(kp, 1 + i * 600, GFP_KERNEL);
		EXPECT(objs[i]);
		memset(objs[i], 0x5a, 1 + i * 600);
	}
	EXPECT(shim_kmalloc_live() == live + (long)ARRAY_SIZE(objs));
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		lsm_pool_free(kp, objs[i], 1 + i * 600);
	EXPECT(shim_kmalloc_live() == live);
	EXPECT(lsm_pool_bytes(kp) == 0);
	lsm_pool_destroy(kp);
}

static void test_arena(void)
{
	struct lsm_pool *ap = lsm_pool_create(LSM_POOL_ARENA, GFP_KERNEL);
	struct lsm_arena arena;
	u64 s = seed, total = 0;
	char *prev = NULL;
	unsigned int i;

	EXPECT(ap);
	lsm_arena_init(&arena, ap);
	for (i = 0; i < 20000; i++) {
		size_t size = 1 + rnd(&s) % 1000;
		char *obj = lsm_arena_alloc(&arena, size, GFP_KERNEL);

		EXPECT(obj && !((unsigned long)obj & 7));
		memset(obj, 0x33, size);
		/* Bump allocation: right after the previous, or a new slab. */
		EXPECT(!prev || obj == prev ||
		       !((unsigned long)(obj - 8) & (LSM_POOL_SLAB_SIZE - 1)));
		prev = obj + ((size + 7) & ~7UL);
		total += size;
	}
	EXPECT(lsm_arena_bytes(&arena) == lsm_pool_bytes(ap));
	EXPECT(lsm_arena_bytes(&arena) >= total);
	EXPECT(lsm_arena_bytes(&arena) < total + 2 * LSM_POOL_SLAB_SIZE);
	EXPECT(lsm_arena_alloc(&arena, LSM_POOL_MAX_SIZE, GFP_KERNEL));
	lsm_arena_release(&arena);
	EXPECT(lsm_arena_bytes(&arena) == 0);
	/* The spare slab stays until a drain. */
	EXPECT(lsm_pool_bytes(ap) <= LSM_POOL_SLAB_SIZE);
	lsm_pool_drain(ap);
	EXPECT(lsm_pool_bytes(ap) == 0);
	lsm_pool_destroy(ap);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "ops", required_argument, NULL, 'o' },
		{}
	};
	size_t size;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0) ?: 1;
			break;
		case 't':
			nthreads = min(strtoul(optarg, NULL, 0), 64UL);
			break;
		case 'o':
			ops = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: test_pool [--seed N] [--threads T] [--ops N]\n");
			return 2;
		}
	}
	shim_rcu_register();
	pool = lsm_pool_create(LSM_POOL_CLASSES, GFP_KERNEL);
	EXPECT(pool);
	test_classes();
	for (size = LSM_POOL_MIN_SIZE; size <= LSM_POOL_MAX_SIZE; size *= 2)
		test_slabs(size - size / 3);
	test_threads();
	test_failure();
	lsm_pool_destroy(pool);
	test_kmalloc_kind();
	test_arena();
	rcu_barrier();
	EXPECT(shim_kmalloc_live() == 0);
	shim_rcu_unregister();
	printf("test_pool: ok (seed %llu, %u threads, %lu ops each)\n",
	       (unsigned long long)seed, nthreads, ops);
	return 0;
}
