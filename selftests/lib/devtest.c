// SPDX-License-Identifier: GPL-2.0
/*
 * devtest: the selftests' shared scaffolding (devtest.h says what each
 * piece is for).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include "devtest.h"

int dt_open(const char *path)
{
	int fd, tries = 0;

	do {
		fd = open(path, O_RDWR | O_CLOEXEC);
	} while (fd < 0 && errno == ENOMEM && ++tries < 1000);
	return fd < 0 ? -errno : fd;
}

double dt_env(const char *name, double def)
{
	const char *v = getenv(name);

	return v && *v ? atof(v) : def;
}

double dt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

unsigned long long dt_seed(const char *name)
{
	const char *v = getenv(name);

	if (v && *v)
		return strtoull(v, NULL, 0);
	return (unsigned long long)time(NULL);
}

unsigned long long dt_rnd(unsigned long long *s)
{
	if (!*s)
		*s = 0x9e3779b97f4a7c15ULL;
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

__u64 dt_rnd_u64(unsigned long long *s)
{
	switch (dt_rnd(s) % 4) {
	case 0:
		return dt_rnd(s) % 4096;
	case 1:
		return ~0ULL - dt_rnd(s) % 4096;
	case 2:
		return 1ULL << (dt_rnd(s) % 64);
	default:
		return dt_rnd(s);
	}
}

/* ----- Argument pointers ----- */

int dt_ptrs_init(struct dt_ptrs *p)
{
	char *map = mmap(NULL, 3 * DT_PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (map == MAP_FAILED)
		return -errno;
	memset(map, 0, 3 * DT_PAGE);
	p->page = map;
	p->unmapped = map + DT_PAGE;
	p->ro = map + 2 * DT_PAGE;
	if (munmap(p->unmapped, DT_PAGE) ||
	    mprotect(p->ro, DT_PAGE, PROT_READ))
		return -errno;
	return 0;
}

void dt_ptrs_free(struct dt_ptrs *p)
{
	munmap(p->page, DT_PAGE);
	munmap(p->ro, DT_PAGE);
}

/* Copy @size bytes to a read-only page: drop the protection meanwhile. */
static void *dt_put_ro(struct dt_ptrs *p, const void *req, size_t size)
{
	char *at = p->ro + DT_PAGE - size;

	if (mprotect(p->ro, DT_PAGE, PROT_READ | PROT_WRITE))
		return NULL;
	memcpy(at, req, size);
	mprotect(p->ro, DT_PAGE, PROT_READ);
	return at;
}

void *dt_fuzz_arg(struct dt_ptrs *p, unsigned long long *s, const void *req,
		  size_t size, void *stall)
{
	char *at;

	switch (dt_rnd(s) % 16) {
	case 0:
		return NULL;
	case 1:
		return p->unmapped;
	case 2:
		return DT_KERNEL_ADDR;
	case 3:
		/* Runs into the unmapped page after 8 bytes. */
		at = p->unmapped - 8;
		memmove(at, req, 8);
		return at;
	case 4:
		/* Misaligned: the kernel must not care. */
		at = p->page + DT_PAGE - size - 1;
		memmove(at, req, size);
		return at;
	case 5:
		return dt_put_ro(p, req, size);
	case 6:
		if (stall)
			return stall;
		return (void *)req;
	default:
		return (void *)req;
	}
}

/* ----- Errnos ----- */

const char *dt_errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "?";
}

void dt_errs_count(struct dt_errs *e, int ret)
{
	e->calls++;
	if (!ret)
		e->ok++;
	else
		e->n[-ret & (DT_MAX_ERRNO - 1)]++;
}

void dt_errs_add(struct dt_errs *sum, const struct dt_errs *e)
{
	int i;

	sum->calls += e->calls;
	sum->ok += e->ok;
	for (i = 0; i < DT_MAX_ERRNO; i++)
		sum->n[i] += e->n[i];
}

unsigned long dt_errs_other(const struct dt_errs *e, const int *allowed,
			    int *first)
{
	unsigned long other = 0;
	int i, j;

	for (i = 1; i < DT_MAX_ERRNO; i++) {
		if (!e->n[i])
			continue;
		for (j = 0; allowed[j] >= 0 && allowed[j] != i; j++)
			;
		if (allowed[j] >= 0)
			continue;
		if (!other && first)
			*first = i;
		other += e->n[i];
	}
	return other;
}

