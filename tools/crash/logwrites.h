/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader of the log that the kernel's dm-log-writes target writes
 * (Documentation/admin-guide/device-mapper/log-writes.rst in the kernel
 * tree; the layout below is read from drivers/md/dm-log-writes.c of
 * Linux 6.1, described here in our words).
 *
 * All integers are little-endian.  The log is a sequence of slots of the
 * logged device's logical sector size S (512 here; the superblock says):
 *
 *   slot 0        the log superblock:
 *                   0  u64  magic       0x6a736677736872
 *                   8  u64  version     1
 *                  16  u64  nr_entries  entries logged (rewritten after
 *                                       every FUA and mark entry, and by
 *                                       the end mark at table removal)
 *                  24  u32  sectorsize  S
 *                 the rest of the slot is zero
 *   slot 1        the first entry's head, then its data, then the next
 *                 entry's head, and so on, nr_entries times:
 *                   0  u64  sector      where the write went, in units
 *                                       of S on the logged device
 *                   8  u64  nr_sectors  its length in units of S
 *                  16  u64  flags       LW_FLUSH, LW_FUA, LW_DISCARD,
 *                                       LW_MARK, LW_METADATA
 *                  24  u64  data_len    a mark's label length
 *                  32       a mark's label (data_len bytes, no NUL), then
 *                           zeros to the end of the slot
 *                 then nr_sectors slots of data, except for a discard
 *                 (which has none) and a mark or empty flush (nr_sectors
 *                 is 0); the next head follows.
 *
 * Order: an entry is logged once what it describes is on the device,
 * not in its cache.  A write without FUA waits in the target until the
 * next flush completes; then every write that had completed when that
 * flush was issued is logged, followed by the flush entry (LW_FLUSH, no
 * data, or with data for a PREFLUSH write).  A FUA write is logged as
 * soon as it completes.  A mark is logged when userspace sends it
 * ("dmsetup message DEV 0 mark LABEL"), after everything already logged.
 * So replaying the log up to any entry gives a state the device could
 * have been left in by a power cut: writes not yet flushed are lost, the
 * worst case.  Removing the table logs the writes still unflushed and a
 * last mark, "dm-log-writes-end".
 */
#ifndef _CRASH_LOGWRITES_H
#define _CRASH_LOGWRITES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define LW_MAGIC		0x6a736677736872ULL
#define LW_VERSION		1

/* lw_entry.flags */
#define LW_FLUSH		(1 << 0)	/* a flush, or a PREFLUSH write */
#define LW_FUA			(1 << 1)	/* written with FUA */
#define LW_DISCARD		(1 << 2)	/* a discard: no data */
#define LW_MARK			(1 << 3)	/* a label from userspace */
#define LW_METADATA		(1 << 4)	/* written with REQ_META */
#define LW_KNOWN_FLAGS		0x1f

#define LW_END_MARK		"dm-log-writes-end"
/* The longest mark label this reader takes (the target allows S - 33). */
#define LW_LABEL_MAX		128

/**
 * struct lw_entry - one entry of the log
 * @index:      its position, from 0
 * @sector:     where the write went, in bytes / 512 of the logged device
 * @nr_sectors: its length in 512-byte sectors
 * @flags:      LW_*
 * @data_off:   where its data starts in the log, in bytes
 * @label:      a mark's label, NUL-terminated ("" for other entries)
 */
struct lw_entry {
	uint64_t index;
	uint64_t sector;
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_off;
	char label[LW_LABEL_MAX];
};

/**
 * struct lw_log - an open log
 * @fd:         the log file or device
 * @size:       its size in bytes
 * @sectorsize: S, from the superblock
 * @nr_entries: from the superblock
 * @next:       the index of the next entry lw_next() returns
 * @pos:        where its head is, in bytes
 * @buf:        read-ahead buffer of the heads (and the data) being walked
 * @buf_off:    the log offset of @buf's first byte
 * @buf_len:    bytes valid in @buf
 */
struct lw_log {
	int fd;
	uint64_t size;
	uint32_t sectorsize;
	uint64_t nr_entries;
	uint64_t next;
	uint64_t pos;
	unsigned char *buf;
	uint64_t buf_off;
	size_t buf_len;
};

/*
 * Open the log at @path and check its superblock.  Returns 0, or a
 * negative errno with a message on stderr naming the problem: -EINVAL
 * for a bad magic, version or sector size.
 */
int lw_open(struct lw_log *log, const char *path);
void lw_close(struct lw_log *log);

/*
 * The next entry into @e: 1 when there is one, 0 after the last, or a
 * negative errno (-EUCLEAN: an entry with unknown flags, a mark label
 * that does not fit its slot, or data past the end of the log).
 */
