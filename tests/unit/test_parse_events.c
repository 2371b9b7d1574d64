// SPDX-License-Identifier: GPL-2.0
/*
 * parse-events.c: names, aliases and modifiers -> attr, raw events,
 * tracepoints, and the error messages users see. Tracepoints are tested
 * against a fake tracefs tree (tracefs_set_tracing_dir), which needs no
 * privileges, and against the real sched:sched_switch when tracefs is
 * there. Expected attrs for modifiers are what perf 6.1 writes for the
 * same -e string (perf report --header-only).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "parse-events.h"
#include "util.h"

#define HINT "(perfcap supports software events (cpu-clock, task-clock, ...), " \
	     "hardware events by name, rNNNN and tracepoints SUBSYS:NAME)"

/* Excludes as a string "ukhGH" of the set bits, so a row reads at a glance. */
struct good_case {
	const char *str;
	__u32 type;
	__u64 config;
	const char *name;
	const char *excl;	/* NULL: perf's default, exclude_guest only */
	int precise;
};

static const struct good_case good_cases[] = {
	/* software events and their aliases: named as typed, like perf */
	{ "cpu-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,	"cpu-clock", NULL, 0 },
	{ "task-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,	"task-clock", NULL, 0 },
	{ "page-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,	"page-faults", NULL, 0 },
	{ "faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,	"faults", NULL, 0 },
	{ "context-switches",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches", NULL, 0 },
	{ "cs",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "cs", NULL, 0 },
	{ "cpu-migrations",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations", NULL, 0 },
	{ "migrations",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "migrations", NULL, 0 },
	{ "minor-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults", NULL, 0 },
	{ "major-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults", NULL, 0 },
	{ "alignment-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment-faults", NULL, 0 },
	{ "emulation-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "emulation-faults", NULL, 0 },
	{ "dummy",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY,	"dummy", NULL, 0 },
	{ "bpf-output",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT,	"bpf-output", NULL, 0 },
	{ "cgroup-switches",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES, "cgroup-switches", NULL, 0 },

	/* hardware events: parsed here, supported or not at open time */
	{ "cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,	"cycles", NULL, 0 },
	{ "cpu-cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,	"cpu-cycles", NULL, 0 },
	{ "instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,	"instructions", NULL, 0 },
	{ "cache-references",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "cache-references", NULL, 0 },
	{ "cache-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,	"cache-misses", NULL, 0 },
	{ "branches",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches", NULL, 0 },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch-instructions", NULL, 0 },
	{ "branch-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses", NULL, 0 },
	{ "bus-cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES,	"bus-cycles", NULL, 0 },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "stalled-cycles-frontend", NULL, 0 },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "idle-cycles-frontend", NULL, 0 },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "stalled-cycles-backend", NULL, 0 },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "idle-cycles-backend", NULL, 0 },
	{ "ref-cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles", NULL, 0 },

	/* raw */
	{ "r1a8",		PERF_TYPE_RAW, 0x1a8,			"r1a8", NULL, 0 },
	{ "r0",			PERF_TYPE_RAW, 0,			"r0", NULL, 0 },
	{ "rC0FFEE",		PERF_TYPE_RAW, 0xc0ffee,		"rC0FFEE", NULL, 0 },
	{ "rfedcba9876543210",	PERF_TYPE_RAW, 0xfedcba9876543210ULL,	"rfedcba9876543210", NULL, 0 },

	/* modifiers, with the attrs perf 6.1 writes for them */
	{ "cpu-clock:u",	PERF_TYPE_SOFTWARE, 0, "cpu-clock:u",	"khG", 0 },
	{ "cs:u",		PERF_TYPE_SOFTWARE, 3, "cs:u",		"khG", 0 },
	{ "cs:k",		PERF_TYPE_SOFTWARE, 3, "cs:k",		"uh", 0 },
	{ "cs:h",		PERF_TYPE_SOFTWARE, 3, "cs:h",		"uk", 0 },
	{ "cs:uk",		PERF_TYPE_SOFTWARE, 3, "cs:uk",		"hG", 0 },
	{ "cs:ku",		PERF_TYPE_SOFTWARE, 3, "cs:ku",		"hG", 0 },
	{ "cs:ukh",		PERF_TYPE_SOFTWARE, 3, "cs:ukh",	"G", 0 },
	{ "cs:G",		PERF_TYPE_SOFTWARE, 3, "cs:G",		"H", 0 },
	{ "cs:H",		PERF_TYPE_SOFTWARE, 3, "cs:H",		"G", 0 },
	{ "cs:p",		PERF_TYPE_SOFTWARE, 3, "cs:p",		"G", 1 },
	{ "cs:pp",		PERF_TYPE_SOFTWARE, 3, "cs:pp",		"G", 2 },
	{ "cs:ppp",		PERF_TYPE_SOFTWARE, 3, "cs:ppp",	"G", 3 },
	{ "cs:up",		PERF_TYPE_SOFTWARE, 3, "cs:up",		"khG", 1 },
	{ "cycles:u",		PERF_TYPE_HARDWARE, 0, "cycles:u",	"khG", 0 },
	{ "cycles:uk",		PERF_TYPE_HARDWARE, 0, "cycles:uk",	"hG", 0 },
	{ "cycles:pp",		PERF_TYPE_HARDWARE, 0, "cycles:pp",	"G", 2 },
	{ "r1a8:k",		PERF_TYPE_RAW, 0x1a8,	"r1a8:k",	"uh", 0 },
};

/* An error: the message must be exactly this (prefix '=') or contain it. */
struct bad_case {
	const char *str;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
	{ "foo",		"=unknown event 'foo' " HINT },
	{ "cpu-clock,foo",	"=unknown event 'foo' " HINT },
	{ "foo:u",		"=unknown event 'foo' " HINT },
	{ ":u",			"=unknown event ':u' " HINT },
	{ "Cycles",		"=unknown event 'Cycles' " HINT },
	{ "cpu-clock-",		"unknown event 'cpu-clock-'" },
	{ "r",			"unknown event 'r'" },
	{ "r1g",		"unknown event 'r1g'" },
	{ "r12345678901234567",	"unknown event 'r12345678901234567'" },
	{ "cs:x",		"=invalid modifier ':x' in event 'cs:x' (modifiers: u, k, h, G, H, p, pp, ppp)" },
	{ "cs:",		"invalid modifier ':' in event 'cs:'" },
	{ "cs:pppp",		"invalid modifier ':pppp'" },
	{ "cycles:u:k",		"invalid modifier ':u:k'" },
	{ "",			"=empty event list" },
	{ "cs,,faults",		"=empty event in list 'cs,,faults'" },
	{ "cs,",		"empty event in list 'cs,'" },
	{ ",cs",		"empty event in list ',cs'" },
	{ "cpu/event=1,umask=2/", "unknown event 'cpu/event=1,umask=2/'" },
	{ "sched:*",		"tracepoint globs are not supported: 'sched:*'" },
	{ "..:x",		"unknown event '..:x'" },
	{ "a/b:c",		"unknown event 'a/b:c'" },
};

static void check_excludes(const struct perf_event_attr *a, const char *excl)
{
	if (!excl)
		excl = "G";
	assert_int_equal(a->exclude_user, !!strchr(excl, 'u'));
	assert_int_equal(a->exclude_kernel, !!strchr(excl, 'k'));
	assert_int_equal(a->exclude_hv, !!strchr(excl, 'h'));
	assert_int_equal(a->exclude_guest, !!strchr(excl, 'G'));
	assert_int_equal(a->exclude_host, !!strchr(excl, 'H'));
}

static void test_good(void **state)
{
	const struct good_case *c = *state;
	struct event_list list;
	char err[256];

	assert_int_equal(parse_events(&list, c->str, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(list.nr, 1);
	assert_int_equal(list.ev[0].attr.type, c->type);
	assert_int_equal(list.ev[0].attr.config, c->config);
	assert_string_equal(list.ev[0].name, c->name);
	assert_false(list.ev[0].tracepoint);
	assert_null(list.ev[0].tp_system);
	check_excludes(&list.ev[0].attr, c->excl);
	assert_int_equal(list.ev[0].attr.precise_ip, c->precise);
	/* The record code owns the rest of the attr. */
	assert_int_equal(list.ev[0].attr.sample_period, 0);
	assert_int_equal(list.ev[0].attr.sample_type, 0);
	event_list__exit(&list);
	assert_int_equal(list.nr, 0);
	assert_null(list.ev);
}

static void test_bad(void **state)
{
	const struct bad_case *c = *state;
	struct event_list list = { .nr = 42 };
	char err[512];

	assert_int_equal(parse_events(&list, c->str, err, sizeof(err)), -EINVAL);
	if (c->msg[0] == '=')
		assert_string_equal(err, c->msg + 1);
	else if (!strstr(err, c->msg))
		fail_msg("error '%s' does not contain '%s'", err, c->msg);
	assert_null(strchr(err, '\n'));
	/* Nothing half-built is left behind. */
	assert_int_equal(list.nr, 0);
	assert_null(list.ev);
}

static void test_list_order(void **state)
{
	struct event_list list;
	char err[256];

	assert_int_equal(parse_events(&list, "cpu-clock,cs:u,faults,r10", err, sizeof(err)), 0);
	assert_int_equal(list.nr, 4);
	assert_string_equal(list.ev[0].name, "cpu-clock");
	assert_string_equal(list.ev[1].name, "cs:u");
	assert_int_equal(list.ev[1].attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	assert_int_equal(list.ev[1].attr.exclude_kernel, 1);
	assert_string_equal(list.ev[2].name, "faults");
	assert_int_equal(list.ev[2].attr.exclude_kernel, 0);
	assert_int_equal(list.ev[3].attr.type, PERF_TYPE_RAW);
	assert_int_equal(list.ev[3].attr.config, 0x10);
	event_list__exit(&list);
	event_list__exit(&list);	/* twice is harmless */
	event_list__exit(NULL);
}

static void test_small_err_buffer(void **state)
{
	struct event_list list;
	char err[8];

	memset(err, 'X', sizeof(err));
	assert_int_equal(parse_events(&list, "foo", err, 5), -EINVAL);
	assert_string_equal(err, "unkn");
	assert_int_equal(err[5], 'X');
}

/* A fake tracefs: DIR/events/SYS/EVENT/id, as the kernel lays it out. */
static char fake_dir[64];

static void fake_tp(const char *sys, const char *event, const char *id)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s", fake_dir, sys);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/%s/%s", fake_dir, sys, event);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", fake_dir, sys, event);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(id, f);
	fclose(f);
}

static int fake_tracefs_setup(void **state)
{
	char path[128];

	strcpy(fake_dir, "/tmp/test_parse_events.XXXXXX");
	if (!mkdtemp(fake_dir))
		return -1;
	snprintf(path, sizeof(path), "%s/events", fake_dir);
	mkdir(path, 0755);
	fake_tp("fake_sys", "fake_ev", "1234\n");
	fake_tp("fake_sys", "bad_id", "garbage\n");
	fake_tp("r1a", "x", "77\n");
	return tracefs_set_tracing_dir(fake_dir);
}

static int fake_tracefs_teardown(void **state)
{
	char cmd[128];

	tracefs_set_tracing_dir(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fake_dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_fake_tracepoint(void **state)
{
	struct event_list list;
	char err[512];

	assert_string_equal(tracefs_path(), fake_dir);
	assert_int_equal(parse_events(&list, "fake_sys:fake_ev", err, sizeof(err)), 0);
	assert_int_equal(list.nr, 1);
	assert_true(list.ev[0].tracepoint);
	assert_int_equal(list.ev[0].attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(list.ev[0].attr.config, 1234);
	assert_string_equal(list.ev[0].name, "fake_sys:fake_ev");
	assert_string_equal(list.ev[0].tp_system, "fake_sys");
	assert_string_equal(list.ev[0].tp_event, "fake_ev");
	check_excludes(&list.ev[0].attr, NULL);
	event_list__exit(&list);
}

/* perf keeps a tracepoint's name without its modifiers; so do we. */
static void test_fake_tracepoint_modifier(void **state)
{
	struct event_list list;
	char err[512];

	assert_int_equal(parse_events(&list, "cs,fake_sys:fake_ev:k", err, sizeof(err)), 0);
	assert_int_equal(list.nr, 2);
	assert_string_equal(list.ev[1].name, "fake_sys:fake_ev");
	assert_int_equal(list.ev[1].attr.config, 1234);
	check_excludes(&list.ev[1].attr, "uh");
	event_list__exit(&list);

	assert_int_equal(parse_events(&list, "fake_sys:fake_ev:q", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "invalid modifier ':q'"));
}

/* r1a looks like a raw event, but "x" is no modifier: a tracepoint. */
static void test_fake_tracepoint_rawlike(void **state)
{
	struct event_list list;
	char err[512];

	assert_int_equal(parse_events(&list, "r1a:x", err, sizeof(err)), 0);
	assert_int_equal(list.ev[0].attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(list.ev[0].attr.config, 77);
	event_list__exit(&list);
}

static void test_fake_tracepoint_missing(void **state)
{
	struct event_list list;
	char err[512], want[512];

	assert_int_equal(parse_events(&list, "fake_sys:nope", err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "tracepoint 'fake_sys:nope' not found in %s/events "
		 "(see %s/available_events)", fake_dir, fake_dir);
	assert_string_equal(err, want);
	assert_int_equal(list.nr, 0);

	assert_int_equal(parse_events(&list, "nosys:fake_ev", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "tracepoint 'nosys:fake_ev' not found in"));

	assert_int_equal(parse_events(&list, "fake_sys:bad_id", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cannot read tracepoint id"));
	assert_non_null(strstr(err, "fake_sys/bad_id/id"));
}

static void test_real_sched_switch(void **state)
{
	const char *dir = tracefs_path();
	struct event_list list;
	char err[512], path[512];
	long long id;
	FILE *f;

	if (!dir) {
		print_message("# tracefs is not available (not mounted; mounting needs root)\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", dir);
	f = fopen(path, "r");
	if (!f) {
		print_message("# cannot read %s: %s\n", path, strerror(errno));
		skip();
	}
	assert_int_equal(fscanf(f, "%lld", &id), 1);
	fclose(f);

	assert_int_equal(parse_events(&list, "sched:sched_switch", err, sizeof(err)), 0);
	assert_int_equal(list.nr, 1);
	assert_int_equal(list.ev[0].attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(list.ev[0].attr.config, id);
	assert_string_equal(list.ev[0].name, "sched:sched_switch");
	assert_true(list.ev[0].tracepoint);
	event_list__exit(&list);

	assert_int_equal(parse_events(&list, "sched:no_such_tracepoint", err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "not found in"));
	assert_non_null(strstr(err, dir));
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_list_order),
		cmocka_unit_test(test_small_err_buffer),
		cmocka_unit_test_setup_teardown(test_fake_tracepoint,
						fake_tracefs_setup, fake_tracefs_teardown),
		cmocka_unit_test_setup_teardown(test_fake_tracepoint_modifier,
						fake_tracefs_setup, fake_tracefs_teardown),
		cmocka_unit_test_setup_teardown(test_fake_tracepoint_rawlike,
						fake_tracefs_setup, fake_tracefs_teardown),
		cmocka_unit_test_setup_teardown(test_fake_tracepoint_missing,
						fake_tracefs_setup, fake_tracefs_teardown),
		cmocka_unit_test(test_real_sched_switch),
	};
	size_t nr = ARRAY_SIZE(fixed) + ARRAY_SIZE(good_cases) + ARRAY_SIZE(bad_cases);
	struct CMUnitTest *tests = calloc(nr, sizeof(*tests));
	char **names = calloc(nr, sizeof(*names));
	size_t i, n = 0;
	int ret;

	if (!tests || !names)
		return 1;
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		tests[n++] = fixed[i];
	for (i = 0; i < ARRAY_SIZE(good_cases); i++, n++) {
		if (asprintf(&names[n], "event '%s'", good_cases[i].str) < 0)
			return 1;
		tests[n].name = names[n];
		tests[n].test_func = test_good;
		tests[n].initial_state = (void *)&good_cases[i];
	}
	for (i = 0; i < ARRAY_SIZE(bad_cases); i++, n++) {
		if (asprintf(&names[n], "reject '%s'", bad_cases[i].str) < 0)
			return 1;
		tests[n].name = names[n];
		tests[n].test_func = test_bad;
		tests[n].initial_state = (void *)&bad_cases[i];
	}
	ret = _cmocka_run_group_tests("parse_events", tests, n, NULL, NULL);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(tests);
	return ret;
}
