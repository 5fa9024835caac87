/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RCU skiplist range index.
 *
 * The caller embeds a struct sl_slot in its own object; the slot describes
 * the extent [key, key + size).  Extents in one list never overlap.  The
 * index never allocates or frees the caller's objects: it stores pointers to
 * the slots and hands them back, and container_of() gets from a slot to the
 * caller's object.
 *
 * What the caller must do:
 *  - Call lookups and iteration under rcu_read_lock(); the slots they return
 *    are valid until rcu_read_unlock().
 *  - Free an object only after a grace period has passed since its slot was
 *    removed (kfree_rcu()/call_rcu()), because readers may still hold it.
 *  - Not change slot->key while the slot is in a list, nor slot->size
 *    except through sl_resize().
 *  - Not call sl_destroy() while any other function may run on the list.
 *  - Call the functions that walk the whole list (sl_destroy(), sl_check(),
 *    sl_stats()) from process context, outside rcu_read_lock(): they walk
 *    in bounded chunks and sleep between them.
 *  - Publish a list in debugfs, if at all, with sl_debugfs_add() and take
 *    it out with sl_debugfs_remove() (or sl_destroy()), in process context,
 *    as part of the list's own life cycle.
 *
 * Writers need no external lock: the list takes its own per-leaf spinlocks,
 * with interrupts disabled, so every function but those three may be called
 * from any context that may take a spinlock.  Functions taking a gfp_t sleep only if it allows.
 * The full contract is in Documentation/skiplist.rst.
 */
#ifndef _SKIPLIST_H
#define _SKIPLIST_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/rcupdate.h>
#include <linux/atomic.h>
#include <linux/workqueue.h>
#include <linux/llist.h>

/**
 * struct sl_slot - an extent stored in a skiplist, embedded by the caller
 * @key:  first unit covered by the extent
 * @size: number of units covered; at least 1, and key + size - 1 must not
 *        wrap past ULONG_MAX
 */
struct sl_slot {
	unsigned long key;
	unsigned long size;
};

/* The last unit an extent covers; cannot overflow for a valid slot. */
static inline unsigned long sl_slot_last(const struct sl_slot *slot)
{
	/* The size may change under sl_resize() while a reader looks. */
	return slot->key + (READ_ONCE(slot->size) - 1);
}

struct sl_leaf;
struct sl_dir;
struct sl_debugfs;
struct mem_cgroup;
struct dentry;

/**
 * struct sl_list - a skiplist range index
 * @head:   the leftmost leaf; it covers keys from 0, has the maximum tower
 *          height and lives as long as the list
 * @level:  tower levels in use; searches start there
 * @finger: a leaf an ascending run of inserts is filling, or NULL
 * @finger_lo: its lower fence, so that a key below it skips the finger
 *          without touching the leaf
 * @dir:    the leaf directory searches start from, or NULL (directory.c)
 * @dir_changes: splits and merges since the directory was last rebuilt
 * @dir_rebuild_at: how many of those queue the next rebuild
 * @dir_building: set while a rebuild walks the leaves
 * @dir_dying: leaves that died while a rebuild ran, waiting for it to end
 * @dir_memcg: the memory cgroup the directory is charged to, or NULL
 * @dir_work: the rebuild
 * @gaps_searched: set by the first gap search; until then no gap bound
 *          has been tightened, so inserts and deletes skip raising them
 *          (gap.c)
 * @debugfs: the list's files and counters in debugfs, while it is
 *          published there (sl_debugfs_add()), or NULL
 *
 * All fields are private to the implementation.
 */
struct sl_list {
	struct sl_leaf *head;
	unsigned int level;
	struct sl_leaf __rcu *finger;
	unsigned long finger_lo;
	struct sl_dir __rcu *dir;
	atomic_long_t dir_changes;
	long dir_rebuild_at;
	int dir_building;
	struct llist_head dir_dying;
	struct mem_cgroup *dir_memcg;
	struct work_struct dir_work;
	int gaps_searched;
	struct sl_debugfs __rcu *debugfs;
};

/**
 * struct sl_iter - a cursor for ordered iteration
 * @list:     the list iterated
 * @leaf:     the leaf the cursor is in
 * @seq:      @leaf's sequence count when the cursor read it
 * @idx:      the index in @leaf of the first key at or after @pos
 * @pos:      the cursor: the slot after it is the first with a key >= @pos
 * @past_end: the cursor is after the slot at key ULONG_MAX, where no @pos
 *            can put it
 *
 * The cursor sits between two keys, like a bidirectional list iterator:
 * sl_iter_next() returns the slot after it and moves past that slot,
 * sl_iter_prev() returns the slot before it and moves before that slot.
 * Fields are private; the cursor must stay inside one rcu_read_lock()
 * section.
 */
struct sl_iter {
	struct sl_list *list;
	struct sl_leaf *leaf;
	unsigned int seq;
	int idx;
	unsigned long pos;
	bool past_end;
};

#define SL_MAX_HEIGHT	24

/**
 * struct sl_stats - a summary of a list, gathered by walking it
 * @items:     slots in the list
 * @leaves:    leaves in the list, the head included
 * @bytes:     memory the index allocated for its leaves and its leaf
 *             directory (the slots are the caller's and are not counted)
 * @height:    leaves per tower height, those of height h at index h - 1
 * @key_loads: keys loaded by searches of all lists since the module was
 *             loaded; 0 unless built with SL_COUNT_KEY_LOADS
 */
struct sl_stats {
	unsigned long items;
	unsigned long leaves;
	unsigned long bytes;
	unsigned long height[SL_MAX_HEIGHT];
	unsigned long key_loads;
};

/*
 * Inserts one task may make between sl_preload() and sl_preload_end()
 * that cannot fail for want of memory: each splits at most one leaf.
 */
#define SL_PRELOAD_LEAVES	3

void sl_preload(gfp_t gfp);
void sl_preload_end(void);

int sl_init(struct sl_list *list, gfp_t gfp);
void sl_destroy(struct sl_list *list,
		void (*free_slot)(struct sl_slot *slot, void *arg), void *arg);

int sl_insert(struct sl_list *list, struct sl_slot *slot, gfp_t gfp);
int sl_insert_hole(struct sl_list *list, struct sl_slot *slot,
		   unsigned long size, unsigned long align,
		   unsigned long min, unsigned long max, unsigned long hint,
		   unsigned long *start, gfp_t gfp);
int sl_erase(struct sl_list *list, struct sl_slot *slot);
int sl_resize(struct sl_list *list, struct sl_slot *slot, unsigned long size);
struct sl_slot *sl_remove(struct sl_list *list, unsigned long key);
struct sl_slot *sl_replace(struct sl_list *list, struct sl_slot *slot);
int sl_replace_resized(struct sl_list *list, struct sl_slot *old,
		       struct sl_slot *new);

struct sl_slot *sl_lookup(struct sl_list *list, unsigned long key);
struct sl_slot *sl_first_overlap(struct sl_list *list, unsigned long start,
				 unsigned long end);

void sl_iter_start(struct sl_iter *iter, struct sl_list *list,
		   unsigned long pos);
struct sl_slot *sl_iter_next(struct sl_iter *iter);
struct sl_slot *sl_iter_prev(struct sl_iter *iter);

void sl_stats(struct sl_list *list, struct sl_stats *stats);
unsigned long sl_key_loads(void);
int sl_check(struct sl_list *list);

int sl_debugfs_add(struct sl_list *list, struct dentry *parent,
		   const char *name);
void sl_debugfs_remove(struct sl_list *list);
struct dentry *sl_debugfs_dir(void);

#endif /* _SKIPLIST_H */
