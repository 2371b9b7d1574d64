// SPDX-License-Identifier: GPL-2.0
/*
 * Records for what existed before recording started. The layouts and
 * conventions are those perf 6.1 writes itself (see synthesize.h and
 * shared/PERFDATA.md B.5); perf report needs them to name tasks and to
 * resolve addresses of code that was mapped before the events opened.
 *
 * Cost: system-wide mode reads /proc/PID/status, the comm of every
 * thread and the maps of every process; ELF files are opened only for
 * build ids, and only once per (dev, ino) thanks to build_id__cached().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "format/build-id.h"
#include "format/synthesize.h"
#include "util.h"

#define COMM_LEN 16 /* the kernel's TASK_COMM_LEN: 15 characters + NUL */

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

/*
 * Record bodies as the kernel lays them out (perf_event.h describes
 * them in comments only). A filename, when there is one, follows the
 * struct, NUL-padded to 8 bytes; then the sample_id trailer.
 */
struct comm_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	char comm[COMM_LEN];
};

struct fork_rec {
	struct perf_event_header header;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct mmap_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
};

struct mmap2_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct { /* with PERF_RECORD_MISC_MMAP_BUILD_ID */
			uint8_t build_id_size;
			uint8_t reserved1;
			uint16_t reserved2;
			uint8_t build_id[BUILD_ID_MAX];
		};
	};
	uint32_t prot, flags;
};

_Static_assert(sizeof(struct comm_rec) == 32, "COMM layout");
_Static_assert(sizeof(struct fork_rec) == 32, "FORK layout");
_Static_assert(sizeof(struct mmap_rec) == 40, "MMAP layout");
_Static_assert(sizeof(struct mmap2_rec) == 72, "MMAP2 layout");

/* Room for the largest record: MMAP2 + a PATH_MAX name + trailer. */
union rec_buf {
	struct perf_event_header header;
	struct comm_rec comm;
	struct fork_rec fork;
	struct mmap_rec mmap;
	struct mmap2_rec mmap2;
	uint64_t raw[(sizeof(struct mmap2_rec) + PATH_MAX + SYNTH_ID_HDR_MAX) / 8];
};

static int synth__check(const struct synth *s)
{
	if (!s->emit || s->id_hdr_size % 8 || s->id_hdr_size > SYNTH_ID_HDR_MAX) {
		pr_err("synthesize: bad setup (emit %s, id_hdr_size %zu)\n",
		       s->emit ? "set" : "missing", s->id_hdr_size);
		return -EINVAL;
	}
	return 0;
}

/* body: bytes filled in from the start of rb, a multiple of 8. */
static int synth__emit(struct synth *s, union rec_buf *rb, size_t body)
{
	memset((char *)rb + body, 0, s->id_hdr_size);
	rb->header.size = body + s->id_hdr_size;
	return s->emit(s, rb, body + s->id_hdr_size);
}

/* Copy a name of len bytes and NUL-pad it to 8; returns the padded size. */
static size_t put_name(char *dst, const char *name, size_t len)
{
	size_t padded;

	if (len > PATH_MAX - 1)
		len = PATH_MAX - 1;
	padded = ALIGN_UP(len + 1, (size_t)8);
	memcpy(dst, name, len);
	memset(dst + len, 0, padded - len);
	return padded;
}

/* Small /proc file into buf (NUL-terminated); length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	err = -errno;
	close(fd);
	if (n < 0)
		return err;
	buf[n] = 0;
	return n;
}

/* ---- COMM and FORK ---- */

static int emit_comm(struct synth *s, union rec_buf *rb, pid_t pid, pid_t tid,
		     const char *comm)
{
	struct comm_rec *r = &rb->comm;
	size_t len = strnlen(comm, COMM_LEN - 1);
	int err;

	memset(r, 0, sizeof(*r));
	r->header.type = PERF_RECORD_COMM;
	r->pid = pid;
	r->tid = tid;
	memcpy(r->comm, comm, len);
	err = synth__emit(s, rb, offsetof(struct comm_rec, comm) +
				 ALIGN_UP(len + 1, (size_t)8));
	if (!err)
		s->nr_comm++;
	return err;
}

