// SPDX-License-Identifier: GPL-2.0
/*
 * A workload whose phases make different amounts of profiling data for
 * the same CPU time (issue 21, item 4). One thread per online CPU (or -j
 * N) alternates, in step with the others, between two phases of -p MS
 * milliseconds each (default 50) for -t SECONDS (default 2):
 *
 *   deep     deep_burn() at the bottom of -d DEPTH (default 120) frames
 *            of descend(), each with 64 bytes of locals: long call
 *            chains and a user stack that fills a 4 KiB DWARF copy
 *   shallow  shallow_burn() called straight from the thread's loop:
 *            short chains, a few hundred bytes of stack
 *
 * Both burn the same loop, so a true profile gives deep_burn and
 * shallow_burn half the samples each; a recorder that loses data in
 * bursts when the output is behind loses more of the deep phase. Prints
 * each phase's iterations.
 *
 * -c: the clock is each thread's own CPU time (CLOCK_THREAD_CPUTIME_ID),
 * not the wall: each thread burns SECONDS of CPU, PHASE_MS of CPU a
 * phase, so the two phases get equal CPU however the machine shares it
 * (a recorder that takes CPU from the command in one phase more than in
 * the other, another user of a shared machine), and the true profile is
 * half and half by construction. The threads then switch phases on their
 * own, not together.
 *
 *   phases [-c] [-j THREADS] [-t SECONDS] [-p PHASE_MS] [-d DEPTH]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double seconds = 2.0, phase_s = 0.05, wall_start;
static int depth = 120;
static clockid_t clock_id = CLOCK_MONOTONIC;
/* When this thread's clock started: the same for all with the wall clock. */
static __thread double start;

static double now(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Which phase the clock is in: all threads switch together. */
static int phase(double t)
{
	return (long)((t - start) / phase_s) & 1;
}

/* Inlined: the samples land in deep_burn or shallow_burn themselves. */
static inline __attribute__((always_inline)) unsigned long spin(unsigned long x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long deep_burn(unsigned long x, double end)
{
	double t;

	while ((t = now()) < end && phase(t) == 0)
		x = spin(x);
	return x;
}

__attribute__((noinline)) unsigned long shallow_burn(unsigned long x, double end)
{
	double t;

	while ((t = now()) < end && phase(t) == 1)
		x = spin(x);
	return x;
}

/* 64 bytes of locals a frame, so the deep phase's stack is deep in bytes too. */
__attribute__((noinline)) static unsigned long descend(int n, unsigned long x, double end)
{
	volatile unsigned long pad[8];

	for (int i = 0; i < 8; i++)
		pad[i] = x + i;
	if (n > 0)
		x = descend(n - 1, x, end);
	else
		x = deep_burn(x, end);
	return x + pad[n & 7];
}

struct result {
	unsigned long deep, shallow, x;
};

static void *thread_main(void *arg)
{
	struct result *r = arg;
	double end, t;

	start = clock_id == CLOCK_MONOTONIC ? wall_start : now();
	end = start + seconds;

	while ((t = now()) < end) {
		if (phase(t) == 0) {
			r->x = descend(depth, r->x, end);
			r->deep++;
		} else {
			r->x = shallow_burn(r->x, end);
			r->shallow++;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long deep = 0, shallow = 0;
	struct result *res;
	pthread_t *tids;
	int opt;

	while ((opt = getopt(argc, argv, "cj:t:p:d:")) != -1) {
		switch (opt) {
		case 'c':
			clock_id = CLOCK_THREAD_CPUTIME_ID;
			break;
		case 'j':
			threads = atol(optarg);
			break;
		case 't':
			seconds = atof(optarg);
			break;
		case 'p':
			phase_s = atof(optarg) / 1000.0;
			break;
		case 'd':
			depth = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-c] [-j THREADS] [-t SECONDS] [-p PHASE_MS] [-d DEPTH]\n",
				argv[0]);
			return 2;
		}
	}
	if (threads < 1 || phase_s <= 0 || depth < 0) {
		fprintf(stderr, "phases: -j, -p and -d must be positive\n");
		return 2;
	}
	tids = calloc(threads, sizeof(*tids));
	res = calloc(threads, sizeof(*res));
	wall_start = now();
	for (long i = 1; i < threads; i++)
		pthread_create(&tids[i], NULL, thread_main, &res[i]);
	thread_main(&res[0]);
	for (long i = 1; i < threads; i++)
		pthread_join(tids[i], NULL);
	for (long i = 0; i < threads; i++) {
		deep += res[i].deep;
		shallow += res[i].shallow;
	}
	printf("phases: %ld threads, %lu deep and %lu shallow phases entered\n", threads, deep,
	       shallow);
	free(res);
	free(tids);
	return 0;
}