void dt_errs_format(const struct dt_errs *e, char *buf, size_t len)
{
	size_t at;
	int i;

	at = snprintf(buf, len, "%lu calls, %lu ok", e->calls, e->ok);
	for (i = 1; i < DT_MAX_ERRNO && at < len; i++) {
		if (e->n[i])
			at += snprintf(buf + at, len - at, ", %s %lu",
				       dt_errname(i), e->n[i]);
	}
}

/* ----- Timed worker threads in roles ----- */

void dt_worker_bad(struct dt_worker *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->bad++) {
		va_start(ap, fmt);
		vsnprintf(w->what, sizeof(w->what), fmt, ap);
		va_end(ap);
	}
}

static void *dt_worker_thread(void *arg)
{
	struct dt_worker *w = arg;
	struct dt_run *run = w->run;
	unsigned long ops = 0, left = 0;
	int own = -1;

	/* The clock every 16 calls: a syscall each time would dominate. */
	while ((ops++ & 15) || dt_now() < run->until) {
		switch (run->mode) {
		case DT_FD_SHARED:
			w->fd = run->fd;
			break;
		case DT_FD_DUP_CLOSE:
			w->fd = __atomic_load_n(&run->dup_fd, __ATOMIC_ACQUIRE);
			break;
		case DT_FD_OPEN_CLOSE:
			if (!left) {
				if (own >= 0)
					close(own);
				own = dt_open(run->path);
				if (own < 0) {
					dt_errs_count(&w->errs, own);
					continue;
				}
				left = 1 + dt_rnd(&w->seed) % 32;
			}
			left--;
			w->fd = own;
			break;
		}
		dt_errs_count(&w->errs, w->role->op(w));
	}
	if (own >= 0)
		close(own);
	return NULL;
}

int dt_run_roles(struct dt_run *run, struct dt_role *roles, int nr)
{
	struct dt_worker *w;
	int total = 0, i, j, k, started = 0, ret = 0;
	unsigned long long s = run->seed | 1;

	for (i = 0; i < nr; i++)
		total += roles[i].threads;
	w = calloc(total, sizeof(*w));
	if (!w)
		return -ENOMEM;
	run->churns = 0;
	run->dup_fd = run->fd;
	if (run->mode == DT_FD_DUP_CLOSE) {
		run->dup_fd = dup(run->fd);
		if (run->dup_fd < 0) {
			free(w);
			return -errno;
		}
	}
	run->until = dt_now() + run->seconds;
	for (i = 0, k = 0; i < nr && !ret; i++) {
		for (j = 0; j < roles[i].threads && !ret; j++, k++) {
			w[k].id = j;
			w[k].role = &roles[i];
			w[k].run = run;
			w[k].seed = dt_rnd(&s);
			ret = -pthread_create(&w[k].tid, NULL, dt_worker_thread,
					      &w[k]);
			if (!ret)
				started++;
		}
	}
	/* The churn: close the duplicate under the calls, make another. */
	while (run->mode == DT_FD_DUP_CLOSE && dt_now() < run->until) {
		int old = run->dup_fd, fresh;

		usleep(dt_rnd(&s) % 2000);
		fresh = dup(run->fd);
		if (fresh < 0)
			break;
		__atomic_store_n(&run->dup_fd, fresh, __ATOMIC_RELEASE);
		close(old);
		run->churns++;
	}
	for (k = 0; k < started; k++)
		pthread_join(w[k].tid, NULL);
	if (run->mode == DT_FD_DUP_CLOSE)
		close(run->dup_fd);
	for (k = 0; k < started; k++) {
		struct dt_role *r = w[k].role;

		dt_errs_add(&r->errs, &w[k].errs);
		if (w[k].bad && !r->bad)
			snprintf(r->what, sizeof(r->what), "thread %d: %s",
				 w[k].id, w[k].what);
		r->bad += w[k].bad;
	}
	free(w);
	return ret;
}

/* ----- Tasks ----- */

char dt_task_state(pid_t tid)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	/* A thread of ours, else a process. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", getpid(), tid);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/stat", tid);
		fd = open(path, O_RDONLY);
	}
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "pid (comm) S ...": the comm may hold anything, even ')'. */
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

