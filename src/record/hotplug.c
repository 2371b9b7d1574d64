// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug while recording (hotplug.h). When a CPU goes offline the
 * kernel takes its per-CPU events out of their context, and they stay
 * out when it comes back: its ring gets nothing more. So the loop's tick
 * reads /sys/devices/system/cpu/online (one pread of the file kept open
 * a tick, parsed only when its text changed; the cost is counted and said
 * with -v) and, for a CPU of the recording that
 * is back, opens each event on it again with the same attr, off (tried
 * again each tick for HOTPLUG_TRIES ticks where that fails: the mask can
 * say a CPU is back before perf's own step for it has run), and:
 *
 *  - sends it into the CPU's ring (PERF_EVENT_IOC_SET_OUTPUT to the fd
 *    the ring was mapped through, which stays open): the ring, its
 *    reader and the reader's pipeline go on as they were;
 *  - sets its --filter, and turns it on if its event is on (-D and
 *    --control keep a disabled recording disabled);
 *  - adds its id to the event's ids, which the file's attr section lists
 *    at the end (perf_data__finish moves the section when it grew); in
 *    pipe mode a HEADER_ATTR record with the new ids goes out first,
 *    before any sample of theirs can.
 *
 * The readers pinned to the CPU are pinned again (the kernel dropped
 * their affinity when it went). The old events' fds are kept open until the rings are gone: a ring
 * hangs off the fd it was mapped through, and its reader polls that fd
 * (the kernel wakes every event attached to a ring). Left alone: CPUs outside the recording (-C), recordings
 * of tasks (their events follow the task, not a CPU), and AUX areas (an
 * AUX event's area is its own, and is not moved: said once). A CPU that
 * goes down and comes back between two ticks (HEADER_SYNC_NS) is not
 * seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "events/cpumap.h"
#include "events/evlist.h"
#include "format/pipe-data.h"
#include "io/output.h"
#include "record/hotplug.h"
#include "record/record.h"
#include "sys.h"
#include "util.h"

#define ONLINE_PATH "/sys/devices/system/cpu/online"
/* Ticks a CPU seen back is tried before it is given up (try_back). */
#define HOTPLUG_TRIES 10

/*
 * The online CPUs, read again at offset 0 of the file kept open; NULL
 * when they are as last read (only the text is compared: most ticks
 * parse nothing) or cannot be read.
 */
static struct cpu_map *read_online(struct hotplug *h)
{
	char buf[sizeof(h->online_text)];
	ssize_t n;

	if (!h->online_open)
		return NULL;
	n = pread(h->online_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return NULL;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	if (!strcmp(buf, h->online_text))
		return NULL;
	memcpy(h->online_text, buf, (size_t)n + 1);
	return cpu_map__parse(buf);
}

void hotplug__init(struct hotplug *h, const struct record *rec, uint64_t now)
{
	const struct evlist *el = &rec->evlist;

	memset(h, 0, sizeof(*h));
	h->start_ns = now;
	/* A ring per CPU: system-wide events, one "thread" (-1), real CPUs. */
	h->active = el->system_wide && el->nr_threads == 1 && el->cpus->nr &&
		    el->cpus->cpu[0] >= 0 && rec->rings.nr == el->cpus->nr;
	if (h->active) {
		h->online_fd = open(ONLINE_PATH, O_RDONLY | O_CLOEXEC);
		h->online_open = h->online_fd >= 0;
		h->online = read_online(h);
	}
	if (!h->online)
		h->active = false;
}

static struct hotplug_gap *open_gap(struct hotplug *h, int cpu)
{
	for (int i = h->nr_gaps - 1; i >= 0; i--)
		if (h->gaps[i].cpu == cpu && !h->gaps[i].on_ns)
			return &h->gaps[i];
	return NULL;
}

static void retire(struct hotplug *h, int fd, int evsel, int c)
{
	if (h->nr_retired == h->cap_retired) {
		h->cap_retired = h->cap_retired ? 2 * h->cap_retired : 16;
		h->retired = xrealloc(h->retired, h->cap_retired * sizeof(*h->retired));
	}
	h->retired[h->nr_retired++] = (struct hotplug_retired){ fd, evsel, c };
}

/* Pipe mode: a HEADER_ATTR for each event opened again (fds[i] >= 0), with its new id only. */
static int announce_ids(struct record *rec, const int *fds, uint64_t *ids)
{
	struct strbuf sb;
	int err = 0;

	strbuf__init(&sb);
	for (int i = 0; i < rec->evlist.nr && !err; i++) {
		struct feature_event ev = { .attr = record__file_attr(rec, i),
					    .name = rec->evlist.evsels[i]->name,
					    .ids = &ids[i], .nr_ids = 1 };

		if (fds[i] >= 0)
			err = pipe_data__build_attr(&sb, &ev);
	}
	if (!err && sb.len) {
		int64_t off = output__write_copy(&rec->out, sb.data, sb.len);

		err = off < 0 ? (int)off : 0;
	}
	strbuf__exit(&sb);
	return err;
}

/*
 * Open every event of CPU index c again, into its ring. 0, or -errno
 * with nothing changed: the fds opened so far are closed.
 */
static int reopen_cpu(struct hotplug *h, struct record *rec, int c)
{
	struct evlist *el = &rec->evlist;
	int cpu = el->cpus->cpu[c], ring_fd = rec->rings.maps[c].fd;
	int *fds = xzalloc(el->nr * sizeof(*fds));
	uint64_t *ids = xzalloc(el->nr * sizeof(*ids));
	int err = 0, i;

	for (i = 0; i < el->nr; i++)
		fds[i] = -1;
	for (i = 0; i < el->nr && !err; i++) {
		struct evsel *e = el->evsels[i];
		struct perf_event_attr attr = e->attr;
		int group_fd = -1;

		if (FD(e, c, 0) < 0)
			continue;	/* never open on this CPU (--off-cpu's is written by perfcap) */
		if (!evsel__is_leader(e)) {
			for (int j = 0; j < i; j++)
				if (el->evsels[j] == e->leader)
					group_fd = fds[j];
		}
		/* Off until its event is: the ioctls below turn it on. */
		attr.disabled = 1;
		attr.enable_on_exec = 0;
		fds[i] = sys_perf_event_open(&attr, e->has_cgroup ? e->cgroup_fd : -1, cpu, group_fd,
					     PERF_FLAG_FD_CLOEXEC |
					     (e->has_cgroup ? PERF_FLAG_PID_CGROUP : 0));
		if (fds[i] < 0) {
			err = fds[i];
			pr_debug("hotplug: CPU %d: opening %s again: %s\n", cpu, e->name, strerror(-err));
			break;
		}
		if (ioctl(fds[i], PERF_EVENT_IOC_SET_OUTPUT, ring_fd) ||
		    ioctl(fds[i], PERF_EVENT_IOC_ID, &ids[i]) ||
		    (e->filter && ioctl(fds[i], PERF_EVENT_IOC_SET_FILTER, e->filter))) {
			err = -errno;
			pr_debug("hotplug: CPU %d: %s into its ring: %s\n", cpu, e->name, strerror(-err));
		}
	}
	if (!err && rec->out.pipe)
		err = announce_ids(rec, fds, ids);
	if (err) {
		for (i = 0; i < el->nr; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		goto out;
	}
	/* Theirs now: the old fds wait for the end, the ids join the events'. */
	for (i = 0; i < el->nr; i++) {
		struct evsel *e = el->evsels[i];

		if (fds[i] < 0)
			continue;
		retire(h, FD(e, c, 0), i, c);
		FD(e, c, 0) = fds[i];
		e->ids = xrealloc(e->ids, (e->nr_ids + 1) * sizeof(*e->ids));
		e->ids[e->nr_ids++] = ids[i];
		/* The readers' stages (triage, --unwind) know its samples' event too. */
		if (sample_layouts__add_late(&rec->readers.layouts, i, ids[i]))
			pr_debug("hotplug: CPU %d: more new ids than the stages keep: %s's samples "
				 "there are not thinned%s\n", cpu, e->name,
				 rec->opts.unwind ? " or unwound" : "");
		if (rec->attrs) {
			rec->attrs[i].ids = e->ids;
			rec->attrs[i].nr_ids = e->nr_ids;
		}
	}
	for (i = 0; i < el->nr; i++)
		if (fds[i] >= 0 && el->evsels[i]->on && sys_perf_ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0))
			pr_warn("hotplug: CPU %d: cannot turn %s on again\n", cpu, el->evsels[i]->name);
out:
	free(fds);
	free(ids);
	return err;
}

static double secs(const struct hotplug *h, uint64_t ns)
{
	return ns > h->start_ns ? (ns - h->start_ns) / 1e9 : 0;
}

/*
 * A CPU seen back: open its events again. The online mask can say a CPU
 * is back a moment before perf's own hotplug step for it has run, and
 * then the open fails (seen once in a fresh-clone CI run): it is tried
 * again each tick, HOTPLUG_TRIES times, before it is given up.
 */
static void try_back(struct hotplug *h, struct record *rec, struct hotplug_gap *g)
{
	const struct evlist *el = &rec->evlist;
	int c = 0;

	while (c < el->cpus->nr && el->cpus->cpu[c] != g->cpu)
		c++;
	if (c == el->cpus->nr || reopen_cpu(h, rec, c)) {
		if (++g->tries < HOTPLUG_TRIES)
			return;
		g->pending = false;
		pr_warn("CPU %d came back, but its events could not be opened again in %d tries "
			"(-v says why): it is not recorded from here\n", g->cpu, g->tries);
		return;
	}
	g->pending = false;
	g->reopened = true;
	/* Its readers, pinned there, lost their affinity with it. */
	record_threads__repin(&rec->readers, g->cpu);
	pr_info("CPU %d came back %.3f s into the recording: its events are open again%s\n",
		g->cpu, secs(h, g->on_ns), g->tries ? " (not at the first try)" : "");
}

void hotplug__tick(struct hotplug *h, struct record *rec, uint64_t now)
{
	const struct evlist *el = &rec->evlist;
	struct cpu_map *online;
	uint64_t t0;

	if (!h->active)
		return;
	t0 = mono_ns();
	online = read_online(h);
	h->read_ns += mono_ns() - t0;
	h->reads++;
	/* NULL: as last read. */
	for (int c = 0; online && c < el->cpus->nr; c++) {
		int cpu = el->cpus->cpu[c];
		bool was = cpu_map__contains(h->online, cpu), is = cpu_map__contains(online, cpu);
		struct hotplug_gap *g;

		if (was && !is) {
			/* Gone again before its events were back: that gap ends here. */
			for (int i = 0; i < h->nr_gaps; i++)
				if (h->gaps[i].cpu == cpu)
					h->gaps[i].pending = false;
			if (h->nr_gaps == h->cap_gaps) {
				h->cap_gaps = h->cap_gaps ? 2 * h->cap_gaps : 8;
				h->gaps = xrealloc(h->gaps, h->cap_gaps * sizeof(*h->gaps));
			}
			h->gaps[h->nr_gaps++] = (struct hotplug_gap){ .cpu = cpu, .off_ns = now };
			pr_info("CPU %d went offline %.3f s into the recording\n", cpu, secs(h, now));
		} else if (!was && is && (g = open_gap(h, cpu))) {
			g->on_ns = now;
			if (rec->rings.maps[c].aux) {
				pr_warn("CPU %d is back, but its AUX area cannot be moved to new events: "
					"it is not recorded again\n", cpu);
				continue;
			}
			g->pending = true;
		}
	}
	if (online) {
		cpu_map__delete(h->online);
		h->online = online;
	}
	for (int i = 0; i < h->nr_gaps; i++)
		if (h->gaps[i].pending)
			try_back(h, rec, &h->gaps[i]);
}

void hotplug__summary(const struct hotplug *h, FILE *f)
{
	for (int i = 0; i < h->nr_gaps; i++) {
		const struct hotplug_gap *g = &h->gaps[i];

		if (!g->on_ns)
			fprintf(f, "[ perfcap record: CPU %d was offline from %.3f s to the end ]\n",
				g->cpu, secs(h, g->off_ns));
		else
			fprintf(f, "[ perfcap record: CPU %d was offline from %.3f s to %.3f s, %s ]\n",
				g->cpu, secs(h, g->off_ns), secs(h, g->on_ns),
				g->reopened ? "then recorded again" : "and not recorded after");
	}
	if (verbose > 0 && h->reads)
		fprintf(f, "[ perfcap record: hotplug: %" PRIu64 " reads of the online CPUs, "
			"%.1f us each ]\n", h->reads, h->read_ns / 1e3 / h->reads);
}

void hotplug__exit(struct hotplug *h)
{
	for (int i = 0; i < h->nr_retired; i++)
		close(h->retired[i].fd);
	free(h->retired);
	free(h->gaps);
	cpu_map__delete(h->online);
	if (h->online_open)
		close(h->online_fd);
	memset(h, 0, sizeof(*h));
}
