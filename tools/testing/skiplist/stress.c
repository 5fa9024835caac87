// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency stress: writer threads insert, remove, erase and insert_hole
 * while reader threads look up, search for overlaps and iterate both ways
 * under RCU alone.  The run is cut into phases with different mixes (fill,
 * allocation on a nearly full space,
 * drain, churn, holes); after each phase the threads stop and
 *  - sl_check() verifies every structural invariant,
 *  - the item count is compared with a full walk,
 *  - the history of every completed operation is checked for
 *    linearizability per key (history.c), with a final sequential lookup
 *    of every key closing the phase.
 * Objects are poisoned when their grace period ends, and every slot a
 * reader is handed is checked against the poison, so a slot that the index
 * hands out after it is gone is caught (or trips AddressSanitizer).  The
 * RCU is the precise one (shim/rcu.c): a grace period waits for no reader
 * that started after it, so such a slot is freed under the reader that
 * found it, not after.
 *
 * Two options make the run meaner:
 *  - --stall delays threads at random at every window (stall.c), so the
 *    transient states (a leaf merged and not yet unlinked, ...) are met
 *    often; the run ends with the stalls per window (--count-windows
 *    counts the windows without stalling, to compare).
 *  - --check-ms N runs sl_check() every N ms while the phase runs: a
 *    checker thread closes a gate that writers pass between operations,
 *    waits until none is inside one, checks, and opens it again; readers
 *    go on meanwhile.
 *
 * Keys live on a grid of cells 16 units apart and extents never leave
 * their cell, so overlap only happens within a key, which keeps the
 * per-key check exact.
 *
 * With --irq-us N, every thread also takes simulated interrupts about
 * every N microseconds (tools/testing/skiplist/shim/irq.h), at the points
 * where its interrupts are on, inside the index's own code included, and
 * the handler inserts, removes, inserts holes and looks up with
 * GFP_ATOMIC on the same list, as the IOMMU demo's allocator does from the
 * block layer.  Its operations join the history like any other.  A
 * handler that waits for the context it interrupted fails the run (the
 * shim aborts), and so does a run in which no interrupt came.
 *
 * Usage: stress [--seconds S] [--phases P] [--writers W] [--readers R]
 *               [--cells C] [--seed N] [--stall] [--count-windows]
 *               [--check-ms N] [--irq-us N]
 */
#include <getopt.h>
#include <signal.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <time.h>
#include "item.h"
#include "history.h"
#include "stall.h"
#include "window.h"	/* sl_window_hook */

#define CELL		16

static struct sl_list list;
static u64 hist_clock;
static volatile int stop_now;
static unsigned long cells = 1 << 14;
static u64 seed;

/* Percentages of each writer operation in the current phase. */
struct mix {
	const char *name;
	unsigned int insert, remove, erase;	/* the rest is insert_hole */
};

static const struct mix mixes[] = {
	{ "fill", 70, 15, 5 },
	/*
	 * Allocation on a nearly full space: most gap searches fail and
	 * tighten bounds while frees raise them, the race gap.c must win.
	 */
	{ "full", 5, 45, 0 },
	{ "churn", 35, 30, 10 },
	{ "drain", 10, 60, 20 },
	{ "holes", 10, 40, 10 },
};
static const struct mix *mix;

struct thread {
	pthread_t tid;
	int id;
	bool writer;
	int inside;		/* a writer inside an operation (the gate) */
	u64 rng;
	struct hist_event *ev;
	size_t nr, cap;
	unsigned long ops;
};

/* A phase whose threads do not stop in time is stuck: fail, do not hang. */
static unsigned int current_phase;

static void watchdog(int sig)
{
	char msg[128];
	int len = snprintf(msg, sizeof(msg),
			   "stress: FAILED: phase %u did not finish in time (seed %llu): livelock or deadlock\n",
			   current_phase, (unsigned long long)seed);

	if (write(STDERR_FILENO, msg, len) < 0)
		_exit(2);
	_exit(1);
}

static u64 tick(void)
{
	return __atomic_add_fetch(&hist_clock, 1, __ATOMIC_SEQ_CST);
}

static u64 rnd(struct thread *t)
{
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return t->rng;
}

static void record(struct thread *t, u64 call, unsigned long key,
		   enum hist_op op, int result, u64 value)
{
	struct hist_event *e;

