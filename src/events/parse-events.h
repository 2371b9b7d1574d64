/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf 6.1's event syntax -> perf_event_attr:
 *   symbolic events      cpu-clock, cs, cycles, ref-cycles ...
 *   generic cache events L1-dcache-load-misses, LLC-loads, dTLB-stores ...
 *   raw                  r1a8
 *   PMU terms (sysfs)    cpu/event=0x3c,umask=0/, software/config=3,name=cs,period=1/Duk,
 *                        msr/tsc/ (an alias from the PMU's events/), or a bare alias
 *   tracepoints          sched:sched_switch, sched:sched_* , *:sched_switch (globs)
 *   groups               {a,b}, {a,b}:S
 *   modifiers            :u k h G H I D p pp ppp P S W e (after the name, ':' or
 *                        right after a PMU's closing '/')
 */
#ifndef PERFCAP_PARSE_EVENTS_H
#define PERFCAP_PARSE_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * An event's own terms that win over the command line's options:
 * pmu/period=1,freq=100,call-graph=dwarf,stack-size=4096/.
 */
struct event_terms {
	bool has_period;
	uint64_t period;	/* period= (sample_period, freq 0) */
	bool has_freq;
	uint64_t freq;		/* freq= (sample_freq, freq 1) */
	/*
	 * call-graph=fp|dwarf|lbr|no and stack-size=N: this event's call
	 * graph, in place of --call-graph/-g. "" and 0 when not given.
	 * evlist-config.c is the one to honour them.
	 */
	char callgraph[8];
	uint32_t stack_size;
};

struct event_spec {
	struct perf_event_attr attr;	/* type, config*, exclude_*, precise_ip, pinned, exclusive */
	char *name;			/* as perf names it: "cpu-clock", "sched:sched_switch", "cycles:u", name= */
	bool tracepoint;
	char *tp_system;		/* tracepoints only */
	char *tp_event;
	char *filter;			/* --filter of its -e (tracepoints only); NULL none */
	/*
	 * Groups: the index in the list of this event's leader (its own index
	 * when it leads or stands alone); a leader's nr_members counts the
	 * group, itself included (1: no group).
	 */
	int leader;
	int nr_members;
	bool sample_read;		/* S: the leader's samples read the whole group */
	bool precise_max;		/* P: the highest precise_ip the PMU takes */
	bool weak_group;		/* W: open the group's events apart if the group fails */
	bool exclude_GH;		/* G or H given */
	bool cmdline_end;		/* the last event of one -e */
	struct event_terms terms;
};

struct event_list {
	int nr;
	struct event_spec *ev;
};

/*
 * Parse a comma separated list into an empty list. Tracepoints are looked
 * up in tracefs (mounted on demand when root), PMUs in sysfs
 * (pmu__set_sysfs_root). Returns 0 or -errno with a message in err
 * ("unknown event 'foo'", "tracepoint 'a:b' not found in
 * /sys/kernel/tracing/events", ...); the list is then empty.
 */
int parse_events(struct event_list *list, const char *str, char *err, int errlen);

/*
 * Append the events of one -e to list, with its --filter (NULL: none),
 * as perf record does: the filter belongs to every event of that -e,
 * and each of them must be a tracepoint. On error the list is as it was.
 */
int parse_events__add(struct event_list *list, const char *str, const char *filter,
		      char *err, int errlen);

/* --group: every event of the list in one group, led by the first (perf 6.1). */
void parse_events__group_all(struct event_list *list);

void event_list__exit(struct event_list *list);

/*
 * The modifier suffix perf 6.1 gives an event name it builds (":u",
 * ":uH", "" ...), from the attr; used when cycles falls back to cpu-clock.
 */
void event_attr__modifiers(const struct perf_event_attr *attr, char *buf, size_t size);

/*
 * Where tracefs is (mounting it at /sys/kernel/tracing if root and not
 * mounted). NULL if unavailable.
 */
const char *tracefs_path(void);

#endif
