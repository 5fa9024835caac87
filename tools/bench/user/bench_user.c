// SPDX-License-Identifier: GPL-2.0
/*
 * User-space benchmark driver: runs the same workloads against every index
 * in bench_impls[] (see bench_index.h) in one process, so that all of them
 * see the same machine state, the same key sequences and the same thread
 * start-up, and writes the results as markdown and JSON.
 *
 * Key sequences and per-thread random streams are seeded from the workload,
 * key set, item count, thread count and thread number only, never from the
 * index, so every index gets exactly the same operations.
 *
 * Every workload but insert_hole runs on each key set of keyset.h (shared
 * with sl_bench.ko): the extents of the set are inserted, looked up at a
 * random unit inside them, toggled in the mixes and deleted, the same way
 * for every index.  insert_hole allocates its own keys and runs once, with
 * the even set.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench_index.h"
#include "keyset.h"

/* Every set's extents come from this seed, as sl_bench.ko's by default. */
#define KEYSET_SEED	1
#define ITEM_SIZE	BENCH_KS_ITEM_SIZE	/* warm-up and holes */
#define HOLE_SPACE	64	/* insert_hole space per item */
#define HOLE_MAX_SIZE	32	/* hole sizes are 1..HOLE_MAX_SIZE */

enum workload {
	WL_INSERT,
	WL_LOOKUP,
	WL_MIX90,
	WL_MIX50,
	WL_DELETE,
	WL_HOLE,
	WL_MEMORY,
	NR_WL,
};

static const char *const wl_names[NR_WL] = {
	[WL_INSERT]	= "insert",
	[WL_LOOKUP]	= "lookup",
	[WL_MIX90]	= "mix90",
	[WL_MIX50]	= "mix50",
	[WL_DELETE]	= "delete",
	[WL_HOLE]	= "insert_hole",
	[WL_MEMORY]	= "memory",
};

/* ---- configuration ------------------------------------------------------ */

static struct {
	unsigned long *items;
	int nr_items;
	unsigned int *threads;
	int nr_threads;
	double seconds;
	const struct bench_impl **impls;
	int nr_impls;
	bool wl[NR_WL];
	const char *out;
	int rounds;
	unsigned int keysets;		/* mask of enum bench_keyset */
} cfg;

#define MAX_ROUNDS	15

/* ---- results ------------------------------------------------------------ */

struct result {
	unsigned int ks;
	enum workload wl;
	const struct bench_impl *impl;
	unsigned long items;
	unsigned int threads;
	double ops_per_sec;	/* median of the samples */
	double samples[MAX_ROUNDS];
	int nr_samples;		/* one per round */
	bool partial;		/* fixed work cut short by the time cap */
};

struct mem_result {
	unsigned int ks;
	const struct bench_impl *impl;
	unsigned long items;
	const char *phase;
	double index_bpi;	/* < 0: the index does not say */
	double heap_bpi;
};

static double t_begin;		/* for the progress lines */

static struct result *results;
static size_t nr_results, max_results;
static struct mem_result *mem_results;
static size_t nr_mem_results, max_mem_results;

/* ---- helpers ------------------------------------------------------------ */

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "bench_user: FATAL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	/* abort() rather than exit(): other workers may still be running. */
	abort();
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

static void *grow(void *p, size_t *max, size_t need, size_t size)
{
	if (need <= *max)
		return p;
	*max = *max ? *max * 2 : 64;
	p = realloc(p, *max * size);
	if (!p)
		die("out of memory");
	return p;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* splitmix64: tiny state, fast, and good enough to pick keys. */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) by multiply-shift, which avoids a division per op. */
static inline unsigned long rng_below(uint64_t *s, unsigned long n)
{
	return (unsigned long)(((unsigned __int128)rng_next(s) * n) >> 64);
}

static uint64_t seed_of(unsigned int ks, enum workload wl,
			unsigned long items, unsigned int threads,
			unsigned int thread, uint64_t salt)
{
	uint64_t s = ((uint64_t)wl << 56) ^ ((uint64_t)threads << 48) ^
		     ((uint64_t)thread << 40) ^ ((uint64_t)ks << 36) ^ items ^
		     (salt << 20);

	rng_next(&s);
	return s;
}

/* The numbers 0..n-1, shuffled (Fisher-Yates): an order of extents. */
static unsigned long *shuffled(unsigned long n, uint64_t seed)
{
	unsigned long *keys = xcalloc(n, sizeof(*keys));
	unsigned long i, j, tmp;

	for (i = 0; i < n; i++)
		keys[i] = i;
	for (i = n; i > 1; i--) {
		j = rng_below(&seed, i);
		tmp = keys[i - 1];
		keys[i - 1] = keys[j];
		keys[j] = tmp;
	}
	return keys;
}

/*
 * Bytes malloc has handed out and not got back, over all arenas; mmap()ed
 * chunks (hblkhd) count too, because large allocations bypass the arenas.
 */
static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static void main_start(const struct bench_impl *impl, struct bench_index *idx)
{
	if (impl->thread_start)
		impl->thread_start(idx);
}

static void main_stop(const struct bench_impl *impl, struct bench_index *idx)
{
	if (impl->thread_stop)
		impl->thread_stop(idx);
}

static struct bench_index *create_index(const struct bench_impl *impl)
{
	struct bench_index *idx = impl->create();

