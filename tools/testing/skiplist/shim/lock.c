// SPDX-License-Identifier: GPL-2.0
/* Userspace shim: the contended spinlock path, with a deadlock timeout. */
#include <time.h>
#include "lock.h"

__thread int shim_locks_held;

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
