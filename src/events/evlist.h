/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events of a recording, opened on every CPU x thread of the target.
 * Their rings are the recorder's (record/rings.h): one per CPU, the
 * first fd of a CPU mmap()ed, every other fd of that CPU redirected into
 * it (evlist__set_output).
 */
#ifndef PERFCAP_EVLIST_H
#define PERFCAP_EVLIST_H

#include <stdbool.h>
#include <sys/types.h>

#include "events/cpumap.h"
#include "events/evsel.h"

struct evlist {
	struct evsel **evsels;
	int nr;
	struct cpu_map *cpus;	/* the CPUs events are opened on */
	pid_t *threads;		/* -1 alone for system-wide */
	int nr_threads;
	bool system_wide;
};

#define evlist__for_each_evsel(evlist, e) \
	for (int __i = 0; __i < (evlist)->nr && ((e) = (evlist)->evsels[__i]); __i++)

void evlist__init(struct evlist *el);
void evlist__exit(struct evlist *el);
void evlist__add(struct evlist *el, struct evsel *e);
/* An evsel for each parsed event, with its group's leader. */
void evlist__add_events(struct evlist *el, const struct event_list *list);
/* Groups of more than one event (HEADER_GROUP_DESC). */
int evlist__nr_groups(const struct evlist *el);

/*
 * After evlist__config: what each event's own syntax says over the
 * command line's defaults: period= and freq= terms, P, and groups (members enabled with their leader; S: the
 * leader's samples read the group, the members do not sample).
 */
void evlist__apply_event_config(struct evlist *el);

/*
 * Open every event on every CPU x thread, a group's members with their
 * leader's fd; reads the ids, then sets the tracepoint filters. As perf
 * 6.1, cycles falls back to cpu-clock where there is no PMU for it, P
 * comes down to the precise_ip the PMU takes, and a W group that cannot
 * be opened as a group is opened apart. 0 or -errno, message printed.
 */
int evlist__open(struct evlist *el);
/* Every fd of CPU index c but fd itself writes into fd's ring. 0 or -errno, said. */
int evlist__set_output(struct evlist *el, int c, int fd);
/* --per-thread: every event's fd of thread index t (on CPU -1) writes into fd's ring. */
int evlist__set_output_thread(struct evlist *el, int t, int fd);
int evlist__enable(struct evlist *el);
int evlist__disable(struct evlist *el);
/*
 * Every event but the tracking dummy on or off (-D ranges leave it on, as
 * perf's do: maps and tasks keep coming between the windows). 0 or the
 * first -errno.
 */
int evlist__set_non_dummy(struct evlist *el, bool on);
/* The event named name (its -e name), or NULL. */
struct evsel *evlist__find(struct evlist *el, const char *name);
/* A new tracepoint filter on every fd of e (e->filter becomes a copy). 0 or -errno, said. */
int evsel__set_filter(struct evsel *e, const char *filter);
/* PERF_EVENT_IOC_ENABLE or _DISABLE on every fd of e (through sys.c). 0 or the first -errno. */
int evsel__set_enabled(struct evsel *e, bool on);
/* Size of the sample_id trailer (the same for every event). */
size_t evlist__id_hdr_size(const struct evlist *el);

#endif
