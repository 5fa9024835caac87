// SPDX-License-Identifier: GPL-2.0
/*
 * The block cache (lsm/block_cache.c) alone:
 *  - hits and misses counted exactly; a block inserted twice is kept once
 *    (the second insert gets the first block back);
 *  - the CLOCK order: the hand takes the oldest block, a block looked up
 *    since the hand last passed gets a second chance; a scan's block goes
 *    in only while there is room (evicting nothing), at the cold end, and
 *    a scan's hit gives no second chance;
 *  - the bound: bytes never above the capacity, a cache smaller than one
 *    block keeps nothing, bytes always the blocks' charges;
 *  - shrinking: lsm_block_cache_shrink() evicts exactly what it says
 *    (second chances counted as scanned), the shrinker empties the cache
 *    under the kernel's drop_caches loop (the shim's shim_drop_slab());
 *  - dropping an owner evicts its blocks only, all of them (one of more
 *    blocks than the cache holds too); a block held by a reader outlives
 *    its eviction, the owner's drop and the cache itself;
 *  - failed allocations: NULL, nothing leaked;
 *  - threads: readers that look up and insert random blocks of shared
 *    owners, checking every byte of every block they hold, while another
 *    thread shrinks (directly and through the shrinker) and another
 *    makes owners, fills them and drops them, all under AddressSanitizer
 *    and the precise RCU (a block freed under a reader, or a struct
 *    freed before a reader walking past it is done, is reported).
 *
 * Usage: test_block_cache [--seed N] [--threads T] [--ops N]
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include "block_cache.h"
#include "record.h"
#include "rnd.h"

#define EXPECT(cond) do { if (!(cond)) { \
	fprintf(stderr, "test_block_cache: %s:%d: %s (seed %llu)\n", \
		__FILE__, __LINE__, #cond, (unsigned long long)seed); \
	exit(1); } } while (0)

static u64 seed = 1;
static unsigned int nthreads = 4;
static unsigned long ops = 30000;

/* What one block costs the cache: measured, then relied on exactly. */
static u64 charge;

/* The bytes of block @nr of owner @id: any mix-up shows. */
static void fill(void *data, u64 id, u32 nr)
{
	u64 *w = data;
	size_t i;

	for (i = 0; i < LSM_BLOCK_SIZE / 8; i++)
		w[i] = (id << 32 | nr) ^ (i * 0x9e3779b97f4a7c15ULL);
}

static bool filled(const void *data, u64 id, u32 nr)
{
	const u64 *w = data;
	size_t i;

	for (i = 0; i < LSM_BLOCK_SIZE / 8; i++)
		if (w[i] != ((id << 32 | nr) ^ (i * 0x9e3779b97f4a7c15ULL)))
			return false;
	return true;
}

static struct lsm_block_cache_stats stats(struct lsm_block_cache *c)
{
	struct lsm_block_cache_stats s;

	lsm_block_cache_stats(c, &s);
	EXPECT(s.bytes <= s.capacity);
	EXPECT(s.bytes == s.blocks * charge || !charge);
	return s;
}

/* Insert block @nr of @o, filled; returns the block kept, referenced. */
static struct lsm_cached_block *put_in(struct lsm_block_cache *c,
				       struct lsm_cache_owner *o, u32 nr,
				       enum lsm_cache_use use)
{
	struct lsm_cached_block *b = lsm_cached_block_alloc(GFP_KERNEL);

	EXPECT(b);
	fill(lsm_cached_block_data(b), o->id, nr);
	return lsm_block_cache_insert(c, o, nr, b, use);
}

static void insert(struct lsm_block_cache *c, struct lsm_cache_owner *o,
		   u32 nr, enum lsm_cache_use use)
{
	lsm_cached_block_put(put_in(c, o, nr, use));
}

/* Whether the cache has block @nr of @o (a lookup: counted, may mark it). */
static bool has(struct lsm_block_cache *c, struct lsm_cache_owner *o, u32 nr,
		enum lsm_cache_use use)
{
	struct lsm_cached_block *b = lsm_block_cache_lookup(c, o, nr, use);

