// SPDX-License-Identifier: GPL-2.0
/*
 * "perfcap record" options: perf record's names and meanings, plus
 * --writer. Pure: no system calls (sysconf(_SC_PAGESIZE) is answered
 * from the auxiliary vector), so tests/unit/test_options.c can run its
 * tables anywhere. Values are checked here, once, so that the record
 * code can trust them; whether an event or a CPU exists is found out
 * when it is opened.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpumap.h"
#include "options.h"
#include "status.h"
#include "thread-spec.h"
#include "util.h"

/*
 * perf refuses dwarf stack dumps above USHRT_MAX rounded down to a
 * multiple of 8: the kernel's sample_stack_user is a u32 but the dump
 * size travels in a u16 of the sample record.
 */
#define OPTS_MAX_DWARF_SIZE 65528

/* Long-only options get values outside the char range. */
enum {
	OPT_CALL_GRAPH = 256,
	OPT_SWITCH_EVENTS,
	OPT_AIO,
	OPT_WRITER,
	OPT_THREADS,
	OPT_STATUS,
};

static const struct option long_options[] = {
	{ "all-cpus",		no_argument,		NULL, 'a' },
	{ "cpu",		required_argument,	NULL, 'C' },
	{ "pid",		required_argument,	NULL, 'p' },
	{ "tid",		required_argument,	NULL, 't' },
	{ "event",		required_argument,	NULL, 'e' },
	{ "count",		required_argument,	NULL, 'c' },
	{ "freq",		required_argument,	NULL, 'F' },
	{ "call-graph",		required_argument,	NULL, OPT_CALL_GRAPH },
	{ "mmap-pages",		required_argument,	NULL, 'm' },
	{ "output",		required_argument,	NULL, 'o' },
	{ "timestamp",		no_argument,		NULL, 'T' },
	{ "raw-samples",	no_argument,		NULL, 'R' },
	{ "no-buildid-cache",	no_argument,		NULL, 'N' },
	{ "no-buildid",		no_argument,		NULL, 'B' },
	{ "switch-events",	no_argument,		NULL, OPT_SWITCH_EVENTS },
	{ "no-inherit",		no_argument,		NULL, 'i' },
	{ "quiet",		no_argument,		NULL, 'q' },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "realtime",		required_argument,	NULL, 'r' },
	/* Optional argument: "--aio" or "--aio=4", never "--aio 4", as in perf. */
	{ "aio",		optional_argument,	NULL, OPT_AIO },
	{ "writer",		required_argument,	NULL, OPT_WRITER },
	/* Optional argument, as in perf: "--threads" or "--threads=core". */
	{ "threads",		optional_argument,	NULL, OPT_THREADS },
	{ "status",		required_argument,	NULL, OPT_STATUS },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 },
};

/*
 * '+': stop at the first non-option, so "perfcap record sleep 1 -x"
 * hands -x to sleep, as perf does. ':': report a missing value as ':'
 * so we can word the message ourselves.
 */
static const char short_options[] = "+:aC:p:t:e:c:F:gm:o:TRNBiqvr:h";