int dt_wait_child(pid_t pid, double timeout, int *status, bool *saw_d)
{
	double end = dt_now() + timeout, d_since = 0;

	for (;;) {
		pid_t got = waitpid(pid, status, WNOHANG);

		if (got == pid)
			return 0;
		if (dt_task_state(pid) == 'D') {
			if (!d_since)
				d_since = dt_now();
			else if (saw_d && dt_now() - d_since > 0.5)
				*saw_d = true;
		} else {
			d_since = 0;
		}
		if (dt_now() > end)
			return -ETIMEDOUT;
		usleep(10000);
	}
}

/* ----- userfaultfd ----- */

int dt_uffd_open(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	int uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (uffd < 0)
		return -errno;
	if (ioctl(uffd, UFFDIO_API, &api)) {
		int err = errno;

		close(uffd);
		return -err;
	}
	return uffd;
}

bool dt_uffd_usable(bool wp)
{
	char *page = mmap(NULL, DT_PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int uffd = dt_uffd_open();
	bool ok;

	if (page == MAP_FAILED) {
		if (uffd >= 0)
			close(uffd);
		return false;
	}
	page[0] = 1;
	ok = uffd >= 0 && !dt_uffd_register(uffd, page, DT_PAGE, wp) &&
	     (!wp || !dt_uffd_wp(uffd, page, true));
	if (uffd >= 0)
		close(uffd);
	munmap(page, DT_PAGE);
	return ok;
}

int dt_uffd_register(int uffd, void *addr, size_t len, bool wp)
{
	struct uffdio_register reg = {
		.range = { .start = (unsigned long)addr, .len = len },
		.mode = wp ? UFFDIO_REGISTER_MODE_WP :
			     UFFDIO_REGISTER_MODE_MISSING,
	};

	return ioctl(uffd, UFFDIO_REGISTER, &reg) ? -errno : 0;
}

int dt_uffd_wait(int uffd, int timeout_ms, struct uffd_msg *msg)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	double end = dt_now() + timeout_ms / 1000.0;

	for (;;) {
		int left = (end - dt_now()) * 1000;

		if (left < 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, left) < 0 && errno != EINTR)
			return -errno;
		if (read(uffd, msg, sizeof(*msg)) == sizeof(*msg)) {
			if (msg->event == UFFD_EVENT_PAGEFAULT)
				return 0;
			continue;
		}
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
}

int dt_uffd_copy(int uffd, void *dst, const void *src)
{
	struct uffdio_copy copy = {
		.dst = (unsigned long)dst & ~(DT_PAGE - 1),
		.src = (unsigned long)src,
		.len = DT_PAGE,
	};

	if (!ioctl(uffd, UFFDIO_COPY, &copy))
		return 0;
	/* Filled already (another fault of the same page won the race). */
	if (errno == EEXIST) {
		struct uffdio_range wake = { .start = copy.dst, .len = DT_PAGE };

		return ioctl(uffd, UFFDIO_WAKE, &wake) ? -errno : 0;
	}
	return -errno;
}

int dt_uffd_wp(int uffd, void *addr, bool protect)
{
	struct uffdio_writeprotect wp = {
		.range = { .start = (unsigned long)addr, .len = DT_PAGE },
		.mode = protect ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	return ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) ? -errno : 0;
}

static void *dt_stall_thread(void *arg)
{
	struct dt_stall *st = arg;

	st->ret = ioctl(st->fd, st->cmd, st->arg) ? -errno : 0;
	return NULL;
}

static int dt_stall_map(struct dt_stall *st, int fd, unsigned long cmd,
			const void *req, size_t size)
{
	memset(st, 0, sizeof(*st));
	st->fd = fd;
	st->cmd = cmd;
	st->req = req;
	st->size = size;
	st->uffd = dt_uffd_open();
	if (st->uffd < 0)
		return st->uffd;
	st->map = mmap(NULL, 2 * DT_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->map == MAP_FAILED) {
		close(st->uffd);
		return -errno;
	}
	return 0;
}

/* Start the call and wait until it stalls on the first page. */
static int dt_stall_start(struct dt_stall *st)
{
	struct uffd_msg msg;
	int ret;

	ret = -pthread_create(&st->tid, NULL, dt_stall_thread, st);
	if (ret)
		return ret;
	ret = dt_uffd_wait(st->uffd, 10000, &msg);
	if (!ret && (msg.arg.pagefault.address & ~(DT_PAGE - 1)) !=
		    (unsigned long)st->map)
		ret = -EFAULT;
	return ret;
}

