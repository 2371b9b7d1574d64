/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's pipe format (perf record -o -): what a stream that has no
 * offsets carries in place of the file header, the attrs section and the
 * feature sections. As perf 6.1 writes it (checked against its own
 * stream, perf report -D):
 *
 *   u64 magic "PERFILE2", u64 size = 16        the pipe header
 *   HEADER_ATTR (64) per event                 attr (attr.size bytes) + its ids
 *   HEADER_FEATURE (80) per feature            u64 feat_id + the section's payload,
 *                                              unpadded (a record may end off 8)
 *   HEADER_FEATURE, feat_id HEADER_LAST_FEATURE  the end of the features (32 in 6.1)
 *   HEADER_TRACING_DATA (66), with tracepoints u32 size (the data's, padded to 8),
 *                                              u32 pad; the data and its padding
 *                                              follow the 16-byte record
 *   EVENT_UPDATE (78) NAME per event           the event's name (perf sends it in a
 *                                              pipe; EVENT_DESC names it too)
 *   HEADER_BUILD_ID (67) per entry of the       the kernel's and modules' build ids
 *   BUILD_ID feature                           (perfcap only: perf 6.1 sends none)
 *   then the synthesized records and the rings' data, as in a file.
 *
 * Features perf 6.1 does not send in a pipe: TRACING_DATA and BUILD_ID
 * (records of their own; user DSOs' build ids are in the MMAP2 records).
 * No HEADER_EVENT_TYPE (deprecated), and nothing at the end of the
 * stream: it ends where the data ends.
 */
#ifndef PERFCAP_PIPE_DATA_H
#define PERFCAP_PIPE_DATA_H

#include <stddef.h>

#include "format/features.h"
#include "io/output.h"
#include "util.h"

/* The 16-byte pipe header. */
#define PERF_PIPE_HEADER_SIZE 16

/* Event update type NAME (perf's PERF_EVENT_UPDATE__NAME). */
#define PIPE_EVENT_UPDATE_NAME 2

/*
 * Append the stream's start to sb: the pipe header and every record
 * listed above, for env's events and features. Returns 0 or -errno with
 * a message (-E2BIG: an event has more ids than one record holds).
 */
int pipe_data__build_start(const struct feature_env *env, struct strbuf *sb);

/*
 * Append one HEADER_ATTR record for ev (its attr and its ids) to sb; a
 * stream may carry more for the same attr, with ids added later (a CPU
 * whose events were opened again). 0, or -E2BIG with a message.
 */
int pipe_data__build_attr(struct strbuf *sb, const struct feature_event *ev);

/* One entry of an ID_INDEX record: which event, ring, CPU and thread an id is. */
struct id_index_entry {
	uint64_t id;
	uint64_t idx;		/* the ring's index (perf: the mmap's) */
	uint64_t cpu;		/* -1: any */
	uint64_t tid;		/* -1: every thread (system-wide) */
};

/*
 * Append one ID_INDEX record with nr entries to sb (both formats: it
 * goes into the data, and perf 6.1 wants its ids known, from the attr
 * section or an earlier HEADER_ATTR). perfcap writes one for a CPU's
 * events opened again after a hotplug, and perfcap loss reads the gap
 * from it. 0, or -E2BIG when nr entries do not fit one record.
 */
int pipe_data__build_id_index(struct strbuf *sb, const struct id_index_entry *e, size_t nr);

/* Build it and write it as the first bytes of out. 0 or -errno. */
int pipe_data__start(struct output *out, const struct feature_env *env);

#endif
