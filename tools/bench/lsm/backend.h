/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What lsm_bench needs of a store, so that the same workloads run on the
 * userspace library (backend_lib.c: the store's sources on a file) and
 * through the kernel's /dev/sl_lsm.  The driver is plain C and never sees
 * the store's headers; a backend translates.
 *
 * Every call but open, close and the thread hooks may come from several
 * threads at once; each thread calls thread_start before its first call
 * and thread_stop after its last.  Errors are negative errnos.
 */
#ifndef LSM_BENCH_BACKEND_H
#define LSM_BENCH_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct lsmb_config - how the store under test is opened
 * @path:           the file or block device the store lives on
 * @device:         the character device of the kernel backend
 * @db_bytes:       the size a new file is created with
 * @in_place:       format a new store on the file as it stands (at least
 *                  @db_bytes), as on a block device, instead of on a fresh
 *                  sparse file
 * @memtable_bytes: db_bench's --write_buffer_size
 * @max_immutables: db_bench's --max_write_buffer_number less the active one
 * @no_wal:         db_bench's --disable_wal
 * @cache_bytes:    db_bench's --cache_size: the store's block cache (0:
 *                  the store's default, 8 MiB)
 */
struct lsmb_config {
	const char *path;
	const char *device;
	uint64_t db_bytes;
	bool in_place;
	uint64_t memtable_bytes;
	uint32_t max_immutables;
	bool no_wal;
	uint64_t cache_bytes;
};

/*
 * A put of the extent [key, key + len): len is 1 for a key of the
 * key-value workloads, 1 to --max_range for rangeoverwrite.
 */
struct lsmb_put {
	uint64_t key;
	uint64_t len;
	const void *value;
	uint32_t vlen;
};

/*
 * The store's counters that the report shows (struct lsm_stats's, since
 * the store was opened), and @alloc_bytes: the bytes the file under the
 * library's store has allocated (0 for a block device and for the
 * kernel backend), its space in use while the store does not count
 * that itself (space_used_bytes 0).
 */
struct lsmb_stats {
	uint64_t memtable_bytes;
	uint64_t immutables;
	uint64_t runs;
	uint64_t flushes;
	uint64_t stalls;
	uint64_t stall_ns;
	uint64_t wal_bytes;
	uint64_t run_bytes;
	uint64_t manifest_bytes;
	uint64_t user_bytes;
	uint64_t group_commits;
	uint64_t group_writers;
	uint64_t compactions;
	uint64_t compact_read_bytes;
	uint64_t compact_write_bytes;
	uint64_t pending_compact_bytes;
	uint64_t slowdowns;
	uint64_t slowdown_ns;
	uint64_t space_used_bytes;
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t alloc_bytes;
	uint64_t cache_bytes;
};

struct lsmb_db;
struct lsmb_scan;

/**
 * struct lsmb_backend - one way of reaching a store
 * @name:         "lib" or "dev", as --backend names it
 * @open:         open the store of @cfg, formatting a new one if @fresh
 *                (a file is created or cut back to @cfg->db_bytes first)
 * @close:        detach, everything durable
 * @thread_start: before a thread's first call (RCU registration)
 * @thread_stop:  after its last
 * @write:        @n puts as one atomic write, durable on return if @sync
 * @get:          the value of @key into @vbuf (up to @size bytes) and its
 *                length into @vlen; -ENOENT if absent
 * @scan_start:   a cursor at @from, for this thread
 * @scan_next:    up to @max more keys in order; returns how many (0 at
 *                the end)
 * @scan_end:     forget the cursor
 * @flush:        write the memtable out now and make it durable
 * @stats:        the store's counters
 */
struct lsmb_backend {
	const char *name;
	int (*open)(const struct lsmb_config *cfg, bool fresh,
		    struct lsmb_db **dbp);
	int (*close)(struct lsmb_db *db);
	void (*thread_start)(struct lsmb_db *db);
	void (*thread_stop)(struct lsmb_db *db);
	int (*write)(struct lsmb_db *db, const struct lsmb_put *puts,
		     unsigned int n, bool sync);
	int (*get)(struct lsmb_db *db, uint64_t key, void *vbuf, uint32_t size,
		   uint32_t *vlen);
	int (*scan_start)(struct lsmb_db *db, uint64_t from,
			  struct lsmb_scan **scanp);
	int (*scan_next)(struct lsmb_scan *scan, unsigned int max);
	void (*scan_end)(struct lsmb_scan *scan);
	int (*flush)(struct lsmb_db *db);
	int (*stats)(struct lsmb_db *db, struct lsmb_stats *stats);
};

extern const struct lsmb_backend lsmb_backend_lib;
/* sl_lsm.ko through /dev/sl_lsm (backend_dev.c), in lsm_bench_dev only. */
extern const struct lsmb_backend lsmb_backend_dev;
/* The driver's test double (backend_model.c), in lsm_bench_selftest only. */
extern const struct lsmb_backend lsmb_backend_model;

#endif /* LSM_BENCH_BACKEND_H */
