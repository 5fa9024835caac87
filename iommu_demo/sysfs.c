// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/block/slblkN/sl_iommu/: the device's backend and its IOMMU's
 * counters, read-only.  Documentation/iommu_demo.rst lists them.
 */
#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/sysfs.h>
#include "sl_iommu.h"

static struct slb_dev *slb_dev_of(struct device *d)
{
	return dev_to_disk(d)->private_data;
}

static ssize_t backend_show(struct device *d, struct device_attribute *attr,
			    char *buf)
{
	const struct slb_iova_ops *ops = slb_dev_of(d)->mmu.ops;

	return sysfs_emit(buf, "%s\n", ops ? ops->name : "none");
}
static DEVICE_ATTR_RO(backend);

static ssize_t debug_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%d\n", !!slb_dev_of(d)->mmu.shadow);
}
static DEVICE_ATTR_RO(debug);

/* Exact only with no I/O in flight; may run ahead of it otherwise. */
static ssize_t live_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	struct slb_iommu_counts sum;

	slb_iommu_counts(&slb_dev_of(d)->mmu, &sum);
	return sysfs_emit(buf, "%ld\n", (long)(sum.maps - sum.unmaps));
}
static DEVICE_ATTR_RO(live);

static ssize_t io_errors_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%ld\n",
			  atomic_long_read(&slb_dev_of(d)->io_errors));
}
static DEVICE_ATTR_RO(io_errors);

/*
 * A counter of the device's IOMMU: per-CPU ones by their offset in struct
 * slb_iommu_counts, atomic ones by their offset in struct slb_iommu.
 */
struct slb_counter {
	struct device_attribute attr;
	size_t offset;
	bool per_cpu;
};

static ssize_t slb_counter_show(struct device *d,
				struct device_attribute *attr, char *buf)
{
	struct slb_counter *c = container_of(attr, struct slb_counter, attr);
	struct slb_iommu *mmu = &slb_dev_of(d)->mmu;
	struct slb_iommu_counts sum;

	if (c->per_cpu) {
		slb_iommu_counts(mmu, &sum);
		return sysfs_emit(buf, "%lu\n",
				  *(unsigned long *)((void *)&sum + c->offset));
	}
	return sysfs_emit(buf, "%ld\n",
			  atomic_long_read((void *)mmu + c->offset));
}

static struct slb_counter slb_counters[] = {
	{ __ATTR(maps, 0444, slb_counter_show, NULL),
	  offsetof(struct slb_iommu_counts, maps), true },
	{ __ATTR(unmaps, 0444, slb_counter_show, NULL),
	  offsetof(struct slb_iommu_counts, unmaps), true },
	{ __ATTR(map_fails, 0444, slb_counter_show, NULL),
	  offsetof(struct slb_iommu_counts, map_fails), true },
	{ __ATTR(faults, 0444, slb_counter_show, NULL),
	  offsetof(struct slb_iommu, faults), false },
	{ __ATTR(overlaps, 0444, slb_counter_show, NULL),
	  offsetof(struct slb_iommu, overlaps), false },
	{ __ATTR(bad_frees, 0444, slb_counter_show, NULL),
	  offsetof(struct slb_iommu, bad_frees), false },
};

static struct attribute *slb_attrs[] = {
	&dev_attr_backend.attr,
	&dev_attr_debug.attr,
	&dev_attr_live.attr,
	&dev_attr_io_errors.attr,
	&slb_counters[0].attr.attr,
	&slb_counters[1].attr.attr,
	&slb_counters[2].attr.attr,
	&slb_counters[3].attr.attr,
	&slb_counters[4].attr.attr,
	&slb_counters[5].attr.attr,
	NULL,
};

static const struct attribute_group slb_attr_group = {
	.name = "sl_iommu",
	.attrs = slb_attrs,
};

const struct attribute_group *slb_disk_groups[] = {
	&slb_attr_group,
	NULL,
};