int lw_next(struct lw_log *log, struct lw_entry *e);

/* Go back to the first entry. */
void lw_rewind(struct lw_log *log);

/*
 * Read @e's data (@e->nr_sectors * 512 bytes) into @buf.  0 or a
 * negative errno.
 */
int lw_read_data(struct lw_log *log, const struct lw_entry *e, void *buf);

/* Whether @e carries data to apply to the device. */
static inline bool lw_has_data(const struct lw_entry *e)
{
	return e->nr_sectors && !(e->flags & (LW_DISCARD | LW_MARK));
}

/* "FLUSH|FUA"-style names of @flags into @buf. */
const char *lw_flag_names(uint64_t flags, char *buf, size_t len);

/*
 * Overlapping flushes.  The target logs a flush when it completes, with
 * the writes that had completed when it was issued and that no flush
 * issued before it took.  Two flushes in flight at once break the log's
 * promise: if F1 is issued before F2 but F2 completes first, F2 is
 * logged first, and F1's writes after it, although they had completed
 * before F2 was issued and so were durable when F2 completed.  Replayed
 * in log order, the device at F2 lacks them.
 *
 * When the flushes were queued, mapped and completed puts this right,
 * from the guest's block trace of the logged device
 * (tools/vm/guest-crash.sh): block_bio_queue and block_bio_complete
 * events of its flushes, "253,0 FWS 0 + 0" for an empty flush and
 * "253,0 FWFSM 8 + 8" for a PREFLUSH write (which completes as "WFSM 8 +
 * 8"), which the log has as a FLUSH entry without data at that write's
 * sector; and block_bio_remap events of the flushes passed on to the disk
 * below ("254,0 FWS 0 + 0 <- (253,0) 0", "254,0 FWFSM 8 + 0 <- (253,0)
 * 8"), which device-mapper emits just after the target mapped the flush
 * and took its batch.  A flush's batch (the writes logged just before
 * it) is durable no later than the completion of the first flush, in log
 * order, that completed after the batch's flush was queued and was not
 * remapped before then (a PREFLUSH write's flush completes at a time the
 * trace does not show: after its remap, which stands for it, or without
 * one after its queueing): the batch's writes had completed before its
 * flush reached the target, which is after it was queued, and a flush
 * the target mapped earlier took only writes completed before the
 * batch's.  (Not "issued before": the trace's queue time is not when the
 * target takes the batch, and a vCPU held up in between reversed two
 * flushes queued 0.3 ms apart.  Nor "completed after" alone: a batch
 * moved ahead of one taken earlier would put a block's older contents
 * over the newer, as a slow sync's flush showed, over a log segment
 * freed and reused by a run meanwhile.)  The replay order moves each
 * batch there, ahead of that flush's own batch, in the order the flushes
 * were queued.  This never shows a batch later than it became durable,
 * so it cannot report a loss the device did not have.  It may show one
 * earlier than it became durable (when neither flush's remap tells which
 * the target mapped first), and so may hide a loss that falls in such a
 * window; at most by as long as the two flushes overlapped.  Where the
 * batch and one it moves ahead of write the same sector in such a
 * window, which write is newer is unknown: the reorder counts and names
 * them (@ambiguous) instead of guessing silently.  A trace without
 * remaps (an older one) is read as before, every flush's mapping
 * unknown.
 *
 * Empty flushes and PREFLUSH writes are paired with the log's FLUSH
 * entries kind by kind, in order; that needs the flushes of one kind
 * never to overlap, which the trace shows (each completes before the
 * next of its kind is queued) or the pairing is refused.
 */

/**
 * struct lw_index - a whole log, and the order to replay it in
 * @e:      the entries, in log order
 * @n:      how many
 * @order:  the replay order: indices into @e
 * @moved:  batches the flush trace moved to an earlier flush
 * @ambiguous: writes of moved batches to sectors that a batch they moved
 *          ahead of also writes, where the trace cannot tell which of
 *          the two flushes the target mapped first
 * @kept:   batches that completion times alone would have moved further,
 *          kept behind a flush the remaps show was mapped before theirs
 */
struct lw_index {
	struct lw_entry *e;
	uint64_t n;
	uint64_t *order;
	uint64_t moved;
	uint64_t ambiguous;
	uint64_t kept;
};

/* Read every entry of @log into @ix, in log order.  0 or -errno. */
int lw_index_load(struct lw_log *log, struct lw_index *ix);

/*
 * Reorder @ix by the flush trace at @path as above.  0, or -EINVAL with
 * a message when the trace does not pair with the log.
 */
int lw_index_reorder(struct lw_index *ix, const char *path);

void lw_index_free(struct lw_index *ix);

#endif /* _CRASH_LOGWRITES_H */
