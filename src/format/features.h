/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Feature sections: the payloads that follow the data section and
 * describe the machine and the recording (hostname, cpu topology, event
 * names, build ids, tracing data ...). Layouts as perf 6.1 reads them.
 */
#ifndef PERFCAP_FEATURES_H
#define PERFCAP_FEATURES_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "format/build-id.h"
#include "util.h"

struct feature_event {
	const struct perf_event_attr *attr;
	const char *name;	/* required: perf names the event after it */
	const uint64_t *ids;
	int nr_ids;
};

/* A group of events for GROUP_DESC: its leader's index in events, and its size. */
struct feature_group {
	int leader_idx;
	int nr_members;
};

/* A DSO for the BUILD_ID section (e.g. one that got samples). */
struct feature_dso {
	const char *filename;	/* exactly as in its MMAP2 record; "[vdso]", "[kernel.kallsyms]" */
	struct build_id bid;	/* must be right: a wrong id is worse than none */
	uint16_t cpumode;	/* PERF_RECORD_MISC_KERNEL or _USER; 0: user */
};

struct feature_env {
	/*
	 * perfcap's own command line as main() got it, for CMDLINE. Written
	 * as perf does: the executable's real path (/proc/self/exe) in place
	 * of argv[0], then argv[1..argc-1].
	 */
	int argc;
	char **argv;
	const char *version;	/* VERSION; NULL: "perfcap" */
	int nr_events;
	const struct feature_event *events;
	int nr_groups;		/* GROUP_DESC: groups of more than one event; 0: none */
	const struct feature_group *groups;
	uint64_t first_sample_time; /* SAMPLE_TIME; 0 if no samples */
	uint64_t last_sample_time;
	int nr_tracepoints;	/* TRACING_DATA: the tracepoints recorded */
	const char *const *tp_system;
	const char *const *tp_event;
	bool no_buildid;	/* -B: no BUILD_ID section */
	/* -z: HEADER_COMPRESSED (zstd); comp_level 0: not compressed, no section. */
	uint32_t comp_level, comp_ratio, comp_mmap_len;
	/*
	 * DSOs for BUILD_ID. With dsos_only they are the whole section (the
	 * recorder chose them: the DSOs with hits); otherwise the running
	 * kernel and every module with an id come first (the pipe's start).
	 */
	int nr_dsos;
	const struct feature_dso *dsos;
	bool dsos_only;
};

/*
 * Append the payload of feature feat to sb. Returns 0, -ENOENT when the
 * feature does not apply to this recording or this machine, or perfcap
 * does not write it (its bit stays clear), or another -errno. On any
 * error sb is left as it was.
 */
int feature__write(int feat, const struct feature_env *env, struct strbuf *sb);

/* Every feature perfcap knows how to write, in bit order; ends with -1. */
extern const int perfcap_features[];

/*
 * Each feature of perfcap_features that applies to this recording, in
 * bit order, handed to fn with its payload; those for which skip (if not
 * NULL) says true are left out. A feature that fails to build is named in
 * a warning and left out. Used for the file's feature sections
 * (perf-data.c) and the pipe's FEATURE records (pipe-data.c).
 */
void features__each(const struct feature_env *env, bool (*skip)(int feat),
		    void (*fn)(void *arg, int feat, const void *payload, size_t len), void *arg);

#endif
