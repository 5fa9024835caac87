// SPDX-License-Identifier: GPL-2.0
/*
 * Leveled compaction (lsm/compact.c, lsm/store_work.c, lsm/layers.c).
 *
 * Decisions: the planner on made-up shapes, every rule of compact.c
 * checked by a case: level sizes from the bottom, the base level moving
 * up as the bottom grows, level 0 first, the level furthest over its
 * target next, round robin within a level, the overlapping runs and the
 * hull, moves, full merges, punches below, the backlog estimate.
 *
 * Races, forced with the store's windows (lsm/store_window.h), each one
 * stopping a thread at an exact point while another acts:
 *  - a reader holds a layer set while a merge drops its runs and later
 *    writes take space: the runs' space must not be reused under it (a
 *    store that freed it at the merge's edit fails here: the reader
 *    reads another run's blocks);
 *  - a flush has recorded its run and not shown it, and a merge runs and
 *    publishes meanwhile: both end up in the layer set, in order;
 *  - power cuts while a merge's runs are written but not recorded, and
 *    once recorded but not shown;
 *  - close while a merge is in the middle;
 *  - writers stop on level 0 while the merge is held, and go on when it
 *    ends (stalls and slowdowns counted);
 *  - a device too full for merges: writers get -ENOSPC, never hang.
 *
 *   test_compact --seed N [-v]
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/rcupdate.h>
#include "compact.h"
#include "format.h"
#include "memdev.h"
#include "store.h"
#include "store_check.h"
#include "store_window.h"
#include "rnd.h"
#include <trace/events/sl_lsm.h>

static u64 seed;
static const char *phase = "setup";
static int verbose;

#include "fail.h"

#define EXPECT(cond) do { if (!(cond)) FAIL("%s:%d: %s", __FILE__,	\
					     __LINE__, #cond); } while (0)

/* ---------- The planner ---------- */

#define MAXR	32

struct fake {
	struct lsm_shape s;
	struct lsm_run_info r[LSM_LEVELS][MAXR];
	const struct lsm_run_info *p[LSM_LEVELS][MAXR];
};

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	for (int k = 0; k < LSM_LEVELS; k++)
		f->s.runs[k] = f->p[k];
}

/* A run of @blocks blocks over [first, last] at the end of @level. */
static void fake_add(struct fake *f, unsigned int level, u64 first, u64 last,
		     u64 blocks)
{
	unsigned int i = f->s.nr[level]++;

	EXPECT(i < MAXR);
	f->r[level][i] = (struct lsm_run_info){
		.id = level * 100 + i + 1, .first_key = first,
		.last_key = last, .nr_blocks = blocks, .level = level,
	};
	f->p[level][i] = &f->r[level][i];
	f->s.bytes[level] += blocks * LSM_BLOCK_SIZE;
}

#define MB(n)	((u64)(n) << 20)
#define BLK(b)	((b) >> LSM_BLOCK_SHIFT)

