// SPDX-License-Identifier: GPL-2.0
/*
 * "perfcap record" options: perf record's names and meanings, plus
 * --writer: the table of rows and each row's handler; the engine that
 * runs a table over argv is cli/parse-options.c. Pure: no system calls (sysconf(_SC_PAGESIZE) is answered
 * from the auxiliary vector), so tests/unit/test_options.c can run its
 * tables anywhere. Values are checked here, once, so that the record
 * code can trust them; whether an event or a CPU exists is found out
 * when it is opened.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "events/cpumap.h"
#include "cli/option-values.h"
#include "cli/options.h"
#include "cli/parse-options.h"
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

	if (parse_mmap_value(val, page_size, &n))
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

/* perfcap record's own parse state, beside what the rows fill in record_opts. */
struct parse_state {
	bool aio_given;
	int last_event_arg;	/* index into event_args of the last -e; -1 none */
};

static struct parse_state *pstate(struct opt_ctx *ctx)
{
	return ctx->state;
}

#define FLAG(lname, k, field, h) \
	{ .name = lname, .key = k, .kind = KIND_FLAG, \
	  .off = offsetof(struct record_opts, field), .help = h }

/* Handlers: each checks its value once and fills record_opts. */

static char *own(struct record_opts *o, char *s)
{
	o->owned = xrealloc(o->owned, (o->nr_owned + 1) * sizeof(*o->owned));
	o->owned[o->nr_owned++] = s;
	return s;
}

