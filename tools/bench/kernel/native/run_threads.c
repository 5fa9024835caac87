// SPDX-License-Identifier: GPL-2.0
/*
 * The native build's runner: bench_cell_run() as runner.c has it for the
 * module, with POSIX threads for kthreads (measure.c, shared, runs the
 * rounds and takes their median).  Each
 * thread is "CPU" i for the shim's per-CPU data, round after round (a
 * kthread is bound to CPU i), so that a per-CPU cache one round leaves
 * behind is the next round's, as in the kernel.  Threads register with
 * RCU (QSBR) and report quiescent states where the workloads call
 * cond_resched().
 */
#include "bench.h"

/*
 * Thread ids the shim has not handed out and never will (it counts up from
 * 1), the same modulo NR_CPUS for thread i of every round: unique among
 * the threads alive at once, as the shim's lock owners must be.
 */
#define BENCH_TID_BASE	(1 << 24)

static unsigned int bench_generation;

struct bench_start {
	struct bench_thread *t;
	pthread_barrier_t *barrier;
	int tid;
};

static void *bench_thread_fn(void *arg)
{
	struct bench_start *s = arg;

	shim_tid = s->tid;
	shim_rcu_register();
	pthread_barrier_wait(s->barrier);
	s->t->cell->body(s->t);
	shim_rcu_unregister();
	return NULL;
}

int bench_cell_run(struct bench_cell *cell, u64 seed)
{
	struct bench_start start[BENCH_MAX_THREADS];
	pthread_t task[BENCH_MAX_THREADS];
	pthread_barrier_t barrier;
	struct timespec nap;
	unsigned int i, n = cell->threads;
	int ret = 0;

	if (!n || n > BENCH_MAX_THREADS)
		return -EINVAL;
	WRITE_ONCE(cell->stop, false);
	pthread_barrier_init(&barrier, NULL, n + 1);
	bench_generation++;
	for (i = 0; i < n; i++) {
		struct bench_thread *t = bench_thread_init(cell, i, seed);

		start[i].t = t;
		start[i].barrier = &barrier;
		start[i].tid = BENCH_TID_BASE + bench_generation * NR_CPUS + i;
		ret = pthread_create(&task[i], NULL, bench_thread_fn, &start[i]);
		if (ret) {
			pr_err("sl_bench_native: pthread_create: %s\n", strerror(ret));
			abort();
		}
	}
	/* The main thread is not an RCU reader while it waits. */
	urcu_qsbr_thread_offline();
	pthread_barrier_wait(&barrier);
	nap.tv_sec = cell->cell_ms / 1000;
	nap.tv_nsec = (cell->cell_ms % 1000) * 1000000L;
	nanosleep(&nap, NULL);
	WRITE_ONCE(cell->stop, true);
	for (i = 0; i < n; i++)
		pthread_join(task[i], NULL);
	urcu_qsbr_thread_online();
	pthread_barrier_destroy(&barrier);
	return 0;
}
