// SPDX-License-Identifier: GPL-2.0
/*
 * A soak of the whole store, in the manner of RocksDB's db_stress with
 * crash_test.py: several threads of random operations against an
 * expected-state oracle, for a set time, with power cuts and reopens at
 * random points, each followed by recovery and a full check, and the
 * soak going on from the recovered store.
 *
 * Each thread owns a region of the key space and is its region's only
 * writer, so that its reads have exact answers: puts of points and
 * ranges, with small and large values, punches, batches, gets, scans of
 * its region; any thread may also sync, flush or merge (the store's
 * merges run on their own besides).  Every write is a batch that also
 * puts the thread's write count at the first unit of its region (its
 * marker), so that after a cut the count recovered there names the
 * prefix of the thread's writes the store kept.
 *
 * After a power cut (at a random point of the device's trace, half the
 * time a flush or FUA point, each of the three ways of memdev), the
 * store must open and pass lsm_store_check(), and:
 *  - each region is exactly the thread's model after the prefix its
 *    marker names (replayed from the model at the cut's epoch start);
 *  - every write acknowledged as durable before the cut is in its
 *    prefix (a SYNC write once returned; any write acknowledged before a
 *    sync or flush that returned);
 *  - the prefixes make one prefix of the store's order: no thread kept
 *    a write that began after another thread's first lost write had
 *    returned (a ticket counter orders the calls).
 *
 *   test_soak --seed N [--seconds S] [--threads T] [-v]
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/rcupdate.h>
#include "format.h"
#include "memdev.h"
#include "store.h"
#include "store_check.h"
#include "rnd.h"

static u64 seed;
static const char *phase = "setup";
static int verbose;

#include "fail.h"

#define MAX_THREADS	8
#define REGION		1024		/* units per thread; unit 0: marker */
#define NR_BLOCKS	(16 * 1024)	/* 64 MiB */
#define MAX_OPS		3
#define BIG_VALUE	5000

/* Small memtables and runs, so that merges fill levels 4 to 6. */
static const struct lsm_options opts = {
	.memtable_bytes = 16 * 1024,
	.max_immutables = 2,
	.commit_interval_ms = 20,
	.l0_compact_runs = 2,
	.run_bytes = 16 * 1024,
};

/* What the model knows of a unit: the write and op that put it. */
struct unit {
	u32 wno;	/* the thread's write number, 0: nothing */
	u32 op;
	u32 vlen;
	u64 key, len;
};

struct wop {
	u32 kind;
	u32 vlen;
	u64 key, len;
};

/* One write of a thread, as the model replays it. */
struct wlog {
	struct wop ops[MAX_OPS];
	unsigned int n;
	u64 t_start, t_end;	/* tickets before the call and after it */
	u64 durable_at;		/* trace event from which it is durable */
};

struct thread {
	unsigned int id;
	u64 base;			/* first unit of the region */
	struct unit model[REGION];	/* now */
	struct unit start[REGION];	/* at the epoch's start */
	u32 wno, start_wno;		/* writes so far, at the epoch's start */
	struct wlog *log;		/* this epoch's writes */
	size_t nlog, caplog;
	u64 rng;
	u64 ops, reads;
	pthread_t t;
};

struct sync_mark {
	u64 t_start;	/* writes that returned before it are durable ... */
	u64 event;	/* ... from this trace event on */
};

static struct thread th[MAX_THREADS];
static unsigned int nthreads = 4;
static struct lsm_store *store;
static struct memdev *dev;
static u64 ticket;			/* atomic */
static struct sync_mark *syncs;
static size_t nsyncs, capsyncs;
static pthread_mutex_t syncs_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop_threads;
static u64 cuts, reopens, epochs, total_writes;

static u64 take_ticket(void)
{
	return __atomic_add_fetch(&ticket, 1, __ATOMIC_SEQ_CST);
}

static u8 value_byte(unsigned int thread, u32 wno, u32 op, u32 i)
{
	return (u8)(thread * 97 + wno * 131 + op * 31 + i * 7 + 1);
}

static void model_apply(struct thread *t, struct unit *m, u32 wno,
			const struct wop *ops, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		for (u64 u = ops[i].key; u < ops[i].key + ops[i].len; u++)
			m[u - t->base] = ops[i].kind == LSM_OP_DELETE ?
				(struct unit){ 0 } :
				(struct unit){ wno, i, ops[i].vlen,
					       ops[i].key, ops[i].len };
	m[0] = (struct unit){ wno, MAX_OPS, 8, t->base, 1 };
}

