// SPDX-License-Identifier: GPL-2.0
/*
 * cpumap.c: CPU list parsing, printing and the sysfs online list. Every
 * table row is its own cmocka test, so a failure names the list.
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
#include <unistd.h>

#include "events/cpumap.h"
#include "util.h"

struct good_case {
	const char *list;
	int nr;
	int cpu[8];
	const char *printed;	/* the canonical form cpu_map__snprintf gives */
};

static const struct good_case good_cases[] = {
	{ "0-3,7",	5, { 0, 1, 2, 3, 7 },	"0-3,7" },
	{ "2",		1, { 2 },		"2" },
	{ "0,2-3",	3, { 0, 2, 3 },		"0,2-3" },
	{ "0",		1, { 0 },		"0" },
	{ "5-5",	1, { 5 },		"5" },
	{ "3,1,2,1",	3, { 1, 2, 3 },		"1-3" },
	{ "0-1,1-2",	3, { 0, 1, 2 },		"0-2" },
	{ "10,8-9,0",	4, { 0, 8, 9, 10 },	"0,8-10" },
	{ "1,3,5,7",	4, { 1, 3, 5, 7 },	"1,3,5,7" },
	{ "007",	1, { 7 },		"7" },
	{ "65535",	1, { 65535 },		"65535" },
	{ "4-6,0-1",	5, { 0, 1, 4, 5, 6 },	"0-1,4-6" },
};

static const char *const bad_cases[] = {
	"", "a", "3-1", "2-1", "1,,2", "-1", "1,", ",1", "1-", "-", " 1", "1 ", "0x1",
	"1-2-3", "+1", "1;2", "1, 2", "65536", "0-65536", "99999999999", "1-a",
	"0-3,7\n",
};

static void test_parse_good(void **state)
{
	const struct good_case *c = *state;
	struct cpu_map *map = cpu_map__parse(c->list);
	char buf[64];
	int i, len;

	assert_non_null(map);
	assert_int_equal(map->nr, c->nr);
	for (i = 0; i < c->nr; i++)
		assert_int_equal(map->cpu[i], c->cpu[i]);

	/* Printing and parsing again must give the same CPUs. */
	len = cpu_map__snprintf(map, buf, sizeof(buf));
	assert_int_equal(len, (int)strlen(c->printed));
	assert_string_equal(buf, c->printed);
	cpu_map__delete(map);
	map = cpu_map__parse(buf);
	assert_non_null(map);
	assert_int_equal(map->nr, c->nr);
	for (i = 0; i < c->nr; i++)
		assert_int_equal(map->cpu[i], c->cpu[i]);
	cpu_map__delete(map);
}

static void test_parse_bad(void **state)
{
	const char *list = *state;

	errno = 0;
	assert_null(cpu_map__parse(list));
	assert_int_equal(errno, EINVAL);
}

static void test_parse_null(void **state)
{
	errno = 0;
	assert_null(cpu_map__parse(NULL));
	assert_int_equal(errno, EINVAL);
}

static void test_big_range(void **state)
{
	struct cpu_map *map = cpu_map__parse("0-4095");
	char buf[16];

	assert_non_null(map);
	assert_int_equal(map->nr, 4096);
	assert_int_equal(map->cpu[4095], 4095);
	assert_int_equal(cpu_map__snprintf(map, buf, sizeof(buf)), 6);
	assert_string_equal(buf, "0-4095");
	cpu_map__delete(map);
}

static void test_contains(void **state)
{
	struct cpu_map *map = cpu_map__parse("0-3,7,9");

	assert_non_null(map);
	assert_int_equal(cpu_map__contains(map, 0), 1);
	assert_int_equal(cpu_map__contains(map, 3), 1);
	assert_int_equal(cpu_map__contains(map, 4), 0);
	assert_int_equal(cpu_map__contains(map, 7), 1);
	assert_int_equal(cpu_map__contains(map, 8), 0);
	assert_int_equal(cpu_map__contains(map, 9), 1);
	assert_int_equal(cpu_map__contains(map, 10), 0);
	assert_int_equal(cpu_map__contains(map, -1), 0);
	assert_int_equal(cpu_map__contains(NULL, 0), 0);
	cpu_map__delete(map);
}