	if (t->nr == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1 << 16;
		t->ev = realloc(t->ev, t->cap * sizeof(*t->ev));
		if (!t->ev)
			shim_die(__FILE__, __LINE__, "history: out of memory");
	}
	e = &t->ev[t->nr++];
	e->call = call;
	e->ret = tick();
	e->key = key;
	e->op = op;
	e->result = result;
	e->value = value;
	e->thread = t->id;
}

static void writer_op(struct thread *t)
{
	unsigned long cell = rnd(t) % cells, key = cell * CELL;
	unsigned int r = rnd(t) % 100;
	struct sl_slot *slot;
	struct item *item;
	u64 call;
	int ret;

	if (r < mix->insert) {
		u64 id;

		/*
		 * Once inserted, the item is another writer's to remove and
		 * free: read nothing of it afterwards outside RCU.
		 */
		item = item_new(key, 1 + rnd(t) % CELL);
		id = item->id;
		call = tick();
		ret = sl_insert(&list, &item->slot, GFP_KERNEL);
		record(t, call, key, H_INSERT, ret, id);
		if (ret && ret != -EEXIST)
			shim_die(__FILE__, __LINE__, "insert: unexpected error");
		if (ret)
			item_free_now(item);
	} else if (r < mix->insert + mix->remove) {
		call = tick();
		slot = sl_remove(&list, key);
		record(t, call, key, H_REMOVE, slot ? 0 : -ENOENT,
		       slot ? item_check(slot)->id : 0);
		if (slot)
			item_free_rcu(item_of(slot));
	} else if (r < mix->insert + mix->remove + mix->erase) {
		/* Erase the very object a lookup found, if still there. */
		call = tick();
		rcu_read_lock();
		slot = sl_lookup(&list, key);
		ret = slot ? sl_erase(&list, slot) : -ENOENT;
		item = slot ? item_check(slot) : NULL;
		rcu_read_unlock();
		if (!slot)
			record(t, call, key, H_REMOVE, -ENOENT, 0);
		else if (!ret)
			record(t, call, key, H_REMOVE, 0, item->id);
		if (slot && !ret)
			item_free_rcu(item);
	} else {
		/* A whole free cell, searched from a random one, wrapping. */
		unsigned long lo = rnd(t) % cells, hi = rnd(t) % cells;
		u64 id;

		if (lo > hi) {
			unsigned long tmp = lo;

			lo = hi;
			hi = tmp;
		}
		hi++;
		item = item_new(0, 0);
		/*
		 * Atomic context, as an IOMMU allocator calls it; RCU keeps
		 * the item readable here even if another writer frees it.
		 */
		call = tick();
		rcu_read_lock();
		ret = sl_insert_hole(&list, &item->slot, CELL, CELL, lo * CELL,
				     hi * CELL, key, &key, GFP_ATOMIC);
		id = item->id;
		rcu_read_unlock();
		if (!ret) {
			record(t, call, key, H_INSERT, 0, id);
			if (key % CELL || key < lo * CELL || key >= hi * CELL)
				shim_die(__FILE__, __LINE__,
					 "insert_hole outside its window");
		} else if (ret != -ENOSPC) {
			shim_die(__FILE__, __LINE__, "insert_hole: bad error");
		} else {
			item_free_now(item);
		}
	}
}

