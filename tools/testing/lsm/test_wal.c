// SPDX-License-Identifier: GPL-2.0
/*
 * The write-ahead log (lsm/wal.c): records cross blocks and come back
 * whole and in order; a sealed block is never rewritten; replay stops at
 * the first block that is damaged, torn, stale (another epoch) or never
 * written, and at the first record out of sequence, never skips past,
 * and names the block where it stopped; recovery over two segments
 * refuses damage that provably lost a durable write (check_chain()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rcupdate.h>
#include <asm/byteorder.h>
#include "format.h"
#include "memdev.h"
#include "wal.h"

static unsigned long long seed;

#define EXPECT(cond) do { if (!(cond)) {				\
	fprintf(stderr, "test_wal: %s:%d: %s (seed %llu)\n",		\
		__FILE__, __LINE__, #cond, seed);			\
	exit(1); } } while (0)

#define STORE	0x5107e
#define HDR_BYTES	sizeof(struct lsm_block_header)
#define NREC	300

static u8 vals[NREC][3000];
static u32 vlen[NREC];

static int check_apply(void *priv, u64 seq, const struct lsm_op *ops,
		       unsigned int n)
{
	u64 *seen = priv;

	EXPECT(seq == *seen + 1 && seq <= NREC);
	EXPECT(n == 2 && ops[0].kind == LSM_OP_PUT &&
	       ops[1].kind == LSM_OP_DELETE);
	EXPECT(ops[0].key == seq && ops[0].len == seq * 3 &&
	       ops[0].vlen == vlen[seq - 1]);
	EXPECT(!memcmp(ops[0].value, vals[seq - 1], vlen[seq - 1]));
	*seen = seq;
	return 0;
}

static struct lsm_wal_end end;

/* Replay the segment; how many records came back. */
static u64 replay(struct lsm_bdev *b, const struct lsm_wal_seg *seg)
{
	u64 next = seg->first_seq, seen = seg->first_seq - 1;

	EXPECT(!lsm_wal_replay(b, STORE, seg, &next, check_apply, &seen,
			       &end));
	EXPECT(next == seen + 1);
	return seen;
}

static int chain_apply(void *priv, u64 seq, const struct lsm_op *ops,
		       unsigned int n)
{
	u64 *last = priv;

	EXPECT(seq > *last && (*last == 0 || seq == *last + 1));
	EXPECT(n == 1 && ops[0].key == seq);
	*last = seq;
	return 0;
}

/*
 * A log of two segments, and recovery over it (lsm_wal_recover()): a
 * damaged block is refused where it provably lost a durable write: in a
 * segment followed by another (recorded only after it was sealed and
 * flushed) or before the superblock's durable mark, unless runs hold the
 * writes; elsewhere the log ends there (a crash's tail).  Old code took
 * every damaged block for the end of the log, dropping the later
 * segments' writes silently.
 */
static void check_chain(struct lsm_bdev *b)
{
	struct lsm_wal_seg segs[2] = {
		{ .id = 20, .start = 400, .nr = 12, .first_seq = 1 },
		{ .id = 21, .start = 420, .nr = 12 },
	};
	static u8 val[2000];
	struct lsm_wal w;
	u64 seq, split, total, blk_of[400], last, next;
	unsigned int refused = 0, cut = 0;

	EXPECT(!lsm_wal_init(&w, b, STORE));
	lsm_wal_begin(&w, &segs[0]);
	for (seq = 1;; seq++) {
		const struct lsm_op op = { .kind = LSM_OP_PUT, .key = seq, .len = 1,
				     .vlen = 100 + rand() % 1900,
				     .value = val };
		size_t bytes = lsm_wal_record_bytes(&op, 1);

		if (!lsm_wal_room(&w, bytes)) {
			if (w.seg.id == 21)
				break;
			EXPECT(!lsm_wal_seal(&w));
			segs[1].first_seq = seq;
			lsm_wal_begin(&w, &segs[1]);
		}
		EXPECT(!lsm_wal_append(&w, seq, &op, 1));
		/* The block a record ends in. */
		blk_of[seq] = w.seg.start + (w.used == HDR_BYTES ?
					     w.block - 1 : w.block);
		if (rand() % 5 == 0)
			EXPECT(!lsm_wal_seal(&w));
		EXPECT(seq < 399);
	}
	EXPECT(!lsm_wal_seal(&w));
	lsm_wal_destroy(&w);
	total = seq - 1;
	split = segs[1].first_seq;
	last = 0;
	EXPECT(!lsm_wal_recover(b, STORE, segs, 2, 0, total, &next,
				chain_apply, &last));
	EXPECT(last == total && next == total + 1);

	for (int round = 0; round < 40; round++) {
		u64 victim = blk_of[1 + rand() % total], p, durable;
		u8 orig[LSM_BLOCK_SIZE], buf[LSM_BLOCK_SIZE];
		u64 first_lost = total + 1;
		int err;

		/* Records of its segment from the first that reaches it on. */
		for (u64 s = total; s >= 1; s--)
			if (blk_of[s] >= victim &&
			    (blk_of[s] < 420) == (victim < 420))
				first_lost = s;
		EXPECT(!b->ops->read(b, victim, orig, 1));
		memcpy(buf, orig, sizeof(buf));
		buf[rand() % LSM_BLOCK_SIZE] ^= 1 << (rand() % 8);
		EXPECT(!lsm_bdev_write_sync(b, victim, buf, 1, 0));
		/* Runs hold nothing, or all of the first segment. */
		p = rand() % 2 ? 0 : split - 1;
		durable = rand() % 2 ? 0 : total;
		last = p;
		err = lsm_wal_recover(b, STORE, segs, 2, p, durable, &next,
				      chain_apply, &last);
		if (victim < 420 && p < split - 1) {
			/* The second segment proves the first was durable. */
			EXPECT(err == -EUCLEAN);
			refused++;
		} else if (victim >= 420 && durable) {
			EXPECT(err == -EUCLEAN);
			refused++;
		} else {
			/* In runs, or a tail no durable mark covers. */
			EXPECT(!err);
			EXPECT(next == last + 1 || (last == p && next == p + 1));
			if (victim >= 420)
				EXPECT(last == first_lost - 1);
			else
				EXPECT(last == total);
			cut++;
		}
		EXPECT(!lsm_bdev_write_sync(b, victim, orig, 1, 0));
	}
	printf("test_wal: two segments, %llu records: %u damaged blocks refused, %u ending the log harmlessly\n",
	       (unsigned long long)total, refused, cut);
}

