// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/evsel.h"
#include "perf-file.h"
#include "util.h"

struct evsel *evsel__new(const struct perf_event_attr *attr, const char *name)
{
	struct evsel *e = xzalloc(sizeof(*e));

	e->attr = *attr;
	e->name = xstrdup(name);
	e->leader = e;
	e->nr_members = 1;
	return e;
}

struct evsel *evsel__new_spec(const struct event_spec *ev)
{
	struct evsel *e = evsel__new(&ev->attr, ev->name);

	e->tracepoint = ev->tracepoint;
	if (ev->tracepoint) {
		e->tp_system = xstrdup(ev->tp_system);
		e->tp_event = xstrdup(ev->tp_event);
	}
	e->filter = ev->filter ? xstrdup(ev->filter) : NULL;
	e->leader = e;
	e->nr_members = 1;
	e->sample_read = ev->sample_read;
	e->precise_max = ev->precise_max;
	e->weak_group = ev->weak_group;
	e->terms = ev->terms;
	return e;
}

bool evsel__is_off_cpu(const struct evsel *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_BPF_OUTPUT &&
	       e->name && !strcmp(e->name, OFF_CPU_EVENT);
}

int evsel__alloc_fds(struct evsel *e, int nr_cpus, int nr_threads)
{
	int n = nr_cpus * nr_threads;

	evsel__close(e);
	free(e->fds);
	free(e->ids);
	e->nr_ids = 0;
	e->nr_cpus = nr_cpus;
	e->nr_threads = nr_threads;
	e->fds = xzalloc(n * sizeof(*e->fds));
	e->ids = xzalloc(n * sizeof(*e->ids));
	for (int i = 0; i < n; i++)
		e->fds[i] = -1;
	return 0;
}

void evsel__close(struct evsel *e)
{
	for (int i = 0; e->fds && i < e->nr_cpus * e->nr_threads; i++) {
		if (e->fds[i] >= 0)
			close(e->fds[i]);
		e->fds[i] = -1;
	}
}

void evsel__delete(struct evsel *e)
{
	if (!e)
		return;
	evsel__close(e);
	if (e->has_cgroup)
		close(e->cgroup_fd);
	free(e->fds);
	free(e->ids);
	free(e->name);
	free(e->tp_system);
	free(e->tp_event);
	free(e->filter);
	free(e);
}

size_t evsel__id_hdr_size(const struct evsel *e)
{
	return perf_sample_id_size(e->attr.sample_type);
}
