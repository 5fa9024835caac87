/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A model of the store's contents for the tests that damage its device
 * (test_corrupt, test_iofail): units [0, MODEL_UNITS) each remember the
 * write that last covered them, the values are a function of the write's
 * sequence number, so any answer of the store can be checked byte by byte
 * against the model's state after a given write; random writes (points
 * and ranges, small and large values, punches); and a check of a whole
 * store that accepts -EUCLEAN and -EIO as answers (a damaged or unreadable
 * block) but never a wrong value.
 */
#ifndef _LSM_TEST_MODEL_H
#define _LSM_TEST_MODEL_H

#include <stddef.h>
#include <linux/types.h>
#include "store.h"

#define MODEL_UNITS	300
/* Units below this take every write but large values, which go above. */
#define MODEL_WARM	250
/* A value larger than this goes to a run's value blocks. */
#define MODEL_INLINE_MAX	4000
#define MODEL_MAX_OPS	4
/* Past what a run's data block holds inline: such values go to value blocks. */
#define MODEL_BIG_VALUE	9000

struct model_unit {
	u64 seq;	/* 0: nothing visible */
	u64 key, len;
	u32 op, vlen;
};

struct model {
	struct model_unit u[MODEL_UNITS];
};

/* A write of 1 to MODEL_MAX_OPS operations, values included. */
struct model_write {
	struct lsm_op ops[MODEL_MAX_OPS];
	unsigned int n;
	u8 values[MODEL_MAX_OPS][MODEL_BIG_VALUE];
};

u8 model_value_byte(u64 seq, u32 op, u32 i);
void model_apply(struct model *m, u64 seq, const struct lsm_op *ops,
		 unsigned int n);
/* A random write that will carry sequence number @seq. */
void model_make_write(struct model_write *w, u64 seq, u64 *rng);

/* The model after every write: @snap[s] is the state after write s. */
struct model_history {
	struct model *snap;
	u64 nr;		/* writes recorded; snap[0] is the empty store */
	u64 cap;
};

void model_history_init(struct model_history *h);
/* Record write @h->nr + 1. */
void model_history_add(struct model_history *h, const struct lsm_op *ops,
		       unsigned int n);
void model_history_free(struct model_history *h);

/**
 * struct model_verdict - what a check of a store against the model saw
 * @errors:    answers that were -EUCLEAN or -EIO (allowed)
 * @euclean:   how many of them were -EUCLEAN
 * @first_err: the first of them
 * @wrong:     an answer that was neither right nor an allowed error
 * @why:       then, what it was
 */
struct model_verdict {
	unsigned int errors;
	unsigned int euclean;
	int first_err;
	bool wrong;
	char why[256];
};

/*
 * Check @st against @m: one scan of the whole key space (in calls of
 * random sizes, or with @rng NULL of 64 pieces each, so that the same
 * store is read the same way every time; after an error, scans from a few
 * later points), and a get of every unit and of a few beyond.
 */
void model_verify(struct lsm_store *st, const struct model *m, u64 *rng,
		  struct model_verdict *v);

#endif /* _LSM_TEST_MODEL_H */
