// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline.c and the output stage (stage-output.c) over a writer that
 * records what it is given: where FINISHED_ROUND goes (behind the last
 * chunk of a clean pass with data, only when the readers' rounds allow
 * it), a chunk the writer refuses comes back to its producer with the
 * error, a stage added in front changes nothing behind it, the unwind
 * stage holds a block until every reader's feed has passed it, and
 * pipeline__init builds the stages the configuration asks for.
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

#include "format/sample-layout.h"
#include "io/output.h"
#include "perf-file.h"
#include "record/pipeline.h"
#include "record/live-maps.h"
#include "record/rounds.h"
#include "tmpdir.h"

/* A writer that completes at once and keeps each request's offset and bytes. */
struct seen {
	uint64_t off[16];
	size_t len[16];
	char data[16][256];
	int nr;
	int fail_at;		/* the submit that fails with -EIO (1-based); 0: none */
};

static struct seen seen;

static int rec_init(struct writer *w, int max) { return 0; }

static int rec_submit(struct writer *w, struct write_req *req)
{
	if (++seen.nr == seen.fail_at)
		return -EIO;
	seen.off[seen.nr - 1] = req->off;
	seen.len[seen.nr - 1] = req->len;
	memcpy(seen.data[seen.nr - 1], req->buf, MIN(req->len, sizeof(seen.data[0])));
	writer__io_done(w, req, req->len - req->done);
	return 0;
}

static int rec_reap(struct writer *w, bool wait) { return 0; }

static const struct writer_ops rec_ops = {
	.name = "rec", .init = rec_init, .submit = rec_submit, .reap = rec_reap,
};

/* A producer's chunk: 64 bytes of one SAMPLE, room for a marker behind. */
struct fake_chunk {
	struct chunk c;
	char buf[64 + 8];
	int completed, err;
};

static void fake_done(struct write_req *req, int err)
{
	struct fake_chunk *f = req->owner;

	f->completed++;
	f->err = err;
}

static struct chunk *fake(struct fake_chunk *f, unsigned char fill)
{
	struct perf_event_header *h = (void *)f->buf;

	memset(f, 0, sizeof(*f));
	memset(f->buf, fill, 64);
	h->type = PERF_RECORD_SAMPLE;
	h->misc = 0;
	h->size = 64;
	f->c.req.buf = f->buf;
	f->c.req.len = 64;
	f->c.req.owner = f;
	f->c.req.on_complete = fake_done;
	f->c.cap = sizeof(f->buf);
	return &f->c;
}

static uint16_t type_at(int write, size_t off)
{
	struct perf_event_header h;

	memcpy(&h, seen.data[write] + off, sizeof(h));
	return h.type;
}

static struct writer w;
static struct output out;

static int setup(void **state)
{
	memset(&seen, 0, sizeof(seen));
	writer__init(&w, &rec_ops, -1, 16);
	output__init_fd(&out, -1, &w);
	return 0;
}

static int teardown(void **state)
{
	output__close(&out);
	return 0;
}

static void test_round_behind_the_last_chunk_of_a_clean_pass(void **state)
{
	struct stage *os = output_stage__new_on(&out, &w, NULL, 0);
	struct fake_chunk a, b;
	struct chunk *c[2] = { fake(&a, 1), fake(&b, 2) };
	struct pass_end end = { .clean = true, .data = true };

	assert_int_equal(stage__submit(os, c, 2, &end), 0);
	assert_true(end.round);
	assert_int_equal(os->stats.rounds, 1);
	/* Two writes at offsets in order; the marker is in the second, no write of its own. */
	assert_int_equal(seen.nr, 2);
	assert_int_equal(seen.off[0], 0);
	assert_int_equal(seen.off[1], 64);
	assert_int_equal(seen.len[0], 64);
	assert_int_equal(seen.len[1], 72);
	assert_int_equal(type_at(1, 64), PERF_RECORD_FINISHED_ROUND);
	assert_int_equal(output__head(&out), 136);
	/* Both back to their producer, written. */
	assert_int_equal(a.completed + b.completed, 2);
	assert_int_equal(a.err + b.err, 0);
	os->ops->destroy(os);
}

