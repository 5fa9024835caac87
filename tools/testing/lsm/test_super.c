// SPDX-License-Identifier: GPL-2.0
/*
 * Superblocks (lsm/super.c): the copy of higher generation wins; a torn
 * or flipped copy leaves the other; neither valid, a foreign block or an
 * unknown format is -EUCLEAN (format 1, before levels, is read); a device
 * smaller than its store -ENOSPC.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/byteorder.h>
#include <linux/rcupdate.h>
#include "block.h"
#include "format.h"
#include "memdev.h"
#include "super.h"

static unsigned long long seed;

#define EXPECT(cond) do { if (!(cond)) {				\
	fprintf(stderr, "test_super: %s:%d: %s (seed %llu)\n",		\
		__FILE__, __LINE__, #cond, seed);			\
	exit(1); } } while (0)

static void flip(struct lsm_bdev *b, u64 block, unsigned int byte)
{
	u8 buf[LSM_BLOCK_SIZE];

	EXPECT(!b->ops->read(b, block, buf, 1));
	buf[byte % LSM_BLOCK_SIZE] ^= 0x10;
	EXPECT(!lsm_bdev_write_sync(b, block, buf, 1, 0));
}

/* Rewrite the copy in @block as format @format, sealed again. */
static void set_format(struct lsm_bdev *b, u64 block, u32 format)
{
	u8 buf[LSM_BLOCK_SIZE];
	struct lsm_super *s = (void *)buf;
	struct lsm_block_id id = { .blocknr = block, .type = LSM_BT_SUPER };

	EXPECT(!b->ops->read(b, block, buf, 1));
	id.store_id = le64_to_cpu(s->hdr.store_id);
	id.epoch = le64_to_cpu(s->hdr.epoch);
	s->format = cpu_to_le32(format);
	lsm_block_seal(buf, &id, sizeof(*s));
	EXPECT(!lsm_bdev_write_sync(b, block, buf, 1, 0));
}

int main(int argc, char **argv)
{
	struct memdev *md = memdev_create(LSM_MIN_BLOCKS, false);
	struct lsm_bdev *b = memdev_bdev(md);
	struct lsm_super_info si = {
		.store_id = 0xfeed, .nr_blocks = LSM_MIN_BLOCKS,
		.manifest_start = 2, .manifest_blocks = 70,
		.manifest_id = 1, .segment_blocks = 32,
	}, got;
	u8 buf[LSM_BLOCK_SIZE];

	if (argc > 2 && !strcmp(argv[1], "--seed"))
		seed = strtoull(argv[2], NULL, 0);
	srand(seed);
	EXPECT(lsm_super_read(b, &got) == -EUCLEAN);	/* all zero */
	EXPECT(!lsm_super_write(b, &si) && si.generation == 1);
	EXPECT(!lsm_super_write(b, &si) && si.generation == 2);
	EXPECT(!lsm_super_read(b, &got) && got.generation == 2);
	EXPECT(got.store_id == 0xfeed && got.manifest_blocks == 70);
	si.manifest_start = 100;
	EXPECT(!lsm_super_write(b, &si) && si.generation == 3);
	EXPECT(!lsm_super_read(b, &got) && got.generation == 3 &&
	       got.manifest_start == 100);
	/* Format 1 (runs without levels) is read; format 3 is not. */
	set_format(b, 1, 1);
	EXPECT(!lsm_super_read(b, &got) && got.generation == 3);
	set_format(b, 1, LSM_FORMAT_VERSION + 1);
	set_format(b, 0, LSM_FORMAT_VERSION + 1);
	EXPECT(lsm_super_read(b, &got) == -EUCLEAN);
	set_format(b, 1, LSM_FORMAT_VERSION);
	set_format(b, 0, LSM_FORMAT_VERSION);
	/* Generation 3 (block 1) damaged anywhere: generation 2 rules. */
	flip(b, 1, rand());
	EXPECT(!lsm_super_read(b, &got) && got.generation == 2 &&
	       got.manifest_start == 2);
	/* Both damaged: refused. */
	flip(b, 0, rand());
	EXPECT(lsm_super_read(b, &got) == -EUCLEAN);
	/* Foreign: no magic. */
	memset(buf, 0x5a, sizeof(buf));
	EXPECT(!lsm_bdev_write_sync(b, 0, buf, 1, 0));
	EXPECT(!lsm_bdev_write_sync(b, 1, buf, 1, 0));
	EXPECT(lsm_super_read(b, &got) == -EUCLEAN);
	/* A sound copy in the wrong slot (generation 4 in block 1). */
	si.generation = 3;
	EXPECT(!lsm_super_write(b, &si) && si.generation == 4);
	EXPECT(!b->ops->read(b, 0, buf, 1));
	EXPECT(!lsm_bdev_write_sync(b, 1, buf, 1, 0));
	EXPECT(!lsm_super_read(b, &got) && got.generation == 4);
	memset(buf, 0, sizeof(buf));
	EXPECT(!lsm_bdev_write_sync(b, 0, buf, 1, 0));
	EXPECT(lsm_super_read(b, &got) == -EUCLEAN);
	/* A store larger than its device. */
	si.nr_blocks = 2 * LSM_MIN_BLOCKS;
	EXPECT(!lsm_super_write(b, &si));
	EXPECT(lsm_super_read(b, &got) == -ENOSPC);
	memdev_destroy(md);
	printf("test_super: ok\n");
	return 0;
}
