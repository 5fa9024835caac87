// SPDX-License-Identifier: GPL-2.0
/* Userspace shim: simulated hard interrupts, see irq.h. */
#define _GNU_SOURCE		/* gettid(), sigev_notify_thread_id */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "irq.h"
#include "lock.h"
#include "rcu.h"

/* glibc 2.36 has the field but not the name. */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id	_sigev_un._tid
#endif

#ifndef SHIM_FAST
#define SHIM_IRQ_RAISED		1	/* shim_irq_raise() queued some */
#define SHIM_IRQ_TIMER		2	/* the thread's timer fired */
#define SHIM_IRQ_QUEUE		8

__thread bool shim_irqs_off;
__thread unsigned int shim_hardirq_depth;
__thread int shim_irq_pending;

struct shim_irq {
	shim_irq_handler_t handler;
	void *arg;
};

/* Raised while interrupts were off, oldest first. */
static __thread struct shim_irq shim_irq_queue[SHIM_IRQ_QUEUE];
static __thread unsigned int shim_irq_queued;

/* The thread's random interrupt source. */
static __thread struct {
	bool armed;
	timer_t id;
	unsigned int mean_us;
	struct shim_irq irq;
	u64 rng;
} shim_irq_timer;

/* Spins inside the running handler: how many, and since when. */
static __thread unsigned long shim_irq_spins;
static __thread struct timespec shim_irq_spin_start;

static unsigned long shim_irq_count;

unsigned long shim_irqs_delivered(void)
{
	return __atomic_load_n(&shim_irq_count, __ATOMIC_RELAXED);
}

/*
 * Enter interrupt context, run the handler, leave.  The interrupted
 * context's locks are not the handler's: the nesting checks count from 0
 * inside, and put the count back after.
 */
static void shim_irq_run(const struct shim_irq *irq)
{
	int locks = shim_locks_held, rwlocks = shim_rwlocks_held;
	int rcu = shim_rcu_depth;

	shim_irqs_off = true;
	shim_hardirq_depth++;
	shim_locks_held = 0;
	shim_rwlocks_held = 0;
	shim_irq_spins = 0;
	irq->handler(irq->arg);
	SHIM_ASSERT(!shim_locks_held && !shim_rwlocks_held,
		    "interrupt handler returned holding a lock");
	SHIM_ASSERT(shim_rcu_depth == rcu,
		    "interrupt handler returned inside rcu_read_lock()");
	SHIM_ASSERT(shim_irqs_off,
		    "interrupt handler returned with interrupts enabled");
	shim_locks_held = locks;
	shim_rwlocks_held = rwlocks;
	shim_hardirq_depth--;
	shim_irqs_off = false;
	__atomic_add_fetch(&shim_irq_count, 1, __ATOMIC_RELAXED);
}

static void shim_irq_timer_arm(void)
{
	struct itimerspec its = { 0 };
	unsigned long us;

	shim_irq_timer.rng ^= shim_irq_timer.rng << 13;
	shim_irq_timer.rng ^= shim_irq_timer.rng >> 7;
	shim_irq_timer.rng ^= shim_irq_timer.rng << 17;
	us = shim_irq_timer.mean_us / 2 +
	     shim_irq_timer.rng % (shim_irq_timer.mean_us + 1);
	its.it_value.tv_sec = us / 1000000;
	its.it_value.tv_nsec = (us % 1000000) * 1000 + 1;
	SHIM_ASSERT(!timer_settime(shim_irq_timer.id, 0, &its, NULL),
		    "timer_settime");
}

/* Run everything pending, while interrupts stay on and we are not in one. */
void shim_irq_deliver(void)
{
	struct shim_irq irq;
	unsigned int i;
	int pending;

	while (!shim_irqs_off && !shim_hardirq_depth &&
	       (pending = __atomic_load_n(&shim_irq_pending, __ATOMIC_RELAXED))) {
		if (pending & SHIM_IRQ_RAISED) {
			irq = shim_irq_queue[0];
			for (i = 1; i < shim_irq_queued; i++)
				shim_irq_queue[i - 1] = shim_irq_queue[i];
			if (!--shim_irq_queued)
				__atomic_fetch_and(&shim_irq_pending,
						   ~SHIM_IRQ_RAISED,
						   __ATOMIC_RELAXED);
		} else {
			__atomic_fetch_and(&shim_irq_pending, ~SHIM_IRQ_TIMER,
					   __ATOMIC_RELAXED);
			if (!shim_irq_timer.armed)
				continue;
			irq = shim_irq_timer.irq;
			shim_irq_timer_arm();
		}
		shim_irq_run(&irq);
	}
}

