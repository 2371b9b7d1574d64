/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system calls that matter for testing, in one place: perf_event_open
 * and the write results every writer backend passes through, so that a
 * test can inject short writes and I/O errors into any backend.
 */
#ifndef PERFCAP_SYS_H
#define PERFCAP_SYS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <sys/types.h>

/* fd >= 0 or -errno. */
int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags);

/* pwrite that returns bytes written or -errno (never -1), EINTR retried. */
ssize_t sys_pwrite(int fd, const void *buf, size_t len, off_t off);

/*
 * Fault injection seam. Every backend passes each finished data write
 * through sys_fault__write_result(); it returns the result to act on.
 * Armed from the environment, PERFCAP_FAULT_INJECT=SPEC, where SPEC is a
 * comma separated list of KIND@N (N counts data writes from 1):
 *   short@N   the Nth write reports half of its bytes written (up to 8 of these)
 *   eio@N     the Nth write (and every one after it) fails with EIO
 *   enospc@N  the Nth write (and every one after it) fails with ENOSPC
 * Unset (the normal case) it costs one branch.
 */
void sys_fault__init(const char *spec);
ssize_t sys_fault__write_result(ssize_t res, size_t len);

#endif
