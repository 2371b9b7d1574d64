// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "events/perf-regs.h"
#include "util.h"

/* Index = bit number, from the kernel's arch/x86/include/uapi/asm/perf_regs.h. */
static const char *const reg_names[] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
	NULL, NULL, NULL, NULL, /* DS ES FS GS: not sampled on x86_64 */
	"R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
};

const char *perf_regs__names(void)
{
	static char buf[128];

	if (!buf[0]) {
		size_t n = 0;

		for (size_t i = 0; i < ARRAY_SIZE(reg_names); i++)
			if (reg_names[i])
				n += snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? " " : "",
					      reg_names[i]);
	}
	return buf;
}

int perf_regs__parse(const char *spec, uint64_t *mask, char *bad, size_t badlen)
{
	uint64_t m = 0;
	const char *s = spec;

	if (!spec || !*spec) {
		*mask = PERF_REGS_MASK_X86_64;
		return 0;
	}
	for (;;) {
		size_t len = strcspn(s, ",");
		size_t i;

		for (i = 0; i < ARRAY_SIZE(reg_names); i++)
			if (reg_names[i] && strlen(reg_names[i]) == len &&
			    !strncasecmp(reg_names[i], s, len))
				break;
		if (i == ARRAY_SIZE(reg_names)) {
			if (bad && badlen)
				snprintf(bad, badlen, "%.*s", (int)len, s);
			return -EINVAL;
		}
		m |= 1ULL << i;
		if (!s[len])
			break;
		s += len + 1;
	}
	*mask = m;
	return 0;
}
