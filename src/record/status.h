/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live status line of perfcap record: while recording, on standard
 * error, what has been written, how fast, and whether data is being lost.
 *
 *   perfcap 12.5 s  123.4 MB  45.6 MB/s  1.23M samples  lost 1234 (0.10%)  ring 87% cpu 3  queue 2
 *
 * On a terminal one line is rewritten in place ("\r", the line, then
 * "\033[K" to clear what a longer line left) about twice a second; with
 * --status=SECONDS one line per interval is printed instead, for logs.
 *
 * Pure: no clock, no system calls, no threads. The recorder reads its
 * clock and its counters, fills a snapshot and calls status__tick() from
 * its loop as often as it likes: status__tick() returns at once, without
 * formatting, until the next line is due. It never blocks on anything
 * but the FILE it is given.
 *
 * Wiring (the recorder's side):
 *   mode = status__mode(quiet, isatty(2), forced_ns);   forced_ns from
 *          status__parse_interval() of --status=SECONDS, 0 without it
 *   status__init(&st, mode, forced_ns, now);  st.columns = terminal width
 *   in the loop:    status__tick(&st, now, &snap, stderr);
 *   before the summary line:  status__end(&st, stderr);
 */
#ifndef PERFCAP_STATUS_H
#define PERFCAP_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* On a terminal: a new line every half second. */
#define STATUS_TTY_INTERVAL_NS 500000000ULL

/* What the recorder knows at one moment; counts are totals since the start. */
struct status_snapshot {
	uint64_t bytes_written;	/* bytes the writer has completed into the output */
	uint64_t samples;	/* SAMPLE records read from the rings */
	uint64_t lost;		/* samples lost so far: LOST records' counts + dropped */
	unsigned int ring_pct;	/* the fullest ring's fill now, 0..100 (data_head - data_tail) */
	int ring_cpu;		/* that ring's CPU; -1 when none or not per CPU */
	unsigned int queue;	/* writes handed to the writer and not yet completed */
};

enum status_mode {
	STATUS_OFF,		/* print nothing */
	STATUS_TTY,		/* one line, rewritten in place */
	STATUS_LINES,		/* one line per interval */
};

struct status {
	enum status_mode mode;
	uint64_t interval_ns;
	uint64_t start_ns;	/* elapsed time counts from here */
	uint64_t next_ns;	/* no line before this */
	uint64_t last_ns;	/* time and bytes of the last line: the rate is since then */
	uint64_t last_bytes;
	unsigned int columns;	/* terminal width; 0: unknown, lines are not cut */
	bool shown;		/* STATUS_TTY: a line is on the screen, not yet ended */
	uint64_t lines;		/* lines printed */
};

/*
 * Which mode: --status=SECONDS (forced_ns > 0) prints lines even when
 * standard error is not a terminal, and even with -q; otherwise a
 * terminal without -q gets the in-place line, anything else nothing.
 */
enum status_mode status__mode(bool quiet, bool is_tty, uint64_t forced_ns);
/*
 * --status's argument: seconds, a decimal number ("0.5", "2") from 0.1
 * to 86400. Returns 0 with *ns set, or -EINVAL.
 */
int status__parse_interval(const char *arg, uint64_t *ns);
/*
 * interval_ns: the interval of STATUS_LINES (0: one second); STATUS_TTY
 * uses STATUS_TTY_INTERVAL_NS. now_ns: the recorder's clock at the start.
 * The first line is due one interval after now_ns.
 */
void status__init(struct status *st, enum status_mode mode, uint64_t interval_ns,
		  uint64_t now_ns);
/*
 * The line, without "\r" or newline, into buf (always NUL-terminated):
 * elapsed_ns since the start, rate in bytes per second (< 0: not known).
 * Returns the length it has, or would have had with room (as snprintf).
 */
int status__format(char *buf, size_t size, uint64_t elapsed_ns,
		   const struct status_snapshot *snap, double rate);
/*
 * Print the line to f if one is due at now_ns; returns true when it
 * printed. A late call prints once and the next line is due an interval
 * later: no burst of lines after the loop was away. STATUS_TTY cuts the
 * line at columns - 1 characters so that it never wraps.
 */
bool status__tick(struct status *st, uint64_t now_ns, const struct status_snapshot *snap,
		  FILE *f);
/* Erase the in-place line (STATUS_TTY), so that what follows starts clean. */
void status__end(struct status *st, FILE *f);

#endif
