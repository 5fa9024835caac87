// SPDX-License-Identifier: GPL-2.0
/*
 * slctl lsm: drive the extent store through /dev/sl_lsm.
 *
 * A store is attached to one open descriptor and detached when it
 * closes, so every slctl process attaches the disk it names (--disk, or
 * the attach and format commands) and detaches on exit, leaving the
 * store durable and cleanly shut down.  "slctl lsm batch" runs commands
 * from stdin on one descriptor, and there "begin" ... "commit" sends the
 * puts and deletes between them as one atomic write.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "sl_lsm_dev.h"
#include "slctl.h"

#define LSM_MAX_ARGS	16

static int lsm_fd = -1;
static unsigned long lsm_line;
static const char *lsm_disk;

/* The open atomic write of a batch ("begin" ... "commit"), or none. */
static struct sl_lsm_ioc_rec *pending;
static unsigned int npending;
static bool in_txn;

struct lsm_cmd {
	const char *name;
	const char *args;
	const char *help;
	int (*run)(int argc, char **argv);
};

static const struct lsm_cmd lsm_cmds[];

static int lsm_error(const char *op, int err)
{
	const char *name = strerrorname_np(err);
	const char *hint = "";

	if (err == ENOTCONN)
		hint = " (no store attached: pass --disk PATH, or attach or format first)";
	else if (err == EUCLEAN)
		hint = " (no sound store on the disk: format it, see the kernel log)";
	else if (err == EBUSY)
		hint = " (the disk is mounted or attached elsewhere)";
	else if (err == ENOTBLK)
		hint = " (the path is not a block device)";
	else if (err == ENOSPC)
		hint = " (the disk is too small or full)";
	if (slctl_json)
		printf("{\"op\": \"lsm %s\", \"ok\": false, \"errno\": \"%s\", \"error\": \"%s\"}\n",
		       op, name ? name : "?", strerror(err));
	if (lsm_line)
		fprintf(stderr, "slctl lsm: line %lu: %s: %s (%s)%s\n",
			lsm_line, op, strerror(err), name ? name : "?", hint);
	else
		fprintf(stderr, "slctl lsm: %s: %s (%s)%s\n", op, strerror(err),
			name ? name : "?", hint);
	return 1;
}

static int lsm_usage(const char *op, const char *what)
{
	const struct lsm_cmd *c;

	for (c = lsm_cmds; c->name && strcmp(c->name, op); c++)
		;
	if (lsm_line)
		fprintf(stderr, "slctl lsm: line %lu: %s: %s\n", lsm_line, op,
			what);
	else
		fprintf(stderr, "slctl lsm: %s: %s\n", op, what);
	if (c->name)
		fprintf(stderr, "usage: slctl lsm %s %s\n", c->name, c->args);
	return 2;
}

static void lsm_ok(const char *op)
{
	if (slctl_json)
		printf("{\"op\": \"lsm %s\", \"ok\": true}\n", op);
}

/*
 * A value on the command line: text as it stands, or "hex:" and pairs of
 * hex digits.  Returns its length, or -1; *out is malloc'ed.
 */
static long lsm_parse_value(const char *s, unsigned char **out)
{
	size_t n, i;

	if (strncmp(s, "hex:", 4)) {
		*out = (unsigned char *)strdup(s);
		return *out ? (long)strlen(s) : -1;
	}
	s += 4;
	n = strlen(s);
	if (n % 2)
		return -1;
	*out = malloc(n / 2 + 1);
	if (!*out)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned int b;

		if (!isxdigit((unsigned char)s[2 * i]) ||
		    !isxdigit((unsigned char)s[2 * i + 1]) ||
		    sscanf(s + 2 * i, "%2x", &b) != 1) {
			free(*out);
			return -1;
		}
		(*out)[i] = b;
	}
	return n / 2;
}

/* Text if every byte is printable (and not a quote or backslash), else hex. */
static void lsm_print_value(const unsigned char *v, size_t n)
{
	bool text = true;
	size_t i;

	for (i = 0; i < n; i++)
		if (!isprint(v[i]) || v[i] == '"' || v[i] == '\\' ||
		    (!slctl_json && v[i] == ' '))
			text = false;
	if (slctl_json)
		printf(text ? "\"value\": \"" : "\"value_hex\": \"");
	else if (!text)
		printf("hex:");
	for (i = 0; i < n; i++)
		printf(text ? "%c" : "%02x", v[i]);
	if (slctl_json)
		printf("\"");
}