static bool same(const struct unit *a, const struct unit *b)
{
	return a->wno == b->wno && a->op == b->op;
}

static void check_ext(struct thread *t, const struct lsm_extent *e,
		      const struct unit *u, u64 k, const char *what)
{
	if (e->key != u->key || e->len != u->len || e->vlen != u->vlen ||
	    (e->flags & LSM_EXT_TOMBSTONE))
		FAIL("thread %u %s at %llu: extent [%llu +%llu) vlen %u, model write %u [%llu +%llu) vlen %u",
		     t->id, what, (unsigned long long)k,
		     (unsigned long long)e->key, (unsigned long long)e->len,
		     e->vlen, u->wno, (unsigned long long)u->key,
		     (unsigned long long)u->len, u->vlen);
	if (u->op == MAX_OPS) {		/* the marker */
		u64 v;

		memcpy(&v, e->value, 8);
		if (v != u->wno)
			FAIL("thread %u: marker says %llu, model %u", t->id,
			     (unsigned long long)v, u->wno);
		return;
	}
	for (u32 b = 0; b < e->vlen; b++)
		if (((const u8 *)e->value)[b] != value_byte(t->id, u->wno,
							    u->op, b))
			FAIL("thread %u %s at %llu: value byte %u wrong",
			     t->id, what, (unsigned long long)k, b);
}

static void check_get(struct thread *t, struct lsm_store *st,
		      const struct unit *m, u64 off)
{
	static __thread u8 vbuf[LSM_VALUE_MAX];
	struct lsm_piece p;
	u64 k = t->base + off, from = off, to = off;
	int err = lsm_store_get(st, k, &p, vbuf, sizeof(vbuf));

	if (!m[off].wno) {
		if (err != -ENOENT)
			FAIL("thread %u get %llu: %d where nothing is", t->id,
			     (unsigned long long)k, err);
		return;
	}
	if (err)
		FAIL("thread %u get %llu: %d", t->id, (unsigned long long)k,
		     err);
	check_ext(t, &p.ext, &m[off], k, "get");
	while (from > 0 && same(&m[from - 1], &m[off]))
		from--;
	while (to + 1 < REGION && same(&m[to + 1], &m[off]))
		to++;
	/* The window may reach outside the region only for no one's data. */
	if (p.start != t->base + from || p.len != to - from + 1)
		FAIL("thread %u get %llu: window [%llu +%llu), model [%llu +%llu)",
		     t->id, (unsigned long long)k,
		     (unsigned long long)p.start, (unsigned long long)p.len,
		     (unsigned long long)(t->base + from),
		     (unsigned long long)(to - from + 1));
}

/* Scan the region from @off and compare with @m. */
static void check_scan(struct thread *t, struct lsm_store *st,
		       const struct unit *m, u64 off)
{
	static __thread u8 vbuf[2 * LSM_VALUE_MAX];
	static __thread struct lsm_piece out[32];
	struct lsm_scan_cursor cur = { .pos = t->base + off };
	u64 u = off;

	while (!cur.done && u < REGION) {
		int n = lsm_store_scan(st, &cur, out, 1 + xorshift64(&t->rng) % 32,
				       vbuf, sizeof(vbuf));

		if (n < 0)
			FAIL("thread %u scan: %d", t->id, n);
		for (int i = 0; i < n && u < REGION; i++) {
			u64 s = out[i].start - t->base;
			u64 e = s + out[i].len - 1;

			if (out[i].start >= t->base + REGION)
				return;
			while (u < s) {
				if (m[u].wno)
					FAIL("thread %u scan skipped unit %llu",
					     t->id,
					     (unsigned long long)(t->base + u));
				u++;
			}
			if (e >= REGION || s != u)
				FAIL("thread %u scan: piece out of place at %llu",
				     t->id, (unsigned long long)out[i].start);
			check_ext(t, &out[i].ext, &m[s], out[i].start, "scan");
			for (; u <= e; u++)
				if (!same(&m[u], &m[s]))
					FAIL("thread %u scan: piece [%llu +%llu) but unit %llu differs",
					     t->id,
					     (unsigned long long)out[i].start,
					     (unsigned long long)out[i].len,
					     (unsigned long long)(t->base + u));
		}
		if (!n)
			break;
	}
	for (; u < REGION; u++)
		if (m[u].wno)
			FAIL("thread %u scan ended before unit %llu", t->id,
			     (unsigned long long)(t->base + u));
}

