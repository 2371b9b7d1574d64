// SPDX-License-Identifier: GPL-2.0
/*
 * loss.c: the loss numbers on timelines whose answer is known,
 * through the timeline API and through a hand-made perf.data file;
 * loss-svg.c: the picture puts its shades at the LOST records' times;
 * builtin-loss.c: exit codes and the side-by-side table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/builtin.h"
#include "read/loss-svg.h"
#include "read/loss.h"
#include "read/reader.h"
#include "util.h"

#include "record-builder.h"
#include "tmpdir.h"

/* ---- the union of intervals ------------------------------------------ */

static void test_union_overlapping_not_summed(void **state)
{
	struct loss_interval iv[] = {
		{ .start = 100, .end = 200, .cpu = 0 },
		{ .start = 150, .end = 250, .cpu = 1 },	/* overlaps: +50, not +100 */
		{ .start = 300, .end = 310, .cpu = 0 },	/* disjoint: +10 */
		{ .start = 400, .end = 400, .cpu = 1 },	/* empty */
		{ .start = 500, .end = 450, .cpu = 1 },	/* out of order: empty */
		{ .start = 120, .end = 130, .cpu = 1 },	/* inside the first */
		{ .start = 250, .end = 260, .cpu = 0 },	/* touches (150,250]: +10 */
	};

	assert_int_equal(loss__union_length(iv, ARRAY_SIZE(iv)), 150 + 10 + 10);
	assert_int_equal(loss__union_length(iv, 0), 0);
}

/* ---- the timeline ------------------------------------------------------ */

static void test_timeline_two_cpus(void **state)
{
	struct loss_stats ls;

	loss_stats__init(&ls, 1);
	/* file order; cpu, time, is LOST */
	loss_stats__add_time(&ls, 0, 100, false);
	loss_stats__add_time(&ls, 1, 150, false);
	loss_stats__add_time(&ls, 0, 200, true);	/* (100, 200] */
	loss_stats__add_time(&ls, 0, 250, false);
	loss_stats__add_time(&ls, 1, 260, true);	/* (150, 260] */
	loss_stats__add_time(&ls, 0, 300, true);	/* (250, 300] */
	loss_stats__add_time(&ls, 1, 1100, false);
	loss_stats__add_time(&ls, 0, 0, false);		/* no timestamp: ignored */
	loss_stats__finish(&ls);

	assert_true(ls.have_time);
	assert_int_equal(ls.first_time, 100);
	assert_int_equal(ls.last_time, 1100);
	assert_true(ls.elapsed_valid);
	assert_int_equal(ls.elapsed_time, 1000);
	assert_true(ls.lost_time_valid);
	/* (100,260] u (250,300] = (100,300]; summing would give 310 */
	assert_int_equal(ls.lost_time, 200);
	assert_true(ls.lost_time_fraction_valid);
	assert_true(ls.lost_time_fraction > 0.1999 && ls.lost_time_fraction < 0.2001);
	assert_int_equal(ls.cpus[0].lost_time, 100 + 50);
	assert_int_equal(ls.cpus[1].lost_time, 110);
	loss_stats__exit(&ls);
}

/*
 * A LOST record that is the first timestamped record of its CPU: its
 * interval starts at the first timestamp of the whole file, even when
 * that timestamp is read later (another CPU's stream).
 */
static void test_timeline_first_record_lost(void **state)
{
	struct loss_stats ls;

	loss_stats__init(&ls, 1);
	loss_stats__add_time(&ls, 0, 100, false);
	loss_stats__add_time(&ls, 1, 120, true);	/* (first, 120] */
	loss_stats__add_time(&ls, 2, 50, false);	/* first = 50 */
	loss_stats__add_time(&ls, 1, 130, false);
	loss_stats__add_time(&ls, 1, 125, true);	/* prev 130 > 125: empty */
	loss_stats__finish(&ls);
	assert_int_equal(ls.first_time, 50);
	assert_int_equal(ls.elapsed_time, 80);
	assert_int_equal(ls.lost_time, 70);
	assert_int_equal(ls.cpus[1].lost_time, 70);
	loss_stats__exit(&ls);
}

/* Records without a CPU form one stream of their own. */
static void test_timeline_unknown_cpu(void **state)
{
	struct loss_stats ls;

	loss_stats__init(&ls, 1);
	loss_stats__add_time(&ls, -1, 10, false);
	loss_stats__add_time(&ls, 3, 15, false);
	loss_stats__add_time(&ls, -1, 40, true);	/* (10, 40] */
	loss_stats__add_time(&ls, LOSS_MAX_CPUS + 5, 45, false); /* corrupt cpu: unknown */
	loss_stats__add_time(&ls, -1, 50, true);	/* (45, 50] */
	loss_stats__finish(&ls);
	assert_int_equal(ls.lost_time, 35);
	assert_int_equal(ls.unknown_cpu.lost_time, 35);
	assert_true(ls.unknown_cpu.seen);
	assert_false(ls.cpus[0].seen);
	assert_true(ls.cpus[3].seen);
	loss_stats__exit(&ls);
}

