// SPDX-License-Identifier: GPL-2.0
/*
 * options.c: every option of "perfcap record" with good and bad values,
 * the conflicts, and where the command starts. Each row parses a command
 * line and compares a rendering of every non-default field with the row's
 * expectation, so an option that sets more than it should fails too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "util.h"

#define MAX_ARGS 16

struct opt_case {
	const char *argv[MAX_ARGS];	/* after "record"; NULL-terminated */
	/*
	 * On success: the rendering of opts (see render()). On a usage
	 * error: "!" and the message, or "!=" and the exact message.
	 */
	const char *want;
};

static const struct opt_case cases[] = {
	/* targets */
	{ { "-a" },				"system_wide" },
	{ { "--all-cpus" },			"system_wide" },
	{ { "-C", "0-3,7" },			"system_wide cpu=0-3,7" },
	{ { "--cpu=1" },			"system_wide cpu=1" },
	{ { "-C1", "-a" },			"system_wide cpu=1" },
	{ { "-C", "a" },			"!=invalid -C value 'a': expected a CPU list like 0-3,7" },
	{ { "-C", "3-1" },			"!invalid -C value '3-1'" },
	{ { "-C", "" },				"!invalid -C value ''" },
	{ { "-C", "1,,2" },			"!invalid -C value '1,,2'" },
	{ { "-p", "123" },			"pid=123" },
	{ { "--pid", "1,2,3" },			"pid=1,2,3" },
	{ { "--pid=5" },			"pid=5" },
	{ { "-p", "abc" },			"!=invalid -p value 'abc': expected comma separated process ids" },
	{ { "-p", "0" },			"!invalid -p value '0'" },
	{ { "-p", "-1" },			"!invalid -p value '-1'" },
	{ { "-p", "1,,2" },			"!invalid -p value '1,,2'" },
	{ { "-p", "1," },			"!invalid -p value '1,'" },
	{ { "-p", "99999999999" },		"!invalid -p value '99999999999'" },
	{ { "-t", "7" },			"tid=7" },
	{ { "--tid", "7,8" },			"tid=7,8" },
	{ { "-t", "x" },			"!=invalid -t value 'x': expected comma separated thread ids" },

	/* events */
	{ { "-e", "cs", "-a" },			"system_wide events=cs" },
	{ { "--event=cpu-clock", "-a" },	"system_wide events=cpu-clock" },
	{ { "-e", "cs", "-e", "faults", "-a" },	"system_wide events=cs,faults" },
	{ { "-e", "a,b", "--event", "c", "-e", "d", "-a" }, "system_wide events=a,b,c,d" },
	{ { "-e", "", "-a" },			"!invalid -e value ''" },
	{ { "-c", "1000", "-a" },		"system_wide period=1000" },
	{ { "--count=0x10", "-a" },		"system_wide period=16" },
	{ { "-c", "0", "-a" },			"!=invalid -c value '0': expected a positive number" },
	{ { "-c", "abc", "-a" },		"!invalid -c value 'abc'" },
	{ { "-c", "-5", "-a" },			"!invalid -c value '-5'" },
	{ { "-c", "5k", "-a" },			"!invalid -c value '5k'" },
	{ { "-c", "99999999999999999999", "-a" }, "!invalid -c value '99999999999999999999'" },
	{ { "-F", "1000", "-a" },		"system_wide freq=1000" },
	{ { "--freq=99", "-a" },		"system_wide freq=99" },
	{ { "-F", "max", "-a" },		"system_wide freq=max" },
	{ { "-F", "max", "-F", "10", "-a" },	"system_wide freq=10" },
	{ { "-F", "abc", "-a" },		"!=invalid -F value 'abc': expected a positive number or 'max'" },
	{ { "-F", "0", "-a" },			"!invalid -F value '0'" },
	{ { "-F", "10x", "-a" },		"!invalid -F value '10x'" },
	{ { "-F", "MAX", "-a" },		"!invalid -F value 'MAX'" },
	{ { "-F", " 10", "-a" },		"!invalid -F value ' 10'" },

	/* call graphs */
	{ { "-g", "-a" },			"system_wide callgraph=fp" },
	{ { "--call-graph", "fp", "-a" },	"system_wide callgraph=fp" },
	{ { "--call-graph=dwarf", "-a" },	"system_wide callgraph=dwarf" },
	{ { "--call-graph", "dwarf,4096", "-a" }, "system_wide callgraph=dwarf dwarf_size=4096" },
	{ { "--call-graph", "dwarf,0x1000", "-a" }, "system_wide callgraph=dwarf dwarf_size=4096" },
	{ { "--call-graph", "dwarf,13", "-a" },	"system_wide callgraph=dwarf dwarf_size=16" },
	{ { "--call-graph", "dwarf,65528", "-a" }, "system_wide callgraph=dwarf dwarf_size=65528" },
	{ { "--call-graph", "dwarf,65521", "-a" }, "system_wide callgraph=dwarf dwarf_size=65528" },
	{ { "--call-graph", "dwarf,65529", "-a" }, "!=invalid --call-graph value 'dwarf,65529': dwarf stack size must be 1..65528 bytes" },
	{ { "--call-graph", "dwarf,0", "-a" },	"!invalid --call-graph value 'dwarf,0'" },
	{ { "--call-graph", "dwarf,", "-a" },	"!invalid --call-graph value 'dwarf,'" },
	{ { "--call-graph", "dwarf,abc", "-a" }, "!invalid --call-graph value 'dwarf,abc'" },
	{ { "--call-graph", "dwarf,-8", "-a" },	"!invalid --call-graph value 'dwarf,-8'" },
	{ { "--call-graph", "lbr", "-a" },	"!invalid --call-graph value 'lbr'" },
	{ { "--call-graph", "fp,8", "-a" },	"!invalid --call-graph value 'fp,8'" },
	{ { "--call-graph", "xyz", "-a" },	"!=invalid --call-graph value 'xyz': expected fp, dwarf or dwarf,SIZE" },
	/* -g only switches call graphs on; it keeps a mode already chosen, as in perf. */
	{ { "--call-graph", "dwarf", "-g", "-a" }, "system_wide callgraph=dwarf" },
	{ { "-g", "--call-graph", "dwarf", "-a" }, "system_wide callgraph=dwarf" },

	/* buffers and output (sizes depend on the page size: see test_mmap_size) */
	{ { "-m", "8", "-a" },			"system_wide mmap_pages=8" },
	{ { "--mmap-pages=1", "-a" },		"system_wide mmap_pages=1" },
	{ { "-m", "3", "-a" },			"!invalid -m value '3': 3 pages of" },
	{ { "-m", "3", "-a" },			"!is not a power of two (next one up: 4 pages)" },
	{ { "-m", "0", "-a" },			"!=invalid -m value '0': need at least one page" },
	{ { "-m", "abc", "-a" },		"!=invalid -m value 'abc': expected a number of pages or a size with B, K, M or G suffix" },
	{ { "-m", "5X", "-a" },			"!invalid -m value '5X'" },
	{ { "-m", "K", "-a" },			"!invalid -m value 'K'" },
	{ { "-m", "", "-a" },			"!invalid -m value ''" },
	{ { "-m", "-4", "-a" },			"!invalid -m value '-4'" },
	{ { "-m", "8,8", "-a" },		"!invalid -m value '8,8'" },
	{ { "-m", "4294967296", "-a" },		"!invalid -m value '4294967296'" },
	{ { "-o", "out.data", "-a" },		"system_wide output=out.data" },
	{ { "--output=x", "-a" },		"system_wide output=x" },
	{ { "--out", "y", "-a" },		"system_wide output=y" },	/* unique prefix */
	{ { "-o", "", "-a" },			"!invalid -o value ''" },
	{ { "-T", "-a" },			"system_wide sample_time" },
	{ { "--timestamp", "-a" },		"system_wide sample_time" },
	{ { "-R", "-a" },			"system_wide raw" },
	{ { "--raw-samples", "-a" },		"system_wide raw" },
	{ { "-N", "-a" },			"system_wide no_buildid_cache" },
	{ { "--no-buildid-cache", "-a" },	"system_wide no_buildid_cache" },
	{ { "-B", "-a" },			"system_wide no_buildid" },
	{ { "--no-buildid", "-a" },		"system_wide no_buildid" },
	{ { "--switch-events", "-a" },		"system_wide switch_events" },
	{ { "-i", "-a" },			"system_wide no_inherit" },
	{ { "--no-inherit", "-a" },		"system_wide no_inherit" },
	{ { "-q", "-a" },			"system_wide quiet" },
	{ { "--quiet", "-a" },			"system_wide quiet" },
	{ { "-v", "-a" },			"system_wide verbose=1" },
	{ { "-v", "-v", "--verbose", "-a" },	"system_wide verbose=3" },
	{ { "-vv", "-a" },			"system_wide verbose=2" },
	{ { "-aTRNBi" },			"system_wide sample_time raw no_inherit no_buildid_cache no_buildid" },
	{ { "-r", "10", "-a" },			"system_wide realtime=10" },
	{ { "--realtime=99", "-a" },		"system_wide realtime=99" },
	{ { "-r", "1", "-a" },			"system_wide realtime=1" },
	{ { "-r", "0", "-a" },			"!=invalid -r value '0': expected a SCHED_FIFO priority 1..99" },
	{ { "-r", "100", "-a" },		"!invalid -r value '100'" },
	{ { "-r", "x", "-a" },			"!invalid -r value 'x'" },

	/* writers */
	{ { "--aio", "-a" },			"system_wide aio=1 writer=aio" },
	{ { "--aio=4", "-a" },			"system_wide aio=4 writer=aio" },
	{ { "--aio=64", "-a" },			"system_wide aio=64 writer=aio" },
	/* optional values attach with '=' only, as in perf: "4" is the command */
	{ { "--aio", "4" },			"aio=1 writer=aio cmd=[4]" },
	{ { "--aio=0", "-a" },			"!=invalid --aio value '0': expected 1..64 buffers per ring" },
	{ { "--aio=65", "-a" },			"!invalid --aio value '65'" },
	{ { "--aio=x", "-a" },			"!invalid --aio value 'x'" },
	{ { "--aio=", "-a" },			"!invalid --aio value ''" },
	{ { "--writer=sync", "-a" },		"system_wide" },
	{ { "--writer", "aio", "-a" },		"system_wide aio=1 writer=aio" },
	{ { "--writer=uring", "-a" },		"system_wide aio=1 writer=uring" },
	{ { "--writer=uring", "--aio=8", "-a" }, "system_wide aio=8 writer=uring" },
	{ { "--aio=2", "--writer=aio", "-a" },	"system_wide aio=2 writer=aio" },
	{ { "--writer=sync", "--aio", "-a" },	"!=--aio asks for asynchronous writes; it conflicts with --writer=sync" },
	{ { "--writer=foo", "-a" },		"!=invalid --writer value 'foo': expected sync, aio or uring" },
	{ { "--status=0.5", "-a" },		"system_wide status_ns=500000000" },
	{ { "--status", "2", "-a" },		"system_wide status_ns=2000000000" },
	{ { "--status=0", "-a" },		"!=invalid --status value '0': expected seconds, 0.1 to 86400" },
	{ { "--status=x", "-a" },		"!invalid --status value 'x'" },
	/* --threads: perf's spellings; only the syntax is checked here. */
	{ { "--threads", "-a" },		"system_wide threads=cpu" },
	{ { "--threads=", "-a" },		"system_wide threads=cpu" },
	{ { "--threads=core", "-a" },		"system_wide threads=core" },
	{ { "--threads=package", "-a" },	"system_wide threads=package" },
	{ { "--threads=numa", "-a" },		"system_wide threads=numa" },
	{ { "--threads=0-1/0-1:2-3/2-3", "-a" }, "system_wide threads=0-1/0-1:2-3/2-3" },
	{ { "--threads", "sleep" },		"threads=cpu cmd=[sleep]" },
	{ { "--threads=socket", "-a" },		"!=invalid --threads value 'socket': expected cpu, core, package, numa or <cpus>/<affinity>:..." },
	{ { "--threads=0-1", "-a" },		"!--threads: '0-1' has no affinity mask" },
	{ { "--threads=0-1/x", "-a" },		"!--threads: invalid CPU list in '0-1/x'" },
	{ { "--writer=", "-a" },		"!invalid --writer value ''" },

	/* help needs no target and wins over conflicts */
	{ { "-h" },				"help" },
	{ { "--help" },				"help" },
	{ { "-c", "1", "-F", "1", "-h" },	"period=1 freq=1 help" },

	/* the command: everything from the first non-option on */
	{ { "sleep", "1" },			"cmd=[sleep 1]" },
	{ { "sleep", "1", "-x" },		"cmd=[sleep 1 -x]" },
	{ { "-a", "sleep", "1", "-x" },		"system_wide cmd=[sleep 1 -x]" },
	{ { "-e", "cs", "--", "sleep", "1" },	"events=cs cmd=[sleep 1]" },
	{ { "--", "-x" },			"cmd=[-x]" },
	{ { "sleep", "-a" },			"cmd=[sleep -a]" },
	{ { "-C", "0", "sleep", "1" },		"system_wide cpu=0 cmd=[sleep 1]" },

	/* conflicts */
	{ { "-c", "100", "-F", "100", "-a" },	"!=-c and -F are mutually exclusive: -c samples every N events, -F N times a second" },
	{ { "-F", "max", "-c", "1", "-a" },	"!-c and -F are mutually exclusive" },
	/* with -p/-t a command only says how long to record, as in perf */
	{ { "-p", "1", "sleep", "1" },		"pid=1 cmd=[sleep 1]" },
	{ { "-t", "1", "--", "true" },		"tid=1 cmd=[true]" },
	{ { "-p", "1", "-t", "2" },		"!=-p and -t are mutually exclusive" },
	/* no target: the whole system, as in perf */
	{ { NULL },				"system_wide" },
	{ { "-e", "cs", "-F", "10" },		"system_wide events=cs freq=10" },
	{ { "-a", "--" },			"system_wide" },
	/* perf: "PID/TID switch overriding SYSTEM/CPU", a warning, not an error */
	{ { "-p", "1", "-a" },			"pid=1 warning" },
	{ { "-C", "0", "-t", "2" },		"tid=2 warning" },

	/* what getopt itself rejects, named the way the user spelled it */
	{ { "-x", "-a" },			"!=unknown option '-x' (see perfcap record --help)" },
	{ { "-aX" },				"!unknown option '-X'" },
	{ { "--foo", "-a" },			"!=unknown or ambiguous option '--foo' (see perfcap record --help)" },
	{ { "--foo=1", "-a" },			"!unknown or ambiguous option '--foo'" },
	{ { "--no", "-a" },			"!unknown or ambiguous option '--no'" },
	{ { "--quiet=3", "-a" },		"!=option '--quiet' does not take a value" },
	{ { "-a", "-e" },			"!=option '-e' requires a value" },
	{ { "-a", "--event" },			"!=option '--event' requires a value" },
	{ { "-a", "-C" },			"!option '-C' requires a value" },
	{ { "-a", "--writer" },			"!option '--writer' requires a value" },
};

