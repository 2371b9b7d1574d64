// SPDX-License-Identifier: GPL-2.0
/*
 * CPU lists as perf and sysfs spell them ("0-3,7") and the sorted,
 * de-duplicated arrays the rest of perfcap iterates over.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/cpumap.h"
#include "util.h"

/*
 * Far above any real NR_CPUS (x86 MAXSMP is 8192), low enough that a
 * typo like "0-4000000000" cannot make us allocate gigabytes.
 */
#define CPU_MAP_MAX_CPU 65535

static struct cpu_map *cpu_map__alloc(int nr)
{
	struct cpu_map *map = xzalloc(sizeof(*map) + (size_t)nr * sizeof(int));

	map->nr = nr;
	return map;
}

/* One CPU number: decimal digits only, so "-1", "+1", " 1", "0x1" are errors. */
static int parse_cpu(const char **pos, int *cpu)
{
	const char *s = *pos;
	long val = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	while (*s >= '0' && *s <= '9') {
		val = val * 10 + (*s - '0');
		if (val > CPU_MAP_MAX_CPU)
			return -ERANGE;
		s++;
	}
	*cpu = (int)val;
	*pos = s;
	return 0;
}

struct cpu_map *cpu_map__parse(const char *list)
{
	unsigned char *seen = NULL;
	struct cpu_map *map = NULL;
	const char *s = list;
	int nr = 0, i;

	if (!list || !*list)
		goto out_err;
	/* A bitmap sorts and de-duplicates in one pass; it is at most 64 KiB. */
	seen = xzalloc(CPU_MAP_MAX_CPU + 1);
	for (;;) {
		int first, last;

		if (parse_cpu(&s, &first))
			goto out_err;
		last = first;
		if (*s == '-') {
			s++;
			if (parse_cpu(&s, &last) || last < first)
				goto out_err;
		}
		for (i = first; i <= last; i++) {
			nr += !seen[i];
			seen[i] = 1;
		}
		if (*s == '\0')
			break;
		/* Only a comma may separate items, and one must follow it. */
		if (*s != ',')
			goto out_err;
		s++;
	}

	map = cpu_map__alloc(nr);
	nr = 0;
	for (i = 0; i <= CPU_MAP_MAX_CPU; i++)
		if (seen[i])
			map->cpu[nr++] = i;
	free(seen);
	return map;

out_err:
	free(seen);
	/* Out of range is a malformed list too: one errno for every failure. */
	errno = EINVAL;
	return NULL;
}

struct cpu_map *cpu_map__read(const char *path)
{
	struct cpu_map *map;
	char *buf = NULL;
	ssize_t len;

	len = read_file(path, &buf);
	if (len < 0) {
		errno = (int)-len;
		return NULL;
	}
	/* sysfs ends the list with a newline. */
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	map = cpu_map__parse(buf);
	free(buf);
	return map;
}

struct cpu_map *cpu_map__online(void)
{
	return cpu_map__read("/sys/devices/system/cpu/online");
}

struct cpu_map *cpu_map__dummy(void)
{
	struct cpu_map *map = cpu_map__alloc(1);

	map->cpu[0] = -1;
	return map;
}

void cpu_map__delete(struct cpu_map *map)
{
	free(map);
}

int cpu_map__contains(const struct cpu_map *super, int cpu)
{
	int lo = 0, hi = super ? super->nr - 1 : -1;

	/* Maps are sorted, so a binary search answers for large machines too. */
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (super->cpu[mid] == cpu)
			return 1;
		if (super->cpu[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return 0;
}

/*
 * snprintf's contract: never write past size, always NUL-terminate when
 * size > 0, return the length the whole list needs, so callers can tell
 * truncation from success.
 */
int cpu_map__snprintf(const struct cpu_map *map, char *buf, int size)
{
	int len = 0, i = 0;

	if (size > 0)
		buf[0] = '\0';
	while (map && i < map->nr) {
		int first = map->cpu[i], j = i, n;

		/* -1 (cpu_map__dummy) never starts a run: print it alone. */
		while (first >= 0 && j + 1 < map->nr && map->cpu[j + 1] == map->cpu[j] + 1)
			j++;
		if (j == i)
			n = snprintf(len < size ? buf + len : NULL,
				     len < size ? (size_t)(size - len) : 0,
				     "%s%d", i ? "," : "", first);
		else
			n = snprintf(len < size ? buf + len : NULL,
				     len < size ? (size_t)(size - len) : 0,
				     "%s%d-%d", i ? "," : "", first, map->cpu[j]);
		if (n < 0)
			return -EINVAL;
		len += n;
		i = j + 1;
	}
	return len;
}
