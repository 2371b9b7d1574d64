/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events of a recording, opened on every CPU x thread of the target,
 * and one ring per CPU: the first fd of a CPU is mmap()ed, every other
 * fd of that CPU is redirected into it (PERF_EVENT_IOC_SET_OUTPUT).
 */
#ifndef PERFCAP_EVLIST_H
#define PERFCAP_EVLIST_H

#include <stdbool.h>
#include <sys/types.h>

#include "cpumap.h"
#include "evsel.h"
#include "mmap.h"
#include "options.h"

struct output;

struct evlist {
	struct evsel **evsels;
	int nr;
	struct cpu_map *cpus;	/* the CPUs events are opened on */
	pid_t *threads;		/* -1 alone for system-wide */
	int nr_threads;
	bool system_wide;
	struct mmap *mmaps;	/* one per CPU of cpus */
	int nr_mmaps;
};

#define evlist__for_each_evsel(evlist, e) \
	for (int __i = 0; __i < (evlist)->nr && ((e) = (evlist)->evsels[__i]); __i++)

void evlist__init(struct evlist *el);
void evlist__exit(struct evlist *el);
void evlist__add(struct evlist *el, struct evsel *e);

/*
 * Set every attr's sampling, tracking and id bits from the options
 * (perf record's defaults). has_workload: perfcap starts a command.
 */
void evlist__config(struct evlist *el, const struct record_opts *opts, bool has_workload);

/* Open every event on every CPU x thread; reads the ids. 0 or -errno, message printed. */
int evlist__open(struct evlist *el);
/* Map one ring per CPU with nr_bufs data buffers each. */
int evlist__mmap(struct evlist *el, unsigned int pages, int nr_bufs, struct output *out);
int evlist__enable(struct evlist *el);
int evlist__disable(struct evlist *el);
/* Size of the sample_id trailer (the same for every event). */
size_t evlist__id_hdr_size(const struct evlist *el);

#endif
