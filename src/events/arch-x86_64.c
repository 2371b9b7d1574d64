// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64: the PERF_REG_X86_* bits of the kernel's
 * arch/x86/include/uapi/asm/perf_regs.h with perf's names for them, and
 * what perf 6.1's tools/perf/arch/x86 sets differently.
 */
#include <linux/perf_event.h>

#include "events/arch.h"
#include "util.h"

/* Index = bit number. */
static const char *const x86_64_regs[] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
	NULL, NULL, NULL, NULL, /* DS ES FS GS (bits 12-15): not sampled on x86_64 */
	"R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
	/*
	 * The XMM registers (bits 32-63) are sampled only by PMUs with
	 * extended registers, for -I; perf asks the PMU first, and perfcap
	 * does not offer them.
	 */
};

const struct perf_arch perf_arch_x86_64 = {
	.machine = "x86_64",
	.reg_names = x86_64_regs,
	.nr_reg_names = ARRAY_SIZE(x86_64_regs),
	/* all but the segment registers DS..GS */
	.regs_mask = 0xff0fffULL,
	.reg_ip = 8,
	.reg_sp = 7,
	/* x86's perf asks for the weight as a struct (latencies in two halves) */
	.weight_type = PERF_SAMPLE_WEIGHT_STRUCT,
};
