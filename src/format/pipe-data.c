// SPDX-License-Identifier: GPL-2.0
/* perf's pipe format: the records that stand in for the header (pipe-data.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "perf-file.h"
#include "format/pipe-data.h"
#include "format/tracing-data.h"

/* A record's size is a u16. */
#define RECORD_MAX 65535

static void add_header(struct strbuf *sb, uint32_t type, size_t size)
{
	struct perf_event_header h = { .type = type, .size = (uint16_t)size };

	strbuf__add(sb, &h, sizeof(h));
}

static void add_zeros(struct strbuf *sb, size_t n)
{
	static const char zero[64];

	while (n) {
		size_t k = MIN(n, sizeof(zero));

		strbuf__add(sb, zero, k);
		n -= k;
	}
}

int pipe_data__build_attr(struct strbuf *sb, const struct feature_event *ev)
{
	struct perf_event_attr attr;
	char raw[PERFCAP_ATTR_SIZE] = { 0 };
	size_t size = sizeof(struct perf_event_header) + PERFCAP_ATTR_SIZE +
		      (size_t)ev->nr_ids * sizeof(uint64_t);

	if (size > RECORD_MAX) {
		pr_err("pipe output: event %s has %d ids, more than a pipe-format ATTR record "
		       "holds (%zu); record to a file instead\n", ev->name, ev->nr_ids,
		       (RECORD_MAX - sizeof(struct perf_event_header) - PERFCAP_ATTR_SIZE) / 8);
		return -E2BIG;
	}
	memcpy(&attr, ev->attr, sizeof(attr));
	attr.size = PERFCAP_ATTR_SIZE;
	memcpy(raw, &attr, MIN(sizeof(attr), sizeof(raw)));
	add_header(sb, PERF_RECORD_HEADER_ATTR, size);
	strbuf__add(sb, raw, sizeof(raw));
	if (ev->nr_ids)
		strbuf__add(sb, ev->ids, ev->nr_ids * sizeof(uint64_t));
	return 0;
}

int pipe_data__build_id_index(struct strbuf *sb, const struct id_index_entry *e, size_t nr)
{
	size_t size = sizeof(struct perf_event_header) + sizeof(uint64_t) + nr * sizeof(*e);

	if (size > RECORD_MAX)
		return -E2BIG;
	add_header(sb, PERF_RECORD_ID_INDEX, size);
	strbuf__add_u64(sb, nr);
	strbuf__add(sb, e, nr * sizeof(*e));
	return 0;
}

/* HEADER_FEATURE: header, u64 feat_id, the payload as in a file's section. */
static int add_feature(struct strbuf *sb, int feat, const void *payload, size_t len)
{
	size_t size = sizeof(struct perf_event_header) + sizeof(uint64_t) + len;

	if (size > RECORD_MAX) {
		pr_warn("pipe output: feature %d (%zu bytes) does not fit a record; not sent\n",
			feat, len);
		return 0;
	}
	add_header(sb, PERF_RECORD_HEADER_FEATURE, size);
	strbuf__add_u64(sb, (uint64_t)feat);
	strbuf__add(sb, payload, len);
	return 0;
}

/* Not features in a pipe (pipe-data.h): they go as records of their own. */
static bool not_in_pipe(int feat)
{
	return feat == HEADER_TRACING_DATA || feat == HEADER_BUILD_ID;
}

static void feature_record(void *sb, int feat, const void *payload, size_t len)
{
	add_feature(sb, feat, payload, len);
}

/*
 * EVENT_UPDATE NAME: header, u64 type, u64 id, the name. perf sizes it
 * as its struct (40 bytes, with a union) plus the name and its NUL,
 * rounded up to 8; so do we.
 */
