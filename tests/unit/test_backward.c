// SPDX-License-Identifier: GPL-2.0
/*
 * backward.c on a fake ring written the way the kernel writes a
 * write_backward ring: each record below the one before, data_head going
 * down from 0, the oldest overwritten. A snapshot holds the newest
 * records first, back to the oldest one that is whole and new since the
 * last snapshot; a ring no snapshot is due on is left alone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "record/backward.h"
#include "record/mmap.h"
#include "record/record-thread.h"

#define PAGE 4096
#define RING 4096

#include "fake-ring.h"

/* Kernel side: a record of len bytes carrying seq, written below data_head. */
static void kwrite(struct fake *f, uint16_t len, uint64_t seq)
{
	unsigned char rec[1024];
	struct perf_event_header *h = (void *)rec;
	uint64_t head = f->pc->data_head - len;

	memset(rec, (int)(seq & 0xff), len);
	h->type = PERF_RECORD_SAMPLE;
	h->misc = 0;
	h->size = len;
	memcpy(rec + sizeof(*h), &seq, sizeof(seq));
	for (int i = 0; i < len; i++)
		f->data[(head + i) & (RING - 1)] = rec[i];
	__atomic_store_n(&f->pc->data_head, head, __ATOMIC_RELEASE);
}

static void ring_init(struct fake *f, struct mmap *m, int nr_bufs)
{
	fake_init(f);
	assert_int_equal(mmap__init_fake(m, f->mem, PAGE, RING, nr_bufs), 0);
	m->backward = true;
}

/* The seqs of the records in buf[0, len), in order; how many. Fails on a bad record. */
static int seqs(const void *data, size_t len, uint64_t *out, int max)
{
	const unsigned char *buf = data;
	int n = 0;

	for (size_t off = 0; off < len;) {
		const struct perf_event_header *h = (const void *)(buf + off);
		uint64_t seq;

		assert_true(h->size >= 16 && off + h->size <= len);
		assert_int_equal(h->type, PERF_RECORD_SAMPLE);
		memcpy(&seq, buf + off + sizeof(*h), sizeof(seq));
		/* The body is whole: every byte after the seq is the record's own. */
		for (size_t i = 16; i < h->size; i++)
			assert_int_equal(buf[off + i], seq & 0xff);
		assert_true(n < max);
		out[n++] = seq;
		off += h->size;
	}
	return n;
}

static void give_back(struct mmap_buf *b)
{
	struct mmap *m = b->map;

	if (m->filling == b)
		m->filling = NULL;
	b->state = MMAP_BUF_FREE;
	m->nr_free++;
}

static void test_no_snapshot_due_leaves_the_ring_alone(void **state)
{
	struct fake f;
	struct mmap m;
	struct mmap_buf *b = NULL;

	ring_init(&f, &m, 1);
	for (int i = 0; i < 3; i++)
		kwrite(&f, 64, i);
	/* The readers' ordinary pass goes by it: no copy, nothing consumed. */
	assert_int_equal(pass__copy_ring(&m, NULL, false, &b), 0);
	assert_null(b);
	assert_int_equal(m.prev, 0);
	assert_int_equal(m.nr_free, 1);
	assert_int_equal(m.bytes, 0);
	mmap__close(&m);
	free(f.mem);
}

static void test_snapshot_newest_first(void **state)
{
	struct fake f;
	struct mmap m;
	struct mmap_buf *b = NULL;
	uint64_t s[16];

	ring_init(&f, &m, 1);
	kwrite(&f, 64, 1);
	kwrite(&f, 128, 2);
	kwrite(&f, 32, 3);
	assert_int_equal(f.pc->data_head, (uint64_t)-224);
	backward__snapshot(&m);
	assert_true(m.snap_due);
	assert_int_equal(pass__copy_ring(&m, NULL, false, &b), 224);
	assert_non_null(b);
	assert_int_equal(b->state, MMAP_BUF_FILLED);
	assert_int_equal(seqs(b->data, b->len, s, 16), 3);
	assert_int_equal(s[0], 3);
	assert_int_equal(s[1], 2);
	assert_int_equal(s[2], 1);
	/* Read once: the ring goes on, and the next snapshot stops here. */
	assert_false(m.snap_due);
	assert_int_equal(m.prev, (uint64_t)-224);
	/* The kernel's data_tail is not ours to move (the ring is read-only). */
	assert_int_equal(f.pc->data_tail, 0);
	give_back(b);
	/* A snapshot with nothing new copies nothing. */
	backward__snapshot(&m);
	b = NULL;
	assert_int_equal(backward__copy(&m, &b), 0);
	assert_null(b);
	assert_false(m.snap_due);
	mmap__close(&m);
	free(f.mem);
}

