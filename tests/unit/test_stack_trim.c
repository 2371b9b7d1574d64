// SPDX-License-Identifier: GPL-2.0
/* stack-trim.c and sample-layout.c: a DWARF sample's stack cut to dyn_size. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <errno.h>
#include <string.h>

#include "format/sample-layout.h"
#include "format/stack-trim.h"
#include "util.h"
#include "record-builder.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | \
	    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_DATA_SRC)

static struct perf_event_attr dwarf_attr(void)
{
	struct perf_event_attr a = {
		.sample_type = ST,
		.sample_regs_user = 0x7,	/* three registers */
		.sample_id_all = 1,
	};
	return a;
}

static void u64s(struct strbuf *sb, uint64_t v)
{
	strbuf__add(sb, &v, 8);
}

/* A sample of the layout above: a stack of size bytes, dyn_size dyn. */
static size_t add_sample(struct strbuf *sb, uint64_t id, uint64_t size, uint64_t dyn)
{
	size_t off = rec_begin(sb, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	u64s(sb, id);
	u64s(sb, 0x401000);			/* ip */
	u64s(sb, 42ULL | 43ULL << 32);		/* pid, tid */
	u64s(sb, 1000);				/* time */
	u64s(sb, 1);				/* cpu */
	u64s(sb, 250000);			/* period */
	u64s(sb, 2);				/* callchain */
	u64s(sb, 0x401000);
	u64s(sb, 0x402000);
	u64s(sb, PERF_SAMPLE_REGS_ABI_64);
	u64s(sb, 0x11);
	u64s(sb, 0x22);
	u64s(sb, 0x33);
	u64s(sb, size);
	for (uint64_t i = 0; i < size; i++) {
		unsigned char c = (unsigned char)(i * 7 + 1);

		strbuf__add(sb, &c, 1);
	}
	if (size)
		u64s(sb, dyn);
	u64s(sb, 0xda7a5);			/* data_src */
	rec_end(sb, off);
	return off;
}

static uint64_t at_u64(const void *p, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)p + off, 8);
	return v;
}

static void one_layout(struct sample_layouts *ls)
{
	struct perf_event_attr a = dwarf_attr();
	uint64_t id = 7;

	sample_layouts__init(ls);
	sample_layouts__add(ls, &a, &id, 1);
}

static void test_cut_to_dyn_size(void **state)
{
	struct strbuf sb = { 0 };
	struct sample_layouts ls;
	struct sample_fields f;
	size_t new_size;
	unsigned char orig[4096];

	one_layout(&ls);
	add_sample(&sb, 7, 256, 20);
	memcpy(orig, sb.data, sb.len);
	assert_int_equal(sample_layout__parse(&ls.l[0], sb.data, sb.len, &f), 0);
	assert_int_equal(f.stack, 8 + 13 * 8);
	assert_int_equal(f.period, 8 + 5 * 8);
	assert_int_equal(f.after_stack, f.stack + 8 + 256 + 8);
	new_size = stack_trim__sample(sb.data, &f, STACK_TRIM_ALL);
	/* 20 bytes filled: 24 kept, 232 gone. */
	assert_int_equal(new_size, sb.len - 232);
	assert_int_equal(((struct perf_event_header *)sb.data)->size, new_size);
	assert_int_equal(new_size % 8, 0);
	assert_int_equal(at_u64(sb.data, f.stack), 24);
	assert_memory_equal(sb.data + f.stack + 8, orig + f.stack + 8, 24);
	assert_int_equal(at_u64(sb.data, f.stack + 8 + 24), 20);	/* dyn_size kept */
	assert_int_equal(at_u64(sb.data, f.stack + 8 + 24 + 8), 0xda7a5);	/* moved up */
	/* Everything before the stack is untouched. */
	assert_memory_equal(sb.data + 8, orig + 8, f.stack - 8);
	/* Trimming again changes nothing. */
	assert_int_equal(sample_layout__parse(&ls.l[0], sb.data, new_size, &f), 0);
	assert_int_equal(stack_trim__sample(sb.data, &f, STACK_TRIM_ALL), new_size);
	strbuf__exit(&sb);
	sample_layouts__exit(&ls);
}

