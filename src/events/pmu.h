/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PMUs as sysfs describes them: /sys/bus/event_source/devices/NAME/ with
 * its type, format/ (how a term such as event= or umask= lands in the
 * config words: "config:0-7,21") and events/ (aliases: "event=0x3c").
 * The sysfs root is a parameter (pmu__set_sysfs_root) so that the unit
 * tests use a fake tree in a temporary directory.
 */
#ifndef PERFCAP_PMU_H
#define PERFCAP_PMU_H

#include <stdbool.h>
#include <stdint.h>

struct pmu_format {
	char *name;		/* "event", "umask" */
	int word;		/* 0: config, 1: config1, 2: config2 */
	uint64_t bits;		/* the bits of that word the value fills, low to high */
};

struct pmu_alias {
	char *name;		/* "cpu-cycles", "tsc" */
	char *terms;		/* "event=0x3c,umask=0x00", as the events/ file says */
};

struct pmu {
	char *name;
	uint32_t type;
	int nr_formats;
	struct pmu_format *formats;
	int nr_aliases;
	struct pmu_alias *aliases;
};

/* Where sysfs is ("/sys" unless set); NULL restores the default. */
void pmu__set_sysfs_root(const char *root);
const char *pmu__sysfs_root(void);

/*
 * Load PMU name from sysfs. Returns 0, -ENOENT when there is no such PMU,
 * or another -errno (an unreadable type, a format file we cannot parse:
 * then err says which).
 */
int pmu__load(struct pmu *pmu, const char *name, char *err, int errlen);
void pmu__exit(struct pmu *pmu);

const struct pmu_format *pmu__format(const struct pmu *pmu, const char *name);
const struct pmu_alias *pmu__alias(const struct pmu *pmu, const char *name);

/*
 * Parse a format file's text: "config:0-7,21", "config1:0-63".
 * Returns 0 or -EINVAL.
 */
int pmu_format__parse(struct pmu_format *f, const char *text);

/*
 * Put value into the format's bits of its config word (perf's order: the
 * value's low bit into the format's lowest bit, and so on). -ERANGE if
 * the value does not fit: max then holds the largest value that does.
 */
int pmu_format__apply(const struct pmu_format *f, uint64_t value, uint64_t config[3],
		      uint64_t *max);

/*
 * Every PMU whose events/ has an alias named name: calls fn for each
 * (name of the PMU, the alias's terms); stops and returns fn's non-zero
 * result. Returns 0 when fn never did.
 */
int pmu__for_each_alias_named(const char *name,
			      int (*fn)(const char *pmu, const char *terms, void *arg),
			      void *arg);

#endif
