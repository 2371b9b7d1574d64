// SPDX-License-Identifier: GPL-2.0
/*
 * Every event's perf_event_attr from the record options: perf record's
 * sampling, call graph, tracking and id defaults, option by option as
 * perf 6.1's evsel__config does them, so that `perf evlist -v` of our
 * file reads like perf's (tests/shell/parity.bats checks it). evlist.c
 * opens what this decides.
 *
 * Where perfcap differs on purpose (doc/perfcap-record.1, "Differences
 * from perf record"; parity.tsv names the same list):
 *  - every event samples TIME, CPU and PERIOD: the loss report and the
 *    readers need them, perf adds them only with some options;
 *  - the tracking event asks the kernel for build ids in MMAP2
 *    (perf does with --buildid-mmap) unless -B;
 *  - with several events every record carries PERF_SAMPLE_IDENTIFIER
 *    (perf uses PERF_SAMPLE_ID when all sample types are equal).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record-opts.h"
#include "events/evlist-config.h"
#include "events/evlist.h"
#include "events/arch.h"
#include "perf-file.h"
#include "util.h"

static unsigned int max_sample_rate(void)
{
	long long v;

	if (read_int("/proc/sys/kernel/perf_event_max_sample_rate", &v) || v <= 0)
		return 100000;
	return v;
}

static bool is_dummy_attr(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;
}

static bool is_dummy(const struct evsel *e)
{
	return is_dummy_attr(&e->attr);
}

struct config_ctx {
	uint64_t freq;		/* -F, or the default, capped at the kernel's limit */
	bool user_rate;		/* -c or -F given */
	struct evsel *track;	/* the event carrying mmap/comm/task records */
	struct evsel *added;	/* the dummy added to track, or NULL */
	bool dummy_tracks;	/* track is a dummy event that perf's rules asked for */
	bool immediate;		/* ... enabled at open, not at the workload's exec */
	bool has_workload;
	bool delayed;		/* -D: the recorder enables the events later */
	bool warned_regs;
};

/*
 * Pipe output. perfcap record settles perf's rule ("-o -", or no -o and a
 * FIFO on stdout, unless --switch-output) before the events are configured
 * and then names the output "-", so the name is the whole answer here.
 */
static bool pipe_output(const struct record_opts *opts)
{
	return opts->output && !strcmp(opts->output, "-");
}

/* A hybrid machine (Alder Lake and later) has two core PMUs. */
static bool pmu_is_hybrid(void)
{
	return !access("/sys/bus/event_source/devices/cpu_core", F_OK);
}

/*
 * perf's tracking event. When the events are opened well before what
 * they sample (system-wide: every CPU, then /proc is synthesized; -D:
 * the delay) or on several PMUs (hybrid), perf 6.1 does not let the
 * first event track maps and tasks: it adds a software dummy event
 * that does, enabled at once so that nothing mapped meanwhile is
 * missed, and last in the list. perf report chooses its default view
 * from the list too: with only tracepoints it shows their trace output,
 * with the dummy it sorts by command, object and symbol.
 *
 * Sets ctx->track, the event that tracks; ctx->immediate says the dummy
 * is enabled at open (else on the workload's exec: -D without a CPU
 * target).
 */
static void tracking_event(struct evlist *el, const struct record_opts *opts,
			   struct config_ctx *ctx)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = PERFCAP_ATTR_SIZE,
	};
	struct evsel *first = el->evsels[0];

	ctx->track = first;
	if (!ctx->delayed && !el->system_wide && !pmu_is_hybrid())
		return;
	ctx->dummy_tracks = true;
	ctx->immediate = !ctx->delayed || el->system_wide;
	/* The first event is a dummy already (-e dummy): perf keeps it as the tracker. */
	if (is_dummy(first))
		return;
	ctx->added = evsel__new(&attr, "dummy");
	evlist__add(el, ctx->added);
	ctx->track = ctx->added;
}

/*
 * The name perf gives an event it created itself: "dummy" and the
 * modifiers its final attr amounts to (perf names the tracking dummy
 * after evsel__config has run: "dummy:HG", or "dummy:uh" with
 * --all-user). A letter appears for each level the event counts.
 */
