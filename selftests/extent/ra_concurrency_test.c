// SPDX-License-Identifier: GPL-2.0
/*
 * Threads allocating and freeing on one allocator of one /dev/sl_extent
 * descriptor, mostly in the per-CPU mode, with the kernel's shadow bitmap
 * on.  Each thread is pinned to a CPU, keeps its live ranges and checks
 * every new one against them; all threads also claim every unit they are
 * given in one shared bitmap with atomic test-and-set, so that a range
 * handed to two threads at once is caught in userspace too.  At the end,
 * with everything freed, the shadow bitmap must have counted no error and
 * the statistics must show the whole space free in one run.
 *
 * The roomy variant never runs out of space (-ENOSPC is an error); the
 * tight one runs out all the time, so that allocations race frees for the
 * last holes.
 *
 * SL_STRESS_SECONDS sets the duration of each variant (default 5),
 * SX_THREADS the number of threads (default 4).  SL_ALLOW_ENOMEM=1
 * accepts -ENOMEM from allocations, for runs under failslab.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "kselftest_harness.h"
#include "sx_ioctl.h"

#define MAX_THREADS	64
#define BASE		(1ULL << 32)	/* the space starts here */

struct range {
	__u64 start;
	__u64 size;
};

struct shared {
	int fd;
	__u64 space;
	unsigned int max_size;
	unsigned int max_live;
	bool allow_enospc;
	bool allow_enomem;
	double until;
	uint64_t *bits;		/* one bit per unit of the space */
};

struct worker {
	pthread_t tid;
	struct shared *sh;
	int cpu;
	unsigned int seed;
	struct range *live;
	unsigned int nlive;
	long allocs, frees, enospc, enomem, errors;
	char what[160];
};

static __attribute__((format(printf, 2, 3)))
void bad(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	if (w->errors++)
		return;
	va_start(ap, fmt);
	vsnprintf(w->what, sizeof(w->what), fmt, ap);
	va_end(ap);
}

/* Claims the units in the shared bitmap; returns how many were taken already. */
static unsigned long claim(struct shared *sh, __u64 first, __u64 size)
{
	unsigned long taken = 0;
	__u64 u;

	for (u = first; u < first + size; u++) {
		uint64_t bit = 1ULL << (u % 64);

		if (__atomic_fetch_or(&sh->bits[u / 64], bit, __ATOMIC_ACQ_REL) & bit)
			taken++;
	}
	return taken;
}

static void release(struct shared *sh, __u64 first, __u64 size)
{
	__u64 u;

	for (u = first; u < first + size; u++)
		__atomic_fetch_and(&sh->bits[u / 64], ~(1ULL << (u % 64)),
				   __ATOMIC_ACQ_REL);
}

static void do_alloc(struct worker *w)
{
	struct shared *sh = w->sh;
	__u64 size = 1 + rand_r(&w->seed) % sh->max_size;
	__u64 align = 1ULL << (rand_r(&w->seed) % 5);
	__u64 start = 0, first;
	unsigned int i;
	int ret;

	/* Mostly per-CPU; now and then a windowed one with a random hint. */
	if (rand_r(&w->seed) % 8)
		ret = sx_ra_alloc_cpu(sh->fd, size, align, &start);
	else
		ret = sx_ra_alloc(sh->fd, size, align, 0, 0,
				  BASE + rand_r(&w->seed) % sh->space, &start);
	if (ret == -ENOSPC && sh->allow_enospc) {
		w->enospc++;
		return;
	}
	if (ret == -ENOMEM && sh->allow_enomem) {
		w->enomem++;
		return;
	}
	if (ret) {
		bad(w, "alloc of %llu: %s", size, strerror(-ret));
		return;
	}
	w->allocs++;
	if (start % align || start < BASE ||
	    start - BASE > sh->space - size) {
		bad(w, "alloc of %llu aligned %llu gave %llu, off the space or misaligned",
		    size, align, start);
		return;
	}
	for (i = 0; i < w->nlive; i++)
		if (start < w->live[i].start + w->live[i].size &&
		    w->live[i].start < start + size)
			bad(w, "[%llu, +%llu) overlaps this thread's [%llu, +%llu)",
			    start, size, w->live[i].start, w->live[i].size);
	first = start - BASE;
	if (claim(sh, first, size))
		bad(w, "[%llu, +%llu) overlaps another thread's range",
		    start, size);
	w->live[w->nlive].start = start;
	w->live[w->nlive++].size = size;
}