	if (!idx)
		die("%s: create failed", impl->name);
	return idx;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* A sample of one round; a cell's result is the median of its rounds. */
static void add_result(unsigned int ks, enum workload wl,
		       const struct bench_impl *impl, unsigned long items,
		       unsigned int threads, double ops, bool partial)
{
	struct result *r = NULL;
	size_t i;

	for (i = 0; i < nr_results; i++)
		if (results[i].ks == ks && results[i].wl == wl &&
		    results[i].impl == impl && results[i].items == items &&
		    results[i].threads == threads)
			r = &results[i];
	if (!r) {
		results = grow(results, &max_results, nr_results + 1,
			       sizeof(*results));
		r = &results[nr_results++];
		memset(r, 0, sizeof(*r));
		r->ks = ks;
		r->wl = wl;
		r->impl = impl;
		r->items = items;
		r->threads = threads;
	}
	if (r->nr_samples < MAX_ROUNDS)
		r->samples[r->nr_samples++] = ops;
	r->ops_per_sec = median(r->samples, r->nr_samples);
	r->partial |= partial;
	fprintf(stderr, "[%6.1fs] %-9s %-12s %-14s N=%-8lu T=%u  %10.4g Mops/s%s\n",
		now() - t_begin, bench_keyset_name(ks), wl_names[wl],
		impl->name, items, threads,
		ops / 1e6,
		partial ? " (partial: hit the time cap)" : "");
}

static void add_mem_result(unsigned int ks, const struct bench_impl *impl,
			   unsigned long items, const char *phase,
			   double index_bpi, double heap_bpi)
{
	struct mem_result *m;

	mem_results = grow(mem_results, &max_mem_results, nr_mem_results + 1,
			   sizeof(*mem_results));
	m = &mem_results[nr_mem_results++];
	m->ks = ks;
	m->impl = impl;
	m->items = items;
	m->phase = phase;
	m->index_bpi = index_bpi;
	m->heap_bpi = heap_bpi;
	fprintf(stderr, "[%6.1fs] %-9s %-12s %-14s N=%-8lu %-18s index %8.2f heap %8.2f B/item\n",
		now() - t_begin, bench_keyset_name(ks), "memory", impl->name,
		items, phase,
		index_bpi, heap_bpi);
}

/* ---- worker threads ----------------------------------------------------- */

struct run;

/* One per thread, cache-line aligned so that counters do not false-share. */
struct worker {
	struct run *run;
	pthread_t tid;
	unsigned int id;
	uint64_t seed;
	/* insert and delete: this thread's share of the extents, by number */
	const unsigned long *keys;
	unsigned long nr_keys;
	/* insert_hole: start keys of the items this thread owns */
	unsigned long *live;
	unsigned long nr_live;
	/* outputs */
	uint64_t ops;
	uint64_t inserted;
	uint64_t removed;
	double t_start;
	double t_end;
} __attribute__((aligned(64)));

struct run {
	const struct bench_impl *impl;
	struct bench_index *idx;
	enum workload wl;
	unsigned int ks;
	unsigned int nr_threads;
	/* The key set: ext[0, items) the set, ext[0, 2 * items) the mixes'. */
	const struct bench_extent *ext;
	unsigned long items;		/* lookup: ext[0, items) present */
	unsigned long universe;		/* mixes: ext[0, universe) toggled */
	unsigned int lookup_pct;	/* mixes: share of lookups */
	unsigned long space;		/* insert_hole: [0, space) */
	pthread_barrier_t barrier;
	atomic_bool stop;
	bool partial;			/* fixed work stopped by the cap */
	/* Workers count themselves out here, for the capped wait. */
	pthread_mutex_t done_lock;
	pthread_cond_t done_cond;
	unsigned int nr_done;
	struct worker *w;
};

/* How long insert and delete, and the memory phase's deletes, may take. */
static double fixed_cap(void)
{
	return cfg.seconds * 10 > 2 ? cfg.seconds * 10 : 2;
}

static inline bool stopped(struct run *r)
{
	return atomic_load_explicit(&r->stop, memory_order_relaxed);
}

static void work_insert(struct worker *w)
{
	const struct bench_impl *impl = w->run->impl;
	struct bench_index *idx = w->run->idx;
	unsigned long i;
	int ret;

	const struct bench_extent *e;

	for (i = 0; i < w->nr_keys && !stopped(w->run); i++) {
		e = &w->run->ext[w->keys[i]];
		ret = impl->insert(idx, e->key, e->size);
		if (ret)
			die("%s: insert of fresh key %lu failed: %d",
			    impl->name, e->key, ret);
	}
	w->ops = i;
}

static void work_delete(struct worker *w)
{
	const struct bench_impl *impl = w->run->impl;
	struct bench_index *idx = w->run->idx;
	unsigned long i;
	int ret;

	unsigned long key;

	for (i = 0; i < w->nr_keys && !stopped(w->run); i++) {
		key = w->run->ext[w->keys[i]].key;
		ret = impl->remove(idx, key);
		if (ret)
			die("%s: remove of present key %lu failed: %d",
			    impl->name, key, ret);
	}
	w->ops = i;
}

static void work_lookup(struct worker *w)
{
	struct run *r = w->run;
	const struct bench_impl *impl = r->impl;
	struct bench_index *idx = r->idx;
	uint64_t seed = w->seed, ops = 0;
	const struct bench_extent *e;
	unsigned long key;

	/* A random unit of a random extent. */
	while (!stopped(r)) {
		e = &r->ext[rng_below(&seed, r->items)];
		key = e->key + rng_below(&seed, e->size);
		if (!impl->lookup(idx, key))
			die("%s: lookup of present key %lu returned false",
			    impl->name, key);
		ops++;
	}
	w->ops = ops;
}

static void work_mix(struct worker *w)
{
	struct run *r = w->run;
	const struct bench_impl *impl = r->impl;
	struct bench_index *idx = r->idx;
	uint64_t seed = w->seed, ops = 0, ins = 0, rem = 0;
	/* Alone, nobody can remove the key between our insert and remove. */
	bool strict = r->nr_threads == 1;
	const struct bench_extent *e;
	unsigned long key;
	int ret;

	while (!stopped(r)) {
		e = &r->ext[rng_below(&seed, r->universe)];
		key = e->key;
		ops++;
		if (rng_below(&seed, 100) < r->lookup_pct) {
			impl->lookup(idx, key + rng_below(&seed, e->size));
			continue;
		}
		ret = impl->insert(idx, key, e->size);
		if (!ret) {
			ins++;
			continue;
		}
		if (ret != -EEXIST)
			die("%s: insert of %lu failed: %d", impl->name, key,
			    ret);
		ret = impl->remove(idx, key);
		if (!ret)
			rem++;
		else if (ret != -ENOENT || strict)
			die("%s: remove of %lu failed: %d", impl->name, key,
			    ret);
	}
	w->ops = ops;
	w->inserted = ins;
	w->removed = rem;
}

static void work_hole(struct worker *w)
{
	struct run *r = w->run;
	const struct bench_impl *impl = r->impl;
	struct bench_index *idx = r->idx;
	uint64_t seed = w->seed, ops = 0;
	unsigned long j, size, key;
	int ret;

	if (!w->nr_live)
		return;
	while (!stopped(r)) {
		j = rng_below(&seed, w->nr_live);
		ret = impl->remove(idx, w->live[j]);
		if (ret)
			die("%s: remove of own hole %lu failed: %d",
			    impl->name, w->live[j], ret);
		size = 1 + rng_below(&seed, HOLE_MAX_SIZE);
		ret = impl->insert_hole(idx, size, 1, 0, r->space, &key);
		if (ret)
			die("%s: insert_hole(size %lu) failed: %d",
			    impl->name, size, ret);
		w->live[j] = key;
		ops++;
	}
	w->ops = ops;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->run;

	/* Registration (RCU etc.) happens before the clock starts. */
	main_start(r->impl, r->idx);
	pthread_barrier_wait(&r->barrier);
	w->t_start = now();
	switch (r->wl) {
	case WL_INSERT:
		work_insert(w);
		break;
	case WL_DELETE:
		work_delete(w);
		break;
	case WL_LOOKUP:
		work_lookup(w);
		break;
	case WL_MIX90:
	case WL_MIX50:
		work_mix(w);
		break;
	case WL_HOLE:
		work_hole(w);
		break;
	default:
		die("bad workload %d", r->wl);
	}
	w->t_end = now();
	main_stop(r->impl, r->idx);
	pthread_mutex_lock(&r->done_lock);
	r->nr_done++;
	pthread_cond_signal(&r->done_cond);
	pthread_mutex_unlock(&r->done_lock);
	return NULL;
}

static struct timespec to_timespec(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - ts.tv_sec) * 1e9);
	return ts;
}

