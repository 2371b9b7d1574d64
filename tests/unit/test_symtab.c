// SPDX-License-Identifier: GPL-2.0
/*
 * profile/symtab.c: function names as perf report finds them. kallsyms
 * from a fixture (aliases at one address, a sizeless last symbol before
 * a module's), and this test binary's own symbol table (a static and a
 * global function, a C++-mangled name demangled as perf 6.1 prints it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "profile/symtab.h"
#include "tmpdir.h"

static void test_kallsyms_aliases_and_modules(void **state)
{
	FILE *f = fopen(tpath("kallsyms"), "w");
	struct symtab *st;
	const struct symbol *s;

	assert_non_null(f);
	/* perf keeps the last of several at one address: the only one still sized. */
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81000100 T memset\n"
	      "ffffffff81000100 T __memset\n"
	      "ffffffff81000100 T __pi_memset\n"
	      "ffffffff81000200 t local_fn\n"
	      "ffffffff81000300 D some_data\n"
	      "ffffffff81000400 T last_kernel_fn\n"
	      "ffffffffc0000000 t mod_fn\t[mymod]\n"
	      "0000000000000000 T hidden\n", f);
	fclose(f);
	st = symtab__from_kallsyms(tpath("kallsyms"));
	assert_non_null(st);
	/* Data and zero addresses are no functions. */
	assert_int_equal(symtab__nr(st), 5);
	s = symtab__find(st, 0xffffffff81000180);
	assert_non_null(s);
	assert_string_equal(s->name, "__pi_memset");
	s = symtab__find(st, 0xffffffff81000350);	/* some_data is no symbol: local_fn runs on */
	assert_non_null(s);
	assert_string_equal(s->name, "local_fn");
	/* The kernel's last ends a page on, rounded up, not at the module's first. */
	s = symtab__find(st, 0xffffffff81001fff);
	assert_non_null(s);
	assert_string_equal(s->name, "last_kernel_fn");
	assert_null(symtab__find(st, 0xffffffff81002000));
	s = symtab__find(st, 0xffffffffc0000010);
	assert_non_null(s);
	assert_string_equal(s->name, "mod_fn");
	assert_null(symtab__find(st, 0xffffffff80000000));
	symtab__delete(st);
	assert_null(symtab__from_kallsyms(tpath("nosuch")));
}

/* The functions the next test looks up in its own binary. */
__attribute__((noinline, used)) static int local_function(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline, used)) int global_function_for_symtab(int x);
__attribute__((noinline, used)) int global_function_for_symtab(int x)
{
	return local_function(x) + 2;
}

/* A C++ method's mangled name, given to a C function: work::Burner::spin(unsigned long). */
__attribute__((noinline, used)) int cxx_named(int x) __asm__("_ZN4work6Burner4spinEm");
__attribute__((noinline, used)) int cxx_named(int x)
{
	return x + 7;
}

/* An address's offset in this binary, through /proc/self/maps, into an ELF vaddr. */
static uint64_t vaddr_of(Elf *elf, const void *fn)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t addr = (uint64_t)(uintptr_t)fn, v = 0;
	size_t n;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;

		if (sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &off) == 3 && addr >= lo && addr < hi) {
			uint64_t foff = addr - lo + off;

			assert_int_equal(elf_getphdrnum(elf, &n), 0);
			for (size_t i = 0; i < n; i++) {
				GElf_Phdr ph;

				if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
				    foff >= ph.p_offset && foff < ph.p_offset + ph.p_filesz)
					v = foff - ph.p_offset + ph.p_vaddr;
			}
		}
	}
	fclose(f);
	assert_true(v != 0);
	return v;
}

static void test_own_binary(void **state)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	Elf *elf;
	struct symtab *st;
	const struct symbol *s;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	st = symtab__from_elf(elf, NULL);
	assert_true(symtab__nr(st) > 10);
	s = symtab__find(st, vaddr_of(elf, (const void *)local_function) + 1);
	assert_non_null(s);
	assert_string_equal(s->name, "local_function");
	s = symtab__find(st, vaddr_of(elf, (const void *)global_function_for_symtab));
	assert_non_null(s);
	assert_string_equal(s->name, "global_function_for_symtab");
	/* Demangled as perf 6.1 prints it: no parameters; the raw name kept. */
	s = symtab__find(st, vaddr_of(elf, (const void *)cxx_named));
	assert_non_null(s);
	assert_string_equal(s->name, "work::Burner::spin");
	assert_string_equal(s->raw, "_ZN4work6Burner4spinEm");
	assert_int_equal(global_function_for_symtab(1) + cxx_named(1), 6 + 8);
#ifdef __x86_64__
	{
		/* The PLT's first entry after its header: named NAME@plt, as perf does. */
		Elf_Scn *scn = NULL;
		size_t shstrndx;
		GElf_Shdr sh;
		bool seen = false;

		assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
		while ((scn = elf_nextscn(elf, scn))) {
			const char *name;

			assert_non_null(gelf_getshdr(scn, &sh));
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!name || strcmp(name, ".plt") || sh.sh_size < 2 * sh.sh_entsize)
				continue;
			s = symtab__find(st, sh.sh_addr + sh.sh_entsize + 3);
			assert_non_null(s);
			assert_true(strlen(s->name) > 4);
			assert_string_equal(s->name + strlen(s->name) - 4, "@plt");
			seen = true;
		}
		assert_true(seen);
	}
#endif
	symtab__delete(st);
	elf_end(elf);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kallsyms_aliases_and_modules),
		cmocka_unit_test(test_own_binary),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
