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
#include <linux/perf_event.h>
#include <stddef.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "events/cpumap.h"
#include "cli/options.h"
#include "events/perf-regs.h"
#include "record/status.h"
#include "record/thread-spec.h"
#include "util.h"

/*
 * perf refuses dwarf stack dumps above USHRT_MAX rounded down to a
 * multiple of 8: the kernel's sample_stack_user is a u32 but the dump
 * size travels in a u16 of the sample record.
 */
#define OPTS_MAX_DWARF_SIZE 65528

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

/* "16K", "2M": a byte count as perf prints it in its rounding notice. */
static void size_str(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= (1ULL << 20) && !(bytes & ((1ULL << 20) - 1)))
		snprintf(buf, size, "%lluM", (unsigned long long)(bytes >> 20));
	else if (bytes >= 1024 && !(bytes & 1023))
		snprintf(buf, size, "%lluK", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, size, "%lluB", (unsigned long long)bytes);
}

/*
 * One -m value: pages or a size, rounded up to a power of two with
 * perf's notice ("rounding mmap pages size to 16K (4 pages)").
 */
static int mmap_one(struct record_opts *opts, const char *what, const char *val,
		    unsigned int page_size, unsigned int *out, char *notice, size_t nsize,
		    char *err, int errlen)
{
	uint64_t n;
	char sz[32];

	if (mmap_value_pages(val, page_size, &n))
		return usage_err(err, errlen, "invalid -m value '%s': expected a number of "
				 "pages or a size with B, K, M or G suffix", what);
	if (n == 0)
		return usage_err(err, errlen, "invalid -m value '%s': need at least one page",
				 what);
	if (n > UINT_MAX / 2 + 1)
		return usage_err(err, errlen, "invalid -m value '%s': %llu pages is too many",
				 what, (unsigned long long)n);
	if (!is_power_of_2(n)) {
		n = 1ULL << (64 - __builtin_clzll(n));
		size_str(n * page_size, sz, sizeof(sz));
		snprintf(notice, nsize, "rounding mmap pages size to %s (%llu pages)", sz,
			 (unsigned long long)n);
	}
	(void)opts;
	*out = (unsigned int)n;
	return 0;
}

/* -m N or -m N,M (M: AUX area pages); either may be a size. "-m ,M" keeps the default N. */
static int parse_mmap_opt(struct record_opts *opts, const char *arg, char *err, int errlen)
{
	long ps = sysconf(_SC_PAGESIZE);
	unsigned int page_size = ps > 0 ? (unsigned int)ps : 4096;
	const char *comma = strchr(arg, ',');
	char first[32];
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
	int ret;

	if (len >= sizeof(first))
		return usage_err(err, errlen, "invalid -m value '%s': expected a number of "
				 "pages or a size with B, K, M or G suffix", arg);
	memcpy(first, arg, len);
	first[len] = '\0';
	if (len || !comma) {
		ret = mmap_one(opts, arg, first, page_size, &opts->mmap_pages, opts->notice[0],
			       sizeof(opts->notice[0]), err, errlen);
		if (ret)
			return ret;
	}
	if (comma)
		return mmap_one(opts, arg, comma + 1, page_size, &opts->aux_pages,
				opts->notice[1], sizeof(opts->notice[1]), err, errlen);
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
	/* As perf: asked for here, refused by the kernel where the PMU has no LBR. */
	if (!strcmp(arg, "lbr")) {
		opts->callgraph = CALLGRAPH_LBR;
		return 0;
	}
	return usage_err(err, errlen, "invalid --call-graph value '%s': expected fp, "
			 "dwarf, dwarf,SIZE or lbr", arg);
}

/* ---- the table ------------------------------------------------------- */

/*
 * Each option is one row: its names, whether it takes a value, its help
 * line, and either a field to set or a handler. getopt's tables, the
 * --help text and --list-options are all made from these rows, so an
 * option exists in all of them or in none.
 */
enum opt_arg { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL };
enum opt_kind { KIND_SECTION, KIND_FLAG, KIND_COUNT, KIND_FN };

struct parse_state {
	bool aio_given;
	bool unset;		/* a --no- form of an ARG_NONE handler's row */
	int last_event_arg;	/* index into event_args of the last -e; -1 none */
};

typedef int (*opt_fn)(struct record_opts *o, const char *arg, struct parse_state *st,
		      char *err, int errlen);

struct opt_def {
	const char *name;	/* long name; NULL: short only */
	char key;		/* short letter; 0: long only */
	enum opt_arg arg;
	const char *meta;	/* the value in --help: "<n>" */
	enum opt_kind kind;
	size_t off;		/* KIND_FLAG (bool) and KIND_COUNT (int): the field */
	opt_fn fn;		/* KIND_FN */
	const char *help;	/* NULL: hidden from --help (an alias) */
};

#define SECTION(title) { .kind = KIND_SECTION, .help = title }
#define FLAG(lname, k, field, h) \
	{ .name = lname, .key = k, .kind = KIND_FLAG, \
	  .off = offsetof(struct record_opts, field), .help = h }
#define OPT(lname, k, a, m, handler, h) \
	{ .name = lname, .key = k, .arg = a, .meta = m, .kind = KIND_FN, .fn = handler, .help = h }

/* Handlers: each checks its value once and fills record_opts. */

static char *own(struct record_opts *o, char *s)
{
	o->owned = xrealloc(o->owned, (o->nr_owned + 1) * sizeof(*o->owned));
	o->owned[o->nr_owned++] = s;
	return s;
}

static int opt_cpu(struct record_opts *o, const char *arg, struct parse_state *st,
		   char *err, int errlen)
{
	struct cpu_map *map = cpu_map__parse(arg);

	(void)st;
	if (!map)
		return usage_err(err, errlen, "invalid -C value '%s': expected a CPU list "
				 "like 0-3,7", arg);
	cpu_map__delete(map);
	o->cpu_list = arg;
	/* -C records those CPUs system-wide, as in perf. */
	o->system_wide = true;
	return 0;
}

static int opt_ids(struct record_opts *o, const char *arg, char c, char *err, int errlen)
{
	if (!valid_id_list(arg))
		return usage_err(err, errlen, "invalid -%c value '%s': expected comma separated "
				 "%s ids", c, arg, c == 'p' ? "process" : "thread");
	if (c == 'p')
		o->pid_list = arg;
	else
		o->tid_list = arg;
	return 0;
}

static int opt_pid(struct record_opts *o, const char *arg, struct parse_state *st,
		   char *err, int errlen)
{
	(void)st;
	return opt_ids(o, arg, 'p', err, errlen);
}

static int opt_tid(struct record_opts *o, const char *arg, struct parse_state *st,
		   char *err, int errlen)
{
	(void)st;
	return opt_ids(o, arg, 't', err, errlen);
}

/* -e given twice means both lists, as in perf; each keeps its own --filter. */
static int opt_event(struct record_opts *o, const char *arg, struct parse_state *st,
		     char *err, int errlen)
{
	size_t a, b;
	char *joined;

	if (!*arg)
		return usage_err(err, errlen, "invalid -e value '': expected an event list "
				 "like cpu-clock,cs");
	o->event_args = xrealloc(o->event_args, (o->nr_event_args + 1) * sizeof(*o->event_args));
	o->event_args[o->nr_event_args] = (struct event_arg){ .events = arg };
	st->last_event_arg = o->nr_event_args++;

	if (!o->events) {
		o->events = arg;
		return 0;
	}
	a = strlen(o->events);
	b = strlen(arg);
	joined = own(o, xzalloc(a + 1 + b + 1));
	memcpy(joined, o->events, a);
	joined[a] = ',';
	memcpy(joined + a + 1, arg, b);
	o->events = joined;
	return 0;
}

