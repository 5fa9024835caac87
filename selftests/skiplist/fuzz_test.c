// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzers for /dev/skiplist, bounded in time or calls.
 *
 * random_ioctls: one thread, random commands (valid ones, unknown
 * numbers, wrong sizes and directions) with random arguments (requests
 * with random or plausible contents, keys and sizes near 2^64, NULL,
 * unmapped pages, requests running into an unmapped page, kernel
 * addresses, misaligned and read-only requests).
 *
 * Then the same descriptor under several threads at once, each test a
 * race the interface must survive:
 *  - threads_random_ioctls: four random fuzzers, some of whose requests
 *    stall on a userfaultfd page, beside CLEAR and CHECK;
 *  - hole_delete_race: INSERT_HOLE in a small window against DELETE of
 *    the keys it must be handing out, and readers checking each extent;
 *  - clear_check_vs_readers: readers and a writer against CLEAR and
 *    CHECK, which take the descriptor exclusively;
 *  - dup_close_inflight: the same, on a duplicate descriptor closed and
 *    replaced under the calls;
 *  - open_close_churn: the same, each thread opening, using and closing
 *    descriptors of its own;
 *  - top_of_the_key_space: inserts, holes, deletes, lookups, overlaps and
 *    iterations (from the end too) within the last 4096 keys of 2^64.
 *
 * The kernel must survive (the VM runner judges its log), every error
 * must be one the interface documents, invariants checked by the readers
 * must hold, and the index must pass its check and match a full walk
 * afterwards.
 *
 * SL_FUZZ_IOCTLS sets the calls of random_ioctls (default 100000),
 * SL_FUZZ_SECONDS the length of each threaded test (default 3),
 * SL_FUZZ_SEED the seed (default: the time; it is printed).
 * SL_ALLOW_ENOMEM=1 (failslab runs) accepts -ENOMEM everywhere; it is
 * accepted from the random fuzzers in any case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "kselftest_harness.h"
#include "sl_ioctl.h"

#define VALUE(key, size)	((key) * 0x9e3779b97f4a7c15ULL ^ (size))
#define INTACT(e)		((e).value == VALUE((e).key, (e).size))
#define HOLE_VALUE		0x401e
#define TOP			(~0ULL - 4095)	/* the last 4096 keys */

static const unsigned long valid_cmds[] = {
	SL_IOC_INSERT, SL_IOC_INSERT_HOLE, SL_IOC_LOOKUP, SL_IOC_FIRST_OVERLAP,
	SL_IOC_DELETE, SL_IOC_ITERATE, SL_IOC_STATS, SL_IOC_CLEAR, SL_IOC_CHECK,
};

/* What a fuzzer may get back; EUCLEAN (a failed check) never. */
static const int fuzz_errnos[] = {
	EFAULT, EINVAL, ENOTTY, EEXIST, ENOENT, ENOSPC, ENOMEM, -1
};

static bool allow_enomem;

/* A list of errnos (0 stands for none) and, in failslab runs, ENOMEM. */
#define ALLOWED(...)	{ __VA_ARGS__, allow_enomem ? ENOMEM : 0, -1 }

FIXTURE(dev) {
	int fd;
	unsigned long long seed;
	double seconds;
};