static void test_timeline_no_timestamps(void **state)
{
	struct loss_stats ls;

	loss_stats__init(&ls, 1);
	loss_stats__add_time(&ls, 0, 0, false);
	loss_stats__add_time(&ls, 0, 0, true);
	loss_stats__finish(&ls);
	assert_false(ls.have_time);
	assert_false(ls.elapsed_valid);
	assert_false(ls.lost_time_valid);
	assert_false(ls.lost_time_fraction_valid);
	assert_int_equal(ls.lost_untimed, 1);
	loss_stats__exit(&ls);

	/* timestamps but no loss: 0 of elapsed */
	loss_stats__init(&ls, 1);
	loss_stats__add_time(&ls, 0, 5, false);
	loss_stats__add_time(&ls, 0, 9, false);
	loss_stats__finish(&ls);
	assert_true(ls.lost_time_valid);
	assert_int_equal(ls.lost_time, 0);
	assert_true(ls.lost_time_fraction_valid);
	assert_true(ls.lost_time_fraction == 0);
	loss_stats__exit(&ls);

	/* a single timestamp: elapsed 0, no fraction */
	loss_stats__init(&ls, 1);
	loss_stats__add_time(&ls, 0, 5, false);
	loss_stats__finish(&ls);
	assert_true(ls.elapsed_valid);
	assert_int_equal(ls.elapsed_time, 0);
	assert_false(ls.lost_time_fraction_valid);
	assert_false(ls.loss_fraction_valid);	/* no samples, no loss */
	loss_stats__exit(&ls);
}

/* ---- through a perf.data file ----------------------------------------- */

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)



/* The sample_id trailer for ST: tid, time, cpu, identifier. */
static void trailer(struct strbuf *d, uint64_t time, uint32_t cpu, uint64_t id)
{
	strbuf__add_u32(d, 1);
	strbuf__add_u32(d, 1);
	strbuf__add_u64(d, time);
	strbuf__add_u32(d, cpu);
	strbuf__add_u32(d, 0);
	strbuf__add_u64(d, id);
}

static void sample(struct strbuf *d, uint64_t id, uint64_t time, uint32_t cpu)
{
	size_t o = rec_begin(d, PERF_RECORD_SAMPLE, 0);

	strbuf__add_u64(d, id);
	strbuf__add_u64(d, 0x1000);
	strbuf__add_u32(d, 1);
	strbuf__add_u32(d, 1);
	strbuf__add_u64(d, time);
	strbuf__add_u32(d, cpu);
	strbuf__add_u32(d, 0);
	strbuf__add_u64(d, 1);
	rec_end(d, o);
}

static void lost(struct strbuf *d, uint64_t n, uint64_t time, uint32_t cpu, uint64_t id)
{
	size_t o = rec_begin(d, PERF_RECORD_LOST, 0);

	strbuf__add_u64(d, id);
	strbuf__add_u64(d, n);
	trailer(d, time, cpu, id);
	rec_end(d, o);
}

static void lost_samples(struct strbuf *d, uint64_t n, uint64_t time, uint32_t cpu,
			 uint64_t id)
{
	size_t o = rec_begin(d, PERF_RECORD_LOST_SAMPLES, 0);

	strbuf__add_u64(d, n);
	trailer(d, time, cpu, id);
	rec_end(d, o);
}

static void simple(struct strbuf *d, uint32_t type, uint64_t time, uint32_t cpu, uint64_t id)
{
	size_t o = rec_begin(d, type, 0);

	strbuf__addz(d, 16);	/* THROTTLE: time, id, stream_id... any body will do */
	trailer(d, time, cpu, id);
	rec_end(d, o);
}

/* Two events with ids ids[0][..n[0]) and ids[1][..n[1]), no features; data as given. */
static void write_file_ids(const char *path, const struct strbuf *data, const uint64_t *const *ids,
			   const size_t *n)
{
	struct perf_file_header h = { 0 };
	struct perf_event_attr attr = { 0 };
	uint64_t ids_at = sizeof(h);
	struct strbuf sb;
	int fd;

	strbuf__init(&sb);
	strbuf__addz(&sb, sizeof(h));
	for (int i = 0; i < 2; i++)
		strbuf__add(&sb, ids[i], n[i] * sizeof(uint64_t));
	h.attrs.offset = sb.len;
	h.attr_size = PERF_ATTR_SIZE_VER7 + 16;
	attr.size = PERF_ATTR_SIZE_VER7;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.sample_type = ST;
	attr.sample_id_all = 1;
	for (int i = 0; i < 2; i++) {
		struct perf_file_section sec = { ids_at, n[i] * sizeof(uint64_t) };

		ids_at += sec.size;
		attr.config = i ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK;
		strbuf__add(&sb, &attr, sizeof(attr));
		strbuf__add(&sb, &sec, sizeof(sec));
	}
	h.attrs.size = sb.len - h.attrs.offset;
	h.data.offset = sb.len;
	h.data.size = data->len;
	if (data->len)
		strbuf__add(&sb, data->data, data->len);
	h.magic = PERF_MAGIC2;
	h.size = sizeof(h);
	memcpy(sb.data, &h, sizeof(h));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, sb.data, sb.len), (ssize_t)sb.len);
	close(fd);
	strbuf__exit(&sb);
}

