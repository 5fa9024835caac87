// SPDX-License-Identifier: GPL-2.0
/* Userspace shim: the contended spinlock path, with a deadlock timeout. */
#include <time.h>
#include "lock.h"
#include "local_lock.h"
#include "rcu.h"

__thread int shim_locks_held;
__thread int shim_local_locks_held;
__thread unsigned long shim_cond_resched_calls;

/*
 * No yield: the OS preempts threads here anyway, and a sched_yield() per
 * call, on a loaded machine, slowed em_stress's punches sixtyfold.
 */
void shim_cond_resched(void)
{
	might_sleep();
	SHIM_ASSERT(!shim_locks_held && !shim_rwlocks_held &&
		    !shim_local_locks_held && !shim_rcu_depth,
		    "cond_resched() in an atomic section or an RCU reader");
	shim_cond_resched_calls++;
	shim_rcu_quiescent();
}

static double shim_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void shim_spin_lock_slow(spinlock_t *lock)
{
	double deadline = 0;
	unsigned long spins = 0;
	int free;

	for (;;) {
		free = 0;
		if (!__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(&lock->owner, &free,
						shim_thread_id(), false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
		cpu_relax();
		if (++spins % (1UL << 20))
			continue;
		if (!deadline) {
			deadline = shim_now() + SHIM_DEADLOCK_SECONDS;
		} else if (shim_now() > deadline) {
			fprintf(stderr, "lock %p held by thread %d\n", lock,
				lock->owner);
			shim_die(__FILE__, __LINE__,
				 "spinlock not acquired in time: deadlock?");
		}
	}
}

/*
 * An interrupt handler wants a lock that the context it interrupted, on
 * the same thread, holds.  In the kernel that CPU spins forever: the
 * holder cannot run again before the handler returns.
 */
void shim_irq_lock_deadlock(const spinlock_t *lock, const char *name)
{
	fprintf(stderr, "interrupt handler takes spinlock %s (%p), held by the context it interrupted\n",
		name, lock);
	shim_die(__FILE__, __LINE__,
		 "interrupt handler spins on a lock its own CPU holds");
}

/* Reader-writer locks, see lock.h. */
__thread int shim_rwlocks_held;
__thread const rwlock_t *shim_rwlocks_read[SHIM_RW_READ_MAX];

bool shim_rwlock_read_owned(const rwlock_t *lock)
{
	int i;

	for (i = 0; i < SHIM_RW_READ_MAX; i++)
		if (shim_rwlocks_read[i] == lock)
			return true;
	return false;
}

/* Spin until @try succeeds, aborting after SHIM_DEADLOCK_SECONDS. */
static void shim_rw_spin(rwlock_t *lock, bool (*try)(rwlock_t *lock),
			 const char *what)
{
	double deadline = 0;
	unsigned long spins = 0;

	while (!try(lock)) {
		cpu_relax();
		if (++spins % (1UL << 20))
			continue;
		if (!deadline) {
			deadline = shim_now() + SHIM_DEADLOCK_SECONDS;
		} else if (shim_now() > deadline) {
			fprintf(stderr, "rwlock %p state %x writer %d\n", lock,
				lock->state, lock->owner);
			shim_die(__FILE__, __LINE__, what);
		}
	}
}

static bool shim_read_trylock(rwlock_t *lock)
{
	int s = __atomic_load_n(&lock->state, __ATOMIC_RELAXED);

	return !(s & (SHIM_RW_WRITER | SHIM_RW_WAITING)) &&
		__atomic_compare_exchange_n(&lock->state, &s, s + 1, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static bool shim_write_trylock(rwlock_t *lock)
{
	int s = __atomic_load_n(&lock->state, __ATOMIC_RELAXED);

	if (s & ~SHIM_RW_WAITING) {
		/* Readers or a writer inside: hold new readers back. */
		if (!(s & SHIM_RW_WAITING))
			__atomic_fetch_or(&lock->state, SHIM_RW_WAITING,
					  __ATOMIC_RELAXED);
		return false;
	}
	return __atomic_compare_exchange_n(&lock->state, &s, SHIM_RW_WRITER,
					   false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

void shim_read_lock(rwlock_t *lock)
{
	int i;

	SHIM_ASSERT(!shim_rwlock_owned(lock), "recursive read_lock");
	shim_rw_spin(lock, shim_read_trylock, "read_lock not acquired in time: deadlock?");
	for (i = 0; i < SHIM_RW_READ_MAX && shim_rwlocks_read[i]; i++)
		;
	SHIM_ASSERT(i < SHIM_RW_READ_MAX, "too many read locks held");
	shim_rwlocks_read[i] = lock;
	shim_rwlocks_held++;
}

void shim_read_unlock(rwlock_t *lock)
{
	int i;

	for (i = 0; i < SHIM_RW_READ_MAX && shim_rwlocks_read[i] != lock; i++)
		;
	SHIM_ASSERT(i < SHIM_RW_READ_MAX, "read_unlock of a lock not held");
	shim_rwlocks_read[i] = NULL;
	shim_rwlocks_held--;
	__atomic_fetch_sub(&lock->state, 1, __ATOMIC_RELEASE);
}

void shim_write_lock(rwlock_t *lock)
{
	SHIM_ASSERT(!shim_rwlock_owned(lock), "recursive write_lock");
	shim_rw_spin(lock, shim_write_trylock, "write_lock not acquired in time: deadlock?");
	__atomic_store_n(&lock->owner, shim_thread_id(), __ATOMIC_RELAXED);
	shim_rwlocks_held++;
}

void shim_write_unlock(rwlock_t *lock)
{
	SHIM_ASSERT(shim_rwlock_write_owned(lock),
		    "write_unlock of a lock not write-held");
	shim_rwlocks_held--;
	__atomic_store_n(&lock->owner, 0, __ATOMIC_RELAXED);
	/* Clears a waiting writer's bit too; it sets it again as it spins. */
	__atomic_store_n(&lock->state, 0, __ATOMIC_RELEASE);
}
