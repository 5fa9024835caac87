// SPDX-License-Identifier: GPL-2.0
/*
 * The store (lsm/store.c) against a model of extent semantics, on the
 * in-memory device, then under power cuts.
 *
 * Differential part: random writes of 1 to 4 operations (puts of ranges
 * and points with values, a few too large for a run's data block, so
 * kept in its value blocks; punches; some SYNC), gets, scans with random
 * cursors, bounds and buffer sizes, syncs, flushes and close/open, with
 * a small memtable so that runs, log segments and manifest edits come
 * often.  Every get is checked for the extent as stored (key, length,
 * sequence number, value bytes) and its visible window; every scan for
 * the exact visible pieces; after every reopen the whole state and the
 * manifest's and allocator's invariants.
 *
 * Power-cut part: the same workload recorded on memdev; cuts at every
 * flush and FUA point and at random points, three ways each; after each,
 * the store opens, its invariants hold, its state is the model's after
 * the writes up to its sequence number, and that includes every write
 * acknowledged as durable before the cut.
 *
 * The block cache under the runs holds three blocks (--cache BYTES to
 * change it; 0 for the store's default of 8 MiB), so that the
 * differential test evicts every few reads; the run without the log
 * uses the default.
 *
 *   test_store --seed N [--ops N] [--rounds R] [--random C] [--cache B] [-v]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <linux/delay.h>
#include <linux/rcupdate.h>
#include <linux/shrinker.h>
#include "format.h"
#include "memdev.h"
#include "store.h"
#include "store_check.h"
#include "rnd.h"
#include "fail.h"

#define UNITS		300
#define MAX_OPS		4
#define NR_BLOCKS	(2 * LSM_MIN_BLOCKS)

static u64 seed;
static int verbose;
static const char *phase = "setup";

static u64 rng_state;

static u64 rnd(void)
{
	return xorshift64(&rng_state);
}

struct unit {
	u64 seq;	/* 0: nothing visible */
	u64 key, len;
	u32 op, vlen;
};

static u8 value_byte(u64 seq, u32 op, u32 i)
{
	return (u8)(seq * 131 + op * 31 + i * 7 + 1);
}

static void model_apply(struct unit *m, u64 seq, const struct lsm_op *ops,
			unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		for (u64 u = ops[i].key; u < ops[i].key + ops[i].len; u++)
			m[u] = ops[i].kind == LSM_OP_DELETE ?
			       (struct unit){ 0 } :
			       (struct unit){ seq, ops[i].key, ops[i].len, i,
					      ops[i].vlen };
}

static bool same(const struct unit *a, const struct unit *b)
{
	return a->seq == b->seq && a->op == b->op;
}

/* An extent as the store returned it, against the model's unit. */
static void check_ext(const struct lsm_extent *e, const struct unit *u,
		      const char *what, u64 k)
{
	if (e->seq != u->seq || e->key != u->key || e->len != u->len ||
	    e->vlen != u->vlen || (e->flags & LSM_EXT_TOMBSTONE))
		FAIL("%s at %llu: extent seq %llu [%llu +%llu) vlen %u, model seq %llu [%llu +%llu) vlen %u",
		     what, (unsigned long long)k,
		     (unsigned long long)e->seq, (unsigned long long)e->key,
		     (unsigned long long)e->len, e->vlen,
		     (unsigned long long)u->seq, (unsigned long long)u->key,
		     (unsigned long long)u->len, u->vlen);
	for (u32 b = 0; b < e->vlen; b++)
		if (((const u8 *)e->value)[b] != value_byte(u->seq, u->op, b))
			FAIL("%s at %llu: value byte %u wrong", what,
			     (unsigned long long)k, b);
}

