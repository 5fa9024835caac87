#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Proves the tests can fail: breaks the skiplist on purpose, one way at a
time, in a copy of the tree, and checks that the test named for each break
notices (exits non-zero).  A mutant that survives fails the run; so does a
mutant whose target text no longer exists (update it with the code).

Usage: mutants.py [NAME ...]     (default: all)
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

# name, file, text to replace, replacement, test, what must catch it
MUTANTS = [
    ("lookup-accepts-torn-snapshot", "skiplist/search.c",
     "\t\tif (!read_seqcount_retry(&leaf->seq, pos.seq))\n\t\t\tbreak;\n"
     "\t\tsl_read_retried(list, leaf, key, SL_TRACE_RETRY_LOOKUP);\n\t}\n"
     "\tsl_count_flush(loads);\n\t/*\n\t * The snapshot held",
     "\t\tbreak;\n\t}\n\tsl_count_flush(loads);\n\t/*\n\t * The snapshot held",
     "unit", "torn_lookup test: a leaf changing inside a lookup's snapshot"),
    ("search-ignores-upper-fence", "skiplist/search.c",
     "\t\tif (fence == SL_COVERED) {",
     "\t\tif (fence != SL_GO_LEFT) {",
     "stress-race", "linearizability checker (a lookup misses a present key)"),
    ("leaf-freed-without-grace-period", "skiplist/directory.c",
     "\t\tsl_leaf_free_rcu(leaf);", "\t\tsl_leaf_free(leaf);",
     "stress-k4", "AddressSanitizer use-after-free in a reader"),
    ("directory-keeps-dead-leaf", "skiplist/directory.c",
     "\t\tif (idx >= 0)\n\t\t\tRCU_INIT_POINTER(dir->entry[idx].leaf, NULL);\n", "",
     "unit", "directory test: sl_check() finds a dead leaf in the directory"),
    ("remove-leaves-slot-in-leaf", "skiplist/delete.c",
     "\tsl_write_begin(&held, leaf);\n\tsl_leaf_take(leaf, idx);\n\tsl_write_end(leaf);",
     "\tsl_write_begin(&held, leaf);\n\tsl_write_end(leaf);",
     "stress", "poisoned item handed to a reader"),
    ("merge-forgets-upper-fence", "skiplist/delete.c",
     "\tWRITE_ONCE(left->hi, right->hi);\n", "",
     "unit", "sl_check() invariant"),
    ("stale-slot-pointer-after-delete", "skiplist/delete.c",
     "\tWRITE_ONCE(slots[nr - 1], NULL);\n", "",
     "unit", "sl_check() invariant"),
    ("reserve-for-any-task", "skiplist/preload.c",
     "\tif (rsv->owner == current && rsv->nr)\n",
     "\tif (rsv->nr)\n",
     "unit", "preload test: a task that did not preload takes the reserve"),
    ("reserve-for-interrupts", "skiplist/preload.c",
     "\tif (!in_task())\n\t\treturn NULL;\n\t/* Pinned", "\t/* Pinned",
     "unit", "preload test: an interrupt in the section takes the reserve"),
    ("split-never-takes-reserve", "skiplist/preload.c",
     "\treturn leaf ?: sl_reserve_take();", "\treturn leaf;",
     "unit", "preload test: a preloaded split gets -ENOMEM"),
    ("unused-leaf-to-any-reserve", "skiplist/preload.c",
     "\t\tif (rsv->owner == current && rsv->nr < SL_PRELOAD_LEAVES) {",
     "\t\tif (rsv->nr < SL_PRELOAD_LEAVES) {",
     "unit", "preload_unused test: a task that did not preload fills the reserve"),
    ("unused-leaf-from-interrupt", "skiplist/preload.c",
     "\tif (leaf->height == 1 && in_task()) {", "\tif (leaf->height == 1) {",
     "unit", "preload_unused test: an interrupt fills the reserve"),
    ("unused-leaf-always-freed", "skiplist/preload.c",
     "\tif (leaf->height == 1 && in_task()) {", "\tif (0) {",
     "unit", "preload_unused test: the section loses a reserve leaf"),
    ("preload-end-keeps-owner", "skiplist/preload.c",
     "\trsv->owner = NULL;\n\tlocal_unlock", "\tlocal_unlock",
     "unit", "preload test: the reserve serves after its section ended"),
    ("insert-ignores-previous-leaf", "skiplist/insert.c",
     "\t} else if (prev && prev->nr) {", "\t} else if (0) {",
     "unit", "overlap tests"),
    ("merge-without-locking-next", "skiplist/delete.c",
     "\t\t\tsl_lock_leaf(&held, next);\n", "",
     "unit", "lock assertion (write section without the lock)"),
    ("prev-leaf-locked-second", "skiplist/locking.c",
     "\tsl_lock_leaf(held, prev);\n\tsl_lock_leaf(held, leaf);\n",
     "\tsl_lock_leaf(held, leaf);\n\tsl_lock_leaf(held, prev);\n",
     "unit", "left-to-right lock order check (lockdep cannot see it)"),
    ("delete-forgets-gap-raise", "skiplist/delete.c",
     "\tif (gap) {\n\t\tsl_gap_raise(list, owner, gap);\n\t} else if (slot) {\n",
     "\tif (!gap && slot) {\n",
     "diff", "first fit against the model, or the gap bound check"),
    ("delete-notes-one-end", "skiplist/delete.c",
     "\t\tif (last != key)\n\t\t\tsl_gap_note(list, last);\n", "",
     "unit", "delete_note_race test: a shorter slot inserted at the removed key before the note"),
    ("insert-forgets-gap-raise", "skiplist/insert.c",
     "\tif (!ret && gap)\n\t\tsl_gap_raise(list, key, gap);\n", "",
     "diff", "first fit against the model, or the gap bound check"),
    ("unlink-drops-gap-bound", "skiplist/tower.c",
     "\t\tsl_gap_absorb(link, plink);\n", "",
     "diff-k4", "first fit against the model, or the gap bound check"),
    ("cache-ignores-alignment", "extent/range_alloc.c",
     "\t\tif ((range->slot.key & (align - 1)) &&\n\t\t    READ_ONCE(range->state) == SL_RANGE_CACHED)\n"
     "\t\t\treturn NULL;\n\t\tWRITE_ONCE(cache->nr[size - 1], --nr);\n"
     "\t\tif (!(range->slot.key & (align - 1)) &&\n\t\t    cmpxchg(",
     "\t\tWRITE_ONCE(cache->nr[size - 1], --nr);\n\t\tif (cmpxchg(",
     "unit", "range_cache test: a cached range handed out unaligned"),
    ("full-space-keeps-caches", "extent/range_alloc.c",
     "\tfor (round = 0; ret == -ENOSPC && round < SL_RANGE_RECLAIM_ROUNDS &&",
     "\tfor (round = 0; 0 &&",
     "unit", "range_cache test: -ENOSPC while cached ranges fill the space"),
    ("tighten-overwrites-raise", "skiplist/gap.c",
     "\tseen = cmpxchg(&link->gap, busy, bound);",
     "\tWRITE_ONCE(link->gap, bound);\n\tseen = busy;",
     "unit", "gap_race test: a free raising a bound inside a tightening's window"),
    ("unlink-switches-before-absorb", "skiplist/tower.c",
     "\t\tsl_gap_absorb(link, plink);\n"
     "\t\tsl_window(list, SL_WIN_UNLINK_ABSORBED, .key = leaf->lo,\n"
     "\t\t\t  .leaf = leaf, .level = level);\n"
     "\t\t/*\n"
     "\t\t * Fence first: until the pointer follows, a search sees @leaf\n"
     "\t\t * with the next leaf's fence and merely declines a shortcut.\n"
     "\t\t */\n"
     "\t\tWRITE_ONCE(plink->lo, link->lo);\n"
     "\t\tASSERT_EXCLUSIVE_WRITER(plink->next);\n"
     "\t\trcu_assign_pointer(plink->next, succ);\n",
     "\t\tWRITE_ONCE(plink->lo, link->lo);\n"
     "\t\tASSERT_EXCLUSIVE_WRITER(plink->next);\n"
     "\t\trcu_assign_pointer(plink->next, succ);\n"
     "\t\tsl_window(list, SL_WIN_UNLINK_ABSORBED, .key = leaf->lo,\n"
     "\t\t\t  .leaf = leaf, .level = level);\n"
     "\t\tsl_gap_absorb(link, plink);\n",
     "unit", "gap_unlink_window test: a search and a recount between the switch and the absorb"),
    ("gap-count-reads-bound-first", "skiplist/gap.c",
     "\t\tsl_window(list, SL_WIN_GAP_COUNT_LINK, .leaf = leaf,\n"
     "\t\t\t  .level = level);\n"
     "\t\tword = READ_ONCE(link->gap);\n",
     "\t\tword = READ_ONCE(link->gap);\n"
     "\t\tsl_window(list, SL_WIN_GAP_COUNT_LINK, .leaf = leaf,\n"
     "\t\t\t  .level = level);\n"
     "\t\tnext = rcu_dereference(link->next);\n",
     "unit", "gap_count_unlink test: a recount that skips a span unlinked between its two reads"),
    ("gap-search-reads-bound-first", "skiplist/gap.c",
     "\t\tsl_window(list, SL_WIN_GAP_SEARCH_LINK, .leaf = leaf,\n"
     "\t\t\t  .level = level);\n"
     "\t\t/* The word before next->lo: it shares the line, next is a miss. */\n"
     "\t\tword = smp_load_acquire(&link->gap);\n",
     "\t\tword = smp_load_acquire(&link->gap);\n"
     "\t\tsl_window(list, SL_WIN_GAP_SEARCH_LINK, .leaf = leaf,\n"
     "\t\t\t  .level = level);\n"
     "\t\tnext = rcu_dereference(link->next);\n"
     "\t\tf->next = next;\n",
     "unit", "gap_search_unlink test: a search that skips a span unlinked between its two reads"),
    ("tighten-span-ignores-seal", "skiplist/gap.c",
     "\tnext = sl_gap_next_live(owner, level);\n\tif (next)",
     "\tnext = rcu_dereference(link->next);\n\tif (next)",
     "unit", "gap_unlink_window test: a span tightened without the span it takes over"),
    ("raise-cover-takes-sealed", "skiplist/gap.c",
     "\t\t\tif (!sl_gap_sealed(leaf, l))\n\t\t\t\tlive = leaf;\n",
     "\t\t\tlive = leaf;\n",
     "unit", "gap_unlink_window test: a raise that waits for an unlink to finish (hangs)"),
    ("tighten-lowers-unannounced", "skiplist/gap.c",
     "\tif (bound != sl_gap_bound(old))\n"
     "\t\tsl_gap_lowering(list, owner, level, above, visits);\n", "",
     "unit", "gap_count_link test: a recount above pairs an old pointer with the lowered bound"),
    ("gap-search-trusts-first-pointer", "skiplist/gap.c",
     "\t\tif (unlikely(rcu_access_pointer(link->next) != next)) {\n"
     "\t\t\tsl_gap_retried(list, level, SL_TRACE_GAP_RELINKED);\n"
     "\t\t\tcontinue;\n\t\t}\n", "",
     "unit", "gap_search_link test: a search pairs an old pointer with a bound tightened since"),
    ("gap-prune-ignores-alignment", "skiplist/gap.c",
     "\treturn (size == SL_GAP_MAX || size >= req->size) &&\n"
     "\t\tsl_gap_align_log(bound) >= req->align_log &&\n"
     "\t\tsl_gap_block_log(bound) >= req->block_log;\n",
     "\treturn size == SL_GAP_MAX || size >= req->size;\n",
     "unit", "gap_align_prune test: an aligned request that scans every misaligned gap"),
    ("gap-align-of-first-unit", "skiplist/gap.c",
     "\talign = first ? ilog2((first - 1) ^ last) : SL_GAP_LOG_MAX;\n",
     "\talign = first ? __ffs(first) : SL_GAP_LOG_MAX;\n",
     "unit", "gap_align_exact test: a run whose most aligned unit is not its first"),
    ("gap-block-at-run-start", "skiplist/gap.c",
     "\tif (start < first || start > last || last - start < step - 1)\n\t\tblock--;\n",
     "\tif (first && __ffs(first) < block)\n\t\tblock = __ffs(first);\n",
     "unit", "gap_align_exact test: an aligned block that does not start the run"),
    ("gap-block-always-halved", "skiplist/gap.c",
     "\tif (start < first || start > last || last - start < step - 1)\n\t\tblock--;\n",
     "\tblock -= block > 0;\n",
     "gap_arith", "gap_arith: a run of 2^b units at a multiple of 2^b bounded by blocks of 2^(b-1)"),
    ("gap-flag-after-search", "skiplist/gap.c",
     "\tif (!READ_ONCE(list->gaps_searched)) {\n"
     "\t\tWRITE_ONCE(list->gaps_searched, 1);\n"
     "\t\t/* Raises are made from now on: the flag before any leaf read. */\n"
     "\t\tsmp_mb();\n"
     "\t}\n"
     "\tok = sl_gap_search(list, &req);\n",
     "\tok = sl_gap_search(list, &req);\n"
     "\tif (!READ_ONCE(list->gaps_searched)) {\n"
     "\t\tWRITE_ONCE(list->gaps_searched, 1);\n"
     "\t\tsmp_mb();\n"
     "\t}\n",
     "unit", "gap_race test: a free inside the first search's tightening skips its raise"),
    ("replace-trusts-descent", "skiplist/insert.c",
     "\tleaf = sl_lock_covering(list, slot->key, &held);\n\tidx",
     "\t{\n\t\tunsigned int loads = 0;\n\n"
     "\t\tleaf = sl_descend(list, slot->key, &loads);\n"
     "\t\tsl_lock_leaf(&held, leaf);\n\t}\n\tidx",
     "unit", "replace_dead_leaf test: a replace into a leaf merged away before the lock"),
    ("replace-resized-forgets-gap-note", "skiplist/insert.c",
     "\tif (size < old_size)\n\t\tsl_gap_shrunk(list, key, old_size, size);\n", "",
     "unit", "replace_resized test: a gap search misses the units a shrink gave up"),
    ("replace-resized-shrinks-old", "skiplist/insert.c",
     "\t\told_size = old->size;\n",
     "\t\told_size = old->size;\n\t\tWRITE_ONCE(old->size, min(size, old_size));\n",
     "unit", "replace_resized test: a reader holding the old slot sees it shrink"),
    ("replace-resized-in-two-steps", "skiplist/insert.c",
     "\t\tsl_write_begin(&held, leaf);\n\t\tWRITE_ONCE(leaf->slots[idx], new);\n"
     "\t\tsl_write_end(leaf);\n\t\tret = 0;\n\t}\n\tsl_unlock_all(&held);\n"
     "\trcu_read_unlock();\n",
     "\t\tret = 0;\n\t}\n\tsl_unlock_all(&held);\n\trcu_read_unlock();\n"
     "\tif (!ret) {\n\t\tsl_erase(list, old);\n"
     "\t\tsl_insert_slot(list, new, GFP_ATOMIC);\n\t}\n",
     "unit", "replace_resized_race test: a reader finds neither slot"),
    ("raise-clears-busy", "skiplist/gap.c",
     "\t\tif (old & SL_GAP_BUSY)\n\t\t\tnew |= SL_GAP_FLAGS;\n", "",
     "unit", "gap_generation_wrap test: a second tightening's BUSY word equal to a stalled one's"),
    ("erase-keeps-recent-entry", "extent/range_alloc.c",
     "\tif (ra->cache)\n\t\tsl_range_forget(ra, range);\n", "",
     "unit", "range_recent test: a free reading a range erased and freed"),
    ("cache-hands-out-reclaimed", "extent/range_alloc.c",
     "\t\t    cmpxchg(&range->state, SL_RANGE_CACHED,\n\t\t\t    SL_RANGE_NEW) == SL_RANGE_CACHED)",
     "\t\t    xchg(&range->state, SL_RANGE_NEW) != SL_RANGE_LIVE)",
     "unit", "range_cache test: a reclaimed range handed out over a reservation"),
    ("destroy-leaks-reclaimed", "extent/range_alloc.c",
     "\t\t\t\tif (cache->ranges[i][n]->state == SL_RANGE_ORPHANED)",
     "\t\t\t\tif (cache->ranges[i][n]->state == SL_RANGE_ABANDONED)",
     "unit", "range_cache test: a reclaimed range left on its stack at destroy"),
    ("directory-bucket-starts-late", "skiplist/directory.c",
     "\t\twhile (i + 1 < dir->nr && dir->entry[i + 1].lo <= first)",
     "\t\twhile (i + 1 < dir->nr && dir->entry[i].lo <= first)",
     "unit", "sl_check in the directory tests: a bucket starting past its first key's entry"),
    ("directory-bucket-too-narrow", "skiplist/leaf.h",
     "\tfor (n = dir->bucket[b + 1] - base + 1; n > 1; n -= n / 2) {",
     "\tfor (n = dir->bucket[b + 1] - base; n > 1; n -= n / 2) {",
     "unit", "directory tests: a search that never reaches its bucket's last entry"),
    ("tower-unpadded", "skiplist/leaf.h",
     "\treturn links + ((SL_HEADER_OFFSET - links) & (SL_LEAF_ALIGN - 1));",
     "\treturn links;",
     "unit", "sl_check in the unit tests: a header out of place in its cache line"),
    ("leaf-search-ignores-guess", "skiplist/search.c",
     "\tif (hi == ULONG_MAX)\n\t\treturn -1;",
     "\tif (hi)\n\t\treturn -1;",
     "unit", "lookup_guess test: evenly spaced keys cost a binary search's loads"),
    ("directory-hop-follows-dead-next", "skiplist/search.c",
     "\t\tif (!READ_ONCE(leaf->dead)) {\n\t\t\tleaf = rcu_dereference(leaf->next);",
     "\t\tif (1) {\n\t\t\tleaf = rcu_dereference(leaf->next);",
     "unit", "dead_hop_directory test: ASan use-after-free of a leaf freed under a reader"),
    ("tower-walk-follows-dead-next", "skiplist/search.c",
     "\t\tif (READ_ONCE(leaf->dead)) {\n\t\t\taim = leaf->lo - 1;\n\t\t\tgoto again;\n\t\t}\n", "",
     "unit", "dead_hop_tower test: ASan use-after-free of a leaf freed under a reader"),
    ("unlink-with-interrupts-on", "skiplist/tower.c",
     "\tlockdep_assert_irqs_disabled();\n\tfor (level = READ_ONCE(leaf->linked) - 1; level > 0; level--)\n"
     "\t\twhile (!sl_unlink_level(list, leaf, level))\n\t\t\tcpu_relax();\n\tlocal_irq_restore(flags);\n",
     "\tlockdep_assert_irqs_disabled();\n\tlocal_irq_restore(flags);\n"
     "\tfor (level = READ_ONCE(leaf->linked) - 1; level > 0; level--)\n"
     "\t\twhile (!sl_unlink_level(list, leaf, level))\n\t\t\tcpu_relax();\n",
     "unit", "nesting_link test: an interrupt taken before the unlink spins on the dead leaf"),
    ("delete-unlocks-with-interrupts-on", "skiplist/delete.c",
     "\t\tflags = sl_unlock_all_irqs_off(&held);\n",
     "\t\tflags = held.flags;\n\t\tsl_unlock_all(&held);\n",
     "unit", "lockdep_assert_irqs_disabled() in sl_tower_unlink()"),
    ("rebuild-frees-dying-leaf-early", "skiplist/directory.c",
     "\tif (!building) {\n\t\tsl_leaf_free_rcu(leaf);\n\t\treturn;\n\t}",
     "\tif (1) {\n\t\tsl_leaf_free_rcu(leaf);\n\t\treturn;\n\t}",
     "unit", "directory_chunks test: the sweep reads a leaf freed between two chunks (AddressSanitizer)"),
    ("rebuild-end-strands-dying-leaf", "skiplist/directory.c",
     "\tif (!READ_ONCE(list->dir_building))\n\t\tqueue_work(system_unbound_wq, &list->dir_work);\n",
     "",
     "unit", "directory_straggler test: a leaf queued after the rebuild emptied its queue stays there"),
    ("stats-recounts-resumed-leaf", "skiplist/list.c",
     "\t\tfor (i = nr; i > 0 && READ_ONCE(leaf->keys[i - 1]) >= key; i--)\n\t\t\t;",
     "\t\ti = 0;",
     "unit", "stats_chunks test: the slots below the resumption counted twice"),
    ("directory-not-charged", "skiplist/directory.c",
     "\tif ((gfp & __GFP_ACCOUNT) && in_task())", "\tif (0)",
     "unit", "directory_memcg test: the directory charged to the worker, not the creator"),
    ("pred-stops-at-twin-fence", "skiplist/tower.c",
     "\t\t\t    (next->lo == lo && !(target && l == (int)level)))",
     "\t\t\t    next->lo == lo)",
     "unit", "twin_fence test: a killer never finds a dead leaf behind a live one with its fence"),
    ("recent-ignores-size", "extent/range_alloc.c",
     "\tif (!range || range->slot.key != start || range->slot.size != size)",
     "\tif (!range || range->slot.key != start)",
     "unit", "range_recent test: a free of the wrong size through the table"),
    ("drop-in-one-step", "extent/extent_map.c",
     "\t\tif (++n > SL_EM_BATCH)\n\t\t\treturn low;",
     "\t\tif (++n > SL_EM_BATCH)\n\t\t\treturn start;",
     "unit", "em_drop_steps test: a punch of 4 SL_EM_BATCH + 3 extents made in one write section"),
    ("check-walks-unbounded", "extent/extent_map.c",
     "\tfor (n = 0; n < SL_EM_BATCH && !ret; n++) {",
     "\tfor (n = 0; !ret; n++) {",
     "unit", "em_check_steps test: the whole map walked in one read-side section"),
    ("count-misses-punch", "extent/extent_map.c",
     "\t\tatomic_long_dec(&em->nr);\n\t\tsl_extent_free_rcu(sl_extent_of(slot));",
     "\t\tsl_extent_free_rcu(sl_extent_of(slot));",
     "unit", "extent tests: sl_em_count() after a punch"),
    ("stats-walks-unbounded", "extent/range_alloc.c",
     "\t\tfor (n = 0; n < SL_RANGE_BATCH && !done; n++) {",
     "\t\tfor (n = 0; !done; n++) {",
     "unit", "range_stats_steps test: every range walked in one read-side section"),
    ("reclaim-never-reschedules", "extent/range_alloc.c",
     "\t\t\tif (gfpflags_allow_blocking(gfp))\n\t\t\t\tcond_resched();\n\t\t}\n\t}\n\treturn reclaimed;",
     "\t\t}\n\t}\n\treturn reclaimed;",
     "unit", "range_reclaim_steps test: no chance to reschedule between batches"),
    ("reclaim-reschedules-atomic", "extent/range_alloc.c",
     "\t\t\tif (gfpflags_allow_blocking(gfp))\n\t\t\t\tcond_resched();\n\t\t}\n\t}\n\treturn reclaimed;",
     "\t\t\tcond_resched();\n\t\t}\n\t}\n\treturn reclaimed;",
     "unit", "range_reclaim_steps test: cond_resched() from a GFP_ATOMIC caller inside rcu_read_lock()"),
    ("free-lookup-irqs-off", "extent/range_alloc.c",
     "\trange = sl_range_claim_recent(cache, start, size);\n\tif (range) {",
     "\trange = sl_range_claim_recent(cache, start, size);\n\tif (!range)\n"
     "\t\tsl_range_claim_indexed(ra, start, size, &range);\n\tif (range) {",
     "unit", "range_free_lookup test: the index searched under the local lock"),
    ("init-ignores-gfp", "extent/range_alloc.c",
     "\tsh->bits = kvcalloc(BITS_TO_LONGS(span), sizeof(long), gfp);",
     "\tsh->bits = kvcalloc(BITS_TO_LONGS(span), sizeof(long), GFP_KERNEL);",
     "unit", "range_account test: the shadow bitmap not charged to the caller"),
    # Debugfs and tracepoints (skiplist/debugfs.c, trace/events/skiplist.h).
    ("destroy-leaves-list-in-debugfs", "skiplist/list.c",
     "\tsl_debugfs_remove(list);\n\tsl_dir_destroy(list);\n",
     "\tsl_dir_destroy(list);\n",
     "unit", "debugfs_retry and debugfs_read_vs_destroy tests: a list left in debugfs after sl_destroy()"),
    ("range-destroy-leaves-alloc-in-debugfs", "extent/range_alloc.c",
     "\tsl_range_debugfs_remove(ra);\n\t/*\n\t * Reclaimed",
     "\t/*\n\t * Reclaimed",
     "unit", "range_debugfs_read_vs_destroy test: the ranges freed under a stalled alloc read"),
    ("insert-event-tested-twice", "skiplist/insert.c",
     "\tif (traced)\n\t\ttrace_sl_insert(",
     "\tif (trace_sl_insert_enabled())\n\t\ttrace_sl_insert(",
     "unit", "trace_enabled_midway test: an insert timed from 0 by an event enabled mid-call"),
]

