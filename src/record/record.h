/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record command's state, shared by the files that act on it:
 *
 *   cli/builtin-record.c    the order of steps (cmd_record's phases) and
 *                           the loop that supervises the readers
 *   record/target.c         -p/-t/-a/-C and the command: what is recorded
 *   record/reader-sched.c   which reader drains which ring, where it runs
 *                           and at what priority
 *   record/record-control.c -D, --control, --max-size, --switch-output:
 *                           everything the loop does between two sleeps
 *                           for the user (record_control__tick)
 *   record/synth.c          records for what existed before: tasks, maps
 *   record/summary.c        what was lost, into the file and the summary
 *   record/off-cpu.c        --off-cpu: its BPF program and samples (off-cpu.h)
 *   record/record-buildids.c  the BUILD_ID section's DSOs, the build-id cache
 *
 * Internal to the record command: nothing else includes this.
 */
#ifndef PERFCAP_RECORD_RECORD_H
#define PERFCAP_RECORD_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "record-opts.h"
#include "events/evlist.h"
#include "events/parse-events.h"
#include "format/features.h"
#include "format/perf-data.h"
#include "io/output.h"
#include "io/writer.h"
#include "record/control.h"
#include "record/hotplug.h"
#include "record/live-maps.h"
#include "record/off-cpu.h"
#include "record/record-stats.h"
#include "record/record-thread.h"
#include "record/rings.h"
#include "record/status.h"
#include "record/switch-event.h"
#include "record/switch-output.h"
#include "record/thread-spec.h"
#include "record/workload.h"
#include "util.h"

/* What control of the recording owns (record-control.c). */
struct record_control {
	struct control chan;		/* --control */
	struct switch_output so;
	uint64_t bytes_before;		/* what the files switched away from hold */
	uint64_t delay_base_ns;		/* -D: the events' time 0 (the command's start) */
	uint64_t delay_due_ns;		/* -D: when the events go on (or off); 0: nothing due */
	uint64_t synth_end;		/* where the current file's synthesized records end */
	int delay_step;			/* -D ranges: even: next is an enable */
	bool stop;			/* a control 'stop', -D's last range or --max-size ended it */
	/*
	 * What a --switch-output switch needs of the command that runs the
	 * recording, handed in by it (record/ calls nothing above itself):
	 * take_stats makes what the readers saw since the last switch the
	 * file's (stats keeps the sum); finish writes the features and the
	 * final header of the current file.
	 */
	void (*take_stats)(struct record *rec);
	int (*finish)(struct record *rec, int err);
};

struct record {
	struct record_opts opts;
	int argc;
	char **argv;
	struct event_list events;
	struct evlist evlist;
	struct rings rings;		/* one per CPU (record/rings.h) */
	struct writer writer;		/* the loop's: header, synthesized records, features */
	struct output out;
	struct perf_data pd;
	struct perf_data_attr *attrs;
	struct workload wl;
	bool has_workload;
	pid_t *targets;		/* -p/-t: stop when all are gone */
	int nr_targets;
	struct record_stats stats;
	struct thread_spec tspec;	/* each reader's rings and CPUs */
	struct record_threads readers;
	struct status status;		/* the live status line */
	bool file_created;
	uint32_t comp_mmap_len;		/* -z: HEADER_COMPRESSED's, a ring's mmap length */
	struct record_control ctl;
	struct record_stats file_stats;	/* the current file's (SAMPLE_TIME); stats: all files' */
	/* The kernel's and modules' synthesized maps, again in each new file. */
	struct strbuf kcache;
	bool kcaching, kcached;
	int pipe_fd;			/* -o -: the stdout we were given (-1: a file) */
	struct off_cpu *offcpu;		/* --off-cpu; NULL without */
	struct switch_event sw_event;	/* --switch-output-event (opened only with it) */
	struct dso_hits synth_hits;	/* the maps synthesized into the current file */
	struct hotplug hotplug;		/* CPUs that went offline, and came back */
	/* --unwind (record/record-unwind.c) */
	struct live_maps live;		/* the map timeline the unwind stages read */
	struct unwind_stage_config unwind;
	struct perf_event_attr *file_attrs;	/* the attrs as the file says them */
	char unwind_bdir[4096];		/* perf's build-id cache */
};

static inline uint64_t record__now_ns(void)
{
	return mono_ns();
}

/* record/target.c */
/* The events follow the command perfcap starts (not -a/-C/-p/-t with a timer command). */
bool record__workload_is_target(const struct record *rec);
/* -C's CPUs, -a/-p/-t's threads. 0, or -EINVAL for bad input (said), -errno. */
int record__resolve_target(struct record *rec);
/* The events follow thread tid too (the command, once forked). */
void record__add_thread(struct record *rec, pid_t tid);
/* Every -p/-t target has exited. */
bool record__targets_gone(struct record *rec);

/* record/reader-sched.c */
/* The readers for the rings, each with its rings and CPUs; main_wake_fd: the loop's. 0 or -errno. */
int record__setup_readers(struct record *rec, int main_wake_fd);
/* -r, or the readers' RLIMIT_RTTIME bound: before the readers start. 0 or -errno. */
int record__sched_start(struct record *rec);
/* The recorder's threads above the workload's nice value (before the writers start threads). */
void record__raise_priority(void);
/* SIGXCPU: a reader ran too long without sleeping; every reader back to its nice value. */
void record__demote_readers(struct record *rec);

/* record/record-control.c */
/* -D: the events stay off at the start. */
bool record__delayed(const struct record *rec);
/* Checks, the control channel's fds, the switching state: before the file is created. */
int record_control__setup(struct record *rec);
/* The recording starts: -D's clock and --switch-output=TIME's count from now. */
void record_control__start(struct record *rec);
/*
 * Between two sleeps of the loop: -D's times, --control's lines,
 * --max-size, --switch-output (switch_signal: SIGUSR2 came). 0, or
 * -errno; rec->ctl.stop: end the recording.
 */
int record_control__tick(struct record *rec, uint64_t now, bool switch_signal);
/* How long the loop may sleep: at most max_ms, and not past what is due. */
int record_control__timeout(struct record *rec, uint64_t now, int max_ms);
/* At the end, with --timestamp-filename (or --switch-output): the last file is PATH.<time> too. */
int record_control__name_output(struct record *rec);

/* record/synth.c */
/*
 * The tasks and maps that exist now, into the output (again: for a
 * --switch-output's new file, the command's processes as they are). 0 or -errno.
 */
int record__synthesize(struct record *rec, bool again);

/* record/record-buildids.c */
/* What the readers and the synthesized records note for build ids (-B: nothing). */
void record__build_ids_setup(struct record *rec);
/*
 * The current file's BUILD_ID entries, into env (dsos_only): the DSOs
 * its samples hit, or every DSO with --buildid-all; each is added to the
 * build-id cache unless -N. What was noted is forgotten, for the next
 * --switch-output file. Free with record__build_ids_free.
 */
void record__build_ids(struct record *rec, struct feature_env *env);
void record__build_ids_free(struct feature_env *env);

/* record/record-unwind.c */
/*
 * --unwind: the live map timeline, the unwind stages' configuration, the
 * attrs converted; after the events are open, before the pipelines.
 * 0, or -errno with a message.
 */
int record__unwind_init(struct record *rec);
void record__unwind_exit(struct record *rec);
/* The attr of event i as the file says it: with --unwind, callchains and no stacks. */
const struct perf_event_attr *record__file_attr(const struct record *rec, int i);
/* Its line of the summary. */
void record__unwind_summary(const struct record *rec, const struct stage_stats *st);

/* record/summary.c */
/* The kernel's per-event lost samples, as PERF_RECORD_LOST_SAMPLES records. 0 or -errno. */
int record__emit_lost_samples(struct record *rec);
/* The closing lines: what was written, what was lost, and with -v how. */
void record__print_summary(struct record *rec, int err);

#endif
