// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzers for /dev/sl_extent, bounded in time or calls.
 *
 * random_ioctls: one thread, random commands (valid ones, unknown
 * numbers, other sizes and directions) with random arguments (requests
 * with random or plausible contents, NULL, unmapped pages, requests
 * running into an unmapped page, kernel addresses, misaligned and
 * read-only requests), on a descriptor whose allocator has the shadow
 * bitmap on.
 *
 * Then the same descriptor under several threads at once, each test a
 * race the interface must survive:
 *  - threads_random_ioctls: four random fuzzers, some of whose requests
 *    stall on a userfaultfd page, beside EM_CHECK;
 *  - free_alloc_race: RA_ALLOC in a small window against RA_FREE and
 *    RA_RESERVE of the ranges it must be handing out;
 *  - check_vs_readers: readers and writers of the map against EM_CHECK,
 *    which takes the descriptor exclusively;
 *  - dup_close_inflight: the same, on a duplicate descriptor closed and
 *    replaced under the calls;
 *  - open_close_churn: the same, each thread opening, using and closing
 *    descriptors of its own, and creating their allocators;
 *  - whole_space: an allocator over all of [0, 2^64), sizes and
 *    alignments up to 2^63, ranges at the last unit, every range checked
 *    against every other and freed exactly once.
 *
 * The kernel must survive (the VM runner judges its log), every error
 * must be one the interface documents, and afterwards the map must pass
 * its check and the shadow bitmap must have seen no overlap and no bad
 * free.
 *
 * SL_FUZZ_IOCTLS sets the calls of random_ioctls (default 100000),
 * SL_FUZZ_SECONDS the length of each threaded test (default 3),
 * SL_FUZZ_SEED the seed (default: the time; it is printed).
 * SL_ALLOW_ENOMEM=1 (failslab runs) accepts -ENOMEM everywhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "kselftest_harness.h"
#include "sx_ioctl.h"

#define SPACE		(1ULL << 20)

static const unsigned long cmds[] = {
	SL_EM_IOC_ADD, SL_EM_IOC_LOOKUP, SL_EM_IOC_FIRST_OVERLAP,
	SL_EM_IOC_NEXT, SL_EM_IOC_REMOVE, SL_EM_IOC_DROP, SL_EM_IOC_COUNT,
	SL_RA_IOC_ALLOC, SL_RA_IOC_FREE, SL_RA_IOC_RESERVE, SL_RA_IOC_STATS,
	SL_RA_IOC_SHADOW, SL_RA_IOC_INIT, SL_EM_IOC_CHECK,
};

#define NR_CMDS ARRAY_SIZE(cmds)

/* What a fuzzer may get back; EUCLEAN (a failed check) never. */
static const int fuzz_errnos[] = {
	EFAULT, EINVAL, ENOTTY, EEXIST, ENOENT, ENOSPC, ENOMEM, ERANGE, EBUSY,
	-1
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
	self->fd = sx_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SX_MISSING);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, sx_ra_init(self->fd, 0, SPACE, SL_RA_INIT_SHADOW));
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

/* The map checks out and the shadow bitmap saw nothing wrong. */
static void device_sound(struct __test_metadata *_metadata, int fd)
{
	struct sl_ra_ioc_stats st;

	EXPECT_EQ(0, sx_em_check(fd));
	EXPECT_EQ(0, sx_ra_shadow(fd));
	ASSERT_EQ(0, sx_ra_stats(fd, &st));
	EXPECT_EQ(SPACE, st.size);
	EXPECT_GE(SPACE, st.free);
}

/* ----- Random ioctls ----- */

/* Mostly small offsets and sizes, so that calls meet earlier ones. */
static __u64 small(unsigned long long *s)
{
	return dt_rnd(s) % 8 ? dt_rnd(s) % 4096 : dt_rnd_u64(s);
}