int dt_stall_in(struct dt_stall *st, int fd, unsigned long cmd,
		const void *req, size_t size)
{
	int ret = dt_stall_map(st, fd, cmd, req, size);

	if (ret)
		return ret;
	/* The request begins the missing page. */
	st->arg = st->map;
	ret = dt_uffd_register(st->uffd, st->map, DT_PAGE, false);
	return ret ? ret : dt_stall_start(st);
}

int dt_stall_out(struct dt_stall *st, int fd, unsigned long cmd,
		 const void *req, size_t size, size_t result_off)
{
	int ret = dt_stall_map(st, fd, cmd, req, size);

	if (ret)
		return ret;
	if (!result_off || result_off >= size)
		return -EINVAL;
	/* Up to the result on the protected page, the result on the next. */
	st->out = true;
	st->result_off = result_off;
	st->arg = st->map + DT_PAGE - result_off;
	memcpy(st->arg, req, size);
	ret = dt_uffd_register(st->uffd, st->map, DT_PAGE, true);
	if (!ret)
		ret = dt_uffd_wp(st->uffd, st->map, true);
	return ret ? ret : dt_stall_start(st);
}

int dt_stall_buffer(struct dt_stall *st, int fd, unsigned long cmd,
		    void *req, size_t size, size_t buf_off)
{
	int ret = dt_stall_map(st, fd, cmd, req, size);
	__u64 buf;

	if (ret)
		return ret;
	buf = (unsigned long)st->map;
	memcpy((char *)req + buf_off, &buf, sizeof(buf));
	st->arg = req;
	ret = dt_uffd_register(st->uffd, st->map, DT_PAGE, false);
	return ret ? ret : dt_stall_start(st);
}

int dt_stall_release(struct dt_stall *st, bool result_ro)
{
	static char page[DT_PAGE] __attribute__((aligned(4096)));
	int ret;

	if (st->out) {
		if (result_ro &&
		    mprotect(st->map + DT_PAGE, DT_PAGE, PROT_READ))
			return -errno;
		ret = dt_uffd_wp(st->uffd, st->map, false);
	} else if (st->arg == st->map) {
		memcpy(page, st->req, st->size);
		ret = dt_uffd_copy(st->uffd, st->map, page);
	} else {
		memset(page, 0, sizeof(page));
		ret = dt_uffd_copy(st->uffd, st->map, page);
	}
	if (ret)
		return ret;
	pthread_join(st->tid, NULL);
	close(st->uffd);
	return st->ret;
}

const void *dt_stall_request(const struct dt_stall *st)
{
	return st->arg;
}