# The store's compaction (lsm/): tests named "lsm:PROGRAM" run a program
# of tools/testing/lsm, built there with the mutant.
MUTANTS += [
    ("merge-frees-inputs-at-edit", "lsm/store_work.c",
     "\t\tfor (i = 0; i < mj->nr_in; i++)\n\t\t\tmj->in[i]->release = true;\n\t\tspin_unlock(&st->layers_lock);\n",
     "\t\tspin_unlock(&st->layers_lock);\n\t\tmutex_lock(&st->manifest_mutex);\n"
     "\t\tfor (i = 0; i < mj->nr_in; i++) {\n"
     "\t\t\tlsm_space_free(&st->space, mj->in[i]->info.first_block, mj->in[i]->info.nr_blocks);\n"
     "\t\t\tst->unreleased -= mj->in[i]->info.nr_blocks;\n\t\t}\n"
     "\t\tmutex_unlock(&st->manifest_mutex);\n",
     "lsm:compact", "reader-holds-dropped-runs test: the dropped runs' space free while a reader holds them"),
    ("merge-drops-every-punch", "lsm/store_work.c",
     "\treturn lsm_compact_below(&mj->shape, mj->job.to, first, last);",
     "\treturn false;",
     "lsm:store", "differential test: a punched key shows its older value again"),
    ("merge-oldest-level-wins", "lsm/merge.c",
     "\t\t\tif (c->start <= mg->pos) {\n\t\t\t\tbest = c;\n\t\t\t\tbreak;\n\t\t\t}",
     "\t\t\tif (c->start <= mg->pos) {\n\t\t\t\tbest = c;\n\t\t\t\tcontinue;\n\t\t\t}",
     "lsm:store", "differential test: an older value wins a merge"),
    ("level0-moved-while-overlapping", "lsm/compact.c",
     "\tjob->move = apart && !job->to_nr;",
     "\tjob->move = !job->to_nr;",
     "lsm:store", "layer set check: runs of a level overlapping"),
    ("flush-keeps-memtable-slice", "lsm/store_work.c",
     "\tls->lv[0]--;\n", "",
     "lsm:store", "layer set check: slices do not add up"),
    ("manifest-writes-after-failed-edit", "lsm/manifest.c",
     "\tif (m->failed)\n\t\treturn -EIO;\n\t/*\n\t * A roll-over's extent",
     "\t/*\n\t * A roll-over's extent",
     "lsm:manifest", "failed-edit-latches test: a commit after a failed edit reaches the device"),
    ("store-fails-after-unlock", "lsm/store.c",
     "\tif (err)\n\t\tlsm_store_fail(st, err);\n\tmutex_unlock(&st->write_mutex);\n\tif (err) {\n"
     "\t\tlsm_window(st, LSM_WIN_APPLY_FAILED);\n",
     "\tmutex_unlock(&st->write_mutex);\n\tif (err) {\n"
     "\t\tlsm_window(st, LSM_WIN_APPLY_FAILED);\n\t\tlsm_store_fail(st, err);\n",
     "lsm:fail_order", "half-applied-write test: a flush records half a write"),
    ("segment-after-failure", "lsm/store.c",
     "\terr = READ_ONCE(st->error) ? -EIO :\n\t      lsm_space_alloc(&st->space, seg.nr, &seg.start);",
     "\terr = lsm_space_alloc(&st->space, seg.nr, &seg.start);",
     "lsm:fail_order", "segment-after-failed-sync test: a failed store records a log segment"),
    ("segment-beside-flush", "lsm/store.c",
     "\twait_event(st->commit_wait, !READ_ONCE(st->log_flush_out));\n",
     "",
     "lsm:fail_order", "segment-beside-flush test: a segment recorded while a flush of the log is out"),
    ("sync-beside-failed-edit", "lsm/store.c",
     "\t\tif (st->m.failed)\n\t\t\terr = -EIO;\n",
     "",
     "lsm:fail_order", "sync-after-failed-edit test: a sync acknowledged after a manifest PREFLUSH failed"),
]

