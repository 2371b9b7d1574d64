// SPDX-License-Identifier: GPL-2.0
#include <linux/perf_event.h>
#include <string.h>

#include "perf-file.h"
#include "record/record-stats.h"
#include "util.h"

void record_stats__init(struct record_stats *s, uint64_t sample_type)
{
	size_t off = sizeof(struct perf_event_header);

	memset(s, 0, sizeof(*s));
	if (!(sample_type & PERF_SAMPLE_TIME))
		return;
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		off += 8;
	if (sample_type & PERF_SAMPLE_IP)
		off += 8;
	if (sample_type & PERF_SAMPLE_TID)
		off += 8;
	s->time_off = off;
}

void record_stats__observe(struct record_stats *s, const void *buf, size_t len)
{
	const char *p = buf, *end = p + len;

	while (p + sizeof(struct perf_event_header) <= end) {
		const struct perf_event_header *h = (const void *)p;
		uint64_t v;

		if (h->size < sizeof(*h) || p + h->size > end) {
			s->bad++;
			return;
		}
		switch (h->type) {
		case PERF_RECORD_SAMPLE:
			s->samples++;
			if (s->time_off && s->time_off + 8 <= h->size) {
				memcpy(&v, p + s->time_off, 8);
				if (!s->first_time || v < s->first_time)
					s->first_time = v;
				if (v > s->last_time)
					s->last_time = v;
			}
			break;
		case PERF_RECORD_AUXTRACE: /* hdr, u64 size, ...: size bytes of trace follow */
			if (h->size >= 16) {
				memcpy(&v, p + 8, 8);
				if (v > (uint64_t)(end - p - h->size)) {
					s->bad++;
					return;
				}
				p += v;
			}
			break;
		case PERF_RECORD_LOST: /* header, u64 id, u64 lost */
			s->lost_records++;
			if (h->size >= 24) {
				memcpy(&v, p + 16, 8);
				s->lost += v;
			}
			break;
		case PERF_RECORD_LOST_SAMPLES: /* header, u64 lost */
			if (h->size >= 16) {
				memcpy(&v, p + 8, 8);
				s->lost_samples += v;
			}
			break;
		case PERF_RECORD_THROTTLE:
			s->throttles++;
			break;
		}
		p += h->size;
	}
}

uint64_t record_stats__lost(const struct record_stats *s)
{
	/*
	 * The kernel counts one dropped sample twice: in its ring's lost
	 * count (-> PERF_RECORD_LOST) and in the event's (-> read_format
	 * LOST, which perf and perfcap turn into LOST_SAMPLES at the end).
	 */
	return MAX(s->lost, s->lost_samples);
}

void record_stats__merge(struct record_stats *s, const struct record_stats *src)
{
	s->samples += src->samples;
	s->lost_records += src->lost_records;
	s->lost += src->lost;
	s->lost_samples += src->lost_samples;
	s->throttles += src->throttles;
	s->bad += src->bad;
	if (src->first_time && (!s->first_time || src->first_time < s->first_time))
		s->first_time = src->first_time;
	if (src->last_time > s->last_time)
		s->last_time = src->last_time;
}
