// SPDX-License-Identifier: GPL-2.0
/* Which architecture's table this build uses: the one it was compiled for. */
#include "events/arch.h"

const struct perf_arch *perf_arch__host(void)
{
#if defined(__x86_64__)
	return &perf_arch_x86_64;
#elif defined(__aarch64__)
	return &perf_arch_aarch64;
#else
#error "no table for this architecture: add src/events/arch-<arch>.c (events/arch.h)"
#endif
}