FIXTURE_SETUP(dev)
{
	self->fd = sl_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SL_MISSING);
	ASSERT_LE(0, self->fd);
	self->seed = dt_seed("SL_FUZZ_SEED");
	self->seconds = dt_env("SL_FUZZ_SECONDS", 3);
	allow_enomem = dt_env("SL_ALLOW_ENOMEM", 0) == 1;
	TH_LOG("seed %llu", self->seed);
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The index is consistent, and a full walk finds what STATS counts. */
static void index_sound(struct __test_metadata *_metadata, int fd)
{
	static struct sl_ioc_extent recs[SL_IOC_ITERATE_MAX];
	struct sl_ioc_stats st;
	__u64 from = 0, end = 0;
	long found = 0;
	int got, i;

	ASSERT_EQ(0, sl_check(fd));
	ASSERT_EQ(0, sl_stats(fd, &st));
	for (;;) {
		got = sl_iterate(fd, from, false, recs, SL_IOC_ITERATE_MAX);
		ASSERT_LE(0, got);
		for (i = 0; i < got; i++) {
			/* Sorted, not overlapping, and not wrapping. */
			if (found + i)
				ASSERT_LE(end, recs[i].key);
			ASSERT_LE(recs[i].key, recs[i].key + (recs[i].size - 1));
			end = recs[i].key + recs[i].size;
		}
		found += got;
		if (got < SL_IOC_ITERATE_MAX || recs[got - 1].key == ~0ULL)
			break;
		from = recs[got - 1].key + 1;
	}
	EXPECT_EQ((long)st.items, found);
}

/* Every role got only the errnos it may get, and saw nothing broken. */
static void roles_clean(struct __test_metadata *_metadata,
			struct dt_role *roles, int nr, const int **allowed)
{
	char buf[512];
	int i, first = 0;

	for (i = 0; i < nr; i++) {
		dt_errs_format(&roles[i].errs, buf, sizeof(buf));
		TH_LOG("%s: %s", roles[i].name, buf);
		EXPECT_EQ(0, dt_errs_other(&roles[i].errs, allowed[i], &first)) {
			TH_LOG("%s: undocumented errno %s", roles[i].name,
			       dt_errname(first));
		}
		EXPECT_EQ(0, roles[i].bad) {
			TH_LOG("%s: %lu broken, first %s", roles[i].name,
			       roles[i].bad, roles[i].what);
		}
	}
}

/* ----- Random ioctls ----- */

/* Each fuzzing thread's own pages and records. */
struct fuzz_state {
	struct dt_ptrs ptrs;
	struct sl_ioc_extent *records;
};

static __thread struct fuzz_state *fuzz_me;

static struct fuzz_state *fuzz_state(void)
{
	if (!fuzz_me) {
		fuzz_me = calloc(1, sizeof(*fuzz_me));
		if (!fuzz_me || dt_ptrs_init(&fuzz_me->ptrs))
			abort();
		fuzz_me->records = calloc(SL_IOC_ITERATE_MAX,
					  sizeof(*fuzz_me->records));
		if (!fuzz_me->records)
			abort();
	}
	return fuzz_me;
}

/* Fill a request: random words, or half the time a plausible one. */
static void fill(struct fuzz_state *f, unsigned long long *s, char *req)
{
	__u64 *w = (__u64 *)req;
	int i;

	for (i = 0; i < 32; i++)
		w[i] = dt_rnd_u64(s);
	if (dt_rnd(s) % 2) {
		/* Sane sizes and zeroed flags, so that calls get far. */
		w[0] = dt_rnd(s) % 4 ? dt_rnd(s) % 100000 : TOP + dt_rnd(s) % 4096;
		w[1] = dt_rnd(s) % 3 ? 1 + dt_rnd(s) % 64 :
				       1ULL << (dt_rnd(s) % 12);
		memset(req + 24, 0, 8);		/* insert, delete: flags */
		memset(req + 56, 0, 8);		/* insert_hole: flags */
		memset(req + 32, 0, 8);		/* lookup: flags */
		memset(req + 40, 0, 8);		/* overlap: flags */
	}
	if (dt_rnd(s) % 2) {
		/* An iterate request whose buffer pointer is one of ours. */
		static const unsigned long bad[] = {
			0, 1, (unsigned long)DT_KERNEL_ADDR,
		};
		struct sl_ioc_iterate *it = (void *)req;

		switch (dt_rnd(s) % 5) {
		case 0:
		case 1:
			it->records = (unsigned long)f->records;
			break;
		case 2:
			it->records = (unsigned long)f->ptrs.unmapped;
			break;
		case 3:
			/* Runs off the end of the mapped page. */
			it->records = (unsigned long)(f->ptrs.unmapped - 48);
			break;
		default:
			it->records = bad[dt_rnd(s) % 3];
		}
		it->max = dt_rnd(s) % 3 ? dt_rnd(s) % (SL_IOC_ITERATE_MAX + 2) :
					  (__u32)dt_rnd(s);
		it->flags = dt_rnd(s) % 4 ? dt_rnd(s) % 4 : (__u32)dt_rnd(s);
		if ((it->flags & SL_ITER_FROM_END) && dt_rnd(s) % 2)
			it->key = 0;
		it->reserved = dt_rnd(s) % 4 ? 0 : (__u32)dt_rnd(s);
	}
}

