// SPDX-License-Identifier: GPL-2.0
/*
 * The reader (src/read/ but loss): hand-made perf.data files, built byte
 * by byte here, decoded by the reader; truncated and corrupt files must
 * fail cleanly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "read/loss.h"
#include "read/reader-internal.h"
#include "read/reader.h"
#include "util.h"

#include "record-builder.h"
#include "tmpdir.h"

/* ---- a perf.data builder ------------------------------------------------ */

struct tattr {
	struct perf_event_attr attr;
	uint64_t ids[4];
	int nr_ids;
	const char *name;	/* for EVENT_DESC */
};

struct tfile {
	struct tattr attrs[4];
	int nr_attrs;
	struct strbuf data;
	bool event_desc;
	bool hostname;
	bool dir_format;
	bool swap_magic;
	uint64_t header_size;	/* 0: 104 */
};

static void tfile_init(struct tfile *f)
{
	memset(f, 0, sizeof(*f));
	strbuf__init(&f->data);
}

static struct tattr *tfile_attr(struct tfile *f, uint32_t config, uint64_t sample_type,
				const char *name, uint64_t id0, uint64_t id1)
{
	struct tattr *a = &f->attrs[f->nr_attrs++];

	a->attr.type = PERF_TYPE_SOFTWARE;
	a->attr.size = PERF_ATTR_SIZE_VER7;
	a->attr.config = config;
	a->attr.sample_type = sample_type;
	a->attr.sample_id_all = 1;
	a->attr.sample_period = 1000;
	a->ids[0] = id0;
	a->ids[1] = id1;
	a->nr_ids = 2;
	a->name = name;
	return a;
}

/* Write the file; returns its size. */
static size_t tfile_write(struct tfile *f, const char *path)
{
	struct strbuf sb, feat;
	struct perf_file_header h = { 0 };
	uint64_t id_off[4], feat_sizes[8];
	size_t nr_feat = 0, table;
	int fd;

	strbuf__init(&sb);
	strbuf__init(&feat);
	strbuf__addz(&sb, sizeof(h));
	for (int i = 0; i < f->nr_attrs; i++) {
		id_off[i] = sb.len;
		strbuf__add(&sb, f->attrs[i].ids, f->attrs[i].nr_ids * 8);
	}
	h.attrs.offset = sb.len;
	h.attr_size = PERF_ATTR_SIZE_VER7 + sizeof(struct perf_file_section);
	for (int i = 0; i < f->nr_attrs; i++) {
		struct perf_file_section ids = { id_off[i], f->attrs[i].nr_ids * 8 };

		strbuf__add(&sb, &f->attrs[i].attr, PERF_ATTR_SIZE_VER7);
		strbuf__add(&sb, &ids, sizeof(ids));
	}
	h.attrs.size = sb.len - h.attrs.offset;
	h.data.offset = sb.len;
	h.data.size = f->data.len;
	if (f->data.len)
		strbuf__add(&sb, f->data.data, f->data.len);

	/* Features in bit order: HOSTNAME (3), EVENT_DESC (12), DIR_FORMAT (24). */
	if (f->hostname) {
		size_t before = feat.len;

		h.adds_features[0] |= 1ULL << HEADER_HOSTNAME;
		strbuf__add_perf_string(&feat, "testhost");
		feat_sizes[nr_feat++] = feat.len - before;
	}
	if (f->event_desc) {
		size_t before = feat.len;

		h.adds_features[0] |= 1ULL << HEADER_EVENT_DESC;
		strbuf__add_u32(&feat, f->nr_attrs);
		strbuf__add_u32(&feat, PERF_ATTR_SIZE_VER7);
		for (int i = 0; i < f->nr_attrs; i++) {
			strbuf__add(&feat, &f->attrs[i].attr, PERF_ATTR_SIZE_VER7);
			strbuf__add_u32(&feat, f->attrs[i].nr_ids);
			strbuf__add_perf_string(&feat, f->attrs[i].name);
			strbuf__add(&feat, f->attrs[i].ids, f->attrs[i].nr_ids * 8);
		}
		feat_sizes[nr_feat++] = feat.len - before;
	}
	if (f->dir_format) {
		h.adds_features[0] |= 1ULL << HEADER_DIR_FORMAT;
		strbuf__add_u64(&feat, 1);
		feat_sizes[nr_feat++] = 8;
	}
	table = sb.len;
	{
		uint64_t off = table + nr_feat * sizeof(struct perf_file_section);

		for (size_t i = 0; i < nr_feat; i++) {
			struct perf_file_section s = { off, feat_sizes[i] };

			strbuf__add(&sb, &s, sizeof(s));
			off += feat_sizes[i];
		}
	}
	if (feat.len)
		strbuf__add(&sb, feat.data, feat.len);

	h.magic = f->swap_magic ? __builtin_bswap64(PERF_MAGIC2) : PERF_MAGIC2;
	h.size = f->header_size ? f->header_size : sizeof(h);
	memcpy(sb.data, &h, sizeof(h));

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, sb.data, sb.len), (ssize_t)sb.len);
	close(fd);
	strbuf__exit(&feat);
	{
		size_t n = sb.len;

		strbuf__exit(&sb);
		return n;
	}
}

/*
 * The same recording in perf's pipe format: header, ATTR records, the
 * features as FEATURE records (HOSTNAME's and EVENT_DESC's sizes are not
 * multiples of 8, as in perf's own streams), the end mark, a
 * TRACING_DATA record with 5 bytes of data padded to 8, then the data.
 * Returns the size.
 */
static size_t tfile_write_pipe(struct tfile *f, const char *path)
{
	struct strbuf sb;
	uint64_t magic = PERF_MAGIC2, size = 16;
	size_t o, n;
	int fd;

	strbuf__init(&sb);
	strbuf__add_u64(&sb, magic);
	strbuf__add_u64(&sb, size);
	for (int i = 0; i < f->nr_attrs; i++) {
		o = rec_begin(&sb, PERF_RECORD_HEADER_ATTR, 0);
		strbuf__add(&sb, &f->attrs[i].attr, PERF_ATTR_SIZE_VER7);
		strbuf__add(&sb, f->attrs[i].ids, f->attrs[i].nr_ids * 8);
		rec_end(&sb, o);
	}
	if (f->hostname) {
		o = rec_begin(&sb, PERF_RECORD_HEADER_FEATURE, 0);
		strbuf__add_u64(&sb, HEADER_HOSTNAME);
		strbuf__add_perf_string(&sb, "testhost");
		rec_end(&sb, o);
	}
	if (f->event_desc) {
		o = rec_begin(&sb, PERF_RECORD_HEADER_FEATURE, 0);
		strbuf__add_u64(&sb, HEADER_EVENT_DESC);
		strbuf__add_u32(&sb, f->nr_attrs);
		strbuf__add_u32(&sb, PERF_ATTR_SIZE_VER7);
		for (int i = 0; i < f->nr_attrs; i++) {
			strbuf__add(&sb, &f->attrs[i].attr, PERF_ATTR_SIZE_VER7);
			strbuf__add_u32(&sb, f->attrs[i].nr_ids);
			strbuf__add_perf_string(&sb, f->attrs[i].name);
			strbuf__add(&sb, f->attrs[i].ids, f->attrs[i].nr_ids * 8);
		}
		rec_end(&sb, o);
	}
	o = rec_begin(&sb, PERF_RECORD_HEADER_FEATURE, 0);
	strbuf__add_u64(&sb, HEADER_LAST_FEATURE);
	rec_end(&sb, o);
	o = rec_begin(&sb, PERF_RECORD_HEADER_TRACING_DATA, 0);
	strbuf__add_u32(&sb, 8);
	strbuf__add_u32(&sb, 0);
	rec_end(&sb, o);
	strbuf__add(&sb, "tdata\0\0\0", 8);
	if (f->data.len)
		strbuf__add(&sb, f->data.data, f->data.len);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, sb.data, sb.len), (ssize_t)sb.len);
	close(fd);
	n = sb.len;
	strbuf__exit(&sb);
	return n;
}

static void tfile_exit(struct tfile *f)
{
	strbuf__exit(&f->data);
}


