/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Simulated hard interrupts.  Each thread is a CPU with an interrupt flag:
 * spin_lock_irqsave(), spin_lock_irq(), local_irq_save() and
 * local_lock_irqsave() clear it, and the matching unlocks and restores put
 * it back.  shim_irq_raise() runs a handler on the calling thread "in
 * interrupt context" (in_hardirq() true, interrupts off, no lock of the
 * interrupted context counted as its own), at once if interrupts are on,
 * else as soon as they come back on, as a real CPU does with an interrupt
 * that arrives while it has them masked.
 *
 * The point is to find nestings that deadlock in the kernel, where the
 * handler runs on the CPU of the context it interrupted and that context
 * cannot run again until the handler returns.  Two ways a handler can wait
 * for it, both turned into a failure here instead of a hang:
 *  - a spinlock the interrupted context holds: taking it in the handler
 *    aborts at once, naming the lock;
 *  - any other state the interrupted context must change, waited for with
 *    cpu_relax(): a handler that spins for SHIM_IRQ_SPIN_SECONDS aborts.
 *    A handler may also spin for another thread ("another CPU"), which
 *    comes back unless the machine is badly overloaded; the bound is long
 *    enough for that.
 *
 * Random interrupts: shim_irq_timer_start() arms a per-thread POSIX timer
 * whose signal handler only sets a pending bit.  The handler a thread
 * registered runs at the next safe point where its interrupts are on:
 * cpu_relax(), an unlock or restore that turns them back on, or any call
 * of shim_irq_safe_point() (the stress test calls it at every sl_window()
 * and between operations).  Never from the signal handler itself, so never
 * inside malloc() or the shim's own bookkeeping.
 *
 * The SHIM_FAST build (benchmarks) has no interrupt model: the macros only
 * lock, as before.
 */
#ifndef _SHIM_IRQ_H
#define _SHIM_IRQ_H

#include "base.h"

/* A handler spinning this long waits for its own thread: a deadlock. */
#define SHIM_IRQ_SPIN_SECONDS	10

typedef void (*shim_irq_handler_t)(void *arg);

#ifndef SHIM_FAST
extern __thread bool shim_irqs_off;

static inline bool irqs_disabled(void)
{
	return shim_irqs_off;
}

#define in_hardirq()		(shim_hardirq_depth > 0)
#define in_irq()		in_hardirq()
#define in_interrupt()		in_hardirq()
#define in_task()		(!in_hardirq())

void shim_irq_deliver(void);

/* Run what is pending, if interrupts are on here. */
static inline void shim_irq_safe_point(void)
{
	if (unlikely(__atomic_load_n(&shim_irq_pending, __ATOMIC_RELAXED)) &&
	    !shim_irqs_off)
		shim_irq_deliver();
}

static inline unsigned long shim_local_irq_save(void)
{
	unsigned long flags = shim_irqs_off;

	shim_irqs_off = true;
	return flags;
}

static inline void shim_local_irq_restore(unsigned long flags)
{
	SHIM_ASSERT(!(flags & ~1UL), "local_irq_restore() of foreign flags");
	SHIM_ASSERT(flags || !in_hardirq(),
		    "interrupts enabled inside an interrupt handler");
	shim_irqs_off = flags;
	shim_irq_safe_point();
}

#define local_irq_save(flags)	((flags) = shim_local_irq_save())
#define local_irq_restore(flags) shim_local_irq_restore(flags)
#define local_irq_disable()	((void)shim_local_irq_save())
#define local_irq_enable()	shim_local_irq_restore(0)

#define lockdep_assert_irqs_disabled()					\
	SHIM_ASSERT(shim_irqs_off, "lockdep_assert_irqs_disabled()")
#define lockdep_assert_irqs_enabled()					\
	SHIM_ASSERT(!shim_irqs_off, "lockdep_assert_irqs_enabled()")

/*
 * Run @handler(@arg) as an interrupt on this thread: now if interrupts
 * are on, else when they come back on (up to 8 may wait).
 */
void shim_irq_raise(shim_irq_handler_t handler, void *arg);

/*
 * Random interrupts on the calling thread: every @mean_us microseconds on
 * average (uniform in [mean/2, 3 mean/2]), @handler(@arg) at the next safe
 * point with interrupts on.  Stop before the thread exits.
 */
void shim_irq_timer_start(unsigned int mean_us, shim_irq_handler_t handler,
			  void *arg);
void shim_irq_timer_stop(void);

/* Interrupts run so far, all threads together. */
unsigned long shim_irqs_delivered(void);
#else
static inline bool irqs_disabled(void)
{
	return false;
}

#define in_hardirq()		false
#define in_irq()		false
#define in_interrupt()		false
#define in_task()		true
#define shim_irq_safe_point()	do { } while (0)
#define local_irq_save(flags)	((flags) = 0)
#define local_irq_restore(flags) ((void)(flags))
#define local_irq_disable()	do { } while (0)
#define local_irq_enable()	do { } while (0)
#define lockdep_assert_irqs_disabled()	do { } while (0)
#define lockdep_assert_irqs_enabled()	do { } while (0)
#endif /* SHIM_FAST */

#endif /* _SHIM_IRQ_H */