static int lsm_attach_path(const char *op, const char *path, __u32 flags,
			   __u64 memtable, bool quiet)
{
	struct sl_lsm_ioc_attach req = {
		.path = (unsigned long)path,
		.flags = flags,
		.memtable_bytes = memtable,
	};

	if (ioctl(lsm_fd, SL_LSM_IOC_ATTACH, &req))
		return lsm_error(op, errno);
	if (quiet)
		return 0;
	if (slctl_json)
		printf("{\"op\": \"lsm %s\", \"ok\": true, \"disk\": \"%s\", \"nr_blocks\": %llu}\n",
		       op, path, req.nr_blocks);
	else
		printf("%s: %s, %llu blocks of 4 KiB\n", path,
		       flags & SL_LSM_ATTACH_FORMAT ? "formatted" : "attached",
		       req.nr_blocks);
	return 0;
}

static int lsm_cmd_attach(int argc, char **argv, __u32 flags)
{
	__u64 memtable = 0;
	bool no_wal = false;
	int i;
	const char *path = NULL;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--memtable")) {
			if (++i == argc || !slctl_parse_u64(argv[i], &memtable))
				return lsm_usage(argv[0], "--memtable needs a number of bytes");
		} else if (!strcmp(argv[i], "--no-wal")) {
			no_wal = true;
		} else if (argv[i][0] == '-' || path) {
			return lsm_usage(argv[0], "unknown argument");
		} else {
			path = argv[i];
		}
	}
	if (!path)
		return lsm_usage(argv[0], "which disk?");
	return lsm_attach_path(argv[0], path,
			       flags | (no_wal ? SL_LSM_ATTACH_NO_WAL : 0),
			       memtable, false);
}

static int lsm_attach(int argc, char **argv)
{
	return lsm_cmd_attach(argc, argv, 0);
}

static int lsm_format(int argc, char **argv)
{
	return lsm_cmd_attach(argc, argv, SL_LSM_ATTACH_FORMAT);
}

/* Numbers, then --sync; *sync may be NULL where it is not allowed. */
static int lsm_args(const char *op, int argc, char **argv, int npos,
		    __u64 *pos, int nreq, bool *sync)
{
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		if (sync && !strcmp(argv[i], "--sync")) {
			*sync = true;
			continue;
		}
		if (n == npos)
			return lsm_usage(op, "too many arguments");
		if (!slctl_parse_u64(argv[i], &pos[n]))
			return lsm_usage(op, "not a number");
		n++;
	}
	return n < nreq ? lsm_usage(op, "missing arguments") : 0;
}

/* A put or delete into the open atomic write of a batch. */
static int lsm_queue(const struct sl_lsm_ioc_rec *r)
{
	struct sl_lsm_ioc_rec *p;

	if (npending == SL_LSM_BATCH_MAX)
		return lsm_usage("begin", "more records than one write takes");
	p = realloc(pending, (npending + 1) * sizeof(*p));
	if (!p)
		return lsm_error("begin", ENOMEM);
	pending = p;
	pending[npending++] = *r;
	return 0;
}

static int lsm_put(int argc, char **argv)
{
	__u64 pos[2];
	unsigned char *v = NULL;
	bool sync = false;
	long vlen = 0;
	int ret, nargs = argc;

	/* KEY LEN [VALUE] [--sync]: the value is the third non-option. */
	if (argc >= 4 && strcmp(argv[3], "--sync")) {
		vlen = lsm_parse_value(argv[3], &v);
		if (vlen < 0)
			return lsm_usage("put", "bad hex: value");
		memmove(&argv[3], &argv[4], (argc - 4) * sizeof(*argv));
		nargs--;
	}
	ret = lsm_args("put", nargs, argv, 2, pos, 2, &sync);
	if (ret) {
		free(v);
		return ret;
	}
	if (in_txn) {
		struct sl_lsm_ioc_rec r = {
			.key = pos[0], .len = pos[1], .value = (unsigned long)v,
			.vlen = vlen, .kind = SL_LSM_REC_PUT,
		};

		if (sync)
			return lsm_usage("put", "--sync belongs to commit");
		return lsm_queue(&r);
	}
	struct sl_lsm_ioc_put req = {
		.key = pos[0], .len = pos[1], .value = (unsigned long)v,
		.vlen = vlen, .flags = sync ? SL_LSM_SYNC : 0,
	};

	ret = ioctl(lsm_fd, SL_LSM_IOC_PUT, &req) ? lsm_error("put", errno) : 0;
	free(v);
	if (!ret)
		lsm_ok("put");
	return ret;
}

