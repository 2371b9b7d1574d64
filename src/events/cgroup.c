// SPDX-License-Identifier: GPL-2.0
/* Cgroups for -G and --all-cgroups (cgroup.h). */
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/cgroup.h"
#include "events/evlist.h"
#include "util.h"

int cgroup__mountpoint(char *buf, size_t size)
{
	char v2[4096] = "";
	struct mntent *m;
	FILE *f = setmntent("/proc/self/mounts", "r");

	if (!f)
		return -ENOENT;
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "cgroup") && hasmntopt(m, "perf_event")) {
			snprintf(buf, size, "%s", m->mnt_dir);
			endmntent(f);
			return 0;
		}
		if (!strcmp(m->mnt_type, "cgroup2") && !v2[0])
			snprintf(v2, sizeof(v2), "%s", m->mnt_dir);
	}
	endmntent(f);
	if (!v2[0])
		return -ENOENT;
	snprintf(buf, size, "%s", v2);
	return 0;
}

int cgroup__id(const char *path, uint64_t *id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id;

	/* The kernel's cgroup id is the 8-byte handle of its kernfs node. */
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return -errno;
	if (h.fh.handle_bytes != sizeof(uint64_t))
		return -EINVAL;
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

static int open_cgroup(struct evsel *e, const char *name)
{
	char mnt[4096], path[8192];
	int fd;

	if (cgroup__mountpoint(mnt, sizeof(mnt))) {
		pr_err("cannot find a cgroup file system (cgroup2, or cgroup v1 with "
		       "perf_event) for -G %s\n", name);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/%s", mnt, name[0] == '/' ? name + 1 : name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		pr_err("no access to cgroup %s\n", path);
		return -EINVAL;
	}
	e->cgroup_fd = fd;
	e->has_cgroup = true;
	return 0;
}

int cgroup__apply(struct evlist *el, const struct record_opts *o, const int *ends)
{
	int next = 0;

	for (int g = 0; g < o->nr_cgroup_args; g++) {
		const struct cgroup_arg *c = &o->cgroup_args[g];
		int limit = ends[c->nr_event_args - 1];
		const char *s = c->names;

		for (;;) {
			size_t len = strcspn(s, ",");
			char name[4096];

			if (next >= limit) {
				pr_err("-G %s: more cgroups than events before it (each name goes "
				       "to one event, as in perf)\n", c->names);
				return -EINVAL;
			}
			snprintf(name, sizeof(name), "%.*s", (int)len, s);
			/* An empty name leaves that event counting everywhere. */
			if (len) {
				int err = open_cgroup(el->evsels[next], name);

				if (err)
					return err;
			}
			next++;
			if (!s[len])
				break;
			s += len + 1;
		}
	}
	return 0;
}
