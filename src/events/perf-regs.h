/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sample registers by name: --user-regs and --intr-regs take them as
 * perf does, from an architecture's table (events/arch.h); perf report
 * names them back from the same bits.
 */
#ifndef PERFCAP_PERF_REGS_H
#define PERFCAP_PERF_REGS_H

#include <stddef.h>
#include <stdint.h>

#include "events/arch.h"

/*
 * "AX,sp,R8" -> mask (names case-insensitive, as perf). NULL or "" means
 * every register (arch->regs_mask). Returns 0, or -EINVAL with the bad
 * name copied to bad.
 */
int perf_regs__parse_arch(const struct perf_arch *arch, const char *spec, uint64_t *mask,
			  char *bad, size_t badlen);
/* The names perf_regs__parse_arch takes, space separated, in bit order, into buf. */
const char *perf_regs__names_arch(const struct perf_arch *arch, char *buf, size_t size);

/* The same with this build's table (perf_arch__host()). */
int perf_regs__parse(const char *spec, uint64_t *mask, char *bad, size_t badlen);
const char *perf_regs__names(void);

#endif
