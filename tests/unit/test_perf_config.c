// SPDX-License-Identifier: GPL-2.0
/* perf-config.c: perf's config files, git's syntax, perf's order of files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "perf-config.h"
#include "tmpdir.h"

static void test_parse(void **state)
{
	char buf[256];
	const char *text =
		"# perf config\n"
		"[report]\n"
		"\tdir = /not/this\n"
		"[buildid \"sub\"]\n"
		"\tdir = /nor/this\n"
		"[BuildId]\n"
		"\t; a comment\n"
		"\tDIR = /first\n"
		"  dir=/srv/ids   # the last one counts\n"
		"[other]\n"
		"dir = /no\n";

	assert_int_equal(perf_config__parse(text, "buildid", "dir", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/srv/ids");
	assert_int_equal(perf_config__parse(text, "buildid", "nothere", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(perf_config__parse("[buildid]\n\tdir = \"/with # hash\" \n", "buildid", "dir",
					    buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/with # hash");
	assert_int_equal(perf_config__parse("", "buildid", "dir", buf, sizeof(buf)), -ENOENT);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_files(void **state)
{
	char buf[256], home[512];

	snprintf(home, sizeof(home), "%s", tpath("home"));
	assert_int_equal(mkdir(home, 0755), 0);
	put(tpath("home/.perfconfig"), "[buildid]\ndir = /from/home\n");
	put(tpath("only"), "[buildid]\ndir = /from/only\n");
	setenv("HOME", home, 1);
	unsetenv("PERF_CONFIG");
	setenv("PERF_CONFIG_NOSYSTEM", "1", 1);
	assert_int_equal(perf_config__get("buildid", "dir", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/from/home");
	/* $PERF_CONFIG: that file only. */
	setenv("PERF_CONFIG", tpath("only"), 1);
	assert_int_equal(perf_config__get("buildid", "dir", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/from/only");
	setenv("PERF_CONFIG", tpath("missing"), 1);
	assert_int_equal(perf_config__get("buildid", "dir", buf, sizeof(buf)), -ENOENT);
	unsetenv("PERF_CONFIG");
	/* $PERF_CONFIG_NOGLOBAL: not ~/.perfconfig. */
	setenv("PERF_CONFIG_NOGLOBAL", "1", 1);
	assert_int_equal(perf_config__get("buildid", "dir", buf, sizeof(buf)), -ENOENT);
	unsetenv("PERF_CONFIG_NOGLOBAL");
	unsetenv("PERF_CONFIG_NOSYSTEM");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