static void reader_op(struct thread *t)
{
	unsigned long cell = rnd(t) % cells, key = cell * CELL, prev;
	unsigned int r = rnd(t) % 100, i;
	struct sl_slot *slot;
	struct sl_iter iter;
	u64 call;

	if (r >= 99) {
		struct sl_stats stats;

		/*
		 * Walks the list while writers change it, in chunks that
		 * leave their read-side sections: must not crash.
		 */
		sl_stats(&list, &stats);
		return;
	}
	rcu_read_lock();
	if (r < 50) {
		call = tick();
		slot = sl_lookup(&list, key);
		record(t, call, key, H_LOOKUP, !!slot,
		       slot ? item_check(slot)->id : 0);
		if (slot && slot->key != key)
			shim_die(__FILE__, __LINE__, "lookup: wrong slot");
	} else if (r < 65) {
		unsigned long k = key + rnd(t) % CELL;

		slot = sl_lookup(&list, k);
		if (slot && (item_check(slot), k < slot->key ||
			     k > sl_slot_last(slot) || slot->key != key))
			shim_die(__FILE__, __LINE__, "lookup: slot misses key");
	} else if (r < 80) {
		unsigned long a = key + rnd(t) % CELL;
		unsigned long b = a + 1 + rnd(t) % (4 * CELL);

		slot = sl_first_overlap(&list, a, b);
		if (slot && (item_check(slot), sl_slot_last(slot) < a ||
			     slot->key >= b))
			shim_die(__FILE__, __LINE__, "first_overlap: no overlap");
	} else {
		bool forward = r < 90;

		sl_iter_start(&iter, &list, key);
		prev = forward ? 0 : ULONG_MAX;
		for (i = 0; i < 32; i++) {
			slot = forward ? sl_iter_next(&iter) : sl_iter_prev(&iter);
			if (!slot)
				break;
			item_check(slot);
			if (slot->key % CELL ||
			    (i && (forward ? slot->key <= prev : slot->key >= prev)))
				shim_die(__FILE__, __LINE__, "iteration out of order");
			prev = slot->key;
		}
	}
	rcu_read_unlock();
}

/*
 * The checker's gate.  A writer says it is inside, then looks at the gate;
 * the checker closes the gate, then looks at the writers.  Both with full
 * barriers in between: either the writer sees the gate closed and backs
 * out, or the checker sees it inside and waits.
 */
static int gate_closed;

static bool gate_enter(struct thread *t)
{
	for (;;) {
		__atomic_store_n(&t->inside, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&gate_closed, __ATOMIC_SEQ_CST))
			return true;
		__atomic_store_n(&t->inside, 0, __ATOMIC_RELEASE);
		while (__atomic_load_n(&gate_closed, __ATOMIC_ACQUIRE)) {
			if (READ_ONCE(stop_now))
				return false;
			sched_yield();
		}
	}
}

static void gate_leave(struct thread *t)
{
	__atomic_store_n(&t->inside, 0, __ATOMIC_RELEASE);
}

/*
 * Simulated interrupts (--irq-us).  The handler runs on the thread it
 * interrupted, in the middle of whatever that thread was doing with its
 * interrupts on, and records into that thread's history: its operations
 * overlap the interrupted one in time, as they do.
 */
static unsigned int irq_us;
static unsigned long irq_ops, irq_ops_nested;
static __thread u64 irq_rng;
static __thread bool irq_in_op;	/* the thread is inside an operation */
static __thread unsigned long irq_near = ULONG_MAX; /* cell of the last window */
static u64 irq_next_id = 1ULL << 62;	/* apart from item_new()'s ids */
static void (*irq_chained_hook)(const struct sl_window_at *at);

static u64 irq_rnd(void)
{
	irq_rng ^= irq_rng << 13;
	irq_rng ^= irq_rng >> 7;
	irq_rng ^= irq_rng << 17;
	return irq_rng;
}

/* item_new() with GFP_ATOMIC: an interrupt handler must not sleep. */
static struct item *irq_item_new(unsigned long key, unsigned long size)
{
	struct item *item = kmalloc(sizeof(*item), GFP_ATOMIC);

	if (!item)
		return NULL;
	item->slot.key = key;
	item->slot.size = size;
	item->id = __atomic_fetch_add(&irq_next_id, 1, __ATOMIC_RELAXED);
	item->magic = ITEM_LIVE;
	return item;
}

