// SPDX-License-Identifier: GPL-2.0
/* --switch-output-event (switch-event.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/helper-threads.h"
#include "record/switch-event.h"
#include "util.h"

/* A page of records between two polls is plenty: each one only says "switch". */
#define SB_DATA_PAGES 1

static size_t ring_len(void)
{
	return (size_t)(1 + SB_DATA_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
}

int switch_event__open(struct switch_event *sw, const char *spec, const struct evlist *target)
{
	size_t cpus_size = sizeof(*target->cpus) + target->cpus->nr * sizeof(int);
	char msg[512] = "";
	struct evsel *e;
	int err;

	memset(sw, 0, sizeof(*sw));
	sw->stop_fd = -1;
	sw->opened = true;
	evlist__init(&sw->el);
	err = parse_events(&sw->list, spec, msg, sizeof(msg));
	if (err) {
		pr_err("--switch-output-event: %s\n", msg[0] ? msg : "cannot parse the events");
		return err;
	}
	evlist__add_events(&sw->el, &sw->list);
	sw->el.cpus = xzalloc(cpus_size);
	memcpy(sw->el.cpus, target->cpus, cpus_size);
	sw->el.system_wide = target->system_wide;
	sw->el.threads = xzalloc(target->nr_threads * sizeof(pid_t));
	memcpy(sw->el.threads, target->threads, target->nr_threads * sizeof(pid_t));
	sw->el.nr_threads = target->nr_threads;
	evlist__for_each_evsel(&sw->el, e) {
		/* Every hit is a record, and every record wakes the poll. */
		e->attr.sample_period = 1;
		e->attr.freq = 0;
		e->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		e->attr.wakeup_events = 1;
		e->attr.watermark = 0;
		e->attr.disabled = 0;
		/* What the command forks counts too; no ring takes inherited events on CPU -1. */
		e->attr.inherit = target->cpus->cpu[0] >= 0;
		e->leader = e;
		e->nr_members = 1;
	}
	err = evlist__open(&sw->el);
	if (err)
		return err;
	sw->nr_rings = sw->el.cpus->nr * sw->el.nr_threads;
	sw->rings = xzalloc(sw->nr_rings * sizeof(*sw->rings));
	for (int i = 0; i < sw->nr_rings; i++) {
		int fd = sw->el.evsels[0]->fds[i];
		void *m = mmap(NULL, ring_len(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		if (m == MAP_FAILED) {
			err = -errno;
			pr_err("--switch-output-event: cannot map a ring: %s\n", strerror(-err));
			return err;
		}
		sw->rings[i] = m;
		/* Of the same CPU and thread: the kernel redirects those into any ring. */
		for (int j = 1; j < sw->el.nr; j++) {
			if (ioctl(sw->el.evsels[j]->fds[i], PERF_EVENT_IOC_SET_OUTPUT, fd)) {
				err = -errno;
				pr_err("--switch-output-event: cannot redirect '%s': %s\n",
				       sw->el.evsels[j]->name, strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

/* Drop what a ring holds; whether it held anything. */
static bool ring_consume(void *base)
{
	struct perf_event_mmap_page *pc = base;
	/* Pairs with the kernel's write barrier before it publishes data_head. */
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail;

	if (head == tail)
		return false;
	/* Nothing is read from the data, so only the kernel's side needs ordering. */
	__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
	return true;
}

static void *switch_event_thread(void *arg)
{
	struct switch_event *sw = arg;
	int n = sw->nr_rings;
	struct pollfd *pfd = xzalloc((n + 1) * sizeof(*pfd));
	sigset_t all;

	/* SIGUSR2 is for the recorder's loop, not this thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (int i = 0; i < n; i++)
		pfd[i] = (struct pollfd){ .fd = sw->el.evsels[0]->fds[i], .events = POLLIN };
	pfd[n] = (struct pollfd){ .fd = sw->stop_fd, .events = POLLIN };
	for (;;) {
		bool hit = false;

		if (poll(pfd, n + 1, -1) < 0 && errno != EINTR)
			break;
		if (pfd[n].revents)
			break;
		for (int c = 0; c < n; c++)
			hit |= ring_consume(sw->rings[c]);
		if (hit) {
			sw->switches++;
			kill(getpid(), SIGUSR2);
		}
	}
	free(pfd);
	return NULL;
}

int switch_event__start(struct switch_event *sw)
{
	int err;

	sw->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (sw->stop_fd < 0) {
		err = -errno;
		pr_err("eventfd: %s\n", strerror(-err));
		return err;
	}
	err = own_thread__create(&sw->thread, switch_event_thread, sw);
	if (err) {
		pr_err("--switch-output-event: cannot start its thread: %s\n", strerror(-err));
		return err;
	}
	sw->started = true;
	return 0;
}

void switch_event__close(struct switch_event *sw)
{
	uint64_t one = 1;

	if (!sw->opened)
		return;
	if (sw->started) {
		(void)!write(sw->stop_fd, &one, sizeof(one));
		pthread_join(sw->thread, NULL);
		sw->started = false;
	}
	if (sw->stop_fd >= 0)
		close(sw->stop_fd);
	sw->stop_fd = -1;
	for (int c = 0; c < sw->nr_rings; c++)
		if (sw->rings[c])
			munmap(sw->rings[c], ring_len());
	free(sw->rings);
	sw->rings = NULL;
	sw->nr_rings = 0;
	evlist__exit(&sw->el);
	event_list__exit(&sw->list);
	sw->opened = false;
}
