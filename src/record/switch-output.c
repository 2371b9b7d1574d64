// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "record/switch-output.h"
#include "util.h"

void switch_output__init(struct switch_output *so, const struct record_opts *o, uint64_t now)
{
	memset(so, 0, sizeof(*so));
	so->mode = o->switch_output;
	so->size = o->switch_output_size;
	so->ns = o->switch_output_ns;
	so->timestamp_filename = o->timestamp_filename || so->mode != SWITCH_OUTPUT_NONE;
	so->max_files = o->switch_max_files > 0 ? o->switch_max_files : 0;
	if (so->max_files)
		so->files = xzalloc(so->max_files * sizeof(*so->files));
	so->cur = -1;
	switch_output__rearm(so, now);
}

void switch_output__exit(struct switch_output *so)
{
	for (int i = 0; so->files && i < so->max_files; i++)
		free(so->files[i]);
	free(so->files);
	so->files = NULL;
}

bool switch_output__due(const struct switch_output *so, uint64_t now, bool signalled,
			uint64_t data_bytes)
{
	switch (so->mode) {
	case SWITCH_OUTPUT_SIGNAL:
		return signalled;
	case SWITCH_OUTPUT_SIZE:
		return so->size && data_bytes >= so->size;
	case SWITCH_OUTPUT_TIME:
		return so->ns && now >= so->next_ns;
	case SWITCH_OUTPUT_NONE:
		break;
	}
	return false;
}

void switch_output__rearm(struct switch_output *so, uint64_t now)
{
	so->next_ns = so->mode == SWITCH_OUTPUT_TIME ? now + so->ns : 0;
}

int switch_output__timeout(const struct switch_output *so, uint64_t now, int max_ms)
{
	uint64_t ms;

	if (so->mode != SWITCH_OUTPUT_TIME)
		return max_ms;
	if (so->next_ns <= now)
		return 0;
	ms = (so->next_ns - now + 999999) / 1000000;
	return ms < (uint64_t)max_ms ? (int)ms : max_ms;
}

int switch_output__timestamp(char *buf, size_t len)
{
	struct timeval tv;
	struct tm tm;
	char date[32];

	if (gettimeofday(&tv, NULL) || !localtime_r(&tv.tv_sec, &tm) ||
	    !strftime(date, sizeof(date), "%Y%m%d%H%M%S", &tm))
		return -EINVAL;
	snprintf(buf, len, "%s%02u", date, (unsigned int)(tv.tv_usec / 10000));
	return 0;
}

int switch_output__rename(struct switch_output *so, const char *path, char *newpath,
			  size_t len)
{
	char ts[SWITCH_TIMESTAMP_LEN + 8];
	int err;

	/* perf would overwrite a file of the same centisecond; wait for a new name. */
	for (int tries = 0;; tries++) {
		err = switch_output__timestamp(ts, sizeof(ts));
		if (err) {
			pr_err("cannot read the current time for the file name\n");
			return err;
		}
		if ((size_t)snprintf(newpath, len, "%s.%s", path, ts) >= len) {
			pr_err("%s.%s: the name is too long\n", path, ts);
			return -ENAMETOOLONG;
		}
		if (access(newpath, F_OK) || tries >= 100)
			break;
		usleep(1000);
	}
	if (rename(path, newpath)) {
		err = -errno;
		pr_err("cannot rename %s to %s: %s\n", path, newpath, strerror(-err));
		return err;
	}
	so->nr_switches++;
	if (so->max_files) {
		so->cur = (so->cur + 1) % so->max_files;
		if (so->files[so->cur]) {
			if (remove(so->files[so->cur]) && errno != ENOENT)
				pr_warn("cannot remove %s (--switch-max-files): %s\n",
					so->files[so->cur], strerror(errno));
			free(so->files[so->cur]);
		}
		so->files[so->cur] = xstrdup(newpath);
	}
	return 0;
}

/* The ppid of /proc/PID/stat, after the ")" that ends the comm. */
static pid_t read_ppid(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

int switch_output__descendants(pid_t root, pid_t **pids)
{
	struct { pid_t pid, ppid; } *all = NULL;
	int nr_all = 0, nr = 0;
	struct dirent *de;
	DIR *d = opendir("/proc");

	*pids = xzalloc(sizeof(pid_t));
	(*pids)[nr++] = root;
	if (!d)
		return nr;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == root)
			continue;
		all = xrealloc(all, (nr_all + 1) * sizeof(*all));
		all[nr_all].pid = pid;
		all[nr_all++].ppid = read_ppid(pid);
	}
	closedir(d);
	/* Breadth first: each round adds the children of what is in the list. */
	for (int i = 0; i < nr; i++)
		for (int k = 0; k < nr_all; k++)
			if (all[k].ppid == (*pids)[i] && all[k].pid > 0) {
				*pids = xrealloc(*pids, (nr + 1) * sizeof(pid_t));
				(*pids)[nr++] = all[k].pid;
				all[k].pid = 0;
			}
	free(all);
	return nr;
}
