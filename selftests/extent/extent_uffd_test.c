// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/sl_extent with argument pages that stall (userfaultfd): a thread
 * whose request or result page never arrives must hold up nobody else,
 * SL_EM_IOC_CHECK and SL_RA_IOC_INIT on the same descriptor included,
 * and must itself die when killed; and SL_RA_IOC_ALLOC whose result cannot
 * be written back keeps the range it allocated, never freeing a range
 * another thread has been handed at the same place meanwhile
 * (uapi/sl_extent_dev.h, "Results").
 *
 * Exits 4 (skip) where userfaultfd is unavailable to the test.
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "sx_ioctl.h"

/* Long enough for a check of a near-empty map under emulation. */
#define EXCLUSIVE_TIMEOUT	10.0
#define SPACE			1024

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = sx_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SX_MISSING);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* An exclusive command in a child: it must finish, never in 'D'. */
static void exclusive_runs(struct __test_metadata *_metadata, int fd,
			   unsigned long cmd, void *arg, const char *name)
{
	bool saw_d = false, killed = false;
	int ret = dt_child_ioctl(fd, cmd, arg, EXCLUSIVE_TIMEOUT, &saw_d,
				 &killed);

	EXPECT_EQ(0, ret) {
		TH_LOG("%s behind a stalled argument page: %s%s", name,
		       ret == -ETIMEDOUT ? "did not finish" : strerror(-ret),
		       ret == -ETIMEDOUT && !killed ?
		       ", and SIGKILL did not end it" : "");
	}
	EXPECT_FALSE(saw_d) {
		TH_LOG("%s sat in uninterruptible sleep (D)", name);
	}
}

TEST_F_TIMEOUT(dev, request_stalled_check_and_init_run, 120)
{
	struct sl_em_ioc_add req = {
		.extent = { .start = 100, .len = 10, .disk_start = 5000 },
	};
	struct sl_ra_ioc_init init = { .start = 0, .end = SPACE };
	struct sl_em_ioc_extent e;
	struct dt_stall st;

	ASSERT_EQ(0, dt_stall_in(&st, self->fd, SL_EM_IOC_ADD, &req,
				 sizeof(req)));
	exclusive_runs(_metadata, self->fd, SL_EM_IOC_CHECK, NULL, "EM_CHECK");
	/* The child's copy of init is what the kernel reads. */
	exclusive_runs(_metadata, self->fd, SL_RA_IOC_INIT, &init, "RA_INIT");
	EXPECT_EQ(0, dt_stall_release(&st, false));
	ASSERT_EQ(0, sx_em_lookup(self->fd, 105, &e));
	EXPECT_EQ(5000, e.disk_start);
	/* The child's INIT made the allocator. */
	EXPECT_EQ(-EBUSY, sx_ra_init(self->fd, 0, SPACE, 0));
	EXPECT_EQ(0, sx_em_check(self->fd));
}

TEST_F_TIMEOUT(dev, result_stalled_check_runs, 120)
{
	struct sl_em_ioc_lookup req = { .offset = 3 };
	const struct sl_em_ioc_lookup *out;
	struct dt_stall st;

	ASSERT_EQ(0, sx_em_add(self->fd, 0, 10, 700, 0, false));
	/* The LOOKUP found its extent and waits to write it out. */
	ASSERT_EQ(0, dt_stall_out(&st, self->fd, SL_EM_IOC_LOOKUP, &req,
				  sizeof(req),
				  offsetof(struct sl_em_ioc_lookup, extent)));
	exclusive_runs(_metadata, self->fd, SL_EM_IOC_CHECK, NULL, "EM_CHECK");
	EXPECT_EQ(0, dt_stall_release(&st, false));
	out = dt_stall_request(&st);
	EXPECT_EQ(0, out->extent.start);
	EXPECT_EQ(700, out->extent.disk_start);
}

