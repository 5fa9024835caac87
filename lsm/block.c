// SPDX-License-Identifier: GPL-2.0
/*
 * Sealing and checking the header of every on-disk block (block.h).
 */
#include <asm/byteorder.h>
#include <linux/crc32c.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include "block.h"

/**
 * lsm_crc32c() - CRC32C of a buffer, continuing from @crc
 * @crc: ~0 to start, or the value of an earlier call to continue
 * @buf: the bytes
 * @len: how many
 *
 * The raw Castagnoli CRC without a final inversion, as the kernel's
 * crc32c() computes it; on disk every checksum is stored inverted
 * (lsm_block_crc()), as ext4 and btrfs store theirs.
 *
 * Context: any.
 * Return: the CRC so far.
 */
u32 lsm_crc32c(u32 crc, const void *buf, size_t len)
{
	return crc32c(crc, buf, len);
}

/* The block's checksum, computed with the crc field taken as zero. */
static u32 lsm_block_crc(const void *block)
{
	static const __le32 zero;
	size_t at = offsetof(struct lsm_block_header, crc);
	u32 crc = ~0U;

	crc = lsm_crc32c(crc, block, at);
	crc = lsm_crc32c(crc, &zero, sizeof(zero));
	crc = lsm_crc32c(crc, (const u8 *)block + at + sizeof(zero),
			 LSM_BLOCK_SIZE - at - sizeof(zero));
	return ~crc;
}

/**
 * lsm_block_seal() - fill in a block's header and checksum
 * @block: LSM_BLOCK_SIZE bytes, the body already written after the header
 * @id:    what the block is and where it goes
 * @used:  bytes in use, header included; the rest should be zero
 *
 * Context: any.
 */
void lsm_block_seal(void *block, const struct lsm_block_id *id, u32 used)
{
	struct lsm_block_header *h = block;

	h->magic = cpu_to_le32(LSM_MAGIC);
	h->crc = 0;
	h->blocknr = cpu_to_le64(id->blocknr);
	h->store_id = cpu_to_le64(id->store_id);
	h->epoch = cpu_to_le64(id->epoch);
	h->type = cpu_to_le16(id->type);
	h->version = cpu_to_le16(LSM_BLOCK_VERSION);
	h->used = cpu_to_le32(used);
	h->crc = cpu_to_le32(lsm_block_crc(block));
}

/**
 * lsm_block_check() - whether a block read from the device is the one
 *                     expected
 * @block: LSM_BLOCK_SIZE bytes as read
 * @id:    what it must say about itself
 *
 * Context: any.
 * Return: 0 if it is; -EUCLEAN if its checksum fails or it is not a
 * block of this store (wrong magic, version or size: corrupt or foreign);
 * -ESTALE if it is a sound block of this store but not the one expected
 * (another type, place or epoch: misdirected, or left from earlier use
 * of the space), which a log reader takes as its end.
 */
int lsm_block_check(const void *block, const struct lsm_block_id *id)
{
	const struct lsm_block_header *h = block;
	u32 used = le32_to_cpu(h->used);

	if (le32_to_cpu(h->magic) != LSM_MAGIC ||
	    le32_to_cpu(h->crc) != lsm_block_crc(block))
		return -EUCLEAN;
	if (le16_to_cpu(h->version) != LSM_BLOCK_VERSION ||
	    used < sizeof(*h) || used > LSM_BLOCK_SIZE)
		return -EUCLEAN;
	if (le64_to_cpu(h->store_id) != id->store_id)
		return -EUCLEAN;
	if (le64_to_cpu(h->blocknr) != id->blocknr ||
	    le64_to_cpu(h->epoch) != id->epoch ||
	    le16_to_cpu(h->type) != id->type)
		return -ESTALE;
	return 0;
}

/**
 * lsm_block_damaged() - whether a block that fails its check was damaged
 *                       rather than never written there
 * @block: LSM_BLOCK_SIZE bytes as read
 *
 * A log or manifest reader takes the first block that fails its check
 * for the end of what was written there.  A block never written there is
 * zero, another program's, or a sound block of an earlier use of the
 * space (another epoch or type); a block with the magic whose checksum
 * fails was written by a store and then damaged, or torn by a crash, and
 * is worth a message naming it.
 *
 * Context: any.
 * Return: true if @block has the magic and fails its checksum.
 */
bool lsm_block_damaged(const void *block)
{
	const struct lsm_block_header *h = block;

	return le32_to_cpu(h->magic) == LSM_MAGIC &&
	       le32_to_cpu(h->crc) != lsm_block_crc(block);
}
