/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What perf record's command line asked for (struct record_opts): the
 * configuration of a recording, read by every wing that acts on it. Made
 * by cli/options.c's parser; plain data, no functions.
 */
#ifndef PERFCAP_RECORD_OPTS_H
#define PERFCAP_RECORD_OPTS_H

#include <stdbool.h>
#include <stdint.h>

enum callgraph_mode {
	CALLGRAPH_NONE,
	CALLGRAPH_FP,
	CALLGRAPH_DWARF,
	CALLGRAPH_LBR,		/* --call-graph lbr: the PMU's call stack (a branch stack) */
};

/* One -e value and the --filter that followed it (perf applies a filter to the events of the -e before it). */
struct event_arg {
	const char *events;	/* the -e value as given: "sched:*", "{cs,cpu-clock}:S" */
	const char *filter;	/* --filter after it; NULL if none */
	bool exclude_perf;	/* --exclude-perf after it: the recorder's own pid filtered out */
};

enum switch_output_mode {
	SWITCH_OUTPUT_NONE,
	SWITCH_OUTPUT_SIGNAL,	/* --switch-output or =signal: on SIGUSR2 */
	SWITCH_OUTPUT_SIZE,	/* =10M: when the file reaches switch_output_size bytes */
	SWITCH_OUTPUT_TIME,	/* =30s: every switch_output_ns */
};

/* --control fifo:CTL[,ACK] or fd:CTL[,ACK]: the checked spec, opened by the recorder. */
struct control_spec {
	bool given;
	bool fifo;		/* fifo: paths; else fd: numbers */
	const char *ctl_path, *ack_path;	/* fifo: ack_path NULL if none */
	int ctl_fd, ack_fd;	/* fd: ack_fd -1 if none */
};

struct record_opts {
	/* target */
	bool system_wide;	/* -a */
	const char *cpu_list;	/* -C LIST */
	const char *pid_list;	/* -p PIDS (comma separated) */
	const char *tid_list;	/* -t TIDS */
	char **argv;		/* -- COMMAND ARGS (NULL if none) */
	int argc;

	/* events */
	const char *events;	/* -e LIST, joined with ',' if given twice; NULL: default */
	uint64_t period;	/* -c; 0: not given */
	uint64_t freq;		/* -F; 0: not given */
	bool freq_max;		/* -F max */
	enum callgraph_mode callgraph;
	uint32_t dwarf_stack_size; /* --call-graph dwarf,SIZE; default 8192 */
	bool unwind;		/* --unwind: DWARF stacks unwound while recording (record/stage-unwind.c) */
	bool sample_time;	/* -T */
	bool raw;		/* -R */
	bool switch_events;	/* --switch-events */
	bool off_cpu;		/* --off-cpu: the offcpu-time event, from a BPF program (record/off-cpu.c) */
	bool no_inherit;	/* -i / --no-inherit; -t sets it unless -i or --inherit was given (perf's rule) */
	bool no_inherit_set;	/* -i, --no-inherit or --inherit was given */
	struct event_arg *event_args;	/* every -e in order, each with its --filter */
	int nr_event_args;
	bool group;		/* --group: every event of the command line in one group, as perf 6.1 */

	/* what each sample carries (perfcap always samples CPU, PERIOD and TIME) */
	uint64_t user_regs;	/* --user-regs[=REGS]: mask; 0 not given */
	uint64_t intr_regs;	/* -I / --intr-regs[=REGS] */
	bool sample_addr;	/* -d / --data */
	bool sample_weight;	/* -W / --weight */
	bool sample_period;	/* -P / --period (always on; accepted) */
	bool sample_cpu;	/* --sample-cpu (always on; accepted) */
	bool phys_data;		/* --phys-data */
	bool data_page_size;	/* --data-page-size */
	bool code_page_size;	/* --code-page-size */
	bool use_clockid;	/* -k / --clockid */
	int clockid;		/* its CLOCK_* id */
	bool all_user;		/* --all-user: exclude_kernel (perf 6.1 leaves exclude_hv as it was) */
	bool all_kernel;	/* --all-kernel: exclude_user */
	bool inherit_stat;	/* -s / --stat */
	bool no_samples;	/* -n / --no-samples */
	uint64_t branch_stack;	/* -b (PERF_SAMPLE_BRANCH_ANY) / -j FILTERS: branch_sample_type; 0 none */
	bool buildid_mmap;	/* --buildid-mmap (what perfcap does anyway) */
	bool no_bpf_event;	/* --no-bpf-event */