/*
 * Start one thread per worker, release them together through the barrier
 * and return the wall time from the first worker starting until the last
 * one finished.  The workers take the times themselves: with more threads
 * than CPUs the main thread may only run again after they are all done.
 * Timed workloads are told to stop after cfg.seconds.  Fixed-work ones
 * (insert, delete) are told to stop at fixed_cap() instead, so that an
 * index with a pathological operation (tbb's O(n) unsafe_erase) cannot hold
 * up the whole run; r->partial then says the work was not all done.
 */
static double run_workers(struct run *r, bool timed)
{
	struct timespec deadline;
	double t0, t_start, t_end = 0;
	pthread_condattr_t attr;
	bool capped = false;
	unsigned int i;
	int ret = 0;

	atomic_store(&r->stop, false);
	if (pthread_barrier_init(&r->barrier, NULL, r->nr_threads + 1))
		die("pthread_barrier_init failed");
	r->nr_done = 0;
	pthread_mutex_init(&r->done_lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&r->done_cond, &attr);
	pthread_condattr_destroy(&attr);
	for (i = 0; i < r->nr_threads; i++) {
		r->w[i].run = r;
		r->w[i].id = i;
		r->w[i].ops = r->w[i].inserted = r->w[i].removed = 0;
		if (pthread_create(&r->w[i].tid, NULL, worker_main, &r->w[i]))
			die("pthread_create failed");
	}
	pthread_barrier_wait(&r->barrier);
	t0 = now();
	if (timed) {
		deadline = to_timespec(t0 + cfg.seconds);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
				       &deadline, NULL) == EINTR)
			;
		atomic_store_explicit(&r->stop, true, memory_order_relaxed);
	} else {
		deadline = to_timespec(t0 + fixed_cap());
		pthread_mutex_lock(&r->done_lock);
		while (r->nr_done < r->nr_threads && ret != ETIMEDOUT)
			ret = pthread_cond_timedwait(&r->done_cond,
						     &r->done_lock, &deadline);
		capped = r->nr_done < r->nr_threads;
		pthread_mutex_unlock(&r->done_lock);
		if (capped)
			atomic_store_explicit(&r->stop, true,
					      memory_order_relaxed);
	}
	for (i = 0; i < r->nr_threads; i++)
		pthread_join(r->w[i].tid, NULL);
	t_start = r->w[0].t_start;
	for (i = 0; i < r->nr_threads; i++) {
		if (r->w[i].t_start < t_start)
			t_start = r->w[i].t_start;
		if (r->w[i].t_end > t_end)
			t_end = r->w[i].t_end;
	}
	pthread_barrier_destroy(&r->barrier);
	pthread_cond_destroy(&r->done_cond);
	pthread_mutex_destroy(&r->done_lock);
	r->partial = false;
	if (capped)
		for (i = 0; i < r->nr_threads; i++)
			if (r->w[i].ops < r->w[i].nr_keys)
				r->partial = true;
	return t_end - t_start;
}

static uint64_t total_ops(struct run *r)
{
	uint64_t ops = 0;
	unsigned int i;

	for (i = 0; i < r->nr_threads; i++)
		ops += r->w[i].ops;
	return ops;
}

/* Give thread i the i-th of nr_threads equal slices of keys[0..n). */
static void split_keys(struct run *r, const unsigned long *keys,
		       unsigned long n)
{
	unsigned int i, t = r->nr_threads;

	for (i = 0; i < t; i++) {
		unsigned long lo = n * i / t, hi = n * (i + 1) / t;

		r->w[i].keys = keys + lo;
		r->w[i].nr_keys = hi - lo;
	}
}

static void set_seeds(struct run *r, enum workload wl, uint64_t salt)
{
	unsigned int i;

	for (i = 0; i < r->nr_threads; i++)
		r->w[i].seed = seed_of(r->ks, wl, r->items, r->nr_threads, i,
				       salt);
}

static bool skip_unsafe(const struct bench_impl *impl, unsigned int threads)
{
	/* Removing needs to be thread-safe unless the thread runs alone. */
	return !impl->concurrent_remove && threads > 1;
}

/*
 * Workloads that remove.  An index that cannot remove alongside other
 * operations (tbb's unsafe_erase) runs them on one thread only, and
 * even there its figure is not one of a concurrent index: the tables say
 * "not comparable" rather than a ratio.
 */
static bool wl_removes(enum workload wl)
{
	return wl == WL_DELETE || wl == WL_MIX90 || wl == WL_MIX50 ||
	       wl == WL_HOLE;
}

static bool comparable(const struct bench_impl *impl, enum workload wl)
{
	return impl->concurrent_remove || !wl_removes(wl);
}

/* ---- workloads ---------------------------------------------------------- */

/*
 * insert, lookup and delete share one index: fill it with the set's n
 * extents (timed as insert), run the lookups on the full index, then empty
 * it in another random order (timed as delete).  Small fills take
 * microseconds, where thread wake-up skew would dominate, so insert and
 * delete are repeated on fresh indexes until each has accumulated a fifth
 * of --seconds (or the rounds, with their untimed thread start-up, have
 * taken twice --seconds); lookup runs once.
 */