	if (!b)
		return false;
	EXPECT(filled(lsm_cached_block_data(b), o->id, nr));
	lsm_cached_block_put(b);
	return true;
}

static void measure_charge(void)
{
	struct lsm_block_cache *c = lsm_block_cache_create(1 << 20, "probe");
	struct lsm_block_cache_stats s;
	struct lsm_cache_owner o;

	EXPECT(c);
	lsm_block_cache_owner_init(c, &o, 1024);
	insert(c, &o, 0, LSM_CACHE_LOOKUP);
	lsm_block_cache_stats(c, &s);
	EXPECT(s.blocks == 1);
	charge = s.bytes;
	/* A page and its bookkeeping. */
	EXPECT(charge >= LSM_BLOCK_SIZE && charge < LSM_BLOCK_SIZE + 256);
	lsm_block_cache_drop(c, &o);
	lsm_block_cache_destroy(c);
}

/* Hits, misses, a second insert of one block, the CLOCK order. */
static void test_order(void)
{
	struct lsm_block_cache *c = lsm_block_cache_create(3 * charge, "order");
	struct lsm_cached_block *b1, *b2;
	struct lsm_block_cache_stats s;
	struct lsm_cache_owner o, p;
	enum { A, B, C, D, E, F, G };

	EXPECT(c);
	lsm_block_cache_owner_init(c, &o, 1024);
	lsm_block_cache_owner_init(c, &p, 1024);
	EXPECT(o.id != p.id);
	EXPECT(!has(c, &o, A, LSM_CACHE_LOOKUP));
	insert(c, &o, A, LSM_CACHE_LOOKUP);
	insert(c, &o, B, LSM_CACHE_LOOKUP);
	insert(c, &o, C, LSM_CACHE_LOOKUP);
	/* Another owner's block of the same number is another block. */
	EXPECT(!has(c, &p, A, LSM_CACHE_LOOKUP));
	s = stats(c);
	EXPECT(s.blocks == 3 && s.hits == 0 && s.misses == 2);

	/* Inserted twice: the first stays, the second is given it back. */
	b1 = lsm_block_cache_lookup(c, &o, B, LSM_CACHE_SCAN);
	EXPECT(b1);
	b2 = put_in(c, &o, B, LSM_CACHE_LOOKUP);
	EXPECT(b2 == b1);
	lsm_cached_block_put(b1);
	lsm_cached_block_put(b2);
	s = stats(c);
	EXPECT(s.blocks == 3 && s.hits == 1);

	/*
	 * Order, newest first: C B A.  A looked up: when D comes the hand
	 * finds A marked, spares it (A C B), and takes B.  (B's lookup above
	 * was a scan's, which marks nothing.)
	 */
	EXPECT(has(c, &o, A, LSM_CACHE_LOOKUP));
	insert(c, &o, D, LSM_CACHE_LOOKUP);
	EXPECT(!has(c, &o, B, LSM_CACHE_SCAN));
	EXPECT(has(c, &o, A, LSM_CACHE_SCAN) && has(c, &o, C, LSM_CACHE_SCAN) &&
	       has(c, &o, D, LSM_CACHE_SCAN));
	/* D A C, full: a scan's E stays its reader's and evicts nothing... */
	b1 = put_in(c, &o, E, LSM_CACHE_SCAN);
	EXPECT(filled(lsm_cached_block_data(b1), o.id, E));
	lsm_cached_block_put(b1);
	EXPECT(!has(c, &o, E, LSM_CACHE_SCAN));
	EXPECT(has(c, &o, D, LSM_CACHE_SCAN) && has(c, &o, A, LSM_CACHE_SCAN) &&
	       has(c, &o, C, LSM_CACHE_SCAN));
	/* ...and with room (C shrunk away) goes in at the cold end... */
	EXPECT(lsm_block_cache_shrink(c, 1) == 1);
	EXPECT(!has(c, &o, C, LSM_CACHE_SCAN));
	insert(c, &o, F, LSM_CACHE_SCAN);
	EXPECT(has(c, &o, F, LSM_CACHE_SCAN));
	/* ...the first to go when a lookup's block needs the room. */
	insert(c, &o, G, LSM_CACHE_LOOKUP);
	EXPECT(!has(c, &o, F, LSM_CACHE_SCAN));
	EXPECT(has(c, &o, G, LSM_CACHE_SCAN) && has(c, &o, D, LSM_CACHE_SCAN) &&
	       has(c, &o, A, LSM_CACHE_SCAN));
	/* Everyone marked: the hand spares each once, then takes the oldest. */
	EXPECT(has(c, &o, G, LSM_CACHE_LOOKUP) && has(c, &o, D, LSM_CACHE_LOOKUP) &&
	       has(c, &o, A, LSM_CACHE_LOOKUP));
	insert(c, &p, A, LSM_CACHE_LOOKUP);
	EXPECT(!has(c, &o, A, LSM_CACHE_SCAN));
	s = stats(c);
	EXPECT(s.blocks == 3 && s.bytes == 3 * charge);

	lsm_block_cache_drop(c, &o);
	EXPECT(stats(c).blocks == 1);
	EXPECT(has(c, &p, A, LSM_CACHE_LOOKUP));
	lsm_block_cache_drop(c, &p);
	s = stats(c);
	EXPECT(s.blocks == 0 && s.bytes == 0);
	lsm_block_cache_destroy(c);

	/* Smaller than a block: keeps nothing, and says so. */
	c = lsm_block_cache_create(charge - 1, "none");
	EXPECT(c);
	lsm_block_cache_owner_init(c, &o, 1024);
	b1 = put_in(c, &o, 1, LSM_CACHE_LOOKUP);
	EXPECT(filled(lsm_cached_block_data(b1), o.id, 1));
	EXPECT(!has(c, &o, 1, LSM_CACHE_LOOKUP));
	EXPECT(stats(c).blocks == 0);
	lsm_cached_block_put(b1);
	lsm_block_cache_drop(c, &o);
	lsm_block_cache_destroy(c);
	printf("test_block_cache: hits, misses, CLOCK order, scans only into room at the cold end, the bound: ok\n");
}