int synthesize__comm(struct synth *s, pid_t pid, pid_t tid, const char *comm)
{
	union rec_buf rb;
	int err = synth__check(s);

	return err ? err : emit_comm(s, &rb, pid, tid, comm);
}

static int emit_fork(struct synth *s, union rec_buf *rb, pid_t tgid, pid_t tid,
		     pid_t parent)
{
	struct fork_rec *r = &rb->fork;
	int err;

	memset(r, 0, sizeof(*r));
	r->header.type = PERF_RECORD_FORK;
	/* perf's mark for a FORK it made up rather than saw. */
	r->header.misc = PERF_RECORD_MISC_FORK_EXEC;
	r->pid = tgid;
	r->tid = tid;
	r->ppid = r->ptid = parent;
	err = synth__emit(s, rb, sizeof(*r));
	if (!err)
		s->nr_fork++;
	return err;
}

/* ---- kernel and modules ---- */

int synthesize__kernel_text(const char *kallsyms, uint64_t *start, uint64_t *end)
{
	bool have_text = false, have_etext = false;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	*start = *end = 0;
	f = fopen(kallsyms, "re");
	if (!f)
		return -errno;
	/* "ffffffff81000000 T _text"; module symbols end in "\t[mod]". */
	while (!(have_text && have_etext) && getline(&line, &cap, f) > 0) {
		char *p, *name;
		uint64_t addr = strtoull(line, &p, 16);

		if (p == line || p[0] != ' ' || !p[1] || p[2] != ' ')
			continue;
		name = p + 3;
		if (name[strcspn(name, "\t\n")] == '\t')
			continue;
		name[strcspn(name, "\n")] = 0;
		if (!have_text && !strcmp(name, "_text")) {
			*start = addr;
			have_text = true;
		} else if (!have_etext && !strcmp(name, "_etext")) {
			*end = addr;
			have_etext = true;
		}
	}
	free(line);
	fclose(f);
	if (!have_text)
		return -ENOENT;
	if (!*start)
		return -EPERM;
	return 0;
}

/*
 * A kernel or module map: MMAP, or with mmap_build_id an MMAP2 that
 * carries the build id when there is one (what perf --buildid-mmap does).
 */
static int emit_kernel_map(struct synth *s, union rec_buf *rb, uint64_t start,
			   uint64_t len, uint64_t pgoff, const char *name,
			   const struct build_id *bid)
{
	size_t name_size, body;
	int err;

	if (s->mmap_build_id) {
		struct mmap2_rec *r = &rb->mmap2;

		memset(r, 0, sizeof(*r));
		r->header.type = PERF_RECORD_MMAP2;
		r->header.misc = PERF_RECORD_MISC_KERNEL;
		r->pid = (uint32_t)-1;
		r->start = start;
		r->len = len;
		r->pgoff = pgoff;
		if (bid && bid->size) {
			r->header.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
			r->build_id_size = bid->size;
			memcpy(r->build_id, bid->data, bid->size);
		}
		name_size = put_name((char *)(r + 1), name, strlen(name));
		body = sizeof(*r) + name_size;
	} else {
		struct mmap_rec *r = &rb->mmap;

		memset(r, 0, sizeof(*r));
		r->header.type = PERF_RECORD_MMAP;
		r->header.misc = PERF_RECORD_MISC_KERNEL;
		r->pid = (uint32_t)-1; /* the host kernel, to perf */
		r->start = start;
		r->len = len;
		r->pgoff = pgoff;
		name_size = put_name((char *)(r + 1), name, strlen(name));
		body = sizeof(*r) + name_size;
	}
	err = synth__emit(s, rb, body);
	if (!err)
		s->nr_mmap++;
	return err;
}

