/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --control fifo:CTL[,ACK] / fd:CTL[,ACK]: commands that steer a running
 * recording, as perf 6.1 takes them. A command is a line ("enable\n";
 * perf also ends one at a NUL): enable, disable (each optionally with an
 * event name: "enable cs"), snapshot, stop, ping, evlist. Matched by
 * prefix, as perf does. After a command is carried out, "ack\n" and its
 * NUL (5 bytes, perf's sizeof("ack\n")) go to ACK; an unknown command is
 * not acknowledged.
 *
 * A helper thread sleeps in poll() on CTL and queues each complete line,
 * then wakes the record loop through its eventfd: neither the record
 * loop's poll set nor the reader threads' need to know of CTL, and the
 * loop looks at the queue with one atomic load each time it wakes. The
 * loop carries the commands out (control__next) and acknowledges them
 * (control__ack) in its own thread.
 */
#ifndef PERFCAP_CONTROL_H
#define PERFCAP_CONTROL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "record-opts.h"

enum control_cmd {
	CONTROL_NONE,
	CONTROL_ENABLE,
	CONTROL_DISABLE,
	CONTROL_SNAPSHOT,
	CONTROL_STOP,
	CONTROL_PING,
	CONTROL_EVLIST,
	CONTROL_UNSUPPORTED,
};

/* perf's EVLIST_CTL_CMD_MAX_LEN: longer lines are cut there. */
#define CONTROL_LINE_MAX 64
#define CONTROL_QUEUE 16

struct control {
	int ctl_fd, ack_fd;	/* -1: none */
	bool ready;		/* control__init ran: the fds below mean something */
	bool close_fds;		/* fifo: we opened them */
	int stop_fd;		/* eventfd: the helper thread leaves */
	int wake_fd;		/* the record loop's eventfd, poked per line */
	pthread_t tid;
	bool started;
	/* Partial line, helper thread only. */
	char part[CONTROL_LINE_MAX];
	size_t part_len;
	/* Complete lines from the helper to the loop: lock protects them. */
	pthread_mutex_t lock;
	char lines[CONTROL_QUEUE][CONTROL_LINE_MAX];
	unsigned int head, tail;
	_Atomic unsigned int pending;	/* lines queued: the loop's cheap look */
};

/*
 * Parse one command line (no newline). *arg points into line at an
 * argument ("enable cs" -> "cs") or is NULL; a command followed by
 * something other than a space is unsupported, as in perf.
 */
enum control_cmd control__parse(const char *line, const char **arg);
const char *control__name(enum control_cmd cmd);

/*
 * Open the spec's FIFOs (read-write and non-blocking, so the writer's
 * end may come and go without a hang-up), or take its fd numbers.
 * 0 or -errno with a message printed. Nothing is started yet.
 */
int control__open(struct control *c, const struct control_spec *spec);
/* Start the helper thread; its lines poke wake_fd. 0 or -errno. */
int control__start(struct control *c, int wake_fd);
/* Stop the helper, close what control__open opened. Safe on a zeroed or unopened c. */
void control__close(struct control *c);

/* Is a line waiting? One relaxed atomic load. */
static inline bool control__pending(struct control *c)
{
	return atomic_load_explicit(&c->pending, memory_order_relaxed) != 0;
}
/*
 * The next queued line, parsed; CONTROL_NONE when there is none. arg
 * (room for CONTROL_LINE_MAX) gets the argument, "" if none.
 */
enum control_cmd control__next(struct control *c, char *arg);
/* Tell the controller the command is done: "ack\n\0" to ACK, if any. */
int control__ack(struct control *c);

/*
 * Feed bytes as read from CTL (helper thread; tests call it directly):
 * complete lines are queued. Returns the number of lines queued.
 */
int control__feed(struct control *c, const char *buf, size_t len);
/* Set c up with no fds (tests of control__feed/next). */
void control__init(struct control *c);

#endif
