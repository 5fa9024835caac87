// SPDX-License-Identifier: GPL-2.0
/*
 * The range allocator (extent/range_alloc.c) against models.
 *
 * Differential part: random allocations (sizes, alignments, windows,
 * hints), frees, double frees, frees with the wrong size and reservations,
 * on the allocator and on a bitmap model of the same space, compared after
 * every operation: the allocator must return exactly the start the model's
 * first fit from the hint (then from the window's start) finds, and the
 * same error.  Stats are compared every 500 operations and sl_check()
 * (which checks the gap index's bounds) runs as often.  The space sits at
 * 0, at 2^40 and at the top of unsigned long.  Allocations fail at random
 * in every other block of operations; -ENOMEM must change nothing.
 *
 * Stress part (--threads): threads allocating (per-CPU hints) and freeing
 * at once, with the allocator's shadow bitmap on and a second bitmap here
 * that each thread marks with atomic test-and-set: no unit may ever be
 * handed out twice, every free must succeed, and at the end every unit is
 * free again, the shadow reports no error and the gap bounds check out.
 * It runs for half the time as is, and half with the per-CPU caches of
 * freed ranges (SL_RANGE_CACHE) in a space so small that the caches fill
 * it: allocations then reclaim cached ranges through the index while the
 * CPUs holding them pop and push.
 *
 * Usage: range_test [--ops N] [--seed S] [--threads T] [--seconds S]
 */
#include <getopt.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include "range_alloc.h"

#define SPACE		4096
#define MAX_SIZE	64

static u64 seed, rng;
static unsigned long op_no, base, enomem_seen, found_seen;
static struct sl_range_alloc ra;

#define fail(fmt, ...) do {						\
	fprintf(stderr, "range_test: FAILED at op %lu (seed %llu, base %lx): " \
		fmt "\n", op_no, (unsigned long long)seed, base,	\
		##__VA_ARGS__);						\
	exit(1);							\
} while (0)

