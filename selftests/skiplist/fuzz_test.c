// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded random ioctl fuzzer for /dev/skiplist: random commands (valid
 * ones, unknown numbers, wrong sizes and types) with random arguments
 * (valid buffers with random or plausible contents, NULL, unmapped pages,
 * buffers running into an unmapped page, kernel addresses).  Its only
 * assertions are that the kernel survives (the VM runner judges the
 * kernel log) and that the index is consistent afterwards.
 *
 * SL_FUZZ_IOCTLS sets the number of calls (default 100000), SL_FUZZ_SEED
 * the seed (default: the time; it is printed).
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include "kselftest_harness.h"
#include "sl_ioctl.h"

#define PAGE		4096
#define KERNEL_ADDR	0xffffffff81000000UL

static const unsigned long valid_cmds[] = {
	SL_IOC_INSERT, SL_IOC_INSERT_HOLE, SL_IOC_LOOKUP, SL_IOC_FIRST_OVERLAP,
	SL_IOC_DELETE, SL_IOC_ITERATE, SL_IOC_STATS, SL_IOC_CLEAR, SL_IOC_CHECK,
};
#define NR_VALID (sizeof(valid_cmds) / sizeof(valid_cmds[0]))

FIXTURE(dev) {
	int fd;
	char *page;		/* one mapped page, the next one unmapped */
	char *unmapped;
	struct sl_ioc_extent *records;
};

FIXTURE_SETUP(dev)
{
	char *two;

	self->fd = sl_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SL_DEVICE " missing: load skiplist_dev.ko");
	ASSERT_LE(0, self->fd);
	two = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, two);
	ASSERT_EQ(0, munmap(two + PAGE, PAGE));
	self->page = two;
	self->unmapped = two + PAGE;
	self->records = calloc(SL_IOC_ITERATE_MAX, sizeof(*self->records));
	ASSERT_NE(NULL, self->records);
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

/* Fill the request area: random bytes, or a plausible request. */
static void fill(struct __test_metadata *_metadata, FIXTURE_DATA(dev) *self,
		 unsigned long long *s, char *req)
{
	__u64 *w = (__u64 *)req;
	int i;

	for (i = 0; i < 32; i++)
		w[i] = rnd_u64(s);
	if (rnd(s) % 2) {
		/* Sane sizes and zeroed flags, so that calls get far. */
		w[1] = 1 + rnd(s) % 64;
		w[0] = rnd(s) % 100000;
		memset(req + 24, 0, 8);		/* insert, delete: flags */
		memset(req + 56, 0, 8);		/* insert_hole: flags */
		memset(req + 32, 0, 8);		/* lookup: flags */
		memset(req + 40, 0, 8);		/* overlap: flags */
		w[1] = rnd(s) % 3 ? w[1] : 1ULL << (rnd(s) % 12);
	}
	if (rnd(s) % 2) {
		/* An iterate request whose buffer pointer is one of ours. */
		static const unsigned long bad[] = { 0, 1, KERNEL_ADDR };
		struct sl_ioc_iterate *it = (void *)req;

		switch (rnd(s) % 4) {
		case 0:
			it->records = (unsigned long)self->records;
			break;
		case 1:
			it->records = (unsigned long)self->unmapped;
			break;
		case 2:
			/* Runs off the end of the mapped page. */
			it->records = (unsigned long)(self->unmapped - 48);
			break;
		default:
			it->records = bad[rnd(s) % 3];
		}
		it->max = rnd(s) % 3 ? rnd(s) % (SL_IOC_ITERATE_MAX + 2) :
				       (__u32)rnd(s);
		it->flags = rnd(s) % 4 ? rnd(s) % 2 : (__u32)rnd(s);
		it->reserved = rnd(s) % 4 ? 0 : (__u32)rnd(s);
	}
}

TEST_F_TIMEOUT(dev, random_ioctls, 1200)
{
	const char *env = getenv("SL_FUZZ_IOCTLS");
	const char *seed_env = getenv("SL_FUZZ_SEED");
	unsigned long n = env ? strtoul(env, NULL, 0) : 100000, i;
	unsigned long long seed = seed_env ? strtoull(seed_env, NULL, 0) :
			     (unsigned long long)time(NULL);
	unsigned long long s = seed | 1;
	unsigned long ok = 0, other, errs[256] = { 0 };
	static struct sl_ioc_extent recs[SL_IOC_ITERATE_MAX];
	struct sl_ioc_stats st;
	long found = 0;
	__u64 from = 0;
	int ret;

	TH_LOG("%lu ioctls, seed %llu", n, seed);
	for (i = 0; i < n; i++) {
		unsigned long cmd;
		void *arg;
		/* The request sits at the end of the page, at random offsets. */
		char *req = self->page + PAGE - 256 - 8 * (rnd(&s) % 8);

		fill(_metadata, self, &s, req);
		switch (rnd(&s) % 16) {
		case 0:
			cmd = _IOC(rnd(&s) % 4, SL_IOC_MAGIC, rnd(&s) % 256,
				   rnd(&s) % 512);
			break;
		case 1:
			cmd = (unsigned int)rnd(&s);
			break;
		case 2:
			/* Rare: clear and check serialise the descriptor. */
			cmd = valid_cmds[7 + rnd(&s) % 2];
			if (rnd(&s) % 8)
				cmd = SL_IOC_LOOKUP;
			break;
		default:
			cmd = valid_cmds[rnd(&s) % 7];
		}
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
	/* Only errors the interface documents (EUCLEAN, a failed check, not). */
	other = n - ok - errs[EFAULT] - errs[EINVAL] - errs[ENOTTY] -
		errs[EEXIST] - errs[ENOENT] - errs[ENOSPC] - errs[ENOMEM] -
		errs[EUCLEAN];
	TH_LOG("%lu succeeded; EFAULT %lu, EINVAL %lu, ENOTTY %lu, EEXIST %lu, ENOENT %lu, ENOSPC %lu, ENOMEM %lu, EUCLEAN %lu, other %lu",
	       ok, errs[EFAULT], errs[EINVAL], errs[ENOTTY], errs[EEXIST],
	       errs[ENOENT], errs[ENOSPC], errs[ENOMEM], errs[EUCLEAN], other);
	EXPECT_EQ(0, other);
	EXPECT_EQ(0, errs[EUCLEAN]);

	/* The index survived: consistent, and its count matches a walk. */
	ASSERT_EQ(0, sl_check(self->fd));
	ASSERT_EQ(0, sl_stats(self->fd, &st));
	for (;;) {
		int got = sl_iterate(self->fd, from, false, recs,
				     SL_IOC_ITERATE_MAX);

		ASSERT_LE(0, got);
		found += got;
		if (got < SL_IOC_ITERATE_MAX)
			break;
		from = recs[got - 1].key + 1;
	}
	EXPECT_EQ((long)st.items, found);
}

TEST_HARNESS_MAIN