/* Two events (ids 1,2 and 3,4), no features; data as given. */
static void write_file(const char *path, const struct strbuf *data)
{
	static const uint64_t a[] = { 1, 2 }, b[] = { 3, 4 };
	const uint64_t *ids[] = { a, b };
	size_t n[] = { 2, 2 };

	write_file_ids(path, data, ids, n);
}

/* An ID_INDEX record: nr entries {id, idx, cpu, tid}. */
static void id_index(struct strbuf *d, const uint64_t (*e)[4], size_t nr)
{
	size_t o = rec_begin(d, PERF_RECORD_ID_INDEX, 0);

	strbuf__add_u64(d, nr);
	strbuf__add(d, e, nr * sizeof(*e));
	rec_end(d, o);
}

static int add_cb(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	return loss_stats__add_record(priv, r, rec->header);
}

static int tl_cb(struct perf_reader *r, const struct perf_reader_record *rec, void *priv)
{
	return loss_timeline__add_record(priv, r, rec->header);
}

static void test_file_numbers(void **state)
{
	struct strbuf d;
	struct perf_reader r;
	struct loss_stats ls;
	size_t o;

	strbuf__init(&d);
	/* synthesized COMM: zero trailer, no time, cpu 0: must not count */
	o = rec_begin(&d, PERF_RECORD_COMM, 0);
	strbuf__addz(&d, 16);
	trailer(&d, 0, 0, 0);
	rec_end(&d, o);
	sample(&d, 1, 1000, 0);			/* cpu-clock cpu 0 */
	sample(&d, 2, 1100, 1);			/* cpu-clock cpu 1 */
	sample(&d, 3, 1200, 0);			/* task-clock cpu 0 */
	lost(&d, 7, 1500, 0, 1);		/* cpu 0: (1200, 1500] */
	sample(&d, 1, 1500, 0);
	lost(&d, 3, 1400, 1, 2);		/* cpu 1: (1100, 1400] */
	simple(&d, PERF_RECORD_THROTTLE, 1600, 1, 2);
	simple(&d, PERF_RECORD_UNTHROTTLE, 1700, 1, 2);
	sample(&d, 4, 3100, 1);			/* task-clock cpu 1 */
	lost_samples(&d, 2, 2000, 1, 4);	/* timed: a kernel LOST_SAMPLES */
	o = rec_begin(&d, PERF_RECORD_FINISHED_ROUND, 0);
	rec_end(&d, o);
	/* end-of-run counters, as perf >= 6.0 writes them: time 0 */
	lost_samples(&d, 9, 0, 0, 1);
	lost_samples(&d, 4, 0, 0, 2);
	write_file(tpath("loss.data"), &d);
	strbuf__exit(&d);

	assert_int_equal(perf_reader__open(&r, tpath("loss.data")), 0);
	loss_stats__init(&ls, r.nr_attrs);
	assert_int_equal(perf_reader__for_each_record(&r, add_cb, &ls), 0);
	loss_stats__finish(&ls);

	assert_int_equal(ls.samples, 5);
	assert_int_equal(ls.event_samples[0], 3);
	assert_int_equal(ls.event_samples[1], 2);
	assert_int_equal(ls.lost_records, 2);
	assert_int_equal(ls.lost_events, 10);
	assert_int_equal(ls.lost_samples_records, 3);
	assert_int_equal(ls.lost_samples, 15);
	assert_int_equal(ls.lost_samples_final, 13);
	assert_int_equal(ls.event_lost_samples[0], 13);
	assert_int_equal(ls.event_lost_samples[1], 2);
	/* 2 timed + max(10 in LOST, 13 in end counters) */
	assert_int_equal(ls.lost, 15);
	assert_true(ls.loss_fraction_valid);
	assert_true(ls.loss_fraction > 0.7499 && ls.loss_fraction < 0.7501); /* 15 / 20 */
	assert_int_equal(ls.throttle, 1);
	assert_int_equal(ls.unthrottle, 1);
	assert_int_equal(ls.first_time, 1000);
	assert_int_equal(ls.last_time, 3100);
	assert_int_equal(ls.elapsed_time, 2100);
	/* (1100,1400] u (1200,1500] = (1100,1500] */
	assert_int_equal(ls.lost_time, 400);
	assert_int_equal(ls.cpus[0].samples, 3);
	assert_int_equal(ls.cpus[0].lost_records, 1);
	assert_int_equal(ls.cpus[0].lost_events, 7);
	assert_int_equal(ls.cpus[0].lost_time, 300);
	assert_int_equal(ls.cpus[1].samples, 2);
	assert_int_equal(ls.cpus[1].lost_events, 3);
	assert_int_equal(ls.cpus[1].lost_time, 300);
	assert_false(ls.unknown_cpu.seen);
	loss_stats__exit(&ls);
	perf_reader__close(&r);
}

