/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Linearizability checker for per-key set histories.
 *
 * A stress test records, for every operation it runs on the index, when it
 * was invoked, when it returned and what it returned.  hist_check() then
 * decides whether some sequential execution of a plain set could have
 * produced exactly those results while respecting real time.
 *
 * Operations on different keys commute, so the history of each key is
 * checked on its own (P-compositionality), against this sequential model:
 *
 *   state:  absent | present(id)               initially absent
 *   INSERT(id):  absent -> present(id), 0;     present -> unchanged, -EEXIST
 *   REMOVE:      present(id) -> absent, 0, id; absent -> -ENOENT
 *   LOOKUP:      present(id) -> 1, id;         absent -> 0
 *
 * Timestamps must come from one global counter read just before the call
 * and just after the return, so that a.ret < b.call really means that a
 * finished before b started.
 */
#ifndef _HISTORY_H
#define _HISTORY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum hist_op { H_INSERT, H_REMOVE, H_LOOKUP };

/**
 * struct hist_event - one completed operation
 * @call:   timestamp taken just before the operation was invoked
 * @ret:    timestamp taken just after it returned; call < ret.  All
 *          timestamps of a history are distinct.
 * @key:    the key operated on
 * @op:     enum hist_op
 * @result: H_INSERT: 0 or -EEXIST; H_REMOVE: 0 or -ENOENT;
 *          H_LOOKUP: 1 found, 0 not found
 * @value:  H_INSERT: unique id of the object inserted (ids never repeat);
 *          H_REMOVE with result 0: id of the object removed;
 *          H_LOOKUP found: id observed; otherwise 0 (and ignored)
 * @thread: recording thread, only used in reports
 */
struct hist_event {
	uint64_t call;
	uint64_t ret;
	unsigned long key;
	uint32_t op;
	int32_t result;
	uint64_t value;
	uint32_t thread;
};

/**
 * struct hist_initial - a key already present before the history starts
 * @key: the key
 * @id:  id of the object stored under it
 */
struct hist_initial {
	unsigned long key;
	uint64_t id;
};

/*
 * The search keeps one bit per operation in flight on a key, so a key may
 * have at most this many operations overlapping one point in time.  With
 * one operation per thread at a time this is a limit on the thread count.
 */
#define HIST_MAX_OVERLAP	63

/*
 * Check that every key's sub-history of @ev is linearizable; all keys start
 * absent.  The array may be reordered (the current implementation leaves it
 * alone).
 *
 * Returns 0 if every key passes.  Returns -1 if some key is not
 * linearizable or has a malformed event; the key with the lowest value
 * among those is then described on @report (NULL: no report), with its
 * events sorted by call.  Returns -2 if no verdict could be reached for some
 * key (more than HIST_MAX_OVERLAP overlapping operations, search space or
 * memory exhausted), also with a report; a caller wanting a yes/no answer
 * should treat any non-zero value as a failure.
 */
int hist_check(struct hist_event *ev, size_t n, FILE *report);

/*
 * As hist_check(), but the keys listed in @init (each at most once) start
 * present with the given ids.  Keys in @init that have no events are not
 * checked.
 */
int hist_check_with_initial(struct hist_event *ev, size_t n,
			    const struct hist_initial *init, size_t ninit,
			    FILE *report);

#endif /* _HISTORY_H */