/* Every field that differs from its default, in declaration order. */
static void render(const struct record_opts *o, char *buf, size_t size)
{
	struct strbuf sb;
	int i;

	strbuf__init(&sb);
	strbuf__add(&sb, "", 0);
	if (o->system_wide)
		strbuf__addf(&sb, " system_wide");
	if (o->cpu_list)
		strbuf__addf(&sb, " cpu=%s", o->cpu_list);
	if (o->pid_list)
		strbuf__addf(&sb, " pid=%s", o->pid_list);
	if (o->tid_list)
		strbuf__addf(&sb, " tid=%s", o->tid_list);
	if (o->events)
		strbuf__addf(&sb, " events=%s", o->events);
	if (o->period)
		strbuf__addf(&sb, " period=%llu", (unsigned long long)o->period);
	if (o->freq)
		strbuf__addf(&sb, " freq=%llu", (unsigned long long)o->freq);
	if (o->freq_max)
		strbuf__addf(&sb, " freq=max");
	if (o->callgraph == CALLGRAPH_FP)
		strbuf__addf(&sb, " callgraph=fp");
	if (o->callgraph == CALLGRAPH_DWARF)
		strbuf__addf(&sb, " callgraph=dwarf");
	if (o->dwarf_stack_size != OPTS_DEFAULT_DWARF_SIZE)
		strbuf__addf(&sb, " dwarf_size=%u", o->dwarf_stack_size);
	if (o->sample_time)
		strbuf__addf(&sb, " sample_time");
	if (o->raw)
		strbuf__addf(&sb, " raw");
	if (o->switch_events)
		strbuf__addf(&sb, " switch_events");
	if (o->no_inherit)
		strbuf__addf(&sb, " no_inherit");
	if (o->mmap_pages)
		strbuf__addf(&sb, " mmap_pages=%u", o->mmap_pages);
	if (!o->output || strcmp(o->output, "perf.data"))
		strbuf__addf(&sb, " output=%s", o->output ? o->output : "(null)");
	if (o->no_buildid_cache)
		strbuf__addf(&sb, " no_buildid_cache");
	if (o->no_buildid)
		strbuf__addf(&sb, " no_buildid");
	if (o->aio)
		strbuf__addf(&sb, " aio=%d", o->aio);
	/* NULL only on --help, where nothing was settled */
	if (o->writer && strcmp(o->writer, "sync"))
		strbuf__addf(&sb, " writer=%s", o->writer);
	if (o->realtime)
		strbuf__addf(&sb, " realtime=%d", o->realtime);
	if (o->threads)
		strbuf__addf(&sb, " threads=%s", o->threads_spec);
	if (o->status_ns)
		strbuf__addf(&sb, " status_ns=%llu", (unsigned long long)o->status_ns);
	if (o->quiet)
		strbuf__addf(&sb, " quiet");
	if (o->verbose)
		strbuf__addf(&sb, " verbose=%d", o->verbose);
	if (o->help)
		strbuf__addf(&sb, " help");
	if (o->warning)
		strbuf__addf(&sb, " warning");
	if (o->argc || o->argv) {
		strbuf__addf(&sb, " cmd=[");
		for (i = 0; i < o->argc; i++)
			strbuf__addf(&sb, "%s%s", i ? " " : "", o->argv[i]);
		strbuf__addf(&sb, "]");
		/* execvp needs the NULL that ends argv. */
		if (o->argv[o->argc])
			strbuf__addf(&sb, " UNTERMINATED");
	}
	snprintf(buf, size, "%s", sb.len ? sb.data + 1 : "");
	strbuf__exit(&sb);
}

