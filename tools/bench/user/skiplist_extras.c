// SPDX-License-Identifier: GPL-2.0
/*
 * Skiplist figures the peer benchmark cannot give, printed as one JSON
 * object on stdout:
 *  - key loads per lookup (built twice: with the seed-001 skip, and with
 *    -DSL_NO_SKIP_REJECTED, so the saving is measured, not assumed);
 *  - index bytes per item after ascending inserts, after random inserts
 *    and after then deleting 90% at random;
 *  - key loads and time per insert, ascending against random: the finger
 *    makes appends O(1) amortised, so their loads stay flat as n grows;
 *  - one leaf alloc+free from the per-height caches against malloc/free
 *    of the same size.  In userspace the caches are the shim's per-thread
 *    free lists, a stand-in for SLUB's per-CPU fast path.
 *
 * The figures per item count are taken on each key set of keyset.h (the
 * extents bench_user and sl_bench.ko use), lookups at a random unit
 * inside a random extent.
 *
 * Usage: skiplist_extras [--items N,N,...] [--keysets K,K,...]
 *                        [--variant NAME]
 */
#include <getopt.h>
#include <time.h>
#include "leaf.h"
#include <linux/slab.h>
#include "keyset.h"

/* The seed of every key set, as bench_user's and sl_bench.ko's. */
#define EX_KEYSET_SEED	1

struct ex_item {
	struct sl_slot slot;
	struct rcu_head rcu;
};

static u64 ex_rng = 0x2545f4914f6cdd1dULL;

static u64 ex_rand(void)
{
	ex_rng ^= ex_rng << 13;
	ex_rng ^= ex_rng >> 7;
	ex_rng ^= ex_rng << 17;
	return ex_rng;
}

static double ex_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void ex_free_slot(struct sl_slot *slot, void *arg)
{
	free(container_of(slot, struct ex_item, slot));
}

/* A random permutation of 0..n-1. */
static unsigned long *ex_perm(unsigned long n)
{
	unsigned long *p = malloc(n * sizeof(*p)), i;

	for (i = 0; i < n; i++)
		p[i] = i;
	for (i = n - 1; i > 0; i--) {
		unsigned long j = ex_rand() % (i + 1), t = p[i];

		p[i] = p[j];
		p[j] = t;
	}
	return p;
}

/* Fills @list; returns ns per insert and the key loads per insert. */
static double ex_fill(struct sl_list *list, const struct bench_extent *ext,
		      const unsigned long *order, unsigned long n,
		      double *loads_per_insert)
{
	unsigned long i, loads0 = sl_key_loads();
	double t = ex_now();

	for (i = 0; i < n; i++) {
		struct ex_item *it = malloc(sizeof(*it));

		it->slot.key = ext[order[i]].key;
		it->slot.size = ext[order[i]].size;
		if (sl_insert(list, &it->slot, GFP_KERNEL))
			abort();
	}
	t = ex_now() - t;
	*loads_per_insert = (double)(sl_key_loads() - loads0) / n;
	return t * 1e9 / n;
}

static double ex_bytes_per_item(struct sl_list *list)
{
	struct sl_stats st;

	sl_stats(list, &st);
	return st.items ? (double)st.bytes / st.items : 0;
}

