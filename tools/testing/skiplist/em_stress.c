// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency stress of the extent map, built to catch a reader that sees
 * half of a multi-extent change.
 *
 * The offsets are cells of CELL units.  Every eighth cell is a punch cell:
 * one writer, the only one that locks the map exclusively, punches holes
 * into it (sl_em_drop_range()) and fills them again with merging adds
 * (SL_EM_MERGE), so its extents split, shrink, grow and join all the time.
 * Every extent in cell c has disk_start == start + K(c) and the cell's
 * flags, so any extent found says which cell it belongs to, and holes never
 * touch a cell's first or last unit.  In every state the map passes
 * through between two operations, then:
 *  - the cell's first and last units are mapped, by extents inside the
 *    cell: a reader must always find them;
 *  - every extent found in the cell lies inside it with its relation;
 *  - a walk over the cell with sl_em_next() runs from its first to its
 *    last unit.
 * Halfway through a merge or a punch they do not hold: a split leaves the
 * cell's tail unmapped until the new tail extent is in, a merge leaves the
 * absorbed extent's units unmapped until the absorbing one has grown over
 * them.  Readers that did not retry across the map's sequence count would
 * see those states (a build with the retry taken out fails within seconds:
 * see Documentation/extent.rst).
 *
 * A punch over more than SL_EM_BATCH extents is made in steps, from the
 * end of the range down, and readers may see it between two steps (the
 * -k4 build takes steps of 3 extents, so that many punches here do).  The
 * rules above still hold then; and at each step boundary (the window
 * SL_WIN_EM_DROP_STEP, in the punch writer's own thread) the writer checks
 * that its cell is exactly what the contract says: the units of the range
 * from where the step began are holes, the others as before the punch.
 *
 * The other cells belong to writers that change one extent at a time
 * (add without merging, remove), under the map's lock shared, each on its
 * own cells and checking every return against its own model, so they race
 * each other in the same leaves.  Readers check what they find there too.
 *
 * After each phase the threads stop: sl_em_check(), then every cell is
 * compared with its writer's model, and the count with their sum.  Extents
 * are freed after a grace period (call_rcu()) into the slab shim, which
 * poisons and frees them, so a reader handed a freed extent trips
 * AddressSanitizer.
 *
 * Usage: em_stress [--seconds S] [--phases P] [--readers R]
 *                  [--writers W] [--cells C] [--seed N]
 */
#include <getopt.h>
#include <signal.h>
#include <pthread.h>
#include <unistd.h>
#include <time.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include "extent_map.h"
#include "window.h"

#define CELL		64
#define PUNCH_EVERY	8
#define CELL_MASK_ALL	(~0ULL)

static struct sl_extent_map em;
static volatile int stop_now;
static unsigned long cells = 256;
static unsigned int writers = 2;
static u64 seed;

static bool punch_cell(unsigned long c)
{
	return c % PUNCH_EVERY == 0;
}

static u64 cell_start(unsigned long c)
{
	return (u64)c * CELL;
}

/* The disk offset of every extent in cell @c, and its flags. */
static u64 cell_k(unsigned long c)
{
	return ((u64)c + 1) << 32;
}

static u32 cell_flags(unsigned long c)
{
	return 1 + c % 5;
}

/* Per cell: for punch cells the units missing, else the one extent. */
struct cell_model {
	u64 missing;		/* punch cells: bit u set if unit u is a hole */
	u8 lo, hi;		/* other cells: extent [lo, hi), none if equal */
};

static struct cell_model *model;

/* The punch in progress, for the step hook: cell, units [a, b). */
static struct {
	unsigned long c;
	unsigned int a, b;
	u64 missing;		/* the cell's holes before it */
	unsigned long steps;	/* step boundaries met, over the run */
} punch_now;

struct thread {
	pthread_t tid;
	int id;
	int kind;		/* 0 reader, 1 punch writer, 2 single-extent writer */
	u64 rng;
	unsigned long ops, punches, fills, adds, removes, walks;
};

static u64 rnd(struct thread *t)
{
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return t->rng;
}

static u64 rnd_below(struct thread *t, u64 n)
{
	return n ? rnd(t) % n : 0;
}

static void watchdog(int sig)
{
	static const char msg[] = "em_stress: FAILED: a phase did not end in time\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

static void failed(const char *what, unsigned long c,
		   const struct sl_extent_info *e, int ret)
{
	fprintf(stderr, "em_stress: FAILED (seed %llu): %s: cell %lu [%llx, +%x): ret %d, extent [%llx, +%llx) disk %llx flags %u\n",
		(unsigned long long)seed, what, c,
		(unsigned long long)cell_start(c), CELL, ret,
		(unsigned long long)e->start, (unsigned long long)e->len,
		(unsigned long long)e->disk_start, e->flags);
	shim_die(__FILE__, __LINE__, what);
}

/* An extent found in cell @c: inside it, with its disk relation. */
static void check_in_cell(unsigned long c, const struct sl_extent_info *e,
			  const char *what)
{
	u64 s = cell_start(c);

	if (e->start < s || e->len > CELL || e->start + e->len > s + CELL ||
	    e->disk_start != e->start + cell_k(c) ||
	    e->flags != cell_flags(c))
		failed(what, c, e, 0);
}

/* A walk over cell @c, which must run from its first to its last unit. */
static void walk_cell(unsigned long c)
{
	u64 s = cell_start(c), pos = s;
	struct sl_extent_info e = {};
	int ret, steps = 0;

	while (pos < s + CELL) {
		ret = sl_em_next(&em, pos, &e);
		if (ret || e.start >= s + CELL)
			failed("walk stopped short of the cell's last unit",
			       c, &e, ret);
		check_in_cell(c, &e, "walk: extent outside its cell");
		if (e.start + e.len <= pos || (pos == s && e.start != s) ||
		    ++steps > CELL)
			failed("walk: bad step", c, &e, ret);
		pos = e.start + e.len;
	}
}

static void reader_op(struct thread *t)
{
	/* Mostly the punch cells, where the multi-extent changes happen. */
	unsigned long c = rnd_below(t, 4) ?
		rnd_below(t, (cells + PUNCH_EVERY - 1) / PUNCH_EVERY) * PUNCH_EVERY :
		rnd_below(t, cells);
	u64 s = cell_start(c), u = rnd_below(t, CELL);
	unsigned int op = rnd_below(t, 10);
	struct sl_extent_info e = {};
	int ret;

	if (!punch_cell(c)) {
		ret = sl_em_lookup(&em, s + u, &e);
		if (!ret)
			check_in_cell(c, &e, "lookup: extent outside its cell");
		else if (ret != -ENOENT)
			failed("lookup: bad return", c, &e, ret);
		return;
	}
	switch (op) {
	case 0: case 1:
		ret = sl_em_lookup(&em, s, &e);
		if (ret || e.start != s)
			failed("the cell's first unit is not mapped from it", c,
			       &e, ret);
		check_in_cell(c, &e, "lookup first: outside its cell");
		break;
	case 2: case 3: case 4:
		ret = sl_em_lookup(&em, s + CELL - 1, &e);
		if (ret || e.start + e.len != s + CELL)
			failed("the cell's last unit is not mapped to its end",
			       c, &e, ret);
		check_in_cell(c, &e, "lookup last: outside its cell");
		break;
	case 5:
		ret = sl_em_lookup(&em, s + u, &e);
		if (!ret) {
			check_in_cell(c, &e, "lookup: outside its cell");
			if (e.start > s + u || e.start + e.len <= s + u)
				failed("lookup: extent misses the offset", c,
				       &e, ret);
		} else if (ret != -ENOENT) {
			failed("lookup: bad return", c, &e, ret);
		}
		break;
	case 6:
		ret = sl_em_first_overlap(&em, s + 1, CELL - 2, &e);
		if (!ret)
			check_in_cell(c, &e, "first_overlap: outside its cell");
		else if (ret != -ENOENT)
			failed("first_overlap: bad return", c, &e, ret);
		break;
	default:
		walk_cell(c);
		t->walks++;
		break;
	}
}

/* A random maximal run of missing units of a punch cell. */
static void pick_run(struct thread *t, u64 missing, unsigned int *a,
		     unsigned int *b)
{
	unsigned int runs = 0, u, pick;

	for (u = 0; u < CELL; u++)
		runs += (missing >> u & 1) && !(u && (missing >> (u - 1) & 1));
	pick = rnd_below(t, runs);
	for (u = 0; u < CELL; u++) {
		if (!(missing >> u & 1) || (u && (missing >> (u - 1) & 1)))
			continue;
		if (pick-- == 0)
			break;
	}
	*a = u;
	while (u < CELL && (missing >> u & 1))
		u++;
	*b = u;
}

static u64 bits(unsigned int a, unsigned int b)
{
	return (b - a == 64 ? CELL_MASK_ALL : ((1ULL << (b - a)) - 1)) << a;
}

static void fill(struct thread *t, unsigned long c, unsigned int a,
		 unsigned int b)
{
	u64 s = cell_start(c) + a;
	struct sl_extent_info e = {
		.start = s, .len = b - a, .disk_start = s + cell_k(c),
		.flags = cell_flags(c),
	};
	int ret = sl_em_add(&em, &e, SL_EM_MERGE, GFP_KERNEL);

	if (ret)
		failed("merging add failed", c, &e, ret);
	model[c].missing &= ~bits(a, b);
	t->fills++;
}

/*
 * Between two steps of a punch: each unit of the cell a hole if it was one
 * or lies in the range at or after where the step began, else mapped.
 * Only the punch writer changes punch cells, so this is exact.
 */
static void punch_step_window(const struct sl_window_at *at)
{
	unsigned long c = punch_now.c;
	u64 s = cell_start(c), from;
	struct sl_extent_info e = {};
	unsigned int u;
	bool hole;
	int ret;

	if (at->win != SL_WIN_EM_DROP_STEP)
		return;
	punch_now.steps++;
	from = at->key - s;
	if (at->key < s + punch_now.a || at->key >= s + punch_now.b)
		failed("punch step outside its range", c, &e, 0);
	for (u = 0; u < CELL; u++) {
		hole = (punch_now.missing >> u & 1) ||
		       (u >= from && u < punch_now.b);
		ret = sl_em_lookup(&em, s + u, &e);
		if (ret != (hole ? -ENOENT : 0))
			failed("between punch steps: a unit mapped or not against the contract",
			       c, &e, ret);
		if (!ret)
			check_in_cell(c, &e, "between punch steps");
	}
}

static void punch_writer_op(struct thread *t)
{
	unsigned long c = rnd_below(t, (cells + PUNCH_EVERY - 1) / PUNCH_EVERY) *
			  PUNCH_EVERY;
	struct cell_model *m = &model[c];
	unsigned int a, b, h;
	int ret;

	if (!m->missing || rnd_below(t, 2)) {
		/* A hole anywhere but the first and last units. */
		a = 1 + rnd_below(t, CELL - 2);
		b = a + 1 + rnd_below(t, CELL - 1 - a);
		punch_now.c = c;
		punch_now.a = a;
		punch_now.b = b;
		punch_now.missing = m->missing;
		ret = sl_em_drop_range(&em, cell_start(c) + a, b - a,
				       GFP_KERNEL);
		if (ret) {
			struct sl_extent_info e = { cell_start(c) + a, b - a };

			failed("punch failed", c, &e, ret);
		}
		m->missing |= bits(a, b);
		t->punches++;
		return;
	}
	/* Fill a hole: whole (merging both sides), or in two steps. */
	pick_run(t, m->missing, &a, &b);
	h = a + 1 + rnd_below(t, b - a);
	switch (b - a > 1 ? rnd_below(t, 3) : 0) {
	case 0:
		fill(t, c, a, b);
		break;
	case 1:		/* left part first: merges on the left only */
		fill(t, c, a, h);
		if (h < b)
			fill(t, c, h, b);
		break;
	default:	/* right part first: merges on the right only */
		h = a + rnd_below(t, b - a);
		fill(t, c, h, b);
		if (a < h)
			fill(t, c, a, h);
		break;
	}
}

static void single_writer_op(struct thread *t)
{
	unsigned long c = rnd_below(t, cells);
	struct sl_extent_info e = {};
	struct cell_model *m;
	unsigned int lo, hi;
	int ret, want;

	/* Only this writer's cells. */
	if (punch_cell(c) || c % writers != (unsigned long)(t->id % writers))
		return;
	m = &model[c];
	if (m->lo != m->hi && rnd_below(t, 2)) {
		ret = sl_em_remove(&em, cell_start(c) + m->lo);
		if (ret)
			failed("remove failed", c, &e, ret);
		m->lo = m->hi = 0;
		t->removes++;
		t->ops++;
		return;
	}
	lo = rnd_below(t, CELL);
	hi = lo + 1 + rnd_below(t, CELL - lo);
	e.start = cell_start(c) + lo;
	e.len = hi - lo;
	e.disk_start = e.start + cell_k(c);
	e.flags = cell_flags(c);
	want = m->lo != m->hi && lo < m->hi && m->lo < hi ? -EEXIST : 0;
	/* Merging would join extents of this cell only: its K is its own. */
	ret = sl_em_add(&em, &e, 0, GFP_KERNEL);
	if (ret != want)
		failed("add: unexpected return", c, &e, ret);
	if (!ret && m->lo == m->hi) {
		m->lo = lo;
		m->hi = hi;
	} else if (!ret) {
		/* A second, disjoint extent: remove it again at once. */
		if (sl_em_remove(&em, e.start))
			failed("remove of a second extent failed", c, &e, -1);
	}
	t->adds++;
	t->ops++;
}

static void *thread_main(void *arg)
{
	struct thread *t = arg;

	shim_rcu_register();
	while (!READ_ONCE(stop_now)) {
		if (t->kind == 0)
			reader_op(t);
		else if (t->kind == 1)
			punch_writer_op(t);
		else
			single_writer_op(t);
		if (t->kind != 2)
			t->ops++;
	}
	shim_rcu_unregister();
	return NULL;
}

/* Quiescent: each cell exactly as its writer's model says. */
static unsigned long check_cells(void)
{
	unsigned long c, total = 0;
	struct sl_extent_info e = {};
	u64 s, pos;
	unsigned int u, v;
	int ret;

	for (c = 0; c < cells; c++) {
		s = cell_start(c);
		pos = s;
		if (!punch_cell(c)) {
			ret = sl_em_first_overlap(&em, s, CELL, &e);
			if (model[c].lo == model[c].hi) {
				if (ret != -ENOENT)
					failed("final: extent in an empty cell",
					       c, &e, ret);
				continue;
			}
			if (ret || e.start != s + model[c].lo ||
			    e.len != model[c].hi - model[c].lo)
				failed("final: extent differs from the model",
				       c, &e, ret);
			check_in_cell(c, &e, "final");
			total++;
			continue;
		}
		/* Every maximal mapped run is one extent. */
		for (u = 0; u < CELL; u = v) {
			if (model[c].missing >> u & 1) {
				v = u + 1;
				continue;
			}
			for (v = u; v < CELL && !(model[c].missing >> v & 1); v++)
				;
			ret = sl_em_next(&em, pos, &e);
			if (ret || e.start != s + u || e.len != v - u)
				failed("final: mapped run is not one extent", c,
				       &e, ret);
			check_in_cell(c, &e, "final");
			pos = e.start + e.len;
			total++;
		}
	}
	return total;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "phases", required_argument, NULL, 'p' },
		{ "readers", required_argument, NULL, 'r' },
		{ "writers", required_argument, NULL, 'w' },
		{ "cells", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int readers = 3, phases = 4, p, i, nthreads;
	unsigned long c, total, ops[3], walks, punches, fills;
	struct thread *threads;
	double seconds = 10;
	int opt;

	seed = time(NULL);
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's': seconds = atof(optarg); break;
		case 'p': phases = atoi(optarg); break;
		case 'r': readers = atoi(optarg); break;
		case 'w': writers = atoi(optarg); break;
		case 'c': cells = strtoul(optarg, NULL, 0); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (!phases || !writers || cells < PUNCH_EVERY)
		return 2;
	printf("em_stress: %.0f s in %u phases, %u readers, 1 punch writer, %u single-extent writers, %lu cells, seed %llu\n",
	       seconds, phases, readers, writers, cells,
	       (unsigned long long)seed);
	signal(SIGALRM, watchdog);
	shim_random_seed(seed);
	sl_window_hook = punch_step_window;
	shim_rcu_register();
	if (shim_modules_load() || sl_em_init(&em, GFP_KERNEL))
		shim_die(__FILE__, __LINE__, "init");
	model = calloc(cells, sizeof(*model));
	nthreads = readers + 1 + writers;
	threads = calloc(nthreads, sizeof(*threads));
	if (!model || !threads)
		return 1;
	/* The punch cells start whole; the others empty. */
	for (c = 0; c < cells; c += PUNCH_EVERY) {
		struct sl_extent_info e = {
			.start = cell_start(c), .len = CELL,
			.disk_start = cell_start(c) + cell_k(c),
			.flags = cell_flags(c),
		};

		if (sl_em_add(&em, &e, 0, GFP_KERNEL))
			shim_die(__FILE__, __LINE__, "initial add");
	}

	for (p = 0; p < phases; p++) {
		double t0 = now();

		alarm(seconds / phases + 60);
		WRITE_ONCE(stop_now, 0);
		for (i = 0; i < nthreads; i++) {
			memset(&threads[i], 0, sizeof(threads[i]));
			threads[i].id = i;
			threads[i].kind = i < readers ? 0 : i == readers ? 1 : 2;
			threads[i].rng = seed * 2654435761u + p * 40503u + i + 1;
			pthread_create(&threads[i].tid, NULL, thread_main,
				       &threads[i]);
		}
		while (now() - t0 < seconds / phases)
			usleep(20000);
		WRITE_ONCE(stop_now, 1);
		memset(ops, 0, sizeof(ops));
		walks = punches = fills = 0;
		for (i = 0; i < nthreads; i++) {
			pthread_join(threads[i].tid, NULL);
			ops[threads[i].kind] += threads[i].ops;
			walks += threads[i].walks;
			punches += threads[i].punches;
			fills += threads[i].fills;
		}
		if (sl_em_check(&em))
			shim_die(__FILE__, __LINE__, "sl_em_check");
		total = check_cells();
		if (sl_em_count(&em) != total) {
			fprintf(stderr, "em_stress: count %lu, models %lu\n",
				sl_em_count(&em), total);
			return 1;
		}
		printf("em_stress: phase %u: %lu reader ops (%lu walks), %lu punches, %lu merging adds, %lu single-extent ops, %lu extents: ok\n",
		       p, ops[0], walks, punches, fills, ops[2], total);
		fflush(stdout);
	}
	alarm(0);
	sl_window_hook = NULL;
	printf("em_stress: %lu punch step boundaries met (steps of %d extents)\n",
	       punch_now.steps, SL_EM_BATCH);
	/* With small steps, punches of many extents must have met some. */
	if (SL_EM_BATCH < 8 && !punch_now.steps) {
		fprintf(stderr, "em_stress: FAILED: no punch took more than one step\n");
		return 1;
	}
	sl_em_destroy(&em);
	shim_modules_unload();
	rcu_barrier();
	if (shim_kmalloc_live()) {
		fprintf(stderr, "em_stress: %ld objects leaked\n",
			shim_kmalloc_live());
		return 1;
	}
	shim_rcu_unregister();
	free(threads);
	free(model);
	printf("em_stress: PASS\n");
	return 0;
}
