// SPDX-License-Identifier: GPL-2.0
/*
 * glibc's POSIX AIO helper threads (helper-threads.h), and what perfcap
 * does with them.
 *
 * What glibc 2.36 does, seen by experiment (a FIFO thread pinned to one
 * CPU calling aio_write, and perfcap record --aio, -r 1, --aio=4, with
 * ps -L and /proc/PID/task/TID/status): a helper is cloned inside
 * aio_write() by the submitting thread whenever no helper is idle (the
 * first write, then one per write in flight at once, up to aio_threads);
 * it exits after aio_idle_time idle seconds and the next write clones
 * one again. A clone inherits the submitter's policy, real-time priority,
 * CPUs and even its name: a reader's helper showed as a second
 * "perfcap-rd0", SCHED_FIFO 1, on the reader's one CPU. And glibc does
 * more: before each request a helper sets its own policy and priority to
 * those the submitter had (its aio_reqprio scheme), so a helper cloned
 * by the record loop at SCHED_OTHER turned SCHED_FIFO at the first
 * reader's write. A SCHED_FIFO thread that does blocking writes, or many
 * of them, run before the kernel's writeback workers and the workload on
 * their CPUs: the issue 22 slow-xz run.
 *
 * So three things:
 *
 * 1. Every real-time thread of perfcap's own carries SCHED_RESET_ON_FORK
 *    (the readers set it with SCHED_FIFO, record-thread.c; a thread
 *    started here that inherits -r's policy gets it below): the kernel
 *    starts whatever they clone, glibc's helpers, at SCHED_OTHER. No
 *    helper cloned by a reader is ever real-time, not for an instant;
 *    and such a helper keeps SCHED_OTHER, as glibc believes it runs at
 *    its parent's policy already and sets nothing.
 * 2. The aio writer asks glibc to run each write as far below the
 *    submitter as POSIX allows (aio_reqprio, io/writer-aio.c): for a
 *    priority up to AIO_PRIO_DELTA_MAX (20) that is priority 0, which
 *    SCHED_FIFO does not have, so glibc's switch of a helper to the
 *    reader's policy is refused and the helper stays SCHED_OTHER (seen
 *    by polling the threads' policies: bench/results/2026-12-02-aio-helpers/);
 *    above priority 20 it is not, which the sweep below catches.
 * 3. A sweep from the record loop (each tick, HEADER_SYNC_NS, and when
 *    the readers are demoted or start): every thread of the process that
 *    is not perfcap's own is set to SCHED_OTHER if it is real-time, to
 *    the loop's nice value (the recorder's, reader-sched.c), on the
 *    loop's CPUs (every CPU perfcap may use: a helper writes for every
 *    reader), and named HELPER_THREAD_NAME. It catches what 1 and 2
 *    cannot: glibc's switch of a helper to the policy of a reader above
 *    priority 20 (-r 21..99), helpers the record loop cloned while it ran
 *    -r's SCHED_FIFO, and whatever another glibc does. glibc switches a
 *    helper again only when the policy of the requests it serves changes
 *    (it compares with the policy it set last), so a helper the sweep
 *    set stays set while the readers' policy holds; one that glibc
 *    switched runs real-time until the next tick at most.
 *
 * Why not the other ways: glibc has no attribute for its helpers' policy
 * or CPUs (aio_init() sets their number and idle time only); helpers
 * cannot be made up front (glibc clones one per concurrent request, when
 * it wants, and one woken with nothing to do exits, so under load they
 * come and go every few hundred ms whatever aio_idle_time says); hiding
 * the readers' policy from glibc's record of it (setting SCHED_FIFO by
 * the system call alone) would rest on glibc's internals and make
 * pthread_getschedparam lie to perfcap too. The sweep touches only threads
 * that are not perfcap's own: perfcap's are registered here as they
 * start (own_thread__create), and no sweep runs while one is starting.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util.h"
#include "record/helper-threads.h"

#define OWN_MAX 1024
#define NAMED_MAX 256

/*
 * lock protects own[], nr_own, starting and named[]. A sweep holds it for
 * its whole scan, so no thread of perfcap's can start (or be half
 * registered) while it looks at the threads. Never held with another lock.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int own[OWN_MAX];	/* tids of perfcap's own threads that run */
static int nr_own;
static int starting;		/* own threads created and not yet registered */
static int named[NAMED_MAX];	/* helpers already named (a ring of tids) */
static int nr_named;
static bool nice_refused, cpus_refused;	/* said once, not tried again */
static bool rt_refused;			/* said once */

struct start {
	void *(*fn)(void *);
	void *arg;
};

/* A real-time policy inherited (-r) keeps its clones out of real time. */
static void reset_clones_on_fork(void)
{
	struct sched_param sp;
	int pol = sched_getscheduler(0);

	if (pol < 0 || (pol & SCHED_RESET_ON_FORK))
		return;
	if (pol != SCHED_FIFO && pol != SCHED_RR)
		return;
	if (sched_getparam(0, &sp))
		return;
	/* pthread_setschedparam, so that glibc's view of the thread agrees. */
	pthread_setschedparam(pthread_self(), pol | SCHED_RESET_ON_FORK, &sp);
}

