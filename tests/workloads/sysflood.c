// SPDX-License-Identifier: GPL-2.0
/*
 * A tracepoint flood: one thread per online CPU (or -j N) makes cheap
 * system calls as fast as it can, yielding now and then so that
 * sched_switch fires too. Runs -t SECONDS (default 2), prints the total
 * number of system calls.
 *
 *   sysflood [-j THREADS] [-t SECONDS]
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double seconds = 2.0;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *flood(void *arg)
{
	double end = now() + seconds;
	unsigned long n = 0;

	while (now() < end) {
		for (int i = 0; i < 64; i++)
			syscall(SYS_getppid);
		n += 64;
		if (n % 1024 == 0)
			sched_yield();
	}
	return (void *)n;
}

int main(int argc, char **argv)
{
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long total = 0;
	pthread_t *tids;
	int opt;

	while ((opt = getopt(argc, argv, "j:t:")) != -1) {
		if (opt == 'j')
			threads = atol(optarg);
		else if (opt == 't')
			seconds = atof(optarg);
		else {
			fprintf(stderr, "usage: %s [-j THREADS] [-t SECONDS]\n", argv[0]);
			return 2;
		}
	}
	if (threads < 1)
		threads = 1;
	tids = calloc(threads, sizeof(*tids));
	for (long i = 0; i < threads; i++)
		pthread_create(&tids[i], NULL, flood, NULL);
	for (long i = 0; i < threads; i++) {
		void *r;

		pthread_join(tids[i], &r);
		total += (unsigned long)r;
	}
	printf("sysflood: %ld threads, %lu iterations\n", threads, total);
	free(tids);
	return 0;
}
