// SPDX-License-Identifier: GPL-2.0
/*
 * Power cuts under the store's durable core (log, superblocks, manifest,
 * recovery; logstore.h) on the in-memory device.
 *
 * Each round runs random writes of extents (puts and punches of 1 to 4
 * operations each, some with SYNC), syncs and reopens on a recording
 * memdev, then cuts power at every flush and FUA point of the trace (in
 * flight and just completed) and at random points, each cut in every way
 * memdev knows (drop all unflushed writes, a random subset, a torn write
 * at a 512-byte boundary).  After each cut it opens the device again and
 * checks that:
 *  - the manifest's and the allocator's invariants hold;
 *  - the recovered state is exactly the model's after the writes up to
 *    the last replayed sequence number (a prefix: no holes, nothing
 *    invented, every value byte right);
 *  - that prefix includes every write acknowledged as durable before the
 *    cut (SYNC writes that returned, writes before a sync or close);
 * and, after one cut in four, writes more, reopens, and checks again, so
 * that a store recovered from a cut also survives its next life.
 *
 *   test_powercut --seed N [--rounds R] [--writes W] [--random C] [-v]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/rcupdate.h>
#include "logstore.h"
#include "memdev.h"
#include "rnd.h"

#define UNITS		96	/* the key space of the model */
#define NR_BLOCKS	LSM_MIN_BLOCKS
#define SEG_BLOCKS	16	/* small: segment changes happen often */
#define MAX_OPS		4

static u64 seed, round_seed;
static int verbose;

#define FAIL(fmt, ...) do {						\
	fprintf(stderr, "test_powercut: FAIL: " fmt			\
		" (reproduce: test_powercut --seed %llu)\n", ##__VA_ARGS__,	\
		(unsigned long long)seed);				\
	exit(1);							\
} while (0)

static u64 rng_state;

static u64 rnd(void)
{
	return xorshift64(&rng_state);
}

/* What a unit shows: written by which write (seq) and which of its ops. */
struct unit {
	u64 seq;	/* 0: nothing */
	u32 op;
	u64 key, len;	/* the extent as put */
	u32 vlen;
};

struct wop {
	struct lsm_op op;
	u8 value[64];
};

struct write {
	unsigned int n;
	struct wop ops[MAX_OPS];
	u64 durable_at;		/* trace event from which it is durable */
};

static u8 value_byte(u64 seq, u32 op, u32 i)
{
	return (u8)(seq * 131 + op * 31 + i * 7 + 1);
}

static void model_apply(struct unit *m, u64 seq, const struct lsm_op *ops,
			unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		for (u64 u = ops[i].key; u < ops[i].key + ops[i].len; u++) {
			if (ops[i].kind == LSM_OP_DELETE)
				m[u] = (struct unit){ 0 };
			else
				m[u] = (struct unit){ seq, i, ops[i].key,
						      ops[i].len, ops[i].vlen };
		}
	}
}

struct recovered {
	struct unit m[UNITS];
	u64 last_seq;
};

static int recover_apply(void *priv, u64 seq, const struct lsm_op *ops,
			 unsigned int n)
{
	struct recovered *r = priv;

	for (unsigned int i = 0; i < n; i++) {
		if (ops[i].key + ops[i].len > UNITS)
			FAIL("replayed op outside the key space at seq %llu",
			     (unsigned long long)seq);
		for (u32 b = 0; b < ops[i].vlen; b++)
			if (((const u8 *)ops[i].value)[b] !=
			    value_byte(seq, i, b))
				FAIL("value byte %u of seq %llu op %u is wrong",
				     b, (unsigned long long)seq, i);
	}
	model_apply(r->m, seq, ops, n);
	r->last_seq = seq;
	return 0;
}

/* The workload of one round, and what it acknowledged. */
struct round {
	struct write *w;	/* w[seq - 1] */
	u64 nr;
	struct unit (*snap)[UNITS];	/* model after seq s: snap[s] */
};

static void make_write(struct write *w, u64 seq)
{
	w->n = 1 + rnd() % MAX_OPS;
	for (unsigned int i = 0; i < w->n; i++) {
		struct wop *o = &w->ops[i];
		u64 len = rnd() % 4 ? 1 + rnd() % 4 : 1 + rnd() % 24;

		o->op.key = rnd() % (UNITS - len + 1);
		o->op.len = len;
		o->op.kind = rnd() % 5 ? LSM_OP_PUT : LSM_OP_DELETE;
		o->op.vlen = o->op.kind == LSM_OP_PUT ? rnd() % 64 : 0;
		for (u32 b = 0; b < o->op.vlen; b++)
			o->value[b] = value_byte(seq, i, b);
		o->op.value = o->value;
	}
}

