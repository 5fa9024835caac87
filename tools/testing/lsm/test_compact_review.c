// SPDX-License-Identifier: GPL-2.0
/*
 * Leveled compaction under attack: each case forces one interleaving,
 * failure or shape, deterministically, that an adversarial review of
 * lsm/compact.c, lsm/store_work.c and lsm/layers.c found or tried.
 * Each says what it forces and what must hold.
 *
 *  - order_above_base (and planner_l0_above_base, the same shape for
 *    the planner alone): the base level moves down (the bottom shrank
 *    under punches) while a level above it still holds runs; level 0
 *    must not merge past that level, or a read returns its older value.
 *  - nomem_in_install: each allocation of a merge's install fails in
 *    turn (the edit, the manifest's buffer, the layer set once the edit
 *    is durable): the runs the manifest names must keep their space,
 *    and every write must survive a reopen.
 *  - eio_at_record: the manifest write of a merge fails; the merge's
 *    output runs must not leak.
 *  - flush_fails_in_merge: a flush's manifest write fails while a merge
 *    has written its runs: the merge must record nothing, or attach
 *    skips the flushed memtable's writes in the log.
 *  - pending_without_merge (planner): writers stop on the merges'
 *    backlog, so a backlog must always come with a merge due.
 *  - close_after_room_back: a flush found no room, then a reader let go
 *    of dropped runs' space; the close of a store without a log must
 *    flush, not give up on the old -ENOSPC and lose the memtables.
 *
 *  - nomem_in_merge: an allocation of a full merge fails, from its start
 *    (a sample drawn from the seed; every one with --all).
 *  - random_shrink (slow: only with --only or --all): a randomized model
 *    check of the bottom growing and shrinking, with writes inside
 *    merges.
 *
 *   test_compact_review --seed N [-v] [--only CASE] [--all]
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include "compact.h"
#include "format.h"
#include "memdev.h"
#include "store.h"
#include "store_check.h"
#include "store_window.h"
#include "rnd.h"

static u64 seed;
static const char *phase = "setup";
static int verbose;
static bool all;		/* --all: every failure point, not a sample */

#include "fail.h"

#define EXPECT(cond) do { if (!(cond)) FAIL("%s:%d: %s", __FILE__,	\
					     __LINE__, #cond); } while (0)

/* ---------- Actions at the store's windows ---------- */

/*
 * An action runs once, in the thread that armed it, when that thread
 * reaches the window: the merges these cases force run in the test's
 * own thread (lsm_store_compact()), so that nothing else can reach the
 * window first, and the shim's n-th allocation failure (which work
 * items never take) is aimed at that thread.
 */
struct action {
	void (*fn)(struct lsm_store *st, void *arg);
	void *arg;
	pthread_t thread;
	bool armed;
};

static struct action actions[LSM_WIN_NR];
static pthread_mutex_t action_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set: called at every merge's LSM_WIN_MERGE_RECORDED, in any thread. */
static void (*every_merge)(struct lsm_store *st);
/* Set: called once, at the next flush's LSM_WIN_FLUSH_WRITTEN. */
static void (*next_flush_written)(struct lsm_store *st);

static void window_hook(struct lsm_store *st, enum lsm_window win)
{
	struct action a;

	if (win == LSM_WIN_MERGE_RECORDED && READ_ONCE(every_merge))
		every_merge(st);
	if (win == LSM_WIN_FLUSH_WRITTEN) {
		void (*fn)(struct lsm_store *st) = xchg(&next_flush_written,
							NULL);

		if (fn)
			fn(st);
	}

	pthread_mutex_lock(&action_lock);
	a = actions[win];
	if (a.armed && pthread_equal(a.thread, pthread_self()))
		actions[win].armed = false;
	else
		a.armed = false;
	pthread_mutex_unlock(&action_lock);
	if (a.armed)
		a.fn(st, a.arg);
}

static void action_arm(enum lsm_window win,
		       void (*fn)(struct lsm_store *st, void *arg), void *arg)
{
	pthread_mutex_lock(&action_lock);
	actions[win] = (struct action){ .fn = fn, .arg = arg,
					.thread = pthread_self(),
					.armed = true };
	pthread_mutex_unlock(&action_lock);
}

static bool action_pending(enum lsm_window win)
{
	bool armed;

	pthread_mutex_lock(&action_lock);
	armed = actions[win].armed;
	actions[win].armed = false;
	pthread_mutex_unlock(&action_lock);
	return armed;
}

/* ---------- Values and checks ---------- */

#define VMAX	4000

/* Version @v of key @k, @vlen bytes. */
static void value_of(u64 k, u64 v, u32 vlen, u8 *buf)
{
	for (u32 i = 0; i < vlen; i++)
		buf[i] = (u8)(k * 7 + v * 13 + i);
}

static int put(struct lsm_store *st, u64 k, u64 v, u32 vlen)
{
	u8 buf[VMAX];
	struct lsm_op op = { .kind = LSM_OP_PUT, .key = k, .len = 1,
			     .vlen = vlen, .value = buf };

	value_of(k, v, vlen, buf);
	return lsm_store_write(st, &op, 1, 0);
}

static int punch(struct lsm_store *st, u64 k, u64 len)
{
	struct lsm_op op = { .kind = LSM_OP_DELETE, .key = k, .len = len };

	return lsm_store_write(st, &op, 1, 0);
}

