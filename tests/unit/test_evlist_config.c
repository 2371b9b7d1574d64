// SPDX-License-Identifier: GPL-2.0
/*
 * evlist-config.c: the attrs perf record 6.1 gives for the options, and
 * its tracking dummy. No event is opened; tests/shell/parity.bats checks
 * the same against upstream perf for real.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "record-opts.h"
#include "events/evlist-config.h"
#include "events/evlist.h"
#include "events/arch.h"

#define TRACK_BITS(a) ((a)->mmap + (a)->mmap2 + (a)->comm + (a)->task + (a)->ksymbol)

static struct perf_event_attr sw(uint64_t config)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .config = config,
				     .exclude_guest = 1 };
	return a;
}

static void opts_init(struct record_opts *o)
{
	memset(o, 0, sizeof(*o));
	/* A file, so that pipe mode is never guessed from this test's stdout. */
	o->output = "perf.data";
	o->output_given = true;
}

static void add(struct evlist *el, const char *name, bool tracepoint)
{
	struct perf_event_attr a = sw(PERF_COUNT_SW_CPU_CLOCK);
	struct evsel *e;

	if (tracepoint) {
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = 0x174;
	}
	e = evsel__new(&a, name);
	e->tracepoint = tracepoint;
	evlist__add(el, e);
}

static bool hybrid(void)
{
	return !access("/sys/bus/event_source/devices/cpu_core", F_OK);
}

static void test_workload_first_event_tracks(void **state)
{
	struct record_opts o;
	struct evlist el;
	struct perf_event_attr *a;

	if (hybrid())
		skip();
	opts_init(&o);
	evlist__init(&el);
	add(&el, "cpu-clock", false);
	evlist__config(&el, &o, true);
	assert_int_equal(el.nr, 1);
	a = &el.evsels[0]->attr;
	assert_int_equal(TRACK_BITS(a), 5);
	assert_true(a->comm_exec && a->bpf_event && a->build_id);
	assert_true(a->disabled && a->enable_on_exec);
	assert_true(a->freq);
	assert_int_equal(a->sample_freq, OPTS_DEFAULT_FREQ);
	assert_int_equal(a->sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU);
	/* The modifiers' guest bit is parse-events' to set, not ours to force. */
	assert_int_equal(a->exclude_guest, 1);
	evlist__exit(&el);
}

