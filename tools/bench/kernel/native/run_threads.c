// SPDX-License-Identifier: GPL-2.0
/*
 * The native build's runner: bench_cell_measure() and bench_sum_rate() as
 * runner.c has them for the module, with POSIX threads for kthreads.  Each
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

static int bench_cell_run(struct bench_cell *cell, u64 seed)
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
		struct bench_thread *t = &cell->thread[i];

		memset(t, 0, sizeof(*t));
		t->cell = cell;
		t->id = i;
		/* Never zero, different for every thread and seed. */
		t->rng = (seed + 1) * 0x9e3779b97f4a7c15ULL + i * 0x632be59bd9b4e019ULL;
		bench_rand(&t->rng);
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

static void bench_cell_sum(const struct bench_cell *cell, struct bench_sum *sum)
{
	unsigned int i;

	memset(sum, 0, sizeof(*sum));
	sum->threads = cell->threads;
	for (i = 0; i < cell->threads; i++) {
		const struct bench_thread *t = &cell->thread[i];

		sum->ops += t->ops;
		sum->ns = max(sum->ns, t->ns);
		sum->errors += t->errors;
		sum->misses += t->misses;
		sum->aux_ns += t->aux_ns;
	}
}

u64 bench_sum_rate(const struct bench_sum *sum)
{
	if (!sum->ns)
		return 0;
	return mul_u64_u64_div_u64(sum->ops, NSEC_PER_SEC, sum->ns);
}

int bench_cell_measure(struct bench_cell *cell, const struct bench_config *cfg,
		       u64 seed, struct bench_sum *median)
{
	struct bench_sum sums[BENCH_MAX_ROUNDS], tmp;
	unsigned int r, i, n = clamp(cfg->rounds, 1U, (unsigned int)BENCH_MAX_ROUNDS);
	u64 errors = 0;
	int ret;

	for (r = 0; r < n; r++) {
		cell->cell_ms = cfg->cell_ms;
		ret = bench_cell_run(cell, seed + r * 1000003ULL);
		if (ret)
			return ret;
		bench_cell_sum(cell, &sums[r]);
		errors += sums[r].errors;
		for (i = r; i > 0 && bench_sum_rate(&sums[i - 1]) >
				      bench_sum_rate(&sums[i]); i--) {
			tmp = sums[i];
			sums[i] = sums[i - 1];
			sums[i - 1] = tmp;
		}
	}
	*median = sums[n / 2];
	median->errors = errors;
	median->rounds = n;
	median->rate_min = bench_sum_rate(&sums[0]);
	median->rate_max = bench_sum_rate(&sums[n - 1]);
	return 0;
}
