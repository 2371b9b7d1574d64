// SPDX-License-Identifier: GPL-2.0
/*
 * stage-triage.c in front of a stage that holds what it is given until
 * told to let go (an output that is behind): the reader's chunks come
 * back at once; with the budget full, samples are dropped and counted in
 * LOST_SAMPLES records (misc USER, the sample's id trailer), records
 * other than samples never; the samples kept carry the periods of the
 * dropped, so the sum of periods stays right. In front of a stage that
 * writes in its submit (stage_ops.direct), the reader's chunks go
 * straight on, trimmed in place, once the stage's thread has written one
 * quickly, until a write is slow.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/sample-layout.h"
#include "io/output.h"
#include "perf-file.h"
#include "record/pipeline.h"
#include "util.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_STACK_USER)
#define PERIOD 1000
#define STACK 512

/* The next stage: keeps every chunk's bytes; completes them only when let go. */
struct holder {
	struct stage stage;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool hold;
	struct write_req *held[64];
	int nr_held;
	struct strbuf got;
	/*
	 * A stage that writes in its submit (direct): the reader's own
	 * submit number slow_at is slow, and with slow_copies every one of
	 * the thread's.
	 */
	bool direct, slow_copies;
	int slow_at;
	double copy_rate;		/* the thread's submits take len / copy_rate s, if set */
	pthread_t reader;		/* the thread that submits to the triage stage */
	const void *reader_buf;		/* the reader's chunk buffer */
	int straight, copied;		/* chunks the reader handed on itself; the thread's copies */
	int calls;			/* submits with chunks */
	long gap_ns;			/* run(): the reader sleeps this long between chunks */
	size_t ring;			/* run(): the reader's buffer, RING if 0 */
};

static void let_go_locked(struct holder *h)
{
	for (int i = 0; i < h->nr_held; i++)
		h->held[i]->on_complete(h->held[i], 0);
	h->nr_held = 0;
}

static int h_submit(struct stage *s, struct chunk **c, int n, struct pass_end *end)
{
	struct holder *h = container_of(s, struct holder, stage);

	pthread_mutex_lock(&h->lock);
	h->calls += n > 0;
	for (int i = 0; i < n; i++) {
		bool mine = pthread_equal(pthread_self(), h->reader);

		strbuf__add(&h->got, c[i]->req.buf, c[i]->req.len);
		h->held[h->nr_held++] = &c[i]->req;
		if (!h->direct)
			continue;
		/* The reader's own buffer from the reader's thread, or a copy from the stage's. */
		assert_true(mine == (c[i]->req.buf == h->reader_buf));
		if (mine ? h->straight++ == h->slow_at : (h->copied++, h->slow_copies)) {
			struct timespec ts = { 0, 3 * TRIAGE_SLOW_MS * 1000000L };

			nanosleep(&ts, NULL);
		}
		if (!mine && h->copy_rate) {
			long ns = c[i]->req.len / h->copy_rate * 1e9;
			struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

			nanosleep(&ts, NULL);
		}
	}
	if (!h->hold)
		let_go_locked(h);
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static int h_reap(struct stage *s, bool wait)
{
	struct holder *h = container_of(s, struct holder, stage);

	pthread_mutex_lock(&h->lock);
	while (wait && h->hold && h->nr_held)
		pthread_cond_wait(&h->cv, &h->lock);
	if (!h->hold)
		let_go_locked(h);
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static int h_queued(const struct stage *s)
{
	return container_of(s, struct holder, stage)->nr_held;
}

static void h_destroy(struct stage *s) { }

static bool h_direct(const struct stage *s)
{
	return container_of(s, struct holder, stage)->direct;
}

static const struct stage_ops holder_ops = {
	.name = "holder", .submit = h_submit, .reap = h_reap, .queued = h_queued,
	.direct = h_direct, .destroy = h_destroy,
};

static void release(struct holder *h)
{
	pthread_mutex_lock(&h->lock);
	h->hold = false;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->lock);
}

/* The reader's chunk: a buffer of records and a count of its completions. */
struct rchunk {
	struct chunk c;
	int completed;
	char buf[];
};
/* The reader's buffer, a ring's worth, unless the test sets holder.ring. */
#define RING 16384

static void r_done(struct write_req *req, int err)
{
	((struct rchunk *)req->owner)->completed++;
}

static void add_u64(struct strbuf *sb, uint64_t v)
{
	strbuf__add(sb, &v, 8);
}

/* A sample of id, time t: stack STACK bytes, dyn_size 64; then a COMM. */
static void add_pair(struct strbuf *sb, uint64_t id, uint64_t t)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER,
				       .size = 8 + 6 * 8 + 8 + STACK + 8 };
	struct perf_event_header comm = { .type = PERF_RECORD_COMM, .size = 8 + 8 + 8 + 5 * 8 };
	char pad[STACK] = { 0 };

	strbuf__add(sb, &h, sizeof(h));
	add_u64(sb, id);
	add_u64(sb, 0x401000);
	add_u64(sb, 7ULL | 7ULL << 32);
	add_u64(sb, t);
	add_u64(sb, 1);
	add_u64(sb, PERIOD);
	add_u64(sb, STACK);
	strbuf__add(sb, pad, STACK);
	add_u64(sb, 64);
	strbuf__add(sb, &comm, sizeof(comm));
	add_u64(sb, 7ULL | 7ULL << 32);
	strbuf__add(sb, "true\0\0\0\0", 8);
	/* sample_id_all trailer: tid, time, cpu, identifier */
	add_u64(sb, 7ULL | 7ULL << 32);
	add_u64(sb, t);
	add_u64(sb, 1);
	add_u64(sb, id);
	add_u64(sb, 0);
}

