// SPDX-License-Identifier: GPL-2.0
/*
 * Every event's perf_event_attr from the record options: perf record's
 * sampling, call graph, tracking and id defaults. evlist.c opens what
 * this decides.
 */
#include <stdio.h>

#include "evlist.h"
#include "perf-file.h"
#include "util.h"

/* x86_64 user registers perf samples for DWARF unwinding: all but the segment registers. */
#define PERF_REGS_MASK_X86_64 0xff0fffULL

static unsigned int max_sample_rate(void)
{
	long long v;

	if (read_int("/proc/sys/kernel/perf_event_max_sample_rate", &v) || v <= 0)
		return 100000;
	return v;
}

void evlist__config(struct evlist *el, const struct record_opts *opts, bool has_workload)
{
	uint64_t freq = opts->freq ? opts->freq : OPTS_DEFAULT_FREQ;
	unsigned int max_rate = max_sample_rate();
	struct evsel *e;

	if (opts->freq_max || freq > max_rate) {
		if (opts->freq && !opts->freq_max)
			pr_warn("-F %llu is above the kernel's limit; lowering it to %u "
				"(/proc/sys/kernel/perf_event_max_sample_rate)\n",
				(unsigned long long)freq, max_rate);
		freq = max_rate;
	}

	evlist__for_each_evsel(el, e) {
		struct perf_event_attr *a = &e->attr;
		bool user_rate = opts->period || opts->freq || opts->freq_max;

		a->size = PERFCAP_ATTR_SIZE;
		a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				  PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU;
		/* Several events: every record says which one it belongs to. */
		if (el->nr > 1)
			a->sample_type |= PERF_SAMPLE_IDENTIFIER;
		a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
		a->sample_id_all = 1;
		a->disabled = 1;
		a->exclude_guest = 1;
		a->inherit = !opts->no_inherit;
		/* Only a command perfcap starts is enabled by its exec. */
		a->enable_on_exec = has_workload && !el->system_wide;

		if (e->tracepoint && !user_rate) {
			a->sample_period = 1; /* every tracepoint hit */
			a->freq = 0;
		} else if (opts->period) {
			a->sample_period = opts->period;
			a->freq = 0;
		} else {
			a->sample_freq = freq;
			a->freq = 1;
		}
		if (e->tracepoint || opts->raw)
			a->sample_type |= PERF_SAMPLE_RAW;

		switch (opts->callgraph) {
		case CALLGRAPH_FP:
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
			break;
		case CALLGRAPH_DWARF:
			a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
					  PERF_SAMPLE_STACK_USER;
			/*
			 * The unwinder reads .eh_frame_hdr, which sits in a
			 * read-only, non-executable segment: map those too.
			 */
			a->mmap_data = 1;
			a->sample_regs_user = PERF_REGS_MASK_X86_64;
			a->sample_stack_user = opts->dwarf_stack_size ?
					       opts->dwarf_stack_size : OPTS_DEFAULT_DWARF_SIZE;
			a->exclude_callchain_user = 1;
			break;
		case CALLGRAPH_NONE:
			break;
		}

		/* The first event also tracks tasks and maps for the whole list. */
		if (e->idx == 0) {
			a->mmap = 1;
			a->mmap2 = 1;
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
			a->ksymbol = 1;
			a->bpf_event = 1;
			a->context_switch = opts->switch_events;
			/* The kernel puts build ids into MMAP2 records of new maps. */
			a->build_id = !opts->no_buildid;
		}
	}
}
