// SPDX-License-Identifier: GPL-2.0
/*
 * slctl: drive /dev/skiplist from the command line ("slctl lsm ...":
 * the extent store through /dev/sl_lsm, in lsm.c).
 *
 * Every process that opens /dev/skiplist gets its own, empty index, so a
 * single command works on an empty index; "slctl batch" reads commands
 * from stdin, one per line, and runs them all on one index.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "skiplist_dev.h"
#include "slctl.h"

#define MAX_ARGS	16

bool slctl_json;
static int fd = -1;
static unsigned long line_no;

struct command {
	const char *name;
	const char *args;
	const char *help;
	int (*run)(int argc, char **argv);
};

static const struct command commands[];

static void usage(FILE *f)
{
	const struct command *c;

	fprintf(f,
"usage: slctl [--json] [--device PATH] COMMAND [ARGS]\n"
"       slctl [--json] [--device PATH] batch  < commands\n"
"       slctl lsm COMMAND [ARGS]      the extent store (slctl lsm --help)\n"
"       slctl top [--once] [--interval SECONDS]\n"
"                                     what debugfs shows of every list,\n"
"                                     allocator and store (slctl top --help)\n"
"\n"
"Each slctl process opens its own, empty index: use 'batch' to run a\n"
"sequence of commands (one per line, as below; '#' starts a comment) on one\n"
"index.  Numbers are decimal or 0x-prefixed hex.  'slctl COMMAND --help'\n"
"explains one command.  The exit status is 0 if every command succeeded.\n"
"\ncommands:\n");
	for (c = commands; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->args);
}

/* Report the outcome of one command; returns the exit status to use. */
static int report_error(const char *op, int err)
{
	const char *name = strerrorname_np(err);

	if (slctl_json)
		printf("{\"op\": \"%s\", \"ok\": false, \"errno\": \"%s\", \"error\": \"%s\"}\n",
		       op, name ? name : "?", strerror(err));
	if (line_no)
		fprintf(stderr, "slctl: line %lu: %s: %s (%s)\n", line_no, op,
			strerror(err), name ? name : "?");
	else
		fprintf(stderr, "slctl: %s: %s (%s)\n", op, strerror(err),
			name ? name : "?");
	return 1;
}

static int bad_usage(const char *op, const char *what)
{
	const struct command *c;

	for (c = commands; c->name && strcmp(c->name, op); c++)
		;
	if (line_no)
		fprintf(stderr, "slctl: line %lu: %s: %s\n", line_no, op, what);
	else
		fprintf(stderr, "slctl: %s: %s\n", op, what);
	if (c->name)
		fprintf(stderr, "usage: slctl %s %s\n", c->name, c->args);
	return 2;
}

bool slctl_parse_u64(const char *s, __u64 *out)
{
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return !errno && !*end;
}

/* Positional numbers, then --NAME NUMBER options. */
struct opt {
	const char *name;
	__u64 *val;
	bool flag;
	bool *set;
};

static int parse_args(const char *op, int argc, char **argv, int npos,
		      __u64 **pos, int nreq, struct opt *opts)
{
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		struct opt *o;

		if (!strncmp(argv[i], "--", 2)) {
			for (o = opts; o && o->name; o++)
				if (!strcmp(argv[i] + 2, o->name))
					break;
			if (!o || !o->name)
				return bad_usage(op, "unknown option");
			if (o->flag) {
				*o->set = true;
				continue;
			}
			if (++i == argc || !slctl_parse_u64(argv[i], o->val))
				return bad_usage(op, "option needs a number");
			if (o->set)
				*o->set = true;
			continue;
		}
		if (n == npos)
			return bad_usage(op, "too many arguments");
		if (!slctl_parse_u64(argv[i], pos[n]))
			return bad_usage(op, "not a number");
		n++;
	}
	if (n < nreq)
		return bad_usage(op, "missing arguments");
	return 0;
}

static void print_extent(const char *op, const struct sl_ioc_extent *e)
{
	if (slctl_json)
		printf("{\"op\": \"%s\", \"ok\": true, \"extent\": {\"key\": %llu"
		       ", \"size\": %llu, \"value\": %llu}}\n",
		       op, e->key, e->size, e->value);
	else
		printf("%#llx %#llx %llu\n", e->key, e->size,
		       e->value);
}

static void print_ok(const char *op)
{
	if (slctl_json)
		printf("{\"op\": \"%s\", \"ok\": true}\n", op);
}

static int cmd_insert(int argc, char **argv)
{
	struct sl_ioc_insert req = { 0 };
	__u64 *pos[] = { &req.key, &req.size, &req.value };
	int ret = parse_args("insert", argc, argv, 3, pos, 2, NULL);

	if (ret)
		return ret;
	if (ioctl(fd, SL_IOC_INSERT, &req))
		return report_error("insert", errno);
	print_ok("insert");
	return 0;
}

