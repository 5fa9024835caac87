// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace shim: CRC32C (Castagnoli, reflected polynomial 0x82f63b78)
 * as the kernel's crc32c() computes it: no inversion on entry or exit,
 * the caller passes ~0 to start.  A byte-at-a-time table, built on first
 * use; the tests need it right, not fast.
 */
#include <pthread.h>
#include <linux/crc32c.h>

static u32 crc32c_table[256];
static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;

static void crc32c_build(void)
{
	for (u32 i = 0; i < 256; i++) {
		u32 c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (c & 1 ? 0x82f63b78 : 0);
		crc32c_table[i] = c;
	}
}

u32 crc32c(u32 crc, const void *address, unsigned int length)
{
	const u8 *p = address;

	pthread_once(&crc32c_once, crc32c_build);
	while (length--)
		crc = crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}
