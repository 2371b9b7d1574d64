// SPDX-License-Identifier: GPL-2.0
/*
 * The build-id cache (buildid-cache.h). Every file is made under a
 * temporary name and renamed into place, so that a reader never finds
 * half a copy; a link or file already there is kept, as perf keeps it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/buildid-cache.h"
#include "perf-config.h"
#include "util.h"

int buildid_cache__dir(char *buf, size_t size)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char dir[4096];
	int n;

	/*
	 * perf 6.1 itself reads buildid.dir and sets $PERF_BUILDID_DIR only
	 * for the scripts it runs (perf archive); perfcap takes it first, as
	 * the place the user asked for.
	 */
	if (env && env[0])
		n = snprintf(buf, size, "%s", env);
	else if (!perf_config__get("buildid", "dir", dir, sizeof(dir)) && dir[0])
		n = snprintf(buf, size, "%s", dir);
	else if (home && home[0])
		n = snprintf(buf, size, "%s/.debug", home);
	else
		return -ENOENT;
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	/* perf's paths are DIR + "/" + ...: no trailing slash. */
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = 0;
	return 0;
}

static int mkdir_p(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, len + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

/* data into dst, made under a temporary name first. */
static int write_new(const char *dst, mode_t mode, int (*fill)(int fd, void *arg), void *arg)
{
	char tmp[PATH_MAX];
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", dst) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	err = fill(fd, arg);
	if (!err && fchmod(fd, mode))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, dst))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

struct copy_src {
	int fd;
};

/* Read to the end: /proc files say size 0 in stat. */
static int fill_from_fd(int fd, void *arg)
{
	struct copy_src *src = arg;
	char buf[65536];

	for (;;) {
		ssize_t n = read(src->fd, buf, sizeof(buf));
		int err;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return 0;
		err = write_all(fd, buf, n);
		if (err)
			return err;
	}
}

static int copy_file(const char *src, const char *dst)
{
	struct copy_src s;
	struct stat st;
	int err;

	s.fd = open(src, O_RDONLY | O_CLOEXEC);
	if (s.fd < 0)
		return -errno;
	if (fstat(s.fd, &st)) {
		err = -errno;
		close(s.fd);
		return err;
	}
	err = write_new(dst, st.st_mode & 0777, fill_from_fd, &s);
	close(s.fd);
	return err;
}

/* A hard link where the file system allows, else a copy; kept if there. */
static int link_or_copy(const char *src, const char *dst)
{
	if (!access(dst, F_OK))
		return 0;
	if (!link(src, dst) || errno == EEXIST)
		return 0;
	return copy_file(src, dst);
}

/*
 * DIR/.build-id/xx/yyyy -> ../../<dso dir below DIR>. A link already
 * there (the same id cached from another path) is kept, as perf does.
 */
static int add_link(const char *dir, const char *sbid, const char *dso_dir)
{
	char link_dir[PATH_MAX], link_path[PATH_MAX], target[PATH_MAX];
	size_t dl = strlen(dir);
	int err;

	if (snprintf(link_dir, sizeof(link_dir), "%s/.build-id/%.2s", dir, sbid) >=
		    (int)sizeof(link_dir) ||
	    snprintf(link_path, sizeof(link_path), "%s/%s", link_dir, sbid + 2) >=
		    (int)sizeof(link_path) ||
	    snprintf(target, sizeof(target), "../..%s", dso_dir + dl) >= (int)sizeof(target))
		return -ENAMETOOLONG;
	err = mkdir_p(link_dir, 0755);
	if (err)
		return err;
	if (symlink(target, link_path) && errno != EEXIST)
		return -errno;
	return 0;
}

