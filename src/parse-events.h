/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event names -> perf_event_attr: "cpu-clock", "cs", "cycles:u",
 * "sched:sched_switch", "r1a8". Modifiers :u :k (and :p, ignored here
 * beyond precise_ip).
 */
#ifndef PERFCAP_PARSE_EVENTS_H
#define PERFCAP_PARSE_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>

struct event_spec {
	struct perf_event_attr attr;	/* type, config, exclude_* set; rest left 0 */
	char *name;			/* as perf names it: "cpu-clock", "sched:sched_switch", "cycles:u" */
	bool tracepoint;
	char *tp_system;		/* tracepoints only */
	char *tp_event;
};

struct event_list {
	int nr;
	struct event_spec *ev;
};

/*
 * Parse a comma separated list. Tracepoints are looked up in tracefs
 * (mounted on demand when root). Returns 0 or -errno with a message in
 * err ("unknown event 'foo'", "tracepoint 'a:b' not found in
 * /sys/kernel/tracing/events", ...).
 */
int parse_events(struct event_list *list, const char *str, char *err, int errlen);
void event_list__exit(struct event_list *list);

/*
 * Where tracefs is (mounting it at /sys/kernel/tracing if root and not
 * mounted). NULL if unavailable.
 */
const char *tracefs_path(void);

#endif
