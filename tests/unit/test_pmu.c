// SPDX-License-Identifier: GPL-2.0
/*
 * pmu.c and the PMU/terms/ syntax of parse-events.c against a fake sysfs
 * in a temporary directory: a "cpu" PMU with AMD's split event field
 * ("config:0-7,32-35"), Intel-style umask/edge/cmask, a config1 field,
 * event aliases (with the .scale/.unit files beside them), and a PMU with
 * a format file perf could not read either.
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

#include "events/parse-events.h"
#include "events/pmu.h"
#include "tmpdir.h"
#include "util.h"

static void put(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s", tmpdir, rel);
	/* mkdir -p the directories */
	for (slash = strchr(path + strlen(tmpdir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int fake_sysfs_setup(void **state)
{
	if (tmpdir_setup(state))
		return -1;
	put("cpu/type", "4\n");
	put("cpu/format/event", "config:0-7,32-35\n");
	put("cpu/format/umask", "config:8-15\n");
	put("cpu/format/edge", "config:18\n");
	put("cpu/format/inv", "config:23\n");
	put("cpu/format/cmask", "config:24-31\n");
	put("cpu/format/ldlat", "config1:0-15\n");
	put("cpu/format/fe", "config2:0-23\n");
	put("cpu/events/cpu-cycles", "event=0x76\n");
	put("cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	put("cpu/events/mem-loads.scale", "1\n");
	put("cpu/events/mem-loads.unit", "ns\n");
	put("software/type", "1\n");
	put("broken/type", "11\n");
	put("broken/format/event", "confg:0-7\n");
	put("notype/format/event", "config:0-7\n");
	pmu__set_sysfs_root(tmpdir);
	return 0;
}

static int fake_sysfs_teardown(void **state)
{
	pmu__set_sysfs_root(NULL);
	return tmpdir_teardown(state);
}

static void test_format_parse(void **state)
{
	struct pmu_format f;

	assert_int_equal(pmu_format__parse(&f, "config:0-7,21"), 0);
	assert_int_equal(f.word, 0);
	assert_int_equal(f.bits, 0xffULL | 1ULL << 21);
	assert_int_equal(pmu_format__parse(&f, "config1:0-63"), 0);
	assert_int_equal(f.word, 1);
	assert_true(f.bits == ~0ULL);
	assert_int_equal(pmu_format__parse(&f, "config2:5"), 0);
	assert_int_equal(f.word, 2);
	assert_int_equal(f.bits, 1ULL << 5);
	assert_int_equal(pmu_format__parse(&f, "config:0-7,32-35 "), 0);
	assert_true(f.bits == (0xffULL | 0xfULL << 32));

	assert_int_equal(pmu_format__parse(&f, "config3:1"), -EINVAL);
	assert_int_equal(pmu_format__parse(&f, "config:7-3"), -EINVAL);
	assert_int_equal(pmu_format__parse(&f, "config:64"), -EINVAL);
	assert_int_equal(pmu_format__parse(&f, "config"), -EINVAL);
	assert_int_equal(pmu_format__parse(&f, "config:a"), -EINVAL);
	assert_int_equal(pmu_format__parse(&f, "config:1,"), -EINVAL);
	assert_int_equal(pmu_format__parse(&f, "config:1-"), -EINVAL);
}

static void test_format_apply(void **state)
{
	struct pmu_format f;
	uint64_t cfg[3] = { 0 }, max = 0;

	/* perf's order: the value's low bits into the format's low bits */
	assert_int_equal(pmu_format__parse(&f, "config:0-7,32-35"), 0);
	assert_int_equal(pmu_format__apply(&f, 0x1ff, cfg, &max), 0);
	assert_true(cfg[0] == (0xffULL | 1ULL << 32));
	/* a second value replaces the field, nothing else */
	cfg[0] |= 1ULL << 20;
	assert_int_equal(pmu_format__apply(&f, 0x3c, cfg, &max), 0);
	assert_true(cfg[0] == (0x3cULL | 1ULL << 20));
	assert_int_equal(pmu_format__apply(&f, 0x1000, cfg, &max), -ERANGE);
	assert_int_equal(max, 0xfff);
	assert_int_equal(pmu_format__parse(&f, "config1:0-63"), 0);
	assert_int_equal(pmu_format__apply(&f, ~0ULL, cfg, &max), 0);
	assert_true(cfg[1] == ~0ULL);
}

static void test_load(void **state)
{
	struct pmu pmu;
	char err[256] = "";

	assert_int_equal(pmu__load(&pmu, "cpu", err, sizeof(err)), 0);
	assert_string_equal(pmu.name, "cpu");
	assert_int_equal(pmu.type, 4);
	assert_int_equal(pmu.nr_formats, 7);
	assert_non_null(pmu__format(&pmu, "umask"));
	assert_null(pmu__format(&pmu, "nope"));
	/* the .scale and .unit files are no aliases */
	assert_int_equal(pmu.nr_aliases, 2);
	assert_string_equal(pmu__alias(&pmu, "MEM-LOADS")->terms, "event=0xcd,umask=0x1,ldlat=3");
	pmu__exit(&pmu);

	assert_int_equal(pmu__load(&pmu, "nope", err, sizeof(err)), -ENOENT);
	assert_int_equal(pmu__load(&pmu, "notype", err, sizeof(err)), -ENOENT);
	assert_int_equal(pmu__load(&pmu, "../cpu", err, sizeof(err)), -ENOENT);
	assert_int_equal(pmu__load(&pmu, "broken", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cannot parse the PMU format"));
	assert_non_null(strstr(err, "broken/format/event"));
	pmu__exit(NULL);
}

struct term_case {
	const char *str;
	uint64_t config, config1, config2;
	const char *name;
	const char *excl;	/* exclude_ letters; NULL: exclude_guest only */
	int pinned;
};

static const struct term_case term_cases[] = {
	{ "cpu/event=0x3c,umask=0/",	0x3c, 0, 0, "cpu/event=0x3c,umask=0/", NULL, 0 },
	{ "cpu/event=0x1ff/",		0x1000000ffULL, 0, 0, "cpu/event=0x1ff/", NULL, 0 },
	{ "cpu/event=0xd1,umask=0x20,cmask=1,inv/", 1ULL << 24 | 1ULL << 23 | 0x20d1, 0, 0,
	  "cpu/event=0xd1,umask=0x20,cmask=1,inv/", NULL, 0 },
	{ "cpu/edge/",			1 << 18, 0, 0, "cpu/edge/", NULL, 0 },
	/* aliases, any case, then the user's terms over them */
	{ "cpu/cpu-cycles/",		0x76, 0, 0, "cpu/cpu-cycles/", NULL, 0 },
	{ "cpu/CPU-CYCLES,umask=2/",	0x276, 0, 0, "cpu/CPU-CYCLES,umask=2/", NULL, 0 },
	{ "cpu/mem-loads/",		0x1cd, 3, 0, "cpu/mem-loads/", NULL, 0 },
	{ "cpu/mem-loads,ldlat=50/",	0x1cd, 50, 0, "cpu/mem-loads,ldlat=50/", NULL, 0 },
	{ "mem-loads",			0x1cd, 3, 0, "mem-loads", NULL, 0 },
	{ "mem-loads:u",		0x1cd, 3, 0, "mem-loads:u", "khG", 0 },
	/* generic terms first, then the fields set their bits, as in perf */
	{ "cpu/event=1,config=0x100/",	0x101, 0, 0, "cpu/event=1,config=0x100/", NULL, 0 },
	{ "cpu/config=0x1234,config1=5,config2=6/", 0x1234, 5, 6,
	  "cpu/config=0x1234,config1=5,config2=6/", NULL, 0 },
	{ "cpu/fe=0x10,ldlat=010/",	0, 8, 0x10, "cpu/fe=0x10,ldlat=010/", NULL, 0 },
	/* modifiers right after the '/' or after ':' */
	{ "cpu/event=1/u",		1, 0, 0, "cpu/event=1/u", "khG", 0 },
	{ "cpu/event=1/:k",		1, 0, 0, "cpu/event=1/:k", "uh", 0 },
	{ "cpu/event=1,name=one/Duk",	1, 0, 0, "one", "hG", 1 },
	{ "software/period=1,name=cs,config=0x3/Duk", 3, 0, 0, "cs", "hG", 1 },
};

static void check_excl(const struct perf_event_attr *a, const char *excl)
{
	if (!excl)
		excl = "G";
	assert_int_equal(a->exclude_user, !!strchr(excl, 'u'));
	assert_int_equal(a->exclude_kernel, !!strchr(excl, 'k'));
	assert_int_equal(a->exclude_hv, !!strchr(excl, 'h'));
	assert_int_equal(a->exclude_guest, !!strchr(excl, 'G'));
	assert_int_equal(a->exclude_host, !!strchr(excl, 'H'));
}

static void test_terms(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(term_cases); i++) {
		const struct term_case *c = &term_cases[i];
		struct event_list list;
		char err[512];

		if (parse_events(&list, c->str, err, sizeof(err)))
			fail_msg("'%s': %s", c->str, err);
		assert_int_equal(list.nr, 1);
		assert_int_equal(list.ev[0].attr.type, strncmp(c->str, "software", 8) ? 4 : 1);
		if (list.ev[0].attr.config != c->config)
			fail_msg("'%s': config 0x%llx, want 0x%llx", c->str,
				 (unsigned long long)list.ev[0].attr.config,
				 (unsigned long long)c->config);
		assert_true(list.ev[0].attr.config1 == c->config1);
		assert_true(list.ev[0].attr.config2 == c->config2);
		assert_string_equal(list.ev[0].name, c->name);
		check_excl(&list.ev[0].attr, c->excl);
		assert_int_equal(list.ev[0].attr.pinned, c->pinned);
		event_list__exit(&list);
	}
}

static const struct {
	const char *str, *msg;
} term_errors[] = {
	{ "cpu/event=0x1000/", "value 0x1000 too big for format 'event' of PMU 'cpu' in event "
			       "'cpu/event=0x1000/' (maximum is 0xfff)" },
	{ "cpu/bogus=1/", "unknown term 'bogus' for PMU 'cpu' in event 'cpu/bogus=1/' (valid terms: " },
	{ "cpu/bogus=1/", "or an event of its events/ directory" },
	{ "cpu/event=x/", "invalid value 'x' for term 'event' in event 'cpu/event=x/'" },
	{ "nope/event=1/", "no PMU 'nope' in " },
	{ "broken/event=1/", "cannot parse the PMU format" },
	{ "no-such-alias", "unknown event 'no-such-alias'" },
	{ "no-such-alias:u", "unknown event 'no-such-alias'" },
};

static void test_term_errors(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(term_errors); i++) {
		struct event_list list;
		char err[512];

		assert_true(parse_events(&list, term_errors[i].str, err, sizeof(err)) < 0);
		if (!strstr(err, term_errors[i].msg))
			fail_msg("'%s': error '%s' lacks '%s'", term_errors[i].str, err,
				 term_errors[i].msg);
		assert_int_equal(list.nr, 0);
	}
}

/* The real sysfs: the software PMU is type 1 on every kernel with perf events. */
static void test_real_software(void **state)
{
	struct pmu pmu;
	char err[256];

	pmu__set_sysfs_root(NULL);
	/* A machine without the software PMU in sysfs: a skip. With it, load must work. */
	if (access("/sys/bus/event_source/devices/software", F_OK)) {
		print_message("# no /sys/bus/event_source/devices/software\n");
		pmu__set_sysfs_root(tmpdir);
		skip();
	}
	if (pmu__load(&pmu, "software", err, sizeof(err))) {
		print_message("# pmu__load(software): %s\n", err);
		pmu__set_sysfs_root(tmpdir);
		fail();
	}
	assert_int_equal(pmu.type, PERF_TYPE_SOFTWARE);
	pmu__exit(&pmu);
	pmu__set_sysfs_root(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_format_apply),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_terms),
		cmocka_unit_test(test_term_errors),
		cmocka_unit_test(test_real_software),
	};

	return cmocka_run_group_tests(tests, fake_sysfs_setup, fake_sysfs_teardown);
}
