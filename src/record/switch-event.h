/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --switch-output-event: side-band events whose every record switches
 * the output, as perf 6.1 does it: a thread of its own polls them, opened
 * on the recording's target (its CPUs and threads), and sends the
 * recorder SIGUSR2, which --switch-output=signal (implied) answers with a
 * new file. The records themselves go nowhere.
 */
#ifndef PERFCAP_RECORD_SWITCH_EVENT_H
#define PERFCAP_RECORD_SWITCH_EVENT_H

#include <pthread.h>
#include <stdbool.h>

#include "events/evlist.h"
#include "events/parse-events.h"

struct switch_event {
	struct event_list list;
	struct evlist el;
	void **rings;		/* one per CPU x thread: the first event's, the others into it */
	int nr_rings;
	int stop_fd;		/* an eventfd: written to stop the thread */
	pthread_t thread;
	bool opened;		/* switch_event__open ran: there is something to close */
	bool started;
	unsigned long switches;	/* SIGUSR2s sent */
};

/* Parse and open spec on target's CPUs and threads, map the rings. 0 or -errno, said. */
int switch_event__open(struct switch_event *sw, const char *spec, const struct evlist *target);
/* The thread that polls them. 0 or -errno, said. */
int switch_event__start(struct switch_event *sw);
/* Stop the thread, close everything; safe on a zeroed or half-opened one. */
void switch_event__close(struct switch_event *sw);

#endif