struct tally {
	uint64_t samples, comms, lost, lost_records, periods, other;
	uint64_t stack_bytes;
	uint64_t last_time;
	bool unordered;		/* a sample older than the one before it */
};

static void count(const struct strbuf *sb, struct tally *t)
{
	size_t at = 0;

	memset(t, 0, sizeof(*t));
	while (at + 8 <= sb->len) {
		struct perf_event_header h;
		uint64_t v;

		memcpy(&h, sb->data + at, 8);
		assert_true(h.size >= 8 && at + h.size <= sb->len);
		if (h.type == PERF_RECORD_SAMPLE) {
			t->samples++;
			memcpy(&v, sb->data + at + 8 + 5 * 8, 8);
			t->periods += v;
			memcpy(&v, sb->data + at + 8 + 6 * 8, 8);
			t->stack_bytes += v;
			memcpy(&v, sb->data + at + 8 + 3 * 8, 8);
			t->unordered |= v < t->last_time;
			t->last_time = v;
		} else if (h.type == PERF_RECORD_COMM) {
			t->comms++;
		} else if (h.type == PERF_RECORD_LOST_SAMPLES) {
			assert_int_equal(h.misc, PERF_RECORD_MISC_USER);
			memcpy(&v, sb->data + at + 8, 8);
			t->lost += v;
			t->lost_records++;
			/* The trailer: tid, time, cpu, then the id of the event. */
			memcpy(&v, sb->data + at + 8 + 8 + 3 * 8, 8);
			assert_int_equal(v, 42);
		} else {
			t->other++;
		}
		at += h.size;
	}
	assert_int_equal(at, sb->len);
}

static void run(struct holder *h, struct stage *t, int chunks, int pairs, bool hold_first)
{
	size_t ring = h->ring ? h->ring : RING;
	struct rchunk *rc = calloc(1, sizeof(*rc) + ring);
	uint64_t time = 1;

	h->reader = pthread_self();
	h->reader_buf = rc->buf;

	for (int i = 0; i < chunks; i++) {
		struct strbuf sb = { 0 };
		struct chunk *c = &rc->c;
		struct pass_end end = { .clean = true, .data = true, .gen = (uint64_t)i, .now = time };

		for (int p = 0; p < pairs; p++)
			add_pair(&sb, 42, time++);
		assert_true(sb.len <= ring);
		memcpy(rc->buf, sb.data, sb.len);
		rc->c.req = (struct write_req){ .buf = rc->buf, .len = sb.len, .owner = rc,
						.on_complete = r_done };
		rc->c.cap = ring;
		rc->completed = 0;
		assert_int_equal(stage__submit(t, &c, 1, &end), 0);
		/* Back at once, whatever the output does. */
		assert_int_equal(rc->completed, 1);
		strbuf__exit(&sb);
		if (h->gap_ns) {
			struct timespec ts = { 0, h->gap_ns };

			nanosleep(&ts, NULL);
		}
	}
	if (hold_first)
		release(h);
	assert_int_equal(t->ops->drain(t), 0);
	free(rc);
}

