// SPDX-License-Identifier: GPL-2.0
/*
 * What is recorded (record.h): the CPUs of -C (or every online one), the
 * threads of -p and -t, system-wide for -a/-C, or the command perfcap
 * starts; and whether those targets are still there.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record.h"

/* The events follow the command perfcap starts (not -a/-C/-p/-t with a timer command). */
bool record__workload_is_target(const struct record *rec)
{
	return rec->has_workload && !rec->evlist.system_wide && !rec->opts.pid_list &&
	       !rec->opts.tid_list;
}

void record__add_thread(struct record *rec, pid_t tid)
{
	struct evlist *el = &rec->evlist;

	el->threads = xrealloc(el->threads, (el->nr_threads + 1) * sizeof(pid_t));
	el->threads[el->nr_threads++] = tid;
}

static void add_target(struct record *rec, pid_t pid)
{
	rec->targets = xrealloc(rec->targets, (rec->nr_targets + 1) * sizeof(pid_t));
	rec->targets[rec->nr_targets++] = pid;
}

static int parse_pid_list(const char *list, const char *what, pid_t **out, int *nr)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	int err = 0;

	*out = NULL;
	*nr = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end, path[64];
		long v;

		errno = 0;
		v = strtol(tok, &end, 10);
		if (errno || *end || v <= 0 || v > 0x7fffffff) {
			pr_err("invalid %s '%s': expected a comma separated list of numbers\n",
			       what, tok);
			err = -EINVAL;
			break;
		}
		snprintf(path, sizeof(path), "/proc/%ld/status", v);
		if (access(path, F_OK)) {
			pr_err("%s %ld does not exist\n", what, v);
			err = -ESRCH;
			break;
		}
		*out = xrealloc(*out, (*nr + 1) * sizeof(pid_t));
		(*out)[(*nr)++] = v;
	}
	free(copy);
	return err;
}

static int add_process_threads(struct record *rec, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir) {
		pr_err("pid %d does not exist\n", pid);
		return -ESRCH;
	}
	while ((d = readdir(dir)))
		if (d->d_name[0] >= '0' && d->d_name[0] <= '9')
			record__add_thread(rec, atoi(d->d_name));
	closedir(dir);
	return 0;
}

int record__resolve_target(struct record *rec)
{
	struct record_opts *o = &rec->opts;
	struct evlist *el = &rec->evlist;
	struct cpu_map *online = cpu_map__online();
	int err = 0;

	if (!online) {
		pr_err("cannot read /sys/devices/system/cpu/online\n");
		return -EIO;
	}
	el->system_wide = o->system_wide || o->cpu_list;
	if (o->cpu_list) {
		char buf[256];

		el->cpus = cpu_map__parse(o->cpu_list);
		if (!el->cpus) {
			pr_err("invalid CPU list '%s'\n", o->cpu_list);
			err = -EINVAL;
			goto out;
		}
		for (int i = 0; i < el->cpus->nr; i++)
			if (!cpu_map__contains(online, el->cpus->cpu[i])) {
				cpu_map__snprintf(online, buf, sizeof(buf));
				pr_err("CPU %d is not online (online CPUs: %s)\n",
				       el->cpus->cpu[i], buf);
				err = -EINVAL;
				goto out;
			}
	} else {
		el->cpus = online;
		online = NULL;
	}

	if (el->system_wide) {
		record__add_thread(rec, -1);
	} else if (o->pid_list) {
		pid_t *pids;
		int nr;

		err = parse_pid_list(o->pid_list, "pid", &pids, &nr);
		for (int i = 0; !err && i < nr; i++) {
			err = add_process_threads(rec, pids[i]);
			add_target(rec, pids[i]);
		}
		free(pids);
	} else if (o->tid_list) {
		pid_t *tids;
		int nr;

		err = parse_pid_list(o->tid_list, "tid", &tids, &nr);
		for (int i = 0; !err && i < nr; i++) {
			record__add_thread(rec, tids[i]);
			add_target(rec, tids[i]);
		}
		free(tids);
	}
	/* A workload's thread is added once it is forked. */
out:
	cpu_map__delete(online);
	return err;
}

bool record__targets_gone(struct record *rec)
{
	for (int i = 0; i < rec->nr_targets; i++)
		if (kill(rec->targets[i], 0) == 0 || errno != ESRCH)
			return false;
	return rec->nr_targets > 0;
}
