// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "events/evlist.h"
#include "perf-file.h"
#include "sys.h"
#include "util.h"

void evlist__init(struct evlist *el)
{
	memset(el, 0, sizeof(*el));
}

void evlist__add(struct evlist *el, struct evsel *e)
{
	el->evsels = xrealloc(el->evsels, (el->nr + 1) * sizeof(*el->evsels));
	e->idx = el->nr;
	el->evsels[el->nr++] = e;
}

void evlist__add_events(struct evlist *el, const struct event_list *list)
{
	int base = el->nr;

	for (int i = 0; i < list->nr; i++)
		evlist__add(el, evsel__new_spec(&list->ev[i]));
	for (int i = 0; i < list->nr; i++) {
		struct evsel *e = el->evsels[base + i];

		e->leader = el->evsels[base + list->ev[i].leader];
		e->nr_members = e->leader == e ? list->ev[i].nr_members : 1;
	}
}

int evlist__nr_groups(const struct evlist *el)
{
	int nr = 0;

	for (int i = 0; i < el->nr; i++)
		if (evsel__is_leader(el->evsels[i]) && el->evsels[i]->nr_members > 1)
			nr++;
	return nr;
}

void evlist__apply_event_config(struct evlist *el)
{
	struct evsel *e;

	evlist__for_each_evsel(el, e) {
		struct perf_event_attr *a = &e->attr;
		struct evsel *leader = e->leader ? e->leader : e;

		if (e->precise_max)
			a->precise_ip = 3;
		/* perf's evsel__apply_config_terms: the event's terms win. */
		if (e->terms.has_period) {
			a->sample_period = e->terms.period;
			a->freq = 0;
		}
		if (e->terms.has_freq) {
			a->sample_freq = e->terms.freq;
			a->freq = 1;
		}
		if (e->sample_read) {
			a->sample_type |= PERF_SAMPLE_READ;
			/* The values read are matched to events by id. */
			if (!(a->sample_type & PERF_SAMPLE_IDENTIFIER))
				a->sample_type |= PERF_SAMPLE_ID;
			a->read_format |= PERF_FORMAT_ID;
			/* The kernel takes no inherited group reads. */
			if (leader->nr_members > 1) {
				a->read_format |= PERF_FORMAT_GROUP;
				a->inherit = 0;
			}
		}
		if (leader == e)
			continue;
		/* A member counts while its leader does: the leader is enabled. */
		a->disabled = 0;
		a->enable_on_exec = 0;
		if (leader->sample_read) {
			/*
			 * Leader sampling: the leader's samples carry the
			 * members' counts, so a member does not sample unless
			 * its own terms ask for it; its sample_type follows the
			 * leader's so that reports read both alike.
			 */
			if (!e->terms.has_period && !e->terms.has_freq) {
				a->freq = 0;
				a->sample_freq = 0;
				a->sample_period = 0;
			}
			a->sample_type |= leader->attr.sample_type;
		}
	}
}

void evlist__exit(struct evlist *el)
{
	for (int i = 0; i < el->nr; i++)
		evsel__delete(el->evsels[i]);
	free(el->evsels);
	free(el->threads);
	cpu_map__delete(el->cpus);
	memset(el, 0, sizeof(*el));
}

size_t evlist__id_hdr_size(const struct evlist *el)
{
	return el->nr ? evsel__id_hdr_size(el->evsels[0]) : 0;
}

static int paranoid(void)
{
	long long v = 2;

	read_int("/proc/sys/kernel/perf_event_paranoid", &v);
	return (int)v;
}

static void open_error(struct evsel *e, int cpu, pid_t pid, int err)
{
	char where[64] = "";

	if (cpu >= 0)
		snprintf(where, sizeof(where), " on CPU %d", cpu);
	else if (pid > 0)
		snprintf(where, sizeof(where), " for pid %d", pid);

	switch (-err) {
	case EACCES:
	case EPERM:
		pr_err("no permission to open event '%s'%s: perf_event_paranoid is %d.\n"
		       "  Run as root, or lower /proc/sys/kernel/perf_event_paranoid "
		       "(-1: everything; 1: your own processes and CPU-wide without kernel "
		       "samples; 2: your own processes, user space only),\n"
		       "  or give the binary CAP_PERFMON.\n", e->name, where, paranoid());
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (-err == EOPNOTSUPP && (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK))
			pr_err("%s: the PMU or the event type cannot sample branch stacks "
			       "(-b/-j need a CPU with a branch record, such as Intel's LBR, "
			       "and a hardware event)\n", e->name);
		else if (e->attr.type == PERF_TYPE_HARDWARE || e->attr.type == PERF_TYPE_HW_CACHE ||
		    e->attr.type == PERF_TYPE_RAW)
			/* perf's sentence first, for scripts that look for it. */
			pr_err("The %s event is not supported.\n  This machine has no "
			       "hardware PMU that counts it; software events such as cpu-clock "
			       "work everywhere.\n", e->name);
		else
			pr_err("event '%s' is not supported by this kernel%s: %s\n", e->name,
			       where, strerror(-err));
		break;
	case ESRCH:
		pr_err("cannot open event '%s'%s: no such process (pid %d exited?)\n",
		       e->name, where, pid);
		break;
	case EMFILE:
		pr_err("too many open files opening event '%s'%s: raise the limit "
		       "(ulimit -n) or record fewer events/CPUs\n", e->name, where);
		break;
	case EINVAL:
		pr_err("the kernel rejected event '%s'%s (invalid argument): check -c/-F, "
		       "--call-graph and modifiers\n", e->name, where);
		break;
	default:
		pr_err("cannot open event '%s'%s: %s\n", e->name, where, strerror(-err));
	}
}

