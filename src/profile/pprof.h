/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfcap pprof: a recording as a gzipped perftools.profiles.Profile
 * (pprof's profile.proto), what continuous-profiling stores ingest.
 *
 *   a DWARF recording is unwound first (inject/convert.h) into a
 *           temporary file of callchains, which is then read as any other
 *   one pass over the records: MMAP/MMAP2, FORK and COMM exec build the
 *           map timeline (unwind/maps.h) as inject's first pass does;
 *           COMM names threads; each sample's frames (its callchain, or
 *           its ip) become locations, (mapping, address) each, and the
 *           sample is added to the one with the same locations and labels
 *   end     locations get their functions from the DSOs' symbol tables
 *           (profile/symtab.h) and the kernel's from kallsyms; the
 *           profile is encoded with protobuf-c and gzipped
 *
 * Memory grows with the distinct stacks (and labels), not the samples.
 */
#ifndef PERFCAP_PROFILE_PPROF_H
#define PERFCAP_PROFILE_PPROF_H

#include <stdbool.h>
#include <stdint.h>

/* Labels a sample may carry (--labels). */
enum {
	PPROF_LABEL_PID = 1 << 0,
	PPROF_LABEL_TID = 1 << 1,
	PPROF_LABEL_COMM = 1 << 2,
	PPROF_LABEL_CPU = 1 << 3,
};
#define PPROF_LABELS_DEFAULT (PPROF_LABEL_PID | PPROF_LABEL_TID | PPROF_LABEL_COMM)

struct pprof_opts {
	const char *input;	/* "-": standard input */
	const char *output;	/* "-": standard output */
	const char *event;	/* only this event's samples; NULL: every event with samples */
	unsigned labels;	/* PPROF_LABEL_* */
	int threads;		/* for unwinding a DWARF recording; 0: one per CPU */
	int verbose;
};

struct pprof_stats {
	uint64_t samples;	/* put in the profile */
	uint64_t other_samples;	/* of events left out (--event) */
	uint64_t lost;		/* LOST records' counts */
	uint64_t lost_samples;	/* LOST_SAMPLES records' counts */
	uint64_t stacks;	/* distinct (stack, labels): the profile's samples */
	uint64_t locations, functions, mappings;
	uint64_t unsymbolized;	/* locations without a function */
	int events;		/* sample types pairs */
	bool unwound;		/* a DWARF recording, unwound first */
	bool kernel_frames;	/* the samples have kernel frames */
	bool kernel_symbols;	/* ... and kallsyms was found for the recording's kernel */
};

/* Write the profile; 0, or -errno with the message printed. */
int pprof_write(const struct pprof_opts *o, struct pprof_stats *st);

/* "pid,tid" into PPROF_LABEL_* bits: 0, or -EINVAL for a name it does not know. */
int pprof_parse_labels(const char *s, unsigned *labels);

#endif