/* argv as main() gets it: "record" first, a NULL last, writable strings. */
static int make_argv(const char *const *args, char **argv)
{
	int argc = 0;

	argv[argc++] = strdup("record");
	while (argc <= MAX_ARGS && args[argc - 1]) {
		argv[argc] = strdup(args[argc - 1]);
		argc++;
	}
	argv[argc] = NULL;
	return argc;
}

static void free_argv(char **argv, int argc)
{
	int i;

	for (i = 0; i < argc; i++)
		free(argv[i]);
}

static void test_case(void **state)
{
	const struct opt_case *c = *state;
	char *argv[MAX_ARGS + 2], *copy[MAX_ARGS + 2];
	struct record_opts opts;
	char err[256], got[512];
	int argc, ret;

	argc = make_argv(c->argv, argv);
	/* getopt may permute argv; keep the pointers to free them. */
	memcpy(copy, argv, sizeof(argv));
	memset(err, 'X', sizeof(err));
	ret = record_opts__parse(&opts, argc, argv, err, sizeof(err));

	if (c->want[0] == '!') {
		const char *msg = c->want + 1;

		if (ret != -EINVAL)
			fail_msg("expected -EINVAL, got %d", ret);
		if (msg[0] == '=' ? strcmp(err, msg + 1) : !strstr(err, msg))
			fail_msg("error '%s' %s '%s'", err,
				 msg[0] == '=' ? "is not" : "does not contain",
				 msg[0] == '=' ? msg + 1 : msg);
		/* One line: the caller adds "perfcap: " and the newline. */
		assert_null(strchr(err, '\n'));
		/* A failed parse leaves nothing to free. */
		assert_null(opts.events_buf);
	} else {
		if (ret != 0)
			fail_msg("expected success, got %d: %s", ret, err);
		assert_string_equal(err, "");
		render(&opts, got, sizeof(got));
		assert_string_equal(got, c->want);
		if (!opts.help)
			assert_non_null(opts.writer);
		if (opts.warning)
			assert_non_null(strstr(opts.warning, "-p/-t given"));
		record_opts__exit(&opts);
		assert_null(opts.events_buf);
	}
	free_argv(copy, argc);
}