/*
 * perf_event_paranoid 2 lets a user profile only user space: as perf
 * does, an event that asked for the kernel too is retried without it,
 * with a warning and ":u" added to its name.
 */
static bool fallback_to_user(struct evsel *e, int err)
{
	size_t n;

	if ((err != -EACCES && err != -EPERM) || e->attr.exclude_kernel || !geteuid())
		return false;
	e->attr.exclude_kernel = 1;
	e->attr.exclude_hv = 1;
	n = strlen(e->name);
	e->name = xrealloc(e->name, n + 3);
	if (!strchr(e->name, ':') || e->tracepoint)
		strcpy(e->name + n, ":u");
	pr_warn("no permission to sample the kernel (perf_event_paranoid is %d): "
		"recording '%s' in user space only\n", paranoid(), e->name);
	return true;
}

/*
 * perf 6.1's evsel__fallback: where the kernel has no PMU event for
 * cycles, the hrtimer-based cpu-clock samples instead, named as perf
 * names it ("cpu-clock", "cpu-clock:uH" for cycles:u); perf says so only
 * with -v, and so do we.
 */
static bool fallback_to_cpu_clock(struct evsel *e, int err)
{
	char mods[16];

	if ((err != -ENOENT && err != -ENXIO && err != -ENODEV) ||
	    e->attr.type != PERF_TYPE_HARDWARE || e->attr.config != PERF_COUNT_HW_CPU_CYCLES)
		return false;
	if (verbose > 0)
		pr_warn("The cycles event is not supported, trying to fall back to "
			"cpu-clock-ticks\n");
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	event_attr__modifiers(&e->attr, mods, sizeof(mods));
	free(e->name);
	if (asprintf(&e->name, "cpu-clock%s", mods) < 0)
		e->name = xstrdup("cpu-clock");
	return true;
}

/* P: from precise_ip 3 down to what the PMU takes (perf's evsel__precise_ip_fallback). */
static bool fallback_precise(struct evsel *e)
{
	if (!e->precise_max || !e->attr.precise_ip)
		return false;
	e->attr.precise_ip--;
	pr_debug("event '%s': trying precise_ip %u\n", e->name, e->attr.precise_ip);
	return true;
}

/*
 * W: a group the kernel refuses as a whole is opened as separate events
 * (perf's evlist__reset_weak_group). Returns true if e's group was weak
 * and is now split; every fd is closed for the caller to start again.
 */
static bool split_weak_group(struct evlist *el, struct evsel *e, int err)
{
	struct evsel *leader = e->leader, *m;

	if ((err != -EINVAL && err != -EBADF) || evsel__is_leader(e) || !leader->weak_group)
		return false;
	pr_debug("weak group of '%s' failed (%s): opening its events apart\n", leader->name,
		 strerror(-err));
	evlist__for_each_evsel(el, m) {
		evsel__close(m);
		if (m->leader != leader)
			continue;
		m->leader = m;
		m->nr_members = 1;
		m->attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
		if (m != leader) {
			/* Now on its own, it is enabled and sampled as the leader is. */
			m->attr.disabled = leader->attr.disabled;
			m->attr.enable_on_exec = leader->attr.enable_on_exec;
		}
	}
	return true;
}

