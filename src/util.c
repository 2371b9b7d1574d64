// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int verbose;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s", prefix);
	vfprintf(stderr, fmt, ap);
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("perfcap: ", fmt, ap);
	va_end(ap);
}

void pr_warn(const char *fmt, ...)
{
	va_list ap;

	if (verbose < 0)
		return;
	va_start(ap, fmt);
	vmsg("perfcap: warning: ", fmt, ap);
	va_end(ap);
}

void pr_info(const char *fmt, ...)
{
	va_list ap;

	if (verbose < 0)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void pr_debug(const char *fmt, ...)
{
	va_list ap;

	if (verbose < 1)
		return;
	va_start(ap, fmt);
	vmsg("perfcap: debug: ", fmt, ap);
	va_end(ap);
}

char *strim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

void *xzalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p) {
		pr_err("out of memory (%zu bytes)\n", size);
		abort();
	}
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p) {
		pr_err("out of memory (%zu bytes)\n", size);
		abort();
	}
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		pr_err("out of memory\n");
		abort();
	}
	return d;
}

void strbuf__init(struct strbuf *sb)
{
	sb->data = NULL;
	sb->len = sb->cap = 0;
}

void strbuf__exit(struct strbuf *sb)
{
	free(sb->data);
	strbuf__init(sb);
}

void strbuf__reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->data)
		sb->data[0] = 0;
}

void strbuf__grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->cap)
		return;
	sb->cap = MAX(need, sb->cap * 2);
	sb->data = xrealloc(sb->data, sb->cap);
}

void strbuf__add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf__grow(sb, len);
	/* memcpy's pointers must be valid even for 0 bytes: (NULL, 0) adds nothing. */
	if (len)
		memcpy(sb->data + sb->len, data, len);
	sb->len += len;
	sb->data[sb->len] = 0;
}

void strbuf__addz(struct strbuf *sb, size_t len)
{
	strbuf__grow(sb, len);
	memset(sb->data + sb->len, 0, len + 1);
	sb->len += len;
}

void strbuf__addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	strbuf__grow(sb, n);
	va_start(ap, fmt);
	vsnprintf(sb->data + sb->len, n + 1, fmt, ap);
	va_end(ap);
	sb->len += n;
}

void strbuf__add_u32(struct strbuf *sb, uint32_t v)
{
	strbuf__add(sb, &v, sizeof(v));
}

void strbuf__add_u64(struct strbuf *sb, uint64_t v)
{
	strbuf__add(sb, &v, sizeof(v));
}

void strbuf__add_perf_string(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t len = ALIGN_UP(n, 64);

	strbuf__add_u32(sb, len);
	strbuf__add(sb, s, n);
	strbuf__addz(sb, len - n);
}

ssize_t read_file(const char *path, char **out)
{
	struct strbuf sb;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	strbuf__init(&sb);
	strbuf__grow(&sb, 4096);
	for (;;) {
		ssize_t n = read(fd, sb.data + sb.len, sb.cap - sb.len - 1);

		if (n < 0) {
			err = -errno;
			if (err == -EINTR)
				continue;
			close(fd);
			strbuf__exit(&sb);
			return err;
		}
		if (n == 0)
			break;
		sb.len += n;
		strbuf__grow(&sb, 4096);
	}
	close(fd);
	sb.data[sb.len] = 0;
	*out = sb.data;
	return sb.len;
}

int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, size, f))
		err = -EIO;
	else
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
	return err;
}

int read_int(const char *path, long long *val)
{
	char buf[64], *end;
	int err = read_line(path, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*val = strtoll(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void deadline_in(struct timespec *ts, uint64_t ns)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += (time_t)(ns / 1000000000ULL);
	ts->tv_nsec += (long)(ns % 1000000000ULL);
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

void mutex_init_pi(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	if (pthread_mutexattr_init(&a) || pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT) ||
	    pthread_mutex_init(m, &a))
		pthread_mutex_init(m, NULL);
	pthread_mutexattr_destroy(&a);
}
