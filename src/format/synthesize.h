/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records for what existed before recording started, so that perf report
 * can name tasks and symbols: COMM/FORK/MMAP2 from /proc, the kernel's
 * map and the modules' maps. Each record goes to s->emit() whole.
 *
 * Conventions (checked against perf 6.1's own synthesized records):
 * - every record ends with a zero-filled sample_id trailer of
 *   id_hdr_size bytes, counted in header.size; sizes are multiples of 8;
 * - FORK: misc PERF_RECORD_MISC_FORK_EXEC, time 0; the leader gets
 *   ppid = ptid = PPid from /proc/PID/status, other threads get
 *   ppid = ptid = the leader (as if the leader spawned them);
 * - COMM: misc 0, pid = tgid, comm cut to 15 characters + NUL;
 * - MMAP2 of the leader only (pid = tid = tgid), executable maps only,
 *   misc USER, prot from "rwx", flags MAP_SHARED / MAP_PRIVATE;
 *   unnamed maps "//anon" (hugetlbfs ones too, with MAP_HUGETLB);
 * - kernel: MMAP misc KERNEL, pid -1, tid 0, start = pgoff = _text,
 *   len = _etext - _text, "[kernel.kallsyms]_text". With mmap_build_id
 *   the kernel and modules get MMAP2s carrying their build ids
 *   (prot 0, flags 0), as perf record --buildid-mmap writes them.
 */
#ifndef PERFCAP_SYNTHESIZE_H
#define PERFCAP_SYNTHESIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Largest sample_id trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
#define SYNTH_ID_HDR_MAX 48

struct synth {
	/*
	 * Size of the sample_id trailer every non-sample record carries
	 * (attr.sample_id_all); synthesized records get it zero-filled.
	 * A multiple of 8, at most SYNTH_ID_HDR_MAX.
	 */
	size_t id_hdr_size;
	/* Put build ids (from the ELF notes) into MMAP2 records. */
	bool mmap_build_id;
	/*
	 * Also the file maps that are not executable (misc MMAP_DATA), as
	 * perf does with --call-graph dwarf: the unwinder reads .eh_frame_hdr
	 * from a read-only segment of the binary.
	 */
	bool mmap_data;
	/*
	 * Required: takes one whole record (len % 8 == 0; rec is valid
	 * only during the call); returns 0 or -errno, which stops the
	 * synthesis and is returned.
	 */
	int (*emit)(struct synth *s, const void *rec, size_t len);
	void *priv;
	/* --namespaces: a NAMESPACES record for each thread, after its FORK. */
	bool namespaces;
	/* --synth without task or mmap: no FORK/COMM, or no MMAP2, from /proc. */
	bool no_tasks, no_maps;
	/*
	 * --proc-map-timeout: a process's maps are read for at most this
	 * long; the map where it ran out says so (misc PROC_MAP_PARSE_TIMEOUT,
	 * which perf report counts in a warning) and the rest are left out.
	 * Only with map_timeout (perf always has one: 500 ms by default).
	 */
	bool map_timeout;
	uint64_t map_timeout_ns;
	bool map_timed_out;	/* set for the one record that carries the mark */
	unsigned long nr_map_timeouts;
	/* Counters, for messages and tests. */
	unsigned long nr_comm, nr_fork, nr_mmap, nr_namespaces, nr_cgroup;
};

/* perf's misc bit for a map whose reading timed out */
#ifndef PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT
#define PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT (1 << 12)
#endif

/* PERF_RECORD_NAMESPACES of one thread, from /proc/PID/task/TID/ns. 0, -ESRCH if gone. */
int synthesize__namespaces(struct synth *s, pid_t pid, pid_t tid);
/* PERF_RECORD_CGROUP: a cgroup's id and its path below the mount point ("/" the root). */
int synthesize__cgroup(struct synth *s, uint64_t id, const char *path);

/*
 * PERF_RECORD_MMAP for [kernel.kallsyms]_text (from /proc/kallsyms).
 * -EPERM (with a message) when kallsyms hides addresses.
 */
int synthesize__kernel_mmap(struct synth *s);
/*
 * PERF_RECORD_MMAP per loaded module (/proc/modules); 0 if none. The
 * name is the module's .ko under /lib/modules/$(uname -r), else
 * "[name]"; start and len as /proc/modules says, pgoff 0.
 */
int synthesize__modules(struct synth *s);
/* The same from /proc/modules text already read (and for tests). */
int synthesize__modules_text(struct synth *s, const char *text);
/*
 * One process: FORK + COMM for every thread (only the leader and
 * only_tid when only_tid > 0), MMAP2 of its executable maps. pid may
 * be any thread of the process. -ESRCH if it (or only_tid) does not
 * exist; threads that exit while being read are skipped.
 */
int synthesize__process(struct synth *s, pid_t pid, pid_t only_tid);
/*
 * Every process in /proc (system-wide recording). Processes that exit
 * while being read are skipped.
 */
int synthesize__all(struct synth *s);
/* The COMM a workload gets before exec ("perf-exec" in perf). */
int synthesize__comm(struct synth *s, pid_t pid, pid_t tid, const char *comm);

/* Parsers, separate so that they can be tested on fixed text. */

/*
 * /proc/modules text: cb(arg, name, start, size) per module, in file
 * order (cb may be NULL: just count); a non-zero return of cb stops
 * and is returned. Returns the number of modules, or -EINVAL on a
 * malformed line.
 */
int synthesize__parse_modules(const char *text,
			      int (*cb)(void *arg, const char *name,
					uint64_t start, uint64_t size),
			      void *arg);

/* One line of /proc/PID/maps. */
struct proc_map {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min;
	char perms[5];	    /* "r-xp" */
	const char *name;   /* into the line; "" for anonymous maps */
	size_t name_len;    /* up to the line's end, " (deleted)" kept */
};

/* 0, or -EINVAL when the line is not a maps line. */
int synthesize__parse_maps_line(const char *line, struct proc_map *m);

/*
 * _text and _etext from a kallsyms file (end = 0 if no _etext).
 * -ENOENT without _text, -EPERM when addresses read as 0.
 */
int synthesize__kernel_text(const char *kallsyms, uint64_t *start,
			    uint64_t *end);

/*
 * Module name -> its file: the .ko (optionally .xz/.gz/.zst) under
 * /lib/modules/RELEASE whose base name matches, '-' read as '_', the
 * smallest path winning. The module's MMAP record and its BUILD_ID entry
 * must name the same file, so both use this.
 */
struct modpath {
	char *name; /* '-' folded to '_', as /proc/modules spells it */
	char *path;
};

struct modpaths {
	struct modpath *v;
	size_t nr, cap;
};

void modpaths__init(struct modpaths *mp);
/* NULL when the module has no file there (then perf names it "[name]"). */
const char *modpaths__find(const struct modpaths *mp, const char *name);
void modpaths__exit(struct modpaths *mp);

#endif
