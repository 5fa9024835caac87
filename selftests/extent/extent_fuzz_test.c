// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded random ioctl fuzzer for /dev/sl_extent: random commands
 * (valid ones, unknown numbers, other sizes and directions) with random
 * arguments (requests with random or plausible contents, NULL, unmapped
 * pages, requests running into an unmapped page, kernel addresses), on a
 * descriptor whose allocator has the shadow bitmap on.  The kernel must
 * survive (the VM runner judges its log), every error must be one the
 * interface documents, and afterwards the map must pass its check and
 * the shadow bitmap must have seen no overlap and no bad free.
 *
 * SL_FUZZ_IOCTLS sets the number of calls (default 100000), SL_FUZZ_SEED
 * the seed (default: the time; it is printed).
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include "kselftest_harness.h"
#include "sx_ioctl.h"

#define PAGE		4096
#define KERNEL_ADDR	0xffffffff81000000UL
#define SPACE		(1ULL << 20)

static const unsigned long cmds[] = {
	SL_EM_IOC_ADD, SL_EM_IOC_LOOKUP, SL_EM_IOC_FIRST_OVERLAP,
	SL_EM_IOC_NEXT, SL_EM_IOC_REMOVE, SL_EM_IOC_DROP, SL_EM_IOC_COUNT,
	SL_RA_IOC_ALLOC, SL_RA_IOC_FREE, SL_RA_IOC_RESERVE, SL_RA_IOC_STATS,
	SL_RA_IOC_SHADOW, SL_RA_IOC_INIT, SL_EM_IOC_CHECK,
};

#define NR_CMDS ARRAY_SIZE(cmds)

FIXTURE(dev) {
	int fd;
	char *page;		/* one mapped page, the next one unmapped */
	char *unmapped;
};

FIXTURE_SETUP(dev)
{
	char *two;

	self->fd = sx_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SX_MISSING);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, sx_ra_init(self->fd, 0, SPACE, SL_RA_INIT_SHADOW));
	two = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, two);
	ASSERT_EQ(0, munmap(two + PAGE, PAGE));
	self->page = two;
	self->unmapped = two + PAGE;
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