/* One random call; @stall, if not NULL, serves slow request pages. */
static int fuzz_one(int fd, unsigned long long *s, bool exclusive,
		    struct dt_staller *stall)
{
	struct fuzz_state *f = fuzz_state();
	/* The request sits at the end of the page, at random offsets. */
	char *req = f->ptrs.page + DT_PAGE - 256 - 8 * (dt_rnd(s) % 8);
	unsigned long cmd;
	void *arg;
	int ret;

	fill(f, s, req);
	switch (dt_rnd(s) % 16) {
	case 0:
		cmd = _IOC(dt_rnd(s) % 4, SL_IOC_MAGIC, dt_rnd(s) % 256,
			   dt_rnd(s) % 512);
		break;
	case 1:
		cmd = (unsigned int)dt_rnd(s);
		break;
	case 2:
		/* Rare: clear and check serialise the descriptor. */
		cmd = SL_IOC_LOOKUP;
		if (exclusive && !(dt_rnd(s) % 8))
			cmd = valid_cmds[7 + dt_rnd(s) % 2];
		break;
	default:
		cmd = valid_cmds[dt_rnd(s) % 7];
	}
	if (stall)
		memcpy(stall->content, req, 256);
	arg = dt_fuzz_arg(&f->ptrs, s, req, 256, stall ? stall->page : NULL);
	ret = ioctl(fd, cmd, arg) ? -errno : 0;
	if (stall && arg == stall->page && dt_rnd(s) % 2)
		dt_staller_rearm(stall);
	return ret;
}

TEST_F_TIMEOUT(dev, random_ioctls, 1200)
{
	unsigned long n = dt_env("SL_FUZZ_IOCTLS", 100000), i;
	unsigned long long s = self->seed | 1;
	struct dt_errs errs = { 0 };
	char buf[512];
	int first = 0;

	TH_LOG("%lu ioctls", n);
	for (i = 0; i < n; i++)
		dt_errs_count(&errs, fuzz_one(self->fd, &s, true, NULL));
	dt_errs_format(&errs, buf, sizeof(buf));
	TH_LOG("%s", buf);
	EXPECT_EQ(0, dt_errs_other(&errs, fuzz_errnos, &first)) {
		TH_LOG("undocumented errno %s", dt_errname(first));
	}
	index_sound(_metadata, self->fd);
}

static int op_fuzz(struct dt_worker *w)
{
	return fuzz_one(w->fd, &w->seed, false, w->role->arg);
}

/* ----- Readers, a writer, CLEAR and CHECK ----- */

static int op_insert(struct dt_worker *w)
{
	__u64 key = (dt_rnd(&w->seed) % 4096) * 16;
	__u64 size = 1 + dt_rnd(&w->seed) % 16;

	if (dt_rnd(&w->seed) % 2)
		return sl_insert(w->fd, key, size, VALUE(key, size));
	return sl_delete(w->fd, key);
}

