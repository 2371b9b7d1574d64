// SPDX-License-Identifier: GPL-2.0
/*
 * TRACING_DATA payload: perf's trace-event format 0.6. A reader here
 * walks the whole structure and must land exactly on the end; the format
 * files must be the ones tracefs has. Needs a readable tracefs (root):
 * skipped, with the reason, where there is none.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cursor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/tracing-data.h"
#include "util.h"

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

/* Contents of a tracefs file, or NULL (the caller skips). */
static char *tracefs_file(const char *name, ssize_t *len)
{
	char path[512], *buf;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tracefs_dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", tracefs_dirs[i], name);
		*len = read_file(path, &buf);
		if (*len >= 0)
			return buf;
	}
	return NULL;
}

/*
 * Write the payload for the given tracepoints; skip the test when this
 * machine cannot (no tracefs, not root, tracepoint absent).
 */
static void write_or_skip(struct strbuf *sb, int nr, const char *const *sys,
			  const char *const *ev)
{
	char name[256];
	ssize_t len;
	int i, err;

	for (i = 0; i < nr; i++) {
		char *buf;

		snprintf(name, sizeof(name), "events/%s/%s/format", sys[i], ev[i]);
		buf = tracefs_file(name, &len);
		if (!buf) {
			/* tracefs_tracing_dir() may mount it: try once more after */
			strbuf__init(sb);
			err = tracing_data__write(sb, nr, sys, ev);
			strbuf__exit(sb);
			buf = tracefs_file(name, &len);
			if (!buf) {
				print_message("skip: tracefs format %s is not readable "
					      "(no tracefs, or not root)\n", name);
				skip();
			}
		}
		free(buf);
	}
	strbuf__init(sb);
	err = tracing_data__write(sb, nr, sys, ev);
	assert_int_equal(err, 0);
}

/* A u64-sized file whose text must equal tracefs' name. */
static void expect_file(struct cur *c, const char *name)
{
	uint64_t size = get_u64(c);
	ssize_t len;
	char *want = tracefs_file(name, &len);

	assert_non_null(want);
	assert_int_equal(size, len);
	assert_true(size <= c->left);
	assert_memory_equal(c->p, want, size);
	take(c, NULL, size);
	free(want);
}

struct walked {
	int nr_systems;
	char systems[8][64];
	int nr_events[8];
	char events[8][8][64];	/* "name:" lines of the embedded formats */
};

/* Walk a whole payload; records which systems and events it holds. */
static void walk(const struct strbuf *sb, struct walked *w)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct cur c = { sb->data, sb->len };
	unsigned char b[2];
	uint32_t n, i, j;
	uint64_t size;

	memset(w, 0, sizeof(*w));
	assert_true(c.left > sizeof(magic));
	assert_memory_equal(c.p, magic, sizeof(magic));
	take(&c, NULL, sizeof(magic));
	assert_string_equal(get_cstr(&c), "0.6");
	take(&c, b, 2);
	assert_int_equal(b[0], __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	assert_int_equal(b[1], sizeof(long));
	assert_int_equal(get_u32(&c), sysconf(_SC_PAGESIZE));

	assert_string_equal(get_cstr(&c), "header_page");
	expect_file(&c, "events/header_page");
	assert_string_equal(get_cstr(&c), "header_event");
	expect_file(&c, "events/header_event");

	n = get_u32(&c);	/* ftrace formats */
	for (i = 0; i < n; i++) {
		size = get_u64(&c);
		take(&c, NULL, size);
	}

	n = get_u32(&c);
	assert_true(n <= 8);
	w->nr_systems = n;
	for (i = 0; i < n; i++) {
		uint32_t nev;

		snprintf(w->systems[i], sizeof(w->systems[i]), "%s", get_cstr(&c));
		nev = get_u32(&c);
		assert_true(nev <= 8);
		w->nr_events[i] = nev;
		for (j = 0; j < nev; j++) {
			char name[64];
			const char *text;

			size = get_u64(&c);
			assert_true(size <= c.left);
			text = (const char *)c.p;
			assert_int_equal(sscanf(text, "name: %63s", name), 1);
			snprintf(w->events[i][j], sizeof(w->events[i][j]), "%s", name);
			take(&c, NULL, size);
		}
	}

	size = get_u32(&c);	/* kallsyms: empty, as perf 6.1 */
	assert_int_equal(size, 0);
	size = get_u32(&c);	/* printk formats */
	take(&c, NULL, size);
	size = get_u64(&c);	/* saved cmdlines */
	take(&c, NULL, size);
	assert_int_equal(c.left, 0);
}

static void test_sched_switch(void **state)
{
	const char *sys[] = { "sched" }, *ev[] = { "sched_switch" };
	char *want;
	ssize_t len;
	struct strbuf sb;
	struct walked w;

	write_or_skip(&sb, 1, sys, ev);
	walk(&sb, &w);
	assert_int_equal(w.nr_systems, 1);
	assert_string_equal(w.systems[0], "sched");
	assert_int_equal(w.nr_events[0], 1);
	assert_string_equal(w.events[0][0], "sched_switch");

	/* the format text itself is in there, with its size before it */
	want = tracefs_file("events/sched/sched_switch/format", &len);
	assert_non_null(want);
	{
		char *at = memmem(sb.data, sb.len, want, len);
		uint64_t size;

		assert_non_null(at);
		memcpy(&size, at - 8, 8);
		assert_int_equal(size, len);
	}
	free(want);
	strbuf__exit(&sb);
}

static void test_systems_and_duplicates(void **state)
{
	const char *sys[] = { "sched", "sched", "irq", "sched" };
	const char *ev[] = { "sched_switch", "sched_wakeup", "irq_handler_entry", "sched_switch" };
	struct strbuf sb;
	struct walked w;

	write_or_skip(&sb, 4, sys, ev);
	walk(&sb, &w);
	assert_int_equal(w.nr_systems, 2);
	assert_string_equal(w.systems[0], "sched");
	assert_int_equal(w.nr_events[0], 2);	/* the duplicate once */
	assert_string_equal(w.events[0][0], "sched_switch");
	assert_string_equal(w.events[0][1], "sched_wakeup");
	assert_string_equal(w.systems[1], "irq");
	assert_int_equal(w.nr_events[1], 1);
	assert_string_equal(w.events[1][0], "irq_handler_entry");
	strbuf__exit(&sb);
}

static void test_errors_leave_buffer(void **state)
{
	const char *sys[] = { "sched" }, *ev[] = { "sched_switch" };
	const char *bad_sys[] = { ".." }, *bad_ev[] = { "x/y" };
	const char *no_sys[] = { "sched" }, *no_ev[] = { "no_such_event_perfcap" };
	struct strbuf sb;

	strbuf__init(&sb);
	strbuf__add(&sb, "keep", 4);
	assert_int_equal(tracing_data__write(&sb, 0, sys, ev), -ENOENT);
	assert_int_equal(tracing_data__write(&sb, 1, bad_sys, ev), -EINVAL);
	assert_int_equal(tracing_data__write(&sb, 1, sys, bad_ev), -EINVAL);
	assert_int_equal(sb.len, 4);
	/* a tracepoint without a format: an error, and nothing half-written */
	assert_true(tracing_data__write(&sb, 1, no_sys, no_ev) < 0);
	assert_int_equal(sb.len, 4);
	assert_memory_equal(sb.data, "keep", 5);
	strbuf__exit(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_switch),
		cmocka_unit_test(test_systems_and_duplicates),
		cmocka_unit_test(test_errors_leave_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
