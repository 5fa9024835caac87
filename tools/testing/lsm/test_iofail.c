// SPDX-License-Identifier: GPL-2.0
/*
 * The store on a device whose writes, flushes and reads fail (memdev's
 * memdev_fail_io()): at a random point of a random workload, the Nth
 * next read, write or flush fails with -EIO, once or from then on, and
 * a failed write or flush may still land (the media got it, the
 * completion was lost).  What must hold:
 *  - a write or flush that failed is never acknowledged: the call that
 *    met it returns -EIO, and the store turns read-only (writes -EROFS,
 *    flush and close -EIO, sync -EIO unless every write was durable
 *    already); so does a failed read of a run the store has just
 *    written (it reads it back before recording it);
 *  - a failed read is -EIO for that call only (or for the attach that
 *    met it); the store stays writable; no answer is ever wrong;
 *  - a power cut after the failure, and a fresh attach of the device
 *    as it is (the failures over), each recover the model's state after
 *    some write that includes every write acknowledged as durable;
 *  - nothing leaks (ASan), whatever failed, attach included.
 *
 * The store's work items race the failures, so a seed does not always
 * bring a round back: a failing run prints the round's operations.
 *
 *   test_iofail --seed N [--rounds N] [--ops N] [-v]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/rcupdate.h>
#include "format.h"
#include "memdev.h"
#include "model.h"
#include "rnd.h"
#include "store.h"
#include "fail.h"

#define NR_BLOCKS	(2 * LSM_MIN_BLOCKS)

static u64 seed;
static const char *phase = "setup";
static int verbose;
static u64 rng_state;

static u64 rnd(void)
{
	return xorshift64(&rng_state);
}

static const struct lsm_options opts = {
	.memtable_bytes = 6 * 1024,
	.max_immutables = 2,
	.commit_interval_ms = 3600000,
};

/* The failures a round arms, as memdev_fail_io() takes them. */
static const unsigned int hows[] = {
	MEMDEV_IO_WRITE,
	MEMDEV_IO_FLUSH,
	MEMDEV_IO_READ,
	MEMDEV_IO_WRITE | MEMDEV_IO_LANDS,
	MEMDEV_IO_FLUSH | MEMDEV_IO_LANDS,
	MEMDEV_IO_WRITE | MEMDEV_IO_FLUSH | MEMDEV_IO_READ,
};

static const char *how_name(unsigned int how)
{
	static char name[64];

	snprintf(name, sizeof(name), "%s%s%s%s",
		 how & MEMDEV_IO_READ ? "read " : "",
		 how & MEMDEV_IO_WRITE ? "write " : "",
		 how & MEMDEV_IO_FLUSH ? "flush " : "",
		 how & MEMDEV_IO_LANDS ? "(landing) " : "");
	return name;
}

static struct model_history hist;

/*
 * What the round did, printed when it fails: the failures are random
 * and the store's work items run on their own threads, so a seed alone
 * does not always bring the same round back.
 */
static char trace[1 << 16];
static size_t trace_len;
static bool finished;

#define TRACE(fmt, ...) do {						\
	if (trace_len < sizeof(trace) - 1)				\
		trace_len += snprintf(trace + trace_len,		\
				      sizeof(trace) - trace_len,	\
				      fmt " ", ##__VA_ARGS__);		\
	if (trace_len > sizeof(trace) - 1)				\
		trace_len = sizeof(trace) - 1;				\
} while (0)

static void trace_print(void)
{
	if (!finished && trace_len)
		fprintf(stderr, "the failed round: %.*s\n", (int)trace_len,
			trace);
}

/* Counters over all rounds. */
static unsigned long rounds_ro, rounds_rw, failed_attaches, read_errors;
static unsigned long cut_checks, fresh_checks, ops_done;

/* Wait until no memtable waits to be written, or the store failed. */
static void settle(struct lsm_store *st)
{
	struct lsm_stats s;

	for (int i = 0;; i++) {
		lsm_store_stats(st, &s);
		if (!s.immutables || s.read_only)
			return;
		if (i > 100000)
			FAIL("the store does not settle");
		usleep(100);
	}
}

static bool read_only(struct lsm_store *st)
{
	struct lsm_stats s;

	lsm_store_stats(st, &s);
	return s.read_only;
}

/* Whether the store turns read-only within 10 s. */
static bool wait_read_only(struct lsm_store *st)
{
	for (int i = 0; i < 100000; i++) {
		if (read_only(st))
			return true;
		usleep(100);
	}
	return false;
}