/* Without end-of-run counters, LOST and timed LOST_SAMPLES add up. */
static void test_lost_without_counters(void **state)
{
	struct loss_stats ls;
	struct perf_event_header h;
	struct perf_reader r;
	struct strbuf d;

	strbuf__init(&d);
	sample(&d, 1, 100, 0);
	lost(&d, 30, 200, 0, 1);
	lost_samples(&d, 5, 250, 0, 1);
	sample(&d, 1, 300, 0);
	write_file(tpath("loss2.data"), &d);
	strbuf__exit(&d);
	assert_int_equal(perf_reader__open(&r, tpath("loss2.data")), 0);
	loss_stats__init(&ls, r.nr_attrs);
	assert_int_equal(perf_reader__for_each_record(&r, add_cb, &ls), 0);
	/* user records are ignored */
	h.type = PERF_RECORD_FINISHED_ROUND;
	h.misc = 0;
	h.size = 8;
	assert_int_equal(loss_stats__add_record(&ls, &r, &h), 0);
	loss_stats__finish(&ls);
	assert_int_equal(ls.lost, 35);
	assert_int_equal(ls.lost_samples_final, 0);
	assert_true(ls.loss_fraction > 35.0 / 37 - 1e-9 && ls.loss_fraction < 35.0 / 37 + 1e-9);
	assert_int_equal(ls.lost_time, 100);
	assert_int_equal(ls.elapsed_time, 200);
	loss_stats__exit(&ls);
	perf_reader__close(&r);
}

/* ---- the picture -------------------------------------------------------- */

/* Both passes over path, as perfcap loss --svg makes them; the SVG into *svg. */
static size_t picture(const char *path, struct perf_reader *r, struct loss_stats *ls,
		      struct loss_timeline *tl, char **svg)
{
	struct loss_timeline *tlp = tl;
	size_t len = 0;
	FILE *f;

	assert_int_equal(perf_reader__open(r, path), 0);
	loss_stats__init(ls, r->nr_attrs);
	assert_int_equal(perf_reader__for_each_record(r, add_cb, ls), 0);
	loss_stats__finish(ls);
	loss_timeline__init(tl, r, ls, loss_timeline__bucket_ns(ls->elapsed_time));
	assert_int_equal(perf_reader__for_each_record(r, tl_cb, tl), 0);
	f = open_memstream(svg, &len);
	assert_non_null(f);
	assert_int_equal(loss_svg__write(f, &tlp, 1, true), 0);
	fclose(f);
	return len;
}

/* One shaded interval as the SVG gives it. */
struct shade {
	char cpu[16];
	uint64_t start, end;
	double x, width;
};

/* The shades of svg, in document order; returns how many (at most max). */
static size_t shades(const char *svg, struct shade *sh, size_t max)
{
	const char *p = svg;
	size_t n = 0;

	while ((p = strstr(p, "<rect class=\"lost\" ")) && n < max) {
		int got = sscanf(p, "<rect class=\"lost\" data-cpu=\"%15[^\"]\" data-start-ns=\"%"
				 SCNu64 "\" data-end-ns=\"%" SCNu64 "\" data-records=\"%*u\" "
				 "data-lost=\"%*u\" x=\"%lf\" y=\"%*f\" width=\"%lf\"",
				 sh[n].cpu, &sh[n].start, &sh[n].end, &sh[n].x, &sh[n].width);

		assert_int_equal(got, 5);
		n++;
		p++;
	}
	return n;
}

/* The x the picture gives to time t: its panel says where 0 is and the scale. */
static double x_of(const char *svg, uint64_t t)
{
	uint64_t t0;
	int x0;
	double ns_per_px;
	const char *p = strstr(svg, "<g class=\"panel\" ");

	assert_non_null(p);
	p = strstr(p, "data-t0-ns=");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "data-t0-ns=\"%" SCNu64 "\" data-x0=\"%d\" data-ns-per-px=\"%lf\"",
				&t0, &x0, &ns_per_px), 3);
	return x0 + (double)(t - t0) / ns_per_px;
}