/* Key @k reads as version @v of @vlen bytes, or as nothing for @v 0. */
static void expect_key(struct lsm_store *st, u64 k, u64 v, u32 vlen)
{
	u8 buf[VMAX], want[VMAX];
	struct lsm_piece p;
	int err = lsm_store_get(st, k, &p, buf, sizeof(buf));

	if (!v) {
		if (err != -ENOENT)
			FAIL("key %llu: %d, expected nothing",
			     (unsigned long long)k, err);
		return;
	}
	if (err)
		FAIL("key %llu: %d, expected version %llu",
		     (unsigned long long)k, err, (unsigned long long)v);
	value_of(k, v, vlen, want);
	if (p.ext.vlen != vlen || memcmp(buf, want, vlen)) {
		for (u64 o = 1; o < 8; o++) {
			value_of(k, o, vlen, want);
			if (p.ext.vlen == vlen && !memcmp(buf, want, vlen))
				FAIL("key %llu: version %llu, expected %llu",
				     (unsigned long long)k,
				     (unsigned long long)o,
				     (unsigned long long)v);
		}
		FAIL("key %llu: not version %llu", (unsigned long long)k,
		     (unsigned long long)v);
	}
}

static void print_levels(struct lsm_store *st, const char *when)
{
	struct lsm_stats s;

	if (!verbose)
		return;
	lsm_store_stats(st, &s);
	printf("  %-28s", when);
	for (int k = 0; k < LSM_LEVELS; k++)
		printf(" L%d %llu/%lluK", k, (unsigned long long)s.level_runs[k],
		       (unsigned long long)s.level_bytes[k] >> 10);
	printf("\n");
}

/* ---------- The planner ---------- */

#define MB(n)	((u64)(n) << 20)

struct fake {
	struct lsm_shape s;
	struct lsm_run_info r[LSM_LEVELS];
	const struct lsm_run_info *p[LSM_LEVELS];
};

/* One run of @bytes over [@first, @last] in @level, alone there. */
static void fake_run(struct fake *f, unsigned int level, u64 first, u64 last,
		     u64 bytes)
{
	for (int k = 0; k < LSM_LEVELS; k++)
		f->s.runs[k] = &f->p[k];
	f->r[level] = (struct lsm_run_info){
		.id = level + 1, .first_key = first, .last_key = last,
		.nr_blocks = bytes >> LSM_BLOCK_SHIFT, .level = level,
	};
	f->p[level] = &f->r[level];
	f->s.nr[level] = 1;
	f->s.bytes[level] = f->r[level].nr_blocks * LSM_BLOCK_SIZE;
}

/*
 * The shape of order_above_base as the planner sees it: the bottom
 * small enough that the base level is the bottom, level 5 still holding
 * a run, level 0 at its trigger.  Level 0 must merge into level 5.
 */
static void test_planner_l0_above_base(void)
{
	struct lsm_compact_config cfg = { .base_bytes = MB(1),
					  .l0_trigger = 1 };
	u64 cursor[LSM_LEVELS] = { 0 };
	struct lsm_compact_targets t;
	struct lsm_compact_job job;
	struct fake f;

	phase = "planner: level 0 with a level above the base";
	memset(&f, 0, sizeof(f));
	fake_run(&f, LSM_BOTTOM, 0, 500, MB(1) / 2);
	fake_run(&f, LSM_BOTTOM - 1, 1000, 1003, 4 * LSM_BLOCK_SIZE);
	fake_run(&f, 0, 1000, 1000, LSM_BLOCK_SIZE);
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(t.base == LSM_BOTTOM);
	EXPECT(lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job));
	if (job.from == 0 && job.to > LSM_BOTTOM - 1)
		FAIL("level 0 merges into level %u, below level %u's run",
		     job.to, LSM_BOTTOM - 1);
	EXPECT(job.from == 0 && job.to == LSM_BOTTOM - 1 && job.to_nr == 1);
	EXPECT(lsm_compact_pick(&f.s, &cfg, &t, true, cursor, &job));
	EXPECT(job.from == 0 && job.to == LSM_BOTTOM - 1);
	printf("test_compact_review: planner, level 0 above the base: ok\n");
}

/*
 * Writers stop while the estimated backlog (targets.pending) is at
 * pending_stop_bytes, and only a merge brings it down: if the backlog
 * can be above zero with no merge due, a store whose pending_stop_bytes
 * is below it stops its writers for good.  The shape: a level over its
 * target by one block, where the target is over 4 MB, so that the
 * level's score in thousandths rounds down to 1000 (not due) while the
 * backlog counts the block and its share of the level below.
 */
static void test_pending_without_merge(void)
{
	struct lsm_compact_config cfg = { .base_bytes = MB(256),
					  .l0_trigger = 4 };
	u64 cursor[LSM_LEVELS] = { 0 };
	struct lsm_compact_targets t;
	struct lsm_compact_job job;
	struct fake f;

	phase = "planner: a backlog with no merge due";
	memset(&f, 0, sizeof(f));
	fake_run(&f, LSM_BOTTOM, 0, 1000, MB(10000));
	fake_run(&f, LSM_BOTTOM - 1, 0, 1000, MB(1000) + LSM_BLOCK_SIZE);
	lsm_compact_targets(&f.s, &cfg, &t);
	EXPECT(t.target[LSM_BOTTOM - 1] == MB(1000));
	if (verbose)
		printf("  backlog %llu bytes, merge due: %d\n",
		       (unsigned long long)t.pending,
		       lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job));
	if (t.pending && !lsm_compact_pick(&f.s, &cfg, &t, false, cursor, &job))
		FAIL("a backlog of %llu bytes with no merge due",
		     (unsigned long long)t.pending);
	EXPECT(job.from == LSM_BOTTOM - 1 && job.to == LSM_BOTTOM);
	printf("test_compact_review: planner, backlog with a merge due: ok\n");
}