# Races show up far more often with 4 keys per leaf, where nearly every
# insert splits a leaf and every delete merges one: the mutants that only
# a race can reveal run against that build.
RUNS = {
    "unit": ["{b}/unit"],
    "gap_arith": ["{b}/gap_arith"],
    "diff": ["{b}/diff", "--ops", "1500000", "--seed", "7"],
    "diff-k4": ["{b}/diff-k4", "--ops", "1500000", "--seed", "7"],
    "stress": ["{b}/stress", "--seconds", "24", "--phases", "4", "--seed", "7"],
    "stress-k4": ["{b}/stress-k4", "--seconds", "24", "--phases", "4", "--seed", "7"],
    # A lapse that only a split landing between a reader's descent and its
    # snapshot reveals: many readers on few, crowded leaves.
    "stress-race": ["{b}/stress-k4", "--seconds", "40", "--phases", "8", "--seed", "7",
                    "--readers", "6", "--cells", "1024"],
    "lsm:compact": ["{b}/test_compact", "--seed", "7"],
    "lsm:store": ["{b}/test_store", "--seed", "7", "--ops", "3000", "--random", "20"],
    "lsm:manifest": ["{b}/test_manifest", "--seed", "7"],
    "lsm:fail_order": ["{b}/test_fail_order", "--seed", "7"],
}
TIMEOUT = {"unit": 120, "gap_arith": 300, "diff": 300, "diff-k4": 300, "stress": 200, "stress-k4": 200, "stress-race": 300,
           "lsm:compact": 120, "lsm:store": 300, "lsm:manifest": 120, "lsm:fail_order": 120}


