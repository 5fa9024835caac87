// SPDX-License-Identifier: GPL-2.0
/*
 * Runs skiplist/test_skiplist.c in userspace the way insmod runs it in the
 * kernel: "load" skiplist.ko and test_skiplist.ko (their module_init), then
 * unload, and fail if any test failed or anything leaked.  With fault
 * injection, which only the userspace shim offers.
 */
#define SL_TEST_FAULT_INJECTION
#include "../../../skiplist/test_skiplist.c"

int main(void)
{
	int ret;

	shim_rcu_register();
	ret = shim_modules_load();
	shim_modules_unload();
	rcu_barrier();
	if (shim_debugfs_live()) {
		fprintf(stderr, "unit: %ld debugfs entries left behind\n",
			shim_debugfs_live());
		ret = -1;
	}
	if (shim_kmalloc_live()) {
		fprintf(stderr, "unit: %ld kmalloc objects leaked\n",
			shim_kmalloc_live());
		ret = -1;
	}
	shim_rcu_unregister();
	printf("unit: %s\n", ret ? "FAIL" : "PASS");
	return ret ? 1 : 0;
}