/* ---------- Level 0 merged past a level above the base ---------- */

#define BIG_KEYS	512
#define PUNCHED		403		/* keys [0, PUNCHED) are punched */
#define X		(1ULL << 20)	/* keys X to X + 2: small values */
#define SMALL		200

/* Level 0 moves into the base level, which may hold 1 MiB. */
static const struct lsm_options order_opts = {
	.memtable_bytes = 256 * 1024,
	.max_immutables = 2,
	.commit_interval_ms = 50,
	.l0_compact_runs = 4,
	.run_bytes = 64 * 1024,
};

/* In the merge that shrank the bottom: a newer version of key X. */
static void write_x_again(struct lsm_store *st, void *arg)
{
	(void)arg;
	print_levels(st, "merge recorded");
	EXPECT_OK(put(st, X, 2, SMALL));
	EXPECT_OK(lsm_store_flush(st));
	print_levels(st, "X again in level 0");
}

/* What the store holds, with key X at version @xv. */
static void check_order_store(struct lsm_store *st, u64 xv)
{
	for (u64 k = 0; k < BIG_KEYS; k++)
		expect_key(st, k, k < PUNCHED ? 0 : 1, VMAX);
	expect_key(st, X, xv, SMALL);
	for (u64 k = X + 1; k < X + 3; k++)
		expect_key(st, k, 1, SMALL);
}

/*
 * The interleaving:
 *  1. 2 MiB of values in one memtable, flushed and moved to the bottom
 *     (level 6), with 8 MiB memtables; reopened with 256 KiB ones, so
 *     that the base level may hold 1 MiB: the bottom is over it, the
 *     base level is 5, and no merge has moved level 5's cursor yet.
 *  2. Level 0 gets four runs: keys X, X+1, X+2 (version 1) and a punch
 *     of [0, 403); at its trigger it moves into level 5 (the punch is
 *     kept there: the bottom holds data under it).
 *  3. A full merge takes level 5's first run, the punch, into the
 *     bottom, which shrinks to under 1 MiB: the base level becomes 6
 *     while level 5 still holds X (version 1).  In that merge (its edit
 *     durable, not yet shown) X is written again (version 2) and
 *     flushed to level 0.
 *  4. The next merge takes level 0.  Merged into the base level (6),
 *     below level 5, X's version 1 in level 5 hides version 2: a read
 *     returns the older value, and the merge of level 5 into 6 then
 *     makes it permanent.
 */
static void test_order_above_base(void)
{
	struct lsm_options big = order_opts;
	struct memdev *md = memdev_create(4096, false);
	struct lsm_store *st;
	struct lsm_stats s;

	phase = "level 0 merged past a level above the base";
	big.memtable_bytes = 8 << 20;
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &big, LSM_OPEN_FORMAT, &st));
	for (u64 k = 0; k < BIG_KEYS; k++)
		EXPECT_OK(put(st, k, 1, VMAX));
	EXPECT_OK(lsm_store_flush(st));
	EXPECT_OK(lsm_store_compact(st, true));
	EXPECT_OK(lsm_store_close(st));
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &order_opts, 0, &st));
	lsm_store_stats(st, &s);
	EXPECT(s.level_bytes[LSM_BOTTOM] > 1024 * 1024 &&
	       s.level_runs[LSM_BOTTOM] == s.runs);
	print_levels(st, "bottom filled");

	for (u64 k = X; k < X + 3; k++) {
		EXPECT_OK(put(st, k, 1, SMALL));
		EXPECT_OK(lsm_store_flush(st));
	}
	EXPECT_OK(punch(st, 0, PUNCHED));
	EXPECT_OK(lsm_store_flush(st));
	EXPECT_OK(lsm_store_compact(st, false));
	lsm_store_stats(st, &s);
	print_levels(st, "X and the punch in level 5");
	EXPECT(s.level_runs[0] == 0 && s.level_runs[LSM_BOTTOM - 1] == 4);
	check_order_store(st, 1);

	action_arm(LSM_WIN_MERGE_RECORDED, write_x_again, NULL);
	EXPECT_OK(lsm_store_compact(st, true));
	EXPECT(!action_pending(LSM_WIN_MERGE_RECORDED));
	print_levels(st, "after the full merge");
	EXPECT_OK(lsm_store_check(st));
	check_order_store(st, 2);
	EXPECT_OK(lsm_store_close(st));
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &order_opts, 0, &st));
	EXPECT_OK(lsm_store_check(st));
	check_order_store(st, 2);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
	printf("test_compact_review: level 0 above the base: ok\n");
}

/* ---------- A merge's install failing ---------- */

#define KEYS	400
#define VLEN	200