static int ignore_apply(void *priv, u64 seq, const struct lsm_op *ops,
			unsigned int n)
{
	return 0;
}

/* Run the workload on @md, recording; fills in @r. */
static void run_round(struct memdev *md, struct round *r, u64 writes)
{
	struct lsm_bdev *bdev = memdev_bdev(md);
	struct logstore ls;
	u64 synced = 0;		/* writes up to this seq are durable */
	int err;

	r->w = calloc(writes, sizeof(*r->w));
	r->snap = calloc(writes + 1, sizeof(*r->snap));
	r->nr = 0;
	err = logstore_format(bdev, rnd(), SEG_BLOCKS);
	if (err)
		FAIL("format: %d", err);
	memdev_record(md);
	err = logstore_open(&ls, bdev, ignore_apply, NULL);
	if (err)
		FAIL("open: %d", err);
	while (r->nr < writes) {
		u64 seq = r->nr + 1;
		struct write *w = &r->w[r->nr];
		struct lsm_op ops[MAX_OPS];
		unsigned int what = rnd() % 100;
		bool sync = what < 30;

		if (what >= 97) {
			/* Reopen: close syncs everything written. */
			err = logstore_close(&ls, true);
			if (err)
				FAIL("close: %d", err);
			for (u64 s = synced; s < r->nr; s++)
				r->w[s].durable_at = memdev_events(md);
			synced = r->nr;
			err = logstore_open(&ls, bdev, ignore_apply, NULL);
			if (err)
				FAIL("reopen: %d", err);
			continue;
		}
		if (what >= 93) {
			err = logstore_sync(&ls);
			if (err)
				FAIL("sync: %d", err);
			for (u64 s = synced; s < r->nr; s++)
				r->w[s].durable_at = memdev_events(md);
			synced = r->nr;
			continue;
		}
		make_write(w, seq);
		for (unsigned int i = 0; i < w->n; i++)
			ops[i] = w->ops[i].op;
		w->durable_at = U64_MAX;
		if (ls.next_seq != seq)
			FAIL("store's seq %llu, expected %llu",
			     (unsigned long long)ls.next_seq,
			     (unsigned long long)seq);
		err = logstore_write(&ls, ops, w->n, sync);
		if (err)
			FAIL("write: %d", err);
		memcpy(r->snap[seq], r->snap[seq - 1], sizeof(r->snap[0]));
		model_apply(r->snap[seq], seq, ops, w->n);
		r->nr++;
		if (sync) {
			for (u64 s = synced; s < r->nr; s++)
				r->w[s].durable_at = memdev_events(md);
			synced = r->nr;
		}
	}
	err = logstore_close(&ls, false);
	if (err)
		FAIL("close: %d", err);
}

static unsigned long cuts, lives;

/* Open @dev after a cut at event @at, and check what it recovered. */
static void check_cut(struct round *r, struct memdev *dev, u64 at,
		      enum memdev_cut how, bool live_on)
{
	struct lsm_bdev *bdev = memdev_bdev(dev);
	struct recovered rec = { .last_seq = 0 };
	struct logstore ls;
	u64 need = 0;
	int err;

