// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "evlist.h"
#include "output.h"
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

void evlist__exit(struct evlist *el)
{
	for (int i = 0; i < el->nr_mmaps; i++)
		if (el->mmaps[i].base)
			mmap__close(&el->mmaps[i]);
	for (int i = 0; i < el->nr; i++)
		evsel__delete(el->evsels[i]);
	free(el->evsels);
	free(el->mmaps);
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
			pr_err("event '%s' is not supported on this machine (no hardware PMU "
			       "for it?); software events such as cpu-clock work everywhere\n",
			       e->name);
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

int evlist__open(struct evlist *el)
{
	struct evsel *e;
	int nr_cpus = el->cpus->nr;

	evlist__for_each_evsel(el, e) {
		evsel__alloc_fds(e, nr_cpus, el->nr_threads);
retry:
		for (int c = 0; c < nr_cpus; c++) {
			for (int t = 0; t < el->nr_threads; t++) {
				int cpu = el->cpus->cpu[c];
				pid_t pid = el->threads[t];
				int fd;

				fd = sys_perf_event_open(&e->attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
				if (fd < 0 && c == 0 && t == 0 && fallback_to_user(e, fd))
					goto retry;
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
	return 0;
}

int evlist__mmap(struct evlist *el, unsigned int pages, int nr_bufs, struct output *out)
{
	int nr_cpus = el->cpus->nr;
	struct evsel *e;

	el->mmaps = xzalloc(nr_cpus * sizeof(*el->mmaps));
	el->nr_mmaps = nr_cpus;
	for (int c = 0; c < nr_cpus; c++) {
		struct mmap *m = &el->mmaps[c];
		int first = FD(el->evsels[0], c, 0);
		int err = mmap__init(m, first, el->cpus->cpu[c], pages, nr_bufs, out);

		if (err) {
			if (err == -EPERM || err == -ENOMEM)
				pr_err("cannot mmap the ring of CPU %d (%u pages): %s.\n"
				       "  Try a smaller -m, or raise /proc/sys/kernel/perf_event_mlock_kb "
				       "(locked memory for rings).\n", el->cpus->cpu[c], pages,
				       strerror(-err));
			else
				pr_err("cannot mmap the ring of CPU %d: %s\n", el->cpus->cpu[c],
				       strerror(-err));
			return err;
		}
		evlist__for_each_evsel(el, e) {
			for (int t = 0; t < el->nr_threads; t++) {
				int fd = FD(e, c, t);

				if (fd == first)
					continue;
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, first)) {
					err = -errno;
					pr_err("cannot redirect event '%s' into the ring of CPU %d: %s\n",
					       e->name, el->cpus->cpu[c], strerror(-err));
					return err;
				}
			}
		}
	}
	return 0;
}

static int ioctl_all(struct evlist *el, unsigned long req)
{
	struct evsel *e;
	int err = 0;

	evlist__for_each_evsel(el, e)
		for (int i = 0; e->fds && i < e->nr_cpus * e->nr_threads; i++) {
			int ret = e->fds[i] >= 0 ? sys_perf_ioctl(e->fds[i], req, 0) : 0;

			if (ret && !err)
				err = ret;
		}
	return err;
}

int evlist__enable(struct evlist *el)
{
	return ioctl_all(el, PERF_EVENT_IOC_ENABLE);
}

int evlist__disable(struct evlist *el)
{
	return ioctl_all(el, PERF_EVENT_IOC_DISABLE);
}