static void add_u32x2(struct strbuf *sb, uint32_t a, uint32_t b)
{
	strbuf__add_u32(sb, a);
	strbuf__add_u32(sb, b);
}

/* The sample_id trailer for sample_type st. */
static void add_trailer(struct strbuf *sb, uint64_t st, uint32_t pid, uint32_t tid,
			uint64_t time, uint64_t id, uint32_t cpu)
{
	if (st & PERF_SAMPLE_TID)
		add_u32x2(sb, pid, tid);
	if (st & PERF_SAMPLE_TIME)
		strbuf__add_u64(sb, time);
	if (st & PERF_SAMPLE_ID)
		strbuf__add_u64(sb, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		strbuf__add_u64(sb, id + 1000);
	if (st & PERF_SAMPLE_CPU)
		add_u32x2(sb, cpu, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		strbuf__add_u64(sb, id);
}


/* Expected failures print their message: keep it out of the test output. */
static int saved_stderr = -1;

static void quiet_begin(void)
{
	int fd = open("/dev/null", O_WRONLY);

	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

static void quiet_end(void)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
}

/* ---- the file most tests read ------------------------------------------ */

#define ST_CLOCK (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
		  PERF_SAMPLE_CALLCHAIN)
#define ST_DUMMY (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

static const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL,
				  PERF_CONTEXT_USER, 0x401000, 0x401100 };

/* Offsets of the records of the standard file. */
static size_t off_comm, off_sample, off_lost, off_round, off_sample2;

