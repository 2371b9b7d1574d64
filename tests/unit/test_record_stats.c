// SPDX-License-Identifier: GPL-2.0
/* record-stats.c: what the recorder counts as chunks go by. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <string.h>

#include "record/record-stats.h"

static size_t put(char *buf, size_t off, uint32_t type, uint16_t size, const uint64_t *words, int n)
{
	struct perf_event_header h = { .type = type, .size = size };

	memset(buf + off, 0, size);
	memcpy(buf + off, &h, sizeof(h));
	memcpy(buf + off + sizeof(h), words, n * sizeof(uint64_t));
	return off + size;
}

static void test_counts_and_times(void **state)
{
	struct record_stats s;
	char buf[512];
	size_t len = 0;
	/* IDENTIFIER, IP, TID, TIME: time is the fourth u64 */
	uint64_t s1[] = { 7, 0x1000, 1, 300 }, s2[] = { 7, 0x1000, 1, 100 };
	uint64_t lost[] = { 7, 25 }, lost_samples[] = { 4 }, thr[] = { 99, 7, 0 };

	record_stats__init(&s, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU);
	assert_int_equal(s.time_off, 32);
	len = put(buf, len, PERF_RECORD_SAMPLE, 48, s1, 4);
	len = put(buf, len, PERF_RECORD_LOST, 40, lost, 2);
	len = put(buf, len, PERF_RECORD_SAMPLE, 48, s2, 4);
	len = put(buf, len, PERF_RECORD_LOST_SAMPLES, 24, lost_samples, 1);
	len = put(buf, len, PERF_RECORD_THROTTLE, 40, thr, 3);
	record_stats__observe(&s, buf, len);
	assert_int_equal(s.samples, 2);
	assert_int_equal(s.lost_records, 1);
	assert_int_equal(s.lost, 25);
	assert_int_equal(s.lost_samples, 4);
	assert_int_equal(s.throttles, 1);
	assert_int_equal(s.first_time, 100);
	assert_int_equal(s.last_time, 300);
	assert_int_equal(s.bad, 0);
	/* The same loss reported both ways counts once. */
	assert_int_equal(record_stats__lost(&s), 25);
}

static void test_time_offset_follows_sample_type(void **state)
{
	struct record_stats s;

	record_stats__init(&s, PERF_SAMPLE_IP | PERF_SAMPLE_TIME);
	assert_int_equal(s.time_off, 16);
	record_stats__init(&s, PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
	assert_int_equal(s.time_off, 16);
	record_stats__init(&s, PERF_SAMPLE_IP);
	assert_int_equal(s.time_off, 0);
}

static void test_bad_record_stops_the_walk(void **state)
{
	struct record_stats s;
	char buf[128];
	uint64_t w[] = { 1, 2 };
	struct perf_event_header past = { .type = PERF_RECORD_SAMPLE, .size = 200 };
	size_t len;

	record_stats__init(&s, PERF_SAMPLE_IP | PERF_SAMPLE_TIME);
	len = put(buf, 0, PERF_RECORD_SAMPLE, 24, w, 2);
	memcpy(buf + len, &past, sizeof(past)); /* says it runs past the end */
	record_stats__observe(&s, buf, 48);
	assert_int_equal(s.samples, 1);
	assert_int_equal(s.bad, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_and_times),
		cmocka_unit_test(test_time_offset_follows_sample_type),
		cmocka_unit_test(test_bad_record_stops_the_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
