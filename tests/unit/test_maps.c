// SPDX-License-Identifier: GPL-2.0
/* unwind/maps.c: the map timeline answers for the time asked, whatever the order of events. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "unwind/maps.h"

static const struct map *find(const struct maps *m, uint32_t pid, uint64_t addr, uint64_t t)
{
	struct maps_cursor c;

	memset(&c, 0, sizeof(c));
	return maps__find(m, &c, pid, addr, t);
}

static const char *name_at(const struct maps *m, uint32_t pid, uint64_t addr, uint64_t t)
{
	const struct map *mp = find(m, pid, addr, t);

	return mp ? mp->dso->name : NULL;
}

static void test_a_map_lives_from_its_time(void **state)
{
	struct maps *m = maps__new();

	maps__add_mmap(m, 10, 100, 0x1000, 0x1000, 0, "/a", NULL, 0, 0);
	maps__seal(m);
	assert_null(find(m, 10, 0x1800, 99));
	assert_string_equal(name_at(m, 10, 0x1800, 100), "/a");
	assert_null(find(m, 10, 0x2000, 200));	/* end is exclusive */
	assert_null(find(m, 11, 0x1800, 200));	/* another process */
	maps__delete(m);
}

static void test_a_later_map_ends_what_it_covers_and_keeps_the_rest(void **state)
{
	struct maps *m = maps__new();
	const struct map *mp;

	/* Events given out of time order: the seal sorts them. */
	maps__add_mmap(m, 10, 200, 0x3000, 0x1000, 0, "/b", NULL, 0, 0);
	maps__add_mmap(m, 10, 100, 0x1000, 0x4000, 0x10000, "/a", NULL, 0, 0);
	maps__seal(m);
	/* Before /b came: /a all over. */
	assert_string_equal(name_at(m, 10, 0x3800, 150), "/a");
	/* After: /b in its range, /a on both sides with its offsets right. */
	assert_string_equal(name_at(m, 10, 0x3800, 250), "/b");
	mp = find(m, 10, 0x1800, 250);
	assert_non_null(mp);
	assert_string_equal(mp->dso->name, "/a");
	assert_int_equal(mp->start, 0x1000);
	assert_int_equal(mp->pgoff, 0x10000);
	mp = find(m, 10, 0x4800, 250);
	assert_non_null(mp);
	assert_string_equal(mp->dso->name, "/a");
	assert_int_equal(mp->start, 0x4000);
	assert_int_equal(mp->pgoff, 0x13000);
	assert_int_equal(maps__nr_dsos(m), 2);
	maps__delete(m);
}

static void test_fork_inherits_and_exec_ends(void **state)
{
	struct maps *m = maps__new();

	maps__add_mmap(m, 10, 100, 0x1000, 0x1000, 0, "/sh", NULL, 0, 0);
	maps__add_fork(m, 20, 10, 150);
	maps__add_mmap(m, 10, 160, 0x5000, 0x1000, 0, "/late", NULL, 0, 0);
	maps__add_exec(m, 20, 300);
	maps__add_mmap(m, 20, 310, 0x1000, 0x1000, 0, "/prog", NULL, 0, 0);
	/* A thread (pid == ppid) shares the address space. */
	maps__add_fork(m, 10, 10, 170);
	maps__seal(m);
	/* The child has the parent's maps of the fork's time, not the later one. */
	assert_string_equal(name_at(m, 20, 0x1800, 200), "/sh");
	assert_null(find(m, 20, 0x5800, 200));
	assert_string_equal(name_at(m, 10, 0x5800, 200), "/late");
	/* exec ends them; the new program's maps follow. */
	assert_null(find(m, 20, 0x1800, 305));
	assert_string_equal(name_at(m, 20, 0x1800, 400), "/prog");
	/* Before the fork, pid 20 had nothing. */
	assert_null(find(m, 20, 0x1800, 120));
	maps__delete(m);
}

static void test_a_pid_used_again_is_a_new_process(void **state)
{
	struct maps *m = maps__new();

	maps__add_mmap(m, 1, 10, 0x9000, 0x1000, 0, "/init", NULL, 0, 0);
	maps__add_mmap(m, 30, 100, 0x1000, 0x1000, 0, "/first", NULL, 0, 0);
	maps__add_fork(m, 30, 1, 500);	/* pid 30 again, a child of pid 1 */
	maps__seal(m);
	assert_string_equal(name_at(m, 30, 0x1800, 200), "/first");
	assert_null(find(m, 30, 0x1800, 600));
	assert_string_equal(name_at(m, 30, 0x9800, 600), "/init");
	maps__delete(m);
}

