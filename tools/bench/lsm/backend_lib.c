// SPDX-License-Identifier: GPL-2.0
/*
 * lsm_bench's library backend: the store's own sources, linked in, on a
 * file or a block device through the file device of tools/testing/lsm
 * (pread, pwrite, fdatasync), as the tests build them but at -O2 on the
 * fast shims.
 *
 * The bench threads call into the store as a kernel task would: each is
 * registered with RCU (thread_start), since the store's readers take
 * rcu_read_lock().
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"
#include "filedev.h"
#include <linux/module.h>
#include <linux/rcupdate.h>
#include "backend.h"

struct lsmb_db {
	struct lsm_store *st;
	struct lsm_bdev *bdev;
	const char *path;
	bool in_place;
};

/* Per thread: a scan's pieces and values, reused from scan to scan. */
#define SCAN_PIECES	256
#define SCAN_VBUF	(512 * 1024)

struct lsmb_scan {
	struct lsmb_db *db;
	struct lsm_scan_cursor cur;
	struct lsm_piece pieces[SCAN_PIECES];
	unsigned char vbuf[SCAN_VBUF];
};

static bool lib_loaded;

/*
 * A fresh store starts on a fresh file: cut back to nothing and grown to
 * @cfg->db_bytes again (sparse), so that the file's allocated blocks are
 * the store's own (the space figure).  A block device is formatted as it
 * is, and so is a file with @cfg->in_place: a file written through once
 * then behaves as a device, with no block allocated at write time (which
 * a sync write to a sparse file pays in a journal commit).  Blocks of an
 * earlier store there are never read back as the new one's: every block
 * names its store's random id.
 */
static int lib_prepare_file(const struct lsmb_config *cfg)
{
	struct stat sb;
	int fd;

	if (!stat(cfg->path, &sb) && S_ISBLK(sb.st_mode))
		return 0;
	if (cfg->in_place) {
		if (stat(cfg->path, &sb))
			return -errno;
		if (!S_ISREG(sb.st_mode) || (uint64_t)sb.st_size < cfg->db_bytes) {
			fprintf(stderr, "lsm_bench: --db_in_place: %s is not a file of at least --db_bytes=%" PRIu64 " bytes\n",
				cfg->path, cfg->db_bytes);
			return -EINVAL;
		}
		return 0;
	}
	fd = open(cfg->path, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, 0) || ftruncate(fd, cfg->db_bytes)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return close(fd) ? -errno : 0;
}

static int lib_open(const struct lsmb_config *cfg, bool fresh,
		    struct lsmb_db **dbp)
{
	struct lsm_options opt = {
		.memtable_bytes = cfg->memtable_bytes,
		.max_immutables = cfg->max_immutables,
		.no_wal = cfg->no_wal,
		.block_cache_bytes = cfg->cache_bytes,
	};
	struct lsmb_db *db;
	int err;

	/* The store's caches, as loading the module makes them. */
	if (!lib_loaded) {
		err = shim_modules_load();
		if (err)
			return err;
		lib_loaded = true;
	}
	if (fresh) {
		err = lib_prepare_file(cfg);
		if (err)
			return err;
	}
	db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	db->path = cfg->path;
	db->in_place = cfg->in_place;
	/* The file's or device's own size (lib_prepare_file() set a file's). */
	db->bdev = filedev_open(cfg->path, 0, 0);
	if (!db->bdev) {
		err = -errno;
		goto free;
	}
	/* The store's open may read and write with RCU readers of its own. */
	shim_rcu_register();
	err = lsm_store_open(db->bdev, &opt, fresh ? LSM_OPEN_FORMAT : 0, &db->st);
	shim_rcu_unregister();
	if (err)
		goto release;
	*dbp = db;
	return 0;
release:
	db->bdev->ops->release(db->bdev);
free:
	free(db);
	return err;
}

static int lib_close(struct lsmb_db *db)
{
	int err;

	shim_rcu_register();
	err = lsm_store_close(db->st);
	shim_rcu_unregister();
	db->bdev->ops->release(db->bdev);
	free(db);
	return err;
}

static void lib_thread_start(struct lsmb_db *db)
{
	shim_rcu_register();
}

static void lib_thread_stop(struct lsmb_db *db)
{
	shim_rcu_unregister();
}

static int lib_write(struct lsmb_db *db, const struct lsmb_put *puts,
		     unsigned int n, bool sync)
{
	struct lsm_op ops[64], *op = ops;
	unsigned int i;
	int err;

	if (!n)
		return -EINVAL;	/* as the store says of an empty write */
	if (n > ARRAY_SIZE(ops)) {
		op = malloc(n * sizeof(*op));
		if (!op)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		op[i] = (struct lsm_op){
			.kind = LSM_OP_PUT, .vlen = puts[i].vlen,
			.key = puts[i].key, .len = puts[i].len,
			.value = puts[i].value,
		};
	err = lsm_store_write(db->st, op, n, sync ? LSM_WRITE_SYNC : 0);
	if (op != ops)
		free(op);
	return err;
}

static int lib_get(struct lsmb_db *db, uint64_t key, void *vbuf,
		   uint32_t size, uint32_t *vlen)
{
	struct lsm_piece piece;
	int err = lsm_store_get(db->st, key, &piece, vbuf, size);

	if (!err)
		*vlen = piece.ext.vlen;
	return err;
}

static int lib_scan_start(struct lsmb_db *db, uint64_t from,
			  struct lsmb_scan **scanp)
{
	static __thread struct lsmb_scan *mine;

	/* One scan at a time per thread: its buffers are kept. */
	if (!mine) {
		mine = malloc(sizeof(*mine));
		if (!mine)
			return -ENOMEM;
	}
	mine->db = db;
	mine->cur = (struct lsm_scan_cursor){ .pos = from };
	*scanp = mine;
	return 0;
}

static int lib_scan_next(struct lsmb_scan *scan, unsigned int max)
{
	if (scan->cur.done)
		return 0;
	if (max > SCAN_PIECES)
		max = SCAN_PIECES;
	return lsm_store_scan(scan->db->st, &scan->cur, scan->pieces, max,
			      scan->vbuf, sizeof(scan->vbuf));
}

static void lib_scan_end(struct lsmb_scan *scan)
{
}

static int lib_flush(struct lsmb_db *db)
{
	int err;

	shim_rcu_register();
	err = lsm_store_flush(db->st);
	shim_rcu_unregister();
	return err;
}

static int lib_stats(struct lsmb_db *db, struct lsmb_stats *out)
{
	struct lsm_stats s;
	struct stat sb;

	shim_rcu_register();
	lsm_store_stats(db->st, &s);
	shim_rcu_unregister();
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
	/*
	 * A sparse file's blocks: those the store has ever written (a file
	 * used in place is all allocated, as a block device is: 0).
	 */
	if (!db->in_place && !stat(db->path, &sb) && S_ISREG(sb.st_mode))
		out->alloc_bytes = (uint64_t)sb.st_blocks * 512;
	return 0;
}

const struct lsmb_backend lsmb_backend_lib = {
	.name = "lib",
	.open = lib_open,
	.close = lib_close,
	.thread_start = lib_thread_start,
	.thread_stop = lib_thread_stop,
	.write = lib_write,
	.get = lib_get,
	.scan_start = lib_scan_start,
	.scan_next = lib_scan_next,
	.scan_end = lib_scan_end,
	.flush = lib_flush,
	.stats = lib_stats,
};
