// SPDX-License-Identifier: GPL-2.0
/*
 * Group commit (lsm_store_commit() in lsm/store.c): concurrent SYNC
 * writers share flushes, every acknowledged write survives a power cut
 * taken right after its acknowledgment, and a failed flush fails every
 * writer it covered.
 *
 * The shared and the failing flush are placed without timing: memdev
 * holds each flush until the test lets it go, and a writer's record is
 * known to be in the log once its write shows in the memtable (the
 * store applies a write to the memtable before it waits for the flush).
 *  - shared: writer 0 leads a flush, held; writers 1..N-1 append behind
 *    it; once it is let go exactly one more flush covers all of them.
 *    Nobody returns before the flush that covers it, and a power cut
 *    while the second flush is held keeps writer 0's write and none of
 *    the others' (point in time: the log's prefix).  Writer N appends
 *    during the second flush: writers 1..N-1 return when it ends, while
 *    writer N's own flush is still held (a covered writer never waits
 *    for the next flush).
 *  - failed: the same, the second flush failing: writers 1..N all get
 *    -EIO, the store is read-only (-EROFS, stats), close says -EIO, and
 *    writer 0's write, acknowledged before, survives.
 *  - stalled flush: after one flush that took 1 s and covered two
 *    writers, a lone SYNC write and a sync each return within 250 ms
 *    (a gathering leader waits 1 ms at most for writers that do not come).
 *  - free-running: N threads of SYNC writes on a device whose flush is
 *    slow; fewer flushes than writes, at least 3/4 of the threads in
 *    each flush on average (the leader gathers the writers coming back),
 *    and a power cut (three ways) at the trace point of each
 *    acknowledgment keeps every write acknowledged by then, per thread
 *    as a prefix of its writes.
 *
 *   test_group_commit --seed N [--threads N] [--writes N]
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include "format.h"
#include "memdev.h"
#include "store.h"
#include "rnd.h"
#include "fail.h"

#define NR_BLOCKS	(2 * LSM_MIN_BLOCKS)
#define MAX_THREADS	8
#define MAX_WRITES	400
#define KEY(t, i)	((u64)(t) * 1000000 + (i))
/* The free-running part's flush: long beside a thread's turn around. */
#define FREE_FLUSH_US	2000

static u64 seed;
static const char *phase = "setup";

static const struct lsm_options opts = {
	.memtable_bytes = 64 * 1024,
	.max_immutables = 2,
	.commit_interval_ms = 5000,	/* no background commit in the way */
};

static struct lsm_store *open_store(struct lsm_bdev *bdev, unsigned int flags)
{
	struct lsm_store *st;
	int err = lsm_store_open(bdev, &opts, flags, &st);

	if (err)
		FAIL("open: %d", err);
	return st;
}

static int put(struct lsm_store *st, u64 key, u64 val, unsigned int flags)
{
	struct lsm_op op = { .kind = LSM_OP_PUT, .key = key, .len = 1,
			     .vlen = sizeof(val), .value = &val };

	return lsm_store_write(st, &op, 1, flags);
}

/* The value at @key, or 0 if none. */
static u64 value_at(struct lsm_store *st, u64 key)
{
	struct lsm_piece p;
	u64 v = 0;
	int err = lsm_store_get(st, key, &p, &v, sizeof(v));

	if (err == -ENOENT)
		return 0;
	if (err)
		FAIL("get %llu: %d", (unsigned long long)key, err);
	return v;
}

/* One SYNC write on its own thread, for the placed tests. */
struct one {
	pthread_t t;
	struct lsm_store *st;
	u64 key;
	int err;
	int done;	/* atomic: the write returned */
};

static void *one_write(void *p)
{
	struct one *o = p;

	shim_rcu_register();
	o->err = put(o->st, o->key, o->key + 1, LSM_WRITE_SYNC);
	__atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
	shim_rcu_unregister();
	return NULL;
}

static void start(struct one *o, struct lsm_store *st, u64 key)
{
	*o = (struct one){ .st = st, .key = key };
	if (pthread_create(&o->t, NULL, one_write, o))
		FAIL("pthread_create");
}

static void wait_visible(struct lsm_store *st, u64 key)
{
	struct timespec ts = { 0, 100000 };

	while (value_at(st, key) != key + 1)
		nanosleep(&ts, NULL);
}

/* Whether @o returns within ten seconds: long for a wakeup, short for a hang. */
static bool returns(struct one *o)
{
	struct timespec ts = { 0, 1000000 };

	for (int i = 0; i < 10000; i++) {
		if (__atomic_load_n(&o->done, __ATOMIC_ACQUIRE)) {
			pthread_join(o->t, NULL);
			return true;
		}
		nanosleep(&ts, NULL);
	}
	return false;
}

