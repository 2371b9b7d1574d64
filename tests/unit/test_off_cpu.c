// SPDX-License-Identifier: GPL-2.0
/*
 * record/off-cpu.c: the offcpu-time samples as perf 6.1 lays them out,
 * and the event's attr (events/evlist-config.c). No BPF program is
 * loaded: tests/shell/offcpu.bats records for real.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "record-opts.h"
#include "events/evlist-config.h"
#include "events/evlist.h"
#include "record/off-cpu.h"

#define ALL_TYPES (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		   PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
		   PERF_SAMPLE_CALLCHAIN)

static const struct off_cpu_key key = { .tid = 1235, .pid = 1234, .state = 1 };

static void test_sample_layout(void **state)
{
	uint64_t k[OFF_CPU_MAX_STACK] = { 0xffffffff81000010, 0xffffffff81000020 };
	uint64_t u[OFF_CPU_MAX_STACK] = { 0x401010, 0x401020, 0x401030 };
	uint64_t buf[OFF_CPU_SAMPLE_MAX];
	struct perf_event_header *h = (void *)buf;
	uint32_t pid_tid[2];
	size_t size = off_cpu__encode_sample(buf, ALL_TYPES, 77, &key, 300000000, 0xffffffff00000005,
					     k, u);

	/* header, id, ip, tid, time, id, cpu, period, nr, 1 + 2 + 1 + 3 */
	assert_int_equal(size, (8 + 1 + 7) * 8);
	assert_int_equal(h->size, size);
	assert_int_equal(h->type, PERF_RECORD_SAMPLE);
	assert_int_equal(h->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(buf[1], 77);		/* IDENTIFIER */
	assert_int_equal(buf[2], 0x401010);	/* IP: the first user frame, as perf 6.1 */
	memcpy(pid_tid, &buf[3], sizeof(pid_tid));
	assert_int_equal(pid_tid[0], 1234);
	assert_int_equal(pid_tid[1], 1235);
	assert_int_equal(buf[4], 0xffffffff00000005);	/* TIME */
	assert_int_equal(buf[5], 77);		/* ID */
	assert_int_equal(buf[6], 0);		/* CPU */
	assert_int_equal(buf[7], 300000000);	/* PERIOD: the nanoseconds asleep */
	assert_int_equal(buf[8], 7);		/* callchain nr */
	assert_int_equal(buf[9], PERF_CONTEXT_KERNEL);
	assert_int_equal(buf[10], 0xffffffff81000010);
	assert_int_equal(buf[11], 0xffffffff81000020);
	assert_int_equal(buf[12], PERF_CONTEXT_USER);
	assert_int_equal(buf[13], 0x401010);
	assert_int_equal(buf[15], 0x401030);
}

/* Only the fields the attr has, in their order: no ID or CPU here. */
static void test_sample_fewer_fields(void **state)
{
	uint64_t u[OFF_CPU_MAX_STACK] = { 0x401010 };
	uint64_t buf[OFF_CPU_SAMPLE_MAX];
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	size_t size = off_cpu__encode_sample(buf, st, 77, &key, 42, 0, NULL, u);

	assert_int_equal(size, (1 + 3 + 1 + 2) * 8);
	assert_int_equal(buf[1], 0x401010);
	assert_int_equal(buf[3], 42);
	assert_int_equal(buf[4], 2);
	assert_int_equal(buf[5], PERF_CONTEXT_USER);
	assert_int_equal(buf[6], 0x401010);
}

