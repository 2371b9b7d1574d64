// SPDX-License-Identifier: GPL-2.0
/*
 * aarch64: the PERF_REG_ARM64_* bits of the kernel's
 * arch/arm64/include/uapi/asm/perf_regs.h (x0..x29, then lr, sp and pc)
 * with perf's lower-case names for them, and what perf 6.1 sets there.
 */
#include <linux/perf_event.h>

#include "events/arch.h"
#include "util.h"

/* Index = bit number. */
static const char *const aarch64_regs[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9",
	"x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19",
	"x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29",
	"lr", "sp", "pc",
	/*
	 * Bit 46 is VG (the SVE vector granule, kernel 6.1): perf 6.1 adds it
	 * to the user registers on SVE machines whose PMU takes it; perfcap
	 * does not sample it (perfcap-record(1), Differences).
	 */
};

const struct perf_arch perf_arch_aarch64 = {
	.machine = "aarch64",
	.reg_names = aarch64_regs,
	.nr_reg_names = ARRAY_SIZE(aarch64_regs),
	/* x0..x29, lr, sp, pc: bits 0-32 (PERF_REG_ARM64_MAX is 33) */
	.regs_mask = (1ULL << 33) - 1,
	.reg_ip = 32,
	.reg_sp = 31,
	/* perf's generic choice: arm64 has no arch_evsel__set_sample_weight */
	.weight_type = PERF_SAMPLE_WEIGHT,
};
