// SPDX-License-Identifier: GPL-2.0
/*
 * perfcap record -z: compress.c's COMPRESSED records and the compression
 * stage (stage-compress.c).
 *
 * Records are checked as perf 6.1 reads them: ONE zstd stream for the
 * whole file, each record inflated into a buffer the size of
 * HEADER_COMPRESSED's mmap_len (here: the slice), never to nothing; and
 * through our own reader (read/records.c). The stage is checked with reader
 * threads over fake rings filled by producer threads: every event in the
 * file, and a model of perf report's ordered-events flush (the one of
 * test_rounds.c, over the decompressed stream) finds no event out of
 * order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "record/pipeline.h"
#include "io/compress.h"
#include "record/mmap.h"
#include "io/output.h"
#include "format/perf-data.h"
#include "perf-file.h"
#include "read/reader.h"
#include "record/record-thread.h"
#include "record/rounds.h"
#include "util.h"

#include "record-builder.h"
#include "tmpdir.h"
#include "emulator.h"

#define PAGE 4096
#define RING 16384
#define SEC 1000000000ULL

#include "fake-ring.h"

/* ---- perf 6.1's way of reading COMPRESSED records ------------------------- */

struct inflated {
	struct strbuf out;	/* everything, in order */
	size_t nr_records, max_piece;
};

/*
 * Inflate every COMPRESSED record of data[0, len) with one stream, each
 * into at most room bytes, as perf 6.1 does; non-COMPRESSED records are
 * copied as they are. Fails the test where perf would fail.
 */
static void inflate_as_perf(const unsigned char *data, size_t len, size_t room,
			    struct inflated *res)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	unsigned char *buf = malloc(room);
	size_t off = 0;

	strbuf__init(&res->out);
	res->nr_records = res->max_piece = 0;
	while (off < len) {
		struct perf_event_header h;

		assert_true(off + sizeof(h) <= len);
		memcpy(&h, data + off, sizeof(h));
		assert_true(h.size >= sizeof(h));
		assert_true(off + h.size <= len);
		if (h.type == PERF_RECORD_COMPRESSED) {
			ZSTD_inBuffer in = { data + off + sizeof(h), h.size - sizeof(h), 0 };
			ZSTD_outBuffer o = { buf, room, 0 };

			while (in.pos < in.size) {
				size_t r = ZSTD_decompressStream(d, &o, &in);

				assert_false(ZSTD_isError(r));
				/* perf's buffer is full with input left: it would loop or fail. */
				assert_true(o.pos < o.size || in.pos == in.size);
			}
			/* perf 6.1: "Couldn't decompress data" */
			assert_true(o.pos > 0);
			strbuf__add(&res->out, buf, o.pos);
			res->nr_records++;
			res->max_piece = MAX(res->max_piece, o.pos);
		} else {
			strbuf__add(&res->out, data + off, h.size);
		}
		off += h.size;
	}
	free(buf);
	ZSTD_freeDCtx(d);
}

/* Records of every size up to big, some of them random bytes (zstd cannot shrink them). */
static void make_records(struct strbuf *sb, size_t total, size_t big, unsigned int seed)
{
	strbuf__init(sb);
	while (sb->len < total) {
		size_t n = 8 + 8 * (rand_r(&seed) % (big / 8));
		size_t o = rec_begin(sb, PERF_RECORD_SAMPLE, 0);
		bool noise = rand_r(&seed) % 3 == 0;

		for (size_t i = 8; i < n; i += 8) {
			uint64_t v = noise ? ((uint64_t)rand_r(&seed) << 32) ^ rand_r(&seed) : i / 64;

			strbuf__add_u64(sb, v);
		}
		rec_end(sb, o);
	}
}