static void check_get(struct lsm_store *st, const struct unit *m, u64 k)
{
	static u8 vbuf[LSM_VALUE_MAX];
	struct lsm_piece p;
	u64 from = k, to = k;
	int err = lsm_store_get(st, k, &p, vbuf, sizeof(vbuf));

	if (k >= UNITS || !m[k].seq) {
		if (err != -ENOENT)
			FAIL("get %llu: %d where nothing is", (unsigned long long)k,
			     err);
		return;
	}
	if (err)
		FAIL("get %llu: %d", (unsigned long long)k, err);
	check_ext(&p.ext, &m[k], "get", k);
	while (from > 0 && same(&m[from - 1], &m[k]))
		from--;
	while (to + 1 < UNITS && same(&m[to + 1], &m[k]))
		to++;
	if (p.start != from || p.len != to - from + 1)
		FAIL("get %llu: window [%llu +%llu), model [%llu +%llu)",
		     (unsigned long long)k, (unsigned long long)p.start,
		     (unsigned long long)p.len, (unsigned long long)from,
		     (unsigned long long)(to - from + 1));
}

/* Scan everything from @from in calls of random sizes; compare with the model. */
static void check_scan(struct lsm_store *st, const struct unit *m, u64 from)
{
	static u8 vbuf[2 * LSM_VALUE_MAX];
	struct lsm_piece out[64];
	struct lsm_scan_cursor cur = { .pos = from };
	u64 u = from, calls = 0;

	/* Skip the model's units before the first visible one. */
	while (!cur.done) {
		/* Small calls resume often; large ones cross runs' blocks. */
		unsigned int max = 1 + rnd() % (rnd() % 2 ? 8 : 64);
		size_t vsize = rnd() % 2 ? sizeof(vbuf) : 64 + rnd() % 256;
		int n = lsm_store_scan(st, &cur, out, max, vbuf, vsize);

		if (n == -EOVERFLOW && vsize < LSM_VALUE_MAX)
			continue;
		if (n < 0)
			FAIL("scan from %llu: %d", (unsigned long long)from, n);
		if (!n && !cur.done && ++calls > 1000)
			FAIL("scan from %llu makes no progress",
			     (unsigned long long)from);
		for (int i = 0; i < n; i++) {
			u64 s = out[i].start, e = lsm_last(s, out[i].len);

			while (u < s && u < UNITS) {
				if (m[u].seq)
					FAIL("scan from %llu skipped unit %llu",
					     (unsigned long long)from,
					     (unsigned long long)u);
				u++;
			}
			if (s != u || e >= UNITS)
				FAIL("scan from %llu: piece [%llu, %llu] where unit %llu was next",
				     (unsigned long long)from,
				     (unsigned long long)s,
				     (unsigned long long)e,
				     (unsigned long long)u);
			check_ext(&out[i].ext, &m[s], "scan", s);
			/* One piece per visible window within a call. */
			if (i && out[i - 1].start + out[i - 1].len == s &&
			    same(&m[out[i - 1].start], &m[s]))
				FAIL("scan from %llu: two pieces of one window at %llu",
				     (unsigned long long)from,
				     (unsigned long long)s);
			for (; u <= e; u++)
				if (!same(&m[u], &m[s]))
					FAIL("scan from %llu: piece [%llu, %llu] but unit %llu differs",
					     (unsigned long long)from,
					     (unsigned long long)s,
					     (unsigned long long)e,
					     (unsigned long long)u);
		}
	}
	for (; u < UNITS; u++)
		if (m[u].seq)
			FAIL("scan from %llu ended before unit %llu",
			     (unsigned long long)from, (unsigned long long)u);
}

static void check_all(struct lsm_store *st, const struct unit *m)
{
	int err = lsm_store_check(st);

	if (err)
		FAIL("store check: %d", err);
	check_scan(st, m, 0);
	for (u64 k = 0; k < UNITS; k++)
		check_get(st, m, k);
}

/*
 * The largest value a write makes: past what a run's data block holds
 * inline (about 4 KiB), so that runs keep some values in value blocks.
 */
#define BIG_VALUE	4500

struct wop {
	struct lsm_op op;
	u8 value[BIG_VALUE];
};

