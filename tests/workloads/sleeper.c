// SPDX-License-Identifier: GPL-2.0
/*
 * A workload that waits, for --off-cpu (tests/shell/offcpu.bats): it
 * sleeps -l MS in sleep_long, then -s MS in sleep_short, each a nanosleep
 * of its own, and then exits; nothing else it does sleeps.
 *
 *   sleeper [-l MS] [-s MS]     (defaults: 300 and 100)
 */
#include <errno.h>
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

int main(int argc, char **argv)
{
	long long_ms = 300, short_ms = 100;
	int c;

	while ((c = getopt(argc, argv, "l:s:")) != -1) {
		switch (c) {
		case 'l':
			long_ms = atol(optarg);
			break;
		case 's':
			short_ms = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: sleeper [-l MS] [-s MS]\n");
			return 2;
		}
	}
	sleep_long(long_ms);
	sleep_short(short_ms);
	return 0;
}
