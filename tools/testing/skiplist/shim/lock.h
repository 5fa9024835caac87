/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Spinlocks and rwlocks that know their holders, and sequence counts that
 * check theirs.
 *
 * lockdep_assert_held() really asserts: each lock records the id of the
 * thread holding it.  Taking a lock twice, releasing one not held, or
 * nesting with a subclass that does not match the number of locks already
 * held aborts.  A lock that cannot be had for SHIM_DEADLOCK_SECONDS aborts
 * too, so a deadlock fails a test instead of hanging it.
 *
 * The _irq and _irqsave variants also turn the thread's simulated
 * interrupts off and back on (irq.h), and an interrupt handler that takes
 * a lock its own thread holds, which in the kernel spins forever on the
 * CPU the holder cannot get back, aborts at once, naming the lock.
 */
#ifndef _SHIM_LOCK_H
#define _SHIM_LOCK_H

#include "base.h"
#include "irq.h"

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

void shim_irq_lock_deadlock(const spinlock_t *lock, const char *name);

static inline void shim_spin_lock(spinlock_t *lock, int subclass,
				  const char *name)
{
	int free = 0;

	if (unlikely(in_hardirq() && shim_lock_owned(lock)))
		shim_irq_lock_deadlock(lock, name);
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

#define spin_lock(lock)			shim_spin_lock((lock), -1, #lock)
#define spin_lock_nested(lock, sub)	shim_spin_lock((lock), (sub), #lock)
#define spin_lock_irqsave(lock, flags) do {				\
	local_irq_save(flags);						\
	shim_spin_lock((lock), 0, #lock);				\
} while (0)
#define spin_lock_irqsave_nested(lock, flags, sub) do {			\
	local_irq_save(flags);						\
	shim_spin_lock((lock), (sub), #lock);				\
} while (0)
#define spin_unlock_irqrestore(lock, flags) do {			\
	spin_unlock(lock);						\
	local_irq_restore(flags);					\
} while (0)
#define spin_lock_irq(lock) do {					\
	local_irq_disable();						\
	shim_spin_lock((lock), 0, #lock);				\
} while (0)
#define spin_unlock_irq(lock) do {					\
	spin_unlock(lock);						\
	local_irq_enable();						\
} while (0)
/* Softirqs are not simulated: bottom halves change nothing here. */
#define spin_lock_bh(lock)		shim_spin_lock((lock), 0, #lock)
#define spin_unlock_bh(lock)		spin_unlock(lock)

#define DEFINE_SPINLOCK(name)	spinlock_t name = { 0 }

/*
 * Reader-writer spinlocks that know their holders: the writer's id, and
 * per thread the read locks it holds, so that lockdep_assert_held() and
 * lockdep_assert_held_write() really assert.  A waiting writer holds new
 * readers back, as the kernel's queued rwlock does for process context,
 * so writers are not starved.  They are counted apart from spinlocks
 * (shim_rwlocks_held): the spinlock nesting check counts spinlocks only.
 */
#define SHIM_RW_WRITER		(1 << 30)	/* write-held */
#define SHIM_RW_WAITING		(1 << 29)	/* a writer waits */
#define SHIM_RW_READ_MAX	4		/* read locks one thread holds */

typedef struct {
	int state;		/* readers, plus the bits above */
	int owner;		/* writer's thread id, 0 if none */
} rwlock_t;

extern __thread int shim_rwlocks_held;
extern __thread const rwlock_t *shim_rwlocks_read[SHIM_RW_READ_MAX];
void shim_read_lock(rwlock_t *lock);
void shim_read_unlock(rwlock_t *lock);
void shim_write_lock(rwlock_t *lock);
void shim_write_unlock(rwlock_t *lock);
bool shim_rwlock_read_owned(const rwlock_t *lock);

static inline void rwlock_init(rwlock_t *lock)
{
	lock->state = 0;
	lock->owner = 0;
}

static inline bool shim_rwlock_write_owned(const rwlock_t *lock)
{
	return __atomic_load_n(&lock->owner, __ATOMIC_RELAXED) ==
		shim_thread_id();
}

static inline bool shim_rwlock_owned(const rwlock_t *lock)
{
	return shim_rwlock_write_owned(lock) || shim_rwlock_read_owned(lock);
}

#define DEFINE_RWLOCK(name)		rwlock_t name = { 0, 0 }
#define read_lock(lock)			shim_read_lock(lock)
#define read_unlock(lock)		shim_read_unlock(lock)
#define write_lock(lock)		shim_write_lock(lock)
#define write_unlock(lock)		shim_write_unlock(lock)
#define read_lock_bh(lock)		shim_read_lock(lock)
#define read_unlock_bh(lock)		shim_read_unlock(lock)
#define write_lock_bh(lock)		shim_write_lock(lock)
#define write_unlock_bh(lock)		shim_write_unlock(lock)