/* Mostly small values, some larger, and one in 40 out of a data block. */
static u32 random_vlen(void)
{
	if (rnd() % 40 == 0)
		return 4040 + rnd() % (BIG_VALUE - 4040 + 1);
	return rnd() % 8 ? rnd() % 100 : rnd() % 600;
}

static unsigned int make_write(struct wop *w, u64 seq)
{
	unsigned int n = 1 + rnd() % MAX_OPS;

	for (unsigned int i = 0; i < n; i++) {
		struct wop *o = &w[i];
		u64 len = rnd() % 3 ? 1 : 1 + rnd() % 40;

		o->op.key = rnd() % (UNITS - len + 1);
		o->op.len = len;
		o->op.kind = rnd() % 6 ? LSM_OP_PUT : LSM_OP_DELETE;
		o->op.vlen = o->op.kind == LSM_OP_PUT ? random_vlen() : 0;
		for (u32 b = 0; b < o->op.vlen; b++)
			o->value[b] = value_byte(seq, i, b);
		o->op.value = o->value;
	}
	return n;
}

/* Three blocks of the cache (a page and some 64 bytes each). */
#define TINY_CACHE	(4 * 4096)

static struct lsm_options small = {
	.memtable_bytes = 6 * 1024,
	.max_immutables = 2,
	.commit_interval_ms = 50,
	.block_cache_bytes = TINY_CACHE,
};

/* Without the log: durable only through runs (seed 001's benchmark). */
static const struct lsm_options small_no_wal = {
	.memtable_bytes = 6 * 1024,
	.max_immutables = 2,
	.commit_interval_ms = 50,
	.no_wal = true,
};

/*
 * Merges everywhere: memtables of 2 KiB, two runs of level 0 start a
 * merge, runs of 4 KiB, so that a few hundred units fill levels 4 to 6.
 */
static const struct lsm_options deep = {
	.memtable_bytes = 2 * 1024,
	.max_immutables = 2,
	.commit_interval_ms = 50,
	.l0_compact_runs = 2,
	.run_bytes = 4 * 1024,
	.block_cache_bytes = TINY_CACHE,
};

static const struct lsm_options *store_opts = &small;

static struct lsm_store *open_store(struct lsm_bdev *bdev, unsigned int flags)
{
	struct lsm_store *st;
	int err = lsm_store_open(bdev, store_opts, flags, &st);

	if (err)
		FAIL("open: %d", err);
	return st;
}

