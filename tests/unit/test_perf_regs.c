// SPDX-License-Identifier: GPL-2.0
/*
 * arch-*.c and perf-regs.c: each architecture's register names and bits
 * as the kernel's uapi numbers them, the masks perf samples, and the
 * table this build uses. Both tables are tested in every build; the
 * build's own is also checked against the <asm/perf_regs.h> it compiles
 * with (x86_64 natively, aarch64 in the cross build under qemu).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <asm/perf_regs.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "events/arch.h"
#include "events/perf-regs.h"
#include "format/features.h"
#include "perf-file.h"
#include "util.h"

static uint64_t parse_ok(const struct perf_arch *arch, const char *spec)
{
	uint64_t mask = 0;
	char bad[32] = "";

	assert_int_equal(perf_regs__parse_arch(arch, spec, &mask, bad, sizeof(bad)), 0);
	return mask;
}

static void parse_bad(const struct perf_arch *arch, const char *spec, const char *want_bad)
{
	uint64_t mask = 0x1234;
	char bad[32] = "";

	assert_int_equal(perf_regs__parse_arch(arch, spec, &mask, bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, want_bad);
	assert_int_equal(mask, 0x1234);
}

/* Every sampled bit has a name and every name is a sampled bit: the list is the mask. */
static void check_names_are_the_mask(const struct perf_arch *arch)
{
	uint64_t named = 0;

	for (unsigned int i = 0; i < arch->nr_reg_names; i++)
		if (arch->reg_names[i])
			named |= 1ULL << i;
	assert_int_equal(named, arch->regs_mask);
	assert_int_equal(parse_ok(arch, NULL), arch->regs_mask);
	assert_int_equal(parse_ok(arch, ""), arch->regs_mask);
}

static void test_aarch64_names_and_bits(void **state)
{
	const struct perf_arch *a = &perf_arch_aarch64;
	char name[8];

	/* PERF_REG_ARM64_X0..X29 are bits 0..29, then LR 30, SP 31, PC 32 */
	for (int i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "x%d", i);
		assert_int_equal(parse_ok(a, name), 1ULL << i);
		snprintf(name, sizeof(name), "X%d", i);	/* perf: case-insensitive */
		assert_int_equal(parse_ok(a, name), 1ULL << i);
	}
	assert_int_equal(parse_ok(a, "lr"), 1ULL << 30);
	assert_int_equal(parse_ok(a, "sp"), 1ULL << 31);
	assert_int_equal(parse_ok(a, "pc"), 1ULL << 32);
	assert_int_equal(parse_ok(a, "x0,LR,pc"), (1ULL << 0) | (1ULL << 30) | (1ULL << 32));
	/* perf names bit 30 lr, has no x30/x31, and perfcap samples no VG */
	parse_bad(a, "x30", "x30");
	parse_bad(a, "x0,x31", "x31");
	parse_bad(a, "vg", "vg");
	parse_bad(a, "AX", "AX");
	parse_bad(a, "pc,", "");
	check_names_are_the_mask(a);
}

static void test_aarch64_masks(void **state)
{
	const struct perf_arch *a = &perf_arch_aarch64;
	char buf[256];

	/* perf's PERF_REGS_MASK there: (1 << PERF_REG_ARM64_MAX) - 1, MAX = 33 */
	assert_int_equal(a->regs_mask, 0x1ffffffffULL);
	assert_int_equal(perf_arch__dwarf_min_regs(a), (1ULL << 31) | (1ULL << 32));
	assert_string_equal(a->machine, "aarch64");
	assert_int_equal(a->weight_type, PERF_SAMPLE_WEIGHT);
	assert_string_equal(perf_regs__names_arch(a, buf, sizeof(buf)),
			    "x0 x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x11 x12 x13 x14 x15 x16 x17 "
			    "x18 x19 x20 x21 x22 x23 x24 x25 x26 x27 x28 x29 lr sp pc");
}

static void test_x86_64_names_and_bits(void **state)
{
	const struct perf_arch *a = &perf_arch_x86_64;
	static const char *const want[] = {
		"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
	};
	char name[8];

	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(parse_ok(a, want[i]), 1ULL << i);
	for (int i = 8; i < 16; i++) {	/* R8..R15 are bits 16..23 */
		snprintf(name, sizeof(name), "r%d", i);
		assert_int_equal(parse_ok(a, name), 1ULL << (i + 8));
	}
	assert_int_equal(parse_ok(a, "ip,sp"), 0x180);
	parse_bad(a, "DS", "DS");	/* the segment registers are not sampled */
	parse_bad(a, "GS", "GS");
	parse_bad(a, "x0", "x0");
	check_names_are_the_mask(a);
}

