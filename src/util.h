/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers every module uses: messages, a growable byte buffer,
 * whole-file reads. No system calls that matter for testing live here;
 * those are in sys.c.
 */
#ifndef PERFCAP_UTIL_H
#define PERFCAP_UTIL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* The struct that holds member ptr (of type, named member). */
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* -v raises it, -q sets it to -1: errors are always printed. */
extern int verbose;

void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *xzalloc(size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
/* s with whitespace stripped at both ends, in place. */
char *strim(char *s);
/*
 * The length (1-4) of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), or 0. Reads no
 * byte past a NUL.
 */
size_t utf8_len(const unsigned char *s);

/* A growable byte buffer; data is always NUL-terminated past len. */
struct strbuf {
	char *data;
	size_t len;
	size_t cap;
};

void strbuf__init(struct strbuf *sb);
void strbuf__exit(struct strbuf *sb);
void strbuf__reset(struct strbuf *sb);
void strbuf__grow(struct strbuf *sb, size_t extra);
void strbuf__add(struct strbuf *sb, const void *data, size_t len);
void strbuf__addz(struct strbuf *sb, size_t len); /* len zero bytes */
void strbuf__addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf__add_u32(struct strbuf *sb, uint32_t v);
void strbuf__add_u64(struct strbuf *sb, uint64_t v);
/* perf_header_string: u32 len (NUL included, padded to 64) + bytes. */
void strbuf__add_perf_string(struct strbuf *sb, const char *s);

/*
 * Read a whole (small, /proc or /sys) file into a NUL-terminated heap
 * buffer. Returns length >= 0 or -errno.
 */
ssize_t read_file(const char *path, char **out);
/* First line of a file, trailing newline stripped, or -errno. */
int read_line(const char *path, char *buf, size_t size);
/* A file holding one integer. */
int read_int(const char *path, long long *val);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t mono_ns(void);
/* The CLOCK_REALTIME deadline ns from now, for pthread_cond_timedwait(). */
void deadline_in(struct timespec *ts, uint64_t ns);
/*
 * A mutex that a real-time thread shares with SCHED_OTHER ones: priority
 * inheritance, so that a holder preempted by the workload runs at the
 * waiter's priority until it lets go. Falls back to a plain mutex.
 */
void mutex_init_pi(pthread_mutex_t *m);

#endif