static void ex_memory_and_loads(unsigned int ks, unsigned long n, bool first)
{
	unsigned long *perm = ex_perm(n), *asc = malloc(n * sizeof(*asc));
	unsigned long i, lookups = 200000, loads0, hits = 0;
	double asc_b, rnd_b, del_b, asc_ns, rnd_ns, asc_loads, rnd_loads;
	struct bench_extent *ext = calloc(2 * n, sizeof(*ext)), *e;
	struct sl_list list;
	struct sl_slot *slot;

	if (!ext || bench_keyset_build(ks, n, EX_KEYSET_SEED, ext))
		abort();
	for (i = 0; i < n; i++)
		asc[i] = i;
	sl_init(&list, GFP_KERNEL);
	asc_ns = ex_fill(&list, ext, asc, n, &asc_loads);
	asc_b = ex_bytes_per_item(&list);
	sl_destroy(&list, ex_free_slot, NULL);

	sl_init(&list, GFP_KERNEL);
	rnd_ns = ex_fill(&list, ext, perm, n, &rnd_loads);
	rnd_b = ex_bytes_per_item(&list);

	/* Random lookups of a unit inside an extent that is there. */
	rcu_read_lock();
	loads0 = sl_key_loads();
	for (i = 0; i < lookups; i++) {
		e = &ext[ex_rand() % n];
		slot = sl_lookup(&list, e->key + ex_rand() % e->size);
		hits += slot && slot->key == e->key;
	}
	rcu_read_unlock();
	if (hits != lookups)
		abort();
	printf("%s\n    {\"keyset\": \"%s\", \"items\": %lu, \"key_loads_per_lookup\": %.2f, ",
	       first ? "" : ",", bench_keyset_name(ks), n,
	       (double)(sl_key_loads() - loads0) / lookups);

	/* Delete 90% at random. */
	for (i = 0; i < n - n / 10; i++) {
		slot = sl_remove(&list, ext[perm[i]].key);
		if (!slot)
			abort();
		free(container_of(slot, struct ex_item, slot));
	}
	del_b = ex_bytes_per_item(&list);
	if (sl_check(&list))
		abort();
	sl_destroy(&list, ex_free_slot, NULL);
	rcu_barrier();
	printf("\"bytes_per_item_ascending\": %.1f, \"bytes_per_item_random\": %.1f, \"bytes_per_item_after_delete_90pct\": %.1f, ",
	       asc_b, rnd_b, del_b);
	printf("\"insert_ns_ascending\": %.1f, \"insert_ns_random\": %.1f, \"key_loads_per_insert_ascending\": %.2f, \"key_loads_per_insert_random\": %.2f}",
	       asc_ns, rnd_ns, asc_loads, rnd_loads);
	free(perm);
	free(asc);
	free(ext);
}

/* ns per alloc+free pair, best of a few rounds. */
static double ex_alloc_cost(bool from_cache, unsigned int height)
{
	size_t size = sl_leaf_size(height);
	double best = 1e9;
	int round, i;

	for (round = 0; round < 5; round++) {
		double t = ex_now();

		for (i = 0; i < 1000000; i++) {
			if (from_cache) {
				struct sl_leaf *leaf = sl_leaf_alloc(height, GFP_KERNEL);

				sl_leaf_free(leaf);
			} else {
				void *p = malloc(size);

				/* Same work as sl_leaf_alloc(): zero it. */
				memset(p, 0, size);
				__asm__ __volatile__("" : : "r"(p) : "memory");
				free(p);
			}
		}
		t = (ex_now() - t) * 1e3;
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "items", required_argument, NULL, 'i' },
		{ "variant", required_argument, NULL, 'v' },
		{ "keysets", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	const char *items = "1000,65536,1048576", *variant = "skip-rejected";
	unsigned int h, ks, keysets = (1U << BENCH_KS_NR) - 1;
	char *list, *tok;
	bool first = true;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'i') {
			items = optarg;
		} else if (c == 'v') {
			variant = optarg;
		} else if (c == 'k') {
			keysets = 0;
			list = strdup(optarg);
			for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
				for (ks = 0; ks < BENCH_KS_NR; ks++)
					if (!strcmp(tok, bench_keyset_name(ks)))
						break;
				if (ks == BENCH_KS_NR) {
					fprintf(stderr, "skiplist_extras: unknown key set '%s'\n",
						tok);
					return 2;
				}
				keysets |= 1U << ks;
			}
			free(list);
		} else {
			return 2;
		}
	}
	shim_rcu_register();
	if (shim_modules_load())
		return 1;
	/* Allocation costs first, while the heap is fresh for both. */
	printf("{\"variant\": \"%s\", \"leaf_keys\": %d,\n  \"leaf_alloc_free_ns\": [",
	       variant, SL_LEAF_KEYS);
	for (h = 1; h <= 3; h++)
		printf("%s\n    {\"height\": %u, \"bytes\": %zu, \"cache\": %.1f, \"malloc\": %.1f}",
		       h > 1 ? "," : "", h, sl_leaf_size(h),
		       ex_alloc_cost(true, h), ex_alloc_cost(false, h));
	printf("\n  ],\n  \"sizes\": [");
	list = strdup(items);
	for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		for (ks = 0; ks < BENCH_KS_NR; ks++) {
			if (!(keysets & (1U << ks)))
				continue;
			ex_memory_and_loads(ks, strtoul(tok, NULL, 0), first);
			first = false;
			fflush(stdout);
		}
	}
	printf("\n  ]\n}\n");
	free(list);
	shim_modules_unload();
	shim_rcu_unregister();
	return 0;
}