int dt_stall_child(int fd, unsigned long cmd, const void *req, size_t size,
		   pid_t *pid)
{
	int pipefd[2], ret;
	char c;

	if (pipe(pipefd))
		return -errno;
	*pid = fork();
	if (*pid < 0) {
		ret = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return ret;
	}
	if (!*pid) {
		int uffd = dt_uffd_open();
		char *map = mmap(NULL, DT_PAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (uffd < 0 || map == MAP_FAILED ||
		    dt_uffd_register(uffd, map, DT_PAGE, false))
			_exit(1);
		/* Nobody serves the fault: only a signal ends this call. */
		c = 1;
		if (write(pipefd[1], &c, 1) != 1)
			_exit(1);
		ioctl(fd, cmd, map);
		_exit(2);
	}
	close(pipefd[1]);
	ret = read(pipefd[0], &c, 1) == 1 ? 0 : -ECHILD;
	close(pipefd[0]);
	if (ret)
		return ret;
	/* Into the kernel and asleep on the fault. */
	for (int i = 0; i < 500; i++) {
		char state = dt_task_state(*pid);

		if (state == 'S' || state == 'D')
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

int dt_child_ioctl(int fd, unsigned long cmd, void *arg, double timeout,
		   bool *saw_d, bool *killed)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(ioctl(fd, cmd, arg) ? errno : 0);
	*killed = false;
	if (!dt_wait_child(pid, timeout, &status, saw_d))
		return WIFEXITED(status) ? -WEXITSTATUS(status) : -ECHILD;
	kill(pid, SIGKILL);
	*killed = !dt_wait_child(pid, 5, &status, saw_d);
	return -ETIMEDOUT;
}

/* ----- A server of slow pages ----- */

static void *dt_staller_thread(void *arg)
{
	struct dt_staller *st = arg;
	unsigned long long s = 12345;
	struct uffd_msg msg;

	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
		if (dt_uffd_wait(st->uffd, 100, &msg))
			continue;
		if (st->max_delay_us)
			usleep(dt_rnd(&s) % st->max_delay_us);
		dt_uffd_copy(st->uffd, st->page, st->content);
		st->served++;
	}
	return NULL;
}

int dt_staller_start(struct dt_staller *st, unsigned int max_delay_us)
{
	int ret;

	memset(st, 0, sizeof(*st));
	st->max_delay_us = max_delay_us;
	st->uffd = dt_uffd_open();
	if (st->uffd < 0)
		return st->uffd;
	st->page = mmap(NULL, 2 * DT_PAGE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->page == MAP_FAILED) {
		close(st->uffd);
		return -errno;
	}
	st->content = st->page + DT_PAGE;
	ret = dt_uffd_register(st->uffd, st->page, DT_PAGE, false);
	if (!ret)
		ret = -pthread_create(&st->tid, NULL, dt_staller_thread, st);
	if (ret) {
		close(st->uffd);
		munmap(st->page, 2 * DT_PAGE);
	}
	return ret;
}

void dt_staller_rearm(struct dt_staller *st)
{
	madvise(st->page, DT_PAGE, MADV_DONTNEED);
}

void dt_staller_stop(struct dt_staller *st)
{
	__atomic_store_n(&st->stop, true, __ATOMIC_RELEASE);
	pthread_join(st->tid, NULL);
	close(st->uffd);
	munmap(st->page, 2 * DT_PAGE);
}

/* ----- Memory cgroups ----- */

/* Write @text to the file @dir/@name: 0 or -errno. */
static int dt_write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Where cgroup v2 is mounted, in @root; mounts it if it is nowhere. */
static int dt_cgroup2_root(char *root, size_t len)
{
	char dev[64], dir[256], type[64];
	FILE *f = fopen("/proc/mounts", "r");
	int found = 0;

	if (f) {
		while (fscanf(f, "%63s %255s %63s %*[^\n]", dev, dir, type) == 3)
			if (!strcmp(type, "cgroup2")) {
				snprintf(root, len, "%s", dir);
				found = 1;
				break;
			}
		fclose(f);
	}
	if (found)
		return 0;
	snprintf(root, len, "/tmp/devtest-cgroup2");
	if (mkdir(root, 0755) && errno != EEXIST)
		return -errno;
	return mount("none", root, "cgroup2", 0, NULL) ? -errno : 0;
}

static char dt_memcg_root[256];

int dt_memcg_enter(char *path, size_t len)
{
	char pid[32];
	int ret;

	ret = dt_cgroup2_root(dt_memcg_root, sizeof(dt_memcg_root));
	if (ret)
		return ret;
	/* Fails harmlessly if already on; then the child must have it. */
	dt_write_file(dt_memcg_root, "cgroup.subtree_control", "+memory");
	snprintf(path, len, "%s/devtest.%d", dt_memcg_root, getpid());
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	snprintf(pid, sizeof(pid), "%d", getpid());
	ret = dt_write_file(path, "cgroup.procs", pid);
	if (!ret && dt_memcg_current(path) < 0)
		ret = -ENOTSUP;
	if (ret) {
		dt_write_file(dt_memcg_root, "cgroup.procs", pid);
		rmdir(path);
	}
	return ret;
}

long long dt_memcg_current(const char *path)
{
	char file[512], buf[64];
	ssize_t n;
	int fd;

	snprintf(file, sizeof(file), "%s/memory.current", path);
	fd = open(file, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	return atoll(buf);
}

void dt_memcg_leave(const char *path)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	dt_write_file(dt_memcg_root, "cgroup.procs", pid);
	rmdir(path);
}

/*
 * Every device refuses a caller without CAP_SYS_ADMIN; the kselftest
 * harness forks each test, so dropping it affects that test only.
 */
int dt_drop_sys_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}
