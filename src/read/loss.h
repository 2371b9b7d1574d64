/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loss accounting: what a perf.data file says was lost, and when.
 * Fed one record at a time in file order (loss_stats__add_record), or
 * one timestamp at a time (loss_stats__add_time); loss_stats__finish()
 * then computes the totals, the fractions and the lost intervals.
 * The definitions of every number are in doc/perfcap-loss.1.
 *
 * Used by `perfcap loss` (builtin-loss.c) and the tests.
 */
#ifndef PERFCAP_LOSS_H
#define PERFCAP_LOSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/reader.h"

/* CPUs at or above this count as "unknown" (a corrupt cpu field). */
#define LOSS_MAX_CPUS 65536

/* One CPU's record stream (or the stream of records without a CPU). */
struct loss_cpu {
	bool seen;		/* had a sample, a LOST record or a timestamp */
	uint64_t samples;
	uint64_t lost_records;	/* PERF_RECORD_LOST records */
	uint64_t lost_events;	/* sum of their lost counts */
	uint64_t lost_time;	/* union of this CPU's lost intervals, ns */
	uint64_t offline_time;	/* union of its offline gaps (struct loss_gap), ns */
	bool have_last;
	uint64_t last_time;	/* of the previous timestamped record on this CPU */
	/* Its events opened again (the last such ID_INDEX): their ids, and their gap in gaps[]. */
	uint64_t *back_ids;
	size_t nr_back_ids, back_gap;
};

/* The gap (start, end] in which a LOST record's data went missing. */
struct loss_interval {
	uint64_t start, end;
	bool from_first;	/* no earlier record on the CPU: start at first_time */
	int64_t cpu;		/* -1: unknown */
	uint64_t lost;		/* the LOST record's lost count (0 from loss_stats__add_time) */
};

/*
 * Hotplug: a stretch in which a CPU was not recorded, because it was
 * offline and its events were opened again when it came back (perfcap
 * record says so with an ID_INDEX record after the data has begun). As a
 * lost interval is: from the CPU's previous timestamped record (file
 * order) to its first sample under the new ids.
 */
struct loss_gap {
	int64_t cpu;
	uint64_t start, end;
	bool from_first;	/* no record on the CPU before: from the first time */
	bool to_last;		/* no sample under the new ids: to the last time */
};

struct loss_stats {
	size_t nr_events;		/* attrs of the file */
	uint64_t *event_samples;	/* per attr */
	uint64_t *event_lost_samples;	/* per attr: sum of LOST_SAMPLES.lost */
	uint64_t unknown_samples;	/* samples whose id no attr has */

	uint64_t samples;
	uint64_t lost_records, lost_events;
	uint64_t lost_samples_records, lost_samples;
	uint64_t lost_samples_final;	/* ... of which without a timestamp */
	/* LOST_SAMPLES that perfcap's triage wrote (misc PERF_RECORD_MISC_USER): not the kernel's. */
	uint64_t triage_records, triage_dropped;
	uint64_t throttle, unthrottle;
	uint64_t compressed;		/* COMPRESSED records: not looked into */

	struct loss_cpu *cpus;		/* indexed by CPU number */
	size_t nr_cpus;
	struct loss_cpu unknown_cpu;

	bool have_time;
	uint64_t first_time, last_time;	/* smallest and largest valid timestamps */
	uint64_t lost_untimed;		/* LOST records without a timestamp */
	struct loss_interval *iv;
	size_t nr_iv, cap_iv;

	/* Hotplug: a gap for each CPU's events opened again; sorted by CPU, then time, at the end. */
	struct loss_gap *gaps;
	size_t nr_gaps, cap_gaps;
	bool back_pending;		/* a CPU's new ids wait for their first sample */

	/* Set by loss_stats__finish(). */
	uint64_t offline_time;		/* the sum over CPUs of their offline time */
	uint64_t lost;			/* best estimate of lost samples */
	bool loss_fraction_valid;
	double loss_fraction;		/* lost / (lost + samples) */
	bool elapsed_valid;
	uint64_t elapsed_time;		/* last_time - first_time */
	bool lost_time_valid;
	uint64_t lost_time;		/* union of all lost intervals */
	bool lost_time_fraction_valid;
	double lost_time_fraction;	/* lost_time / elapsed_time */
};

void loss_stats__init(struct loss_stats *ls, size_t nr_events);
void loss_stats__exit(struct loss_stats *ls);
/*
 * The timeline: a record on cpu (-1: unknown) at time t; lost says it
 * is a PERF_RECORD_LOST. Records must come in file order.
 */
void loss_stats__add_time(struct loss_stats *ls, int64_t cpu, uint64_t t, bool lost);
/* Account one record of r (file order). Returns 0. */
int loss_stats__add_record(struct loss_stats *ls, const struct perf_reader *r,
			   const struct perf_event_header *ev);
/* Compute the totals, fractions and lost times. */
void loss_stats__finish(struct loss_stats *ls);
/* Total length of the union of the half-open intervals (start, end]; sorts iv. */
uint64_t loss__union_length(struct loss_interval *iv, size_t n);

#endif