static void irq_handler(void *arg)
{
	struct thread *t = arg;
	unsigned long cell = irq_rnd() % cells, key;
	unsigned int r = irq_rnd() % 100;
	struct sl_slot *slot;
	struct item *item;
	u64 call, id;
	int ret;

	if (!in_interrupt() || !irqs_disabled())
		shim_die(__FILE__, __LINE__, "interrupt handler outside an interrupt");
	/*
	 * Half the time, a few cells from where the interrupted operation
	 * was last seen in a window: next to the leaves it is changing,
	 * where a handler would wait for it if anything made it wait.
	 */
	if (irq_near != ULONG_MAX && irq_in_op && (irq_rnd() & 1))
		cell = (irq_near + irq_rnd() % 9 + cells - 4) % cells;
	key = cell * CELL;
	if (r < 30) {
		item = irq_item_new(key, 1 + irq_rnd() % CELL);
		if (!item)
			return;
		id = item->id;
		call = tick();
		ret = sl_insert(&list, &item->slot, GFP_ATOMIC);
		if (ret == -ENOMEM) {
			item_free_now(item);
			return;
		}
		record(t, call, key, H_INSERT, ret, id);
		if (ret && ret != -EEXIST)
			shim_die(__FILE__, __LINE__, "irq insert: unexpected error");
		if (ret)
			item_free_now(item);
	} else if (r < 60) {
		call = tick();
		slot = sl_remove(&list, key);
		record(t, call, key, H_REMOVE, slot ? 0 : -ENOENT,
		       slot ? item_check(slot)->id : 0);
		if (slot)
			item_free_rcu(item_of(slot));
	} else if (r < 75) {
		unsigned long lo = irq_rnd() % cells;

		item = irq_item_new(0, 0);
		if (!item)
			return;
		call = tick();
		rcu_read_lock();
		/* A free cell from a random one up, inside the grid. */
		ret = sl_insert_hole(&list, &item->slot, CELL, CELL, lo * CELL,
				     cells * CELL, lo * CELL, &key, GFP_ATOMIC);
		id = item->id;
		rcu_read_unlock();
		if (!ret)
			record(t, call, key, H_INSERT, 0, id);
		else if (ret != -ENOSPC && ret != -ENOMEM)
			shim_die(__FILE__, __LINE__, "irq insert_hole: bad error");
		else
			item_free_now(item);
	} else {
		rcu_read_lock();
		call = tick();
		slot = sl_lookup(&list, key);
		record(t, call, key, H_LOOKUP, !!slot,
		       slot ? item_check(slot)->id : 0);
		rcu_read_unlock();
	}
	__atomic_add_fetch(&irq_ops, 1, __ATOMIC_RELAXED);
	if (irq_in_op)
		__atomic_add_fetch(&irq_ops_nested, 1, __ATOMIC_RELAXED);
}

/* Every window is a point where a pending interrupt may be taken. */
static void irq_window(const struct sl_window_at *at)
{
	if (!in_interrupt())
		irq_near = at->key / CELL;
	shim_irq_safe_point();
	if (irq_chained_hook)
		irq_chained_hook(at);
}

/* Before the threads start: in front of any window hook set so far. */
static void irq_setup(void)
{
	if (!irq_us)
		return;
	irq_chained_hook = sl_window_hook;
	sl_window_hook = irq_window;
	printf("stress: simulated interrupts every %u us on every thread\n",
	       irq_us);
}

static void irq_thread_start(struct thread *t)
{
	if (!irq_us)
		return;
	irq_rng = t->rng ^ 0x5deece66dULL;
	shim_irq_timer_start(irq_us, irq_handler, t);
}

static void irq_thread_stop(void)
{
	if (irq_us)
		shim_irq_timer_stop();
}

/* Interrupts so far; a run with the option that took none proves nothing. */
static int irq_report(const char *when)
{
	if (!irq_us)
		return 0;
	printf("stress: %s: %lu interrupts delivered, %lu operations run in them, %lu inside another operation\n",
	       when, shim_irqs_delivered(),
	       __atomic_load_n(&irq_ops, __ATOMIC_RELAXED),
	       __atomic_load_n(&irq_ops_nested, __ATOMIC_RELAXED));
	if (shim_irqs_delivered() && __atomic_load_n(&irq_ops, __ATOMIC_RELAXED))
		return 0;
	fprintf(stderr, "stress: no operation ran in an interrupt\n");
	return 1;
}

