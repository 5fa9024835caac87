// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace shim: CRC32C (Castagnoli, reflected polynomial 0x82f63b78)
 * as the kernel's crc32c() computes it: no inversion on entry or exit,
 * the caller passes ~0 to start.  With the SSE4.2 crc32 instruction where
 * the CPU has it, as the kernel's crc32c-intel does (every block the
 * store's tests read is checksummed whole, and test_corrupt reads a great
 * many), else a byte-at-a-time table; both are checked against each other
 * on first use.
 */
#include <pthread.h>
#include <linux/crc32c.h>

static u32 crc32c_table[256];
static bool crc32c_hw;
static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;

static u32 crc32c_sw(u32 crc, const u8 *p, unsigned int length)
{
	while (length--)
		crc = crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static u32 crc32c_x86(u32 crc, const u8 *p, unsigned int length)
{
	u64 c = crc;

	for (; length && ((unsigned long)p & 7); length--)
		c = __builtin_ia32_crc32qi(c, *p++);
	for (; length >= 8; length -= 8, p += 8) {
		u64 w;

		__builtin_memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
	}
	for (; length; length--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}
#endif

static void crc32c_build(void)
{
	for (u32 i = 0; i < 256; i++) {
		u32 c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (c & 1 ? 0x82f63b78 : 0);
		crc32c_table[i] = c;
	}
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2")) {
		u8 buf[301];

		for (unsigned int i = 0; i < sizeof(buf); i++)
			buf[i] = i * 7 + 3;
		for (unsigned int off = 0; off < 8; off++)
			SHIM_ASSERT(crc32c_x86(~0U, buf + off, 293 - off) ==
				    crc32c_sw(~0U, buf + off, 293 - off),
				    "crc32c: the crc32 instruction disagrees with the table");
		crc32c_hw = true;
	}
#endif
}

u32 crc32c(u32 crc, const void *address, unsigned int length)
{
	pthread_once(&crc32c_once, crc32c_build);
#if defined(__x86_64__)
	if (crc32c_hw)
		return crc32c_x86(crc, address, length);
#endif
	return crc32c_sw(crc, address, length);
}