static void build_standard(struct tfile *f)
{
	struct strbuf *d = &f->data;
	size_t o;

	tfile_init(f);
	tfile_attr(f, PERF_COUNT_SW_CPU_CLOCK, ST_CLOCK, "my-clock", 10, 11);
	tfile_attr(f, PERF_COUNT_SW_DUMMY, ST_DUMMY, "my-dummy", 20, 21);
	f->event_desc = true;
	f->hostname = true;

	/* COMM from the dummy event on CPU 1 */
	off_comm = o = rec_begin(d, PERF_RECORD_COMM, 0);
	add_u32x2(d, 42, 43);
	strbuf__add(d, "worker\0\0", 8);
	add_trailer(d, ST_DUMMY, 42, 43, 100, 21, 1);
	rec_end(d, o);

	/* a cpu-clock sample with a callchain */
	off_sample = o = rec_begin(d, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	strbuf__add_u64(d, 11);			/* IDENTIFIER */
	strbuf__add_u64(d, 0x401234);		/* IP */
	add_u32x2(d, 42, 43);			/* TID */
	strbuf__add_u64(d, 200);		/* TIME */
	add_u32x2(d, 1, 0);			/* CPU */
	strbuf__add_u64(d, 1000);		/* PERIOD */
	strbuf__add_u64(d, ARRAY_SIZE(chain));	/* CALLCHAIN */
	strbuf__add(d, chain, sizeof(chain));
	rec_end(d, o);

	/* LOST: id, lost, trailer */
	off_lost = o = rec_begin(d, PERF_RECORD_LOST, 0);
	strbuf__add_u64(d, 11);
	strbuf__add_u64(d, 77);
	add_trailer(d, ST_CLOCK, 42, 43, 300, 11, 1);
	rec_end(d, o);

	off_round = o = rec_begin(d, PERF_RECORD_FINISHED_ROUND, 0);
	rec_end(d, o);

	/* a dummy sample on CPU 0: the last record ends where the data ends */
	off_sample2 = o = rec_begin(d, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	strbuf__add_u64(d, 20);
	strbuf__add_u64(d, 0xffffffff81000000ULL);
	add_u32x2(d, 0, 0);
	strbuf__add_u64(d, 400);
	add_u32x2(d, 0, 0);
	rec_end(d, o);
}

static void test_open_header_attrs_features(void **state)
{
	struct tfile f;
	struct perf_reader r;
	const struct perf_reader_feature *hf, *ef;
	size_t size;
	void *buf;
	size_t n;

	build_standard(&f);
	size = tfile_write(&f, tpath("std.data"));
	assert_int_equal(perf_reader__open(&r, tpath("std.data")), 0);
	assert_int_equal(r.file_size, size);
	assert_int_equal(r.header.size, 104);
	assert_int_equal(r.header.attr_size, 144);
	assert_false(r.is_dir);
	assert_int_equal(r.nr_attrs, 2);
	assert_string_equal(r.attrs[0].name, "my-clock");
	assert_string_equal(r.attrs[1].name, "my-dummy");
	assert_int_equal(r.attrs[0].attr.sample_type, ST_CLOCK);
	assert_int_equal(r.attrs[0].nr_ids, 2);
	assert_int_equal(r.attrs[0].ids[1], 11);
	assert_int_equal(r.attrs[1].ids[0], 20);
	assert_int_equal(r.attrs[1].id_hdr_size, 4 * 8);
	assert_true(r.sample_id_all);
	assert_int_equal(r.id_pos, 0);
	assert_int_equal(r.is_pos, 1);
	assert_int_equal(perf_reader__attr_of_id(&r, 21), 1);
	assert_int_equal(perf_reader__attr_of_id(&r, 10), 0);
	assert_int_equal(perf_reader__attr_of_id(&r, 99), -1);
	assert_string_equal(perf_reader__attr_name(&r, -1), "unknown");

	/* features, in bit order, located after the data */
	assert_int_equal(r.nr_features, 2);
	assert_true(perf_reader__has_feature(&r, HEADER_HOSTNAME));
	assert_true(perf_reader__has_feature(&r, HEADER_EVENT_DESC));
	assert_false(perf_reader__has_feature(&r, HEADER_BUILD_ID));
	assert_null(perf_reader__feature(&r, HEADER_BUILD_ID));
	hf = perf_reader__feature(&r, HEADER_HOSTNAME);
	ef = perf_reader__feature(&r, HEADER_EVENT_DESC);
	assert_non_null(hf);
	assert_non_null(ef);
	assert_int_equal(r.features[0].bit, HEADER_HOSTNAME);
	assert_int_equal(hf->offset, r.header.data.offset + r.header.data.size + 2 * 16);
	assert_int_equal(hf->size, 4 + 64);
	assert_int_equal(ef->offset, hf->offset + hf->size);
	assert_int_equal(ef->offset + ef->size, size);
	assert_int_equal(perf_reader__read_feature(&r, HEADER_HOSTNAME, &buf, &n), 0);
	assert_int_equal(n, 68);
	assert_string_equal((char *)buf + 4, "testhost");
	free(buf);
	assert_int_equal(perf_reader__read_feature(&r, HEADER_CPUID, &buf, &n), -ENOENT);

	assert_int_equal(r.nr_streams, 1);
	assert_int_equal(r.streams[0].offset, r.header.data.offset);
	perf_reader__close(&r);
	tfile_exit(&f);
}

struct seen {
	int n;
	uint32_t types[16];
	uint64_t offsets[16];
	struct perf_reader_sample s[16];
	int parse_err[16];
	bool compressed[16];
	uint64_t first_u64[16];	/* the record's first body word */
};

static int collect(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	struct seen *sn = priv;
	const struct perf_event_header *h = rec->header;
	int i = sn->n++;

	assert_true(i < 16);
	assert_int_equal((uintptr_t)h % 8, 0);
	sn->types[i] = h->type;
	sn->offsets[i] = rec->offset;
	sn->compressed[i] = rec->compressed;
	if (h->size >= 16)
		memcpy(&sn->first_u64[i], h + 1, 8);
	if (h->type == PERF_RECORD_SAMPLE)
		sn->parse_err[i] = perf_reader__parse_sample(r, h, &sn->s[i]);
	else
		sn->parse_err[i] = perf_reader__parse_id_sample(r, h, &sn->s[i]);
	return 0;
}

/* Write f as NAME, open it into r and collect every record into sn. */
static void write_and_collect(struct tfile *f, const char *name, struct perf_reader *r,
			      struct seen *sn)
{
	tfile_write(f, tpath(name));
	assert_int_equal(perf_reader__open(r, tpath(name)), 0);
	assert_int_equal(perf_reader__for_each_record(r, collect, sn), 0);
}

static void test_records_and_samples(void **state)
{
	struct tfile f;
	struct perf_reader r;
	struct seen sn = { 0 };
	uint64_t base;

	build_standard(&f);
	write_and_collect(&f, "std.data", &r, &sn);
	base = r.header.data.offset;
	assert_int_equal(sn.n, 5);
	assert_int_equal(sn.types[0], PERF_RECORD_COMM);
	assert_int_equal(sn.types[1], PERF_RECORD_SAMPLE);
	assert_int_equal(sn.types[2], PERF_RECORD_LOST);
	assert_int_equal(sn.types[3], PERF_RECORD_FINISHED_ROUND);
	assert_int_equal(sn.types[4], PERF_RECORD_SAMPLE);
	assert_int_equal(sn.offsets[0], base + off_comm);
	assert_int_equal(sn.offsets[2], base + off_lost);
	assert_int_equal(sn.offsets[4], base + off_sample2);

	/* COMM trailer: the dummy event, by IDENTIFIER */
	assert_int_equal(sn.parse_err[0], 0);
	assert_int_equal(sn.s[0].attr, 1);
	assert_int_equal(sn.s[0].time, 100);
	assert_int_equal(sn.s[0].cpu, 1);
	assert_int_equal(sn.s[0].id, 21);
	assert_int_equal(sn.s[0].pid, 42);

	/* the sample with a callchain */
	assert_int_equal(sn.parse_err[1], 0);
	assert_int_equal(sn.s[1].attr, 0);
	assert_int_equal(sn.s[1].id, 11);
	assert_int_equal(sn.s[1].ip, 0x401234);
	assert_int_equal(sn.s[1].pid, 42);
	assert_int_equal(sn.s[1].tid, 43);
	assert_int_equal(sn.s[1].time, 200);
	assert_int_equal(sn.s[1].cpu, 1);
	assert_int_equal(sn.s[1].period, 1000);
	assert_int_equal(sn.s[1].callchain_nr, ARRAY_SIZE(chain));

	/* LOST: its trailer */
	assert_int_equal(sn.parse_err[2], 0);
	assert_int_equal(sn.s[2].attr, 0);
	assert_int_equal(sn.s[2].time, 300);
	assert_int_equal(sn.s[2].cpu, 1);

	/* user records have no trailer */
	assert_int_equal(sn.parse_err[3], -ENOENT);

	assert_int_equal(sn.parse_err[4], 0);
	assert_int_equal(sn.s[4].attr, 1);
	assert_int_equal(sn.s[4].time, 400);
	assert_int_equal(sn.s[4].ip, 0xffffffff81000000ULL);
	assert_int_equal(sn.s[4].callchain_nr, 0);

	perf_reader__close(&r);
	tfile_exit(&f);
}

/* A callback that checks the callchain in place (pointers live during the call). */
static int check_chain(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	struct perf_reader_sample s;
	int *checked = priv;

	if (rec->header->type != PERF_RECORD_SAMPLE)
		return 0;
	assert_int_equal(perf_reader__parse_sample(r, rec->header, &s), 0);
	if (s.callchain_nr) {
		uint64_t ips[ARRAY_SIZE(chain)];

		memcpy(ips, s.callchain, sizeof(ips));
		assert_memory_equal(ips, chain, sizeof(chain));
		(*checked)++;
	}
	return 0;
}

static void test_callchain_contents(void **state)
{
	struct tfile f;
	struct perf_reader r;
	int checked = 0;

	build_standard(&f);
	tfile_write(&f, tpath("std.data"));
	assert_int_equal(perf_reader__open(&r, tpath("std.data")), 0);
	assert_int_equal(perf_reader__for_each_record(&r, check_chain, &checked), 0);
	assert_int_equal(checked, 1);
	perf_reader__close(&r);
	tfile_exit(&f);
}

static int stop_at_two(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	return ++*(int *)priv == 2 ? 7 : 0;
}

static void test_callback_stops_walk(void **state)
{
	struct tfile f;
	struct perf_reader r;
	int n = 0;

	build_standard(&f);
	tfile_write(&f, tpath("std.data"));
	assert_int_equal(perf_reader__open(&r, tpath("std.data")), 0);
	assert_int_equal(perf_reader__for_each_record(&r, stop_at_two, &n), 7);
	assert_int_equal(n, 2);
	perf_reader__close(&r);
	tfile_exit(&f);
}

/*
 * A sample with every variable-length field before fields at fixed
 * places: skipping read/callchain/raw/branch/regs/stack wrongly would
 * misplace the page sizes at the end.
 */
static void build_full_sample(struct strbuf *d, const struct perf_event_attr *a, bool empty_stack)
{
	size_t o = rec_begin(d, PERF_RECORD_SAMPLE, 0);

	strbuf__add_u64(d, 5);			/* IDENTIFIER */
	strbuf__add_u64(d, 0x1111);		/* IP */
	add_u32x2(d, 7, 8);			/* TID */
	strbuf__add_u64(d, 12345);		/* TIME */
	strbuf__add_u64(d, 0xadd);		/* ADDR */
	strbuf__add_u64(d, 5);			/* ID */
	strbuf__add_u64(d, 55);			/* STREAM_ID */
	add_u32x2(d, 3, 0);			/* CPU */
	strbuf__add_u64(d, 999);		/* PERIOD */
	/* READ, group: nr, enabled, running, {value, id, lost} x nr */
	strbuf__add_u64(d, 2);
	strbuf__add_u64(d, 100);
	strbuf__add_u64(d, 90);
	for (int i = 0; i < 2; i++) {
		strbuf__add_u64(d, 1000 + i);
		strbuf__add_u64(d, 5 + i);
		strbuf__add_u64(d, 0);
	}
	strbuf__add_u64(d, 2);			/* CALLCHAIN */
	strbuf__add_u64(d, 0xaaa);
	strbuf__add_u64(d, 0xbbb);
	strbuf__add_u32(d, 12);			/* RAW: size 12, so size + 4 = 16 */
	strbuf__add(d, "rawrawrawraw", 12);
	strbuf__add_u64(d, 1);			/* BRANCH_STACK: nr = 1 */
	strbuf__add_u64(d, 77);			/* hw_idx (HW_INDEX) */
	strbuf__add_u64(d, 0x10);		/* from, to, flags */
	strbuf__add_u64(d, 0x20);
	strbuf__add_u64(d, 0);
	strbuf__add_u64(d, 2);			/* REGS_USER: abi, 3 regs (mask 0x7) */
	for (int i = 0; i < 3; i++)
		strbuf__add_u64(d, 0x5e9 + i);
	if (empty_stack) {			/* STACK_USER: size 0, no dyn_size */
		strbuf__add_u64(d, 0);
	} else {
		strbuf__add_u64(d, 64);
		strbuf__addz(d, 64);
		strbuf__add_u64(d, 40);		/* dyn_size */
	}
	strbuf__add_u64(d, 0x3e);		/* WEIGHT */
	strbuf__add_u64(d, 0xda7a);		/* DATA_SRC */
	strbuf__add_u64(d, 0x7a);		/* TRANSACTION */
	strbuf__add_u64(d, 0);			/* REGS_INTR: abi 0, no regs */
	strbuf__add_u64(d, 0x9a);		/* PHYS_ADDR */
	strbuf__add_u64(d, 0xc9);		/* CGROUP */
	strbuf__add_u64(d, 4096);		/* DATA_PAGE_SIZE */
	strbuf__add_u64(d, 2097152);		/* CODE_PAGE_SIZE */
	strbuf__add_u64(d, 8);			/* AUX: 8 bytes */
	strbuf__add_u64(d, 0xa0a0);
	rec_end(d, o);
	(void)a;
}

#define ST_FULL (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
		 PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
		 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | \
		 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | \
		 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | \
		 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

static void test_full_sample_layout(void **state)
{
	struct tfile f;
	struct tattr *a;
	struct perf_reader r;
	struct seen sn = { 0 };

	tfile_init(&f);
	a = tfile_attr(&f, PERF_COUNT_SW_CPU_CLOCK, ST_FULL, "full", 5, 6);
	a->attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			      PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	a->attr.sample_regs_user = 0x7;
	a->attr.sample_regs_intr = 0xff;
	build_full_sample(&f.data, &a->attr, false);
	build_full_sample(&f.data, &a->attr, true);
	tfile_write(&f, tpath("full.data"));

	assert_int_equal(perf_reader__open(&r, tpath("full.data")), 0);
	/* no EVENT_DESC: a name derived from the attr, exclude_guest clear: perf's :HG */
	assert_string_equal(r.attrs[0].name, "cpu-clock:HG");
	assert_int_equal(perf_reader__for_each_record(&r, collect, &sn), 0);
	assert_int_equal(sn.n, 2);
	for (int i = 0; i < 2; i++) {
		const struct perf_reader_sample *s = &sn.s[i];

		assert_int_equal(sn.parse_err[i], 0);
		assert_int_equal(s->attr, 0);
		assert_int_equal(s->ip, 0x1111);
		assert_int_equal(s->tid, 8);
		assert_int_equal(s->time, 12345);
		assert_int_equal(s->addr, 0xadd);
		assert_int_equal(s->id, 5);
		assert_int_equal(s->stream_id, 55);
		assert_int_equal(s->cpu, 3);
		assert_int_equal(s->period, 999);
		assert_int_equal(s->callchain_nr, 2);
		assert_int_equal(s->raw_size, 12);
		assert_memory_equal(s->raw, "rawrawrawraw", 12);
		assert_int_equal(s->branch_nr, 1);
		assert_int_equal(s->user_regs_abi, 2);
		assert_int_equal(s->user_stack_size, i ? 0 : 64);
		assert_int_equal(s->user_stack_dyn_size, i ? 0 : 40);
		assert_int_equal(s->weight, 0x3e);
		assert_int_equal(s->data_src, 0xda7a);
		assert_int_equal(s->transaction, 0x7a);
		assert_int_equal(s->phys_addr, 0x9a);
		assert_int_equal(s->cgroup, 0xc9);
		assert_int_equal(s->data_page_size, 4096);
		assert_int_equal(s->code_page_size, 2097152);
		assert_int_equal(s->aux_size, 8);
	}
	perf_reader__close(&r);
	tfile_exit(&f);
}

/* Two attrs with PERF_SAMPLE_ID (no IDENTIFIER): the id at its position. */
static void test_id_position_without_identifier(void **state)
{
	const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	struct tfile f;
	struct perf_reader r;
	struct seen sn = { 0 };
	size_t o;

	tfile_init(&f);
	tfile_attr(&f, PERF_COUNT_SW_CPU_CLOCK, st, "a", 100, 101);
	tfile_attr(&f, PERF_COUNT_SW_TASK_CLOCK, st, "b", 200, 201);
	o = rec_begin(&f.data, PERF_RECORD_SAMPLE, 0);
	strbuf__add_u64(&f.data, 0xabc);
	add_u32x2(&f.data, 1, 2);
	strbuf__add_u64(&f.data, 5000);
	strbuf__add_u64(&f.data, 201);		/* ID */
	add_u32x2(&f.data, 1, 0);
	strbuf__add_u64(&f.data, 4);
	rec_end(&f.data, o);
	/* EXIT with a trailer: pid/tid, time, id, cpu: id 2nd from the end */
	o = rec_begin(&f.data, PERF_RECORD_EXIT, 0);
	add_u32x2(&f.data, 1, 1);
	add_u32x2(&f.data, 1, 1);
	strbuf__add_u64(&f.data, 6000);
	add_trailer(&f.data, st, 1, 2, 6000, 100, 1);
	rec_end(&f.data, o);
	tfile_write(&f, tpath("id.data"));

	assert_int_equal(perf_reader__open(&r, tpath("id.data")), 0);
	assert_int_equal(r.id_pos, 3);
	assert_int_equal(r.is_pos, 2);
	assert_string_equal(r.attrs[1].name, "task-clock:HG");	/* perf's name of the bare attr */
	assert_int_equal(perf_reader__for_each_record(&r, collect, &sn), 0);
	assert_int_equal(sn.n, 2);
	assert_int_equal(sn.s[0].attr, 1);
	assert_int_equal(sn.s[0].id, 201);
	assert_int_equal(sn.s[0].time, 5000);
	assert_int_equal(sn.s[0].period, 4);
	assert_int_equal(sn.parse_err[1], 0);
	assert_int_equal(sn.s[1].attr, 0);
	assert_int_equal(sn.s[1].id, 100);
	assert_int_equal(sn.s[1].time, 6000);
	assert_int_equal(sn.s[1].cpu, 1);
	perf_reader__close(&r);
	tfile_exit(&f);
}

static int count_cb(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	(*(int *)priv)++;
	return 0;
}

/* Every strict prefix of a good file must be refused, never crash. */
static void test_truncated_everywhere(void **state)
{
	struct tfile f;
	struct perf_reader r;
	size_t size;
	char *data;
	int fd;

	build_standard(&f);
	size = tfile_write(&f, tpath("std.data"));
	assert_int_equal(read_file(tpath("std.data"), &data), (ssize_t)size);
	for (size_t len = 0; len < size; len++) {
		int err;

		fd = open(tpath("trunc.data"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, data, len), (ssize_t)len);
		close(fd);
		quiet_begin();
		err = perf_reader__open(&r, tpath("trunc.data"));
		if (!err) {
			err = perf_reader__for_each_record(&r, count_cb, &(int){ 0 });
			perf_reader__close(&r);
		}
		quiet_end();
		if (err != -EINVAL && err != -EIO)
			fail_msg("prefix of %zu of %zu bytes: got %d", len, size, err);
	}
	free(data);
	tfile_exit(&f);
}

/* Patch the size of the record at data offset off, write, walk. */
static int walk_with_size(struct tfile *f, size_t off, uint16_t size, int *n)
{
	struct perf_reader r;
	int err;

	memcpy(f->data.data + off + 6, &size, 2);
	tfile_write(f, tpath("bad.data"));
	err = perf_reader__open(&r, tpath("bad.data"));
	assert_int_equal(err, 0);
	*n = 0;
	quiet_begin();
	err = perf_reader__for_each_record(&r, count_cb, n);
	quiet_end();
	perf_reader__close(&r);
	return err;
}

static void test_corrupt_record_sizes(void **state)
{
	struct tfile f;
	uint16_t good, good2;
	int n;

	build_standard(&f);
	memcpy(&good, f.data.data + off_lost + 6, 2);
	memcpy(&good2, f.data.data + off_sample2 + 6, 2);
	/* size 0: stops with an error after the two records before it */
	assert_int_equal(walk_with_size(&f, off_lost, 0, &n), -EINVAL);
	assert_int_equal(n, 2);
	/* size below a header */
	assert_int_equal(walk_with_size(&f, off_lost, 4, &n), -EINVAL);
	assert_int_equal(n, 2);
	/* a good size again: the whole walk */
	assert_int_equal(walk_with_size(&f, off_lost, good, &n), 0);
	assert_int_equal(n, 5);
	/* the last record running past the end of the data section */
	assert_int_equal(walk_with_size(&f, off_sample2, good2 + 8, &n), -EINVAL);
	assert_int_equal(n, 4);
	assert_int_equal(walk_with_size(&f, off_sample2, 0xfff8, &n), -EINVAL);
	assert_int_equal(n, 4);
	/* a kernel record whose size is not a multiple of 8: refused where it is */
	assert_int_equal(walk_with_size(&f, off_sample2, good2 - 4, &n), -EINVAL);
	assert_int_equal(n, 4);
	/* stray bytes after the last record */
	memcpy(f.data.data + off_sample2 + 6, &good2, 2);
	strbuf__addz(&f.data, 4);
	assert_int_equal(walk_with_size(&f, off_lost, good, &n), -EINVAL);
	assert_int_equal(n, 5);
	tfile_exit(&f);
}

static void test_sample_too_short(void **state)
{
	struct tfile f;
	struct perf_reader r;
	struct seen sn = { 0 };
	uint64_t huge = 1ULL << 61;

	build_standard(&f);
	/* callchain nr far beyond the record */
	memcpy(f.data.data + off_sample + 8 + 6 * 8, &huge, 8);
	write_and_collect(&f, "short.data", &r, &sn);
	assert_int_equal(sn.types[1], PERF_RECORD_SAMPLE);
	assert_int_equal(sn.parse_err[1], -EINVAL);
	assert_int_equal(sn.parse_err[4], 0);
	perf_reader__close(&r);
	tfile_exit(&f);
}

/* perf_reader__open with its message kept out of the test output; closes on success. */
static int quiet_open(const char *path)
{
	struct perf_reader r;
	int err;

	quiet_begin();
	err = perf_reader__open(&r, path);
	quiet_end();
	if (!err)
		perf_reader__close(&r);
	return err;
}

static void test_refused_files(void **state)
{
	struct tfile f;
	int fd;

	build_standard(&f);
	f.swap_magic = true;
	tfile_write(&f, tpath("swapped.data"));
	assert_int_equal(quiet_open(tpath("swapped.data")), -EINVAL);
	f.swap_magic = false;
	/* Header size 16 says pipe format; the file header's bytes are no records. */
	f.header_size = 16;
	tfile_write(&f, tpath("pipe.data"));
	assert_int_equal(quiet_open(tpath("pipe.data")), -EINVAL);
	f.header_size = 0;
	tfile_write(&f, tpath("good.data"));
	assert_int_equal(quiet_open(tpath("good.data")), 0);
	tfile_exit(&f);

	fd = open(tpath("text.data"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(write(fd, "hello, this is not a perf.data file", 35), 35);
	close(fd);
	assert_int_equal(quiet_open(tpath("text.data")), -EINVAL);
	assert_int_equal(quiet_open(tpath("missing.data")), -ENOENT);
	/* a directory without PATH/data: refused, not a perf --threads directory */
	mkdir(tpath("emptydir"), 0755);
	assert_int_equal(quiet_open(tpath("emptydir")), -EINVAL);
}

static int check_big(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	const unsigned char *p = (const unsigned char *)rec->header;
	uint64_t *e = priv, v;
	uint32_t pid;

	(*e)++;
	memcpy(&pid, p + 8, 4);
	assert_int_equal(pid, *e);
	assert_int_equal(rec->header->size, 24 + ((*e - 1) % 9) * 8);
	memcpy(&v, p + rec->header->size - 8, 8);
	assert_int_equal(v, *e);
	return 0;
}

/* 1.5 MiB of records: some straddle the reader's window and must come out whole. */
static void test_records_straddle_window(void **state)
{
	struct tfile f;
	struct perf_reader r;
	uint64_t expect = 0;
	int n = 0;

	tfile_init(&f);
	tfile_attr(&f, PERF_COUNT_SW_CPU_CLOCK, ST_DUMMY, "c", 1, 2);
	while (f.data.len < (3U << 19)) {
		/* sizes 24..88 so that record ends fall everywhere */
		size_t o = rec_begin(&f.data, PERF_RECORD_COMM, 0);
		int extra = n++ % 9;

		add_u32x2(&f.data, n, n);
		strbuf__add_u64(&f.data, n);
		for (int i = 0; i < extra; i++)
			strbuf__add_u64(&f.data, n);
		rec_end(&f.data, o);
	}
	tfile_write(&f, tpath("big.data"));
	assert_int_equal(perf_reader__open(&r, tpath("big.data")), 0);

	assert_int_equal(perf_reader__for_each_record(&r, check_big, &expect), 0);
	assert_int_equal(expect, (uint64_t)n);
	perf_reader__close(&r);
	tfile_exit(&f);
}

static void write_raw(const char *path, const struct strbuf *sb)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, sb->data, sb->len), (ssize_t)sb->len);
	close(fd);
}

static int dir_cb(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	struct seen *sn = priv;
	int i = sn->n++;

	assert_true(i < 16);
	sn->types[i] = rec->header->type;
	sn->offsets[i] = rec->stream;
	perf_reader__parse_id_sample(r, rec->header, &sn->s[i]);
	return 0;
}

/* perf record --threads: PATH/data (header, synthesized records) + PATH/data.N. */
static void test_directory(void **state)
{
	struct tfile f;
	struct perf_reader r;
	struct strbuf d;
	struct seen sn = { 0 };
	size_t o;

	mkdir(tpath("dir"), 0755);
	tfile_init(&f);
	tfile_attr(&f, PERF_COUNT_SW_CPU_CLOCK, ST_DUMMY, "clk", 1, 2);
	f.dir_format = true;
	f.event_desc = true;
	o = rec_begin(&f.data, PERF_RECORD_COMM, 0);
	add_u32x2(&f.data, 1, 1);
	strbuf__add(&f.data, "init\0\0\0\0", 8);
	add_trailer(&f.data, ST_DUMMY, 0, 0, 0, 0, 0);
	rec_end(&f.data, o);
	tfile_write(&f, tpath("dir/data"));

	/* data.0, data.2, data.10: read in numeric order; time = 100 * N */
	for (int k = 0; k < 3; k++) {
		static const int nums[] = { 10, 0, 2 };
		char name[32];

		strbuf__init(&d);
		o = rec_begin(&d, PERF_RECORD_EXIT, 0);
		strbuf__addz(&d, 24);
		add_trailer(&d, ST_DUMMY, 0, 0, 100 * nums[k] + 1, 1, k);
		rec_end(&d, o);
		snprintf(name, sizeof(name), "dir/data.%d", nums[k]);
		write_raw(tpath(name), &d);
		strbuf__exit(&d);
	}
	/* not a stream: ignored */
	strbuf__init(&d);
	strbuf__addz(&d, 3);
	write_raw(tpath("dir/data.x"), &d);
	strbuf__exit(&d);

	assert_int_equal(perf_reader__open(&r, tpath("dir")), 0);
	assert_true(r.is_dir);
	assert_int_equal(r.dir_version, 1);
	assert_int_equal(r.nr_streams, 4);
	assert_string_equal(r.attrs[0].name, "clk");
	assert_int_equal(perf_reader__for_each_record(&r, dir_cb, &sn), 0);
	assert_int_equal(sn.n, 4);
	assert_int_equal(sn.types[0], PERF_RECORD_COMM);
	assert_int_equal(sn.s[1].time, 1);
	assert_int_equal(sn.s[2].time, 201);
	assert_int_equal(sn.s[3].time, 1001);
	assert_int_equal(sn.offsets[3], 3);
	perf_reader__close(&r);
	tfile_exit(&f);
}

/* AUXTRACE data follows the record; the walk skips it. */
static void test_auxtrace_payload_skipped(void **state)
{
	struct tfile f;
	struct perf_reader r;
	struct seen sn = { 0 };
	size_t o;

	tfile_init(&f);
	tfile_attr(&f, PERF_COUNT_SW_CPU_CLOCK, ST_DUMMY, "c", 1, 2);
	o = rec_begin(&f.data, PERF_RECORD_AUXTRACE, 0);
	strbuf__add_u64(&f.data, 32);	/* size of the trace that follows */
	strbuf__addz(&f.data, 32);	/* offset, reference, idx, tid, cpu, reserved */
	rec_end(&f.data, o);
	strbuf__addz(&f.data, 32);	/* the trace: zeros, which as records would be size 0 */
	o = rec_begin(&f.data, PERF_RECORD_FINISHED_ROUND, 0);
	rec_end(&f.data, o);
	write_and_collect(&f, "aux.data", &r, &sn);
	assert_int_equal(sn.n, 2);
	assert_int_equal(sn.types[1], PERF_RECORD_FINISHED_ROUND);
	perf_reader__close(&r);
	tfile_exit(&f);
}

/* One COMPRESSED record holding zstd's output for in[0, len). */
static void add_compressed(struct strbuf *d, ZSTD_CCtx *cc, const void *in, size_t len,
			   ZSTD_EndDirective how)
{
	static unsigned char out[65536 - 8];	/* a record's most */
	ZSTD_inBuffer ib = { in, len, 0 };
	ZSTD_outBuffer ob = { out, sizeof(out), 0 };
	size_t o;

	assert_false(ZSTD_isError(ZSTD_compressStream2(cc, &ob, &ib, how)));
	assert_int_equal(ib.pos, len);
	/* As perf 6.1 writes it: the size is not padded to 8 bytes. */
	o = rec_begin(d, PERF_RECORD_COMPRESSED, 0);
	strbuf__add(d, out, ob.pos);
	rec_end(d, o);
}

/*
 * perf record -z: records come out of COMPRESSED records, in place, after
 * the COMPRESSED record itself; one cut between two of them is joined.
 */
static void test_compressed_records(void **state)
{
	struct tfile f;
	struct perf_reader r;
	struct seen sn = { 0 };
	struct strbuf in;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t o, cut, c1, c2, base;

	strbuf__init(&in);
	o = rec_begin(&in, PERF_RECORD_FINISHED_ROUND, 0);
	rec_end(&in, o);
	o = rec_begin(&in, PERF_RECORD_LOST, 0);
	strbuf__add_u64(&in, 11);	/* id */
	strbuf__add_u64(&in, 777);	/* lost */
	rec_end(&in, o);
	o = rec_begin(&in, PERF_RECORD_FINISHED_ROUND, 0);
	rec_end(&in, o);
	cut = 8 + 12;			/* inside the LOST record */

	tfile_init(&f);
	tfile_attr(&f, PERF_COUNT_SW_CPU_CLOCK, 0, "c", 11, 12);
	f.attrs[0].attr.sample_id_all = 0;
	c1 = f.data.len;
	add_compressed(&f.data, cc, in.data, cut, ZSTD_e_flush);
	c2 = f.data.len;
	add_compressed(&f.data, cc, in.data + cut, in.len - cut, ZSTD_e_end);
	o = rec_begin(&f.data, PERF_RECORD_FINISHED_ROUND, 0);
	rec_end(&f.data, o);
	write_and_collect(&f, "z.data", &r, &sn);
	base = r.header.data.offset;
	assert_int_equal(sn.n, 6);
	assert_int_equal(sn.types[0], PERF_RECORD_COMPRESSED);
	assert_false(sn.compressed[0]);
	assert_int_equal(sn.types[1], PERF_RECORD_FINISHED_ROUND);
	assert_true(sn.compressed[1]);
	assert_int_equal(sn.offsets[1], base + c1);
	assert_int_equal(sn.types[2], PERF_RECORD_COMPRESSED);
	assert_int_equal(sn.offsets[2], base + c2);
	/* The LOST record cut in two comes whole, with the second piece. */
	assert_int_equal(sn.types[3], PERF_RECORD_LOST);
	assert_true(sn.compressed[3]);
	assert_int_equal(sn.offsets[3], base + c2);
	assert_int_equal(sn.first_u64[3], 11);
	assert_int_equal(sn.types[4], PERF_RECORD_FINISHED_ROUND);
	assert_true(sn.compressed[4]);
	assert_int_equal(sn.types[5], PERF_RECORD_FINISHED_ROUND);
	assert_false(sn.compressed[5]);
	perf_reader__close(&r);

	/* Garbage in a COMPRESSED record: an error, not a crash. */
	tfile_exit(&f);
	tfile_init(&f);
	tfile_attr(&f, PERF_COUNT_SW_CPU_CLOCK, 0, "c", 11, 12);
	o = rec_begin(&f.data, PERF_RECORD_COMPRESSED, 0);
	strbuf__add_u64(&f.data, 0x0123456789abcdefULL);
	rec_end(&f.data, o);
	tfile_write(&f, tpath("zbad.data"));
	assert_int_equal(perf_reader__open(&r, tpath("zbad.data")), 0);
	memset(&sn, 0, sizeof(sn));
	quiet_begin();
	assert_int_equal(perf_reader__for_each_record(&r, collect, &sn), -EINVAL);
	quiet_end();
	perf_reader__close(&r);
	tfile_exit(&f);
	strbuf__exit(&in);
	ZSTD_freeCCtx(cc);
}

/* ---- bounds: memory and time by the file's size (issue 13) -------------- */

/* Point attr i's ids section at [off, off+size) in an existing file. */
static void set_ids_section(const char *path, int i, uint64_t off, uint64_t size)
{
	struct perf_file_header h;
	struct perf_file_section ids = { off, size };
	int fd = open(path, O_RDWR);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &h, sizeof(h), 0), sizeof(h));
	assert_int_equal(pwrite(fd, &ids, sizeof(ids),
				h.attrs.offset + i * h.attr_size + h.attr_size - sizeof(ids)),
			 sizeof(ids));
	close(fd);
}

