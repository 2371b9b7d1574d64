// SPDX-License-Identifier: GPL-2.0
/*
 * evlist.c without the kernel: the evsels and groups made from a parsed
 * event list, and what evlist__apply_event_config() does over
 * evlist__config()'s defaults (terms, P, groups, leader sampling), with
 * the attrs perf 6.1 writes for the same -e (perf evlist -v).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "record-opts.h"
#include "events/evlist-config.h"
#include "events/evlist.h"
#include "events/parse-events.h"
#include "util.h"

static void build(struct evlist *el, const char *events, bool group_all)
{
	struct event_list list = { 0 };
	struct record_opts opts;
	char err[256];

	memset(&opts, 0, sizeof(opts));
	evlist__init(el);
	if (parse_events__add(&list, events, NULL, err, sizeof(err)))
		fail_msg("'%s': %s", events, err);
	if (group_all)
		parse_events__group_all(&list);
	evlist__add_events(el, &list);
	event_list__exit(&list);
	evlist__config(el, &opts, true);
	evlist__apply_event_config(el);
}

static struct evsel *named(struct evlist *el, const char *name)
{
	struct evsel *e;

	evlist__for_each_evsel(el, e)
		if (!strcmp(e->name, name))
			return e;
	fail_msg("no event '%s'", name);
	return NULL;
}

static void test_terms(void **state)
{
	struct evlist el;
	struct evsel *cs, *f;

	build(&el, "software/period=1,name=cs,config=0x3/Duk,software/config=2,freq=99/", false);
	cs = named(&el, "cs");
	assert_int_equal(cs->attr.sample_period, 1);
	assert_int_equal(cs->attr.freq, 0);
	assert_int_equal(cs->attr.pinned, 1);
	assert_int_equal(cs->attr.config, 3);
	f = named(&el, "software/config=2,freq=99/");
	assert_int_equal(f->attr.sample_freq, 99);
	assert_int_equal(f->attr.freq, 1);
	assert_int_equal(evlist__nr_groups(&el), 0);
	evlist__exit(&el);

	build(&el, "cpu-clock:P", false);
	assert_int_equal(el.evsels[0]->attr.precise_ip, 3);
	evlist__exit(&el);
}

static void test_leader_sampling(void **state)
{
	struct evlist el;
	struct evsel *l, *m;

	build(&el, "{cpu-clock,task-clock}:S", false);
	l = named(&el, "cpu-clock");
	m = named(&el, "task-clock");
	assert_ptr_equal(m->leader, l);
	assert_int_equal(l->nr_members, 2);
	assert_int_equal(evlist__nr_groups(&el), 1);
	/* the leader samples and reads the group; no inherit with group reads */
	assert_true(l->attr.sample_type & PERF_SAMPLE_READ);
	assert_true(l->attr.read_format & PERF_FORMAT_GROUP);
	assert_true(l->attr.read_format & PERF_FORMAT_ID);
	assert_int_equal(l->attr.inherit, 0);
	assert_int_equal(l->attr.freq, 1);
	assert_int_equal(l->attr.disabled, 1);
	/* the member does not sample, is enabled with its leader, follows its sample_type */
	assert_int_equal(m->attr.sample_period, 0);
	assert_int_equal(m->attr.freq, 0);
	assert_int_equal(m->attr.disabled, 0);
	assert_int_equal(m->attr.enable_on_exec, 0);
	assert_true((m->attr.sample_type & l->attr.sample_type) == l->attr.sample_type);
	assert_true(m->attr.read_format & PERF_FORMAT_GROUP);
	evlist__exit(&el);

	/* a member with its own period keeps sampling, as in perf */
	build(&el, "{cpu-clock,task-clock/period=1000/}:S", false);
	m = el.evsels[1];
	assert_int_equal(m->attr.sample_period, 1000);
	assert_int_equal(m->attr.freq, 0);
	evlist__exit(&el);
}

static void test_groups_without_S(void **state)
{
	struct evlist el;

	build(&el, "{cpu-clock,task-clock},cs", false);
	assert_int_equal(evlist__nr_groups(&el), 1);
	/* no group read without S: each samples, inherit stays (perf evlist -v) */
	assert_false(el.evsels[0]->attr.read_format & PERF_FORMAT_GROUP);
	assert_int_equal(el.evsels[0]->attr.inherit, 1);
	assert_int_equal(el.evsels[1]->attr.freq, 1);
	assert_int_equal(el.evsels[1]->attr.disabled, 0);
	assert_int_equal(el.evsels[2]->attr.disabled, 1);
	assert_ptr_equal(el.evsels[2]->leader, el.evsels[2]);
	evlist__exit(&el);

	/* --group: the whole list */
	build(&el, "cpu-clock,task-clock,cs", true);
	assert_int_equal(evlist__nr_groups(&el), 1);
	assert_int_equal(el.evsels[0]->nr_members, 3);
	assert_ptr_equal(el.evsels[2]->leader, el.evsels[0]);
	evlist__exit(&el);
}

static void test_single_S(void **state)
{
	struct evlist el;

	/* cpu-clock:S: READ and ID, no GROUP, inherit kept (perf 6.1) */
	build(&el, "cpu-clock:S", false);
	assert_true(el.evsels[0]->attr.sample_type & PERF_SAMPLE_READ);
	assert_true(el.evsels[0]->attr.sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER));
	assert_false(el.evsels[0]->attr.read_format & PERF_FORMAT_GROUP);
	assert_int_equal(el.evsels[0]->attr.inherit, 1);
	evlist__exit(&el);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_terms),
		cmocka_unit_test(test_leader_sampling),
		cmocka_unit_test(test_groups_without_S),
		cmocka_unit_test(test_single_S),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