/* DIR + "/" + what (no slash when what is absolute) + "/" + sbid. */
static int dso_dir(char *buf, size_t size, const char *dir, const char *what,
		   const char *sbid)
{
	int n = snprintf(buf, size, "%s%s%s/%s", dir, what[0] == '/' ? "" : "/", what, sbid);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/*
 * perf's SDT probe cache beside the file: perf writes the probes of its
 * .note.stapsdt there, and an empty file for a DSO without any. perfcap
 * writes only the empty one: a DSO with probes gets no file, so perf
 * probe scans it rather than trust an empty list.
 */
static void add_empty_probes(const char *ddir, int has_sdt)
{
	char path[PATH_MAX];
	int fd;

	if (has_sdt != 0 || snprintf(path, sizeof(path), "%s/probes", ddir) >= (int)sizeof(path))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

static int fill_bytes(int fd, void *arg)
{
	const struct { const void *p; size_t n; } *b = arg;

	return write_all(fd, b->p, b->n);
}

int buildid_cache__add_file(const char *dir, const struct build_id *bid,
			    const char *name, const char *path)
{
	char sbid[2 * BUILD_ID_MAX + 1], ddir[PATH_MAX], file[PATH_MAX], debug[PATH_MAX];
	char *real;
	size_t nl;
	int err;

	if (!bid->size)
		return -EINVAL;
	real = realpath(name, NULL);
	build_id__hex(bid, sbid);
	/* perf files a DSO under its real path. */
	err = dso_dir(ddir, sizeof(ddir), dir, real ? real : name, sbid);
	free(real);
	if (err)
		return err;
	err = mkdir_p(ddir, 0755);
	if (err)
		return err;
	if (snprintf(file, sizeof(file), "%s/elf", ddir) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	err = link_or_copy(path, file);
	if (err)
		return err;
	add_empty_probes(ddir, build_id__has_sdt_notes(path));
	/*
	 * A stripped file's symbols may be in its debug file: perf caches
	 * that beside it (not for modules).
	 */
	nl = strlen(name);
	if (!(nl > 3 && !strcmp(name + nl - 3, ".ko"))) {
		char dbg[PATH_MAX];

		snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", sbid, sbid + 2);
		if (!access(dbg, R_OK) &&
		    snprintf(debug, sizeof(debug), "%s/debug", ddir) < (int)sizeof(debug)) {
			char *rdbg = realpath(dbg, NULL);

			if (rdbg) {
				err = link_or_copy(rdbg, debug);
				free(rdbg);
				if (err)
					pr_debug("build-id cache: %s: %s\n", debug, strerror(-err));
			}
		}
	}
	return add_link(dir, sbid, ddir);
}

int buildid_cache__add_kallsyms(const char *dir, const struct build_id *bid)
{
	char sbid[2 * BUILD_ID_MAX + 1], ddir[PATH_MAX], file[PATH_MAX];
	struct copy_src s;
	int err;

	if (!bid->size)
		return -EINVAL;
	build_id__hex(bid, sbid);
	err = dso_dir(ddir, sizeof(ddir), dir, "[kernel.kallsyms]", sbid);
	if (!err)
		err = mkdir_p(ddir, 0755);
	if (err)
		return err;
	if (snprintf(file, sizeof(file), "%s/kallsyms", ddir) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	if (access(file, F_OK)) {
		s.fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
		if (s.fd < 0)
			return -errno;
		err = write_new(file, 0644, fill_from_fd, &s);
		close(s.fd);
		if (err)
			return err;
	}
	return add_link(dir, sbid, ddir);
}

int buildid_cache__add_vdso(const char *dir, const struct build_id *bid,
			    const void *image, size_t size)
{
	char sbid[2 * BUILD_ID_MAX + 1], ddir[PATH_MAX], file[PATH_MAX];
	struct { const void *p; size_t n; } b = { image, size };
	int err;

	if (!bid->size || !image)
		return -EINVAL;
	build_id__hex(bid, sbid);
	err = dso_dir(ddir, sizeof(ddir), dir, "[vdso]", sbid);
	if (!err)
		err = mkdir_p(ddir, 0755);
	if (err)
		return err;
	if (snprintf(file, sizeof(file), "%s/vdso", ddir) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	if (access(file, F_OK)) {
		err = write_new(file, 0600, fill_bytes, &b);
		if (err)
			return err;
	}
	add_empty_probes(ddir, build_id__has_sdt_notes(file));
	return add_link(dir, sbid, ddir);
}
