/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command perfcap starts: forked early and held before exec, so its
 * pid can be the target of the events; released with workload__start().
 */
#ifndef PERFCAP_WORKLOAD_H
#define PERFCAP_WORKLOAD_H

#include <stdbool.h>
#include <sys/types.h>

struct workload {
	pid_t pid;
	int go_fd;	/* write end: one byte releases the child */
	int err_fd;	/* read end: the child's errno if exec failed */
	bool exited;
	int status;	/* wait status once exited */
};

/*
 * Find argv[0] the way execvp() will (PATH search); -ENOENT/-EACCES with a
 * message if it can't be run. Then fork the child, which waits.
 */
int workload__prepare(struct workload *w, char **argv);
/* Let the child exec. Returns 0, or -errno if exec failed (message printed). */
int workload__start(struct workload *w, char **argv);
/* Reap it if it has exited (non-blocking); true once it has. */
bool workload__poll(struct workload *w);
/* Kill a child that never got to run, and reap it. */
void workload__abort(struct workload *w);
/* Exit code to pass on: the child's status, 128+signal if killed. */
int workload__exit_code(const struct workload *w);

#endif