/* Merges only when the test asks (lsm_store_compact()), none on their own. */
static const struct lsm_options small_opts = {
	.memtable_bytes = 8 * 1024,
	.max_immutables = 2,
	.commit_interval_ms = 50,
	.l0_compact_runs = 1000,
	.run_bytes = 8 * 1024,
};

static u64 model[KEYS];

static void round_of_puts(struct lsm_store *st, u64 v)
{
	for (u64 k = 0; k < KEYS; k++) {
		EXPECT_OK(put(st, (k * 37 + v) % KEYS, v, VLEN));
		model[(k * 37 + v) % KEYS] = v;
	}
}

static void check_model(struct lsm_store *st)
{
	for (u64 k = 0; k < KEYS; k++)
		expect_key(st, k, model[k], VLEN);
}

struct nth_alloc {
	unsigned long nth;	/* which allocation from the window on fails */
	unsigned long failed;	/* the shim's failures before it */
};

static void fail_nth_alloc(struct lsm_store *st, void *arg)
{
	struct nth_alloc *na = arg;

	(void)st;
	na->failed = shim_failed_allocs();
	shim_fail_nth(na->nth);
}

/*
 * One allocation of the merge's install fails: the @nth from the
 * merge's window LSM_WIN_MERGE_WRITTEN on, in the merging thread (the
 * edit, the manifest's buffers, the layer set that shows the merge).
 * Whatever the merge reports, the store either goes on with its
 * invariants intact or turns read-only; after more writes (which take
 * free space, such as space a failed merge might have given back while
 * the manifest still names it) and a reopen, every acknowledged write
 * reads back.  Returns whether the failure came before the merge was
 * shown (else it hit something later, and larger @nth are no use).
 */
static bool nomem_in_install(unsigned long nth)
{
	struct memdev *md = memdev_create(4096, false);
	struct nth_alloc na = { .nth = nth };
	struct lsm_stats s0, s1;
	struct lsm_store *st;
	bool hit;
	int err;

	memset(model, 0, sizeof(model));
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &small_opts,
				 LSM_OPEN_FORMAT, &st));
	round_of_puts(st, 1);
	EXPECT_OK(lsm_store_flush(st));
	EXPECT_OK(lsm_store_compact(st, true));
	round_of_puts(st, 2);
	EXPECT_OK(lsm_store_flush(st));
	lsm_store_stats(st, &s0);
	action_arm(LSM_WIN_MERGE_WRITTEN, fail_nth_alloc, &na);
	err = lsm_store_compact(st, true);
	EXPECT(!action_pending(LSM_WIN_MERGE_WRITTEN));
	shim_fail_off();
	lsm_store_stats(st, &s1);
	hit = shim_failed_allocs() != na.failed;
	if (verbose)
		printf("  allocation %lu of the install failing: %s, merge %d\n",
		       nth, hit ? "failed" : "not reached", err);
	check_model(st);
	if (!err || err == -ENOMEM) {
		/* Nothing lost: the store goes on, its invariants hold. */
		EXPECT_OK(lsm_store_check(st));
		for (u64 v = 3; v < 6; v++) {
			round_of_puts(st, v);
			EXPECT_OK(lsm_store_flush(st));
		}
		EXPECT_OK(lsm_store_compact(st, true));
		EXPECT_OK(lsm_store_check(st));
		check_model(st);
		EXPECT_OK(lsm_store_close(st));
	} else {
		EXPECT(err == -EIO);
		EXPECT(put(st, 0, 9, VLEN) == -EROFS);
		EXPECT(lsm_store_close(st) == -EIO);
	}
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &small_opts, 0, &st));
	EXPECT_OK(lsm_store_check(st));
	check_model(st);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
	return hit && s1.compactions == s0.compactions;
}

static void test_nomem_in_install(void)
{
	unsigned long nth = 1;

	phase = "no memory in a merge's install";
	while (nomem_in_install(nth))
		nth++;
	printf("test_compact_review: no memory in a merge's install (%lu allocations): ok\n",
	       nth - 1);
}

/*
 * The @nth allocation of a full merge fails, from its start (the
 * merge runs in this thread): whatever it was (the merge's cursors,
 * its output buffer, a run being written, the install), the store goes
 * on intact or turns read-only, and reopens with every write.  Returns
 * whether the failure was reached.
 */
static bool nomem_in_merge(unsigned long nth)
{
	struct memdev *md = memdev_create(4096, false);
	struct lsm_store *st;
	unsigned long failed;
	bool hit;
	int err;

	memset(model, 0, sizeof(model));
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &small_opts,
				 LSM_OPEN_FORMAT, &st));
	round_of_puts(st, 1);
	EXPECT_OK(lsm_store_flush(st));
	EXPECT_OK(lsm_store_compact(st, true));
	round_of_puts(st, 2);
	EXPECT_OK(lsm_store_flush(st));
	failed = shim_failed_allocs();
	shim_fail_nth(nth);
	err = lsm_store_compact(st, true);
	shim_fail_off();
	hit = shim_failed_allocs() != failed;
	if (verbose > 1)
		printf("  allocation %lu of the merge failing: %s, merge %d\n",
		       nth, hit ? "failed" : "not reached", err);
	check_model(st);
	if (!err || err == -ENOMEM) {
		EXPECT_OK(lsm_store_check(st));
		round_of_puts(st, 3);
		EXPECT_OK(lsm_store_flush(st));
		EXPECT_OK(lsm_store_compact(st, true));
		EXPECT_OK(lsm_store_check(st));
		check_model(st);
		EXPECT_OK(lsm_store_close(st));
	} else {
		EXPECT(err == -EIO);
		EXPECT(lsm_store_close(st) == -EIO);
	}
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &small_opts, 0, &st));
	EXPECT_OK(lsm_store_check(st));
	check_model(st);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
	return hit;
}

