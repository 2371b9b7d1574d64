/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What perf 6.1 does differently per architecture, one table per
 * architecture (arch-x86_64.c, arch-aarch64.c): the sample registers by
 * name and bit (the kernel's arch/<arch>/include/uapi/asm/perf_regs.h),
 * which registers perf samples, and the sample_type bit -W asks for.
 *
 * perf report names registers back choosing its table by the file's ARCH
 * feature (uname -m), so the table in use is the one of the architecture
 * perfcap was built for (perf_arch__host()). Every table is built into
 * every build, so that each is unit-tested on any machine.
 */
#ifndef PERFCAP_ARCH_H
#define PERFCAP_ARCH_H

#include <stdint.h>

struct perf_arch {
	/* uname -m of the machines it is for, as the header's ARCH says it */
	const char *machine;
	/* index: the register's bit; NULL where no register perf samples sits */
	const char *const *reg_names;
	unsigned int nr_reg_names;
	/*
	 * Every register perf samples there (perf's PERF_REGS_MASK): what
	 * --user-regs and -I without a list mean, and what --call-graph dwarf
	 * samples for the unwinder. Names outside it are refused, as perf's.
	 */
	uint64_t regs_mask;
	/* bits of the instruction and stack pointer, which DWARF cannot do without */
	unsigned int reg_ip, reg_sp;
	/* -W: PERF_SAMPLE_WEIGHT, or _WEIGHT_STRUCT where perf 6.1 asks for that */
	uint64_t weight_type;
};

extern const struct perf_arch perf_arch_x86_64;
extern const struct perf_arch perf_arch_aarch64;

/* The table of the architecture this perfcap was built for. */
const struct perf_arch *perf_arch__host(void);

/* IP and SP: what perf adds to a --user-regs subset with --call-graph dwarf. */
static inline uint64_t perf_arch__dwarf_min_regs(const struct perf_arch *arch)
{
	return (1ULL << arch->reg_ip) | (1ULL << arch->reg_sp);
}

#endif