/*
 * --filter belongs to the -e before it. A second --filter for the same
 * -e is ANDed with the first, as perf appends tracepoint filters.
 */
static int opt_filter(struct record_opts *o, const char *arg, struct parse_state *st,
		      char *err, int errlen)
{
	struct event_arg *ea;
	char *both;

	if (st->last_event_arg < 0)
		return usage_err(err, errlen, "--filter '%s' must follow the -e tracepoint "
				 "event it filters", arg);
	if (!*arg)
		return usage_err(err, errlen, "invalid --filter value '': expected a "
				 "tracepoint filter like 'prev_pid == 0'");
	ea = &o->event_args[st->last_event_arg];
	if (!ea->filter) {
		ea->filter = arg;
		return 0;
	}
	both = own(o, xzalloc(strlen(ea->filter) + strlen(arg) + 9));
	sprintf(both, "(%s) && (%s)", ea->filter, arg);
	ea->filter = both;
	return 0;
}

static int opt_count(struct record_opts *o, const char *arg, struct parse_state *st,
		     char *err, int errlen)
{
	uint64_t val;

	(void)st;
	if (parse_u64(arg, 0, &val) || !val)
		return usage_err(err, errlen, "invalid -c value '%s': expected a positive "
				 "number", arg);
	o->period = val;
	return 0;
}

static int opt_freq(struct record_opts *o, const char *arg, struct parse_state *st,
		    char *err, int errlen)
{
	uint64_t val;

	(void)st;
	if (!strcmp(arg, "max")) {
		o->freq_max = true;
		o->freq = 0;
		return 0;
	}
	if (parse_u64(arg, 10, &val) || !val)
		return usage_err(err, errlen, "invalid -F value '%s': expected a positive "
				 "number or 'max'", arg);
	o->freq = val;
	o->freq_max = false;
	return 0;
}

static int opt_g(struct record_opts *o, const char *arg, struct parse_state *st,
		 char *err, int errlen)
{
	(void)arg, (void)st, (void)err, (void)errlen;
	/* -g after --call-graph dwarf keeps dwarf, as in perf. */
	if (o->callgraph == CALLGRAPH_NONE)
		o->callgraph = CALLGRAPH_FP;
	return 0;
}

static int opt_call_graph(struct record_opts *o, const char *arg, struct parse_state *st,
			  char *err, int errlen)
{
	(void)st;
	return parse_call_graph(o, arg, err, errlen);
}

static int parse_regs(const char *opt, const char *arg, uint64_t *mask, bool *list,
		      char *err, int errlen)
{
	char bad[32];

	if (arg && !strcmp(arg, "?")) {
		*list = true;
		return 0;
	}
	if (perf_regs__parse(arg, mask, bad, sizeof(bad)))
		return usage_err(err, errlen, "invalid %s value '%s': unknown register '%s' "
				 "(registers: %s)", opt, arg, bad, perf_regs__names());
	return 0;
}

static int opt_user_regs(struct record_opts *o, const char *arg, struct parse_state *st,
			 char *err, int errlen)
{
	(void)st;
	return parse_regs("--user-regs", arg, &o->user_regs, &o->list_user_regs, err, errlen);
}

static int opt_intr_regs(struct record_opts *o, const char *arg, struct parse_state *st,
			 char *err, int errlen)
{
	(void)st;
	return parse_regs("-I/--intr-regs", arg, &o->intr_regs, &o->list_intr_regs, err, errlen);
}

