/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfcap inject --convert-callchain: a DWARF recording (perf's or
 * perfcap's; file, --threads directory or pipe format; compressed or
 * not) rewritten with every sample's user frames unwound into its
 * callchain (unwind/callchain.h), every other record unchanged.
 *
 *   pass 1  the map timeline (unwind/maps.h) from MMAP/MMAP2, FORK and
 *           COMM exec records, and the BUILD_ID feature
 *   pass 2  the records in batches, in file order, to worker threads
 *           that each unwind with their own unwinder (unwind/unwind.h);
 *           the batches are written back in order
 *   end     a file: its features as they were (EVENT_DESC's attrs
 *           converted, COMPRESSED and DIR_FORMAT gone: nothing is
 *           compressed and it is one file), then the header
 *
 * A pipe-format input gives a pipe-format output (its HEADER_ATTR and
 * EVENT_DESC records converted); a file gives a file.
 */
#ifndef PERFCAP_INJECT_CONVERT_H
#define PERFCAP_INJECT_CONVERT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "unwind/unwind.h"

struct convert_opts {
	const char *input;	/* "-": standard input */
	const char *output;	/* "-": standard output (pipe input only); NULL: unwind, write nothing */
	int threads;		/* unwinding threads; 0: one per online CPU */
	int max_stack;		/* user frames at most (perf's default: 127) */
	int verbose;
};

/* A DSO that unwinding stopped in, and how often. */
struct convert_dso_stop {
	const char *name;	/* the map's name */
	const char *why;	/* "no CFI", "file not found", ... */
	uint64_t samples;
};

struct convert_stats {
	uint64_t records;		/* written */
	uint64_t samples;		/* of events with DWARF stacks */
	uint64_t bad_samples;		/* ... that did not parse: written as they were */
	uint64_t bytes_in, bytes_out;	/* of the data */
	struct unwind_stats unwind;	/* over every thread */
	struct convert_dso_stop *dso_stops;	/* most first */
	size_t nr_dso_stops;
	uint64_t maps, procs, dsos;
	int threads;
};

/* Convert; 0, or -errno with the message printed. stats are filled in either way. */
int convert_callchain(const struct convert_opts *o, struct convert_stats *st);
/*
 * How the unwinding went, as perfcap inject and perfcap loss --unwind say
 * it: the samples, the stops by reason, the DSOs they stopped in (the 5
 * most, or all_dsos).
 */
void convert_stats__print(FILE *f, const struct convert_stats *st, double secs, bool all_dsos);
void convert_stats__exit(struct convert_stats *st);

#endif