static void test_bound_overlapping_ids(void **state)
{
	struct tfile f;
	struct perf_reader r;
	size_t size;

	build_standard(&f);
	size = tfile_write(&f, tpath("ids.data")) & ~(size_t)7;
	/* One event's ids may cover half the file: odd, but bounded by it. */
	set_ids_section(tpath("ids.data"), 0, 0, size / 2 & ~(size_t)7);
	assert_int_equal(perf_reader__open(&r, tpath("ids.data")), 0);
	assert_int_equal(r.attrs[0].nr_ids, size / 16);
	perf_reader__close(&r);
	/* Two that share all of them would make the id map outgrow the file. */
	set_ids_section(tpath("ids.data"), 0, 0, size);
	set_ids_section(tpath("ids.data"), 1, 0, size);
	assert_int_equal(quiet_open(tpath("ids.data")), -EINVAL);
	tfile_exit(&f);
}

static void test_bound_attr_count(void **state)
{
	struct perf_file_header h = { 0 };
	int fd = open(tpath("attrs.data"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	uint64_t attr_size = PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section);

	/* A sparse file of 65537 VER0 attrs: within its size, above the cap. */
	h.magic = PERF_MAGIC2;
	h.size = sizeof(h);
	h.attr_size = attr_size;
	h.attrs.offset = sizeof(h);
	h.attrs.size = 65537 * attr_size;
	h.data.offset = h.attrs.offset + h.attrs.size;
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &h, sizeof(h), 0), sizeof(h));
	assert_int_equal(ftruncate(fd, h.data.offset), 0);
	close(fd);
	assert_int_equal(quiet_open(tpath("attrs.data")), -EINVAL);
}

