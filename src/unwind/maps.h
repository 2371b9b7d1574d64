/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address spaces of a recording over time, from its own records:
 * MMAP/MMAP2 add a map (and end what it covers of older maps), FORK of a
 * new process inherits its parent's maps as they were then, COMM with
 * the exec bit ends every map of the process. A query asks for the map
 * covering an address of a pid at a time, and gets the answer of that
 * time whatever order the queries come in: a map lives over [from, to).
 *
 * Events go in with maps__add_*, in any order; maps__seal() sorts them
 * by time (stably: records without a time keep file order), applies them
 * and makes the timeline read-only. From then on maps__find() may be
 * called from any number of threads at once (its cache is per caller,
 * struct maps_cursor).
 *
 * A timeline that grows while it is read (the recorder's, fed by the
 * readers as they copy) applies what came so far up to a time instead,
 * maps__apply(), as often as it likes: every event up to that time must
 * be in by then, later ones wait for a later apply. Adding and applying
 * must then exclude maps__find() (the caller's lock).
 *
 * Times: the records' sample_id time; a recording without times passes
 * the record's index in the file for events and samples alike.
 * Synthesized records (time 0) are there from the start.
 */
#ifndef PERFCAP_UNWIND_MAPS_H
#define PERFCAP_UNWIND_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/build-id.h"

#define MAPS_TIME_END UINT64_MAX

/* What a map maps: one file (or [vdso], [heap], anon), shared by every map of it. */
struct map_dso {
	char *name;		/* as the record says it */
	struct build_id bid;	/* from MMAP2 or the BUILD_ID feature; size 0: unknown */
	uint64_t dev, ino;	/* from MMAP2, 0 when unknown */
	uint32_t first_pid;	/* a process that mapped it: for /proc/PID/root */
	unsigned idx;		/* index among the DSOs: users keep their own state by it */
};

struct map {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of start */
	uint64_t from, to;	/* lives over [from, to) */
	struct map_dso *dso;
};

struct maps_proc;
struct maps;

/* A caller's cache of recent answers (per thread; zero it before use). */
#define MAPS_CURSOR_SLOTS 256
struct maps_cursor {
	const struct maps_proc *proc;
	uint32_t pid;
	uint64_t version;	/* the timeline's applies when the slots were filled */
	const struct map *slot[MAPS_CURSOR_SLOTS];
};

struct maps *maps__new(void);
void maps__delete(struct maps *m);

/* MMAP/MMAP2 of pid at time; bid may be NULL. Only executable maps matter to unwinding, but all are kept. */
void maps__add_mmap(struct maps *m, uint32_t pid, uint64_t time, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *name, const struct build_id *bid,
		    uint64_t dev, uint64_t ino);
/* FORK: pid (a new process when pid != ppid) from ppid. */
void maps__add_fork(struct maps *m, uint32_t pid, uint32_t ppid, uint64_t time);
/* COMM with PERF_RECORD_MISC_COMM_EXEC: pid's maps end. */
void maps__add_exec(struct maps *m, uint32_t pid, uint64_t time);
/*
 * One record of a recording, as the events above: MMAP/MMAP2 of user
 * space, FORK, COMM with the exec bit; any other record is not the maps'.
 * time: the record's sample_id time, or its index where times are
 * indexes (by_index); a FORK has a time of its own, used unless by_index.
 */
struct perf_event_header;
void maps__add_record(struct maps *m, const struct perf_event_header *h, uint64_t time,
		      bool by_index);
/* A build id for a DSO by name (the BUILD_ID feature); for maps with none of their own. */
void maps__add_build_id(struct maps *m, const char *name, const struct build_id *bid);

/* Apply every event, in time order. Call once, before any maps__find(). */
void maps__seal(struct maps *m);
/*
 * Apply the events of time <= until, in time order; the others wait.
 * Every event of time <= until must have been added by then.
 */
void maps__apply(struct maps *m, uint64_t until);

/* The map of pid covering addr at time, or NULL. Thread-safe after seal, with a cursor per thread. */
const struct map *maps__find(const struct maps *m, struct maps_cursor *c, uint32_t pid,
			     uint64_t addr, uint64_t time);

/* Every DSO, by idx. */
size_t maps__nr_dsos(const struct maps *m);
struct map_dso *maps__dso(const struct maps *m, size_t i);

/* Counts, for -v. */
size_t maps__nr_procs(const struct maps *m);
size_t maps__nr_maps(const struct maps *m);

#endif
