// SPDX-License-Identifier: GPL-2.0
/*
 * synthesize.c on the test process itself (a second thread with a name
 * of its own gives a non-leader FORK), on /proc/kallsyms, and its
 * parsers on fixed text. Records are captured through emit() and
 * checked field by field against the layouts perf 6.1 writes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "format/build-id.h"
#include "format/synthesize.h"

#include "emulator.h"

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

/* ---- capture ---- */

struct capture {
	uint8_t *buf;
	size_t len, cap;
	size_t nr;
	int fail_after; /* emit returns -ENOSPC after this many; <0: never */
};

static int capture_emit(struct synth *s, const void *rec, size_t len)
{
	struct capture *c = s->priv;
	const struct perf_event_header *h = rec;

	/* the contract every record must meet, checked at the source */
	assert_int_equal(len % 8, 0);
	assert_int_equal(h->size, len);
	assert_true(len >= sizeof(*h) + s->id_hdr_size);
	for (size_t i = len - s->id_hdr_size; i < len; i++)
		assert_int_equal(((const uint8_t *)rec)[i], 0);

	if (c->fail_after >= 0 && c->nr >= (size_t)c->fail_after)
		return -ENOSPC;
	if (c->len + len > c->cap) {
		c->cap = (c->len + len) * 2;
		c->buf = realloc(c->buf, c->cap);
		assert_non_null(c->buf);
	}
	memcpy(c->buf + c->len, rec, len);
	c->len += len;
	c->nr++;
	return 0;
}

static void synth_init(struct synth *s, struct capture *c, size_t id_hdr_size,
		       bool build_id)
{
	memset(c, 0, sizeof(*c));
	c->fail_after = -1;
	memset(s, 0, sizeof(*s));
	s->id_hdr_size = id_hdr_size;
	s->mmap_build_id = build_id;
	s->emit = capture_emit;
	s->priv = c;
}

#define for_each_rec(c, h)                                                   \
	for (struct perf_event_header *h = (void *)(c)->buf;                 \
	     (uint8_t *)h < (c)->buf + (c)->len;                             \
	     h = (void *)((uint8_t *)h + h->size))

/* Record views, written here independently of synthesize.c's. */
struct t_comm {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};

