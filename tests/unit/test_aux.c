// SPDX-License-Identifier: GPL-2.0
/*
 * aux.c over an AUX area in ordinary memory, written the way a PMU
 * writes one: PERF_RECORD_AUXTRACE records with perf's layout (48 bytes,
 * then the data padded to 8), the offset of each piece in the AUX
 * stream, a piece that wraps, a partial one, the tail given back; a -S
 * area read only at a snapshot, its newest bytes; AUXTRACE_INFO.
 *
 * With PERFCAP_AUX_FILE set, it runs no test and writes a perf.data
 * there holding a sample and such records, for aux.bats to give to perf.
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

#include "format/perf-data.h"
#include "perf-file.h"
#include "record/aux.h"
#include "util.h"

#define AREA 4096

struct fake_aux {
	struct perf_event_mmap_page pc;
	unsigned char data[AREA];
};

/* PMU side: n bytes of trace, byte i of the stream being (i & 0xff) ^ 0x5a. */
static void pmu_write(struct fake_aux *f, uint64_t n)
{
	uint64_t head = f->pc.aux_head;

	for (uint64_t i = 0; i < n; i++)
		f->data[(head + i) & (AREA - 1)] = ((head + i) & 0xff) ^ 0x5a;
	__atomic_store_n(&f->pc.aux_head, head + n, __ATOMIC_RELEASE);
}

/* buf holds one AUXTRACE of the stream bytes [off, off + n): check it whole. */
static void check_record(const unsigned char *buf, ssize_t got, uint64_t off, uint64_t n,
			 uint32_t cpu)
{
	struct perf_record_auxtrace ev;
	uint64_t padded = (n + 7) & ~7ULL;

	assert_int_equal(got, 48 + padded);
	memcpy(&ev, buf, sizeof(ev));
	assert_int_equal(sizeof(ev), 48);
	assert_int_equal(ev.header.type, PERF_RECORD_AUXTRACE);
	assert_int_equal(ev.header.misc, 0);
	/* The record alone: perf reads size bytes of data after it. */
	assert_int_equal(ev.header.size, 48);
	assert_int_equal(ev.size, padded);
	assert_int_equal(ev.offset, off);
	assert_int_equal(ev.reference, 0);
	assert_int_equal(ev.idx, 3);
	assert_int_equal(ev.tid, (uint32_t)-1);
	assert_int_equal(ev.cpu, cpu);
	assert_int_equal(ev.reserved, 0);
	for (uint64_t i = 0; i < n; i++)
		assert_int_equal(buf[48 + i], ((off + i) & 0xff) ^ 0x5a);
	for (uint64_t i = n; i < padded; i++)
		assert_int_equal(buf[48 + i], 0);
}

static void area_init(struct fake_aux *f, struct aux_ring *a, bool snapshot)
{
	memset(f, 0, sizeof(*f));
	aux__init_fake(a, &f->pc, f->data, AREA, snapshot);
	a->idx = 3;
	a->cpu = 1;
}

static void test_kind_by_pmu_name(void **state)
{
	assert_int_equal(aux__kind("intel_pt"), AUX_INTEL_PT);
	assert_int_equal(aux__kind("intel_bts"), AUX_INTEL_BTS);
	assert_int_equal(aux__kind("cs_etm"), AUX_CS_ETM);
	assert_int_equal(aux__kind("arm_spe_0"), AUX_ARM_SPE);
	assert_int_equal(aux__kind("cpu"), AUX_UNKNOWN);
	assert_int_equal(aux__kind("intel_pt2"), AUX_UNKNOWN);
	assert_int_equal(aux__kind_of_type(PERF_TYPE_SOFTWARE), AUX_UNKNOWN);
}

static void test_copy_pieces_in_order(void **state)
{
	static struct fake_aux f;
	unsigned char buf[48 + AREA + 8];
	struct aux_ring a;

	area_init(&f, &a, false);
	assert_int_equal(aux__copy(&a, buf, sizeof(buf)), 0);
	pmu_write(&f, 1000);
	check_record(buf, aux__copy(&a, buf, sizeof(buf)), 0, 1000, 1);
	/* Given back to the PMU at once, and nothing twice. */
	assert_int_equal(f.pc.aux_tail, 1000);
	assert_int_equal(aux__copy(&a, buf, sizeof(buf)), 0);
	/* A partial piece (13 bytes): padded to 16, the next starts at 1013. */
	pmu_write(&f, 13);
	check_record(buf, aux__copy(&a, buf, sizeof(buf)), 1000, 13, 1);
	pmu_write(&f, 3);
	check_record(buf, aux__copy(&a, buf, sizeof(buf)), 1013, 3, 1);
	assert_int_equal(f.pc.aux_tail, 1016);
	assert_int_equal(a.bytes, 1016);
	assert_int_equal(a.nr_records, 3);
}

static void test_copy_across_the_wrap(void **state)
{
	static struct fake_aux f;
	unsigned char buf[48 + AREA + 8];
	struct aux_ring a;

	area_init(&f, &a, false);
	pmu_write(&f, 4000);
	assert_int_equal(aux__copy(&a, buf, sizeof(buf)), 48 + 4000);
	/* 4000..4300: 96 bytes at the end of the area, 204 at its start. */
	pmu_write(&f, 300);
	check_record(buf, aux__copy(&a, buf, sizeof(buf)), 4000, 300, 1);
	assert_int_equal(f.pc.aux_tail, 4300);
	/* A whole area's worth, wrapped. */
	pmu_write(&f, AREA);
	check_record(buf, aux__copy(&a, buf, sizeof(buf)), 4300, AREA, 1);
}