/* A shrink evicts what it says; the shrinker empties the cache. */
static void test_shrink(void)
{
	struct lsm_block_cache *c = lsm_block_cache_create(64 * charge, "shrink");
	struct lsm_cache_owner o;
	struct lsm_block_cache_stats s;
	unsigned long freed;
	u32 i;

	EXPECT(c);
	lsm_block_cache_owner_init(c, &o, 1024);
	for (i = 0; i < 40; i++)
		insert(c, &o, i, LSM_CACHE_LOOKUP);
	/* Oldest first: 0, 1, 2, ...; mark 0 and 2. */
	EXPECT(has(c, &o, 0, LSM_CACHE_LOOKUP) && has(c, &o, 2, LSM_CACHE_LOOKUP));
	/* Four looked at: 0 spared, 1 evicted, 2 spared, 3 evicted. */
	freed = lsm_block_cache_shrink(c, 4);
	EXPECT(freed == 2);
	s = stats(c);
	EXPECT(s.blocks == 38 && s.bytes == 38 * charge);
	EXPECT(!has(c, &o, 1, LSM_CACHE_SCAN) && !has(c, &o, 3, LSM_CACHE_SCAN));
	EXPECT(has(c, &o, 0, LSM_CACHE_SCAN) && has(c, &o, 2, LSM_CACHE_SCAN));
	/* Unmarked now: a shrink of ten frees ten. */
	EXPECT(lsm_block_cache_shrink(c, 10) == 10);
	EXPECT(stats(c).blocks == 28);
	/* More than there is: all of them, and no more. */
	EXPECT(lsm_block_cache_shrink(c, 1000) == 28);
	EXPECT(lsm_block_cache_shrink(c, 5) == 0);
	EXPECT(stats(c).bytes == 0);

	/* Through the shrinker, as "echo 2 > /proc/sys/vm/drop_caches". */
	for (i = 0; i < 60; i++)
		insert(c, &o, 100 + i, LSM_CACHE_LOOKUP);
	for (i = 0; i < 60; i += 3)
		EXPECT(has(c, &o, 100 + i, LSM_CACHE_LOOKUP));
	/* At the lowest pressure a handful of blocks is left alone... */
	EXPECT(shim_shrink_slab(12) == 0);
	EXPECT(stats(c).blocks == 60);
	/* ...at the highest every block goes, the marked ones on a second lap. */
	EXPECT(shim_drop_slab() == 60);
	s = stats(c);
	EXPECT(s.blocks == 0 && s.bytes == 0);
	EXPECT(shim_drop_slab() == 0);
	lsm_block_cache_drop(c, &o);
	lsm_block_cache_destroy(c);
	/* Gone with its cache: nothing to call any more. */
	EXPECT(shim_drop_slab() == 0);
	printf("test_block_cache: shrink and shrinker: ok\n");
}

