// SPDX-License-Identifier: GPL-2.0
/*
 * mmap.c on a fake ring in ordinary memory: copies across the wrap, the
 * tail release, back-pressure when every buffer is in flight, a ring put
 * off instead of waited for (and the round it keeps open), and a ring
 * that lives until its last late write completes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/mmap.h"
#include "record/record-thread.h"
#include "io/output.h"
#include "perf-file.h"

#define PAGE 4096
#define RING 4096

/* A writer that holds requests until the test lets them complete. */
struct late {
	struct write_req *q[64];
	int nr;
	int reaps;
	char *file;		/* what was "written", by offset */
	size_t file_size;
};

static struct late late;

static int late_init(struct writer *w, int max) { return 0; }

static int late_submit(struct writer *w, struct write_req *req)
{
	late.q[late.nr++] = req;
	return 0;
}

/* Completes the oldest request; each wait completes exactly one. */
static int late_reap(struct writer *w, bool wait)
{
	struct write_req *req;

	late.reaps++;
	if (!late.nr || !wait)
		return 0;
	req = late.q[0];
	memmove(late.q, late.q + 1, --late.nr * sizeof(late.q[0]));
	if (req->off + req->len > late.file_size) {
		late.file = realloc(late.file, req->off + req->len);
		memset(late.file + late.file_size, 0, req->off + req->len - late.file_size);
		late.file_size = req->off + req->len;
	}
	memcpy(late.file + req->off + req->done, (char *)req->buf + req->done,
	       req->len - req->done);
	writer__io_done(w, req, req->len - req->done);
	return 1;
}

static const struct writer_ops late_ops = {
	.name = "late", .init = late_init, .submit = late_submit, .reap = late_reap,
};

/* The pass takes the rings of one reader as an array of pointers. */
static struct mmap **ptrs(struct mmap *m, int n)
{
	static struct mmap *p[8];

	for (int i = 0; i < n; i++)
		p[i] = &m[i];
	return p;
}

#include "fake-ring.h"

/* Kernel side: write a record of size len at head, wrapping. */
static void fake_put(struct fake *f, uint16_t type, uint16_t len, unsigned char fill)
{
	unsigned char rec[512];
	struct perf_event_header *h = (void *)rec;
	uint64_t head = f->pc->data_head;

	memset(rec, fill, len);
	h->type = type;
	h->misc = 0;
	h->size = len;
	for (int i = 0; i < len; i++)
		f->data[(head + i) & (RING - 1)] = rec[i];
	__atomic_store_n(&f->pc->data_head, head + len, __ATOMIC_RELEASE);
}

static struct writer w;
static struct output out;
static struct stage *os;	/* the output stage over the late writer */
static int released;

/* A filled buffer handed down the pipeline on its own. */
static int hand_on(struct mmap_buf *b)
{
	struct chunk *c = mmap__hand_over(b);

	return stage__submit(os, &c, 1, NULL);
}

static void on_release(struct mmap *m) { released++; }

static int setup(void **state)
{
	memset(&late, 0, sizeof(late));
	writer__init(&w, &late_ops, -1, 64);
	output__init_fd(&out, -1, &w);
	os = output_stage__new_on(&out, &w, NULL, 0);
	released = 0;
	return 0;
}

static int teardown(void **state)
{
	free(late.file);
	os->ops->destroy(os);
	output__close(&out);
	return 0;
}

static void test_copy_across_wrap(void **state)
{
	struct fake f;
	struct mmap m;
	struct mmap_buf *b = NULL;
	unsigned char expect[RING];

	fake_init(&f);
	assert_int_equal(mmap__init_fake(&m, f.mem, PAGE, RING, 2), 0);
	/* Fill to 4000 bytes, consume them, so the next record straddles the end. */
	for (int i = 0; i < 10; i++)
		fake_put(&f, PERF_RECORD_SAMPLE, 400, i);
	assert_int_equal(pass__copy_ring(&m, os, false, &b), 4000);
	assert_int_equal(f.pc->data_tail, 4000);
	hand_on(b);
	late_reap(&w, true);

	fake_put(&f, PERF_RECORD_SAMPLE, 296, 0xab); /* 4000..4296: wraps at 4096 */
	assert_int_equal(mmap__ready(&m), 296);
	b = NULL;
	assert_int_equal(pass__copy_ring(&m, os, false, &b), 296);
	/* The tail is released at once, before any write. */
	assert_int_equal(f.pc->data_tail, 4296);
	memset(expect, 0xab, 296);
	((struct perf_event_header *)expect)->type = PERF_RECORD_SAMPLE;
	((struct perf_event_header *)expect)->misc = 0;
	((struct perf_event_header *)expect)->size = 296;
	assert_memory_equal(b->data, expect, 296);
	assert_int_equal(b->state, MMAP_BUF_FILLED);
	hand_on(b);
	late_reap(&w, true);
	assert_int_equal(m.bytes, 4296);
	/* Nothing new: nothing copied. */
	assert_int_equal(pass__copy_ring(&m, os, false, &b), 0);
	mmap__close(&m);
	free(f.mem);
}

