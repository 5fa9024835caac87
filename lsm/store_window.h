/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Windows of the store: points where a reader holds a layer set, or a
 * flush or a merge has done part of its work and not the rest.  Races
 * between readers, flushes and merges live there, and a test meets them
 * by luck only, so the userspace tests hook each one to stop the thread
 * there while another does something (tools/testing/lsm/test_compact.c).
 *
 * In the kernel lsm_window() compiles to nothing.  Private to lsm/ and
 * its tests.
 */
#ifndef _LSM_STORE_WINDOW_H
#define _LSM_STORE_WINDOW_H

struct lsm_store;

enum lsm_window {
	/* A read (get or scan) holds its layer set (store.c). */
	LSM_WIN_READ_HELD,
	/* A merge wrote its runs and has not recorded them (store_work.c). */
	LSM_WIN_MERGE_WRITTEN,
	/* A merge's manifest edit is durable; readers do not see it yet. */
	LSM_WIN_MERGE_RECORDED,
	/* A flush wrote its run and has not recorded it (store_work.c). */
	LSM_WIN_FLUSH_WRITTEN,
	/* A flush's manifest edit is durable; readers do not see it yet. */
	LSM_WIN_FLUSH_RECORDED,
	/* A write's memtable apply failed; the write mutex is let go. */
	LSM_WIN_APPLY_FAILED,
	LSM_WIN_NR
};

#ifdef __KERNEL__
#define lsm_window(st, win)	do { } while (0)
#else
/* Userspace tests only: called at every window while set (store.c). */
extern void (*lsm_window_hook)(struct lsm_store *st, enum lsm_window win);

#define lsm_window(st, win) do {					\
	if (lsm_window_hook)						\
		lsm_window_hook((st), (win));				\
} while (0)
#endif

#endif /* _LSM_STORE_WINDOW_H */
