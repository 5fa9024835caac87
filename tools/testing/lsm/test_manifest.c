// SPDX-License-Identifier: GPL-2.0
/*
 * The manifest (lsm/manifest.c): edits come back on load in order; the
 * manifest rolls over to a new extent when full, so that what a load
 * reads stays bounded however many edits were made, and both superblock
 * copies point at the new extent; a torn last edit is simply not there,
 * but a damaged edit before a sound one, or one the superblock counts
 * durable, is refused; an edit naming a run that is not there is refused;
 * a roll-over that finds no room changes nothing; after an edit that
 * failed, nothing more is written; the invariant check
 * catches overlapping extents and space that the manifest does not
 * account for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/byteorder.h>
#include <linux/rcupdate.h>
#include "manifest.h"
#include "memdev.h"

static unsigned long long seed;

#define EXPECT(cond) do { if (!(cond)) {				\
	fprintf(stderr, "test_manifest: %s:%d: %s (seed %llu)\n",	\
		__FILE__, __LINE__, #cond, seed);			\
	exit(1); } } while (0)

#define NR_BLOCKS	(4 * LSM_MIN_BLOCKS)

struct fixture {
	struct lsm_super_info sb;
	struct lsm_space space;
	struct lsm_manifest m;
};

static void load(struct lsm_bdev *b, struct fixture *f)
{
	EXPECT(!lsm_super_read(b, &f->sb));
	EXPECT(!lsm_space_init(&f->space, f->sb.nr_blocks));
	EXPECT(!lsm_manifest_load(&f->m, b, &f->space, &f->sb));
	EXPECT(!lsm_manifest_check(&f->m, 0));
}

/* Load what the device holds: the error, and nothing kept. */
static int load_err(struct lsm_bdev *b)
{
	struct fixture f;
	int err;

	EXPECT(!lsm_super_read(b, &f.sb));
	EXPECT(!lsm_space_init(&f.space, f.sb.nr_blocks));
	err = lsm_manifest_load(&f.m, b, &f.space, &f.sb);
	if (!err)
		lsm_manifest_destroy(&f.m);
	lsm_space_destroy(&f.space);
	return err;
}

/* Flip a random bit of block @at; the block as it was goes to @old. */
static void flip(struct lsm_bdev *b, u64 at, u8 *old)
{
	u8 buf[LSM_BLOCK_SIZE];

	EXPECT(!b->ops->read(b, at, old, 1));
	memcpy(buf, old, sizeof(buf));
	buf[rand() % LSM_BLOCK_SIZE] ^= 1 << (rand() % 8);
	EXPECT(!lsm_bdev_write_sync(b, at, buf, 1, 0));
}

static void unload(struct fixture *f)
{
	lsm_manifest_destroy(&f->m);
	lsm_space_destroy(&f->space);
}

/*
 * Both superblock copies point at the manifest's extent @start: a roll-over
 * writes both before it frees the old extent (once, only the new copy did,
 * and attach falling back to the other copy read a freed extent).
 */
static void both_copies_at(struct lsm_bdev *b, u64 start)
{
	u8 buf[LSM_BLOCK_SIZE];
	const struct lsm_super *s = (const void *)buf;

	for (int i = 0; i < LSM_SUPER_COPIES; i++) {
		EXPECT(!b->ops->read(b, i, buf, 1));
		EXPECT(le64_to_cpu(s->manifest_start) == start);
	}
}

/* An edit of one block's worth of records, on the stack. */
#define EDIT_ON_STACK(name)						\
	union {								\
		struct lsm_edit e;					\
		u8 b[sizeof(struct lsm_edit) +				\
		     LSM_EDIT_MAX * sizeof(struct lsm_mrec)];		\
	} name##_u = { .e.cap = LSM_EDIT_MAX };			\
	struct lsm_edit *name = &name##_u.e

static void same_state(struct lsm_manifest *a, struct lsm_manifest *b)
{
	EXPECT(a->next_id == b->next_id);
	EXPECT(a->persisted_seq == b->persisted_seq);
	EXPECT(a->nr_runs == b->nr_runs && a->nr_segs == b->nr_segs);
	for (unsigned int i = 0; i < a->nr_runs; i++) {
		const struct lsm_run_info *x = &a->runs[i], *y = &b->runs[i];

		EXPECT(x->id == y->id && x->first_block == y->first_block &&
		       x->nr_blocks == y->nr_blocks &&
		       x->first_key == y->first_key &&
		       x->last_key == y->last_key &&
		       x->nr_pieces == y->nr_pieces &&
		       x->max_seq == y->max_seq && x->level == y->level);
	}
	EXPECT(!memcmp(a->segs, b->segs, a->nr_segs * sizeof(*a->segs)));
}

