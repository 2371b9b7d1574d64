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
 *    before any sample of theirs can, and in both formats an ID_INDEX
 *    record that puts them on their CPU (perfcap loss reads the gap
 *    from it: announce_ids).
 *
 * The readers pinned to the CPU are pinned again (the kernel dropped
 * their affinity when it went). The old events' fds are kept open until the rings are gone: a ring
 * hangs off the fd it was mapped through, and its reader polls that fd
 * (the kernel wakes every event attached to a ring). With -a, a CPU that
 * was offline at the start (or is added to the machine) is recorded once
 * it comes online: hotplug__reserve made room for its ring before the
 * readers took pointers into the rings, its events are opened as above
 * with the first one's fd mapped as its ring (rings__add), and the reader
 * with the fewest rings adopts it (record_threads__adopt). Its events'
 * fds go in a new CPU slot of each event (e->nr_cpus grows; the event
 * list's CPU map stays what it was at the start, and a ring's index is its
 * slot). Left alone: CPUs outside the recording (-C), recordings
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
#include "record/aux.h"
#include "io/output.h"
#include "record/hotplug.h"
#include "record/record.h"
#include "sys.h"
#include "util.h"

#define ONLINE_PATH "/sys/devices/system/cpu/online"
#define POSSIBLE_PATH "/sys/devices/system/cpu/possible"
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

/* -a: every online CPU, a ring each (not --per-thread); no AUX area, no task. */
static bool late_ok(const struct record *rec)
{
	const struct evlist *el = &rec->evlist;

	return rec->opts.system_wide && !rec->opts.cpu_list && el->system_wide &&
	       el->nr_threads == 1 && el->cpus->nr && el->cpus->cpu[0] >= 0 && !aux__evsel(el);
}

void hotplug__reserve(struct record *rec)
{
	struct cpu_map *possible;
	int extra = 0;

	if (!late_ok(rec))
		return;
	possible = cpu_map__read(POSSIBLE_PATH);
	for (int i = 0; possible && i < possible->nr; i++)
		extra += !cpu_map__contains(rec->evlist.cpus, possible->cpu[i]);
	cpu_map__delete(possible);
	rings__reserve(&rec->rings, extra);
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
	h->late = h->active && rec->rings.cap > rec->rings.nr;
}