static const char usage_text[] =
	"usage: perfcap record [<options>] [--] [<command> [<args>]]\n"
	"\n"
	"Record a profile into perf.data, with perf record's options.\n"
	"\n"
	"target (none: the whole system until Ctrl-C; with -a/-C/-p/-t a command\n"
	"only says how long to record):\n"
	"  -a, --all-cpus          system-wide collection from all CPUs\n"
	"  -C, --cpu <list>        system-wide, on these CPUs only (\"0-3,7\")\n"
	"  -p, --pid <pids>        record existing processes (comma separated)\n"
	"  -t, --tid <tids>        record existing threads (comma separated)\n"
	"\n"
	"events and sampling:\n"
	"  -e, --event <events>    events (repeatable): cpu-clock, cs:u, r1a8,\n"
	"                          sched:sched_switch; default cycles, else cpu-clock\n"
	"  -c, --count <n>         sample every n events\n"
	"  -F, --freq <n|max>      sample n times a second (default 4000)\n"
	"  -g                      record call graphs (= --call-graph fp)\n"
	"      --call-graph <mode> fp, dwarf or dwarf,<bytes> (at most 65528)\n"
	"  -T, --timestamp         record the sample time\n"
	"  -R, --raw-samples       record raw tracepoint data\n"
	"      --switch-events     record context switch events\n"
	"  -i, --no-inherit        child tasks do not inherit counters\n"
	"\n"
	"buffers and output:\n"
	"  -m, --mmap-pages <n>    data pages per ring (power of two) or size: 512K\n"
	"  -o, --output <file>     output file (default perf.data)\n"
	"  -N, --no-buildid-cache  do not update the build-id cache\n"
	"  -B, --no-buildid        do not collect build ids\n"
	"      --aio[=<n>]         asynchronous writes, n buffers per ring (1..64)\n"
	"      --writer <backend>  sync (default), aio (POSIX AIO), uring (io_uring)\n"
	"      --threads[=<spec>]  reader threads, all writing the one file: cpu\n"
	"                          (default), core, package, numa, or masks\n"
	"                          <cpus>/<affinity>:<cpus>/<affinity>...\n"
	"  -r, --realtime <prio>   run the recorder with SCHED_FIFO priority 1..99\n"
	"\n"
	"messages:\n"
	"      --status=<seconds>  a status line every interval, even off a terminal\n"
	"                          (on a terminal, one line is rewritten twice a second)\n"
	"  -q, --quiet             print only errors\n"
	"  -v, --verbose           more messages (repeatable)\n"
	"  -h, --help              this text\n"
	"\n"
	"Exit status: 0 success, 1 runtime failure, 2 usage error; with a command,\n"
	"a non-zero exit status of the command is passed on.\n";

const char *record_opts__usage(void)
{
	return usage_text;
}