static void test_svg_shades_at_lost_records(void **state)
{
	struct strbuf d;
	struct perf_reader r;
	struct loss_stats ls;
	struct loss_timeline tl;
	struct shade sh[8];
	char *svg = NULL;
	size_t n;

	/* 10 s of samples every 0.1 s on two CPUs; LOST records at known times. */
	strbuf__init(&d);
	for (uint64_t t = 1000000000; t <= 11000000000; t += 100000000) {
		sample(&d, 1, t, 0);
		sample(&d, 2, t + 50000000, 1);
		if (t == 3000000000)
			lost(&d, 40, t + 10000000, 0, 1);	/* cpu 0: (3.0, 3.01] s */
		if (t == 7000000000) {
			lost(&d, 5, t + 90000000, 1, 2);	/* cpu 1: (7.05, 7.09] s */
			simple(&d, PERF_RECORD_THROTTLE, t + 95000000, 1, 2);
		}
	}
	write_file(tpath("svg.data"), &d);
	strbuf__exit(&d);

	picture(tpath("svg.data"), &r, &ls, &tl, &svg);
	assert_non_null(strstr(svg, "<?xml version=\"1.0\""));
	assert_non_null(strstr(svg, "</svg>\n"));
	/* the totals in the title */
	assert_non_null(strstr(svg, "202 samples, lost 45 (18.22%) in 2 LOST records"));
	assert_non_null(strstr(svg, "<rect class=\"throttle\""));
	n = shades(svg, sh, ARRAY_SIZE(sh));
	assert_int_equal(n, 4);
	/* "all" first: the union, then cpu 0, then cpu 1 */
	assert_string_equal(sh[0].cpu, "all");
	assert_int_equal(sh[0].start, 3000000000);
	assert_int_equal(sh[0].end, 3010000000);
	assert_string_equal(sh[1].cpu, "all");
	assert_int_equal(sh[1].start, 7050000000);
	assert_int_equal(sh[1].end, 7090000000);
	assert_string_equal(sh[2].cpu, "cpu 0");
	assert_int_equal(sh[2].start, 3000000000);
	assert_int_equal(sh[2].end, 3010000000);
	assert_string_equal(sh[3].cpu, "cpu 1");
	assert_int_equal(sh[3].start, 7050000000);
	assert_int_equal(sh[3].end, 7090000000);
	for (size_t i = 0; i < n; i++) {
		/* where on the axis the panel says that time is */
		assert_true(fabs(sh[i].x - x_of(svg, sh[i].start)) < 0.01);
		assert_true(sh[i].width >= x_of(svg, sh[i].end) - x_of(svg, sh[i].start) - 0.01);
		assert_true(sh[i].width >= 1);
	}
	/* the axis spans the 10.05 s of the recording, give or take a bucket */
	assert_true(fabs(sh[0].x - (LOSS_SVG_PLOT_X + 2.0 / 10.05 * LOSS_SVG_PLOT_WIDTH)) < 1);
	assert_true(fabs(sh[1].x - (LOSS_SVG_PLOT_X + 6.05 / 10.05 * LOSS_SVG_PLOT_WIDTH)) < 1);
	free(svg);
	loss_timeline__exit(&tl);
	loss_stats__exit(&ls);
	perf_reader__close(&r);
}

/*
 * 256 CPUs: every row drawn, the picture stays within a screen or two.
 * LOSS_SVG_KEEP=FILE keeps the picture, to look at it.
 */
static void test_svg_256_cpus(void **state)
{
	struct strbuf d;
	struct perf_reader r;
	struct loss_stats ls;
	struct loss_timeline tl;
	struct shade sh[300];
	const char *keep = getenv("LOSS_SVG_KEEP");
	char *svg = NULL, *p;
	size_t len, n, rates = 0;
	int width, height;

	strbuf__init(&d);
	for (uint64_t i = 0; i < 200; i++) {
		uint64_t t = 1000000 + i * 1000000;

		for (uint32_t cpu = 0; cpu < 256; cpu++) {
			/* every 16th CPU loses what it had from 90 to 100 ms */
			if (cpu % 16 == 0 && i >= 90 && i < 100)
				continue;
			if (cpu % 16 == 0 && i == 100)
				lost(&d, 100, t + cpu * 1000, cpu, 1);
			/* more data on higher CPUs and in the middle of the run */
			for (uint32_t k = 0; k <= cpu / 64 + (i > 80 && i < 120); k++)
				sample(&d, 1, t + cpu * 1000 + k, cpu);
		}
	}
	write_file(tpath("256.data"), &d);
	strbuf__exit(&d);

	len = picture(tpath("256.data"), &r, &ls, &tl, &svg);
	assert_int_equal(ls.nr_cpus, 256);
	assert_int_equal(sscanf(strstr(svg, "<svg "), "<svg xmlns=\"http://www.w3.org/2000/svg\" "
				"version=\"1.1\" width=\"%d\" height=\"%d\"", &width, &height), 2);
	assert_int_equal(width, LOSS_SVG_WIDTH);
	assert_true(height > 256 * 2 && height < 1100);
	/* a rate path per CPU row, and one for "all" */
	for (p = svg; (p = strstr(p, "<path fill=")); p++)
		rates++;
	assert_int_equal(rates, 257);
	n = shades(svg, sh, ARRAY_SIZE(sh));
	/* the union, as one shade, then one per losing CPU */
	assert_int_equal(n, 1 + 16);
	assert_string_equal(sh[0].cpu, "all");
	for (size_t i = 1; i < n; i++) {
		char want[16];

		snprintf(want, sizeof(want), "cpu %zu", (i - 1) * 16);
		assert_string_equal(sh[i].cpu, want);
		/* from that CPU's last sample at 89 ms to the LOST record at 100 ms */
		assert_int_equal(sh[i].end - sh[i].start, 11000000 - (i - 1) / 4 - 1);
	}
	assert_true(len < 4 << 20);
	if (keep) {
		FILE *f = fopen(keep, "w");

		assert_non_null(f);
		fwrite(svg, 1, len, f);
		fclose(f);
	}
	free(svg);
	loss_timeline__exit(&tl);
	loss_stats__exit(&ls);
	perf_reader__close(&r);
}

