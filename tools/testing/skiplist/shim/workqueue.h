/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work items on threads: queue_work() starts a thread that runs the item
 * once, registered with RCU like any other thread.  As in the kernel, an
 * item queued while pending is queued once, and never runs on two threads
 * at a time; cancel_work_sync() drops a pending run and waits until no
 * thread of the item is left, and flush_work() waits for that without
 * dropping anything.
 */
#ifndef _SHIM_WORKQUEUE_H
#define _SHIM_WORKQUEUE_H

#include "base.h"

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	work_func_t func;
	int pending;		/* queued, not started yet */
	int running;		/* a thread runs @func */
	int threads;		/* threads started and not yet gone */
};

struct workqueue_struct;
extern struct workqueue_struct *system_unbound_wq;

#define INIT_WORK(work, fn) shim_init_work((work), (fn))
void shim_init_work(struct work_struct *work, work_func_t func);
bool queue_work(struct workqueue_struct *wq, struct work_struct *work);
bool cancel_work_sync(struct work_struct *work);
bool flush_work(struct work_struct *work);
struct work_struct *current_work(void);

static inline bool work_pending(struct work_struct *work)
{
	return __atomic_load_n(&work->pending, __ATOMIC_ACQUIRE);
}

#endif /* _SHIM_WORKQUEUE_H */
