// SPDX-License-Identifier: GPL-2.0
/*
 * tbb-map: oneTBB's concurrent_map (a lock-free-insert skip list) as a point
 * map from start key to size.
 *
 * It is not a range index: insert only refuses an exact duplicate start, and
 * lookup only finds exact start keys.  The workloads use keys 16 apart with
 * size 8 and only look up start keys or absent keys, so neither matters
 * there, but a partially overlapping insert would be accepted.
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

using value_t = std::pair<const unsigned long, unsigned long>;
using map_t = tbb::concurrent_map<unsigned long, unsigned long,
				  std::less<unsigned long>,
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
		return to_map(idx)->emplace(key, size).second ? 0 : -EEXIST;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	}
}

int tbb_remove(struct bench_index *idx, unsigned long key)
{
	return to_map(idx)->unsafe_erase(key) ? 0 : -ENOENT;
}

bool tbb_lookup(struct bench_index *idx, unsigned long key)
{
	map_t *m = to_map(idx);

	return m->find(key) != m->end();
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