/* Held in any mode, for either kind of lock. */
#define shim_held(lock) _Generic((lock),				\
	spinlock_t *: shim_lock_owned,					\
	const spinlock_t *: shim_lock_owned,				\
	rwlock_t *: shim_rwlock_owned,					\
	const rwlock_t *: shim_rwlock_owned)(lock)

#define lockdep_is_held(lock)		shim_held(lock)
#define lockdep_assert_held(lock) \
	SHIM_ASSERT(shim_held(lock), "lockdep_assert_held(" #lock ")")
#define lockdep_assert_held_write(lock)					\
	SHIM_ASSERT(shim_rwlock_write_owned(lock),			\
		    "lockdep_assert_held_write(" #lock ")")
#define lockdep_assert_held_read(lock)					\
	SHIM_ASSERT(shim_rwlock_read_owned(lock),			\
		    "lockdep_assert_held_read(" #lock ")")
#define lockdep_set_class(lock, key)	do { (void)(key); } while (0)

#define might_sleep() do {						\
	SHIM_ASSERT(!shim_locks_held && !shim_rwlocks_held,		\
		    "might_sleep() under a spinlock or rwlock");	\
	SHIM_ASSERT(!irqs_disabled() && !in_interrupt(),		\
		    "might_sleep() with interrupts off or in an interrupt"); \
} while (0)

/*
 * A point where the kernel may reschedule.  Asserts that nothing atomic is
 * held (a spinlock, a rwlock, a local lock or an RCU read-side section),
 * as the kernel's might_sleep() inside cond_resched() does, is a quiescent
 * state for RCU, and counts the calls of this thread, so that a test can
 * see that a long walk gave the CPU up as often as it should.
 */
extern __thread unsigned long shim_cond_resched_calls;
void shim_cond_resched(void);
#define cond_resched()	({ shim_cond_resched(); 0; })


/*
 * Sequence counts tied to a spinlock or to a rwlock.  Writers must hold the
 * lock (checked; for a rwlock, held for writing: a sequence count written
 * by several read-lock holders at once would be corrupted); the memory
 * ordering is the seqlock pattern in C11 terms: the first increment is
 * ordered before the data stores by a release fence, the second is a
 * release store, and a reader's data loads are ordered before its second
 * read of the count by an acquire fence.
 */
typedef struct {
	unsigned int sequence;
#ifndef SHIM_FAST
	spinlock_t *lock;
#endif
} seqcount_spinlock_t;

typedef struct {
	unsigned int sequence;
#ifndef SHIM_FAST
	rwlock_t *lock;
#endif
} seqcount_rwlock_t;

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

static inline void seqcount_rwlock_init(seqcount_rwlock_t *s, rwlock_t *lock)
{
	s->sequence = 0;
#ifndef SHIM_FAST
	s->lock = lock;
#else
	(void)lock;
#endif
}

static inline bool shim_seq_spin_owned(const seqcount_spinlock_t *s)
{
#ifndef SHIM_FAST
	return shim_lock_owned(s->lock);
#else
	return true;
#endif
}

static inline bool shim_seq_rw_owned(const seqcount_rwlock_t *s)
{
#ifndef SHIM_FAST
	return shim_rwlock_write_owned(s->lock);
#else
	return true;
#endif
}

static inline void shim_seq_write_begin(unsigned int *sequence, bool owned)
{
	SHIM_ASSERT(owned, "write_seqcount_begin without the lock");
	SHIM_ASSERT(!(*sequence & 1), "nested write_seqcount_begin");
	__atomic_store_n(sequence, *sequence + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void shim_seq_write_end(unsigned int *sequence, bool owned)
{
	SHIM_ASSERT(owned, "write_seqcount_end without the lock");
	SHIM_ASSERT(*sequence & 1, "write_seqcount_end without begin");
	__atomic_store_n(sequence, *sequence + 1, __ATOMIC_RELEASE);
}

#define shim_seq_owned(s) _Generic((s),					\
	seqcount_spinlock_t *: shim_seq_spin_owned,			\
	seqcount_rwlock_t *: shim_seq_rw_owned)(s)

#define write_seqcount_begin_nested(s, subclass) do {			\
	(void)(subclass);						\
	shim_seq_write_begin(&(s)->sequence, shim_seq_owned(s));	\
} while (0)
#define write_seqcount_begin(s)	write_seqcount_begin_nested((s), 0)
#define write_seqcount_end(s)						\
	shim_seq_write_end(&(s)->sequence, shim_seq_owned(s))

static inline unsigned int shim_seq_read_begin(const unsigned int *sequence)
{
	unsigned int seq;

	while ((seq = __atomic_load_n(sequence, __ATOMIC_ACQUIRE)) & 1)
		cpu_relax();
	return seq;
}

static inline bool shim_seq_read_retry(const unsigned int *sequence,
				       unsigned int start)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(sequence, __ATOMIC_RELAXED) != start;
}

#define read_seqcount_begin(s)	shim_seq_read_begin(&(s)->sequence)
#define read_seqcount_retry(s, start) \
	shim_seq_read_retry(&(s)->sequence, (start))

#endif /* _SHIM_LOCK_H */
