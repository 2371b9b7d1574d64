/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's threads that perfcap did not start: glibc's POSIX AIO
 * helpers (io/writer-aio.c), started by glibc inside aio_write() from the
 * submitting thread. (The pipe output's writer thread, io/output.c, is
 * counted with them: it is a writer's helper too, doing blocking writes.) Left alone they run at that thread's real-time
 * policy and on its CPU; here they are found and given what perfcap
 * chooses for them (helper-threads.c says why and how).
 *
 * perfcap's own threads (readers, -z stages, the control and
 * --switch-output-event threads) are started with own_thread__create, so
 * that the sweep knows them and leaves them alone.
 */
#ifndef PERFCAP_RECORD_HELPER_THREADS_H
#define PERFCAP_RECORD_HELPER_THREADS_H

#include <pthread.h>
#include <stdbool.h>

/* The name a helper gets in ps and /proc/PID/task/TID/comm. */
#define HELPER_THREAD_NAME "perfcap-helper"

/*
 * pthread_create(thread, NULL, fn, arg) for one of perfcap's own threads:
 * it is registered before fn runs, and no sweep runs while it starts. Its
 * real-time policy, if it inherits one, gets SCHED_RESET_ON_FORK: what it
 * clones (glibc's helpers) starts at SCHED_OTHER. 0 or -errno.
 */
int own_thread__create(pthread_t *thread, void *(*fn)(void *), void *arg);

/* Is tid one of perfcap's own threads (registered, or the sweeping thread)? */
bool own_thread__is_own(int tid);

/*
 * Every thread of the process that is not perfcap's own (nor the calling
 * thread, nor the main thread) gets SCHED_OTHER where it runs a real-time
 * policy, the calling thread's nice value, and the calling thread's CPUs
 * (the recorder's); the first time it is seen it is named
 * HELPER_THREAD_NAME. Call it from the record loop. Returns how many
 * threads it changed, or -errno when /proc/self/task cannot be read.
 */
int helper_threads__sweep(void);

#endif