static void test_planner(void)
{
	struct lsm_compact_config cfg = { .base_bytes = MB(256),
					  .l0_trigger = 4 };
	u64 cursor[LSM_LEVELS] = { 0 };
	struct lsm_compact_targets t;
	struct lsm_compact_job job;
	struct fake f;

	phase = "planner";
	/* Empty: level 0 merges straight into the bottom; nothing due. */
	fake_init(&f);
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(t.base == LSM_BOTTOM && t.pending == 0);
	EXPECT(t.target[LSM_BOTTOM] == U64_MAX);
	EXPECT(!lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job));

	/* The base level moves up a level each time the bottom grows 10x. */
	fake_add(&f, LSM_BOTTOM, 0, 1000, BLK(MB(200)));
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(t.base == LSM_BOTTOM);
	fake_init(&f);
	fake_add(&f, LSM_BOTTOM, 0, 1000, BLK(MB(1000)));
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(t.base == LSM_BOTTOM - 1 && t.target[LSM_BOTTOM - 1] == MB(100));
	fake_init(&f);
	fake_add(&f, LSM_BOTTOM, 0, 1000, BLK(MB(10000)));
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(t.base == LSM_BOTTOM - 2);
	EXPECT(t.target[LSM_BOTTOM - 2] == MB(10000) / 100);
	EXPECT(t.target[LSM_BOTTOM - 1] == MB(10000) / 10);
	EXPECT(t.target[1] == 0 && t.pending == 0);

	/* Level 0 at its trigger: every run of it, and the hull's overlaps. */
	fake_add(&f, 0, 500, 600, 10);
	fake_add(&f, 0, 100, 200, 10);
	fake_add(&f, 0, 150, 160, 10);
	fake_add(&f, LSM_BOTTOM - 2, 0, 90, 10);
	fake_add(&f, LSM_BOTTOM - 2, 95, 300, 10);
	fake_add(&f, LSM_BOTTOM - 2, 350, 400, 10);	/* inside the hull */
	fake_add(&f, LSM_BOTTOM - 2, 700, 800, 10);
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(!lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job));
	fake_add(&f, 0, 550, 590, 10);
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(t.pending > 0);
	EXPECT(lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job));
	EXPECT(job.from == 0 && job.to == LSM_BOTTOM - 2 && !job.move);
	EXPECT(job.from_first == 0 && job.from_nr == 4);
	EXPECT(job.to_first == 1 && job.to_nr == 2);

	/* Runs of level 0 apart from each other and from the base: a move. */
	fake_init(&f);
	for (int i = 0; i < 4; i++)
		fake_add(&f, 0, 100 * i, 100 * i + 50, 10);
	fake_add(&f, LSM_BOTTOM, 1000, 2000, 10);
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job));
	EXPECT(job.move && job.to == LSM_BOTTOM && job.to_nr == 0);

	/*
	 * Below level 0, the level furthest over its target; within it,
	 * round robin from the cursor, wrapping; the runs below it that
	 * overlap; a run with none below moves.
	 */
	fake_init(&f);
	fake_add(&f, LSM_BOTTOM, 0, 99, BLK(MB(5000)));
	fake_add(&f, LSM_BOTTOM, 100, 199, BLK(MB(5000)));
	fake_add(&f, LSM_BOTTOM - 1, 0, 49, BLK(MB(500)));
	fake_add(&f, LSM_BOTTOM - 1, 50, 149, BLK(MB(500)));
	fake_add(&f, LSM_BOTTOM - 1, 300, 400, BLK(MB(500)));
	fake_add(&f, LSM_BOTTOM - 2, 0, 10, BLK(MB(10)));
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(t.base == LSM_BOTTOM - 2);
	EXPECT(lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job));
	EXPECT(job.from == LSM_BOTTOM - 1 && job.from_first == 0 &&
	       job.to_first == 0 && job.to_nr == 1 && !job.move);
	EXPECT(lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job));
	EXPECT(job.from_first == 1 && job.to_first == 0 && job.to_nr == 2);
	EXPECT(lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job));
	EXPECT(job.from_first == 2 && job.move);
	EXPECT(lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job));
	EXPECT(job.from_first == 0);

	/* A level above the base that holds runs goes first, however small. */
	fake_add(&f, 1, 5, 6, 1);
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job));
	EXPECT(job.from == 1 && job.to == 2 && job.move);

	/* Full: anything above the bottom, the highest level first. */
	fake_init(&f);
	fake_add(&f, 3, 0, 10, 1);
	fake_add(&f, LSM_BOTTOM, 0, 10, 1);
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(!lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job) ||
	       job.from == 3);
	EXPECT(lsm_compact_pick(&f.s, &cfg, &t, true, cursor, &job));
	EXPECT(job.from == 3 && job.to == 4);
	fake_add(&f, 0, 3, 4, 1);
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(lsm_compact_pick(&f.s, &cfg, &t, true, cursor, &job));
	EXPECT(job.from == 0 && job.from_nr == 1);

	/* Punches: kept over a lower run, dropped where none lies below. */
	EXPECT(lsm_compact_below(&f.s, 2, 5, 5));
	EXPECT(lsm_compact_below(&f.s, 3, 10, 20));
	EXPECT(!lsm_compact_below(&f.s, 3, 11, 20));
	EXPECT(!lsm_compact_below(&f.s, LSM_BOTTOM, 0, 10));
	printf("test_compact: planner: ok\n");
}

/* ---------- Windows ---------- */

/*
 * A gate per window: armed, the next thread to reach the window stops
 * there until the test opens the gate.
 */
