/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wait queues: wait_event() sleeps until its condition holds, checked
 * under the queue's own lock, and wake_up_all() takes that lock before it
 * wakes, so a wakeup between a waiter's check and its sleep is not lost
 * (the kernel gets the same from prepare_to_wait()).
 */
#ifndef _SHIM_WAIT_H
#define _SHIM_WAIT_H

#include <pthread.h>
#include <time.h>
#include "base.h"
#include "ktime.h"
#include "lock.h"

typedef struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
} wait_queue_head_t;

static inline void init_waitqueue_head(wait_queue_head_t *wq)
{
	pthread_mutex_init(&wq->lock, NULL);
	pthread_cond_init(&wq->cond, NULL);
}

static inline void wake_up_all(wait_queue_head_t *wq)
{
	pthread_mutex_lock(&wq->lock);
	pthread_cond_broadcast(&wq->cond);
	pthread_mutex_unlock(&wq->lock);
}

#define wake_up(wq)	wake_up_all(wq)

#define wait_event(wq, condition) do {					\
	might_sleep();							\
	pthread_mutex_lock(&(wq).lock);					\
	while (!(condition))						\
		pthread_cond_wait(&(wq).cond, &(wq).lock);		\
	pthread_mutex_unlock(&(wq).lock);				\
} while (0)

/*
 * Sleeps until @condition holds or @timeout (ktime_t, nanoseconds) has
 * passed: 0 if it holds, -ETIME if the time ran out first.
 */
#define wait_event_hrtimeout(wq, condition, timeout) ({			\
	struct timespec __end;						\
	int __ret = 0;							\
									\
	might_sleep();							\
	clock_gettime(CLOCK_REALTIME, &__end);				\
	__end.tv_sec += (timeout) / NSEC_PER_SEC;			\
	__end.tv_nsec += (timeout) % NSEC_PER_SEC;			\
	if (__end.tv_nsec >= (long)NSEC_PER_SEC) {			\
		__end.tv_sec++;						\
		__end.tv_nsec -= NSEC_PER_SEC;				\
	}								\
	pthread_mutex_lock(&(wq).lock);					\
	while (!(condition)) {						\
		if (pthread_cond_timedwait(&(wq).cond, &(wq).lock,	\
					   &__end) == ETIMEDOUT) {	\
			__ret = (condition) ? 0 : -ETIME;		\
			break;						\
		}							\
	}								\
	pthread_mutex_unlock(&(wq).lock);				\
	__ret;								\
})

#endif /* _SHIM_WAIT_H */
