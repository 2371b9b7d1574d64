// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a recording: a perf.data file, standard input ("-", a pipe
 * spooled to a temporary file), or a perf record --threads directory and
 * its data.N streams; refusing what is not a regular file before it is
 * opened. perf_reader__open runs the steps of header.c and pipe.c in
 * order; perf_reader__close undoes all of them. The pread helpers that
 * every step reads the file with are here too.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/reader-internal.h"
#include "read/reader.h"
#include "util.h"

/* pread all of [off, off+len) or fail: -EIO on a short read, -errno else. */
int perf_reader__pread_all(int fd, void *buf, size_t len, uint64_t off, size_t *got)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (got)
				*got = done;
			return -errno;
		}
		if (n == 0)
			break;
		done += n;
	}
	if (got)
		*got = done;
	return done == len ? 0 : -EIO;
}

/* Read a section of the header file that open already checked for bounds. */
int perf_reader__read_section(struct perf_reader *r, void *buf, size_t len, uint64_t off,
			      const char *what)
{
	int err = perf_reader__pread_all(r->fd, buf, len, off, NULL);

	if (err)
		pr_err("%s: cannot read %s (%zu bytes at offset %#" PRIx64 "): %s\n",
		       r->path, what, len, off, strerror(-err));
	return err;
}

static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	default: return "not a regular file";
	}
}

/*
 * Open one file of a recording for reading: only a regular file. The
 * type is checked before open(), which would block on a FIFO without a
 * writer and may have side effects on a device; O_NONBLOCK and a second
 * check on the open fd cover a file swapped in between. Returns the fd
 * (*size set) or -errno, message printed.
 */
static int open_regular(const char *path, uint64_t *size)
{
	struct stat st;
	int fd, err;

	if (stat(path, &st)) {
		err = -errno;
		pr_err("%s: %s\n", path, strerror(-err));
		return err;
	}
	if (!S_ISREG(st.st_mode))
		goto not_regular;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		pr_err("%s: %s\n", path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		pr_err("%s: %s\n", path, strerror(-err));
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		goto not_regular;
	}
	*size = (uint64_t)st.st_size;
	return fd;
not_regular:
	pr_err("%s: %s, not a perf.data file: refused\n", path, file_kind(st.st_mode));
	return -EINVAL;
}

/*
 * Standard input that is not a file (a pipe from perf record -o -): the
 * reader reads by offset, more than once, so the stream is copied to an
 * unlinked temporary file first, to its end.
 */
static int spool_stdin(uint64_t *size)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096], *buf;
	uint64_t total = 0;
	int fd, err = 0;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		/* A file system without O_TMPFILE: a named file, unlinked at once. */
		if ((size_t)snprintf(tmpl, sizeof(tmpl), "%s/perfcap-stdin-XXXXXX", dir) >=
		    sizeof(tmpl))
			return -ENAMETOOLONG;
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
	}
	if (fd < 0) {
		err = -errno;
		pr_err("standard input: cannot create a temporary file in %s to hold the "
		       "stream: %s\n", dir, strerror(-err));
		return err;
	}
	buf = xzalloc(1 << 16);
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, 1 << 16), done = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			pr_err("standard input: %s\n", strerror(-err));
			break;
		}
		if (n == 0)
			break;
		while (done < n) {
			ssize_t w = write(fd, buf + done, n - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				err = w < 0 ? -errno : -ENOSPC;
				pr_err("standard input: cannot keep the stream in %s: %s\n", dir,
				       strerror(-err));
				break;
			}
			done += w;
		}
		if (err)
			break;
		total += n;
	}
	free(buf);
	if (err) {
		close(fd);
		return err;
	}
	*size = total;
	return fd;
}

/*
 * "-": standard input. A regular file there (perfcap dump - < FILE) is
 * read like any other; a pipe (perf record -o -) is kept in a temporary
 * file first (spool_stdin()).
 */
