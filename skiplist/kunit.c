// SPDX-License-Identifier: GPL-2.0
/*
 * The tests of test_skiplist.c as a KUnit suite, "skiplist": one
 * parameterised case whose parameters are the tests, so each reports its
 * own KTAP result.  Built for kernels with CONFIG_KUNIT (the debug kernels
 * of tools/debug-kernel); Debian's kernels have no KUnit, and there
 * test_skiplist.ko runs the same tests at load time.
 */
#include <kunit/test.h>

static struct kunit *sl_kunit_current;

/* A failed expectation fails the running case, with the expression. */
#define SL_TEST_REPORT(func, line, cond)				\
	KUNIT_FAIL(sl_kunit_current, "%s:%d: expected %s", func, line, cond)
#define SL_TEST_KUNIT
#define SL_TEST_ROUNDS_DIV	5
#include "test_skiplist.c"

static void sl_kunit_describe(const struct sl_test_case *tc, char *desc)
{
	strscpy(desc, tc->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sl_kunit, sl_test_cases, sl_kunit_describe);

static void sl_kunit_run(struct kunit *test)
{
	const struct sl_test_case *tc = test->param_value;

	sl_kunit_current = test;
	tc->run();
	/* The frees the test queued run before the next test starts. */
	rcu_barrier();
}

static struct kunit_case sl_kunit_cases[] = {
	KUNIT_CASE_PARAM(sl_kunit_run, sl_kunit_gen_params),
	{}
};

static struct kunit_suite sl_kunit_suite = {
	.name = "skiplist",
	.test_cases = sl_kunit_cases,
};

kunit_test_suite(sl_kunit_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit suite for the RCU skiplist range index");
MODULE_AUTHOR("Seed 86df1db9 maintainers <maintainers@users.noreply.a-seed-86df1db9.example>");
MODULE_VERSION(SL_VERSION);
