// SPDX-License-Identifier: GPL-2.0
/* Userspace shim: per-thread RCU registration and read-side depth. */
#include "rcu.h"
#include "slab.h"

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

struct shim_kfree_node {
	struct rcu_head rcu;
	const void *obj;
};

static void shim_kfree_cb(struct rcu_head *head)
{
	struct shim_kfree_node *node =
		container_of(head, struct shim_kfree_node, rcu);

	kfree(node->obj);
	free(node);
}

void shim_kfree_rcu(const void *obj)
{
	struct shim_kfree_node *node = malloc(sizeof(*node));

	SHIM_ASSERT(node, "kfree_rcu: out of memory");
	node->obj = obj;
	call_rcu(&node->rcu, shim_kfree_cb);
}
