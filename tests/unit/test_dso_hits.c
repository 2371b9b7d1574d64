// SPDX-License-Identifier: GPL-2.0
/* dso-hits.c: the DSOs that samples hit, from records seen as they go by. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/dso-hits.h"
#include "record-builder.h"
#include "util.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU)

/* sample_id_all trailer of ST: {pid, tid} {time} {cpu, res} {identifier} */
static void trailer(struct strbuf *sb, uint64_t time)
{
	strbuf__add_u64(sb, 0);
	strbuf__add_u64(sb, time);
	strbuf__add_u64(sb, 0);
	strbuf__add_u64(sb, 7);
}

static void mmap2(struct strbuf *sb, int32_t pid, uint64_t start, uint64_t len,
		  const char *name, uint8_t bid_byte, uint64_t ino, uint64_t time)
{
	size_t off = rec_begin(sb, PERF_RECORD_MMAP2,
			       PERF_RECORD_MISC_USER | (bid_byte ? (1 << 14) : 0));
	char fn[64] = { 0 };

	strbuf__add_u32(sb, pid);
	strbuf__add_u32(sb, pid);
	strbuf__add_u64(sb, start);
	strbuf__add_u64(sb, len);
	strbuf__add_u64(sb, 0);
	if (bid_byte) {
		uint8_t b[24] = { 20 };

		memset(b + 4, bid_byte, 20);
		strbuf__add(sb, b, sizeof(b));
	} else {
		strbuf__add_u32(sb, 8);	/* maj */
		strbuf__add_u32(sb, 1);	/* min */
		strbuf__add_u64(sb, ino);
		strbuf__add_u64(sb, 0);
	}
	strbuf__add_u32(sb, 5);	/* PROT_READ | PROT_EXEC */
	strbuf__add_u32(sb, 2);
	snprintf(fn, sizeof(fn), "%s", name);
	strbuf__add(sb, fn, ALIGN_UP(strlen(name) + 1, 8));
	trailer(sb, time);
	rec_end(sb, off);
}