TEST_F_TIMEOUT(dev, stalled_thread_killable, 60)
{
	struct sl_em_ioc_add req = { .extent = { .start = 1, .len = 1 } };
	bool saw_d = false;
	int status;
	pid_t pid;

	ASSERT_EQ(0, dt_stall_child(self->fd, SL_EM_IOC_ADD, &req, sizeof(req),
				    &pid));
	usleep(200000);
	EXPECT_NE('D', dt_task_state(pid));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(0, dt_wait_child(pid, 5, &status, &saw_d)) {
		kill(pid, SIGKILL);
		TH_LOG("a thread stalled on its argument page survived SIGKILL");
	}
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_FALSE(saw_d);
	EXPECT_EQ(-ENOENT, sx_em_lookup(self->fd, 1, NULL));
	EXPECT_EQ(0, sx_em_count(self->fd));
}

/* An RA_ALLOC of 16 units, stalled writing its result back. */
static void alloc_stalled(struct __test_metadata *_metadata,
			  struct dt_stall *st, int fd)
{
	static struct sl_ra_ioc_alloc req;
	struct sl_ra_ioc_stats stats;

	memset(&req, 0, sizeof(req));
	req.size = 16;
	req.align = 16;
	ASSERT_EQ(0, sx_ra_init(fd, 0, SPACE, SL_RA_INIT_SHADOW));
	ASSERT_EQ(0, dt_stall_out(st, fd, SL_RA_IOC_ALLOC, &req, sizeof(req),
				  offsetof(struct sl_ra_ioc_alloc, start)));
	/* The range was allocated before the result stalled. */
	ASSERT_EQ(0, sx_ra_stats(fd, &stats));
	ASSERT_EQ(1, stats.ranges);
	ASSERT_EQ(-EEXIST, sx_ra_reserve(fd, 0, 16));
}

/* The result cannot be written back: -EFAULT, and the range stays. */
TEST_F_TIMEOUT(dev, alloc_result_fault_keeps_range, 60)
{
	struct sl_ra_ioc_stats stats;
	struct dt_stall st;

	if (!dt_uffd_usable(true))
		SKIP(return, "userfaultfd cannot write-protect here");
	alloc_stalled(_metadata, &st, self->fd);
	EXPECT_EQ(-EFAULT, dt_stall_release(&st, true));
	ASSERT_EQ(0, sx_ra_stats(self->fd, &stats));
	EXPECT_EQ(1, stats.ranges) {
		TH_LOG("the failed RA_ALLOC did not keep its range");
	}
	EXPECT_EQ(-EEXIST, sx_ra_reserve(self->fd, 0, 16));
	EXPECT_EQ(0, sx_ra_free(self->fd, 0, 16));
	EXPECT_EQ(0, sx_ra_shadow(self->fd));
}

/*
 * Meanwhile another thread frees the range, guessing where it is, and is
 * handed the same range again: the failed call must leave that alone.
 */
TEST_F_TIMEOUT(dev, alloc_result_fault_spares_other_thread, 60)
{
	struct sl_ra_ioc_stats stats;
	struct dt_stall st;
	__u64 start = 1;

	if (!dt_uffd_usable(true))
		SKIP(return, "userfaultfd cannot write-protect here");
	alloc_stalled(_metadata, &st, self->fd);
	ASSERT_EQ(0, sx_ra_free(self->fd, 0, 16));
	ASSERT_EQ(0, sx_ra_alloc(self->fd, 16, 16, 0, 0, 0, &start));
	ASSERT_EQ(0, start);
	EXPECT_EQ(-EFAULT, dt_stall_release(&st, true));
	/* Still the other thread's: nobody else may claim it. */
	EXPECT_EQ(-EEXIST, sx_ra_reserve(self->fd, 0, 16)) {
		TH_LOG("the failed RA_ALLOC freed another thread's range");
	}
	ASSERT_EQ(0, sx_ra_stats(self->fd, &stats));
	EXPECT_EQ(1, stats.ranges);
	EXPECT_EQ(0, sx_ra_free(self->fd, 0, 16));
	EXPECT_EQ(-ENOENT, sx_ra_free(self->fd, 0, 16));
	EXPECT_EQ(0, sx_ra_shadow(self->fd));
}

int main(int argc, char **argv)
{
	if (!dt_uffd_usable(false)) {
		printf("1..0 # SKIP userfaultfd is unavailable to this test\n");
		return DT_KSFT_SKIP;
	}
	return test_harness_run(argc, argv);
}
