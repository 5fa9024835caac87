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

/**
 * bench_cell_run() - run one round of a cell on kthreads
 * @cell: body, arg, threads and cell_ms filled in; the round's results are
 *        left in cell->thread[]
 * @seed: this round's seed; each thread's stream is derived from it
 *
 * Context: Process context; sleeps for the cell's time.
 * Return: 0, or -errno if the threads could not be started.
 */
int bench_cell_run(struct bench_cell *cell, u64 seed)
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
		struct bench_thread *t = bench_thread_init(cell, i, seed);

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
