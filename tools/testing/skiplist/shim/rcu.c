// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace shim: per-thread RCU registration and read-side depth, and the
 * precise flavour (SHIM_RCU_PRECISE) the tests run on.
 *
 * Precise RCU.  A grace period must wait for every reader that may hold a
 * pointer to what the updater removed before it called call_rcu(), and it
 * need wait for no other.  liburcu, like the kernel, waits longer: a grace
 * period ends only when every CPU or thread has passed a quiescent state
 * after it began, so a reader that starts during it, and finds an object
 * that should no longer be reachable, is waited for too; the use after
 * free it commits is never seen.  Here a grace period waits for exactly
 * the readers that started before it:
 *
 *  - A global sequence number, shim_rcu_gp_seq, starts at 1.
 *  - The outermost rcu_read_lock() of a thread stores the number it reads
 *    in its @start, then a full barrier; rcu_read_unlock() stores 0, then
 *    a full barrier.
 *  - call_rcu() stamps the callback with the number, and increments it
 *    (one atomic exchange-add, after the caller's removal).  The callback
 *    may run once no thread has 0 < @start <= stamp.
 *
 * Why that is enough: a reader whose lock read a number above the stamp
 * read it after the exchange-add, which follows the removal, so it cannot
 * find what was removed.  A reader that read a number at or below the
 * stamp is waited for, if the scan finds its @start; if the scan finds 0,
 * the scan's full barrier came before the reader's, and everything the
 * reader reads after its barrier comes after the removal (the kernel's
 * store-buffering rule for two full barriers, which liburcu's flavours
 * rely on as well).  So every reader that could still see the object is
 * waited for, and the only readers waited for without need are those whose
 * rcu_read_lock() ran at the same moment as the call_rcu().
 *
 * When callbacks run: as soon as they may, in the thread that made them
 * ready.  The last reader to leave that held a callback back runs it in its
 * outermost rcu_read_unlock(); a callback that nobody holds back runs in
 * call_rcu() itself when that is called outside a read-side section (from
 * inside one, the caller holds it back).  synchronize_rcu() and
 * rcu_barrier() run them too while they wait.  Callbacks run one thread at
 * a time, in the order they were queued; one may queue another
 * (sl_leaf_free_rcu_twice()).  Readiness only grows with age: a callback
 * is held back by every reader that holds back any older one, so the ready
 * callbacks are always a prefix of the queue, and a reader need look at
 * the oldest callback only to know whether it may have freed one.
 *
 * A signal handler that runs on a thread (a simulated interrupt) may take
 * the read lock and call call_rcu() anywhere: the read-side fast paths are
 * safe against it (rcu.h), and a call_rcu() that interrupts the queue's
 * lock on its own thread leaves its callback on a per-thread list that the
 * interrupted code queues when it lets go of the lock.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include "rcu.h"
#include "lock.h"
#include "slab.h"

__thread int shim_rcu_depth;
__thread bool shim_rcu_registered;

#ifdef SHIM_RCU_PRECISE
__thread struct shim_rcu_reader shim_rcu_self;
unsigned long shim_rcu_gp_seq = 1;
/* The oldest pending callback's stamp, 0 when none is pending. */
unsigned long shim_rcu_oldest;

/*
 * The queue and the registry of readers, under one lock.  @queued counts
 * callbacks ever queued, @done those that have returned: since callbacks
 * run one thread at a time in queue order, rcu_barrier() waits for @done
 * to reach the @queued it read.
 */
static pthread_mutex_t shim_rcu_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shim_rcu_reader *shim_rcu_readers;
static struct rcu_head *shim_rcu_head, **shim_rcu_tail = &shim_rcu_head;
static unsigned long shim_rcu_queued, shim_rcu_done;

/* One thread runs callbacks at a time; others leave it a request. */
static int shim_rcu_busy, shim_rcu_request;

/* This thread holds shim_rcu_lock; callbacks a handler queued meanwhile. */
static __thread bool shim_rcu_locked;
static __thread struct rcu_head *shim_rcu_deferred;

static void shim_rcu_append(struct rcu_head *head)
{
	head->stamp = __atomic_fetch_add(&shim_rcu_gp_seq, 1,
					 __ATOMIC_SEQ_CST);
	head->next = NULL;
	*shim_rcu_tail = head;
	shim_rcu_tail = &head->next;
	shim_rcu_queued++;
	if (!shim_rcu_oldest)
		__atomic_store_n(&shim_rcu_oldest, head->stamp,
				 __ATOMIC_RELAXED);
}

/*
 * The flag goes up before the lock is tried, and down after it is let go,
 * so that a handler on this thread never waits for the lock its own
 * thread holds.
 */
static void shim_rcu_lock_queue(void)
{
	WRITE_ONCE(shim_rcu_locked, true);
	barrier();
	pthread_mutex_lock(&shim_rcu_lock);
}

/*
 * Callbacks a signal handler queued while this thread held the lock go in
 * as it lets go, stamped then: later than their call_rcu(), which only
 * makes them wait longer.
 */
static void shim_rcu_unlock_queue(void)
{
	struct rcu_head *head, *next;
	bool late = false;

	while ((head = __atomic_exchange_n(&shim_rcu_deferred, NULL,
					   __ATOMIC_RELAXED))) {
		for (; head; head = next) {
			next = head->next;
			shim_rcu_append(head);
			late = true;
		}
	}
	pthread_mutex_unlock(&shim_rcu_lock);
	barrier();
	WRITE_ONCE(shim_rcu_locked, false);
	barrier();
	/* A handler that came after the look above. */
	if (READ_ONCE(shim_rcu_deferred)) {
		shim_rcu_lock_queue();
		shim_rcu_unlock_queue();
	} else if (late && !shim_rcu_depth) {
		shim_rcu_process();
	}
}

/* The oldest @start among the threads inside a section; 0 if none is. */
static unsigned long shim_rcu_oldest_reader(void)
{
	struct shim_rcu_reader *r;
	unsigned long oldest = 0, start;

	for (r = shim_rcu_readers; r; r = r->next) {
		start = __atomic_load_n(&r->start, __ATOMIC_RELAXED);
		if (start && (!oldest || start < oldest))
			oldest = start;
	}
	return oldest;
}

/*
 * Take the callbacks no reader holds back off the queue.  The scan follows
 * a full barrier, which pairs with the one in rcu_read_unlock(): either the
 * scan sees the reader gone, or the reader sees the @oldest stored before
 * the barrier, and runs this itself.
 */
static struct rcu_head *shim_rcu_take_ready(void)
{
	struct rcu_head *ready = NULL, **end = &ready;
	unsigned long reader;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	shim_rcu_lock_queue();
	reader = shim_rcu_oldest_reader();
	while (shim_rcu_head && (!reader || shim_rcu_head->stamp < reader)) {
		*end = shim_rcu_head;
		end = &shim_rcu_head->next;
		shim_rcu_head = shim_rcu_head->next;
	}
	*end = NULL;
	if (!shim_rcu_head)
		shim_rcu_tail = &shim_rcu_head;
	__atomic_store_n(&shim_rcu_oldest,
			 shim_rcu_head ? shim_rcu_head->stamp : 0,
			 __ATOMIC_RELAXED);
	shim_rcu_unlock_queue();
	return ready;
}

/*
 * Run every callback that may run.  Until a scan takes nothing: each scan
 * publishes a new @oldest before it looks at the readers, so a reader that
 * left while the last batch ran either was seen gone or saw the new
 * @oldest and asks again.
 */
static void shim_rcu_run_ready(void)
{
	struct rcu_head *head, *next;

	while ((head = shim_rcu_take_ready())) {
		for (; head; head = next) {
			next = head->next;
			head->func(head);
			__atomic_add_fetch(&shim_rcu_done, 1, __ATOMIC_RELEASE);
		}
	}
}

/**
 * shim_rcu_process() - run the callbacks that no reader holds back any more
 *
 * If another thread is running callbacks (or this one is, and a callback
 * or a signal handler got here), leave it a request: it looks again before
 * it stops.
 */
void shim_rcu_process(void)
{
	__atomic_store_n(&shim_rcu_request, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&shim_rcu_request, __ATOMIC_SEQ_CST)) {
		if (__atomic_exchange_n(&shim_rcu_busy, 1, __ATOMIC_SEQ_CST))
			return;
		while (__atomic_exchange_n(&shim_rcu_request, 0,
					   __ATOMIC_SEQ_CST))
			shim_rcu_run_ready();
		__atomic_store_n(&shim_rcu_busy, 0, __ATOMIC_SEQ_CST);
	}
}

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	head->func = func;
	if (READ_ONCE(shim_rcu_locked)) {
		/* A handler interrupted this thread inside the lock. */
		head->next = shim_rcu_deferred;
		shim_rcu_deferred = head;
		return;
	}
	shim_rcu_lock_queue();
	shim_rcu_append(head);
	shim_rcu_unlock_queue();
	/* Inside a section, the caller holds it back: its unlock runs it. */
	if (!shim_rcu_depth)
		shim_rcu_process();
}

