// SPDX-License-Identifier: GPL-2.0
/*
 * lsm_bench builds the shim's workqueue.c with sched_yield() replaced by
 * this nap (tools/bench/lsm/Makefile).  The shim waits for a work item's
 * running thread, and cancel_work_sync() and flush_work() for its
 * threads, by yielding in a loop: right for the tests, but the store
 * queues its delayed commit work on every write, and the thread queued
 * behind a commit that sleeps out its 5 s interval then spun for those
 * 5 s, taking one of the machine's two CPUs from the writers (more than
 * half of fillseq's profile was sched_yield).  The kernel's workqueues
 * sleep instead; so does this, 1 ms at a time, which delays only the
 * start of a work item queued behind a running one (a memtable's
 * write-out, a commit) and the return of cancel and flush, each by 1 ms
 * at most.
 */
#include <time.h>

int shim_bench_nap(void);

int shim_bench_nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
	return 0;
}
