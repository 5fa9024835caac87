/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Dynamically allocated per-CPU variables: 32 KiB per "CPU" (as
 * smp_processor_id(), base.h), allocated with
 * kzalloc() so that leaks and uses after free are seen like any other.
 */
#ifndef _SHIM_PERCPU_H
#define _SHIM_PERCPU_H

#include "base.h"
#include "slab.h"

#define __percpu
#define SHIM_PCPU_BYTES		32768

static inline void *shim_alloc_percpu(size_t size, gfp_t gfp)
{
	SHIM_ASSERT(size <= SHIM_PCPU_BYTES, "per-CPU variable too large");
	return kzalloc(NR_CPUS * SHIM_PCPU_BYTES, gfp);
}

#define alloc_percpu_gfp(type, gfp) \
	((type *)shim_alloc_percpu(sizeof(type), (gfp)))
#define alloc_percpu(type)	alloc_percpu_gfp(type, GFP_KERNEL)
#define free_percpu(ptr)	kfree(ptr)
#define per_cpu_ptr(ptr, cpu) \
	((__typeof__(ptr))((char *)(ptr) + (cpu) * SHIM_PCPU_BYTES))
#define raw_cpu_ptr(ptr)	per_cpu_ptr((ptr), smp_processor_id())
#define this_cpu_ptr(ptr)	raw_cpu_ptr(ptr)
/* A thread keeps its "CPU" (base.h): nothing to pin. */
#define get_cpu_ptr(ptr)	this_cpu_ptr(ptr)
#define put_cpu_ptr(ptr)	((void)(ptr))
#define raw_cpu_read(pcp)	READ_ONCE(*raw_cpu_ptr(&(pcp)))
#define raw_cpu_write(pcp, v)	WRITE_ONCE(*raw_cpu_ptr(&(pcp)), (v))
#define this_cpu_read(pcp)	raw_cpu_read(pcp)
#define this_cpu_write(pcp, v)	raw_cpu_write((pcp), (v))
/*
 * For variables of alloc_percpu() only (base.h's this_cpu_add() is for
 * DEFINE_PER_CPU() ones, laid out differently).  Atomic here: past
 * NR_CPUS live threads two share a "CPU" (base.h), where the
 * kernel's this_cpu_inc() is one uninterruptible instruction on a CPU of
 * the caller's own.
 */
#define this_cpu_inc(pcp) \
	((void)__atomic_fetch_add(raw_cpu_ptr(&(pcp)), 1, __ATOMIC_RELAXED))

static inline unsigned int num_possible_cpus(void)
{
	return NR_CPUS;
}

#endif /* _SHIM_PERCPU_H */