static void run_basic(const struct bench_impl *impl, unsigned int ks,
		      const struct bench_extent *ext, unsigned long n,
		      unsigned int threads, struct worker *w)
{
	bool do_insert = cfg.wl[WL_INSERT], do_lookup = cfg.wl[WL_LOOKUP];
	bool do_delete = cfg.wl[WL_DELETE] && !skip_unsafe(impl, threads);
	bool ins_partial = false, del_partial = false;
	double min_time = cfg.seconds / 5, ins_time = 0, del_time = 0;
	double give_up = now() + 2 * cfg.seconds;
	uint64_t ins_ops = 0, del_ops = 0;
	struct run r = {
		.impl = impl, .ks = ks, .nr_threads = threads, .items = n,
		.ext = ext, .w = w,
	};
	const struct bench_extent *e;
	unsigned long *order, i, j;
	uint64_t round = 0, seed;
	int ret;

	if (!do_insert && !do_lookup && !do_delete)
		return;
	do {
		r.idx = create_index(impl);
		order = shuffled(n, seed_of(ks, WL_INSERT, n, threads, 0,
					    round));
		r.wl = WL_INSERT;
		split_keys(&r, order, n);
		ins_time += run_workers(&r, false);
		ins_ops += total_ops(&r);
		if (r.partial) {
			/* Lookup and delete want the whole set present. */
			ins_partial = true;
			main_start(impl, r.idx);
			for (i = 0; i < threads; i++)
				for (j = w[i].ops; j < w[i].nr_keys; j++) {
					e = &ext[w[i].keys[j]];
					ret = impl->insert(r.idx, e->key,
							   e->size);
					if (ret)
						die("%s: insert of fresh key %lu failed: %d",
						    impl->name, e->key, ret);
				}
			main_stop(impl, r.idx);
		}
		free(order);

		if (do_lookup && !round) {
			double t;

			r.wl = WL_LOOKUP;
			set_seeds(&r, WL_LOOKUP, 0);
			t = run_workers(&r, true);
			add_result(ks, WL_LOOKUP, impl, n, threads,
				   total_ops(&r) / t, false);
		}

		if (do_delete) {
			order = shuffled(n, seed_of(ks, WL_DELETE, n, threads,
						    0, round));
			r.wl = WL_DELETE;
			split_keys(&r, order, n);
			del_time += run_workers(&r, false);
			del_ops += total_ops(&r);
			free(order);
			del_partial |= r.partial;
		}

		if (do_delete && !r.partial) {
			/* Spot-check that the index really is empty. */
			main_start(impl, r.idx);
			seed = seed_of(ks, WL_DELETE, n, threads, 0, ~round);
			for (i = 0; i < 1000; i++) {
				e = &ext[rng_below(&seed, n)];
				if (impl->lookup(r.idx, e->key))
					die("%s: key %lu still found after delete",
					    impl->name, e->key);
			}
			main_stop(impl, r.idx);
		}
		impl->destroy(r.idx);
		round++;
	} while (((do_insert && ins_time < min_time) ||
		  (do_delete && del_time < min_time)) && now() < give_up);

	if (do_insert)
		add_result(ks, WL_INSERT, impl, n, threads, ins_ops / ins_time,
			   ins_partial);
	if (do_delete)
		add_result(ks, WL_DELETE, impl, n, threads, del_ops / del_time,
			   del_partial);
}

/*
 * A universe of the set's 2n extents, a random half of them present; each
 * op looks up a random unit of a random universe extent or toggles the
 * extent (insert, or remove if it was there), so the fill level stays near
 * n.  Afterwards the number of extents present must equal what the
 * successful inserts and removes add up to.
 */
static void run_mix(const struct bench_impl *impl, unsigned int ks,
		    const struct bench_extent *ext, unsigned long n,
		    unsigned int threads, struct worker *w, enum workload wl)
{
	struct run r = {
		.impl = impl, .wl = wl, .ks = ks, .nr_threads = threads,
		.items = n, .ext = ext, .universe = 2 * n,
		.lookup_pct = wl == WL_MIX90 ? 90 : 50, .w = w,
	};
	unsigned long *order, i, present = 0, expect = n;
	double t;
	int ret;

	if (!cfg.wl[wl] || skip_unsafe(impl, threads))
		return;
	r.idx = create_index(impl);
	order = shuffled(r.universe, seed_of(ks, wl, n, 0, 0, 0));
	main_start(impl, r.idx);
	for (i = 0; i < n; i++) {
		ret = impl->insert(r.idx, ext[order[i]].key,
				   ext[order[i]].size);
		if (ret)
			die("%s: %s fill insert failed: %d", impl->name,
			    wl_names[wl], ret);
	}
	main_stop(impl, r.idx);
	free(order);

	set_seeds(&r, wl, 0);
	t = run_workers(&r, true);
	add_result(ks, wl, impl, n, threads, total_ops(&r) / t, false);

	for (i = 0; i < threads; i++)
		expect += w[i].inserted - w[i].removed;
	main_start(impl, r.idx);
	for (i = 0; i < r.universe; i++)
		present += impl->lookup(r.idx, ext[i].key);
	main_stop(impl, r.idx);
	if (present != expect)
		die("%s: %s left %lu keys, successful updates say %lu",
		    impl->name, wl_names[wl], present, expect);
	impl->destroy(r.idx);
}

/*
 * IOVA-style churn.  The fill allocates n holes of random size; first fit on
 * an empty space just packs them from 0, so the fill passes the end of the
 * previous hole as min, which places every hole exactly where a search from
 * 0 would but keeps a linear first-fit search from turning the untimed fill
 * quadratic.  Each timed op then frees one of the thread's own holes and
 * allocates a new random-sized one by first fit over the whole space.  The
 * allocator picks the keys, so this runs once, under the even set.
 */
static void run_hole(const struct bench_impl *impl, unsigned long n,
		     unsigned int threads, struct worker *w)
{
	struct run r = {
		.impl = impl, .wl = WL_HOLE, .ks = BENCH_KS_EVEN,
		.nr_threads = threads, .items = n, .space = n * HOLE_SPACE,
		.w = w,
	};
	unsigned long cursor = 0, size, key = 0, i, j;
	uint64_t seed = seed_of(BENCH_KS_EVEN, WL_HOLE, n, 0, 0, 0);
	double t;
	int ret;

	if (!cfg.wl[WL_HOLE] || !impl->insert_hole ||
	    skip_unsafe(impl, threads))
		return;
	r.idx = create_index(impl);
	for (i = 0; i < threads; i++) {
		w[i].live = xcalloc(n / threads + 1, sizeof(*w[i].live));
		w[i].nr_live = 0;
	}
	main_start(impl, r.idx);
	for (i = 0; i < n; i++) {
		size = 1 + rng_below(&seed, HOLE_MAX_SIZE);
		ret = impl->insert_hole(r.idx, size, 1, cursor, r.space, &key);
		if (ret || key != cursor)
			die("%s: insert_hole fill gave %d at %lu, expected %lu",
			    impl->name, ret, key, cursor);
		cursor += size;
		w[i % threads].live[w[i % threads].nr_live++] = key;
	}
	main_stop(impl, r.idx);

	set_seeds(&r, WL_HOLE, 0);
	t = run_workers(&r, true);
	add_result(BENCH_KS_EVEN, WL_HOLE, impl, n, threads,
		   total_ops(&r) / t, false);

	main_start(impl, r.idx);
	for (i = 0; i < threads; i++)
		for (j = 0; j < w[i].nr_live; j++)
			if (!impl->lookup(r.idx, w[i].live[j]))
				die("%s: allocated hole %lu not found",
				    impl->name, w[i].live[j]);
	main_stop(impl, r.idx);
	impl->destroy(r.idx);
	for (i = 0; i < threads; i++) {
		free(w[i].live);
		w[i].live = NULL;
	}
}