static void holder_init(struct holder *h, bool hold, bool direct)
{
	memset(h, 0, sizeof(*h));
	h->stage.ops = &holder_ops;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cv, NULL);
	h->hold = hold;
	h->direct = direct;
	h->slow_at = -1;
}

/*
 * The stage in front of h; with z (-zauto) in front of z, a holder that
 * stands for the compression stage, in front of h.
 */
static void setup_stages(struct holder *h, struct holder *z, struct output *out,
			 struct sample_layouts *ls, struct stage **t, size_t budget, bool hold,
			 bool direct)
{
	struct perf_event_attr a = { .sample_type = ST, .sample_id_all = 1 };
	uint64_t id = 42;

	holder_init(h, hold, direct);
	if (z) {
		holder_init(z, false, false);
		z->stage.next = &h->stage;
	}
	memset(out, 0, sizeof(*out));
	sample_layouts__init(ls);
	sample_layouts__add(ls, &a, &id, 1);
	*t = triage_stage__new(z ? &z->stage : &h->stage, out, ls, budget, 2, 0, z != NULL);
	assert_non_null(*t);
	assert_int_equal((*t)->ops->start(*t, 0), 0);
}

static void setup_stage(struct holder *h, struct output *out, struct sample_layouts *ls,
			struct stage **t, size_t budget, bool hold, bool direct)
{
	setup_stages(h, NULL, out, ls, t, budget, hold, direct);
}

static void teardown_stage(struct holder *h, struct sample_layouts *ls, struct stage *t)
{
	t->ops->destroy(t);
	sample_layouts__exit(ls);
	strbuf__exit(&h->got);
}

static void test_output_keeping_up_keeps_everything_trimmed(void **state)
{
	struct holder h;
	struct output out;
	struct sample_layouts ls;
	struct stage *t;
	struct tally n;

	setup_stage(&h, &out, &ls, &t, 1 << 20, false, false);
	run(&h, t, 20, 10, false);
	count(&h.got, &n);
	assert_int_equal(n.samples, 200);
	assert_int_equal(n.comms, 200);
	assert_int_equal(n.lost, 0);
	assert_int_equal(n.periods, 200 * PERIOD);
	/* Every stack cut to its 64 bytes of dyn_size. */
	assert_int_equal(n.stack_bytes, 200 * 64);
	assert_int_equal(t->stats.dropped, 0);
	teardown_stage(&h, &ls, t);
}

static void test_behind_drops_samples_only_and_says_so(void **state)
{
	struct holder h;
	struct output out;
	struct sample_layouts ls;
	struct stage *t;
	struct tally n;

	/*
	 * 64 KiB, and the output takes nothing until the end: 40 chunks of
	 * 10 samples and 10 COMMs make 77 KiB, so it fills (and the COMMs
	 * alone stay under the 72 KiB at which the reader would wait).
	 */
	setup_stage(&h, &out, &ls, &t, 64 << 10, true, false);
	run(&h, t, 40, 10, true);
	count(&h.got, &n);
	/* Every COMM is there; samples were dropped and counted. */
	assert_int_equal(n.comms, 400);
	assert_true(n.samples < 400);
	assert_true(n.lost > 0);
	assert_int_equal(n.samples + n.lost, 400);
	assert_int_equal(t->stats.dropped, n.lost);
	/* Stacks were cut to TRIAGE_CUT_STACK or less: here dyn_size, 64. */
	assert_true(n.stack_bytes <= n.samples * 64);
	teardown_stage(&h, &ls, t);
}

/*
 * An output that writes in its submit and keeps up: once the thread has
 * written a chunk quickly, nothing is copied. The first chunk is the
 * thread's: the reader never tries an output first. A pass every 2 ms
 * gives the thread time to write it.
 */
