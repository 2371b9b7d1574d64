// SPDX-License-Identifier: GPL-2.0
/*
 * The writers' helper threads (record/helper-threads.c): a thread that
 * perfcap did not start, real-time and pinned to one CPU as a glibc AIO
 * helper cloned by a reader is, is swept to SCHED_OTHER on the sweeping
 * thread's CPUs and named; perfcap's own threads (own_thread__create) are
 * left as they are; and an own thread that inherits a real-time policy
 * gets SCHED_RESET_ON_FORK, so what it clones starts at SCHED_OTHER.
 * And glibc itself, through the aio writer (io/writer-aio.c): a helper
 * that glibc cloned for a SCHED_OTHER thread's write stays SCHED_OTHER when
 * it then serves a SCHED_FIFO thread's write (glibc would switch it to the
 * submitter's policy, were aio_reqprio not the submitter's priority).
 *
 * Setting SCHED_FIFO needs CAP_SYS_NICE or RLIMIT_RTPRIO: without it the
 * policy parts skip and the CPUs and names are still checked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <fcntl.h>
#include <stdlib.h>

#include "io/writer.h"
#include "record/helper-threads.h"

struct probe {
	pthread_barrier_t ready, done;
	int tid;
	int fifo;		/* 1: SCHED_FIFO 1 was set */
	int pol_seen;		/* sched_getscheduler(0) of a thread cloned by it */
};

static bool can_fifo(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	pthread_t self = pthread_self();
	struct sched_param old;
	int pol;

	if (pthread_getschedparam(self, &pol, &old))
		return false;
	if (pthread_setschedparam(self, SCHED_FIFO, &sp))
		return false;
	pthread_setschedparam(self, pol, &old);
	return true;
}

/* What a reader does before its first aio_write: one CPU, SCHED_FIFO 1. */
static void pin_and_fifo(struct probe *p)
{
	struct sched_param sp = { .sched_priority = 1 };
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	p->fifo = !sched_setscheduler(0, SCHED_FIFO, &sp);
	p->tid = gettid();
}

static void *pinned_thread(void *arg)
{
	struct probe *p = arg;

	pin_and_fifo(p);
	pthread_barrier_wait(&p->ready);
	pthread_barrier_wait(&p->done);
	return NULL;
}

static void comm_of(int tid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, len, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static void check_swept(const struct probe *p, bool swept)
{
	cpu_set_t mine, its;
	char comm[32];
	int pol = sched_getscheduler(p->tid) & ~SCHED_RESET_ON_FORK;

	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	assert_int_equal(sched_getaffinity(p->tid, sizeof(its), &its), 0);
	comm_of(p->tid, comm, sizeof(comm));
	if (swept) {
		assert_int_equal(pol, SCHED_OTHER);
		assert_true(CPU_EQUAL(&mine, &its));
		assert_string_equal(comm, HELPER_THREAD_NAME);
	} else {
		assert_int_equal(pol, p->fifo ? SCHED_FIFO : SCHED_OTHER);
		assert_int_equal(CPU_COUNT(&its), 1);
		assert_string_not_equal(comm, HELPER_THREAD_NAME);
	}
}

static void test_helper_is_swept_own_thread_is_not(void **state)
{
	struct probe helper = { 0 }, own = { 0 };
	pthread_t th, to;
	int n;

	(void)state;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		skip();
	pthread_barrier_init(&helper.ready, NULL, 2);
	pthread_barrier_init(&helper.done, NULL, 2);
	pthread_barrier_init(&own.ready, NULL, 2);
	pthread_barrier_init(&own.done, NULL, 2);
	assert_int_equal(pthread_create(&th, NULL, pinned_thread, &helper), 0);
	assert_int_equal(own_thread__create(&to, pinned_thread, &own), 0);
	pthread_barrier_wait(&helper.ready);
	pthread_barrier_wait(&own.ready);
	assert_false(own_thread__is_own(helper.tid));
	assert_true(own_thread__is_own(own.tid));
	check_swept(&helper, false);

	n = helper_threads__sweep();
	/* The helper's CPUs changed at least; nothing of the own thread. */
	assert_true(n >= 1);
	check_swept(&helper, true);
	check_swept(&own, false);
	/* A second sweep finds nothing left to change. */
	assert_int_equal(helper_threads__sweep(), 0);

	pthread_barrier_wait(&helper.done);
	pthread_barrier_wait(&own.done);
	pthread_join(th, NULL);
	pthread_join(to, NULL);
	if (!helper.fifo)
		skip();	/* SCHED_FIFO refused: the policy part was not seen */
}

static void *clone_probe(void *arg)
{
	struct probe *p = arg;

	p->pol_seen = sched_getscheduler(0);
	return NULL;
}

/* An own thread that inherits SCHED_FIFO, as a reader under -r does. */
static void *inherits_fifo(void *arg)
{
	struct probe *p = arg;
	pthread_t c;

	p->fifo = sched_getscheduler(0);
	assert_int_equal(pthread_create(&c, NULL, clone_probe, p), 0);
	pthread_join(c, NULL);
	return NULL;
}

static void test_own_thread_keeps_rt_from_its_clones(void **state)
{
	struct sched_param sp = { .sched_priority = 1 }, old;
	struct probe p = { 0 };
	pthread_t t;
	int pol;

	(void)state;
	if (!can_fifo())
		skip();
	assert_int_equal(pthread_getschedparam(pthread_self(), &pol, &old), 0);
	assert_int_equal(pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp), 0);
	assert_int_equal(own_thread__create(&t, inherits_fifo, &p), 0);
	pthread_join(t, NULL);
	assert_int_equal(pthread_setschedparam(pthread_self(), pol, &old), 0);
	/* It runs SCHED_FIFO still, with the flag; its clone does not. */
	assert_int_equal(p.fifo, SCHED_FIFO | SCHED_RESET_ON_FORK);
	assert_int_equal(p.pol_seen, SCHED_OTHER);
}