/*
 * Single-threaded on the main thread, so that all allocations come from one
 * arena and nothing else is allocating while the heap is sampled.  The
 * samples are only recorded at the end, because recording allocates.
 */
static void run_memory(const struct bench_impl *impl, unsigned int ks,
		       const struct bench_extent *ext, unsigned long n)
{
	unsigned long *keys = shuffled(n, seed_of(ks, WL_MEMORY, n, 1, 0, 0));
	unsigned long *order = shuffled(n, seed_of(ks, WL_MEMORY, n, 1, 0, 1));
	unsigned long i, nr_del = n - n / 10, left = n - nr_del;
	double full_index = -1, full_heap, del_index = -1, del_heap = 0;
	bool deleted = true;
	double deadline;
	struct bench_index *idx;
	size_t before;
	int ret;

	before = heap_used();
	idx = create_index(impl);
	main_start(impl, idx);
	for (i = 0; i < n; i++) {
		ret = impl->insert(idx, ext[keys[i]].key, ext[keys[i]].size);
		if (ret)
			die("%s: memory fill insert failed: %d", impl->name,
			    ret);
	}
	if (impl->quiesce)
		impl->quiesce(idx);
	full_heap = ((double)heap_used() - before) / n;
	if (impl->index_bytes)
		full_index = (double)impl->index_bytes(idx) / n;

	deadline = now() + fixed_cap();
	for (i = 0; i < nr_del; i++) {
		ret = impl->remove(idx, ext[order[i]].key);
		if (ret)
			die("%s: memory remove failed: %d", impl->name, ret);
		/* Checked every time: one tbb unsafe_erase can take 50 ms. */
		if (now() > deadline) {
			deleted = false;
			break;
		}
	}
	if (deleted && left) {
		if (impl->quiesce)
			impl->quiesce(idx);
		del_heap = ((double)heap_used() - before) / left;
		if (impl->index_bytes)
			del_index = (double)impl->index_bytes(idx) / left;
	}
	main_stop(impl, idx);
	impl->destroy(idx);
	free(keys);
	free(order);

	add_mem_result(ks, impl, n, "full", full_index, full_heap);
	if (deleted && left)
		add_mem_result(ks, impl, n, "after_delete_90pct", del_index,
			       del_heap);
	else if (!deleted)
		fprintf(stderr, "[%6.1fs] %-9s %-12s %-14s N=%-8lu after_delete_90pct skipped: deletes hit the %.3g s cap\n",
			now() - t_begin, bench_keyset_name(ks), "memory",
			impl->name, n, fixed_cap());
}

static void warm_up(const struct bench_impl *impl)
{
	struct bench_index *idx = create_index(impl);

	main_start(impl, idx);
	if (impl->insert(idx, 0, ITEM_SIZE) || !impl->lookup(idx, 0) ||
	    impl->remove(idx, 0) || impl->lookup(idx, 0))
		die("%s: fails a single insert/lookup/remove", impl->name);
	main_stop(impl, idx);
	impl->destroy(idx);
}

/* ---- output ------------------------------------------------------------- */

static struct {
	char cpu[256];
	long nproc;
	char kernel[256];
	char date[64];
} machine;

static const char compiler[] =
#ifdef __clang__
	"clang "
#else
	"gcc "
#endif
	__VERSION__;

static void get_machine(void)
{
	char line[512], *p;
	struct utsname u;
	time_t t = time(NULL);
	FILE *f;

	strcpy(machine.cpu, "unknown");
	f = fopen("/proc/cpuinfo", "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "model name", 10))
				continue;
			p = strchr(line, ':');
			if (!p)
				continue;
			p += 1 + strspn(p + 1, " \t");
			p[strcspn(p, "\n")] = '\0';
			snprintf(machine.cpu, sizeof(machine.cpu), "%s", p);
			break;
		}
		fclose(f);
	}
	machine.nproc = sysconf(_SC_NPROCESSORS_ONLN);
	if (!uname(&u))
		snprintf(machine.kernel, sizeof(machine.kernel), "%s",
			 u.release);
	strftime(machine.date, sizeof(machine.date), "%Y-%m-%dT%H:%M:%SZ",
		 gmtime(&t));
}

static const struct result *find_result(unsigned int ks, enum workload wl,
					const struct bench_impl *impl,
					unsigned long items,
					unsigned int threads)
{
	size_t i;

	for (i = 0; i < nr_results; i++)
		if (results[i].ks == ks && results[i].wl == wl &&
		    results[i].impl == impl && results[i].items == items &&
		    results[i].threads == threads)
			return &results[i];
	return NULL;
}

/* Three significant digits or so, without drowning small values in 0.00. */
static const char *fmt_num(char *buf, size_t len, double v)
{
	if (v >= 100)
		snprintf(buf, len, "%.0f", v);
	else if (v >= 10)
		snprintf(buf, len, "%.1f", v);
	else if (v >= 0.1)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.2g", v);
	return buf;
}

static const char *const keyset_about[BENCH_KS_NR] = {
	[BENCH_KS_EVEN] = "evenly spaced: extents [16i, 16i + 8), every key a multiple of one stride (the one distribution where the skiplist's interpolated guess in a leaf and its directory's buckets are exact)",
	[BENCH_KS_UNIFORM] = "8-unit extents at uniformly random 64-bit keys",
	[BENCH_KS_EXTENTS] = "file extents: files 1-2 TiB apart, each a contiguous run of 1-32 extents of 4 KiB to 1 MiB (powers of two, mixed), keys in bytes; lookups at a random byte inside an extent",
	[BENCH_KS_CLUSTERED] = "8-unit extents, 90% of them in one window of 0.1% of the 64-bit space, the rest anywhere",
	[BENCH_KS_GEOMETRIC] = "8-unit extents with gaps spread over every scale: 2^k plus up to 2^k, k uniform in 3..40",
};

