/* SPDX-License-Identifier: GPL-2.0 */
/* Completions on a wait queue (wait.h), as the kernel's. */
#ifndef _SHIM_COMPLETION_H
#define _SHIM_COMPLETION_H

#include "wait.h"

struct completion {
	unsigned int done;
	wait_queue_head_t wait;
};

static inline void init_completion(struct completion *c)
{
	c->done = 0;
	init_waitqueue_head(&c->wait);
}

static inline void reinit_completion(struct completion *c)
{
	__atomic_store_n(&c->done, 0, __ATOMIC_RELAXED);
}

static inline void complete(struct completion *c)
{
	__atomic_add_fetch(&c->done, 1, __ATOMIC_RELEASE);
	wake_up_all(&c->wait);
}

static inline void wait_for_completion(struct completion *c)
{
	wait_event(c->wait, __atomic_load_n(&c->done, __ATOMIC_ACQUIRE));
	__atomic_sub_fetch(&c->done, 1, __ATOMIC_RELAXED);
}

#endif /* _SHIM_COMPLETION_H */