/* The sizes of -m, for whatever page size this machine has. */
static void test_mmap_size(void **state)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *argv[] = { "record", "-m", "512K", "-a", NULL };
	char *argv2[] = { "record", "-m", "1G", "-a", NULL };
	struct record_opts opts;
	char err[256];

	assert_int_equal(record_opts__parse(&opts, 4, argv, err, sizeof(err)), 0);
	assert_int_equal(opts.mmap_pages, (512 << 10) / ps);
	assert_int_equal(record_opts__parse(&opts, 4, argv2, err, sizeof(err)), 0);
	assert_int_equal(opts.mmap_pages, (1L << 30) / ps);
}

struct mmap_case {
	const char *str;
	unsigned int page_size;
	int ret;
	unsigned int pages;
};

static const struct mmap_case mmap_cases[] = {
	{ "512K",	4096,	0, 128 },
	{ "512k",	4096,	0, 128 },
	{ "512K",	65536,	0, 8 },
	{ "1",		4096,	0, 1 },
	{ "8",		4096,	0, 8 },
	{ "2M",		4096,	0, 512 },
	{ "1G",		4096,	0, 262144 },
	{ "4K",		4096,	0, 1 },
	{ "4096B",	4096,	0, 1 },
	{ "1000B",	4096,	0, 1 },		/* sizes round up to whole pages */
	{ "4097B",	4096,	0, 2 },
	{ "2147483648",	4096,	0, 2147483648U },
	{ "3",		4096,	-EINVAL, 0 },
	{ "12K",	4096,	-EINVAL, 0 },	/* 3 pages */
	{ "0",		4096,	-EINVAL, 0 },
	{ "0K",		4096,	-EINVAL, 0 },
	{ "",		4096,	-EINVAL, 0 },
	{ "K",		4096,	-EINVAL, 0 },
	{ "5X",		4096,	-EINVAL, 0 },
	{ "-4",		4096,	-EINVAL, 0 },
	{ " 4",		4096,	-EINVAL, 0 },
	{ "4 ",		4096,	-EINVAL, 0 },
	{ "4294967296",	4096,	-EINVAL, 0 },
	{ "99999999999999999999G", 4096, -EINVAL, 0 },
	{ "8",		0,	-EINVAL, 0 },
};