static int open_stdin(uint64_t *size)
{
	struct stat st;
	int fd;

	if (fstat(STDIN_FILENO, &st)) {
		int err = -errno;

		pr_err("standard input: %s\n", strerror(-err));
		return err;
	}
	if (S_ISDIR(st.st_mode)) {
		pr_err("standard input is %s: refused\n", file_kind(st.st_mode));
		return -EINVAL;
	}
	if (!S_ISREG(st.st_mode))
		return spool_stdin(size);
	fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		int err = -errno;

		pr_err("standard input: %s\n", strerror(-err));
		return err;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

static void add_stream(struct perf_reader *r, const char *path, int fd, uint64_t off,
		       uint64_t size)
{
	struct perf_reader_stream *s;

	r->streams = xrealloc(r->streams, (r->nr_streams + 1) * sizeof(*r->streams));
	s = &r->streams[r->nr_streams++];
	s->path = xstrdup(path);
	s->fd = fd;
	s->offset = off;
	s->size = size;
}

struct dir_file {
	unsigned long n;
	char *name;
};

static int cmp_dir_file(const void *a, const void *b)
{
	const struct dir_file *x = a, *y = b;

	return x->n < y->n ? -1 : x->n > y->n;
}

/* PATH/data.N, in the order of N: the per-thread streams of perf record --threads. */
static int open_dir_streams(struct perf_reader *r)
{
	struct dir_file *files = NULL;
	size_t nr = 0;
	struct dirent *d;
	DIR *dir;
	int err = 0;

	dir = opendir(r->path);
	if (!dir) {
		err = -errno;
		pr_err("%s: cannot list the directory: %s\n", r->path, strerror(-err));
		return err;
	}
	while ((d = readdir(dir))) {
		const char *s = d->d_name;
		char *end;
		unsigned long n;

		if (strncmp(s, "data.", 5) || s[5] < '0' || s[5] > '9')
			continue;
		n = strtoul(s + 5, &end, 10);
		if (*end)
			continue;
		files = xrealloc(files, (nr + 1) * sizeof(*files));
		files[nr].n = n;
		files[nr++].name = xstrdup(s);
	}
	closedir(dir);
	if (nr)	/* qsort wants a valid pointer even for no elements */
		qsort(files, nr, sizeof(*files), cmp_dir_file);

	for (size_t i = 0; i < nr; i++) {
		uint64_t size = 0;
		char *path;
		int fd;

		if (err)
			goto next;
		if (asprintf(&path, "%s/%s", r->path, files[i].name) < 0) {
			err = -ENOMEM;
			goto next;
		}
		fd = open_regular(path, &size);
		if (fd < 0)
			err = fd;
		else
			add_stream(r, path, fd, 0, size);
		free(path);
next:
		free(files[i].name);
	}
	free(files);
	return err;
}

int perf_reader__open(struct perf_reader *r, const char *path)
{
	struct stat st;
	char *hdr_path = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->path = xstrdup(path);
	if (!strcmp(path, "-")) {
		hdr_path = xstrdup("standard input");
		err = r->fd = open_stdin(&r->file_size);
		if (err < 0)
			goto out_free;
		goto opened;
	}
	if (stat(path, &st)) {
		err = -errno;
		pr_err("%s: %s\n", path, strerror(-err));
		goto out_free;
	}
	r->is_dir = S_ISDIR(st.st_mode);
	if (r->is_dir) {
		struct stat dst;

		if (asprintf(&hdr_path, "%s/data", path) < 0) {
			err = -ENOMEM;
			goto out_free;
		}
		if (stat(hdr_path, &dst) || !S_ISREG(dst.st_mode)) {
			pr_err("%s: a directory without perf's layout (no regular file 'data' in "
			       "it, as perf record --threads writes): refused\n", path);
			err = -EINVAL;
			goto out_free;
		}
	} else {
		hdr_path = xstrdup(path);
	}
	err = r->fd = open_regular(hdr_path, &r->file_size);
	if (err < 0)
		goto out_free;
opened:
	/* Messages name the file holding the header. */
	free(r->path);
	r->path = xstrdup(hdr_path);
	err = perf_reader__read_header(r);
	if (!err && r->is_pipe && r->is_dir) {
		pr_err("%s: a pipe-format stream as a directory's data: refused\n", r->path);
		err = -EINVAL;
	}
	if (!err)
		err = r->is_pipe ? perf_reader__read_pipe_prefix(r) :
				   perf_reader__read_attrs(r);
	if (!err && !r->is_pipe)
		err = perf_reader__read_feature_table(r);
	if (!err)
		err = perf_reader__read_event_desc(r);
	if (!err && !r->is_pipe)
		err = perf_reader__read_dir_format(r);
	free(r->path);
	r->path = xstrdup(path);
	if (err)
		goto out_free;

	for (size_t i = 0; i < r->nr_attrs; i++)
		if (!r->attrs[i].name)
			r->attrs[i].name = perf_reader__default_attr_name(&r->attrs[i].attr);

	add_stream(r, hdr_path, -1, r->header.data.offset, r->header.data.size);
	free(hdr_path);
	hdr_path = NULL;
	if (r->is_dir) {
		if (!perf_reader__has_feature(r, HEADER_DIR_FORMAT))
			pr_warn("%s: a directory without the DIR_FORMAT feature\n", path);
		else if (r->dir_version != PERF_DIR_FORMAT_VERSION)
			pr_warn("%s: directory format version %" PRIu64 " (perfcap knows %d)\n",
				path, r->dir_version, PERF_DIR_FORMAT_VERSION);
		err = open_dir_streams(r);
		if (err)
			goto out_free;
	}
	r->buf_cap = READER_WINDOW;
	r->buf = xzalloc(r->buf_cap);
	return 0;

out_free:
	free(hdr_path);
	perf_reader__close(r);
	return err;
}

void perf_reader__close(struct perf_reader *r)
{
	for (size_t i = 0; i < r->nr_attrs; i++) {
		free(r->attrs[i].ids);
		free(r->attrs[i].name);
	}
	for (size_t i = 0; i < r->nr_streams; i++) {
		if (r->streams[i].fd >= 0)
			close(r->streams[i].fd);
		free(r->streams[i].path);
	}
	if (r->fd >= 0)
		close(r->fd);
	free(r->attrs);
	free(r->id_map);
	free(r->features);
	free(r->streams);
	free(r->buf);
	free(r->path);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}
