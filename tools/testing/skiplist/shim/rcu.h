/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RCU on liburcu, with the checks the kernel's lockdep-RCU makes:
 * rcu_dereference() outside a read-side section aborts, and so does
 * rcu_dereference_protected() whose condition is false.  Unlike the
 * kernel's tools/ shims, synchronize_rcu() really waits and
 * rcu_assign_pointer() really orders.
 *
 * The tests use the memb flavour, which needs nothing from its threads.
 * The benchmark (SHIM_RCU_QSBR) uses the QSBR flavour, whose read-side
 * sections cost nothing, like the kernel's; its threads report quiescent
 * states with shim_rcu_quiescent(), as scheduler ticks do in the kernel.
 */
#ifndef _SHIM_RCU_H
#define _SHIM_RCU_H

#include "base.h"
#ifdef SHIM_RCU_QSBR
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

extern __thread int shim_rcu_depth;
extern __thread bool shim_rcu_registered;

static inline void rcu_read_lock(void)
{
	SHIM_ASSERT(shim_rcu_registered,
		    "rcu_read_lock() in a thread not registered with RCU");
	shim_urcu_read_lock();
	shim_rcu_depth++;
}

static inline void rcu_read_unlock(void)
{
	SHIM_ASSERT(shim_rcu_depth > 0, "rcu_read_unlock() without lock");
	shim_rcu_depth--;
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
 * kfree_rcu(): liburcu's callbacks get only the rcu_head, not the offset
 * the kernel encodes, so the object's address travels in a node of its
 * own (malloc, outside the fault injection).
 */
void shim_kfree_rcu(const void *obj);
#define kfree_rcu(ptr, field)	shim_kfree_rcu(ptr)
#define kvfree_rcu(ptr, field)	shim_kfree_rcu(ptr)

#endif /* _SHIM_RCU_H */