static void test_writing_output_keeping_up_gets_the_readers_chunks(void **state)
{
	struct holder h;
	struct output out;
	struct sample_layouts ls;
	struct stage *t;
	struct tally n;

	setup_stage(&h, &out, &ls, &t, 1 << 20, false, true);
	h.gap_ns = 2 * 1000000L;
	run(&h, t, 20, 10, false);
	count(&h.got, &n);
	assert_true(h.copied >= 1);
	assert_true(h.straight >= 10);
	assert_int_equal(h.straight + h.copied, 20);
	assert_int_equal(t->stats.direct, h.straight);
	assert_int_equal(t->stats.direct_pauses, 0);
	/* The same records as through the copy: everything, stacks trimmed in place. */
	assert_int_equal(n.samples, 200);
	assert_int_equal(n.comms, 200);
	assert_int_equal(n.periods, 200 * PERIOD);
	assert_int_equal(n.stack_bytes, 200 * 64);
	teardown_stage(&h, &ls, t);
}

/* One slow write of the reader's: the chunks after it are copied and written by the stage's thread. */
static void test_a_slow_write_sends_the_chunks_to_the_thread(void **state)
{
	struct holder h;
	struct output out;
	struct sample_layouts ls;
	struct stage *t;
	struct tally n;

	setup_stage(&h, &out, &ls, &t, 1 << 20, false, true);
	h.slow_at = 1;
	h.gap_ns = 2 * 1000000L;
	run(&h, t, 20, 10, false);
	count(&h.got, &n);
	assert_int_equal(h.straight, 2);
	assert_int_equal(h.copied, 18);
	assert_int_equal(t->stats.direct, 2);
	assert_int_equal(t->stats.direct_pauses, 1);
	/* In order, nothing lost either way. */
	assert_int_equal(n.samples, 200);
	assert_int_equal(n.comms, 200);
	assert_int_equal(n.stack_bytes, 200 * 64);
	teardown_stage(&h, &ls, t);
}

/*
 * An output slow from the start (a network filesystem): the thread finds
 * it slow, and the reader never writes to it itself, not even once.
 */
static void test_a_slow_output_is_never_the_readers(void **state)
{
	struct holder h;
	struct output out;
	struct sample_layouts ls;
	struct stage *t;
	struct tally n;

	setup_stage(&h, &out, &ls, &t, 1 << 20, false, true);
	h.slow_copies = true;
	h.gap_ns = 2 * 1000000L;
	run(&h, t, 20, 10, false);
	count(&h.got, &n);
	assert_int_equal(h.straight, 0);
	assert_int_equal(h.copied, 20);
	assert_int_equal(t->stats.direct, 0);
	assert_int_equal(n.samples, 200);
	assert_int_equal(n.comms, 200);
	teardown_stage(&h, &ls, t);
}

/*
 * A slow link that takes each write under TRIAGE_SLOW_MS (chunks of 100
 * samples, 20 KiB trimmed, at 16 MB/s: 1.3 ms each): at that speed the
 * reader's 256 KiB would take 16 ms, so the thread never vouches for it.
 */
static void test_a_slow_link_is_judged_by_a_whole_chunk(void **state)
{
	struct holder h;
	struct output out;
	struct sample_layouts ls;
	struct stage *t;

	setup_stage(&h, &out, &ls, &t, 4 << 20, false, true);
	h.copy_rate = 16e6;
	h.ring = 256 << 10;
	h.gap_ns = 2 * 1000000L;
	run(&h, t, 20, 100, false);
	assert_int_equal(h.straight, 0);
	assert_int_equal(h.copied, 20);
	teardown_stage(&h, &ls, t);
}

/*
 * A writer that holds its requests (aio, io_uring): the chunks of the
 * passes of TRIAGE_HOLD_MS gather into one block and go on in one
 * submit, in order; a pass every millisecond makes about one submit in
 * ten, not one a pass.
 */