int synthesize__parse_modules(const char *text,
			      int (*cb)(void *arg, const char *name,
					uint64_t start, uint64_t size),
			      void *arg)
{
	const char *line = text;
	int nr = 0, err;

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		unsigned long long size, start;
		char name[64 + 1], state[16];
		int n;

		/* "name size refcount deps state 0xaddress [(taints)]" */
		n = sscanf(line, "%64s %llu %*s %*s %15s %llx", name, &size,
			   state, &start);
		if (n != 4) {
			/* an empty last line is not an error */
			if (line[strspn(line, " \t\n")] == 0)
				break;
			return -EINVAL;
		}
		err = cb ? cb(arg, name, start, size) : 0;
		if (err)
			return err;
		nr++;
		line = eol ? eol + 1 : NULL;
	}
	return nr;
}

static void modpaths__add(struct modpaths *mp, const char *path)
{
	const char *base = strrchr(path, '/') + 1;
	const char *ko = strstr(base, ".ko");
	char *name, *p;

	if (!ko || (ko[3] && strcmp(ko + 3, ".xz") && strcmp(ko + 3, ".gz") &&
		    strcmp(ko + 3, ".zst")))
		return;
	name = strndup(base, ko - base);
	if (!name)
		return;
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	if (mp->nr == mp->cap) {
		mp->cap = mp->cap ? mp->cap * 2 : 256;
		mp->v = xrealloc(mp->v, mp->cap * sizeof(*mp->v));
	}
	mp->v[mp->nr].name = name;
	mp->v[mp->nr].path = xstrdup(path);
	mp->nr++;
}

static void modpaths__scan(struct modpaths *mp, const char *dir, int depth)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char path[PATH_MAX];
		unsigned char type = de->d_type;

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path))
			continue;
		if (type == DT_UNKNOWN) {
			struct stat st;

			if (lstat(path, &st))
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR :
			       S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		}
		/* Symlinks (build/, source/) lead into kernel trees: skip. */
		if (type == DT_DIR && depth < 8)
			modpaths__scan(mp, path, depth + 1);
		else if (type == DT_REG)
			modpaths__add(mp, path);
	}
	closedir(d);
}

static int modpath__cmp(const void *a, const void *b)
{
	const struct modpath *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->path, y->path);
}

void modpaths__init(struct modpaths *mp)
{
	struct utsname uts;
	char dir[PATH_MAX];

	memset(mp, 0, sizeof(*mp));
	if (uname(&uts))
		return;
	snprintf(dir, sizeof(dir), "/lib/modules/%s", uts.release);
	modpaths__scan(mp, dir, 0);
	if (mp->nr)
		qsort(mp->v, mp->nr, sizeof(*mp->v), modpath__cmp);
}

