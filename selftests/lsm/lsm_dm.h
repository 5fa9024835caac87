/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device-mapper control for the store's crash and fault tests, through
 * the DM ioctls of /dev/mapper/control (<linux/dm-ioctl.h>) rather than
 * dmsetup: under software emulation "dmsetup message" costs about 190 ms
 * a call, and the crash workload sends a mark after every operation.
 *
 *   dm_message(name, "mark o12")        what "dmsetup message NAME 0 ..." does
 *   dm_swap_table(name, sectors, "flakey /dev/vdb 0 0 3600 1 error_writes")
 *                                       "dmsetup reload" + "dmsetup resume":
 *                                       one target over [0, sectors)
 *
 * Each returns 0 or -errno; the kernel's log says why a table was refused.
 */
#ifndef _LSM_DM_H
#define _LSM_DM_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/dm-ioctl.h>

#define DM_CONTROL	"/dev/mapper/control"

/* Room for a request: the header, a target spec or message, and text. */
struct dm_req {
	struct dm_ioctl io;
	char payload[4096] __attribute__((aligned(8)));
};

static inline void dm_req_init(struct dm_req *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->io.version[0] = DM_VERSION_MAJOR;
	r->io.data_size = sizeof(*r);
	r->io.data_start = offsetof(struct dm_req, payload);
	snprintf(r->io.name, sizeof(r->io.name), "%s", name);
}

/* The control node, opened once per process. */
static inline int dm_control(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = open(DM_CONTROL, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static inline int dm_ioctl_on(unsigned long cmd, struct dm_req *r)
{
	int fd = dm_control();

	if (fd < 0)
		return fd;
	return ioctl(fd, cmd, r) ? -errno : 0;
}

/* Send @msg to the target at sector 0 of @name. */
static inline int dm_message(const char *name, const char *msg)
{
	struct dm_req r;
	struct dm_target_msg *m = (struct dm_target_msg *)r.payload;

	dm_req_init(&r, name);
	if (strlen(msg) >= sizeof(r.payload) - sizeof(*m))
		return -E2BIG;
	m->sector = 0;
	strcpy(m->message, msg);
	return dm_ioctl_on(DM_TARGET_MSG, &r);
}

/*
 * Replace the table of @name with one target of @sectors sectors,
 * "TYPE PARAMS" in @table as dmsetup takes it, and resume: I/O in flight
 * finishes under the old table, later I/O goes to the new one.
 */
static inline int dm_swap_table(const char *name, unsigned long long sectors,
				const char *table)
{
	struct dm_req r;
	struct dm_target_spec *t = (struct dm_target_spec *)r.payload;
	const char *params = strchr(table, ' ');
	size_t type_len = params ? (size_t)(params - table) : strlen(table);
	int err;

	dm_req_init(&r, name);
	if (type_len >= sizeof(t->target_type) ||
	    (params && strlen(params + 1) >= sizeof(r.payload) - sizeof(*t)))
		return -E2BIG;
	r.io.target_count = 1;
	t->sector_start = 0;
	t->length = sectors;
	memcpy(t->target_type, table, type_len);
	strcpy((char *)(t + 1), params ? params + 1 : "");
	t->next = 0;
	err = dm_ioctl_on(DM_TABLE_LOAD, &r);
	if (err)
		return err;
	dm_req_init(&r, name);
	return dm_ioctl_on(DM_DEV_SUSPEND, &r);	/* without the flag: resume */
}

#endif /* _LSM_DM_H */
