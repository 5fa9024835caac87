// SPDX-License-Identifier: GPL-2.0
/*
 * lw_replay: list a dm-log-writes log, or replay it onto a device or an
 * image file (tools/crash/logwrites.h says what the log holds).
 *
 *   lw_replay --log LOG --list [--flush-trace TRACE]
 *   lw_replay --log LOG --replay DEV [--flush-trace TRACE]
 *             [--resume-after E] [--to E | --to-mark LABEL]
 *
 * --list prints one line per entry, in replay order: its index, flags,
 * sector, length in 512-byte sectors, and a mark's label.  --replay
 * writes the data of the entries, in replay order, up to entry --to
 * (the last) or the first mark labelled --to-mark, at their sectors of
 * DEV; a discard writes zeros there.  DEV must hold what the log's device
 * held before the first entry replayed: zeros, or, with --resume-after
 * E, the device replayed up to entry E, to go on from there.  The replay
 * order is the log's, or with --flush-trace the log's put right where
 * flushes overlapped (logwrites.h).  Everything is written back (fsync)
 * before it exits, so that readers of DEV that bypass the page cache
 * see it.  It prints what it applied; it exits 1 on a bad log or trace,
 * 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "logwrites.h"

static int write_full(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done,
				   (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += n;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: lw_replay --log LOG --list [--flush-trace TRACE]\n"
		"       lw_replay --log LOG --replay DEV [--flush-trace TRACE]\n"
		"                 [--resume-after E] [--to E | --to-mark LABEL]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "list", no_argument, NULL, 'L' },
		{ "replay", required_argument, NULL, 'r' },
		{ "resume-after", required_argument, NULL, 'f' },
		{ "flush-trace", required_argument, NULL, 'T' },
		{ "to", required_argument, NULL, 't' },
		{ "to-mark", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *logpath = NULL, *dev = NULL, *to_mark = NULL, *trace = NULL;
	uint64_t after = UINT64_MAX, to = UINT64_MAX, applied = 0, bytes = 0;
	uint64_t last = UINT64_MAX;
	bool list = false, found = false, going = true;
	struct lw_log log;
	struct lw_index ix;
	void *buf = NULL;
	size_t cap = 0;
	int c, fd = -1, err;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': logpath = optarg; break;
		case 'L': list = true; break;
		case 'r': dev = optarg; break;
		case 'f': after = strtoull(optarg, NULL, 0); going = false; break;
		case 'T': trace = optarg; break;
		case 't': to = strtoull(optarg, NULL, 0); break;
		case 'm': to_mark = optarg; break;
		default: usage();
		}
	}
	if (!logpath || optind != argc || list == !!dev ||
	    (to_mark && to != UINT64_MAX))
		usage();
	if (lw_open(&log, logpath) || lw_index_load(&log, &ix) ||
	    (trace && lw_index_reorder(&ix, trace)))
		return 1;
	if (dev) {
		fd = open(dev, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "lw_replay: %s: %s\n", dev, strerror(errno));
			return 1;
		}
	} else {
		printf("# %s: %llu entries, sector size %u; %llu batches moved by the flush trace (%llu kept behind a flush mapped first), %llu writes of them in an order it cannot tell\n",
		       logpath, (unsigned long long)log.nr_entries,
		       log.sectorsize, (unsigned long long)ix.moved,
		       (unsigned long long)ix.kept,
		       (unsigned long long)ix.ambiguous);
	}
	for (uint64_t i = 0; i < ix.n; i++) {
		const struct lw_entry *ep = &ix.e[ix.order[i]];
		struct lw_entry e = *ep;
		char names[64];

		if (!going) {
			going = e.index == after;
			continue;
		}
		last = e.index;
		if (list) {
			printf("%llu %s %llu %llu%s%s\n",
			       (unsigned long long)e.index,
			       lw_flag_names(e.flags, names, sizeof(names)),
			       (unsigned long long)e.sector,
			       (unsigned long long)e.nr_sectors,
			       e.label[0] ? " " : "", e.label);
			continue;
		}
		if (e.nr_sectors && !(e.flags & LW_MARK)) {
			size_t len = e.nr_sectors * 512;

			if (len > cap) {
				free(buf);
				cap = len;
				buf = malloc(cap);
				if (!buf) {
					fprintf(stderr, "lw_replay: out of memory\n");
					return 1;
				}
			}
			if (e.flags & LW_DISCARD)
				memset(buf, 0, len);
			else if (lw_read_data(&log, &e, buf)) {
				fprintf(stderr, "lw_replay: entry %llu: cannot read its data\n",
					(unsigned long long)e.index);
				return 1;
			}
			err = write_full(fd, buf, len, e.sector * 512);
			if (err) {
				fprintf(stderr, "lw_replay: entry %llu: writing %zu bytes at sector %llu of %s: %s\n",
					(unsigned long long)e.index, len,
					(unsigned long long)e.sector, dev,
					strerror(-err));
				return 1;
			}
			applied++;
			bytes += len;
		}
		if (to_mark && (e.flags & LW_MARK) && !strcmp(e.label, to_mark)) {
			found = true;
			break;
		}
		if (e.index == to)
			break;
	}
	if (!going) {
		fprintf(stderr, "lw_replay: no entry %llu in %s\n",
			(unsigned long long)after, logpath);
		return 1;
	}
	if (to_mark && !found) {
		fprintf(stderr, "lw_replay: no mark '%s' in %s\n", to_mark,
			logpath);
		return 1;
	}
	if (dev) {
		if (fsync(fd)) {
			fprintf(stderr, "lw_replay: fsync %s: %s\n", dev,
				strerror(errno));
			return 1;
		}
		close(fd);
		printf("lw_replay: %llu writes (%llu bytes) applied to %s, up to entry %lld\n",
		       (unsigned long long)applied, (unsigned long long)bytes,
		       dev, last == UINT64_MAX ? -1LL : (long long)last);
	}
	free(buf);
	lw_index_free(&ix);
	lw_close(&log);
	return 0;
}