static void test_empty_and_full_stacks(void **state)
{
	struct strbuf sb = { 0 };
	struct sample_layouts ls;
	struct sample_fields f;
	size_t size0;

	one_layout(&ls);
	/* dyn_size 0: the kernel's empty stack, no dyn_size field. */
	add_sample(&sb, 7, 128, 0);
	size0 = sb.len;
	assert_int_equal(sample_layout__parse(&ls.l[0], sb.data, sb.len, &f), 0);
	assert_int_equal(stack_trim__sample(sb.data, &f, STACK_TRIM_ALL), size0 - 128 - 8);
	assert_int_equal(at_u64(sb.data, f.stack), 0);
	assert_int_equal(at_u64(sb.data, f.stack + 8), 0xda7a5);
	assert_int_equal(sample_layout__parse(&ls.l[0], sb.data, size0 - 136, &f), 0);
	strbuf__exit(&sb);
	/* A full stack stays as it is. */
	sb = (struct strbuf){ 0 };
	add_sample(&sb, 7, 128, 128);
	assert_int_equal(sample_layout__parse(&ls.l[0], sb.data, sb.len, &f), 0);
	assert_int_equal(stack_trim__sample(sb.data, &f, STACK_TRIM_ALL), sb.len);
	/* A limit cuts further: 64 bytes, dyn_size says 64. */
	assert_int_equal(stack_trim__sample(sb.data, &f, 64), sb.len - 64);
	assert_int_equal(at_u64(sb.data, f.stack), 64);
	assert_int_equal(at_u64(sb.data, f.stack + 8 + 64), 64);
	strbuf__exit(&sb);
	sample_layouts__exit(&ls);
}

static void test_records_in_a_chunk(void **state)
{
	struct strbuf sb = { 0 }, want = { 0 };
	struct sample_layouts ls;
	struct stack_trim_stats st = { 0 };
	size_t comm, n;

	one_layout(&ls);
	add_sample(&sb, 7, 512, 100);
	comm = rec_begin(&sb, PERF_RECORD_COMM, 0);
	u64s(&sb, 42ULL | 42ULL << 32);
	strbuf__add(&sb, "phases\0\0", 8);
	rec_end(&sb, comm);
	add_sample(&sb, 7, 512, 8);
	/* What the three come out as. */
	add_sample(&want, 7, 104, 100);
	strbuf__add(&want, sb.data + comm, 24);
	add_sample(&want, 7, 8, 8);
	n = stack_trim__records(sb.data, sb.len, sb.data, &ls, STACK_TRIM_ALL, &st);
	assert_int_equal(n, want.len);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.bytes_in - st.bytes_out, sb.len - want.len);
	/* The stack bytes kept are the first ones of each: the patterns agree. */
	assert_memory_equal(sb.data, want.data, n);
	strbuf__exit(&sb);
	strbuf__exit(&want);
	sample_layouts__exit(&ls);
}

static void test_layout_by_id(void **state)
{
	struct perf_event_attr a = dwarf_attr(), b = dwarf_attr();
	struct strbuf sb = { 0 };
	struct sample_layouts ls;
	struct stack_trim_stats st = { 0 };
	uint64_t ida[] = { 30, 10 }, idb[] = { 20 };
	size_t len;

	b.sample_type &= ~(uint64_t)PERF_SAMPLE_STACK_USER;
	sample_layouts__init(&ls);
	sample_layouts__add(&ls, &a, ida, 2);
	sample_layouts__add(&ls, &b, idb, 1);
	add_sample(&sb, 10, 64, 8);
	assert_ptr_equal(sample_layouts__find(&ls, sb.data, sb.len), &ls.l[0]);
	((uint64_t *)(sb.data + 8))[0] = 20;
	assert_ptr_equal(sample_layouts__find(&ls, sb.data, sb.len), &ls.l[1]);
	((uint64_t *)(sb.data + 8))[0] = 99;
	assert_null(sample_layouts__find(&ls, sb.data, sb.len));
	/* An unknown id is left as it is. */
	len = sb.len;
	assert_int_equal(stack_trim__records(sb.data, len, sb.data, &ls, STACK_TRIM_ALL, &st), len);
	assert_int_equal(st.samples, 0);
	/* A CPU came back: event b's new id is known from then on. */
	assert_int_equal(sample_layouts__add_late(&ls, 1, 99), 0);
	assert_ptr_equal(sample_layouts__find(&ls, sb.data, sb.len), &ls.l[1]);
	((uint64_t *)(sb.data + 8))[0] = 98;
	assert_null(sample_layouts__find(&ls, sb.data, sb.len));
	for (int i = 1; i < SAMPLE_LAYOUTS_LATE_MAX; i++)
		assert_int_equal(sample_layouts__add_late(&ls, 0, 1000 + i), 0);
	assert_int_equal(sample_layouts__add_late(&ls, 0, 98), -ENOSPC);
	assert_null(sample_layouts__find(&ls, sb.data, sb.len));
	strbuf__exit(&sb);
	sample_layouts__exit(&ls);
}

static void test_short_sample_is_refused(void **state)
{
	struct strbuf sb = { 0 };
	struct sample_layouts ls;
	struct sample_fields f;

	one_layout(&ls);
	add_sample(&sb, 7, 64, 8);
	assert_int_equal(sample_layout__parse(&ls.l[0], sb.data, sb.len - 16, &f), -22);
	strbuf__exit(&sb);
	sample_layouts__exit(&ls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_to_dyn_size),
		cmocka_unit_test(test_empty_and_full_stacks),
		cmocka_unit_test(test_records_in_a_chunk),
		cmocka_unit_test(test_layout_by_id),
		cmocka_unit_test(test_short_sample_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
