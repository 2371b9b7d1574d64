// SPDX-License-Identifier: GPL-2.0
/* Register names <-> sample_regs bits, for any architecture's table. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "events/perf-regs.h"

static bool sampled(const struct perf_arch *arch, unsigned int bit)
{
	return bit < arch->nr_reg_names && bit < 64 && arch->reg_names[bit] &&
	       (arch->regs_mask & (1ULL << bit));
}

const char *perf_regs__names_arch(const struct perf_arch *arch, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned int i = 0; i < arch->nr_reg_names && n < size; i++)
		if (sampled(arch, i))
			n += snprintf(buf + n, size - n, "%s%s", n ? " " : "", arch->reg_names[i]);
	return buf;
}

int perf_regs__parse_arch(const struct perf_arch *arch, const char *spec, uint64_t *mask,
			  char *bad, size_t badlen)
{
	uint64_t m = 0;
	const char *s = spec;

	if (!spec || !*spec) {
		*mask = arch->regs_mask;
		return 0;
	}
	for (;;) {
		size_t len = strcspn(s, ",");
		unsigned int i;

		for (i = 0; i < arch->nr_reg_names; i++)
			if (sampled(arch, i) && strlen(arch->reg_names[i]) == len &&
			    !strncasecmp(arch->reg_names[i], s, len))
				break;
		if (i == arch->nr_reg_names) {
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

int perf_regs__parse(const char *spec, uint64_t *mask, char *bad, size_t badlen)
{
	return perf_regs__parse_arch(perf_arch__host(), spec, mask, bad, badlen);
}

const char *perf_regs__names(void)
{
	static char buf[256];

	if (!buf[0])
		perf_regs__names_arch(perf_arch__host(), buf, sizeof(buf));
	return buf;
}
