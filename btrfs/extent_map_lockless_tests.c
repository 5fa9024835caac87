// SPDX-License-Identifier: GPL-2.0
/*
 * Sanity tests of the skiplist extent map's lockless lookups, run with
 * btrfs's own at module load (btrfs/build.sh copies this file into the
 * build's fs/btrfs/tests/).  Each forces one case of the locking in
 * btrfs/extent_map.c deterministically:
 *
 *  - a lookup that starts while a write section is open returns the tree
 *    as the section leaves it, never a state from inside it;
 *  - a lookup's reference keeps the writer from merging the map in place;
 *  - a map a lookup holds keeps its extent when it merges into a neighbour
 *    or is replaced (its length is its slot's size in the index);
 *  - a writer's own lookups inside its section do not wait for it;
 *  - a map ending at U64_MAX, and lookups of (u64)-1 bytes, behave as
 *    btrfs's rbtree did, and a map ending past U64_MAX is refused;
 *  - a tree that never held a map has no index, and releasing one that
 *    still holds maps drops the tree's references.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/wait.h>
#include "btrfs-tests.h"
#include "../ctree.h"
#include "../extent_map.h"

static struct extent_map *test_em(u64 start, u64 len, u64 block_start)
{
	struct extent_map *em = alloc_extent_map();

	if (!em)
		return NULL;
	em->start = start;
	em->len = len;
	em->block_start = block_start;
	em->block_len = len;
	em->orig_start = start;
	em->ram_bytes = len;
	return em;
}

/* Add a map the caller does not keep; 0 or the error. */
static int test_add(struct extent_map_tree *tree, u64 start, u64 len,
		    u64 block_start, int modified)
{
	struct extent_map *em = test_em(start, len, block_start);
	int ret;

	if (!em)
		return -ENOMEM;
	extent_map_write_lock(tree);
	ret = add_extent_mapping(tree, em, modified);
	extent_map_write_unlock(tree);
	free_extent_map(em);
	return ret;
}

static void test_empty(struct extent_map_tree *tree)
{
	struct extent_map *em;

	extent_map_write_lock(tree);
	while ((em = extent_map_first(tree))) {
		clear_bit(EXTENT_FLAG_PINNED, &em->flags);
		clear_bit(EXTENT_FLAG_LOGGING, &em->flags);
		remove_extent_mapping(tree, em);
		free_extent_map(em);
	}
	extent_map_write_unlock(tree);
}

struct section_reader {
	struct extent_map_tree *tree;
	wait_queue_head_t wait;
	bool go;
	bool started;
	struct completion done;
	u64 start;
	u64 len;
};

static int section_reader_fn(void *arg)
{
	struct section_reader *r = arg;
	struct extent_map *em;

	wait_event(r->wait, READ_ONCE(r->go));
	WRITE_ONCE(r->started, true);
	em = lookup_extent_mapping(r->tree, 0, SZ_4K);
	if (em) {
		r->start = em->start;
		r->len = em->len;
		free_extent_map(em);
	}
	complete(&r->done);
	return 0;
}

/*
 * [0, 4K) is in the tree.  This task opens a write section, lets a
 * reader thread start its lookup on the other CPU, waits inside the
 * section until the reader has called lookup_extent_mapping() and 50 ms
 * more, replaces the map by [0, 8K) and closes the section.  The reader
 * must still be waiting when the section closes and must then find
 * [0, 8K).  With one CPU the reader cannot run inside the section, and
 * the test says so; with two, a reader that never started inside it
 * (2 s) fails the test rather than passing it by luck.
 */