static u64 rnd(u64 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* The model: which units are in use, and the live ranges. */
static unsigned char used[SPACE];
static unsigned long live_start[SPACE], live_size[SPACE];
static unsigned long nr_live;

static bool model_free(unsigned long s, unsigned long size)
{
	unsigned long u;

	for (u = s; u < s + size; u++)
		if (used[u])
			return false;
	return true;
}

static void model_mark(unsigned long s, unsigned long size, int v)
{
	memset(used + s, v, size);
}

/* First fit of the model: relative starts, absolute alignment. */
static long model_fit(unsigned long from, unsigned long lo, unsigned long hi,
		      unsigned long size, unsigned long align)
{
	unsigned long s;

	for (s = from; s + size <= hi; s++) {
		if ((base + s) & (align - 1))
			continue;
		if (s >= lo && model_free(s, size))
			return s;
	}
	return -1;
}

static void model_add(unsigned long s, unsigned long size)
{
	model_mark(s, size, 1);
	live_start[nr_live] = s;
	live_size[nr_live++] = size;
}

static void model_drop(unsigned long i)
{
	model_mark(live_start[i], live_size[i], 0);
	live_start[i] = live_start[--nr_live];
	live_size[i] = live_size[nr_live];
}

static void do_alloc(void)
{
	unsigned long size = 1 + rnd(&rng) % (rnd(&rng) % 4 ? 8 : MAX_SIZE);
	unsigned long align = 1UL << (rnd(&rng) % 4 ? 0 : rnd(&rng) % 7);
	unsigned long lo = 0, hi = SPACE, hint, got = 0, min, max;
	long want;
	int ret, expect;

	/* A window inside the space, or one reaching out of it. */
	if (rnd(&rng) % 3 == 0) {
		lo = rnd(&rng) % SPACE;
		hi = lo + 1 + rnd(&rng) % (SPACE - lo);
	}
	min = base + lo;
	max = base + hi;
	if (rnd(&rng) % 8 == 0 && base) {
		min = base - 1 - rnd(&rng) % 100;	/* clamped to the start */
		lo = 0;
	}
	if (rnd(&rng) % 8 == 0)
		max = 0;				/* the space's end */
	if (!max)
		hi = SPACE;
	hint = lo + rnd(&rng) % (hi - lo);
	want = model_fit(hint, lo, hi, size, align);
	if (want < 0)
		want = model_fit(lo, lo, hi, size, align);
	expect = want < 0 ? -ENOSPC : 0;
	ret = sl_range_alloc(&ra, size, align, min, max, base + hint, &got,
			     GFP_KERNEL);
	if (ret == -ENOMEM) {
		enomem_seen++;
		return;
	}
	if (ret != expect)
		fail("alloc size %lu align %lu window [%lx, %lx) hint %lx: %d, expected %d",
		     size, align, min, max, base + hint, ret, expect);
	if (ret)
		return;
	if (got != base + want)
		fail("alloc size %lu align %lu window [%lx, %lx) hint %lx: got %lx, expected %lx",
		     size, align, min, max, base + hint, got, base + want);
	found_seen++;
	model_add(want, size);
}

static void do_free(void)
{
	unsigned long i, s;
	int ret;

	if (!nr_live)
		return;
	i = rnd(&rng) % nr_live;
	switch (rnd(&rng) % 8) {
	case 0:		/* the wrong size: refused, still allocated */
		ret = sl_range_free(&ra, base + live_start[i], live_size[i] + 1);
		if (ret != -EINVAL)
			fail("free with the wrong size: %d", ret);
		return;
	case 1:		/* a unit nothing starts at */
		s = rnd(&rng) % SPACE;
		for (i = 0; i < nr_live && live_start[i] != s; i++)
			;
		if (i < nr_live)
			return;
		ret = sl_range_free(&ra, base + s, 1);
		if (ret != -ENOENT)
			fail("free of %lx, not allocated: %d", base + s, ret);
		return;
	}
	s = live_start[i];
	ret = sl_range_free(&ra, base + s, live_size[i]);
	if (ret)
		fail("free [%lx, +%lu): %d", base + s, live_size[i], ret);
	model_drop(i);
	/* The same range again is a double free. */
	if (rnd(&rng) % 4 == 0 && sl_range_free(&ra, base + s, 1) != -ENOENT)
		fail("double free of %lx not refused", base + s);
}

static void do_reserve(void)
{
	long s = (long)(rnd(&rng) % (SPACE + 16)) - 8;
	unsigned long size = 1 + rnd(&rng) % 16;
	int ret, expect;

	if (s < 0 && !base)
		s = 0;
	if (base + s + (size - 1) < base + s)
		expect = -EINVAL;	/* wraps past ULONG_MAX */
	else if (s < 0 || s + size > SPACE)
		expect = -ERANGE;
	else
		expect = model_free(s, size) ? 0 : -EEXIST;
	ret = sl_range_reserve(&ra, base + s, size, GFP_KERNEL);
	if (ret == -ENOMEM) {
		enomem_seen++;
		return;
	}
	if (ret != expect)
		fail("reserve [%lx, +%lu): %d, expected %d", base + s, size,
		     ret, expect);
	if (!ret)
		model_add(s, size);
}

static void compare_stats(void)
{
	unsigned long u, run = 0, largest = 0, free = 0;
	struct sl_range_stats st;

	for (u = 0; u < SPACE; u++) {
		run = used[u] ? 0 : run + 1;
		free += !used[u];
		largest = max(largest, run);
	}
	sl_range_stats(&ra, &st);
	if (st.size != SPACE || st.free != free || st.ranges != nr_live ||
	    st.largest_free != largest)
		fail("stats: size %lu free %lu ranges %lu largest %lu; model %d %lu %lu %lu",
		     st.size, st.free, st.ranges, st.largest_free, SPACE, free,
		     nr_live, largest);
	if (st.fragmentation > 1000 || (free == largest && st.fragmentation))
		fail("fragmentation %u with free %lu largest %lu",
		     st.fragmentation, free, largest);
	if (sl_check(&ra.list))
		fail("sl_check");
}

static void run_diff(unsigned long ops, unsigned int ppm)
{
	unsigned long i;

	memset(used, 0, sizeof(used));
	nr_live = 0;
	if (sl_range_init(&ra, base, base + SPACE, SL_RANGE_SHADOW, GFP_KERNEL))
		fail("sl_range_init");
	for (i = 0; i < ops; i++, op_no++) {
		unsigned int r = rnd(&rng) % 100;

		shim_fail_random((i / 5000) % 2 ? ppm : 0, rnd(&rng));
		if (r < 50)
			do_alloc();
		else if (r < 92)
			do_free();
		else
			do_reserve();
		shim_fail_off();
		if (i % 500 == 0)
			compare_stats();
	}
	compare_stats();
	if (sl_range_shadow_errors(&ra))
		fail("shadow bitmap: %ld errors", sl_range_shadow_errors(&ra));
	sl_range_destroy(&ra);
}

/* Bad input, each refused with its own errno. */
static void run_bad_input(void)
{
	unsigned long got;

	base = 1000;
	if (sl_range_init(&ra, 10, 10, 0, GFP_KERNEL) != -EINVAL ||
	    sl_range_init(&ra, 0, 100, 0x80, GFP_KERNEL) != -EINVAL ||
	    sl_range_init(&ra, 0, 0, SL_RANGE_SHADOW, GFP_KERNEL) != -EINVAL)
		fail("bad init not refused");
	if (sl_range_init(&ra, base, base + SPACE, 0, GFP_KERNEL))
		fail("sl_range_init");
	if (sl_range_alloc(&ra, 0, 1, 0, 0, 0, &got, GFP_KERNEL) != -EINVAL ||
	    sl_range_alloc(&ra, 8, 3, 0, 0, 0, &got, GFP_KERNEL) != -EINVAL ||
	    sl_range_alloc(&ra, 8, 1, base + 50, base + 50, 0, &got,
			   GFP_KERNEL) != -EINVAL ||
	    sl_range_alloc(&ra, SPACE + 1, 1, 0, 0, 0, &got,
			   GFP_KERNEL) != -ENOSPC)
		fail("bad alloc not refused");
	if (sl_range_reserve(&ra, ULONG_MAX, 2, GFP_KERNEL) != -EINVAL ||
	    sl_range_reserve(&ra, base, 0, GFP_KERNEL) != -EINVAL ||
	    sl_range_reserve(&ra, base - 1, 2, GFP_KERNEL) != -ERANGE ||
	    sl_range_reserve(&ra, base + SPACE - 1, 2, GFP_KERNEL) != -ERANGE)
		fail("bad reserve not refused");
	if (sl_range_free(&ra, base, 1) != -ENOENT)
		fail("free of nothing not refused");
	if (sl_range_shadow_errors(&ra) != -ENODATA)
		fail("shadow errors without a shadow");
	sl_range_destroy(&ra);
}

/* The stress part. */
#define RING		64
#define STRESS_MAX	32	/* units per allocation, aligned to at most 8 */

/*
 * The space: 2^16 units without caches.  With them, the least power of two
 * in which every request must still fit, so that the caches fill it and
 * allocations have to reclaim cached ranges from other CPUs while those
 * CPUs pop and push: with L live ranges of at most 32 units, the free
 * space is split into at most L + 1 gaps, and one of them holds at least
 * 32 + 7 units when the space has 71 L + 39.
 */
static unsigned long stress_space;

static unsigned char *owner;	/* per unit: thread id + 1, or 0 */
static volatile int stop_now;
static unsigned long stress_ops[64];

/*
 * Ranges passed between threads, so that a range allocated on one "CPU"
 * is freed on another: through the index, while the allocating CPU's
 * table of recent ranges still names it.
 */
#define MAILBOX		16
static struct { unsigned long start, size, who; } mailbox[MAILBOX];
static pthread_mutex_t mailbox_lock = PTHREAD_MUTEX_INITIALIZER;

/* Leave a range in slot @i and take the one there (size 0: none). */
static void mailbox_swap(unsigned long i, unsigned long *start,
			 unsigned long *size, unsigned long *who)
{
	unsigned long s, n, w;

	pthread_mutex_lock(&mailbox_lock);
	s = mailbox[i].start;
	n = mailbox[i].size;
	w = mailbox[i].who;
	mailbox[i].start = *start;
	mailbox[i].size = *size;
	mailbox[i].who = *who;
	pthread_mutex_unlock(&mailbox_lock);
	*start = s;
	*size = n;
	*who = w;
}

/* Unmark a range held by thread @who, then free it. */
static void stress_free(unsigned long id, unsigned long start,
			unsigned long size, unsigned long who)
{
	unsigned long u;
	int ret;

	for (u = 0; u < size; u++)
		if (__atomic_exchange_n(&owner[start + u], 0,
					__ATOMIC_SEQ_CST) != who + 1)
			fail("thread %lu: unit %lx lost before its free", id,
			     start + u);
	ret = sl_range_free(&ra, start, size);
	if (ret)
		fail("thread %lu: free [%lx, +%lu): %d", id, start, size, ret);
}

static void *stress_thread(void *arg)
{
	unsigned long id = (unsigned long)arg, ring_s[RING], ring_n[RING];
	unsigned long head = 0, n = 0, i, u, got, ops = 0;
	u64 state = seed * 2654435761ULL + id + 1;

	shim_rcu_register();
	while (!stop_now) {
		unsigned long size = 1 + rnd(&state) % STRESS_MAX;
		int ret;

		if (n == RING) {
			/*
			 * Free the oldest, or one another thread left in
			 * the mailbox in its place.
			 */
			unsigned long s = ring_s[head], sz = ring_n[head];
			unsigned long who = id;

			if (rnd(&state) % 4 == 0)
				mailbox_swap(rnd(&state) % MAILBOX, &s, &sz, &who);
			if (sz)
				stress_free(id, s, sz, who);
			head = (head + 1) % RING;
			n--;
		}
		if (rnd(&state) % 4)
			ret = sl_range_alloc_cpu(&ra, size, 1, &got, GFP_KERNEL);
		else
			ret = sl_range_alloc(&ra, size, 1UL << (rnd(&state) % 4),
					     0, 0, rnd(&state) % stress_space,
					     &got, GFP_KERNEL);
		if (ret)
			fail("thread %lu: alloc of %lu: %d", id, size, ret);
		if (got + size > stress_space)
			fail("thread %lu: [%lx, +%lu) outside the space", id,
			     got, size);
		for (u = 0; u < size; u++) {
			unsigned char zero = 0;

			if (!__atomic_compare_exchange_n(&owner[got + u], &zero,
							 id + 1, false,
							 __ATOMIC_SEQ_CST,
							 __ATOMIC_SEQ_CST))
				fail("thread %lu: unit %lx handed out while thread %u holds it",
				     id, got + u, owner[got + u] - 1);
		}
		i = (head + n) % RING;
		ring_s[i] = got;
		ring_n[i] = size;
		n++;
		ops++;
	}
	/* Others may still be allocating: unmark before each free here too. */
	for (; n; n--, head = (head + 1) % RING) {
		for (u = 0; u < ring_n[head]; u++)
			__atomic_store_n(&owner[ring_s[head] + u], 0,
					 __ATOMIC_SEQ_CST);
		if (sl_range_free(&ra, ring_s[head], ring_n[head]))
			fail("thread %lu: final free", id);
	}
	stress_ops[id] = ops;
	shim_rcu_unregister();
	return NULL;
}

static void run_stress(unsigned int threads, double seconds,
		       unsigned int flags)
{
	pthread_t tid[64];
	struct sl_range_stats st;
	unsigned long i, total = 0;

	base = 0;
	stress_space = 1UL << 16;
	if (flags & SL_RANGE_CACHE)
		stress_space = roundup_pow_of_two(71 * (threads * RING + MAILBOX) + 39);
	owner = calloc(stress_space, 1);
	if (!owner || sl_range_init(&ra, 0, stress_space,
				    SL_RANGE_SHADOW | flags, GFP_KERNEL))
		fail("stress setup");
	for (i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, stress_thread, (void *)i);
	usleep(seconds * 1e6);
	stop_now = 1;
	for (i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		total += stress_ops[i];
	}
	for (i = 0; i < MAILBOX; i++) {
		if (mailbox[i].size)
			stress_free(0, mailbox[i].start, mailbox[i].size,
				    mailbox[i].who);
		mailbox[i].size = 0;
	}
	sl_range_stats(&ra, &st);
	if (st.free != stress_space || st.ranges || st.largest_free != stress_space)
		fail("after the stress: free %lu ranges %lu largest %lu",
		     st.free, st.ranges, st.largest_free);
	if (sl_range_shadow_errors(&ra))
		fail("shadow bitmap: %ld errors", sl_range_shadow_errors(&ra));
	if (sl_check(&ra.list))
		fail("sl_check after the stress");
	sl_range_destroy(&ra);
	free(owner);
	printf("range_test: stress%s: %u threads, %lu units, %lu allocations checked against the bitmaps\n",
	       flags & SL_RANGE_CACHE ? " with per-CPU caches" : "", threads,
	       stress_space, total);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ops", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	const unsigned long bases[] = { 0, 1UL << 40, ULONG_MAX - SPACE + 1 };
	unsigned long ops = 300000, b;
	unsigned int threads = 4;
	double seconds = 5;
	int c;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'o')
			ops = strtoul(optarg, NULL, 0);
		else if (c == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (c == 't')
			threads = atoi(optarg);
		else if (c == 'S')
			seconds = atof(optarg);
		else
			return 2;
	}
	if (!threads || threads > 64)
		return 2;
	rng = seed | 1;
	shim_random_seed(seed);
	printf("range_test: seed %llu, %lu ops, then %u threads for %.0f s\n",
	       (unsigned long long)seed, ops, threads, seconds);
	shim_rcu_register();
	if (shim_modules_load())
		fail("module init");
	run_bad_input();
	for (b = 0; b < ARRAY_SIZE(bases); b++) {
		base = bases[b];
		run_diff(ops / ARRAY_SIZE(bases), 20000);
	}
	run_stress(threads, seconds / 2, 0);
	stop_now = 0;
	memset(stress_ops, 0, sizeof(stress_ops));
	run_stress(threads, seconds / 2, SL_RANGE_CACHE);
	shim_modules_unload();
	rcu_barrier();
	if (shim_kmalloc_live())
		fail("%ld objects leaked", shim_kmalloc_live());
	shim_rcu_unregister();
	printf("range_test: %lu ops, %lu allocations matched the model, %lu -ENOMEM checked: PASS\n",
	       op_no, found_seen, enomem_seen);
	return 0;
}
