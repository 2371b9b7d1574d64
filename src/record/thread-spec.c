// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/thread-spec.h"
#include "util.h"

static int spec_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int spec_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static struct cpu_map *map_new(int nr)
{
	struct cpu_map *m = xzalloc(sizeof(*m) + nr * sizeof(int));

	m->nr = 0;
	return m;
}

/* a ∩ b, sorted because a is. */
static struct cpu_map *map_and(const struct cpu_map *a, const struct cpu_map *b)
{
	struct cpu_map *m = map_new(a->nr);

	for (int i = 0; i < a->nr; i++)
		if (cpu_map__contains(b, a->cpu[i]))
			m->cpu[m->nr++] = a->cpu[i];
	return m;
}

static bool map_overlap(const struct cpu_map *a, const struct cpu_map *b)
{
	for (int i = 0; i < a->nr; i++)
		if (cpu_map__contains(b, a->cpu[i]))
			return true;
	return false;
}

static void add(struct thread_spec *ts, struct cpu_map *maps, struct cpu_map *aff)
{
	ts->t = xrealloc(ts->t, (ts->nr + 1) * sizeof(*ts->t));
	ts->t[ts->nr].maps = maps;
	ts->t[ts->nr].affinity = aff;
	ts->nr++;
}

static const char *const layouts[] = { "cpu", "core", "package", "numa" };

void thread_spec__exit(struct thread_spec *ts)
{
	for (int i = 0; i < ts->nr; i++) {
		cpu_map__delete(ts->t[i].maps);
		cpu_map__delete(ts->t[i].affinity);
	}
	free(ts->t);
	ts->t = NULL;
	ts->nr = 0;
}

/* The sysfs list file that groups cpu with its core / package mates. */
static struct cpu_map *group_of(const char *sysfs, const char *layout, int cpu)
{
	static const struct {
		const char *layout;
		const char *files[2];
	} where[] = {
		{ "core", { "core_cpus_list", "thread_siblings_list" } },
		{ "package", { "package_cpus_list", "core_siblings_list" } },
	};
	char path[4096];

	for (size_t w = 0; w < ARRAY_SIZE(where); w++) {
		if (strcmp(where[w].layout, layout))
			continue;
		for (size_t f = 0; f < ARRAY_SIZE(where[w].files); f++) {
			struct cpu_map *m;

			snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/%s",
				 sysfs, cpu, where[w].files[f]);
			m = cpu_map__read(path);
			if (m)
				return m;
		}
	}
	return NULL;
}

/* The CPU list of the NUMA node that holds cpu, or NULL. */
static struct cpu_map *numa_of(const char *sysfs, int cpu)
{
	char path[4096];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/devices/system/node", sysfs);
	dir = opendir(path);
	if (!dir)
		return NULL;
	while ((d = readdir(dir))) {
		struct cpu_map *m;

		if (strncmp(d->d_name, "node", 4) || d->d_name[4] < '0' || d->d_name[4] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/devices/system/node/%s/cpulist", sysfs,
			 d->d_name);
		m = cpu_map__read(path);
		if (m && cpu_map__contains(m, cpu)) {
			closedir(dir);
			return m;
		}
		cpu_map__delete(m);
	}
	closedir(dir);
	return NULL;
}

static int build_layout(struct thread_spec *ts, const char *layout, const struct cpu_map *cpus,
			const char *sysfs, char *err, size_t errlen)
{
	for (int i = 0; i < cpus->nr; i++) {
		int cpu = cpus->cpu[i];
		struct cpu_map *group, *maps;
		bool seen = false;

		for (int t = 0; t < ts->nr; t++)
			seen |= cpu_map__contains(ts->t[t].maps, cpu);
		if (seen)
			continue;
		if (!strcmp(layout, "cpu")) {
			group = map_new(1);
			group->cpu[group->nr++] = cpu;
		} else {
			group = !strcmp(layout, "numa") ? numa_of(sysfs, cpu)
							: group_of(sysfs, layout, cpu);
			if (!group) {
				/* No topology for it (a container, an old kernel): a CPU alone. */
				group = map_new(1);
				group->cpu[group->nr++] = cpu;
			}
		}
		maps = map_and(group, cpus);
		add(ts, maps, map_and(maps, maps));
		cpu_map__delete(group);
		if (!maps->nr)
			return spec_err(err, errlen, "--threads=%s: CPU %d is not in its own %s",
					layout, cpu, layout);
	}
	return 0;
}