static void test_blocks_gather_for_a_writer_that_holds_requests(void **state)
{
	struct holder h;
	struct output out;
	struct sample_layouts ls;
	struct stage *t;
	struct tally n;
	uint64_t t0;
	long ms;

	setup_stage(&h, &out, &ls, &t, 1 << 20, false, false);
	h.gap_ns = 1000000;
	/* A block is a ring's buffer large: one of 256 KiB takes every chunk of a hold. */
	h.ring = 256 << 10;
	t0 = mono_ns();
	run(&h, t, 20, 10, false);
	ms = (long)((mono_ns() - t0) / 1000000);
	count(&h.got, &n);
	/* One submit per hold, and one for the last: not one a chunk (unless the passes were slow). */
	assert_in_range(h.calls, 1, ms / TRIAGE_HOLD_MS + 2);
	assert_false(n.unordered);
	assert_int_equal(n.samples, 200);
	assert_int_equal(n.comms, 200);
	assert_int_equal(n.stack_bytes, 200 * 64);
	teardown_stage(&h, &ls, t);
}

/*
 * -zauto (compress_when_behind): while the output keeps up, the blocks
 * and the reader's own chunks go past the compression stage; nothing
 * reaches it.
 */
static void test_auto_compresses_nothing_while_the_output_keeps_up(void **state)
{
	struct holder h, z;
	struct output out;
	struct sample_layouts ls;
	struct stage *t;
	struct tally n;

	setup_stages(&h, &z, &out, &ls, &t, 1 << 20, false, true);
	h.gap_ns = 2 * 1000000L;
	run(&h, t, 20, 10, false);
	count(&h.got, &n);
	assert_int_equal(z.calls, 0);
	assert_int_equal(z.got.len, 0);
	assert_int_equal(n.samples, 200);
	assert_int_equal(n.comms, 200);
	/* The reader wrote past it too, as without -zauto. */
	assert_true(h.straight > 0);
	assert_int_equal(t->stats.compressing, 0);
	teardown_stage(&h, &ls, t);
	strbuf__exit(&z.got);
}

/*
 * -zauto with an output that falls behind (200 KB/s for 2 MB/s of
 * records): the first blocks go past the compression stage; once more
 * than a TRIAGE_AUTO_DIV-th of the budget waits, every later one goes
 * through it, for good, and the stream stays whole and in order: what
 * went past, then what went through.
 */
static void test_auto_compresses_from_when_the_output_falls_behind(void **state)
{
	struct holder h, z;
	struct output out;
	struct sample_layouts ls;
	struct stage *t;
	struct tally past, through, all;
	struct strbuf both = { 0 };

	setup_stages(&h, &z, &out, &ls, &t, 1 << 20, false, true);
	h.copy_rate = 200e3;
	h.gap_ns = 1000000L;
	run(&h, t, 100, 10, false);
	count(&h.got, &past);
	count(&z.got, &through);
	assert_true(past.samples > 0);
	assert_true(through.samples > 0);
	assert_int_equal(t->stats.compressing, 1);
	strbuf__add(&both, h.got.data, h.got.len);
	strbuf__add(&both, z.got.data, z.got.len);
	count(&both, &all);
	assert_false(all.unordered);
	assert_int_equal(all.comms, 1000);
	assert_int_equal(all.samples + all.lost, 1000);
	/* Nothing of the reader's own: the output was slow from the start. */
	assert_int_equal(h.straight, 0);
	strbuf__exit(&both);
	teardown_stage(&h, &ls, t);
	strbuf__exit(&z.got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_keeping_up_keeps_everything_trimmed),
		cmocka_unit_test(test_behind_drops_samples_only_and_says_so),
		cmocka_unit_test(test_writing_output_keeping_up_gets_the_readers_chunks),
		cmocka_unit_test(test_a_slow_write_sends_the_chunks_to_the_thread),
		cmocka_unit_test(test_a_slow_output_is_never_the_readers),
		cmocka_unit_test(test_a_slow_link_is_judged_by_a_whole_chunk),
		cmocka_unit_test(test_blocks_gather_for_a_writer_that_holds_requests),
		cmocka_unit_test(test_auto_compresses_nothing_while_the_output_keeps_up),
		cmocka_unit_test(test_auto_compresses_from_when_the_output_falls_behind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