/* A run of a few blocks, allocated, for an edit to add. */
static void new_run(struct fixture *f, u64 max_seq, struct lsm_run_info *run)
{
	*run = (struct lsm_run_info){ .nr_blocks = LSM_RUN_MIN_BLOCKS,
				      .max_seq = max_seq };
	EXPECT(!lsm_space_alloc(&f->space, run->nr_blocks, &run->first_block));
	run->id = lsm_manifest_new_id(&f->m);
}

/*
 * An edit that fails after the state took it (the device failed its
 * write; or an edit applied in part, a record refused) leaves memory
 * ahead of the device: every later commit and superblock write is -EIO
 * and writes nothing.  Were a later edit written (a merge's, while a
 * flush's failed), its state record would carry the failed edit's
 * persisted sequence number to the device without the run that holds
 * those writes, and attach would skip them in the log.
 */
static void failed_edit_latches(void)
{
	for (int how = 0; how < 2; how++) {
		struct memdev *md = memdev_create(NR_BLOCKS, false);
		struct lsm_bdev *b = memdev_bdev(md);
		struct lsm_run_info run;
		struct fixture f, g;
		u64 writes;

		f.sb = (struct lsm_super_info){ .store_id = 43,
			.nr_blocks = NR_BLOCKS, .segment_blocks = 8 };
		EXPECT(!lsm_space_init(&f.space, NR_BLOCKS));
		EXPECT(!lsm_manifest_format(&f.m, b, &f.space, &f.sb));
		{
			EDIT_ON_STACK(e);

			new_run(&f, 10, &run);
			lsm_edit_run_add(e, &run);
			EXPECT(!lsm_manifest_commit(&f.m, e, 10));
		}
		{
			EDIT_ON_STACK(e);

			new_run(&f, 20, &run);
			lsm_edit_run_add(e, &run);
			if (how == 0) {
				memdev_fail_io(md, MEMDEV_IO_WRITE, 0, 1);
				EXPECT(lsm_manifest_commit(&f.m, e, 20) == -EIO);
				memdev_fail_io(md, 0, 0, 0);
			} else {
				lsm_edit_run_del(e, 987654321);
				EXPECT(lsm_manifest_commit(&f.m, e, 20) ==
				       -EUCLEAN);
			}
			/* Memory took the edit, or its first record. */
			EXPECT(f.m.persisted_seq == 20 || how == 1);
			EXPECT(f.m.nr_runs == 2);
		}
		writes = memdev_writes(md);
		{
			EDIT_ON_STACK(e);

			new_run(&f, 30, &run);
			lsm_edit_run_add(e, &run);
			EXPECT(lsm_manifest_commit(&f.m, e, 30) == -EIO);
		}
		EXPECT(lsm_manifest_write_super(&f.m, 30) == -EIO);
		EXPECT(memdev_writes(md) == writes);
		/* The device: the last edit that succeeded. */
		load(b, &g);
		EXPECT(g.m.nr_runs == 1 && g.m.persisted_seq == 10);
		unload(&g);
		unload(&f);
		memdev_destroy(md);
	}
}