struct gate {
	pthread_mutex_t m;
	pthread_cond_t c;
	bool armed, arrived, open;
};

static struct gate gates[LSM_WIN_NR];

static void window_hook(struct lsm_store *st, enum lsm_window win)
{
	struct gate *g = &gates[win];

	pthread_mutex_lock(&g->m);
	if (g->armed) {
		g->armed = false;
		g->arrived = true;
		pthread_cond_broadcast(&g->c);
		while (!g->open)
			pthread_cond_wait(&g->c, &g->m);
		g->open = false;
		g->arrived = false;
		pthread_cond_broadcast(&g->c);
	}
	pthread_mutex_unlock(&g->m);
}

static void gate_arm(enum lsm_window win)
{
	pthread_mutex_lock(&gates[win].m);
	gates[win].armed = true;
	pthread_mutex_unlock(&gates[win].m);
}

static void gate_wait_arrived(enum lsm_window win)
{
	struct gate *g = &gates[win];

	pthread_mutex_lock(&g->m);
	while (!g->arrived)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
}

static void gate_open(enum lsm_window win)
{
	struct gate *g = &gates[win];

	pthread_mutex_lock(&g->m);
	g->open = true;
	pthread_cond_broadcast(&g->c);
	while (g->arrived)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
}

/* ---------- A store of point records with a model ---------- */

#define KEYS		400
#define VLEN		200

static const struct lsm_options opts = {
	.memtable_bytes = 8 * 1024,
	.max_immutables = 2,
	.commit_interval_ms = 50,
	.l0_compact_runs = 2,
	.l0_slowdown_runs = 3,
	.l0_stop_runs = 4,
	.run_bytes = 8 * 1024,
	/* A slowed write of 216 bytes owes 0.2 ms: a sleep every few. */
	.slowdown_bytes_per_sec = 1 << 20,
};

static u64 model[KEYS];		/* the version of each key, 0: none */

static void value_of(u64 k, u64 v, u8 *buf)
{
	for (int i = 0; i < VLEN; i++)
		buf[i] = (u8)(k * 7 + v * 13 + i);
}

static int put(struct lsm_store *st, u64 k, u64 v, unsigned int flags)
{
	u8 buf[VLEN];
	struct lsm_op op = { .kind = LSM_OP_PUT, .key = k, .len = 1,
			     .vlen = VLEN, .value = buf };

	value_of(k, v, buf);
	return lsm_store_write(st, &op, 1, flags);
}

static void put_ok(struct lsm_store *st, u64 k, u64 v)
{
	EXPECT_OK(put(st, k, v, 0));
	model[k] = v;
}

static void check_key(struct lsm_store *st, u64 k, const u64 *m)
{
	u8 buf[VLEN], want[VLEN];
	struct lsm_piece p;
	int err = lsm_store_get(st, k, &p, buf, sizeof(buf));

	if (!m[k]) {
		if (err != -ENOENT)
			FAIL("key %llu: %d, nothing written",
			     (unsigned long long)k, err);
		return;
	}
	if (err)
		FAIL("key %llu: %d", (unsigned long long)k, err);
	value_of(k, m[k], want);
	if (p.ext.vlen != VLEN || memcmp(buf, want, VLEN))
		FAIL("key %llu: not version %llu", (unsigned long long)k,
		     (unsigned long long)m[k]);
}

static void check_store(struct lsm_store *st, const u64 *m)
{
	EXPECT_OK(lsm_store_check(st));
	for (u64 k = 0; k < KEYS; k++)
		check_key(st, k, m);
}

/* Rewrite every key once more, flushing as the memtables fill. */
static void round_of_puts(struct lsm_store *st, u64 v)
{
	for (u64 k = 0; k < KEYS; k++)
		put_ok(st, (k * 37 + v) % KEYS, v);
}

static struct lsm_store *open_new_with(struct memdev *md,
				       const struct lsm_options *o)
{
	struct lsm_store *st;

	memset(model, 0, sizeof(model));
	EXPECT_OK(lsm_store_open(memdev_bdev(md), o, LSM_OPEN_FORMAT, &st));
	return st;
}

static struct lsm_store *open_new(struct memdev *md)
{
	return open_new_with(md, &opts);
}