	/* buffers and output */
	unsigned int mmap_pages; /* -m: data pages per ring, rounded up to a power of two as perf; 0: default */
	unsigned int aux_pages;	/* -m N,M: AUX area pages (power of two); 0: default */
	bool overwrite;		/* --overwrite: backward rings, read at each --switch-output and at the end */
	/* AUX area tracing (record/aux.h) */
	bool aux_snapshot;	/* -S / --snapshot[=[e][size]]: the AUX area read at SIGUSR2 only */
	bool aux_snapshot_on_exit;	/* -Se: and at the end */
	uint64_t aux_snapshot_size;	/* -S size: at most that much of the newest trace; 0: the area */
	bool aux_sample;	/* --aux-sample[=size]: PERF_SAMPLE_AUX in the AUX event's group */
	uint32_t aux_sample_size;	/* its bytes a sample (default OPTS_DEFAULT_AUX_SAMPLE_SIZE) */
	int comp_level;		/* -z / --compression-level[=N]: zstd level 1..22 (-z alone: 1; -z0: zstd's default, 3); 0 off */
	bool comp_auto;		/* -zauto: level comp_level, once the output falls behind (stage-triage.c) */
	uint64_t user_buffer;	/* --user-buffer-size: the readers' triage memory in bytes; 0 none */
	bool user_buffer_set;	/* ... given (else the default, TRIAGE_DEFAULT_BUDGET) */
	const char *output;	/* -o; default "perf.data"; "-": pipe format to stdout */
	bool output_given;	/* -o was given (perf writes pipe format to a FIFO stdout otherwise) */
	bool no_buildid_cache;	/* -N */
	bool no_buildid;	/* -B */
	bool buildid_all;	/* --buildid-all: BUILD_ID lists every DSO, not only those hit */
	int aio;		/* --aio[=n]: 0 with the sync writer, else buffers per ring */
	/*
	 * --writer=sync|aio|uring. After a successful parse never NULL:
	 * "aio" when only --aio was given, else "sync"; and aio/uring always
	 * come with aio >= 1 (OPTS_DEFAULT_AIO unless --aio=n).
	 */
	const char *writer;
	int realtime;		/* -r PRIO: SCHED_FIFO priority, 0 off */
	bool readers_nice;	/* --reader-sched=nice: reader threads stay SCHED_OTHER */
	uint64_t status_ns;	/* --status=SECONDS: a status line per interval; 0 not given */
	bool threads;		/* --threads[=spec] */
	const char *threads_spec; /* its spec, checked; "cpu" when none was given */

	int quiet;		/* -q */
	int verbose;		/* -v, repeatable */
	bool help;		/* -h / --help: nothing else was checked */
	bool list_options;	/* --list-options: print every option name, nothing else checked */
	bool list_user_regs;	/* --user-regs=? : print the register names, nothing else checked */
	bool list_intr_regs;	/* -I? / --intr-regs=? */
	bool dry_run;		/* --dry-run: parse, check, exit 0 */

	/* control of the recording */
	int64_t delay_ms;	/* -D / --delay MSECS: start enabled after it; -1: disabled until --control enables */
	struct delay_range {
		uint64_t start_ms, end_ms;
	} *delay_ranges;	/* -D 10-20,30-40: enabled only in these windows (ms after start); delay_ms is then the first start */
	int nr_delay_ranges;
	struct control_spec control;	/* --control */
	uint64_t max_size;	/* --max-size SIZE: stop when the output reaches it; 0 none */
	enum switch_output_mode switch_output;
	uint64_t switch_output_size;	/* bytes, SWITCH_OUTPUT_SIZE */
	uint64_t switch_output_ns;	/* SWITCH_OUTPUT_TIME */
	int switch_max_files;	/* --switch-max-files N: keep the newest N; 0 all */
	bool timestamp_filename;	/* --timestamp-filename: PATH.<YYYYmmddHHMMSSss> */
	bool no_buffering;	/* --no-buffering: wakeup_events 1, no watermark (an attr matter, as in perf) */

