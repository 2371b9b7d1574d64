// SPDX-License-Identifier: GPL-2.0
/*
 * Event names -> perf_event_attr. perfcap understands the part of perf's
 * event grammar that a recorder on any machine needs: symbolic software
 * and hardware events, raw rNNNN, tracepoints SUBSYS:NAME, and the
 * privilege/precision modifiers. Whether the PMU can count a hardware
 * event is not decided here: perf_event_open says so later.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "parse-events.h"
#include "util.h"

struct sym_event {
	const char *name;
	__u32 type;
	__u64 config;
};

/* Names and aliases as "perf list sw" and "perf list hw" print them. */
static const struct sym_event sym_events[] = {
	{ "cpu-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs",				PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },

	{ "cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

#define UNKNOWN_EVENT_HINT \
	"(perfcap supports software events (cpu-clock, task-clock, ...), " \
	"hardware events by name, rNNNN and tracepoints SUBSYS:NAME)"

#define MODIFIER_HINT "u, k, h, G, H, p, pp, ppp"

const char *tracefs_path(void)
{
	/*
	 * libtracefs finds tracefs in /proc/mounts and, when it is not
	 * mounted, mounts it at /sys/kernel/tracing (which needs root). It
	 * also honours tracefs_set_tracing_dir(), the unit tests' seam.
	 */
	return tracefs_tracing_dir();
}

enum event_kind {
	EVENT_UNKNOWN,
	EVENT_SYMBOLIC,
	EVENT_RAW,
};

/* Symbolic names and rNNNN: the events a modifier may follow. */
static enum event_kind lookup_event(const char *name, struct perf_event_attr *attr)
{
	size_t i, len = strlen(name);

	for (i = 0; i < ARRAY_SIZE(sym_events); i++) {
		if (!strcmp(sym_events[i].name, name)) {
			attr->type = sym_events[i].type;
			attr->config = sym_events[i].config;
			return EVENT_SYMBOLIC;
		}
	}

	/* perf's raw syntax: 'r' and 1..16 hex digits, nothing else. */
	if (len >= 2 && len <= 17 && name[0] == 'r') {
		__u64 config = 0;

		for (i = 1; i < len; i++) {
			char c = name[i];
			int digit;

			if (c >= '0' && c <= '9')
				digit = c - '0';
			else if (c >= 'a' && c <= 'f')
				digit = c - 'a' + 10;
			else if (c >= 'A' && c <= 'F')
				digit = c - 'A' + 10;
			else
				return EVENT_UNKNOWN;
			config = config << 4 | (__u64)digit;
		}
		attr->type = PERF_TYPE_RAW;
		attr->config = config;
		return EVENT_RAW;
	}
	return EVENT_UNKNOWN;
}

/*
 * Apply modifiers the way perf 6.1 does, so that our attrs match the
 * ones upstream writes for the same -e string: the first of u/k/h
 * excludes all three levels and each letter then re-includes its own
 * level ("uk" counts user and kernel but not the hypervisor). Once any
 * modifier is given, exclude_guest is set only by u or p (precise
 * sampling of a guest is meaningless), or by G/H explicitly.
 * Returns false if mods is not a modifier string.
 */
static bool apply_modifiers(struct perf_event_attr *attr, const char *mods)
{
	int eu = 0, ek = 0, eh = 0, eG = 0, eH = 0, precise = 0;
	bool exclude = false, exclude_GH = false;
	const char *s;

	if (!*mods)
		return false;
	for (s = mods; *s; s++) {
		switch (*s) {
		case 'u':
			if (!exclude) {
				exclude = true;
				eu = ek = eh = 1;
			}
			if (!exclude_GH)
				eG = 1;
			eu = 0;
			break;
		case 'k':
			if (!exclude) {
				exclude = true;
				eu = ek = eh = 1;
			}
			ek = 0;
			break;
		case 'h':
			if (!exclude) {
				exclude = true;
				eu = ek = eh = 1;
			}
			eh = 0;
			break;
		case 'G':
			if (!exclude_GH) {
				exclude_GH = true;
				eG = eH = 1;
			}
			eG = 0;
			break;
		case 'H':
			if (!exclude_GH) {
				exclude_GH = true;
				eG = eH = 1;
			}
			eH = 0;
			break;
		case 'p':
			precise++;
			if (!exclude_GH)
				eG = 1;
			break;
		default:
			return false;
		}
	}
	/* precise_ip is a 2-bit field: 3 is "must have 0 skid". */
	if (precise > 3)
		return false;

	attr->exclude_user = eu;
	attr->exclude_kernel = ek;
	attr->exclude_hv = eh;
	attr->exclude_guest = eG;
	attr->exclude_host = eH;
	attr->precise_ip = precise;
	return true;
}

/* Tracefs directory names: no globbing, no way out of events/. */
static bool valid_tp_name(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++) {
		char c = *s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

static int parse_tracepoint(struct event_spec *ev, const char *sys, const char *event,
			    const char *mods, char *err, int errlen)
{
	const char *dir;
	char *path = NULL;
	long long id;
	int ret;

	if (strpbrk(sys, "*?[") || strpbrk(event, "*?[")) {
		snprintf(err, errlen, "tracepoint globs are not supported: '%s:%s' "
			 "(name each tracepoint, e.g. sched:sched_switch)", sys, event);
		return -EINVAL;
	}
	if (!valid_tp_name(sys) || !valid_tp_name(event)) {
		snprintf(err, errlen, "unknown event '%s:%s%s%s' " UNKNOWN_EVENT_HINT,
			 sys, event, mods ? ":" : "", mods ? mods : "");
		return -EINVAL;
	}
	if (mods && !apply_modifiers(&ev->attr, mods)) {
		snprintf(err, errlen, "invalid modifier ':%s' in event '%s:%s:%s' "
			 "(modifiers: " MODIFIER_HINT ")", mods, sys, event, mods);
		return -EINVAL;
	}

	dir = tracefs_path();
	if (!dir) {
		snprintf(err, errlen, "cannot look up tracepoint '%s:%s': tracefs is not "
			 "available (not mounted, and mounting it at /sys/kernel/tracing "
			 "needs root)", sys, event);
		return -ENOENT;
	}
	if (asprintf(&path, "%s/events/%s/%s/id", dir, sys, event) < 0)
		return -ENOMEM;
	ret = read_int(path, &id);
	if (ret == -ENOENT || ret == -ENOTDIR) {
		snprintf(err, errlen, "tracepoint '%s:%s' not found in %s/events "
			 "(see %s/available_events)", sys, event, dir, dir);
		goto out_free;
	}
	if (ret == -EACCES || ret == -EPERM) {
		snprintf(err, errlen, "cannot read tracepoint id %s: %s (tracefs "
			 "needs root)", path, strerror(-ret));
		goto out_free;
	}
	if (ret < 0 || id < 0) {
		ret = ret < 0 ? ret : -EINVAL;
		snprintf(err, errlen, "cannot read tracepoint id %s: %s", path,
			 strerror(-ret));
		goto out_free;
	}

	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = (__u64)id;
	ev->tracepoint = true;
	ev->tp_system = xstrdup(sys);
	ev->tp_event = xstrdup(event);
	/* perf names a tracepoint SUBSYS:NAME even when modifiers follow. */
	if (asprintf(&ev->name, "%s:%s", sys, event) < 0) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = 0;
out_free:
	free(path);
	return ret;
}

static int unknown_event(const char *name, char *err, int errlen)
{
	snprintf(err, errlen, "unknown event '%s' " UNKNOWN_EVENT_HINT, name);
	return -EINVAL;
}

/* One item of the list; on error ev may hold allocations for the caller to free. */
static int parse_one(struct event_spec *ev, char *item, char *err, int errlen)
{
	char *colon = strchr(item, ':'), *mods = NULL, *event;
	enum event_kind kind;

	memset(ev, 0, sizeof(*ev));
	/*
	 * perf leaves the guest out unless told otherwise (it is not running
	 * as a hypervisor's profiler); modifiers below may change that.
	 */
	ev->attr.exclude_guest = 1;

	if (colon)
		*colon = '\0';
	kind = lookup_event(item, &ev->attr);
	if (colon)
		*colon = ':';
	if (kind != EVENT_UNKNOWN) {
		if (colon && !apply_modifiers(&ev->attr, colon + 1)) {
			/* "r1a:foo" could still be a tracepoint; "cs:x" cannot. */
			if (kind == EVENT_SYMBOLIC) {
				snprintf(err, errlen, "invalid modifier ':%s' in event '%s' "
					 "(modifiers: " MODIFIER_HINT ")", colon + 1, item);
				return -EINVAL;
			}
			goto tracepoint;
		}
		/* Named as the user wrote it, modifiers included, like perf. */
		ev->name = xstrdup(item);
		return 0;
	}
	if (!colon || colon == item)
		return unknown_event(item, err, errlen);
	/*
	 * "foo:u" is an unknown event with a modifier, not a tracepoint:
	 * "sched:sched_switch" is a tracepoint because "sched_switch" is not
	 * a modifier string.
	 */
	if (!strchr(colon + 1, ':')) {
		struct perf_event_attr probe = { 0 };

		if (apply_modifiers(&probe, colon + 1)) {
			int ret;

			*colon = '\0';
			ret = unknown_event(item, err, errlen);
			*colon = ':';
			return ret;
		}
	}

tracepoint:
	/* SUBSYS:NAME or SUBSYS:NAME:MODS; item is our own copy, cut it up. */
	memset(&ev->attr, 0, sizeof(ev->attr));
	ev->attr.exclude_guest = 1;
	*colon = '\0';
	event = colon + 1;
	mods = strchr(event, ':');
	if (mods)
		*mods++ = '\0';
	return parse_tracepoint(ev, item, event, mods, err, errlen);
}

static void event_spec__exit(struct event_spec *ev)
{
	free(ev->name);
	free(ev->tp_system);
	free(ev->tp_event);
	memset(ev, 0, sizeof(*ev));
}

void event_list__exit(struct event_list *list)
{
	int i;

	if (!list)
		return;
	for (i = 0; i < list->nr; i++)
		event_spec__exit(&list->ev[i]);
	free(list->ev);
	list->ev = NULL;
	list->nr = 0;
}

/*
 * The end of the item that starts at s. A comma inside /.../ belongs to a
 * PMU term list ("cpu/event=1,umask=2/"); splitting there would report
 * half an event as unknown, so keep it whole for the error message.
 */
static const char *item_end(const char *s)
{
	bool in_slash = false;

	for (; *s; s++) {
		if (*s == '/')
			in_slash = !in_slash;
		else if (*s == ',' && !in_slash)
			break;
	}
	return s;
}

int parse_events(struct event_list *list, const char *str, char *err, int errlen)
{
	const char *s = str;
	int ret = 0;

	list->nr = 0;
	list->ev = NULL;
	if (errlen > 0)
		err[0] = '\0';
	if (!str || !*str) {
		snprintf(err, errlen, "empty event list");
		return -EINVAL;
	}

	for (;;) {
		const char *end = item_end(s);
		size_t len = (size_t)(end - s);
		char *item;

		if (len == 0) {
			snprintf(err, errlen, "empty event in list '%s'", str);
			ret = -EINVAL;
			goto out_err;
		}
		item = xzalloc(len + 1);
		memcpy(item, s, len);
		list->ev = xrealloc(list->ev, (list->nr + 1) * sizeof(*list->ev));
		ret = parse_one(&list->ev[list->nr], item, err, errlen);
		free(item);
		if (ret < 0) {
			event_spec__exit(&list->ev[list->nr]);
			goto out_err;
		}
		list->nr++;
		if (!*end)
			break;
		s = end + 1;
	}
	return 0;

out_err:
	event_list__exit(list);
	return ret;
}
