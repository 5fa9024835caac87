// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/skiplist with argument pages that stall (userfaultfd): a thread
 * whose request or result page never arrives must hold up nobody else,
 * CLEAR and CHECK on the same descriptor included, and must itself die
 * when killed; and INSERT_HOLE whose result cannot be written back keeps
 * the extent it inserted, never deleting one that another thread has been
 * given at the same key meanwhile (uapi/skiplist_dev.h, "Results").
 *
 * Exits 4 (skip) where userfaultfd is unavailable to the test.
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "sl_ioctl.h"

/* Long enough for a CLEAR or CHECK of a near-empty index under emulation. */
#define EXCLUSIVE_TIMEOUT	10.0

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = sl_open();
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, SL_MISSING);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Run an exclusive command (CLEAR or CHECK) in a child: it must finish,
 * successfully, without ever sleeping uninterruptibly.
 */
static void exclusive_runs(struct __test_metadata *_metadata, int fd,
			   unsigned long cmd, const char *name)
{
	bool saw_d = false, killed = false;
	int ret = dt_child_ioctl(fd, cmd, NULL, EXCLUSIVE_TIMEOUT, &saw_d,
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

TEST_F_TIMEOUT(dev, request_stalled_clear_and_check_run, 120)
{
	struct sl_ioc_insert req = { .key = 100, .size = 10, .value = 7 };
	struct sl_ioc_extent e;
	struct dt_stall st;

	/* The INSERT waits in the kernel for its request page. */
	ASSERT_EQ(0, dt_stall_in(&st, self->fd, SL_IOC_INSERT, &req,
				 sizeof(req)));
	exclusive_runs(_metadata, self->fd, SL_IOC_CLEAR, "CLEAR");
	exclusive_runs(_metadata, self->fd, SL_IOC_CHECK, "CHECK");
	/* Let it go: it inserts into the index that CLEAR left. */
	EXPECT_EQ(0, dt_stall_release(&st, false));
	ASSERT_EQ(0, sl_lookup(self->fd, 105, &e));
	EXPECT_EQ(100, e.key);
	EXPECT_EQ(7, e.value);
	EXPECT_EQ(0, sl_check(self->fd));
}

TEST_F_TIMEOUT(dev, records_stalled_clear_runs, 120)
{
	struct sl_ioc_iterate req = { .key = 0, .max = 8 };
	const struct sl_ioc_extent *recs;
	struct dt_stall st;
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, sl_insert(self->fd, 10 * i, 5, i));
	/* ITERATE gathered its records and waits to write them out. */
	ASSERT_EQ(0, dt_stall_buffer(&st, self->fd, SL_IOC_ITERATE, &req,
				     sizeof(req),
				     offsetof(struct sl_ioc_iterate, records)));
	exclusive_runs(_metadata, self->fd, SL_IOC_CLEAR, "CLEAR");
	EXPECT_EQ(0, dt_stall_release(&st, false));
	/* What it gathered before the CLEAR. */
	EXPECT_EQ(3, req.count);
	recs = (const void *)(unsigned long)req.records;
	for (i = 0; i < 3; i++)
		EXPECT_EQ(10 * i, recs[i].key);
	EXPECT_EQ(-ENOENT, sl_lookup(self->fd, 10, NULL));
}

TEST_F_TIMEOUT(dev, stalled_thread_killable, 60)
{
	struct sl_ioc_insert req = { .key = 1, .size = 1 };
	bool saw_d = false;
	int status;
	pid_t pid;

	ASSERT_EQ(0, dt_stall_child(self->fd, SL_IOC_INSERT, &req, sizeof(req),
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
	/* The descriptor is unharmed, the stalled INSERT never happened. */
	EXPECT_EQ(-ENOENT, sl_lookup(self->fd, 1, NULL));
	EXPECT_EQ(0, sl_insert(self->fd, 1, 1, 1));
}

/* An INSERT_HOLE of 8 units in [0, 64), stalled writing its result back. */
static void hole_stalled(struct __test_metadata *_metadata,
			 struct dt_stall *st, int fd, __u64 value)
{
	static struct sl_ioc_insert_hole req;
	struct sl_ioc_extent e;

	memset(&req, 0, sizeof(req));
	req.size = 8;
	req.align = 8;
	req.max = 64;
	req.value = value;
	ASSERT_EQ(0, dt_stall_out(st, fd, SL_IOC_INSERT_HOLE, &req,
				  sizeof(req),
				  offsetof(struct sl_ioc_insert_hole, key)));
	/* The extent went in before the result stalled. */
	ASSERT_EQ(0, sl_lookup(fd, 0, &e));
	EXPECT_EQ(value, e.value);
}

/* The result cannot be written back: -EFAULT, and the extent stays. */
TEST_F_TIMEOUT(dev, hole_result_fault_keeps_extent, 60)
{
	struct sl_ioc_extent e;
	struct sl_ioc_stats st;
	struct dt_stall stall;

	if (!dt_uffd_usable(true))
		SKIP(return, "userfaultfd cannot write-protect here");
	hole_stalled(_metadata, &stall, self->fd, 0xa);
	EXPECT_EQ(-EFAULT, dt_stall_release(&stall, true));
	ASSERT_EQ(0, sl_lookup(self->fd, 0, &e));
	EXPECT_EQ(0xa, e.value);
	ASSERT_EQ(0, sl_stats(self->fd, &st));
	EXPECT_EQ(1, st.items);
}

/*
 * Meanwhile another thread deletes the extent, guessing its key, and
 * claims the same range: the failed call must leave that one alone.
 */
TEST_F_TIMEOUT(dev, hole_result_fault_spares_other_thread, 60)
{
	struct sl_ioc_extent e;
	struct sl_ioc_stats st;
	struct dt_stall stall;
	__u64 key = 1;

	if (!dt_uffd_usable(true))
		SKIP(return, "userfaultfd cannot write-protect here");
	hole_stalled(_metadata, &stall, self->fd, 0xa);
	ASSERT_EQ(0, sl_delete(self->fd, 0));
	ASSERT_EQ(0, sl_hole_value(self->fd, 8, 8, 0, 64, 0, 0xb, &key));
	ASSERT_EQ(0, key);
	EXPECT_EQ(-EFAULT, dt_stall_release(&stall, true));
	ASSERT_EQ(0, sl_lookup(self->fd, 0, &e)) {
		TH_LOG("the failed INSERT_HOLE removed another thread's extent");
	}
	EXPECT_EQ(0xb, e.value);
	ASSERT_EQ(0, sl_stats(self->fd, &st));
	EXPECT_EQ(1, st.items);
	EXPECT_EQ(0, sl_check(self->fd));
}

int main(int argc, char **argv)
{
	if (!dt_uffd_usable(false)) {
		printf("1..0 # SKIP userfaultfd is unavailable to this test\n");
		return DT_KSFT_SKIP;
	}
	return test_harness_run(argc, argv);
}
