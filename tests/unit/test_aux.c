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

#include "events/evlist.h"
#include "events/pmu.h"
#include "format/perf-data.h"
#include "perf-file.h"
#include "record/aux.h"
#include "record/mmap.h"
#include "record/record-stats.h"
#include "record/record-thread.h"
#include "record/rings.h"
#include "record-opts.h"
#include "tmpdir.h"
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

/* The ring the AUX event owns, in memory: a control page, then RING bytes. */
#define PAGE 4096
#define RING 4096

static void ring_put(unsigned char *mem, uint16_t len, uint64_t ip)
{
	struct perf_event_mmap_page *pc = (void *)mem;
	struct {
		struct perf_event_header h;
		uint64_t ip, time;
	} rec = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(rec) }, ip, ip };

	assert_int_equal(len, sizeof(rec));
	memcpy(mem + PAGE + (pc->data_head & (RING - 1)), &rec, sizeof(rec));
	__atomic_store_n(&pc->data_head, pc->data_head + len, __ATOMIC_RELEASE);
}

static void test_reader_pass_puts_the_trace_behind_the_ring(void **state)
{
	static struct fake_aux f;
	unsigned char *mem = calloc(1, PAGE + RING);
	struct aux_ring *a = calloc(1, sizeof(*a));
	struct mmap m;
	struct mmap_buf *b = NULL;
	struct record_stats st;

	assert_int_equal(mmap__init_fake(&m, mem, PAGE, RING, 1), 0);
	memset(&f, 0, sizeof(f));
	aux__init_fake(a, &f.pc, f.data, AREA, false);
	a->idx = 3;
	a->cpu = 1;
	m.aux = a;
	assert_int_equal(mmap__grow_bufs(&m, aux__max_copy(a)), 0);
	ring_put(mem, 24, 1);
	ring_put(mem, 24, 2);
	pmu_write(&f, 300);
	/* The ring's records, then one AUXTRACE and its data, in one buffer. */
	assert_int_equal(pass__copy_ring(&m, NULL, false, &b), 48 + 48 + 304);
	assert_non_null(b);
	check_record((unsigned char *)b->data + 48, 48 + 304, 0, 300, 1);
	record_stats__init(&st, PERF_SAMPLE_IP | PERF_SAMPLE_TIME);
	record_stats__observe(&st, b->data + b->fresh, b->len - b->fresh);
	/* The trace is skipped as the AUXTRACE's payload, not read as records. */
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.bad, 0);
	/* Trace with no new records: it alone, behind what the buffer holds. */
	pmu_write(&f, 8);
	assert_int_equal(pass__copy_ring(&m, NULL, false, &b), 48 + 8);
	assert_int_equal(b->fresh, 48 + 48 + 304);
	check_record((unsigned char *)b->data + b->fresh, 48 + 8, 300, 8, 1);
	assert_int_equal(f.pc.aux_tail, 308);
	/* Nothing new in either: nothing copied. */
	assert_int_equal(pass__copy_ring(&m, NULL, false, &b), 0);
	mmap__close(&m);	/* the AUX area goes with its ring */
	free(mem);
}

/* A sysfs with an AUX tracer of each kind (types 8..11) and a cpu PMU, under tmpdir. */
static void fake_sysfs(void)
{
	static const char *const pmus[][2] = {
		{ "arm_spe_0", "8" }, { "intel_bts", "9" }, { "intel_pt", "10" },
		{ "cs_etm", "11" }, { "cpu", "4" },
	};
	char cmd[1024];

	for (size_t i = 0; i < ARRAY_SIZE(pmus); i++) {
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s/bus/event_source/devices/%s' && "
			 "echo %s > '%s/bus/event_source/devices/%s/type'", tmpdir, pmus[i][0],
			 pmus[i][1], tmpdir, pmus[i][0]);
		assert_int_equal(system(cmd), 0);
	}
	pmu__set_sysfs_root(tmpdir);
}

static struct evsel *add_event(struct evlist *el, uint32_t type, const char *name,
			       struct evsel *leader)
{
	struct perf_event_attr attr = { .type = type, .size = PERFCAP_ATTR_SIZE,
					.sample_type = PERF_SAMPLE_IP };
	struct evsel *e = evsel__new(&attr, name);

	e->leader = leader ? leader : e;
	if (leader)
		leader->nr_members++;
	evlist__add(el, e);
	return e;
}