/* A request for @cmd: random words, or (half the time) a plausible one. */
static void fill(unsigned long long *s, unsigned long cmd, char *req)
{
	__u64 *w = (__u64 *)req;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = dt_rnd_u64(s);
	if (dt_rnd(s) % 2)
		return;
	switch (cmd) {
	case SL_EM_IOC_ADD: {
		struct sl_em_ioc_add *r = (void *)req;

		r->extent.start = small(s);
		r->extent.len = 1 + dt_rnd(s) % 64;
		r->extent.disk_start = small(s);
		r->extent.flags = dt_rnd(s) % 3;
		r->extent.pad = dt_rnd(s) % 16 ? 0 : dt_rnd(s);
		r->flags = dt_rnd(s) % 16 ? dt_rnd(s) % 2 : dt_rnd(s);
		r->reserved = dt_rnd(s) % 16 ? 0 : dt_rnd(s);
		break;
	}
	case SL_EM_IOC_LOOKUP:
	case SL_EM_IOC_NEXT:
	case SL_EM_IOC_REMOVE:
	case SL_EM_IOC_COUNT: {
		/* The key or count first, flags and reserved last. */
		size_t size = _IOC_SIZE(cmd);

		w[0] = small(s);
		memset(req + size - 8, 0, dt_rnd(s) % 16 ? 8 : 4);
		break;
	}
	case SL_EM_IOC_FIRST_OVERLAP:
	case SL_EM_IOC_DROP: {
		struct sl_em_ioc_range *r = (void *)req;

		r->start = small(s);
		r->len = dt_rnd(s) % 16 ? 1 + dt_rnd(s) % 256 : dt_rnd_u64(s);
		r->flags = dt_rnd(s) % 16 ? 0 : dt_rnd(s);
		r->reserved = 0;
		break;
	}
	case SL_RA_IOC_ALLOC: {
		struct sl_ra_ioc_alloc *r = (void *)req;

		r->size = dt_rnd(s) % 16 ? 1 + dt_rnd(s) % 64 : dt_rnd_u64(s);
		r->align = dt_rnd(s) % 16 ? 1ULL << (dt_rnd(s) % 8) :
					    dt_rnd_u64(s);
		r->flags = dt_rnd(s) % 2;
		if (r->flags) {
			r->min = 0;
			r->max = 0;
			r->hint = 0;
		} else {
			r->min = dt_rnd(s) % 2 ? 0 : small(s);
			r->max = dt_rnd(s) % 2 ? 0 : small(s) + r->min;
			r->hint = small(s);
		}
		r->reserved = dt_rnd(s) % 16 ? 0 : dt_rnd(s);
		break;
	}
	case SL_RA_IOC_FREE:
	case SL_RA_IOC_RESERVE: {
		struct sl_ra_ioc_range *r = (void *)req;

		r->start = small(s);
		r->size = dt_rnd(s) % 16 ? 1 + dt_rnd(s) % 64 : dt_rnd_u64(s);
		r->flags = dt_rnd(s) % 16 ? 0 : dt_rnd(s);
		r->reserved = 0;
		break;
	}
	default: {
		/* Random numbers carry random sizes: only ours fit the page. */
		size_t size = _IOC_SIZE(cmd);

		if (size >= 8 && size <= 128)
			memset(req + size - 8, 0, 8);
	}
	}
}

static __thread struct dt_ptrs *fuzz_ptrs;

/* One random call; @stall, if not NULL, serves slow request pages. */
static int fuzz_one(int fd, unsigned long long *s, bool exclusive,
		    struct dt_staller *stall)
{
	unsigned long cmd;
	char *req;
	void *arg;
	int ret;

	if (!fuzz_ptrs) {
		fuzz_ptrs = calloc(1, sizeof(*fuzz_ptrs));
		if (!fuzz_ptrs || dt_ptrs_init(fuzz_ptrs))
			abort();
	}
	/* The request sits at the end of the page, at random offsets. */
	req = fuzz_ptrs->page + DT_PAGE - 128 - 8 * (dt_rnd(s) % 8);
	switch (dt_rnd(s) % 16) {
	case 0:
		cmd = _IOC(dt_rnd(s) % 4, SL_EXT_IOC_MAGIC, dt_rnd(s) % 32,
			   dt_rnd(s) % 128);
		break;
	case 1:
		cmd = (unsigned int)dt_rnd(s);
		break;
	case 2:
		/* Rare: these take the descriptor exclusively. */
		cmd = SL_EM_IOC_LOOKUP;
		if (exclusive && !(dt_rnd(s) % 8))
			cmd = cmds[NR_CMDS - 2 + dt_rnd(s) % 2];
		break;
	default:
		cmd = cmds[dt_rnd(s) % (NR_CMDS - 2)];
	}
	fill(s, cmd, req);
	if (stall)
		memcpy(stall->content, req, 128);
	arg = dt_fuzz_arg(fuzz_ptrs, s, req, 128, stall ? stall->page : NULL);
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
	device_sound(_metadata, self->fd);
	EXPECT_LT(0, sx_em_count(self->fd));
}