/* The differential test. */
static void run_diff(u64 nops)
{
	struct memdev *md = memdev_create(NR_BLOCKS, false);
	struct lsm_bdev *bdev = memdev_bdev(md);
	struct unit m[UNITS] = { { 0 } };
	struct lsm_store *st = open_store(bdev, LSM_OPEN_FORMAT);
	struct lsm_stats stats;
	u64 seq = 1, reopens = 0, gets = 0, scans = 0, merges = 0, shrinks = 0;
	u64 cache_bound = store_opts->block_cache_bytes ?: 8 << 20;
	unsigned int levels_seen = 0;
	struct wop w[MAX_OPS];
	struct lsm_op ops[MAX_OPS];
	int err;

	phase = "differential";
	for (u64 i = 0; i < nops; i++) {
		unsigned int what = rnd() % 100, n;

		if (i % 16 == 0) {
			lsm_store_stats(st, &stats);
			for (unsigned int k = 0; k < LSM_LEVELS; k++)
				if (stats.level_runs[k])
					levels_seen |= 1U << k;
		}
		if (what < 2) {
			/* A merge now, alongside the work item's. */
			err = lsm_store_compact(st, rnd() % 2);
			if (err)
				FAIL("compact: %d", err);
			merges++;
			what = 55 + rnd() % 30;	/* and a get or scan */
		}

		if (what < 55) {
			n = make_write(w, seq);
			for (unsigned int j = 0; j < n; j++)
				ops[j] = w[j].op;
			err = lsm_store_write(st, ops, n,
					      rnd() % 5 ? 0 : LSM_WRITE_SYNC);
			if (err)
				FAIL("write seq %llu: %d",
				     (unsigned long long)seq, err);
			model_apply(m, seq++, ops, n);
		} else if (what < 80) {
			check_get(st, m, rnd() % (UNITS + 5));
			gets++;
		} else if (what < 85) {
			check_scan(st, m, rnd() % UNITS);
			scans++;
		} else if (what < 90) {
			err = lsm_store_sync(st);
			if (err)
				FAIL("sync: %d", err);
		} else if (what < 93) {
			err = lsm_store_flush(st);
			if (err)
				FAIL("flush: %d", err);
		} else if (what < 95) {
			err = lsm_store_close(st);
			if (err)
				FAIL("close: %d", err);
			st = open_store(bdev, 0);
			check_all(st, m);
			reopens++;
		} else if (what < 97) {
			/* Memory pressure: the cache's shrinker is called. */
			shim_shrink_slab(rnd() % 13);
			shrinks++;
		} else {
			/* Bad input: refused, nothing applied. */
			struct lsm_op bad = { .kind = LSM_OP_PUT, .key = U64_MAX,
					      .len = 2 };

			if (lsm_store_write(st, &bad, 1, 0) != -EINVAL ||
			    lsm_store_write(st, &bad, 0, 0) != -EINVAL ||
			    lsm_store_write(st, ops, 1, 0x80) != -EINVAL)
				FAIL("bad input not refused with -EINVAL");
		}
	}
	check_all(st, m);
	lsm_store_stats(st, &stats);
	if (stats.cache_bytes > cache_bound)
		FAIL("cache: %llu bytes held, more than its %llu",
		     (unsigned long long)stats.cache_bytes,
		     (unsigned long long)cache_bound);
	if (stats.seq != seq - 1)
		FAIL("stats.seq %llu, %llu writes", (unsigned long long)stats.seq,
		     (unsigned long long)(seq - 1));
	/* A run that never merged, or never reached a middle level, proves little. */
	if (!stats.compactions && !merges)
		FAIL("no merge in %llu ops", (unsigned long long)nops);
	if (store_opts == &deep && !(levels_seen & 0x3e))
		FAIL("no run ever in a level between 0 and the bottom (seen %#x)",
		     levels_seen);
	err = lsm_store_close(st);
	if (err)
		FAIL("close: %d", err);
	st = open_store(bdev, 0);
	check_all(st, m);
	printf("test_store: differential%s: %llu ops, %llu writes, %llu gets, %llu scans, %llu reopens, %llu merge calls, %llu shrinks, levels seen %#x; last life: %llu runs, %llu flushes, %llu merges, %llu stalls, log %llu B, runs %llu B, manifest %llu B, cache of %llu B: %llu hits, %llu misses\n",
	       store_opts->no_wal ? " (no log)" :
	       store_opts == &deep ? " (deep levels)" : "",
	       (unsigned long long)nops, (unsigned long long)(seq - 1),
	       (unsigned long long)gets, (unsigned long long)scans,
	       (unsigned long long)reopens, (unsigned long long)merges,
	       (unsigned long long)shrinks,
	       levels_seen, (unsigned long long)stats.runs,
	       (unsigned long long)stats.flushes,
	       (unsigned long long)stats.compactions,
	       (unsigned long long)stats.stalls,
	       (unsigned long long)stats.wal_bytes,
	       (unsigned long long)stats.run_bytes,
	       (unsigned long long)stats.manifest_bytes,
	       (unsigned long long)cache_bound,
	       (unsigned long long)stats.cache_hits,
	       (unsigned long long)stats.cache_misses);
	lsm_store_close(st);
	memdev_destroy(md);
}