static int cmd_hole(int argc, char **argv)
{
	struct sl_ioc_insert_hole req = { .align = 1 };
	__u64 *pos[] = { &req.size };
	struct opt opts[] = {
		{ "align", &req.align }, { "min", &req.min }, { "max", &req.max },
		{ "hint", &req.hint }, { "value", &req.value }, { NULL },
	};
	int ret = parse_args("hole", argc, argv, 1, pos, 1, opts);

	if (ret)
		return ret;
	if (ioctl(fd, SL_IOC_INSERT_HOLE, &req))
		return report_error("hole", errno);
	if (slctl_json)
		printf("{\"op\": \"hole\", \"ok\": true, \"key\": %llu}\n",
		       req.key);
	else
		printf("%#llx\n", req.key);
	return 0;
}

static int cmd_lookup(int argc, char **argv)
{
	struct sl_ioc_lookup req = { 0 };
	__u64 *pos[] = { &req.key };
	int ret = parse_args("lookup", argc, argv, 1, pos, 1, NULL);

	if (ret)
		return ret;
	if (ioctl(fd, SL_IOC_LOOKUP, &req))
		return report_error("lookup", errno);
	print_extent("lookup", &req.extent);
	return 0;
}

static int cmd_overlap(int argc, char **argv)
{
	struct sl_ioc_overlap req = { 0 };
	__u64 *pos[] = { &req.start, &req.end };
	int ret = parse_args("overlap", argc, argv, 2, pos, 2, NULL);

	if (ret)
		return ret;
	if (ioctl(fd, SL_IOC_FIRST_OVERLAP, &req))
		return report_error("overlap", errno);
	print_extent("overlap", &req.extent);
	return 0;
}

static int cmd_delete(int argc, char **argv)
{
	struct sl_ioc_delete req = { 0 };
	__u64 *pos[] = { &req.key };
	int ret = parse_args("delete", argc, argv, 1, pos, 1, NULL);

	if (ret)
		return ret;
	if (ioctl(fd, SL_IOC_DELETE, &req))
		return report_error("delete", errno);
	print_ok("delete");
	return 0;
}

static int cmd_iterate(int argc, char **argv)
{
	__u64 from = 0, limit = ULLONG_MAX, done = 0;
	struct sl_ioc_extent recs[256];
	bool backward = false, from_set = false, from_end, first = true;
	struct opt opts[] = {
		{ "from", &from, false, &from_set }, { "max", &limit },
		{ "backward", NULL, true, &backward }, { NULL },
	};
	int ret = parse_args("iterate", argc, argv, 0, NULL, 0, opts);
	__u32 i;

	if (ret)
		return ret;
	/*
	 * Backward from nowhere means from the very end, which no key can
	 * name: an extent at 2^64 - 1 is below none.
	 */
	from_end = backward && !from_set;
	if (slctl_json)
		printf("{\"op\": \"iterate\", \"ok\": true, \"extents\": [");
	for (;;) {
		struct sl_ioc_iterate req = {
			.key = from,
			.records = (unsigned long)recs,
			.max = limit - done < 256 ? limit - done : 256,
			.flags = (backward ? SL_ITER_BACKWARD : 0) |
				 (from_end ? SL_ITER_FROM_END : 0),
		};

		if (!req.max)
			break;
		if (ioctl(fd, SL_IOC_ITERATE, &req)) {
			if (slctl_json)
				printf("]}\n");
			return report_error("iterate", errno);
		}
		for (i = 0; i < req.count; i++) {
			if (slctl_json)
				printf("%s{\"key\": %llu, \"size\": %llu"
				       ", \"value\": %llu}", first ? "" : ", ",
				       recs[i].key, recs[i].size, recs[i].value);
			else
				printf("%#llx %#llx %llu\n",
				       recs[i].key, recs[i].size, recs[i].value);
			first = false;
		}
		done += req.count;
		if (req.count < req.max)
			break;
		/* Continue just past the last record. */
		from_end = false;
		from = recs[req.count - 1].key;
		if (!backward && from++ == ULLONG_MAX)
			break;
		if (backward && !from)
			break;
	}
	if (slctl_json)
		printf("]}\n");
	return 0;
}

static int cmd_stats(int argc, char **argv)
{
	struct sl_ioc_stats req = { 0 };
	int ret = parse_args("stats", argc, argv, 0, NULL, 0, NULL);
	int h, top = 0;

	if (ret)
		return ret;
	if (ioctl(fd, SL_IOC_STATS, &req))
		return report_error("stats", errno);
	for (h = 0; h < SL_IOC_MAX_HEIGHT; h++)
		if (req.height[h])
			top = h + 1;
	if (slctl_json) {
		printf("{\"op\": \"stats\", \"ok\": true, \"items\": %llu"
		       ", \"leaves\": %llu, \"bytes\": %llu"
		       ", \"key_loads\": %llu, \"leaves_per_height\": [",
		       req.items, req.leaves, req.bytes, req.key_loads);
		for (h = 0; h < top; h++)
			printf("%s%llu", h ? ", " : "", req.height[h]);
		printf("]}\n");
		return 0;
	}
	printf("items %llu\nleaves %llu\nbytes %llu"
	       "\nkey_loads %llu\nleaves per height:", req.items,
	       req.leaves, req.bytes, req.key_loads);
	for (h = 0; h < top; h++)
		if (req.height[h])
			printf(" %d:%llu", h + 1, req.height[h]);
	printf("\n");
	return 0;
}