static void round_trip(size_t slice, size_t total, size_t big, int level)
{
	struct compressor c;
	struct strbuf in;
	struct inflated res;
	unsigned char *out;
	size_t cap;
	ssize_t n;

	make_records(&in, total, big, (unsigned int)(slice + total));
	assert_int_equal(compressor__init(&c, level, slice), 0);
	slice = c.slice;	/* 0: the default */
	cap = compressor__bound(&c, in.len);
	out = malloc(cap);
	/* Not enough room: refused, nothing written past cap. */
	assert_int_equal(compressor__records(&c, in.data, in.len, out, cap - 1), -ENOSPC);
	n = compressor__records(&c, in.data, in.len, out, cap);
	assert_true(n > 0);
	assert_true((size_t)n <= cap);
	inflate_as_perf(out, n, slice, &res);
	assert_int_equal(res.out.len, in.len);
	assert_memory_equal(res.out.data, in.data, in.len);
	assert_int_equal(res.nr_records, (in.len + slice - 1) / slice);
	assert_true(res.max_piece <= slice);
	assert_int_equal(c.bytes_in, in.len);
	assert_int_equal(c.bytes_out, (uint64_t)n);
	strbuf__exit(&res.out);
	strbuf__exit(&in);
	free(out);
	compressor__exit(&c);
}

static void test_records_inflate_as_perf_reads_them(void **state)
{
	round_trip(4096, 100000, 512, 1);
	round_trip(0, 300000, 4096, 3);		/* the default slice, COMPRESS_SLICE_MAX */
	round_trip(COMPRESS_SLICE_MAX, 2 * 1024 * 1024, 65528, 1); /* dwarf-sized samples */
	round_trip(32768, 200000, 2048, 19);
}

/* Two readers' frames one after the other in one file: one stream reads them. */
static void test_frames_of_two_readers_interleave(void **state)
{
	struct compressor a, b;
	struct strbuf in_a, in_b, file, want;
	struct inflated res;
	unsigned char *out = malloc(1 << 20);
	size_t la = 0;
	ssize_t n;

	make_records(&in_a, 50000, 256, 1);
	make_records(&in_b, 70000, 256, 2);
	assert_int_equal(compressor__init(&a, 1, 8192), 0);
	assert_int_equal(compressor__init(&b, 1, 8192), 0);
	strbuf__init(&file);
	strbuf__init(&want);
	/* Reader a's records cut in two at a record boundary, b's frame between. */
	while (la < in_a.len / 2) {
		struct perf_event_header h;

		memcpy(&h, in_a.data + la, sizeof(h));
		la += h.size;
	}
	for (int half = 0; half < 2; half++) {
		if (half) {
			n = compressor__records(&b, in_b.data, in_b.len, out, 1 << 20);
			assert_true(n > 0);
			strbuf__add(&file, out, n);
			strbuf__add(&want, in_b.data, in_b.len);
			n = compressor__records(&a, in_a.data + la, in_a.len - la, out, 1 << 20);
			strbuf__add(&want, in_a.data + la, in_a.len - la);
		} else {
			n = compressor__records(&a, in_a.data, la, out, 1 << 20);
			strbuf__add(&want, in_a.data, la);
		}
		assert_true(n > 0);
		strbuf__add(&file, out, n);
	}
	inflate_as_perf((unsigned char *)file.data, file.len, 8192, &res);
	assert_int_equal(res.out.len, want.len);
	assert_memory_equal(res.out.data, want.data, want.len);
	strbuf__exit(&res.out);
	strbuf__exit(&want);
	strbuf__exit(&file);
	strbuf__exit(&in_a);
	strbuf__exit(&in_b);
	compressor__exit(&a);
	compressor__exit(&b);
	free(out);
}

/*
 * One frame over many appends (the stage's batch): it inflates as perf
 * reads it, every record to its slice and none to nothing, and it is
 * smaller than a frame per append, since later chunks refer back to
 * earlier ones.
 */