static void test_wrapped_ring_keeps_the_newest_whole_records(void **state)
{
	struct fake f;
	struct mmap m;
	struct mmap_buf *b = NULL;
	uint64_t s[64];
	int n;

	ring_init(&f, &m, 1);
	/* 100 records of 136 bytes: 3.3 rings; 136 does not divide 4096, so
	 * the oldest record still partly there is cut and one straddles the end. */
	for (int i = 0; i < 100; i++)
		kwrite(&f, 136, i);
	assert_int_equal(backward__range(f.data, RING, f.pc->data_head, 0), 30 * 136);
	backward__snapshot(&m);
	assert_int_equal(backward__copy(&m, &b), 30 * 136);
	n = seqs(b->data, b->len, s, 64);
	assert_int_equal(n, 30);
	for (int i = 0; i < n; i++)
		assert_int_equal(s[i], 99 - i);
	/* Paused to be copied (more than half the ring), and let go after. */
	assert_false(m.paused);
	mmap__close(&m);
	free(f.mem);
}

static void test_next_snapshot_takes_only_what_is_new(void **state)
{
	struct fake f;
	struct mmap m;
	struct mmap_buf *b = NULL;
	uint64_t s[64];
	int n;

	ring_init(&f, &m, 1);
	for (int i = 0; i < 10; i++)
		kwrite(&f, 200, i);
	backward__snapshot(&m);
	assert_int_equal(backward__copy(&m, &b), 2000);
	give_back(b);
	/* Five more: the second snapshot holds those five, none of the first ten. */
	for (int i = 10; i < 15; i++)
		kwrite(&f, 200, i);
	backward__snapshot(&m);
	b = NULL;
	assert_int_equal(backward__copy(&m, &b), 1000);
	n = seqs(b->data, b->len, s, 64);
	assert_int_equal(n, 5);
	assert_int_equal(s[0], 14);
	assert_int_equal(s[4], 10);
	give_back(b);
	/* Then more than the ring, sizes mixed: whole records, newest first, all new. */
	for (int i = 15; i < 115; i++)
		kwrite(&f, i % 2 ? 72 : 248, i);
	backward__snapshot(&m);
	b = NULL;
	assert_true(backward__copy(&m, &b) > RING - 248);
	assert_true(b->len <= RING);
	n = seqs(b->data, b->len, s, 64);
	assert_true(n > 10);
	for (int i = 0; i < n; i++)
		assert_int_equal(s[i], 114 - i);
	mmap__close(&m);
	free(f.mem);
}

static void test_never_written_space_ends_the_walk(void **state)
{
	unsigned char data[RING] = { 0 };
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 64 };

	/* Two records at the top of an otherwise empty ring, claimed older than one ring. */
	memcpy(data + RING - 128, &h, sizeof(h));
	memcpy(data + RING - 64, &h, sizeof(h));
	assert_int_equal(backward__range(data, RING, (uint64_t)-128, (uint64_t)RING * 4), 128);
	/* A header that is no record's (size not a multiple of 8) ends it too. */
	h.size = 12;
	memcpy(data, &h, sizeof(h));
	assert_int_equal(backward__range(data, RING, (uint64_t)-128, (uint64_t)RING * 4), 128);
}

static void test_paused_only_when_the_copy_could_be_written_over(void **state)
{
	uint64_t big = BACKWARD_UNPAUSED_MIN;

	/* Half the ring is the room for what the kernel writes meanwhile. */
	assert_true(backward__unpaused_ok(big, 1000, 0));
	assert_true(backward__unpaused_ok(big, 1000, big / 2 - 1000));
	assert_false(backward__unpaused_ok(big, 1000, big / 2 - 999));
	assert_false(backward__unpaused_ok(big, big, 0));
	assert_false(backward__unpaused_ok(big, big / 2 + 8, 0));
	/* Records still being written could reach across a small ring's half. */
	assert_false(backward__unpaused_ok(big / 2, 8, 0));
	assert_false(backward__unpaused_ok(RING, 8, 0));
}

static void test_every_buffer_in_flight_waits(void **state)
{
	struct fake f;
	struct mmap m;
	struct mmap_buf *b = NULL, *held;

	ring_init(&f, &m, 1);
	kwrite(&f, 64, 1);
	backward__snapshot(&m);
	assert_int_equal(backward__copy(&m, &b), 64);
	held = b;
	held->state = MMAP_BUF_INFLIGHT;	/* handed on, not written yet */
	m.filling = NULL;
	kwrite(&f, 64, 2);
	backward__snapshot(&m);
	b = NULL;
	assert_int_equal(backward__copy(&m, &b), -ENOBUFS);
	/* Still due (and paused) until a buffer comes back. */
	assert_true(m.snap_due);
	give_back(held);
	assert_int_equal(backward__copy(&m, &b), 64);
	assert_false(m.snap_due);
	mmap__close(&m);
	free(f.mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_snapshot_due_leaves_the_ring_alone),
		cmocka_unit_test(test_snapshot_newest_first),
		cmocka_unit_test(test_wrapped_ring_keeps_the_newest_whole_records),
		cmocka_unit_test(test_next_snapshot_takes_only_what_is_new),
		cmocka_unit_test(test_never_written_space_ends_the_walk),
		cmocka_unit_test(test_paused_only_when_the_copy_could_be_written_over),
		cmocka_unit_test(test_every_buffer_in_flight_waits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