static void check_extent(struct dt_worker *w, const char *op,
			 const struct sl_ioc_extent *e, __u64 lo, __u64 hi)
{
	if (!INTACT(*e))
		dt_worker_bad(w, "%s: extent [%llu, +%llu) carries %#llx", op,
			      e->key, e->size, e->value);
	else if (e->key + e->size <= lo || e->key > hi)
		dt_worker_bad(w, "%s: extent [%llu, +%llu) outside [%llu, %llu]",
			      op, e->key, e->size, lo, hi);
}

static int op_read(struct dt_worker *w)
{
	struct sl_ioc_extent e, recs[16];
	__u64 key = dt_rnd(&w->seed) % (4096 * 16);
	struct sl_ioc_stats st;
	int ret = 0, n, i;

	switch (dt_rnd(&w->seed) % 4) {
	case 0:
		ret = sl_lookup(w->fd, key, &e);
		if (!ret)
			check_extent(w, "lookup", &e, key, key);
		break;
	case 1:
		ret = sl_overlap(w->fd, key, key + 64, &e);
		if (!ret)
			check_extent(w, "overlap", &e, key, key + 63);
		break;
	case 2:
		n = sl_iterate(w->fd, key, dt_rnd(&w->seed) % 2, recs, 16);
		if (n < 0)
			return n;
		for (i = 0; i < n; i++)
			check_extent(w, "iterate", &recs[i], 0, ~0ULL);
		break;
	default:
		ret = sl_stats(w->fd, &st);
	}
	return ret;
}

static int op_exclusive(struct dt_worker *w)
{
	int ret;

	usleep(dt_rnd(&w->seed) % 3000);
	if (dt_rnd(&w->seed) % 2)
		return sl_clear(w->fd);
	ret = sl_check(w->fd);
	if (ret == -EUCLEAN)
		dt_worker_bad(w, "CHECK failed: see the kernel log");
	return ret;
}

/* Readers, a writer and the exclusive commands, in one fd mode. */
static void readers_and_exclusive(struct __test_metadata *_metadata,
				  FIXTURE_DATA(dev) *self,
				  enum dt_fd_mode mode)
{
	struct dt_role roles[] = {
		{ .name = "readers", .threads = 3, .op = op_read },
		{ .name = "writer", .threads = 1, .op = op_insert },
		{ .name = "clear/check", .threads = 1, .op = op_exclusive },
	};
	/* A closed duplicate answers EBADF. */
	int reader[] = ALLOWED(ENOENT, mode == DT_FD_DUP_CLOSE ? EBADF : 0);
	int writer[] = ALLOWED(EEXIST, ENOENT,
			       mode == DT_FD_DUP_CLOSE ? EBADF : 0);
	int excl[] = ALLOWED(mode == DT_FD_DUP_CLOSE ? EBADF : 0);
	const int *allowed[] = { reader, writer, excl };
	struct dt_run run = {
		.mode = mode, .fd = self->fd, .path = SL_DEVICE,
		.seconds = self->seconds, .seed = self->seed,
	};

	ASSERT_EQ(0, dt_run_roles(&run, roles, 3));
	if (mode == DT_FD_DUP_CLOSE)
		TH_LOG("%lu duplicates closed under the calls", run.churns);
	roles_clean(_metadata, roles, 3, allowed);
	/*
	 * Every role ran, and calls got through.  Not every role's: on a
	 * debug kernel under a loaded host, the one thread of a role can
	 * meet nothing but closed duplicates in a run.
	 */
	EXPECT_LT(0, roles[0].errs.calls);
	EXPECT_LT(0, roles[1].errs.calls);
	EXPECT_LT(0, roles[2].errs.calls);
	EXPECT_LT(0, roles[0].errs.ok + roles[1].errs.ok + roles[2].errs.ok);
	index_sound(_metadata, self->fd);
}