const char *modpaths__find(const struct modpaths *mp, const char *name)
{
	size_t lo = 0, hi = mp->nr;

	/* the first entry with this name: lower bound */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(mp->v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < mp->nr && !strcmp(mp->v[lo].name, name) ? mp->v[lo].path : NULL;
}

void modpaths__exit(struct modpaths *mp)
{
	size_t i;

	for (i = 0; i < mp->nr; i++) {
		free(mp->v[i].name);
		free(mp->v[i].path);
	}
	free(mp->v);
}

struct modules_ctx {
	struct synth *s;
	union rec_buf *rb;
	struct modpaths paths;
	unsigned long hidden;
};

static int module__emit(void *arg, const char *name, uint64_t start,
			uint64_t size)
{
	struct modules_ctx *ctx = arg;
	struct build_id bid = { .size = 0 };
	char fallback[80];
	const char *path;

	if (!start) { /* kptr_restrict */
		ctx->hidden++;
		return 0;
	}
	path = modpaths__find(&ctx->paths, name);
	if (!path) {
		/* perf report takes a "[name]" kernel map for a module. */
		snprintf(fallback, sizeof(fallback), "[%s]", name);
		path = fallback;
	}
	if (ctx->s->mmap_build_id)
		build_id__module(name, &bid);
	return emit_kernel_map(ctx->s, ctx->rb, start, size, 0, path, &bid);
}

int synthesize__modules_text(struct synth *s, const char *text)
{
	struct modules_ctx ctx = { .s = s };
	union rec_buf rb;
	int err = synth__check(s);

	if (err)
		return err;
	/* Parse once dry, so that a bad line emits nothing. */
	err = synthesize__parse_modules(text, NULL, NULL);
	if (err > 0) {
		ctx.rb = &rb;
		modpaths__init(&ctx.paths);
		err = synthesize__parse_modules(text, module__emit, &ctx);
		modpaths__exit(&ctx.paths);
		if (ctx.hidden)
			pr_warn("%lu module addresses read as 0 in /proc/modules "
				"(kernel.kptr_restrict?): their samples cannot be "
				"resolved\n", ctx.hidden);
	}
	if (err == -EINVAL)
		pr_err("cannot parse /proc/modules\n");
	return err < 0 ? err : 0;
}

int synthesize__modules(struct synth *s)
{
	char *text;
	ssize_t n;
	int err = synth__check(s);

	if (err)
		return err;
	n = read_file("/proc/modules", &text);
	if (n < 0)
		/* no module support, or no /proc/modules: nothing to map */
		return n == -ENOENT ? 0 : (int)n;
	err = synthesize__modules_text(s, text);
	free(text);
	return err;
}

/* Lowest module start above the kernel text: the kernel map's end. */
struct kernel_end_ctx {
	uint64_t text, end;
};

static int kernel_end__module(void *arg, const char *name, uint64_t start,
			      uint64_t size)
{
	struct kernel_end_ctx *ctx = arg;

	if (start > ctx->text && start < ctx->end)
		ctx->end = start;
	return 0;
}

int synthesize__kernel_mmap(struct synth *s)
{
	struct build_id bid = { .size = 0 };
	uint64_t start, end;
	union rec_buf rb;
	int err = synth__check(s);

	if (err)
		return err;
	err = synthesize__kernel_text("/proc/kallsyms", &start, &end);
	if (err == -EPERM)
		return err; /* addresses hidden from us: the caller knows if that matters */
	if (err) {
		pr_err("cannot find _text in /proc/kallsyms: %s\n", strerror(-err));
		return err;
	}
	if (!end) {
		/* no _etext: up to the first module, as perf does */
		struct kernel_end_ctx ctx = { .text = start, .end = ~0ULL };
		char *text;

		if (read_file("/proc/modules", &text) >= 0) {
			synthesize__parse_modules(text, kernel_end__module, &ctx);
			free(text);
		}
		end = ctx.end;
	}
	if (s->mmap_build_id)
		build_id__kernel(&bid);
	/* pgoff holds the address of the reference symbol, _text. */
	return emit_kernel_map(s, &rb, start, end - start, start,
			       "[kernel.kallsyms]_text", &bid);
}

/* ---- user-space maps ---- */

int synthesize__parse_maps_line(const char *line, struct proc_map *m)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	const char *p;
	int n = 0;

	/* "7f3a01a93000-7f3a01be9000 r-xp 00026000 fe:00 332835   /path" */
	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu%n", &start, &end,
		   m->perms, &pgoff, &maj, &min, &ino, &n) != 7 || !n ||
	    strlen(m->perms) != 4)
		return -EINVAL;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	p = line + n;
	p += strspn(p, " \t");
	m->name = p;
	m->name_len = strcspn(p, "\n");
	return 0;
}