/*
 * Every allocation with --all (about 280, two minutes here); else from
 * the first, strides of 1 to 64 drawn from the seed, about ten.
 */
static void test_nomem_in_merge(void)
{
	u64 rng = seed * 2 + 1;
	unsigned long nth = 1, tried = 0;

	phase = "no memory in a merge";
	while (nomem_in_merge(nth)) {
		tried++;
		nth += all ? 1 : 1 + xorshift64(&rng) % 64;
	}
	printf("test_compact_review: no memory in a merge (%lu of the first %lu allocations): ok\n",
	       tried, nth - 1);
}

static void fail_device(struct lsm_store *st, void *arg)
{
	(void)st;
	memdev_fail_after(arg, 0);
}

/*
 * The manifest write of a merge fails (the device fails from
 * LSM_WIN_MERGE_WRITTEN on): the store turns read-only, and the
 * merge's output runs, open in memory and named by no layer set, must
 * be closed and freed.  Counted with the shim's live allocations: what
 * the store holds after the close must be what it held before the
 * open.
 */
static void test_eio_at_record(void)
{
	struct memdev *md = memdev_create(4096, false);
	struct lsm_store *st;
	long live;
	int err;

	phase = "device error at a merge's edit";
	memset(model, 0, sizeof(model));
	live = shim_kmalloc_live();
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &small_opts,
				 LSM_OPEN_FORMAT, &st));
	round_of_puts(st, 1);
	EXPECT_OK(lsm_store_flush(st));
	EXPECT_OK(lsm_store_compact(st, true));
	round_of_puts(st, 2);
	EXPECT_OK(lsm_store_flush(st));
	action_arm(LSM_WIN_MERGE_WRITTEN, fail_device, md);
	err = lsm_store_compact(st, true);
	EXPECT(!action_pending(LSM_WIN_MERGE_WRITTEN));
	EXPECT(err == -EIO);
	check_model(st);
	EXPECT(lsm_store_close(st) == -EIO);
	rcu_barrier();
	if (shim_kmalloc_live() != live)
		FAIL("%ld allocations left after the close",
		     shim_kmalloc_live() - live);
	memdev_fail_after(md, U64_MAX);		/* the device works again */
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &small_opts, 0, &st));
	EXPECT_OK(lsm_store_check(st));
	check_model(st);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
	printf("test_compact_review: device error at a merge's edit: ok\n");
}

/*
 * A flush's manifest edit fails while a merge, begun before, has written
 * its runs and not recorded them: the merge must record nothing.  The
 * manifest in memory holds the flush's edit (its run, the sequence
 * number its memtable reached) and the device does not; a merge's edit
 * written from that state would carry the persisted sequence number to
 * the device without the run, and attach would skip the memtable's
 * writes in the log: their keys would read older values.  It ran so in
 * test_iofail, one time in thirty, before the store stopped a merge's
 * edit once failed and the manifest refused edits after a failed one.
 */
static struct memdev *flush_fails_md;

static void fail_next_write(struct lsm_store *st)
{
	(void)st;
	memdev_fail_io(flush_fails_md, MEMDEV_IO_WRITE, 0, 1);
}

static void flush_fails_in_merge(struct lsm_store *st, void *arg)
{
	(void)arg;
	/* Level 0 as the merge read it; a few writes more, durable in the log. */
	for (u64 k = 0; k < 8; k++) {
		EXPECT_OK(put(st, k, 4, VLEN));
		model[k] = 4;
	}
	EXPECT_OK(lsm_store_sync(st));
	WRITE_ONCE(next_flush_written, fail_next_write);
	EXPECT(lsm_store_flush(st) == -EIO);
	EXPECT(!READ_ONCE(next_flush_written));
}

static void test_flush_fails_in_merge(void)
{
	struct memdev *md = memdev_create(4096, false);
	struct lsm_store *st;

	phase = "a flush's edit fails while a merge runs";
	flush_fails_md = md;
	memset(model, 0, sizeof(model));
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &small_opts,
				 LSM_OPEN_FORMAT, &st));
	round_of_puts(st, 1);
	EXPECT_OK(lsm_store_flush(st));
	EXPECT_OK(lsm_store_compact(st, true));
	/*
	 * A merge of a few keys: an edit of a block (a larger one rolls
	 * the manifest over, and the roll-over's snapshot, the failed
	 * flush's run in it, is whole).
	 */
	for (u64 k = 0; k < 4; k++) {
		EXPECT_OK(put(st, k, 2, VLEN));
		model[k] = 2;
	}
	EXPECT_OK(lsm_store_flush(st));
	action_arm(LSM_WIN_MERGE_WRITTEN, flush_fails_in_merge, NULL);
	EXPECT(lsm_store_compact(st, true) == -EIO);
	EXPECT(!action_pending(LSM_WIN_MERGE_WRITTEN));
	EXPECT(memdev_io_failed(md) == 1);
	EXPECT(lsm_store_close(st) == -EIO);
	/* The device as the failures left it, working again. */
	memdev_fail_io(md, 0, 0, 0);
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &small_opts, 0, &st));
	EXPECT_OK(lsm_store_check(st));
	check_model(st);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
	printf("test_compact_review: a flush's edit fails while a merge runs: ok\n");
}