static int test_lookup_waits_for_section(struct extent_map_tree *tree)
{
	struct section_reader r = { .tree = tree };
	struct task_struct *task;
	struct extent_map *old, *new;
	bool done_inside, started_inside;
	int waited, ret;

	init_waitqueue_head(&r.wait);
	init_completion(&r.done);
	ret = test_add(tree, 0, SZ_4K, SZ_1M, 0);
	if (ret)
		return ret;
	new = test_em(0, SZ_8K, SZ_2M);
	if (!new)
		return -ENOMEM;
	task = kthread_run(section_reader_fn, &r, "btrfs-em-test");
	if (IS_ERR(task)) {
		free_extent_map(new);
		return PTR_ERR(task);
	}

	extent_map_write_lock(tree);
	WRITE_ONCE(r.go, true);
	wake_up(&r.wait);
	for (waited = 0; waited < 2000 && !READ_ONCE(r.started); waited++)
		mdelay(1);
	started_inside = READ_ONCE(r.started);
	mdelay(50);
	old = lookup_extent_mapping(tree, 0, SZ_4K);
	remove_extent_mapping(tree, old);
	free_extent_map(old);	/* the tree's */
	free_extent_map(old);	/* ours */
	ret = add_extent_mapping(tree, new, 0);
	done_inside = completion_done(&r.done);
	extent_map_write_unlock(tree);
	free_extent_map(new);

	wait_for_completion(&r.done);
	if (num_online_cpus() < 2) {
		test_msg("one CPU: the reader could not run inside the section");
	} else if (!started_inside) {
		test_err("the reader did not start its lookup inside the section");
		return -EINVAL;
	}
	if (ret) {
		test_err("cannot add [0, 8K): %d", ret);
		return ret;
	}
	if (done_inside) {
		test_err("a lookup returned while a write section was open");
		return -EINVAL;
	}
	if (r.start != 0 || r.len != SZ_8K) {
		test_err("lookup after the section found [%llu, +%llu), wanted [0, 8K)",
			 r.start, r.len);
		return -EINVAL;
	}
	test_empty(tree);
	return 0;
}

/* A reference taken by a lookup keeps the map from merging. */
static int test_lookup_ref_blocks_merge(struct extent_map_tree *tree)
{
	struct extent_map *held, *em;
	int ret;

	/* Logged maps do not merge: add [4K, 8K) as being logged. */
	ret = test_add(tree, 0, SZ_4K, SZ_1M, 0);
	if (ret)
		return ret;
	em = test_em(SZ_4K, SZ_4K, SZ_1M + SZ_4K);
	if (!em)
		return -ENOMEM;
	set_bit(EXTENT_FLAG_LOGGING, &em->flags);
	extent_map_write_lock(tree);
	ret = add_extent_mapping(tree, em, 0);
	extent_map_write_unlock(tree);
	free_extent_map(em);
	if (ret)
		return ret;

	held = lookup_extent_mapping(tree, SZ_4K, SZ_4K);
	if (!held || held->start != SZ_4K) {
		test_err("lookup of [4K, 8K) failed");
		free_extent_map(held);
		return -EINVAL;
	}
	/* The tree, this lookup, and the caller's: three holders. */
	refcount_inc(&held->refs);
	extent_map_write_lock(tree);
	clear_em_logging(tree, held);
	extent_map_write_unlock(tree);
	if (held->start != SZ_4K || held->len != SZ_4K) {
		test_err("a map merged while a lookup held it: [%llu, +%llu)",
			 held->start, held->len);
		ret = -EINVAL;
	}
	free_extent_map(held);

	/* Now only the tree and the caller hold it: it merges. */
	if (!ret) {
		extent_map_write_lock(tree);
		clear_em_logging(tree, held);
		extent_map_write_unlock(tree);
		if (held->start != 0 || held->len != SZ_8K) {
			test_err("unheld neighbours did not merge: [%llu, +%llu)",
				 held->start, held->len);
			ret = -EINVAL;
		}
	}
	free_extent_map(held);
	test_empty(tree);
	return ret;
}

/* The map at @start, held, is [@start, +@len) and out of the tree. */
static int test_held_is(struct extent_map *held, u64 start, u64 len,
			const char *what)
{
	if (held->start == start && held->len == len && !extent_map_in_tree(held))
		return 0;
	test_err("%s: a held map became [%llu, +%llu) (in tree %d), wanted [%llu, +%llu)",
		 what, held->start, held->len, extent_map_in_tree(held),
		 start, len);
	return -EINVAL;
}