/* A reader's block outlives its eviction, its owner and its cache. */
static void test_lifetimes(void)
{
	struct lsm_block_cache *c = lsm_block_cache_create(8 * charge, "life");
	struct lsm_cached_block *held[3];
	struct lsm_cache_owner o, p;
	u32 i;

	EXPECT(c);
	lsm_block_cache_owner_init(c, &o, 1024);
	lsm_block_cache_owner_init(c, &p, 1024);
	for (i = 0; i < 4; i++) {
		insert(c, &o, i, LSM_CACHE_LOOKUP);
		insert(c, &p, i, LSM_CACHE_LOOKUP);
	}
	held[0] = lsm_block_cache_lookup(c, &o, 0, LSM_CACHE_LOOKUP);
	held[1] = lsm_block_cache_lookup(c, &o, 1, LSM_CACHE_LOOKUP);
	held[2] = lsm_block_cache_lookup(c, &p, 3, LSM_CACHE_LOOKUP);
	EXPECT(held[0] && held[1] && held[2]);
	/* Evicted by a shrink: the reader still reads it. */
	EXPECT(lsm_block_cache_shrink(c, 16) == 8);
	EXPECT(filled(lsm_cached_block_data(held[0]), o.id, 0));
	lsm_cached_block_put(held[0]);
	/* Dropping an owner takes its blocks only. */
	for (i = 0; i < 4; i++) {
		insert(c, &o, i, LSM_CACHE_LOOKUP);
		insert(c, &p, i, LSM_CACHE_LOOKUP);
	}
	lsm_block_cache_drop(c, &o);
	EXPECT(stats(c).blocks == 4);
	for (i = 0; i < 4; i++)
		EXPECT(!has(c, &o, i, LSM_CACHE_SCAN) && has(c, &p, i, LSM_CACHE_SCAN));
	lsm_block_cache_drop(c, &p);
	lsm_block_cache_destroy(c);
	/* The cache is gone; the blocks readers hold are not. */
	EXPECT(filled(lsm_cached_block_data(held[1]), o.id, 1));
	EXPECT(filled(lsm_cached_block_data(held[2]), p.id, 3));
	lsm_cached_block_put(held[1]);
	lsm_cached_block_put(held[2]);
	printf("test_block_cache: blocks held across eviction, drop and destroy: ok\n");
}

/* A run larger than the cache, dropped: every block of it found. */
static void test_drop_many(void)
{
	struct lsm_block_cache *c = lsm_block_cache_create(2500 * charge, "many");
	struct lsm_cache_owner o, p;
	u32 i;

	EXPECT(c);
	lsm_block_cache_owner_init(c, &o, 3000);
	lsm_block_cache_owner_init(c, &p, 10);
	insert(c, &p, 9, LSM_CACHE_LOOKUP);
	EXPECT(has(c, &p, 9, LSM_CACHE_LOOKUP));
	for (i = 0; i < 3000; i++)
		insert(c, &o, i, i % 3 ? LSM_CACHE_LOOKUP : LSM_CACHE_SCAN);
	EXPECT(stats(c).blocks == 2500);
	EXPECT(has(c, &p, 9, LSM_CACHE_SCAN));
	lsm_block_cache_drop(c, &o);
	EXPECT(stats(c).blocks == 1);
	EXPECT(has(c, &p, 9, LSM_CACHE_SCAN));
	lsm_block_cache_drop(c, &p);
	EXPECT(stats(c).bytes == 0);
	lsm_block_cache_destroy(c);
	printf("test_block_cache: a 3000-block owner in a 2500-block cache dropped whole: ok\n");
}

