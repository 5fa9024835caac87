// SPDX-License-Identifier: GPL-2.0
/*
 * slctl top: a live summary of what the modules publish in debugfs
 * (Documentation/tracing.rst, "debugfs"): every list (a "stats" file with
 * a "leaves" line), every range allocator (an "alloc" file) and every
 * store (a "stats" file with a "memtable_bytes" line) under
 * DEBUGFS/skiplist and DEBUGFS/sl_lsm, read again every interval.  With
 * --once it prints one summary and exits, for scripts and tests; it
 * exits 1, saying why, when debugfs is not mounted or nothing is
 * published.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include "slctl.h"

#define DEBUGFS_MAGIC	0x64626720	/* <linux/magic.h> */
#define MAX_KEYS	64
#define MAX_ENTRIES	4096

enum kind { LIST, ALLOC, STORE };

/* One published file: its path under the root and its "name value" lines. */
struct entry {
	enum kind kind;
	char path[512];
	unsigned int nr;
	char key[MAX_KEYS][32];
	unsigned long long val[MAX_KEYS];
};

struct sample {
	struct entry *e;
	unsigned int nr;
	struct timespec at;
};

static unsigned long long get(const struct entry *e, const char *key)
{
	unsigned int i;

	for (i = 0; i < e->nr; i++)
		if (!strcmp(e->key[i], key))
			return e->val[i];
	return 0;
}

static bool has(const struct entry *e, const char *key)
{
	unsigned int i;

	for (i = 0; i < e->nr; i++)
		if (!strcmp(e->key[i], key))
			return true;
	return false;
}

/* Read "name value" lines; the rest of a line (more fields) is ignored. */
static bool read_entry(const char *file, struct entry *e)
{
	char line[256];
	FILE *f = fopen(file, "r");

	if (!f)
		return false;	/* gone since the walk saw it */
	e->nr = 0;
	while (e->nr < MAX_KEYS && fgets(line, sizeof(line), f)) {
		char *end;

		if (sscanf(line, "%31s", e->key[e->nr]) != 1)
			continue;
		end = line + strlen(e->key[e->nr]);
		/* An id is a pointer as %p prints it: hex, without 0x. */
		e->val[e->nr] = strtoull(end, NULL,
					 strcmp(e->key[e->nr], "id") ? 0 : 16);
		e->nr++;
	}
	fclose(f);
	return true;
}

static void add(struct sample *s, const char *root, const char *rel,
		const char *name)
{
	char file[1024];
	struct entry *e;

	if (s->nr == MAX_ENTRIES)
		return;
	e = &s->e[s->nr];
	snprintf(file, sizeof(file), "%s/%s/%s", root, rel, name);
	if (!read_entry(file, e))
		return;
	if (!strcmp(name, "alloc"))
		e->kind = ALLOC;
	else if (has(e, "leaves"))
		e->kind = LIST;
	else if (has(e, "memtable_bytes"))
		e->kind = STORE;
	else
		return;
	snprintf(e->path, sizeof(e->path), "%s", rel);
	s->nr++;
}

static void walk(struct sample *s, const char *root, const char *rel)
{
	char dir[1024], sub[512];
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/%s", root, rel);
	dp = opendir(dir);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		struct stat st;
		char path[1536];

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			snprintf(sub, sizeof(sub), "%s/%s", rel, d->d_name);
			walk(s, root, sub);
		} else if (!strcmp(d->d_name, "stats") ||
			   !strcmp(d->d_name, "alloc")) {
			add(s, root, rel, d->d_name);
		}
	}
	closedir(dp);
}

static int by_path(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->kind != y->kind ? (int)x->kind - (int)y->kind :
	       strcmp(x->path, y->path);
}

static void take(struct sample *s, const char *root)
{
	s->nr = 0;
	walk(s, root, "skiplist");
	walk(s, root, "sl_lsm");
	qsort(s->e, s->nr, sizeof(s->e[0]), by_path);
	clock_gettime(CLOCK_MONOTONIC, &s->at);
}