/* The tree's map at @start is [@start, +@len); 0 or -EINVAL. */
static int test_tree_has(struct extent_map_tree *tree, u64 start, u64 len,
			 const char *what)
{
	struct extent_map *em = lookup_extent_mapping(tree, start, 1);
	int ret = 0;

	if (!em || em->start != start || em->len != len) {
		test_err("%s: the tree's map at %llu is [%llu, +%llu), wanted +%llu",
			 what, start, em ? em->start : 0, em ? em->len : 0, len);
		ret = -EINVAL;
	}
	free_extent_map(em);
	return ret;
}

/*
 * A map a lookup holds while it leaves the tree keeps its extent: when a
 * new neighbour after it merges it in (the neighbour takes its place with
 * both lengths), when one before it merges it in (the neighbour grows
 * over it), and when a shorter map from the same start replaces it.  Its
 * length is its slot's size, so shrinking or growing the slot on its way
 * out would change it under the holder, which btrfs never does.
 */
static int test_held_keeps_extent(struct extent_map_tree *tree)
{
	struct extent_map *held, *new;
	int ret;

	/* [0, 4K) held; [4K, 8K) comes and merges it in from after it. */
	ret = test_add(tree, 0, SZ_4K, SZ_1M, 0);
	if (ret)
		return ret;
	held = lookup_extent_mapping(tree, 0, SZ_4K);
	if (!held) {
		test_err("lookup of [0, 4K) failed");
		return -EINVAL;
	}
	ret = test_add(tree, SZ_4K, SZ_4K, SZ_1M + SZ_4K, 0);
	if (!ret)
		ret = test_held_is(held, 0, SZ_4K, "merge into the next");
	if (!ret)
		ret = test_tree_has(tree, 0, SZ_8K, "merge into the next");
	free_extent_map(held);
	test_empty(tree);
	if (ret)
		return ret;

	/* [4K, 8K) held; [0, 4K) comes and grows over it. */
	ret = test_add(tree, SZ_4K, SZ_4K, SZ_1M + SZ_4K, 0);
	if (ret)
		return ret;
	held = lookup_extent_mapping(tree, SZ_4K, SZ_4K);
	if (!held) {
		test_err("lookup of [4K, 8K) failed");
		return -EINVAL;
	}
	ret = test_add(tree, 0, SZ_4K, SZ_1M, 0);
	if (!ret)
		ret = test_held_is(held, SZ_4K, SZ_4K, "merge into the previous");
	if (!ret)
		ret = test_tree_has(tree, 0, SZ_8K, "merge into the previous");
	free_extent_map(held);
	test_empty(tree);
	if (ret)
		return ret;

	/* [0, 8K) held; [0, 4K) replaces it. */
	ret = test_add(tree, 0, SZ_8K, SZ_1M, 0);
	if (ret)
		return ret;
	held = lookup_extent_mapping(tree, 0, SZ_8K);
	new = test_em(0, SZ_4K, SZ_1M);
	if (!held || !new) {
		free_extent_map(held);
		free_extent_map(new);
		return -ENOMEM;
	}
	extent_map_write_lock(tree);
	replace_extent_mapping(tree, held, new, 0);
	extent_map_write_unlock(tree);
	free_extent_map(held);	/* the tree's */
	free_extent_map(new);
	ret = test_held_is(held, 0, SZ_8K, "replace");
	if (!ret)
		ret = test_tree_has(tree, 0, SZ_4K, "replace");
	if (!ret) {
		new = lookup_extent_mapping(tree, SZ_4K, SZ_4K);
		if (new) {
			test_err("replace: [4K, 8K) still mapped by [%llu, +%llu)",
				 new->start, new->len);
			free_extent_map(new);
			ret = -EINVAL;
		}
	}
	free_extent_map(held);
	test_empty(tree);
	return ret;
}