/* Failed allocations: NULL, and nothing leaked (LeakSanitizer). */
static void test_nomem(void)
{
	struct lsm_block_cache *c;
	struct lsm_cached_block *b;
	unsigned long n, fails = 0;

	for (n = 1;; n++) {
		shim_fail_nth(n);
		c = lsm_block_cache_create(1 << 20, "nomem");
		shim_fail_off();
		if (c)
			break;
		fails++;
	}
	lsm_block_cache_destroy(c);
	for (n = 1;; n++) {
		shim_fail_nth(n);
		b = lsm_cached_block_alloc(GFP_KERNEL);
		shim_fail_off();
		if (b)
			break;
		fails++;
	}
	lsm_cached_block_put(b);
	EXPECT(fails >= 3);
	printf("test_block_cache: %lu failed allocations: ok\n", fails);
}

/* --- Threads --- */

#define SHARED_OWNERS	4
#define SHARED_BLOCKS	64
#define THREAD_CAP	24	/* blocks: far fewer than the 256 shared */

struct shared {
	struct lsm_block_cache *c;
	struct lsm_cache_owner owners[SHARED_OWNERS];
	bool stop;
};

struct reader {
	struct shared *sh;
	pthread_t thread;
	u64 rng;
	unsigned long lookups, hits, inserts;
};

static void bound_ok(struct lsm_block_cache *c)
{
	struct lsm_block_cache_stats s;

	lsm_block_cache_stats(c, &s);
	EXPECT(s.bytes <= s.capacity);
}

/*
 * Look up random blocks of the shared owners; on a miss make the block
 * and insert it (as a run does after its read); check every byte of
 * whatever is held, hold some across a yield, so that eviction and
 * shrinking meet blocks in use.
 */
static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct shared *sh = r->sh;
	unsigned long i;

	shim_rcu_register();
	for (i = 0; i < ops; i++) {
		u64 x = xorshift64(&r->rng);
		struct lsm_cache_owner *o = &sh->owners[x % SHARED_OWNERS];
		u32 nr = (x >> 8) % SHARED_BLOCKS;
		enum lsm_cache_use use = (x >> 20) % 4 ? LSM_CACHE_LOOKUP :
							 LSM_CACHE_SCAN;
		struct lsm_cached_block *b;

		b = lsm_block_cache_lookup(sh->c, o, nr, use);
		r->lookups++;
		if (b) {
			r->hits++;
		} else {
			b = lsm_cached_block_alloc(GFP_KERNEL);
			EXPECT(b);
			fill(lsm_cached_block_data(b), o->id, nr);
			b = lsm_block_cache_insert(sh->c, o, nr, b, use);
			r->inserts++;
		}
		EXPECT(filled(lsm_cached_block_data(b), o->id, nr));
		if (!((x >> 24) % 16)) {
			sched_yield();
			EXPECT(filled(lsm_cached_block_data(b), o->id, nr));
		}
		lsm_cached_block_put(b);
		if (!(i % 256))
			bound_ok(sh->c);
	}
	shim_rcu_unregister();
	return NULL;
}

/* Reclaim: shrinks of a few blocks, now and then the shrinker's loop. */
static void *shrinker_main(void *arg)
{
	struct shared *sh = arg;
	u64 rng = seed ^ 0x5151;
	unsigned long passes = 0;

	shim_rcu_register();
	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
		u64 x = xorshift64(&rng);

		if (x % 8)
			lsm_block_cache_shrink(sh->c, 1 + x % 6);
		else
			shim_drop_slab();
		bound_ok(sh->c);
		passes++;
		sched_yield();
	}
	shim_rcu_unregister();
	return (void *)(uintptr_t)passes;
}

