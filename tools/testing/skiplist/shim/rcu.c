// SPDX-License-Identifier: GPL-2.0
/* Userspace shim: per-thread RCU registration and read-side depth. */
#include "rcu.h"

__thread int shim_rcu_depth;
__thread bool shim_rcu_registered;

void shim_rcu_register(void)
{
	shim_urcu_register();
	shim_rcu_registered = true;
}

void shim_rcu_unregister(void)
{
	SHIM_ASSERT(!shim_rcu_depth, "thread exits inside rcu_read_lock()");
	shim_urcu_unregister();
	shim_rcu_registered = false;
}
