/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --switch-output[=signal|SIZE|TIME], --switch-max-files N and
 * --timestamp-filename, as perf 6.1 does them: the recording goes on in
 * PATH; at each switch PATH, finished (features, final header), becomes
 * PATH.<YYYYmmddHHMMSScc> (local time, centiseconds) and a new PATH is
 * started with its own header, attrs and synthesized tasks and maps. At
 * the end the last PATH is renamed the same way, so every file carries a
 * timestamp (perf turns on --timestamp-filename with --switch-output).
 * With --switch-max-files N only the newest N files are kept.
 *
 * This object decides when (the trigger) and what the files are called;
 * record__switch_output() in record/record-control.c brings the readers
 * to a clean point and swaps the file.
 */
#ifndef PERFCAP_SWITCH_OUTPUT_H
#define PERFCAP_SWITCH_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record-opts.h"

/* "2026120110271275": 14 digits of date and time, 2 of centiseconds. */
#define SWITCH_TIMESTAMP_LEN 16

struct switch_output {
	enum switch_output_mode mode;	/* SWITCH_OUTPUT_NONE: no switching */
	uint64_t size;			/* SIZE: bytes of data in the file */
	uint64_t ns;			/* TIME */
	uint64_t next_ns;		/* TIME: when the next switch is due */
	bool timestamp_filename;	/* the last file is renamed too */
	int max_files;			/* keep the newest; 0: all */
	char **files;			/* the kept files, a ring of max_files */
	int cur;
	unsigned int nr_switches;
	uint64_t wakeups_at_switch;	/* for "dump data: Woken up N times" */
};

void switch_output__init(struct switch_output *so, const struct record_opts *o, uint64_t now);
void switch_output__exit(struct switch_output *so);
static inline bool switch_output__enabled(const struct switch_output *so)
{
	return so->mode != SWITCH_OUTPUT_NONE;
}
/*
 * Is a switch due? signalled: a SIGUSR2 came (the caller's flag);
 * data_bytes: what the current file holds after its header.
 */
bool switch_output__due(const struct switch_output *so, uint64_t now, bool signalled,
			uint64_t data_bytes);
/* After a switch: the next TIME switch is one interval from now. */
void switch_output__rearm(struct switch_output *so, uint64_t now);
/* How long the loop may sleep before a TIME switch: at most max_ms. */
int switch_output__timeout(const struct switch_output *so, uint64_t now, int max_ms);

/* perf's timestamp of the current local time into buf (SWITCH_TIMESTAMP_LEN + 1). */
int switch_output__timestamp(char *buf, size_t len);
/*
 * Rename the finished path to path.<timestamp> (a name not taken: two
 * switches within a centisecond wait for the next one), remember it and,
 * with max_files, remove the oldest file that falls out. The new name
 * goes to newpath. 0 or -errno with a message printed.
 */
int switch_output__rename(struct switch_output *so, const char *path, char *newpath,
			  size_t len);

/*
 * root and every process below it (from /proc's ppid), root first, into
 * *pids (freed by the caller). Returns how many: the tasks of the command
 * perfcap started, whose COMM and MMAP a new file needs.
 */
int switch_output__descendants(pid_t root, pid_t **pids);

#endif