static void write_markdown_keyset(FILE *f, unsigned int ks)
{
	const struct bench_impl *base = cfg.impls[0];
	bool any_partial, any_nc;
	char buf[64];
	int wl, a, b, c;

	fprintf(f, "## key set: %s\n\n%s.\n\n", bench_keyset_name(ks),
		keyset_about[ks]);
	for (wl = 0; wl < WL_MEMORY; wl++) {
		if (!cfg.wl[wl] || (wl == WL_HOLE && ks != BENCH_KS_EVEN))
			continue;
		any_partial = any_nc = false;
		fprintf(f, "### %s, %s (Mops/s)\n\n| items | threads |",
			bench_keyset_name(ks), wl_names[wl]);
		for (c = 0; c < cfg.nr_impls; c++)
			fprintf(f, " %s |", cfg.impls[c]->name);
		for (c = 1; c < cfg.nr_impls; c++)
			fprintf(f, " %s / %s |", base->name, cfg.impls[c]->name);
		fprintf(f, "\n|---:|---:|");
		for (c = 1; c < 2 * cfg.nr_impls; c++)
			fprintf(f, "---:|");
		fprintf(f, "\n");

		for (a = 0; a < cfg.nr_items; a++) {
			for (b = 0; b < cfg.nr_threads; b++) {
				unsigned long n = cfg.items[a];
				unsigned int t = cfg.threads[b];
				const struct result *r0, *r;

				fprintf(f, "| %lu | %u |", n, t);
				for (c = 0; c < cfg.nr_impls; c++) {
					r = find_result(ks, wl, cfg.impls[c], n, t);
					if (!r) {
						fprintf(f, " n/a |");
						continue;
					}
					fprintf(f, " %s%s |",
						fmt_num(buf, sizeof(buf),
							r->ops_per_sec / 1e6),
						r->partial ? "*" : "");
					any_partial |= r->partial;
				}
				r0 = find_result(ks, wl, base, n, t);
				for (c = 1; c < cfg.nr_impls; c++) {
					r = find_result(ks, wl, cfg.impls[c], n, t);
					if (!comparable(cfg.impls[c], wl)) {
						fprintf(f, " not comparable |");
						any_nc = true;
					} else if (r0 && r && r->ops_per_sec > 0) {
						fprintf(f, " %sx |",
							fmt_num(buf, sizeof(buf),
								r0->ops_per_sec /
								r->ops_per_sec));
					} else {
						fprintf(f, " n/a |");
					}
				}
				fprintf(f, "\n");
			}
		}
		if (any_partial)
			fprintf(f, "\n\\* stopped at the %.3g s cap before all %s work was done; the rate is over the part done.\n",
				fixed_cap(), wl_names[wl]);
		if (any_nc)
			fprintf(f, "\nnot comparable: the index cannot remove concurrently with other operations (tbb's unsafe_erase), so it runs this workload on one thread only, and even there its rate is not one of a concurrent index.\n");
		fprintf(f, "\n");
	}
}

static void write_markdown_memory(FILE *f, unsigned int ks)
{
	static const char *const phases[] = { "full", "after_delete_90pct" };
	const struct mem_result *m;
	int a, c, p;
	size_t k;

	fprintf(f, "### %s, memory (bytes per item: heap growth, and the index's own count in parentheses)\n\n",
		bench_keyset_name(ks));
	fprintf(f, "| items | phase |");
	for (c = 0; c < cfg.nr_impls; c++)
		fprintf(f, " %s |", cfg.impls[c]->name);
	fprintf(f, "\n|---:|---|");
	for (c = 0; c < cfg.nr_impls; c++)
		fprintf(f, "---:|");
	fprintf(f, "\n");
	for (a = 0; a < cfg.nr_items; a++) {
		for (p = 0; p < 2; p++) {
			fprintf(f, "| %lu | %s |", cfg.items[a], phases[p]);
			for (c = 0; c < cfg.nr_impls; c++) {
				m = NULL;
				for (k = 0; k < nr_mem_results; k++)
					if (mem_results[k].ks == ks &&
					    mem_results[k].impl == cfg.impls[c] &&
					    mem_results[k].items == cfg.items[a] &&
					    !strcmp(mem_results[k].phase,
						    phases[p]))
						m = &mem_results[k];
				if (!m)
					fprintf(f, " n/a |");
				else if (m->index_bpi < 0)
					fprintf(f, " %.1f |", m->heap_bpi);
				else
					fprintf(f, " %.1f (%.1f) |",
						m->heap_bpi, m->index_bpi);
			}
			fprintf(f, "\n");
		}
	}
	fprintf(f, "\n");
}