static u32 random_vlen(u64 *rng)
{
	u64 r = xorshift64(rng);

	if (r % 50 == 0)
		return 4100 + r % (BIG_VALUE - 4100);
	return (r >> 8) % (r % 4 ? 120 : 700);
}

static void log_add(struct thread *t, const struct wlog *w)
{
	if (t->nlog == t->caplog) {
		t->caplog = t->caplog ? 2 * t->caplog : 1024;
		t->log = realloc(t->log, t->caplog * sizeof(*t->log));
		if (!t->log)
			FAIL("out of memory");
	}
	t->log[t->nlog++] = *w;
}

static void note_sync(u64 t_start)
{
	u64 ev = memdev_events(dev);

	pthread_mutex_lock(&syncs_lock);
	if (nsyncs == capsyncs) {
		capsyncs = capsyncs ? 2 * capsyncs : 256;
		syncs = realloc(syncs, capsyncs * sizeof(*syncs));
		if (!syncs)
			FAIL("out of memory");
	}
	syncs[nsyncs++] = (struct sync_mark){ t_start, ev };
	pthread_mutex_unlock(&syncs_lock);
}

/* One write: up to MAX_OPS puts and punches, and the marker. */
static void do_write(struct thread *t)
{
	static __thread u8 values[MAX_OPS][BIG_VALUE];
	struct lsm_op ops[MAX_OPS + 1];
	struct wlog w = { .n = 1 + xorshift64(&t->rng) % MAX_OPS };
	u32 wno = t->wno + 1;
	bool sync = xorshift64(&t->rng) % 8 == 0;
	u64 marker = wno;
	int err;

	for (unsigned int i = 0; i < w.n; i++) {
		u64 r = xorshift64(&t->rng);
		u64 len = r % 3 ? 1 : 1 + (r >> 8) % 48;
		struct wop *o = &w.ops[i];

		o->key = t->base + 1 + (r >> 16) % (REGION - len);
		o->len = len;
		o->kind = (r >> 40) % 6 ? LSM_OP_PUT : LSM_OP_DELETE;
		o->vlen = o->kind == LSM_OP_PUT ? random_vlen(&t->rng) : 0;
		for (u32 b = 0; b < o->vlen; b++)
			values[i][b] = value_byte(t->id, wno, i, b);
		ops[i] = (struct lsm_op){ .kind = o->kind, .vlen = o->vlen,
					  .key = o->key, .len = o->len,
					  .value = values[i] };
	}
	ops[w.n] = (struct lsm_op){ .kind = LSM_OP_PUT, .vlen = 8,
				    .key = t->base, .len = 1,
				    .value = &marker };
	w.durable_at = U64_MAX;
	w.t_start = take_ticket();
	err = lsm_store_write(store, ops, w.n + 1, sync ? LSM_WRITE_SYNC : 0);
	w.t_end = take_ticket();
	if (err)
		FAIL("thread %u write %u: %d", t->id, wno, err);
	if (sync)
		w.durable_at = memdev_events(dev);
	t->wno = wno;
	model_apply(t, t->model, wno, w.ops, w.n);
	log_add(t, &w);
}

static void *soak_thread(void *p)
{
	struct thread *t = p;

	shim_rcu_register();
	while (!__atomic_load_n(&stop_threads, __ATOMIC_ACQUIRE)) {
		unsigned int what = xorshift64(&t->rng) % 1000;
		u64 t0;

		t->ops++;
		if (what < 600) {
			do_write(t);
		} else if (what < 850) {
			check_get(t, store, t->model,
				  xorshift64(&t->rng) % REGION);
			t->reads++;
		} else if (what < 900) {
			check_scan(t, store, t->model,
				   xorshift64(&t->rng) % REGION);
			t->reads++;
		} else if (what < 980) {
			t0 = take_ticket();
			EXPECT_OK(lsm_store_sync(store));
			note_sync(t0);
		} else if (what < 995) {
			t0 = take_ticket();
			EXPECT_OK(lsm_store_flush(store));
			note_sync(t0);
		} else {
			EXPECT_OK(lsm_store_compact(store,
						    xorshift64(&t->rng) % 2));
		}
	}
	shim_rcu_unregister();
	return NULL;
}

static void epoch_begin(void)
{
	memdev_record(dev);
	nsyncs = 0;
	for (unsigned int i = 0; i < nthreads; i++) {
		struct thread *t = &th[i];

		memcpy(t->start, t->model, sizeof(t->model));
		t->start_wno = t->wno;
		t->nlog = 0;
	}
}