/* The ring (and CPU slot) index of cpu; -1: not recorded. */
static int ring_of(const struct record *rec, int cpu)
{
	for (int c = 0; c < rec->rings.nr; c++)
		if (rec->rings.maps[c].cpu == cpu)
			return c;
	return -1;
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

/*
 * Say the new ids before any sample of theirs: in pipe mode a HEADER_ATTR
 * for each event opened again (fds[i] >= 0), with its new id only; in
 * both formats an ID_INDEX that puts them on CPU index c, which is how
 * perfcap loss finds the gap (the attr section lists them only at the
 * end, with no word of when or where they came).
 */
static int announce_ids(struct record *rec, int c, int cpu, const int *fds, uint64_t *ids)
{
	struct id_index_entry *ix = xzalloc(rec->evlist.nr * sizeof(*ix));
	struct strbuf sb;
	size_t nr = 0;
	int err = 0;

	strbuf__init(&sb);
	for (int i = 0; i < rec->evlist.nr && !err; i++) {
		struct feature_event ev = { .attr = record__file_attr(rec, i),
					    .name = rec->evlist.evsels[i]->name,
					    .ids = &ids[i], .nr_ids = 1 };

		if (fds[i] < 0)
			continue;
		if (rec->out.pipe)
			err = pipe_data__build_attr(&sb, &ev);
		ix[nr++] = (struct id_index_entry){ .id = ids[i], .idx = (uint64_t)c,
						    .cpu = (uint64_t)cpu,
						    .tid = (uint64_t)-1 };
	}
	if (!err)
		err = pipe_data__build_id_index(&sb, ix, nr);
	if (!err && sb.len) {
		int64_t off = output__write_copy(&rec->out, sb.data, sb.len);

		err = off < 0 ? (int)off : 0;
	}
	strbuf__exit(&sb);
	free(ix);
	return err;
}

/* Each event one CPU slot more (-1), for a CPU that came online: slot e->nr_cpus. */
static void grow_slots(struct evlist *el)
{
	for (int i = 0; i < el->nr; i++) {
		struct evsel *e = el->evsels[i];

		e->fds = xrealloc(e->fds, (e->nr_cpus + 1) * e->nr_threads * sizeof(*e->fds));
		FD(e, e->nr_cpus, 0) = -1;
		e->nr_cpus++;
	}
}

static void shrink_slots(struct evlist *el)
{
	for (int i = 0; i < el->nr; i++)
		el->evsels[i]->nr_cpus--;
}

/*
 * Open every event of slot c on cpu: again, into the ring that is there
 * (c < rings.nr), or for the first time, into a ring mapped from the first
 * event's fd (c == rings.nr: a CPU that came online, slot made by
 * grow_slots). 0, or -errno with nothing changed: the fds opened so far
 * are closed, a ring mapped is taken back.
 */
static int open_cpu(struct hotplug *h, struct record *rec, int c, int cpu)
{
	struct evlist *el = &rec->evlist;
	bool fresh = c == rec->rings.nr;
	int ring_fd = fresh ? -1 : rec->rings.maps[c].fd;
	int *fds = xzalloc(el->nr * sizeof(*fds));
	uint64_t *ids = xzalloc(el->nr * sizeof(*ids));
	int err = 0, i;

	for (i = 0; i < el->nr; i++)
		fds[i] = -1;
	for (i = 0; i < el->nr && !err; i++) {
		struct evsel *e = el->evsels[i];
		struct perf_event_attr attr = e->attr;
		int group_fd = -1;

		/* Never open on a CPU of the start (--off-cpu's is written by perfcap). */
		if (FD(e, fresh ? 0 : c, 0) < 0)
			continue;
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
			pr_debug("hotplug: CPU %d: opening %s%s: %s\n", cpu, e->name,
				 fresh ? "" : " again", strerror(-err));
			break;
		}
		if (ring_fd < 0) {
			int r = rings__add(&rec->rings, fds[i], cpu);

			if (r < 0) {
				err = r;
				pr_debug("hotplug: CPU %d: its ring: %s\n", cpu, strerror(-err));
				break;
			}
			ring_fd = fds[i];
		} else if (ioctl(fds[i], PERF_EVENT_IOC_SET_OUTPUT, ring_fd)) {
			err = -errno;
		}
		if (!err && (ioctl(fds[i], PERF_EVENT_IOC_ID, &ids[i]) ||
			     (e->filter && ioctl(fds[i], PERF_EVENT_IOC_SET_FILTER, e->filter))))
			err = -errno;
		if (err)
			pr_debug("hotplug: CPU %d: %s into its ring: %s\n", cpu, e->name, strerror(-err));
	}
	if (!err)
		err = announce_ids(rec, c, cpu, fds, ids);
	if (err) {
		if (fresh && ring_fd >= 0)
			rings__drop_last(&rec->rings);
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
		if (FD(e, c, 0) >= 0)
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
			pr_warn("hotplug: CPU %d: cannot turn %s on%s\n", cpu, el->evsels[i]->name,
				fresh ? "" : " again");
out:
	free(fds);
	free(ids);
	return err;
}

static double secs(const struct hotplug *h, uint64_t ns)
{
	return ns > h->start_ns ? (ns - h->start_ns) / 1e9 : 0;
}

/* A new gap of cpu from off_ns. */
static struct hotplug_gap *add_gap(struct hotplug *h, int cpu, uint64_t off_ns)
{
	if (h->nr_gaps == h->cap_gaps) {
		h->cap_gaps = h->cap_gaps ? 2 * h->cap_gaps : 8;
		h->gaps = xrealloc(h->gaps, h->cap_gaps * sizeof(*h->gaps));
	}
	h->gaps[h->nr_gaps] = (struct hotplug_gap){ .cpu = cpu, .off_ns = off_ns };
	return &h->gaps[h->nr_gaps++];
}

/*
 * A CPU seen back (or, -a, online for the first time): open its events.
 * The online mask can say a CPU is back a moment before perf's own
 * hotplug step for it has run, and then the open fails (seen once in a
 * fresh-clone CI run): it is tried again each tick, HOTPLUG_TRIES times,
 * before it is given up.
 */
static void try_back(struct hotplug *h, struct record *rec, struct hotplug_gap *g)
{
	int c = ring_of(rec, g->cpu), err, reader = -1;

	if (c < 0) {
		/* A CPU offline at the start: a slot and a ring of its own. */
		c = rec->rings.nr;
		grow_slots(&rec->evlist);
		err = open_cpu(h, rec, c, g->cpu);
		if (err)
			shrink_slots(&rec->evlist);
		else
			reader = record_threads__adopt(&rec->readers, &rec->rings.maps[c]);
	} else {
		err = open_cpu(h, rec, c, g->cpu);
	}
	if (err) {
		if (++g->tries < HOTPLUG_TRIES)
			return;
		g->pending = false;
		pr_warn("CPU %d came %s, but its events could not be opened%s in %d tries "
			"(-v says why): it is not recorded from here\n", g->cpu,
			g->late ? "online" : "back", g->late ? "" : " again", g->tries);
		return;
	}
	g->pending = false;
	g->reopened = true;
	if (reader >= 0) {
		pr_info("CPU %d came online %.3f s into the recording: its events are open, "
			"its ring read by reader thread %d%s\n", g->cpu, secs(h, g->on_ns), reader,
			g->tries ? " (not at the first try)" : "");
		return;
	}
	/* Its readers, pinned there, lost their affinity with it. */
	record_threads__repin(&rec->readers, g->cpu);
	pr_info("CPU %d came back %.3f s into the recording: its events are open again%s\n",
		g->cpu, secs(h, g->on_ns), g->tries ? " (not at the first try)" : "");
}

void hotplug__tick(struct hotplug *h, struct record *rec, uint64_t now)
{
	struct cpu_map *online;
	uint64_t t0;

	if (!h->active)
		return;
	t0 = mono_ns();
	online = read_online(h);
	h->read_ns += mono_ns() - t0;
	h->reads++;
	/* NULL: as last read. The CPUs recorded: a ring each, its index the CPU's slot. */
	for (int c = 0; online && c < rec->rings.nr; c++) {
		int cpu = rec->rings.maps[c].cpu;
		bool was = cpu_map__contains(h->online, cpu), is = cpu_map__contains(online, cpu);
		struct hotplug_gap *g;

		if (was && !is) {
			/* Gone again before its events were back: that gap ends here. */
			for (int i = 0; i < h->nr_gaps; i++)
				if (h->gaps[i].cpu == cpu)
					h->gaps[i].pending = false;
			add_gap(h, cpu, now);
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
	/* -a: a CPU online now that has no ring yet (offline at the start, or added). */
	for (int i = 0; online && h->late && i < online->nr; i++) {
		int cpu = online->cpu[i];
		struct hotplug_gap *g;

		if (cpu_map__contains(h->online, cpu) || ring_of(rec, cpu) >= 0 || open_gap(h, cpu))
			continue;
		g = add_gap(h, cpu, h->start_ns);
		g->late = true;
		g->on_ns = now;
		g->pending = true;
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

		if (g->late)
			fprintf(f, "[ perfcap record: CPU %d was offline at the start, online from "
				"%.3f s, %s ]\n", g->cpu, secs(h, g->on_ns),
				g->reopened ? "recorded from there" : "not recorded");
		else if (!g->on_ns)
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