static void write_markdown(FILE *f)
{
	unsigned int ks;

	fprintf(f, "# User-space index benchmark\n\n");
	fprintf(f, "CPU: %s, %ld CPUs, kernel %s, %s, %s; %.3g s per timed cell; each figure is the median of %d round%s, the indexes taking turns within each round.  Every index gets the same extents and the same operations; lookups ask for a random unit inside a random extent (tbb-map and cds-skiplist find the extent holding it through a comparator that orders a unit against an extent).\n\n",
		machine.cpu, machine.nproc, machine.kernel, compiler,
		machine.date, cfg.seconds, cfg.rounds,
		cfg.rounds > 1 ? "s" : "");
	if (cfg.wl[WL_MEMORY])
		fprintf(f, "Memory: filled single-threaded with the items inserted in random order, then 90%% of them removed in random order; per item still present.  Heap: growth of mallinfo2() in-use bytes (items, index and malloc overhead).  Index: what the index reports for itself (rbtree: the link fields embedded in each item).  Frees deferred past an RCU grace period are completed before each sample (quiesce); after the deletes, small sets mostly show allocator caches and per-thread free lists.  n/a: not run, or the deletes hit the time cap.\n\n");
	for (ks = 0; ks < BENCH_KS_NR; ks++) {
		if (!(cfg.keysets & (1U << ks)))
			continue;
		write_markdown_keyset(f, ks);
		if (cfg.wl[WL_MEMORY])
			write_markdown_memory(f, ks);
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void write_json(FILE *f)
{
	unsigned int ks;
	bool first;
	size_t i;
	int k;

	fprintf(f, "{\n  \"machine\": {\n    \"cpu\": ");
	json_str(f, machine.cpu);
	fprintf(f, ",\n    \"nproc\": %ld,\n    \"kernel\": ", machine.nproc);
	json_str(f, machine.kernel);
	fprintf(f, ",\n    \"compiler\": ");
	json_str(f, compiler);
	fprintf(f, ",\n    \"date\": ");
	json_str(f, machine.date);
	fprintf(f, ",\n    \"seconds\": %g,\n    \"rounds\": %d\n  },\n  \"keysets\": [",
		cfg.seconds, cfg.rounds);
	for (ks = 0, first = true; ks < BENCH_KS_NR; ks++) {
		if (!(cfg.keysets & (1U << ks)))
			continue;
		fprintf(f, "%s\n    {\"name\": \"%s\", \"about\": ",
			first ? "" : ",", bench_keyset_name(ks));
		json_str(f, keyset_about[ks]);
		fprintf(f, "}");
		first = false;
	}
	fprintf(f, "\n  ],\n  \"impls\": [");
	for (k = 0; k < cfg.nr_impls; k++) {
		fprintf(f, "%s\n    {\"name\": ", k ? "," : "");
		json_str(f, cfg.impls[k]->name);
		fprintf(f, ", \"concurrent_remove\": %s}",
			cfg.impls[k]->concurrent_remove ? "true" : "false");
	}
	fprintf(f, "\n  ],\n  \"results\": [");
	for (i = 0; i < nr_results; i++) {
		const struct result *r = &results[i];

		fprintf(f, "%s\n    {\"keyset\": \"%s\", \"workload\": \"%s\", \"impl\": ",
			i ? "," : "", bench_keyset_name(r->ks),
			wl_names[r->wl]);
		json_str(f, r->impl->name);
		fprintf(f, ", \"items\": %lu, \"threads\": %u, \"ops_per_sec\": %.1f, \"samples\": [",
			r->items, r->threads, r->ops_per_sec);
		for (k = 0; k < r->nr_samples; k++)
			fprintf(f, "%s%.1f", k ? ", " : "", r->samples[k]);
		fprintf(f, "]");
		if (r->partial)
			fprintf(f, ", \"partial\": true");
		if (!comparable(r->impl, r->wl))
			fprintf(f, ", \"comparable\": false");
		fprintf(f, "}");
	}
	fprintf(f, "\n  ],\n  \"memory\": [");
	for (i = 0; i < nr_mem_results; i++) {
		const struct mem_result *m = &mem_results[i];

		fprintf(f, "%s\n    {\"keyset\": \"%s\", \"impl\": ", i ? "," : "",
			bench_keyset_name(m->ks));
		json_str(f, m->impl->name);
		fprintf(f, ", \"items\": %lu, \"phase\": \"%s\", \"index_bytes_per_item\": ",
			m->items, m->phase);
		if (m->index_bpi < 0)
			fprintf(f, "null");
		else
			fprintf(f, "%.2f", m->index_bpi);
		fprintf(f, ", \"heap_bytes_per_item\": %.2f}", m->heap_bpi);
	}
	fprintf(f, "\n  ]\n}\n");
}

static void mkdir_p(const char *path)
{
	char *p, *s = strdup(path);
	bool last;

	if (!s)
		die("out of memory");
	/* Create every prefix that ends at a '/', then the whole path. */
	for (p = s + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		last = !*p;
		*p = '\0';
		if (mkdir(s, 0777) && errno != EEXIST)
			die("mkdir %s: %s", s, strerror(errno));
		if (last)
			break;
		*p = '/';
	}
	free(s);
}

static FILE *open_out(const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cfg.out, name);
	f = fopen(path, "w");
	if (!f)
		die("cannot write %s: %s", path, strerror(errno));
	return f;
}

/* ---- command line ------------------------------------------------------- */

static void usage(FILE *f)
{
	int i;

	fprintf(f,
"usage: bench_user [options]\n"
"  --items N,N,...      item counts (default 1000,65536,1048576)\n"
"  --threads T,T,...    thread counts (default 1,2)\n"
"  --seconds S          duration of each timed cell (default 0.5)\n"
"  --impls a,b,...      indexes to run, first is the ratio baseline\n"
"                       (default all, in built-in order)\n"
"  --workloads w,...    subset of the workloads (default all)\n"
"  --keysets k,...      key sets (default all; insert_hole runs with even)\n"
"  --out DIR            where user.md and user.json go (default build/bench)\n"
"  --rounds R           repeat each cell R times, indexes interleaved, and\n"
"                       report the median (default 3, 1 with --quick)\n"
"  --quick              items 1000,65536, 0.1 s and one round, unless given\n"
"indexes:");
	for (i = 0; bench_impls[i]; i++)
		fprintf(f, " %s", bench_impls[i]->name);
	fprintf(f, "\nworkloads:");
	for (i = 0; i < NR_WL; i++)
		fprintf(f, " %s", wl_names[i]);
	fprintf(f, "\nkey sets:");
	for (i = 0; i < BENCH_KS_NR; i++)
		fprintf(f, " %s", bench_keyset_name(i));
	fprintf(f, "\n");
}

/* Split a comma-separated list in place; returns the number of fields. */
static int split_list(char *s, char ***out)
{
	char **v = NULL, *tok, *save;
	int n = 0;

	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		v = realloc(v, (n + 1) * sizeof(*v));
		if (!v)
			die("out of memory");
		v[n++] = tok;
	}
	if (!n)
		die("empty list");
	*out = v;
	return n;
}

static unsigned long parse_ulong(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || !v || *s == '-')
		die("bad %s: '%s'", what, s);
	return v;
}

static void parse_items(char *arg)
{
	char **v;
	int i;

	cfg.nr_items = split_list(arg, &v);
	cfg.items = xcalloc(cfg.nr_items, sizeof(*cfg.items));
	for (i = 0; i < cfg.nr_items; i++)
		cfg.items[i] = parse_ulong(v[i], "item count");
	free(v);
}

static void parse_threads(char *arg)
{
	char **v;
	int i;

	cfg.nr_threads = split_list(arg, &v);
	cfg.threads = xcalloc(cfg.nr_threads, sizeof(*cfg.threads));
	for (i = 0; i < cfg.nr_threads; i++) {
		unsigned long t = parse_ulong(v[i], "thread count");

		if (t > 1024)
			die("bad thread count: %lu", t);
		cfg.threads[i] = t;
	}
	free(v);
}

static void parse_impls(char *arg)
{
	char **v;
	int i, j;

	cfg.nr_impls = split_list(arg, &v);
	cfg.impls = xcalloc(cfg.nr_impls, sizeof(*cfg.impls));
	for (i = 0; i < cfg.nr_impls; i++) {
		for (j = 0; bench_impls[j]; j++)
			if (!strcmp(bench_impls[j]->name, v[i]))
				break;
		if (!bench_impls[j]) {
			usage(stderr);
			die("unknown index '%s'", v[i]);
		}
		cfg.impls[i] = bench_impls[j];
	}
	free(v);
}

static void parse_workloads(char *arg)
{
	char **v;
	int i, j, n = split_list(arg, &v);

	memset(cfg.wl, 0, sizeof(cfg.wl));
	for (i = 0; i < n; i++) {
		for (j = 0; j < NR_WL; j++)
			if (!strcmp(wl_names[j], v[i]))
				break;
		if (j == NR_WL) {
			usage(stderr);
			die("unknown workload '%s'", v[i]);
		}
		cfg.wl[j] = true;
	}
	free(v);
}

