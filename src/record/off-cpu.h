/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --off-cpu (perf 6.1's meaning): where the recorded tasks waited. A BPF
 * program on sched_switch (record/bpf/off-cpu.bpf.c) sums the time each
 * task spends asleep per stack; at the end of the recording each sum
 * becomes one sample of the event offcpu-time, its period the
 * nanoseconds, its callchain the task's kernel and user stacks when it
 * went to sleep.
 *
 * The record command calls these in its phases (record.h has the state).
 */
#ifndef PERFCAP_RECORD_OFF_CPU_H
#define PERFCAP_RECORD_OFF_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "record/bpf/off-cpu-key.h"

struct record;
struct off_cpu;

/*
 * After the targets, the events and the command's fork, before the events
 * are configured: adds offcpu-time to the events, loads and attaches the
 * program with the targets' filter (the command's process, -p/-t's
 * threads, -C's CPUs; -a: every task). 0, or -errno with one message
 * (-EPERM: not privileged for BPF). Nothing to do without --off-cpu.
 */
int record__off_cpu_prepare(struct record *rec);
/* When the events go on: the program starts counting. */
void record__off_cpu_start(struct record *rec);
/*
 * After the last pass over the rings: the program stops; one offcpu-time
 * sample per (task, stacks, state) into the output. 0 or -errno.
 */
int record__off_cpu_write(struct record *rec);
/* The program detached and unloaded; NULL is fine. */
void off_cpu__delete(struct off_cpu *oc);

/* What record__off_cpu_write wrote. */
struct off_cpu_stats {
	uint64_t samples;
	uint64_t ns;		/* the periods' sum */
	uint64_t lost;		/* switches the program could not count (a map was full) */
	uint64_t no_stack;	/* samples without any stack */
};

/*
 * One offcpu-time sample, as perf 6.1 lays it out: the fields of
 * sample_type (perf's OFFCPU_SAMPLE_TYPES at most: IDENTIFIER, IP, TID,
 * TIME, ID, CPU, PERIOD, CALLCHAIN) with id, the key's pid/tid, time, CPU
 * 0 and ns as the period; the callchain is the kernel stack (kstack, if
 * any) then the user stack (ustack), each zero-terminated in at most
 * OFF_CPU_MAX_STACK entries; IP is the first user frame (perf's), or the
 * first kernel frame for a task without a user stack. buf holds
 * OFF_CPU_SAMPLE_MAX u64s. Returns the record's size in bytes.
 */
#define OFF_CPU_SAMPLE_MAX (16 + 2 * (OFF_CPU_MAX_STACK + 1))
size_t off_cpu__encode_sample(uint64_t *buf, uint64_t sample_type, uint64_t id,
			      const struct off_cpu_key *key, uint64_t ns, uint64_t time,
			      const uint64_t *kstack, const uint64_t *ustack);

#endif