static u64 level_bytes(const struct lsm_stats *s)
{
	u64 b = 0;

	for (unsigned int l = 0; l < LSM_LEVELS; l++)
		b += s->level_bytes[l];
	return b;
}

struct reader {
	struct lsm_store *st;
	u64 key;
	u64 want[KEYS];
	pthread_t t;
};

static void *reader_get(void *p)
{
	struct reader *r = p;

	shim_rcu_register();
	check_key(r->st, r->key, r->want);
	shim_rcu_unregister();
	return NULL;
}

/*
 * A reader holds a layer set whose runs a merge then drops; writes and
 * merges go on and take space; the reader, let go, still reads its
 * runs' blocks intact.
 */
static void test_reader_holds_runs(void)
{
	struct memdev *md = memdev_create(4096, false);
	struct lsm_store *st = open_new(md);
	struct lsm_stats s0, s1, s2;
	struct reader r;

	phase = "reader holds dropped runs";
	round_of_puts(st, 1);
	EXPECT_OK(lsm_store_flush(st));
	EXPECT_OK(lsm_store_compact(st, true));
	round_of_puts(st, 2);
	EXPECT_OK(lsm_store_flush(st));
	/* Key 5 is in a run (not a memtable); the reader will look for it. */
	memcpy(r.want, model, sizeof(model));
	r.st = st;
	r.key = 5;
	gate_arm(LSM_WIN_READ_HELD);
	EXPECT(!pthread_create(&r.t, NULL, reader_get, &r));
	gate_wait_arrived(LSM_WIN_READ_HELD);
	lsm_store_stats(st, &s0);
	EXPECT_OK(lsm_store_compact(st, true));
	lsm_store_stats(st, &s1);
	/*
	 * The full merge dropped every run the reader holds, so the space
	 * outside the live runs (superblocks, manifest, log, and runs
	 * readers hold) must have grown by theirs; half of it leaves room
	 * for a manifest roll-over, freed at the edit would show none.
	 */
	EXPECT(s1.compactions > s0.compactions);
	EXPECT(s1.space_used_bytes - level_bytes(&s1) >=
	       s0.space_used_bytes - level_bytes(&s0) + level_bytes(&s0) / 2);
	/* Its runs are dropped; take space until their blocks would go. */
	for (u64 v = 3; v < 8; v++) {
		round_of_puts(st, v);
		EXPECT_OK(lsm_store_flush(st));
		EXPECT_OK(lsm_store_compact(st, true));
		EXPECT_OK(lsm_store_check(st));
	}
	lsm_store_stats(st, &s1);
	EXPECT(s1.compactions > s0.compactions);
	gate_open(LSM_WIN_READ_HELD);
	pthread_join(r.t, NULL);
	/*
	 * Let go, its runs' space is free: the counters say so at once
	 * (lsm_store_stats() gives released runs back), not only after
	 * the next allocation, or space amplification would count runs
	 * nothing can reach.
	 */
	lsm_store_stats(st, &s2);
	EXPECT(s1.space_used_bytes - level_bytes(&s1) >=
	       s2.space_used_bytes - level_bytes(&s2) + level_bytes(&s0));
	round_of_puts(st, 8);
	EXPECT_OK(lsm_store_flush(st));
	check_store(st, model);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
}

struct flusher {
	struct lsm_store *st;
	int err;
	pthread_t t;
};

static void *flush_thread(void *p)
{
	struct flusher *f = p;

	shim_rcu_register();
	f->err = lsm_store_flush(f->st);
	shim_rcu_unregister();
	return NULL;
}

/*
 * A flush recorded its run and has not shown it when a merge runs and
 * publishes: the flush's run must land on top of the merge's result,
 * in the layer set and after a reopen.
 */
static void test_flush_between_merge(void)
{
	struct memdev *md = memdev_create(4096, false);
	struct lsm_store *st = open_new(md);
	struct flusher f = { .st = st };

	phase = "flush recorded, merge between";
	round_of_puts(st, 1);
	EXPECT_OK(lsm_store_flush(st));
	round_of_puts(st, 2);
	gate_arm(LSM_WIN_FLUSH_RECORDED);
	EXPECT(!pthread_create(&f.t, NULL, flush_thread, &f));
	gate_wait_arrived(LSM_WIN_FLUSH_RECORDED);
	EXPECT_OK(lsm_store_compact(st, true));
	gate_open(LSM_WIN_FLUSH_RECORDED);
	pthread_join(f.t, NULL);
	EXPECT_OK(f.err);
	check_store(st, model);
	EXPECT_OK(lsm_store_compact(st, true));
	check_store(st, model);
	EXPECT_OK(lsm_store_close(st));
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &opts, 0, &st));
	check_store(st, model);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
}

