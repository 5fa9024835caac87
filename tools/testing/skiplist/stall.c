// SPDX-License-Identifier: GPL-2.0
/*
 * Stall mode (stall.h).  How often a window stalls depends on how often
 * it is reached: the windows of a writer in the middle of a structural
 * change (a split published, a merge before its unlink, a link sealed)
 * come once per split or merge and stall one time in four, which keeps
 * the list in those states for a good part of the run; the gap count's
 * and tightening's, and the delete's note, come once or more per
 * operation and stall one time in 16 to 64; the windows every search
 * passes (a lookup's snapshot, a hop along level 0, each link a gap
 * search reads) come millions of times a second and stall one time in
 * 512, which still makes thousands of stalls a second without starving
 * anyone, but one time in four when the leaf they hold is dead.
 *
 * Half of the stalls hold the CPU for 1 to 20 us, as an interrupt would;
 * a quarter yield it; a quarter sleep 1 to 100 us, long enough for other
 * threads to run whole operations meanwhile.  A thread holding a lock
 * only spins: a kernel thread holding a spinlock can be held up by an
 * interrupt (or, in a guest, by its vCPU being preempted) but not put to
 * sleep, and yielding with a lock held made its waiters spin through
 * whole time slices here.
 */
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include "leaf.h"
#include "stall.h"

/* One draw in this many stalls, per window; others get the default. */
static const unsigned int stall_every[SL_WIN_NR] = {
	[SL_WIN_LOOKUP_SNAPSHOT] = 512,
	[SL_WIN_SEARCH_HOP] = 512,
	[SL_WIN_DELETE_NOTE] = 32,
	[SL_WIN_GAP_COUNT_LINK] = 64,
	[SL_WIN_GAP_SEARCH_LINK] = 512,
	[SL_WIN_GAP_TIGHTEN] = 16,
};
#define STALL_EVERY_DEFAULT	4

/* Names for the report; a window added later is reported by number. */
static const char *const stall_names[SL_WIN_NR] = {
	[SL_WIN_LOOKUP_SNAPSHOT] = "lookup_snapshot",
	[SL_WIN_SEARCH_HOP] = "search_hop",
	[SL_WIN_SPLIT_PUBLISHED] = "split_published",
	[SL_WIN_SPLIT_ALLOCATED] = "split_allocated",
	[SL_WIN_LINK_LEVEL] = "link_level",
	[SL_WIN_DELETE_UNLOCKED] = "delete_unlocked",
	[SL_WIN_DELETE_UNLINKED] = "delete_unlinked",
	[SL_WIN_DELETE_NOTE] = "delete_note",
	[SL_WIN_UNLINK_ABSORBED] = "unlink_absorbed",
	[SL_WIN_GAP_COUNT_LINK] = "gap_count_link",
	[SL_WIN_GAP_SEARCH_LINK] = "gap_search_link",
	[SL_WIN_GAP_TIGHTEN] = "gap_tighten",
	[SL_WIN_DIR_FILLED] = "dir_filled",
};

static unsigned long stall_reached[SL_WIN_NR], stall_stalled[SL_WIN_NR];
static unsigned long stall_dead[SL_WIN_NR];
static void (*stall_prev)(const struct sl_window_at *at);
static u64 stall_seed;
static bool stall_on;
static unsigned int stall_threads;

static u64 stall_rand(void)
{
	static __thread u64 rng;

	if (!rng) {
		/* splitmix64 of the seed and the thread's number. */
		rng = stall_seed + 0x9e3779b97f4a7c15ULL *
		      __atomic_add_fetch(&stall_threads, 1, __ATOMIC_RELAXED);
		rng = (rng ^ (rng >> 30)) * 0xbf58476d1ce4e5b9ULL;
		rng = (rng ^ (rng >> 27)) * 0x94d049bb133111ebULL;
		rng = (rng ^ (rng >> 31)) | 1;
	}
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Hold the CPU for @us microseconds, as an interrupt would. */
static void stall_spin(unsigned int us)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		cpu_relax();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L +
		 (t.tv_nsec - t0.tv_nsec) < us * 1000L);
}

static void stall_hook(const struct sl_window_at *at)
{
	unsigned int every;
	u64 r;

	if (stall_prev)
		stall_prev(at);
	if (at->win >= SL_WIN_NR)
		return;
	__atomic_add_fetch(&stall_reached[at->win], 1, __ATOMIC_RELAXED);
	every = stall_every[at->win] ?: STALL_EVERY_DEFAULT;
	/*
	 * A search holding a dead leaf is a transient state of its own, and a
	 * rare one: the leaves that leaf names may be freed while it waits.
	 * It stalls as often as a writer's windows do.
	 */
	if (at->leaf && READ_ONCE(at->leaf->dead)) {
		__atomic_add_fetch(&stall_dead[at->win], 1, __ATOMIC_RELAXED);
		every = min(every, STALL_EVERY_DEFAULT);
	}
	r = stall_rand();
	if (!stall_on || r % every)
		return;
	__atomic_add_fetch(&stall_stalled[at->win], 1, __ATOMIC_RELAXED);
	r >>= 32;
	if (r % 4 < 2 || shim_locks_held || shim_rwlocks_held)
		stall_spin(1 + (r >> 2) % 20);
	else if (r % 4 == 2)
		sched_yield();
	else
		usleep(1 + (r >> 2) % 100);
}

void stall_start(u64 seed, bool stall)
{
	stall_seed = seed;
	stall_on = stall;
	stall_prev = sl_window_hook;
	sl_window_hook = stall_hook;
}

void stall_stop(void)
{
	sl_window_hook = stall_prev;
	stall_prev = NULL;
}

unsigned int stall_report(FILE *out, const char *prog)
{
	unsigned int w, missed = 0;
	char name[24];

	for (w = 0; w < SL_WIN_NR; w++) {
		if (stall_names[w])
			snprintf(name, sizeof(name), "%s", stall_names[w]);
		else
			snprintf(name, sizeof(name), "window %u", w);
		if (!stall_reached[w]) {
			fprintf(out, "%s: stall: %-16s never reached\n", prog, name);
			missed++;
			continue;
		}
		fprintf(out, "%s: stall: %-16s %10lu stalls of %12lu reached, %lu with a dead leaf\n",
			prog, name, stall_stalled[w], stall_reached[w],
			stall_dead[w]);
	}
	return missed;
}