static void test_parse_mmap_pages(void **state)
{
	const struct mmap_case *c = *state;
	unsigned int pages = 12345;

	assert_int_equal(parse_mmap_pages(c->str, c->page_size, &pages), c->ret);
	/* On failure the output is untouched. */
	assert_int_equal(pages, c->ret ? 12345 : c->pages);
}

/* getopt keeps state between calls; a failure mid-cluster must not leak into the next parse. */
static void test_reparse(void **state)
{
	char *bad[] = { "record", "-aXT", NULL };
	char *good[] = { "record", "-T", "sleep", "1", NULL };
	char *good2[] = { "record", "-e", "a", "-e", "b", "-a", NULL };
	struct record_opts opts;
	char err[256];

	assert_int_equal(record_opts__parse(&opts, 2, bad, err, sizeof(err)), -EINVAL);
	assert_int_equal(record_opts__parse(&opts, 4, good, err, sizeof(err)), 0);
	assert_true(opts.sample_time);
	assert_false(opts.system_wide);
	assert_int_equal(opts.argc, 2);
	assert_string_equal(opts.argv[0], "sleep");
	assert_int_equal(record_opts__parse(&opts, 6, good2, err, sizeof(err)), 0);
	assert_string_equal(opts.events, "a,b");
	record_opts__exit(&opts);
	assert_int_equal(record_opts__parse(&opts, 6, good2, err, sizeof(err)), 0);
	assert_string_equal(opts.events, "a,b");
	record_opts__exit(&opts);
}

