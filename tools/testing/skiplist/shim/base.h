/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the kernel's basic types, compiler helpers and
 * debugging macros, so that skiplist/ compiles unchanged against liburcu.
 *
 * Unlike tools/include in the kernel tree, these check: WARN_ON() and
 * BUG_ON() abort the test, so a kernel warning in the index is a test
 * failure here, not a line of output.
 */
#ifndef _SHIM_BASE_H
#define _SHIM_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef unsigned int gfp_t;
typedef unsigned int slab_flags_t;

#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)

#define __rcu
#define __init
#define __exit
#define __user
#define __must_check	__attribute__((warn_unused_result))
#define __maybe_unused	__attribute__((unused))
/* glibc's <sys/cdefs.h> may have it already. */
#ifndef __always_inline
#define __always_inline	inline __attribute__((always_inline))
#endif
#ifndef noinline
#define noinline	__attribute__((noinline))
#endif
#define __aligned(x)	__attribute__((aligned(x)))
#define __cold		__attribute__((cold))
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define __acquire(x)	((void)0)
#define __release(x)	((void)0)
#define ____cacheline_aligned_in_smp	__aligned(64)

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define barrier()	__asm__ __volatile__("" ::: "memory")

#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) \
	do { *(volatile __typeof__(x) *)&(x) = (v); } while (0)
/*
 * KCSAN's assertions: only the kernel's race detector can check them.  The
 * operand is still compiled (unevaluated), so a stale field name fails here.
 */
#define ASSERT_EXCLUSIVE_WRITER(var)	((void)sizeof(var))
#define ASSERT_EXCLUSIVE_WRITER_SCOPED(var) \
	const size_t __maybe_unused shim_scoped_assert = sizeof(var)

#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
/*
 * cpu_relax() is where the interrupt model (irq.h) looks in: a spin inside
 * an interrupt handler is counted and bounded, and a pending interrupt is
 * delivered to a spinning thread whose interrupts are on.
 */
#ifdef SHIM_FAST
#define cpu_relax()	__builtin_ia32_pause()
#else
extern __thread int shim_irq_pending;		/* bits: what waits, irq.c */
extern __thread unsigned int shim_hardirq_depth;
void shim_irq_relax(void);

static inline void cpu_relax(void)
{
	__builtin_ia32_pause();
	if (unlikely(shim_hardirq_depth ||
		     __atomic_load_n(&shim_irq_pending, __ATOMIC_RELAXED)))
		shim_irq_relax();
}
#endif

#define cmpxchg(ptr, old, new) ({					\
	__typeof__(*(ptr)) __old = (old);				\
	__atomic_compare_exchange_n((ptr), &__old, (new), false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	__old;								\
})
#define xchg(ptr, v)	__atomic_exchange_n((ptr), (v), __ATOMIC_SEQ_CST)

#ifndef offsetof
#define offsetof(t, m)	__builtin_offsetof(t, m)
#endif
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BIT(n)		(1UL << (n))

#define min(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
			   _a < _b ? _a : _b; })
#define max(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
			   _a > _b ? _a : _b; })
#define min_t(t, a, b)	min((t)(a), (t)(b))
#define max_t(t, a, b)	max((t)(a), (t)(b))

static inline unsigned long __ffs(unsigned long word)
{
	return __builtin_ctzl(word);
}

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n < 2 ? 1 : 1UL << (64 - __builtin_clzl(n - 1));
}

static inline unsigned int fls_long(unsigned long x)
{
	return x ? 64 - __builtin_clzl(x) : 0;
}

/* For n >= 1, as in the kernel. */
#define ilog2(n)		(fls_long(n) - 1)
#define rounddown_pow_of_two(n)	(1UL << ilog2(n))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

#define pr_err(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	fprintf(stderr, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	do { } while (0)
/*
 * Like the kernel's default burst: the first shim_ratelimit_burst (10)
 * from each call site.  A test that checks every message a call prints
 * (test_corrupt) raises the burst.
 */
extern int shim_ratelimit_burst;
#define shim_ratelimited(print, fmt, ...) ({				\
	static int __shim_printed;					\
	if (__atomic_fetch_add(&__shim_printed, 1, __ATOMIC_RELAXED) <	\
	    __atomic_load_n(&shim_ratelimit_burst, __ATOMIC_RELAXED))	\
		print(fmt, ##__VA_ARGS__);				\
})
#define pr_err_ratelimited(fmt, ...)	shim_ratelimited(pr_err, fmt, ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...)	shim_ratelimited(pr_warn, fmt, ##__VA_ARGS__)