/* Whether a thread's write @w was durable before trace event @at. */
static bool durable(const struct wlog *w, u64 at)
{
	if (w->durable_at <= at)
		return true;
	for (size_t i = 0; i < nsyncs; i++)
		if (syncs[i].t_start > w->t_end && syncs[i].event <= at)
			return true;
	return false;
}

/* Read a thread's marker in @st: the writes of its the store kept. */
static u32 read_marker(struct thread *t, struct lsm_store *st)
{
	struct lsm_piece p;
	u64 v = 0;
	int err = lsm_store_get(st, t->base, &p, &v, sizeof(v));

	if (err == -ENOENT)
		return 0;
	if (err || p.ext.vlen != 8)
		FAIL("thread %u marker: %d, vlen %u", t->id, err, p.ext.vlen);
	return (u32)v;
}

/*
 * After a cut at trace event @at, check the store opened on it, and
 * make it the soak's from now on: every region the model after its
 * prefix, every durable write kept, the prefixes one prefix in time.
 */
static void check_recovered(struct lsm_store *st, u64 at)
{
	u32 kept[MAX_THREADS];

	EXPECT_OK(lsm_store_check(st));
	for (unsigned int i = 0; i < nthreads; i++) {
		struct thread *t = &th[i];
		u32 p = read_marker(t, st);

		if (p < t->start_wno || p > t->wno)
			FAIL("thread %u: marker %u outside [%u, %u]", t->id, p,
			     t->start_wno, t->wno);
		for (u32 w = p + 1; w <= t->wno; w++)
			if (durable(&t->log[w - 1 - t->start_wno], at))
				FAIL("thread %u: write %u durable before event %llu, lost (kept %u)",
				     t->id, w, (unsigned long long)at, p);
		/* The model after the prefix, replayed from the epoch's start. */
		memcpy(t->model, t->start, sizeof(t->model));
		for (u32 w = t->start_wno + 1; w <= p; w++) {
			const struct wlog *l = &t->log[w - 1 - t->start_wno];

			model_apply(t, t->model, w, l->ops, l->n);
		}
		kept[i] = p;
	}
	/* No write kept that began after a lost write had returned. */
	for (unsigned int a = 0; a < nthreads; a++) {
		const struct thread *ta = &th[a];
		u64 lost_end;

		if (kept[a] == ta->wno)
			continue;
		lost_end = ta->log[kept[a] - ta->start_wno].t_end;
		for (unsigned int b = 0; b < nthreads; b++) {
			const struct thread *tb = &th[b];

			if (kept[b] > tb->start_wno &&
			    tb->log[kept[b] - 1 - tb->start_wno].t_start > lost_end)
				FAIL("thread %u kept write %u, begun after thread %u's lost write %u returned",
				     tb->id, kept[b], ta->id, kept[a] + 1);
		}
	}
	for (unsigned int i = 0; i < nthreads; i++) {
		struct thread *t = &th[i];

		t->wno = kept[i];
		check_scan(t, st, t->model, 0);
		for (u64 off = 0; off < REGION; off += 1 + xorshift64(&t->rng) % 8)
			check_get(t, st, t->model, off);
	}
}

static void cut_and_recover(void)
{
	u64 nev = memdev_events(dev), at = 0;
	enum memdev_cut how = xorshift64(&th[0].rng) % MEMDEV_NR_CUTS;
	struct memdev_replay *rp;
	struct memdev *cut;
	struct lsm_store *st;

	/* Half the time at a flush or FUA point, else anywhere. */
	for (int tries = 0; tries < 64 && nev; tries++) {
		at = xorshift64(&th[0].rng) % (nev + 1);
		if (xorshift64(&th[0].rng) % 2 || at == nev ||
		    memdev_event_kind(dev, at) &
		    (MEMDEV_EV_FLUSH | MEMDEV_EV_FUA))
			break;
	}
	rp = memdev_replay_start(dev);
	memdev_replay_advance(rp, at);
	cut = memdev_replay_cut(rp, how, xorshift64(&th[0].rng));
	memdev_replay_end(rp);
	EXPECT_OK(lsm_store_close(store));
	memdev_destroy(dev);
	dev = cut;
	if (lsm_store_open(memdev_bdev(dev), &opts, 0, &st))
		FAIL("open after a cut at event %llu of %llu (how %d)",
		     (unsigned long long)at, (unsigned long long)nev, how);
	check_recovered(st, at);
	store = st;
	cuts++;
	if (verbose)
		printf("cut at event %llu of %llu (how %d)\n",
		       (unsigned long long)at, (unsigned long long)nev, how);
}

