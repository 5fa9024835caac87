// SPDX-License-Identifier: GPL-2.0
/* Userspace shim: thread ids, fatal checks, modules and random numbers. */
#include <execinfo.h>
#include <pthread.h>
#include <unistd.h>
#include "base.h"

__thread int shim_tid;
int shim_ratelimit_burst = 10;
static int shim_next_tid;

int shim_thread_id_slow(void)
{
	shim_tid = __atomic_add_fetch(&shim_next_tid, 1, __ATOMIC_RELAXED);
	return shim_tid;
}

__thread int shim_cpu;		/* CPU + 1; 0 before the first use */
static u64 shim_cpus_used;	/* bit per CPU a live thread holds */
_Static_assert(NR_CPUS <= 64, "one bit per CPU in shim_cpus_used");
static pthread_key_t shim_cpu_key;
static pthread_once_t shim_cpu_once = PTHREAD_ONCE_INIT;

static void shim_cpu_release(void *value)
{
	int cpu = (int)(uintptr_t)value - 1;

	__atomic_fetch_and(&shim_cpus_used, ~(1ULL << cpu), __ATOMIC_RELEASE);
}

static void shim_cpu_key_init(void)
{
	SHIM_ASSERT(!pthread_key_create(&shim_cpu_key, shim_cpu_release),
		    "cannot make the CPU key");
}

/* Claim @cpu if no live thread holds it. */
static bool shim_cpu_claim(int cpu)
{
	u64 bit = 1ULL << cpu;

	return !(__atomic_fetch_or(&shim_cpus_used, bit, __ATOMIC_ACQUIRE) &
		 bit);
}

int shim_cpu_id_slow(void)
{
	int cpu = shim_thread_id() % NR_CPUS, i;

	pthread_once(&shim_cpu_once, shim_cpu_key_init);
	for (i = 0; i < NR_CPUS; i++) {
		if (shim_cpu_claim((cpu + i) % NR_CPUS)) {
			cpu = (cpu + i) % NR_CPUS;
			/* Given back by shim_cpu_release() at thread exit. */
			pthread_setspecific(shim_cpu_key,
					    (void *)(uintptr_t)(cpu + 1));
			break;
		}
	}
	shim_cpu = cpu + 1;
	return cpu;
}

void shim_die(const char *file, int line, const char *what)
{
	void *frames[32];
	int n = backtrace(frames, ARRAY_SIZE(frames));

	fprintf(stderr, "FATAL %s:%d: %s (thread %d)\n", file, line, what,
		shim_tid);
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	abort();
}

#define SHIM_MAX_MODULES 8
static int (*shim_inits[SHIM_MAX_MODULES])(void);
static void (*shim_exits[SHIM_MAX_MODULES])(void);
static int shim_nr_inits, shim_nr_exits;

void shim_register_module(int (*init)(void), void (*exit)(void))
{
	if (init && shim_nr_inits < SHIM_MAX_MODULES)
		shim_inits[shim_nr_inits++] = init;
	if (exit && shim_nr_exits < SHIM_MAX_MODULES)
		shim_exits[shim_nr_exits++] = exit;
}

int shim_modules_load(void)
{
	int i, ret;

	for (i = 0; i < shim_nr_inits; i++) {
		ret = shim_inits[i]();
		if (ret)
			return ret;
	}
	return 0;
}

void shim_modules_unload(void)
{
	int i;

	for (i = shim_nr_exits - 1; i >= 0; i--)
		shim_exits[i]();
}

/* xorshift64*, one stream per thread, derived from a global seed. */
static u64 shim_seed = 0x9e3779b97f4a7c15ULL;
static __thread u64 shim_rng;

void shim_random_seed(u64 seed)
{
	shim_seed = seed ? seed : 1;
}

u32 get_random_u32(void)
{
	if (!shim_rng)
		shim_rng = (shim_seed ^ ((u64)shim_thread_id() << 32)) | 1;
	shim_rng ^= shim_rng >> 12;
	shim_rng ^= shim_rng << 25;
	shim_rng ^= shim_rng >> 27;
	return (shim_rng * 0x2545f4914f6cdd1dULL) >> 32;
}
