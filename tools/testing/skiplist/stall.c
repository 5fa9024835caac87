// SPDX-License-Identifier: GPL-2.0
/*
 * Stall mode (stall.h).  How often a window stalls depends on how often
 * it is reached: the windows of a writer in the middle of a structural
 * change (a split published, a merge before its unlink, a link switched)
 * come once per split or merge and stall one time in four, which keeps
 * the list in those states for a good part of the run; the windows inside
 * every search (a lookup's snapshot, a hop along level 0) come millions of
 * times a second and stall one time in 512, which still makes thousands of
 * stalls a second without starving the readers.  A stall yields the CPU,
 * or one time in four sleeps 1 to 100 us, long enough for another thread
 * to run a whole operation there; but a thread holding a lock only
 * yields, as a kernel thread holding a spinlock can be held up by an
 * interrupt but not put to sleep, and its waiters spin.
 */
#include <sched.h>
#include <unistd.h>
#include <linux/spinlock.h>
#include "window.h"
#include "stall.h"

/* One draw in this many stalls, per window; others get the default. */
static const unsigned int stall_every[SL_WIN_NR] = {
	[SL_WIN_LOOKUP_SNAPSHOT] = 512,
	[SL_WIN_SEARCH_HOP] = 512,
	[SL_WIN_GAP_COUNT_LINK] = 64,
	[SL_WIN_GAP_TIGHTEN] = 16,
};
#define STALL_EVERY_DEFAULT	4

/* Names for the report; a window added later is reported by number. */
static const char *const stall_names[SL_WIN_NR] = {
	[SL_WIN_LOOKUP_SNAPSHOT] = "lookup_snapshot",
	[SL_WIN_SEARCH_HOP] = "search_hop",
	[SL_WIN_SPLIT_PUBLISHED] = "split_published",
	[SL_WIN_LINK_LEVEL] = "link_level",
	[SL_WIN_DELETE_UNLOCKED] = "delete_unlocked",
	[SL_WIN_DELETE_UNLINKED] = "delete_unlinked",
	[SL_WIN_DELETE_NOTE] = "delete_note",
	[SL_WIN_UNLINK_SWITCHED] = "unlink_switched",
	[SL_WIN_GAP_COUNT_LINK] = "gap_count_link",
	[SL_WIN_GAP_TIGHTEN] = "gap_tighten",
	[SL_WIN_DIR_FILLED] = "dir_filled",
};

static unsigned long stall_reached[SL_WIN_NR], stall_stalled[SL_WIN_NR];
static void (*stall_prev)(const struct sl_window_at *at);
static u64 stall_seed;
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
	r = stall_rand();
	if (r % every)
		return;
	__atomic_add_fetch(&stall_stalled[at->win], 1, __ATOMIC_RELAXED);
	r >>= 32;
	if (r % 4 || shim_locks_held || shim_rwlocks_held)
		sched_yield();
	else
		usleep(1 + (r >> 2) % 100);
}

void stall_start(u64 seed)
{
	stall_seed = seed;
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
		fprintf(out, "%s: stall: %-16s %10lu stalls of %12lu reached\n",
			prog, name, stall_stalled[w], stall_reached[w]);
	}
	return missed;
}
