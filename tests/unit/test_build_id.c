// SPDX-License-Identifier: GPL-2.0
/*
 * build-id.c against independent witnesses: readelf -n for files on
 * disk, perf buildid-list -k for the kernel, the linker for ids we
 * choose ourselves (-Wl,--build-id=0x...), hand-made note blobs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/build-id.h"
#include "emulator.h"
#include "tmpdir.h"

static int group_teardown(void **state)
{
	build_id__cache_free();
	return tmpdir_teardown(state);
}

/* First line of a shell command's output, or -1. */
static int run_line(const char *cmd, char *buf, size_t size)
{
	FILE *p = popen(cmd, "r");
	int ok;

	if (!p)
		return -1;
	ok = fgets(buf, size, p) != NULL;
	pclose(p);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int have(const char *prog)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* readelf's "Build ID: <hex>" of a file. */
static int readelf_build_id(const char *path, char *hex, size_t size)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "readelf -n '%s' 2>/dev/null | sed -n 's/^ *Build ID: *//p'", path);
	return run_line(cmd, hex, size);
}

static void check_file_against_readelf(const char *path)
{
	struct build_id bid;
	char want[128], got[2 * BUILD_ID_MAX + 1];

	if (!have("readelf"))
		skip();
	assert_int_equal(readelf_build_id(path, want, sizeof(want)), 0);
	assert_int_equal(build_id__from_file(path, &bid), 0);
	assert_int_equal(bid.size, 20);
	assert_string_equal(build_id__hex(&bid, got), want);
}

static void test_bin_ls_matches_readelf(void **state)
{
	check_file_against_readelf("/bin/ls");
}

static void test_libc_matches_readelf(void **state)
{
	char path[512];

	/* the libc this test runs with, whatever the distribution names it */
	if (run_line("awk '$6 ~ /\\/libc[.-]/ { print $6; exit }' /proc/self/maps",
		     path, sizeof(path)))
		skip();
	check_file_against_readelf(path);
}

/*
 * Without section headers (as sstrip leaves a file) only the PT_NOTE
 * segment can give the id.
 */
static void test_program_headers_only(void **state)
{
	struct build_id want, bid;
	char path[256], cmd[512];
	uint64_t zero64 = 0;
	uint16_t zero16 = 0;
	int fd;

	assert_int_equal(build_id__from_file("/bin/ls", &want), 0);
	snprintf(path, sizeof(path), "%s", tpath("noshdr"));
	snprintf(cmd, sizeof(cmd), "cp /bin/ls '%s'", path);
	assert_int_equal(system(cmd), 0);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	/* ELF64: e_shoff @0x28, e_shnum @0x3c, e_shstrndx @0x3e */
	assert_int_equal(pwrite(fd, &zero64, 8, 0x28), 8);
	assert_int_equal(pwrite(fd, &zero16, 2, 0x3c), 2);
	assert_int_equal(pwrite(fd, &zero16, 2, 0x3e), 2);
	close(fd);
	assert_int_equal(build_id__from_file(path, &bid), 0);
	assert_int_equal(bid.size, want.size);
	assert_memory_equal(bid.data, want.data, want.size);
}

/* Compile a tiny program with the given linker build-id option. */
static int build_prog(const char *out, const char *build_id_opt)
{
	char cmd[1024];

	if (!have("cc"))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "printf 'int main(void){return 0;}\\n' | cc -x c -o '%s' - "
		 "-Wl,--build-id=%s 2>/dev/null",
		 out, build_id_opt);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_linker_chosen_id(void **state)
{
	struct build_id bid;
	char path[256], hex[2 * BUILD_ID_MAX + 1];

	snprintf(path, sizeof(path), "%s", tpath("chosen"));
	if (build_prog(path, "0x0123456789abcdef"))
		skip();
	assert_int_equal(build_id__from_file(path, &bid), 0);
	assert_int_equal(bid.size, 8);
	assert_string_equal(build_id__hex(&bid, hex), "0123456789abcdef");
}