static int lsm_delete(int argc, char **argv)
{
	__u64 pos[2] = { 0, 1 };
	bool sync = false;
	int ret = lsm_args("delete", argc, argv, 2, pos, 1, &sync);

	if (ret)
		return ret;
	if (in_txn) {
		struct sl_lsm_ioc_rec r = {
			.key = pos[0], .len = pos[1], .kind = SL_LSM_REC_DELETE,
		};

		if (sync)
			return lsm_usage("delete", "--sync belongs to commit");
		return lsm_queue(&r);
	}
	struct sl_lsm_ioc_delete req = {
		.key = pos[0], .len = pos[1], .flags = sync ? SL_LSM_SYNC : 0,
	};

	if (ioctl(lsm_fd, SL_LSM_IOC_DELETE, &req))
		return lsm_error("delete", errno);
	lsm_ok("delete");
	return 0;
}

static int lsm_begin(int argc, char **argv)
{
	if (argc > 1)
		return lsm_usage("begin", "takes no arguments");
	if (!lsm_line)
		return lsm_usage("begin", "only inside 'slctl lsm batch'");
	if (in_txn)
		return lsm_usage("begin", "a write is open already");
	in_txn = true;
	return 0;
}

static void lsm_drop_pending(void)
{
	unsigned int i;

	for (i = 0; i < npending; i++)
		free((void *)(unsigned long)pending[i].value);
	free(pending);
	pending = NULL;
	npending = 0;
	in_txn = false;
}

static int lsm_commit(int argc, char **argv)
{
	bool sync = false;
	int ret = lsm_args("commit", argc, argv, 0, NULL, 0, &sync);
	struct sl_lsm_ioc_batch req;

	if (ret)
		return ret;
	if (!in_txn)
		return lsm_usage("commit", "no 'begin' before it");
	req = (struct sl_lsm_ioc_batch){
		.recs = (unsigned long)pending, .count = npending,
		.flags = sync ? SL_LSM_SYNC : 0,
	};
	ret = ioctl(lsm_fd, SL_LSM_IOC_BATCH, &req) ? lsm_error("commit", errno) : 0;
	if (!ret && slctl_json)
		printf("{\"op\": \"lsm commit\", \"ok\": true, \"records\": %u}\n",
		       npending);
	lsm_drop_pending();
	return ret;
}

static int lsm_get(int argc, char **argv)
{
	struct sl_lsm_ioc_get_rec *recs;
	struct sl_lsm_ioc_get req = { 0 };
	unsigned char *vals;
	int i, n = argc - 1, ret = 0;

	if (n < 1)
		return lsm_usage("get", "missing arguments");
	if (n > SL_LSM_BATCH_MAX)
		return lsm_usage("get", "too many keys for one call");
	recs = calloc(n, sizeof(*recs));
	vals = malloc((size_t)n * SL_LSM_VALUE_MAX);
	if (!recs || !vals) {
		free(recs);
		free(vals);
		return lsm_error("get", ENOMEM);
	}
	for (i = 0; i < n; i++) {
		if (!slctl_parse_u64(argv[i + 1], &recs[i].key)) {
			ret = lsm_usage("get", "not a number");
			goto out;
		}
		recs[i].value = (unsigned long)(vals + (size_t)i * SL_LSM_VALUE_MAX);
		recs[i].vbuf_size = SL_LSM_VALUE_MAX;
	}
	req.recs = (unsigned long)recs;
	req.count = n;
	if (ioctl(lsm_fd, SL_LSM_IOC_GET, &req)) {
		ret = lsm_error("get", errno);
		goto out;
	}
	if (slctl_json)
		printf("{\"op\": \"lsm get\", \"ok\": true, \"found\": %u, \"results\": [",
		       req.found);
	for (i = 0; i < n; i++) {
		const struct sl_lsm_ioc_get_rec *r = &recs[i];

		if (slctl_json) {
			printf("%s{\"key\": %llu", i ? ", " : "", r->key);
			if (r->result) {
				printf(", \"found\": false}");
				continue;
			}
			printf(", \"found\": true, \"ext_key\": %llu, \"ext_len\": %llu, \"start\": %llu, \"len\": %llu, \"seq\": %llu, \"vlen\": %u, ",
			       r->ext_key, r->ext_len, r->start, r->len, r->seq,
			       r->vlen);
			lsm_print_value(vals + (size_t)i * SL_LSM_VALUE_MAX,
					r->vlen);
			printf("}");
			continue;
		}
		if (r->result) {
			printf("%#llx not found\n", r->key);
			ret = 1;
			continue;
		}
		/* key: the extent as put, its visible window, the value */
		printf("%#llx extent %#llx+%#llx visible %#llx+%#llx seq %llu vlen %u ",
		       r->key, r->ext_key, r->ext_len, r->start, r->len, r->seq,
		       r->vlen);
		lsm_print_value(vals + (size_t)i * SL_LSM_VALUE_MAX, r->vlen);
		printf("\n");
	}
	if (slctl_json)
		printf("]}\n");
out:
	free(recs);
	free(vals);
	return ret;
}

