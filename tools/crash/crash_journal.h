/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the crash workload (selftests/lsm/lsm_crash_workload.c, in the
 * guest) and the checker (tools/crash/crash_check.c, on the host) agree
 * on: the journal of operations, the dump of a store's state, the marks
 * in the dm-log-writes log, and the bytes of every value.
 *
 * The key space is U units from key BASE; unit u is key BASE + u.
 *
 * Journal: text, one line per operation, in the order they were made;
 * after each line's operation returned, the workload sends the mark
 * "o<ID>" to the log-writes target, so the log says which operations had
 * returned at each point of it.
 *
 *   lsm-crash-journal 1 base BASE units U memtable BYTES seed SEED
 *   a ID FLAGS RES SEQ BLOCKS
 *                           attach (FLAGS 1: format); SEQ: the store's
 *                           newest sequence number after it; BLOCKS: the
 *                           device's size in 4 KiB blocks
 *   w ID SYNC RES SEQ N OP1 ... OPN
 *                           a write of N operations (SYNC 1: with
 *                           SL_LSM_SYNC), one PUT, DELETE or BATCH ioctl;
 *                           SEQ its sequence number; OPi is
 *                           p:UNIT:LEN:VLEN (a put, its value
 *                           crash_value_byte(ID, i, 0..VLEN-1)) or
 *                           d:UNIT:LEN (a punch)
 *   s ID RES                SL_LSM_IOC_SYNC
 *   f ID RES                SL_LSM_IOC_FLUSH
 *   x ID RES                SL_LSM_IOC_DETACH
 *   end ID                  the workload finished; ID is one past the last
 *
 * RES is 0 or a negative errno.  IDs count from 1, one per line.
 *
 * Dump (lsm_crash_workload dump): the state the kernel's recovery found,
 * for the checker to judge as it judges its own recoveries.
 *
 *   lsm-crash-dump 1 seq SEQ
 *   p START LEN EXT_KEY EXT_LEN SEQ VLEN HASH    one visible piece, in key
 *                           order, as SL_LSM_IOC_SCAN returns it; HASH is
 *                           crash_hash() of its value, in hex
 *   end PIECES
 */
#ifndef _CRASH_JOURNAL_H
#define _CRASH_JOURNAL_H

#include <stdint.h>

#define CRASH_JOURNAL_MAGIC	"lsm-crash-journal"
#define CRASH_DUMP_MAGIC	"lsm-crash-dump"
#define CRASH_FORMAT		1

/* The most operations of one write the workload makes. */
#define CRASH_MAX_OPS		16

/* Byte @b of the value of operation @op of the write journalled as @id. */
static inline unsigned char crash_value_byte(uint64_t id, unsigned int op,
					     uint32_t b)
{
	uint64_t x = (id << 24 | (uint64_t)op << 18) ^ b;

	x *= 0x9e3779b97f4a7c15ULL;
	return x >> 56;
}

/* FNV-1a, 64 bits, of @len bytes at @p, going on from @h (CRASH_HASH_INIT to start). */
#define CRASH_HASH_INIT		0xcbf29ce484222325ULL
static inline uint64_t crash_hash(uint64_t h, const void *p, uint64_t len)
{
	const unsigned char *c = p;

	for (uint64_t i = 0; i < len; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

#endif /* _CRASH_JOURNAL_H */