/* A tiny err buffer still gets a terminated, truncated message. */
static void test_small_err(void **state)
{
	char *argv[] = { "record", "-F", "abc", NULL };
	struct record_opts opts;
	char err[8];

	memset(err, 'X', sizeof(err));
	assert_int_equal(record_opts__parse(&opts, 3, argv, err, 6), -EINVAL);
	assert_string_equal(err, "inval");
	assert_int_equal(err[6], 'X');
	assert_int_equal(record_opts__parse(&opts, 3, argv, NULL, 0), -EINVAL);
}

static void test_usage(void **state)
{
	static const char *const must[] = {
		"-a, --all-cpus", "-C, --cpu", "-p, --pid", "-t, --tid", "-e, --event",
		"-c, --count", "-F, --freq", "-g ", "--call-graph", "-m, --mmap-pages",
		"-o, --output", "-T, --timestamp", "-R, --raw-samples",
		"-N, --no-buildid-cache", "-B, --no-buildid", "--switch-events",
		"-i, --no-inherit", "-q, --quiet", "-v, --verbose", "-r, --realtime",
		"--aio[=<n>]", "--writer", "--threads[=<spec>]", "--status=<seconds>", "-h, --help",
		"0 success", "1 runtime failure", "2 usage error",
	};
	const char *u = record_opts__usage();
	const char *line;
	size_t i;

	assert_non_null(u);
	for (i = 0; i < ARRAY_SIZE(must); i++)
		if (!strstr(u, must[i]))
			fail_msg("usage lacks '%s'", must[i]);
	/* Fits an 80-column terminal. */
	for (line = u; *line; ) {
		size_t len = strcspn(line, "\n");

		if (len > 80)
			fail_msg("usage line longer than 80: %.*s", (int)len, line);
		line += len + (line[len] == '\n');
	}
	assert_int_equal(u[strlen(u) - 1], '\n');
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_mmap_size),
		cmocka_unit_test(test_reparse),
		cmocka_unit_test(test_small_err),
		cmocka_unit_test(test_usage),
	};
	size_t nr = ARRAY_SIZE(fixed) + ARRAY_SIZE(cases) + ARRAY_SIZE(mmap_cases);
	struct CMUnitTest *tests = calloc(nr, sizeof(*tests));
	char **names = calloc(nr, sizeof(*names));
	size_t i, n = 0;
	int ret, j;

	if (!tests || !names)
		return 1;
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		tests[n++] = fixed[i];
	for (i = 0; i < ARRAY_SIZE(cases); i++, n++) {
		struct strbuf sb;

		strbuf__init(&sb);
		strbuf__addf(&sb, "record");
		for (j = 0; j < MAX_ARGS && cases[i].argv[j]; j++)
			strbuf__addf(&sb, " %s", *cases[i].argv[j] ? cases[i].argv[j] : "''");
		names[n] = sb.data;
		tests[n].name = names[n];
		tests[n].test_func = test_case;
		tests[n].initial_state = (void *)&cases[i];
	}
	for (i = 0; i < ARRAY_SIZE(mmap_cases); i++, n++) {
		if (asprintf(&names[n], "parse_mmap_pages('%s', %u)", mmap_cases[i].str,
			     mmap_cases[i].page_size) < 0)
			return 1;
		tests[n].name = names[n];
		tests[n].test_func = test_parse_mmap_pages;
		tests[n].initial_state = (void *)&mmap_cases[i];
	}
	ret = _cmocka_run_group_tests("options", tests, n, NULL, NULL);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(tests);
	return ret;
}