struct t_fork {
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct t_mmap {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	char filename[];
};

struct t_mmap2 {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint8_t u[24]; /* maj, min, ino, ino_generation | size, pad, id[20] */
	uint32_t prot, flags;
	char filename[];
};

/* Body size of a record = header.size - trailer; a name ends in it. */
static void check_name_padding(const struct perf_event_header *h,
			       const char *name, size_t id_hdr_size)
{
	const char *end = (const char *)h + h->size - id_hdr_size;
	size_t len = strlen(name);
	size_t padded = (len + 1 + 7) & ~(size_t)7;

	/* exactly NUL-padded to 8, nothing more before the trailer */
	assert_ptr_equal(name + padded, end);
	for (size_t i = len; i < padded; i++)
		assert_int_equal(name[i], 0);
}

/*
 * synthesize reads /proc/PID/task/TID/maps, as perf does. Under qemu-user
 * (the aarch64 build's unit tests) that directory is the emulator's, with
 * no map of the test binary, so a test of our own maps cannot run there.
 */
static void skip_if_proc_is_the_emulators(void)
{
	char task_exe[PATH_MAX];

	if (emulator(task_exe)) {
		print_message("skip: under %s, whose /proc/PID/task maps are its own, "
			      "not this binary's\n", task_exe);
		skip();
	}
}

/* ---- a second thread of the test process ---- */

static pthread_t worker;
static pid_t worker_tid;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int stop;

static void *worker_main(void *arg)
{
	pthread_mutex_lock(&lock);
	worker_tid = syscall(SYS_gettid);
	pthread_cond_broadcast(&cond);
	while (!stop)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static int group_setup(void **state)
{
	if (pthread_create(&worker, NULL, worker_main, NULL))
		return -1;
	pthread_setname_np(worker, "syn-worker");
	pthread_mutex_lock(&lock);
	while (!worker_tid)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return 0;
}

static int group_teardown(void **state)
{
	pthread_mutex_lock(&lock);
	stop = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(worker, NULL);
	build_id__cache_free();
	return 0;
}

static void self_comm(char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/comm", "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, size, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

/* The r-xp map of the test executable, from our own reading of maps. */
static int exe_text_map(uint64_t *start, uint64_t *end, uint64_t *ino)
{
	char exe[PATH_MAX], line[PATH_MAX + 128];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;
	int found = 0;

	assert_true(n > 0);
	exe[n] = 0;
	f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off, i;
		char perms[5], path[PATH_MAX];
		unsigned int ma, mi;

		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %4095s", &s, &e, perms,
			   &off, &ma, &mi, &i, path) == 8 &&
		    perms[2] == 'x' && !strcmp(path, exe)) {
			*start = s;
			*end = e;
			*ino = i;
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

static void check_self(bool build_id, size_t id_hdr_size)
{
	struct synth s;
	struct capture c;
	char comm[64], exe[PATH_MAX];
	pid_t pid = getpid();
	uint64_t xstart = 0, xend = 0, xino = 0;
	struct build_id want;
	int leader_fork = 0, worker_fork = 0, leader_comm = 0, worker_comm = 0;
	int exe_mmap = 0, anon = 0, vdso = 0, order = 0, seen_maps = 0;
	ssize_t n;

	skip_if_proc_is_the_emulators();
	self_comm(comm, sizeof(comm));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = 0;
	assert_int_equal(exe_text_map(&xstart, &xend, &xino), 0);
	assert_int_equal(build_id__from_file("/proc/self/exe", &want), 0);

	synth_init(&s, &c, id_hdr_size, build_id);
	assert_int_equal(synthesize__process(&s, pid, 0), 0);
	assert_true(c.nr == s.nr_comm + s.nr_fork + s.nr_mmap);

	for_each_rec(&c, h) {
		order++;
		switch (h->type) {
		case PERF_RECORD_FORK: {
			struct t_fork *f = (void *)h;

			assert_int_equal(h->size, sizeof(*f) + id_hdr_size);
			assert_int_equal(h->misc, PERF_RECORD_MISC_FORK_EXEC);
			assert_int_equal(f->pid, pid);
			assert_int_equal(f->time, 0);
			if (f->tid == (uint32_t)pid) {
				/* leader: child of our parent; and it comes first */
				assert_int_equal(order, 1);
				assert_int_equal(f->ppid, getppid());
				assert_int_equal(f->ptid, getppid());
				leader_fork++;
			} else if (f->tid == (uint32_t)worker_tid) {
				/* other threads: children of the leader */
				assert_int_equal(f->ppid, pid);
				assert_int_equal(f->ptid, pid);
				worker_fork++;
			}
			break;
		}
		case PERF_RECORD_COMM: {
			struct t_comm *cm = (void *)h;

			assert_int_equal(h->misc, 0);
			assert_int_equal(cm->pid, pid);
			check_name_padding(h, cm->comm, id_hdr_size);
			if (cm->tid == (uint32_t)pid) {
				assert_int_equal(order, 2);
				assert_string_equal(cm->comm, comm);
				leader_comm++;
			} else if (cm->tid == (uint32_t)worker_tid) {
				assert_string_equal(cm->comm, "syn-worker");
				worker_comm++;
			}
			break;
		}
		case PERF_RECORD_MMAP2: {
			struct t_mmap2 *m = (void *)h;

			/* maps come right after the leader's FORK + COMM */
			assert_int_equal(order, 3 + seen_maps++);
			assert_int_equal(m->pid, pid);
			assert_int_equal(m->tid, pid);
			assert_true(m->prot & PROT_EXEC);
			assert_true(m->flags == MAP_PRIVATE || m->flags == MAP_SHARED);
			assert_int_equal(h->misc & PERF_RECORD_MISC_CPUMODE_MASK,
					 PERF_RECORD_MISC_USER);
			check_name_padding(h, m->filename, id_hdr_size);
			if (!strcmp(m->filename, "//anon"))
				anon++;
			if (!strcmp(m->filename, "[vdso]")) {
				/* no build id for the vdso, like perf */
				assert_int_equal(h->misc, PERF_RECORD_MISC_USER);
				vdso++;
			}
			if (!strcmp(m->filename, exe)) {
				assert_int_equal(m->start, xstart);
				assert_int_equal(m->len, xend - xstart);
				assert_int_equal(m->prot, PROT_READ | PROT_EXEC);
				assert_int_equal(m->flags, MAP_PRIVATE);
				if (build_id) {
					assert_int_equal(h->misc, PERF_RECORD_MISC_USER |
						PERF_RECORD_MISC_MMAP_BUILD_ID);
					assert_int_equal(m->u[0], want.size);
					assert_int_equal(m->u[1], 0);
					assert_int_equal(m->u[2] | m->u[3], 0);
					assert_memory_equal(m->u + 4, want.data, want.size);
				} else {
					uint32_t maj, min;
					uint64_t ino, gen;
					struct stat st;

					assert_int_equal(h->misc, PERF_RECORD_MISC_USER);
					memcpy(&maj, m->u, 4);
					memcpy(&min, m->u + 4, 4);
					memcpy(&ino, m->u + 8, 8);
					memcpy(&gen, m->u + 16, 8);
					assert_int_equal(stat("/proc/self/exe", &st), 0);
					assert_int_equal(ino, xino);
					assert_int_equal(ino, st.st_ino);
					assert_int_equal(gen, 0);
					(void)maj;
					(void)min;
				}
				exe_mmap++;
			}
			break;
		}
		default:
			fail_msg("unexpected record type %u", h->type);
		}
	}
	assert_int_equal(leader_fork, 1);
	assert_int_equal(leader_comm, 1);
	assert_int_equal(worker_fork, 1);
	assert_int_equal(worker_comm, 1);
	assert_int_equal(exe_mmap, 1);
	assert_true(vdso <= 1);
	(void)anon;
	free(c.buf);
}

static void test_self(void **state)
{
	check_self(false, 24);
}

static void test_self_build_id(void **state)
{
	check_self(true, 40);
}

static void test_self_no_trailer(void **state)
{
	check_self(false, 0);
}

/* A non-leader pid is a way into its whole process. */
static void test_thread_pid_only_tid(void **state)
{
	struct synth s;
	struct capture c;
	int forks = 0, comms = 0, mmaps = 0;

	synth_init(&s, &c, 8, false);
	assert_int_equal(synthesize__process(&s, worker_tid, worker_tid), 0);
	for_each_rec(&c, h) {
		if (h->type == PERF_RECORD_FORK) {
			struct t_fork *f = (void *)h;

			assert_int_equal(f->pid, getpid());
			assert_true(f->tid == (uint32_t)getpid() ||
				    f->tid == (uint32_t)worker_tid);
			forks++;
		} else if (h->type == PERF_RECORD_COMM) {
			comms++;
		} else if (h->type == PERF_RECORD_MMAP2) {
			assert_int_equal(((struct t_mmap2 *)h)->pid, getpid());
			mmaps++;
		}
	}
	/* only the leader (for its maps) and the thread asked for */
	assert_int_equal(forks, 2);
	assert_int_equal(comms, 2);
	assert_true(mmaps > 0);
	free(c.buf);

	synth_init(&s, &c, 8, false);
	assert_int_equal(synthesize__process(&s, getpid(), getpid()), 0);
	assert_int_equal(s.nr_fork, 1);
	assert_int_equal(s.nr_comm, 1);
	free(c.buf);
}

static void test_no_such_pid(void **state)
{
	struct synth s;
	struct capture c;

	synth_init(&s, &c, 8, false);
	/* above any pid_max (at most 2^22) */
	assert_int_equal(synthesize__process(&s, INT_MAX, 0), -ESRCH);
	assert_int_equal(synthesize__process(&s, 0, 0), -ESRCH);
	/* a thread that is not ours */
	assert_int_equal(synthesize__process(&s, getpid(), INT_MAX), -ESRCH);
	assert_int_equal(c.nr, 0);
}

static void test_emit_error_stops(void **state)
{
	struct synth s;
	struct capture c;

	synth_init(&s, &c, 8, false);
	c.fail_after = 2; /* FORK, COMM, then the first MMAP2 fails */
	assert_int_equal(synthesize__process(&s, getpid(), 0), -ENOSPC);
	assert_int_equal(c.nr, 2);
	free(c.buf);

	synth_init(&s, &c, 8, false);
	c.fail_after = 3;
	assert_int_equal(synthesize__all(&s), -ENOSPC);
	assert_int_equal(c.nr, 3);
	free(c.buf);
}

static void test_bad_setup(void **state)
{
	struct synth s;
	struct capture c;

	synth_init(&s, &c, 12, false); /* not a multiple of 8 */
	assert_int_equal(synthesize__comm(&s, 1, 1, "x"), -EINVAL);
	synth_init(&s, &c, 8, false);
	s.emit = NULL;
	assert_int_equal(synthesize__process(&s, getpid(), 0), -EINVAL);
}

static void test_comm(void **state)
{
	struct synth s;
	struct capture c;
	struct t_comm *cm;

	synth_init(&s, &c, 16, false);
	assert_int_equal(synthesize__comm(&s, 42, 43, "perf-exec"), 0);
	cm = (void *)c.buf;
	assert_int_equal(cm->h.type, PERF_RECORD_COMM);
	assert_int_equal(cm->h.misc, 0);
	/* 8 header + 8 pid/tid + "perf-exec\0" padded to 16 + 16 trailer */
	assert_int_equal(cm->h.size, 48);
	assert_int_equal(cm->pid, 42);
	assert_int_equal(cm->tid, 43);
	assert_string_equal(cm->comm, "perf-exec");
	free(c.buf);

	/* the kernel's TASK_COMM_LEN: 15 characters */
	synth_init(&s, &c, 0, false);
	assert_int_equal(synthesize__comm(&s, 1, 1, "abcdefghijklmnopqrstuvwxyz"), 0);
	cm = (void *)c.buf;
	assert_string_equal(cm->comm, "abcdefghijklmno");
	assert_int_equal(cm->h.size, 32);
	free(c.buf);

	/* "1234567" + NUL is exactly 8: no extra padding word */
	synth_init(&s, &c, 0, false);
	assert_int_equal(synthesize__comm(&s, 1, 1, "1234567"), 0);
	assert_int_equal(((struct t_comm *)c.buf)->h.size, 24);
	free(c.buf);
}

/* ---- issue 23: --namespaces, --all-cgroups, --synth, --proc-map-timeout ---- */

struct t_ns {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t nr;
	struct { uint64_t dev, ino; } link[7];
};

static void test_namespaces(void **state)
{
	static const char *const names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };
	struct synth s;
	struct capture c;
	struct t_ns *r;
	pid_t me = getpid();

	(void)state;
	synth_init(&s, &c, 16, false);
	assert_int_equal(synthesize__namespaces(&s, me, me), 0);
	r = (void *)c.buf;
	assert_int_equal(r->h.type, PERF_RECORD_NAMESPACES);
	/* 8 header + 8 pid/tid + 8 nr + 7 x 16 + 16 trailer */
	assert_int_equal(r->h.size, 8 + 8 + 8 + 7 * 16 + 16);
	assert_int_equal(r->pid, me);
	assert_int_equal(r->nr, 7);
	/* the uapi's order, each the device and inode stat(2) gives */
	for (int i = 0; i < 7; i++) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/self/ns/%s", names[i]);
		if (stat(path, &st))
			continue;
		assert_int_equal(r->link[i].ino, st.st_ino);
		assert_int_equal(r->link[i].dev, st.st_dev);
	}
	assert_int_equal(s.nr_namespaces, 1);
	free(c.buf);
	synth_init(&s, &c, 0, false);
	assert_int_equal(synthesize__namespaces(&s, me, 0x7ffffff0), -ESRCH);
	assert_int_equal(c.nr, 0);
	free(c.buf);
}

static void test_cgroup(void **state)
{
	struct synth s;
	struct capture c;
	struct { struct perf_event_header h; uint64_t id; char path[]; } *r;

	(void)state;
	synth_init(&s, &c, 8, false);
	assert_int_equal(synthesize__cgroup(&s, 0x1234, "/perfcap/x"), 0);
	r = (void *)c.buf;
	assert_int_equal(r->h.type, PERF_RECORD_CGROUP);
	/* 8 header + 8 id + "/perfcap/x\0" padded to 16 + 8 trailer */
	assert_int_equal(r->h.size, 40);
	assert_int_equal(r->id, 0x1234);
	assert_string_equal(r->path, "/perfcap/x");
	free(c.buf);
}

/* Records of type t in c. */
static int count_type(struct capture *c, uint32_t t)
{
	int n = 0;

	for_each_rec(c, h)
		n += h->type == t;
	return n;
}

static void test_synth_kinds(void **state)
{
	struct synth s;
	struct capture c;
	pid_t me = getpid();

	(void)state;
	/* task without mmap: FORK and COMM, no MMAP2 */
	synth_init(&s, &c, 0, false);
	s.no_maps = true;
	assert_int_equal(synthesize__process(&s, me, me), 0);
	assert_int_equal(count_type(&c, PERF_RECORD_COMM), 1);
	assert_int_equal(count_type(&c, PERF_RECORD_FORK), 1);
	assert_int_equal(count_type(&c, PERF_RECORD_MMAP2), 0);
	free(c.buf);
	/* mmap without task: the maps only */
	synth_init(&s, &c, 0, false);
	s.no_tasks = true;
	assert_int_equal(synthesize__process(&s, me, me), 0);
	assert_int_equal(count_type(&c, PERF_RECORD_COMM), 0);
	assert_int_equal(count_type(&c, PERF_RECORD_FORK), 0);
	assert_true(count_type(&c, PERF_RECORD_MMAP2) > 0);
	free(c.buf);
	/* --namespaces: FORK, NAMESPACES, COMM, perf 6.1's order */
	synth_init(&s, &c, 0, false);
	s.namespaces = true;
	s.no_maps = true;
	assert_int_equal(synthesize__process(&s, me, me), 0);
	{
		struct perf_event_header *h = (void *)c.buf;

		assert_int_equal(h->type, PERF_RECORD_FORK);
		h = (void *)((uint8_t *)h + h->size);
		assert_int_equal(h->type, PERF_RECORD_NAMESPACES);
		h = (void *)((uint8_t *)h + h->size);
		assert_int_equal(h->type, PERF_RECORD_COMM);
	}
	free(c.buf);
}

static void test_map_timeout(void **state)
{
	struct synth s;
	struct capture c;
	int marked = 0, maps;

	(void)state;
	/* no time at all: the first map is marked and the rest left out, as perf's */
	synth_init(&s, &c, 0, false);
	s.map_timeout = true;
	s.map_timeout_ns = 0;
	assert_int_equal(synthesize__process(&s, getpid(), getpid()), 0);
	maps = count_type(&c, PERF_RECORD_MMAP2);
	for_each_rec(&c, h)
		marked += h->type == PERF_RECORD_MMAP2 &&
			  (h->misc & PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT);
	assert_int_equal(maps, 1);
	assert_int_equal(marked, 1);
	assert_int_equal(s.nr_map_timeouts, 1);
	free(c.buf);
	/* an hour is plenty: every map, none marked */
	synth_init(&s, &c, 0, false);
	s.map_timeout = true;
	s.map_timeout_ns = 3600ULL * 1000000000ULL;
	assert_int_equal(synthesize__process(&s, getpid(), getpid()), 0);
	assert_true(count_type(&c, PERF_RECORD_MMAP2) > 1);
	for_each_rec(&c, h)
		assert_false(h->misc & PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT);
	assert_int_equal(s.nr_map_timeouts, 0);
	free(c.buf);
}

/* ---- kernel ---- */

/* _text from /proc/kallsyms, read here with awk, not with our parser. */
static int kallsyms_sym(const char *sym, uint64_t *addr)
{
	char cmd[256], line[64];
	FILE *p;
	int ok;

	snprintf(cmd, sizeof(cmd),
		 "awk '$3 == \"%s\" && NF == 3 { print $1; exit }' /proc/kallsyms", sym);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	ok = fgets(line, sizeof(line), p) != NULL;
	pclose(p);
	if (!ok)
		return -1;
	*addr = strtoull(line, NULL, 16);
	return 0;
}

static void test_kernel_mmap(void **state)
{
	struct synth s;
	struct capture c;
	struct t_mmap *m;
	uint64_t text, etext;

	if (kallsyms_sym("_text", &text) || !text)
		skip(); /* no kallsyms, or kptr_restrict hides addresses (not root) */
	synth_init(&s, &c, 32, false);
	assert_int_equal(synthesize__kernel_mmap(&s), 0);
	assert_int_equal(c.nr, 1);
	m = (void *)c.buf;
	assert_int_equal(m->h.type, PERF_RECORD_MMAP);
	assert_int_equal(m->h.misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(m->pid, 0xffffffffu);
	assert_int_equal(m->tid, 0);
	assert_string_equal(m->filename, "[kernel.kallsyms]_text");
	check_name_padding(&m->h, m->filename, 32);
	/* the size perf 6.1 writes: 8 + 32 + 24 + trailer */
	assert_int_equal(m->h.size, 64 + 32);
	assert_int_equal(m->start, text);
	assert_int_equal(m->pgoff, text);
	if (kallsyms_sym("_etext", &etext) == 0)
		assert_int_equal(m->len, etext - text);
	else
		assert_true(m->len > 0);
	free(c.buf);
}

/*
 * The kernel's build id read here apart from build-id.c: the GNU note of
 * type 3 in /sys/kernel/notes (4-byte aligned name and desc). Its length
 * into id, or 0 when the file or the note is not there.
 */
static size_t kernel_notes_build_id(uint8_t *id)
{
	unsigned char buf[4096];
	size_t len = 0, off = 0;
	FILE *f = fopen("/sys/kernel/notes", "rb");

	if (f) {
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
	}
	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t name_off = off + 12, desc_off;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		desc_off = name_off + ((namesz + 3) & ~3u);
		if (desc_off + descsz > len)
			break;
		if (type == 3 && namesz == 4 && !memcmp(buf + name_off, "GNU", 4) &&
		    descsz <= BUILD_ID_MAX) {
			memcpy(id, buf + desc_off, descsz);
			return descsz;
		}
		off = desc_off + ((descsz + 3) & ~3u);
	}
	return 0;
}

static void test_kernel_mmap_build_id(void **state)
{
	struct synth s;
	struct capture c;
	struct t_mmap2 *m;
	struct build_id want;
	uint64_t text;

	uint8_t notes_id[BUILD_ID_MAX];
	size_t notes_len;

	if (kallsyms_sym("_text", &text) || !text)
		skip();
	/* A kernel built without a build id: a skip. With one, it must be found. */
	notes_len = kernel_notes_build_id(notes_id);
	if (!notes_len)
		skip();
	assert_int_equal(build_id__kernel(&want), 0);
	assert_int_equal(want.size, notes_len);
	assert_memory_equal(want.data, notes_id, notes_len);
	synth_init(&s, &c, 16, true);
	assert_int_equal(synthesize__kernel_mmap(&s), 0);
	m = (void *)c.buf;
	/* perf record --buildid-mmap: MMAP2, prot 0, flags 0, the id */
	assert_int_equal(m->h.type, PERF_RECORD_MMAP2);
	assert_int_equal(m->h.misc,
			 PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_MMAP_BUILD_ID);
	assert_int_equal(m->h.size, 112);
	assert_int_equal(m->pid, 0xffffffffu);
	assert_int_equal(m->start, text);
	assert_int_equal(m->u[0], want.size);
	assert_memory_equal(m->u + 4, want.data, want.size);
	assert_int_equal(m->prot, 0);
	assert_int_equal(m->flags, 0);
	assert_string_equal(m->filename, "[kernel.kallsyms]_text");
	free(c.buf);
}

static void test_kernel_text_parser(void **state)
{
	char path[] = "/tmp/perfcap-kallsyms.XXXXXX";
	uint64_t start, end;
	FILE *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("0000000000000000 A fixed_percpu_data\n"
	      "ffffffff81000000 T _stext\n"
	      "ffffffff81000000 T _text\n"
	      "ffffffff81001000 t some_function\n"
	      "ffffffff82276508 T _etext\n"
	      "ffffffffc0000000 t _etext\t[fake_module]\n", f);
	fclose(f);
	assert_int_equal(synthesize__kernel_text(path, &start, &end), 0);
	assert_int_equal(start, 0xffffffff81000000ULL);
	assert_int_equal(end, 0xffffffff82276508ULL);

	/* kptr_restrict: everything reads as 0 */
	f = fopen(path, "w");
	fputs("0000000000000000 T _stext\n0000000000000000 T _text\n", f);
	fclose(f);
	assert_int_equal(synthesize__kernel_text(path, &start, &end), -EPERM);

	f = fopen(path, "w");
	fputs("ffffffff81000000 T startup_64\n", f);
	fclose(f);
	assert_int_equal(synthesize__kernel_text(path, &start, &end), -ENOENT);
	unlink(path);
	assert_int_equal(synthesize__kernel_text(path, &start, &end), -ENOENT);
}

/* ---- /proc/modules ---- */

struct mod_seen {
	char name[3][64];
	uint64_t start[3], size[3];
	int nr;
	int stop_at;
};

static int mod_cb(void *arg, const char *name, uint64_t start, uint64_t size)
{
	struct mod_seen *m = arg;

	if (m->nr == m->stop_at)
		return -ECANCELED;
	assert_true(m->nr < 3);
	snprintf(m->name[m->nr], sizeof(m->name[0]), "%s", name);
	m->start[m->nr] = start;
	m->size[m->nr] = size;
	m->nr++;
	return 0;
}

static const char modules_fixture[] =
	"nf_tables 290816 0 - Live 0xffffffffc0a3e000\n"
	"kvm_intel 380928 0 - Live 0xffffffffc08f0000 (OE)\n"
	"kvm 1142784 1 kvm_intel, Loading 0xffffffffc0600000\n";

static void test_modules_parser(void **state)
{
	struct mod_seen m = { .stop_at = -1 };

	assert_int_equal(synthesize__parse_modules(modules_fixture, mod_cb, &m), 3);
	assert_int_equal(m.nr, 3);
	assert_string_equal(m.name[0], "nf_tables");
	assert_int_equal(m.start[0], 0xffffffffc0a3e000ULL);
	assert_int_equal(m.size[0], 290816);
	assert_string_equal(m.name[1], "kvm_intel");
	assert_int_equal(m.start[1], 0xffffffffc08f0000ULL);
	assert_string_equal(m.name[2], "kvm");
	assert_int_equal(m.start[2], 0xffffffffc0600000ULL);
	assert_int_equal(m.size[2], 1142784);

	/* no trailing newline, an empty text, a stop from the callback */
	memset(&m, 0, sizeof(m));
	m.stop_at = -1;
	assert_int_equal(synthesize__parse_modules(
				 "a 1 0 - Live 0x10", mod_cb, &m), 1);
	assert_int_equal(m.start[0], 0x10);
	assert_int_equal(synthesize__parse_modules("", mod_cb, &m), 0);
	memset(&m, 0, sizeof(m));
	m.stop_at = 1;
	assert_int_equal(synthesize__parse_modules(modules_fixture, mod_cb, &m),
			 -ECANCELED);
	assert_int_equal(synthesize__parse_modules("garbage\n", mod_cb, &m), -EINVAL);
}

static void test_modules_records(void **state)
{
	struct synth s;
	struct capture c;
	struct t_mmap *m;
	const char *want[] = { "nf_tables", "kvm_intel", "kvm" };
	uint64_t start[] = { 0xffffffffc0a3e000ULL, 0xffffffffc08f0000ULL,
			     0xffffffffc0600000ULL };
	uint64_t size[] = { 290816, 380928, 1142784 };
	int i = 0;

	synth_init(&s, &c, 16, false);
	assert_int_equal(synthesize__modules_text(&s, modules_fixture), 0);
	assert_int_equal(c.nr, 3);
	assert_int_equal(s.nr_mmap, 3);
	for_each_rec(&c, h) {
		char bracketed[80];

		m = (void *)h;
		assert_int_equal(h->type, PERF_RECORD_MMAP);
		assert_int_equal(h->misc, PERF_RECORD_MISC_KERNEL);
		assert_int_equal(m->pid, 0xffffffffu);
		assert_int_equal(m->tid, 0);
		assert_int_equal(m->start, start[i]);
		assert_int_equal(m->len, size[i]);
		assert_int_equal(m->pgoff, 0);
		check_name_padding(h, m->filename, 16);
		/* a path when the .ko is installed, else "[name]" */
		snprintf(bracketed, sizeof(bracketed), "[%s]", want[i]);
		if (m->filename[0] == '/')
			assert_non_null(strstr(m->filename, want[i] + 1));
		else
			assert_string_equal(m->filename, bracketed);
		i++;
	}
	free(c.buf);

	/* hidden addresses: skipped; a bad line: nothing at all */
	synth_init(&s, &c, 16, false);
	assert_int_equal(synthesize__modules_text(&s,
			 "a 4096 0 - Live 0x0000000000000000\n"), 0);
	assert_int_equal(c.nr, 0);
	assert_int_equal(synthesize__modules_text(&s,
			 "a 4096 0 - Live 0xffffffffc0000000\nbroken\n"), -EINVAL);
	assert_int_equal(c.nr, 0);
	free(c.buf);
}

static void test_modules_none_here(void **state)
{
	struct synth s;
	struct capture c;

	synth_init(&s, &c, 8, false);
	assert_int_equal(synthesize__modules(&s), 0);
	if (access("/proc/modules", F_OK))
		assert_int_equal(c.nr, 0); /* no modules: nothing, no error */
	for_each_rec(&c, h) {
		struct t_mmap *m = (void *)h;

		assert_int_equal(h->type, PERF_RECORD_MMAP);
		assert_int_equal(h->misc, PERF_RECORD_MISC_KERNEL);
		assert_int_equal(m->pid, 0xffffffffu);
		assert_true(m->filename[0] == '/' || m->filename[0] == '[');
	}
	free(c.buf);
}

/* ---- /proc/PID/maps lines ---- */

static void test_maps_parser(void **state)
{
	struct proc_map m;

	assert_int_equal(synthesize__parse_maps_line(
		"7f3a01a93000-7f3a01be9000 r-xp 00026000 fe:00 332835                     "
		"/usr/lib/x86_64-linux-gnu/libc.so.6\n", &m), 0);
	assert_int_equal(m.start, 0x7f3a01a93000ULL);
	assert_int_equal(m.end, 0x7f3a01be9000ULL);
	assert_int_equal(m.pgoff, 0x26000);
	assert_int_equal(m.maj, 0xfe);
	assert_int_equal(m.min, 0);
	assert_int_equal(m.ino, 332835);
	assert_string_equal(m.perms, "r-xp");
	assert_int_equal(m.name_len, strlen("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_memory_equal(m.name, "/usr/lib/x86_64-linux-gnu/libc.so.6", m.name_len);

	/* anonymous: no name at all */
	assert_int_equal(synthesize__parse_maps_line(
		"7f3a00a69000-7f3a01269000 rwxp 00000000 00:00 0 \n", &m), 0);
	assert_int_equal(m.name_len, 0);

	/* spaces in names, " (deleted)" kept, 64-bit offsets, minor > 9 */
	assert_int_equal(synthesize__parse_maps_line(
		"ffffffffff600000-ffffffffff601000 --xs 100000000 103:0a 7 "
		"  /tmp/a b/lib x.so (deleted)", &m), 0);
	assert_int_equal(m.start, 0xffffffffff600000ULL);
	assert_int_equal(m.pgoff, 0x100000000ULL);
	assert_int_equal(m.maj, 0x103);
	assert_int_equal(m.min, 0xa);
	assert_string_equal(m.perms, "--xs");
	assert_int_equal(m.name_len, strlen("/tmp/a b/lib x.so (deleted)"));

	assert_int_equal(synthesize__parse_maps_line("not a maps line\n", &m), -EINVAL);
	assert_int_equal(synthesize__parse_maps_line("", &m), -EINVAL);
}

/* An executable anonymous map shows up as //anon, shared as MAP_SHARED. */
static void test_anon_and_shared_maps(void **state)
{
	struct synth s;
	struct capture c;
	void *anon = mmap(NULL, 8192, PROT_READ | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *shared = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int found_anon = 0, found_shared = 0;

	skip_if_proc_is_the_emulators();
	assert_true(anon != MAP_FAILED && shared != MAP_FAILED);
	synth_init(&s, &c, 8, true);
	assert_int_equal(synthesize__process(&s, getpid(), getpid()), 0);
	for_each_rec(&c, h) {
		struct t_mmap2 *m = (void *)h;

		if (h->type != PERF_RECORD_MMAP2)
			continue;
		if (m->start == (uintptr_t)anon) {
			assert_string_equal(m->filename, "//anon");
			assert_int_equal(m->len, 8192);
			assert_int_equal(m->flags, MAP_PRIVATE);
			assert_int_equal(m->prot, PROT_READ | PROT_EXEC);
			/* no file, no build id */
			assert_int_equal(h->misc, PERF_RECORD_MISC_USER);
			found_anon++;
		}
		if (m->start == (uintptr_t)shared) {
			/* shared anonymous memory is "/dev/zero (deleted)" */
			assert_int_equal(m->flags, MAP_SHARED);
			assert_int_equal(h->misc, PERF_RECORD_MISC_USER);
			found_shared++;
		}
	}
	assert_int_equal(found_anon, 1);
	assert_int_equal(found_shared, 1);
	munmap(anon, 8192);
	munmap(shared, 4096);
	free(c.buf);
}

/* With mmap_data (dwarf call graphs), the read-only file maps come too. */
static void test_data_maps(void **state)
{
	struct synth s;
	struct capture c;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int exec_maps[2] = { 0, 0 }, data_maps[2] = { 0, 0 };

	skip_if_proc_is_the_emulators();
	assert_true(n > 0);
	exe[n] = 0;
	for (int with = 0; with < 2; with++) {
		synth_init(&s, &c, 8, false);
		s.mmap_data = with;
		assert_int_equal(synthesize__process(&s, getpid(), getpid()), 0);
		for_each_rec(&c, h) {
			struct t_mmap2 *m = (void *)h;

			if (h->type != PERF_RECORD_MMAP2 || strcmp(m->filename, exe))
				continue;
			if (m->prot & PROT_EXEC) {
				assert_false(h->misc & PERF_RECORD_MISC_MMAP_DATA);
				exec_maps[with]++;
			} else {
				assert_true(h->misc & PERF_RECORD_MISC_MMAP_DATA);
				data_maps[with]++;
			}
		}
		free(c.buf);
	}
	assert_int_equal(exec_maps[0], exec_maps[1]);
	assert_true(exec_maps[0] >= 1);
	assert_int_equal(data_maps[0], 0);
	/* the executable's read-only segments (.eh_frame_hdr lives there) */
	assert_true(data_maps[1] >= 1);
}

static void test_all(void **state)
{
	struct synth s;
	struct capture c;
	int self_comm_seen = 0, init_fork = 0;

	synth_init(&s, &c, 24, true);
	assert_int_equal(synthesize__all(&s), 0);
	assert_true(s.nr_comm >= 2);
	assert_int_equal(s.nr_comm, s.nr_fork);
	for_each_rec(&c, h) {
		if (h->type == PERF_RECORD_COMM &&
		    ((struct t_comm *)h)->tid == (uint32_t)getpid())
			self_comm_seen++;
		if (h->type == PERF_RECORD_FORK && ((struct t_fork *)h)->tid == 1)
			init_fork++;
	}
	assert_int_equal(self_comm_seen, 1);
	/* pid 1 exists in every pid namespace we might run in */
	assert_int_equal(init_fork, 1);
	free(c.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_self_build_id),
		cmocka_unit_test(test_self_no_trailer),
		cmocka_unit_test(test_thread_pid_only_tid),
		cmocka_unit_test(test_no_such_pid),
		cmocka_unit_test(test_emit_error_stops),
		cmocka_unit_test(test_bad_setup),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_kernel_mmap),
		cmocka_unit_test(test_kernel_mmap_build_id),
		cmocka_unit_test(test_kernel_text_parser),
		cmocka_unit_test(test_modules_parser),
		cmocka_unit_test(test_modules_records),
		cmocka_unit_test(test_modules_none_here),
		cmocka_unit_test(test_maps_parser),
		cmocka_unit_test(test_anon_and_shared_maps),
		cmocka_unit_test(test_data_maps),
		cmocka_unit_test(test_all),
		cmocka_unit_test(test_namespaces),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_synth_kinds),
		cmocka_unit_test(test_map_timeout),
	};

	return cmocka_run_group_tests_name("synthesize", tests, group_setup,
					   group_teardown);
}
