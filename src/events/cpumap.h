/* SPDX-License-Identifier: GPL-2.0 */
/* CPU lists: "0-3,7" <-> sorted, de-duplicated arrays of CPU numbers. */
#ifndef PERFCAP_CPUMAP_H
#define PERFCAP_CPUMAP_H

struct cpu_map {
	int nr;
	int cpu[]; /* sorted, unique */
};

/*
 * Parse a perf-style CPU list ("0-3,7", "2", "0,2-3"). Pure: does not
 * check that the CPUs exist. NULL with errno = EINVAL on a malformed list.
 */
struct cpu_map *cpu_map__parse(const char *list);
/* Online CPUs from /sys/devices/system/cpu/online; NULL on error. */
struct cpu_map *cpu_map__online(void);
/* A map holding only -1: "any CPU" for per-thread events. */
struct cpu_map *cpu_map__dummy(void);
void cpu_map__delete(struct cpu_map *map);
/* 1 if cpu is in super, else 0 (super may be NULL). */
int cpu_map__contains(const struct cpu_map *super, int cpu);
/*
 * Print as a perf CPU list ("0-3,7") into buf. Like snprintf: never
 * writes more than size bytes, returns the length the whole list needs.
 */
int cpu_map__snprintf(const struct cpu_map *map, char *buf, int size);
/* Parse a list file like /sys/devices/system/cpu/online; NULL with errno on error. */
struct cpu_map *cpu_map__read(const char *path);

#endif
