/* SPDX-License-Identifier: GPL-2.0 */
/* One event: its attr, its fds (per CPU x thread) and the ids the kernel gave them. */
#ifndef PERFCAP_EVSEL_H
#define PERFCAP_EVSEL_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "events/parse-events.h"

struct evsel {
	struct perf_event_attr attr;
	char *name;
	bool tracepoint;
	char *tp_system, *tp_event;
	int idx;
	int nr_cpus, nr_threads;
	int *fds;		/* [cpu * nr_threads + thread], -1 when not open */
	uint64_t *ids;		/* same indexing; PERF_EVENT_IOC_ID */
	int nr_ids;		/* ids that were read; more follow when a CPU comes back (hotplug.c) */
	bool on;		/* enabled by the recorder (evsel__set_enabled) */

	/* From the event's syntax (parse-events.h says what each means). */
	struct evsel *leader;	/* itself when it leads a group or stands alone */
	int nr_members;		/* a leader's group, itself included; 1: no group */
	char *filter;		/* tracepoint filter (--filter), set after open */
	bool sample_read;	/* S */
	bool precise_max;	/* P */
	bool weak_group;	/* W */
	struct event_terms terms;	/* period=, freq=, call-graph=, stack-size= */
	bool has_cgroup;	/* -G: counts only in the cgroup whose directory cgroup_fd is */
	int cgroup_fd;
	int exclude_perf_arg;	/* --exclude-perf: 1 + the index of its -e; 0 none */
};

#define FD(e, c, t) ((e)->fds[(c) * (e)->nr_threads + (t)])

/*
 * perf 6.1's --off-cpu event: a software bpf-output event of this name,
 * whose samples the recorder writes (record/off-cpu.c).
 */
#define OFF_CPU_EVENT "offcpu-time"
bool evsel__is_off_cpu(const struct evsel *e);
/* What its samples may hold (perf 6.1's OFFCPU_SAMPLE_TYPES, less CGROUP, which perfcap never samples). */
#define OFF_CPU_SAMPLE_TYPES (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			      PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | \
			      PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

struct evsel *evsel__new(const struct perf_event_attr *attr, const char *name);
/* An evsel for one parsed event; the caller sets leader (evlist__add_events does). */
struct evsel *evsel__new_spec(const struct event_spec *ev);
void evsel__delete(struct evsel *e);
static inline bool evsel__is_leader(const struct evsel *e)
{
	return !e->leader || e->leader == e;
}
int evsel__alloc_fds(struct evsel *e, int nr_cpus, int nr_threads);
void evsel__close(struct evsel *e);
/* Size of the sample_id trailer of non-sample records. */
size_t evsel__id_hdr_size(const struct evsel *e);

#endif