struct compactor {
	struct lsm_store *st;
	int err;
	pthread_t t;
};

static void *compact_thread(void *p)
{
	struct compactor *c = p;

	shim_rcu_register();
	c->err = lsm_store_compact(c->st, true);
	shim_rcu_unregister();
	return NULL;
}

/* Power cut now, each way; the device that comes back must hold @m. */
static void cut_and_check(struct memdev *md, const u64 *m)
{
	for (int how = 0; how < MEMDEV_NR_CUTS; how++) {
		struct memdev_replay *rp = memdev_replay_start(md);
		struct memdev *cut;
		struct lsm_store *st;

		memdev_replay_advance(rp, memdev_events(md));
		cut = memdev_replay_cut(rp, how, seed + how);
		memdev_replay_end(rp);
		EXPECT_OK(lsm_store_open(memdev_bdev(cut), &opts, 0, &st));
		check_store(st, m);
		EXPECT_OK(lsm_store_close(st));
		memdev_destroy(cut);
	}
}

/*
 * Power cuts in a merge: its runs written and not recorded (they must
 * vanish, their space free after the reopen), then recorded and not yet
 * shown to readers.
 */
static void test_cut_in_merge(void)
{
	static const enum lsm_window wins[] = { LSM_WIN_MERGE_WRITTEN,
						LSM_WIN_MERGE_RECORDED };
	struct memdev *md = memdev_create(4096, true);
	struct lsm_store *st = open_new(md);

	phase = "power cut in a merge";
	for (unsigned int i = 0; i < 2; i++) {
		struct compactor c = { .st = st };

		round_of_puts(st, 1 + i);
		EXPECT_OK(lsm_store_flush(st));
		gate_arm(wins[i]);
		EXPECT(!pthread_create(&c.t, NULL, compact_thread, &c));
		gate_wait_arrived(wins[i]);
		cut_and_check(md, model);
		gate_open(wins[i]);
		pthread_join(c.t, NULL);
		EXPECT_OK(c.err);
		check_store(st, model);
	}
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
}

struct closer {
	struct lsm_store *st;
	int err;
	pthread_t t;
};

static void *close_thread(void *p)
{
	struct closer *c = p;

	shim_rcu_register();
	c->err = lsm_store_close(c->st);
	shim_rcu_unregister();
	return NULL;
}

/*
 * Close while the work item's merge is in the middle: it ends first.
 * Writers never stop here, so that the test's own writes go on while
 * the merge is held.
 */
static void test_close_in_merge(void)
{
	struct lsm_options o = opts;
	struct memdev *md = memdev_create(8192, false);
	struct lsm_store *st;
	struct closer c;

	phase = "close in a merge";
	o.l0_slowdown_runs = 1000;
	o.l0_stop_runs = 1000;
	o.max_immutables = 1000;
	st = open_new_with(md, &o);
	c.st = st;
	gate_arm(LSM_WIN_MERGE_WRITTEN);
	/* Level 0 reaches its trigger: the work item starts a merge. */
	round_of_puts(st, 1);
	EXPECT_OK(lsm_store_flush(st));
	gate_wait_arrived(LSM_WIN_MERGE_WRITTEN);
	EXPECT(!pthread_create(&c.t, NULL, close_thread, &c));
	usleep(20 * 1000);	/* not needed for correctness: lets close start */
	gate_open(LSM_WIN_MERGE_WRITTEN);
	pthread_join(c.t, NULL);
	EXPECT_OK(c.err);
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &opts, 0, &st));
	check_store(st, model);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
}

struct writer {
	struct lsm_store *st;
	u64 done;	/* writes acknowledged */
	u64 total;
	pthread_t t;
};

static void *writer_thread(void *p)
{
	struct writer *w = p;

	shim_rcu_register();
	for (u64 i = 0; i < w->total; i++) {
		EXPECT_OK(put(w->st, i % KEYS, 1000 + i, 0));
		__atomic_store_n(&w->done, i + 1, __ATOMIC_RELEASE);
	}
	shim_rcu_unregister();
	return NULL;
}