static int set_filters(struct evsel *e)
{
	for (int i = 0; e->filter && i < e->nr_cpus * e->nr_threads; i++) {
		if (e->fds[i] >= 0 && ioctl(e->fds[i], PERF_EVENT_IOC_SET_FILTER, e->filter)) {
			int err = -errno;

			/* perf's words, then what to do about it. */
			pr_err("failed to set filter \"%s\" on event %s with %d (%s)\n"
			       "  The kernel rejected the filter: check the field names "
			       "(perf evlist --trace-fields, or the event's format file in "
			       "tracefs) and the syntax.\n", e->filter, e->name, -err,
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

int evsel__set_filter(struct evsel *e, const char *filter)
{
	free(e->filter);
	e->filter = xstrdup(filter);
	return set_filters(e);
}

static int open_all(struct evlist *el, bool *restart)
{
	struct evsel *e;
	int nr_cpus = el->cpus->nr;

	*restart = false;
	evlist__for_each_evsel(el, e) {
		evsel__alloc_fds(e, nr_cpus, el->nr_threads);
retry:
		for (int c = 0; c < nr_cpus; c++) {
			for (int t = 0; t < el->nr_threads; t++) {
				int cpu = el->cpus->cpu[c];
				pid_t pid = el->threads[t];
				int fd, group_fd = -1;

				if (!evsel__is_leader(e))
					group_fd = FD(e->leader, c, t);
				/* -G: the cgroup's directory stands for the pid (system-wide only). */
				fd = sys_perf_event_open(&e->attr, e->has_cgroup ? e->cgroup_fd : pid,
							 cpu, group_fd, PERF_FLAG_FD_CLOEXEC |
							 (e->has_cgroup ? PERF_FLAG_PID_CGROUP : 0));
				if (fd < 0 && c == 0 && t == 0 &&
				    (fallback_to_user(e, fd) || fallback_to_cpu_clock(e, fd) ||
				     fallback_precise(e)))
					goto retry;
				if (fd < 0 && split_weak_group(el, e, fd)) {
					*restart = true;
					return 0;
				}
				if (fd < 0) {
					open_error(e, cpu, pid, fd);
					return fd;
				}
				FD(e, c, t) = fd;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &e->ids[c * el->nr_threads + t])) {
					int err = -errno;

					pr_err("cannot read the id of event '%s': %s\n", e->name,
					       strerror(-err));
					return err;
				}
				e->nr_ids++;
			}
		}
	}
	evlist__for_each_evsel(el, e) {
		int err = set_filters(e);

		if (err)
			return err;
	}
	return 0;
}

int evlist__open(struct evlist *el)
{
	bool restart;
	int err;

	/* A split weak group restarts once per group at most. */
	for (int tries = 0; tries <= el->nr; tries++) {
		err = open_all(el, &restart);
		if (err || !restart)
			return err;
	}
	return -EINVAL;
}

int evlist__set_output(struct evlist *el, int c, int fd)
{
	struct evsel *e;

	evlist__for_each_evsel(el, e) {
		for (int t = 0; t < el->nr_threads; t++) {
			int other = FD(e, c, t);

			if (other == fd)
				continue;
			if (ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, fd)) {
				int err = -errno;

				pr_err("cannot redirect event '%s' into the ring of CPU %d: %s\n",
				       e->name, el->cpus->cpu[c], strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

int evlist__set_output_thread(struct evlist *el, int t, int fd)
{
	struct evsel *e;

	evlist__for_each_evsel(el, e) {
		int other = FD(e, 0, t);

		if (other == fd)
			continue;
		if (ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, fd)) {
			int err = -errno;

			pr_err("cannot redirect event '%s' into the ring of thread %d: %s\n",
			       e->name, el->threads[t], strerror(-err));
			return err;
		}
	}
	return 0;
}

int evsel__set_enabled(struct evsel *e, bool on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	int err = 0;

	e->on = on;

	for (int i = 0; e->fds && i < e->nr_cpus * e->nr_threads; i++) {
		int ret = e->fds[i] >= 0 ? sys_perf_ioctl(e->fds[i], req, 0) : 0;

		if (ret && !err)
			err = ret;
	}
	return err;
}

static bool evsel_is_dummy(const struct evsel *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY;
}

static int set_all(struct evlist *el, bool on)
{
	struct evsel *e;
	int err = 0;

	evlist__for_each_evsel(el, e) {
		int r = evsel__set_enabled(e, on);

		if (r && !err)
			err = r;
	}
	return err;
}

int evlist__set_non_dummy(struct evlist *el, bool on)
{
	struct evsel *e;
	int err = 0;

	evlist__for_each_evsel(el, e) {
		int r = evsel_is_dummy(e) ? 0 : evsel__set_enabled(e, on);

		if (r && !err)
			err = r;
	}
	return err;
}

struct evsel *evlist__find(struct evlist *el, const char *name)
{
	struct evsel *e;

	evlist__for_each_evsel(el, e)
		if (e->name && !strcmp(e->name, name))
			return e;
	return NULL;
}

int evlist__enable(struct evlist *el)
{
	return set_all(el, true);
}

int evlist__disable(struct evlist *el)
{
	return set_all(el, false);
}
