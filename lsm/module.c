// SPDX-License-Identifier: GPL-2.0
/*
 * sl_lsm.ko: the extent store (Documentation/lsm.rst) in the kernel, on
 * block devices that userspace attaches through /dev/sl_lsm (dev.c).
 * This file is the module: its parameters, which are the defaults of
 * every attach that does not choose for itself, and its load and unload.
 *
 * Every attached store holds a reference to the module, so rmmod is
 * refused until each is detached.
 *
 * The block checksums use crc32c() from libcrc32c, a module of its own in
 * Debian's 6.1 and 6.12 kernels (CONFIG_LIBCRC32C=m): the symbol makes it
 * a dependency that modinfo lists and modprobe loads first; a script that
 * uses insmod runs "modprobe libcrc32c" before it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include "block_cache.h"
#include "dev.h"
#include "uapi/sl_lsm_dev.h"

static unsigned long long memtable_bytes = 64ULL << 20;
module_param(memtable_bytes, ullong, 0644);
MODULE_PARM_DESC(memtable_bytes,
		 "A memtable this full is written out as a run (default 64 MiB)");

static unsigned int max_immutables = 2;
module_param(max_immutables, uint, 0644);
MODULE_PARM_DESC(max_immutables,
		 "Writers stall while this many full memtables wait to be written (default 2)");

static unsigned int commit_interval_ms = 5000;
module_param(commit_interval_ms, uint, 0644);
MODULE_PARM_DESC(commit_interval_ms,
		 "A write without SYNC is durable within this many milliseconds (default 5000, as ext4's commit=5)");

static unsigned int l0_compact_runs = 4;
module_param(l0_compact_runs, uint, 0644);
MODULE_PARM_DESC(l0_compact_runs,
		 "Runs in level 0 that start their merge into the level below (default 4)");

static unsigned int l0_slowdown_runs = 8;
module_param(l0_slowdown_runs, uint, 0644);
MODULE_PARM_DESC(l0_slowdown_runs,
		 "Runs in level 0 at which writers are slowed to slowdown_mb_per_sec (default 8)");

static unsigned int l0_stop_runs = 12;
module_param(l0_stop_runs, uint, 0644);
MODULE_PARM_DESC(l0_stop_runs,
		 "Runs in level 0 at which writers stop until a merge ends (default 12; at least l0_compact_runs)");

static unsigned int pending_slowdown_mb;
module_param(pending_slowdown_mb, uint, 0644);
MODULE_PARM_DESC(pending_slowdown_mb,
		 "Estimated merge backlog (MiB) at which writers are slowed (default 0: 256 times the base level's size)");

static unsigned int pending_stop_mb;
module_param(pending_stop_mb, uint, 0644);
MODULE_PARM_DESC(pending_stop_mb,
		 "Estimated merge backlog (MiB) at which writers stop (default 0: 1024 times the base level's size)");

static unsigned int slowdown_mb_per_sec = 16;
module_param(slowdown_mb_per_sec, uint, 0644);
MODULE_PARM_DESC(slowdown_mb_per_sec,
		 "The write rate (MiB/s) slowed writers are held to (default 16)");

static unsigned int run_kb;
module_param(run_kb, uint, 0644);
MODULE_PARM_DESC(run_kb,
		 "Size (KiB) of the runs a merge writes (default 0: the memtable's size, at most 16 MiB)");

static unsigned int block_cache_mb = LSM_BLOCK_CACHE_DEFAULT >> 20;
module_param(block_cache_mb, uint, 0644);
MODULE_PARM_DESC(block_cache_mb,
		 "MiB of run blocks each attached store keeps in memory, given back under memory pressure (default 8, as RocksDB's block cache; 0: the default)");

/**
 * lsm_module_options() - the options of an attach that sets none itself
 * @opt: filled in from the module parameters as they are now
 *
 * A parameter out of the range an attach may ask for falls back to the
 * store's own default (0), with a line in the log, rather than failing
 * every attach.
 *
 * Context: any.
 */
void lsm_module_options(struct lsm_options *opt)
{
	u64 mt = READ_ONCE(memtable_bytes);
	u32 imm = READ_ONCE(max_immutables);
	u32 ms = READ_ONCE(commit_interval_ms);
	u64 cache = (u64)READ_ONCE(block_cache_mb) << 20;

	memset(opt, 0, sizeof(*opt));
	if (mt < SL_LSM_MEMTABLE_MIN || mt > SL_LSM_MEMTABLE_MAX)
		pr_warn_ratelimited("memtable_bytes=%llu outside [%llu, %llu]: using the default\n",
				    mt, SL_LSM_MEMTABLE_MIN, SL_LSM_MEMTABLE_MAX);
	else
		opt->memtable_bytes = mt;
	if (imm > SL_LSM_IMMUTABLES_MAX)
		pr_warn_ratelimited("max_immutables=%u above %u: using the default\n",
				    imm, SL_LSM_IMMUTABLES_MAX);
	else
		opt->max_immutables = imm;
	if (ms > SL_LSM_COMMIT_MS_MAX)
		pr_warn_ratelimited("commit_interval_ms=%u above %u: using the default\n",
				    ms, SL_LSM_COMMIT_MS_MAX);
	else
		opt->commit_interval_ms = ms;
	/*
	 * The store keeps l0_stop_runs at least l0_compact_runs, so that
	 * writers never wait for a merge that cannot start.
	 */
	opt->l0_compact_runs = READ_ONCE(l0_compact_runs);
	opt->l0_slowdown_runs = READ_ONCE(l0_slowdown_runs);
	opt->l0_stop_runs = READ_ONCE(l0_stop_runs);
	opt->pending_slowdown_bytes = (u64)READ_ONCE(pending_slowdown_mb) << 20;
	opt->pending_stop_bytes = (u64)READ_ONCE(pending_stop_mb) << 20;
	opt->slowdown_bytes_per_sec = (u64)READ_ONCE(slowdown_mb_per_sec) << 20;
	opt->run_bytes = (u64)READ_ONCE(run_kb) << 10;
	if (cache > LSM_BLOCK_CACHE_MAX)
		pr_warn_ratelimited("block_cache_mb=%llu above %llu: using the default\n",
				    cache >> 20, LSM_BLOCK_CACHE_MAX >> 20);
	else
		opt->block_cache_bytes = cache;
}

static struct dentry *lsm_debugfs_root;

static int __init lsm_module_init(void)
{
	int ret;

	/* NULL or an error pointer if debugfs is off: the counters are extra. */
	lsm_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	ret = lsm_dev_register(lsm_debugfs_root);
	if (ret)
		debugfs_remove_recursive(lsm_debugfs_root);
	return ret;
}

static void __exit lsm_module_exit(void)
{
	lsm_dev_unregister();
	debugfs_remove_recursive(lsm_debugfs_root);
}

module_init(lsm_module_init);
module_exit(lsm_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sl_lsm: a crash-safe extent store on a block device (/dev/sl_lsm)");
MODULE_AUTHOR("Seed 86df1db9 maintainers <maintainers@users.noreply.a-seed-86df1db9.example>");
MODULE_VERSION(SL_VERSION);
