/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which DSOs got samples, seen as the records go by: the BUILD_ID section
 * and the build-id cache want every DSO with a hit, and perf finds them in
 * a second pass over the whole file after the recording; perfcap notes
 * them while a reader already holds the bytes.
 *
 * The hot path (dso_hits__observe, once per chunk a reader copies out)
 * only notes what it sees: a sample's (pid, code page) with the first and
 * last time it was hit, an executable map (MMAP/MMAP2: pid, range, time,
 * build id or dev/ino, file name), a fork of a process. Which map a page
 * falls in is decided once, at the end (dso_hits__resolve), over what
 * every reader noted: a map and the samples in it often come through
 * different rings (the task moved to another CPU), so no reader could
 * decide it alone.
 *
 * One object per reader thread (and one for the synthesized records); not
 * shared, no locks. Memory grows with the distinct code pages hit and the
 * executable maps, not with the samples: past DSO_HITS_MAX_PAGES pages it
 * stops noting pages and every DSO counts as hit (a longer list, never a
 * wrong id).
 */
#ifndef PERFCAP_DSO_HITS_H
#define PERFCAP_DSO_HITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/build-id.h"

/* 256 Ki pages (1 GiB of code hit): a table of at most 16 MiB a reader. */
#define DSO_HITS_MAX_PAGES (1u << 18)

struct hit_page {
	uint64_t page;		/* ip >> 12 */
	int32_t pid;		/* -1: kernel mode */
	uint32_t used;
	uint64_t first, last;	/* sample times of the first and last hit */
};

struct hit_map {
	int32_t pid;		/* -1: a kernel map (the kernel's, a module's) */
	uint32_t name;		/* offset in names */
	uint64_t start, end, time;
	uint32_t maj, min;
	uint64_t ino;
	struct build_id bid;	/* from the MMAP2 record; size 0: none */
};

struct hit_fork {
	int32_t pid, ppid;
	uint64_t time;
};

struct dso_hits {
	/* Where a sample's fields are (sample_type), 0 when absent. */
	size_t ip_off, tid_off, time_off;
	/* Where a non-sample record's time is, from its end; 0: none. */
	size_t trailer_time_from_end;
	bool on;		/* the reader notes (off until the recorder says: not with -B, a pipe, bench/drain) */
	bool track_samples;	/* false with --buildid-all: every DSO counts */
	bool overflow;		/* DSO_HITS_MAX_PAGES reached: every DSO counts */

	struct hit_page *pages;	/* open addressing, power-of-two capacity */
	size_t nr_pages, cap_pages;
	struct hit_page *last_hit;

	struct hit_map *maps;
	size_t nr_maps, cap_maps;
	struct hit_fork *forks;
	size_t nr_forks, cap_forks;
	char *names;		/* NUL-terminated names, back to back */
	size_t names_len, names_cap;
	uint32_t last_name;	/* the last name added: maps of one file come in a row */
	bool have_last_name;
};

/* sample_type of the events (as record_stats): where ip, pid and time are. */
void dso_hits__init(struct dso_hits *h, uint64_t sample_type, bool track_samples);
void dso_hits__exit(struct dso_hits *h);
/* Forget what was noted (a new --switch-output file); keeps the layout. */
void dso_hits__reset(struct dso_hits *h);
/* Note the whole records in buf (samples, MMAP/MMAP2, FORK). */
void dso_hits__observe(struct dso_hits *h, const void *buf, size_t len);

/* A DSO the recording hit (or, with every_dso, that it mapped). */
struct hit_dso {
	const char *name;	/* as in its map record; points into a dso_hits */
	bool kernel;		/* the kernel or a module */
	bool is_kernel_image;	/* [kernel.kallsyms] itself */
	uint32_t maj, min;
	uint64_t ino;
	struct build_id bid;	/* the map record's; size 0: to be read from the file */
	pid_t pid;		/* a process that mapped it (for /proc/PID/root) */
};

/*
 * The DSOs hit by the samples of all n trackers (every one they saw
 * mapped when every_dso, or a tracker overflowed). Each map's DSO once
 * (name and build id, or name and dev/ino); the kernel as one entry named
 * "[kernel.kallsyms]" when hit; "[vdso]" whenever some process mapped it,
 * as perf lists it. The names point into the trackers: keep them until
 * the list is freed. Returns the count, *out to free().
 */
size_t dso_hits__resolve(struct dso_hits *const *h, int n, bool every_dso,
			 struct hit_dso **out);

#endif
