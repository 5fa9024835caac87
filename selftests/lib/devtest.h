/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devtest: what the selftests of every device of this project share
 * (/dev/skiplist and /dev/sl_extent today): opening the device, random
 * numbers biased to the edges of 64 bits, a pool of bad and awkward
 * argument pointers, a tally of errnos checked against the documented
 * ones, timed worker threads, the state of a task, and userfaultfd pages
 * that stall a kernel's copy of an argument until the test lets it go.
 *
 * Plain C with no dependency on kselftest_harness.h, so that every test
 * program links the same devtest.c; each function returns 0 or -errno
 * unless it says otherwise, and never exits.
 */
#ifndef _DEVTEST_H
#define _DEVTEST_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include <linux/userfaultfd.h>

#define DT_PAGE			4096UL
/* A kernel address: never valid from userspace. */
#define DT_KERNEL_ADDR		((void *)0xffffffff81000000UL)
/* The exit status of a kselftest that skipped. */
#define DT_KSFT_SKIP		4

/* Open a device read-write, retrying -ENOMEM (failslab); fd or -errno. */
int dt_open(const char *path);
/* Drop CAP_SYS_ADMIN from the effective set: 0 or -errno. */
int dt_drop_sys_admin(void);

/* A number from the environment, or @def when unset or empty. */
double dt_env(const char *name, double def);
/* CLOCK_MONOTONIC in seconds. */
double dt_now(void);

/* ----- Random numbers: xorshift64, never seeded with 0 ----- */

/* The seed from the environment variable @name, else the time. */
unsigned long long dt_seed(const char *name);
unsigned long long dt_rnd(unsigned long long *s);
/* Small, near 2^64, a power of two, or anything, a quarter each. */
__u64 dt_rnd_u64(unsigned long long *s);

/* ----- Argument pointers ----- */

/*
 * @page is read-write and followed by an unmapped page (@unmapped); @ro
 * is read-only, so a request placed there is read and its result cannot
 * be written back.  Pages that stall are dt_staller's, below.
 */
struct dt_ptrs {
	char *page;
	char *unmapped;
	char *ro;
};

int dt_ptrs_init(struct dt_ptrs *p);
void dt_ptrs_free(struct dt_ptrs *p);

/*
 * Where to pass a request of @size bytes built at @req (inside @p->page
 * or anywhere else): usually @req itself; otherwise NULL, an unmapped or
 * kernel address, a copy running into the unmapped page, a misaligned
 * copy, or a copy on the read-only page.  @stall, if not NULL, is offered
 * too (a dt_staller's page; the request is not copied there: the staller
 * fills the page with its @content when the kernel faults on it).
 */
void *dt_fuzz_arg(struct dt_ptrs *p, unsigned long long *s, const void *req,
		  size_t size, void *stall);

/* ----- Errnos ----- */

#define DT_MAX_ERRNO	256

struct dt_errs {
	unsigned long calls;
	unsigned long ok;
	unsigned long n[DT_MAX_ERRNO];
};

/* "EFAULT" for EFAULT (a positive errno), "?" if unknown. */
const char *dt_errname(int err);
/* Count one result: 0, or -errno. */
void dt_errs_count(struct dt_errs *e, int ret);
void dt_errs_add(struct dt_errs *sum, const struct dt_errs *e);
/*
 * The failures whose errno is not in @allowed (a list ending with -1,
 * where 0 stands for nothing); the first such errno in *@first when
 * there is one.
 */
unsigned long dt_errs_other(const struct dt_errs *e, const int *allowed,
			    int *first);
/* "N calls, M ok, EFAULT a, EINVAL b, ..." into @buf. */
void dt_errs_format(const struct dt_errs *e, char *buf, size_t len);

/* ----- Timed worker threads in roles ----- */

/* One thread of a role: its state, handed to the role's operation. */
struct dt_worker {
	pthread_t tid;
	int id;			/* 0.. within its role */
	int fd;			/* the descriptor for this call */
	unsigned long long seed;
	struct dt_role *role;
	struct dt_run *run;
	struct dt_errs errs;
	unsigned long bad;	/* results that broke an invariant */
	char what[160];		/* the first of them */
};

/*
 * Threads that do one kind of thing: @op makes one call (or a few) with
 * w->fd and w->seed and returns 0 or -errno, which the runner tallies in
 * the role's @errs; a result that breaks an invariant it reports with
 * dt_worker_bad().  @arg is the test's.
 */
struct dt_role {
	const char *name;
	int threads;
	int (*op)(struct dt_worker *w);
	void *arg;
	struct dt_errs errs;	/* out: the role's threads together */
	unsigned long bad;	/* out */
	char what[200];		/* out: the first broken invariant */
};

/*
 * How the threads get their descriptors:
 *  DT_FD_SHARED     every call on @fd;
 *  DT_FD_DUP_CLOSE  every call on a duplicate of @fd that the runner's
 *                   own thread closes and replaces again and again, so
 *                   that calls are in flight when it closes (EBADF is
 *                   then a result like any other);
 *  DT_FD_OPEN_CLOSE each thread opens @path, makes a few calls, closes it
 *                   and opens it again (a new device state every time).
 */
enum dt_fd_mode { DT_FD_SHARED, DT_FD_DUP_CLOSE, DT_FD_OPEN_CLOSE };

struct dt_run {
	enum dt_fd_mode mode;
	int fd;
	const char *path;
	double seconds;
	unsigned long long seed;
	double until;
	int dup_fd;		/* read and written with __atomic */
	unsigned long churns;	/* out: descriptors closed by the churn */
};

