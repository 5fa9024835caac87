// SPDX-License-Identifier: GPL-2.0
/*
 * STAND-IN for lsm/pool.c, linked into the store's tests only while
 * lsm/memtable.c has not landed: a pool that holds nothing.
 */
#include <linux/slab.h>
#include "pool.h"

struct lsm_pool {
	enum lsm_pool_kind kind;
};

struct lsm_pool *lsm_pool_create(enum lsm_pool_kind kind, gfp_t gfp)
{
	struct lsm_pool *p = kzalloc(sizeof(*p), gfp);

	if (p)
		p->kind = kind;
	return p;
}

void lsm_pool_destroy(struct lsm_pool *pool)
{
	kfree(pool);
}