static void add_event_name(struct strbuf *sb, const struct feature_event *ev)
{
	size_t len = strlen(ev->name) + 1, size = ALIGN_UP(40 + len, 8);

	if (!ev->nr_ids || size > RECORD_MAX)
		return;
	add_header(sb, PERF_RECORD_EVENT_UPDATE, size);
	strbuf__add_u64(sb, PIPE_EVENT_UPDATE_NAME);
	strbuf__add_u64(sb, ev->ids[0]);
	strbuf__add(sb, ev->name, len);
	add_zeros(sb, size - 24 - len);
}

/* HEADER_TRACING_DATA: a 16-byte record, then the data padded to 8. */
static int add_tracing_data(struct strbuf *sb, const struct feature_env *env)
{
	struct strbuf td;
	size_t padded;
	int err;

	strbuf__init(&td);
	err = tracing_data__write(&td, env->nr_tracepoints, env->tp_system, env->tp_event);
	if (err) {
		pr_err("pipe output: cannot read the tracepoints' formats: %s\n", strerror(-err));
		strbuf__exit(&td);
		return err;
	}
	padded = ALIGN_UP(td.len, 8);
	if (padded > UINT32_MAX) {
		strbuf__exit(&td);
		return -E2BIG;
	}
	add_header(sb, PERF_RECORD_HEADER_TRACING_DATA, 16);
	strbuf__add_u32(sb, (uint32_t)padded);
	strbuf__add_u32(sb, 0);
	strbuf__add(sb, td.data, td.len);
	add_zeros(sb, padded - td.len);
	strbuf__exit(&td);
	return 0;
}

/*
 * HEADER_BUILD_ID records: the entries of the BUILD_ID feature (at the
 * start, the kernel's and the modules'), each a record of its own. perf
 * 6.1 sends none in a pipe; perfcap does, so that a report elsewhere, or
 * after the kernel changed, knows which kernel it was. User DSOs carry
 * their ids in MMAP2 (as in perf's pipe).
 */
static void add_build_ids(struct strbuf *sb, const struct feature_env *env)
{
	struct strbuf ids;
	size_t off = 0;

	strbuf__init(&ids);
	if (feature__write(HEADER_BUILD_ID, env, &ids)) {
		strbuf__exit(&ids);
		return;
	}
	while (ids.len - off >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;

		memcpy(&h, ids.data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > ids.len - off)
			break;
		h.type = PERF_RECORD_HEADER_BUILD_ID;
		strbuf__add(sb, &h, sizeof(h));
		strbuf__add(sb, ids.data + off + sizeof(h), h.size - sizeof(h));
		off += h.size;
	}
	strbuf__exit(&ids);
}

int pipe_data__build_start(const struct feature_env *env, struct strbuf *sb)
{
	uint64_t magic = PERF_MAGIC2, size = PERF_PIPE_HEADER_SIZE;
	int err = 0;

	strbuf__add(sb, &magic, sizeof(magic));
	strbuf__add(sb, &size, sizeof(size));
	for (int i = 0; i < env->nr_events; i++) {
		err = pipe_data__build_attr(sb, &env->events[i]);
		if (err)
			return err;
	}
	features__each(env, not_in_pipe, feature_record, sb);
	add_feature(sb, HEADER_LAST_FEATURE, NULL, 0);
	if (env->nr_tracepoints > 0) {
		err = add_tracing_data(sb, env);
		if (err)
			return err;
	}
	for (int i = 0; i < env->nr_events; i++)
		add_event_name(sb, &env->events[i]);
	add_build_ids(sb, env);
	return 0;
}

int pipe_data__start(struct output *out, const struct feature_env *env)
{
	struct strbuf sb;
	int64_t off;
	int err;

	strbuf__init(&sb);
	err = pipe_data__build_start(env, &sb);
	if (!err) {
		off = output__write_copy(out, sb.data, sb.len);
		if (off < 0)
			err = (int)off;
		else if (off != 0)
			err = -EINVAL; /* the pipe header must be the first bytes */
	}
	strbuf__exit(&sb);
	return err;
}
