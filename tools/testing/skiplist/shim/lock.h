/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Spinlocks that know their owner, and sequence counts that check theirs.
 *
 * lockdep_assert_held() really asserts: each lock records the id of the
 * thread holding it.  Taking a lock twice, releasing one not held, or
 * nesting with a subclass that does not match the number of locks already
 * held aborts.  A lock that cannot be had for SHIM_DEADLOCK_SECONDS aborts
 * too, so a deadlock fails a test instead of hanging it.
 */
#ifndef _SHIM_LOCK_H
#define _SHIM_LOCK_H

#include "base.h"

#define SHIM_DEADLOCK_SECONDS	20

/* Same size as the kernel's spinlock_t without debugging: 4 bytes. */
typedef struct {
	int owner;		/* thread id, 0 when free */
} spinlock_t;

struct lock_class_key {
	int unused;
};

extern __thread int shim_locks_held;
void shim_spin_lock_slow(spinlock_t *lock);

static inline void spin_lock_init(spinlock_t *lock)
{
	lock->owner = 0;
}

static inline bool shim_lock_owned(const spinlock_t *lock)
{
	return __atomic_load_n(&lock->owner, __ATOMIC_RELAXED) ==
		shim_thread_id();
}

static inline void shim_spin_lock(spinlock_t *lock, int subclass)
{
	int free = 0;

	SHIM_ASSERT(!shim_lock_owned(lock), "recursive spin_lock");
	SHIM_ASSERT(subclass < 0 || subclass == shim_locks_held,
		    "lock nesting subclass does not match locks held");
	if (!__atomic_compare_exchange_n(&lock->owner, &free, shim_thread_id(),
					 false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		shim_spin_lock_slow(lock);
	shim_locks_held++;
}

static inline void spin_unlock(spinlock_t *lock)
{
	SHIM_ASSERT(shim_lock_owned(lock), "spin_unlock of a lock not held");
	shim_locks_held--;
	__atomic_store_n(&lock->owner, 0, __ATOMIC_RELEASE);
}

#define spin_lock(lock)			shim_spin_lock((lock), -1)
#define spin_lock_nested(lock, sub)	shim_spin_lock((lock), (sub))
#define spin_lock_irqsave(lock, flags) \
	do { (flags) = 0; shim_spin_lock((lock), 0); } while (0)
#define spin_lock_irqsave_nested(lock, flags, sub) \
	do { (flags) = 0; shim_spin_lock((lock), (sub)); } while (0)
#define spin_unlock_irqrestore(lock, flags) \
	do { (void)(flags); spin_unlock(lock); } while (0)
#define spin_lock_irq(lock)		shim_spin_lock((lock), 0)
#define spin_unlock_irq(lock)		spin_unlock(lock)
#define spin_lock_bh(lock)		shim_spin_lock((lock), 0)
#define spin_unlock_bh(lock)		spin_unlock(lock)

#define DEFINE_SPINLOCK(name)	spinlock_t name = { 0 }

#define lockdep_is_held(lock)		shim_lock_owned(lock)
#define lockdep_assert_held(lock) \
	SHIM_ASSERT(shim_lock_owned(lock), "lockdep_assert_held(" #lock ")")
#define lockdep_set_class(lock, key)	do { (void)(key); } while (0)

#define might_sleep() \
	SHIM_ASSERT(!shim_locks_held, "might_sleep() under a spinlock")

/*
 * Sequence count tied to a spinlock.  Writers must hold the lock (checked);
 * the memory ordering is the seqlock pattern in C11 terms: the first
 * increment is ordered before the data stores by a release fence, the
 * second is a release store, and a reader's data loads are ordered before
 * its second read of the count by an acquire fence.
 */
typedef struct {
	unsigned int sequence;
#ifndef SHIM_FAST
	spinlock_t *lock;
#endif
} seqcount_spinlock_t;

static inline void seqcount_spinlock_init(seqcount_spinlock_t *s,
					  spinlock_t *lock)
{
	s->sequence = 0;
#ifndef SHIM_FAST
	s->lock = lock;
#else
	(void)lock;
#endif
}

static inline void write_seqcount_begin_nested(seqcount_spinlock_t *s,
					       int subclass)
{
	(void)subclass;
#ifndef SHIM_FAST
	SHIM_ASSERT(shim_lock_owned(s->lock),
		    "write_seqcount_begin without the lock");
#endif
	SHIM_ASSERT(!(s->sequence & 1), "nested write_seqcount_begin");
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

#define write_seqcount_begin(s)	write_seqcount_begin_nested((s), 0)

static inline void write_seqcount_end(seqcount_spinlock_t *s)
{
#ifndef SHIM_FAST
	SHIM_ASSERT(shim_lock_owned(s->lock),
		    "write_seqcount_end without the lock");
#endif
	SHIM_ASSERT(s->sequence & 1, "write_seqcount_end without begin");
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELEASE);
}

static inline unsigned int read_seqcount_begin(const seqcount_spinlock_t *s)
{
	unsigned int seq;

	while ((seq = __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE)) & 1)
		cpu_relax();
	return seq;
}

static inline bool read_seqcount_retry(const seqcount_spinlock_t *s,
				       unsigned int start)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&s->sequence, __ATOMIC_RELAXED) != start;
}

#endif /* _SHIM_LOCK_H */
