/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --threads[=spec]: which rings each reader thread drains and where it
 * runs, with perf record's spellings and meanings:
 *
 *   cpu (also no value)  a thread per recorded CPU
 *   core, package, numa  a thread per core, package or NUMA node (the
 *                        recorded CPUs in it)
 *   M/A:M/A:...          a thread per pair: it drains the rings of the
 *                        CPUs in M and runs on the CPUs in A
 *
 * As in perf, masks are filtered through the recorded CPUs (M) and the
 * online CPUs (A): CPUs outside them are ignored, but a mask left empty
 * is an error, and so are masks that overlap. Unlike perf, every
 * recorded CPU must be in some M: its ring needs a reader, and perfcap
 * writes one file rather than a file per thread.
 */
#ifndef PERFCAP_THREAD_SPEC_H
#define PERFCAP_THREAD_SPEC_H

#include <stddef.h>

#include "events/cpumap.h"

struct thread_spec_item {
	struct cpu_map *maps;		/* recorded CPUs whose rings it drains */
	struct cpu_map *affinity;	/* CPUs it runs on */
};

struct thread_spec {
	int nr;
	struct thread_spec_item *t;
};

/*
 * Build the layout for spec (NULL or "" means cpu) over the recorded
 * cpus; topology is read under sysfs ("/sys", or a test's copy). 0, or
 * -EINVAL with a message in err.
 */
int thread_spec__build(struct thread_spec *ts, const char *spec, const struct cpu_map *cpus,
		       const struct cpu_map *online, const char *sysfs, char *err, size_t errlen);
void thread_spec__exit(struct thread_spec *ts);

/*
 * Without --threads perfcap chooses: a reader thread per group of at most
 * THREAD_SPEC_CPUS_PER_READER recorded CPUs, whole cores (SMT siblings
 * together, even past the number) within a package, each running on its
 * group's CPUs, a single recorded CPU included. The rings of per-thread
 * events (no CPU) are in no group: the caller gives them one reader
 * thread of their own (reader-sched.c).
 *
 * One core per reader: a reader woken on the CPU whose ring filled copies
 * that ring from a warm cache, and that, not how much one reader can
 * move, is what keeps the rings from overflowing
 * (bench/results/2026-12-01-threads-vs-perf/; bench/drain.c in
 * 2026-12-01-drain/).
 */
#define THREAD_SPEC_CPUS_PER_READER 1

/*
 * The layout perfcap picks for cpus (see above): 0 with ts->nr = 0 where
 * no group applies (rings without a CPU, or several CPUs within one
 * cpus_per_reader: the caller's one reader), else the reader threads in
 * ts. why gets one line.
 */
int thread_spec__auto(struct thread_spec *ts, const struct cpu_map *cpus, const char *sysfs,
		      int cpus_per_reader, char *why, size_t whylen);

/* Is spec a spelling --threads takes (no system calls: for option parsing)? */
int thread_spec__check(const char *spec, char *err, size_t errlen);

#endif