/* perf names maps of hugetlbfs files "//anon" (with MAP_HUGETLB). */
static const char *hugetlbfs_mountpoint(void)
{
	static char mnt[PATH_MAX];
	static bool done;
	char *text, *line, *save = NULL;

	if (done)
		return mnt[0] ? mnt : NULL;
	done = true;
	if (read_file("/proc/self/mounts", &text) < 0)
		return NULL;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char dir[PATH_MAX], type[64];

		if (sscanf(line, "%*s %4095s %63s", dir, type) == 2 &&
		    !strcmp(type, "hugetlbfs")) {
			snprintf(mnt, sizeof(mnt), "%s", dir);
			break;
		}
	}
	free(text);
	return mnt[0] ? mnt : NULL;
}

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/*
 * The build id of a mapped file, through the process's root so that a
 * container's files are read, not the host's files of the same name.
 */
static int map__build_id(pid_t tgid, const struct proc_map *m, const char *name,
			 size_t len, struct build_id *bid)
{
	char path[PATH_MAX + 32];
	uint64_t dev = makedev(m->maj, m->min);
	int err;

	if (name[0] != '/' || !m->ino || has_suffix(name, len, " (deleted)") ||
	    len >= PATH_MAX)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%d/root%.*s", tgid, (int)len, name);
	err = build_id__cached(path, dev, m->ino, bid);
	if (err == -EACCES || err == -EPERM) {
		/* not allowed into its root: the same path here, if same inode */
		snprintf(path, sizeof(path), "%.*s", (int)len, name);
		err = build_id__cached(path, dev, m->ino, bid);
	}
	return err;
}

static int emit_user_map(struct synth *s, union rec_buf *rb, pid_t tgid,
			 const struct proc_map *m)
{
	struct mmap2_rec *r = &rb->mmap2;
	struct build_id bid = { .size = 0 };
	const char *name = m->name;
	size_t len = m->name_len;
	const char *huge;
	int err;

	memset(r, 0, sizeof(*r));
	r->header.type = PERF_RECORD_MMAP2;
	r->header.misc = PERF_RECORD_MISC_USER;
	r->pid = r->tid = tgid;
	r->start = m->start;
	r->len = m->end - m->start;
	r->pgoff = m->pgoff;
	r->prot = (m->perms[0] == 'r' ? PROT_READ : 0) |
		  (m->perms[1] == 'w' ? PROT_WRITE : 0) |
		  (m->perms[2] == 'x' ? PROT_EXEC : 0);
	r->flags = m->perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	if (m->perms[2] != 'x')
		r->header.misc |= PERF_RECORD_MISC_MMAP_DATA;

	if (!len) {
		name = "//anon";
		len = strlen(name);
	} else if (name[0] == '/' && (huge = hugetlbfs_mountpoint()) &&
		   !strncmp(name, huge, strlen(huge)) && name[strlen(huge)] == '/') {
		name = "//anon";
		len = strlen(name);
		r->flags |= MAP_HUGETLB;
	}

	/* only files keep their name: no id for "//anon" hugetlbfs maps */
	if (s->mmap_build_id && name == m->name &&
	    map__build_id(tgid, m, name, len, &bid) == 0 && bid.size) {
		r->header.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		r->build_id_size = bid.size;
		memcpy(r->build_id, bid.data, bid.size);
	} else {
		r->maj = m->maj;
		r->min = m->min;
		r->ino = m->ino;
	}
	if (s->map_timed_out)
		r->header.misc |= PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT;
	err = synth__emit(s, rb, sizeof(*r) + put_name((char *)(r + 1), name, len));
	if (!err)
		s->nr_mmap++;
	return err;
}