static void test_x86_64_masks(void **state)
{
	const struct perf_arch *a = &perf_arch_x86_64;
	char buf[256];

	assert_int_equal(a->regs_mask, 0xff0fffULL);
	assert_int_equal(perf_arch__dwarf_min_regs(a), 0x180);
	assert_string_equal(a->machine, "x86_64");
	assert_int_equal(a->weight_type, PERF_SAMPLE_WEIGHT_STRUCT);
	assert_string_equal(perf_regs__names_arch(a, buf, sizeof(buf)),
			    "AX BX CX DX SI DI BP SP IP FLAGS CS SS R8 R9 R10 R11 R12 R13 R14 R15");
}

/* The build's table against the kernel's uapi header it compiles with. */
static void test_host_table_is_the_uapi(void **state)
{
	const struct perf_arch *a = perf_arch__host();

#if defined(__x86_64__)
	assert_ptr_equal(a, &perf_arch_x86_64);
	assert_int_equal(parse_ok(a, "AX"), 1ULL << PERF_REG_X86_AX);
	assert_int_equal(parse_ok(a, "FLAGS"), 1ULL << PERF_REG_X86_FLAGS);
	assert_int_equal(parse_ok(a, "SS"), 1ULL << PERF_REG_X86_SS);
	assert_int_equal(parse_ok(a, "R8"), 1ULL << PERF_REG_X86_R8);
	assert_int_equal(parse_ok(a, "R15"), 1ULL << PERF_REG_X86_R15);
	assert_int_equal(a->reg_ip, PERF_REG_X86_IP);
	assert_int_equal(a->reg_sp, PERF_REG_X86_SP);
	/* below R8 only DS..GS are left out */
	assert_int_equal(a->regs_mask & ((1ULL << PERF_REG_X86_R8) - 1),
			 ((1ULL << PERF_REG_X86_R8) - 1) &
			 ~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) |
			   (1ULL << PERF_REG_X86_FS) | (1ULL << PERF_REG_X86_GS)));
	assert_int_equal(a->regs_mask >> PERF_REG_X86_R8, 0xff);
#elif defined(__aarch64__)
	assert_ptr_equal(a, &perf_arch_aarch64);
	assert_int_equal(parse_ok(a, "x0"), 1ULL << PERF_REG_ARM64_X0);
	assert_int_equal(parse_ok(a, "x29"), 1ULL << PERF_REG_ARM64_X29);
	assert_int_equal(parse_ok(a, "lr"), 1ULL << PERF_REG_ARM64_LR);
	assert_int_equal(a->reg_ip, PERF_REG_ARM64_PC);
	assert_int_equal(a->reg_sp, PERF_REG_ARM64_SP);
	assert_int_equal(a->regs_mask, (1ULL << PERF_REG_ARM64_MAX) - 1);
#else
#error "no table for this architecture"
#endif
	/* --user-regs=? lists the build's table */
	assert_string_equal(perf_regs__names(), perf_regs__names_arch(a, (char[256]){ 0 }, 256));
}

/*
 * perf report picks its register names by the file's ARCH feature, which
 * is uname -m (features.c): on the machine this build runs on, that must
 * name the build's table, or perf would read x86 names into arm64 bits.
 */
static void test_host_table_is_the_header_arch(void **state)
{
	struct feature_env env = { 0 };
	struct utsname uts;
	struct strbuf sb;
	uint32_t len;

	assert_int_equal(uname(&uts), 0);
	assert_string_equal(perf_arch__host()->machine, uts.machine);
	/* the ARCH feature as the header gets it: u32 length, the string */
	strbuf__init(&sb);
	assert_int_equal(feature__write(HEADER_ARCH, &env, &sb), 0);
	assert_true(sb.len > sizeof(len));
	memcpy(&len, sb.data, sizeof(len));
	assert_int_equal(len, sb.len - sizeof(len));
	assert_string_equal(sb.data + sizeof(len), perf_arch__host()->machine);
	strbuf__exit(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aarch64_names_and_bits),
		cmocka_unit_test(test_aarch64_masks),
		cmocka_unit_test(test_x86_64_names_and_bits),
		cmocka_unit_test(test_x86_64_masks),
		cmocka_unit_test(test_host_table_is_the_uapi),
		cmocka_unit_test(test_host_table_is_the_header_arch),
	};

	return cmocka_run_group_tests_name("perf_regs", tests, NULL, NULL);
}
