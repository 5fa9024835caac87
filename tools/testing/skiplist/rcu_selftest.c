// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test of the precise RCU (shim/rcu.c) and of the "CPUs" its per-CPU
 * state hangs on.  A grace period waits for the
 * readers that started before it and for none that started after, its
 * callbacks run as soon as the last of those leaves, and a use after free
 * by a reader that found an object after its call_rcu() is reported by
 * AddressSanitizer.  liburcu's flavours fail the precision checks (their
 * grace periods wait for every reader that starts meanwhile), which is
 * why the tests do not use them.
 *
 * Each check runs its readers on threads of its own and steps them with
 * flags, so the interleavings are exact, not likely.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#ifndef SHIM_RCU_PRECISE
#error "rcu_selftest tests the precise RCU: build with -DSHIM_RCU_PRECISE"
#endif

static int failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "rcu_selftest:%d: expected %s\n",	\
			__LINE__, #cond);				\
		failures++;						\
	}								\
} while (0)

/*
 * A reader thread, stepped by the test: it enters a section when @enter
 * is set, says so in @inside, and leaves when @leave is set; @after tells
 * what the callbacks counter read right after its unlock.
 */
struct reader {
	pthread_t tid;
	int enter, inside, leave, left;
	unsigned long after;
	void *(*body)(struct reader *r);
	void *seen;
};