struct counted {
	uint64_t n, bytes;
};

/* One COMPRESSED record holding all of in, compressed in one go. */
static size_t add_compressed_whole(struct strbuf *d, const void *in, size_t len)
{
	static unsigned char out[65536 - 8];
	size_t n = ZSTD_compress(out, sizeof(out), in, len, 1), o;

	assert_false(ZSTD_isError(n));
	o = rec_begin(d, PERF_RECORD_COMPRESSED, 0);
	strbuf__add(d, out, n);
	rec_end(d, o);
	return n;
}

static int count_inner(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	struct counted *c = priv;

	if (rec->compressed) {
		c->n++;
		c->bytes += rec->header->size;
	}
	return 0;
}

static void test_bound_inflate(void **state)
{
	struct tfile f;
	struct perf_reader r;
	struct counted c = { 0 };
	struct strbuf in;
	size_t n = 0, o;
	int err;

	/* 200 KiB of LOST records in one COMPRESSED record: many output steps. */
	strbuf__init(&in);
	while (in.len < 200 * 1024) {
		o = rec_begin(&in, PERF_RECORD_LOST, 0);
		strbuf__add_u64(&in, n++);
		strbuf__add_u64(&in, 1);
		rec_end(&in, o);
	}
	tfile_init(&f);
	tfile_attr(&f, PERF_COUNT_SW_CPU_CLOCK, 0, "c", 11, 12);
	f.attrs[0].attr.sample_id_all = 0;
	assert_true(add_compressed_whole(&f.data, in.data, in.len) * 1024 > in.len);
	tfile_write(&f, tpath("z.data"));
	assert_int_equal(perf_reader__open(&r, tpath("z.data")), 0);
	assert_int_equal(perf_reader__for_each_record(&r, count_inner, &c), 0);
	assert_int_equal(c.n, n);
	assert_int_equal(c.bytes, in.len);
	perf_reader__close(&r);
	tfile_exit(&f);

	/*
	 * perf's -z stream deep into a flood: after 64 KiB of varied records
	 * in one record, a record of a few bytes that repeats them inflates far
	 * more than 1024 times its size, and the stream as a whole far less:
	 * read whole (perf 6.1's own flood files have such records).
	 */
	{
		ZSTD_CCtx *cc = ZSTD_createCCtx();
		size_t first, small_rec, n0, len0;

		strbuf__reset(&in);
		for (n = 0; in.len < 64 * 1024; n++) {
			o = rec_begin(&in, PERF_RECORD_LOST, 0);
			strbuf__add_u64(&in, n * 2654435761u);
			strbuf__add_u64(&in, n);
			rec_end(&in, o);
		}
		n0 = n;
		len0 = in.len;
		tfile_init(&f);
		tfile_attr(&f, PERF_COUNT_SW_CPU_CLOCK, 0, "c", 11, 12);
		f.attrs[0].attr.sample_id_all = 0;
		first = f.data.len;
		add_compressed(&f.data, cc, in.data, in.len, ZSTD_e_flush);
		first = f.data.len - first;
		/* then 64 KiB of one repeated record, as a flood's runs are */
		strbuf__reset(&in);
		while (in.len < 64 * 1024) {
			o = rec_begin(&in, PERF_RECORD_FINISHED_ROUND, 0);
			rec_end(&in, o);
		}
		small_rec = f.data.len;
		add_compressed(&f.data, cc, in.data, in.len, ZSTD_e_end);
		small_rec = f.data.len - small_rec - 8;
		ZSTD_freeCCtx(cc);
		assert_true(small_rec * 1024 < in.len);
		assert_true((first + small_rec) * 64 > len0 + in.len);
		tfile_write(&f, tpath("flood.data"));
		assert_int_equal(perf_reader__open(&r, tpath("flood.data")), 0);
		memset(&c, 0, sizeof(c));
		assert_int_equal(perf_reader__for_each_record(&r, count_inner, &c), 0);
		assert_int_equal(c.n, n0 + in.len / 8);
		assert_int_equal(c.bytes, len0 + in.len);
		perf_reader__close(&r);
		tfile_exit(&f);
	}

	/* 4 MiB of one repeated record inflates > 1024 times (and 1 MiB more): refused. */
	strbuf__reset(&in);
	for (n = 0; in.len < 4 << 20; n++) {
		o = rec_begin(&in, PERF_RECORD_FINISHED_ROUND, 0);
		rec_end(&in, o);
	}
	tfile_init(&f);
	tfile_attr(&f, PERF_COUNT_SW_CPU_CLOCK, 0, "c", 11, 12);
	assert_true(add_compressed_whole(&f.data, in.data, in.len) * 1024 + (1 << 20) < in.len);
	tfile_write(&f, tpath("bomb.data"));
	assert_int_equal(perf_reader__open(&r, tpath("bomb.data")), 0);
	memset(&c, 0, sizeof(c));
	quiet_begin();
	err = perf_reader__for_each_record(&r, count_inner, &c);
	quiet_end();
	assert_int_equal(err, -EINVAL);
	/* Stopped at the bound (compressed size x 1024 + 1 MiB), not after 4 MiB. */
	assert_true(c.n > 0);
	assert_true(c.bytes < in.len);
	assert_true(c.bytes <= (uint64_t)(f.data.len - 8) * 1024 + (1 << 20));
	perf_reader__close(&r);
	tfile_exit(&f);
	strbuf__exit(&in);
}