static void parse_keysets(char *arg)
{
	char **v;
	unsigned int j;
	int i, n = split_list(arg, &v);

	cfg.keysets = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < BENCH_KS_NR; j++)
			if (!strcmp(bench_keyset_name(j), v[i]))
				break;
		if (j == BENCH_KS_NR) {
			usage(stderr);
			die("unknown key set '%s'", v[i]);
		}
		cfg.keysets |= 1U << j;
	}
	free(v);
}

static void parse_args(int argc, char **argv)
{
	enum { OPT_ITEMS = 256, OPT_THREADS, OPT_SECONDS, OPT_IMPLS,
	       OPT_WORKLOADS, OPT_OUT, OPT_QUICK, OPT_ROUNDS, OPT_KEYSETS,
	       OPT_HELP };
	static const struct option opts[] = {
		{ "items",	required_argument, NULL, OPT_ITEMS },
		{ "threads",	required_argument, NULL, OPT_THREADS },
		{ "seconds",	required_argument, NULL, OPT_SECONDS },
		{ "impls",	required_argument, NULL, OPT_IMPLS },
		{ "workloads",	required_argument, NULL, OPT_WORKLOADS },
		{ "out",	required_argument, NULL, OPT_OUT },
		{ "quick",	no_argument,	   NULL, OPT_QUICK },
		{ "rounds",	required_argument, NULL, OPT_ROUNDS },
		{ "keysets",	required_argument, NULL, OPT_KEYSETS },
		{ "help",	no_argument,	   NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	bool quick = false, have_seconds = false;
	char items_default[] = "1000,65536,1048576";
	char items_quick[] = "1000,65536";
	char threads_default[] = "1,2";
	char *end;
	int opt, i;

	cfg.seconds = 0.5;
	cfg.out = "build/bench";
	cfg.keysets = (1U << BENCH_KS_NR) - 1;
	for (i = 0; i < NR_WL; i++)
		cfg.wl[i] = true;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_ITEMS:
			free(cfg.items);
			parse_items(optarg);
			break;
		case OPT_THREADS:
			free(cfg.threads);
			parse_threads(optarg);
			break;
		case OPT_SECONDS:
			cfg.seconds = strtod(optarg, &end);
			if (*end || end == optarg || !(cfg.seconds > 0) ||
			    cfg.seconds > 3600)
				die("bad --seconds '%s'", optarg);
			have_seconds = true;
			break;
		case OPT_IMPLS:
			free(cfg.impls);
			parse_impls(optarg);
			break;
		case OPT_WORKLOADS:
			parse_workloads(optarg);
			break;
		case OPT_OUT:
			cfg.out = optarg;
			break;
		case OPT_QUICK:
			quick = true;
			break;
		case OPT_ROUNDS:
			cfg.rounds = strtol(optarg, &end, 10);
			if (*end || cfg.rounds < 1 || cfg.rounds > MAX_ROUNDS)
				die("bad --rounds '%s' (1..%d)", optarg,
				    MAX_ROUNDS);
			break;
		case OPT_KEYSETS:
			parse_keysets(optarg);
			break;
		case OPT_HELP:
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		usage(stderr);
		die("unexpected argument '%s'", argv[optind]);
	}

	if (quick && !have_seconds)
		cfg.seconds = 0.1;
	if (!cfg.rounds)
		cfg.rounds = quick ? 1 : 3;
	if (!cfg.items)
		parse_items(quick ? items_quick : items_default);
	for (i = 0; i < cfg.nr_items; i++)
		if (cfg.items[i] > BENCH_KS_MAX_N)
			die("bad item count %lu: at most %lu", cfg.items[i],
			    BENCH_KS_MAX_N);
	if (!cfg.threads)
		parse_threads(threads_default);
	if (!cfg.impls) {
		for (i = 0; bench_impls[i]; i++)
			;
		cfg.nr_impls = i;
		cfg.impls = xcalloc(i, sizeof(*cfg.impls));
		memcpy(cfg.impls, bench_impls, i * sizeof(*cfg.impls));
	}
}

int main(int argc, char **argv)
{
	unsigned int max_threads = 0, ks;
	struct bench_extent *ext;
	struct worker *w;
	int a, b, c;
	FILE *f;

	t_begin = now();
	parse_args(argc, argv);
	get_machine();
	mkdir_p(cfg.out);

	for (b = 0; b < cfg.nr_threads; b++)
		if (cfg.threads[b] > max_threads)
			max_threads = cfg.threads[b];
	w = aligned_alloc(64, max_threads * sizeof(*w));
	if (!w)
		die("out of memory");
	memset(w, 0, max_threads * sizeof(*w));

	/*
	 * Let every library do its one-time setup (libcds creates its RCU
	 * singleton on the first create()) before any heap is sampled.
	 */
	for (c = 0; c < cfg.nr_impls; c++)
		warm_up(cfg.impls[c]);

	for (a = 0; a < cfg.nr_items; a++) {
		unsigned long n = cfg.items[a];

		ext = xcalloc(2 * n, sizeof(*ext));
		for (ks = 0; ks < BENCH_KS_NR; ks++) {
			if (!(cfg.keysets & (1U << ks)))
				continue;
			if (bench_keyset_build(ks, n, KEYSET_SEED, ext))
				die("cannot build key set %s of %lu",
				    bench_keyset_name(ks), n);
			fprintf(stderr, "N=%lu, key set %s\n", n,
				bench_keyset_name(ks));
			if (cfg.wl[WL_MEMORY])
				for (c = 0; c < cfg.nr_impls; c++)
					run_memory(cfg.impls[c], ks, ext, n);
			for (b = 0; b < cfg.nr_threads; b++) {
				unsigned int t = cfg.threads[b];
				int round;

				/* Rounds interleave the indexes, so drift hits all. */
				for (round = 0; round < cfg.rounds; round++) {
					for (c = 0; c < cfg.nr_impls; c++) {
						const struct bench_impl *impl = cfg.impls[c];

						run_basic(impl, ks, ext, n, t, w);
						run_mix(impl, ks, ext, n, t, w,
							WL_MIX90);
						run_mix(impl, ks, ext, n, t, w,
							WL_MIX50);
						if (ks == BENCH_KS_EVEN)
							run_hole(impl, n, t, w);
					}
				}
			}
		}
		free(ext);
	}
	free(w);

	write_markdown(stdout);
	f = open_out("user.md");
	write_markdown(f);
	fclose(f);
	f = open_out("user.json");
	write_json(f);
	fclose(f);
	fprintf(stderr, "wrote %s/user.md and %s/user.json in %.1f s\n",
		cfg.out, cfg.out, now() - t_begin);
	return 0;
}