static void test_no_build_id(void **state)
{
	struct build_id bid;
	char path[256];

	snprintf(path, sizeof(path), "%s", tpath("none"));
	if (build_prog(path, "none"))
		skip();
	/* an ELF file, with notes (ABI tag), but no build id */
	assert_int_equal(build_id__from_file(path, &bid), -ENOENT);
	assert_int_equal(bid.size, 0);
}

/* A relocatable object has no program headers: the SHT_NOTE path. */
static void test_section_only(void **state)
{
	struct build_id bid;
	char cmd[1024], obj[256], hex[2 * BUILD_ID_MAX + 1];

	snprintf(obj, sizeof(obj), "%s", tpath("rel.o"));
	if (!have("cc") || !have("ld"))
		skip();
	snprintf(cmd, sizeof(cmd),
		 "printf 'int f(void){return 1;}\\n' | cc -x c -c -o '%s.in' - && "
		 "ld -r --build-id=0xfeedface00112233445566778899aabbccddeeff "
		 "-o '%s' '%s.in' 2>/dev/null",
		 obj, obj, obj);
	if (system(cmd))
		skip();
	assert_int_equal(build_id__from_file(obj, &bid), 0);
	assert_string_equal(build_id__hex(&bid, hex),
			    "feedface00112233445566778899aabbccddeeff");
}

static void test_not_elf_and_missing(void **state)
{
	struct build_id bid;
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s", tpath("text"));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello, world\n", 13), 13);
	close(fd);
	assert_int_equal(build_id__from_file(path, &bid), -ENOEXEC);
	assert_int_equal(build_id__from_file("/nonexistent/file", &bid), -ENOENT);
}

/* ---- notes blobs ---- */

struct blob {
	uint8_t data[512];
	size_t len;
};

static void blob_note_n(struct blob *b, const char *name, uint32_t namesz,
			uint32_t type, const void *desc, uint32_t descsz)
{

	memcpy(b->data + b->len, &namesz, 4);
	memcpy(b->data + b->len + 4, &descsz, 4);
	memcpy(b->data + b->len + 8, &type, 4);
	b->len += 12;
	memset(b->data + b->len, 0, (namesz + 3) & ~3u);
	memcpy(b->data + b->len, name, namesz);
	b->len += (namesz + 3) & ~3u;
	memset(b->data + b->len, 0, (descsz + 3) & ~3u);
	memcpy(b->data + b->len, desc, descsz);
	b->len += (descsz + 3) & ~3u;
}

static void blob_note(struct blob *b, const char *name, uint32_t type,
		      const void *desc, uint32_t descsz)
{
	blob_note_n(b, name, strlen(name) + 1, type, desc, descsz);
}

static const uint8_t id20[20] = {
	0xab, 0xf9, 0xec, 0x0e, 0xc5, 0x94, 0x66, 0x00, 0xc9, 0x06,
	0x41, 0xcf, 0x5d, 0xb9, 0x98, 0x47, 0x2f, 0xac, 0x41, 0x0b,
};

static void test_notes_blob_several(void **state)
{
	struct blob b = { .len = 0 };
	struct build_id bid;
	char hex[2 * BUILD_ID_MAX + 1];

	/* shaped like /sys/kernel/notes: Xen notes, "Linux" notes, GNU */
	blob_note(&b, "Xen", 18, "\x00\xcf\x78\x03\x00", 5); /* odd size: padding */
	blob_note(&b, "Linux", 6, "6.1.0", 6);
	blob_note(&b, "GNU", 1, "\0\0\0\0\3\0\0\0\2\0\0\0\0\0\0\0", 16); /* ABI tag */
	blob_note(&b, "GNUX", 3, "\1\2\3\4", 4);      /* right type, wrong name */
	/* "GNU" without its NUL: the padding must not make it match */
	blob_note_n(&b, "GNU", 3, 3, "\5\6\7\10", 4);
	blob_note(&b, "GNU", 3, id20, sizeof(id20));  /* the one */
	blob_note(&b, "GNU", 3, "\xff\xff\xff\xff", 4); /* a later one loses */
	assert_int_equal(build_id__from_notes(b.data, b.len, &bid), 0);
	assert_int_equal(bid.size, 20);
	assert_string_equal(build_id__hex(&bid, hex),
			    "abf9ec0ec5946600c90641cf5db998472fac410b");
}