def copy_tree(dst):
    shutil.copytree(os.path.join(TOP, "skiplist"), os.path.join(dst, "skiplist"))
    shutil.copytree(os.path.join(TOP, "extent"), os.path.join(dst, "extent"))
    shutil.copytree(os.path.join(TOP, "lsm"), os.path.join(dst, "lsm"))
    for d in ("skiplist", "lsm"):
        shutil.copytree(os.path.join(TOP, "tools", "testing", d),
                        os.path.join(dst, "tools", "testing", d),
                        ignore=shutil.ignore_patterns("*.o"))


def test_dir(test):
    """The test directory that builds a test's program."""
    return "lsm" if test.startswith("lsm:") else "skiplist"


def run_mutant(name, path, old, new, test, catcher, work, objs):
    tree = os.path.join(work, name)
    copy_tree(tree)
    target = os.path.join(tree, path)
    src = open(target).read()
    if src.count(old) != 1:
        print(f"mutants: {name}: target text not found once in {path}; update the mutant")
        return False
    open(target, "w").write(src.replace(old, new))
    build = os.path.join(tree, "build")
    # Reuse the unmutated objects; make rebuilds only what the mutant touched.
    shutil.copytree(objs[test_dir(test)], build)
    now = time.time()
    for root, _, files in os.walk(build):
        for f in files:
            os.utime(os.path.join(root, f), (now - 60, now - 60))
    binary = RUNS[test][0].format(b=build)
    mk = subprocess.run(["make", "-s", "-C", os.path.join(tree, "tools", "testing", test_dir(test)),
                         f"BUILD={build}", binary],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if mk.returncode:
        print(f"mutants: {name}: does not build:\n{mk.stdout[-2000:]}")
        return False
    cmd = [c.format(b=build) for c in RUNS[test]]
    t0 = time.time()
    try:
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=TIMEOUT[test])
        code, out = res.returncode, res.stdout
    except subprocess.TimeoutExpired as e:
        code, out = "timeout", (e.stdout or b"").decode(errors="replace")
    took = time.time() - t0
    if code == 0:
        print(f"mutants: {name}: SURVIVED {test} ({took:.0f} s): the tests missed it")
        return False
    lines = [l for l in out.splitlines() if any(w in l for w in
             ("FATAL", "FAIL", "ERROR", "NOT linearizable", "expected", "check failed", "AddressSanitizer"))]
    why = lines[0].strip()[:150] if lines else f"exit {code}"
    print(f"mutants: {name}: caught by {test} in {took:.0f} s ({catcher}): {why}")
    return True


def main():
    want = set(sys.argv[1:])
    work = tempfile.mkdtemp(prefix="sl-mutants-")
    ok = True
    try:
        # Build the clean objects once, in a clean copy.
        clean = os.path.join(work, "clean")
        copy_tree(clean)
        objs = {}
        for d in sorted({test_dir(m[4]) for m in MUTANTS if not want or m[0] in want}):
            objs[d] = os.path.join(clean, "build-" + d)
            mk = subprocess.run(["make", "-s", "-j2", "-C", os.path.join(clean, "tools", "testing", d),
                                 f"BUILD={objs[d]}", "all"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if mk.returncode:
                print(mk.stdout[-3000:])
                return 1
        for m in MUTANTS:
            if want and m[0] not in want:
                continue
            ok &= run_mutant(*m, work, objs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("mutants: every mutant caught" if ok else "mutants: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