void shim_irq_raise(shim_irq_handler_t handler, void *arg)
{
	struct shim_irq irq = { handler, arg };

	if (!shim_irqs_off && !shim_hardirq_depth) {
		shim_irq_run(&irq);
		/* Whatever the handler raised waited for it to return. */
		shim_irq_safe_point();
		return;
	}
	SHIM_ASSERT(shim_irq_queued < SHIM_IRQ_QUEUE,
		    "too many simulated interrupts pending");
	shim_irq_queue[shim_irq_queued++] = irq;
	__atomic_fetch_or(&shim_irq_pending, SHIM_IRQ_RAISED, __ATOMIC_RELAXED);
}

static double shim_irq_seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) * 1e-9;
}

/*
 * cpu_relax()'s slow path.  In a handler: count the spin; a handler that
 * has been spinning for SHIM_IRQ_SPIN_SECONDS waits for something only
 * the context it interrupted can do, on the CPU the handler is holding.
 * Outside one, with interrupts on: deliver what is pending.
 */
void shim_irq_relax(void)
{
	if (!shim_hardirq_depth) {
		if (!shim_irqs_off)
			shim_irq_deliver();
		return;
	}
	if (!shim_irq_spins++)
		clock_gettime(CLOCK_MONOTONIC, &shim_irq_spin_start);
	/*
	 * Let the other threads (CPUs) run on an overloaded machine; the
	 * thread interrupted here cannot, as in the kernel.
	 */
	if (shim_irq_spins % 1024)
		return;
	sched_yield();
	if (shim_irq_seconds_since(&shim_irq_spin_start) > SHIM_IRQ_SPIN_SECONDS) {
		fprintf(stderr, "interrupt handler spun %lu times for %d s\n",
			shim_irq_spins, SHIM_IRQ_SPIN_SECONDS);
		shim_die(__FILE__, __LINE__,
			 "interrupt handler spins on state the interrupted context must change");
	}
}

/* The only thing the signal does: mark the timer's interrupt pending. */
static void shim_irq_signal(int sig)
{
	(void)sig;
	__atomic_fetch_or(&shim_irq_pending, SHIM_IRQ_TIMER, __ATOMIC_RELAXED);
}

static pthread_once_t shim_irq_signal_once = PTHREAD_ONCE_INIT;

static int shim_irq_signo(void)
{
	return SIGRTMIN + 1;
}

static void shim_irq_signal_install(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = shim_irq_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	SHIM_ASSERT(!sigaction(shim_irq_signo(), &sa, NULL), "sigaction");
}

void shim_irq_timer_start(unsigned int mean_us, shim_irq_handler_t handler,
			  void *arg)
{
	struct sigevent sev = { 0 };

	SHIM_ASSERT(!shim_irq_timer.armed, "interrupt timer started twice");
	SHIM_ASSERT(mean_us, "interrupt timer with no period");
	pthread_once(&shim_irq_signal_once, shim_irq_signal_install);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = shim_irq_signo();
	sev.sigev_notify_thread_id = gettid();
	SHIM_ASSERT(!timer_create(CLOCK_MONOTONIC, &sev, &shim_irq_timer.id),
		    "timer_create");
	shim_irq_timer.mean_us = mean_us;
	shim_irq_timer.irq.handler = handler;
	shim_irq_timer.irq.arg = arg;
	shim_irq_timer.rng = 0x9e3779b97f4a7c15ULL ^ ((u64)gettid() << 20) ^
			     (uintptr_t)arg;
	shim_irq_timer.armed = true;
	shim_irq_timer_arm();
}

void shim_irq_timer_stop(void)
{
	if (!shim_irq_timer.armed)
		return;
	shim_irq_timer.armed = false;
	SHIM_ASSERT(!timer_delete(shim_irq_timer.id), "timer_delete");
	__atomic_fetch_and(&shim_irq_pending, ~SHIM_IRQ_TIMER, __ATOMIC_RELAXED);
}
#endif /* !SHIM_FAST */
