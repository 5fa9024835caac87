// SPDX-License-Identifier: GPL-2.0
/*
 * Superblocks: two copies in blocks 0 and 1, generation g in block g % 2,
 * each written with PREFLUSH and FUA, so that a torn write of one leaves
 * the other, and the higher valid generation is the current one.
 */
#include <asm/byteorder.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "format.h"
#include "super.h"

/* Why a copy was refused, for the message when neither passes. */
enum lsm_super_fault {
	LSM_SF_NONE,
	LSM_SF_MAGIC,		/* not a store's block at all */
	LSM_SF_CRC,		/* a store's block, damaged */
	LSM_SF_FORMAT,		/* a store of another format version */
	LSM_SF_FIELDS,		/* sound, but fields that make no sense */
};

static const char * const lsm_super_faults[] = {
	[LSM_SF_NONE] = "no fault",
	[LSM_SF_MAGIC] = "no lsm superblock (bad magic)",
	[LSM_SF_CRC] = "superblock checksum mismatch",
	[LSM_SF_FORMAT] = "unsupported format version",
	[LSM_SF_FIELDS] = "superblock fields out of range",
};

static enum lsm_super_fault lsm_super_parse(const void *block, u64 blocknr,
					    struct lsm_super_info *si)
{
	const struct lsm_super *s = block;
	struct lsm_block_id id = {
		.blocknr = blocknr,
		.store_id = le64_to_cpu(s->hdr.store_id),
		.epoch = le64_to_cpu(s->hdr.epoch),
		.type = LSM_BT_SUPER,
	};
	int err;

	if (le32_to_cpu(s->hdr.magic) != LSM_MAGIC)
		return LSM_SF_MAGIC;
	err = lsm_block_check(block, &id);
	if (err == -EUCLEAN)
		return LSM_SF_CRC;
	if (err)
		return LSM_SF_FIELDS;	/* a sound copy in the wrong place */
	if (le32_to_cpu(s->format) < LSM_FORMAT_OLDEST ||
	    le32_to_cpu(s->format) > LSM_FORMAT_VERSION)
		return LSM_SF_FORMAT;
	si->store_id = id.store_id;
	si->generation = id.epoch;
	si->flags = le32_to_cpu(s->flags);
	si->nr_blocks = le64_to_cpu(s->nr_blocks);
	si->manifest_start = le64_to_cpu(s->manifest_start);
	si->manifest_blocks = le64_to_cpu(s->manifest_blocks);
	si->manifest_id = le64_to_cpu(s->manifest_id);
	si->segment_blocks = le32_to_cpu(s->segment_blocks);
	si->manifest_used = le32_to_cpu(s->manifest_used);
	si->durable_seq = le64_to_cpu(s->durable_seq);
	if (si->generation % LSM_SUPER_COPIES != blocknr ||
	    si->nr_blocks < LSM_MIN_BLOCKS ||
	    si->segment_blocks < LSM_SEGMENT_MIN_BLOCKS ||
	    si->segment_blocks > si->nr_blocks / 4 ||
	    !si->manifest_blocks ||
	    si->manifest_start < LSM_SUPER_COPIES ||
	    si->manifest_start >= si->nr_blocks ||
	    si->manifest_blocks > si->nr_blocks - si->manifest_start ||
	    si->manifest_used > si->manifest_blocks)
		return LSM_SF_FIELDS;
	return LSM_SF_NONE;
}

/**
 * lsm_super_read() - find the current superblock
 * @bdev: the device
 * @si:   filled in from the valid copy of the higher generation
 *
 * Prints one line naming the problem when it refuses the device.
 *
 * Context: process context, may sleep.
 * Return: 0; -EUCLEAN if neither copy is a valid superblock (a foreign,
 * unformatted or corrupt device); -ENOSPC if the device is smaller than
 * the store; -ENOMEM; -EIO.
 */
int lsm_super_read(struct lsm_bdev *bdev, struct lsm_super_info *si)
{
	struct lsm_super_info copy[LSM_SUPER_COPIES];
	enum lsm_super_fault fault[LSM_SUPER_COPIES];
	int best = -1, err = 0;
	u8 *buf;

	buf = kmalloc(LSM_BLOCK_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (int i = 0; i < LSM_SUPER_COPIES; i++) {
		err = bdev->ops->read(bdev, i, buf, 1);
		if (err)
			goto out;
		fault[i] = lsm_super_parse(buf, i, &copy[i]);
		if (fault[i] != LSM_SF_NONE)
			continue;
		if (best < 0 || copy[i].generation > copy[best].generation)
			best = i;
	}
	if (best < 0) {
		/* The more telling of the two faults. */
		enum lsm_super_fault f = max(fault[0], fault[1]);

		pr_err("lsm: %s: %s (block 0: %s; block 1: %s)\n", bdev->name,
		       lsm_super_faults[f], lsm_super_faults[fault[0]],
		       lsm_super_faults[fault[1]]);
		err = -EUCLEAN;
		goto out;
	}
	/*
	 * The other copy points at the same manifest (both are written at
	 * each roll-over) unless a roll-over was cut short, when it points
	 * at the older extent, not yet freed: either serves.  Its fault is
	 * a torn superblock write or damage; the next superblock written
	 * goes to its block.
	 */
	if (fault[!best] != LSM_SF_NONE)
		pr_warn("lsm: %s: superblock block %d: %s; using block %d (generation %llu)\n",
			bdev->name, !best, lsm_super_faults[fault[!best]],
			best, (unsigned long long)copy[best].generation);
	*si = copy[best];
	if (si->nr_blocks > bdev->nr_blocks) {
		pr_err("lsm: %s: device of %llu blocks is smaller than its store of %llu\n",
		       bdev->name, (unsigned long long)bdev->nr_blocks,
		       (unsigned long long)si->nr_blocks);
		err = -ENOSPC;
	}
out:
	kfree(buf);
	return err;
}

/**
 * lsm_super_write() - write the next generation of the superblock
 * @bdev: the device
 * @si:   what to write; @si->generation is advanced by one
 *
 * Written with PREFLUSH and FUA: everything completed before it is
 * durable before it, and it is durable when this returns 0.
 *
 * Context: process context, may sleep; callers serialize.
 * Return: 0, -ENOMEM, or the device's errno (-EIO).
 */
int lsm_super_write(struct lsm_bdev *bdev, struct lsm_super_info *si)
{
	u64 gen = si->generation + 1;
	struct lsm_block_id id = {
		.blocknr = gen % LSM_SUPER_COPIES,
		.store_id = si->store_id,
		.epoch = gen,
		.type = LSM_BT_SUPER,
	};
	struct lsm_super *s;
	int err;

	s = kzalloc(LSM_BLOCK_SIZE, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->format = cpu_to_le32(LSM_FORMAT_VERSION);
	s->flags = cpu_to_le32(si->flags);
	s->nr_blocks = cpu_to_le64(si->nr_blocks);
	s->manifest_start = cpu_to_le64(si->manifest_start);
	s->manifest_blocks = cpu_to_le64(si->manifest_blocks);
	s->manifest_id = cpu_to_le64(si->manifest_id);
	s->segment_blocks = cpu_to_le32(si->segment_blocks);
	s->manifest_used = cpu_to_le32(si->manifest_used);
	s->durable_seq = cpu_to_le64(si->durable_seq);
	lsm_block_seal(s, &id, sizeof(*s));
	err = lsm_bdev_write_sync(bdev, id.blocknr, s, 1,
				  LSM_IO_PREFLUSH | LSM_IO_FUA);
	if (!err)
		si->generation = gen;
	kfree(s);
	return err;
}
