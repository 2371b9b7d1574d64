/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For unit tests that build perf.data records by hand in a strbuf:
 * rec_begin() writes a header and returns where the record starts,
 * rec_end() patches its size once the body is added.
 */
#ifndef PERFCAP_TEST_RECORD_BUILDER_H
#define PERFCAP_TEST_RECORD_BUILDER_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

static inline size_t rec_begin(struct strbuf *sb, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };
	size_t off = sb->len;

	strbuf__add(sb, &h, sizeof(h));
	return off;
}

static inline void rec_end(struct strbuf *sb, size_t off)
{
	uint16_t size = sb->len - off;

	memcpy(sb->data + off + offsetof(struct perf_event_header, size), &size, sizeof(size));
}

#endif
