// SPDX-License-Identifier: GPL-2.0
/*
 * The arithmetic of gap bounds (skiplist/gap.c), checked against models
 * that do not share it.  sl_check() recounts bounds with the same helpers
 * as the searches, so a helper that computes a bound too low passes it;
 * only a search that misses a fit, or this program, can tell.
 *
 *  - Every free run [first, last] with last < N (default 48): its bound
 *    (sl_gap_run()) must be exact against a unit-by-unit model, and for
 *    every size up to N and alignment up to 2N, a request that fits in the
 *    run must not be pruned by the bound, nor by its join with another.
 *    sl_gap_start() must return the model's lowest start for every window
 *    [from, room] around the run (sizes up to 24, alignments up to 32).
 *  - Every run in the last 96 units of the space, and every pair of values
 *    2^a - 2 .. 2^a + 2: the bound against a closed-form model, and the
 *    prune against fits of a few sizes at every alignment.
 *  - The raise of the run owned by ULONG_MAX holds both runs it may be.
 *
 * Built against the harness's shims with gap.c included, to reach its
 * static helpers.  Exits non-zero on the first 20 failures.
 */
#include "../../../skiplist/gap.c"
#include <stdio.h>
#include <stdlib.h>
#include <linux/bitmap.h>	/* BITS_PER_LONG */

static unsigned long failures, checked;

#define FAIL(...) do {							\
	if (failures++ < 20)						\
		printf("gap_arith: " __VA_ARGS__);			\
} while (0)

static struct sl_gap_req request(unsigned long size, unsigned int k)
{
	struct sl_gap_req req = {
		.from = 0, .room = ULONG_MAX, .size = size, .align = 1UL << k,
		.align_log = k, .block_log = min(k, (unsigned int)ilog2(size)),
	};

	return req;
}

/* Unit by unit: the most aligned free unit and the largest aligned block. */
static void model_run(unsigned long first, unsigned long last,
		      unsigned int *align, unsigned int *block)
{
	unsigned long x;
	unsigned int a, b;

	*align = 0;
	*block = 0;
	for (x = first; ; x++) {
		a = x ? __builtin_ctzl(x) : SL_GAP_LOG_MAX;
		*align = max(*align, a);
		for (b = 0; b <= a && b < SL_GAP_LOG_MAX; b++)
			if (x + (1UL << b) - 1 <= last)
				*block = max(*block, b);
		if (x == last)
			break;
	}
}

/* Unit by unit: the lowest aligned start in the run and the window. */
static bool model_fit(unsigned long first, unsigned long last,
		      unsigned long size, unsigned long align,
		      unsigned long from, unsigned long room, unsigned long *at)
{
	unsigned long s;

	for (s = first; ; s++) {
		if (!(s % align) && s >= from && s + size - 1 >= s &&
		    s + size - 1 <= last && s + size - 1 <= room) {
			*at = s;
			return true;
		}
		if (s == last)
			return false;
	}
}

static void check_small(unsigned long n)
{
	unsigned long first, last, size, from, room, at, start;
	unsigned long other = sl_gap_run(n + 3, n + 3);
	unsigned int k, align, block;

	for (first = 0; first < n; first++) {
		for (last = first; last < n; last++) {
			unsigned long bound = sl_gap_run(first, last);

			model_run(first, last, &align, &block);
			checked++;
			if (sl_gap_size(bound) != last - first + 1 ||
			    sl_gap_align_log(bound) != align ||
			    sl_gap_block_log(bound) != block ||
			    (bound & (SL_GAP_FLAGS | SL_GAP_SPARE)))
				FAIL("run [%lu, %lu]: bound %lx, model size %lu align %u block %u\n",
				     first, last, bound, last - first + 1,
				     align, block);
			for (size = 1; size <= n; size++) {
				for (k = 0; (1UL << k) <= 2 * n; k++) {
					struct sl_gap_req req = request(size, k);
					bool fit = model_fit(first, last, size,
							     1UL << k, 0,
							     ULONG_MAX, &at);

					if (fit && (!sl_gap_may_fit(bound, &req) ||
						    !sl_gap_may_fit(sl_gap_join(bound, other),
								    &req)))
						FAIL("run [%lu, %lu] pruned for %lu units aligned to 2^%u, which fit at %lu\n",
						     first, last, size, k, at);
					if (size > 24 || k > 5)
						continue;
					for (from = first > 3 ? first - 3 : 0;
					     from <= last + 1; from++) {
						for (room = from; room <= last + 3;
						     room++) {
							bool got;

							fit = model_fit(first, last, size,
									1UL << k, from,
									room, &at);
							req.from = from;
							req.room = room;
							got = sl_gap_start(&req, first,
									   last, &start);
							if (got != fit ||
							    (got && start != at))
								FAIL("start in [%lu, %lu], %lu units aligned to 2^%u, window [%lu, %lu]: %d at %lu, model %d at %lu\n",
								     first, last, size,
								     k, from, room,
								     got, start, fit, at);
						}
					}
				}
			}
		}
	}
}

