// SPDX-License-Identifier: GPL-2.0
/*
 * The store on a file (filedev.c): format, write, close, reopen and read
 * back, with buffered I/O and with O_DIRECT where the file system takes
 * it; a refusal of a file too small for a store.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/rcupdate.h>
#include "filedev.h"
#include "format.h"
#include "store.h"

static unsigned long long seed;

#define EXPECT(cond) do { if (!(cond)) {				\
	fprintf(stderr, "test_filedev: %s:%d: %s (seed %llu)\n",	\
		__FILE__, __LINE__, #cond, seed);			\
	exit(1); } } while (0)

#define N	3000

static void round_trip(const char *path, unsigned int flags)
{
	struct lsm_options opt = { .memtable_bytes = 64 * 1024 };
	struct lsm_bdev *b = filedev_open(path, 2 * LSM_MIN_BLOCKS,
					  flags | FILEDEV_CREATE);
	struct lsm_store *st;
	u8 vbuf[64];

	EXPECT(b);
	EXPECT(!lsm_store_open(b, &opt, LSM_OPEN_FORMAT, &st));
	for (u64 k = 0; k < N; k++) {
		u64 v = k * 7 + seed;
		struct lsm_op op = { .kind = LSM_OP_PUT, .key = k * 2,
				     .len = 2, .vlen = 8, .value = &v };

		EXPECT(!lsm_store_write(st, &op, 1,
					k % 100 ? 0 : LSM_WRITE_SYNC));
	}
	EXPECT(!lsm_store_close(st));
	b->ops->release(b);

	b = filedev_open(path, 0, flags);
	EXPECT(b && b->nr_blocks == 2 * LSM_MIN_BLOCKS);
	EXPECT(!lsm_store_open(b, &opt, 0, &st));
	for (u64 k = 0; k < N; k++) {
		struct lsm_piece p;
		u64 v;

		EXPECT(!lsm_store_get(st, k * 2 + 1, &p, vbuf, sizeof(vbuf)));
		memcpy(&v, vbuf, 8);
		EXPECT(v == k * 7 + seed && p.start == k * 2 && p.len == 2);
	}
	EXPECT(!lsm_store_close(st));
	b->ops->release(b);
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/test_filedev.XXXXXX";
	struct lsm_bdev *b;
	struct lsm_store *st;
	int fd;

	if (argc > 2 && !strcmp(argv[1], "--seed"))
		seed = strtoull(argv[2], NULL, 0);
	shim_rcu_register();
	EXPECT(!shim_modules_load());
	fd = mkstemp(path);
	EXPECT(fd >= 0);
	close(fd);
	round_trip(path, 0);
	b = filedev_open(path, 0, FILEDEV_DIRECT);
	if (b) {
		b->ops->release(b);
		round_trip(path, FILEDEV_DIRECT);
		printf("test_filedev: O_DIRECT: ok\n");
	} else {
		printf("test_filedev: O_DIRECT: not supported here (%s), skipped\n",
		       strerror(errno));
	}
	/* A file too small for a store. */
	EXPECT(!truncate(path, (LSM_MIN_BLOCKS - 1) * LSM_BLOCK_SIZE));
	b = filedev_open(path, 0, 0);
	EXPECT(b);
	EXPECT(lsm_store_open(b, NULL, LSM_OPEN_FORMAT, &st) == -ENOSPC);
	b->ops->release(b);
	unlink(path);
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	printf("test_filedev: ok\n");
	return 0;
}