/*
 * CPU numbers far apart, past the row limit, and records of no known CPU:
 * memory and rows go by the CPUs seen (at most LOSS_SVG_MAX_CPU_ROWS rows,
 * the rest sharing the last row), and the last row gets its shades.
 */
static void test_svg_rows_bounded(void **state)
{
	struct strbuf d;
	struct perf_reader r;
	struct loss_stats ls;
	struct loss_timeline tl;
	struct shade sh[8];
	char *svg = NULL, *p;
	size_t rates = 0, n, data_len;

	strbuf__init(&d);
	/* CPUs 0, 15, 30, ...: 4100 of them, one sample each */
	for (uint32_t i = 0; i < 4100; i++)
		sample(&d, 1, 1000 + i, i * 15);
	/* CPU 70000 is no CPU (corrupt): the unknown stream, which loses data */
	sample(&d, 1, 2000, 70000);
	lost(&d, 3, 9000, 70000, 1);
	sample(&d, 1, 10000, 0);
	write_file(tpath("rows.data"), &d);
	data_len = d.len;
	strbuf__exit(&d);

	picture(tpath("rows.data"), &r, &ls, &tl, &svg);
	assert_true(ls.nr_cpus >= 4099 * 15 + 1);
	assert_int_equal(tl.nr_rows, LOSS_SVG_MAX_CPU_ROWS + 1);
	assert_int_equal(tl.other_cpus, 4);
	assert_true(tl.last_used);
	assert_int_equal(tl.row_cpu[1], 15);
	assert_int_equal(tl.row_of[4095 * 15], 4095);
	assert_int_equal(tl.row_of[4096 * 15], LOSS_SVG_MAX_CPU_ROWS);
	assert_int_equal(tl.row_of[5], LOSS_SVG_MAX_CPU_ROWS);	/* no records: not a row */
	/* every record has a time: each of its bytes is in some row's bucket */
	{
		uint64_t bytes = 0;

		for (size_t i = 0; i < tl.nr_rows * tl.nr_buckets; i++)
			bytes += tl.bytes[i];
		assert_int_equal(bytes, data_len);
	}
	for (p = svg; (p = strstr(p, "<path fill=")); p++)
		rates++;
	assert_int_equal(rates, 1 + LOSS_SVG_MAX_CPU_ROWS + 1);
	assert_non_null(strstr(svg, ">4 more cpus</text>"));
	n = shades(svg, sh, ARRAY_SIZE(sh));
	assert_int_equal(n, 2);
	assert_string_equal(sh[0].cpu, "all");
	assert_string_equal(sh[1].cpu, "4 more cpus");
	assert_int_equal(sh[1].start, 2000);
	assert_int_equal(sh[1].end, 9000);
	free(svg);
	loss_timeline__exit(&tl);
	loss_stats__exit(&ls);
	perf_reader__close(&r);
}

/* ---- the command: exit codes, two files --------------------------------- */

/*
 * A CPU offline and back (perfcap record's hotplug): its events opened
 * again under new ids, which a late ID_INDEX puts on the CPU. The gap runs
 * from the CPU's last sample under its old ids to its first under the
 * new, and is time not recorded, not lost. An ID_INDEX at the start (perf
 * writes them) and one of a thread's event say nothing of gaps.
 */
