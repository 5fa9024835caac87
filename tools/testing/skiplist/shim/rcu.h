/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RCU for the userspace build, with the checks the kernel's lockdep-RCU
 * makes: rcu_dereference() outside a read-side section aborts, and so does
 * rcu_dereference_protected() whose condition is false.  Unlike the
 * kernel's tools/ shims, synchronize_rcu() really waits and
 * rcu_assign_pointer() really orders.
 *
 * Three flavours:
 *  - SHIM_RCU_PRECISE, the tests' (rcu.c): a grace period waits for the
 *    readers that started before it and for no other.  liburcu's grace
 *    periods also wait for readers that start while they run, and so hide
 *    every use after free by a reader that found an object after call_rcu()
 *    (Documentation/testing.rst, "Precise RCU").
 *  - SHIM_RCU_QSBR, the benchmark's: liburcu's QSBR flavour, whose
 *    read-side sections cost nothing, like the kernel's; its threads report
 *    quiescent states with shim_rcu_quiescent(), as scheduler ticks do in
 *    the kernel.
 *  - neither: liburcu's memb flavour, which needs nothing from its threads.
 */
#ifndef _SHIM_RCU_H
#define _SHIM_RCU_H

#include "base.h"

#undef rcu_read_lock
#undef rcu_read_unlock
#undef rcu_dereference
#undef rcu_assign_pointer

extern __thread int shim_rcu_depth;
extern __thread bool shim_rcu_registered;

#if defined(SHIM_RCU_PRECISE)
/*
 * The kernel's callback_head, plus the grace-period sequence number the
 * callback waits for.
 */
struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
	unsigned long stamp;
};

/**
 * struct shim_rcu_reader - a registered thread, as grace periods see it
 * @start: the grace-period sequence number read when its outermost
 *         read-side section began; 0 outside any section
 * @next:  the next registered thread
 */
struct shim_rcu_reader {
	unsigned long start;
	struct shim_rcu_reader *next;
};

extern __thread struct shim_rcu_reader shim_rcu_self;
extern unsigned long shim_rcu_gp_seq;
extern unsigned long shim_rcu_oldest;
void shim_rcu_process(void);

/*
 * After the depth went up.  A nested section finds @start set and keeps
 * it.  So does a section whose rcu_read_lock() a signal handler
 * interrupted after the depth went up: the handler's section set @start
 * and, nested, left it set, before this section read anything.  A handler
 * that interrupts the outermost unlock between the depth and @start keeps
 * the older @start, which only makes grace periods wait longer.
 */
static inline void shim_urcu_read_lock(void)
{
	if (__atomic_load_n(&shim_rcu_self.start, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&shim_rcu_self.start,
			 __atomic_load_n(&shim_rcu_gp_seq, __ATOMIC_SEQ_CST),
			 __ATOMIC_RELAXED);
	/* Published before the section reads anything (rcu.c). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/*
 * After the depth went down.  The outermost unlock clears @start and runs
 * the callbacks it was the last to hold back: those are the oldest, and
 * it can only have held them back if it started no later than they did.
 */
static inline void shim_urcu_read_unlock(void)
{
	unsigned long start, oldest;

	if (shim_rcu_depth)
		return;
	start = __atomic_load_n(&shim_rcu_self.start, __ATOMIC_RELAXED);
	__atomic_store_n(&shim_rcu_self.start, 0, __ATOMIC_RELEASE);
	/* Cleared before the queue is read; pairs with the scan (rcu.c). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	oldest = __atomic_load_n(&shim_rcu_oldest, __ATOMIC_RELAXED);
	if (oldest && start <= oldest)
		shim_rcu_process();
}

#define shim_rcu_quiescent()	do { } while (0)

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
void synchronize_rcu(void);
void rcu_barrier(void);
/* Callbacks invoked so far, for the tests of this flavour. */
unsigned long shim_rcu_callbacks_done(void);

#elif defined(SHIM_RCU_QSBR)
#include <urcu-qsbr.h>
#define shim_urcu_read_lock	urcu_qsbr_read_lock
#define shim_urcu_read_unlock	urcu_qsbr_read_unlock
#define shim_urcu_register	urcu_qsbr_register_thread
#define shim_urcu_unregister	urcu_qsbr_unregister_thread
#define shim_rcu_quiescent()	urcu_qsbr_quiescent_state()
#else
#include <urcu.h>
#define shim_urcu_read_lock	urcu_memb_read_lock
#define shim_urcu_read_unlock	urcu_memb_read_unlock
#define shim_urcu_register	urcu_memb_register_thread
#define shim_urcu_unregister	urcu_memb_unregister_thread
#define shim_rcu_quiescent()	do { } while (0)
#endif

#undef rcu_read_lock
#undef rcu_read_unlock
#undef rcu_dereference
#undef rcu_assign_pointer

static inline void rcu_read_lock(void)
{
	SHIM_ASSERT(shim_rcu_registered,
		    "rcu_read_lock() in a thread not registered with RCU");
	shim_rcu_depth++;
	barrier();
	shim_urcu_read_lock();
}

static inline void rcu_read_unlock(void)
{
	SHIM_ASSERT(shim_rcu_depth > 0, "rcu_read_unlock() without lock");
	barrier();
	shim_rcu_depth--;
	barrier();
	shim_urcu_read_unlock();
}

static inline bool rcu_read_lock_held(void)
{
	return shim_rcu_depth > 0;
}

/*
 * In the kernel, any section with preemption or interrupts off is a
 * reader too; here only rcu_read_lock() makes one (local_lock_irqsave()
 * takes it).
 */
static inline bool rcu_read_lock_any_held(void)
{
	return rcu_read_lock_held();
}

#define RCU_LOCKDEP_WARN(cond, what)	SHIM_ASSERT(!(cond), what)

#define rcu_dereference(p) ({						\
	SHIM_ASSERT(shim_rcu_depth > 0,					\
		    "rcu_dereference() outside rcu_read_lock()");	\
	__atomic_load_n(&(p), __ATOMIC_CONSUME);			\
})
#define rcu_dereference_protected(p, cond) ({				\
	SHIM_ASSERT((cond), "rcu_dereference_protected(" #cond ")");	\
	(p);								\
})
#define rcu_access_pointer(p)	READ_ONCE(p)
#define rcu_assign_pointer(p, v) \
	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define RCU_INIT_POINTER(p, v)	WRITE_ONCE(p, v)

void shim_rcu_register(void);
void shim_rcu_unregister(void);

/*
 * kfree_rcu(): the callbacks get only the rcu_head, not the offset the
 * kernel encodes, so the object's address travels in a node of its own
 * (malloc, outside the fault injection).
 */
void shim_kfree_rcu(const void *obj);
#define kfree_rcu(ptr, field)	shim_kfree_rcu(ptr)
#define kvfree_rcu(ptr, field)	shim_kfree_rcu(ptr)

#endif /* _SHIM_RCU_H */