static int add_loss(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	return loss_stats__add_record(priv, r, rec->header);
}

/* Counts from the file are summed without wrapping: they stick at the top. */
static void test_bound_counts_do_not_wrap(void **state)
{
	struct tfile f;
	struct perf_reader r;
	struct loss_stats ls;
	size_t o;

	tfile_init(&f);
	tfile_attr(&f, PERF_COUNT_SW_CPU_CLOCK, 0, "c", 11, 12);
	f.attrs[0].attr.sample_id_all = 0;
	for (int i = 0; i < 2; i++) {
		o = rec_begin(&f.data, PERF_RECORD_LOST, 0);
		strbuf__add_u64(&f.data, 11);
		strbuf__add_u64(&f.data, 1ULL << 63);
		rec_end(&f.data, o);
		o = rec_begin(&f.data, PERF_RECORD_LOST_SAMPLES, 0);
		strbuf__add_u64(&f.data, UINT64_MAX - 1);
		rec_end(&f.data, o);
	}
	tfile_write(&f, tpath("wrap.data"));
	assert_int_equal(perf_reader__open(&r, tpath("wrap.data")), 0);
	loss_stats__init(&ls, r.nr_attrs);
	assert_int_equal(perf_reader__for_each_record(&r, add_loss, &ls), 0);
	loss_stats__finish(&ls);
	assert_int_equal(ls.lost_records, 2);
	assert_true(ls.lost_events == UINT64_MAX);
	assert_true(ls.lost_samples == UINT64_MAX);
	assert_true(ls.event_lost_samples[0] == UINT64_MAX);
	assert_true(ls.lost == UINT64_MAX);
	assert_true(ls.loss_fraction_valid && ls.loss_fraction <= 1.0);
	loss_stats__exit(&ls);
	perf_reader__close(&r);
	tfile_exit(&f);
	assert_true(perf_reader__add_count(UINT64_MAX - 1, 1) == UINT64_MAX);
	assert_true(perf_reader__add_count(UINT64_MAX - 1, 2) == UINT64_MAX);
	assert_true(perf_reader__add_count(40, 2) == 42);
}