/* The same file in the sample before, for rates. */
static const struct entry *before(const struct sample *prev,
				  const struct entry *e)
{
	unsigned int i;

	for (i = 0; prev && i < prev->nr; i++)
		if (prev->e[i].kind == e->kind &&
		    !strcmp(prev->e[i].path, e->path) &&
		    get(&prev->e[i], "id") == get(e, "id"))
			return &prev->e[i];
	return NULL;
}

/* Per second since the sample before, or -1 without one. */
static double rate(const struct entry *e, const struct entry *old,
		   const char *key, double secs)
{
	if (!old || secs <= 0 || get(e, key) < get(old, key))
		return -1;
	return (get(e, key) - get(old, key)) / secs;
}

static void print_rate(double r)
{
	if (r < 0)
		printf(" %9s", "-");
	else
		printf(" %9.0f", r);
}

static void print(const struct sample *s, const struct sample *prev,
		  const char *root, double interval)
{
	double secs = prev ? (s->at.tv_sec - prev->at.tv_sec) +
			     (s->at.tv_nsec - prev->at.tv_nsec) / 1e9 : 0;
	bool rates = prev != NULL;
	enum kind shown = STORE + 1;
	unsigned int i;

	if (interval > 0)
		printf("slctl top: %s, every %g s%s\n\n", root, interval,
		       rates ? "" : " (rates from the next refresh)");
	for (i = 0; i < s->nr; i++) {
		const struct entry *e = &s->e[i], *old = before(prev, e);
		unsigned long long items;

		if (e->kind != shown) {
			shown = e->kind;
			if (i)
				printf("\n");
			if (shown == LIST)
				printf("%-40s %10s %8s %3s %11s %7s %8s %8s %9s %9s%s\n",
				       "LIST", "ITEMS", "LEAVES", "LVL", "BYTES",
				       "B/ITEM", "DIR", "DIR_AGE", "RD_RETRY",
				       "GAP_RETRY", rates ? "   ITEMS/s  RETRY/s" : "");
			else if (shown == ALLOC)
				printf("%-40s %12s %12s %9s %12s %6s %10s %10s %9s%s\n",
				       "ALLOCATOR", "SIZE", "FREE", "RANGES",
				       "LARGEST", "FRAG%", "HITS", "MISSES",
				       "RECLAIMED", rates ? "    HITS/s  MISSES/s" : "");
			else
				printf("%-40s %11s %6s %8s %8s %8s %10s %12s%s\n",
				       "STORE", "MEMTABLE", "RUNS", "FLUSHES",
				       "MERGES", "STALLS", "STALL_MS", "SPACE_USED",
				       rates ? "  FLUSHES/s  MERGES/s" : "");
		}
		if (e->kind == LIST) {
			items = get(e, "items");
			printf("%-40s %10llu %8llu %3llu %11llu %7.1f %8llu %7.1fs %9llu %9llu",
			       e->path, items, get(e, "leaves"),
			       get(e, "levels"), get(e, "bytes"),
			       items ? (double)get(e, "bytes") / items : 0.0,
			       get(e, "dir_entries"),
			       get(e, "dir_age_ms") / 1000.0,
			       get(e, "read_retries"), get(e, "gap_retries"));
			if (rates && old && secs > 0)
				/* Items shrink as often as they grow. */
				printf(" %9.0f", ((double)items -
						  (double)get(old, "items")) / secs);
			else if (rates)
				printf(" %9s", "-");
			if (rates)
				print_rate(rate(e, old, "read_retries", secs));
		} else if (e->kind == ALLOC) {
			printf("%-40s %12llu %12llu %9llu %12llu %6.1f %10llu %10llu %9llu",
			       e->path, get(e, "size"), get(e, "free"),
			       get(e, "ranges"), get(e, "largest_free"),
			       get(e, "fragmentation") / 10.0,
			       get(e, "cache_hits"), get(e, "cache_misses"),
			       get(e, "reclaimed"));
			if (rates) {
				print_rate(rate(e, old, "cache_hits", secs));
				print_rate(rate(e, old, "cache_misses", secs));
			}
		} else {
			printf("%-40s %11llu %6llu %8llu %8llu %8llu %10.1f %12llu",
			       e->path, get(e, "memtable_bytes"), get(e, "runs"),
			       get(e, "flushes"), get(e, "compactions"),
			       get(e, "stalls"), get(e, "stall_ns") / 1e6,
			       get(e, "space_used_bytes"));
			if (rates) {
				print_rate(rate(e, old, "flushes", secs));
				print_rate(rate(e, old, "compactions", secs));
			}
		}
		printf("\n");
	}
	if (!s->nr)
		printf("(nothing published)\n");
	fflush(stdout);
}

