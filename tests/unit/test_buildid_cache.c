// SPDX-License-Identifier: GPL-2.0
/* buildid-cache.c: perf's ~/.debug layout, in a temporary directory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/buildid-cache.h"
#include "tmpdir.h"
#include "util.h"

static struct build_id bid_of(uint8_t first)
{
	struct build_id b = { .size = 20 };

	for (int i = 0; i < 20; i++)
		b.data[i] = first + i;
	return b;
}

static void test_dir(void **state)
{
	char buf[PATH_MAX];

	FILE *f;

	setenv("HOME", "/home/someone", 1);
	unsetenv("PERF_BUILDID_DIR");
	setenv("PERF_CONFIG", "/nonexistent/perfconfig", 1);
	assert_int_equal(buildid_cache__dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/home/someone/.debug");
	/* perf's buildid.dir, where perf report and perf archive look too. */
	f = fopen(tpath("perfconfig"), "w");
	assert_non_null(f);
	fputs("[buildid]\n\tdir = /var/cache/ids\n", f);
	fclose(f);
	setenv("PERF_CONFIG", tpath("perfconfig"), 1);
	assert_int_equal(buildid_cache__dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/var/cache/ids");
	/* $PERF_BUILDID_DIR before it; its trailing slash goes. */
	setenv("PERF_BUILDID_DIR", "/srv/ids/", 1);
	assert_int_equal(buildid_cache__dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/srv/ids");
	unsetenv("PERF_BUILDID_DIR");
	setenv("PERF_CONFIG", "/nonexistent/perfconfig", 1);
	unsetenv("HOME");
	assert_int_equal(buildid_cache__dir(buf, sizeof(buf)), -ENOENT);
	unsetenv("PERF_CONFIG");
}

static void test_file(void **state)
{
	struct build_id b = bid_of(0xa0);
	char dso[PATH_MAX], real[PATH_MAX], elf[PATH_MAX + 128], link[PATH_MAX], want[PATH_MAX + 64];
	char got[PATH_MAX] = "";
	struct stat s1, s2;
	FILE *f;
	ssize_t n;

	snprintf(dso, sizeof(dso), "%s", tpath("libx.so"));
	f = fopen(dso, "w");
	assert_non_null(f);
	fputs("not really ELF\n", f);
	fclose(f);
	assert_non_null(realpath(dso, real));
	assert_int_equal(buildid_cache__add_file(tpath("cache"), &b, dso, dso), 0);
	/* DIR/<real path>/<id>/elf: the file itself, hard linked. */
	snprintf(elf, sizeof(elf), "%s%s/a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3/elf",
		 tpath("cache"), real);
	assert_int_equal(stat(elf, &s1), 0);
	assert_int_equal(stat(dso, &s2), 0);
	assert_true(s1.st_ino == s2.st_ino);
	/* DIR/.build-id/a0/a1...b3 -> ../../<real path>/<id> */
	snprintf(link, sizeof(link), "%s/.build-id/a0/a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3",
		 tpath("cache"));
	n = readlink(link, got, sizeof(got) - 1);
	assert_true(n > 0);
	got[n] = 0;
	snprintf(want, sizeof(want), "../..%s/a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3", real);
	assert_string_equal(got, want);
	/* The link resolves to the directory holding elf. */
	snprintf(want, sizeof(want), "%s/elf", link);
	assert_int_equal(stat(want, &s1), 0);
	assert_true(s1.st_ino == s2.st_ino);
	/* Again: what is there is kept, no error. */
	assert_int_equal(buildid_cache__add_file(tpath("cache"), &b, dso, dso), 0);
	/* No id, nothing to file it under. */
	b.size = 0;
	assert_int_equal(buildid_cache__add_file(tpath("cache"), &b, dso, dso), -EINVAL);
}

/* An ELF file without SDT probes gets perf's empty probes file; one with them none. */
static void test_probes(void **state)
{
	struct build_id b = bid_of(0x50);
	char cmd[3072], probes[PATH_MAX + 128], real[PATH_MAX], plain[512], note[512], sdt[512];
	struct stat st;

	/* tpath keeps only its last four results: copies. */
	snprintf(plain, sizeof(plain), "%s", tpath("plain"));
	snprintf(note, sizeof(note), "%s", tpath("note"));
	snprintf(sdt, sizeof(sdt), "%s", tpath("sdt"));
	snprintf(cmd, sizeof(cmd), "cp /proc/%d/exe %s && printf x > %s && "
		 "objcopy --add-section .note.stapsdt=%s %s %s 2>/dev/null",
		 (int)getpid(), plain, note, note, plain, sdt);
	if (system(cmd))
		skip();	/* no objcopy */
	assert_int_equal(buildid_cache__add_file(tpath("cache3"), &b, plain, plain), 0);
	assert_non_null(realpath(plain, real));
	snprintf(probes, sizeof(probes), "%s%s/505152535455565758595a5b5c5d5e5f60616263/probes",
		 tpath("cache3"), real);
	assert_int_equal(stat(probes, &st), 0);
	assert_int_equal(st.st_size, 0);
	b = bid_of(0x70);
	assert_int_equal(buildid_cache__add_file(tpath("cache3"), &b, sdt, sdt), 0);
	assert_non_null(realpath(sdt, real));
	snprintf(probes, sizeof(probes), "%s%s/707172737475767778797a7b7c7d7e7f80818283/probes",
		 tpath("cache3"), real);
	assert_int_equal(stat(probes, &st), -1);
}

static void test_kallsyms_and_vdso(void **state)
{
	struct build_id k = bid_of(0x10), v = bid_of(0x30);
	char path[PATH_MAX + 128], *text = NULL, *want = NULL;
	static const char image[] = "\177ELF vdso bytes";
	ssize_t n;

	assert_int_equal(buildid_cache__add_kallsyms(tpath("cache2"), &k), 0);
	snprintf(path, sizeof(path),
		 "%s/.build-id/10/1112131415161718191a1b1c1d1e1f20212223/kallsyms", tpath("cache2"));
	n = read_file(path, &text);
	assert_true(n > 0);
	/* A copy of /proc/kallsyms: its first line is the same. */
	assert_true(read_file("/proc/kallsyms", &want) > 0);
	assert_memory_equal(text, want, strcspn(want, "\n"));
	free(text);
	free(want);

	assert_int_equal(buildid_cache__add_vdso(tpath("cache2"), &v, image, sizeof(image)), 0);
	snprintf(path, sizeof(path),
		 "%s/[vdso]/303132333435363738393a3b3c3d3e3f40414243/vdso", tpath("cache2"));
	n = read_file(path, &text);
	assert_int_equal(n, sizeof(image));
	assert_memory_equal(text, image, sizeof(image));
	free(text);
	snprintf(path, sizeof(path), "%s/.build-id/30/3132333435363738393a3b3c3d3e3f40414243/vdso",
		 tpath("cache2"));
	assert_int_equal(access(path, R_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_probes),
		cmocka_unit_test(test_kallsyms_and_vdso),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
