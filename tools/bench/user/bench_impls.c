// SPDX-License-Identifier: GPL-2.0
/*
 * The indexes the driver knows about.  The first entry is the baseline that
 * the "first / other" ratio columns divide by, so the skiplist under
 * development goes first whenever it is built in.
 */
#include "bench_index.h"

const struct bench_impl *const bench_impls[] = {
#ifdef HAVE_SKIPLIST
	&bench_impl_skiplist,
#endif
	&bench_impl_rbtree_spin,
	&bench_impl_rbtree_rw,
	&bench_impl_tbb_map,
	&bench_impl_cds_skiplist,
	&bench_impl_maple,
	NULL,
};