/* Why nothing can be shown, or NULL when debugfs has our directories. */
static const char *unavailable(const char *root)
{
	static char why[1200];
	struct statfs fs;
	char dir[1024];

	if (statfs(root, &fs)) {
		if (errno == ENOENT && !strcmp(root, "/sys/kernel/debug"))
			snprintf(why, sizeof(why),
				 "debugfs is not available: %s is missing (a kernel without debugfs, or booted with debugfs=off)",
				 root);
		else
			snprintf(why, sizeof(why), "cannot read %s: %s", root,
				 strerror(errno));
		return why;
	}
	/* --root may name a copy of debugfs (the tests' fixtures). */
	if (!strcmp(root, "/sys/kernel/debug") && fs.f_type != DEBUGFS_MAGIC) {
		snprintf(why, sizeof(why),
			 "debugfs is not mounted at %s (mount -t debugfs none %s)",
			 root, root);
		return why;
	}
	snprintf(dir, sizeof(dir), "%s/skiplist", root);
	if (access(dir, R_OK | X_OK)) {
		snprintf(why, sizeof(why),
			 "nothing published: %s %s (is skiplist.ko loaded?)",
			 dir, errno == ENOENT ? "is missing" : strerror(errno));
		return why;
	}
	return NULL;
}

static void top_usage(FILE *f)
{
	fprintf(f,
"usage: slctl top [--once] [--interval SECONDS] [--root DIR]\n"
"\n"
"Every list, range allocator and store the modules publish in debugfs\n"
"(DIR/skiplist, DIR/sl_lsm; DIR is /sys/kernel/debug), read again every\n"
"SECONDS (2), with rates over the interval; --once prints one summary.\n"
"Exit status 1 when debugfs is not mounted or nothing is published.\n");
}

int slctl_top(int argc, char **argv)
{
	const char *root = "/sys/kernel/debug", *why;
	struct sample a = {}, b = {}, *cur = &a, *prev = NULL;
	double interval = 2;
	bool once = false;
	int i;

	for (i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--once")) {
			once = true;
		} else if (!strcmp(argv[i], "--interval") && i + 1 < argc) {
			interval = strtod(argv[++i], &end);
			if (*end || !(interval >= 0.1 && interval <= 3600)) {
				fprintf(stderr, "slctl top: --interval %s: seconds from 0.1 to 3600\n",
					argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--root") && i + 1 < argc) {
			root = argv[++i];
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			top_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "slctl top: unknown argument '%s'\n", argv[i]);
			top_usage(stderr);
			return 2;
		}
	}
	why = unavailable(root);
	if (why) {
		fprintf(stderr, "slctl top: %s\n", why);
		return 1;
	}
	a.e = calloc(MAX_ENTRIES, sizeof(*a.e));
	b.e = calloc(MAX_ENTRIES, sizeof(*b.e));
	if (!a.e || !b.e) {
		fprintf(stderr, "slctl top: out of memory\n");
		return 1;
	}
	take(cur, root);
	if (!cur->nr) {
		fprintf(stderr, "slctl top: nothing published under %s/skiplist or %s/sl_lsm (no list, allocator or store in use)\n",
			root, root);
		return 1;
	}
	if (once) {
		print(cur, NULL, root, 0);
		return 0;
	}
	for (;;) {
		if (isatty(STDOUT_FILENO))
			printf("\033[H\033[2J");
		print(cur, prev, root, interval);
		usleep((useconds_t)(interval * 1e6));
		prev = cur;
		cur = cur == &a ? &b : &a;
		take(cur, root);
	}
}
