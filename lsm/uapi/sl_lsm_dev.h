/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/sl_lsm: the extent store (Documentation/lsm.rst) on a block
 * device, driven from userspace.
 *
 * An open file description starts with no store; SL_LSM_IOC_ATTACH binds
 * it to the store on a block device (making a new one with
 * SL_LSM_ATTACH_FORMAT), and from then on every other command works on
 * that store.  SL_LSM_IOC_DETACH, or the last close of the descriptor,
 * makes everything written durable, marks a clean shutdown and gives the
 * device back.  While any store is attached the module cannot be
 * unloaded.  Many threads may issue commands on one descriptor at once;
 * the store serializes what it must.
 *
 * The node is root-only (0600) and every command also requires
 * CAP_SYS_ADMIN (-EPERM otherwise).  Every structure has a fixed layout
 * with explicit padding, the same for 32-bit callers.  "flags" must hold
 * only the flags documented for the command and "reserved" and "pad"
 * must be zero, else -EINVAL, so that they can be given meaning later.
 * User pointers travel as __u64 and need no alignment.  An extent
 * [key, key + len) needs len >= 1 and must not wrap: key + len - 1 must
 * not pass 2^64 - 1 (-EINVAL).
 *
 * Errors common to all commands: -EPERM (no CAP_SYS_ADMIN), -EFAULT (a
 * bad user pointer), -EINVAL (unknown flags, non-zero reserved or pad, or
 * an argument out of range as described per command; the kernel log
 * names the problem), -ENOTTY (unknown command), -ENOMEM, -EINTR (a fatal
 * signal ended the wait for the descriptor), and -ENOTCONN for any
 * command but SL_LSM_IOC_ATTACH on a descriptor with no store.  -ENOENT
 * from a lookup is an ordinary result, not misuse.
 *
 * Writes: -EMSGSIZE for a value longer than SL_LSM_VALUE_MAX, -E2BIG for
 * more than SL_LSM_BATCH_MAX records or SL_LSM_BATCH_BYTES value bytes in
 * one call or a log record larger than the store's log segment (see
 * SL_LSM_BATCH_BYTES), -ENOSPC when the device is full, -EROFS once the store has
 * failed a write or a flush (it then refuses every write until it is
 * detached and attached again), -EIO when a SL_LSM_SYNC write could not
 * be made durable.  A write that fails applied nothing.
 *
 * Durability: a write with SL_LSM_SYNC is durable when the call returns
 * (concurrent SYNC writers share one flush).  Without it, a write is
 * durable after the next SL_LSM_IOC_SYNC, SL_LSM_IOC_FLUSH or detach, or
 * within the commit interval (the module parameter commit_interval_ms,
 * or the attach's own).
 *
 * Counters of each attached store are in debugfs, in
 * sl_lsm/<device name>/stats (the same figures as SL_LSM_IOC_STATS).
 */
#ifndef _UAPI_SL_LSM_DEV_H
#define _UAPI_SL_LSM_DEV_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define SL_LSM_IOC_MAGIC	0xbb

/* The longest value of one extent, in bytes. */
#define SL_LSM_VALUE_MAX	65536
/* Records in one SL_LSM_IOC_BATCH or SL_LSM_IOC_GET call. */
#define SL_LSM_BATCH_MAX	4096
/*
 * Value bytes in one SL_LSM_IOC_BATCH call.  A batch is one log record,
 * and a record never spans log segments, which are 1/64 of the device
 * (128 KiB to 1 MiB, set at format): so a store also refuses, with
 * -E2BIG, a batch whose record (32 bytes, 24 per record, and the values)
 * is larger than its segment, even below this.
 */
#define SL_LSM_BATCH_BYTES	(1024 * 1024)
/* Pieces in one SL_LSM_IOC_SCAN call, and the value bytes it fills. */
#define SL_LSM_SCAN_MAX		4096
#define SL_LSM_SCAN_BYTES	(1024 * 1024)
/* The memtable sizes an attach may ask for. */
#define SL_LSM_MEMTABLE_MIN	(64 * 1024ULL)
#define SL_LSM_MEMTABLE_MAX	(16ULL << 30)
#define SL_LSM_IMMUTABLES_MAX	64
#define SL_LSM_COMMIT_MS_MAX	3600000

/* SL_LSM_IOC_ATTACH flags */
#define SL_LSM_ATTACH_FORMAT	0x1	/* make a new, empty store */
#define SL_LSM_ATTACH_NO_WAL	0x2	/* no log: durable only once flushed */

/**
 * struct sl_lsm_ioc_attach - SL_LSM_IOC_ATTACH: bind a store
 * @path:               user pointer to the block device's path, a
 *                      NUL-terminated string shorter than PATH_MAX
 *                      (-ENAMETOOLONG otherwise)
 * @memtable_bytes:     a memtable this full is written out as a run;
 *                      0 for the module parameter memtable_bytes, else
 *                      SL_LSM_MEMTABLE_MIN to SL_LSM_MEMTABLE_MAX
 * @max_immutables:     writers stall while this many full memtables wait
 *                      to be written; 0 for the module parameter, else
 *                      at most SL_LSM_IMMUTABLES_MAX
 * @commit_interval_ms: a write without SL_LSM_SYNC is durable within
 *                      this long; 0 for the module parameter, else at
 *                      most SL_LSM_COMMIT_MS_MAX
 * @nr_blocks:          out: the device's size in 4 KiB blocks
 * @flags:              SL_LSM_ATTACH_FORMAT: make a new store, erasing
 *                      whatever the device held; SL_LSM_ATTACH_NO_WAL:
 *                      no write-ahead log (a crash loses what is in
 *                      memtables; for benchmarks)
 * @reserved:           zero
 *
 * The device is opened exclusively; the attach opens the store on it
 * (recovering what was durable) or formats a new one.  Refusals, each
 * with one line in the kernel log naming the path:
 * -EISCONN if this descriptor already has a store; -ENOENT if nothing is
 * at @path; -ENOTBLK if it is not a block device; -EBUSY if the device is
 * in use (mounted, or attached on another descriptor); -EROFS if it is
 * read-only; -ENOSPC if it is too small for a store; -EUCLEAN without
 * SL_LSM_ATTACH_FORMAT if it holds no store of this format, or one whose
 * superblocks are both corrupt; -EIO if it cannot be read.
 */
struct sl_lsm_ioc_attach {
	__u64 path;
	__u64 memtable_bytes;
	__u32 max_immutables;
	__u32 commit_interval_ms;
	__u64 nr_blocks;
	__u32 flags;
	__u32 reserved;
};

/* Flags of every write: SL_LSM_IOC_PUT, SL_LSM_IOC_DELETE, SL_LSM_IOC_BATCH */
#define SL_LSM_SYNC		0x1	/* durable when the call returns */

/**
 * struct sl_lsm_ioc_put - SL_LSM_IOC_PUT: store one extent
 * @key:      first unit
 * @len:      units, >= 1
 * @value:    user pointer to the value, read before the call returns
 * @vlen:     bytes of the value, 0 to SL_LSM_VALUE_MAX
 * @flags:    SL_LSM_SYNC or 0
 * @reserved: zero
 *
 * [key, key + len) shows this value afterwards; an older extent that
 * sticks out on either side stays visible there, trimmed.
 */
struct sl_lsm_ioc_put {
	__u64 key;
	__u64 len;
	__u64 value;
	__u32 vlen;
	__u32 flags;
	__u64 reserved;
};

/**
 * struct sl_lsm_ioc_delete - SL_LSM_IOC_DELETE: punch a range
 * @key:      first unit
 * @len:      units, >= 1 (1 for a point delete)
 * @flags:    SL_LSM_SYNC or 0
 * @reserved: zero
 *
 * Nothing is visible in [key, key + len) afterwards; 0 even where
 * nothing was.
 */
struct sl_lsm_ioc_delete {
	__u64 key;
	__u64 len;
	__u32 flags;
	__u32 reserved;
};

/* sl_lsm_ioc_rec.kind */
#define SL_LSM_REC_PUT		1
#define SL_LSM_REC_DELETE	2

/**
 * struct sl_lsm_ioc_rec - one operation of a batch
 * @key:   first unit
 * @len:   units, >= 1
 * @value: SL_LSM_REC_PUT: user pointer to the value; 0 for a delete
 * @vlen:  SL_LSM_REC_PUT: bytes of the value, 0 to SL_LSM_VALUE_MAX;
 *         0 for a delete
 * @kind:  SL_LSM_REC_PUT or SL_LSM_REC_DELETE
 */
struct sl_lsm_ioc_rec {
	__u64 key;
	__u64 len;
	__u64 value;
	__u32 vlen;
	__u32 kind;
};

/**
 * struct sl_lsm_ioc_batch - SL_LSM_IOC_BATCH: puts and deletes at once
 * @recs:     user pointer to @count struct sl_lsm_ioc_rec
 * @count:    1 to SL_LSM_BATCH_MAX, their values SL_LSM_BATCH_BYTES in
 *            all at most, and the record no larger than the store's log
 *            segment (-E2BIG otherwise)
 * @flags:    SL_LSM_SYNC or 0
 * @reserved: zero
 *
 * Atomic: one log record; readers and recovery see all of the records or
 * none.  In order: a later record of the batch wins where two overlap.
 * One bad record (-EINVAL, -EMSGSIZE) and nothing is applied.
 */
struct sl_lsm_ioc_batch {
	__u64 recs;
	__u32 count;
	__u32 flags;
	__u64 reserved;
};

/**
 * struct sl_lsm_ioc_get_rec - one lookup of SL_LSM_IOC_GET
 * @key:       in: the unit looked up
 * @value:     in: user pointer to a buffer for the value (may be 0 when
 *             @vbuf_size is 0)
 * @vbuf_size: in: bytes at @value; the first min(@vlen, @vbuf_size)
 *             bytes of the value are written there
 * @result:    out: 0, or -ENOENT where nothing (or a punch) covers @key;
 *             the fields below are zero then
 * @ext_key:   out: the newest extent covering @key, as it was put: its
 *             first unit
 * @ext_len:   out: and its units
 * @start:     out: the first unit of the window of that extent visible
 *             at @key (newer extents clip it)
 * @len:       out: the window's units
 * @seq:       out: the sequence number of the write that put it
 * @vlen:      out: the value's full length
 * @reserved:  in: zero
 *
 * The offset of @key in the value's terms is @key - @ext_key, as btrfs
 * uses extent_offset.
 */
struct sl_lsm_ioc_get_rec {
	__u64 key;
	__u64 value;
	__u32 vbuf_size;
	__s32 result;
	__u64 ext_key;
	__u64 ext_len;
	__u64 start;
	__u64 len;
	__u64 seq;
	__u32 vlen;
	__u32 reserved;
};

/**
 * struct sl_lsm_ioc_get - SL_LSM_IOC_GET: look up many keys
 * @recs:     user pointer to @count struct sl_lsm_ioc_get_rec, read and
 *            written back whole
 * @count:    1 to SL_LSM_BATCH_MAX (-E2BIG above)
 * @flags:    zero
 * @found:    out: how many lookups found an extent
 * @reserved: zero
 *
 * Each lookup sees every write that returned before the call; lookups
 * of one call are not one snapshot when writers run meanwhile.
 */
struct sl_lsm_ioc_get {
	__u64 recs;
	__u32 count;
	__u32 flags;
	__u32 found;
	__u32 reserved;
};

/**
 * struct sl_lsm_ioc_piece - one visible piece that SL_LSM_IOC_SCAN returns
 * @start:     first visible unit
 * @len:       visible units
 * @ext_key:   the extent as it was put: first unit
 * @ext_len:   and units
 * @seq:       the sequence number of the write that put it
 * @value_off: where its value starts in the scan's value buffer
 * @vlen:      the value's length; all of it is in the buffer
 * @pad:       zero
 */
struct sl_lsm_ioc_piece {
	__u64 start;
	__u64 len;
	__u64 ext_key;
	__u64 ext_len;
	__u64 seq;
	__u64 value_off;
	__u32 vlen;
	__u32 pad;
};

/**
 * struct sl_lsm_ioc_scan - SL_LSM_IOC_SCAN: visible pieces in key order
 * @pos:         in/out: the cursor: the next unit to look at (0 to
 *               start); advanced past the pieces returned
 * @pieces:      user pointer to @max struct sl_lsm_ioc_piece
 * @values:      user pointer to the value buffer
 * @values_size: bytes at @values, at least SL_LSM_VALUE_MAX (so every
 *               call makes progress); at most SL_LSM_SCAN_BYTES of it
 *               are filled per call
 * @max:         pieces wanted, 1 to SL_LSM_SCAN_MAX
 * @count:       out: pieces returned (0 at the end)
 * @done:        in/out: 1 once the scan has passed the last unit of the
 *               key space (a call with it set returns no piece); 0 to
 *               start
 * @flags:       zero
 * @reserved:    zero
 *
 * Newest wins, clipped, punches hidden; a call stops before a value that
 * no longer fits the buffer.  Resuming from @pos sees writes made
 * between the calls.
 */
struct sl_lsm_ioc_scan {
	__u64 pos;
	__u64 pieces;
	__u64 values;
	__u64 values_size;
	__u32 max;
	__u32 count;
	__u32 done;
	__u32 flags;
	__u64 reserved;
};

/**
 * struct sl_lsm_ioc_stats - SL_LSM_IOC_STATS: the store's counters
 * @memtable_bytes: bytes in the active memtable
 * @immutables:     full memtables waiting to be written as runs
 * @runs:           runs in the store
 * @flushes:        memtables written out since attach
 * @stalls:         writes that waited for a memtable's write-out
 * @stall_ns:       the time they waited, in all
 * @wal_bytes:      bytes written to the log since attach
 * @run_bytes:      bytes written to runs
 * @manifest_bytes: bytes written to the manifest
 * @user_bytes:     key, length and value bytes written by callers
 * @group_commits:  log flushes that made SYNC writes durable
 * @group_writers:  SYNC writes those flushes made durable
 * @seq:            the newest sequence number
 * @nr_blocks:      the device's size in 4 KiB blocks
 * @read_only:      1 if the store has failed a write or flush and
 *                  refuses writes, else 0
 * @flags:          zero
 * @reserved:       zero
 * @level_runs:     runs in each level, 0 to 6 (level 0: memtables' runs)
 * @level_bytes:    bytes of the runs in each level
 * @compactions:    merges of runs into a lower level since attach
 * @compact_read_bytes:  bytes of runs they read
 * @compact_write_bytes: bytes of runs they wrote (part of @run_bytes)
 * @compact_ns:     time spent merging
 * @pending_compact_bytes: estimated bytes merges must still rewrite
 * @slowdowns:      writes delayed because merges fall behind
 * @slowdown_ns:    the time they were delayed, in all
 * @space_used_bytes: device space in use (superblocks, manifest, log,
 *                  runs, and dropped runs readers still hold)
 * @cache_hits:     run blocks found in the block cache
 * @cache_misses:   run blocks read from the device
 * @cache_bytes:    bytes the block cache holds now
 * @spare:          zero
 */
struct sl_lsm_ioc_stats {
	__u64 memtable_bytes;
	__u64 immutables;
	__u64 runs;
	__u64 flushes;
	__u64 stalls;
	__u64 stall_ns;
	__u64 wal_bytes;
	__u64 run_bytes;
	__u64 manifest_bytes;
	__u64 user_bytes;
	__u64 group_commits;
	__u64 group_writers;
	__u64 seq;
	__u64 nr_blocks;
	__u32 read_only;
	__u32 flags;
	__u64 reserved;
	__u64 level_runs[7];
	__u64 level_bytes[7];
	__u64 compactions;
	__u64 compact_read_bytes;
	__u64 compact_write_bytes;
	__u64 compact_ns;
	__u64 pending_compact_bytes;
	__u64 slowdowns;
	__u64 slowdown_ns;
	__u64 space_used_bytes;
	__u64 cache_hits;
	__u64 cache_misses;
	__u64 cache_bytes;
	__u64 spare[7];
};

#define SL_LSM_IOC_ATTACH	_IOWR(SL_LSM_IOC_MAGIC, 1, struct sl_lsm_ioc_attach)
/*
 * Make everything durable, mark a clean shutdown and give the device
 * back; the descriptor can attach again.  The store is detached even if
 * the final writes fail, which the result reports (-EIO).
 */
#define SL_LSM_IOC_DETACH	_IO(SL_LSM_IOC_MAGIC, 2)
#define SL_LSM_IOC_PUT		_IOW(SL_LSM_IOC_MAGIC, 3, struct sl_lsm_ioc_put)
#define SL_LSM_IOC_DELETE	_IOW(SL_LSM_IOC_MAGIC, 4, struct sl_lsm_ioc_delete)
#define SL_LSM_IOC_BATCH	_IOW(SL_LSM_IOC_MAGIC, 5, struct sl_lsm_ioc_batch)
#define SL_LSM_IOC_GET		_IOWR(SL_LSM_IOC_MAGIC, 6, struct sl_lsm_ioc_get)
#define SL_LSM_IOC_SCAN		_IOWR(SL_LSM_IOC_MAGIC, 7, struct sl_lsm_ioc_scan)
/* Everything acknowledged so far is durable on return (-EIO if not). */
#define SL_LSM_IOC_SYNC		_IO(SL_LSM_IOC_MAGIC, 8)
/* Write the memtable out as a run now, and make it durable. */
#define SL_LSM_IOC_FLUSH	_IO(SL_LSM_IOC_MAGIC, 9)
#define SL_LSM_IOC_STATS	_IOWR(SL_LSM_IOC_MAGIC, 10, struct sl_lsm_ioc_stats)

#endif /* _UAPI_SL_LSM_DEV_H */
