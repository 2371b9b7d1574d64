/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroups for -G and --all-cgroups: where the cgroup file system that
 * perf events count in is mounted (cgroup v1's perf_event hierarchy, else
 * cgroup2, as perf 6.1 looks), a cgroup's directory opened for
 * PERF_FLAG_PID_CGROUP, its 64-bit id (the kernel's PERF_SAMPLE_CGROUP
 * value), and -G's names given to the events they follow.
 */
#ifndef PERFCAP_CGROUP_H
#define PERFCAP_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "record-opts.h"

struct evlist;

/* The mount point into buf; 0, or -ENOENT when neither is mounted. */
int cgroup__mountpoint(char *buf, size_t size);
/* A cgroup's id from its directory (the file handle the kernel gives it). 0 or -errno. */
int cgroup__id(const char *path, uint64_t *id);
/*
 * -G: each name of each -G goes to the next event that came from the -e's
 * before that -G (ends[i]: how many events the first i+1 -e's made), its
 * directory opened. 0, or -EINVAL with perf's message said (more names
 * than events, a cgroup that cannot be opened).
 */
int cgroup__apply(struct evlist *el, const struct record_opts *o, const int *ends);

#endif