/* ---------- Randomized: the bottom growing and shrinking ---------- */

#define RKEYS		256
#define HKEYS		16	/* keys RKEYS on: written inside merges */

static const struct lsm_options shrink_opts = {
	.memtable_bytes = 16 * 1024,
	.max_immutables = 2,
	.commit_interval_ms = 50,
	.l0_compact_runs = 2,
	.l0_slowdown_runs = 1000,
	.l0_stop_runs = 1000,	/* a merge's thread writes: never stopped */
	.run_bytes = 16 * 1024,
};

/* The keys written inside merges: their model, and whether to write. */
static struct {
	pthread_mutex_t lock;
	bool on;
	u64 rng, v;
	u64 ver[HKEYS];
	unsigned int writes;
} inside = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * At a merge's LSM_WIN_MERGE_RECORDED (its edit durable, not shown),
 * one time in two: a write and a flush, so that level 0 holds a run
 * when the merge after it is picked.
 */
static void write_inside_merge(struct lsm_store *st)
{
	pthread_mutex_lock(&inside.lock);
	if (inside.on && xorshift64(&inside.rng) % 2) {
		u64 k = xorshift64(&inside.rng) % HKEYS;

		EXPECT_OK(put(st, RKEYS + k, ++inside.v, SMALL));
		inside.ver[k] = inside.v;
		EXPECT_OK(lsm_store_flush(st));
		inside.writes++;
	}
	pthread_mutex_unlock(&inside.lock);
}

static void inside_writes(bool on)
{
	pthread_mutex_lock(&inside.lock);
	inside.on = on;
	pthread_mutex_unlock(&inside.lock);
}

static void check_inside(struct lsm_store *st)
{
	pthread_mutex_lock(&inside.lock);
	for (u64 k = 0; k < HKEYS; k++)
		expect_key(st, RKEYS + k, inside.ver[k], SMALL);
	pthread_mutex_unlock(&inside.lock);
}

/*
 * Rounds of filling every key with large values and punching a random
 * range of them, with merges on their own (two runs of level 0 start
 * one; the base level may hold 32 KB), so that the bottom grows and
 * shrinks and the base level moves up and down while levels above it
 * may hold runs; inside merges, at LSM_WIN_MERGE_RECORDED, other keys
 * are written and flushed now and then; gets against a model all
 * along, full merges and reopens now and then.  20 rounds from the
 * seed (about a minute), 200 with --all.  Slow, so not in the default
 * run: it found the bug order_above_base forces (level 0 merged past a
 * level above the base) with the seed 1 and not 2.
 */
static void test_random_shrink(void)
{
	struct memdev *md = memdev_create(4096, false);
	static u64 ver[RKEYS];
	static u32 len[RKEYS];
	u64 rng = seed * 2 + 1, v = 0;
	unsigned int rounds = all ? 200 : 20, changes = 0, last = 0;
	struct lsm_store *st;
	struct lsm_stats s;

	phase = "randomized: the bottom grows and shrinks";
	memset(ver, 0, sizeof(ver));
	memset(inside.ver, 0, sizeof(inside.ver));
	inside.rng = seed * 4 + 3;
	inside.v = 1000000;
	inside.writes = 0;
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &shrink_opts,
				 LSM_OPEN_FORMAT, &st));
	every_merge = write_inside_merge;
	inside_writes(true);
	for (unsigned int r = 0; r < rounds; r++) {
		u64 first = xorshift64(&rng) % RKEYS;
		u64 n = 1 + xorshift64(&rng) % (RKEYS - first);

		/* Fill: every key, large values or small. */
		for (u64 i = 0; i < RKEYS; i++) {
			u64 k = (i * 97 + r) % RKEYS;
			u32 l = xorshift64(&rng) % 3 ? VMAX : SMALL;

			EXPECT_OK(put(st, k, ++v, l));
			ver[k] = v;
			len[k] = l;
			if (xorshift64(&rng) % 64 == 0) {
				u64 c = xorshift64(&rng) % RKEYS;

				expect_key(st, c, ver[c], len[c]);
			}
		}
		/* Punch a random range, then a few keys again. */
		EXPECT_OK(punch(st, first, n));
		for (u64 k = first; k < first + n; k++)
			ver[k] = 0;
		for (int i = 0; i < 4; i++) {
			u64 k = xorshift64(&rng) % RKEYS;

			EXPECT_OK(put(st, k, ++v, SMALL));
			ver[k] = v;
			len[k] = SMALL;
		}
		switch (xorshift64(&rng) % 8) {
		case 0:
			EXPECT_OK(lsm_store_compact(st, true));
			break;
		case 1:
			inside_writes(false);
			EXPECT_OK(lsm_store_close(st));
			EXPECT_OK(lsm_store_open(memdev_bdev(md), &shrink_opts,
						 0, &st));
			inside_writes(true);
			break;
		case 2:
			EXPECT_OK(lsm_store_flush(st));
			break;
		}
		lsm_store_stats(st, &s);
		for (unsigned int k = 1; k < LSM_LEVELS; k++)
			if (s.level_runs[k]) {
				changes += k != last;
				last = k;
				break;
			}
		for (u64 k = 0; k < RKEYS; k++)
			expect_key(st, k, ver[k], len[k]);
		check_inside(st);
	}
	inside_writes(false);
	EXPECT_OK(lsm_store_close(st));
	every_merge = NULL;
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &shrink_opts, 0, &st));
	EXPECT_OK(lsm_store_check(st));
	for (u64 k = 0; k < RKEYS; k++)
		expect_key(st, k, ver[k], len[k]);
	check_inside(st);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
	printf("test_compact_review: randomized, the bottom growing and shrinking (%u rounds, %u writes inside merges, highest level changed %u times): ok\n",
	       rounds, inside.writes, changes);
}