void shim_die(const char *file, int line, const char *what)
	__attribute__((noreturn));

#define SHIM_ASSERT(cond, what) \
	do { if (unlikely(!(cond))) shim_die(__FILE__, __LINE__, what); } while (0)

#define WARN_ON(cond) ({						\
	bool __c = !!(cond);						\
	if (unlikely(__c))						\
		shim_die(__FILE__, __LINE__, "WARN_ON(" #cond ")");	\
	__c;								\
})
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define WARN(cond, fmt, ...)	WARN_ON(cond)
#define BUG_ON(cond)	SHIM_ASSERT(!(cond), "BUG_ON(" #cond ")")
#define BUG()		shim_die(__FILE__, __LINE__, "BUG()")

/* A small id per thread, from 1, never reused: the lock owner. */
extern __thread int shim_tid;
int shim_thread_id_slow(void);
static inline int shim_thread_id(void)
{
	return likely(shim_tid) ? shim_tid : shim_thread_id_slow();
}

/* The task: only ever compared, so the thread id stands in for it. */
struct task_struct;
#define current	((struct task_struct *)(unsigned long)shim_thread_id())

/*
 * The "CPU" a thread runs on: claimed at its first use and given back
 * when the thread exits, so that while at most NR_CPUS threads live no
 * two share one, however many threads (work items start one each) came
 * and went before.  The thread id modulo NR_CPUS is tried first; past
 * NR_CPUS live threads, two share a CPU.
 */
#define NR_CPUS			64
extern __thread int shim_cpu;
int shim_cpu_id_slow(void);
static inline int shim_cpu_id(void)
{
	return likely(shim_cpu) ? shim_cpu - 1 : shim_cpu_id_slow();
}

#define smp_processor_id()	shim_cpu_id()
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < NR_CPUS; (cpu)++)

/* Per-CPU variables: one cache line per "CPU", indexed by thread id. */
#define SHIM_PCPU_STRIDE	8
#define DECLARE_PER_CPU(type, name) \
	extern type name[NR_CPUS * SHIM_PCPU_STRIDE]
#define DEFINE_PER_CPU(type, name) \
	type name[NR_CPUS * SHIM_PCPU_STRIDE] __aligned(64)
#define per_cpu(name, cpu)	((name)[(cpu) * SHIM_PCPU_STRIDE])
#define this_cpu_add(name, n) \
	__atomic_fetch_add(&per_cpu(name, smp_processor_id()), (n), \
			   __ATOMIC_RELAXED)

/* atomic_long_t: relaxed arithmetic, as the kernel's non-returning ops. */
typedef struct {
	long counter;
} atomic_long_t;

#define atomic_long_read(v)	__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_long_set(v, i) \
	__atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_long_add(i, v) \
	((void)__atomic_fetch_add(&(v)->counter, (i), __ATOMIC_RELAXED))
#define atomic_long_sub(i, v) \
	((void)__atomic_fetch_sub(&(v)->counter, (i), __ATOMIC_RELAXED))
#define atomic_long_inc(v)	atomic_long_add(1, (v))
#define atomic_long_inc_return(v) \
	__atomic_add_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic_long_dec(v)	atomic_long_sub(1, (v))

u32 get_random_u32(void);
void shim_random_seed(u64 seed);

/* Modules: module_init/module_exit register with the test harness. */
void shim_register_module(int (*init)(void), void (*exit)(void));
int shim_modules_load(void);
void shim_modules_unload(void);
#define module_init(fn) \
	static void __attribute__((constructor)) shim_modinit_##fn(void) \
	{ shim_register_module(fn, NULL); }
#define module_exit(fn) \
	static void __attribute__((constructor)) shim_modexit_##fn(void) \
	{ shim_register_module(NULL, fn); }
#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_AUTHOR(x)
#define MODULE_VERSION(x)
#define EXPORT_SYMBOL_GPL(sym)
#define EXPORT_SYMBOL(sym)
#define module_param(name, type, perm)
#define MODULE_PARM_DESC(name, desc)

#endif /* _SHIM_BASE_H */