	for (u64 s = 0; s < r->nr; s++)
		if (r->w[s].durable_at <= at)
			need = s + 1;
	err = logstore_open(&ls, bdev, recover_apply, &rec);
	if (err)
		FAIL("open after a cut at event %llu (how %d): %d",
		     (unsigned long long)at, how, err);
	cuts++;
	if (ls.next_seq - 1 != rec.last_seq && rec.last_seq)
		FAIL("next seq %llu after replaying up to %llu",
		     (unsigned long long)ls.next_seq,
		     (unsigned long long)rec.last_seq);
	if (rec.last_seq < need)
		FAIL("cut at event %llu (how %d): recovered up to seq %llu, but seq %llu was acknowledged durable",
		     (unsigned long long)at, how,
		     (unsigned long long)rec.last_seq, (unsigned long long)need);
	if (rec.last_seq > r->nr)
		FAIL("recovered seq %llu never written",
		     (unsigned long long)rec.last_seq);
	if (memcmp(rec.m, r->snap[rec.last_seq], sizeof(rec.m)))
		FAIL("cut at event %llu (how %d): state differs from the model after seq %llu",
		     (unsigned long long)at, how,
		     (unsigned long long)rec.last_seq);
	if (verbose > 1)
		printf("cut %llu how %d: seq %llu (need %llu)\n",
		       (unsigned long long)at, how,
		       (unsigned long long)rec.last_seq,
		       (unsigned long long)need);
	if (!live_on) {
		err = logstore_close(&ls, false);
		if (err)
			FAIL("close after recovery: %d", err);
		return;
	}
	/* Its next life: more writes, a close, a reopen: all of it there. */
	{
		struct unit model[UNITS];
		struct recovered again = { .last_seq = 0 };
		struct write w;
		struct lsm_op ops[MAX_OPS];
		u64 seq = ls.next_seq;

		memcpy(model, rec.m, sizeof(model));
		for (int k = 0; k < 3; k++, seq++) {
			make_write(&w, seq);
			for (unsigned int i = 0; i < w.n; i++)
				ops[i] = w.ops[i].op;
			err = logstore_write(&ls, ops, w.n, k == 1);
			if (err)
				FAIL("write after recovery: %d", err);
			model_apply(model, seq, ops, w.n);
		}
		err = logstore_close(&ls, true);
		if (err)
			FAIL("close after recovery: %d", err);
		err = logstore_open(&ls, bdev, recover_apply, &again);
		if (err)
			FAIL("reopen after recovery: %d", err);
		/* Replay starts over from the first live segment. */
		if (again.last_seq != seq - 1 ||
		    memcmp(again.m, model, sizeof(model)))
			FAIL("cut at event %llu (how %d): the life after recovery lost writes (seq %llu of %llu)",
			     (unsigned long long)at, how,
			     (unsigned long long)again.last_seq,
			     (unsigned long long)(seq - 1));
		logstore_close(&ls, false);
		lives++;
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "writes", required_argument, NULL, 'w' },
		{ "random", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long rounds = 6, writes = 400, random_cuts = 300;
	struct timespec t0, t1;
	int c;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "s:r:w:c:v", opts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'r': rounds = strtoul(optarg, NULL, 0); break;
		case 'w': writes = strtoul(optarg, NULL, 0); break;
		case 'c': random_cuts = strtoul(optarg, NULL, 0); break;
		case 'v': verbose++; break;
		default:
			fprintf(stderr, "usage: test_powercut --seed N [--rounds R] [--writes W] [--random C] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	shim_rcu_register();
	if (shim_modules_load())
		FAIL("module init");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long k = 0; k < rounds; k++) {
		struct memdev *md = memdev_create(NR_BLOCKS, false);
		struct memdev_replay *rp;
		struct round r;
		u64 nev, *points, nr_points = 0;

		round_seed = seed * 1000003 + k;
		rng_state = round_seed * 0x9e3779b97f4a7c15ull | 1;
		run_round(md, &r, k == 0 ? writes / 4 : writes);
		nev = memdev_events(md);
		points = calloc(2 * nev + random_cuts + 1, sizeof(*points));
		/* Every flush and FUA point, in flight and completed ... */
		for (u64 i = 0; i < nev; i++) {
			if (memdev_event_kind(md, i) &
			    (MEMDEV_EV_FLUSH | MEMDEV_EV_FUA)) {
				points[nr_points++] = i;
				points[nr_points++] = i + 1;
			}
		}
		/* ... and random points, in order. */
		for (unsigned long i = 0; i < random_cuts; i++)
			points[nr_points++] = rnd() % (nev + 1);
		for (u64 i = 1; i < nr_points; i++)
			for (u64 j = i; j && points[j - 1] > points[j]; j--) {
				u64 t = points[j];

				points[j] = points[j - 1];
				points[j - 1] = t;
			}
		rp = memdev_replay_start(md);
		for (u64 i = 0; i < nr_points; i++) {
			enum memdev_cut how = i % MEMDEV_NR_CUTS;

			memdev_replay_advance(rp, points[i]);
			for (int h = 0; h < MEMDEV_NR_CUTS; h++, how++) {
				struct memdev *cut;

				how %= MEMDEV_NR_CUTS;
				cut = memdev_replay_cut(rp, how, rnd());
				check_cut(&r, cut, points[i], how,
					  !(rnd() % 4));
				memdev_destroy(cut);
			}
		}
		memdev_replay_end(rp);
		if (verbose)
			printf("round %lu: %llu writes, %llu events, %llu cut points\n",
			       k, (unsigned long long)r.nr,
			       (unsigned long long)nev,
			       (unsigned long long)nr_points);
		free(points);
		free(r.w);
		free(r.snap);
		memdev_destroy(md);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fflush(stdout);
	printf("test_powercut: ok: %lu cuts (%lu lived on), %lu rounds, %.1f s (seed %llu)\n",
	       cuts, lives, rounds, (t1.tv_sec - t0.tv_sec) +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9, (unsigned long long)seed);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	return 0;
}