/*
 * The store's events (trace/events/sl_lsm.h) of one store, as a hook on
 * the shims' tracepoints counts them: those that succeeded, and those
 * whose fields are not what the store did.  Events fire on the writer,
 * flush and merge threads.
 */
static struct {
	struct lsm_store *st;
	unsigned long flushes, merges, stalls, slowdowns, bad;
} ev;

static void ev_count(unsigned long *n, bool sane)
{
	__atomic_fetch_add(n, 1, __ATOMIC_RELAXED);
	if (!sane)
		__atomic_fetch_add(&ev.bad, 1, __ATOMIC_RELAXED);
}

static void ev_hook(const struct shim_trace_event *e, const void *rec)
{
	if (shim_trace_is(e, lsm_flush)) {
		const shim_trace_rec_lsm_flush *f = rec;

		if (f->st == ev.st && !f->err)
			ev_count(&ev.flushes, f->blocks && f->pieces &&
				 f->last_seq && f->ns);
	} else if (shim_trace_is(e, lsm_compaction)) {
		const shim_trace_rec_lsm_compaction *c = rec;

		if (c->st == ev.st && !c->err)
			ev_count(&ev.merges, c->runs_in && c->to >= c->from &&
				 c->to < LSM_LEVELS &&
				 (c->move ? !c->write_bytes :
				  c->read_bytes && c->runs_out));
	} else if (shim_trace_is(e, lsm_stall)) {
		const shim_trace_rec_lsm_stall *w = rec;

		if (w->st == ev.st)
			ev_count(&ev.stalls, !w->err && w->ns &&
				 (w->why == LSM_TRACE_STALL_L0 ||
				  w->why == LSM_TRACE_STALL_MEMTABLES));
	} else if (shim_trace_is(e, lsm_slowdown)) {
		const shim_trace_rec_lsm_slowdown *d = rec;

		if (d->st == ev.st)
			ev_count(&ev.slowdowns, d->owed_ns && d->ns);
	}
}

/*
 * With the merge held, level 0 grows until writers stop at l0_stop_runs
 * (slowed from l0_slowdown_runs on); let go, the merge ends and they go
 * on.  Each wait is counted, and fires its event, as each flush and
 * merge does.
 */
static void test_stall(void)
{
	struct lsm_options o = opts;
	struct memdev *md = memdev_create(8192, false);
	struct lsm_store *st;
	struct writer w = { .total = 30 * KEYS };
	struct lsm_stats s;
	u64 before;

	phase = "writers stall on level 0";
	/* Slowed from the merge's start, so that slowdowns surely come. */
	o.l0_slowdown_runs = o.l0_compact_runs;
	o.l0_stop_runs = 5;
	st = open_new_with(md, &o);
	w.st = st;
	memset(&ev, 0, sizeof(ev));
	ev.st = st;
	shim_trace_hook = ev_hook;
	shim_trace_start();
	gate_arm(LSM_WIN_MERGE_WRITTEN);
	EXPECT(!pthread_create(&w.t, NULL, writer_thread, &w));
	gate_wait_arrived(LSM_WIN_MERGE_WRITTEN);
	/* Wait until the writer makes no progress: it is stopped. */
	for (;;) {
		before = __atomic_load_n(&w.done, __ATOMIC_ACQUIRE);
		usleep(50 * 1000);
		lsm_store_stats(st, &s);
		if (before == __atomic_load_n(&w.done, __ATOMIC_ACQUIRE))
			break;
		if (before == w.total)
			FAIL("%llu writes done with the merge held",
			     (unsigned long long)before);
	}
	if (s.level_runs[0] < o.l0_stop_runs &&
	    s.immutables < o.max_immutables)
		FAIL("writer stopped with %llu runs in level 0 and %llu immutables",
		     (unsigned long long)s.level_runs[0],
		     (unsigned long long)s.immutables);
	EXPECT(s.slowdowns > 0);
	gate_open(LSM_WIN_MERGE_WRITTEN);
	pthread_join(w.t, NULL);
	/* Done writing: no flush or merge is left to fire before the stats. */
	EXPECT_OK(lsm_store_flush(st));
	EXPECT_OK(lsm_store_compact(st, false));
	lsm_store_stats(st, &s);
	shim_trace_stop();
	shim_trace_hook = NULL;
	EXPECT(s.stalls > 0 && s.stall_ns > 0 && s.slowdown_ns > 0);
	if (ev.flushes != s.flushes || ev.merges != s.compactions ||
	    ev.stalls != s.stalls || ev.slowdowns != s.slowdowns || ev.bad)
		FAIL("events: %lu flushes, %lu merges, %lu stalls, %lu slowdowns (%lu not sane); stats: %llu, %llu, %llu, %llu",
		     ev.flushes, ev.merges, ev.stalls, ev.slowdowns, ev.bad,
		     (unsigned long long)s.flushes,
		     (unsigned long long)s.compactions,
		     (unsigned long long)s.stalls,
		     (unsigned long long)s.slowdowns);
	if (verbose)
		printf("stall: %llu stalls %.1f ms, %llu slowdowns %.1f ms; events: %lu flushes, %lu merges\n",
		       (unsigned long long)s.stalls, s.stall_ns / 1e6,
		       (unsigned long long)s.slowdowns, s.slowdown_ns / 1e6,
		       ev.flushes, ev.merges);
	for (u64 i = 0; i < w.total; i++)
		model[i % KEYS] = 1000 + i;
	check_store(st, model);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
}