static void test_the_cursor_answers_as_a_fresh_lookup(void **state)
{
	struct maps *m = maps__new();
	struct maps_cursor c;

	maps__add_mmap(m, 10, 100, 0x1000, 0x1000, 0, "/a", NULL, 0, 0);
	maps__add_mmap(m, 10, 200, 0x1000, 0x1000, 0, "/b", NULL, 0, 0);
	maps__seal(m);
	memset(&c, 0, sizeof(c));
	/* The same page asked at two times: the cached answer must not stick. */
	assert_string_equal(maps__find(m, &c, 10, 0x1100, 250)->dso->name, "/b");
	assert_string_equal(maps__find(m, &c, 10, 0x1100, 150)->dso->name, "/a");
	assert_string_equal(maps__find(m, &c, 10, 0x1100, 250)->dso->name, "/b");
	assert_null(maps__find(m, &c, 11, 0x1100, 250));
	maps__delete(m);
}

static void test_build_ids_by_name_fill_the_dsos_without_one(void **state)
{
	struct maps *m = maps__new();
	struct build_id bid = { .data = { 0xab, 0xcd }, .size = 20 };
	struct build_id own = { .data = { 0x12 }, .size = 20 };

	maps__add_mmap(m, 10, 100, 0x1000, 0x1000, 0, "/lib", NULL, 0, 0);
	maps__add_mmap(m, 10, 100, 0x3000, 0x1000, 0, "/own", &own, 0, 0);
	maps__add_build_id(m, "/lib", &bid);
	maps__add_build_id(m, "/own", &bid);
	maps__seal(m);
	assert_int_equal(find(m, 10, 0x1000, 100)->dso->bid.data[0], 0xab);
	assert_int_equal(find(m, 10, 0x3000, 100)->dso->bid.data[0], 0x12);
	maps__delete(m);
}

/*
 * The recorder's timeline grows while it is read: applied up to a time,
 * more events, applied again. The answers are the sealed timeline's, and
 * a cursor filled before an apply does not answer with a stale map.
 */
static void test_applied_in_steps_answers_as_sealed(void **state)
{
	struct maps *m = maps__new();
	struct maps_cursor c;
	const struct map *mp;

	memset(&c, 0, sizeof(c));
	maps__add_mmap(m, 10, 100, 0x1000, 0x4000, 0, "/a", NULL, 0, 0);
	maps__add_mmap(m, 10, 300, 0x3000, 0x1000, 0, "/c", NULL, 0, 0);
	maps__apply(m, 150);
	/* /c (time 300) waits: at 250 and after, /a all over. */
	assert_string_equal(name_at(m, 10, 0x3800, 250), "/a");
	mp = maps__find(m, &c, 10, 0x3800, 350);
	assert_non_null(mp);
	assert_string_equal(mp->dso->name, "/a");
	/* Came later, older than what waits: applied in time order. */
	maps__add_mmap(m, 10, 200, 0x3000, 0x1000, 0, "/b", NULL, 0, 0);
	maps__add_fork(m, 20, 10, 250);
	maps__apply(m, 400);
	assert_string_equal(name_at(m, 10, 0x3800, 150), "/a");
	assert_string_equal(name_at(m, 10, 0x3800, 250), "/b");
	assert_string_equal(name_at(m, 20, 0x3800, 260), "/b");
	/* The same cursor, same slot: the new answer, not the one it kept. */
	mp = maps__find(m, &c, 10, 0x3800, 350);
	assert_non_null(mp);
	assert_string_equal(mp->dso->name, "/c");
	assert_string_equal(name_at(m, 10, 0x1800, 350), "/a");
	maps__delete(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_map_lives_from_its_time),
		cmocka_unit_test(test_a_later_map_ends_what_it_covers_and_keeps_the_rest),
		cmocka_unit_test(test_fork_inherits_and_exec_ends),
		cmocka_unit_test(test_a_pid_used_again_is_a_new_process),
		cmocka_unit_test(test_the_cursor_answers_as_a_fresh_lookup),
		cmocka_unit_test(test_build_ids_by_name_fill_the_dsos_without_one),
		cmocka_unit_test(test_applied_in_steps_answers_as_sealed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
