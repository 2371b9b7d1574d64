// SPDX-License-Identifier: GPL-2.0
/*
 * The bundled workload: a parallel, CPU-bound program. One thread per
 * online CPU (or -j N) spins in burn() for -t SECONDS (default 2), so
 * that a profile shows burn() and its callers, and every CPU is busy.
 * Optional -s: also sleep briefly in each iteration, to cause context
 * switches. Prints the total work done.
 *
 *   parallel [-j THREADS] [-t SECONDS] [-s]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double seconds = 2.0;
static int do_sleep;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The hot function: the profile's top symbol. noinline keeps it a frame. */
__attribute__((noinline)) unsigned long burn(unsigned long x)
{
	for (int i = 0; i < 100000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) static unsigned long work(unsigned long seed)
{
	double end = now() + seconds;
	unsigned long x = seed, n = 0;

	while (now() < end) {
		x = burn(x);
		n++;
		if (do_sleep && n % 16 == 0)
			usleep(100);
	}
	return n + (x & 1);
}

static void *thread_main(void *arg)
{
	return (void *)work((unsigned long)arg);
}

int main(int argc, char **argv)
{
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long total = 0;
	pthread_t *tids;
	int opt;

	while ((opt = getopt(argc, argv, "j:t:s")) != -1) {
		switch (opt) {
		case 'j':
			threads = atol(optarg);
			break;
		case 't':
			seconds = atof(optarg);
			break;
		case 's':
			do_sleep = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-j THREADS] [-t SECONDS] [-s]\n", argv[0]);
			return 2;
		}
	}
	if (threads < 1)
		threads = 1;
	tids = calloc(threads, sizeof(*tids));
	for (long i = 1; i < threads; i++)
		pthread_create(&tids[i], NULL, thread_main, (void *)i);
	total = work(0); /* the main thread works too */
	for (long i = 1; i < threads; i++) {
		void *r;

		pthread_join(tids[i], &r);
		total += (unsigned long)r;
	}
	printf("parallel: %ld threads, %lu iterations\n", threads, total);
	free(tids);
	return 0;
}
