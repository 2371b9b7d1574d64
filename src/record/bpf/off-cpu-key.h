/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the --off-cpu BPF program (off-cpu.bpf.c) and the recorder
 * (record/off-cpu.c) share: the key of the off_cpu map, whose value is
 * the nanoseconds a task spent asleep with those stacks, and the sizes.
 */
#ifndef PERFCAP_RECORD_OFF_CPU_KEY_H
#define PERFCAP_RECORD_OFF_CPU_KEY_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Frames kept of each stack (user, kernel); perf 6.1 keeps 32 user frames. */
#define OFF_CPU_MAX_STACK	64
/* Distinct stacks kept (each OFF_CPU_MAX_STACK u64s), and (task, stacks, state) sums (perf 6.1 keeps 102400). */
#define OFF_CPU_MAX_STACKS	16384
#define OFF_CPU_MAX_SUMS	102400
/* Threads asleep at one time that the program can follow. */
#define OFF_CPU_MAX_ASLEEP	32768

struct off_cpu_key {
	__u32 tid;
	__u32 pid;		/* the process (tgid) */
	__s32 user_stack;	/* ids in the stacks map; < 0: none (-EFAULT, -EEXIST...) */
	__s32 kernel_stack;
	__u32 state;		/* TASK_INTERRUPTIBLE (1) or TASK_UNINTERRUPTIBLE (2) */
	__u32 pad;
};

#endif