static void test_frame_over_appends(void **state)
{
	struct compressor c, one;
	struct strbuf in;
	struct inflated res;
	size_t cap = 1 << 20, len = 0, piece, separate = 0;
	unsigned char *out = malloc(cap), *tmp = malloc(cap);
	ssize_t n;

	make_records(&in, 64 * 1024, 512, 9);
	assert_int_equal(compressor__init(&c, 1, 4096), 0);
	assert_int_equal(compressor__init(&one, 1, 4096), 0);
	/* Nothing open: nothing to close. */
	assert_int_equal(compressor__end(&c, out, cap), 0);
	for (size_t off = 0; off < in.len; off += piece) {
		struct perf_event_header h;

		/* Whole records of about 6 KiB a piece, as a reader's chunks are. */
		piece = 0;
		while (off + piece < in.len && piece < 6000) {
			memcpy(&h, in.data + off + piece, sizeof(h));
			piece += h.size;
		}
		n = compressor__append(&c, in.data + off, piece, out + len, cap - len);
		assert_true(n > 0);
		len += (size_t)n;
		n = compressor__records(&one, in.data + off, piece, tmp, cap);
		assert_true(n > 0);
		separate += (size_t)n;
	}
	assert_int_equal(c.frames, 0);
	n = compressor__end(&c, out + len, cap - len);
	assert_true(n > 0 && n <= 16);
	len += (size_t)n;
	assert_int_equal(c.frames, 1);
	assert_int_equal(c.bytes_out, len);
	inflate_as_perf(out, len, 4096, &res);
	assert_int_equal(res.out.len, in.len);
	assert_memory_equal(res.out.data, in.data, in.len);
	assert_true(res.max_piece <= 4096);
	print_message("one frame: %zu bytes; a frame per chunk: %zu\n", len, separate);
	assert_true(len < separate);
	strbuf__exit(&res.out);
	strbuf__exit(&in);
	compressor__exit(&c);
	compressor__exit(&one);
	free(out);
	free(tmp);
}

static void test_bad_level(void **state)
{
	struct compressor c;

	assert_int_equal(compressor__init(&c, 0, 0), -EINVAL);
	assert_int_equal(compressor__init(&c, 23, 0), -EINVAL);
	assert_int_equal(compressor__init(&c, 22, 0), 0);
	compressor__exit(&c);
}

/* ---- through our reader ---------------------------------------------------- */

static int count_record(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	uint64_t *n = priv;

	if (rec->header->type == PERF_RECORD_SAMPLE && rec->compressed)
		n[0]++;
	if (rec->header->type == PERF_RECORD_COMPRESSED)
		n[1]++;
	return 0;
}

static void test_reader_reads_our_records(void **state)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = PERF_ATTR_SIZE_VER7,
		.sample_period = 1000,
	};
	uint64_t ids[1] = { 7 }, seen[2] = { 0 }, want = 0;
	struct perf_data_attr pa = { &attr, ids, 1 };
	struct perf_file_header hdr;
	struct compressor c;
	struct strbuf sb, in;
	struct perf_reader r;
	unsigned char *out;
	ssize_t n;
	size_t off = 0;
	int fd;

	make_records(&in, 300000, 1024, 5);
	while (off < in.len) {
		struct perf_event_header h;

		memcpy(&h, in.data + off, sizeof(h));
		off += h.size;
		want++;
	}
	assert_int_equal(compressor__init(&c, 1, 4096), 0);
	out = malloc(compressor__bound(&c, in.len));
	n = compressor__records(&c, in.data, in.len, out, compressor__bound(&c, in.len));
	assert_true(n > 0);
	strbuf__init(&sb);
	perf_data__build_start(&pa, 1, &sb, &hdr);
	hdr.data.offset = sb.len;
	hdr.data.size = n;
	memcpy(sb.data, &hdr, sizeof(hdr));
	strbuf__add(&sb, out, n);
	fd = open(tpath("z.data"), O_CREAT | O_TRUNC | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, sb.data, sb.len), (ssize_t)sb.len);
	close(fd);
	assert_int_equal(perf_reader__open(&r, tpath("z.data")), 0);
	assert_int_equal(perf_reader__for_each_record(&r, count_record, seen), 0);
	assert_int_equal(seen[0], want);
	assert_int_equal(seen[1], (in.len + 4095) / 4096);
	perf_reader__close(&r);
	strbuf__exit(&sb);
	strbuf__exit(&in);
	free(out);
	compressor__exit(&c);
}

/* ---- the stage, with reader threads ------------------------------------------ */

