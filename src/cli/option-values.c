// SPDX-License-Identifier: GPL-2.0
/*
 * The values of options, as perf writes them: whole unsigned numbers,
 * sizes with B/K/M/G, durations, page counts, id lists (option-values.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/option-values.h"
#include "util.h"

int parse_u64(const char *str, int base, uint64_t *val)
{
	unsigned long long v;
	char *end;

	if (!str || *str < '0' || *str > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(str, &end, base);
	if (errno || *end)
		return -EINVAL;
	*val = v;
	return 0;
}

bool valid_id_list(const char *str)
{
	const char *s = str;

	for (;;) {
		uint64_t id = 0;

		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9') {
			id = id * 10 + (uint64_t)(*s - '0');
			if (id > INT_MAX)
				return false;
			s++;
		}
		if (id == 0)
			return false;
		if (!*s)
			return true;
		if (*s != ',')
			return false;
		s++;
	}
}

int parse_mmap_value(const char *str, unsigned int page_size, uint64_t *pages)
{
	static const struct {
		char tag;
		uint64_t mult;
	} tags[] = {
		{ 'B', 1 }, { 'K', 1ULL << 10 }, { 'M', 1ULL << 20 }, { 'G', 1ULL << 30 },
	};
	size_t len = str ? strlen(str) : 0;
	uint64_t num, bytes;
	char digits[32];
	size_t i;

	if (!len || !page_size || len >= sizeof(digits))
		return -EINVAL;
	if (str[len - 1] >= '0' && str[len - 1] <= '9')
		return parse_u64(str, 10, pages);

	for (i = 0; i < ARRAY_SIZE(tags); i++) {
		/* Lower case too: "512k" can only mean one thing. */
		if ((str[len - 1] & ~0x20) != tags[i].tag)
			continue;
		memcpy(digits, str, len - 1);
		digits[len - 1] = '\0';
		if (parse_u64(digits, 10, &num) ||
		    __builtin_mul_overflow(num, tags[i].mult, &bytes) ||
		    bytes > UINT64_MAX - (page_size - 1))
			return -EINVAL;
		*pages = (bytes + page_size - 1) / page_size;
		return 0;
	}
	return -EINVAL;
}

int parse_mmap_pages(const char *str, unsigned int page_size, unsigned int *pages)
{
	uint64_t n;

	/*
	 * perf rounds a non-power-of-two up with a notice; perfcap refuses
	 * it instead, so the ring is exactly the size the user asked for.
	 */
	if (parse_mmap_value(str, page_size, &n) || !is_power_of_2(n) || n > UINT_MAX)
		return -EINVAL;
	*pages = (unsigned int)n;
	return 0;
}

void size_str(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= (1ULL << 20) && !(bytes & ((1ULL << 20) - 1)))
		snprintf(buf, size, "%lluM", (unsigned long long)(bytes >> 20));
	else if (bytes >= 1024 && !(bytes & 1023))
		snprintf(buf, size, "%lluK", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, size, "%lluB", (unsigned long long)bytes);
}

int parse_size(const char *str, uint64_t *bytes)
{
	static const struct {
		char tag;
		int shift;
	} tags[] = { { 'B', 0 }, { 'K', 10 }, { 'M', 20 }, { 'G', 30 } };
	size_t len = strlen(str);
	char digits[32];
	uint64_t n;

	if (!len || len >= sizeof(digits))
		return -EINVAL;
	if (str[len - 1] >= '0' && str[len - 1] <= '9')
		return parse_u64(str, 10, bytes);
	/* Upper case only, as perf: "5m" is five minutes to --switch-output. */
	for (size_t i = 0; i < ARRAY_SIZE(tags); i++) {
		if (str[len - 1] != tags[i].tag)
			continue;
		memcpy(digits, str, len - 1);
		digits[len - 1] = '\0';
		if (parse_u64(digits, 10, &n) || (n && __builtin_clzll(n) < tags[i].shift))
			return -EINVAL;
		*bytes = n << tags[i].shift;
		return 0;
	}
	return -EINVAL;
}

int parse_duration(const char *str, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t mult;
	} units[] = {
		{ "ms", 1000000ULL }, { "s", 1000000000ULL }, { "m", 60000000000ULL },
		{ "h", 3600000000000ULL }, { "d", 86400000000000ULL },
	};
	size_t len = strspn(str, "0123456789");
	char digits[24];
	uint64_t n;

	if (!len || len >= sizeof(digits))
		return -EINVAL;
	memcpy(digits, str, len);
	digits[len] = '\0';
	if (parse_u64(digits, 10, &n) || !n)
		return -EINVAL;
	if (!str[len]) {
		*ns = n * 1000000000ULL;
		return n > UINT64_MAX / 1000000000ULL ? -EINVAL : 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(str + len, units[i].unit))
			return __builtin_mul_overflow(n, units[i].mult, ns) ? -EINVAL : 0;
	return -EINVAL;
}

bool parse_fd(const char *s, int *fd)
{
	uint64_t v;

	if (parse_u64(s, 10, &v) || v > INT_MAX)
		return false;
	*fd = (int)v;
	return true;
}