static void test_hotplug_gap(void **state)
{
	static const uint64_t a[] = { 1, 2, 5, 7 }, b[] = { 3, 4, 6 };
	static const uint64_t start[][4] = { { 1, 0, 0, -1ull }, { 2, 1, 1, -1ull },
					     { 3, 0, 0, -1ull }, { 4, 1, 1, -1ull } };
	static const uint64_t back[][4] = { { 5, 1, 1, -1ull }, { 6, 1, 1, -1ull } };
	static const uint64_t thread[][4] = { { 7, 0, 0, 42 } };
	const uint64_t *ids[] = { a, b };
	size_t n[] = { 4, 3 };
	struct perf_reader r;
	struct loss_stats ls;
	struct strbuf d;

	strbuf__init(&d);
	id_index(&d, start, 4);
	sample(&d, 1, 1000, 0);
	sample(&d, 2, 1100, 1);
	sample(&d, 4, 1150, 1);
	sample(&d, 2, 1600, 1);		/* cpu 1's last before it went */
	sample(&d, 1, 2000, 0);
	id_index(&d, back, 2);		/* cpu 1 back: cpu-clock 5, task-clock 6 */
	id_index(&d, thread, 1);
	sample(&d, 1, 2500, 0);
	sample(&d, 6, 2700, 1);
	sample(&d, 5, 2600, 1);		/* the first of the new ids (file order is not time order) */
	sample(&d, 7, 2800, 0);
	sample(&d, 5, 3000, 1);
	sample(&d, 1, 3100, 0);
	write_file_ids(tpath("hotplug.data"), &d, ids, n);
	strbuf__exit(&d);

	assert_int_equal(perf_reader__open(&r, tpath("hotplug.data")), 0);
	loss_stats__init(&ls, r.nr_attrs);
	assert_int_equal(perf_reader__for_each_record(&r, add_cb, &ls), 0);
	loss_stats__finish(&ls);
	assert_int_equal(ls.nr_gaps, 1);
	assert_int_equal(ls.gaps[0].cpu, 1);
	assert_int_equal(ls.gaps[0].start, 1600);
	assert_int_equal(ls.gaps[0].end, 2600);
	assert_false(ls.gaps[0].from_first);
	assert_false(ls.gaps[0].to_last);
	assert_int_equal(ls.cpus[1].offline_time, 1000);
	assert_int_equal(ls.cpus[0].offline_time, 0);
	assert_int_equal(ls.offline_time, 1000);
	/* not lost */
	assert_int_equal(ls.lost, 0);
	assert_int_equal(ls.lost_time, 0);
	assert_int_equal(ls.samples, 11);
	loss_stats__exit(&ls);
	perf_reader__close(&r);

	/* The picture: the gap in grey on cpu 1's row, not in row "all". */
	{
		struct loss_timeline tl;
		char *svg = NULL;

		picture(tpath("hotplug.data"), &r, &ls, &tl, &svg);
		assert_non_null(strstr(svg, "<rect class=\"offline\" data-cpu=\"cpu 1\" "
					    "data-start-ns=\"1600\" data-end-ns=\"2600\""));
		assert_null(strstr(svg, "class=\"offline\" data-cpu=\"all\""));
		assert_null(strstr(svg, "class=\"lost\""));
		free(svg);
		/* The HTML page's per-CPU table: cpu 1's 1000 ns offline, cpu 0's none. */
		{
			struct loss_timeline *tlp = &tl;
			size_t len = 0;
			FILE *f = open_memstream(&svg, &len);

			assert_non_null(f);
			assert_int_equal(loss_html__write(f, &tlp, 1), 0);
			fclose(f);
			assert_non_null(strstr(svg, "<th>offline (not recorded)</th>"));
			assert_non_null(strstr(svg, "<tr><td>1</td><td>6</td><td>0</td><td>0</td>"
						    "<td>0.000000 s</td><td>0.000001 s</td></tr>"));
			assert_non_null(strstr(svg, "<tr><td>0</td><td>5</td><td>0</td><td>0</td>"
						    "<td>0.000000 s</td><td>0.000000 s</td></tr>"));
			free(svg);
		}
		loss_timeline__exit(&tl);
		loss_stats__exit(&ls);
		perf_reader__close(&r);
	}

	/* Back, but no sample under the new ids: to the last time, and said so. */
	strbuf__init(&d);
	sample(&d, 1, 1000, 0);
	sample(&d, 2, 1200, 1);
	id_index(&d, back, 1);
	sample(&d, 1, 3000, 0);
	write_file_ids(tpath("hotplug2.data"), &d, ids, n);
	strbuf__exit(&d);
	assert_int_equal(perf_reader__open(&r, tpath("hotplug2.data")), 0);
	loss_stats__init(&ls, r.nr_attrs);
	assert_int_equal(perf_reader__for_each_record(&r, add_cb, &ls), 0);
	loss_stats__finish(&ls);
	assert_int_equal(ls.nr_gaps, 1);
	assert_int_equal(ls.gaps[0].start, 1200);
	assert_int_equal(ls.gaps[0].end, 3000);
	assert_true(ls.gaps[0].to_last);
	assert_int_equal(ls.offline_time, 1800);
	loss_stats__exit(&ls);
	perf_reader__close(&r);
}

