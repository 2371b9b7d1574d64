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
 * group's CPUs, a single recorded CPU included. The record loop alone
 * reads the rings of per-thread events (no CPU), or of several CPUs when
 * one reader is to take them all (PERFCAP_CPUS_PER_READER, for tests).
 *
 * One core per reader. On the 2-CPU VM, interleaved, 5 reps each
 * (bench/results/2026-12-01-threads-vs-perf/, -reader-sched/): with a
 * reader per CPU, dwarf-small lost 1.38% and 2.29% where the record loop
 * alone lost 13.11% and 12.51%, at 0.6 s of recorder CPU against 1.0 s;
 * the tracepoint flood 0.00% against 0.31% and 0.43%. What one reader can
 * move is not what limits it (bench/drain.c: 8 rings at 43 MB/s each kept
 * up with, 16 not); being woken on the CPU whose ring filled, and copying
 * that ring from a warm cache, is.
 */
#define THREAD_SPEC_CPUS_PER_READER 1

/*
 * The layout perfcap picks for cpus (see above): 0 with ts->nr = 0 for the
 * record loop alone, else the reader threads in ts. why gets one line.
 */
int thread_spec__auto(struct thread_spec *ts, const struct cpu_map *cpus, const char *sysfs,
		      int cpus_per_reader, char *why, size_t whylen);

/* Is spec a spelling --threads takes (no system calls: for option parsing)? */
int thread_spec__check(const char *spec, char *err, size_t errlen);

#endif