static void test_notes_blob_none_or_truncated(void **state)
{
	struct blob b = { .len = 0 };
	struct build_id bid;
	size_t before;

	blob_note(&b, "Linux", 6, "6.1.0", 6);
	assert_int_equal(build_id__from_notes(b.data, b.len, &bid), -ENOENT);
	assert_int_equal(bid.size, 0);
	before = b.len;
	blob_note(&b, "GNU", 3, id20, sizeof(id20));
	/* cut inside the id: must not read past the end or report it */
	assert_int_equal(build_id__from_notes(b.data, b.len - 1, &bid), -ENOENT);
	assert_int_equal(build_id__from_notes(b.data, before + 5, &bid), -ENOENT);
	assert_int_equal(build_id__from_notes(b.data, 0, &bid), -ENOENT);
	assert_int_equal(build_id__from_notes(b.data, b.len, &bid), 0);
}

static void test_notes_blob_huge_sizes(void **state)
{
	struct blob b = { .len = 0 };
	struct build_id bid;
	uint32_t huge = 0xfffffff0;

	/* namesz near 4 GiB must not wrap the offset arithmetic */
	blob_note(&b, "GNU", 3, id20, sizeof(id20));
	memcpy(b.data, &huge, 4);
	assert_int_equal(build_id__from_notes(b.data, b.len, &bid), -ENOENT);
}

static void test_kernel_matches_perf(void **state)
{
	struct build_id bid;
	char want[128], hex[2 * BUILD_ID_MAX + 1];

	if (access("/sys/kernel/notes", R_OK))
		skip();
	assert_int_equal(build_id__kernel(&bid), 0);
	assert_true(bid.size > 0);
	if (!have("perf") || run_line("perf buildid-list -k 2>/dev/null", want,
				      sizeof(want)))
		skip();
	assert_string_equal(build_id__hex(&bid, hex), want);
}

static void test_module_missing(void **state)
{
	struct build_id bid;

	assert_int_equal(build_id__module("no_such_module_perfcap", &bid), -ENOENT);
}

static void test_module_if_any(void **state)
{
	char name[256], path[512], want[128], hex[2 * BUILD_ID_MAX + 1];
	struct build_id bid;
	struct blob b = { .len = 0 };
	FILE *f;

	/* any module with notes; its raw note must agree with ours */
	if (run_line("ls -d /sys/module/*/notes/.note.gnu.build-id 2>/dev/null | "
		     "head -1 | cut -d/ -f4", name, sizeof(name)) || !name[0])
		skip();
	assert_int_equal(build_id__module(name, &bid), 0);
	snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id", name);
	f = fopen(path, "r");
	assert_non_null(f);
	b.len = fread(b.data, 1, sizeof(b.data), f);
	fclose(f);
	/* desc starts after the 12-byte header and "GNU\0" */
	assert_true(b.len >= 16 + bid.size);
	for (size_t i = 0; i < bid.size; i++)
		snprintf(want + 2 * i, 3, "%02x", b.data[16 + i]);
	assert_string_equal(build_id__hex(&bid, hex), want);
}

/* Our own vdso: an ELF image whose id readelf reads the same from its copy. */
static void test_vdso(void **state)
{
	struct build_id bid, again;
	char cmd[512], want[128], hex[2 * BUILD_ID_MAX + 1];
	void *image;
	size_t size;
	FILE *f;

	if (build_id__vdso(&bid, &image, &size)) {
		char line[64], exe[PATH_MAX];

		/* qemu-user maps the guest no vdso (grep below is a native process). */
		if (emulator(exe)) {
			print_message("under %s: no vdso in the emulated process\n", exe);
			skip();
		}

		/* Only a kernel that maps no vdso (grep's own maps tell) may give none. */
		if (!run_line("grep -c '\\[vdso\\]' /proc/self/maps", line, sizeof(line)) &&
		    atoi(line) > 0)
			fail_msg("this kernel maps a vdso, build_id__vdso found none");
		skip();
	}
	assert_true(size > 64);
	assert_memory_equal(image, "\177ELF", 4);
	f = fopen(tpath("vdso.so"), "w");
	assert_non_null(f);
	assert_int_equal(fwrite(image, 1, size, f), size);
	fclose(f);
	free(image);
	assert_int_equal(build_id__from_file(tpath("vdso.so"), &again), 0);
	assert_int_equal(again.size, bid.size);
	assert_memory_equal(again.data, bid.data, bid.size);
	snprintf(cmd, sizeof(cmd), "readelf -n %s | awk '/Build ID/ {print $3}'", tpath("vdso.so"));
	if (!have("readelf") || run_line(cmd, want, sizeof(want)))
		skip();
	assert_string_equal(build_id__hex(&bid, hex), want);
}

