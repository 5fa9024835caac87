/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU local locks.  In the kernel without PREEMPT_RT,
 * local_lock_irqsave() only disables interrupts: the section is atomic on
 * its CPU and, since the RCU flavours were merged (v5.0), an RCU
 * read-side critical section.  Both hold here: the section is an RCU
 * reader, and the lock excludes every other thread of the same "CPU"
 * (two threads share one only past NR_CPUS live threads, base.h).  It is not
 * counted as a spinlock for the nesting check: in the kernel it is none.
 * local_lock_irqsave() turns the thread's simulated interrupts off.
 *
 * The benchmark (SHIM_FAST) gives each of its threads a CPU of its own,
 * and a local lock there costs what the kernel's does, no atomic
 * instruction; it still aborts if two threads ever meet in one.
 */
#ifndef _SHIM_LOCAL_LOCK_H
#define _SHIM_LOCAL_LOCK_H

#include <sched.h>
#include "base.h"
#include "irq.h"
#include "percpu.h"
#include "rcu.h"

typedef struct {
	int owner;		/* thread id, 0 when free */
} local_lock_t;

/* Local locks this thread holds: where the kernel has interrupts off. */
extern __thread int shim_local_locks_held;

#define INIT_LOCAL_LOCK(name)	{ 0 }
#define local_lock_init(lock)	((lock)->owner = 0)

static inline void shim_local_lock(local_lock_t *lock)
{
	int free = 0;

	rcu_read_lock();
#ifdef SHIM_FAST
	SHIM_ASSERT(!READ_ONCE(lock->owner),
		    "two threads share one CPU's local lock");
	WRITE_ONCE(lock->owner, shim_thread_id());
	(void)free;
#else
	while (!__atomic_compare_exchange_n(&lock->owner, &free,
					    shim_thread_id(), false,
					    __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		SHIM_ASSERT(free != shim_thread_id(), "recursive local_lock");
		free = 0;
		sched_yield();
	}
#endif
	shim_local_locks_held++;
}

static inline void shim_local_unlock(local_lock_t *lock)
{
	SHIM_ASSERT(READ_ONCE(lock->owner) == shim_thread_id(),
		    "local_unlock of a lock not held");
	shim_local_locks_held--;
	__atomic_store_n(&lock->owner, 0, __ATOMIC_RELEASE);
	rcu_read_unlock();
}

/* Preemption off: an RCU reader and this CPU's alone, as above. */
#define local_lock(lock)	shim_local_lock(this_cpu_ptr(lock))
#define local_unlock(lock)	shim_local_unlock(this_cpu_ptr(lock))

/* Interrupts off and on as in the kernel (the model is in irq.h). */
#define local_lock_irqsave(lock, flags) do {				\
	local_irq_save(flags);						\
	shim_local_lock(this_cpu_ptr(lock));				\
} while (0)
#define local_unlock_irqrestore(lock, flags) do {			\
	shim_local_unlock(this_cpu_ptr(lock));				\
	local_irq_restore(flags);					\
} while (0)
#endif /* _SHIM_LOCAL_LOCK_H */