/*
 * Writer 0 leads a held flush; writers 1..n-1 append behind it; then the
 * second flush (covering them) is held and let go with @err2.
 */
static void run_placed(unsigned int n, int err2)
{
	struct memdev *md = memdev_create(NR_BLOCKS, true), *cut;
	struct lsm_store *st = open_store(memdev_bdev(md), LSM_OPEN_FORMAT);
	struct one w[MAX_THREADS + 1];
	struct lsm_stats s0, s1;
	u64 f0;

	phase = err2 ? "failed flush" : "shared flush";
	lsm_store_stats(st, &s0);
	f0 = memdev_flushes(md);
	memdev_hold_flushes(md, true);
	start(&w[0], st, KEY(0, 0));
	memdev_wait_held(md, 1);
	for (unsigned int i = 1; i < n; i++)
		start(&w[i], st, KEY(i, 0));
	/* Their records are in the log's open block, behind the flush. */
	for (unsigned int i = 1; i < n; i++)
		wait_visible(st, KEY(i, 0));
	if (__atomic_load_n(&w[0].done, __ATOMIC_ACQUIRE))
		FAIL("writer 0 returned before its flush ended");
	memdev_release_flush(md, 0);
	pthread_join(w[0].t, NULL);
	if (w[0].err)
		FAIL("writer 0: %d", w[0].err);

	/* The next leader's flush covers writers 1..n-1: held now. */
	memdev_wait_held(md, 1);
	for (unsigned int i = 1; i < n; i++)
		if (__atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE))
			FAIL("writer %u returned (%d) before a flush covered it",
			     i, w[i].err);
	if (memdev_flushes(md) - f0 != 1)
		FAIL("%llu flushes for writer 0 alone",
		     (unsigned long long)(memdev_flushes(md) - f0));
	/* Power lost now: writer 0's write is there, the others' not. */
	cut = memdev_power_cut(md, MEMDEV_DROP_ALL, seed);
	{
		struct lsm_store *st2 = open_store(memdev_bdev(cut), 0);

		if (value_at(st2, KEY(0, 0)) != KEY(0, 0) + 1)
			FAIL("writer 0's acknowledged write lost");
		for (unsigned int i = 1; i < n; i++)
			if (value_at(st2, KEY(i, 0)))
				FAIL("writer %u's write, never flushed, is back", i);
		EXPECT_OK(lsm_store_close(st2));
	}
	memdev_destroy(cut);

	/* Writer n appends while the second flush runs. */
	start(&w[n], st, KEY(n, 0));
	wait_visible(st, KEY(n, 0));
	memdev_release_flush(md, err2);
	for (unsigned int i = 1; i < n; i++) {
		if (!returns(&w[i]))
			FAIL("writer %u, covered, still waits (for the next flush?)",
			     i);
		if (w[i].err != (err2 ? -EIO : 0))
			FAIL("writer %u: %d, not %d", i, w[i].err,
			     err2 ? -EIO : 0);
	}
	if (!err2) {
		/* Writer n leads the third flush, held until now. */
		memdev_wait_held(md, 1);
		if (__atomic_load_n(&w[n].done, __ATOMIC_ACQUIRE))
			FAIL("writer %u returned before its flush ended", n);
		memdev_release_flush(md, 0);
	}
	pthread_join(w[n].t, NULL);
	if (w[n].err != (err2 ? -EIO : 0))
		FAIL("writer %u: %d, not %d", n, w[n].err, err2 ? -EIO : 0);
	memdev_hold_flushes(md, false);
	lsm_store_stats(st, &s1);
	if (!err2) {
		/*
		 * n + 1 SYNC writes, three flushes: writer 0's, the one
		 * writers 1..n-1 shared, writer n's.
		 */
		if (memdev_flushes(md) - f0 != 3 ||
		    s1.group_commits - s0.group_commits != 3 ||
		    s1.group_writers - s0.group_writers != n + 1)
			FAIL("%u writers: %llu device flushes, %llu commits for %llu writers, not 3 for %u",
			     n + 1, (unsigned long long)(memdev_flushes(md) - f0),
			     (unsigned long long)(s1.group_commits - s0.group_commits),
			     (unsigned long long)(s1.group_writers - s0.group_writers),
			     n + 1);
	} else {
		if (!s1.read_only)
			FAIL("stats do not say read-only after a failed flush");
		if (s1.group_commits - s0.group_commits != 1)
			FAIL("the failed flush counted as a commit");
		if (put(st, KEY(0, 1), 1, 0) != -EROFS ||
		    put(st, KEY(0, 1), 1, LSM_WRITE_SYNC) != -EROFS)
			FAIL("a write after a failed flush not refused with -EROFS");
		if (lsm_store_sync(st) != -EIO)
			FAIL("sync after a failed flush did not say -EIO");
	}
	/* Power lost after the last acknowledgment. */
	cut = memdev_power_cut(md, MEMDEV_TEAR, seed);
	if (lsm_store_close(st) != err2)
		FAIL("close: not %d", err2);
	st = open_store(memdev_bdev(cut), 0);
	for (unsigned int i = 0; i <= n; i++)
		if ((!i || !err2) && value_at(st, KEY(i, 0)) != KEY(i, 0) + 1)
			FAIL("writer %u's acknowledged write lost", i);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(cut);
	memdev_destroy(md);
	printf("test_group_commit: %s: writer 0 alone, the next %u in one flush%s, one more behind it\n",
	       phase, n - 1, err2 ? " that failed: -EIO to each" : "");
}