static void test_events_an_aux_event_leads(void **state)
{
	struct record_opts o = { 0 };
	struct evlist el;
	struct evsel *cs, *spe, *member;

	fake_sysfs();
	assert_int_equal(aux__kind_of_type(8), AUX_ARM_SPE);
	assert_int_equal(aux__kind_of_type(9), AUX_INTEL_BTS);
	assert_int_equal(aux__kind_of_type(4), AUX_UNKNOWN);
	assert_int_equal(aux__kind_of_type(12), AUX_UNKNOWN);
	evlist__init(&el);
	cs = add_event(&el, PERF_TYPE_SOFTWARE, "cs", NULL);
	spe = add_event(&el, 8, "arm_spe_0//", NULL);
	member = add_event(&el, PERF_TYPE_SOFTWARE, "cpu-clock", spe);
	assert_ptr_equal(aux__evsel(&el), spe);
	/* The AUX event goes first: its fd owns its CPU's ring and AUX area. */
	assert_int_equal(aux__setup_events(&el, &o), 0);
	assert_ptr_equal(el.evsels[0], spe);
	assert_ptr_equal(el.evsels[1], cs);
	assert_ptr_equal(el.evsels[2], member);
	assert_int_equal(el.evsels[2]->idx, 2);
	/* --aux-sample: the AUX event's group only, and not the AUX event. */
	o.aux_sample = true;
	o.aux_sample_size = 8192;
	aux__config(&el, &o);
	assert_true(member->attr.sample_type & PERF_SAMPLE_AUX);
	assert_int_equal(member->attr.aux_sample_size, 8192);
	assert_false(cs->attr.sample_type & PERF_SAMPLE_AUX);
	assert_false(spe->attr.sample_type & PERF_SAMPLE_AUX);
	/* perf 6.1 reads AUX trace only uncompressed. */
	o.comp_level = 1;
	assert_int_equal(aux__setup_events(&el, &o), -EINVAL);
	evlist__exit(&el);
	/* Tracers whose AUXTRACE_INFO perfcap cannot write are refused. */
	evlist__init(&el);
	add_event(&el, 10, "intel_pt//", NULL);
	memset(&o, 0, sizeof(o));
	assert_int_equal(aux__setup_events(&el, &o), -EINVAL);
	evlist__exit(&el);
	/* No AUX event: -S and --aux-sample are refused, nothing else. */
	evlist__init(&el);
	add_event(&el, PERF_TYPE_SOFTWARE, "cpu-clock", NULL);
	assert_int_equal(aux__setup_events(&el, &o), 0);
	o.aux_snapshot = true;
	assert_int_equal(aux__setup_events(&el, &o), -EINVAL);
	evlist__exit(&el);
	pmu__set_sysfs_root(NULL);
}

/* The AUXTRACE_INFO the recorder writes for an AUX event of type (one ring, on CPU 0). */
static size_t recorder_info(uint32_t type, bool snapshot, unsigned char *out, size_t cap)
{
	static struct fake_aux f;
	struct aux_ring a;
	struct mmap m = { .cpu = 0, .aux = &a };
	struct rings r = { .maps = &m, .nr = 1 };
	struct strbuf sb = { 0 };
	struct evlist el;
	size_t len;

	memset(&f, 0, sizeof(f));
	f.pc.time_shift = 10;
	f.pc.time_mult = 123456;
	f.pc.time_zero = 789;
	f.pc.cap_user_time_zero = 1;
	aux__init_fake(&a, &f.pc, f.data, AREA, snapshot);
	evlist__init(&el);
	add_event(&el, type, "aux", NULL);
	len = !aux__info_record(&el, &r, &sb) && sb.len <= cap ? sb.len : 0;
	if (len)
		memcpy(out, sb.data, len);
	strbuf__exit(&sb);
	evlist__exit(&el);
	return len;
}

static void test_recorder_info_per_tracer(void **state)
{
	unsigned char buf[128];
	uint64_t priv[8];

	fake_sysfs();
	/* ARM SPE (perf 6.1): its PMU type, AUX areas per CPU. */
	assert_int_equal(recorder_info(8, false, buf, sizeof(buf)), 16 + 16);
	assert_int_equal(((struct perf_record_auxtrace_info *)buf)->type, AUX_ARM_SPE);
	memcpy(priv, buf + 16, 16);
	assert_int_equal(priv[0], 8);
	assert_int_equal(priv[1], 1);
	/* Intel BTS: type, the control page's time conversion, snapshot mode. */
	assert_int_equal(recorder_info(9, true, buf, sizeof(buf)), 16 + 48);
	assert_int_equal(((struct perf_record_auxtrace_info *)buf)->type, AUX_INTEL_BTS);
	memcpy(priv, buf + 16, 48);
	assert_int_equal(priv[0], 9);
	assert_int_equal(priv[1], 10);
	assert_int_equal(priv[2], 123456);
	assert_int_equal(priv[3], 789);
	assert_int_equal(priv[4], 1);
	assert_int_equal(priv[5], 1);
	/* No AUX event: no record. */
	assert_int_equal(recorder_info(PERF_TYPE_SOFTWARE, false, buf, sizeof(buf)), 0);
	pmu__set_sysfs_root(NULL);
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
	/* As perf writes it, first: the recorder's AUXTRACE_INFO for an ARM SPE or Intel BTS PMU. */
	{
		const char *kind = getenv("PERFCAP_AUX_KIND");
		size_t len;

		if (tmpdir_setup(NULL))
			return 1;
		fake_sysfs();
		len = recorder_info(kind && !strcmp(kind, "bts") ? 9 : 8, false, buf, sizeof(buf));
		tmpdir_teardown(NULL);
		if (!len)
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
		cmocka_unit_test(test_reader_pass_puts_the_trace_behind_the_ring),
		cmocka_unit_test(test_events_an_aux_event_leads),
		cmocka_unit_test(test_recorder_info_per_tracer),
	};

	if (path)
		return write_file_for_perf(path);
	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
