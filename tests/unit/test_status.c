// SPDX-License-Identifier: GPL-2.0
/*
 * status.c: the live status line's text, its modes and its rate
 * limiting, on a clock the test drives, into a memory stream.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/status.h"
#include "util.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
#define MB (1ULL << 20)

static void test_format(void **state)
{
	struct status_snapshot s = {
		.bytes_written = 123 * MB + MB / 2,
		.samples = 1234567,
		.lost = 1234,
		.ring_pct = 87,
		.ring_cpu = 3,
		.queue = 2,
	};
	char buf[256];
	int n;

	n = status__format(buf, sizeof(buf), 12500 * MS, &s, 45.6 * MB);
	assert_string_equal(buf, "perfcap 12.5 s  123.5 MB  45.6 MB/s  1.23M samples  "
				 "lost 1234 (0.10%)  ring 87% cpu 3  queue 2");
	assert_int_equal(n, strlen(buf));

	/* nothing yet: no rate, no share, a ring not tied to a CPU */
	memset(&s, 0, sizeof(s));
	s.ring_cpu = -1;
	status__format(buf, sizeof(buf), 0, &s, -1);
	assert_string_equal(buf, "perfcap 0.0 s  0.0 MB  - MB/s  0 samples  lost 0 (0.00%)  "
				 "ring 0%  queue 0");

	/* counts shorten; the share is of lost + samples; a fill over 100 is 100 */
	s.samples = 30000;
	s.lost = 10000;
	s.ring_pct = 250;
	status__format(buf, sizeof(buf), 3 * SEC, &s, 0);
	assert_non_null(strstr(buf, " 30.0k samples  lost 10.0k (25.00%)  ring 100%  "));
	s.samples = 12345678901ULL;
	status__format(buf, sizeof(buf), 3 * SEC, &s, 0);
	assert_non_null(strstr(buf, " 12.35G samples "));
	s.samples = 98765432;
	status__format(buf, sizeof(buf), 3 * SEC, &s, 0);
	assert_non_null(strstr(buf, " 98.8M samples "));
	s.samples = 123456;
	status__format(buf, sizeof(buf), 3 * SEC, &s, 0);
	assert_non_null(strstr(buf, " 123k samples "));

	/* too small a buffer: cut, terminated, the full length returned */
	n = status__format(buf, 10, 0, &s, 0);
	assert_int_equal(strlen(buf), 9);
	assert_true(n > 60);
}