static unsigned long long rnd(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A number from the ranges that matter: small, near the top, anything. */
static __u64 rnd_u64(unsigned long long *s)
{
	switch (rnd(s) % 4) {
	case 0:
		return rnd(s) % 4096;
	case 1:
		return ~0ULL - rnd(s) % 4096;
	case 2:
		return 1ULL << (rnd(s) % 64);
	default:
		return rnd(s);
	}
}

/* Mostly small offsets and sizes, so that calls meet earlier ones. */
static __u64 small(unsigned long long *s)
{
	return rnd(s) % 8 ? rnd(s) % 4096 : rnd_u64(s);
}

/* A request for @cmd: random words, or (half the time) a plausible one. */
static void fill(unsigned long long *s, unsigned long cmd, char *req)
{
	__u64 *w = (__u64 *)req;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = rnd_u64(s);
	if (rnd(s) % 2)
		return;
	switch (cmd) {
	case SL_EM_IOC_ADD: {
		struct sl_em_ioc_add *r = (void *)req;

		r->extent.start = small(s);
		r->extent.len = 1 + rnd(s) % 64;
		r->extent.disk_start = small(s);
		r->extent.flags = rnd(s) % 3;
		r->extent.pad = rnd(s) % 16 ? 0 : rnd(s);
		r->flags = rnd(s) % 16 ? rnd(s) % 2 : rnd(s);
		r->reserved = rnd(s) % 16 ? 0 : rnd(s);
		break;
	}
	case SL_EM_IOC_LOOKUP:
	case SL_EM_IOC_NEXT:
	case SL_EM_IOC_REMOVE:
	case SL_EM_IOC_COUNT: {
		/* The key or count first, flags and reserved last. */
		size_t size = _IOC_SIZE(cmd);

		w[0] = small(s);
		memset(req + size - 8, 0, rnd(s) % 16 ? 8 : 4);
		break;
	}
	case SL_EM_IOC_FIRST_OVERLAP:
	case SL_EM_IOC_DROP: {
		struct sl_em_ioc_range *r = (void *)req;

		r->start = small(s);
		r->len = rnd(s) % 16 ? 1 + rnd(s) % 256 : rnd_u64(s);
		r->flags = rnd(s) % 16 ? 0 : rnd(s);
		r->reserved = 0;
		break;
	}
	case SL_RA_IOC_ALLOC: {
		struct sl_ra_ioc_alloc *r = (void *)req;

		r->size = rnd(s) % 16 ? 1 + rnd(s) % 64 : rnd_u64(s);
		r->align = rnd(s) % 16 ? 1ULL << (rnd(s) % 8) : rnd_u64(s);
		r->flags = rnd(s) % 2;
		if (r->flags) {
			r->min = 0;
			r->max = 0;
			r->hint = 0;
		} else {
			r->min = rnd(s) % 2 ? 0 : small(s);
			r->max = rnd(s) % 2 ? 0 : small(s) + r->min;
			r->hint = small(s);
		}
		r->reserved = rnd(s) % 16 ? 0 : rnd(s);
		break;
	}
	case SL_RA_IOC_FREE:
	case SL_RA_IOC_RESERVE: {
		struct sl_ra_ioc_range *r = (void *)req;

		r->start = small(s);
		r->size = rnd(s) % 16 ? 1 + rnd(s) % 64 : rnd_u64(s);
		r->flags = rnd(s) % 16 ? 0 : rnd(s);
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

TEST_F_TIMEOUT(dev, random_ioctls, 1200)
{
	unsigned long n = dt_env("SL_FUZZ_IOCTLS", 100000), i;
	const char *seed_env = getenv("SL_FUZZ_SEED");
	unsigned long long seed = seed_env ? strtoull(seed_env, NULL, 0) :
			     (unsigned long long)time(NULL);
	unsigned long long s = seed | 1;
	unsigned long ok = 0, other, errs[256] = { 0 };
	struct sl_ra_ioc_stats st;
	int ret;

	TH_LOG("%lu ioctls, seed %llu", n, seed);
	for (i = 0; i < n; i++) {
		/* The request sits at the end of the page, at random offsets. */
		char *req = self->page + PAGE - 128 - 8 * (rnd(&s) % 8);
		unsigned long cmd;
		void *arg;

		switch (rnd(&s) % 16) {
		case 0:
			cmd = _IOC(rnd(&s) % 4, SL_EXT_IOC_MAGIC,
				   rnd(&s) % 32, rnd(&s) % 128);
			break;
		case 1:
			cmd = (unsigned int)rnd(&s);
			break;
		case 2:
			/* Rare: these take the descriptor exclusively. */
			cmd = cmds[NR_CMDS - 2 + rnd(&s) % 2];
			if (rnd(&s) % 8)
				cmd = SL_EM_IOC_LOOKUP;
			break;
		default:
			cmd = cmds[rnd(&s) % (NR_CMDS - 2)];
		}
		fill(&s, cmd, req);
		switch (rnd(&s) % 10) {
		case 0:
			arg = NULL;
			break;
		case 1:
			arg = self->unmapped;
			break;
		case 2:
			arg = (void *)KERNEL_ADDR;
			break;
		case 3:
			/* Straddles the unmapped page. */
			arg = self->unmapped - 8;
			break;
		case 4:
			arg = req + 1;		/* misaligned */
			break;
		default:
			arg = req;
		}
		ret = ioctl(self->fd, cmd, arg);
		if (!ret)
			ok++;
		else
			errs[errno & 255]++;
	}
	/* Only errors the interface documents; EUCLEAN, a failed check, not. */
	other = n - ok - errs[EFAULT] - errs[EINVAL] - errs[ENOTTY] -
		errs[EEXIST] - errs[ENOENT] - errs[ENOSPC] - errs[ENOMEM] -
		errs[ERANGE] - errs[EBUSY];
	TH_LOG("%lu succeeded; EFAULT %lu, EINVAL %lu, ENOTTY %lu, EEXIST %lu, ENOENT %lu, ENOSPC %lu, ENOMEM %lu, ERANGE %lu, EBUSY %lu, other %lu",
	       ok, errs[EFAULT], errs[EINVAL], errs[ENOTTY], errs[EEXIST],
	       errs[ENOENT], errs[ENOSPC], errs[ENOMEM], errs[ERANGE],
	       errs[EBUSY], other);
	EXPECT_EQ(0, other);
	EXPECT_EQ(0, errs[EUCLEAN]);

	/* Both survived: the map checks out, the shadow saw nothing wrong. */
	EXPECT_EQ(0, sx_em_check(self->fd));
	EXPECT_EQ(0, sx_ra_shadow(self->fd));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &st));
	EXPECT_EQ(SPACE, st.size);
	EXPECT_GE(SPACE, st.free);
	EXPECT_LT(0, sx_em_count(self->fd));
}

TEST_HARNESS_MAIN
