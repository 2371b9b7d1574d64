/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The values of options, as perf writes them. Each takes the whole
 * string or refuses it (-EINVAL, or false): strtoull alone would take
 * " 5", "-5" (as a huge value) and "5x", none of which is what the user
 * meant. Pure: no system calls.
 */
#ifndef PERFCAP_OPTION_VALUES_H
#define PERFCAP_OPTION_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An unsigned number in base (0: C's prefixes). */
int parse_u64(const char *str, int base, uint64_t *val);
/* "100M", "4096", "1G": bytes, with perf's B/K/M/G tags (upper case only, as perf). */
int parse_size(const char *str, uint64_t *bytes);
/* "30s", "5m", "1h", "2d", "500ms": nanoseconds, not 0. A bare number is seconds. */
int parse_duration(const char *str, uint64_t *ns);
/* "1,2,3": positive ids up to INT_MAX, no empty items. */
bool valid_id_list(const char *str);
/* A file descriptor number. */
bool parse_fd(const char *s, int *fd);
/*
 * -m's value as a page count before the power-of-two check: decimal
 * pages, or a size with B/K/M/G (either case) rounded up to whole pages.
 */
int parse_mmap_value(const char *str, unsigned int page_size, uint64_t *pages);
/* "512", "512K", "2M" -> data pages (power of two) for -m; -EINVAL if bad. */
int parse_mmap_pages(const char *str, unsigned int page_size, unsigned int *pages);
/* "16K", "2M": a byte count as perf prints it in its rounding notice. */
void size_str(uint64_t bytes, char *buf, size_t size);

static inline bool is_power_of_2(uint64_t n)
{
	return n && !(n & (n - 1));
}

#endif
