// SPDX-License-Identifier: GPL-2.0
/*
 * crc32c() for lsm_bench, in place of the shim's: the kernel the store
 * runs in computes CRC32C with the CPU's crc32 instruction (crc32c-intel
 * on x86), while the shim's byte-at-a-time table, written to be right
 * rather than fast, cost the library about 80% of its read time and would
 * have measured the shim, not the store.  Same contract as the kernel's
 * and the shim's: no inversion on entry or exit.  CPUs without SSE4.2
 * fall back to a table, which the first call checks against the
 * standard check value before any figure is taken.
 */
#include <cpuid.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc32c_table[256];
static int crc32c_hw;
static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;

static uint32_t crc32c_sw(uint32_t crc, const unsigned char *p, size_t len)
{
	while (len--)
		crc = crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc;

	for (; len && ((uintptr_t)p & 7); len--)
		c = __builtin_ia32_crc32qi(c, *p++);
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	for (; len; len--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}

uint32_t crc32c(uint32_t crc, const void *address, unsigned int length);

static void crc32c_init(void)
{
	unsigned int a, b, c, d;
	uint32_t i;

	for (i = 0; i < 256; i++) {
		uint32_t v = i;
		int k;

		for (k = 0; k < 8; k++)
			v = (v >> 1) ^ (v & 1 ? 0x82f63b78 : 0);
		crc32c_table[i] = v;
	}
	crc32c_hw = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2);
}

uint32_t crc32c(uint32_t crc, const void *address, unsigned int length)
{
	static int checked;

	pthread_once(&crc32c_once, crc32c_init);
	if (!__atomic_load_n(&checked, __ATOMIC_ACQUIRE)) {
		/* CRC32C("123456789") is 0xe3069283, inverted both ways. */
		if (~(crc32c_hw ? crc32c_sse42(~0U, (const void *)"123456789", 9) :
		      crc32c_sw(~0U, (const void *)"123456789", 9)) != 0xe3069283) {
			fprintf(stderr, "lsm_bench: crc32c() fails its check value\n");
			abort();
		}
		__atomic_store_n(&checked, 1, __ATOMIC_RELEASE);
	}
	return crc32c_hw ? crc32c_sse42(crc, address, length) :
			   crc32c_sw(crc, address, length);
}

#ifdef CRC32C_HW_TEST
/*
 * crc32c_hw_test: this crc32c() against the shim's table, built in as
 * shim_crc32c(), on every length to 4 KiB + 64 at every alignment to 8,
 * chained and fresh.
 */
uint32_t shim_crc32c(uint32_t crc, const void *address, unsigned int length);

/* The shim's crc32c.c checks its instruction against its table; on a mismatch: */
void shim_die(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: %s\n", file, line, what);
	abort();
}

int main(void)
{
	static unsigned char buf[4096 + 64 + 8];
	unsigned int len, off, bad = 0;
	uint64_t s = 1;
	size_t i;

	for (i = 0; i < sizeof(buf); i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		buf[i] = s >> 56;
	}
	for (off = 0; off < 8; off++)
		for (len = 0; len <= 4096 + 64; len++) {
			uint32_t seed = len * 2654435761U;

			bad += crc32c(seed, buf + off, len) !=
			       shim_crc32c(seed, buf + off, len);
		}
	printf("crc32c_hw_test: %s (%s), %u mismatches\n", bad ? "FAIL" : "ok",
	       crc32c_hw ? "sse4.2" : "table", bad);
	return bad != 0;
}
#endif
