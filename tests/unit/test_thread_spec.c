// SPDX-License-Identifier: GPL-2.0
/*
 * --threads layouts (thread-spec.c) over a made-up sysfs: 8 CPUs, SMT
 * siblings n and n+4, packages and NUMA nodes {0,1,4,5} and {2,3,6,7}.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record/thread-spec.h"
#include "tmpdir.h"

static void put(const char *rel, const char *text)
{
	char path[1024], cmd[1100];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

static int fake_sysfs(void **state)
{
	char rel[256];

	if (tmpdir_setup(state))
		return -1;
	for (int c = 0; c < 8; c++) {
		char core[16], pkg[16];

		snprintf(core, sizeof(core), "%d,%d", c % 4, c % 4 + 4);
		snprintf(pkg, sizeof(pkg), "%s", c % 4 < 2 ? "0-1,4-5" : "2-3,6-7");
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/core_cpus_list", c);
		put(rel, core);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/package_cpus_list", c);
		put(rel, pkg);
	}
	put("devices/system/node/node0/cpulist", "0-1,4-5");
	put("devices/system/node/node1/cpulist", "2-3,6-7");
	return 0;
}

/* "maps/affinity;..." of a layout, for comparing in one string. */
static char *show(const struct thread_spec *ts)
{
	static char out[1024];
	size_t n = 0;

	out[0] = '\0';
	for (int i = 0; i < ts->nr; i++) {
		char m[64], a[64];

		cpu_map__snprintf(ts->t[i].maps, m, sizeof(m));
		cpu_map__snprintf(ts->t[i].affinity, a, sizeof(a));
		n += snprintf(out + n, sizeof(out) - n, "%s%s/%s", i ? ";" : "", m, a);
	}
	return out;
}

static const char *build(const char *spec, const char *cpus, char *err)
{
	struct cpu_map *c = cpu_map__parse(cpus), *online = cpu_map__parse("0-7");
	struct thread_spec ts;
	static char res[1024];
	int ret;

	err[0] = '\0';
	ret = thread_spec__build(&ts, spec, c, online, tmpdir, err, 256);
	snprintf(res, sizeof(res), "%s", ret ? "error" : show(&ts));
	if (!ret)
		thread_spec__exit(&ts);
	cpu_map__delete(c);
	cpu_map__delete(online);
	return res;
}

static void test_layouts(void **state)
{
	static const struct { const char *spec, *cpus, *want; } rows[] = {
		{ NULL, "0-3", "0/0;1/1;2/2;3/3" },
		{ "cpu", "2,5", "2/2;5/5" },
		{ "core", "0-7", "0,4/0,4;1,5/1,5;2,6/2,6;3,7/3,7" },
		/* Only the recorded CPUs of a core are its thread's. */
		{ "core", "0-5", "0,4/0,4;1,5/1,5;2/2;3/3" },
		{ "package", "0-7", "0-1,4-5/0-1,4-5;2-3,6-7/2-3,6-7" },
		{ "numa", "1-2", "1/1;2/2" },
		{ "numa", "0-7", "0-1,4-5/0-1,4-5;2-3,6-7/2-3,6-7" },
		{ "0-3/0-3:4-7/4-7", "0-7", "0-3/0-3;4-7/4-7" },
		/* Masks are filtered: maps through the recorded CPUs, affinity through the online ones. */
		{ "0-3/0-3:4-9/4-9", "0-5", "0-3/0-3;4-5/4-7" },
		{ "0,2/1:1,3/3", "0-3", "0,2/1;1,3/3" },
	};
	char err[256];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *got = build(rows[i].spec, rows[i].cpus, err);

		if (strcmp(got, rows[i].want))
			fail_msg("--threads=%s over %s: got %s (%s), want %s",
				 rows[i].spec ? rows[i].spec : "", rows[i].cpus, got, err,
				 rows[i].want);
	}
}

static void test_errors(void **state)
{
	static const struct { const char *spec, *cpus, *msg; } rows[] = {
		{ "0-3/0-1:3-7/2-3", "0-7", "--threads: masks 1 and 2 overlap" },
		{ "0-3/0-1:4-7/1-2", "0-7", "--threads: masks 1 and 2 overlap" },
		{ "0-3/0-3", "0-7", "--threads: CPU 4 is recorded but in no mask: its ring would have no reader" },
		{ "0-3/0-3:8-9/4-7", "0-7", "--threads: '8-9/4-7' leaves no recorded CPU" },
		{ "0-3/8-9:4-7/4-7", "0-7", "--threads: '0-3/8-9' leaves no online CPU" },
		{ "0-3", "0-7", "--threads: '0-3' has no affinity mask" },
		{ "socket", "0-7", "invalid --threads value 'socket'" },
	};
	char err[256];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *got = build(rows[i].spec, rows[i].cpus, err);

		if (strcmp(got, "error") || strncmp(err, rows[i].msg, strlen(rows[i].msg)))
			fail_msg("--threads=%s: got %s, message '%s', want '%s'", rows[i].spec,
				 got, err, rows[i].msg);
	}
}

static void test_no_topology_means_a_thread_per_cpu(void **state)
{
	struct cpu_map *c = cpu_map__parse("0-1");
	struct thread_spec ts;
	char err[256];

	assert_int_equal(thread_spec__build(&ts, "core", c, c, "/nonexistent", err, sizeof(err)),
			 0);
	assert_string_equal(show(&ts), "0/0;1/1");
	thread_spec__exit(&ts);
	cpu_map__delete(c);
}

/* perfcap's own choice: the loop alone for 2..N CPUs, else whole cores per package in groups of N. */
static void test_auto(void **state)
{
	static const struct { int per; const char *cpus, *want; } rows[] = {
		{ 16, "0-7", "" },
		{ 8, "0-7", "" },
		/* The default: a reader per core; one CPU too has a reader thread. */
		{ 1, "0-7", "0,4/0,4;1,5/1,5;2,6/2,6;3,7/3,7" },
		{ 1, "3", "3/3" },
		{ 4, "3", "3/3" },
		{ 1, "0-1", "0/0;1/1" },
		{ 4, "0-7", "0-1,4-5/0-1,4-5;2-3,6-7/2-3,6-7" },
		/* A group is never split across packages, nor a core across groups. */
		{ 3, "0-7", "0,4/0,4;1,5/1,5;2,6/2,6;3,7/3,7" },
		{ 2, "0-7", "0,4/0,4;1,5/1,5;2,6/2,6;3,7/3,7" },
		{ 2, "0-2", "0-1/0-1;2/2" },
		{ 3, "0-5", "0,4/0,4;1,5/1,5;2-3/2-3" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct cpu_map *c = cpu_map__parse(rows[i].cpus);
		struct thread_spec ts;
		char why[256];

		assert_int_equal(thread_spec__auto(&ts, c, tmpdir, rows[i].per, why, sizeof(why)), 0);
		if (strcmp(show(&ts), rows[i].want))
			fail_msg("auto over %s, %d per reader: got %s, want %s (%s)", rows[i].cpus,
				 rows[i].per, show(&ts), rows[i].want, why);
		assert_non_null(strstr(why, ts.nr ? "reader threads" : "one reader for all"));
		thread_spec__exit(&ts);
		cpu_map__delete(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_no_topology_means_a_thread_per_cpu),
		cmocka_unit_test(test_auto),
	};

	return cmocka_run_group_tests(tests, fake_sysfs, tmpdir_teardown);
}