/* "M/A:M/A"; only the syntax, when cpus is NULL. */
static int build_masks(struct thread_spec *ts, const char *spec, const struct cpu_map *cpus,
		       const struct cpu_map *online, char *err, size_t errlen)
{
	char *copy = xstrdup(spec), *item, *save = NULL;
	int ret = 0, items = 0;

	for (item = strtok_r(copy, ":", &save); item; item = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(item, '/');
		struct cpu_map *m, *a;

		items++;
		if (!slash) {
			ret = spec_err(err, errlen, "--threads: '%s' has no affinity mask: expected "
				       "<cpus>/<affinity cpus>, e.g. 0-3/0-3:4-7/4-7", item);
			break;
		}
		*slash = '\0';
		m = cpu_map__parse(item);
		a = cpu_map__parse(slash + 1);
		if (!m || !a) {
			ret = spec_err(err, errlen, "--threads: invalid CPU list in '%s/%s'", item,
				       slash + 1);
			cpu_map__delete(m);
			cpu_map__delete(a);
			break;
		}
		if (!cpus) {
			cpu_map__delete(m);
			cpu_map__delete(a);
			continue;
		}
		add(ts, map_and(m, cpus), online ? map_and(a, online) : map_and(a, a));
		cpu_map__delete(m);
		cpu_map__delete(a);
		if (!ts->t[ts->nr - 1].maps->nr || !ts->t[ts->nr - 1].affinity->nr) {
			ret = spec_err(err, errlen, "--threads: '%s/%s' leaves no %s CPU", item,
				       slash + 1, !ts->t[ts->nr - 1].maps->nr ? "recorded" : "online");
			break;
		}
		for (int t = 0; t < ts->nr - 1; t++) {
			if (map_overlap(ts->t[t].maps, ts->t[ts->nr - 1].maps) ||
			    map_overlap(ts->t[t].affinity, ts->t[ts->nr - 1].affinity)) {
				ret = spec_err(err, errlen, "--threads: masks %d and %d overlap",
					       t + 1, ts->nr);
				break;
			}
		}
		if (ret)
			break;
	}
	if (!ret && !items)
		ret = spec_err(err, errlen, "--threads: empty mask list");
	free(copy);
	if (ret || !cpus)
		return ret;
	for (int i = 0; i < cpus->nr; i++) {
		bool seen = false;

		for (int t = 0; t < ts->nr; t++)
			seen |= cpu_map__contains(ts->t[t].maps, cpus->cpu[i]);
		if (!seen)
			return spec_err(err, errlen, "--threads: CPU %d is recorded but in no mask: "
					"its ring would have no reader", cpus->cpu[i]);
	}
	return 0;
}

int thread_spec__check(const char *spec, char *err, size_t errlen)
{
	struct thread_spec ts = { 0 };

	if (!spec || !*spec)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(layouts); i++)
		if (!strcmp(spec, layouts[i]))
			return 0;
	if (!strchr(spec, '/') && !strchr(spec, ':') && !(spec[0] >= '0' && spec[0] <= '9'))
		return spec_err(err, errlen, "invalid --threads value '%s': expected cpu, core, "
				"package, numa or <cpus>/<affinity>:...", spec);
	return build_masks(&ts, spec, NULL, NULL, err, errlen);
}

int thread_spec__build(struct thread_spec *ts, const char *spec, const struct cpu_map *cpus,
		       const struct cpu_map *online, const char *sysfs, char *err, size_t errlen)
{
	int ret;

	memset(ts, 0, sizeof(*ts));
	if (!spec || !*spec)
		spec = "cpu";
	ret = thread_spec__check(spec, err, errlen);
	if (ret)
		return ret;
	for (size_t i = 0; i < ARRAY_SIZE(layouts); i++)
		if (!strcmp(spec, layouts[i])) {
			ret = build_layout(ts, spec, cpus, sysfs, err, errlen);
			goto out;
		}
	ret = build_masks(ts, spec, cpus, online, err, errlen);
out:
	if (ret)
		thread_spec__exit(ts);
	return ret;
}

int thread_spec__auto(struct thread_spec *ts, const struct cpu_map *cpus, const char *sysfs,
		      int cpus_per_reader, char *why, size_t whylen)
{
	struct thread_spec cores = { 0 }, pkgs = { 0 };
	char err[256];
	int ret;

	memset(ts, 0, sizeof(*ts));
	/*
	 * No group for rings without a CPU, nor for several CPUs that one
	 * reader takes whole (a cpus_per_reader of tests): the caller gives
	 * them one reader. One recorded CPU is laid out like any other, a
	 * reader pinned to it, since no other thread drains a ring.
	 */
	if (cpus->nr < 1 || cpus->cpu[0] < 0 || (cpus->nr > 1 && cpus->nr <= cpus_per_reader)) {
		snprintf(why, whylen, "one reader for all %d rings (up to %d CPUs per "
			 "reader)", cpus->nr, cpus_per_reader);
		return 0;
	}
	ret = build_layout(&cores, "core", cpus, sysfs, err, sizeof(err));
	if (!ret)
		ret = build_layout(&pkgs, "package", cpus, sysfs, err, sizeof(err));
	if (ret) {
		thread_spec__exit(&cores);
		thread_spec__exit(&pkgs);
		return spec_err(why, whylen, "%s", err);
	}
	/* Whole cores, package by package, into readers of at most cpus_per_reader CPUs. */
	for (int p = 0; p < pkgs.nr; p++) {
		struct cpu_map *cur = NULL;

		for (int c = 0; c < cores.nr; c++) {
			const struct cpu_map *core = cores.t[c].maps;
			struct cpu_map *m;

			if (!core->nr || !cpu_map__contains(pkgs.t[p].maps, core->cpu[0]))
				continue;
			if (cur && cur->nr + core->nr > cpus_per_reader) {
				add(ts, cur, map_and(cur, cur));
				cur = NULL;
			}
			m = map_new((cur ? cur->nr : 0) + core->nr);
			for (int i = 0; cur && i < cur->nr; i++)
				m->cpu[m->nr++] = cur->cpu[i];
			for (int i = 0; i < core->nr; i++)
				m->cpu[m->nr++] = core->cpu[i];
			cpu_map__delete(cur);
			/* Sorted, as every cpu_map is. */
			for (int i = 1; i < m->nr; i++)
				for (int j = i; j > 0 && m->cpu[j - 1] > m->cpu[j]; j--) {
					int x = m->cpu[j];

					m->cpu[j] = m->cpu[j - 1];
					m->cpu[j - 1] = x;
				}
			cur = m;
		}
		if (cur)
			add(ts, cur, map_and(cur, cur));
	}
	thread_spec__exit(&cores);
	thread_spec__exit(&pkgs);
	snprintf(why, whylen, "%d reader threads for %d CPUs, each on its own (up to %d CPUs per "
		 "reader, whole cores, within a package)", ts->nr, cpus->nr, cpus_per_reader);
	return 0;
}
