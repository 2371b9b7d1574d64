/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf.data file layout: header at offset 0, the id arrays and the
 * attrs after it, the data section, then the feature table and payloads.
 * All of it is written through the output's offset allocator.
 */
#ifndef PERFCAP_PERF_DATA_H
#define PERFCAP_PERF_DATA_H

#include <linux/perf_event.h>
#include <stdint.h>

#include "format/features.h"
#include "io/output.h"
#include "perf-file.h"

struct perf_data_attr {
	const struct perf_event_attr *attr;
	const uint64_t *ids;
	int nr_ids;
};

struct perf_data {
	struct output *out;
	int nr_attrs;
	struct perf_data_attr *attrs;
	struct perf_file_header header;
	uint64_t data_offset;
	uint64_t start_ids;	/* the ids the start's attr section has room for */
};

/*
 * Reserve and write the file's start: a header with no data and no
 * features yet (so a reader sees a valid, empty file), the id arrays and
 * the attrs. Sets out->data_offset: the data section starts after them.
 */
int perf_data__start(struct perf_data *pd, struct output *out,
		     const struct perf_data_attr *attrs, int nr_attrs);

/*
 * After every data write has finished: write the feature sections after
 * the data and rewrite the header with the final sizes. When the output
 * failed, keep only what is durable and write no features, so the file
 * still opens. Returns 0 or -errno.
 */
int perf_data__finish(struct perf_data *pd, const struct feature_env *env);

/* Build the header+ids+attrs blob (also used by tests). */
void perf_data__build_start(const struct perf_data_attr *attrs, int nr_attrs,
			    struct strbuf *sb, struct perf_file_header *hdr);

#endif