/* After a failure: the model's state after a write, every durable one. */
static void check_recovered(struct lsm_bdev *b, u64 durable, const char *what)
{
	struct lsm_store *st;
	struct model_verdict v;
	struct lsm_stats s;
	int err = lsm_store_open(b, &opts, 0, &st);

	if (err)
		FAIL("%s: attach: %d", what, err);
	lsm_store_stats(st, &s);
	if (s.seq < durable || s.seq > hist.nr)
		FAIL("%s: recovered seq %llu, durable %llu, written %llu", what,
		     (unsigned long long)s.seq, (unsigned long long)durable,
		     (unsigned long long)hist.nr);
	model_verify(st, &hist.snap[s.seq], &rng_state, &v);
	if (v.wrong || v.errors)
		FAIL("%s: recovered seq %llu: %s (%u errors)", what,
		     (unsigned long long)s.seq, v.why, v.errors);
	err = lsm_store_close(st);
	if (err)
		FAIL("%s: close: %d", what, err);
}

static void round_run(unsigned long r, u64 nops)
{
	static struct model_write w;
	struct memdev *md = memdev_create(NR_BLOCKS, true), *cut;
	struct lsm_bdev *b = memdev_bdev(md);
	unsigned int how = hows[rnd() % ARRAY_SIZE(hows)];
	u64 arm_at = rnd() % nops, durable = 0;
	bool armed = false, ro = false, closed = false, reopen;
	u64 failed;
	unsigned int cut_how;
	struct lsm_store *st;
	int err;

	phase = "workload";
	trace_len = 0;
	TRACE("round %lu, %s:", r, how_name(how));
	model_history_init(&hist);
	EXPECT_OK(lsm_store_open(b, &opts, LSM_OPEN_FORMAT, &st));
	for (u64 i = 0; i < nops; i++) {
		unsigned int what = rnd() % 100;
		struct lsm_stats s;
		u64 before;

		if (i == arm_at) {
			/* Once, or from then on; skip a few first. */
			u64 skip = rnd() % 20, count = rnd() % 2 ? 1 : U64_MAX;

			memdev_fail_io(md, how, skip, count);
			TRACE("armed(skip %llu, %s)", (unsigned long long)skip,
			      count == 1 ? "once" : "always");
			armed = true;
			phase = how_name(how);
		}
		ops_done++;
		failed = memdev_io_failed(md);
		reopen = false;
		if (what < 70) {
			bool sync = rnd() % 5 == 0;

			lsm_store_stats(st, &s);
			before = s.seq;
			model_make_write(&w, before + 1, &rng_state);
			err = lsm_store_write(st, w.ops, w.n,
					      sync ? LSM_WRITE_SYNC : 0);
			lsm_store_stats(st, &s);
			/* A write that took a sequence number is in the history. */
			if (s.seq == before + 1)
				model_history_add(&hist, w.ops, w.n);
			else if (s.seq != before)
				FAIL("a write moved seq from %llu to %llu",
				     (unsigned long long)before,
				     (unsigned long long)s.seq);
			if (err && err != -EIO && err != -EROFS)
				FAIL("write: %d", err);
			if (!err && sync)
				durable = hist.nr;
			TRACE("w%llu%s=%d", (unsigned long long)s.seq,
			      sync ? "s" : "", err);
			if (err && !s.read_only)
				FAIL("write failed (%d), store not read-only",
				     err);
		} else if (what < 80) {
			struct model_verdict v;

			model_verify(st, &hist.snap[hist.nr], &rng_state, &v);
			TRACE("verify(%u errors)", v.errors);
			if (v.wrong)
				FAIL("reads: %s", v.why);
			if (v.euclean)
				FAIL("reads: -EUCLEAN from an undamaged device");
			if (v.errors && !(how & MEMDEV_IO_READ))
				FAIL("reads: %d with no read failing",
				     v.first_err);
			read_errors += v.errors;
		} else if (what < 90) {
			err = lsm_store_sync(st);
			TRACE("sync=%d", err);
			if (!err)
				durable = hist.nr;
			else if (err != -EIO || !read_only(st))
				FAIL("sync: %d", err);
		} else if (what < 95) {
			err = lsm_store_flush(st);
			TRACE("flush=%d", err);
			if (!err)
				durable = hist.nr;
			else if (err != -EIO || !read_only(st))
				FAIL("flush: %d", err);
		} else {
			reopen = true;
			err = lsm_store_close(st);
			TRACE("close=%d", err);
			if (!err)
				durable = hist.nr;
			else if (err != -EIO)
				FAIL("close: %d", err);
			err = lsm_store_open(b, &opts, 0, &st);
			TRACE("open=%d", err);
			if (err && (!armed || (err != -EIO && err != -ENOMEM)))
				FAIL("attach: %d", err);
			if (err) {
				/* Refused cleanly; again with the device well. */
				failed_attaches++;
				memdev_fail_io(md, 0, 0, 0);
				armed = false;
				EXPECT_OK(lsm_store_open(b, &opts, 0, &st));
			}
			/*
			 * After a close that failed, what the device holds:
			 * the writes up to some point, every durable one.
			 */
			lsm_store_stats(st, &s);
			TRACE("seq %llu", (unsigned long long)s.seq);
			if (s.seq < durable || s.seq > hist.nr)
				FAIL("attach: recovered seq %llu, durable %llu, written %llu",
				     (unsigned long long)s.seq,
				     (unsigned long long)durable,
				     (unsigned long long)hist.nr);
			hist.nr = s.seq;
			ro = false;
		}
		settle(st);
		ro = read_only(st);
		if (memdev_io_failed(md) > failed)
			TRACE("[%llu failed%s]",
			      (unsigned long long)memdev_io_failed(md),
			      ro ? ", read-only" : "");
		/*
		 * A failed write or flush turns the store read-only (one at
		 * a close is the close's -EIO, and the attach after it
		 * starts afresh).  A background merge may still be running
		 * once the flushes settled: its write can fail just now, and
		 * the merge marks the store a moment later.
		 */
		if (memdev_io_failed(md) > failed && !reopen && !ro &&
		    !(how & MEMDEV_IO_READ))
			ro = wait_read_only(st);
		if (memdev_io_failed(md) > failed && !reopen && !ro &&
		    !(how & MEMDEV_IO_READ))
			FAIL("a %sfailure and the store is still writable",
			     how_name(how));
		if (ro && !memdev_io_failed(md))
			FAIL("read-only without a failure");
		if (ro) {
			model_make_write(&w, hist.nr + 1, &rng_state);
			if (lsm_store_write(st, w.ops, w.n, 0) != -EROFS)
				FAIL("a write on a read-only store not -EROFS");
			/* 0 only if every write it took was durable before. */
			err = lsm_store_sync(st);
			TRACE("ro-sync=%d", err);
			if (!err)
				durable = hist.nr;
			else if (err != -EIO)
				FAIL("sync of a read-only store: %d", err);
			if (lsm_store_flush(st) != -EIO)
				FAIL("flush of a read-only store not -EIO");
			break;
		}
	}
	phase = "close";
	err = lsm_store_close(st);
	TRACE("close=%d durable %llu", err, (unsigned long long)durable);
	if (ro && err != -EIO)
		FAIL("close of a read-only store: %d", err);
	if (!err)
		durable = hist.nr;
	else if (err != -EIO)
		FAIL("close: %d", err);
	closed = !err;
	if (ro || err)
		rounds_ro++;
	else
		rounds_rw++;

	/* The failures over: a power cut now, and the device as it is. */
	memdev_fail_io(md, 0, 0, 0);
	phase = "after a power cut";
	cut_how = rnd() % MEMDEV_NR_CUTS;
	TRACE("cut %u", cut_how);
	cut = memdev_power_cut(md, cut_how, rnd());
	check_recovered(memdev_bdev(cut), durable, phase);
	cut_checks++;
	memdev_destroy(cut);
	phase = "fresh attach";
	check_recovered(b, closed ? hist.nr : durable, phase);
	fresh_checks++;
	if (verbose)
		printf("round %lu: %s, %llu writes, durable %llu, %s\n", r,
		       how_name(how), (unsigned long long)hist.nr,
		       (unsigned long long)durable,
		       ro ? "read-only" : "writable");
	model_history_free(&hist);
	memdev_destroy(md);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "ops", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long rounds = 80, nops = 120;
	struct timespec t0, t1;
	int c;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "s:r:o:v", lopts, NULL)) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'r': rounds = strtoul(optarg, NULL, 0); break;
		case 'o': nops = strtoul(optarg, NULL, 0); break;
		case 'v': verbose++; break;
		default:
			fprintf(stderr, "usage: test_iofail --seed N [--rounds N] [--ops N] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	rng_state = seed * 0x9e3779b97f4a7c15ull | 1;
	shim_random_seed(seed);
	shim_rcu_register();
	if (shim_modules_load())
		FAIL("module init");
	atexit(trace_print);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long r = 0; r < rounds; r++)
		round_run(r, nops);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("test_iofail: ok: %lu rounds (%lu ended read-only, %lu writable), %lu ops, %lu reads failed, %lu attaches refused, %lu power cuts and %lu fresh attaches checked, %.1f s (seed %llu)\n",
	       rounds, rounds_ro, rounds_rw, ops_done, read_errors,
	       failed_attaches, cut_checks, fresh_checks,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       (unsigned long long)seed);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	finished = true;
	return 0;
}