static void shim_rcu_pause(void)
{
	struct timespec ts = { 0, 20000 };

	nanosleep(&ts, NULL);
}

void synchronize_rcu(void)
{
	unsigned long stamp, reader;

	SHIM_ASSERT(!shim_rcu_depth, "synchronize_rcu() inside rcu_read_lock()");
	might_sleep();
	stamp = __atomic_fetch_add(&shim_rcu_gp_seq, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		shim_rcu_process();
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		shim_rcu_lock_queue();
		reader = shim_rcu_oldest_reader();
		shim_rcu_unlock_queue();
		if (!reader || reader > stamp)
			break;
		shim_rcu_pause();
	}
}

void rcu_barrier(void)
{
	unsigned long queued;

	SHIM_ASSERT(!shim_rcu_depth, "rcu_barrier() inside rcu_read_lock()");
	might_sleep();
	shim_rcu_lock_queue();
	queued = shim_rcu_queued;
	shim_rcu_unlock_queue();
	for (;;) {
		shim_rcu_process();
		if (__atomic_load_n(&shim_rcu_done, __ATOMIC_ACQUIRE) >= queued)
			break;
		shim_rcu_pause();
	}
}

unsigned long shim_rcu_callbacks_done(void)
{
	return __atomic_load_n(&shim_rcu_done, __ATOMIC_ACQUIRE);
}