static void reopen(void)
{
	EXPECT_OK(lsm_store_close(store));
	EXPECT_OK(lsm_store_open(memdev_bdev(dev), &opts, 0, &store));
	/* Everything was durable: the recovered state is all of it. */
	for (unsigned int i = 0; i < nthreads; i++)
		if (read_marker(&th[i], store) != th[i].wno)
			FAIL("thread %u: reopen kept %u of %u writes", th[i].id,
			     read_marker(&th[i], store), th[i].wno);
	check_recovered(store, U64_MAX);
	reopens++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "threads", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	double seconds = 60, t0, end;
	struct lsm_stats s;
	unsigned int levels_seen = 0;
	u64 rng, merges = 0;
	int c;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "s:S:t:v", lopts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'S': seconds = strtod(optarg, NULL); break;
		case 't': nthreads = strtoul(optarg, NULL, 0); break;
		case 'v': verbose++; break;
		default:
			fprintf(stderr, "usage: test_soak --seed N [--seconds S] [--threads T] [-v]\n");
			return 2;
		}
	}
	if (!nthreads || nthreads > MAX_THREADS)
		nthreads = 4;
	setvbuf(stdout, NULL, _IONBF, 0);
	rng = seed * 0x9e3779b97f4a7c15ull | 1;
	shim_random_seed(seed);
	shim_rcu_register();
	if (shim_modules_load())
		FAIL("module init");
	for (unsigned int i = 0; i < nthreads; i++) {
		th[i].id = i;
		th[i].base = (u64)i * REGION * 4;	/* gaps between regions */
		th[i].rng = xorshift64(&rng) | 1;
	}
	dev = memdev_create(NR_BLOCKS, true);
	EXPECT_OK(lsm_store_open(memdev_bdev(dev), &opts, LSM_OPEN_FORMAT,
				 &store));
	phase = "soak";
	t0 = now();
	end = t0 + seconds;
	while (now() < end) {
		double len = 0.2 + (xorshift64(&rng) % 1800) / 1000.0;

		epoch_begin();
		__atomic_store_n(&stop_threads, 0, __ATOMIC_RELEASE);
		for (unsigned int i = 0; i < nthreads; i++)
			if (pthread_create(&th[i].t, NULL, soak_thread, &th[i]))
				FAIL("pthread_create");
		for (double stop = now() + len; now() < stop && now() < end;) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		__atomic_store_n(&stop_threads, 1, __ATOMIC_RELEASE);
		for (unsigned int i = 0; i < nthreads; i++) {
			pthread_join(th[i].t, NULL);
			total_writes += th[i].nlog;
		}
		epochs++;
		lsm_store_stats(store, &s);
		merges += s.compactions;
		for (unsigned int k = 0; k < LSM_LEVELS; k++)
			if (s.level_runs[k])
				levels_seen |= 1U << k;
		if (xorshift64(&rng) % 3)
			cut_and_recover();
		else
			reopen();
	}
	lsm_store_stats(store, &s);
	printf("test_soak: ok: %.0f s, %u threads, %llu epochs, %llu writes, %llu power cuts, %llu reopens, %llu merges, levels seen %#x; last life: %llu runs (levels 0-6: %llu %llu %llu %llu %llu %llu %llu), %llu stalls (seed %llu)\n",
	       now() - t0, nthreads, (unsigned long long)epochs,
	       (unsigned long long)total_writes, (unsigned long long)cuts,
	       (unsigned long long)reopens, (unsigned long long)merges,
	       levels_seen, (unsigned long long)s.runs,
	       (unsigned long long)s.level_runs[0],
	       (unsigned long long)s.level_runs[1],
	       (unsigned long long)s.level_runs[2],
	       (unsigned long long)s.level_runs[3],
	       (unsigned long long)s.level_runs[4],
	       (unsigned long long)s.level_runs[5],
	       (unsigned long long)s.level_runs[6],
	       (unsigned long long)s.stalls, (unsigned long long)seed);
	EXPECT_OK(lsm_store_close(store));
	memdev_destroy(dev);
	for (unsigned int i = 0; i < nthreads; i++)
		free(th[i].log);
	free(syncs);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	return 0;
}