/* Refusals: too small, unformatted, foreign. */
static void run_refusals(void)
{
	struct memdev *md = memdev_create(LSM_MIN_BLOCKS - 1, false);
	struct lsm_store *st;
	u8 junk[LSM_BLOCK_SIZE];

	phase = "refusals";
	if (lsm_store_open(memdev_bdev(md), NULL, LSM_OPEN_FORMAT, &st) !=
	    -ENOSPC)
		FAIL("a device of %u blocks not refused with -ENOSPC",
		     LSM_MIN_BLOCKS - 1);
	memdev_destroy(md);
	md = memdev_create(LSM_MIN_BLOCKS, false);
	if (lsm_store_open(memdev_bdev(md), NULL, 0, &st) != -EUCLEAN)
		FAIL("an unformatted device not refused with -EUCLEAN");
	memset(junk, 0x5a, sizeof(junk));
	if (lsm_bdev_write_sync(memdev_bdev(md), 0, junk, 1, 0))
		FAIL("memdev write");
	if (lsm_store_open(memdev_bdev(md), NULL, 0, &st) != -EUCLEAN)
		FAIL("a foreign device not refused with -EUCLEAN");
	memdev_destroy(md);
}

/*
 * The ends of the key space, which the differential part (keys near 0)
 * never reaches: an extent at U64_MAX itself, one just below it, and one
 * at 0, in the memtable and then in a run: get finds each, and one scan
 * from 0 returns all three in order (U64_MAX was once taken as "no next
 * piece", and a scan stopped before the last unit).
 */
static void run_key_space_ends(void)
{
	static const u64 keys[3] = { 0, U64_MAX - 10, U64_MAX };
	static const u64 lens[3] = { 4, 5, 1 };
	struct memdev *md = memdev_create(NR_BLOCKS, false);
	struct lsm_store *st = open_store(memdev_bdev(md), LSM_OPEN_FORMAT);
	struct lsm_piece got[8];
	u8 vbuf[64], val = 'a';

	phase = "key space ends";
	for (int i = 0; i < 3; i++) {
		struct lsm_op op = { .kind = LSM_OP_PUT, .key = keys[i],
				     .len = lens[i], .vlen = 1, .value = &val };

		if (lsm_store_write(st, &op, 1, 0))
			FAIL("put at %llx", (unsigned long long)keys[i]);
	}
	for (int pass = 0; pass < 2; pass++) {
		struct lsm_scan_cursor cur = { .pos = 0 };
		struct lsm_piece one;
		int n;

		for (int i = 0; i < 3; i++)
			if (lsm_store_get(st, lsm_last(keys[i], lens[i]), &one,
					  vbuf, sizeof(vbuf)) ||
			    one.ext.key != keys[i] || one.ext.len != lens[i])
				FAIL("pass %d: get of the extent at %llx", pass,
				     (unsigned long long)keys[i]);
		n = lsm_store_scan(st, &cur, got, 8, vbuf, sizeof(vbuf));
		if (n != 3)
			FAIL("pass %d: scan from 0 gave %d pieces, not 3", pass,
			     n);
		for (int i = 0; i < 3; i++)
			if (got[i].start != keys[i] || got[i].len != lens[i])
				FAIL("pass %d: scan piece %d at %llx+%llu", pass,
				     i, (unsigned long long)got[i].start,
				     (unsigned long long)got[i].len);
		if (!cur.done ||
		    lsm_store_scan(st, &cur, got, 8, vbuf, sizeof(vbuf)))
			FAIL("pass %d: the scan does not end after U64_MAX",
			     pass);
		if (lsm_store_flush(st))
			FAIL("flush");
	}
	if (lsm_store_close(st))
		FAIL("close");
	memdev_destroy(md);
}

/*
 * Durability paths the differential part does not reach: a write
 * without SYNC is durable within the commit interval; a failed flush is
 * -EIO, never success, and the store turns read-only (-EROFS); SYNC
 * writers on several threads share flushes (group commit) and all of
 * their writes are there after a power cut.
 */
