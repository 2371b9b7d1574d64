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
#include <stdint.h>
#include <sys/types.h>

/* fd >= 0 or -errno. */
int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags);

/*
 * ioctl on an event fd: 0 or -errno. PERF_EVENT_IOC_ENABLE and _DISABLE
 * pass through the fault seam (sites enable: and disable:).
 */
int sys_perf_ioctl(int fd, unsigned long req, unsigned long arg);

/* pwrite that returns bytes written or -errno (never -1), EINTR retried. */
ssize_t sys_pwrite(int fd, const void *buf, size_t len, off_t off);

/*
 * Fault injection seam. Every backend passes each finished data write
 * through sys_fault__write_result(); it returns the result to act on.
 * The header and feature writes at the end (perf-data.c) pass through
 * sys_pwrite_at(), and the io_uring backend asks sys_fault__fail() before
 * each io_uring_submit().
 * Armed from the environment, PERFCAP_FAULT_INJECT=SPEC, where SPEC is a
 * comma separated list of [SITE:]KIND@N. SITE is what N counts, from 1:
 *   (none)    data writes, of any backend
 *   header:   writes of the file header (the one at the end, usually one)
 *   feature:  writes of the feature table and the feature sections
 *   submit:   io_uring submissions (the write is then not submitted at all)
 *   enable:   PERF_EVENT_IOC_ENABLE calls, one per event fd (the call is not made)
 *   disable:  PERF_EVENT_IOC_DISABLE calls, the same
 * and KIND what happens to the Nth:
 *   short     it reports half of its bytes written (up to 8 of these per site)
 *   eio       it (and every one after it) fails with EIO
 *   enospc    it (and every one after it) fails with ENOSPC
 *   ebusy     it (and every one after it) fails with EBUSY
 * Unset (the normal case) it costs one branch.
 */
enum sys_fault_site {
	SYS_FAULT_DATA,
	SYS_FAULT_HEADER,
	SYS_FAULT_FEATURE,
	SYS_FAULT_SUBMIT,
	SYS_FAULT_ENABLE,
	SYS_FAULT_DISABLE,
	SYS_FAULT_NR_SITES,
};

void sys_fault__init(const char *spec);
/* The result to act on for a data write that returned res of len bytes. */
ssize_t sys_fault__write_result(ssize_t res, size_t len);
/* The same for a write counted at site. */
ssize_t sys_fault__result(enum sys_fault_site site, ssize_t res, size_t len);
/* Before a call that a fault replaces: -errno to act on instead of it, or 0. */
int sys_fault__fail(enum sys_fault_site site);

/* sys_pwrite() whose result passes through the seam as a write at site. */
ssize_t sys_pwrite_at(enum sys_fault_site site, int fd, const void *buf, size_t len,
		      off_t off);

#endif
