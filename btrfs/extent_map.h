/* SPDX-License-Identifier: GPL-2.0 */
/*
 * btrfs's extent map cache on the skiplist range index: the interface of
 * btrfs's own in Linux 6.1, with the rbtree replaced by a
 * struct sl_list and lookups that take no lock.
 *
 * Locking, as before for writers, new for readers:
 *  - Writers take the tree's lock for writing, through
 *    extent_map_write_lock() and extent_map_write_unlock(), which also
 *    mark the section in @seq.  Everything a writer does inside one
 *    section is one change to every reader, as under the rwlock.
 *  - lookup_extent_mapping() and search_extent_mapping() need no lock:
 *    they search under RCU, take their reference with
 *    refcount_inc_not_zero() and start again if a write section ran
 *    meanwhile.  Called by the writer inside its section they read the
 *    tree directly.
 *  - Callers that walk the tree (btrfs_next_extent_map(),
 *    extent_map_first()) still take the lock for reading.
 *  - Extent maps are freed an RCU grace period after their last
 *    reference goes.
 */
#ifndef BTRFS_EXTENT_MAP_H
#define BTRFS_EXTENT_MAP_H

#include <linux/refcount.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include "skiplist.h"

#define EXTENT_MAP_LAST_BYTE ((u64)-4)
#define EXTENT_MAP_HOLE ((u64)-3)
#define EXTENT_MAP_INLINE ((u64)-2)
/* Given to fiemap only. */
#define EXTENT_MAP_DELALLOC ((u64)-1)

/* Bit numbers in extent_map::flags; btrfs's callers use them as they are. */
enum {
	EXTENT_FLAG_PINNED,	/* not written yet: stays cached */
	EXTENT_FLAG_COMPRESSED,	/* its block range is compressed data */
	EXTENT_FLAG_PREALLOC,	/* preallocated space */
	EXTENT_FLAG_LOGGING,	/* the tree log is writing it out */
	EXTENT_FLAG_FILLING,	/* a write into preallocated space */
	EXTENT_FLAG_FS_MAPPING,	/* a chunk mapping (@map_lookup, not @ram_bytes) */
	EXTENT_FLAG_MERGED,	/* made of neighbours merged together */
};

/**
 * struct extent_map - a cached file extent or chunk mapping
 * @slot:     its place in the tree: @slot.key is @start, @slot.size @len
 * @start:    first byte
 * @len:      bytes; @start + @len must not wrap past U64_MAX while the map
 *            is in a tree
 * @mod_start: first byte of the part changed since it was last logged
 * @mod_len:  bytes of that part
 * @orig_start: file offset at which the extent on disk it points into begins
 * @orig_block_len: bytes of that extent on disk
 * @ram_bytes: a file extent's bytes uncompressed
 * @map_lookup: a chunk mapping's stripes (EXTENT_FLAG_FS_MAPPING)
 * @block_start: where its data starts on disk, or EXTENT_MAP_HOLE,
 *            EXTENT_MAP_INLINE or EXTENT_MAP_DELALLOC
 * @block_len: bytes of its data on disk
 * @generation: the newest generation of the extents it was made from
 * @flags:    EXTENT_FLAG_* bits
 * @refs:     references, the tree's one among them while it is in a tree
 * @compress_type: how its data is compressed (BTRFS_COMPRESS_*)
 * @in_tree:  in a tree; written by the tree's writer only
 * @list:     on the tree's modified_extents list, or on a log's list
 * @rcu:      frees it after a grace period, once @list is unused
 *
 * All but @slot, @in_tree and @rcu are btrfs's own, as btrfs uses them.
 * @start and @len are stored in @slot, so nothing but extent_map.c may
 * change them while the map is in a tree, and it changes @len only
 * through the index, which lockless lookups see whole.
 */
struct extent_map {
	/* The slot holds the extent, in bytes: the map keeps it once. */
	union {
		struct sl_slot slot;
		struct {
			u64 start;
			u64 len;
		};
	};