/* A full stack of OFF_CPU_MAX_STACK frames has no terminating zero: all are taken, no more. */
static void test_sample_full_stacks(void **state)
{
	uint64_t k[OFF_CPU_MAX_STACK], u[OFF_CPU_MAX_STACK];
	uint64_t buf[OFF_CPU_SAMPLE_MAX + 8];
	size_t size;

	for (int i = 0; i < OFF_CPU_MAX_STACK; i++) {
		k[i] = 0xffffffff81000000 + i;
		u[i] = 0x400000 + i;
	}
	memset(buf, 0xee, sizeof(buf));
	size = off_cpu__encode_sample(buf, ALL_TYPES, 1, &key, 1, 0, k, u);
	assert_true(size <= OFF_CPU_SAMPLE_MAX * 8);
	assert_int_equal(buf[8], 2 * (OFF_CPU_MAX_STACK + 1));
	assert_int_equal(buf[size / 8 - 1], 0x400000 + OFF_CPU_MAX_STACK - 1);
	assert_int_equal(buf[size / 8], 0xeeeeeeeeeeeeeeee);
}

/* A task with no user stack: the sample is where the kernel put it to sleep. */
static void test_sample_kernel_only(void **state)
{
	uint64_t k[OFF_CPU_MAX_STACK] = { 0xffffffff81000010 };
	uint64_t buf[OFF_CPU_SAMPLE_MAX];
	struct perf_event_header h;

	off_cpu__encode_sample(buf, ALL_TYPES, 1, &key, 1, 0, k, NULL);
	memcpy(&h, buf, sizeof(h));
	assert_int_equal(h.misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(buf[2], 0xffffffff81000010);
	assert_int_equal(buf[8], 2);
	assert_int_equal(buf[9], PERF_CONTEXT_KERNEL);
}

static struct evsel *off_cpu_evsel(struct evlist *el)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_BPF_OUTPUT,
		.freq = 1, .sample_freq = 1, .sample_type = PERF_SAMPLE_CALLCHAIN,
	};
	struct perf_event_attr clk = { .type = PERF_TYPE_SOFTWARE,
				       .config = PERF_COUNT_SW_CPU_CLOCK };
	struct evsel *e = evsel__new(&a, OFF_CPU_EVENT);

	evlist__add(el, evsel__new(&clk, "cpu-clock"));
	evlist__add(el, e);
	return e;
}

/*
 * What perf 6.1's off_cpu_write can write, whatever else the options ask
 * of the other events (DWARF stacks, data addresses, raw data), and a
 * callchain without -g; its rate of 1, unless -c or -F is given.
 */
static void test_attr(void **state)
{
	struct record_opts o;
	struct evlist el;
	struct evsel *e;

	memset(&o, 0, sizeof(o));
	o.output = "perf.data";
	o.output_given = true;
	o.callgraph = CALLGRAPH_DWARF;
	o.sample_addr = true;
	o.raw = true;
	evlist__init(&el);
	e = off_cpu_evsel(&el);
	assert_true(evsel__is_off_cpu(e));
	assert_false(evsel__is_off_cpu(el.evsels[0]));
	evlist__config(&el, &o, true);
	assert_int_equal(e->attr.sample_type, ALL_TYPES & ~PERF_SAMPLE_ID);
	assert_true(el.evsels[0]->attr.sample_type & PERF_SAMPLE_STACK_USER);
	assert_true(e->attr.freq);
	assert_int_equal(e->attr.sample_freq, 1);
	assert_int_equal(e->attr.read_format, el.evsels[0]->attr.read_format);
	evlist__exit(&el);

	memset(&o, 0, sizeof(o));
	o.output = "perf.data";
	o.output_given = true;
	evlist__init(&el);
	e = off_cpu_evsel(&el);
	evlist__config(&el, &o, true);
	assert_true(e->attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	assert_false(el.evsels[0]->attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	evlist__exit(&el);

	memset(&o, 0, sizeof(o));
	o.output = "perf.data";
	o.output_given = true;
	o.period = 5;
	evlist__init(&el);
	e = off_cpu_evsel(&el);
	evlist__config(&el, &o, true);
	assert_false(e->attr.freq);
	assert_int_equal(e->attr.sample_period, 5);
	evlist__exit(&el);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_layout),
		cmocka_unit_test(test_sample_fewer_fields),
		cmocka_unit_test(test_sample_full_stacks),
		cmocka_unit_test(test_sample_kernel_only),
		cmocka_unit_test(test_attr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