/* cmd_loss with stdout into out (NULL: discarded) and stderr discarded. */
static int run_to(const char *out_path, int argc, char **argv)
{
	int out = dup(1), err = dup(2), null = open("/dev/null", O_WRONLY);
	int to = out_path ? open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : dup(null);
	int ret;

	fflush(stdout);
	fflush(stderr);
	dup2(to, 1);
	dup2(null, 2);
	close(to);
	ret = cmd_loss(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(out, 1);
	dup2(err, 2);
	close(out);
	close(err);
	close(null);
	return ret;
}

static int run_quiet(int argc, char **argv)
{
	return run_to(NULL, argc, argv);
}

static void test_cmd_exit_codes(void **state)
{
	struct strbuf d;
	char *ok = tpath("cmd.data");

	strbuf__init(&d);
	sample(&d, 1, 100, 0);
	write_file(ok, &d);
	strbuf__exit(&d);

	assert_int_equal(run_quiet(2, (char *[]){ "loss", ok, NULL }), 0);
	assert_int_equal(run_quiet(3, (char *[]){ "loss", "--json", ok, NULL }), 0);
	assert_int_equal(run_quiet(2, (char *[]){ "loss", "--help", NULL }), 0);
	assert_int_equal(run_quiet(2, (char *[]){ "loss", tpath("nope.data"), NULL }), 1);
	assert_int_equal(run_quiet(2, (char *[]){ "loss", "--bogus", NULL }), 2);
	assert_int_equal(run_quiet(4, (char *[]){ "loss", ok, ok, ok, NULL }), 2);
	assert_int_equal(run_quiet(4, (char *[]){ "loss", "--svg", "--json", ok, NULL }), 2);
	assert_int_equal(run_quiet(4, (char *[]){ "loss", "--svg", "--html", ok, NULL }), 2);
	assert_int_equal(run_quiet(3, (char *[]){ "loss", "--svg", ok, NULL }), 0);
	assert_int_equal(run_quiet(3, (char *[]){ "loss", "--html", ok, NULL }), 0);
	assert_int_equal(run_quiet(3, (char *[]){ "loss", ok, tpath("nope.data"), NULL }), 1);
}

/* The whole of a small file. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = xzalloc(1 << 20);
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, (1 << 20) - 1, f);
	assert_true(n < (1 << 20) - 1);
	fclose(f);
	return buf;
}

static void test_cmd_two_files(void **state)
{
	struct strbuf d;
	char *a = tpath("a.data"), *b = tpath("b.data"), *out = tpath("out.txt");
	char *text;

	strbuf__init(&d);
	sample(&d, 1, 100, 0);
	lost(&d, 7, 200, 0, 1);
	sample(&d, 1, 300, 0);
	write_file(a, &d);
	strbuf__reset(&d);
	sample(&d, 2, 1000, 1);
	sample(&d, 2, 1100, 1);
	sample(&d, 2, 1200, 3);
	write_file(b, &d);
	strbuf__exit(&d);

	/* side by side: A's then B's number on each line, per CPU of either */
	assert_int_equal(run_to(out, 3, (char *[]){ "loss", a, b, NULL }), 0);
	text = slurp(out);
	assert_non_null(strstr(text, "A  "));
	assert_non_null(strstr(text, "/a.data\nB  "));
	assert_non_null(strstr(text, "  samples                                   2                    3\n"));
	assert_non_null(strstr(text, "  lost                                      7                    0\n"));
	assert_non_null(strstr(text, "  loss fraction                       77.778%               0.000%\n"));
	assert_non_null(strstr(text, "  lost time fraction                  50.000%               0.000%\n"));
	assert_non_null(strstr(text, "\n  0                   2            0             7             0   "
			       "0.000000100 s             n/a\n"));
	assert_non_null(strstr(text, "\n  1                   0            2             0             0 "));
	assert_non_null(strstr(text, "\n  3                   0            1 "));
	assert_null(strstr(text, "\n  2 "));
	free(text);

	/* JSON: an array of the two objects */
	assert_int_equal(run_to(out, 4, (char *[]){ "loss", "--json", a, b, NULL }), 0);
	text = slurp(out);
	assert_true(text[0] == '[' && strstr(text, "\n},\n{\n") && strstr(text, "\n}\n]\n"));
	free(text);

	/* the picture: two panels on one axis */
	assert_int_equal(run_to(out, 5, (char *[]){ "loss", "--svg", "-i", a, b, NULL }), 0);
	text = slurp(out);
	assert_non_null(strstr(text, "two recordings on one time axis"));
	assert_non_null(strstr(text, ">A: "));
	assert_non_null(strstr(text, ">B: "));
	assert_non_null(strstr(strstr(text, "<g class=\"panel\""), "<g class=\"panel\""));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_union_overlapping_not_summed),
		cmocka_unit_test(test_timeline_two_cpus),
		cmocka_unit_test(test_timeline_first_record_lost),
		cmocka_unit_test(test_timeline_unknown_cpu),
		cmocka_unit_test(test_timeline_no_timestamps),
		cmocka_unit_test(test_file_numbers),
		cmocka_unit_test(test_lost_without_counters),
		cmocka_unit_test(test_hotplug_gap),
		cmocka_unit_test(test_svg_shades_at_lost_records),
		cmocka_unit_test(test_svg_256_cpus),
		cmocka_unit_test(test_svg_rows_bounded),
		cmocka_unit_test(test_cmd_exit_codes),
		cmocka_unit_test(test_cmd_two_files),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