/* Owners come and go: made, filled, read, dropped (as runs are closed). */
static void *churn_main(void *arg)
{
	struct shared *sh = arg;
	u64 rng = seed ^ 0xc4c4;
	unsigned long owners = 0;

	shim_rcu_register();
	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
		struct lsm_cache_owner o;
		u32 nr, n = 1 + xorshift64(&rng) % 12;

		lsm_block_cache_owner_init(sh->c, &o, n);
		for (nr = 0; nr < n; nr++)
			insert(sh->c, &o, nr, nr % 2 ? LSM_CACHE_SCAN :
						       LSM_CACHE_LOOKUP);
		for (nr = 0; nr < n; nr++)
			has(sh->c, &o, nr, LSM_CACHE_LOOKUP);
		lsm_block_cache_drop(sh->c, &o);
		/* Nothing of it is left to find. */
		for (nr = 0; nr < n; nr++)
			EXPECT(!has(sh->c, &o, nr, LSM_CACHE_SCAN));
		owners++;
	}
	shim_rcu_unregister();
	return (void *)(uintptr_t)owners;
}

static void test_threads(void)
{
	struct shared sh = { .stop = false };
	struct reader *r = calloc(nthreads, sizeof(*r));
	struct lsm_block_cache_stats s;
	unsigned long lookups = 0, hits = 0, inserts = 0;
	pthread_t shrinker, churn;
	void *passes, *owners;
	unsigned int i;

	EXPECT(r);
	sh.c = lsm_block_cache_create(THREAD_CAP * charge, "threads");
	EXPECT(sh.c);
	for (i = 0; i < SHARED_OWNERS; i++)
		lsm_block_cache_owner_init(sh.c, &sh.owners[i], SHARED_BLOCKS);
	EXPECT(!pthread_create(&shrinker, NULL, shrinker_main, &sh));
	EXPECT(!pthread_create(&churn, NULL, churn_main, &sh));
	for (i = 0; i < nthreads; i++) {
		r[i].sh = &sh;
		r[i].rng = seed * 0x9e3779b97f4a7c15ULL + i + 1;
		EXPECT(!pthread_create(&r[i].thread, NULL, reader_main, &r[i]));
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(r[i].thread, NULL);
		lookups += r[i].lookups;
		hits += r[i].hits;
		inserts += r[i].inserts;
	}
	__atomic_store_n(&sh.stop, true, __ATOMIC_RELEASE);
	pthread_join(shrinker, &passes);
	pthread_join(churn, &owners);
	s = stats(sh.c);
	/* The churn's lookups count too: at least the readers'. */
	EXPECT(s.hits >= hits && s.misses >= lookups - hits);
	EXPECT(hits && inserts);
	for (i = 0; i < SHARED_OWNERS; i++)
		lsm_block_cache_drop(sh.c, &sh.owners[i]);
	s = stats(sh.c);
	EXPECT(s.blocks == 0 && s.bytes == 0);
	lsm_block_cache_destroy(sh.c);
	printf("test_block_cache: threads: %u readers, %lu lookups (%.0f%% hits), %lu inserts, %lu reclaim passes, %lu owners made and dropped beside them: ok\n",
	       nthreads, lookups, 100.0 * hits / lookups, inserts,
	       (unsigned long)(uintptr_t)passes,
	       (unsigned long)(uintptr_t)owners);
	free(r);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "ops", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	long live;
	int c;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "s:t:o:", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			nthreads = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			ops = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: test_block_cache [--seed N] [--threads T] [--ops N]\n");
			return 2;
		}
	}
	if (!seed)
		seed = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("test_block_cache: seed %llu\n", (unsigned long long)seed);
	shim_rcu_register();
	live = shim_kmalloc_live();
	measure_charge();
	test_order();
	test_shrink();
	test_lifetimes();
	test_drop_many();
	test_nomem();
	test_threads();
	/* Every struct freed after its grace period: nothing left. */
	rcu_barrier();
	EXPECT(shim_kmalloc_live() == live);
	shim_rcu_unregister();
	printf("test_block_cache: ok (a block costs the cache %llu bytes)\n",
	       (unsigned long long)charge);
	return 0;
}