	/* Bytes, as in btrfs. */
	u64 mod_start;
	u64 mod_len;
	u64 orig_start;
	u64 orig_block_len;
	/*
	 * A chunk mapping has stripes and no uncompressed size; a file
	 * extent the reverse.  btrfs never sets @ram_bytes on a chunk
	 * mapping (btrfs_create_chunk(), read_one_chunk()) nor reads it
	 * from one, and reads @map_lookup only from maps of the mapping
	 * tree, which holds chunk mappings alone: EXTENT_FLAG_FS_MAPPING
	 * tells which of the two a map has, never the pointer's value.
	 */
	union {
		u64 ram_bytes;
		struct map_lookup *map_lookup;
	};
	u64 block_start;
	u64 block_len;
	u64 generation;
	unsigned long flags;
	refcount_t refs;
	u8 compress_type;
	bool in_tree;
	union {
		struct list_head list;
		struct rcu_head rcu;
	};
};

/* @start and @len share their bytes with @slot: 64-bit kernels only. */
static_assert(sizeof(unsigned long) == sizeof(u64));
static_assert(offsetof(struct extent_map, start) ==
	      offsetof(struct extent_map, slot.key));
static_assert(offsetof(struct extent_map, len) ==
	      offsetof(struct extent_map, slot.size));
/* With the index's leaves, no more than Debian's 144 (Documentation/btrfs.rst). */
static_assert(sizeof(struct extent_map) == 112);

/**
 * struct extent_map_tree - an inode's extent maps, or a file system's chunks
 * @map:    the index, made at the first insert (most inodes never cache an
 *          extent, and a list's head leaf is about 1 KiB); NULL before
 * @modified_extents: extent maps to log
 * @lock:   held for writing by writers; for reading only by walkers
 * @seq:    write sections, for lockless lookups
 * @writer: the task inside a write section, so that its own lookups skip
 *          @seq (which is odd until it leaves)
 */
struct extent_map_tree {
	struct sl_list __rcu *map;
	struct list_head modified_extents;
	rwlock_t lock;
	seqcount_rwlock_t seq;
	struct task_struct *writer;
};

struct btrfs_inode;

static inline int extent_map_in_tree(const struct extent_map *em)
{
	return READ_ONCE(em->in_tree);
}

static inline u64 extent_map_end(struct extent_map *em)
{
	if (em->start + em->len < em->start)
		return (u64)-1;
	return em->start + em->len;
}

static inline u64 extent_map_block_end(struct extent_map *em)
{
	if (em->block_start + em->block_len < em->block_start)
		return (u64)-1;
	return em->block_start + em->block_len;
}

void extent_map_write_lock(struct extent_map_tree *tree)
	__acquires(&tree->lock);
void extent_map_write_unlock(struct extent_map_tree *tree)
	__releases(&tree->lock);
void extent_map_tree_init(struct extent_map_tree *tree);
void extent_map_tree_release(struct extent_map_tree *tree);
struct extent_map *extent_map_first(struct extent_map_tree *tree);
struct extent_map *extent_map_next_locked(struct extent_map_tree *tree,
					  const struct extent_map *em);
struct extent_map *extent_map_last(struct extent_map_tree *tree);
struct extent_map *lookup_extent_mapping(struct extent_map_tree *tree,
					 u64 start, u64 len);
struct extent_map *btrfs_next_extent_map(const struct extent_map_tree *tree,
					 const struct extent_map *em);
int add_extent_mapping(struct extent_map_tree *tree,
		       struct extent_map *em, int modified);
void remove_extent_mapping(struct extent_map_tree *tree, struct extent_map *em);
void replace_extent_mapping(struct extent_map_tree *tree,
			    struct extent_map *cur,
			    struct extent_map *new,
			    int modified);

struct extent_map *alloc_extent_map(void);
void free_extent_map(struct extent_map *em);
int __init extent_map_init(void);
void __cold extent_map_exit(void);
int unpin_extent_cache(struct extent_map_tree *tree, u64 start, u64 len, u64 gen);
void clear_em_logging(struct extent_map_tree *tree, struct extent_map *em);
struct extent_map *search_extent_mapping(struct extent_map_tree *tree,
					 u64 start, u64 len);
int btrfs_add_extent_mapping(struct btrfs_fs_info *fs_info,
			     struct extent_map_tree *em_tree,
			     struct extent_map **em_in, u64 start, u64 len);
void btrfs_drop_extent_map_range(struct btrfs_inode *inode,
				 u64 start, u64 end,
				 bool skip_pinned);
int btrfs_replace_extent_map_range(struct btrfs_inode *inode,
				   struct extent_map *new_em,
				   bool modified);

#endif