static int usage_err(char *err, int errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int usage_err(char *err, int errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/*
 * An unsigned number, the whole string. strtoull alone would take " 5",
 * "-5" (as a huge value) and "5x"; none of those is what the user meant.
 */
static int parse_u64(const char *str, int base, uint64_t *val)
{
	unsigned long long v;
	char *end;

	if (!str || *str < '0' || *str > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(str, &end, base);
	if (errno || *end)
		return -EINVAL;
	*val = v;
	return 0;
}

/* "1,2,3": positive ids, no empty items. */
static bool valid_id_list(const char *str)
{
	const char *s = str;

	for (;;) {
		uint64_t id = 0;

		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9') {
			id = id * 10 + (uint64_t)(*s - '0');
			if (id > INT_MAX)
				return false;
			s++;
		}
		if (id == 0)
			return false;
		if (!*s)
			return true;
		if (*s != ',')
			return false;
		s++;
	}
}

/*
 * The -m value as a page count before the power-of-two check: plain
 * decimal pages, or a size with a B/K/M/G suffix rounded up to whole
 * pages as perf does.
 */
static int mmap_value_pages(const char *str, unsigned int page_size, uint64_t *pages)
{
	static const struct {
		char tag;
		uint64_t mult;
	} tags[] = {
		{ 'B', 1 }, { 'K', 1ULL << 10 }, { 'M', 1ULL << 20 }, { 'G', 1ULL << 30 },
	};
	size_t len = str ? strlen(str) : 0;
	uint64_t num, bytes;
	char digits[32];
	size_t i;

	if (!len || !page_size || len >= sizeof(digits))
		return -EINVAL;
	if (str[len - 1] >= '0' && str[len - 1] <= '9')
		return parse_u64(str, 10, pages);

	for (i = 0; i < ARRAY_SIZE(tags); i++) {
		/* Lower case too: "512k" can only mean one thing. */
		if ((str[len - 1] & ~0x20) != tags[i].tag)
			continue;
		memcpy(digits, str, len - 1);
		digits[len - 1] = '\0';
		if (parse_u64(digits, 10, &num) ||
		    __builtin_mul_overflow(num, tags[i].mult, &bytes) ||
		    bytes > UINT64_MAX - (page_size - 1))
			return -EINVAL;
		*pages = (bytes + page_size - 1) / page_size;
		return 0;
	}
	return -EINVAL;
}

static bool is_power_of_2(uint64_t n)
{
	return n && !(n & (n - 1));
}

int parse_mmap_pages(const char *str, unsigned int page_size, unsigned int *pages)
{
	uint64_t n;

	/*
	 * perf rounds a non-power-of-two up with a notice; perfcap refuses
	 * it instead, so the ring is exactly the size the user asked for.
	 */
	if (mmap_value_pages(str, page_size, &n) || !is_power_of_2(n) || n > UINT_MAX)
		return -EINVAL;
	*pages = (unsigned int)n;
	return 0;
}

static int parse_mmap_opt(struct record_opts *opts, const char *arg, char *err, int errlen)
{
	long ps = sysconf(_SC_PAGESIZE);
	unsigned int page_size = ps > 0 ? (unsigned int)ps : 4096;
	uint64_t n;

	if (mmap_value_pages(arg, page_size, &n))
		return usage_err(err, errlen, "invalid -m value '%s': expected a number of "
				 "pages or a size with B, K, M or G suffix", arg);
	if (n == 0)
		return usage_err(err, errlen, "invalid -m value '%s': need at least one page",
				 arg);
	if (n > UINT_MAX / 2 + 1)
		return usage_err(err, errlen, "invalid -m value '%s': %llu pages is too many",
				 arg, (unsigned long long)n);
	if (!is_power_of_2(n))
		return usage_err(err, errlen, "invalid -m value '%s': %llu pages of %u bytes "
				 "is not a power of two (next one up: %llu pages)", arg,
				 (unsigned long long)n, page_size,
				 1ULL << (64 - __builtin_clzll(n)));
	opts->mmap_pages = (unsigned int)n;
	return 0;
}

static int parse_call_graph(struct record_opts *opts, const char *arg, char *err, int errlen)
{
	const char *comma = strchr(arg, ',');
	uint64_t size;

	if (!strcmp(arg, "fp")) {
		opts->callgraph = CALLGRAPH_FP;
		return 0;
	}
	if (!strcmp(arg, "dwarf")) {
		opts->callgraph = CALLGRAPH_DWARF;
		opts->dwarf_stack_size = OPTS_DEFAULT_DWARF_SIZE;
		return 0;
	}
	if (comma && comma - arg == 5 && !strncmp(arg, "dwarf", 5)) {
		/*
		 * perf reads the size with base 0 and rounds it up to u64s;
		 * the maximum is a multiple of 8, so checking before rounding
		 * is enough.
		 */
		if (parse_u64(comma + 1, 0, &size) || size == 0 ||
		    size > OPTS_MAX_DWARF_SIZE)
			return usage_err(err, errlen, "invalid --call-graph value '%s': "
					 "dwarf stack size must be 1..%d bytes",
					 arg, OPTS_MAX_DWARF_SIZE);
		opts->callgraph = CALLGRAPH_DWARF;
		opts->dwarf_stack_size = (uint32_t)((size + 7) & ~7ULL);
		return 0;
	}
	if (!strcmp(arg, "lbr"))
		return usage_err(err, errlen, "invalid --call-graph value 'lbr': perfcap "
				 "supports fp and dwarf[,SIZE]");
	return usage_err(err, errlen, "invalid --call-graph value '%s': expected fp, "
			 "dwarf or dwarf,SIZE", arg);
}

/* -e given twice means both lists, as in perf. */
static void add_events(struct record_opts *opts, const char *arg)
{
	size_t a, b;
	char *joined;

	if (!opts->events) {
		opts->events = arg;
		return;
	}
	a = strlen(opts->events);
	b = strlen(arg);
	joined = xzalloc(a + 1 + b + 1);
	memcpy(joined, opts->events, a);
	joined[a] = ',';
	memcpy(joined + a + 1, arg, b);
	free(opts->events_buf);
	opts->events_buf = joined;
	opts->events = joined;
}

/* Which option the failing argv element spelled, for the message. */
static int option_error(int c, char **argv, int argc, int cur, char *err, int errlen)
{
	const char *arg = cur < argc ? argv[cur] : "";
	int len;

	if (!strncmp(arg, "--", 2)) {
		len = (int)strcspn(arg, "=");
		if (c == ':')
			return usage_err(err, errlen, "option '%.*s' requires a value", len, arg);
		if (optopt)
			return usage_err(err, errlen, "option '%.*s' does not take a value",
					 len, arg);
		return usage_err(err, errlen, "unknown or ambiguous option '%.*s' "
				 "(see perfcap record --help)", len, arg);
	}
	if (c == ':')
		return usage_err(err, errlen, "option '-%c' requires a value", optopt);
	return usage_err(err, errlen, "unknown option '-%c' (see perfcap record --help)",
			 optopt);
}

static int check_conflicts(struct record_opts *opts, char *err, int errlen)
{
	if (opts->period && (opts->freq || opts->freq_max))
		return usage_err(err, errlen, "-c and -F are mutually exclusive: -c samples "
				 "every N events, -F N times a second");
	if (opts->pid_list && opts->tid_list)
		return usage_err(err, errlen, "-p and -t are mutually exclusive");
	/* No target at all: the whole system until SIGINT, as perf record does. */
	if (!opts->system_wide && !opts->cpu_list && !opts->pid_list &&
	    !opts->tid_list && !opts->argc)
		opts->system_wide = true;
	if (opts->aio && opts->writer && !strcmp(opts->writer, "sync"))
		return usage_err(err, errlen, "--aio asks for asynchronous writes; it "
				 "conflicts with --writer=sync");

	/*
	 * perf lets -p/-t win over -a/-C with a warning; do the same and
	 * leave the warning for the caller to print.
	 */
	if ((opts->pid_list || opts->tid_list) && (opts->system_wide || opts->cpu_list)) {
		opts->warning = opts->cpu_list ? "-p/-t given: ignoring -C (PID/TID switch "
						 "overriding CPU, as in perf)"
					       : "-p/-t given: ignoring -a (PID/TID switch "
						 "overriding SYSTEM, as in perf)";
		opts->system_wide = false;
		opts->cpu_list = NULL;
	}
	return 0;
}

void record_opts__exit(struct record_opts *opts)
{
	free(opts->events_buf);
	opts->events_buf = NULL;
	opts->events = NULL;
}

static int parse_args(struct record_opts *opts, int argc, char **argv,
		      char *err, int errlen)
{
	bool aio_given = false;
	uint64_t val;
	int c, cur, ret;

	/*
	 * optind = 0 makes glibc re-read the optstring and forget any state
	 * left from an earlier parse; tests parse many command lines.
	 */
	optind = 0;
	opterr = 0;
	for (;;) {
		/* Where getopt starts: the argv element a bad option came from. */
		cur = optind ? optind : 1;
		c = getopt_long(argc, argv, short_options, long_options, NULL);
		if (c == -1)
			break;
		switch (c) {
		case 'a':
			opts->system_wide = true;
			break;
		case 'C': {
			struct cpu_map *map = cpu_map__parse(optarg);

			if (!map)
				return usage_err(err, errlen, "invalid -C value '%s': expected a "
						 "CPU list like 0-3,7", optarg);
			cpu_map__delete(map);
			opts->cpu_list = optarg;
			/* -C records those CPUs system-wide, as in perf. */
			opts->system_wide = true;
			break;
		}
		case 'p':
		case 't':
			if (!valid_id_list(optarg))
				return usage_err(err, errlen, "invalid -%c value '%s': expected "
						 "comma separated %s ids", c, optarg,
						 c == 'p' ? "process" : "thread");
			if (c == 'p')
				opts->pid_list = optarg;
			else
				opts->tid_list = optarg;
			break;
		case 'e':
			if (!*optarg)
				return usage_err(err, errlen, "invalid -e value '': expected an "
						 "event list like cpu-clock,cs");
			add_events(opts, optarg);
			break;
		case 'c':
			if (parse_u64(optarg, 0, &val) || !val)
				return usage_err(err, errlen, "invalid -c value '%s': expected a "
						 "positive number", optarg);
			opts->period = val;
			break;
		case 'F':
			if (!strcmp(optarg, "max")) {
				opts->freq_max = true;
				opts->freq = 0;
				break;
			}
			if (parse_u64(optarg, 10, &val) || !val)
				return usage_err(err, errlen, "invalid -F value '%s': expected a "
						 "positive number or 'max'", optarg);
			opts->freq = val;
			opts->freq_max = false;
			break;
		case 'g':
			/* -g after --call-graph dwarf keeps dwarf, as in perf. */
			if (opts->callgraph == CALLGRAPH_NONE)
				opts->callgraph = CALLGRAPH_FP;
			break;
		case OPT_CALL_GRAPH:
			ret = parse_call_graph(opts, optarg, err, errlen);
			if (ret)
				return ret;
			break;
		case 'm':
			ret = parse_mmap_opt(opts, optarg, err, errlen);
			if (ret)
				return ret;
			break;
		case 'o':
			if (!*optarg)
				return usage_err(err, errlen, "invalid -o value '': expected a "
						 "file name");
			opts->output = optarg;
			break;
		case 'T':
			opts->sample_time = true;
			break;
		case 'R':
			opts->raw = true;
			break;
		case 'N':
			opts->no_buildid_cache = true;
			break;
		case 'B':
			opts->no_buildid = true;
			break;
		case OPT_SWITCH_EVENTS:
			opts->switch_events = true;
			break;
		case 'i':
			opts->no_inherit = true;
			break;
		case 'q':
			opts->quiet = 1;
			break;
		case 'v':
			opts->verbose++;
			break;
		case 'r':
			if (parse_u64(optarg, 10, &val) || val < 1 || val > 99)
				return usage_err(err, errlen, "invalid -r value '%s': expected a "
						 "SCHED_FIFO priority 1..99", optarg);
			opts->realtime = (int)val;
			break;
		case OPT_AIO:
			aio_given = true;
			if (!optarg) {
				opts->aio = OPTS_DEFAULT_AIO;
				break;
			}
			if (parse_u64(optarg, 10, &val) || val < 1 || val > OPTS_MAX_AIO)
				return usage_err(err, errlen, "invalid --aio value '%s': expected "
						 "1..%d buffers per ring", optarg, OPTS_MAX_AIO);
			opts->aio = (int)val;
			break;
		case OPT_WRITER:
			if (strcmp(optarg, "sync") && strcmp(optarg, "aio") &&
			    strcmp(optarg, "uring"))
				return usage_err(err, errlen, "invalid --writer value '%s': "
						 "expected sync, aio or uring", optarg);
			opts->writer = optarg;
			break;
		case OPT_THREADS: {
			char msg[200];

			if (thread_spec__check(optarg, msg, sizeof(msg)))
				return usage_err(err, errlen, "%s", msg);
			opts->threads = true;
			opts->threads_spec = optarg && *optarg ? optarg : "cpu";
			break;
		}
		case OPT_STATUS:
			if (status__parse_interval(optarg, &opts->status_ns))
				return usage_err(err, errlen, "invalid --status value '%s': expected "
						 "seconds, 0.1 to 86400", optarg);
			break;
		case 'h':
			opts->help = true;
			break;
		default: /* '?' or ':' */
			return option_error(c, argv, argc, cur, err, errlen);
		}
	}

	if (optind < argc) {
		opts->argv = argv + optind;
		opts->argc = argc - optind;
	}
	/* --help wins over everything else on the line, as in perf. */
	if (opts->help)
		return 0;

	ret = check_conflicts(opts, err, errlen);
	if (ret)
		return ret;

	/* Settle the backend here so the record code needs no rules of its own. */
	if (!opts->writer)
		opts->writer = opts->aio ? "aio" : "sync";
	if (!aio_given && strcmp(opts->writer, "sync"))
		opts->aio = OPTS_DEFAULT_AIO;
	return 0;
}

int record_opts__parse(struct record_opts *opts, int argc, char **argv,
		       char *err, int errlen)
{
	int ret;

	memset(opts, 0, sizeof(*opts));
	opts->output = "perf.data";
	opts->dwarf_stack_size = OPTS_DEFAULT_DWARF_SIZE;
	if (err && errlen > 0)
		err[0] = '\0';

	ret = parse_args(opts, argc, argv, err, errlen);
	/* On a usage error nothing is left for the caller to free. */
	if (ret)
		record_opts__exit(opts);
	return ret;
}