static void do_free(struct worker *w, unsigned int i)
{
	struct range r = w->live[i];
	int ret;

	w->live[i] = w->live[--w->nlive];
	/* Released first: once freed, the range may go to another thread. */
	release(w->sh, r.start - BASE, r.size);
	ret = sx_ra_free(w->sh->fd, r.start, r.size);
	if (ret)
		bad(w, "free of [%llu, +%llu): %s", r.start, r.size,
		    strerror(-ret));
	w->frees++;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	struct sl_ra_ioc_stats st;
	unsigned long ops = 0;
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while ((ops++ & 63) || dt_now() < sh->until) {
		if (!w->nlive ||
		    (w->nlive < sh->max_live && rand_r(&w->seed) % 2)) {
			do_alloc(w);
		} else if (ops % 97 == 0) {
			/* A walk of the whole allocator, racing the others. */
			ret = sx_ra_stats(sh->fd, &st);
			if (ret || st.size != sh->space || st.free > st.size)
				bad(w, "stats: %s, size %llu, free %llu",
				    strerror(-ret), st.size, st.free);
		} else {
			do_free(w, rand_r(&w->seed) % w->nlive);
		}
	}
	while (w->nlive)
		do_free(w, w->nlive - 1);
	return NULL;
}

FIXTURE(ra) {
	int fd;
};

FIXTURE_VARIANT(ra) {
	__u64 space;
	unsigned int max_size;
	unsigned int max_live;
	bool allow_enospc;
};

FIXTURE_VARIANT_ADD(ra, roomy) {
	.space = 1 << 20,
	.max_size = 64,
	.max_live = 128,
	.allow_enospc = false,
};

FIXTURE_VARIANT_ADD(ra, tight) {
	.space = 4096,
	.max_size = 64,
	.max_live = 64,
	.allow_enospc = true,
};

FIXTURE_SETUP(ra)
{
	self->fd = sx_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SX_MISSING);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ra)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Software emulation in the VM is slow: allow far more than the run. */
TEST_F_TIMEOUT(ra, percpu_threads_shadowed, 300)
{
	double seconds = dt_env("SL_STRESS_SECONDS", 5);
	int threads = dt_env("SX_THREADS", 4);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long allocs = 0, frees = 0, enospc = 0, enomem = 0;
	struct worker w[MAX_THREADS];
	struct sl_ra_ioc_stats st;
	struct shared sh = {
		.fd = self->fd,
		.space = variant->space,
		.max_size = variant->max_size,
		.max_live = variant->max_live,
		.allow_enospc = variant->allow_enospc,
		.allow_enomem = dt_env("SL_ALLOW_ENOMEM", 0) == 1,
	};
	__u64 i;
	int t, ret;

	ASSERT_LT(0, threads);
	ASSERT_GE(MAX_THREADS, threads);
	do {
		ret = sx_ra_init(self->fd, BASE, BASE + sh.space,
				 SL_RA_INIT_SHADOW);
	} while (ret == -ENOMEM && sh.allow_enomem);
	ASSERT_EQ(0, ret);
	sh.bits = calloc(sh.space / 64 + 1, sizeof(*sh.bits));
	ASSERT_NE(NULL, sh.bits);
	sh.until = dt_now() + seconds;
	for (t = 0; t < threads; t++) {
		memset(&w[t], 0, sizeof(w[t]));
		w[t].sh = &sh;
		w[t].cpu = t % (cpus > 0 ? cpus : 1);
		w[t].seed = 4242 + t;
		w[t].live = calloc(sh.max_live, sizeof(*w[t].live));
		ASSERT_NE(NULL, w[t].live);
		ASSERT_EQ(0, pthread_create(&w[t].tid, NULL, work, &w[t]));
	}
	for (t = 0; t < threads; t++) {
		pthread_join(w[t].tid, NULL);
		EXPECT_EQ(0, w[t].errors) {
			TH_LOG("thread %d: %ld errors, first: %s", t,
			       w[t].errors, w[t].what);
		}
		allocs += w[t].allocs;
		frees += w[t].frees;
		enospc += w[t].enospc;
		enomem += w[t].enomem;
		free(w[t].live);
	}
	TH_LOG("%d threads on %ld CPUs: %ld allocs, %ld frees, %ld -ENOSPC, %ld -ENOMEM in %.0f s",
	       threads, cpus, allocs, frees, enospc, enomem, seconds);
	EXPECT_EQ(allocs, frees);
	if (variant->allow_enospc)
		EXPECT_LT(0, enospc);

	/* Everything is back: nothing claimed, nothing the shadow objected to. */
	for (i = 0; i <= sh.space / 64; i++)
		ASSERT_EQ(0, sh.bits[i]);
	EXPECT_EQ(0, sx_ra_shadow(self->fd));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(sh.space, st.size);
	EXPECT_EQ(sh.space, st.free);
	EXPECT_EQ(0, st.ranges);
	EXPECT_EQ(sh.space, st.largest_free);
	EXPECT_EQ(0, st.fragmentation);
	free(sh.bits);
}

TEST_HARNESS_MAIN
