// SPDX-License-Identifier: GPL-2.0
/* Userspace shim: work items, each run on a thread of its own. */
#include <pthread.h>
#include <sched.h>
#include "workqueue.h"
#include "rcu.h"
#include "slab.h"

struct workqueue_struct *system_unbound_wq;

static __thread struct work_struct *shim_current_work;

void shim_init_work(struct work_struct *work, work_func_t func)
{
	work->func = func;
	work->pending = 0;
	work->running = 0;
	work->threads = 0;
}

struct work_struct *current_work(void)
{
	return shim_current_work;
}

static void *shim_work_thread(void *arg)
{
	struct work_struct *work = arg;
	int idle = 0;

	/* One run at a time, as the kernel's non-reentrant work items. */
	while (!__atomic_compare_exchange_n(&work->running, &idle, 1, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		idle = 0;
		sched_yield();
	}
	shim_in_work_item = true;
	if (__atomic_exchange_n(&work->pending, 0, __ATOMIC_ACQ_REL)) {
		shim_rcu_register();
		shim_current_work = work;
		work->func(work);
		shim_current_work = NULL;
		shim_rcu_unregister();
	}
	__atomic_store_n(&work->running, 0, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&work->threads, 1, __ATOMIC_RELEASE);
	return NULL;
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *work)
{
	pthread_attr_t attr;
	pthread_t thread;

	if (__atomic_exchange_n(&work->pending, 1, __ATOMIC_ACQ_REL))
		return false;
	__atomic_fetch_add(&work->threads, 1, __ATOMIC_RELAXED);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	SHIM_ASSERT(!pthread_create(&thread, &attr, shim_work_thread, work),
		    "queue_work: cannot start a thread");
	pthread_attr_destroy(&attr);
	return true;
}

bool cancel_work_sync(struct work_struct *work)
{
	bool was_pending = __atomic_exchange_n(&work->pending, 0,
					       __ATOMIC_ACQ_REL);

	while (__atomic_load_n(&work->threads, __ATOMIC_ACQUIRE))
		sched_yield();
	return was_pending;
}

bool flush_work(struct work_struct *work)
{
	bool busy = __atomic_load_n(&work->threads, __ATOMIC_ACQUIRE);

	while (__atomic_load_n(&work->threads, __ATOMIC_ACQUIRE))
		sched_yield();
	return busy;
}
