// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

/* What is injected at one site; N counts that site's writes from 1. */
struct site_faults {
	/*
	 * Writes seen. Reader threads complete writes at once, each through
	 * its own writer: the count is an atomic add, so that no two writes
	 * take the same number (two got "3" and a third short write came).
	 */
	unsigned long nr;
	unsigned long short_at[8];
	int nr_short;
	unsigned long eio_at, enospc_at, ebusy_at;
};

static struct {
	bool armed;
	struct site_faults site[SYS_FAULT_NR_SITES];
} fault;

static const char *const site_names[SYS_FAULT_NR_SITES] = {
	[SYS_FAULT_HEADER] = "header",
	[SYS_FAULT_FEATURE] = "feature",
	[SYS_FAULT_SUBMIT] = "submit",
	[SYS_FAULT_ENABLE] = "enable",
	[SYS_FAULT_DISABLE] = "disable",
};

void sys_fault__init(const char *spec)
{
	char *copy, *tok, *save = NULL;

	memset(&fault, 0, sizeof(fault));
	if (!spec || !*spec)
		return;
	copy = xstrdup(spec);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *at = strchr(tok, '@'), *colon = strchr(tok, ':');
		struct site_faults *f = &fault.site[SYS_FAULT_DATA];
		unsigned long n;

		if (!at)
			continue;
		*at = 0;
		if (colon) {
			*colon = 0;
			f = NULL;
			for (int i = 0; i < SYS_FAULT_NR_SITES; i++)
				if (site_names[i] && !strcmp(tok, site_names[i]))
					f = &fault.site[i];
			if (!f) {
				pr_warn("fault injection: unknown site '%s'\n", tok);
				continue;
			}
			tok = colon + 1;
		}
		n = strtoul(at + 1, NULL, 10);
		if (!strcmp(tok, "short") && f->nr_short < (int)ARRAY_SIZE(f->short_at))
			f->short_at[f->nr_short++] = n;
		else if (!strcmp(tok, "eio"))
			f->eio_at = n;
		else if (!strcmp(tok, "enospc"))
			f->enospc_at = n;
		else if (!strcmp(tok, "ebusy"))
			f->ebusy_at = n;
		else
			pr_warn("fault injection: unknown kind '%s'\n", tok);
	}
	free(copy);
	fault.armed = true;
	pr_debug("fault injection armed: %s\n", spec);
}

/* The error injected for write nr at f, or 0. */
static int fault_error(const struct site_faults *f, unsigned long nr)
{
	if (f->eio_at && nr >= f->eio_at)
		return -EIO;
	if (f->enospc_at && nr >= f->enospc_at)
		return -ENOSPC;
	if (f->ebusy_at && nr >= f->ebusy_at)
		return -EBUSY;
	return 0;
}

ssize_t sys_fault__result(enum sys_fault_site site, ssize_t res, size_t len)
{
	struct site_faults *f = &fault.site[site];
	unsigned long nr;
	int err;

	if (!fault.armed || res < 0)
		return res;
	nr = __atomic_add_fetch(&f->nr, 1, __ATOMIC_RELAXED);
	err = fault_error(f, nr);
	if (err)
		return err;
	for (int i = 0; i < f->nr_short; i++)
		if (f->short_at[i] == nr && res > 1)
			return res / 2;
	return res;
}

ssize_t sys_fault__write_result(ssize_t res, size_t len)
{
	return sys_fault__result(SYS_FAULT_DATA, res, len);
}

int sys_fault__fail(enum sys_fault_site site)
{
	struct site_faults *f = &fault.site[site];

	if (!fault.armed)
		return 0;
	return fault_error(f, __atomic_add_fetch(&f->nr, 1, __ATOMIC_RELAXED));
}

int sys_perf_ioctl(int fd, unsigned long req, unsigned long arg)
{
	int err = 0;

	if (req == PERF_EVENT_IOC_ENABLE)
		err = sys_fault__fail(SYS_FAULT_ENABLE);
	else if (req == PERF_EVENT_IOC_DISABLE)
		err = sys_fault__fail(SYS_FAULT_DISABLE);
	if (err)
		return err;
	return ioctl(fd, req, arg) ? -errno : 0;
}

ssize_t sys_pwrite_at(enum sys_fault_site site, int fd, const void *buf, size_t len,
		      off_t off)
{
	return sys_fault__result(site, sys_pwrite(fd, buf, len, off), len);
}