/* MMAP2 for the executable (and with mmap_data, file) maps of a process; -ESRCH if gone. */
static int synth_maps(struct synth *s, union rec_buf *rb, pid_t tgid)
{
	char path[64], *text, *line;
	uint64_t t0 = s->map_timeout ? mono_ns() : 0;
	ssize_t n;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", tgid, tgid);
	n = read_file(path, &text);
	if (n < 0) {
		/*
		 * Gone, or not ours to read (EACCES: another user's process
		 * without root, or a protected one). Its threads still get
		 * FORK and COMM, unlike perf 6.1, which gives up on them.
		 */
		if (n != -ENOENT && n != -ESRCH)
			pr_debug("no maps for pid %d: %s: %s\n", tgid, path,
				 strerror(-n));
		return -ESRCH;
	}
	for (line = text; line && *line && !err;) {
		char *eol = strchr(line, '\n');
		struct proc_map m;

		/*
		 * Code is what samples are resolved against; with mmap_data
		 * (DWARF call graphs) also the file maps holding unwind tables.
		 */
		if (synthesize__parse_maps_line(line, &m) == 0 &&
		    (m.perms[2] == 'x' || (s->mmap_data && m.name_len && m.name[0] == '/'))) {
			s->map_timed_out = s->map_timeout &&
					   mono_ns() - t0 > s->map_timeout_ns;
			err = emit_user_map(s, rb, tgid, &m);
			if (s->map_timed_out) {
				s->map_timed_out = false;
				s->nr_map_timeouts++;
				break;
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	free(text);
	return err;
}

struct proc_status {
	pid_t tgid, ppid;
	bool has_mm; /* kernel threads and zombies have no VmSize */
};

static int read_status(pid_t pid, struct proc_status *st)
{
	char path[64], buf[4096];
	const char *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	/* Tgid, PPid and VmSize are in the first 4 KiB. */
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -ESRCH;
	st->tgid = atoi(p + 6);
	p = strstr(buf, "\nPPid:");
	st->ppid = p ? atoi(p + 6) : 0;
	st->has_mm = strstr(buf, "\nVmSize:") != NULL;
	return st->tgid > 0 ? 0 : -ESRCH;
}

static int read_comm(pid_t tgid, pid_t tid, char *comm, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", tgid, tid);
	n = read_small(path, comm, size);
	if (n < 0)
		return -ESRCH;
	/* only the newline the kernel adds: a comm may hold one itself */
	if (n > 0 && comm[n - 1] == '\n')
		comm[n - 1] = 0;
	return 0;
}

/* The kernel's order of the namespaces in a NAMESPACES record (uapi *_NS_INDEX). */
static const char *const ns_names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };

struct namespaces_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t nr_namespaces;
	struct { uint64_t dev, ino; } link[ARRAY_SIZE(ns_names)];
};

static int emit_namespaces(struct synth *s, union rec_buf *rb, pid_t pid, pid_t tid)
{
	struct namespaces_rec *r = (struct namespaces_rec *)rb;
	int err;

	memset(r, 0, sizeof(*r));
	r->header.type = PERF_RECORD_NAMESPACES;
	r->pid = pid;
	r->tid = tid;
	r->nr_namespaces = ARRAY_SIZE(ns_names);
	/* As perf: the device and inode of each /proc link; one the kernel lacks stays 0. */
	for (size_t i = 0; i < ARRAY_SIZE(ns_names); i++) {
		char path[96];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/ns/%s", pid, tid, ns_names[i]);
		if (stat(path, &st)) {
			/* The thread is gone, or this kernel has no such namespace. */
			snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, tid);
			if (access(path, F_OK))
				return -ESRCH;
			continue;
		}
		r->link[i].dev = st.st_dev;
		r->link[i].ino = st.st_ino;
	}
	err = synth__emit(s, rb, sizeof(*r));
	if (!err)
		s->nr_namespaces++;
	return err;
}

int synthesize__namespaces(struct synth *s, pid_t pid, pid_t tid)
{
	union rec_buf rb;
	int err = synth__check(s);

	return err ? err : emit_namespaces(s, &rb, pid, tid);
}