static void run_durability(void)
{
	struct memdev *md = memdev_create(NR_BLOCKS, true), *cut;
	struct lsm_bdev *bdev = memdev_bdev(md);
	struct lsm_store *st = open_store(bdev, LSM_OPEN_FORMAT);
	struct unit m[UNITS] = { { 0 } };
	struct lsm_stats stats;
	struct wop w[MAX_OPS];
	struct lsm_op ops[MAX_OPS];
	unsigned int n, waited;
	u64 commits;
	int err;

	phase = "commit interval";
	n = make_write(w, 1);
	for (unsigned int j = 0; j < n; j++)
		ops[j] = w[j].op;
	lsm_store_stats(st, &stats);
	commits = stats.group_commits;
	EXPECT_OK(lsm_store_write(st, ops, n, 0));
	model_apply(m, 1, ops, n);
	/*
	 * The delayed sync runs one interval later, or later still on a
	 * loaded machine: wait for its flush (a commit counted) rather
	 * than guess a time, and fail only if none comes in 10 s.
	 */
	for (waited = 0; waited < 10000; waited += 10) {
		lsm_store_stats(st, &stats);
		if (stats.group_commits > commits)
			break;
		msleep(10);
	}
	if (stats.group_commits == commits)
		FAIL("no commit within 10 s of a write, with a %u ms interval",
		     small.commit_interval_ms);
	cut = memdev_power_cut(md, MEMDEV_DROP_ALL, 1);
	{
		struct lsm_store *st2 = open_store(memdev_bdev(cut), 0);

		check_all(st2, m);
		EXPECT_OK(lsm_store_close(st2));
	}
	memdev_destroy(cut);

	phase = "failed flush";
	memdev_fail_after(md, 0);
	n = make_write(w, 2);
	for (unsigned int j = 0; j < n; j++)
		ops[j] = w[j].op;
	err = lsm_store_write(st, ops, n, LSM_WRITE_SYNC);
	if (err != -EIO)
		FAIL("a SYNC write on a failing device returned %d, not -EIO",
		     err);
	if (lsm_store_write(st, ops, n, 0) != -EROFS)
		FAIL("a write after a device failure not refused with -EROFS");
	lsm_store_stats(st, &stats);
	if (!stats.read_only)
		FAIL("stats do not say read-only");
	if (lsm_store_close(st) != -EIO)
		FAIL("close of a failed store did not say -EIO");
	memdev_destroy(md);
}

struct writer_arg {
	struct lsm_store *st;
	unsigned int id;
	u64 writes;
};

/* Each thread owns units [id * 10, id * 10 + 10): value = its count. */
static void *writer(void *p)
{
	struct writer_arg *a = p;

	shim_rcu_register();
	for (u64 i = 1; i <= a->writes; i++) {
		u8 v[8];
		struct lsm_op op = { .kind = LSM_OP_PUT, .vlen = 8, .value = v,
				     .key = a->id * 10 + i % 10, .len = 1 };

		memcpy(v, &i, 8);
		EXPECT_OK(lsm_store_write(a->st, &op, 1, LSM_WRITE_SYNC));
	}
	shim_rcu_unregister();
	return NULL;
}

