// SPDX-License-Identifier: GPL-2.0
/*
 * A workload that burns CPU in a signal handler and in the code it
 * interrupts, for unwinding through signal frames (tests/shell/inject.bats):
 * a timer sends SIGALRM every 2.3 ms (not a multiple of a sampling
 * period: at 2 ms the signals and perf's 2 kHz samples locked in phase and
 * no sample fell in the handler); handler() burns in
 * in_handler(); between signals main burns in outside(). A DWARF chain of
 * a sample in the handler runs in_handler, handler, the signal trampoline
 * (__restore_rt), then the interrupted outside, main. The handler burns
 * 0.8 ms of each 2.3 ms.
 *
 *   sigburn [-t SECONDS]     (default 1)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * 0.8 ms a signal, longer than a 2 kHz sampling period: every signal gets
 * samples, whatever the phase of the two timers (a fixed count of 200000
 * took ~0.1 ms here, and some runs had under 20 samples in the handler).
 */
__attribute__((noinline)) void in_handler(void)
{
	double end = now() + 0.0008;

	do {
		for (unsigned long i = 0; i < 20000; i++)
			sink += i * 7;
	} while (now() < end);
}

__attribute__((noinline)) void handler(int sig)
{
	(void)sig;
	in_handler();
}

__attribute__((noinline)) void outside(double end)
{
	while (now() < end)
		for (unsigned long i = 0; i < 100000; i++)
			sink ^= i;
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 2300 }, { 0, 2300 } };
	struct sigaction sa = { .sa_handler = handler };
	sigset_t set;
	double secs = 1;
	int opt;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't') {
			fprintf(stderr, "usage: sigburn [-t SECONDS]\n");
			return 2;
		}
		secs = atof(optarg);
	}
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	/* A test harness may start it with SIGALRM blocked: the mask is inherited. */
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	if (sigaction(SIGALRM, &sa, NULL) || sigprocmask(SIG_UNBLOCK, &set, NULL) ||
	    setitimer(ITIMER_REAL, &it, NULL)) {
		perror("sigburn");
		return 1;
	}
	outside(now() + secs);
	return 0;
}