static int lsm_scan(int argc, char **argv)
{
	struct sl_lsm_ioc_piece pieces[256];
	__u64 from = 0, limit = ~0ULL, done = 0;
	static unsigned char vals[SL_LSM_SCAN_BYTES];
	struct sl_lsm_ioc_scan req = { 0 };
	bool first = true;
	int i;

	for (i = 1; i < argc; i++) {
		__u64 *to = !strcmp(argv[i], "--from") ? &from :
			    !strcmp(argv[i], "--max") ? &limit : NULL;

		if (!to || ++i == argc || !slctl_parse_u64(argv[i], to))
			return lsm_usage("scan", "bad argument");
	}
	req.pos = from;
	if (slctl_json)
		printf("{\"op\": \"lsm scan\", \"ok\": true, \"pieces\": [");
	while (done < limit) {
		req.pieces = (unsigned long)pieces;
		req.values = (unsigned long)vals;
		req.values_size = sizeof(vals);
		req.max = limit - done < 256 ? limit - done : 256;
		if (ioctl(lsm_fd, SL_LSM_IOC_SCAN, &req)) {
			if (slctl_json)
				printf("]}\n");
			return lsm_error("scan", errno);
		}
		for (i = 0; i < (int)req.count; i++) {
			const struct sl_lsm_ioc_piece *p = &pieces[i];

			if (slctl_json) {
				printf("%s{\"start\": %llu, \"len\": %llu, \"ext_key\": %llu, \"ext_len\": %llu, \"seq\": %llu, \"vlen\": %u, ",
				       first ? "" : ", ", p->start, p->len,
				       p->ext_key, p->ext_len, p->seq, p->vlen);
				lsm_print_value(vals + p->value_off, p->vlen);
				printf("}");
			} else {
				printf("%#llx+%#llx extent %#llx+%#llx seq %llu vlen %u ",
				       p->start, p->len, p->ext_key, p->ext_len,
				       p->seq, p->vlen);
				lsm_print_value(vals + p->value_off, p->vlen);
				printf("\n");
			}
			first = false;
		}
		done += req.count;
		if (req.done || !req.count)
			break;
	}
	if (slctl_json)
		printf("]}\n");
	return 0;
}