static void test_no_room_copies_nothing(void **state)
{
	static struct fake_aux f;
	unsigned char buf[48 + AREA + 8];
	struct aux_ring a;

	area_init(&f, &a, false);
	pmu_write(&f, 100);
	assert_int_equal(aux__copy(&a, buf, 48 + 100), -ENOSPC);	/* 104 with padding */
	assert_int_equal(f.pc.aux_tail, 0);
	assert_int_equal(a.prev, 0);
	check_record(buf, aux__copy(&a, buf, 48 + 104), 0, 100, 1);
	assert_true(aux__max_copy(&a) >= 48 + AREA + 7);
}

static void test_snapshot_area_is_read_at_a_snapshot_only(void **state)
{
	static struct fake_aux f;
	unsigned char buf[48 + AREA + 8];
	struct aux_ring a;

	area_init(&f, &a, true);
	/* 10000 bytes into 4096: the PMU wrote round it twice. */
	pmu_write(&f, 10000);
	assert_int_equal(aux__copy(&a, buf, sizeof(buf)), 0);
	aux__snapshot(&a);
	/* The newest area's worth; the PMU never waits for a snapshot area. */
	check_record(buf, aux__copy(&a, buf, sizeof(buf)), 10000 - AREA, AREA, 1);
	assert_int_equal(f.pc.aux_tail, 0);
	assert_false(a.snap_due);
	assert_int_equal(aux__copy(&a, buf, sizeof(buf)), 0);
	/* -S 1001: at most the newest 1001 bytes of what came since. */
	a.snapshot_size = 1001;
	pmu_write(&f, 3000);
	aux__snapshot(&a);
	check_record(buf, aux__copy(&a, buf, sizeof(buf)), 13000 - 1001, 1001, 1);
	/* Less than that came: all of it. */
	pmu_write(&f, 500);
	aux__snapshot(&a);
	check_record(buf, aux__copy(&a, buf, sizeof(buf)), 13000, 500, 1);
}

static void test_auxtrace_info(void **state)
{
	uint64_t priv[3] = { 8, 0x1234, ~0ULL };
	unsigned char buf[64];
	struct perf_record_auxtrace_info info;

	assert_int_equal(aux__info(buf, sizeof(buf), AUX_INTEL_PT, priv, 3), 16 + 24);
	memcpy(&info, buf, sizeof(info));
	assert_int_equal(info.header.type, PERF_RECORD_AUXTRACE_INFO);
	assert_int_equal(info.header.size, 40);
	assert_int_equal(info.type, 1);
	assert_int_equal(info.reserved, 0);
	assert_memory_equal(buf + 16, priv, sizeof(priv));
	assert_int_equal(aux__info(buf, sizeof(buf), AUX_ARM_SPE, NULL, 0), 16);
	memcpy(&info, buf, sizeof(info));
	assert_int_equal(info.type, 4);
	/* perf 6.1 refuses a tracer it does not know; and it must fit. */
	assert_int_equal(aux__info(buf, sizeof(buf), AUX_UNKNOWN, NULL, 0), 0);
	assert_int_equal(aux__info(buf, 39, AUX_INTEL_PT, priv, 3), 0);
}

/* For aux.bats: a perf.data at path with a sample and two AUXTRACE records (one wrapped). */
static int write_file_for_perf(const char *path)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.size = PERFCAP_ATTR_SIZE, .sample_period = 4000, .freq = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1,
	};
	struct perf_data_attr pa = { &attr, NULL, 0 };
	struct perf_file_header hdr;
	static struct fake_aux f;
	static unsigned char buf[48 + AREA + 8];
	struct strbuf sb = { 0 };
	struct aux_ring a;
	uint64_t data_start;
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
	} sample = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(sample) },
		     0x401000, 1, 1, 1000 };
	FILE *out;
	ssize_t n;

	perf_data__build_start(&pa, 1, &sb, &hdr);
	data_start = sb.len;
	/* As perf writes it, first: ARM SPE's (perf 6.1: its PMU type, per-CPU mmaps). */
	{
		uint64_t priv[2] = { 8, 1 };
		size_t len = aux__info(buf, sizeof(buf), AUX_ARM_SPE, priv, 2);

		if (len != 32)
			return 1;
		strbuf__add(&sb, buf, len);
	}
	strbuf__add(&sb, &sample, sizeof(sample));
	area_init(&f, &a, false);
	a.cpu = 0;
	pmu_write(&f, 4000);
	n = aux__copy(&a, buf, sizeof(buf));
	strbuf__add(&sb, buf, n);
	pmu_write(&f, 301);	/* wraps, and is padded */
	n = aux__copy(&a, buf, sizeof(buf));
	strbuf__add(&sb, buf, n);
	hdr.data.offset = data_start;
	hdr.data.size = sb.len - data_start;
	memcpy(sb.data, &hdr, sizeof(hdr));
	out = fopen(path, "w");
	if (!out || fwrite(sb.data, 1, sb.len, out) != sb.len || fclose(out))
		return 1;
	strbuf__exit(&sb);
	return 0;
}

int main(void)
{
	const char *path = getenv("PERFCAP_AUX_FILE");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_by_pmu_name),
		cmocka_unit_test(test_copy_pieces_in_order),
		cmocka_unit_test(test_copy_across_the_wrap),
		cmocka_unit_test(test_no_room_copies_nothing),
		cmocka_unit_test(test_snapshot_area_is_read_at_a_snapshot_only),
		cmocka_unit_test(test_auxtrace_info),
	};

	if (path)
		return write_file_for_perf(path);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