static void kmmap(struct strbuf *sb, uint64_t start, uint64_t len, const char *name)
{
	size_t off = rec_begin(sb, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	char fn[64] = { 0 };

	strbuf__add_u32(sb, -1);
	strbuf__add_u32(sb, 0);
	strbuf__add_u64(sb, start);
	strbuf__add_u64(sb, len);
	strbuf__add_u64(sb, start);
	snprintf(fn, sizeof(fn), "%s", name);
	strbuf__add(sb, fn, ALIGN_UP(strlen(name) + 1, 8));
	trailer(sb, 0);
	rec_end(sb, off);
}

static void sample(struct strbuf *sb, uint16_t mode, int32_t pid, uint64_t ip, uint64_t time)
{
	size_t off = rec_begin(sb, PERF_RECORD_SAMPLE, mode);

	strbuf__add_u64(sb, 7);
	strbuf__add_u64(sb, ip);
	strbuf__add_u32(sb, pid);
	strbuf__add_u32(sb, pid);
	strbuf__add_u64(sb, time);
	strbuf__add_u64(sb, 0);
	rec_end(sb, off);
}

static void fork_rec(struct strbuf *sb, int32_t pid, int32_t ppid, uint64_t time)
{
	size_t off = rec_begin(sb, PERF_RECORD_FORK, 0);

	strbuf__add_u32(sb, pid);
	strbuf__add_u32(sb, ppid);
	strbuf__add_u32(sb, pid);
	strbuf__add_u32(sb, ppid);
	strbuf__add_u64(sb, time);
	trailer(sb, time);
	rec_end(sb, off);
}

/* The resolved names, joined by spaces, in the list's (sorted) order. */
static char *names(struct dso_hits *const *h, int n, bool all)
{
	struct hit_dso *d;
	size_t nr = dso_hits__resolve(h, n, all, &d);
	struct strbuf sb;

	strbuf__init(&sb);
	for (size_t i = 0; i < nr; i++)
		strbuf__addf(&sb, "%s%s", i ? " " : "", d[i].name);
	strbuf__add(&sb, "", 1);
	free(d);
	return sb.data;
}

static void test_hit_maps_only(void **state)
{
	struct dso_hits h, *hp = &h;
	struct strbuf sb;
	char *s;

	strbuf__init(&sb);
	dso_hits__init(&h, ST, true);
	kmmap(&sb, 0xffffffff81000000ULL, 0x1000000, "[kernel.kallsyms]_text");
	mmap2(&sb, 100, 0x400000, 0x1000, "/bin/a", 0xaa, 0, 1);
	mmap2(&sb, 100, 0x7f0000, 0x2000, "/lib/b.so", 0, 42, 2);
	mmap2(&sb, 100, 0x900000, 0x1000, "/lib/c.so", 0, 43, 3);
	mmap2(&sb, 100, 0xa00000, 0x1000, "//anon", 0, 0, 3);
	mmap2(&sb, 100, 0xb00000, 0x1000, "[vdso]", 0, 0, 3);
	sample(&sb, PERF_RECORD_MISC_USER, 100, 0x400010, 10);
	sample(&sb, PERF_RECORD_MISC_USER, 100, 0x400020, 11);
	sample(&sb, PERF_RECORD_MISC_USER, 100, 0x7f1800, 12);
	sample(&sb, PERF_RECORD_MISC_USER, 100, 0xa00010, 13);
	dso_hits__observe(&h, sb.data, sb.len);
	/* Two samples on one page: one entry. */
	assert_int_equal(h.nr_pages, 3);
	s = names(&hp, 1, false);
	/* c.so got nothing, //anon has no file; the vdso is listed as perf lists it. */
	assert_string_equal(s, "/bin/a /lib/b.so [vdso]");
	free(s);

	/* A kernel sample adds the kernel. */
	strbuf__reset(&sb);
	sample(&sb, PERF_RECORD_MISC_KERNEL, 100, 0xffffffff81001234ULL, 14);
	dso_hits__observe(&h, sb.data, sb.len);
	s = names(&hp, 1, false);
	assert_string_equal(s, "/bin/a /lib/b.so [kernel.kallsyms] [vdso]");
	free(s);

	/* Every DSO mapped, hit or not: --buildid-all. */
	s = names(&hp, 1, true);
	assert_string_equal(s, "/bin/a /lib/b.so /lib/c.so [kernel.kallsyms] [vdso]");
	free(s);
	dso_hits__exit(&h);
	strbuf__exit(&sb);
}

static void test_ids_and_files(void **state)
{
	struct dso_hits h, *hp = &h;
	struct hit_dso *d;
	struct strbuf sb;
	size_t nr;

	strbuf__init(&sb);
	dso_hits__init(&h, ST, true);
	mmap2(&sb, 100, 0x400000, 0x1000, "/bin/a", 0xaa, 0, 1);
	mmap2(&sb, 100, 0x7f0000, 0x2000, "/lib/b.so", 0, 42, 2);
	sample(&sb, PERF_RECORD_MISC_USER, 100, 0x400010, 10);
	sample(&sb, PERF_RECORD_MISC_USER, 100, 0x7f0010, 10);
	dso_hits__observe(&h, sb.data, sb.len);
	nr = dso_hits__resolve(&hp, 1, false, &d);
	assert_int_equal(nr, 2);
	/* The MMAP2's build id is kept; a map without one keeps its file's dev and inode. */
	assert_int_equal(d[0].bid.size, 20);
	assert_int_equal(d[0].bid.data[19], 0xaa);
	assert_int_equal(d[1].bid.size, 0);
	assert_int_equal(d[1].ino, 42);
	assert_int_equal(d[1].maj, 8);
	assert_int_equal(d[1].pid, 100);
	free(d);
	dso_hits__exit(&h);
	strbuf__exit(&sb);
}

/* A map seen by one reader, its samples by another (the task moved CPU). */
static void test_across_readers(void **state)
{
	struct dso_hits a, b, *hs[2] = { &a, &b };
	struct strbuf sb;
	char *s;

	strbuf__init(&sb);
	dso_hits__init(&a, ST, true);
	dso_hits__init(&b, ST, true);
	mmap2(&sb, 100, 0x400000, 0x1000, "/bin/a", 0xaa, 0, 1);
	dso_hits__observe(&a, sb.data, sb.len);
	strbuf__reset(&sb);
	sample(&sb, PERF_RECORD_MISC_USER, 100, 0x400010, 10);
	dso_hits__observe(&b, sb.data, sb.len);
	s = names(&hs[0], 1, false);
	assert_string_equal(s, "");
	free(s);
	s = names(hs, 2, false);
	assert_string_equal(s, "/bin/a");
	free(s);
	dso_hits__exit(&a);
	dso_hits__exit(&b);
	strbuf__exit(&sb);
}

/* A child runs its parent's maps until it maps its own (exec). */
static void test_fork_and_exec(void **state)
{
	struct dso_hits h, *hp = &h;
	struct strbuf sb;
	char *s;

	strbuf__init(&sb);
	dso_hits__init(&h, ST, true);
	mmap2(&sb, 100, 0x400000, 0x1000, "/bin/sh", 0xaa, 0, 1);
	mmap2(&sb, 100, 0x500000, 0x1000, "/bin/unhit", 0xab, 0, 1);
	fork_rec(&sb, 200, 100, 20);
	sample(&sb, PERF_RECORD_MISC_USER, 200, 0x400010, 30);
	dso_hits__observe(&h, sb.data, sb.len);
	s = names(&hp, 1, false);
	assert_string_equal(s, "/bin/sh");
	free(s);

	/* pid 300 execs: /new replaces /old at the same address at time 100. */
	dso_hits__reset(&h);
	strbuf__reset(&sb);
	mmap2(&sb, 300, 0x400000, 0x1000, "/old", 0xa1, 0, 10);
	mmap2(&sb, 300, 0x400000, 0x1000, "/new", 0xa2, 0, 100);
	sample(&sb, PERF_RECORD_MISC_USER, 300, 0x400010, 50);
	dso_hits__observe(&h, sb.data, sb.len);
	s = names(&hp, 1, false);
	assert_string_equal(s, "/old");
	free(s);
	/* The same page hit after the exec too: both. */
	strbuf__reset(&sb);
	sample(&sb, PERF_RECORD_MISC_USER, 300, 0x400010, 150);
	dso_hits__observe(&h, sb.data, sb.len);
	s = names(&hp, 1, false);
	assert_string_equal(s, "/new /old");
	free(s);
	dso_hits__exit(&h);
	strbuf__exit(&sb);
}

/* A kernel sample in a module's range hits the module, not the kernel. */
static void test_modules(void **state)
{
	struct dso_hits h, *hp = &h;
	struct strbuf sb;
	char *s;

	strbuf__init(&sb);
	dso_hits__init(&h, ST, true);
	kmmap(&sb, 0xffffffff81000000ULL, 0x1000000, "[kernel.kallsyms]_text");
	kmmap(&sb, 0xffffffffc0000000ULL, 0x10000, "/lib/modules/x/kernel/foo.ko");
	sample(&sb, PERF_RECORD_MISC_KERNEL, 5, 0xffffffffc0000100ULL, 10);
	dso_hits__observe(&h, sb.data, sb.len);
	s = names(&hp, 1, false);
	assert_string_equal(s, "/lib/modules/x/kernel/foo.ko");
	free(s);
	dso_hits__exit(&h);
	strbuf__exit(&sb);
}

/* --buildid-all notes no sample; -B's tracker (off) is never fed. */
static void test_no_sample_tracking(void **state)
{
	struct dso_hits h;
	struct strbuf sb;

	strbuf__init(&sb);
	dso_hits__init(&h, ST, false);
	sample(&sb, PERF_RECORD_MISC_USER, 100, 0x400010, 10);
	dso_hits__observe(&h, sb.data, sb.len);
	assert_int_equal(h.nr_pages, 0);
	dso_hits__exit(&h);
	strbuf__exit(&sb);
}

/* The page table grows past its first size and loses nothing; a truncated record ends the walk. */
static void test_many_pages(void **state)
{
	struct dso_hits h, *hp = &h;
	struct strbuf sb;
	struct hit_dso *d;
	size_t nr;

	strbuf__init(&sb);
	dso_hits__init(&h, ST, true);
	for (int i = 0; i < 4000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "/lib/l%04d.so", i);
		mmap2(&sb, 100, 0x10000000ULL + i * 0x1000ULL, 0x1000, name, 0, i + 1, 1);
		sample(&sb, PERF_RECORD_MISC_USER, 100, 0x10000000ULL + i * 0x1000ULL + 8, 5);
	}
	dso_hits__observe(&h, sb.data, sb.len);
	assert_int_equal(h.nr_pages, 4000);
	nr = dso_hits__resolve(&hp, 1, false, &d);
	assert_int_equal(nr, 4000);
	assert_string_equal(d[3999].name, "/lib/l3999.so");
	free(d);
	dso_hits__reset(&h);
	strbuf__reset(&sb);
	sample(&sb, PERF_RECORD_MISC_USER, 100, 0x400010, 10);
	dso_hits__observe(&h, sb.data, sb.len - 1);
	assert_int_equal(h.nr_pages, 0);
	dso_hits__exit(&h);
	strbuf__exit(&sb);
}