static int lsm_stats(int argc, char **argv)
{
	struct sl_lsm_ioc_stats s = { 0 };

	if (argc > 1)
		return lsm_usage("stats", "takes no arguments");
	if (ioctl(lsm_fd, SL_LSM_IOC_STATS, &s))
		return lsm_error("stats", errno);
#define LSM_STAT(f) { #f, &s.f }
	const struct { const char *name; __u64 *v; } f[] = {
		LSM_STAT(memtable_bytes), LSM_STAT(immutables), LSM_STAT(runs),
		LSM_STAT(flushes), LSM_STAT(stalls), LSM_STAT(stall_ns),
		LSM_STAT(wal_bytes), LSM_STAT(run_bytes),
		LSM_STAT(manifest_bytes), LSM_STAT(user_bytes),
		LSM_STAT(group_commits), LSM_STAT(group_writers), LSM_STAT(seq),
		LSM_STAT(nr_blocks), LSM_STAT(compactions),
		LSM_STAT(compact_read_bytes), LSM_STAT(compact_write_bytes),
		LSM_STAT(compact_ns), LSM_STAT(pending_compact_bytes),
		LSM_STAT(slowdowns), LSM_STAT(slowdown_ns),
		LSM_STAT(space_used_bytes), LSM_STAT(cache_hits),
		LSM_STAT(cache_misses), LSM_STAT(cache_bytes),
	};
#undef LSM_STAT
	size_t i;

	if (slctl_json)
		printf("{\"op\": \"lsm stats\", \"ok\": true");
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		printf(slctl_json ? ", \"%s\": %llu" : "%s %llu\n", f[i].name,
		       *f[i].v);
	for (i = 0; i < 7; i++)
		printf(slctl_json ? ", \"level%zu_runs\": %llu, \"level%zu_bytes\": %llu" :
				    "level%zu_runs %llu\nlevel%zu_bytes %llu\n",
		       i, s.level_runs[i], i, s.level_bytes[i]);
	printf(slctl_json ? ", \"read_only\": %s}\n" : "read_only %s\n",
	       s.read_only ? (slctl_json ? "true" : "yes") :
			     (slctl_json ? "false" : "no"));
	return 0;
}

static int lsm_simple(const char *op, unsigned long cmd, int argc)
{
	if (argc > 1)
		return lsm_usage(op, "takes no arguments");
	if (ioctl(lsm_fd, cmd))
		return lsm_error(op, errno);
	lsm_ok(op);
	return 0;
}

static int lsm_sync(int argc, char **argv)
{
	return lsm_simple("sync", SL_LSM_IOC_SYNC, argc);
}

static int lsm_flush(int argc, char **argv)
{
	return lsm_simple("flush", SL_LSM_IOC_FLUSH, argc);
}

static int lsm_detach(int argc, char **argv)
{
	return lsm_simple("detach", SL_LSM_IOC_DETACH, argc);
}

static int lsm_batch(int argc, char **argv);

static const struct lsm_cmd lsm_cmds[] = {
	{ "format", "DISK [--memtable BYTES] [--no-wal]",
	  "Make a new, empty store on the block device DISK, erasing what it\n"
	  "held, and leave it attached (until exit, or detach).", lsm_format },
	{ "attach", "DISK [--memtable BYTES] [--no-wal]",
	  "Attach the store on DISK, recovering what was durable; EUCLEAN if\n"
	  "DISK holds no sound store, EBUSY if it is in use.", lsm_attach },
	{ "put", "KEY LEN [VALUE] [--sync]",
	  "Store VALUE (text, or hex:0a1b...; empty if left out) over\n"
	  "[KEY, KEY + LEN).  With --sync it is durable on return.", lsm_put },
	{ "get", "KEY...",
	  "Print, for each KEY, the newest extent covering it as put, its\n"
	  "window visible at KEY, its sequence number and value; 'not found'\n"
	  "(and exit status 1) where nothing covers KEY.", lsm_get },
	{ "delete", "KEY [LEN] [--sync]",
	  "Punch [KEY, KEY + LEN) (LEN 1 if left out).", lsm_delete },
	{ "scan", "[--from KEY] [--max N]",
	  "Print the visible pieces in key order from KEY, at most N.", lsm_scan },
	{ "stats", "", "Print the store's counters.", lsm_stats },
	{ "sync", "", "Make everything written so far durable.", lsm_sync },
	{ "flush", "", "Write the memtable out as a run, durably.", lsm_flush },
	{ "detach", "",
	  "Make everything durable, shut the store down cleanly and give the\n"
	  "disk back (exit does the same).", lsm_detach },
	{ "begin", "",
	  "In a batch: the puts and deletes up to 'commit' form one atomic\n"
	  "write.", lsm_begin },
	{ "commit", "[--sync]",
	  "In a batch: send the puts and deletes since 'begin' as one atomic\n"
	  "write (at most 4096 records).", lsm_commit },
	{ "batch", "< FILE",
	  "Run commands read from stdin, one per line, on one descriptor;\n"
	  "continue past failures and exit 1 if any command failed.", lsm_batch },
	{ NULL },
};