/*
 * Maps at the top of the range, and lookups of (u64)-1 bytes.  btrfs cut
 * a map whose end wrapped at U64_MAX; here a map's length is its slot's
 * size, so such a map is refused, with a warning (and none of btrfs's
 * callers makes one).
 */
static int test_top_of_range(struct extent_map_tree *tree)
{
	const u64 top = U64_MAX - SZ_8K;
	struct extent_map *em;
	int ret;

	ret = test_add(tree, top, (u64)-1, EXTENT_MAP_HOLE, 0);
	if (ret != -EINVAL) {
		test_err("a map ending past U64_MAX: %d, wanted -EINVAL", ret);
		return -EINVAL;
	}
	ret = test_add(tree, top + 1, SZ_8K, EXTENT_MAP_HOLE, 0);
	if (ret != -EINVAL) {
		test_err("a map ending at 2^64: %d, wanted -EINVAL", ret);
		return -EINVAL;
	}
	if (extent_map_first(tree)) {
		test_err("a refused map is in the tree");
		return -EINVAL;
	}
	/* The highest end a map can have. */
	ret = test_add(tree, top, SZ_8K, EXTENT_MAP_HOLE, 0);
	if (ret) {
		test_err("cannot add a map ending at U64_MAX: %d", ret);
		return ret;
	}
	em = lookup_extent_mapping(tree, SZ_4K, (u64)-1);
	if (!em || em->start != top) {
		test_err("lookup of [4K, U64_MAX) missed the top map");
		free_extent_map(em);
		return -EINVAL;
	}
	free_extent_map(em);
	em = search_extent_mapping(tree, 0, 0);
	if (!em || em->start != top) {
		test_err("search from 0 missed the only map");
		free_extent_map(em);
		return -EINVAL;
	}
	free_extent_map(em);
	ret = test_add(tree, U64_MAX - SZ_4K, SZ_4K, EXTENT_MAP_HOLE, 0);
	if (ret != -EEXIST) {
		test_err("a map inside the top map went in: %d", ret);
		return -EINVAL;
	}
	test_empty(tree);
	return 0;
}

/* An unused tree has no index; a released one drops the tree's refs. */
static int test_release(void)
{
	struct extent_map_tree *tree;
	struct extent_map *em;
	int ret;

	tree = kzalloc(sizeof(*tree), GFP_KERNEL);
	em = test_em(0, SZ_4K, SZ_1M);
	if (!tree || !em) {
		kfree(tree);
		free_extent_map(em);
		return -ENOMEM;
	}
	extent_map_tree_init(tree);
	if (rcu_access_pointer(tree->map)) {
		test_err("an empty tree has an index");
		ret = -EINVAL;
		goto out;
	}
	extent_map_write_lock(tree);
	ret = add_extent_mapping(tree, em, 0);
	extent_map_write_unlock(tree);
	if (ret)
		goto out;
	extent_map_tree_release(tree);
	if (extent_map_in_tree(em) || refcount_read(&em->refs) != 1) {
		test_err("release left the map in the tree (refs %d)",
			 refcount_read(&em->refs));
		ret = -EINVAL;
	}
out:
	free_extent_map(em);
	kfree(tree);
	return ret;
}

int btrfs_test_extent_map_lockless(void)
{
	struct extent_map_tree *tree;
	int ret;

	test_msg("running lockless extent_map tests");
	tree = kzalloc(sizeof(*tree), GFP_KERNEL);
	if (!tree)
		return -ENOMEM;
	extent_map_tree_init(tree);
	ret = test_lookup_waits_for_section(tree);
	if (!ret)
		ret = test_lookup_ref_blocks_merge(tree);
	if (!ret)
		ret = test_held_keeps_extent(tree);
	if (!ret)
		ret = test_top_of_range(tree);
	if (!ret)
		ret = test_release();
	extent_map_tree_release(tree);
	kfree(tree);
	return ret;
}
