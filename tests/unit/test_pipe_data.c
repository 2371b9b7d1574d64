// SPDX-License-Identifier: GPL-2.0
/*
 * pipe-data.c: the start of a pipe-format stream, walked record by record
 * with perf 6.1's layouts (as its own perf record -o - writes them), then
 * read back by the reader.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf-file.h"
#include "format/pipe-data.h"
#include "read/reader.h"
#include "format/tracing-data.h"

#include "tmpdir.h"

static struct perf_event_attr attr_clock = {
	.type = PERF_TYPE_SOFTWARE,
	.config = PERF_COUNT_SW_CPU_CLOCK,
	.size = sizeof(struct perf_event_attr),
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		       PERF_SAMPLE_IDENTIFIER,
	.sample_id_all = 1,
};
static struct perf_event_attr attr_dummy = {
	.type = PERF_TYPE_SOFTWARE,
	.config = PERF_COUNT_SW_DUMMY,
	.size = sizeof(struct perf_event_attr),
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		       PERF_SAMPLE_IDENTIFIER,
	.sample_id_all = 1,
	.mmap = 1,
};
static const uint64_t ids_clock[] = { 101, 102 };
static const uint64_t ids_dummy[] = { 201, 202 };

static struct feature_event events[] = {
	{ &attr_clock, "cpu-clock", ids_clock, 2 },
	{ &attr_dummy, "dummy:u", ids_dummy, 2 },
};

static char *argv_[] = { "perfcap", "record", "-o", "-", NULL };

static void env_init(struct feature_env *env)
{
	memset(env, 0, sizeof(*env));
	env->argc = 4;
	env->argv = argv_;
	env->nr_events = 2;
	env->events = events;
}

struct seen {
	int attr, feature, last, update, build_id, tracing;
	int first_feature, prev_feature;
};

/* Walk the records after the 16-byte header, checking each one's layout. */
static void walk_start(const struct strbuf *sb, struct seen *s)
{
	size_t off = 16;

	memset(s, 0, sizeof(*s));
	s->first_feature = -1;
	s->prev_feature = -1;
	while (off < sb->len) {
		struct perf_event_header h;
		const char *p = sb->data + off;

		assert_true(sb->len - off >= sizeof(h));
		memcpy(&h, p, sizeof(h));
		assert_true(h.size >= sizeof(h) && h.size <= sb->len - off);
		switch (h.type) {
		case PERF_RECORD_HEADER_ATTR: {
			struct perf_event_attr a;
			uint64_t id;

			/* Every ATTR before anything else. */
			assert_int_equal(s->feature + s->last + s->update, 0);
			memcpy(&a, p + 8, sizeof(a));
			assert_int_equal(a.size, PERFCAP_ATTR_SIZE);
			assert_int_equal(h.size, 8 + PERFCAP_ATTR_SIZE + 2 * 8);
			memcpy(&id, p + 8 + PERFCAP_ATTR_SIZE + 8, 8);
			assert_int_equal(id, s->attr ? 202 : 102);
			assert_int_equal(a.config, s->attr ? PERF_COUNT_SW_DUMMY :
						 PERF_COUNT_SW_CPU_CLOCK);
			s->attr++;
			break;
		}
		case PERF_RECORD_HEADER_FEATURE: {
			uint64_t feat;

			assert_true(h.size >= 16);
			memcpy(&feat, p + 8, 8);
			if (feat == HEADER_LAST_FEATURE) {
				assert_int_equal(h.size, 16);
				s->last++;
				break;
			}
			assert_int_equal(s->last, 0);
			/* Not features in a pipe; the others in bit order. */
			assert_true(feat != HEADER_TRACING_DATA && feat != HEADER_BUILD_ID);
			assert_true((int)feat > s->prev_feature);
			if (s->first_feature < 0)
				s->first_feature = (int)feat;
			s->prev_feature = (int)feat;
			s->feature++;
			break;
		}
		case PERF_RECORD_EVENT_UPDATE: {
			uint64_t type, id;

			assert_int_equal(s->last, 1);
			assert_int_equal(h.size % 8, 0);
			memcpy(&type, p + 8, 8);
			memcpy(&id, p + 16, 8);
			assert_int_equal(type, PIPE_EVENT_UPDATE_NAME);
			if (s->update == 0) {
				/* perf's size for "cpu-clock": 40 + 10 rounded up to 8 */
				assert_int_equal(h.size, 56);
				assert_int_equal(id, 101);
				assert_string_equal(p + 24, "cpu-clock");
			} else {
				assert_int_equal(id, 201);
				assert_string_equal(p + 24, "dummy:u");
			}
			s->update++;
			break;
		}
		case PERF_RECORD_HEADER_BUILD_ID:
			assert_int_equal(s->update, 2);
			s->build_id++;
			break;
		case PERF_RECORD_HEADER_TRACING_DATA: {
			uint32_t size;

			assert_int_equal(h.size, 16);
			memcpy(&size, p + 8, 4);
			assert_int_equal(size % 8, 0);
			assert_true(size <= sb->len - off - 16);
			off += size; /* the data follows the record */
			s->tracing++;
			break;
		}
		default:
			fail_msg("record type %u in the stream's start", h.type);
		}
		off += h.size;
	}
	assert_int_equal(off, sb->len);
}