static void test_refused_kinds(void **state)
{
	struct tfile f;
	struct perf_reader r;
	int fd, saved, pfd[2];

	/* A FIFO without a writer: refused at once, not waited on. */
	assert_int_equal(mkfifo(tpath("fifo"), 0644), 0);
	assert_int_equal(quiet_open(tpath("fifo")), -EINVAL);
	assert_int_equal(quiet_open("/dev/null"), -EINVAL);
	/* A directory whose "data" is no file, and one whose data.0 is a FIFO. */
	mkdir(tpath("d1"), 0755);
	mkdir(tpath("d1/data"), 0755);
	assert_int_equal(quiet_open(tpath("d1")), -EINVAL);
	build_standard(&f);
	mkdir(tpath("d2"), 0755);
	tfile_write(&f, tpath("d2/data"));
	assert_int_equal(quiet_open(tpath("d2")), 0);
	assert_int_equal(mkfifo(tpath("d2/data.0"), 0644), 0);
	assert_int_equal(quiet_open(tpath("d2")), -EINVAL);

	/* "-": a file on standard input is read, and so is a pipe (kept in a temporary file). */
	tfile_write(&f, tpath("stdin.data"));
	saved = dup(0);
	fd = open(tpath("stdin.data"), O_RDONLY);
	dup2(fd, 0);
	close(fd);
	assert_int_equal(perf_reader__open(&r, "-"), 0);
	assert_int_equal(r.nr_attrs, f.nr_attrs);
	perf_reader__close(&r);
	assert_int_equal(pipe(pfd), 0);
	{
		char *data;
		ssize_t n = read_file(tpath("stdin.data"), &data);

		/* Smaller than a pipe's buffer: written whole before it is read. */
		assert_true(n > 0 && n < 65536);
		assert_int_equal(write(pfd[1], data, n), n);
		free(data);
	}
	close(pfd[1]);
	dup2(pfd[0], 0);
	close(pfd[0]);
	assert_int_equal(perf_reader__open(&r, "-"), 0);
	assert_int_equal(r.nr_attrs, f.nr_attrs);
	assert_false(r.is_pipe);
	perf_reader__close(&r);
	dup2(saved, 0);
	close(saved);
	tfile_exit(&f);
}

struct pipe_count {
	int records, samples, user;
	uint32_t sample_cpu;
};