static void shim_urcu_register(void)
{
	shim_rcu_self.start = 0;
	shim_rcu_lock_queue();
	shim_rcu_self.next = shim_rcu_readers;
	shim_rcu_readers = &shim_rcu_self;
	shim_rcu_unlock_queue();
}

static void shim_urcu_unregister(void)
{
	struct shim_rcu_reader **r;

	shim_rcu_lock_queue();
	for (r = &shim_rcu_readers; *r != &shim_rcu_self; r = &(*r)->next)
		;
	*r = shim_rcu_self.next;
	shim_rcu_unlock_queue();
}
#endif /* SHIM_RCU_PRECISE */

void shim_rcu_register(void)
{
	SHIM_ASSERT(!shim_rcu_registered, "thread registered with RCU twice");
	shim_urcu_register();
	shim_rcu_registered = true;
}

#ifdef SHIM_FAST
static void shim_kfree_flush(void);
#endif

void shim_rcu_unregister(void)
{
	SHIM_ASSERT(!shim_rcu_depth, "thread exits inside rcu_read_lock()");
#ifdef SHIM_FAST
	shim_kfree_flush();
#endif
	shim_urcu_unregister();
	shim_rcu_registered = false;
}

#ifdef SHIM_FAST
/*
 * The kernel's kfree_rcu() gathers pointers per CPU into arrays and
 * queues one RCU callback per array.  The benchmarks' build does the
 * same per thread, so that they pay what the kernel pays rather than a
 * callback per object (and, with liburcu, a wake of its callback thread
 * each time).  A thread's partial batch goes out when it unregisters.
 */
#define SHIM_KFREE_BATCH	64

struct shim_kfree_batch {
	struct rcu_head rcu;
	unsigned int nr;
	const void *obj[SHIM_KFREE_BATCH];
};

static __thread struct shim_kfree_batch *shim_kfree_mine;

static void shim_kfree_batch_cb(struct rcu_head *head)
{
	struct shim_kfree_batch *b =
		container_of(head, struct shim_kfree_batch, rcu);

	while (b->nr)
		kfree(b->obj[--b->nr]);
	free(b);
}

static void shim_kfree_flush(void)
{
	if (shim_kfree_mine)
		call_rcu(&shim_kfree_mine->rcu, shim_kfree_batch_cb);
	shim_kfree_mine = NULL;
}

void shim_kfree_rcu(const void *obj)
{
	if (!shim_kfree_mine) {
		shim_kfree_mine = malloc(sizeof(*shim_kfree_mine));
		SHIM_ASSERT(shim_kfree_mine, "kfree_rcu: out of memory");
		shim_kfree_mine->nr = 0;
	}
	shim_kfree_mine->obj[shim_kfree_mine->nr++] = obj;
	if (shim_kfree_mine->nr == SHIM_KFREE_BATCH)
		shim_kfree_flush();
}
#else
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
#endif