static void test_start_records(void **state)
{
	struct feature_env env;
	struct strbuf sb;
	struct seen s;
	uint64_t magic, size;

	env_init(&env);
	strbuf__init(&sb);
	assert_int_equal(pipe_data__build_start(&env, &sb), 0);
	memcpy(&magic, sb.data, 8);
	memcpy(&size, sb.data + 8, 8);
	assert_true(magic == PERF_MAGIC2);
	assert_int_equal(size, 16);
	walk_start(&sb, &s);
	assert_int_equal(s.attr, 2);
	assert_int_equal(s.first_feature, HEADER_HOSTNAME);
	assert_true(s.feature >= 10);
	assert_int_equal(s.last, 1);
	assert_int_equal(s.update, 2);
	assert_int_equal(s.tracing, 0);
	strbuf__exit(&sb);

	/* -B: no build ids at all. */
	env.no_buildid = true;
	strbuf__init(&sb);
	assert_int_equal(pipe_data__build_start(&env, &sb), 0);
	walk_start(&sb, &s);
	assert_int_equal(s.build_id, 0);
	strbuf__exit(&sb);
}

/* What the recorder writes, the reader reads: events, ids, names, features. */
static void test_reader_reads_start(void **state)
{
	struct feature_env env;
	struct strbuf sb;
	struct perf_reader r;
	void *buf;
	size_t len;
	int fd;

	env_init(&env);
	strbuf__init(&sb);
	assert_int_equal(pipe_data__build_start(&env, &sb), 0);
	fd = open(tpath("start.pipe"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, sb.data, sb.len), (ssize_t)sb.len);
	close(fd);
	assert_int_equal(perf_reader__open(&r, tpath("start.pipe")), 0);
	assert_true(r.is_pipe);
	assert_int_equal(r.nr_attrs, 2);
	assert_string_equal(r.attrs[0].name, "cpu-clock");
	assert_string_equal(r.attrs[1].name, "dummy:u");
	assert_int_equal(perf_reader__attr_of_id(&r, 202), 1);
	assert_true(perf_reader__has_feature(&r, HEADER_CMDLINE));
	assert_false(perf_reader__has_feature(&r, HEADER_BUILD_ID));
	assert_int_equal(perf_reader__read_feature(&r, HEADER_NRCPUS, &buf, &len), 0);
	assert_int_equal(len, 8);
	free(buf);
	perf_reader__close(&r);
	strbuf__exit(&sb);
}

/*
 * A tracepoint: one HEADER_TRACING_DATA record whose u32 is the data's
 * size padded to 8, then exactly the TRACING_DATA feature's bytes and
 * zeros up to that size (perf reads the data, then the padding, and
 * checks the sum against the u32).
 */

/* /proc/filesystems lists tracefs. */
static bool kernel_has_tracefs(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, "\ttracefs\n") != NULL;
	if (f)
		fclose(f);
	return found;
}

static void test_tracing_data_record(void **state)
{
	static const char *const sys[] = { "sched" }, *const ev[] = { "sched_switch" };
	struct feature_env env;
	struct strbuf sb, td;
	struct seen s;
	const char *p;
	uint32_t size;
	int fd, saved, err;

	env_init(&env);
	env.nr_tracepoints = 1;
	env.tp_system = sys;
	env.tp_event = ev;
	strbuf__init(&td);
	fflush(stderr);
	saved = dup(2);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 2);
	close(fd);
	err = tracing_data__write(&td, 1, sys, ev);
	dup2(saved, 2);
	close(saved);
	if (err) {
		strbuf__exit(&td);
		/*
		 * No tracefs in this kernel, or not root (who cannot mount it
		 * nor read the formats): what the machine lacks, a skip. Root
		 * on a kernel with tracefs: tracing-data mounts it, and its
		 * failure is a failure.
		 */
		assert_false(geteuid() == 0 && kernel_has_tracefs());
		skip();
	}
	strbuf__init(&sb);
	assert_int_equal(pipe_data__build_start(&env, &sb), 0);
	walk_start(&sb, &s);
	assert_int_equal(s.tracing, 1);
	p = memmem(sb.data, sb.len, "\x42\0\0\0\0\0\x10\0", 8); /* type 66, size 16 */
	assert_non_null(p);
	memcpy(&size, p + 8, 4);
	assert_int_equal(size, (td.len + 7) / 8 * 8);
	assert_memory_equal(p + 16, td.data, td.len);
	for (size_t i = td.len; i < size; i++)
		assert_int_equal(p[16 + i], 0);
	strbuf__exit(&sb);
	strbuf__exit(&td);
}

/* An event with more ids than a record holds is refused, not cut. */
static void test_too_many_ids(void **state)
{
	struct feature_env env;
	struct feature_event big = events[0];
	uint64_t *ids = calloc(9000, sizeof(*ids));
	struct strbuf sb;
	int fd, saved;

	env_init(&env);
	big.ids = ids;
	big.nr_ids = 9000;
	env.nr_events = 1;
	env.events = &big;
	strbuf__init(&sb);
	fflush(stderr);
	saved = dup(2);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 2);
	close(fd);
	assert_int_equal(pipe_data__build_start(&env, &sb), -E2BIG);
	dup2(saved, 2);
	close(saved);
	strbuf__exit(&sb);
	free(ids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_records),
		cmocka_unit_test(test_reader_reads_start),
		cmocka_unit_test(test_tracing_data_record),
		cmocka_unit_test(test_too_many_ids),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
