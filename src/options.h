/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf record's options, parsed. Pure: parsing does no system calls, so
 * the tables in tests/unit/test_options.c exercise it without privileges.
 */
#ifndef PERFCAP_OPTIONS_H
#define PERFCAP_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

enum callgraph_mode {
	CALLGRAPH_NONE,
	CALLGRAPH_FP,
	CALLGRAPH_DWARF,
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
	char *events_buf;	/* owns the joined list; record_opts__exit frees it */
	uint64_t period;	/* -c; 0: not given */
	uint64_t freq;		/* -F; 0: not given */
	bool freq_max;		/* -F max */
	enum callgraph_mode callgraph;
	uint32_t dwarf_stack_size; /* --call-graph dwarf,SIZE; default 8192 */
	bool sample_time;	/* -T */
	bool raw;		/* -R */
	bool switch_events;	/* --switch-events */
	bool no_inherit;	/* -i / --no-inherit */

	/* buffers and output */
	unsigned int mmap_pages; /* -m: data pages per ring, power of two; 0: default */
	const char *output;	/* -o; default "perf.data" */
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
	uint64_t status_ns;	/* --status=SECONDS: a status line per interval; 0 not given */
	bool threads;		/* --threads[=spec] */
	const char *threads_spec; /* its spec, checked; "cpu" when none was given */

	int quiet;		/* -q */
	int verbose;		/* -v, repeatable */
	bool help;		/* -h / --help: nothing else was checked */

	/*
	 * Not an error, for the caller to print: perf's -p/-t override -a/-C
	 * with a warning, and so do we (system_wide and cpu_list are cleared).
	 */
	const char *warning;
};

#define OPTS_DEFAULT_FREQ 4000
#define OPTS_DEFAULT_DWARF_SIZE 8192
#define OPTS_MAX_AIO 64
#define OPTS_DEFAULT_AIO 1

/*
 * Parse "perfcap record" arguments (argv[0] is "record"). On a usage
 * error returns -EINVAL with a one-line message in err (no newline) and
 * opts holds nothing to free. argv is not copied: opts points into it.
 * opts is overwritten: record_opts__exit() a previous parse first.
 * Options stop at the first non-option (or "--"): the rest is the
 * command. -C sets system_wide too (per-CPU recording on those CPUs).
 */
int record_opts__parse(struct record_opts *opts, int argc, char **argv,
		       char *err, int errlen);
/* Frees what a successful parse allocated (the joined -e list). */
void record_opts__exit(struct record_opts *opts);
/* The text of "perfcap record --help". */
const char *record_opts__usage(void);

/* "512", "512K", "2M" -> data pages (power of two) for -m; -EINVAL if bad. */
int parse_mmap_pages(const char *str, unsigned int page_size, unsigned int *pages);

#endif