static int opt_cpu(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	struct cpu_map *map = cpu_map__parse(arg);

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

static int opt_pid(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	return opt_ids(o, arg, 'p', err, errlen);
}

static int opt_tid(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	return opt_ids(o, arg, 't', err, errlen);
}

/* -e given twice means both lists, as in perf; each keeps its own --filter. */
static int opt_event(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	size_t a, b;
	char *joined;

	if (!*arg)
		return usage_err(err, errlen, "invalid -e value '': expected an event list "
				 "like cpu-clock,cs");
	o->event_args = xrealloc(o->event_args, (o->nr_event_args + 1) * sizeof(*o->event_args));
	o->event_args[o->nr_event_args] = (struct event_arg){ .events = arg };
	pstate(ctx)->last_event_arg = o->nr_event_args++;

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
static int opt_filter(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	struct event_arg *ea;
	char *both;

	if (pstate(ctx)->last_event_arg < 0)
		return usage_err(err, errlen, "--filter '%s' must follow the -e tracepoint "
				 "event it filters", arg);
	if (!*arg)
		return usage_err(err, errlen, "invalid --filter value '': expected a "
				 "tracepoint filter like 'prev_pid == 0'");
	ea = &o->event_args[pstate(ctx)->last_event_arg];
	if (!ea->filter) {
		ea->filter = arg;
		return 0;
	}
	both = own(o, xzalloc(strlen(ea->filter) + strlen(arg) + 9));
	sprintf(both, "(%s) && (%s)", ea->filter, arg);
	ea->filter = both;
	return 0;
}

/* perf's -t turns inheriting off unless the command line said (check_conflicts). */
static int opt_no_inherit(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	(void)arg, (void)err, (void)errlen;
	o->no_inherit = !ctx->unset;
	o->no_inherit_set = true;
	return 0;
}

static int opt_count(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	uint64_t val;

	if (parse_u64(arg, 0, &val) || !val)
		return usage_err(err, errlen, "invalid -c value '%s': expected a positive "
				 "number", arg);
	o->period = val;
	return 0;
}

static int opt_freq(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	uint64_t val;

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

static int opt_g(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	(void)arg, (void)err, (void)errlen;
	/* -g after --call-graph dwarf keeps dwarf, as in perf. */
	if (o->callgraph == CALLGRAPH_NONE)
		o->callgraph = CALLGRAPH_FP;
	return 0;
}

static int opt_call_graph(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

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

static int opt_user_regs(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	return parse_regs("--user-regs", arg, &o->user_regs, &o->list_user_regs, err, errlen);
}

static int opt_intr_regs(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	return parse_regs("-I/--intr-regs", arg, &o->intr_regs, &o->list_intr_regs, err, errlen);
}

/* clock_gettime() clocks by perf's names and short names, or a number. */
static int opt_clockid(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
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

static int opt_branch_any(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	(void)arg, (void)err, (void)errlen;
	/* --no-branch-any: no branch stack, as perf's callback does when unset. */
	if (ctx->unset)
		o->branch_stack = 0;
	else
		o->branch_stack |= PERF_SAMPLE_BRANCH_ANY;
	return 0;
}

/* -j any,u: perf's branch filter names; privilege levels alone mean "any" branch. */
static int opt_branch_filter(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
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

static int opt_mmap(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	return parse_mmap_opt(o, arg, err, errlen);
}

static int opt_output(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	if (!*arg)
		return usage_err(err, errlen, "invalid -o value '': expected a file name "
				 "(or - for a pipe)");
	o->output = arg;
	o->output_given = true;
	return 0;
}

static int opt_realtime(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	uint64_t val;

	if (parse_u64(arg, 10, &val) || val < 1 || val > 99)
		return usage_err(err, errlen, "invalid -r value '%s': expected a SCHED_FIFO "
				 "priority 1..99", arg);
	o->realtime = (int)val;
	return 0;
}

static int opt_aio(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	uint64_t val;

	pstate(ctx)->aio_given = true;
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

static int opt_writer(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	if (strcmp(arg, "sync") && strcmp(arg, "aio") && strcmp(arg, "uring"))
		return usage_err(err, errlen, "invalid --writer value '%s': expected sync, "
				 "aio or uring", arg);
	o->writer = arg;
	return 0;
}

static int opt_threads(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	char msg[200];

	if (thread_spec__check(arg, msg, sizeof(msg)))
		return usage_err(err, errlen, "%s", msg);
	o->threads = true;
	o->threads_spec = arg && *arg ? arg : "cpu";
	return 0;
}

static int opt_comp_level(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	uint64_t val;

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
static int opt_snapshot(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	uint64_t val = 0;

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

static int opt_aux_sample(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	uint64_t val = OPTS_DEFAULT_AUX_SAMPLE_SIZE;

	o->aux_sample = true;
	if (arg && *arg && (parse_u64(arg, 0, &val) || !val || val > OPTS_MAX_AUX_SAMPLE_SIZE))
		return usage_err(err, errlen, "invalid --aux-sample value '%s': expected a size "
				 "in bytes, 1..%d", arg, OPTS_MAX_AUX_SAMPLE_SIZE);
	o->aux_sample_size = (uint32_t)val;
	return 0;
}

static int opt_max_size(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	if (parse_size(arg, &o->max_size) || !o->max_size)
		return usage_err(err, errlen, "invalid --max-size value '%s': expected a size "
				 "in bytes, with B, K, M or G suffix", arg);
	return 0;
}

static int opt_user_buffer(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

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
static int opt_switch_output(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

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

static int opt_switch_max_files(void *obj, const char *arg, struct opt_ctx *ctx,
		                 char *err, int errlen)
{
	struct record_opts *o = obj;
	uint64_t val;

	if (parse_u64(arg, 10, &val) || !val || val > INT_MAX)
		return usage_err(err, errlen, "invalid --switch-max-files value '%s': expected "
				 "a positive number", arg);
	o->switch_max_files = (int)val;
	return 0;
}

/* -D 500, -D -1 (start disabled), or -D 10-20,30-40 (enabled in those windows, in ms). */
static int opt_delay(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	const char *s = arg;
	uint64_t val, prev_end = 0;

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

/* --control fifo:CTL[,ACK] or fd:CTL[,ACK]. Opening is the recorder's job. */
static int opt_control(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	struct control_spec *c = &o->control;
	const char *rest;
	char *ctl, *ack;

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

static int opt_reader_sched(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	if (!strcmp(arg, "fifo"))
		o->readers_nice = false;
	else if (!strcmp(arg, "nice"))
		o->readers_nice = true;
	else
		return usage_err(err, errlen, "invalid --reader-sched value '%s': expected "
				 "fifo or nice", arg);
	return 0;
}

static int opt_status(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	if (status__parse_interval(arg, &o->status_ns))
		return usage_err(err, errlen, "invalid --status value '%s': expected seconds, "
				 "0.1 to 86400", arg);
	return 0;
}


/* ---- issue 23: the rest of perf record's options ----------------------- */

/* -u USER or UID: resolved against the password database when recording. */
static int opt_uid(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

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
static int opt_cgroup(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	if (pstate(ctx)->last_event_arg < 0)
		return usage_err(err, errlen, "must define events before cgroups: -G "
				 "follows the -e it applies to");
	o->cgroup_args = xrealloc(o->cgroup_args,
				  (o->nr_cgroup_args + 1) * sizeof(*o->cgroup_args));
	o->cgroup_args[o->nr_cgroup_args++] = (struct cgroup_arg){
		.names = arg, .nr_event_args = o->nr_event_args };
	return 0;
}

/* --exclude-perf: a filter on the tracepoints of the -e before it (perf's words). */
static int opt_exclude_perf(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	(void)arg;
	if (pstate(ctx)->last_event_arg < 0)
		return usage_err(err, errlen, "--exclude-perf option should follow a -e "
				 "tracepoint option");
	o->event_args[pstate(ctx)->last_event_arg].exclude_perf = !ctx->unset;
	return 0;
}

static int opt_proc_map_timeout(void *obj, const char *arg, struct opt_ctx *ctx,
		                 char *err, int errlen)
{
	struct record_opts *o = obj;
	uint64_t val;

	if (parse_u64(arg, 0, &val) || val > INT_MAX)
		return usage_err(err, errlen, "option '--proc-map-timeout' expects a "
				 "numerical value (milliseconds), not '%s'", arg);
	o->proc_map_timeout_ms = (int)val;
	return 0;
}

static int opt_num_thread_synth(void *obj, const char *arg, struct opt_ctx *ctx,
		                 char *err, int errlen)
{
	struct record_opts *o = obj;
	uint64_t val;

	if (parse_u64(arg, 0, &val) || val > INT_MAX)
		return usage_err(err, errlen, "option '--num-thread-synthesize' expects a "
				 "numerical value, not '%s'", arg);
	o->num_thread_synthesize = (int)val;
	return 0;
}

/* --mmap-flush 4K: bytes, with perf's B/K/M/G; capped at a quarter ring when recording. */
static int opt_mmap_flush(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	if (parse_size(arg, &o->mmap_flush))
		return usage_err(err, errlen, "invalid --mmap-flush value '%s': expected a "
				 "number of bytes, with B, K, M or G suffix", arg);
	return 0;
}

static int opt_affinity(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

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
static int opt_synth(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;
	static const struct {
		const char *name;
		unsigned int bits;
	} kinds[] = {
		{ "no", 0 }, { "all", SYNTH_ALL }, { "task", SYNTH_TASK },
		{ "mmap", SYNTH_MMAP }, { "cgroup", SYNTH_CGROUP },
	};
	unsigned int bits = 0;
	const char *s = arg;

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

static int opt_vmlinux(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	(void)err, (void)errlen;
	o->vmlinux = arg;
	return 0;
}

static int opt_debuginfod(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	(void)err, (void)errlen;
	o->debuginfod = arg ? arg : "";
	return 0;
}

static int opt_clang_path(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	(void)err, (void)errlen;
	o->clang_path = arg;
	return 0;
}

static int opt_clang_opt(void *obj, const char *arg, struct opt_ctx *ctx, char *err, int errlen)
{
	struct record_opts *o = obj;

	(void)err, (void)errlen;
	o->clang_opt = arg;
	return 0;
}

/* --switch-output-event: as perf, it implies --switch-output=signal. */
static int opt_switch_output_event(void *obj, const char *arg, struct opt_ctx *ctx,
		                    char *err, int errlen)
{
	struct record_opts *o = obj;

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
	OPT("no-inherit", 'i', ARG_NONE, NULL, opt_no_inherit,
	    "child tasks do not inherit counters"),
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
	FLAG("unwind", 0, unwind, "with --call-graph dwarf: unwind while recording;\n"
	     "the file has callchains, not stack copies"),
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

static struct opt_table record_table = {
	.rows = opt_table, .nr = ARRAY_SIZE(opt_table), .cmd = "record",
};

static const char usage_head[] =
	"usage: perfcap record [<options>] [--] [<command> [<args>]]\n"
	"\n"
	"Record a profile into perf.data, with perf record's options.\n";

static const char usage_tail[] =
	"\nEvery option without a value has perf's --no- form: --no-timestamp,\n"
	"--no-namespaces; --inherit and --buildid undo --no-inherit and --no-buildid.\n"
	"\n"
	"Exit status: 0 success, 1 runtime failure, 2 usage error; with a command,\n"
	"a non-zero exit status of the command is passed on.\n";

const char *record_opts__usage(void)
{
	static char *text;

	if (!text)
		text = opt_table__usage(&record_table, usage_head, usage_tail);
	return text;
}

void record_opts__list_options(FILE *f)
{
	opt_table__list(&record_table, f);
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
	if (opts->unwind && opts->callgraph != CALLGRAPH_DWARF)
		return usage_err(err, errlen, "--unwind unwinds DWARF stacks: it needs "
				 "--call-graph dwarf");
	if (opts->unwind && ((opts->user_buffer_set && !opts->user_buffer) || opts->comp_auto ||
			     opts->overwrite || opts->tail_synthesize))
		return usage_err(err, errlen, "--unwind works behind the triage stage, on maps "
				 "known as it records: it cannot go with --user-buffer-size=0, "
				 "-zauto, --overwrite or --tail-synthesize");
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
	int ret;

	ret = opt_table__parse(&record_table, argc, argv, opts, &st, err, errlen);
	if (ret < 0)
		return ret;
	if (ret < argc) {
		opts->argv = argv + ret;
		opts->argc = argc - ret;
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
