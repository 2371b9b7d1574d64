// SPDX-License-Identifier: GPL-2.0
/*
 * --off-cpu's BPF program (record/off-cpu.c loads it): at every context
 * switch, a recorded task that goes to sleep leaves the time and its
 * stacks (user and kernel) in went_off, under its tid; when it is switched in
 * again, the time it was away is added to its entry of off_cpu, keyed
 * by (tid, pid, stacks, state). The recorder reads off_cpu at the end
 * and writes one offcpu-time sample per entry, as perf 6.1 does.
 *
 * Built with clang -target bpf against the running kernel's vmlinux.h
 * (the Makefile makes it with bpftool); the task_struct fields are read
 * with CO-RE relocations, so the object loads on other kernels too.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "record/bpf/off-cpu-key.h"

#define PF_KTHREAD		0x00200000	/* include/linux/sched.h */
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002

/*
 * A kernel stack taken here starts in this program, then the
 * bpf_trace_run4 that ran it, then __schedule: the first two are the
 * tracing's, not the task's (kernel/trace/bpf_trace.c: the stack is
 * taken from the caller of the helper).
 */
#define KERNEL_SKIP 2

/* Where a sleeping task went off the CPU: when, and with which stacks. */
struct went_off {
	__u64 ns;		/* when it went to sleep */
	__s32 user_stack;
	__s32 kernel_stack;
	__u32 state;
};

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFF_CPU_MAX_STACK * sizeof(__u64));
	__uint(max_entries, OFF_CPU_MAX_STACKS);
} stacks SEC(".maps");

/*
 * The tasks asleep now, by tid. A preallocated hash, not task storage
 * (perf 6.1's): task storage allocates a task's entry at its first
 * sleep, in the scheduler, and that can fail, losing the sleep (1 run
 * in about 40 here lost the workload's first one).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct went_off);
	__uint(max_entries, OFF_CPU_MAX_ASLEEP);
} went_off SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct off_cpu_key);
	__type(value, __u64);
	__uint(max_entries, OFF_CPU_MAX_SUMS);
} off_cpu SEC(".maps");

/* The recorder sizes the filters before loading (at least 1 entry each). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 1);
} cpu_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 1);
} task_filter SEC(".maps");

/* Set by the recorder: in .bss, written through the skeleton's mmap. */
int enabled;
int filter_cpu;		/* -C: only switches on the CPUs in cpu_filter */
int filter_task;	/* -p/-t/the command: only tasks in task_filter */
int filter_by_pid;	/* ... looked up by their process (tgid), not their tid */
__u64 lost;		/* switches not counted: a map was full */

static __always_inline int wanted(struct task_struct *t, unsigned int state)
{
	__u32 key;

	/* A kernel thread has no user stack; perf 6.1 leaves them out too. */
	if (t->flags & PF_KTHREAD)
		return 0;
	/* Asleep, not preempted (TASK_FREEZABLE and friends may be or'ed in). */
	if (!(state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)))
		return 0;
	if (filter_cpu) {
		key = bpf_get_smp_processor_id();
		if (!bpf_map_lookup_elem(&cpu_filter, &key))
			return 0;
	}
	if (filter_task) {
		key = filter_by_pid ? t->tgid : t->pid;
		if (!bpf_map_lookup_elem(&task_filter, &key))
			return 0;
	}
	return 1;
}

/* sched_switch since 5.18: (preempt, prev, next, prev_state). */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct went_off *w;
	__u32 tid;
	__u64 now;

	if (!enabled)
		return 0;
	now = bpf_ktime_get_ns();

	if (wanted(prev, prev_state)) {
		/* prev is current here: its stacks are the ones it sleeps in. */
		struct went_off off = {
			.ns = now,
			.user_stack = bpf_get_stackid(ctx, &stacks,
						      BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP),
			.kernel_stack = bpf_get_stackid(ctx, &stacks, BPF_F_FAST_STACK_CMP |
							(KERNEL_SKIP & BPF_F_SKIP_FIELD_MASK)),
			.state = prev_state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE),
		};

		tid = prev->pid;
		if (bpf_map_update_elem(&went_off, &tid, &off, BPF_ANY))
			__sync_fetch_and_add(&lost, 1);
	}

	tid = next->pid;
	w = bpf_map_lookup_elem(&went_off, &tid);
	if (w) {
		struct off_cpu_key key = {
			.tid = next->pid,
			.pid = next->tgid,
			.user_stack = w->user_stack,
			.kernel_stack = w->kernel_stack,
			.state = w->state,
		};
		__u64 delta = now - w->ns;
		__u64 *sum;

		/* Read before: the entry may be reused once deleted. */
		bpf_map_delete_elem(&went_off, &tid);
		sum = bpf_map_lookup_elem(&off_cpu, &key);
		if (!sum && bpf_map_update_elem(&off_cpu, &key, &delta, BPF_NOEXIST) == 0)
			delta = 0;	/* added */
		else if (!sum)
			/* Another CPU added the key meanwhile, or the map is full. */
			sum = bpf_map_lookup_elem(&off_cpu, &key);
		if (sum)
			__sync_fetch_and_add(sum, delta);
		else if (delta)
			__sync_fetch_and_add(&lost, 1);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
