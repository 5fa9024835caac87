// SPDX-License-Identifier: GPL-2.0
/* Userspace shim: per-thread RCU registration and read-side depth. */
#include "rcu.h"

__thread int shim_rcu_depth;
__thread bool shim_rcu_registered;

void shim_rcu_register(void)
{
	urcu_memb_register_thread();
	shim_rcu_registered = true;
}

void shim_rcu_unregister(void)
{
	SHIM_ASSERT(!shim_rcu_depth, "thread exits inside rcu_read_lock()");
	urcu_memb_unregister_thread();
	shim_rcu_registered = false;
}