/* --mmap-flush: a ring holding less than flush bytes is left for later; 0 takes all. */
static void test_flush_waits_for_enough(void **state)
{
	struct fake f;
	struct mmap m;
	struct mmap_buf *b = NULL;

	(void)state;
	fake_init(&f);
	assert_int_equal(mmap__init_fake(&m, f.mem, PAGE, RING, 2), 0);
	m.flush = 1000;
	fake_put(&f, PERF_RECORD_SAMPLE, 400, 1);
	fake_put(&f, PERF_RECORD_SAMPLE, 400, 2);
	assert_int_equal(pass__copy_ring(&m, os, false, &b), 0);
	assert_int_equal(f.pc->data_tail, 0);	/* the kernel keeps it */
	fake_put(&f, PERF_RECORD_SAMPLE, 400, 3);
	assert_int_equal(pass__copy_ring(&m, os, false, &b), 1200);
	assert_int_equal(f.pc->data_tail, 1200);
	hand_on(b);
	late_reap(&w, true);
	/* The last pass: flush 0, the few bytes left go too. */
	fake_put(&f, PERF_RECORD_SAMPLE, 8, 4);
	b = NULL;
	assert_int_equal(pass__copy_ring(&m, os, false, &b), 0);
	m.flush = 0;
	assert_int_equal(pass__copy_ring(&m, os, false, &b), 8);
	hand_on(b);
	late_reap(&w, true);
	mmap__close(&m);
	free(f.mem);
}

static void test_backpressure_waits_for_a_buffer(void **state)
{
	struct fake f;
	struct mmap m;

	fake_init(&f);
	mmap__init_fake(&m, f.mem, PAGE, RING, 2);
	for (int i = 0; i < 3; i++) {
		fake_put(&f, PERF_RECORD_SAMPLE, 64, i);
		assert_int_equal(pass__push(&m, os), 64);
	}
	/* Two buffers: the third push had to wait for the first write. */
	assert_int_equal(m.nr_waits, 1);
	assert_int_equal(late.nr, 2);
	assert_int_equal(m.nr_free, 0);
	/* Offsets were reserved in push order, back to back. */
	assert_int_equal(late.q[0]->off, 64);
	assert_int_equal(late.q[1]->off, 128);
	while (late.nr)
		late_reap(&w, true);
	assert_int_equal(m.nr_free, 2);
	/* Every byte landed where its offset said. */
	for (int i = 0; i < 3; i++)
		assert_int_equal(late.file[i * 64 + 8], i);
	mmap__close(&m);
	free(f.mem);
}

static void test_busy_ring_is_put_off_until_half_full(void **state)
{
	struct fake f;
	struct mmap m;
	struct mmap_buf *b = NULL;

	fake_init(&f);
	mmap__init_fake(&m, f.mem, PAGE, RING, 1);
	fake_put(&f, PERF_RECORD_SAMPLE, 64, 1);
	assert_int_equal(pass__push(&m, os), 64);
	/* The only buffer is in flight and the ring nearly empty: put off. */
	fake_put(&f, PERF_RECORD_SAMPLE, 400, 2);
	assert_int_equal(pass__copy_ring(&m, os, true, &b), -EAGAIN);
	assert_null(b);
	assert_int_equal(m.nr_defers, 1);
	assert_int_equal(m.nr_waits, 0);
	assert_int_equal(f.pc->data_tail, 64);	/* nothing released */
	assert_int_equal(late.nr, 1);		/* nothing completed */
	/* 2000 of 4096 bytes: still put off. */
	for (int i = 0; i < 4; i++)
		fake_put(&f, PERF_RECORD_SAMPLE, 400, 3);
	assert_int_equal(pass__copy_ring(&m, os, true, &b), -EAGAIN);
	assert_int_equal(m.nr_defers, 2);
	/* 2400: past half full, it waits for the write and copies. */
	fake_put(&f, PERF_RECORD_SAMPLE, 400, 4);
	assert_int_equal(pass__copy_ring(&m, os, true, &b), 2400);
	assert_int_equal(m.nr_waits, 1);
	assert_int_equal(f.pc->data_tail, 2464);
	/* Each time it found data, counted by how full the ring was, in eighths. */
	{
		const uint64_t fill[8] = { 2, 0, 0, 1, 1, 0, 0, 0 };	/* 64, 400; 2000; 2400 */

		assert_memory_equal(m.nr_fill, fill, sizeof(fill));
	}
	hand_on(b);
	late_reap(&w, true);
	mmap__close(&m);
	free(f.mem);
}

