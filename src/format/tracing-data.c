// SPDX-License-Identifier: GPL-2.0
/*
 * The TRACING_DATA feature payload: what perf's trace-event reader
 * (format version "0.6") needs to decode the raw data of tracepoint
 * samples. Layout, checked byte for byte against a perf 6.1 recording:
 *
 *   u8[10]  0x17 0x08 0x44 "tracing"
 *   char[]  "0.6\0"
 *   u8      1 if big endian
 *   u8      sizeof(long)
 *   u32     page size
 *   "header_page\0"  u64 size + events/header_page
 *   "header_event\0" u64 size + events/header_event
 *   u32     number of ftrace event formats, each u64 size + format text
 *   u32     number of systems; per system: name NUL-terminated,
 *           u32 number of events, each u64 size + events/SYS/EV/format
 *   u32     size + kallsyms (perf 6.1 writes 0: readers use /proc/kallsyms
 *           through the kernel MMAP, not this copy)
 *   u32     size + printk_formats
 *   u64     size + saved_cmdlines
 *
 * All sizes are native-endian; the tracefs files report size 0 to stat(),
 * so every file is read whole before its size is written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if __has_include(<tracefs.h>)
#include <tracefs.h>
#define HAVE_LIBTRACEFS 1
#endif

#include "format/tracing-data.h"

#define TRACING_DATA_VERSION "0.6"

/* The tracefs mount point, mounting it if needed; NULL if there is none. */
static const char *tracing_dir(void)
{
#ifdef HAVE_LIBTRACEFS
	/* Mounts tracefs (or finds it under debugfs) when it is not yet. */
	return tracefs_tracing_dir();
#else
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/events", dirs[i]);
		if (!access(path, R_OK))
			return dirs[i];
	}
	return NULL;
#endif
}

/*
 * Append the whole of dir/name with its size in front (size_bytes = 4 or
 * 8). A missing file is written as size 0 when optional, else an error.
 */
static int add_file(struct strbuf *sb, const char *dir, const char *name,
		    int size_bytes, bool optional)
{
	char path[4096];
	char *buf = NULL;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	n = read_file(path, &buf);
	if (n < 0) {
		if (!optional) {
			pr_err("tracing data: cannot read %s: %s\n", path,
			       strerror((int)-n));
			return (int)n;
		}
		n = 0;
	}
	if (size_bytes == 4) {
		if ((uint64_t)n > UINT32_MAX) {
			free(buf);
			return -EFBIG;
		}
		strbuf__add_u32(sb, (uint32_t)n);
	} else {
		strbuf__add_u64(sb, (uint64_t)n);
	}
	strbuf__add(sb, buf ? buf : "", n);
	free(buf);
	return 0;
}

/* A tracepoint's system or event name must be one path component. */
static bool valid_name(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* Is (systems[i], events[i]) the first occurrence of that tracepoint? */
static bool first_tracepoint(int i, const char *const *systems,
			     const char *const *events)
{
	int j;

	for (j = 0; j < i; j++)
		if (!strcmp(systems[j], systems[i]) && !strcmp(events[j], events[i]))
			return false;
	return true;
}

static bool first_system(int i, const char *const *systems)
{
	int j;

	for (j = 0; j < i; j++)
		if (!strcmp(systems[j], systems[i]))
			return false;
	return true;
}

/* u32 count + one format per distinct event of system sys. */
static int add_system_events(struct strbuf *sb, const char *dir,
			     const char *sys, int nr,
			     const char *const *systems,
			     const char *const *events)
{
	uint32_t count = 0;
	char name[1024];
	int i, err;

	for (i = 0; i < nr; i++)
		if (!strcmp(systems[i], sys) && first_tracepoint(i, systems, events))
			count++;
	strbuf__add_u32(sb, count);
	for (i = 0; i < nr; i++) {
		if (strcmp(systems[i], sys) || !first_tracepoint(i, systems, events))
			continue;
		snprintf(name, sizeof(name), "events/%s/%s/format", sys, events[i]);
		err = add_file(sb, dir, name, 8, false);
		if (err)
			return err;
	}
	return 0;
}

int tracing_data__write(struct strbuf *sb, int nr, const char *const *systems,
			const char *const *events)
{
	static const char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	size_t start = sb->len;
	const char *dir;
	uint32_t nr_systems = 0;
	uint8_t b;
	long page;
	int i, err;

	if (nr <= 0)
		return -ENOENT;
	for (i = 0; i < nr; i++) {
		if (!valid_name(systems[i]) || !valid_name(events[i])) {
			pr_err("tracing data: bad tracepoint name '%s:%s'\n",
			       systems[i] ? systems[i] : "", events[i] ? events[i] : "");
			return -EINVAL;
		}
	}
	dir = tracing_dir();
	if (!dir) {
		pr_err("tracing data: tracefs is not mounted and cannot be mounted\n");
		return -ENOENT;
	}

	strbuf__add(sb, magic, sizeof(magic));
	strbuf__add(sb, TRACING_DATA_VERSION, sizeof(TRACING_DATA_VERSION));
	b = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	strbuf__add(sb, &b, 1);
	b = sizeof(long);
	strbuf__add(sb, &b, 1);
	page = sysconf(_SC_PAGESIZE);
	strbuf__add_u32(sb, page > 0 ? (uint32_t)page : 4096);

	strbuf__add(sb, "header_page", sizeof("header_page"));
	err = add_file(sb, dir, "events/header_page", 8, false);
	if (err)
		goto out_err;
	strbuf__add(sb, "header_event", sizeof("header_event"));
	err = add_file(sb, dir, "events/header_event", 8, false);
	if (err)
		goto out_err;

	/* ftrace's own events have a section of their own, without a name. */
	err = add_system_events(sb, dir, "ftrace", nr, systems, events);
	if (err)
		goto out_err;

	for (i = 0; i < nr; i++)
		if (strcmp(systems[i], "ftrace") && first_system(i, systems))
			nr_systems++;
	strbuf__add_u32(sb, nr_systems);
	for (i = 0; i < nr; i++) {
		if (!strcmp(systems[i], "ftrace") || !first_system(i, systems))
			continue;
		strbuf__add(sb, systems[i], strlen(systems[i]) + 1);
		err = add_system_events(sb, dir, systems[i], nr, systems, events);
		if (err)
			goto out_err;
	}

	/* kallsyms: perf 6.1 writes an empty copy. */
	strbuf__add_u32(sb, 0);
	err = add_file(sb, dir, "printk_formats", 4, true);
	if (err)
		goto out_err;
	err = add_file(sb, dir, "saved_cmdlines", 8, true);
	if (err)
		goto out_err;
	return 0;

out_err:
	sb->len = start;
	if (sb->data)
		sb->data[start] = 0;
	return err;
}