/* Kernel side: a SAMPLE with a time and some padding, if there is room. */
static bool fake_sample(struct fake *f, uint64_t time)
{
	struct { struct perf_event_header h; uint64_t time; uint64_t pad[6]; } rec = {
		{ PERF_RECORD_SAMPLE, 0, sizeof(rec) }, time, { time & 0xff },
	};
	uint64_t head = f->pc->data_head;
	/* Pairs with the reader's release store of data_tail. */
	uint64_t tail = __atomic_load_n(&f->pc->data_tail, __ATOMIC_ACQUIRE);
	const unsigned char *p = (const void *)&rec;

	if (head + sizeof(rec) - tail > RING)
		return false;
	for (size_t i = 0; i < sizeof(rec); i++)
		f->data[(head + i) & (RING - 1)] = p[i];
	__atomic_store_n(&f->pc->data_head, head + sizeof(rec), __ATOMIC_RELEASE);
	return true;
}

#define NR_READERS 3
#define RINGS_PER 2
#define EVENTS_PER_PRODUCER 40000
/*
 * The stage holds a clean pass with its open frame for up to 10 ms
 * (stage-compress.c): the producers run for several of those, so that
 * rounds close many times.
 */
#define PRODUCER_PAUSE_US 4000
#include "perf-order.h"

/* perf's ordered events over the decompressed stream (perf-order.h's model). */
static struct model check_file(const char *path)
{
	struct model m = { 0 };
	struct inflated inf;
	size_t len;
	unsigned char *buf = read_whole(path, &len);

	inflate_as_perf(buf, len, RING + PAGE, &inf);
	m.compressed = inf.nr_records;
	assert_int_equal(model__walk(&m, (const unsigned char *)inf.out.data, inf.out.len),
			 inf.out.len);
	free(buf);
	strbuf__exit(&inf.out);
	return m;
}

static void run_threads(int level, int nr_bufs, const struct writer_ops *ops)
{
	struct mmap m[NR_RINGS];
	int idx_mem[NR_READERS][RINGS_PER], *idx[NR_READERS], nr_idx[NR_READERS];
	pthread_t prod[NR_READERS];
	struct stage_stats st = { 0 };
	uint64_t in, zout;
	struct model res;

	produced = dropped = clock_now = 0;
	open_out(level > 9 ? "threads-slow" : "threads");
	for (int i = 0; i < NR_RINGS; i++) {
		fake_init(&rings[i]);
		assert_int_equal(mmap__init_fake(&m[i], rings[i].mem, PAGE, RING, nr_bufs),
				 0);
	}
	for (int i = 0; i < NR_READERS; i++) {
		idx[i] = idx_mem[i];
		nr_idx[i] = RINGS_PER;
		for (int k = 0; k < RINGS_PER; k++)
			idx_mem[i][k] = i * RINGS_PER + k;
	}
	assert_int_equal(record_threads__init(&live, &out, m, NR_READERS, idx, nr_idx, NULL,
					      -1, PERF_SAMPLE_TIME, 0), 0);
	assert_int_equal(record_threads__pipelines(&live, ops, nr_bufs, RING, level, false), 0);
	assert_int_equal(record_threads__start(&live), 0);
	for (int p = 0; p < NR_READERS; p++)
		pthread_create(&prod[p], NULL, producer, (void *)(intptr_t)p);
	for (int p = 0; p < NR_READERS; p++)
		pthread_join(prod[p], NULL);
	assert_int_equal(record_threads__stop(&live), 0);
	assert_true(record_threads__last_pass(&live, clock_now) >= 0);
	assert_int_equal(record_threads__drain(&live), 0);
	record_threads__stage_stats(&live, &st);
	in = st.bytes_in;
	zout = st.bytes_out;
	record_threads__exit(&live);
	for (int i = 0; i < NR_RINGS; i++) {
		/* Every data buffer came back: the ring goes with its own reference. */
		assert_int_equal(m[i].nr_free, nr_bufs);
		assert_int_equal(m[i].refcnt, 1);
		mmap__close(&m[i]);
		free(rings[i].mem);
	}
	close_out();

	res = check_file(file);
	print_message("level %d: %llu samples (%llu dropped by the fake kernel), %llu rounds, "
		      "%llu COMPRESSED records, %llu -> %llu bytes\n", level,
		      (unsigned long long)res.samples, (unsigned long long)dropped,
		      (unsigned long long)res.rounds, (unsigned long long)res.compressed,
		      (unsigned long long)in, (unsigned long long)zout);
	assert_int_equal(res.samples, produced);
	assert_true(res.compressed > 0);
	/*
	 * Slow stages publish clean passes late: rounds are fewer, never
	 * wrong. Under qemu-user (the aarch64 tests) zstd's level 1 is such a
	 * stage: emulated, it falls behind the producers as level 19 does.
	 */
	assert_true(res.rounds >= (level > 9 || emulator((char[PATH_MAX]){ 0 }) ? 1 : 3));
	assert_int_equal(res.violations, 0);
	assert_true(zout < in);
	/* Frames span chunks: the stage batches them. */
	print_message("%llu chunks in %llu frames\n", (unsigned long long)st.chunks,
		      (unsigned long long)st.frames);
	assert_true(st.frames > 0);
	assert_true(st.frames < st.chunks);
}