int synthesize__cgroup(struct synth *s, uint64_t id, const char *path)
{
	struct cgroup_rec {
		struct perf_event_header header;
		uint64_t id;
	} *r;
	union rec_buf rb;
	size_t len = strlen(path);
	int err = synth__check(s);

	if (err)
		return err;
	r = (struct cgroup_rec *)&rb;
	memset(r, 0, sizeof(*r));
	r->header.type = PERF_RECORD_CGROUP;
	r->id = id;
	err = synth__emit(s, &rb, sizeof(*r) + put_name((char *)(r + 1), path, len));
	if (!err)
		s->nr_cgroup++;
	return err;
}

/* FORK + [NAMESPACES] + COMM of one thread (perf 6.1's order); -ESRCH if it is gone. */
static int synth_thread(struct synth *s, union rec_buf *rb, pid_t tgid,
			pid_t tid, pid_t ppid)
{
	char comm[64];
	int err = 0;

	/* Read first: a thread that is gone gets neither record. */
	if (read_comm(tgid, tid, comm, sizeof(comm)))
		return -ESRCH;
	/*
	 * perf 6.1 makes the leader a child of its PPid and every other
	 * thread a child of the leader.
	 */
	if (!s->no_tasks)
		err = emit_fork(s, rb, tgid, tid, tid == tgid ? ppid : tgid);
	if (!err && s->namespaces)
		err = emit_namespaces(s, rb, tgid, tid);
	if (!err && !s->no_tasks)
		err = emit_comm(s, rb, tgid, tid, comm);
	return err;
}

/* A task that exited while /proc was read: nothing to say about it, not an error. */
static int gone_is_fine(int err)
{
	return err == -ESRCH ? 0 : err;
}

static int synth_process(struct synth *s, union rec_buf *rb,
			 const struct proc_status *st, pid_t only_tid)
{
	pid_t tgid = st->tgid;
	struct dirent *de;
	char path[64];
	DIR *d;
	int err;

	/* The leader first, its maps right after: threads share them. */
	err = synth_thread(s, rb, tgid, tgid, st->ppid);
	if (err)
		return err;
	if (st->has_mm && !s->no_maps) {
		err = synth_maps(s, rb, tgid);
		if (err && err != -ESRCH)
			return err;
	}
	if (only_tid == tgid)
		return 0;
	if (only_tid > 0)
		return gone_is_fine(synth_thread(s, rb, tgid, only_tid, st->ppid));
	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	d = opendir(path);
	if (!d)
		return 0; /* gone meanwhile */
	while ((de = readdir(d)) != NULL) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0 || tid == tgid)
			continue;
		err = gone_is_fine(synth_thread(s, rb, tgid, tid, st->ppid));
		if (err)
			break;
	}
	closedir(d);
	return err;
}

int synthesize__process(struct synth *s, pid_t pid, pid_t only_tid)
{
	struct proc_status st;
	union rec_buf rb;
	int err = synth__check(s);

	if (err)
		return err;
	if (pid <= 0)
		return -ESRCH;
	err = read_status(pid, &st);
	if (err)
		return err;
	if (only_tid > 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/task/%d", st.tgid, only_tid);
		if (access(path, F_OK))
			return -ESRCH;
	}
	return synth_process(s, &rb, &st, only_tid);
}

int synthesize__all(struct synth *s)
{
	struct dirent *de;
	union rec_buf rb;
	DIR *d;
	int err = synth__check(s);

	if (err)
		return err;
	d = opendir("/proc");
	if (!d) {
		err = -errno;
		pr_err("cannot read /proc: %s\n", strerror(-err));
		return err;
	}
	/* /proc lists thread-group leaders only; their threads are in task/. */
	while ((de = readdir(d)) != NULL) {
		struct proc_status st;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		if (read_status(pid, &st))
			continue; /* exited since readdir */
		err = gone_is_fine(synth_process(s, &rb, &st, 0));
		if (err)
			break;
	}
	closedir(d);
	return err;
}
