// SPDX-License-Identifier: GPL-2.0
/*
 * whole_index: every command of /dev/skiplist and /dev/sl_extent whose
 * work grows with the whole index, run once on an index of N extents and
 * timed.  tools/vm/guest-stall.sh runs it in a VM booted with lowered
 * soft-lockup and RCU-stall thresholds, where a command that holds a CPU
 * for the whole walk is reported by the kernel; this program only checks
 * that each command did its job and prints how long it took.
 *
 *   whole_index skiplist N   fill, STATS, CHECK, CLEAR, fill again, close
 *   whole_index extent N     EM_ADD N extents, EM_COUNT, EM_CHECK, EM_DROP
 *                            over the whole space, fill again, close
 *   whole_index alloc N      RA_ALLOC N ranges, RA_STATS, -ENOSPC with
 *                            every unit taken, -ENOSPC of an alignment no
 *                            free unit has (N / 2 gaps), close
 *
 * Each line it prints is "whole_index: DEVICE COMMAND SECONDS"; the exit
 * status is 0 only if every command returned what it must.  Before each
 * command it writes "whole_index: DEVICE COMMAND begins" to /dev/kmsg.  The fills run
 * one thread per CPU, each on its own part of the keys, so that the setup
 * does not take most of the time under emulation.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <sys/sysinfo.h>
#include "sl_ioctl.h"
#include "sx_ioctl.h"

static const char *device;
static int failures;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double t0;
static int kmsg = -1;

/*
 * Start timing @what, and say so in the kernel log, so that a stall
 * report there can be traced to the command that was running.
 */
static void start(const char *what)
{
	char line[96];
	int len;

	if (kmsg < 0)
		kmsg = open("/dev/kmsg", O_WRONLY);
	len = snprintf(line, sizeof(line), "whole_index: %s %s begins\n",
		       device, what);
	if (kmsg >= 0 && write(kmsg, line, len) != len)
		perror("whole_index: /dev/kmsg");
	t0 = now();
}

/* Print the time since start() for @what; count a failure if !@ok. */
static void took(const char *what, bool ok, const char *why)
{
	printf("whole_index: %s %s %.3f\n", device, what, now() - t0);
	fflush(stdout);
	if (!ok) {
		fprintf(stderr, "whole_index: %s %s: FAIL: %s\n", device, what,
			why);
		failures++;
	}
}

/* One fill thread's share: items [@first, @last) of the fill @fn. */
struct fill_part {
	pthread_t thread;
	int fd;
	unsigned long first, last;
	bool (*fn)(int fd, unsigned long i);
	bool ok;
};

static void *fill_thread(void *arg)
{
	struct fill_part *p = arg;
	unsigned long i;

	p->ok = true;
	for (i = p->first; p->ok && i < p->last; i++)
		p->ok = p->fn(p->fd, i);
	return NULL;
}

/* Call @fn for each i below @n, from one thread per CPU (at most 8). */
static bool fill(int fd, unsigned long n, bool (*fn)(int fd, unsigned long i))
{
	struct fill_part parts[8];
	int t, threads = get_nprocs();
	bool ok = true;

	threads = threads < 1 ? 1 : threads > 8 ? 8 : threads;
	for (t = 0; t < threads; t++) {
		parts[t] = (struct fill_part){
			.fd = fd, .fn = fn,
			.first = n / threads * t,
			.last = t == threads - 1 ? n : n / threads * (t + 1),
		};
		if (pthread_create(&parts[t].thread, NULL, fill_thread, &parts[t])) {
			perror("whole_index: pthread_create");
			exit(2);
		}
	}
	for (t = 0; t < threads; t++) {
		pthread_join(parts[t].thread, NULL);
		ok &= parts[t].ok;
	}
	return ok;
}

/* Keys 16 apart, 8 units each: one leaf holds SL_LEAF_KEYS of them. */
static bool skiplist_insert(int fd, unsigned long i)
{
	int ret = sl_insert(fd, i * 16, 8, i);

	if (ret)
		fprintf(stderr, "whole_index: insert %lu: %s\n", i, strerror(-ret));
	return !ret;
}

static bool skiplist_fill(int fd, unsigned long n)
{
	return fill(fd, n, skiplist_insert);
}

