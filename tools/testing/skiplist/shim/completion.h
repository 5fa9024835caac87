/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace shim: the kernel's completions, on a pthread mutex and
 * condition variable.  As in the kernel, complete() may be called from
 * any context (here: any thread, or the waiter's own call chain before it
 * waits), and wait_for_completion() may sleep, so it asserts that nothing
 * atomic is held.  A completion counts: each complete() lets one wait
 * through.
 */
#ifndef _SHIM_COMPLETION_H
#define _SHIM_COMPLETION_H

#include <pthread.h>
#include "base.h"
#include "lock.h"

struct completion {
	pthread_mutex_t lock;
	pthread_cond_t wait;
	unsigned int done;
};

static inline void init_completion(struct completion *x)
{
	pthread_mutex_init(&x->lock, NULL);
	pthread_cond_init(&x->wait, NULL);
	x->done = 0;
}

static inline void reinit_completion(struct completion *x)
{
	pthread_mutex_lock(&x->lock);
	x->done = 0;
	pthread_mutex_unlock(&x->lock);
}

static inline void complete(struct completion *x)
{
	pthread_mutex_lock(&x->lock);
	x->done++;
	pthread_cond_signal(&x->wait);
	pthread_mutex_unlock(&x->lock);
}

static inline void wait_for_completion(struct completion *x)
{
	might_sleep();
	pthread_mutex_lock(&x->lock);
	while (!x->done)
		pthread_cond_wait(&x->wait, &x->lock);
	x->done--;
	pthread_mutex_unlock(&x->lock);
}

#endif /* _SHIM_COMPLETION_H */