TEST_F_TIMEOUT(dev, threads_random_ioctls, 300)
{
	struct dt_staller stall;
	bool stalls = !dt_staller_start(&stall, 2000);
	struct dt_role roles[] = {
		{ .name = "fuzzers", .threads = 4, .op = op_fuzz,
		  .arg = stalls ? &stall : NULL },
		{ .name = "clear/check", .threads = 1, .op = op_exclusive },
	};
	int excl[] = ALLOWED(0);
	const int *allowed[] = { fuzz_errnos, excl };
	struct dt_run run = {
		.mode = DT_FD_SHARED, .fd = self->fd,
		.seconds = self->seconds, .seed = self->seed,
	};

	ASSERT_EQ(0, dt_run_roles(&run, roles, 2));
	if (stalls) {
		TH_LOG("%lu stalled request pages served", stall.served);
		dt_staller_stop(&stall);
	} else {
		TH_LOG("no userfaultfd: no stalled request pages");
	}
	roles_clean(_metadata, roles, 2, allowed);
	index_sound(_metadata, self->fd);
}

TEST_F_TIMEOUT(dev, clear_check_vs_readers, 300)
{
	readers_and_exclusive(_metadata, self, DT_FD_SHARED);
}

TEST_F_TIMEOUT(dev, dup_close_inflight, 300)
{
	readers_and_exclusive(_metadata, self, DT_FD_DUP_CLOSE);
}

TEST_F_TIMEOUT(dev, open_close_churn, 300)
{
	readers_and_exclusive(_metadata, self, DT_FD_OPEN_CLOSE);
}

/* ----- INSERT_HOLE against DELETE of the keys it hands out ----- */

#define SLOTS	64	/* [0, 8 * SLOTS): holes of 8, aligned to 8 */

static int op_hole(struct dt_worker *w)
{
	__u64 key;

	return sl_hole_value(w->fd, 8, 8, 0, 8 * SLOTS,
			     8 * (dt_rnd(&w->seed) % SLOTS), HOLE_VALUE, &key);
}

static int op_guess_delete(struct dt_worker *w)
{
	return sl_delete(w->fd, 8 * (dt_rnd(&w->seed) % SLOTS));
}

static int op_hole_read(struct dt_worker *w)
{
	__u64 key = dt_rnd(&w->seed) % (8 * SLOTS);
	struct sl_ioc_extent e, recs[8];
	int ret, n, i;

	if (dt_rnd(&w->seed) % 2) {
		ret = sl_lookup(w->fd, key, &e);
		if (!ret && (e.key % 8 || e.size != 8 || e.value != HOLE_VALUE ||
			     key - e.key >= 8))
			dt_worker_bad(w, "lookup %llu: [%llu, +%llu) value %#llx",
				      key, e.key, e.size, e.value);
		return ret;
	}
	n = sl_iterate(w->fd, key, false, recs, 8);
	for (i = 0; i < n; i++)
		if (recs[i].key % 8 || recs[i].size != 8 ||
		    (i && recs[i].key <= recs[i - 1].key))
			dt_worker_bad(w, "iterate: [%llu, +%llu) after %llu",
				      recs[i].key, recs[i].size,
				      i ? recs[i - 1].key : 0);
	return n < 0 ? n : 0;
}

TEST_F_TIMEOUT(dev, hole_delete_race, 300)
{
	struct dt_role roles[] = {
		{ .name = "insert_hole", .threads = 2, .op = op_hole },
		{ .name = "delete", .threads = 2, .op = op_guess_delete },
		{ .name = "readers", .threads = 1, .op = op_hole_read },
	};
	int holes[] = ALLOWED(ENOSPC);
	int deletes[] = ALLOWED(ENOENT);
	const int *allowed[] = { holes, deletes, deletes };
	struct dt_run run = {
		.mode = DT_FD_SHARED, .fd = self->fd,
		.seconds = self->seconds, .seed = self->seed,
	};
	struct sl_ioc_stats st;

	ASSERT_EQ(0, dt_run_roles(&run, roles, 3));
	roles_clean(_metadata, roles, 3, allowed);
	EXPECT_LT(0, roles[1].errs.ok);
	index_sound(_metadata, self->fd);
	/* Every hole claimed and not deleted is there, and nothing else. */
	ASSERT_EQ(0, sl_stats(self->fd, &st));
	EXPECT_EQ(roles[0].errs.ok - roles[1].errs.ok, st.items);
}