static void name_from_attr(struct evsel *e, const char *base)
{
	const struct perf_event_attr *a = &e->attr;
	bool guest_default = false;
	char mods[16];
	size_t n = 0;

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			mods[n++] = 'k';
		if (!a->exclude_user)
			mods[n++] = 'u';
		if (!a->exclude_hv)
			mods[n++] = 'h';
		guest_default = true;
	}
	for (unsigned int i = 0; i < a->precise_ip; i++)
		mods[n++] = 'p';
	if (a->precise_ip)
		guest_default = true;
	if (a->exclude_host || (bool)a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			mods[n++] = 'H';
		if (!a->exclude_guest)
			mods[n++] = 'G';
	}
	mods[n] = '\0';
	free(e->name);
	e->name = xzalloc(strlen(base) + n + 2);
	sprintf(e->name, n ? "%s:%s" : "%s", base, mods);
}

/*
 * The call graph of one event: --call-graph/-g, or the event's own
 * call-graph= and stack-size= terms in their place (perf's
 * evsel__apply_config_terms: "no" turns it off for that event).
 */
static enum callgraph_mode event_callgraph(const struct evsel *e, const struct record_opts *opts,
					   uint32_t *stack_size)
{
	const char *cg = e->terms.callgraph;
	uint32_t size = e->terms.stack_size;

	*stack_size = opts->dwarf_stack_size ? opts->dwarf_stack_size : OPTS_DEFAULT_DWARF_SIZE;
	if (size)
		*stack_size = (size + 7) & ~7u;	/* perf rounds it up to a u64 */
	if (!cg[0])
		return opts->callgraph;
	if (!strcmp(cg, "dwarf"))
		return CALLGRAPH_DWARF;
	if (!strcmp(cg, "fp"))
		return CALLGRAPH_FP;
	if (!strcmp(cg, "no"))
		return CALLGRAPH_NONE;
	/* lbr: a hardware call stack; without it perf falls back to the global setting. */
	pr_warn("event '%s': call-graph=%s is not supported here; using the global call graph\n",
		e->name, cg);
	return opts->callgraph;
}

static void config_callchain(struct perf_event_attr *a, const struct record_opts *opts,
			     enum callgraph_mode mode, uint32_t stack_size,
			     struct config_ctx *ctx)
{
	switch (mode) {
	case CALLGRAPH_FP:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		break;
	case CALLGRAPH_DWARF: {
		/* the build's registers: perf's PERF_REGS_MASK, its IP and SP */
		const struct perf_arch *arch = perf_arch__host();

		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		if (opts->user_regs && opts->user_regs != arch->regs_mask) {
			/*
			 * As perf 6.1: a --user-regs subset is sampled with
			 * IP and SP added, and a warning, since an unwinder
			 * given fewer registers may stop early.
			 */
			a->sample_regs_user |= perf_arch__dwarf_min_regs(arch);
			if (!ctx->warned_regs)
				pr_warn("--call-graph dwarf with --user-regs: unwinding may want "
					"every user register; IP and SP are added to the ones "
					"given, the rest are left out as asked\n");
			ctx->warned_regs = true;
		} else {
			a->sample_regs_user |= arch->regs_mask;
		}
		a->sample_stack_user = stack_size;
		a->exclude_callchain_user = 1;
		break;
	}
	case CALLGRAPH_LBR:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		/*
		 * As perf 6.1: the call stack is the PMU's branch stack, user
		 * space only; a PMU without LBR refuses the event when it is
		 * opened ("cannot sample branch stacks"). With -b/-j, or for
		 * the kernel only, it is a frame-pointer call graph.
		 */
		if (opts->branch_stack)
			pr_warn("Cannot use LBR callstack with branch stack. Falling back "
				"to framepointers.\n");
		else if (a->exclude_user || opts->all_kernel)
			pr_warn("LBR callstack option is only available to get user callchain "
				"information. Falling back to framepointers.\n");
		else if (!is_dummy_attr(a)) {
			a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
			a->branch_sample_type = PERF_SAMPLE_BRANCH_USER |
						PERF_SAMPLE_BRANCH_CALL_STACK |
						PERF_SAMPLE_BRANCH_NO_CYCLES |
						PERF_SAMPLE_BRANCH_NO_FLAGS |
						PERF_SAMPLE_BRANCH_HW_INDEX;
		}
		break;
	case CALLGRAPH_NONE:
		break;
	}
	/* --user-callchains, --kernel-callchains: which half of a call graph is kept. */
	if (mode != CALLGRAPH_NONE && opts->kernel_callchains)
		a->exclude_callchain_user = 1;
	if (mode != CALLGRAPH_NONE && opts->user_callchains)
		a->exclude_callchain_kernel = 1;
}