static void test_dummy(void **state)
{
	struct cpu_map *map = cpu_map__dummy();
	char buf[8];

	assert_non_null(map);
	assert_int_equal(map->nr, 1);
	assert_int_equal(map->cpu[0], -1);
	assert_int_equal(cpu_map__contains(map, -1), 1);
	assert_int_equal(cpu_map__snprintf(map, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "-1");
	cpu_map__delete(map);
	cpu_map__delete(NULL);
}

/* snprintf's contract: no overrun, NUL-terminated, full length returned. */
static void test_snprintf_truncates(void **state)
{
	struct cpu_map *map = cpu_map__parse("0-3,7");
	char buf[8];

	assert_non_null(map);
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(cpu_map__snprintf(map, buf, 4), 5);
	assert_string_equal(buf, "0-3");
	assert_int_equal(buf[4], 'X');

	memset(buf, 'X', sizeof(buf));
	assert_int_equal(cpu_map__snprintf(map, buf, 5), 5);
	assert_string_equal(buf, "0-3,");

	memset(buf, 'X', sizeof(buf));
	assert_int_equal(cpu_map__snprintf(map, buf, 0), 5);
	assert_int_equal(buf[0], 'X');

	assert_int_equal(cpu_map__snprintf(map, buf, 6), 5);
	assert_string_equal(buf, "0-3,7");
	cpu_map__delete(map);
}

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/test_cpumap.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_read_file(void **state)
{
	char *path = write_tmp("0-3,7\n");
	struct cpu_map *map = cpu_map__read(path);

	assert_non_null(map);
	assert_int_equal(map->nr, 5);
	assert_int_equal(map->cpu[4], 7);
	cpu_map__delete(map);
	unlink(path);
	free(path);

	/* An empty list file is not "no CPUs": it is malformed. */
	path = write_tmp("\n");
	errno = 0;
	assert_null(cpu_map__read(path));
	assert_int_equal(errno, EINVAL);
	unlink(path);
	free(path);

	errno = 0;
	assert_null(cpu_map__read("/nonexistent/perfcap/online"));
	assert_int_equal(errno, ENOENT);
}

static void test_online(void **state)
{
	struct cpu_map *map = cpu_map__online();
	char want[4096], got[4096];
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	FILE *f;

	assert_non_null(map);
	assert_int_equal(map->nr, n);
	f = fopen("/sys/devices/system/cpu/online", "r");
	assert_non_null(f);
	assert_non_null(fgets(want, sizeof(want), f));
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	/* The kernel prints the canonical form too, so they must agree. */
	cpu_map__snprintf(map, got, sizeof(got));
	assert_string_equal(got, want);
	cpu_map__delete(map);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_parse_null),
		cmocka_unit_test(test_big_range),
		cmocka_unit_test(test_contains),
		cmocka_unit_test(test_dummy),
		cmocka_unit_test(test_snprintf_truncates),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_online),
	};
	size_t nr = ARRAY_SIZE(fixed) + ARRAY_SIZE(good_cases) + ARRAY_SIZE(bad_cases);
	struct CMUnitTest *tests = calloc(nr, sizeof(*tests));
	char **names = calloc(nr, sizeof(*names));
	size_t i, n = 0;
	int ret;

	assert_non_null(tests);
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		tests[n++] = fixed[i];
	for (i = 0; i < ARRAY_SIZE(good_cases); i++, n++) {
		if (asprintf(&names[n], "parse '%s'", good_cases[i].list) < 0)
			return 1;
		tests[n].name = names[n];
		tests[n].test_func = test_parse_good;
		tests[n].initial_state = (void *)&good_cases[i];
	}
	for (i = 0; i < ARRAY_SIZE(bad_cases); i++, n++) {
		if (asprintf(&names[n], "reject '%s'", bad_cases[i]) < 0)
			return 1;
		/* TAP is line based: a newline in a name would end the line. */
		if (strchr(names[n], '\n'))
			*strchr(names[n], '\n') = '|';
		tests[n].name = names[n];
		tests[n].test_func = test_parse_bad;
		tests[n].initial_state = (void *)bad_cases[i];
	}
	ret = _cmocka_run_group_tests("cpumap", tests, n, NULL, NULL);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(tests);
	return ret;
}