static int op_fuzz(struct dt_worker *w)
{
	return fuzz_one(w->fd, &w->seed, false, w->role->arg);
}

static int op_check(struct dt_worker *w)
{
	int ret;

	usleep(dt_rnd(&w->seed) % 3000);
	ret = sx_em_check(w->fd);
	if (ret == -EUCLEAN)
		dt_worker_bad(w, "EM_CHECK failed: see the kernel log");
	return ret;
}

TEST_F_TIMEOUT(dev, threads_random_ioctls, 300)
{
	struct dt_staller stall;
	bool stalls = !dt_staller_start(&stall, 2000);
	struct dt_role roles[] = {
		{ .name = "fuzzers", .threads = 4, .op = op_fuzz,
		  .arg = stalls ? &stall : NULL },
		{ .name = "check", .threads = 1, .op = op_check },
	};
	int check[] = ALLOWED(0);
	const int *allowed[] = { fuzz_errnos, check };
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
	device_sound(_metadata, self->fd);
}

/* ----- The map: readers and writers against EM_CHECK ----- */

/* Extents of 1-16 units at multiples of 16, mapped to 1000 x their start. */
#define DISK(start)	((start) * 1000)

static int op_em_write(struct dt_worker *w)
{
	__u64 start = (dt_rnd(&w->seed) % 1024) * 16;
	__u64 len = 1 + dt_rnd(&w->seed) % 16;

	switch (dt_rnd(&w->seed) % 3) {
	case 0:
		return sx_em_add(w->fd, start, len, DISK(start), 0, false);
	case 1:
		return sx_em_remove(w->fd, start);
	default:
		/* Punch the tail of the slot: trims its extent, or removes it. */
		return sx_em_drop(w->fd, start + 16 - len, len);
	}
}

static void em_extent_ok(struct dt_worker *w, const char *op,
			 const struct sl_em_ioc_extent *e, __u64 lo, __u64 hi)
{
	if (e->disk_start != DISK(e->start) || e->start % 16 || !e->len ||
	    e->len > 16)
		dt_worker_bad(w, "%s: [%llu, +%llu) -> %llu", op, e->start,
			      e->len, e->disk_start);
	else if (e->start + e->len <= lo || e->start > hi)
		dt_worker_bad(w, "%s: [%llu, +%llu) outside [%llu, %llu]", op,
			      e->start, e->len, lo, hi);
}

static int op_em_read(struct dt_worker *w)
{
	__u64 off = dt_rnd(&w->seed) % (1024 * 16);
	struct sl_em_ioc_extent e;
	long count;
	int ret;

	switch (dt_rnd(&w->seed) % 4) {
	case 0:
		ret = sx_em_lookup(w->fd, off, &e);
		if (!ret)
			em_extent_ok(w, "lookup", &e, off, off);
		return ret;
	case 1:
		ret = sx_em_overlap(w->fd, off, 64, &e);
		if (!ret)
			em_extent_ok(w, "overlap", &e, off, off + 63);
		return ret;
	case 2:
		ret = sx_em_next(w->fd, off, &e);
		if (!ret)
			em_extent_ok(w, "next", &e, off, ~0ULL);
		return ret;
	default:
		count = sx_em_count(w->fd);
		if (count > 1024)
			dt_worker_bad(w, "count %ld of at most 1024", count);
		return count < 0 ? count : 0;
	}
}

/* On a fresh descriptor the allocator does not exist yet. */
static int op_ra_maybe(struct dt_worker *w)
{
	__u64 start;
	int ret;

	switch (dt_rnd(&w->seed) % 3) {
	case 0:
		return sx_ra_init(w->fd, 0, SPACE, SL_RA_INIT_SHADOW);
	case 1:
		ret = sx_ra_alloc(w->fd, 1 + dt_rnd(&w->seed) % 16, 1, 0, 0,
				  0, &start);
		if (!ret && start >= SPACE)
			dt_worker_bad(w, "allocated %llu outside the space",
				      start);
		return ret;
	default:
		ret = sx_ra_shadow(w->fd);
		if (ret > 0)
			dt_worker_bad(w, "shadow bitmap counted %d errors", ret);
		return ret < 0 ? ret : 0;
	}
}