static void test_no_round_without_a_clean_end_with_data(void **state)
{
	struct stage *os = output_stage__new_on(&out, &w, NULL, 0);
	struct pass_end dirty = { .clean = false, .data = true };
	struct pass_end empty = { .clean = true, .data = false };
	struct fake_chunk a, b, c;
	struct chunk *p;

	p = fake(&a, 1);
	assert_int_equal(stage__submit(os, &p, 1, &dirty), 0);
	assert_false(dirty.round);
	p = fake(&b, 2);
	assert_int_equal(stage__submit(os, &p, 1, NULL), 0);
	/* A clean pass that handed nothing over: nothing to put a marker behind. */
	assert_int_equal(stage__submit(os, NULL, 0, &empty), 0);
	p = fake(&c, 3);
	assert_int_equal(stage__submit(os, &p, 1, &empty), 0);
	assert_false(empty.round);
	assert_int_equal(os->stats.rounds, 0);
	assert_int_equal(seen.nr, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(seen.len[i], 64);
	os->ops->destroy(os);
}

static void test_round_waits_for_the_other_reader(void **state)
{
	struct rounds r;
	struct stage *s0, *s1;
	struct fake_chunk a, b, c, d, e;
	struct chunk *p;
	struct pass_end e0 = { .clean = true, .data = true }, e0b = e0, e1 = e0;
	struct pass_end e0c = e0, e1b = e0, e1c = { .clean = true };
	const uint64_t fresh = 10;

	rounds__init(&r, 2, 0, fresh);
	s0 = output_stage__new_on(&out, &w, &r, 0);
	s1 = output_stage__new_on(&out, &w, &r, 1);
	/* At gen 0 every reader counts as clean: reader 0 closes the first round. */
	e0.gen = rounds__begin(&r);
	p = fake(&a, 1);
	assert_int_equal(stage__submit(s0, &p, 1, &e0), 0);
	assert_true(e0.round);
	assert_int_equal(seen.len[0], 72);
	/* Reader 1 has had no clean pass since: reader 0 closes nothing now. */
	e0b.gen = rounds__begin(&r);
	p = fake(&b, 2);
	assert_int_equal(stage__submit(s0, &p, 1, &e0b), 0);
	assert_false(e0b.round);
	assert_int_equal(seen.len[1], 64);
	/* Reader 0's clean pass was published: reader 1's pass closes the round. */
	e1.gen = rounds__begin(&r);
	p = fake(&c, 3);
	assert_int_equal(stage__submit(s1, &p, 1, &e1), 0);
	assert_true(e1.round);
	assert_int_equal(seen.len[2], 72);
	assert_int_equal(type_at(2, 64), PERF_RECORD_FINISHED_ROUND);
	assert_int_equal(atomic_load(&r.gen), 2);
	/* Reader 1 has a clean pass with nothing new, at time 1. */
	e1c.gen = rounds__begin(&r);
	e1c.now = 1;
	assert_int_equal(stage__submit(s1, NULL, 0, &e1c), 0);
	assert_false(e1c.round);
	/*
	 * At fresh + 2 that pass is too old: reader 1's ring may hold what
	 * came since, so reader 0 closes nothing (hotspot's parser would find
	 * it behind its flush), and reader 1 is the one that holds it back.
	 */
	e0c.gen = rounds__begin(&r);
	e0c.now = fresh + 2;
	p = fake(&d, 4);
	assert_int_equal(stage__submit(s0, &p, 1, &e0c), 0);
	assert_false(e0c.round);
	assert_int_equal(seen.len[3], 64);
	int stale[2];
	assert_int_equal(rounds__stale(&r, stale, fresh + 2), 1);
	assert_int_equal(stale[0], 1);
	/* Woken, reader 1's pass finds reader 0's fresh: the round closes. */
	e1b.gen = rounds__begin(&r);
	e1b.now = fresh + 3;
	p = fake(&e, 5);
	assert_int_equal(stage__submit(s1, &p, 1, &e1b), 0);
	assert_true(e1b.round);
	assert_int_equal(type_at(4, 64), PERF_RECORD_FINISHED_ROUND);
	s0->ops->destroy(s0);
	s1->ops->destroy(s1);
	rounds__exit(&r);
}

static void test_refused_chunk_comes_back_with_the_error(void **state)
{
	struct stage *os = output_stage__new_on(&out, &w, NULL, 0);
	struct fake_chunk a, b;
	struct chunk *c[2] = { fake(&a, 1), fake(&b, 2) };
	struct pass_end end = { .clean = true, .data = true };

	seen.fail_at = 2;
	assert_int_equal(stage__submit(os, c, 2, &end), -EIO);
	assert_int_equal(a.completed, 1);
	assert_int_equal(a.err, 0);
	/* Not taken by the writer: its producer has it back, with the error. */
	assert_int_equal(b.completed, 1);
	assert_int_equal(b.err, -EIO);
	os->ops->destroy(os);
}

/* A stage of the test's own in front of the output stage: it counts and passes on. */
struct counting {
	struct stage stage;
	int chunks, ends;
};

static int count_submit(struct stage *s, struct chunk **c, int n, struct pass_end *end)
{
	struct counting *k = (struct counting *)s;

	k->chunks += n;
	k->ends += end != NULL;
	return stage__submit(s->next, c, n, end);
}

static int count_reap(struct stage *s, bool wait) { return stage__reap(s->next, wait); }
static int count_queued(const struct stage *s) { return s->next->ops->queued(s->next); }
static void count_destroy(struct stage *s) { }

static const struct stage_ops counting_ops = {
	.name = "counting", .submit = count_submit, .reap = count_reap,
	.queued = count_queued, .destroy = count_destroy,
};

static void test_a_stage_in_front_changes_nothing_behind(void **state)
{
	struct stage *os = output_stage__new_on(&out, &w, NULL, 0);
	struct counting k = { .stage = { .ops = &counting_ops, .next = os } };
	struct fake_chunk a, b;
	struct chunk *c[2] = { fake(&a, 1), fake(&b, 2) };
	struct pass_end end = { .clean = true, .data = true };

	assert_int_equal(stage__submit(&k.stage, c, 2, &end), 0);
	assert_int_equal(k.chunks, 2);
	assert_int_equal(k.ends, 1);
	assert_true(end.round);
	assert_int_equal(seen.len[1], 72);
	assert_int_equal(stage__reap(&k.stage, false), 0);
	assert_int_equal(k.stage.ops->queued(&k.stage), 0);
	os->ops->destroy(os);
}


/*
 * --unwind: a block's samples may need a MMAP still in another reader's
 * rings. The unwind stage hands nothing on until every feed has said a
 * pass that began after the block came; then the block goes on as it was
 * (it holds no DWARF sample), with its pass end.
 */
static void test_unwind_stage_waits_for_every_feed(void **state)
{
	struct stage *os = output_stage__new_on(&out, &w, NULL, 0), *us;
	struct live_maps lm;
	struct sample_layouts ls;
	struct unwind_stage_config cfg = { .live = &lm, .max_stack = 127,
					   .arch = unwind_arch__find("x86_64") };
	struct fake_chunk a;
	struct chunk *c = fake(&a, 1);
	struct pass_end end = { .clean = true, .data = true };
	int waited_ms = 0;

	struct perf_event_attr attr = { .sample_type = PERF_SAMPLE_IP };

	/* One event without stacks: the block's sample goes on as it is. */
	sample_layouts__init(&ls);
	sample_layouts__add(&ls, &attr, NULL, 0);
	live_maps__init(&lm, 2, PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
	live_maps__synth_done(&lm);
	live_maps__fed(&lm, 0, UINT64_MAX);
	us = unwind_stage__new(os, &out, &ls, &cfg, 4, 0);
	assert_non_null(us);
	assert_int_equal(us->ops->start(us, 0), 0);
	assert_int_equal(stage__submit(us, &c, 1, &end), 0);
	/* Reader 1 has made no pass since: nothing goes on. */
	usleep(50 * 1000);
	assert_int_equal(stage__reap(us, false), 0);
	assert_int_equal(seen.nr, 0);
	assert_int_equal(a.completed, 0);
	assert_int_equal(us->ops->queued(us), 1);
	live_maps__fed(&lm, 1, mono_ns());
	while (!a.completed && waited_ms++ < 2000) {
		usleep(1000);
		stage__reap(us, false);
	}
	assert_int_equal(a.completed, 1);
	assert_int_equal(a.err, 0);
	assert_int_equal(us->ops->drain(us), 0);
	/* The block as it was, and the round behind it (one reader: rounds NULL). */
	assert_int_equal(seen.nr, 1);
	assert_int_equal(seen.len[0], 72);
	assert_memory_equal(seen.data[0], a.buf, 64);
	assert_int_equal(type_at(0, 64), PERF_RECORD_FINISHED_ROUND);
	us->ops->destroy(us);
	os->ops->destroy(os);
	live_maps__exit(&lm);
	sample_layouts__exit(&ls);
}

static void test_init_builds_what_the_config_asks_for(void **state)
{
	struct output file;
	struct writer fw;
	struct pipeline p;
	struct sample_layouts ls;
	struct pipeline_config cfg = {
		.out = &file, .ops = &writer_sync_ops, .max_chunks = 4, .ring_size = 4096,
	};
	int fd = open(tpath("p.data"), O_RDWR | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	writer__init(&fw, &writer_sync_ops, fd, 4);
	output__init_fd(&file, fd, &fw);
	assert_int_equal(pipeline__init(&p, &cfg), 0);
	assert_string_equal(p.head->ops->name, "output");
	assert_null(p.head->next);
	pipeline__exit(&p);
	cfg.comp_level = 1;
	assert_int_equal(pipeline__init(&p, &cfg), 0);
	assert_string_equal(p.head->ops->name, "compress");
	assert_string_equal(p.head->next->ops->name, "output");
	assert_null(p.head->next->next);
	assert_int_equal(pipeline__start(&p), 0);
	assert_int_equal(pipeline__drain(&p), 0);
	assert_int_equal(pipeline__queued(&p), 0);
	pipeline__exit(&p);
	assert_null(p.head);
	/* -zauto: the triage stage in front of the compression stage it may switch to. */
	sample_layouts__init(&ls);
	cfg.comp_auto = true;
	cfg.budget = 1 << 20;
	cfg.layouts = &ls;
	assert_int_equal(pipeline__init(&p, &cfg), 0);
	assert_string_equal(p.head->ops->name, "triage");
	assert_string_equal(p.head->next->ops->name, "compress");
	assert_string_equal(p.head->next->next->ops->name, "output");
	assert_int_equal(pipeline__start(&p), 0);
	assert_int_equal(pipeline__drain(&p), 0);
	pipeline__exit(&p);
	/* ... which needs the triage stage: without one, -zauto is -z's pipeline. */
	cfg.budget = 0;
	assert_int_equal(pipeline__init(&p, &cfg), 0);
	assert_string_equal(p.head->ops->name, "compress");
	pipeline__exit(&p);
	sample_layouts__exit(&ls);
	output__close(&file);
	writer__exit(&fw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_behind_the_last_chunk_of_a_clean_pass,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_round_without_a_clean_end_with_data,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_waits_for_the_other_reader, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refused_chunk_comes_back_with_the_error,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_stage_in_front_changes_nothing_behind,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_unwind_stage_waits_for_every_feed, setup,
						teardown),
		cmocka_unit_test(test_init_builds_what_the_config_asks_for),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