/* clock_gettime() clocks by perf's names and short names, or a number. */
static int opt_clockid(struct record_opts *o, const char *arg, struct parse_state *st,
		       char *err, int errlen)
{
	static const struct {
		const char *name;
		int id;
	} clocks[] = {
		{ "monotonic", CLOCK_MONOTONIC },	{ "mono", CLOCK_MONOTONIC },
		{ "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME },		{ "real", CLOCK_REALTIME },
		{ "boottime", CLOCK_BOOTTIME },		{ "boot", CLOCK_BOOTTIME },
		{ "tai", CLOCK_TAI },
	};
	const char *name = arg;
	uint64_t val;

	(void)st;
	/* perf also takes the kernel's spelling: CLOCK_MONOTONIC. */
	if (!strncasecmp(name, "CLOCK_", 6))
		name += 6;
	for (size_t i = 0; i < ARRAY_SIZE(clocks); i++) {
		if (!strcasecmp(name, clocks[i].name)) {
			o->use_clockid = true;
			o->clockid = clocks[i].id;
			return 0;
		}
	}
	if (!parse_u64(arg, 10, &val) && val < 64) {
		o->use_clockid = true;
		o->clockid = (int)val;
		return 0;
	}
	return usage_err(err, errlen, "invalid -k value '%s': expected monotonic, "
			 "monotonic_raw, realtime, boottime, tai or a clock number", arg);
}

static int opt_branch_any(struct record_opts *o, const char *arg, struct parse_state *st,
			  char *err, int errlen)
{
	(void)arg, (void)err, (void)errlen;
	/* --no-branch-any: no branch stack, as perf's callback does when unset. */
	if (st->unset)
		o->branch_stack = 0;
	else
		o->branch_stack |= PERF_SAMPLE_BRANCH_ANY;
	return 0;
}

/* -j any,u: perf's branch filter names; privilege levels alone mean "any" branch. */
static int opt_branch_filter(struct record_opts *o, const char *arg, struct parse_state *st,
			     char *err, int errlen)
{
	static const struct {
		const char *name;
		uint64_t bit;
	} modes[] = {
		{ "u", PERF_SAMPLE_BRANCH_USER },
		{ "k", PERF_SAMPLE_BRANCH_KERNEL },
		{ "hv", PERF_SAMPLE_BRANCH_HV },
		{ "any", PERF_SAMPLE_BRANCH_ANY },
		{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL },
		{ "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
		{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL },
		{ "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
		{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX },
		{ "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
		{ "cond", PERF_SAMPLE_BRANCH_COND },
		{ "ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP },
		{ "call", PERF_SAMPLE_BRANCH_CALL },
		{ "call_stack", PERF_SAMPLE_BRANCH_CALL_STACK },
		{ "save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE },
	};
	const uint64_t levels = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL |
				PERF_SAMPLE_BRANCH_HV;
	uint64_t mask = 0;
	const char *s = arg;

	(void)st;
	for (;;) {
		size_t len = strcspn(s, ",");
		size_t i;

		for (i = 0; i < ARRAY_SIZE(modes); i++)
			if (strlen(modes[i].name) == len && !strncmp(modes[i].name, s, len))
				break;
		if (i == ARRAY_SIZE(modes))
			return usage_err(err, errlen, "invalid -j value '%s': unknown branch "
					 "filter '%.*s' (any, any_call, any_ret, ind_call, "
					 "ind_jmp, call, cond, call_stack, abort_tx, in_tx, "
					 "no_tx, save_type; u, k, hv)", arg, (int)len, s);
		mask |= modes[i].bit;
		if (!s[len])
			break;
		s += len + 1;
	}
	if (!(mask & ~levels))
		mask |= PERF_SAMPLE_BRANCH_ANY;
	o->branch_stack = mask;
	return 0;
}

static int opt_mmap(struct record_opts *o, const char *arg, struct parse_state *st,
		    char *err, int errlen)
{
	(void)st;
	return parse_mmap_opt(o, arg, err, errlen);
}

static int opt_output(struct record_opts *o, const char *arg, struct parse_state *st,
		      char *err, int errlen)
{
	(void)st;
	if (!*arg)
		return usage_err(err, errlen, "invalid -o value '': expected a file name "
				 "(or - for a pipe)");
	o->output = arg;
	o->output_given = true;
	return 0;
}

static int opt_realtime(struct record_opts *o, const char *arg, struct parse_state *st,
			char *err, int errlen)
{
	uint64_t val;

	(void)st;
	if (parse_u64(arg, 10, &val) || val < 1 || val > 99)
		return usage_err(err, errlen, "invalid -r value '%s': expected a SCHED_FIFO "
				 "priority 1..99", arg);
	o->realtime = (int)val;
	return 0;
}

static int opt_aio(struct record_opts *o, const char *arg, struct parse_state *st,
		   char *err, int errlen)
{
	uint64_t val;

	st->aio_given = true;
	if (!arg) {
		o->aio = OPTS_DEFAULT_AIO;
		return 0;
	}
	if (parse_u64(arg, 10, &val) || val < 1 || val > OPTS_MAX_AIO)
		return usage_err(err, errlen, "invalid --aio value '%s': expected 1..%d "
				 "buffers per ring", arg, OPTS_MAX_AIO);
	o->aio = (int)val;
	return 0;
}

static int opt_writer(struct record_opts *o, const char *arg, struct parse_state *st,
		      char *err, int errlen)
{
	(void)st;
	if (strcmp(arg, "sync") && strcmp(arg, "aio") && strcmp(arg, "uring"))
		return usage_err(err, errlen, "invalid --writer value '%s': expected sync, "
				 "aio or uring", arg);
	o->writer = arg;
	return 0;
}

static int opt_threads(struct record_opts *o, const char *arg, struct parse_state *st,
		       char *err, int errlen)
{
	char msg[200];

	(void)st;
	if (thread_spec__check(arg, msg, sizeof(msg)))
		return usage_err(err, errlen, "%s", msg);
	o->threads = true;
	o->threads_spec = arg && *arg ? arg : "cpu";
	return 0;
}

static int opt_comp_level(struct record_opts *o, const char *arg, struct parse_state *st,
			  char *err, int errlen)
{
	uint64_t val;

	(void)st;
	o->comp_auto = false;
	if (!arg || !*arg) {
		o->comp_level = 1;
		return 0;
	}
	/* perfcap's own: level 1 (as -z), from when the output falls behind (stage-triage.c). */
	if (!strcmp(arg, "auto")) {
		o->comp_level = 1;
		o->comp_auto = true;
		return 0;
	}
	if (parse_u64(arg, 10, &val) || val > OPTS_MAX_COMP_LEVEL)
		return usage_err(err, errlen, "invalid -z value '%s': expected a zstd level "
				 "1..%d, or auto", arg, OPTS_MAX_COMP_LEVEL);
	/* zstd reads level 0 as its default level, 3; perf passes 0 on to it. */
	o->comp_level = val ? (int)val : 3;
	return 0;
}

/* -S[e][size], as perf 6.1: e also takes a snapshot at the end; size in bytes (0x1000 too). */
static int opt_snapshot(struct record_opts *o, const char *arg, struct parse_state *st,
			char *err, int errlen)
{
	uint64_t val = 0;

	(void)st;
	o->aux_snapshot = true;
	if (!arg)
		return 0;
	if (*arg == 'e') {
		o->aux_snapshot_on_exit = true;
		arg++;
	}
	if (*arg && parse_u64(arg, 0, &val))
		return usage_err(err, errlen, "invalid -S value '%s': expected [e][size in "
				 "bytes]", arg);
	o->aux_snapshot_size = val;
	return 0;
}

static int opt_aux_sample(struct record_opts *o, const char *arg, struct parse_state *st,
			  char *err, int errlen)
{
	uint64_t val = OPTS_DEFAULT_AUX_SAMPLE_SIZE;

	(void)st;
	o->aux_sample = true;
	if (arg && *arg && (parse_u64(arg, 0, &val) || !val || val > OPTS_MAX_AUX_SAMPLE_SIZE))
		return usage_err(err, errlen, "invalid --aux-sample value '%s': expected a size "
				 "in bytes, 1..%d", arg, OPTS_MAX_AUX_SAMPLE_SIZE);
	o->aux_sample_size = (uint32_t)val;
	return 0;
}

/* "100M", "4096", "1G": bytes, with perf's B/K/M/G tags. */
static int parse_size(const char *str, uint64_t *bytes)
{
	static const struct {
		char tag;
		int shift;
	} tags[] = { { 'B', 0 }, { 'K', 10 }, { 'M', 20 }, { 'G', 30 } };
	size_t len = strlen(str);
	char digits[32];
	uint64_t n;

	if (!len || len >= sizeof(digits))
		return -EINVAL;
	if (str[len - 1] >= '0' && str[len - 1] <= '9')
		return parse_u64(str, 10, bytes);
	/* Upper case only, as perf: "5m" is five minutes to --switch-output. */
	for (size_t i = 0; i < ARRAY_SIZE(tags); i++) {
		if (str[len - 1] != tags[i].tag)
			continue;
		memcpy(digits, str, len - 1);
		digits[len - 1] = '\0';
		if (parse_u64(digits, 10, &n) || (n && __builtin_clzll(n) < tags[i].shift))
			return -EINVAL;
		*bytes = n << tags[i].shift;
		return 0;
	}
	return -EINVAL;
}

/* "30s", "5m", "1h", "2d", "500ms": nanoseconds. A bare number is seconds. */
static int parse_duration(const char *str, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t mult;
	} units[] = {
		{ "ms", 1000000ULL }, { "s", 1000000000ULL }, { "m", 60000000000ULL },
		{ "h", 3600000000000ULL }, { "d", 86400000000000ULL },
	};
	size_t len = strspn(str, "0123456789");
	char digits[24];
	uint64_t n;

	if (!len || len >= sizeof(digits))
		return -EINVAL;
	memcpy(digits, str, len);
	digits[len] = '\0';
	if (parse_u64(digits, 10, &n) || !n)
		return -EINVAL;
	if (!str[len]) {
		*ns = n * 1000000000ULL;
		return n > UINT64_MAX / 1000000000ULL ? -EINVAL : 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(str + len, units[i].unit))
			return __builtin_mul_overflow(n, units[i].mult, ns) ? -EINVAL : 0;
	return -EINVAL;
}

static int opt_max_size(struct record_opts *o, const char *arg, struct parse_state *st,
			char *err, int errlen)
{
	(void)st;
	if (parse_size(arg, &o->max_size) || !o->max_size)
		return usage_err(err, errlen, "invalid --max-size value '%s': expected a size "
				 "in bytes, with B, K, M or G suffix", arg);
	return 0;
}

static int opt_user_buffer(struct record_opts *o, const char *arg, struct parse_state *st,
			   char *err, int errlen)
{
	(void)st;
	if (parse_size(arg, &o->user_buffer))
		return usage_err(err, errlen, "invalid --user-buffer-size value '%s': expected a "
				 "size in bytes, with B, K, M or G suffix (0: none)", arg);
	o->user_buffer_set = true;
	return 0;
}

/*
 * --switch-output: "signal" (or nothing) waits for SIGUSR2; a size
 * ("10M") or a time ("30s", "5m") switches on its own, as in perf.
 */
static int opt_switch_output(struct record_opts *o, const char *arg, struct parse_state *st,
			     char *err, int errlen)
{
	(void)st;
	if (!arg || !strcmp(arg, "signal")) {
		o->switch_output = SWITCH_OUTPUT_SIGNAL;
		return 0;
	}
	if (!parse_size(arg, &o->switch_output_size) && o->switch_output_size) {
		o->switch_output = SWITCH_OUTPUT_SIZE;
		return 0;
	}
	if (!parse_duration(arg, &o->switch_output_ns)) {
		o->switch_output = SWITCH_OUTPUT_TIME;
		return 0;
	}
	return usage_err(err, errlen, "invalid --switch-output value '%s': expected signal, "
			 "a size (10M, with B/K/M/G) or a time (30s, with s/m/h/d)", arg);
}

static int opt_switch_max_files(struct record_opts *o, const char *arg, struct parse_state *st,
				char *err, int errlen)
{
	uint64_t val;

	(void)st;
	if (parse_u64(arg, 10, &val) || !val || val > INT_MAX)
		return usage_err(err, errlen, "invalid --switch-max-files value '%s': expected "
				 "a positive number", arg);
	o->switch_max_files = (int)val;
	return 0;
}

/* -D 500, -D -1 (start disabled), or -D 10-20,30-40 (enabled in those windows, in ms). */
static int opt_delay(struct record_opts *o, const char *arg, struct parse_state *st,
		     char *err, int errlen)
{
	const char *s = arg;
	uint64_t val, prev_end = 0;

	(void)st;
	if (!strcmp(arg, "-1")) {
		o->delay_ms = -1;
		return 0;
	}
	if (!strchr(arg, '-')) {
		if (parse_u64(arg, 10, &val) || val > INT64_MAX)
			return usage_err(err, errlen, "invalid -D value '%s': expected "
					 "milliseconds, -1, or ranges like 10-20,30-40", arg);
		o->delay_ms = (int64_t)val;
		return 0;
	}
	free(o->delay_ranges);
	o->delay_ranges = NULL;
	o->nr_delay_ranges = 0;
	for (;;) {
		size_t len = strcspn(s, ",");
		char item[48], *dash;
		uint64_t a, b;

		if (len >= sizeof(item))
			goto bad;
		memcpy(item, s, len);
		item[len] = '\0';
		dash = strchr(item, '-');
		if (!dash)
			goto bad;
		*dash = '\0';
		if (parse_u64(item, 10, &a) || parse_u64(dash + 1, 10, &b) || b <= a ||
		    (o->nr_delay_ranges && a < prev_end))
			goto bad;
		o->delay_ranges = xrealloc(o->delay_ranges,
					   (o->nr_delay_ranges + 1) * sizeof(*o->delay_ranges));
		o->delay_ranges[o->nr_delay_ranges++] = (struct delay_range){ a, b };
		prev_end = b;
		if (!s[len])
			break;
		s += len + 1;
	}
	o->delay_ms = (int64_t)o->delay_ranges[0].start_ms;
	return 0;
bad:
	free(o->delay_ranges);
	o->delay_ranges = NULL;
	o->nr_delay_ranges = 0;
	return usage_err(err, errlen, "invalid -D value '%s': ranges must be START-END in "
			 "ms, increasing and not overlapping, like 10-20,30-40", arg);
}

static bool parse_fd(const char *s, int *fd)
{
	uint64_t v;

	if (parse_u64(s, 10, &v) || v > INT_MAX)
		return false;
	*fd = (int)v;
	return true;
}

/* --control fifo:CTL[,ACK] or fd:CTL[,ACK]. Opening is the recorder's job. */
static int opt_control(struct record_opts *o, const char *arg, struct parse_state *st,
		       char *err, int errlen)
{
	struct control_spec *c = &o->control;
	const char *rest;
	char *ctl, *ack;

	(void)st;
	memset(c, 0, sizeof(*c));
	c->ack_fd = -1;
	if (!strncmp(arg, "fifo:", 5)) {
		rest = arg + 5;
		ctl = own(o, xstrdup(rest));
		ack = strchr(ctl, ',');
		if (ack)
			*ack++ = '\0';
		if (!*ctl || (ack && !*ack))
			goto bad;
		c->fifo = true;
		c->ctl_path = ctl;
		c->ack_path = ack;
		c->ctl_fd = -1;
	} else if (!strncmp(arg, "fd:", 3)) {
		char buf[32];

		rest = arg + 3;
		if (strlen(rest) >= sizeof(buf))
			goto bad;
		strcpy(buf, rest);
		ack = strchr(buf, ',');
		if (ack)
			*ack++ = '\0';
		if (!parse_fd(buf, &c->ctl_fd) || (ack && !parse_fd(ack, &c->ack_fd)))
			goto bad;
	} else {
		goto bad;
	}
	c->given = true;
	return 0;
bad:
	memset(c, 0, sizeof(*c));
	return usage_err(err, errlen, "invalid --control value '%s': expected "
			 "fifo:CTL-FIFO[,ACK-FIFO] or fd:CTL-FD[,ACK-FD]", arg);
}

static int opt_reader_sched(struct record_opts *o, const char *arg, struct parse_state *st,
			    char *err, int errlen)
{
	(void)st;
	if (!strcmp(arg, "fifo"))
		o->readers_nice = false;
	else if (!strcmp(arg, "nice"))
		o->readers_nice = true;
	else
		return usage_err(err, errlen, "invalid --reader-sched value '%s': expected "
				 "fifo or nice", arg);
	return 0;
}

static int opt_status(struct record_opts *o, const char *arg, struct parse_state *st,
		      char *err, int errlen)
{
	(void)st;
	if (status__parse_interval(arg, &o->status_ns))
		return usage_err(err, errlen, "invalid --status value '%s': expected seconds, "
				 "0.1 to 86400", arg);
	return 0;
}


/* ---- issue 23: the rest of perf record's options ----------------------- */

/* -u USER or UID: resolved against the password database when recording. */
static int opt_uid(struct record_opts *o, const char *arg, struct parse_state *st,
		   char *err, int errlen)
{
	(void)st;
	if (!*arg)
		return usage_err(err, errlen, "invalid -u value '': expected a user name or uid");
	o->uid = arg;
	return 0;
}

/*
 * -G NAME[,NAME...]: the names go to the events defined before it, one
 * each, in order (perf's rule; an empty name leaves that event out of
 * any cgroup). Which events those are is known once -e is parsed.
 */
static int opt_cgroup(struct record_opts *o, const char *arg, struct parse_state *st,
		      char *err, int errlen)
{
	if (st->last_event_arg < 0)
		return usage_err(err, errlen, "must define events before cgroups: -G "
				 "follows the -e it applies to");
	o->cgroup_args = xrealloc(o->cgroup_args,
				  (o->nr_cgroup_args + 1) * sizeof(*o->cgroup_args));
	o->cgroup_args[o->nr_cgroup_args++] = (struct cgroup_arg){
		.names = arg, .nr_event_args = o->nr_event_args };
	return 0;
}

/* --exclude-perf: a filter on the tracepoints of the -e before it (perf's words). */
static int opt_exclude_perf(struct record_opts *o, const char *arg, struct parse_state *st,
			    char *err, int errlen)
{
	(void)arg;
	if (st->last_event_arg < 0)
		return usage_err(err, errlen, "--exclude-perf option should follow a -e "
				 "tracepoint option");
	o->event_args[st->last_event_arg].exclude_perf = !st->unset;
	return 0;
}

static int opt_proc_map_timeout(struct record_opts *o, const char *arg, struct parse_state *st,
				char *err, int errlen)
{
	uint64_t val;

	(void)st;
	if (parse_u64(arg, 0, &val) || val > INT_MAX)
		return usage_err(err, errlen, "option '--proc-map-timeout' expects a "
				 "numerical value (milliseconds), not '%s'", arg);
	o->proc_map_timeout_ms = (int)val;
	return 0;
}

static int opt_num_thread_synth(struct record_opts *o, const char *arg, struct parse_state *st,
				char *err, int errlen)
{
	uint64_t val;

	(void)st;
	if (parse_u64(arg, 0, &val) || val > INT_MAX)
		return usage_err(err, errlen, "option '--num-thread-synthesize' expects a "
				 "numerical value, not '%s'", arg);
	o->num_thread_synthesize = (int)val;
	return 0;
}

static int parse_size(const char *str, uint64_t *bytes);

/* --mmap-flush 4K: bytes, with perf's B/K/M/G; capped at a quarter ring when recording. */
static int opt_mmap_flush(struct record_opts *o, const char *arg, struct parse_state *st,
			  char *err, int errlen)
{
	(void)st;
	if (parse_size(arg, &o->mmap_flush))
		return usage_err(err, errlen, "invalid --mmap-flush value '%s': expected a "
				 "number of bytes, with B, K, M or G suffix", arg);
	return 0;
}

static int opt_affinity(struct record_opts *o, const char *arg, struct parse_state *st,
			char *err, int errlen)
{
	(void)st;
	if (!strcmp(arg, "node"))
		o->affinity = AFFINITY_NODE;
	else if (!strcmp(arg, "cpu"))
		o->affinity = AFFINITY_CPU;
	else
		return usage_err(err, errlen, "invalid --affinity value '%s': expected node "
				 "or cpu", arg);
	return 0;
}

/* --synth=no|all|task,mmap,cgroup: perf's names, comma separated. */
static int opt_synth(struct record_opts *o, const char *arg, struct parse_state *st,
		     char *err, int errlen)
{
	static const struct {
		const char *name;
		unsigned int bits;
	} kinds[] = {
		{ "no", 0 }, { "all", SYNTH_ALL }, { "task", SYNTH_TASK },
		{ "mmap", SYNTH_MMAP }, { "cgroup", SYNTH_CGROUP },
	};
	unsigned int bits = 0;
	const char *s = arg;

	(void)st;
	for (;;) {
		size_t len = strcspn(s, ","), i;

		for (i = 0; i < ARRAY_SIZE(kinds); i++)
			if (strlen(kinds[i].name) == len && !strncmp(kinds[i].name, s, len))
				break;
		if (i == ARRAY_SIZE(kinds))
			return usage_err(err, errlen, "Invalid synth option: %.*s (expected no, "
					 "all, task, mmap, cgroup)", (int)len, s);
		bits |= kinds[i].bits;
		if (!s[len])
			break;
		s += len + 1;
	}
	o->synth = bits;
	return 0;
}

static int opt_vmlinux(struct record_opts *o, const char *arg, struct parse_state *st,
		       char *err, int errlen)
{
	(void)st, (void)err, (void)errlen;
	o->vmlinux = arg;
	return 0;
}

static int opt_debuginfod(struct record_opts *o, const char *arg, struct parse_state *st,
			  char *err, int errlen)
{
	(void)st, (void)err, (void)errlen;
	o->debuginfod = arg ? arg : "";
	return 0;
}

static int opt_clang_path(struct record_opts *o, const char *arg, struct parse_state *st,
			  char *err, int errlen)
{
	(void)st, (void)err, (void)errlen;
	o->clang_path = arg;
	return 0;
}

static int opt_clang_opt(struct record_opts *o, const char *arg, struct parse_state *st,
			 char *err, int errlen)
{
	(void)st, (void)err, (void)errlen;
	o->clang_opt = arg;
	return 0;
}

/* --switch-output-event: as perf, it implies --switch-output=signal. */
static int opt_switch_output_event(struct record_opts *o, const char *arg,
				   struct parse_state *st, char *err, int errlen)
{
	(void)st;
	if (!*arg)
		return usage_err(err, errlen, "invalid --switch-output-event value '': "
				 "expected an event list");
	o->switch_output_event = arg;
	if (o->switch_output == SWITCH_OUTPUT_NONE)
		o->switch_output = SWITCH_OUTPUT_SIGNAL;
	return 0;
}

static const struct opt_def opt_table[] = {
	SECTION("target (none: the whole system until Ctrl-C; with -a/-C/-p/-t a command\n"
		"only says how long to record):"),
	FLAG("all-cpus", 'a', system_wide, "system-wide collection from all CPUs"),
	OPT("cpu", 'C', ARG_REQUIRED, "<list>", opt_cpu,
	    "system-wide, on these CPUs only (\"0-3,7\")"),
	OPT("pid", 'p', ARG_REQUIRED, "<pids>", opt_pid,
	    "record existing processes (comma separated)"),
	OPT("tid", 't', ARG_REQUIRED, "<tids>", opt_tid,
	    "record existing threads (comma separated)"),
	FLAG("per-thread", 0, per_thread, "a ring per thread, events on no CPU in particular"),
	OPT("uid", 'u', ARG_REQUIRED, "<user>", opt_uid,
	    "record the existing tasks of this user (name or uid)"),
	OPT("cgroup", 'G', ARG_REQUIRED, "<name,...>", opt_cgroup,
	    "with -a: the events before it count in these cgroups\n"
	    "only, one name per event"),

	SECTION("events:"),
	OPT("event", 'e', ARG_REQUIRED, "<events>", opt_event,
	    "events (repeatable): cpu-clock, cs:u, r1a8, sched:*,\n"
	    "pmu/config=..,name=../, {a,b}:S; default cycles,\n"
	    "else cpu-clock"),
	OPT("filter", 0, ARG_REQUIRED, "<filter>", opt_filter,
	    "tracepoint filter for the events of the -e before it"),
	OPT("exclude-perf", 0, ARG_NONE, NULL, opt_exclude_perf,
	    "the -e tracepoints before it leave the recorder out"),
	FLAG("group", 0, group, "put every event of the command line into one group"),
	OPT("count", 'c', ARG_REQUIRED, "<n>", opt_count, "sample every n events"),
	OPT("freq", 'F', ARG_REQUIRED, "<n|max>", opt_freq,
	    "sample n times a second (default 4000)"),
	FLAG("all-user", 0, all_user, "count user space only, for every event"),
	FLAG("all-kernel", 0, all_kernel, "count the kernel only, for every event"),
	FLAG("no-inherit", 'i', no_inherit, "child tasks do not inherit counters"),
	FLAG("stat", 's', inherit_stat, "per-thread counts (inherit_stat)"),
	FLAG("no-samples", 'n', no_samples, "count, do not sample"),
	OPT("clockid", 'k', ARG_REQUIRED, "<clock>", opt_clockid,
	    "time stamps from this clock: monotonic, monotonic_raw,\n"
	    "realtime, boottime, tai"),
	FLAG("strict-freq", 0, strict_freq, "fail if -F is above the kernel's limit"),

	SECTION("what a sample carries:"),
	OPT(NULL, 'g', ARG_NONE, NULL, opt_g, "record call graphs (= --call-graph fp)"),
	OPT("call-graph", 0, ARG_REQUIRED, "<mode>", opt_call_graph,
	    "fp, dwarf or dwarf,<bytes> (at most 65528)"),
	OPT("user-regs", 0, ARG_OPTIONAL, "<regs>", opt_user_regs,
	    "user registers (AX,SP,...; none: all; ? lists them)"),
	OPT("intr-regs", 'I', ARG_OPTIONAL, "<regs>", opt_intr_regs,
	    "registers at the interrupt (-I? lists them)"),
	FLAG("timestamp", 'T', sample_time, "record the sample time"),
	FLAG("period", 'P', sample_period, "record the sample period (always on)"),
	FLAG("sample-cpu", 0, sample_cpu, "record the sample CPU (always on)"),
	FLAG("data", 'd', sample_addr, "record the sampled data addresses"),
	FLAG("phys-data", 0, phys_data, "record the sampled physical addresses"),
	FLAG("data-page-size", 0, data_page_size, "record the sampled data page size"),
	FLAG("code-page-size", 0, code_page_size, "record the sampled code page size"),
	FLAG("weight", 'W', sample_weight, "record the sample weight"),
	FLAG("raw-samples", 'R', raw, "record raw tracepoint data"),
	OPT("branch-any", 'b', ARG_NONE, NULL, opt_branch_any,
	    "sample any taken branches (needs a PMU with them)"),
	OPT("branch-filter", 'j', ARG_REQUIRED, "<modes>", opt_branch_filter,
	    "branch stack filter: any, any_call, call, u, k, ..."),
	FLAG("switch-events", 0, switch_events, "record context switch events"),
	FLAG("off-cpu", 0, off_cpu, "record where tasks sleep, as offcpu-time samples (BPF)"),
	FLAG("no-bpf-event", 0, no_bpf_event, "do not record BPF program events"),
	FLAG("buildid-mmap", 0, buildid_mmap, "build ids in MMAP2 records (what perfcap does)"),
	FLAG("no-buffering", 0, no_buffering, "wake the recorder for every record"),
	FLAG("user-callchains", 0, user_callchains, "call graphs of user space only"),
	FLAG("kernel-callchains", 0, kernel_callchains, "call graphs of the kernel only"),
	FLAG("sample-identifier", 0, sample_identifier, "every record says its event"),
	FLAG("running-time", 0, running_time, "record running and enabled time of reads"),
	FLAG("transaction", 0, sample_transaction, "sample transaction flags (special events only)"),
	FLAG("namespaces", 0, namespaces, "record the tasks' namespaces"),
	FLAG("all-cgroups", 0, all_cgroups, "record the cgroup of every sample"),

	SECTION("buffers and output:"),
	OPT("mmap-pages", 'm', ARG_REQUIRED, "<n[,m]>", opt_mmap,
	    "data pages per ring, or a size: 512K; ,m: AUX pages"),
	OPT("snapshot", 'S', ARG_OPTIONAL, "<[e][size]>", opt_snapshot,
	    "AUX area snapshot mode: read it at SIGUSR2\n"
	    "(e: and at the end), at most size bytes"),
	OPT("aux-sample", 0, ARG_OPTIONAL, "<size>", opt_aux_sample,
	    "samples carry the AUX area's newest size bytes"),
	FLAG("overwrite", 0, overwrite, "a flight recorder: rings overwrite their oldest\n"
	     "data and are read at --switch-output and at the end"),
	OPT("output", 'o', ARG_REQUIRED, "<file>", opt_output,
	    "output file (default perf.data; - for a pipe)"),
	FLAG("no-buildid-cache", 'N', no_buildid_cache, "do not update the build-id cache"),
	FLAG("no-buildid", 'B', no_buildid, "do not collect build ids"),
	FLAG("buildid-all", 0, buildid_all, "build ids of every DSO mapped, not only those hit"),
	/* Optional argument: "--aio" or "--aio=4", never "--aio 4", as in perf. */
	OPT("aio", 0, ARG_OPTIONAL, "<n>", opt_aio,
	    "asynchronous writes, n buffers per ring (1..64)"),
	OPT("writer", 0, ARG_REQUIRED, "<backend>", opt_writer,
	    "sync (default), aio (POSIX AIO), uring (io_uring)"),
	OPT("threads", 0, ARG_OPTIONAL, "<spec>", opt_threads,
	    "reader threads, all writing the one file: cpu\n"
	    "(default), core, package, numa, or masks\n"
	    "<cpus>/<affinity>:<cpus>/<affinity>..."),
	OPT("user-buffer-size", 0, ARG_REQUIRED, "<size>", opt_user_buffer,
	    "memory the readers drain into while the output\n"
	    "is behind (B/K/M/G; default 256M; 0: none)"),
	OPT("compression-level", 'z', ARG_OPTIONAL, "<n>", opt_comp_level,
	    "zstd-compress: level 1..22 (default 1), or auto"),
	OPT("realtime", 'r', ARG_REQUIRED, "<prio>", opt_realtime,
	    "run the recorder with SCHED_FIFO priority 1..99"),
	OPT("reader-sched", 0, ARG_REQUIRED, "<policy>", opt_reader_sched,
	    "reader threads: fifo (default: SCHED_FIFO 1 where\n"
	    "permitted) or nice (normal priority, nice -5)"),
	OPT("mmap-flush", 0, ARG_REQUIRED, "<bytes>", opt_mmap_flush,
	    "copy a ring out once it holds this much (B/K/M/G)"),
	OPT("affinity", 0, ARG_REQUIRED, "<node|cpu>", opt_affinity,
	    "a reader per NUMA node or CPU, on it (as --threads=\n"
	    "numa or cpu)"),
	FLAG("tail-synthesize", 0, tail_synthesize,
	     "tasks and maps as they are at the end, not the start"),
	OPT("synth", 0, ARG_REQUIRED, "<kinds>", opt_synth,
	    "what is read from /proc: no, all, task, mmap, cgroup"),
	OPT("proc-map-timeout", 0, ARG_REQUIRED, "<ms>", opt_proc_map_timeout,
	    "reading a task's maps stops after ms (default 500)"),
	OPT("num-thread-synthesize", 0, ARG_REQUIRED, "<n>", opt_num_thread_synth,
	    "accepted; perfcap reads /proc in one thread"),
	FLAG("timestamp-boundary", 0, timestamp_boundary,
	     "first and last sample time in the header (always)"),
	FLAG("kcore", 0, kcore, "copy /proc/kcore (refused: not implemented)"),
	OPT("vmlinux", 0, ARG_REQUIRED, "<file>", opt_vmlinux,
	    "the kernel's image (must exist; as perf, for symbols)"),
	OPT("debuginfod", 0, ARG_OPTIONAL, "<urls>", opt_debuginfod,
	    "accepted; perfcap fetches nothing"),
	OPT("clang-path", 0, ARG_REQUIRED, "<path>", opt_clang_path,
	    "accepted; for -e prog.c, which perfcap lacks"),
	OPT("clang-opt", 0, ARG_REQUIRED, "<opts>", opt_clang_opt,
	    "accepted; for -e prog.c, which perfcap lacks"),

	SECTION("control of the recording:"),
	OPT("delay", 'D', ARG_REQUIRED, "<ms>", opt_delay,
	    "start after ms, -1: disabled until --control\n"
	    "enables; or windows in ms: 10-20,30-40"),
	OPT("control", 0, ARG_REQUIRED, "<spec>", opt_control,
	    "fifo:ctl[,ack] or fd:ctl[,ack]: enable, disable,\n"
	    "snapshot, stop"),
	OPT("max-size", 0, ARG_REQUIRED, "<size>", opt_max_size,
	    "stop when the output reaches size (B/K/M/G)"),
	OPT("switch-output", 0, ARG_OPTIONAL, "<when>", opt_switch_output,
	    "a new file on SIGUSR2 (signal), every size\n"
	    "(10M) or every time (30s, 5m, 1h)"),
	OPT("switch-max-files", 0, ARG_REQUIRED, "<n>", opt_switch_max_files,
	    "keep only the newest n switched files"),
	FLAG("timestamp-filename", 0, timestamp_filename,
	     "append a time stamp to the output file name"),
	OPT("switch-output-event", 0, ARG_REQUIRED, "<events>", opt_switch_output_event,
	    "a new file at each of these events (implies\n"
	    "--switch-output=signal)"),

	SECTION("messages:"),
	OPT("status", 0, ARG_REQUIRED, "<seconds>", opt_status,
	    "a status line every interval, even off a terminal\n"
	    "(on a terminal, one line is rewritten twice a second)"),
	{ .name = "quiet", .key = 'q', .kind = KIND_COUNT,
	  .off = offsetof(struct record_opts, quiet), .help = "print only errors" },
	{ .name = "verbose", .key = 'v', .kind = KIND_COUNT,
	  .off = offsetof(struct record_opts, verbose), .help = "more messages (repeatable)" },
	FLAG("dry-run", 0, dry_run, "check the options, then exit"),
	FLAG("list-options", 0, list_options, "print every option name, one a line"),
	FLAG("list-opts", 0, list_options, NULL),	/* perf's spelling */
	FLAG("help", 'h', help, "this text"),
};

#define NR_OPTS ARRAY_SIZE(opt_table)
/* getopt_long's val for a long-only row: past every char. */
#define LONG_VAL(i) (256 + (int)(i))
/*
 * perf's parser gives every option a --no- form unless the option says
 * otherwise; perfcap gives it to every boolean row (FLAG, COUNT, or a
 * handler that takes no value): --no-X clears X, and a row named no-X
 * has X for its negation (--inherit, --buildid), as perf's has. The
 * --no- form of a row with a value is refused (NOVAL_VAL).
 */
#define NEG_VAL(i) (256 + (int)NR_OPTS + (int)(i))
#define NOVAL_VAL(i) (256 + 2 * (int)NR_OPTS + (int)(i))

static const char usage_head[] =
	"usage: perfcap record [<options>] [--] [<command> [<args>]]\n"
	"\n"
	"Record a profile into perf.data, with perf record's options.\n";

static const char usage_tail[] =
	"\n"
	"Exit status: 0 success, 1 runtime failure, 2 usage error; with a command,\n"
	"a non-zero exit status of the command is passed on.\n";

/* The help column starts here; a longer option spec puts its help on the next line. */
#define HELP_COL 26

static size_t option_spec(const struct opt_def *d, char *buf, size_t size)
{
	size_t n = 0;

	n += snprintf(buf + n, size - n, "  ");
	if (d->key)
		n += snprintf(buf + n, size - n, "-%c%s", d->key, d->name ? ", " : "");
	else
		n += snprintf(buf + n, size - n, "    ");
	if (d->name)
		n += snprintf(buf + n, size - n, "--%s", d->name);
	if (d->arg == ARG_REQUIRED)
		n += snprintf(buf + n, size - n, " %s", d->meta);
	else if (d->arg == ARG_OPTIONAL)
		n += snprintf(buf + n, size - n, "%s[=%s]", d->name ? "" : "", d->meta);
	return n;
}

const char *record_opts__usage(void)
{
	static char *text;
	char *buf;
	size_t len;
	FILE *f;

	if (text)
		return text;
	f = open_memstream(&buf, &len);
	if (!f)
		abort();
	fputs(usage_head, f);
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct opt_def *d = &opt_table[i];
		char spec[80];
		size_t n;

		if (d->kind == KIND_SECTION) {
			fprintf(f, "\n%s\n", d->help);
			continue;
		}
		if (!d->help)
			continue;
		n = option_spec(d, spec, sizeof(spec));
		fputs(spec, f);
		if (n + 2 > HELP_COL) {
			fputc('\n', f);
			n = 0;
		}
		/* Continuation lines of the help line up under its first line. */
		for (const char *h = d->help; *h; ) {
			size_t l = strcspn(h, "\n");

			fprintf(f, "%*s%.*s\n", (int)(HELP_COL - n), "", (int)l, h);
			n = 0;
			h += l;
			if (*h)
				h++;
		}
	}
	fputs("\nEvery option without a value has perf's --no- form: --no-timestamp,\n"
	      "--no-namespaces; --inherit and --buildid undo --no-inherit and --no-buildid.\n", f);
	fputs(usage_tail, f);
	if (fclose(f))
		abort();
	text = buf;
	return text;
}

void record_opts__list_options(FILE *f)
{
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct opt_def *d = &opt_table[i];

		if (d->kind == KIND_SECTION)
			continue;
		if (d->name)
			fprintf(f, "--%s%s\n", d->name, d->arg == ARG_OPTIONAL ? "=" : "");
		if (d->key)
			fprintf(f, "-%c\n", d->key);
	}
}

/* getopt's tables from the rows; built once. */
static struct option long_options[2 * NR_OPTS + 1];
static char short_options[2 + 3 * NR_OPTS + 1];
static char neg_names[NR_OPTS][64];

static bool is_boolean(const struct opt_def *d)
{
	return d->kind == KIND_FLAG || d->kind == KIND_COUNT ||
	       (d->kind == KIND_FN && d->arg == ARG_NONE);
}

static bool has_long_name(size_t nl, const char *name)
{
	for (size_t i = 0; i < nl; i++)
		if (!strcmp(long_options[i].name, name))
			return true;
	return false;
}

/* --no-X of row i (X of a row named no-X); NULL where a row already has that name. */
static const char *negation(size_t i)
{
	const char *name = opt_table[i].name;

	if (!strncmp(name, "no-", 3))
		snprintf(neg_names[i], sizeof(neg_names[i]), "%s", name + 3);
	else
		snprintf(neg_names[i], sizeof(neg_names[i]), "no-%s", name);
	for (size_t j = 0; j < NR_OPTS; j++)
		if (opt_table[j].kind != KIND_SECTION && opt_table[j].name &&
		    !strcmp(opt_table[j].name, neg_names[i]))
			return NULL;
	return neg_names[i];
}

static void build_getopt_tables(void)
{
	size_t nl = 0, ns = 0;

	if (short_options[0])
		return;
	/*
	 * '+': stop at the first non-option, so "perfcap record sleep 1 -x"
	 * hands -x to sleep, as perf does. ':': report a missing value as ':'
	 * so we can word the message ourselves.
	 */
	short_options[ns++] = '+';
	short_options[ns++] = ':';
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct opt_def *d = &opt_table[i];
		int has = d->arg == ARG_REQUIRED ? required_argument :
			  d->arg == ARG_OPTIONAL ? optional_argument : no_argument;

		if (d->kind == KIND_SECTION)
			continue;
		if (d->name)
			long_options[nl++] = (struct option){ d->name, has, NULL,
							      d->key ? d->key : LONG_VAL(i) };
		if (d->key) {
			short_options[ns++] = d->key;
			if (d->arg != ARG_NONE)
				short_options[ns++] = ':';
			if (d->arg == ARG_OPTIONAL)
				short_options[ns++] = ':';
		}
	}
	/* The negations come after every row's own name, so they never shadow one. */
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct opt_def *d = &opt_table[i];
		const char *neg;

		if (d->kind == KIND_SECTION || !d->name || !(neg = negation(i)) ||
		    has_long_name(nl, neg))
			continue;
		long_options[nl++] = (struct option){ neg, no_argument, NULL,
						      is_boolean(d) ? NEG_VAL(i) : NOVAL_VAL(i) };
	}
}

static const struct opt_def *find_row(int c)
{
	if (c >= 256 && (size_t)(c - 256) < NR_OPTS)
		return &opt_table[c - 256];
	if (c >= NEG_VAL(0) && c < NOVAL_VAL(0))
		return &opt_table[c - NEG_VAL(0)];
	for (size_t i = 0; i < NR_OPTS; i++)
		if (opt_table[i].kind != KIND_SECTION && opt_table[i].key == c)
			return &opt_table[i];
	return NULL;
}

static int apply(struct record_opts *o, const struct opt_def *d, const char *arg,
		 struct parse_state *st, char *err, int errlen)
{
	switch (d->kind) {
	case KIND_FLAG:
		*(bool *)((char *)o + d->off) = !st->unset;
		/* perf's -t turns inheriting off unless the command line said. */
		if (d->off == offsetof(struct record_opts, no_inherit))
			o->no_inherit_set = true;
		return 0;
	case KIND_COUNT:
		if (st->unset)
			*(int *)((char *)o + d->off) = 0;
		else
			(*(int *)((char *)o + d->off))++;
		return 0;
	case KIND_FN:
		return d->fn(o, arg, st, err, errlen);
	case KIND_SECTION:
		break;
	}
	return -EINVAL;
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
	/* perf 6.1: -t records those threads, not what they start (parity.tsv, tid). */
	if (opts->tid_list && !opts->no_inherit_set)
		opts->no_inherit = true;
	if (opts->all_user && opts->all_kernel)
		return usage_err(err, errlen, "--all-user and --all-kernel are mutually "
				 "exclusive");
	if (opts->nr_delay_ranges && opts->control.given)
		return usage_err(err, errlen, "-D with time ranges and --control both decide "
				 "when events are enabled; give one");
	if (!strcmp(opts->output, "-") && opts->switch_output)
		return usage_err(err, errlen, "--switch-output needs files to switch; it "
				 "cannot write to a pipe (-o -)");
	/* perf's order: -p/-t over -u, -u over -a/-C, -a/-C over --per-thread. */
	if (opts->uid && (opts->pid_list || opts->tid_list)) {
		opts->warning = "-p/-t given: ignoring -u (PID/TID switch overriding UID, "
				"as in perf)";
		opts->uid = NULL;
	}
	if (opts->uid && (opts->system_wide || opts->cpu_list)) {
		opts->warning = "-u given: ignoring -a/-C (UID switch overriding SYSTEM, "
				"as in perf)";
		opts->system_wide = false;
		opts->cpu_list = NULL;
	}
	if (opts->per_thread && opts->threads)
		return usage_err(err, errlen, "--per-thread option is mutually exclusive to "
				 "parallel streaming mode (--threads)");
	if (opts->nr_cgroup_args && !opts->system_wide && !opts->cpu_list)
		return usage_err(err, errlen, "cgroup monitoring only available in "
				 "system-wide mode (-G needs -a or -C)");
	/* No target at all: the whole system until SIGINT, as perf record does. */
	if (!opts->system_wide && !opts->cpu_list && !opts->pid_list &&
	    !opts->tid_list && !opts->uid && !opts->argc)
		opts->system_wide = true;
	if (opts->per_thread && (opts->system_wide || opts->cpu_list)) {
		opts->warning = "-a/-C given: ignoring --per-thread (SYSTEM/CPU switch "
				"overriding PER-THREAD, as in perf)";
		opts->per_thread = false;
	}
	if (opts->comp_auto && opts->user_buffer_set && !opts->user_buffer)
		return usage_err(err, errlen, "-zauto compresses once the triage stage's memory "
				 "fills; --user-buffer-size=0 leaves that stage out: give -z, or a "
				 "size");
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
	for (int i = 0; i < opts->nr_owned; i++)
		free(opts->owned[i]);
	free(opts->owned);
	free(opts->event_args);
	free(opts->delay_ranges);
	free(opts->cgroup_args);
	opts->cgroup_args = NULL;
	opts->nr_cgroup_args = 0;
	opts->owned = NULL;
	opts->nr_owned = 0;
	opts->event_args = NULL;
	opts->nr_event_args = 0;
	opts->delay_ranges = NULL;
	opts->nr_delay_ranges = 0;
	opts->events = NULL;
	memset(&opts->control, 0, sizeof(opts->control));
}

static int parse_args(struct record_opts *opts, int argc, char **argv,
		      char *err, int errlen)
{
	struct parse_state st = { .last_event_arg = -1 };
	int c, cur, ret;

	build_getopt_tables();
	/*
	 * optind = 0 makes glibc re-read the optstring and forget any state
	 * left from an earlier parse; tests parse many command lines.
	 */
	optind = 0;
	opterr = 0;
	for (;;) {
		const struct opt_def *d;

		/* Where getopt starts: the argv element a bad option came from. */
		cur = optind ? optind : 1;
		c = getopt_long(argc, argv, short_options, long_options, NULL);
		if (c == -1)
			break;
		if (c >= NOVAL_VAL(0) && c < NOVAL_VAL(NR_OPTS))
			return usage_err(err, errlen, "option '--no-%s' isn't available: --%s "
					 "takes a value (only options without one have a "
					 "--no- form)", opt_table[c - NOVAL_VAL(0)].name,
					 opt_table[c - NOVAL_VAL(0)].name);
		d = (c == '?' || c == ':') ? NULL : find_row(c);
		if (!d)
			return option_error(c, argv, argc, cur, err, errlen);
		st.unset = c >= NEG_VAL(0) && c < NOVAL_VAL(0);
		ret = apply(opts, d, optarg, &st, err, errlen);
		st.unset = false;
		if (ret)
			return ret;
	}

	if (optind < argc) {
		opts->argv = argv + optind;
		opts->argc = argc - optind;
	}
	/* --help and the lists win over everything else on the line, as in perf. */
	if (opts->help || opts->list_options || opts->list_user_regs || opts->list_intr_regs)
		return 0;

	ret = check_conflicts(opts, err, errlen);
	if (ret)
		return ret;

	/* Settle the backend here so the record code needs no rules of its own. */
	if (!opts->writer)
		opts->writer = opts->aio ? "aio" : "sync";
	if (!st.aio_given && strcmp(opts->writer, "sync"))
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
	opts->control.ctl_fd = -1;
	opts->control.ack_fd = -1;
	opts->proc_map_timeout_ms = OPTS_DEFAULT_PROC_MAP_TIMEOUT;
	opts->synth = SYNTH_ALL;
	if (err && errlen > 0)
		err[0] = '\0';

	ret = parse_args(opts, argc, argv, err, errlen);
	/* On a usage error nothing is left for the caller to free. */
	if (ret)
		record_opts__exit(opts);
	return ret;
}