static void *own_thread_main(void *p)
{
	struct start s = *(struct start *)p;
	int tid = gettid();
	void *ret;

	free(p);
	pthread_mutex_lock(&lock);
	if (nr_own < OWN_MAX)
		own[nr_own++] = tid;
	starting--;
	pthread_mutex_unlock(&lock);
	reset_clones_on_fork();
	ret = s.fn(s.arg);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nr_own; i++)
		if (own[i] == tid) {
			own[i] = own[--nr_own];
			break;
		}
	pthread_mutex_unlock(&lock);
	return ret;
}

int own_thread__create(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	struct start *s = xzalloc(sizeof(*s));
	int err;

	s->fn = fn;
	s->arg = arg;
	pthread_mutex_lock(&lock);
	starting++;
	pthread_mutex_unlock(&lock);
	err = pthread_create(thread, NULL, own_thread_main, s);
	if (err) {
		pthread_mutex_lock(&lock);
		starting--;
		pthread_mutex_unlock(&lock);
		free(s);
		return -err;
	}
	return 0;
}

static bool is_own_locked(int tid)
{
	for (int i = 0; i < nr_own; i++)
		if (own[i] == tid)
			return true;
	return false;
}

bool own_thread__is_own(int tid)
{
	bool r;

	if (tid == gettid())
		return true;
	pthread_mutex_lock(&lock);
	r = is_own_locked(tid);
	pthread_mutex_unlock(&lock);
	return r;
}

/* Name a helper once: ps would show it under its creator's name. */
static void name_once(int tid)
{
	char path[64];
	int fd;

	for (int i = 0; i < NAMED_MAX && i < nr_named; i++)
		if (named[i] == tid)
			return;
	named[nr_named++ % NAMED_MAX] = tid;
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, HELPER_THREAD_NAME, strlen(HELPER_THREAD_NAME)) < 0)
		pr_debug("helper thread %d: naming it: %s\n", tid, strerror(errno));
	close(fd);
}

/* One thread that is not perfcap's: 1 if something was changed. */
static int settle_helper(int tid, int nice, const cpu_set_t *cpus)
{
	struct sched_param sp = { .sched_priority = 0 };
	int changed = 0, pol, cur;
	cpu_set_t now;

	pol = sched_getscheduler(tid);
	if (pol < 0)
		return 0;	/* gone (ESRCH): helpers come and go */
	pol &= ~SCHED_RESET_ON_FORK;
	if (pol == SCHED_FIFO || pol == SCHED_RR || pol == SCHED_DEADLINE) {
		/*
		 * With SCHED_RESET_ON_FORK: clearing it (glibc may have set it,
		 * copying a reader's policy) would need CAP_SYS_NICE.
		 */
		if (sched_setscheduler(tid, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp)) {
			if (errno != ESRCH && !rt_refused)
				pr_warn("a writer's helper thread (%d) stays real-time: "
					"sched_setscheduler: %s\n", tid, strerror(errno));
			rt_refused |= errno != ESRCH;
		} else {
			changed = 1;
		}
	}
	errno = 0;
	cur = getpriority(PRIO_PROCESS, tid);
	if (!(cur == -1 && errno) && cur != nice && !nice_refused) {
		if (setpriority(PRIO_PROCESS, tid, nice)) {
			pr_debug("helper thread %d: nice %d: %s\n", tid, nice, strerror(errno));
			nice_refused = errno != ESRCH;
		} else {
			changed = 1;
		}
	}
	if (cpus && !cpus_refused && !sched_getaffinity(tid, sizeof(now), &now) &&
	    !CPU_EQUAL(&now, cpus)) {
		if (sched_setaffinity(tid, sizeof(*cpus), cpus)) {
			pr_debug("helper thread %d: sched_setaffinity: %s\n", tid, strerror(errno));
			cpus_refused = errno != ESRCH;
		} else {
			changed = 1;
		}
	}
	name_once(tid);
	if (changed && verbose > 1)
		pr_debug("helper thread %d: SCHED_OTHER, nice %d, the recorder's CPUs\n", tid, nice);
	return changed;
}

int helper_threads__sweep(void)
{
	int self = gettid(), leader = getpid(), nice, changed = 0;
	cpu_set_t cpus, *want = &cpus;
	struct dirent *e;
	DIR *d;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0);
	if (nice == -1 && errno)
		nice = 0;
	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		want = NULL;
	d = opendir("/proc/self/task");
	if (!d)
		return -errno;
	pthread_mutex_lock(&lock);
	/* One of ours is starting: it would look like a helper. Next time. */
	while (!starting && (e = readdir(d))) {
		int tid = atoi(e->d_name);

		if (tid <= 0 || tid == self || tid == leader || is_own_locked(tid))
			continue;
		changed += settle_helper(tid, nice, want);
	}
	pthread_mutex_unlock(&lock);
	closedir(d);
	return changed;
}