/*
 * A flush held STALL_MS (the device stalled once) covering two writers,
 * then one writer alone and a sync: neither waits long for writers that
 * do not come (the gathering leader's wait is capped at 1 ms; half the
 * stalled flush would be STALL_MS / 2).
 */
#define STALL_MS	1000
#define STALL_LIMIT_MS	(STALL_MS / 4)

static void run_stalled(void)
{
	struct memdev *md = memdev_create(NR_BLOCKS, true);
	struct lsm_store *st = open_store(memdev_bdev(md), LSM_OPEN_FORMAT);
	struct timespec hold = { STALL_MS / 1000, (STALL_MS % 1000) * 1000000L };
	struct one w[3];
	u64 t, lone, sync;

	phase = "stalled flush";
	memdev_hold_flushes(md, true);
	start(&w[0], st, KEY(0, 0));
	memdev_wait_held(md, 1);
	start(&w[1], st, KEY(1, 0));
	start(&w[2], st, KEY(2, 0));
	wait_visible(st, KEY(1, 0));
	wait_visible(st, KEY(2, 0));
	memdev_release_flush(md, 0);
	pthread_join(w[0].t, NULL);
	memdev_wait_held(md, 1);	/* the flush covering writers 1 and 2 */
	nanosleep(&hold, NULL);
	memdev_hold_flushes(md, false);
	for (unsigned int i = 0; i < 3; i++) {
		if (i)
			pthread_join(w[i].t, NULL);
		if (w[i].err)
			FAIL("writer %u: %d", i, w[i].err);
	}
	t = ktime_get_ns();
	EXPECT_OK(put(st, KEY(3, 0), KEY(3, 0) + 1, LSM_WRITE_SYNC));
	lone = ktime_get_ns() - t;
	EXPECT_OK(put(st, KEY(3, 1), KEY(3, 1) + 1, 0));
	t = ktime_get_ns();
	EXPECT_OK(lsm_store_sync(st));
	sync = ktime_get_ns() - t;
	if (lone > STALL_LIMIT_MS * 1000000ULL || sync > STALL_LIMIT_MS * 1000000ULL)
		FAIL("after a %d ms flush: a lone SYNC write took %.1f ms, a sync %.1f ms",
		     STALL_MS, lone / 1e6, sync / 1e6);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
	printf("test_group_commit: stalled flush: after a %d ms flush of two writers, a lone SYNC write %.2f ms, a sync %.2f ms\n",
	       STALL_MS, lone / 1e6, sync / 1e6);
}

/* The free-running part: each thread writes its own keys in order. */
struct runner {
	pthread_t t;
	struct lsm_store *st;
	struct memdev *md;
	unsigned int id;
	u64 writes;
	u64 ack_ev[MAX_WRITES];	/* trace length when write i returned */
};

static void *run_writes(void *p)
{
	struct runner *r = p;

	shim_rcu_register();
	for (u64 i = 0; i < r->writes; i++) {
		EXPECT_OK(put(r->st, KEY(r->id, i), i + 1, LSM_WRITE_SYNC));
		r->ack_ev[i] = memdev_events(r->md);
	}
	shim_rcu_unregister();
	return NULL;
}

struct ack {
	u64 ev;
	unsigned int thread;
	u64 write;
};

