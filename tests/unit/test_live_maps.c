// SPDX-License-Identifier: GPL-2.0
/*
 * record/live-maps.c: the recorder's map timeline. A block may be unwound
 * only once every feed (each reader's, and the synthesized records') has
 * passed the time it came; a record goes into the timeline only up to the
 * time asked, so that one older, still in another reader's feed, is
 * applied before it, never after.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "record/live-maps.h"
#include "record-builder.h"

/* sample_id_all trailer of these records: {pid,tid} {time} */
#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

/* An MMAP2 of pid, [start, start + 0x1000), name, at time (trailer). */
static void mmap2(struct strbuf *sb, uint32_t pid, uint64_t start, const char *name, uint64_t time)
{
	size_t off = rec_begin(sb, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	uint64_t len = 0x1000, zero = 0;
	char pad[64] = { 0 };

	strbuf__add_u32(sb, pid);
	strbuf__add_u32(sb, pid);
	strbuf__add_u64(sb, start);
	strbuf__add_u64(sb, len);
	strbuf__add_u64(sb, zero);		/* pgoff */
	strbuf__addz(sb, 24);			/* maj, min, ino, ino_generation */
	strbuf__addz(sb, 8);			/* prot, flags */
	strncpy(pad, name, sizeof(pad) - 1);
	strbuf__add(sb, pad, (strlen(name) + 8) & ~7UL);
	strbuf__add_u32(sb, pid);		/* trailer: pid, tid, time */
	strbuf__add_u32(sb, pid);
	strbuf__add_u64(sb, time);
	rec_end(sb, off);
}

static const char *name_at(struct live_maps *lm, uint32_t pid, uint64_t addr, uint64_t t)
{
	struct maps_cursor c;
	const struct map *mp;

	memset(&c, 0, sizeof(c));
	mp = maps__find(lm->maps, &c, pid, addr, t);
	return mp ? mp->dso->name : NULL;
}

static void test_ready_once_every_feed_has_passed(void **state)
{
	struct live_maps lm;

	live_maps__init(&lm, 2, ST);
	assert_false(live_maps__ready(&lm, 5));
	live_maps__fed(&lm, 0, 10);
	live_maps__fed(&lm, 1, 10);
	/* The synthesized records are not all in yet. */
	assert_false(live_maps__ready(&lm, 5));
	live_maps__synth_done(&lm);
	assert_true(live_maps__ready(&lm, 5));
	assert_true(live_maps__ready(&lm, 10));
	/* A reader whose pass began before t holds it back. */
	live_maps__fed(&lm, 1, 20);
	assert_false(live_maps__ready(&lm, 15));
	live_maps__fed(&lm, 0, 15);
	assert_true(live_maps__ready(&lm, 15));
	live_maps__exit(&lm);
}

static void test_records_go_in_up_to_the_time_asked(void **state)
{
	struct live_maps lm;
	struct strbuf a, b, s;

	strbuf__init(&a);
	strbuf__init(&b);
	strbuf__init(&s);
	live_maps__init(&lm, 2, ST);
	mmap2(&s, 7, 0x1000, "/synth", 0);
	live_maps__observe_synth(&lm, s.data, s.len);
	live_maps__synth_done(&lm);
	/* After it is done, a new file's synthesized records are not fed again. */
	live_maps__observe_synth(&lm, s.data, s.len);
	mmap2(&a, 10, 0x5000, "/late", 300);
	live_maps__observe(&lm, 0, a.data, a.len);
	live_maps__advance(&lm, 200);
	assert_string_equal(name_at(&lm, 7, 0x1800, 100), "/synth");
	/* /late (300) waits for a later advance... */
	assert_null(name_at(&lm, 10, 0x5800, 350));
	/* ...behind an older one that came later, from the other reader. */
	mmap2(&b, 10, 0x5000, "/early", 250);
	live_maps__observe(&lm, 1, b.data, b.len);
	live_maps__advance(&lm, 400);
	assert_string_equal(name_at(&lm, 10, 0x5800, 260), "/early");
	assert_string_equal(name_at(&lm, 10, 0x5800, 350), "/late");
	assert_int_equal(maps__nr_dsos(lm.maps), 3);
	live_maps__exit(&lm);
	strbuf__exit(&a);
	strbuf__exit(&b);
	strbuf__exit(&s);
}


static void *feed_later(void *arg)
{
	struct live_maps *lm = arg;

	usleep(20 * 1000);
	live_maps__fed(lm, 1, 100);
	return NULL;
}

/* A stage waiting for the feeds is woken by the reader whose pass makes them ready, not by a poll. */
static void test_wait_is_woken_by_the_last_feed(void **state)
{
	struct live_maps lm;
	pthread_t t;
	uint64_t t0;

	live_maps__init(&lm, 2, ST);
	live_maps__synth_done(&lm);
	live_maps__fed(&lm, 0, 100);
	/* Not ready, and no one feeds: the wait times out and says so. */
	assert_false(live_maps__wait(&lm, 50, 10 * 1000000ULL));
	assert_int_equal(pthread_create(&t, NULL, feed_later, &lm), 0);
	t0 = mono_ns();
	assert_true(live_maps__wait(&lm, 50, 5000 * 1000000ULL));
	assert_true(mono_ns() - t0 < 1000 * 1000000ULL);
	pthread_join(t, NULL);
	live_maps__exit(&lm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready_once_every_feed_has_passed),
		cmocka_unit_test(test_records_go_in_up_to_the_time_asked),
		cmocka_unit_test(test_wait_is_woken_by_the_last_feed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