static int lsm_run(int argc, char **argv)
{
	const struct lsm_cmd *c;

	for (c = lsm_cmds; c->name; c++) {
		if (strcmp(c->name, argv[0]))
			continue;
		if (argc > 1 && (!strcmp(argv[1], "--help") ||
				 !strcmp(argv[1], "-h"))) {
			printf("usage: slctl lsm %s %s\n\n%s\n", c->name,
			       c->args, c->help);
			return 0;
		}
		return c->run(argc, argv);
	}
	fprintf(stderr, "slctl lsm: unknown command '%s' (see slctl lsm --help)\n",
		argv[0]);
	return 2;
}

static int lsm_batch(int argc, char **argv)
{
	char line[4096], *args[LSM_MAX_ARGS], *tok, *save;
	int status = 0, n;

	if (argc > 1)
		return lsm_usage("batch", "reads its commands from stdin");
	while (fgets(line, sizeof(line), stdin)) {
		lsm_line++;
		line[strcspn(line, "#\n")] = '\0';
		n = 0;
		for (tok = strtok_r(line, " \t", &save); tok && n < LSM_MAX_ARGS;
		     tok = strtok_r(NULL, " \t", &save))
			args[n++] = tok;
		if (!n)
			continue;
		if (!strcmp(args[0], "batch")) {
			fprintf(stderr, "slctl lsm: line %lu: batch cannot nest\n",
				lsm_line);
			status = 1;
			continue;
		}
		if (lsm_run(n, args))
			status = 1;
		fflush(stdout);
	}
	if (in_txn) {
		fprintf(stderr, "slctl lsm: 'begin' without 'commit': %u records not written\n",
			npending);
		lsm_drop_pending();
		status = 1;
	}
	return status;
}

static void lsm_help(FILE *f)
{
	const struct lsm_cmd *c;

	fprintf(f,
"usage: slctl [--json] lsm [--device PATH] [--disk DISK] COMMAND [ARGS]\n"
"       slctl [--json] lsm [--device PATH] [--disk DISK] batch < commands\n"
"\n"
"A store lives on a block device (DISK) and is attached to one open\n"
"/dev/sl_lsm for as long as slctl runs: --disk attaches DISK before the\n"
"command, and exit detaches it, durable and cleanly shut down.  Numbers are\n"
"decimal or 0x-prefixed hex.  'slctl lsm COMMAND --help' explains one.\n"
"\ncommands:\n");
	for (c = lsm_cmds; c->name; c++)
		fprintf(f, "  %-7s %s\n", c->name, c->args);
}

/**
 * slctl_lsm() - "slctl lsm ...": argv[0] is "lsm"
 * @argc: arguments after the global options
 * @argv: from "lsm" on
 *
 * Return: the exit status.
 */
int slctl_lsm(int argc, char **argv)
{
	const char *device = "/dev/sl_lsm";
	int i = 1, ret;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			device = argv[++i];
		} else if (!strcmp(argv[i], "--disk") && i + 1 < argc) {
			lsm_disk = argv[++i];
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			lsm_help(stdout);
			return 0;
		} else {
			lsm_help(stderr);
			return 2;
		}
	}
	if (i == argc) {
		lsm_help(stderr);
		return 2;
	}
	if (i + 1 < argc && (!strcmp(argv[i + 1], "--help") ||
			     !strcmp(argv[i + 1], "-h")))
		return lsm_run(argc - i, argv + i);
	lsm_fd = open(device, O_RDWR | O_CLOEXEC);
	if (lsm_fd < 0) {
		int err = errno;

		fprintf(stderr, "slctl lsm: cannot open %s: %s%s\n", device,
			strerror(err),
			err == ENOENT ? " (is sl_lsm.ko loaded?)" : "");
		return 1;
	}
	if (lsm_disk && lsm_attach_path("attach", lsm_disk, 0, 0, true))
		return 1;
	ret = lsm_run(argc - i, argv + i);
	/*
	 * Detach before the close would, so that a failure of the final
	 * writes is seen: a close cannot report it.
	 */
	if (ioctl(lsm_fd, SL_LSM_IOC_DETACH) && errno != ENOTCONN)
		ret = lsm_error("detach", errno);
	close(lsm_fd);
	return ret;
}
