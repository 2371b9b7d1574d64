/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether this test runs under a user-mode emulator (the aarch64 build's
 * unit tests run under qemu-aarch64). qemu-user shows the guest's view
 * for /proc/self and /proc/PID only; /proc/PID/task/TID/ is the host's,
 * where exe is the emulator. emulator(buf) returns that binary's path (in
 * buf) or NULL natively.
 */
#ifndef PERFCAP_TEST_EMULATOR_H
#define PERFCAP_TEST_EMULATOR_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static inline const char *emulator(char task_exe[PATH_MAX])
{
	char self[PATH_MAX], path[64];
	ssize_t a = readlink("/proc/self/exe", self, PATH_MAX - 1);
	ssize_t b;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/exe", getpid(), getpid());
	b = readlink(path, task_exe, PATH_MAX - 1);
	if (a <= 0 || b <= 0)
		return NULL;
	self[a] = task_exe[b] = 0;
	return strcmp(self, task_exe) ? task_exe : NULL;
}

#endif