static void run_threads(unsigned int threads, u64 writes)
{
	struct memdev *md = memdev_create(NR_BLOCKS, true), *cut;
	struct lsm_store *st = open_store(memdev_bdev(md), LSM_OPEN_FORMAT);
	struct writer_arg a[8];
	pthread_t t[8];
	struct lsm_stats stats;

	phase = "group commit";
	memdev_flush_delay(md, 300);
	for (unsigned int i = 0; i < threads; i++) {
		a[i] = (struct writer_arg){ st, i, writes };
		pthread_create(&t[i], NULL, writer, &a[i]);
	}
	for (unsigned int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	lsm_store_stats(st, &stats);
	/* Writers queued behind a leader's flush share the next one. */
	if (stats.group_writers < threads * writes ||
	    stats.group_commits >= stats.group_writers)
		FAIL("group commit: %llu commits for %llu writers",
		     (unsigned long long)stats.group_commits,
		     (unsigned long long)stats.group_writers);
	/* Power lost now: every SYNC write returned, so all are there. */
	cut = memdev_power_cut(md, MEMDEV_TEAR, 7);
	EXPECT_OK(lsm_store_close(st));
	st = open_store(memdev_bdev(cut), 0);
	for (unsigned int i = 0; i < threads; i++)
		for (u64 k = 0; k < 10 && k < writes; k++) {
			static u8 vbuf[LSM_VALUE_MAX];
			struct lsm_piece p;
			/* The last i <= writes with i % 10 == k. */
			u64 want = writes - (writes - k) % 10, got;
			EXPECT_OK(lsm_store_get(st, i * 10 + k, &p, vbuf,
						sizeof(vbuf)));
			memcpy(&got, vbuf, 8);
			if (got != want)
				FAIL("thread %u unit %llu: %llu, last written %llu",
				     i, (unsigned long long)k,
				     (unsigned long long)got,
				     (unsigned long long)want);
		}
	EXPECT_OK(lsm_store_close(st));
	printf("test_store: group commit: %u threads x %llu SYNC writes, %llu flushes (%.2f writers each)\n",
	       threads, (unsigned long long)writes,
	       (unsigned long long)stats.group_commits,
	       (double)stats.group_writers / stats.group_commits);
	memdev_destroy(cut);
	memdev_destroy(md);
}

/* The power-cut part: one recorded round. */
struct round {
	u64 nr;			/* writes */
	u64 *durable_at;	/* per write (seq - 1) */
	struct unit (*snap)[UNITS];
};

static unsigned long cuts;

static void record_round(struct memdev *md, struct round *r, u64 nops)
{
	struct lsm_bdev *bdev = memdev_bdev(md);
	struct lsm_store *st;
	struct wop w[MAX_OPS];
	struct lsm_op ops[MAX_OPS];
	u64 synced = 0;
	int err;

	r->durable_at = calloc(nops + 1, sizeof(*r->durable_at));
	r->snap = calloc(nops + 1, sizeof(*r->snap));
	r->nr = 0;
	memdev_record(md);
	st = open_store(bdev, LSM_OPEN_FORMAT);
	for (u64 i = 0; i < nops; i++) {
		unsigned int what = rnd() % 100, n;

		if (what < 85) {
			u64 seq = r->nr + 1;
			bool sync = rnd() % 4 == 0;

			n = make_write(w, seq);
			for (unsigned int j = 0; j < n; j++)
				ops[j] = w[j].op;
			r->durable_at[r->nr] = U64_MAX;
			err = lsm_store_write(st, ops, n,
					      sync ? LSM_WRITE_SYNC : 0);
			if (err)
				FAIL("write: %d", err);
			memcpy(r->snap[seq], r->snap[seq - 1],
			       sizeof(r->snap[0]));
			model_apply(r->snap[seq], seq, ops, n);
			r->nr++;
			if (!sync)
				continue;
		} else if (what < 92) {
			err = lsm_store_sync(st);
			if (err)
				FAIL("sync: %d", err);
		} else if (what < 95) {
			err = lsm_store_flush(st);
			if (err)
				FAIL("flush: %d", err);
		} else if (what < 97) {
			/* A merge makes nothing durable; cuts fall inside it. */
			err = lsm_store_compact(st, rnd() % 2);
			if (err)
				FAIL("compact: %d", err);
			continue;
		} else {
			err = lsm_store_close(st);
			if (err)
				FAIL("close: %d", err);
			st = open_store(bdev, 0);
		}
		for (u64 s = synced; s < r->nr; s++)
			r->durable_at[s] = memdev_events(md);
		synced = r->nr;
	}
	err = lsm_store_close(st);
	if (err)
		FAIL("close: %d", err);
}

static void check_cut(struct round *r, struct memdev *dev, u64 at, int how)
{
	struct lsm_store *st;
	struct lsm_stats stats;
	u64 need = 0;
	int err;

	for (u64 s = 0; s < r->nr; s++)
		if (r->durable_at[s] <= at)
			need = s + 1;
	err = lsm_store_open(memdev_bdev(dev), &small, 0, &st);
	if (err == -EUCLEAN && at < 3)
		return;		/* cut before format was durable */
	if (err)
		FAIL("open after a cut at event %llu (how %d): %d",
		     (unsigned long long)at, how, err);
	lsm_store_stats(st, &stats);
	if (stats.seq < need)
		FAIL("cut at event %llu (how %d): recovered seq %llu, but %llu was acknowledged durable",
		     (unsigned long long)at, how,
		     (unsigned long long)stats.seq, (unsigned long long)need);
	if (stats.seq > r->nr)
		FAIL("cut at event %llu: recovered seq %llu never written",
		     (unsigned long long)at, (unsigned long long)stats.seq);
	check_all(st, r->snap[stats.seq]);
	cuts++;
	err = lsm_store_close(st);
	if (err)
		FAIL("close after recovery: %d", err);
}

static void run_cuts(unsigned long rounds, u64 nops, unsigned long random_cuts)
{
	phase = "power cuts";
	for (unsigned long k = 0; k < rounds; k++) {
		struct memdev *md = memdev_create(NR_BLOCKS, false);
		struct memdev_replay *rp;
		struct round r;
		u64 nev, *points, nr = 0;

		record_round(md, &r, nops);
		nev = memdev_events(md);
		points = calloc(2 * nev + random_cuts + 1, sizeof(*points));
		for (u64 i = 0; i < nev; i++)
			if (memdev_event_kind(md, i) &
			    (MEMDEV_EV_FLUSH | MEMDEV_EV_FUA)) {
				points[nr++] = i;
				points[nr++] = i + 1;
			}
		for (unsigned long i = 0; i < random_cuts; i++)
			points[nr++] = rnd() % (nev + 1);
		for (u64 i = 1; i < nr; i++)
			for (u64 j = i; j && points[j - 1] > points[j]; j--) {
				u64 t = points[j];

				points[j] = points[j - 1];
				points[j - 1] = t;
			}
		rp = memdev_replay_start(md);
		for (u64 i = 0; i < nr; i++) {
			int how = (i + rnd()) % MEMDEV_NR_CUTS;
			struct memdev *cut;

			memdev_replay_advance(rp, points[i]);
			cut = memdev_replay_cut(rp, how, rnd());
			check_cut(&r, cut, points[i], how);
			memdev_destroy(cut);
		}
		memdev_replay_end(rp);
		if (verbose)
			printf("round %lu: %llu writes, %llu events, %llu cuts\n",
			       k, (unsigned long long)r.nr,
			       (unsigned long long)nev, (unsigned long long)nr);
		free(points);
		free(r.durable_at);
		free(r.snap);
		memdev_destroy(md);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'o' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "random", required_argument, NULL, 'c' },
		{ "cache", required_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long nops = 3000, rounds = 1, random_cuts = 150;
	struct timespec t0, t1;
	int c;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "s:o:r:c:b:v", opts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'o': nops = strtoul(optarg, NULL, 0); break;
		case 'r': rounds = strtoul(optarg, NULL, 0); break;
		case 'c': random_cuts = strtoul(optarg, NULL, 0); break;
		case 'b': small.block_cache_bytes = strtoull(optarg, NULL, 0); break;
		case 'v': verbose++; break;
		default:
			fprintf(stderr, "usage: test_store --seed N [--ops N] [--rounds R] [--random C] [--cache BYTES] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	rng_state = seed * 0x9e3779b97f4a7c15ull | 1;
	shim_random_seed(seed);
	shim_rcu_register();
	if (shim_modules_load())
		FAIL("module init");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_refusals();
	run_key_space_ends();
	run_diff(nops);
	store_opts = &small_no_wal;
	run_diff(nops / 4);
	store_opts = &deep;
	run_diff(nops);
	store_opts = &small;
	run_durability();
	run_threads(4, 200);
	run_cuts(rounds, nops / 8, random_cuts);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("test_store: ok: %lu power cuts of the whole store, %.1f s (seed %llu)\n",
	       cuts, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       (unsigned long long)seed);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	return 0;
}
