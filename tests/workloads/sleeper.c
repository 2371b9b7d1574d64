// SPDX-License-Identifier: GPL-2.0
/*
 * A workload that waits, for --off-cpu (tests/shell/offcpu.bats): it
 * sleeps -l MS in sleep_long, then -s MS in sleep_short, each a nanosleep
 * of its own, and then exits; nothing else it does sleeps (with -T
 * sleep_long runs in a thread of its own, which the main thread waits for).
 *
 *   sleeper [-T] [-l MS] [-s MS]     (defaults: 300 and 100)
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

__attribute__((noinline)) void sleep_long(long ms)
{
	nap(ms);
}

__attribute__((noinline)) void sleep_short(long ms)
{
	nap(ms);
}

static void *long_thread(void *ms)
{
	sleep_long(*(long *)ms);
	return NULL;
}

int main(int argc, char **argv)
{
	long long_ms = 300, short_ms = 100;
	bool thread = false;
	pthread_t t;
	int c;

	while ((c = getopt(argc, argv, "Tl:s:")) != -1) {
		switch (c) {
		case 'T':
			thread = true;
			break;
		case 'l':
			long_ms = atol(optarg);
			break;
		case 's':
			short_ms = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: sleeper [-T] [-l MS] [-s MS]\n");
			return 2;
		}
	}
	if (thread) {
		if (pthread_create(&t, NULL, long_thread, &long_ms) || pthread_join(t, NULL)) {
			fprintf(stderr, "sleeper: cannot run a thread\n");
			return 1;
		}
	} else {
		sleep_long(long_ms);
	}
	sleep_short(short_ms);
	return 0;
}