int main(int argc, char **argv)
{
	struct memdev *md = memdev_create(LSM_MIN_BLOCKS, false);
	struct lsm_bdev *b = memdev_bdev(md);
	struct lsm_wal_seg seg = { .id = 7, .start = 100, .nr = 200,
				   .first_seq = 1 };
	struct lsm_wal w;
	u64 end_block[NREC + 1];
	int damaged = 0;
	u8 buf[LSM_BLOCK_SIZE];

	if (argc > 2 && !strcmp(argv[1], "--seed"))
		seed = strtoull(argv[2], NULL, 0);
	srand(seed);
	EXPECT(!lsm_wal_init(&w, b, STORE));
	EXPECT(!lsm_wal_room(&w, 10));		/* no segment yet */
	lsm_wal_begin(&w, &seg);
	for (u64 s = 1; s <= NREC; s++) {
		struct lsm_op ops[2] = {
			{ .kind = LSM_OP_PUT, .key = s, .len = s * 3 },
			{ .kind = LSM_OP_DELETE, .key = s + 1000, .len = 1 },
		};

		vlen[s - 1] = rand() % (s % 10 ? 200 : 3000);
		for (u32 i = 0; i < vlen[s - 1]; i++)
			vals[s - 1][i] = rand();
		ops[0].vlen = vlen[s - 1];
		ops[0].value = vals[s - 1];
		EXPECT(lsm_wal_room(&w, lsm_wal_record_bytes(ops, 2)));
		EXPECT(!lsm_wal_append(&w, s, ops, 2));
		/* The block its last byte is in. */
		end_block[s] = w.used == sizeof(struct lsm_block_header) ?
			       w.block - 1 : w.block;
		if (rand() % 7 == 0)
			EXPECT(!lsm_wal_seal(&w));
	}
	EXPECT(!lsm_wal_seal(&w));
	EXPECT(replay(b, &seg) == NREC);
	/* The segment's stream read with another epoch: nothing. */
	seg.id = 8;
	EXPECT(replay(b, &seg) == 0);
	seg.id = 7;
	/* A record of the wrong sequence number ends the log at once. */
	seg.first_seq = 2;
	{
		u64 next = 2, seen = 1;

		EXPECT(!lsm_wal_replay(b, STORE, &seg, &next, check_apply,
				       &seen, &end));
		EXPECT(end.kind == LSM_WAL_END_RECORD &&
		       end.block == seg.start);
		EXPECT(seen == 1 && next == 2);
	}
	seg.first_seq = 1;
	/*
	 * Damage block k (a flipped bit, a torn write, a stale block of
	 * another epoch): the log ends with the last record that ends
	 * before it, never later, never earlier.
	 */
	for (int round = 0; round < 60; round++) {
		u64 k = rand() % (end_block[NREC] + 1), last = 0;
		struct lsm_block_id stale = { .blocknr = seg.start + k,
					      .store_id = STORE, .epoch = 6,
					      .type = LSM_BT_WAL };
		u8 orig[LSM_BLOCK_SIZE];

		EXPECT(!b->ops->read(b, seg.start + k, orig, 1));
		memcpy(buf, orig, sizeof(buf));
		switch (round % 3) {
		case 0:
			buf[rand() % LSM_BLOCK_SIZE] ^= 1 << (rand() % 8);
			break;
		case 1:	/* the last sectors never made it */
			memset(buf + 512 * (1 + rand() % 7), 0, 512);
			break;
		case 2:
			lsm_block_seal(buf, &stale, le32_to_cpu(
				((struct lsm_block_header *)buf)->used));
			break;
		}
		if (!memcmp(buf, orig, sizeof(buf)))
			continue;	/* a zeroed sector that was zero */
		EXPECT(!lsm_bdev_write_sync(b, seg.start + k, buf, 1, 0));
		for (u64 s = 1; s <= NREC; s++)
			if (end_block[s] < k)
				last = s;
		EXPECT(replay(b, &seg) == last);
		/* The block is named, damaged unless its magic is gone. */
		EXPECT(end.block == seg.start + k);
		EXPECT(end.kind == LSM_WAL_END_BLOCK ||
		       (end.kind == LSM_WAL_END_DAMAGED && round % 3 != 2));
		EXPECT(!lsm_bdev_write_sync(b, seg.start + k, orig, 1, 0));
		EXPECT(replay(b, &seg) == NREC);
		damaged++;
	}
	lsm_wal_destroy(&w);
	check_chain(b);
	memdev_destroy(md);
	printf("test_wal: ok (%d records, %d damaged blocks)\n", NREC,
	       damaged);
	return 0;
}