/* ---------- Power cuts in a merge whose edit rolls the manifest ---------- */

struct events_at {
	struct memdev *md;
	u64 at;
};

static void note_events(struct lsm_store *st, void *arg)
{
	struct events_at *ea = arg;

	(void)st;
	ea->at = memdev_events(ea->md);
}

/* Power cut at event @ev, each way; the device must open holding model. */
static void cut_at(struct memdev *md, struct memdev_replay *rp, u64 ev,
		   const struct lsm_options *o)
{
	for (int how = 0; how < MEMDEV_NR_CUTS; how++) {
		struct memdev *cut;
		struct lsm_store *st;

		memdev_replay_advance(rp, ev);
		cut = memdev_replay_cut(rp, how, seed + ev * 3 + how);
		if (lsm_store_open(memdev_bdev(cut), o, 0, &st))
			FAIL("open after a cut at event %llu (%d)",
			     (unsigned long long)ev, how);
		if (lsm_store_check(st))
			FAIL("check after a cut at event %llu (%d)",
			     (unsigned long long)ev, how);
		check_model(st);
		EXPECT_OK(lsm_store_close(st));
		memdev_destroy(cut);
	}
	(void)md;
}

/*
 * A merge of about 90 records (runs of 2 KB: 40 in the bottom, 40
 * written, 10 of level 0) exceeds an edit block (62), so
 * lsm_manifest_commit() rolls the
 * manifest over: the new state as a snapshot in a new extent, then the
 * superblock pointing at it.  Power is cut at every event from the
 * merge's LSM_WIN_MERGE_WRITTEN to two past LSM_WIN_MERGE_RECORDED (the
 * roll's writes and flushes) and at every 8th while its runs are
 * written, three ways each: the store must open, pass its check and
 * hold every write (all were flushed before the merge).
 */
static void test_cut_in_rolled_merge(void)
{
	struct memdev *md = memdev_create(4096, false);
	struct events_at written = { .md = md }, recorded = { .md = md };
	struct lsm_options o = small_opts;
	struct memdev_replay *rp;
	struct lsm_store *st;
	struct lsm_stats s;
	u64 ev, cuts = 0;

	phase = "power cuts in a merge that rolls the manifest";
	memset(model, 0, sizeof(model));
	o.run_bytes = 2048;
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &o, LSM_OPEN_FORMAT, &st));
	round_of_puts(st, 1);
	EXPECT_OK(lsm_store_flush(st));
	EXPECT_OK(lsm_store_compact(st, true));
	round_of_puts(st, 2);
	EXPECT_OK(lsm_store_flush(st));
	lsm_store_stats(st, &s);
	EXPECT(s.runs + s.level_runs[LSM_BOTTOM] > 62);
	memdev_record(md);
	action_arm(LSM_WIN_MERGE_WRITTEN, note_events, &written);
	action_arm(LSM_WIN_MERGE_RECORDED, note_events, &recorded);
	EXPECT_OK(lsm_store_compact(st, true));
	EXPECT(!action_pending(LSM_WIN_MERGE_WRITTEN) &&
	       !action_pending(LSM_WIN_MERGE_RECORDED));
	EXPECT(recorded.at > written.at);
	check_model(st);
	EXPECT_OK(lsm_store_close(st));
	if (verbose)
		printf("  %llu events: merge written at %llu, recorded at %llu\n",
		       (unsigned long long)memdev_events(md),
		       (unsigned long long)written.at,
		       (unsigned long long)recorded.at);
	rp = memdev_replay_start(md);
	for (ev = 0; ev <= memdev_events(md); ev++) {
		if (ev % 8 && (ev < written.at || ev > recorded.at + 2))
			continue;
		cut_at(md, rp, ev, &o);
		cuts++;
	}
	memdev_replay_end(rp);
	memdev_destroy(md);
	printf("test_compact_review: %llu power cuts in a merge that rolls the manifest: ok\n",
	       (unsigned long long)cuts);
}

/* ---------- A flush that found no room, and room coming back ---------- */

/* A gate: the thread that reaches it waits there until it opens. */
struct gate {
	pthread_mutex_t m;
	pthread_cond_t c;
	bool arrived, open;
};

static void gate_wait(struct lsm_store *st, void *arg)
{
	struct gate *g = arg;

	(void)st;
	pthread_mutex_lock(&g->m);
	g->arrived = true;
	pthread_cond_broadcast(&g->c);
	while (!g->open)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
}

static void gate_wait_arrived(struct gate *g)
{
	pthread_mutex_lock(&g->m);
	while (!g->arrived)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
}

static void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->m);
	g->open = true;
	pthread_cond_broadcast(&g->c);
	pthread_mutex_unlock(&g->m);
}

