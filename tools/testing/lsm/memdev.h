/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A block device in memory for the store's tests (lsm/bdev.h).  It keeps
 * what a reader sees now and, while recording, a trace of every write
 * and flush, from which a power cut at any point of the trace gives the
 * device as it would come back: everything flushed, or written with FUA,
 * stays; of the writes since the last flush it drops all, or keeps a
 * random subset, or also tears one at a 512-byte boundary (the write in
 * flight at the cut, or else one of those not yet flushed).
 *
 * Blocks are shared between the trace and the devices made from it and
 * never changed once written, so a cut costs a pointer per block.
 */
#ifndef _LSM_TEST_MEMDEV_H
#define _LSM_TEST_MEMDEV_H

#include <linux/types.h>
#include "bdev.h"

struct memdev;
struct memdev_replay;

enum memdev_cut {
	MEMDEV_DROP_ALL,	/* every write since the last flush is lost */
	MEMDEV_SUBSET,		/* each of them survives or not, at random */
	MEMDEV_TEAR,		/* a random subset, and one write torn */
	MEMDEV_NR_CUTS,
};

/* What a trace event is, for choosing cut points. */
#define MEMDEV_EV_WRITE		0x1
#define MEMDEV_EV_FLUSH		0x2	/* a flush, or a PREFLUSH write */
#define MEMDEV_EV_FUA		0x4

struct memdev *memdev_create(u64 nr_blocks, bool record);
void memdev_destroy(struct memdev *md);
struct lsm_bdev *memdev_bdev(struct memdev *md);
struct memdev *memdev_of(struct lsm_bdev *bdev);

/* Start (again) recording, from what the device holds now. */
void memdev_record(struct memdev *md);
/* Events recorded so far, and what event @i is (MEMDEV_EV_*). */
u64 memdev_events(struct memdev *md);
unsigned int memdev_event_kind(struct memdev *md, u64 i);

/* After @n more writes and flushes, every write and flush fails with -EIO. */
void memdev_fail_after(struct memdev *md, u64 n);

/* What memdev_fail_io() fails, and how. */
#define MEMDEV_IO_READ		0x1
#define MEMDEV_IO_WRITE		0x2	/* PREFLUSH and FUA writes included */
#define MEMDEV_IO_FLUSH		0x4
/*
 * A failed write or flush still takes effect (as when the media got it
 * and the completion was lost): the caller sees -EIO, a reader and a
 * power cut see the write.
 */
#define MEMDEV_IO_LANDS		0x8

/*
 * Operations of the kinds in @how (MEMDEV_IO_*): the @skip next ones
 * succeed, the @count after them fail with -EIO (U64_MAX: every one from
 * then on), and the rest succeed again; other kinds go on as usual.  A
 * call replaces the previous one's setting; @count 0 turns it off.
 * Independent of memdev_fail_after().
 */
void memdev_fail_io(struct memdev *md, unsigned int how, u64 skip, u64 count);
/* Operations failed by memdev_fail_io() so far. */
u64 memdev_io_failed(struct memdev *md);

/* Count the reads of each block from now on; how often @block was read. */
void memdev_count_reads(struct memdev *md);
u64 memdev_block_reads(struct memdev *md, u64 block);

/*
 * A new device (not recording) holding what @md holds now; the blocks
 * are shared until either device writes them, so a copy costs a pointer
 * per block.
 */
struct memdev *memdev_clone(struct memdev *md);

/* Every flush takes this long (a disk's cache flush), 0 by default. */
void memdev_flush_delay(struct memdev *md, unsigned int us);

/*
 * Hold every flush at its start until the test lets it go, so that a
 * test places writers against a flush in flight without timing.  Held
 * flushes go in the order they came; memdev_release_flush() lets the
 * oldest (or, with none held, the next to come) go on, to succeed (0)
 * or fail with @err, recording no flush then.  Turning holding off lets
 * every held flush succeed.
 */
void memdev_hold_flushes(struct memdev *md, bool hold);
/* Wait until at least @n flushes are held. */
void memdev_wait_held(struct memdev *md, unsigned int n);
void memdev_release_flush(struct memdev *md, int err);

/* Counters. */
u64 memdev_writes(struct memdev *md);
u64 memdev_flushes(struct memdev *md);
u64 memdev_reads(struct memdev *md);

/*
 * Cut power in the recorded trace: memdev_replay_advance() moves to event
 * @to (events before it completed), memdev_replay_cut() returns a new
 * device as the power cut leaves it there, event @to in flight.  Cut
 * points must not go backwards.
 */
struct memdev_replay *memdev_replay_start(struct memdev *md);
void memdev_replay_advance(struct memdev_replay *r, u64 to);
struct memdev *memdev_replay_cut(struct memdev_replay *r, enum memdev_cut how,
				 u64 seed);
void memdev_replay_end(struct memdev_replay *r);

/* Power lost now: the device as the cut leaves it (record must be on). */
struct memdev *memdev_power_cut(struct memdev *md, enum memdev_cut how,
				u64 seed);

#endif /* _LSM_TEST_MEMDEV_H */
