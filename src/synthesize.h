/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records for what existed before recording started, so that perf report
 * can name tasks and symbols: COMM/FORK/MMAP2 from /proc, the kernel's
 * map and the modules' maps. Each record goes to s->emit() whole.
 */
#ifndef PERFCAP_SYNTHESIZE_H
#define PERFCAP_SYNTHESIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct synth {
	/*
	 * Size of the sample_id trailer every non-sample record carries
	 * (attr.sample_id_all); synthesized records get it zero-filled.
	 */
	size_t id_hdr_size;
	/* Put build ids (from the ELF notes) into MMAP2 records. */
	bool mmap_build_id;
	/* Required: takes one whole record; returns 0 or -errno (stops). */
	int (*emit)(struct synth *s, const void *rec, size_t len);
	void *priv;
	/* Counters, for messages and tests. */
	unsigned long nr_comm, nr_fork, nr_mmap;
};

/* PERF_RECORD_MMAP for [kernel.kallsyms]_text (from /proc/kallsyms). */
int synthesize__kernel_mmap(struct synth *s);
/* PERF_RECORD_MMAP per loaded module (/proc/modules); 0 if none. */
int synthesize__modules(struct synth *s);
/*
 * One process: FORK + COMM for every thread (only tid when
 * only_tid > 0), MMAP2 of its executable maps. -ESRCH if it is gone.
 */
int synthesize__process(struct synth *s, pid_t pid, pid_t only_tid);
/* Every process in /proc (system-wide recording). */
int synthesize__all(struct synth *s);
/* The COMM a workload gets before exec ("perf-exec" in perf). */
int synthesize__comm(struct synth *s, pid_t pid, pid_t tid, const char *comm);

#endif
