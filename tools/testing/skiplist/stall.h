/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stall mode for the stress tests: at every window (skiplist/window.h) a
 * thread is delayed now and then, so that other threads meet the list in
 * the transient state the window marks (a leaf merged but not unlinked, a
 * dead link sealed but still pointed at, ...) often rather than by luck.
 * Each window is counted: reached, reached by a thread holding a dead
 * leaf, and stalled.
 */
#ifndef _TEST_STALL_H
#define _TEST_STALL_H

#include <stdio.h>
#include <linux/kernel.h>

/*
 * Install the stall hook; with !@stall it only counts.  A hook installed
 * before (another test mode) still runs, first.  @seed makes the draws of
 * each thread repeatable (their interleaving is not).
 */
void stall_start(u64 seed, bool stall);
/* Put back the hook that was there before stall_start(). */
void stall_stop(void);
/*
 * Print, for each window, how often it was reached and stalled; windows
 * never reached are named as such.  Returns how many were never reached.
 */
unsigned int stall_report(FILE *out, const char *prog);

#endif /* _TEST_STALL_H */
