/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A CPU of a system-wide recording that goes offline and comes back
 * (issue 33): the kernel takes a per-CPU event off its CPU for good when
 * the CPU goes down, so the recorder opens that CPU's events again when
 * it is back, into the same ring (hotplug.c says how).
 */
#ifndef PERFCAP_HOTPLUG_H
#define PERFCAP_HOTPLUG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct record;
struct cpu_map;

/* One stretch in which a CPU of the recording was offline. */
struct hotplug_gap {
	int cpu;
	uint64_t off_ns, on_ns;	/* CLOCK_MONOTONIC, as seen by the tick; on_ns 0: not back */
	bool reopened;		/* its events were opened again */
	bool pending;		/* back, its events not yet open: tried again each tick */
	int tries;		/* ... the tries that failed */
	bool late;		/* offline at the start (-a): a ring of its own once it came */
};

/* An fd of an event the kernel took off its CPU: kept for the ring, and its lost count. */
struct hotplug_retired {
	int fd;
	int evsel;		/* index in the evlist */
	int c;			/* CPU index in the evlist's cpus */
};

struct hotplug {
	bool active;		/* a system-wide recording with a ring per CPU */
	bool late;		/* -a: a CPU offline at the start is recorded once it comes (rings reserved) */
	struct cpu_map *online;	/* the online CPUs as last read */
	int online_fd;		/* /sys/devices/system/cpu/online, kept open (online_open) */
	bool online_open;
	char online_text[4096];	/* ... its text as last read: a tick that reads the same parses nothing */
	struct hotplug_gap *gaps;
	int nr_gaps, cap_gaps;
	struct hotplug_retired *retired;
	int nr_retired, cap_retired;
	uint64_t start_ns;	/* the recording's start, for the summary's times */
	uint64_t reads, read_ns;	/* reads of the online mask, and their time */
};

/*
 * With -a, with the events open, before the rings are mapped: room in the
 * rings for every possible CPU that is offline now (rings__reserve), so
 * that one that comes online is recorded too. Nothing for -C, tasks, AUX
 * areas.
 */
void hotplug__reserve(struct record *rec);
/* Before the loop, with the events open and mapped. */
void hotplug__init(struct hotplug *h, const struct record *rec, uint64_t now);
/*
 * The loop's tick: read the online CPUs; note a CPU of the recording that
 * went offline, open the events of one that came back. A CPU whose events
 * cannot be opened again is said (-v: each step) and left out; the
 * recording goes on.
 */
void hotplug__tick(struct hotplug *h, struct record *rec, uint64_t now);
/* The summary's lines: each CPU that went, when, and when it came back. */
void hotplug__summary(const struct hotplug *h, FILE *f);
/* After the rings are gone: the retired fds closed. */
void hotplug__exit(struct hotplug *h);

#endif