static void *thread_main(void *arg)
{
	struct thread *t = arg;

	shim_rcu_register();
	irq_thread_start(t);
	while (!READ_ONCE(stop_now)) {
		irq_in_op = true;
		if (t->writer) {
			if (!gate_enter(t))
				break;
			writer_op(t);
			gate_leave(t);
		} else {
			reader_op(t);
		}
		irq_in_op = false;
		irq_near = ULONG_MAX;
		t->ops++;
		shim_irq_safe_point();
	}
	irq_thread_stop();
	shim_rcu_unregister();
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * The checker thread (--check-ms): sl_check() while the phase runs, every
 * @ms, or four times as long as the gate stayed closed the last time if
 * that is longer, so that writers run at least four fifths of the time.
 */
struct checker {
	pthread_t tid;
	struct thread *writers;
	unsigned int nr_writers, ms;
	unsigned long checks;
	double closed;		/* seconds the gate was closed */
	int failed;
};

static void *checker_main(void *arg)
{
	struct checker *c = arg;
	double pause = c->ms * 1e-3, t0;
	unsigned int i;

	shim_rcu_register();
	while (!READ_ONCE(stop_now) && !c->failed) {
		/* In slices, so that the end of the phase need not wait. */
		for (t0 = now() + pause; now() < t0 && !READ_ONCE(stop_now);)
			usleep(2000);
		if (READ_ONCE(stop_now))
			break;
		t0 = now();
		__atomic_store_n(&gate_closed, 1, __ATOMIC_SEQ_CST);
		for (i = 0; i < c->nr_writers; i++)
			while (__atomic_load_n(&c->writers[i].inside,
					       __ATOMIC_SEQ_CST))
				sched_yield();
		if (sl_check(&list))
			c->failed = 1;
		else
			c->checks++;
		__atomic_store_n(&gate_closed, 0, __ATOMIC_RELEASE);
		t0 = now() - t0;
		c->closed += t0;
		pause = max(c->ms * 1e-3, 4 * t0);
	}
	shim_rcu_unregister();
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "phases", required_argument, NULL, 'p' },
		{ "writers", required_argument, NULL, 'w' },
		{ "readers", required_argument, NULL, 'r' },
		{ "cells", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 'S' },
		{ "stall", no_argument, NULL, 'T' },
		{ "count-windows", no_argument, NULL, 'W' },
		{ "check-ms", required_argument, NULL, 'C' },
		{ "irq-us", required_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int writers = 2, readers = 2, phases = 8, p, i;
	struct checker checker = { .ms = 0 };
	unsigned long checks = 0;
	double closed = 0;
	bool stall = false, count_windows = false;
	struct hist_initial *initial = NULL, *final;
	size_t ninitial = 0, nfinal, total;
	struct thread *threads, closing = { .id = -1 };
	struct hist_event *all;
	double seconds = 60;
	int c, ret = 0;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'p': phases = atoi(optarg); break;
		case 'w': writers = atoi(optarg); break;
		case 'r': readers = atoi(optarg); break;
		case 'c': cells = strtoul(optarg, NULL, 0); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'T': stall = true; break;
		case 'W': count_windows = true; break;
		case 'C': checker.ms = atoi(optarg); break;
		case 'I': irq_us = strtoul(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (!phases || !cells || !writers)
		return 2;
	/*
	 * The checker's gate holds back thread-context writers only; an
	 * interrupt handler on a reader would write under sl_check().
	 */
	if (checker.ms && irq_us) {
		fprintf(stderr, "stress: --check-ms and --irq-us cannot be combined\n");
		return 2;
	}
	printf("stress: %.0f s in %u phases, %u writers, %u readers, %lu cells, seed %llu%s",
	       seconds, phases, writers, readers, cells,
	       (unsigned long long)seed, stall ? ", stalls at every window" : "");
	if (checker.ms)
		printf(", sl_check every %u ms", checker.ms);
	printf("\n");
	shim_random_seed(seed);
	signal(SIGALRM, watchdog);
	irq_setup();
	shim_rcu_register();
	if (shim_modules_load() || sl_init(&list, GFP_KERNEL))
		shim_die(__FILE__, __LINE__, "init");
	threads = calloc(writers + readers, sizeof(*threads));
	final = calloc(cells, sizeof(*final));
	if (!threads || !final)
		return 1;
	checker.writers = threads;
	checker.nr_writers = writers;
	if (stall || count_windows)
		stall_start(seed, stall);

	for (p = 0; p < phases && !ret; p++) {
		unsigned long ops = 0;
		struct sl_stats stats;
		double t0 = now();

		mix = &mixes[p % ARRAY_SIZE(mixes)];
		current_phase = p;
		alarm(seconds / phases + 60);
		WRITE_ONCE(stop_now, 0);
		for (i = 0; i < writers + readers; i++) {
			threads[i].id = i;
			threads[i].writer = i < writers;
			threads[i].rng = seed * 2654435761u + p * 40503u + i + 1;
			threads[i].nr = 0;
			threads[i].ops = 0;
			pthread_create(&threads[i].tid, NULL, thread_main,
				       &threads[i]);
		}
		checker.checks = 0;
		if (checker.ms)
			pthread_create(&checker.tid, NULL, checker_main,
				       &checker);
		while (now() - t0 < seconds / phases)
			usleep(20000);
		WRITE_ONCE(stop_now, 1);
		for (i = 0; i < writers + readers; i++) {
			pthread_join(threads[i].tid, NULL);
			ops += threads[i].ops;
		}
		if (checker.ms)
			pthread_join(checker.tid, NULL);
		checks += checker.checks;
		closed += checker.closed;
		checker.closed = 0;
		if (checker.failed) {
			fprintf(stderr, "stress: phase %u: invariant violated while the phase ran, after %lu checks\n",
				p, checker.checks);
			ret = 1;
			break;
		}

		/* Quiescent: structure, counts, then the history. */
		if (sl_check(&list)) {
			fprintf(stderr, "stress: phase %u: invariant violated\n", p);
			ret = 1;
			break;
		}
		closing.nr = 0;
		nfinal = 0;
		rcu_read_lock();
		for (i = 0; i < cells; i++) {
			u64 call = tick();
			struct sl_slot *slot = sl_lookup(&list, i * CELL);

			record(&closing, call, i * CELL, H_LOOKUP, !!slot,
			       slot ? item_check(slot)->id : 0);
			if (slot) {
				final[nfinal].key = i * CELL;
				final[nfinal++].id = item_of(slot)->id;
			}
		}
		rcu_read_unlock();
		sl_stats(&list, &stats);
		if (stats.items != nfinal) {
			fprintf(stderr, "stress: phase %u: %lu items, %zu found\n",
				p, stats.items, nfinal);
			ret = 1;
			break;
		}
		total = closing.nr;
		for (i = 0; i < writers + readers; i++)
			total += threads[i].nr;
		all = malloc(total * sizeof(*all));
		if (!all)
			return 1;
		total = 0;
		for (i = 0; i < writers + readers; i++) {
			memcpy(all + total, threads[i].ev,
			       threads[i].nr * sizeof(*all));
			total += threads[i].nr;
		}
		memcpy(all + total, closing.ev, closing.nr * sizeof(*all));
		total += closing.nr;
		if (hist_check_with_initial(all, total, initial, ninitial,
					    stderr)) {
			fprintf(stderr, "stress: phase %u: history not linearizable\n",
				p);
			ret = 1;
		}
		free(all);
		printf("stress: phase %u (%s): %.2f Mops/s, %zu events checked, %lu items, %lu leaves",
		       p, mix->name, ops / (seconds / phases) / 1e6, total,
		       stats.items, stats.leaves);
		if (checker.ms)
			printf(", %lu checks while running", checker.checks);
		printf(": %s\n", ret ? "FAIL" : "ok");
		if (irq_us)
			irq_report("so far");
		fflush(stdout);
		/* The closing state opens the next phase. */
		free(initial);
		initial = malloc((nfinal + 1) * sizeof(*initial));
		memcpy(initial, final, nfinal * sizeof(*initial));
		ninitial = nfinal;
	}

	alarm(0);
	if (checker.ms)
		printf("stress: sl_check ran %lu times while the phases ran, writers held back %.0f%% of the time\n",
		       checks, 100 * closed / seconds);
	if (stall || count_windows) {
		stall_stop();
		stall_report(stdout, "stress");
	}
	if (!ret)
		ret = irq_report("in all");
	sl_destroy(&list, item_destroy_slot, NULL);
	shim_modules_unload();
	rcu_barrier();
	if (shim_kmalloc_live()) {
		fprintf(stderr, "stress: %ld objects leaked\n",
			shim_kmalloc_live());
		ret = 1;
	}
	for (i = 0; i < writers + readers; i++)
		free(threads[i].ev);
	free(closing.ev);
	free(threads);
	free(final);
	free(initial);
	shim_rcu_unregister();
	printf("stress: %s\n", ret ? "FAIL" : "PASS");
	return ret;
}
