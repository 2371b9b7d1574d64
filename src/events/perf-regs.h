/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 sample registers by name (the PERF_REG_X86_* bits of
 * <asm/perf_regs.h>): --user-regs and --intr-regs take them, as perf
 * does, and perf report names them back from the same bits.
 */
#ifndef PERFCAP_PERF_REGS_H
#define PERFCAP_PERF_REGS_H

#include <stddef.h>
#include <stdint.h>

/* Every register perf samples on x86_64: all but DS, ES, FS and GS (bits 12-15). */
#define PERF_REGS_MASK_X86_64 0xff0fffULL
/* What a DWARF unwinder needs at least: IP and SP (perf forces these with --user-regs). */
#define PERF_REGS_DWARF_MIN ((1ULL << 8) | (1ULL << 7))

/*
 * "AX,sp,R8" -> mask (names case-insensitive, as perf). NULL or "" means
 * every register. Returns 0, or -EINVAL with the bad name copied to bad.
 */
int perf_regs__parse(const char *spec, uint64_t *mask, char *bad, size_t badlen);
/* "AX BX ... R15": the names perf_regs__parse takes, space separated. */
const char *perf_regs__names(void);

#endif