static int ack_cmp(const void *a, const void *b)
{
	const struct ack *x = a, *y = b;

	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static void run_free(unsigned int threads, u64 writes)
{
	struct memdev *md = memdev_create(NR_BLOCKS, true);
	struct lsm_store *st = open_store(memdev_bdev(md), LSM_OPEN_FORMAT);
	static struct runner r[MAX_THREADS];
	static struct ack acks[MAX_THREADS * MAX_WRITES];
	struct memdev_replay *rep;
	struct lsm_stats s0, s1;
	u64 nacks = 0, f0, rng = seed | 1;
	u64 acked[MAX_THREADS] = { 0 };

	phase = "free-running";
	lsm_store_stats(st, &s0);
	f0 = memdev_flushes(md);
	memdev_flush_delay(md, FREE_FLUSH_US);
	memdev_record(md);
	for (unsigned int t = 0; t < threads; t++) {
		r[t] = (struct runner){ .st = st, .md = md, .id = t,
					.writes = writes };
		if (pthread_create(&r[t].t, NULL, run_writes, &r[t]))
			FAIL("pthread_create");
	}
	for (unsigned int t = 0; t < threads; t++)
		pthread_join(r[t].t, NULL);
	lsm_store_stats(st, &s1);
	if (s1.group_writers - s0.group_writers != threads * writes ||
	    memdev_flushes(md) - f0 >= threads * writes)
		FAIL("%llu flushes for %llu SYNC writes",
		     (unsigned long long)(memdev_flushes(md) - f0),
		     (unsigned long long)(threads * writes));
	/*
	 * The leader gathers: a flush covers nearly every thread.  Without
	 * it a thread that just returned leads the next flush alone while
	 * the others wake (1.37 writers a flush at 2 threads, 2.37 at 4).
	 */
	if ((s1.group_writers - s0.group_writers) * 4 <
	    (s1.group_commits - s0.group_commits) * threads * 3)
		FAIL("%llu flushes for %llu SYNC writes of %u threads: fewer than 3/4 of the threads a flush",
		     (unsigned long long)(s1.group_commits - s0.group_commits),
		     (unsigned long long)(threads * writes), threads);

	for (unsigned int t = 0; t < threads; t++)
		for (u64 i = 0; i < writes; i++)
			acks[nacks++] = (struct ack){ r[t].ack_ev[i], t, i };
	qsort(acks, nacks, sizeof(acks[0]), ack_cmp);
	rep = memdev_replay_start(md);
	for (u64 a = 0; a < nacks; a++) {
		struct memdev *cut;
		struct lsm_store *st2;

		acked[acks[a].thread] = acks[a].write + 1;
		if (a + 1 < nacks && acks[a + 1].ev == acks[a].ev)
			continue;	/* one cut for acks at the same point */
		memdev_replay_advance(rep, acks[a].ev);
		cut = memdev_replay_cut(rep, xorshift64(&rng) % MEMDEV_NR_CUTS,
					xorshift64(&rng));
		st2 = open_store(memdev_bdev(cut), 0);
		for (unsigned int t = 0; t < threads; t++) {
			u64 i = 0;

			/* What came back is a prefix of each thread's writes. */
			while (i < writes && value_at(st2, KEY(t, i)) == i + 1)
				i++;
			if (i < acked[t])
				FAIL("cut at event %llu: thread %u has %llu writes back, %llu acknowledged",
				     (unsigned long long)acks[a].ev, t,
				     (unsigned long long)i,
				     (unsigned long long)acked[t]);
			for (u64 j = i; j < writes; j++)
				if (value_at(st2, KEY(t, j)))
					FAIL("cut at event %llu: thread %u write %llu back after a hole at %llu",
					     (unsigned long long)acks[a].ev, t,
					     (unsigned long long)j,
					     (unsigned long long)i);
		}
		EXPECT_OK(lsm_store_close(st2));
		memdev_destroy(cut);
	}
	memdev_replay_end(rep);
	EXPECT_OK(lsm_store_close(st));
	memdev_destroy(md);
	printf("test_group_commit: free-running: %u threads x %llu SYNC writes, %llu flushes (%.2f writers each), a cut at each acknowledgment\n",
	       threads, (unsigned long long)writes,
	       (unsigned long long)(s1.group_commits - s0.group_commits),
	       (double)(s1.group_writers - s0.group_writers) /
	       (s1.group_commits - s0.group_commits));
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "writes", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long threads = 4, writes = 60;
	int c;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "s:t:w:", lopts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 't': threads = strtoul(optarg, NULL, 0); break;
		case 'w': writes = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: test_group_commit --seed N [--threads N] [--writes N]\n");
			return 2;
		}
	}
	if (threads < 2 || threads > MAX_THREADS || !writes ||
	    writes > MAX_WRITES) {
		fprintf(stderr, "test_group_commit: 2 to %d threads, 1 to %d writes\n",
			MAX_THREADS, MAX_WRITES);
		return 2;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	shim_random_seed(seed);
	shim_rcu_register();
	if (shim_modules_load())
		FAIL("module init");
	run_placed(threads, 0);
	run_placed(threads, -EIO);
	run_stalled();
	run_free(threads, writes);
	printf("test_group_commit: ok (seed %llu)\n", (unsigned long long)seed);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	return 0;
}