static int pipe_count_cb(struct perf_reader *r, const struct perf_reader_record *rec,
			 void *priv)
{
	struct pipe_count *c = priv;
	struct perf_reader_sample s;

	c->records++;
	c->user += rec->header->type >= PERF_RECORD_USER_TYPE_START;
	if (rec->header->type == PERF_RECORD_SAMPLE &&
	    !perf_reader__parse_sample(r, rec->header, &s)) {
		c->samples++;
		c->sample_cpu = s.cpu;
	}
	return 0;
}

/*
 * Pipe format: the events come from ATTR records, the names from the
 * EVENT_DESC FEATURE record, a feature reads back from inside its record,
 * and every record of the file version is walked, plus the header
 * records. Every prefix opens cleanly or is refused (no ATTR yet), and a
 * stream cut inside a record walks what came whole.
 */
static void test_pipe_format(void **state)
{
	struct tfile f;
	struct perf_reader r;
	struct pipe_count file = { 0 }, pipe = { 0 };
	void *buf;
	size_t size, len;
	char *data;
	int fd;

	build_standard(&f);
	tfile_write(&f, tpath("file.data"));
	size = tfile_write_pipe(&f, tpath("pipe.data"));
	assert_int_equal(perf_reader__open(&r, tpath("file.data")), 0);
	assert_int_equal(perf_reader__for_each_record(&r, pipe_count_cb, &file), 0);
	perf_reader__close(&r);

	assert_int_equal(perf_reader__open(&r, tpath("pipe.data")), 0);
	assert_true(r.is_pipe);
	assert_int_equal(r.nr_attrs, 2);
	assert_string_equal(r.attrs[0].name, "my-clock");
	assert_string_equal(r.attrs[1].name, "my-dummy");
	assert_int_equal(r.attrs[1].nr_ids, 2);
	assert_int_equal(r.attrs[1].ids[1], 21);
	assert_int_equal(perf_reader__attr_of_id(&r, 11), 0);
	assert_true(perf_reader__has_feature(&r, HEADER_HOSTNAME));
	assert_true(perf_reader__has_feature(&r, HEADER_EVENT_DESC));
	assert_false(perf_reader__has_feature(&r, HEADER_LAST_FEATURE));
	assert_int_equal(perf_reader__read_feature(&r, HEADER_HOSTNAME, &buf, &len), 0);
	assert_string_equal((char *)buf + 4, "testhost");
	free(buf);
	assert_int_equal(perf_reader__for_each_record(&r, pipe_count_cb, &pipe), 0);
	/* 2 ATTR, 2 FEATURE, the end mark and TRACING_DATA come first */
	assert_int_equal(pipe.records, file.records + 6);
	assert_int_equal(pipe.user, file.user + 6);
	assert_int_equal(pipe.samples, file.samples);
	assert_true(pipe.samples > 0);
	assert_int_equal(pipe.sample_cpu, file.sample_cpu);
	perf_reader__close(&r);

	assert_int_equal(read_file(tpath("pipe.data"), &data), (ssize_t)size);
	for (len = 0; len < size; len++) {
		struct pipe_count c = { 0 };
		int err;

		fd = open(tpath("cut.data"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_int_equal(write(fd, data, len), (ssize_t)len);
		close(fd);
		quiet_begin();
		err = perf_reader__open(&r, tpath("cut.data"));
		if (!err) {
			err = perf_reader__for_each_record(&r, pipe_count_cb, &c);
			perf_reader__close(&r);
		}
		quiet_end();
		if (err)
			assert_int_equal(err, -EINVAL);
		assert_true(c.records <= pipe.records);
		/* once the ATTR records are whole, it opens and walks */
		if (len >= 16 + 2 * (8 + PERF_ATTR_SIZE_VER7 + 16) + 8)
			assert_int_equal(err, 0);
	}
	free(data);

	/* An attr larger than its record; a stream with no ATTR at all. */
	{
		struct strbuf sb;
		struct perf_event_attr a = { .size = 1000 };
		size_t o;

		strbuf__init(&sb);
		strbuf__add_u64(&sb, PERF_MAGIC2);
		strbuf__add_u64(&sb, 16);
		o = rec_begin(&sb, PERF_RECORD_HEADER_ATTR, 0);
		strbuf__add(&sb, &a, PERF_ATTR_SIZE_VER7);
		rec_end(&sb, o);
		fd = open(tpath("bad.data"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_int_equal(write(fd, sb.data, sb.len), (ssize_t)sb.len);
		close(fd);
		assert_int_equal(quiet_open(tpath("bad.data")), -EINVAL);
		fd = open(tpath("bad.data"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_int_equal(write(fd, sb.data, 16), 16);
		close(fd);
		assert_int_equal(quiet_open(tpath("bad.data")), -EINVAL);
		strbuf__exit(&sb);
	}
	tfile_exit(&f);
}

/* An event named from its attr alone (no EVENT_DESC), as perf 6.1 names it. */
static void check_attr_name(uint32_t type, uint64_t config, const char *mods, const char *want)
{
	struct perf_event_attr a = { .type = type, .config = config };
	char *name;

	for (const char *m = mods; *m; m++) {
		switch (*m) {
		case 'K': a.exclude_kernel = 1; break;
		case 'U': a.exclude_user = 1; break;
		case 'V': a.exclude_hv = 1; break;
		case 'G': a.exclude_guest = 1; break;
		case 'H': a.exclude_host = 1; break;
		case 'p': a.precise_ip++; break;
		}
	}
	name = perf_reader__default_attr_name(&a);
	assert_string_equal(name, want);
	free(name);
}

static void test_attr_names(void **state)
{
	/* What perf 6.1's report --stats said of files cut short (no EVENT_DESC). */
	check_attr_name(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "G", "cpu-clock");
	check_attr_name(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "KVG", "cpu-clock:uH");
	check_attr_name(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "ppp", "cpu-clock:ppp");
	check_attr_name(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "ppG", "cpu-clock:ppH");
	check_attr_name(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "", "dummy:HG");
	check_attr_name(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "KG", "task-clock:uhH");
	check_attr_name(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "G", "cycles");
}

static void test_names(void **state)
{
	char buf[64];

	assert_string_equal(perf_reader__record_name(PERF_RECORD_MMAP2), "MMAP2");
	assert_string_equal(perf_reader__record_name(PERF_RECORD_FINISHED_ROUND), "FINISHED_ROUND");
	assert_string_equal(perf_reader__record_name(PERF_RECORD_LOST_SAMPLES), "LOST_SAMPLES");
	assert_string_equal(perf_reader__record_name(PERF_RECORD_HEADER_FEATURE), "FEATURE");
	assert_null(perf_reader__record_name(30));
	assert_null(perf_reader__record_name(1000));
	assert_string_equal(perf_reader__feature_name(HEADER_EVENT_DESC), "EVENT_DESC");
	assert_string_equal(perf_reader__sample_type_str(ST_DUMMY, buf, sizeof(buf)),
			    "IP|TID|TIME|CPU|IDENTIFIER");
	assert_string_equal(perf_reader__sample_type_str(ST_DUMMY, buf, 8), "IP|TID");
	assert_int_equal(perf_reader__id_hdr_size(ST_CLOCK), 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_header_attrs_features),
		cmocka_unit_test(test_records_and_samples),
		cmocka_unit_test(test_callchain_contents),
		cmocka_unit_test(test_callback_stops_walk),
		cmocka_unit_test(test_full_sample_layout),
		cmocka_unit_test(test_id_position_without_identifier),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_corrupt_record_sizes),
		cmocka_unit_test(test_sample_too_short),
		cmocka_unit_test(test_refused_files),
		cmocka_unit_test(test_records_straddle_window),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_auxtrace_payload_skipped),
		cmocka_unit_test(test_compressed_records),
		cmocka_unit_test(test_bound_overlapping_ids),
		cmocka_unit_test(test_bound_attr_count),
		cmocka_unit_test(test_bound_inflate),
		cmocka_unit_test(test_bound_counts_do_not_wrap),
		cmocka_unit_test(test_refused_kinds),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_attr_names),
		cmocka_unit_test(test_pipe_format),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
