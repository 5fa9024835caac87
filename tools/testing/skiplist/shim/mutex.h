/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sleeping mutexes that know their holders, so that lockdep_assert_held()
 * on a mutex really asserts, as it does on a spinlock (lock.h).  A mutex
 * taken twice by one thread, or released by a thread not holding it,
 * aborts; so does taking one under a spinlock (it may sleep).
 */
#ifndef _SHIM_MUTEX_H
#define _SHIM_MUTEX_H

#include <pthread.h>
#include "base.h"
#include "lock.h"

struct mutex {
	pthread_mutex_t lock;
	int owner;		/* thread id, 0 when free */
};

static inline void mutex_init(struct mutex *m)
{
	pthread_mutex_init(&m->lock, NULL);
	m->owner = 0;
}

static inline void mutex_destroy(struct mutex *m)
{
	SHIM_ASSERT(!m->owner, "mutex_destroy of a held mutex");
	pthread_mutex_destroy(&m->lock);
}

static inline bool shim_mutex_owned(const struct mutex *m)
{
	return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) ==
		shim_thread_id();
}

static inline void mutex_lock(struct mutex *m)
{
	might_sleep();
	SHIM_ASSERT(!shim_mutex_owned(m), "recursive mutex_lock");
	pthread_mutex_lock(&m->lock);
	__atomic_store_n(&m->owner, shim_thread_id(), __ATOMIC_RELAXED);
}

static inline bool mutex_trylock(struct mutex *m)
{
	if (pthread_mutex_trylock(&m->lock))
		return false;
	__atomic_store_n(&m->owner, shim_thread_id(), __ATOMIC_RELAXED);
	return true;
}

static inline void mutex_unlock(struct mutex *m)
{
	SHIM_ASSERT(shim_mutex_owned(m), "mutex_unlock of a mutex not held");
	__atomic_store_n(&m->owner, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&m->lock);
}

static inline bool mutex_is_locked(struct mutex *m)
{
	return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) != 0;
}

/* lockdep_assert_held() and lockdep_is_held() on mutexes too. */
#undef shim_held
#define shim_held(lock) _Generic((lock),				\
	spinlock_t *: shim_lock_owned,					\
	const spinlock_t *: shim_lock_owned,				\
	rwlock_t *: shim_rwlock_owned,					\
	const rwlock_t *: shim_rwlock_owned,				\
	struct mutex *: shim_mutex_owned,				\
	const struct mutex *: shim_mutex_owned)(lock)

#endif /* _SHIM_MUTEX_H */