/*
 * The type of the last record in the chunk a buffer handed on, whose
 * records are all `size` long.
 */
static uint16_t last_type(struct mmap_buf *b, size_t size)
{
	struct perf_event_header *h = (void *)((char *)b->chunk.req.buf + b->chunk.req.len - size);

	return h->type;
}

/* Kernel side: len bytes of 512-byte (and one shorter) SAMPLE records. */
static void fake_put_bytes(struct fake *f, size_t len, unsigned char fill)
{
	for (; len; len -= MIN(len, 512))
		fake_put(f, PERF_RECORD_SAMPLE, MIN(len, 512), fill);
}

#define BIG 2560	/* over half the ring: written by the pass that copies it */

static void test_pass_closes_a_round_only_when_no_ring_was_put_off(void **state)
{
	struct fake f[2];
	struct mmap m[2];
	struct mmap_buf *slots[2];
	struct pass p = { .bufs = slots, .stage = os };

	for (int i = 0; i < 2; i++) {
		fake_init(&f[i]);
		mmap__init_fake(&m[i], f[i].mem, PAGE, RING, 1);
		fake_put_bytes(&f[i], BIG, i);
	}
	/* Both rings read: the round closes after the second chunk. */
	assert_int_equal(pass__copy(ptrs(m, 2), 2, &p, true), 2 * BIG);
	assert_int_equal(pass__submit(&p, 0), 0);
	assert_true(p.round);
	assert_int_equal(late.q[1]->len, BIG + 8);
	assert_int_equal(last_type(slots[1], 8), PERF_RECORD_FINISHED_ROUND);
	/* Ring 0's write completes, ring 1's does not: ring 1 is put off. */
	late_reap(&w, true);
	fake_put_bytes(&f[0], BIG, 2);
	fake_put(&f[1], PERF_RECORD_SAMPLE, 64, 3);
	assert_int_equal(pass__copy(ptrs(m, 2), 2, &p, true), BIG);
	assert_int_equal(p.deferred, 1);
	assert_int_equal(pass__submit(&p, 0), 0);
	assert_false(p.round);
	assert_int_equal(late.q[1]->len, BIG);
	assert_int_equal(last_type(slots[0], 512), PERF_RECORD_SAMPLE);
	/* A pass that may not put a ring off waits instead and closes the round. */
	late_reap(&w, true);
	assert_int_equal(pass__copy(ptrs(m, 2), 2, &p, false), 64);
	assert_int_equal(p.deferred, 0);
	assert_int_equal(pass__submit(&p, 0), 0);
	assert_true(p.round);
	assert_int_equal(last_type(slots[0], 8), PERF_RECORD_FINISHED_ROUND);
	while (late.nr)
		late_reap(&w, true);
	for (int i = 0; i < 2; i++) {
		mmap__close(&m[i]);
		free(f[i].mem);
	}
}