static int cmd_simple(const char *op, unsigned long cmd, int argc)
{
	if (argc > 1)
		return bad_usage(op, "takes no arguments");
	if (ioctl(fd, cmd))
		return report_error(op, errno);
	print_ok(op);
	return 0;
}

static int cmd_clear(int argc, char **argv)
{
	return cmd_simple("clear", SL_IOC_CLEAR, argc);
}

static int cmd_check(int argc, char **argv)
{
	return cmd_simple("check", SL_IOC_CHECK, argc);
}

static int cmd_batch(int argc, char **argv);

static const struct command commands[] = {
	{ "insert", "KEY SIZE [VALUE]",
	  "Insert the extent [KEY, KEY + SIZE) with VALUE (default 0).\n"
	  "Fails with EEXIST if it overlaps an extent, EINVAL if SIZE is 0 or\n"
	  "the extent wraps past 2^64 - 1.", cmd_insert },
	{ "hole", "SIZE [--align A] [--min M] [--max X] [--hint H] [--value V]",
	  "Claim the lowest free range of SIZE units aligned to A (a power of\n"
	  "two, default 1) starting at or above H (default M) and ending before X\n"
	  "(0, the default, means no limit), wrapping to M (default 0); prints\n"
	  "its start.  ENOSPC if none fits.", cmd_hole },
	{ "lookup", "KEY",
	  "Print the extent containing KEY as 'key size value'; ENOENT if none.",
	  cmd_lookup },
	{ "overlap", "START END",
	  "Print the first extent overlapping [START, END); ENOENT if none,\n"
	  "EINVAL unless END > START.", cmd_overlap },
	{ "delete", "KEY",
	  "Remove the extent that starts at KEY; ENOENT if none does.", cmd_delete },
	{ "iterate", "[--from KEY] [--backward] [--max N]",
	  "Print extents in key order from KEY (default: the start, or the end\n"
	  "when going backward, an extent at 2^64 - 1 included), at most N.\n"
	  "Backward from KEY lists the extents below KEY.", cmd_iterate },
	{ "stats", "",
	  "Print the number of extents and leaves, the bytes the index uses,\n"
	  "the key loads of all searches so far and the leaves per tower height.",
	  cmd_stats },
	{ "clear", "", "Remove every extent.", cmd_clear },
	{ "check", "",
	  "Verify every invariant of the index; EUCLEAN (details in the kernel\n"
	  "log) if one is broken.", cmd_check },
	{ "batch", "< FILE",
	  "Run commands read from stdin, one per line, on one index; continue\n"
	  "past failures and exit 1 if any command failed.", cmd_batch },
	{ NULL },
};

static int run(int argc, char **argv)
{
	const struct command *c;

	for (c = commands; c->name; c++) {
		if (strcmp(c->name, argv[0]))
			continue;
		if (argc > 1 && (!strcmp(argv[1], "--help") ||
				 !strcmp(argv[1], "-h"))) {
			printf("usage: slctl %s %s\n\n%s\n", c->name, c->args,
			       c->help);
			return 0;
		}
		return c->run(argc, argv);
	}
	fprintf(stderr, "slctl: unknown command '%s' (see slctl --help)\n",
		argv[0]);
	return 2;
}

static int cmd_batch(int argc, char **argv)
{
	char line[1024], *args[MAX_ARGS], *tok, *save;
	int status = 0, n, ret;

	if (argc > 1)
		return bad_usage("batch", "reads its commands from stdin");
	while (fgets(line, sizeof(line), stdin)) {
		line_no++;
		line[strcspn(line, "#\n")] = '\0';
		n = 0;
		for (tok = strtok_r(line, " \t", &save); tok && n < MAX_ARGS;
		     tok = strtok_r(NULL, " \t", &save))
			args[n++] = tok;
		if (!n)
			continue;
		if (!strcmp(args[0], "batch")) {
			fprintf(stderr, "slctl: line %lu: batch cannot nest\n",
				line_no);
			status = 1;
			continue;
		}
		ret = run(n, args);
		if (ret)
			status = 1;
		fflush(stdout);
	}
	return status;
}

int main(int argc, char **argv)
{
	const char *device = "/dev/skiplist";
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--json")) {
			slctl_json = true;
		} else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			device = argv[++i];
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (i == argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[i], "lsm"))
		return slctl_lsm(argc - i, argv + i);
	if (!strcmp(argv[i], "top"))
		return slctl_top(argc - i, argv + i);
	/* Help needs no device. */
	if (i + 1 < argc && (!strcmp(argv[i + 1], "--help") ||
			     !strcmp(argv[i + 1], "-h")))
		return run(argc - i, argv + i);
	fd = open(device, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		fprintf(stderr, "slctl: cannot open %s: %s%s\n", device,
			strerror(err),
			err == ENOENT ? " (is skiplist_dev.ko loaded?)" : "");
		return 1;
	}
	return run(argc - i, argv + i);
}
