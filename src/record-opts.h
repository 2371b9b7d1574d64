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
};

/* One -e value and the --filter that followed it (perf applies a filter to the events of the -e before it). */
struct event_arg {
	const char *events;	/* the -e value as given: "sched:*", "{cs,cpu-clock}:S" */
	const char *filter;	/* --filter after it; NULL if none */
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
	bool sample_time;	/* -T */
	bool raw;		/* -R */
	bool switch_events;	/* --switch-events */
	bool no_inherit;	/* -i / --no-inherit */
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
	int comp_level;		/* -z / --compression-level[=N]: zstd level 1..22 (-z alone: 1; -z0: zstd's default, 3); 0 off */
	uint64_t user_buffer;	/* --user-buffer-size: the readers' triage memory in bytes; 0 none */
	bool user_buffer_set;	/* ... given (else the default, TRIAGE_DEFAULT_BUDGET) */
	const char *output;	/* -o; default "perf.data"; "-": pipe format to stdout */
	bool output_given;	/* -o was given (perf writes pipe format to a FIFO stdout otherwise) */
	bool no_buildid_cache;	/* -N */
	bool no_buildid;	/* -B */
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

#endif
