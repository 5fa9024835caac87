// SPDX-License-Identifier: GPL-2.0
/*
 * lsm_bench's kernel backend: the store of sl_lsm.ko, attached through
 * /dev/sl_lsm to the block device given as --db, driven by the ioctls of
 * lsm/uapi/sl_lsm_dev.h.  Every thread issues its commands on the one
 * descriptor, which the device allows; a write of several puts
 * (--batch_size) is one SL_LSM_IOC_BATCH, a single put SL_LSM_IOC_PUT,
 * so a write costs one system call whatever its size.  A get is one
 * SL_LSM_IOC_GET of one record; a scan asks for up to SCAN_PIECES
 * pieces per SL_LSM_IOC_SCAN.
 *
 * Nothing of the store is linked in: this backend needs only the uapi
 * header, and lsm_bench_dev runs wherever sl_lsm.ko is loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sl_lsm_dev.h"
#include "backend.h"

struct lsmb_db {
	int fd;
};

/*
 * Per thread: a scan's pieces and values, reused from scan to scan (a
 * seekrandom makes one scan per operation) and freed at thread_stop.
 * The kernel needs room for one value of SL_LSM_VALUE_MAX at least.
 */
#define SCAN_PIECES	256
#define SCAN_VBUF	(512 * 1024)
_Static_assert(SCAN_VBUF >= SL_LSM_VALUE_MAX, "a scan must make progress");
_Static_assert(SCAN_PIECES <= SL_LSM_SCAN_MAX, "more pieces than a scan gives");

struct lsmb_scan {
	struct lsmb_db *db;
	struct sl_lsm_ioc_scan arg;
	struct sl_lsm_ioc_piece pieces[SCAN_PIECES];
	unsigned char vbuf[SCAN_VBUF];
};

static int dev_ioctl(struct lsmb_db *db, unsigned long cmd, void *arg)
{
	return ioctl(db->fd, cmd, arg) ? -errno : 0;
}

/*
 * The store's block cache: an attach takes its size from the module
 * parameter block_cache_mb, which this sets (root may write it).
 */
#define CACHE_PARAM	"/sys/module/sl_lsm/parameters/block_cache_mb"

