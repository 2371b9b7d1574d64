// SPDX-License-Identifier: GPL-2.0
/* inject/callchain.c: a DWARF sample rewritten into a callchain sample, its attr with it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <string.h>

#include "format/sample-layout.h"
#include "unwind/callchain.h"
#include "util.h"
#include "record-builder.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
	    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_DATA_SRC)

static void u64s(struct strbuf *sb, uint64_t v)
{
	strbuf__add(sb, &v, 8);
}

static uint64_t at(const struct strbuf *sb, size_t i)
{
	uint64_t v;

	memcpy(&v, sb->data + i * 8, 8);
	return v;
}

static void test_attr(void **state)
{
	struct perf_event_attr a = {
		.sample_type = ST, .sample_regs_user = 0xff0fff, .sample_stack_user = 8192,
		.exclude_callchain_user = 1,
	};
	struct perf_event_attr fp = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN };
	unsigned char bytes[PERF_ATTR_SIZE_VER7];

	assert_true(callchain__attr_converts(&a));
	assert_false(callchain__attr_converts(&fp));
	memcpy(bytes, &a, sizeof(bytes));
	callchain__convert_attr(&a);
	assert_int_equal(a.sample_type, (ST | PERF_SAMPLE_CALLCHAIN) &
			 ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER));
	assert_int_equal(a.sample_regs_user, 0);
	assert_int_equal(a.sample_stack_user, 0);
	assert_int_equal(a.exclude_callchain_user, 0);
	/* The same on an attr as a file holds it. */
	callchain__convert_attr_bytes(bytes, sizeof(bytes));
	assert_memory_equal(bytes, &a, sizeof(bytes));
	/* One that does not sample stacks is left alone. */
	callchain__convert_attr(&fp);
	assert_int_equal(fp.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN);
}

static void test_sample(void **state)
{
	struct perf_event_attr a = { .sample_type = ST, .sample_regs_user = 0x3 };
	struct sample_layout l;
	struct sample_fields f;
	struct strbuf in, out;
	uint64_t ips[] = { 0x401000, 0x401234, 0x402345 };
	uint32_t raw[2] = { 4, 0xdeadbeef };	/* u32 size, 4 bytes: 8 in all */
	size_t n;

	strbuf__init(&in);
	strbuf__init(&out);
	rec_begin(&in, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	u64s(&in, 77);				/* id */
	u64s(&in, 0xffffffff81000000ULL);	/* ip */
	u64s(&in, 42ULL | 43ULL << 32);		/* pid, tid */
	u64s(&in, 1000);			/* time */
	u64s(&in, 250000);			/* period */
	u64s(&in, 4);				/* callchain: kernel frames, then user ones */
	u64s(&in, PERF_CONTEXT_KERNEL);
	u64s(&in, 0xffffffff81000000ULL);
	u64s(&in, PERF_CONTEXT_USER);
	u64s(&in, 0x999);
	strbuf__add(&in, raw, sizeof(raw));
	u64s(&in, PERF_SAMPLE_REGS_ABI_64);	/* regs */
	u64s(&in, 0x1111);
	u64s(&in, 0x2222);
	u64s(&in, 16);				/* stack: 16 bytes, dyn 16 */
	u64s(&in, 0xaaaa);
	u64s(&in, 0xbbbb);
	u64s(&in, 16);
	u64s(&in, 0x5555);			/* data_src */
	rec_end(&in, 0);

	sample_layout__init(&l, &a);
	assert_int_equal(sample_layout__parse(&l, in.data, in.len, &f), 0);
	strbuf__grow(&out, callchain__max_size(in.len, 3));
	n = callchain__rewrite(in.data, in.len, &l, &f, ips, 3, out.data);
	out.len = n;
	/* header, 5 u64s, nr, KERNEL, k0, USER, 3 user frames, raw (8), data_src */
	assert_int_equal(n, 8 + 5 * 8 + 8 + 4 * 8 + 3 * 8 + 8 + 8 - 8);
	assert_int_equal(((struct perf_event_header *)out.data)->size, n);
	assert_int_equal(at(&out, 1), 77);
	assert_int_equal(at(&out, 5), 250000);
	assert_int_equal(at(&out, 6), 6);
	assert_int_equal(at(&out, 7), PERF_CONTEXT_KERNEL);
	assert_int_equal(at(&out, 8), 0xffffffff81000000ULL);
	assert_int_equal(at(&out, 9), PERF_CONTEXT_USER);
	assert_int_equal(at(&out, 10), 0x401000);
	assert_int_equal(at(&out, 12), 0x402345);
	assert_memory_equal(out.data + 13 * 8, raw, sizeof(raw));
	assert_int_equal(at(&out, 14), 0x5555);

	/* No frames: no PERF_CONTEXT_USER either. */
	n = callchain__rewrite(in.data, in.len, &l, &f, ips, 0, out.data);
	assert_int_equal(at(&out, 6), 2);
	assert_int_equal(at(&out, 9), 0xdeadbeef00000004ULL);
	strbuf__exit(&in);
	strbuf__exit(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attr),
		cmocka_unit_test(test_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
