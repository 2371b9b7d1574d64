// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys.h"
#include "util.h"

int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags)
{
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

ssize_t sys_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n;

	do {
		n = pwrite(fd, buf, len, off);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static struct {
	bool armed;
	unsigned long nr;	/* data writes seen */
	unsigned long short_at[8];
	int nr_short;
	unsigned long eio_at, enospc_at;
} fault;

void sys_fault__init(const char *spec)
{
	char *copy, *tok, *save = NULL;

	memset(&fault, 0, sizeof(fault));
	if (!spec || !*spec)
		return;
	copy = xstrdup(spec);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *at = strchr(tok, '@');
		unsigned long n;

		if (!at)
			continue;
		*at = 0;
		n = strtoul(at + 1, NULL, 10);
		if (!strcmp(tok, "short") && fault.nr_short < (int)ARRAY_SIZE(fault.short_at))
			fault.short_at[fault.nr_short++] = n;
		else if (!strcmp(tok, "eio"))
			fault.eio_at = n;
		else if (!strcmp(tok, "enospc"))
			fault.enospc_at = n;
	}
	free(copy);
	fault.armed = true;
	pr_debug("fault injection armed: %s\n", spec);
}

ssize_t sys_fault__write_result(ssize_t res, size_t len)
{
	unsigned long nr;

	if (!fault.armed || res < 0)
		return res;
	nr = ++fault.nr;
	if (fault.eio_at && nr >= fault.eio_at)
		return -EIO;
	if (fault.enospc_at && nr >= fault.enospc_at)
		return -ENOSPC;
	for (int i = 0; i < fault.nr_short; i++)
		if (fault.short_at[i] == nr && res > 1)
			return res / 2;
	return res;
}