static void readers_and_check(struct __test_metadata *_metadata,
			      FIXTURE_DATA(dev) *self, enum dt_fd_mode mode)
{
	int badf = mode == DT_FD_DUP_CLOSE ? EBADF : 0;
	struct dt_role roles[] = {
		{ .name = "readers", .threads = 2, .op = op_em_read },
		{ .name = "writers", .threads = 2, .op = op_em_write },
		{ .name = "check", .threads = 1, .op = op_check },
		{ .name = "allocator", .threads = 1, .op = op_ra_maybe },
	};
	int reader[] = ALLOWED(ENOENT, badf);
	int writer[] = ALLOWED(EEXIST, ENOENT, badf);
	int check[] = ALLOWED(badf);
	/* Before RA_INIT on a new descriptor, ENXIO; after, EBUSY. */
	int alloc[] = ALLOWED(EBUSY, ENXIO, ENOSPC, badf);
	const int *allowed[] = { reader, writer, check, alloc };
	struct dt_run run = {
		.mode = mode, .fd = self->fd, .path = SX_DEVICE,
		.seconds = self->seconds, .seed = self->seed,
	};

	ASSERT_EQ(0, dt_run_roles(&run, roles, 4));
	if (mode == DT_FD_DUP_CLOSE)
		TH_LOG("%lu duplicates closed under the calls", run.churns);
	roles_clean(_metadata, roles, 4, allowed);
	/*
	 * Every role ran, and calls got through.  Not every role's: on a
	 * debug kernel under a loaded host, the one thread of a role can
	 * meet nothing but closed duplicates in a run.
	 */
	EXPECT_LT(0, roles[0].errs.calls);
	EXPECT_LT(0, roles[1].errs.calls);
	EXPECT_LT(0, roles[2].errs.calls);
	EXPECT_LT(0, roles[0].errs.ok + roles[1].errs.ok + roles[2].errs.ok);
	device_sound(_metadata, self->fd);
}

TEST_F_TIMEOUT(dev, check_vs_readers, 300)
{
	readers_and_check(_metadata, self, DT_FD_SHARED);
}

TEST_F_TIMEOUT(dev, dup_close_inflight, 300)
{
	readers_and_check(_metadata, self, DT_FD_DUP_CLOSE);
}

TEST_F_TIMEOUT(dev, open_close_churn, 300)
{
	readers_and_check(_metadata, self, DT_FD_OPEN_CLOSE);
}

/* ----- RA_ALLOC against RA_FREE of the ranges it hands out ----- */

#define SLOTS	64	/* [0, 8 * SLOTS): ranges of 8, aligned to 8 */

static int op_alloc(struct dt_worker *w)
{
	__u64 start;
	int ret;

	ret = sx_ra_alloc(w->fd, 8, 8, 0, 8 * SLOTS,
			  8 * (dt_rnd(&w->seed) % SLOTS), &start);
	if (!ret && (start % 8 || start >= 8 * SLOTS))
		dt_worker_bad(w, "allocated [%llu, +8) outside its window",
			      start);
	return ret;
}

static int op_guess_free(struct dt_worker *w)
{
	__u64 start = 8 * (dt_rnd(&w->seed) % SLOTS);
	int ret;

	if (dt_rnd(&w->seed) % 4)
		return sx_ra_free(w->fd, start, 8);
	/* A reservation is freed like an allocation. */
	ret = sx_ra_reserve(w->fd, start, 8);
	return ret == -EEXIST ? -ENOENT : ret;
}

TEST_F_TIMEOUT(dev, free_alloc_race, 300)
{
	struct dt_role roles[] = {
		{ .name = "alloc", .threads = 2, .op = op_alloc },
		{ .name = "free/reserve", .threads = 2, .op = op_guess_free },
	};
	int allocs[] = ALLOWED(ENOSPC);
	int frees[] = ALLOWED(ENOENT);
	const int *allowed[] = { allocs, frees };
	struct dt_run run = {
		.mode = DT_FD_SHARED, .fd = self->fd,
		.seconds = self->seconds, .seed = self->seed,
	};
	struct sl_ra_ioc_stats st;
	__u64 start;
	long live = 0;

	ASSERT_EQ(0, dt_run_roles(&run, roles, 2));
	roles_clean(_metadata, roles, 2, allowed);
	EXPECT_LT(0, roles[1].errs.ok);
	device_sound(_metadata, self->fd);
	/* Free what is left, one slot at a time: exactly once each. */
	for (start = 0; start < 8 * SLOTS; start += 8)
		if (!sx_ra_free(self->fd, start, 8))
			live++;
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(0, st.ranges);
	EXPECT_EQ(SPACE, st.free);
	EXPECT_EQ(0, sx_ra_shadow(self->fd));
	TH_LOG("%ld ranges were live at the end", live);
}