static void run_skiplist(unsigned long n)
{
	struct sl_ioc_stats st;
	bool ok;
	int fd = sl_open(), ret;

	if (fd < 0) {
		perror("whole_index: open " SL_DEVICE);
		exit(2);
	}
	start("fill");
	took("fill", skiplist_fill(fd, n), "an insert failed");
	start("STATS");
	ret = sl_stats(fd, &st);
	took("STATS", !ret && st.items == n, "wrong item count");
	printf("whole_index: %s %llu items in %llu leaves, %llu bytes\n",
	       device, (unsigned long long)st.items,
	       (unsigned long long)st.leaves, (unsigned long long)st.bytes);
	start("CHECK");
	took("CHECK", !sl_check(fd), "the index is inconsistent");
	start("CLEAR");
	ret = sl_clear(fd);
	took("CLEAR", !ret, "CLEAR failed");
	ok = !ret && !sl_stats(fd, &st) && !st.items && !sl_check(fd);
	if (!ok)
		fprintf(stderr, "whole_index: not empty after CLEAR\n"), failures++;
	start("fill");
	took("fill", skiplist_fill(fd, n), "an insert failed");
	start("close");
	took("close", !close(fd), "close failed");
}

static bool extent_add(int fd, unsigned long i)
{
	int ret = sx_em_add(fd, i * 16, 8, i * 16, 0, false);

	if (ret)
		fprintf(stderr, "whole_index: EM_ADD %lu: %s\n", i, strerror(-ret));
	return !ret;
}

static bool extent_fill(int fd, unsigned long n)
{
	return fill(fd, n, extent_add);
}

static void run_extent(unsigned long n)
{
	int fd = sx_open();
	long count;

	if (fd < 0) {
		perror("whole_index: open " SX_DEVICE);
		exit(2);
	}
	start("fill");
	took("fill", extent_fill(fd, n), "an EM_ADD failed");
	start("EM_COUNT");
	count = sx_em_count(fd);
	took("EM_COUNT", count == (long)n, "wrong extent count");
	start("EM_CHECK");
	took("EM_CHECK", !sx_em_check(fd), "the map is inconsistent");
	start("EM_DROP");
	/* Every unit but the last: a range may not reach 2^64. */
	took("EM_DROP", !sx_em_drop(fd, 0, ~0ULL), "EM_DROP failed");
	count = sx_em_count(fd);
	if (count) {
		fprintf(stderr, "whole_index: %ld extents after EM_DROP\n",
			count);
		failures++;
	}
	start("fill");
	took("fill", extent_fill(fd, n), "an EM_ADD failed");
	start("close");
	took("close", !close(fd), "close failed");
}

/*
 * Unit @i, allocated first fit from @i on: each fill thread allocates its
 * own part of the space in order, so each lands where it asked.
 */
static bool range_alloc(int fd, unsigned long i)
{
	__u64 at = 0;
	int ret = sx_ra_alloc(fd, 1, 1, i, 0, 0, &at);

	if (ret || at != i)
		fprintf(stderr, "whole_index: RA_ALLOC at %lu: %s, got %llu\n", i,
			strerror(-ret), (unsigned long long)at);
	return !ret && at == i;
}

static void run_alloc(unsigned long n)
{
	struct sl_ra_ioc_stats st;
	unsigned long i;
	__u64 at;
	bool ok = true;
	int fd = sx_open(), ret;

	if (fd < 0) {
		perror("whole_index: open " SX_DEVICE);
		exit(2);
	}
	if (sx_ra_init(fd, 0, n, 0)) {
		perror("whole_index: RA_INIT");
		exit(2);
	}
	start("fill");
	took("fill", fill(fd, n, range_alloc), "an allocation failed");
	start("RA_STATS");
	ret = sx_ra_stats(fd, &st);
	took("RA_STATS", !ret && st.ranges == n && !st.free,
	     "wrong range count");
	start("ENOSPC-full");
	ret = sx_ra_alloc(fd, 1, 1, 0, 0, 0, &at);
	took("ENOSPC-full", ret == -ENOSPC, "no -ENOSPC in a full space");
	/* Free the odd units: N / 2 gaps of one unit, none of them even. */
	start("free-odd");
	for (i = 1; ok && i < n; i += 2)
		ok = !sx_ra_free(fd, i, 1);
	took("free-odd", ok, "a free failed");
	start("ENOSPC-align");
	ret = sx_ra_alloc(fd, 1, 2, 0, 0, 0, &at);
	took("ENOSPC-align", ret == -ENOSPC,
	     "an even unit was found free");
	start("close");
	took("close", !close(fd), "close failed");
}

int main(int argc, char **argv)
{
	unsigned long n;

	if (argc != 3 || !(n = strtoul(argv[2], NULL, 0))) {
		fprintf(stderr, "usage: whole_index skiplist|extent|alloc N\n");
		return 2;
	}
	device = argv[1];
	if (!strcmp(device, "skiplist"))
		run_skiplist(n);
	else if (!strcmp(device, "extent"))
		run_extent(n);
	else if (!strcmp(device, "alloc"))
		run_alloc(n);
	else {
		fprintf(stderr, "whole_index: unknown device %s\n", device);
		return 2;
	}
	return failures ? 1 : 0;
}
