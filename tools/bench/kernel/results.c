// SPDX-License-Identifier: GPL-2.0
/*
 * Result lines: each goes to the kernel log and into a buffer that
 * /sys/kernel/debug/sl_bench/results shows while the module is loaded, so
 * that a script can read the whole run without parsing the log (which
 * may have wrapped).  One line per result:
 *
 *   sl_bench: result workload=W impl=I items=N threads=T ops=O ns=NS
 *             ops_per_sec=R rounds=K min=R1 max=R2 errors=E misses=M
 *             [workload-specific fields]
 *
 * (on one line).  ops, ns and ops_per_sec are the median round's (ns: its
 * longest thread's timed part); min and max the slowest and fastest
 * rounds' ops_per_sec; errors those of all rounds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/printk.h>
#include "bench.h"

static char *bench_buf;
static size_t bench_buf_size, bench_buf_len;
static bool bench_truncated;
static struct dentry *bench_dir;
static DEFINE_MUTEX(bench_buf_lock);	/* guards the buffer while it grows */

static ssize_t bench_results_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&bench_buf_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, bench_buf,
				      bench_buf_len);
	mutex_unlock(&bench_buf_lock);
	return ret;
}

static const struct file_operations bench_results_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = bench_results_read,
	.llseek = default_llseek,
};

/**
 * bench_results_init() - set up the buffer and the debugfs file
 * @lines: how many result lines to make room for
 *
 * Without debugfs the lines still go to the kernel log.
 *
 * Return: 0 or -ENOMEM.
 */
int bench_results_init(size_t lines)
{
	bench_buf_size = (lines + 8) * BENCH_LINE_MAX;
	bench_buf = kvzalloc(bench_buf_size, GFP_KERNEL);
	if (!bench_buf)
		return -ENOMEM;
	bench_buf_len = 0;
	bench_truncated = false;
	bench_dir = debugfs_create_dir("sl_bench", NULL);
	debugfs_create_file("results", 0444, bench_dir, NULL,
			    &bench_results_fops);
	return 0;
}

void bench_results_exit(void)
{
	debugfs_remove_recursive(bench_dir);
	kvfree(bench_buf);
	bench_buf = NULL;
}

static __printf(1, 0) void bench_vline(const char *fmt, va_list args)
{
	char line[BENCH_LINE_MAX];
	size_t len;

	len = vscnprintf(line, sizeof(line) - 1, fmt, args);
	line[len++] = '\n';
	line[len] = '\0';
	pr_info("%s", line);
	mutex_lock(&bench_buf_lock);
	if (bench_buf_len + len < bench_buf_size) {
		memcpy(bench_buf + bench_buf_len, line, len + 1);
		bench_buf_len += len;
	} else if (!bench_truncated) {
		bench_truncated = true;
		pr_err("results buffer full: later lines only in the kernel log\n");
	}
	mutex_unlock(&bench_buf_lock);
}

/**
 * bench_result_line() - a free-form line (machine, progress) for the log
 * and the results file
 * @fmt: printf format, without the newline
 */
void bench_result_line(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	bench_vline(fmt, args);
	va_end(args);
}