static void test_small_chunks_wait_in_their_buffer(void **state)
{
	struct fake f;
	struct mmap m;
	struct mmap_buf *slot;
	struct pass p = { .bufs = &slot, .stage = os };

	fake_init(&f);
	mmap__init_fake(&m, f.mem, PAGE, RING, 2);
	/* A small chunk is copied out (the ring is released) but kept. */
	fake_put(&f, PERF_RECORD_SAMPLE, 64, 1);
	assert_int_equal(pass__copy(ptrs(&m, 1), 1, &p, true), 64);
	assert_int_equal(pass__submit(&p, 0), 0);
	assert_int_equal(f.pc->data_tail, 64);
	assert_int_equal(p.held, 1);
	assert_false(p.round);
	assert_int_equal(late.nr, 0);
	/* The next copy goes behind it, in the same buffer. */
	fake_put(&f, PERF_RECORD_SAMPLE, 64, 2);
	assert_int_equal(pass__copy(ptrs(&m, 1), 1, &p, true), 64);
	assert_int_equal(slot->fresh, 64);
	assert_int_equal(slot->len, 128);
	assert_int_equal(pass__submit(&p, 0), 0);
	assert_int_equal(late.nr, 0);
	/*
	 * With two buffers a chunk is kept until the buffer is full: half
	 * the ring is kept too.
	 */
	fake_put_bytes(&f, 2000, 3);
	assert_int_equal(pass__copy(ptrs(&m, 1), 1, &p, true), 2000);
	assert_int_equal(slot->len, 2128);
	assert_int_equal(pass__submit(&p, 0), 0);
	assert_int_equal(p.held, 1);
	assert_false(p.round);
	assert_int_equal(late.nr, 0);
	/*
	 * What does not fit behind a kept chunk makes it go first; the copy
	 * takes the other buffer and is kept in turn.
	 */
	fake_put_bytes(&f, 2000, 4);
	assert_int_equal(pass__copy(ptrs(&m, 1), 1, &p, true), 2000);
	assert_int_equal(late.nr, 1);
	assert_int_equal(late.q[0]->len, 2128);
	assert_int_equal(pass__submit(&p, 0), 0);
	assert_int_equal(p.held, 1);
	assert_int_equal(late.nr, 1);
	late_reap(&w, true);
	assert_int_equal(late.file[8], 1);
	assert_int_equal(late.file[64 + 8], 2);
	assert_int_equal(late.file[128 + 8], 3);
	/* A buffer filled to the ring's size is written at once. */
	fake_put_bytes(&f, RING - 2000, 5);
	assert_int_equal(pass__copy(ptrs(&m, 1), 1, &p, true), RING - 2000);
	assert_int_equal(pass__submit(&p, 0), 0);
	assert_int_equal(p.held, 0);
	assert_true(p.round);
	assert_int_equal(late.nr, 1);
	assert_int_equal(late.q[0]->len, RING + 8);
	late_reap(&w, true);
	/* A pass that may not keep chunks writes a small one at once. */
	fake_put(&f, PERF_RECORD_SAMPLE, 64, 6);
	assert_int_equal(pass__copy(ptrs(&m, 1), 1, &p, false), 64);
	assert_int_equal(pass__submit(&p, 0), 0);
	assert_int_equal(late.nr, 1);
	assert_int_equal(late.q[0]->len, 64 + 8);
	late_reap(&w, true);
	mmap__close(&m);
	free(f.mem);

	/*
	 * A ring with one buffer (--aio) keeps small chunks too; once the
	 * kept chunks are written, the ring is put off while that write is
	 * in flight and the ring under half full.
	 */
	fake_init(&f);
	mmap__init_fake(&m, f.mem, PAGE, RING, 1);
	fake_put(&f, PERF_RECORD_SAMPLE, 64, 7);
	assert_int_equal(pass__copy(ptrs(&m, 1), 1, &p, true), 64);
	assert_int_equal(pass__submit(&p, 0), 0);
	assert_int_equal(p.held, 1);
	assert_false(p.round);
	assert_int_equal(late.nr, 0);
	assert_int_equal(f.pc->data_tail, 64);
	fake_put_bytes(&f, 2000, 8);
	assert_int_equal(pass__copy(ptrs(&m, 1), 1, &p, true), 2000);
	assert_int_equal(pass__submit(&p, 0), 0);
	assert_int_equal(p.held, 0);
	assert_true(p.round);
	assert_int_equal(late.nr, 1);
	assert_int_equal(late.q[0]->len, 2064 + 8);
	fake_put(&f, PERF_RECORD_SAMPLE, 64, 9);
	assert_int_equal(pass__copy(ptrs(&m, 1), 1, &p, true), 0);
	assert_int_equal(p.deferred, 1);
	late_reap(&w, true);
	mmap__close(&m);
	free(f.mem);
}

static void test_ring_lives_until_late_write_completes(void **state)
{
	struct fake f;
	struct mmap m;

	fake_init(&f);
	mmap__init_fake(&m, f.mem, PAGE, RING, 2);
	m.on_release = on_release;
	fake_put(&f, PERF_RECORD_SAMPLE, 128, 7);
	assert_int_equal(pass__push(&m, os), 128);
	assert_int_equal(m.refcnt, 2);
	mmap__close(&m);
	/* Closed, but a write is in flight: still held, buffers still there. */
	assert_int_equal(released, 0);
	assert_non_null(m.bufs);
	assert_int_equal(((unsigned char *)late.q[0]->buf)[8], 7);
	late_reap(&w, true);
	assert_int_equal(released, 1);
	assert_null(m.bufs);
	free(f.mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copy_across_wrap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush_waits_for_enough, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backpressure_waits_for_a_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_ring_is_put_off_until_half_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pass_closes_a_round_only_when_no_ring_was_put_off,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_small_chunks_wait_in_their_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_lives_until_late_write_completes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