int main(int argc, char **argv)
{
	struct memdev *md = memdev_create(NR_BLOCKS, false);
	struct lsm_bdev *b = memdev_bdev(md);
	struct fixture f, g;
	unsigned int rolls = 0, edits = 0;
	u64 gen;

	if (argc > 2 && !strcmp(argv[1], "--seed"))
		seed = strtoull(argv[2], NULL, 0);
	srand(seed);
	shim_rcu_register();
	EXPECT(!shim_modules_load());
	f.sb = (struct lsm_super_info){ .store_id = 42,
		.nr_blocks = NR_BLOCKS, .segment_blocks = 8 };
	EXPECT(!lsm_space_init(&f.space, NR_BLOCKS));
	EXPECT(!lsm_manifest_format(&f.m, b, &f.space, &f.sb));
	EXPECT(f.sb.generation == 2);
	gen = f.sb.generation;
	/* Runs come and go, segments come and go: 500 edits. */
	for (int i = 0; i < 500; i++) {
		EDIT_ON_STACK(e);
		struct lsm_run_info run = {
			.nr_blocks = LSM_RUN_MIN_BLOCKS + rand() % 4 };
		struct lsm_wal_seg seg = { .nr = 8 };
		u64 free_start = 0, free_nr = 0;

		if (rand() % 2 || !f.m.nr_runs) {
			EXPECT(!lsm_space_alloc(&f.space, run.nr_blocks,
						&run.first_block));
			run.id = lsm_manifest_new_id(&f.m);
			run.max_seq = i;
			lsm_edit_run_add(e, &run);
		} else {
			struct lsm_run_info *r = &f.m.runs[rand() %
							   f.m.nr_runs];

			free_start = r->first_block;
			free_nr = r->nr_blocks;
			lsm_edit_run_del(e, r->id);
		}
		if (f.m.nr_segs > 3) {
			lsm_edit_seg_del(e, f.m.segs[0].id);
		} else {
			EXPECT(!lsm_space_alloc(&f.space, seg.nr, &seg.start));
			seg.id = lsm_manifest_new_id(&f.m);
			seg.first_seq = i;
			lsm_edit_seg_add(e, &seg);
		}
		if (f.m.nr_segs > 3) {
			struct lsm_wal_seg old = f.m.segs[0];

			EXPECT(!lsm_manifest_commit(&f.m, e, i));
			lsm_space_free(&f.space, old.start, old.nr);
		} else {
			EXPECT(!lsm_manifest_commit(&f.m, e, i));
		}
		if (free_nr)
			lsm_space_free(&f.space, free_start, free_nr);
		edits++;
		if (f.sb.generation != gen) {
			rolls++;
			gen = f.sb.generation;
			both_copies_at(b, f.sb.manifest_start);
		}
		EXPECT(!lsm_manifest_check(&f.m, 0));
		/* What a load reads stays bounded by the state, not age. */
		EXPECT(f.sb.manifest_blocks <= 2 * DIV_ROUND_UP(
			1 + f.m.nr_runs + f.m.nr_segs + 64,
			LSM_MREC_PER_BLOCK) + LSM_MANIFEST_EDIT_BLOCKS);
		if (i % 50 == 0) {
			load(b, &g);
			same_state(&f.m, &g.m);
			unload(&g);
		}
	}
	EXPECT(rolls >= 5);
	load(b, &g);
	same_state(&f.m, &g.m);
	unload(&g);

	/*
	 * The current superblock copy damaged: the other one gives the same
	 * manifest, although the previous extent is free and overwritten.
	 */
	{
		u8 buf[LSM_BLOCK_SIZE], old[LSM_BLOCK_SIZE];
		u64 cur = f.sb.generation % LSM_SUPER_COPIES;

		EXPECT(!b->ops->read(b, cur, old, 1));
		memcpy(buf, old, sizeof(buf));
		buf[rand() % LSM_BLOCK_SIZE] ^= 1 << (rand() % 8);
		EXPECT(!lsm_bdev_write_sync(b, cur, buf, 1, 0));
		load(b, &g);
		EXPECT(g.sb.generation == f.sb.generation - 1);
		same_state(&f.m, &g.m);
		unload(&g);
		EXPECT(!lsm_bdev_write_sync(b, cur, old, 1, 0));
	}

	/* A torn last edit: the state before it. */
	{
		EDIT_ON_STACK(e);
		struct lsm_run_info run = { .nr_blocks = LSM_RUN_MIN_BLOCKS };
		u8 buf[LSM_BLOCK_SIZE], orig[LSM_BLOCK_SIZE];
		u64 at;

		if (f.m.next_block >= f.sb.manifest_blocks) {
			/* Make room first: this edit rolls over. */
			lsm_edit_run_del(e, f.m.runs[0].id);
			lsm_space_free(&f.space, f.m.runs[0].first_block,
				       f.m.runs[0].nr_blocks);
			EXPECT(!lsm_manifest_commit(&f.m, e, 999));
			e->n = 0;
		}
		load(b, &g);
		at = f.sb.manifest_start + f.m.next_block;
		EXPECT(!lsm_space_alloc(&f.space, run.nr_blocks,
					&run.first_block));
		run.id = lsm_manifest_new_id(&f.m);
		lsm_edit_run_add(e, &run);
		EXPECT(!lsm_manifest_commit(&f.m, e, 1000));
		EXPECT(!b->ops->read(b, at, orig, 1));
		memcpy(buf, orig, sizeof(buf));
		/* Its first sector never landed (the rest is padding). */
		memset(buf, 0, 512);
		EXPECT(!lsm_bdev_write_sync(b, at, buf, 1, 0));
		{
			struct fixture h;

			load(b, &h);
			same_state(&g.m, &h.m);
			unload(&h);
		}
		unload(&g);
		EXPECT(!lsm_bdev_write_sync(b, at, orig, 1, 0));
	}

	/*
	 * Damage is not a torn tail: an edit that fails before a sound one,
	 * or within the blocks the last superblock counted durable, is
	 * refused (once, attach took the first edit that failed for the end
	 * of the log and silently dropped it and every later one).
	 */
	{
		u8 orig[LSM_BLOCK_SIZE];
		u64 first, last;

		/* Two edits in this extent at least, no roll-over between. */
		while (f.m.next_block < f.m.snap_blocks + 2 ||
		       f.m.next_block + 2 > f.sb.manifest_blocks) {
			EDIT_ON_STACK(e);
			struct lsm_run_info run = { .nr_blocks = LSM_RUN_MIN_BLOCKS };

			EXPECT(!lsm_space_alloc(&f.space, run.nr_blocks,
						&run.first_block));
			run.id = lsm_manifest_new_id(&f.m);
			lsm_edit_run_add(e, &run);
			EXPECT(!lsm_manifest_commit(&f.m, e, 1100));
		}
		first = f.sb.manifest_start + f.m.snap_blocks;
		last = f.sb.manifest_start + f.m.next_block - 1;
		flip(b, first, orig);
		EXPECT(load_err(b) == -EUCLEAN);
		EXPECT(!lsm_bdev_write_sync(b, first, orig, 1, 0));
		/* The last edit: a torn tail, until a superblock counts it. */
		flip(b, last, orig);
		load(b, &g);
		EXPECT(g.m.next_block == f.m.next_block - 1);
		unload(&g);
		EXPECT(!lsm_manifest_write_super(&f.m, 0));
		EXPECT(f.sb.manifest_used == f.m.next_block);
		EXPECT(load_err(b) == -EUCLEAN);
		EXPECT(!lsm_bdev_write_sync(b, last, orig, 1, 0));
		load(b, &g);
		same_state(&f.m, &g.m);
		unload(&g);
	}

	/*
	 * A roll-over that finds no room refuses the edit with the state as
	 * it was (-ENOSPC), so that the store can report a full device and
	 * go on; once there is room the same edit rolls over.
	 */
	{
		static u64 filler[NR_BLOCKS];
		EDIT_ON_STACK(e);
		struct lsm_run_info run = { .nr_blocks = LSM_RUN_MIN_BLOCKS };
		struct lsm_manifest before;
		u64 start = f.sb.manifest_start;
		unsigned int n = 0;

		while (f.m.next_block < f.sb.manifest_blocks) {
			EXPECT(!lsm_space_alloc(&f.space, run.nr_blocks,
						&run.first_block));
			run.id = lsm_manifest_new_id(&f.m);
			lsm_edit_run_add(e, &run);
			EXPECT(!lsm_manifest_commit(&f.m, e, 1500));
			e->n = 0;
		}
		EXPECT(!lsm_space_alloc(&f.space, run.nr_blocks,
					&run.first_block));
		run.id = lsm_manifest_new_id(&f.m);
		lsm_edit_run_add(e, &run);
		while (!lsm_space_alloc(&f.space, 1, &filler[n]))
			n++;
		before = f.m;
		EXPECT(lsm_manifest_commit(&f.m, e, 2000) == -ENOSPC);
		EXPECT(f.m.nr_runs == before.nr_runs &&
		       f.m.nr_segs == before.nr_segs &&
		       f.m.persisted_seq == before.persisted_seq &&
		       f.m.next_block == before.next_block &&
		       f.sb.manifest_start == start);
		EXPECT(!lsm_manifest_check(&f.m, n + run.nr_blocks));
		while (n)
			lsm_space_free(&f.space, filler[--n], 1);
		EXPECT(!lsm_manifest_commit(&f.m, e, 2000));
		EXPECT(f.sb.manifest_start != start &&
		       f.m.nr_runs == before.nr_runs + 1);
		EXPECT(!lsm_manifest_check(&f.m, 0));
		load(b, &g);
		same_state(&f.m, &g.m);
		unload(&g);
	}

	/*
	 * A run of a size no run has (a record that passed its checksum, so
	 * a bug's): the check refuses it, so that attach says -EUCLEAN
	 * (once, the run's open said -EINVAL, as for a caller's bad
	 * argument).
	 */
	{
		EDIT_ON_STACK(e);
		struct lsm_run_info run = { .nr_blocks = 1 };

		EXPECT(!lsm_space_alloc(&f.space, 1, &run.first_block));
		run.id = lsm_manifest_new_id(&f.m);
		lsm_edit_run_add(e, &run);
		EXPECT(!lsm_manifest_commit(&f.m, e, 2100));
		EXPECT(lsm_manifest_check(&f.m, 0) == -EUCLEAN);
		e->n = 0;
		lsm_edit_run_del(e, run.id);
		EXPECT(!lsm_manifest_commit(&f.m, e, 2100));
		lsm_space_free(&f.space, run.first_block, 1);
		EXPECT(!lsm_manifest_check(&f.m, 0));
	}

	/* An edit naming a run that is not there. */
	{
		EDIT_ON_STACK(e);

		lsm_edit_run_del(e, 123456789);
		EXPECT(lsm_manifest_commit(&f.m, e, 1) == -EUCLEAN);
	}

	/*
	 * An edit larger than a block (a merge of many runs into a level):
	 * committed by a roll-over, whole; the runs keep their levels.
	 */
	{
		unsigned int n = 3 * LSM_EDIT_MAX, before = f.m.nr_runs;
		struct lsm_edit *e = lsm_edit_alloc(n);
		u64 start = f.sb.manifest_start;

		for (unsigned int i = 0; i < n; i++) {
			struct lsm_run_info run = { .nr_blocks = LSM_RUN_MIN_BLOCKS,
						    .level = 1 + i % 6,
						    .first_key = 10 * i,
						    .last_key = 10 * i + 9 };

			EXPECT(!lsm_space_alloc(&f.space, run.nr_blocks,
						&run.first_block));
			run.id = lsm_manifest_new_id(&f.m);
			lsm_edit_run_add(e, &run);
		}
		EXPECT(!lsm_manifest_commit(&f.m, e, 2500));
		EXPECT(f.sb.manifest_start != start &&
		       f.m.nr_runs == before + n);
		EXPECT(!lsm_manifest_check(&f.m, 0));
		load(b, &g);
		same_state(&f.m, &g.m);
		unload(&g);
		/* Two runs of one level that overlap: the check says so. */
		f.m.runs[f.m.nr_runs - 1].first_key = 10 * (n - 7);
		EXPECT(lsm_manifest_check(&f.m, 0) == -EUCLEAN);
		f.m.runs[f.m.nr_runs - 1].first_key = 10 * (n - 1);
		lsm_edit_free(e);
	}

	/* The check: overlapping extents, space not accounted for. */
	{
		u64 start;

		EXPECT(f.m.nr_runs + f.m.nr_segs >= 2);
		if (f.m.nr_runs >= 2)
			f.m.runs[1].first_block = f.m.runs[0].first_block;
		else
			f.m.segs[1].start = f.m.segs[0].start;
		EXPECT(lsm_manifest_check(&f.m, 0) == -EUCLEAN);
		load(b, &g);
		EXPECT(!lsm_space_alloc(&g.space, 3, &start));
		EXPECT(lsm_manifest_check(&g.m, 0) == -EUCLEAN);
		EXPECT(!lsm_manifest_check(&g.m, 3));
		unload(&g);
	}
	unload(&f);
	memdev_destroy(md);
	failed_edit_latches();
	rcu_barrier();
	shim_modules_unload();
	shim_rcu_unregister();
	printf("test_manifest: ok (%u edits, %u roll-overs)\n", edits, rolls);
	return 0;
}