/*
 * A device too small for what is written (8 MB of values on 4 MiB): every
 * write either succeeds or fails with -ENOSPC (never hangs, never
 * another error); what was acknowledged reads back, and after a reopen.
 */
#define FULL_KEYS	40000

static void check_full(struct lsm_store *st, const u64 *m)
{
	u8 buf[VLEN], want[VLEN];
	struct lsm_piece p;

	for (u64 k = 0; k < FULL_KEYS; k++) {
		int err = lsm_store_get(st, k, &p, buf, sizeof(buf));

		if (!m[k] ? err != -ENOENT : err)
			FAIL("key %llu: %d", (unsigned long long)k, err);
		value_of(k, m[k], want);
		if (m[k] && memcmp(buf, want, VLEN))
			FAIL("key %llu: not version %llu",
			     (unsigned long long)k, (unsigned long long)m[k]);
	}
}

static void test_full_device(void)
{
	struct memdev *md = memdev_create(LSM_MIN_BLOCKS, false);
	struct lsm_store *st = open_new(md);
	u64 *m = calloc(FULL_KEYS, sizeof(*m)), k, nospc = 0;
	int err = 0;

	phase = "full device";
	for (k = 0; k < FULL_KEYS && nospc < 100; k++) {
		err = put(st, k, 1, 0);
		if (!err)
			m[k] = 1;
		else if (err == -ENOSPC)
			nospc++;
		else
			FAIL("write on a full device: %d", err);
	}
	if (!nospc)
		FAIL("%llu keys never filled the device", (unsigned long long)k);
	check_full(st, m);
	err = lsm_store_close(st);
	EXPECT(!err || err == -EIO);
	if (!err) {
		EXPECT_OK(lsm_store_open(memdev_bdev(md), &opts, 0, &st));
		check_full(st, m);
		EXPECT_OK(lsm_store_close(st));
	}
	if (verbose)
		printf("full device: %llu keys, %llu -ENOSPC, close %d\n",
		       (unsigned long long)k, (unsigned long long)nospc, err);
	free(m);
	memdev_destroy(md);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct timespec t0, t1;
	int c;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "s:v", lopts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'v': verbose++; break;
		default:
			fprintf(stderr, "usage: test_compact --seed N [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	for (int i = 0; i < LSM_WIN_NR; i++) {
		pthread_mutex_init(&gates[i].m, NULL);
		pthread_cond_init(&gates[i].c, NULL);
	}
	shim_random_seed(seed);
	shim_rcu_register();
	if (shim_modules_load())
		FAIL("module init");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	test_planner();
	lsm_window_hook = window_hook;
	test_reader_holds_runs();
	test_flush_between_merge();
	test_cut_in_merge();
	test_close_in_merge();
	test_stall();
	test_full_device();
	lsm_window_hook = NULL;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("test_compact: ok, %.1f s (seed %llu)\n",
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       (unsigned long long)seed);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	return 0;
}