static void test_hex(void **state)
{
	struct build_id bid = { .data = { 0x00, 0x0f, 0xa0, 0xff }, .size = 4 };
	char buf[2 * BUILD_ID_MAX + 1];

	assert_string_equal(build_id__hex(&bid, buf), "000fa0ff");
	bid.size = 0;
	assert_string_equal(build_id__hex(&bid, buf), "");
}

/*
 * The cache answers from memory: overwrite a file in place (same inode)
 * and the cached answer stays until the cache is freed.
 */
static void test_cache(void **state)
{
	struct build_id bid, direct;
	char path[256], cmd[768];
	struct stat st;

	snprintf(path, sizeof(path), "%s", tpath("cached"));
	/* not ELF yet */
	snprintf(cmd, sizeof(cmd), "echo text > '%s'", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(stat(path, &st), 0);
	build_id__cache_free();
	assert_int_equal(build_id__cached(path, st.st_dev, st.st_ino, &bid), -ENOEXEC);

	/* same inode, now an ELF file with an id */
	snprintf(cmd, sizeof(cmd), "cat /bin/ls > '%s'", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(build_id__from_file(path, &direct), 0);
	assert_int_equal(build_id__cached(path, st.st_dev, st.st_ino, &bid), -ENOEXEC);

	build_id__cache_free();
	assert_int_equal(build_id__cached(path, st.st_dev, st.st_ino, &bid), 0);
	assert_int_equal(bid.size, direct.size);
	assert_memory_equal(bid.data, direct.data, direct.size);

	/* a file replaced since it was mapped: not trusted */
	assert_int_equal(build_id__cached(path, st.st_dev, st.st_ino + 1, &bid),
			 -ESTALE);
	/* open errors are not remembered */
	assert_int_equal(build_id__cached("/nonexistent", 1, 12345, &bid), -ENOENT);
	/* ino 0: keyed by stat() */
	assert_int_equal(build_id__cached(path, 0, 0, &bid), 0);
	assert_memory_equal(bid.data, direct.data, direct.size);

	/* many entries: the table grows and still finds them all */
	for (uint64_t i = 1; i <= 2000; i++)
		build_id__cached("/nonexistent", 7, i, &bid);
	assert_int_equal(build_id__cached(path, st.st_dev, st.st_ino, &bid), 0);
	build_id__cache_free();
}

static void test_cached_device_not_opened(void **state)
{
	struct build_id bid;
	struct stat st;

	/* a character device is answered without being read */
	assert_int_equal(stat("/dev/zero", &st), 0);
	assert_int_equal(build_id__cached("/dev/zero", st.st_dev, st.st_ino, &bid),
			 -ENOEXEC);
	build_id__cache_free();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bin_ls_matches_readelf),
		cmocka_unit_test(test_libc_matches_readelf),
		cmocka_unit_test(test_program_headers_only),
		cmocka_unit_test(test_linker_chosen_id),
		cmocka_unit_test(test_no_build_id),
		cmocka_unit_test(test_section_only),
		cmocka_unit_test(test_not_elf_and_missing),
		cmocka_unit_test(test_notes_blob_several),
		cmocka_unit_test(test_notes_blob_none_or_truncated),
		cmocka_unit_test(test_notes_blob_huge_sizes),
		cmocka_unit_test(test_kernel_matches_perf),
		cmocka_unit_test(test_module_missing),
		cmocka_unit_test(test_module_if_any),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_cached_device_not_opened),
	};

	return cmocka_run_group_tests_name("build-id", tests, tmpdir_setup,
					   group_teardown);
}