static void test_system_wide_adds_dummy(void **state)
{
	struct record_opts o;
	struct evlist el;
	struct evsel *d;

	opts_init(&o);
	o.system_wide = true;
	evlist__init(&el);
	el.system_wide = true;
	add(&el, "sched:sched_switch", true);
	add(&el, "raw_syscalls:sys_enter", true);
	evlist__config(&el, &o, false);
	assert_int_equal(el.nr, 3);
	d = el.evsels[2];
	assert_string_equal(d->name, "dummy:HG");
	assert_int_equal(d->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(d->attr.config, PERF_COUNT_SW_DUMMY);
	/* Enabled at open, tracking, never sampling on its own. */
	assert_false(d->attr.disabled);
	assert_false(d->attr.enable_on_exec);
	assert_false(d->attr.exclude_guest);
	assert_int_equal(TRACK_BITS(&d->attr), 5);
	assert_false(d->attr.freq);
	assert_int_equal(d->attr.sample_period, 1);
	for (int i = 0; i < 2; i++) {
		struct perf_event_attr *a = &el.evsels[i]->attr;

		assert_int_equal(TRACK_BITS(a), 0);
		assert_true(a->disabled);
		assert_true(a->sample_type & PERF_SAMPLE_RAW);
		assert_int_equal(a->sample_period, 1);
	}
	assert_false(d->attr.sample_type & PERF_SAMPLE_RAW);
	/* Every record says its event at the same place: the trailers agree. */
	for (int i = 0; i < 3; i++) {
		assert_true(el.evsels[i]->attr.sample_type & PERF_SAMPLE_IDENTIFIER);
		assert_int_equal(evsel__id_hdr_size(el.evsels[i]), evsel__id_hdr_size(el.evsels[0]));
	}
	evlist__exit(&el);
}

static void test_dummy_named_after_its_attr(void **state)
{
	struct record_opts o;
	struct evlist el;

	opts_init(&o);
	o.all_kernel = true;
	evlist__init(&el);
	el.system_wide = true;
	add(&el, "cpu-clock", false);
	evlist__config(&el, &o, false);
	assert_string_equal(el.evsels[1]->name, "dummy:kh");
	assert_true(el.evsels[0]->attr.exclude_user);
	assert_false(el.evsels[0]->attr.exclude_kernel);
	evlist__exit(&el);

	opts_init(&o);
	o.all_user = true;
	evlist__init(&el);
	el.system_wide = true;
	add(&el, "cpu-clock", false);
	evlist__config(&el, &o, false);
	assert_string_equal(el.evsels[1]->name, "dummy:uh");
	/* perf 6.1's --all-user leaves exclude_hv alone. */
	assert_true(el.evsels[0]->attr.exclude_kernel);
	assert_false(el.evsels[0]->attr.exclude_hv);
	evlist__exit(&el);
}

static void test_delay_dummy_starts_at_exec(void **state)
{
	struct record_opts o;
	struct evlist el;
	struct evsel *d;

	opts_init(&o);
	o.delay_ms = 50;
	evlist__init(&el);
	add(&el, "cpu-clock", false);
	evlist__config(&el, &o, true);
	assert_int_equal(el.nr, 2);
	d = el.evsels[1];
	assert_true(d->attr.disabled && d->attr.enable_on_exec);
	/* The recorder enables the events when the delay is over. */
	assert_false(el.evsels[0]->attr.enable_on_exec);
	assert_int_equal(TRACK_BITS(&el.evsels[0]->attr), 0);
	evlist__exit(&el);
}

static void test_dwarf_with_user_regs(void **state)
{
	struct record_opts o;
	struct evlist el;
	struct perf_event_attr *a, *d;

	opts_init(&o);
	o.system_wide = true;
	o.callgraph = CALLGRAPH_DWARF;
	o.user_regs = 1;	/* AX, or x0 */
	o.intr_regs = 3;
	evlist__init(&el);
	el.system_wide = true;
	add(&el, "cpu-clock", false);
	evlist__config(&el, &o, false);
	a = &el.evsels[0]->attr;
	d = &el.evsels[1]->attr;
	/* AX (x0), with IP and SP forced in (perf's warning says so). */
	assert_int_equal(a->sample_regs_user, 1 | perf_arch__dwarf_min_regs(perf_arch__host()));
	assert_int_equal(d->sample_regs_user, perf_arch__dwarf_min_regs(perf_arch__host()));
	assert_int_equal(a->sample_stack_user, OPTS_DEFAULT_DWARF_SIZE);
	assert_true(a->sample_type & PERF_SAMPLE_REGS_INTR);
	assert_false(d->sample_type & PERF_SAMPLE_REGS_INTR);
	/* DWARF call graphs sample data addresses too; the tracker maps data. */
	assert_true(a->sample_type & PERF_SAMPLE_ADDR);
	assert_true(a->sample_type & PERF_SAMPLE_DATA_SRC);
	assert_false(a->mmap_data);
	assert_true(d->mmap_data);
	assert_true(a->exclude_callchain_user);
	evlist__exit(&el);
}

static void test_event_callgraph_terms(void **state)
{
	struct record_opts o;
	struct evlist el;

	opts_init(&o);
	o.callgraph = CALLGRAPH_FP;
	evlist__init(&el);
	add(&el, "a", false);
	add(&el, "b", false);
	strcpy(el.evsels[0]->terms.callgraph, "dwarf");
	el.evsels[0]->terms.stack_size = 4093;
	strcpy(el.evsels[1]->terms.callgraph, "no");
	evlist__config(&el, &o, true);
	assert_true(el.evsels[0]->attr.sample_type & PERF_SAMPLE_STACK_USER);
	assert_int_equal(el.evsels[0]->attr.sample_stack_user, 4096);
	assert_int_equal(el.evsels[0]->attr.sample_regs_user, perf_arch__host()->regs_mask);
	assert_false(el.evsels[1]->attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	evlist__exit(&el);
}

static void test_sampling_options(void **state)
{
	struct record_opts o;
	struct evlist el;
	struct perf_event_attr *a, *d;

	opts_init(&o);
	o.system_wide = true;
	o.no_samples = true;
	o.inherit_stat = true;
	o.no_buffering = true;
	o.use_clockid = true;
	o.clockid = 1;
	o.branch_stack = PERF_SAMPLE_BRANCH_ANY;
	o.sample_weight = true;
	o.phys_data = true;
	o.data_page_size = true;
	o.no_bpf_event = true;
	evlist__init(&el);
	el.system_wide = true;
	add(&el, "cpu-clock", false);
	evlist__config(&el, &o, false);
	a = &el.evsels[0]->attr;
	d = &el.evsels[1]->attr;
	assert_int_equal(a->sample_freq, 0);
	assert_true(a->freq);
	assert_true(a->inherit_stat && d->inherit_stat);
	assert_true(a->read_format & PERF_FORMAT_TOTAL_TIME_ENABLED);
	assert_int_equal(a->wakeup_events, 1);
	assert_false(a->watermark);
	assert_true(a->use_clockid && d->use_clockid);
	assert_int_equal(a->clockid, 1);
	assert_true(a->sample_type & PERF_SAMPLE_BRANCH_STACK);
	assert_int_equal(a->branch_sample_type, PERF_SAMPLE_BRANCH_ANY);
	/* A dummy cannot have a branch stack: the kernel would refuse it. */
	assert_false(d->sample_type & PERF_SAMPLE_BRANCH_STACK);
	/* -W: a struct on x86_64, a u64 on aarch64, as perf 6.1 asks there */
	assert_int_equal(a->sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT),
			 perf_arch__host()->weight_type);
	assert_true(a->sample_type & PERF_SAMPLE_PHYS_ADDR);
	assert_true(a->sample_type & PERF_SAMPLE_DATA_PAGE_SIZE);
	assert_false(d->bpf_event);
	assert_true(d->ksymbol);
	evlist__exit(&el);
}

static void test_pipe_lone_event_gets_id(void **state)
{
	struct record_opts o;
	struct evlist el;

	opts_init(&o);
	o.output = "-";
	evlist__init(&el);
	add(&el, "cpu-clock", false);
	evlist__config(&el, &o, true);
	if (el.nr == 1)
		assert_true(el.evsels[0]->attr.sample_type & PERF_SAMPLE_ID);
	evlist__exit(&el);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workload_first_event_tracks),
		cmocka_unit_test(test_system_wide_adds_dummy),
		cmocka_unit_test(test_dummy_named_after_its_attr),
		cmocka_unit_test(test_delay_dummy_starts_at_exec),
		cmocka_unit_test(test_dwarf_with_user_regs),
		cmocka_unit_test(test_event_callgraph_terms),
		cmocka_unit_test(test_sampling_options),
		cmocka_unit_test(test_pipe_lone_event_gets_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