static void write_done(struct write_req *req, int err)
{
	*(int *)req->owner = err ? err : 1;
}

/* One write of 64 KiB at off through w, waited for. */
static void write_one(struct writer *w, uint64_t off)
{
	static char buf[65536];
	struct write_req req = { .buf = buf, .len = sizeof(buf), .off = off };
	int done = 0;

	req.complete = write_done;
	req.owner = &done;
	assert_int_equal(writer__submit(w, &req), 0);
	assert_int_equal(writer__drain(w), 0);
	assert_int_equal(done, 1);
}

struct fifo_writer {
	int fd;
	int tid;
	int helpers, rt_helpers;	/* threads but main's and ours, and the real-time ones */
};

/* As a reader: SCHED_FIFO 1 with SCHED_RESET_ON_FORK, its own aio writer. */
static void *fifo_writer_main(void *arg)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct fifo_writer *f = arg;
	struct writer w;
	struct dirent *e;
	DIR *d;

	f->tid = gettid();
	assert_int_equal(pthread_setschedparam(pthread_self(), SCHED_FIFO | SCHED_RESET_ON_FORK,
					       &sp), 0);
	assert_int_equal(writer__init(&w, &writer_aio_ops, f->fd, 4), 0);
	for (int i = 0; i < 8; i++)
		write_one(&w, (uint64_t)(i + 1) << 16);
	d = opendir("/proc/self/task");
	assert_non_null(d);
	while ((e = readdir(d))) {
		int tid = atoi(e->d_name);
		int pol;

		if (tid <= 0 || tid == getpid() || tid == f->tid)
			continue;
		pol = sched_getscheduler(tid) & ~SCHED_RESET_ON_FORK;
		f->helpers++;
		f->rt_helpers += pol == SCHED_FIFO || pol == SCHED_RR;
	}
	closedir(d);
	writer__exit(&w);
	return NULL;
}

static void test_glibc_helper_keeps_sched_other(void **state)
{
	char path[] = "/tmp/test_helper_threads.XXXXXX";
	struct fifo_writer f = { 0 };
	struct writer w;
	pthread_t t;
	int fd;

	(void)state;
	if (!can_fifo())
		skip();
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	/* The record loop's write first: glibc clones a helper from it. */
	assert_int_equal(writer__init(&w, &writer_aio_ops, fd, 4), 0);
	write_one(&w, 0);
	f.fd = dup(fd);
	assert_int_equal(pthread_create(&t, NULL, fifo_writer_main, &f), 0);
	pthread_join(t, NULL);
	writer__exit(&w);
	close(f.fd);
	close(fd);
	/* glibc's helpers stay idle (aio_idle_time): they were there to see. */
	assert_true(f.helpers >= 1);
	assert_int_equal(f.rt_helpers, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_helper_is_swept_own_thread_is_not),
		cmocka_unit_test(test_own_thread_keeps_rt_from_its_clones),
		cmocka_unit_test(test_glibc_helper_keeps_sched_other),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
