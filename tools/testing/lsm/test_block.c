// SPDX-License-Identifier: GPL-2.0
/*
 * Block headers (lsm/block.c): a sealed block passes its check; a flipped
 * bit anywhere fails it as corrupt; a sound block read as another type,
 * place or epoch fails as stale; a block of another store as corrupt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/crc32c.h>
#include "block.h"

#define EXPECT(cond) do { if (!(cond)) { \
	fprintf(stderr, "test_block: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	exit(1); } } while (0)

int main(int argc, char **argv)
{
	static u8 block[LSM_BLOCK_SIZE];
	struct lsm_block_id id = {
		.blocknr = 77, .store_id = 0x1234, .epoch = 5,
		.type = LSM_BT_WAL,
	};
	struct lsm_block_id other;
	unsigned int flips = 0;

	/* The check value of CRC32C ("123456789" gives 0xe3069283). */
	EXPECT(~lsm_crc32c(~0U, "123456789", 9) == 0xe3069283);

	for (size_t i = sizeof(struct lsm_block_header); i < 200; i++)
		block[i] = (u8)(i * 7);
	lsm_block_seal(block, &id, 200);
	EXPECT(lsm_block_check(block, &id) == 0);

	for (size_t bit = 0; bit < LSM_BLOCK_SIZE * 8; bit += 13) {
		block[bit / 8] ^= 1 << (bit % 8);
		EXPECT(lsm_block_check(block, &id) == -EUCLEAN);
		block[bit / 8] ^= 1 << (bit % 8);
		flips++;
	}
	EXPECT(lsm_block_check(block, &id) == 0);

	other = id;
	other.blocknr = 78;
	EXPECT(lsm_block_check(block, &other) == -ESTALE);
	other = id;
	other.epoch = 6;
	EXPECT(lsm_block_check(block, &other) == -ESTALE);
	other = id;
	other.type = LSM_BT_MANIFEST;
	EXPECT(lsm_block_check(block, &other) == -ESTALE);
	other = id;
	other.store_id = 0x1235;
	EXPECT(lsm_block_check(block, &other) == -EUCLEAN);

	printf("test_block: ok (%u single-bit flips caught)\n", flips);
	return 0;
}