static void wait_for(int *flag)
{
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void set(int *flag)
{
	__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;

	shim_rcu_register();
	wait_for(&r->enter);
	rcu_read_lock();
	if (r->body)
		r->body(r);
	set(&r->inside);
	wait_for(&r->leave);
	rcu_read_unlock();
	r->after = shim_rcu_callbacks_done();
	set(&r->left);
	shim_rcu_unregister();
	return NULL;
}

static void reader_start(struct reader *r)
{
	pthread_create(&r->tid, NULL, reader_main, r);
}

static void reader_enter(struct reader *r)
{
	set(&r->enter);
	wait_for(&r->inside);
}

static void reader_leave(struct reader *r)
{
	set(&r->leave);
	wait_for(&r->left);
	pthread_join(r->tid, NULL);
}

static int cb_runs;

static void count_cb(struct rcu_head *head)
{
	__atomic_add_fetch(&cb_runs, 1, __ATOMIC_RELAXED);
}

/*
 * R1 starts, the callback is queued, R2 starts: the callback runs in R1's
 * unlock while R2 is still inside.
 */
static void test_waits_only_for_older(void)
{
	struct reader r1 = {}, r2 = {};
	struct rcu_head head;
	unsigned long done;

	cb_runs = 0;
	reader_start(&r1);
	reader_start(&r2);
	reader_enter(&r1);
	call_rcu(&head, count_cb);
	reader_enter(&r2);
	CHECK(cb_runs == 0);
	done = shim_rcu_callbacks_done();
	reader_leave(&r1);
	/* Ran in R1's own unlock: the counter it read shows it. */
	CHECK(cb_runs == 1);
	CHECK(r1.after == done + 1);
	reader_leave(&r2);
	CHECK(cb_runs == 1);
}

/* Nobody inside: the callback runs in call_rcu() itself. */
static void test_runs_at_once(void)
{
	struct rcu_head head;

	cb_runs = 0;
	call_rcu(&head, count_cb);
	CHECK(cb_runs == 1);
}

/* Queued inside the caller's own section: runs at its unlock. */
static void test_own_section(void)
{
	struct rcu_head head;

	cb_runs = 0;
	rcu_read_lock();
	rcu_read_lock();
	call_rcu(&head, count_cb);
	rcu_read_unlock();
	CHECK(cb_runs == 0);
	rcu_read_unlock();
	CHECK(cb_runs == 1);
}

/*
 * A callback that queues another, as sl_leaf_free_rcu_twice() does: the
 * second waits for the readers inside when the first ran, not for those
 * that were inside when the first was queued.
 */
static struct rcu_head twice_head;

static void twice_second(struct rcu_head *head)
{
	__atomic_add_fetch(&cb_runs, 10, __ATOMIC_RELAXED);
}

static void twice_first(struct rcu_head *head)
{
	__atomic_add_fetch(&cb_runs, 1, __ATOMIC_RELAXED);
	call_rcu(head, twice_second);
}

static void test_twice(void)
{
	struct reader r1 = {}, r2 = {};

	cb_runs = 0;
	reader_start(&r1);
	reader_start(&r2);
	reader_enter(&r1);
	call_rcu(&twice_head, twice_first);
	reader_enter(&r2);
	reader_leave(&r1);
	/* The first ran in R1's unlock; R2 holds the second back. */
	CHECK(cb_runs == 1);
	reader_leave(&r2);
	CHECK(cb_runs == 11);
}

/* synchronize_rcu() on a thread of its own, so the test can watch it. */
struct syncer {
	pthread_t tid;
	int done;
};

static void *syncer_main(void *arg)
{
	struct syncer *s = arg;

	shim_rcu_register();
	synchronize_rcu();
	set(&s->done);
	shim_rcu_unregister();
	return NULL;
}

/*
 * synchronize_rcu() waits for R1, inside before it began, and returns
 * while R2, which entered after it began, is still inside.
 */
static void test_synchronize(void)
{
	struct reader r1 = {}, r2 = {};
	struct syncer s = {};
	unsigned long gp;
	int i;

	reader_start(&r1);
	reader_start(&r2);
	reader_enter(&r1);
	gp = __atomic_load_n(&shim_rcu_gp_seq, __ATOMIC_SEQ_CST);
	pthread_create(&s.tid, NULL, syncer_main, &s);
	/* It has begun once it took its number. */
	while (__atomic_load_n(&shim_rcu_gp_seq, __ATOMIC_SEQ_CST) == gp)
		sched_yield();
	reader_enter(&r2);
	for (i = 0; i < 200; i++)
		usleep(100);
	CHECK(!__atomic_load_n(&s.done, __ATOMIC_ACQUIRE));
	reader_leave(&r1);
	wait_for(&s.done);
	pthread_join(s.tid, NULL);
	reader_leave(&r2);
}

/* rcu_barrier() returns only once every queued callback has run. */
static void test_barrier(void)
{
	struct reader r1 = {};
	struct rcu_head head[3];
	int i;

	cb_runs = 0;
	reader_start(&r1);
	reader_enter(&r1);
	for (i = 0; i < 3; i++)
		call_rcu(&head[i], count_cb);
	CHECK(cb_runs == 0);
	set(&r1.leave);
	rcu_barrier();
	CHECK(cb_runs == 3);
	wait_for(&r1.left);
	pthread_join(r1.tid, NULL);
}

/*
 * The bug the precise RCU exists to show: an object removed and handed to
 * kfree_rcu() stays reachable through a path the remover forgot (here a
 * second pointer), a reader that starts after the kfree_rcu() finds it
 * there, and the last older reader leaves.  The object is freed under the
 * reader, which then reads it.  Run in a child process: AddressSanitizer
 * must stop it with a heap-use-after-free report.
 */
struct object {
	unsigned long value;
};

static struct object *published, *forgotten;

static void *late_reader(struct reader *r)
{
	r->seen = rcu_dereference(forgotten);
	return NULL;
}

static void use_after_free_child(void)
{
	struct reader old = {}, late = { .body = late_reader };
	struct object *obj = kmalloc(sizeof(*obj), GFP_KERNEL);

	obj->value = 42;
	rcu_assign_pointer(published, obj);
	rcu_assign_pointer(forgotten, obj);
	reader_start(&old);
	reader_start(&late);
	reader_enter(&old);
	/* Removed from where it was published; the other pointer is not. */
	RCU_INIT_POINTER(published, NULL);
	kfree_rcu(obj, rcu);
	reader_enter(&late);
	reader_leave(&old);
	/* Freed in the old reader's unlock: the late reader reads it. */
	fprintf(stderr, "rcu_selftest: late reader reads %lu\n",
		READ_ONCE(((struct object *)late.seen)->value));
	reader_leave(&late);
	exit(0);
}

static void test_use_after_free_caught(void)
{
	char report[65536];
	size_t len = 0;
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		shim_die(__FILE__, __LINE__, "pipe");
	fflush(NULL);
	pid = fork();
	if (!pid) {
		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		use_after_free_child();
	}
	close(pipefd[1]);
	while (len < sizeof(report) - 1 &&
	       (n = read(pipefd[0], report + len, sizeof(report) - 1 - len)) > 0)
		len += n;
	report[len] = 0;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
	CHECK(strstr(report, "ERROR: AddressSanitizer: heap-use-after-free"));
	if (failures)
		fprintf(stderr, "rcu_selftest: the child said:\n%s\n", report);
	else
		printf("rcu_selftest: use after free by a late reader: %.*s\n",
		       (int)strcspn(strstr(report, "ERROR"), "\n"),
		       strstr(report, "ERROR"));
}

static pthread_barrier_t both_alive;

static void *cpu_of_thread(void *arg)
{
	*(int *)arg = smp_processor_id();
	/* Hold the CPU until the other thread has taken one too. */
	pthread_barrier_wait(&both_alive);
	return NULL;
}

/*
 * Threads that come and go (a work item starts one each) never get the
 * CPU of a thread still alive: the benchmarks' build aborts when two
 * threads meet in one CPU's local lock, and a 10M-key lsm_bench run did
 * after 64 work items, when thread ids modulo NR_CPUS named the CPUs.
 */
static void test_cpus_not_shared(void)
{
	int mine = smp_processor_id(), i, cpu[2];
	pthread_t t[2];

	pthread_barrier_init(&both_alive, NULL, 2);
	for (i = 0; i < 3 * NR_CPUS; i++) {
		pthread_create(&t[0], NULL, cpu_of_thread, &cpu[0]);
		pthread_create(&t[1], NULL, cpu_of_thread, &cpu[1]);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		CHECK(cpu[0] != mine && cpu[1] != mine);
		CHECK(cpu[0] != cpu[1]);
	}
	pthread_barrier_destroy(&both_alive);
}

int main(void)
{
	/* First, while this process has no other thread. */
	test_use_after_free_caught();
	shim_rcu_register();
	test_waits_only_for_older();
	test_runs_at_once();
	test_own_section();
	test_twice();
	test_synchronize();
	test_barrier();
	test_cpus_not_shared();
	rcu_barrier();
	shim_rcu_unregister();
	printf("rcu_selftest: %s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
