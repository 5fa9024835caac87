/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sleeping for a while, and delayed work items.  Jiffies are milliseconds
 * here.  A delayed work item is a work item (workqueue.h) whose thread
 * sleeps out the delay in 1 ms steps, so that cancel_delayed_work_sync()
 * is not held up by a long delay, and then runs the function.
 */
#ifndef _SHIM_DELAY_H
#define _SHIM_DELAY_H

#include <time.h>
#include "base.h"
#include "workqueue.h"

static inline void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* Sleeps at least @min_us; the kernel's may take up to @max_us. */
static inline void usleep_range(unsigned long min_us, unsigned long max_us)
{
	struct timespec ts = { min_us / 1000000, (min_us % 1000000) * 1000L };

	(void)max_us;
	while (nanosleep(&ts, &ts))
		;
}

static inline unsigned long msecs_to_jiffies(unsigned int ms)
{
	return ms;
}

struct delayed_work {
	struct work_struct work;
	work_func_t func;
	unsigned long delay;	/* ms */
	int cancel;
};

static inline struct delayed_work *to_delayed_work(struct work_struct *w)
{
	return container_of(w, struct delayed_work, work);
}

static inline void shim_delayed_work_run(struct work_struct *w)
{
	struct delayed_work *dw = to_delayed_work(w);
	unsigned long left = __atomic_load_n(&dw->delay, __ATOMIC_RELAXED);

	while (left-- && !__atomic_load_n(&dw->cancel, __ATOMIC_ACQUIRE))
		msleep(1);
	if (!__atomic_load_n(&dw->cancel, __ATOMIC_ACQUIRE))
		dw->func(w);
}

#define INIT_DELAYED_WORK(dw, fn) do {					\
	(dw)->func = (fn);						\
	(dw)->delay = 0;						\
	(dw)->cancel = 0;						\
	INIT_WORK(&(dw)->work, shim_delayed_work_run);			\
} while (0)

static inline bool queue_delayed_work(struct workqueue_struct *wq,
				      struct delayed_work *dw,
				      unsigned long delay)
{
	if (work_pending(&dw->work))
		return false;
	__atomic_store_n(&dw->delay, delay, __ATOMIC_RELAXED);
	return queue_work(wq, &dw->work);
}

static inline bool cancel_delayed_work_sync(struct delayed_work *dw)
{
	bool ret;

	__atomic_store_n(&dw->cancel, 1, __ATOMIC_RELEASE);
	ret = cancel_work_sync(&dw->work);
	__atomic_store_n(&dw->cancel, 0, __ATOMIC_RELEASE);
	return ret;
}

#endif /* _SHIM_DELAY_H */