	/* issue 23: the rest of perf 6.1's record options (doc/perfcap-record.1) */
	bool per_thread;	/* --per-thread: a ring per thread, no CPU (events on CPU -1) */
	const char *uid;	/* -u / --uid USER|UID: the existing tasks of that user */
	struct cgroup_arg {
		const char *names;	/* -G NAME[,NAME...]: one per event, "" skips one */
		int nr_event_args;	/* the -e's given before it */
	} *cgroup_args;
	int nr_cgroup_args;
	bool all_cgroups;	/* --all-cgroups: PERF_SAMPLE_CGROUP, CGROUP records */
	bool namespaces;	/* --namespaces: NAMESPACES records */
	bool sample_identifier;	/* --sample-identifier: PERF_SAMPLE_IDENTIFIER on every event */
	bool user_callchains;	/* --user-callchains: exclude_callchain_kernel */
	bool kernel_callchains;	/* --kernel-callchains: exclude_callchain_user */
	bool strict_freq;	/* --strict-freq: an -F above the kernel's limit is an error */
	bool running_time;	/* --running-time: TOTAL_TIME_ENABLED|RUNNING in read_format */
	bool sample_transaction; /* --transaction: PERF_SAMPLE_TRANSACTION */
	bool tail_synthesize;	/* --tail-synthesize: the records of what exists at the end */
	bool timestamp_boundary; /* --timestamp-boundary: first/last sample time (always written) */
	bool kcore;		/* --kcore: refused (no copy of /proc/kcore yet) */
	int proc_map_timeout_ms; /* --proc-map-timeout MS: per process; 0: perf's 500 */
	int num_thread_synthesize; /* --num-thread-synthesize N: accepted, perfcap uses one */
	uint64_t mmap_flush;	/* --mmap-flush BYTES: the least a reader copies from a ring; 0: 1 */
	enum { AFFINITY_SYS, AFFINITY_NODE, AFFINITY_CPU } affinity; /* --affinity */
	unsigned int synth;	/* --synth: SYNTH_* bits of what is read from /proc */
	const char *vmlinux;	/* --vmlinux FILE: checked to exist, as perf */
	const char *debuginfod;	/* --debuginfod[=URLS]: accepted ("" without URLS) */
	const char *clang_path, *clang_opt; /* accepted: perf uses them for -e prog.c only */
	const char *switch_output_event; /* --switch-output-event EVENTS: a SIGUSR2 per record */

	/*
	 * Not an error, for the caller to print: perf's -p/-t override -a/-C
	 * with a warning, and so do we (system_wide and cpu_list are cleared).
	 */
	const char *warning;
	/* Notices, as perf prints them ("rounding mmap pages size to 16K (4 pages)"); "" if none. */
	char notice[2][96];

	/* Strings a parse allocated (joined filters, fifo paths); record_opts__exit frees them. */
	char **owned;
	int nr_owned;
};

#define OPTS_DEFAULT_FREQ 4000
#define OPTS_DEFAULT_DWARF_SIZE 8192
#define OPTS_MAX_AIO 64
#define OPTS_MAX_COMP_LEVEL 22
#define OPTS_DEFAULT_AIO 1
/* perf 6.1's --aux-sample: 4 KiB a sample by default, at most 60 KiB (a sample is at most 64 KiB). */
#define OPTS_DEFAULT_AUX_SAMPLE_SIZE 4096
#define OPTS_MAX_AUX_SAMPLE_SIZE (60 * 1024)
#define OPTS_DEFAULT_PROC_MAP_TIMEOUT 500	/* ms, perf's */
/* --synth: what is synthesized from /proc (perf's task, mmap, cgroup; all by default) */
#define SYNTH_TASK 1u
#define SYNTH_MMAP 2u
#define SYNTH_CGROUP 4u
#define SYNTH_ALL (SYNTH_TASK | SYNTH_MMAP | SYNTH_CGROUP)

#endif
