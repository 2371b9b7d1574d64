// SPDX-License-Identifier: GPL-2.0
/*
 * What is recorded (record.h): the CPUs of -C (or every online one), the
 * threads of -p and -t, system-wide for -a/-C, or the command perfcap
 * starts; and whether those targets are still there.
 */
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/record.h"

/* The events follow the command perfcap starts (not -a/-C/-p/-t with a timer command). */
bool record__workload_is_target(const struct record *rec)
{
	return rec->has_workload && !rec->evlist.system_wide && !rec->opts.pid_list &&
	       !rec->opts.tid_list && !rec->opts.uid;
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

/* -u: a user name, or a uid that the password database knows, as perf 6.1 takes them. */
static int resolve_uid(const char *name, uid_t *uid)
{
	struct passwd *pw = getpwnam(name);
	char *end;
	long v;

	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	errno = 0;
	v = strtol(name, &end, 10);
	if (errno || *end || end == name || v < 0) {
		pr_err("Invalid User: %s\n", name);
		return -EINVAL;
	}
	pw = getpwuid((uid_t)v);
	if (!pw) {
		pr_err("Problems obtaining information for user %s (no such uid in the "
		       "password database)\n", name);
		return -EINVAL;
	}
	*uid = pw->pw_uid;
	return 0;
}

/*
 * -u: every process the user owns now (its /proc directory's owner, as
 * perf reads it), with its threads. Tasks the user starts later are not
 * recorded unless an existing one forks them (inherit), as in perf.
 */
static int add_user_processes(struct record *rec, const char *user)
{
	struct dirent *d;
	uid_t uid;
	DIR *dir;
	int err = resolve_uid(user, &uid);

	if (err)
		return err;
	dir = opendir("/proc");
	if (!dir) {
		err = -errno;
		pr_err("cannot read /proc: %s\n", strerror(-err));
		return err;
	}
	while ((d = readdir(dir))) {
		char path[300];
		struct stat st;
		pid_t pid;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s", d->d_name);
		if (stat(path, &st) || st.st_uid != uid)
			continue;
		pid = atoi(d->d_name);
		/* pid 1 when recording root: the same as perf, which takes every task. */
		if (pid == getpid())
			continue;
		if (!add_process_threads(rec, pid))
			add_target(rec, pid);
	}
	closedir(dir);
	if (!rec->nr_targets) {
		pr_err("user %s has no processes to record (-u records the tasks that exist "
		       "when recording starts)\n", user);
		return -ESRCH;
	}
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
	} else if (o->per_thread) {
		/* --per-thread: the events follow their threads on any CPU, a ring each. */
		el->cpus = cpu_map__dummy();
	} else {
		el->cpus = online;
		online = NULL;
	}

	if (el->system_wide) {
		record__add_thread(rec, -1);
	} else if (o->uid) {
		err = add_user_processes(rec, o->uid);
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