/* ----- The top of the key space ----- */

static int op_top_write(struct dt_worker *w)
{
	__u64 key = TOP + dt_rnd(&w->seed) % 4096, size, got;

	switch (dt_rnd(&w->seed) % 3) {
	case 0:
		/* Up to the last key, or a little short of it. */
		size = dt_rnd(&w->seed) % 2 ? ~0ULL - key + 1 :
					      1 + dt_rnd(&w->seed) % 8;
		if (key + (size - 1) < key)
			size = ~0ULL - key + 1;
		return sl_insert(w->fd, key, size, VALUE(key, size));
	case 1:
		return sl_hole_value(w->fd, 1 + dt_rnd(&w->seed) % 8,
				     1ULL << (dt_rnd(&w->seed) % 4), TOP, 0,
				     key, HOLE_VALUE, &got);
	default:
		return sl_delete(w->fd, key);
	}
}

static int op_top_read(struct dt_worker *w)
{
	struct sl_ioc_extent recs[8], e;
	struct sl_ioc_iterate it = {
		.records = (unsigned long)recs, .max = 8,
		.flags = SL_ITER_BACKWARD | SL_ITER_FROM_END,
	};
	int ret, i;

	switch (dt_rnd(&w->seed) % 3) {
	case 0:
		ret = sl_lookup(w->fd, ~0ULL - dt_rnd(&w->seed) % 8, &e);
		break;
	case 1:
		ret = sl_overlap(w->fd, ~0ULL - 64, ~0ULL, &e);
		break;
	default:
		ret = sl_ioc(w->fd, SL_IOC_ITERATE, &it);
		if (ret)
			return ret;
		for (i = 0; i < (int)it.count; i++)
			if (recs[i].key + (recs[i].size - 1) < recs[i].key ||
			    (i && recs[i].key >= recs[i - 1].key))
				dt_worker_bad(w, "from the end: [%llu, +%llu) after %llu",
					      recs[i].key, recs[i].size,
					      i ? recs[i - 1].key : 0);
		return 0;
	}
	if (!ret && e.key + (e.size - 1) < e.key)
		dt_worker_bad(w, "[%llu, +%llu) wraps", e.key, e.size);
	return ret;
}

TEST_F_TIMEOUT(dev, top_of_the_key_space, 300)
{
	struct dt_role roles[] = {
		{ .name = "writers", .threads = 3, .op = op_top_write },
		{ .name = "readers", .threads = 2, .op = op_top_read },
	};
	int writers[] = ALLOWED(EEXIST, ENOENT, ENOSPC);
	int readers[] = ALLOWED(ENOENT);
	const int *allowed[] = { writers, readers };
	struct dt_run run = {
		.mode = DT_FD_SHARED, .fd = self->fd,
		.seconds = self->seconds, .seed = self->seed,
	};
	struct sl_ioc_extent last;

	ASSERT_EQ(0, dt_run_roles(&run, roles, 2));
	roles_clean(_metadata, roles, 2, allowed);
	index_sound(_metadata, self->fd);
	/* The last key, whatever holds it, is reachable from the end. */
	if (!sl_lookup(self->fd, ~0ULL, &last)) {
		struct sl_ioc_extent rec;
		struct sl_ioc_iterate it = {
			.records = (unsigned long)&rec, .max = 1,
			.flags = SL_ITER_BACKWARD | SL_ITER_FROM_END,
		};

		ASSERT_EQ(0, sl_ioc(self->fd, SL_IOC_ITERATE, &it));
		ASSERT_EQ(1, it.count);
		EXPECT_EQ(last.key, rec.key);
	}
}

TEST_HARNESS_MAIN