/* Record a broken invariant (the first message is kept). */
__attribute__((format(printf, 2, 3)))
void dt_worker_bad(struct dt_worker *w, const char *fmt, ...);
/*
 * Run every role's threads at once for @run->seconds; 0, or -errno if a
 * thread could not be started or a descriptor opened (what started is
 * joined either way).
 */
int dt_run_roles(struct dt_run *run, struct dt_role *roles, int nr);

/* ----- Tasks ----- */

/*
 * The state letter of a thread of this process (tid) or of another
 * process (pid): 'R', 'S', 'D', 'Z', ...; 0 if it is gone.
 */
char dt_task_state(pid_t tid);
/*
 * Wait up to @timeout seconds for child @pid; its wait status in
 * *@status.  *@saw_d is set if the child was seen in uninterruptible
 * sleep ('D') for more than half a second.  0, or -ETIMEDOUT.
 */
int dt_wait_child(pid_t pid, double timeout, int *status, bool *saw_d);

/* ----- userfaultfd ----- */

/*
 * A userfaultfd for this process, handling faults of the kernel's own
 * accesses too; -errno if the kernel has none or forbids it (skip then).
 */
int dt_uffd_open(void);
/* Whether userfaultfd is usable, with write-protection when @wp. */
bool dt_uffd_usable(bool wp);
int dt_uffd_register(int uffd, void *addr, size_t len, bool wp);
/* Wait up to @timeout_ms for a fault message: 0, or -ETIMEDOUT. */
int dt_uffd_wait(int uffd, int timeout_ms, struct uffd_msg *msg);
/* Fill a missing page with @src (a page) and wake its waiters. */
int dt_uffd_copy(int uffd, void *dst, const void *src);
/* Write-protect a page, or lift the protection and wake its waiters. */
int dt_uffd_wp(int uffd, void *addr, bool protect);

/*
 * One ioctl on a thread of its own whose argument stalls in the kernel's
 * copy until the test releases it:
 *  - dt_stall_in(): the request lies on a missing page; the kernel stalls
 *    reading it, before the command has done anything;
 *  - dt_stall_out(): the request is readable but the page holding its
 *    first @result_off bytes is write-protected, and the rest (from
 *    @result_off, which must be below @size) lies on the next page: the
 *    command runs and stalls writing its result back.
 * Both return once the thread is stalled (0), or -ETIMEDOUT if no fault
 * came within 10 s.  dt_stall_release() lets the copy go on; with
 * @result_ro, the page from @result_off on is made read-only first, so
 * the kernel's write back fails there.  It returns the ioctl's result, 0
 * or -errno.  @uffd_page, if not NULL, names a buffer the command writes
 * (an iteration's records) to stall instead of the request: the request
 * is then an ordinary one at @req.
 */
struct dt_stall {
	int fd;
	unsigned long cmd;
	int uffd;
	char *map;		/* two pages */
	void *arg;
	const void *req;
	size_t size;
	size_t result_off;
	bool out;
	int ret;
	pthread_t tid;
};

int dt_stall_in(struct dt_stall *st, int fd, unsigned long cmd,
		const void *req, size_t size);
int dt_stall_out(struct dt_stall *st, int fd, unsigned long cmd,
		 const void *req, size_t size, size_t result_off);
/*
 * An ioctl whose request is at @req and whose output buffer, at
 * @buf_off inside the request, is pointed at a missing page before the
 * call: the command runs and stalls writing the buffer.
 */
int dt_stall_buffer(struct dt_stall *st, int fd, unsigned long cmd,
		    void *req, size_t size, size_t buf_off);
int dt_stall_release(struct dt_stall *st, bool result_ro);
/* What the released request holds now (its result, if written). */
const void *dt_stall_request(const struct dt_stall *st);

/*
 * A child process that stalls itself in ioctl(@fd, @cmd) on a missing
 * page nobody serves; *@pid once it has entered the kernel.  For tests
 * that kill it.
 */
int dt_stall_child(int fd, unsigned long cmd, const void *req, size_t size,
		   pid_t *pid);

/*
 * Run ioctl(@fd, @cmd, @arg) in a child process and wait up to @timeout
 * seconds: its result (0 or -errno), or -ETIMEDOUT if it did not finish,
 * in which case the child is killed and *@killed says whether SIGKILL
 * ended it within 5 s.  *@saw_d as dt_wait_child().
 */
int dt_child_ioctl(int fd, unsigned long cmd, void *arg, double timeout,
		   bool *saw_d, bool *killed);

/*
 * A page whose faults a server thread answers after a random delay of up
 * to @max_delay_us, filling it with @content (a page); the page is
 * emptied again by dt_staller_rearm(), so that the next access stalls
 * once more.  For fuzzers: calls that pass @page are slowed, not stopped.
 */
struct dt_staller {
	int uffd;
	char *page;
	char *content;
	unsigned int max_delay_us;
	bool stop;		/* read and written with __atomic */
	unsigned long served;
	pthread_t tid;
};

int dt_staller_start(struct dt_staller *st, unsigned int max_delay_us);
void dt_staller_rearm(struct dt_staller *st);
void dt_staller_stop(struct dt_staller *st);

/* ----- Memory cgroups ----- */

/*
 * Move this process into a new memory cgroup of the cgroup v2 hierarchy
 * (mounted on a temporary directory if it is nowhere), its directory in
 * @path: 0, or -errno (skip then).  dt_memcg_leave() moves the process
 * back to the root and removes the group.
 */
int dt_memcg_enter(char *path, size_t len);
/* The bytes charged to the group (memory.current), or -errno. */
long long dt_memcg_current(const char *path);
void dt_memcg_leave(const char *path);

#endif /* _DEVTEST_H */
