/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loss picture: one recording (or two, stacked on one time axis) as
 * an SVG timeline. Time runs left to right; each CPU is one row holding
 * the rate at which it produced records (a filled area), the intervals
 * in which it lost data (the lost intervals of perfcap-loss(1), shaded
 * red), THROTTLE records (orange marks) and the stretches a CPU was
 * offline (grey: perfcap record's hotplug gaps). A row "all" on top sums the
 * rates and shades the union of every CPU's intervals. The title holds
 * the file, the recording's command line (CMDLINE feature) and totals.
 *
 * Made in two passes over a file: the loss accounting (loss.h) gives the
 * time range and the intervals; then loss_timeline__add_record() buckets
 * each record's bytes and throttles by CPU and time.
 */
#ifndef PERFCAP_LOSS_SVG_H
#define PERFCAP_LOSS_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "read/loss.h"
#include "read/reader.h"

/* Width of the whole picture and of its plot area, in SVG user units (px). */
#define LOSS_SVG_WIDTH 1200
#define LOSS_SVG_PLOT_X 76
#define LOSS_SVG_PLOT_WIDTH 1100
/* Buckets across the plot area: one per 2 px. */
#define LOSS_SVG_BUCKETS (LOSS_SVG_PLOT_WIDTH / 2)
/*
 * CPU rows at most: the CPUs seen after the first this many share the
 * last row with records of unknown CPU. Bounds the buckets (rows times
 * buckets, 12 bytes each: 27 MB) whatever CPU numbers a file holds.
 */
#define LOSS_SVG_MAX_CPU_ROWS 4096

/* One recording, bucketed. */
struct loss_timeline {
	const char *path;		/* as given; not owned */
	char *cmdline;			/* CMDLINE feature joined by spaces, or NULL */
	const struct loss_stats *ls;	/* finished; not owned */
	uint64_t t0;			/* ls->first_time */
	uint64_t bucket_ns;		/* 0: no timestamps, nothing bucketed */
	size_t nr_buckets;
	/*
	 * One row per CPU the accounting saw, in CPU order, then the last
	 * row: records of unknown CPU and CPUs beyond LOSS_SVG_MAX_CPU_ROWS.
	 */
	size_t nr_rows;
	int64_t *row_cpu;		/* [row]: its CPU; -1 for the last */
	uint32_t *row_of;		/* [cpu < ls->nr_cpus]: its row */
	size_t other_cpus;		/* CPUs seen that went to the last row */
	bool last_used;			/* the last row has records: draw it */
	uint64_t *bytes;		/* [row * nr_buckets + bucket] */
	uint32_t *throttle;		/* same shape: THROTTLE records */
};

/*
 * The bucket width that puts max_elapsed_ns (the longest recording to be
 * drawn) on LOSS_SVG_BUCKETS buckets; at least 1 ns.
 */
uint64_t loss_timeline__bucket_ns(uint64_t max_elapsed_ns);
/*
 * ls must be finished (loss_stats__finish) and outlive tl; r is read for
 * the CMDLINE feature only. bucket_ns as from loss_timeline__bucket_ns()
 * (the same for every recording drawn together).
 */
void loss_timeline__init(struct loss_timeline *tl, struct perf_reader *r,
			 const struct loss_stats *ls, uint64_t bucket_ns);
void loss_timeline__exit(struct loss_timeline *tl);
/* Account one record of r (any order). Returns 0. */
int loss_timeline__add_record(struct loss_timeline *tl, const struct perf_reader *r,
			      const struct perf_event_header *ev);

/*
 * Write the picture of n (1 or 2) recordings, stacked, to f. standalone:
 * with the XML declaration (an .svg file); without, for inlining in HTML.
 * Returns 0 or -EIO when f reports an error.
 */
int loss_svg__write(FILE *f, struct loss_timeline *const *tl, size_t n, bool standalone);
/* The same picture in an HTML page with a legend and the numbers. */
int loss_html__write(FILE *f, struct loss_timeline *const *tl, size_t n);

#endif