static void config_evsel(struct evsel *e, const struct record_opts *opts,
			 struct config_ctx *ctx)
{
	struct perf_event_attr *a = &e->attr;
	bool track = e == ctx->track;
	bool dummy = is_dummy(e);
	uint32_t stack_size;
	enum callgraph_mode cg = event_callgraph(e, opts, &stack_size);
	/* perf's record turns on data addresses for DWARF call graphs. */
	bool sample_addr = opts->sample_addr || opts->callgraph == CALLGRAPH_DWARF ||
			   cg == CALLGRAPH_DWARF;

	a->size = PERFCAP_ATTR_SIZE;
	a->sample_id_all = 1;
	/* The kernel maps no ring of an inherited event on CPU -1: perf turns it off too. */
	a->inherit = !opts->no_inherit && !opts->per_thread;
	a->write_backward = opts->overwrite;
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	/* perf samples TIME, CPU and PERIOD only in some modes; perfcap always. */
	a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			  PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU;

	/* Tracepoints and the dummy fire on every hit unless -c/-F says otherwise. */
	if ((e->tracepoint || e == ctx->added) && !ctx->user_rate) {
		a->sample_period = 1;
		a->freq = 0;
	} else if (opts->period) {
		a->sample_period = opts->period;
		a->freq = 0;
	} else {
		a->sample_freq = ctx->freq;
		a->freq = 1;
	}
	if (opts->no_samples)
		a->sample_freq = 0;	/* -n: count, never sample (freq stays as perf leaves it) */

	if (opts->inherit_stat) {
		a->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED |
				  PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
		a->inherit_stat = 1;
	}
	if (sample_addr) {
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		/* Data maps are needed to resolve the addresses: the tracker reports them. */
		a->mmap_data = track;
	}

	config_callchain(a, opts, cg, stack_size, ctx);