/* ----- An allocator over the whole of 64 bits ----- */

#define WHOLE_LIVE	32

struct whole_live {
	__u64 start[WHOLE_LIVE];
	__u64 size[WHOLE_LIVE];
	int n;
};

static int op_whole(struct dt_worker *w)
{
	struct whole_live *l = (struct whole_live *)w->role->arg + w->id;
	unsigned long long *s = &w->seed;
	__u64 size, align, start;
	int ret, i;

	if (l->n == WHOLE_LIVE || (l->n && !(dt_rnd(s) % 3))) {
		/* Free one of ours: it must go, exactly as given. */
		i = dt_rnd(s) % l->n;
		ret = sx_ra_free(w->fd, l->start[i], l->size[i]);
		if (ret)
			dt_worker_bad(w, "free of our [%llu, +%llu): %s",
				      l->start[i], l->size[i], dt_errname(-ret));
		l->n--;
		l->start[i] = l->start[l->n];
		l->size[i] = l->size[l->n];
		return ret;
	}
	/* Sizes from 1 to 2^63 and near 2^64, alignments up to 2^63. */
	size = dt_rnd(s) % 4 ? 1ULL << (dt_rnd(s) % 64) :
			       dt_rnd_u64(s) | 1;
	align = 1ULL << (dt_rnd(s) % 64);
	switch (dt_rnd(s) % 4) {
	case 0:
		ret = sx_ra_alloc_cpu(w->fd, size, align, &start);
		break;
	case 1:
		/* At the very top: the last units of 2^64. */
		size = 1 + dt_rnd(s) % 16;
		start = ~0ULL - (size - 1) - dt_rnd(s) % 64;
		ret = sx_ra_reserve(w->fd, start, size);
		break;
	default:
		ret = sx_ra_alloc(w->fd, size, align, dt_rnd_u64(s) % 2 ?
				  0 : dt_rnd_u64(s), 0, dt_rnd_u64(s), &start);
	}
	if (ret)
		return ret;
	if (start + (size - 1) < start)
		dt_worker_bad(w, "[%llu, +%llu) wraps past 2^64", start, size);
	l->start[l->n] = start;
	l->size[l->n++] = size;
	return 0;
}

static int cmp_start(const void *a, const void *b)
{
	const __u64 *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

TEST_F_TIMEOUT(dev, whole_space, 300)
{
	struct whole_live live[4] = { 0 };
	struct dt_role roles[] = {
		{ .name = "whole space", .threads = 4, .op = op_whole,
		  .arg = live },
	};
	int whole[] = ALLOWED(ENOSPC, EEXIST, ERANGE);
	const int *allowed[] = { whole };
	struct sl_ra_ioc_stats st;
	__u64 ranges[4 * WHOLE_LIVE][2];
	int fd = sx_open(), i, j, n = 0;
	struct dt_run run = {
		.mode = DT_FD_SHARED, .fd = fd,
		.seconds = self->seconds, .seed = self->seed,
	};

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, sx_ra_init(fd, 0, 0, 0));
	ASSERT_EQ(0, dt_run_roles(&run, roles, 1));
	roles_clean(_metadata, roles, 1, allowed);
	EXPECT_LT(0, roles[0].errs.ok);
	/* What the threads hold now never overlaps. */
	for (i = 0; i < 4; i++)
		for (j = 0; j < live[i].n; j++, n++) {
			ranges[n][0] = live[i].start[j];
			ranges[n][1] = live[i].size[j];
		}
	qsort(ranges, n, sizeof(ranges[0]), cmp_start);
	for (i = 1; i < n; i++)
		EXPECT_LT(ranges[i - 1][0] + (ranges[i - 1][1] - 1),
			  ranges[i][0]) {
			TH_LOG("[%llu, +%llu) overlaps [%llu, +%llu)",
			       ranges[i - 1][0], ranges[i - 1][1],
			       ranges[i][0], ranges[i][1]);
		}
	ASSERT_EQ(0, sx_ra_stats(fd, &st));
	EXPECT_EQ(~0ULL, st.size);
	EXPECT_EQ(n, st.ranges);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, sx_ra_free(fd, ranges[i][0], ranges[i][1]));
	ASSERT_EQ(0, sx_ra_stats(fd, &st));
	EXPECT_EQ(0, st.ranges);
	EXPECT_EQ(~0ULL, st.free);
	EXPECT_EQ(~0ULL, st.largest_free);
	close(fd);
}

TEST_HARNESS_MAIN