struct holder {
	struct lsm_store *st;
	struct gate g;
	pthread_t t;
};

/* Read key 0 holding the layer set at LSM_WIN_READ_HELD until let go. */
static void *hold_layers(void *arg)
{
	struct holder *h = arg;
	struct lsm_piece p;

	shim_rcu_register();
	action_arm(LSM_WIN_READ_HELD, gate_wait, &h->g);
	lsm_store_get(h->st, 0, &p, NULL, 0);
	shim_rcu_unregister();
	return NULL;
}

/*
 * A flush found no room (flush_error -ENOSPC), then room came back
 * without a flush trying again: a reader let go of runs a merge had
 * dropped.  A flush asked for now must write the memtables out, not
 * report the old failure: on a store without a log (no_wal) the close
 * flushes, and a close that gave up on the old -ENOSPC lost what the
 * memtables held.
 *
 * The interleaving: a reader holds the layer set with the bottom's runs
 * (800 KB of them a filler); every key is written again, the filler
 * punched, and all merged down, dropping those runs, whose space stays
 * the reader's; new keys are written, flushed every 128, until a flush
 * finds no room; the reader lets go; lsm_store_close(); reopen.
 */
#define FILLER		200		/* 800 KB of values, then punched */
#define FILLER_KEY	(1ULL << 30)

static void test_close_after_room_back(void)
{
	struct memdev *md = memdev_create(2 * LSM_MIN_BLOCKS, false);
	struct holder h = { .g = { PTHREAD_MUTEX_INITIALIZER,
				   PTHREAD_COND_INITIALIZER } };
	struct lsm_options o = small_opts;
	struct lsm_store *st;
	struct lsm_stats s;
	int err = 0;
	u64 k, n;

	phase = "close without a log after room came back";
	memset(model, 0, sizeof(model));
	o.no_wal = true;
	o.memtable_bytes = 64 * 1024;	/* no flush but the test's */
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &o, LSM_OPEN_FORMAT, &st));
	round_of_puts(st, 1);
	for (k = 0; k < FILLER; k++)
		EXPECT_OK(put(st, FILLER_KEY + k, 1, VMAX));
	EXPECT_OK(lsm_store_flush(st));
	EXPECT_OK(lsm_store_compact(st, true));
	h.st = st;
	EXPECT(!pthread_create(&h.t, NULL, hold_layers, &h));
	gate_wait_arrived(&h.g);
	round_of_puts(st, 2);
	EXPECT_OK(punch(st, FILLER_KEY, FILLER));
	EXPECT_OK(lsm_store_flush(st));
	EXPECT_OK(lsm_store_compact(st, true));
	for (n = 0; n < 100000 && !err; n++) {
		EXPECT_OK(put(st, KEYS + n, 1, VLEN));
		if (n % 128 == 127)
			err = lsm_store_flush(st);
	}
	EXPECT(err == -ENOSPC);
	lsm_store_stats(st, &s);
	EXPECT(s.immutables > 0);
	if (verbose)
		printf("  no room after %llu new keys, %llu immutables\n",
		       (unsigned long long)n, (unsigned long long)s.immutables);
	gate_open(&h.g);
	pthread_join(h.t, NULL);
	err = lsm_store_close(st);
	if (err)
		FAIL("close with the dropped runs' space back: %d", err);
	EXPECT_OK(lsm_store_open(memdev_bdev(md), &o, 0, &st));
	EXPECT_OK(lsm_store_check(st));
	check_model(st);
	/* The memtables held the last ones; runs, a sample of the others. */
	for (k = 0; k < n; k += k + 512 < n ? 101 : 1)
		expect_key(st, KEYS + k, 1, VLEN);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
	printf("test_compact_review: close without a log after room came back: ok\n");
}

/* Slow ones run only when named (--only) or with --all. */
static const struct {
	const char *name;
	void (*fn)(void);
	bool slow;
} cases[] = {
	{ "planner_l0_above_base", test_planner_l0_above_base },
	{ "pending_without_merge", test_pending_without_merge },
	{ "order_above_base", test_order_above_base },
	{ "nomem_in_install", test_nomem_in_install },
	{ "eio_at_record", test_eio_at_record },
	{ "flush_fails_in_merge", test_flush_fails_in_merge },
	{ "nomem_in_merge", test_nomem_in_merge },
	{ "random_shrink", test_random_shrink, true },
	{ "cut_in_rolled_merge", test_cut_in_rolled_merge },
	{ "close_after_room_back", test_close_after_room_back },
};

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "only", required_argument, NULL, 'o' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	const char *only = NULL;
	struct timespec t0, t1;
	int c;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "s:v", lopts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'v': verbose++; break;
		case 'o': only = optarg; break;
		case 'a': all = true; break;
		default:
			fprintf(stderr,
				"usage: test_compact_review --seed N [-v] [--only CASE] [--all]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	shim_random_seed(seed);
	shim_rcu_register();
	if (shim_modules_load())
		FAIL("module init");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	lsm_window_hook = window_hook;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (only ? !strcmp(only, cases[i].name) :
			   all || !cases[i].slow)
			cases[i].fn();
	lsm_window_hook = NULL;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("test_compact_review: ok, %.1f s (seed %llu)\n",
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       (unsigned long long)seed);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	return 0;
}