/* Closed form: the highest power of two with a multiple in [f, l]. */
static unsigned int closed_align(unsigned long f, unsigned long l)
{
	int a;

	if (!f)
		return SL_GAP_LOG_MAX;
	for (a = BITS_PER_LONG - 1; a > 0; a--) {
		unsigned long s = 1UL << a, up = (f + s - 1) & ~(s - 1);

		if (up >= f && up <= l)
			return a;
	}
	return 0;
}

/* Closed form: the largest aligned block of 2^b units in [f, l]. */
static unsigned int closed_block(unsigned long f, unsigned long l)
{
	int b;

	for (b = BITS_PER_LONG - 1; b > 0; b--) {
		unsigned long s = 1UL << b, up = (f + s - 1) & ~(s - 1);

		if (up >= f && up <= l && l - up >= s - 1)
			return b;
	}
	return 0;
}

static void check_large_run(unsigned long f, unsigned long l)
{
	unsigned long bound = sl_gap_run(f, l), len = l - f + 1;
	unsigned int k, i;

	checked++;
	if (sl_gap_size(bound) != (len ? min(len, SL_GAP_MAX) : SL_GAP_MAX) ||
	    sl_gap_align_log(bound) != closed_align(f, l) ||
	    sl_gap_block_log(bound) != closed_block(f, l))
		FAIL("run [%lx, %lx]: bound %lx, closed form align %u block %u\n",
		     f, l, bound, closed_align(f, l), closed_block(f, l));
	for (k = 0; k < BITS_PER_LONG; k++) {
		unsigned long s = 1UL << k, up = (f + s - 1) & ~(s - 1);
		unsigned long sizes[] = {
			1, 2, 3, s, s + 1, len, len - 1, 1UL << 47,
			(1UL << 48) + 7, ULONG_MAX / 3,
		};

		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			struct sl_gap_req req;

			if (!sizes[i])
				continue;
			req = request(sizes[i], k);
			if (up >= f && up <= l && l - up >= sizes[i] - 1 &&
			    !sl_gap_may_fit(bound, &req))
				FAIL("run [%lx, %lx] pruned for %lx units aligned to 2^%u\n",
				     f, l, sizes[i], k);
		}
	}
}

static void check_large(void)
{
	unsigned long vals[5 * BITS_PER_LONG + 3], f, l;
	unsigned int n = 0, i, j, a;
	long d;

	for (f = ULONG_MAX - 95; ; f++) {
		for (l = f; ; l++) {
			check_large_run(f, l);
			if (l == ULONG_MAX)
				break;
		}
		if (f == ULONG_MAX)
			break;
	}
	vals[n++] = 0;
	vals[n++] = ULONG_MAX - 1;
	vals[n++] = ULONG_MAX;
	for (a = 0; a < BITS_PER_LONG; a++)
		for (d = -2; d <= 2; d++)
			vals[n++] = (1UL << a) + d;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (vals[i] <= vals[j])
				check_large_run(vals[i], vals[j]);
	/*
	 * Owned by ULONG_MAX, a gap is the final free run [s, ULONG_MAX]
	 * (sl_gap_note()'s size for it) or the run [s, ULONG_MAX - 1] before a
	 * slot at ULONG_MAX (an insert's or a delete's): sl_gap_raise()'s
	 * bound must hold whichever it is.
	 */
	for (i = 0; i < n; i++) {
		unsigned long s = vals[i], key = ULONG_MAX, gap, bound;

		gap = ULONG_MAX - s + 1 ? ULONG_MAX - s + 1 : ULONG_MAX;
		bound = sl_gap_join(sl_gap_run(key - gap, key - 1),
				    sl_gap_run(key - gap + 1, key));
		if (!sl_gap_holds(bound, sl_gap_run(s, ULONG_MAX)))
			FAIL("final run from %lx not held by its raise\n", s);
		if (s == ULONG_MAX)
			continue;
		gap = key - s;
		bound = sl_gap_join(sl_gap_run(key - gap, key - 1),
				    sl_gap_run(key - gap + 1, key));
		if (!sl_gap_holds(bound, sl_gap_run(s, ULONG_MAX - 1)))
			FAIL("run from %lx before ULONG_MAX not held by its raise\n",
			     s);
	}
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 48;

	check_small(n);
	check_large();
	printf("gap_arith: %lu runs checked (exhaustive below %lu), %lu failures: %s\n",
	       checked, n, failures, failures ? "FAIL" : "PASS");
	return failures != 0;
}
