// SPDX-License-Identifier: GPL-2.0
/*
 * Runs one cell: a kthread per thread, each bound to an online CPU in
 * turn, held at a start line until all of them are there, released at
 * once, and stopped by a flag when the cell's time is up.  Each thread
 * times its own work with ktime_get_ns() (the body reads the clock before
 * its first and after its last operation), so thread creation, setup and
 * teardown are never counted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include "bench.h"

/* The n-th online CPU, counting round the online mask. */
static unsigned int bench_nth_online_cpu(unsigned int n)
{
	unsigned int cpu, i = 0;

	n %= num_online_cpus();
	for_each_online_cpu(cpu)
		if (i++ == n)
			return cpu;
	return cpumask_first(cpu_online_mask);
}

static int bench_thread_fn(void *arg)
{
	struct bench_thread *t = arg;
	struct bench_cell *cell = t->cell;

	if (atomic_inc_return(&cell->ready) == cell->threads)
		complete(&cell->all_ready);
	wait_for_completion(&cell->go);
	cell->body(t);
	if (atomic_dec_and_test(&cell->running))
		complete(&cell->finished);

	/* kthread_stop() collects us; until then, sleep. */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * Run a cell once and leave its results in cell->thread[]: body, arg,
 * threads and cell_ms filled in, the rest is set here.  Returns 0, or
 * -errno if a thread could not be created.
 */
static int bench_cell_run(struct bench_cell *cell, u64 seed)
{
	struct task_struct *task[BENCH_MAX_THREADS];
	unsigned int i, n = cell->threads;

	if (!n || n > BENCH_MAX_THREADS)
		return -EINVAL;
	WRITE_ONCE(cell->stop, false);
	atomic_set(&cell->ready, 0);
	atomic_set(&cell->running, n);
	init_completion(&cell->all_ready);
	init_completion(&cell->go);
	init_completion(&cell->finished);

	for (i = 0; i < n; i++) {
		struct bench_thread *t = &cell->thread[i];

		memset(t, 0, sizeof(*t));
		t->cell = cell;
		t->id = i;
		/* Never zero, different for every thread and seed. */
		t->rng = (seed + 1) * 0x9e3779b97f4a7c15ULL + i * 0x632be59bd9b4e019ULL;
		bench_rand(&t->rng);
		task[i] = kthread_create(bench_thread_fn, t, "sl_bench/%u", i);
		if (IS_ERR(task[i])) {
			int ret = PTR_ERR(task[i]);

			/* Never woken, so they never run the body. */
			while (i--)
				kthread_stop(task[i]);
			return ret;
		}
		kthread_bind(task[i], bench_nth_online_cpu(i));
	}
	for (i = 0; i < n; i++)
		wake_up_process(task[i]);

	wait_for_completion(&cell->all_ready);
	complete_all(&cell->go);
	msleep(cell->cell_ms);
	WRITE_ONCE(cell->stop, true);
	wait_for_completion(&cell->finished);
	for (i = 0; i < n; i++)
		kthread_stop(task[i]);
	return 0;
}

/* Add up what the threads of a cell measured in one round. */
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

/* Operations per second of a measurement. */
u64 bench_sum_rate(const struct bench_sum *sum)
{
	if (!sum->ns)
		return 0;
	return mul_u64_u64_div_u64(sum->ops, NSEC_PER_SEC, sum->ns);
}

/**
 * bench_cell_measure() - run a cell cfg->rounds times and take the median
 * @cell:   body, arg and threads filled in
 * @cfg:    cell time, rounds
 * @seed:   seeds the first round; each round gets its own
 * @median: the median round by ops per second, with the slowest and
 *          fastest rates and the errors of every round
 *
 * The rounds run back to back on the same index or allocator, so that a
 * burst of noise on the host (these are shared virtual machines) costs one
 * round, not the figure.
 *
 * Context: Process context; sleeps for about rounds * cell_ms.
 * Return: 0, or -errno if a thread could not be created.
 */
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
		/* Sorted by rate as they come: insertion sort of a few. */
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
