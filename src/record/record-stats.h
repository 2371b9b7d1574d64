/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the recorder saw go by: samples, what the kernel lost, first and
 * last sample time. Counted from each chunk as it is copied out of a
 * ring, so the summary line and SAMPLE_TIME cost no second pass.
 */
#ifndef PERFCAP_RECORD_STATS_H
#define PERFCAP_RECORD_STATS_H

#include <stddef.h>
#include <stdint.h>

struct record_stats {
	size_t time_off;	/* offset of the time field in a sample, 0 if none */
	uint64_t samples;
	uint64_t lost_records;	/* PERF_RECORD_LOST */
	uint64_t lost;		/* their lost counts, summed */
	uint64_t lost_samples;	/* PERF_RECORD_LOST_SAMPLES, summed */
	uint64_t throttles;
	uint64_t first_time, last_time;
	uint64_t bad;		/* records that did not parse (a bug if non-zero) */
};

/* sample_type decides where the time field of a sample is. */
void record_stats__init(struct record_stats *s, uint64_t sample_type);
/* Walk the whole records in buf. */
void record_stats__observe(struct record_stats *s, const void *buf, size_t len);
/* Add what another reader thread saw (src) into s. */
void record_stats__merge(struct record_stats *s, const struct record_stats *src);
/* Lost events, counting what both LOST and LOST_SAMPLES report only once. */
uint64_t record_stats__lost(const struct record_stats *s);

#endif
