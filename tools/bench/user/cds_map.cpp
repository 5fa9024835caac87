// SPDX-License-Identifier: GPL-2.0
/*
 * cds-skiplist: libcds's lock-free skip list map over its own user-space RCU
 * (general_buffered: retired nodes are queued and freed in batches once a
 * grace period has passed), as a map of extents ordered by start key.
 *
 * Like tbb-map, lookups find the extent holding a unit through a
 * comparator that orders a unit against extents (unit_less, passed to
 * contains()), and insert only refuses an exact duplicate start, which is
 * all the workloads need (their extents are disjoint).
 *
 * libcds quirks this file deals with:
 *  - cds::Initialize() and the RCU singleton must exist before any thread
 *    attaches, and a thread attached earlier would never get an RCU record.
 *    Both are set up once, on the first create(), and kept until exit:
 *    there is only one RCU instance per process, shared by every map.
 *  - Every thread touching a map must be attached to libcds's thread
 *    manager; attaching is reference counted, so destroy() can attach the
 *    calling thread again for the clear() it does without caring whether
 *    the driver already did.
 *  - insert() and erase() must not run under the RCU read lock (they may
 *    wait for a grace period when the retire buffer fills); contains() takes
 *    the read lock itself, so lookups need no explicit rcu_lock.
 */
#include <mutex>
#include <new>

#include <cds/init.h>
#include <cds/urcu/general_buffered.h>
#include <cds/container/skip_list_map_rcu.h>

#include "bench_index.h"

namespace {

struct extent {
	unsigned long start;
	unsigned long size;
};

struct unit {
	unsigned long key;
};

struct extent_less {
	bool operator()(const extent &a, const extent &b) const
	{
		return a.start < b.start;
	}
};

/* An extent is below a unit when it ends at or before it. */
struct unit_less {
	bool operator()(const extent &a, const unit &u) const
	{
		return a.start + a.size <= u.key;
	}
	bool operator()(const unit &u, const extent &a) const
	{
		return u.key < a.start;
	}
	bool operator()(const extent &a, const extent &b) const
	{
		return a.start < b.start;
	}
};

struct map_traits : public cds::container::skip_list::traits {
	typedef extent_less less;
};

using rcu_t = cds::urcu::gc<cds::urcu::general_buffered<>>;
using map_t = cds::container::SkipListMap<rcu_t, extent, char, map_traits>;

std::once_flag cds_once;

/* Intentionally leaked: maps may be retiring nodes into it until exit. */
rcu_t *cds_rcu;

void cds_global_init(void)
{
	cds::Initialize();
	cds_rcu = new rcu_t();
}

map_t *to_map(struct bench_index *idx)
{
	return reinterpret_cast<map_t *>(idx);
}

struct bench_index *cds_create(void)
{
	try {
		std::call_once(cds_once, cds_global_init);
		return reinterpret_cast<struct bench_index *>(new map_t());
	} catch (const std::bad_alloc &) {
		return nullptr;
	}
}

void cds_thread_start(struct bench_index *)
{
	cds::threading::Manager::attachThread();
}

void cds_thread_stop(struct bench_index *)
{
	cds::threading::Manager::detachThread();
}

void cds_destroy(struct bench_index *idx)
{
	cds::threading::Manager::attachThread();
	delete to_map(idx);
	/*
	 * The destructor only retires the nodes; flush them so that the next
	 * map's heap accounting does not see this one's leftovers.
	 */
	rcu_t::force_dispose();
	cds::threading::Manager::detachThread();
}

void cds_quiesce(struct bench_index *)
{
	rcu_t::force_dispose();
}

int cds_insert(struct bench_index *idx, unsigned long key, unsigned long size)
{
	try {
		return to_map(idx)->insert(extent{key, size}, 0) ? 0 : -EEXIST;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	}
}

int cds_remove(struct bench_index *idx, unsigned long key)
{
	/* The map's comparator orders by start alone. */
	return to_map(idx)->erase(extent{key, 0}) ? 0 : -ENOENT;
}

bool cds_lookup(struct bench_index *idx, unsigned long key)
{
	return to_map(idx)->contains(unit{key}, unit_less());
}

} /* namespace */

extern "C" const struct bench_impl bench_impl_cds_skiplist = {
	/* .name = */			"cds-skiplist",
	/* .create = */			cds_create,
	/* .destroy = */		cds_destroy,
	/* .thread_start = */		cds_thread_start,
	/* .thread_stop = */		cds_thread_stop,
	/* .insert = */			cds_insert,
	/* .remove = */			cds_remove,
	/* .lookup = */			cds_lookup,
	/* .insert_hole = */		nullptr,
	/* .index_bytes = */		nullptr,
	/* .concurrent_remove = */	true,
	/* .quiesce = */		cds_quiesce,
};