static void test_mode(void **state)
{
	uint64_t ns = 0;

	assert_int_equal(status__mode(false, true, 0), STATUS_TTY);
	assert_int_equal(status__mode(true, true, 0), STATUS_OFF);	/* -q */
	assert_int_equal(status__mode(false, false, 0), STATUS_OFF);	/* a pipe, a file */
	assert_int_equal(status__mode(false, false, SEC), STATUS_LINES);
	assert_int_equal(status__mode(true, true, SEC), STATUS_LINES);	/* asked for */

	assert_int_equal(status__parse_interval("2", &ns), 0);
	assert_int_equal(ns, 2 * SEC);
	assert_int_equal(status__parse_interval("0.5", &ns), 0);
	assert_int_equal(ns, 500 * MS);
	assert_int_equal(status__parse_interval("0.1", &ns), 0);
	assert_int_equal(ns, 100 * MS);
	assert_int_equal(status__parse_interval("0.05", &ns), -EINVAL);
	assert_int_equal(status__parse_interval("0", &ns), -EINVAL);
	assert_int_equal(status__parse_interval("-1", &ns), -EINVAL);
	assert_int_equal(status__parse_interval("1s", &ns), -EINVAL);
	assert_int_equal(status__parse_interval("", &ns), -EINVAL);
	assert_int_equal(status__parse_interval("nan", &ns), -EINVAL);
	assert_int_equal(status__parse_interval("1e9", &ns), -EINVAL);
	assert_int_equal(status__parse_interval(NULL, &ns), -EINVAL);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/* On a terminal: at most one line per half second, rewritten in place. */
static void test_tty_rate_limit(void **state)
{
	struct status_snapshot s = { .ring_cpu = -1 };
	struct status st;
	char *out = NULL;
	size_t len = 0, printed = 0, before;
	FILE *f = open_memstream(&out, &len);
	uint64_t t0 = 1000 * SEC;

	status__init(&st, STATUS_TTY, 5 * SEC, t0);	/* the interval is ignored */
	assert_int_equal(st.interval_ns, STATUS_TTY_INTERVAL_NS);
	/* 3 s of a loop calling every millisecond, writing 1 MB per 10 ms */
	for (uint64_t t = t0; t <= t0 + 3 * SEC; t += MS) {
		s.bytes_written = (t - t0) / (10 * MS) * MB;
		s.samples = (t - t0) / MS;
		printed += status__tick(&st, t, &s, f);
	}
	fflush(f);
	assert_int_equal(printed, 6);	/* at 0.5, 1.0, ..., 3.0 s */
	assert_int_equal(st.lines, 6);
	assert_int_equal(count(out, "\r"), 6);
	assert_int_equal(count(out, "\033[K"), 6);
	assert_null(strchr(out, '\n'));
	/* the last one: 3 s, 300 MB, 100 MB/s over the last half second */
	assert_non_null(strstr(out, "\rperfcap 3.0 s  300.0 MB  100.0 MB/s  3000 samples  "));
	assert_non_null(strstr(out, "\rperfcap 0.5 s  50.0 MB  100.0 MB/s  500 samples  "));

	/* the end erases the line; a second end adds nothing */
	before = len;
	status__end(&st, f);
	status__end(&st, f);
	fflush(f);
	assert_string_equal(out + before, "\r\033[K");
	fclose(f);
	free(out);
}

/* A line never wraps on a terminal of known width. */
static void test_tty_columns(void **state)
{
	struct status_snapshot s = { .samples = 5, .ring_cpu = 12, .ring_pct = 50 };
	struct status st;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	status__init(&st, STATUS_TTY, 0, 0);
	st.columns = 40;
	assert_true(status__tick(&st, SEC, &s, f));
	fflush(f);
	/* "\r" + 39 characters + "\033[K" */
	assert_int_equal(len, 1 + 39 + 3);
	assert_memory_equal(out, "\rperfcap 1.0 s  0.0 MB  0.0 MB/s  5 samp\033[K", len);
	fclose(f);
	free(out);
}

/* --status=SECONDS: one line per interval; a late loop gets one line, not a burst. */
static void test_lines_interval(void **state)
{
	struct status_snapshot s = { .ring_cpu = -1 };
	struct status st;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	status__init(&st, STATUS_LINES, 2 * SEC, 0);
	assert_false(status__tick(&st, 0, &s, f));
	assert_false(status__tick(&st, 2 * SEC - 1, &s, f));
	assert_true(status__tick(&st, 2 * SEC, &s, f));
	assert_false(status__tick(&st, 3 * SEC, &s, f));
	/* the loop was away 10 s: one line now, the next 2 s later */
	s.bytes_written = 20 * MB;
	assert_true(status__tick(&st, 12 * SEC, &s, f));
	assert_false(status__tick(&st, 13 * SEC, &s, f));
	assert_false(status__tick(&st, 14 * SEC - 1, &s, f));
	assert_true(status__tick(&st, 14 * SEC, &s, f));
	status__end(&st, f);	/* nothing to erase in a log */
	fflush(f);
	assert_int_equal(count(out, "\n"), 3);
	assert_null(strchr(out, '\r'));
	assert_null(strchr(out, '\033'));
	/* 20 MB in the 10 s since the last line */
	assert_non_null(strstr(out, "perfcap 12.0 s  20.0 MB  2.0 MB/s  "));
	assert_non_null(strstr(out, "perfcap 14.0 s  20.0 MB  0.0 MB/s  "));
	fclose(f);
	free(out);

	/* no interval given: one a second */
	status__init(&st, STATUS_LINES, 0, 0);
	assert_int_equal(st.interval_ns, SEC);
}

static void test_off_prints_nothing(void **state)
{
	struct status_snapshot s = { .ring_cpu = -1 };
	struct status st;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	status__init(&st, STATUS_OFF, 0, 0);
	for (uint64_t t = 0; t < 10 * SEC; t += 100 * MS)
		assert_false(status__tick(&st, t, &s, f));
	status__end(&st, f);
	fflush(f);
	assert_int_equal(len, 0);
	fclose(f);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_tty_rate_limit),
		cmocka_unit_test(test_tty_columns),
		cmocka_unit_test(test_lines_interval),
		cmocka_unit_test(test_off_prints_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
