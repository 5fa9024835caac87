/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RCU on liburcu (memb flavour), with the checks the kernel's lockdep-RCU
 * makes: rcu_dereference() outside a read-side section aborts, and so does
 * rcu_dereference_protected() whose condition is false.  Unlike the
 * kernel's tools/ shims, synchronize_rcu() really waits and
 * rcu_assign_pointer() really orders.
 */
#ifndef _SHIM_RCU_H
#define _SHIM_RCU_H

#include "base.h"
#include <urcu.h>

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
	urcu_memb_read_lock();
	shim_rcu_depth++;
}

static inline void rcu_read_unlock(void)
{
	SHIM_ASSERT(shim_rcu_depth > 0, "rcu_read_unlock() without lock");
	shim_rcu_depth--;
	urcu_memb_read_unlock();
}

static inline bool rcu_read_lock_held(void)
{
	return shim_rcu_depth > 0;
}

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

#endif /* _SHIM_RCU_H */