	/* perf leaves the registers out of its tracking dummy, which never samples. */
	if (opts->intr_regs && !dummy) {
		a->sample_regs_intr = opts->intr_regs;
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
	}
	if (opts->user_regs && !dummy) {
		a->sample_regs_user |= opts->user_regs;
		a->sample_type |= PERF_SAMPLE_REGS_USER;
	}
	if (e->tracepoint || opts->raw)
		a->sample_type |= PERF_SAMPLE_RAW;
	if (opts->phys_data)
		a->sample_type |= PERF_SAMPLE_PHYS_ADDR;
	if (opts->no_buffering) {
		a->watermark = 0;
		a->wakeup_events = 1;
	}
	/* A dummy never counts, so it cannot have a branch stack (the kernel refuses). */
	if (opts->branch_stack && !dummy) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = opts->branch_stack;
	}
	/* x86's perf 6.1 asks for the weight as a struct, arm64's as a u64 (events/arch.h). */
	if (opts->sample_weight)
		a->sample_type |= perf_arch__host()->weight_type;

	a->task = track;
	a->mmap = track;
	a->mmap2 = track;
	a->comm = track;
	a->comm_exec = track;
	a->ksymbol = track;
	a->bpf_event = track && !opts->no_bpf_event;
	/* The kernel puts build ids into MMAP2 records of new maps (perf: --buildid-mmap). */
	a->build_id = track && !opts->no_buildid;
	a->context_switch = track && opts->switch_events;

	/* issue 23's options, as perf 6.1's evsel__config sets them */
	a->namespaces = track && opts->namespaces;
	if (opts->all_cgroups) {
		a->cgroup = track;
		a->sample_type |= PERF_SAMPLE_CGROUP;
	}
	if (opts->running_time)
		a->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/*
	 * On every event, as perf 6.1 (only a CPU PMU's transactional memory
	 * events fill it in; perf evlist -v does not print the bit, perfcap
	 * dump does: record-opts.bats compares them).
	 */
	if (opts->sample_transaction)
		a->sample_type |= PERF_SAMPLE_TRANSACTION;

	if (opts->data_page_size)
		a->sample_type |= PERF_SAMPLE_DATA_PAGE_SIZE;
	if (opts->code_page_size)
		a->sample_type |= PERF_SAMPLE_CODE_PAGE_SIZE;

	a->disabled = 1;
	/*
	 * Only a command perfcap starts is enabled by its exec; with -D the
	 * recorder enables the events when the delay is over.
	 */
	a->enable_on_exec = ctx->has_workload && !ctx->delayed;
	if (track && ctx->dummy_tracks) {
		if (ctx->immediate) {
			a->disabled = 0;
			a->enable_on_exec = 0;
		} else {
			/* -D without a CPU target: the tracker starts at the exec. */
			a->enable_on_exec = 1;
		}
	}

	if (opts->use_clockid) {
		a->use_clockid = 1;
		a->clockid = opts->clockid;
	}
	if (opts->all_user) {
		a->exclude_kernel = 1;
		a->exclude_user = 0;
	}
	if (opts->all_kernel) {
		a->exclude_kernel = 0;
		a->exclude_user = 1;
	}
	/*
	 * --off-cpu's event never samples: the recorder writes its samples
	 * at the end (record/off-cpu.c), with what perf 6.1's off_cpu_write
	 * can write (its OFFCPU_SAMPLE_TYPES) and always a callchain;
	 * perf keeps its rate of 1 unless -c or -F is given.
	 */
	if (evsel__is_off_cpu(e)) {
		a->sample_type &= OFF_CPU_SAMPLE_TYPES;
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (!ctx->user_rate) {
			a->freq = 1;
			a->sample_freq = 1;
		}
	}
}

int evlist__config(struct evlist *el, const struct record_opts *opts, bool has_workload)
{
	struct config_ctx ctx = {
		.freq = opts->freq ? opts->freq : OPTS_DEFAULT_FREQ,
		.user_rate = opts->period || opts->freq || opts->freq_max,
		.has_workload = has_workload,
		.delayed = opts->delay_ms || opts->nr_delay_ranges,
	};
	unsigned int max_rate = max_sample_rate();
	struct evsel *e;

	if (opts->strict_freq && opts->freq && !opts->freq_max && ctx.freq > max_rate) {
		/* perf's words, and a usage error */
		pr_err("Maximum frequency rate (%u Hz) exceeded.\n"
		       "  Please use -F freq option with a lower value or consider\n"
		       "  tweaking /proc/sys/kernel/perf_event_max_sample_rate.\n", max_rate);
		return -EINVAL;
	}
	if (opts->freq_max || ctx.freq > max_rate) {
		if (opts->freq && !opts->freq_max)
			pr_warn("-F %llu is above the kernel's limit; lowering it to %u "
				"(/proc/sys/kernel/perf_event_max_sample_rate)\n",
				(unsigned long long)ctx.freq, max_rate);
		ctx.freq = max_rate;
	}
	if (!el->nr)
		return 0;
	tracking_event(el, opts, &ctx);

	evlist__for_each_evsel(el, e)
		config_evsel(e, opts, &ctx);

	/*
	 * Several events: every record says which one it belongs to, at
	 * the same place in samples and in the sample_id trailer of other
	 * records whatever the event's sample type (perf does the same
	 * when the types differ, as they do with the tracking dummy).
	 */
	if (el->nr > 1 || opts->sample_identifier)
		evlist__for_each_evsel(el, e)
			e->attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
	else if (pipe_output(opts))
		/* perf 6.1 gives a lone event's samples its id in pipe mode (-o -). */
		el->evsels[0]->attr.sample_type |= PERF_SAMPLE_ID;
	if (ctx.added)
		name_from_attr(ctx.added, "dummy");
	return 0;
}