/* Past DSO_HITS_MAX_PAGES it stops noting pages and lists every DSO (a longer list, no wrong id). */
static void test_overflow_lists_all(void **state)
{
	struct dso_hits h, *hp = &h;
	struct strbuf sb;
	char *s;

	strbuf__init(&sb);
	dso_hits__init(&h, ST, true);
	mmap2(&sb, 100, 0x400000, 0x1000, "/bin/a", 0xaa, 0, 1);
	mmap2(&sb, 100, 0x500000, 0x1000, "/bin/unhit", 0xab, 0, 1);
	for (uint64_t i = 0; i <= DSO_HITS_MAX_PAGES; i++)
		sample(&sb, PERF_RECORD_MISC_USER, 100, 0x10000000000ULL + (i << 12), 5);
	dso_hits__observe(&h, sb.data, sb.len);
	assert_true(h.overflow);
	assert_int_equal(h.nr_pages, DSO_HITS_MAX_PAGES);
	/* The kernel too: its pages may have been among those not noted. */
	s = names(&hp, 1, false);
	assert_string_equal(s, "/bin/a /bin/unhit [kernel.kallsyms]");
	free(s);
	dso_hits__exit(&h);
	strbuf__exit(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit_maps_only),
		cmocka_unit_test(test_ids_and_files),
		cmocka_unit_test(test_across_readers),
		cmocka_unit_test(test_fork_and_exec),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_no_sample_tracking),
		cmocka_unit_test(test_many_pages),
		cmocka_unit_test(test_overflow_lists_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
