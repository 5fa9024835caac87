// SPDX-License-Identifier: GPL-2.0
/*
 * tbb-map: oneTBB's concurrent_map (a lock-free-insert skip list) as a map
 * of extents ordered by start key.
 *
 * Lookups find the extent holding a unit through a transparent comparator
 * (extent_less): an extent is below a unit when it ends at or before it,
 * above when it starts after it, so among disjoint extents the one holding
 * the unit is the one find() calls equal.  Insert only refuses an exact
 * duplicate start: a partially overlapping insert would be accepted, which
 * the workloads never try (their extents are disjoint).
 *
 * concurrent_map can only erase with unsafe_erase(), which must not run
 * alongside any other operation, hence concurrent_remove = false.
 *
 * The default tbb_allocator goes to libtbbmalloc when it is installed, which
 * the driver's mallinfo2() accounting cannot see and which would make the
 * comparison one of allocators; std::allocator keeps every index on glibc
 * malloc.
 */
#include <functional>
#include <memory>
#include <new>
#include <utility>

#include <tbb/concurrent_map.h>

#include "bench_index.h"

namespace {

struct extent {
	unsigned long start;
	unsigned long size;
};

/* A unit looked up, ordered against extents by extent_less. */
struct unit {
	unsigned long key;
};

struct extent_less {
	using is_transparent = void;

	bool operator()(const extent &a, const extent &b) const
	{
		return a.start < b.start;
	}
	bool operator()(const extent &a, const unit &u) const
	{
		return a.start + a.size <= u.key;
	}
	bool operator()(const unit &u, const extent &a) const
	{
		return u.key < a.start;
	}
};

using value_t = std::pair<const extent, char>;
using map_t = tbb::concurrent_map<extent, char, extent_less,
				  std::allocator<value_t>>;

map_t *to_map(struct bench_index *idx)
{
	return reinterpret_cast<map_t *>(idx);
}

struct bench_index *tbb_create(void)
{
	try {
		return reinterpret_cast<struct bench_index *>(new map_t());
	} catch (const std::bad_alloc &) {
		return nullptr;
	}
}

void tbb_destroy(struct bench_index *idx)
{
	delete to_map(idx);
}

int tbb_insert(struct bench_index *idx, unsigned long key, unsigned long size)
{
	try {
		return to_map(idx)->emplace(extent{key, size}, 0).second ?
		       0 : -EEXIST;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	}
}

int tbb_remove(struct bench_index *idx, unsigned long key)
{
	/* The key type's comparator orders by start alone. */
	return to_map(idx)->unsafe_erase(extent{key, 0}) ? 0 : -ENOENT;
}

bool tbb_lookup(struct bench_index *idx, unsigned long key)
{
	map_t *m = to_map(idx);

	return m->find(unit{key}) != m->end();
}

} /* namespace */

extern "C" const struct bench_impl bench_impl_tbb_map = {
	/* .name = */			"tbb-map",
	/* .create = */			tbb_create,
	/* .destroy = */		tbb_destroy,
	/* .thread_start = */		nullptr,
	/* .thread_stop = */		nullptr,
	/* .insert = */			tbb_insert,
	/* .remove = */			tbb_remove,
	/* .lookup = */			tbb_lookup,
	/* .insert_hole = */		nullptr,
	/* .index_bytes = */		nullptr,
	/* .concurrent_remove = */	false,
	/* .quiesce = */		nullptr,
};