static void test_stages_keep_perf_order(void **state)
{
	run_threads(1, 1, &writer_sync_ops);
	run_threads(1, 4, &writer_sync_ops);
	/* Every output buffer of a stage in flight at once: it waits for one. */
	run_threads(1, 4, &writer_aio_ops);
}

static void test_slow_stages_keep_perf_order(void **state)
{
	/* zstd's level 19 is slower than the producers: the queues fill up. */
	run_threads(19, 2, &writer_sync_ops);
}

/*
 * One reader stepped by hand, not started as a thread; its compression
 * stage is a thread. A clean pass with chunks ends in a round.
 */
static void test_single_reader_stepped(void **state)
{
	struct fake f;
	struct mmap m;
	struct record_threads rt;
	int i0[] = { 0 }, *idx[] = { i0 }, nr_idx[] = { 1 };
	uint64_t now = 0, t = 0;
	struct stage_stats st = { 0 };
	struct model res;
	int n = 0;

	open_out("single");
	fake_init(&f);
	assert_int_equal(mmap__init_fake(&m, f.mem, PAGE, RING, 1), 0);
	assert_int_equal(record_threads__init(&rt, &out, &m, 1, idx, nr_idx, NULL, -1,
					      PERF_SAMPLE_TIME, 0), 0);
	assert_int_equal(record_threads__pipelines(&rt, &writer_sync_ops, 1, RING, 1, false), 0);
	assert_int_equal(record_threads__start(&rt), 0);
	for (int step = 0; step < 50; step++) {
		for (int k = 0; k < 40 && fake_sample(&f, ++t); k++)
			n++;
		/* A second apart: the round is old, nothing is kept. */
		assert_true(record_thread__step(&rt.t[0], now += SEC, false) >= 0);
		/* The next pass begins after the stage closed this one's round. */
		while (atomic_load(&rt.rounds.gen) < (uint64_t)step + 1)
			usleep(100);
	}
	assert_true(record_threads__last_pass(&rt, now += SEC) >= 0);
	assert_int_equal(record_threads__drain(&rt), 0);
	record_threads__stage_stats(&rt, &st);
	assert_int_equal(st.rounds, 50);
	record_threads__exit(&rt);
	assert_int_equal(m.refcnt, 1);
	mmap__close(&m);
	free(f.mem);
	close_out();
	res = check_file(file);
	assert_int_equal(res.samples, n);
	assert_int_equal(res.rounds, 50);
	assert_int_equal(res.violations, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_inflate_as_perf_reads_them),
		cmocka_unit_test(test_frames_of_two_readers_interleave),
		cmocka_unit_test(test_frame_over_appends),
		cmocka_unit_test(test_bad_level),
		cmocka_unit_test(test_reader_reads_our_records),
		cmocka_unit_test(test_stages_keep_perf_order),
		cmocka_unit_test(test_slow_stages_keep_perf_order),
		cmocka_unit_test(test_single_reader_stepped),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