static int dev_set_cache(uint64_t bytes)
{
	char buf[32];
	int fd, n, err = 0;

	if (!bytes)
		return 0;
	if (bytes % (1 << 20))
		return -EINVAL;	/* the parameter is in MiB */
	n = snprintf(buf, sizeof(buf), "%llu\n",
		     (unsigned long long)(bytes >> 20));
	fd = open(CACHE_PARAM, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n)
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static int dev_open(const struct lsmb_config *cfg, bool fresh,
		    struct lsmb_db **dbp)
{
	struct sl_lsm_ioc_attach at = {
		.path = (uintptr_t)cfg->path,
		.memtable_bytes = cfg->memtable_bytes,
		.max_immutables = cfg->max_immutables,
		.flags = (fresh ? SL_LSM_ATTACH_FORMAT : 0) |
			 (cfg->no_wal ? SL_LSM_ATTACH_NO_WAL : 0),
	};
	struct lsmb_db *db = calloc(1, sizeof(*db));
	int err;

	if (!db)
		return -ENOMEM;
	err = dev_set_cache(cfg->cache_bytes);
	if (err) {
		free(db);
		return err;
	}
	db->fd = open(cfg->device, O_RDWR | O_CLOEXEC);
	if (db->fd < 0) {
		err = -errno;
		free(db);
		return err;
	}
	err = dev_ioctl(db, SL_LSM_IOC_ATTACH, &at);
	if (err) {
		close(db->fd);
		free(db);
		return err;
	}
	*dbp = db;
	return 0;
}

static int dev_close(struct lsmb_db *db)
{
	int err = dev_ioctl(db, SL_LSM_IOC_DETACH, NULL);

	if (close(db->fd) && !err)
		err = -errno;
	free(db);
	return err;
}

static __thread struct lsmb_scan *thread_scan;

static void dev_thread_start(struct lsmb_db *db)
{
}

static void dev_thread_stop(struct lsmb_db *db)
{
	free(thread_scan);
	thread_scan = NULL;
}

static int dev_write(struct lsmb_db *db, const struct lsmb_put *puts,
		     unsigned int n, bool sync)
{
	struct sl_lsm_ioc_rec recs[64], *rec = recs;
	struct sl_lsm_ioc_batch batch = {
		.count = n, .flags = sync ? SL_LSM_SYNC : 0,
	};
	unsigned int i;
	int err;

	if (n == 1) {
		struct sl_lsm_ioc_put put = {
			.key = puts[0].key, .len = puts[0].len,
			.value = (uintptr_t)puts[0].value, .vlen = puts[0].vlen,
			.flags = sync ? SL_LSM_SYNC : 0,
		};

		return dev_ioctl(db, SL_LSM_IOC_PUT, &put);
	}
	if (n > sizeof(recs) / sizeof(recs[0])) {
		rec = malloc(n * sizeof(*rec));
		if (!rec)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		rec[i] = (struct sl_lsm_ioc_rec){
			.key = puts[i].key, .len = puts[i].len,
			.value = (uintptr_t)puts[i].value, .vlen = puts[i].vlen,
			.kind = SL_LSM_REC_PUT,
		};
	batch.recs = (uintptr_t)rec;
	err = dev_ioctl(db, SL_LSM_IOC_BATCH, &batch);
	if (rec != recs)
		free(rec);
	return err;
}

static int dev_get(struct lsmb_db *db, uint64_t key, void *vbuf,
		   uint32_t size, uint32_t *vlen)
{
	struct sl_lsm_ioc_get_rec rec = {
		.key = key, .value = (uintptr_t)vbuf, .vbuf_size = size,
	};
	struct sl_lsm_ioc_get get = { .recs = (uintptr_t)&rec, .count = 1 };
	int err = dev_ioctl(db, SL_LSM_IOC_GET, &get);

	if (err)
		return err;
	if (rec.result)
		return rec.result;
	*vlen = rec.vlen;
	return 0;
}

static int dev_scan_start(struct lsmb_db *db, uint64_t from,
			  struct lsmb_scan **scanp)
{
	struct lsmb_scan *scan = thread_scan;

	if (!scan) {
		scan = malloc(sizeof(*scan));
		if (!scan)
			return -ENOMEM;
		thread_scan = scan;
	}
	scan->db = db;
	scan->arg = (struct sl_lsm_ioc_scan){
		.pos = from, .pieces = (uintptr_t)scan->pieces,
		.values = (uintptr_t)scan->vbuf, .values_size = SCAN_VBUF,
	};
	*scanp = scan;
	return 0;
}

static int dev_scan_next(struct lsmb_scan *scan, unsigned int max)
{
	int err;

	if (scan->arg.done)
		return 0;
	scan->arg.max = max < SCAN_PIECES ? max : SCAN_PIECES;
	err = dev_ioctl(scan->db, SL_LSM_IOC_SCAN, &scan->arg);
	return err ? err : (int)scan->arg.count;
}

/* The cursor stays the thread's, for its next scan. */
static void dev_scan_end(struct lsmb_scan *scan)
{
}

static int dev_flush(struct lsmb_db *db)
{
	return dev_ioctl(db, SL_LSM_IOC_FLUSH, NULL);
}

static int dev_stats(struct lsmb_db *db, struct lsmb_stats *out)
{
	struct sl_lsm_ioc_stats s = { 0 };
	int err = dev_ioctl(db, SL_LSM_IOC_STATS, &s);

	if (err)
		return err;
	*out = (struct lsmb_stats){
		.memtable_bytes = s.memtable_bytes, .immutables = s.immutables,
		.runs = s.runs, .flushes = s.flushes, .stalls = s.stalls,
		.stall_ns = s.stall_ns, .wal_bytes = s.wal_bytes,
		.run_bytes = s.run_bytes, .manifest_bytes = s.manifest_bytes,
		.user_bytes = s.user_bytes, .group_commits = s.group_commits,
		.group_writers = s.group_writers, .compactions = s.compactions,
		.compact_read_bytes = s.compact_read_bytes,
		.compact_write_bytes = s.compact_write_bytes,
		.pending_compact_bytes = s.pending_compact_bytes,
		.slowdowns = s.slowdowns, .slowdown_ns = s.slowdown_ns,
		.space_used_bytes = s.space_used_bytes,
		.cache_hits = s.cache_hits, .cache_misses = s.cache_misses,
		.cache_bytes = s.cache_bytes,
	};
	return 0;
}

const struct lsmb_backend lsmb_backend_dev = {
	.name = "dev",
	.open = dev_open,
	.close = dev_close,
	.thread_start = dev_thread_start,
	.thread_stop = dev_thread_stop,
	.write = dev_write,
	.get = dev_get,
	.scan_start = dev_scan_start,
	.scan_next = dev_scan_next,
	.scan_end = dev_scan_end,
	.flush = dev_flush,
	.stats = dev_stats,
};
